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

struct Plan {
  Operation *last = nullptr;         // the last op that issues a multiply
  SmallVector<Operation *> epilogue; // in order
  llvm::SetVector<Value> carried;    // the trip's values the epilogue uses
  WarpgroupMmaOp first;              // the next trip's first multiply
  scf::IfOp firstIf;                 // the scf.if holding it, if any
  scf::ForOp firstLoop;              // or the loop holding it (a K loop)
};

/// Fills `plan` for `loop`; why the loop stays as it is, when it does ("" when
/// it can be deferred).
std::string analyze(scf::ForOp loop, Plan &plan) {
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  for (Operation &op : llvm::reverse(body->without_terminator()))
    if (issuesMultiply(&op)) {
      plan.last = &op;
      break;
    }
  if (!plan.last)
    return "its tile loop issues no multiply";

  // The tail: what the next trip needs and the completions stay, the rest
  // is the epilogue.
  SmallVector<Operation *> tail;
  for (Operation *op = plan.last->getNextNode(); op != yield;
       op = op->getNextNode())
    tail.push_back(op);
  // An op of the tail that stays keeps what computes its operands.
  llvm::SmallPtrSet<Operation *, 16> keep;
  std::function<void(Operation *)> stay = [&](Operation *op) {
    if (op->getBlock() != body || !plan.last->isBeforeInBlock(op) ||
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
  llvm::SmallPtrSet<Operation *, 16> fromMultiply = {plan.last};
  for (Operation *op : tail)
    if (isa<WgmmaWaitOp>(op) || (isMemoryEffectFree(op) &&
                                 llvm::any_of(op->getOperands(), [&](Value v) {
                                   Operation *def = v.getDefiningOp();
                                   return def && fromMultiply.contains(def);
                                 }))) {
      fromMultiply.insert(op);
      stay(op);
    }
  bool stores = false;
  for (Operation *op : tail) {
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
    top = parent;
  }

  // Nothing the epilogue moves past may touch its shared memory.
  llvm::SmallPtrSet<Operation *, 8> mine;
  for (Operation *op : plan.epilogue)
    collectAllocations(op, mine);
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
    if (llvm::any_of(used, [&](Operation *a) { return mine.contains(a); }))
      return "an op between the epilogue and the next multiply uses the "
             "epilogue's shared memory";
  }
  return "";
}

/// Clones the epilogue at `b`'s insertion point under `scf.if %pending`,
/// its operands from the trip mapped by `map`.
void cloneEpilogue(OpBuilder &b, Location loc, const Plan &plan, Value pending,
                   IRMapping map) {
  auto ifOp = scf::IfOp::create(b, loc, pending, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  for (Operation *op : plan.epilogue)
    b.clone(*op, map);
}

void defer(scf::ForOp loop, Plan &plan) {
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
  b.setInsertionPointAfter(newLoop);
  cloneEpilogue(b, loc, plan, newLoop.getResults()[base], after);

  for (Operation *op : llvm::reverse(plan.epilogue))
    op->erase();
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
      Plan plan;
      std::string why = analyze(loop, plan);
      if (why.empty())
        defer(loop, plan);
      else if (warn)
        emitWarning(getUserFacingLoc(loop))
            << "defer_epilogue does not apply to this kernel: " << why;
    }
  }
};

} // namespace
