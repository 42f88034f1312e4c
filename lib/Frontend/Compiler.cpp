//===- Compiler.cpp - From .tile source to verified tile IR ---------------===//

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Pipeline/Pipeline.h"
#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

using namespace tilec;

std::unique_ptr<ast::Module> tilec::parseSource(unsigned bufferId,
                                                DiagnosticEngine &diag) {
  auto module = parseModule(bufferId, diag);
  if (diag.hasErrors())
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp>
tilec::compileToTileIR(mlir::MLIRContext &context, unsigned bufferId,
                       DiagnosticEngine &diag, const FrontendOptions &options) {
  registerAllDialects(context);
  auto ast = parseSource(bufferId, diag);
  if (!ast)
    return nullptr;
  auto module = emitTileIR(context, *ast, diag, options);
  if (!module)
    return nullptr;

  // MLIR's own diagnostics (a verifier that catches what the emitter let
  // through) print against the same source, with line and caret.
  unsigned mlirErrors = 0;
  mlir::SourceMgrDiagnosticHandler handler(diag.getSourceMgr(), &context,
                                           diag.getStream());
  mlir::ScopedDiagnosticHandler counter(
      &context, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
          ++mlirErrors;
        return mlir::failure(); // let the SourceMgr handler print it
      });
  if (mlir::failed(mlir::verify(*module)))
    return nullptr;
  if (options.cleanup || options.configurePM) {
    mlir::PassManager pm(&context);
    if (options.configurePM && mlir::failed(options.configurePM(pm)))
      return nullptr;
    if (options.cleanup)
      buildTileCleanupPipeline(pm);
    if (mlir::failed(pm.run(*module)) || mlirErrors)
      return nullptr;
  }
  return module;
}
