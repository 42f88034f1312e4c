//===- RotateTiles.cpp - The next tile's first trip under this tile's last
//===//
//
// A persistent kernel's tile loop (the `scf.while` of tile-dynamic-schedule)
// whose body is a prologue P (the tile's coordinates, the wait for its
// copies, the key loop's peeled first trip: an async multiply, its
// completion, the arithmetic on it), a pipelined loop, and an end S (the
// last multiply, issued async and completed by a `wait 0`, then the
// epilogue) leaves the tensor cores idle from the last multiply's
// completion to the next tile's first multiply's. This pass rotates the
// tile loop by P, so that the next tile's first multiply is issued before
// this tile's last, and its arithmetic runs while the last one runs:
//
//   while (t valid) {                   c = if (t0 valid) { P(t0) } else 0
//     P(t)                              while (t valid, c) {
//     for j in 1..n {...}                 for j in 1..n {...}       (c: P(t))
//     L = wgmma async (last)              t' = the next tile (the claim)
//     W = wgmma_wait 0, L                 c', W = if (t' valid) {
//     epilogue(W)                           P1(t')          (... Q K0 async)
//     t' = the next tile                    L = wgmma async (last, of t)
//   }                                       P2(t')   (wait 1: L in flight)
//                                           W = wgmma_wait 0, L
//                                         } else { L; W = wait 0, L; 0 }
//                                         epilogue(W)
//                                       }
//
// P1 is P up to the completion of its multiply, P2 the rest, whose first
// `tile.wgmma_wait` waits with one more group pending (L). The values of P
// that the rest of the body uses go around the loop; those that are
// side-effect-free functions of the loop's arguments are computed again
// instead (ring slots, counters), and so are P's last conversions of a
// value into the pipelined loop's register operand (attention's P), on
// the value they convert. What computes the next tile's arguments
// (the claim of the next tile, counters) moves ahead of L. A body whose
// pipelined loop is in an `scf.if` on a loop-invariant condition (no keys
// at all) is unswitched first: the rotated loop runs when it holds, the
// original one otherwise. The loop stays as it is when P's or the moved
// ops' shared memory (rings, barriers) is memory the ops they move past
// touch (O staged in the tile's own Q slot, which the next tile's P
// releases), when an op with effects outside shared memory would move,
// or when the body has another shape. sm_90a, after tile-dynamic-schedule,
// before tile-allocate-shared-memory.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEROTATETILES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isPipelinedLoop(Operation &op) {
  return isa<scf::ForOp>(op) && op.hasAttr(TileDialect::getPipelinedAttrName());
}

