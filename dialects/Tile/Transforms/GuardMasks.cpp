//===- GuardMasks.cpp - A loop's mask skipped where it keeps the tile -----===//
//
// A select on an index mask in the body of a loop that multiplies,
//
//   %q = arith.muli %m, 64              (m = start + t % tiles: per trip)
//   %rows = tile.full %q + tile.arange  (the trip's query indices)
//   %valid = arith.cmpi sge, %rows, %keys
//   %p = arith.select %valid, %x, %zeros
//
// costs a comparison and a select per element on every trip, though on
// most trips it keeps every element (attention backward's causal mask,
// which only the query tiles the diagonal crosses need). Where no loop
// split takes it away (tile-mask-ranges: comparisons linear in the
// induction variable over loop-invariant scalars, in a loop the split is
// on for), each comparison's sides are affine forms over the trip's
// scalars (MaskAnalysis.h), so that it holds for the whole tile is one
// comparison of scalars; the select, and the computation of its mask that
// nothing else uses, run under an `scf.if` on that test:
//
//   %all = arith.cmpi sge, (%q - %k0), 127
//   %p = scf.if %all -> tensor<...> {
//     scf.yield %x
//   } else {
//     %rows = ...
//     %valid = ...
//     %s = arith.select %valid, %x, %zeros
//     scf.yield %s
//   }
//
// The branch is uniform (scalars of the trip), so no thread diverges. The
// pass runs after the schedule passes (a select, not a branch, is what they
// see) and after tile-loop-split.
//
//===----------------------------------------------------------------------===//

#include "MaskAnalysis.h"

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGUARDMASKS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether tile-mask-ranges and tile-loop-split take `cmps` out of the
/// loop's trips: the loop splits (its schedule, or `split`) and the
/// comparisons are half-lines of its trips (tripLines).
bool splitTakes(scf::ForOp loop, ArrayRef<arith::CmpIOp> cmps, bool split) {
  if (!LoopScheduleAttr::flag(loop, &LoopScheduleAttr::getLoopSplit, split))
    return false;
  MaskAnalyzer ranges{loop};
  return tripLines(cmps, ranges).has_value();
}

struct GuardMasksPass
    : public mlir::tile::impl::TileGuardMasksBase<GuardMasksPass> {
  using TileGuardMasksBase::TileGuardMasksBase;

  void runOnOperation() override {
    if (!enabled)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    unsigned guarded = 0;
    for (scf::ForOp loop : loops) {
      if (!loopMultiplies(loop))
        continue;
      for (arith::SelectOp select : tileSelects(loop))
        guarded += guard(loop, select);
    }
    if (warn && !guarded)
      getOperation().emitWarning()
          << "guard_masks does not apply to kernel '"
          << getOperation().getSymName()
          << "': no loop that multiplies selects on a mask of index "
             "comparisons (arange and scalars) that a loop split does not "
             "already take away";
  }

  /// Puts `select` and its mask under an scf.if on the trip's test that
  /// the mask keeps every element; whether it did.
  bool guard(scf::ForOp loop, arith::SelectOp select) {
    SmallVector<arith::CmpIOp> cmps;
    if (!collectMaskComparisons(select.getCondition(), cmps) ||
        splitTakes(loop, cmps, split))
      return false;
    MaskAnalyzer an{loop, /*scalarTerms=*/true};
    SmallVector<HalfLine> lines;
    for (arith::CmpIOp cmp : cmps) {
      std::optional<HalfLine> h = halfLineOf(cmp, an);
      if (!h || !fitsInI32(*h))
        return false;
      h->difference.terms.remove_if([](auto &t) { return t.second == 0; });
      if (h->difference.terms.empty()) {
        // The same on every trip: either it always holds (no test) or it
        // never does for the whole tile (nothing to skip).
        if (h->atLeast ? 0 < h->bound : 0 > h->bound)
          return false;
        continue;
      }
      lines.push_back(*h);
    }
    // Every comparison's test must differ between trips (a scalar of the
    // trip among its terms). One the trips share (a sequence end compared
    // with the block's keys: a loop-invariant scalar part) is left to the
    // select, and with it the whole mask: under a branch beside such a
    // test, ptxas spilled attention backward's loop (head_dim 64, 136
    // bytes) or serialized its wgmma (128, C7512).
    if (lines.empty() || !llvm::all_of(lines, [&](const HalfLine &h) {
          return llvm::any_of(h.difference.terms, [&](auto &t) {
            return !loop.isDefinedOutsideOfLoop(t.first);
          });
        }))
      return false;

    OpBuilder b(select);
    Location loc = select.getLoc();
    auto cst = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    // sum(k * s) >= bound (or <=), and the tests joined.
    Value all;
    for (HalfLine &h : lines) {
      Value sum;
      for (auto [v, k] : h.difference.terms) {
        int64_t magnitude = k < 0 ? -k : k;
        Value term = magnitude == 1
                         ? v
                         : arith::MulIOp::create(b, loc, v, cst(magnitude));
        if (!sum)
          sum = k > 0 ? term : arith::SubIOp::create(b, loc, cst(0), term);
        else if (k > 0)
          sum = arith::AddIOp::create(b, loc, sum, term);
        else
          sum = arith::SubIOp::create(b, loc, sum, term);
      }
      Value test = arith::CmpIOp::create(b, loc,
                                         h.atLeast ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                         sum, cst(h.bound));
      all = all ? arith::AndIOp::create(b, loc, all, test).getResult() : test;
    }

    auto branch = scf::IfOp::create(b, loc, TypeRange{select.getType()}, all,
                                    /*withElseRegion=*/true);
    select.getResult().replaceAllUsesWith(branch.getResult(0));
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, select.getTrueValue());
    b.setInsertionPointToStart(branch.elseBlock());
    auto yield = scf::YieldOp::create(b, loc, select.getResult());
    // What only the select needs, from the body before it (now that the
    // unmasked branch uses its first operand): into the branch that masks.
    llvm::SetVector<Operation *> moved;
    moved.insert(select);
    for (Operation *op = select->getPrevNode(); op; op = op->getPrevNode()) {
      if (op->getNumRegions() || !isMemoryEffectFree(op) || op->use_empty())
        continue;
      if (llvm::all_of(op->getUsers(),
                       [&](Operation *user) { return moved.contains(user); }))
        moved.insert(op);
    }
    for (Operation *op : llvm::reverse(moved))
      op->moveBefore(yield);
    return true;
  }
};

} // namespace
