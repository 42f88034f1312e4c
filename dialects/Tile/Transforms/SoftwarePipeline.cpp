//===- SoftwarePipeline.cpp - Multi-stage async copies in loops -----------===//
//
// Pipelines the `tile.async_copy` ops of an `scf.for` body: the copy a
// future iteration needs is issued while this one computes, into a ring of
// shared memory buffers, one per stage.
//
// The schedule. Copy i of the body gets S_i stages and is issued
// d_i = S_i - 1 iterations ahead. Think of the loop as preceded by D =
// max(d_i) "virtual" iterations -D..-1 that only issue copies (the
// prologue); in every (virtual) iteration each copy issues exactly one copy
// group, in the same order: the copy for iteration v + d_i, predicated off
// when that iteration does not exist. The body of iteration j is:
//
//   view_i = ring_i[j % S_i]                  (the slots iteration j reads)
//   ...
//   wait for copy i of iteration j, for each prefetched copy i
//   issue copy i for iteration j + d_i into ring_i[(j + d_i) % S_i], each i
//   ... reads of view_i ...
//
// In the tile loop of a persistent kernel (tile-persistent) the rings are
// allocated before the tile loop and the iteration counter goes around it,
// so that the fills of consecutive tiles follow each other in every ring:
// the prologue of the next tile fills the slots (base + t) mod S_i, base
// being the trips of the earlier tiles. The tile loop itself is pipelined
// after its loops, for the tile's own copies (directly in its body, not a
// loop's ring: attention's Q), with `tile-stages` stages: at 2 the next
// tile's copy is issued while this tile runs; at 1 the tile's copy is
// issued where it waits, as before, but into a ring of one slot living
// across tiles, indexed by the counter (modulo 1), so that the passes that
// take rings (TMA copies on mbarriers, a producer warp) take it too. With
// tile-refill-after-read, that one slot is filled a tile ahead like a ring:
// the first tile's copy before the tile loop, and each tile issues the next
// tile's into the slot right after its own last read of it (the op of the
// body holding the read, and the waits after it), predicated on the next
// tile existing; the tile's wait for its own stays where it was.
//
// The prefetched copies wait and issue together, where the first of them
// used to wait: tile-insert-barriers then puts one barrier between the
// waits and the issues, which both shows the landed data to every thread
// and ends the previous iteration's reads of the slots being refilled.
// Copy k of the issue order, issued d_k iterations before it is waited
// for, may be followed by the n - 1 - k copies after it in its iteration,
// n copies in each iteration in between and the copies issued before the
// group in the waiting iteration (n copies in the body): that is its
// wait's exact `pending` count, for any trip count, because copies
// predicated off still commit (empty) groups. A copy with one stage is
// issued right before its own wait, which then waits for everything.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/TensorMaps.h"
#include "Tile/Transforms/TripSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The deepest ring a !tile.smem holds.
constexpr int64_t kMaxStages = 16;

/// A copy of the loop body and what the pipeline makes of it.
struct PipelinedCopy {
  AsyncCopyOp copy;
  SmemAllocOp alloc;              // the buffer it fills each iteration
  AsyncWaitOp wait;               // the wait before its reads
  SmallVector<Operation *> slice; // body ops its indices are computed by
  unsigned stages = 1;
  /// For a tile loop's ring of one slot refilled after its last read
  /// (tile-refill-after-read): the refill's place, after this op of the body
  /// (the last to read the buffer, or waits right after it).
  Operation *refillAfter = nullptr;
  /// Iterations ahead it is issued: stages - 1, or 1 refilled after its
  /// last read.
  unsigned ahead() const { return refillAfter ? 1 : stages - 1; }
  Value ring; // the ring of `stages` buffers, before the loop
  Value view; // the slot the current iteration reads
};

/// The ops of the body computing `copy`'s operands for a trip (TripSlices.h;
/// a page number read from a block table is computed ahead with the copy it
/// indexes).
FailureOr<SmallVector<Operation *>> indexSlice(AsyncCopyOp copy,
                                               scf::ForOp loop) {
  SmallVector<Value> values(copy.getIndices());
  values.push_back(copy.getTensor());
  if (copy.getBoxes())
    values.push_back(copy.getBoxes());
  return tripSlice(values, loop, /*loadsWhereReadOnly=*/true);
}

