//===- TileOps.cpp - Operations of the tile dialect -----------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Element count, saturating at INT64_MAX instead of overflowing (the type
/// may come from any input; the kernel verifier bounds real tiles).
static int64_t numElements(RankedTensorType type) {
  int64_t n = 1;
  for (int64_t d : type.getShape())
    if (__builtin_mul_overflow(n, d, &n))
      return INT64_MAX;
  return n;
}

/// Verifies that `perm` is a permutation of [0, rank).
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> perm,
                                       int64_t rank, StringRef what) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return op->emitOpError() << what << " has " << perm.size()
                             << " entries but the rank is " << rank;
  llvm::SmallBitVector seen(rank);
  for (int32_t p : perm) {
    if (p < 0 || p >= rank)
      return op->emitOpError() << what << " entry " << p
                               << " is out of range [0, " << rank << ")";
    if (seen.test(p))
      return op->emitOpError() << what << " repeats dimension " << p;
    seen.set(p);
  }
  return success();
}

static bool isIdentity(ArrayRef<int32_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

/// Folds a shape-changing op applied to a splat constant into a splat of the
/// result type.
static OpFoldResult foldSplat(Attribute operand, Type resultType) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(operand);
  if (!splat)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(resultType),
                                splat.getSplatValue<Attribute>());
}

/// Common checks of tile.load and tile.store against their global tensor.
static LogicalResult verifyTileAccess(Operation *op, GlobalTensorType tensor,
                                      size_t numIndices, RankedTensorType tile,
                                      std::optional<ArrayRef<int32_t>> order,
                                      StringRef tileName) {
  unsigned rank = tensor.getRank();
  if (numIndices != rank)
    return op->emitOpError()
           << "expected " << rank << " tile indices for a rank-" << rank
           << " tensor, got " << numIndices;
  if (tile.getRank() != rank)
    return op->emitOpError()
           << "the " << tileName << " has rank " << tile.getRank()
           << " but the tensor has rank " << rank;
  if (tile.getElementType() != tensor.getElementType())
    return op->emitOpError()
           << "the " << tileName << " element type " << tile.getElementType()
           << " does not match the tensor element type "
           << tensor.getElementType();
  if (order && failed(verifyPermutation(op, *order, rank, "order")))
    return failure();
  return success();
}

/// Common checks of a gathered access (`boxes` along view dimension
/// `boxDim` of a tile of `shape`, whose index there must be zero).
static LogicalResult verifyBoxes(Operation *op, Value boxes,
                                 std::optional<uint32_t> boxDim,
                                 ArrayRef<int64_t> shape, ValueRange indices) {
  if (!boxes && !boxDim)
    return success();
  if (!boxes || !boxDim)
    return op->emitOpError("boxes and box_dim go together");
  auto type = cast<RankedTensorType>(boxes.getType());
  if (type.getRank() != 1 || !type.getElementType().isInteger(32))
    return op->emitOpError("boxes must be a 1-D tile of i32");
  if (*boxDim >= shape.size())
    return op->emitOpError()
           << "box_dim " << *boxDim << " is not a dimension of the tile";
  int64_t count = type.getDimSize(0), extent = shape[*boxDim];
  if (count < 1)
    return op->emitOpError("boxes must hold at least one box");
  if (extent % count)
    return op->emitOpError()
           << "the tile's extent " << extent << " along box_dim is not a "
           << "whole number of boxes (" << count << ")";
  if (*boxDim < indices.size() && !matchPattern(indices[*boxDim], m_Zero()))
    return op->emitOpError("the index along box_dim must be zero: the boxes "
                           "give the coordinates there");
  return success();
}

//===----------------------------------------------------------------------===//
// ArangeOp
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  if (getType().getRank() != 1)
    return emitOpError() << "result must be a 1-D tile, got rank "
                         << getType().getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// FullOp
//===----------------------------------------------------------------------===//

LogicalResult FullOp::verify() {
  if (getType().getRank() == 0)
    return emitOpError("result must have at least one dimension");
  return success();
}

OpFoldResult FullOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getValue();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  if (srcType.getElementType() != resType.getElementType())
    return emitOpError() << "element type changes from "
                         << srcType.getElementType() << " to "
                         << resType.getElementType();
  if (srcType.getRank() != resType.getRank())
    return emitOpError() << "source rank " << srcType.getRank()
                         << " does not match result rank " << resType.getRank();
  for (int64_t i = 0, e = srcType.getRank(); i < e; ++i) {
    int64_t s = srcType.getDimSize(i), r = resType.getDimSize(i);
    if (s != r && s != 1)
      return emitOpError() << "dimension " << i << " of the source (" << s
                           << ") must be 1 or equal the result's (" << r << ")";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return foldSplat(adaptor.getSource(), getType());
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  int64_t axis = getAxis();
  if (axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << srcType.getRank() << " source";
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  auto expectedType = RankedTensorType::get(expected, srcType.getElementType());
  if (resType.getShape() != ArrayRef<int64_t>(expected) ||
      resType.getElementType() != srcType.getElementType())
    return emitOpError() << "result type must be " << expectedType << ", got "
                         << resType;
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  if (srcType.getElementType() != resType.getElementType())
    return emitOpError() << "element type changes from "
                         << srcType.getElementType() << " to "
                         << resType.getElementType()
                         << "; use a cast to change it";
  if (numElements(srcType) != numElements(resType))
    return emitOpError() << "cannot reshape " << numElements(srcType)
                         << " elements into " << numElements(resType);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSource().getType() == getType())
    return getSource();
  // reshape(reshape(x)) == reshape(x): row-major order is kept by both.
  if (auto inner = getSource().getDefiningOp<ReshapeOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return foldSplat(adaptor.getSource(), getType());
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  if (failed(verifyPermutation(*this, getPermutation(), srcType.getRank(),
                               "permutation")))
    return failure();
  if (resType.getRank() != srcType.getRank() ||
      resType.getElementType() != srcType.getElementType())
    return emitOpError() << "result type " << resType
                         << " must have the source's rank and element type";
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    if (resType.getDimSize(i) != srcType.getDimSize(p))
      return emitOpError() << "result dimension " << i << " is "
                           << resType.getDimSize(i) << " but source dimension "
                           << p << " is " << srcType.getDimSize(p);
  return success();
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(getPermutation()))
    return getSource();
  return foldSplat(adaptor.getSource(), getType());
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  unsigned rank = getTensor().getType().getRank();
  if (static_cast<unsigned>(getAxis()) >= rank)
    return emitOpError() << "axis " << getAxis()
                         << " is out of range for a rank-" << rank << " tensor";
  return success();
}

//===----------------------------------------------------------------------===//
// SubviewOp
//===----------------------------------------------------------------------===//

