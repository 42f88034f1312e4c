//===- ElementwisePatterns.cpp - Element-wise ops, register by register ---===//
//
// Every element-wise op on tiles (arith, math, tile.exp2, tile.div,
// arith.select) becomes the same op on each register: its operands share one
// layout, so register i of each operand holds the same element. One pattern
// serves them all; scalar ops are lowered afterwards by the standard
// conversions. With exp2_poly N, tile.exp2 with flush_to_zero on f32 tiles
// computes one register in N by a polynomial on the FMA pipe (Exp2OnTiles).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;

namespace {

/// Whether `op` is an add, subtract, multiply, fma, negation, min or max
/// of 16-bit floats, or a bitwise op or bitcast of 16-bit values: ops the
/// GPU does on two 16-bit lanes of a register at once (f16x2, bf16x2 on
/// sm_90 and by fma on sm_80, b32), so that a tile's registers are taken
/// two by two.
bool pairsRegisters(Operation *op) {
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
           arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp, math::FmaOp, arith::AndIOp, arith::OrIOp,
           arith::XOrIOp, arith::BitcastOp>(op))
    return false;
  auto is16Bit = [](Type t) {
    Type e = getElementTypeOrSelf(t);
    return e.isF16() || e.isBF16() || e.isInteger(16);
  };
  return llvm::all_of(op->getOperandTypes(), is16Bit) &&
         is16Bit(op->getResult(0).getType());
}

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
    if (pairsRegisters(op) && n % 2 == 0) {
      // Two registers a 32-bit op (add.bf16x2, or.b32): half the
      // instructions of one per register.
      Location loc = op->getLoc();
      Type pairType =
          VectorType::get(2, registerType(resultType.getElementType()));
      for (unsigned r = 0; r < n; r += 2) {
        SmallVector<Value> pairs;
        for (ValueRange regs : operands) {
          auto type = VectorType::get(2, regs[r].getType());
          Value v = LLVM::PoisonOp::create(rewriter, loc, type);
          v = LLVM::InsertElementOp::create(rewriter, loc, v, regs[r],
                                            constI32(rewriter, loc, 0));
          pairs.push_back(LLVM::InsertElementOp::create(
              rewriter, loc, v, regs[r + 1], constI32(rewriter, loc, 1)));
        }
        OperationState state(loc, op->getName().getStringRef(), pairs,
                             {pairType}, op->getAttrs());
        Value pair = rewriter.create(state)->getResult(0);
        for (int i : {0, 1})
          results.push_back(LLVM::ExtractElementOp::create(
              rewriter, loc, pair, constI32(rewriter, loc, i)));
      }
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
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

/// 2^x by FMA-pipe instructions: x clamped to [-126, 127] (NaN kept), the
/// nearest integer j by adding 1.5 * 2^23 (its low mantissa bits are then
/// j), f = x - j in [-0.5, 0.5], 2^f by a degree-3 minimax polynomial
/// (relative error 7.5e-5), and j added to its exponent bits (2^-126 for
/// inputs below -126, where ex2.approx.ftz gives 0; 2^127 above 127).
Value exp2ByPolynomial(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto c = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  x = arith::MaximumFOp::create(b, loc, x, c(-126.0));
  x = arith::MinimumFOp::create(b, loc, x, c(127.0));
  Value magic = c(12582912.0); // 1.5 * 2^23
  Value t = arith::AddFOp::create(b, loc, x, magic);
  Value j = arith::SubFOp::create(b, loc, t, magic);
  Value f = arith::SubFOp::create(b, loc, x, j);
  Value p = c(5.517166907e-02);
  for (double k : {2.426111222e-01, 6.932609855e-01, 9.999280735e-01})
    p = math::FmaOp::create(b, loc, p, f, c(k));
  // t's bits are 0x4B400000 + j: shifted by 23, j << 23 (the rest leaves).
  Value shift = arith::ShLIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, i32, t),
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(23)));
  Value bits = arith::AddIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, i32, p), shift);
  return arith::BitcastOp::create(b, loc, f32, bits);
}

} // namespace

bool tilec::takesExp2Poly(tile::Exp2Op op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  return type && type.getElementType().isF32() && op.getFlushToZero();
}

namespace {

/// tile.exp2 with flush_to_zero on an f32 tile under exp2_poly N: register
/// r by the polynomial when r % N == N - 1, by ex2 otherwise.
struct Exp2OnTiles : OpConversionPattern<tile::Exp2Op> {
  Exp2OnTiles(TypeConverter &converter, MLIRContext *ctx, unsigned every)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), every(every) {}
  unsigned every;

  LogicalResult
  matchAndRewrite(tile::Exp2Op op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!takesExp2Poly(op))
      return failure();
    SmallVector<Value> results;
    for (auto [r, x] : llvm::enumerate(adaptor.getSource())) {
      if (r % every == every - 1) {
        results.push_back(exp2ByPolynomial(rewriter, op.getLoc(), x));
        continue;
      }
      results.push_back(tile::Exp2Op::create(rewriter, op.getLoc(), x,
                                             op.getFlushToZeroAttr()));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// bf16 -> f32 is the bf16's bits in the top half of the f32: a shift of
/// the 16 bits, written as integer ops so that LLVM folds it with the
/// unpacking of a loaded 32-bit word (a pair of bf16) into one shift (the
/// low half) or one mask (the high half). cvt.f32.bf16 of the high half
/// costs ptxas two instructions (a byte permute and a shift).
struct BF16ToF32OnTiles : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = dyn_cast<RankedTensorType>(op.getIn().getType());
    auto dst = dyn_cast<RankedTensorType>(op.getType());
    if (!src || !dst || !src.getElementType().isBF16() ||
        !dst.getElementType().isF32())
      return failure();
    Location loc = op.getLoc();
    Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
    Value sixteen = arith::ConstantOp::create(rewriter, loc, i32,
                                              rewriter.getI32IntegerAttr(16));
    SmallVector<Value> results;
    for (Value r : adaptor.getIn()) {
      Value bits = arith::BitcastOp::create(rewriter, loc, i16, r);
      Value wide = arith::ExtUIOp::create(rewriter, loc, i32, bits);
      Value top = arith::ShLIOp::create(rewriter, loc, wide, sixteen);
      results.push_back(
          arith::BitcastOp::create(rewriter, loc, rewriter.getF32Type(), top));
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
                                        RewritePatternSet &patterns,
                                        unsigned exp2Poly) {
  if (exp2Poly)
    patterns.add<Exp2OnTiles>(converter, patterns.getContext(), exp2Poly);
  patterns.add<ElementwiseOnTiles>(converter, patterns.getContext());
  patterns.add<BF16ToF32OnTiles>(converter, patterns.getContext(),
                                 /*benefit=*/2);
  patterns.add<SplatConstantOnTiles>(converter, patterns.getContext());
}
