//===- StagedLoads.cpp - A load read through a shared memory buffer ------===//

#include "Tile/Transforms/StagedLoads.h"

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tile;

/// `layout` on the dimensions `kept` of its tile (the others of size 1):
/// the threads and warps it spreads along the dropped ones replicate the
/// tile along the kept ones, as the copy into the buffer of those
/// dimensions distributes it.
static BlockedLayoutAttr dropUnitDims(BlockedLayoutAttr layout,
                                      ArrayRef<unsigned> kept) {
  SmallVector<unsigned> spt, tpw, wpc, order;
  unsigned lanes = 1, warps = 1;
  for (unsigned d = 0; d < layout.getSizePerThread().size(); ++d) {
    if (llvm::is_contained(kept, d)) {
      spt.push_back(layout.getSizePerThread()[d]);
      tpw.push_back(layout.getThreadsPerWarp()[d]);
      wpc.push_back(layout.getWarpsPerCTA()[d]);
      continue;
    }
    lanes *= layout.getThreadsPerWarp()[d];
    warps *= layout.getWarpsPerCTA()[d];
  }
  for (unsigned d : layout.getOrder())
    if (auto it = llvm::find(kept, d); it != kept.end())
      order.push_back(it - kept.begin());
  tpw[order.back()] *= lanes;
  wpc[order.front()] *= warps;
  return BlockedLayoutAttr::get(layout.getContext(), spt, tpw, wpc, order);
}

std::string mlir::tile::whyNotCopyable(LoadOp load, BlockedLayoutAttr layout,
                                       bool anyPadding) {
  if (nonUnitDims(load.getType().getShape()).empty())
    return "its tile is one element (a buffer of it would save nothing)";
  if (!anyPadding && !isZeroPadding(load.getPaddingAttr()))
    return "it pads with other than zero (a copy into shared memory leaves "
           "zeros past the tensor's end)";
  // An async copy moves at least 4 bytes per thread's vector, and a padded
  // tile's vectors stay on one side of its edge (a run of 3001 columns
  // moves one element at a time).
  unsigned bytes = getSharedElementBytes(load.getType().getElementType());
  unsigned fastest = layout.getOrder()[0];
  int64_t elements = layout.getSizePerThread()[fastest];
  int64_t extent = load.getType().getDimSize(fastest);
  if (!llvm::isPowerOf2_64(uint64_t(extent)))
    elements = std::min(elements, extent & -extent);
  if (bytes * elements < 4)
    return "its threads hold less than 4 contiguous bytes (the least a "
           "copy moves)";
  return "";
}

std::string mlir::tile::whyNotStageable(LoadOp load, bool anyPadding) {
  if (load.getBoxes())
    return "its boxes are read from a tile of indices";
  auto layout =
      dyn_cast_if_present<BlockedLayoutAttr>(load.getType().getEncoding());
  if (!layout)
    return "its tile has no blocked layout";
  return whyNotCopyable(load, layout, anyPadding);
}

Value mlir::tile::stageLoad(LoadOp load, Operation *readAt, Attribute layout) {
  MLIRContext *ctx = load.getContext();
  RankedTensorType loaded = load.getType();
  auto loadLayout = cast<BlockedLayoutAttr>(loaded.getEncoding());
  unsigned bytes = getSharedElementBytes(loaded.getElementType());
  // Unswizzled, in the tensor's order: every thread of the read's layout
  // finds its elements where the copy put them. The buffer holds the tile
  // without its size-1 dimensions (as an async copy fills it), in the order
  // of the others.
  SmallVector<unsigned> kept = nonUnitDims(loaded.getShape());
  SmallVector<int64_t> shape;
  for (unsigned d : kept)
    shape.push_back(loaded.getDimSize(d));
  BlockedLayoutAttr copyLayout = dropUnitDims(loadLayout, kept);
  auto shared =
      SharedLayoutAttr::get(ctx, std::max(1u, 16 / bytes), 1, 1,
                            SmallVector<unsigned>(copyLayout.getOrder()));
  auto bufType =
      SharedMemoryType::get(ctx, shape, loaded.getElementType(), shared);
  OpBuilder b(load);
  Value buf = SmemAllocOp::create(b, load.getLoc(), bufType);
  AsyncCopyOp::create(
      b, load.getLoc(), load.getTensor(), load.getIndices(), load.getBoxes(),
      buf, /*pred=*/Value(), load.getBoxDimAttr(),
      b.getDenseI64ArrayAttr(loaded.getShape()), load.getOrderAttr(),
      copyLayout, load.getLatencyAttr(),
      isZeroPadding(load.getPaddingAttr()) ? TypedAttr()
                                           : load.getPaddingAttr());
  b.setInsertionPoint(readAt);
  Location loc = readAt->getLoc();
  AsyncWaitOp::create(b, loc, ValueRange{buf}, b.getI32IntegerAttr(0));
  // A layout of the buffer's rank reads the tile without its size-1
  // dimensions (a reshape that dropped them is then the read).
  auto distributed = dyn_cast<DistributedLayoutInterface>(layout);
  bool squeezed = distributed && distributed.getRank() == shape.size() &&
                  shape.size() != loaded.getRank();
  auto type = RankedTensorType::get(squeezed ? ArrayRef<int64_t>(shape)
                                             : loaded.getShape(),
                                    loaded.getElementType(), layout);
  return LocalLoadOp::create(
      b, loc, type, buf,
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(shape.size(), 0)));
}
