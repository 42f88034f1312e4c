//===- AssignLayouts.cpp - Give every tile a distributed layout -----------===//
//
// Layouts start at the ops that dictate them (loads: coalesced blocked
// layouts; mma: accumulator and operand layouts), flow forward through the
// ops that derive their result layout from their operands, and backward
// into values that are free to take any layout (constants, splats, aranges
// and what is computed from them alone). What is left gets a default blocked
// layout. Finally the types are rewritten and tile.convert_layout is
// inserted wherever a use needs another layout than its value has.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The axis of the one unit dimension a reshape inserts (a (K) tile viewed
/// as (1, K)), as tile.expand_dims does; none for other reshapes.
static std::optional<unsigned> insertedUnitAxis(ReshapeOp r) {
  ArrayRef<int64_t> src = r.getSource().getType().getShape();
  ArrayRef<int64_t> dst = r.getType().getShape();
  if (dst.size() != src.size() + 1)
    return std::nullopt;
  for (unsigned a = 0; a < dst.size(); ++a)
    if (dst[a] == 1 && dst.take_front(a) == src.take_front(a) &&
        dst.drop_front(a + 1) == src.drop_front(a))
      return a;
  return std::nullopt;
}

namespace {

bool isTileValue(Value v) { return isa<RankedTensorType>(v.getType()); }

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

unsigned elementBytes(Value v) {
  Type e = cast<RankedTensorType>(v.getType()).getElementType();
  return std::max(1u, e.getIntOrFloatBitWidth() / 8);
}

/// The view dimension of a rank-`rank` load or store with `order` that walks
/// the tensor's contiguous last dimension.
unsigned contiguousViewDim(unsigned rank,
                           std::optional<ArrayRef<int32_t>> order) {
  if (order)
    for (unsigned i = 0; i < order->size(); ++i)
      if (unsigned((*order)[i]) == rank - 1)
        return i;
  return rank - 1;
}

/// Element-wise ops: every tile operand and the result share one layout.
bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || isa<arith::SelectOp>(op);
}

/// Higher wins when an element-wise op meets operands in several layouts:
/// computing in the accumulator's layout avoids moving the accumulator.
int priority(Attribute layout) {
  if (isa<MmaLayoutAttr>(layout))
    return 4;
  if (isa<DotOperandLayoutAttr>(layout))
    return 3;
  if (isa<SliceLayoutAttr>(layout))
    return 2;
  return 1;
}

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func, unsigned numWarps, unsigned vectorBytes,
                 bool wgmma)
      : func(func), ctx(func.getContext()), numWarps(numWarps),
        vectorBytes(vectorBytes), wgmma(wgmma),
        reducesMmaResults(reducesMmaResultsIn(func)) {}

  void run();

private:
  /// True when a tile.reduce of `func` reads (through any chain of ops) the
  /// result of a tile.mma.
  static bool reducesMmaResultsIn(func::FuncOp func);

  // Layout constructors.
  /// Lanes on the fastest dimensions first, warps on the slowest, except
  /// that warps go to the dimensions of `reduced` last (a reduction along
  /// them then stays within threads and warps, with no shared memory).
  /// `across` (with `acrossVec` > 1): a thread also holds that many
  /// consecutive elements along dimension `across`, and the lanes go to it
  /// first, `acrossLanes` of them.
  /// `contigSpan` (where not 0): a thread's elements and the lanes along
  /// `contigDim` span at most that many elements (the rest of the
  /// dimension in the same threads' other registers).
  BlockedLayoutAttr blocked(ArrayRef<int64_t> shape, unsigned contigDim,
                            unsigned vec, unsigned reduced = 0,
                            unsigned across = 0, unsigned acrossVec = 1,
                            unsigned acrossLanes = 1, int64_t contigSpan = 0);
  /// The dimension of a loaded `tile` that becomes the contiguous one where
  /// it is written back transposed (load, elementwise ops, a permute whose
  /// only users are stores): the tile's registers should then hold runs
  /// along it too, so that the transposed writes are vectors.
  static std::optional<unsigned> transposedStoreDim(Value tile);
  /// The dimensions (a bit each) along which `tile` is reduced: a
  /// tile.reduce reads it through ops that keep its shape (elementwise
  /// arithmetic, selects), within its block.
  static unsigned reducedDims(Value tile);
  /// Bytes of an element of the multiply's B operand that `tile` becomes
  /// through ops that keep its shape, where wider than `tile`'s (8-bit
  /// weights dequantized to 16 bits); 0 otherwise.
  static unsigned widerOperandBBytes(Value tile);
  /// The widest power of two that every slice of `tile` along `dim` (a
  /// tile.extract reading it through ops that keep its shape, at an offset
  /// that is a multiple of its size) spans a multiple of; 0 where none
  /// slices it along `dim`.
  static int64_t sliceWidth(Value tile, unsigned dim);
  /// The same for the tiles `tile` is joined from: a tile.concat along
  /// `dim` that it is computed from through ops that keep its shape.
  static int64_t joinWidth(Value tile, unsigned dim);
  /// Every thread holds every element: the boxes of a gathered load, which
  /// each thread (or the one that issues a TMA copy) reads whole.
  BlockedLayoutAttr replicated(ArrayRef<int64_t> shape);
  /// True when `v` (through reshapes) gives the boxes of a gathered load.
  static bool feedsBoxes(Value v);
  BlockedLayoutAttr defaultBlocked(ArrayRef<int64_t> shape) {
    return blocked(shape, shape.size() - 1, 1);
  }
  BlockedLayoutAttr loadLayout(Value tile,
                               std::optional<ArrayRef<int32_t>> order);
  /// For an atomic that returns the old values of `tile` (its lowering
  /// shares an element's old value among the lanes that hold it, not among
  /// warps): `current` where it holds no element in two warps, else a
  /// load's layout with vectors narrowed until the block's threads no more
  /// than cover the tile.
  Attribute oldValuesLayout(Value tile, Attribute current);
  /// The layout of the value a store writes: a load's, on the value's
  /// dimensions (those of the tile, or its non-unit ones with `shape`).
  BlockedLayoutAttr storeLayout(StoreOp store);
  /// The layout of an mma result of `shape` over a K of `k`; `bKMajor`:
  /// B's layout is known to run along K (a transposed row-major tile);
  /// `integer`: i8 operands (wgmma's N above 32 then a multiple of 16).
  MmaLayoutAttr mmaLayout(ArrayRef<int64_t> shape, int64_t k,
                          unsigned operandBytes, bool bKMajor,
                          bool integer = false);
  /// The blocked layout of a reshape's result that holds every element
  /// where the blocked operand held it (the reshape moves no data), when
  /// there is one: a reshape that adds or removes unit dimensions, or one
  /// that splits or joins dimensions that are powers of two.
  Attribute reshapeLayout(BlockedLayoutAttr src, ArrayRef<int64_t> srcShape,
                          ArrayRef<int64_t> dstShape);
  Attribute permuteLayout(BlockedLayoutAttr src, ArrayRef<int32_t> perm);
  /// For `concat` stacking tiles in `layout` (each of extent 1 along its
  /// axis, held there by one thread, warp and register; a power of two of
  /// them): `layout` with the axis in each thread's registers, fastest.
  /// Null otherwise.
  Attribute stackLayout(BlockedLayoutAttr layout, ConcatOp concat);
  /// For the first of a chain of views (reshapes and permutes, each the
  /// only use of the one before) of a tile in a layout other than a blocked
  /// one: when the use of the chain's last value needs a layout that holds
  /// every element in the thread the source holds it in (a register
  /// renaming: attention's 8-bit P with its columns permuted into the A
  /// operand's order), gives the views the source's elements where they
  /// are (#tile.linear layouts) and the last value the use's layout: no
  /// data moves. False when it does not apply (yet: the use's layout may
  /// come later).
  bool viewInPlace(Operation *first);
  Attribute expandLayout(Attribute src, unsigned axis, unsigned rank);

  bool set(Value v, Attribute layout) {
    if (!layout || layout_.count(v))
      return false;
    layout_[v] = layout;
    return true;
  }
  /// From a use: results of loops and branches take their layout from their
  /// regions only, and a reduction's from its source (the lowering leaves
  /// each result where the reduced source holds it); a use that wants
  /// another one gets a conversion.
  bool setFromUse(Value v, Attribute layout) {
    Operation *def = v.getDefiningOp();
    if (isa_and_present<scf::ForOp, scf::IfOp, scf::WhileOp, ReduceOp,
                        AtomicRMWOp, ScatterOp>(def))
      return false;
    // A vector loaded in a loop of multiplies takes a blocked layout only
    // (the pipeline copies such loads in their own layouts); offered
    // another, its chain is no vector: laid out from its load, as any.
    if (auto chain = blockedVectors_.find(v);
        chain != blockedVectors_.end() && !isa<BlockedLayoutAttr>(layout)) {
      bool erased = false;
      for (Value u : blockedChains_[chain->second])
        erased |= broadcastVectors_.erase(u);
      return erased;
    }
    // A reshape or permute moves no data: its result may take a use's
    // layout only when that maps back to a blocked layout of its source.
    // (One inserting a unit dimension into a vector only broadcast takes
    // any: its source then takes the slice along it, as an expand_dims's.)
    if (isa_and_present<ReshapeOp, PermuteOp>(def) &&
        !(isa<ReshapeOp>(def) &&
          broadcastVectors_.contains(def->getOperand(0)))) {
      auto b = dyn_cast_if_present<BlockedLayoutAttr>(layout);
      if (!b || (isa<ReshapeOp>(def) &&
                 !reshapeLayout(b, shapeOf(v), shapeOf(def->getOperand(0)))))
        return false;
    }
    return set(v, layout);
  }
  Attribute get(Value v) const { return layout_.lookup(v); }
  /// A loop's iteration value `arg`: its own layout (reached backward from
  /// a use), else what a trip yields for it, else (late_) its initial
  /// value's.
  Attribute iterationLayout(Value arg, Value yielded, Value init) const {
    Attribute l = get(arg);
    if (!l)
      l = get(yielded);
    if (!l && late_)
      l = get(init);
    return l;
  }

  bool forward(Operation *op);
  bool backward(Operation *op);
  /// The layout operand `i` of `op` must have; null when any will do.
  Attribute required(Operation *op, unsigned i);
  void materialize();

  func::FuncOp func;
  MLIRContext *ctx;
  unsigned numWarps, vectorBytes;
  bool wgmma;
  bool reducesMmaResults;
  DenseMap<Value, Attribute> layout_;
  /// The last round of propagation (run()), where layouts that the
  /// others leave to other ops come from where they would otherwise:
  ///  - a loop's iteration values from their initial values: not until
  ///    what the body yields has had its chance (an accumulator
  ///    initialized from a load keeps the multiply's layout around the
  ///    loop, the load converted once before it);
  ///  - a reshape or a permute of a tile in a layout other than a blocked
  ///    one (an mma result), or a reshape no blocked layout of whose
  ///    result holds the source's elements in place, gets a blocked one of
  ///    its own: not until its uses (a store's) have had theirs (an mma
  ///    result stored through a view was converted to the default layout,
  ///    then to the store's).
  bool late_ = false;
  /// Set after the first round (the second of three); until then
  ///  - an element-wise op with an operand that a loop (or an if) returns
  ///    and that is not placed yet waits: a loop's results are placed only
  ///    once its body is (the sweep visits the loop first), and would
  ///    otherwise lose to the other operands (C = A B + R with R loaded
  ///    after the loop computed in the load's layout, the 32-bit
  ///    accumulator converted rather than R);
  ///  - a store's layout does not reach the values it writes: it is a
  ///    preference that loses to the operands' layouts (the same sum
  ///    converted in the accumulator's layout, rounded, then converted to
  ///    the store's; or TMA-stored).
  bool partial_ = false;
  /// Vectors only broadcast (loaded, or aranges), and the values they flow
  /// through to the broadcasts (broadcastChain): their layouts come from
  /// the uses.
  DenseSet<Value> broadcastVectors_;
  /// Those of a loop of multiplies: only a blocked layout of their
  /// broadcasts' reaches them (a dequantizing GEMM's per-column scales,
  /// broadcast along K in a blocked tile), not an mma one.
  DenseMap<Value, unsigned> blockedVectors_; // -> its chain
  SmallVector<SmallVector<Value>> blockedChains_;
  void findBroadcastVectors();
  /// Tiles computed together element-wise from loads of the same shape
  /// (through casts and arithmetic: an optimizer step's f32 state and its
  /// 16-bit gradient) load and store a vector of the fewest elements any
  /// of those loads has (4 f32, so 4 bf16: 8 bytes), so that they share
  /// one layout; each load's own 16 bytes gave the 16-bit tile 8 elements
  /// a thread and every product of it a conversion through shared memory.
  /// The elements per vector of each such tile, keyed by value.
  DenseMap<Value, unsigned> sharedVector_;
  void findSharedVectors();
  /// For a view of a broadcast vector inserting a unit dimension into a
  /// slice along that dimension: the slice's parent (what the view's
  /// result holds, moving no data); null otherwise.
  Attribute sliceViewParent(ReshapeOp r) {
    auto slice = dyn_cast_if_present<SliceLayoutAttr>(get(r.getSource()));
    if (!slice || !broadcastVectors_.contains(r.getSource()) ||
        insertedUnitAxis(r) != slice.getDim())
      return {};
    return slice.getParent();
  }
};

} // namespace

