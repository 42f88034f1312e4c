#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ made by
# scripts/package-gpu.sh: one A/B of flash-attention PTX variants written by
# scripts/ptx-ab.sh (default directory .gpu/ab), in this order:
#
#   check      bench/ptx_ab.py --check: every variant at 1, 2 and 4 key
#              tiles, causal or not, poisoned outputs, float64 reference
#   sanitize   the same under compute-sanitizer memcheck, racecheck and
#              synccheck, with 3 persistent blocks (several tiles each)
#   time       bench/ptx_ab.py: the variants interleaved, B=4, H=32,
#              N = 1k, 2k, 8k; medians and ratios
#
# Logs in $OUT (default gpu-out/): ab-check.log, ab-<tool>.log, ab.txt; the
# timing is skipped when a check or a sanitizer fails.
#
#   bash scripts/gpu-ab.sh [DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
dir="${1:-.gpu/ab}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export TILEC_CACHE_DIR=off TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so"
export PYTHONPATH="$PWD/python" PYTHONUNBUFFERED=1
status=0
verdict() { # name, rc
  if [ "$2" -eq 0 ]; then echo "$1 PASS"; else echo "$1 FAIL ($2)"; status=1; fi
}
timeout 300 python3 bench/ptx_ab.py --check "$dir" > "$out/ab-check.log" 2>&1
verdict check $?
for tool in memcheck racecheck synccheck; do
  TILEC_PERSISTENT_BLOCKS=3 timeout 400 compute-sanitizer --tool "$tool" \
    --error-exitcode 1 --kernel-name kns=fmha \
    python3 bench/ptx_ab.py --check "$dir" > "$out/ab-$tool.log" 2>&1
  verdict "$tool" $?
done
if [ $status -eq 0 ]; then
  timeout 400 python3 bench/ptx_ab.py "$dir" > "$out/ab.txt" 2>&1
  verdict time $?
  cat "$out/ab.txt"
fi
exit $status
