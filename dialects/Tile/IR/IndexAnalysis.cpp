//===- IndexAnalysis.cpp - What is known of an index tile -----------------===//

#include "Tile/IR/IndexAnalysis.h"

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kMaxDivisor = int64_t(1) << 30;

/// The largest power of two dividing `c` (2^30 for zero).
static int64_t pow2Divisor(int64_t c) {
  if (c == 0)
    return kMaxDivisor;
  return std::min<int64_t>(kMaxDivisor, int64_t(1)
                                            << llvm::countr_zero(uint64_t(c)));
}

static int64_t mulDivisors(int64_t a, int64_t b) {
  return std::min<int64_t>(kMaxDivisor, a * b); // both at most 2^30
}

int64_t mlir::tile::scalarDivisor(Value scalar) {
  Operation *def = scalar.getDefiningOp();
  if (!def)
    return 1;
  if (auto c = dyn_cast<arith::ConstantOp>(def))
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return pow2Divisor(i.getInt());
  if (auto m = dyn_cast<arith::MulIOp>(def))
    return mulDivisors(scalarDivisor(m.getLhs()), scalarDivisor(m.getRhs()));
  if (auto s = dyn_cast<arith::ShLIOp>(def))
    if (auto c = s.getRhs().getDefiningOp<arith::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        if (i.getInt() >= 0 && i.getInt() < 30)
          return mulDivisors(scalarDivisor(s.getLhs()), int64_t(1)
                                                            << i.getInt());
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::min(scalarDivisor(def->getOperand(0)),
                    scalarDivisor(def->getOperand(1)));
  return 1;
}

/// Every element of `tile` is a multiple of the result.
static int64_t elementDivisor(Value tile) {
  IndexRuns r = analyzeIndexRuns(tile, 0);
  return r.contiguous > 1 ? 1 : r.divisor;
}

IndexRuns mlir::tile::analyzeIndexRuns(Value tile, unsigned dim) {
  auto type = dyn_cast<RankedTensorType>(tile.getType());
  if (!type || dim >= type.getRank())
    return {};
  int64_t size = type.getDimSize(dim);
  Operation *def = tile.getDefiningOp();
  if (!def)
    return {};
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (dense && dense.getElementType().isInteger(32))
      return {1, size,
              pow2Divisor(dense.getSplatValue<APInt>().getSExtValue())};
    return {};
  }
  if (isa<ArangeOp>(def))
    return {size, 1, kMaxDivisor}; // one run, from 0
  if (auto full = dyn_cast<FullOp>(def))
    return {1, size, scalarDivisor(full.getValue())};
  if (auto cvt = dyn_cast<ConvertLayoutOp>(def))
    return analyzeIndexRuns(cvt.getSource(), dim);
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    auto src = cast<RankedTensorType>(b.getSource().getType());
    // Leading dimensions added by the broadcast, if any.
    int64_t added = type.getRank() - src.getRank();
    if (int64_t(dim) < added)
      return {1, size, elementDivisor(b.getSource())};
    unsigned s = dim - added;
    if (src.getDimSize(s) == 1 && size > 1)
      return {1, size, elementDivisor(b.getSource())};
    return analyzeIndexRuns(b.getSource(), s);
  }
  if (auto e = dyn_cast<ExpandDimsOp>(def)) {
    unsigned axis = e.getAxis();
    if (dim == axis)
      return {1, 1, elementDivisor(e.getSource())};
    return analyzeIndexRuns(e.getSource(), dim < axis ? dim : dim - 1);
  }
  // A view that only inserts or drops unit dimensions (`arange(n).reshape(
  // (1, n))`, as `arange(n)[None, :]`): the source's dimension of the same
  // rank among the non-unit ones.
  if (auto r = dyn_cast<ReshapeOp>(def)) {
    ArrayRef<int64_t> from = r.getSource().getType().getShape();
    auto nonUnit = [](ArrayRef<int64_t> shape) {
      SmallVector<unsigned> dims;
      for (auto [d, n] : llvm::enumerate(shape))
        if (n != 1)
          dims.push_back(d);
      return dims;
    };
    SmallVector<unsigned> src = nonUnit(from), res = nonUnit(type.getShape());
    if (src.size() != res.size() ||
        !llvm::all_of(llvm::zip(src, res), [&](auto p) {
          return from[std::get<0>(p)] == type.getDimSize(std::get<1>(p));
        }))
      return {};
    if (size == 1)
      return {1, 1, elementDivisor(r.getSource())};
    unsigned k = llvm::find(res, dim) - res.begin();
    return analyzeIndexRuns(r.getSource(), src[k]);
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    IndexRuns a = analyzeIndexRuns(add.getLhs(), dim);
    IndexRuns b = analyzeIndexRuns(add.getRhs(), dim);
    if (b.contiguous > 1)
      std::swap(a, b);
    if (a.contiguous > 1 && b.constant > 1) // a run plus a constant
      return {std::min(a.contiguous, b.constant), 1,
              std::min(a.divisor, b.divisor)};
    if (a.contiguous > 1)
      return {}; // the run's inner elements are not multiples of its divisor
    return {1, std::min(a.constant, b.constant),
            std::min(a.divisor, b.divisor)};
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    IndexRuns a = analyzeIndexRuns(mul.getLhs(), dim);
    IndexRuns b = analyzeIndexRuns(mul.getRhs(), dim);
    if (a.contiguous > 1 || b.contiguous > 1) {
      // A run times values each known a multiple of d: multiples of d.
      const IndexRuns &c = a.contiguous > 1 ? b : a;
      return {1, 1, c.contiguous == 1 ? c.divisor : 1};
    }
    return {1, std::min(a.constant, b.constant),
            mulDivisors(a.divisor, b.divisor)};
  }
  return {};
}
