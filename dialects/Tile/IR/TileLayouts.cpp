//===- TileLayouts.cpp - The layout attributes ----------------------------===//
//
// Each layout attribute's verifier and its implementation of the layout
// interfaces (TileLayoutInterfaces.td): its linear form, rank and number of
// warps. The generic queries (toLinearLayout, isDistributedLayout,
// getLayoutRank, getNumWarps) go through the interfaces.
//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

static LogicalResult checkPowersOfTwo(function_ref<InFlightDiagnostic()> emit,
                                      ArrayRef<unsigned> values,
                                      StringRef name) {
  for (unsigned v : values)
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emit() << name << " entries must be powers of two, got " << v;
  return success();
}

static unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0 || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank || order.size() != rank)
    return emitError() << "blocked layout: sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order must have the same non-zero "
                          "length";
  if (failed(checkPowersOfTwo(emitError, sizePerThread, "sizePerThread")) ||
      failed(checkPowersOfTwo(emitError, threadsPerWarp, "threadsPerWarp")) ||
      failed(checkPowersOfTwo(emitError, warpsPerCTA, "warpsPerCTA")))
    return failure();
  if (product(threadsPerWarp) != 32)
    return emitError() << "blocked layout: threadsPerWarp must multiply to 32, "
                          "got "
                       << product(threadsPerWarp);
  llvm::SmallBitVector seen(rank);
  for (unsigned d : order) {
    if (d >= rank || seen.test(d))
      return emitError() << "blocked layout: order must be a permutation of "
                            "the dimensions";
    seen.set(d);
  }
  return success();
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<unsigned> warpsPerCTA, unsigned version,
                      ArrayRef<unsigned> instrShape) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout: warpsPerCTA must have two entries";
  if (failed(checkPowersOfTwo(emitError, warpsPerCTA, "warpsPerCTA")))
    return failure();
  if (version != 2 && version != 3)
    return emitError() << "mma layout: version must be 2 (mma.sync) or 3 "
                          "(wgmma), got "
                       << version;
  if (!instrShape.empty() && instrShape.size() != 3)
    return emitError() << "mma layout: instrShape must be [M, N, K]";
  if (version == 2 && !instrShape.empty() &&
      instrShape != ArrayRef<unsigned>{16, 8, 16})
    return emitError() << "mma layout: version 2 is mma.sync.m16n8k16, "
                          "instrShape must be [16, 8, 16]";
  if (version == 3) {
    if (instrShape.size() != 3 || instrShape[0] != 64 || instrShape[2] != 16 ||
        instrShape[1] % 8 || instrShape[1] < 8 || instrShape[1] > 256)
      return emitError() << "mma layout: version 3 is wgmma.m64nNk16 with "
                            "N a multiple of 8 up to 256: instrShape must be "
                            "[64, N, 16]";
    if (warpsPerCTA[0] % 4)
      return emitError() << "mma layout: version 3 runs on warpgroups of 4 "
                            "warps along M: warpsPerCTA[0] must be a "
                            "multiple of 4";
  }
  return success();
}

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned opIdx, MmaLayoutAttr parent,
                             unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot_operand layout: opIdx must be 0 (A) or 1 (B)";
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "dot_operand layout: kWidth must be 1 (f32 "
                          "elements, read as tf32), 2 (16-bit) or 4 (8-bit), "
                          "not "
                       << kWidth;
  return success();
}

