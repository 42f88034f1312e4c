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
// barrier between their own write and read is part of their lowering); a
// reduction across warps, whose lowering is exactly write, barrier, read,
// leaves only its reads behind it (tile-allocate-shared-memory keeps the
// next scratch apart from them).
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
// An async wgmma reads its operands until the `tile.wgmma_wait` that
// completes it, which names them: the wait counts as a read of them, so a
// later write into them gets its barrier after the wait. A TMA store
// (`tile.tma_store`) reads its buffer through the async proxy too, until
// the `tile.tma_store_wait` naming it, in the thread that issued it: the
// writes before it get a fence and a barrier, the writes after the wait a
// barrier.
//
// Warp specialization (`tile.warp_specialize`): the whole block meets once,
// before the split, after the barriers' initialization. The producer's TMA
// copies are ordered with the consumers' reads by the rings' full and empty
// mbarriers (a consumer's release, `tile.mbarrier_arrive`, reads its
// barrier only), so the producer's region needs no analysis; the
// consumers' region is analyzed like a kernel whose barriers are the named
// barrier `kConsumerBarrierId` of the consumer threads.
//
// A kernel launched in clusters (`tile.cluster`) has its blocks arrive on
// each other's mbarriers and copy into each other's shared memory
// (tile-dynamic-schedule, tile-multicast-copies): the whole cluster meets
// after the barriers' initialization (`tile.barrier {cluster}`, which is
// also the block's barrier there), and again before the kernel returns, so
// that no block leaves, or invalidates its barriers, while another may
// still arrive on them; the invalidations move after that last barrier.
//
// A `tile.tma_store_wait` moves, after the analysis, before the closest
// barrier earlier in its block when nothing between touches its buffers
// and the analysis run again then places fewer barriers: the barrier that
// is there anyway tells the other threads the copy has read the buffer (a
// staging buffer refilled every trip needs no barrier of its own).
//
// A buffer each warpgroup accesses in its own part only (a
// `tile.local_alloc` whose every store, read and wgmma A operand is a tile
// laid out with warpgroup g holding rows [g R / G, (g + 1) R / G) only, for
// G >= 2 warpgroups: P stored for P V by the two warpgroups of a 128-row
// block) is tracked apart: a hazard between two of its accesses is one
// within each warpgroup, ordered by a barrier of each warpgroup
// (`tile.barrier {warpgroup}`), so that the warpgroups run apart; a hazard
// with any other access of its bytes needs the block's barrier.
//
// A ring slot (`tile.smem_slot` with a run-time index) stands for the whole
// ring: the analysis does not tell slots apart, which is what a pipelined
// loop needs (its refill of a slot and its wait for the next share one
// barrier).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
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

bool overlap(Range x, Range y) {
  return x.first < y.second && y.first < x.second;
}

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
    return llvm::any_of(ranges, [&](Range x) { return overlap(x, r); });
  }
  bool overlaps(const RangeSet &o) const {
    return llvm::any_of(o.ranges, [&](Range r) { return overlaps(r); });
  }
  bool contains(const RangeSet &o) const {
    return llvm::all_of(o.ranges,
                        [&](Range r) { return llvm::is_contained(ranges, r); });
  }
};

/// Accesses of a buffer that each warpgroup makes to its own part only (a
/// partitioned `tile.local_alloc`, see findPartitioned): the buffer's
/// range and its allocation, which names the partition.
struct LocalSet {
  SmallVector<std::pair<Range, Operation *>> entries;

  void add(Range r, Operation *alloc) {
    if (!llvm::is_contained(entries, std::make_pair(r, alloc)))
      entries.push_back({r, alloc});
  }
  void add(const LocalSet &o) {
    for (auto [r, alloc] : o.entries)
      add(r, alloc);
  }
  bool contains(const LocalSet &o) const {
    return llvm::all_of(o.entries,
                        [&](auto e) { return llvm::is_contained(entries, e); });
  }
  /// Overlaps with another warpgroup's part may exist: an entry of another
  /// allocation over the same bytes (`sameAlloc` false), or of the same
  /// one (`sameAlloc` true: the same warpgroup's part).
  bool overlaps(Range r, Operation *alloc, bool sameAlloc) const {
    return llvm::any_of(entries, [&](auto e) {
      return (e.second == alloc) == sameAlloc && overlap(e.first, r);
    });
  }
  bool overlaps(const RangeSet &set) const {
    return llvm::any_of(entries, [&](auto e) { return set.overlaps(e.first); });
  }
};

