#!/usr/bin/env bash
# Checks the GPU test harness itself: runs tile-kernel-gpu-tests' AOT cases
# on the naive CUDA kernels of reference_kernels.cu instead of tilec's code,
# so that a failure of the real kernels can be told from a harness bug.
#   selfcheck.sh HARNESS KERNELS_DIR PTX_DIR
# Exit 77 (skip) without a GPU, or without nvcc when PTX_DIR is still empty.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
harness="$1" kernels="$2" ptx="$3"
"$harness" --kernels="$kernels" --aot-only --tilec=/bin/false --family=none
rc=$?
[ $rc -eq 0 ] || exit $rc # 77: no GPU
if [ ! -f "$ptx/fmha-bf16-128-True-8.ptx" ]; then
  if ! command -v nvcc >/dev/null; then
    echo "selfcheck: SKIP: no reference PTX in $ptx and no nvcc to build it"
    exit 77
  fi
  "$here/make_reference_ptx.sh" "$ptx" || exit 1
fi
TILE_REFERENCE_PTX="$ptx" exec "$harness" --kernels="$kernels" --aot-only \
  --tilec="$here/fake-tilec.sh"
