//===- MaskAnalysis.cpp - Index masks as affine forms over a tile ---------===//

#include "MaskAnalysis.h"

#include "Tile/IR/TileOps.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

AffineIndex AffineIndex::scaled(int64_t f) const {
  AffineIndex r;
  r.ivFactor = ivFactor * f;
  r.trip = r.ivFactor ? trip : Value();
  for (auto [v, k] : terms)
    r.terms[v] = k * f;
  r.constant = constant * f;
  r.lo = f >= 0 ? lo * f : hi * f;
  r.hi = f >= 0 ? hi * f : lo * f;
  return r;
}

std::optional<AffineIndex> AffineIndex::plus(const AffineIndex &o) const {
  if (ivFactor && o.ivFactor && trip != o.trip)
    return std::nullopt;
  AffineIndex r = *this;
  if (!r.trip)
    r.trip = o.trip;
  r.ivFactor += o.ivFactor;
  if (!r.ivFactor)
    r.trip = Value();
  for (auto [v, k] : o.terms)
    r.terms[v] += k;
  r.constant += o.constant;
  r.lo += o.lo;
  r.hi += o.hi;
  return r;
}

/// Bounds on the magnitudes kept exact in int64 (i32 indices, small
/// factors); past them the analysis gives up.
static constexpr int64_t kLimit = int64_t(1) << 40;

static bool inRange(const AffineIndex &a) {
  auto ok = [](int64_t x) { return x > -kLimit && x < kLimit; };
  if (!ok(a.ivFactor) || !ok(a.constant) || !ok(a.lo) || !ok(a.hi))
    return false;
  return llvm::all_of(a.terms, [&](auto &t) { return ok(t.second); });
}

static std::optional<AffineIndex> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() <= 64) {
    AffineIndex a;
    a.constant = c.getSExtValue();
    return a;
  }
  return std::nullopt;
}

std::optional<AffineIndex> MaskAnalyzer::analyze(Value v) {
  if (++depth > 64) {
    --depth;
    return std::nullopt;
  }
  auto result = analyzeOp(v);
  --depth;
  if (result && !inRange(*result))
    return std::nullopt;
  return result;
}

