//===- MaskAnalysis.h - Index masks as affine forms over a tile -*- C++ -*-===//
//
// What tile-mask-ranges (the trips of a loop where a mask keeps the whole
// tile, as a range of the induction variable) and tile-guard-masks (the
// same test made in each trip) share: an i32 index tile of a loop body as
//
//   c * j + sum(k_i * s_i) + constant + lanes,   lanes in [lo, hi]
//
// (j the induction variable or a quotient of it, floor((a * iv + S) / d)
// with a > 0 and d > 0 loop-invariant, as a loop over (tile, head) pairs
// has its tile; s_i scalars; the lanes' part an arange's 0 .. n - 1
// through broadcasts, additions, subtractions and constant factors), and a
// comparison of two such tiles as the condition on the scalar part under
// which it holds for every element.
//
// The forms are exact in int64 while their magnitudes stay below 2^40; the
// masks' own i32 arithmetic is taken not to wrap (indices of a tensor).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_MASKANALYSIS_H
#define TILE_TRANSFORMS_MASKANALYSIS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

namespace mlir::tile {

/// c * j + sum(terms) + constant + lanes, lanes in [lo, hi].
struct AffineIndex {
  /// c, and j: the loop's induction variable or an arith.floordivsi of it
  /// (null while c is 0).
  int64_t ivFactor = 0;
  Value trip;
  llvm::MapVector<Value, int64_t> terms;
  int64_t constant = 0, lo = 0, hi = 0;

  AffineIndex scaled(int64_t f) const;
  /// The sum; nullopt where the two take different j's.
  std::optional<AffineIndex> plus(const AffineIndex &o) const;
};

/// A quotient of the induction variable, j = floor((a * iv + S) / d): the
/// dividend (a > 0, loop-invariant terms, no lanes) and the divisor d
/// (loop-invariant, known positive wherever the division runs).
struct TripQuotient {
  AffineIndex dividend;
  Value divisor;
};

/// Analyzes i32 scalars and tiles of `loop`'s body as AffineIndex forms.
/// With `scalarTerms` off (tile-mask-ranges), the induction variable is j,
/// loop-invariant scalars are terms and scalars computed in the loop are
/// taken apart (additions, subtractions, constant factors) or unknown; with
/// it on (tile-guard-masks), every scalar other than a constant is a term
/// of its own, the induction variable too.
struct MaskAnalyzer {
  scf::ForOp loop;
  bool scalarTerms = false;
  unsigned depth = 0;

  /// `v`, an i32 scalar or tile, as an affine form; nullopt where unknown.
  std::optional<AffineIndex> analyze(Value v);

  /// What `trip`, a form's j other than the induction variable, divides.
  std::optional<TripQuotient> quotientOf(Value trip);

private:
  std::optional<AffineIndex> analyzeOp(Value v);
};

/// Whether `v` (an integer or index scalar) is known non-negative as a
/// signed integer, from the ops that compute it: constants, grid and tensor
/// sizes, a signed loop's induction variable from a non-negative bound, and
/// the ops that keep the sign of non-negative operands.
bool isKnownNonNegative(Value v);

/// Where a comparison holds over a whole tile: `c * j + S >= bound`
/// (atLeast) or `<= bound`, with c and S the difference's ivFactor and
/// terms (its constant and lanes are in the bound).
struct HalfLine {
  AffineIndex difference;
  int64_t bound;
  bool atLeast;
};

/// The condition under which `cmp` (signed <, <=, >, >=) holds for every
/// element; nullopt for other predicates or sides that are not affine.
std::optional<HalfLine> halfLineOf(arith::CmpIOp cmp, MaskAnalyzer &an);

/// The comparisons joined by arith.andi (through broadcasts and layout
/// conversions) into `cond`; false where something else makes it.
bool collectMaskComparisons(Value cond, SmallVectorImpl<arith::CmpIOp> &out);

/// Whether a half-line's bound and factors are i32 constants (the test is
/// computed in i32, as the mask's indices are).
bool fitsInI32(const HalfLine &h);

/// A comparison's half-line of trips: `line` on j, and the quotient j is
/// (none where j is the induction variable).
struct TripLine {
  HalfLine line;
  std::optional<TripQuotient> quotient;
};

/// The half-lines of trips on which `cmps` hold over the whole tile, each
/// linear in the induction variable or a quotient of it and computable in
/// i32 before the loop (what tile-mask-ranges wraps and tile-loop-split
/// then splits away); nullopt where one is not.
std::optional<SmallVector<TripLine>> tripLines(ArrayRef<arith::CmpIOp> cmps,
                                               MaskAnalyzer &an);

/// The selects on a tile condition in `loop`'s body (not nested), in order.
SmallVector<arith::SelectOp> tileSelects(scf::ForOp loop);

/// Whether `loop`'s body multiplies (tile.mma, tile.wgmma): the loops whose
/// trips a mask's per-element work slows.
bool loopMultiplies(scf::ForOp loop);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_MASKANALYSIS_H
