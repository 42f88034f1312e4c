//===- CheckKernelParameters.cpp - A kernel's parameters fit the target ---===//
//
// A kernel's parameters are passed in a constant bank of limited size:
// 4352 bytes in PTX ISA 7.8, which tilec emits for sm_80 and sm_86, and
// 32764 from 8.1 on (tilec emits 8.4 for sm_89 and sm_90; sm_89 keeps
// the smaller limit, TargetLimits.h). ptxas rejects a kernel over the
// limit; this pass refuses it first, at the kernel, with the count. The
// sizes are those of the kernel's final signature (convert-tile-to-llvm's
// kernel ABI), laid out as PTX lays out `.param`s: each at its alignment.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "Tile/IR/TargetLimits.h"

namespace tilec {
#define GEN_PASS_DEF_CHECKKERNELPARAMETERS
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// Bytes and alignment of a `.param` of `type`: a scalar is its size (a
/// bool a byte) aligned to it, an address 8, an array its elements.
std::pair<uint64_t, uint64_t> paramSize(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return {8, 8};
  if (type.isIntOrFloat()) {
    uint64_t bytes =
        llvm::PowerOf2Ceil(std::max(1u, type.getIntOrFloatBitWidth() / 8));
    return {bytes, bytes};
  }
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    auto [size, align] = paramSize(array.getElementType());
    return {size * array.getNumElements(), align};
  }
  // Nothing else is a kernel parameter of tilec's: count it as a pointer.
  return {8, 8};
}

struct CheckKernelParametersPass
    : public tilec::impl::CheckKernelParametersBase<CheckKernelParametersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<tile::TargetLimits> limits = tile::TargetLimits::get(arch);
    if (!limits) {
      module.emitError() << "tile-check-kernel-parameters: unknown target '"
                         << arch << "'";
      return signalPassFailure();
    }
    bool ok = true;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        continue;
      uint64_t bytes = 0;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        auto [size, align] = paramSize(func.getArgumentTypes()[i]);
        // A by-value parameter (a TMA descriptor): its bytes, at the
        // alignment its attribute gives.
        if (auto byval = func.getArgAttrOfType<TypeAttr>(
                i, LLVM::LLVMDialect::getByValAttrName()))
          size = paramSize(byval.getValue()).first;
        if (auto a = func.getArgAttrOfType<IntegerAttr>(
                i, LLVM::LLVMDialect::getAlignAttrName()))
          align = a.getInt();
        bytes = llvm::alignTo(bytes, std::max<uint64_t>(align, 1)) + size;
      }
      if (int64_t(bytes) <= limits->parameterBytes)
        continue;
      func.emitError() << "kernel '" << func.getSymName() << "' has " << bytes
                       << " bytes of parameters (" << arch << " allows at most "
                       << limits->parameterBytes
                       << "; a tensor takes 8 bytes for its address and 12 "
                          "per dimension, a scalar 4): pass fewer "
                          "tensors or scalars, e.g. several scalars as one "
                          "tensor";
      ok = false;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
