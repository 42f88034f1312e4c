//===- CheapenConversions.cpp - Conversions by exact arithmetic -----------===//
//
// The conversion unit (I2F, F2F) converts 16 elements a cycle on a
// multiprocessor; the FMA and integer pipes do 64 to 128. A dequantizing
// loop converts every weight it multiplies, integer to float and the scaled
// f32 product back to 16 bits:
//
//   %f = arith.sitofp %q : tensor<64x128xi8> to tensor<64x128xf32>   (I2F)
//   %p = arith.mulf %f, %scale : tensor<64x128xf32>
//   %w = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>  (F2F)
//
// Where the integer range analysis bounds %q (here [-8, 7]) and %scale is a
// bf16 value widened, the f32 product is exact, so the one rounding to bf16
// is bf16's own multiply; and an integer in a small range is a float whose
// exponent bits are set by an OR:
//
//   %u = %q + 8                                    (in [0, 15])
//   %b = arith.bitcast (zext(%u) | 0x4300)         (bf16 128 + u)
//   %w = (%b - 136.0) * %scale_bf16                (bf16: exact, then rounded
//   once)
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHEAPENCONVERSIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The values an integer tile's elements lie in, signed (for sitofp) or
/// unsigned (for uitofp), where the analysis knows them; elements of 8 to
/// 32 bits.
struct IntRange {
  int64_t lo, hi;
};

std::optional<IntRange> rangeOf(DataFlowSolver &solver, Value v,
                                bool isSigned) {
  auto type = dyn_cast<IntegerType>(getElementTypeOrSelf(v.getType()));
  if (!type || type.getWidth() < 8 || type.getWidth() > 32)
    return std::nullopt;
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  const ConstantIntRanges &r = lattice->getValue().getValue();
  if (isSigned)
    return IntRange{r.smin().getSExtValue(), r.smax().getSExtValue()};
  return IntRange{static_cast<int64_t>(r.umin().getZExtValue()),
                  static_cast<int64_t>(r.umax().getZExtValue())};
}

/// Significant bits of the format (the hidden one included): f32 24, f16
/// 11, bf16 8.
unsigned precision(FloatType t) {
  return APFloat::semanticsPrecision(t.getFloatSemantics());
}