/// Calls `visit` on each user of `tile` and of the values computed from it
/// in its block through ops that keep its shape (elementwise arithmetic,
/// casts, selects); a user `visit` takes (returns true for) is not followed.
static void
visitShapeKeepingUsers(Value tile,
                       llvm::function_ref<bool(Operation *)> visit) {
  auto type = dyn_cast<RankedTensorType>(tile.getType());
  if (!type)
    return;
  SmallVector<Value> work = {tile};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || seen.size() > 64)
      continue;
    for (Operation *user : v.getUsers()) {
      if (visit(user))
        continue;
      if (user->getNumResults() != 1 || user->getNumRegions() ||
          user->getBlock() != tile.getParentBlock())
        continue;
      auto result = dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (result && result.getShape() == type.getShape())
        work.push_back(user->getResult(0));
    }
  }
}

/// Whether `v` is computed from `from` through element-wise ops of its
/// shape (within a few ops).
static bool computedFrom(Value v, Value from, unsigned depth = 8) {
  if (v == from)
    return true;
  Operation *op = v.getDefiningOp();
  if (!op || !depth || !isElementwise(op))
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    return type && type.getShape() == shapeOf(v) &&
           computedFrom(operand, from, depth - 1);
  });
}

unsigned LayoutAssigner::widerOperandBBytes(Value tile) {
  unsigned bytes = 0;
  visitShapeKeepingUsers(tile, [&](Operation *user) {
    auto mma = dyn_cast<MmaOp>(user);
    if (!mma)
      return false;
    if (elementBytes(mma.getB()) > elementBytes(tile) &&
        computedFrom(mma.getB(), tile))
      bytes = std::max(bytes, elementBytes(mma.getB()));
    return true;
  });
  return bytes;
}

unsigned LayoutAssigner::reducedDims(Value tile) {
  unsigned dims = 0;
  visitShapeKeepingUsers(tile, [&](Operation *user) {
    auto reduce = dyn_cast<ReduceOp>(user);
    if (reduce)
      dims |= 1u << reduce.getAxis();
    return bool(reduce);
  });
  return dims;
}

/// The largest power of two dividing `x` (of a bitwise or of sizes: the
/// largest dividing each of them); 0 for 0.
static int64_t powerOfTwoFactor(uint64_t x) { return int64_t(x & (~x + 1)); }

int64_t LayoutAssigner::sliceWidth(Value tile, unsigned dim) {
  int64_t width = 0;
  visitShapeKeepingUsers(tile, [&](Operation *user) {
    auto e = dyn_cast<ExtractOp>(user);
    if (!e)
      return false;
    int64_t size = e.getType().getDimSize(dim);
    // Not sliced along `dim`, or at an offset that is not a multiple of the
    // slice (that one goes through shared memory in any layout).
    if (size == e.getSource().getType().getDimSize(dim) ||
        e.getOffsets()[dim] % size)
      return true;
    int64_t w = powerOfTwoFactor(uint64_t(size));
    width = width ? std::min(width, w) : w;
    return true;
  });
  return width;
}

int64_t LayoutAssigner::joinWidth(Value tile, unsigned dim) {
  auto type = dyn_cast<RankedTensorType>(tile.getType());
  for (Value v = tile; type;) {
    Operation *def = v.getDefiningOp();
    if (auto c = dyn_cast_if_present<ConcatOp>(def)) {
      if (c.getAxis() != dim)
        return 0;
      uint64_t all = 0;
      for (Value input : c.getInputs())
        all |=
            uint64_t(cast<RankedTensorType>(input.getType()).getDimSize(dim));
      return powerOfTwoFactor(all);
    }
    if (!def || def->getNumResults() != 1 || def->getNumRegions())
      return 0;
    // Through an op of the same shape with one tile operand (a cast).
    SmallVector<Value> tiles;
    for (Value operand : def->getOperands())
      if (isTileValue(operand))
        tiles.push_back(operand);
    if (tiles.size() != 1 ||
        cast<RankedTensorType>(tiles.front().getType()).getShape() !=
            type.getShape())
      return 0;
    v = tiles.front();
  }
  return 0;
}

