//===- SliceMmaK.cpp - Split mma along K into instruction-sized steps -----===//
//
// A tile.mma over a K of 64 becomes four mmas over K slices of 16 (32 for
// 8-bit operands), chained through the accumulator. Each step reads only
// its slice of the operands right before it: a `tile.local_load` of the slice
// when the operand is read from shared memory (so ldmatrix feeds each mma.sync
// as it goes), a `tile.extract` when the operand is in registers. A thread then
// never holds a whole operand tile, and loads overlap with the multiplies. The
// exception is an operand read outside the mma's loop (loop-invariant, like
// the Q tile of attention): when it is small enough, its slices are read
// there, once, and stay in registers for the whole loop instead of being
// read again each iteration.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESLICEMMAK
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The K of one mma.sync for operands in `type`'s layout.
int64_t instructionK(RankedTensorType type) {
  auto dot = dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
  return dot ? dot.getInstructionK() : 16;
}

/// The whole-buffer read an operand comes from, if any.
LocalLoadOp wholeBufferRead(Value operand) {
  auto read = operand.getDefiningOp<LocalLoadOp>();
  if (!read ||
      read.getType().getShape() != read.getBuffer().getType().getShape())
    return {};
  return read;
}

struct SliceMmaKPass
    : public mlir::tile::impl::TileSliceMmaKBase<SliceMmaKPass> {
  using TileSliceMmaKBase::TileSliceMmaKBase;

  void runOnOperation() override {
    SmallVector<MmaOp> mmas;
    getOperation().walk([&](MmaOp op) { mmas.push_back(op); });
    for (MmaOp mma : mmas)
      slice(mma);
  }

  /// True when the slices of `read`, which is outside `mma`'s block, should
  /// be read there and stay in registers: they cost each thread at most
  /// max-invariant-registers 32-bit registers.
  bool keepInRegisters(LocalLoadOp read, MmaOp mma) const {
    if (read->getBlock() == mma->getBlock())
      return false;
    RankedTensorType type = read.getType();
    if (!isTileType(type) || !isDistributedLayout(type.getEncoding()))
      return false;
    LinearLayout layout = toLinearLayout(type.getEncoding(), type.getShape());
    int64_t bits = int64_t(layout.getNumRegs()) * type.getElementTypeBitWidth();
    return bits <= int64_t(maxInvariantRegisters) * 32;
  }

  void slice(MmaOp mma) {
    auto aType = mma.getA().getType(), bType = mma.getB().getType();
    if (aType.getRank() != 2 || bType.getRank() != 2)
      return;
    int64_t K = aType.getDimSize(1);
    int64_t kSliceK = instructionK(aType);
    if (K % kSliceK)
      return; // the lowering reports the unsupported shape
    LocalLoadOp readA = wholeBufferRead(mma.getA());
    LocalLoadOp readB = wholeBufferRead(mma.getB());
    if (K == kSliceK && !readA && !readB)
      return;
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    // The k-th slice of an operand: K is dimension 1 of A and 0 of B.
    auto sliceOf = [&](Value full, LocalLoadOp read, RankedTensorType type,
                       unsigned kDim, int64_t k) -> Value {
      SmallVector<int64_t> shape(type.getShape());
      SmallVector<int64_t> offsets(2, 0);
      shape[kDim] = kSliceK;
      offsets[kDim] = k;
      auto sliceType = RankedTensorType::get(shape, type.getElementType(),
                                             type.getEncoding());
      if (read) {
        for (unsigned d = 0; d < 2; ++d)
          offsets[d] += read.getOffsets()[d];
        // A read outside the mma's block (a loop-invariant operand, hoisted
        // out of the loop) keeps its slices there, in registers across the
        // loop; a read in the mma's block is sliced right at the mma.
        OpBuilder::InsertionGuard guard(b);
        if (keepInRegisters(read, mma))
          b.setInsertionPoint(read);
        return LocalLoadOp::create(b, loc, sliceType, read.getBuffer(),
                                   b.getDenseI64ArrayAttr(offsets));
      }
      return ExtractOp::create(b, loc, sliceType, full,
                               b.getDenseI64ArrayAttr(offsets));
    };
    Value acc = mma.getAcc();
    for (int64_t k = 0; k < K; k += kSliceK) {
      Value a = sliceOf(mma.getA(), readA, aType, /*kDim=*/1, k);
      Value bb = sliceOf(mma.getB(), readB, bType, /*kDim=*/0, k);
      acc = MmaOp::create(b, loc, a, bb, acc);
    }
    mma.replaceAllUsesWith(acc);
    mma.erase();
    if (readA && readA->use_empty())
      readA.erase();
    if (readB && readB != readA && readB->use_empty())
      readB.erase();
  }
};

} // namespace
