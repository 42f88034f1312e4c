//===- StagedLoads.h - A load read through a shared memory buffer *- C++
//-*-===//
//
// What tile-stage-converted-loads (a load whose tile a conversion moves
// between threads) and tile-stage-hinted-loads (a loop's load with a
// latency hint) share: a register load replaced by a copy into an
// unswizzled shared memory buffer where the load was and a read of the
// buffer, in a layout of the caller's choice, where the value is needed.
// tile-pipeline then makes the copy a ring copy of its loop.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_STAGEDLOADS_H
#define TILE_TRANSFORMS_STAGEDLOADS_H

#include "Tile/IR/TileOps.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// Why `load`, its tile distributed by `layout`, cannot be copied into
/// shared memory by an async copy, or an empty string: a padding other than
/// zero (what a copy leaves past the tensor's end; with `anyPadding`, the
/// caller's copies stay cp.async, which store the padding themselves), or
/// threads holding less than 4 contiguous bytes (the least a copy moves).
std::string whyNotCopyable(LoadOp load, BlockedLayoutAttr layout,
                           bool anyPadding = false);

/// Why `load` cannot be read through a shared memory buffer filled by an
/// async copy, or an empty string: a gather's boxes, a layout that is not
/// blocked, or whyNotCopyable's reasons.
std::string whyNotStageable(LoadOp load, bool anyPadding = false);

/// Replaces `load` (stageable: whyNotStageable) by a `tile.smem_alloc` and a
/// `tile.async_copy` at its place (with the load's padding where it is not
/// zero), and returns the buffer's contents read
/// (`tile.async_wait`, `tile.local_load`) before `readAt` in `layout`; a
/// layout of the rank of the tile without its size-1 dimensions reads it
/// without them. The caller replaces the load's uses; the load is left for
/// it to erase.
Value stageLoad(LoadOp load, Operation *readAt, Attribute layout);

/// Bytes of `load`'s tile along the tensor's contiguous (last) dimension:
/// the rows a copy of it reads (a copy of fewer than 16 measured slower than
/// a conversion).
int64_t contiguousRowBytes(LoadOp load);

/// A loop's conversion that reads a load of the same body through
/// element-wise ops, and what leads to it: tile-stage-converted-loads makes
/// the load a copy into shared memory read in the conversion's layout, the
/// ops computed after the read.
struct ConvertedLoadChain {
  ConvertLayoutOp convert;
  LoadOp load;
  SmallVector<Operation *> chain; // from the load's user to the conversion's
  ReshapeOp squeeze; // dropping the load's size-1 dimensions, if any
};

/// The chain `convert` ends, if it moves data between threads and its
/// source comes from a load of the same loop body through element-wise
/// ops whose other operands are uniform tiles (splat constants, splats of
/// scalars) or broadcasts (a row or column of values: chainOperand), each
/// value of the chain used once; the load stageable (whyNotStageable)
/// with at least 16 bytes along the tensor's contiguous dimension (what a
/// TMA copy fills; a narrower column's cp.async copy measured slower than
/// its conversion on sm_90a and sm_80 alike).
std::optional<ConvertedLoadChain> convertedLoadChain(ConvertLayoutOp convert);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_STAGEDLOADS_H