/// `v` in `t`'s semantics (rounded where `t` does not hold it).
APFloat valueIn(FloatType t, APFloat v) {
  bool losesInfo = false;
  v.convert(t.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return v;
}

/// Whether `v` (an integer or a double holding one exactly) is a value of
/// `t`.
bool exactIn(FloatType t, const APFloat &v) {
  APFloat copy = v;
  bool losesInfo = false;
  APFloat::opStatus status = copy.convert(
      t.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return status == APFloat::opOK && !losesInfo;
}

/// The splat tile of `type` (a tile type) holding `value`.
Value splat(OpBuilder &b, Location loc, RankedTensorType type,
            Attribute value) {
  return arith::ConstantOp::create(b, loc, type,
                                   DenseElementsAttr::get(type, value));
}

/// Whether every integer in `r` is a value of `t` (all up to 2^precision).
bool holdsExactly(FloatType t, IntRange r) {
  int64_t limit = int64_t(1) << precision(t);
  return r.lo >= -limit && r.hi <= limit;
}

unsigned bitWidth(uint64_t magnitude) {
  return magnitude == 0 ? 0 : 64 - llvm::countl_zero(magnitude);
}

/// An f32 tile that is exactly a tile of the 16-bit type `t`, and what
/// makes it in `t`: a widened `t` value, an integer conversion whose range
/// `t` holds, or a splat constant `t` holds; each through the views and
/// broadcasts in `views` (innermost first). `bits` bounds its values'
/// significant bits, `leastExponent` the exponent of their least bit.
struct NarrowOperand {
  enum Kind { Widened, Integer, Constant } kind;
  Value source;       // Widened: the `t` tile; Integer: the integer tile.
  bool isSigned;      // Integer: sitofp (or uitofp).
  FloatAttr constant; // Constant: the f32 value.
  SmallVector<Operation *> views;
  Type innerType; // The f32 tile under the views.
  unsigned bits;
  int leastExponent;
};

bool isView(Operation *op) {
  return isa<BroadcastOp, ExpandDimsOp, ReshapeOp, PermuteOp>(op);
}

std::optional<NarrowOperand> narrowOperand(DataFlowSolver &solver, Value v,
                                           FloatType t) {
  NarrowOperand n;
  while (Operation *def = v.getDefiningOp()) {
    if (!isView(def))
      break;
    n.views.push_back(def);
    v = def->getOperand(0);
  }
  std::reverse(n.views.begin(), n.views.end());
  n.innerType = v.getType();
  const llvm::fltSemantics &sem = t.getFloatSemantics();
  if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
    if (getElementTypeOrSelf(ext.getIn().getType()) != t)
      return std::nullopt;
    n.kind = NarrowOperand::Widened;
    n.source = ext.getIn();
    n.bits = precision(t);
    // The least subnormal's exponent: bf16 -133, f16 -24.
    n.leastExponent =
        APFloat::semanticsMinExponent(sem) - int(precision(t)) + 1;
    return n;
  }
  if (isa_and_present<arith::SIToFPOp, arith::UIToFPOp>(v.getDefiningOp())) {
    Operation *def = v.getDefiningOp();
    std::optional<IntRange> r =
        rangeOf(solver, def->getOperand(0), isa<arith::SIToFPOp>(def));
    if (!r || !holdsExactly(t, *r))
      return std::nullopt;
    n.kind = NarrowOperand::Integer;
    n.source = def->getOperand(0);
    n.isSigned = isa<arith::SIToFPOp>(def);
    n.bits = bitWidth(std::max(std::abs(r->lo), std::abs(r->hi)));
    n.leastExponent = 0;
    return n;
  }
  FloatAttr splat;
  SplatElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    splat = dyn_cast<FloatAttr>(attr.getSplatValue<Attribute>());
  if (!splat || !exactIn(t, splat.getValue()))
    return std::nullopt;
  n.kind = NarrowOperand::Constant;
  n.constant = splat;
  n.bits = precision(t);
  n.leastExponent = splat.getValue().isZero()
                        ? 0
                        : ilogb(splat.getValue()) - int(precision(t)) + 1;
  return n;
}

RankedTensorType withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// The integer tile `a` converted to the float tile type `type`.
Value intToFloat(OpBuilder &b, Location loc, bool isSigned, Type type,
                 Value a) {
  return isSigned ? Value(arith::SIToFPOp::create(b, loc, type, a))
                  : Value(arith::UIToFPOp::create(b, loc, type, a));
}

/// `n` made in `t`, its views cloned onto it.
Value makeNarrow(OpBuilder &b, Location loc, const NarrowOperand &n,
                 FloatType t) {
  Value v;
  switch (n.kind) {
  case NarrowOperand::Widened:
    v = n.source;
    break;
  case NarrowOperand::Integer:
    v = intToFloat(b, loc, n.isSigned, withElement(n.source.getType(), t),
                   n.source);
    break;
  case NarrowOperand::Constant:
    v = splat(b, loc, withElement(n.innerType, t),
              b.getFloatAttr(t, valueIn(t, n.constant.getValue())));
    break;
  }
  for (Operation *view : n.views) {
    Operation *clone = b.clone(*view);
    clone->setOperand(0, v);
    clone->getResult(0).setType(withElement(view->getResult(0).getType(), t));
    v = clone->getResult(0);
  }
  return v;
}

/// The ops a rewrite replaced, and the pure ops computing them: erased
/// once every rewrite is done where nothing uses them any more (none is
/// erased before, so that the rewrites' lists of ops stay valid).
struct Replaced {
  llvm::SetVector<Operation *> ops;

  void add(Operation *root) {
    SmallVector<Operation *> worklist = {root};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!isPure(op) || !ops.insert(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
    }
  }

  void eraseUnused() {
    SmallVector<Operation *> chain = ops.takeVector();
    // Until none is left unused (an op may come before one of its users).
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&op : chain) {
        if (op && op->use_empty()) {
          op->erase();
          op = nullptr;
          erased = true;
        }
      }
    }
  }
};

/// Rewrite 1: truncf(mulf(x, y)) to 16 bits with an exact f32 product.
void narrowProducts(DataFlowSolver &solver, func::FuncOp func,
                    Replaced &replaced) {
  SmallVector<arith::TruncFOp> truncs;
  func.walk([&](arith::TruncFOp op) { truncs.push_back(op); });
  for (arith::TruncFOp trunc : truncs) {
    auto t = dyn_cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
    auto in = dyn_cast<RankedTensorType>(trunc.getIn().getType());
    if (!t || !in || !in.getElementType().isF32() || t.getWidth() != 16)
      continue;
    OpBuilder b(trunc);
    Location loc = trunc.getLoc();
    // A conversion rounded once more: in `t` directly where it holds the
    // integers.
    Operation *def = trunc.getIn().getDefiningOp();
    if (isa_and_present<arith::SIToFPOp, arith::UIToFPOp>(def)) {
      bool isSigned = isa<arith::SIToFPOp>(def);
      Value a = def->getOperand(0);
      std::optional<IntRange> r = rangeOf(solver, a, isSigned);
      if (r && holdsExactly(t, *r)) {
        trunc.replaceAllUsesWith(
            intToFloat(b, loc, isSigned, trunc.getType(), a));
        replaced.add(trunc);
      }
      continue;
    }
    auto mul = trunc.getIn().getDefiningOp<arith::MulFOp>();
    if (!mul || !mul->hasOneUse())
      continue;
    std::optional<NarrowOperand> x = narrowOperand(solver, mul.getLhs(), t);
    std::optional<NarrowOperand> y = narrowOperand(solver, mul.getRhs(), t);
    // The f32 product is exact: its significant bits fit f32's 24, and its
    // least bit is not below f32's least subnormal (2^-149).
    if (!x || !y || x->bits + y->bits > 24 ||
        x->leastExponent + y->leastExponent < -149)
      continue;
    Value lhs = makeNarrow(b, loc, *x, t);
    Value rhs = makeNarrow(b, loc, *y, t);
    auto product =
        arith::MulFOp::create(b, loc, lhs, rhs, mul.getFastmathAttr());
    trunc.replaceAllUsesWith(product.getResult());
    replaced.add(trunc);
  }
}

