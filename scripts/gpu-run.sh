#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ made by
# scripts/package-gpu.sh: every GPU test, then the benchmarks, then tables.
# Logs and JSON go to $OUT (default: gpu-out/).
#
#   bash scripts/gpu-run.sh [all|tests|tests-native|tests-python|bench|attention|gemm|ablations|launch|torch|triton|interleaved|power|ops|variants]
#                           [--quick]
#
# tests-native and tests-python split tests in two (each within one device
# call's 600 s): the C++ GPU tests, first-launch, ptxas and the sanitizers;
# and the Python package's tests.
#
# tests (also in all) runs every GPU test, then scripts/gpu-sanitize.sh:
# compute-sanitizer memcheck, racecheck and synccheck on a few tiny GEMM and
# attention cases (logs $OUT/sanitize-*.log, one row per tool in the table;
# SANITIZE=off skips them).
#
# bench runs, in this order (about 5 minutes on an H200; --quick: about 1):
#   attention  tile-bench-attention: the tile shape x warps x stages search
#              per point, best config recorded            -> bench-tilec.json
#   gemm       tile-bench-gemm: fp16 4096^3 and 8192^3, search, and the
#              mma.sync ceiling kernel                     -> bench-gemm.json
#   ablations  loop split on/off (causal, D=128) and pipeline stages 1-4 and
#              0 (hints), on the configs the search chose  -> ablation-*.json
#   launch     tile-bench-launch: host time per launch, without and with
#              TMA descriptors (cache hit and miss)       -> bench-launch.json
#   torch      PyTorch SDPA (flash, cuDNN) and cuBLAS GEMM -> bench-torch.json
#   triton     bench/triton_attention.py: a flash-attention kernel in Triton,
#              checked against SDPA, searched over block sizes x stages x
#              warps x pointer/TMA loads per point      -> bench-triton.json
#   interleaved bench/interleaved.py: tilec.attention (the attention API,
#              its own tuning) against cuDNN, PyTorch flash and the Triton
#              kernel (the triton step's configs), and gemm.tile
#              (tilec.autotune) against cuBLAS, in one process, launches
#              alternating                       -> bench-interleaved.json
#   power      bench/power_probe.py: tilec.attention and cuDNN at D=128
#              without a mask, each launched back to back for seconds
#              while nvidia-smi samples the SM clock and the power draw:
#              TFLOP/s and joules per launch at the power limit
#                                                        -> bench-power.json
#   ops        bench/ops.py: the kernel library (tilec.ops) against the
#              PyTorch ops and the device copy, in one run -> bench-ops.json,
#              graph-timed -> bench-ops-graphs.json, one chart of both's
#              ratios -> bench-ops.svg (bench/ops_chart.py)
#   variants   bench/attention_variants.py: attention written plainly
#              (kernels/attention_rope, _bias, _window.tile) with the
#              compiler's schedule and parts of it off, against cuDNN
#                                                        -> bench-variants.log
# then bench/compare.py joins them into bench.md and bench.json, and
# bench/plot.py draws bench.png (TFLOP/s against N per head dim and mask). The
# benchmarks share an on-disk PTX cache ($OUT/ptx-cache, emptied first), so
# that the ablations reuse the search's kernels; the tests use none.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export TILEC_CACHE_DIR=off
# The tests' `tilec --emit=ptx` runs skip ptxas's spill check (the driver
# compiles the same PTX at load, and a spilling kernel says so there).
export TILEC_PTXAS=off
bin="$PWD/.gpu/bin"
what="${1:-all}"
quick=""
[ "${2:-}" = "--quick" ] && quick="--quick"
case "$what" in
  all|tests|tests-native|tests-python|bench|attention|gemm|ablations|launch|torch|triton|interleaved|power|ops|variants) ;;
  *) echo "usage: $0 [all|tests|tests-native|tests-python|bench|attention|gemm|ablations|launch|torch|triton|interleaved|power|ops|variants] [--quick]" >&2
     exit 2 ;;
esac
# wants STEP: whether this run includes the benchmark step STEP.
wants() { [ "$what" = all ] || [ "$what" = bench ] || [ "$what" = "$1" ]; }

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

# native / python: whether this run includes the C++ GPU tests (with
# first-launch, ptxas and the sanitizers) / the Python package's tests.
native=""; python=""
case "$what" in
  all|tests) native=1; python=1 ;;
  tests-native) native=1 ;;
  tests-python) python=1 ;;
esac
tests_only=""
case "$what" in tests|tests-native|tests-python) tests_only=1 ;; esac
if [ -n "$native" ]; then
run gpu-runtime "$bin/tile-runtime-gpu-tests" --tilec="$bin/tilec" \
  --inputs=test/gpu/Inputs
