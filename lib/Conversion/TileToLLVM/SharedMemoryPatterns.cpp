//===- SharedMemoryPatterns.cpp - Tiles in swizzled shared memory ---------===//
//
// A shared memory buffer is row-major over its layout's order with the
// 16-byte column chunks of row r XOR-ed with (r / perPhase) % maxPhase, so
// that the eight rows an ldmatrix reads fall in different banks. The writers
// (tile.local_alloc, tile.local_store) use stmatrix on sm_90 for 16-bit tiles
// in an mma fragment's layout staged for a TMA store (GEMM and attention
// epilogues) and store vectors of up to 16 bytes otherwise; the
// reader (tile.local_load) uses ldmatrix for the mma operand layouts, and
// plain loads otherwise. Both matrix instructions take the address of one
// 16-byte matrix row from each lane (MatrixAccess).
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

/// How ldmatrix and stmatrix move a 2-D tile of layout `layout` to or from
/// the buffer of type `bufType`: registers come in 32-bit words of the `w`
/// elements adjacent along dimension `p` (pairs of 16-bit elements, fours of
/// 8-bit ones, single f32 ones), lanes 0-1 step `p` by w and 2w and lanes 2-4
/// step the other dimension by 1, 2 and 4 (the 8 x 8 matrices of 16-bit
/// units of an mma fragment), and `perOp` words (1, 2 or 4 matrices) move
/// with one instruction, each of its lanes giving the address of one
/// 16-byte matrix row. `trans` where the buffer's fastest dimension is not
/// `p` (16-bit elements only: the instructions transpose 16-bit units).
class MatrixAccess {
public:
  /// The access, or nullopt where the layout is not of that structure or
  /// the buffer's 16-byte rows are not contiguous. Creates no IR.
  static std::optional<MatrixAccess>
  plan(const LinearLayout &layout, unsigned p, tile::SharedMemoryType bufType);

  unsigned wordElements() const { return w; }
  unsigned perOp() const { return per; }
  bool transposed() const { return trans; }
  /// The registers' count and the first of each instruction's words:
  /// 0, w * perOp, ...
  unsigned numRegs() const { return layout.getNumRegs(); }
  /// The address of the rows this lane gives the instruction moving the
  /// words from register `r` on, with `offsets` added to the tile's
  /// coordinates.
  Value address(OpBuilder &b, Location loc, Value base, Type elt, unsigned r,
                ArrayRef<int64_t> offsets = {});
  /// Register `e` of word `j` of the instruction from register `r`.
  unsigned reg(unsigned r, unsigned j, unsigned e) const {
    return r + w * j + e;
  }

private:
  MatrixAccess(const LinearLayout &layout, tile::SharedMemoryType bufType,
               unsigned w, unsigned per, bool trans, unsigned rowDim)
      : layout(layout), bufType(bufType), w(w), per(per), trans(trans),
        rowDim(rowDim) {}

  LinearLayout layout;
  tile::SharedMemoryType bufType;
  unsigned w, per;
  bool trans;
  unsigned rowDim;
  SmallVector<Basis> delta;
  std::optional<SharedAddresses> addresses;
};

