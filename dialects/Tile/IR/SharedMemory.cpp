//===- SharedMemory.cpp - What shared memory each op needs ----------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

unsigned tile::getSharedElementBytes(Type elementType) {
  return std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
}

/// Elements of a tile's registers: its padded shape.
static int64_t paddedElements(RankedTensorType type) {
  int64_t n = 1;
  for (int64_t d : paddedShape(type.getShape()))
    n *= d;
  return n;
}

int64_t tile::getSharedBytes(SharedMemoryType type) {
  return type.getNumElements() * getSharedElementBytes(type.getElementType());
}

int64_t tile::getSharedAlignment(SharedMemoryType type) {
  constexpr int64_t kAlignment = 128;
  SharedLayoutAttr layout = type.getLayout();
  if (!layout.getBlock())
    return kAlignment;
  int64_t pattern = int64_t(layout.getPerPhase()) * layout.getMaxPhase() *
                    layout.getBlock() *
                    getSharedElementBytes(type.getElementType());
  return std::max(kAlignment, pattern);
}

int64_t tile::getTileExtentBytes(SharedMemoryType type) {
  int64_t padded = getSharedBytes(type);
  ArrayRef<int64_t> shape = type.getShape();
  if (!isPadded(shape))
    return padded;
  unsigned eltBytes = getSharedElementBytes(type.getElementType());
  auto cut = [&](int64_t elements) {
    return std::min(padded, int64_t(llvm::alignTo(elements * eltBytes,
                                                  getSharedAlignment(type))));
  };
  if (shape.size() == 1)
    return cut(shape[0]);
  // The layout's address, from its lowest digit (swizzledSharedLayout): the
  // column in a block, the row of the 2-D tile (order[1]), the block, the
  // stacked tiles (order[2..]). Only the highest digit is cut to what the
  // tile reaches; the others keep their padding.
  SharedLayoutAttr layout = type.getLayout();
  ArrayRef<unsigned> order = layout.getOrder();
  SmallVector<int64_t> storage = type.getStorageShape();
  int64_t used;
  if (shape.size() > 2) {
    unsigned top = order.back();
    used = shape[top] * (type.getNumElements() / storage[top]);
  } else {
    unsigned f = order[0], r = order[1];
    int64_t blockCols = layout.getBlock()
                            ? std::min<int64_t>(layout.getBlock(), storage[f])
                            : storage[f];
    if (storage[f] > blockCols)
      used = llvm::divideCeil(shape[f], blockCols) * storage[r] * blockCols;
    else
      // Rows in eights: a wgmma's N (or M) is a multiple of 8.
      used = std::min<int64_t>(storage[r], llvm::alignTo(shape[r], 8)) *
             storage[f];
  }
  return cut(used);
}

SharedMemoryType tile::getCompactType(SharedMemoryType type, bool wgmmaA) {
  SharedLayoutAttr layout = type.getLayout();
  ArrayRef<int64_t> shape = type.getShape();
  if (layout.getRows() || shape.size() < 2)
    return type;
  ArrayRef<unsigned> order = layout.getOrder();
  int64_t own = shape[order[1]];
  int64_t rows = llvm::alignTo(
      own, std::max({wgmmaA ? 64u : 8u,
                     layout.getPerPhase() * layout.getMaxPhase()}));
  if (rows >= int64_t(llvm::PowerOf2Ceil(uint64_t(own))))
    return type;
  int64_t cols = llvm::PowerOf2Ceil(uint64_t(shape[order[0]]));
  bool blocks = layout.getBlock() && cols > layout.getBlock();
  bool stacked = llvm::any_of(order.drop_front(2),
                              [&](unsigned d) { return shape[d] > 1; });
  if (!blocks && !stacked)
    return type;
  return SharedMemoryType::get(type.getContext(), shape, type.getElementType(),
                               layout.withRows(unsigned(rows)));
}

