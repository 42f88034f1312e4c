//===- DeferLoopStores.cpp - A trip's TMA store issued in the next trip ---===//
//
// A loop that stages a tile in shared memory in every trip and copies it out
// with TMA (tile-convert-stores-to-tma: attention backward's dQ share,
// `atomic_add` of an accumulator, reduced into global memory) pays, in every
// trip, a fence and a barrier right after its threads' stores, before the
// copy may start, and waits there for those stores to land:
//
//   trip i:  ... | wait (copy i-1 read the buffer) | barrier
//                | stage_i | fence | barrier | copy_i | ...
//
// Here the buffer becomes a ring of two that the trips take in turn, and
// the copy of trip i is issued in trip i + 1, behind the barrier that trip
// places anyway before the first multiply reading shared memory its threads
// wrote (the scores' P or dS staged for the next multiply), or at its top;
// the last trip's copy is issued after the loop (and the waits for its
// multiplies in flight right after it). Trip i's stores then reach
// the copy through the fence and barrier trip i + 1 has anyway, well after
// they landed, and the wait before the copy is for the copy two trips back:
//
//   trip i:  ... | wait (copy i-2 read slot i % 2) | fence | barrier
//                | copy_{i-1} (slot (i-1) % 2) | ... | barrier | stage_i
//
// (the second barrier: tile-insert-barriers does not tell a ring's slots
// apart, and orders the copy's read of the ring before the stores into it).
// The copy of a trip is predicated on a previous trip having run (an
// iteration argument), and its coordinates go around the loop.
//
// A loop qualifies when its body, at its top level, holds one
// `tile.local_store` into a buffer allocated before the loop
// (`tile.smem_alloc`) and the `tile.tma_store`s that read it after that
// store, and a `tile.tma_store_wait` naming it before the store; nothing
// else in the loop touches the buffer. The second buffer must fit within
// `shared-memory-bytes` (0: the sm_90a limit) and leave as many blocks a
// multiprocessor as before (by shared memory).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEFERLOOPSTORES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A staged TMA store of a loop's body: the wait, the store into the
/// buffer, the copies out of it.
struct StagedStore {
  SmemAllocOp alloc;
  TmaStoreWaitOp wait;
  LocalStoreOp store;
  SmallVector<TmaStoreOp> copies;
};

/// The staged store of `loop`'s body; failure with `why` where the body
/// copies out with TMA but not that way (`why` left alone where it does
/// not copy out at all).
FailureOr<StagedStore> findStagedStore(scf::ForOp loop, std::string &why) {
  Block *body = loop.getBody();
  StagedStore s;
  for (Operation &op : *body) {
    auto copy = dyn_cast<TmaStoreOp>(op);
    if (!copy)
      continue;
    auto alloc = copy.getBuffer().getDefiningOp<SmemAllocOp>();
    if (!alloc || loop->isAncestor(alloc)) {
      why = "its TMA store reads a buffer not allocated before the loop";
      return failure();
    }
    if (s.alloc && alloc != s.alloc) {
      why = "it copies out of more than one staging buffer";
      return failure();
    }
    s.alloc = alloc;
    s.copies.push_back(copy);
  }
  if (!s.alloc)
    return failure();
  Value buffer = s.alloc.getResult();
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (!loop->isAncestor(user))
      continue;
    if (user->getBlock() != body) {
      why = "the staging buffer is used in a region nested in the loop";
      return failure();
    }
    if (auto store = dyn_cast<LocalStoreOp>(user)) {
      if (s.store || use.get() != store.getBuffer()) {
        why = "the staging buffer is written more than once a trip";
        return failure();
      }
      s.store = store;
    } else if (auto wait = dyn_cast<TmaStoreWaitOp>(user)) {
      if (s.wait || wait.getPred() || wait.getPending()) {
        why = "the staging buffer's wait is not the plain one before its "
              "store";
        return failure();
      }
      s.wait = wait;
    } else if (!isa<TmaStoreOp>(user)) {
      why = "the staging buffer is read by more than its TMA stores";
      return failure();
    }
  }
  if (!s.store || !s.wait || !s.wait->isBeforeInBlock(s.store) ||
      llvm::any_of(s.copies, [&](TmaStoreOp c) {
        return c->isBeforeInBlock(s.store) || c.getPred();
      })) {
    why = "the loop does not wait, store and copy the staging buffer in "
          "that order";
    return failure();
  }
  return s;
}

