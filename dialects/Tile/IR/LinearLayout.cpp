//===- LinearLayout.cpp - Layouts as linear maps --------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileTypes.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;

LinearLayout::Basis LinearLayout::regCoords(unsigned r) const {
  Basis c(shape.size(), 0);
  for (unsigned i = 0; i < regs.size(); ++i)
    if (r & (1u << i))
      for (unsigned d = 0; d < shape.size(); ++d)
        c[d] ^= regs[i][d];
  return c;
}

void LinearLayout::normalize() {
  auto wrap = [&](Basis &b) {
    for (unsigned d = 0; d < shape.size(); ++d)
      b[d] &= shape[d] - 1; // shapes are powers of two
  };
  for (Basis &b : lanes)
    wrap(b);
  for (Basis &b : warps)
    wrap(b);
  SmallVector<Basis> kept;
  for (Basis &b : regs) {
    wrap(b);
    bool zero = llvm::all_of(b, [](int64_t x) { return x == 0; });
    if (!zero && !llvm::is_contained(kept, b))
      kept.push_back(b);
  }
  regs = std::move(kept);
  regIndex.clear();
}

int64_t LinearLayout::flatten(ArrayRef<int64_t> coords) const {
  int64_t flat = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + coords[d];
  return flat;
}

std::optional<unsigned> LinearLayout::findReg(ArrayRef<int64_t> coords) const {
  if (regIndex.empty())
    for (unsigned r = 0; r < getNumRegs(); ++r)
      regIndex.try_emplace(flatten(regCoords(r)), r);
  auto it = regIndex.find(flatten(coords));
  if (it == regIndex.end())
    return std::nullopt;
  return it->second;
}

LinearLayout LinearLayout::zeroDims(ArrayRef<bool> dims,
                                    ArrayRef<int64_t> newShape) const {
  LinearLayout out(newShape);
  auto zero = [&](const SmallVector<Basis> &in, SmallVector<Basis> &res) {
    for (Basis b : in) {
      for (unsigned d = 0; d < dims.size(); ++d)
        if (dims[d])
          b[d] = 0;
      res.push_back(b);
    }
  };
  zero(regs, out.regs);
  zero(lanes, out.lanes);
  zero(warps, out.warps);
  out.normalize();
  return out;
}

void LinearLayout::print(raw_ostream &os) const {
  auto printBases = [&](StringRef name, const SmallVector<Basis> &bases) {
    os << name << " = [";
    llvm::interleaveComma(bases, os, [&](const Basis &b) {
      os << "(";
      llvm::interleaveComma(b, os);
      os << ")";
    });
    os << "]";
  };
  printBases("register", regs);
  os << ", ";
  printBases("lane", lanes);
  os << ", ";
  printBases("warp", warps);
}

//===----------------------------------------------------------------------===//
// The layouts
//===----------------------------------------------------------------------===//

static LinearLayout::Basis unit(unsigned rank, unsigned dim, int64_t value) {
  LinearLayout::Basis b(rank, 0);
  b[dim] = value;
  return b;
}

static LinearLayout blockedToLinear(BlockedLayoutAttr l,
                                    ArrayRef<int64_t> shape) {
  unsigned rank = shape.size();
  LinearLayout ll(shape);
  ArrayRef<unsigned> spt = l.getSizePerThread(), tpw = l.getThreadsPerWarp(),
                     wpc = l.getWarpsPerCTA(), order = l.getOrder();
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < spt[d]; ++i)
      ll.regs.push_back(unit(rank, d, int64_t(1) << i));
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < tpw[d]; ++i)
      ll.lanes.push_back(unit(rank, d, int64_t(spt[d]) << i));
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < wpc[d]; ++i)
      ll.warps.push_back(unit(rank, d, int64_t(spt[d]) * tpw[d] << i));
  // Repeat to cover the shape.
  for (unsigned d : order) {
    int64_t block = int64_t(spt[d]) * tpw[d] * wpc[d];
    for (int64_t step = block; step < shape[d]; step *= 2)
      ll.regs.push_back(unit(rank, d, step));
  }
  ll.normalize();
  return ll;
}

/// The lane bases shared by the accumulator and the 16-bit A operand of
/// mma.m16n8k16: lanes 0-1 step the column by 2 and 4, lanes 2-4 the row.
static void mmaLanes(LinearLayout &ll, unsigned rowDim, unsigned colDim) {
  ll.lanes.push_back(unit(2, colDim, 2));
  ll.lanes.push_back(unit(2, colDim, 4));
  ll.lanes.push_back(unit(2, rowDim, 1));
  ll.lanes.push_back(unit(2, rowDim, 2));
  ll.lanes.push_back(unit(2, rowDim, 4));
}

static void pushWarps(LinearLayout &ll, unsigned count, unsigned dim,
                      int64_t step) {
  for (unsigned i = 0; (1u << i) < count; ++i)
    ll.warps.push_back(step ? unit(2, dim, step << i)
                            : LinearLayout::Basis(2, 0));
}

static void pushReps(LinearLayout &ll, unsigned dim, int64_t from,
                     int64_t size) {
  for (int64_t step = from; step < size; step *= 2)
    ll.regs.push_back(unit(2, dim, step));
}

