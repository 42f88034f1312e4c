//===- LoopCounters.cpp - Trip counters added to loops --------------------===//

#include "Tile/Transforms/LoopCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

FailureOr<scf::ForOp> mlir::tile::addTripCounter(scf::ForOp loop, Value init) {
  IRRewriter rewriter(loop);
  DictionaryAttr attrs = loop->getDiscardableAttrDictionary();
  auto grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument> args) {
        Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
        return SmallVector<Value>{
            arith::AddIOp::create(b, loc, args.front(), one)};
      });
  if (failed(grown))
    return failure();
  auto result = cast<scf::ForOp>(grown->getOperation());
  result->setDiscardableAttrs(attrs);
  return result;
}
