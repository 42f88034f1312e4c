//===- LayoutPatterns.cpp - Tile construction and redistribution ----------===//
//
// tile.full, tile.arange, and the ops that only re-index a tile
// (broadcast, expand_dims, reshape, permute, and convert_layout and extract
// between layouts that keep every element in its thread) pick registers by
// coordinates. A conversion that moves data between the lanes of each warp
// only is rounds of shuffles (tile::WarpShufflePlan). Other layout
// conversions and extracts, and concatenations, go through shared memory:
// each thread writes the elements it holds and reads the ones it needs, in
// as wide accesses as both layouts allow.
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

struct FullLowering : OpConversionPattern<tile::FullOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::FullOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned n = getLinearLayout(op.getType()).getNumRegs();
    SmallVector<Value> regs(n, adaptor.getValue().front());
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct ArangeLowering : OpConversionPattern<tile::ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ArangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout layout = getLinearLayout(op.getType());
    Location loc = op.getLoc();
    SmallVector<Value> offsets = threadOffsets(rewriter, loc, layout);
    SmallVector<Value> regs;
    for (unsigned r = 0; r < layout.getNumRegs(); ++r)
      regs.push_back(registerCoords(rewriter, loc, layout, offsets, r)[0]);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// Lowers an op whose result elements are source elements at coordinates
/// `toSrc` maps to, held by the same thread.
LogicalResult
lowerByRegisterMapping(Operation *op, Type srcType, ValueRange srcRegs,
                       Type dstType,
                       function_ref<Basis(ArrayRef<int64_t>)> toSrc,
                       ConversionPatternRewriter &rewriter) {
  LinearLayout src = getLinearLayout(srcType);
  LinearLayout dst = getLinearLayout(dstType);
  auto mapping = registerMapping(src, dst, toSrc);
  if (!mapping)
    return op->emitError("the layouts of this op's operand and result do not "
                         "keep elements in their threads");
  SmallVector<Value> regs;
  for (unsigned r : *mapping)
    regs.push_back(srcRegs[r]);
  rewriter.replaceOpWithMultiple(op, {regs});
  return success();
}

struct BroadcastLowering : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSource().getType().getShape();
    auto toSrc = [&](ArrayRef<int64_t> c) {
      Basis s(c);
      for (unsigned d = 0; d < s.size(); ++d)
        if (srcShape[d] == 1)
          s[d] = 0;
      return s;
    };
    return lowerByRegisterMapping(op, op.getSource().getType(),
                                  adaptor.getSource(), op.getType(), toSrc,
                                  rewriter);
  }
};

struct ExpandDimsLowering : OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    auto toSrc = [&](ArrayRef<int64_t> c) {
      Basis s(c);
      s.erase(s.begin() + axis);
      return s;
    };
    return lowerByRegisterMapping(op, op.getSource().getType(),
                                  adaptor.getSource(), op.getType(), toSrc,
                                  rewriter);
  }
};

/// Reshapes, in registers: those that add or remove unit dimensions (of
/// any tile), and those that split or join dimensions that are powers of
/// two, or padded to one where outermost (tile::isBitReshape: an element
/// keeps its row-major index in the padded shapes),
/// where tile-assign-layouts gave the result a layout that holds each
/// element where the operand's did.
struct ReshapeLowering : OpConversionPattern<tile::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSource().getType().getShape();
    ArrayRef<int64_t> dstShape = op.getType().getShape();
    auto match = tile::matchNonUnitDims(srcShape, dstShape);
    if (!match) {
      if (!tile::isBitReshape(dstShape, srcShape))
        return op.emitError(
            "only reshapes that add or remove dimensions of size 1, or "
            "that split or join dimensions whose extents are powers of two "
            "but for the outermost of each split or joined group, are "
            "supported by code generation for tiles with a dimension that "
            "is not a power of two");
      auto toSrc = [&](ArrayRef<int64_t> c) {
        return *tile::reshapeCoords(c, dstShape, srcShape);
      };
      return lowerByRegisterMapping(op, op.getSource().getType(),
                                    adaptor.getSource(), op.getType(), toSrc,
                                    rewriter);
    }
    auto &[srcDims, dstDims] = *match;
    auto toSrc = [&](ArrayRef<int64_t> c) {
      Basis s(srcShape.size(), 0);
      for (unsigned i = 0; i < srcDims.size(); ++i)
        s[srcDims[i]] = c[dstDims[i]];
      return s;
    };
    return lowerByRegisterMapping(op, op.getSource().getType(),
                                  adaptor.getSource(), op.getType(), toSrc,
                                  rewriter);
  }
};

