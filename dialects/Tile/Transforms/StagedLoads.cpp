//===- StagedLoads.cpp - A load read through a shared memory buffer ------===//

#include "Tile/Transforms/StagedLoads.h"

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
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
  // In the tensor's order: every thread of the read's layout finds its
  // elements where the copy put them. The buffer holds the tile without
  // its size-1 dimensions (as an async copy fills it), in the order of the
  // others. Unswizzled, but for a read in an mma operand's layout (ldmatrix:
  // 16-byte rows of 8 rows at once, which an unswizzled buffer of 128-byte
  // rows puts in one bank group): swizzled as wgmma's buffers are, which
  // both kinds of async copy write.
  SmallVector<unsigned> kept = nonUnitDims(loaded.getShape());
  SmallVector<int64_t> shape;
  for (unsigned d : kept)
    shape.push_back(loaded.getDimSize(d));
  BlockedLayoutAttr copyLayout = dropUnitDims(loadLayout, kept);
  SmallVector<unsigned> order(copyLayout.getOrder());
  SharedLayoutAttr shared;
  if (isa<DotOperandLayoutAttr>(layout) && shape.size() == 2)
    shared = getHopperSharedLayout(
        RankedTensorType::get(shape, loaded.getElementType()), order);
  if (!shared)
    shared = SharedLayoutAttr::get(ctx, std::max(1u, 16 / bytes), 1, 1, order);
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
  bool squeezed = distributed &&
                  int64_t(distributed.getRank()) == int64_t(shape.size()) &&
                  int64_t(shape.size()) != loaded.getRank();
  auto type = RankedTensorType::get(squeezed ? ArrayRef<int64_t>(shape)
                                             : loaded.getShape(),
                                    loaded.getElementType(), layout);
  return LocalLoadOp::create(
      b, loc, type, buf,
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(shape.size(), 0)));
}

int64_t mlir::tile::contiguousRowBytes(LoadOp load) {
  RankedTensorType type = load.getType();
  unsigned rank = type.getRank();
  unsigned dim = rank - 1;
  if (std::optional<ArrayRef<int32_t>> order = load.getOrder())
    dim = llvm::find(*order, int32_t(rank - 1)) - order->begin();
  return type.getDimSize(dim) *
         int64_t(getSharedElementBytes(type.getElementType()));
}

std::optional<ConvertedLoadChain>
mlir::tile::convertedLoadChain(ConvertLayoutOp convert) {
  RankedTensorType from = convert.getSource().getType();
  RankedTensorType to = convert.getType();
  if (!isa_and_present<BlockedLayoutAttr>(from.getEncoding()) ||
      !to.getEncoding() || isRegisterOnlyConversion(from, to) ||
      !isa<scf::ForOp>(convert->getParentOp()))
    return std::nullopt;
  ConvertedLoadChain c;
  c.convert = convert;
  Value v = convert.getSource();
  while (true) {
    if (!v.hasOneUse())
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != convert->getBlock())
      return std::nullopt;
    if (auto load = dyn_cast<LoadOp>(def)) {
      c.load = load;
      break;
    }
    // The load's tile without its size-1 dimensions (a (1, M, N) box of a
    // 3-D tensor read as (M, N)): the buffer holds it so already.
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      ArrayRef<int64_t> from = reshape.getSource().getType().getShape();
      ArrayRef<int64_t> to = reshape.getType().getShape();
      SmallVector<int64_t> kept;
      for (unsigned d : nonUnitDims(from))
        kept.push_back(from[d]);
      if (c.squeeze || !reshape.getSource().getDefiningOp<LoadOp>() ||
          ArrayRef<int64_t>(kept) != to)
        return std::nullopt;
      c.squeeze = reshape;
      v = reshape.getSource();
      continue;
    }
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
        def->getNumRegions() != 0)
      return std::nullopt;
    Value next = chainOperand(def);
    if (!next)
      return std::nullopt;
    c.chain.push_back(def);
    v = next;
  }
  if (!whyNotStageable(c.load).empty() || contiguousRowBytes(c.load) < 16)
    return std::nullopt;
  std::reverse(c.chain.begin(), c.chain.end());
  return c;
}
