//===- RemoveLayoutConversions.cpp - Drop conversions not needed ----------===//

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A splat (of a constant or of a scalar) or an arange: made in any layout
/// at no cost.
bool isRemadeFree(Value v) {
  return v.getDefiningOp<ArangeOp>() || isUniformTile(v);
}

/// A splat or an arange costs nothing to re-create in any layout.
struct ConvertOfSplat : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *src = op.getSource().getDefiningOp();
    if (isa_and_present<ArangeOp>(src)) {
      rewriter.replaceOpWithNewOp<ArangeOp>(op, op.getType());
      return success();
    }
    if (auto full = dyn_cast_if_present<FullOp>(src)) {
      rewriter.replaceOpWithNewOp<FullOp>(op, op.getType(), full.getValue());
      return success();
    }
    auto cst = dyn_cast_if_present<arith::ConstantOp>(src);
    if (!cst)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op,
        SplatElementsAttr::get(op.getType(), splat.getSplatValue<Attribute>()));
    return success();
  }
};

/// Whether a load converted as its only use may be made in the conversion's
/// layout instead: not in a loop (other than a persistent kernel's tile
/// loop), where the conversion's load becomes a ring copy issued trips ahead
/// (tile-stage-converted-loads, tile-pipeline) and a load in registers would
/// wait every trip.
bool outsidePipelinedLoops(LoadOp load) {
  auto loop = load->getParentOfType<scf::ForOp>();
  return !loop || loop->hasAttr(TileDialect::getTileLoopAttrName());
}

/// A load of at most one element per thread converted as its only use (a
/// scale or bias row on its way to an accumulator's layout) is made in the
/// conversion's layout: each thread loads the elements it holds (from L1,
/// where threads share them), rather than the tile going through shared
/// memory and a barrier. Coalescing buys such a load nothing. Not in a loop
/// (outsidePipelinedLoops).
struct LoadInConvertedLayout : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto load = op.getSource().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || load.getBoxes() ||
        !isa_and_present<BlockedLayoutAttr, MmaLayoutAttr, SliceLayoutAttr>(
            op.getType().getEncoding()))
      return failure();
    if (!outsidePipelinedLoops(load))
      return failure();
    auto func = op->getParentOfType<func::FuncOp>();
    auto warps = func ? func->getAttrOfType<IntegerAttr>(
                            TileDialect::getNumWarpsAttrName())
                      : IntegerAttr();
    if (!warps || op.getType().getNumElements() > 32 * warps.getInt())
      return failure();
    rewriter.setInsertionPoint(load);
    Operation *made = rewriter.clone(*load);
    made->getResult(0).setType(op.getType());
    rewriter.replaceOp(op, made->getResult(0));
    rewriter.eraseOp(load);
    return success();
  }
};

/// A vector loaded to be broadcast across a tile's other dimension (a
/// norm's weights, a bias row of a multi-row tile), cast and given a unit
/// dimension, then converted to the tile's blocked layout:
///   convert_layout(reshape(extf(load)))     (N) -> (1, N), to L
/// is loaded in the slice of L that drops the unit dimension instead, so
/// that the reshape moves nothing: each thread loads the elements it holds
/// (threads along the unit dimension load the same ones, from L1), rather
/// than the vector going through shared memory and a barrier every block.
/// Not in a loop (outsidePipelinedLoops).
struct VectorLoadInBroadcastLayout : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto target =
        dyn_cast_if_present<BlockedLayoutAttr>(op.getType().getEncoding());
    auto reshape = op.getSource().getDefiningOp<ReshapeOp>();
    if (!target || !reshape || !reshape->hasOneUse())
      return failure();
    // The unit dimension the reshape adds.
    ArrayRef<int64_t> from = reshape.getSource().getType().getShape();
    ArrayRef<int64_t> to = reshape.getType().getShape();
    if (to.size() != from.size() + 1)
      return failure();
    std::optional<unsigned> unit;
    for (unsigned d = 0; d < to.size() && !unit; ++d)
      if (to[d] == 1 && to.take_front(d) == from.take_front(d) &&
          to.drop_front(d + 1) == from.drop_front(d))
        unit = d;
    if (!unit)
      return failure();
    // Casts between the load and the reshape, each its operand's only use.
    SmallVector<Operation *> casts;
    Value v = reshape.getSource();
    for (Operation *def = v.getDefiningOp();
         def && isa<CastOpInterface>(def) && def->getNumOperands() == 1 &&
         def->getNumResults() == 1 && def->hasOneUse();
         def = v.getDefiningOp()) {
      casts.push_back(def);
      v = def->getOperand(0);
    }
    auto load = v.getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || load.getBoxes() ||
        !outsidePipelinedLoops(load))
      return failure();
    Attribute slice = SliceLayoutAttr::get(op.getContext(), *unit, target);
    auto retype = [&](Operation *def) {
      rewriter.modifyOpInPlace(def, [&] {
        auto t = cast<RankedTensorType>(def->getResult(0).getType());
        def->getResult(0).setType(
            RankedTensorType::get(t.getShape(), t.getElementType(), slice));
      });
    };
    retype(load);
    for (Operation *def : casts)
      retype(def);
    rewriter.modifyOpInPlace(
        reshape, [&] { reshape.getResult().setType(op.getType()); });
    rewriter.replaceOp(op, reshape.getResult());
    return success();
  }
};

