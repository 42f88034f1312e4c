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
    if (p->hasAttr("tile.pipelined"))
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
  /// from, but not above another copy, wait or barrier (their order is what
  /// the waits count) nor above a write to global memory.
  static void hoist(AsyncCopyOp copy) {
    Operation *target = copy;
    for (Operation *prev = copy->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isAsyncOrdered(prev) || mayWriteGlobalMemory(prev))
        break;
      bool defines = llvm::any_of(prev->getResults(), [&](Value r) {
        return llvm::is_contained(copy->getOperands(), r);
      });
      if (defines)
        break;
      target = prev;
    }
    if (target != copy.getOperation())
      copy->moveBefore(target);
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
    if (!target)
      return;
    wait->moveAfter(target);
    wait.setPending(pending);
  }
};

} // namespace