BlockedLayoutAttr LayoutAssigner::blocked(ArrayRef<int64_t> tileShape,
                                          unsigned contigDim, unsigned vec,
                                          unsigned reduced, unsigned across,
                                          unsigned acrossVec,
                                          unsigned acrossLanes,
                                          int64_t contigSpan) {
  // Over the padded shape, as the layout will be; the contiguous dimension
  // to its span where one is given.
  SmallVector<int64_t> shape = paddedShape(tileShape);
  if (contigSpan > 0 && contigSpan < shape[contigDim])
    shape[contigDim] = contigSpan;
  unsigned rank = shape.size();
  SmallVector<unsigned> order = {contigDim};
  for (int d = rank - 1; d >= 0; --d)
    if (static_cast<unsigned>(d) != contigDim)
      order.push_back(d);
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[contigDim] =
      std::max<int64_t>(1, std::min<int64_t>(vec, shape[contigDim]));
  if (acrossVec > 1 && across != contigDim)
    spt[across] =
        std::max<int64_t>(1, std::min<int64_t>(acrossVec, shape[across]));
  // Lanes go to the fastest dimensions first, warps to the slowest.
  unsigned lanes = 32;
  if (acrossVec > 1 && across != contigDim) {
    int64_t room = std::max<int64_t>(1, shape[across] / spt[across]);
    tpw[across] = std::min<int64_t>(acrossLanes, room);
    lanes /= tpw[across];
  }
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned take = std::min<int64_t>(lanes, room);
    tpw[d] *= take;
    lanes /= take;
  }
  tpw[order.back()] *= lanes; // leftover lanes replicate
  // A tile reduced along a dimension its lanes leave alone (a column sum:
  // the lanes along the rows' contiguous columns) would get its warps
  // there, and each reduction would cross warps through shared memory. Give
  // the reduced dimensions lanes taken from the contiguous one instead (down
  // to 8, 128 bytes a row for 16-byte vectors), so that the warps find room
  // along the dimensions that are kept and the reduction stays in warps.
  auto keptRoom = [&] {
    int64_t room = 1;
    for (unsigned d = 0; d < rank; ++d)
      if (!(reduced & (1u << d)))
        room *= std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    return room;
  };
  if (reduced && !(reduced & (1u << contigDim)))
    for (unsigned d : order) {
      if (!(reduced & (1u << d)))
        continue;
      while (keptRoom() < int64_t(numWarps) && tpw[contigDim] > 8 &&
             shape[d] / (int64_t(spt[d]) * tpw[d]) > 1) {
        tpw[contigDim] /= 2;
        tpw[d] *= 2;
      }
    }
  unsigned warps = numWarps;
  SmallVector<unsigned> warpOrder;
  for (bool onReduced : {false, true})
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (bool(reduced & (1u << *it)) == onReduced)
        warpOrder.push_back(*it);
  // A tile reduced along several dimensions (a row's sum and its columns'
  // sums, as a layer norm's backward takes them): a reduction crossing the
  // warps along dimension d exchanges a partial of every element of the
  // other dimensions per warp, so the reduced dimensions take warps largest
  // first (4 x 8192: the columns' sums in threads, the rows' a 4 x 16
  // exchange, not 8192 x 4 floats through shared memory).
  auto firstReduced = llvm::find_if(
      warpOrder, [&](unsigned d) { return bool(reduced & (1u << d)); });
  std::stable_sort(firstReduced, warpOrder.end(),
                   [&](unsigned a, unsigned b) { return shape[a] > shape[b]; });
  for (unsigned d : warpOrder) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned take = std::min<int64_t>(warps, room);
    wpc[d] = take;
    warps /= take;
  }
  wpc[order.front()] *= warps; // leftover warps replicate
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

BlockedLayoutAttr LayoutAssigner::replicated(ArrayRef<int64_t> tileShape) {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  unsigned rank = shape.size();
  SmallVector<unsigned> spt, tpw(rank, 1), wpc(rank, 1), order;
  for (int64_t d : shape)
    spt.push_back(static_cast<unsigned>(d));
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  tpw[order.back()] = 32;
  wpc[order.front()] = numWarps;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

bool LayoutAssigner::feedsBoxes(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<ReshapeOp>(user) && feedsBoxes(user->getResult(0)))
      return true;
    if (auto load = dyn_cast<LoadOp>(user);
        load && load.getBoxes() == use.get())
      return true;
  }
  return false;
}

std::optional<unsigned> LayoutAssigner::transposedStoreDim(Value tile) {
  for (Operation *user : tile.getUsers()) {
    if (auto p = dyn_cast<PermuteOp>(user)) {
      if (p.getResult().use_empty() ||
          !llvm::all_of(p.getResult().getUsers(),
                        [](Operation *u) { return isa<StoreOp>(u); }))
        return std::nullopt;
      for (Operation *u : p.getResult().getUsers())
        if (auto order = cast<StoreOp>(u).getOrder();
            order &&
            !llvm::equal(*order, llvm::seq<int32_t>(0, int32_t(order->size()))))
          return std::nullopt;
      return static_cast<unsigned>(p.getPermutation().back());
    }
    if (isElementwise(user) && user->getNumResults() == 1 &&
        llvm::count_if(user->getOperands(), isTileValue) == 1)
      return transposedStoreDim(user->getResult(0));
  }
  return std::nullopt;
}

Attribute LayoutAssigner::oldValuesLayout(Value tile, Attribute current) {
  ArrayRef<int64_t> shape = shapeOf(tile);
  auto inWarpsOnce = [&](Attribute l) {
    if (!l || !isDistributedLayout(l))
      return false;
    LinearLayout ll = toLinearLayout(l, shape);
    return llvm::none_of(ll.warps(), [](const LinearLayout::Basis &b) {
      return llvm::all_of(b, [](int64_t c) { return c == 0; });
    });
  };
  if (inWarpsOnce(current))
    return current;
  BlockedLayoutAttr load = loadLayout(tile, std::nullopt);
  int64_t elements = 1;
  for (int64_t d : paddedShape(shape))
    elements *= d;
  unsigned vec = std::max(1u, vectorBytes / elementBytes(tile));
  while (vec > 1 && int64_t(vec) * numWarps * 32 > elements)
    vec /= 2;
  BlockedLayoutAttr narrow = blocked(shape, shape.size() - 1, vec);
  return inWarpsOnce(load) ? Attribute(load) : Attribute(narrow);
}

BlockedLayoutAttr
LayoutAssigner::loadLayout(Value tile, std::optional<ArrayRef<int32_t>> order) {
  ArrayRef<int64_t> shape = shapeOf(tile);
  unsigned contig = contiguousViewDim(shape.size(), order);
  unsigned vec = std::max(1u, vectorBytes / elementBytes(tile));
  if (auto it = sharedVector_.find(tile); it != sharedVector_.end())
    vec = std::min(vec, it->second);
  // Widened into a multiply's B (8-bit weights dequantized to 16 bits), the
  // tile is stored into the operand's swizzled buffer (16-byte chunks of a
  // row XORed by the row): a thread's vector holds one chunk of the
  // operand's type, so that the 8 lanes of each quarter warp write 8
  // different chunks. With two adjacent chunks a thread (16 e4m3 elements
  // widened to 32 bytes), lanes 4 apart wrote the same chunk of
  // neighbouring 64-column blocks: every store of gemm_scaled_b's B took
  // twice its wavefronts (H200, ncu: 164 M for 67 M bank-conflict-free,
  // bench/results/2026-12-02-h200-stored-operand-rings.md).
  if (unsigned wider = widerOperandBBytes(tile))
    vec = std::min(vec, std::max(1u, vectorBytes / wider));
  // Written back transposed: runs along the other dimension as well, as
  // long as the block's threads still cover the tile (a square of vec x
  // vec a thread where the tile is large enough: each transposed row is
  // then one vector write), and lanes along it first, so that the lanes of
  // a write cover 128 bytes of a row (a row of a 128-byte swizzle: no bank
  // conflicts) rather than the same bytes of rows vec apart.
  std::optional<unsigned> across = transposedStoreDim(tile);
  unsigned acrossVec = 1, acrossLanes = 1;
  if (across && *across != contig) {
    int64_t perThread = 1;
    for (int64_t d : paddedShape(shape))
      perThread *= d;
    perThread /= 32 * numWarps;
    acrossVec = static_cast<unsigned>(std::clamp<int64_t>(
        perThread / std::min<int64_t>(vec, shape[contig]), 1, vec));
    acrossVec = llvm::bit_floor(acrossVec);
    acrossLanes = std::clamp(128u / (acrossVec * elementBytes(tile)), 1u, 8u);
  }
  // Sliced along its contiguous dimension, or joined from tiles along it
  // (rotary embeddings' halves, a gate and its value side by side): a
  // thread's elements and the lanes span one slice, so that each slice is
  // held by every thread (the slices, the elementwise work between them
  // and the join move no data), as long as a thread keeps its vector.
  int64_t span = sliceWidth(tile, contig);
  if (int64_t joined = joinWidth(tile, contig))
    span = span ? std::min(span, joined) : joined;
  if (span < int64_t(std::min<int64_t>(vec, shape[contig])))
    span = 0;
  return blocked(shape, contig, vec, reducedDims(tile), across.value_or(0),
                 acrossVec, acrossLanes, span);
}

BlockedLayoutAttr LayoutAssigner::storeLayout(StoreOp store) {
  auto whole = store.getShape();
  if (!whole)
    return loadLayout(store.getValue(), store.getOrder());
  // The order of the value's dimensions among themselves.
  SmallVector<unsigned> dims = nonUnitDims(*whole);
  SmallVector<int32_t> order;
  for (unsigned d : dims) {
    int32_t t = store.getOrder() ? (*store.getOrder())[d] : int32_t(d);
    order.push_back(int32_t(llvm::count_if(dims, [&](unsigned e) {
      return (store.getOrder() ? (*store.getOrder())[e] : int32_t(e)) < t;
    })));
  }
  return loadLayout(store.getValue(), ArrayRef<int32_t>(order));
}

