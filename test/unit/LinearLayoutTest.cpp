//===- LinearLayoutTest.cpp - The layout algebra --------------------------===//
//
// Unit tests of LinearLayout (dialects/Tile/IR/LinearLayout.h): the algebra
// (apply, product, compose, inverse, left division), the linear forms of the
// layout attributes against the element positions PTX documents for them,
// the shared memory swizzles against their direct formulas, and conversions.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

using Basis = LinearLayout::Basis;
constexpr StringRef kReg = LinearLayout::kRegister;
constexpr StringRef kLane = LinearLayout::kLane;
constexpr StringRef kWarp = LinearLayout::kWarp;

class LinearLayoutTest : public ::testing::Test {
protected:
  LinearLayoutTest() { ctx.loadDialect<TileDialect>(); }

  BlockedLayoutAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return BlockedLayoutAttr::get(&ctx, spt, tpw, wpc, order);
  }
  MmaLayoutAttr mma(unsigned wm, unsigned wn) {
    return MmaLayoutAttr::get(&ctx, {wm, wn});
  }

  MLIRContext ctx;
};

std::string attrStr(Attribute a) {
  std::string str;
  llvm::raw_string_ostream os(str);
  os << a;
  return str;
}

/// The coordinates of (register r, lane l, warp w).
Basis at(const LinearLayout &l, int64_t r, int64_t lane, int64_t w) {
  return l.apply({{kReg, r}, {kLane, lane}, {kWarp, w}});
}

/// Every value of a layout's inputs, flattened (in-dim order, low first).
int64_t totalInputs(const LinearLayout &l) {
  return int64_t(1) << l.getTotalInBits();
}
SmallVector<int64_t> unflatten(const LinearLayout &l, int64_t x) {
  SmallVector<int64_t> v;
  for (const LinearLayout::InDim &in : l.getInDims()) {
    v.push_back(x & ((int64_t(1) << in.bases.size()) - 1));
    x >>= in.bases.size();
  }
  return v;
}

/// A random bijection of `bits` bits: `in` -> `out` of size 2^bits.
LinearLayout randomBijection(unsigned bits, StringRef in, StringRef out,
                             std::mt19937 &rng) {
  // Unit columns, then random column additions (elementary operations).
  SmallVector<int64_t> cols;
  for (unsigned i = 0; i < bits; ++i)
    cols.push_back(int64_t(1) << i);
  std::shuffle(cols.begin(), cols.end(), rng);
  for (int k = 0; k < 40 && bits > 1; ++k) {
    unsigned a = rng() % bits, b = rng() % bits;
    if (a != b)
      cols[a] ^= cols[b];
  }
  LinearLayout::InDim d{in.str(), {}};
  for (int64_t c : cols)
    d.bases.push_back({c});
  return LinearLayout({d}, {{out.str(), int64_t(1) << bits}});
}

//===----------------------------------------------------------------------===//
// The algebra
//===----------------------------------------------------------------------===//

TEST_F(LinearLayoutTest, Identity) {
  LinearLayout id = LinearLayout::identity1D(32, "in", "out");
  EXPECT_EQ(id.getInDimSize("in"), 32);
  EXPECT_EQ(id.getShape(), ArrayRef<int64_t>({32}));
  for (int64_t x = 0; x < 32; ++x)
    EXPECT_EQ(id.apply({x}), Basis({x}));
  EXPECT_TRUE(id.isInvertible());
  LinearLayout inv = id.invert();
  EXPECT_EQ(inv.getInDimNames(), SmallVector<StringRef>({"out"}));
  EXPECT_EQ(inv.getOutDimNames(), SmallVector<StringRef>({"in"}));
  EXPECT_EQ(inv, LinearLayout::identity1D(32, "out", "in"));
  EXPECT_EQ(id.compose(inv), LinearLayout::identity1D(32, "in", "in"));
}

TEST_F(LinearLayoutTest, Zeros) {
  LinearLayout z = LinearLayout::zeros1D(8, "lane", "dim0");
  EXPECT_EQ(z.getShape(), ArrayRef<int64_t>({1}));
  for (int64_t x = 0; x < 8; ++x)
    EXPECT_EQ(z.apply({x}), Basis({0}));
  EXPECT_FALSE(z.isInjective());
  EXPECT_TRUE(z.isSurjective());
}

TEST_F(LinearLayoutTest, Product) {
  // 2 registers along dim1, then 4 lanes along dim1, 8 lanes along dim0,
  // and 2 warps replicating.
  LinearLayout l = LinearLayout::identity1D(2, "register", "dim1") *
                   LinearLayout::identity1D(4, "lane", "dim1") *
                   LinearLayout::identity1D(8, "lane", "dim0") *
                   LinearLayout::zeros1D(2, "warp", "dim1");
  EXPECT_EQ(l.getInDimNames(),
            SmallVector<StringRef>({"register", "lane", "warp"}));
  EXPECT_EQ(l.getOutDimNames(), SmallVector<StringRef>({"dim1", "dim0"}));
  EXPECT_EQ(l.getShape(), ArrayRef<int64_t>({8, 8}));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t w = 0; w < 2; ++w)
        EXPECT_EQ(at(l, r, lane, w), Basis({r + 2 * (lane % 4), lane / 4}));
  EXPECT_TRUE(l.isSurjective());
  EXPECT_FALSE(l.isInjective());
}

TEST_F(LinearLayoutTest, ApplyIsXor) {
  LinearLayout::InDim in{"x", {{1, 0}, {3, 1}, {0, 2}}};
  LinearLayout l({in}, {{"a", 4}, {"b", 4}});
  EXPECT_EQ(l.apply({0b011}), Basis({1 ^ 3, 1}));
  EXPECT_EQ(l.apply({0b111}), Basis({1 ^ 3, 1 ^ 2}));
  EXPECT_EQ(l.getMatrixRank(), 3u);
  EXPECT_TRUE(l.isInjective());
  EXPECT_FALSE(l.isSurjective());
}

TEST_F(LinearLayoutTest, Compose) {
  std::mt19937 rng(1);
  LinearLayout a = randomBijection(6, "in", "mid", rng);
  LinearLayout b = randomBijection(6, "mid", "out", rng);
  LinearLayout c = a.compose(b);
  EXPECT_EQ(c.getInDimNames(), SmallVector<StringRef>({"in"}));
  EXPECT_EQ(c.getOutDimNames(), SmallVector<StringRef>({"out"}));
  for (int64_t x = 0; x < 64; ++x)
    EXPECT_EQ(c.apply({x}), b.apply({a.apply({x})[0]}));
}

