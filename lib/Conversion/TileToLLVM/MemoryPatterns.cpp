//===- MemoryPatterns.cpp - Tile loads and stores in global memory --------===//
//
// A global tensor is a pointer, its sizes and its strides (in elements).
// Each thread accesses the elements its layout gives it, in vectors of up to
// 16 bytes where consecutive registers are contiguous along the tensor's
// contiguous dimension; each vector is predicated on being inside the
// tensor (elements outside read as the padding value and are not written).
//
// Vectorization relies on the kernel's alignment contract, which the runtime
// checks at launch: the base pointer and every stride but the last are
// multiples of the vector size, the last stride is 1, and the last size is a
// multiple of the vector length (see tilec/Target/KernelInfo.h). Addresses
// take the last stride as the constant 1.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/IndexAnalysis.h"
#include "Tile/IR/Views.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;

namespace {

/// The kernel attribute with the alignment (bytes) tensors are assumed to
/// have; set by the compiler driver.
constexpr StringLiteral kTensorAlignmentAttr = "tile.tensor_alignment";

/// The alignment (bytes) the accesses of `op` (whose first operand is the
/// tensor) may assume: the kernel's, less where the tensor is a view
/// starting or ending along its contiguous dimension at a place not known
/// to be as aligned.
unsigned tensorAlignment(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  unsigned alignment = 16;
  if (auto a = func->getAttrOfType<IntegerAttr>(kTensorAlignmentAttr))
    alignment = a.getInt();
  Value tensor = op->getOperand(0);
  auto type = cast<tile::GlobalTensorType>(tensor.getType());
  unsigned elemBytes = std::max(1u, bitWidth(type.getElementType()) / 8);
  return unsigned(std::min<int64_t>(
      alignment, tile::getViewContiguousDivisor(tensor) * elemBytes));
}

struct Access {
  SmallVector<Value> viewCoords; // per view dimension, i32
  Value inBounds;                // i1
  Value address;                 // !llvm.ptr<1>
  /// The element is the tile's own, not its padding (i1; null where the
  /// tile is not padded).
  Value inTile;
};

/// The boxes of a gathered access (tile.load, tile.async_copy): the box
/// coordinates in element order, each held by every thread, and the view
/// dimension they gather.
struct GatheredBoxes {
  SmallVector<Value> boxes;
  unsigned dim = 0;
};

/// The boxes of `op`'s gathered access from its converted `regs`; nullopt
/// without boxes.
FailureOr<std::optional<GatheredBoxes>>
gatheredBoxes(Operation *op, Value boxes, std::optional<uint32_t> dim,
              ValueRange regs) {
  if (!boxes)
    return std::optional<GatheredBoxes>();
  auto elements = replicatedElements(op, boxes, regs);
  if (failed(elements))
    return failure();
  return std::optional<GatheredBoxes>(GatheredBoxes{*elements, *dim});
}

/// Shared by load and store: the address and bounds check of the vector
/// starting at register `reg`.
class TileAccess {
public:
  TileAccess(OpBuilder &b, Location loc, Operation *op, ValueRange tensor,
             ValueRange indices, ArrayRef<int64_t> shape, Type elt,
             LinearLayout layoutIn, std::optional<ArrayRef<int32_t>> order,
             std::optional<GatheredBoxes> gathered = std::nullopt)
      : b(b), loc(loc), tensor(tensor), elt(elt), layout(std::move(layoutIn)),
        shape(shape), gathered(std::move(gathered)) {
    unsigned rank = shape.size();
    for (unsigned i = 0; i < rank; ++i)
      perm.push_back(order && !order->empty() ? (*order)[i] : i);
    // Tile origin in view coordinates.
    for (unsigned i = 0; i < rank; ++i)
      origin.push_back(arith::MulIOp::create(b, loc, indices[i],
                                             constI32(b, loc, shape[i])));
    offsets = threadOffsets(b, loc, layout);
    // The view dimension on the tensor's contiguous (last) dimension.
    contig = rank - 1;
    for (unsigned i = 0; i < rank; ++i)
      if (perm[i] == rank - 1)
        contig = i;
    unsigned elemBytes = std::max(1u, bitWidth(elt) / 8);
    unsigned maxVec =
        std::max(1u, std::min(16u, tensorAlignment(op)) / elemBytes);
    vec = std::min<unsigned>(1u << contiguousRegisters(layout, contig), maxVec);
    // A padded tile's vectors stay on one side of its edge.
    vec = std::min(vec, paddedVectorLimit(layout, shape, contig));
    // And a gathered access's within one box.
    if (this->gathered && this->gathered->dim == contig)
      vec = std::min<unsigned>(vec,
                               1u << llvm::countr_zero(uint64_t(boxExtent())));
    recordVectorBytes(op, vec * elemBytes);
  }

  /// The extent of one box along the gathered dimension.
  int64_t boxExtent() const {
    return shape[gathered->dim] / int64_t(gathered->boxes.size());
  }

  unsigned getVectorLength() const { return vec; }
  unsigned getNumRegs() const { return layout.getNumRegs(); }
  /// Register `r` is padding in every thread: nothing to access.
  bool isPadding(unsigned r) const {
    return isPaddingRegister(layout, shape, r);
  }

