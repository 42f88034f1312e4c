//===- StageInHeldSlots.cpp - Staged stores in the slots a loop holds ----===//
//
// A warp-specialized loop releases each ring slot one trip after reading
// it (the consumers' mbarrier_arrive on the slot of trip c - 1, where the
// pipeline refilled it): the slot its last trip read stays held after the
// loop, until the next run of the loop (a persistent kernel's next tile)
// releases it in its first trip. A TMA store staged in parts after the
// loop (tile-convert-stores-to-tma, where the whole tile's buffer does not
// fit beside the rings) waits before each part but the first for the
// previous part's copy to read the one buffer; while every block writes
// its tile at once, that wait is the drain of the copy to global memory.
// A held slot large enough takes such a part instead, with no wait:
//
//   %c = scf.for ... iter_args(..., %n = %c0) {      (the trip counter)
//     ... wgmma reading tile.smem_slot %ring[%n mod S] ...
//     tile.mbarrier_arrive %empty[(%n + S - 1) mod S] (the previous trip's)
//   }
//   tile.local_store %part0, %buf
//   tile.tma_store %map[...], %buf
//   tile.tma_store_wait %buf                         (part 0's copy)
//   tile.local_store %part1, %buf
//   tile.tma_store %map[...], %buf
//
// becomes
//
//   %c = scf.for %i = %lb ... {
//     ...
//     tile.tma_store_wait %ring if %i == %lb         (the part's copy has
//         {pending = 1}                               read the slot: all
//     tile.mbarrier_arrive %empty[...]                but part 0's)
//   }
//   scf.if %c != 0 {                                 (a trip ran: a slot
//     %s = tile.smem_slot %ring[(%c + S - 1) mod S]   is held)
//     %v = tile.smem_view %s
//     tile.local_store %part1, %v
//     tile.tma_store %map[...], %v
//   } else {
//     (as before)
//   }
//   tile.local_store %part0, %buf                    (nothing waits for it
//   tile.tma_store %map[...], %buf                    before the next run)
//
// The thread that issues the stores waits for the part's read before it
// arrives on the slot's empty barrier, and the slot's phase completes only
// with its arrival (every consumer thread arrives, or in a cluster lane r
// of each warp after the warp's other lanes: bar.warp.sync), so the
// producer refills the slot once the copy has read it. Only the first trip
// of a run waits: the later ones release slots of the run itself. The writes
// into the slot come after the loop's last multiply completes (its wgmma_wait
// names the ring), which tile-insert-barriers orders with a barrier.
//
// Applied where the ring's releases are all in the loop, one trip behind
// its reads, nothing in the consumers' region fills the ring (the
// producer's copies do), and nothing but the loop's multiplies and their
// waits reads it. Each held slot, smallest first, takes the largest part
// left that fits within its own elements, and the parts in slots move
// before the first wait left in the one buffer (before the first part's
// write where it alone is left there, the older slots' parts first). Where a
// part would still wait there (a 256 x 152 tile in four parts, one buffer and
// two slots) and the rings have three stages or more, the loop holds its last
// two trips' slots (holdTwo: the last trip's release of the previous slot
// skipped, the first trip also releasing the slot two trips back), two a ring
// for the parts. Not where the loop's multiplies take an A operand the loop
// makes in registers: ptxas serializes their wgmma (C7513) with the wait
// among them.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGEINHELDSLOTS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A ring whose slot the loop's last trip read stays held after it.
struct HeldRing {
  SmemAllocOp ring;
  int64_t stages;
  /// The loop's trip counter after it (its result).
  Value counter;
  SmallVector<MbarrierArriveOp> releases;
  SharedMemoryType slotType;
  /// The trip counter in the loop (its iteration argument).
  Value tripCounter;
  /// Where the loop holds its last two trips' slots (holdTwo): the first
  /// trip's releases of the older one.
  SmallVector<MbarrierArriveOp> olderReleases;
};