struct PermuteLowering : OpConversionPattern<tile::PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::PermuteOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int32_t> perm = op.getPermutation();
    auto toSrc = [&](ArrayRef<int64_t> c) {
      Basis s(c.size(), 0);
      for (unsigned i = 0; i < c.size(); ++i)
        s[perm[i]] = c[i];
      return s;
    };
    return lowerByRegisterMapping(op, op.getSource().getType(),
                                  adaptor.getSource(), op.getType(), toSrc,
                                  rewriter);
  }
};

/// The element offset of coordinates `at` with `stride`s.
int64_t linearOffset(ArrayRef<int64_t> at, ArrayRef<int64_t> stride) {
  int64_t offset = 0;
  for (unsigned d = 0; d < at.size(); ++d)
    offset += at[d] * stride[d];
  return offset;
}

/// The shared-memory order for a conversion: the destination's contiguous
/// register dimension fastest, so that reads are as wide as possible.
SmallVector<unsigned> sharedOrder(const LinearLayout &dst,
                                  const LinearLayout &src) {
  unsigned rank = dst.getRank();
  unsigned fastest = rank - 1;
  for (const LinearLayout *l : {&dst, &src}) {
    bool found = false;
    for (unsigned d = 0; d < rank && !found; ++d)
      if (contiguousRegisters(*l, d) > 0) {
        fastest = d;
        found = true;
      }
    if (found)
      break;
  }
  SmallVector<unsigned> order = {fastest};
  for (int d = rank - 1; d >= 0; --d)
    if (static_cast<unsigned>(d) != fastest)
      order.push_back(d);
  return order;
}

/// Writes all registers of `layout` to shared memory in `order`, or reads
/// them back, `vec` registers per access when they are contiguous. The
/// buffer has `bufferShape` (the layout's shape when empty) and the tile
/// sits in it at `at` (the origin when empty).
SmallVector<Value>
accessShared(OpBuilder &b, Location loc, Value base, const LinearLayout &layout,
             ArrayRef<int64_t> tileShape, ArrayRef<unsigned> order, Type elt,
             ValueRange toStore, ArrayRef<int64_t> bufferShape = {},
             ArrayRef<int64_t> at = {}) {
  elt = registerType(elt);
  unsigned rank = layout.getRank();
  ArrayRef<int64_t> shape =
      bufferShape.empty() ? layout.getShape() : bufferShape;
  unsigned bytes = std::max(1u, bitWidth(elt) / 8);
  unsigned vecLog = contiguousRegisters(layout, order[0]);
  unsigned vec = std::min<unsigned>(1u << vecLog, std::max(1u, 16 / bytes));
  if (bitWidth(elt) < 8)
    vec = 1;
  // Aligned where the tile sits in the buffer.
  while (!at.empty() && vec > 1 && at[order[0]] % vec)
    vec /= 2;
  SmallVector<Value> offsets = threadOffsets(b, loc, layout);
  // Strides of the row-major-in-`order` buffer.
  SmallVector<int64_t> stride(rank);
  int64_t s = 1;
  for (unsigned d : order) {
    stride[d] = s;
    s *= shape[d];
  }
  Type memElt = elt.isInteger(1) ? b.getI8Type() : elt;
  SmallVector<Value> loaded(layout.getNumRegs());
  for (unsigned r = 0; r < layout.getNumRegs(); r += vec) {
    // A padded tile's vectors of padding only: neither written nor read.
    if (isPaddingRegister(layout, tileShape, r, vec)) {
      if (toStore.empty())
        for (unsigned j = 0; j < vec; ++j)
          loaded[r + j] = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
      continue;
    }
    SmallVector<Value> coords = registerCoords(b, loc, layout, offsets, r);
    Value index = constI32(b, loc, at.empty() ? 0 : linearOffset(at, stride));
    for (unsigned d = 0; d < rank; ++d)
      index = arith::AddIOp::create(
          b, loc, index,
          arith::MulIOp::create(b, loc, coords[d],
                                constI32(b, loc, stride[d])));
    Value ptr = LLVM::GEPOp::create(b, loc, base.getType(), memElt, base,
                                    ValueRange{index});
    Type accessType = vec == 1 ? memElt : Type(VectorType::get(vec, memElt));
    if (!toStore.empty()) {
      Value v;
      if (vec == 1) {
        v = toStore[r];
        if (elt.isInteger(1))
          v = arith::ExtUIOp::create(b, loc, memElt, v);
      } else {
        v = LLVM::UndefOp::create(b, loc, accessType);
        for (unsigned j = 0; j < vec; ++j)
          v = LLVM::InsertElementOp::create(b, loc, v, toStore[r + j],
                                            constI32(b, loc, j));
      }
      LLVM::StoreOp::create(b, loc, v, ptr, vec * bytes);
      continue;
    }
    Value v = LLVM::LoadOp::create(b, loc, accessType, ptr, vec * bytes);
    if (vec == 1) {
      loaded[r] =
          elt.isInteger(1) ? Value(arith::TruncIOp::create(b, loc, elt, v)) : v;
      continue;
    }
    for (unsigned j = 0; j < vec; ++j)
      loaded[r + j] =
          LLVM::ExtractElementOp::create(b, loc, v, constI32(b, loc, j));
  }
  return loaded;
}

