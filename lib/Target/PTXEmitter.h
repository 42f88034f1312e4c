//===- PTXEmitter.h - LLVM dialect to PTX, in process -----------*- C++ -*-===//

#ifndef TILEC_LIB_TARGET_PTXEMITTER_H
#define TILEC_LIB_TARGET_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tilec {

/// Translates an LLVM-dialect module to LLVM IR for NVPTX and optimizes it
/// (O3, then with `rematerialize` RematerializeAddressesPass, which counts
/// the functions it changed in `*rematerialized` when given). Errors go to
/// `error`.
std::unique_ptr<llvm::Module>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  llvm::StringRef arch, bool rematerialize, std::string &error,
                  unsigned *rematerialized = nullptr);

/// Emits PTX for `arch` (sm_80, sm_86, sm_89, sm_90, sm_90a) with LLVM's
/// NVPTX back end. Returns false and sets `error` on failure.
bool emitPTX(llvm::Module &module, llvm::StringRef arch, std::string &ptx,
             std::string &error);

} // namespace tilec

#endif // TILEC_LIB_TARGET_PTXEMITTER_H
