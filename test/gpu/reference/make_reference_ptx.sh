#!/usr/bin/env bash
# Compiles reference_kernels.cu (nvcc, CUDA 12+) into OUT_DIR: one PTX file
# per kernel variant the GPU tests use, each with its `// tilec-kernel:`
# line, for fake-tilec.sh.   make_reference_ptx.sh OUT_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$1"
mkdir -p "$out"
tensor() { # name dtype rank
  echo "{\"name\":\"$1\",\"kind\":\"tensor\",\"dtype\":\"$2\",\"rank\":$3,\"alignment\":16,\"contiguous\":true}"
}
emit() { # file name params nvcc-flags...
  local file="$1" name="$2" params="$3"
  shift 3
  nvcc -arch=compute_80 -ptx "$@" -o "$out/$file.tmp" "$here/reference_kernels.cu"
  { echo "// tilec-kernel: {\"abi\":1,\"arch\":\"sm_80\",\"name\":\"$name\",\"num_warps\":4,\"shared_bytes\":0,\"params\":[$params]}"
    cat "$out/$file.tmp"; } > "$out/$file.ptx"
  rm "$out/$file.tmp"
}
flag() { case "$1" in f32) echo -DDT_F32 ;; f16) echo -DDT_F16 ;; bf16) echo -DDT_BF16 ;; esac; }
for dt in f32 f16; do
  emit "vector_add-$dt" vector_add "$(tensor A $dt 1),$(tensor B $dt 1),$(tensor C $dt 1)" -DKERNEL_VECTOR_ADD "$(flag $dt)"
  emit "softmax-$dt" softmax "$(tensor X $dt 2),$(tensor Y $dt 2)" -DKERNEL_SOFTMAX "$(flag $dt)"
done
for dt in f16 bf16; do
  emit "gemm-$dt" gemm "$(tensor A $dt 2),$(tensor B $dt 2),$(tensor C $dt 2)" -DKERNEL_GEMM "$(flag $dt)"
  for d in 64 128; do
    for causal in True False; do
      for group in 1 4 8; do
        c=0; [ "$causal" = True ] && c=1
        emit "fmha-$dt-$d-$causal-$group" fmha \
          "$(tensor Q $dt 4),$(tensor K $dt 4),$(tensor V $dt 4),$(tensor Out $dt 4),{\"name\":\"qk_scale\",\"kind\":\"float\"},{\"name\":\"input_pos\",\"kind\":\"int\"}" \
          -DKERNEL_FMHA "$(flag $dt)" -DTILE_D=$d -DH=8 -DGROUP=$group -DCAUSAL=$c &
      done
    done
    wait
  done
done
