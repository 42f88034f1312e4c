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
// j is the induction variable, or a quotient of it, floor((a iv + S) / d)
// with a > 0 and d > 0 (a loop over query tiles and the heads of a group,
// the tile t // group): non-decreasing in iv, so a half-line of j is one
// of iv, its end from j's bound times d.
//
//===----------------------------------------------------------------------===//

#include "MaskAnalysis.h"

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
      if (!loopMultiplies(loop))
        continue;
      for (arith::SelectOp select : tileSelects(loop))
        wrap(loop, select);
    }
  }

  /// Wraps `select` in a select on the trips where its mask keeps the
  /// whole tile, where those are a range of the induction variable.
  void wrap(scf::ForOp loop, arith::SelectOp select) {
    SmallVector<arith::CmpIOp> cmps;
    if (!collectMaskComparisons(select.getCondition(), cmps))
      return;
    MaskAnalyzer an{loop};
    std::optional<SmallVector<TripLine>> lines = tripLines(cmps, an);
    if (!lines)
      return;
    // The bounds on j, before the loop: c j + S >= b (or <=) with c != 0.
    OpBuilder b(loop);
    Location loc = select.getLoc();
    auto cst = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    // rest = bound - sum(k_i s_i)
    auto minusTerms = [&](Value rest, const AffineIndex &a) {
      for (auto [v, k] : a.terms) {
        if (k == 0)
          continue;
        Value term = k == 1 ? v : arith::MulIOp::create(b, loc, v, cst(k));
        rest = arith::SubIOp::create(b, loc, rest, term);
      }
      return rest;
    };
    Value lo, hi; // iv >= lo, iv < hi
    auto addLower = [&](Value bound) {
      lo = lo ? arith::MaxSIOp::create(b, loc, lo, bound).getResult() : bound;
    };
    auto addUpper = [&](Value end) {
      hi = hi ? arith::MinSIOp::create(b, loc, hi, end).getResult() : end;
    };
    for (TripLine &t : *lines) {
      HalfLine &h = t.line;
      Value rest = minusTerms(cst(h.bound), h.difference);
      int64_t c = h.difference.ivFactor;
      // c j >= rest: with c > 0, j >= ceil(rest / c); with c < 0,
      // j <= floor(rest / c). c j <= rest: the other way round.
      bool lower = (h.atLeast) == (c > 0);
      Value bound =
          lower ? arith::CeilDivSIOp::create(b, loc, rest, cst(c)).getResult()
                : arith::FloorDivSIOp::create(b, loc, rest, cst(c)).getResult();
      if (!t.quotient) {
        if (lower)
          addLower(bound);
        else
          addUpper(arith::AddIOp::create(b, loc, bound, cst(1)));
        continue;
      }
      // j = floor((a iv + S) / d), d > 0: j >= L where a iv + S >= L d,
      // iv >= ceil((L d - S) / a); j <= U where a iv + S <= (U + 1) d - 1,
      // iv < floor(((U + 1) d - 1 - S) / a) + 1.
      TripQuotient &q = *t.quotient;
      int64_t a = q.dividend.ivFactor;
      if (lower) {
        Value n = arith::MulIOp::create(b, loc, bound, q.divisor);
        n = minusTerms(
            arith::SubIOp::create(b, loc, n, cst(q.dividend.constant)),
            q.dividend);
        addLower(arith::CeilDivSIOp::create(b, loc, n, cst(a)));
      } else {
        Value next = arith::AddIOp::create(b, loc, bound, cst(1));
        Value n = arith::MulIOp::create(b, loc, next, q.divisor);
        n = minusTerms(
            arith::SubIOp::create(b, loc, n, cst(q.dividend.constant + 1)),
            q.dividend);
        Value last = arith::FloorDivSIOp::create(b, loc, n, cst(a));
        addUpper(arith::AddIOp::create(b, loc, last, cst(1)));
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
