//===- RotateWgmma.cpp - A loop's last multiply issued in the next trip ---===//
//
// In-warpgroup overlap. A loop whose body multiplies twice, the second
// multiply accumulating into a value that goes around the loop (attention:
// S = Q K^T, softmax, O = P V + O * alpha), leaves the tensor cores idle
// while the work between the two runs: each trip waits for S before the
// softmax and for P V before the next trip's rescale. This pass issues the
// last multiply of trip j in trip j + 1, right after that trip's first
// multiply (after the multiplies accumulating into its result, where it
// is a chain of them), and once more after the loop for the last trip:
//
//   before:                          after:
//   for j:                           if lb < ub:
//     wait K_j; s = mma(q, K_j)        trip lb without the moved ops
//     wait V_j; refill V               for j = lb + 1 .. (o, p', e', i'...):
//     t = softmax(s)                     wait K_j; s = mma(q, K_j)
//     o = o * alpha(t)                   wait V[i']; refill V (trip j - 1's)
//     o = mma(p(t), V_j, o)              o = mma(p', V[i'], o * e')
//     yield o                            t = softmax(s)
//                                        yield o, p(t), alpha(t), idx(V_j)..
//                                      wait V[i']; refill; mma(p', .., o * e')
//                                    else: the initial values
//
// The moved ops: the multiply, the renaming conversions of its result, the
// rescaling (the side-effect-free ops from the accumulator's iteration
// argument to the multiply's accumulator operand, with the broadcasts that
// feed only them: nothing else may read the accumulator while the multiply
// runs; with `rescale-in-trip` it stays, at the end of its trip, on the
// multiply issued there, and the rescaled accumulator goes around), and the
// mbarrier waits and TMA refills of the rings it reads (each slot is then
// waited for in the trip that reads it and refilled once its last reader is
// done; a ring that a multiply staying in the trip reads too keeps its
// waits there, and its refills go after the moved multiply in their trip). What
// they read from the trip goes around the loop as iteration arguments:
// registers as they are, a ring slot as its index; the accumulator's argument
// carries the multiply's result, in flight. tile-async-wgmma then leaves both
// multiplies in flight under the softmax and completes the moved one before the
// back edge (its A operand, P, is an iteration argument the yield overwrites),
// FlashAttention-3's intra-warpgroup pipelining. The first trip is peeled
// rather than the multiply predicated: an accumulator in flight must not meet
// another value at a control-flow join (ptxas would wait for it there, C7519).
//
// Conditions, else the loop is left as it is: the body has two or more
// multiplies at its top level; the last one's result reaches the yield only
// through register-renaming layout conversions; the accumulator's iteration
// argument is read only by the rescaling; the rings the moved ops touch are
// filled by TMA copies only (cp.async waits count copies in program order);
// a ring that the moved multiply and one staying in the trip both read has
// three stages or more (a rotated trip holds two of its slots: with two, no
// copy is in flight as a trip begins; MLA decode so rotated ran 30% slower,
// bench/results/2026-12-07-h100-mla-rotated.md);
// and the registers the rotated loop keeps live at once (the moved
// multiply's accumulator, the other multiplies' results, a chain of
// multiplies accumulating into one result counted once, twice each
// register operand that goes around) fit in `max-registers` per thread.
// The last condition keeps the 128-row single-warpgroup attention tile
// (274 registers estimated at head dim 128) as it is: rotated, ptxas
// spills and serializes its multiplies, 0.88-0.97x
// (bench/results/2026-11-28-architecture-notes.md, section 7.5.2).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEROTATEWGMMA
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// How an operand of the moved multiply reaches the next trip.
struct CarriedOperand {
  enum Kind { Outside, Register, Slot } kind;
  Value value;           // Outside: the value; Register: this trip's value
  SmemSlotOp slot;       // Slot: this trip's slot
  unsigned argIndex = 0; // Register, Slot: the new iteration argument
  std::optional<unsigned> bodyArg; // Register: the body argument it is
};

