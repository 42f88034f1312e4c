#!/usr/bin/env bash
# Writes flash-attention PTX for bench/ptx_ab.py: each configuration built
# with one compiler option off and on, into DIR (default .gpu/ab, which
# scripts/package-gpu.sh's .gpu/ carries to the GPU machine). The option is
# AB_OPTION: rotate-wgmma (default; tilec --rotate-wgmma) or
# warp-specialize (tilec --warp-specialize, on whole loops). Run after
# scripts/package-gpu.sh (which empties .gpu/).
# There: python3 bench/ptx_ab.py .gpu/ab [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
tilec="${TILEC_BUILD_DIR:-build}/bin/tilec"
dir="${1:-.gpu/ab}"
option="${AB_OPTION:-rotate-wgmma}"
case "$option" in
  rotate-wgmma) tag=rot ;;
  warp-specialize) tag=ws ;;
  *) echo "AB_OPTION must be rotate-wgmma or warp-specialize" >&2; exit 2 ;;
esac
mkdir -p "$dir"
rm -f "$dir"/fa_*.ptx
# One configuration per line: TILE_M TILE_N warps stages CAUSAL TILE_D
# loop-split.
configs() {
  if [ "$option" = warp-specialize ]; then
    cat <<'CONFIGS'
128 64 4 2 False 128 false
128 64 4 2 True 128 false
128 128 8 2 False 128 false
128 128 8 2 True 128 false
128 128 8 0 False 128 false
64 128 4 2 False 64 false
64 128 4 2 True 64 false
64 64 4 2 True 256 false
CONFIGS
    return
  fi
  cat <<'CONFIGS'
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
}
configs | while read -r m n w s c d sp; do
  for on in false true; do
    "$tilec" --arch=sm_90a --emit=ptx -DTILE_M="$m" -DTILE_N="$n" \
      --num-warps="$w" --num-stages="$s" -DCAUSAL="$c" -DTILE_D="$d" \
      --loop-split="$sp" --"$option"="$on" kernels/flash_attention.tile \
      -o "$dir/fa_M=${m}_N=${n}_W=${w}_S=${s}_C=${c}_D=${d}_SP=${sp}_${tag}${on}.ptx"
  done
done
ls "$dir" | wc -l
