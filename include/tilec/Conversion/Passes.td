//===- Passes.td - Conversions out of tile IR --------------*- tablegen -*-===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower laid-out tile IR to the LLVM and NVVM dialects";
  let description = [{
    Every tile becomes the registers its layout gives each thread (a 1:N type
    conversion); global tensor arguments become a pointer, sizes and strides
    (the kernel ABI of tilec/Target/KernelInfo.h). Element-wise ops apply per
    register; loads and stores become predicated vector accesses;
    `tile.mma` becomes `mma.sync.m16n8k16`; reductions use shuffles and
    shared memory; layout conversions move registers, shuffle them within
    warps or go through shared memory. Then scf, arith, math and func are lowered to LLVM, and the
    kernel gets `nvvm.kernel` and `nvvm.maxntid`. Kernels must have been
    through `tile-assign-layouts`, and their shared memory through
    `tile-allocate-shared-memory` (which records the kernel's
    `tile.shared_bytes`) and `tile-insert-barriers`: the lowering places no
    barriers between ops.

    With `arch` sm_90 or later, `tile.atomic_rmw sum` on f32, f16 and bf16
    combines vectors of the registers contiguous along the tensor's last
    dimension (`red.global.add.v4.f32`, `.v4.f16x2`, up to 16 bytes), and
    a 16-bit tile in an mma fragment's layout (an accumulator converted to
    16 bits) staged for a TMA store is written into shared memory by
    `stmatrix` where the store is the tile's last use and the buffer's
    fastest dimension is the fragment's columns (one `.x4` moves 8 elements
    a thread where plain stores move 2), as `ldmatrix` reads operands on
    every target.

    With `exp2-poly` N, `tile.exp2` with `flush_to_zero` on an f32 tile
    computes one register in N (those whose index is N - 1 modulo N) with a
    polynomial on the FMA pipe: x clamped to [-126, 127], split by the
    1.5 * 2^23 rounding trick into an integer j and f in [-0.5, 0.5], 2^f
    by a degree-3 minimax polynomial (relative error 7.5e-5), j added to
    the exponent bits; the others use `ex2.approx.ftz`. Softmax-heavy
    kernels are bounded by the multifunction unit (16 ex2 a clock a
    multiprocessor), which this offloads. A module with no such exp2 gets a
    warning.

    With `occupancy` N, each kernel is budgeted for N blocks per
    multiprocessor (`nvvm.minctasm`, PTX `.minnctapersm`: ptxas caps the
    registers so that N blocks fit), and a warp-specialized kernel splits
    the registers N blocks leave it between its producer and consumers.
  }];
  let options = [
    Option<"occupancy", "occupancy", "unsigned", /*default=*/"0",
           "Blocks per multiprocessor to budget registers for (0: no "
           "bound)">,
    Option<"exp2Poly", "exp2-poly", "unsigned", /*default=*/"0",
           "exp2 with flush_to_zero on f32 tiles: one register in N by a "
           "degree-3 polynomial on the FMA pipe (0: none)">,
    Option<"arch", "arch", "std::string", "\"sm_80\"",
           "Target GPU (sm_80, sm_86, sm_89, sm_90, sm_90a): instructions "
           "only later targets have (red.global with vector types, "
           "stmatrix: sm_90) "
           "are used where it has them">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
}

def CheckKernelParameters
    : Pass<"tile-check-kernel-parameters", "::mlir::ModuleOp"> {
  let summary = "Refuse a kernel whose parameters do not fit the target";
  let description = [{
    Adds up the bytes of each kernel's parameters as PTX lays them out (each
    at its alignment; a tensor is an address, an i32 size and an i64 stride
    per dimension; a TMA descriptor 128 bytes aligned to 64) and reports,
    at the kernel, a total beyond what the target's PTX allows
    (TargetLimits.h: 4352 bytes with the PTX ISA 7.8 of sm_80 to sm_89,
    32764 with the 8.1 of sm_90), which ptxas would otherwise reject.
    Runs on the LLVM dialect, after `convert-tile-to-llvm` has given the
    kernels their final signature; changes nothing.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_90a\"",
           "Target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a">,
  ];
}

#endif // TILEC_CONVERSION_PASSES_TD