struct PipelinePass : public mlir::tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // The loops in a persistent kernel's tile loop first: pipelining one
    // replaces the tile loop (its rings' counter goes around it).
    getOperation().walk([&](scf::ForOp loop) {
      if (!isTileLoop(loop))
        loops.push_back(loop);
    });
    // num_stages asked for where no loop copies anything: said (loads that
    // feed no multiply are not staged in shared memory, so a loop of them
    // has no copies to pipeline).
    bool copying = llvm::any_of(loops, [](scf::ForOp loop) {
      return loop.getBody()
          ->walk([](AsyncCopyOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
    });
    if (warn && numStages && !copying)
      emitWarning(getUserFacingLoc(getOperation()))
          << "num_stages=" << unsigned(numStages)
          << " does not apply to this kernel: no loop of it copies tiles into "
             "shared memory to pipeline (only the loads that feed a multiply "
             "are)";
    // (In post-order: a loop that carries an inner loop's rings is replaced
    // (it gains the rings' counter) before its own turn comes.)
    for (size_t i = 0; i < loops.size(); ++i) {
      scf::ForOp loop = loops[i];
      // A loop's own num_stages overrides the kernel's: said where the
      // kernel's was asked for.
      LoopScheduleAttr schedule = LoopScheduleAttr::of(loop);
      if (warn && numStages && schedule && schedule.getNumStages() &&
          *schedule.getNumStages() != numStages)
        emitWarning(getUserFacingLoc(loop))
            << "num_stages=" << unsigned(numStages)
            << " does not apply to this loop: its schedule gives num_stages="
            << *schedule.getNumStages();
      auto parent = dyn_cast_or_null<scf::ForOp>(loop->getParentOp());
      if (scf::ForOp carrier = pipeline(loop))
        std::replace(loops.begin() + i + 1, loops.end(), parent, carrier);
    }
    loops.clear();
    getOperation().walk([&](scf::ForOp loop) {
      if (isTileLoop(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      // The tile's own copies (the loops' first fills, into slots, are
      // theirs): what tile-stages and tile-refill-after-read are about.
      bool own = false, oneSlot = false;
      for (AsyncCopyOp copy : loop.getBody()->getOps<AsyncCopyOp>())
        if (!copy.getBuffer().getDefiningOp<SmemSlotOp>()) {
          own = true;
          oneSlot |= stagesFor(copy, loop) == 1;
        }
      if (warnTileStages && !own)
        emitWarning(getUserFacingLoc(loop))
            << "tile_stages=" << unsigned(tileStages)
            << " does not apply to this kernel: its tile loads nothing of "
               "its own outside its loops (tile_stages is the depth of "
               "such loads' rings, as attention's Q)";
      if (warnRefill && tileRefillAfterRead && !oneSlot)
        emitWarning(getUserFacingLoc(loop))
            << "tile_refill_after_read does not apply to this kernel: "
            << (own ? "none of its tile's own loads has a ring of one slot "
                      "(tile_stages=1, or a latency hint of 1)"
                    : "its tile loads nothing of its own outside its "
                      "loops");
      pipeline(loop);
    }
  }

  static bool isTileLoop(scf::ForOp loop) {
    return loop->hasAttr(TileDialect::getTileLoopAttrName());
  }

  /// The loop that carries `loop`'s rings across its trips: its parent
  /// loop, a persistent kernel's tile loop (tile-persistent) or any loop of
  /// the kernel's own (a user's loop over tiles, stream-K's pieces), when
  /// `loop` is the parent's only copying loop (the rings of two, a split
  /// loop's, would all be live at once instead of one after the other);
  /// null otherwise.
  static scf::ForOp carryingLoop(scf::ForOp loop) {
    auto parent = dyn_cast<scf::ForOp>(loop->getParentOp());
    if (!parent)
      return nullptr;
    for (auto other : parent.getBody()->getOps<scf::ForOp>())
      if (other != loop &&
          (other->hasAttr(TileDialect::getPipelinedAttrName()) ||
           other->walk([](AsyncCopyOp) { return WalkResult::interrupt(); })
               .wasInterrupted()))
        return nullptr;
    return parent;
  }

  /// Whether `loop`'s rings, of `ringTypes`, may live across `carrier`: a
  /// tile loop always carries them (tile-persistent's schedule is sized
  /// for it); a loop of the kernel's own only where they fit, within
  /// shared-memory-bytes, beside what the rest of its body needs while they
  /// live: the buffers it allocates and its largest scratch (not counting,
  /// with `staged-stores`, a conversion on its way to a store that TMA may
  /// write, which tile-convert-stores-to-tma stages in parts where it would
  /// not fit whole). Rings kept in the loop instead are dead between its
  /// trips, and the scratch may reuse their memory, as before a loop carried
  /// anything.
  bool fitsCarried(scf::ForOp carrier, scf::ForOp loop,
                   ArrayRef<SharedMemoryType> ringTypes) const {
    if (isTileLoop(carrier) || sharedMemoryBytes <= 0)
      return true;
    int64_t rings = 0;
    for (SharedMemoryType type : ringTypes)
      rings += llvm::alignTo(getSharedBytes(type), 128);
    auto func = carrier->getParentOfType<func::FuncOp>();
    auto feedsStagedStore = [&](Operation *op) {
      Value v = op->getResult(0);
      if (!v.hasOneUse())
        return false;
      Operation *user = *v.getUsers().begin();
      if (isa<ReshapeOp>(user) && user->getResult(0).hasOneUse())
        user = *user->getResult(0).getUsers().begin();
      return isa<StoreOp>(user) && isPlaceableTmaWrite(func, user);
    };
    int64_t buffers = 0, scratch = 0;
    carrier.getBody()->walk([&](Operation *op) {
      if (loop->isAncestor(op))
        return;
      if (isa<SmemAllocOp, LocalAllocOp>(op))
        buffers += llvm::alignTo(getAllocationBytes(op), 128);
      else if (!(stagedStores && isa<ConvertLayoutOp>(op) &&
                 feedsStagedStore(op)))
        scratch = std::max(scratch, getScratchBytes(op));
    });
    return rings + buffers + scratch <= sharedMemoryBytes;
  }

  /// The stages of `copy`, at most kMaxStages (the deepest ring
  /// !tile.smem holds).
  unsigned stagesFor(AsyncCopyOp copy, scf::ForOp loop) const {
    int64_t stages = defaultStages;
    if (isTileLoop(loop))
      // A tile's own copies (not a loop's): the latency hint, else one tile
      // ahead, whatever the loops' stages.
      stages =
          copy.getLatency() ? int64_t(*copy.getLatency()) : int64_t(tileStages);
    else if (LoopScheduleAttr schedule = LoopScheduleAttr::of(loop);
             schedule && schedule.getNumStages())
      stages = *schedule.getNumStages();
    else if (numStages)
      stages = numStages;
    else if (auto latency = copy.getLatency())
      stages = *latency;
    return unsigned(std::clamp<int64_t>(stages, 1, kMaxStages));
  }

  /// The copies of `loop` if every one can be pipelined; empty otherwise.
  SmallVector<PipelinedCopy> analyze(scf::ForOp loop) {
    SmallVector<PipelinedCopy> copies;
    Block *body = loop.getBody();
    bool ok = true;
    loop.getBody()->walk([&](AsyncCopyOp copy) {
      ok &= copy->getBlock() == body ||
            (isTileLoop(loop) && copy->getParentOfType<scf::ForOp>() != loop);
    });
    if (!ok)
      return {}; // copies under control flow would make the counts vary
    for (auto copy : body->getOps<AsyncCopyOp>()) {
      // A tile loop's copies are those of the tile itself: its loops'
      // rings' first fills (into slots) are theirs.
      if (isTileLoop(loop) && copy.getBuffer().getDefiningOp<SmemSlotOp>())
        continue;
      PipelinedCopy p;
      p.copy = copy;
      p.alloc = copy.getBuffer().getDefiningOp<SmemAllocOp>();
      if (copy.getPred() || !p.alloc || p.alloc->getBlock() != body)
        return {};
      for (Operation *user : p.alloc->getUsers()) {
        auto wait = dyn_cast<AsyncWaitOp>(user);
        if (!wait)
          continue;
        if (p.wait || wait->getBlock() != body ||
            wait.getBuffers().size() != 1 || !copy->isBeforeInBlock(wait))
          return {};
        p.wait = wait;
      }
      // No read of the buffer before the wait for it.
      if (!p.wait)
        return {};
      for (Operation *user : p.alloc->getUsers()) {
        if (user == copy || user == p.wait)
          continue;
        Operation *at = body->findAncestorOpInBlock(*user);
        if (!at || at->isBeforeInBlock(p.wait))
          return {};
      }
      auto slice = indexSlice(copy, loop);
      if (failed(slice)) {
        // Said when the copy was asked to be pipelined (a latency hint,
        // num_stages), never dropped silently.
        if (stagesFor(copy, loop) > 1)
          emitWarning(getUserFacingLoc(copy))
              << "this load is not pipelined: its index depends on a value "
                 "carried by the loop, computed in a region, or read from "
                 "memory the loop also writes";
        return {};
      }
      p.slice = std::move(*slice);
      p.stages = stagesFor(copy, loop);
      if (isTileLoop(loop) && tileRefillAfterRead && p.stages == 1)
        p.refillAfter = lastRead(p);
      copies.push_back(std::move(p));
    }
    // Refills after the last read only where every copy of the tile loop
    // has one slot: they are then the only copies the body issues, and
    // their waits wait for everything (the prefetched copies' exact counts
    // would not hold with copies issued anywhere in the body).
    if (llvm::any_of(copies, [](auto &p) { return p.stages > 1; }))
      for (PipelinedCopy &p : copies)
        p.refillAfter = nullptr;
    // A tile loop's copies with one stage still get their ring, of one
    // slot filled right before its wait: it lives across tiles like the
    // loops' rings (tile-convert-copies-to-tma and tile-warp-specialize
    // take rings only), and nothing else changes.
    if (!isTileLoop(loop) &&
        llvm::all_of(copies, [](auto &p) { return p.stages == 1; }))
      return {};
    // The order in which an iteration issues its copies: the prefetched
    // ones (d >= 1) together where the first of their waits is, the others
    // at their own waits. The prologue issues them in the same order.
    Operation *group = nullptr;
    for (PipelinedCopy &p : copies)
      if (p.stages > 1 && (!group || p.wait->isBeforeInBlock(group)))
        group = p.wait;
    // (Sorted by index: ops are not const-accessible.)
    SmallVector<std::pair<Operation *, Operation *>> keys; // position, copy
    // (A refill after the last read is the iteration's last copy.)
    for (PipelinedCopy &p : copies)
      keys.push_back({p.refillAfter  ? body->getTerminator()
                      : p.stages > 1 ? group
                                     : p.wait.getOperation(),
                      p.copy.getOperation()});
    SmallVector<unsigned> order(copies.size());
    for (unsigned i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      auto [pa, ca] = keys[a];
      auto [pb, cb] = keys[b];
      if (pa == pb)
        return ca->isBeforeInBlock(cb);
      return pa->isBeforeInBlock(pb);
    });
    SmallVector<PipelinedCopy> sorted;
    for (unsigned i : order)
      sorted.push_back(copies[i]);
    copies = std::move(sorted);
    return copies;
  }

  /// The op of the loop body after which the last read of `p`'s buffer is
  /// done: the last op holding a read, and the waits right after it (the
  /// drain of a loop's copies: a copy issued before it would be waited
  /// for there); null when nothing reads the buffer.
  static Operation *lastRead(PipelinedCopy &p) {
    Block *body = p.copy->getBlock();
    Operation *last = nullptr;
    for (Operation *user : p.alloc->getUsers()) {
      if (user == p.copy || user == p.wait)
        continue;
      Operation *at = body->findAncestorOpInBlock(*user);
      if (!last || last->isBeforeInBlock(at))
        last = at;
    }
    while (last && isa_and_present<AsyncWaitOp>(last->getNextNode()))
      last = last->getNextNode();
    return last;
  }

  /// The operands of `p.copy` for the iteration whose induction variable is
  /// `iv`, computed at `b`'s insertion point: the tensor, the indices and,
  /// for a gathered copy, its boxes last.
  SmallVector<Value> cloneOperands(OpBuilder &b, PipelinedCopy &p,
                                   scf::ForOp loop, Value iv) {
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (Operation *op : p.slice)
      b.clone(*op, map);
    SmallVector<Value> operands = {map.lookupOrDefault(p.copy.getTensor())};
    for (Value index : p.copy.getIndices())
      operands.push_back(map.lookupOrDefault(index));
    if (Value boxes = p.copy.getBoxes())
      operands.push_back(map.lookupOrDefault(boxes));
    return operands;
  }

  void issue(OpBuilder &b, Location loc, PipelinedCopy &p,
             ArrayRef<Value> operands, Value buffer, Value pred) {
    Value boxes = p.copy.getBoxes() ? operands.back() : Value();
    ArrayRef<Value> indices = operands.drop_front();
    if (boxes)
      indices = indices.drop_back();
    AsyncCopyOp::create(b, loc, operands.front(), indices, boxes, buffer, pred,
                        p.copy.getBoxDimAttr(), p.copy.getShapeAttr(),
                        p.copy.getOrderAttr(), p.copy.getLayoutAttr(),
                        p.copy.getLatencyAttr(), p.copy.getPaddingAttr());
  }

  /// Pipelines `loop`; returns the loop that now carries its rings (its
  /// parent, replaced), if any.
  scf::ForOp pipeline(scf::ForOp loop) {
    SmallVector<PipelinedCopy> copies = analyze(loop);
    if (copies.empty())
      return {};
    Location loc = loop.getLoc();
    Type ivType = loop.getInductionVar().getType();
    auto ivConst = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(ivType, v));
    };
    auto i32Const = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    int64_t n = copies.size();
    int64_t depth = 0;
    for (PipelinedCopy &p : copies)
      depth = std::max<int64_t>(depth, p.ahead());

    // The rings, before the loop; a ring !tile.smem cannot hold (too many
    // elements) leaves the loop as it is, with a warning.
    SmallVector<SharedMemoryType> ringTypes;
    for (PipelinedCopy &p : copies) {
      auto ringType =
          getRingType([&] { return p.copy.emitWarning("not pipelined: "); },
                      p.alloc.getType(), p.stages);
      if (!ringType)
        return {};
      ringTypes.push_back(ringType);
    }
    // In a loop around the loop (a persistent kernel's tile loop, or a
    // loop of the kernel's own), the rings and their position live across
    // its trips: the rings are allocated before it, and the counter goes
    // around it, so that each trip's copies continue where the previous
    // trip's stopped (the next tile's first copies may then be issued while
    // this one ends; tile-warp-specialize's producer runs ahead into it).
    Value base;
    scf::ForOp carrier = carryingLoop(loop);
    if (carrier && !fitsCarried(carrier, loop, ringTypes))
      carrier = nullptr;
    OpBuilder b(loop);
    if (carrier) {
      b.setInsertionPoint(carrier);
      IRRewriter rewriter(carrier);
      DictionaryAttr carrierAttrs = carrier->getDiscardableAttrDictionary();
      auto grownCarrier = carrier.replaceWithAdditionalYields(
          rewriter, ValueRange{i32Const(b, 0)},
          /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
            return SmallVector<Value>{args.front()}; // set below
          });
      if (failed(grownCarrier)) {
        signalPassFailure();
        return {};
      }
      carrier = cast<scf::ForOp>(grownCarrier->getOperation());
      carrier->setDiscardableAttrs(carrierAttrs);
      base = carrier.getRegionIterArgs().back();
      b.setInsertionPoint(carrier); // (the old one is gone)
    }
    for (auto [p, ringType] : llvm::zip(copies, ringTypes))
      p.ring = SmemAllocOp::create(b, p.alloc.getLoc(), ringType);
    b.setInsertionPoint(loop);
    // The slot of the (base + t)-th fill of a ring.
    auto slotIndex = [&](OpBuilder &b, PipelinedCopy &p, int64_t t) -> Value {
      if (!base)
        return i32Const(b, t % int64_t(p.stages));
      Value fill = arith::AddIOp::create(b, loc, base, i32Const(b, t));
      return arith::RemUIOp::create(b, loc, fill, i32Const(b, p.stages));
    };
    auto slotOf = [&](OpBuilder &b, PipelinedCopy &p, Value slot) {
      auto bufType = p.alloc.getType();
      return SmemSlotOp::create(b, p.alloc.getLoc(), bufType, p.ring, slot);
    };

    // The prologue: virtual iterations -depth..-1, one group per copy each.
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    // An iteration exists when its induction variable is below the upper
    // bound, compared as the loop compares.
    auto lessThan = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                          : arith::CmpIPredicate::slt;
    Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    for (int64_t v = -depth; v < 0; ++v) {
      for (PipelinedCopy &p : copies) {
        int64_t t = v + int64_t(p.ahead()); // the iteration it copies for
        // Iterations before the first only keep the group count: their
        // operands are the first iteration's, and nothing is copied.
        Value iv = arith::AddIOp::create(
            b, loc, lb,
            arith::MulIOp::create(b, loc, step,
                                  ivConst(b, std::max<int64_t>(t, 0))));
        Value pred =
            t < 0 ? falseValue
                  : Value(arith::CmpIOp::create(b, loc, lessThan, iv, ub));
        SmallVector<Value> operands = cloneOperands(b, p, loop, iv);
        Value buffer = slotOf(b, p, slotIndex(b, p, std::max<int64_t>(t, 0)));
        issue(b, p.copy.getLoc(), p, operands, buffer, pred);
      }
    }

    // An iteration counter, for the slots.
    FailureOr<scf::ForOp> grown =
        addTripCounter(loop, base ? base : i32Const(b, 0));
    if (failed(grown)) {
      signalPassFailure();
      return {};
    }
    loop = *grown;
    Value it = loop.getRegionIterArgs().back();

    // The steady state. The prefetched copies wait together where the first
    // of their waits is (the earliest in the body, as the issue order
    // assumed: not the wait of the first copy issued, which may come after
    // another copy's reads), then issue together: the barrier that shows
    // the landed data to every thread also ends the previous iteration's
    // reads of the slots they refill.
    Block *body = loop.getBody();
    Operation *group = nullptr;
    unsigned firstInGroup = 0;
    for (auto [k, p] : llvm::enumerate(copies)) {
      if (p.stages == 1)
        continue;
      if (!group)
        firstInGroup = k;
      if (!group || p.wait->isBeforeInBlock(group))
        group = p.wait;
    }
    for (PipelinedCopy &p : copies) {
      b.setInsertionPointToStart(body);
      Value stages = i32Const(b, p.stages);
      // (A tile loop's one-slot ring too is indexed by the counter, modulo
      // 1: tile-convert-copies-to-tma counts the fills it waits for.)
      Value readSlot = p.stages == 1 && !isTileLoop(loop)
                           ? i32Const(b, 0)
                           : Value(arith::RemUIOp::create(b, loc, it, stages));
      p.view = slotOf(b, p, readSlot);
      p.alloc.getResult().replaceAllUsesWith(p.view);
    }
    // Waits: copy k, issued at position k of iteration j - d, may be
    // followed by the n - 1 - k later copies of that iteration, n copies
    // in each of the d - 1 iterations in between, and the copies this
    // iteration issued before the group.
    if (group)
      b.setInsertionPoint(group);
    for (auto [k, p] : llvm::enumerate(copies)) {
      if (p.stages == 1)
        continue;
      int64_t pending = (n - 1 - int64_t(k)) + n * (int64_t(p.stages) - 2) +
                        int64_t(firstInGroup);
      AsyncWaitOp::create(b, p.wait.getLoc(), ValueRange{p.view},
                          b.getI32IntegerAttr(pending));
    }
    // Issues, for the iteration d ahead into the slot it will read.
    for (PipelinedCopy &p : copies) {
      if (p.refillAfter) {
        // The next iteration's, into the slot this one has read.
        OpBuilder rb(p.copy);
        rb.setInsertionPointAfter(p.refillAfter);
        Value next =
            arith::AddIOp::create(rb, loc, loop.getInductionVar(), step);
        Value pred = arith::CmpIOp::create(rb, loc, lessThan, next, ub);
        Value writeSlot = arith::RemUIOp::create(
            rb, loc, arith::AddIOp::create(rb, loc, it, i32Const(rb, 1)),
            i32Const(rb, p.stages));
        SmallVector<Value> operands = cloneOperands(rb, p, loop, next);
        issue(rb, p.copy.getLoc(), p, operands, slotOf(rb, p, writeSlot), pred);
        p.copy.erase();
        p.alloc.erase();
        continue;
      }
      if (p.stages == 1) {
        // Issued right before its own wait, with this iteration's operands.
        p.copy->moveBefore(p.wait);
        p.alloc.erase();
        continue;
      }
      unsigned ahead = p.stages - 1;
      Value next = arith::AddIOp::create(
          b, loc, loop.getInductionVar(),
          arith::MulIOp::create(b, loc, step, ivConst(b, ahead)));
      Value pred = arith::CmpIOp::create(b, loc, lessThan, next, ub);
      Value writeSlot = arith::RemUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, it, i32Const(b, ahead)),
          i32Const(b, p.stages));
      SmallVector<Value> operands = cloneOperands(b, p, loop, next);
      issue(b, p.copy.getLoc(), p, operands, slotOf(b, p, writeSlot), pred);
    }
    for (PipelinedCopy &p : copies) {
      if (p.stages == 1)
        continue;
      p.wait.erase();
      p.copy.erase();
      p.alloc.erase();
    }
    loop->setAttr(TileDialect::getPipelinedAttrName(), b.getUnitAttr());
    if (carrier) {
      // The next tile starts where this one's counter ended.
      Operation *yield = carrier.getBody()->getTerminator();
      yield->setOperand(yield->getNumOperands() - 1, loop.getResults().back());
    }

    // Nothing stays in flight after the loop.
    b.setInsertionPointAfter(loop);
    AsyncWaitOp::create(b, loc, ValueRange{}, b.getI32IntegerAttr(0));
    return carrier;
  }
};

} // namespace
