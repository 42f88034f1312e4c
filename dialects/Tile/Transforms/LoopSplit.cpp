//===- LoopSplit.cpp - Split loops at a branch on the induction variable --===//
//
// An scf.for whose body compares its induction variable with a loop-invariant
// bound, and branches on the result (scf.if, arith.select), is split into two
// loops at the iteration where the comparison changes value:
//
//   scf.for %j = %lb to %ub step %st iter_args(%a = %init) {
//     %c = arith.cmpi sge, %j, %b
//     %r = scf.if %c { masked } else { plain }
//   }
//
// becomes
//
//   %s = <first iteration of the loop at or after %b, clamped to [%lb, %ub]>
//   %r1 = scf.for %j = %lb to %s step %st iter_args(%a = %init) { plain }
//   %r2 = scf.for %j = %s to %ub step %st iter_args(%a = %r1) { masked }
//
// The comparison is replaced by its constant in each copy of the body, and the
// canonicalization patterns of scf.if, arith.select and the i1 logic ops fold
// the branches away.
//
//===----------------------------------------------------------------------===//

#include "MaskAnalysis.h"

#include "Tile/IR/Locations.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOOPSPLIT
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Every split duplicates a loop body, and splitting loops nested in split
/// loops multiplies the copies; this bounds the splits made in one function.
constexpr unsigned kMaxSplitsPerFunction = 32;

/// How deep conditions are followed through arith.andi/ori/xori, and how deep
/// the non-negativity of a value is looked for through its definition.
constexpr unsigned kMaxDepth = 8;

/// Where a comparison of the induction variable with a bound `b` changes
/// value. With the induction variable on the left (`iv PRED b`):
///   sge, slt (uge, ult): at b
///   sgt, sle (ugt, ule): at b + 1
/// Comparisons with the same key change value at the same iteration, so one
/// split removes all of them.
struct SplitKey {
  Value bound;
  bool isUnsigned;
  bool plusOne;
  bool operator==(const SplitKey &o) const {
    return bound == o.bound && isUnsigned == o.isUnsigned &&
           plusOne == o.plusOne;
  }
};

/// A comparison of the induction variable with a loop-invariant bound.
struct IVComparison {
  arith::CmpIOp op;
  SplitKey key;
  /// The comparison's value on the iterations before the split point (it
  /// has the other one from the split point on).
  bool valueBefore;
};

/// The predicate `q` such that `a PRED b` == `b q a`.
arith::CmpIPredicate swapOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
  case P::ne:
    return pred;
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  }
  llvm_unreachable("unknown cmpi predicate");
}

