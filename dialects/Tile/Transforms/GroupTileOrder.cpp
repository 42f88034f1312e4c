//===- GroupTileOrder.cpp - Blocks take their tiles in groups ------------===//
//
// A kernel over a 2-D grid whose loops multiply one operand read by the
// block's x by another read by its y (a GEMM's rows of A by the M tile, columns
// of B by the N tile) streams the whole of one operand for each row of blocks
// when blocks run in the hardware's order, x fastest: the blocks resident at
// once share B's columns but read all of A's rows, and A is read from
// memory again for every column of tiles. Taken in groups of G tiles along
// x, column by column within a group (the Triton tutorial's grouped order,
// gemm.tile's GROUP_M), the resident blocks cover a G-row band of tiles
// and share both operands in L2:
//
//   %x = tile.bid 0                    %pid = bid 1 * num_blocks 0 + bid 0
//   %y = tile.bid 1                    %first = %pid / (G * ny) * G
//                               =>     %rows = min(nx - %first, G)
//                                      %x = %first + %pid % (G * ny) % %rows
//                                      %y = %pid % (G * ny) / %rows
//
// The mapping is a permutation of the grid's blocks (the identity where
// nx <= G), so a kernel whose blocks do not wait on one another computes
// the same; a persistent kernel (tile-persistent, after this pass) takes
// its logical tiles in the same order. Kernels in clusters (their blocks'
// ranks follow x), kernels whose blocks meet or exchange (cluster
// barriers, block atomics) and kernels already ordering their tiles from
// both indices are left alone.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/ValueSources.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGROUPTILEORDER
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct GroupTileOrderPass
    : public mlir::tile::impl::TileGroupTileOrderBase<GroupTileOrderPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal() ||
        group == 1)
      return;
    auto refuse = [&](const Twine &why) {
      if (warn)
        emitWarning(getUserFacingLoc(func))
            << "group_tiles=" << unsigned(group)
            << " does not apply to kernel '" << func.getSymName()
            << "': " << why
            << "; its blocks take their tiles in the hardware's order";
    };
    if (auto cluster =
            func->getAttrOfType<IntegerAttr>(TileDialect::getClusterAttrName());
        cluster && cluster.getInt() > 1)
      return refuse("it is launched in clusters, whose blocks take "
                    "neighbouring tiles along x");
    SmallVector<BlockIdOp> ids;
    bool meets = false;
    func.walk([&](Operation *op) {
      if (auto bid = dyn_cast<BlockIdOp>(op)) {
        if (bid.getAxis() < 2)
          ids.push_back(bid);
      } else if (isa<ClusterRankOp, ClusterGatherOp, BlockAtomicOp,
                     BlockExchangeOp>(op) ||
                 (isa<BarrierOp>(op) && cast<BarrierOp>(op).getCluster())) {
        meets = true;
      }
    });
    if (meets)
      return refuse("its blocks meet or exchange values (cluster barriers, "
                    "block atomics), which may count on the order");
    if (llvm::none_of(ids, [](BlockIdOp b) { return b.getAxis() == 0; }) ||
        llvm::none_of(ids, [](BlockIdOp b) { return b.getAxis() == 1; }))
      return refuse("it does not use both bid(0) and bid(1)");

    // A loop's multiply whose one operand follows from x (bit 0) alone and
    // the other from y (bit 1), alone or with x: rows of A by the M tile,
    // columns of B by the N tile (a mixture of experts' weight also by the
    // expert its M tile belongs to).
    ValueSources deps(
        func,
        [](Operation *op, const ValueSources &) -> std::optional<unsigned> {
          if (auto bid = dyn_cast<BlockIdOp>(op))
            return bid.getAxis() < 2 ? 1u << bid.getAxis() : 0u;
          return std::nullopt;
        });
    bool fits = false;
    func.walk([&](MmaOp mma) {
      if (!mma->getParentOfType<LoopLikeOpInterface>())
        return;
      unsigned a = deps.of(mma.getA()), b = deps.of(mma.getB());
      fits |= (a == 1u && (b & 2u)) || (b == 1u && (a & 2u));
    });
    if (!fits)
      return refuse("no loop of it multiplies a tile that follows from "
                    "bid(0) alone by one that follows from bid(1) (operands "
                    "the blocks resident at once could share in L2)");

    int64_t size = group ? int64_t(group) : 8;
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    auto i32 = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    Value x = BlockIdOp::create(b, loc, b.getI32IntegerAttr(0));
    Value y = BlockIdOp::create(b, loc, b.getI32IntegerAttr(1));
    Value nx = NumBlocksOp::create(b, loc, b.getI32IntegerAttr(0));
    Value ny = NumBlocksOp::create(b, loc, b.getI32IntegerAttr(1));
    Value g = i32(size);
    Value pid =
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, y, nx), x);
    Value perGroup = arith::MulIOp::create(b, loc, g, ny);
    Value first = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, pid, perGroup), g);
    Value rows = arith::MinUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, nx, first), g);
    Value within = arith::RemUIOp::create(b, loc, pid, perGroup);
    Value newX = arith::AddIOp::create(
        b, loc, first, arith::RemUIOp::create(b, loc, within, rows));
    Value newY = arith::DivUIOp::create(b, loc, within, rows);
    for (BlockIdOp id : ids) {
      id.getResult().replaceAllUsesWith(id.getAxis() == 0 ? newX : newY);
      id.erase();
    }
  }
};

} // namespace
