//===- TripSlices.cpp - The ops computing a trip's values ----------------===//

#include "Tile/Transforms/TripSlices.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

FailureOr<SmallVector<Operation *>>
mlir::tile::tripSlice(ValueRange values, scf::ForOp loop,
                      bool loadsWhereReadOnly) {
  Block *body = loop.getBody();
  std::optional<bool> readOnly;
  SetVector<Operation *> slice;
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar() ||
        !loop.getRegion().isAncestor(v.getParentRegion()))
      continue; // the induction variable, or defined outside the loop
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumRegions())
      return failure();
    if (!isMemoryEffectFree(def)) {
      if (!loadsWhereReadOnly || !isa<LoadOp>(def))
        return failure();
      if (!readOnly)
        readOnly = !writesGlobalMemory(loop);
      if (!*readOnly)
        return failure();
    }
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}