TEST_F(LinearLayoutTest, ComposeNamedDimensions) {
  // (register, lane) -> (dim0, dim1), then a transpose (dim0, dim1) ->
  // (dim1, dim0) written as a layout of named inputs.
  LinearLayout l = LinearLayout::identity1D(4, "register", "dim1") *
                   LinearLayout::identity1D(8, "lane", "dim0");
  LinearLayout t(
      {{"dim0", {{0, 1}, {0, 2}, {0, 4}}}, {"dim1", {{1, 0}, {2, 0}}}},
      {{"dim0", 4}, {"dim1", 8}});
  LinearLayout c = l.compose(t);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t lane = 0; lane < 8; ++lane)
      EXPECT_EQ(c.apply({{kReg, r}, {kLane, lane}}), Basis({r, lane}));
}

TEST_F(LinearLayoutTest, InvertRoundTrips) {
  std::mt19937 rng(7);
  for (unsigned bits : {1u, 3u, 8u, 12u}) {
    LinearLayout l = randomBijection(bits, "offset", "dim0", rng);
    ASSERT_TRUE(l.isInvertible());
    LinearLayout inv = l.invert();
    for (int64_t x = 0; x < (int64_t(1) << bits); ++x) {
      EXPECT_EQ(inv.apply({l.apply({x})[0]}), Basis({x}));
      EXPECT_EQ(l.apply({inv.apply({x})[0]}), Basis({x}));
    }
    EXPECT_EQ(l.compose(inv),
              LinearLayout::identity1D(int64_t(1) << bits, "offset", "offset"));
    EXPECT_EQ(inv.invert(), l);
  }
}

TEST_F(LinearLayoutTest, PseudoInverseOfReplicatedLayout) {
  // A layout with replication (zero and repeated bases) is surjective, not
  // injective: its right inverse picks the preimage with free bits zero.
  LinearLayout::InDim reg{"register", {{1, 0}, {0, 1}}};
  LinearLayout::InDim lane{"lane", {{0, 0}, {2, 0}, {0, 2}, {1, 0}}};
  LinearLayout l({reg, lane}, {{"dim0", 4}, {"dim1", 4}});
  ASSERT_TRUE(l.isSurjective());
  ASSERT_FALSE(l.isInjective());
  LinearLayout p = l.pseudoInvert();
  EXPECT_EQ(p.getInDimNames(), SmallVector<StringRef>({"dim0", "dim1"}));
  EXPECT_EQ(p.getOutDimNames(), SmallVector<StringRef>({"register", "lane"}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      Basis hw = p.apply({i, j});
      EXPECT_EQ(l.apply(hw), Basis({i, j}));
      // Lane bits 0 (replicated) and 3 (a repeat of register bit 0) free.
      EXPECT_EQ(hw[1] & 0b1001, 0);
    }
}

TEST_F(LinearLayoutTest, InvertAndCompose) {
  // this: X -> Y and other: Z -> Y; the result C: X -> Z has
  // other(C(x)) == this(x) for every x.
  std::mt19937 rng(3);
  LinearLayout a = LinearLayout::identity1D(4, "register", "dim0") *
                   LinearLayout::identity1D(16, "lane", "dim1") *
                   LinearLayout::identity1D(2, "lane", "dim0");
  LinearLayout b = LinearLayout::identity1D(8, "lane", "dim0") *
                   LinearLayout::identity1D(16, "register", "dim1");
  // Same output dimensions in the same order, as the layouts of a tile.
  LinearLayout bT({{"lane", SmallVector<Basis>(b.getBases("lane"))},
                   {"register", SmallVector<Basis>(b.getBases("register"))}},
                  {{"dim0", 8}, {"dim1", 16}});
  std::optional<LinearLayout> c = a.invertAndCompose(bT);
  ASSERT_TRUE(c);
  for (int64_t x = 0; x < totalInputs(a); ++x)
    EXPECT_EQ(bT.apply(c->apply(unflatten(a, x))), a.apply(unflatten(a, x)));
  // Not contained in the image: nullopt.
  LinearLayout small = LinearLayout::identity1D(4, "lane", "dim0") *
                       LinearLayout::identity1D(16, "register", "dim1");
  LinearLayout smallWide(
      {{"lane", SmallVector<Basis>(small.getBases("lane"))},
       {"register", SmallVector<Basis>(small.getBases("register"))}},
      {{"dim0", 8}, {"dim1", 16}});
  EXPECT_FALSE(a.invertAndCompose(smallWide));
}

TEST_F(LinearLayoutTest, Print) {
  LinearLayout l({{"register", {{0, 1}}}, {"lane", {{1, 0}, {2, 0}}}},
                 {{"dim0", 4}, {"dim1", 2}});
  EXPECT_EQ(l.str(), "register = [(0, 1)], lane = [(1, 0), (2, 0)] -> "
                     "dim0 = 4, dim1 = 2");
}

//===----------------------------------------------------------------------===//
// The layout attributes
//===----------------------------------------------------------------------===//

/// The element of (r, lane, w) in a blocked layout, by the definition in
/// TileAttrs.td: per dimension, sizePerThread elements, threadsPerWarp
/// lanes, warpsPerCTA warps (lanes and warps numbered along `order`),
/// registers first within a thread's block then over repetitions, wrapped
/// into the shape.
Basis blockedFormula(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                     ArrayRef<unsigned> wpc, ArrayRef<unsigned> order,
                     ArrayRef<int64_t> shape, int64_t r, int64_t lane,
                     int64_t w) {
  unsigned rank = shape.size();
  Basis inBlock(rank), laneC(rank), warpC(rank), rep(rank), c(rank);
  for (unsigned d : order) {
    inBlock[d] = r % spt[d];
    r /= spt[d];
  }
  for (unsigned d : order) {
    int64_t block = int64_t(spt[d]) * tpw[d] * wpc[d];
    int64_t reps = std::max<int64_t>(1, shape[d] / block);
    rep[d] = r % reps;
    r /= reps;
  }
  for (unsigned d : order) {
    laneC[d] = lane % tpw[d];
    lane /= tpw[d];
    warpC[d] = w % wpc[d];
    w /= wpc[d];
  }
  for (unsigned d = 0; d < rank; ++d)
    c[d] = (inBlock[d] +
            spt[d] * (laneC[d] + tpw[d] * (warpC[d] + wpc[d] * rep[d]))) %
           shape[d];
  return c;
}

TEST_F(LinearLayoutTest, BlockedElementPositions) {
  struct Case {
    SmallVector<unsigned> spt, tpw, wpc, order;
    SmallVector<int64_t> shape;
  };
  std::vector<Case> cases = {
      {{1, 8}, {4, 8}, {4, 1}, {1, 0}, {64, 64}},
      {{1, 8}, {4, 8}, {4, 1}, {1, 0}, {128, 32}},
      {{4, 1}, {8, 4}, {1, 2}, {0, 1}, {32, 64}},
      {{2, 2}, {2, 16}, {2, 2}, {0, 1}, {16, 128}},
      {{1}, {32}, {4}, {0}, {1024}},
      {{1, 1, 4}, {1, 4, 8}, {2, 1, 2}, {2, 1, 0}, {2, 8, 64}},
  };
  for (const Case &c : cases) {
    auto attr = blocked(c.spt, c.tpw, c.wpc, c.order);
    LinearLayout l = toLinearLayout(attr, c.shape);
    EXPECT_EQ(getNumWarps(attr), l.getNumWarps());
    EXPECT_EQ(getLayoutRank(attr), c.shape.size());
    for (int64_t r = 0; r < l.getNumRegs(); ++r)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t w = 0; w < l.getNumWarps(); ++w)
          ASSERT_EQ(
              at(l, r, lane, w),
              blockedFormula(c.spt, c.tpw, c.wpc, c.order, c.shape, r, lane, w))
              << l.str() << " at r=" << r << " lane=" << lane << " w=" << w;
  }
}

