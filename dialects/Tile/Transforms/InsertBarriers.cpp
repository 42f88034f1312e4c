//===- InsertBarriers.cpp - Barriers where shared memory accesses conflict ===//
//
// A forward dataflow over each kernel, in program order, of the shared
// memory byte ranges accessed since the last barrier:
//
//   reads, writes  ranges this thread block read or wrote since the barrier;
//   async          ranges async copies are (or may be) writing.
//
// An op that writes a range some thread may have read or written since the
// last barrier, or reads a range some thread may have written, needs a
// barrier before it: one is inserted and both sets start empty. An async
// copy's write counts when it is issued (earlier readers of the buffer must
// be done); its data counts as written by the threads at the
// `tile.async_wait` that completes it, so readers after the wait need a
// barrier. Ops with scratch memory read and write their scratch range (the
// barrier between their own write and read is part of their lowering).
//
// wgmma reads its shared operands through the async proxy: data written
// through the generic proxy (stores, cp.async) is tracked until a
// `tile.fence_async_shared`, and a wgmma reading such data gets a fence
// and a barrier before it; any barrier placed while such data is unfenced
// gets the fence, so that one barrier serves both.
//
// Loops: a hazard between what precedes a loop and what the loop touches
// gets its barrier (and fence) right before the loop, once. Then the state
// at the head of a loop is the join of the state before it
// and the state at the end of its body, iterated to a fixed point (barriers
// inserted on the way stay: a later pass sees them and finds no conflict).
// Branches start from the same state and are joined after.
//
// TMA copies (`tile.tma_load`) are async copies whose data every thread
// sees after waiting on their mbarrier (`tile.mbarrier_wait`): no barrier
// between the wait and the readers, but one between earlier readers of the
// buffer and the next copy into it. mbarriers are shared memory like any
// other: their initialization and invalidation write them, copies and
// waits read them, so that a barrier separates the two.
//
// A ring slot (`tile.smem_slot` with a run-time index) stands for the whole
// ring: the analysis does not tell slots apart, which is what a pipelined
// loop needs (its refill of a slot and its wait for the next share one
// barrier).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

using Range = std::pair<int64_t, int64_t>; // [first, last) bytes

struct RangeSet {
  SmallVector<Range> ranges;

  void add(Range r) {
    if (!llvm::is_contained(ranges, r))
      ranges.push_back(r);
  }
  void add(const RangeSet &o) {
    for (Range r : o.ranges)
      add(r);
  }
  bool overlaps(Range r) const {
    return llvm::any_of(ranges, [&](Range x) {
      return x.first < r.second && r.first < x.second;
    });
  }
  bool overlaps(const RangeSet &o) const {
    return llvm::any_of(o.ranges, [&](Range r) { return overlaps(r); });
  }
  bool contains(const RangeSet &o) const {
    return llvm::all_of(o.ranges,
                        [&](Range r) { return llvm::is_contained(ranges, r); });
  }
};

struct State {
  RangeSet reads, writes, async;
  /// Ranges written through the generic proxy (stores, cp.async) since the
  /// last fence.proxy.async: the async proxy (wgmma) does not see them yet.
  RangeSet unfenced;

  void join(const State &o) {
    reads.add(o.reads);
    writes.add(o.writes);
    async.add(o.async);
    unfenced.add(o.unfenced);
  }
  bool contains(const State &o) const {
    return reads.contains(o.reads) && writes.contains(o.writes) &&
           async.contains(o.async) && unfenced.contains(o.unfenced);
  }
  void barrier() {
    reads.ranges.clear();
    writes.ranges.clear();
  }
};