/// Through `op`'s scratch memory: every register of `src` written, a
/// barrier, and `dst`'s registers read back from the sub-tile at `at` (the
/// origin when empty) of the source's shape: a layout conversion, or an
/// extract, that moves data between threads.
FailureOr<SmallVector<Value>>
throughScratch(ConversionPatternRewriter &rewriter, Operation *op,
               RankedTensorType srcType, ValueRange srcRegs,
               RankedTensorType dstType, ArrayRef<int64_t> at = {}) {
  LinearLayout src = getLinearLayout(srcType), dst = getLinearLayout(dstType);
  Location loc = op->getLoc();
  Type elt = getElementTypeOrSelf(op->getResult(0).getType());
  FailureOr<Value> scratch = getScratchMemory(rewriter, loc, op);
  if (failed(scratch))
    return failure();
  SmallVector<unsigned> order = sharedOrder(dst, src);
  // A padded sub-tile's padding may reach past the source: the buffer
  // covers both, as tile::getScratchBytes sized it.
  SmallVector<int64_t> buffer =
      tile::getSubTileScratchShape(src.getShape(), at, dst.getShape());
  accessShared(rewriter, loc, *scratch, src, srcType.getShape(), order, elt,
               srcRegs, buffer);
  createBarrier(rewriter, loc, op);
  return accessShared(rewriter, loc, *scratch, dst, dstType.getShape(), order,
                      elt, ValueRange(), buffer, at);
}

