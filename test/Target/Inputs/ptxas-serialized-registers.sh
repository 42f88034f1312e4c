#!/bin/sh
# Stands in for ptxas -v in ptxas-spills.test: the log ptxas 13.0 writes
# for a kernel whose wgmma instructions it serializes for want of registers
# (C7512, "for the function" where C7515 says "in the function"; attention
# backward's dK/dV kernel at head_dim 64 with 128 queries a trip), the
# kernel's name taken from the PTX it is given (the last argument but two).
for a in "$@"; do ptx=$prev2; prev2=$prev1; prev1=$a; done
name=$(sed -n 's/^.visible .entry \([A-Za-z_0-9]*\)(.*/\1/p' "$ptx" | head -n 1)
cat <<LOG
ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register resources for the function '$name'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '$name' for 'sm_90a'
ptxas info    : Function properties for $name
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 2 barriers
LOG
