//===- ConsumerGroups.cpp - Consumer groups take the tiles in turn -------===//
//
// CUTLASS's ping-pong GEMM on a warp-specialized persistent kernel: G
// groups of the kernel's consumer warps run the consumer region side by
// side, group g taking the tiles at positions g, g + G, ... of the block's
// tile loop, so that one group's epilogue (its last multiply's drain, the
// output's conversion and store) runs under another group's main loop:
//
//   consumer {                           consumer {          (G groups)
//     for t (tile loop) iter c:            %g = tile.consumer_group
//       for k iter c:                      for t iter c, pos:
//         wait full[c % S]                   %c2 = scf.if pos % G == g {
//         wgmma; wgmma_wait 1                  for k iter c:
//         release fill c + d - S                 ... release fill c + d - S
//             if c + d >= S                          if c + d >= c0 + S
//       wgmma_wait 0; epilogue                 wgmma_wait 0
//   }                                          release fills
//                                                max(c0, c_end + d - S)
//                                                .. c_end - 1
//                                              epilogue
//                                            } else {
//                                              c + trips of the k loop
//                                            }
//                                          barrier (every group)
//                                          mbarrier_inval ...
//
// The producer is unchanged: it fills the rings for every tile in order,
// so that a group's main loop runs as the rings bring its tile, after the
// previous group's (whose last slots it waits for). Each group runs the
// whole tile loop (the same tiles, the same claims with
// tile-dynamic-schedule); on another group's tile it only advances what
// the loop carries: the rings' fill counters, by the trip counts of the
// inner loops that count them, from a clone of the ops that compute those
// bounds from the tile. A slot is released by the group that read it: the
// release tile-warp-specialize put in the loop (fill c + d - S, once
// filled) only for fills of the group's own tile (c + d >= c0 + S, c0 the
// tile's first fill), and after the loop, once its multiplies are
// complete, the fills the loop's releases did not reach (formerly released
// by the next tile's first trips, which are another group's now).
//
// The groups are separate to the later passes and the lowering through
// `tile.warp_specialize {consumer_groups}`: a named barrier per group,
// their own copy of the buffers the consumer region allocates, each
// group's threads numbered from 0 (the layouts' threads).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONSUMERGROUPS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// A ring slot's release in an inner loop of the tile loop, as
/// tile-warp-specialize makes it: `mbarrier_arrive %empty[t mod S]` if
/// `t >= S`, with t = c + d for the loop's trip counter c.
struct Release {
  MbarrierArriveOp op;
  scf::ForOp loop;
  /// The trip counter's position among the loop's iteration arguments.
  unsigned counter = 0;
  int64_t stages = 0;
  int64_t ahead = 0;
  /// t (c + d).
  Value fill;
};

/// `v` = `c + d` (or `c`) for a block argument c: (c, d).
std::optional<std::pair<Value, int64_t>> counterPlus(Value v) {
  if (isa<BlockArgument>(v))
    return std::pair(v, int64_t(0));
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  APInt d;
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())})
    if (isa<BlockArgument>(x) && matchPattern(y, m_ConstantInt(&d)))
      return std::pair(x, d.getSExtValue());
  return std::nullopt;
}

