#!/usr/bin/env bash
# Writes flash-attention PTX for bench/ptx_ab.py: each configuration built
# with tile-rotate-wgmma off and on (tilec --rotate-wgmma), into DIR
# (default .gpu/ab, which scripts/package-gpu.sh's .gpu/ carries to the GPU
# machine). Run after scripts/package-gpu.sh (which empties .gpu/).
# There: python3 bench/ptx_ab.py .gpu/ab [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
tilec="${TILEC_BUILD_DIR:-build}/bin/tilec"
dir="${1:-.gpu/ab}"
mkdir -p "$dir"
rm -f "$dir"/fa_*.ptx
# TILE_M TILE_N warps stages CAUSAL TILE_D loop-split
while read -r m n w s c d sp; do
  for rot in false true; do
    "$tilec" --arch=sm_90a --emit=ptx -DTILE_M="$m" -DTILE_N="$n" \
      --num-warps="$w" --num-stages="$s" -DCAUSAL="$c" -DTILE_D="$d" \
      --loop-split="$sp" --rotate-wgmma="$rot" kernels/flash_attention.tile \
      -o "$dir/fa_M=${m}_N=${n}_W=${w}_S=${s}_C=${c}_D=${d}_SP=${sp}_rot${rot}.ptx"
  done
done <<'CONFIGS'
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
ls "$dir" | wc -l
