//===- LoadTransposedOperands.cpp - Operands loaded in the order used -----===//
//
// A multiply's operand that is a loaded tile transposed is loaded
// transposed: the permutation moves into the load's `order` (the tensor
// read through permuted dimensions), through reshapes that only add or drop
// unit dimensions.
//
//   %q  = tile.load %Q[%b, %m, %c0] : !tile.global<f16, 3> ->
//   tensor<1x64x128xf16> %r  = tile.reshape %q : tensor<1x64x128xf16> ->
//   tensor<64x128xf16> %qt = tile.permute %r [1, 0] : tensor<64x128xf16> ->
//   tensor<128x64xf16> %s  = tile.mma %k, %qt, %acc : ...
//
// becomes
//
//   %l  = tile.load %Q[%b, %c0, %m] {order = array<i32: 0, 2, 1>}
//       : !tile.global<f16, 3> -> tensor<1x128x64xf16>
//   %qt = tile.reshape %l : tensor<1x128x64xf16> -> tensor<128x64xf16>
//   %s  = tile.mma %k, %qt, %acc : ...
//
// An operand goes through shared memory on its way to the tensor cores
// either way; read in the order it is used, the copy there is a load the
// pipeliner issues ahead (cp.async, TMA) instead of registers stored
// transposed in each trip. Where the untransposed tile has other uses (the
// same Q feeding K Q^T and dS^T Q in attention's backward), the load stays
// for them: two copies of the tile from global memory (L2), each in its
// own ring, rather than one copy the loop cannot pipeline; with `wgmma`,
// a transpose read only as B, or as a 16-bit A, stays, for tile.wgmma to
// read the tile's one buffer transposed (B^T; A through a transposed view,
// M-major). Gathered loads (`boxes`) and permutes with other uses
// are left alone.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOADTRANSPOSEDOPERANDS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether every use of `v` is an `a` or `b` operand of a tile.mma.
bool onlyMultiplied(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    auto mma = dyn_cast<MmaOp>(use.getOwner());
    return mma && (use.get() == mma.getA() || use.get() == mma.getB()) &&
           use.get() != mma.getAcc();
  });
}

/// Whether every use of `v` is an operand a wgmma can read transposed
/// from shared memory: `b` of any tile.mma, `a` of one whose elements are
/// 16-bit (8-bit and f32 A is read K-major only).
bool onlyMultipliedTransposable(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    auto mma = dyn_cast<MmaOp>(use.getOwner());
    if (!mma || use.get() == mma.getAcc() ||
        (use.get() == mma.getA() && use.get() == mma.getB()))
      return false;
    return use.get() == mma.getB() ||
           !isKMajorMmaType(mma.getA().getType().getElementType());
  });
}

/// Whether a wgmma can read `permute` from the buffer of its source tile:
/// a 2-D transpose used only as B, or as a 16-bit A, of a tile (a load's,
/// through reshapes) whose other uses are multiply operands too, so staged
/// in shared memory anyway.
bool sharesBuffer(PermuteOp permute) {
  if (permute.getPermutation() != ArrayRef<int32_t>{1, 0} ||
      !onlyMultipliedTransposable(permute.getResult()))
    return false;
  Value source = permute.getSource();
  bool others = false;
  for (OpOperand &use : source.getUses()) {
    if (use.getOwner() == permute.getOperation())
      continue;
    auto mma = dyn_cast<MmaOp>(use.getOwner());
    if (!mma || use.get() == mma.getAcc())
      return false;
    others = true;
  }
  return others;
}