# Both code generation paths on this GPU: sm_90a (wgmma) and sm_80
# (mma.sync), JIT and AOT.
for arch in sm_90a sm_80; do
  for family in vector_add softmax gemm flash_attention; do
    run "gpu-$family-$arch" "$bin/tile-kernel-gpu-tests" --kernels=kernels \
      --tilec="$bin/tilec" --family=$family --arch=$arch $quick
  done
done
run gpu-tensor-maps "$bin/tile-tensormap-gpu-tests" --kernels=kernels
run example-flash-attention "$bin/flash_attention_jit" kernels/flash_attention.tile
run gpu-attention "$bin/tile-attention-gpu-tests" --kernels=kernels
run example-readme-attention "$bin/attention_example"
fi
# The Python package on PyTorch tensors (python/tests; pytest and torch from
# the machine's python3).
if [ -n "$python" ] && python3 -c "import torch, pytest" 2>/dev/null; then
  run python-tilec env TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" \
    PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider python/tests
fi
if [ -n "$native" ]; then
# A new process's first flash-attention launch: cold caches (tilec's PTX and
# the driver's JIT cache), both warm, and warm PTX with the driver's JIT
# cache off (the driver compiles the PTX).
fl_cache="$(mktemp -d)"
fl_driver="$(mktemp -d)"
for label in cold warm driver-cache-off; do
  disable=0; [ $label = driver-cache-off ] && disable=1
  TILEC_CACHE_DIR="$fl_cache" CUDA_CACHE_PATH="$fl_driver" \
    CUDA_CACHE_DISABLE=$disable "$bin/tile-bench-first-launch" \
    --kernel=kernels/flash_attention.tile --label=$label >> "$out/first-launch.json"
done
rm -rf "$fl_cache" "$fl_driver"
cat "$out/first-launch.json"
# Host microseconds per tilec.attention call, once tuned, against SDPA's.
if python3 -c "import torch" 2>/dev/null; then
  TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" PYTHONPATH="$PWD/python" \
    python3 bench/attention_overhead.py | tee "$out/launch-overhead.json"
fi

# Registers and spills of the flash-attention and GEMM kernels for sm_90a,
# from ptxas, and the tensor-core instructions in their SASS (HGMMA: wgmma).
if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
  PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
  CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  : > "$out/ptxas.txt"
  for k in flash_attention gemm; do
    "$bin/tilec" kernels/$k.tile --arch=sm_90a --emit=ptx -o "$out/$k.ptx" &&
      "$PTXAS" -arch=sm_90a -v "$out/$k.ptx" -o "$out/$k.cubin" 2>&1 |
      tee -a "$out/ptxas.txt"
    if [ -x "$CUOBJDUMP" ] && [ -f "$out/$k.cubin" ]; then
      n=$("$CUOBJDUMP" --dump-sass "$out/$k.cubin" | grep -c HGMMA)
      echo "$k sm_90a SASS: $n HGMMA" | tee -a "$out/ptxas.txt"
      results+=("$(printf '%-28s %-5s %4ss  %s' "sass-hgmma-$k" \
        "$([ "$n" -gt 0 ] && echo PASS || echo FAIL)" 0 "$n HGMMA")")
      [ "$n" -gt 0 ] || status=1
    fi
  done
  if grep -q "spill stores, [1-9]\|[1-9][0-9]* bytes spill" "$out/ptxas.txt"; then
    results+=("ptxas-spills                 FAIL    0s  spills in ptxas.txt")
    status=1
  fi
fi

# compute-sanitizer on tiny GEMM and attention cases, pipelined and not: one
# row per tool (PASS, FAIL, or SKIP without compute-sanitizer).
if [ "${SANITIZE:-on}" != off ]; then
  OUT="$out" BIN="$bin" bash scripts/gpu-sanitize.sh || status=1
  if [ -f "$out/sanitize-results.txt" ]; then
    while IFS= read -r row; do results+=("$row"); done \
      < "$out/sanitize-results.txt"
  fi
fi

fi

# The benchmarks: tilec and PyTorch side by side, in this one run. Each step
# prints its progress and keeps its log; a step that fails is reported and
# the next one runs.
bench_steps=()
step() { # name, command...: runs it, tee'd to $out/name.log
  local name="$1"; shift
  local start=$(date +%s)
  echo "== $name: $*"
  "$@" 2>&1 | tee "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  local took=$(( $(date +%s) - start ))
  local verdict=OK
  [ $rc -eq 77 ] && verdict=SKIP
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && { verdict="FAIL (exit $rc)"; status=1; }
  bench_steps+=("$(printf '%-24s %-14s %4ss' "$name" "$verdict" "$took")")
}

if [ -z "$tests_only" ]; then
export TILEC_CACHE_DIR="$PWD/$out/ptx-cache"
if wants attention || { wants ablations && [ ! -s "$out/bench-tilec.json" ]; }; then
  rm -rf "$TILEC_CACHE_DIR"