/// The registers of `dst` from those of `src` by the rounds of `plan`: in
/// each, every lane sends the word (the elements of its pack bits) its
/// reader wants, picked by its own lane bits, and reads the word of the
/// lane the plan gives it, which fills the registers the twist picks.
SmallVector<Value> shuffleWithinWarps(OpBuilder &b, Location loc,
                                      const tile::WarpShufflePlan &plan,
                                      ValueRange srcRegs, unsigned numDstRegs) {
  Type elt = srcRegs.front().getType();
  Type i32 = b.getI32Type();
  Value lane = getThreadIndex(b, loc).lane;
  SmallVector<Value> laneBits(plan.readLane.size());
  auto laneBit = [&](unsigned j) {
    if (!laneBits[j]) {
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, constI32(b, loc, j)),
          constI32(b, loc, 1));
      laneBits[j] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit,
                                          constI32(b, loc, 0));
    }
    return laneBits[j];
  };
  // valueAt(lane bits) chosen by this lane's bits among `masks` (the
  // lane-bit columns of a linear choice): a tree of selects.
  auto mux = [&](ArrayRef<uint64_t> masks,
                 function_ref<Value(uint64_t)> valueAt) {
    SmallVector<unsigned> bits;
    for (auto [j, m] : llvm::enumerate(masks))
      if (m)
        bits.push_back(j);
    std::function<Value(unsigned, uint64_t)> pick = [&](unsigned k,
                                                        uint64_t chosen) {
      if (k == bits.size())
        return valueAt(chosen);
      Value off = pick(k + 1, chosen);
      Value on = pick(k + 1, chosen | uint64_t(1) << bits[k]);
      return Value(arith::SelectOp::create(b, loc, laneBit(bits[k]), on, off));
    };
    return pick(0, 0);
  };
  unsigned perWord = 1u << plan.packBits.size();
  unsigned wordBits = perWord * plan.elementBits;
  auto toWord = [&](ArrayRef<Value> elements) {
    Value w = packWords(b, loc, elements).front();
    return wordBits < 32 ? Value(arith::ExtUIOp::create(b, loc, i32, w)) : w;
  };
  // The lane this lane reads, but for the round's constant: P lane (the
  // lane bits P keeps in place, then one select per other bit).
  uint64_t kept = plan.keptLaneBits();
  Value readLane = lane;
  if (kept != (uint64_t(1) << plan.readLane.size()) - 1) {
    readLane = arith::AndIOp::create(b, loc, lane, constI32(b, loc, kept));
    for (auto [j, p] : llvm::enumerate(plan.readLane))
      if (!(kept >> j & 1))
        readLane = arith::XOrIOp::create(
            b, loc, readLane,
            arith::SelectOp::create(b, loc, laneBit(j), constI32(b, loc, p),
                                    constI32(b, loc, 0)));
  }
  unsigned rounds = 1u << plan.roundBits.size();
  DenseMap<uint64_t, Value> received; // round's register bits -> word
  for (unsigned i = 0; i < rounds; ++i) {
    uint64_t r0 = plan.roundRegs(i);
    uint64_t lane0 = plan.srcLaneOf(r0);
    uint64_t base = plan.srcRegOf(r0) ^ plan.sendRegOf(lane0);
    Value word = mux(plan.sendReg, [&](uint64_t own) {
      SmallVector<Value> elements;
      for (unsigned u = 0; u < perWord; ++u)
        elements.push_back(srcRegs[base ^ plan.srcRegOf(plan.packOffset(u)) ^
                                   plan.sendRegOf(own)]);
      return toWord(elements);
    });
    if (!plan.readsOwnLane(r0)) {
      Value from = lane0 ? Value(arith::XOrIOp::create(b, loc, readLane,
                                                       constI32(b, loc, lane0)))
                         : readLane;
      word = NVVM::ShflOp::create(b, loc, i32, constI32(b, loc, -1), word, from,
                                  constI32(b, loc, 0x1f), NVVM::ShflKind::idx,
                                  UnitAttr());
    }
    received[r0] = word;
  }
  SmallVector<Value> dst(numDstRegs);
  for (unsigned i = 0; i < rounds; ++i) {
    uint64_t r = plan.roundRegs(i);
    Value word = mux(plan.twist, [&](uint64_t own) {
      return received.lookup(r ^ plan.twistOf(own));
    });
    if (wordBits < 32)
      word = arith::TruncIOp::create(b, loc, b.getIntegerType(wordBits), word);
    SmallVector<Value> elements = unpackWords(b, loc, {word}, elt, perWord);
    for (unsigned u = 0; u < perWord; ++u)
      dst[r | plan.packOffset(u)] = elements[u];
  }
  return dst;
}

struct ConvertLayoutLowering : OpConversionPattern<tile::ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type srcType = op.getSource().getType();
    LinearLayout src = getLinearLayout(srcType);
    LinearLayout dst = getLinearLayout(op.getType());
    auto identity = [](ArrayRef<int64_t> c) { return Basis(c); };
    if (auto mapping = registerMapping(src, dst, identity)) {
      SmallVector<Value> regs;
      for (unsigned r : *mapping)
        regs.push_back(adaptor.getSource()[r]);
      rewriter.replaceOpWithMultiple(op, {regs});
      return success();
    }
    auto dstType = op.getType();
    if (auto plan = tile::getWarpShufflePlan(
            src, dst, dstType.getElementTypeBitWidth())) {
      rewriter.replaceOpWithMultiple(
          op, {shuffleWithinWarps(rewriter, op.getLoc(), *plan,
                                  adaptor.getSource(), dst.getNumRegs())});
      return success();
    }
    FailureOr<SmallVector<Value>> regs =
        throughScratch(rewriter, op, cast<RankedTensorType>(srcType),
                       adaptor.getSource(), op.getType());
    if (failed(regs))
      return failure();
    rewriter.replaceOpWithMultiple(op, {*regs});
    return success();
  }
};

