//===- SharedMemoryPatterns.cpp - Tiles in swizzled shared memory ---------===//
//
// A shared memory buffer is row-major over its layout's order with the
// 16-byte column chunks of row r XOR-ed with (r / perPhase) % maxPhase, so
// that the eight rows an ldmatrix reads fall in different banks. The writers
// (tile.local_alloc, tile.local_store) store vectors of up to 16 bytes; the
// reader (tile.local_load) uses ldmatrix for the mma operand layouts of 16-bit
// data, where each lane gives the address of one 16-byte matrix row, and plain
// loads otherwise.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;

namespace {

using Basis = LinearLayout::Basis;

Value shr(OpBuilder &b, Location loc, Value v, unsigned s) {
  return s ? Value(arith::ShRUIOp::create(b, loc, v, constI32(b, loc, s))) : v;
}

Value elementPtr(OpBuilder &b, Location loc, Value base, Type elt,
                 Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elt, base,
                             ValueRange{offset});
}

/// Writes the registers `regs` of a tile of type `srcType` to the buffer of
/// type `bufType` at `base`: vectors of the registers contiguous along the
/// buffer's fastest dimension (from any register bits: a transposed tile's
/// registers too), up to its layout's vector width.
void storeTile(OpBuilder &b, Location loc, RankedTensorType srcType,
               ValueRange regs, tile::SharedMemoryType bufType, Value base) {
  Type elt = registerType(bufType.getElementType());
  LinearLayout src = getLinearLayout(srcType);
  unsigned f = bufType.getLayout().getOrder()[0];
  RegisterVectors vectors(src, f, bufType.getLayout().getVec());
  unsigned vec = vectors.length();
  SmallVector<Value> offsets = threadOffsets(b, loc, src);
  for (unsigned r = 0; r < src.getNumRegs(); ++r) {
    if (!vectors.isFirst(r))
      continue;
    // A padded tile's padding is not written (the buffer's is undefined).
    if (llvm::all_of(llvm::seq(0u, vec), [&](unsigned j) {
          return isPaddingRegister(src, srcType.getShape(), vectors.reg(r, j));
        }))
      continue;
    SmallVector<Value> coords = registerCoords(b, loc, src, offsets, r);
    Value ptr =
        elementPtr(b, loc, base, elt, sharedOffset(b, loc, bufType, coords));
    Value v = regs[r];
    if (vec > 1) {
      v = LLVM::UndefOp::create(b, loc, VectorType::get(vec, elt));
      for (unsigned j = 0; j < vec; ++j)
        v = LLVM::InsertElementOp::create(b, loc, v, regs[vectors.reg(r, j)],
                                          constI32(b, loc, j));
    }
    LLVM::StoreOp::create(b, loc, v, ptr,
                          vec * std::max(1u, bitWidth(elt) / 8));
  }
}

struct LocalAllocLowering : OpConversionPattern<tile::LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> memory = getBufferMemory(rewriter, op.getLoc(), op);
    if (failed(memory))
      return failure();
    storeTile(rewriter, op.getLoc(), op.getSource().getType(),
              adaptor.getSource(), op.getType(), *memory);
    rewriter.replaceOp(op, *memory);
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<tile::LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    storeTile(rewriter, op.getLoc(), op.getValue().getType(),
              adaptor.getValue(), op.getBuffer().getType(),
              adaptor.getBuffer().front());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.cluster_store: each element into the buffer of each block q of the