/// A narrowing cast of a conversion's (or a reshape's) only result runs
/// first, so that the conversion moves the narrow elements: an attention
/// epilogue's f32 -> f16 store converts half the bytes through shared
/// memory, in half the scratch.
///   truncf(convert_layout(x)) -> convert_layout(truncf(x))
///   truncf(reshape(x))        -> reshape(truncf(x))
struct NarrowBeforeConversion : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Operation *src = op.getIn().getDefiningOp();
    if (!isa_and_present<ConvertLayoutOp, ReshapeOp>(src) ||
        !src->hasOneUse() || !isa<RankedTensorType>(op.getType()))
      return failure();
    Value x = src->getOperand(0);
    Type narrow = getElementTypeOrSelf(op.getType());
    auto narrowed = arith::TruncFOp::create(
        rewriter, op.getLoc(),
        cast<RankedTensorType>(x.getType()).clone(narrow), x,
        op.getRoundingmodeAttr(), op.getFastmathAttr());
    if (isa<ConvertLayoutOp>(src))
      rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(), narrowed);
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), narrowed);
    rewriter.eraseOp(src);
    return success();
  }
};

/// A widening cast whose only use is a conversion runs after it, so that
/// the conversion moves the narrow elements: a residual tile loaded in 16
/// bits, widened and converted to an accumulator's layout, crosses shared
/// memory in 16 bits. So do the element-wise ops between the two whose
/// other operands are made in any layout for nothing (splats, aranges),
/// each used once: `acc * tanh(z)` with z loaded in 16 bits converts z, not
/// tanh(z) in 32 (the other direction than SinkConversionThroughElementwise,
/// which leaves widening casts alone).
///   convert_layout(extf(x))          -> extf(convert_layout(x))
///   convert_layout(tanh(extf(x) * s)) -> tanh(extf(convert_layout(x)) * s')
constexpr size_t kMaxWidenedChain = 8;
struct WidenAfterConversion : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    // The ops from the conversion's source back to the widening cast.
    SmallVector<Operation *> chain;
    Value v = op.getSource();
    arith::ExtFOp ext;
    while (!ext) {
      Operation *def = v.getDefiningOp();
      if (!def || !v.hasOneUse() || def->getNumResults() != 1 ||
          def->getNumRegions())
        return failure();
      if ((ext = dyn_cast<arith::ExtFOp>(def)))
        break;
      if (!def->hasTrait<OpTrait::Elementwise>() ||
          chain.size() == kMaxWidenedChain)
        return failure();
      Value next;
      for (Value operand : def->getOperands()) {
        if (!isa<RankedTensorType>(operand.getType()) || isRemadeFree(operand))
          continue;
        if (next)
          return failure();
        next = operand;
      }
      // (Of one element type: a narrowing or widening cast in the chain
      // would make the moved conversion's elements no narrower.)
      if (!next || getElementTypeOrSelf(next.getType()) !=
                       getElementTypeOrSelf(def->getResult(0).getType()))
        return failure();
      chain.push_back(def);
      v = next;
    }
    Attribute target = op.getType().getEncoding();
    auto inTarget = [&](Type t) {
      auto type = cast<RankedTensorType>(t);
      return RankedTensorType::get(type.getShape(), type.getElementType(),
                                   target);
    };
    Value current = ConvertLayoutOp::create(
        rewriter, op.getLoc(), inTarget(ext.getIn().getType()), ext.getIn());
    current =
        arith::ExtFOp::create(rewriter, ext.getLoc(), inTarget(ext.getType()),
                              current, ext.getFastmathAttr());
    Value from = ext.getResult();
    for (Operation *def : llvm::reverse(chain)) {
      SmallVector<Value> operands;
      for (Value operand : def->getOperands()) {
        if (operand == from)
          operands.push_back(current);
        else if (isa<RankedTensorType>(operand.getType()))
          operands.push_back(ConvertLayoutOp::create(
              rewriter, def->getLoc(), inTarget(operand.getType()), operand));
        else
          operands.push_back(operand);
      }
      OperationState state(def->getLoc(), def->getName(), operands,
                           TypeRange{inTarget(def->getResult(0).getType())},
                           def->getAttrs());
      from = def->getResult(0);
      current = rewriter.create(state)->getResult(0);
    }
    rewriter.replaceOp(op, current);
    for (Operation *def : chain)
      rewriter.eraseOp(def);
    rewriter.eraseOp(ext);
    return success();
  }
};

