//===- StageHintedLoads.cpp - A loop's hinted loads through shared memory -===//
//
// A load with a `latency` hint of 2 or more in a loop body, left in
// registers by the passes before (not an operand of the tensor cores, not
// one a conversion moves between threads), is copied into a shared memory
// buffer where it was and read back, in its own layout, at the same place:
//
//   scf.for %j ... {                        scf.for %j ... {
//     %x = tile.load %X[%i, %j]               %buf = tile.smem_alloc
//          {latency = 3}              ->      tile.async_copy %X[%i, %j], %buf
//     use(%x)                                 tile.async_wait %buf
//   }                                         %x = tile.local_load %buf
//                                             use(%x)
//                                           }
//
// tile-pipeline then issues the copy latency - 1 trips ahead into a ring of
// `latency` buffers (TMA on sm_90 where the padding is zero), so that a loop
// streaming a row keeps several chunks in flight without holding them in
// registers. The copy keeps the load's padding (stored where the tile is
// outside the tensor). A hinted load that cannot be staged (or that is not
// directly in a loop's body) is reported with the reason, and stays as it
// is.
//
// A loop's load with no hint whose tile is stored to shared memory after
// element-wise work, views and joins (a multiply's B operand scaled or
// dequantized in every trip, which wgmma reads from shared memory; a
// W4A16 GEMM's packed nibbles split, interleaved and scaled) is copied the
// same way, at the pipeline's depth: in registers, each trip waited out the
// load's latency before its store.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/StagedLoads.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGEHINTEDLOADS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True where everything made from `load`'s tile in its loop body goes
/// into shared memory buffers of that body (`tile.local_alloc`: a
/// multiply's operand made in registers and stored for the multiply, as
/// wgmma's B always is), through element-wise ops whose other operands are
/// uniform tiles, broadcasts (a per-column scale) or values made from the
/// tile too, and through views and joins of those
/// (expand_dims, reshape, permute, concat, convert_layout: two nibbles of
/// each packed byte split, stacked and interleaved). In registers, the
/// load's latency is waited out in every trip before the stores.
static bool storedAfterWork(LoadOp load) {
  Block *body = load->getBlock();
  llvm::SmallPtrSet<Value, 16> made = {load.getResult()};
  SmallVector<Value> work = {load.getResult()};
  bool stored = false;
  // A concat's inputs all made from the tile; another op's the tile's, or
  // uniform tiles and broadcast rows beside them.
  auto madeOrAside = [&](Operation *op) {
    return llvm::all_of(op->getOperands(), [&](Value v) {
      return made.contains(v) ||
             (!isa<ConcatOp>(op) &&
              (isUniformTile(v) || v.getDefiningOp<BroadcastOp>()));
    });
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user->getBlock() != body)
        return false;
      if (isa<LocalAllocOp>(user)) {
        stored = true;
        continue;
      }
      bool elementwise =
          user->hasTrait<OpTrait::Elementwise>() && user->getNumRegions() == 0;
      if (user->getNumResults() != 1 ||
          !(elementwise ||
            isa<ExpandDimsOp, ReshapeOp, PermuteOp, ConvertLayoutOp, ConcatOp>(
                user)))
        return false;
      // (An op reading another value of the tile waits until that one is
      // reached: operands from elsewhere are checked below.)
      if (madeOrAside(user) && made.insert(user->getResult(0)).second)
        work.push_back(user->getResult(0));
    }
  }
  // Every use of what the tile made is a store or made from it too (a join
  // with a tile from elsewhere, a sum with another load: not the tile's).
  for (Value v : made)
    for (Operation *user : v.getUsers())
      if (!isa<LocalAllocOp>(user) && !made.contains(user->getResult(0)))
        return false;
  return stored;
}

struct StageHintedLoadsPass
    : public mlir::tile::impl::TileStageHintedLoadsBase<StageHintedLoadsPass> {
  using TileStageHintedLoadsBase::TileStageHintedLoadsBase;

  void runOnOperation() override {
    SmallVector<LoadOp> loads;
    getOperation().walk([&](LoadOp load) {
      auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
      // Unhinted, a loop's load stored to shared memory after element-wise
      // work is copied ahead too, where it can be.
      if (!load.getLatency() && loop &&
          !loop->hasAttr(TileDialect::getTileLoopAttrName()) &&
          storedAfterWork(load) && whyNotStageable(load).empty() &&
          contiguousRowBytes(load) >= 16) {
        loads.push_back(load);
        return;
      }
      if (!load.getLatency() || *load.getLatency() < 2)
        return;
      std::string why;
      if (!loop || loop->hasAttr(TileDialect::getTileLoopAttrName()))
        why = "it is not directly in a loop's body (there is no trip to "
              "issue it ahead of)";
      else
        why = whyNotStageable(load, /*anyPadding=*/true);
      if (!why.empty()) {
        if (warn)
          load.emitWarning() << "latency=" << *load.getLatency()
                             << " has no effect on this load: it is not "
                                "copied into shared memory ahead of its use, "
                                "since "
                             << why;
        return;
      }
      loads.push_back(load);
    });
    for (LoadOp load : loads) {
      Value staged = stageLoad(load, load, load.getType().getEncoding());
      load.getResult().replaceAllUsesWith(staged);
      load.erase();
    }
  }
};

} // namespace
