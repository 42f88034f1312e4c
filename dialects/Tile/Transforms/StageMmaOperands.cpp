//===- StageMmaOperands.cpp - Feed mma from shared memory by K slices -----===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGEMMAOPERANDS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kSliceK = 16; // the K of one mma.sync.m16n8k16

/// True when converting `from` to `to` keeps every element in its thread.
bool isRegisterOnly(RankedTensorType from, RankedTensorType to) {
  LinearLayout a = toLinearLayout(from.getEncoding(), from.getShape());
  LinearLayout b = toLinearLayout(to.getEncoding(), to.getShape());
  if (!a.sameThreadMapping(b))
    return false;
  for (unsigned r = 0; r < b.getNumRegs(); ++r)
    if (!a.findReg(b.regCoords(r)))
      return false;
  return true;
}

/// A swizzled layout for a tile written in 16-byte vectors along `order[0]`
/// and read by ldmatrix in 16-byte rows: XOR-ing the 16-byte column chunk
/// with the row spreads the 8 rows of an 8x8 matrix over all banks.
SharedLayoutAttr sharedLayoutFor(RankedTensorType type,
                                 ArrayRef<unsigned> order) {
  unsigned bytes = std::max(1u, type.getElementTypeBitWidth() / 8);
  unsigned vec = std::max(1u, 16 / bytes);
  int64_t rowBytes = type.getDimSize(order[0]) * bytes;
  unsigned chunks = std::max<int64_t>(1, rowBytes / 16);
  unsigned maxPhase = std::min(8u, chunks);
  unsigned perPhase = std::max(1u, 8 / chunks);
  return SharedLayoutAttr::get(type.getContext(), vec, perPhase, maxPhase,
                               order);
}

/// The order (fastest first) in which `type`'s layout holds contiguous
/// registers, so that the copy into shared memory is vectorized.
SmallVector<unsigned> storeOrder(RankedTensorType type) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(type.getEncoding()))
    return SmallVector<unsigned>(b.getOrder());
  SmallVector<unsigned> order;
  for (int d = type.getRank() - 1; d >= 0; --d)
    order.push_back(d);
  return order;
}

