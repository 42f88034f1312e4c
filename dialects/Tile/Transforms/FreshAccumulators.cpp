//===- FreshAccumulators.cpp - A loop's first trip peeled onto its zeros --===//
//
// A loop that runs at least one trip and carries an accumulator that starts
// at zero into a `tile.wgmma` has its first trip peeled: there the multiply
// is onto the zero constant itself, which reads no accumulator (its first
// instruction of each output block takes scale-d false, tile-to-llvm), and
// the loop runs the other trips from the peeled trip's results. The loop's
// entry then needs no zeros in the accumulator's registers: before, a
// persistent GEMM's consumer moved them twice a tile (LLVM's copies for the
// loop's entry and for the guard's path that skips it: 256 moves a thread
// for a 128 x 256 tile on two warpgroups); now only the skipping path's
// remain (which LLVM still makes before the guard's branch, a constant's
// copies for a phi being made in the block that branches):
//
//   scf.for %i = %lb to %ub step %s iter_args(%acc = %zeros, %n = %n0) {
//     %d = tile.wgmma async %a(%i), %b(%i), %acc
//     ...
//     scf.yield %d, %m
//   }
//
// becomes
//
//   %d0 = tile.wgmma async %a(%lb), %b(%lb), %zeros
//   ... (the body, %i = %lb)
//   %lb1 = arith.addi %lb, %s
//   scf.for %i = %lb1 to %ub step %s iter_args(%acc = %d0, %n = %m0) {
//     ... (as it was)
//
// In the remaining loop, the body's tests of its first trip (`%i == %lb`,
// `%i != %lb`, as tile-defer-epilogue's deferred epilogue has) are
// constants: the peeled trip runs what the first trip ran.
//
// Only loops whose body streams multiplies (no tile made in registers but
// by the multiplies, no buffer allocated, no copy issued: a specialized
// GEMM's consumer K loop) are peeled: a copy of such a body costs
// instructions, not registers.
//
// A loop runs at least one trip where its bounds are constants that say so,
// or where it is under an `scf.if` on `lb < ub` of its own bounds (as
// tile-guard-empty-loops puts a loop that leaves multiplies in flight, and
// one that starts an accumulator at zero). Elsewhere its result, when it
// runs no trip, is the zeros, which the loop then moves into the
// accumulator's registers as before.
//
//===----------------------------------------------------------------------===//

#include "Tile/Transforms/FreshAccumulators.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFRESHACCUMULATORS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `loop` runs at least one trip: constant bounds that say so, or
/// the then-region of an `scf.if` on `lb < ub` of its own bounds.
bool runsATrip(scf::ForOp loop) {
  if (std::optional<APInt> trips = loop.getStaticTripCount())
    return !trips->isZero();
  auto ifOp = dyn_cast_or_null<scf::IfOp>(loop->getParentOp());
  if (!ifOp || loop->getParentRegion() != &ifOp.getThenRegion())
    return false;
  auto cmp = ifOp.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return false;
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
    return cmp.getLhs() == lb && cmp.getRhs() == ub;
  case arith::CmpIPredicate::sgt:
    return cmp.getLhs() == ub && cmp.getRhs() == lb;
  default:
    return false;
  }
}

/// Whether `loop`'s body only streams multiplies: no tile in registers is
/// made in it but by the multiplies and their waits, no buffer is
/// allocated and no copy issued in it (a warp-specialized GEMM's consumer
/// K loop: waits on a ring, multiplies of its slots, releases). A copy of
/// such a body costs instructions, not registers. Peeled, a body that
/// computes in registers (attention backward's dK / dV loop) made ptxas
/// spill and serialize its wgmmas (C7512), and one that refills its rings
/// (an unspecialized split-K linear's) took 10 registers a thread more.
bool streamsMultiplies(scf::ForOp loop) {
  return !loop.getBody()
              ->walk([](Operation *op) {
                if (isa<WarpgroupMmaOp, WgmmaWaitOp>(op))
                  return WalkResult::advance();
                if (isa<LocalAllocOp, SmemAllocOp, MbarrierAllocOp, TmaLoadOp,
                        AsyncCopyOp>(op) ||
                    llvm::any_of(op->getResultTypes(), [](Type t) {
                      return isa<RankedTensorType>(t);
                    }))
                  return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}

/// The multiply at the top of `loop`'s body whose accumulator is the
/// iteration argument `arg`, where `arg` starts at zero; else null.
WarpgroupMmaOp zeroStartedMultiply(scf::ForOp loop, BlockArgument arg) {
  if (!matchPattern(loop.getTiedLoopInit(arg)->get(), m_PosZeroFloat()))
    return {};
  for (OpOperand &use : arg.getUses()) {
    auto mma = dyn_cast<WarpgroupMmaOp>(use.getOwner());
    if (mma && mma->getBlock() == arg.getOwner() &&
        use.getOperandNumber() == mma.getAccMutable().getOperandNumber())
      return mma;
  }
  return {};
}

/// Peels `loop`'s first trip in front of it; the loop starts a step later,
/// from the peeled trip's results, and its body's tests of the first trip
/// (`iv == lb`, `iv != lb`) become constants.
void peelFirstTrip(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound();
  IRMapping map;
  map.map(loop.getInductionVar(), lb);
  map.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  SmallVector<Value> next;
  for (Value v : loop.getYieldedValues())
    next.push_back(map.lookupOrDefault(v));
  loop.getInitArgsMutable().assign(next);
  loop.setLowerBound(arith::AddIOp::create(b, loc, lb, loop.getStep()));

  // The remaining trips are not the first (the step is positive: a loop
  // whose bounds are in order runs at least one trip only so).
  Value iv = loop.getInductionVar();
  loop.getBody()->walk([&](arith::CmpIOp cmp) {
    bool eq = cmp.getPredicate() == arith::CmpIPredicate::eq;
    if (!eq && cmp.getPredicate() != arith::CmpIPredicate::ne)
      return;
    if (!((cmp.getLhs() == iv && cmp.getRhs() == lb) ||
          (cmp.getLhs() == lb && cmp.getRhs() == iv)))
      return;
    OpBuilder cb(cmp);
    cmp.replaceAllUsesWith(
        arith::ConstantOp::create(cb, cmp.getLoc(), cb.getBoolAttr(!eq))
            .getResult());
    cmp.erase();
  });
}

} // namespace

bool mlir::tile::peelsOntoZeros(scf::ForOp loop) {
  return streamsMultiplies(loop) &&
         llvm::any_of(loop.getRegionIterArgs(), [&](BlockArgument arg) {
           return zeroStartedMultiply(loop, arg) != nullptr;
         });
}

namespace {

struct TileFreshAccumulatorsPass
    : public mlir::tile::impl::TileFreshAccumulatorsBase<
          TileFreshAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (runsATrip(loop) && peelsOntoZeros(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      peelFirstTrip(loop);
  }
};

} // namespace
