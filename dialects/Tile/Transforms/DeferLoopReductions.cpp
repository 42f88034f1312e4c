//===- DeferLoopReductions.cpp - Loop sums combined across threads once ---===//
//
// A loop that accumulates a sum along an axis of a tile, trip by trip,
//
//   l = 0
//   for ...:
//     l = l * alpha + sum(x, axis)      (or l + sum(x, axis))
//
// (the online softmax's row sum, a looped row reduction), combines each
// trip's sum across the lanes (shuffles) and warps (shared memory and a
// barrier) that its layout spreads the axis over, though nothing in the
// loop reads `l` but the next trip's update. Here the loop carries the
// partial sums instead, one per thread position along the axis (tile.reduce
// with the lanes' and warps' bits of the axis kept, `kept_bits`: combined
// within each thread only), and combines them across threads once, after
// the loop:
//
//   p = 0                                     (K values along the axis)
//   for ...:
//     p = p * broadcast(alpha) + reduce_kept(x, axis)
//   l = sum(p, axis)
//
// alpha, whose extent along the axis is 1, scales every partial alike, so
// the sum of the scaled partials is the scaled sum. A trip then has no
// shuffle, no barrier and no shared memory for the sum: in a multiply's
// layout split along the axis between warpgroups (MLA decode's 32-column
// score halves), one barrier a trip fewer.
//
// A loop's value qualifies when it starts at zero, its only use in the
// body is that update (the multiply by alpha, or the add), the update's
// only use is the yield, and the reduction is a sum along an axis whose
// extent is a power of two, in a distributed layout whose lanes or warps
// hold parts of the axis and whose blocks (a cluster's) do not, each lane
// or warp step along the axis a step of one dimension. The partials take
// the layout of the source with the axis' register bits dropped: a thread
// carries as many values as the sum it replaces.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEFERLOOPREDUCTIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A loop value's update `arg * alpha + reduce` (alpha null: `arg +
/// reduce`) yielded at `index`.
struct Accumulation {
  unsigned index;
  ReduceOp reduce;
  Operation *scale; // arith.mulf of arg and alpha, or null
  Value alpha;
  Operation *add;
  int64_t kept;
};

bool isZeroSplat(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  if (auto f = dyn_cast<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().isPosZero();
  if (isa<IntegerType>(splat.getElementType()))
    return splat.getSplatValue<APInt>().isZero();
  return false;
}

/// The lane and warp bits of `reduce`'s axis in its source's layout, where
/// deferring their combination applies (0 where it does not).
int64_t keptBits(ReduceOp reduce) {
  if (reduce.getKind() != ReduceKind::Sum || reduce.getKeptBits())
    return 0;
  auto type = reduce.getSource().getType();
  unsigned axis = reduce.getAxis();
  int64_t extent = type.getDimSize(axis);
  if (!llvm::isPowerOf2_64(extent) || !isDistributedLayout(type.getEncoding()))
    return 0;
  LinearLayout src = toLinearLayout(type.getEncoding(), type.getShape());
  int64_t kept = 0, regBits = 0;
  for (const LinearLayout::Basis &b : src.regs())
    regBits |= b[axis];
  for (StringRef dim : src.getInDimNames()) {
    if (dim == LinearLayout::kRegister)
      continue;
    for (const LinearLayout::Basis &b : src.getBases(dim)) {
      if (b[axis] == 0)
        continue;
      // A block's part (a cluster's) stays whole; a step along the axis
      // and another dimension at once is left to the reduction as it is.
      if (dim == LinearLayout::kBlock)
        return 0;
      for (unsigned d = 0; d < b.size(); ++d)
        if (d != axis && b[d] != 0)
          return 0;
      kept |= b[axis];
    }
  }
  // (Bits a register and a thread both step: replicated, or mixed.)
  if (kept & regBits)
    return 0;
  return kept;
}

std::optional<Accumulation> matchAccumulation(scf::ForOp loop, unsigned index) {
  BlockArgument arg = loop.getRegionIterArg(index);
  Value init = loop.getInitArgs()[index];
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Operation *add = yield.getOperand(index).getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add) ||
      add->getBlock() != loop.getBody() || !add->hasOneUse() ||
      !isZeroSplat(init))
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto reduce = add->getOperand(side).getDefiningOp<ReduceOp>();
    Value other = add->getOperand(1 - side);
    if (!reduce || !reduce->hasOneUse())
      continue;
    int64_t kept = keptBits(reduce);
    if (kept == 0)
      continue;
    Accumulation acc{index, reduce, nullptr, Value(), add, kept};
    if (other == arg) {
      if (!arg.hasOneUse())
        return std::nullopt;
      return acc;
    }
    auto scale = other.getDefiningOp<arith::MulFOp>();
    if (!scale || !scale->hasOneUse() || !arg.hasOneUse() ||
        scale->getBlock() != loop.getBody())
      return std::nullopt;
    if (scale.getLhs() == arg)
      acc.alpha = scale.getRhs();
    else if (scale.getRhs() == arg)
      acc.alpha = scale.getLhs();
    else
      return std::nullopt;
    acc.scale = scale;
    return acc;
  }
  return std::nullopt;
}

