#!/usr/bin/env bash
# The main job: installs the dependencies, builds tilec, and compiles the
# flash-attention kernel. It writes the verified tile IR of the causal and the
# non-causal kernel to out/ and prints the causal one.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/build.sh
build_dir="${TILEC_BUILD_DIR:-build}"
tilec="$build_dir/bin/tilec"

mkdir -p out
"$tilec" kernels/flash_attention.tile --emit=tile -DCAUSAL=true \
  -o out/flash_attention.causal.mlir
"$tilec" kernels/flash_attention.tile --emit=tile -DCAUSAL=false \
  -o out/flash_attention.mlir
cat out/flash_attention.causal.mlir
echo "run: wrote out/flash_attention.causal.mlir and out/flash_attention.mlir"