struct StageMmaOperandsPass
    : public mlir::tile::impl::TileStageMmaOperandsBase<StageMmaOperandsPass> {
  void runOnOperation() override {
    if (failed(checkMmaOperandLayouts(getOperation())))
      return signalPassFailure();
    pending.clear();
    SmallVector<MmaOp> mmas;
    getOperation().walk([&](MmaOp op) { mmas.push_back(op); });
    DenseMap<Value, Value> buffers; // converted value -> its smem buffer
    for (MmaOp mma : mmas)
      if (failed(stage(mma, buffers)))
        return signalPassFailure();
    for (Value buf : pending)
      issueEarly(buf.getDefiningOp());
    for (Value buf : pending)
      insertWait(buf);
    // The loads and reshapes that fed the copies are dead now.
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isa<ReshapeOp, LoadOp>(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }

  SmallVector<Value> pending; // buffers filled by async copies

  /// True when `op` (or an op nested in it) may write memory other than
  /// shared memory: a copy from global memory must not move above it.
  static bool mayWriteGlobalMemory(Operation *op) {
    bool writes = false;
    op->walk([&](Operation *nested) {
      auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!iface) {
        if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
            !isPure(nested))
          writes = true;
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (auto &e : effects)
        if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
            !isa<SharedMemoryResource>(e.getResource()))
          writes = true;
    });
    return writes;
  }

  /// Moves an async copy up its block, to right after the ops its operands
  /// come from, but not above an earlier async copy (copies complete in
  /// issue order): it then overlaps with the work in between.
  static void issueEarly(Operation *copy) {
    Operation *target = copy;
    for (Operation *prev = copy->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isa<AsyncLoadOp>(prev) || mayWriteGlobalMemory(prev))
        break;
      bool defines = llvm::any_of(prev->getResults(), [&](Value r) {
        return llvm::is_contained(copy->getOperands(), r);
      });
      if (defines)
        break;
      target = prev;
    }
    if (target != copy)
      copy->moveBefore(target);
  }

  /// Waits for the copy into `buf` before the first read of it: the read,
  /// or the op of the copy's block that contains it. Copies issued after
  /// this one in between may stay in flight.
  static void insertWait(Value buf) {
    Operation *copy = buf.getDefiningOp();
    Block *block = copy->getBlock();
    Operation *first = nullptr;
    for (Operation *user : buf.getUsers()) {
      Operation *at = block->findAncestorOpInBlock(*user);
      if (at && (!first || at->isBeforeInBlock(first)))
        first = at;
    }
    if (!first)
      return;
    int32_t later = 0;
    for (Operation *op = copy->getNextNode(); op && op != first;
         op = op->getNextNode())
      if (isa<AsyncLoadOp>(op))
        ++later;
    OpBuilder b(first);
    AsyncWaitOp::create(b, first->getLoc(), buf, b.getI32IntegerAttr(later));
  }

  /// The buffer holding the source of the conversion that produces
  /// `operand`, or null when the operand is better kept in registers.
  Value bufferFor(Value operand, DenseMap<Value, Value> &buffers) {
    auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
    if (!cvt || isRegisterOnly(cvt.getSource().getType(), cvt.getType()))
      return {};
    auto it = buffers.find(operand);
    if (it != buffers.end())
      return it->second;
    auto srcType = cvt.getSource().getType();
    auto bufType = SharedMemoryType::get(
        &getContext(), srcType.getShape(), srcType.getElementType(),
        sharedLayoutFor(srcType, storeOrder(srcType)));
    Value buf = asyncCopy(cvt, bufType);
    if (!buf) {
      OpBuilder b(cvt);
      buf = LocalAllocOp::create(b, cvt.getLoc(), bufType, cvt.getSource());
    }
    buffers[operand] = buf;
    return buf;
  }

  /// When the converted tile comes straight from a tile.load (possibly
  /// through a reshape dropping size-1 dimensions) used nowhere else, copies
  /// it from global to shared memory with cp.async instead, bypassing
  /// registers. Returns null when that does not apply.
  Value asyncCopy(ConvertLayoutOp cvt, SharedMemoryType bufType) {
    Value src = cvt.getSource();
    auto reshape = src.getDefiningOp<ReshapeOp>();
    auto load = reshape ? reshape.getSource().getDefiningOp<LoadOp>()
                        : src.getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || (reshape && !reshape->hasOneUse()))
      return {};
    auto layout = dyn_cast<BlockedLayoutAttr>(
        cast<RankedTensorType>(src.getType()).getEncoding());
    if (!layout)
      return {};
    // cp.async copies 4, 8 or 16 bytes and fills with zeros only.
    unsigned bytes = load.getType().getElementTypeBitWidth() / 8;
    unsigned vec = layout.getSizePerThread()[layout.getOrder()[0]];
    if (bytes * vec < 4)
      return {};
    if (auto pad = load.getPaddingAttr()) {
      auto f = dyn_cast<FloatAttr>(pad);
      auto i = dyn_cast<IntegerAttr>(pad);
      if (!((f && f.getValue().isPosZero()) || (i && i.getValue().isZero())))
        return {};
    }
    OpBuilder b(load);
    Value buf = AsyncLoadOp::create(
        b, load.getLoc(), bufType, load.getTensor(), load.getIndices(),
        b.getDenseI64ArrayAttr(load.getType().getShape()), load.getOrderAttr(),
        layout);
    pending.push_back(buf);
    return buf;
  }

  LogicalResult stage(MmaOp mma, DenseMap<Value, Value> &buffers) {
    auto aType = mma.getA().getType(), bType = mma.getB().getType();
    int64_t K = aType.getDimSize(1);
    if (K % kSliceK)
      return success(); // the lowering reports the unsupported shape
    Value bufA = bufferFor(mma.getA(), buffers);
    Value bufB = bufferFor(mma.getB(), buffers);
    if (!bufA && !bufB && K == kSliceK)
      return success();
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    // The K-th slice of an operand: K is dimension 1 of A and 0 of B.
    auto slice = [&](Value full, Value buf, RankedTensorType type,
                     unsigned kDim, int64_t k) -> Value {
      SmallVector<int64_t> shape(type.getShape());
      SmallVector<int64_t> offsets(2, 0);
      shape[kDim] = kSliceK;
      offsets[kDim] = k;
      auto sliceType = RankedTensorType::get(shape, type.getElementType(),
                                             type.getEncoding());
      if (buf)
        return LocalLoadOp::create(b, loc, sliceType, buf,
                                   b.getDenseI64ArrayAttr(offsets));
      return ExtractOp::create(b, loc, sliceType, full,
                               b.getDenseI64ArrayAttr(offsets));
    };
    Value acc = mma.getAcc();
    for (int64_t k = 0; k < K; k += kSliceK) {
      Value a = slice(mma.getA(), bufA, aType, /*kDim=*/1, k);
      Value bb = slice(mma.getB(), bufB, bType, /*kDim=*/0, k);
      acc = MmaOp::create(b, loc, a, bb, acc);
    }
    mma.replaceAllUsesWith(acc);
    Value oldA = mma.getA(), oldB = mma.getB();
    mma.erase();
    for (Value v : {oldA, oldB})
      if (auto cvt = v.getDefiningOp<ConvertLayoutOp>())
        if (cvt->use_empty())
          cvt.erase();
    return success();
  }
};

} // namespace
