//===- Expressions.cpp - Names, literals, operators, subscripts -----------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <limits>

using namespace tilec;
using namespace mlir;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Constant folding (Python semantics)
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

static int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

static double asDouble(const Val &v) {
  return v.kind == Val::Kind::Float ? v.f
         : v.kind == Val::Kind::Int ? static_cast<double>(v.i)
                                    : (v.b ? 1.0 : 0.0);
}

/// Folds an operator over two constants. Integers that overflow int64 are an
/// error rather than wrapping silently.
static Val foldBinary(Emitter &em, ast::BinaryOp op, const Val &a, const Val &b,
                      SMLoc l) {
  using ast::BinaryOp;
  bool isFloat = a.kind == Val::Kind::Float || b.kind == Val::Kind::Float;
  if (op == BinaryOp::Div) {
    double d = asDouble(b);
    if (d == 0)
      return em.error(l, "division by zero in a constant expression");
    return Val::floating(asDouble(a) / d);
  }
  if (isFloat) {
    double x = asDouble(a), y = asDouble(b);
    switch (op) {
    case BinaryOp::Add:
      return Val::floating(x + y);
    case BinaryOp::Sub:
      return Val::floating(x - y);
    case BinaryOp::Mul:
      return Val::floating(x * y);
    case BinaryOp::FloorDiv:
      if (y == 0)
        return em.error(l, "division by zero in a constant expression");
      return Val::floating(std::floor(x / y));
    case BinaryOp::Mod:
      if (y == 0)
        return em.error(l, "division by zero in a constant expression");
      return Val::floating(x - std::floor(x / y) * y);
    case BinaryOp::Pow:
      return Val::floating(std::pow(x, y));
    default:
      return em.error(l, "operator '" + ast::toString(op).str() +
                             "' needs integer operands");
    }
  }
  int64_t x = *em.getConstInt(a), y = *em.getConstInt(b), r = 0;
  bool overflow = false;
  switch (op) {
  case BinaryOp::Add:
    overflow = __builtin_add_overflow(x, y, &r);
    break;
  case BinaryOp::Sub:
    overflow = __builtin_sub_overflow(x, y, &r);
    break;
  case BinaryOp::Mul:
    overflow = __builtin_mul_overflow(x, y, &r);
    break;
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (y == 0)
      return em.error(l, "division by zero in a constant expression");
    if (x == std::numeric_limits<int64_t>::min() && y == -1) {
      overflow = true;
      break;
    }
    r = op == BinaryOp::FloorDiv ? floorDiv(x, y) : floorMod(x, y);
    break;
  case BinaryOp::Pow: {
    if (y < 0)
      return Val::floating(
          std::pow(static_cast<double>(x), static_cast<double>(y)));
    r = 1;
    for (int64_t k = 0; k < y && !overflow; ++k) {
      overflow = __builtin_mul_overflow(r, x, &r);
      if (r == 0 || r == 1)
        break; // 0**y and 1**y settle at once; (-1)**y needs the parity
    }
    if (!overflow && x == -1)
      r = (y % 2) ? -1 : 1;
    break;
  }
  case BinaryOp::BitAnd:
    r = x & y;
    break;
  case BinaryOp::BitOr:
    r = x | y;
    break;
  case BinaryOp::BitXor:
    r = x ^ y;
    break;
  case BinaryOp::Shl:
    if (y < 0 || y >= 63)
      return em.error(l,
                      "shift count " + std::to_string(y) + " is out of range");
    overflow = __builtin_mul_overflow(x, int64_t(1) << y, &r);
    break;
  case BinaryOp::Shr:
    if (y < 0)
      return em.error(l, "negative shift count");
    r = y >= 63 ? (x < 0 ? -1 : 0) : (x >> y);
    break;
  case BinaryOp::Div:
    break; // handled above
  }
  if (overflow)
    return em.error(l, "integer overflow in a constant expression");
  // bool & bool stays a bool, as in Python.
  if (a.kind == Val::Kind::Bool && b.kind == Val::Kind::Bool &&
      (op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
       op == BinaryOp::BitXor))
    return Val::boolean(r != 0);
  return Val::integer(r);
}

template <typename T> static bool compare(ast::CompareOp op, T x, T y) {
  switch (op) {
  case ast::CompareOp::Lt:
    return x < y;
  case ast::CompareOp::Le:
    return x <= y;
  case ast::CompareOp::Gt:
    return x > y;
  case ast::CompareOp::Ge:
    return x >= y;
  case ast::CompareOp::Eq:
    return x == y;
  case ast::CompareOp::Ne:
    return x != y;
  }
  return false;
}

static Val foldCompare(ast::CompareOp op, const Val &a, const Val &b) {
  // Integers compare exactly, also beyond 2^53.
  if (a.kind != Val::Kind::Float && b.kind != Val::Kind::Float) {
    int64_t x = a.kind == Val::Kind::Int ? a.i : a.b;
    int64_t y = b.kind == Val::Kind::Int ? b.i : b.b;
    return Val::boolean(compare(op, x, y));
  }
  return Val::boolean(compare(op, asDouble(a), asDouble(b)));
}

