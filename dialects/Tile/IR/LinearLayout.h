//===- LinearLayout.h - Layouts as linear maps ------------------*- C++ -*-===//
//
// Every tile layout is lowered through one representation: a map from the
// (register, lane, warp) indices of a thread block to tile coordinates, given
// by one basis vector per bit of each index. The coordinates of an element
// are the XOR of the bases of the set bits:
//
//   coords(r, l, w) = XOR_i r_i * regs[i]  ^  XOR_j l_j * lanes[j]
//                   ^ XOR_k w_k * warps[k]
//
// (for the layouts here the bits are disjoint, so XOR is addition). A zero
// lane or warp basis means those threads hold the same elements
// (replication); register bases are never zero, so each register of a thread
// holds a different element. With this form, one lowering serves every
// layout: elementwise ops work register by register, broadcasts and
// register-only conversions pick registers by coordinates, reductions
// combine registers, then lanes (shuffles), then warps (shared memory).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_LINEARLAYOUT_H
#define TILE_IR_LINEARLAYOUT_H

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tile {

class LinearLayout {
public:
  using Basis = SmallVector<int64_t, 4>;

  explicit LinearLayout(ArrayRef<int64_t> shape) : shape(shape) {}

  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  unsigned getNumRegs() const { return 1u << regs.size(); }
  unsigned getNumWarps() const { return 1u << warps.size(); }

  /// Coordinates of register `r` in lane 0 of warp 0.
  Basis regCoords(unsigned r) const;

  /// Wraps every basis into the shape (bases past it become zero:
  /// replication) and drops zero and duplicate register bases.
  void normalize();

  /// True when both layouts place the same elements in the same threads,
  /// possibly in different registers: converting between them moves no data
  /// between threads.
  bool sameThreadMapping(const LinearLayout &other) const {
    return shape == other.shape && lanes == other.lanes && warps == other.warps;
  }

  /// The register of a thread that holds `coords` (relative to the thread's
  /// lane/warp offset), if any.
  std::optional<unsigned> findReg(ArrayRef<int64_t> coords) const;

  /// This layout with the components of `dims` set to zero, on `newShape`
  /// (where those dims have size 1).
  LinearLayout zeroDims(ArrayRef<bool> dims, ArrayRef<int64_t> newShape) const;

  bool operator==(const LinearLayout &o) const {
    return shape == o.shape && regs == o.regs && lanes == o.lanes &&
           warps == o.warps;
  }

  void print(raw_ostream &os) const;

  SmallVector<int64_t> shape;
  SmallVector<Basis> regs, lanes, warps;

private:
  mutable llvm::DenseMap<int64_t, unsigned> regIndex; // flattened coords
  int64_t flatten(ArrayRef<int64_t> coords) const;
};

/// The linear form of a layout attribute on a tile of `shape`. The layout
/// must be one of the tile dialect's distributed layouts.
LinearLayout toLinearLayout(Attribute layout, ArrayRef<int64_t> shape);

/// True for the layouts toLinearLayout accepts.
bool isDistributedLayout(Attribute layout);

/// The dimensions of `shape` that are not 1, in order.
SmallVector<unsigned> nonUnitDims(ArrayRef<int64_t> shape);

/// For a reshape that only adds or removes dimensions of size 1: the
/// non-unit dimensions of `src` and of `dst`, which correspond in order;
/// nullopt for any other reshape.
std::optional<std::pair<SmallVector<unsigned>, SmallVector<unsigned>>>
matchNonUnitDims(ArrayRef<int64_t> src, ArrayRef<int64_t> dst);

/// The rank of the tiles a layout applies to (0 for what is no layout).
unsigned getLayoutRank(Attribute layout);

/// Number of warps a distributed layout spreads over.
unsigned getNumWarps(Attribute layout);

} // namespace mlir::tile

#endif // TILE_IR_LINEARLAYOUT_H
