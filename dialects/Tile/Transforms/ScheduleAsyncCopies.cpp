//===- ScheduleAsyncCopies.cpp - Copies early, waits late -----------------===//
//
// Straight-line scheduling of async copies: a copy moves up its block to
// right after the ops its operands come from, a wait moves down its block to
// right before the first op that touches one of its buffers. Whatever runs
// in between overlaps with the copy. A wait that moves below other copies
// lets that many more copy groups stay in flight (copies complete in issue
// order). Loops pipelined by tile-pipeline are already scheduled.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESCHEDULEASYNCCOPIES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when `op` (or an op nested in it) may write memory other than
/// shared memory: a copy from global memory must not move above it.
bool mayWriteGlobalMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface) {
      if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          !isPure(nested))
        writes = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
          !isa<SharedMemoryResource>(e.getResource()))
        writes = true;
  });
  return writes;
}

/// True when `op` or an op nested in it is an async copy, a wait or a
/// barrier: the order of those is what the wait counts rely on.
bool isAsyncOrdered(Operation *op) {
  bool found = false;
  op->walk([&](Operation *nested) {
    if (isa<AsyncCopyOp, AsyncWaitOp, BarrierOp>(nested))
      found = true;
  });
  return found;
}

/// True when `op` or an op nested in it uses a buffer allocated by one of
/// `allocs` (through ring slots too).
bool touches(Operation *op, ArrayRef<Operation *> allocs) {
  bool found = false;
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      if (isa<SharedMemoryType>(v.getType()))
        if (Operation *alloc = getAllocation(v))
          found |= llvm::is_contained(allocs, alloc);
  });
  return found;
}

bool inPipelinedLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (p->hasAttr(TileDialect::getPipelinedAttrName()))
      return true;
  return false;
}

struct ScheduleAsyncCopiesPass
    : public mlir::tile::impl::TileScheduleAsyncCopiesBase<
          ScheduleAsyncCopiesPass> {
  void runOnOperation() override {
    SmallVector<AsyncCopyOp> copies;
    SmallVector<AsyncWaitOp> waits;
    getOperation().walk([&](Operation *op) {
      if (inPipelinedLoop(op))
        return;
      if (auto copy = dyn_cast<AsyncCopyOp>(op))
        copies.push_back(copy);
      if (auto wait = dyn_cast<AsyncWaitOp>(op))
        if (!wait.getBuffers().empty())
          waits.push_back(wait);
    });
    for (AsyncCopyOp copy : copies)
      hoist(copy);
    for (AsyncWaitOp wait : waits)
      sink(wait);
  }

  /// Moves a copy up its block, to right after the ops its operands come
  /// from, but not above another copy or a barrier (copies complete in
  /// issue order), an op that uses its buffer, nor a write to global
  /// memory. It may pass waits for other buffers: their counts are
  /// recomputed when the waits are sunk.
  static void hoist(AsyncCopyOp copy) {
    Operation *alloc = getAllocation(copy.getBuffer());
    // The buffer's allocation moves along with the copy.
    Operation *carried = nullptr;
    Operation *target = copy;
    for (Operation *prev = copy->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (prev == alloc && isa<SmemAllocOp>(prev) &&
          prev->getResult(0) == copy.getBuffer()) {
        carried = prev;
        continue;
      }
      bool passable = isa<AsyncWaitOp>(prev) || !isAsyncOrdered(prev);
      if (!passable || mayWriteGlobalMemory(prev) ||
          (alloc && touches(prev, {alloc})))
        break;
      bool defines = llvm::any_of(prev->getResults(), [&](Value r) {
        return llvm::is_contained(copy->getOperands(), r);
      });
      if (defines)
        break;
      target = prev;
    }
    if (target == copy.getOperation())
      return;
    if (target == carried)
      target = carried->getNextNode();
    copy->moveBefore(target);
    if (carried)
      carried->moveBefore(copy);
  }

  /// Moves a wait down its block to right before the first op that uses one
  /// of its buffers, over copies (counting them) but not over other waits,
  /// barriers or ops that contain any of those.
  static void sink(AsyncWaitOp wait) {
    SmallVector<Operation *> allocs;
    for (Value buf : wait.getBuffers()) {
      Operation *alloc = getAllocation(buf);
      if (!alloc)
        return;
      allocs.push_back(alloc);
    }
    int64_t pending = wait.getPending();
    Operation *next = wait->getNextNode();
    Operation *target = nullptr;
    for (; next && !next->hasTrait<OpTrait::IsTerminator>();
         next = next->getNextNode()) {
      if (touches(next, allocs))
        break;
      if (isa<AsyncCopyOp>(next)) {
        ++pending;
      } else if (isAsyncOrdered(next)) {
        break;
      }
      target = next;
    }
    if (target)
      wait->moveAfter(target);
    wait.setPending(std::max(pending, copiesIssuedSince(wait)));
  }

  /// The number of copies issued after the last copy into one of `wait`'s
  /// buffers and before the wait, when that is known: those copies are in
  /// the wait's block, and so is every copy in between (none is nested in a
  /// loop or branch). 0 otherwise.
  static int64_t copiesIssuedSince(AsyncWaitOp wait) {
    int64_t count = 0, fewest = -1;
    DenseSet<Operation *> pendingBuffers;
    for (Value buf : wait.getBuffers()) {
      Operation *alloc = getAllocation(buf);
      if (!alloc)
        return 0;
      pendingBuffers.insert(alloc);
    }
    for (Operation *op = wait->getPrevNode(); op && !pendingBuffers.empty();
         op = op->getPrevNode()) {
      if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
        if (pendingBuffers.erase(getAllocation(copy.getBuffer())))
          fewest = fewest < 0 ? count : std::min(fewest, count);
        ++count;
        continue;
      }
      if (isa<AsyncWaitOp, BarrierOp>(op))
        continue;
      if (isAsyncOrdered(op))
        return 0; // copies in a loop or branch: the count is not static
    }
    return pendingBuffers.empty() && fewest >= 0 ? fewest : 0;
  }
};

} // namespace