bool tile::isWgmmaA(Operation *alloc) {
  return llvm::any_of(getBufferUsers(alloc->getResult(0)), [&](Operation *op) {
    auto mma = dyn_cast<WarpgroupMmaOp>(op);
    return mma && isa<SharedMemoryType>(mma.getA().getType()) &&
           getAllocation(mma.getA()) == alloc;
  });
}

bool tile::isStoredWithinTile(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile && isTileType(tile) && isDistributedLayout(tile.getEncoding()) &&
         isPaddingPerRegister(
             toLinearLayout(tile.getEncoding(), tile.getShape()),
             tile.getShape());
}

bool tile::isAccessedWithinTile(Operation *alloc) {
  if (auto local = dyn_cast<LocalAllocOp>(alloc))
    if (!isStoredWithinTile(local.getSource().getType()))
      return false;
  SmallVector<Value> values = {alloc->getResult(0)};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<SmemSlotOp, SmemPermuteOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      // A tile.smem_view, a buffer of another type over the same first
      // bytes, whose own tile's elements end within this one's (a part of a
      // staged store in a held ring slot), where it too is accessed within
      // its tile; otherwise the buffer keeps its padding.
      if (auto view = dyn_cast<SmemViewOp>(user)) {
        if (getTileExtentBytes(view.getType()) >
            getTileExtentBytes(cast<SharedMemoryType>(v.getType())))
          return false;
        values.push_back(view.getResult());
        continue;
      }
      bool ok =
          TypeSwitch<Operation *, bool>(user)
              .Case([](TmaLoadOp op) { return !op.getBoxes(); })
              .Case<TmaStoreOp, TmaStoreWaitOp, WarpgroupMmaOp, WgmmaWaitOp,
                    AsyncWaitOp, MbarrierWaitOp, MbarrierArriveOp>(
                  [](Operation *) { return true; })
              .Case<LocalStoreOp, ClusterStoreOp>([](auto op) {
                return isStoredWithinTile(op.getValue().getType());
              })
              // Read at its own elements where the buffer is held short
              // (the lowering's generic path; a padded mma operand keeps
              // its ldmatrix reads and the padding, and so does a read
              // into no layout, which the lowering refuses).
              .Case([](LocalLoadOp op) {
                Attribute layout = op.getType().getEncoding();
                return !isPadded(op.getType().getShape()) ||
                       (layout && !isa<DotOperandLayoutAttr>(layout));
              })
              // Its lanes skip the tile's padding (neither copied nor
              // filled with zeros).
              .Case([](AsyncCopyOp op) { return !op.getBoxes(); })
              .Default([](Operation *) { return false; });
      if (!ok)
        return false;
    }
  }
  return true;
}

SharedMemoryType
tile::getRingType(llvm::function_ref<InFlightDiagnostic()> emitError,
                  SharedMemoryType stage, int64_t stages) {
  SharedLayoutAttr layout = stage.getLayout();
  SmallVector<unsigned> order;
  for (unsigned d : layout.getOrder())
    order.push_back(d + 1);
  order.push_back(0);
  SmallVector<int64_t> shape = {stages};
  llvm::append_range(shape, stage.getShape());
  return SharedMemoryType::getChecked(
      emitError, stage.getContext(), ArrayRef<int64_t>(shape),
      stage.getElementType(),
      SharedLayoutAttr::get(stage.getContext(), layout.getVec(),
                            layout.getPerPhase(), layout.getMaxPhase(), order,
                            layout.getBlock()));
}

SmallVector<Operation *> tile::getBufferUsers(Value buffer) {
  SmallVector<Operation *> users;
  SmallVector<Value> values = {buffer};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      users.push_back(user);
      if (isa<SmemSlotOp, SmemPermuteOp, SmemViewOp>(user))
        values.push_back(user->getResult(0));
    }
  }
  return users;
}

SharedMemoryType tile::getSlotType(Operation *alloc) {
  for (Operation *user : alloc->getResult(0).getUsers())
    if (auto slot = dyn_cast<SmemSlotOp>(user))
      return slot.getType();
  return cast<SharedMemoryType>(alloc->getResult(0).getType());
}

