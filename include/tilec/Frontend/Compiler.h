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
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <functional>
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

/// Sets up `context` for diagnostics a user reads: no dump of the IR
/// around an error (MLIR's default, which --mlir-print-op-on-diagnostic
/// given on the command line turns back on) and no stack trace.
void configureDiagnostics(mlir::MLIRContext &context);

/// Gives a source location to MLIR diagnostics that have none (a constant
/// whose location folding erased, an error a pass reports at the module):
/// while it lives, such a diagnostic, and each of its notes that has none,
/// is reported at `fallback()` (the kernel being compiled) instead, so that
/// every diagnostic names a file:line:col. Create it after the handler
/// that prints (handlers run newest first).
class LocateUnlocatedDiagnostics {
public:
  LocateUnlocatedDiagnostics(mlir::MLIRContext &context,
                             std::function<mlir::Location()> fallback);
  ~LocateUnlocatedDiagnostics();

private:
  mlir::MLIRContext &context;
  uint64_t id;
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