TEST_F(LinearLayoutTest, BlockedCoversTileOnce) {
  // Without replication every element is held by exactly one (r, l, w).
  LinearLayout l = toLinearLayout(blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}),
                                  SmallVector<int64_t>{64, 64});
  EXPECT_TRUE(l.isInvertible());
  // A tile smaller than the layout's block: replicated, still surjective.
  LinearLayout small = toLinearLayout(blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}),
                                      SmallVector<int64_t>{8, 16});
  EXPECT_TRUE(small.isSurjective());
  EXPECT_FALSE(small.isInjective());
}

/// mma.sync.m16n8k16 accumulator (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16", c0..c3): row groupID (+8 for c2, c3), column
/// threadID_in_group * 2 + (i & 1); warp (wi, wj) at (16 wi, 8 wj); blocks
/// repeated along N, then M.
Basis mmaAccFormula(unsigned wm, unsigned wn, ArrayRef<int64_t> shape,
                    int64_t r, int64_t lane, int64_t w) {
  int64_t i = r % 4, rest = r / 4;
  int64_t colReps = std::max<int64_t>(1, shape[1] / (8 * wn));
  int64_t colRep = rest % colReps, rowRep = rest / colReps;
  int64_t wi = w % wm, wj = w / wm;
  int64_t row = 16 * wi + lane / 4 + 8 * (i / 2) + 16 * wm * rowRep;
  int64_t col = 8 * wj + (lane % 4) * 2 + (i % 2) + 8 * wn * colRep;
  return {row % shape[0], col % shape[1]};
}

TEST_F(LinearLayoutTest, MmaElementPositions) {
  for (auto [wm, wn] : {std::pair{4u, 1u}, {2u, 2u}, {1u, 4u}, {8u, 1u}})
    for (SmallVector<int64_t> shape :
         {SmallVector<int64_t>{64, 64}, {128, 64}, {64, 128}, {128, 32}}) {
      LinearLayout l = toLinearLayout(mma(wm, wn), shape);
      EXPECT_EQ(l.getNumWarps(), wm * wn);
      for (int64_t r = 0; r < l.getNumRegs(); ++r)
        for (int64_t lane = 0; lane < 32; ++lane)
          for (int64_t w = 0; w < wm * wn; ++w)
            ASSERT_EQ(at(l, r, lane, w),
                      mmaAccFormula(wm, wn, shape, r, lane, w))
                << "warps " << wm << "x" << wn << " at r=" << r;
    }
}

TEST_F(LinearLayoutTest, DotOperandElementPositions) {
  unsigned wm = 4, wn = 2;
  SmallVector<int64_t> shapeA = {64, 32}, shapeB = {32, 64};
  auto a = DotOperandLayoutAttr::get(&ctx, 0, mma(wm, wn));
  auto b = DotOperandLayoutAttr::get(&ctx, 1, mma(wm, wn));
  EXPECT_EQ(getNumWarps(a), 8u);
  LinearLayout la = toLinearLayout(a, shapeA);
  LinearLayout lb = toLinearLayout(b, shapeB);
  // A (PTX a0..a7): row groupID (+8 for a2, a3, a6, a7), column
  // threadID_in_group * 2 + (i & 1) (+8 for a4..a7); warp wi at row 16 wi,
  // every wj the same; blocks of 16 x 16 repeated along K, then M.
  for (int64_t r = 0; r < la.getNumRegs(); ++r)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t w = 0; w < 8; ++w) {
        int64_t i = r % 8, rest = r / 8, kReps = shapeA[1] / 16;
        int64_t row = 16 * (w % wm) + lane / 4 + 8 * ((i >> 1) & 1) +
                      16 * wm * (rest / kReps);
        int64_t col =
            (lane % 4) * 2 + (i & 1) + 8 * (i >> 2) + 16 * (rest % kReps);
        ASSERT_EQ(at(la, r, lane, w), Basis({row, col})) << "r=" << r;
      }
  // B (PTX b0..b3): row (k) threadID_in_group * 2 + (i & 1) (+8 for b2,
  // b3), column groupID; warp wj at column 8 wj, every wi the same; blocks
  // of 16 x 8 repeated along K, then N.
  for (int64_t r = 0; r < lb.getNumRegs(); ++r)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t w = 0; w < 8; ++w) {
        int64_t i = r % 4, rest = r / 4, kReps = shapeB[0] / 16;
        int64_t row =
            (lane % 4) * 2 + (i & 1) + 8 * (i >> 1) + 16 * (rest % kReps);
        int64_t col = 8 * (w / wm) + lane / 4 + 8 * wn * (rest / kReps);
        ASSERT_EQ(at(lb, r, lane, w), Basis({row, col})) << "r=" << r;
      }
}

TEST_F(LinearLayoutTest, SliceHoldsTheParentsRows) {
  // slice<dim = 1> of an mma layout: each thread holds the rows it holds in
  // the parent, once each.
  auto parent = mma(4, 1);
  auto slice = SliceLayoutAttr::get(&ctx, 1, parent);
  EXPECT_EQ(getLayoutRank(slice), 1u);
  EXPECT_EQ(getNumWarps(slice), 4u);
  LinearLayout p = toLinearLayout(parent, SmallVector<int64_t>{128, 64});
  LinearLayout s = toLinearLayout(slice, SmallVector<int64_t>{128});
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t w = 0; w < 4; ++w) {
      std::set<int64_t> want, got;
      for (int64_t r = 0; r < p.getNumRegs(); ++r)
        want.insert(at(p, r, lane, w)[0]);
      for (int64_t r = 0; r < s.getNumRegs(); ++r)
        got.insert(at(s, r, lane, w)[0]);
      EXPECT_EQ(got, want);
      EXPECT_EQ(got.size(), size_t(s.getNumRegs()));
    }
  // A slice of a slice: a rank-0 row of... rank 1 -> the parent's rank - 2.
  auto blocked3 = blocked({1, 1, 4}, {1, 4, 8}, {2, 1, 2}, {2, 1, 0});
  auto s2 =
      SliceLayoutAttr::get(&ctx, 0, SliceLayoutAttr::get(&ctx, 2, blocked3));
  EXPECT_EQ(getLayoutRank(s2), 1u);
  LinearLayout l2 = toLinearLayout(s2, SmallVector<int64_t>{8});
  EXPECT_TRUE(l2.isSurjective());
}

