//===- Compile.h - From .tile source to PTX, in process ---------*- C++ -*-===//
//
// The whole compiler as one call, used by tilec and by libtile's JIT:
// parse, emit tile IR, assign layouts, lower to NVVM/LLVM, and emit PTX with
// LLVM's NVPTX back end. No CUDA toolkit is needed.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_COMPILE_H
#define TILEC_TARGET_COMPILE_H

#include "tilec/Target/KernelInfo.h"

#include "tile/Options.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir
namespace llvm {
struct LogicalResult;
} // namespace llvm

namespace tilec {

/// What to stop at and print (tilec --emit=...).
enum class Stage { AST, Tile, Layout, NVVM, LLVM, PTX };

/// What to compile and how: the source, and the compile options
/// (tile::Options, from tile/Options.def), each set or left to the
/// kernel's @hints and the defaults.
struct CompileRequest : tile::Options {
  std::string source;     // the .tile text
  std::string bufferName; // file name used in diagnostics
  std::vector<std::pair<std::string, std::string>> defines; // -DNAME=VALUE
  std::string kernelName;      // empty: every kernel of the file
  std::string arch = "sm_90a"; // sm_80, sm_86, sm_89, sm_90, sm_90a
  /// Lets a tool apply its pass-manager command-line options
  /// (--mlir-print-ir-after-all, --mlir-timing) to every pipeline run.
  std::function<llvm::LogicalResult(mlir::PassManager &)> configurePM;
};

struct CompiledKernel {
  KernelInfo info;
  std::string ptx; // starts with the `// tilec-kernel: {json}` line
};

struct CompileResult {
  bool ok = false;
  std::string diagnostics;             // every error, formatted with carets
  std::vector<CompiledKernel> kernels; // when ok and stage == PTX
  std::string text;                    // the printed stage otherwise
};

/// Compiles `request` up to `stage`. Thread-safe: each call has its own
/// MLIR context.
CompileResult compile(const CompileRequest &request, Stage stage = Stage::PTX);

/// Identifies the compiler build in cache keys.
const char *compilerVersion();

} // namespace tilec

#endif // TILEC_TARGET_COMPILE_H