bool holdsWgmma(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<WarpgroupMmaOp, WgmmaWaitOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` and the ops nested in it touch shared memory only (or
/// nothing): what may move past the ops of another tile.
bool onlySharedMemory(Operation *op) {
  return !op->walk([](Operation *nested) {
              if (isMemoryEffectFree(nested) ||
                  nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                  isa<scf::YieldOp, scf::ConditionOp>(nested))
                return WalkResult::advance();
              auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
              if (!iface)
                return WalkResult::interrupt();
              SmallVector<MemoryEffects::EffectInstance> effects;
              iface.getEffects(effects);
              for (auto &effect : effects)
                if (effect.getResource() != SharedMemoryResource::get())
                  return WalkResult::interrupt();
              return WalkResult::advance();
            }).wasInterrupted();
}

/// An `scf.if` with both regions and no terminators yet.
scf::IfOp createIf(OpBuilder &b, Location loc, TypeRange types, Value cond) {
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()})
    if (!block->empty())
      block->getTerminator()->erase();
  return ifOp;
}

/// The top-level `scf.if` of `body` whose then-block holds a pipelined loop
/// at its top level and whose condition does not depend on the loop, or
/// null.
scf::IfOp findInvariantGuard(scf::WhileOp loop) {
  for (Operation &op : loop.getAfterBody()->without_terminator()) {
    auto ifOp = dyn_cast<scf::IfOp>(op);
    if (!ifOp || !llvm::any_of(*ifOp.thenBlock(), isPipelinedLoop))
      continue;
    // Invariant: defined outside, or side-effect-free ops on such values.
    std::function<bool(Value)> invariant = [&](Value v) {
      if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
        return true;
      Operation *def = v.getDefiningOp();
      return def && def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
             llvm::all_of(def->getOperands(), invariant);
    };
    return invariant(ifOp.getCondition()) ? ifOp : nullptr;
  }
  return nullptr;
}

/// Clones what computes `v` (side-effect-free ops of the loop) before
/// `b`'s insertion point; returns the clone's value.
Value hoistInvariant(OpBuilder &b, Value v, scf::WhileOp loop, IRMapping &map) {
  if (map.contains(v) || !loop->isAncestor(v.getParentRegion()->getParentOp()))
    return map.lookupOrDefault(v);
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    hoistInvariant(b, operand, loop, map);
  b.clone(*def, map);
  return map.lookup(v);
}

/// Replaces `ifOp` with its then-region (and its condition's op, when
/// nothing else uses it).
void inlineThen(scf::IfOp ifOp) {
  Operation *cond = ifOp.getCondition().getDefiningOp();
  IRRewriter rewriter(ifOp);
  auto thenYield = cast<scf::YieldOp>(ifOp.thenBlock()->getTerminator());
  SmallVector<Value> results(thenYield.getOperands());
  rewriter.eraseOp(thenYield);
  rewriter.inlineBlockBefore(ifOp.thenBlock(), ifOp);
  rewriter.replaceOp(ifOp, results);
  if (cond && cond->use_empty() && isMemoryEffectFree(cond))
    cond->erase();
}

/// `if (cond) { loop with the guard's then-region inlined } else { loop }`;
/// returns the loop of the then-region.
scf::WhileOp unswitch(scf::WhileOp loop, scf::IfOp guard) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  IRMapping hoisted;
  Value cond = hoistInvariant(b, guard.getCondition(), loop, hoisted);
  scf::IfOp ifOp = createIf(b, loc, loop.getResultTypes(), cond);
  b.setInsertionPointToStart(ifOp.elseBlock());
  Operation *other = b.clone(*loop);
  scf::YieldOp::create(b, loc, other->getResults());
  loop->replaceAllUsesWith(ifOp.getResults());
  loop->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->end());
  b.setInsertionPointToEnd(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, loop->getResults());

  // The guard of the moved loop holds.
  inlineThen(guard);
  return loop;
}

struct Plan {
  scf::WhileOp loop;
  scf::ForOp keys;                  // the pipelined loop
  SmallVector<Operation *> p1, p2;  // P, split at its first completion
  WgmmaWaitOp firstWait;            // P2's first op
  SmallVector<Operation *> sPre;    // from the pipelined loop to L
  WarpgroupMmaOp last;              // L
  SmallVector<Operation *> between; // L's result renamed for W
  WgmmaWaitOp lastWait;             // W
  llvm::SmallPtrSet<Operation *, 4> nextTrip; // P2's ops run in S instead
  SmallVector<Operation *> hoisted;    // what computes the next arguments
  SmallVector<Operation *> sPost;      // the rest, after W
  SmallVector<Operation *> recomputed; // P's ops computed again in S
  llvm::SetVector<Value> carried;      // P's values that go around
};

/// Whether the before-region of `loop` is side-effect-free ops and a
/// condition that forwards the arguments as they are.
bool isPlainCondition(scf::WhileOp loop) {
  Block *before = loop.getBeforeBody();
  auto condition = cast<scf::ConditionOp>(before->getTerminator());
  if (!llvm::equal(condition.getArgs(), before->getArguments()) ||
      TypeRange(loop.getBeforeArguments()) != loop.getResultTypes())
    return false;
  return llvm::all_of(before->without_terminator(), [](Operation &op) {
    return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
  });
}

