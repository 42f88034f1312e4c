//===- MLIRGen.h - From the .tile AST to tile IR ----------------*- C++ -*-===//
//
// Semantic analysis and IR generation in one walk: the emitter evaluates the
// kernel body the way cuTile traces Python. Compile-time constants (const
// parameters, literals, shapes, dtypes) are folded as they are met, so
// `if CAUSAL:` keeps one branch and `TILE_M * 2` is a number; values that
// depend on run-time data become tile IR. Types and shapes are inferred and
// checked on the way, and every error points at the source.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_MLIRGEN_H
#define TILEC_FRONTEND_MLIRGEN_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec {

struct MLIRGenOptions {
  /// `-DNAME=VALUE` overrides of const parameter defaults, in command-line
  /// order.
  std::vector<std::pair<std::string, std::string>> defines;
  /// Emit only this kernel; all kernels when empty.
  std::string kernelName;
  /// Blocks per thread block cluster (the `cluster` option, when given;
  /// else a kernel's @hints(cluster=C)): above 1, the kernel is marked as
  /// launched in clusters (`tile.cluster`), which cluster_rank() and
  /// cluster_barrier() need.
  std::optional<unsigned> cluster;
};

/// Emits every kernel of `module` (or the one selected) as a `func.func`
/// marked `tile.kernel`. Returns null when an error was reported.
mlir::OwningOpRef<mlir::ModuleOp> emitTileIR(mlir::MLIRContext &context,
                                             const ast::Module &module,
                                             DiagnosticEngine &diag,
                                             const MLIRGenOptions &options);

} // namespace tilec

#endif // TILEC_FRONTEND_MLIRGEN_H
