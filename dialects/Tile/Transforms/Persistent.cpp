//===- Persistent.cpp - A kernel that loops over the tiles of its grid ----===//
//
// Makes a kernel persistent: the runtime launches about one block per slot
// the multiprocessors have (SMs x blocks per SM), and each block loops over
// the blocks of the grid the kernel was launched with, its *logical* grid:
//
//   func @k(%a, ...)                    func @k(%a, ..., %gx, %gy, %gz: i32,
//                                               %counter: i64)
//     %x = tile.bid 0                     %n = gx * gy * gz
//     %ny = tile.num_blocks 1             scf.for %t = bid 0 to %n
//     ... body ...                            step num_blocks 0
//     {tile.tile_loop}
//                                           %x = %t mod gx
//                                           %y = (%t / gx) mod gy
//                                           ... body, tile.bid i: the logical
//                                           index, num_blocks i: the logical
//                                           extent ...
//
// Block b runs tiles b, b + P, b + 2P, ... (P blocks launched) in the order
// the hardware would have dispatched them (x fastest). The three grid
// sizes are trailing i32 parameters the runtime fills from the grid the
// caller asked for (the kernel's `tile.persistent` gives the first one's
// index), so that callers launch a persistent kernel exactly like any other;
// the i64 after them is the address of the tile counter, two 32-bit words
// that are zero when a launch starts, which tile-dynamic-schedule turns this
// static order into blocks claiming their tiles.
//
// The loop is what the later passes carry state across: tile-pipeline
// keeps a ring directly in it (and its position) live from tile to tile, so
// that the first copies of the next tile are issued while this one ends;
// with tile-warp-specialize the producer runs ahead into the next tile.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct PersistentPass
    : public mlir::tile::impl::TilePersistentBase<PersistentPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal() ||
        func->hasAttr(TileDialect::getPersistentAttrName()))
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("a persistent kernel must have a single block");
      return signalPassFailure();
    }
    WalkResult looped = func.walk([](scf::ForOp loop) {
      return loop->hasAttr(TileDialect::getTileLoopAttrName())
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (looped.wasInterrupted()) {
      func.emitError() << "the kernel loops over its tiles already (a '"
                       << TileDialect::getTileLoopAttrName()
                       << "' loop) but has no '"
                       << TileDialect::getPersistentAttrName() << "'";
      return signalPassFailure();
    }
    MLIRContext *ctx = func.getContext();
    Location loc = func.getLoc();
    Type i32 = IntegerType::get(ctx, 32);
    if (cluster != 1 && (cluster > 8 || !llvm::isPowerOf2_32(cluster))) {
      func.emitError() << "clusters of " << unsigned(cluster)
                       << " blocks: a persistent kernel's cluster has 2, 4 "
                          "or 8 (16, a non-portable size, only without "
                          "persistence)";
      return signalPassFailure();
    }

    // The logical grid: three trailing parameters; then the address of the
    // tile counter (tile-dynamic-schedule), which the runtime passes to
    // every persistent kernel.
    unsigned first = func.getNumArguments();
    for (unsigned i = 0; i < 3; ++i)
      if (failed(func.insertArgument(first + i, i32, DictionaryAttr(), loc)))
        return signalPassFailure();
    if (failed(func.insertArgument(first + 3, IntegerType::get(ctx, 64),
                                   DictionaryAttr(), loc)))
      return signalPassFailure();
    func->setAttr(TileDialect::getPersistentAttrName(),
                  IntegerAttr::get(i32, first));
    Block &entry = func.getBody().front();
    SmallVector<Value> grid(entry.getArguments().slice(first, 3));

    // The loop over the tiles (a cluster's, with clusters), which takes
    // the body.
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Value gx = grid[0], size;
    if (cluster > 1) {
      func->setAttr(TileDialect::getClusterAttrName(),
                    b.getI32IntegerAttr(int32_t(cluster)));
      size = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(cluster));
      gx = arith::DivUIOp::create(b, loc, gx, size);
    }
    Value total = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gx, grid[1]), grid[2]);
    Value start, step;
    if (cluster > 1) {
      start = ClusterIdOp::create(b, loc);
      step = NumClustersOp::create(b, loc);
    } else {
      start = BlockIdOp::create(b, loc, b.getI32IntegerAttr(0));
      step = NumBlocksOp::create(b, loc, b.getI32IntegerAttr(0));
    }
    auto loop = scf::ForOp::create(b, loc, start, total, step);
    loop->setAttr(TileDialect::getTileLoopAttrName(), b.getUnitAttr());
    // The tile loop is no loop to split.
    loop->setAttr(TileDialect::getScheduleAttrName(),
                  LoopScheduleAttr::get(b.getContext(), std::nullopt,
                                        b.getBoolAttr(false), BoolAttr(),
                                        BoolAttr(), BoolAttr()));
    Block *body = loop.getBody();
    body->getOperations().splice(std::prev(body->end()), entry.getOperations(),
                                 std::next(Block::iterator(loop)),
                                 Block::iterator(entry.getTerminator()));

    // The logical block index, x fastest, and the logical grid.
    b.setInsertionPointToStart(body);
    Value t = loop.getInductionVar();
    Value x = arith::RemUIOp::create(b, loc, t, gx);
    Value rest = arith::DivUIOp::create(b, loc, t, gx);
    if (cluster > 1)
      x = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, x, size),
                                ClusterRankOp::create(b, loc));
    Value y = arith::RemUIOp::create(b, loc, rest, grid[1]);
    Value z = arith::DivUIOp::create(b, loc, rest, grid[1]);
    Value index[3] = {x, y, z};
    SmallVector<BlockIdOp> ids;
    SmallVector<NumBlocksOp> sizes;
    body->walk([&](BlockIdOp op) { ids.push_back(op); });
    body->walk([&](NumBlocksOp op) { sizes.push_back(op); });
    for (BlockIdOp op : ids) {
      op.replaceAllUsesWith(index[op.getAxis()]);
      op.erase();
    }
    for (NumBlocksOp op : sizes) {
      op.replaceAllUsesWith(grid[op.getAxis()]);
      op.erase();
    }
  }
};

} // namespace
