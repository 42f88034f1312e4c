//===- Compiler.h - From .tile source to verified tile IR -------*- C++ -*-===//
//
// The front half of the compiler as one call: parse a buffer, emit tile IR
// for its kernels, verify it and run the clean-up pipeline. tilec, the tests
// and the no-crash mutation test all go through here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_COMPILER_H
#define TILEC_FRONTEND_COMPILER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/MLIRGen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>

namespace mlir {
class MLIRContext;
class PassManager;
} // namespace mlir

namespace tilec {

struct FrontendOptions : MLIRGenOptions {
  /// Run canonicalization and CSE on the emitted IR.
  bool cleanup = true;
  /// Lets a tool apply its command-line pass-manager options
  /// (--mlir-print-ir-after-all, --mlir-timing, ...).
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePM;
};

/// Parses the buffer `bufferId`; null when a syntax error was reported.
std::unique_ptr<ast::Module> parseSource(unsigned bufferId,
                                         DiagnosticEngine &diag);

/// Parses, emits, verifies and cleans up. Errors (front-end and MLIR) are
/// reported through `diag`'s SourceMgr with their source locations; returns
/// null when there was any.
mlir::OwningOpRef<mlir::ModuleOp>
compileToTileIR(mlir::MLIRContext &context, unsigned bufferId,
                DiagnosticEngine &diag, const FrontendOptions &options);

} // namespace tilec

#endif // TILEC_FRONTEND_COMPILER_H
