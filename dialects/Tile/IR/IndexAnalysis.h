//===- IndexAnalysis.h - What is known of an index tile --------*- C++ -*-===//
//
// Gathers and scatters take element indices from i32 tiles. Where an index
// tile is computed from `tile.arange`, constants, scalars and broadcasts,
// its values along a dimension come in runs that a vector access can use:
// runs of consecutive values (an arange: the columns of a row), runs of
// equal values (a broadcast row index), and every run starting at a
// multiple of a power of two (the alignment a vector needs). The analysis
// follows the ops that compute a tile back to those sources; anything else
// is known nothing of (runs of one).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_INDEXANALYSIS_H
#define TILE_IR_INDEXANALYSIS_H

#include "mlir/IR/Value.h"

#include <cstdint>

namespace mlir::tile {

/// Along one dimension of an i32 tile: the tile is cut into aligned runs of
/// `contiguous` elements that step by one (or of `constant` equal
/// elements), and each run's first element is a multiple of `divisor` (a
/// power of two). Runs of one element: nothing known but the divisor, which
/// then holds for every element.
struct IndexRuns {
  int64_t contiguous = 1;
  int64_t constant = 1;
  int64_t divisor = 1;
};

/// What is known of `tile` (an i32 tile) along dimension `dim`.
IndexRuns analyzeIndexRuns(Value tile, unsigned dim);

/// The largest power of two (up to 2^30) known to divide the i32 scalar
/// `scalar`.
int64_t scalarDivisor(Value scalar);

} // namespace mlir::tile

#endif // TILE_IR_INDEXANALYSIS_H
