//===- StageConvertedLoads.cpp - Loads converted through shared memory ----===//
//
// A loop's load whose tile only reaches its use through a layout conversion
// that moves data between threads (through shared memory, between two
// barriers) is copied into a shared memory buffer instead, and read from it
// in the converted layout where the conversion was:
//
//   %r = tile.load %lse[...] : tensor<1x64xf32, #blocked>
//   ...                                           (the loop's multiplies)
//   %s = arith.mulf %r, %c : tensor<1x64xf32, #blocked>
//   %m = tile.convert_layout %s : ... -> tensor<1x64xf32, #mma>
// becomes
//   %buf = tile.smem_alloc : !tile.smem<[1, 64], f32, #shared>
//   tile.async_copy %lse[...], %buf
//   ...
//   tile.async_wait %buf
//   %r = tile.local_load %buf [0, 0] : ... -> tensor<1x64xf32, #mma>
//   %m = arith.mulf %r, %c' : tensor<1x64xf32, #mma>
//
// A reshape right after the load that drops its size-1 dimensions (a
// (1, M, N) box of a 3-D tensor read as (M, N)) is the read's too: the
// buffer holds the tile without them (an attention's bias tile, added to
// the scores: a user kernel with one needed 64 KiB of scratch and its
// barriers for the conversion, its tile in registers across the Q K^T).
//
// The copy is then a ring copy like the multiplies' operands (tile-pipeline
// issues it iterations ahead; on sm_90 a TMA copy, which a producer warp
// issues), and the tile is in registers only from its use on: an attention
// backward's per-query LSE and Delta rows, broadcast down the accumulators'
// columns, cost neither the conversion's round trip and barriers nor
// registers across the multiplies.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/StagedLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGECONVERTEDLOADS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True for a splat constant: re-created in any layout for nothing.
bool isSplat(Value v) {
  DenseElementsAttr dense;
  return matchPattern(v, m_Constant(&dense)) && dense.isSplat();
}

/// A conversion to stage and what leads to it from its load.
struct Candidate {
  ConvertLayoutOp convert;
  LoadOp load;
  SmallVector<Operation *> chain; // from the load's user to the conversion's
  ReshapeOp squeeze; // dropping the load's size-1 dimensions, if any
};

/// Bytes of `load`'s tile along the tensor's contiguous (last) dimension:
/// the rows a copy of it reads.
int64_t contiguousRowBytes(LoadOp load) {
  RankedTensorType type = load.getType();
  unsigned rank = type.getRank();
  unsigned dim = rank - 1;
  if (std::optional<ArrayRef<int32_t>> order = load.getOrder())
    dim = llvm::find(*order, int32_t(rank - 1)) - order->begin();
  return type.getDimSize(dim) *
         int64_t(getSharedElementBytes(type.getElementType()));
}

/// The candidate `convert` makes, if any: its source comes from a load of
/// the same loop body through elementwise ops whose other operands are
/// splat constants, each value used once; the load pads with zeros (what an
/// async copy leaves past the tensor's end) and is not a gather.
std::optional<Candidate> candidateOf(ConvertLayoutOp convert, bool tmaCopies) {
  RankedTensorType from = convert.getSource().getType();
  RankedTensorType to = convert.getType();
  if (!isa_and_present<BlockedLayoutAttr>(from.getEncoding()) ||
      !to.getEncoding() || isRegisterOnlyConversion(from, to) ||
      !isa<scf::ForOp>(convert->getParentOp()))
    return std::nullopt;
  Candidate c;
  c.convert = convert;
  Value v = convert.getSource();
  while (true) {
    if (!v.hasOneUse())
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != convert->getBlock())
      return std::nullopt;
    if (auto load = dyn_cast<LoadOp>(def)) {
      c.load = load;
      break;
    }
    // The load's tile without its size-1 dimensions (a (1, M, N) box of a
    // 3-D tensor read as (M, N)): the buffer holds it so already.
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      ArrayRef<int64_t> from = reshape.getSource().getType().getShape();
      ArrayRef<int64_t> to = reshape.getType().getShape();
      SmallVector<int64_t> kept;
      for (unsigned d : nonUnitDims(from))
        kept.push_back(from[d]);
      if (c.squeeze || !reshape.getSource().getDefiningOp<LoadOp>() ||
          ArrayRef<int64_t>(kept) != to)
        return std::nullopt;
      c.squeeze = reshape;
      v = reshape.getSource();
      continue;
    }
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
        def->getNumRegions() != 0)
      return std::nullopt;
    Value next;
    for (Value operand : def->getOperands()) {
      if (isSplat(operand))
        continue;
      if (next)
        return std::nullopt;
      next = operand;
    }
    if (!next)
      return std::nullopt;
    c.chain.push_back(def);
    v = next;
  }
  if (!whyNotStageable(c.load).empty() ||
      (tmaCopies && contiguousRowBytes(c.load) < 16))
    return std::nullopt;
  std::reverse(c.chain.begin(), c.chain.end());
  return c;
}

struct StageConvertedLoadsPass
    : public mlir::tile::impl::TileStageConvertedLoadsBase<
          StageConvertedLoadsPass> {
  using TileStageConvertedLoadsBase::TileStageConvertedLoadsBase;

  void runOnOperation() override {
    SmallVector<Candidate> candidates;
    getOperation().walk([&](ConvertLayoutOp convert) {
      if (auto c = candidateOf(convert, tmaCopies))
        candidates.push_back(std::move(*c));
    });
    for (Candidate &c : candidates)
      stage(c);
  }

  void stage(Candidate &c) {
    LoadOp load = c.load;
    Attribute target = c.convert.getType().getEncoding();
    auto inTarget = [&](Type t) {
      auto type = cast<RankedTensorType>(t);
      return RankedTensorType::get(type.getShape(), type.getElementType(),
                                   target);
    };
    OpBuilder b(c.convert);
    Value current = stageLoad(load, c.convert, target);
    for (Operation *def : c.chain) {
      SmallVector<Value> operands;
      for (Value operand : def->getOperands()) {
        if (!isSplat(operand)) {
          operands.push_back(current);
          continue;
        }
        DenseElementsAttr dense;
        matchPattern(operand, m_Constant(&dense));
        operands.push_back(
            arith::ConstantOp::create(
                b, def->getLoc(), dense.reshape(inTarget(operand.getType())))
                .getResult());
      }
      OperationState state(def->getLoc(), def->getName(), operands,
                           TypeRange{inTarget(def->getResult(0).getType())},
                           def->getAttrs());
      current = b.create(state)->getResult(0);
    }
    c.convert.replaceAllUsesWith(current);
    c.convert.erase();
    for (Operation *def : llvm::reverse(c.chain))
      def->erase();
    if (c.squeeze)
      c.squeeze.erase();
    load.erase();
  }
};

} // namespace