/// A sub-tile: the source registers that hold it when the same threads do
/// (tile::extractRegisters), else through scratch shared memory (the source
/// written, the sub-tile read at its offsets).
struct ExtractLowering : OpConversionPattern<tile::ExtractOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ExtractOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSource().getType();
    if (auto from =
            tile::extractRegisters(srcType, op.getType(), op.getOffsets())) {
      SmallVector<Value> regs;
      for (unsigned r : *from)
        regs.push_back(adaptor.getSource()[r]);
      rewriter.replaceOpWithMultiple(op, {regs});
      return success();
    }
    FailureOr<SmallVector<Value>> regs =
        throughScratch(rewriter, op, srcType, adaptor.getSource(), op.getType(),
                       op.getOffsets());
    if (failed(regs))
      return failure();
    rewriter.replaceOpWithMultiple(op, {*regs});
    return success();
  }
};

/// The inputs' registers where the same threads hold each input as the
/// result (tile::concatRegisters; padding registers zero), else the inputs
/// written to scratch shared memory at their offsets along the axis, the
/// result read back.
struct ConcatLowering : OpConversionPattern<tile::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ConcatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Location loc = op.getLoc();
    Type elt = type.getElementType();
    if (auto from = tile::concatRegisters(op)) {
      SmallVector<Value> regs;
      Value zero;
      for (auto [input, reg] : *from) {
        if (input < 0) {
          if (!zero)
            zero = tile::zeroOf(rewriter, loc, elt);
          regs.push_back(zero);
          continue;
        }
        regs.push_back(adaptor.getInputs()[input][reg]);
      }
      rewriter.replaceOpWithMultiple(op, {regs});
      return success();
    }
    LinearLayout dst = getLinearLayout(type);
    FailureOr<Value> scratch = getScratchMemory(rewriter, loc, op);
    if (failed(scratch))
      return failure();
    SmallVector<unsigned> order =
        sharedOrder(dst, getLinearLayout(op.getInputs().front().getType()));
    SmallVector<int64_t> at(type.getRank(), 0);
    // An input's padding along the axis would land on the next input.
    // (The last input's padding lands past the result, in its padding.)
    for (Value input : op.getInputs().drop_back())
      if (int64_t size =
              cast<RankedTensorType>(input.getType()).getDimSize(op.getAxis());
          tile::isPadded(size))
        return op.emitError()
               << "cat(): a tile of " << size << " along axis " << op.getAxis()
               << " is not a power of two; only the last tile joined may be";
    int64_t total = type.getDimSize(op.getAxis());
    int64_t last = cast<RankedTensorType>(op.getInputs().back().getType())
                       .getDimSize(op.getAxis());
    if (total - last + int64_t(llvm::PowerOf2Ceil(last)) >
        dst.getShape()[op.getAxis()])
      return op.emitError() << "cat(): the last tile's " << last
                            << " along axis " << op.getAxis()
                            << ", padded, would reach past the result's "
                               "padding";
    for (auto [input, regs] : llvm::zip(op.getInputs(), adaptor.getInputs())) {
      auto inputType = cast<RankedTensorType>(input.getType());
      accessShared(rewriter, loc, *scratch, getLinearLayout(inputType),
                   inputType.getShape(), order, elt, regs, dst.getShape(), at);
      at[op.getAxis()] +=
          cast<RankedTensorType>(input.getType()).getDimSize(op.getAxis());
    }
    createBarrier(rewriter, loc, op);
    SmallVector<Value> regs =
        accessShared(rewriter, loc, *scratch, dst, type.getShape(), order, elt,
                     ValueRange());
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void tilec::populateLayoutPatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<FullLowering, ArangeLowering, BroadcastLowering,
               ExpandDimsLowering, ReshapeLowering, PermuteLowering,
               ConvertLayoutLowering, ExtractLowering, ConcatLowering>(
      converter, patterns.getContext());
}