DotOperandLayoutAttr DotOperandLayoutAttr::getFor(unsigned opIdx,
                                                  MmaLayoutAttr parent,
                                                  Type elementType) {
  return get(parent.getContext(), opIdx, parent, getMmaKWidth(elementType));
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  auto distributed = dyn_cast<DistributedLayoutInterface>(parent);
  if (!distributed)
    return emitError() << "slice layout: the parent must be a blocked, mma, "
                          "dot_operand or slice layout";
  if (dim >= distributed.getRank())
    return emitError() << "slice layout: dim " << dim
                       << " is out of range for a rank-"
                       << distributed.getRank() << " parent";
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned vec, unsigned perPhase, unsigned maxPhase,
                         ArrayRef<unsigned> order, unsigned block,
                         unsigned rows, unsigned cols) {
  if (failed(checkPowersOfTwo(emitError, {vec, perPhase, maxPhase},
                              "vec, perPhase and maxPhase")))
    return failure();
  if (block && (!llvm::isPowerOf2_32(block) || block < vec * maxPhase))
    return emitError() << "shared layout: block must be a power of two of "
                          "at least vec * maxPhase elements, got "
                       << block;
  if (block && order.size() < 2)
    return emitError() << "shared layout: block needs two or more "
                          "dimensions";
  if (rows && (order.size() < 2 || rows % std::max(8u, perPhase * maxPhase)))
    return emitError() << "shared layout: rows must be a multiple of the "
                          "swizzle's period (and of 8) on two or more "
                          "dimensions, got "
                       << rows;
  if (cols && (block || maxPhase > 1 || cols % vec || order.empty()))
    return emitError() << "shared layout: cols (the rows' own width) needs "
                          "an unswizzled layout without blocks and a "
                          "multiple of vec, got "
                       << cols;
  llvm::SmallBitVector seen(order.size());
  for (unsigned d : order) {
    if (d >= order.size() || seen.test(d))
      return emitError() << "shared layout: order must be a permutation of "
                            "the dimensions";
    seen.set(d);
  }
  return success();
}

SharedLayoutAttr SharedLayoutAttr::withRows(unsigned rows) const {
  return SharedLayoutAttr::get(getContext(), getVec(), getPerPhase(),
                               getMaxPhase(), getOrder(), getBlock(), rows,
                               getCols());
}

unsigned SharedLayoutAttr::getHopperSwizzleBytes(unsigned elementBytes) const {
  unsigned bytes = getBlock() * elementBytes;
  if (getVec() * elementBytes != 16 ||
      (bytes != 128 && bytes != 64 && bytes != 32))
    return 0;
  if (getMaxPhase() != bytes / 16 || getPerPhase() != 128 / bytes)
    return 0;
  return bytes;
}

/// The check all distributed layouts share: the tensor has their rank.
static LogicalResult
verifyLayoutRank(DistributedLayoutInterface layout, ArrayRef<int64_t> shape,
                 function_ref<InFlightDiagnostic()> emitError) {
  unsigned rank = layout.getRank();
  if (rank != shape.size())
    return emitError() << "the layout " << layout << " is for rank-" << rank
                       << " tiles, not rank " << shape.size();
  return success();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, shape, emitError);
}

LogicalResult MmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, shape, emitError);
}

LogicalResult DotOperandLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, shape, emitError);
}

LogicalResult SliceLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, shape, emitError);
}

LogicalResult
LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned rank, ArrayRef<int64_t> registers,
                         ArrayRef<int64_t> lanes, ArrayRef<int64_t> warps) {
  if (rank == 0)
    return emitError() << "linear layout: the bases need at least one "
                          "coordinate";
  for (auto [name, bases] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"register", registers},
        {"lane", lanes},
        {"warp", warps}}) {
    if (bases.size() % rank)
      return emitError() << "linear layout: every " << name << " basis needs "
                         << rank << " coordinates";
    for (int64_t c : bases)
      if (c < 0)
        return emitError() << "linear layout: the " << name
                           << " bases have a negative coordinate, " << c;
  }
  if (lanes.size() != 5 * size_t(rank))
    return emitError() << "linear layout: a warp's 32 lanes need 5 lane "
                          "bases, got "
                       << lanes.size() / rank;
  for (size_t i = 0; i < registers.size(); i += rank)
    if (llvm::all_of(registers.slice(i, rank),
                     [](int64_t c) { return c == 0; }))
      return emitError() << "linear layout: register basis " << i / rank
                         << " is zero (a register holds distinct elements)";
  return success();
}

LogicalResult LinearLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyLayoutRank(*this, shape, emitError)))
    return failure();
  // Every basis within the tile, and every element held: the bases span
  // the padded shape.
  SmallVector<int64_t> padded = paddedShape(shape);
  for (ArrayRef<int64_t> bases : {getRegisters(), getLanes(), getWarps()})
    for (size_t i = 0; i < bases.size(); i += getRank())
      for (unsigned d = 0; d < getRank(); ++d)
        if (bases[i + d] >= padded[d])
          return emitError()
                 << "the layout " << *this << " steps past "
                 << "dimension " << d << " of a tile of " << padded[d];
  LinearLayout ll = toLinearLayout(shape);
  if (!ll.isSurjective() ||
      ll.regs().size() != getRegisters().size() / getRank())
    return emitError() << "the layout " << *this
                       << " does not hold every element of the tile once "
                          "in a thread's registers";
  return success();
}