std::optional<MatrixAccess> MatrixAccess::plan(const LinearLayout &layout,
                                               unsigned p,
                                               tile::SharedMemoryType bufType) {
  Type elt = registerType(bufType.getElementType());
  unsigned bits = bitWidth(elt);
  if ((bits != 16 && bits != 8 && bits != 32) ||
      bufType.getShape().size() != 2 || layout.getRank() != 2)
    return std::nullopt;
  unsigned w = 32 / bits; // elements per word
  tile::SharedLayoutAttr shared = bufType.getLayout();
  unsigned f = shared.getOrder()[0];
  bool trans = p != f;
  if (trans && bits != 16)
    return std::nullopt;
  // Each matrix row is 16 bytes in a row of the buffer, whole: neither the
  // swizzle (which moves whole chunks of `vec` elements) nor the buffer's
  // blocks or rows cut it.
  unsigned e = 128 / bits;
  int64_t blockCols = bufType.getStorageShape()[f];
  if (shared.getBlock())
    blockCols = std::min<int64_t>(blockCols, shared.getBlock());
  if ((shared.getMaxPhase() > 1 && shared.getVec() % e) || blockCols % e)
    return std::nullopt;
  // The fragment structure: words along p, lanes 0-1 step p by w and 2w,
  // lanes 2-4 step the other dimension by 1, 2, 4.
  for (unsigned i = 0; (1u << i) < w; ++i) {
    Basis want(2, 0);
    want[p] = 1 << i;
    if (layout.regs().size() <= i || layout.regs()[i] != want)
      return std::nullopt;
  }
  if (layout.lanes().size() != 5)
    return std::nullopt;
  for (unsigned i = 0; i < 5; ++i) {
    Basis want(2, 0);
    if (i < 2)
      want[p] = w << i;
    else
      want[1 - p] = 1 << (i - 2);
    if (layout.lanes()[i] != want)
      return std::nullopt;
  }
  // The other bases move whole matrices: their steps along the buffer's
  // fastest dimension are whole 16-byte rows (along the other dimension
  // any row is a matrix row).
  for (const Basis &bb : llvm::drop_begin(layout.regs(), llvm::Log2_32(w)))
    if (bb[f] % e)
      return std::nullopt;
  for (const Basis &bb : layout.warps())
    if (bb[f] % e)
      return std::nullopt;
  unsigned n = layout.getNumRegs();
  if (n % w)
    return std::nullopt;
  unsigned words = n / w;
  unsigned per = words % 4 == 0 ? 4 : words % 2 == 0 ? 2 : 1;
  // The instructions' lanes address the rows of their `per` matrices; the
  // matrices lie at the same relative offsets in every instruction, so the
  // lane part of the address is one per thread and each instruction adds a
  // constant.
  MatrixAccess access(layout, bufType, w, per, trans, 1 - f);
  for (unsigned j = 0; j < per; ++j)
    access.delta.push_back(layout.regCoords(w * j));
  for (unsigned r = 0; r < n; r += w * per)
    for (unsigned j = 0; j < per; ++j) {
      Basis c0 = layout.regCoords(r), cj = layout.regCoords(r + w * j);
      for (unsigned d = 0; d < 2; ++d)
        if (cj[d] - c0[d] != access.delta[j][d] - access.delta[0][d])
          return std::nullopt;
    }
  return access;
}

Value MatrixAccess::address(OpBuilder &b, Location loc, Value base, Type elt,
                            unsigned r, ArrayRef<int64_t> offsets) {
  if (!addresses) {
    ThreadIndex idx = getThreadIndex(b, loc);
    // The warp's offset (warp bases only: lanes are the instruction's).
    SmallVector<Value> warpOffset;
    for (unsigned d = 0; d < 2; ++d) {
      Value acc = constI32(b, loc, 0);
      for (auto [i, basis] : llvm::enumerate(layout.warps())) {
        if (!basis[d])
          continue;
        Value bit = shr(b, loc, idx.warp, i);
        bit = arith::AndIOp::create(b, loc, bit, constI32(b, loc, 1));
        acc = arith::XOrIOp::create(
            b, loc, acc,
            arith::MulIOp::create(b, loc, bit, constI32(b, loc, basis[d])));
      }
      warpOffset.push_back(acc);
    }
    Value row = arith::AndIOp::create(b, loc, idx.lane, constI32(b, loc, 7));
    Value matrix = arith::AndIOp::create(b, loc, shr(b, loc, idx.lane, 3),
                                         constI32(b, loc, per - 1));
    SmallVector<Value> laneCoords(2);
    SmallVector<int64_t> bound(2);
    for (unsigned d = 0; d < 2; ++d) {
      Value o = constI32(b, loc, delta[0][d]);
      int64_t maxDelta = delta[0][d];
      for (unsigned j = 1; j < per; ++j) {
        Value isJ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          matrix, constI32(b, loc, j));
        o = arith::SelectOp::create(b, loc, isJ, constI32(b, loc, delta[j][d]),
                                    o);
        maxDelta = std::max(maxDelta, delta[j][d]);
      }
      int64_t warpMax = 0;
      for (const Basis &wb : layout.warps())
        warpMax += wb[d];
      o = arith::AddIOp::create(b, loc, o, warpOffset[d]);
      if (d == rowDim)
        o = arith::AddIOp::create(b, loc, o, row);
      laneCoords[d] = o;
      bound[d] = maxDelta + warpMax + (d == rowDim ? 8 : 1);
    }
    addresses.emplace(b, loc, bufType, laneCoords, bound);
  }
  Basis c = layout.regCoords(r);
  SmallVector<int64_t> constCoords(2);
  for (unsigned d = 0; d < 2; ++d)
    constCoords[d] = c[d] - delta[0][d] + (offsets.empty() ? 0 : offsets[d]);
  return elementPtr(b, loc, base, elt, addresses->offset(constCoords));
}

