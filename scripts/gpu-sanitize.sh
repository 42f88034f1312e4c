#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ made by
# scripts/package-gpu.sh; scripts/gpu-run.sh calls it (modes all and tests)
# after the GPU tests. compute-sanitizer's memcheck, racecheck and synccheck,
# each over `tile-kernel-gpu-tests --sanitize-subset`: a few tiny GEMM
# (64x64xK: 0, 1 and 3 trips of the K loop at stages 1 and 3, 5 trips at
# stages 2, 4 and 0) and flash attention cases (B=1, H=2: seq 130 with D=64
# and 128, causal and not, stages 1 and 0; one query tile over 16 key tiles,
# causal, split and whole, stages 3 and 0; D=128 stages 4 unsplit; no keys;
# specialized, with one and two consumer warpgroups, 2- and 3-stage rings;
# the persistent picks, rescale-in-trip included),
# JIT and AOT, every output checked against the float64 reference. Each
# tool took under 10 s on an H200.
#
#   bash scripts/gpu-sanitize.sh [TOOL...]    # default: memcheck racecheck synccheck
#
# TOOL is any compute-sanitizer tool (memcheck, racecheck, synccheck,
# initcheck). Environment:
#   OUT                default gpu-out; logs go to $OUT/sanitize-TOOL.log
#   BIN                default .gpu/bin (tile-kernel-gpu-tests, tilec)
#   COMPUTE_SANITIZER  default: compute-sanitizer on PATH, else
#                      /usr/local/cuda/bin/compute-sanitizer
#   SANITIZE_TIMEOUT   seconds per tool, default 600
#   SANITIZE_ARGS      more arguments for the test program (--jit-only,
#                      --family=gemm, --seed=N, ...)
#   SANITIZE_LEAK_CHECK=0  drops --leak-check full from memcheck (on by
#                      default: it reported no leak on an H200, driver 580,
#                      compute-sanitizer 2025.3)
#
# Before the tests, each of memcheck, racecheck and synccheck runs
# `tile-kernel-gpu-tests --sanitize-control=TOOL`, a kernel loaded through
# libtile with a bug planted for that tool (an out-of-bounds write, a
# shared-memory race, a barrier in divergent code), and must report it
# (log: $OUT/sanitize-TOOL-control.log): a sanitizer that cannot see
# libtile's kernels would otherwise pass everything.
#
# A tool PASSes when the control was caught, the log of the tests says
# "ERROR SUMMARY: 0 errors", racecheck's also "RACECHECK SUMMARY: 0 hazards"
# (where it prints one) and no hazard is reported, and the tests passed
# (exit 0). One line per tool, in the format of gpu-run.sh's table, on
# stdout and in $OUT/sanitize-results.txt.
# Exit 1 when a tool FAILs; 0 otherwise, also when there is no
# compute-sanitizer (every tool SKIPs, saying why) or no GPU (the test
# program exits 77: SKIP).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out="${OUT:-gpu-out}"
mkdir -p "$out"
bin="${BIN:-$PWD/.gpu/bin}"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export TILEC_CACHE_DIR="${TILEC_CACHE_DIR:-off}"
timeout_s="${SANITIZE_TIMEOUT:-600}"
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck)
results_file="$out/sanitize-results.txt"
: > "$results_file"

line() { # name verdict seconds summary
  local text
  text="$(printf '%-28s %-5s %4ss  %s' "$1" "$2" "$3" "$4")"
  echo "$text"
  echo "$text" >> "$results_file"
}

sanitizer="${COMPUTE_SANITIZER:-}"
if [ -z "$sanitizer" ]; then
  sanitizer="$(command -v compute-sanitizer || true)"
  [ -z "$sanitizer" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] &&
    sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then
  for tool in "${tools[@]}"; do
    line "sanitize-$tool" SKIP 0 \
      "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
  done
  exit 0
fi
"$sanitizer" --version 2>&1 | tail -1