LogicalResult
mlir::tile::verifyLaidOutTile(Type type,
                              function_ref<InFlightDiagnostic()> emitError) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  if (!isTileType(tensor))
    return emitError() << "has type " << type
                       << ", which is not a tile: tiles have one or more "
                          "static dimensions, at most 2^24 (padded) "
                          "elements, and f16, bf16, f32, i32, i64, i16, i8, i1, "
                          "f8E4M3FN or f8E5M2 elements";
  if (!tensor.getEncoding())
    return emitError() << "has type " << type
                       << ", which has no layout: run tile-assign-layouts "
                          "first";
  if (!isDistributedLayout(tensor.getEncoding()))
    return emitError() << "has type " << type
                       << ", whose encoding is not a distributed layout "
                          "(blocked, mma, dot_operand, slice or linear)";
  return success();
}

//===----------------------------------------------------------------------===//
// Linear forms
//===----------------------------------------------------------------------===//

using Basis = LinearLayout::Basis;

static Basis unit(unsigned rank, unsigned dim, int64_t value) {
  Basis b(rank, 0);
  b[dim] = value;
  return b;
}

LinearLayout
BlockedLayoutAttr::toLinearLayout(ArrayRef<int64_t> tileShape) const {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  unsigned rank = shape.size();
  LinearLayout ll(shape);
  ArrayRef<unsigned> spt = getSizePerThread(), tpw = getThreadsPerWarp(),
                     wpc = getWarpsPerCTA(), order = getOrder();
  SmallVector<Basis> &regs = ll.bases(LinearLayout::kRegister);
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < spt[d]; ++i)
      regs.push_back(unit(rank, d, int64_t(1) << i));
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < tpw[d]; ++i)
      ll.bases(LinearLayout::kLane)
          .push_back(unit(rank, d, int64_t(spt[d]) << i));
  for (unsigned d : order)
    for (unsigned i = 0; (1u << i) < wpc[d]; ++i)
      ll.bases(LinearLayout::kWarp)
          .push_back(unit(rank, d, int64_t(spt[d]) * tpw[d] << i));
  // Repeat to cover the shape.
  for (unsigned d : order) {
    int64_t block = int64_t(spt[d]) * tpw[d] * wpc[d];
    for (int64_t step = block; step < shape[d]; step *= 2)
      regs.push_back(unit(rank, d, step));
  }
  ll.normalize();
  return ll;
}

unsigned BlockedLayoutAttr::getRank() const { return getOrder().size(); }

unsigned BlockedLayoutAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}

/// The lane bases shared by the accumulator and the 16-bit A operand of
/// mma.m16n8k16: lanes 0-1 step the column by 2 and 4, lanes 2-4 the row.
static void mmaLanes(LinearLayout &ll, unsigned rowDim, unsigned colDim) {
  SmallVector<Basis> &lanes = ll.bases(LinearLayout::kLane);
  lanes.push_back(unit(2, colDim, 2));
  lanes.push_back(unit(2, colDim, 4));
  lanes.push_back(unit(2, rowDim, 1));
  lanes.push_back(unit(2, rowDim, 2));
  lanes.push_back(unit(2, rowDim, 4));
}

static void pushWarps(LinearLayout &ll, unsigned count, unsigned dim,
                      int64_t step) {
  for (unsigned i = 0; (1u << i) < count; ++i)
    ll.bases(LinearLayout::kWarp)
        .push_back(step ? unit(2, dim, step << i) : Basis(2, 0));
}

static void pushReps(LinearLayout &ll, unsigned dim, int64_t from,
                     int64_t size) {
  for (int64_t step = from; step < size; step *= 2)
    ll.bases(LinearLayout::kRegister).push_back(unit(2, dim, step));
}

LinearLayout MmaLayoutAttr::toLinearLayout(ArrayRef<int64_t> tileShape) const {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  LinearLayout ll(shape);
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  SmallVector<Basis> &regs = ll.bases(LinearLayout::kRegister);
  regs.push_back(unit(2, 1, 1)); // c0 c1: adjacent columns
  regs.push_back(unit(2, 0, 8)); // c2 c3: row + 8
  mmaLanes(ll, 0, 1);
  pushWarps(ll, wm, 0, 16);
  if (isWarpgroup() && wn > 1) {
    // Warpgroups along N: each takes a contiguous 1/wn of the columns (its
    // wgmma instructions' N), in 8-column blocks of registers.
    int64_t per = std::max<int64_t>(8, shape[1] / wn);
    pushWarps(ll, wn, 1, per);
    pushReps(ll, 1, 8, per);
  } else {
    pushWarps(ll, wn, 1, 8);
    pushReps(ll, 1, 8 * int64_t(wn), shape[1]);
  }
  pushReps(ll, 0, 16 * int64_t(wm), shape[0]);
  ll.normalize();
  return ll;
}