/// Rewrites `permute` into a transposed load where it permutes a load's
/// tile (through unit-dimension reshapes) for multiplies only.
/// The reshapes and the load it went through go where nothing else uses
/// them.
LogicalResult loadTransposed(PermuteOp permute, IRRewriter &rewriter,
                             bool wgmma) {
  if (!onlyMultiplied(permute.getResult()) || (wgmma && sharesBuffer(permute)))
    return failure();
  // Through reshapes that keep the non-unit dimensions in order.
  Value source = permute.getSource();
  auto sourceType = cast<RankedTensorType>(source.getType());
  SmallVector<Operation *> chain;
  while (auto reshape = source.getDefiningOp<ReshapeOp>()) {
    if (!matchNonUnitDims(
            cast<RankedTensorType>(reshape.getSource().getType()).getShape(),
            cast<RankedTensorType>(reshape.getType()).getShape()))
      return failure();
    chain.push_back(reshape);
    source = reshape.getSource();
  }
  auto load = source.getDefiningOp<LoadOp>();
  if (!load || load.getBoxes())
    return failure();
  auto loadType = cast<RankedTensorType>(load.getType());
  if (loadType.getEncoding() ||
      cast<RankedTensorType>(permute.getType()).getEncoding())
    return failure();

  // The permute reorders the non-unit dimensions of the tile; on the load's
  // dimensions, unit ones stay where they are and the non-unit positions
  // take the non-unit dimensions in the permuted order.
  auto matched = matchNonUnitDims(loadType.getShape(), sourceType.getShape());
  if (!matched)
    return failure();
  auto &[loadDims, permutedDims] = *matched;
  // Non-unit dimension k of the permute's source is load dimension
  // loadDims[k]; permute result dimension i is source dimension perm[i].
  ArrayRef<int32_t> perm = permute.getPermutation();
  SmallVector<int64_t> sourceToLoad(sourceType.getRank(), -1);
  for (auto [k, d] : llvm::enumerate(permutedDims))
    sourceToLoad[d] = loadDims[k];
  SmallVector<int64_t> newOrderOfNonUnit;
  for (int32_t p : perm)
    if (sourceType.getDimSize(p) != 1)
      newOrderOfNonUnit.push_back(sourceToLoad[p]);
  SmallVector<int64_t> viewPerm =
      llvm::to_vector(llvm::seq<int64_t>(0, loadType.getRank()));
  for (auto [k, d] : llvm::enumerate(loadDims))
    viewPerm[d] = newOrderOfNonUnit[k];

  SmallVector<int32_t> order =
      llvm::to_vector(llvm::seq<int32_t>(0, loadType.getRank()));
  if (std::optional<ArrayRef<int32_t>> old = load.getOrder())
    order.assign(old->begin(), old->end());
  SmallVector<int32_t> newOrder;
  SmallVector<int64_t> newShape;
  SmallVector<Value> newIndices;
  for (int64_t p : viewPerm) {
    newOrder.push_back(order[p]);
    newShape.push_back(loadType.getDimSize(p));
    newIndices.push_back(load.getIndices()[p]);
  }

  rewriter.setInsertionPointAfter(load);
  auto transposed = cast<LoadOp>(rewriter.clone(*load));
  transposed.getIndicesMutable().assign(newIndices);
  if (llvm::equal(newOrder, llvm::seq<int32_t>(0, newOrder.size())))
    transposed.removeOrderAttr();
  else
    transposed.setOrder(newOrder);
  auto newType = RankedTensorType::get(newShape, loadType.getElementType());
  transposed.getResult().setType(newType);
  Value result = transposed.getResult();
  if (newType != permute.getType()) {
    rewriter.setInsertionPoint(permute);
    result = ReshapeOp::create(rewriter, permute.getLoc(), permute.getType(),
                               result);
  }
  rewriter.replaceOp(permute, result);
  chain.push_back(load);
  for (Operation *op : chain)
    if (op->use_empty())
      rewriter.eraseOp(op);
  return success();
}

struct TileLoadTransposedOperandsPass
    : mlir::tile::impl::TileLoadTransposedOperandsBase<
          TileLoadTransposedOperandsPass> {
  using TileLoadTransposedOperandsBase::TileLoadTransposedOperandsBase;

  void runOnOperation() override {
    SmallVector<PermuteOp> permutes;
    getOperation().walk([&](PermuteOp op) { permutes.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (PermuteOp op : permutes)
      (void)loadTransposed(op, rewriter, wgmma);
  }
};

} // namespace
