//===- ConvertStoresToTMA.cpp - Tile stores through the TMA engine --------===//
//
// On sm_90 a store whose tile reaches it through shared memory anyway (a
// layout conversion that moves data between threads, as the accumulator of
// an mma does on its way to a coalesced store layout) is written by the
// tensor memory accelerator instead: the threads write the tile, in the
// layout it has, into a buffer swizzled as TMA reads it, and one thread
// starts the copy to global memory and goes on.
//
//   %c = tile.convert_layout %acc      %buf = tile.smem_alloc    (before the
//          : #mma -> #blocked                                     tile loop)
//   %r = tile.reshape %c               ...
//   tile.store %O[idx], %r               tile.tma_store_wait %buf (tile loop)
//                                        tile.local_store %acc, %buf
//                                        tile.tma_store %map[coords], %buf
//                                      ...
//                                      tile.tma_store_wait %buf   (the end)
//
// The store no longer waits for a barrier between the conversion's writes
// and reads, nor issues the threads' global stores (measured neutral on
// attention: the global writes cost at most 2% of a persistent kernel at
// N = 1k, H100). tile-insert-barriers puts the fence and the barrier
// between the writes and the copy, and a barrier between the wait (thread
// 0's, which issued the copy) and the next tile's writes. In a persistent
// kernel the buffer is allocated before the tile loop (live across it, as
// the conversion's scratch was); elsewhere at the store, after the loops
// whose buffers it may reuse.
//
// Stores are left as they are where their tile is in a store layout
// already (a TMA store would add a trip through shared memory) or where a
// tensor map cannot describe the copy (tile-convert-copies-to-tma's rules).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/TensorMaps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTSTORESTOTMA
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ConvertStoresToTMAPass
    : public mlir::tile::impl::TileConvertStoresToTMABase<
          ConvertStoresToTMAPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
      return;
    SmallVector<StoreOp> stores;
    func.walk([&](StoreOp store) { stores.push_back(store); });
    for (StoreOp store : stores)
      convert(func, store);
  }

  /// The kernel's top block, or the body of its tile loop, holds `store`.
  static bool atTop(func::FuncOp func, StoreOp store) {
    Block *block = store->getBlock();
    if (block == &func.getBody().front())
      return true;
    auto loop = dyn_cast<scf::ForOp>(block->getParentOp());
    return loop && loop->hasAttr(TileDialect::getTileLoopAttrName()) &&
           loop->getBlock() == &func.getBody().front();
  }

  /// The tile `store` writes, in the layout it has before a conversion
  /// through shared memory (and a reshape that drops unit dimensions);
  /// null when there is no such conversion.
  static TypedValue<RankedTensorType> convertedTile(StoreOp store) {
    Value v = store.getValue();
    if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
      auto from = cast<RankedTensorType>(reshape.getSource().getType());
      SmallVector<int64_t> kept;
      for (int64_t d : store.getValue().getType().getShape())
        if (d != 1)
          kept.push_back(d);
      if (from.getShape() != ArrayRef<int64_t>(kept))
        return nullptr;
      v = reshape.getSource();
    }
    auto cvt = v.getDefiningOp<ConvertLayoutOp>();
    if (!cvt || !getScratchBytes(cvt))
      return nullptr;
    return cvt.getSource();
  }

  void convert(func::FuncOp func, StoreOp store) {
    if (!atTop(func, store))
      return;
    TypedValue<RankedTensorType> tile = convertedTile(store);
    if (!tile || tile.getType().getRank() != 2)
      return;
    // The buffer's fastest dimension is the one along the tensor's
    // contiguous dimension.
    ArrayRef<int64_t> shape = store.getValue().getType().getShape();
    unsigned rank = shape.size();
    SmallVector<unsigned> nonUnit = nonUnitDims(shape);
    if (nonUnit.size() != 2)
      return;
    std::optional<ArrayRef<int32_t>> order;
    if (store.getOrder())
      order = *store.getOrder();
    SmallVector<unsigned> bufOrder;
    for (unsigned j = 0; j < nonUnit.size(); ++j) {
      unsigned t = order ? unsigned((*order)[nonUnit[j]]) : nonUnit[j];
      if (t == rank - 1)
        bufOrder.insert(bufOrder.begin(), j);
      else
        bufOrder.push_back(j);
    }
    SharedLayoutAttr layout = getHopperSharedLayout(tile.getType(), bufOrder);
    if (!layout)
      return;
    auto bufType =
        SharedMemoryType::get(func.getContext(), tile.getType().getShape(),
                              tile.getType().getElementType(), layout);
    TensorMapType map;
    unsigned param = 0;
    TmaTile box{store.getTensor(), shape, order, bufType, store.getLoc()};
    if (!describeTensorMap(func, box, map, param).empty())
      return;
    FailureOr<Value> mapArg = getTensorMapArgument(func, param, map);
    if (failed(mapArg))
      return;

    Location loc = store.getLoc();
    Block &top = func.getBody().front();
    Operation *outer = top.findAncestorOpInBlock(*store);
    OpBuilder b(outer);
    Value buf = SmemAllocOp::create(b, loc, bufType);
    b.setInsertionPoint(store);
    if (outer != store.getOperation())
      // The previous tile's copy has read the buffer.
      TmaStoreWaitOp::create(b, loc, ValueRange{buf});
    LocalStoreOp::create(b, loc, tile, buf);
    SmallVector<Value> coords =
        tmaCoordinates(b, loc, store.getIndices(), shape, order);
    TmaStoreOp::create(b, loc, *mapArg, coords, buf);
    store.erase();
    // The copy reads the buffer until the kernel's end at the latest.
    b.setInsertionPoint(top.getTerminator());
    TmaStoreWaitOp::create(b, loc, ValueRange{buf});
  }
};

} // namespace
