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
                         ArrayRef<unsigned> order, unsigned block) {
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
  llvm::SmallBitVector seen(order.size());
  for (unsigned d : order) {
    if (d >= order.size() || seen.test(d))
      return emitError() << "shared layout: order must be a permutation of "
                            "the dimensions";
    seen.set(d);
  }
  return success();
}

unsigned SharedLayoutAttr::getHopperSwizzleBytes(unsigned elementBytes) const {
  unsigned bytes = getBlock() * elementBytes;
  if (getVec() * elementBytes != 16 || (bytes != 128 && bytes != 64 &&
                                        bytes != 32))
    return 0;
  if (getMaxPhase() != bytes / 16 || getPerPhase() != 128 / bytes)
    return 0;
  return bytes;
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