std::optional<AffineIndex> MaskAnalyzer::analyzeOp(Value v) {
  auto type = v.getType();
  bool tile = isa<RankedTensorType>(type);
  Type element = tile ? cast<RankedTensorType>(type).getElementType() : type;
  if (!element.isInteger(32))
    return std::nullopt;
  if (std::optional<AffineIndex> c = constantOf(v))
    return c;
  // A scalar as a term of its own: any (scalarTerms), or one defined
  // before the loop.
  if (!tile && v != loop.getInductionVar() &&
      (scalarTerms || loop.isDefinedOutsideOfLoop(v))) {
    AffineIndex a;
    a.terms[v] = 1;
    return a;
  }
  if (v == loop.getInductionVar()) {
    AffineIndex a;
    if (scalarTerms)
      a.terms[v] = 1;
    else
      a.ivFactor = 1, a.trip = v;
    return a;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (quotientOf(v)) {
    AffineIndex a;
    a.ivFactor = 1, a.trip = v;
    return a;
  }
  if (auto arange = dyn_cast<ArangeOp>(op)) {
    AffineIndex a;
    a.hi = arange.getType().getDimSize(0) - 1;
    return a;
  }
  if (auto full = dyn_cast<FullOp>(op))
    return analyze(full.getValue());
  if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(op))
    return analyze(op->getOperand(0));
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    auto l = analyze(add.getLhs()), r = analyze(add.getRhs());
    if (l && r)
      return l->plus(*r);
    return std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(op)) {
    auto l = analyze(sub.getLhs()), r = analyze(sub.getRhs());
    if (l && r)
      return l->plus(r->scaled(-1));
    return std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(op)) {
    for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      std::optional<AffineIndex> k = constantOf(y);
      if (!k) {
        // A splat of a constant scalar.
        if (auto full = y.getDefiningOp<FullOp>())
          k = constantOf(full.getValue());
      }
      if (k)
        if (std::optional<AffineIndex> a = analyze(x))
          return a->scaled(k->constant);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<TripQuotient> MaskAnalyzer::quotientOf(Value trip) {
  // floor((a * iv + S) / d) in the loop's body, with a > 0, S and d
  // loop-invariant and d >= 0: positive wherever the division runs.
  // (Without scalar terms only: with them the quotient is a term.)
  auto div = trip.getDefiningOp<arith::FloorDivSIOp>();
  if (scalarTerms || !div || !div.getType().isInteger(32) ||
      div->getParentOp() != loop.getOperation())
    return std::nullopt;
  Value d = div.getRhs();
  if (!loop.isDefinedOutsideOfLoop(d) || !isKnownNonNegative(d))
    return std::nullopt;
  std::optional<AffineIndex> n = analyze(div.getLhs());
  if (!n || n->ivFactor <= 0 || n->trip != loop.getInductionVar() ||
      n->lo != 0 || n->hi != 0)
    return std::nullopt;
  return TripQuotient{*n, d};
}

std::optional<HalfLine> mlir::tile::halfLineOf(arith::CmpIOp cmp,
                                               MaskAnalyzer &an) {
  std::optional<AffineIndex> l = an.analyze(cmp.getLhs());
  std::optional<AffineIndex> r = an.analyze(cmp.getRhs());
  if (!l || !r)
    return std::nullopt;
  std::optional<AffineIndex> diff = l->plus(r->scaled(-1)); // lhs - rhs
  if (!diff)
    return std::nullopt;
  AffineIndex d = *diff;
  HalfLine h{d, 0, false};
  using P = arith::CmpIPredicate;
  // d = c j + S + lanes, lanes in [lo, hi]; for every element:
  switch (cmp.getPredicate()) {
  case P::slt: // c j + S + hi <= -1
    h.bound = -1 - d.hi - d.constant;
    h.atLeast = false;
    break;
  case P::sle: // c j + S + hi <= 0
    h.bound = -d.hi - d.constant;
    h.atLeast = false;
    break;
  case P::sgt: // c j + S + lo >= 1
    h.bound = 1 - d.lo - d.constant;
    h.atLeast = true;
    break;
  case P::sge: // c j + S + lo >= 0
    h.bound = -d.lo - d.constant;
    h.atLeast = true;
    break;
  default:
    return std::nullopt;
  }
  return h;
}

static bool collect(Value cond, SmallVectorImpl<arith::CmpIOp> &out,
                    unsigned depth) {
  if (depth > 8)
    return false;
  Operation *op = cond.getDefiningOp();
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(op)) {
    out.push_back(cmp);
    return true;
  }
  if (auto both = dyn_cast_or_null<arith::AndIOp>(op))
    return collect(both.getLhs(), out, depth + 1) &&
           collect(both.getRhs(), out, depth + 1);
  if (isa_and_nonnull<BroadcastOp, ConvertLayoutOp>(op))
    return collect(op->getOperand(0), out, depth + 1);
  return false;
}

bool mlir::tile::collectMaskComparisons(Value cond,
                                        SmallVectorImpl<arith::CmpIOp> &out) {
  return collect(cond, out, 0) && !out.empty();
}

/// Whether `bound` and the factors of `a` are i32 constants.
static bool fitsInI32(const AffineIndex &a, int64_t bound) {
  auto fits = [](int64_t x) { return x >= INT32_MIN && x <= INT32_MAX; };
  return fits(bound) && fits(a.ivFactor) &&
         llvm::all_of(a.terms, [&](auto &t) { return fits(t.second); });
}

bool mlir::tile::fitsInI32(const HalfLine &h) {
  return ::fitsInI32(h.difference, h.bound);
}

