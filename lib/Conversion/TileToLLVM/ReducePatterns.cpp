//===- ReducePatterns.cpp - Reductions: registers, lanes, warps -----------===//
//
// The reduced axis of a layout is spread over some register bits, some lane
// bits and some warp bits. The reduction follows the same order: registers
// that differ only along the axis are combined in the thread, then lanes by
// butterfly shuffles (after which every lane of a group has the result),
// then warps through shared memory. Scans (tile.scan) take the axis bit by
// bit: see ScanLowering. The first index where a condition holds
// (argmax's second reduction) takes its in-thread step from constants
// (ReduceLowering::firstIndex).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace tilec;

namespace {

using Basis = LinearLayout::Basis;

Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
              Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  case tile::ReduceKind::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  case tile::ReduceKind::Max:
    if (isFloat)
      return arith::MaxNumFOp::create(b, loc, x, y);
    return x.getType().isInteger(1)
               ? Value(arith::MaxUIOp::create(b, loc, x, y))
               : Value(arith::MaxSIOp::create(b, loc, x, y));
  case tile::ReduceKind::Min:
    if (isFloat)
      return arith::MinNumFOp::create(b, loc, x, y);
    return x.getType().isInteger(1)
               ? Value(arith::MinUIOp::create(b, loc, x, y))
               : Value(arith::MinSIOp::create(b, loc, x, y));
  }
  llvm_unreachable("reduce kind");
}

/// `combine` across lanes: every lane of a butterfly combines its value
/// with its partner's, and the lanes must end with the same bits (the
/// result's layout holds them as copies of one element; a store of it writes
/// from each). A float sum is an add with an explicit rounding there, which
/// neither LLVM nor ptxas contracts with the multiply that produced the
/// value: lane i's fma(a_i, b_i, p_j) and lane j's fma(a_j, b_j, p_i) round
/// differently, where p_i + p_j and p_j + p_i do not. f32 and f64:
/// llvm.nvvm.add.rn; f16: add.rn.f16; bf16: fma.rn.bf16 with 1.0 (sm_80 has
/// no bf16 add; a * 1 + b rounds once, as the add).
Value combineAcrossLanes(OpBuilder &b, Location loc, tile::ReduceKind kind,
                         Value x, Value y) {
  Type type = x.getType();
  if (kind != tile::ReduceKind::Sum || !isa<FloatType>(type))
    return combine(b, loc, kind, x, y);
  if (type.isF32() || type.isF64())
    return LLVM::CallIntrinsicOp::create(
               b, loc, type,
               b.getStringAttr(type.isF32() ? "llvm.nvvm.add.rn.f"
                                            : "llvm.nvvm.add.rn.d"),
               ValueRange{x, y})
        .getResult(0);
  if (!type.isF16() && !type.isBF16())
    return combine(b, loc, kind, x, y);
  // (Pure arithmetic: asm without side effects, which may move or merge.)
  Type i16 = b.getI16Type();
  auto add = LLVM::InlineAsmOp::create(
      b, loc, i16,
      ValueRange{arith::BitcastOp::create(b, loc, i16, x),
                 arith::BitcastOp::create(b, loc, i16, y)},
      type.isF16() ? "add.rn.f16 $0, $1, $2;"
                   : "{\n .reg .b16 one;\n mov.b16 one, 0x3F80;\n"
                     " fma.rn.bf16 $0, $1, one, $2;\n}",
      "=h,h,h", /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return arith::BitcastOp::create(b, loc, type, add.getResult(0));
}

/// The value that `kind` leaves unchanged: 0, 1, the lowest or the highest
/// value of `type`.
Value reductionIdentity(OpBuilder &b, Location loc, tile::ReduceKind kind,
                        Type type) {
  if (kind == tile::ReduceKind::Sum)
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  if (kind == tile::ReduceKind::Prod)
    return isa<FloatType>(type)
               ? arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0))
               : arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  bool lowest = kind == tile::ReduceKind::Max;
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), lowest)));
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt v = bits == 1 ? (lowest ? APInt(1, 0) : APInt(1, 1))
                      : (lowest ? APInt::getSignedMinValue(bits)
                                : APInt::getSignedMaxValue(bits));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// shfl.sync of any scalar value: `bfly` with a lane mask, or `idx` from a