/// A held slot: the one of the trip `back` trips before the loop's end.
struct HeldSlot {
  HeldRing *ring;
  int64_t back;
};

/// `v` is `base + k` for a constant k.
bool isPlusConstant(Value v, Value base, int64_t k) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  for (auto [x, y] : {std::pair{add.getLhs(), add.getRhs()},
                      std::pair{add.getRhs(), add.getLhs()}}) {
    IntegerAttr c;
    if (x == base && matchPattern(y, m_Constant(&c)) && c.getInt() == k)
      return true;
  }
  return false;
}

/// The consumers' region of the tile.warp_specialize `op` is in, or null.
Region *consumerRegion(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion())
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(region->getParentOp()))
      return region == &ws.getConsumer() ? region : nullptr;
  return nullptr;
}

/// The rings `loop` holds a slot of after its last trip (the file comment).
SmallVector<HeldRing> findHeldRings(scf::ForOp loop) {
  SmallVector<HeldRing> held;
  Region *consumers = consumerRegion(loop);
  if (!consumers)
    return held;
  // Groups of consumers (tile-consumer-groups) release their last slots
  // after their loops: another group's tile takes them next.
  if (cast<WarpSpecializeOp>(consumers->getParentOp()).getNumConsumerGroups() >
      1)
    return held;
  llvm::SetVector<Operation *> rings;
  loop.getBody()->walk([&](SmemSlotOp slot) {
    if (auto ring = slot.getRing().getDefiningOp<SmemAllocOp>())
      if (!loop->isAncestor(ring))
        rings.insert(ring);
  });
  for (Operation *op : rings) {
    auto ring = cast<SmemAllocOp>(op);
    RingAccesses uses = collectRingAccesses(ring);
    if (uses.releases.empty() || uses.slots.empty())
      continue;
    int64_t stages = ring.getType().getShape()[0];
    // The trip counter every slot this loop reads is indexed by.
    Value counter;
    bool ok = true;
    for (SmemSlotOp slot : uses.slots) {
      if (!loop->isAncestor(slot))
        continue;
      bool isRelease = llvm::any_of(slot->getUsers(), [](Operation *user) {
        return isa<MbarrierArriveOp>(user);
      });
      if (isRelease)
        continue;
      auto index = tripSlotIndex(slot.getSlot());
      if (!index || index->first != stages ||
          index->second.getParentBlock() != loop.getBody() ||
          (counter && counter != index->second))
        ok = false;
      else
        counter = index->second;
    }
    if (!ok || !counter || !isTripCounter(counter))
      continue;
    // Released in the loop only, each trip the previous trip's slot.
    for (MbarrierArriveOp release : uses.releases) {
      Value at = getSlotCounter(release.getSlot(), stages);
      ok = ok && loop->isProperAncestor(release) && at &&
           isPlusConstant(at, counter, stages - 1);
    }
    // Filled by the producers alone; read in the consumers' region by the
    // loop's multiplies (and their waits) only.
    for (Operation *fill : uses.fills)
      ok = ok && !consumers->isAncestor(fill->getParentRegion());
    for (Operation *user : getBufferUsers(ring.getResult())) {
      if (!consumers->isAncestor(user->getParentRegion()) ||
          loop->isAncestor(user) || isa<WgmmaWaitOp>(user))
        continue;
      ok = false;
    }
    if (!ok)
      continue;
    auto arg = cast<BlockArgument>(counter);
    unsigned result = arg.getArgNumber() - loop.getNumInductionVars();
    held.push_back({ring, stages, loop.getResult(result), uses.releases,
                    getSlotType(ring), counter});
  }
  return held;
}