LogicalResult SubviewOp::verify() {
  unsigned rank = getTensor().getType().getRank();
  if (getStarts().size() != rank)
    return emitOpError() << "needs a start for each of the tensor's " << rank
                         << " dimensions, got " << getStarts().size();
  ArrayRef<int32_t> dims = getEndDims();
  if (dims.size() != getEnds().size())
    return emitOpError() << "has " << getEnds().size() << " ends for "
                         << dims.size() << " end_dims";
  for (auto [k, d] : llvm::enumerate(dims)) {
    if (d < 0 || unsigned(d) >= rank)
      return emitOpError() << "end_dims entry " << d
                           << " is out of range for a rank-" << rank
                           << " tensor";
    if (k > 0 && d <= dims[k - 1])
      return emitOpError() << "end_dims must increase, got " << dims[k - 1]
                           << " then " << d;
  }
  return success();
}

OpFoldResult SubviewOp::fold(FoldAdaptor adaptor) {
  if (!getEnds().empty())
    return {};
  for (Attribute start : adaptor.getStarts()) {
    auto i = dyn_cast_if_present<IntegerAttr>(start);
    if (!i || !i.getValue().isZero())
      return {};
  }
  return getTensor();
}

Value SubviewOp::getEnd(unsigned dim) {
  for (auto [k, d] : llvm::enumerate(getEndDims()))
    if (unsigned(d) == dim)
      return getEnds()[k];
  return nullptr;
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

/// A load's or copy's `padding`: a constant of the tensor's element type.
static LogicalResult verifyPadding(Operation *op, Attribute padding,
                                   Type elementType) {
  if (!padding)
    return success();
  if (cast<TypedAttr>(padding).getType() != elementType)
    return op->emitOpError()
           << "padding value type " << cast<TypedAttr>(padding).getType()
           << " does not match the element type " << elementType;
  if (!isa<IntegerAttr, FloatAttr>(padding))
    return op->emitOpError("padding must be an integer or float constant");
  return success();
}

LogicalResult LoadOp::verify() {
  auto tensorType = getTensor().getType();
  if (failed(verifyTileAccess(*this, tensorType, getIndices().size(), getType(),
                              getOrder(), "result tile")) ||
      failed(verifyBoxes(*this, getBoxes(), getBoxDim(), getType().getShape(),
                         getIndices())))
    return failure();
  return verifyPadding(*this, getPaddingAttr(), tensorType.getElementType());
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

void BarrierOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), SharedMemoryResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SharedMemoryResource::get());
  // A cluster's barrier orders global memory between its blocks: no global
  // access moves across it.
  if (getCluster()) {
    effects.emplace_back(MemoryEffects::Read::get(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
  }
}

LogicalResult StoreOp::verify() {
  RankedTensorType value = getValue().getType();
  std::optional<ArrayRef<int64_t>> shape = getShape();
  if (!shape)
    return verifyTileAccess(*this, getTensor().getType(), getIndices().size(),
                            value, getOrder(), "stored tile");
  // The tile has `shape`; the value holds it without its size-1 dimensions.
  auto tile = RankedTensorType::get(*shape, value.getElementType());
  if (failed(verifyTileAccess(*this, getTensor().getType(), getIndices().size(),
                              tile, getOrder(), "stored tile")))
    return failure();
  if (!matchNonUnitDims(*shape, value.getShape()) ||
      llvm::is_contained(value.getShape(), 1))
    return emitOpError() << "the value must hold the tile (shape) without "
                            "its size-1 dimensions";
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

bool mlir::tile::isTileAtomicSupported(ReduceKind kind, Type elt) {
  switch (kind) {
  case ReduceKind::Sum:
    return elt.isF32() || elt.isF16() || elt.isBF16() || elt.isInteger(32) ||
           elt.isInteger(64);
  case ReduceKind::Max:
  case ReduceKind::Min:
    return elt.isF32() || elt.isInteger(32) || elt.isInteger(64);
  case ReduceKind::Prod:
    return false;
  }
  llvm_unreachable("reduce kind");
}

StringRef mlir::tile::getTileAtomicTypeList(ReduceKind kind) {
  return kind == ReduceKind::Sum ? "f32, f16, bf16, i32 and i64"
                                 : "f32, i32 and i64";
}

bool mlir::tile::isZeroPadding(Attribute padding) {
  auto f = dyn_cast_if_present<FloatAttr>(padding);
  auto i = dyn_cast_if_present<IntegerAttr>(padding);
  return !padding || (f && f.getValue().isPosZero()) ||
         (i && i.getValue().isZero());
}

bool mlir::tile::isUniformTile(Value v) {
  if (v.getDefiningOp<FullOp>())
    return true;
  DenseElementsAttr dense;
  return matchPattern(v, m_Constant(&dense)) && dense.isSplat();
}

Value mlir::tile::chainOperand(Operation *op) {
  Value chain, broadcast;
  unsigned broadcasts = 0;
  for (Value operand : op->getOperands()) {
    if (isUniformTile(operand))
      continue;
    if (operand.getDefiningOp<BroadcastOp>()) {
      broadcast = operand;
      ++broadcasts;
      continue;
    }
    if (chain)
      return {};
    chain = operand;
  }
  if (chain)
    return chain;
  return broadcasts == 1 ? broadcast : Value();
}

bool mlir::tile::writesGlobalMemory(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<StoreOp, AtomicRMWOp, BlockAtomicOp, BlockExchangeOp,
                   TmaStoreOp, ScatterOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// An atomic's `old` result: the combined tile's type (its layout too once
/// it has one).
static LogicalResult verifyOldValues(Operation *op, Value old,
                                     RankedTensorType value) {
  if (old && old.getType() != value)
    return op->emitOpError() << "returns the old values as " << old.getType()
                             << ", not as the combined tile's " << value;
  return success();
}

/// Drops an atomic's `old` result no one reads (then a `red.global`).
template <typename OpTy>
static LogicalResult dropUnusedOldValues(OpTy op, PatternRewriter &rewriter) {
  if (!op.getOld() || !op.getOld().use_empty())
    return failure();
  OperationState state(op.getLoc(), op->getName(), op->getOperands(),
                       TypeRange(), op->getAttrs());
  rewriter.setInsertionPoint(op);
  rewriter.create(state);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult AtomicRMWOp::canonicalize(AtomicRMWOp op,
                                        PatternRewriter &rewriter) {
  return dropUnusedOldValues(op, rewriter);
}

LogicalResult ScatterOp::canonicalize(ScatterOp op, PatternRewriter &rewriter) {
  return dropUnusedOldValues(op, rewriter);
}

LogicalResult AtomicRMWOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(verifyTileAccess(*this, getTensor().getType(), getIndices().size(),
                              value, getOrder(), "combined tile")))
    return failure();
  if (getKind() == ReduceKind::Prod)
    return emitOpError("has no product (red.global adds, takes the maximum "
                       "or the minimum)");
  if (failed(verifyOldValues(*this, getOld(), value)))
    return failure();
  Type elt = value.getElementType();
  bool isInt = elt.isInteger(32) || elt.isInteger(64);
  bool isFloat = elt.isF32() || elt.isF16() || elt.isBF16() || elt.isF64();
  if (!isInt && !isFloat)
    return emitOpError() << "atomics on " << elt
                         << " are not supported (f16, bf16, f32, f64, i32, "
                            "i64)";
  return success();
}

/// A block's scalar atomic: one index per tensor dimension, a value of the
/// tensor's element type.
static LogicalResult verifyBlockAtomicAccess(Operation *op,
                                             GlobalTensorType tensor,
                                             size_t indices, Type elt) {
  if (indices != tensor.getRank())
    return op->emitOpError() << "expected " << tensor.getRank()
                             << " indices (the tensor's rank), got " << indices;
  if (elt != tensor.getElementType())
    return op->emitOpError()
           << "the value is " << elt << " but the tensor holds "
           << tensor.getElementType();
  return success();
}

LogicalResult BlockAtomicOp::verify() {
  Type elt = getValue().getType();
  if (getKind() == ReduceKind::Prod)
    return emitOpError("has no product (atom adds, takes the maximum or the "
                       "minimum)");
  if (failed(verifyBlockAtomicAccess(*this, getTensor().getType(),
                                     getIndices().size(), elt)))
    return failure();
  if (elt.isF32() && getKind() != ReduceKind::Sum)
    return emitOpError() << "f32 block atomics are sums only (atom.add.f32); "
                            "max and min take i32";
  return success();
}

LogicalResult BlockExchangeOp::verify() {
  Type elt = getValue().getType();
  if (failed(verifyBlockAtomicAccess(*this, getTensor().getType(),
                                     getIndices().size(), elt)))
    return failure();
  if (getCompare() && getCompare().getType() != elt)
    return emitOpError() << "the compared value is " << getCompare().getType()
                         << " but the value is " << elt;
  if (getCompare() && !elt.isInteger(32))
    return emitOpError() << "a compare-and-swap takes i32 (floats compare "
                            "equal in other bits than they are stored)";
  return success();
}

/// A block's ordered atomic (tile.block_atomic, tile.block_exchange) orders
/// every global access of the block: it reads and writes all of global
/// memory as far as other ops can tell, and its scratch.
static void addBlockAtomicEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Read::get(), SharedMemoryResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SharedMemoryResource::get());
}

void BlockExchangeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addBlockAtomicEffects(effects);
}

void BlockAtomicOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addBlockAtomicEffects(effects);
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

/// Gather and scatter: one index tile per tensor dimension, each of the
/// value's shape; the value holds the tensor's element type.
static LogicalResult verifyIndexed(Operation *op, GlobalTensorType tensor,
                                   ValueRange indices, RankedTensorType value,
                                   StringRef what) {
  if (indices.size() != tensor.getRank())
    return op->emitOpError() << "needs one index tile per tensor dimension ("
                             << tensor.getRank() << "), got " << indices.size();
  for (Value index : indices) {
    auto t = cast<RankedTensorType>(index.getType());
    if (t.getShape() != value.getShape())
      return op->emitOpError() << "index tiles must have the " << what
                               << "'s shape (" << value << "), got " << t;
    // Each thread reads the indices of the elements it holds.
    if (t.getEncoding() && value.getEncoding() &&
        t.getEncoding() != value.getEncoding())
      return op->emitOpError() << "index tiles must have the " << what
                               << "'s layout (" << value << "), got " << t;
  }
  if (value.getElementType() != tensor.getElementType())
    return op->emitOpError()
           << "the " << what << " holds " << value.getElementType()
           << " but the tensor " << tensor.getElementType();
  return success();
}

LogicalResult GatherOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getIndices(),
                           getType(), "result")))
    return failure();
  if (auto pad = getPaddingAttr())
    if (pad.getType() != getType().getElementType())
      return emitOpError() << "padding must be a " << getType().getElementType()
                           << " value, got " << pad;
  return success();
}

void GatherOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult ScatterOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getIndices(),
                           getValue().getType(), "stored tile")))
    return failure();
  std::optional<ReduceKind> combine = getCombine();
  if (getOld() && !combine)
    return emitOpError("returns old values only where it combines (a plain "
                       "scatter's old values are not read)");
  if (failed(verifyOldValues(*this, getOld(), getValue().getType())))
    return failure();
  if (!combine)
    return success();
  if (*combine == ReduceKind::Prod)
    return emitOpError("has no combine(prod) (red.global adds, takes the "
                       "maximum or the minimum)");
  Type elt = getValue().getType().getElementType();
  if (!isTileAtomicSupported(*combine, elt))
    return emitOpError() << "combine(" << stringifyReduceKind(*combine)
                         << ") on " << elt << " is not supported ("
                         << getTileAtomicTypeList(*combine) << ")";
  return success();
}

void ScatterOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // A combining scatter reads what it combines with.
  if (getCombine())
    effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult ItemOp::verify() {
  RankedTensorType source = getSource().getType();
  if (source.getNumElements() != 1)
    return emitOpError() << "the tile must hold one element, got " << source;
  if (source.getElementType() != getType())
    return emitOpError() << "the result must be the tile's element type ("
                         << source.getElementType() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// MmaOp
//===----------------------------------------------------------------------===//

/// The element types of an mma's (or wgmma's) operands and accumulator:
/// a pair the tensor cores multiply, and the accumulator type it needs.
static LogicalResult verifyMmaElementTypes(Operation *op, Type a, Type b,
                                           Type acc) {
  if (!isMmaOperandPair(a, b))
    return op->emitOpError() << "a and b must both hold f16, both bf16, both "
                                "8-bit floats, both i8 or both f32, got "
                             << a << " and " << b;
  if (acc != getMmaAccumulatorType(a))
    return op->emitOpError()
           << "the accumulator must hold " << getMmaAccumulatorType(a)
           << " for " << a << " operands, got " << acc;
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  auto accType = getAcc().getType();
  auto bType = getB().getType();
  Type aType = getA().getType();
  auto aTile = dyn_cast<RankedTensorType>(aType);
  auto aSmem = dyn_cast<SharedMemoryType>(aType);
  ArrayRef<int64_t> aShape = aTile ? aTile.getShape() : aSmem.getShape();
  Type aElt = aTile ? aTile.getElementType() : aSmem.getElementType();
  if (aShape.size() != 2 || bType.getShape().size() != 2 ||
      accType.getRank() != 2)
    return emitOpError("operands must be 2-D");
  Type bElt = bType.getElementType();
  bool kMajor = isKMajorMmaType(aElt);
  if (failed(verifyMmaElementTypes(getOperation(), aElt, bElt,
                                   accType.getElementType())))
    return failure();
  unsigned bK = getBKDim();
  int64_t m = aShape[0], k = aShape[1], n = bType.getShape()[1 - bK];
  std::optional<uint64_t> kOffset = getKOffset();
  if (kOffset) {
    if (!aTile)
      return emitOpError("k_offset needs an a held in registers");
    // (An A in another layout is refused below.)
    auto aLayout =
        dyn_cast_if_present<DotOperandLayoutAttr>(aTile.getEncoding());
    int64_t step = aLayout ? aLayout.getInstructionK() : 1;
    if (int64_t(*kOffset) % step ||
        int64_t(*kOffset) + k > bType.getShape()[bK])
      return emitOpError() << "k_offset " << *kOffset << " with a's K of " << k
                           << " must be a multiple of " << step
                           << " within b's K of " << bType.getShape()[bK];
  }
  if ((!kOffset && bType.getShape()[bK] != k) || accType.getDimSize(0) != m ||
      accType.getDimSize(1) != n)
    return emitOpError() << "shapes do not match: a is " << m << "x" << k
                         << ", b " << bType.getShape()[bK] << "x" << n
                         << (bK ? " (transposed)" : "") << ", the accumulator "
                         << accType.getDimSize(0) << "x"
                         << accType.getDimSize(1);
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(accType.getEncoding());
  if (!mma || !mma.isWarpgroup())
    return emitOpError("the accumulator must be in a version-3 (wgmma) mma "
                       "layout");
  if (aTile &&
      aTile.getEncoding() != DotOperandLayoutAttr::getFor(0, mma, aElt))
    return emitOpError("a held in registers must be in the dot_operand A "
                       "layout of the accumulator's (kWidth 32 / the "
                       "element's bits)");
  unsigned bytes = aElt.getIntOrFloatBitWidth() / 8;
  for (auto [name, smem, kDim] :
       {std::tuple<StringRef, SharedMemoryType, unsigned>{"a", aSmem, 1},
        {"b", bType, bK}}) {
    if (!smem)
      continue;
    if (!smem.getLayout().getHopperSwizzleBytes(bytes))
      return emitOpError() << name
                           << " must be in a shared layout that wgmma "
                              "descriptors describe (16-byte chunks swizzled "
                              "over blocks of 128, 64 or 32 bytes), got "
                           << smem.getLayout();
    if (kMajor && smem.getLayout().getOrder()[0] != kDim)
      return emitOpError() << getKMajorMmaTypeName(aElt) << " " << name
                           << " must be K-major in shared memory (K its "
                              "fastest dimension), got "
                           << smem.getLayout();
  }
  return success();
}

LogicalResult MmaOp::verify() {
  auto aType = getA().getType();
  auto bType = getB().getType();
  auto accType = getAcc().getType();
  if (aType.getRank() != 2 || bType.getRank() != 2 || accType.getRank() != 2)
    return emitOpError() << "operands must be 2-D tiles, got ranks "
                         << aType.getRank() << ", " << bType.getRank()
                         << " and " << accType.getRank();
  Type aElt = aType.getElementType(), bElt = bType.getElementType();
  if (failed(verifyMmaElementTypes(getOperation(), aElt, bElt,
                                   accType.getElementType())))
    return failure();
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  int64_t kb = bType.getDimSize(0), n = bType.getDimSize(1);
  if (k != kb)
    return emitOpError() << "the K dimension of a (" << k
                         << ") does not match the K dimension of b (" << kb
                         << ")";
  if (accType.getDimSize(0) != m || accType.getDimSize(1) != n)
    return emitOpError() << "the accumulator is " << accType.getDimSize(0)
                         << "x" << accType.getDimSize(1) << " but a * b is "
                         << m << "x" << n;
  // Once laid out: the accumulator in an mma layout, the operands in its
  // operand layouts.
  Attribute accLayout = accType.getEncoding();
  if (!accLayout && !aType.getEncoding() && !bType.getEncoding())
    return success();
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(accLayout);
  Type elt = aType.getElementType();
  auto expectA =
      mma ? DotOperandLayoutAttr::getFor(0, mma, elt) : DotOperandLayoutAttr();
  auto expectB =
      mma ? DotOperandLayoutAttr::getFor(1, mma, elt) : DotOperandLayoutAttr();
  if (!mma || aType.getEncoding() != expectA || bType.getEncoding() != expectB)
    return emitOpError("with layouts, the accumulator must be in an mma "
                       "layout and a and b in its dot_operand layouts (opIdx "
                       "0 and 1)");
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  auto type = getSource().getType();
  if (getAxis() >= type.getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range for a "
                         << "rank-" << type.getRank() << " tile";
  if (type.getElementType().isInteger(1) && getKind() == ReduceKind::Sum)
    return emitOpError("cannot sum an i1 tile; cast it to i32 first");
  return success();
}

LogicalResult ReduceOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  int64_t axis = getAxis();
  if (axis >= srcType.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << srcType.getRank() << " tile";
  if (srcType.getElementType().isInteger(1) && getKind() == ReduceKind::Sum)
    return emitOpError("cannot sum an i1 tile; cast it to i32 first");
  SmallVector<int64_t> expected(srcType.getShape());
  if (std::optional<int64_t> kept = getKeptBits()) {
    if (!getKeepdims())
      return emitOpError("a partial reduction (kept_bits) keeps its axis: "
                         "add keepdims");
    int64_t extent = srcType.getDimSize(axis);
    if (!llvm::isPowerOf2_64(extent) || uint64_t(*kept) >= uint64_t(extent))
      return emitOpError() << "kept_bits " << *kept
                           << " must name bits of the axis' extent " << extent
                           << " (a power of two)";
    expected[axis] = int64_t(1) << llvm::popcount(uint64_t(*kept));
  } else if (getKeepdims()) {
    expected[axis] = 1;
  } else {
    expected.erase(expected.begin() + axis);
  }
  if (expected.empty())
    return emitOpError("reducing a 1-D tile without keepdims would give a "
                       "scalar; use keepdims");
  auto expectedType = RankedTensorType::get(expected, srcType.getElementType());
  if (resType.getShape() != ArrayRef<int64_t>(expected) ||
      resType.getElementType() != srcType.getElementType())
    return emitOpError() << "result type must be " << expectedType << ", got "
                         << resType;
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = getSource().getType();
  auto resType = getType();
  if (srcType.getShape() != resType.getShape() ||
      srcType.getElementType() != resType.getElementType())
    return emitOpError() << "source " << srcType << " and result " << resType
                         << " must differ only in their layout";
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSource().getType() == getType())
    return getSource();
  // convert(convert(x)) == convert(x)
  if (auto inner = getSource().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSource().getType() == getType())
      return inner.getSource();
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return foldSplat(adaptor.getSource(), getType());
}

//===----------------------------------------------------------------------===//
// ExtractOp, LocalAllocOp, LocalLoadOp
//===----------------------------------------------------------------------===//

/// Checks that a sub-tile of `sub` at `offsets` lies inside `full`.
/// A sub-tile of `sub` elements at `offsets` inside `full`; `aligned`: at
/// offsets that are multiples of its size (what ldmatrix and the buffers'
/// swizzle need).
static LogicalResult verifySubTile(Operation *op, ArrayRef<int64_t> full,
                                   ArrayRef<int64_t> offsets,
                                   ArrayRef<int64_t> sub, bool aligned = true) {
  if (offsets.size() != full.size() || sub.size() != full.size())
    return op->emitOpError() << "offsets and result must have the rank of the "
                                "source ("
                             << full.size() << ")";
  for (unsigned d = 0; d < full.size(); ++d)
    if (offsets[d] < 0 || offsets[d] + sub[d] > full[d] ||
        (aligned && sub[d] && offsets[d] % sub[d]))
      return op->emitOpError()
             << "the sub-tile at offset " << offsets[d] << " of size " << sub[d]
             << " in dimension " << d << " must lie inside the source ("
             << full[d] << ")" << (aligned ? " at a multiple of its size" : "");
  return success();
}

LogicalResult ExtractOp::verify() {
  if (getSource().getType().getElementType() != getType().getElementType())
    return emitOpError("element types must match");
  return verifySubTile(*this, getSource().getType().getShape(), getOffsets(),
                       getType().getShape(), /*aligned=*/false);
}

LogicalResult ConcatOp::verify() {
  RankedTensorType result = getType();
  int64_t rank = result.getRank();
  if (getInputs().size() < 2)
    return emitOpError("needs two or more inputs");
  if (getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is not a dimension of "
                         << "the result (rank " << rank << ")";
  unsigned axis = getAxis();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != result.getElementType() ||
        type.getRank() != rank)
      return emitOpError() << "input " << i
                           << " must have the result's rank and element type";
    for (unsigned d = 0; d < rank; ++d)
      if (d != axis && type.getDimSize(d) != result.getDimSize(d))
        return emitOpError() << "input " << i << " has size "
                             << type.getDimSize(d) << " in dimension " << d
                             << ", the result " << result.getDimSize(d);
    total += type.getDimSize(axis);
  }
  if (total != result.getDimSize(axis))
    return emitOpError() << "the inputs' sizes along axis " << axis
                         << " add up to " << total << ", not the result's "
                         << result.getDimSize(axis);
  return success();
}