std::optional<SmallVector<TripLine>>
mlir::tile::tripLines(ArrayRef<arith::CmpIOp> cmps, MaskAnalyzer &an) {
  SmallVector<TripLine> lines;
  for (arith::CmpIOp cmp : cmps) {
    std::optional<HalfLine> h = halfLineOf(cmp, an);
    // (Linear in j: a half-line of trips, its bounds i32 constants.)
    if (!h || h->difference.ivFactor == 0 || !fitsInI32(*h))
      return std::nullopt;
    TripLine t{*h, std::nullopt};
    if (h->difference.trip != an.loop.getInductionVar()) {
      // The bounds on the induction variable take the dividend's factors
      // and its constant (plus one, for an upper bound).
      t.quotient = an.quotientOf(h->difference.trip);
      if (!t.quotient ||
          !::fitsInI32(t.quotient->dividend, t.quotient->dividend.constant + 1))
        return std::nullopt;
    }
    lines.push_back(std::move(t));
  }
  return lines;
}

bool mlir::tile::loopMultiplies(scf::ForOp loop) {
  bool multiplies = false;
  loop.getBody()->walk(
      [&](Operation *op) { multiplies |= isa<MmaOp, WarpgroupMmaOp>(op); });
  return multiplies;
}

SmallVector<arith::SelectOp> mlir::tile::tileSelects(scf::ForOp loop) {
  SmallVector<arith::SelectOp> selects;
  for (Operation &op : *loop.getBody())
    if (auto select = dyn_cast<arith::SelectOp>(op);
        select && isa<RankedTensorType>(select.getCondition().getType()))
      selects.push_back(select);
  return selects;
}

static bool isNonNegative(Value v, unsigned depth) {
  if (depth > 8)
    return false;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return !c.isNegative();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // The induction variable of a (signed) loop is at least its lower bound.
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && loop.getInductionVar() == v && !loop.getUnsignedCmp())
      return isNonNegative(loop.getLowerBound(), depth + 1);
    return false;
  }
  auto nonNeg = [&](Value x) { return isNonNegative(x, depth + 1); };
  Operation *op = v.getDefiningOp();
  return llvm::TypeSwitch<Operation *, bool>(op)
      // Grid indices and sizes, and tensor sizes (i32 in the kernel ABI).
      .Case<BlockIdOp, NumBlocksOp, DimOp>([](auto) { return true; })
      .Case<arith::ExtUIOp>([](auto) { return true; })
      .Case<arith::ExtSIOp>([&](auto o) { return nonNeg(o.getIn()); })
      .Case<arith::IndexCastOp>([&](arith::IndexCastOp o) {
        // A sign extension from a narrow integer to index.
        auto in = dyn_cast<IntegerType>(o.getIn().getType());
        return in && in.getWidth() <= 32 && o.getType().isIndex() &&
               nonNeg(o.getIn());
      })
      .Case<arith::MaxSIOp>([&](arith::MaxSIOp o) {
        return nonNeg(o.getLhs()) || nonNeg(o.getRhs());
      })
      .Case<arith::MinSIOp>([&](arith::MinSIOp o) {
        return nonNeg(o.getLhs()) && nonNeg(o.getRhs());
      })
      .Case<arith::AndIOp>([&](arith::AndIOp o) {
        return nonNeg(o.getLhs()) || nonNeg(o.getRhs());
      })
      .Case<arith::ShRUIOp>([&](arith::ShRUIOp o) {
        APInt shift;
        return matchPattern(o.getRhs(), m_ConstantInt(&shift)) &&
               !shift.isZero();
      })
      // The remainder has the sign of the dividend.
      .Case<arith::RemSIOp>(
          [&](arith::RemSIOp o) { return nonNeg(o.getLhs()); })
      .Case<arith::DivSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(
          [&](auto o) { return nonNeg(o.getLhs()) && nonNeg(o.getRhs()); })
      .Case<arith::AddIOp, arith::MulIOp>([&](auto o) {
        return arith::bitEnumContainsAll(o.getOverflowFlags(),
                                         arith::IntegerOverflowFlags::nsw) &&
               nonNeg(o.getLhs()) && nonNeg(o.getRhs());
      })
      .Case<arith::SelectOp>([&](arith::SelectOp o) {
        return nonNeg(o.getTrueValue()) && nonNeg(o.getFalseValue());
      })
      .Default([](Operation *) { return false; });
}

bool mlir::tile::isKnownNonNegative(Value v) { return isNonNegative(v, 0); }