int64_t tile::getSlotBytes(Operation *alloc) {
  if (auto attr = alloc->getAttrOfType<IntegerAttr>(kSlotBytesAttr))
    return attr.getInt();
  // (Held at its own rows where tile-allocate-shared-memory will retype
  // it so: getCompactType.)
  SharedMemoryType slotType = getSlotType(alloc);
  return isAccessedWithinTile(alloc)
             ? getTileExtentBytes(getCompactType(slotType, isWgmmaA(alloc)))
             : getSharedBytes(slotType);
}

bool tile::isRegisterOnlyConversion(RankedTensorType from,
                                    RankedTensorType to) {
  if (!isTileType(from) || !isTileType(to) ||
      !isDistributedLayout(from.getEncoding()) ||
      !isDistributedLayout(to.getEncoding()))
    return false;
  LinearLayout a = toLinearLayout(from.getEncoding(), from.getShape());
  LinearLayout b = toLinearLayout(to.getEncoding(), to.getShape());
  if (!a.sameThreadMapping(b))
    return false;
  for (unsigned r = 0; r < b.getNumRegs(); ++r)
    if (!a.findReg(b.regCoords(r)))
      return false;
  return true;
}

bool tile::isWarpShuffleConversion(RankedTensorType from, RankedTensorType to) {
  if (!isTileType(from) || !isTileType(to) ||
      !isDistributedLayout(from.getEncoding()) ||
      !isDistributedLayout(to.getEncoding()))
    return false;
  return getWarpShufflePlan(toLinearLayout(from.getEncoding(), from.getShape()),
                            toLinearLayout(to.getEncoding(), to.getShape()),
                            from.getElementTypeBitWidth())
      .has_value();
}

Value tile::beforeRenaming(Value v) {
  while (auto cvt = v.getDefiningOp<ConvertLayoutOp>()) {
    if (!isRegisterOnlyConversion(cvt.getSource().getType(), cvt.getType()))
      break;
    v = cvt.getSource();
  }
  return v;
}

std::optional<SmallVector<unsigned>>
tile::extractRegisters(RankedTensorType from, RankedTensorType to,
                       ArrayRef<int64_t> offsets) {
  if (!isTileType(from) || !isTileType(to) ||
      !isDistributedLayout(from.getEncoding()) ||
      !isDistributedLayout(to.getEncoding()))
    return std::nullopt;
  LinearLayout src = toLinearLayout(from.getEncoding(), from.getShape());
  LinearLayout dst = toLinearLayout(to.getEncoding(), to.getShape());
  return src.subTileRegs(dst, offsets);
}

std::optional<SmallVector<std::pair<int, int>>>
tile::concatRegisters(RankedTensorType result,
                      ArrayRef<RankedTensorType> inputs, unsigned axis) {
  if (!isTileType(result) || !isDistributedLayout(result.getEncoding()))
    return std::nullopt;
  LinearLayout layout = toLinearLayout(result.getEncoding(), result.getShape());
  SmallVector<std::pair<int, int>> from(layout.getNumRegs(), {-1, -1});
  SmallVector<int64_t> offsets(result.getRank(), 0);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto regs = extractRegisters(result, input, offsets);
    if (!regs)
      return std::nullopt;
    for (auto [k, r] : llvm::enumerate(*regs)) {
      if (r >= from.size() || from[r].first >= 0)
        return std::nullopt;
      from[r] = {int(i), int(k)};
    }
    offsets[axis] += input.getDimSize(axis);
  }
  return from;
}

std::optional<SmallVector<std::pair<int, int>>>
tile::concatRegisters(ConcatOp concat) {
  SmallVector<RankedTensorType> inputs;
  for (Value v : concat.getInputs())
    inputs.push_back(cast<RankedTensorType>(v.getType()));
  return concatRegisters(concat.getType(), inputs, concat.getAxis());
}

