//===- Registers.cpp - What a thread holds in registers -------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TargetLimits.h"
#include "mlir/IR/BuiltinOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tile;

int64_t mlir::tile::registersOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding() ||
      !isDistributedLayout(tensor.getEncoding()))
    return 0;
  // A padded tile's padding registers are not kept (the lowerings leave
  // them out).
  int64_t elements = countDataRegisters(
      toLinearLayout(tensor.getEncoding(), tensor.getShape()),
      tensor.getShape());
  int64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
  return (elements * bits + 31) / 32;
}

int64_t mlir::tile::consumerRegistersAt(int64_t atEntry, int64_t threads,
                                        int64_t consumers,
                                        int64_t producerRegisters) {
  int64_t rise = std::min<int64_t>(
      kMaxConsumerRegisters,
      ((threads * atEntry - 128 * producerRegisters) / consumers) &
          ~int64_t(7));
  return rise > atEntry ? rise : 0;
}

/// Registers per thread one instruction of `shape` (M x N or M x K of a
/// warpgroup's 128 threads) holds of elements of `type`; 0 without one.
static int64_t instructionRegisters(Type type, int64_t rows, int64_t cols) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !registersOf(type))
    return 0;
  int64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
  return (rows * cols / 128 * bits + 31) / 32;
}

std::pair<int64_t, int64_t>
mlir::tile::wgmmaInstructionOperands(WarpgroupMmaOp mma) {
  Type acc = mma.getAcc().getType(), a = mma.getA().getType();
  auto layout = dyn_cast_if_present<MmaLayoutAttr>(
      cast<RankedTensorType>(acc).getEncoding());
  if (!layout)
    return {registersOf(acc), registersOf(a)};
  SmallVector<unsigned, 3> shape = layout.getInstrShapeOrDefault();
  return {
      std::min(registersOf(acc), instructionRegisters(acc, shape[0], shape[1])),
      std::min(registersOf(a), instructionRegisters(a, shape[0], shape[2]))};
}

int64_t mlir::tile::wgmmaBoundRegisters(WarpgroupMmaOp mma) {
  auto [acc, a] = wgmmaInstructionOperands(mma);
  return acc + a + 4;
}

int64_t mlir::tile::wgmmaRegistersNeeded(Operation *root) {
  int64_t most = 0;
  root->walk([&](WarpgroupMmaOp mma) {
    most = std::max(most, wgmmaBoundRegisters(mma) + kRegistersAroundWgmma);
  });
  return most;
}

/// Whether ptxas computes `v` again from the thread's index where it is
/// used rather than keep it: an arange, and what only reshapes, broadcasts
/// or offsets one by a uniform value.
static bool isThreadIndexed(Value v, unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<ArangeOp>(def))
    return true;
  if (isa<ExpandDimsOp, BroadcastOp, ReshapeOp>(def))
    return isThreadIndexed(def->getOperand(0), depth + 1);
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return llvm::all_of(def->getOperands(), [&](Value x) {
      return isUniformTile(x) || isThreadIndexed(x, depth + 1);
    });
  return false;
}

/// Registers a thread holds for `v`: one for a uniform or thread-indexed
/// tile, its source's for a broadcast.
static int64_t heldRegisters(Value v) {
  if (!registersOf(v.getType()))
    return 0;
  if (isUniformTile(v) || isThreadIndexed(v))
    return 1;
  if (auto broadcast = v.getDefiningOp<BroadcastOp>())
    return heldRegisters(broadcast.getSource());
  return registersOf(v.getType());
}

int64_t mlir::tile::liveTileRegistersBefore(Operation *at) {
  Block *body = at->getBlock();
  Operation *loop = body->getParentOp();
  // Whether a use is at or after `at` (or in a later trip: the terminator).
  auto usedFrom = [&](Value v) {
    return llvm::any_of(v.getUses(), [&](OpOperand &use) {
      Operation *user = body->findAncestorOpInBlock(*use.getOwner());
      return user && (user == at || at->isBeforeInBlock(user));
    });
  };
  llvm::DenseSet<Value> counted;
  int64_t live = 0;
  auto count = [&](Value v) {
    int64_t regs = heldRegisters(v);
    if (regs && counted.insert(v).second)
      live += regs;
  };
  for (BlockArgument arg : body->getArguments())
    if (usedFrom(arg))
      count(arg);
  for (Operation &op : llvm::make_range(body->begin(), Block::iterator(at)))
    for (Value v : op.getResults())
      if (usedFrom(v))
        count(v);
  // From above the loop: live through every trip.
  body->walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
        count(v);
  });
  return live;
}

int64_t mlir::tile::mostBlocksAround(Operation *loop,
                                     const TargetLimits &limits) {
  Operation *func = loop;
  while (func->getParentOp() && !isa<ModuleOp>(func->getParentOp()))
    func = func->getParentOp();
  auto warpsAttr =
      func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
  int64_t threads = (warpsAttr ? warpsAttr.getInt() : 4) * 32;
  if (loop->getParentOfType<WarpSpecializeOp>())
    threads += 128;
  int64_t registers = wgmmaRegistersNeeded(loop);
  loop->walk([&](WarpgroupMmaOp mma) {
    registers = std::max(registers,
                         liveTileRegistersBefore(mma) + kRegistersAroundWgmma);
  });
  registers = std::clamp<int64_t>(registers, 32, limits.registersPerThread);
  return std::min({limits.blocksPerMultiprocessor,
                   limits.threadsPerMultiprocessor / threads,
                   limits.registersPerMultiprocessor / (threads * registers)});
}