/// Python truthiness of a constant; nullopt for run-time values.
static std::optional<bool> constTruth(const Val &v) {
  switch (v.kind) {
  case Val::Kind::Bool:
    return v.b;
  case Val::Kind::Int:
    return v.i != 0;
  case Val::Kind::Float:
    return v.f != 0;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Operators on run-time values
//===----------------------------------------------------------------------===//

/// `x ** c`, a run-time base and a constant exponent. An integral `c` is
/// exact, by repeated squaring (x ** 5: three multiplies), in the base's
/// type (an int base stays an int for c >= 0, as in Python; a negative c
/// gives 1 / x ** -c in floats, correctly rounded); 0.5 and -0.5 are sqrt
/// and rsqrt; any other float is exp2(c * log2(x)) on the approximate
/// instructions, as CUDA's __powf (IEEE's special cases follow: a negative
/// base gives NaN, 0 gives 0 or inf), computed in f32 for 16-bit floats.
static Val emitPow(Emitter &em, const Val &x, const Val &c, SMLoc l) {
  if (!c.isConstNumber())
    return em.error(l, "'**' with a run-time exponent is not supported; on "
                       "run-time values the exponent must be a constant "
                       "(x ** 2, x ** -1, x ** 0.5), and for a run-time y "
                       "with x > 0 write exp2(y * log2(x))");
  if (!em.requireArithmetic(x, l, "operator '**'"))
    return Val::invalid();
  Location location = em.loc(l);
  OpBuilder &b = em.builder;
  Type base = x.getElementType();
  bool floatBase = isa<FloatType>(base);
  double e = c.kind == Val::Kind::Float ? c.f : double(*em.getConstInt(c));
  bool integral = std::nearbyint(e) == e && std::fabs(e) < 2147483648.0;
  Type f32 = b.getF32Type();
  if (integral) {
    int64_t n = int64_t(e);
    // Python: int ** int >= 0 is an int (bools compute in i32), anything
    // with a float or a negative exponent a float.
    bool floatResult = floatBase || c.kind == Val::Kind::Float || n < 0;
    Type elt = floatBase ? base : floatResult ? f32 : b.getI32Type();
    Value v = em.coerce(x, elt, x.getShape(), l);
    if (!v)
      return Val::invalid();
    auto mul = [&](Value p, Value q) -> Value {
      return floatResult ? Value(arith::MulFOp::create(b, location, p, q))
                         : Value(arith::MulIOp::create(b, location, p, q));
    };
    Value r;
    for (uint64_t m = uint64_t(n < 0 ? -n : n), sq = 0; m; m >>= 1, sq = 1) {
      if (sq)
        v = mul(v, v);
      if (m & 1)
        r = r ? mul(r, v) : v;
    }
    Val one = floatResult ? Val::floating(1.0) : Val::integer(1);
    if (!r)
      return Val::dynamic(em.coerce(one, elt, x.getShape(), l));
    if (n < 0)
      r = arith::DivFOp::create(b, location,
                                em.coerce(one, elt, x.getShape(), l), r);
    return Val::dynamic(r);
  }
  // A float exponent: computed in f32 for anything narrower.
  Type elt = floatBase && base.getIntOrFloatBitWidth() >= 32 ? base : f32;
  Value v = em.coerce(x, elt, x.getShape(), l);
  if (!v)
    return Val::invalid();
  Value r;
  if (e == 0.5) {
    r = math::SqrtOp::create(b, location, v);
  } else if (e == -0.5) {
    r = math::RsqrtOp::create(b, location, v);
  } else {
    Value lg = math::Log2Op::create(b, location, v);
    Value scaled = arith::MulFOp::create(
        b, location, lg, em.coerce(Val::floating(e), elt, x.getShape(), l));
    r = tile::Exp2Op::create(b, location, scaled, UnitAttr());
  }
  if (floatBase && base != elt)
    r = em.castElements(r, base, location);
  return Val::dynamic(r);
}

Val Emitter::emitBinary(ast::BinaryOp op, Val lhs, Val rhs, SMLoc l) {
  using ast::BinaryOp;
  if (lhs.isInvalid() || rhs.isInvalid())
    return Val::invalid();
  std::string opName = "'" + ast::toString(op).str() + "'";
  if (!lhs.isNumeric() || !rhs.isNumeric()) {
    const Val &bad = lhs.isNumeric() ? rhs : lhs;
    return error(l, "operator " + opName + " cannot be applied to " +
                        bad.describe());
  }
  if (lhs.isConstNumber() && rhs.isConstNumber())
    return foldBinary(*this, op, lhs, rhs, l);
  if (op == BinaryOp::Pow)
    return emitPow(*this, lhs, rhs, l);

  Type elt = promote(lhs, rhs, l, "operator " + opName);
  if (!elt)
    return Val::invalid();
  // True division always produces floats.
  if (op == BinaryOp::Div && !isa<FloatType>(elt))
    elt = builder.getF32Type();
  bool isFloat = isa<FloatType>(elt);
  bool isBool = elt.isInteger(1);
  if (isFloat &&
      (op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
       op == BinaryOp::BitXor || op == BinaryOp::Shl || op == BinaryOp::Shr))
    return error(l, "operator " + opName +
                        " needs integer or bool operands, "
                        "got " +
                        typeName(elt));
  if (isFloat && op == BinaryOp::Mod)
    return error(l,
                 "operator '%' needs integer operands, got " + typeName(elt));
  if (isBool && !(op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
                  op == BinaryOp::BitXor)) {
    // Arithmetic on bools computes in i32, as Python does.
    elt = builder.getI32Type();
  }

  auto shapeOr = resultShape({&lhs, &rhs}, l);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  Value a = coerce(lhs, elt, shape, l);
  Value b = coerce(rhs, elt, shape, l);
  if (!a || !b)
    return Val::invalid();
  Location location = loc(l);
  Value r;
  switch (op) {
  case BinaryOp::Add:
    r = isFloat ? Value(arith::AddFOp::create(builder, location, a, b))
                : Value(arith::AddIOp::create(builder, location, a, b));
    break;
  case BinaryOp::Sub:
    r = isFloat ? Value(arith::SubFOp::create(builder, location, a, b))
                : Value(arith::SubIOp::create(builder, location, a, b));
    break;
  case BinaryOp::Mul:
    r = isFloat ? Value(arith::MulFOp::create(builder, location, a, b))
                : Value(arith::MulIOp::create(builder, location, a, b));
    break;
  case BinaryOp::Div:
    r = arith::DivFOp::create(builder, location, a, b);
    break;
  case BinaryOp::FloorDiv:
    if (isFloat) {
      Value q = arith::DivFOp::create(builder, location, a, b);
      r = math::FloorOp::create(builder, location, q);
    } else {
      r = arith::FloorDivSIOp::create(builder, location, a, b);
    }
    break;
  case BinaryOp::Mod: {
    // Python's modulo takes the sign of the divisor: a - floordiv(a, b) * b.
    Value q = arith::FloorDivSIOp::create(builder, location, a, b);
    Value qb = arith::MulIOp::create(builder, location, q, b);
    r = arith::SubIOp::create(builder, location, a, qb);
    break;
  }
  case BinaryOp::BitAnd:
    r = arith::AndIOp::create(builder, location, a, b);
    break;
  case BinaryOp::BitOr:
    r = arith::OrIOp::create(builder, location, a, b);
    break;
  case BinaryOp::BitXor:
    r = arith::XOrIOp::create(builder, location, a, b);
    break;
  case BinaryOp::Shl:
    r = arith::ShLIOp::create(builder, location, a, b);
    break;
  case BinaryOp::Shr:
    r = arith::ShRSIOp::create(builder, location, a, b);
    break;
  case BinaryOp::Pow:
    break; // emitPow above
  }
  return Val::dynamic(r);
}

Val Emitter::emitCompare(ast::CompareOp op, Val lhs, Val rhs, SMLoc l) {
  if (lhs.isInvalid() || rhs.isInvalid())
    return Val::invalid();
  // Two dtypes are equal or not, at compile time (`if X.dtype == i64:`).
  if (lhs.kind == Val::Kind::DType && rhs.kind == Val::Kind::DType &&
      (op == ast::CompareOp::Eq || op == ast::CompareOp::Ne))
    return Val::boolean((lhs.type == rhs.type) == (op == ast::CompareOp::Eq));
  if (!lhs.isNumeric() || !rhs.isNumeric()) {
    const Val &bad = lhs.isNumeric() ? rhs : lhs;
    return error(l, "cannot compare " + bad.describe() +
                        (bad.kind == Val::Kind::DType
                             ? " (dtypes compare with == and != to dtypes)"
                             : ""));
  }
  if (lhs.isConstNumber() && rhs.isConstNumber())
    return foldCompare(op, lhs, rhs);
  Type elt = promote(lhs, rhs, l, "comparison");
  if (!elt)
    return Val::invalid();
  auto shapeOr = resultShape({&lhs, &rhs}, l);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  Value a = coerce(lhs, elt, shape, l);
  Value b = coerce(rhs, elt, shape, l);
  if (!a || !b)
    return Val::invalid();
  Location location = loc(l);
  if (isa<FloatType>(elt)) {
    // Ordered comparisons, except != which is true for NaN (as in Python).
    arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
    switch (op) {
    case ast::CompareOp::Lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case ast::CompareOp::Le:
      p = arith::CmpFPredicate::OLE;
      break;
    case ast::CompareOp::Gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case ast::CompareOp::Ge:
      p = arith::CmpFPredicate::OGE;
      break;
    case ast::CompareOp::Eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case ast::CompareOp::Ne:
      p = arith::CmpFPredicate::UNE;
      break;
    }
    return Val::dynamic(arith::CmpFOp::create(builder, location, p, a, b));
  }
  bool isBool = elt.isInteger(1);
  arith::CmpIPredicate p = arith::CmpIPredicate::eq;
  switch (op) {
  case ast::CompareOp::Lt:
    p = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case ast::CompareOp::Le:
    p = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case ast::CompareOp::Gt:
    p = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case ast::CompareOp::Ge:
    p = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  case ast::CompareOp::Eq:
    p = arith::CmpIPredicate::eq;
    break;
  case ast::CompareOp::Ne:
    p = arith::CmpIPredicate::ne;
    break;
  }
  return Val::dynamic(arith::CmpIOp::create(builder, location, p, a, b));
}

/// `not x` / `~x` / `-x` / `+x`.
static Val emitUnary(Emitter &em, const ast::Unary &u) {
  Val v = em.emitExpr(*u.operand);
  if (v.isInvalid())
    return v;
  SMLoc l = u.getLoc();
  if (!v.isNumeric())
    return em.error(l, "unary '" + ast::toString(u.op).str() +
                           "' cannot be applied to " + v.describe());
  switch (u.op) {
  case ast::UnaryOp::Pos:
    return v;
  case ast::UnaryOp::Neg:
    if (v.kind == Val::Kind::Float)
      return Val::floating(-v.f);
    if (v.isConstNumber()) {
      int64_t x = *em.getConstInt(v);
      if (x == std::numeric_limits<int64_t>::min())
        return em.error(l, "integer overflow in a constant expression");
      return Val::integer(-x);
    }
    if (!em.requireArithmetic(v, l, "'-'"))
      return Val::invalid();
    if (isa<FloatType>(v.getElementType()))
      return Val::dynamic(
          arith::NegFOp::create(em.builder, em.loc(l), v.value));
    return em.emitBinary(ast::BinaryOp::Sub, Val::integer(0), v, l);
  case ast::UnaryOp::Not: {
    if (auto t = constTruth(v))
      return Val::boolean(!*t);
    if (!v.getElementType().isInteger(1))
      return em.error(l, "'not' needs a bool operand, got " + v.describe() +
                             "; compare it explicitly");
    return em.emitBinary(ast::BinaryOp::BitXor, v, Val::boolean(true), l);
  }
  case ast::UnaryOp::Invert:
    if (v.kind == Val::Kind::Float ||
        (v.isDynamic() && isa<FloatType>(v.getElementType())))
      return em.error(l, "'~' needs an integer or bool operand");
    if (v.kind == Val::Kind::Bool)
      return Val::integer(~static_cast<int64_t>(v.b));
    if (v.kind == Val::Kind::Int)
      return Val::integer(~v.i);
    if (v.getElementType().isInteger(1))
      return em.emitBinary(ast::BinaryOp::BitXor, v, Val::boolean(true), l);
    return em.emitBinary(ast::BinaryOp::BitXor, v, Val::integer(-1), l);
  }
  return Val::invalid();
}

/// `a and b`, `a or b`: short-circuit on constants, so that
/// `(CAUSAL or not EVEN_K) and j >= start` drops the run-time test when the
/// constant part decides it.
static Val emitBoolOp(Emitter &em, const ast::BoolOp &e) {
  bool isAnd = e.op == ast::BoolOpKind::And;
  Val lhs = em.emitExpr(*e.lhs);
  if (lhs.isInvalid())
    return lhs;
  if (auto t = constTruth(lhs)) {
    if (*t != isAnd)
      return Val::boolean(*t); // False and ..., True or ...
    Val rhs = em.emitExpr(*e.rhs);
    if (rhs.isInvalid() || rhs.isConstNumber())
      return rhs.isConstNumber() ? Val::boolean(*constTruth(rhs)) : rhs;
    if (!rhs.isDynamic() || !rhs.getElementType().isInteger(1))
      return em.error(e.rhs->getLoc(), "'" + ast::toString(e.op).str() +
                                           "' needs bool operands, got " +
                                           rhs.describe());
    return rhs;
  }
  if (!lhs.isDynamic() || !lhs.getElementType().isInteger(1))
    return em.error(e.lhs->getLoc(), "'" + ast::toString(e.op).str() +
                                         "' needs bool operands, got " +
                                         lhs.describe());
  Val rhs = em.emitExpr(*e.rhs);
  if (rhs.isInvalid())
    return rhs;
  if (auto t = constTruth(rhs))
    return *t == isAnd ? lhs : Val::boolean(*t);
  if (!rhs.isDynamic() || !rhs.getElementType().isInteger(1))
    return em.error(e.rhs->getLoc(), "'" + ast::toString(e.op).str() +
                                         "' needs bool operands, got " +
                                         rhs.describe());
  // Both run-time: evaluate both sides (they have no side effects).
  return em.emitBinary(isAnd ? ast::BinaryOp::BitAnd : ast::BinaryOp::BitOr,
                       lhs, rhs, e.getLoc());
}

/// `a if c else b`. On a constant condition only the taken side is emitted
/// (either side may then be anything, as in Python: `K if CAUSAL else
/// None`); on a run-time bool an scf.if evaluates only the taken side (a
/// load or an atomic on the other is not executed), both sides promoted to
/// one type and shape as where()'s operands are.
static Val emitIfExp(Emitter &em, const ast::IfExp &e) {
  Val cond = em.emitExpr(*e.test);
  if (cond.isInvalid())
    return cond;
  if (auto taken = constTruth(cond))
    return em.emitExpr(*taken ? *e.body : *e.orelse);
  if (cond.kind == Val::Kind::Tile)
    return em.error(e.test->getLoc(),
                    "the condition of a conditional expression must be a "
                    "scalar, got " +
                        cond.describe() +
                        "; use where() for elementwise choices");
  if (!cond.isDynamic() || !cond.getElementType().isInteger(1))
    return em.error(e.test->getLoc(),
                    "the condition of a conditional expression must be a "
                    "bool, got " +
                        cond.describe());
  Location location = em.loc(e.ifLoc);
  // Both sides into a result-less scf.if first: the result type is known
  // once both have been emitted.
  auto ifOp = scf::IfOp::create(em.builder, location, TypeRange(), cond.value,
                                /*withElseRegion=*/true);
  auto atEnd = [&](Block *block) {
    em.builder.setInsertionPoint(block->getTerminator());
  };
  auto fail = [&] {
    ifOp.erase();
    return Val::invalid();
  };
  Val x, y;
  {
    OpBuilder::InsertionGuard guard(em.builder);
    atEnd(ifOp.thenBlock());
    x = em.emitExpr(*e.body);
    atEnd(ifOp.elseBlock());
    y = em.emitExpr(*e.orelse);
  }
  if (x.isInvalid() || y.isInvalid())
    return fail();
  if (!x.isNumeric() || !y.isNumeric()) {
    const ast::Expr &bad = x.isNumeric() ? *e.orelse : *e.body;
    em.error(bad.getLoc(),
             "on a run-time condition, both sides of a conditional expression "
             "must be numbers or tiles, got " +
                 (x.isNumeric() ? y : x).describe() +
                 " (a choice between other values needs a constant "
                 "condition)");
    return fail();
  }
  Type elt = em.promote(x, y, e.ifLoc, "conditional expression");
  if (!elt)
    return fail();
  auto shapeOr = em.resultShape({&x, &y}, e.ifLoc);
  if (!shapeOr)
    return fail();
  Value xv, yv;
  {
    OpBuilder::InsertionGuard guard(em.builder);
    atEnd(ifOp.thenBlock());
    xv = em.coerce(x, elt, *shapeOr, e.body->getLoc());
    atEnd(ifOp.elseBlock());
    yv = em.coerce(y, elt, *shapeOr, e.orelse->getLoc());
  }
  if (!xv || !yv)
    return fail();
  auto result = scf::IfOp::create(em.builder, location, TypeRange{xv.getType()},
                                  cond.value,
                                  /*withElseRegion=*/true);
  for (auto [to, from, value] :
       {std::make_tuple(&result.getThenRegion(), &ifOp.getThenRegion(), xv),
        std::make_tuple(&result.getElseRegion(), &ifOp.getElseRegion(), yv)}) {
    to->takeBody(*from);
    Block &block = to->front();
    block.getTerminator()->erase();
    OpBuilder::InsertionGuard guard(em.builder);
    em.builder.setInsertionPointToEnd(&block);
    scf::YieldOp::create(em.builder, location, value);
  }
  ifOp.erase();
  return Val::dynamic(result.getResult(0));
}

//===----------------------------------------------------------------------===//
// Names, attributes and subscripts
//===----------------------------------------------------------------------===//

/// Built-in names that are values: dtypes and constants (one table for the
/// lookup and for the suggestions after an unknown name).
namespace {
enum class BuiltinName {
  F16,
  BF16,
  F8E4M3,
  F8E5M2,
  F32,
  I32,
  I64,
  I8,
  Bool,
  Inf,
  NaN,
  Approx,
  Full,
  RN
};
} // namespace
static const std::pair<llvm::StringRef, BuiltinName> kBuiltinNames[] = {
    {"f16", BuiltinName::F16},       {"float16", BuiltinName::F16},
    {"bf16", BuiltinName::BF16},     {"bfloat16", BuiltinName::BF16},
    {"f8e4m3", BuiltinName::F8E4M3}, {"float8_e4m3fn", BuiltinName::F8E4M3},
    {"f8e5m2", BuiltinName::F8E5M2}, {"float8_e5m2", BuiltinName::F8E5M2},
    {"f32", BuiltinName::F32},       {"float32", BuiltinName::F32},
    {"float", BuiltinName::F32},     {"i32", BuiltinName::I32},
    {"int32", BuiltinName::I32},     {"int", BuiltinName::I32},
    {"i64", BuiltinName::I64},       {"int64", BuiltinName::I64},
    {"i8", BuiltinName::I8},         {"int8", BuiltinName::I8},
    {"bool", BuiltinName::Bool},     {"bool_", BuiltinName::Bool},
    {"inf", BuiltinName::Inf},       {"nan", BuiltinName::NaN},
    {"APPROX", BuiltinName::Approx}, {"FULL", BuiltinName::Full},
    {"RN", BuiltinName::RN}};

static std::optional<Val> lookupBuiltinName(Emitter &em, llvm::StringRef name) {
  Builder &b = em.builder;
  const auto *it = llvm::find_if(
      kBuiltinNames, [&](const auto &entry) { return entry.first == name; });
  if (it == std::end(kBuiltinNames))
    return std::nullopt;
  switch (it->second) {
  case BuiltinName::F16:
    return Val::dtype(b.getF16Type());
  case BuiltinName::BF16:
    return Val::dtype(b.getBF16Type());
  case BuiltinName::F8E4M3:
    return Val::dtype(b.getType<Float8E4M3FNType>());
  case BuiltinName::F8E5M2:
    return Val::dtype(b.getType<Float8E5M2Type>());
  case BuiltinName::F32:
    return Val::dtype(b.getF32Type());
  case BuiltinName::I32:
    return Val::dtype(b.getI32Type());
  case BuiltinName::I64:
    return Val::dtype(b.getI64Type());
  case BuiltinName::I8:
    return Val::dtype(b.getI8Type());
  case BuiltinName::Bool:
    return Val::dtype(b.getI1Type());
  case BuiltinName::Inf:
    return Val::floating(std::numeric_limits<double>::infinity());
  case BuiltinName::NaN:
    return Val::floating(std::numeric_limits<double>::quiet_NaN());
  case BuiltinName::Approx:
    return Val::roundingMode(tile::RoundingMode::Approx);
  case BuiltinName::Full:
    return Val::roundingMode(tile::RoundingMode::Full);
  case BuiltinName::RN:
    return Val::roundingMode(tile::RoundingMode::RN);
  }
  llvm_unreachable("every built-in name is handled");
}

static Val emitName(Emitter &em, const ast::Name &n) {
  auto it = em.env.find(n.id);
  if (it != em.env.end())
    return it->second;
  auto g = em.globals.find(n.id);
  if (g != em.globals.end())
    return g->second;
  if (auto v = lookupBuiltinName(em, n.id))
    return *v;
  auto gone = em.outOfScope.find(n.id);
  if (gone != em.outOfScope.end()) {
    em.diag.error(n.getLoc(), "'" + n.id +
                                  "' is not defined here: it is only "
                                  "assigned inside a loop body or on one "
                                  "path of an 'if'");
    em.diag.note(gone->second, "'" + n.id + "' is assigned here");
    return Val::invalid();
  }
  if (em.runtimeOnly.contains(n.id))
    return em.error(n.getLoc(),
                    "'" + n.id +
                        "' is a run-time parameter: @hints take compile-time "
                        "constants only (module constants and const "
                        "parameters)");
  if (em.functions.count(n.id))
    return em.error(n.getLoc(), "'" + n.id +
                                    "' is a function, not a value: call it, " +
                                    n.id + "(...)");
  // The names in scope, the module's constants and the built-in names.
  std::vector<llvm::StringRef> candidates;
  for (const auto &entry : kBuiltinNames)
    candidates.push_back(entry.first);
  for (const auto &entry : em.env)
    candidates.push_back(entry.first());
  for (const auto &entry : em.globals)
    candidates.push_back(entry.first());
  std::string message = "unknown name '" + n.id + "'";
  llvm::StringRef id(n.id);
  bool typeLike = (id.starts_with("f") || id.starts_with("i") ||
                   id.starts_with("u") || id.starts_with("bf")) &&
                  id.size() <= 8 && llvm::any_of(id, llvm::isDigit);
  if (typeLike)
    message += " (the element types are f16, bf16, f32, i32, i64, i8, bool, "
               "f8e4m3 and f8e5m2)" +
               didYouMean(id, candidates);
  else
    message += didYouMean(id, candidates);
  if (!em.calls.empty())
    message += " (a function sees its parameters and the module's "
               "constants and functions, not its caller's names: pass "
               "them as arguments)";
  return em.error(n.getLoc(), message);
}

static Val emitAttribute(Emitter &em, const ast::Attribute &a) {
  Val base = em.emitExpr(*a.base);
  if (base.isInvalid())
    return base;
  SMLoc l = a.attrRange.Start;
  if (a.attr == "dtype") {
    if (base.kind == Val::Kind::Global || base.isDynamic())
      return Val::dtype(base.getElementType());
    if (base.isConstNumber())
      return Val::dtype(em.defaultType(base));
  }
  if (a.attr == "shape") {
    if (base.kind == Val::Kind::Global)
      return Val::shapeOf(base.value);
    if (base.kind == Val::Kind::Tile) {
      std::vector<Val> dims;
      for (int64_t d : base.getShape())
        dims.push_back(Val::integer(d));
      return Val::tuple(std::move(dims));
    }
    if (base.kind == Val::Kind::Scalar)
      return Val::tuple({});
  }
  if (a.attr == "ndim") {
    if (base.kind == Val::Kind::Global)
      return Val::integer(
          cast<tile::GlobalTensorType>(base.value.getType()).getRank());
    if (base.kind == Val::Kind::Tile)
      return Val::integer(base.getShape().size());
  }
  return em.error(l, base.describe() + " has no attribute '" + a.attr + "'");
}

/// A tile subscript, numpy's basic indexing with constants: per source
/// dimension a full slice `:`, a slice `a:b:s` (constant bounds, negative
/// from the end; a positive power-of-two step dividing the dimension), or an
/// index `i` (the dimension dropped); None inserts a dimension of size 1.
/// Dimensions not named are kept whole. A part of the tile is a
/// `tile.extract`; dropped dimensions a reshape. A strided dimension is
/// split in (n / s, s) by a reshape first and the extract takes one column
/// of the split (register renamings where a thread holds the s elements of
/// a group, `x[:, 1::2]` of a row held in pairs).
static Val emitTileSubscript(Emitter &em, const Val &base,
                             const ast::Subscript &s) {
  ArrayRef<int64_t> shape = base.getShape();
  size_t named = 0;
  for (const ast::ExprPtr &idx : s.indices)
    if (!isa<ast::NoneLit>(idx.get()))
      ++named;
  if (named > shape.size())
    return em.error(s.getLoc(), "too many indices: " + std::to_string(named) +
                                    " for a tile of rank " +
                                    std::to_string(shape.size()));
  // A bound: a constant int, negative counting from the end.
  auto bound = [&](const ast::Expr &e, int64_t size) -> std::optional<int64_t> {
    Val v = em.emitExpr(e);
    if (v.isInvalid())
      return std::nullopt;
    std::optional<int64_t> c = em.getConstInt(v);
    if (!c || v.kind == Val::Kind::Bool) {
      em.error(e.getLoc(), "a tile's indices and slice bounds must be int "
                           "constants, got " +
                               v.describe());
      return std::nullopt;
    }
    return *c < 0 ? *c + size : *c;
  };
  SmallVector<int64_t> offsets(shape.size(), 0), sizes(shape);
  SmallVector<int64_t> steps(shape.size(), 1);
  SmallVector<bool> dropped(shape.size(), false);
  unsigned dim = 0;
  for (const ast::ExprPtr &idx : s.indices) {
    if (isa<ast::NoneLit>(idx.get()))
      continue;
    int64_t n = shape[dim];
    if (auto *slice = dyn_cast<ast::Slice>(idx.get())) {
      if (slice->step) {
        Val st = em.emitExpr(*slice->step);
        if (st.isInvalid())
          return Val::invalid();
        std::optional<int64_t> c = em.getConstInt(st);
        if (!c || st.kind == Val::Kind::Bool)
          return em.error(slice->step->getLoc(),
                          "a tile slice's step must be an int constant, got " +
                              st.describe());
        if (*c <= 0)
          return em.error(slice->step->getLoc(),
                          "a tile slice's step must be positive, got " +
                              std::to_string(*c) +
                              " (a reversed tile is not supported)");
        if (*c > 1 && (!llvm::isPowerOf2_64(*c) || n % *c != 0))
          return em.error(slice->step->getLoc(),
                          "a tile slice's step must be a power of two that "
                          "divides the dimension, got step " +
                              std::to_string(*c) + " of a dimension of " +
                              std::to_string(n));
        steps[dim] = *c;
      }
      std::optional<int64_t> lo = 0, hi = n;
      if (slice->lower && !(lo = bound(*slice->lower, n)))
        return Val::invalid();
      if (slice->upper && !(hi = bound(*slice->upper, n)))
        return Val::invalid();
      if (*lo < 0 || *hi > n || *lo >= *hi)
        return em.error(idx->getLoc(),
                        "slice " + std::to_string(*lo) + ":" +
                            std::to_string(*hi) + " of a dimension of " +
                            std::to_string(n) +
                            " (a tile slice takes at least one element, "
                            "inside the tile)");
      offsets[dim] = *lo;
      sizes[dim] = (*hi - *lo + steps[dim] - 1) / steps[dim];
    } else {
      std::optional<int64_t> i = bound(*idx, n);
      if (!i)
        return Val::invalid();
      if (*i < 0 || *i >= n)
        return em.error(idx->getLoc(), "index " + std::to_string(*i) +
                                           " is outside a dimension of " +
                                           std::to_string(n));
      offsets[dim] = *i;
      sizes[dim] = 1;
      dropped[dim] = true;
    }
    ++dim;
  }
  Value v = base.value;
  auto type = cast<RankedTensorType>(v.getType());
  if (llvm::any_of(steps, [](int64_t st) { return st > 1; })) {
    // Each strided dimension split in (n / s, s); the extract takes rows
    // lo / s on and the column lo % s of the split.
    SmallVector<int64_t> split, at, part;
    for (unsigned d = 0; d < shape.size(); ++d) {
      if (steps[d] == 1) {
        split.push_back(shape[d]);
        at.push_back(offsets[d]);
        part.push_back(sizes[d]);
        continue;
      }
      split.append({shape[d] / steps[d], steps[d]});
      at.append({offsets[d] / steps[d], offsets[d] % steps[d]});
      part.append({sizes[d], 1});
    }
    if (!em.checkTileShape(sizes, s.getLoc()))
      return Val::invalid();
    Location l = em.loc(s.getLoc());
    Type elt = type.getElementType();
    v = tile::ReshapeOp::create(em.builder, l,
                                RankedTensorType::get(split, elt), v);
    v = tile::ExtractOp::create(em.builder, l, RankedTensorType::get(part, elt),
                                v, em.builder.getDenseI64ArrayAttr(at));
    v = tile::ReshapeOp::create(em.builder, l,
                                RankedTensorType::get(sizes, elt), v);
  } else if (ArrayRef<int64_t>(sizes) != shape) {
    if (!em.checkTileShape(sizes, s.getLoc()))
      return Val::invalid();
    v = tile::ExtractOp::create(
        em.builder, em.loc(s.getLoc()),
        RankedTensorType::get(sizes, type.getElementType()), v,
        em.builder.getDenseI64ArrayAttr(offsets));
  }
  if (llvm::is_contained(dropped, true)) {
    SmallVector<int64_t> kept;
    for (unsigned d = 0; d < sizes.size(); ++d)
      if (!dropped[d])
        kept.push_back(sizes[d]);
    if (kept.empty())
      return em.error(s.getLoc(), "indexing every dimension gives a scalar, "
                                  "which a tile subscript does not (slice "
                                  "one: x[i:i + 1])");
    v = tile::ReshapeOp::create(
        em.builder, em.loc(s.getLoc()),
        RankedTensorType::get(kept, type.getElementType()), v);
  }
  // None inserts a dimension where it stands among the result's.
  int64_t axis = 0;
  dim = 0;
  for (const ast::ExprPtr &idx : s.indices) {
    if (isa<ast::NoneLit>(idx.get())) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> newShape(t.getShape());
      newShape.insert(newShape.begin() + axis, 1);
      v = tile::ExpandDimsOp::create(
          em.builder, em.loc(idx->getLoc()),
          RankedTensorType::get(newShape, t.getElementType()), v,
          em.builder.getI32IntegerAttr(axis));
      ++axis;
      continue;
    }
    if (!dropped[dim])
      ++axis;
    ++dim;
  }
  return Val::dynamic(v);
}

/// A slice of a global tensor, `X[a:b, c:]`: per dimension a slice whose
/// bounds are int constants or i32 run-time scalars (no step), the
/// dimensions not named whole; a tensor of the same rank (`tile.subview`,
/// which clamps the bounds into the tensor).
static Val emitTensorSlice(Emitter &em, const Val &base,
                           const ast::Subscript &s) {
  auto type = cast<tile::GlobalTensorType>(base.value.getType());
  unsigned rank = type.getRank();
  if (s.indices.size() > rank)
    return em.error(s.getLoc(),
                    "too many indices: " + std::to_string(s.indices.size()) +
                        " for a tensor of rank " + std::to_string(rank));
  Location l = em.loc(s.getLoc());
  auto bound = [&](const ast::Expr &e, unsigned dim) -> Value {
    Val v = em.scalarOf(em.emitExpr(e), e.getLoc());
    if (v.isInvalid())
      return nullptr;
    if (v.kind == Val::Kind::Int) {
      if (v.i < 0) {
        em.diag.error(e.getLoc(),
                      "a tensor slice's bounds are positions from 0, got " +
                          std::to_string(v.i) +
                          " (Python would count it from the end: write "
                          "X.shape[" +
                          std::to_string(dim) + "] - " + std::to_string(-v.i) +
                          ")");
        return nullptr;
      }
      return em.materializeScalar(v, em.builder.getI32Type(), e.getLoc());
    }
    if (v.kind == Val::Kind::Scalar && v.value.getType().isInteger(32))
      return v.value;
    em.diag.error(e.getLoc(), "a tensor slice's bounds must be int constants "
                              "or i32 scalars, got " +
                                  v.describe() + v.notI32Hint());
    return nullptr;
  };
  SmallVector<Value> starts, ends;
  SmallVector<int32_t> endDims;
  for (unsigned d = 0; d < rank; ++d) {
    const ast::Slice *slice = nullptr;
    if (d < s.indices.size()) {
      const ast::Expr &idx = *s.indices[d];
      if (isa<ast::NoneLit>(idx))
        return em.error(idx.getLoc(), "None applies to tiles, not tensors");
      slice = dyn_cast<ast::Slice>(&idx);
      if (!slice)
        return em.error(idx.getLoc(),
                        "a tensor is sliced, not indexed: a part of it keeps "
                        "its rank (X[i:i + 1] for one index along a "
                        "dimension)");
      if (slice->step) {
        Val st = em.emitExpr(*slice->step);
        std::optional<int64_t> c = em.getConstInt(st);
        if (!st.isInvalid() && (!c || *c != 1 || st.kind == Val::Kind::Bool))
          return em.error(slice->step->getLoc(),
                          "a tensor slice takes no step (its elements stay "
                          "where they are; load() reads a part of it)");
      }
    }
    Value start;
    if (slice && slice->lower) {
      start = bound(*slice->lower, d);
      if (!start)
        return Val::invalid();
    } else {
      start = em.materializeScalar(Val::integer(0), em.builder.getI32Type(),
                                   s.getLoc());
    }
    starts.push_back(start);
    if (slice && slice->upper) {
      Value end = bound(*slice->upper, d);
      if (!end)
        return Val::invalid();
      ends.push_back(end);
      endDims.push_back(int32_t(d));
    }
  }
  // (`X[:, :]` folds to X: SubviewOp::fold.)
  return Val::dynamic(
      tile::SubviewOp::create(em.builder, l, type, base.value, starts, ends,
                              em.builder.getDenseI32ArrayAttr(endDims)));
}

static Val emitSubscript(Emitter &em, const ast::Subscript &s) {
  Val base = em.emitExpr(*s.base);
  if (base.isInvalid())
    return base;
  if (base.kind == Val::Kind::Tile)
    return emitTileSubscript(em, base, s);
  if (base.kind == Val::Kind::Global)
    return emitTensorSlice(em, base, s);
  if (s.indices.size() != 1)
    return em.error(s.getLoc(), base.describe() + " takes a single index");
  const ast::Expr &idxExpr = *s.indices.front();
  if (isa<ast::Slice>(idxExpr) || isa<ast::NoneLit>(idxExpr))
    return em.error(idxExpr.getLoc(), "slices and None apply to tiles only");
  Val idx = em.emitExpr(idxExpr);
  if (idx.isInvalid())
    return idx;
  auto i = em.getConstInt(idx);
  if (!i || idx.kind == Val::Kind::Bool)
    return em.error(idxExpr.getLoc(),
                    "the index must be an integer constant, got " +
                        idx.describe());
  auto normalize = [&](int64_t size) -> std::optional<int64_t> {
    int64_t k = *i < 0 ? *i + size : *i;
    if (k < 0 || k >= size) {
      em.diag.error(idxExpr.getLoc(), "index " + std::to_string(*i) +
                                          " is out of range for " +
                                          std::to_string(size) + " elements");
      return std::nullopt;
    }
    return k;
  };
  if (base.kind == Val::Kind::Tuple) {
    auto k = normalize(base.elts.size());
    return k ? base.elts[*k] : Val::invalid();
  }
  if (base.kind == Val::Kind::ShapeOf) {
    auto type = cast<tile::GlobalTensorType>(base.value.getType());
    auto k = normalize(type.getRank());
    if (!k)
      return Val::invalid();
    return Val::dynamic(tile::DimOp::create(
        em.builder, em.loc(s.getLoc()), base.value,
        em.builder.getI32IntegerAttr(static_cast<int32_t>(*k))));
  }
  return em.error(s.getLoc(), base.describe() + " cannot be indexed");
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Val Emitter::emitExpr(const ast::Expr &e) {
  switch (e.getKind()) {
  case ast::Expr::Kind::IntLit:
    return Val::integer(cast<ast::IntLit>(e).value);
  case ast::Expr::Kind::FloatLit:
    return Val::floating(cast<ast::FloatLit>(e).value);
  case ast::Expr::Kind::BoolLit:
    return Val::boolean(cast<ast::BoolLit>(e).value);
  case ast::Expr::Kind::NoneLit:
    return Val::none();
  case ast::Expr::Kind::Name:
    return emitName(*this, cast<ast::Name>(e));
  case ast::Expr::Kind::Tuple: {
    std::vector<Val> elts;
    for (const ast::ExprPtr &x : cast<ast::Tuple>(e).elts)
      elts.push_back(emitExpr(*x));
    return Val::tuple(std::move(elts));
  }
  case ast::Expr::Kind::Unary:
    return emitUnary(*this, cast<ast::Unary>(e));
  case ast::Expr::Kind::Binary: {
    const auto &b = cast<ast::Binary>(e);
    Val lhs = emitExpr(*b.lhs);
    Val rhs = emitExpr(*b.rhs);
    return emitBinary(b.op, std::move(lhs), std::move(rhs),
                      b.opLoc.isValid() ? b.opLoc : b.getLoc());
  }
  case ast::Expr::Kind::BoolOp:
    return emitBoolOp(*this, cast<ast::BoolOp>(e));
  case ast::Expr::Kind::IfExp:
    return emitIfExp(*this, cast<ast::IfExp>(e));
  case ast::Expr::Kind::Compare: {
    // a < b < c means (a < b) and (b < c), with b evaluated once.
    const auto &c = cast<ast::Compare>(e);
    Val prev = emitExpr(*c.operands[0]);
    Val result;
    for (size_t i = 0; i < c.ops.size(); ++i) {
      Val next = emitExpr(*c.operands[i + 1]);
      SMLoc opLoc = i < c.opLocs.size() ? c.opLocs[i] : c.getLoc();
      Val r = emitCompare(c.ops[i], prev, next, opLoc);
      if (i == 0)
        result = r;
      else if (auto t = constTruth(result); t && !*t)
        ; // already False
      else if (auto t2 = constTruth(r); t2 && *t2)
        ; // and True: unchanged
      else
        result = emitBinary(ast::BinaryOp::BitAnd, result, r, opLoc);
      prev = next;
    }
    return result;
  }
  case ast::Expr::Kind::Call:
    return emitCall(cast<ast::Call>(e));
  case ast::Expr::Kind::Attribute:
    return emitAttribute(*this, cast<ast::Attribute>(e));
  case ast::Expr::Kind::Subscript:
    return emitSubscript(*this, cast<ast::Subscript>(e));
  case ast::Expr::Kind::Slice:
    return error(e.getLoc(), "a slice is only valid inside '[...]'");
  }
  return Val::invalid();
}