bool LayoutAssigner::reducesMmaResultsIn(func::FuncOp func) {
  SmallVector<Value> work;
  func.walk([&](MmaOp mma) { work.push_back(mma.getResult()); });
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ReduceOp>(user))
        return true;
      // Through loops: an iteration value flows into its region argument and
      // the loop's result.
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() >= loop.getNumControlOperands()) {
          unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
          work.push_back(loop.getRegionIterArgs()[i]);
          work.push_back(loop.getResult(i));
        }
        continue;
      }
      // A while loop's value: from its init or a trip's yield to the
      // condition's argument, from the condition to the trip and result.
      if (auto loop = dyn_cast<scf::WhileOp>(user)) {
        work.push_back(loop.getBeforeArguments()[use.getOperandNumber()]);
        continue;
      }
      if (auto cond = dyn_cast<scf::ConditionOp>(user)) {
        if (use.getOperandNumber() == 0)
          continue;
        auto loop = cast<scf::WhileOp>(cond->getParentOp());
        work.push_back(loop.getAfterArguments()[use.getOperandNumber() - 1]);
        work.push_back(loop.getResult(use.getOperandNumber() - 1));
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
          work.push_back(loop.getBeforeArguments()[use.getOperandNumber()]);
          continue;
        }
        work.push_back(parent->getResult(use.getOperandNumber()));
        if (auto loop = dyn_cast<scf::ForOp>(parent))
          work.push_back(loop.getRegionIterArgs()[use.getOperandNumber()]);
        continue;
      }
      llvm::append_range(work, user->getResults());
    }
  }
  return false;
}

MmaLayoutAttr LayoutAssigner::mmaLayout(ArrayRef<int64_t> tileShape, int64_t k,
                                        unsigned operandBytes, bool bKMajor,
                                        bool integer) {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  // On sm_90a, warpgroups of four warps each take 64-row blocks of the
  // result with wgmma (m64nNk16, N up to 256) when its operands fill the
  // 32-byte rows of the narrowest swizzle wgmma reads (K of at least 32
  // bytes, N of at least 16). The warpgroups go along M while there are
  // 64 rows for each; those left over split the columns (a 64-row tile on
  // two warpgroups: each a contiguous half), where each part still has 16
  // columns and starts where B's shared layout can be entered with one
  // offset: B read along K (its columns are rows there), or parts of a
  // whole number of the narrowest swizzle's blocks (32 bytes: 16 columns
  // of 16-bit elements; tile-stage-mma-operands then swizzles B's buffer
  // no wider than the parts allow: a head dim of 96 on two warpgroups,
  // 48 columns each, in blocks of 16).
  // A tile whose rows are not a power of two has its padded rows computed;
  // N is the tile's own, in instructions of up to 256 columns that divide
  // it (a head dim of 96: m64n96).
  int64_t rows = shape[0], cols = tileShape[1];
  int64_t groups = numWarps / 4;
  if (wgmma && numWarps % 4 == 0 && rows % 64 == 0 && cols % 8 == 0 &&
      cols >= 16 && k * operandBytes >= 32) {
    int64_t gm = std::min<int64_t>(groups, rows / 64);
    int64_t gn = groups / gm, per = cols / gn;
    bool split = gn == 1 || (cols == shape[1] && per >= 16 && per % 8 == 0 &&
                             (bKMajor || per * operandBytes % 32 == 0));
    if (split) { // (gm divides groups: both are powers of two)
      // (wgmma on i8 takes N of 8 to 32 in steps of 8, then of 16.)
      int64_t instrN = std::min<int64_t>(per, 256);
      while (per % instrN || (integer && instrN > 32 && instrN % 16))
        instrN -= 8;
      return MmaLayoutAttr::get(ctx, {unsigned(4 * gm), unsigned(gn)}, 3,
                                {64, unsigned(instrN), 16});
    }
  }
  // A kernel that reduces along the rows of mma results (the softmax of
  // attention) keeps each row in one warp: all warps along M, so that the
  // reduction is shuffles and the statistics broadcast back without data
  // movement. Otherwise the warps tile the result in two dimensions, as
  // square as the shape allows, which cuts the operand traffic from shared
  // memory (each warp reads only its rows of A and its columns of B).
  unsigned wm = 1, wn = 1;
  if (reducesMmaResults) {
    wm = std::min<int64_t>(numWarps, std::max<int64_t>(1, shape[0] / 16));
    wm = llvm::PowerOf2Ceil(wm) == wm ? wm : 1;
    wn = numWarps / wm;
  } else {
    while (wm * wn < numWarps) {
      bool rowsLeft = shape[0] / (16 * int64_t(wm)) > 1;
      bool colsLeft = shape[1] / (8 * int64_t(wn)) > 1;
      if (rowsLeft && (!colsLeft || shape[0] / wm >= shape[1] / wn))
        wm *= 2;
      else if (colsLeft)
        wn *= 2;
      else
        wm *= 2; // more warps than m16n8 blocks: replicate along M
    }
  }
  return MmaLayoutAttr::get(ctx, {wm, wn});
}

/// A reshape that splits or joins dimensions (isBitReshape: every one a
/// power of two, or held padded to one where it is the outermost of the
/// dimensions it is split into or joined from) moves no data when a blocked
/// layout of the result holds each element in the register, lane and warp that
/// held it in `src`: that layout, or null. Each of the source's bases, taken to
/// the result's coordinates, must be one bit of one dimension (or, for lanes
/// and warps, none: copies), each dimension's bits held by registers, then
/// lanes, then warps, then registers (a blocked layout's pattern, then its
/// repetitions); the order of the dimensions is the one whose layout gives
/// the same bases.
static Attribute reshapeBlocked(MLIRContext *ctx, BlockedLayoutAttr src,
                                ArrayRef<int64_t> srcShape,
                                ArrayRef<int64_t> dstShape) {
  unsigned rank = dstShape.size();
  if (!isBitReshape(srcShape, dstShape))
    return {};
  LinearLayout from = toLinearLayout(src, srcShape);
  const StringRef kinds[] = {LinearLayout::kRegister, LinearLayout::kLane,
                             LinearLayout::kWarp};
  // kindOf[d][bit]: which of registers (0), lanes (1), warps (2) holds it.
  SmallVector<SmallVector<int>> kindOf(rank);
  SmallVector<int64_t> paddedDst = paddedShape(dstShape);
  for (unsigned d = 0; d < rank; ++d)
    kindOf[d].assign(llvm::Log2_64(paddedDst[d]), -1);
  SmallVector<SmallVector<LinearLayout::Basis>> mapped(3);
  // Lanes and warps that hold copies (a tile smaller than the block):
  // 2^replicated[k] of them, placed on a dimension below.
  unsigned replicated[3] = {0, 0, 0};
  for (auto [k, kind] : llvm::enumerate(kinds))
    for (const LinearLayout::Basis &b : from.getBases(kind)) {
      auto c = reshapeCoords(b, srcShape, dstShape);
      unsigned set = 0, dim = 0;
      for (unsigned d = 0; d < rank; ++d)
        if ((*c)[d] != 0) {
          ++set;
          dim = d;
        }
      if (set == 0 && k != 0) {
        ++replicated[k];
        mapped[k].push_back(LinearLayout::Basis(c->begin(), c->end()));
        continue;
      }
      // (A replicated register, or a bit spread over dimensions: no
      // blocked layout.)
      if (set != 1 || !llvm::isPowerOf2_64((*c)[dim]))
        return {};
      int &slot = kindOf[dim][llvm::Log2_64((*c)[dim])];
      if (slot != -1)
        return {};
      slot = int(k);
      mapped[k].push_back(LinearLayout::Basis(c->begin(), c->end()));
    }
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  for (unsigned d = 0; d < rank; ++d) {
    ArrayRef<int> bits = kindOf[d];
    unsigned i = 0;
    for (auto [k, count] :
         {std::pair<int, unsigned *>{0, &spt[d]}, {1, &tpw[d]}, {2, &wpc[d]}})
      for (; i < bits.size() && bits[i] == k; ++i)
        *count *= 2;
    for (; i < bits.size(); ++i)
      if (bits[i] != 0)
        return {};
  }
  // The copies' lanes and warps go on one dimension each, past its
  // extent (where a blocked layout wraps them to copies); the order of the
  // dimensions and those two are found by comparing the bases.
  for (unsigned laneDim = 0; laneDim < rank; ++laneDim)
    for (unsigned warpDim = 0; warpDim < rank; ++warpDim) {
      if ((!replicated[1] && laneDim) || (!replicated[2] && warpDim))
        continue;
      SmallVector<unsigned> lanes = tpw, warps = wpc;
      lanes[laneDim] <<= replicated[1];
      warps[warpDim] <<= replicated[2];
      SmallVector<unsigned> order =
          llvm::to_vector(llvm::seq<unsigned>(0, rank));
      do {
        auto candidate = BlockedLayoutAttr::get(ctx, spt, lanes, warps, order);
        LinearLayout to = toLinearLayout(candidate, dstShape);
        bool same = true;
        for (auto [k, kind] : llvm::enumerate(kinds))
          same &= llvm::equal(to.getBases(kind), mapped[k]);
        if (same)
          return candidate;
      } while (std::next_permutation(order.begin(), order.end()));
    }
  return {};
}

Attribute LayoutAssigner::stackLayout(BlockedLayoutAttr layout,
                                      ConcatOp concat) {
  unsigned axis = concat.getAxis();
  size_t count = concat.getInputs().size();
  if (count < 2 || !llvm::isPowerOf2_64(count) ||
      layout.getSizePerThread()[axis] != 1 ||
      layout.getThreadsPerWarp()[axis] != 1 ||
      layout.getWarpsPerCTA()[axis] != 1 ||
      llvm::any_of(concat.getInputs(),
                   [&](Value v) { return shapeOf(v)[axis] != 1; }))
    return {};
  SmallVector<unsigned> spt(layout.getSizePerThread()), order = {axis};
  spt[axis] = count;
  for (unsigned d : layout.getOrder())
    if (d != axis)
      order.push_back(d);
  return BlockedLayoutAttr::get(ctx, spt, layout.getThreadsPerWarp(),
                                layout.getWarpsPerCTA(), order);
}