/// lane (one shuffle a 32-bit word: two for an i64).
Value shuffle(OpBuilder &b, Location loc, Value v, Value lane,
              NVVM::ShflKind kind) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
  if (bitWidth(t) > 32) {
    SmallVector<Value> words = packWords(b, loc, {v});
    for (Value &w : words)
      w = shuffle(b, loc, w, lane, kind);
    return unpackWords(b, loc, words, t, 1).front();
  }
  Value word = v;
  bool isF32 = t.isF32();
  if (!isF32 && !t.isInteger(32)) {
    unsigned bits = bitWidth(t);
    Value asInt =
        bits == 1
            ? v
            : Value(LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), v));
    word = arith::ExtUIOp::create(b, loc, i32, asInt);
  }
  Value shuffled =
      NVVM::ShflOp::create(b, loc, word.getType(), constI32(b, loc, -1), word,
                           lane, constI32(b, loc, 0x1f), kind, UnitAttr());
  if (isF32 || t.isInteger(32))
    return shuffled;
  unsigned bits = bitWidth(t);
  Value narrow =
      arith::TruncIOp::create(b, loc, b.getIntegerType(bits), shuffled);
  return bits == 1 ? narrow : Value(LLVM::BitcastOp::create(b, loc, t, narrow));
}

Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask) {
  return shuffle(b, loc, v, constI32(b, loc, laneMask), NVVM::ShflKind::bfly);
}