struct InsertBarriersPass
    : public mlir::tile::impl::TileInsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // What the async proxy reads: a barrier placed while such data is
      // unfenced fences it too, so one barrier serves both.
      asyncReads = RangeSet();
      WalkResult walk = func.walk([&](WarpgroupMmaOp mma) -> WalkResult {
        for (Value v : {mma.getA(), Value(mma.getB())}) {
          if (!isa<SharedMemoryType>(v.getType()))
            continue;
          auto r = rangeOf(mma, v);
          if (failed(r))
            return WalkResult::interrupt();
          asyncReads.add(*r);
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      State state;
      if (failed(visitBlock(func.getBody().front(), state)))
        return signalPassFailure();
    }
  }

  RangeSet asyncReads;

  /// The byte range of the buffer `v` lives in.
  FailureOr<Range> rangeOf(Operation *user, Value v) {
    Operation *alloc = getAllocation(v);
    auto offset =
        alloc ? alloc->getAttrOfType<IntegerAttr>(kSharedOffsetAttr) : nullptr;
    if (!offset)
      return user->emitOpError(
          "uses a shared memory buffer that has no offset: run "
          "tile-allocate-shared-memory first");
    return Range{offset.getInt(),
                 offset.getInt() + getAllocationBytes(alloc)};
  }

  /// The ranges the ops nested in `root` read and write (the buffers of
  /// async copies count as written, the shared operands of wgmma as read,
  /// and also in `async`: read through the async proxy).
  LogicalResult summarize(Operation *root, RangeSet &reads, RangeSet &writes,
                          RangeSet &async) {
    WalkResult walk = root->walk([&](Operation *op) -> WalkResult {
      auto add = [&](RangeSet &set, Value v) {
        auto r = rangeOf(op, v);
        if (succeeded(r))
          set.add(*r);
        return succeeded(r);
      };
      bool ok = true;
      if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
        ok = add(writes, copy.getBuffer());
      } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
        ok = add(writes, copy.getBuffer()) && add(reads, copy.getBarriers());
      } else if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
        ok = add(reads, wait.getBarriers());
      } else if (isa<MbarrierInitOp, MbarrierInvalOp>(op)) {
        ok = add(writes, op->getOperand(0));
      } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        ok = add(writes, alloc.getResult());
      } else if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
        for (Value v : {mma.getA(), Value(mma.getB())})
          if (isa<SharedMemoryType>(v.getType()))
            ok = ok && add(reads, v) && add(async, v);
      } else if (auto read = dyn_cast<LocalLoadOp>(op)) {
        ok = add(reads, read.getBuffer());
      } else if (int64_t bytes = getScratchBytes(op)) {
        auto offset = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttr);
        if (offset) {
          reads.add({offset.getInt(), offset.getInt() + bytes});
          writes.add({offset.getInt(), offset.getInt() + bytes});
        }
      }
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  LogicalResult visitBlock(Block &block, State &state) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(visit(&op, state)))
        return failure();
    return success();
  }

  LogicalResult visit(Operation *op, State &state) {
    if (isa<FenceAsyncSharedOp>(op)) {
      state.unfenced.ranges.clear();
      return success();
    }
    if (auto barrier = dyn_cast<BarrierOp>(op)) {
      // A named barrier orders only the threads that share it: it ends no
      // hazard between threads of the whole block.
      if (!barrier.getId())
        state.barrier();
      return success();
    }
    if (isa<LoopLikeOpInterface>(op)) {
      // A hazard between what came before the loop and what the loop
      // touches gets its barrier before the loop, not in every trip.
      RangeSet touchedReads, touchedWrites, touchedAsync;
      if (failed(summarize(op, touchedReads, touchedWrites, touchedAsync)))
        return failure();
      if (state.writes.overlaps(touchedReads) ||
          state.writes.overlaps(touchedWrites) ||
          state.reads.overlaps(touchedWrites) ||
          state.unfenced.overlaps(touchedAsync)) {
        OpBuilder b(op);
        if (state.unfenced.overlaps(asyncReads)) {
          FenceAsyncSharedOp::create(b, op->getLoc());
          state.unfenced.ranges.clear();
        }
        BarrierOp::create(b, op->getLoc(), /*id=*/nullptr,
                          /*num_threads=*/nullptr);
        state.barrier();
      }
      // Zero trips leave the state as it is; each trip (all of the loop's
      // regions in order: a while loop's condition, then its body) starts
      // from the join of the entry state and the end of the previous one.
      State head = state;
      for (unsigned i = 0; i < 64; ++i) {
        State s = head;
        for (Region &r : op->getRegions())
          for (Block &b : r)
            if (failed(visitBlock(b, s)))
              return failure();
        if (head.contains(s)) {
          state = head;
          return success();
        }
        head.join(s);
      }
      return op->emitOpError("shared memory barrier analysis did not "
                             "converge");
    }
    if (op->getNumRegions()) {
      // Branches (scf.if): each region from the same state, joined after.
      State joined = state;
      for (Region &r : op->getRegions())
        for (Block &b : r) {
          State s = state;
          if (failed(visitBlock(b, s)))
            return failure();
          joined.join(s);
        }
      state = joined;
      return success();
    }

    RangeSet reads, writes;
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      // The completed copies' data is now written, as far as this thread
      // knows; the others learn at the next barrier.
      RangeSet done;
      if (wait.getBuffers().empty()) {
        done = state.async;
      } else {
        for (Value buf : wait.getBuffers()) {
          auto r = rangeOf(op, buf);
          if (failed(r))
            return failure();
          done.add(*r);
        }
      }
      RangeSet still;
      for (Range r : state.async.ranges) {
        (done.overlaps(r) ? state.writes : still).add(r);
        if (done.overlaps(r))
          state.unfenced.add(r);
      }
      state.async = still;
      return success();
    }
    // What an mbarrier wait completes is visible to every thread that
    // waited: all of them do.
    RangeSet completed;
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      auto r = rangeOf(op, copy.getBuffer());
      if (failed(r))
        return failure();
      writes.add(*r);
    } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
      auto r = rangeOf(op, copy.getBuffer());
      auto bars = rangeOf(op, copy.getBarriers());
      if (failed(r) || failed(bars))
        return failure();
      writes.add(*r);
      reads.add(*bars);
    } else if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
      auto bars = rangeOf(op, wait.getBarriers());
      if (failed(bars))
        return failure();
      reads.add(*bars);
      for (Value buf : wait.getBuffers()) {
        auto r = rangeOf(op, buf);
        if (failed(r))
          return failure();
        completed.add(*r);
      }
    } else if (isa<MbarrierInitOp, MbarrierInvalOp>(op)) {
      auto bars = rangeOf(op, op->getOperand(0));
      if (failed(bars))
        return failure();
      writes.add(*bars);
    } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      auto r = rangeOf(op, alloc.getResult());
      if (failed(r))
        return failure();
      writes.add(*r);
    } else if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      for (Value v : {mma.getA(), Value(mma.getB())}) {
        if (!isa<SharedMemoryType>(v.getType()))
          continue;
        auto r = rangeOf(op, v);
        if (failed(r))
          return failure();
        reads.add(*r);
      }
    } else if (auto read = dyn_cast<LocalLoadOp>(op)) {
      auto r = rangeOf(op, read.getBuffer());
      if (failed(r))
        return failure();
      reads.add(*r);
    } else if (int64_t bytes = getScratchBytes(op)) {
      auto offset = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttr);
      if (!offset)
        return op->emitOpError("needs scratch shared memory that has no "
                               "offset: run tile-allocate-shared-memory first");
      Range r{offset.getInt(), offset.getInt() + bytes};
      reads.add(r);
      writes.add(r);
    } else {
      return success();
    }

    // wgmma reads through the async proxy: what the threads wrote through
    // the generic proxy must be fenced by each writer before the barrier.
    bool asyncRead = isa<WarpgroupMmaOp>(op);
    bool unfenced = asyncRead && state.unfenced.overlaps(reads);
    bool conflict = state.reads.overlaps(writes) ||
                    state.writes.overlaps(writes) ||
                    state.writes.overlaps(reads) || unfenced;
    if (conflict) {
      OpBuilder b(op);
      if (state.unfenced.overlaps(asyncReads)) {
        FenceAsyncSharedOp::create(b, op->getLoc());
        state.unfenced.ranges.clear();
      }
      BarrierOp::create(b, op->getLoc(), /*id=*/nullptr,
                        /*num_threads=*/nullptr);
      state.barrier();
    }
    if (isa<AsyncCopyOp>(op)) {
      state.async.add(writes);
    } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
      // The copy engine writes the buffer (through the async proxy: wgmma
      // needs no fence to read it); the thread block reads the barrier.
      auto r = rangeOf(op, copy.getBuffer());
      state.async.add(*r);
      state.reads.add(reads);
    } else if (!completed.ranges.empty()) {
      RangeSet still;
      for (Range r : state.async.ranges)
        if (!completed.overlaps(r))
          still.add(r);
      state.async = still;
      state.reads.add(reads);
    } else {
      state.reads.add(reads);
      state.writes.add(writes);
      state.unfenced.add(writes);
    }
    return success();
  }
};

} // namespace