//===----------------------------------------------------------------------===//
// Shared memory layouts
//===----------------------------------------------------------------------===//

/// The element offset of `coords` in a #tile.shared buffer (the formula of
/// the lowering's sharedOffset): with `block`, blocks of `block` columns one
/// after the other, each holding the rows of the 2-D tile; past order[1],
/// whole tiles stacked.
int64_t sharedFormula(ArrayRef<int64_t> shape, unsigned vec, unsigned perPhase,
                      unsigned maxPhase, ArrayRef<unsigned> order,
                      unsigned block, ArrayRef<int64_t> coords) {
  unsigned f = order[0];
  int64_t rows = order.size() > 1 ? shape[order[1]] : 1;
  int64_t row2 = order.size() > 1 ? coords[order[1]] : 0;
  int64_t outer = 0, scale = 1;
  for (unsigned i = 2; i < order.size(); ++i) {
    outer += coords[order[i]] * scale;
    scale *= shape[order[i]];
  }
  int64_t row = outer * rows + row2;
  int64_t phase = (row / perPhase) % maxPhase;
  int64_t col = coords[f] ^ (phase * vec);
  int64_t width = block ? block : shape[f];
  return outer * rows * shape[f] + (col / width) * rows * width + row2 * width +
         col % width;
}

/// Every coordinate of `shape`, row-major.
SmallVector<Basis> allCoords(ArrayRef<int64_t> shape) {
  SmallVector<Basis> all;
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  for (int64_t x = 0; x < n; ++x) {
    Basis c(shape.size());
    int64_t rest = x;
    for (int d = shape.size() - 1; d >= 0; --d) {
      c[d] = rest % shape[d];
      rest /= shape[d];
    }
    all.push_back(c);
  }
  return all;
}

TEST_F(LinearLayoutTest, SwizzledSharedLayout) {
  struct Case {
    SmallVector<int64_t> shape;
    unsigned vec, perPhase, maxPhase;
    SmallVector<unsigned> order;
    unsigned block;
  };
  std::vector<Case> cases = {
      {{64, 64}, 8, 1, 8, {1, 0}, 0}, // f16, 128-byte rows
      {{64, 32}, 8, 2, 4, {1, 0}, 0}, // f16, 64-byte rows
      {{32, 16}, 8, 4, 2, {1, 0}, 0}, // f16, 32-byte rows
      {{32, 64}, 4, 1, 8, {0, 1}, 0}, // f32, column-major
      {{16, 8}, 1, 1, 1, {1, 0}, 0},  // plain row-major
      {{2, 16, 64}, 8, 1, 8, {2, 1, 0}, 0},
      {{64, 128}, 8, 1, 8, {1, 0}, 64}, // blocks of 64 columns
      {{128, 64}, 8, 1, 8, {0, 1}, 64},
      {{64, 64}, 8, 2, 4, {1, 0}, 32},
      {{2, 16, 128}, 8, 1, 8, {2, 1, 0}, 64}, // stacked tiles
      {{4, 8, 64}, 8, 2, 4, {2, 0, 1}, 32},
  };
  for (const Case &c : cases) {
    auto attr = SharedLayoutAttr::get(&ctx, c.vec, c.perPhase, c.maxPhase,
                                      c.order, c.block);
    LinearLayout l = cast<SharedLayoutInterface>(attr).toLinearLayout(
        c.shape, Float16Type::get(&ctx));
    EXPECT_EQ(l.getInDimNames(), SmallVector<StringRef>({"offset"}));
    ASSERT_TRUE(l.isInvertible()) << l.str();
    LinearLayout inv = cast<SharedLayoutInterface>(attr).toOffsetLayout(
        c.shape, Float16Type::get(&ctx));
    for (const Basis &coords : allCoords(c.shape)) {
      int64_t offset = sharedFormula(c.shape, c.vec, c.perPhase, c.maxPhase,
                                     c.order, c.block, coords);
      ASSERT_EQ(inv.apply(coords), Basis({offset})) << l.str();
      ASSERT_EQ(l.apply({offset}), coords) << l.str();
    }
  }
}

/// The element offset of `coords` in a 2-D buffer that TMA filled with a
/// swizzle of `swizzle` bytes, one copy per `swizzle`-byte wide block of
/// columns, the blocks one after the other: byte offset bits 4.. XOR-ed
/// with bits 7.. (CU_TENSOR_MAP_SWIZZLE_128B/64B/32B; CUTLASS's
/// Swizzle<3,4,3>, <2,4,3>, <1,4,3>), from a 1024-byte aligned base.
int64_t tmaFormula(ArrayRef<int64_t> shape, unsigned swizzle, unsigned eltBytes,
                   ArrayRef<unsigned> order, ArrayRef<int64_t> coords) {
  unsigned f = order[0], s = order[1];
  int64_t rows = shape[s], row = coords[s];
  int64_t width = swizzle / eltBytes;
  int64_t block = coords[f] / width, col = coords[f] % width;
  int64_t bytes = ((block * rows + row) * width + col) * eltBytes;
  int64_t mask = swizzle / 16 - 1;
  bytes ^= ((bytes >> 7) & mask) << 4;
  return bytes / eltBytes;
}

TEST_F(LinearLayoutTest, SharedLayoutsAreWhatTmaWrites) {
  // #tile.shared with 16-byte vectors, block = swizzle bytes, maxPhase =
  // swizzle / 16 and perPhase = 128 / swizzle is TMA's swizzle.
  struct Case {
    SmallVector<int64_t> shape;
    unsigned swizzle, eltBytes;
    SmallVector<unsigned> order;
  };
  std::vector<Case> cases = {
      {{64, 64}, 128, 2, {1, 0}},  {{128, 64}, 128, 2, {1, 0}},
      {{64, 128}, 128, 2, {1, 0}}, {{64, 128}, 128, 2, {0, 1}},
      {{64, 32}, 64, 2, {1, 0}},   {{64, 64}, 64, 2, {1, 0}},
      {{64, 16}, 32, 2, {1, 0}},   {{32, 64}, 32, 2, {1, 0}},
      {{64, 32}, 128, 4, {1, 0}},  {{16, 64}, 64, 4, {1, 0}},
  };
  for (const Case &c : cases) {
    unsigned vec = 16 / c.eltBytes, maxPhase = c.swizzle / 16;
    unsigned perPhase = 128 / c.swizzle, block = c.swizzle / c.eltBytes;
    auto attr =
        SharedLayoutAttr::get(&ctx, vec, perPhase, maxPhase, c.order, block);
    Type elt = c.eltBytes == 2 ? Type(Float16Type::get(&ctx))
                               : Type(Float32Type::get(&ctx));
    EXPECT_EQ(attr.getHopperSwizzleBytes(c.eltBytes), c.swizzle);
    LinearLayout inv =
        cast<SharedLayoutInterface>(attr).toOffsetLayout(c.shape, elt);
    for (const Basis &coords : allCoords(c.shape))
      ASSERT_EQ(
          inv.apply(coords),
          Basis({tmaFormula(c.shape, c.swizzle, c.eltBytes, c.order, coords)}))
          << "swizzle " << c.swizzle << ": " << attrStr(attr);
  }
  // The 128-byte swizzle of f16 rows of 64: the 16-byte chunk of row r is
  // chunk ^ (r % 8), 8 elements each.
  auto attr = SharedLayoutAttr::get(&ctx, 8, 1, 8, {1, 0}, 64);
  LinearLayout inv = cast<SharedLayoutInterface>(attr).toOffsetLayout(
      SmallVector<int64_t>{64, 64}, Float16Type::get(&ctx));
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t chunk = 0; chunk < 8; ++chunk)
      EXPECT_EQ(inv.apply({r, 8 * chunk + 3}),
                Basis({64 * r + 8 * (chunk ^ (r % 8)) + 3}));
}