/// Why a tile loop keeps its shape (analyze's reasons shared by several
/// checks).
constexpr const char *kFirst =
    "its tile's first multiplies (before its pipelined loop) are not one "
    "asynchronous group at its top followed by its completion";
constexpr const char *kLast =
    "after its pipelined loop, its tile does not end with one last "
    "asynchronous multiply completed on its own";
constexpr const char *kBetween =
    "between its last multiply and the multiply's completion are ops "
    "other than renames of its result";

/// Fills `plan` for `loop`; why the loop keeps its shape ("" when it can be
/// rotated).
std::string analyze(scf::WhileOp loop, Plan &plan) {
  plan.loop = loop;
  if (!isPlainCondition(loop))
    return "its tile loop's condition is not a plain test of its arguments";
  Block *body = loop.getAfterBody();
  if (body->getArgumentTypes() != TypeRange(loop.getBeforeArguments()))
    return "its tile loop changes the types of its arguments";
  Operation *yield = body->getTerminator();
  auto it = llvm::find_if(*body, isPipelinedLoop);
  if (it == body->end())
    return "its tile has no pipelined loop";
  plan.keys = cast<scf::ForOp>(*it);

  // P: multiplies, then their first completion, then no other.
  bool issued = false, afterWait = false;
  for (Operation &op : llvm::make_range(body->begin(), it)) {
    if (op.getNumRegions() && holdsWgmma(&op))
      return kFirst;
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      if (afterWait || !mma.getIsAsync())
        return kFirst;
      issued = true;
    }
    if (auto wait = dyn_cast<WgmmaWaitOp>(op)) {
      if (afterWait || !issued)
        return kFirst;
      afterWait = true;
      plan.firstWait = wait;
    }
    (afterWait ? plan.p2 : plan.p1).push_back(&op);
  }
  if (!plan.firstWait)
    return "its tile issues no multiply before its pipelined loop (the "
           "loop's first trip, peeled)";

  // S: after the pipelined loop, a completion of everything, then L, then
  // W completing everything; no other multiply.
  enum { kLoop, kDrained, kIssued, kDone } state = kLoop;
  for (Operation *op = plan.keys->getNextNode(); op != yield;
       op = op->getNextNode()) {
    if (op->getNumRegions() && holdsWgmma(op))
      return kLast;
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      if (state != kDrained || !mma.getIsAsync())
        return kLast;
      plan.last = mma;
      state = kIssued;
    } else if (auto wait = dyn_cast<WgmmaWaitOp>(op)) {
      if (wait.getPending() != 0 || (state != kLoop && state != kIssued))
        return kLast;
      if (state == kIssued)
        plan.lastWait = wait;
      state = state == kLoop ? kDrained : kDone;
    }
  }
  if (state != kDone)
    return kLast;

  // What computes the next arguments moves ahead of L.
  llvm::SmallPtrSet<Operation *, 16> hoist;
  std::function<bool(Value)> need = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return true;
    Operation *top = body->findAncestorOpInBlock(*def);
    if (!top || top->isBeforeInBlock(plan.last) || hoist.contains(top))
      return true;
    if (top == plan.last || top == plan.lastWait)
      return false;
    hoist.insert(top);
    bool ok = true;
    top->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        ok &= need(operand);
    });
    return ok;
  };
  for (Value v : yield->getOperands())
    if (!need(v))
      return "the next tile's arguments wait for this tile's last multiply";

  for (Operation *op = plan.keys; op != plan.last; op = op->getNextNode())
    plan.sPre.push_back(op);
  bool beforeWait = true;
  for (Operation *op = plan.last->getNextNode(); op != yield;
       op = op->getNextNode()) {
    if (op == plan.lastWait.getOperation()) {
      beforeWait = false;
      continue;
    }
    if (hoist.contains(op))
      plan.hoisted.push_back(op);
    else
      (beforeWait ? plan.between : plan.sPost).push_back(op);
  }
  // Between L and W: side-effect-free ops on L's result (a layout
  // conversion that renames its registers) for W alone; they go with L.
  for (Operation *op : plan.between) {
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return kBetween;
    for (Operation *user : op->getUsers())
      if (user != plan.lastWait.getOperation() &&
          !llvm::is_contained(plan.between, user))
        return kBetween;
  }

  // What moves up (the hoisted ops, P) may not touch what it moves past
  // (L, W, the rest of S), nor anything outside shared memory.
  SmallVector<Operation *> moved(plan.hoisted);
  llvm::append_range(moved, plan.p1);
  llvm::append_range(moved, plan.p2);
  SmallVector<Operation *> crossed = {plan.last, plan.lastWait};
  llvm::append_range(crossed, plan.sPost);
  llvm::SmallPtrSet<Operation *, 8> movedBuffers, crossedBuffers;
  for (Operation *op : moved) {
    if (!onlySharedMemory(op))
      return "what would move ahead of the last multiply touches memory "
             "other than shared memory";
    collectAllocations(op, movedBuffers);
  }
  for (Operation *op : crossed)
    collectAllocations(op, crossedBuffers);
  // L and W meet P's multiply on purpose: the group counts order them.
  for (Operation *alloc : movedBuffers)
    if (crossedBuffers.contains(alloc))
      return "what would move ahead of the last multiply uses buffers the "
             "multiply or what follows it uses";

  // P's values the rest of the body uses: computed again when they are
  // side-effect-free functions of the loop's arguments, else carried.
  llvm::SmallPtrSet<Operation *, 16> inP;
  for (Operation *op : plan.p1)
    inP.insert(op);
  for (Operation *op : plan.p2)
    inP.insert(op);
  llvm::SmallPtrSet<Operation *, 16> recompute;
  std::function<bool(Operation *)> recomputable = [&](Operation *op) {
    if (recompute.contains(op))
      return true;
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return false;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (inP.contains(def) && !recomputable(def))
          return false;
    recompute.insert(op);
    return true;
  };
  for (Operation *op = plan.keys; op != yield; op = op->getNextNode())
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def || !inP.contains(def) || recomputable(def))
          continue;
        plan.carried.insert(v);
      }
    });
  for (Value v : yield->getOperands())
    if (Operation *def = v.getDefiningOp())
      if (inP.contains(def) && !recomputable(def))
        plan.carried.insert(v);
  for (Operation *op : plan.p1)
    if (recompute.contains(op))
      plan.recomputed.push_back(op);
  for (Operation *op : plan.p2)
    if (recompute.contains(op))
      plan.recomputed.push_back(op);
  // A carried value of the type of L's register operand (attention's P)
  // feeds the same operand of the pipelined loop's multiply: its last
  // conversions (one-operand, side-effect-free ops that only it uses) run
  // at the start of the next trip instead, on their carried operand, so
  // that the value the pipelined loop starts from is made where it is used,
  // as without the rotation (ptxas otherwise keeps it in registers of its
  // own around the tile loop and copies it into the multiply's on every
  // trip of the pipelined loop).
  Type operand = plan.last.getA().getType();
  llvm::SetVector<Operation *> sink;
  llvm::SmallPtrSet<Operation *, 16> inP2(plan.p2.begin(), plan.p2.end());
  for (Value v : plan.carried) {
    if (!isa<RankedTensorType>(operand) || v.getType() != operand)
      continue;
    Operation *op = v.getDefiningOp();
    while (op && inP2.contains(op) && op->getNumOperands() == 1 &&
           op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
           op != plan.firstWait.getOperation()) {
      sink.insert(op);
      op = op->getOperand(0).getDefiningOp();
      if (op && !llvm::all_of(op->getUsers(), [&](Operation *user) {
            return sink.contains(user);
          }))
        break;
    }
  }
  if (!sink.empty()) {
    llvm::SetVector<Value> carried;
    for (Value v : plan.carried)
      if (!sink.contains(v.getDefiningOp()))
        carried.insert(v);
    for (Operation *op : sink)
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (inP.contains(def) && !sink.contains(def) &&
              !recompute.contains(def))
            carried.insert(v);
    plan.carried = std::move(carried);
    for (Operation *op : plan.p2)
      if (sink.contains(op)) {
        plan.recomputed.push_back(op);
        plan.nextTrip.insert(op);
      }
  }
  if (!llvm::all_of(plan.carried, [](Value v) { return hasZero(v.getType()); }))
    return "a value going around the tile loop has no zero of its type";
  return "";
}