/// Combines `level` as a balanced tree (pairs of neighbours, level by
/// level), leaving the result as its only element.
void combineTree(OpBuilder &b, Location loc, tile::ReduceKind kind,
                 SmallVector<Value> &level) {
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(b, loc, kind, level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
}

/// Whether `v` is the index along `axis` of a tile of its shape: a
/// tile.arange of the axis' extent, given unit dimensions about it
/// (reshapes, expand_dims) and broadcast over the others, in any layouts.
bool isIndexAlongAxis(Value v, unsigned axis) {
  auto shapeOf = [](Value t) {
    return cast<RankedTensorType>(t.getType()).getShape();
  };
  unsigned rank = shapeOf(v).size();
  int64_t extent = shapeOf(v)[axis];
  while (auto cvt = v.getDefiningOp<tile::ConvertLayoutOp>())
    v = cvt.getSource();
  if (auto b = v.getDefiningOp<tile::BroadcastOp>())
    v = b.getSource();
  // (A broadcast may add leading dimensions.)
  ArrayRef<int64_t> line = shapeOf(v);
  int64_t at = int64_t(axis) - int64_t(rank - line.size());
  if (at < 0)
    return false;
  for (auto [d, n] : llvm::enumerate(line))
    if (n != (int64_t(d) == at ? extent : 1))
      return false;
  // The one dimension of the extent, through ops that add or drop unit
  // dimensions, from the arange.
  for (Operation *def = v.getDefiningOp(); def; def = v.getDefiningOp()) {
    if (auto a = dyn_cast<tile::ArangeOp>(def))
      return a.getType().getDimSize(0) == extent;
    if (!isa<tile::ConvertLayoutOp, tile::ReshapeOp, tile::ExpandDimsOp>(def))
      return false;
    v = def->getOperand(0);
    if (llvm::count_if(shapeOf(v), [](int64_t n) { return n != 1; }) > 1)
      return false;
  }
  return false;
}

/// argmax's and argmin's second reduction, the first index where a
/// condition holds, `min(select(p, index along the axis, past))` with
/// `past` a splat constant: the constant (nullopt where `op` is not one).
std::optional<int64_t> firstIndexPast(tile::ReduceOp op) {
  if (op.getKind() != tile::ReduceKind::Min)
    return std::nullopt;
  auto select = op.getSource().getDefiningOp<arith::SelectOp>();
  if (!select || !isIndexAlongAxis(select.getTrueValue(), op.getAxis()))
    return std::nullopt;
  DenseIntElementsAttr past;
  if (!matchPattern(select.getFalseValue(), m_Constant(&past)) ||
      !past.isSplat())
    return std::nullopt;
  return past.getSplatValue<APInt>().getSExtValue();
}

struct ReduceLowering : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSource().getType();
    LinearLayout src = getLinearLayout(srcType);
    LinearLayout dst = getLinearLayout(op.getType());
    unsigned axis = op.getAxis();
    ValueRange regs = adaptor.getSource();
    Type elt = srcType.getElementType();

    // 0. A padded axis: the padding (undefined) counts as the identity. A
    // run of registers holding consecutive elements along the axis from a
    // multiple of its length (a vector of a row: RegisterVectors), when
    // that length divides the tile's extent, is wholly inside or wholly
    // padding: it is combined first (as step 1's tree would combine it,
    // where the run is a thread's lowest register bits) and masked once.
    SmallVector<Value> runs;
    SmallVector<unsigned> runRegs;
    int64_t extent = srcType.getDimSize(axis);
    bool padded = src.getShape()[axis] > extent;
    // (The largest power of two dividing the extent; 1: no runs.)
    RegisterVectors vectors(src, axis,
                            padded ? unsigned(extent & -extent) : 1u);
    for (unsigned r = 0; r < src.getNumRegs(); ++r) {
      if (!vectors.isFirst(r))
        continue;
      SmallVector<Value> level;
      for (unsigned j = 0; j < vectors.length(); ++j)
        level.push_back(regs[vectors.reg(r, j)]);
      combineTree(rewriter, loc, op.getKind(), level);
      runs.push_back(level.front());
      runRegs.push_back(r);
    }
    if (padded) {
      Value identity =
          reductionIdentity(rewriter, loc, op.getKind(), registerType(elt));
      SmallVector<Value> offsets = threadOffsets(rewriter, loc, src);
      for (auto [v, r] : llvm::zip(runs, runRegs)) {
        Value c = registerCoords(rewriter, loc, src, offsets, r)[axis];
        Value in =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, c,
                                  constI32(rewriter, loc, extent));
        v = arith::SelectOp::create(rewriter, loc, in, v, identity);
      }
    }

    // 1. In-thread: group registers by their coordinates off the axis, and
    // combine each group as a balanced tree, so that its depth is log2 of
    // the group's size rather than the size (a softmax row max of 32
    // registers: 5 dependent steps, not 31).
    // A partial reduction (kept_bits) combines only the elements that
    // agree on its kept bits along the axis: those stay in the key.
    int64_t kept = op.getKeptBits().value_or(0);
    SmallVector<Basis> keys;
    SmallVector<SmallVector<Value>> groups;
    for (auto [v, r] : llvm::zip(runs, runRegs)) {
      Basis key = src.regCoords(r);
      key[axis] &= kept;
      auto it = llvm::find(keys, key);
      if (it == keys.end()) {
        keys.push_back(key);
        groups.push_back({v});
      } else {
        groups[it - keys.begin()].push_back(v);
      }
    }
    SmallVector<Value> partial;
    std::optional<SmallVector<Value>> first;
    if (kept == 0)
      first = firstIndex(rewriter, op, src, regs, keys, padded);
    if (first) {
      partial = std::move(*first);
    } else {
      for (SmallVector<Value> &level : groups) {
        combineTree(rewriter, loc, op.getKind(), level);
        partial.push_back(level.front());
      }
    }
    // (A lane's or warp's step along the axis is kept whole or combined
    // whole.)
    for (StringRef dim : src.getInDimNames())
      for (const Basis &basis : src.getBases(dim))
        if ((basis[axis] & kept) != 0 && (basis[axis] & ~kept) != 0)
          return op.emitError("reduce: kept_bits split a step of the "
                              "layout along the axis");
    // 2. Across lanes.
    for (auto [i, basis] : llvm::enumerate(src.lanes()))
      if ((basis[axis] & ~kept) != 0)
        for (Value &v : partial)
          v = combineAcrossLanes(rewriter, loc, op.getKind(), v,
                                 shuffleXor(rewriter, loc, v, 1u << i));
    // 3. Across warps.
    SmallVector<unsigned> axisWarpBits;
    for (auto [j, basis] : llvm::enumerate(src.warps()))
      if ((basis[axis] & ~kept) != 0)
        axisWarpBits.push_back(j);
    if (!axisWarpBits.empty() && kept != 0)
      return op.emitError("reduce: a partial reduction (kept_bits) across "
                          "warps is not supported by code generation");
    if (!axisWarpBits.empty() &&
        failed(
            reduceAcrossWarps(rewriter, op, src, keys, partial, axisWarpBits)))
      return failure();

    // The result registers, by coordinates (a partial result's index
    // along the axis spread back onto the kept bits).
    auto toKeep = [&](ArrayRef<int64_t> c) {
      Basis k(c);
      if (!op.getKeepdims())
        k.insert(k.begin() + axis, 0);
      else
        k[axis] = tile::depositBits(k[axis], kept);
      return k;
    };
    for (unsigned i = 0; i < dst.lanes().size(); ++i) {
      Basis want(src.lanes()[i]);
      want[axis] &= kept;
      if (toKeep(dst.lanes()[i]) != want)
        return op.emitError("reduce: the result layout is not the reduced "
                            "source layout");
    }
    SmallVector<Value> results;
    for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
      auto it = llvm::find(keys, toKeep(dst.regCoords(r)));
      if (it == keys.end())
        return op.emitError("reduce: a result element has no source group");
      results.push_back(partial[it - keys.begin()]);
    }
    (void)elt;
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  /// Step 1 of the first index where a condition holds (firstIndexPast):
  /// register r's index is the thread's offset along the axis plus the
  /// register's constant c_r (where no register bit along the axis is a
  /// lane's or a warp's), so a group takes the least c_r whose condition
  /// holds by a chain of selects of constants and adds the offset once:
  /// the index tile is never held (in a loop, LLVM hoists it whole and
  /// holds it across the loop: an argmax of 64 elements a thread, 64
  /// registers). The partial of each group of `keys`; nullopt where the
  /// registers are not selects of the form (or the axis is padded).
  std::optional<SmallVector<Value>>
  firstIndex(ConversionPatternRewriter &b, tile::ReduceOp op,
             const LinearLayout &src, ValueRange regs, ArrayRef<Basis> keys,
             bool padded) const {
    std::optional<int64_t> past = firstIndexPast(op);
    if (!past || padded)
      return std::nullopt;
    unsigned axis = op.getAxis();
    int64_t regBits = 0, threadBits = 0;
    for (const Basis &basis : src.regs())
      regBits |= basis[axis];
    for (StringRef dim : src.getInDimNames())
      if (dim != LinearLayout::kRegister)
        for (const Basis &basis : src.getBases(dim))
          threadBits |= basis[axis];
    if (regBits & threadBits)
      return std::nullopt;
    // Each group's registers, by their constant along the axis.
    SmallVector<SmallVector<std::pair<int64_t, Value>>> groups(keys.size());
    for (unsigned r = 0; r < src.getNumRegs(); ++r) {
      auto select = regs[r].getDefiningOp<arith::SelectOp>();
      if (!select)
        return std::nullopt;
      Basis key = src.regCoords(r);
      int64_t c = key[axis];
      key[axis] = 0;
      auto it = llvm::find(keys, key);
      if (it == keys.end())
        return std::nullopt;
      groups[it - keys.begin()].push_back({c, select.getCondition()});
    }
    Location loc = op.getLoc();
    Value base = threadOffsets(b, loc, src)[axis];
    // past - base: the chain's value where no condition holds.
    Value none = arith::SubIOp::create(b, loc, constI32(b, loc, *past), base);
    SmallVector<Value> partial;
    for (auto &group : groups) {
      llvm::sort(group, [](auto &x, auto &y) { return x.first > y.first; });
      Value index = none;
      for (auto [c, p] : group)
        index = arith::SelectOp::create(b, loc, p, constI32(b, loc, c), index);
      partial.push_back(arith::AddIOp::create(b, loc, base, index));
    }
    return partial;
  }

  /// Every warp writes its partial results to shared memory, then each
  /// thread combines the partials of all warps along the axis.
  LogicalResult reduceAcrossWarps(ConversionPatternRewriter &b,
                                  tile::ReduceOp op, const LinearLayout &src,
                                  ArrayRef<Basis> keys,
                                  SmallVectorImpl<Value> &partial,
                                  ArrayRef<unsigned> axisWarpBits) const {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    unsigned rank = src.getRank();
    ArrayRef<int64_t> shape = op.getSource().getType().getShape();
    Type elt = partial.front().getType();
    Type memElt = elt.isInteger(1) ? b.getI8Type() : elt;
    unsigned bytes = std::max(1u, bitWidth(memElt) / 8);
    unsigned slots = 1u << axisWarpBits.size();
    // The scratch holds one partial per warp slot for each element off the
    // axis (tile::getScratchBytes sized it).
    FailureOr<Value> scratch = getScratchMemory(b, loc, op);
    if (failed(scratch))
      return failure();
    Value base = *scratch;

    // This thread's coordinates off the axis, and its warp's slot.
    SmallVector<Value> offsets = threadOffsets(b, loc, src);
    ThreadIndex idx = getThreadIndex(b, loc);
    Value slot = constI32(b, loc, 0);
    for (auto [k, bit] : llvm::enumerate(axisWarpBits)) {
      Value v = arith::ShRUIOp::create(b, loc, idx.warp, constI32(b, loc, bit));
      v = arith::AndIOp::create(b, loc, v, constI32(b, loc, 1));
      v = arith::ShLIOp::create(b, loc, v, constI32(b, loc, k));
      slot = arith::OrIOp::create(b, loc, slot, v);
    }
    auto elementIndex = [&](const Basis &key) {
      Value index = constI32(b, loc, 0);
      for (unsigned d = 0; d < rank; ++d) {
        if (d == axis)
          continue;
        Value c = key[d] == 0
                      ? offsets[d]
                      : Value(arith::XOrIOp::create(b, loc, offsets[d],
                                                    constI32(b, loc, key[d])));
        index = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, index, constI32(b, loc, shape[d])),
            c);
      }
      return arith::MulIOp::create(b, loc, index, constI32(b, loc, slots));
    };
    auto toMem = [&](Value v) {
      return elt.isInteger(1) ? Value(arith::ExtUIOp::create(b, loc, memElt, v))
                              : v;
    };
    SmallVector<Value> firstIndex;
    for (auto [g, key] : llvm::enumerate(keys)) {
      Value index = elementIndex(key);
      firstIndex.push_back(index);
      Value at = arith::AddIOp::create(b, loc, index, slot);
      Value ptr = LLVM::GEPOp::create(b, loc, base.getType(), memElt, base,
                                      ValueRange{at});
      LLVM::StoreOp::create(b, loc, toMem(partial[g]), ptr, bytes);
    }
    createBarrier(b, loc, op);
    for (auto [g, key] : llvm::enumerate(keys)) {
      Value acc;
      for (unsigned s = 0; s < slots; ++s) {
        Value at =
            arith::AddIOp::create(b, loc, firstIndex[g], constI32(b, loc, s));
        Value ptr = LLVM::GEPOp::create(b, loc, base.getType(), memElt, base,
                                        ValueRange{at});
        Value v = LLVM::LoadOp::create(b, loc, memElt, ptr, bytes);
        if (elt.isInteger(1))
          v = arith::TruncIOp::create(b, loc, elt, v);
        acc = acc ? combine(b, loc, op.getKind(), acc, v) : v;
      }
      partial[g] = acc;
    }
    return success();
  }
};

