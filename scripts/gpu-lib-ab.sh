#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root: an A/B of two libtile
# builds over benchmark commands, each library in its own processes,
# interleaved (BASE NEW NEW BASE by default), so that the GPU's clock drift
# over the minutes of the run falls on both alike. Here, package the two
# libraries small enough to carry (the device tool carries 64 MiB):
#
#   strip -o /tmp/new.so build/lib/libtile.so && xz -T2 -6 -c /tmp/new.so > .gpu/new.xz
#   (the same from the base revision's build into .gpu/base.xz)
#
# There:
#
#   bash scripts/gpu-lib-ab.sh .gpu/base.xz .gpu/new.xz COMMANDS
#
# COMMANDS is a file of benchmark commands, one a line, run from bench/ with
# bash (blank lines and lines starting with # skipped), e.g.
#
#   python3 -W ignore linear_variants.py --shape 8192,4096,4096 --dtype bfloat16 --variants 'p:TILE_M=128,TILE_N=256,persistent=True,auto_schedule=True'
#   python3 -W ignore mla_decode.py --graphs --rounds 5 --points 64x32768x128x1
#
# A library is a libtile.so or its xz compression (unpacked once into
# /tmp/tilec-lib-ab/). Each library gets its own tuning and kernel cache
# (TILEC_CACHE_DIR), fresh for the run: a tuned pick is the library's own.
# Every output line is written prefixed with "TAG ROUND | " (TAG base or
# new, ROUND the pass it ran in) to $OUT/lib-ab.log (OUT default gpu-out)
# and to stdout; the lines that begin with "|" (the benchmarks' markdown
# rows) are listed again at the end, grouped by command and first cell
# (the row's name) in the order they ran, so that each row's figures from
# the passes stand together. Environment:
#   AB_ORDER    the passes, default "base new new base"
#   AB_TIMEOUT  seconds per command and pass, default 300
#   AB_BUDGET   seconds for the whole run: later passes are skipped, and
#               said so, once it is spent (default 0: none)
# Exit 1 when a command fails (its status and last lines are in the log) or
# an argument is wrong; 0 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
if [ $# -ne 3 ]; then
  echo "usage: bash scripts/gpu-lib-ab.sh BASE_LIB NEW_LIB COMMANDS" >&2
  exit 1
fi
root="$PWD"
out="${OUT:-gpu-out}"
mkdir -p "$out"
log="$out/lib-ab.log"
: > "$log"
order="${AB_ORDER:-base new new base}"
for tag in $order; do
  case "$tag" in
    base|new) ;;
    *) echo "error: AB_ORDER names '$tag' (base or new)" >&2; exit 1 ;;
  esac
done
per="${AB_TIMEOUT:-300}"
budget="${AB_BUDGET:-0}"
work=/tmp/tilec-lib-ab
mkdir -p "$work"
commands_file="$3"
if [ ! -f "$commands_file" ]; then
  echo "error: no commands file '$commands_file'" >&2
  exit 1
fi
mapfile -t commands < <(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' \
                          "$commands_file")
if [ ${#commands[@]} -eq 0 ]; then
  echo "error: '$commands_file' has no commands" >&2
  exit 1
fi

# The library of TAG (base or new) from ARG, unpacked where it is xz.
library() { # tag arg
  local tag=$1 arg=$2
  if [ ! -f "$arg" ]; then
    echo "error: $tag library '$arg' does not exist" >&2
    return 1
  fi
  case "$arg" in
    *.xz)
      xz -dc "$arg" > "$work/$tag.so" || {
        echo "error: cannot unpack $tag library '$arg'" >&2
        return 1
      }
      echo "$work/$tag.so" ;;
    *) realpath "$arg" ;;
  esac
}
base_lib="$(library base "$1")" || exit 1
new_lib="$(library new "$2")" || exit 1
rm -rf "$work/cache-base" "$work/cache-new"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm \
    --format=csv,noheader 2>/dev/null || echo "nvidia-smi: none"
  echo "base: $1 ($(sha256sum "$base_lib" | cut -c1-12))"
  echo "new:  $2 ($(sha256sum "$new_lib" | cut -c1-12))"
  echo "order: $order; ${#commands[@]} command(s)"
} | tee -a "$log"

status=0
start=$(date +%s)
pass=0
for tag in $order; do
  pass=$((pass + 1))
  lib="$base_lib"
  [ "$tag" = new ] && lib="$new_lib"
  for i in "${!commands[@]}"; do
    if [ "$budget" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$budget" ]; then
      echo "$tag $pass | command $((i + 1)) skipped: AB_BUDGET spent" |
        tee -a "$log"
      continue
    fi
    (
      cd "$root/bench" &&
      TILEC_LIBRARY="$lib" TILEC_CACHE_DIR="$work/cache-$tag" \
      PYTHONPATH="$root/python:$root/bench" \
      timeout "$per" bash -c "${commands[$i]}"
    ) > "$work/run.txt" 2>&1
    rc=$?
    sed "s/^/$tag $pass | c$((i + 1)) /" "$work/run.txt" | tee -a "$log"
    if [ $rc -ne 0 ]; then
      echo "$tag $pass | c$((i + 1)) FAILED (status $rc): ${commands[$i]}" |
        tee -a "$log"
      status=1
    fi
  done
done
echo
echo "Rows by command, then by library ($log):"
grep -E '^(base|new) [0-9]+ \| c[0-9]+ \|' "$log" | sort -s -t'|' -k2,3
exit $status
