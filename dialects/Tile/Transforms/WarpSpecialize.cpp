//===- WarpSpecialize.cpp - A TMA producer warp and consumer warpgroups ---===//
//
// Producer/consumer warp specialization of a kernel whose TMA rings
// (tile-convert-copies-to-tma) each belong to one pipelined loop (several
// loops in sequence have rings of their own, a producer's slice running
// its loop; all rings are live from the split on):
//
//   %ring = smem_alloc; %full = mbarrier_alloc; mbarrier_init %full {1}
//   %empty = mbarrier_alloc; mbarrier_init %empty {count = consumer threads}
//   tile.warp_specialize producer {                      (one per ring)
//     prologue: tma_load %ring[c], %full[c]            (first fills: no wait)
//     for it:   wait %empty[t % S], (t / S + 1) % 2 if p   (t = it + d)
//               tma_load %ring[t % S], %full[t % S] if p  {issuer = 32 (W + r)}
//   } producer { ... the next ring's ... } consumer {
//     ... the kernel, its copies gone; where a slot was refilled:
//     for it:   mbarrier_arrive %empty[t % S], %ring[t % S] if t >= S
//   }
//
// Each ring has a producer of its own, a warp of the producer warpgroup
// (up to four; more rings share them in turn): one thread issuing every
// ring in program order would wait for a slot of one ring (V's, released
// after P.V) while a slot of another (K's, released after Q.K^T, half a
// trip earlier) is free, and issue that ring's copy late. A producer is
// the slice of the kernel its copies need (their coordinates, predicates,
// slots and the loops around them), which must be scalar code. The consumers'
// release of slot t % S says that the data of iteration t - S, which the slot
// held, has been read: it sits where the refill was, which the pipeline placed
// after that iteration's readers; tile-async-wgmma and tile-rotate-wgmma move
// it as they move refills. Fill f of a slot waits for phase f - 1 of its empty
// barrier (parity (f + 1) mod 2; a fresh barrier passes parity 1 at once, so
// the first fills need no special case), and both sides count fills the same
// way because they run the same loop.
//
// In a persistent kernel (tile-persistent) the loop and its prologue are in
// the tile loop, and the fills are counted across tiles (tile-pipeline):
// both sides run the tile loop, the prologue's fills wait for their slots
// too, and a tile's first trips release the slots of the previous tile's
// last ones, so that the producer fills the next tile's first slots while
// the consumers finish this tile. A ring of the tile loop itself (the
// tile's own copy, Q, pipelined one tile ahead) is released at the top of
// the next tile; the carried rings' first fills there are no refills (a
// copy in a pipelined loop refills only if its ring was first filled
// before that loop). A ring of the tile loop with one slot (Q at
// tile-stages=1, filled where the tile waits for it) is released there
// too, right before the producer refills it for this tile: its fills are
// the tile loop's trips, counted by an iteration argument this pass adds.
// Refilled for the next tile after this tile's last read of it
// (tile-refill-after-read), it is released there, as soon as the
// consumers are done with it: tile t's refill is the ring's fill t + 1,
// the first coming before the tile loop.
//
// The rings and barriers are allocated and initialized before the split,
// by the whole block: from there on nothing synchronizes the producer with
// the consumers but the mbarriers.
//
// With producer-stores, a loop's TMA store of a tile staged in every trip
// (attention backward's dQ share) is a producer's too, on two mbarriers of
// one slot, trip n of the loop being phase n of each:
//
//   consumers: mbarrier_wait %empty[0], (n + 1) % 2      (was tma_store_wait)
//              local_store %tile, %buf
//              fence_async_shared; mbarrier_arrive %full[0]   (was tma_store)
//   producer:  mbarrier_wait %full[0], n % 2
//              tma_store %map[...], %buf {issuer}; tma_store_wait %buf {issuer}
//              mbarrier_arrive %empty[0]        (32 arrivals: the warp's)
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/Views.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Whether a load of `func` is in a while loop: those are not copied ahead
/// (only an scf.for is pipelined), so no ring a producer fills holds them.
static bool hasLoadInWhileLoop(func::FuncOp func) {
  auto isLoad = [](Operation *op) {
    return isa<AsyncCopyOp, LoadOp>(op) ? WalkResult::interrupt()
                                        : WalkResult::advance();
  };
  return func
      .walk([&](scf::WhileOp loop) {
        return loop->walk(isLoad).wasInterrupted() ? WalkResult::interrupt()
                                                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {

/// A ring: its buffer, its full barriers and the empty ones this pass adds.
struct Ring {
  SmemAllocOp buffer;
  MbarrierAllocOp full;
  MbarrierInitOp init;
  unsigned stages = 0;
  Value empty;
};

/// A copy into a ring: which fill of which slot it is.
struct Copy {
  TmaLoadOp op;
  Ring *ring;
  /// The iteration whose data it copies (the slot is `fill mod stages`);
  /// null for a first fill at a constant slot (the loop's prologue).
  Value fill;
  /// In the pipelined loop, where the slot's previous data has just been
  /// read (not the prologue; set by analyze).
  bool refill = false;
  /// A refill whose slot is filled before it whatever the trip (a ring of
  /// one slot filled before the tile loop too): its release needs no
  /// predicate.
  bool alwaysHeld = false;
};

/// A loop's TMA store that a producer issues (producer-stores): the store,
/// the consumers' wait for its buffer in the trip, the loop, the buffer and
/// the mbarriers `specialize` adds (phase n: trip n's data staged, "full";
/// read by the copy, "empty").
struct LoopStore {
  TmaStoreOp op;
  TmaStoreWaitOp wait;
  scf::ForOp loop;
  SmemAllocOp buffer;
  Value full, empty;
};

/// The parity of phase n + `ahead` of a loop store's barriers in trip n
/// of `loop` (n counted from 0 by the induction variable `iv`, lower bound
/// `lower` and step `step` as they are where the parity is built).
static Value storePhaseParity(OpBuilder &b, Location loc, Value iv, Value lower,
                              Value step, int32_t ahead) {
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  Value n = arith::SubIOp::create(b, loc, iv, lower);
  if (!matchPattern(step, m_One()))
    n = arith::DivSIOp::create(b, loc, n, step);
  if (ahead)
    n = arith::AddIOp::create(b, loc, n,
                              ahead == 1
                                  ? one
                                  : Value(arith::ConstantOp::create(
                                        b, loc, b.getI32IntegerAttr(ahead))));
  return arith::AndIOp::create(b, loc, n, one);
}

/// Registers a producer thread keeps at least when it runs a loop around
/// the loops whose rings it fills (or a persistent kernel's tile loop).
constexpr unsigned kNestedProducerRegisters = 32;

struct WarpSpecializePass
    : public mlir::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
      return;
    bool asked = false;
    if (!wanted(func, asked)) {
      if (warnStores)
        emitWarning(getUserFacingLoc(func))
            << "producer_stores does not apply to kernel '" << func.getSymName()
            << "': it is not warp-specialized";
      return;
    }
    // Where a loop asked, not being specialized is said.
    bool sayWhyNot = warn || asked;
    stores.clear();
    SmallVector<std::unique_ptr<Ring>> rings;
    SmallVector<Copy> copies;
    // (Before the analysis, which holds values of the loops it replaces.)
    counters.clear();
    SetVector<scf::ForOp> oneSlotLoops;
    func.walk([&](TmaLoadOp copy) {
      auto tileLoop = dyn_cast<scf::ForOp>(copy->getParentOp());
      if (tileLoop && tileLoop->hasAttr(TileDialect::getTileLoopAttrName()) &&
          cast<MbarrierType>(copy.getBarriers().getType()).getCount() == 1 &&
          !copy.getIssuer())
        oneSlotLoops.insert(tileLoop);
    });
    for (scf::ForOp loop : oneSlotLoops)
      if (failed(countTrips(loop)))
        return signalPassFailure();
    readAhead.clear();
    std::string why = analyze(func, rings, copies);
    // A producer per ring, round robin over the producer warps (one, idle,
    // for a kernel without rings: its launch keeps the specialized shape).
    SmallVector<Producer> producers(
        std::clamp<size_t>(rings.size(), 1, WarpSpecializeOp::kMaxProducers));
    SmallVector<unsigned> warpOf =
        assignWarps(func, rings, copies, unsigned(producers.size()));
    for (Copy &c : copies) {
      auto ring = llvm::find_if(
          rings, [&](const auto &r) { return r.get() == c.ring; });
      producers[warpOf[ring - rings.begin()]].copies.push_back(&c);
    }
    if (why.empty() && !copies.empty())
      assignStores(func, producers);
    for (Producer &producer : producers)
      if (why.empty())
        why = slice(func, producer);
    if (!why.empty()) {
      // (Also when the copy that cannot be specialized is the first one
      // seen: none is collected then.)
      func->setAttr(TileDialect::getNotWarpSpecializedAttrName(),
                    StringAttr::get(func.getContext(), why));
      // Asked for and not done: said, not dropped silently.
      if (sayWhyNot)
        emitWarning(getUserFacingLoc(func))
            << "kernel '" << func.getSymName()
            << "' is not warp-specialized: " << why;
      else if (warnStores)
        emitWarning(getUserFacingLoc(func))
            << "producer_stores does not apply to kernel '" << func.getSymName()
            << "': it is not warp-specialized (" << why << ")";
      return;
    }
    // Nothing to produce: the block is shaped for specialization (its
    // producer warpgroup idles), which is not what was asked for either.
    if (copies.empty() && sayWhyNot) {
      if (hasLoadInWhileLoop(func))
        emitWarning(getUserFacingLoc(func))
            << "kernel '" << func.getSymName()
            << "' has no copies for a producer warp to issue: its loads are "
               "in a while loop, which is not pipelined (a range() loop is, "
               "and so is a while loop that counts, `while k < n: ... k += "
               "1`); only its block is shaped for warp specialization";
      else
        emitWarning(getUserFacingLoc(func))
            << "kernel '" << func.getSymName()
            << "' has no TMA copies for a producer warp to issue (its loads "
               "use cp.async: see the kernel's tma_fallback); only its block "
               "is shaped for warp specialization";
    }
    // What the launch checks of the tensors read ahead (KernelInfo.h).
    for (unsigned param : readAhead)
      recordReadAhead(func, param);
    specialize(func, rings, copies, producers);
  }

  /// Whether `func` is to be specialized: a loop filling rings asks for it
  /// in its schedule, or says nothing while `enabled` is on (a kernel
  /// without such loops: `enabled`, or any loop asking). `asked`: a loop's
  /// schedule asked. A loop whose schedule declines in a kernel specialized
  /// for another is told that the warps' split is the kernel's.
  bool wanted(func::FuncOp func, bool &asked) {
    auto part = [](scf::ForOp loop) {
      return LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getWarpSpecialize);
    };
    SetVector<scf::ForOp> streaming;
    func.walk([&](TmaLoadOp copy) {
      if (auto loop = dyn_cast<scf::ForOp>(copy->getParentOp()))
        streaming.insert(loop);
    });
    func.walk([&](scf::ForOp loop) {
      BoolAttr given = part(loop);
      asked |= given && given.getValue();
    });
    bool yes = streaming.empty() ? enabled || asked
                                 : llvm::any_of(streaming, [&](scf::ForOp l) {
                                     BoolAttr given = part(l);
                                     return given ? given.getValue() : enabled;
                                   });
    // A loop declining: said where the kernel is specialized for another
    // loop, or where the caller asked for the kernel's option.
    func.walk([&](scf::ForOp loop) {
      BoolAttr given = part(loop);
      if (!given || given.getValue())
        return;
      if (yes)
        emitWarning(getUserFacingLoc(loop))
            << "warp_specialize=False does not apply to this loop: the "
               "kernel's warps are split for another loop, and its producer "
               "fills this loop's rings too";
      else if (warn)
        emitWarning(getUserFacingLoc(loop))
            << "warp_specialize does not apply to this loop: its schedule "
               "says warp_specialize=False";
    });
    return yes;
  }

  /// The producer warp of each ring: ring i on warp i mod `warps`, except
  /// in a persistent kernel with more rings than warps. There a ring of
  /// the tile loop itself (the tile's own copy, Q, filled one tile ahead)
  /// makes its warp wait for the next tile's claim before the tile's loop,
  /// and a loop's ring sharing that warp would not be filled for this
  /// tile until the claimer has filled all of its own ring for it, which
  /// needs the consumers to read that loop ring: a deadlock (the attention
  /// backward's dQ kernel: Q and dO of the tile, K, K^T and V in the loop,
  /// five rings on four warps). So the tile loop's rings share the first
  /// warp and the loops' rings take the others in turn.
  static SmallVector<unsigned>
  assignWarps(func::FuncOp func, ArrayRef<std::unique_ptr<Ring>> rings,
              ArrayRef<Copy> copies, unsigned warps) {
    SmallVector<unsigned> warpOf(rings.size());
    for (unsigned i = 0; i < rings.size(); ++i)
      warpOf[i] = i % warps;
    if (rings.size() <= warps ||
        !func->hasAttr(TileDialect::getPersistentAttrName()))
      return warpOf;
    // A ring is a loop's when a copy into it is in a loop other than the
    // tile loop (its prologue's fills may be in the tile loop itself).
    SmallVector<bool> inLoop(rings.size(), false);
    for (const Copy &c : copies) {
      auto ring = llvm::find_if(
          rings, [&](const auto &r) { return r.get() == c.ring; });
      for (Operation *p = c.op->getParentOp(); p && !isa<func::FuncOp>(p);
           p = p->getParentOp())
        if (auto loop = dyn_cast<scf::ForOp>(p);
            loop && !loop->hasAttr(TileDialect::getTileLoopAttrName()))
          inLoop[ring - rings.begin()] = true;
    }
    unsigned tileRings = llvm::count(inLoop, false);
    if (tileRings == 0 || tileRings == rings.size())
      return warpOf;
    unsigned loopWarps = warps - 1, next = 0;
    for (unsigned i = 0; i < rings.size(); ++i)
      warpOf[i] = inLoop[i] ? 1 + next++ % loopWarps : 0;
    return warpOf;
  }

  /// A producer warp: its copies, the ops it runs (the copies and what
  /// they need) and the iteration arguments of loops it carries.
  struct Producer {
    SmallVector<Copy *> copies;
    SmallVector<LoopStore *> stores;
    DenseSet<Operation *> live;
    DenseSet<std::pair<Operation *, unsigned>> liveArgs;
  };

  /// The kernel's rings and copies; why it cannot be specialized, if not.
  std::string analyze(func::FuncOp func,
                      SmallVector<std::unique_ptr<Ring>> &rings,
                      SmallVector<Copy> &copies) {
    Block &top = func.getBody().front();
    auto numWarps =
        func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
    DenseMap<Operation *, Ring *> byBarrier;
    std::string why;
    func.walk([&](TmaLoadOp copy) {
      auto full = copy.getBarriers().getDefiningOp<MbarrierAllocOp>();
      auto slot = copy.getBuffer().getDefiningOp<SmemSlotOp>();
      auto buffer = slot ? dyn_cast_or_null<SmemAllocOp>(getAllocation(slot))
                         : SmemAllocOp();
      if (!full || !buffer || full->getBlock() != &top ||
          buffer->getBlock() != &top) {
        why = "a TMA copy does not fill a ring of the kernel";
        return;
      }
      Ring *&ring = byBarrier[full];
      if (!ring) {
        rings.push_back(std::make_unique<Ring>());
        ring = rings.back().get();
        ring->buffer = buffer;
        ring->full = full;
        ring->stages = full.getType().getCount();
        for (Operation *user : full->getUsers())
          if (auto init = dyn_cast<MbarrierInitOp>(user))
            ring->init = init;
      }
      if (ring->buffer != buffer || !ring->init ||
          ring->init->getBlock() != &top) {
        why = "a ring's barriers are not initialized once, at the top of "
              "the kernel";
        return;
      }
      Copy c{copy, ring, nullptr, false};
      APInt constant;
      if (matchPattern(slot.getSlot(), m_ConstantInt(&constant))) {
        // The prologue's first fills, or a tile's own copy into a ring of
        // one slot (counted below).
        if (constant.getZExtValue() >= ring->stages) {
          why = "a copy's slot is outside its ring";
          return;
        }
      } else if (Value counter = getSlotCounter(slot.getSlot(), ring->stages)) {
        c.fill = counter;
      } else {
        why = "a copy's slot is not the pipeline's iteration modulo the "
              "stages";
        return;
      }
      if (copy.getIssuer()) {
        why = "the kernel is specialized already";
        return;
      }
      copies.push_back(c);
    });
    if (!why.empty())
      return why;
    // A ring of one slot in a persistent kernel's tile loop (tile-pipeline's
    // tile-stages=1: the tile's own copy) is filled once a tile, each fill a
    // refill of the one before: the fills in the tile loop are its trips,
    // which a counter of its own counts, after the ring's fills before the
    // tile loop (one, when the tile loop refills the slot for the next tile
    // after reading it: tile-refill-after-read).
    for (Copy &c : copies) {
      Operation *tileLoop = c.op->getParentOp();
      Value counter = counters.lookup(tileLoop);
      if (c.fill || c.ring->stages != 1 || !counter)
        continue;
      int64_t before = llvm::count_if(copies, [&](const Copy &other) {
        return other.ring == c.ring && !tileLoop->isAncestor(other.op);
      });
      OpBuilder b(c.op);
      c.fill = before ? Value(arith::AddIOp::create(
                            b, c.op.getLoc(), counter,
                            arith::ConstantOp::create(
                                b, c.op.getLoc(), b.getI32IntegerAttr(before))))
                      : counter;
      c.refill = true;
      c.alwaysHeld = before >= c.ring->stages;
    }
    // The pipeline issues a ring's first fills before the loop it
    // pipelines, and refills in it: a copy in a pipelined loop refills
    // unless its ring's other copies are all in that loop too (a persistent
    // kernel's tile loop issuing the first fills of its loop's rings).
    for (Copy &c : copies) {
      Operation *loop = c.op->getParentOp();
      if (c.refill)
        continue;
      c.refill = c.fill && loop->hasAttr(TileDialect::getPipelinedAttrName()) &&
                 llvm::any_of(copies, [&](const Copy &other) {
                   return other.ring == c.ring && !loop->isAncestor(other.op);
                 });
    }
    // (Also without copies: the consumers' warps are counted in
    // warpgroups, and IR without layouts has no warps yet.)
    if (!numWarps || numWarps.getInt() % 4)
      return "the kernel's warps are not whole warpgroups";
    if (copies.empty())
      return "";
    if (!func.getBody().hasOneBlock())
      return "the kernel has more than one block";
    // Each ring filled in one loop (and its prologue), at the top of the
    // kernel or of a loop at the top that carries the ring across its trips
    // (a persistent kernel's tile loop, or a loop of the kernel's own that
    // tile-pipeline did not pipeline itself but made carry its loop's
    // rings; the ring itself is at the top, checked above): its fills are
    // counted in that loop. Loops in sequence each have rings of their
    // own, all live from the split on (allocated before it).
    auto isTop = [&](Operation *op) {
      return op == func.getOperation() ||
             (isa<scf::ForOp>(op) && op->getParentOp() == func &&
              (op->hasAttr(TileDialect::getTileLoopAttrName()) ||
               !op->hasAttr(TileDialect::getPipelinedAttrName())));
    };
    DenseMap<Ring *, Operation *> loops;
    for (Copy &c : copies) {
      Operation *parent = c.op->getParentOp();
      if (isTop(parent))
        continue;
      if (!isa<scf::ForOp>(parent) || !isTop(parent->getParentOp()) ||
          !parent->hasAttr(TileDialect::getPipelinedAttrName()))
        return "a TMA copy is not in the prologue or at the top of a "
               "pipelined loop";
      Operation *&loop = loops[c.ring];
      if (loop && loop != parent)
        return "a ring is filled in more than one loop";
      loop = parent;
    }
    return "";
  }

  /// Gives `loop` an iteration argument counting its trips from 0, in
  /// `counters`.
  LogicalResult countTrips(scf::ForOp loop) {
    OpBuilder b(loop);
    Value zero =
        arith::ConstantOp::create(b, loop.getLoc(), b.getI32IntegerAttr(0));
    FailureOr<scf::ForOp> grown = addTripCounter(loop, zero);
    if (failed(grown))
      return failure();
    counters[*grown] = grown->getRegionIterArgs().back();
    return success();
  }
  /// The trip counters of tile loops with rings of one slot.
  DenseMap<Operation *, Value> counters;

  /// The loops' TMA stores a producer issues (producer-stores).
  SmallVector<LoopStore> stores;

  /// Why `store` stays with the consumers under producer-stores (empty: it
  /// moves), filling `out`.
  static std::string whyNotProducerStore(func::FuncOp func, TmaStoreOp store,
                                         LoopStore &out) {
    if (store.getPred())
      return "it is issued under a predicate";
    // (A persistent kernel's tile loop is left alone: its copies in the
    // roles follow the tile claims of tile-dynamic-schedule, which counts
    // the roles it serves.)
    auto loop = dyn_cast<scf::ForOp>(store->getParentOp());
    if (!loop || loop->getParentOp() != func.getOperation() ||
        loop->hasAttr(TileDialect::getTileLoopAttrName()))
      return "its loop is not a loop of the kernel's own at its top (a "
             "persistent kernel's tile loop, or a nested loop)";
    auto buffer = store.getBuffer().getDefiningOp<SmemAllocOp>();
    if (!buffer || buffer->getBlock() != &func.getBody().front())
      return "its buffer is not a buffer of its own (a ring slot)";
    // The buffer: staged in the trip after a wait for the previous copy,
    // read by this store only.
    TmaStoreWaitOp wait;
    for (Operation *user : buffer->getUsers()) {
      if (user == store.getOperation())
        continue;
      if (auto w = dyn_cast<TmaStoreWaitOp>(user)) {
        if (!loop->isAncestor(w))
          continue; // (outside the loop: the consumers' own, harmless)
        if (w->getParentOp() != loop.getOperation())
          return "its buffer is waited for in a branch of the trip";
        if (wait || w.getPred() || w.getPending() || !w->isBeforeInBlock(store))
          return "its buffer's wait in the trip is not one plain wait "
                 "before it";
        wait = w;
        continue;
      }
      auto write = dyn_cast<LocalStoreOp>(user);
      if (!write || write->getParentOp() != loop.getOperation() ||
          !write->isBeforeInBlock(store))
        return "its buffer is used otherwise than staged in the trip "
               "before it";
    }
    if (!wait)
      return "no wait for its buffer precedes it in the trip";
    for (Operation *user : buffer->getUsers())
      if (auto write = dyn_cast<LocalStoreOp>(user);
          write && write->isBeforeInBlock(wait))
        return "its buffer is staged before the wait for the previous copy";
    out = LoopStore{store, wait, loop, buffer, Value(), Value()};
    return "";
  }

  /// Under producer-stores, each loop store that fits joins a producer: a
  /// warp of its own while fewer than four run, else the one with the
  /// fewest copies (the last of those). The others are said where the
  /// option was given.
  void assignStores(func::FuncOp func, SmallVector<Producer> &producers) {
    if (!producerStores)
      return;
    func.walk([&](TmaStoreOp store) {
      LoopStore candidate;
      std::string why = whyNotProducerStore(func, store, candidate);
      if (why.empty()) {
        // (Its coordinates are the producer's to work out too: where they
        // cannot be, the store stays, the kernel specialized all the same.)
        Producer probe;
        probe.stores.push_back(&candidate);
        why = slice(func, probe);
      }
      if (why.empty()) {
        stores.push_back(candidate);
        return;
      }
      if (warnStores && isa<scf::ForOp>(store->getParentOp()))
        emitWarning(getUserFacingLoc(store))
            << "producer_stores does not apply to this store: " << why;
    });
    if (stores.empty()) {
      if (warnStores)
        emitWarning(getUserFacingLoc(func))
            << "producer_stores does not apply to kernel '" << func.getSymName()
            << "': no loop stages a tile and copies it out with TMA in "
               "every trip";
      return;
    }
    for (LoopStore &store : stores) {
      if (producers.size() < WarpSpecializeOp::kMaxProducers) {
        producers.emplace_back();
        producers.back().stores.push_back(&store);
        continue;
      }
      Producer *least = &producers.front();
      for (Producer &p : producers)
        if (p.copies.size() + p.stores.size() <=
            least->copies.size() + least->stores.size())
          least = &p;
      least->stores.push_back(&store);
    }
  }

  /// Marks the ops a producer needs; why it cannot run them, if so.
  std::string slice(func::FuncOp func, Producer &producer) {
    SmallVector<Operation *> worklist;
    std::string why;
    DenseSet<Operation *> &live = producer.live;
    DenseSet<std::pair<Operation *, unsigned>> &liveArgs = producer.liveArgs;
    auto markOp = [&](Operation *op) {
      if (op != func.getOperation() && live.insert(op).second)
        worklist.push_back(op);
    };
    std::function<void(Value)> markValue;
    auto markArg = [&](scf::ForOp loop, unsigned i) {
      if (!liveArgs.insert({loop, i}).second)
        return;
      markOp(loop);
      markValue(loop.getInitArgs()[i]);
      markValue(loop.getBody()->getTerminator()->getOperand(i));
    };
    markValue = [&](Value v) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        Operation *owner = arg.getOwner()->getParentOp();
        if (owner == func.getOperation())
          return;
        auto loop = dyn_cast<scf::ForOp>(owner);
        if (!loop) {
          why = "a copy depends on a block argument of '" +
                owner->getName().getStringRef().str() + "'";
          return;
        }
        if (arg == loop.getInductionVar())
          markOp(loop);
        else
          markArg(loop, arg.getArgNumber() - 1);
        return;
      }
      Operation *def = v.getDefiningOp();
      // Allocated before the split, shared by both sides.
      if (isa<SmemAllocOp, MbarrierAllocOp>(def))
        return;
      if (auto loop = dyn_cast<scf::ForOp>(def)) {
        markArg(loop, cast<OpResult>(v).getResultNumber());
        return;
      }
      if (def->getNumRegions()) {
        why = "a copy depends on a value '" +
              def->getName().getStringRef().str() + "' yields";
        return;
      }
      markOp(def);
    };
    for (const Copy *c : producer.copies) {
      markOp(c->op);
      if (c->fill) // (a count of its own, for a one-slot ring)
        markValue(c->fill);
    }
    for (const LoopStore *store : producer.stores)
      markOp(store->op);
    while (!worklist.empty() && why.empty()) {
      Operation *op = worklist.pop_back_val();
      if (Operation *parent = op->getParentOp())
        markOp(parent);
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (Value v :
             {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
          markValue(v);
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        if (branch.getNumResults())
          why = "a copy is in a branch that yields values";
        markValue(branch.getCondition());
        continue;
      }
      if (!isa<TmaLoadOp, TmaStoreOp, SmemSlotOp, BlockIdOp, NumBlocksOp,
               DimOp>(op) &&
          !isScalarComputation(op) && !isScalarRead(func, op)) {
        why = "a copy's coordinates depend on '" +
              op->getName().getStringRef().str() + "'";
        break;
      }
      for (Value v : op->getOperands())
        markValue(v);
    }
    return why;
  }

  /// A load of one element (a loop bound or a page number read from
  /// memory), or of a tile every thread holds whole (the page numbers of a
  /// gathered copy), that the producer may run ahead of the consumers:
  /// nothing the kernel writes to global memory comes before it or in the
  /// same top-level op (a loop), or else it reads a tensor parameter the
  /// kernel never writes, every write's tensor being known (a persistent
  /// kernel's sequence bounds or tile schedule, read in the tile loop that
  /// stores the tiles before). The second rests on no written tensor
  /// overlapping the one read: the parameter goes into `readAhead`, which
  /// the launch checks (tile.read_ahead_params).
  bool isScalarRead(func::FuncOp func, Operation *op) {
    auto load = dyn_cast<LoadOp>(op);
    if (!load || !isWholeInEveryThread(load.getType()))
      return false;
    Block &top = func.getBody().front();
    Operation *at = top.findAncestorOpInBlock(*op);
    if (!at)
      return false;
    for (Operation &o : top) {
      if (writesGlobalMemory(&o))
        break;
      if (&o == at)
        return true;
    }
    std::optional<unsigned> param = getUnwrittenParam(load);
    if (!param)
      return false;
    readAhead.insert(*param);
    return true;
  }
  /// The tensor parameters the producer reads ahead of the kernel's
  /// writes.
  SetVector<unsigned> readAhead;

  /// A tile of one element, or one whose layout gives every thread every
  /// element: the producer's threads compute it as well as the consumers'.
  static bool isWholeInEveryThread(Type t) {
    auto tile = dyn_cast<RankedTensorType>(t);
    return tile && (tile.getNumElements() == 1 ||
                    (tile.getEncoding() &&
                     isReplicatedLayout(tile.getEncoding(), tile.getShape())));
  }

  /// Scalar code, or code on tiles every thread holds whole.
  static bool isScalarComputation(Operation *op) {
    return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
           llvm::all_of(op->getResultTypes(), [](Type t) {
             return t.isIntOrIndexOrFloat() || isWholeInEveryThread(t);
           });
  }

  void specialize(func::FuncOp func, SmallVector<std::unique_ptr<Ring>> &rings,
                  MutableArrayRef<Copy> copies, ArrayRef<Producer> producers) {
    Block &top = func.getBody().front();
    int64_t consumerWarps =
        func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName())
            .getInt();
    int32_t consumerThreads = int32_t(consumerWarps * 32);
    MLIRContext *ctx = func.getContext();

    // The rings and their barriers, full and empty, before the split.
    OpBuilder b(ctx);
    Operation *hoistPoint = &top.front();
    auto hoist = [&](Operation *op) {
      if (op != hoistPoint)
        op->moveBefore(hoistPoint);
      else
        hoistPoint = op->getNextNode();
    };
    for (auto &ring : rings) {
      hoist(ring->buffer);
      hoist(ring->full);
      hoist(ring->init);
      b.setInsertionPoint(hoistPoint);
      Location loc = ring->full.getLoc();
      auto empty = MbarrierAllocOp::create(b, loc, ring->full.getType());
      MbarrierInitOp::create(b, loc, empty,
                             b.getI32IntegerAttr(consumerThreads));
      ring->empty = empty;
      for (Operation *user : ring->full->getUsers())
        if (auto inval = dyn_cast<MbarrierInvalOp>(user)) {
          b.setInsertionPointAfter(inval);
          MbarrierInvalOp::create(b, inval.getLoc(), empty);
        }
    }

    // Each loop store's buffer and barriers, before the split: "full"
    // counts the consumer threads' arrivals, "empty" the producer warp's.
    for (LoopStore &store : stores) {
      hoist(store.buffer);
      b.setInsertionPoint(hoistPoint);
      Location loc = store.op.getLoc();
      auto type = MbarrierType::get(ctx, 1);
      store.full = MbarrierAllocOp::create(b, loc, type);
      MbarrierInitOp::create(b, loc, store.full,
                             b.getI32IntegerAttr(consumerThreads));
      store.empty = MbarrierAllocOp::create(b, loc, type);
      MbarrierInitOp::create(b, loc, store.empty, b.getI32IntegerAttr(32));
    }

    // A producer that runs a loop around its copies' loops works out each
    // trip's bounds and tile indices: a persistent kernel's tile loop (the
    // claims of tiles from the counter, in clusters the multicast copies'
    // ranks and remote addresses: 4-24 bytes spilled at 24 registers,
    // linear.tile and flash attention's persistent schedules) or a loop of
    // the kernel's own (8-12 bytes: the hand-written persistent GEMM,
    // bench/kernels/persistent_gemm.tile; stream-K's pieces 56; ptxas
    // 13.0). At 32 nothing spills, and two consumer warpgroups keep 232.
    unsigned registers = producerRegisters;
    if (registers && registers < kNestedProducerRegisters &&
        llvm::any_of(copies, [](const Copy &c) {
          auto loop = c.op->getParentOfType<scf::ForOp>();
          return loop && (loop->hasAttr(TileDialect::getTileLoopAttrName()) ||
                          loop->getParentOfType<scf::ForOp>());
        }))
      registers = kNestedProducerRegisters;

    // Everything else runs in the consumers.
    b.setInsertionPoint(hoistPoint);
    auto ws = WarpSpecializeOp::create(
        b, func.getLoc(), b.getI32IntegerAttr(consumerWarps),
        registers ? b.getI32IntegerAttr(registers) : IntegerAttr(),
        /*consumer_groups=*/IntegerAttr(), unsigned(producers.size()));
    Block *consumer = new Block();
    ws.getConsumer().push_back(consumer);
    consumer->getOperations().splice(consumer->end(), top.getOperations(),
                                     std::next(Block::iterator(ws)),
                                     Block::iterator(top.getTerminator()));

    // Each producer: its marked ops, cloned, with a wait for a free slot
    // before each copy, on warp r of the producer warpgroup.
    for (auto [r, producer] : llvm::enumerate(producers)) {
      DenseMap<Operation *, Copy *> byOp;
      for (Copy *c : producer.copies)
        byOp[c->op] = c;
      IRMapping map;
      Block *block = new Block();
      ws.getProducers()[r].push_back(block);
      b.setInsertionPointToStart(block);
      cloneLive(*consumer, b, map, byOp, producer,
                consumerThreads + 32 * int32_t(r));
    }

    // The consumers wait for the producer's read of the previous trip's
    // data where they waited for their own copy, and say the trip's is
    // staged where they copied it.
    for (LoopStore &store : stores) {
      Location loc = store.op.getLoc();
      b.setInsertionPoint(store.wait);
      Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
      // (Phase n - 1, the previous trip's read: parity (n + 1) mod 2.)
      Value parity =
          storePhaseParity(b, loc, store.loop.getInductionVar(),
                           store.loop.getLowerBound(), store.loop.getStep(), 1);
      MbarrierWaitOp::create(b, loc, store.empty, zero, parity, ValueRange(),
                             Value());
      SmallVector<Value> others;
      for (Value v : store.wait.getBuffers())
        if (v != store.buffer.getResult())
          others.push_back(v);
      if (!others.empty())
        TmaStoreWaitOp::create(b, loc, ValueRange(others), Value());
      store.wait.erase();
      b.setInsertionPoint(store.op);
      FenceAsyncSharedOp::create(b, loc);
      MbarrierArriveOp::create(b, loc, store.full, zero, store.buffer, Value());
      store.op.erase();
    }

    // The consumers release where the pipeline refilled. (A prologue's
    // fills reuse slots that the previous tile's trips released, in a
    // persistent kernel.)
    for (Copy &c : copies) {
      if (c.refill) {
        b.setInsertionPoint(c.op);
        Location loc = c.op.getLoc();
        Value stages = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(c.ring->stages));
        Value held =
            c.alwaysHeld
                ? Value()
                : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                              c.fill, stages));
        MbarrierArriveOp::create(b, loc, c.ring->empty, c.op.getSlot(),
                                 c.op.getBuffer(), held);
      }
      c.op.erase();
    }
  }

  /// Clones the marked ops of `block` at `b`, loops with the iteration
  /// arguments the producer carries only.
  void cloneLive(Block &block, OpBuilder &b, IRMapping &map,
                 const DenseMap<Operation *, Copy *> &byOp,
                 const Producer &producer, int32_t issuer) {
    for (Operation &op : block.without_terminator()) {
      if (!producer.live.contains(&op))
        continue;
      Location loc = op.getLoc();
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        SmallVector<unsigned> kept;
        SmallVector<Value> inits;
        for (unsigned i = 0; i < loop.getInitArgs().size(); ++i)
          if (producer.liveArgs.contains({loop, i})) {
            kept.push_back(i);
            inits.push_back(map.lookupOrDefault(loop.getInitArgs()[i]));
          }
        auto clone = scf::ForOp::create(
            b, loc, map.lookupOrDefault(loop.getLowerBound()),
            map.lookupOrDefault(loop.getUpperBound()),
            map.lookupOrDefault(loop.getStep()), inits);
        // Each role's copy of the tile loop is the tile loop
        // (tile-dynamic-schedule schedules them alike).
        if (loop->hasAttr(TileDialect::getTileLoopAttrName()))
          clone->setAttr(TileDialect::getTileLoopAttrName(), b.getUnitAttr());
        map.map(loop.getInductionVar(), clone.getInductionVar());
        for (auto [k, i] : llvm::enumerate(kept)) {
          map.map(loop.getRegionIterArgs()[i], clone.getRegionIterArgs()[k]);
          map.map(loop.getResult(i), clone.getResult(k));
        }
        Block *body = clone.getBody();
        if (!body->empty())
          body->getTerminator()->erase();
        OpBuilder inner = OpBuilder::atBlockEnd(body);
        cloneLive(*loop.getBody(), inner, map, byOp, producer, issuer);
        SmallVector<Value> yielded;
        for (unsigned i : kept)
          yielded.push_back(map.lookupOrDefault(
              loop.getBody()->getTerminator()->getOperand(i)));
        scf::YieldOp::create(inner, loc, yielded);
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        auto clone = scf::IfOp::create(
            b, loc, map.lookupOrDefault(branch.getCondition()),
            /*withElseRegion=*/!branch.getElseRegion().empty());
        OpBuilder thenB = clone.getThenBodyBuilder();
        cloneLive(*branch.thenBlock(), thenB, map, byOp, producer, issuer);
        if (!branch.getElseRegion().empty()) {
          OpBuilder elseB = clone.getElseBodyBuilder();
          cloneLive(*branch.elseBlock(), elseB, map, byOp, producer, issuer);
        }
        continue;
      }
      auto store = dyn_cast<TmaStoreOp>(op);
      auto mine = llvm::find_if(producer.stores, [&](const LoopStore *s) {
        return store && s->op == store;
      });
      if (mine != producer.stores.end()) {
        // Trip n's copy waits for phase n of "full", then for its own read
        // of the buffer, and completes phase n of "empty".
        LoopStore &s = **mine;
        Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
        Value parity =
            storePhaseParity(b, loc, map.lookup(s.loop.getInductionVar()),
                             map.lookupOrDefault(s.loop.getLowerBound()),
                             map.lookupOrDefault(s.loop.getStep()), 0);
        MbarrierWaitOp::create(b, loc, s.full, zero, parity, ValueRange(),
                               Value());
        auto copy = cast<TmaStoreOp>(b.clone(op, map));
        copy.setIssuerAttr(b.getI32IntegerAttr(issuer));
        auto wait = TmaStoreWaitOp::create(b, loc, ValueRange{copy.getBuffer()},
                                           Value());
        wait.setIssuerAttr(b.getI32IntegerAttr(issuer));
        MbarrierArriveOp::create(b, loc, s.empty, zero, copy.getBuffer(),
                                 Value());
        continue;
      }
      if (Copy *c = byOp.lookup(&op); c && c->fill) {
        // Fill t / S of the slot waits for the readers of fill t / S - 1.
        Value fill = map.lookupOrDefault(c->fill);
        Value stages = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(c->ring->stages));
        Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
        Value round = arith::DivUIOp::create(b, loc, fill, stages);
        Value parity = arith::AndIOp::create(
            b, loc, arith::AddIOp::create(b, loc, round, one), one);
        Value pred =
            c->op.getPred() ? map.lookupOrDefault(c->op.getPred()) : Value();
        MbarrierWaitOp::create(b, loc, c->ring->empty,
                               map.lookupOrDefault(c->op.getSlot()), parity,
                               ValueRange(), pred);
      }
      Operation *clone = b.clone(op, map);
      if (auto copy = dyn_cast<TmaLoadOp>(clone))
        copy.setIssuerAttr(b.getI32IntegerAttr(issuer));
    }
  }
};

} // namespace