/// An inclusive scan, bit by bit of the axis: after step k every element
/// holds the combination of its 2^(k+1)-aligned block up to itself. At step
/// k, an element whose bit k is set combines in the total of the lower half
/// of its block, which the element with bit k clear and the bits below set
/// holds: in a register of the same thread (bit k and the bits below from
/// registers), of another lane of the warp (a shuffle from that lane), or
/// of another warp (through scratch shared memory). Each bit of the axis
/// must come from one register, lane or warp bit whose basis has no other
/// component.
struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  enum class From { Reg, Lane, Warp };
  struct Provider {
    From from;
    unsigned bit;
  };

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    LinearLayout layout = getLinearLayout(type);
    unsigned axis = op.getAxis(), rank = layout.getRank();
    // Over the padded axis: its padding comes after the tile's elements, so
    // that no element's prefix includes it.
    int64_t n = layout.getShape()[axis];
    unsigned bits = llvm::Log2_64(n);
    // Which input bit gives each bit of the axis.
    SmallVector<std::optional<Provider>> providers(bits);
    auto classify = [&](ArrayRef<Basis> bases, From from) -> bool {
      for (auto [i, basis] : llvm::enumerate(bases)) {
        int64_t c = basis[axis];
        if (c == 0)
          continue;
        bool alone = llvm::isPowerOf2_64(c) && c < n;
        for (unsigned d = 0; d < rank && alone; ++d)
          alone = d == axis || basis[d] == 0;
        unsigned k = llvm::Log2_64(c);
        if (!alone || providers[k])
          return false;
        providers[k] = Provider{from, static_cast<unsigned>(i)};
      }
      return true;
    };
    if (!classify(layout.regs(), From::Reg) ||
        !classify(layout.lanes(), From::Lane) ||
        !classify(layout.warps(), From::Warp) ||
        llvm::any_of(providers, [](auto &p) { return !p; }))
      return op.emitError("scan: the layout does not give each bit of the "
                          "axis from one register, lane or warp bit");

    SmallVector<Value> regs(adaptor.getSource().begin(),
                            adaptor.getSource().end());
    ThreadIndex idx = getThreadIndex(rewriter, loc);
    auto bitOf = [&](Value v, unsigned bit) {
      Value s = arith::ShRUIOp::create(rewriter, loc, v,
                                       constI32(rewriter, loc, bit));
      s = arith::AndIOp::create(rewriter, loc, s, constI32(rewriter, loc, 1));
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, s,
                                   constI32(rewriter, loc, 0))
          .getResult();
    };
    Value base;
    SmallVector<Value> offsets;
    for (unsigned k = 0; k < bits; ++k) {
      bool viaWarps =
          llvm::any_of(ArrayRef(providers).take_front(k + 1),
                       [](const auto &p) { return p->from == From::Warp; });
      SmallVector<Value> lower(regs.size());
      if (!viaWarps) {
        // r' and the source lane: the register bits and lane bits of the
        // bits below k set, and of bit k clear.
        unsigned setRegs = 0, clearRegs = 0, setLanes = 0, clearLanes = 0;
        for (unsigned j = 0; j <= k; ++j) {
          unsigned &set = providers[j]->from == From::Reg ? setRegs : setLanes;
          unsigned &clear =
              providers[j]->from == From::Reg ? clearRegs : clearLanes;
          (j == k ? clear : set) |= 1u << providers[j]->bit;
        }
        Value srcLane;
        if (setLanes || clearLanes) {
          srcLane = arith::OrIOp::create(rewriter, loc, idx.lane,
                                         constI32(rewriter, loc, setLanes));
          srcLane = arith::AndIOp::create(rewriter, loc, srcLane,
                                          constI32(rewriter, loc, ~clearLanes));
        }
        DenseMap<unsigned, Value> fetched;
        for (unsigned r = 0; r < regs.size(); ++r) {
          unsigned from = (r | setRegs) & ~clearRegs;
          Value &v = fetched[from];
          if (!v)
            v = srcLane ? shuffle(rewriter, loc, regs[from], srcLane,
                                  NVVM::ShflKind::idx)
                        : regs[from];
          lower[r] = v;
        }
      } else {
        // Every element to scratch memory (row-major), then the one below.
        if (!base) {
          FailureOr<Value> scratch = getScratchMemory(rewriter, loc, op);
          if (failed(scratch))
            return failure();
          base = *scratch;
          offsets = threadOffsets(rewriter, loc, layout);
        } else {
          createBarrier(rewriter, loc, op); // the last step's reads
        }
        Type elt = type.getElementType();
        Type memElt = elt.isInteger(1) ? rewriter.getI8Type() : elt;
        unsigned bytes = std::max(1u, bitWidth(memElt) / 8);
        auto address = [&](ArrayRef<Value> coords) {
          Value index = constI32(rewriter, loc, 0);
          for (unsigned d = 0; d < rank; ++d)
            index = arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(
                    rewriter, loc, index,
                    constI32(rewriter, loc, type.getDimSize(d))),
                coords[d]);
          return LLVM::GEPOp::create(rewriter, loc, base.getType(), memElt,
                                     base, ValueRange{index});
        };
        for (unsigned r = 0; r < regs.size(); ++r) {
          Value v = regs[r];
          if (elt.isInteger(1))
            v = arith::ExtUIOp::create(rewriter, loc, memElt, v);
          LLVM::StoreOp::create(
              rewriter, loc, v,
              address(registerCoords(rewriter, loc, layout, offsets, r)),
              bytes);
        }
        createBarrier(rewriter, loc, op);
        int64_t low = (int64_t(1) << k) - 1, block = (int64_t(2) << k) - 1;
        std::map<SmallVector<int64_t>, Value> fetched;
        for (unsigned r = 0; r < regs.size(); ++r) {
          Basis key = layout.regCoords(r);
          key[axis] &= ~block;
          Value &v = fetched[SmallVector<int64_t>(key.begin(), key.end())];
          if (!v) {
            SmallVector<Value> coords =
                registerCoords(rewriter, loc, layout, offsets, r);
            Value c = arith::AndIOp::create(rewriter, loc, coords[axis],
                                            constI32(rewriter, loc, ~block));
            coords[axis] = arith::OrIOp::create(rewriter, loc, c,
                                                constI32(rewriter, loc, low));
            v = LLVM::LoadOp::create(rewriter, loc, memElt, address(coords),
                                     bytes);
            if (elt.isInteger(1))
              v = arith::TruncIOp::create(rewriter, loc, elt, v);
          }
          lower[r] = v;
        }
      }
      // Elements with bit k set take the lower half's total in.
      const Provider &p = *providers[k];
      Value laneOrWarpSet;
      if (p.from != From::Reg)
        laneOrWarpSet =
            bitOf(p.from == From::Lane ? idx.lane : idx.warp, p.bit);
      for (unsigned r = 0; r < regs.size(); ++r) {
        if (p.from == From::Reg) {
          if (r & (1u << p.bit))
            regs[r] = combine(rewriter, loc, op.getKind(), lower[r], regs[r]);
          continue;
        }
        Value combined =
            combine(rewriter, loc, op.getKind(), lower[r], regs[r]);
        regs[r] = arith::SelectOp::create(rewriter, loc, laneOrWarpSet,
                                          combined, regs[r]);
      }
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void tilec::populateReducePatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering>(converter, patterns.getContext());
}
