//===- Float8Patterns.cpp - Conversions to and from 8-bit floats ----------===//
//
// A tile of f8E4M3FN or f8E5M2 is held as bytes (registerType: i8), which
// no arith op computes on; the language allows only loads, stores, mma and
// conversions on it. The conversions are the cvt instructions of sm_89 on,
// two elements at a time:
//
//   f32, f32   -> cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32    (NVVM f32x2.to.f8x2)
//   f16x2      -> cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2  (NVVM f16x2.to.f8x2)
//   e4m3x2 / e5m2x2 -> cvt.rn.f16x2.{e4m3x2,e5m2x2}       (NVVM f8x2.to.f16x2)
//
// bf16 goes through f32, and f32 from f8 through f16 (both exact). Narrowing
// rounds to nearest even and saturates: a finite value beyond the format's
// largest becomes that largest (448 for e4m3, 57344 for e5m2); NaN stays NaN.
// tile-check-resources refuses these conversions on targets without them.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;

namespace {

/// The two bytes of a vector<2xi8>.
std::pair<Value, Value> bytesOf(OpBuilder &b, Location loc, Value pair) {
  return {LLVM::ExtractElementOp::create(b, loc, pair, constI32(b, loc, 0)),
          LLVM::ExtractElementOp::create(b, loc, pair, constI32(b, loc, 1))};
}

/// Registers `x` (f32 or f16) narrowed to the 8-bit float `to`, two at a
/// time (an odd last one paired with itself).
SmallVector<Value> narrow(OpBuilder &b, Location loc, ArrayRef<Value> x,
                          Type to) {
  auto pairType = VectorType::get(2, b.getI8Type());
  SmallVector<Value> out;
  for (size_t i = 0; i < x.size(); i += 2) {
    Value lo = x[i], hi = i + 1 < x.size() ? x[i + 1] : x[i];
    Value pair;
    // The f32 op puts its first input in the upper byte (the vector's
    // element 1); the f16x2 op keeps the elements' order.
    if (lo.getType().isF32()) {
      pair = NVVM::ConvertF32x2ToF8x2Op::create(
          b, loc, pairType, hi, lo, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, to);
    } else {
      auto f16x2 = VectorType::get(2, b.getF16Type());
      Value v = LLVM::UndefOp::create(b, loc, f16x2);
      v = LLVM::InsertElementOp::create(b, loc, v, lo, constI32(b, loc, 0));
      v = LLVM::InsertElementOp::create(b, loc, v, hi, constI32(b, loc, 1));
      pair = NVVM::ConvertF16x2ToF8x2Op::create(b, loc, pairType, v,
                                                /*relu=*/false, to);
    }
    auto [first, second] = bytesOf(b, loc, pair);
    out.push_back(first);
    if (i + 1 < x.size())
      out.push_back(second);
  }
  return out;
}

/// Bytes `x` of the 8-bit float `from` widened to f16, two at a time.
SmallVector<Value> widen(OpBuilder &b, Location loc, ArrayRef<Value> x,
                         Type from) {
  auto pairType = VectorType::get(2, b.getI8Type());
  auto f16x2 = VectorType::get(2, b.getF16Type());
  SmallVector<Value> out;
  for (size_t i = 0; i < x.size(); i += 2) {
    Value lo = x[i], hi = i + 1 < x.size() ? x[i + 1] : x[i];
    Value v = LLVM::UndefOp::create(b, loc, pairType);
    v = LLVM::InsertElementOp::create(b, loc, v, lo, constI32(b, loc, 0));
    v = LLVM::InsertElementOp::create(b, loc, v, hi, constI32(b, loc, 1));
    Value h = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, f16x2, v,
                                                 /*relu=*/false, from);
    out.push_back(
        LLVM::ExtractElementOp::create(b, loc, h, constI32(b, loc, 0)));
    if (i + 1 < x.size())
      out.push_back(
          LLVM::ExtractElementOp::create(b, loc, h, constI32(b, loc, 1)));
  }
  return out;
}

/// arith.extf / arith.truncf on tiles with an 8-bit float on either side.
template <typename CastOp> struct Float8Cast : OpConversionPattern<CastOp> {
  using OpConversionPattern<CastOp>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<CastOp>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(CastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = dyn_cast<RankedTensorType>(op.getIn().getType());
    auto dstType = dyn_cast<RankedTensorType>(op.getType());
    if (!srcType || !dstType)
      return failure();
    Type from = srcType.getElementType(), to = dstType.getElementType();
    if (!tile::isFloat8Type(from) && !tile::isFloat8Type(to))
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> regs(adaptor.getIn().begin(), adaptor.getIn().end());
    Type f32 = rewriter.getF32Type();
    auto each = [&](auto build) {
      for (Value &r : regs)
        r = build(r);
    };
    if (tile::isFloat8Type(from)) {
      regs = widen(rewriter, loc, regs, from);
      if (to.isF32() || to.isBF16())
        each([&](Value r) {
          return arith::ExtFOp::create(rewriter, loc, f32, r);
        });
      if (to.isBF16())
        each([&](Value r) {
          return arith::TruncFOp::create(rewriter, loc, to, r);
        });
      if (tile::isFloat8Type(to))
        regs = narrow(rewriter, loc, regs, to);
    } else {
      if (from.isBF16())
        each([&](Value r) {
          return arith::ExtFOp::create(rewriter, loc, f32, r);
        });
      regs = narrow(rewriter, loc, regs, to);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void tilec::populateFloat8Patterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  // Before the element-wise pattern, which would make scalar casts of bytes.
  patterns.add<Float8Cast<arith::ExtFOp>, Float8Cast<arith::TruncFOp>>(
      converter, patterns.getContext(), /*benefit=*/2);
}
