#!/usr/bin/env bash
# Regenerates echo.ptx and axpy.ptx from abi_kernels.cu with nvcc (CUDA 12+),
# each with the `// tilec-kernel:` line libtile reads.
set -euo pipefail
cd "$(dirname "$0")"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -arch=compute_80 -ptx -DECHO -o "$t/echo.ptx" abi_kernels.cu
nvcc -arch=compute_80 -ptx -DAXPY -o "$t/axpy.ptx" abi_kernels.cu
{
  echo '// tilec-kernel: {"abi":1,"arch":"sm_80","constants":[],"name":"echo","num_warps":1,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f32","rank":2,"alignment":4,"contiguous":false},{"name":"H","kind":"tensor","dtype":"f16","rank":1,"alignment":2,"contiguous":false},{"name":"s","kind":"float"},{"name":"i","kind":"int"},{"name":"b","kind":"bool"},{"name":"Out","kind":"tensor","dtype":"i32","rank":1,"alignment":4,"contiguous":false}]}'
  cat "$t/echo.ptx"
} > echo.ptx
{
  echo '// tilec-kernel: {"abi":1,"arch":"sm_80","constants":[],"name":"axpy","num_warps":4,"shared_bytes":102400,"params":[{"name":"X","kind":"tensor","dtype":"f32","rank":2,"alignment":4,"contiguous":false},{"name":"Y","kind":"tensor","dtype":"f32","rank":2,"alignment":16,"contiguous":true},{"name":"alpha","kind":"float"}]}'
  cat "$t/axpy.ptx"
} > axpy.ptx