int64_t tile::getScratchBytes(Operation *op) {
  if (auto extract = dyn_cast<ExtractOp>(op)) {
    RankedTensorType from = extract.getSource().getType();
    if (!isTileType(from) || !isDistributedLayout(from.getEncoding()) ||
        extractRegisters(from, extract.getType(), extract.getOffsets()))
      return 0;
    int64_t elements = 1;
    for (int64_t d : getSubTileScratchShape(
             paddedShape(from.getShape()), extract.getOffsets(),
             paddedShape(extract.getType().getShape())))
      elements *= d;
    return elements * getSharedElementBytes(from.getElementType());
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    // Through shared memory for the bits of the axis that warps hold.
    RankedTensorType type = scan.getType();
    if (!isTileType(type) || !isDistributedLayout(type.getEncoding()))
      return 0;
    LinearLayout layout = toLinearLayout(type.getEncoding(), type.getShape());
    for (const LinearLayout::Basis &b : layout.warps())
      if (b[scan.getAxis()] != 0)
        return paddedElements(type) *
               getSharedElementBytes(type.getElementType());
    return 0;
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    RankedTensorType type = concat.getType();
    if (!isTileType(type) || !isDistributedLayout(type.getEncoding()))
      return 0;
    if (concatRegisters(concat))
      return 0;
    return paddedElements(type) * getSharedElementBytes(type.getElementType());
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
    RankedTensorType type = cvt.getType();
    // What is not a tile is not lowered (the lowering says so): no scratch.
    if (!isTileType(type) ||
        isRegisterOnlyConversion(cvt.getSource().getType(), type) ||
        isWarpShuffleConversion(cvt.getSource().getType(), type))
      return 0;
    return paddedElements(type) * getSharedElementBytes(type.getElementType());
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto type = cast<RankedTensorType>(reduce.getSource().getType());
    if (!isTileType(type) || !isDistributedLayout(type.getEncoding()))
      return 0;
    LinearLayout src = toLinearLayout(type.getEncoding(), type.getShape());
    unsigned axis = reduce.getAxis();
    // (A partial reduction's kept bits are not combined across warps.)
    int64_t kept = reduce.getKeptBits().value_or(0);
    int64_t slots = 1;
    for (const LinearLayout::Basis &b : src.warps())
      if ((b[axis] & ~kept) != 0)
        slots *= 2;
    if (slots == 1)
      return 0;
    int64_t elements = 1;
    SmallVector<int64_t> padded = paddedShape(type.getShape());
    for (unsigned d = 0; d < type.getRank(); ++d)
      if (d != axis)
        elements *= padded[d];
    return elements * slots * getSharedElementBytes(type.getElementType());
  }
  // The old value, from the thread that read it to the others.
  if (isa<BlockAtomicOp, BlockExchangeOp>(op))
    return 4;
  return 0;
}

bool tile::isScratchReadAfterOwnBarrier(Operation *op) {
  // (ReducePatterns.cpp's reduceAcrossWarps: partials stored, a barrier,
  // partials loaded.)
  return isa<ReduceOp>(op) && getScratchBytes(op) > 0;
}

SharedLayoutAttr tile::getHopperSharedLayout(RankedTensorType type,
                                             ArrayRef<unsigned> order,
                                             bool exact, int64_t blockDivides) {
  unsigned bytes = getSharedElementBytes(type.getElementType());
  int64_t rowBytes = (exact ? type.getDimSize(order[0])
                            : paddedShape(type.getShape())[order[0]]) *
                     bytes;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0 &&
        (!blockDivides || blockDivides % (swizzle / bytes) == 0))
      return SharedLayoutAttr::get(type.getContext(), 16 / bytes, 128 / swizzle,
                                   swizzle / 16, order, swizzle / bytes);
  return {};
}

SmallVector<int64_t> tile::getSubTileScratchShape(ArrayRef<int64_t> source,
                                                  ArrayRef<int64_t> offsets,
                                                  ArrayRef<int64_t> sub) {
  SmallVector<int64_t> buffer(source);
  for (unsigned d = 0; d < offsets.size(); ++d)
    buffer[d] =
        int64_t(llvm::PowerOf2Ceil(std::max(buffer[d], offsets[d] + sub[d])));
  return buffer;
}

