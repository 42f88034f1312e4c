#!/usr/bin/env bash
# Runs on the GPU machine (a kind whose ncu reads counters: nvidia-h100-x1):
# Nsight Compute over bench/profile_attention.py, i.e. the flash-attention
# PTX files given and cuDNN's attention on the same problem. Writes
# $OUT/profile.ncu-rep, $OUT/profile-details.txt (the sections: speed of
# light, pipes, warp stalls, schedulers, instruction mix, occupancy) and
# $OUT/profile-sass.csv (per SASS instruction of each kernel: executions
# and stall samples).
#
#   bash scripts/gpu-profile.sh [--n N] PTX...
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export TILEC_LIBRARY="$PWD/.gpu/lib/libtile.so" PYTHONPATH="$PWD/python"
export TILEC_CACHE_DIR=off
ncu --clock-control none --target-processes all \
    -k 'regex:fmha|sdpa|cudnn|flash' -s 2 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section Occupancy --section LaunchStats \
    --section SourceCounters --import-source no \
    -f -o "$out/profile" python3 bench/profile_attention.py "$@" \
    > "$out/profile-run.log" 2>&1
echo "ncu rc=$?"
tail -5 "$out/profile-run.log"
ncu -i "$out/profile.ncu-rep" --page details > "$out/profile-details.txt" 2>&1
ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass \
    > "$out/profile-sass.csv" 2>&1
ls -la "$out"
