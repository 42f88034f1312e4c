//===- ScalarPatterns.cpp - Scalar tile and math ops to NVVM --------------===//
//
// After tiles have become registers, what remains of the tile dialect are
// scalars: block indices and the fast-math functions. They map to PTX
// special registers and to the NVVM intrinsics of the approximate
// instructions (ex2.approx.ftz.f32, div.approx.ftz.f32, lg2.approx.f32,
// sin.approx.f32, tanh.approx.f32, ...), computed in f32 for f16 and bf16
// values; erf is a polynomial (math's approximation, expanded before these
// patterns run). No libdevice is needed.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace tilec;

namespace {

template <typename X, typename Y, typename Z>
Value gridIndex(OpBuilder &b, Location loc, unsigned axis) {
  Type i32 = b.getI32Type();
  switch (axis) {
  case 0:
    return X::create(b, loc, i32);
  case 1:
    return Y::create(b, loc, i32);
  default:
    return Z::create(b, loc, i32);
  }
}

struct BlockIdLowering : OpConversionPattern<tile::BlockIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BlockIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, gridIndex<NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>(
                rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

/// The group of consumers a thread is in: tid.x / the group's threads.
struct ConsumerGroupLowering : OpConversionPattern<tile::ConsumerGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ConsumerGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, blockGroupIndex(rewriter, op, op.getThreads()));
    return success();
  }
};

struct NumBlocksLowering : OpConversionPattern<tile::NumBlocksOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::NumBlocksOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, gridIndex<NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>(
                rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

/// The cluster's index and count along x, and the block's rank in it.
template <typename From, typename To>
struct ClusterRegisterLowering : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, To::create(rewriter, op.getLoc(), rewriter.getI32Type()));
    return success();
  }
};

/// Calls an f32 NVVM intrinsic, widening f16/bf16 arguments to f32 and
/// narrowing the result back.
Value callF32(OpBuilder &b, Location loc, StringRef name, ValueRange args) {
  Type type = args.front().getType();
  Type f32 = b.getF32Type();
  SmallVector<Value> wide;
  for (Value a : args)
    wide.push_back(type.isF32() ? a
                                : Value(arith::ExtFOp::create(b, loc, f32, a)));
  Value r =
      LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name), wide)
          .getResult(0);
  return type.isF32() ? r : Value(arith::TruncFOp::create(b, loc, type, r));
}

struct Exp2Lowering : OpConversionPattern<tile::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      return failure();
    rewriter.replaceOp(op, callF32(rewriter, op.getLoc(),
                                   op.getFlushToZero()
                                       ? "llvm.nvvm.ex2.approx.ftz.f32"
                                       : "llvm.nvvm.ex2.approx.f32",
                                   adaptor.getSource()));
    return success();
  }
};

struct DivLowering : OpConversionPattern<tile::DivOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DivOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      return failure();
    bool ftz = op.getFlushToZero();
    StringRef name;
    switch (op.getRounding()) {
    case tile::RoundingMode::RN:
      name = ftz ? "llvm.nvvm.div.rn.ftz.f" : "llvm.nvvm.div.rn.f";
      break;
    case tile::RoundingMode::Full:
      name = ftz ? "llvm.nvvm.div.full.ftz" : "llvm.nvvm.div.full";
      break;
    case tile::RoundingMode::Approx:
      name = ftz ? "llvm.nvvm.div.approx.ftz.f" : "llvm.nvvm.div.approx.f";
      break;
    }
    rewriter.replaceOp(op, callF32(rewriter, op.getLoc(), name,
                                   {adaptor.getLhs(), adaptor.getRhs()}));
    return success();
  }
};

/// A math function through one approximate f32 instruction, f16 and bf16
/// widened to f32 and back: `instruction` is an NVVM intrinsic
/// ("llvm.nvvm.ex2.approx.f32"), or, where LLVM has none, a PTX
/// instruction of one operand ("tanh.approx.f32", sm_75 on) as asm without
/// side effects (so that it may be combined and moved like arithmetic).
/// exp and log go through the base-2 instructions, scaling the argument or
/// the result.
template <typename MathOp>
struct ApproxMathLowering : OpConversionPattern<MathOp> {
  ApproxMathLowering(TypeConverter &converter, MLIRContext *ctx,
                     StringRef instruction, double scaleIn = 1.0,
                     double scaleOut = 1.0)
      : OpConversionPattern<MathOp>(converter, ctx, /*benefit=*/2),
        instruction(instruction), scaleIn(scaleIn), scaleOut(scaleOut) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    Type type = x.getType();
    if (!isa<FloatType>(type))
      return failure();
    Type f32 = rewriter.getF32Type();
    auto scale = [&](Value v, double by) -> Value {
      if (by == 1.0)
        return v;
      return arith::MulFOp::create(
          rewriter, loc, v,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF32FloatAttr(by)));
    };
    if (!type.isF32())
      x = arith::ExtFOp::create(rewriter, loc, f32, x);
    x = scale(x, scaleIn);
    Value r;
    if (StringRef(instruction).starts_with("llvm."))
      r = LLVM::CallIntrinsicOp::create(rewriter, loc, f32,
                                        rewriter.getStringAttr(instruction), x)
              .getResult(0);
    else
      r = LLVM::InlineAsmOp::create(
              rewriter, loc, f32, x, instruction + " $0, $1;", "=f,f",
              /*has_side_effects=*/false, /*is_align_stack=*/false,
              LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
              .getResult(0);
    r = scale(r, scaleOut);
    if (!type.isF32())
      r = arith::TruncFOp::create(rewriter, loc, type, r);
    rewriter.replaceOp(op, r);
    return success();
  }

  std::string instruction;
  double scaleIn, scaleOut;
};

} // namespace

void tilec::populateScalarPatterns(TypeConverter &converter,
                                   RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<BlockIdLowering, NumBlocksLowering, Exp2Lowering, DivLowering,
               ConsumerGroupLowering>(converter, ctx);
  patterns
      .add<ClusterRegisterLowering<tile::ClusterIdOp, NVVM::ClusterIdXOp>,
           ClusterRegisterLowering<tile::NumClustersOp, NVVM::ClusterDimXOp>,
           ClusterRegisterLowering<tile::ClusterRankOp, NVVM::ClusterId>>(
          converter, ctx);
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  patterns.add<ApproxMathLowering<math::ExpOp>>(
      converter, ctx, "llvm.nvvm.ex2.approx.f32", log2e, 1.0);
  patterns.add<ApproxMathLowering<math::LogOp>>(
      converter, ctx, "llvm.nvvm.lg2.approx.f", 1.0, ln2);
  patterns.add<ApproxMathLowering<math::Log2Op>>(converter, ctx,
                                                 "llvm.nvvm.lg2.approx.f");
  patterns.add<ApproxMathLowering<math::RsqrtOp>>(converter, ctx,
                                                  "llvm.nvvm.rsqrt.approx.f");
  patterns.add<ApproxMathLowering<math::SinOp>>(converter, ctx,
                                                "llvm.nvvm.sin.approx.f");
  patterns.add<ApproxMathLowering<math::CosOp>>(converter, ctx,
                                                "llvm.nvvm.cos.approx.f");
  patterns.add<ApproxMathLowering<math::TanhOp>>(converter, ctx,
                                                 "tanh.approx.f32");
}
