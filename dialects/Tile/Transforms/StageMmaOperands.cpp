//===- StageMmaOperands.cpp - Put mma operands in shared memory -----------===//
//
// Layout assignment leaves an mma operand that the operand layout cannot
// take straight from its producer behind a `tile.convert_layout`. Where that
// conversion moves data between threads, the operand goes through a
// swizzled shared memory buffer instead, and the mma reads it with
// `tile.local_load` (ldmatrix): copied there without registers when it comes
// straight from a load (and read through a transposed view by a use of the
// tile transposed), written from registers otherwise. On sm_90a a
// register tile transposed into a wgmma operand is written once as its
// registers hold it and read through a `tile.smem_permute` view; an A
// operand left in registers stays there even where its tile is also written
// to such a buffer (read from registers, the multiply moves half the shared
// memory traffic: measured 1-6% on attention backward, whose dS^T is both).
// An A operand that a loop computes from a load of its body through
// element-wise ops (scaled or rounded in every trip) stays converted for
// tile-stage-converted-loads, which reads the load's ring slot in the
// operand layout: no store from registers, no barrier.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/StagedLoads.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGEMMAOPERANDS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A swizzled layout for a tile written in 16-byte vectors along `order[0]`
/// and read by ldmatrix in 16-byte rows: XOR-ing the 16-byte column chunk
/// with the row spreads the 8 rows of an 8x8 matrix over all banks.
SharedLayoutAttr sharedLayoutFor(RankedTensorType type,
                                 ArrayRef<unsigned> order) {
  unsigned bytes = getSharedElementBytes(type.getElementType());
  unsigned vec = std::max(1u, 16 / bytes);
  int64_t rowBytes = paddedShape(type.getShape())[order[0]] * bytes;
  unsigned chunks = std::max<int64_t>(1, rowBytes / 16);
  unsigned maxPhase = std::min(8u, chunks);
  unsigned perPhase = std::max(1u, 8 / chunks);
  return SharedLayoutAttr::get(type.getContext(), vec, perPhase, maxPhase,
                               order);
}