int64_t tile::getTmaBoxCount(SharedMemoryType type, int64_t inner) {
  ArrayRef<int64_t> shape = type.getShape();
  unsigned fastest = type.getLayout().getOrder()[0];
  return llvm::divideCeil(shape[fastest], inner);
}

Value tile::getSlotRoot(Value buffer) {
  while (true) {
    if (auto slot = buffer.getDefiningOp<SmemSlotOp>())
      buffer = slot.getRing();
    else if (auto view = buffer.getDefiningOp<SmemPermuteOp>())
      buffer = view.getBuffer();
    else if (auto view = buffer.getDefiningOp<SmemViewOp>())
      buffer = view.getBuffer();
    else
      return buffer;
  }
}

SharedLayoutAttr tile::permuteSharedLayout(SharedLayoutAttr layout,
                                           ArrayRef<int32_t> permutation) {
  // Result dimension i is the buffer's dimension permutation[i].
  SmallVector<unsigned> inverse(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    inverse[p] = i;
  SmallVector<unsigned> order;
  for (unsigned d : layout.getOrder())
    order.push_back(inverse[d]);
  return SharedLayoutAttr::get(layout.getContext(), layout.getVec(),
                               layout.getPerPhase(), layout.getMaxPhase(),
                               order, layout.getBlock(), layout.getRows(),
                               layout.getCols());
}

Operation *tile::getAllocation(Value buffer) {
  Operation *def = getSlotRoot(buffer).getDefiningOp();
  if (isa_and_nonnull<SmemAllocOp, LocalAllocOp, MbarrierAllocOp>(def))
    return def;
  return nullptr;
}

void tile::collectAllocations(Operation *op,
                              llvm::SmallPtrSetImpl<Operation *> &out) {
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      if (isa<SharedMemoryType, MbarrierType>(v.getType()))
        if (Operation *alloc = getAllocation(v))
          out.insert(alloc);
  });
}

bool tile::hasZero(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return isa<IntegerType, FloatType>(tensor.getElementType());
  return isa<IntegerType, IndexType, FloatType>(type);
}

Value tile::zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

int64_t tile::getAllocationBytes(Operation *alloc) {
  Type type = alloc->getResult(0).getType();
  if (auto bars = dyn_cast<MbarrierType>(type))
    return int64_t(bars.getCount()) * kMbarrierBytes;
  auto buffer = cast<SharedMemoryType>(type);
  // A ring (indexed by tile.smem_slot) holds its stages one after the
  // other, however many they are.
  bool ring =
      llvm::any_of(alloc->getResult(0).getUsers(), llvm::IsaPred<SmemSlotOp>);
  return (ring ? buffer.getShape().front() : 1) * getSlotBytes(alloc);
}

Value tile::getSlotCounter(Value slot, unsigned stages) {
  auto rem = slot.getDefiningOp<arith::RemUIOp>();
  APInt divisor;
  if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&divisor)) ||
      divisor != stages)
    return nullptr;
  return rem.getLhs();
}

int64_t mlir::tile::sharedBytesLiveIn(Operation *loop) {
  Operation *func = loop;
  while (func->getParentOp() && !isa<ModuleOp>(func->getParentOp()))
    func = func->getParentOp();
  DenseMap<Operation *, unsigned> order;
  func->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order[op] = order.size(); });
  unsigned first = order[loop], last = first;
  int64_t scratch = 0;
  loop->walk([&](Operation *op) {
    last = std::max(last, order[op]);
    scratch = std::max(scratch, getScratchBytes(op));
  });
  llvm::SmallPtrSet<Operation *, 16> allocations;
  collectAllocations(func, allocations);
  int64_t bytes = scratch;
  for (Operation *alloc : allocations) {
    unsigned at = order[alloc];
    if (at > last)
      continue;
    bool live = at >= first;
    for (Operation *user : getBufferUsers(alloc->getResult(0)))
      live |= order[user] >= first;
    if (live)
      bytes += llvm::alignTo(getAllocationBytes(alloc), 128);
  }
  return bytes;
}