/// The partials' type: `reduce`'s source with the axis packed to the kept
/// bits, in the source's layout with the axis' register bits dropped.
RankedTensorType partialType(ReduceOp reduce, int64_t kept) {
  auto src = reduce.getSource().getType();
  unsigned axis = reduce.getAxis();
  LinearLayout layout =
      toLinearLayout(src.getEncoding(), src.getShape()).keepBits(axis, kept);
  SmallVector<int64_t> shape(src.getShape());
  shape[axis] = int64_t(1) << llvm::popcount(uint64_t(kept));
  return RankedTensorType::get(
      shape, src.getElementType(),
      LinearLayoutAttr::get(reduce.getContext(), layout));
}

/// Whether two tile types hold their elements alike (their layouts' linear
/// forms are equal).
bool sameLayout(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() &&
         a.getElementType() == b.getElementType() &&
         toLinearLayout(a.getEncoding(), a.getShape()) ==
             toLinearLayout(b.getEncoding(), b.getShape());
}

/// `type` with extent 1 along `axis`, in its layout with the axis dropped.
RankedTensorType unitAlong(RankedTensorType type, unsigned axis) {
  LinearLayout layout =
      toLinearLayout(type.getEncoding(), type.getShape()).keepBits(axis, 0);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = 1;
  return RankedTensorType::get(
      shape, type.getElementType(),
      LinearLayoutAttr::get(type.getContext(), layout));
}

scf::ForOp defer(scf::ForOp loop, const Accumulation &acc) {
  ReduceOp reduce = acc.reduce;
  unsigned axis = reduce.getAxis();
  bool keepdims = reduce.getKeepdims();
  RankedTensorType type = partialType(reduce, acc.kept);
  Location loc = reduce.getLoc();

  // The partials start at zero.
  IRRewriter b(loop);
  Attribute zero = b.getZeroAttr(type.getElementType());
  Value init = arith::ConstantOp::create(b, loop.getLoc(), type,
                                         DenseElementsAttr::get(type, zero));

  auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      b, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &inner, Location, ArrayRef<BlockArgument> args) {
        inner.setInsertionPoint(acc.add);
        Value partial = ReduceOp::create(
            inner, loc, type, reduce.getKind(), reduce.getSource(), axis,
            /*keepdims=*/true, inner.getI64IntegerAttr(acc.kept));
        Value carried = args.front();
        if (acc.alpha) {
          Value alpha = acc.alpha;
          if (!keepdims)
            alpha = ExpandDimsOp::create(inner, loc, unitAlong(type, axis),
                                         alpha, axis);
          else if (!sameLayout(cast<RankedTensorType>(alpha.getType()),
                               unitAlong(type, axis)))
            alpha = ConvertLayoutOp::create(inner, loc, unitAlong(type, axis),
                                            alpha);
          alpha = BroadcastOp::create(inner, loc, type, alpha);
          auto mul = cast<arith::MulFOp>(acc.scale);
          carried = arith::MulFOp::create(inner, loc, carried, alpha,
                                          mul.getFastmathAttr());
        }
        Value sum;
        if (auto f = dyn_cast<arith::AddFOp>(acc.add))
          sum = arith::AddFOp::create(inner, loc, carried, partial,
                                      f.getFastmathAttr());
        else
          sum = arith::AddIOp::create(inner, loc, carried, partial);
        return SmallVector<Value>{sum};
      }));

  // After the loop: the partials combined, in the layout the value had.
  unsigned at = acc.index;
  Value old = grown.getResult(at);
  auto oldType = cast<RankedTensorType>(old.getType());
  b.setInsertionPointAfter(grown);
  RankedTensorType unit = unitAlong(type, axis);
  if (keepdims && sameLayout(unit, oldType))
    unit = oldType;
  Value total = ReduceOp::create(b, loc, unit, reduce.getKind(),
                                 grown.getResults().back(), axis,
                                 /*keepdims=*/true, /*kept_bits=*/nullptr);
  if (!keepdims)
    total = ReshapeOp::create(b, loc, oldType, total);
  else if (unit != oldType)
    total = ConvertLayoutOp::create(b, loc, oldType, total);
  old.replaceAllUsesWith(total);

  // The old value goes around unchanged (canonicalization drops it).
  auto yield = cast<scf::YieldOp>(grown.getBody()->getTerminator());
  Operation *add = yield.getOperand(at).getDefiningOp();
  Operation *scale = nullptr;
  for (Value v : add->getOperands())
    if (Operation *def = v.getDefiningOp();
        def && isa<arith::MulFOp>(def) && def->getBlock() == grown.getBody())
      scale = def;
  Operation *oldReduce = nullptr;
  for (Value v : add->getOperands())
    if (auto r = v.getDefiningOp<ReduceOp>())
      oldReduce = r;
  yield.setOperand(at, grown.getRegionIterArg(at));
  add->erase();
  if (scale && scale->use_empty())
    scale->erase();
  if (oldReduce && oldReduce->use_empty())
    oldReduce->erase();
  return grown;
}

struct TileDeferLoopReductions
    : tile::impl::TileDeferLoopReductionsBase<TileDeferLoopReductions> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // One value at a time: each replaces the loop.
      for (bool changed = true; changed;) {
        changed = false;
        for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
          std::optional<Accumulation> acc = matchAccumulation(loop, i);
          if (!acc)
            continue;
          loop = defer(loop, *acc);
          changed = true;
          break;
        }
      }
    }
  }
};

} // namespace
