#!/usr/bin/env bash
# The main job: installs the dependencies, builds tilec and libtile, and
# compiles the flash-attention kernel: its tile IR and its PTX (sm_90a and
# sm_80) go to out/. Where a GPU and its driver are present, it then runs the
# kernel through libtile on random inputs and prints its check against a CPU
# reference and its time.
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
for arch in sm_90a sm_80; do
  "$tilec" kernels/flash_attention.tile --emit=ptx --arch=$arch \
    -o out/flash_attention.$arch.ptx
done
head -c 2000 out/flash_attention.causal.mlir
echo "..."
echo "run: wrote out/flash_attention{,.causal}.mlir and out/flash_attention.{sm_90a,sm_80}.ptx"

# On a GPU machine: run it and check it.
example="$build_dir/bin/flash_attention_jit"
if [ -x "$example" ]; then
  "$example" kernels/flash_attention.tile || {
    rc=$?
    [ $rc -eq 77 ] && echo "run: no GPU here; the kernel was compiled but not run" && exit 0
    exit $rc
  }
fi