/// Rows stored at their own width (`cols`) have no padding to take a
/// padded tile's: the tile written must hold its padding in registers of
/// their own (skipped), not in lanes beside its elements, whose writes
/// would land in the next row.
static LogicalResult verifyOwnWidthWrite(Operation *op, RankedTensorType src,
                                         SharedMemoryType buf) {
  if (buf.getLayout().getCols() &&
      buf.getLayout().getCols() <
          llvm::PowerOf2Ceil(
              uint64_t(buf.getShape()[buf.getLayout().getOrder()[0]])) &&
      !isStoredWithinTile(src))
    return op->emitOpError() << "a buffer whose rows are stored at their own "
                                "width (cols) takes a tile whose padding is "
                                "whole registers";
  return success();
}

LogicalResult LocalAllocOp::verify() {
  auto src = getSource().getType();
  SharedMemoryType buf = getType();
  if (src.getShape() != buf.getShape() ||
      src.getElementType() != buf.getElementType())
    return emitOpError() << "the buffer must have the tile's shape and "
                            "element type";
  return verifyOwnWidthWrite(*this, src, buf);
}

LogicalResult LocalStoreOp::verify() {
  auto src = getValue().getType();
  SharedMemoryType buf = getBuffer().getType();
  if (src.getShape() != buf.getShape() ||
      src.getElementType() != buf.getElementType())
    return emitOpError() << "the buffer must have the tile's shape and "
                            "element type";
  return verifyOwnWidthWrite(*this, src, buf);
}

LogicalResult LocalLoadOp::verify() {
  SharedMemoryType buf = getBuffer().getType();
  if (buf.getElementType() != getType().getElementType())
    return emitOpError("element types must match");
  // A buffer that holds a tile without its size-1 dimensions (as
  // tile.async_copy fills it) is read into the tile with them.
  SmallVector<int64_t> sub(getType().getShape());
  if (buf.getShape().size() < sub.size())
    llvm::erase(sub, 1);
  return verifySubTile(*this, buf.getShape(), getOffsets(), sub);
}

/// A ring of tiles (tile.tile_claim, tile.tile_read): one dimension of i32.
static LogicalResult verifyTileRing(Operation *op, SharedMemoryType ring) {
  if (ring.getShape().size() != 1 || !ring.getElementType().isInteger(32))
    return op->emitOpError("the ring must be one dimension of i32");
  return success();
}

/// The size of the cluster the kernel around `op` is launched in (0 where
/// it has none).
static int64_t clusterSizeOf(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto size =
      func ? func->getAttrOfType<IntegerAttr>(TileDialect::getClusterAttrName())
           : IntegerAttr();
  return size ? size.getInt() : 0;
}

/// Ops (or forms of ops) that only a kernel launched in clusters has.
static LogicalResult verifyInCluster(Operation *op, StringRef what) {
  if (!clusterSizeOf(op))
    return op->emitOpError()
           << (what.empty() ? "" : (what + " ").str())
           << "needs a kernel launched in clusters (a '"
           << TileDialect::getClusterAttrName()
           << "': compile it with cluster=2, 4, 8 or 16, sm_90)";
  return success();
}

LogicalResult ClusterIdOp::verify() { return verifyInCluster(*this, ""); }
LogicalResult NumClustersOp::verify() { return verifyInCluster(*this, ""); }
LogicalResult ClusterRankOp::verify() { return verifyInCluster(*this, ""); }

