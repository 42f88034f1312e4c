//===- SharedMemory.h - What shared memory each op needs --------*- C++ -*-===//
//
// The facts about shared memory that the passes placing buffers and barriers
// and the lowering must agree on: how big a buffer is, which ops need
// scratch memory while they run (and how much), and the attributes that
// carry the allocation from tile-allocate-shared-memory to the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SHAREDMEMORY_H
#define TILE_IR_SHAREDMEMORY_H

#include "Tile/IR/TileOps.h"

namespace mlir::tile {

/// Byte offset of a buffer (or of an op's scratch memory) in the kernel's
/// dynamic shared memory, set by tile-allocate-shared-memory.
inline constexpr llvm::StringLiteral kSharedOffsetAttr = "tile.smem_offset";
/// The dynamic shared memory a kernel needs, in bytes.
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
/// Bytes of a buffer (of each stage of a ring) that tile-allocate-shared-
/// memory gave less than its padded storage (getSlotBytes), for the
/// lowering of `tile.smem_slot`.
inline constexpr llvm::StringLiteral kSlotBytesAttr = "tile.slot_bytes";

/// A buffer (or scratch memory) of a consumer region whose groups of
/// consumers (`tile.warp_specialize {consumer_groups}`) each have their
/// own copy, set by tile-allocate-shared-memory: the copies are this many
/// bytes apart from the offset on, one per group of
/// `kConsumerGroupThreadsAttr` threads (the lowering's group: thread /
/// threads).
inline constexpr llvm::StringLiteral kGroupStrideAttr = "tile.group_stride";
inline constexpr llvm::StringLiteral kGroupCopiesAttr = "tile.group_copies";
/// The threads of one group of consumers, on the buffers above.
inline constexpr llvm::StringLiteral kConsumerGroupThreadsAttr =
    "tile.consumer_group_threads";

/// Bytes `bytes` of the buffer (or scratch memory) `owner` takes with its
/// group copies.
inline int64_t withGroupCopies(Operation *owner, int64_t bytes) {
  auto stride = owner->getAttrOfType<IntegerAttr>(kGroupStrideAttr);
  auto copies = owner->getAttrOfType<IntegerAttr>(kGroupCopiesAttr);
  return stride && copies ? stride.getInt() * copies.getInt() : bytes;
}

/// Named barriers of a warp-specialized kernel (0 is the whole block's):
/// the consumers' own (tile-insert-barriers), then one per consumer
/// warpgroup for their turns (tile-ping-pong, at most 6 warpgroups); and
/// in any kernel, one per warpgroup of the block (`tile.barrier
/// {warpgroup}`: 8 + thread / 128, up to the 1024 threads of a block).
/// With G groups of consumers (tile-consumer-groups, no tile-ping-pong):
/// group g's own 1 + g, every group's 1 + G, the groups' turns 2 + G on.
inline constexpr int32_t kConsumerBarrierId = 1;
inline constexpr int32_t kFirstTurnBarrierId = 2;
inline constexpr int32_t kFirstWarpgroupBarrierId = 8;

/// Bytes one element takes in shared memory (i1 takes a byte).
unsigned getSharedElementBytes(Type elementType);

/// Bytes of a shared memory buffer's storage: its padded shape (every
/// dimension a power of two), which its layout addresses.
int64_t getSharedBytes(SharedMemoryType type);

/// The alignment a buffer of `type` starts at: 128 bytes, or its swizzle
/// pattern (8 rows of the swizzle width: 1024 bytes for 128-byte swizzles)
/// for the block layouts of wgmma and TMA, which the hardware swizzles from
/// address bits.
int64_t getSharedAlignment(SharedMemoryType type);

/// Bytes from a buffer's start to past the last byte an element of the
/// tile's own shape occupies (its padding past that cut: only the slowest
/// digit of the layout's address is trimmed: whole blocks of columns, rows
/// to a multiple of 8, or whole stacked tiles), rounded up to the buffer's
/// alignment; at most getSharedBytes. A buffer may take no more when nothing
/// reads or writes its padding (isAccessedWithinTile).
int64_t getTileExtentBytes(SharedMemoryType type);

/// `type` storing its own rows (the layout's second fastest dimension)
/// rounded up to the swizzle's period rather than padded to a power of two
/// (#tile.shared<..., rows = R>), where a higher digit of the address lies
/// over them (blocks of columns, stacked tiles) so that getTileExtentBytes
/// cannot trim them; `type` itself otherwise. For buffers that no access
/// reaches past the tile (isAccessedWithinTile): tile-allocate-shared-memory
/// retypes those. A wgmma's A (`wgmmaA`) keeps whole 64-row multiples: its
/// instructions read 64 rows each.
SharedMemoryType getCompactType(SharedMemoryType type, bool wgmmaA = false);

/// True when the buffer `alloc` allocates is (through ring slots and
/// permuted views) the A operand of a wgmma.
bool isWgmmaA(Operation *alloc);

/// True when a tile of `type` stored into shared memory writes its own
/// elements only: its padding is whole registers (isPaddingPerRegister),
/// which the lowering of stores skips.
bool isStoredWithinTile(Type type);

/// True when every access of the buffer `alloc` allocates (through ring
/// slots and permuted views) stays within the tile's own elements: TMA
/// copies (their boxes hold the tile only), wgmma operands (read at the
/// tile's own N and K), stores of tiles whose padding is whole registers
/// (which the lowering skips), async copies (not gathered: their lanes skip
/// the padding), loads other than of padded mma operands (which the
/// lowering reads at the tile's own elements from a buffer held short),
/// and the waits and barriers that name the buffer. Any other use may touch
/// the padding.
bool isAccessedWithinTile(Operation *alloc);

/// The type of a ring of `stages` buffers of type `stage`: the stage
/// dimension first, and slowest in the layout; null (after `emitError`)
/// where !tile.smem cannot hold it.
SharedMemoryType getRingType(llvm::function_ref<InFlightDiagnostic()> emitError,
                             SharedMemoryType stage, int64_t stages);

/// Every user of the buffer `buffer` is, and of its views (ring slots,
/// permutations), the views included.
SmallVector<Operation *> getBufferUsers(Value buffer);

/// The type of a ring's stage (its `tile.smem_slot`s' type), or of the
/// buffer `alloc` allocates where it is no ring.
SharedMemoryType getSlotType(Operation *alloc);

/// Bytes of the buffer `alloc` allocates, or of each stage of a ring:
/// getTileExtentBytes of its compact type (getCompactType: as
/// tile-allocate-shared-memory will hold it) where isAccessedWithinTile,
/// else its padded storage (kSlotBytesAttr once tile-allocate-shared-memory
/// has set it).
int64_t getSlotBytes(Operation *alloc);

/// True when converting a tile from layout `from` to layout `to` keeps every
/// element in the thread that holds it (registers are renamed, no data moves
/// between threads).
bool isRegisterOnlyConversion(RankedTensorType from, RankedTensorType to);

/// True when converting a tile from `from` to `to` moves data between the
/// lanes of each warp only, by shuffles (getWarpShufflePlan): no shared
/// memory.
bool isWarpShuffleConversion(RankedTensorType from, RankedTensorType to);

/// `v` before any `tile.convert_layout`s that only rename its registers
/// (isRegisterOnlyConversion): a wgmma accumulator in flight through them
/// stays in flight.
Value beforeRenaming(Value v);

/// The source registers a `tile.extract` of `to` at `offsets` from `from`
/// reads in place: the sub-tile is held by the same threads (the same lane
/// and warp bases, offsets multiples of the sub-tile's shape); nullopt when
/// it goes through shared memory.
std::optional<llvm::SmallVector<unsigned>>
extractRegisters(RankedTensorType from, RankedTensorType to,
                 llvm::ArrayRef<int64_t> offsets);

/// Where a `tile.concat` of `inputs` along `axis` into `result` finds each
/// result register when every input is held by the same threads as its
/// place in the result (extractRegisters of each, at its offset): the input
/// and its register, or {-1, -1} for a register no input holds (padding);
/// nullopt when the join goes through shared memory.
std::optional<llvm::SmallVector<std::pair<int, int>>>
concatRegisters(RankedTensorType result,
                llvm::ArrayRef<RankedTensorType> inputs, unsigned axis);
/// The same for a `tile.concat` as its types are.
std::optional<llvm::SmallVector<std::pair<int, int>>>
concatRegisters(ConcatOp concat);

/// Bytes of scratch shared memory `op` uses while it runs, 0 for none: a
/// layout conversion that moves data between warps (or between lanes in a
/// way shuffles do not do) goes through the whole tile in shared memory, as
/// does an extract whose sub-tile other threads hold, and a concatenation
/// through its result; a reduction across warps through one partial per warp.
/// Both types must have layouts.
int64_t getScratchBytes(Operation *op);

/// True for an op whose scratch is written, then passes a barrier of the
/// op's own lowering, then is read, and nothing more (a reduction across
/// warps): after it only its reads are pending (tile-insert-barriers), and
/// the next op's scratch can be kept apart from them so that it needs no
/// barrier first (tile-allocate-shared-memory).
bool isScratchReadAfterOwnBarrier(Operation *op);

/// The buffer `buffer` is a view of, through any number of
/// `tile.smem_slot` and `tile.smem_permute`; `buffer` itself when it is
/// neither.
Value getSlotRoot(Value buffer);

/// The view a `tile.smem_permute` by `permutation` gives of a buffer in
/// `layout`: the same swizzle, `order` naming the permuted dimensions.
SharedLayoutAttr permuteSharedLayout(SharedLayoutAttr layout,
                                     ArrayRef<int32_t> permutation);

/// The shared memory buffer an op reads or writes, traced through
/// `tile.smem_slot` and `tile.smem_permute` to the `tile.smem_alloc`,
/// `tile.local_alloc` or
/// `tile.mbarrier_alloc` that allocated it; null when it is not one of
/// those.
Operation *getAllocation(Value buffer);

/// Adds to `out` the allocations (as getAllocation) of the shared memory
/// buffers and mbarriers that `op` or an op nested in it uses.
void collectAllocations(Operation *op, llvm::SmallPtrSetImpl<Operation *> &out);

/// Whether a value of `type` (an integer, index or float, or a tensor of
/// integers or floats) has a zero, the one `zeroOf` makes.
bool hasZero(Type type);

/// An `arith.constant` zero of `type` (one with hasZero) at `b`.
Value zeroOf(OpBuilder &b, Location loc, Type type);

/// `x` when a ring slot index `slot` is `x mod stages`, the iteration
/// counter tile-pipeline computes slots from (`arith.remui x, stages`);
/// null otherwise.
Value getSlotCounter(Value slot, unsigned stages);

/// The layout wgmma descriptors and the tensor memory accelerator describe,
/// for a buffer of `type`'s shape with dimensions `order` (fastest first):
/// 16-byte chunks swizzled over blocks of the widest of 128, 64 or 32 bytes
/// that the fastest dimension fills (padded to a power of two; with
/// `exact`, at its own size, so that whole blocks cover the tile and no
/// more); null when it is narrower than 32 bytes. With `blockDivides`, only
/// swizzles whose block (of elements along the fastest dimension) divides
/// it: where warpgroups each read `blockDivides` columns of an N-major
/// wgmma B, each part starting at a whole block.
SharedLayoutAttr getHopperSharedLayout(RankedTensorType type,
                                       ArrayRef<unsigned> order,
                                       bool exact = false,
                                       int64_t blockDivides = 0);

/// The shared buffer through which a sub-tile of `sub` elements at
/// `offsets` is read from a tile of `source` (both padded shapes): the
/// source, grown (to powers of two) where the sub-tile's padding reaches
/// past it. Empty `offsets`: the source.
SmallVector<int64_t> getSubTileScratchShape(ArrayRef<int64_t> source,
                                            ArrayRef<int64_t> offsets,
                                            ArrayRef<int64_t> sub);

/// The TMA boxes of `inner` columns that copy a buffer of `type` (side by
/// side along its fastest dimension): those holding some of the tile, not
/// its padding.
int64_t getTmaBoxCount(SharedMemoryType type, int64_t inner);

/// Bytes of one mbarrier.
inline constexpr int64_t kMbarrierBytes = 8;

/// Bytes an allocation (an op getAllocation returns) takes.
int64_t getAllocationBytes(Operation *alloc);

/// Bytes of shared memory live while `loop` runs: the allocations in it,
/// those before it used in it or after it (each rounded up to 128 bytes),
/// and its largest scratch (getScratchBytes). What a pass that adds a
/// buffer for a loop checks against the block's shared memory.
int64_t sharedBytesLiveIn(Operation *loop);

} // namespace mlir::tile

#endif // TILE_IR_SHAREDMEMORY_H
