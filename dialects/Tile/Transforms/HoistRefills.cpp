//===- HoistRefills.cpp - A one-slot ring refilled after its last read ----===//
//
// tile-pipeline's tile-refill-after-read fills a persistent kernel's ring
// of one slot (attention's Q at tile-stages=1) for the next tile right
// after this tile's last read of it: after the op of the tile's body that
// holds the read (the loop over K and V). The passes after it may put work
// that does not read the slot between that op and the refill:
// tile-rotate-wgmma wraps the loop in an `scf.if` (on the loop running at
// all) together with the last trip's P V, which reads V only. This pass
// moves each such refill (the `tile.tma_load`, or with warp specialization
// the consumers' `tile.mbarrier_arrive` that releases the slot to the
// producer) back up to right after the last op that touches the slot:
//
//   scf.for %t {tile.tile_loop}            scf.for %t {tile.tile_loop}
//     %o = scf.if %trips {                   %o = scf.if %trips {
//       ... scf.for (reads Q) ...              ... scf.for (reads Q) ...
//       P V (reads V)                          mbarrier_arrive %empty, %q
//     } else { ... }                           P V (reads V)
//     mbarrier_arrive %empty, %q             } else {
//     ... O = %o / l ...                       mbarrier_arrive %empty, %q
//                                            }
//                                            ... O = %o / l ...
//
// Walking up from the refill, an op stops it when it (or an op nested in
// it) uses the ring or the refill's barriers, when it computes an operand
// of the refill and has side effects or regions (a side-effect-free one
// moves along, ahead of the refill), and, for a copy, when it may write
// global memory (which the copy reads). Where the op that stops it is an
// `scf.if` with an else region whose results the refill does not use, the
// refill goes into both regions (its operands' computations before the
// `scf.if`) and moves up in each. Only refills of rings with one slot move:
// a deeper ring's refill fills the slot an earlier trip read, where
// tile-pipeline and tile-async-wgmma put it. tile-async-wgmma, after this
// pass, completes the multiplies still reading the slot before the refill.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEHOISTREFILLS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A refill of a ring of one slot in a tile loop's body: the ring and the
/// barriers it signals.
struct Refill {
  Operation *op = nullptr;
  Operation *ring = nullptr;
  Operation *barriers = nullptr;
  bool copies = false; // a TMA copy (reads global memory)
};

std::optional<Refill> asRefill(Operation *op) {
  Refill r{op};
  Value buffer, barriers;
  if (auto copy = dyn_cast<TmaLoadOp>(op)) {
    if (copy.getIssuer()) // a producer's: it waits for the release itself
      return std::nullopt;
    buffer = copy.getBuffer();
    barriers = copy.getBarriers();
    r.copies = true;
  } else if (auto release = dyn_cast<MbarrierArriveOp>(op)) {
    buffer = release.getBuffer();
    barriers = release.getBarriers();
  }
  auto slot = buffer ? buffer.getDefiningOp<SmemSlotOp>() : SmemSlotOp();
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!slot || slot.getRing().getType().getShape().front() != 1 || !loop ||
      !loop->hasAttr(TileDialect::getTileLoopAttrName()))
    return std::nullopt;
  r.ring = getAllocation(buffer);
  r.barriers = getAllocation(barriers);
  if (!r.ring || !r.barriers)
    return std::nullopt;
  return r;
}

/// Whether `op`, or an op nested in it, may write memory other than shared
/// memory (ops that say nothing of their effects may).
bool mayWriteGlobal(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops are walked
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return nested->hasTrait<OpTrait::IsTerminator>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Write>(e.getEffect()) &&
          e.getResource() != SharedMemoryResource::get())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op`, or an op nested in it, touches the ring or the barriers of
/// `r`, or (for a copy) may write what it reads.
bool conflicts(Operation *op, const Refill &r) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands()) {
      Operation *alloc = getAllocation(v);
      if (alloc && (alloc == r.ring || alloc == r.barriers))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted() || (r.copies && mayWriteGlobal(op));
}

struct HoistRefillsPass
    : public mlir::tile::impl::TileHoistRefillsBase<HoistRefillsPass> {
  void runOnOperation() override {
    SmallVector<Refill> refills;
    getOperation().walk([&](Operation *op) {
      if (auto r = asRefill(op))
        refills.push_back(*r);
    });
    for (Refill &r : refills)
      hoist(r);
  }

  /// Moves `r.op` up its block (see the header).
  static void hoist(Refill r) {
    Block *block = r.op->getBlock();
    // The side-effect-free ops above it that compute its operands move with
    // it; `needed` holds the values they and it use.
    SmallVector<Operation *> slice;
    DenseSet<Value> needed(r.op->getOperands().begin(),
                           r.op->getOperands().end());
    Operation *stop = nullptr;
    for (Operation *prev = r.op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      bool defines = llvm::any_of(prev->getResults(),
                                  [&](Value v) { return needed.contains(v); });
      if (defines && (prev->getNumRegions() || !isMemoryEffectFree(prev))) {
        stop = prev;
        break;
      }
      if (defines) {
        slice.push_back(prev);
        needed.insert(prev->operand_begin(), prev->operand_end());
        continue;
      }
      if (conflicts(prev, r)) {
        stop = prev;
        break;
      }
    }
    auto branch = dyn_cast_or_null<scf::IfOp>(stop);
    if (!branch || branch.getElseRegion().empty() ||
        llvm::any_of(branch.getResults(),
                     [&](Value v) { return needed.contains(v); })) {
      // Right after `stop`: its operands' computations, in order, then the
      // refill.
      SmallVector<Operation *> moving(llvm::reverse(slice));
      moving.push_back(r.op);
      for (Operation *op : moving)
        op->remove();
      Block::iterator at =
          stop ? std::next(Block::iterator(stop)) : block->begin();
      for (Operation *op : moving)
        block->getOperations().insert(at, op);
      return;
    }
    // Into both branches: the operands before the `scf.if`, then the
    // refill at the end of each region, moving up from there.
    for (Operation *op : llvm::reverse(slice))
      op->moveBefore(branch);
    Operation *copy = r.op->clone();
    r.op->moveBefore(branch.thenBlock()->getTerminator());
    branch.elseBlock()->getOperations().insert(
        Block::iterator(branch.elseBlock()->getTerminator()), copy);
    hoist(r);
    Refill other = r;
    other.op = copy;
    hoist(other);
  }
};

} // namespace