/// Whether a multiply of `loop` takes an A operand the loop makes in
/// registers: ptxas serializes such a loop's wgmma (C7513) where a
/// cp.async.bulk.wait_group sits among its trips' multiplies, even
/// predicated off (bench/kernels/gemm_prologues.tile's gemm_cast_a,
/// persistent).
bool makesRegisterA(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](WarpgroupMmaOp mma) {
        return isa<RankedTensorType>(mma.getA().getType())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A staged part after `loop`: a wait for the copy of an earlier part
/// (a tile.tma_store of the same buffer after the loop), the part's write
/// into the buffer and its copy, nothing between them with side effects.
struct Part {
  TmaStoreWaitOp wait;
  LocalStoreOp write;
  TmaStoreOp copy;
};

SmallVector<Part> findParts(scf::ForOp loop) {
  SmallVector<Part> parts;
  llvm::SmallPtrSet<Value, 4> copied;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
    if (auto copy = dyn_cast<TmaStoreOp>(op)) {
      copied.insert(getSlotRoot(copy.getBuffer()));
      continue;
    }
    auto wait = dyn_cast<TmaStoreWaitOp>(op);
    if (!wait || wait.getBuffers().size() != 1 ||
        !copied.contains(wait.getBuffers()[0]))
      continue;
    Value buffer = wait.getBuffers()[0];
    if (!isa_and_nonnull<SmemAllocOp>(buffer.getDefiningOp()))
      continue;
    LocalStoreOp write;
    TmaStoreOp copy;
    for (Operation *next = op->getNextNode(); next && !copy;
         next = next->getNextNode()) {
      if (auto store = dyn_cast<LocalStoreOp>(next);
          store && !write && getSlotRoot(store.getBuffer()) == buffer)
        write = store;
      else if (auto tma = dyn_cast<TmaStoreOp>(next);
               tma && write && tma.getBuffer() == write.getBuffer())
        copy = tma;
      else if (!isMemoryEffectFree(next) || next->getNumRegions())
        break;
    }
    if (copy)
      parts.push_back({wait, write, copy});
  }
  return parts;
}

/// The ops after `loop` that compute the part's tile from values before
/// them (its extraction from the accumulator's and any element-wise work on
/// it: ops without side effects, regions or scratch memory), in order.
/// Each branch computes the part again with them, so that the values it
/// stores are made in the branch: LLVM otherwise converts an f32
/// accumulator's elements to 16 bits one at a time before the branch
/// (cvt.rn.f16.f32 rather than the pairs of cvt.rn.f16x2.f32), and ptxas
/// serializes every wgmma of a kernel where scalar conversions read an
/// accumulator's registers (C7514). The originals become dead where only
/// the part used them.
SmallVector<Operation *> partChain(scf::ForOp loop, Part part) {
  llvm::SetVector<Operation *> chain;
  std::function<void(Value)> visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || chain.contains(def) || def->getBlock() != loop->getBlock() ||
        !loop->isBeforeInBlock(def) || !isPure(def) || def->getNumRegions() ||
        getScratchBytes(def))
      return;
    for (Value operand : def->getOperands())
      visit(operand);
    chain.insert(def);
  };
  visit(part.write.getValue());
  return chain.takeVector();
}

/// Stages `part` in the slot `held` keeps (the file comment).
scf::IfOp stageInSlot(scf::ForOp loop, Part part, HeldSlot where) {
  HeldRing &held = *where.ring;
  SmallVector<Operation *> chain = partChain(loop, part);
  OpBuilder b(part.copy);
  Location loc = part.copy.getLoc();
  Type i32 = b.getI32Type();
  Value counter = held.counter;
  // The slot of the trip `back` trips before the end: held where the
  // counter has passed it.
  Value ran =
      where.back == 1
          ? arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, counter,
                arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, 0)))
          : arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::uge, counter,
                arith::ConstantOp::create(b, loc,
                                          b.getIntegerAttr(i32, where.back)));
  auto branch = scf::IfOp::create(b, loc, TypeRange(), ran,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  Value last = arith::AddIOp::create(
      b, loc, counter,
      arith::ConstantOp::create(
          b, loc, b.getIntegerAttr(i32, held.stages - where.back)));
  Value index = arith::RemUIOp::create(
      b, loc, last,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, held.stages)));
  Value slot = SmemSlotOp::create(b, loc, held.slotType, held.ring, index);
  Value view =
      SmemViewOp::create(b, loc, part.write.getBuffer().getType(), slot);
  IRMapping inSlot;
  for (Operation *op : chain)
    b.clone(*op, inSlot);
  inSlot.map(part.write.getBuffer(), view);
  b.clone(*part.write, inSlot);
  b.clone(*part.copy, inSlot);
  b.setInsertionPointToStart(branch.elseBlock());
  IRMapping inBuffer;
  b.clone(*part.wait, inBuffer);
  for (Operation *op : chain)
    b.clone(*op, inBuffer);
  b.clone(*part.write, inBuffer);
  b.clone(*part.copy, inBuffer);
  part.copy.erase();
  part.write.erase();
  part.wait.erase();
  for (Operation *op : llvm::reverse(chain))
    if (op->use_empty())
      op->erase();
  return branch;
}

