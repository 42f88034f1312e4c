//===- MaskAnalysis.cpp - Index masks as affine forms over a tile ---------===//

#include "MaskAnalysis.h"

#include "Tile/IR/TileOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

AffineIndex AffineIndex::scaled(int64_t f) const {
  AffineIndex r;
  r.ivFactor = ivFactor * f;
  for (auto [v, k] : terms)
    r.terms[v] = k * f;
  r.constant = constant * f;
  r.lo = f >= 0 ? lo * f : hi * f;
  r.hi = f >= 0 ? hi * f : lo * f;
  return r;
}

AffineIndex AffineIndex::plus(const AffineIndex &o) const {
  AffineIndex r = *this;
  r.ivFactor += o.ivFactor;
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
      a.ivFactor = 1;
    return a;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
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

std::optional<HalfLine> mlir::tile::halfLineOf(arith::CmpIOp cmp,
                                               MaskAnalyzer &an) {
  std::optional<AffineIndex> l = an.analyze(cmp.getLhs());
  std::optional<AffineIndex> r = an.analyze(cmp.getRhs());
  if (!l || !r)
    return std::nullopt;
  AffineIndex d = l->plus(r->scaled(-1)); // lhs - rhs
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

bool mlir::tile::fitsInI32(const HalfLine &h) {
  auto fits = [](int64_t x) { return x >= INT32_MIN && x <= INT32_MAX; };
  return fits(h.bound) && fits(h.difference.ivFactor) &&
         llvm::all_of(h.difference.terms,
                      [&](auto &t) { return fits(t.second); });
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
