//===- Timeline.cpp - Record when warpgroups reach a kernel's loops -------===//
//
// A kernel instrumented for a timeline takes one more parameter, the
// address of a buffer (before its TMA descriptors, if any), and records at each
// site the global timer and the multiprocessor's clock:
//
//   func @k(..., %timeline: i64) {
//     tile.timestamp %timeline {site = 0}          // start
//     tile.timestamp %timeline {site = 1}          // loop 1 enter
//     scf.for ... {
//       tile.timestamp %timeline {site = 2}        // loop 1 trip
//       ...
//     }
//     tile.timestamp %timeline {site = 3}          // loop 1 exit
//     tile.timestamp %timeline {site = 4}          // end
//     return
//   }
//
// In a warp-specialized kernel each role's region holds its own copy of
// the loops, so each has sites of its own, named by the role. The kernel's
// `tile.timeline` attribute lists what each site is, for the runtime (the
// kernel's description) and for the reader of the records.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETIMELINE
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// "consumer: " or "producer N: " for an op in a role's region of a
/// tile.warp_specialize, else "".
std::string rolePrefix(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion()) {
    auto ws = dyn_cast_or_null<WarpSpecializeOp>(region->getParentOp());
    if (!ws)
      continue;
    if (region == &ws.getConsumer())
      return "consumer: ";
    for (auto [i, producer] : llvm::enumerate(ws.getProducers()))
      if (region == &producer)
        return "producer " + std::to_string(i) + ": ";
  }
  return "";
}

/// "line:col" of the source a loop came from, where known.
std::string where(Operation *op) {
  if (auto at = dyn_cast<FileLineColLoc>(getUserFacingLoc(op)))
    return std::to_string(at.getLine()) + ":" + std::to_string(at.getColumn());
  return "?";
}

struct TileTimelinePass
    : public tile::impl::TileTimelineBase<TileTimelinePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func->hasAttr(TileDialect::getKernelAttrName()))
      return;
    if (records < 2 || (records & (records - 1))) {
      func.emitError("tile-timeline: records must be a power of two, at "
                     "least 2");
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = func.getLoc();
    // Before the TMA descriptors, which stay the trailing parameters.
    unsigned index = func.getNumArguments();
    while (index > 0 &&
           isa<TensorMapType>(func.getArgument(index - 1).getType()))
      --index;
    if (failed(
            func.insertArgument(index, b.getI64Type(), DictionaryAttr(), loc)))
      return signalPassFailure();
    Value buffer = func.getArgument(index);

    SmallVector<Attribute> sites;
    auto stamp = [&](OpBuilder &at, Location l, std::string what) {
      TimestampOp::create(at, l, buffer, int32_t(sites.size()),
                          int32_t(records));
      sites.push_back(b.getStringAttr(what));
    };
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    stamp(b, loc, "start");

    // Every loop, outermost first, numbered in that order within its role.
    SmallVector<Operation *> loops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp>(op))
        loops.push_back(op);
    });
    llvm::StringMap<unsigned> numbers;
    for (Operation *loop : loops) {
      std::string role = rolePrefix(loop);
      std::string name = role + "loop " + std::to_string(++numbers[role]) +
                         " (" + where(loop) + ")";
      Location l = loop->getLoc();
      b.setInsertionPoint(loop);
      stamp(b, l, name + " enter");
      Block *body = isa<scf::ForOp>(loop)
                        ? cast<scf::ForOp>(loop).getBody()
                        : &cast<scf::WhileOp>(loop).getAfter().front();
      b.setInsertionPointToStart(body);
      stamp(b, l, name + " trip");
      b.setInsertionPointAfter(loop);
      stamp(b, l, name + " exit");
    }
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      stamp(b, ret.getLoc(), "end");
    });
    func->setAttr(
        TileDialect::getTimelineAttrName(),
        b.getDictionaryAttr(
            {b.getNamedAttr("records", b.getI32IntegerAttr(int32_t(records))),
             b.getNamedAttr("sites", b.getArrayAttr(sites))}));
  }
};

} // namespace