unsigned MmaLayoutAttr::getRank() const { return 2; }

unsigned MmaLayoutAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}

LinearLayout
DotOperandLayoutAttr::toLinearLayout(ArrayRef<int64_t> tileShape) const {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  LinearLayout ll(shape);
  unsigned wm = getParent().getWarpsPerCTA()[0];
  unsigned wn = getParent().getWarpsPerCTA()[1];
  SmallVector<Basis> &regs = ll.bases(LinearLayout::kRegister);
  SmallVector<Basis> &lanes = ll.bases(LinearLayout::kLane);
  // kWidth (w) elements adjacent along K in a 32-bit register; lanes 0-1
  // step K by w and 2w, lanes 2-4 the other dimension by 1, 2 and 4; the
  // instruction's K is 8w (16 for 16-bit elements, 32 for 8-bit ones).
  int64_t w = getKWidth();
  unsigned k = getOpIdx() == 0 ? 1 : 0, other = 1 - k;
  for (int64_t e = 1; e < w; e *= 2)
    regs.push_back(unit(2, k, e));
  if (getOpIdx() == 0) {
    // A (M x K): a0 | a1 (row + 8) | a2 (k + 4w) | a3, a register each.
    regs.push_back(unit(2, 0, 8));
    regs.push_back(unit(2, 1, 4 * w));
  } else {
    // B (K x N): b0 | b1 (k + 4w), column lane / 4.
    regs.push_back(unit(2, 0, 4 * w));
  }
  lanes.push_back(unit(2, k, w));
  lanes.push_back(unit(2, k, 2 * w));
  for (int64_t l = 1; l <= 4; l *= 2)
    lanes.push_back(unit(2, other, l));
  if (getOpIdx() == 0) {
    pushWarps(ll, wm, 0, 16);
    pushWarps(ll, wn, 1, 0); // every warp along N holds all of A
    pushReps(ll, 1, 8 * w, shape[1]);
    pushReps(ll, 0, 16 * int64_t(wm), shape[0]);
  } else {
    pushWarps(ll, wm, 0, 0); // every warp along M holds all of B
    pushWarps(ll, wn, 1, 8);
    pushReps(ll, 0, 8 * w, shape[0]);
    pushReps(ll, 1, 8 * int64_t(wn), shape[1]);
  }
  ll.normalize();
  return ll;
}

unsigned DotOperandLayoutAttr::getRank() const { return 2; }

unsigned DotOperandLayoutAttr::getNumWarps() const {
  return getParent().getNumWarps();
}

LinearLayout
SliceLayoutAttr::toLinearLayout(ArrayRef<int64_t> tileShape) const {
  SmallVector<int64_t> shape = paddedShape(tileShape);
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  LinearLayout parent =
      cast<DistributedLayoutInterface>(getParent()).toLinearLayout(parentShape);
  LinearLayout ll(shape);
  for (StringRef dim : parent.getInDimNames()) {
    SmallVector<Basis> &out = ll.bases(dim);
    for (Basis b : parent.getBases(dim)) {
      b.erase(b.begin() + getDim());
      out.push_back(b);
    }
  }
  ll.normalize();
  return ll;
}

unsigned SliceLayoutAttr::getRank() const {
  unsigned parent = cast<DistributedLayoutInterface>(getParent()).getRank();
  return parent ? parent - 1 : 0;
}

unsigned SliceLayoutAttr::getNumWarps() const {
  return cast<DistributedLayoutInterface>(getParent()).getNumWarps();
}