  Access at(unsigned reg) {
    unsigned rank = layout.getRank();
    Access a;
    SmallVector<Value> coords = registerCoords(b, loc, layout, offsets, reg);
    Value ok;
    Value offset = constI64(b, loc, 0);
    for (unsigned i = 0; i < rank; ++i) {
      Value v = arith::AddIOp::create(b, loc, origin[i], coords[i]);
      if (gathered && gathered->dim == i)
        v = gatheredCoordinate(coords[i]);
      a.viewCoords.push_back(v);
      unsigned t = perm[i];
      Value size = tensor[1 + t];
      Value inDim =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v, size);
      ok = ok ? Value(arith::AndIOp::create(b, loc, ok, inDim)) : inDim;
      Value v64 = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
      // The last dimension's stride is 1 (the contract, checked at launch),
      // so that the offsets of a thread's registers along it fold into
      // constant address offsets.
      offset = arith::AddIOp::create(
          b, loc, offset,
          t == rank - 1 ? v64
                        : Value(arith::MulIOp::create(b, loc, v64,
                                                      tensor[1 + rank + t])));
    }
    // The tile's padding (past its own size) is never read or written.
    a.inBounds = andInsideTile(b, loc, layout, shape, coords, ok);
    a.inTile = andInsideTile(b, loc, layout, shape, coords, Value());
    a.address = LLVM::GEPOp::create(b, loc, tensor[0].getType(), elt, tensor[0],
                                    ValueRange{offset});
    return a;
  }

private:
  /// The coordinate of tile position `t` along the gathered dimension:
  /// boxes[t / B] * B + t mod B, the box picked by a chain of selects
  /// (which folds where t is known).
  Value gatheredCoordinate(Value t) {
    int64_t extent = boxExtent();
    Value bx = constI32(b, loc, extent);
    Value k = arith::DivUIOp::create(b, loc, t, bx);
    Value start = gathered->boxes.front();
    for (auto [i, box] : llvm::enumerate(gathered->boxes)) {
      if (i == 0)
        continue;
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k,
                                       constI32(b, loc, i));
      start = arith::SelectOp::create(b, loc, is, box, start);
    }
    return arith::AddIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, start, bx),
                                 arith::RemUIOp::create(b, loc, t, bx));
  }

  OpBuilder &b;
  Location loc;
  ValueRange tensor;
  Type elt;
  LinearLayout layout;
  SmallVector<int64_t> shape;
  std::optional<GatheredBoxes> gathered;
  SmallVector<unsigned> perm;
  SmallVector<Value> origin, offsets;
  unsigned contig = 0, vec = 1;
};

/// PTX register constraint and type suffix of a word of `bits` bits.
std::pair<const char *, const char *> wordKind(unsigned bits) {
  if (bits == 16)
    return {"h", "b16"};
  if (bits == 8)
    return {"h", "b8"};
  return {"r", "b32"};
}

/// `@p ld.global.vN.bW {outs}, [addr]` with the outputs set first to `fill`
/// (the bits of each word; zero where absent), so that lanes outside the
/// tensor read the padding with no select after the load.
SmallVector<Value> predicatedLoad(OpBuilder &b, Location loc, Value address,
                                  Value pred, unsigned words, unsigned bits,
                                  ArrayRef<uint64_t> fill = {}) {
  auto [constraint, suffix] = wordKind(bits);
  std::string asmText =
      "{\n .reg .pred p;\n setp.ne.b32 p, $" + std::to_string(words) + ", 0;\n";
  // A byte is loaded into a 16-bit register (PTX has no 8-bit registers):
  // zeroed as one.
  std::string movSuffix = bits == 8 ? "b16" : suffix;
  for (unsigned w = 0; w < words; ++w) {
    uint64_t bitsOfWord = fill.empty() ? 0 : fill[w];
    asmText += " mov." + movSuffix + " $" + std::to_string(w) + ", " +
               (bitsOfWord ? llvm::formatv("{0:x}", bitsOfWord).str()
                           : std::string("0")) +
               ";\n";
  }
  asmText += " @p ld.global";
  if (words > 1)
    asmText += ".v" + std::to_string(words);
  asmText += "." + std::string(suffix) + " {";
  for (unsigned w = 0; w < words; ++w)
    asmText += (w ? ", $" : "$") + std::to_string(w);
  asmText += "}, [$" + std::to_string(words + 1) + "];\n}";
  std::string constraints;
  for (unsigned w = 0; w < words; ++w)
    constraints += std::string("=") + constraint + ",";
  constraints += "r,l";
  Type wordType = b.getIntegerType(bits == 8 ? 16 : bits);
  SmallVector<Type> fields(words, wordType);
  Type resultType =
      words == 1
          ? wordType
          : Type(LLVM::LLVMStructType::getLiteral(b.getContext(), fields));
  Value p32 = arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
  // The asm reads memory: it must not be merged with, or moved across, a
  // store.
  Operation *asmOp = inlinePtx(b, loc, resultType, ValueRange{p32, address},
                               asmText, constraints);
  SmallVector<Value> out;
  if (words == 1) {
    out.push_back(asmOp->getResult(0));
  } else {
    for (unsigned w = 0; w < words; ++w)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp->getResult(0),
                                                 ArrayRef<int64_t>{w}));
  }
  if (bits == 8)
    for (Value &v : out)
      v = arith::TruncIOp::create(b, loc, b.getI8Type(), v);
  return out;
}

void predicatedStore(OpBuilder &b, Location loc, Value address, Value pred,
                     ArrayRef<Value> words, unsigned bits) {
  auto [constraint, suffix] = wordKind(bits);
  unsigned n = words.size();
  std::string asmText = "{\n .reg .pred p;\n setp.ne.b32 p, $0, 0;\n @p "
                        "st.global";
  if (n > 1)
    asmText += ".v" + std::to_string(n);
  asmText += "." + std::string(suffix) + " [$1], {";
  for (unsigned w = 0; w < n; ++w)
    asmText += (w ? ", $" : "$") + std::to_string(w + 2);
  asmText += "};\n}";
  std::string constraints = "r,l";
  SmallVector<Value> operands = {
      arith::ExtUIOp::create(b, loc, b.getI32Type(), pred), address};
  for (Value w : words) {
    constraints += std::string(",") + constraint;
    if (bits == 8)
      w = arith::ExtUIOp::create(b, loc, b.getI16Type(), w);
    operands.push_back(w);
  }
  inlinePtx(b, loc, TypeRange(), operands, asmText, constraints);
}

/// Words of one vector access: 32-bit words for 4 bytes and more, else one
/// word of the vector's width.
std::pair<unsigned, unsigned> wordShape(unsigned vec, unsigned elemBits) {
  unsigned totalBits = vec * elemBits;
  if (totalBits >= 32)
    return {totalBits / 32, 32};
  return {1, totalBits};
}

/// The register value of a load's `padding` for the tile's own padding
/// registers (never read from memory); null where it is absent or +0.
/// (Elements outside the tensor read it through paddingWords.)
Value paddingValue(OpBuilder &b, Location loc, Attribute pad) {
  if (tile::isZeroPadding(pad))
    return {};
  return arith::ConstantOp::create(b, loc,
                                   registerConstant(cast<TypedAttr>(pad)));
}

