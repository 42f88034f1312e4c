//===- tile-opt.cpp - mlir-opt-style driver for tile IR -------------------===//
//
// Parses tile IR, runs the requested passes and prints the result. Registers
// the tile dialect, the upstream dialects tile IR uses, the upstream generic
// passes (canonicalize, cse, ...) and every tilec pass.
//
// The input is read with a bound on its size, and the output is written as
// tilec writes its own (tilec/Support/Files.h): never over the input, and a
// failed write leaves the file that was there intact.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Registration.h"
#include "tilec/Support/Files.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

/// The largest IR file tile-opt reads.
constexpr size_t kMaxInputBytes = size_t(256) << 20;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Past the file-size limit (ulimit -f) a write fails and is reported.
  signal(SIGXFSZ, SIG_IGN);
  mlir::DialectRegistry registry;
  tilec::registerAllDialects(registry);
  tilec::registerAllPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "tilec optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return 0;
  }

  std::string input, output, error;
  if (!tilec::checkWritesSpareInput(inputFile, outputFile, error) ||
      !tilec::readFileBounded(inputFile, kMaxInputBytes, "an IR file", input,
                              error)) {
    llvm::errs() << "tile-opt: error: " << error << "\n";
    return 1;
  }
  llvm::raw_string_ostream os(output);
  if (mlir::failed(mlir::MlirOptMain(
          os,
          llvm::MemoryBuffer::getMemBuffer(
              input, inputFile == "-" ? "<stdin>" : inputFile),
          registry, config)))
    return 1;
  if (!tilec::writeFileSafely(outputFile, output, error,
                              /*removeOnSignal=*/true)) {
    llvm::errs() << "tile-opt: error: " << error << "\n";
    return 1;
  }
  return 0;
}
