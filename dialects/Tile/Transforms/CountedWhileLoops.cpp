//===- CountedWhileLoops.cpp - While loops that count, as for loops -------===//
//
// `while i < n:` ... `i += step` (an `scf.while` whose condition region is
// one comparison of a value the trip steps by a loop-invariant amount)
// becomes an `scf.for` over the same values: the schedule passes and the
// compiler's choice of schedule work on `scf.for` only. The rewrite is
// MLIR's (`scf::upliftWhileToForLoop`); other while loops are left alone.
//
//===----------------------------------------------------------------------===//

#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECOUNTEDWHILELOOPS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct CountedWhileLoopsPass
    : public mlir::tile::impl::TileCountedWhileLoopsBase<
          CountedWhileLoopsPass> {
  void runOnOperation() override {
    // Inner loops first (a post-order walk), so that an outer loop sees
    // its body as rewritten.
    SmallVector<scf::WhileOp> loops;
    getOperation().walk([&](scf::WhileOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::WhileOp loop : loops) {
      rewriter.setInsertionPoint(loop);
      (void)scf::upliftWhileToForLoop(rewriter, loop);
    }
  }
};
} // namespace
