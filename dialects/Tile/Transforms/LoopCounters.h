//===- LoopCounters.h - Trip counters added to loops ------------*- C++ -*-===//
//
// What tile-pipeline (the rings' slot counter) and tile-warp-specialize (the
// fills of a tile loop's one-slot ring) share: an i32 iteration argument
// counting a loop's trips.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_LOOPCOUNTERS_H
#define TILE_TRANSFORMS_LOOPCOUNTERS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {

/// Replaces `loop` by one with an i32 iteration argument more, last, that
/// starts at `init` and grows by 1 each trip; the loop keeps its
/// discardable attributes. The new loop, or failure.
FailureOr<scf::ForOp> addTripCounter(scf::ForOp loop, Value init);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_LOOPCOUNTERS_H