/// cluster at this block's place along the axis (rank * the tile's size
/// there): `mapa` of the local address to block q's, then
/// `st.shared::cluster`. The R threads holding an element (the lane and
/// warp bits whose bases are zero) share its C remote stores: replica r
/// writes blocks r, r + R, ... (with R >= C, C threads one store each, in
/// parallel, rather than one thread's C stores in turn, each of which the
/// release that follows waits for). An element at a time (the tiles a
/// cluster exchanges are small: a row's partial max and sum); padding is
/// not written.
struct ClusterStoreLowering : OpConversionPattern<tile::ClusterStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ClusterStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type elt = type.getElementType();
    unsigned bits = bitWidth(elt); // 16, 32 or 64 (the verifier's)
    LinearLayout layout = getLinearLayout(type);
    unsigned regMask = replicaMask(layout, LinearLayout::kRegister);
    auto [replica, replicaBits] = replicaIndex(rewriter, loc, layout);
    int64_t replicas = int64_t(1) << replicaBits;
    int64_t blocks = clusterSize(op);
    // The blocks this thread writes to: replica + j * replicas < blocks.
    SmallVector<std::pair<Value, Value>> targets; // (block, i32 predicate)
    for (int64_t j = 0; j * replicas < blocks; ++j) {
      Value q = arith::AddIOp::create(rewriter, loc, replica,
                                      constI32(rewriter, loc, j * replicas));
      Value in = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                       q, constI32(rewriter, loc, blocks));
      targets.push_back({q, arith::ExtUIOp::create(rewriter, loc,
                                                   rewriter.getI32Type(), in)});
    }
    unsigned axis = op.getAxis();
    // This block's place along the axis.
    Value rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
    Value place = arith::MulIOp::create(
        rewriter, loc, rank, constI32(rewriter, loc, type.getDimSize(axis)));
    tile::SharedMemoryType bufType = op.getBuffer().getType();
    Value base = adaptor.getBuffer().front();
    Type regType = registerType(elt);
    Type word = rewriter.getIntegerType(bits);
    std::string text = "{\n .reg .pred p;\n .reg .b32 a;\n"
                       " setp.ne.b32 p, $0, 0;\n"
                       " mapa.shared::cluster.u32 a, $1, $2;\n"
                       " @p st.shared::cluster.b" +
                       std::to_string(bits) + " [a], $3;\n}";
    std::string constraints = std::string("r,r,r,") + (bits == 16   ? "h"
                                                       : bits == 32 ? "r"
                                                                    : "l");
    SmallVector<Value> offsets = threadOffsets(rewriter, loc, layout);
    ValueRange regs = adaptor.getValue();
    for (unsigned r = 0; r < layout.getNumRegs(); ++r) {
      if ((r & regMask) || isPaddingRegister(layout, type.getShape(), r))
        continue;
      SmallVector<Value> coords =
          registerCoords(rewriter, loc, layout, offsets, r);
      coords[axis] = arith::AddIOp::create(rewriter, loc, coords[axis], place);
      Value ptr = elementPtr(rewriter, loc, base, regType,
                             sharedOffset(rewriter, loc, bufType, coords));
      Value address = sharedAddress32(rewriter, loc, ptr);
      Value v = regs[r];
      if (v.getType() != word)
        v = arith::BitcastOp::create(rewriter, loc, word, v);
      for (auto [q, pred] : targets)
        inlinePtx(rewriter, loc, TypeRange(), {pred, address, q, v}, text,
                  constraints);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A buffer (or a ring of mbarriers) is a pointer to its first byte.
template <typename AllocOp>
struct AllocationLowering : OpConversionPattern<AllocOp> {
  using OpConversionPattern<AllocOp>::OpConversionPattern;
  using OneToNOpAdaptor =
      typename OpConversionPattern<AllocOp>::OneToNOpAdaptor;
  LogicalResult
  matchAndRewrite(AllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> memory = getBufferMemory(rewriter, op.getLoc(), op);
    if (failed(memory))
      return failure();
    rewriter.replaceOp(op, *memory);
    return success();
  }
};

/// Stage `slot` of a ring starts slot * (bytes of a stage) in.
struct SmemSlotLowering : OpConversionPattern<tile::SmemSlotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SmemSlotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ring = adaptor.getRing().front();
    Value slot = adaptor.getSlot().front();
    // The stage's bytes as allocated (a stage held short of its padding:
    // kSlotBytesAttr).
    int64_t bytes = tile::getSharedBytes(op.getType());
    if (Operation *alloc = tile::getAllocation(op.getRing()))
      if (auto attr = alloc->getAttrOfType<IntegerAttr>(tile::kSlotBytesAttr))
        bytes = attr.getInt();
    Value offset = arith::MulIOp::create(rewriter, loc, slot,
                                         constI32(rewriter, loc, bytes));
    rewriter.replaceOp(op, LLVM::GEPOp::create(rewriter, loc, ring.getType(),
                                               rewriter.getI8Type(), ring,
                                               ValueRange{offset}));
    return success();
  }
};

