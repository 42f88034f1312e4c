//===- LoopCounters.h - Trip counters added to loops ------------*- C++ -*-===//
//
// What tile-pipeline (the rings' slot counter), tile-warp-specialize (the
// fills of a tile loop's one-slot ring), tile-ring-stored-operands and
// tile-async-wgmma (which slot a trip uses) share: an i32 iteration argument
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

/// Whether `v` is an i32 iteration argument of an `scf.for` that each trip
/// yields plus 1 (what addTripCounter adds).
bool isTripCounter(Value v);

/// An iteration argument of `loop` that isTripCounter, or null.
Value findTripCounter(scf::ForOp loop);

/// The stages S of a ring slot index `remui(c, S)` of a trip counter `c`
/// (constant S >= 1), with the counter; nullopt for any other index.
std::optional<std::pair<int64_t, Value>> tripSlotIndex(Value index);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_LOOPCOUNTERS_H
