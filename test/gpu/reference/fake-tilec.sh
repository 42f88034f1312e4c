#!/usr/bin/env bash
# Stands in for `tilec --emit=ptx FILE -DNAME=VALUE... -o OUT`, copying the
# matching PTX made by make_reference_ptx.sh from $TILE_REFERENCE_PTX.
set -euo pipefail
file="" out="" declare_dtype="" d="" causal="" group=""
while [ $# -gt 0 ]; do
  case "$1" in
    --emit=ptx) ;;
    -o) out="$2"; shift ;;
    -DDTYPE=*) declare_dtype="${1#-DDTYPE=}" ;;
    -DTILE_D=*) d="${1#-DTILE_D=}" ;;
    -DCAUSAL=*) causal="${1#-DCAUSAL=}" ;;
    -DQUERY_GROUP_SIZE=*) group="${1#-DQUERY_GROUP_SIZE=}" ;;
    -D*) ;;
    *) file="$1" ;;
  esac
  shift
done
kernel="$(basename "$file" .tile)"
case "$kernel" in
  flash_attention) name="fmha-$declare_dtype-$d-$causal-$group" ;;
  *) name="$kernel-$declare_dtype" ;;
esac
cp "$TILE_REFERENCE_PTX/$name.ptx" "$out"
