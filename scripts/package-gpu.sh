#!/usr/bin/env bash
# Builds, then gathers what a GPU machine without LLVM needs into .gpu/
# (git-ignored): libtile.so and the programs that use it, stripped. The
# working tree (kernels/, bench/ with bench/kernels/, test/gpu/Inputs/,
# python/ with its tests) travels with it; see scripts/gpu-run.sh, which
# runs there.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build="${TILEC_BUILD_DIR:-build}"
rm -rf .gpu
mkdir -p .gpu/bin .gpu/lib
strip -o .gpu/lib/libtile.so "$build/lib/libtile.so"
for p in tilec tile-kernel-gpu-tests tile-runtime-gpu-tests \
         tile-tensormap-gpu-tests flash_attention_jit \
         tile-attention-gpu-tests attention_example tile-bench-first-launch \
         tile-bench-attention tile-bench-gemm tile-bench-launch; do
  if [ -f "$build/bin/$p" ]; then
    strip -o ".gpu/bin/$p" "$build/bin/$p"
  else
    echo "warning: $build/bin/$p was not built; .gpu/ lacks it" >&2
  fi
done
# The kernels the benchmarks read (from the working tree, which travels).
for k in kernels/flash_attention.tile kernels/gemm.tile kernels/vector_add.tile \
         bench/kernels/mma_ceiling.tile; do
  [ -f "$k" ] || { echo "error: $k is missing" >&2; exit 1; }
done
du -sh .gpu
