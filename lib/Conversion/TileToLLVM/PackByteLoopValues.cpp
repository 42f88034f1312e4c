//===- PackByteLoopValues.cpp - 8-bit loop-carried values, 4 to a word ----===//
//
// A tile of 8-bit floats lowers to one i8 value per element, which straight
// -line code packs and unpacks freely (LLVM folds the byte inserts and
// extracts into prmt). Carried around a loop, each would be a phi of its
// own, and PTX has no 8-bit registers: every byte would take a 32-bit
// register across the back edge (FP8 attention's P, carried to the next
// trip's P V, 64 registers rather than 16). So an scf.for's i8 iteration
// values travel four to an i32: packed at the init and the yield, unpacked
// at the top of the body and after the loop, where LLVM folds the packing
// into what produced and what uses them.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilec;

namespace {

/// Packs the i8 iteration values of `loop` four to an i32; a loop with
/// fewer than four keeps them.
void packLoop(scf::ForOp loop) {
  SmallVector<unsigned> bytes;
  for (auto [i, t] : llvm::enumerate(loop.getResultTypes()))
    if (t.isInteger(8))
      bytes.push_back(i);
  bytes.resize(bytes.size() / 4 * 4);
  if (bytes.empty())
    return;
  // Iteration value -> (its word, its byte in the word).
  DenseMap<unsigned, std::pair<unsigned, unsigned>> where;
  unsigned numKept = loop.getNumResults() - bytes.size();
  for (auto [k, i] : llvm::enumerate(bytes))
    where[i] = {numKept + k / 4, k % 4};
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop);

  // The new iteration values: the others in order, then the words.
  auto packed = [&](OpBuilder &b, ValueRange values) {
    SmallVector<Value> out;
    for (unsigned i = 0; i < values.size(); ++i)
      if (!where.count(i))
        out.push_back(values[i]);
    for (unsigned k = 0; k < bytes.size(); k += 4)
      out.push_back(packWords(b, loc,
                              {values[bytes[k]], values[bytes[k + 1]],
                               values[bytes[k + 2]], values[bytes[k + 3]]})
                        .front());
    return out;
  };
  auto unpacked = [&](OpBuilder &b, ValueRange values) {
    SmallVector<SmallVector<Value>> words;
    for (unsigned w = numKept; w < values.size(); ++w)
      words.push_back(unpackWords(b, loc, {values[w]}, b.getIntegerType(8), 4));
    SmallVector<Value> out;
    unsigned kept = 0;
    for (unsigned i = 0; i < loop.getNumResults(); ++i) {
      auto it = where.find(i);
      out.push_back(it == where.end()
                        ? values[kept++]
                        : words[it->second.first - numKept][it->second.second]);
    }
    return out;
  };

  rewriter.setInsertionPoint(loop);
  auto newLoop = scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(),
                                    packed(rewriter, loop.getInitArgs()));
  newLoop->setAttrs(loop->getAttrs());
  Block *body = newLoop.getBody();
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> args = {newLoop.getInductionVar()};
  llvm::append_range(args, unpacked(rewriter, newLoop.getRegionIterArgs()));
  rewriter.mergeBlocks(loop.getBody(), body, args);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(
      yield, packed(rewriter, yield.getOperands()));
  rewriter.setInsertionPointAfter(newLoop);
  rewriter.replaceOp(loop, unpacked(rewriter, newLoop.getResults()));
}

} // namespace

void tilec::packByteLoopValues(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    packLoop(loop);
}
