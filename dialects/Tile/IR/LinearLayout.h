//===- LinearLayout.h - Layouts as linear maps ------------------*- C++ -*-===//
//
// Every tile layout is lowered through one representation: a linear map over
// GF(2) from named input dimensions to named output dimensions, given by one
// basis vector (a value of every output dimension) per bit of each input
// dimension. The image of an input is the XOR of the bases of its set bits.
//
// A distributed layout maps (register, lane, warp, block) to tile
// coordinates (dim0, dim1, ...):
//
//   coords(r, l, w) = XOR_i r_i * register[i]  ^  XOR_j l_j * lane[j]
//                   ^ XOR_k w_k * warp[k]
//
// (`block`, the thread block of a cluster, has no bits yet). A zero lane or
// warp basis means those threads hold the same elements (replication);
// register bases are never zero, so each register of a thread holds a
// different element. A shared memory layout maps the element `offset` in a
// buffer to the tile coordinates stored there; swizzles are XORs of row bits
// into column bits, so they are linear too.
//
// With this form, one lowering serves every layout: elementwise ops work
// register by register, broadcasts and register-only conversions pick
// registers by coordinates, reductions combine registers, then lanes
// (shuffles), then warps (shared memory). Composition and inversion answer
// the questions between layouts: which thread holds the element another
// layout wants (getConversion), where in shared memory an element lies
// (compose with the inverse of a shared layout).
//
// All dimension sizes are powers of two; out-dimension values of the bases
// are below the out-dimension sizes (normalize wraps the ones that are not).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_LINEARLAYOUT_H
#define TILE_IR_LINEARLAYOUT_H

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tile {

class LinearLayout {
public:
  using Basis = SmallVector<int64_t, 4>;

  /// The input dimensions of distributed layouts, in this order.
  static constexpr llvm::StringLiteral kRegister = "register";
  static constexpr llvm::StringLiteral kLane = "lane";
  static constexpr llvm::StringLiteral kWarp = "warp";
  static constexpr llvm::StringLiteral kBlock = "block";
  /// The input dimension of shared memory layouts: an element offset.
  static constexpr llvm::StringLiteral kOffset = "offset";
  /// The name of output dimension `d` of a tile: "dim<d>".
  static std::string dimName(unsigned d);

  struct InDim {
    std::string name;
    SmallVector<Basis> bases; // one per bit, each with a value per out dim
    bool operator==(const InDim &o) const {
      return name == o.name && bases == o.bases;
    }
  };

  LinearLayout() = default;
  /// A distributed layout on a tile of `shape` with no bases yet: input
  /// dimensions register, lane, warp and block, output dimensions dim0, ...
  explicit LinearLayout(ArrayRef<int64_t> shape);
  /// Any layout: the input dimensions with their bases (each basis has one
  /// value per output dimension) and the output dimensions with their sizes.
  LinearLayout(SmallVector<InDim> inDims,
               ArrayRef<std::pair<std::string, int64_t>> outDims);

  /// The identity on `size` values (a power of two) of `inDim` -> `outDim`.
  static LinearLayout identity1D(int64_t size, StringRef inDim,
                                 StringRef outDim);
  /// `size` values of `inDim` that all map to 0 of `outDim` (of size 1):
  /// replication.
  static LinearLayout zeros1D(int64_t size, StringRef inDim, StringRef outDim);

  /// The product of two layouts: input dimensions of both (the bits of
  /// `other`'s above this one's where both have a dimension), output
  /// dimensions of both (the sizes multiply where both have one, `other`'s
  /// values above this one's).
  LinearLayout operator*(const LinearLayout &other) const;

  //===--------------------------------------------------------------------===//
  // Dimensions and bases
  //===--------------------------------------------------------------------===//

  ArrayRef<InDim> getInDims() const { return ins; }
  SmallVector<StringRef> getInDimNames() const;
  SmallVector<StringRef> getOutDimNames() const;
  bool hasInDim(StringRef name) const { return inDimIndex(name).has_value(); }
  std::optional<unsigned> inDimIndex(StringRef name) const;
  std::optional<unsigned> outDimIndex(StringRef name) const;
  /// log2 of the size of an input dimension (0 for one it does not have).
  unsigned getInDimSizeLog2(StringRef name) const {
    return getBases(name).size();
  }
  int64_t getInDimSize(StringRef name) const {
    return int64_t(1) << getInDimSizeLog2(name);
  }
  unsigned getTotalInBits() const;
  unsigned getTotalOutBits() const;
  /// The sizes of the output dimensions: the tile's shape.
  ArrayRef<int64_t> getShape() const { return outSizes; }
  unsigned getRank() const { return outSizes.size(); }

  /// The bases of an input dimension (empty for one it does not have).
  ArrayRef<Basis> getBases(StringRef inDim) const;
  /// The bases of an input dimension, which is added (last) if missing.
  SmallVector<Basis> &bases(StringRef inDim);

  // The distributed view.
  ArrayRef<Basis> regs() const { return getBases(kRegister); }
  ArrayRef<Basis> lanes() const { return getBases(kLane); }
  ArrayRef<Basis> warps() const { return getBases(kWarp); }
  unsigned getNumRegs() const { return 1u << regs().size(); }
  unsigned getNumWarps() const { return 1u << warps().size(); }

  //===--------------------------------------------------------------------===//
  // The map
  //===--------------------------------------------------------------------===//

  /// The image of one value per input dimension (in order; missing trailing
  /// ones are 0): one value per output dimension.
  Basis apply(ArrayRef<int64_t> inValues) const;
  /// The image of named input values (other input dimensions are 0).
  Basis apply(ArrayRef<std::pair<StringRef, int64_t>> inValues) const;

  /// Coordinates of register `r` in lane 0 of warp 0.
  Basis regCoords(unsigned r) const;

  /// `this` then `outer`: x -> outer(this(x)). `outer`'s input dimensions
  /// must be this layout's output dimensions (by name, each at least as
  /// large).
  LinearLayout compose(const LinearLayout &outer) const;

  /// The inverse of a bijective layout (every input has one output and the
  /// other way round): its output dimensions become the input dimensions.
  /// Asserts isInvertible().
  LinearLayout invert() const;

  /// A right inverse of a surjective layout: out -> in such that
  /// this(pseudoInvert()(y)) == y, choosing the preimage with the free
  /// (replicated) input bits zero. Asserts isSurjective().
  LinearLayout pseudoInvert() const;

  /// "Left division": with `this` X -> Y and `other` Z -> Y, the layout
  /// X -> Z that maps x to a z with other(z) == this(x) (the lowest such z
  /// bit by bit). nullopt when other's image does not contain this one's or
  /// the output dimensions differ.
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &other) const;

  /// The dimension of the image (rank of the matrix over GF(2)).
  unsigned getMatrixRank() const;
  bool isInjective() const { return getMatrixRank() == getTotalInBits(); }
  bool isSurjective() const { return getMatrixRank() == getTotalOutBits(); }
  bool isInvertible() const { return isInjective() && isSurjective(); }

  //===--------------------------------------------------------------------===//
  // Helpers of the lowering (distributed layouts)
  //===--------------------------------------------------------------------===//

  /// Wraps every basis into the shape (bases past it become zero:
  /// replication) and drops zero and duplicate register bases.
  void normalize();

  /// True when both layouts place the same elements in the same threads,
  /// possibly in different registers: converting between them moves no data
  /// between threads.
  bool sameThreadMapping(const LinearLayout &other) const {
    return getShape() == other.getShape() && lanes() == other.lanes() &&
           warps() == other.warps();
  }

  /// The register of a thread that holds `coords` (relative to the thread's
  /// lane/warp offset), if any.
  std::optional<unsigned> findReg(ArrayRef<int64_t> coords) const;

  /// For `sub`, the layout of the sub-tile at `offsets` of a tile in this
  /// layout: this layout's register holding each of `sub`'s registers, when
  /// the same threads hold the sub-tile in both (extracting it then moves no
  /// data); nothing otherwise.
  std::optional<SmallVector<unsigned>>
  subTileRegs(const LinearLayout &sub, ArrayRef<int64_t> offsets) const;

  /// This layout with the components of `dims` set to zero, on `newShape`
  /// (where those dims have size 1).
  LinearLayout zeroDims(ArrayRef<bool> dims, ArrayRef<int64_t> newShape) const;

  /// This layout with dimension `dim`'s components packed to their `kept`
  /// bits (extractBits; the others dropped), on the shape whose `dim` has
  /// 2^popcount(kept) values: the layout of a partial reduction along `dim`
  /// that keeps those bits (tile.reduce's kept_bits).
  LinearLayout keepBits(unsigned dim, int64_t kept) const;

  bool operator==(const LinearLayout &o) const {
    return ins == o.ins && outNames == o.outNames && outSizes == o.outSizes;
  }
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  /// `register = [(0, 1), (8, 0)], lane = [...], ... -> dim0 = 16, dim1 = 8`
  void print(raw_ostream &os) const;
  std::string str() const;

private:
  SmallVector<InDim, 4> ins;
  SmallVector<std::string, 4> outNames;
  SmallVector<int64_t, 4> outSizes;
  mutable llvm::DenseMap<int64_t, unsigned> regIndex; // flattened coords

  int64_t flatten(ArrayRef<int64_t> coords) const;

public:
  /// The matrix over GF(2): one column per input bit (in-dim order, low
  /// bits first), each column the bits of the output values (out-dim order,
  /// low bits first). At most 64 input and 64 output bits.
  SmallVector<uint64_t> columns() const;
  /// Output values as bits of a column, and back.
  uint64_t toBits(ArrayRef<int64_t> outValues) const;
  Basis fromBits(uint64_t bits) const;
};

