//===- Values.cpp - Value model, conversions and broadcasting -------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec;
using namespace mlir;

Val Val::dynamic(Value v) {
  Kind k = isa<RankedTensorType>(v.getType())         ? Kind::Tile
           : isa<tile::GlobalTensorType>(v.getType()) ? Kind::Global
                                                      : Kind::Scalar;
  Val r = make(k);
  r.value = v;
  return r;
}

bool Val::containsInvalid() const {
  if (isInvalid())
    return true;
  for (const Val &e : elts)
    if (e.containsInvalid())
      return true;
  return false;
}

Type Val::getElementType() const {
  if (!value)
    return {};
  if (auto t = dyn_cast<RankedTensorType>(value.getType()))
    return t.getElementType();
  if (auto g = dyn_cast<tile::GlobalTensorType>(value.getType()))
    return g.getElementType();
  return value.getType();
}

ArrayRef<int64_t> Val::getShape() const {
  if (kind == Kind::Tile)
    return cast<RankedTensorType>(value.getType()).getShape();
  return {};
}

std::string tilec::typeName(Type type) {
  return tile::getLanguageTypeName(type);
}

std::string tilec::shapeString(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

std::string Val::notI32Hint() const {
  if (!isDynamic() || !isa<IntegerType>(getElementType()) ||
      getElementType().isInteger(1) || getElementType().isInteger(32))
    return "";
  return "; convert it with .astype(i32)";
}

std::string Val::describe() const {
  switch (kind) {
  case Kind::Invalid:
    return "an invalid value";
  case Kind::None:
    return "None";
  case Kind::Int:
    return "the int constant " + std::to_string(i);
  case Kind::Float: {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "the float constant " << llvm::format("%g", f);
    return s;
  }
  case Kind::Bool:
    return std::string("the bool constant ") + (b ? "True" : "False");
  case Kind::DType:
    return "the dtype " + typeName(type);
  case Kind::Rounding:
    return "a rounding mode";
  case Kind::Tuple:
    return "a tuple of " + std::to_string(elts.size()) + " elements";
  case Kind::Scalar: {
    std::string t = typeName(value.getType());
    // "an i32 scalar", "an f16 scalar", "a bf16 scalar", "a bool scalar"
    return (t[0] == 'i' || t[0] == 'f' ? "an " : "a ") + t + " scalar";
  }
  case Kind::Tile:
    return "a tile " + shapeString(getShape()) + " of " +
           typeName(getElementType());
  case Kind::Global:
    return "a global tensor of " + typeName(getElementType());
  case Kind::ShapeOf:
    return "the shape of a global tensor";
  }
  return "a value";
}

Val Emitter::error(llvm::SMLoc l, const llvm::Twine &msg) {
  diag.error(l, msg);
  return Val::invalid();
}

std::optional<int64_t> tilec::floatToInt64(double x) {
  // [-2^63, 2^63): both bounds are exact doubles; NaN fails both tests.
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
    return std::nullopt;
  return static_cast<int64_t>(x);
}

std::optional<int64_t> Emitter::getConstInt(const Val &v) {
  if (v.kind == Val::Kind::Int)
    return v.i;
  if (v.kind == Val::Kind::Bool)
    return v.b ? 1 : 0;
  return std::nullopt;
}

Type Emitter::defaultType(const Val &v) {
  switch (v.kind) {
  case Val::Kind::Int:
    // An int constant i32 cannot hold is an i64 (as in Triton).
    return llvm::isInt<32>(v.i) ? builder.getI32Type() : builder.getI64Type();
  case Val::Kind::Float:
    return builder.getF32Type();
  case Val::Kind::Bool:
    return builder.getI1Type();
  default:
    return v.getElementType();
  }
}

Value Emitter::materializeScalar(const Val &v, Type type, llvm::SMLoc l) {
  Location location = loc(l);
  if (isa<FloatType>(type)) {
    double x = v.kind == Val::Kind::Float ? v.f
               : v.kind == Val::Kind::Int ? static_cast<double>(v.i)
                                          : (v.b ? 1.0 : 0.0);
    return arith::ConstantOp::create(builder, location, type,
                                     builder.getFloatAttr(type, x));
  }
  auto intType = cast<IntegerType>(type);
  int64_t x = 0;
  if (v.kind == Val::Kind::Float) {
    std::optional<int64_t> truncated = floatToInt64(v.f);
    if (!truncated) {
      diag.error(l, std::string(std::isfinite(v.f) ? "the float constant "
                                                     "is out of range of "
                                                   : "cannot convert the "
                                                     "non-finite float "
                                                     "constant to ") +
                        typeName(type));
      return {};
    }
    x = *truncated;
  } else {
    x = v.kind == Val::Kind::Int ? v.i : (v.b ? 1 : 0);
  }
  if (intType.getWidth() == 1) {
    x = x != 0;
  } else if (intType.getWidth() < 64 && !llvm::isIntN(intType.getWidth(), x)) {
    diag.error(l, "the integer constant " + std::to_string(x) +
                      " does not fit in " + typeName(type));
    return {};
  }
  return arith::ConstantOp::create(builder, location, type,
                                   builder.getIntegerAttr(type, x));
}

Val Emitter::scalarOf(const Val &v, llvm::SMLoc l) {
  if (v.kind != Val::Kind::Tile)
    return v;
  int64_t n = 1;
  for (int64_t d : v.getShape())
    n *= d;
  if (n != 1)
    return v;
  return Val::dynamic(
      tile::ItemOp::create(builder, loc(l), v.getElementType(), v.value));
}

bool Emitter::checkTileShape(ArrayRef<int64_t> shape, llvm::SMLoc l) {
  if (shape.empty()) {
    diag.error(l, "a tile needs at least one dimension");
    return false;
  }
  for (int64_t d : shape) {
    if (d <= 0) {
      diag.error(l,
                 "tile dimensions must be positive, got " + shapeString(shape));
      return false;
    }
    if (d > (1 << 20)) {
      diag.error(l, "tile dimension " + std::to_string(d) +
                        " is too large (limit 1048576)");
      return false;
    }
  }
  // Held padded to powers of two (tile::paddedShape).
  int64_t total = 1;
  for (int64_t d : shape) {
    total *= int64_t(llvm::PowerOf2Ceil(uint64_t(d)));
    if (total > (int64_t(1) << 24)) {
      diag.error(l, "tile " + shapeString(shape) +
                        " has too many elements (limit 16777216, counting "
                        "each dimension padded to a power of two)");
      return false;
    }
  }
  return true;
}

std::optional<SmallVector<int64_t>>
Emitter::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                         llvm::SMLoc l) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      diag.error(l, "shape mismatch: " + shapeString(a) + " and " +
                        shapeString(b) + " cannot be broadcast together");
      return std::nullopt;
    }
    result[i] = std::max(da, db);
  }
  return result;
}