Attribute LayoutAssigner::reshapeLayout(BlockedLayoutAttr src,
                                        ArrayRef<int64_t> srcShape,
                                        ArrayRef<int64_t> dstShape) {
  // Map the non-unit dimensions in order; unit dimensions carry nothing.
  auto match = matchNonUnitDims(srcShape, dstShape);
  if (!match)
    return reshapeBlocked(ctx, src, srcShape, dstShape);
  auto &[srcDims, dstDims] = *match;
  unsigned rank = dstShape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  DenseMap<unsigned, unsigned> srcToDst;
  for (unsigned i = 0; i < srcDims.size(); ++i) {
    srcToDst[srcDims[i]] = dstDims[i];
    spt[dstDims[i]] = src.getSizePerThread()[srcDims[i]];
    tpw[dstDims[i]] = src.getThreadsPerWarp()[srcDims[i]];
    wpc[dstDims[i]] = src.getWarpsPerCTA()[srcDims[i]];
  }
  for (unsigned d : src.getOrder())
    if (srcToDst.count(d))
      order.push_back(srcToDst[d]);
  for (int d = rank - 1; d >= 0; --d)
    if (!llvm::is_contained(order, static_cast<unsigned>(d)))
      order.push_back(d);
  // Keep the thread and warp counts whole when every dimension was unit.
  auto product = [](ArrayRef<unsigned> v) {
    unsigned p = 1;
    for (unsigned x : v)
      p *= x;
    return p;
  };
  tpw[order.front()] *= 32 / product(tpw);
  wpc[order.back()] *= numWarps / product(wpc);
  auto result = BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
  // The reshape moves no data only if every register, lane and warp holds
  // the same element in both (threads on a unit source dimension replicate;
  // they must replicate in the result too, at the same bits).
  LinearLayout from = toLinearLayout(src, srcShape);
  LinearLayout to = toLinearLayout(result, dstShape);
  for (StringRef dim :
       {LinearLayout::kRegister, LinearLayout::kLane, LinearLayout::kWarp}) {
    ArrayRef<LinearLayout::Basis> a = from.getBases(dim), b = to.getBases(dim);
    if (a.size() != b.size())
      return {};
    for (auto [x, y] : llvm::zip(a, b))
      for (auto [sd, dd] : llvm::zip(srcDims, dstDims))
        if (x[sd] != y[dd])
          return {};
  }
  return result;
}

Attribute LayoutAssigner::permuteLayout(BlockedLayoutAttr src,
                                        ArrayRef<int32_t> perm) {
  unsigned rank = perm.size();
  SmallVector<unsigned> spt(rank), tpw(rank), wpc(rank), order;
  SmallVector<unsigned> inverse(rank);
  for (unsigned i = 0; i < rank; ++i) {
    spt[i] = src.getSizePerThread()[perm[i]];
    tpw[i] = src.getThreadsPerWarp()[perm[i]];
    wpc[i] = src.getWarpsPerCTA()[perm[i]];
    inverse[perm[i]] = i;
  }
  for (unsigned d : src.getOrder())
    order.push_back(inverse[d]);
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

/// `layout`'s bases taken through the view `op` (a permute, or a reshape
/// that keeps each element's row-major index in the padded shapes:
/// isBitReshape, e.g. 160 columns as 5 x 32, padded 256 and 8 x 32) to its
/// result's coordinates; with `back`, a reshape's result layout back to its
/// operand's coordinates. A padding coordinate (past the tile, within its
/// padded extent) stays one: the reshape's groups pad only their outermost
/// dimension.
static std::optional<LinearLayout>
viewLayout(Operation *op, const LinearLayout &layout, bool back = false) {
  ArrayRef<int64_t> from = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> to = shapeOf(op->getResult(0));
  if (back) {
    if (!isa<ReshapeOp>(op))
      return std::nullopt;
    std::swap(from, to);
  }
  if (isa<ReshapeOp>(op) && !isBitReshape(from, to))
    return std::nullopt;
  LinearLayout result(paddedShape(to));
  for (StringRef name : {LinearLayout::kRegister, LinearLayout::kLane,
                         LinearLayout::kWarp, LinearLayout::kBlock})
    for (const LinearLayout::Basis &b : layout.getBases(name)) {
      LinearLayout::Basis mapped(to.size(), 0);
      if (auto p = dyn_cast<PermuteOp>(op)) {
        for (auto [i, d] : llvm::enumerate(p.getPermutation()))
          mapped[i] = b[d];
      } else {
        auto c = reshapeCoords(b, from, to);
        if (!c)
          return std::nullopt;
        mapped.assign(c->begin(), c->end());
      }
      result.bases(name).push_back(mapped);
    }
  result.normalize();
  return result;
}

/// True when `want` on a tile of `shape` holds every element in the thread
/// that `held` holds it in: converting to it renames registers.
static bool renamesRegisters(const LinearLayout &held, Attribute want,
                             ArrayRef<int64_t> shape) {
  std::optional<LayoutConversion> c =
      getConversion(held, toLinearLayout(want, shape));
  return c && c->kind == ConversionKind::Registers;
}

bool LayoutAssigner::viewInPlace(Operation *first) {
  Value source = first->getOperand(0);
  Attribute layout = get(source);
  if (!layout || isa<BlockedLayoutAttr>(layout) || get(first->getResult(0)) ||
      isa_and_present<ReshapeOp, PermuteOp>(source.getDefiningOp()))
    return false;
  // The chain, and the layout of each of its values. (#tile.linear has no
  // block bases: a layout spread over a cluster's blocks is left alone.)
  std::optional<LinearLayout> linear = toLinearLayout(layout, shapeOf(source));
  if (!linear->getBases(LinearLayout::kBlock).empty())
    return false;
  SmallVector<std::pair<Value, LinearLayout>, 4> chain;
  for (Operation *view = first;;) {
    linear = viewLayout(view, *linear);
    if (!linear)
      return false;
    Value v = view->getResult(0);
    chain.push_back({v, *linear});
    // (A value of the chain laid out already: the other rules' chain.)
    if (!v.hasOneUse() || get(v))
      return false;
    Operation *user = *v.getUsers().begin();
    if (!isa<ReshapeOp, PermuteOp>(user))
      break;
    view = user;
  }
  Value last = chain.back().first;
  OpOperand &use = *last.getUses().begin();
  // (An mma's operand layouts follow from its result's.)
  if (auto mma = dyn_cast<MmaOp>(use.getOwner()); mma && !get(mma.getResult()))
    return false;
  Attribute wanted = required(use.getOwner(), use.getOperandNumber());
  if (!wanted || !isDistributedLayout(wanted))
    return false;
  if (!renamesRegisters(chain.back().second, wanted, shapeOf(last)))
    return false;
  bool changed = false;
  for (auto &[v, l] : ArrayRef(chain).drop_back())
    changed |= set(v, LinearLayoutAttr::get(ctx, l));
  changed |= set(last, wanted);
  return changed;
}

Attribute LayoutAssigner::expandLayout(Attribute src, unsigned axis,
                                       unsigned rank) {
  if (auto slice = dyn_cast<SliceLayoutAttr>(src))
    if (slice.getDim() == axis)
      return slice.getParent();
  if (auto b = dyn_cast<BlockedLayoutAttr>(src)) {
    SmallVector<unsigned> spt(b.getSizePerThread()), tpw(b.getThreadsPerWarp()),
        wpc(b.getWarpsPerCTA()), order;
    spt.insert(spt.begin() + axis, 1);
    tpw.insert(tpw.begin() + axis, 1);
    wpc.insert(wpc.begin() + axis, 1);
    for (unsigned d : b.getOrder())
      order.push_back(d >= axis ? d + 1 : d);
    order.push_back(axis);
    return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
  }
  return {};
}

/// The values a loaded tile flows through to its uses when every use,
/// through casts and other ops of one tile operand that keep its shape (or
/// of one and splats: an index vector plus an offset), and views that
/// insert a unit dimension, is a broadcast's source (a vector
/// applied along the rows of a tile: x of y = W x, a bias, a norm's
/// weight); empty otherwise. Such a vector's layout is best chosen by the
/// broadcasts, as a slice of theirs (each thread reads the elements it
/// applies; warps along the broadcast dimension read the same ones),
/// rather than as a load of its own shape converted through shared memory
/// to that slice.
static SmallVector<Value> broadcastChain(Value tile) {
  bool any = false;
  SmallVector<Value> chain, work = {tile};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    chain.push_back(v);
    for (Operation *user : v.getUsers()) {
      if (isa<BroadcastOp>(user)) {
        any = true;
        continue;
      }
      auto reshape = dyn_cast<ReshapeOp>(user);
      bool view =
          isa<ExpandDimsOp>(user) || (reshape && insertedUnitAxis(reshape));
      bool cast = isElementwise(user) && user->getNumResults() == 1 &&
                  !user->getNumRegions() &&
                  llvm::all_of(user->getOperands(), [&](Value operand) {
                    return operand == v || !isTileValue(operand) ||
                           isUniformTile(operand);
                  });
      if (!view && !cast)
        return {};
      work.push_back(user->getResult(0));
    }
  }
  return any ? chain : SmallVector<Value>();
}