TEST_F(LinearLayoutTest, BuffersAtTheirOwnSize) {
  // getTileExtentBytes: every element of the tile's own shape lies below
  // it (its address by the layout's offset form), and it is at most the
  // padded storage; only the layout's highest address digit is cut.
  struct Case {
    SmallVector<int64_t> shape;
    SmallVector<unsigned> order;
    unsigned vec, perPhase, maxPhase, block, eltBytes;
    int64_t bytes;
  };
  std::vector<Case> cases = {
      // 3 of 4 blocks of 64 columns, 64 rows each.
      {{64, 160}, {1, 0}, 8, 1, 8, 64, 2, 3 * 64 * 128},
      // One block: 160 of 256 rows.
      {{160, 64}, {1, 0}, 8, 1, 8, 64, 2, 160 * 128},
      // 96 along the blocks: 2 of 2 blocks, nothing to cut.
      {{96, 64}, {0, 1}, 8, 1, 8, 64, 2, 64 * 128 * 2},
      // Rows in eights: 6 rows take 8.
      {{6, 64}, {1, 0}, 8, 1, 8, 64, 2, 8 * 128},
      // 64-byte swizzle: 40 of 64 rows of 64 bytes, a multiple of its
      // 512-byte pattern.
      {{40, 32}, {1, 0}, 8, 2, 4, 32, 2, 40 * 64},
      // Stacked tiles: 3 of 4 tiles of 64 x 256 padded columns.
      {{3, 64, 160}, {2, 1, 0}, 8, 1, 8, 64, 2, 3 * 64 * 256 * 2},
      // No swizzle, f32: 104 of 128 rows of 64 padded columns.
      {{100, 48}, {1, 0}, 1, 1, 1, 0, 4, 104 * 64 * 4},
      // A power of two: unchanged.
      {{64, 64}, {1, 0}, 8, 1, 8, 64, 2, 64 * 128},
      // One dimension: 640 f32 of 1024.
      {{640}, {0}, 4, 1, 1, 0, 4, 640 * 4},
  };
  for (const Case &c : cases) {
    auto attr = SharedLayoutAttr::get(&ctx, c.vec, c.perPhase, c.maxPhase,
                                      c.order, c.block);
    Type elt = c.eltBytes == 2 ? Type(Float16Type::get(&ctx))
                               : Type(Float32Type::get(&ctx));
    auto type = SharedMemoryType::get(&ctx, c.shape, elt, attr);
    std::string name;
    llvm::raw_string_ostream(name) << type;
    int64_t bytes = getTileExtentBytes(type);
    EXPECT_EQ(bytes, c.bytes) << name;
    EXPECT_LE(bytes, getSharedBytes(type)) << name;
    EXPECT_EQ(bytes % getSharedAlignment(type), 0) << name;
    LinearLayout inv =
        cast<SharedLayoutInterface>(attr).toOffsetLayout(c.shape, elt);
    int64_t highest = 0;
    for (const Basis &coords : allCoords(c.shape))
      highest = std::max(highest, inv.apply(coords)[0]);
    EXPECT_LT(highest * c.eltBytes, bytes) << name;
  }
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// The map of a conversion sends every destination location to a source
/// location of the same element.
void expectMapHoldsElements(const LinearLayout &src, const LinearLayout &dst,
                            const LayoutConversion &cvt) {
  for (int64_t x = 0; x < totalInputs(dst); ++x) {
    SmallVector<int64_t> in = unflatten(dst, x);
    ASSERT_EQ(src.apply(cvt.map.apply(in)), dst.apply(in));
  }
}

TEST_F(LinearLayoutTest, ConversionIdentity) {
  LinearLayout l = toLinearLayout(mma(4, 1), SmallVector<int64_t>{64, 64});
  auto cvt = getConversion(l, l);
  ASSERT_TRUE(cvt);
  EXPECT_EQ(cvt->kind, ConversionKind::Registers);
  ASSERT_TRUE(cvt->registerMap);
  for (unsigned r = 0; r < l.getNumRegs(); ++r)
    EXPECT_EQ((*cvt->registerMap)[r], r);
}

TEST_F(LinearLayoutTest, ConversionAccumulatorToOperandA) {
  // The accumulator of one mma is the A operand of the next (P * V): no
  // data moves, registers are renamed.
  SmallVector<int64_t> shape = {64, 64};
  LinearLayout acc = toLinearLayout(mma(4, 1), shape);
  LinearLayout opA =
      toLinearLayout(DotOperandLayoutAttr::get(&ctx, 0, mma(4, 1)), shape);
  auto cvt = getConversion(acc, opA);
  ASSERT_TRUE(cvt);
  EXPECT_EQ(cvt->kind, ConversionKind::Registers);
  ASSERT_TRUE(cvt->registerMap);
  expectMapHoldsElements(acc, opA, *cvt);
  for (unsigned r = 0; r < opA.getNumRegs(); ++r)
    EXPECT_EQ(acc.regCoords((*cvt->registerMap)[r]), opA.regCoords(r));
  // The same answer as the lowering's test.
  EXPECT_TRUE(acc.sameThreadMapping(opA));
}

TEST_F(LinearLayoutTest, ConversionWithinAWarp) {
  // One warp, two thread arrangements: lanes exchange data.
  SmallVector<int64_t> shape = {16, 32};
  LinearLayout a =
      toLinearLayout(blocked({1, 4}, {8, 4}, {1, 1}, {1, 0}), shape);
  LinearLayout b =
      toLinearLayout(blocked({1, 4}, {4, 8}, {1, 1}, {1, 0}), shape);
  auto cvt = getConversion(a, b);
  ASSERT_TRUE(cvt);
  EXPECT_EQ(cvt->kind, ConversionKind::WarpShuffle);
  EXPECT_FALSE(cvt->registerMap);
  expectMapHoldsElements(a, b, *cvt);
  // Source and destination map each element to one lane of the same warp.
  for (int64_t x = 0; x < totalInputs(b); ++x) {
    SmallVector<int64_t> in = unflatten(b, x);
    EXPECT_EQ(cvt->map.apply(in)[2], in[2]); // the warp
  }
}

TEST_F(LinearLayoutTest, ConversionAcrossWarps) {
  SmallVector<int64_t> shape = {64, 64};
  LinearLayout ld =
      toLinearLayout(blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}), shape);
  LinearLayout acc = toLinearLayout(mma(4, 1), shape);
  auto cvt = getConversion(ld, acc);
  ASSERT_TRUE(cvt);
  EXPECT_EQ(cvt->kind, ConversionKind::SharedMemory);
  expectMapHoldsElements(ld, acc, *cvt);
}

