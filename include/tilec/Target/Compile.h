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

struct CompileRequest {
  std::string source;     // the .tile text
  std::string bufferName; // file name used in diagnostics
  std::vector<std::pair<std::string, std::string>> defines; // -DNAME=VALUE
  std::string kernelName;      // empty: every kernel of the file
  std::string arch = "sm_90a"; // sm_80, sm_86, sm_89, sm_90, sm_90a
  unsigned numWarps = 4;
  /// Byte alignment assumed for every tensor (base and outer strides); the
  /// runtime checks it at launch, and the JIT lowers it when an argument is
  /// less aligned. 16 allows 16-byte vector accesses.
  unsigned tensorAlignment = 16;
  /// Software-pipeline stages of the async copies in loops: 0 takes them
  /// from the kernel's `latency` hints, 1 turns pipelining off, N (up to 8)
  /// gives every pipelined copy N stages (tilec --num-stages).
  unsigned numStages = 0;
  /// Split loops at branches on their induction variable (the causal mask
  /// of attention), so that most iterations run without the branch
  /// (tilec --loop-split).
  bool loopSplit = true;
  /// sm_90a: issue a loop's last multiply in the next trip, behind its
  /// first, so that the work between them overlaps the tensor cores
  /// (tile-rotate-wgmma; tilec --rotate-wgmma=false turns it off).
  bool rotateWgmma = true;
  /// sm_90a: split the block into a TMA producer warp and the consumer
  /// warpgroups, which trade registers with setmaxnreg
  /// (tile-warp-specialize; tilec --warp-specialize).
  bool warpSpecialize = false;
  /// sm_90a, with warpSpecialize: consumer warpgroups issue their
  /// multiplies in turns, one's softmax under the other's (tile-ping-pong;
  /// tilec --ping-pong).
  bool pingPong = false;
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