/// The fewest bulk groups `op` commits on any path through it: one a copy,
/// the fewer of an scf.if's two branches, none for anything else (a loop
/// may run no trip).
int64_t fewestCopies(Operation *op) {
  if (isa<TmaStoreOp>(op))
    return 1;
  auto branch = dyn_cast<scf::IfOp>(op);
  if (!branch || branch.getElseRegion().empty())
    return 0;
  auto inBlock = [](Block *block) {
    int64_t n = 0;
    for (Operation &inner : *block)
      n += fewestCopies(&inner);
    return n;
  };
  return std::min(inBlock(branch.thenBlock()), inBlock(branch.elseBlock()));
}

/// The bulk groups committed after `branch`'s copy on every path to the
/// end of its block (the loop's next run comes after that): the fewest.
int64_t copiesAfter(scf::IfOp branch) {
  int64_t after = 0;
  for (Operation *op = branch->getNextNode(); op; op = op->getNextNode())
    after += fewestCopies(op);
  return after;
}

/// Makes the issuing thread wait, in `loop`'s first trip (the one that
/// releases the slot held since its previous run two trips back; a later
/// trip releases slots of this run, which no copy reads), before each of
/// `releases`, until the copy of the part `branch` staged in the slot has
/// read it: all but the groups committed after it (copiesAfter).
/// Predicated, not branched around (a branch in the loop costs kernels
/// whose multiplies take an A made in the loop their wgmma overlap: ptxas
/// C7513).
void waitBeforeReleases(scf::ForOp loop, HeldRing &held, scf::IfOp branch,
                        ArrayRef<MbarrierArriveOp> releases) {
  int64_t after = copiesAfter(branch);
  for (MbarrierArriveOp release : releases) {
    OpBuilder b(release);
    Location at = release.getLoc();
    Value first =
        arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                              loop.getInductionVar(), loop.getLowerBound());
    auto wait =
        TmaStoreWaitOp::create(b, at, ValueRange{held.ring.getResult()}, first);
    wait.setPending(after);
  }
}

