#!/bin/sh
# Stands in for ptxas -v in ptxas-spills.test, the kernel's name taken from
# the PTX it is given (the last argument but two). As ptxas-serialized.sh:
# the log ptxas 13.0 wrote for attention backward's dK/dV kernel before
# tile-guard-empty-loops (its wgmma instructions serialized, C7515). As
# ptxas-serialized-registers.sh (a link to this file): the log of a kernel
# whose wgmma instructions it serializes for want of registers (C7512,
# "for the function" where C7515 says "in the function"; attention
# backward's dK/dV kernel at head_dim 64 with 128 queries a trip).
for a in "$@"; do ptx=$prev2; prev2=$prev1; prev1=$a; done
name=$(sed -n 's/^.visible .entry \([A-Za-z_0-9]*\)(.*/\1/p' "$ptx" | head -n 1)
case "$(basename "$0")" in
  *registers*)
    echo "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register resources for the function '$name'"
    registers=168 ;;
  *)
    echo "ptxas info    : (C7519) warpgroup.arrive is injected in around line 888 by compiler to allow use of registers in GMMA in function '$name'"
    echo "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage in the function '$name'"
    registers=202 ;;
esac
cat <<LOG
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '$name' for 'sm_90a'
ptxas info    : Function properties for $name
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used $registers registers, used 1 barriers
LOG