/// The bits of each of `words` words of `wordBits` holding `vec` elements of
/// `elemBits` that all equal `pad` (a load's or gather's padding), in the
/// order unpackWords reads them; empty where the padding is absent or +0.
SmallVector<uint64_t> paddingWords(Attribute pad, unsigned elemBits,
                                   unsigned vec, unsigned words,
                                   unsigned wordBits) {
  APInt elem;
  if (auto f = dyn_cast_or_null<FloatAttr>(pad))
    elem = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast_or_null<IntegerAttr>(pad))
    elem = i.getValue();
  else
    return {};
  elem = elem.zextOrTrunc(elemBits);
  if (elem.isZero())
    return {};
  APInt all(vec * elemBits, 0);
  for (unsigned j = 0; j < vec; ++j)
    all.insertBits(elem, j * elemBits);
  SmallVector<uint64_t> out;
  for (unsigned w = 0; w < words; ++w)
    out.push_back(all.extractBitsAsZExtValue(wordBits, w * wordBits));
  return out;
}

/// Reads the `vec` elements at `address` (`words` words of `wordBits`) when
/// `ok`, and appends them to `regs`: zeros outside, or the padding `pad` if
/// given, loaded as the words' initial bits.
void loadElements(OpBuilder &b, Location loc, Value address, Value ok,
                  unsigned words, unsigned wordBits, Type elt, unsigned vec,
                  Attribute pad, SmallVectorImpl<Value> &regs) {
  SmallVector<uint64_t> fill =
      paddingWords(pad, bitWidth(elt), vec, words, wordBits);
  SmallVector<Value> raw =
      predicatedLoad(b, loc, address, ok, words, wordBits, fill);
  for (Value v : unpackWords(b, loc, raw, elt, vec))
    regs.push_back(v);
}

struct LoadLowering : OpConversionPattern<tile::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elt = registerType(type.getElementType());
    if (elt.isInteger(1))
      return op.emitError("loading bool tensors is not supported yet");
    SmallVector<Value> indices;
    for (ValueRange v : adaptor.getIndices())
      indices.push_back(v.front());
    auto boxes =
        gatheredBoxes(op, op.getBoxes(), op.getBoxDim(),
                      op.getBoxes() ? adaptor.getBoxes() : ValueRange());
    if (failed(boxes))
      return failure();
    TileAccess access(rewriter, loc, op, adaptor.getTensor(), indices,
                      type.getShape(), elt, getLinearLayout(type),
                      op.getOrder(), *boxes);
    unsigned vec = access.getVectorLength();
    unsigned bits = bitWidth(elt);
    auto [words, wordBits] = wordShape(vec, bits);
    Value padding = paddingValue(rewriter, loc, op.getPaddingAttr());
    SmallVector<Value> regs;
    for (unsigned r = 0; r < access.getNumRegs(); r += vec) {
      if (access.isPadding(r)) {
        Value zero =
            arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elt));
        regs.append(vec, padding ? padding : zero);
        continue;
      }
      Access a = access.at(r);
      loadElements(rewriter, loc, a.address, a.inBounds, words, wordBits, elt,
                   vec, op.getPaddingAttr(), regs);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct StoreLowering : OpConversionPattern<tile::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type elt = registerType(type.getElementType());
    if (elt.isInteger(1))
      return op.emitError("storing bool tensors is not supported yet");
    SmallVector<Value> indices;
    for (ValueRange v : adaptor.getIndices())
      indices.push_back(v.front());
    // A value without the tile's unit dimensions (`shape`): its layout on
    // the whole tile.
    ArrayRef<int64_t> shape = type.getShape();
    LinearLayout layout = getLinearLayout(type);
    if (auto whole = op.getShape()) {
      shape = *whole;
      layout = unsqueezeLayout(layout, shape);
    }
    // A layout holding an element in several registers or warps: its first
    // register, in the first of those warps, stores it. (Were every warp to
    // store, a warp that read the tensor after another had stored, in a
    // read-modify-write of the same elements, would store its stale sum
    // after the other's. The lanes of one warp holding it store it in one
    // instruction, the value they read in one.)
    unsigned regMask = replicaMask(layout, LinearLayout::kRegister);
    Value owner = firstHolder(rewriter, loc, layout, /*lanes=*/false);
    TileAccess access(rewriter, loc, op, adaptor.getTensor(), indices, shape,
                      elt, std::move(layout), op.getOrder());
    unsigned vec = access.getVectorLength();
    auto [words, wordBits] = wordShape(vec, bitWidth(elt));
    (void)words;
    ValueRange values = adaptor.getValue();
    for (unsigned r = 0; r < access.getNumRegs(); r += vec) {
      if ((r & regMask) || access.isPadding(r))
        continue;
      Access a = access.at(r);
      SmallVector<Value> slice(values.slice(r, vec));
      SmallVector<Value> packed = packWords(rewriter, loc, slice);
      predicatedStore(rewriter, loc, a.address,
                      andOwner(rewriter, loc, a.inBounds, owner), packed,
                      wordBits);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Gathers and scatters: each thread reads or writes its elements at the
/// coordinates its index registers hold, in vectors along the tensor's last
/// dimension where the index analysis shows the last index running in steps
/// of one from an aligned start and the others constant over the vector
/// (then the vector is in or out of the tensor whole: the last size is a
/// multiple of the vector, the launch contract).
class IndexedAccess {
public:
  IndexedAccess(OpBuilder &b, Location loc, Operation *op, ValueRange tensor,
                ValueRange indexTiles, ArrayRef<ValueRange> indexRegs,
                RankedTensorType valueType, Type elt)
      : b(b), loc(loc), tensor(tensor), indexRegs(indexRegs), elt(elt),
        layout(getLinearLayout(valueType)), shape(valueType.getShape()) {
    // Registers run along the tile's last dimension; the tensor's last
    // index must step by one along it, and the other indices stay put.
    unsigned last = valueType.getRank() - 1;
    unsigned lastIndex = indexTiles.size() - 1;
    unsigned elemBytes = std::max(1u, bitWidth(elt) / 8);
    vec = 1u << contiguousRegisters(layout, last);
    vec = std::min(vec, paddedVectorLimit(layout, shape, last));
    if (tile::isPadded(shape))
      offsets = threadOffsets(b, loc, layout);
    vec = std::min(
        vec, std::max(1u, std::min(16u, tensorAlignment(op)) / elemBytes));
    tile::IndexRuns runs = tile::analyzeIndexRuns(indexTiles[lastIndex], last);
    vec = std::min<int64_t>(vec, std::min(runs.contiguous, runs.divisor));
    for (unsigned d = 0; d < lastIndex; ++d)
      vec = std::min<int64_t>(
          vec, tile::analyzeIndexRuns(indexTiles[d], last).constant);
    recordVectorBytes(op, vec * elemBytes);
  }

  unsigned getVectorLength() const { return vec; }

  /// The address and bounds check of the vector starting at register `r`.
  std::pair<Value, Value> at(unsigned r) {
    unsigned rank = indexRegs.size();
    Value ok, offset = constI64(b, loc, 0);
    for (unsigned d = 0; d < rank; ++d) {
      Value i = indexRegs[d][r];
      Value inDim = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                          tensor[1 + d]);
      ok = ok ? Value(arith::AndIOp::create(b, loc, ok, inDim)) : inDim;
      Value i64 = arith::ExtSIOp::create(b, loc, b.getI64Type(), i);
      offset = arith::AddIOp::create(
          b, loc, offset,
          d == rank - 1 ? i64
                        : Value(arith::MulIOp::create(b, loc, i64,
                                                      tensor[1 + rank + d])));
    }
    // The tile's padding (whose indices are undefined) is never accessed.
    if (!offsets.empty()) {
      ok = andInsideTile(b, loc, layout, shape,
                         registerCoords(b, loc, layout, offsets, r), ok);
    }
    Value address = LLVM::GEPOp::create(b, loc, tensor[0].getType(), elt,
                                        tensor[0], ValueRange{offset});
    return {address, ok};
  }

private:
  OpBuilder &b;
  Location loc;
  ValueRange tensor;
  ArrayRef<ValueRange> indexRegs;
  Type elt;
  LinearLayout layout;
  SmallVector<int64_t> shape;
  SmallVector<Value> offsets; // thread offsets, for a padded tile
  unsigned vec = 1;
};

