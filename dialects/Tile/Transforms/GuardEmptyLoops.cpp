//===- GuardEmptyLoops.cpp - Loops left in flight, run under a guard ------===//
//
// A loop that leaves multiplies in flight at its exit (`async` `tile.wgmma`
// results it yields as they are, or through conversions that only rename
// their registers, completed by the waits right after it), and that may
// run no trip, goes under a guard on its trip count together with those
// waits:
//
//   %r:2 = scf.for %i = %lb to %ub step %s
//       iter_args(%acc = %zeros, %n = %c0) -> (tensor<...>, i32) {
//     %d = tile.wgmma async %a, %b, %acc
//     ...
//     scf.yield %d, %m
//   }
//   %w = tile.wgmma_wait 0, %r#0
//
// becomes
//
//   %ran = arith.cmpi slt, %lb, %ub
//   %g:2 = scf.if %ran -> (tensor<...>, i32) {
//     %r:2 = scf.for ... (as it was)
//     %w = tile.wgmma_wait 0, %r#0
//     scf.yield %w, %r#1
//   } else {
//     scf.yield %zeros, %c0
//   }
//
// Without the guard, the path that skips the loop moves the initial values
// (the zeros) into the registers the loop's pending multiplies write, before
// the wait both paths share, and ptxas serializes every wgmma of the kernel
// (C7515, "non wgmma instructions defining accumulator registers of a wgmma
// between start and end of the pipeline stage"), as in attention backward's
// dK and dV loop. Under it, the skipping path meets the other only once
// every multiply is complete. Where the initial values are themselves in
// flight (the second of two loops a split made, continuing the first's
// multiplies), the skipping path completes them with the same waits (else
// ptxas injects a wait of its own at the join, C7517).
//
// A loop whose next trip continues the pending multiply first (a GEMM's K
// loop, one pipeline stage across the back edge, which ptxas accepts) is
// guarded only where an accumulator starts at zero (under the guard, its
// first trip is peeled onto the zeros, tile-fresh-accumulators, and the
// loop's entry needs no zeros in its registers) or where it
// continues multiplies in flight before it (the rest of such a loop, which
// the pass guards when it runs again after the peeling).
//
// Loops with constant bounds that run, and loops whose results in flight are
// used otherwise than by the waits right after the loop (a wait placed
// later, under other work; a multiply continuing a result), are left as
// they are.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/FreshAccumulators.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGUARDEMPTYLOOPS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `v` is a multiply in flight: yielded as it is, or through
/// conversions that only rename its registers (a multiply whose
/// accumulator layout differs from the loop's carried one: attention's P V
/// where Q K^T is narrower or wider). The renaming is no instruction: in
/// the PTX both reach the loop's exit as the registers the multiply
/// writes, and ptxas serializes every wgmma of the kernel (C7515) where the
/// path that skips the loop moves the initial values into them, whatever
/// their size: 8-bit attention at 128 x 160 and 128 x 192 tiles (64
/// registers a thread of P V's 64 x 128 laid out for the scores' 160 or
/// 192 columns). A size threshold (128 registers) once kept the guard off
/// the smaller ones, for the registers it cost attention at head dim 64,
/// 64 x 128 tiles (172 a thread instead of 162, 2026-12-01); guarded today
/// that kernel takes 164, as unguarded (test/Target/ptxas-occupancy.test).
bool inFlight(Value v) {
  auto mma = beforeRenaming(v).getDefiningOp<WarpgroupMmaOp>();
  return mma && mma.getIsAsync();
}

/// Whether `v` is a multiply in flight, or the result of a loop that
/// leaves one in flight at its exit.
bool pendingMultiply(Value v) {
  if (inFlight(v))
    return true;
  auto result = dyn_cast<OpResult>(beforeRenaming(v));
  auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : scf::ForOp();
  return loop && inFlight(loop.getBody()->getTerminator()->getOperand(
                     result.getResultNumber()));
}

/// Whether the next trip completes the multiply left in flight in the loop's
/// iteration argument `arg` before it continues it: a wait (any) comes
/// before the first multiply onto `arg` in the body. (A loop whose next
/// trip first continues the chain, as a GEMM's K loop, keeps one pipeline
/// stage across the back edge, which ptxas accepts.)
bool completedInNextTrip(BlockArgument arg) {
  for (Operation &op : *arg.getOwner()) {
    if (isa<WgmmaWaitOp>(op))
      return true;
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op); mma && mma.getAcc() == arg)
      return false;
  }
  return false;
}