TEST_F(LinearLayoutTest, ConversionIntoReplication) {
  // Into a layout that replicates over warps: each warp needs the elements
  // of the others.
  SmallVector<int64_t> shape = {64, 32};
  LinearLayout acc = toLinearLayout(mma(4, 1), shape);
  LinearLayout opB =
      toLinearLayout(DotOperandLayoutAttr::get(&ctx, 1, mma(4, 1)),
                     SmallVector<int64_t>{64, 32});
  auto cvt = getConversion(acc, opB);
  ASSERT_TRUE(cvt);
  EXPECT_EQ(cvt->kind, ConversionKind::SharedMemory);
  expectMapHoldsElements(acc, opB, *cvt);
  // From a replicated layout to one of its own threads' elements: the warp
  // replication in B is free (every warp holds all of it).
  auto back = getConversion(opB, opB);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, ConversionKind::Registers);
}

TEST_F(LinearLayoutTest, ConversionOfDifferentShapes) {
  LinearLayout a = toLinearLayout(mma(4, 1), SmallVector<int64_t>{64, 64});
  LinearLayout b = toLinearLayout(mma(4, 1), SmallVector<int64_t>{64, 32});
  EXPECT_FALSE(getConversion(a, b));
}

TEST_F(LinearLayoutTest, SubTilesHeldByEveryThread) {
  // Where subTileRegs finds a sub-tile's registers, every thread holds its
  // elements there (not only thread 0, where the match is made): the sub-
  // tile's element at (r, lane, warp) plus the offsets is the tile's at
  // (regs[r], lane, warp). Offsets need not be multiples of the sub-tile's
  // shape: a 152-column accumulator's parts of 40 at 112 and of 80 at 72
  // (tile-convert-stores-to-tma's overlapping last parts).
  SmallVector<Attribute> layouts = {mma(4, 1), mma(8, 1), mma(2, 2),
                                    blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}),
                                    blocked({1, 2}, {8, 4}, {2, 2}, {1, 0})};
  int found = 0;
  for (Attribute layout : layouts)
    for (int64_t rows : {64, 128})
      for (int64_t cols : {152, 128}) {
        SmallVector<int64_t> shape = {rows, cols};
        LinearLayout src = toLinearLayout(layout, shape);
        for (int64_t width : {8, 16, 24, 40, 64, 80})
          for (int64_t off = 0; off + width <= cols; off += 4) {
            SmallVector<int64_t> subShape = {rows, width};
            LinearLayout sub = toLinearLayout(layout, subShape);
            auto regs = src.subTileRegs(sub, {0, off});
            if (!regs)
              continue;
            ++found;
            for (int64_t r = 0; r < sub.getNumRegs(); ++r)
              for (int64_t lane = 0; lane < 32; ++lane)
                for (int64_t w = 0; w < sub.getNumWarps(); ++w) {
                  Basis e = at(sub, r, lane, w);
                  e[1] += off;
                  ASSERT_EQ(e, at(src, (*regs)[r], lane, w))
                      << attrStr(layout) << " " << rows << "x" << cols
                      << " part " << width << " at " << off;
                }
          }
      }
  EXPECT_GT(found, 0);
  LinearLayout acc = toLinearLayout(mma(8, 1), SmallVector<int64_t>{256, 152});
  EXPECT_TRUE(acc.subTileRegs(
      toLinearLayout(mma(8, 1), SmallVector<int64_t>{256, 40}), {0, 112}));
  EXPECT_TRUE(acc.subTileRegs(
      toLinearLayout(mma(8, 1), SmallVector<int64_t>{256, 80}), {0, 72}));
  // Rows that one warpgroup holds alone are not held by every thread.
  EXPECT_FALSE(acc.subTileRegs(
      toLinearLayout(mma(8, 1), SmallVector<int64_t>{64, 152}), {64, 0}));
  // A lane basis that mixes bits (6: as a #tile.linear may have): 16
  // columns, thread 0 holding 0-3 and 8-11, lane 1 those XOR 6. The part of
  // 8 at column 2 is in thread 0's registers (2, 3), but lane 1's (6, 7)
  // would be 8 and 9, which lane 1 does not hold.
  auto layout1D = [](ArrayRef<int64_t> regs, int64_t size) {
    SmallVector<LinearLayout::InDim> ins = {{kReg.str(), {}},
                                            {kLane.str(), {{0, 6}}}};
    for (int64_t r : regs)
      ins[0].bases.push_back({0, r});
    return LinearLayout(ins, {{"dim0", 1}, {"dim1", size}});
  };
  LinearLayout mixed = layout1D({1, 2, 8}, 16);
  EXPECT_FALSE(mixed.subTileRegs(layout1D({1}, 8), {0, 2}));
  EXPECT_TRUE(mixed.subTileRegs(layout1D({1}, 8), {0, 8}));
}

TEST_F(LinearLayoutTest, ConversionAgreesWithTheLowering) {
  // Where the lowering renames registers (same lanes and warps, every
  // register found), getConversion says Registers with the same mapping.
  SmallVector<int64_t> shape = {64, 64};
  SmallVector<Attribute> layouts = {
      mma(4, 1),
      mma(2, 2),
      DotOperandLayoutAttr::get(&ctx, 0, mma(4, 1)),
      DotOperandLayoutAttr::get(&ctx, 1, mma(4, 1)),
      DotOperandLayoutAttr::get(&ctx, 0, mma(2, 2)),
      blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}),
      blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}),
      blocked({8, 1}, {8, 4}, {1, 4}, {0, 1}),
      blocked({1, 2}, {8, 4}, {4, 1}, {1, 0}),
  };
  for (Attribute s : layouts)
    for (Attribute d : layouts) {
      LinearLayout src = toLinearLayout(s, shape);
      LinearLayout dst = toLinearLayout(d, shape);
      auto cvt = getConversion(src, dst);
      ASSERT_TRUE(cvt);
      expectMapHoldsElements(src, dst, *cvt);
      bool lowering = src.sameThreadMapping(dst);
      for (unsigned r = 0; r < dst.getNumRegs() && lowering; ++r)
        lowering = src.findReg(dst.regCoords(r)).has_value();
      if (!lowering)
        continue;
      EXPECT_EQ(cvt->kind, ConversionKind::Registers)
          << attrStr(s) << " -> " << attrStr(d);
      ASSERT_TRUE(cvt->registerMap);
      for (unsigned r = 0; r < dst.getNumRegs(); ++r)
        EXPECT_EQ((*cvt->registerMap)[r], *src.findReg(dst.regCoords(r)));
    }
}