struct State {
  RangeSet reads, writes, async;
  /// Ranges written through the generic proxy (stores, cp.async) since the
  /// last fence.proxy.async: the async proxy (wgmma) does not see them yet.
  RangeSet unfenced;
  /// Partitioned buffers' accesses since the last barrier of the block
  /// (`localReads`, `localWrites`) and since the last barrier of any kind
  /// (`groupReads`, `groupWrites`: a warpgroup barrier clears these).
  LocalSet localReads, localWrites, groupReads, groupWrites;
  /// Partitioned buffers' writes since the last fence.proxy.async.
  LocalSet groupUnfenced;

  void join(const State &o) {
    reads.add(o.reads);
    writes.add(o.writes);
    async.add(o.async);
    unfenced.add(o.unfenced);
    localReads.add(o.localReads);
    localWrites.add(o.localWrites);
    groupReads.add(o.groupReads);
    groupWrites.add(o.groupWrites);
    groupUnfenced.add(o.groupUnfenced);
  }
  bool contains(const State &o) const {
    return reads.contains(o.reads) && writes.contains(o.writes) &&
           async.contains(o.async) && unfenced.contains(o.unfenced) &&
           localReads.contains(o.localReads) &&
           localWrites.contains(o.localWrites) &&
           groupReads.contains(o.groupReads) &&
           groupWrites.contains(o.groupWrites) &&
           groupUnfenced.contains(o.groupUnfenced);
  }
  void barrier() {
    reads.ranges.clear();
    writes.ranges.clear();
    localReads.entries.clear();
    localWrites.entries.clear();
    warpgroupBarrier();
  }
  void warpgroupBarrier() {
    groupReads.entries.clear();
    groupWrites.entries.clear();
  }
};

