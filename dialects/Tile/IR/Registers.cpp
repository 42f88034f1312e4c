//===- Registers.cpp - What a thread holds in registers -------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/LinearLayout.h"

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

int64_t mlir::tile::wgmmaBoundRegisters(WarpgroupMmaOp mma) {
  return registersOf(mma.getAcc().getType()) +
         registersOf(mma.getA().getType()) + 4;
}

int64_t mlir::tile::wgmmaRegistersNeeded(Operation *root) {
  int64_t most = 0;
  root->walk([&](WarpgroupMmaOp mma) {
    most = std::max(most, wgmmaBoundRegisters(mma) + kRegistersAroundWgmma);
  });
  return most;
}
