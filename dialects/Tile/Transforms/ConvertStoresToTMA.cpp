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
// With reuse-ring-slots, in a persistent kernel's tile loop the buffer is,
// where there is one, the slot of a ring of the tile loop itself (the tile's
// own copy pipelined a tile ahead, attention's Q) that the tile has read for
// the last time, of the buffer's type: the staging then costs no shared
// memory of its own (a third of a K/V stage at head dim 128, a whole one at
// 256). The next
// tile's refill of the ring fills exactly that slot (a ring of S slots is
// filled S - 1 tiles ahead; one of one slot, at the next tile's top, where
// it waits for it), so the wait for the copy's read moves there:
//
//   scf.for %t ... {tile.tile_loop}
//     %q = tile.smem_slot %ring[%t mod S]     (this tile's, waited for)
//     tile.tma_store_wait %next               (the previous tile's copy
//     tile.tma_load ..., %next                 has read the slot)
//     ... reads of %q ...
//     tile.local_store %acc, %q
//     tile.tma_store %map[coords], %q
//
// tile-insert-barriers separates the last reads of the slot (the waits of
// the multiplies reading it) from the writes; tile-warp-specialize turns
// the refill into the consumers' release of the slot after the wait.
//
// With shared-memory-bytes, a tile loop's store that gets no slot and whose
// buffer would not fit beside the buffers living across the tile loop is
// staged in parts (2 or 4 slices along one dimension, as few as fit, each
// held by the threads holding it in the tile) through one buffer of a
// part's size:
//
//   for each part p:  tile.tma_store_wait %buf    (the previous copy read it)
//                     %p = tile.extract %tile [..p..]
//                     tile.local_store %p, %buf
//                     tile.tma_store %map[coords + p's offset], %buf
//
// Where equal slices are not held (a 256 x 152 tile's 152 columns in 4:
// 38), the slices are a multiple of 8 wide and the last one narrower (40,
// 40, 40 and 32), written into a view of the buffer's first bytes and
// copied by a tensor map of its own. Where not even a quarter fits, the
// tile is written from the registers it is in.
//
// Atomics go the same way, combined with the tensor by the copy
// (cp.reduce.async.bulk.tensor: FlashAttention-3's dQ, split-K GEMM), and
// also from an accumulator's own registers, which hold pairs of elements
// (red.global would combine 8 bytes at a time, in every thread):
//
//   scf.for %m ...                          %buf = tile.smem_alloc
//     tile.atomic_rmw sum %dQ[...], %dq     scf.for %m ...
//                                             tile.tma_store_wait %buf
//                                             tile.local_store %dq, %buf
//                                             tile.tma_store %map[...], %buf
//                                                 reduce sum
//                                           tile.tma_store_wait %buf
//
// Writes are left as they are where their tile is in a store layout
// already (a TMA store would add a trip through shared memory), where a
// tensor map cannot describe the copy (tile-convert-copies-to-tma's rules),
// where the copy has no such combiner (max of f32), under a branch, or
// where the kernel also reads the tensor: TMA writes through the async
// proxy, unordered with the threads' reads. Nor where a `tile.block_atomic`
// may follow the write (after it, or in a loop around both): the atomic
// releases the block's writes, and a TMA store completes after it.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/TensorMaps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTSTORESTOTMA
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A tile written into a global tensor: a tile.store, or a tile.atomic_rmw
/// (whose TMA copy combines: `reduce`).
struct Write {
  Operation *op;
  Value tensor;
  OperandRange indices;
  TypedValue<RankedTensorType> value;
  std::optional<ArrayRef<int32_t>> order;
  std::optional<ReduceKind> reduce;

  static std::optional<Write> of(Operation *op) {
    auto make = [](auto write, std::optional<ReduceKind> reduce) {
      std::optional<ArrayRef<int32_t>> order;
      if (write.getOrder())
        order = *write.getOrder();
      return Write{
          write, write.getTensor(), write.getIndices(), write.getValue(), order,
          reduce};
    };
    if (auto store = dyn_cast<StoreOp>(op))
      return make(store, std::nullopt);
    // (An atomic whose old values are read stays one: a TMA reduction
    // returns nothing.)
    if (auto atomic = dyn_cast<AtomicRMWOp>(op); atomic && !atomic.getOld())
      return make(atomic, atomic.getKind());
    return std::nullopt;
  }
};

