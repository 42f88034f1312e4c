//===- DeferEpilogue.cpp - A tile's epilogue under the next tile's multiply
//===//
//
// A persistent kernel's tile loop (`tile.tile_loop`) whose body ends with
// an epilogue, the arithmetic on the last multiply's result and the stores
// of the tile, leaves the tensor cores idle while it runs. This pass defers
// the epilogue to the next trip of the tile loop, right after that trip's
// first multiply has been issued, so that it runs while the tensor cores
// run the next tile's first multiply:
//
//   scf.for %t {tile.tile_loop}            scf.for %t iter_args(%pending =
//   false,
//     %o, %l = scf.if %trips {                     %o' = 0, %l' = 0, %c' = 0) {
//       S = wgmma async Q, K0                 %o, %l = scf.if %trips {
//       S = wgmma_wait 0, S                     S = wgmma async Q, K0
//       ...                                     scf.if %pending {
//       %o = wgmma_wait 0, (P V)                  store %o' / %l' at %c'
//       yield %o, %l                            }
//     } else { yield 0, 0 }                     S = wgmma_wait 0, S
//     %c = (the tile's coordinates)             ...
//     store %o / %l at %c                       %o = wgmma_wait 0, (P V)
//   }                                           yield %o, %l
//                                             } else {
//                                               scf.if %pending {
//                                                 store %o' / %l' at %c'
//                                               }
//                                               yield 0, 0
//                                             }
//                                             %c = (the tile's coordinates)
//                                             yield true, %o, %l, %c
//                                           }
//                                           scf.if %pending#r { the last tile's
//                                           }
//
// The epilogue is what follows the last op of the body that issues a
// multiply, except what the loop's next trip needs and the completions of
// multiplies (`tile.wgmma_wait`), which stay: side-effect-free ops and
// stores (`tile.local_store`, `tile.tma_store`, `tile.tma_store_wait`,
// `tile.store`). The trip's values it uses go around the loop, complete:
// carrying a multiply in flight around the tile loop instead, its
// completion after the next tile's first multiply (`wgmma.wait_group 1`),
// makes ptxas serialize every multiply of the kernel (C7514: it does not
// follow the groups through the loop). The next trip's first multiply (an
// async `tile.wgmma`) must be at the body's top level or in a region of an
// `scf.if` there; the other regions of that `scf.if` run the epilogue
// first thing. In a loop at the body's top level (a GEMM's K loop), the
// epilogue runs in the loop's first trip, after its first multiply, and
// before the loop where it runs no trip; tile-fresh-accumulators peels
// that trip where the loop streams multiplies (a specialized consumer's),
// elsewhere the epilogue stays in the loop's body under `iv == lb`, its
// values live across the loop. Nothing the epilogue moves past may
// touch the shared memory it uses (a release or refill of the ring of a slot it
// stores to, a read, a write); otherwise, and where the body has no such shape,
// the loop is left as it is. After tile-async-wgmma (which places the
// completions), before tile-dynamic-schedule (which turns the loop into a while
// loop).
//
// With `multiply`, the last multiply of the tile (attention's last P V,
// issued after the key loop and completed at the end of the scf.if that
// runs the loop) moves with the epilogue: issued in the next trip right
// before that trip's first multiply, completed right after it, so that the
// tensor cores run both back to back and the normalization and stores run
// under the first. Its operands go around the loop (registers; a ring slot
// as its index: the slot is not released before the next trip's first
// multiply, checked); from the scf.if's other region (a tile with no keys)
// and before the first tile it runs on zeros and slot 0, its result
// dropped by an `arith.select` on the scf.if's condition:
//
//   scf.for %t iter_args(%pending, %p, %acc, %slot, %ran, ...) {
//     scf.if %trips {
//       O' = wgmma async %p, V[%slot], %acc    (the previous tile's P V)
//       S = wgmma async Q, K0                  (this tile's first)
//       O' = wgmma_wait 1, O'
//       scf.if %pending { store select(%ran, O', 0) / l' at c' }
//       S = wgmma_wait 0, S
//       ...                                    (the key loop)
//       yield P, acc, slot                     (the last P V's operands)
//     } else { O' = ...; wait 0; scf.if %pending { store }; yield 0 }
//   }
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
#define GEN_PASS_DEF_TILEDEFEREPILOGUE
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool issuesMultiply(Operation *op) {
  return op->walk([](WarpgroupMmaOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// An op the epilogue may hold: side-effect free, or a store of the tile.
bool isEpilogueOp(Operation *op) {
  return isMemoryEffectFree(op) ||
         (op->getNumRegions() == 0 &&
          isa<LocalStoreOp, TmaStoreOp, TmaStoreWaitOp, StoreOp>(op));
}

/// Whether `op` at most reads the shared memory it uses: side-effect free
/// (a slot's address), a multiply, its completion, a wait for a slot's
/// fill.
bool readsOnly(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) ||
          isa<WarpgroupMmaOp, WgmmaWaitOp, MbarrierWaitOp>(op));
}

struct Plan {
  Operation *last = nullptr;         // the last op that issues a multiply
  SmallVector<Operation *> epilogue; // in order
  llvm::SetVector<Value> carried;    // the trip's values the epilogue uses
  WarpgroupMmaOp first;              // the next trip's first multiply
  scf::IfOp firstIf;                 // the scf.if holding it, if any
  scf::ForOp firstLoop;              // or the loop holding it (a K loop)
  // With the multiply (`multiply`): the tile's last multiply and its
  // completion, part of the epilogue, and the first op of the tail.
  WarpgroupMmaOp lastMma;
  WgmmaWaitOp lastWait;
  Operation *tailStart = nullptr;
};

/// Whether `v` is defined inside `op` (by an op in one of its regions, or
/// as an argument of one of their blocks).
bool definedIn(Value v, Operation *op) {
  return op->isAncestor(v.getParentRegion()->getParentOp());
}

/// With the multiply: takes the tile's last multiply and its completion
/// (`tile.wgmma_wait 0` right after it, at the end of its block) out of the
/// scf.if at the body's top level that holds them, to right after it: the
/// scf.if yields what they read instead (a tile as it is, a ring slot as
/// its index; zeros from its other region), and the result is the
/// completion's where the scf.if ran its first region, else what the
/// other region yields (`arith.select`): the multiply then runs whichever
/// region ran, on zeros and slot 0 after the other one (its result unused).
/// Fills plan.lastMma, lastWait and tailStart; why not, when it cannot.
std::string sinkLastMultiply(scf::ForOp loop, Plan &plan) {
  Block *body = loop.getBody();
  Operation *lastTop = nullptr;
  for (Operation &op : llvm::reverse(body->without_terminator()))
    if (issuesMultiply(&op)) {
      lastTop = &op;
      break;
    }
  if (!lastTop)
    return "its tile loop issues no multiply";
  WarpgroupMmaOp mma;
  lastTop->walk([&](WarpgroupMmaOp m) { mma = m; });
  if (!mma.getIsAsync())
    return "the tile's last multiply is not asynchronous";
  Block *block = mma->getBlock();
  // Its result through register-renaming layout conversions (between mma
  // layouts of other instruction shapes) to its completion.
  SmallVector<Operation *> chain;
  Value result = mma.getResult();
  Operation *next = mma->getNextNode();
  while (auto convert = dyn_cast_or_null<ConvertLayoutOp>(next)) {
    if (convert->getOperand(0) != result || !result.hasOneUse())
      break;
    chain.push_back(convert);
    result = convert.getResult();
    next = next->getNextNode();
  }
  // Completed right after it: at the end of an scf.if's region, or
  // anywhere in the body (the epilogue follows).
  auto wait = dyn_cast_or_null<WgmmaWaitOp>(next);
  if (!wait || wait.getPending() != 0 || wait.getValues().size() != 1 ||
      wait.getValues()[0] != result || !result.hasOneUse() ||
      (block != body && wait->getNextNode() != block->getTerminator()))
    return "the tile's last multiply is not completed right after it, at the "
           "end of its block";
  SmallVector<Operation *> moved = {mma};
  llvm::append_range(moved, chain);
  moved.push_back(wait);
  // The ring slots they read, picked in the trip, are picked again where
  // the multiply goes (the slot's index goes around the loop, not the
  // slot: the epilogue writes none).
  SmallVector<SmemSlotOp> slots;
  for (Operation *op : moved)
    for (Value v : op->getOperands()) {
      if (!isa<SharedMemoryType>(v.getType()) || !definedIn(v, loop))
        continue;
      auto slot = v.getDefiningOp<SmemSlotOp>();
      if (!slot || definedIn(slot.getRing(), loop))
        return "the tile's last multiply reads a shared-memory buffer its "
               "trip picks other than as a slot of a ring allocated before "
               "the tile loop";
      if (!llvm::is_contained(slots, slot))
        slots.push_back(slot);
    }
  IRMapping map;
  OpBuilder b(mma);
  if (block == body) {
    // Picked again right before the multiply, where the tail starts.
    plan.tailStart = mma;
    for (SmemSlotOp slot : slots) {
      Operation *again = b.clone(*slot);
      if (plan.tailStart == mma.getOperation())
        plan.tailStart = again;
      map.map(slot.getResult(), again->getResult(0));
    }
    for (Operation *op : moved)
      for (OpOperand &use : op->getOpOperands())
        if (Value now = map.lookupOrNull(use.get()))
          use.set(now);
    plan.lastMma = mma;
    plan.lastWait = wait;
    return "";
  }
  auto ifOp = dyn_cast<scf::IfOp>(block->getParentOp());
  if (!ifOp || ifOp != lastTop || block != ifOp.thenBlock() ||
      ifOp.getElseRegion().empty())
    return "the tile's last multiply is neither at the top of its tile nor "
           "at the end of the first region of an scf.if there";
  auto yield = cast<scf::YieldOp>(block->getTerminator());
  Value done = wait.getResult(0);
  if (!done.hasOneUse() || done.use_begin()->getOwner() != yield)
    return "the tile's last multiply's result is used in its own region";
  unsigned r = done.use_begin()->getOperandNumber();

  // What they read from the scf.if's region goes out as its results: a
  // slot's index, registers as they are (zeros from the other region).
  SmallVector<Value> ins, outs;
  for (Operation *op : moved)
    for (Value v : op->getOperands()) {
      if (llvm::is_contained(moved, v.getDefiningOp()) ||
          isa<SharedMemoryType>(v.getType()) || !definedIn(v, ifOp) ||
          llvm::is_contained(ins, v))
        continue;
      if (!hasZero(v.getType()))
        return "the tile's last multiply reads a value that has no zero for "
               "the scf.if's other region";
      ins.push_back(v);
      outs.push_back(v);
    }
  for (SmemSlotOp slot : slots)
    if (definedIn(slot.getSlot(), ifOp) &&
        !llvm::is_contained(ins, slot.getSlot())) {
      ins.push_back(slot.getSlot());
      outs.push_back(slot.getSlot());
    }

  Location loc = ifOp.getLoc();
  b.setInsertionPoint(ifOp);
  SmallVector<Type> types(ifOp.getResultTypes());
  for (Value v : outs)
    types.push_back(v.getType());
  auto newIf =
      scf::IfOp::create(b, loc, types, ifOp.getCondition(), /*else=*/true);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  // The first region yields zeros where it yielded the result (the select
  // below drops them).
  b.setInsertionPoint(yield);
  yield.setOperand(r, zeroOf(b, loc, done.getType()));
  yield.getResultsMutable().append(outs);
  auto otherYield = cast<scf::YieldOp>(newIf.elseBlock()->getTerminator());
  b.setInsertionPoint(otherYield);
  for (Value v : outs)
    otherYield.getResultsMutable().append(zeroOf(b, loc, v.getType()));

  // After the scf.if: the slots, the multiply, its completion, the select.
  b.setInsertionPointAfter(newIf);
  unsigned base = ifOp.getNumResults();
  for (auto [i, v] : llvm::enumerate(ins))
    map.map(v, newIf.getResult(base + i));
  for (SmemSlotOp slot : slots)
    map.map(slot.getResult(), b.clone(*slot, map)->getResult(0));
  auto newMma = cast<WarpgroupMmaOp>(b.clone(*mma, map));
  for (Operation *op : chain)
    b.clone(*op, map);
  auto newWait = cast<WgmmaWaitOp>(b.clone(*wait, map));
  plan.tailStart = newIf->getNextNode();
  auto accType = cast<RankedTensorType>(done.getType());
  Value ran =
      FullOp::create(b, loc,
                     RankedTensorType::get(accType.getShape(), b.getI1Type(),
                                           accType.getEncoding()),
                     ifOp.getCondition());
  // The other region's value itself where it comes from outside the loop
  // (a constant): the scf.if's result would otherwise go around the loop
  // beside the multiply's accumulator.
  Value other = otherYield.getResults()[r];
  if (definedIn(other, loop))
    other = newIf.getResult(r);
  Value selected =
      arith::SelectOp::create(b, loc, ran, newWait.getResult(0), other);
  for (unsigned i = 0; i < base; ++i)
    ifOp.getResult(i).replaceAllUsesWith(i == r ? selected
                                                : newIf.getResult(i));
  for (Operation *op : llvm::reverse(moved))
    op->erase();
  ifOp->erase();
  plan.lastMma = newMma;
  plan.lastWait = newWait;
  return "";
}

/// Fills `plan` for `loop`; why the loop stays as it is, when it does ("" when
/// it can be deferred).
std::string analyze(scf::ForOp loop, Plan &plan) {
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  bool multiply = bool(plan.lastMma);
  if (!multiply) {
    for (Operation &op : llvm::reverse(body->without_terminator()))
      if (issuesMultiply(&op)) {
        plan.last = &op;
        break;
      }
    if (!plan.last)
      return "its tile loop issues no multiply";
    plan.tailStart = plan.last->getNextNode();
  }

  // The tail: what the next trip needs and the completions stay, the rest
  // is the epilogue (with the multiply: the last multiply and its
  // completion too).
  SmallVector<Operation *> tail;
  for (Operation *op = plan.tailStart; op != yield; op = op->getNextNode())
    tail.push_back(op);
  // An op of the tail that stays keeps what computes its operands.
  llvm::SmallPtrSet<Operation *, 16> keep;
  std::function<void(Operation *)> stay = [&](Operation *op) {
    if (op->getBlock() != body || op->isBeforeInBlock(plan.tailStart) ||
        !keep.insert(op).second)
      return;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (Operation *def = v.getDefiningOp())
          stay(def);
    });
  };
  for (Value v : yield->getOperands())
    if (Operation *def = v.getDefiningOp())
      stay(def);
  // The completions stay, and so do side-effect-free ops on the multiplies'
  // results: the stores take their values, complete and in registers no
  // multiply wrote, around the loop (ptxas injects a wait before a read of
  // a multiply's registers after the next multiply's issue when they come
  // around the loop: C7517).
  // With the multiply, the last multiply's completion and what computes on
  // its result move with it: its registers come around the loop as
  // operands, not results.
  llvm::SmallPtrSet<Operation *, 16> fromMultiply = {plan.last};
  for (Operation *op : multiply ? ArrayRef<Operation *>() : ArrayRef(tail))
    if (isa<WgmmaWaitOp>(op) || (isMemoryEffectFree(op) &&
                                 llvm::any_of(op->getOperands(), [&](Value v) {
                                   Operation *def = v.getDefiningOp();
                                   return def && fromMultiply.contains(def);
                                 }))) {
      fromMultiply.insert(op);
      stay(op);
    }
  if (multiply && (keep.contains(plan.lastMma) || keep.contains(plan.lastWait)))
    return "the next tile needs its last multiply's result";
  bool stores = false;
  for (Operation *op : tail) {
    if (op == plan.lastMma || op == plan.lastWait) {
      plan.epilogue.push_back(op);
      continue;
    }
    if (keep.contains(op)) {
      if (!isMemoryEffectFree(op) && !isa<WgmmaWaitOp>(op))
        // The next trip needs a side effect after the epilogue.
        return "the next tile needs a side effect after the epilogue";
      continue;
    }
    if (!isEpilogueOp(op))
      return "the epilogue has an op with effects it cannot move";
    stores |= !isMemoryEffectFree(op);
    plan.epilogue.push_back(op);
  }
  if (!stores)
    return "the tile has no store after its last multiply to defer";

  // The values the epilogue takes from the trip go around the loop.
  llvm::SmallPtrSet<Operation *, 16> inEpilogue(plan.epilogue.begin(),
                                                plan.epilogue.end());
  for (Operation *op : plan.epilogue)
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          if (arg.getOwner() == body)
            plan.carried.insert(v);
          continue;
        }
        Operation *top = body->findAncestorOpInBlock(*v.getDefiningOp());
        if (top && !inEpilogue.contains(top))
          plan.carried.insert(v);
      }
    });
  for (Value v : plan.carried) {
    if (hasZero(v.getType()))
      continue;
    // A slot of a ring that the trip picked (the output staged in the
    // slot its input was loaded into: stage-in-ring-slots) cannot wait
    // for the next trip: the ring refills it.
    if (isa<SharedMemoryType>(v.getType()))
      return "the epilogue writes a shared-memory slot that its trip picks "
             "(the output staged in its input's ring: stage_in_ring_slots), "
             "which the next trip's refills reuse";
    std::string type;
    llvm::raw_string_ostream os(type);
    v.getType().print(os);
    return "the epilogue takes a value of type '" + type +
           "', which has no zero to start the loop with";
  }

  // The next trip's first multiply.
  body->walk<WalkOrder::PreOrder>([&](WarpgroupMmaOp mma) {
    plan.first = mma;
    return WalkResult::interrupt();
  });
  if (plan.first == plan.lastMma)
    return "its tile issues one multiply: there is no first one to issue "
           "the last behind";
  if (!plan.first.getIsAsync())
    return "the next tile's first multiply is not asynchronous";
  Operation *top = plan.first;
  if (plan.first->getBlock() != body) {
    // The first multiply must be at the top, in an scf.if there, or at
    // the top of a loop there (a GEMM's K loop: the epilogue then runs in
    // its first trip, or before it where it runs none).
    Operation *parent = plan.first->getParentOp();
    plan.firstIf = dyn_cast<scf::IfOp>(parent);
    plan.firstLoop = dyn_cast<scf::ForOp>(parent);
    if ((!plan.firstIf && !plan.firstLoop) || parent->getBlock() != body)
      return "the next tile's first multiply is not at the top of its tile "
             "or of a loop there";
    if (multiply && plan.firstLoop)
      return "the next tile's first multiply is in a loop (the last "
             "multiply would be issued before it and completed in the "
             "loop's first trip)";
    top = parent;
  }

  // Nothing the epilogue moves past may touch its shared memory, but reads
  // (a multiply's, a wait for a slot's fill) may cross reads.
  llvm::SmallPtrSet<Operation *, 8> mine, written;
  for (Operation *op : plan.epilogue) {
    collectAllocations(op, mine);
    if (!readsOnly(op))
      collectAllocations(op, written);
  }
  SmallVector<Operation *> crossed;
  for (Operation *op : tail)
    if (keep.contains(op))
      crossed.push_back(op);
  for (Operation &op : *body) {
    if (&op == top)
      break;
    crossed.push_back(&op);
  }
  if (plan.firstIf || plan.firstLoop)
    for (Operation &op : *plan.first->getBlock()) {
      if (&op == plan.first.getOperation())
        break;
      crossed.push_back(&op);
    }
  for (Operation *op : crossed) {
    llvm::SmallPtrSet<Operation *, 8> used;
    collectAllocations(op, used);
    auto &against = readsOnly(op) ? written : mine;
    if (llvm::any_of(used, [&](Operation *a) { return against.contains(a); }))
      return "an op between the epilogue and the next multiply uses the "
             "epilogue's shared memory";
  }
  return "";
}