/// The bits of `value` under `mask`, packed from bit 0 in order (x86's
/// pext), and back (pdep): depositBits(extractBits(v, m), m) == v & m.
int64_t extractBits(int64_t value, int64_t mask);
int64_t depositBits(int64_t value, int64_t mask);

inline raw_ostream &operator<<(raw_ostream &os, const LinearLayout &l) {
  l.print(os);
  return os;
}

//===----------------------------------------------------------------------===//
// Conversions between distributed layouts
//===----------------------------------------------------------------------===//

/// What converting a tile between two distributed layouts takes, from the
/// cheapest: every thread already holds what it needs (registers are
/// renamed), data moves between lanes of a warp only (shuffles), or data
/// moves between warps (shared memory).
enum class ConversionKind { Registers, WarpShuffle, SharedMemory };

struct LayoutConversion {
  ConversionKind kind;
  /// Destination (register, lane, warp, block) -> a source (register, lane,
  /// warp, block) that holds the same element, as close as can be: in the
  /// same thread, else the same warp.
  LinearLayout map;
  /// For kind Registers when the choice does not depend on the thread: the
  /// source register of each destination register.
  std::optional<SmallVector<unsigned>> registerMap;
};

/// How to convert a tile from `src` to `dst`; nullopt when the shapes
/// differ or `src` does not hold some element `dst` does.
std::optional<LayoutConversion> getConversion(const LinearLayout &src,
                                              const LinearLayout &dst);

