//===- RotateWgmma.cpp - A loop's last multiply issued in the next trip ---===//
//
// In-warpgroup overlap. A loop whose body multiplies twice, the second
// multiply accumulating into a value that goes around the loop (attention:
// S = Q K^T, softmax, O = P V + O * alpha), leaves the tensor cores idle
// while the work between the two runs: each trip waits for S before the
// softmax and for P V before the next trip's rescale. This pass issues the
// last multiply of trip j in trip j + 1, right after that trip's first
// multiply, and once more after the loop for the last trip:
//
//   before:                          after:
//   for j:                           if lb < ub:
//     s = mma(x, y_j, 0)               trip lb, without the moved multiply
//     ... t = f(s, o) ...              for j = lb + 1 .. (o, a', i', c'):
//     o' = mma(a_j, b_j, g(o, t))        s = mma(x, y_j, 0)
//     yield o'                           o2 = mma(a', ring[i'], c')
//                                        ... t = f(s, o2) ...  (o -> o2)
//                                        yield o, a_j, idx(b_j), g(o2, t)
//                                      o_end = mma(a', ring[i'], c')
//                                    else: the initial values
//
// so that, once tile-async-wgmma has placed the waits, the work between the
// multiplies (the softmax of trip j) runs while the tensor cores do trip j's
// S and trip j - 1's P V, FlashAttention-3's intra-warpgroup pipelining.
// What the moved multiply reads goes around the loop: its register
// operands as iteration arguments, a shared operand that is a slot of a
// ring filled in the loop as the slot's index (the slot keeps its data: the
// ring is refilled only after the moved multiply, see below), a value from
// outside the loop as it is. The first trip is peeled rather than the
// multiply predicated: an accumulator in flight must not meet another
// value at a control-flow join (ptxas would fence, i.e. wait for it, there).
//
// Refills. The pipeline refills in trip j the slot trip j - 1 read; the
// moved multiply now reads that slot in trip j, so a refill of its ring
// placed before the multiply moves right after it (tile-async-wgmma then
// moves it to the end of the trip, after the wait that completes the
// multiply). Rings filled by
// anything but TMA copies (cp.async groups, whose waits count copies in
// program order) are left alone: such a loop is not rotated.
//
// Opt-in (CodegenOptions::rotateWgmma, tilec --rotate-wgmma): measured
// slower than the unrotated loop at most tile shapes, because ptxas
// schedules the wait for the moved multiply above the softmax
// (docs/architecture.md, section 7.5.2).
//
// Conditions, else the loop is left as it is: the body has two or more
// multiplies at its top level; the last one's result reaches the yield only
// through register-renaming layout conversions and nothing else; every use
// of the iteration argument it feeds comes after the first multiply.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

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
};