/// stmatrix for the 16-bit tiles of an mma fragment layout (an accumulator
/// converted to 16 bits, an operand): MatrixAccess with p the buffer's
/// fastest dimension (not .trans: no kernel stages a fragment into a buffer
/// whose fastest dimension is its rows, so the transposing store has never
/// run on a GPU), four words (8 elements) a thread with one stmatrix.x4
/// where plain stores take four. A padded tile's registers are each padding
/// in every thread or in none (isPaddingPerRegister; then so are its words,
/// whose lanes step the fastest dimension by 2 and 4): padding words are not
/// written, and the other words of their instruction go one matrix at a
/// time (.x1, whose lanes 0-7 give the rows). Any other layout: failure,
/// and plain stores.
LogicalResult storeWithStmatrix(OpBuilder &b, Location loc,
                                RankedTensorType srcType, ValueRange regs,
                                tile::SharedMemoryType bufType, Value base) {
  Type elt = registerType(bufType.getElementType());
  if (bitWidth(elt) != 16 || srcType.getRank() != 2)
    return failure();
  LinearLayout src = getLinearLayout(srcType);
  std::optional<MatrixAccess> access =
      MatrixAccess::plan(src, bufType.getLayout().getOrder()[0], bufType);
  if (!access)
    return failure();
  unsigned w = access->wordElements(), per = access->perOp();
  unsigned n = access->numRegs();
  ArrayRef<int64_t> shape = srcType.getShape();
  bool padded = tile::isPadded(shape);
  if (padded && !tile::isPaddingPerRegister(src, shape))
    return failure();
  auto paddingWord = [&](unsigned r) {
    return padded && tile::isPaddingRegister(src, shape, r, w);
  };
  auto store = [&](unsigned r, unsigned count) {
    SmallVector<Value> words;
    for (unsigned j = 0; j < count; ++j) {
      SmallVector<Value> elements;
      for (unsigned e = 0; e < w; ++e)
        elements.push_back(regs[access->reg(r, j, e)]);
      words.append(packWords(b, loc, elements));
    }
    Value ptr = access->address(b, loc, base, elt, r);
    NVVM::StMatrixOp::create(
        b, loc, ptr, words,
        NVVM::MMALayoutAttr::get(b.getContext(), NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(b.getContext(),
                                         NVVM::LdStMatrixEltType::B16));
  };
  for (unsigned r = 0; r < n; r += w * per) {
    unsigned data = llvm::count_if(llvm::seq(0u, per), [&](unsigned j) {
      return !paddingWord(r + w * j);
    });
    if (data == per) {
      store(r, per);
      continue;
    }
    for (unsigned j = 0; j < per; ++j)
      if (!paddingWord(r + w * j))
        store(r + w * j, 1);
  }
  return success();
}

/// Whether a TMA store reads `buffer` (a tile staged on its way to global
/// memory: tile-convert-stores-to-tma's local_store, then tma_store of the
/// same buffer or view).
bool readByTma(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [](Operation *user) {
    return isa<tile::TmaStoreOp>(user);
  });
}