/// A conversion that moves data between the lanes of each warp, as rounds
/// of one `shfl.sync.idx` each. With the conversion's map over GF(2),
/// (destination register r, lane l) -> (source register A r ^ B l, source
/// lane C r ^ D l), the round of register bits r0 fills, in lane l, the
/// destination register r0 ^ E l: the twist E picks, per lane, which
/// register a round fills so that the lanes read distinct lanes
/// (P = C E ^ D is a permutation). The lane a reader reads then holds what
/// it wants in register A r0 ^ G (lane ^ C r0), G = (A E ^ B) P^-1: each
/// sender picks its word by its own lane bits. Destination register bits
/// that stay in their lane (C = 0) travel together in one 32-bit word.
struct WarpShufflePlan {
  unsigned elementBits = 32;
  /// Destination register bits packed in one word (element u of a word:
  /// u's bits at these positions), and the others, one round per value.
  SmallVector<unsigned> packBits, roundBits;
  /// A and C, per destination register bit: source register bits and
  /// source lane bits (as masks).
  SmallVector<uint64_t> srcReg, srcLane;
  /// E and P, per destination lane bit: destination register bits, and
  /// the lane bits of the lane read.
  SmallVector<uint64_t> twist, readLane;
  /// G, per lane bit of the sender: the source register bits it flips.
  SmallVector<uint64_t> sendReg;

  /// A (or C) of a destination register index.
  uint64_t srcRegOf(uint64_t dstReg) const;
  uint64_t srcLaneOf(uint64_t dstReg) const;
  /// E (lane -> destination register bits), P, G of a lane's bits.
  uint64_t twistOf(uint64_t lane) const;
  uint64_t readLaneOf(uint64_t lane) const;
  uint64_t sendRegOf(uint64_t lane) const;
  /// The destination register bits of element `u` of a word (u's bits at
  /// the pack bits), and of round `i` (i's bits at the round bits).
  uint64_t packOffset(uint64_t u) const;
  uint64_t roundRegs(uint64_t i) const;
  /// The lane bits P leaves in place (P's column is the bit itself).
  uint64_t keptLaneBits() const;
  /// Whether every lane reads itself in the round of `r0` (no shuffle).
  bool readsOwnLane(uint64_t r0) const;
  /// Shuffles per thread.
  unsigned numShuffles() const;
};

/// How to convert a tile of `elementBits`-bit elements (8, 16 or 32) from
/// `src` to `dst` by shuffles (WarpShufflePlan); nullopt when the
/// conversion is not of kind WarpShuffle, or no twist makes the lanes read
/// distinct lanes (a destination replicated across lanes): shared memory
/// then.
std::optional<WarpShufflePlan> getWarpShufflePlan(const LinearLayout &src,
                                                  const LinearLayout &dst,
                                                  unsigned elementBits);

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