/// Clones `ops` at `b`'s insertion point under `scf.if %pending`, their
/// operands from the trip mapped by `map`.
void cloneUnder(OpBuilder &b, Location loc, ArrayRef<Operation *> ops,
                Value pending, IRMapping map) {
  auto ifOp = scf::IfOp::create(b, loc, pending, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  for (Operation *op : ops)
    b.clone(*op, map);
}

/// Clones the epilogue at `b`'s insertion point, its operands from the trip
/// mapped by `map`: under `scf.if %pending`; with the multiply, the
/// multiply (and the slots it reads) outside it, and its completion too,
/// counting `issuedAfter` multiplies issued between them (b's insertion
/// point moved to after the multiply then).
void cloneEpilogue(OpBuilder &b, Location loc, Plan &plan, Value pending,
                   IRMapping map, Operation *issuedAfter = nullptr) {
  if (!plan.lastMma) {
    cloneUnder(b, loc, plan.epilogue, pending, map);
    return;
  }
  // The multiply, what it reads (slots) and its result's renamings; then
  // its completion; then the rest.
  auto at = llvm::find(plan.epilogue, plan.lastWait.getOperation());
  ArrayRef<Operation *> head(plan.epilogue.begin(), at);
  ArrayRef<Operation *> rest(at + 1, plan.epilogue.end());
  for (Operation *op : head)
    b.clone(*op, map);
  if (issuedAfter)
    b.setInsertionPointAfter(issuedAfter);
  auto wait = cast<WgmmaWaitOp>(b.clone(*plan.lastWait, map));
  if (issuedAfter)
    wait.setPending(1);
  cloneUnder(b, loc, rest, pending, map);
}

scf::ForOp defer(scf::ForOp loop, Plan &plan) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  SmallVector<Value> inits = {
      arith::ConstantOp::create(b, loc, b.getBoolAttr(false))};
  for (Value v : plan.carried)
    inits.push_back(zeroOf(b, loc, v.getType()));
  // The body's arguments among the carried values (the tile's index, an
  // iteration argument) become the new loop's: keep their numbers.
  SmallVector<Value> carried(plan.carried.begin(), plan.carried.end());
  SmallVector<int> argNumber;
  for (Value v : carried) {
    auto arg = dyn_cast<BlockArgument>(v);
    argNumber.push_back(
        arg && arg.getOwner() == loop.getBody() ? int(arg.getArgNumber()) : -1);
  }
  IRRewriter rewriter(b);
  auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &yb, Location yloc, ArrayRef<BlockArgument>) {
        SmallVector<Value> yields = {
            arith::ConstantOp::create(yb, yloc, yb.getBoolAttr(true))};
        llvm::append_range(yields, plan.carried);
        return yields;
      }));
  unsigned base = newLoop.getNumRegionIterArgs() - inits.size();
  Value pending = newLoop.getRegionIterArgs()[base];
  for (size_t i = 0; i < carried.size(); ++i)
    if (argNumber[i] >= 0)
      carried[i] = newLoop.getBody()->getArgument(argNumber[i]);
  IRMapping inLoop, after;
  for (auto [i, v] : llvm::enumerate(carried)) {
    inLoop.map(v, newLoop.getRegionIterArgs()[base + 1 + i]);
    after.map(v, newLoop.getResults()[base + 1 + i]);
  }

  // Under the next trip's first multiply; first thing in the other regions
  // of its scf.if (an else region made for it if there is none); in a
  // loop, in its first trip, and before the loop where it runs none; after
  // the tile loop, for the last tile.
  if (scf::ForOp inner = plan.firstLoop) {
    b.setInsertionPointAfter(plan.first);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              inner.getInductionVar(), inner.getLowerBound());
    cloneEpilogue(b, loc, plan, arith::AndIOp::create(b, loc, pending, first),
                  inLoop);
    b.setInsertionPoint(inner);
    Value none =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                              inner.getLowerBound(), inner.getUpperBound());
    cloneEpilogue(b, loc, plan, arith::AndIOp::create(b, loc, pending, none),
                  inLoop);
  } else if (plan.lastMma) {
    // The last multiply before the next tile's first, its completion and
    // the rest of the epilogue after it.
    b.setInsertionPoint(plan.first);
    cloneEpilogue(b, loc, plan, pending, inLoop, plan.first);
  } else {
    b.setInsertionPointAfter(plan.first);
    cloneEpilogue(b, loc, plan, pending, inLoop);
  }
  if (scf::IfOp ifOp = plan.firstIf) {
    if (ifOp.getElseRegion().empty()) {
      Block *block = new Block;
      ifOp.getElseRegion().push_back(block);
      b.setInsertionPointToStart(block);
      scf::YieldOp::create(b, loc);
    }
    for (Region &region : ifOp->getRegions())
      if (!region.isAncestor(plan.first->getParentRegion())) {
        b.setInsertionPointToStart(&region.front());
        cloneEpilogue(b, loc, plan, pending, inLoop);
      }
  }
  // After the loop, all of it under the scf.if: a multiply issued there
  // is complete before the join.
  b.setInsertionPointAfter(newLoop);
  cloneUnder(b, loc, plan.epilogue, newLoop.getResults()[base], after);

  for (Operation *op : llvm::reverse(plan.epilogue))
    op->erase();
  return newLoop;
}