struct RotateWgmmaPass
    : public mlir::tile::impl::TileRotateWgmmaBase<RotateWgmmaPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      rotate(loop);
  }

  /// Whether `ring` is written in `loop` only by TMA copies into its slots.
  static bool filledByTmaOnly(Value ring, scf::ForOp loop) {
    bool ok = true;
    loop.getBody()->walk([&](Operation *op) {
      Value buffer;
      if (isa<TmaLoadOp>(op))
        return;
      if (auto copy = dyn_cast<AsyncCopyOp>(op))
        buffer = copy.getBuffer();
      else if (auto init = dyn_cast<LocalAllocOp>(op))
        buffer = init.getResult();
      if (!buffer)
        return;
      if (auto slot = buffer.getDefiningOp<SmemSlotOp>())
        buffer = slot.getRing();
      if (buffer == ring)
        ok = false;
    });
    return ok;
  }

  /// How `v`, an operand of the moved multiply, reaches the next trip.
  static std::optional<CarriedOperand> carry(Value v, scf::ForOp loop) {
    if (!loop.getRegion().isAncestor(v.getParentRegion()))
      return CarriedOperand{CarriedOperand::Outside, v, {}};
    if (isa<BlockArgument>(v))
      return std::nullopt; // an accumulation chain: nothing to overlap
    if (isa<RankedTensorType>(v.getType()))
      return CarriedOperand{CarriedOperand::Register, v, {}};
    auto slot = v.getDefiningOp<SmemSlotOp>();
    if (!slot ||
        loop.getRegion().isAncestor(slot.getRing().getParentRegion()) ||
        !filledByTmaOnly(slot.getRing(), loop))
      return std::nullopt;
    return CarriedOperand{CarriedOperand::Slot, v, slot};
  }

  void rotate(scf::ForOp loop) {
    Block *body = loop.getBody();
    SmallVector<WarpgroupMmaOp> mmas;
    for (Operation &op : *body)
      if (auto mma = dyn_cast<WarpgroupMmaOp>(op))
        mmas.push_back(mma);
    if (mmas.size() < 2)
      return;
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
    if (!end.hasOneUse())
      return;
    OpOperand &yielded = *end.getUses().begin();
    if (yielded.getOwner() != body->getTerminator())
      return;
    unsigned resultIndex = yielded.getOperandNumber();
    for (Operation *user : loop.getRegionIterArgs()[resultIndex].getUsers()) {
      Operation *at = body->findAncestorOpInBlock(*user);
      if (!at || !first->isBeforeInBlock(at))
        return;
    }

    SmallVector<CarriedOperand> operands;
    for (Value v :
         SmallVector<Value, 3>{last.getA(), last.getB(), last.getAcc()}) {
      std::optional<CarriedOperand> c = carry(v, loop);
      if (!c)
        return;
      operands.push_back(*c);
    }

    // Initial values: any (the peeled first trip does not multiply).
    IRRewriter rewriter(loop);
    Location loc = last.getLoc();
    SmallVector<Value> inits;
    for (CarriedOperand &c : operands) {
      if (c.kind == CarriedOperand::Outside)
        continue;
      c.argIndex = loop.getInitArgs().size() + inits.size();
      if (c.kind == CarriedOperand::Register)
        inits.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getZeroAttr(c.value.getType())));
      else
        inits.push_back(arith::ConstantIntOp::create(rewriter, loc, 0, 32));
    }

    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          SmallVector<Value> yields;
          for (CarriedOperand &c : operands) {
            if (c.kind == CarriedOperand::Register)
              yields.push_back(c.value);
            else if (c.kind == CarriedOperand::Slot)
              yields.push_back(c.slot.getSlot());
          }
          return yields;
        }));
    body = newLoop.getBody();
    BlockArgument iterArg = newLoop.getRegionIterArgs()[resultIndex];
    SmallVector<Type> chainTypes;
    for (ConvertLayoutOp cvt : chain)
      chainTypes.push_back(cvt.getType());

    // The moved multiply, on what the previous trip left.
    auto rebuild = [&](OpBuilder &b, ValueRange carried) {
      SmallVector<Value> in;
      for (CarriedOperand &c : operands) {
        if (c.kind == CarriedOperand::Outside)
          in.push_back(c.value);
        else if (c.kind == CarriedOperand::Register)
          in.push_back(carried[c.argIndex]);
        else
          in.push_back(SmemSlotOp::create(
              b, loc, c.slot.getType(), c.slot.getRing(), carried[c.argIndex]));
      }
      auto mma = WarpgroupMmaOp::create(b, loc, in[0], in[1], in[2]);
      Value v = mma.getResult();
      for (Type t : chainTypes)
        v = ConvertLayoutOp::create(b, loc, t, v);
      return std::make_pair(mma, v);
    };
    SmallVector<Value> args(newLoop.getRegionIterArgs());
    rewriter.setInsertionPointAfter(first);
    auto [moved, movedValue] = rebuild(rewriter, args);
    iterArg.replaceAllUsesWith(movedValue);

    // Refills of the rings it reads, from before its new place: after it.
    Operation *after = moved;
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
             body->begin(), Block::iterator(moved.getOperation())))) {
      auto copy = dyn_cast<TmaLoadOp>(op);
      auto slot = copy ? copy.getBuffer().getDefiningOp<SmemSlotOp>() : nullptr;
      if (!slot || llvm::none_of(operands, [&](CarriedOperand &c) {
            return c.kind == CarriedOperand::Slot &&
                   c.slot.getRing() == slot.getRing();
          }))
        continue;
      op.moveAfter(after);
      after = &op;
    }

    // The old multiply goes; its iteration argument only goes around.
    body->getTerminator()->setOperand(resultIndex, iterArg);
    for (ConvertLayoutOp cvt : llvm::reverse(chain))
      cvt->erase();
    last->erase();

    peel(newLoop, moved, movedValue, resultIndex, rebuild);
  }

  /// Runs the first trip of `loop` before it, without `moved` (no trip
  /// before it to multiply for), and the last trip's moved multiply after
  /// it, all under a branch on the loop running at all:
  ///
  ///   if lb < ub: trip(lb) less moved; for lb + step ... ; moved
  ///   else:       the loop's initial values
  template <typename Rebuild>
  void peel(scf::ForOp loop, WarpgroupMmaOp moved, Value movedValue,
            unsigned resultIndex, Rebuild &rebuild) {
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

    // The first trip.
    rewriter.setInsertionPointToStart(branch.thenBlock());
    IRMapping map;
    map.map(loop.getInductionVar(), lb);
    map.map(loop.getRegionIterArgs(), inits);
    Block *body = loop.getBody();
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, map);
    // Its moved multiply has no trip before it: what it fed reads the
    // loop's initial accumulator instead.
    Value end = map.lookup(movedValue);
    rewriter.replaceAllUsesWith(end, inits[resultIndex]);
    Operation *skipped = map.lookup(moved.getResult()).getDefiningOp();
    for (Operation *op = end.getDefiningOp(); op != skipped;) {
      Operation *prev = op->getOperand(0).getDefiningOp();
      rewriter.eraseOp(op);
      op = prev;
    }
    rewriter.eraseOp(skipped);
    SmallVector<Value> next;
    for (Value v : body->getTerminator()->getOperands())
      next.push_back(map.lookupOrDefault(v));
    // The first trip's accumulator: the loop's, not the moved multiply's.
    next[resultIndex] = inits[resultIndex];

    // The other trips, then the last one's moved multiply.
    Value lb1 = arith::AddIOp::create(rewriter, loc, lb, loop.getStep());
    loop->moveBefore(branch.thenBlock(), branch.thenBlock()->end());
    loop.getLowerBoundMutable().assign(lb1);
    loop.getInitArgsMutable().assign(next);
    rewriter.setInsertionPointAfter(loop);
    SmallVector<Value> results(loop.getResults());
    results[resultIndex] = rebuild(rewriter, ValueRange(results)).second;
    scf::YieldOp::create(rewriter, loc, results);
  }
};

} // namespace
