//===- LoweringUtils.h - Shared by the tile-to-LLVM patterns ----*- C++ -*-===//
//
// Internal to lib/Conversion/TileToLLVM. A tile in a distributed layout is
// lowered to the registers its layout gives each thread (1:N type
// conversion); these helpers compute, from the layout's linear form, which
// element each register holds, and provide shared memory and barriers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_LOWERINGUTILS_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_LOWERINGUTILS_H

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {

using mlir::tile::LinearLayout;

/// Tiles become their registers (of registerType); global tensors become
/// (pointer, sizes, strides); everything else is kept.
class TileTypeConverter : public mlir::TypeConverter {
public:
  explicit TileTypeConverter(mlir::MLIRContext *context);
};

/// The type of a register holding an element of type `elt`: `elt` itself,
/// except i8 for the 8-bit floats, which LLVM has no type for (their
/// conversions are NVVM ops on the bytes: Float8Patterns.cpp).
mlir::Type registerType(mlir::Type elt);

/// A constant of a tile's element type as a register holds it: an 8-bit
/// float's bits as an i8, anything else as it is.
mlir::TypedAttr registerConstant(mlir::TypedAttr value);

/// The linear layout of a tile type (which must carry a layout).
LinearLayout getLinearLayout(mlir::Type tileType);

/// `layout`, of a tile without its size-1 dimensions, on the whole tile of
/// `shape` (whose non-unit dimensions are the layout's, in order): the same
/// bases, with 0 in the unit dimensions.
LinearLayout unsqueezeLayout(const LinearLayout &layout,
                             llvm::ArrayRef<int64_t> shape);

mlir::Value constI32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value constI64(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

struct ThreadIndex {
  mlir::Value lane, warp;
};
ThreadIndex getThreadIndex(mlir::OpBuilder &b, mlir::Location loc);
/// `v`, the same in every lane of a warp, broadcast from the warp's first
/// lane (shfl.sync.idx): ptxas then knows it is warp-uniform, so that what
/// follows from it (a warpgroup's wgmma descriptors, its rows' offsets) can
/// be kept and computed in uniform registers rather than moved into them
/// (R2UR) at every use.
mlir::Value warpUniform(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// The warpgroup (4 warps, 128 threads) of the thread running `at`: tid.x /
/// 128, warp-uniform (warpUniform), computed before the loops and branches
/// around `at` (a shuffle is not hoisted out of a loop by LLVM).
mlir::Value getWarpgroupIndex(mlir::OpBuilder &b, mlir::Operation *at);

/// The threads of one group of consumers where `op` is in the consumer
/// region of a tile.warp_specialize whose consumers are in groups, else 0.
int64_t consumerGroupThreads(mlir::Operation *op);

/// tid.x / `threads`: the thread's group of `threads` consecutive threads
/// of the block (its warpgroup at 128, its group of consumers at a group's
/// threads), from a read of tid.x marked kPhysicalThreadAttr, which stays
/// the block's index where every other read in a consumer region whose
/// consumers are in groups becomes the index in the group
/// (localizeConsumerThreads): for what differs between the groups (their
/// named barriers, their copies of a buffer, their turns). Warp-uniform,
/// computed before the loops and branches around `at` (getWarpgroupIndex).
mlir::Value blockGroupIndex(mlir::OpBuilder &b, mlir::Operation *at,
                            int64_t threads);
/// The mark of those reads, and of the consumer region's first.
inline constexpr llvm::StringLiteral kPhysicalThreadAttr = "tile.physical";
inline constexpr llvm::StringLiteral kConsumerEntryAttr = "tile.consumer_entry";
/// The mark of the shuffle of getWarpgroupIndex and blockGroupIndex, which
/// the indices computed before the same op share (removed with the others by
/// localizeConsumerThreads).
inline constexpr llvm::StringLiteral kGroupIndexAttr = "tile.group_index";
/// In the lowered `func`, every read of tid.x in code the consumer entry
/// (kConsumerEntryAttr: a read at the top of a consumer region whose
/// consumers are in groups, followed by its remainder by the group's
/// threads) dominates, other than blockGroupIndex's, reads the thread's
/// index in its group instead: the layouts' threads, the issuing thread 0
/// of each group.
void localizeConsumerThreads(mlir::Operation *func);

/// The longest vector along dimension `dim` of a tile of `shape` held in
/// `layout` (over the padded shape) that stays on one side of the tile's
/// edge: the largest power of two dividing shape[dim] when the dimension is
/// padded, unlimited otherwise.
using mlir::tile::isPaddingRegister;

/// `ok` (an i1, or null for true) and, for each dimension of `shape` that
/// `layout` pads, coords[d] < shape[d]: whether the element at `coords` is
/// the tile's own, not its padding. Null when there is nothing to check.
mlir::Value andInsideTile(mlir::OpBuilder &b, mlir::Location loc,
                          const LinearLayout &layout,
                          llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<mlir::Value> coords, mlir::Value ok);

unsigned paddedVectorLimit(const LinearLayout &layout,
                           llvm::ArrayRef<int64_t> shape, unsigned dim);

/// This thread's offset in each dimension: the XOR of the lane and warp
/// bases of its lane and warp index (i32 values).
llvm::SmallVector<mlir::Value> threadOffsets(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             const LinearLayout &layout);

/// Coordinates of register `reg` of this thread: `offsets` XOR the
/// register's constant coordinates.
llvm::SmallVector<mlir::Value>
registerCoords(mlir::OpBuilder &b, mlir::Location loc,
               const LinearLayout &layout, llvm::ArrayRef<mlir::Value> offsets,
               unsigned reg);

/// Notes that `op` (tagged with the kernel parameter it accesses,
/// TileDialect::getParamAttrName) accesses its tensor in vectors of
/// `bytes`: the widest per parameter is the kernel's
/// getParamVectorBytesAttrName, the alignment its description asks
/// launches for (KernelParam::alignment).
void recordVectorBytes(mlir::Operation *op, unsigned bytes);

/// The elements of a 1-D tile that every thread holds whole (a replicated
/// layout: the boxes of a gathered copy), in element order, from its
/// converted registers `regs`; an error on `op` for another layout.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
replicatedElements(mlir::Operation *op, mlir::Value tile,
                   mlir::ValueRange regs);

/// When every element of `dst` is held by the same thread in `src` (at the
/// coordinates `toSrc` maps it to), the source register of each destination
/// register; nullopt when data would have to move between threads.
std::optional<llvm::SmallVector<unsigned>> registerMapping(
    const LinearLayout &src, const LinearLayout &dst,
    llvm::function_ref<LinearLayout::Basis(llvm::ArrayRef<int64_t>)> toSrc);

/// The number of leading register bases that step one element at a time
/// along `dim`: 2^k consecutive registers are then contiguous along `dim`.
unsigned contiguousRegisters(const LinearLayout &layout, unsigned dim);

/// Vectors of registers contiguous along one dimension of the tile, from any
/// register bits: bits b_0 .. b_{k-1} whose bases step `dim` by 1, 2, ...,
/// 2^(k-1) elements and nothing else, with every other basis (register,
/// lane, warp) a multiple of 2^k along `dim`, so that the registers
/// first + sum_i j_i 2^(b_i) hold 2^k consecutive elements from a multiple
/// of 2^k (a transposed tile's column pairs: bit 3 then bit 4, say). Vector
/// `first`s are the registers with none of those bits set.
struct RegisterVectors {
  RegisterVectors(const LinearLayout &layout, unsigned dim, unsigned maxLength);
  unsigned length() const { return 1u << bits.size(); }
  /// Whether register `r` starts a vector.
  bool isFirst(unsigned r) const { return (r & mask) == 0; }
  /// Element `j` of the vector starting at register `first`.
  unsigned reg(unsigned first, unsigned j) const;

private:
  llvm::SmallVector<unsigned> bits;
  unsigned mask = 0;
};

/// The scratch shared memory of `op` (a layout conversion or reduction that
/// goes through shared memory), at the offset tile-allocate-shared-memory
/// gave it; an error when it has none.
mlir::FailureOr<mlir::Value>
getScratchMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
/// The buffer a tile.smem_alloc or tile.local_alloc allocates, at its offset;
/// an error when it has none.
mlir::FailureOr<mlir::Value>
getBufferMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
/// Carries the 8- and 16-bit iteration values of every scf.for packed in
/// i32 words, four or two to a word (PTX has no 8-bit registers, and a
/// 16-bit one carried alone is re-packed each trip where a word is used):
/// packed at the init and yield, unpacked in the body and after the loop
/// (PackNarrowLoopValues.cpp).
void packNarrowLoopValues(mlir::ModuleOp module);

/// tile.timestamp (tile-timeline's sites), each kernel's: the first thread
/// of each warpgroup appends a record to its warpgroup's log
/// (TimelineLowering.cpp). Before the tiles are lowered.
void lowerTimestamps(mlir::ModuleOp module);

/// Inline PTX `text` over `operands` with `constraints`, marked as having
/// side effects: MLIR gives asm without them no memory effects at all, so
/// it could be merged with, or moved across, memory accesses.
mlir::Operation *inlinePtx(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::TypeRange results, mlir::ValueRange operands,
                           llvm::StringRef text, llvm::StringRef constraints);

/// The bits of input dimension `dim` of `layout` whose basis is zero:
/// threads (or registers) differing only in them hold the same element.
unsigned replicaMask(const LinearLayout &layout, llvm::StringRef dim);

/// Whether this thread is the first holder of its elements of a tile in
/// `layout` (i1: its lane and warp bits whose bases are zero are clear), or
/// null where no other thread holds them: the thread that writes an
/// element once for all its holders. With `lanes` false, only the warp
/// bits: the first of the warps holding an element (the lanes of one warp
/// write it in one instruction, the same value: a plain store needs no
/// more).
mlir::Value firstHolder(mlir::OpBuilder &b, mlir::Location loc,
                        const LinearLayout &layout, bool lanes = true);

/// `pred` and `owner` (a firstHolder), or `pred` where `owner` is null.
mlir::Value andOwner(mlir::OpBuilder &b, mlir::Location loc, mlir::Value pred,
                     mlir::Value owner);

/// This thread's index among the R = 2^bits holders of its elements of a
/// tile in `layout`: the bits of its lane and warp index whose bases are
/// zero, packed (i32; 0 with bits = 0 where no other thread holds them).
std::pair<mlir::Value, unsigned> replicaIndex(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              const LinearLayout &layout);

/// i32 1 in thread `thread` of the block (0 unless a warp-specialized
/// kernel's producer issues), else 0, and `pred` (i1) if given: the
/// predicate of an instruction one thread issues for many.
mlir::Value firstThread(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value pred = nullptr, int32_t thread = 0);
/// i32 1 in one lane of the warp of thread `thread` (a multiple of 32),
/// chosen by `elect.sync` (sm_90), where `pred` (i1, if given) holds, else
/// 0: the predicate of a TMA copy (or its wait) that the warp issues for
/// many. Every lane of that warp runs it. The warp's index is warp-uniform
/// (getWarpgroupIndex's way) and the elected lane one per warp, so ptxas
/// issues the copy once, with its operands moved to uniform registers,
/// where `tid.x == thread` makes it loop over the lanes that might hold
/// it. The same lane each time (elect.sync is deterministic): the one
/// whose bulk groups a later wait waits for.
mlir::Value electedThread(mlir::OpBuilder &b, mlir::Operation *at,
                          mlir::Value pred = nullptr, int32_t thread = 0);
/// Blocks per cluster of the kernel holding `op` (its `tile.cluster`; 1
/// without clusters).
int64_t clusterSize(mlir::Operation *op);
/// The 32-bit shared-window address of a shared memory pointer, as PTX
/// instructions on shared memory take it.
mlir::Value sharedAddress32(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value ptr);
/// The same of element `index` (i32) of an array of `bytes`-byte elements
/// at `ptr` (a ring's mbarrier, a claimed tile).
mlir::Value sharedAddress32(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value ptr, mlir::Value index, int64_t bytes);
/// The dynamic shared memory `byteOffset` bytes in.
mlir::Value getSharedMemoryAt(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Operation *user, int64_t byteOffset);

/// The name of the module's dynamic shared memory symbol.
inline constexpr llvm::StringLiteral kSharedMemorySymbol = "tile_shared_memory";

/// Element offset of `coords` in a shared memory buffer: row-major over its
/// layout's order, 16-byte chunks of row r XOR-ed with
/// (r / perPhase) % maxPhase against bank conflicts.
mlir::Value sharedOffset(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::tile::SharedMemoryType type,
                         llvm::ArrayRef<mlir::Value> coords);

/// Element offset of `coords` in a shared memory buffer without the XOR
/// swizzle: the offset itself where the swizzle is the identity (rows a
/// multiple of its period, columns at a chunk of row 0's), as for the first
/// element of a wgmma operand.
int64_t unswizzledSharedOffset(mlir::tile::SharedMemoryType type,
                               llvm::ArrayRef<int64_t> coords);

/// Offsets of many accesses to one shared memory buffer that share this
/// thread's part of their coordinates (`laneCoords`, each known to be below
/// `laneBound`) and differ by constants. Where the swizzle allows, an offset
/// is a per-thread base (one per distinct low column offset and row within
/// the swizzle's period: a transposed accumulator's odd rows) plus a
/// constant,
/// which folds into the [reg + immediate] form of the access: the thread
/// keeps a few address registers instead of one per access. With
/// `boundsAreBits`, each bound is one more than the OR of the bits the
/// coordinate may have (additiveThreadBound's): a thread's columns past the
/// swizzle's span may then be whole blocks of the layout (a warp's columns
/// 64 on, in blocks of 8), which a constant column offset does not carry
/// into.
class SharedAddresses {
public:
  SharedAddresses(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::tile::SharedMemoryType type,
                  llvm::ArrayRef<mlir::Value> laneCoords,
                  llvm::ArrayRef<int64_t> laneBound,
                  bool boundsAreBits = false);
  /// The element offset of `laneCoords + constCoords`.
  mlir::Value offset(llvm::ArrayRef<int64_t> constCoords);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::tile::SharedMemoryType type;
  llvm::SmallVector<mlir::Value> lane;
  llvm::SmallVector<int64_t> bound;
  bool boundsAreBits;
  // By low column offset and row within the swizzle period.
  llvm::DenseMap<std::pair<int64_t, int64_t>, mlir::Value> bases;
};

/// The per-thread part of `layout`'s coordinates when it combines with the
/// register part by addition (their bits are disjoint), with an exclusive
/// bound per dimension; nullopt otherwise.
std::optional<llvm::SmallVector<int64_t>>
additiveThreadBound(const LinearLayout &layout);

/// A barrier of every thread running `op`, inside the lowering of an op
/// whose threads exchange data through its scratch memory (between their
/// own write and read; barriers between ops come from
/// tile-insert-barriers): bar.sync 0 across the thread block, or in the
/// consumer region of a tile.warp_specialize the consumers' named barrier.
void createBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);

/// Packs `values` (of one scalar type) into 32-bit words and back, for
/// vector memory accesses (an element wider than 32 bits is several words,
/// its low word first).
llvm::SmallVector<mlir::Value> packWords(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::ArrayRef<mlir::Value> values);
llvm::SmallVector<mlir::Value> unpackWords(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           llvm::ArrayRef<mlir::Value> words,
                                           mlir::Type elementType,
                                           unsigned count);

/// Element type of a tile as it is held in registers and memory.
unsigned bitWidth(mlir::Type elementType);

/// The most registers a tile may take per thread: code generation unrolls
/// every op over them.
inline constexpr unsigned kMaxRegistersPerThread = 4096;

/// Checks that `module` is laid-out tile IR the patterns can lower: every
/// tensor a tile in a distributed layout, of at most kMaxRegistersPerThread
/// registers per thread. Reports the first offending op of each function
/// (Preconditions.cpp).
mlir::LogicalResult checkLoweringPreconditions(mlir::ModuleOp module);

// Pattern sets, one file each.
/// Whether exp2_poly applies to `op`: an exp2 with flush_to_zero on an f32
/// tile.
bool takesExp2Poly(mlir::tile::Exp2Op op);
/// `exp2Poly` N > 0: exp2 with flush_to_zero on f32 tiles computes one
/// register in N by a polynomial on the FMA pipe.
void populateElementwisePatterns(TileTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 unsigned exp2Poly = 0);
void populateFloat8Patterns(TileTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateLayoutPatterns(TileTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
/// `vectorReductions`: the target's red.global takes vectors (sm_90).
void populateMemoryPatterns(TileTypeConverter &converter, bool vectorReductions,
                            mlir::RewritePatternSet &patterns);
void populateReducePatterns(TileTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateMmaPatterns(TileTypeConverter &converter,
                         mlir::RewritePatternSet &patterns);
/// `storeMatrix`: the target has stmatrix (sm_90).
void populateSharedMemoryPatterns(TileTypeConverter &converter,
                                  bool storeMatrix,
                                  mlir::RewritePatternSet &patterns);
void populateTmaPatterns(TileTypeConverter &converter,
                         mlir::RewritePatternSet &patterns);
void populateTileSchedulerPatterns(TileTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// `root`'s multiplies are looked at once, before the conversion changes
/// the loops around them (see WgmmaPatterns.cpp, continuesLoop).
void populateWgmmaPatterns(TileTypeConverter &converter,
                           mlir::RewritePatternSet &patterns,
                           mlir::Operation *root);
void populateScalarPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);

} // namespace tilec

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_LOWERINGUTILS_H