/// Clones the before-region's condition for `args` at `b`.
Value cloneCondition(OpBuilder &b, scf::WhileOp loop, ValueRange args) {
  Block *before = loop.getBeforeBody();
  IRMapping map;
  map.map(before->getArguments(), args);
  for (Operation &op : before->without_terminator())
    b.clone(op, map);
  auto condition = cast<scf::ConditionOp>(before->getTerminator());
  return map.lookupOrDefault(condition.getCondition());
}

void rotate(Plan &plan) {
  scf::WhileOp loop = plan.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getAfterBody();
  Operation *yield = body->getTerminator();
  unsigned n = loop.getNumResults();
  SmallVector<Type> carriedTypes;
  for (Value v : plan.carried)
    carriedTypes.push_back(v.getType());

  // Before the loop: P of the first tile, when there is one (without what
  // the loop's first trip makes of it).
  OpBuilder b(loop);
  Value first = cloneCondition(b, loop, loop.getInits());
  scf::IfOp prologue = createIf(b, loc, carriedTypes, first);
  {
    OpBuilder pb = OpBuilder::atBlockBegin(prologue.thenBlock());
    IRMapping map;
    map.map(body->getArguments(), loop.getInits());
    for (Operation *op : plan.p1)
      pb.clone(*op, map);
    for (Operation *op : plan.p2)
      if (!plan.nextTrip.contains(op))
        pb.clone(*op, map);
    SmallVector<Value> values;
    for (Value v : plan.carried)
      values.push_back(map.lookup(v));
    scf::YieldOp::create(pb, loc, values);
    OpBuilder eb = OpBuilder::atBlockBegin(prologue.elseBlock());
    SmallVector<Value> zeros;
    for (Type type : carriedTypes)
      zeros.push_back(zeroOf(eb, loc, type));
    scf::YieldOp::create(eb, loc, zeros);
  }

  // The rotated loop.
  SmallVector<Value> inits(loop.getInits());
  llvm::append_range(inits, prologue.getResults());
  SmallVector<Type> types(loop.getResultTypes());
  llvm::append_range(types, carriedTypes);
  auto rotated = scf::WhileOp::create(b, loc, types, inits);
  rotated->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  SmallVector<Location> locs(types.size(), loc);
  Block *before = b.createBlock(&rotated.getBefore(), rotated.getBefore().end(),
                                types, locs);
  scf::ConditionOp::create(
      b, loc, cloneCondition(b, loop, before->getArguments().take_front(n)),
      before->getArguments());
  Block *after =
      b.createBlock(&rotated.getAfter(), rotated.getAfter().end(), types, locs);
  IRMapping cur;
  cur.map(body->getArguments(), after->getArguments().take_front(n));
  for (auto [i, v] : llvm::enumerate(plan.carried))
    cur.map(v, after->getArgument(n + i));
  for (Operation *op : plan.recomputed)
    b.clone(*op, cur);
  for (Operation *op : plan.sPre)
    b.clone(*op, cur);
  for (Operation *op : plan.hoisted)
    b.clone(*op, cur);
  SmallVector<Value> next;
  for (Value v : yield->getOperands())
    next.push_back(cur.lookupOrDefault(v));
  Value valid = cloneCondition(b, loop, next);

  // The next tile's P around this tile's last multiply.
  SmallVector<Type> ifTypes(carriedTypes);
  llvm::append_range(ifTypes, plan.lastWait->getResultTypes());
  scf::IfOp ifOp = createIf(b, loc, ifTypes, valid);
  {
    OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
    IRMapping nxt, mine = cur;
    nxt.map(body->getArguments(), next);
    for (Operation *op : plan.p1)
      tb.clone(*op, nxt);
    tb.clone(*plan.last, mine);
    for (Operation *op : plan.between)
      tb.clone(*op, mine);
    for (Operation *op : plan.p2) {
      if (plan.nextTrip.contains(op))
        continue;
      Operation *clone = tb.clone(*op, nxt);
      if (op == plan.firstWait.getOperation())
        cast<WgmmaWaitOp>(clone).setPending(plan.firstWait.getPending() + 1);
    }
    tb.clone(*plan.lastWait, mine);
    SmallVector<Value> values;
    for (Value v : plan.carried)
      values.push_back(nxt.lookup(v));
    for (Value v : plan.lastWait->getResults())
      values.push_back(mine.lookup(v));
    scf::YieldOp::create(tb, loc, values);

    OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
    IRMapping only = cur;
    eb.clone(*plan.last, only);
    for (Operation *op : plan.between)
      eb.clone(*op, only);
    eb.clone(*plan.lastWait, only);
    values.clear();
    for (Type type : carriedTypes)
      values.push_back(zeroOf(eb, loc, type));
    for (Value v : plan.lastWait->getResults())
      values.push_back(only.lookup(v));
    scf::YieldOp::create(eb, loc, values);
  }
  unsigned c = carriedTypes.size();
  for (auto [i, v] : llvm::enumerate(plan.lastWait->getResults()))
    cur.map(v, ifOp.getResult(c + i));
  for (Operation *op : plan.sPost)
    b.clone(*op, cur);
  SmallVector<Value> yields(next);
  llvm::append_range(yields, ifOp.getResults().take_front(c));
  scf::YieldOp::create(b, loc, yields);

  loop->replaceAllUsesWith(rotated->getResults().take_front(n));
  loop->erase();
}