struct RotateWgmmaPass
    : public mlir::tile::impl::TileRotateWgmmaBase<RotateWgmmaPass> {
  using TileRotateWgmmaBase::TileRotateWgmmaBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // The loop's schedule decides, else the kernel's option.
      BoolAttr asked =
          LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getRotateWgmma);
      BoolAttr askedRescale =
          LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getRescaleInTrip);
      bool rotating = asked ? asked.getValue() : enabled;
      if (askedRescale && askedRescale.getValue() && !rotating)
        emitWarning(getUserFacingLoc(loop))
            << "rescale_in_trip does not apply to this loop: it is not "
               "rotated (rotate_wgmma is off for it)";
      if (!rotating)
        continue;
      bool rescaleHere = askedRescale ? askedRescale.getValue() : rescaleInTrip;
      std::string why = rotate(loop, rescaleHere);
      // Asked for (not only the default) and not done: said.
      if (!why.empty() && (warn || asked))
        emitWarning(getUserFacingLoc(loop))
            << "rotate_wgmma does not apply to this loop: " << why;
    }
  }

  /// 32-bit registers per thread that a value of `type` takes: a laid-out
  /// tile's without its padding registers (registersOf), 1 otherwise.
  static unsigned registers(Type type) {
    int64_t r = registersOf(type);
    return r ? static_cast<unsigned>(r) : 1u;
  }

  /// Whether `ring` is written in `loop` only by TMA copies into its slots.
  static bool filledByTmaOnly(Value ring, scf::ForOp loop) {
    bool ok = true;
    loop.getBody()->walk([&](Operation *op) {
      Value buffer;
      if (isa<TmaLoadOp, MbarrierArriveOp>(op))
        return;
      if (auto copy = dyn_cast<AsyncCopyOp>(op))
        buffer = copy.getBuffer();
      else if (auto init = dyn_cast<LocalAllocOp>(op))
        buffer = init.getResult();
      else if (auto write = dyn_cast<LocalStoreOp>(op))
        buffer = write.getBuffer();
      if (!buffer)
        return;
      if (getSlotRoot(buffer) == ring)
        ok = false;
    });
    return ok;
  }

  /// How `v`, an operand of the moved multiply, reaches the next trip.
  static std::optional<CarriedOperand> carry(Value v, scf::ForOp loop) {
    if (!loop.getRegion().isAncestor(v.getParentRegion()))
      return CarriedOperand{CarriedOperand::Outside, v, {}};
    if (!isa<SharedMemoryType>(v.getType())) {
      CarriedOperand c{CarriedOperand::Register, v, {}};
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == loop.getBody())
        c.bodyArg = arg.getArgNumber();
      return c;
    }
    auto slot = v.getDefiningOp<SmemSlotOp>();
    if (!slot ||
        loop.getRegion().isAncestor(slot.getRing().getParentRegion()) ||
        !filledByTmaOnly(slot.getRing(), loop))
      return std::nullopt;
    return CarriedOperand{CarriedOperand::Slot, v, slot};
  }

  /// Rotates `loop`, its rescaling left in its trip with `rescaleHere`;
  /// why not, when it cannot ("" when the loop has no wgmma at all:
  /// nothing was asked of it).
  std::string rotate(scf::ForOp loop, bool rescaleHere) {
    Block *body = loop.getBody();
    SmallVector<WarpgroupMmaOp> mmas;
    for (Operation &op : *body)
      if (auto mma = dyn_cast<WarpgroupMmaOp>(op))
        mmas.push_back(mma);
    if (mmas.empty())
      return "";
    if (mmas.size() < 2)
      return "the loop has one multiply at its top level; there is no "
             "first multiply to issue the last one behind";
    WarpgroupMmaOp first = mmas.front(), last = mmas.back();

    // The result reaches the yield through renaming conversions only.
    SmallVector<ConvertLayoutOp> chain;
    Value end = last.getResult();
    while (end.hasOneUse()) {
      auto cvt = dyn_cast<ConvertLayoutOp>(*end.getUsers().begin());
      if (!cvt ||
          !isRegisterOnlyConversion(cvt.getSource().getType(), cvt.getType()))
        break;
      chain.push_back(cvt);
      end = cvt.getResult();
    }
    if (!end.hasOneUse() ||
        end.getUses().begin()->getOwner() != body->getTerminator())
      return "the last multiply's result is used in the trip, not only "
             "carried to the next one";
    OpOperand &yielded = *end.getUses().begin();
    unsigned resultIndex = yielded.getOperandNumber();
    Value acc = loop.getRegionIterArgs()[resultIndex];

    // The rescaling: the ops from the accumulator's iteration argument to
    // the multiply's accumulator operand. They move with the multiply, so
    // that nothing in the trip reads the accumulator while it is in flight.
    auto isAccOperand = [&](OpOperand &use) {
      return use.getOwner() == last.getOperation() &&
             use.getOperandNumber() == last.getAccMutable().getOperandNumber();
    };
    SetVector<Operation *> group;
    SmallVector<Value> work = {acc};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        if (isAccOperand(use))
          continue;
        Operation *op = use.getOwner();
        if (op->getBlock() != body || !op->isBeforeInBlock(last) ||
            op->getNumRegions() || !isMemoryEffectFree(op))
          return "the accumulator is read by more than its rescaling";
        if (group.insert(op))
          work.append(op->result_begin(), op->result_end());
      }
    }
    if (last.getAcc() != acc && !group.contains(last.getAcc().getDefiningOp()))
      return "the last multiply does not accumulate into the loop's "
             "carried value";
    // Broadcasts into it come along (they only repeat registers): what
    // goes around the loop is their operand.
    for (unsigned i = 0; i < group.size(); ++i)
      for (Value v : group[i]->getOperands())
        if (auto b = v.getDefiningOp<BroadcastOp>();
            b && b->getBlock() == body && !group.contains(b) &&
            llvm::all_of(b->getUsers(),
                         [&](Operation *u) { return group.contains(u); }))
          group.insert(b);
    for (Operation *op : group)
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (!group.contains(use.getOwner()) && !isAccOperand(use))
            return "the rescaling of the accumulator is used elsewhere in "
                   "the trip";
    // With `rescale-in-trip`, the rescaling stays in its trip, at the
    // trip's end: it reads the multiply issued in the trip (the previous
    // trip's, complete by then) and what goes around is the rescaled
    // accumulator, so that the next trip issues its multiply as soon as
    // the ring slot is there.
    SmallVector<Operation *> rescale;
    if (rescaleHere) {
      rescale.assign(group.begin(), group.end());
      llvm::sort(rescale, [](Operation *x, Operation *y) {
        return x->isBeforeInBlock(y);
      });
    }
    // The rings the multiply reads move with it: their mbarrier waits and
    // refills run one trip later too, so that each slot is waited for in
    // the trip that reads it and refilled once its last reader is done. A
    // ring that a multiply staying in the trip reads too (one buffer read
    // as B and transposed as B, tile.wgmma `transposed`) keeps its waits
    // there, for that reader, and its refills and releases stay in their
    // trip, after the moved multiply (the slot a trip refills is the one
    // the previous trip read, which the moved multiply reads in this one;
    // tile-async-wgmma then holds the refill until that multiply is done).
    SmallVector<Operation *> afterMoved;
    for (Value v : SmallVector<Value, 2>{last.getA(), last.getB()}) {
      auto slot = v.getDefiningOp<SmemSlotOp>();
      if (!slot || slot->getBlock() != body)
        continue;
      auto ofRing = [&](Value b) {
        auto s = b.getDefiningOp<SmemSlotOp>();
        return s && s.getRing() == slot.getRing();
      };
      bool readHere = llvm::any_of(*body, [&](Operation &op) {
        return &op != last.getOperation() &&
               !isa<MbarrierWaitOp, TmaLoadOp, MbarrierArriveOp>(op) &&
               llvm::any_of(op.getOperands(), ofRing);
      });
      // Read here and by the moved multiply, a trip holds two of the ring's
      // slots (this trip's tile and the one before); the slot it refills
      // is the moved multiply's, after that multiply. With two stages no
      // copy is then in flight when a trip begins: each waits for the copy
      // the trip before issued at its end.
      int64_t stages = slot.getRing().getType().getShape().front();
      if (readHere && stages < 3)
        return "rotated, a trip would hold two tiles of a ring that the "
               "moved multiply and one staying in the trip both read (its "
               "tile and the trip before's); with " +
               std::to_string(stages) + (stages == 1 ? " stage" : " stages") +
               " no copy would be in flight as a trip begins (three stages "
               "or more)";
      for (Operation &op : *body) {
        SmallVector<Value> buffers;
        if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
          if (!readHere)
            buffers.append(wait.getBuffers().begin(), wait.getBuffers().end());
        } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
          buffers.push_back(copy.getBuffer());
        } else if (auto release = dyn_cast<MbarrierArriveOp>(op)) {
          buffers.push_back(release.getBuffer());
        }
        if (!llvm::any_of(buffers, ofRing))
          continue;
        if (readHere)
          afterMoved.push_back(&op);
        else
          group.insert(&op);
      }
    }
    SmallVector<Operation *> moved;
    for (Operation *op : group)
      if (!llvm::is_contained(rescale, op))
        moved.push_back(op);
    llvm::sort(moved, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    moved.push_back(last);

    // What the moved ops read from the trip goes around the loop.
    SmallVector<CarriedOperand> operands;
    DenseSet<Value> seen;
    for (Operation *op : moved)
      for (Value v : op->getOperands()) {
        if (v == acc || group.contains(v.getDefiningOp()) ||
            !seen.insert(v).second)
          continue;
        std::optional<CarriedOperand> c = carry(v, loop);
        if (!c)
          return "the last multiply reads shared memory that TMA copies "
                 "do not fill ring by ring";
        operands.push_back(*c);
      }

    // Registers the rotated loop keeps live at once, per thread.
    // (A multiply accumulating into another's result holds the same
    // registers: a chain counts once.)
    unsigned live = registers(last.getResult().getType());
    for (WarpgroupMmaOp mma : mmas) {
      auto previous = mma.getAcc().getDefiningOp<WarpgroupMmaOp>();
      if (mma != last && !(previous && previous->getBlock() == body))
        live += registers(mma.getResult().getType());
    }
    for (CarriedOperand &c : operands)
      if (c.kind == CarriedOperand::Register)
        live += 2 * registers(c.value.getType());
    if (live > maxRegisters)
      return "rotated, the loop would keep about " + std::to_string(live) +
             " registers per thread live, over " +
             std::to_string(maxRegisters) +
             " (ptxas would spill and serialize the multiplies)";

    // Initial values: any (the peeled first trip does not multiply). A
    // value that goes around for two operands (a slot's index that a wait
    // also reads) goes around once.
    IRRewriter rewriter(loop);
    Location loc = last.getLoc();
    SmallVector<Value> inits;
    SmallVector<CarriedOperand *> around;
    DenseMap<Value, unsigned> argOf;
    for (CarriedOperand &c : operands) {
      if (c.kind == CarriedOperand::Outside)
        continue;
      Value v = c.kind == CarriedOperand::Register ? c.value : c.slot.getSlot();
      auto [it, added] =
          argOf.try_emplace(v, loop.getInitArgs().size() + inits.size());
      c.argIndex = it->second;
      if (!added)
        continue;
      around.push_back(&c);
      Type type = c.kind == CarriedOperand::Register ? c.value.getType()
                                                     : rewriter.getI32Type();
      inits.push_back(arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(type))));
    }

    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> added) {
          // Nothing goes around when the moved multiply reads only values
          // from outside the loop.
          if (added.empty())
            return SmallVector<Value>();
          // The body's arguments (the induction variable, the other
          // iteration arguments) are the new loop's now.
          Block *newBody = added.front().getOwner();
          for (CarriedOperand &c : operands)
            if (c.kind == CarriedOperand::Register && c.bodyArg)
              c.value = newBody->getArgument(*c.bodyArg);
          SmallVector<Value> yields;
          for (CarriedOperand *c : around)
            yields.push_back(c->kind == CarriedOperand::Register
                                 ? c->value
                                 : c->slot.getSlot());
          return yields;
        }));
    body = newLoop.getBody();
    acc = newLoop.getRegionIterArgs()[resultIndex];
    for (ConvertLayoutOp cvt : chain)
      moved.push_back(cvt);

    // The moved ops (`ops`, reading `inputs`: the carried values, then the
    // accumulator), on what the previous trip left (`carried`) and the
    // accumulator `accIn`; returns the ops made, the last one making the
    // new accumulator, and what they read in place of `inputs`.
    auto rebuild = [&](OpBuilder &b, ArrayRef<Operation *> ops,
                       ArrayRef<Value> inputs, ValueRange carried,
                       Value accIn) {
      IRMapping map;
      SmallVector<Value> read;
      unsigned i = 0;
      for (CarriedOperand &c : operands) {
        if (c.kind == CarriedOperand::Outside)
          continue;
        Value v = carried[c.argIndex];
        if (c.kind == CarriedOperand::Slot)
          v = SmemSlotOp::create(b, loc, c.slot.getType(), c.slot.getRing(), v);
        map.map(inputs[i++], v);
        read.push_back(v);
      }
      // (A rescaling left in its trip may rename the accumulator's layout
      // to the multiply's: the moved multiply reads it renamed likewise.)
      Value a = accIn;
      if (a.getType() != inputs[i].getType())
        a = ConvertLayoutOp::create(b, loc, inputs[i].getType(), a);
      map.map(inputs[i], a);
      read.push_back(a);
      SmallVector<Operation *> made;
      for (Operation *op : ops)
        made.push_back(b.clone(*op, map));
      return std::make_pair(made, read);
    };
    // (A rescaling left in its trip makes the multiply's accumulator
    // operand; the moved multiply reads the rescaled accumulator instead.)
    Value accOperand = rescale.empty() ? acc : last.getAcc();
    SmallVector<Value> inputs;
    for (CarriedOperand &c : operands)
      if (c.kind != CarriedOperand::Outside)
        inputs.push_back(c.value);
    inputs.push_back(accOperand);
    SmallVector<Value> args(newLoop.getRegionIterArgs());
    // Behind the first multiply's chain (the multiplies accumulating into
    // its result: scores in two parts), so that the wait for the chain's
    // result, before the softmax, leaves the moved multiply in flight.
    Operation *behind = first;
    for (bool more = true; more;) {
      more = false;
      for (OpOperand &use : behind->getResult(0).getUses())
        if (auto next = dyn_cast<WarpgroupMmaOp>(use.getOwner());
            next && next != last && next->getBlock() == body &&
            use.getOperandNumber() == next.getAccMutable().getOperandNumber()) {
          behind = next;
          more = true;
          break;
        }
    }
    rewriter.setInsertionPointAfter(behind);
    auto [made, read] = rebuild(rewriter, moved, inputs, args, acc);
    Value issued = made.back()->getResult(0);
    body->getTerminator()->setOperand(resultIndex, issued);
    Operation *point = made.back();
    for (Operation *op : afterMoved)
      if (op->isBeforeInBlock(point)) {
        op->moveAfter(point);
        point = op;
      }
    if (!rescale.empty()) {
      // The rescaling at the trip's end, of the multiply issued in it.
      rewriter.setInsertionPoint(body->getTerminator());
      IRMapping map;
      map.map(acc, issued);
      for (Operation *op : rescale)
        rewriter.clone(*op, map);
      Value rescaled = map.lookup(last.getAcc());
      if (rescaled.getType() != acc.getType())
        rescaled =
            ConvertLayoutOp::create(rewriter, loc, acc.getType(), rescaled);
      body->getTerminator()->setOperand(resultIndex, rescaled);
    }

    // The originals go.
    for (Operation *op : llvm::reverse(moved))
      op->erase();
    for (Operation *op : llvm::reverse(rescale))
      op->erase();

    peel(newLoop, made, read, resultIndex, issued, rebuild);
    return "";
  }

  /// Runs the first trip of `loop` before it, without the `moved` ops (no
  /// trip before it to multiply for), and the last trip's moved ops after
  /// it, all under a branch on the loop running at all:
  ///
  ///   if lb < ub: trip(lb) less moved; for lb + step ... ; moved
  ///   else:       the loop's initial values
  template <typename Rebuild>
  void peel(scf::ForOp loop, ArrayRef<Operation *> moved,
            ArrayRef<Value> inputs, unsigned resultIndex, Value issued,
            Rebuild &rebuild) {
    IRRewriter rewriter(loop);
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
    Value runs =
        arith::CmpIOp::create(rewriter, loc,
                              loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                              lb, ub);
    SmallVector<Value> inits(loop.getInitArgs());
    auto branch = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), runs,
                                    /*withElseRegion=*/true);
    loop->replaceAllUsesWith(branch.getResults());
    rewriter.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(rewriter, loc, inits);

    // The first trip, without the moved ops: the accumulator stays the
    // loop's initial one.
    rewriter.setInsertionPointToStart(branch.thenBlock());
    IRMapping map;
    map.map(loop.getInductionVar(), lb);
    map.map(loop.getRegionIterArgs(), inits);
    Block *body = loop.getBody();
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, map);
    // What the trip would have issued is the initial accumulator (as it
    // goes around, or rescaled at the trip's end).
    Value notIssued = map.lookup(issued);
    rewriter.replaceAllUsesWith(notIssued, inits[resultIndex]);
    SmallVector<Value> next;
    for (Value v : body->getTerminator()->getOperands()) {
      Value n = map.lookupOrDefault(v);
      next.push_back(n == notIssued ? inits[resultIndex] : n);
    }
    for (Operation *op : llvm::reverse(moved))
      rewriter.eraseOp(map.lookup(op));
    for (Value v : inputs) // the slots the moved multiply read
      if (Operation *def = v.getDefiningOp(); def && def->getBlock() == body)
        if (Operation *clone = map.lookupOrNull(def);
            clone && clone->use_empty())
          rewriter.eraseOp(clone);

    // The other trips, then the last one's moved ops.
    Value lb1 = arith::AddIOp::create(rewriter, loc, lb, loop.getStep());
    loop->moveBefore(branch.thenBlock(), branch.thenBlock()->end());
    loop.getLowerBoundMutable().assign(lb1);
    loop.getInitArgsMutable().assign(next);
    rewriter.setInsertionPointAfter(loop);
    SmallVector<Value> results(loop.getResults());
    results[resultIndex] = rebuild(rewriter, moved, inputs, ValueRange(results),
                                   results[resultIndex])
                               .first.back()
                               ->getResult(0);
    scf::YieldOp::create(rewriter, loc, results);
  }
};

} // namespace
