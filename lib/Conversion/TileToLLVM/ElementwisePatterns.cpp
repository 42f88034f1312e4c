//===- ElementwisePatterns.cpp - Element-wise ops, register by register ---===//
//
// Every element-wise op on tiles (arith, math, tile.exp2, tile.div,
// arith.select) becomes the same op on each register: its operands share one
// layout, so register i of each operand holds the same element. One pattern
// serves them all; scalar ops are lowered afterwards by the standard
// conversions.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;

namespace {

struct ElementwiseOnTiles : ConversionPattern {
  ElementwiseOnTiles(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    bool elementwise =
        op->hasTrait<OpTrait::Elementwise>() || isa<arith::SelectOp>(op);
    if (!elementwise || op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // 8-bit floats are bytes in registers: only a selection moves them
    // (their conversions are Float8Patterns').
    if (!isa<arith::SelectOp>(op) &&
        llvm::any_of(op->getOperandTypes(), [](Type t) {
          return tile::isFloat8Type(getElementTypeOrSelf(t));
        }))
      return rewriter.notifyMatchFailure(op, "an op on 8-bit floats");
    unsigned n = getLinearLayout(resultType).getNumRegs();
    for (ValueRange regs : operands)
      if (regs.size() != n)
        return rewriter.notifyMatchFailure(op, "operand layouts differ");
    SmallVector<Value> results;
    for (unsigned r = 0; r < n; ++r) {
      SmallVector<Value> scalarOperands;
      for (ValueRange regs : operands)
        scalarOperands.push_back(regs[r]);
      OperationState state(
          op->getLoc(), op->getName().getStringRef(), scalarOperands,
          {registerType(resultType.getElementType())}, op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// A splat constant tile: the same scalar in every register.
struct SplatConstantOnTiles : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getEncoding())
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "only splat tile constants");
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        registerConstant(cast<TypedAttr>(splat.getSplatValue<Attribute>())));
    SmallVector<Value> regs(getLinearLayout(type).getNumRegs(), scalar);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void tilec::populateElementwisePatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ElementwiseOnTiles>(converter, patterns.getContext());
  patterns.add<SplatConstantOnTiles>(converter, patterns.getContext());
}