/// Where the next trip issues the copies: before the body's first
/// multiply that reads shared memory the body's threads write (a barrier
/// goes there anyway), when that comes before the stage's wait; else at
/// the top of the body.
Operation *deferredPoint(scf::ForOp loop, StagedStore &s) {
  Block *body = loop.getBody();
  for (Operation &op : *body) {
    if (&op == s.wait.getOperation())
      break;
    auto mma = dyn_cast<WarpgroupMmaOp>(op);
    if (!mma)
      continue;
    for (Value v : {mma.getA(), Value(mma.getB())}) {
      if (!isa<SharedMemoryType>(v.getType()))
        continue;
      // (A tile.local_alloc in the body writes its own buffer.)
      Operation *alloc = getAllocation(v);
      if (!alloc)
        continue;
      if ((isa<LocalAllocOp>(alloc) && alloc->getBlock() == body) ||
          llvm::any_of(getBufferUsers(alloc->getResult(0)),
                       [&](Operation *user) {
                         return user->getBlock() == body &&
                                isa<LocalStoreOp, LocalAllocOp>(user);
                       }))
        return &op;
    }
  }
  return &body->front();
}

struct DeferLoopStoresPass
    : public mlir::tile::impl::TileDeferLoopStoresBase<DeferLoopStoresPass> {
  using TileDeferLoopStoresBase::TileDeferLoopStoresBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    std::string why = "no loop copies out of shared memory with TMA in its "
                      "body";
    unsigned deferred = 0;
    for (scf::ForOp loop : loops) {
      FailureOr<StagedStore> s = findStagedStore(loop, why);
      if (succeeded(s) && succeeded(defer(loop, *s, why)))
        ++deferred;
    }
    if (warn && !deferred)
      func.emitWarning() << "defer_loop_stores does not apply: " << why;
  }

  LogicalResult defer(scf::ForOp loop, StagedStore &s, std::string &why) {
    // Room for the second buffer.
    std::optional<TargetLimits> limits = TargetLimits::get("sm_90a");
    int64_t budget =
        sharedMemoryBytes > 0 ? sharedMemoryBytes : limits->sharedBytesPerBlock;
    int64_t total = sharedBytesLiveIn(loop);
    int64_t more = llvm::alignTo(getAllocationBytes(s.alloc), 128);
    if (total + more > budget) {
      why = "a second staging buffer would not fit (" +
            std::to_string(total + more) + " bytes of shared memory)";
      return failure();
    }
    int64_t most = mostBlocksAround(loop, *limits);
    if (std::min(most, limits->blocksByShared(total + more)) <
        std::min(most, limits->blocksByShared(total))) {
      why = "a second staging buffer would leave fewer blocks a "
            "multiprocessor";
      return failure();
    }
    // Its only uses outside the loop: waits after it (the kernel's last).
    for (Operation *user : s.alloc->getUsers()) {
      if (loop->isAncestor(user))
        continue;
      auto around = user->getParentOfType<scf::ForOp>();
      if (!isa<TmaStoreWaitOp>(user) || (around && !around->isAncestor(loop))) {
        why = "the staging buffer is used outside the loop";
        return failure();
      }
    }
    SharedMemoryType slotType = s.alloc.getType();
    SharedMemoryType ringType = getRingType(
        [&] { return s.alloc.emitWarning("not deferred: "); }, slotType, 2);
    if (!ringType) {
      why = "the staging buffer cannot be held twice";
      return failure();
    }

    Location loc = loop.getLoc();
    OpBuilder b(s.alloc);
    Value ring = SmemAllocOp::create(b, s.alloc.getLoc(), ringType);

    // What goes around: whether a trip ran, its slot, and the coordinates
    // of its copies that the body computes.
    // (Held as the copy and operand that read each: growing the loop
    // replaces its induction variable.)
    SmallVector<std::pair<unsigned, unsigned>> carriedAt;
    {
      SmallVector<Value> seen;
      for (auto [i, copy] : llvm::enumerate(s.copies))
        for (auto [j, c] : llvm::enumerate(copy.getCoords()))
          if (loop->isAncestor(c.getParentRegion()->getParentOp()) &&
              !llvm::is_contained(seen, c)) {
            seen.push_back(c);
            carriedAt.push_back({unsigned(i), unsigned(j)});
          }
    }
    auto carriedValues = [&] {
      SmallVector<Value> values;
      for (auto [i, j] : carriedAt)
        values.push_back(s.copies[i].getCoords()[j]);
      return values;
    };
    b.setInsertionPoint(loop);
    Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
    SmallVector<Value> inits = {no, zero};
    inits.append(carriedAt.size(), zero);

    // This trip's slot: the other one than the previous trip's (the
    // first trip takes slot 1: the previous slot starts at 0).
    Value slotIndex;
    IRRewriter rewriter(b);
    auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> added) {
          OpBuilder sb = OpBuilder::atBlockBegin(added[1].getOwner());
          slotIndex = arith::SubIOp::create(sb, l, one, added[1]);
          SmallVector<Value> yields = {
              arith::ConstantOp::create(yb, l, yb.getBoolAttr(true)),
              slotIndex};
          llvm::append_range(yields, carriedValues());
          return yields;
        }));
    loop = grown;
    Block *body = loop.getBody();
    unsigned first = loop.getInitArgs().size() - inits.size();
    ValueRange args = loop.getRegionIterArgs().drop_front(first);
    Value ran = args[0], previousSlot = args[1];
    ValueRange previousCoords = args.drop_front(2);

    // The stage into this trip's slot; before it, the wait for the copy
    // that read it (two trips back) moves up to the deferred copies.
    b.setInsertionPoint(s.store);
    Value slot = SmemSlotOp::create(b, loc, slotType, ring, slotIndex);
    s.store.getBufferMutable().assign(slot);

    // The previous trip's copies, where the next trip issues them.
    Operation *point = deferredPoint(loop, s);
    if (point == &body->front())
      b.setInsertionPointAfter(slotIndex.getDefiningOp());
    else
      b.setInsertionPoint(point);
    TmaStoreWaitOp::create(b, s.wait.getLoc(), ValueRange{ring}, Value());
    Value previous = SmemSlotOp::create(b, loc, slotType, ring, previousSlot);
    SmallVector<Value> carried = carriedValues();
    auto issue = [&](OpBuilder &ib, Value buffer, ValueRange coords,
                     Value pred) {
      for (TmaStoreOp copy : s.copies) {
        SmallVector<Value> at;
        for (Value c : copy.getCoords()) {
          auto it = llvm::find(carried, c);
          at.push_back(it == carried.end() ? c : coords[it - carried.begin()]);
        }
        TmaStoreOp::create(ib, copy.getLoc(), copy.getMap(), at, buffer, pred,
                           copy.getReduceAttr(), copy.getIssuerAttr());
      }
    };
    issue(b, previous, previousCoords, ran);
    s.wait.erase();

    // The last trip's copies after the loop, and after the waits right
    // after it (those of its multiplies left in flight): tile-guard-empty-
    // loops puts a loop that may run no trip under a guard together with
    // those waits only where they follow it directly; unguarded, the path
    // that skips the loop moves zeros into the registers the pending
    // multiplies write, and ptxas serializes every wgmma (C7515, attention
    // backward's dK and dV at head_dim 128).
    Operation *after = loop;
    while (isa_and_nonnull<WgmmaWaitOp>(after->getNextNode()))
      after = after->getNextNode();
    b.setInsertionPointAfter(after);
    ValueRange results = loop.getResults().drop_front(first);
    Value last = SmemSlotOp::create(b, loc, slotType, ring, results[1]);
    issue(b, last, results.drop_front(2), results[0]);
    for (TmaStoreOp copy : s.copies)
      copy.erase();

    // The buffer's other uses (the kernel's last wait) name the ring.
    s.alloc.getResult().replaceAllUsesWith(ring);
    s.alloc.erase();
    return success();
  }
};

} // namespace