static LinearLayout mmaToLinear(MmaLayoutAttr l, ArrayRef<int64_t> shape) {
  LinearLayout ll(shape);
  unsigned wm = l.getWarpsPerCTA()[0], wn = l.getWarpsPerCTA()[1];
  ll.regs.push_back(unit(2, 1, 1)); // c0 c1: adjacent columns
  ll.regs.push_back(unit(2, 0, 8)); // c2 c3: row + 8
  mmaLanes(ll, 0, 1);
  pushWarps(ll, wm, 0, 16);
  pushWarps(ll, wn, 1, 8);
  pushReps(ll, 1, 8 * int64_t(wn), shape[1]);
  pushReps(ll, 0, 16 * int64_t(wm), shape[0]);
  ll.normalize();
  return ll;
}

static LinearLayout dotOperandToLinear(DotOperandLayoutAttr l,
                                       ArrayRef<int64_t> shape) {
  LinearLayout ll(shape);
  unsigned wm = l.getParent().getWarpsPerCTA()[0];
  unsigned wn = l.getParent().getWarpsPerCTA()[1];
  if (l.getOpIdx() == 0) {
    // A (M x K): a0 a1 | a2 a3 (row + 8) | a4 a5 (k + 8) | a6 a7.
    ll.regs.push_back(unit(2, 1, 1));
    ll.regs.push_back(unit(2, 0, 8));
    ll.regs.push_back(unit(2, 1, 8));
    mmaLanes(ll, 0, 1);
    pushWarps(ll, wm, 0, 16);
    pushWarps(ll, wn, 1, 0); // every warp along N holds all of A
    pushReps(ll, 1, 16, shape[1]);
    pushReps(ll, 0, 16 * int64_t(wm), shape[0]);
  } else {
    // B (K x N): b0 b1 (k, k + 1) | b2 b3 (k + 8), column lane / 4.
    ll.regs.push_back(unit(2, 0, 1));
    ll.regs.push_back(unit(2, 0, 8));
    ll.lanes.push_back(unit(2, 0, 2));
    ll.lanes.push_back(unit(2, 0, 4));
    ll.lanes.push_back(unit(2, 1, 1));
    ll.lanes.push_back(unit(2, 1, 2));
    ll.lanes.push_back(unit(2, 1, 4));
    pushWarps(ll, wm, 0, 0); // every warp along M holds all of B
    pushWarps(ll, wn, 1, 8);
    pushReps(ll, 0, 16, shape[0]);
    pushReps(ll, 1, 8 * int64_t(wn), shape[1]);
  }
  ll.normalize();
  return ll;
}

static LinearLayout sliceToLinear(SliceLayoutAttr l, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + l.getDim(), 1);
  LinearLayout parent = toLinearLayout(l.getParent(), parentShape);
  LinearLayout ll(shape);
  auto drop = [&](const SmallVector<LinearLayout::Basis> &in,
                  SmallVector<LinearLayout::Basis> &out) {
    for (LinearLayout::Basis b : in) {
      b.erase(b.begin() + l.getDim());
      out.push_back(b);
    }
  };
  drop(parent.regs, ll.regs);
  drop(parent.lanes, ll.lanes);
  drop(parent.warps, ll.warps);
  ll.normalize();
  return ll;
}

LinearLayout mlir::tile::toLinearLayout(Attribute layout,
                                        ArrayRef<int64_t> shape) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return blockedToLinear(b, shape);
  if (auto m = dyn_cast<MmaLayoutAttr>(layout))
    return mmaToLinear(m, shape);
  if (auto d = dyn_cast<DotOperandLayoutAttr>(layout))
    return dotOperandToLinear(d, shape);
  if (auto s = dyn_cast<SliceLayoutAttr>(layout))
    return sliceToLinear(s, shape);
  llvm_unreachable("not a distributed layout");
}

bool mlir::tile::isDistributedLayout(Attribute layout) {
  if (auto s = dyn_cast_if_present<SliceLayoutAttr>(layout))
    return isDistributedLayout(s.getParent());
  return isa_and_present<BlockedLayoutAttr, MmaLayoutAttr,
                         DotOperandLayoutAttr>(layout);
}

unsigned mlir::tile::getNumWarps(Attribute layout) {
  auto product = [](ArrayRef<unsigned> v) {
    unsigned p = 1;
    for (unsigned x : v)
      p *= x;
    return p;
  };
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return product(b.getWarpsPerCTA());
  if (auto m = dyn_cast<MmaLayoutAttr>(layout))
    return product(m.getWarpsPerCTA());
  if (auto d = dyn_cast<DotOperandLayoutAttr>(layout))
    return getNumWarps(d.getParent());
  if (auto s = dyn_cast<SliceLayoutAttr>(layout))
    return getNumWarps(s.getParent());
  return 0;
}

SmallVector<unsigned> mlir::tile::nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      dims.push_back(d);
  return dims;
}

std::optional<std::pair<SmallVector<unsigned>, SmallVector<unsigned>>>
mlir::tile::matchNonUnitDims(ArrayRef<int64_t> src, ArrayRef<int64_t> dst) {
  SmallVector<unsigned> srcDims = nonUnitDims(src), dstDims = nonUnitDims(dst);
  if (srcDims.size() != dstDims.size())
    return std::nullopt;
  for (unsigned i = 0; i < srcDims.size(); ++i)
    if (src[srcDims[i]] != dst[dstDims[i]])
      return std::nullopt;
  return std::make_pair(srcDims, dstDims);
}
