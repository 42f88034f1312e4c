//===- AsyncWgmma.cpp - wgmma groups in flight while other work runs ------===//
//
// Every `tile.wgmma` becomes `async`: its group is committed and left in
// flight, and `tile.wgmma_wait`s are placed where something needs it done.
//
// Registers. An accumulator in flight may feed the next multiply's
// accumulator (the tensor cores chain them), go around a loop (scf.yield
// and the loop's iteration arguments) or through a layout conversion that
// only renames registers. Any other use (arithmetic, a reduction, the A
// operand of a multiply, a loop's initial value, a store) gets a wait right
// before the first such use in the value's block. Its count is the number
// of groups known to be issued since the multiply on every path there (the
// multiplies between it and the use in that block, and, for a value that
// went around a loop, the ones after it in the previous trip), so that only
// what is needed is waited for. The wait names the multiply's shared
// operands (the ring, for a ring slot out of reach): they stay allocated
// until there, and tile-insert-barriers counts them read until there. A
// register A operand the loop's body computes is waited for in the next
// trip before the op that writes it (waitBeforeOperandRegisters).
//
// Buffers. A write into a shared buffer that a multiply in flight may still
// read must come after a wait that completes the multiply. A forward walk
// in program order tracks the groups in flight (through loops, to a fixed
// point: a multiply of the previous trip is in flight at the head of the
// body) and, at each such write:
//   - a refill of a ring of a pipelined loop (a TMA copy into a slot: the
//     pipeline refills the slot the previous trip read, never one this
//     trip reads, so it may move later within the trip) moves, with the
//     other refills of the trip before that point, to right after the
//     first later wait that completes the multiply, or else right after the
//     next multiply, behind a new wait that leaves that multiply (and those
//     since the write) in flight. A multiply of this trip that reads a slot
//     an earlier trip chose (tile-rotate-wgmma's) may read it too; a refill
//     it holds back moves alone (each refill completes on its own mbarrier),
//     so that the others keep their head start. Where the wait it would
//     move after also completes multiplies of this trip that read the ring
//     it refills (one ring feeding both of MLA's multiplies) and the loop's
//     buffers leave no room for a second block on a multiprocessor, the
//     refill stays in place behind a wait for the earlier trip's multiply:
//     the next trip reads that slot first thing;
//   - a write into the slot of its trip of a ring indexed by the loop's trip
//     counter (tile-ring-stored-operands' rings of stored operands) need
//     not wait for an earlier trip's multiply that read its own trip's
//     slot: the previous trip's read another one, and those S trips back
//     are complete where the bound on the groups still pending shows it;
//   - anything else gets a wait right before it.
// So a GEMM main loop keeps one multiply in flight while the next is
// issued, and attention's P * V of one trip runs under the next trip's
// Q * K^T.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASYNCWGMMA
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The multiplies in flight: for each (and whether it was issued in the
/// current trip of the innermost loop around), a lower bound on the groups
/// issued after it on every path here.
struct InFlight {
  using Key = std::pair<Operation *, unsigned>; // multiply, issued this trip
  llvm::MapVector<Key, unsigned> after;
  /// At most this many groups are pending here (kUnknownPending: no bound
  /// known): a multiply with as many groups issued after it is complete.
  unsigned mostPending = 0;
  static constexpr unsigned kUnknownPending = 1u << 30;

  void issue(Operation *mma) {
    for (auto &entry : after)
      ++entry.second;
    after[{mma, 1}] = 0;
    if (mostPending < kUnknownPending)
      ++mostPending;
  }
  void wait(unsigned pending) {
    after.remove_if([&](auto &entry) { return entry.second >= pending; });
    mostPending = std::min(mostPending, pending);
  }
  /// At the head of a trip, everything in flight is from before it.
  void startTrip() {
    llvm::MapVector<Key, unsigned> old = std::move(after);
    after.clear();
    for (auto [key, n] : old)
      add({key.first, 0}, n);
  }
  /// Paths join: in flight on either, as few groups after it as either.
  void join(const InFlight &o) {
    for (auto [key, n] : o.after)
      add(key, n);
    mostPending = std::max(mostPending, o.mostPending);
  }
  void add(Key key, unsigned n) {
    auto it = after.find(key);
    if (it == after.end())
      after[key] = n;
    else
      it->second = std::min(it->second, n);
  }
  bool operator==(const InFlight &o) const {
    if (after.size() != o.after.size() || mostPending != o.mostPending)
      return false;
    for (auto [key, n] : after) {
      auto it = o.after.find(key);
      if (it == o.after.end() || it->second != n)
        return false;
    }
    return true;
  }
};

/// The shared memory operands of a multiply.
SmallVector<Value> sharedOperands(WarpgroupMmaOp mma) {
  SmallVector<Value> buffers;
  if (isa<SharedMemoryType>(mma.getA().getType()))
    buffers.push_back(mma.getA());
  buffers.push_back(mma.getB());
  return buffers;
}

/// The number of multiplies that are ops of `block` in [from, to).
unsigned countMultiplies(Block::iterator from, Block::iterator to) {
  unsigned n = 0;
  for (auto it = from; it != to; ++it)
    n += isa<WarpgroupMmaOp>(*it);
  return n;
}

/// A conversion between wgmma accumulator layouts that only renames
/// registers: what is in flight stays so.
bool isAccumulatorRenaming(ConvertLayoutOp cvt) {
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(cvt.getType().getEncoding());
  return mma && mma.isWarpgroup() &&
         isRegisterOnlyConversion(cvt.getSource().getType(), cvt.getType());
}

struct AsyncWgmmaPass
    : public mlir::tile::impl::TileAsyncWgmmaBase<AsyncWgmmaPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<WarpgroupMmaOp> mmas;
    func.walk([&](WarpgroupMmaOp mma) { mmas.push_back(mma); });
    if (mmas.empty())
      return;
    for (WarpgroupMmaOp mma : mmas)
      mma.setIsAsync(true);
    DominanceInfo dominance(func);
    dom = &dominance;
    for (WarpgroupMmaOp mma : mmas)
      waitForResult(mma);
    for (WarpgroupMmaOp mma : mmas)
      waitBeforeOperandRegisters(mma);
    // The last first: a wait it gets before a back edge completes the
    // ones before it too.
    for (WarpgroupMmaOp mma : llvm::reverse(mmas))
      waitBeforeBackEdge(mma);
    InFlight state;
    if (failed(visitBlock(func.getBody().front(), state)))
      return signalPassFailure();
  }

  DominanceInfo *dom = nullptr;

  //===--------------------------------------------------------------------===//
  // Registers
  //===--------------------------------------------------------------------===//

  /// What a wait at `at` names for `buffers`: each one, or its ring while
  /// it does not dominate `at`; none where neither does.
  SmallVector<Value> reachableBuffers(ArrayRef<Value> buffers, Operation *at) {
    SmallVector<Value> out;
    for (Value v : buffers) {
      while (!dom->properlyDominates(v, at)) {
        auto slot = v.getDefiningOp<SmemSlotOp>();
        if (!slot)
          break;
        v = slot.getRing();
      }
      if (dom->properlyDominates(v, at) && !llvm::is_contained(out, v))
        out.push_back(v);
    }
    return out;
  }

  /// A multiply of a loop whose body computes its register A operand (a
  /// loaded tile scaled or rounded on its way, read from its ring slot in
  /// the operand's layout: tile-stage-converted-loads) is in flight at the
  /// head of the next trip, which computes the next A into the same
  /// registers; PTX leaves a wgmma's registers not to be written until a
  /// wait completes it (4096 x 4096 x 4096 with A scaled in registers came
  /// out wrong without). The next trip waits for it right before the first
  /// op of the body that A is computed from, unless a wait before A's own
  /// op completes it already (attention's P, computed from scores waited
  /// for). Where A's op reads an f32 tile the body computes (the scaled
  /// tile it rounds), the wait is right before that op, the tile passed
  /// through it (its registers tied to the wait, so that nothing moves the
  /// op above it): the read of the slot and the arithmetic before the
  /// rounding run under the multiply (4096 x 4096 x 4096 with A scaled, on
  /// an H200: 466 TFLOP/s with the wait before the read, 517 so; 262 with
  /// A stored to a buffer of its own, bench/results/
  /// 2026-12-02-h200-register-a.md). An A going around the loop:
  /// waitBeforeBackEdge.
  void waitBeforeOperandRegisters(WarpgroupMmaOp mma) {
    Block *block = mma->getBlock();
    Operation *def = mma.getA().getDefiningOp();
    if (!isa<scf::ForOp>(mma->getParentOp()) ||
        !isa<RankedTensorType>(mma.getA().getType()) || !def ||
        def->getBlock() != block)
      return;
    // Groups issued since `mma` at `at` in the next trip.
    unsigned after =
        countMultiplies(std::next(Block::iterator(mma)), block->end());
    auto issuedAt = [&](Operation *at) {
      return after + countMultiplies(block->begin(), Block::iterator(at));
    };
    for (Operation *op = &block->front(); op != def; op = op->getNextNode())
      if (auto wait = dyn_cast<WgmmaWaitOp>(op);
          wait && wait.getPending() <= issuedAt(op))
        return;
    // The ops of the body A is computed from (not through multiplies or
    // waits, which are ordered already), and the first of them.
    Operation *first = def;
    SmallVector<Operation *> work = {def};
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      if (op->isBeforeInBlock(first))
        first = op;
      for (Value operand : op->getOperands()) {
        Operation *from = operand.getDefiningOp();
        if (from && from->getBlock() == block &&
            !isa<WarpgroupMmaOp, WgmmaWaitOp>(from))
          work.push_back(from);
      }
    }
    SmallVector<unsigned> tied;
    for (OpOperand &operand : def->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      Operation *from = operand.get().getDefiningOp();
      if (type && type.getElementType().isF32() && from &&
          from->getBlock() == block)
        tied.push_back(operand.getOperandNumber());
    }
    Operation *at = tied.empty() ? first : def;
    SmallVector<Value> values;
    for (unsigned i : tied)
      values.push_back(def->getOperand(i));
    OpBuilder b(at);
    auto wait =
        WgmmaWaitOp::create(b, mma.getLoc(), b.getI32IntegerAttr(issuedAt(at)),
                            values, reachableBuffers(sharedOperands(mma), at));
    for (auto [k, i] : llvm::enumerate(tied))
      def->setOperand(i, wait.getResult(k));
  }

  /// A multiply still in flight at its loop's back edge completes before
  /// it where going around would not do:
  ///
  /// - it reads its A operand from registers that go around the loop (an
  ///   iteration argument: tile-rotate-wgmma's P): the back edge writes the
  ///   next trip's value into them (or, for a value converted through
  ///   scratch memory, that conversion's loads: the wait goes before it;
  ///   C7513 otherwise);
  /// - or the registers it holds until the next trip completes it (its
  ///   register A operand, and its accumulator unless that goes around the
  ///   loop anyway) with the tiles live there and kRegistersAroundWgmma
  ///   come to more than a thread has: ptxas then cannot keep the pipeline
  ///   (attention backward at head dim 64: dK's multiply in flight while
  ///   the next trip issues its two 64 x 128 products).
  ///
  /// ptxas would serialize every wgmma of the kernel otherwise (C7514).
  void waitBeforeBackEdge(WarpgroupMmaOp mma) {
    if (!isa<scf::ForOp>(mma->getParentOp()))
      return;
    Block *block = mma->getBlock();
    Operation *end = block->getTerminator();
    // The groups issued after it up to the back edge; none to place if a
    // wait on the way completes it already (one for its result, read
    // before the yield; or this pass's, run before).
    unsigned issued = 0;
    for (Operation *op = mma->getNextNode(); op != end; op = op->getNextNode())
      if (isa<WarpgroupMmaOp>(op))
        ++issued;
      else if (auto wait = dyn_cast<WgmmaWaitOp>(op);
               wait && wait.getPending() <= issued)
        return;
    auto arg = dyn_cast<BlockArgument>(mma.getA());
    bool readsIterArg = arg && arg.getOwner() == block;
    if (!readsIterArg && !tooManyRegistersAround(mma, issued))
      return;
    // The next trip's A is written into the registers the multiply reads:
    // where it is made by reading memory (a conversion through scratch
    // memory), which no instruction moves past the wait, the wait goes
    // before it (a value computed in registers, by shuffles too, is sunk
    // to the back edge).
    Operation *at = end;
    if (readsIterArg) {
      Value next = end->getOperand(arg.getArgNumber() - 1);
      auto cvt = next.getDefiningOp<ConvertLayoutOp>();
      if (cvt && cvt->getBlock() == block && mma->isBeforeInBlock(cvt) &&
          !isRegisterOnlyConversion(cvt.getSource().getType(), cvt.getType()) &&
          !isWarpShuffleConversion(cvt.getSource().getType(), cvt.getType()))
        at = cvt;
    }
    // (Not counting the groups issued after it.)
    for (Operation *op = at; op != end; op = op->getNextNode())
      if (isa<WarpgroupMmaOp>(op))
        --issued;
    OpBuilder b(at);
    WgmmaWaitOp::create(b, mma.getLoc(), b.getI32IntegerAttr(issued),
                        ValueRange(),
                        reachableBuffers(sharedOperands(mma), at));
  }

  /// Whether `mma`, of a loop's body with `issued` groups after it in its
  /// trip, needs more registers in flight into the next trip than a thread
  /// has (waitBeforeBackEdge).
  static bool tooManyRegistersAround(WarpgroupMmaOp mma, unsigned issued) {
    Block *block = mma->getBlock();
    // Where the next trip completes it: its first wait that leaves at most
    // as many groups pending as were issued since the multiply.
    Operation *completes = mma;
    for (Operation &op : *block) {
      if (&op == mma.getOperation())
        break;
      if (isa<WarpgroupMmaOp>(op))
        ++issued;
      else if (auto wait = dyn_cast<WgmmaWaitOp>(op);
               wait && wait.getPending() <= issued) {
        completes = &op;
        break;
      }
    }
    // (Through conversions that only rename its registers.)
    std::function<bool(Value)> goesAround = [&](Value v) {
      return llvm::any_of(v.getUsers(), [&](Operation *user) {
        if (auto cvt = dyn_cast<ConvertLayoutOp>(user);
            cvt && isAccumulatorRenaming(cvt))
          return goesAround(cvt.getResult());
        return user == block->getTerminator();
      });
    };
    int64_t held =
        registersOf(mma.getA().getType()) +
        (goesAround(mma.getResult()) ? 0 : registersOf(mma.getAcc().getType()));
    int64_t need =
        liveTileRegistersBefore(completes) + held + kRegistersAroundWgmma;
    int64_t budget = mma->getParentOfType<WarpSpecializeOp>()
                         ? kMaxConsumerRegisters
                         : TargetLimits::get("sm_90a")->registersPerThread;
    return need > budget;
  }

  /// Whether `mma`, outside any loop, reads a slot of a ring.
  static bool readsRingOutsideLoop(WarpgroupMmaOp mma) {
    return !mma->getParentOfType<scf::ForOp>() &&
           llvm::any_of(sharedOperands(mma), [](Value v) {
             return v.getDefiningOp<SmemSlotOp>() != nullptr;
           });
  }

  void waitForResult(WarpgroupMmaOp mma) {
    // The values that stand for the result in flight, and where each comes
    // from: the multiply itself (this trip) or a loop (a previous trip, or
    // the loop's end).
    struct Carrier {
      Value value;
      bool previousTrip;
    };
    SmallVector<Carrier> worklist = {{mma.getResult(), false}};
    DenseSet<Value> seen;
    while (!worklist.empty()) {
      Carrier c = worklist.pop_back_val();
      if (!seen.insert(c.value).second)
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : c.value.getUses()) {
        Operation *user = use.getOwner();
        if (isa<WgmmaWaitOp>(user))
          continue; // waited for already
        if (auto next = dyn_cast<WarpgroupMmaOp>(user);
            next && use.get() == next.getAcc() &&
            use.getOperandNumber() == next.getAccMutable().getOperandNumber())
          continue; // chained: the next multiply accumulates onto it
        if (auto cvt = dyn_cast<ConvertLayoutOp>(user);
            cvt && isAccumulatorRenaming(cvt)) {
          worklist.push_back({cvt.getResult(), c.previousTrip});
          continue;
        }
        if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          // Out of an inner loop and around the loop enclosing it: waited
          // for after the inner loop. In flight across the outer back edge,
          // the outer loop's copies of its registers (ptxas does not merge
          // them with the inner loop's) would write registers a multiply in
          // flight writes: ptxas serializes every wgmma (C7515).
          bool outOfInnerLoop = c.value.getDefiningOp<scf::ForOp>() &&
                                isa<scf::ForOp>(yield->getParentOp());
          if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
              loop && !outOfInnerLoop) {
            unsigned i = use.getOperandNumber();
            worklist.push_back({loop.getRegionIterArgs()[i], true});
            worklist.push_back({loop.getResult(i), true});
            continue;
          }
        }
        uses.push_back(&use);
      }
      if (uses.empty())
        continue;
      placeRegisterWait(mma, c.value, c.previousTrip, uses);
    }
  }

  /// One wait for `value` before the first of `uses` (their ancestors in
  /// the value's block), which then read the wait's result.
  void placeRegisterWait(WarpgroupMmaOp mma, Value value, bool previousTrip,
                         ArrayRef<OpOperand *> uses) {
    Block *block = value.getParentBlock();
    Operation *first = nullptr;
    for (OpOperand *use : uses) {
      Operation *at = block->findAncestorOpInBlock(*use->getOwner());
      if (at && (!first || at->isBeforeInBlock(first)))
        first = at;
    }
    assert(first && "a use outside the block of the value it uses");
    // Groups issued since the multiply, on every path to the wait.
    unsigned pending = 0;
    Operation *def = value.getDefiningOp();
    if (!previousTrip && readsRingOutsideLoop(mma)) {
      // A multiply after a loop reading the loop's ring (tile-rotate-wgmma's
      // last trip): done at once, so that the ring is free for what
      // follows (the next loop's rings).
      first = def->getNextNode();
    } else if (!previousTrip) {
      // This trip's result: the multiplies between it and the use.
      pending = countMultiplies(std::next(Block::iterator(def)),
                                Block::iterator(first));
    } else if (isa<BlockArgument>(value)) {
      // A loop's iteration argument: the multiplies before the use in this
      // trip, and those after the multiply in the previous one.
      pending = countMultiplies(block->begin(), Block::iterator(first));
      if (mma->getBlock() == block)
        pending +=
            countMultiplies(std::next(Block::iterator(mma)), block->end());
    } else if (isa<scf::ForOp>(def) && def->getNextNode()) {
      // A loop's result: right after the loop, so that its multiplies'
      // buffers are free for what follows (the next loop's rings).
      first = def->getNextNode();
    }
    OpBuilder b(first);
    auto wait = WgmmaWaitOp::create(
        b, mma.getLoc(), b.getI32IntegerAttr(pending), ValueRange{value},
        reachableBuffers(sharedOperands(mma), first));
    for (OpOperand *use : uses)
      use->set(wait.getResult(0));
  }

  //===--------------------------------------------------------------------===//
  // Buffers
  //===--------------------------------------------------------------------===//

  LogicalResult visitBlock(Block &block, InFlight &state) {
    for (Operation *op = block.empty() ? nullptr : &block.front(); op;) {
      Operation *next = op->getNextNode();
      if (failed(visit(op, state)))
        return failure();
      op = next;
    }
    return success();
  }

  LogicalResult visit(Operation *op, InFlight &state) {
    if (isa<WarpgroupMmaOp>(op)) {
      state.issue(op);
      return success();
    }
    if (auto wait = dyn_cast<WgmmaWaitOp>(op)) {
      state.wait(wait.getPending());
      return success();
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // The head of the body: what was in flight before the loop, or at the
      // end of the previous trip.
      InFlight entry = state, head = state;
      loopEntry[loop] = entry;
      for (unsigned i = 0; i < 16; ++i) {
        InFlight s = head;
        s.startTrip();
        if (failed(visitBlock(*loop.getBody(), s)))
          return failure();
        InFlight next = entry;
        next.join(s);
        // Trips that leave more groups pending than they found: no bound.
        if (i && next.mostPending > head.mostPending)
          next.mostPending = InFlight::kUnknownPending;
        if (next == head) {
          state = head;
          return success();
        }
        head = next;
      }
      return loop.emitOpError("wgmma wait analysis did not converge");
    }
    if (op->getNumRegions()) {
      InFlight joined = state;
      for (Region &r : op->getRegions())
        for (Block &b : r) {
          InFlight s = state;
          if (failed(visitBlock(b, s)))
            return failure();
          joined.join(s);
        }
      state = joined;
      return success();
    }
    Value written;
    if (auto copy = dyn_cast<TmaLoadOp>(op))
      written = copy.getBuffer();
    else if (auto release = dyn_cast<MbarrierArriveOp>(op))
      written = release.getBuffer(); // the refill it stands for
    else if (auto copy = dyn_cast<AsyncCopyOp>(op))
      written = copy.getBuffer();
    else if (auto init = dyn_cast<LocalAllocOp>(op))
      written = init.getResult();
    else if (auto write = dyn_cast<LocalStoreOp>(op))
      written = write.getBuffer();
    if (!written)
      return success();
    Operation *alloc = getAllocation(written);
    // A refill writes the slot an earlier trip read: only the multiplies
    // from before this trip can be reading it.
    bool refill = alloc && isRefill(op);
    // The youngest multiply in flight that reads the buffer.
    std::optional<unsigned> youngest;
    bool thisTrip = false; // a multiply of this trip reads the slot
    for (auto [key, n] : state.after) {
      if (refill && key.second &&
          !readsEarlierTripSlot(cast<WarpgroupMmaOp>(key.first)))
        continue;
      if (!key.second &&
          readsAnotherTripSlot(written, cast<WarpgroupMmaOp>(key.first), n,
                               state))
        continue;
      for (Value v : sharedOperands(cast<WarpgroupMmaOp>(key.first)))
        if (getAllocation(v) == alloc || !alloc) {
          youngest = std::min(youngest.value_or(n), n);
          thisTrip |= key.second;
        }
    }
    if (!youngest)
      return success();
    if (refill)
      moveRefill(op, *youngest, /*alone=*/thisTrip);
    else
      insertWait(op, *youngest, state);
    return success();
  }

  /// What was in flight where each loop was entered (the last visit).
  DenseMap<Operation *, InFlight> loopEntry;

  /// Whether `mma`, of an earlier trip of the loop whose body writes the
  /// ring slot `written` (with `after` groups issued after its previous
  /// trip's instance), reads no slot the write reaches: both the slot of
  /// their own trip, the loop's trip counter modulo the ring's S slots
  /// (tile-ring-stored-operands' rings), the previous trip's multiply reads
  /// another one, and a multiply of S or more trips back has at least
  /// `after` + (S - 1) x (the body's multiplies) groups issued after it:
  /// complete where no more groups than that are pending. (Not where the
  /// multiply was in flight when the loop was entered: the counter may not
  /// go on from there.)
  bool readsAnotherTripSlot(Value written, WarpgroupMmaOp mma, unsigned after,
                            const InFlight &state) {
    auto slot = written.getDefiningOp<SmemSlotOp>();
    std::optional<std::pair<int64_t, Value>> index =
        slot ? tripSlotIndex(slot.getSlot()) : std::nullopt;
    if (!index || index->first < 2)
      return false;
    Block *body = cast<BlockArgument>(index->second).getOwner();
    if (mma->getBlock() != body || slot->getBlock() != body)
      return false;
    for (Value v : sharedOperands(mma)) {
      auto read = v.getDefiningOp<SmemSlotOp>();
      if (getAllocation(v) == getAllocation(written) &&
          (!read || read.getRing() != slot.getRing() ||
           read.getSlot() != slot.getSlot()))
        return false;
    }
    auto entry = loopEntry.find(body->getParentOp());
    if (entry != loopEntry.end() &&
        llvm::any_of(entry->second.after,
                     [&](auto &e) { return e.first.first == mma; }))
      return false;
    unsigned perTrip = countMultiplies(body->begin(), body->end());
    return after + (index->first - 1) * perTrip >= state.mostPending;
  }

  /// Whether `mma` reads a slot an earlier trip chose (its index comes
  /// around the loop, as tile-rotate-wgmma leaves a moved multiply): a
  /// refill of this trip may overwrite it.
  static bool readsEarlierTripSlot(WarpgroupMmaOp mma) {
    return llvm::any_of(sharedOperands(mma), [](Value v) {
      auto slot = v.getDefiningOp<SmemSlotOp>();
      auto arg = slot ? dyn_cast<BlockArgument>(slot.getSlot()) : nullptr;
      return arg && isa<scf::ForOp>(arg.getOwner()->getParentOp());
    });
  }

  /// The buffer a TMA copy writes, or that a warp-specialized consumer's
  /// release hands back to the producer to refill; null for other ops.
  static Value refilledBuffer(Operation *op) {
    if (auto copy = dyn_cast<TmaLoadOp>(op))
      return copy.getBuffer();
    if (auto release = dyn_cast<MbarrierArriveOp>(op))
      return release.getBuffer();
    return Value();
  }

  /// A TMA copy into a slot of a ring of two or more, or a warp-specialized
  /// consumer's release of one (tile-warp-specialize), in the body of a
  /// pipelined loop. (A ring of one slot is refilled where the trip has read
  /// it: tile-pipeline's tile-refill-after-read.)
  static bool isRefill(Operation *op) {
    Value buffer = refilledBuffer(op);
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    auto slot = buffer ? buffer.getDefiningOp<SmemSlotOp>() : SmemSlotOp();
    return slot && loop && loop->hasAttr(TileDialect::getPipelinedAttrName()) &&
           slot.getRing().getType().getShape().front() > 1;
  }

  /// A wait before `op` that completes what `op` must not overtake: the
  /// multiplies with `after` or more groups issued after them.
  void insertWait(Operation *op, unsigned after, InFlight &state) {
    OpBuilder b(op);
    WgmmaWaitOp::create(b, op->getLoc(), b.getI32IntegerAttr(after),
                        ValueRange(), buffersOf(state, after, op));
    state.wait(after);
  }

  /// The rings and buffers read by the multiplies a wait at `at` for
  /// `pending` completes (rings for slots: the multiplies may be from an
  /// earlier trip).
  SmallVector<Value> buffersOf(const InFlight &state, unsigned pending,
                               Operation *at) {
    SmallVector<Value> buffers;
    for (auto [key, n] : state.after) {
      if (n < pending)
        continue;
      for (Value v : sharedOperands(cast<WarpgroupMmaOp>(key.first)))
        buffers.push_back(getSlotRoot(v));
    }
    return reachableBuffers(buffers, at);
  }

  /// Moves the refill `copy`, which a multiply with `after` groups issued
  /// after it may still be reading, later in its trip (see the header);
  /// `alone` when that multiply is of this trip.
  void moveRefill(Operation *copy, unsigned after, bool alone) {
    Block *block = copy->getBlock();
    if (alone) {
      // Held back by a multiply of this trip: only this refill moves, to
      // the end of the trip, behind a wait there that completes the
      // multiply unless one before does; so that neither the wait nor the
      // barrier before the refill cuts into the work that overlaps it.
      unsigned issued = countMultiplies(std::next(Block::iterator(copy)),
                                        block->without_terminator().end());
      bool completed = llvm::any_of(
          llvm::make_range(std::next(Block::iterator(copy)), block->end()),
          [&](Operation &op) {
            auto wait = dyn_cast<WgmmaWaitOp>(op);
            return wait && wait.getPending() <= after;
          });
      // (A later wait with at most `after` pending completes it, whatever
      // is issued in between.)
      copy->moveBefore(block->getTerminator());
      if (completed)
        return;
      OpBuilder b(copy);
      WgmmaWaitOp::create(b, copy->getLoc(),
                          b.getI32IntegerAttr(after + issued), ValueRange(),
                          ringsReadIn(block, copy));
      return;
    }
    Operation *target = nullptr;
    Operation *firstMma = nullptr;
    unsigned issued = 0;
    for (Operation *op = copy->getNextNode(); op; op = op->getNextNode()) {
      if (auto wait = dyn_cast<WgmmaWaitOp>(op);
          wait && wait.getPending() <= after + issued) {
        target = op;
        break;
      }
      if (isa<WarpgroupMmaOp>(op)) {
        ++issued;
        if (!firstMma)
          firstMma = op;
      }
    }
    if (target && cast<WgmmaWaitOp>(target).getPending() < after + issued &&
        readsRingBetween(copy, target) && fillsMultiprocessor(block) &&
        multiplyWork(copy, target) > multiplyWork(target, nullptr)) {
      // That wait also completes multiplies of this trip issued after the
      // refill's place, and they read the ring it refills (MLA's latent
      // tile: K for the scores, V for P V, one ring): the next trip's same
      // multiplies read the slot it fills, at the same place. Held until
      // they complete, the copy would lose their time to arrive, and with
      // one block a multiprocessor no other block's work covers the wait
      // that follows, where those multiplies are more of the trip's work
      // than the ones left after the wait (MLA: the scores' 64 x 64 x 576
      // against P V's 64 x 512 x 64). So it stays where the
      // pipeline put it, behind a wait for the earlier trip's multiply alone
      // (not overlapping this trip's: ptxas serializes every wgmma where
      // that one completes under them, C7514). Elsewhere the overlap is
      // worth more: attention backward's loop (S^T and dP^T before the
      // wait, dV, dK and dQ after it) ran 0-7% slower so, at 64 x 64 tiles
      // and two or three blocks a multiprocessor and at head dim 256 and
      // one.
      OpBuilder b(copy);
      WgmmaWaitOp::create(b, copy->getLoc(), b.getI32IntegerAttr(after),
                          ValueRange(), ringsReadIn(block, copy));
      return;
    }
    if (!target && firstMma) {
      // Keep that multiply in flight (it reads another slot).
      OpBuilder b(block, std::next(Block::iterator(firstMma)));
      target = WgmmaWaitOp::create(b, copy->getLoc(), b.getI32IntegerAttr(1),
                                   ValueRange(), ringsReadIn(block, firstMma));
    }
    if (!target) {
      OpBuilder b(copy);
      WgmmaWaitOp::create(b, copy->getLoc(), b.getI32IntegerAttr(after),
                          ValueRange(), ringsReadIn(block, copy));
      return;
    }
    Operation *last = target;
    // Held back by an earlier trip's multiply: the refills of the trip up
    // to there move together, in order.
    SmallVector<Operation *> refills;
    for (Operation &op :
         llvm::make_range(block->begin(), Block::iterator(target)))
      if (isRefill(&op))
        refills.push_back(&op);
    for (Operation *r : refills) {
      r->moveAfter(last);
      last = r;
    }
  }

  /// Whether the shared memory the loop of `body` uses leaves no room for
  /// a second block on a multiprocessor (sm_90).
  static bool fillsMultiprocessor(Block *body) {
    llvm::SmallPtrSet<Operation *, 16> allocations;
    collectAllocations(body->getParentOp(), allocations);
    int64_t bytes = 0;
    for (Operation *alloc : allocations)
      bytes += getAllocationBytes(alloc);
    return 2 * bytes >
           TargetLimits::get("sm_90a")->sharedBytesPerMultiprocessor;
  }

  /// The multiply-adds of the multiplies after `from` and before `to` (the
  /// block's end where null), in one block.
  static int64_t multiplyWork(Operation *from, Operation *to) {
    int64_t work = 0;
    for (Operation *op = from->getNextNode(); op && op != to;
         op = op->getNextNode())
      if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
        auto acc = cast<ShapedType>(mma.getAcc().getType());
        Type a = mma.getA().getType();
        int64_t k = isa<SharedMemoryType>(a)
                        ? cast<SharedMemoryType>(a).getShape().back()
                        : cast<ShapedType>(a).getShape().back();
        work += acc.getNumElements() * k;
      }
    return work;
  }

  /// Whether a multiply between the refill `copy` and `to` (of one block)
  /// reads the ring `copy` writes.
  static bool readsRingBetween(Operation *copy, Operation *to) {
    Operation *ring = getAllocation(refilledBuffer(copy));
    for (Operation *op = copy->getNextNode(); op && op != to;
         op = op->getNextNode())
      if (auto mma = dyn_cast<WarpgroupMmaOp>(op))
        for (Value v : sharedOperands(mma))
          if (ring && getAllocation(v) == ring)
            return true;
    return false;
  }

  /// The buffers (rings, for slots) the multiplies of `block` read, for a
  /// wait at `at` that completes a previous trip's multiplies.
  SmallVector<Value> ringsReadIn(Block *block, Operation *at) {
    InFlight all;
    for (Operation &op : *block)
      if (isa<WarpgroupMmaOp>(op))
        all.after[{&op, 0}] = 0;
    return buffersOf(all, 0, at);
  }
};

} // namespace