struct GatherLowering : OpConversionPattern<tile::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elt = registerType(type.getElementType());
    SmallVector<ValueRange> indexRegs(adaptor.getIndices().begin(),
                                      adaptor.getIndices().end());
    IndexedAccess access(rewriter, loc, op, adaptor.getTensor(),
                         op.getIndices(), indexRegs, type, elt);
    unsigned vec = access.getVectorLength();
    auto [words, wordBits] = wordShape(vec, bitWidth(elt));
    SmallVector<Value> regs;
    unsigned n = getLinearLayout(type).getNumRegs();
    for (unsigned r = 0; r < n; r += vec) {
      auto [address, ok] = access.at(r);
      loadElements(rewriter, loc, address, ok, words, wordBits, elt, vec,
                   op.getPaddingAttr(), regs);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// The PTX of one predicated reduction of a register into global memory:
/// `$0` the predicate (i32), `$1` the address, `$2` the value's bits. With
/// `old`, an `atom` returning the element's old bits in `$0` (0 where the
/// predicate is off), the others one later.
std::string reductionPtx(tile::ReduceKind kind, Type elt, bool old = false) {
  std::string pred = old ? "$1" : "$0", addr = old ? "$2" : "$1",
              val = old ? "$3" : "$2";
  std::string head = "{\n .reg .pred p;\n setp.ne.b32 p, " + pred + ", 0;\n";
  if (old)
    head += " mov.b" + std::to_string(bitWidth(elt)) + " $0, 0;\n";
  auto instr = [&](StringRef op) {
    return old ? "atom.global." + op.str() + " $0, [" + addr + "], " + val
               : "red.global." + op.str() + " [" + addr + "], " + val;
  };
  auto one = [&](StringRef op) { return head + " @p " + instr(op) + ";\n}"; };
  if (kind == tile::ReduceKind::Sum) {
    if (elt.isF32())
      return one("add.f32");
    if (elt.isF16())
      return one("add.noftz.f16");
    if (elt.isBF16())
      return one("add.noftz.bf16");
    // (Two's complement: one add for signed and unsigned; PTX has no
    // add.s64 atomic.)
    return one(elt.isInteger(64) ? "add.u64" : "add.s32");
  }
  StringRef m = kind == tile::ReduceKind::Max ? "max" : "min";
  if (elt.isInteger(32) || elt.isInteger(64))
    return one((m + (elt.isInteger(64) ? ".s64" : ".s32")).str());
  // f32 through the integers: the bits of a float without its sign order
  // as signed integers do, and those of negative floats in reverse as
  // unsigned ones; any stored value compares correctly against either
  // (NaN aside). max: s32 max for x >= 0, u32 min for x < 0.
  StringRef flip = kind == tile::ReduceKind::Max ? "min" : "max";
  return "{\n .reg .pred p, q, n;\n setp.ne.b32 p, " + pred + ", 0;\n" +
         (old ? " mov.b32 $0, 0;\n" : "") + " setp.lt.s32 n, " + val +
         ", 0;\n and.pred q, p, n;\n and.pred p, p, !n;\n @p " +
         instr((m + ".s32").str()) + ";\n @q " + instr((flip + ".u32").str()) +
         ";\n}";
}

/// The PTX of one predicated vector sum of `vec` registers of f32, f16 or
/// bf16 into global memory (sm_90), with its constraints: `$0` the
/// predicate, `$1` the address, then the 32-bit words (16-bit elements in
/// pairs): red.global.add.v4.f32, red.global.add.noftz.v4.f16x2, and for one
/// word of two halves red.global.add.noftz.f16x2.
std::pair<std::string, std::string> vectorReductionPtx(Type elt, unsigned vec) {
  unsigned words = elt.isF32() ? vec : vec / 2;
  std::string vector = words > 1 ? "v" + std::to_string(words) + "." : "";
  std::string text =
      "{\n .reg .pred p;\n setp.ne.b32 p, $0, 0;\n @p red.global.add." +
      (elt.isF32() ? vector + "f32"
                   : "noftz." + vector + (elt.isF16() ? "f16x2" : "bf16x2")) +
      " [$1], ";
  std::string constraints = "r,l", list;
  for (unsigned w = 0; w < words; ++w) {
    list += (w ? ", $" : "$") + std::to_string(w + 2);
    constraints += ",r";
  }
  text += (words > 1 ? "{" + list + "}" : list) + ";\n}";
  return {text, constraints};
}

/// The `red.global` of every element of a tile of `type` (its registers
/// `values`) that this thread holds first (a layout may hold an element in
/// several registers or threads, the bases that are zero: only the holder
/// with those bits clear combines it), at `at(r)`: the address and bounds
/// check of the registers from `r`. On sm_90 (`vectorReductions`) a sum of
/// floats combines the `vec` registers contiguous along the tensor's last
/// dimension in one vector red (replicated registers are never among them:
/// a zero basis ends the contiguous run). `skip(r)`: registers that are not
/// the tile's own (a padded tile's). With `old`, each element by an `atom`
/// returning its old value instead, one element at a time, into `*old` (a
/// register of the tile's layout each): the registers and lanes that hold
/// an element again take the first holder's (a copy, a shuffle); a layout
/// holding it in several warps is refused.
LogicalResult
emitReductions(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
               RankedTensorType type, tile::ReduceKind kind, ValueRange values,
               unsigned vec, bool vectorReductions,
               llvm::function_ref<std::pair<Value, Value>(unsigned)> at,
               llvm::function_ref<bool(unsigned)> skip,
               SmallVectorImpl<Value> *old = nullptr) {
  Type elt = type.getElementType();
  LinearLayout layout = getLinearLayout(type);
  unsigned regMask = replicaMask(layout, LinearLayout::kRegister);
  unsigned zeros = llvm::popcount(regMask) +
                   llvm::popcount(replicaMask(layout, LinearLayout::kLane)) +
                   llvm::popcount(replicaMask(layout, LinearLayout::kWarp));
  if (layout.getMatrixRank() + zeros != layout.getTotalInBits())
    return op->emitError() << "atomics on a tile whose layout holds an "
                              "element in several places other than by "
                              "broadcast are not supported: "
                           << type;
  if (old && replicaMask(layout, LinearLayout::kWarp))
    return op->emitError()
           << "atomics returning the old values of a tile its layout holds in "
              "several warps (a tile of fewer elements than the block has "
              "threads) are not supported: "
           << type << "; use a larger tile or fewer warps";
  Value owner = firstHolder(rewriter, loc, layout);
  unsigned step = 1;
  std::string text, constraints;
  // The value's register class: 16, 32 or 64 bits.
  std::string reg = bitWidth(elt) == 16 ? "h" : bitWidth(elt) == 64 ? "l" : "r";
  if (old) {
    text = reductionPtx(kind, elt, /*old=*/true);
    constraints = "=" + reg + ",r,l," + reg;
  } else if (vectorReductions && kind == tile::ReduceKind::Sum &&
             (elt.isF32() || elt.isF16() || elt.isBF16()) && vec >= 2) {
    step = vec;
    std::tie(text, constraints) = vectorReductionPtx(elt, vec);
  } else {
    text = reductionPtx(kind, elt);
    constraints = "r,l," + reg;
  }
  Type word = rewriter.getIntegerType(bitWidth(elt));
  // The old values' bits, as `word`s (the element type once all are in).
  SmallVector<Value> bits(old ? values.size() : 0);
  for (unsigned r = 0; r < values.size(); r += step) {
    if ((r & regMask) || skip(r))
      continue;
    auto [address, inBounds] = at(r);
    Value pred = andOwner(rewriter, loc, inBounds, owner);
    SmallVector<Value> operands = {
        arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(), pred),
        address};
    if (step == 1) {
      Value v = values[r];
      if (v.getType() != word)
        v = arith::BitcastOp::create(rewriter, loc, word, v);
      operands.push_back(v);
    } else {
      SmallVector<Value> slice(values.slice(r, step));
      llvm::append_range(operands, packWords(rewriter, loc, slice));
    }
    if (!old) {
      inlinePtx(rewriter, loc, TypeRange(), operands, text, constraints);
      continue;
    }
    bits[r] =
        inlinePtx(rewriter, loc, TypeRange{word}, operands, text, constraints)
            ->getResult(0);
  }
  if (!old)
    return success();
  // Padding registers read as zeros; a register that holds an element again
  // copies the first.
  Value zero = arith::ConstantIntOp::create(rewriter, loc, word, 0);
  for (unsigned r = 0; r < values.size(); ++r)
    bits[r] = (r & regMask) ? bits[r & ~regMask] : bits[r] ? bits[r] : zero;
  // Lanes that hold an element again take it from the first holder.
  if (unsigned laneMask = replicaMask(layout, LinearLayout::kLane)) {
    Type i32 = rewriter.getI32Type();
    ThreadIndex t = getThreadIndex(rewriter, loc);
    Value from = arith::AndIOp::create(rewriter, loc, t.lane,
                                       constI32(rewriter, loc, ~laneMask & 31));
    // (A shuffle a 32-bit word: an i64's two, a 16-bit value widened.)
    bool wide = bitWidth(word) > 32;
    for (Value &b : bits) {
      SmallVector<Value> words =
          wide ? packWords(rewriter, loc, {b})
               : SmallVector<Value>{word == i32 ? b
                                                : arith::ExtUIOp::create(
                                                      rewriter, loc, i32, b)};
      for (Value &w : words)
        w = NVVM::ShflOp::create(
            rewriter, loc, i32, constI32(rewriter, loc, -1), w, from,
            constI32(rewriter, loc, 0x1f), NVVM::ShflKind::idx, UnitAttr());
      b = wide ? unpackWords(rewriter, loc, words, word, 1).front()
          : word == i32
              ? words.front()
              : arith::TruncIOp::create(rewriter, loc, word, words.front());
    }
  }
  old->clear();
  for (auto [b, v] : llvm::zip(bits, values))
    old->push_back(
        b.getType() == v.getType()
            ? b
            : Value(arith::BitcastOp::create(rewriter, loc, v.getType(), b)));
  return success();
}

