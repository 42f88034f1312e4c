//===- SliceWgmmaK.cpp - A register A made and multiplied K step by K step ===//
//
// A `tile.wgmma` of a loop whose A the loop's body computes in registers
// from a shared buffer (a loaded tile scaled, rounded or normalized on its
// way to the tensor cores, read from its ring slot in the operand layout:
// tile-stage-converted-loads) becomes one multiply per instruction K step,
// each with its slice of A made right before it:
//
//   a = local_load buf [0, 0]          (128 x 64)
//   x = f(a, side operands)
//   acc = wgmma x, b, acc
//
// becomes
//
//   a0 = local_load buf [0, 0]         (128 x 16)
//   acc = wgmma f(a0, ...), b [k_offset = 0], acc
//   a1 = local_load buf [0, 16]
//   acc = wgmma f(a1, ...), b [k_offset = 16], acc
//   ...
//
// The side operands of the chain (splats, broadcast rows and columns) are
// read slice by slice through `tile.extract`, which moves no data for K
// slices of an operand layout. Each step's multiply is its own wgmma group,
// so the next trip rewrites the registers of slice s once the previous
// trip's slice s is done (tile-async-wgmma's wait before the op that writes
// them: the groups of the slices after it still pending), not the whole
// multiply: the tensor cores keep the rest of the previous trip and this
// trip's earlier slices while a slice's A is made (CUTLASS's mixed-input
// GEMMs pipeline their register A the same way).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESLICEWGMMAK
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The ops that make `mma`'s register A in its block, from the read of a
/// shared buffer in the operand layout (first) through element-wise ops
/// that each carry the chain on (chainOperand) and feed only the next: the
/// read last in the list is the first of the chain. Empty when A is made
/// some other way (attention's P, from a reduction of the scores).
SmallVector<Operation *> operandChain(WarpgroupMmaOp mma) {
  auto aType = dyn_cast<RankedTensorType>(mma.getA().getType());
  if (!aType || mma.getKOffset() || !mma.getA().hasOneUse())
    return {};
  Block *block = mma->getBlock();
  SmallVector<Operation *> chain;
  Value v = mma.getA();
  while (true) {
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != block || !v.hasOneUse() ||
        op->getNumResults() != 1)
      return {};
    chain.push_back(op);
    if (auto read = dyn_cast<LocalLoadOp>(op)) {
      auto type = read.getType();
      if (type.getShape() != aType.getShape() ||
          !isa_and_present<DotOperandLayoutAttr>(type.getEncoding()))
        return {};
      return chain;
    }
    if (!op->hasTrait<OpTrait::Elementwise>())
      return {};
    for (Value operand : op->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.getType());
      if (!t || t.getShape() != aType.getShape() ||
          t.getEncoding() != aType.getEncoding())
        return {};
    }
    v = chainOperand(op);
    if (!v)
      return {};
  }
}

struct SliceWgmmaKPass
    : public mlir::tile::impl::TileSliceWgmmaKBase<SliceWgmmaKPass> {
  using TileSliceWgmmaKBase::TileSliceWgmmaKBase;

  void runOnOperation() override {
    if (!enabled)
      return;
    SmallVector<WarpgroupMmaOp> mmas;
    getOperation().walk([&](WarpgroupMmaOp mma) {
      if (isa<scf::ForOp>(mma->getParentOp()))
        mmas.push_back(mma);
    });
    unsigned sliced = 0;
    for (WarpgroupMmaOp mma : mmas)
      sliced += slice(mma);
    if (warn && !sliced)
      getOperation().emitWarning(
          "slice_register_a does not apply: no loop's multiply makes its A "
          "operand in registers from a loaded tile read in the operand's "
          "layout (element-wise ops on it, each used once) over more than "
          "one instruction K step");
  }

  bool slice(WarpgroupMmaOp mma) {
    SmallVector<Operation *> chain = operandChain(mma);
    if (chain.empty())
      return false;
    auto aType = cast<RankedTensorType>(mma.getA().getType());
    int64_t step =
        cast<DotOperandLayoutAttr>(aType.getEncoding()).getInstructionK();
    int64_t K = aType.getDimSize(1);
    if (K <= step || K % step)
      return false;
    auto read = cast<LocalLoadOp>(chain.back());
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    auto sliced = [&](Type t) {
      auto type = cast<RankedTensorType>(t);
      return RankedTensorType::get({type.getDimSize(0), step},
                                   type.getElementType(), type.getEncoding());
    };
    Value acc = mma.getAcc();
    for (int64_t k = 0; k < K; k += step) {
      SmallVector<int64_t> offsets(read.getOffsets());
      offsets.back() += k;
      Value a = LocalLoadOp::create(b, read.getLoc(), sliced(read.getType()),
                                    read.getBuffer(),
                                    b.getDenseI64ArrayAttr(offsets));
      // The chain from the read to A, each op on its slice.
      for (Operation *op : llvm::reverse(ArrayRef(chain).drop_back())) {
        Value carried = chainOperand(op);
        IRMapping map;
        for (Value operand : op->getOperands())
          if (operand == carried)
            map.map(operand, a);
          else if (!map.contains(operand))
            map.map(operand, ExtractOp::create(
                                 b, op->getLoc(), sliced(operand.getType()),
                                 operand, b.getDenseI64ArrayAttr({0, k})));
        Operation *clone = b.clone(*op, map);
        clone->getResult(0).setType(sliced(op->getResult(0).getType()));
        a = clone->getResult(0);
      }
      auto part = WarpgroupMmaOp::create(b, loc, a, mma.getB(), acc);
      part.setBTransposed(mma.getBTransposed());
      part.setKOffset(k);
      acc = part.getResult();
    }
    mma.replaceAllUsesWith(acc);
    mma.erase();
    for (Operation *op : chain)
      op->erase();
    return true;
  }
};

} // namespace