fi
if wants attention; then
  step bench-tilec "$bin/tile-bench-attention" \
    --kernel=kernels/flash_attention.tile --json="$out/bench-tilec.json" $quick
fi
if wants gemm; then
  step bench-gemm "$bin/tile-bench-gemm" --kernel=kernels/gemm.tile \
    --ceiling=bench/kernels/mma_ceiling.tile --json="$out/bench-gemm.json" $quick
fi
if wants ablations; then
  # On the configurations the search chose (searched again if it did not run).
  step ablation-split "$bin/tile-bench-attention" --ablation=split \
    --kernel=kernels/flash_attention.tile --best-from="$out/bench-tilec.json" \
    --json="$out/ablation-split.json" $quick
  step ablation-stages "$bin/tile-bench-attention" --ablation=stages \
    --kernel=kernels/flash_attention.tile --best-from="$out/bench-tilec.json" \
    --json="$out/ablation-stages.json" $quick
fi
if wants launch; then
  step bench-launch "$bin/tile-bench-launch" --kernels=kernels \
    --json="$out/bench-launch.json"
fi
export TILEC_CACHE_DIR=off
if wants torch; then
  step bench-torch env PYTHONUNBUFFERED=1 python3 bench/torch_baseline.py \
    --json="$out/bench-torch.json" $quick
fi
if wants triton; then
  step bench-triton env PYTHONUNBUFFERED=1 python3 bench/triton_attention.py \
    --json="$out/bench-triton.json" $quick
fi
if wants interleaved; then
  step bench-interleaved env PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python" \
    TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" python3 bench/interleaved.py \
    --json="$out/bench-interleaved.json" \
    $( [ -s "$out/bench-triton.json" ] && echo --triton-from="$out/bench-triton.json" ) $quick
fi
if wants power; then
  step bench-power env PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python" \
    TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" python3 bench/power_probe.py \
    --json="$out/bench-power.json" --seq-lens=1024,2048,4096,8192 \
    $( [ -n "$quick" ] && echo --seconds=2 --repeats=1 )
fi
if wants ops; then
  step bench-ops env PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python" \
    TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" python3 bench/ops.py \
    --json="$out/bench-ops.json" $( [ -n "$quick" ] && echo --rounds=5 )
  # The same graph-timed (the GPU's time, without the host's launch cost),
  # and both in one chart of ratios to PyTorch.
  step bench-ops-graphs env PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python" \
    TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" python3 bench/ops.py --graphs \
    --json="$out/bench-ops-graphs.json" $( [ -n "$quick" ] && echo --rounds=5 )
  [ -f "$out/bench-ops.json" ] && [ -f "$out/bench-ops-graphs.json" ] &&
    python3 bench/ops_chart.py "$out/bench-ops.json" \
      "$out/bench-ops-graphs.json" --labels=eager,graphs \
      -o "$out/bench-ops.svg"
fi
if wants variants; then
  step bench-variants env PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python" \
    TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" python3 bench/attention_variants.py \
    $( [ -n "$quick" ] && echo --rounds=5 --seq-lens=4096 )
fi
python3 bench/compare.py "$out/bench-tilec.json" "$out/bench-gemm.json" \
  "$out/ablation-split.json" "$out/ablation-stages.json" \
  "$out/bench-torch.json" "$out/bench-triton.json" \
  "$out/bench-interleaved.json" \
  --markdown="$out/bench.md" --json="$out/bench.json" > /dev/null
# The chart: TFLOP/s against N per head dim and mask, for tilec, cuDNN,
# PyTorch flash and Triton where their rows are present.
python3 bench/plot.py "$out/bench-tilec.json" "$out/bench-torch.json" \
  "$out/bench-triton.json" --png "$out/bench.png" \
  --title "flash attention forward, fp16, B=4, H=32, $(cut -d, -f1 "$out/gpu.txt")" \
  || echo "plot.py: no chart (matplotlib missing, or no attention rows)"
fi

echo
if [ -n "$native$python" ]; then
  echo "== GPU tests =="
  printf '%s\n' "${results[@]}"
fi
if [ -z "$tests_only" ]; then
  echo
  echo "== benchmark steps =="
  printf '%s\n' "${bench_steps[@]}"
  echo
  cat "$out/bench.md"
  if [ -s "$out/bench-power.log" ]; then
    echo; echo "== at the power limit (bench/power_probe.py) =="
    grep '^|' "$out/bench-power.log"
  fi
  if [ -s "$out/bench-variants.log" ]; then
    echo; echo "== attention written plainly (bench/attention_variants.py) =="
    grep -E '^(\||[a-z]+ \()' "$out/bench-variants.log"
  fi
fi
exit $status
