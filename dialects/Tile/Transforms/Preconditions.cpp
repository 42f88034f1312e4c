//===- Preconditions.cpp - What the passes after layouts need -------------===//
//
// tile-stage-mma-operands works on the layouts of the mma operands and of
// the tiles converted into them. Run on IR without layouts (or with
// encodings that are not layouts) it must report that, not crash.
//
//===----------------------------------------------------------------------===//

#include "Tile/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult mlir::tile::checkMmaOperandLayouts(Operation *root) {
  WalkResult result = root->walk([](MmaOp mma) {
    for (auto [name, operand] : {std::pair<StringRef, Value>{"a", mma.getA()},
                                 {"b", mma.getB()},
                                 {"the accumulator", mma.getAcc()}}) {
      if (failed(verifyLaidOutTile(operand.getType(), [&] {
            return mma.emitOpError() << name << " ";
          })))
        return WalkResult::interrupt();
      auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
      if (cvt && failed(verifyLaidOutTile(cvt.getSource().getType(), [&] {
            return cvt.emitOpError() << "source ";
          })))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
