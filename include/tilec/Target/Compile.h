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
#include <optional>
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
  /// Byte alignment assumed for every tensor (base and outer strides); the
  /// runtime checks it at launch, and the JIT lowers it when an argument is
  /// less aligned. 16 allows 16-byte vector accesses.
  unsigned tensorAlignment = 16;
  /// Split loops at branches on their induction variable (the causal mask
  /// of attention), so that most iterations run without the branch
  /// (tilec --loop-split).
  bool loopSplit = true;
  /// Stages of the per-tile copies of a persistent kernel (attention's Q):
  /// 2 loads the next tile's while this one runs, 1 does not
  /// (tilec --tile-stages).
  unsigned tileStages = 2;
  /// CodegenOptions::tileRefillAfterRead.
  bool tileRefillAfterRead = false;
  /// sm_90: a persistent kernel's blocks claim their tiles as they go
  /// (tilec --dynamic-schedule; false: every P-th tile, fixed at launch).
  bool dynamicSchedule = true;
  /// sm_90a: a persistent kernel's tile epilogue runs under the next tile's
  /// first multiply (tilec --defer-epilogue).
  bool deferEpilogue = false;
  /// sm_90a: a persistent kernel's next tile's first multiply and softmax
  /// run under this tile's last multiply (tilec --rotate-tiles).
  bool rotateTiles = false;
  /// sm_90a: the accumulator's rescaling at the end of its trip (tilec
  /// --rescale-in-trip).
  bool rescaleInTrip = false;
  /// sm_90, persistent: CodegenOptions::cluster (tilec --cluster).
  unsigned cluster = 1;
  /// sm_90: a persistent kernel stages its TMA stores in the tile's own Q
  /// slot, read for the last time (tilec --stage-in-ring-slots).
  bool stageInRingSlots = true;

  // Options a kernel may also give in `@hints(...)` (Tile/IR/KernelHints.h):
  // set here, they win over the kernel's hint; unset, the hint or else the
  // default applies. Their meanings: tile::CompileOptions (tile/Tile.h).
  std::optional<unsigned> numWarps;   // default 4
  std::optional<unsigned> numStages;  // default 0: the latency hints
  std::optional<unsigned> occupancy;  // default: no bound
  std::optional<bool> rotateWgmma;    // default on
  std::optional<bool> warpSpecialize; // default off
  std::optional<bool> pingPong;       // default off
  std::optional<bool> persistent;     // default off
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