/// Ends an atomic's lowering: its old values (`old`) where it returns them,
/// else nothing.
static void replaceAtomic(ConversionPatternRewriter &rewriter, Operation *op,
                          SmallVectorImpl<Value> &old) {
  if (op->getNumResults())
    rewriter.replaceOpWithMultiple(op, {old});
  else
    rewriter.eraseOp(op);
}

/// tile.scatter: each vector of registers by a predicated store at the
/// addresses its index registers name. With `combine`, by `red.global`
/// instead (as tile.atomic_rmw): each element once, by the first holder of
/// a layout that replicates it, a sum of floats on sm_90 in vectors where
/// the indices run contiguously along the tensor's last dimension.
struct ScatterLowering : OpConversionPattern<tile::ScatterOp> {
  ScatterLowering(TileTypeConverter &converter, MLIRContext *ctx,
                  bool vectorReductions)
      : OpConversionPattern(converter, ctx),
        vectorReductions(vectorReductions) {}
  bool vectorReductions;

  LogicalResult
  matchAndRewrite(tile::ScatterOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type elt = registerType(type.getElementType());
    SmallVector<ValueRange> indexRegs(adaptor.getIndices().begin(),
                                      adaptor.getIndices().end());
    IndexedAccess access(rewriter, loc, op, adaptor.getTensor(),
                         op.getIndices(), indexRegs, type, elt);
    unsigned vec = access.getVectorLength();
    ValueRange values = adaptor.getValue();
    std::optional<tile::ReduceKind> combine = op.getCombine();
    if (!combine) {
      // Each element from one register and warp, as tile.store.
      LinearLayout layout = getLinearLayout(type);
      unsigned regMask = replicaMask(layout, LinearLayout::kRegister);
      Value owner = firstHolder(rewriter, loc, layout, /*lanes=*/false);
      auto [words, wordBits] = wordShape(vec, bitWidth(elt));
      (void)words;
      for (unsigned r = 0; r < values.size(); r += vec) {
        if (r & regMask)
          continue;
        auto [address, ok] = access.at(r);
        SmallVector<Value> slice(values.slice(r, vec));
        predicatedStore(rewriter, loc, address,
                        andOwner(rewriter, loc, ok, owner),
                        packWords(rewriter, loc, slice), wordBits);
      }
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> old;
    if (failed(emitReductions(
            rewriter, loc, op, type, *combine, values, vec, vectorReductions,
            [&](unsigned r) { return access.at(r); },
            [](unsigned) { return false; }, op.getOld() ? &old : nullptr)))
      return failure();
    replaceAtomic(rewriter, op, old);
    return success();
  }
};

/// tile.atomic_rmw: each element, once, by `red.global` at its address,
/// predicated on being inside the tensor. A layout may hold an element in
/// several registers or threads (the bases that are zero); only the one
/// with those bits clear combines it.
struct AtomicRMWLowering : OpConversionPattern<tile::AtomicRMWOp> {
  AtomicRMWLowering(TileTypeConverter &converter, MLIRContext *ctx,
                    bool vectorReductions)
      : OpConversionPattern(converter, ctx),
        vectorReductions(vectorReductions) {}
  bool vectorReductions;

  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    SmallVector<Value> indices;
    for (ValueRange v : adaptor.getIndices())
      indices.push_back(v.front());
    TileAccess access(rewriter, loc, op, adaptor.getTensor(), indices,
                      type.getShape(), type.getElementType(),
                      getLinearLayout(type), op.getOrder());
    SmallVector<Value> old;
    if (failed(emitReductions(
            rewriter, loc, op, type, op.getKind(), adaptor.getValue(),
            access.getVectorLength(), vectorReductions,
            [&](unsigned r) {
              Access a = access.at(r);
              return std::make_pair(a.address, a.inBounds);
            },
            [&](unsigned r) { return access.isPadding(r); },
            op.getOld() ? &old : nullptr)))
      return failure();
    replaceAtomic(rewriter, op, old);
    return success();
  }
};