void LayoutAssigner::findBroadcastVectors() {
  func.walk([&](LoadOp load) {
    // Not a load copied ahead into shared memory: one with latency 2 or
    // more. One in a loop of multiplies takes its broadcasts' layout only
    // where that is blocked (the pipeline stages those loads in their own
    // layouts, which must be): a W4A16 GEMM's scale row, broadcast along K
    // in the dequantized tile's layout, then reaches each thread without a
    // conversion and its barrier in every trip.
    if (load.getBoxes() || load.getLatency().value_or(1) >= 2)
      return;
    bool inMultiplyLoop = false;
    for (auto loop = load->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      inMultiplyLoop |=
          loop.getBody()
              ->walk([](MmaOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
    SmallVector<Value> chain = broadcastChain(load.getResult());
    for (Value v : chain) {
      broadcastVectors_.insert(v);
      if (inMultiplyLoop)
        blockedVectors_[v] = blockedChains_.size();
    }
    if (inMultiplyLoop && !chain.empty())
      blockedChains_.push_back(std::move(chain));
  });
  // So is an index vector (an arange) given a unit dimension by a reshape
  // rather than by expand_dims (`arange(n).reshape((n, 1))`, as
  // `arange(n)[:, None]`): made in any layout at no cost, its views then
  // take their broadcasts' layouts and it a slice of them.
  func.walk([&](ArangeOp arange) {
    for (Value v : broadcastChain(arange.getResult()))
      broadcastVectors_.insert(v);
  });
}

bool LayoutAssigner::forward(Operation *op) {
  bool changed = false;
  if (auto load = dyn_cast<LoadOp>(op)) {
    // (A vector only broadcast waits for its uses: broadcastChain; run()
    // gives it a load's layout if none comes.)
    if (broadcastVectors_.contains(load.getResult()))
      return false;
    // Read straight into an atomic returning old values (each token's
    // expert, as a scatter's index): the atomic's layout, not a conversion.
    bool intoOldValues = llvm::any_of(load->getUsers(), [](Operation *user) {
      return isa<AtomicRMWOp, ScatterOp>(user) && user->getNumResults() == 1;
    });
    if (intoOldValues && !load.getOrder())
      return set(load.getResult(),
                 oldValuesLayout(load.getResult(), Attribute()));
    return set(load.getResult(),
               feedsBoxes(load.getResult())
                   ? replicated(shapeOf(load.getResult()))
                   : loadLayout(load.getResult(), load.getOrder()));
  }
  // A gather reads along the tensor's last dimension as a load does; its
  // index tiles take its layout (backward), so that each thread holds the
  // indices of its own elements.
  if (auto gather = dyn_cast<GatherOp>(op))
    return set(gather.getResult(),
               loadLayout(gather.getResult(), std::nullopt));
  if (auto mma = dyn_cast<MmaOp>(op)) {
    auto b = dyn_cast_or_null<BlockedLayoutAttr>(get(mma.getB()));
    return set(
        mma.getResult(),
        mmaLayout(shapeOf(mma.getResult()), shapeOf(mma.getA()).back(),
                  getSharedElementBytes(mma.getA().getType().getElementType()),
                  b && b.getOrder().front() == 0,
                  mma.getA().getType().getElementType().isInteger(8)));
  }
  if (isElementwise(op) && op->getNumResults() == 1 &&
      isTileValue(op->getResult(0)) && !get(op->getResult(0))) {
    Attribute best;
    for (Value v : op->getOperands()) {
      Attribute l = get(v);
      if (!l && !partial_ && isTileValue(v) &&
          isa_and_present<scf::ForOp, scf::IfOp, scf::WhileOp>(
              v.getDefiningOp()))
        return false;
      if (l && (!best || priority(l) > priority(best)))
        best = l;
    }
    return set(op->getResult(0), best);
  }
  if (auto b = dyn_cast<BroadcastOp>(op)) {
    // A blocked source's layout, made for the narrow shape, can be a poor
    // one for the broadcast shape (a (64, 1) vector loaded from memory
    // holds a row per thread; broadcast to (64, 64) beside an mma result it
    // would replicate): such a result takes its layout from its uses, and
    // only the ones with none left get the source's (run()).
    Attribute l = get(b.getSource());
    if (isa_and_present<BlockedLayoutAttr>(l))
      return false;
    return set(b.getResult(), l);
  }
  if (auto e = dyn_cast<ExpandDimsOp>(op))
    if (Attribute l = get(e.getSource()))
      return set(e.getResult(),
                 expandLayout(l, e.getAxis(), shapeOf(e.getResult()).size()));
  if (auto r = dyn_cast<ReduceOp>(op)) {
    if (Attribute l = get(r.getSource()))
      return set(r.getResult(),
                 r.getKeepdims() ? l
                                 : SliceLayoutAttr::get(ctx, r.getAxis(), l));
    return false;
  }
  // A scan keeps a blocked source's layout (its lowering needs each bit of
  // the axis from one register, lane or warp bit); another source is
  // converted to the default one.
  if (auto sc = dyn_cast<ScanOp>(op)) {
    if (auto l = dyn_cast_if_present<BlockedLayoutAttr>(get(sc.getSource())))
      return set(sc.getResult(), l);
    return false;
  }
  // A slice keeps a blocked source's layout (the same parameters on the
  // smaller shape), so that a slice at a multiple of its shape stays in
  // its threads; other sources leave it to the default.
  if (auto e = dyn_cast<ExtractOp>(op)) {
    if (auto l = dyn_cast_if_present<BlockedLayoutAttr>(get(e.getSource())))
      return set(e.getResult(), l);
    return false;
  }
  // A join of tiles in one blocked layout keeps it where it holds each
  // input in the same threads (the join then moves no data: slices joined
  // back, rotary embeddings' halves); otherwise a use decides.
  if (auto c = dyn_cast<ConcatOp>(op)) {
    auto l = dyn_cast_if_present<BlockedLayoutAttr>(get(c.getInputs().front()));
    if (!l || !llvm::all_of(c.getInputs(),
                            [&](Value v) { return get(v) == Attribute(l); }))
      return false;
    SmallVector<RankedTensorType> inputs;
    for (Value v : c.getInputs())
      inputs.push_back(RankedTensorType::get(
          shapeOf(v), getElementTypeOrSelf(v.getType()), l));
    auto inLayout = [&](Attribute layout) {
      return RankedTensorType::get(shapeOf(c.getResult()),
                                   getElementTypeOrSelf(c.getType()), layout);
    };
    // A stack (tiles of extent 1 along the axis, which no lane or warp
    // splits) holds the new axis in each thread's registers, fastest, as
    // Triton's join does: a reshape merging it into the dimension before
    // (two nibbles of a byte side by side in K order) is then a view
    // rather than a conversion through shared memory.
    if (Attribute stacked = stackLayout(l, c);
        stacked && concatRegisters(inLayout(stacked), inputs, c.getAxis()))
      return set(c.getResult(), stacked);
    if (!concatRegisters(inLayout(l), inputs, c.getAxis()))
      return false;
    return set(c.getResult(), l);
  }
  if (isa<ReshapeOp, PermuteOp>(op) && viewInPlace(op))
    return true;
  if (auto r = dyn_cast<ReshapeOp>(op)) {
    if (Attribute l = get(r.getSource())) {
      // A unit dimension inserted where a slice took it out: the parent.
      if (Attribute parent = sliceViewParent(r))
        return set(r.getResult(), parent);
      if (!isa<BlockedLayoutAttr>(l) && !late_)
        return false;
      auto b = dyn_cast<BlockedLayoutAttr>(required(op, 0));
      Attribute res =
          b ? reshapeLayout(b, shapeOf(r.getSource()), shapeOf(r.getResult()))
            : Attribute();
      // A view that would move data (no blocked layout of the result holds
      // the source's elements where they are) also waits for its use's
      // layout (a store's, partial_): the data then moves once, to it.
      if (!res && !late_)
        return false;
      return set(r.getResult(),
                 res ? res : defaultBlocked(shapeOf(r.getResult())));
    }
    return false;
  }
  if (auto p = dyn_cast<PermuteOp>(op)) {
    // (As a reshape's: a tile in a layout other than a blocked one waits
    // for its use's layout, late_.)
    if (Attribute l = get(p.getSource());
        l && !get(p.getResult()) && (isa<BlockedLayoutAttr>(l) || late_)) {
      auto b = cast<BlockedLayoutAttr>(required(op, 0));
      return set(p.getResult(), permuteLayout(b, p.getPermutation()));
    }
    return false;
  }
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    // An iteration value, its result, init and yield share one layout; the
    // iteration value may also have been reached backward from a use.
    auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
    for (auto [i, arg] : llvm::enumerate(f.getRegionIterArgs())) {
      if (!isTileValue(arg))
        continue;
      if (Attribute l =
              iterationLayout(arg, yield.getOperand(i), f.getInitArgs()[i])) {
        changed |= set(arg, l);
        changed |= set(f.getResult(i), l);
      }
    }
    return changed;
  }
  // An atomic's old values: where the combined tile is held (each holder
  // of an element reads its old value).
  if (isa<AtomicRMWOp, ScatterOp>(op) && op->getNumResults() == 1) {
    Value value = op->getOperand(op->getNumOperands() - 1);
    Attribute l = get(value);
    if (!l)
      return false;
    return set(op->getResult(0),
               oldValuesLayout(value, isa<ScatterOp>(op) ? Attribute() : l));
  }
  if (auto w = dyn_cast<scf::WhileOp>(op)) {
    // A value the condition region receives (from the init or a trip's
    // yield) shares a layout with both; one the condition passes on, with
    // the trip's argument and the loop's result.
    scf::YieldOp yield = w.getYieldOp();
    for (auto [i, arg] : llvm::enumerate(w.getBeforeArguments()))
      if (isTileValue(arg))
        changed |= set(
            arg, iterationLayout(arg, yield.getOperand(i), w.getInits()[i]));
    scf::ConditionOp cond = w.getConditionOp();
    for (auto [j, arg] : llvm::enumerate(w.getAfterArguments())) {
      if (!isTileValue(arg))
        continue;
      Attribute l = get(arg);
      if (!l)
        l = get(cond.getArgs()[j]);
      if (l) {
        changed |= set(arg, l);
        changed |= set(w.getResult(j), l);
      }
    }
    return changed;
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    for (auto [k, res] : llvm::enumerate(i.getResults())) {
      if (!isTileValue(res) || get(res))
        continue;
      Attribute l = get(i.thenYield().getOperand(k));
      if (!l && i.elseBlock())
        l = get(i.elseYield().getOperand(k));
      changed |= set(res, l);
    }
    return changed;
  }
  return false;
}

bool LayoutAssigner::backward(Operation *op) {
  bool changed = false;
  if (auto mma = dyn_cast<MmaOp>(op)) {
    Attribute l = get(mma.getResult());
    auto m = cast<MmaLayoutAttr>(l);
    Type elt = mma.getA().getType().getElementType();
    changed |= setFromUse(mma.getA(), DotOperandLayoutAttr::getFor(0, m, elt));
    changed |= setFromUse(mma.getB(), DotOperandLayoutAttr::getFor(1, m, elt));
    changed |= setFromUse(mma.getAcc(), m);
    return changed;
  }
  // (A store's layout is a preference, not a need: not until the values
  // it writes have had their operands' layouts, partial_.)
  if (auto store = dyn_cast<StoreOp>(op))
    return partial_ && setFromUse(store.getValue(), storeLayout(store));
  if (auto load = dyn_cast<LoadOp>(op); load && load.getBoxes())
    return setFromUse(load.getBoxes(), replicated(shapeOf(load.getBoxes())));
  if (auto gather = dyn_cast<GatherOp>(op)) {
    Attribute l = get(gather.getResult());
    if (!l)
      return false;
    for (Value index : gather.getIndices())
      changed |= setFromUse(index, l);
    return changed;
  }
  if (auto rmw = dyn_cast<AtomicRMWOp>(op); rmw && rmw.getOld())
    return setFromUse(rmw.getValue(),
                      oldValuesLayout(rmw.getValue(), Attribute()));
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    Attribute l = scatter.getOld()
                      ? oldValuesLayout(scatter.getValue(), Attribute())
                      : Attribute(loadLayout(scatter.getValue(), std::nullopt));
    changed |= setFromUse(scatter.getValue(), l);
    for (Value index : scatter.getIndices())
      changed |= setFromUse(index, l);
    return changed;
  }
  if (auto cond = dyn_cast<scf::ConditionOp>(op)) {
    auto w = cast<scf::WhileOp>(op->getParentOp());
    for (auto [j, v] : llvm::enumerate(cond.getArgs()))
      if (isTileValue(v))
        changed |= setFromUse(v, get(w.getAfterArguments()[j]));
    return changed;
  }
  if (auto w = dyn_cast<scf::WhileOp>(op)) {
    for (auto [i, arg] : llvm::enumerate(w.getBeforeArguments()))
      if (isTileValue(arg))
        if (Attribute l = get(arg))
          changed |= setFromUse(w.getInits()[i], l);
    return changed;
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    Operation *parent = op->getParentOp();
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (!isTileValue(v))
        continue;
      Attribute l =
          isa<scf::WhileOp>(parent)
              ? get(cast<scf::WhileOp>(parent).getBeforeArguments()[i])
          : isa<scf::ForOp>(parent)
              ? get(cast<scf::ForOp>(parent).getRegionIterArgs()[i])
              : get(parent->getResult(i));
      changed |= setFromUse(v, l);
    }
    return changed;
  }
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    for (auto [i, arg] : llvm::enumerate(f.getRegionIterArgs()))
      if (isTileValue(arg))
        if (Attribute l = get(arg))
          changed |= setFromUse(f.getInitArgs()[i], l);
    return changed;
  }
  if (op->getNumResults() != 1 || !isTileValue(op->getResult(0)))
    return false;
  Attribute l = get(op->getResult(0));
  if (!l)
    return false;
  if (isElementwise(op) || isa<BroadcastOp>(op)) {
    for (Value v : op->getOperands())
      if (isTileValue(v))
        changed |= setFromUse(v, l);
    return changed;
  }
  if (auto e = dyn_cast<ExpandDimsOp>(op))
    return setFromUse(e.getSource(), SliceLayoutAttr::get(ctx, e.getAxis(), l));
  // A view inserting a unit dimension into a vector only broadcast is an
  // expand_dims: the vector takes the slice.
  if (auto r = dyn_cast<ReshapeOp>(op))
    if (std::optional<unsigned> axis = insertedUnitAxis(r);
        axis && broadcastVectors_.contains(r.getSource()))
      return setFromUse(r.getSource(), SliceLayoutAttr::get(ctx, *axis, l));
  return false;
}

