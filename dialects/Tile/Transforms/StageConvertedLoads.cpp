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
// The ops' other operands are uniform tiles (splat constants, splats of
// scalars: made again in the new layout). A multiply's A operand (read from
// registers by wgmma and mma.sync) made so, a loaded tile scaled or rounded
// on its way, is left converted by tile-stage-mma-operands for this pass:
// its buffer is swizzled as wgmma's (ldmatrix reads 8 of its rows at once)
// and the multiply takes the ops' result from registers, with no store of
// the operand to shared memory and no barrier. A tile without
// 16 bytes along the tensor's contiguous dimension (a column of per-row
// scales) stays converted: its cp.async copy measured slower.
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

struct StageConvertedLoadsPass
    : public mlir::tile::impl::TileStageConvertedLoadsBase<
          StageConvertedLoadsPass> {
  using TileStageConvertedLoadsBase::TileStageConvertedLoadsBase;

  void runOnOperation() override {
    SmallVector<ConvertedLoadChain> candidates;
    getOperation().walk([&](ConvertLayoutOp convert) {
      if (auto c = convertedLoadChain(convert))
        candidates.push_back(std::move(*c));
    });
    for (ConvertedLoadChain &c : candidates)
      stage(c);
  }

  void stage(ConvertedLoadChain &c) {
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
        if (!isUniformTile(operand)) {
          operands.push_back(current);
          continue;
        }
        // A splat constant or a splat of a scalar, made again in the
        // target layout.
        DenseElementsAttr dense;
        if (matchPattern(operand, m_Constant(&dense)))
          operands.push_back(
              arith::ConstantOp::create(
                  b, def->getLoc(), dense.reshape(inTarget(operand.getType())))
                  .getResult());
        else
          operands.push_back(
              FullOp::create(b, def->getLoc(), inTarget(operand.getType()),
                             operand.getDefiningOp<FullOp>().getValue())
                  .getResult());
      }
      OperationState state(def->getLoc(), def->getName(), operands,
                           TypeRange{inTarget(def->getResult(0).getType())},
                           def->getAttrs());
      current = b.create(state)->getResult(0);
    }
    c.convert.replaceAllUsesWith(current);
    c.convert.erase();
    // (The uniform tiles the chain read, made again above, go with it
    // where nothing else reads them.)
    SmallVector<Operation *> uniforms;
    for (Operation *def : llvm::reverse(c.chain)) {
      for (Value operand : def->getOperands())
        if (Operation *op = operand.getDefiningOp();
            op && isUniformTile(operand) && !llvm::is_contained(uniforms, op))
          uniforms.push_back(op);
      def->erase();
    }
    for (Operation *op : uniforms)
      if (op->use_empty())
        op->erase();
    if (c.squeeze)
      c.squeeze.erase();
    load.erase();
  }
};

} // namespace