/// tile.block_atomic and tile.block_exchange: the block's writes done (a
/// barrier), then its first thread releases them and runs the atomic
/// (`fence.acq_rel.gpu`, `atom.acq_rel.gpu.global.<op>` when the element is
/// inside the tensor, 0 otherwise) and writes the old value to the op's
/// scratch; after a barrier every thread reads it and fences (acquire: its
/// later reads see what the blocks whose values it read wrote before
/// theirs). `atom` is the instruction's suffix (`add.u32`, `exch.b32`,
/// `cas.b32`); `compare`, cas's compared value.
static FailureOr<Value> lowerBlockAtomic(ConversionPatternRewriter &rewriter,
                                         Operation *op, Value tensorValue,
                                         ValueRange tensor,
                                         ArrayRef<ValueRange> indexRegs,
                                         Value value, Value compare,
                                         StringRef atom) {
  Location loc = op->getLoc();
  FailureOr<Value> scratch = getScratchMemory(rewriter, loc, op);
  if (failed(scratch))
    return failure();
  if (auto ws = op->getParentOfType<tile::WarpSpecializeOp>();
      ws && !ws.getConsumer().isAncestor(op->getParentRegion()))
    return op->emitOpError("in a producer warp is not supported");
  unsigned rank = cast<tile::GlobalTensorType>(tensorValue.getType()).getRank();
  Value offset = constI64(rewriter, loc, 0), inside;
  for (unsigned d = 0; d < rank; ++d) {
    Value i = indexRegs[d].front();
    Value ok = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                     i, tensor[1 + d]);
    inside =
        inside ? Value(arith::AndIOp::create(rewriter, loc, inside, ok)) : ok;
    Value i64 = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), i);
    offset = arith::AddIOp::create(
        rewriter, loc, offset,
        d == rank - 1 ? i64
                      : Value(arith::MulIOp::create(rewriter, loc, i64,
                                                    tensor[1 + rank + d])));
  }
  Type elt = value.getType();
  Value address = LLVM::GEPOp::create(rewriter, loc, tensor[0].getType(), elt,
                                      tensor[0], ValueRange{offset});
  Value first = firstThread(rewriter, loc, inside, 0);
  Value slot = sharedAddress32(rewriter, loc, *scratch);
  auto bits = [&](Value v) -> Value {
    return v.getType().isF32() ? Value(arith::BitcastOp::create(
                                     rewriter, loc, rewriter.getI32Type(), v))
                               : v;
  };
  SmallVector<Value> operands = {firstThread(rewriter, loc, nullptr, 0), first,
                                 address, bits(value), slot};
  std::string args = " v, [$2], $3;\n";
  std::string constraints = "r,r,l,r,r";
  if (compare) {
    operands.push_back(bits(compare));
    args = " v, [$2], $5, $3;\n";
    constraints += ",r";
  }
  createBarrier(rewriter, loc, op);
  inlinePtx(rewriter, loc, TypeRange(), operands,
            "{\n .reg .pred p, q;\n .reg .b32 v;\n"
            " setp.ne.b32 p, $0, 0;\n setp.ne.b32 q, $1, 0;\n"
            " mov.b32 v, 0;\n"
            " @q fence.acq_rel.gpu;\n"
            " @q atom.acq_rel.gpu.global." +
                atom.str() + args + " @p st.shared.b32 [$4], v;\n}",
            constraints + ",~{memory}");
  createBarrier(rewriter, loc, op);
  Operation *read = inlinePtx(
      rewriter, loc, TypeRange{rewriter.getI32Type()}, ValueRange{slot},
      "ld.shared.b32 $0, [$1];\n fence.acq_rel.gpu;", "=r,r,~{memory}");
  Value old = read->getResult(0);
  if (elt.isF32())
    old = arith::BitcastOp::create(rewriter, loc, elt, old);
  return old;
}

