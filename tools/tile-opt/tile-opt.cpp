//===- tile-opt.cpp - mlir-opt-style driver for tile IR -------------------===//
//
// Parses tile IR, runs the requested passes and prints the result. Registers
// the tile dialect, the upstream dialects tile IR uses, the upstream generic
// passes (canonicalize, cse, ...) and every tilec pass.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerAllDialects(registry);
  tilec::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
