//===- PingPong.cpp - Consumer warpgroups issue their multiplies in turns -===//
//
// FlashAttention-3's ping-pong, on a warp-specialized kernel with G >= 2
// consumer warpgroups (each owning its rows of every tile):
//
//   consumer {
//     tile.warpgroup_turn start             (warpgroup G-1 hands turn to 0)
//     ...
//     tile.warpgroup_turn wait               (bar.sync 2+g, 256)
//     %s = tile.wgmma async ...              the section: a block's run of
//     ...                                    multiplies, first to last
//     %o = tile.wgmma async ...
//     tile.warpgroup_turn pass               (bar.arrive 2+(g+1)%G, 256)
//     softmax ...                            runs under the next
//     ...                                    warpgroup's multiplies
//     tile.warpgroup_turn finish             (warpgroup 0 takes the last pass)
//   }
//
// A section ends before a wait for one of its multiplies (the work on
// their results is what should overlap the next warpgroup's), and at an
// op with regions (a loop, a branch): the sections a
// warpgroup meets then depend only on the kernel's control flow, which is
// the same in every warpgroup. It also ends at anything every consumer
// thread must reach before any goes on (a named barrier of the consumers,
// an op whose lowering synchronizes them around its scratch memory): one
// warpgroup would wait there for another that waits for its turn.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when the result of `mma`, which is in a loop, is read in that loop
/// by something other than a multiply (as its accumulator), a wait for it
/// or the loop's yield: CUDA-core work that another warpgroup's multiplies
/// could run under.
bool feedsOtherWorkInLoop(WarpgroupMmaOp mma) {
  auto loop = mma->getParentOfType<LoopLikeOpInterface>();
  if (!loop)
    return false;
  SmallVector<Value> work{mma.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isProperAncestor(user))
        continue;
      if (auto wait = dyn_cast<WgmmaWaitOp>(user)) {
        for (Value r : wait->getResults())
          work.push_back(r);
        continue;
      }
      if (isa<WarpgroupMmaOp, scf::YieldOp>(user))
        continue;
      return true;
    }
  }
  return false;
}

struct PingPongPass : public mlir::tile::impl::TilePingPongBase<PingPongPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    std::string why = "the kernel is not warp-specialized (ping_pong "
                      "takes the consumer warpgroups of warp_specialize)";
    func.walk([&](WarpSpecializeOp ws) { why = orderTurns(ws); });
    if (!why.empty() && warn)
      emitWarning(getUserFacingLoc(func))
          << "ping_pong does not apply to kernel '" << func.getSymName()
          << "': " << why;
  }

  /// Orders the turns of `ws`'s consumers; why not, when it cannot.
  static std::string orderTurns(WarpSpecializeOp ws) {
    int32_t groups = ws.getConsumerWarps() / 4;
    Region &consumer = ws.getConsumer();
    if (!consumer.getOps<WarpgroupTurnOp>().empty())
      return ""; // ordered already
    if (ws.getNumConsumerGroups() > 1)
      return "the consumers are in groups that take the tiles in turn "
             "(consumer_groups), whose named barriers the turns' would be";
    if (groups < 2)
      return "it has one consumer warpgroup (ping_pong needs 8 or more "
             "warps)";
    if (kFirstTurnBarrierId + groups > kFirstWarpgroupBarrierId)
      return "it has more consumer warpgroups than named barriers for their "
             "turns (" +
             std::to_string(kFirstWarpgroupBarrierId - kFirstTurnBarrierId) +
             ")";
    bool worthIt = false;
    consumer.walk([&](WarpgroupMmaOp mma) {
      worthIt = worthIt || feedsOtherWorkInLoop(mma);
    });
    if (!worthIt)
      return "no loop's multiply feeds other work in the loop (a softmax) "
             "for the other warpgroup's multiplies to run under";

    // The sections: in each block, the runs of multiplies between ops with
    // regions.
    SmallVector<std::pair<Operation *, Operation *>> sections;
    consumer.walk([&](Block *block) {
      Operation *first = nullptr, *last = nullptr;
      unsigned issued = 0;
      auto close = [&] {
        if (first)
          sections.push_back({first, last});
        first = last = nullptr;
        issued = 0;
      };
      for (Operation &op : *block) {
        // (A warpgroup's own barrier waits for none of the others.)
        auto barrier = dyn_cast<BarrierOp>(op);
        if (op.getNumRegions() || (barrier && !barrier.getWarpgroup()) ||
            getScratchBytes(&op)) {
          close();
          continue;
        }
        // A wait for one of the section's own multiplies ends it: what
        // follows (the softmax of their result) is what the next
        // warpgroup's multiplies should run under.
        if (auto wait = dyn_cast<WgmmaWaitOp>(op);
            wait && wait.getPending() < issued) {
          close();
          continue;
        }
        if (isa<WarpgroupMmaOp>(op)) {
          first = first ? first : &op;
          last = &op;
          ++issued;
        }
      }
      close();
    });

    MLIRContext *ctx = ws.getContext();
    auto turn = [&](OpBuilder &b, TurnKind kind) {
      WarpgroupTurnOp::create(b, ws.getLoc(), TurnKindAttr::get(ctx, kind),
                              b.getI32IntegerAttr(kFirstTurnBarrierId),
                              b.getI32IntegerAttr(groups),
                              b.getI32IntegerAttr(128));
    };
    Block &body = consumer.front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    turn(b, TurnKind::Start);
    b.setInsertionPointToEnd(&body);
    turn(b, TurnKind::Finish);
    for (auto [first, last] : sections) {
      b.setInsertionPoint(first);
      turn(b, TurnKind::Wait);
      b.setInsertionPointAfter(last);
      turn(b, TurnKind::Pass);
    }
    return "";
  }
};

} // namespace
