//===- RemoveLayoutConversions.cpp - Drop conversions not needed ----------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

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

struct RemoveLayoutConversionsPass
    : public mlir::tile::impl::TileRemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvertOfSplat, NarrowBeforeConversion>(&getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
