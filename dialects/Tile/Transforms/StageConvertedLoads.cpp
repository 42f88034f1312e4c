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

/// A uniform tile (a splat constant, a splat of a scalar) made again in
/// `layout`.
static Value remakeUniform(OpBuilder &b, Location loc, Value uniform,
                           Attribute layout) {
  auto inLayout =
      cast<RankedTensorType>(uniform.getType()).cloneWithEncoding(layout);
  DenseElementsAttr dense;
  if (matchPattern(uniform, m_Constant(&dense)))
    return arith::ConstantOp::create(b, loc, dense.reshape(inLayout));
  return FullOp::create(b, loc, inLayout,
                        uniform.getDefiningOp<FullOp>().getValue());
}

/// `row` (the source of a broadcast in the loop body that `b` builds in)
/// loaded and computed again in `layout`, if it comes from a load of the
/// body (no gather) through ops used once: element-wise ops whose other
/// operands are uniform, expansions (expand_dims: the operand in the slice
/// of the result's layout) and conversions. Each thread then loads the
/// elements it broadcasts (a per-K vector: a few of its 64), with no
/// conversion between threads and its barriers in every trip. Null where
/// the row is made otherwise.
static Value remakeLoadedRow(OpBuilder &b, Value row, Attribute layout) {
  SmallVector<Operation *> ops; // from the row's definition down
  Value v = row;
  LoadOp load;
  while (!load) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != b.getInsertionBlock() || !v.hasOneUse())
      return {};
    if (auto l = dyn_cast<LoadOp>(def)) {
      if (l.getBoxes())
        return {};
      load = l;
      break;
    }
    ops.push_back(def);
    if (isa<ConvertLayoutOp, ExpandDimsOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
        def->getNumRegions() != 0)
      return {};
    Value next;
    for (Value operand : def->getOperands())
      if (!isUniformTile(operand)) {
        if (next)
          return {};
        next = operand;
      }
    if (!next)
      return {};
    v = next;
  }
  // The layout of each op's result, from the row's down to the load's.
  SmallVector<Attribute> layouts;
  Attribute current = layout;
  for (Operation *op : ops) {
    layouts.push_back(current);
    if (auto expand = dyn_cast<ExpandDimsOp>(op))
      current =
          SliceLayoutAttr::get(op->getContext(), expand.getAxis(), current);
  }
  auto inLayout = [](Type t, Attribute l) {
    return cast<RankedTensorType>(t).cloneWithEncoding(l);
  };
  // The load copied into shared memory where it was (a ring copy of the
  // loop once pipelined, issued trips ahead) and read in its layout where
  // the chain is; a load that cannot be copied so stays a load, in the
  // layout, where it was.
  Value result;
  if (whyNotStageable(load).empty() && contiguousRowBytes(load) >= 16) {
    result = stageLoad(load, &*b.getInsertionPoint(), current);
  } else {
    OpBuilder atLoad(load);
    Operation *reload = atLoad.clone(*load);
    reload->getResult(0).setType(inLayout(load.getType(), current));
    result = reload->getResult(0);
  }
  Value previous = load.getResult();
  for (unsigned i = ops.size(); i-- > 0;) {
    Operation *op = ops[i];
    if (isa<ConvertLayoutOp>(op)) {
      previous = op->getResult(0);
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(
          operand == previous
              ? result
              : remakeUniform(b, op->getLoc(), operand, layouts[i]));
    OperationState state(
        op->getLoc(), op->getName(), operands,
        TypeRange{inLayout(op->getResult(0).getType(), layouts[i])},
        op->getAttrs());
    result = b.create(state)->getResult(0);
    previous = op->getResult(0);
  }
  return result;
}

/// `broadcast` (a row or column of values expanded along its size-1
/// dimensions) made again in `target`: its row loaded in `target` where it
/// comes from a load of the loop body (remakeLoadedRow), else converted
/// into `target` at its own shape, before the loop where it is computed
/// outside it (once); then expanded in registers.
static Value remakeBroadcast(OpBuilder &b, BroadcastOp broadcast,
                             Attribute target) {
  Value source = broadcast.getSource();
  auto inTarget = [&](Type t) {
    return cast<RankedTensorType>(t).cloneWithEncoding(target);
  };
  Value row = remakeLoadedRow(b, source, target);
  if (!row) {
    // A conversion that made the row's layout: the row converted from
    // where it was.
    if (auto cvt = source.getDefiningOp<ConvertLayoutOp>())
      source = cvt.getSource();
    Operation *loop = b.getInsertionBlock()->getParentOp();
    OpBuilder::InsertionGuard guard(b);
    if (!loop->isAncestor(source.getParentRegion()->getParentOp()))
      b.setInsertionPoint(loop);
    row = ConvertLayoutOp::create(b, broadcast.getLoc(),
                                  inTarget(source.getType()), source);
  }
  return BroadcastOp::create(b, broadcast.getLoc(),
                             inTarget(broadcast.getType()), row);
}

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
      return cast<RankedTensorType>(t).cloneWithEncoding(target);
    };
    OpBuilder b(c.convert);
    Value current = stageLoad(load, c.convert, target);
    Value previous = c.load.getResult();
    if (c.squeeze)
      previous = c.squeeze.getResult();
    SmallVector<BroadcastOp> broadcasts;
    for (Operation *def : c.chain) {
      SmallVector<Value> operands;
      for (Value operand : def->getOperands()) {
        if (operand == previous) {
          operands.push_back(current);
          continue;
        }
        if (auto broadcast = operand.getDefiningOp<BroadcastOp>()) {
          operands.push_back(remakeBroadcast(b, broadcast, target));
          broadcasts.push_back(broadcast);
          continue;
        }
        // A splat constant or a splat of a scalar, made again in the
        // target layout.
        operands.push_back(remakeUniform(b, def->getLoc(), operand, target));
      }
      OperationState state(def->getLoc(), def->getName(), operands,
                           TypeRange{inTarget(def->getResult(0).getType())},
                           def->getAttrs());
      current = b.create(state)->getResult(0);
      previous = def->getResult(0);
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
    // (So do the broadcasts and what only they read: a conversion of the
    // row, its expansion, its load.)
    SmallVector<Operation *> dead(broadcasts.begin(), broadcasts.end());
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      if (!op->use_empty() || !(isPure(op) || isa<LoadOp>(op)))
        continue;
      SmallVector<Operation *> sources;
      for (Value operand : op->getOperands())
        if (Operation *source = operand.getDefiningOp())
          sources.push_back(source);
      op->erase();
      dead.append(sources);
    }
    if (c.squeeze)
      c.squeeze.erase();
    load.erase();
  }
};

} // namespace
