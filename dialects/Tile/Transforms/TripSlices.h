//===- TripSlices.h - The ops computing a trip's values --------*- C++ -*-===//
//
// What tile-pipeline (a copy issued trips ahead) and tile-prefetch-loads (a
// load issued a trip ahead) share: the ops of a loop body that compute some
// values from the induction variable and values defined outside the loop,
// which the passes clone with the induction variable of another trip.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_TRIPSLICES_H
#define TILE_TRANSFORMS_TRIPSLICES_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {

/// The ops of `loop`'s body that compute `values` from the induction
/// variable and values defined outside the loop, in body order; failure when
/// they depend on anything else: loop-carried values, ops with regions, ops
/// with memory effects — except, with `loadsWhereReadOnly`, global loads in
/// a loop that writes no global memory (they read the same for any trip,
/// whenever issued: a paged cache's page number, read from its block table).
FailureOr<SmallVector<Operation *>>
tripSlice(ValueRange values, scf::ForOp loop, bool loadsWhereReadOnly);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_TRIPSLICES_H
