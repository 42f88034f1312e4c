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
    shared memory; layout conversions move registers or go through shared
    memory. Then scf, arith, math and func are lowered to LLVM, and the
    kernel gets `nvvm.kernel` and `nvvm.maxntid`. Kernels must have been
    through `tile-assign-layouts`, and their shared memory through
    `tile-allocate-shared-memory` (which records the kernel's
    `tile.shared_bytes`) and `tile-insert-barriers`: the lowering places no
    barriers between ops.

    With `occupancy` N, each kernel is budgeted for N blocks per
    multiprocessor (`nvvm.minctasm`, PTX `.minnctapersm`: ptxas caps the
    registers so that N blocks fit), and a warp-specialized kernel splits
    the registers N blocks leave it between its producer and consumers.
  }];
  let options = [
    Option<"occupancy", "occupancy", "unsigned", /*default=*/"0",
           "Blocks per multiprocessor to budget registers for (0: no "
           "bound)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
}

#endif // TILEC_CONVERSION_PASSES_TD
