//===- TensorMaps.cpp - TMA descriptors as kernel parameters --------------===//

#include "Tile/Transforms/TensorMaps.h"

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/Views.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
constexpr llvm::StringLiteral kTensorAlignmentAttr = "tile.tensor_alignment";
} // namespace

std::string tile::describeTensorMap(func::FuncOp func, const TmaTile &tile,
                                    TensorMapType &map, unsigned &param) {
  unsigned alignment = 16;
  if (auto a = func->getAttrOfType<IntegerAttr>(kTensorAlignmentAttr))
    alignment = a.getInt();
  if (alignment < 16)
    return "the tensors' assumed alignment (" + std::to_string(alignment) +
           " bytes) is below the 16 bytes TMA needs";
  // A view is copied through its tensor's descriptor, at coordinates
  // shifted by its starts (tmaCoordinates); past the view's end the copy
  // reads what the tensor holds there, so only up to the tensor's own end.
  auto arg = dyn_cast<BlockArgument>(getViewedTensor(tile.tensor));
  if (!arg || arg.getOwner() != &func.getBody().front())
    return "the tensor is not a kernel parameter";
  if (viewNarrowsEnd(tile.tensor))
    return "the tensor is a slice ending before its tensor does (TMA pads "
           "only past a tensor's own end): slice only its start where what "
           "follows may be read";
  param = arg.getArgNumber();
  auto tensor = cast<GlobalTensorType>(tile.tensor.getType());
  unsigned rank = tensor.getRank();
  if (rank > 5)
    return "the tensor has rank " + std::to_string(rank) +
           "; TMA describes at most 5";
  Type elt = tensor.getElementType();
  // (i8 as bytes: UINT8, lib/Runtime/TensorMap.cpp.)
  if (!elt.isF16() && !elt.isBF16() && !elt.isF32() && !elt.isInteger(32) &&
      !elt.isInteger(8) && !isFloat8Type(elt))
    return "TMA does not copy this element type";

  // Tile dimension i lies along tensor dimension perm[i]; buffer dimension
  // j is tile dimension nonUnit[j].
  SmallVector<unsigned> perm;
  for (unsigned i = 0; i < rank; ++i)
    perm.push_back(tile.order ? (*tile.order)[i] : i);
  SmallVector<unsigned> nonUnit = nonUnitDims(tile.shape);
  SharedLayoutAttr layout = tile.bufType.getLayout();
  if (tile.bufType.getShape().size() > 2)
    return "the buffer has more than two dimensions";
  unsigned fastest = layout.getOrder()[0];
  if (fastest >= nonUnit.size())
    return "the buffer's dimensions are not the tile's";
  if (perm[nonUnit[fastest]] != rank - 1)
    return "the buffer's fastest dimension is not along the tensor's "
           "contiguous one";
  unsigned bytes = getSharedElementBytes(elt);
  // Along its fastest dimension a padded tile's box is padded too (whole
  // blocks of the layout, or the buffer's rows; a 1-D buffer's only to 16
  // bytes): what TMA reads past the tile (zeros past the tensor) lands in
  // the padding. Along the others
  // the box is the tile's own size, so that no copy reads the padding's
  // rows from memory (a 192-row tile in a 256-row buffer: 192 rows),
  // whose contents nothing reads (a multiply's N, K and a reduction run at
  // the tile's own size).
  int64_t inner = tile.bufType.getStorageShape()[fastest];
  unsigned swizzle = 0;
  if (layout.getBlock()) {
    inner = layout.getBlock();
    swizzle = layout.getHopperSwizzleBytes(bytes);
    if (!swizzle)
      return "the buffer's swizzle is not one TMA writes";
  } else if (layout.getMaxPhase() > 1) {
    return "the buffer is swizzled for ldmatrix, not as TMA writes";
  } else if (tile.bufType.getShape().size() == 1) {
    // A row: its own elements, in whole 16-byte units, and no further: the
    // buffer (a ring's slot of 80 f32, 320 bytes) is held short of its
    // padding (getTileExtentBytes: 384 bytes, where a box padded to 128
    // elements would write 512 into the next slot).
    inner = std::min<int64_t>(
        inner, llvm::alignTo(tile.bufType.getShape()[0] * bytes, 16) / bytes);
  }
  SmallVector<int64_t> box(rank, 1);
  SmallVector<int64_t> padded = paddedShape(tile.shape);
  for (unsigned i = 0; i < rank; ++i)
    box[perm[i]] = tile.shape[i];
  box[rank - 1] = inner;
  if (tile.boxDim) {
    // One box per gathered entry, each a slab of the buffer's slowest
    // dimension, starting where the swizzle pattern starts again.
    unsigned dim = *tile.boxDim;
    if (nonUnit.size() != 2 || nonUnit[1 - fastest] != dim)
      return "the gathered dimension is not the buffer's slowest";
    int64_t rows = padded[dim] / tile.numBoxes;
    int64_t slabBytes = rows * inner * bytes;
    if (slabBytes % (swizzle ? 8 * swizzle : 16))
      return "a gathered box of " + std::to_string(rows) +
             " rows does not start a new swizzle pattern (it needs " +
             std::to_string(swizzle ? 8 * swizzle / (inner * bytes) : 1) +
             " rows or a multiple)";
    box[perm[dim]] = rows;
    // (A box at entry -1, outside the tensor, would land inside it.)
    if (viewShiftsDim(tile.tensor, perm[dim]))
      return "the tensor is a slice starting along the gathered dimension";
  }
  for (int64_t d : box)
    if (d > 256)
      return "a box dimension (" + std::to_string(d) + ") exceeds TMA's 256";
  if ((inner * bytes) % 16)
    return "a box row is not a multiple of 16 bytes";
  map = TensorMapType::getChecked([&] { return emitError(tile.loc); },
                                  func.getContext(), ArrayRef<int64_t>(box),
                                  elt, swizzle);
  if (!map)
    return "the box is not one a tensor map describes";
  return "";
}