/// True when a store writes a tile held in `have` as well as in `want`,
/// the layout it would convert the tile to (a permuted tile whose
/// contiguous dimension stays the tensor's: heads split from a row or
/// merged into one; a tile rounded to 16 bits from f32 loads): the same
/// contiguous dimension and vector (or one of 8 to 16 bytes), its lanes
/// covering as much of it or 128 bytes (each group of lanes writing whole
/// runs of the row), and no more threads holding each element. The
/// conversion through shared memory would buy nothing.
static bool storesAsWell(BlockedLayoutAttr have, BlockedLayoutAttr want,
                         ArrayRef<int64_t> shape, unsigned elementBytes) {
  if (have == want)
    return true;
  // The contiguous dimension comes first in `have`'s order, but for
  // dimensions of one element a thread and one lane (which order nothing):
  // a thread's vector is then its first registers, and a warp's lanes walk
  // the row before anything else.
  unsigned c = want.getOrder().front();
  for (unsigned d : have.getOrder()) {
    if (d == c)
      break;
    if (have.getSizePerThread()[d] != 1 || have.getThreadsPerWarp()[d] != 1)
      return false;
  }
  // A thread's vector: the store's, or (a tile computed in a wider or
  // narrower type: f32 rounded to 16 bits) one of 8 to 16 bytes.
  auto vectorBytes = [&](BlockedLayoutAttr l) {
    return std::min<int64_t>(l.getSizePerThread()[c], shape[c]) * elementBytes;
  };
  if (have.getSizePerThread()[c] != want.getSizePerThread()[c] &&
      (vectorBytes(have) < std::min<int64_t>(vectorBytes(want), 8) ||
       vectorBytes(have) > 16))
    return false;
  auto span = [&](BlockedLayoutAttr l) {
    return std::min<int64_t>(
        int64_t(l.getSizePerThread()[c]) * l.getThreadsPerWarp()[c], shape[c]);
  };
  auto copies = [&](BlockedLayoutAttr l) {
    int64_t n = 1;
    for (unsigned d = 0; d < shape.size(); ++d)
      n *= std::max<int64_t>(1, int64_t(l.getSizePerThread()[d]) *
                                    l.getThreadsPerWarp()[d] *
                                    l.getWarpsPerCTA()[d] / shape[d]);
    return n;
  };
  return (span(have) >= span(want) || span(have) * elementBytes >= 128) &&
         copies(have) <= copies(want);
}

