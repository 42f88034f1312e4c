#!/usr/bin/env bash
# Configures and builds tilec (Release, LLVM/MLIR linked statically) into
# build/ (or $TILEC_BUILD_DIR). Incremental: a second run rebuilds only what
# changed.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${TILEC_BUILD_DIR:-build}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" "$@"
fi
# Two cores, and each MLIR translation unit takes about a gigabyte.
ninja -C "$build_dir" -j "${TILEC_JOBS:-$(nproc)}"
