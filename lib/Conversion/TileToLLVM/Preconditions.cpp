//===- Preconditions.cpp - What convert-tile-to-llvm needs of its input ---===//
//
// The patterns of the lowering assume laid-out tile IR: every tensor is a
// tile in a distributed layout, from which they compute the registers of
// each thread. On anything else they would crash (a null or foreign
// encoding) or unroll without end (a tile far too big for a thread block),
// so the pass checks the whole module first and reports, at the op, what is
// wrong. The kernel verifier already ensures most of this inside kernels;
// functions that are not kernels, and tiles without layouts, are only
// caught here.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/Locations.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilec;

/// `what` of `op` (a result, a block argument, ...) has a laid-out tile type
/// the lowering can unroll, when it has a tensor type at all.
static LogicalResult checkType(Operation *op, Type type, const Twine &what) {
  // At the code the user wrote: a constant that folding merged has no
  // location of its own.
  auto emitError = [&] {
    return mlir::emitError(tile::getUserFacingLoc(op))
           << "'" << op->getName() << "' op " << what << " ";
  };
  if (failed(tile::verifyLaidOutTile(type, emitError)))
    return failure();
  if (!isa<RankedTensorType>(type))
    return success();
  unsigned regs = getLinearLayout(type).getNumRegs();
  if (regs > kMaxRegistersPerThread)
    return emitError() << "has type " << type << ", which needs " << regs
                       << " registers per thread; code generation supports "
                          "at most "
                       << kMaxRegistersPerThread
                       << " (use smaller tiles or more warps)";
  return success();
}

/// The types `op` defines: its results, the arguments of the blocks of its
/// regions and, for a function, those of its signature.
static LogicalResult checkOp(Operation *op) {
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (failed(checkType(op, type, "argument #" + Twine(i))))
        return failure();
    for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
      if (failed(checkType(op, type, "result #" + Twine(i))))
        return failure();
  }
  for (OpResult result : op->getResults())
    if (failed(checkType(op, result.getType(),
                         "result #" + Twine(result.getResultNumber()))))
      return failure();
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (failed(checkType(op, arg.getType(),
                             "region argument #" + Twine(arg.getArgNumber()))))
          return failure();
  return success();
}

LogicalResult tilec::checkLoweringPreconditions(ModuleOp module) {
  // One error per function (or other top-level op): the first op that is
  // wrong, where fixing it is the start.
  bool ok = true;
  for (Operation &top : module.getBody()->getOperations()) {
    WalkResult result = top.walk<WalkOrder::PreOrder>([](Operation *op) {
      return failed(checkOp(op)) ? WalkResult::interrupt()
                                 : WalkResult::advance();
    });
    ok &= !result.wasInterrupted();
  }
  return success(ok);
}
