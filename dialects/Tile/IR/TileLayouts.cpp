//===- TileLayouts.cpp - Verifiers of the layout attributes ---------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/IR/Diagnostics.h"

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
                      ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout: warpsPerCTA must have two entries";
  return checkPowersOfTwo(emitError, warpsPerCTA, "warpsPerCTA");
}

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned opIdx, MmaLayoutAttr parent) {
  if (opIdx > 1)
    return emitError() << "dot_operand layout: opIdx must be 0 (A) or 1 (B)";
  return success();
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  if (!isDistributedLayout(parent))
    return emitError() << "slice layout: the parent must be a blocked, mma, "
                          "dot_operand or slice layout";
  if (dim >= getLayoutRank(parent))
    return emitError() << "slice layout: dim " << dim
                       << " is out of range for a rank-"
                       << getLayoutRank(parent) << " parent";
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned vec, unsigned perPhase, unsigned maxPhase,
                         ArrayRef<unsigned> order) {
  if (failed(checkPowersOfTwo(emitError, {vec, perPhase, maxPhase},
                              "vec, perPhase and maxPhase")))
    return failure();
  llvm::SmallBitVector seen(order.size());
  for (unsigned d : order) {
    if (d >= order.size() || seen.test(d))
      return emitError() << "shared layout: order must be a permutation of "
                            "the dimensions";
    seen.set(d);
  }
  return success();
}

unsigned mlir::tile::getLayoutRank(Attribute layout) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return b.getOrder().size();
  if (isa<MmaLayoutAttr, DotOperandLayoutAttr>(layout))
    return 2;
  if (auto s = dyn_cast<SliceLayoutAttr>(layout)) {
    unsigned parent = getLayoutRank(s.getParent());
    return parent ? parent - 1 : 0;
  }
  if (auto s = dyn_cast<SharedLayoutAttr>(layout))
    return s.getOrder().size();
  return 0;
}

/// The check all distributed layouts share: the tensor has their rank.
static LogicalResult
verifyLayoutRank(Attribute layout, ArrayRef<int64_t> shape,
                 function_ref<InFlightDiagnostic()> emitError) {
  unsigned rank = getLayoutRank(layout);
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
mlir::tile::verifyLaidOutTile(Type type,
                              function_ref<InFlightDiagnostic()> emitError) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  if (!isTileType(tensor))
    return emitError() << "has type " << type
                       << ", which is not a tile: tiles have one or more "
                          "static power-of-two dimensions, at most 2^24 "
                          "elements, and f16, bf16, f32, i32 or i1 elements";
  if (!tensor.getEncoding())
    return emitError() << "has type " << type
                       << ", which has no layout: run tile-assign-layouts "
                          "first";
  if (!isDistributedLayout(tensor.getEncoding()))
    return emitError() << "has type " << type
                       << ", whose encoding is not a distributed layout "
                          "(blocked, mma, dot_operand or slice)";
  return success();
}