/// The release `op` as tile-warp-specialize makes it, or a reason.
FailureOr<Release> analyzeRelease(MbarrierArriveOp op, scf::ForOp tileLoop,
                                  std::string &why) {
  Release r;
  r.op = op;
  r.loop = op->getParentOfType<scf::ForOp>();
  if (!r.loop || r.loop == tileLoop) {
    why = "the tile loop's own body (not a loop in it) releases a ring slot";
    return failure();
  }
  auto rem = op.getSlot().getDefiningOp<arith::RemUIOp>();
  APInt stages;
  auto pred = op.getPred() ? op.getPred().getDefiningOp<arith::CmpIOp>()
                           : arith::CmpIOp();
  APInt bound;
  if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&stages)) || !pred ||
      pred.getPredicate() != arith::CmpIPredicate::uge ||
      pred.getLhs() != rem.getLhs() ||
      !matchPattern(pred.getRhs(), m_ConstantInt(&bound)) || bound != stages) {
    why = "a ring slot's release is not of the form tile-warp-specialize "
          "gives (slot (c + d) mod S if c + d >= S)";
    return failure();
  }
  if (!op.getBuffer().getDefiningOp<SmemSlotOp>()) {
    why = "a ring slot's release names no slot of its ring";
    return failure();
  }
  auto plus = counterPlus(rem.getLhs());
  auto arg = plus ? dyn_cast<BlockArgument>(plus->first) : BlockArgument();
  if (!arg || arg.getOwner() != r.loop.getBody() || !isTripCounter(arg) ||
      plus->second < 0 || plus->second >= stages.getSExtValue()) {
    why = "a ring slot's release is not counted by its loop's trips";
    return failure();
  }
  r.counter = arg.getArgNumber() - r.loop.getNumInductionVars();
  r.stages = stages.getSExtValue();
  r.ahead = plus->second;
  r.fill = rem.getLhs();
  return r;
}