/// A view (permuted, or of another type) is the buffer's own address: its
/// type alone (shape and shared layout) tells its readers where each
/// element is.
template <typename ViewOp>
struct SmemViewLowering : OpConversionPattern<ViewOp> {
  using OpConversionPattern<ViewOp>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<ViewOp>::OneToNOpAdaptor;
  LogicalResult
  matchAndRewrite(ViewOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getBuffer().front());
    return success();
  }
};

/// `bar.sync 0` for the whole block, `bar.sync id, n` for a named barrier,
/// `bar.sync 8 + thread / 128, 128` for a warpgroup's,
/// `barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire` for
/// the cluster.
struct BarrierLowering : OpConversionPattern<tile::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getCluster()) {
      StringRef arrive = "barrier.cluster.arrive.release;";
      StringRef wait = "barrier.cluster.wait.acquire;";
      std::string text = op.getArrive() ? arrive.str()
                         : op.getWait() ? wait.str()
                                        : (arrive + "\n" + wait).str();
      inlinePtx(rewriter, loc, TypeRange(), ValueRange(), text, "~{memory}");
    } else if (op.getWarpgroup()) {
      // (The block's warpgroup, not a group of consumers' own.)
      Value warpgroup = blockGroupIndex(rewriter, op, 128);
      Value id = arith::AddIOp::create(
          rewriter, loc, warpgroup,
          constI32(rewriter, loc, tile::kFirstWarpgroupBarrierId));
      NVVM::BarrierOp::create(rewriter, loc, /*res=*/Type(), id,
                              constI32(rewriter, loc, 128),
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
    } else if (!op.getId() || (*op.getId() == tile::kConsumerBarrierId &&
                               consumerGroupThreads(op))) {
      // (The consumers' barrier, each group's own where they are in groups.)
      createBarrier(rewriter, loc, op);
    } else {
      NVVM::BarrierOp::create(rewriter, loc, /*res=*/Type(),
                              constI32(rewriter, loc, *op.getId()),
                              constI32(rewriter, loc, *op.getNumThreads()),
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A step of the consumer warpgroups' turns, on named barrier `barrier + g`
/// of warpgroup g (thread / 128), each for two warpgroups' threads:
///   start   warpgroup G-1: bar.arrive barrier
///   wait    bar.sync barrier + g
///   pass    bar.arrive barrier + (g + 1) mod G
///   finish  warpgroup 0: bar.sync barrier
struct WarpgroupTurnLowering : OpConversionPattern<tile::WarpgroupTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::WarpgroupTurnOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int32_t first = op.getBarrier(), groups = op.getGroups();
    std::string threads = std::to_string(2 * op.getThreads());
    // The block's warpgroup (or group of consumers, tile-consumer-groups).
    Value group = blockGroupIndex(rewriter, op, op.getThreads());
    auto onGroup = [&](int32_t only, StringRef instr) {
      std::string text = "{\n .reg .pred p;\n setp.eq.u32 p, $0, " +
                         std::to_string(only) + ";\n @p " + instr.str() + " " +
                         std::to_string(first) + ", " + threads + ";\n}";
      inlinePtx(rewriter, loc, TypeRange(), ValueRange{group}, text,
                "r,~{memory}");
    };
    auto onBarrier = [&](Value id, StringRef instr) {
      inlinePtx(rewriter, loc, TypeRange(), ValueRange{id},
                instr.str() + " $0, " + threads + ";", "r,~{memory}");
    };
    switch (op.getKind()) {
    case tile::TurnKind::Start:
      onGroup(groups - 1, "bar.arrive");
      break;
    case tile::TurnKind::Finish:
      onGroup(0, "bar.sync");
      break;
    case tile::TurnKind::Wait:
      onBarrier(arith::AddIOp::create(rewriter, loc, group,
                                      constI32(rewriter, loc, first)),
                "bar.sync");
      break;
    case tile::TurnKind::Pass: {
      Value next = arith::AddIOp::create(rewriter, loc, group,
                                         constI32(rewriter, loc, 1));
      next = arith::RemUIOp::create(rewriter, loc, next,
                                    constI32(rewriter, loc, groups));
      onBarrier(arith::AddIOp::create(rewriter, loc, next,
                                      constI32(rewriter, loc, first)),
                "bar.arrive");
      break;
    }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// ldmatrix for an mma operand layout: registers come in 32-bit words of
/// the elements adjacent along K (pairs of 16-bit elements, fours of 8-bit
/// ones, single f32 ones: the layout's kWidth), and four words (one 16x16
/// or two 16x8 fragments of 16-bit units) load with one ldmatrix.x4.
/// ldmatrix moves 16-bit units: it transposes only 16-bit elements, so 8-
/// and 32-bit ones must lie with K contiguous.
LogicalResult loadWithLdmatrix(tile::LocalLoadOp op, Value base,
                               ConversionPatternRewriter &rewriter,
                               SmallVectorImpl<Value> &regs) {
  Location loc = op.getLoc();
  auto bufType = op.getBuffer().getType();
  auto dotLayout =
      dyn_cast<tile::DotOperandLayoutAttr>(op.getType().getEncoding());
  Type elt = registerType(bufType.getElementType());
  unsigned bits = bitWidth(elt);
  if (!dotLayout || (bits != 16 && bits != 8 && bits != 32) ||
      dotLayout.getKWidth() != 32 / bits || bufType.getShape().size() != 2 ||
      op.getType().getRank() != 2)
    return failure();
  unsigned w = 32 / bits; // elements per word
  LinearLayout dst = getLinearLayout(op.getType());
  unsigned p = dotLayout.getOpIdx() == 0 ? 1 : 0; // the K dimension
  unsigned f = bufType.getLayout().getOrder()[0];
  unsigned rowDim = 1 - f;
  bool trans = p != f;
  if (trans && bits != 16)
    return failure();
  // The fragment structure ldmatrix delivers: words along K, lanes 0-1
  // step K by w and 2w, lanes 2-4 step the other dimension by 1, 2, 4.
  for (unsigned i = 0; (1u << i) < w; ++i) {
    Basis want(2, 0);
    want[p] = 1 << i;
    if (dst.regs().size() <= i || dst.regs()[i] != want)
      return failure();
  }
  for (unsigned i = 0; i < 5; ++i) {
    Basis want(2, 0);
    if (i < 2)
      want[p] = w << i;
    else
      want[1 - p] = 1 << (i - 2);
    if (dst.lanes()[i] != want)
      return failure();
  }
  unsigned n = dst.getNumRegs();
  if (n % w)
    return failure();
  unsigned words = n / w;
  unsigned perLoad = words % 4 == 0 ? 4 : words % 2 == 0 ? 2 : 1;

  ThreadIndex idx = getThreadIndex(rewriter, loc);
  // The warp's offset (warp bases only: lanes are ldmatrix's business).
  SmallVector<Value> warpOffset;
  for (unsigned d = 0; d < 2; ++d) {
    Value acc = constI32(rewriter, loc, 0);
    for (auto [i, basis] : llvm::enumerate(dst.warps())) {
      if (!basis[d])
        continue;
      Value bit = shr(rewriter, loc, idx.warp, i);
      bit =
          arith::AndIOp::create(rewriter, loc, bit, constI32(rewriter, loc, 1));
      acc = arith::XOrIOp::create(
          rewriter, loc, acc,
          arith::MulIOp::create(rewriter, loc, bit,
                                constI32(rewriter, loc, basis[d])));
    }
    warpOffset.push_back(acc);
  }
  Value row = arith::AndIOp::create(rewriter, loc, idx.lane,
                                    constI32(rewriter, loc, 7));
  Value matrix =
      arith::AndIOp::create(rewriter, loc, shr(rewriter, loc, idx.lane, 3),
                            constI32(rewriter, loc, perLoad - 1));
  Type i32 = rewriter.getI32Type();
  regs.assign(n, Value());
  // Each ldmatrix's lanes address the rows of its perLoad matrices; the
  // matrices lie at the same relative offsets in every group, so the lane
  // part of the address is one per thread and each group adds a constant.
  SmallVector<LinearLayout::Basis> delta;
  for (unsigned j = 0; j < perLoad; ++j) {
    Basis d = dst.regCoords(w * j);
    delta.push_back(d);
  }
  bool regular = true;
  for (unsigned r = 0; r < n && regular; r += w * perLoad)
    for (unsigned j = 0; j < perLoad; ++j) {
      Basis c0 = dst.regCoords(r), cj = dst.regCoords(r + w * j);
      for (unsigned d = 0; d < 2; ++d)
        regular &= cj[d] - c0[d] == delta[j][d] - delta[0][d];
    }
  if (!regular)
    return failure();
  SmallVector<Value> laneCoords(2);
  SmallVector<int64_t> bound(2);
  for (unsigned d = 0; d < 2; ++d) {
    Value o = constI32(rewriter, loc, delta[0][d]);
    int64_t maxDelta = delta[0][d];
    for (unsigned j = 1; j < perLoad; ++j) {
      Value isJ = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        matrix, constI32(rewriter, loc, j));
      o = arith::SelectOp::create(rewriter, loc, isJ,
                                  constI32(rewriter, loc, delta[j][d]), o);
      maxDelta = std::max(maxDelta, delta[j][d]);
    }
    int64_t warpMax = 0;
    for (const Basis &w : dst.warps())
      warpMax += w[d];
    o = arith::AddIOp::create(rewriter, loc, o, warpOffset[d]);
    if (d == rowDim)
      o = arith::AddIOp::create(rewriter, loc, o, row);
    laneCoords[d] = o;
    bound[d] = maxDelta + warpMax + (d == rowDim ? 8 : 1);
  }
  SharedAddresses addresses(rewriter, loc, bufType, laneCoords, bound);
  for (unsigned r = 0; r < n; r += w * perLoad) {
    Basis c = dst.regCoords(r);
    SmallVector<int64_t> constCoords = {c[0] - delta[0][0] + op.getOffsets()[0],
                                        c[1] - delta[0][1] +
                                            op.getOffsets()[1]};
    Value ptr =
        elementPtr(rewriter, loc, base, elt, addresses.offset(constCoords));
    Type resType =
        perLoad == 1
            ? i32
            : Type(LLVM::LLVMStructType::getLiteral(
                  rewriter.getContext(), SmallVector<Type>(perLoad, i32)));
    Value ld = NVVM::LdMatrixOp::create(
        rewriter, loc, resType, ptr, rewriter.getI32IntegerAttr(perLoad),
        NVVM::MMALayoutAttr::get(rewriter.getContext(),
                                 trans ? NVVM::MMALayout::col
                                       : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(rewriter.getContext(),
                                         NVVM::LdStMatrixEltType::B16));
    for (unsigned j = 0; j < perLoad; ++j) {
      Value word = perLoad == 1
                       ? ld
                       : Value(LLVM::ExtractValueOp::create(
                             rewriter, loc, ld, ArrayRef<int64_t>{int64_t(j)}));
      SmallVector<Value> elements = unpackWords(rewriter, loc, {word}, elt, w);
      for (unsigned e = 0; e < w; ++e)
        regs[r + w * j + e] = elements[e];
    }
  }
  return success();
}

struct LocalLoadLowering : OpConversionPattern<tile::LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = adaptor.getBuffer().front();
    SmallVector<Value> regs;
    // A buffer held short of its padding (tile.slot_bytes) is read at the
    // tile's own elements only: registers that are padding in every thread
    // are not loaded, and a thread's padding reads the buffer's first
    // element instead (its value is the padding's: undefined).
    ArrayRef<int64_t> shape = op.getType().getShape();
    Operation *alloc = tile::getAllocation(op.getBuffer());
    bool trimmed =
        tile::isPadded(shape) && alloc && alloc->hasAttr(tile::kSlotBytesAttr);
    if (!trimmed && succeeded(loadWithLdmatrix(op, base, rewriter, regs))) {
      rewriter.replaceOpWithMultiple(op, {regs});
      return success();
    }
    // Any layout: each register (or vector of contiguous registers) from
    // its swizzled address.
    auto bufType = op.getBuffer().getType();
    Type elt = registerType(bufType.getElementType());
    LinearLayout dst = getLinearLayout(op.getType());
    // Buffer dimension j is the result's dims[j]: the same, or, for a
    // buffer holding the tile without its size-1 dimensions, the others.
    SmallVector<unsigned> dims =
        bufType.getShape().size() == size_t(op.getType().getRank())
            ? llvm::to_vector(llvm::seq<unsigned>(0, op.getType().getRank()))
            : tile::nonUnitDims(op.getType().getShape());
    unsigned f = dims[bufType.getLayout().getOrder()[0]];
    RegisterVectors vectors(dst, f, bufType.getLayout().getVec());
    unsigned vec = vectors.length();
    SmallVector<Value> offsets = threadOffsets(rewriter, loc, dst);
    SmallVector<Value> tileOffsets = offsets;
    for (auto [j, d] : llvm::enumerate(dims))
      offsets[d] =
          arith::AddIOp::create(rewriter, loc, offsets[d],
                                constI32(rewriter, loc, op.getOffsets()[j]));
    bool guard = trimmed && !tile::isPaddingPerRegister(dst, shape);
    regs.assign(dst.getNumRegs(), Value());
    for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
      if (!vectors.isFirst(r))
        continue;
      if (trimmed && llvm::all_of(llvm::seq(0u, vec), [&](unsigned j) {
            return tile::isPaddingRegister(dst, shape, vectors.reg(r, j));
          })) {
        // Zeros, not undef: the folds of the ops using them see constants.
        Value zero =
            arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elt));
        for (unsigned j = 0; j < vec; ++j)
          regs[vectors.reg(r, j)] = zero;
        continue;
      }
      SmallVector<Value> all = registerCoords(rewriter, loc, dst, offsets, r);
      SmallVector<Value> coords;
      for (unsigned d : dims)
        coords.push_back(all[d]);
      Value ptr = elementPtr(rewriter, loc, base, elt,
                             sharedOffset(rewriter, loc, bufType, coords));
      if (guard) {
        Value inTile = andInsideTile(
            rewriter, loc, dst, shape,
            registerCoords(rewriter, loc, dst, tileOffsets, r), Value());
        if (inTile)
          ptr = LLVM::SelectOp::create(rewriter, loc, inTile, ptr, base);
      }
      unsigned bytes = vec * std::max(1u, bitWidth(elt) / 8);
      if (vec == 1) {
        regs[r] = LLVM::LoadOp::create(rewriter, loc, elt, ptr, bytes);
        continue;
      }
      Value v = LLVM::LoadOp::create(rewriter, loc, VectorType::get(vec, elt),
                                     ptr, bytes);
      for (unsigned j = 0; j < vec; ++j)
        regs[vectors.reg(r, j)] = LLVM::ExtractElementOp::create(
            rewriter, loc, v, constI32(rewriter, loc, j));
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void tilec::populateSharedMemoryPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<AllocationLowering<tile::SmemAllocOp>,
               AllocationLowering<tile::MbarrierAllocOp>, SmemSlotLowering,
               SmemViewLowering<tile::SmemPermuteOp>,
               SmemViewLowering<tile::SmemViewOp>, BarrierLowering,
               WarpgroupTurnLowering, LocalAllocLowering, LocalStoreLowering,
               LocalLoadLowering, ClusterStoreLowering>(converter,
                                                        patterns.getContext());
}