struct RotateTilesPass
    : public mlir::tile::impl::TileRotateTilesBase<RotateTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::WhileOp> loops;
    getOperation().walk([&](scf::WhileOp loop) {
      Block *body = loop.getAfterBody();
      if (llvm::any_of(*body, isPipelinedLoop) || findInvariantGuard(loop))
        loops.push_back(loop);
    });
    for (scf::WhileOp loop : loops) {
      if (scf::IfOp guard = findInvariantGuard(loop)) {
        // Unswitch a copy first: the original stays if the plan fails.
        Plan probe;
        OpBuilder b(loop);
        auto copy = cast<scf::WhileOp>(b.clone(*loop));
        inlineThen(findInvariantGuard(copy));
        std::string why = analyze(copy, probe);
        copy->erase();
        if (!why.empty()) {
          report(loop, why);
          continue;
        }
        loop = unswitch(loop, guard);
      }
      Plan plan;
      std::string why = analyze(loop, plan);
      if (why.empty())
        rotate(plan);
      else
        report(loop, why);
    }
    // A persistent kernel whose tile loop holds no pipelined loop, or only
    // under a branch that depends on the tile.
    if (loops.empty()) {
      bool branched = false;
      getOperation().walk([&](scf::WhileOp loop) {
        for (Operation &op : *loop.getAfterBody())
          if (auto ifOp = dyn_cast<scf::IfOp>(op))
            branched |= llvm::any_of(*ifOp.thenBlock(), isPipelinedLoop);
      });
      report(getOperation(),
             branched ? "its pipelined loop runs under a branch that depends "
                        "on the tile (a trip count that may be zero, as a "
                        "causal mask's)"
                      : "its tile has no pipelined loop");
    }
  }

  /// Where the user asked for rotate_tiles: why `at` (the tile loop) keeps
  /// its shape.
  void report(Operation *at, StringRef why) {
    if (warn)
      emitWarning(getUserFacingLoc(at))
          << "rotate_tiles does not apply to this kernel: " << why;
  }
};

} // namespace