/// Makes `loop` hold the slots of its last two trips of `held`'s ring
/// rather than its last one's: the release of the previous trip's slot
/// skipped in the last trip, and the first trip also releasing the slot two
/// trips before it (the older of the two the previous run holds: the
/// producer refills it first), before `front` (the loop's first release of
/// a held slot) where what it uses is defined there. Every fill is still
/// released once; after any run (of one trip too) the slots of counters
/// c - 1 and c - 2 are held.
void holdTwo(scf::ForOp loop, HeldRing &held, Operation *front) {
  Value iv = loop.getInductionVar();
  for (MbarrierArriveOp release : held.releases) {
    OpBuilder b(release);
    Location loc = release.getLoc();
    Type i32 = b.getI32Type();
    Value next = arith::AddIOp::create(b, loc, iv, loop.getStep());
    Value notLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          next, loop.getUpperBound());
    Value pred = release.getPred()
                     ? arith::AndIOp::create(b, loc, release.getPred(), notLast)
                     : notLast;
    release.getPredMutable().assign(pred);
    // The older slot's release goes first where what it keeps of the
    // release's operands (the mbarriers) is defined before `front`.
    Operation *barriers = release.getBarriers().getDefiningOp();
    bool early =
        front && front->getBlock() == release->getBlock() &&
        (front == release.getOperation() || front->isBeforeInBlock(release)) &&
        (!barriers || barriers->getBlock() != front->getBlock() ||
         barriers->isBeforeInBlock(front));
    if (early)
      b.setInsertionPoint(front);
    else
      b.setInsertionPointAfter(release);
    auto constant = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
    };
    Value c = held.tripCounter;
    Value index = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, c, constant(held.stages - 2)),
        constant(held.stages));
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv,
                                        loop.getLowerBound());
    Value older = arith::AndIOp::create(
        b, loc, first,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, c,
                              constant(2)));
    Value slot = SmemSlotOp::create(b, loc, release.getBuffer().getType(),
                                    held.ring, index);
    auto extra = cast<MbarrierArriveOp>(b.clone(*release));
    extra.getSlotMutable().assign(index);
    extra.getBufferMutable().assign(slot);
    extra.getPredMutable().assign(older);
    held.olderReleases.push_back(extra);
  }
}

/// Moves `op` to just after `after` (both in one block, `after` first),
/// with the pure ops between them that it uses (its branch condition),
/// where everything else it uses is defined before that point: the last op
/// moved, or null where nothing moved.
Operation *moveAfter(Operation *op, Operation *after) {
  if (op->getBlock() != after->getBlock() || !after->isBeforeInBlock(op))
    return nullptr;
  llvm::SetVector<Operation *> deps;
  bool ok = true;
  std::function<void(Operation *)> need = [&](Operation *user) {
    user->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def || user->isAncestor(def) ||
            def->getBlock() != op->getBlock() || !after->isBeforeInBlock(def) ||
            deps.contains(def))
          continue;
        if (!isPure(def) || def->getNumRegions()) {
          ok = false;
          continue;
        }
        need(def);
        deps.insert(def);
      }
    });
  };
  need(op);
  if (!ok)
    return nullptr;
  SmallVector<Operation *> moved = deps.takeVector();
  llvm::sort(moved,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  moved.push_back(op);
  for (Operation *m : moved) {
    m->moveAfter(after);
    after = m;
  }
  return after;
}