struct BlockAtomicLowering : OpConversionPattern<tile::BlockAtomicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BlockAtomicOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elt = op.getValue().getType();
    std::string type = elt.isF32()                             ? "f32"
                       : op.getKind() == tile::ReduceKind::Sum ? "u32"
                                                               : "s32";
    std::string combine = op.getKind() == tile::ReduceKind::Sum   ? "add"
                          : op.getKind() == tile::ReduceKind::Max ? "max"
                                                                  : "min";
    SmallVector<ValueRange> indices(adaptor.getIndices().begin(),
                                    adaptor.getIndices().end());
    FailureOr<Value> old = lowerBlockAtomic(
        rewriter, op, op.getTensor(), adaptor.getTensor(), indices,
        adaptor.getValue().front(), Value(), combine + "." + type);
    if (failed(old))
      return failure();
    rewriter.replaceOp(op, *old);
    return success();
  }
};

struct BlockExchangeLowering : OpConversionPattern<tile::BlockExchangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BlockExchangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<ValueRange> indices(adaptor.getIndices().begin(),
                                    adaptor.getIndices().end());
    Value compare = op.getCompare() ? adaptor.getCompare().front() : Value();
    FailureOr<Value> old = lowerBlockAtomic(
        rewriter, op, op.getTensor(), adaptor.getTensor(), indices,
        adaptor.getValue().front(), compare, compare ? "cas.b32" : "exch.b32");
    if (failed(old))
      return failure();
    rewriter.replaceOp(op, *old);
    return success();
  }
};

/// One vector of a copy that pads with other than zero: `@p cp.async` of
/// its `bytes` where `inBounds`, else `st.shared` of the padding's 32-bit
/// words `fill` (a cp.async of 0 bytes would fill zeros, asynchronously:
/// the two never write the same vector).
/// The cp.async of `bytes` from [$2] to [$1] (the asm operands of
/// copyOrPad and copyInTile), without its source size and `;`.
static std::string cpAsyncText(unsigned bytes) {
  return std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
         ".shared.global [$1], [$2], " + std::to_string(bytes);
}

void copyOrPad(OpBuilder &b, Location loc, Value dst, Value src, Value inBounds,
               unsigned bytes, ArrayRef<uint64_t> fill, Value inTile) {
  unsigned n = fill.size();
  std::string text = std::string("{\n .reg .pred p") +
                     (inTile ? ", q, f" : "") + ";\n .reg .b32 w<" +
                     std::to_string(n) + ">;\n setp.ne.b32 p, $0, 0;\n @p " +
                     cpAsyncText(bytes) + ";\n";
  for (unsigned w = 0; w < n; ++w)
    text += " mov.b32 w" + std::to_string(w) + ", " +
            llvm::formatv("{0:x}", fill[w]).str() + ";\n";
  // Past the tile's own elements (a thread holding padding): nothing.
  if (inTile)
    text += " setp.ne.b32 q, $3, 0;\n not.pred f, p;\n and.pred f, f, q;\n "
            "@f st.shared";
  else
    text += " @!p st.shared";
  if (n > 1)
    text += ".v" + std::to_string(n);
  text += ".b32 [$1], {";
  for (unsigned w = 0; w < n; ++w)
    text += (w ? ", w" : "w") + std::to_string(w);
  text += "};\n}";
  Value p32 = arith::ExtUIOp::create(b, loc, b.getI32Type(), inBounds);
  SmallVector<Value> operands = {p32, sharedAddress32(b, loc, dst), src};
  if (inTile)
    operands.push_back(arith::ExtUIOp::create(b, loc, b.getI32Type(), inTile));
  inlinePtx(b, loc, TypeRange(), operands, text,
            inTile ? "r,r,l,r,~{memory}" : "r,r,l,~{memory}");
}

/// cp.async of `bytes` from `src` to `dst`, `srcBytes` of them read (the
/// rest zeros), issued only where `inTile` (a thread's element of the
/// tile's own, not its padding, which the copy must not write: its buffer
/// may end before the padding, tile.slot_bytes).
void copyInTile(OpBuilder &b, Location loc, Value dst, Value src,
                Value srcBytes, unsigned bytes, Value inTile) {
  std::string text = "{\n .reg .pred q;\n setp.ne.b32 q, $0, 0;\n @q " +
                     cpAsyncText(bytes) + ", $3;\n}";
  Value q32 = arith::ExtUIOp::create(b, loc, b.getI32Type(), inTile);
  inlinePtx(b, loc, TypeRange(),
            ValueRange{q32, sharedAddress32(b, loc, dst), src, srcBytes}, text,
            "r,r,l,r,~{memory}");
}