/// The shared memory layout `offset` -> coordinates of a `shape` buffer
/// that is row-major over `order` (fastest first) with, in row r (over all
/// dimensions but the fastest), the column index in units of `vec` elements
/// XOR-ed with (r / perPhase) % maxPhase (#tile.shared). With `block`, the
/// fastest dimension is cut into blocks of `block` columns stored one after
/// the other, each holding all rows of the 2-D tile (order[1]); dimensions
/// past order[1] stack whole tiles. The XOR stays within the fastest
/// dimension (the lowering's formula leaves it when vec * maxPhase exceeds
/// that dimension, which the layouts it is given never do).
LinearLayout swizzledSharedLayout(ArrayRef<int64_t> shape, unsigned vec,
                                  unsigned perPhase, unsigned maxPhase,
                                  ArrayRef<unsigned> order, unsigned block = 0);

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

/// The shape a layout covers for a tile of `shape`: every dimension rounded
/// up to a power of two. A tile whose dimensions are not all powers of two
/// (a head dim of 96, 6 query heads) is held padded: its registers and
/// shared memory have the padded shape, and the elements past its own
/// dimensions (its padding) hold undefined values. Loads and stores never
/// touch global memory for them, reductions and multiplies leave them out.
SmallVector<int64_t> paddedShape(ArrayRef<int64_t> shape);

/// True when some dimension of `shape` is not a power of two.
bool isPadded(ArrayRef<int64_t> shape);
inline bool isPadded(int64_t size) { return isPadded(ArrayRef<int64_t>(size)); }

/// True when registers `r` to `r + count - 1` of `layout` (over the padded
/// shape of a tile of `shape`) hold padding in every thread: some
/// coordinate of each is past the tile whatever the lane and warp add.
/// Lowerings neither compute nor keep such registers.
bool isPaddingRegister(const LinearLayout &layout, ArrayRef<int64_t> shape,
                       unsigned r, unsigned count = 1);

/// True when each register of `layout` (over the padded shape of a tile of
/// `shape`) holds padding in every thread or in none (isPaddingRegister):
/// an access that skips the padding registers touches the tile's own
/// elements only. Where lanes or warps reach past the tile's edge it is
/// false (a 160-row tile whose rows 128-191 are one warp bit's).
bool isPaddingPerRegister(const LinearLayout &layout, ArrayRef<int64_t> shape);

/// The registers of `layout` that hold some element of a tile of `shape`
/// (all of them unless the tile is padded).
int64_t countDataRegisters(const LinearLayout &layout, ArrayRef<int64_t> shape);

/// The linear form of a layout attribute on a tile of `shape` (over
/// paddedShape(shape)). The layout must be one of the tile dialect's
/// distributed layouts.
LinearLayout toLinearLayout(Attribute layout, ArrayRef<int64_t> shape);

/// True when every thread of the block holds every element of a tile of
/// `shape` in `layout`: no lane or warp moves an element.
bool isReplicatedLayout(Attribute layout, ArrayRef<int64_t> shape);

/// True for the layouts toLinearLayout accepts.
bool isDistributedLayout(Attribute layout);

/// The dimensions of `shape` that are not 1, in order.
SmallVector<unsigned> nonUnitDims(ArrayRef<int64_t> shape);

/// For a reshape that only adds or removes dimensions of size 1: the
/// non-unit dimensions of `src` and of `dst`, which correspond in order;
/// nullopt for any other reshape.
std::optional<std::pair<SmallVector<unsigned>, SmallVector<unsigned>>>
matchNonUnitDims(ArrayRef<int64_t> src, ArrayRef<int64_t> dst);

/// For a reshape whose every split or joined group of dimensions is a
/// power of two but in its outermost dimension (isBitReshape): the
/// coordinates in `to` of the element at `coords` in `from`, both in the
/// padded shapes tiles are held in (paddedShape). The row-major index of a
/// padded shape is its coordinates' bits side by side, so this is linear
/// on a layout's bases; a valid element keeps its row-major index within
/// each group, so it lands on the right element. nullopt for any other
/// reshape.
std::optional<SmallVector<int64_t, 4>> reshapeCoords(ArrayRef<int64_t> coords,
                                                     ArrayRef<int64_t> from,
                                                     ArrayRef<int64_t> to);

/// True when reshapeCoords maps `from` to `to`: cut into the groups of
/// dimensions that the reshape splits or joins (the products of their
/// extents equal), every dimension of a group but its outermost is a power
/// of two ((2016,) -> (252, 8), not (2016,) -> (8, 252)).
bool isBitReshape(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

/// The rank of the tiles a layout applies to (0 for what is no layout).
unsigned getLayoutRank(Attribute layout);

/// Number of warps a distributed layout spreads over.
unsigned getNumWarps(Attribute layout);

} // namespace mlir::tile

#endif // TILE_IR_LINEARLAYOUT_H
