#!/usr/bin/env bash
# Writes flash-attention PTX for bench/ptx_ab.py: each configuration built
# in variants of one compiler option, into DIR (default .gpu/ab, which
# scripts/package-gpu.sh's .gpu/ carries to the GPU machine). AB_OPTION is
# rotate-wgmma (default; tilec --rotate-wgmma off and on),
# warp-specialize (tilec --warp-specialize off and on, on whole loops),
# persistent (tilec --persistent off and on, specialized),
# ping-pong (tilec --ping-pong off and on, specialized) or ablation (FA3's:
# 1none: no specialization, no rotation; 2ws: producer and consumers;
# 3pp: + ping-pong; 4rot: + in-warpgroup overlap, tile-rotate-wgmma;
# 5norpp: 4rot without ping-pong, the default with --warp-specialize;
# 6persist: 5norpp persistent, its blocks claiming their tiles, the
# attention API's pick at head dim 128; 2-stage rings throughout, the
# deepest a persistent kernel's shared memory holds at head dim 128) or
# tile-refill (the persistent, specialized kernel with Q in one slot,
# tilec --tile-stages=1, with --tile-refill-after-read off and on) or
# defer-epilogue (that kernel with Q refilled after its last read, with
# --defer-epilogue off and on) or custom: the variants are AB_VARIANTS' lines
# ("TAG tilec options...", later options overriding the configuration's) and
# the configurations AB_CONFIGS' lines (below; default: 128 x 128, 8 warps,
# 2 stages, head dim 128, causal and not).
# Run after scripts/package-gpu.sh (which empties .gpu/).
# There: python3 bench/ptx_ab.py .gpu/ab [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
tilec="${TILEC_BUILD_DIR:-build}/bin/tilec"
dir="${1:-.gpu/ab}"
option="${AB_OPTION:-rotate-wgmma}"
# variants: one line per variant, its tag and its tilec options.
case "$option" in
  rotate-wgmma|warp-specialize)
    tag=rot; [ "$option" = warp-specialize ] && tag=ws
    variants() { printf '%s\n' "${tag}false --$option=false" \
      "${tag}true --$option=true"; } ;;
  persistent)
    variants() { printf '%s\n' "pfalse --warp-specialize --persistent=false" \
      "ptrue --warp-specialize --persistent=true"; } ;;
  tile-refill)
    variants() { printf '%s\n' \
      "refill0 --warp-specialize --persistent --tile-stages=1" \
      "refill1 --warp-specialize --persistent --tile-stages=1 --tile-refill-after-read"; } ;;
  defer-epilogue)
    variants() { printf '%s\n' \
      "defer0 --warp-specialize --persistent --tile-stages=1 --tile-refill-after-read --defer-epilogue=false" \
      "defer1 --warp-specialize --persistent --tile-stages=1 --tile-refill-after-read --defer-epilogue"; } ;;
  custom)
    [ -n "${AB_VARIANTS:-}" ] || { echo "AB_OPTION=custom needs AB_VARIANTS" >&2; exit 2; }
    variants() { printf '%s\n' "$AB_VARIANTS"; } ;;
  ping-pong)
    variants() { printf '%s\n' "ppfalse --warp-specialize --ping-pong=false" \
      "pptrue --warp-specialize --ping-pong=true"; } ;;
  ablation)
    variants() { printf '%s\n' \
      "1none --warp-specialize=false --rotate-wgmma=false" \
      "2ws --warp-specialize --ping-pong=false --rotate-wgmma=false" \
      "3pp --warp-specialize --ping-pong --rotate-wgmma=false" \
      "4rot --warp-specialize --ping-pong --rotate-wgmma" \
      "5norpp --warp-specialize --ping-pong=false --rotate-wgmma" \
      "6persist --warp-specialize --ping-pong=false --rotate-wgmma --persistent"; } ;;
  *) echo "AB_OPTION must be rotate-wgmma, warp-specialize, persistent, ping-pong, ablation, tile-refill, defer-epilogue or custom" >&2
     exit 2 ;;
esac
mkdir -p "$dir"
rm -f "$dir"/fa_*.ptx
# One configuration per line: TILE_M TILE_N warps stages CAUSAL TILE_D
# loop-split.
configs() {
  case "$option" in
    custom) printf '%s\n' "${AB_CONFIGS:-128 128 8 2 False 128 false
128 128 8 2 True 128 false}"
    ;;
    ablation) cat <<'CONFIGS'
128 128 8 2 False 128 false
128 128 8 2 True 128 false
CONFIGS
    ;;
    persistent) cat <<'CONFIGS'
128 128 8 2 False 128 false
128 128 8 2 True 128 false
128 128 8 2 False 64 false
128 128 8 2 True 64 false
CONFIGS
    ;;
    tile-refill|defer-epilogue) cat <<'CONFIGS'
128 64 8 2 False 256 false
128 64 8 2 True 256 false
128 128 8 2 False 128 false
128 128 8 2 True 128 false
CONFIGS
    ;;
    ping-pong) cat <<'CONFIGS'
128 128 8 0 False 128 false
128 128 8 0 True 128 false
128 128 8 2 False 128 false
128 128 8 2 True 128 false
128 64 8 2 False 128 false
128 64 8 2 True 128 false
128 128 8 2 False 64 false
128 128 8 2 True 64 false
128 64 8 2 True 256 false
CONFIGS
    ;;
    warp-specialize) cat <<'CONFIGS'
128 64 4 2 False 128 false
128 64 4 2 True 128 false
128 128 8 2 False 128 false
128 128 8 2 True 128 false
128 128 8 0 False 128 false
64 128 4 2 False 64 false
64 128 4 2 True 64 false
64 64 4 2 True 256 false
CONFIGS
    ;;
    *) cat <<'CONFIGS'
128 128 8 0 False 128 true
128 128 8 0 True 128 false
128 64 4 2 False 128 true
128 64 4 2 True 128 true
128 64 4 2 True 128 false
128 64 8 2 False 128 true
128 64 8 2 True 128 true
64 64 4 2 True 128 true
64 128 4 2 False 64 true
64 128 4 2 True 64 false
64 64 4 2 False 256 true
128 64 8 2 True 256 false
CONFIGS
    ;;
  esac
}
configs | while read -r m n w s c d sp; do
  variants | while read -r tag flags; do
    # shellcheck disable=SC2086
    "$tilec" --arch=sm_90a --emit=ptx -DTILE_M="$m" -DTILE_N="$n" \
      --num-warps="$w" --num-stages="$s" -DCAUSAL="$c" -DTILE_D="$d" \
      --loop-split="$sp" $flags --kernel=fmha kernels/flash_attention.tile \
      -o "$dir/fa_M=${m}_N=${n}_W=${w}_S=${s}_C=${c}_D=${d}_SP=${sp}_${tag}.ptx"
  done
done
ls "$dir" | wc -l