FailureOr<Value> tile::getTensorMapArgument(func::FuncOp func, unsigned param,
                                            TensorMapType map) {
  MLIRContext *ctx = func.getContext();
  constexpr llvm::StringLiteral kTensorMapsAttr =
      TileDialect::getTensorMapsAttrName();
  SmallVector<Attribute> maps;
  if (auto old = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    llvm::append_range(maps, old);
  Builder b(ctx);
  auto entry = b.getDictionaryAttr(
      {b.getNamedAttr("param", b.getI32IntegerAttr(param)),
       b.getNamedAttr("box", b.getDenseI64ArrayAttr(map.getBox())),
       b.getNamedAttr("swizzle", b.getI32IntegerAttr(map.getSwizzle()))});
  unsigned first = func.getNumArguments() - maps.size();
  for (auto [i, m] : llvm::enumerate(maps))
    if (m == entry)
      return Value(func.getArgument(first + i));
  if (maps.size() == kMaxTensorMaps)
    return failure();
  if (failed(func.insertArgument(func.getNumArguments(), map, DictionaryAttr(),
                                 func.getLoc())))
    return failure();
  maps.push_back(entry);
  func->setAttr(kTensorMapsAttr, ArrayAttr::get(ctx, maps));
  return Value(func.getArguments().back());
}

SmallVector<Value>
tile::tmaCoordinates(OpBuilder &b, Location loc, Value tensor,
                     ValueRange indices, ArrayRef<int64_t> shape,
                     std::optional<ArrayRef<int32_t>> order) {
  SmallVector<Value> coords(indices.size());
  for (auto [i, index] : llvm::enumerate(indices)) {
    unsigned t = order ? (*order)[i] : i;
    Value extent =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(shape[i]));
    coords[t] = getViewedCoordinate(
        b, loc, tensor, t, arith::MulIOp::create(b, loc, index, extent));
  }
  return coords;
}

bool tile::isPlaceableTmaWrite(func::FuncOp func, Operation *write) {
  for (Operation *parent = write->getParentOp(); parent != func;
       parent = parent->getParentOp())
    if (!isa<scf::ForOp>(parent))
      return false;
  bool after = false, found = false;
  func.walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (nested == write)
      after = true;
    if (!isa<BlockAtomicOp, BlockExchangeOp>(nested))
      return WalkResult::advance();
    Operation *atomic = nested;
    for (Operation *loop = atomic->getParentOp(); loop != func && !found;
         loop = loop->getParentOp())
      found = isa<scf::ForOp, scf::WhileOp>(loop) && loop->isAncestor(write);
    found |= after;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return !found;
}
