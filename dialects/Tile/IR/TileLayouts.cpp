//===- TileLayouts.cpp - Verifiers of the layout attributes ---------------===//

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

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> sizePerThread,
                          ArrayRef<unsigned> threadsPerWarp,
                          ArrayRef<unsigned> warpsPerCTA,
                          ArrayRef<unsigned> order) {
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

LogicalResult MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
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