/// Runs `plan` on every warp as the lowering does (each round, each lane
/// sends the word its own lane bits pick and reads the lane the plan gives
/// it; the twist picks the registers a round fills) and checks that every
/// destination register gets the element `dst` puts there.
void expectPlanMovesElements(const LinearLayout &src, const LinearLayout &dst,
                             const WarpShufflePlan &plan) {
  unsigned lanes = 1u << dst.lanes().size();
  unsigned perWord = 1u << plan.packBits.size();
  unsigned rounds = 1u << plan.roundBits.size();
  ASSERT_LE(perWord * plan.elementBits, 32u);
  for (unsigned w = 0; w < dst.getNumWarps(); ++w) {
    // received[lane][round's register bits] = the word's elements.
    std::vector<std::map<uint64_t, SmallVector<Basis>>> received(lanes);
    for (unsigned i = 0; i < rounds; ++i) {
      uint64_t r0 = plan.roundRegs(i);
      uint64_t lane0 = plan.srcLaneOf(r0);
      uint64_t base = plan.srcRegOf(r0) ^ plan.sendRegOf(lane0);
      for (unsigned l = 0; l < lanes; ++l) {
        uint64_t from = plan.readsOwnLane(r0) ? l : lane0 ^ plan.readLaneOf(l);
        SmallVector<Basis> word;
        for (unsigned u = 0; u < perWord; ++u) {
          uint64_t reg =
              base ^ plan.srcRegOf(plan.packOffset(u)) ^ plan.sendRegOf(from);
          ASSERT_LT(reg, src.getNumRegs());
          word.push_back(at(src, reg, from, w));
        }
        received[l][r0] = word;
      }
    }
    for (unsigned l = 0; l < lanes; ++l)
      for (unsigned i = 0; i < rounds; ++i) {
        uint64_t r = plan.roundRegs(i);
        const SmallVector<Basis> &word = received[l][r ^ plan.twistOf(l)];
        for (unsigned u = 0; u < perWord; ++u) {
          uint64_t reg = r | plan.packOffset(u);
          ASSERT_EQ(word[u], at(dst, reg, l, w))
              << "register " << reg << ", lane " << l << ", warp " << w;
        }
      }
  }
}

TEST_F(LinearLayoutTest, ShufflesFromAccumulatorTo8BitOperandA) {
  // wgmma's f32 accumulator rounded to 8 bits, into the k32 A fragment of
  // the next multiply (FP8 attention's P): each quad's four lanes trade
  // pairs of elements; a 32-bit word (two pairs) per shuffle, four
  // shuffles per 32 columns, the sender's word and the receiver's
  // register picked by one lane bit each.
  for (auto [wm, rows, cols] :
       {std::tuple<unsigned, int64_t, int64_t>{4, 64, 128},
        {8, 128, 128},
        {4, 64, 64},
        {8, 128, 32}}) {
    auto parent =
        MmaLayoutAttr::get(&ctx, {wm, 1}, 3, {64, unsigned(cols), 16});
    SmallVector<int64_t> shape = {rows, cols};
    LinearLayout acc = toLinearLayout(parent, shape);
    LinearLayout opA =
        toLinearLayout(DotOperandLayoutAttr::get(&ctx, 0, parent, 4), shape);
    auto cvt = getConversion(acc, opA);
    ASSERT_TRUE(cvt);
    EXPECT_EQ(cvt->kind, ConversionKind::WarpShuffle);
    auto plan = getWarpShufflePlan(acc, opA, 8);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->packBits.size(), 2u);
    EXPECT_EQ(plan->numShuffles(), 4 * cols / 32);
    expectPlanMovesElements(acc, opA, *plan);
    // 16-bit elements need no shuffle (the kWidth-2 layout), and 32-bit
    // ones into the kWidth-4 layout move one element a word.
    auto wide = getWarpShufflePlan(acc, opA, 32);
    ASSERT_TRUE(wide);
    EXPECT_TRUE(wide->packBits.empty());
    expectPlanMovesElements(acc, opA, *wide);
  }
}

TEST_F(LinearLayoutTest, ShufflePlansMoveEveryElement) {
  // Every in-warp conversion between these layouts that has a plan moves
  // each element where the destination wants it; element widths change
  // how many travel in a word.
  SmallVector<int64_t> shape = {64, 64};
  SmallVector<Attribute> layouts = {
      mma(4, 1),
      DotOperandLayoutAttr::get(&ctx, 0, mma(4, 1)),
      DotOperandLayoutAttr::get(&ctx, 0, mma(4, 1), 4),
      blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}),
      blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}),
      blocked({2, 2}, {16, 2}, {4, 1}, {1, 0}),
      blocked({1, 1}, {16, 2}, {4, 1}, {1, 0}),
      blocked({4, 1}, {4, 8}, {4, 1}, {0, 1}),
  };
  unsigned plans = 0;
  for (Attribute s : layouts)
    for (Attribute d : layouts)
      for (unsigned bits : {8u, 16u, 32u}) {
        LinearLayout src = toLinearLayout(s, shape);
        LinearLayout dst = toLinearLayout(d, shape);
        auto plan = getWarpShufflePlan(src, dst, bits);
        auto cvt = getConversion(src, dst);
        if (!cvt || cvt->kind != ConversionKind::WarpShuffle) {
          EXPECT_FALSE(plan) << attrStr(s) << " -> " << attrStr(d);
          continue;
        }
        if (!plan)
          continue;
        ++plans;
        SCOPED_TRACE(attrStr(s) + " -> " + attrStr(d) + " at " +
                     std::to_string(bits) + " bits");
        expectPlanMovesElements(src, dst, *plan);
      }
  EXPECT_GE(plans, 20u);
}