Attribute LayoutAssigner::required(Operation *op, unsigned i) {
  Value operand = op->getOperand(i);
  if (!isTileValue(operand))
    return {};
  if (auto mma = dyn_cast<MmaOp>(op)) {
    auto m = cast<MmaLayoutAttr>(get(mma.getResult()));
    Type elt = mma.getA().getType().getElementType();
    if (i == 0)
      return DotOperandLayoutAttr::getFor(0, m, elt);
    if (i == 1)
      return DotOperandLayoutAttr::getFor(1, m, elt);
    return m;
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    BlockedLayoutAttr want = storeLayout(store);
    auto have = dyn_cast_if_present<BlockedLayoutAttr>(get(operand));
    return have && storesAsWell(have, want, paddedShape(shapeOf(operand)),
                                elementBytes(operand))
               ? have
               : want;
  }
  if (auto load = dyn_cast<LoadOp>(op); load && operand == load.getBoxes()) {
    Attribute l = get(operand);
    return l && isReplicatedLayout(l, shapeOf(operand))
               ? l
               : Attribute(replicated(shapeOf(operand)));
  }
  if (auto gather = dyn_cast<GatherOp>(op))
    return get(gather.getResult());
  if (auto scatter = dyn_cast<ScatterOp>(op))
    return scatter.getOld()
               ? oldValuesLayout(scatter.getValue(), Attribute())
               : Attribute(loadLayout(scatter.getValue(), std::nullopt));
  // An atomic returning its old values holds each element in one warp.
  if (auto rmw = dyn_cast<AtomicRMWOp>(op);
      rmw && rmw.getOld() && operand == rmw.getValue())
    return oldValuesLayout(operand, get(operand));
  if (isElementwise(op) || isa<BroadcastOp, ScanOp>(op))
    return get(op->getResult(0));
  if (auto e = dyn_cast<ExpandDimsOp>(op)) {
    Attribute res = get(e.getResult());
    // A blocked result derived from a blocked source keeps that source.
    Attribute src = get(operand);
    if (src &&
        expandLayout(src, e.getAxis(), shapeOf(e.getResult()).size()) == res)
      return src;
    return SliceLayoutAttr::get(ctx, e.getAxis(), res);
  }
  if (isa<ReshapeOp, PermuteOp>(op)) {
    // A view whose result holds the elements where a layout other than a
    // blocked one holds them (viewInPlace): that layout.
    if (Attribute src = get(operand); src && !isa<BlockedLayoutAttr>(src))
      if (Attribute res = get(op->getResult(0)))
        if (std::optional<LinearLayout> viewed =
                viewLayout(op, toLinearLayout(src, shapeOf(operand)));
            viewed && renamesRegisters(*viewed, res, shapeOf(op->getResult(0))))
          return src;
    // A unit dimension inserted into a slice along it: its parent.
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      if (Attribute parent = sliceViewParent(r);
          parent && parent == get(r.getResult()))
        return get(operand);
      // A broadcast vector's view holding a layout other than a blocked one
      // (an index vector viewed along both axes, its slice along the
      // other): the slice of that layout, as an expand_dims's.
      Attribute viewed = get(r.getResult());
      if (std::optional<unsigned> axis = insertedUnitAxis(r);
          axis && viewed && !isa<BlockedLayoutAttr>(viewed) &&
          broadcastVectors_.contains(r.getSource()))
        return SliceLayoutAttr::get(ctx, *axis, viewed);
    }
    // These move no data: they need a blocked operand, the one their result
    // layout maps back to when there is one.
    auto res = dyn_cast_if_present<BlockedLayoutAttr>(get(op->getResult(0)));
    // The source's own layout when it gives the result's (another blocked
    // layout may give it too: threads on a unit dimension).
    if (auto src = dyn_cast_if_present<BlockedLayoutAttr>(get(operand));
        src && res && isa<ReshapeOp>(op) &&
        reshapeLayout(src, shapeOf(operand), shapeOf(op->getResult(0))) == res)
      return src;
    if (res) {
      Attribute back;
      if (auto p = dyn_cast<PermuteOp>(op)) {
        SmallVector<int32_t> inverse(p.getPermutation().size());
        for (auto [i, d] : llvm::enumerate(p.getPermutation()))
          inverse[d] = i;
        back = permuteLayout(res, inverse);
      } else {
        back = reshapeLayout(res, shapeOf(op->getResult(0)), shapeOf(operand));
      }
      if (back)
        return back;
      // No blocked layout of the operand holds the result's elements where
      // it does (a reshape joining dimensions that the source's threads
      // split otherwise): the result's own linear form seen in the
      // operand's shape, which the operand converts to.
      if (std::optional<LinearLayout> viewed =
              viewLayout(op, toLinearLayout(res, shapeOf(op->getResult(0))),
                         /*back=*/true))
        return LinearLayoutAttr::get(ctx, *viewed);
    }
    Attribute src = get(operand);
    if (isa_and_present<BlockedLayoutAttr>(src))
      return src;
    return defaultBlocked(shapeOf(operand));
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    Operation *parent = op->getParentOp();
    if (auto f = dyn_cast<scf::ForOp>(parent))
      return get(f.getRegionIterArgs()[i]);
    if (auto w = dyn_cast<scf::WhileOp>(parent))
      return get(w.getBeforeArguments()[i]);
    return get(parent->getResult(i));
  }
  if (isa<scf::ConditionOp>(op)) {
    if (i == 0)
      return {};
    return get(
        cast<scf::WhileOp>(op->getParentOp()).getAfterArguments()[i - 1]);
  }
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return get(w.getBeforeArguments()[i]);
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    unsigned first = f.getNumControlOperands();
    if (i >= first)
      return get(f.getRegionIterArgs()[i - first]);
  }
  return {};
}

void LayoutAssigner::materialize() {
  auto withLayout = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return RankedTensorType::get(t.getShape(), t.getElementType(), get(v));
  };
  // Retype every tile value; constants rebuild their value attribute.
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isTileValue(arg))
            arg.setType(withLayout(arg));
    for (Value res : op->getResults())
      if (isTileValue(res))
        res.setType(withLayout(res));
    if (auto cst = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
  });
  // Convert where a use needs another layout.
  OpBuilder builder(ctx);
  func.walk([&](Operation *op) {
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      Attribute req = required(op, i);
      Value v = op->getOperand(i);
      if (!req || get(v) == req)
        continue;
      builder.setInsertionPoint(op);
      auto t = cast<RankedTensorType>(v.getType());
      auto cvt = ConvertLayoutOp::create(
          builder, op->getLoc(),
          RankedTensorType::get(t.getShape(), t.getElementType(), req), v);
      op->setOperand(i, cvt);
    }
  });
}

void LayoutAssigner::findSharedVectors() {
  // Tile values joined by element-wise ops that keep their shape.
  llvm::EquivalenceClasses<Value> joined;
  func.walk([&](Operation *op) {
    if (!isElementwise(op) || op->getNumResults() != 1 ||
        !isTileValue(op->getResult(0)))
      return;
    Value result = op->getResult(0);
    for (Value operand : op->getOperands())
      if (isTileValue(operand) && shapeOf(operand) == shapeOf(result))
        joined.unionSets(operand, result);
  });
  // The fewest and most elements a vector of a group's loads, by the
  // load's contiguous dimension (loads walking different dimensions keep
  // theirs).
  DenseMap<std::pair<Value, unsigned>, std::pair<unsigned, unsigned>> groups;
  func.walk([&](LoadOp load) {
    if (load.getBoxes() || broadcastVectors_.contains(load.getResult()))
      return;
    std::pair<Value, unsigned> key = {
        joined.getOrInsertLeaderValue(load.getResult()),
        contiguousViewDim(load.getType().getRank(), load.getOrder())};
    unsigned vec = std::max(1u, vectorBytes / elementBytes(load.getResult()));
    auto it = groups.try_emplace(key, vec, vec).first;
    it->second.first = std::min(it->second.first, vec);
    it->second.second = std::max(it->second.second, vec);
  });
  // Only where the loads' vectors differ; every tile of such a group (its
  // stores' values too) takes the fewest.
  DenseMap<Value, unsigned> byLeader;
  for (auto &[key, widths] : groups)
    if (widths.first != widths.second)
      byLeader[key.first] = widths.first;
  if (byLeader.empty())
    return;
  func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (isTileValue(v) && joined.contains(v))
        if (auto it = byLeader.find(joined.getLeaderValue(v));
            it != byLeader.end())
          sharedVector_[v] = it->second;
  });
}

void LayoutAssigner::run() {
  findBroadcastVectors();
  findSharedVectors();
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
  auto propagate = [&] {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : ops)
        changed |= forward(op);
      for (Operation *op : llvm::reverse(ops))
        changed |= backward(op);
    }
  };
  propagate();
  partial_ = true;
  propagate();
  late_ = true;
  propagate();
  // Whatever is still free gets a default layout, sources first.
  // A vector only broadcast comes after the rest (its broadcasts' layouts
  // first: a vector's layout expanded would cover a whole broadcast tile
  // in every thread).
  while (true) {
    Value pending, vector;
    for (Operation *op : ops) {
      if (isa<scf::ForOp, scf::WhileOp>(op))
        continue; // follows its iteration values
      for (Value v : op->getResults())
        if (isTileValue(v) && !get(v)) {
          if (!broadcastVectors_.contains(v)) {
            pending = v;
            break;
          }
          if (!vector)
            vector = v;
        }
      if (pending)
        break;
    }
    if (!pending)
      pending = vector;
    if (!pending)
      break;
    Attribute source;
    if (auto b = pending.getDefiningOp<BroadcastOp>())
      source = get(b.getSource());
    if (auto load = pending.getDefiningOp<LoadOp>())
      source = loadLayout(load.getResult(), load.getOrder());
    // (Warps off the dimensions it is reduced along, as a load's.)
    ArrayRef<int64_t> shape = shapeOf(pending);
    set(pending,
        source ? source
               : blocked(shape, shape.size() - 1, 1, reducedDims(pending)));
    propagate();
  }
  // Block arguments left without one (an unused loop value).
  for (Operation *op : ops)
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isTileValue(arg))
            set(arg, defaultBlocked(shapeOf(arg)));
  // A while loop's results whose trip arguments were only now given one.
  for (Operation *op : ops)
    if (auto w = dyn_cast<scf::WhileOp>(op))
      for (auto [j, arg] : llvm::enumerate(w.getAfterArguments()))
        if (isTileValue(arg))
          set(w.getResult(j), get(arg));
  materialize();
}

namespace {
struct AssignLayoutsPass
    : public mlir::tile::impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()))
      return;
    if (numWarps == 0 || !llvm::isPowerOf2_32(numWarps) || numWarps > 32) {
      func.emitError() << "num-warps must be a power of two from 1 to 32";
      return signalPassFailure();
    }
    LayoutAssigner(func, numWarps, vectorBytes, wgmma).run();
    func->setAttr(
        TileDialect::getNumWarpsAttrName(),
        IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
  }
};
} // namespace
