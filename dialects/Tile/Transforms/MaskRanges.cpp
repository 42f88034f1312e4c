//===- MaskRanges.cpp - The trips where a mask keeps the whole tile -------===//
//
// A select on a mask in a loop body,
//
//   %cols = j * TILE_N + arange(TILE_N)          (the key tile's indices)
//   %c1 = arith.cmpi sle, %cols, %rows            (causal)
//   %c2 = arith.cmpi sgt, %cols, %rows - window   (a sliding window)
//   %m = arith.select (%c1 & %c2), %s, -inf
//
// keeps %s everywhere on the trips where each comparison holds for every
// element. An index tile here is affine: c * j + (loop-invariant scalars)
// + lanes, the lanes' part bounded by [lo, hi] (an arange's 0 .. n - 1,
// through additions, subtractions and constant factors), so the difference
// of a comparison's sides is too, and it holds over the tile where one
// bound of it does: a half-line of trips. Their intersection, [lo, hi), is
// computed before the loop, and the select wrapped in one on it, which
// tile-loop-split then splits away.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMASKRANGES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// c * j + sum(terms) + constant + lanes, lanes in [lo, hi]: an i32 scalar
/// or tile of a loop body, j its induction variable, the terms
/// loop-invariant scalars with their factors.
struct Affine {
  int64_t ivFactor = 0;
  llvm::MapVector<Value, int64_t> terms;
  int64_t constant = 0, lo = 0, hi = 0;

  Affine scaled(int64_t f) const {
    Affine r;
    r.ivFactor = ivFactor * f;
    for (auto [v, k] : terms)
      r.terms[v] = k * f;
    r.constant = constant * f;
    r.lo = f >= 0 ? lo * f : hi * f;
    r.hi = f >= 0 ? hi * f : lo * f;
    return r;
  }
  Affine plus(const Affine &o) const {
    Affine r = *this;
    r.ivFactor += o.ivFactor;
    for (auto [v, k] : o.terms)
      r.terms[v] += k;
    r.constant += o.constant;
    r.lo += o.lo;
    r.hi += o.hi;
    return r;
  }
};

/// Bounds on the magnitudes kept exact in int64 (i32 indices, small
/// factors); past them the analysis gives up.
constexpr int64_t kLimit = int64_t(1) << 40;

bool inRange(const Affine &a) {
  auto ok = [](int64_t x) { return x > -kLimit && x < kLimit; };
  if (!ok(a.ivFactor) || !ok(a.constant) || !ok(a.lo) || !ok(a.hi))
    return false;
  return llvm::all_of(a.terms, [&](auto &t) { return ok(t.second); });
}

struct Analyzer {
  scf::ForOp loop;
  unsigned depth = 0;

  std::optional<Affine> constantOf(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() <= 64) {
      Affine a;
      a.constant = c.getSExtValue();
      return a;
    }
    return std::nullopt;
  }

  /// `v`, an i32 scalar or tile, as an affine form; nullopt where unknown.
  std::optional<Affine> analyze(Value v) {
    if (++depth > 64)
      return std::nullopt;
    auto result = analyzeOp(v);
    --depth;
    if (result && !inRange(*result))
      return std::nullopt;
    return result;
  }

  std::optional<Affine> analyzeOp(Value v) {
    auto type = v.getType();
    Type element = isa<RankedTensorType>(type)
                       ? cast<RankedTensorType>(type).getElementType()
                       : type;
    if (!element.isInteger(32))
      return std::nullopt;
    if (std::optional<Affine> c = constantOf(v))
      return c;
    if (v == loop.getInductionVar()) {
      Affine a;
      a.ivFactor = 1;
      return a;
    }
    // A loop-invariant scalar: a term of its own.
    if (!isa<RankedTensorType>(type) && loop.isDefinedOutsideOfLoop(v)) {
      Affine a;
      a.terms[v] = 1;
      return a;
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto arange = dyn_cast<ArangeOp>(op)) {
      Affine a;
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
        std::optional<Affine> k = constantOf(y);
        if (!k) {
          // A splat of a constant scalar.
          if (auto full = y.getDefiningOp<FullOp>())
            k = constantOf(full.getValue());
        }
        if (k)
          if (std::optional<Affine> a = analyze(x))
            return a->scaled(k->constant);
      }
      return std::nullopt;
    }
    return std::nullopt;
  }
};

/// Where a comparison holds over a whole tile: `c * j + S >= bound`
/// (atLeast) or `<= bound`, with c and S the difference's ivFactor and
/// terms (its constant and lanes are in the bound).
struct HalfLine {
  Affine difference;
  int64_t bound;
  bool atLeast;
};