/// Writes the registers `regs` of `tile` to the buffer `buffer` of type
/// `bufType` at `base`: with stmatrix where the target has it
/// (`storeMatrix`), the layout is an mma fragment's (storeWithStmatrix), the
/// store is the tile's only use and a TMA store reads the buffer (an
/// epilogue's staging); else vectors of the registers contiguous along the
/// buffer's fastest dimension (from any register bits: a transposed tile's
/// registers too), up to its layout's vector width. Measured on an H100
/// (bench/results/2026-12-07-h100-stmatrix.md), against plain stores:
/// GEMM epilogues +0.3-0.4% (fewer registers in 39 kernels); MLA decode's P,
/// written by each warpgroup and read back by the other within the trip,
/// 1-3% slower, so a buffer the threads read back keeps plain stores; and a
/// tile that stays live (attention backward's dS, staged for one multiply
/// and read from registers by another) keeps them too: with its words
/// packed beside its registers, the head_dim 64 and 128 backward kernels,
/// capped at 168 registers a thread, spilled 4 bytes (.x4 and .x2 alike).
void storeTile(OpBuilder &b, Location loc, Value tile, ValueRange regs,
               Value buffer, tile::SharedMemoryType bufType, Value base,
               bool storeMatrix) {
  auto srcType = cast<RankedTensorType>(tile.getType());
  if (storeMatrix && tile.hasOneUse() && readByTma(buffer) &&
      succeeded(storeWithStmatrix(b, loc, srcType, regs, bufType, base)))
    return;
  Type elt = registerType(bufType.getElementType());
  LinearLayout src = getLinearLayout(srcType);
  unsigned f = bufType.getLayout().getOrder()[0];
  RegisterVectors vectors(src, f, bufType.getLayout().getVec());
  unsigned vec = vectors.length();
  SmallVector<Value> offsets = threadOffsets(b, loc, src);
  // Where the thread's and the registers' coordinates add, the addresses
  // are a few per-thread bases plus constants (SharedAddresses).
  std::optional<SharedAddresses> addresses;
  if (std::optional<SmallVector<int64_t>> bound = additiveThreadBound(src))
    addresses.emplace(b, loc, bufType, offsets, *bound,
                      /*boundsAreBits=*/true);
  for (unsigned r = 0; r < src.getNumRegs(); ++r) {
    if (!vectors.isFirst(r))
      continue;
    // A padded tile's padding is not written (the buffer's is undefined).
    if (llvm::all_of(llvm::seq(0u, vec), [&](unsigned j) {
          return isPaddingRegister(src, srcType.getShape(), vectors.reg(r, j));
        }))
      continue;
    Value offset = addresses
                       ? addresses->offset(src.regCoords(r))
                       : sharedOffset(b, loc, bufType,
                                      registerCoords(b, loc, src, offsets, r));
    Value ptr = elementPtr(b, loc, base, elt, offset);
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
  LocalAllocLowering(TileTypeConverter &converter, MLIRContext *ctx,
                     bool storeMatrix)
      : OpConversionPattern(converter, ctx), storeMatrix(storeMatrix) {}
  bool storeMatrix;
  LogicalResult
  matchAndRewrite(tile::LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> memory = getBufferMemory(rewriter, op.getLoc(), op);
    if (failed(memory))
      return failure();
    storeTile(rewriter, op.getLoc(), op.getSource(), adaptor.getSource(),
              op.getResult(), op.getType(), *memory, storeMatrix);
    rewriter.replaceOp(op, *memory);
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<tile::LocalStoreOp> {
  LocalStoreLowering(TileTypeConverter &converter, MLIRContext *ctx,
                     bool storeMatrix)
      : OpConversionPattern(converter, ctx), storeMatrix(storeMatrix) {}
  bool storeMatrix;
  LogicalResult
  matchAndRewrite(tile::LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    storeTile(rewriter, op.getLoc(), op.getValue(), adaptor.getValue(),
              op.getBuffer(), op.getBuffer().getType(),
              adaptor.getBuffer().front(), storeMatrix);
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

/// ldmatrix for an mma operand layout (MatrixAccess with p the K
/// dimension): four words (one 16x16 or two 16x8 fragments of 16-bit
/// units) load with one ldmatrix.x4.
LogicalResult loadWithLdmatrix(tile::LocalLoadOp op, Value base,
                               ConversionPatternRewriter &rewriter,
                               SmallVectorImpl<Value> &regs) {
  Location loc = op.getLoc();
  auto bufType = op.getBuffer().getType();
  auto dotLayout =
      dyn_cast<tile::DotOperandLayoutAttr>(op.getType().getEncoding());
  Type elt = registerType(bufType.getElementType());
  if (!dotLayout || op.getType().getRank() != 2 ||
      dotLayout.getKWidth() * bitWidth(elt) != 32)
    return failure();
  unsigned p = dotLayout.getOpIdx() == 0 ? 1 : 0; // the K dimension
  std::optional<MatrixAccess> access =
      MatrixAccess::plan(getLinearLayout(op.getType()), p, bufType);
  if (!access)
    return failure();
  unsigned w = access->wordElements(), per = access->perOp();
  Type i32 = rewriter.getI32Type();
  regs.assign(access->numRegs(), Value());
  for (unsigned r = 0; r < access->numRegs(); r += w * per) {
    Value ptr = access->address(rewriter, loc, base, elt, r, op.getOffsets());
    Type resType =
        per == 1 ? i32
                 : Type(LLVM::LLVMStructType::getLiteral(
                       rewriter.getContext(), SmallVector<Type>(per, i32)));
    Value ld = NVVM::LdMatrixOp::create(
        rewriter, loc, resType, ptr, rewriter.getI32IntegerAttr(per),
        NVVM::MMALayoutAttr::get(rewriter.getContext(),
                                 access->transposed() ? NVVM::MMALayout::col
                                                      : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(rewriter.getContext(),
                                         NVVM::LdStMatrixEltType::B16));
    for (unsigned j = 0; j < per; ++j) {
      Value word = per == 1
                       ? ld
                       : Value(LLVM::ExtractValueOp::create(
                             rewriter, loc, ld, ArrayRef<int64_t>{int64_t(j)}));
      SmallVector<Value> elements = unpackWords(rewriter, loc, {word}, elt, w);
      for (unsigned e = 0; e < w; ++e)
        regs[access->reg(r, j, e)] = elements[e];
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
                                         bool storeMatrix,
                                         RewritePatternSet &patterns) {
  patterns.add<LocalAllocLowering, LocalStoreLowering>(
      converter, patterns.getContext(), storeMatrix);
  patterns.add<AllocationLowering<tile::SmemAllocOp>,
               AllocationLowering<tile::MbarrierAllocOp>, SmemSlotLowering,
               SmemViewLowering<tile::SmemPermuteOp>,
               SmemViewLowering<tile::SmemViewOp>, BarrierLowering,
               WarpgroupTurnLowering, LocalLoadLowering, ClusterStoreLowering>(
      converter, patterns.getContext());
}