status=0
for tool in "${tools[@]}"; do
  log="$out/sanitize-$tool.log"
  opts=(--tool "$tool" --target-processes application-only)
  case "$tool" in
    memcheck)
      # Padding after every allocation: an access just past one tensor lands
      # in no other tensor, so it is caught.
      opts+=(--padding 256)
      [ "${SANITIZE_LEAK_CHECK:-1}" != 0 ] && opts+=(--leak-check full) ;;
    racecheck)
      opts+=(--racecheck-report all) ;;
  esac
  start=$(date +%s)

  # The planted bug: the tool must report it.
  control=""
  case "$tool" in
    memcheck|racecheck|synccheck)
      timeout 120 "$sanitizer" "${opts[@]}" "$bin/tile-kernel-gpu-tests" \
        --sanitize-control="$tool" > "$out/sanitize-$tool-control.log" 2>&1
      if grep -qE 'ERROR SUMMARY: [1-9][0-9]* error|RACECHECK SUMMARY: [1-9][0-9]* hazard|Potential [A-Z]+ hazard' \
           "$out/sanitize-$tool-control.log"; then
        control=caught
      elif grep -q 'SKIP: no GPU' "$out/sanitize-$tool-control.log"; then
        control=skip
      else
        control=missed
      fi ;;
  esac

  # shellcheck disable=SC2086  # SANITIZE_ARGS is a list of words
  timeout "$timeout_s" "$sanitizer" "${opts[@]}" \
    "$bin/tile-kernel-gpu-tests" --kernels=kernels --tilec="$bin/tilec" \
    --sanitize-subset ${SANITIZE_ARGS:-} > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))

  tests="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
  summary="$(grep -oE 'ERROR SUMMARY: [0-9]+ errors?' "$log" | tail -1)"
  leaks="$(grep -oE 'LEAK SUMMARY: [0-9]+ bytes leaked' "$log" | tail -1)"
  hazards="$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazards?' "$log" | tail -1)"
  verdict=PASS
  why=""
  if [ $rc -eq 77 ] || grep -q 'SKIP: no GPU' "$log"; then
    verdict=SKIP
    why="no GPU; "
  else
    [ $rc -eq 124 ] && why="timed out after ${timeout_s}s; "
    [ "$control" = missed ] && {
      verdict=FAIL
      why+="the planted $tool bug was not reported (see sanitize-$tool-control.log); "
    }
    [ $rc -ne 0 ] && { verdict=FAIL; why+="exit $rc; "; }
    [ -z "$tests" ] && { verdict=FAIL; why+="no test tally; "; }
    # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors,
    # W warnings)" instead of an ERROR SUMMARY; the other tools with the
    # ERROR SUMMARY.
    case "$summary" in
      "ERROR SUMMARY: 0 errors") ;;
      "") if [ "$tool" != racecheck ] || [ -z "$hazards" ]; then
            verdict=FAIL
            why+="no ERROR SUMMARY; "
          fi ;;
      *) verdict=FAIL ;;
    esac
    if [ "$tool" = racecheck ]; then
      case "$hazards" in
        "RACECHECK SUMMARY: 0 hazards") ;;
        "") [ -n "$summary" ] ||
              { verdict=FAIL; why+="no RACECHECK SUMMARY; "; } ;;
        *) verdict=FAIL ;;
      esac
      # A hazard printed without a summary line counts as well.
      grep -qE 'Potential [A-Z]+ hazard|Race reported' "$log" &&
        { verdict=FAIL; why+="hazards reported; "; }
    fi
  fi
  [ "$verdict" = FAIL ] && status=1
  if [ "$verdict" = SKIP ]; then
    line "sanitize-$tool" SKIP "$took" "no GPU (see sanitize-$tool.log)"
    continue
  fi
  line "sanitize-$tool" "$verdict" "$took" \
    "${why}${tests:-?}${summary:+; $summary}${hazards:+; $hazards}${leaks:+; $leaks}${control:+; control $control}"
done
exit $status
