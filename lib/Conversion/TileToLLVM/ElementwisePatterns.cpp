//===- ElementwisePatterns.cpp - Element-wise ops, register by register ---===//
//
// Every element-wise op on tiles (arith, math, tile.exp2, tile.div,
// arith.select) becomes the same op on each register: its operands share one
// layout, so register i of each operand holds the same element. One pattern
// serves them all; scalar ops are lowered afterwards by the standard
// conversions. With exp2_poly N, tile.exp2 with flush_to_zero on f32 tiles
// computes one register in N by a polynomial on the FMA pipe (Exp2OnTiles).
// Ops the GPU does on the lanes of a 32-bit register take several registers
// at once: 16-bit float arithmetic and bitwise ops two at a time, 8-bit
// bitwise ops, shifts and additions of a constant four at a time (the bytes
// of a word), and 8-bit to 16-bit widening two at a time (a byte permute).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

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

/// The splat integer constant `v` is, if it is one.
std::optional<APInt> splatInteger(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    if (auto i = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
      return i.getValue();
  return std::nullopt;
}

/// How an op on 8-bit integer tiles is done on the four bytes of a 32-bit
/// register at once: a bitwise op as it is; a shift by a splat constant, an
/// addition or a subtraction as the 32-bit op with what crosses between
/// bytes masked.
/// An arithmetic shift right by c whose every use keeps only the low 8 - c
/// bits (an `andi` with such a mask: `(q >> 4) & 15`) is a logical one;
/// any other is a logical shift of the bytes offset by 128 (x ^ 0x80), less
/// 2^(7 - c) (a signed nibble: `q >> 4`, `(q << 4) >> 4`).
enum class ByteLanes {
  None,
  Bitwise,
  ShiftRight,
  ShiftRightSigned,
  ShiftLeft,
  Sum
};

ByteLanes byteLanes(Operation *op) {
  auto isI8 = [](Type t) { return getElementTypeOrSelf(t).isInteger(8); };
  if (op->getNumOperands() != 2 || !llvm::all_of(op->getOperandTypes(), isI8) ||
      !isI8(op->getResult(0).getType()))
    return ByteLanes::None;
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
    return ByteLanes::Bitwise;
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return ByteLanes::Sum;
  std::optional<APInt> amount = splatInteger(op->getOperand(1));
  if (!amount || amount->uge(8))
    return ByteLanes::None;
  if (isa<arith::ShLIOp>(op))
    return ByteLanes::ShiftLeft;
  if (isa<arith::ShRUIOp>(op))
    return ByteLanes::ShiftRight;
  if (!isa<arith::ShRSIOp>(op))
    return ByteLanes::None;
  uint64_t kept = 0xFFu >> amount->getZExtValue();
  bool lowBitsOnly = llvm::all_of(op->getUsers(), [&](Operation *user) {
    if (!isa<arith::AndIOp>(user))
      return false;
    for (Value mask : user->getOperands())
      if (std::optional<APInt> m = splatInteger(mask))
        if ((m->getZExtValue() & ~kept) == 0)
          return true;
    return false;
  });
  return lowBitsOnly || amount->isZero() ? ByteLanes::ShiftRight
                                         : ByteLanes::ShiftRightSigned;
}

/// `byte` repeated in the four bytes of an i32 constant.
Value bytesConstant(OpBuilder &b, Location loc, uint64_t byte) {
  return constI32(b, loc, static_cast<int32_t>((byte & 0xFF) * 0x01010101u));
}

/// Registers `regs[r .. r + lanes - 1]` as the lanes of one vector.
Value packLanes(OpBuilder &b, Location loc, ValueRange regs, unsigned r,
                unsigned lanes) {
  Value v =
      LLVM::PoisonOp::create(b, loc, VectorType::get(lanes, regs[r].getType()));
  for (unsigned i = 0; i < lanes; ++i)
    v = LLVM::InsertElementOp::create(b, loc, v, regs[r + i],
                                      constI32(b, loc, i));
  return v;
}

/// The lanes of vector `v`, appended to `results`.
void unpackLanes(OpBuilder &b, Location loc, Value v, unsigned lanes,
                 SmallVectorImpl<Value> &results) {
  for (unsigned i = 0; i < lanes; ++i)
    results.push_back(
        LLVM::ExtractElementOp::create(b, loc, v, constI32(b, loc, i)));
}

/// The bytes of `x` plus (or, with `subtract`, minus) those of `y` (i32
/// words), modulo 256 each: the low 7 bits summed apart (for a difference,
/// from x's with the top bit set, so that no borrow leaves a byte), the top
/// bit by xor with both top bits (y's inverted for a difference).
Value sumBytes(OpBuilder &b, Location loc, Value x, Value y, bool subtract) {
  Value low7 = bytesConstant(b, loc, 0x7F), top = bytesConstant(b, loc, 0x80);
  Value yLow = arith::AndIOp::create(b, loc, y, low7);
  Value low = subtract
                  ? Value(arith::SubIOp::create(
                        b, loc, arith::OrIOp::create(b, loc, x, top), yLow))
                  : Value(arith::AddIOp::create(
                        b, loc, arith::AndIOp::create(b, loc, x, low7), yLow));
  Value signs = arith::XOrIOp::create(b, loc, x, y);
  if (subtract)
    signs = arith::XOrIOp::create(b, loc, signs, constI32(b, loc, -1));
  return arith::XOrIOp::create(b, loc, low,
                               arith::AndIOp::create(b, loc, signs, top));
}

/// `op` (of kind `kind`) on the four bytes `x` (vector<4xi8>) with the
/// second operand's bytes `y`.
Value onByteLanes(OpBuilder &b, Location loc, Operation *op, ByteLanes kind,
                  Value x, Value y) {
  Type quad = x.getType(), i32 = b.getI32Type();
  if (kind == ByteLanes::Bitwise) {
    OperationState state(loc, op->getName().getStringRef(), {x, y}, {quad},
                         op->getAttrs());
    return b.create(state)->getResult(0);
  }
  Value w = LLVM::BitcastOp::create(b, loc, i32, x);
  if (kind == ByteLanes::Sum)
    return LLVM::BitcastOp::create(
        b, loc, quad,
        sumBytes(b, loc, w, LLVM::BitcastOp::create(b, loc, i32, y),
                 isa<arith::SubIOp>(op)));
  uint64_t c = splatInteger(op->getOperand(1))->getZExtValue() & 0xFF;
  switch (kind) {
  case ByteLanes::ShiftRight:
    w = arith::ShRUIOp::create(b, loc, w, constI32(b, loc, c));
    w = arith::AndIOp::create(b, loc, w, bytesConstant(b, loc, 0xFFu >> c));
    break;
  case ByteLanes::ShiftRightSigned:
    // floor((x + 128) / 2^c) - 2^(7 - c), in [0, 2^(8 - c)) before the
    // subtraction.
    w = arith::XOrIOp::create(b, loc, w, bytesConstant(b, loc, 0x80));
    w = arith::ShRUIOp::create(b, loc, w, constI32(b, loc, c));
    w = arith::AndIOp::create(b, loc, w, bytesConstant(b, loc, 0xFFu >> c));
    w = sumBytes(b, loc, w, bytesConstant(b, loc, 0x80u >> c),
                 /*subtract=*/true);
    break;
  case ByteLanes::ShiftLeft:
    w = arith::ShLIOp::create(b, loc, w, constI32(b, loc, c));
    w = arith::AndIOp::create(b, loc, w, bytesConstant(b, loc, 0xFFu << c));
    break;
  default:
    break;
  }
  return LLVM::BitcastOp::create(b, loc, quad, w);
}

/// Whether `op` widens 8-bit integers to 16 bits without sign: two
/// registers at a time, the bytes placed in the low byte of each half of a
/// word (a byte permute of the words holding them) and the rest masked.
bool widensBytePairs(Operation *op) {
  return isa<arith::ExtUIOp>(op) &&
         getElementTypeOrSelf(op->getOperand(0).getType()).isInteger(8) &&
         getElementTypeOrSelf(op->getResult(0).getType()).isInteger(16);
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
    Location loc = op->getLoc();
    ByteLanes bytes = byteLanes(op);
    if (bytes != ByteLanes::None && n % 4 == 0) {
      for (unsigned r = 0; r < n; r += 4) {
        Value x = packLanes(rewriter, loc, operands[0], r, 4);
        Value y = bytes == ByteLanes::Bitwise || bytes == ByteLanes::Sum
                      ? packLanes(rewriter, loc, operands[1], r, 4)
                      : Value();
        unpackLanes(rewriter, loc, onByteLanes(rewriter, loc, op, bytes, x, y),
                    4, results);
      }
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    if (widensBytePairs(op) && n % 2 == 0) {
      Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
      auto pairType = VectorType::get(2, rewriter.getI16Type());
      for (unsigned r = 0; r < n; r += 2) {
        Value v = LLVM::PoisonOp::create(rewriter, loc, VectorType::get(4, i8));
        for (unsigned i : {0u, 1u})
          v = LLVM::InsertElementOp::create(rewriter, loc, v,
                                            operands[0][r + i],
                                            constI32(rewriter, loc, 2 * i));
        Value w = LLVM::BitcastOp::create(rewriter, loc, i32, v);
        w = arith::AndIOp::create(rewriter, loc, w,
                                  constI32(rewriter, loc, 0x00FF00FF));
        unpackLanes(rewriter, loc,
                    LLVM::BitcastOp::create(rewriter, loc, pairType, w), 2,
                    results);
      }
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    if (pairsRegisters(op) && n % 2 == 0) {
      // Two registers a 32-bit op (add.bf16x2, or.b32): half the
      // instructions of one per register.
      Type pairType =
          VectorType::get(2, registerType(resultType.getElementType()));
      for (unsigned r = 0; r < n; r += 2) {
        SmallVector<Value> pairs;
        for (ValueRange regs : operands)
          pairs.push_back(packLanes(rewriter, loc, regs, r, 2));
        OperationState state(loc, op->getName().getStringRef(), pairs,
                             {pairType}, op->getAttrs());
        unpackLanes(rewriter, loc, rewriter.create(state)->getResult(0), 2,
                    results);
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