struct InsertBarriersPass
    : public mlir::tile::impl::TileInsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      findPartitioned(func);
      // What the async proxy reads: a barrier placed while such data is
      // unfenced fences it too, so one barrier serves both.
      Accesses all;
      WalkResult walk = func.walk([&](Operation *op) {
        if (!isa<WarpgroupMmaOp, TmaStoreOp>(op))
          return WalkResult::advance();
        return failed(accessesOf(op, all)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      asyncReads = all.asyncReads;
      if (func->hasAttr(TileDialect::getClusterAttrName()))
        placeClusterBarriers(func);
      inserted.clear();
      FailureOr<size_t> placed = analyze(func);
      if (failed(placed) || failed(hoistTmaStoreWaits(func, *placed)))
        return signalPassFailure();
    }
  }

  RangeSet asyncReads;

  /// The `tile.local_alloc`s whose buffers each warpgroup accesses in its
  /// own part only: every use stores, reads (whole) or multiplies (as
  /// wgmma's A) a tile laid out so that warpgroup g of G (at least 2, the
  /// same G for all of them) holds only rows [g R / G, (g + 1) R / G) of
  /// the buffer's R, or names the buffer in a `tile.wgmma_wait` (of the
  /// warpgroup's own multiplies). A hazard between two such accesses needs
  /// only a barrier of each warpgroup: P stored for P V by the two
  /// warpgroups of a 128-row block, each multiplying its own 64 rows.
  DenseSet<Operation *> partitioned;

  void findPartitioned(func::FuncOp func) {
    partitioned.clear();
    func.walk([&](LocalAllocOp alloc) {
      ArrayRef<int64_t> shape = alloc.getType().getShape();
      unsigned parts = 0;
      // `type`'s rows are the buffer's, split among the same warpgroups.
      auto agrees = [&](Type t, bool wholeTile) {
        auto type = dyn_cast<RankedTensorType>(t);
        if (!type || type.getRank() != 2 || shape.size() != 2 ||
            type.getDimSize(0) != shape[0] ||
            (wholeTile && type.getShape() != shape))
          return false;
        unsigned g = warpgroupRowParts(type);
        if (g < 2 || (parts && g != parts))
          return false;
        parts = g;
        return true;
      };
      if (!agrees(alloc.getSource().getType(), true))
        return;
      for (OpOperand &use : alloc->getUses()) {
        Operation *user = use.getOwner();
        bool ok = false;
        if (auto store = dyn_cast<LocalStoreOp>(user))
          ok = use.get() == store.getBuffer() &&
               agrees(store.getValue().getType(), true);
        else if (auto load = dyn_cast<LocalLoadOp>(user))
          ok = llvm::all_of(load.getOffsets(), [](int64_t o) { return !o; }) &&
               agrees(load.getType(), true);
        else if (auto mma = dyn_cast<WarpgroupMmaOp>(user))
          ok = use.get() == mma.getA() && use.get() != mma.getB() &&
               agrees(mma.getAcc().getType(), false);
        else
          ok = isa<WgmmaWaitOp>(user);
        if (!ok)
          return;
      }
      partitioned.insert(alloc);
    });
  }

  /// The number of warpgroups (2 or more) among which `type`'s layout
  /// splits the tile's rows in equal parts, warpgroup g (warps 4g to
  /// 4g + 3) holding only rows of part g; 0 when it does not.
  static unsigned warpgroupRowParts(RankedTensorType type) {
    if (!isDistributedLayout(type.getEncoding()))
      return 0;
    LinearLayout layout = toLinearLayout(type.getEncoding(), type.getShape());
    ArrayRef<LinearLayout::Basis> warps = layout.warps();
    if (warps.size() < 3 || layout.getShape()[0] != type.getDimSize(0))
      return 0;
    unsigned groupBits = warps.size() - 2;
    int64_t part = type.getDimSize(0) >> groupBits;
    if (part < 1 || part << groupBits != type.getDimSize(0))
      return 0;
    auto within = [&](ArrayRef<LinearLayout::Basis> bases) {
      return llvm::all_of(
          bases, [&](const LinearLayout::Basis &b) { return b[0] < part; });
    };
    if (!within(layout.regs()) || !within(layout.lanes()) ||
        !within(warps.take_front(2)))
      return 0;
    for (unsigned i = 0; i < groupBits; ++i)
      if (warps[2 + i][0] != part << i)
        return 0;
    return 1u << groupBits;
  }

  /// The partitioned allocation `v` is, or null.
  Operation *partitionedAlloc(Value v) {
    Operation *def = v.getDefiningOp();
    return def && partitioned.contains(def) ? def : nullptr;
  }

  /// The fences and barriers this pass placed in the function analyzed.
  SmallVector<Operation *> inserted;

  /// Analyzes `func` from scratch (what an earlier analysis placed
  /// erased); the number of barriers it places.
  FailureOr<size_t> analyze(func::FuncOp func) {
    for (Operation *op : inserted)
      op->erase();
    inserted.clear();
    State state;
    if (failed(visitBlock(func.getBody().front(), state)))
      return failure();
    return size_t(llvm::count_if(
        inserted, [](Operation *op) { return isa<BarrierOp>(op); }));
  }

  /// A `tile.tma_store_wait` (in the thread that issued the copies) lets
  /// the other threads write the buffer once a barrier follows it: after
  /// the analysis, each wait with a barrier earlier in its block, and
  /// nothing between that touches the buffers it waits for (the copy was
  /// issued before: a loop's previous trip), moves before that barrier, and
  /// the analysis runs again. A staging buffer refilled every trip (a dQ
  /// tile reduced into global memory) then needs no barrier of its own
  /// before the write when the trip has one for other reasons. The waits
  /// stay where they were when that places no fewer barriers.
  /// `count`: the barriers the analysis placed.
  LogicalResult hoistTmaStoreWaits(func::FuncOp func, size_t count) {
    SmallVector<TmaStoreWaitOp> waits;
    func.walk([&](TmaStoreWaitOp wait) { waits.push_back(wait); });
    for (TmaStoreWaitOp wait : waits) {
      FailureOr<Operation *> at = hoistedPlace(wait);
      if (failed(at))
        return failure();
      if (!*at)
        continue;
      // Where it was: before the next op the analysis did not place (which
      // the next analysis erases).
      // (The block's end in a region without a terminator.)
      Block *block = wait->getBlock();
      Operation *next = wait->getNextNode();
      while (next && llvm::is_contained(inserted, next))
        next = next->getNextNode();
      wait->moveBefore(*at);
      FailureOr<size_t> after = analyze(func);
      if (failed(after))
        return failure();
      if (*after < count) {
        count = *after;
        continue;
      }
      if (next)
        wait->moveBefore(next);
      else
        wait->moveBefore(block, block->end());
      if (failed(analyze(func)))
        return failure();
    }
    return success();
  }

  /// Where hoistTmaStoreWaits tries `wait`: before the closest barrier
  /// (and its fence) earlier in its block, when no op between touches the
  /// buffers it waits for or defines one (or, for a wait with `pending`,
  /// copies anything); null when there is none.
  FailureOr<Operation *> hoistedPlace(TmaStoreWaitOp wait) {
    RangeSet waited;
    for (Value v : wait.getBuffers()) {
      auto r = rangeOf(wait, v);
      if (failed(r))
        return failure();
      waited.add(*r);
    }
    for (Operation *op = wait->getPrevNode(); op; op = op->getPrevNode()) {
      if (auto barrier = dyn_cast<BarrierOp>(op)) {
        if (barrier.getWarpgroup())
          continue;
        if (barrier.getCluster() || barrier.getIdAttr() != barrierIdOf(wait))
          return nullptr;
        Operation *fence = barrier->getPrevNode();
        return isa_and_nonnull<FenceAsyncSharedOp>(fence) ? fence : op;
      }
      if (llvm::any_of(op->getResults(), [&](Value r) {
            return llvm::is_contained(wait->getOperands(), r);
          }))
        return nullptr;
      // A counted wait above a copy would count one group fewer after the
      // ones it waits for.
      if (wait.getPending() && op->walk([](TmaStoreOp) {
                                   return WalkResult::interrupt();
                                 }).wasInterrupted())
        return nullptr;
      Accesses a;
      if (failed(summarize(op, a)))
        return failure();
      if (waited.overlaps(a.reads) || waited.overlaps(a.writes) ||
          a.localReads.overlaps(waited) || a.localWrites.overlaps(waited))
        return nullptr;
    }
    return nullptr;
  }

  /// The id of the barriers the analysis places around `op`: the consumer
  /// threads' named barrier inside a warp-specialized kernel's consumer
  /// region, the whole block's (no id) elsewhere.
  IntegerAttr barrierIdOf(Operation *op) {
    if (auto ws = op->getParentOfType<WarpSpecializeOp>();
        ws && ws.getConsumer().isAncestor(op->getParentRegion()))
      return Builder(op->getContext()).getI32IntegerAttr(kConsumerBarrierId);
    return IntegerAttr();
  }

  /// A clustered kernel's two cluster barriers: after the last mbarrier
  /// initialization at the top, and before the return, with the
  /// invalidations of the barriers made at the top after it. Barriers made
  /// inside a loop or a branch (the rings of a persistent kernel's split
  /// loops) are the block's own (tile-multicast-copies shares only rings
  /// made at the top): their invalidations stay where their lifetime ends,
  /// inside the region that defines them.
  static void placeClusterBarriers(func::FuncOp func) {
    Block &top = func.getBody().front();
    Operation *lastInit = nullptr;
    for (auto init : top.getOps<MbarrierInitOp>())
      lastInit = init;
    OpBuilder b(func.getContext());
    if (lastInit) {
      b.setInsertionPointAfter(lastInit);
      BarrierOp::create(b, lastInit->getLoc(), IntegerAttr(), IntegerAttr(),
                        /*cluster=*/true);
    }
    // (A kernel with no barriers at the top shares no shared memory with
    // its cluster: its blocks need not wait for each other to return.)
    if (!lastInit)
      return;
    Operation *ret = top.getTerminator();
    b.setInsertionPoint(ret);
    BarrierOp::create(b, ret->getLoc(), IntegerAttr(), IntegerAttr(),
                      /*cluster=*/true);
    SmallVector<MbarrierInvalOp> invals;
    func.walk([&](MbarrierInvalOp op) { invals.push_back(op); });
    for (MbarrierInvalOp op : invals)
      if (Operation *def = op.getBarriers().getDefiningOp();
          def && def->getBlock() == &top)
        op->moveBefore(ret);
  }

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
                 offset.getInt() +
                     withGroupCopies(alloc, getAllocationBytes(alloc))};
  }

  /// What one op does to shared memory.
  struct Accesses {
    RangeSet reads, writes;
    /// The part of `reads` read through the async proxy (wgmma operands).
    RangeSet asyncReads;
    /// The part of `writes` an async copy writes (tile.async_copy,
    /// tile.tma_load): it lands later, at a wait.
    RangeSet asyncWrites;
    /// What an mbarrier wait completes, visible to every thread that
    /// waited (all of them do).
    RangeSet completed;
    /// Partitioned buffers' accesses (not in `reads` and `writes`), and the
    /// part of them wgmma reads through the async proxy.
    LocalSet localReads, localWrites, localAsyncReads;

    void add(const Accesses &o) {
      reads.add(o.reads);
      writes.add(o.writes);
      asyncReads.add(o.asyncReads);
      asyncWrites.add(o.asyncWrites);
      completed.add(o.completed);
      localReads.add(o.localReads);
      localWrites.add(o.localWrites);
      localAsyncReads.add(o.localAsyncReads);
    }
    bool empty() const {
      return reads.ranges.empty() && writes.ranges.empty() &&
             localReads.entries.empty() && localWrites.entries.empty();
    }
  };

  enum class Hazard { None, Warpgroup, Block };

  /// The barrier `a` needs after what `state` records: one of the block
  /// where another thread may have accessed the bytes, one of each
  /// warpgroup where only the warpgroup's own part of a partitioned buffer
  /// is in question.
  static Hazard hazardOf(const State &state, const Accesses &a) {
    bool block = state.reads.overlaps(a.writes) ||
                 state.writes.overlaps(a.writes) ||
                 state.writes.overlaps(a.reads) ||
                 state.unfenced.overlaps(a.asyncReads) ||
                 state.localReads.overlaps(a.writes) ||
                 state.localWrites.overlaps(a.writes) ||
                 state.localWrites.overlaps(a.reads);
    bool group = false;
    for (auto [r, alloc] : a.localWrites.entries) {
      block = block || state.reads.overlaps(r) || state.writes.overlaps(r) ||
              state.localReads.overlaps(r, alloc, false) ||
              state.localWrites.overlaps(r, alloc, false);
      group = group || state.groupReads.overlaps(r, alloc, true) ||
              state.groupWrites.overlaps(r, alloc, true);
    }
    for (auto [r, alloc] : a.localReads.entries) {
      block = block || state.writes.overlaps(r) ||
              state.localWrites.overlaps(r, alloc, false);
      group = group || state.groupWrites.overlaps(r, alloc, true);
    }
    for (auto [r, alloc] : a.localAsyncReads.entries)
      group = group || state.groupUnfenced.overlaps(r, alloc, true);
    return block ? Hazard::Block : group ? Hazard::Warpgroup : Hazard::None;
  }

  /// The shared memory `op` itself accesses (not the ops nested in it);
  /// tile.async_wait, barriers and fences are the visit's business.
  LogicalResult accessesOf(Operation *op, Accesses &a) {
    auto add = [&](RangeSet &set, Value v) {
      auto r = rangeOf(op, v);
      if (failed(r))
        return false;
      // A partitioned buffer's reads and writes are tracked apart; the
      // async proxy's reads of it both ways (for the fences).
      Operation *alloc = partitionedAlloc(v);
      if (alloc && &set == &a.reads) {
        a.localReads.add(*r, alloc);
        return true;
      }
      if (alloc && &set == &a.writes) {
        a.localWrites.add(*r, alloc);
        return true;
      }
      if (alloc && &set == &a.asyncReads)
        a.localAsyncReads.add(*r, alloc);
      set.add(*r);
      return true;
    };
    bool ok = true;
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      ok = add(a.writes, copy.getBuffer()) &&
           add(a.asyncWrites, copy.getBuffer());
    } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
      ok = add(a.writes, copy.getBuffer()) &&
           add(a.asyncWrites, copy.getBuffer()) &&
           add(a.reads, copy.getBarriers());
    } else if (auto release = dyn_cast<MbarrierArriveOp>(op)) {
      // The producer's refill waits for it: nothing to order here.
      ok = add(a.reads, release.getBarriers());
    } else if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
      ok = add(a.reads, wait.getBarriers());
      for (Value buf : wait.getBuffers())
        ok = ok && add(a.completed, buf);
    } else if (isa<MbarrierInitOp, MbarrierInvalOp>(op)) {
      ok = add(a.writes, op->getOperand(0));
    } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      ok = add(a.writes, alloc.getResult());
    } else if (auto write = dyn_cast<LocalStoreOp>(op)) {
      ok = add(a.writes, write.getBuffer());
    } else if (auto write = dyn_cast<ClusterStoreOp>(op)) {
      // (Its writes into the other blocks' buffers are ordered by the
      // cluster barrier that follows it: tile-exchange-in-cluster.)
      ok = add(a.writes, write.getBuffer());
    } else if (auto copy = dyn_cast<TmaStoreOp>(op)) {
      ok =
          add(a.reads, copy.getBuffer()) && add(a.asyncReads, copy.getBuffer());
    } else if (auto wait = dyn_cast<TmaStoreWaitOp>(op)) {
      // The copies it completes read their buffers until here.
      for (Value v : wait.getBuffers())
        ok = ok && add(a.reads, v);
    } else if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      for (Value v : {mma.getA(), Value(mma.getB())})
        if (isa<SharedMemoryType>(v.getType()))
          ok = ok && add(a.reads, v) && add(a.asyncReads, v);
    } else if (auto wait = dyn_cast<WgmmaWaitOp>(op)) {
      // The multiplies it completes read their operands until here.
      for (Value v : wait.getBuffers())
        ok = ok && add(a.reads, v);
    } else if (auto read = dyn_cast<LocalLoadOp>(op)) {
      ok = add(a.reads, read.getBuffer());
    } else if (getScratchBytes(op)) {
      FailureOr<Range> r = scratchRange(op);
      if (failed(r))
        return failure();
      a.reads.add(*r);
      a.writes.add(*r);
    }
    return success(ok);
  }

  /// The scratch shared memory of `op` (tile::getScratchBytes), at the
  /// offset tile-allocate-shared-memory gave it.
  FailureOr<Range> scratchRange(Operation *op) {
    auto offset = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttr);
    if (!offset)
      return op->emitOpError("needs scratch shared memory that has no "
                             "offset: run tile-allocate-shared-memory first");
    return Range{offset.getInt(),
                 offset.getInt() + withGroupCopies(op, getScratchBytes(op))};
  }

  /// What the ops nested in `root` access, in all.
  LogicalResult summarize(Operation *root, Accesses &all) {
    WalkResult walk =
        root->walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
          Accesses a;
          if (failed(accessesOf(op, a)))
            return WalkResult::interrupt();
          all.add(a);
          return WalkResult::advance();
        });
    return failure(walk.wasInterrupted());
  }

  /// A barrier before `op`, with the fence of what the async proxy will
  /// read if it is unfenced.
  /// `warpgroup`: a barrier of each warpgroup (tile.barrier {warpgroup}).
  void placeBarrier(Operation *op, State &state, bool warpgroup = false) {
    OpBuilder b(op);
    if (state.unfenced.overlaps(asyncReads) ||
        state.groupUnfenced.overlaps(asyncReads)) {
      inserted.push_back(FenceAsyncSharedOp::create(b, op->getLoc()));
      state.unfenced.ranges.clear();
      state.groupUnfenced.entries.clear();
    }
    if (warpgroup) {
      inserted.push_back(BarrierOp::create(b, op->getLoc(), IntegerAttr(),
                                           IntegerAttr(), /*cluster=*/false,
                                           /*warpgroup=*/true));
      state.warpgroupBarrier();
      return;
    }
    inserted.push_back(
        BarrierOp::create(b, op->getLoc(), barrierId, barrierThreads));
    state.barrier();
  }

  void placeBarrier(Operation *op, State &state, Hazard hazard) {
    if (hazard != Hazard::None)
      placeBarrier(op, state, hazard == Hazard::Warpgroup);
  }

  /// The barrier placeBarrier places: the whole block's, or in the
  /// consumers of a warp-specialized kernel, a named barrier of theirs.
  IntegerAttr barrierId, barrierThreads;

  /// A warp-specialized kernel: the whole block synchronizes once before
  /// the split (the barriers' initialization); the producer synchronizes
  /// with the consumers through the rings' mbarriers only; the consumers
  /// are analyzed as a kernel of their own, with a named barrier.
  LogicalResult visitSpecialized(WarpSpecializeOp ws, State &state) {
    if (!state.reads.ranges.empty() || !state.writes.ranges.empty())
      placeBarrier(ws, state);
    Builder b(ws.getContext());
    barrierId = b.getI32IntegerAttr(kConsumerBarrierId);
    barrierThreads = b.getI32IntegerAttr(ws.getNumConsumerThreads());
    LogicalResult result = visitBlock(ws.getConsumer().front(), state);
    barrierId = barrierThreads = nullptr;
    return result;
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
      state.groupUnfenced.entries.clear();
      return success();
    }
    if (auto barrier = dyn_cast<BarrierOp>(op)) {
      if (barrier.getWarpgroup()) {
        state.warpgroupBarrier();
        return success();
      }
      // A named barrier orders only the threads that share it: it ends no
      // hazard between threads of the whole block, unless those are all
      // the threads that access shared memory here (the consumers).
      // Half a cluster barrier (arrive or wait) orders nothing by itself.
      if (barrier.isWholeCluster() ||
          (!barrier.getCluster() && barrier.getIdAttr() == barrierId))
        state.barrier();
      return success();
    }
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      return visitSpecialized(ws, state);
    if (isa<LoopLikeOpInterface>(op)) {
      // A hazard between what came before the loop and what the loop
      // touches gets its barrier before the loop, not in every trip.
      Accesses touched;
      if (failed(summarize(op, touched)))
        return failure();
      placeBarrier(op, state, hazardOf(state, touched));
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
    if (isScratchReadAfterOwnBarrier(op)) {
      // It writes its scratch, passes a barrier of its own (its
      // lowering's), then reads it: only its reads are left for the ops
      // after it.
      FailureOr<Range> r = scratchRange(op);
      if (failed(r))
        return failure();
      Accesses written;
      written.writes.add(*r);
      placeBarrier(op, state, hazardOf(state, written));
      state.barrier();
      state.reads.add(*r);
      return success();
    }
    Accesses a;
    if (failed(accessesOf(op, a)))
      return failure();
    if (a.empty())
      return success();

    // wgmma reads through the async proxy: what the threads wrote through
    // the generic proxy must be fenced by each writer before the barrier.
    placeBarrier(op, state, hazardOf(state, a));
    state.reads.add(a.reads);
    state.localReads.add(a.localReads);
    state.groupReads.add(a.localReads);
    state.localWrites.add(a.localWrites);
    state.groupWrites.add(a.localWrites);
    state.groupUnfenced.add(a.localWrites);
    if (!a.asyncWrites.ranges.empty()) {
      // An async copy writes its buffer when it lands (the copy engine's
      // through the async proxy: wgmma needs no fence to read it).
      state.async.add(a.asyncWrites);
      return success();
    }
    if (!a.completed.ranges.empty()) {
      RangeSet still;
      for (Range r : state.async.ranges)
        if (!a.completed.overlaps(r))
          still.add(r);
      state.async = still;
    }
    state.writes.add(a.writes);
    state.unfenced.add(a.writes);
    return success();
  }
};

} // namespace
