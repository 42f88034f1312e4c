//===- DeferLoopReductions.cpp - Loop reductions combined across threads --===//
//
// A loop that accumulates a sum along an axis of a tile, trip by trip,
//
//   l = 0
//   for ...:
//     l = l * alpha + sum(x, axis)      (or l + sum(x, axis))
//
// (the online softmax's row sum, a looped row reduction; or an extreme,
// m = max(m, max(x, axis)), a looped amax), combines each
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
// the sum of the scaled partials is the scaled sum (an extreme's partials
// start at the value's start and combine as it did). A trip then has no
// shuffle, no barrier and no shared memory for the sum: in a multiply's
// layout split along the axis between warpgroups (MLA decode's 32-column
// score halves), one barrier a trip fewer.
//
// A loop's value qualifies when its only use in the body is that update
// (the multiply by alpha, or the combination: the add, maxnum or minnum,
// signed integer max or min, the reduction's own), the update's only use
// is the yield, a sum starts at zero (an extreme's partials each start at
// the value's start), and the reduction is along an axis whose
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

/// A loop value's update `combine(arg * alpha, reduce)` (alpha null:
/// `combine(arg, reduce)`; a scale only for a sum) yielded at `index`.
struct Accumulation {
  unsigned index;
  ReduceOp reduce;
  Operation *scale; // arith.mulf of arg and alpha, or null
  Value alpha;
  Operation *combine;
  int64_t kept;
};

/// The reduction kind whose lowering combines as `op` does (ReducePatterns'
/// combine: a float sum, the maxnum/minnum of floats, signed integer
/// extremes, unsigned for i1), so that regrouping the combinations keeps
/// the result.
std::optional<ReduceKind> combineKind(Operation *op) {
  Type elt = getElementTypeOrSelf(op->getResult(0).getType());
  bool i1 = elt.isInteger(1);
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return ReduceKind::Sum;
  if (isa<arith::MaxNumFOp>(op) || (isa<arith::MaxSIOp>(op) && !i1) ||
      (isa<arith::MaxUIOp>(op) && i1))
    return ReduceKind::Max;
  if (isa<arith::MinNumFOp>(op) || (isa<arith::MinSIOp>(op) && !i1) ||
      (isa<arith::MinUIOp>(op) && i1))
    return ReduceKind::Min;
  return std::nullopt;
}

/// The lane and warp bits of `reduce`'s axis in its source's layout, where
/// deferring their combination applies (0 where it does not).
int64_t keptBits(ReduceOp reduce) {
  if (reduce.getKind() == ReduceKind::Prod || reduce.getKeptBits())
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

/// Whether `v` is a tile in a distributed layout (laid out by
/// tile-assign-layouts; IR without layouts is left alone).
bool isLaidOutTile(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getEncoding() && isDistributedLayout(type.getEncoding());
}

std::optional<Accumulation> matchAccumulation(scf::ForOp loop, unsigned index) {
  BlockArgument arg = loop.getRegionIterArg(index);
  if (!isLaidOutTile(arg))
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Operation *combine = yield.getOperand(index).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 ||
      combine->getBlock() != loop.getBody() || !combine->hasOneUse())
    return std::nullopt;
  std::optional<ReduceKind> kind = combineKind(combine);
  // A sum's partials start at zero (each would count a start of its own);
  // an extreme's may all start at the value's start.
  if (!kind || (*kind == ReduceKind::Sum &&
                !matchPattern(loop.getInitArgs()[index], m_PosZeroFloat()) &&
                !matchPattern(loop.getInitArgs()[index], m_Zero())))
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto reduce = combine->getOperand(side).getDefiningOp<ReduceOp>();
    Value other = combine->getOperand(1 - side);
    if (!reduce || !reduce->hasOneUse() || reduce.getKind() != *kind ||
        !isLaidOutTile(reduce) || !isLaidOutTile(reduce.getSource()))
      continue;
    int64_t kept = keptBits(reduce);
    if (kept == 0)
      continue;
    Accumulation acc{index, reduce, nullptr, Value(), combine, kept};
    if (other == arg) {
      if (!arg.hasOneUse())
        return std::nullopt;
      return acc;
    }
    auto scale = other.getDefiningOp<arith::MulFOp>();
    if (*kind != ReduceKind::Sum || !scale || !scale->hasOneUse() ||
        !arg.hasOneUse() || scale->getBlock() != loop.getBody())
      return std::nullopt;
    if (scale.getLhs() == arg)
      acc.alpha = scale.getRhs();
    else if (scale.getRhs() == arg)
      acc.alpha = scale.getLhs();
    else
      return std::nullopt;
    if (!isLaidOutTile(acc.alpha))
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

/// `value` (the loop value's type: extent 1 along `axis`, or without it)
/// repeated along the partials of `type`.
Value broadcastToPartials(OpBuilder &b, Location loc, Value value,
                          RankedTensorType type, unsigned axis, bool keepdims) {
  RankedTensorType unit = unitAlong(type, axis);
  if (!keepdims)
    value = ExpandDimsOp::create(b, loc, unit, value, axis);
  else if (!sameLayout(cast<RankedTensorType>(value.getType()), unit))
    value = ConvertLayoutOp::create(b, loc, unit, value);
  return BroadcastOp::create(b, loc, type, value);
}

scf::ForOp defer(scf::ForOp loop, const Accumulation &acc) {
  ReduceOp reduce = acc.reduce;
  unsigned axis = reduce.getAxis();
  bool keepdims = reduce.getKeepdims();
  RankedTensorType type = partialType(reduce, acc.kept);
  Location loc = reduce.getLoc();

  // The partials start at zero (a sum), or each at the value's start.
  IRRewriter b(loop);
  Value start = loop.getInitArgs()[acc.index];
  Value init;
  Attribute attr;
  if (matchPattern(start, m_Constant(&attr)) && isa<SplatElementsAttr>(attr))
    init = arith::ConstantOp::create(
        b, loop.getLoc(), type,
        DenseElementsAttr::get(
            type, cast<SplatElementsAttr>(attr).getSplatValue<Attribute>()));
  else
    init = broadcastToPartials(b, loop.getLoc(), start, type, axis, keepdims);

  auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      b, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &inner, Location, ArrayRef<BlockArgument> args) {
        inner.setInsertionPoint(acc.combine);
        Value partial = ReduceOp::create(
            inner, loc, type, reduce.getKind(), reduce.getSource(), axis,
            /*keepdims=*/true, inner.getI64IntegerAttr(acc.kept));
        Value carried = args.front();
        if (acc.alpha) {
          Value alpha =
              broadcastToPartials(inner, loc, acc.alpha, type, axis, keepdims);
          auto mul = cast<arith::MulFOp>(acc.scale);
          carried = arith::MulFOp::create(inner, loc, carried, alpha,
                                          mul.getFastmathAttr());
        }
        // The same combination (and flags), on the partials.
        Operation *next = inner.clone(*acc.combine);
        next->setOperands({carried, partial});
        next->getResult(0).setType(type);
        return SmallVector<Value>{next->getResult(0)};
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

  // The old value goes around unchanged (canonicalization drops it); its
  // update goes (the body's ops moved into the grown loop as they were).
  auto yield = cast<scf::YieldOp>(grown.getBody()->getTerminator());
  yield.setOperand(at, grown.getRegionIterArg(at));
  acc.combine->erase();
  if (acc.scale)
    acc.scale->erase();
  acc.reduce->erase();
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