// A tile whose dimensions are not powers of two is laid out over its padded
// shape; the registers past it in every thread are its padding.
TEST_F(LinearLayoutTest, PaddedShapes) {
  EXPECT_EQ(paddedShape({48, 96, 1, 3}), (SmallVector<int64_t>{64, 128, 1, 4}));
  EXPECT_TRUE(isPadded(ArrayRef<int64_t>{64, 96}));
  EXPECT_FALSE(isPadded(ArrayRef<int64_t>{64, 128, 1}));
  // wgmma-style accumulator of 64 x 96 over 4 warps: column blocks of 8 in
  // the registers (bits 2 up), so registers of columns 96..127 are padding
  // whatever the lane: 16 of 64.
  auto mma = MmaLayoutAttr::get(&ctx, {4, 1}, 3, {64, 96, 16});
  SmallVector<int64_t> shape = {64, 96};
  LinearLayout l = toLinearLayout(mma, shape);
  EXPECT_EQ(l.getShape(), (ArrayRef<int64_t>{64, 128}));
  EXPECT_EQ(countDataRegisters(l, shape), 48);
  for (unsigned r = 0; r < l.getNumRegs(); ++r)
    EXPECT_EQ(isPaddingRegister(l, shape, r), l.regCoords(r)[1] >= 96) << r;
  // Rows spread over lanes and warps: no register is padding in every
  // thread, though some threads hold only padding.
  auto b = blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  SmallVector<int64_t> rows = {40, 16};
  LinearLayout lb = toLinearLayout(b, rows);
  EXPECT_EQ(countDataRegisters(lb, rows), lb.getNumRegs());
}

// A reshape between shapes of powers of two keeps the row-major index:
// coordinates are the index's bits, split at other places. Another element
// count has no mapping (shapes that are not powers of two:
// ReshapeCoordsPadded).
TEST_F(LinearLayoutTest, ReshapeCoords) {
  SmallVector<int64_t> row = {4096}, parts = {32, 128}, cube = {4, 8, 128};
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{1000}, row, parts),
            (SmallVector<int64_t, 4>{7, 104}));
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{7, 104}, parts, row),
            (SmallVector<int64_t, 4>{1000}));
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{31, 127}, parts, cube),
            (SmallVector<int64_t, 4>{3, 7, 127}));
  // Linear on single bits: each bit of the source index lands on one bit.
  for (int64_t bit = 1; bit < 4096; bit *= 2) {
    auto c = *reshapeCoords(ArrayRef<int64_t>{bit}, row, parts);
    EXPECT_EQ(c[0] * 128 + c[1], bit);
    EXPECT_TRUE(llvm::isPowerOf2_64(c[0] + c[1]));
  }
  SmallVector<int64_t> other = {2048};
  EXPECT_FALSE(reshapeCoords(ArrayRef<int64_t>{0}, row, other));
}

// Shapes held padded: a reshape whose split or joined groups have powers of
// two in every dimension but the outermost maps coordinates in the padded
// shapes, where a valid element keeps its row-major index; one with a
// padded dimension inside a group does not.
TEST_F(LinearLayoutTest, ReshapeCoordsPadded) {
  SmallVector<int64_t> chunk = {2016}, groups = {252, 8}, rows = {1, 2016};
  EXPECT_TRUE(isBitReshape(chunk, groups));
  EXPECT_TRUE(isBitReshape(rows, groups));
  EXPECT_TRUE(isBitReshape(groups, chunk));
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{2015}, chunk, groups),
            (SmallVector<int64_t, 4>{251, 7}));
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{0, 1003}, rows, groups),
            (SmallVector<int64_t, 4>{125, 3}));
  // Groups on both sides: (3, 64) -> (24, 8) is one group, 64 and 8 its
  // inner powers of two; element (1, 5), index 69, is (8, 5).
  SmallVector<int64_t> a = {3, 64}, b = {24, 8};
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{1, 5}, a, b),
            (SmallVector<int64_t, 4>{8, 5}));
  // Two groups: (6, 8, 4) -> (48, 4) joins 6 and 8, keeps 4.
  SmallVector<int64_t> c = {6, 8, 4}, d = {48, 4};
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{5, 7, 3}, c, d),
            (SmallVector<int64_t, 4>{47, 3}));
  SmallVector<int64_t> padded = {48, 2}, flat = {96};
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{47, 1}, padded, flat),
            (SmallVector<int64_t, 4>{95}));
  // A padded dimension inside a group: (8, 252) would put element 252 at
  // (0, 252) of the padded (8, 256).
  SmallVector<int64_t> inner = {8, 252}, swapped = {2, 48};
  EXPECT_FALSE(isBitReshape(chunk, inner));
  EXPECT_FALSE(reshapeCoords(ArrayRef<int64_t>{0}, chunk, inner));
  EXPECT_FALSE(isBitReshape(swapped, flat));
  // Unit dimensions anywhere.
  SmallVector<int64_t> unit = {1, 252, 1, 8};
  EXPECT_TRUE(isBitReshape(chunk, unit));
  EXPECT_EQ(*reshapeCoords(ArrayRef<int64_t>{17}, chunk, unit),
            (SmallVector<int64_t, 4>{0, 2, 0, 1}));
}

/// tile::concatRegisters: where each input of a join is held by the
/// threads that hold its place in the result, every result register is
/// the input register holding the same element (checked element by element
/// through the layouts); a layout spanning the whole row splits the halves
/// across threads, and the join goes through shared memory (nullopt).
TEST_F(LinearLayoutTest, ConcatRegistersHoldEachInputInPlace) {
  auto f32 = Float32Type::get(&ctx);
  // Rotary embedding's halves: 8-element vectors on 8 lanes span 64 of
  // the 128 columns.
  auto half = blocked({1, 1, 8}, {1, 4, 8}, {1, 4, 1}, {2, 1, 0});
  SmallVector<int64_t> resultShape = {2, 32, 128}, inputShape = {2, 32, 64};
  auto result = RankedTensorType::get(resultShape, f32, half);
  auto input = RankedTensorType::get(inputShape, f32, half);
  auto from = concatRegisters(result, {input, input}, 2);
  ASSERT_TRUE(from.has_value());
  LinearLayout out = toLinearLayout(half, resultShape);
  LinearLayout in = toLinearLayout(half, inputShape);
  ASSERT_EQ(int64_t(from->size()), out.getNumRegs());
  for (int64_t r = 0; r < out.getNumRegs(); ++r) {
    auto [which, reg] = (*from)[r];
    ASSERT_GE(which, 0) << "register " << r << " held by no input";
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t w = 0; w < out.getNumWarps(); ++w) {
        Basis element = at(out, r, lane, w);
        Basis source = at(in, reg, lane, w);
        source[2] += which * 64;
        ASSERT_EQ(element, source) << "register " << r;
      }
  }
  // 16 lanes of 8 elements span all 128 columns: a thread holds columns of
  // one half only.
  auto row = blocked({1, 1, 8}, {1, 2, 16}, {1, 4, 1}, {2, 1, 0});
  EXPECT_FALSE(concatRegisters(RankedTensorType::get(resultShape, f32, row),
                               {RankedTensorType::get(inputShape, f32, row),
                                RankedTensorType::get(inputShape, f32, row)},
                               2)
                   .has_value());
}

} // namespace