std::optional<SmallVector<int64_t>>
Emitter::resultShape(ArrayRef<const Val *> operands, llvm::SMLoc l) {
  SmallVector<int64_t> shape;
  bool any = false;
  for (const Val *v : operands) {
    if (v->kind != Val::Kind::Tile)
      continue;
    if (!any) {
      shape.assign(v->getShape().begin(), v->getShape().end());
      any = true;
      continue;
    }
    auto s = broadcastShapes(shape, v->getShape(), l);
    if (!s)
      return std::nullopt;
    shape = *s;
  }
  return shape;
}

Value Emitter::broadcastTo(Value v, ArrayRef<int64_t> shape,
                           Location location) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  if (type.getRank() < static_cast<int64_t>(shape.size())) {
    SmallVector<int64_t> padded(shape.size() - type.getRank(), 1);
    llvm::append_range(padded, type.getShape());
    v = tile::ReshapeOp::create(
        builder, location, RankedTensorType::get(padded, type.getElementType()),
        v);
    type = cast<RankedTensorType>(v.getType());
    if (type.getShape() == shape)
      return v;
  }
  return tile::BroadcastOp::create(
      builder, location, RankedTensorType::get(shape, type.getElementType()),
      v);
}

/// Rank of a type in the numeric tower bool < int < float.
static int category(Type t) {
  if (t.isInteger(1))
    return 0;
  if (isa<IntegerType>(t))
    return 1;
  return 2;
}

Value Emitter::castElements(Value v, Type elt, Location location) {
  Type src = getElementTypeOrSelf(v.getType());
  if (src == elt)
    return v;
  Type dstType = elt;
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    dstType = t.clone(elt);
  auto zeroLike = [&](Type type) -> Value {
    Type e = getElementTypeOrSelf(type);
    TypedAttr zero = isa<FloatType>(e)
                         ? TypedAttr(builder.getFloatAttr(e, 0))
                         : TypedAttr(builder.getIntegerAttr(e, 0));
    if (auto t = dyn_cast<RankedTensorType>(type))
      zero = SplatElementsAttr::get(t, cast<Attribute>(zero));
    return arith::ConstantOp::create(builder, location, zero);
  };
  bool srcFloat = isa<FloatType>(src), dstFloat = isa<FloatType>(elt);
  // An 8-bit float converts to and from the other floats only: integers and
  // bools go through f32.
  if ((tile::isFloat8Type(src) && !dstFloat) ||
      (tile::isFloat8Type(elt) && !srcFloat))
    return castElements(castElements(v, builder.getF32Type(), location), elt,
                        location);
  if (srcFloat && dstFloat) {
    unsigned sw = src.getIntOrFloatBitWidth(), dw = elt.getIntOrFloatBitWidth();
    if (sw < dw)
      return arith::ExtFOp::create(builder, location, dstType, v);
    if (sw > dw)
      return arith::TruncFOp::create(builder, location, dstType, v);
    // f16 <-> bf16: through f32.
    Type f32 = builder.getF32Type();
    Type midType = f32;
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      midType = t.clone(f32);
    Value mid = arith::ExtFOp::create(builder, location, midType, v);
    return arith::TruncFOp::create(builder, location, dstType, mid);
  }
  if (!srcFloat && dstFloat) {
    if (src.isInteger(1))
      return arith::UIToFPOp::create(builder, location, dstType, v);
    return arith::SIToFPOp::create(builder, location, dstType, v);
  }
  if (srcFloat && !dstFloat) {
    if (elt.isInteger(1))
      return arith::CmpFOp::create(builder, location, arith::CmpFPredicate::UNE,
                                   v, zeroLike(v.getType()));
    return arith::FPToSIOp::create(builder, location, dstType, v);
  }
  // integer <-> integer
  if (elt.isInteger(1))
    return arith::CmpIOp::create(builder, location, arith::CmpIPredicate::ne, v,
                                 zeroLike(v.getType()));
  unsigned sw = src.getIntOrFloatBitWidth(), dw = elt.getIntOrFloatBitWidth();
  if (sw < dw)
    return src.isInteger(1)
               ? Value(arith::ExtUIOp::create(builder, location, dstType, v))
               : Value(arith::ExtSIOp::create(builder, location, dstType, v));
  return arith::TruncIOp::create(builder, location, dstType, v);
}