/// The half-line of trips where `cmp` holds for every element, if it is one.
std::optional<HalfLine> halfLineOf(arith::CmpIOp cmp, Analyzer &an) {
  std::optional<Affine> l = an.analyze(cmp.getLhs());
  std::optional<Affine> r = an.analyze(cmp.getRhs());
  if (!l || !r)
    return std::nullopt;
  Affine d = l->plus(r->scaled(-1)); // lhs - rhs
  if (d.ivFactor == 0)
    return std::nullopt;
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

/// The comparisons joined by arith.andi into `cond`, or false where
/// something else makes it.
bool collect(Value cond, SmallVectorImpl<arith::CmpIOp> &out, unsigned depth) {
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

struct MaskRangesPass
    : public mlir::tile::impl::TileMaskRangesBase<MaskRangesPass> {
  using TileMaskRangesBase::TileMaskRangesBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      if (!LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getLoopSplit,
                                  enabled) ||
          loop.getUnsignedCmp() ||
          !loop.getInductionVar().getType().isInteger(32))
        continue;
      APInt step;
      if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
          step.getSExtValue() <= 0)
        continue;
      // Loops that multiply (the loops the schedule is for: attention's
      // scores masked each trip); elsewhere a split saves a select an
      // element and costs a copy of the body (mla_combine's gather
      // indices: 96 -> 110 registers, a block a multiprocessor fewer).
      bool multiplies = false;
      loop.getBody()->walk(
          [&](Operation *op) { multiplies |= isa<MmaOp, WarpgroupMmaOp>(op); });
      if (!multiplies)
        continue;
      SmallVector<arith::SelectOp> selects;
      for (Operation &op : *loop.getBody())
        if (auto select = dyn_cast<arith::SelectOp>(op);
            select && isa<RankedTensorType>(select.getCondition().getType()))
          selects.push_back(select);
      for (arith::SelectOp select : selects)
        wrap(loop, select);
    }
  }

  /// Wraps `select` in a select on the trips where its mask keeps the
  /// whole tile, where those are a range of the induction variable.
  void wrap(scf::ForOp loop, arith::SelectOp select) {
    SmallVector<arith::CmpIOp> cmps;
    if (!collect(select.getCondition(), cmps, 0) || cmps.empty())
      return;
    Analyzer an{loop};
    SmallVector<HalfLine> lines;
    for (arith::CmpIOp cmp : cmps) {
      std::optional<HalfLine> h = halfLineOf(cmp, an);
      if (!h)
        return;
      lines.push_back(*h);
    }
    // The bounds are computed in i32, as the mask's indices are: every
    // constant they take must be one.
    auto fits = [](int64_t x) { return x >= INT32_MIN && x <= INT32_MAX; };
    for (HalfLine &h : lines)
      if (!fits(h.bound) || !fits(h.difference.ivFactor) ||
          !llvm::all_of(h.difference.terms,
                        [&](auto &t) { return fits(t.second); }))
        return;
    // The bounds on j, before the loop: c j + S >= b (or <=) with c != 0.
    OpBuilder b(loop);
    Location loc = select.getLoc();
    auto cst = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    Value lo, hi; // j >= lo, j < hi
    for (HalfLine &h : lines) {
      // rest = b - S
      Value rest = cst(h.bound);
      for (auto [v, k] : h.difference.terms) {
        if (k == 0)
          continue;
        Value term = k == 1 ? v : arith::MulIOp::create(b, loc, v, cst(k));
        rest = arith::SubIOp::create(b, loc, rest, term);
      }
      int64_t c = h.difference.ivFactor;
      // c j >= rest: with c > 0, j >= ceil(rest / c); with c < 0,
      // j <= floor(rest / c). c j <= rest: the other way round.
      bool lower = (h.atLeast) == (c > 0);
      Value bound;
      if (lower) {
        bound = arith::CeilDivSIOp::create(b, loc, rest, cst(c));
        lo = lo ? arith::MaxSIOp::create(b, loc, lo, bound) : bound;
      } else {
        bound = arith::FloorDivSIOp::create(b, loc, rest, cst(c));
        Value end = arith::AddIOp::create(b, loc, bound, cst(1));
        hi = hi ? arith::MinSIOp::create(b, loc, hi, end).getResult() : end;
      }
    }
    b.setInsertionPointAfter(select);
    Value j = loop.getInductionVar();
    Value inside;
    if (lo)
      inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, lo);
    if (hi) {
      Value below =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, hi);
      inside = inside ? arith::AndIOp::create(b, loc, inside, below).getResult()
                      : below;
    }
    auto wrapped =
        arith::SelectOp::create(b, loc, inside, select.getTrueValue(), select);
    select.getResult().replaceAllUsesExcept(wrapped, wrapped);
  }
};

} // namespace
