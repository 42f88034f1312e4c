//===- FreshAccumulators.h - Accumulators that start at zero ----*- C++ -*-===//

#ifndef TILE_TRANSFORMS_FRESHACCUMULATORS_H
#define TILE_TRANSFORMS_FRESHACCUMULATORS_H

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {

/// Whether `loop` is one tile-fresh-accumulators peels where it runs a
/// trip: its body streams multiplies (no tile made in registers but by
/// `tile.wgmma` and its waits, no buffer allocated, no copy issued: a
/// warp-specialized GEMM's consumer K loop) and it carries an accumulator
/// that starts at zero (a constant tile of positive zeros) into a
/// `tile.wgmma` at the top of its body. Peeled, the first trip multiplies
/// onto the zeros themselves, which reads no accumulator.
bool peelsOntoZeros(scf::ForOp loop);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_FRESHACCUMULATORS_H