struct ConsumerGroupsPass
    : public mlir::tile::impl::TileConsumerGroupsBase<ConsumerGroupsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal() ||
        groups < 2)
      return;
    std::string why = run(func);
    if (!why.empty() && warn)
      func.emitWarning() << "consumer_groups=" << unsigned(groups)
                         << " does not apply: " << why
                         << "; the consumer warps take every tile together";
  }

  std::string run(func::FuncOp func) {
    if (groups > 3)
      return "at most 3 groups (named barriers: each group's own, every "
             "group's, and the turns')";
    auto specialized = func.getBody().front().getOps<WarpSpecializeOp>();
    if (specialized.empty())
      return "the kernel is not warp-specialized (warp_specialize=on)";
    WarpSpecializeOp ws = *specialized.begin();
    if (ws.getNumConsumerGroups() > 1)
      return "";
    if ((ws.getNumConsumerThreads() * groups) + 128 > 1024)
      return std::to_string(unsigned(groups)) + " groups of " +
             std::to_string(ws.getConsumerWarps()) +
             " warps and the producers' are more than 1024 threads";
    if (ws.getNumConsumerThreads() > 256)
      return "a group of " + std::to_string(ws.getConsumerWarps()) +
             " warps: the turns' named barriers count two groups' threads, "
             "at most 512";
    Block &consumer = ws.getConsumer().front();
    scf::ForOp tileLoop;
    for (auto loop : consumer.getOps<scf::ForOp>())
      if (loop->hasAttr(TileDialect::getTileLoopAttrName()))
        tileLoop = loop;
    if (!tileLoop)
      return "the consumers have no tile loop (persistent=on)";

    // Every ring slot the consumers wait for or release is a loop's in the
    // tile loop; the releases have tile-warp-specialize's form.
    SmallVector<Release> releases;
    std::string why;
    WalkResult walk = ws.getConsumer().walk([&](Operation *op) {
      if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
        auto loop = op->getParentOfType<scf::ForOp>();
        if (!loop || !tileLoop->isProperAncestor(loop)) {
          why = "the consumers wait for a ring slot outside a loop in the "
                "tile loop (a ring of the tile loop's own)";
          return WalkResult::interrupt();
        }
      }
      if (auto arrive = dyn_cast<MbarrierArriveOp>(op)) {
        FailureOr<Release> r = analyzeRelease(arrive, tileLoop, why);
        if (failed(r))
          return WalkResult::interrupt();
        releases.push_back(*r);
      }
      if (isa<WarpgroupTurnOp>(op)) {
        why = "the consumer warpgroups take turns in their tiles (ping_pong)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return why;
    if (releases.empty())
      return "the consumers release no ring slot (no loop reads the "
             "producers' rings)";

    // Where each loop's multiplies are complete: a wait for none pending
    // after the loop, in its block, that names the rings it releases.
    DenseMap<Operation *, WgmmaWaitOp> complete;
    for (Release &r : releases) {
      if (complete.count(r.loop))
        continue;
      Operation *ring = getAllocation(r.op.getBuffer());
      WgmmaWaitOp found;
      for (Operation *op = r.loop->getNextNode(); op && !found;
           op = op->getNextNode())
        if (auto wait = dyn_cast<WgmmaWaitOp>(op);
            wait && wait.getPending() == 0 &&
            llvm::any_of(wait.getBuffers(),
                         [&](Value b) { return getAllocation(b) == ring; }))
          found = wait;
      if (!found)
        return "no wait after a loop completes the multiplies that read its "
               "ring slots, whose releases would follow it";
      complete[r.loop] = found;
    }

    // What the loop carries, on a tile of another group: checked before
    // anything changes.
    {
      DenseSet<Value> seen;
      for (Value v : tileLoop.getYieldedValues())
        if (!canSkip(v, tileLoop, seen, why))
          return why;
    }

    // The tile loop's position, first (the only step that may fail; the
    // ops in the loop move with its body).
    OpBuilder b(tileLoop);
    FailureOr<scf::ForOp> counted =
        addTripCounter(tileLoop, constI32(b, tileLoop.getLoc(), 0));
    if (failed(counted))
      return "the tile loop's position could not be counted";
    tileLoop = *counted;

    // Each release in its loop only for the group's own tile's fills.
    for (Release &r : releases) {
      b.setInsertionPoint(r.op);
      Location loc = r.op.getLoc();
      Value first = r.loop.getInitArgs()[r.counter];
      Value bound =
          arith::AddIOp::create(b, loc, first, constI32(b, loc, r.stages));
      Value own = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        r.fill, bound);
      r.op.getPredMutable().assign(own);
    }
    // After the loop's multiplies complete, the fills the loop did not
    // release: max(c0, c_end + d - S) .. c_end - 1.
    for (Release &r : releases) {
      WgmmaWaitOp wait = complete[r.loop];
      b.setInsertionPointAfter(wait);
      Location loc = r.op.getLoc();
      Value first = r.loop.getInitArgs()[r.counter];
      Value end = r.loop.getResult(r.counter);
      Value reached =
          arith::AddIOp::create(b, loc, end, constI32(b, loc, r.ahead));
      Value bound =
          arith::AddIOp::create(b, loc, first, constI32(b, loc, r.stages));
      Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         reached, bound);
      Value past =
          arith::SubIOp::create(b, loc, reached, constI32(b, loc, r.stages));
      Value from = arith::SelectOp::create(b, loc, some, past, first);
      Value one = constI32(b, loc, 1);
      auto each = scf::ForOp::create(b, loc, from, end, one);
      b.setInsertionPointToStart(each.getBody());
      Value slot = arith::RemUIOp::create(b, loc, each.getInductionVar(),
                                          constI32(b, loc, r.stages));
      IRMapping map;
      map.map(r.op.getSlot(), slot);
      Value buffer = r.op.getBuffer();
      auto view = buffer.getDefiningOp<SmemSlotOp>(); // (analyzeRelease)
      IRMapping viewMap;
      viewMap.map(view.getSlot(), slot);
      map.map(buffer, b.clone(*view, viewMap)->getResult(0));
      auto release = cast<MbarrierArriveOp>(b.clone(*r.op, map));
      release.getPredMutable().clear();
    }

    // The groups: a position counter, each tile's work under the group
    // whose turn it is, what the loop carries advanced by the others.
    b.setInsertionPoint(tileLoop);
    Location loc = tileLoop.getLoc();
    Value group = ConsumerGroupOp::create(
        b, loc, b.getI32IntegerAttr(int32_t(ws.getNumConsumerThreads())));
    Block *body = tileLoop.getBody();
    Operation *yield = body->getTerminator();
    Value pos = body->getArguments().back();

    b.setInsertionPointToStart(body);
    Value turn = arith::RemUIOp::create(b, loc, pos, constI32(b, loc, groups));
    Value mine =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, turn, group);
    SmallVector<Value> carried(yield->getOperands().drop_back());
    Operation *oldNext = yield->getOperands().back().getDefiningOp();
    auto work = scf::IfOp::create(b, loc, TypeRange(ValueRange(carried)), mine,
                                  /*withElse=*/true);
    // The tile's ops into the branch (the position's increment with them,
    // made again after it).
    Block *then = work.thenBlock();
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
             std::next(Block::iterator(work)), Block::iterator(yield))))
      op.moveBefore(then, then->end());
    b.setInsertionPointToEnd(then);
    scf::YieldOp::create(b, loc, carried);
    b.setInsertionPointToStart(work.elseBlock());
    IRMapping map;
    SmallVector<Value> skipped;
    for (Value v : carried)
      skipped.push_back(skipValue(v, tileLoop, b, map));
    scf::YieldOp::create(b, loc, skipped);
    b.setInsertionPoint(yield);
    Value advanced = arith::AddIOp::create(b, loc, pos, constI32(b, loc, 1));
    for (auto [i, v] : llvm::enumerate(work.getResults()))
      yield->setOperand(i, v);
    yield->setOperand(yield->getNumOperands() - 1, advanced);
    // (addTripCounter's increment, moved with the tile's ops, is dead.)
    if (oldNext && oldNext->use_empty())
      oldNext->erase();

    // The groups' main loops in turn, in the tiles' order: a group waits
    // for its turn before its first loop reading the rings and passes it
    // on after its last. (Also what keeps a group's waits for its fills
    // from reading a full barrier's phase two behind: the previous tile's
    // fills have all landed when its turn comes.) The last group before
    // the loop gives group 0 its first turn; after the loop, the group
    // whose turn the last tile passed on takes it, so that no named
    // barrier is left half arrived.
    Operation *firstLoop = nullptr, *lastLoop = nullptr;
    for (Operation &op : *then)
      if (llvm::any_of(releases, [&](Release &r) { return r.loop == &op; })) {
        if (!firstLoop)
          firstLoop = &op;
        lastLoop = &op;
      }
    int32_t turns = kConsumerBarrierId + int32_t(groups) + 1;
    auto takeTurn = [&](TurnKind kind) {
      WarpgroupTurnOp::create(
          b, loc, TurnKindAttr::get(b.getContext(), kind),
          b.getI32IntegerAttr(turns), b.getI32IntegerAttr(int32_t(groups)),
          b.getI32IntegerAttr(int32_t(ws.getNumConsumerThreads())));
    };
    b.setInsertionPoint(firstLoop);
    takeTurn(TurnKind::Wait);
    b.setInsertionPointAfter(lastLoop);
    takeTurn(TurnKind::Pass);
    b.setInsertionPoint(tileLoop);
    takeTurn(TurnKind::Start);
    b.setInsertionPointAfter(tileLoop);
    Value tiles = tileLoop.getResults().back();
    Value lastTurn = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, tiles, constI32(b, loc, groups)), group);
    auto take = scf::IfOp::create(b, loc, lastTurn);
    b.setInsertionPointToStart(take.thenBlock());
    takeTurn(TurnKind::Wait);

    // Every group done before the consumers invalidate the barriers, which
    // group 0 does.
    SmallVector<Operation *> invals;
    for (Operation *op = take->getNextNode(); op; op = op->getNextNode())
      if (isa<MbarrierInvalOp>(op))
        invals.push_back(op);
    if (!invals.empty()) {
      b.setInsertionPoint(invals.front());
      Location at = invals.front()->getLoc();
      int64_t all = ws.getNumConsumerThreads() * groups;
      BarrierOp::create(
          b, at, b.getI32IntegerAttr(kConsumerBarrierId + int32_t(groups)),
          b.getI32IntegerAttr(int32_t(all)));
      Value first = arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                                          group, constI32(b, at, 0));
      auto only = scf::IfOp::create(b, at, first);
      for (Operation *op : invals)
        op->moveBefore(only.thenBlock()->getTerminator());
    }
    // The producers' threads follow every group's.
    int32_t shift = int32_t(ws.getNumConsumerThreads() * (groups - 1));
    for (Region &producer : ws.getProducers())
      producer.walk([&](Operation *op) {
        if (auto issuer = op->getAttrOfType<IntegerAttr>("issuer"))
          op->setAttr("issuer",
                      b.getI32IntegerAttr(int32_t(issuer.getInt()) + shift));
      });
    ws.setConsumerGroupsAttr(b.getI32IntegerAttr(int32_t(groups)));
    return "";
  }

  /// Whether skipValue can make `v`'s value on another group's tile:
  /// defined outside the tile loop's body or an argument of it, made by
  /// side-effect-free ops from such values, or a result of an inner loop
  /// that passes its init through or is its trip counter.
  bool canSkip(Value v, scf::ForOp tileLoop, DenseSet<Value> &seen,
               std::string &why) {
    if (!seen.insert(v).second)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !tileLoop->isProperAncestor(def))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned k = cast<OpResult>(v).getResultNumber();
      BlockArgument arg = loop.getRegionIterArgs()[k];
      if (!canSkip(loop.getInitArgs()[k], tileLoop, seen, why))
        return false;
      if (loop.getYieldedValues()[k] == arg)
        return true;
      if (!isTripCounter(arg) ||
          !loop.getInductionVar().getType().isInteger(32)) {
        why = "the tile loop carries a value an inner loop computes (not "
              "its trip count)";
        return false;
      }
      return canSkip(loop.getLowerBound(), tileLoop, seen, why) &&
             canSkip(loop.getUpperBound(), tileLoop, seen, why) &&
             canSkip(loop.getStep(), tileLoop, seen, why);
    }
    if (def->getNumRegions() || !isMemoryEffectFree(def)) {
      why = "the tile loop carries a value computed by '" +
            def->getName().getStringRef().str() +
            "', which a group skipping the tile cannot repeat";
      return false;
    }
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return canSkip(operand, tileLoop, seen, why);
    });
  }

  /// The value `v` (carried by the tile loop) takes on a tile the group
  /// does not run, made at `b` (canSkip(v) holds): for an inner loop's
  /// trip counter, its init plus the loop's trip count.
  Value skipValue(Value v, scf::ForOp tileLoop, OpBuilder &b, IRMapping &map) {
    if (Value m = map.lookupOrNull(v))
      return m;
    Operation *def = v.getDefiningOp();
    if (!def || !tileLoop->isProperAncestor(def))
      return v;
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned k = cast<OpResult>(v).getResultNumber();
      Value init = skipValue(loop.getInitArgs()[k], tileLoop, b, map);
      Value out = init;
      if (loop.getYieldedValues()[k] != loop.getRegionIterArgs()[k]) {
        Value lb = skipValue(loop.getLowerBound(), tileLoop, b, map);
        Value ub = skipValue(loop.getUpperBound(), tileLoop, b, map);
        Value step = skipValue(loop.getStep(), tileLoop, b, map);
        Location loc = loop.getLoc();
        // ub > lb ? ceil((ub - lb) / step) : 0 (signed, as scf.for counts).
        Value span = arith::SubIOp::create(b, loc, ub, lb);
        Value trips = arith::CeilDivSIOp::create(b, loc, span, step);
        Value runs =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, ub, lb);
        trips =
            arith::SelectOp::create(b, loc, runs, trips, constI32(b, loc, 0));
        out = arith::AddIOp::create(b, loc, init, trips);
      }
      map.map(v, out);
      return out;
    }
    IRMapping local;
    for (Value operand : def->getOperands())
      local.map(operand, skipValue(operand, tileLoop, b, map));
    Operation *clone = b.clone(*def, local);
    for (auto [a, c] : llvm::zip(def->getResults(), clone->getResults()))
      map.map(a, c);
    return map.lookup(v);
  }
};

} // namespace