struct ConvertStoresToTMAPass
    : public mlir::tile::impl::TileConvertStoresToTMABase<
          ConvertStoresToTMAPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
      return;
    SmallVector<Write> writes;
    func.walk([&](Operation *op) {
      if (std::optional<Write> w = Write::of(op))
        writes.push_back(*w);
    });
    for (Write &w : writes)
      convert(func, w);
  }

  /// Whether the kernel reads the tensor of parameter `param`: its writes
  /// by TMA (the async proxy) would not be ordered before those reads.
  static bool readsTensor(func::FuncOp func, unsigned param) {
    auto reads = [](Value v) {
      return llvm::any_of(v.getUsers(), [](Operation *user) {
        return isa<LoadOp, GatherOp, AsyncCopyOp, TmaLoadOp>(user);
      });
    };
    if (reads(func.getArgument(param)))
      return true;
    auto maps =
        func->getAttrOfType<ArrayAttr>(TileDialect::getTensorMapsAttrName());
    if (!maps)
      return false;
    unsigned first = func.getNumArguments() - maps.size();
    for (auto [i, m] : llvm::enumerate(maps)) {
      auto entry = cast<DictionaryAttr>(m);
      auto p = entry.getAs<IntegerAttr>("param");
      if (p && p.getInt() == param && reads(func.getArgument(first + i)))
        return true;
    }
    return false;
  }

  /// The tile `w` writes, in the layout it has before a conversion through
  /// shared memory (and a reshape that drops unit dimensions); for an
  /// atomic, also an mma accumulator's, whose registers hold pairs of
  /// elements (red.global's vectors would be of 8 bytes at most). Null
  /// when there is neither. A permute (`tile.permute`) between the reshape
  /// and the conversion (or the accumulator) is kept in `permute`: the
  /// tile is then to be permuted in registers (inRegisters), as a
  /// transposed accumulator is written (FlashAttention-3's dQ^T = K^T dS^T,
  /// added into dQ).
  static TypedValue<RankedTensorType> convertedTile(const Write &w,
                                                    PermuteOp &permute) {
    Value v = w.value;
    if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
      auto from = cast<RankedTensorType>(reshape.getSource().getType());
      SmallVector<int64_t> kept;
      for (int64_t d : w.value.getType().getShape())
        if (d != 1)
          kept.push_back(d);
      if (from.getShape() != ArrayRef<int64_t>(kept))
        return nullptr;
      v = reshape.getSource();
    }
    permute = v.getDefiningOp<PermuteOp>();
    if (permute)
      v = permute.getSource();
    if (auto cvt = v.getDefiningOp<ConvertLayoutOp>();
        cvt && getScratchBytes(cvt) &&
        (!permute || cvt.getSource().getType().getEncoding()))
      return cvt.getSource();
    if (w.reduce && (v == w.value || permute) &&
        isa_and_present<MmaLayoutAttr>(
            cast<RankedTensorType>(v.getType()).getEncoding()))
      return cast<TypedValue<RankedTensorType>>(v);
    permute = PermuteOp();
    return nullptr;
  }

  /// `tile` permuted as `permute` permutes, in registers: a tile.permute
  /// into the #tile.linear layout that keeps every element in the register
  /// holding it (the lowering renames registers).
  static TypedValue<RankedTensorType>
  inRegisters(OpBuilder &b, PermuteOp permute,
              TypedValue<RankedTensorType> tile) {
    RankedTensorType type = tile.getType();
    ArrayRef<int32_t> perm = permute.getPermutation();
    LinearLayout held = toLinearLayout(type.getEncoding(), type.getShape());
    SmallVector<int64_t> shape;
    for (int32_t d : perm)
      shape.push_back(type.getDimSize(d));
    LinearLayout permuted(paddedShape(shape));
    for (StringRef name : {LinearLayout::kRegister, LinearLayout::kLane,
                           LinearLayout::kWarp, LinearLayout::kBlock})
      for (const LinearLayout::Basis &basis : held.getBases(name)) {
        LinearLayout::Basis to(perm.size(), 0);
        for (auto [i, d] : llvm::enumerate(perm))
          to[i] = basis[d];
        permuted.bases(name).push_back(to);
      }
    permuted.normalize();
    auto resultType =
        RankedTensorType::get(shape, type.getElementType(),
                              LinearLayoutAttr::get(b.getContext(), permuted));
    return PermuteOp::create(b, permute.getLoc(), resultType, tile,
                             permute.getPermutationAttr())
        .getResult();
  }

  /// In a persistent kernel's tile loop: the slot of a ring of the tile
  /// loop itself (tile-pipeline's ring of the tile's own copy, attention's
  /// Q) that the tile holds, of type `type`, when the tile reads it for the
  /// last time before `store` and waits for its fill there whatever its
  /// trip counts; then `refills` gets the copies into the ring in the loop
  /// (the next tiles' fills, each into the slot the previous tile held),
  /// with the slot each fills. Null when there is none.
  using Refill = std::pair<Operation *, Value>;
  static Value reusableSlot(Operation *store, SharedMemoryType type,
                            SmallVectorImpl<Refill> &refills) {
    Block *body = store->getBlock();
    Operation *loop = body->getParentOp();
    for (auto view : body->getOps<SmemSlotOp>()) {
      if (view.getResult().getType() != type || !view->isBeforeInBlock(store))
        continue;
      auto ring = view.getRing().getDefiningOp<SmemAllocOp>();
      if (!ring || loop->isAncestor(ring))
        continue;
      // This tile's slot: read before the store, its fill waited for
      // directly in the body; filled there too, before the wait, when the
      // ring has one slot (tile-pipeline's tile-stages=1).
      bool readBefore = true;
      Operation *wait = nullptr;
      SmallVector<Refill> fills;
      for (Operation *user : view->getUsers()) {
        Operation *at = body->findAncestorOpInBlock(*user);
        if (isa<TmaLoadOp, AsyncCopyOp>(user) && user->getBlock() == body)
          fills.push_back({user, view.getResult()});
        else
          readBefore &= at && at->isBeforeInBlock(store) &&
                        !isa<TmaLoadOp, AsyncCopyOp, LocalStoreOp>(user);
        if (isa<MbarrierWaitOp>(user) && user->getBlock() == body)
          wait = user;
      }
      if (!readBefore || !wait || llvm::any_of(fills, [&](const Refill &fill) {
            return !fill.first->isBeforeInBlock(wait);
          }))
        continue;
      // Every other use of the ring in the loop: a slot that a copy
      // directly in the body fills, and nothing else.
      bool onlyFills = true;
      for (Operation *user : ring->getUsers()) {
        if (!loop->isAncestor(user) || user == view.getOperation())
          continue;
        auto other = dyn_cast<SmemSlotOp>(user);
        onlyFills &= other && other->getBlock() == body;
        if (!onlyFills)
          break;
        for (Operation *fill : other->getUsers()) {
          onlyFills &= isa<TmaLoadOp, AsyncCopyOp>(fill) &&
                       fill->getBlock() == body && fill->isBeforeInBlock(store);
          fills.push_back({fill, other.getResult()});
        }
      }
      // Every fill of a ring of one slot fills this slot: one after the
      // tile's wait (the next tile's, after this tile's last read:
      // tile-refill-after-read) leaves it nothing to stage in.
      if (!onlyFills || fills.empty() ||
          (ring.getType().getShape().front() == 1 &&
           llvm::any_of(fills, [&](const Refill &fill) {
             return !fill.first->isBeforeInBlock(wait);
           })))
        continue;
      refills.append(fills);
      return view.getResult();
    }
    return nullptr;
  }

  /// Bytes of the buffers allocated in `top` before `loop` (the tile
  /// loop: they live across it), each at 128-byte alignment as
  /// tile-allocate-shared-memory places them at least.
  static int64_t liveAcross(Block &top, Operation *loop) {
    int64_t bytes = 0;
    for (Operation &op : top) {
      if (&op == loop)
        break;
      if (isa<SmemAllocOp, LocalAllocOp>(op))
        bytes += llvm::alignTo(getAllocationBytes(&op), 128);
      else if (isa<MbarrierAllocOp>(op))
        bytes += getAllocationBytes(&op);
    }
    return bytes;
  }

  /// Replaces `store` by a store of `tile`, the tile before its conversion,
  /// from the registers it is in.
  static void storeFromRegisters(StoreOp store,
                                 TypedValue<RankedTensorType> tile) {
    OpBuilder b(store);
    Value value = store.getValue();
    StoreOp::create(
        b, store.getLoc(), store.getTensor(), store.getIndices(), tile,
        store.getOrderAttr(),
        b.getDenseI64ArrayAttr(store.getValue().getType().getShape()));
    store.erase();
    // The conversion (and the reshape after it) are dead now.
    while (Operation *def = value.getDefiningOp()) {
      if (!def->use_empty() || !isa<ReshapeOp, ConvertLayoutOp>(def))
        break;
      value = def->getOperand(0);
      def->erase();
    }
  }

  /// How a tile of the store's is staged: its buffer and the tensor map
  /// of its copy, for the store's tile or a part of it of `tileType`.
  struct Staging {
    RankedTensorType tileType;
    SmallVector<int64_t> storeShape; // the copy's box, the store's rank
    SharedMemoryType bufType;
    TensorMapType map;
    unsigned param = 0;
    /// Bytes tile-allocate-shared-memory gives the buffer: written from
    /// the tile's registers and read by TMA, it is held short of its
    /// padding where the padding is whole registers (getSlotBytes).
    int64_t bytes() const {
      return isStoredWithinTile(tileType)
                 ? getTileExtentBytes(getCompactType(bufType))
                 : getSharedBytes(bufType);
    }
  };
  static std::optional<Staging> stage(func::FuncOp func, const Write &w,
                                      RankedTensorType tileType,
                                      ArrayRef<unsigned> bufOrder,
                                      bool ownWidth = false) {
    // A padded tile: along its fastest dimension, in whole blocks of the
    // layout (the boxes), so that no box writes its padding; along another
    // one only where the store skips the padding (whole registers: a
    // transposed accumulator's padded columns), the boxes holding the
    // tile's own rows and the buffer its own rows (getCompactType).
    ArrayRef<int64_t> shape = tileType.getShape();
    bool padded = isPadded(shape);
    for (unsigned d = 0; d < shape.size(); ++d)
      if (d != bufOrder[0] && isPadded(shape[d]) &&
          !isStoredWithinTile(tileType))
        return std::nullopt;
    SharedLayoutAttr layout =
        ownWidth ? SharedLayoutAttr()
                 : getHopperSharedLayout(tileType, bufOrder, /*exact=*/padded);
    // A padded row of a multiple of 16 bytes but of no swizzle's block (152
    // f16 columns: 304 bytes), up to a box's 256 elements: unswizzled rows
    // at their own width, one box as wide as the tile, where the tile's
    // padding is whole registers (an accumulator's), whose writes are left
    // out (the rows have no padding to take them).
    int64_t width = shape[bufOrder[0]];
    unsigned bytes = getSharedElementBytes(tileType.getElementType());
    if (!layout && (padded || ownWidth) && width * bytes % 16 == 0 &&
        width <= 256 && isStoredWithinTile(tileType))
      layout = SharedLayoutAttr::get(tileType.getContext(), 16 / bytes, 1, 1,
                                     bufOrder, /*block=*/0, /*rows=*/0,
                                     /*cols=*/unsigned(width));
    if (!layout ||
        (padded && !layout.getCols() &&
         (!layout.getBlock() || shape[bufOrder[0]] % layout.getBlock())))
      return std::nullopt;
    Staging s;
    s.tileType = tileType;
    s.bufType = SharedMemoryType::get(func.getContext(), tileType.getShape(),
                                      tileType.getElementType(), layout);
    s.storeShape = SmallVector<int64_t>(w.value.getType().getShape());
    for (auto [j, d] : llvm::enumerate(nonUnitDims(s.storeShape)))
      s.storeShape[d] = tileType.getDimSize(j);
    TmaTile box{w.tensor, s.storeShape, w.order, s.bufType, w.op->getLoc()};
    if (!describeTensorMap(func, box, s.map, s.param).empty())
      return std::nullopt;
    return s;
  }

  /// How a tile is cut for staging in parts: along each dimension d,
  /// `counts[d]` slices at multiples of `extents[d]`, the last one what is
  /// left (narrower where the extent does not divide the tile's size; only
  /// along one dimension). Part p goes through the slices of the last
  /// dimension fastest.
  struct Cut {
    SmallVector<int64_t> counts, extents, sizes;
    int64_t count() const {
      int64_t n = 1;
      for (int64_t c : counts)
        n *= c;
      return n;
    }
    /// The slice of part `p` along each dimension.
    SmallVector<int64_t> slices(int64_t p) const {
      SmallVector<int64_t> at(counts.size());
      for (int d = int(counts.size()) - 1; d >= 0; --d) {
        at[d] = p % counts[d];
        p /= counts[d];
      }
      return at;
    }
    SmallVector<int64_t> offsets(int64_t p) const {
      SmallVector<int64_t> at = slices(p);
      for (unsigned d = 0; d < at.size(); ++d)
        at[d] *= extents[d];
      return at;
    }
    SmallVector<int64_t> shape(int64_t p) const {
      SmallVector<int64_t> at = slices(p), shape(extents);
      for (unsigned d = 0; d < at.size(); ++d)
        if (at[d] + 1 == counts[d])
          shape[d] = sizes[d] - (counts[d] - 1) * extents[d];
      return shape;
    }
    bool narrow(int64_t p) const { return shape(p) != extents; }
  };
  /// A tile's staging in parts: the parts' (the narrower ones' where the
  /// cut is ragged: their buffer a view of the parts' first bytes, their
  /// own tensor map).
  struct Parts {
    Cut cut;
    Staging part;
    std::optional<Staging> last;
  };

  /// The parts of a tile of `type`, as few as leave the buffer of one
  /// within `freeBytes` (at most kMaxParts), each held by the threads that
  /// hold it in the tile (so that extracting it moves no data) and copied
  /// by a tensor map of its own, or nothing. Where equal slices are not
  /// held (152 columns in 2 or 4: 76, 38), the slices are a multiple of 8
  /// wide and the last one narrower (80 and 72; 40, 40, 40 and 32), its
  /// rows unswizzled at their own width so that it fits the others' buffer
  /// from its start. In four parts, halves of both dimensions come before
  /// quarters of one: a copy's box moves its rows one by one, and wider
  /// rows take fewer of them (a 256 x 152 tile's 128 x 80 parts: 128 rows
  /// of 160 bytes a part, not 256 of 80).
  static std::optional<Parts> stageInParts(func::FuncOp func, const Write &w,
                                           RankedTensorType type,
                                           ArrayRef<unsigned> bufOrder,
                                           int64_t freeBytes) {
    auto layout =
        dyn_cast_if_present<DistributedLayoutInterface>(type.getEncoding());
    if (!layout || freeBytes <= 0 || type.getRank() != 2)
      return std::nullopt;
    LinearLayout src = layout.toLinearLayout(type.getShape());
    auto partType = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, type.getElementType(),
                                   type.getEncoding());
    };
    auto held = [&](const Cut &cut) {
      for (int64_t p = 0; p < cut.count(); ++p)
        if (!src.subTileRegs(layout.toLinearLayout(cut.shape(p)),
                             cut.offsets(p)))
          return false;
      return true;
    };
    // The extent of `parts` slices of `size`: equal ones, or (ragged) a
    // multiple of 8 with a narrower last one; 0 where there are none.
    auto extentOf = [](int64_t size, int64_t parts, bool ragged) -> int64_t {
      if (parts == 1)
        return ragged ? 0 : size;
      if (size < parts * 8)
        return 0;
      if (!ragged)
        return size % parts ? 0 : size / parts;
      int64_t extent = llvm::alignTo(llvm::divideCeil(size, parts), 8);
      return size % extent && int64_t(llvm::divideCeil(size, extent)) == parts
                 ? extent
                 : 0;
    };
    // Each part waits for the previous one's copy to read the buffer and
    // meets the other threads twice: beyond a few, the registers' stores
    // cost less. As few parts as fit; at a count, equal ones first.
    constexpr int64_t kMaxParts = 4;
    for (int64_t parts = 2; parts <= kMaxParts; parts *= 2) {
      SmallVector<SmallVector<int64_t>> splits; // parts along dims 0 and 1
      if (parts == 4)
        splits.push_back({2, 2});
      for (unsigned j : bufOrder) {
        SmallVector<int64_t> split = {1, 1};
        split[j] = parts;
        splits.push_back(split);
      }
      for (bool ragged : {false, true})
        for (ArrayRef<int64_t> split : splits)
          for (unsigned r = 0; r < 2; ++r) {
            // The dimension whose last slice may be narrower (ragged).
            if (ragged && split[r] == 1)
              continue;
            if (!ragged && r)
              break;
            Cut cut;
            bool ok = true;
            for (unsigned d = 0; d < 2; ++d) {
              int64_t size = type.getDimSize(d);
              int64_t extent = extentOf(size, split[d], ragged && d == r);
              ok = ok && extent;
              cut.counts.push_back(split[d]);
              cut.extents.push_back(extent);
              cut.sizes.push_back(size);
            }
            if (!ok || !held(cut))
              continue;
            std::optional<Staging> part =
                stage(func, w, partType(cut.extents), bufOrder, ragged);
            if (!part || part->bytes() > freeBytes)
              continue;
            std::optional<Staging> last;
            if (ragged) {
              last = stage(func, w, partType(cut.shape(cut.count() - 1)),
                           bufOrder, /*ownWidth=*/true);
              if (!last ||
                  getSharedBytes(last->bufType) >
                      getSharedBytes(part->bufType) ||
                  getSharedAlignment(part->bufType) %
                      getSharedAlignment(last->bufType))
                continue;
            }
            return Parts{cut, std::move(*part), std::move(last)};
          }
    }
    return std::nullopt;
  }

  /// A store that stays a store (no TMA copy) whose conversion's scratch
  /// would not fit beside the buffers living across its outermost loop
  /// (rings the loop carries from trip to trip, as tile-pipeline does for a
  /// loop's loop): written from the registers its tile is in instead.
  void storeFromRegistersIfCrowded(func::FuncOp func, const Write &w,
                                   TypedValue<RankedTensorType> tile) {
    auto store = dyn_cast<StoreOp>(w.op);
    if (!store || !tile || tile == w.value || sharedMemoryBytes <= 0 ||
        tile.getDefiningOp<PermuteOp>())
      return;
    Block &top = func.getBody().front();
    Operation *outer = top.findAncestorOpInBlock(*w.op);
    if (!outer || !isa<scf::ForOp>(outer))
      return;
    Value v = w.value;
    if (auto reshape = v.getDefiningOp<ReshapeOp>())
      v = reshape.getSource();
    auto cvt = v.getDefiningOp<ConvertLayoutOp>();
    if (cvt &&
        getScratchBytes(cvt) > sharedMemoryBytes - liveAcross(top, outer))
      storeFromRegisters(store, tile);
  }

  void convert(func::FuncOp func, const Write &w) {
    PermuteOp permute;
    TypedValue<RankedTensorType> tile = convertedTile(w, permute);
    if (!tile)
      return;
    // A permuted tile: the permute, in registers, of the tile before its
    // conversion (removed if nothing comes of it).
    Operation *permuted = nullptr;
    if (permute) {
      // (#tile.linear has no block bases: a tile spread over a cluster's
      // blocks stays as it is.)
      if (tile.getType().getRank() != 2 ||
          !toLinearLayout(tile.getType().getEncoding(),
                          tile.getType().getShape())
               .getBases(LinearLayout::kBlock)
               .empty())
        return;
      OpBuilder b(w.op);
      tile = inRegisters(b, permute, tile);
      permuted = tile.getDefiningOp();
    }
    llvm::scope_exit dropUnused([&] {
      if (permuted && permuted->use_empty())
        permuted->erase();
    });
    if (!isPlaceableTmaWrite(func, w.op) || tile.getType().getRank() != 2)
      return storeFromRegistersIfCrowded(func, w, tile);
    Type elt = tile.getType().getElementType();
    if (w.reduce && !TmaStoreOp::isSupportedReduction(*w.reduce, elt))
      return;
    // The buffer's fastest dimension is the one along the tensor's
    // contiguous dimension.
    ArrayRef<int64_t> shape = w.value.getType().getShape();
    unsigned rank = shape.size();
    SmallVector<unsigned> nonUnit = nonUnitDims(shape);
    if (nonUnit.size() != 2)
      return storeFromRegistersIfCrowded(func, w, tile);
    std::optional<ArrayRef<int32_t>> order = w.order;
    SmallVector<unsigned> bufOrder;
    for (unsigned j = 0; j < nonUnit.size(); ++j) {
      unsigned t = order ? unsigned((*order)[nonUnit[j]]) : nonUnit[j];
      if (t == rank - 1)
        bufOrder.insert(bufOrder.begin(), j);
      else
        bufOrder.push_back(j);
    }
    std::optional<Staging> staging = stage(func, w, tile.getType(), bufOrder);
    if (!staging || readsTensor(func, staging->param))
      return storeFromRegistersIfCrowded(func, w, tile);

    Location loc = w.op->getLoc();
    Block &top = func.getBody().front();
    Operation *outer = top.findAncestorOpInBlock(*w.op);
    OpBuilder b(outer);
    SmallVector<Refill> refills;
    Value buf, whole;
    if (reuseRingSlots && w.op->getParentOp() == outer &&
        outer->hasAttr(TileDialect::getTileLoopAttrName()))
      buf = reusableSlot(w.op, staging->bufType, refills);
    // A buffer of its own that would not fit beside those living across
    // the loop: the tile in parts through a smaller one, each part's copy
    // waiting for the previous one's read; else from registers (a store)
    // or by red.global (an atomic).
    Cut cut;
    std::optional<Staging> last;
    if (!buf && outer != w.op && sharedMemoryBytes > 0) {
      int64_t freeBytes = sharedMemoryBytes - liveAcross(top, outer);
      if (staging->bytes() > freeBytes) {
        std::optional<Parts> parts =
            stageInParts(func, w, staging->tileType, bufOrder, freeBytes);
        if (!parts) {
          if (auto store = dyn_cast<StoreOp>(w.op);
              store && tile != w.value && !tile.getDefiningOp<PermuteOp>())
            storeFromRegisters(store, tile);
          return;
        }
        cut = parts->cut;
        staging = std::move(parts->part);
        last = std::move(parts->last);
      }
    }
    FailureOr<Value> mapArg =
        getTensorMapArgument(func, staging->param, staging->map);
    if (failed(mapArg))
      return;
    FailureOr<Value> lastMapArg = *mapArg;
    if (last)
      lastMapArg = getTensorMapArgument(func, last->param, last->map);
    if (failed(lastMapArg))
      return;
    if (buf) {
      // The tile's own slot of a tile-loop ring, read for the last time:
      // the next tile's refill of it waits for this copy's read.
      whole = buf.getDefiningOp<SmemSlotOp>().getRing();
      for (auto [refill, slot] : refills) {
        b.setInsertionPoint(refill);
        TmaStoreWaitOp::create(b, loc, ValueRange{slot}, Value());
      }
      b.setInsertionPoint(w.op);
    } else {
      buf = whole = SmemAllocOp::create(b, loc, staging->bufType);
      b.setInsertionPoint(w.op);
    }
    // The tile's element coordinates; a part's are offset along the
    // tensor's dimensions that the tile's are.
    SmallVector<Value> coords;
    ReduceKindAttr reduce;
    if (w.reduce)
      reduce = ReduceKindAttr::get(func.getContext(), *w.reduce);
    for (int64_t p = 0; p < cut.count(); ++p) {
      if (buf == whole && (p > 0 || outer != w.op))
        // The previous copy (the previous part's, or the previous trip's)
        // has read the buffer.
        TmaStoreWaitOp::create(b, loc, ValueRange{buf}, Value());
      bool narrow = last && cut.narrow(p);
      SmallVector<int64_t> offsets = cut.offsets(p);
      Value value = tile;
      if (cut.count() > 1)
        value = ExtractOp::create(b, loc,
                                  narrow ? last->tileType : staging->tileType,
                                  tile, b.getDenseI64ArrayAttr(offsets));
      // A narrower part in the buffer's first bytes.
      Value into =
          narrow ? Value(SmemViewOp::create(b, loc, last->bufType, buf)) : buf;
      LocalStoreOp::create(b, loc, value, into);
      if (coords.empty())
        coords = tmaCoordinates(b, loc, w.tensor, w.indices, shape, order);
      SmallVector<Value> at = coords;
      for (auto [j, offset] : llvm::enumerate(offsets)) {
        if (!offset)
          continue;
        unsigned d = order ? unsigned((*order)[nonUnit[j]]) : nonUnit[j];
        at[d] = arith::AddIOp::create(
            b, loc, at[d],
            arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(offset)));
      }
      TmaStoreOp::create(b, loc, narrow ? *lastMapArg : *mapArg, at, into,
                         /*pred=*/Value(), reduce, /*issuer=*/IntegerAttr());
    }
    Value value = w.value;
    w.op->erase();
    // A conversion (and the reshape after it) are dead now.
    while (Operation *def = value.getDefiningOp()) {
      if (!def->use_empty() || !isa<ReshapeOp, PermuteOp, ConvertLayoutOp>(def))
        break;
      value = def->getOperand(0);
      def->erase();
    }
    // The copy reads the buffer until the kernel's end at the latest.
    b.setInsertionPoint(top.getTerminator());
    TmaStoreWaitOp::create(b, loc, ValueRange{whole}, Value());
  }
};

} // namespace
