//===- ReducePatterns.cpp - Reductions: registers, lanes, warps -----------===//
//
// The reduced axis of a layout is spread over some register bits, some lane
// bits and some warp bits. The reduction follows the same order: registers
// that differ only along the axis are combined in the thread, then lanes by
// butterfly shuffles (after which every lane of a group has the result),
// then warps through shared memory.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

/// shfl.sync.bfly of any 32-bit-or-narrower value.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
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
                           constI32(b, loc, laneMask), constI32(b, loc, 0x1f),
                           NVVM::ShflKind::bfly, UnitAttr());
  if (isF32 || t.isInteger(32))
    return shuffled;
  unsigned bits = bitWidth(t);
  Value narrow =
      arith::TruncIOp::create(b, loc, b.getIntegerType(bits), shuffled);
  return bits == 1 ? narrow : Value(LLVM::BitcastOp::create(b, loc, t, narrow));
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
    unsigned rank = src.getRank();
    ValueRange regs = adaptor.getSource();
    Type elt = srcType.getElementType();

    // 1. In-thread: group registers by their coordinates off the axis, and
    // combine each group as a balanced tree, so that its depth is log2 of
    // the group's size rather than the size (a softmax row max of 32
    // registers: 5 dependent steps, not 31).
    SmallVector<Basis> keys;
    SmallVector<SmallVector<Value>> groups;
    for (unsigned r = 0; r < src.getNumRegs(); ++r) {
      Basis key = src.regCoords(r);
      key[axis] = 0;
      auto it = llvm::find(keys, key);
      if (it == keys.end()) {
        keys.push_back(key);
        groups.push_back({regs[r]});
      } else {
        groups[it - keys.begin()].push_back(regs[r]);
      }
    }
    SmallVector<Value> partial;
    for (SmallVector<Value> &level : groups) {
      while (level.size() > 1) {
        SmallVector<Value> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2)
          next.push_back(
              combine(rewriter, loc, op.getKind(), level[i], level[i + 1]));
        if (level.size() % 2)
          next.push_back(level.back());
        level = std::move(next);
      }
      partial.push_back(level.front());
    }
    // 2. Across lanes.
    for (auto [i, basis] : llvm::enumerate(src.lanes()))
      if (basis[axis] != 0)
        for (Value &v : partial)
          v = combine(rewriter, loc, op.getKind(), v,
                      shuffleXor(rewriter, loc, v, 1u << i));
    // 3. Across warps.
    SmallVector<unsigned> axisWarpBits;
    for (auto [j, basis] : llvm::enumerate(src.warps()))
      if (basis[axis] != 0)
        axisWarpBits.push_back(j);
    if (!axisWarpBits.empty() &&
        failed(
            reduceAcrossWarps(rewriter, op, src, keys, partial, axisWarpBits)))
      return failure();

    // The result registers, by coordinates.
    SmallVector<int64_t> keepShape(srcType.getShape());
    keepShape[axis] = 1;
    SmallVector<bool> zero(rank, false);
    zero[axis] = true;
    LinearLayout reduced = src.zeroDims(zero, keepShape);
    auto toKeep = [&](ArrayRef<int64_t> c) {
      Basis k(c);
      if (!op.getKeepdims())
        k.insert(k.begin() + axis, 0);
      return k;
    };
    for (unsigned i = 0; i < dst.lanes().size(); ++i)
      if (toKeep(dst.lanes()[i]) != reduced.lanes()[i])
        return op.emitError("reduce: the result layout is not the reduced "
                            "source layout");
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

} // namespace

void tilec::populateReducePatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, patterns.getContext());
}
