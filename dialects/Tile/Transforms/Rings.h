//===- Rings.h - What uses a ring of shared memory buffers ------*- C++ -*-===//
//
// The facts about a ring (a tile.smem_alloc whose stages are reached through
// tile.smem_slot) that the passes after tile-pipeline share instead of each
// walking the slots again: which ops fill, wait for, release and read its
// slots. (The allocation a buffer is a slot of: getAllocation and
// getSlotRoot, SharedMemory.h.)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_RINGS_H
#define TILE_TRANSFORMS_RINGS_H

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"

namespace mlir::tile {

/// The ops that use a ring through its slots, by what they do with it.
struct RingAccesses {
  SmallVector<SmemSlotOp> slots;
  /// tile.async_copy and tile.tma_load into a slot.
  SmallVector<Operation *> fills;
  /// tile.async_wait and tile.mbarrier_wait naming a slot.
  SmallVector<Operation *> waits;
  /// tile.mbarrier_arrive naming a slot (a consumer's release).
  SmallVector<MbarrierArriveOp> releases;
  /// Every other user of a slot or of the ring: its reads (multiplies,
  /// their waits, local loads), or anything else that uses it.
  SmallVector<Operation *> others;
};

/// The uses of `ring`'s slots (and of the ring itself): the ring's users in
/// use-list order, then each slot's.
RingAccesses collectRingAccesses(SmemAllocOp ring);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_RINGS_H
