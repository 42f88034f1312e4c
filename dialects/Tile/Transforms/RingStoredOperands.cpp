//===- RingStoredOperands.cpp - Stored multiply operands take turns -------===//
//
// wgmma reads its B operand (and an A it does not take from registers) from
// shared memory. A loop whose body computes such an operand in registers (a
// weight dequantized from 8 bits, a tile scaled or rotated on its way)
// stores it in every trip, `tile.local_alloc` of the value, and the
// multiply reads the buffer. Left one buffer, the store of trip i + 1
// overwrites what the multiply of trip i reads: tile-async-wgmma makes it
// wait for that multiply first, so that the tensor cores idle through the
// store, its barriers and the next issue:
//
//   trip i:   compute B_i | wait 0 | store B_i | barrier | wgmma_i  ...
//                                   ^ wgmma_{i-1} done: nothing in flight
//
// Here such a buffer becomes a ring of `slots` buffers that the trips take
// in turn (the slot of a trip is its trip counter modulo the slots, the
// counter tile-pipeline's rings use where the loop has one), so that the
// store of trip i writes a buffer no multiply in flight reads: the previous
// trip's multiply keeps running under the next trip's store
// (tile-async-wgmma tells the slots apart through the counter;
// tile-insert-barriers orders the store after every thread's wait for the
// multiply two trips back, the barrier after the previous trip's wait 1):
//
//   trip i:   compute B_i | store B_i (slot i % 2) | barrier | wgmma_i |
//             wait 1 (wgmma_{i-1} done, wgmma_i runs on) | barrier
//
// Where the ring does not fit, or `slots` is 1, the buffer is still
// allocated before the loop (one buffer) and stored into in the body: then
// the wait before the store that completes the previous trip's multiply
// names it, and tile-insert-barriers puts a barrier between every thread's
// wait and the store. (A `tile.local_alloc` in the body is defined after
// that wait, which cannot name it: no barrier separated one warpgroup's
// store from the other's multiply still reading the buffer, and a 3-stage
// 8192 x 8192 x 8192 GEMM with B dequantized in registers came out wrong.)
//
// A buffer qualifies where it is allocated in the body of an `scf.for`,
// every use is a `tile.wgmma` operand in the same body, and one reads it as
// B. (A buffer only multiplied as A is left as it is: each warpgroup then
// stores and reads its own rows, behind its own barriers,
// tile-insert-barriers.) The extra buffers of a ring must fit: the shared
// memory live while the loop runs (its buffers, the rings and buffers live
// across it, its largest scratch) plus them within `shared-memory-bytes`,
// and they must not leave fewer blocks a multiprocessor than it had (by
// shared memory, below what its threads and an estimate of its registers
// allow).
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/LoopCounters.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILERINGSTOREDOPERANDS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `alloc`, in the body of a loop, is a multiply operand the pass
/// rings: only wgmma operands in its block, one of them B.
bool isStoredOperand(LocalAllocOp alloc) {
  bool readAsB = false;
  for (OpOperand &use : alloc->getUses()) {
    auto mma = dyn_cast<WarpgroupMmaOp>(use.getOwner());
    if (!mma || mma->getBlock() != alloc->getBlock() ||
        use.getOperandNumber() == mma.getAccMutable().getOperandNumber())
      return false;
    readAsB |= use.get() == mma.getB();
  }
  return readAsB;
}

struct RingStoredOperandsPass
    : public mlir::tile::impl::TileRingStoredOperandsBase<
          RingStoredOperandsPass> {
  using TileRingStoredOperandsBase::TileRingStoredOperandsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getBody()->getOps<LocalAllocOp>(), isStoredOperand))
        loops.push_back(loop);
    });
    std::string why = "no loop stores a multiply's operand in each trip";
    unsigned ringed = 0;
    for (scf::ForOp loop : loops)
      if (failed(ringLoop(loop, ringed, why)))
        return signalPassFailure();
    if (warn && slots > 1 && !ringed)
      getOperation().emitWarning() << "stored_operand_slots=" << unsigned(slots)
                                   << " does not apply: " << why;
  }

  /// Gives the stored operands of `loop` their buffers before it: rings of
  /// `slots` where they fit, else one buffer; `why` says why one was not
  /// ringed.
  LogicalResult ringLoop(scf::ForOp loop, unsigned &ringed, std::string &why) {
    std::optional<TargetLimits> limits = TargetLimits::get("sm_90a");
    int64_t budget =
        sharedMemoryBytes > 0 ? sharedMemoryBytes : limits->sharedBytesPerBlock;
    int64_t most = mostBlocksAround(loop, *limits);
    auto blocks = [&](int64_t bytes) {
      return std::min(most, limits->blocksByShared(bytes));
    };
    // Each stored operand and its ring's type (null: one buffer).
    SmallVector<std::pair<LocalAllocOp, SharedMemoryType>> chosen;
    int64_t live = sharedBytesLiveIn(loop), extra = 0;
    for (LocalAllocOp alloc : loop.getBody()->getOps<LocalAllocOp>()) {
      if (!isStoredOperand(alloc))
        continue;
      chosen.push_back({alloc, SharedMemoryType()});
      if (slots < 2)
        continue;
      auto ringType =
          getRingType([&] { return alloc.emitWarning("not ringed: "); },
                      alloc.getType(), slots);
      if (!ringType)
        continue;
      int64_t more = (slots - 1) * llvm::alignTo(getSlotBytes(alloc), 128);
      if (live + extra + more > budget) {
        why = "a loop's stored operand would not fit " + std::to_string(slots) +
              " times (" + std::to_string(live + extra + more) +
              " bytes of shared memory)";
        continue;
      }
      if (blocks(live + extra + more) < blocks(live)) {
        why = "a loop's stored operand " + std::to_string(slots) +
              " times would leave fewer blocks a multiprocessor (" +
              std::to_string(blocks(live + extra + more)) + ", not " +
              std::to_string(blocks(live)) + ")";
        continue;
      }
      extra += more;
      chosen.back().second = ringType;
    }

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value index;
    if (llvm::any_of(chosen, [](auto &c) { return bool(c.second); })) {
      Value counter = findTripCounter(loop);
      if (!counter) {
        Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
        FailureOr<scf::ForOp> grown = addTripCounter(loop, zero);
        if (failed(grown))
          return failure();
        loop = *grown;
        counter = loop.getRegionIterArgs().back();
      }
      b.setInsertionPointToStart(loop.getBody());
      Value stages =
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(slots));
      index = arith::RemUIOp::create(b, loc, counter, stages);
    }
    for (auto [alloc, ringType] : chosen) {
      b.setInsertionPoint(loop);
      Value buffer = SmemAllocOp::create(b, alloc.getLoc(),
                                         ringType ? ringType : alloc.getType());
      b.setInsertionPoint(alloc);
      if (ringType) {
        buffer = SmemSlotOp::create(b, alloc.getLoc(), alloc.getType(), buffer,
                                    index);
        ++ringed;
      }
      LocalStoreOp::create(b, alloc.getLoc(), alloc.getSource(), buffer);
      alloc.getResult().replaceAllUsesWith(buffer);
      alloc.erase();
    }
    return success();
  }
};

} // namespace
