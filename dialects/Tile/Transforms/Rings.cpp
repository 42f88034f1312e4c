//===- Rings.cpp - What uses a ring of shared memory buffers --------------===//

#include "Tile/Transforms/Rings.h"

using namespace mlir;
using namespace mlir::tile;

RingAccesses tile::collectRingAccesses(SmemAllocOp ring) {
  RingAccesses out;
  // Breadth first, each value's users in use-list order.
  SmallVector<Value> uses = {ring.getResult()};
  for (size_t i = 0; i < uses.size(); ++i) {
    Value v = uses[i];
    for (Operation *user : v.getUsers()) {
      if (auto slot = dyn_cast<SmemSlotOp>(user)) {
        out.slots.push_back(slot);
        uses.push_back(slot.getResult());
      } else if (auto release = dyn_cast<MbarrierArriveOp>(user)) {
        out.releases.push_back(release);
      } else if (isa<AsyncCopyOp, TmaLoadOp>(user)) {
        out.fills.push_back(user);
      } else if (isa<AsyncWaitOp, MbarrierWaitOp>(user)) {
        out.waits.push_back(user);
      } else {
        out.others.push_back(user);
      }
    }
  }
  return out;
}
