//===- DependentLaunch.cpp - Programmatic dependent launch (sm_90) --------===//
//
// A kernel launched with programmatic stream serialization may start before
// the kernel ahead of it in the stream has finished: its blocks take the
// multiprocessors the other's blocks leave, as they leave them, and run
// until they wait for it. This pass puts that wait where nothing before it
// reads or writes global memory:
//
//   %b = tile.smem_alloc ...                %b = tile.smem_alloc ...
//   %m = tile.mbarrier_alloc ...            %m = tile.mbarrier_alloc ...
//   tile.mbarrier_init %m ...               tile.mbarrier_init %m ...
//   tile.barrier {cluster}          ==>     tile.barrier {cluster}
//   tile.warp_specialize ... {              tile.launch_dependents
//     tile.tma_load ...                     tile.grid_dependency_wait
//                                           tile.warp_specialize ... {
//
// What may run before it: side-effect-free ops (constants, the block's
// indices, a tensor's sizes: kernel parameters), shared buffers and
// mbarriers made and initialized, and barriers. Anything else (a load, a
// store, an atomic, a copy, a region holding any of them) comes after the
// wait, so the ordering does not depend on what the op's effects declare.
// `tile.launch_dependents` goes at the same place: the next kernel's
// blocks start as this kernel's last wave has begun, and wait at their own
// `tile.grid_dependency_wait` for this one to complete.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEPENDENTLAUNCH
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `op` may run before the wait: it reads and writes no global
/// memory, whatever its effects say of other resources.
bool beforeTheWait(Operation &op) {
  if (isa<SmemAllocOp, MbarrierAllocOp, MbarrierInitOp, BarrierOp,
          GridDependencyWaitOp, LaunchDependentsOp>(op))
    return true;
  return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
}

struct DependentLaunchPass
    : public mlir::tile::impl::TileDependentLaunchBase<DependentLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func->hasAttr(TileDialect::getKernelAttrName()))
      return;
    Block &body = func.getBody().front();
    if (!body.getOps<GridDependencyWaitOp>().empty())
      return; // placed already
    auto first = llvm::find_if(body, [](Operation &op) {
      return !beforeTheWait(op) && !op.hasTrait<OpTrait::IsTerminator>();
    });
    if (first == body.end())
      return; // no global memory touched
    OpBuilder b(&*first);
    LaunchDependentsOp::create(b, first->getLoc());
    GridDependencyWaitOp::create(b, first->getLoc());
    func->setAttr(TileDialect::getDependentLaunchAttrName(), b.getUnitAttr());
  }
};

} // namespace
