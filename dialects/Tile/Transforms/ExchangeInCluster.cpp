//===- ExchangeInCluster.cpp - Gathers through distributed shared memory --===//
//
// A `tile.cluster_gather` of a kernel launched in clusters of C blocks
//
//   %ms, %ss = tile.cluster_gather %m, %s {axis = 1}
//       : tensor<1x1xf32, #a>, tensor<1x1xf32, #a>
//       -> tensor<1x8xf32, #b>, tensor<1x8xf32, #b>
//
// becomes, with the buffers at the kernel's top (live from its start: no
// other buffer shares their memory before the exchange, while another
// block may already be writing into them), one cluster barrier:
//
//   %bm = tile.smem_alloc : !tile.smem<[1, 8], f32, #shared>     (top)
//   %bs = tile.smem_alloc : !tile.smem<[1, 8], f32, #shared>     (top)
//   tile.barrier {arrive, cluster}        (top, after the mbarrier inits)
//   ...
//   tile.barrier {cluster, wait}          (before the first exchange)
//   tile.cluster_store %m, %bm {axis = 1}
//   tile.cluster_store %s, %bs {axis = 1}
//   tile.barrier {cluster}
//   %ms = tile.local_load %bm [0, 0] -> tensor<1x8xf32, #b>
//   %ss = tile.local_load %bs [0, 0] -> tensor<1x8xf32, #b>
//
// A gather in a loop at the kernel's top level (every block of the cluster
// runs the loop's trips alike, as it must for any cluster barrier in it)
// exchanges through two buffers each, the trip's parity choosing one: a
// block may write trip t + 1's tiles into another block that is still
// reading trip t's, but not trip t + 2's, which it writes only after trip
// t + 1's barrier, which that block reaches after its reads of trip t:
//
//   %bm = tile.smem_alloc : !tile.smem<[2, 1, 8], f32, #shared>   (top)
//   scf.for ... iter_args(..., %trip = %c0)
//     %slot = arith.andi %trip, %c1
//     %m_t = tile.smem_slot %bm[%slot]
//     tile.cluster_store %m, %m_t {axis = 1}
//     tile.barrier {cluster}
//     %ms = tile.local_load %m_t [0, 0]
//
// The split barrier at the top is the "every block of the cluster has
// started" that writing into another block's shared memory needs; its wait
// comes before the first exchange or cluster barrier of the kernel, so that
// the block's own work (its loads) runs between the two halves. Each
// thread alternates arrive and wait: the arrive is placed after the top's
// mbarrier initializations, behind which tile-insert-barriers puts its whole
// cluster barrier, and the wait before any other cluster barrier.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXCHANGEINCLUSTER
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `op` is, or contains, a whole cluster barrier or a gather: the
/// kernel's first such op is where it waits for the cluster to have
/// started.
bool synchronizesCluster(Operation *op) {
  WalkResult found = op->walk([](Operation *inner) {
    if (isa<ClusterGatherOp>(inner))
      return WalkResult::interrupt();
    if (auto barrier = dyn_cast<BarrierOp>(inner);
        barrier && barrier.isWholeCluster())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// A plain row-major buffer for a gathered tile of `type`, or `slots` of
/// them (a leading dimension) where slots > 1.
SharedMemoryType bufferFor(RankedTensorType type, int64_t slots = 1) {
  MLIRContext *ctx = type.getContext();
  SmallVector<int64_t> shape;
  if (slots > 1)
    shape.push_back(slots);
  llvm::append_range(shape, type.getShape());
  SmallVector<unsigned> order;
  for (unsigned d = shape.size(); d > 0; --d)
    order.push_back(d - 1);
  return SharedMemoryType::get(ctx, shape, type.getElementType(),
                               SharedLayoutAttr::get(ctx, 1, 1, 1, order));
}

/// The loop at the kernel's top level a gather is directly in, or null.
scf::ForOp topLevelLoop(ClusterGatherOp gather, func::FuncOp func) {
  auto loop = dyn_cast<scf::ForOp>(gather->getParentOp());
  if (loop && loop->getParentOp() == func.getOperation())
    return loop;
  return {};
}

struct ExchangeInClusterPass
    : public mlir::tile::impl::TileExchangeInClusterBase<
          ExchangeInClusterPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<ClusterGatherOp> gathers;
    func.walk([&](ClusterGatherOp op) { gathers.push_back(op); });
    if (gathers.empty())
      return;
    for (ClusterGatherOp gather : gathers) {
      if (gather->getParentOp() == func.getOperation())
        continue;
      if (topLevelLoop(gather, func) &&
          !func->hasAttr(TileDialect::getPersistentAttrName()))
        continue;
      // Where the compiler made the region, its option is what to drop.
      if (gather->getParentOfType<WarpSpecializeOp>())
        gather.emitOpError("in a warp-specialized kernel is not supported: "
                           "compile the kernel without warp_specialize");
      else if (func->hasAttr(TileDialect::getPersistentAttrName()))
        gather.emitOpError("in a persistent kernel (whose blocks loop over "
                           "the grid) is not supported: compile the kernel "
                           "without persistent");
      else
        gather.emitOpError(
            "must be at the top level of the kernel or directly in a loop "
            "there (not in a branch or a nested loop): every block of the "
            "cluster executes it at the same points");
      return signalPassFailure();
    }

    Block &top = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&top);
    Location loc = func.getLoc();
    // The buffers, at the top: two slots for a gather in a loop.
    DenseMap<Value, Value> bufferOf;
    for (ClusterGatherOp gather : gathers)
      for (Value res : gather.getResults())
        bufferOf[res] =
            SmemAllocOp::create(b, gather.getLoc(),
                                bufferFor(cast<RankedTensorType>(res.getType()),
                                          topLevelLoop(gather, func) ? 2 : 1));
    // Arrive after the last mbarrier initialization of the top (or the
    // buffers), wait before the first op that synchronizes the cluster.
    Operation *lastInit = nullptr;
    for (auto init : top.getOps<MbarrierInitOp>())
      lastInit = init;
    if (lastInit)
      b.setInsertionPointAfter(lastInit);
    auto arrive = BarrierOp::create(b, loc, IntegerAttr(), IntegerAttr(),
                                    /*cluster=*/true, /*warpgroup=*/false,
                                    /*arrive=*/true);
    for (Operation *op = arrive->getNextNode(); op; op = op->getNextNode())
      if (synchronizesCluster(op)) {
        b.setInsertionPoint(op);
        BarrierOp::create(b, op->getLoc(), IntegerAttr(), IntegerAttr(),
                          /*cluster=*/true, /*warpgroup=*/false,
                          /*arrive=*/false, /*wait=*/true);
        break;
      }

    // Each loop's trip parity (a trip counter added once per loop).
    DenseMap<Operation *, Value> parityOf;
    for (ClusterGatherOp gather : gathers) {
      scf::ForOp loop = topLevelLoop(gather, func);
      if (!loop || parityOf.count(loop))
        continue;
      b.setInsertionPoint(loop);
      Value zero = arith::ConstantIntOp::create(b, loop.getLoc(), 0, 32);
      FailureOr<scf::ForOp> counted = addTripCounter(loop, zero);
      if (failed(counted)) {
        loop.emitOpError("could not count the trips of this loop for its "
                         "cluster_gather's buffers");
        return signalPassFailure();
      }
      loop = *counted;
      b.setInsertionPointToStart(loop.getBody());
      Value one = arith::ConstantIntOp::create(b, loop.getLoc(), 1, 32);
      parityOf[loop] = arith::AndIOp::create(
          b, loop.getLoc(), loop.getRegionIterArgs().back(), one);
    }

    for (ClusterGatherOp gather : gathers) {
      b.setInsertionPoint(gather);
      Location at = gather.getLoc();
      if (scf::ForOp loop = topLevelLoop(gather, func))
        for (Value res : gather.getResults()) {
          auto ring = cast<TypedValue<SharedMemoryType>>(bufferOf[res]);
          bufferOf[res] = SmemSlotOp::create(
              b, at, bufferFor(cast<RankedTensorType>(res.getType())), ring,
              parityOf.lookup(loop));
        }
      for (auto [in, res] : llvm::zip(gather.getInputs(), gather.getResults()))
        ClusterStoreOp::create(b, at, in, bufferOf[res], gather.getAxis());
      BarrierOp::create(b, at, IntegerAttr(), IntegerAttr(),
                        /*cluster=*/true);
      for (Value res : gather.getResults()) {
        auto type = cast<RankedTensorType>(res.getType());
        res.replaceAllUsesWith(
            LocalLoadOp::create(b, at, type, bufferOf[res],
                                SmallVector<int64_t>(type.getRank(), 0)));
      }
      gather.erase();
    }
  }
};

} // namespace
