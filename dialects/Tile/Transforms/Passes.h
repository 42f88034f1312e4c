//===- Passes.h - Passes over tile IR ---------------------------*- C++ -*-===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Tile/Transforms/Passes.h.inc"

/// Checks that every tile.mma under `root`, and the source of each layout
/// conversion feeding its operands, is laid out, as tile-stage-mma-operands
/// needs; reports the op otherwise (Preconditions.cpp).
LogicalResult checkMmaOperandLayouts(Operation *root);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_PASSES_H
