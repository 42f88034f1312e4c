//===- PrefetchLoads.cpp - A loop's small register loads a trip ahead -----===//
//
// A load the pipeline left in registers (not copied into shared memory) is
// waited for at its first use. In a loop whose trips use it early (a block
// scale applied to the scores, a K step's scale), every trip stalls for the
// load's latency, hundreds of cycles from L2. Such a load, when small (a
// scale, an index: a few registers a thread), is issued a trip ahead:
//
//   scf.for %i = %lb to %ub step %s {    %x0 = load T[f(%lb)]
//     %x = load T[f(%i)]            ->   scf.for %i ... iter_args(%x = %x0) {
//     use(%x)                              %n = load T[f(%i + %s)]
//   }                                      use(%x)
//                                          yield %n
//
// f is the load's index computation (ops without memory effects, from the
// induction variable and values defined outside the loop), cloned for the
// first trip before the loop and for the next trip at the load's place. The
// value read a trip early is the same when the loop writes no global memory.
// A persistent kernel's tile loop is left alone: its tile coordinates come
// from claims (tile-dynamic-schedule), not from its induction variable. The
// load a trip past the last is bounds-checked like any other; its value is
// not used.
//
// A load whose value only says where pipelined copies read (a paged KV
// cache's block-table entry, the index of a tile that tile-pipeline copies
// trips ahead) is left in place: those copies are ahead already, and
// carrying the entry a further trip made flash decoding's loop over pages
// of 64 and 256 keys 11-19% slower (H200, 8 x 32k keys: 4357 -> 3895 and
// 4436 -> 3587 GB/s; bench/results/2026-11-30-h200-sm80-choice-and-decode-
// splits.md).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/TripSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPREFETCHLOADS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The most registers a thread may spend on one prefetched load: the value
/// of the next trip is held beside this trip's.
constexpr int64_t kMaxPrefetchRegisters = 4;

/// Whether every use of `load`'s value, through ops without memory effects,
/// is an operand of a pipelined copy into shared memory (its index, boxes
/// or predicate).
bool onlyAddressesCopies(LoadOp load) {
  SmallVector<Value> work = {load.getResult()};
  llvm::SmallPtrSet<Operation *, 8> seen;
  bool any = false;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<AsyncCopyOp, TmaLoadOp>(user)) {
        any = true;
        continue;
      }
      // (A yield carries the value on: a use of its own.)
      if (user->hasTrait<OpTrait::IsTerminator>() || user->getNumRegions() ||
          !isMemoryEffectFree(user))
        return false;
      if (seen.insert(user).second)
        llvm::append_range(work, user->getResults());
    }
  }
  return any;
}

/// `load` issued a trip ahead in `loop` (see the file's comment).
void prefetch(scf::ForOp loop, LoadOp load, ArrayRef<Operation *> slice) {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  IRMapping first;
  first.map(loop.getInductionVar(), loop.getLowerBound());
  for (Operation *op : slice)
    rewriter.clone(*op, first);
  Value initial = rewriter.clone(*load, first)->getResult(0);
  Value step = loop.getStep();
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location loc,
          ArrayRef<BlockArgument> carried) -> SmallVector<Value> {
        Block *body = carried.front().getOwner();
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(load);
        Value next =
            arith::AddIOp::create(b, load.getLoc(), body->getArgument(0), step);
        // (The body's ops still name the old loop's induction variable:
        // its block is merged into the new loop's after this.)
        IRMapping nextTrip;
        nextTrip.map(loop.getInductionVar(), next);
        nextTrip.map(body->getArgument(0), next);
        for (Operation *op : slice)
          b.clone(*op, nextTrip);
        Value loaded = b.clone(*load, nextTrip)->getResult(0);
        load.getResult().replaceAllUsesWith(carried.front());
        return {loaded};
      });
  (void)replaced;
  load.erase();
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      op->erase();
}

struct PrefetchLoadsPass
    : public mlir::tile::impl::TilePrefetchLoadsBase<PrefetchLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(TileDialect::getTileLoopAttrName()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (writesGlobalMemory(loop))
        continue;
      // Candidates first: prefetching one replaces the loop.
      SmallVector<LoadOp> loads;
      for (Operation &op : *loop.getBody())
        if (auto load = dyn_cast<LoadOp>(&op);
            load && !load.getBoxes() &&
            registersOf(load.getType()) <= kMaxPrefetchRegisters &&
            registersOf(load.getType()) > 0 && !onlyAddressesCopies(load))
          loads.push_back(load);
      for (LoadOp load : loads) {
        auto parent = cast<scf::ForOp>(load->getParentOp());
        // (Pure ops only: the loop writes no global memory, but a load in
        // the slice would be issued a trip ahead too.)
        FailureOr<SmallVector<Operation *>> slice = tripSlice(
            load->getOperands(), parent, /*loadsWhereReadOnly=*/false);
        if (succeeded(slice))
          prefetch(parent, load, *slice);
      }
    }
  }
};

} // namespace