/// `a` (in `r`) converted to the float type of `type` by its exponent bits,
/// or null where the range does not allow it.
Value byExponentBits(OpBuilder &b, Location loc, Value a, IntRange r,
                     RankedTensorType type) {
  auto t = cast<FloatType>(type.getElementType());
  // 2^m, m the stored mantissa bits: the float 2^m + u for u < 2^m has
  // u in its mantissa bits.
  unsigned m = precision(t) - 1;
  int64_t magic = int64_t(1) << m;
  int64_t offset = magic - r.lo;
  if (r.hi - r.lo >= magic || !holdsExactly(t, r) ||
      !exactIn(t, APFloat(double(offset))))
    return {};
  auto intType = cast<RankedTensorType>(a.getType());
  auto elementType = cast<IntegerType>(intType.getElementType());
  // u = a - lo, in [0, 2^m): in a's width (wrapping; hi - lo fits), or
  // the operand before its own addition of lo.
  Value u = a;
  if (r.lo != 0) {
    APInt lo(elementType.getWidth(), r.lo, /*isSigned=*/true);
    APInt c;
    if (auto sub = a.getDefiningOp<arith::SubIOp>();
        sub && matchPattern(sub.getRhs(), m_ConstantInt(&c)) && c == -lo)
      u = sub.getLhs();
    else if (auto add = a.getDefiningOp<arith::AddIOp>();
             add && matchPattern(add.getRhs(), m_ConstantInt(&c)) && c == lo)
      u = add.getLhs();
    else
      u = arith::SubIOp::create(
          b, loc, a, splat(b, loc, intType, b.getIntegerAttr(elementType, lo)));
  }
  auto bitsType = b.getIntegerType(t.getWidth());
  auto wideType = intType.clone(bitsType);
  if (elementType.getWidth() < t.getWidth())
    u = arith::ExtUIOp::create(b, loc, wideType, u);
  else if (elementType.getWidth() > t.getWidth())
    u = arith::TruncIOp::create(b, loc, wideType, u);
  APInt magicBits =
      valueIn(t, APFloat(static_cast<double>(magic))).bitcastToAPInt();
  Value bits = arith::OrIOp::create(
      b, loc, u,
      splat(b, loc, wideType, b.getIntegerAttr(bitsType, magicBits)));
  Value f = arith::BitcastOp::create(b, loc, type, bits);
  APFloat offsetValue = valueIn(t, APFloat(static_cast<double>(offset)));
  return arith::SubFOp::create(
      b, loc, f, splat(b, loc, type, b.getFloatAttr(t, offsetValue)));
}

/// Rewrite 2: an integer conversion in a small range by exponent bits.
void convertByExponentBits(DataFlowSolver &solver, func::FuncOp func,
                           Replaced &replaced) {
  SmallVector<Operation *> conversions;
  func.walk([&](Operation *op) {
    if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
        isa<RankedTensorType>(op->getResult(0).getType()) && !op->use_empty())
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    bool isSigned = isa<arith::SIToFPOp>(op);
    Value a = op->getOperand(0);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    auto t = dyn_cast<FloatType>(type.getElementType());
    if (!t || !(t.isF32() || t.isF16() || t.isBF16()))
      continue;
    std::optional<IntRange> r = rangeOf(solver, a, isSigned);
    if (!r)
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value result = byExponentBits(b, loc, a, *r, type);
    // A range too wide for bf16's 7 mantissa bits (any i8) whose values
    // bf16 holds: made in f32, then the f32's top half (exact: its low
    // half is zero), with no rounding conversion.
    if (!result && t.isBF16() && holdsExactly(t, *r)) {
      if (Value f = byExponentBits(b, loc, a, *r, type.clone(b.getF32Type()))) {
        auto i32Type = type.clone(b.getI32Type());
        Value bits = arith::BitcastOp::create(b, loc, i32Type, f);
        Value top = arith::ShRUIOp::create(
            b, loc, bits, splat(b, loc, i32Type, b.getI32IntegerAttr(16)));
        Value half =
            arith::TruncIOp::create(b, loc, type.clone(b.getI16Type()), top);
        result = arith::BitcastOp::create(b, loc, type, half);
      }
    }
    if (!result)
      continue;
    op->getResult(0).replaceAllUsesWith(result);
    replaced.add(op);
  }
}

struct TileCheapenConversionsPass
    : tile::impl::TileCheapenConversionsBase<TileCheapenConversionsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    DataFlowSolver solver;
    dataflow::loadBaselineAnalyses(solver);
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(func)))
      return signalPassFailure();
    // Each rewrite's replaced ops are erased before the next collects its
    // ops (a product's f32 conversion is gone before rewrite 2 looks).
    Replaced products, conversions;
    narrowProducts(solver, func, products);
    products.eraseUnused();
    convertByExponentBits(solver, func, conversions);
    conversions.eraseUnused();
  }
};

} // namespace