/// A tile of `part`'s shape from each of a cluster's `blocks` side by side
/// along `axis` has the shape `whole`.
static LogicalResult verifyGathered(Operation *op, ArrayRef<int64_t> part,
                                    ArrayRef<int64_t> whole, Type partElt,
                                    Type wholeElt, unsigned axis,
                                    int64_t blocks) {
  if (axis >= part.size())
    return op->emitOpError() << "axis " << axis << " is not a dimension of "
                             << "a tile of rank " << part.size();
  if (partElt != wholeElt)
    return op->emitOpError("element types must match");
  if (unsigned bits = partElt.getIntOrFloatBitWidth();
      bits != 16 && bits != 32 && bits != 64)
    return op->emitOpError() << "exchanges elements of 16, 32 or 64 bits, "
                                "not "
                             << partElt;
  SmallVector<int64_t> expected(part);
  expected[axis] *= blocks;
  if (ArrayRef<int64_t>(expected) != whole)
    return op->emitOpError()
           << "expected the shape of " << blocks << " tiles of shape ("
           << llvm::interleaved(part) << ") along axis " << axis << ": ("
           << llvm::interleaved(expected) << "), got ("
           << llvm::interleaved(whole) << ")";
  if (!llvm::all_of(part, [](int64_t d) { return llvm::isPowerOf2_64(d); }))
    return op->emitOpError() << "exchanges tiles of power-of-two dimensions "
                                "only, not ("
                             << llvm::interleaved(part) << ")";
  return success();
}

LogicalResult ClusterGatherOp::verify() {
  if (failed(verifyInCluster(*this, "")))
    return failure();
  if (getInputs().empty())
    return emitOpError("needs at least one tile");
  if (getInputs().size() != getResults().size())
    return emitOpError("needs one result per input");
  for (auto [in, out] : llvm::zip(getInputs(), getResults())) {
    auto a = cast<RankedTensorType>(in.getType());
    auto b = cast<RankedTensorType>(out.getType());
    if (failed(verifyGathered(*this, a.getShape(), b.getShape(),
                              a.getElementType(), b.getElementType(), getAxis(),
                              clusterSizeOf(*this))))
      return failure();
  }
  return success();
}

LogicalResult ClusterStoreOp::verify() {
  if (failed(verifyInCluster(*this, "")))
    return failure();
  RankedTensorType value = getValue().getType();
  SharedMemoryType buf = getBuffer().getType();
  return verifyGathered(*this, value.getShape(), buf.getShape(),
                        value.getElementType(), buf.getElementType(), getAxis(),
                        clusterSizeOf(*this));
}

LogicalResult TileClaimOp::verify() {
  if (getFull() && failed(verifyInCluster(*this, "a claim with 'full'")))
    return failure();
  if (getFull() &&
      getFull().getType().getCount() != getRing().getType().getShape().front())
    return emitOpError("needs one full barrier per slot of the ring");
  return verifyTileRing(*this, getRing().getType());
}

LogicalResult MbarrierArriveOp::verify() {
  if (getCluster())
    return verifyInCluster(*this, "a release in every block of the cluster");
  return success();
}

LogicalResult TileReadOp::verify() {
  return verifyTileRing(*this, getRing().getType());
}

LogicalResult SmemSlotOp::verify() {
  SharedMemoryType ring = getRing().getType();
  SharedMemoryType buf = getType();
  ArrayRef<int64_t> shape = ring.getShape();
  if (shape.size() < 2 || buf.getShape() != shape.drop_front() ||
      buf.getElementType() != ring.getElementType())
    return emitOpError() << "the result must be one stage of the ring: its "
                            "shape without the leading dimension, in its "
                            "element type";
  // The ring's layout is the stage's with the stage dimension slowest.
  SharedLayoutAttr r = ring.getLayout(), l = buf.getLayout();
  ArrayRef<unsigned> ro = r.getOrder(), lo = l.getOrder();
  bool sameOrder = ro.size() == lo.size() + 1 && ro.back() == 0;
  for (unsigned i = 0; sameOrder && i < lo.size(); ++i)
    sameOrder = ro[i] == lo[i] + 1;
  if (!sameOrder || r.getVec() != l.getVec() ||
      r.getPerPhase() != l.getPerPhase() ||
      r.getMaxPhase() != l.getMaxPhase() || r.getBlock() != l.getBlock() ||
      r.getRows() != l.getRows() || r.getCols() != l.getCols())
    return emitOpError("the ring's shared layout must be the stage's, with the "
                       "stage dimension slowest");
  return success();
}

LogicalResult SmemPermuteOp::verify() {
  SharedMemoryType src = getBuffer().getType();
  SharedMemoryType res = getType();
  ArrayRef<int32_t> perm = getPermutation();
  if (failed(
          verifyPermutation(*this, perm, src.getShape().size(), "permutation")))
    return failure();
  bool sameShape = res.getShape().size() == src.getShape().size() &&
                   res.getElementType() == src.getElementType();
  for (auto [i, p] : llvm::enumerate(perm))
    sameShape = sameShape && res.getShape()[i] == src.getShape()[p];
  if (!sameShape)
    return emitOpError("the result must be the buffer's shape permuted, in "
                       "its element type");
  if (res.getLayout() != permuteSharedLayout(src.getLayout(), perm))
    return emitOpError() << "the result's shared layout must be the buffer's "
                            "with its order permuted: "
                         << permuteSharedLayout(src.getLayout(), perm);
  return success();
}

LogicalResult SmemViewOp::verify() {
  SharedMemoryType src = getBuffer().getType();
  SharedMemoryType res = getType();
  if (getSharedBytes(res) > getSharedBytes(src))
    return emitOpError() << "the result takes " << getSharedBytes(res)
                         << " bytes, more than the buffer's "
                         << getSharedBytes(src);
  if (getSharedAlignment(src) % getSharedAlignment(res) != 0)
    return emitOpError() << "the result starts at a multiple of "
                         << getSharedAlignment(res)
                         << " bytes, the buffer at one of "
                         << getSharedAlignment(src);
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  auto tensorType = getTensor().getType();
  ArrayRef<int64_t> shape = getShape();
  if (getIndices().size() != tensorType.getRank() ||
      shape.size() != tensorType.getRank())
    return emitOpError() << "expected " << tensorType.getRank()
                         << " tile indices and shape entries";
  if (auto order = getOrder())
    if (failed(verifyPermutation(*this, *order, tensorType.getRank(), "order")))
      return failure();
  if (failed(verifyBoxes(*this, getBoxes(), getBoxDim(), shape, getIndices())))
    return failure();
  SharedMemoryType buf = getBuffer().getType();
  if (buf.getElementType() != tensorType.getElementType() ||
      !matchNonUnitDims(shape, buf.getShape()) ||
      llvm::is_contained(buf.getShape(), 1))
    return emitOpError() << "the buffer must hold the tile without its size-1 "
                            "dimensions, in the tensor's element type";
  if (getLayout().getOrder().size() != buf.getShape().size())
    return emitOpError("the layout must have the buffer's rank");
  return verifyPadding(*this, getPaddingAttr(), tensorType.getElementType());
}

void AsyncCopyOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getBufferMutable(),
                       SharedMemoryResource::get());
}

int64_t TmaLoadOp::getNumSlabs() {
  return getBoxes() ? getBoxes().getType().getDimSize(0) : 1;
}

int64_t TmaLoadOp::getNumBoxes() {
  return getTmaBoxCount(getBuffer().getType(),
                        getMap().getType().getBox().back()) *
         getNumSlabs();
}

/// What tile.tma_load and tile.tma_store need of their buffer and map (the
/// buffer holding `slabs` copies of the boxes along its slowest dimension).
static LogicalResult verifyTmaCopy(Operation *op, TensorMapType map,
                                   SharedMemoryType buf, size_t coords,
                                   int64_t slabs = 1) {
  if (coords != map.getBox().size())
    return op->emitOpError()
           << "expected " << map.getBox().size()
           << " coordinates, one per dimension of the map's box";
  if (buf.getElementType() != map.getElementType())
    return op->emitOpError("the buffer and the tensor map must have one "
                           "element type");
  // The buffer is one box, or boxes side by side along its fastest
  // dimension, each one block of its shared layout. Across the fastest
  // dimension the boxes fill the buffer, or its first rows where it is
  // padded (a box of the tile's own size: the padding is not copied). A
  // row (a 1-D buffer) may take one box of its own elements, short of its
  // padding.
  SharedLayoutAttr layout = buf.getLayout();
  int64_t fastest = buf.getStorageShape()[layout.getOrder()[0]];
  int64_t inner = map.getBox().back();
  if (buf.getShape().size() == 1 && inner >= buf.getShape()[0] &&
      inner < fastest)
    fastest = inner;
  int64_t boxes = fastest / inner;
  int64_t rows = slabs * (map.getBoxElements() / inner);
  int64_t bufRows = buf.getNumElements() / fastest;
  int64_t shapeRows = 1;
  for (auto [d, extent] : llvm::enumerate(buf.getShape()))
    if (d != layout.getOrder()[0])
      shapeRows *= extent;
  if (fastest % inner || rows > bufRows || rows < shapeRows ||
      (boxes > 1 && layout.getBlock() != inner))
    return op->emitOpError() << "the buffer must hold whole boxes of the map "
                                "side by side along its fastest dimension, "
                                "one per block of its layout";
  unsigned bytes = getSharedElementBytes(buf.getElementType());
  unsigned swizzle = 0;
  if (layout.getBlock()) {
    swizzle = layout.getHopperSwizzleBytes(bytes);
    if (!swizzle)
      return op->emitOpError("the buffer's block layout is not a swizzle TMA "
                             "writes (16-byte chunks over blocks of 128, 64 "
                             "or 32 bytes)");
  } else if (layout.getMaxPhase() > 1) {
    return op->emitOpError("the buffer's swizzle is not one TMA writes: use a "
                           "block-swizzled shared layout");
  }
  if (swizzle != map.getSwizzle())
    return op->emitOpError()
           << "the buffer's layout swizzles " << swizzle
           << "-byte rows, the tensor map " << map.getSwizzle();
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (getMulticast() && failed(verifyInCluster(*this, "a multicast copy")))
    return failure();
  if (getBoxes() || getBoxDim()) {
    if (!getBoxes() || !getBoxDim())
      return emitOpError("boxes and box_dim go together");
    if (*getBoxDim() >= getCoords().size())
      return emitOpError() << "box_dim " << *getBoxDim()
                           << " is not a dimension of the tensor";
    if (getMulticast())
      return emitOpError("a copy of gathered boxes is not multicast");
    if (getBuffer().getType().getShape().size() != 2)
      return emitOpError("a copy of gathered boxes needs a 2-D buffer whose "
                         "slowest dimension holds the boxes");
  }
  return verifyTmaCopy(*this, getMap().getType(), getBuffer().getType(),
                       getCoords().size(), getNumSlabs());
}

bool TmaStoreOp::isSupportedReduction(ReduceKind kind, Type type) {
  if (kind == ReduceKind::Prod)
    return false;
  if (type.isInteger(32))
    return true;
  if (type.isF16() || type.isBF16())
    return true;
  return kind == ReduceKind::Sum && type.isF32();
}

LogicalResult TmaStoreOp::verify() {
  Type elt = getMap().getType().getElementType();
  if (auto kind = getReduce(); kind && !isSupportedReduction(*kind, elt))
    return emitOpError() << "cp.reduce.async.bulk.tensor has no '"
                         << stringifyReduceKind(*kind) << "' on " << elt
                         << " (sum: f32, f16, bf16, i32; max, min: f16, "
                            "bf16, i32)";
  return verifyTmaCopy(*this, getMap().getType(), getBuffer().getType(),
                       getCoords().size());
}

LogicalResult BarrierOp::verify() {
  if (getWarpgroup()) {
    if (getId() || getNumThreads() || getCluster())
      return emitOpError("a warpgroup barrier takes no 'id', 'num_threads' "
                         "or 'cluster'");
    return success();
  }
  if (getArrive() || getWait()) {
    if (!getCluster())
      return emitOpError("'arrive' and 'wait' split a cluster barrier only");
    if (getArrive() && getWait())
      return emitOpError("a cluster barrier with both 'arrive' and 'wait' is "
                         "a whole one: give neither");
  }
  if (getCluster()) {
    if (getId())
      return emitOpError("a cluster barrier takes no 'id'");
    return verifyInCluster(*this, "a cluster barrier");
  }
  if (getId().has_value() != getNumThreads().has_value())
    return emitOpError("a named barrier needs both 'id' and 'num_threads'");
  if (auto n = getNumThreads(); n && *n % 32)
    return emitOpError() << "'num_threads' must be a multiple of 32, not "
                         << *n;
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  if (getConsumerWarps() % 4)
    return emitOpError() << "'consumer_warps' must be whole warpgroups (a "
                            "multiple of 4), not "
                         << getConsumerWarps();
  if (auto r = getProducerRegisters(); r && *r % 8)
    return emitOpError() << "'producer_registers' must be a multiple of 8, "
                            "not "
                         << *r;
  if (!isa<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError("must be at the top level of a kernel");
  if (getNumConsumerGroups() > 1 && getAllConsumerThreads() + 128 > 1024)
    return emitOpError() << getNumConsumerGroups() << " groups of "
                         << getConsumerWarps()
                         << " consumer warps and the producers' warpgroup "
                            "are more than a block's 1024 threads";
  if (getProducers().empty() || getProducers().size() > kMaxProducers)
    return emitOpError() << "needs 1 to " << kMaxProducers
                         << " producer regions (one per warp of the "
                            "producer warpgroup), not "
                         << getProducers().size();
  return success();
}

ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  // ODS order: the consumer region, then the producers (the text's order
  // is the producers first).
  Region *consumer = result.addRegion();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseKeyword("producer"))
    return failure();
  do {
    if (parser.parseRegion(*result.addRegion()))
      return failure();
  } while (succeeded(parser.parseOptionalKeyword("producer")));
  if (parser.parseKeyword("consumer") || parser.parseRegion(*consumer))
    return failure();
  for (auto &region : result.regions)
    if (region->empty())
      region->emplaceBlock();
  return success();
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p.printOptionalAttrDict((*this)->getAttrs());
  for (Region &producer : getProducers()) {
    p << " producer ";
    p.printRegion(producer);
  }
  p << " consumer ";
  p.printRegion(getConsumer());
}