/// Whether `loop`'s body makes tiles in registers besides its multiplies
/// (an operand loaded, computed and stored for them in every trip).
bool makesTiles(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        if (!isa<WarpgroupMmaOp, WgmmaWaitOp>(op) &&
            llvm::any_of(op->getResultTypes(),
                         [](Type t) { return isa<RankedTensorType>(t); }))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The waits right after `loop` that complete its results in flight, when
/// they are those results' only uses and complete nothing else, and the
/// next trip completes one of them before continuing it (else empty).
SmallVector<WgmmaWaitOp> waitsAfter(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<WgmmaWaitOp> waits;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
    auto wait = dyn_cast<WgmmaWaitOp>(op);
    if (!wait)
      break;
    waits.push_back(wait);
  }
  bool completedInside = false, continuesInFlight = false,
       startsAtConstant = false;
  for (auto [i, result] : llvm::enumerate(loop.getResults())) {
    if (!inFlight(yield.getOperand(i)))
      continue;
    completedInside |= completedInNextTrip(loop.getRegionIterArgs()[i]);
    continuesInFlight |= pendingMultiply(loop.getInitArgs()[i]);
    startsAtConstant |= matchPattern(loop.getInitArgs()[i], m_Constant());
    if (!result.hasOneUse() ||
        !llvm::is_contained(waits,
                            dyn_cast<WgmmaWaitOp>(*result.getUsers().begin())))
      return {};
  }
  // A loop whose accumulator starts at zero is guarded too: where it
  // streams multiplies, so that its first trip may be peeled, a multiply
  // onto the zeros that reads no accumulator, rather than zeros be moved
  // into its registers for the loop's entry (tile-fresh-accumulators);
  // where its body makes tiles in registers (a B operand dequantized in
  // every trip), since the path that skipped it moved the zeros into the
  // multiply's registers at the join before the wait, and ptxas serialized
  // every wgmma (C7515: a W4A16 GEMM). So is one that continues multiplies in
  // flight before it (the rest of a loop whose first trip was peeled): skipped,
  // its results would be copies of registers still being written (ptxas
  // serializes every wgmma, C7514).
  if (!completedInside && !continuesInFlight && !peelsOntoZeros(loop) &&
      !(startsAtConstant && makesTiles(loop)))
    return {};
  // Only the waits that complete the loop's results move.
  llvm::erase_if(waits, [&](WgmmaWaitOp wait) {
    return llvm::none_of(wait.getValues(),
                         [&](Value v) { return v.getDefiningOp() == loop; });
  });
  for (WgmmaWaitOp wait : waits)
    if (llvm::any_of(wait.getValues(),
                     [&](Value v) { return v.getDefiningOp() != loop; }))
      return {};
  return waits;
}

struct TileGuardEmptyLoopsPass
    : public mlir::tile::impl::TileGuardEmptyLoopsBase<
          TileGuardEmptyLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, SmallVector<WgmmaWaitOp>>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (trips && !trips->isZero())
        return;
      SmallVector<WgmmaWaitOp> waits = waitsAfter(loop);
      if (!waits.empty())
        loops.push_back({loop, std::move(waits)});
    });
    for (auto &[loop, waits] : loops)
      guard(loop, waits);
  }

  void guard(scf::ForOp loop, ArrayRef<WgmmaWaitOp> waits) {
    IRRewriter rewriter(loop);
    Location loc = loop.getLoc();
    Value ran =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
    auto ifOp = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), ran,
                                  /*withElseRegion=*/true);
    // Skipped, the loop's results are its initial values, completed by the
    // same waits where they are themselves in flight (the results of a
    // loop before this one, as when a loop split in two continues the
    // first loop's multiplies).
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> skipped(loop.getInitArgs());
    for (WgmmaWaitOp wait : waits) {
      SmallVector<Value> inits;
      for (Value v : wait.getValues())
        inits.push_back(
            loop.getInitArgs()[cast<OpResult>(v).getResultNumber()]);
      if (!llvm::all_of(inits, pendingMultiply))
        continue;
      IRMapping map;
      map.map(wait.getValues(), inits);
      Operation *copy = rewriter.clone(*wait, map);
      for (auto [v, done] : llvm::zip(wait.getValues(), copy->getResults()))
        skipped[cast<OpResult>(v).getResultNumber()] = done;
    }
    scf::YieldOp::create(rewriter, loc, skipped);
    // Run, its results once the waits complete them.
    SmallVector<Value> completed(loop.getResults());
    for (WgmmaWaitOp wait : waits)
      for (auto [v, done] : llvm::zip(wait.getValues(), wait.getResults()))
        completed[cast<OpResult>(v).getResultNumber()] = done;
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto yield = scf::YieldOp::create(rewriter, loc, completed);
    rewriter.moveOpBefore(loop, yield);
    for (WgmmaWaitOp wait : waits) {
      for (auto [v, done] : llvm::zip(wait.getValues(), wait.getResults()))
        rewriter.replaceUsesWithIf(
            done, ifOp.getResult(cast<OpResult>(v).getResultNumber()),
            [&](OpOperand &use) { return use.getOwner() != yield; });
      rewriter.moveOpBefore(wait, yield);
    }
    rewriter.replaceUsesWithIf(loop.getResults(), ifOp.getResults(),
                               [&](OpOperand &use) {
                                 return use.getOwner() != yield &&
                                        use.getOwner()->getParentOp() != ifOp;
                               });
  }
};

} // namespace