bool inProducer(Operation *op) {
  for (Region *r = op->getParentRegion(); r; r = r->getParentRegion())
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(r->getParentOp()))
      return r != &ws.getConsumer();
  return false;
}

struct DeferEpiloguePass
    : public mlir::tile::impl::TileDeferEpilogueBase<DeferEpiloguePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // A warp-specialized kernel's producers run copies of the tile loop
    // that issue no multiply: the consumers' is the one to defer in.
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileDialect::getTileLoopAttrName()) &&
          !inProducer(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (multiply) {
        std::string why = deferWithMultiply(loop);
        if (why.empty())
          continue;
        if (warnMultiply)
          emitWarning(getUserFacingLoc(loop))
              << "defer_last_multiply does not apply to this kernel: " << why;
      }
      if (!epilogue)
        continue;
      Plan plan;
      std::string why = analyze(loop, plan);
      if (why.empty())
        defer(loop, plan);
      else if (warn)
        emitWarning(getUserFacingLoc(loop))
            << "defer_epilogue does not apply to this kernel: " << why;
    }
  }

  /// With the multiply, on a copy of `loop` (the scf.if holding the last
  /// multiply is rebuilt before it is known whether the rest applies),
  /// which replaces it where it does; why not, where it does not.
  std::string deferWithMultiply(scf::ForOp loop) {
    OpBuilder b(loop);
    auto copy = cast<scf::ForOp>(b.clone(*loop));
    Plan plan;
    std::string why = sinkLastMultiply(copy, plan);
    if (why.empty())
      why = analyze(copy, plan);
    if (!why.empty()) {
      copy->erase();
      return why;
    }
    scf::ForOp deferred = defer(copy, plan);
    loop->replaceAllUsesWith(
        deferred->getResults().take_front(loop->getNumResults()));
    loop->erase();
    return "";
  }
};

} // namespace