Value Emitter::coerce(const Val &v, Type elt, ArrayRef<int64_t> shape,
                      llvm::SMLoc l) {
  Location location = loc(l);
  Value result;
  if (v.isConstNumber()) {
    if (shape.empty())
      return materializeScalar(v, elt, l);
    // A constant tile is a splat.
    Value scalar = materializeScalar(v, elt, l);
    if (!scalar)
      return {};
    auto cst = scalar.getDefiningOp<arith::ConstantOp>();
    auto type = RankedTensorType::get(shape, elt);
    Value splat = arith::ConstantOp::create(
        builder, location, SplatElementsAttr::get(type, cst.getValue()));
    if (scalar.use_empty())
      scalar.getDefiningOp()->erase();
    return splat;
  }
  if (!v.isDynamic())
    return {};
  // A run-time scalar never holds an 8-bit float: a tile of it does, made
  // in f32 and converted as a tile.
  if (tile::isFloat8Type(elt) && v.kind == Val::Kind::Scalar) {
    if (shape.empty()) {
      diag.error(l, "a run-time scalar cannot be " + typeName(elt) +
                        ": 8-bit floats exist in tiles only");
      return {};
    }
    Type f32 = builder.getF32Type();
    Value wide = tile::FullOp::create(builder, location,
                                      RankedTensorType::get(shape, f32),
                                      castElements(v.value, f32, location));
    return castElements(wide, elt, location);
  }
  result = castElements(v.value, elt, location);
  if (shape.empty())
    return result;
  if (v.kind == Val::Kind::Scalar)
    return tile::FullOp::create(builder, location,
                                RankedTensorType::get(shape, elt), result);
  return broadcastTo(result, shape, location);
}

bool Emitter::requireArithmetic(const Val &v, llvm::SMLoc l,
                                llvm::StringRef what) {
  if (!v.isDynamic() || !tile::isFloat8Type(v.getElementType()))
    return true;
  diag.error(l, what + " cannot compute on " + v.describe() +
                    ": 8-bit floats are for loads, stores, conversions and "
                    "mma; convert with .astype(f16) or .astype(f32) first");
  return false;
}

Type Emitter::promote(const Val &a, const Val &b, llvm::SMLoc l,
                      llvm::StringRef what) {
  if (!requireArithmetic(a, l, what) || !requireArithmetic(b, l, what))
    return {};
  // Constants are weakly typed: they take the type of the run-time operand.
  if (a.isConstNumber() && b.isConstNumber())
    return defaultType(a.kind == Val::Kind::Float ? a : b);
  if (a.isConstNumber() || b.isConstNumber()) {
    const Val &dyn = a.isConstNumber() ? b : a;
    const Val &cst = a.isConstNumber() ? a : b;
    Type dt = dyn.getElementType();
    if (category(defaultType(cst)) <= category(dt))
      return dt;
    // int tile with a float constant computes in f32; bool with int in i32.
    return defaultType(cst);
  }
  Type ta = a.getElementType(), tb = b.getElementType();
  if (ta == tb)
    return ta;
  int ca = category(ta), cb = category(tb);
  if (ca != cb)
    return ca > cb ? ta : tb; // bool -> int -> float, as numpy does
  // Two ints of different widths: the wider, which holds both.
  if (isa<IntegerType>(ta) && isa<IntegerType>(tb))
    return ta.getIntOrFloatBitWidth() > tb.getIntOrFloatBitWidth() ? ta : tb;
  diag.error(l, "type mismatch in " + what + ": " + typeName(ta) + " and " +
                    typeName(tb) + "; convert one with .astype()");
  return {};
}
