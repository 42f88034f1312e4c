//===- Registration.h - Dialects and passes tilec registers ----*- C++ -*-===//
//
// The one place that lists what the tools know: the dialects tile IR and its
// lowerings use, and every pass of the project. tile-opt, tilec and libtile
// all register through these functions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_REGISTRATION_H
#define TILEC_PIPELINE_REGISTRATION_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace tilec {

void registerAllDialects(mlir::DialectRegistry &registry);
void registerAllDialects(mlir::MLIRContext &context);
void registerAllPasses();

} // namespace tilec

#endif // TILEC_PIPELINE_REGISTRATION_H