LogicalResult ConsumerGroupOp::verify() {
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError("must be in the consumer region of a "
                       "tile.warp_specialize");
  if (int64_t(getThreads()) != ws.getNumConsumerThreads())
    return emitOpError() << "counts groups of " << getThreads()
                         << " threads, but the kernel's consumer groups have "
                         << ws.getNumConsumerThreads();
  return success();
}

LogicalResult WarpgroupTurnOp::verify() {
  if (getBarrier() + getGroups() > 16)
    return emitOpError() << "needs named barriers " << getBarrier() << " to "
                         << getBarrier() + getGroups() - 1
                         << ", past the last one (15)";
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError("must be in the consumer region of a "
                       "tile.warp_specialize");
  // (Between the warpgroups of the consumers, or between groups of
  // consumers of one warpgroup each: tile-consumer-groups.)
  bool consumerGroups = ws.getNumConsumerGroups() == int64_t(getGroups()) &&
                        int64_t(getThreads()) == ws.getNumConsumerThreads();
  if (getThreads() % 128 || 2 * getThreads() > 1024)
    return emitOpError() << "takes turns between groups of " << getThreads()
                         << " threads: whole warpgroups, two groups at most "
                            "a block's 1024 threads";
  if (int64_t(getGroups()) * getThreads() / 32 !=
          int64_t(ws.getConsumerWarps()) &&
      !consumerGroups)
    return emitOpError()
           << "takes turns between " << getGroups()
           << (getThreads() == 128
                   ? std::string(" warpgroups")
                   : " groups of " + std::to_string(getThreads()) + " threads")
           << ", but the kernel has " << ws.getConsumerWarps()
           << " consumer warps"
           << (ws.getNumConsumerGroups() > 1
                   ? " in each of " +
                         std::to_string(ws.getNumConsumerGroups()) + " groups"
                   : std::string());
  return success();
}

#define GET_OP_CLASSES
//===----------------------------------------------------------------------===//
// Integer ranges (InferIntRangeInterface)
//===----------------------------------------------------------------------===//
//
// Ops that move or repeat a tile's elements without changing them give their
// result the range of their source (of all their inputs, for a concat): so
// that the integer range analysis sees through the views, joins and
// broadcasts between the arithmetic that bounds a value (`q & 15`) and the
// op that uses the bound (a conversion to float). A float tile has no range.

namespace {
bool hasIntegerElements(Value v) {
  return isa<IntegerType>(getElementTypeOrSelf(v.getType()));
}

/// The result holds the union of the inputs' elements.
void joinInputRanges(Value result, ArrayRef<IntegerValueRange> inputs,
                     SetIntLatticeFn setResultRange) {
  if (!hasIntegerElements(result))
    return;
  IntegerValueRange range;
  for (const IntegerValueRange &input : inputs)
    range = IntegerValueRange::join(range, input);
  if (!range.isUninitialized())
    setResultRange(result, range);
}
} // namespace

void ArangeOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                             SetIntLatticeFn setResultRange) {
  auto type = cast<RankedTensorType>(getType());
  unsigned width = type.getElementTypeBitWidth();
  setResultRange(
      getResult(),
      ConstantIntRanges::fromSigned(
          APInt(width, 0),
          APInt(width, std::max<int64_t>(type.getNumElements() - 1, 0))));
}

#define TILE_SAME_ELEMENTS_RANGE(OP)                                           \
  void OP::inferResultRangesFromOptional(                                      \
      ArrayRef<IntegerValueRange> argRanges, SetIntLatticeFn setResultRange) { \
    joinInputRanges(getResult(), argRanges, setResultRange);                   \
  }
TILE_SAME_ELEMENTS_RANGE(FullOp)
TILE_SAME_ELEMENTS_RANGE(BroadcastOp)
TILE_SAME_ELEMENTS_RANGE(ExpandDimsOp)
TILE_SAME_ELEMENTS_RANGE(ReshapeOp)
TILE_SAME_ELEMENTS_RANGE(PermuteOp)
TILE_SAME_ELEMENTS_RANGE(ItemOp)
TILE_SAME_ELEMENTS_RANGE(ConvertLayoutOp)
TILE_SAME_ELEMENTS_RANGE(ExtractOp)
TILE_SAME_ELEMENTS_RANGE(ConcatOp)
#undef TILE_SAME_ELEMENTS_RANGE

#include "Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// WgmmaWaitOp
//===----------------------------------------------------------------------===//

LogicalResult
WgmmaWaitOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                              ValueRange operands, DictionaryAttr attributes,
                              OpaqueProperties properties, RegionRange regions,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  WgmmaWaitOp::Adaptor adaptor(operands, attributes, properties, regions);
  for (Value v : adaptor.getValues())
    inferredReturnTypes.push_back(v.getType());
  return success();
}

LogicalResult WgmmaWaitOp::verify() {
  for (Value v : getValues()) {
    auto type = cast<RankedTensorType>(v.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(type.getEncoding());
    if (auto operand =
            dyn_cast_or_null<DotOperandLayoutAttr>(type.getEncoding()))
      mma = operand.getOpIdx() == 0 ? operand.getParent() : MmaLayoutAttr();
    // (i32: an i8 multiply's accumulator.)
    bool accumulator = type.getElementType().isF32() ||
                       (type.getElementType().isInteger(32) &&
                        isa_and_present<MmaLayoutAttr>(type.getEncoding()));
    if (!accumulator || !mma || mma.getVersion() != 3)
      return emitOpError("waits for wgmma accumulators or the f32 tiles of "
                         "register A operands: f32 (or i32 accumulator) "
                         "tiles in a version-3 #tile.mma layout or f32 in "
                         "its A operand layout, not ")
             << type;
  }
  return success();
}