/// Whether `cond` decides a branch: it is the condition of an scf.if or of
/// an arith.select, directly or combined with other conditions through
/// arith.andi, arith.ori or arith.xori (`not`).
bool decidesBranch(Value cond, unsigned depth = 0) {
  for (OpOperand &use : cond.getUses()) {
    Operation *user = use.getOwner();
    if (isa<scf::IfOp>(user))
      return true;
    if (isa<arith::SelectOp>(user) && use.getOperandNumber() == 0)
      return true;
    if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(user) &&
        depth < kMaxDepth && decidesBranch(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// Matches `cmp` as a comparison of `loop`'s induction variable with a bound
/// defined outside the loop, whose value is constant on either side of a
/// split point.
std::optional<IVComparison> matchIVComparison(arith::CmpIOp cmp,
                                              scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  arith::CmpIPredicate pred = cmp.getPredicate();
  if (rhs == iv && lhs != iv) {
    std::swap(lhs, rhs);
    pred = swapOperands(pred);
  }
  if (lhs != iv || rhs == iv || !loop.isDefinedOutsideOfLoop(rhs))
    return std::nullopt;

  using P = arith::CmpIPredicate;
  bool isUnsigned = false, plusOne = false, valueBefore = false;
  switch (pred) {
  case P::eq:
  case P::ne:
    return std::nullopt;
  case P::uge:
    isUnsigned = true;
    [[fallthrough]];
  case P::sge: // false on [lb, b), true on [b, ub)
    break;
  case P::ugt:
    isUnsigned = true;
    [[fallthrough]];
  case P::sgt: // iv >= b + 1
    plusOne = true;
    break;
  case P::ult:
    isUnsigned = true;
    [[fallthrough]];
  case P::slt: // true on [lb, b), false on [b, ub)
    valueBefore = true;
    break;
  case P::ule:
    isUnsigned = true;
    [[fallthrough]];
  case P::sle: // iv < b + 1
    plusOne = true;
    valueBefore = true;
    break;
  }
  // Unsigned and signed order agree on the iterations only when none is
  // negative; the bound itself may be anything (see computeSplitPoint).
  if (isUnsigned && !isKnownNonNegative(loop.getLowerBound()))
    return std::nullopt;
  return IVComparison{cmp, SplitKey{rhs, isUnsigned, plusOne}, valueBefore};
}

/// The number of operations in `loop`'s body, nested ones included.
unsigned countBodyOps(scf::ForOp loop) {
  unsigned n = 0;
  loop.getBody()->walk([&](Operation *) { ++n; });
  return n;
}

/// Collects, in `loop`'s body, a comparison of the induction variable that
/// decides a branch, and every comparison with the same split point. Returns
/// false when there is none.
bool findSplit(scf::ForOp loop, SmallVectorImpl<IVComparison> &cmps) {
  std::optional<SplitKey> key;
  loop.getBody()->walk([&](arith::CmpIOp cmp) {
    if (auto m = matchIVComparison(cmp, loop); m && decidesBranch(cmp)) {
      key = m->key;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!key)
    return false;
  loop.getBody()->walk([&](arith::CmpIOp cmp) {
    if (auto m = matchIVComparison(cmp, loop); m && m->key == *key)
      cmps.push_back(*m);
  });
  return true;
}

/// Records the operations a builder inserts.
struct InsertedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

/// Emits, before `loop`, the first iteration at which the comparisons of
/// `key` take their second value: the smallest `lb + k * step` (k >= 0) at or
/// after the bound's split point, clamped to [lb, ub]. Either loop may thus
/// run zero times.
///
/// For `iv < b` the split point is b. For `iv <= b` it is b + 1, computed as
/// `b < ub ? b + 1 : ub`, which cannot overflow (a split point past ub is as
/// good as ub), or folded when b is a constant.
///
/// Unsigned comparisons are only matched when lb >= 0, so that all iterations
/// are non-negative: a bound that is negative as a signed value is then above
/// all of them, and the unsigned `minui(b, ub)` and `b <u ub` give ub for it.
///
/// Like the loop itself, the alignment assumes that `ub - lb` and the
/// iteration after the last one (`last + step`) do not overflow.
Value computeSplitPoint(OpBuilder &b, scf::ForOp loop, const SplitKey &key) {
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value step = loop.getStep(), bound = key.bound;
  Type type = lb.getType();
  Value split;
  bool plusOne = key.plusOne;
  APInt c;
  if (plusOne && matchPattern(bound, m_ConstantInt(&c))) {
    // A constant bound: b + 1 is a constant, unless b is the largest value,
    // which `iv <= b` always and `iv > b` never exceeds.
    if (key.isUnsigned ? c.isMaxValue() : c.isMaxSignedValue())
      return ub;
    bound = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, c + 1));
    plusOne = false;
  }
  if (plusOne) {
    Value below = b.createOrFold<arith::CmpIOp>(
        loc,
        key.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
        bound, ub);
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
    Value next = b.createOrFold<arith::AddIOp>(loc, bound, one);
    split = b.createOrFold<arith::SelectOp>(loc, below, next, ub);
  } else if (key.isUnsigned) {
    split = b.createOrFold<arith::MinUIOp>(loc, bound, ub);
  } else {
    split = b.createOrFold<arith::MinSIOp>(loc, bound, ub);
  }
  split = b.createOrFold<arith::MaxSIOp>(loc, lb, split);
  if (isConstantIntValue(step, 1))
    return split;
  // lb + ceildiv(split - lb, step) * step, at most ub.
  Value dist = b.createOrFold<arith::SubIOp>(loc, split, lb);
  Value trips = b.createOrFold<arith::CeilDivSIOp>(loc, dist, step);
  Value aligned = b.createOrFold<arith::AddIOp>(
      loc, lb, b.createOrFold<arith::MulIOp>(loc, trips, step));
  return b.createOrFold<arith::MinSIOp>(loc, aligned, ub);
}

/// Whether `a` and `b` are the same value or equal constants.
bool sameValue(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = getConstantIntValue(a);
  std::optional<int64_t> cb = getConstantIntValue(b);
  return ca && cb && *ca == *cb;
}

struct LoopSplitPass
    : public mlir::tile::impl::TileLoopSplitBase<LoopSplitPass> {
  using TileLoopSplitBase::TileLoopSplitBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet patterns(context);
    scf::IfOp::getCanonicalizationPatterns(patterns, context);
    arith::SelectOp::getCanonicalizationPatterns(patterns, context);
    arith::AndIOp::getCanonicalizationPatterns(patterns, context);
    arith::OrIOp::getCanonicalizationPatterns(patterns, context);
    arith::XOrIOp::getCanonicalizationPatterns(patterns, context);
    foldPatterns = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    if (getOperation().isExternal())
      return;
    // Whether a loop branches on its induction variable (where the kernel
    // asked for splits: else that is said), and the loops too large to
    // split, said once each.
    bool found = false;
    llvm::SmallPtrSet<Operation *, 4> tooLarge;
    for (unsigned splits = 0; splits < kMaxSplitsPerFunction;) {
      // Outer loops first; the walk is redone after every change, since a
      // split replaces the loop and everything nested in it.
      scf::ForOp loop;
      SmallVector<IVComparison> cmps;
      getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp op) {
        if (!canSplit(op) || !findSplit(op, cmps))
          return WalkResult::advance();
        found = true;
        if (unsigned ops = countBodyOps(op); ops > maxOps) {
          if (warn && tooLarge.insert(op).second)
            emitWarning(getUserFacingLoc(op))
                << "loop_split does not apply to this loop: its body has "
                << ops << " ops, more than the " << unsigned(maxOps)
                << " a split copies";
          return WalkResult::advance();
        }
        loop = op;
        return WalkResult::interrupt();
      });
      if (!loop)
        break;
      if (split(loop, cmps))
        ++splits;
    }
    if (warn && !found)
      emitWarning(getUserFacingLoc(getOperation()))
          << "loop_split does not apply to this kernel: no loop branches on "
             "a comparison of its induction variable with a bound fixed for "
             "the loop (as a causal mask's)";
  }

private:
  bool canSplit(scf::ForOp loop) {
    // The loop's schedule, else the kernel's option.
    if (!LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getLoopSplit, enabled))
      return false;
    // The order of the iterations is unsigned there; not handled.
    return !loop.getUnsignedCmp();
  }

  /// Splits `loop` at the point where `cmps` change value, or, where that
  /// point is statically the loop's lower or upper bound, replaces them in
  /// place. Returns whether the loop was split in two.
  bool split(scf::ForOp loop, ArrayRef<IVComparison> cmps) {
    InsertedOps inserted;
    OpBuilder b(loop);
    b.setListener(&inserted);
    Value point = computeSplitPoint(b, loop, cmps.front().key);
    b.setListener(nullptr);

    std::optional<bool> whole;
    if (sameValue(point, loop.getLowerBound()))
      whole = false; // every iteration is at or after the split point
    else if (sameValue(point, loop.getUpperBound()))
      whole = true; // every iteration is before it

    // The values of the comparisons, before the loop(s): out of the reach of
    // the folding of the loop bodies, so that they can be erased when unused.
    Value falseValue = arith::ConstantOp::create(
        b, loop.getLoc(), b.getIntegerAttr(b.getI1Type(), 0));
    Value trueValue = arith::ConstantOp::create(
        b, loop.getLoc(), b.getIntegerAttr(b.getI1Type(), 1));
    scf::ForOp first, second;
    IRMapping firstMap, secondMap;
    if (!whole) {
      first = cast<scf::ForOp>(b.clone(*loop, firstMap));
      first.setUpperBound(point);
      second = cast<scf::ForOp>(b.clone(*loop, secondMap));
      second.setLowerBound(point);
      second.getInitArgsMutable().assign(first.getResults());
      completeBetween(loop, first, second);
      loop.replaceAllUsesWith(second.getResults());
    }
    // Drop what computing the split point left unused: constants of a
    // folded computation, or all of it when the loop is not split.
    for (Operation *op : llvm::reverse(inserted.ops))
      if (isOpTriviallyDead(op))
        op->erase();

    auto replace = [&](IRMapping &map, bool before) {
      for (IVComparison c : cmps) {
        Value copy = map.lookupOrDefault(c.op.getResult());
        copy.replaceAllUsesWith(before == c.valueBefore ? trueValue
                                                        : falseValue);
        copy.getDefiningOp()->erase();
      }
    };
    if (whole) {
      IRMapping same;
      replace(same, *whole);
      fold(loop);
    } else {
      replace(firstMap, /*before=*/true);
      replace(secondMap, /*before=*/false);
      loop.erase();
      fold(first);
      fold(second);
    }
    for (Value v : {falseValue, trueValue})
      if (v.use_empty())
        v.getDefiningOp()->erase();
    return !whole;
  }

  /// Where `loop`'s results are multiplies in flight, completed by the
  /// `tile.wgmma_wait`s right after it, the same waits complete `first`'s
  /// before `second` starts from them: an accumulator in flight into the
  /// second loop passes the joins of its entry (and of the first's, which
  /// may run no trip, where its initial zeros meet it), and ptxas then
  /// serializes every wgmma of the kernel (C7512: attention backward's dK
  /// and dV, split at the causal diagonal). One trip's overlap is lost, once.
  void completeBetween(scf::ForOp loop, scf::ForOp first, scf::ForOp second) {
    IRMapping map;
    map.map(loop.getResults(), first.getResults());
    OpBuilder b(second);
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
      auto wait = dyn_cast<WgmmaWaitOp>(op);
      if (!wait || wait.getValues().empty() ||
          !llvm::all_of(wait.getValues(), [&](Value v) {
            return v.getDefiningOp() == loop.getOperation();
          }))
        break;
      auto done = cast<WgmmaWaitOp>(b.clone(*wait, map));
      for (auto [v, r] : llvm::zip(wait.getValues(), done.getResults()))
        second.getInitArgsMutable()[cast<OpResult>(v).getResultNumber()].set(r);
    }
  }

  /// Folds the branches on constants in `loop`'s body.
  void fold(scf::ForOp loop) {
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(loop.getRegion(), foldPatterns, config);
  }

  FrozenRewritePatternSet foldPatterns;
};

} // namespace
