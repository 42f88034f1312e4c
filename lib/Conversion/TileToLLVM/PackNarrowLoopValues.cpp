//===- PackNarrowLoopValues.cpp - Narrow loop-carried values in words -----===//
//
// A tile of 8- or 16-bit elements lowers to one value per element, which
// straight-line code packs and unpacks freely (LLVM folds the inserts and
// extracts into what makes and uses them). Carried around a loop, each
// would be a phi of its own:
//  - PTX has no 8-bit registers: every byte would take a 32-bit register
//    across the back edge (FP8 attention's P, carried to the next trip's
//    P V, 64 registers rather than 16);
//  - a 16-bit value carried alone sits in a 16-bit register: where the
//    loop makes its halves with a conversion each and uses them as words
//    (a register-A multiply's operand, a packed store), ptxas keeps the
//    halves apart and re-packs every word each trip with a prmt, rather
//    than converting two elements into one word at once.
// So an scf.for's iteration values of each 8- or 16-bit type travel in
// i32 words (four or two to a word, in their order: a tile's neighbouring
// registers share a word, as they do in memory and in an mma's operands),
// packed at the init and the yield, unpacked at the top of the body and
// after the loop, where LLVM folds the packing into what produced and what
// uses them. Values that do not fill a word stay as they are.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilec;

namespace {

/// One word of a loop's new iteration values: the old iteration values it
/// packs, in order, and their type.
struct Word {
  Type type;
  SmallVector<unsigned> values;
};

/// The narrow iteration values of `loop` grouped into words: those of each
/// type in their order, as many whole words as they fill.
SmallVector<Word> planWords(scf::ForOp loop) {
  llvm::MapVector<Type, SmallVector<unsigned>> byType;
  for (auto [i, t] : llvm::enumerate(loop.getResultTypes()))
    if (t.isIntOrFloat() &&
        (t.getIntOrFloatBitWidth() == 8 || t.getIntOrFloatBitWidth() == 16))
      byType[t].push_back(i);
  SmallVector<Word> words;
  for (auto &[type, values] : byType) {
    unsigned perWord = 32 / type.getIntOrFloatBitWidth();
    for (unsigned k = 0; k + perWord <= values.size(); k += perWord)
      words.push_back(
          {type, SmallVector<unsigned>(values.begin() + k,
                                       values.begin() + k + perWord)});
  }
  return words;
}

/// Packs the narrow iteration values of `loop` into i32 words.
void packLoop(scf::ForOp loop) {
  SmallVector<Word> words = planWords(loop);
  if (words.empty())
    return;
  // Iteration value -> (its word, its place in the word).
  DenseMap<unsigned, std::pair<unsigned, unsigned>> where;
  for (auto [w, word] : llvm::enumerate(words))
    for (auto [k, i] : llvm::enumerate(word.values))
      where[i] = {w, k};
  unsigned numKept = loop.getNumResults() - where.size();
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop);

  // The new iteration values: the others in order, then the words.
  auto packed = [&](OpBuilder &b, ValueRange values) {
    SmallVector<Value> out;
    for (unsigned i = 0; i < values.size(); ++i)
      if (!where.count(i))
        out.push_back(values[i]);
    for (const Word &word : words) {
      SmallVector<Value> parts;
      for (unsigned i : word.values)
        parts.push_back(values[i]);
      out.push_back(packWords(b, loc, parts).front());
    }
    return out;
  };
  auto unpacked = [&](OpBuilder &b, ValueRange values) {
    SmallVector<SmallVector<Value>> parts;
    for (auto [w, word] : llvm::enumerate(words))
      parts.push_back(unpackWords(b, loc, {values[numKept + w]}, word.type,
                                  word.values.size()));
    SmallVector<Value> out;
    unsigned kept = 0;
    for (unsigned i = 0; i < loop.getNumResults(); ++i) {
      auto it = where.find(i);
      out.push_back(it == where.end()
                        ? values[kept++]
                        : parts[it->second.first][it->second.second]);
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

void tilec::packNarrowLoopValues(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    packLoop(loop);
}