LinearLayout
LinearLayoutAttr::toLinearLayout(ArrayRef<int64_t> tileShape) const {
  LinearLayout ll(paddedShape(tileShape));
  unsigned rank = getRank();
  for (auto [name, bases] : {std::pair<StringRef, ArrayRef<int64_t>>{
                                 LinearLayout::kRegister, getRegisters()},
                             {LinearLayout::kLane, getLanes()},
                             {LinearLayout::kWarp, getWarps()}})
    for (size_t i = 0; i < bases.size(); i += rank)
      ll.bases(name).push_back(Basis(bases.slice(i, rank)));
  ll.normalize();
  return ll;
}

unsigned LinearLayoutAttr::getRank() const { return getNumDims(); }

unsigned LinearLayoutAttr::getNumWarps() const {
  return 1u << (getWarps().size() / getRank());
}

LinearLayoutAttr LinearLayoutAttr::get(MLIRContext *context,
                                       const LinearLayout &layout) {
  auto flat = [&](ArrayRef<Basis> bases) {
    SmallVector<int64_t> values;
    for (const Basis &b : bases)
      values.append(b.begin(), b.end());
    return values;
  };
  SmallVector<int64_t> regs = flat(layout.regs()), lanes = flat(layout.lanes()),
                       warps = flat(layout.warps());
  return get(context, layout.getRank(), ArrayRef<int64_t>(regs),
             ArrayRef<int64_t>(lanes), ArrayRef<int64_t>(warps));
}

/// `[[0, 1], [8, 0]]`: the bases of one input dimension.
static ParseResult parseBases(AsmParser &parser, unsigned &rank,
                              SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        size_t before = values.size();
        if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                           [&]() -> ParseResult {
                                             int64_t v;
                                             if (parser.parseInteger(v))
                                               return failure();
                                             values.push_back(v);
                                             return success();
                                           }))
          return failure();
        unsigned n = values.size() - before;
        if (rank == 0)
          rank = n;
        if (n != rank || n == 0)
          return parser.emitError(parser.getCurrentLocation())
                 << "linear layout: every basis needs the same non-zero "
                    "number of coordinates";
        return success();
      });
}

Attribute LinearLayoutAttr::parse(AsmParser &parser, Type) {
  unsigned rank = 0;
  SmallVector<int64_t> lists[3];
  const char *names[3] = {"register", "lane", "warp"};
  if (parser.parseLess())
    return {};
  for (unsigned i = 0; i < 3; ++i) {
    if ((i && parser.parseComma()) || parser.parseKeyword(names[i]) ||
        parser.parseEqual() || parseBases(parser, rank, lists[i]))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (rank == 0) {
    parser.emitError(parser.getCurrentLocation())
        << "linear layout: the bases need at least one coordinate";
    return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), rank, ArrayRef<int64_t>(lists[0]),
                    ArrayRef<int64_t>(lists[1]), ArrayRef<int64_t>(lists[2]));
}

void LinearLayoutAttr::print(AsmPrinter &printer) const {
  auto bases = [&](ArrayRef<int64_t> values) {
    printer << "[";
    for (size_t i = 0; i < values.size(); i += getRank()) {
      if (i)
        printer << ", ";
      printer << "[";
      llvm::interleaveComma(values.slice(i, getRank()), printer);
      printer << "]";
    }
    printer << "]";
  };
  printer << "<register = ";
  bases(getRegisters());
  printer << ", lane = ";
  bases(getLanes());
  printer << ", warp = ";
  bases(getWarps());
  printer << ">";
}

LinearLayout SharedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape,
                                              Type) const {
  return swizzledSharedLayout(shape, getVec(), getPerPhase(), getMaxPhase(),
                              getOrder(), getBlock());
}

//===----------------------------------------------------------------------===//
// Generic queries
//===----------------------------------------------------------------------===//

LinearLayout mlir::tile::toLinearLayout(Attribute layout,
                                        ArrayRef<int64_t> shape) {
  return cast<DistributedLayoutInterface>(layout).toLinearLayout(shape);
}

bool mlir::tile::isDistributedLayout(Attribute layout) {
  return isa_and_present<DistributedLayoutInterface>(layout);
}

unsigned mlir::tile::getLayoutRank(Attribute layout) {
  if (auto d = dyn_cast_if_present<DistributedLayoutInterface>(layout))
    return d.getRank();
  if (auto s = dyn_cast_if_present<SharedLayoutInterface>(layout))
    return s.getRank();
  return 0;
}

unsigned mlir::tile::getNumWarps(Attribute layout) {
  if (auto d = dyn_cast_if_present<DistributedLayoutInterface>(layout))
    return d.getNumWarps();
  return 0;
}
