//===- LoopCounters.cpp - Trip counters added to loops --------------------===//

#include "Tile/Transforms/LoopCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
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

bool mlir::tile::isTripCounter(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  auto loop =
      arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || !arg.getType().isInteger(32) ||
      arg.getArgNumber() < loop.getNumInductionVars())
    return false;
  unsigned i = arg.getArgNumber() - loop.getNumInductionVars();
  auto next = loop.getYieldedValues()[i].getDefiningOp<arith::AddIOp>();
  if (!next)
    return false;
  for (auto [x, y] : {std::pair(next.getLhs(), next.getRhs()),
                      std::pair(next.getRhs(), next.getLhs())})
    if (x == v && matchPattern(y, m_One()))
      return true;
  return false;
}

Value mlir::tile::findTripCounter(scf::ForOp loop) {
  for (BlockArgument arg : loop.getRegionIterArgs())
    if (isTripCounter(arg))
      return arg;
  return Value();
}

std::optional<std::pair<int64_t, Value>>
mlir::tile::tripSlotIndex(Value index) {
  auto rem = index.getDefiningOp<arith::RemUIOp>();
  APInt stages;
  if (!rem || !isTripCounter(rem.getLhs()) ||
      !matchPattern(rem.getRhs(), m_ConstantInt(&stages)) ||
      stages.getZExtValue() < 1)
    return std::nullopt;
  return std::pair(int64_t(stages.getZExtValue()), rem.getLhs());
}
