#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ made by
# scripts/package-gpu.sh: every GPU test, then the benchmark, then a table.
# Logs and JSON go to $OUT (default: gpu-out/).
#
#   bash scripts/gpu-run.sh [all|tests|bench] [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export TILEC_CACHE_DIR=off
bin="$PWD/.gpu/bin"
what="${1:-all}"
quick=""
[ "${2:-}" = "--quick" ] && quick="--quick"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee "$out/gpu.txt"

status=0
results=()
run() { # name, command...
  local name="$1"; shift
  local start=$(date +%s)
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  local took=$(( $(date +%s) - start ))
  local verdict=PASS
  [ $rc -eq 77 ] && verdict=SKIP
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && { verdict=FAIL; status=1; }
  results+=("$(printf '%-28s %-5s %4ss  %s' "$name" "$verdict" "$took" \
    "$(grep -E 'passed|failed|PASS|FAIL' "$out/$name.log" | tail -1)")")
  echo "${results[-1]}"
}

if [ "$what" != bench ]; then
run gpu-runtime "$bin/tile-runtime-gpu-tests" --tilec="$bin/tilec" \
  --inputs=test/gpu/Inputs
for family in vector_add softmax gemm flash_attention; do
  run "gpu-$family" "$bin/tile-kernel-gpu-tests" --kernels=kernels \
    --tilec="$bin/tilec" --family=$family $quick
done
run example-flash-attention "$bin/flash_attention_jit" kernels/flash_attention.tile

# Registers and spills of the flash-attention kernel, from ptxas.
if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
  PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
  "$bin/tilec" kernels/flash_attention.tile --emit=ptx -o "$out/fa.ptx" &&
    "$PTXAS" -arch=sm_90a -v "$out/fa.ptx" -o /dev/null 2>&1 | tee "$out/ptxas.txt"
fi

fi

# The benchmark: tilec and PyTorch side by side, in this one run.
if [ "$what" != tests ]; then
"$bin/tile-bench-attention" --kernel=kernels/flash_attention.tile \
  --json="$out/bench-tilec.json" $quick 2>&1 | tee "$out/bench-tilec.log"
PYTHONUNBUFFERED=1 python3 bench/torch_baseline.py --json="$out/bench-torch.json" \
  $quick 2>&1 | tee "$out/bench-torch.log"
python3 bench/compare.py "$out/bench-tilec.json" "$out/bench-torch.json" \
  --markdown="$out/bench.md" --json="$out/bench.json" > /dev/null

fi

echo
if [ "$what" != bench ]; then
  echo "== GPU tests =="
  printf '%s\n' "${results[@]}"
fi
if [ "$what" != tests ]; then
  echo
  echo "== flash attention forward, TFLOPS (B=4, H=32, fp16) =="
  cat "$out/bench.md"
fi
exit $status
