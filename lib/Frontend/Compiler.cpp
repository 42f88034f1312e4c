//===- Compiler.cpp - From .tile source to verified tile IR ---------------===//

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Pipeline/Pipeline.h"
#include "tilec/Pipeline/Registration.h"

#include "Tile/IR/Locations.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

using namespace tilec;

void tilec::configureDiagnostics(mlir::MLIRContext &context) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto given = [&](llvm::StringRef name) {
    auto it = options.find(name);
    return it != options.end() && it->second->getNumOccurrences();
  };
  if (!given("mlir-print-op-on-diagnostic"))
    context.printOpOnDiagnostic(false);
  if (!given("mlir-print-stacktrace-on-diagnostic"))
    context.printStackTraceOnDiagnostic(false);
}

tilec::LocateUnlocatedDiagnostics::LocateUnlocatedDiagnostics(
    mlir::MLIRContext &context, std::function<mlir::Location()> fallback)
    : context(context) {
  id = context.getDiagEngine().registerHandler(
      [&context, fallback](mlir::Diagnostic &d) -> mlir::LogicalResult {
        if (mlir::tile::hasSourceLocation(d.getLocation()))
          return mlir::failure(); // the next handler prints it
        mlir::Location at = fallback();
        if (!mlir::tile::hasSourceLocation(at))
          return mlir::failure();
        mlir::Diagnostic located(at, d.getSeverity());
        located << d.str();
        for (mlir::Diagnostic &note : d.getNotes()) {
          mlir::Location noteAt = note.getLocation();
          located.attachNote(mlir::tile::hasSourceLocation(noteAt) ? noteAt
                                                                  : at)
              << note.str();
        }
        context.getDiagEngine().emit(std::move(located));
        return mlir::success();
      });
}

tilec::LocateUnlocatedDiagnostics::~LocateUnlocatedDiagnostics() {
  context.getDiagEngine().eraseHandler(id);
}

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
  configureDiagnostics(context);
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
  LocateUnlocatedDiagnostics locate(context, [&]() -> mlir::Location {
    for (auto &op : module->getBody()->getOperations())
      if (mlir::tile::hasSourceLocation(op.getLoc()))
        return op.getLoc();
    return module->getLoc();
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