/// An elementwise op on a converted tile runs before the conversion when
/// its other operands cost little in the source's layout (splat constants and
/// splats of scalars, other conversions from that layout, broadcasts of tiles
/// an eighth of its size or less, converted themselves): a bias added to and a
/// relu applied to an mma accumulator before its store compute in the
/// accumulator's layout, and the conversion moves what is stored (narrowed by a
/// later truncf), not the accumulator. A conversion used by several such ops
/// (a relu's compare and select; an activation's chain that reads x at
/// several depths, silu's or gelu's) sinks past each when all of them and the
/// chain between them sink and one value leaves the chain.
///   addf(convert_layout(x), broadcast(b)) ->
///       convert_layout(addf(x, broadcast(convert_layout(b))))
struct SinkConversionThroughElementwise
    : OpTraitRewritePattern<OpTrait::Elementwise> {
  SinkConversionThroughElementwise(MLIRContext *ctx)
      : OpTraitRewritePattern(ctx) {}

  /// How to make `v`, an operand of `op`, in layout `from` at little cost;
  /// null when it would cost a conversion of its own size.
  static std::function<Value()> remakeIn(PatternRewriter &rewriter,
                                         Operation *op, Value v, Attribute from,
                                         int64_t elements) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return nullptr;
    RankedTensorType there =
        RankedTensorType::get(type.getShape(), type.getElementType(), from);
    if (auto cvt = v.getDefiningOp<ConvertLayoutOp>();
        cvt && cvt.getSource().getType().getEncoding() == from)
      return [cvt]() mutable -> Value { return cvt.getSource(); };
    DenseElementsAttr dense;
    if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
      return [&rewriter, op, there, dense]() mutable -> Value {
        return arith::ConstantOp::create(rewriter, op->getLoc(),
                                         dense.reshape(there))
            .getResult();
      };
    if (auto full = v.getDefiningOp<FullOp>())
      // A splat of a run-time scalar (`acc * scale`).
      return [&rewriter, op, there, full]() mutable -> Value {
        return FullOp::create(rewriter, op->getLoc(), there, full.getValue())
            .getResult();
      };
    if (auto b = v.getDefiningOp<BroadcastOp>()) {
      RankedTensorType src = b.getSource().getType();
      if (src.getNumElements() * 8 > elements)
        return nullptr;
      return [&rewriter, op, b, src, there, from]() mutable -> Value {
        Value s = ConvertLayoutOp::create(
            rewriter, op->getLoc(),
            RankedTensorType::get(src.getShape(), src.getElementType(), from),
            b.getSource());
        return BroadcastOp::create(rewriter, op->getLoc(), there, s)
            .getResult();
      };
    }
    return nullptr;
  }

  /// Whether `op` may run in another layout in place: elementwise, one
  /// tile result with a layout, no regions, in `block`.
  static bool isMovable(Operation *op, Block *block) {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || op->getBlock() != block)
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return type && type.getEncoding();
  }

  /// Whether `cvt`, used by several ops, sinks past all of them, leaving one
  /// conversion. The region: the elementwise ops computed from the
  /// conversion (its forward slice through such ops in its block), less any
  /// with an operand neither the conversion, the region's, nor cheap to make
  /// in `from` (and what is computed from those). It must take in every user
  /// of the conversion and let one of its values leave: then sinking past
  /// each op in turn moves that value, not the converted one. A relu's
  /// `select(x > 0, x, 0)` (the compare and the select); silu's
  /// x * sigmoid(x) (the negation, exp, add, division and product) and the
  /// tanh gelu's chain, where x is read at several depths.
  static bool usersSinkAlike(PatternRewriter &rewriter, ConvertLayoutOp cvt,
                             Attribute from) {
    Block *block = cvt->getBlock();
    llvm::SetVector<Operation *> region;
    SmallVector<Operation *> work(cvt->user_begin(), cvt->user_end());
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!isMovable(op, block) || !region.insert(op))
        continue;
      work.append(op->user_begin(), op->user_end());
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(region)) {
        int64_t elements =
            cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
        bool stays = llvm::all_of(op->getOperands(), [&](Value v) {
          return v == cvt.getResult() || region.contains(v.getDefiningOp()) ||
                 remakeIn(rewriter, op, v, from, elements);
        });
        if (!stays) {
          region.remove(op);
          changed = true;
        }
      }
    }
    if (!llvm::all_of(cvt->getUsers(),
                      [&](Operation *user) { return region.contains(user); }))
      return false;
    unsigned leaving = 0;
    for (Operation *op : region)
      if (llvm::any_of(op->getUsers(),
                       [&](Operation *user) { return !region.contains(user); }))
        ++leaving;
    return leaving <= 1;
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // (Not a widening cast: the conversion would move the wide elements;
    // WidenAfterConversion moves it the other way.)
    if (!isMovable(op, op->getBlock()) || isa<arith::ExtFOp>(op))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // The conversion to sink: the first operand converted from a layout,
    // for this op alone or for ops that all sink alike (one with other uses
    // stays, and sinking would add a conversion), from a tile that is not
    // made anew in any layout at no cost (a conversion of a splat or an
    // arange folds away where it is: sinking it would make it a real one).
    Attribute from;
    for (Value v : op->getOperands())
      if (auto cvt = v.getDefiningOp<ConvertLayoutOp>();
          cvt && !isRemadeFree(cvt.getSource())) {
        Attribute source = cvt.getSource().getType().getEncoding();
        if (cvt->hasOneUse() || usersSinkAlike(rewriter, cvt, source)) {
          from = source;
          break;
        }
      }
    if (!from)
      return failure();
    int64_t elements = resultType.getNumElements();
    // Each operand in `from`.
    SmallVector<std::function<Value()>> remake;
    for (Value v : op->getOperands()) {
      remake.push_back(remakeIn(rewriter, op, v, from, elements));
      if (!remake.back())
        return failure();
    }
    SmallVector<Value> operands;
    for (auto &make : remake)
      operands.push_back(make());
    OperationState state(
        op->getLoc(), op->getName(), operands,
        TypeRange{RankedTensorType::get(resultType.getShape(),
                                        resultType.getElementType(), from)},
        op->getAttrs());
    Operation *moved = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, resultType,
                                                 moved->getResult(0));
    return success();
  }
};

struct RemoveLayoutConversionsPass
    : public mlir::tile::impl::TileRemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvertOfSplat, LoadInConvertedLayout,
                 VectorLoadInBroadcastLayout, NarrowBeforeConversion,
                 WidenAfterConversion, SinkConversionThroughElementwise>(
        &getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