/// The `tile.permute [1, 0]` that `value` is, of a tile with a layout; null
/// otherwise.
PermuteOp transposeOf(Value value) {
  auto permute = value.getDefiningOp<PermuteOp>();
  if (!permute || permute.getPermutation() != ArrayRef<int32_t>{1, 0} ||
      !cast<RankedTensorType>(permute.getSource().getType()).getEncoding())
    return {};
  return permute;
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
    // (The pass instance runs on one function after another.)
    staged.clear();
    copies.clear();
    SmallVector<MmaOp> mmas;
    getOperation().walk([&](MmaOp op) { mmas.push_back(op); });
    for (MmaOp mma : mmas) {
      auto layout = cast<MmaLayoutAttr>(mma.getAcc().getType().getEncoding());
      if (layout.isWarpgroup()) {
        if (failed(stageForWarpgroup(mma)))
          return signalPassFailure();
        continue;
      }
      // 8-bit and f32 (tf32) operands are read K-contiguous (ldmatrix
      // moves 16-bit units and transposes only those): A as it is, B
      // transposed on its way into the buffer when its rows run along N.
      Type elt = mma.getA().getType().getElementType();
      bool kMajor = isKMajorMmaType(elt);
      for (auto [operand, k] : {std::pair(&mma.getAMutable(), 1u),
                                std::pair(&mma.getBMutable(), 0u)}) {
        bool transposed = false;
        if (Value staged =
                stage(operand->get(),
                      kMajor ? std::optional<unsigned>(k) : std::nullopt,
                      &transposed, /*isA=*/k == 1))
          operand->set(staged);
        if (transposed)
          emitWarning(getUserFacingLoc(mma))
              << "the " << getKMajorMmaTypeName(elt) << " " << (k ? "A" : "B")
              << " operand of this mma is transposed through registers: "
                 "mma.sync reads "
              << getKMajorMmaTypeName(elt)
              << " operands with K contiguous; load "
              << (k ? "A from an (M, K) tensor"
                    : "B from an (N, K) tensor with order=(1, 0)")
              << " to copy it straight to shared memory";
      }
    }
    // The conversions, reshapes and loads that fed the buffers are dead now.
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isa<ConvertLayoutOp, PermuteOp, ReshapeOp, LoadOp>(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }

  // Converted operand -> its local_load (mma.sync) or its buffer (wgmma).
  DenseMap<Value, Value> staged;
  // (Loaded tile, buffer type) -> the buffer an async copy fills with it.
  DenseMap<std::pair<Value, Type>, Value> copies;

  /// Whether `cvt`, the conversion of an A operand (read from registers by
  /// mma.sync and by wgmma; mma.sync's B, read from registers too, is not
  /// taken: B scaled in every trip, bf16 sm_80 code on an H200, ran 317 and
  /// 291 TFLOP/s so against 338 and 300 stored to its buffer from a ring
  /// copied ahead, at 4096^3 and 8192 x 8192 x 1024,
  /// bench/results/2026-12-02-h200-norm-operands.md), ends a chain of
  /// element-wise ops from a load of its loop (the tile scaled, cast or
  /// dequantized on its way to the multiply): tile-stage-converted-loads
  /// then reads the load's ring slot in the operand's layout and computes
  /// the chain there, where a buffer of the operand would cost a store from
  /// registers and a barrier every trip (and, on sm_90a, a wait for the
  /// previous trip's multiplies before the store). Not where the chain is
  /// the load alone: a loaded operand is copied to its own buffer.
  static bool readInOperandLayout(ConvertLayoutOp cvt) {
    std::optional<ConvertedLoadChain> chain = convertedLoadChain(cvt);
    return chain && !chain->chain.empty();
  }

  /// A wgmma reads B, and A unless A is already in registers in its operand
  /// layout (or gets there without moving data between threads; for 8-bit
  /// A, between the lanes of a warp: an accumulator rounded to 8 bits),
  /// straight from swizzled shared memory.
  /// 8-bit and f32 (tf32) operands are read K-major only: a tile whose
  /// registers run along M or N is transposed on its way into the buffer
  /// (stored from registers rather than copied).
  LogicalResult stageForWarpgroup(MmaOp mma) {
    Value a = mma.getA();
    Type elt = mma.getA().getType().getElementType();
    bool kMajor = isKMajorMmaType(elt);
    auto warnTransposed = [&](StringRef name, StringRef how) {
      emitWarning(getUserFacingLoc(mma))
          << "the " << getKMajorMmaTypeName(elt) << " " << name
          << " operand of this mma is transposed through registers: wgmma "
             "reads "
          << getKMajorMmaTypeName(elt) << " operands with K contiguous; load "
          << how << " to copy it straight to shared memory";
    };
    auto cvt = a.getDefiningOp<ConvertLayoutOp>();
    // (A tile a view chain leaves in the operand layout, no conversion:
    // tile-assign-layouts' viewInPlace.)
    bool inRegisters =
        !cvt && isa_and_present<DotOperandLayoutAttr>(
                    cast<RankedTensorType>(a.getType()).getEncoding());
    if (cvt && cvt.getSource().getType().getEncoding()) {
      RankedTensorType from = cvt.getSource().getType(), to = cvt.getType();
      // An accumulator's elements, rounded to 8 bits or kept in f32 for a
      // tf32 multiply, move between the lanes of each quad; a loaded tile's
      // (whatever its layout) are copied to shared memory, as wgmma reads them
      // best.
      inRegisters = isRegisterOnlyConversion(from, to) ||
                    (kMajor && isa<MmaLayoutAttr>(from.getEncoding()) &&
                     isWarpShuffleConversion(from, to)) ||
                    (!kMajor && readInOperandLayout(cvt));
    }
    // A transposed loaded tile (16-bit) is read M-major through a
    // transposed view of the buffer of the tile itself.
    if (Value view = inRegisters || kMajor ? Value() : stageTransposedA(a)) {
      a = view;
    } else if (!inRegisters && (kMajor || cvt)) {
      bool transposed = false;
      a = stageBuffer(a, /*hopper=*/true,
                      kMajor ? std::optional<unsigned>(1) : std::nullopt,
                      &transposed);
      if (!a)
        return mma.emitError("wgmma: the A operand cannot be put in a "
                             "shared layout wgmma reads (its fastest "
                             "dimension is narrower than 32 bytes)");
      if (transposed)
        warnTransposed("A", "A from an (M, K) tensor");
    }
    bool transposed = false;
    // A transposed loaded tile is read from the buffer of the tile itself
    // (which other multiplies may read untransposed): wgmma reads B^T.
    Value b = stageTransposedB(mma.getB(), kMajor);
    bool bTransposed = bool(b);
    // Warpgroups along N each read their columns of B from one offset: an
    // N-major buffer's swizzle blocks must divide their parts.
    auto acc = cast<MmaLayoutAttr>(mma.getAcc().getType().getEncoding());
    int64_t parts = 0;
    if (acc.getWarpsPerCTA()[1] > 1)
      parts = mma.getAcc().getType().getDimSize(1) / acc.getWarpsPerCTA()[1];
    if (!b)
      b = stageBuffer(mma.getB(), /*hopper=*/true,
                      kMajor ? std::optional<unsigned>(0) : std::nullopt,
                      &transposed, parts);
    if (!b)
      return mma.emitError("wgmma: the B operand cannot be put in a shared "
                           "layout wgmma reads (its fastest dimension is "
                           "narrower than 32 bytes)");
    if (transposed)
      warnTransposed("B", "B from an (N, K) tensor with order=(1, 0)");
    OpBuilder builder(mma);
    auto wgmma =
        WarpgroupMmaOp::create(builder, mma.getLoc(), a, b, mma.getAcc());
    wgmma.setBTransposed(bTransposed);
    mma.replaceAllUsesWith(wgmma.getResult());
    mma.erase();
    return success();
  }

  /// When a wgmma operand is a loaded tile transposed (`tile.permute [1,
  /// 0]`, kept by tile-load-transposed-operands where the tile is
  /// multiplied untransposed too): the permute, and the buffer an async
  /// copy fills with the tile itself in a layout wgmma reads, shared with
  /// its untransposed uses. Nulls otherwise (with `kMajor`, 8-bit and f32
  /// tiles, also where the tile does not run along its dimension 1).
  std::pair<PermuteOp, Value> copyTransposedTile(Value operand,
                                                 bool kMajor = false) {
    auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
    PermuteOp permute = cvt ? transposeOf(cvt.getSource()) : PermuteOp();
    if (!permute)
      return {};
    Value tile = permute.getSource();
    auto type = cast<RankedTensorType>(tile.getType());
    SmallVector<unsigned> order = storeOrder(type);
    if (kMajor && order.front() != 1)
      return {};
    SharedLayoutAttr layout = getHopperSharedLayout(type, order);
    if (!layout)
      return {};
    Value buf =
        copyAsync(tile, SharedMemoryType::get(&getContext(), type.getShape(),
                                              type.getElementType(), layout));
    return {buf ? permute : PermuteOp(), buf};
  }

  /// When wgmma's B is a loaded tile transposed (copyTransposedTile): the
  /// tile's buffer, which the wgmma reads as B^T. Null otherwise (8-bit and
  /// f32 tiles must then run along K).
  Value stageTransposedB(Value operand, bool kMajor) {
    return copyTransposedTile(operand, kMajor).second;
  }

  /// When wgmma's 16-bit A is a loaded tile transposed (copyTransposedTile:
  /// attention backward's K^T in dQ^T = K^T dS^T): a transposed view
  /// (`tile.smem_permute`) of the tile's buffer, which wgmma reads M-major.
  /// Null otherwise.
  Value stageTransposedA(Value operand) {
    if (Value v = staged.lookup(operand))
      return v;
    auto [permute, buf] = copyTransposedTile(operand);
    if (!buf)
      return {};
    auto layout = cast<SharedMemoryType>(buf.getType()).getLayout();
    auto viewType = cast<RankedTensorType>(permute.getType());
    OpBuilder b(operand.getDefiningOp());
    Value view = SmemPermuteOp::create(
        b, permute.getLoc(),
        SharedMemoryType::get(
            &getContext(), viewType.getShape(), viewType.getElementType(),
            permuteSharedLayout(layout, permute.getPermutation())),
        buf, permute.getPermutationAttr());
    staged[operand] = view;
    return view;
  }

  /// The operand read from a shared memory buffer, or null when the
  /// operand is better kept in registers. `fastest` and `transposed` as
  /// for stageBuffer.
  Value stage(Value operand, std::optional<unsigned> fastest = std::nullopt,
              bool *transposed = nullptr, bool isA = false) {
    auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
    if (!cvt || !cvt.getSource().getType().getEncoding() ||
        !cvt.getType().getEncoding() ||
        isRegisterOnlyConversion(cvt.getSource().getType(), cvt.getType()) ||
        (!fastest && isA && readInOperandLayout(cvt)))
      return {};
    if (Value v = staged.lookup(operand))
      return v;
    Value buf = fastest ? Value() : stageTransposedLoad(cvt);
    if (!buf)
      buf = stageBuffer(operand, /*hopper=*/false, fastest, transposed);
    auto srcType = cvt.getSource().getType();
    OpBuilder b(cvt);
    Value read = LocalLoadOp::create(
        b, cvt.getLoc(), cvt.getType(), buf,
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(srcType.getRank(), 0)));
    staged[operand] = read;
    return read;
  }

  /// When an mma.sync operand is a loaded tile transposed (`tile.permute
  /// [1, 0]` of it, kept by tile-load-transposed-operands where the tile is
  /// multiplied untransposed too: MLA's latent tile, K^T for the scores and
  /// V for P V): a view, transposed, of the buffer an async copy fills with
  /// the tile itself, which its untransposed uses share; ldmatrix reads it
  /// with or without `.trans` as the view's order says. Without it, the
  /// transposed use would write the tile from registers into a buffer of
  /// its own, and the untransposed uses would then find the tile used by
  /// other than multiplies and write a second one. Null otherwise.
  Value stageTransposedLoad(ConvertLayoutOp cvt) {
    PermuteOp permute = transposeOf(cvt.getSource());
    if (!permute)
      return {};
    Value tile = permute.getSource();
    auto type = cast<RankedTensorType>(tile.getType());
    auto bufType = SharedMemoryType::get(
        &getContext(), type.getShape(), type.getElementType(),
        sharedLayoutFor(type, storeOrder(type)));
    Value buf = copyAsync(tile, bufType);
    if (!buf)
      return {};
    auto viewType = cast<RankedTensorType>(permute.getType());
    OpBuilder b(cvt);
    return SmemPermuteOp::create(
        b, permute.getLoc(),
        SharedMemoryType::get(
            &getContext(), viewType.getShape(), viewType.getElementType(),
            permuteSharedLayout(bufType.getLayout(), permute.getPermutation())),
        buf, permute.getPermutationAttr());
  }

  /// A shared memory buffer holding `operand`: copied there asynchronously
  /// when it comes straight from a load, stored from registers otherwise
  /// (from before its layout conversion, if it has one). `hopper` asks for
  /// the layouts wgmma reads; null when the tile has none.
  /// `fastest`, when given, is the dimension the buffer must hold fastest
  /// (K for 8-bit wgmma operands); by default the one the tile's registers
  /// run along. `transposed`, when given, is set when `fastest` is not
  /// that one (the tile is stored across its registers' order).
  Value stageBuffer(Value operand, bool hopper,
                    std::optional<unsigned> fastest = std::nullopt,
                    bool *transposed = nullptr, int64_t parts = 0) {
    if (hopper)
      if (Value v = staged.lookup(operand))
        return v;
    auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
    Value src = cvt && cvt.getSource().getType().getEncoding() ? cvt.getSource()
                                                               : operand;
    if (hopper && !fastest)
      if (Value view = stagePermuted(src, cvt, parts)) {
        staged[operand] = view;
        return view;
      }
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<unsigned> order = storeOrder(srcType);
    if (fastest && order.front() != *fastest) {
      if (transposed)
        *transposed = true;
      order = {*fastest};
      for (unsigned d = 0; d < srcType.getRank(); ++d)
        if (d != *fastest)
          order.push_back(d);
    }
    // (`parts`: B's columns per warpgroup, which an N-major B's swizzle
    // blocks must divide.)
    SharedLayoutAttr layout =
        hopper ? getHopperSharedLayout(srcType, order, /*exact=*/false,
                                       order.front() == 1 ? parts : 0)
               : sharedLayoutFor(srcType, order);
    if (!layout)
      return {};
    auto bufType = SharedMemoryType::get(&getContext(), srcType.getShape(),
                                         srcType.getElementType(), layout);
    Value buf = cvt ? copyAsync(src, bufType) : Value();
    if (!buf) {
      OpBuilder b = OpBuilder::atBlockEnd(src.getParentBlock());
      if (Operation *def = src.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(src.getParentBlock());
      if (cvt)
        b.setInsertionPoint(cvt);
      buf = LocalAllocOp::create(b, src.getLoc(), bufType, src);
    }
    if (hopper)
      staged[operand] = buf;
    return buf;
  }

  /// When `src` is a tile in registers permuted (`tile.permute`, of it or
  /// of a layout conversion of it): a buffer the tile is written to from
  /// its registers as they are, read through a permuted view
  /// (`tile.smem_permute`), placed before `at` (the operand's conversion)
  /// when given. The permutation's own conversion would move the tile
  /// between threads through shared memory first and then write it again.
  /// Null when the view is not in a layout wgmma reads, or the tile comes
  /// straight from a load (copied, not written from registers).
  Value stagePermuted(Value src, Operation *at, int64_t parts) {
    auto permute = src.getDefiningOp<PermuteOp>();
    if (!permute)
      return {};
    Value tile = permute.getSource();
    if (auto cvt = tile.getDefiningOp<ConvertLayoutOp>();
        cvt && cvt.getSource().getType().getEncoding())
      tile = cvt.getSource();
    auto type = cast<RankedTensorType>(tile.getType());
    Operation *def = tile.getDefiningOp();
    if (!type.getEncoding() || isa_and_nonnull<LoadOp, ReshapeOp>(def))
      return {};
    SharedLayoutAttr layout = getHopperSharedLayout(type, storeOrder(type));
    if (!layout)
      return {};
    auto viewType = cast<RankedTensorType>(src.getType());
    SharedLayoutAttr viewLayout =
        permuteSharedLayout(layout, permute.getPermutation());
    if (viewLayout != getHopperSharedLayout(viewType, viewLayout.getOrder()) ||
        (parts && viewLayout.getOrder().front() == 1 &&
         parts % viewLayout.getBlock()))
      return {};
    OpBuilder b(&getContext());
    if (at)
      b.setInsertionPoint(at);
    else if (def)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(tile.getParentBlock());
    Value buf = LocalAllocOp::create(
        b, tile.getLoc(),
        SharedMemoryType::get(&getContext(), type.getShape(),
                              type.getElementType(), layout),
        tile);
    return SmemPermuteOp::create(
        b, permute.getLoc(),
        SharedMemoryType::get(&getContext(), viewType.getShape(),
                              viewType.getElementType(), viewLayout),
        buf, permute.getPermutationAttr());
  }

  /// When the tile `src` comes straight from a tile.load (possibly
  /// through a reshape dropping size-1 dimensions) that nothing uses but
  /// conversions into mma operands (of the tile, or of its transpose): a
  /// buffer, the async copy into it where the load was, and a wait for it
  /// right before the first of those uses. The operands of several
  /// multiplies that read one loaded tile into buffers of one type share
  /// the buffer (attention backward's Q and dO, each read by two
  /// multiplies, once transposed). Null when that does not apply.
  Value copyAsync(Value src, SharedMemoryType bufType) {
    if (Value buf = copies.lookup({src, Type(bufType)}))
      return buf;
    auto reshape = src.getDefiningOp<ReshapeOp>();
    auto load = reshape ? reshape.getSource().getDefiningOp<LoadOp>()
                        : src.getDefiningOp<LoadOp>();
    if (!load || (reshape && !load->hasOneUse()))
      return {};
    auto intoOperand = [&](Operation *user) {
      auto use = dyn_cast<ConvertLayoutOp>(user);
      return use && isa<DotOperandLayoutAttr>(use.getType().getEncoding()) &&
             use->getBlock() == load->getBlock();
    };
    Operation *first = nullptr;
    for (Operation *user : src.getUsers()) {
      auto permute = dyn_cast<PermuteOp>(user);
      bool ok = permute ? permute->getBlock() == load->getBlock() &&
                              !permute->use_empty() &&
                              llvm::all_of(permute->getUsers(), intoOperand)
                        : intoOperand(user);
      if (!ok)
        return {};
      if (!first || user->isBeforeInBlock(first))
        first = user;
    }
    auto layout = dyn_cast<BlockedLayoutAttr>(
        cast<RankedTensorType>(src.getType()).getEncoding());
    // A copy keeps the tensor's contiguous dimension fastest.
    if (!layout || !whyNotCopyable(load, layout).empty() ||
        layout.getOrder().front() != bufType.getLayout().getOrder().front())
      return {};
    OpBuilder b(load);
    Value buf = SmemAllocOp::create(b, load.getLoc(), bufType);
    AsyncCopyOp::create(b, load.getLoc(), load.getTensor(), load.getIndices(),
                        load.getBoxes(), buf, /*pred=*/Value(),
                        load.getBoxDimAttr(),
                        b.getDenseI64ArrayAttr(load.getType().getShape()),
                        load.getOrderAttr(), layout, load.getLatencyAttr(),
                        /*padding=*/TypedAttr());
    b.setInsertionPoint(first);
    AsyncWaitOp::create(b, first->getLoc(), ValueRange{buf},
                        b.getI32IntegerAttr(0));
    copies[{src, Type(bufType)}] = buf;
    return buf;
  }
};

} // namespace