struct StageInHeldSlotsPass
    : public mlir::tile::impl::TileStageInHeldSlotsBase<StageInHeldSlotsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<Part> parts = findParts(loop);
      if (parts.empty() || makesRegisterA(loop))
        continue;
      SmallVector<HeldRing> held = findHeldRings(loop);
      // As many parts in slots as fit: each slot, smallest first, takes the
      // largest part left that it holds at its alignment, within the slot's
      // own elements (a ring of padded slots is allocated short of the
      // padding where only its tiles' elements are accessed; a view of a
      // slot into the padding would cost the ring its padded size: a
      // 64 x 152 slot takes 19,456 bytes, not 32,768), the later part of
      // equal ones. Where one slot a ring leaves a part to wait in the one
      // buffer for the copy of the part before it (the first part, always
      // there) and the rings have three stages or more (the producer keeps
      // one to fill), the rings offer their last two trips' slots, and
      // those whose older slot takes a part hold both (holdTwo).
      auto assign = [&](SmallVector<HeldSlot> slots) {
        llvm::sort(slots, [](const HeldSlot &x, const HeldSlot &y) {
          return getTileExtentBytes(x.ring->slotType) <
                 getTileExtentBytes(y.ring->slotType);
        });
        SmallVector<std::optional<HeldSlot>> in(parts.size());
        for (HeldSlot slot : slots) {
          int64_t bytes = getTileExtentBytes(slot.ring->slotType);
          std::optional<unsigned> best;
          for (auto [i, part] : llvm::enumerate(parts)) {
            auto type =
                cast<SharedMemoryType>(part.write.getBuffer().getType());
            if (in[i] || bytes < getSharedBytes(type) ||
                getSharedAlignment(slot.ring->slotType) %
                    getSharedAlignment(type) ||
                bytes % getSharedAlignment(type))
              continue;
            if (!best || getSharedBytes(type) >=
                             getSharedBytes(cast<SharedMemoryType>(
                                 parts[*best].write.getBuffer().getType())))
              best = i;
          }
          if (best)
            in[*best] = slot;
        }
        return in;
      };
      SmallVector<HeldSlot> slots;
      for (HeldRing &ring : held)
        slots.push_back({&ring, 1});
      SmallVector<std::optional<HeldSlot>> in = assign(slots);
      if (llvm::is_contained(in, std::nullopt) &&
          llvm::all_of(held, [](const HeldRing &r) { return r.stages >= 3; })) {
        for (HeldRing &ring : held)
          slots.push_back({&ring, 2});
        in = assign(slots);
        // The loop body's first release of a held slot.
        Operation *front = nullptr;
        for (HeldRing &ring : held)
          for (MbarrierArriveOp release : ring.releases)
            if (release->getBlock() == loop.getBody() &&
                (!front || release->isBeforeInBlock(front)))
              front = release;
        for (std::optional<HeldSlot> slot : in)
          if (slot && slot->back == 2 && slot->ring->olderReleases.empty())
            holdTwo(loop, *slot->ring, front);
      }
      SmallVector<std::pair<unsigned, HeldSlot>> placed;
      for (auto [i, slot] : llvm::enumerate(in))
        if (slot)
          placed.push_back({unsigned(i), *slot});
      // A part left in the one buffer waits for the copy of the part before
      // it there: the parts in slots go before the first such wait, after
      // that copy (their writes hide its read), where what they use is made
      // before. Where only the first part is left there (nothing in this
      // run waits for its copy), they go before it: their copies, which
      // the next run's first trip waits for, are then the first to read.
      // The parts in the older slots go first (the producer refills those
      // first).
      llvm::stable_sort(placed, [](const auto &x, const auto &y) {
        return x.second.back > y.second.back;
      });
      std::optional<unsigned> first;
      for (unsigned i = 0; i < parts.size() && !first; ++i)
        if (!in[i])
          first = i;
      unsigned from = first.value_or(0);
      Operation *after = nullptr;
      for (Operation *op = parts[from].wait->getPrevNode();
           op && op != loop && !after; op = op->getPrevNode())
        if (auto copy = dyn_cast<TmaStoreOp>(op);
            copy &&
            getSlotRoot(copy.getBuffer()) == parts[from].wait.getBuffers()[0])
          after = copy;
      if (after && !first) {
        // Before the first part's write into the one buffer.
        Operation *write = nullptr;
        for (Operation *op = after->getPrevNode(); op && op != loop && !write;
             op = op->getPrevNode())
          if (auto store = dyn_cast<LocalStoreOp>(op);
              store && store.getBuffer() == cast<TmaStoreOp>(after).getBuffer())
            write = store;
        after = write ? write->getPrevNode() : nullptr;
      }
      SmallVector<scf::IfOp> branches;
      for (auto [i, slot] : placed) {
        scf::IfOp branch = stageInSlot(loop, parts[i], slot);
        branches.push_back(branch);
        if (after && (!first || i > *first))
          if (Operation *last = moveAfter(branch, after))
            after = last;
      }
      // Each held slot's release in the first trip waits for its part's
      // copy alone.
      for (auto [branch, p] : llvm::zip(branches, placed)) {
        HeldSlot slot = p.second;
        waitBeforeReleases(loop, *slot.ring, branch,
                           slot.back == 1 ? ArrayRef(slot.ring->releases)
                                          : ArrayRef(slot.ring->olderReleases));
      }
    }
  }
};

} // namespace