/// The copy of a tile.async_copy: each thread issues cp.async for the
/// vectors its layout gives it (vectors outside the tensor copy zero bytes:
/// cp.async fills the rest of the destination with zeros; with a padding
/// other than zero, copyOrPad stores it there instead), under the copy's
/// predicate, then commits them as one group, predicated off or not, so that
/// every copy op is one group for the waits to count.
struct AsyncCopyLowering : OpConversionPattern<tile::AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bufType = op.getBuffer().getType();
    Type elt = registerType(bufType.getElementType());
    // The buffer's layout, and the same on the tile's full (unsqueezed) view.
    LinearLayout buf = tile::toLinearLayout(op.getLayout(), bufType.getShape());
    ArrayRef<int64_t> shape = op.getShape();
    LinearLayout view = unsqueezeLayout(buf, shape);
    Value base = adaptor.getBuffer().front();
    auto boxes =
        gatheredBoxes(op, op.getBoxes(), op.getBoxDim(),
                      op.getBoxes() ? adaptor.getBoxes() : ValueRange());
    if (failed(boxes))
      return failure();
    auto emitCopies = [&](OpBuilder &b) -> LogicalResult {
      SmallVector<Value> indices;
      for (ValueRange v : adaptor.getIndices())
        indices.push_back(v.front());
      TileAccess access(b, loc, op, adaptor.getTensor(), indices, shape, elt,
                        view, op.getOrder(), *boxes);
      unsigned vec = access.getVectorLength();
      unsigned bytes = vec * std::max(1u, bitWidth(elt) / 8);
      if (bytes != 4 && bytes != 8 && bytes != 16)
        return op.emitError()
               << "cp.async copies 4, 8 or 16 bytes, not " << bytes;
      SmallVector<Value> bufOffsets = threadOffsets(b, loc, buf);
      // A padding other than zero: stored where the copy would fill zeros.
      auto [words, wordBits] = wordShape(vec, bitWidth(elt));
      SmallVector<uint64_t> fill = paddingWords(
          op.getPaddingAttr(), bitWidth(elt), vec, words, wordBits);
      // A layout with more threads (or registers) than the tile has
      // vectors holds some in several: only the first holder copies each
      // (two copies of one destination race, even with equal data).
      unsigned regMask = replicaMask(view, LinearLayout::kRegister);
      OpBuilder::InsertionGuard guard(b);
      if (Value owner = firstHolder(b, loc, view)) {
        auto ifOp = scf::IfOp::create(b, loc, owner, /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      // Where lanes or warps hold the tile's padding, their vectors are
      // neither copied nor filled: nothing writes past the tile.
      bool threadPadding = !tile::isPaddingPerRegister(view, shape);
      for (unsigned r = 0; r < access.getNumRegs(); r += vec) {
        if ((r & regMask) || access.isPadding(r))
          continue;
        Access a = access.at(r);
        Value inTile = threadPadding ? a.inTile : Value();
        SmallVector<Value> coords = registerCoords(b, loc, buf, bufOffsets, r);
        Value dst = LLVM::GEPOp::create(
            b, loc, base.getType(), elt, base,
            ValueRange{sharedOffset(b, loc, bufType, coords)});
        if (!fill.empty()) {
          copyOrPad(b, loc, dst, a.address, a.inBounds, bytes, fill, inTile);
          continue;
        }
        Value srcBytes = arith::SelectOp::create(
            b, loc, a.inBounds, constI32(b, loc, bytes), constI32(b, loc, 0));
        if (inTile) {
          copyInTile(b, loc, dst, a.address, srcBytes, bytes, inTile);
          continue;
        }
        NVVM::CpAsyncOp::create(b, loc, dst, a.address, bytes,
                                bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                            : NVVM::LoadCacheModifierKind::CA,
                                srcBytes);
      }
      return success();
    };
    if (!op.getPred()) {
      if (failed(emitCopies(rewriter)))
        return failure();
    } else {
      auto ifOp = scf::IfOp::create(rewriter, loc, adaptor.getPred().front(),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      if (failed(emitCopies(rewriter)))
        return failure();
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The data of the awaited copies is visible to this thread afterwards; the
/// barrier that shows it to the others is tile-insert-barriers' business.
struct AsyncWaitLowering : OpConversionPattern<tile::AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AsyncWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread holds a one-element tile's element (a linear layout maps
/// each thread somewhere, and there is one place), in each register.
struct ItemLowering : OpConversionPattern<tile::ItemOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ItemOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource().front());
    return success();
  }
};

/// A view: the base moved to its first element, its sizes the clamped
/// bounds' difference, the strides the tensor's.
struct SubviewLowering : OpConversionPattern<tile::SubviewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SubviewOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange tensor = adaptor.getTensor();
    unsigned rank = op.getTensor().getType().getRank();
    Value zero = constI32(rewriter, loc, 0);
    Value offset = constI64(rewriter, loc, 0);
    ArrayRef<int32_t> endDims = op.getEndDims();
    SmallVector<Value> sizes;
    for (unsigned d = 0; d < rank; ++d) {
      Value size = tensor[1 + d];
      const int32_t *givenEnd = llvm::find(endDims, int32_t(d));
      if (matchPattern(op.getStarts()[d], m_Zero()) &&
          givenEnd == endDims.end()) {
        sizes.push_back(size);
        continue;
      }
      Value start = arith::MinSIOp::create(
          rewriter, loc,
          arith::MaxSIOp::create(rewriter, loc, adaptor.getStarts()[d].front(),
                                 zero),
          size);
      Value end = size;
      if (givenEnd != endDims.end())
        end = arith::MinSIOp::create(
            rewriter, loc,
            arith::MaxSIOp::create(
                rewriter, loc,
                adaptor.getEnds()[givenEnd - endDims.begin()].front(), start),
            size);
      sizes.push_back(arith::SubIOp::create(rewriter, loc, end, start));
      // (The last stride is 1: the contract, checked at launch.)
      Value start64 =
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), start);
      offset = arith::AddIOp::create(
          rewriter, loc, offset,
          d == rank - 1 ? start64
                        : Value(arith::MulIOp::create(rewriter, loc, start64,
                                                      tensor[1 + rank + d])));
    }
    Type elt = registerType(op.getTensor().getType().getElementType());
    SmallVector<Value> results = {
        LLVM::GEPOp::create(rewriter, loc, tensor[0].getType(), elt, tensor[0],
                            ValueRange{offset})};
    llvm::append_range(results, sizes);
    llvm::append_range(results, tensor.drop_front(1 + rank));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct DimLowering : OpConversionPattern<tile::DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DimOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getTensor()[1 + op.getAxis()]);
    return success();
  }
};

} // namespace

void tilec::populateMemoryPatterns(TileTypeConverter &converter,
                                   bool vectorReductions,
                                   RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering, GatherLowering, DimLowering,
               SubviewLowering, AsyncCopyLowering, AsyncWaitLowering,
               ItemLowering, BlockAtomicLowering, BlockExchangeLowering>(
      converter, patterns.getContext());
  patterns.add<AtomicRMWLowering, ScatterLowering>(
      converter, patterns.getContext(), vectorReductions);
}
