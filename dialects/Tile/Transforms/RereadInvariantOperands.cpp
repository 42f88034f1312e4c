//===- RereadInvariantOperands.cpp - Held mma operands read in the loop ---===//
//
// tile-slice-mma-k reads the slices of a loop-invariant mma.sync operand
// (attention's Q tile) once, before the loop, and a thread holds them in
// registers through every trip. Where the loop's own tiles leave a thread
// too few registers for that -- the tiles live before its multiplies and
// what ptxas holds around them (kRegistersAroundMma) exceed the registers
// a thread of the block has -- the slices are read in the loop instead,
// each right before its multiply, from the buffer that then stays
// allocated through the loop: an ldmatrix per slice and trip, where a
// held Q made ptxas spill (attention at 128 x 128 on 8 warps, sm_80:
// 112-116 bytes a thread).
//
// Runs once the loop's rings are in place, so that the buffer's bytes are
// weighed against what the loop already keeps in shared memory: a buffer
// that would not fit, or would leave fewer blocks a multiprocessor, keeps
// its slices in registers.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREREADINVARIANTOPERANDS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct RereadInvariantOperandsPass
    : public mlir::tile::impl::TileRereadInvariantOperandsBase<
          RereadInvariantOperandsPass> {
  using TileRereadInvariantOperandsBase::TileRereadInvariantOperandsBase;

  void runOnOperation() override {
    std::optional<TargetLimits> found = TargetLimits::get(arch);
    if (!found) {
      getOperation().emitError() << "tile-reread-invariant-operands: unknown "
                                    "target '"
                                 << arch << "'";
      return signalPassFailure();
    }
    limits = *found;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      reread(loop);
  }

  TargetLimits limits{};

  /// The most registers of tiles a thread of `loop` holds before one of its
  /// mma.sync multiplies (an estimate: tiles only); 0 without one.
  static int64_t peakBeforeMultiplies(scf::ForOp loop) {
    int64_t peak = 0;
    loop.getBody()->walk([&](MmaOp mma) {
      Operation *at = loop.getBody()->findAncestorOpInBlock(*mma);
      peak = std::max(peak, liveTileRegistersBefore(at));
    });
    return peak;
  }

  /// The reads before `loop`, in its block, whose every use is a multiply
  /// in it, of buffers nothing but reads touches from the read to the
  /// loop's end: no write, copy or barrier on the buffer, or on any slot of
  /// its ring, in between or in the loop (a ring slot refilled for the
  /// next tile there would be read refilled). None in a warp-specialized
  /// region, whose producer refills slots the consumers release.
  static SmallVector<LocalLoadOp> heldReads(scf::ForOp loop) {
    SmallVector<LocalLoadOp> held;
    if (loop->getParentOfType<WarpSpecializeOp>())
      return held;
    Block *block = loop->getBlock();
    for (Operation &op : *block) {
      if (&op == loop.getOperation())
        break;
      auto read = dyn_cast<LocalLoadOp>(op);
      if (!read || read->use_empty() ||
          !llvm::all_of(read->getUsers(), [&](Operation *user) {
            return isa<MmaOp>(user) && loop->isAncestor(user);
          }))
        continue;
      Operation *alloc = getAllocation(read.getBuffer());
      Value buffer = alloc ? alloc->getResult(0) : Value(read.getBuffer());
      if (llvm::any_of(getBufferUsers(buffer), [&](Operation *user) {
            // Reads, and views (a slot, a permutation) that move nothing.
            if (isa<LocalLoadOp, SmemSlotOp, SmemPermuteOp, SmemViewOp>(user))
              return false;
            Operation *at = block->findAncestorOpInBlock(*user);
            return at && read->isBeforeInBlock(at) &&
                   (at == loop.getOperation() || at->isBeforeInBlock(loop));
          }))
        continue;
      held.push_back(read);
    }
    return held;
  }

  void reread(scf::ForOp loop) {
    SmallVector<LocalLoadOp> held = heldReads(loop);
    if (held.empty())
      return;
    auto func = loop->getParentOfType<FunctionOpInterface>();
    auto warps =
        func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
    int64_t threads = (warps ? warps.getInt() : 4) * 32;
    int64_t perThread = limits.registersPerThreadAt(1, threads);
    int64_t needed = peakBeforeMultiplies(loop) + kRegistersAroundMma;
    if (needed <= perThread)
      return;
    // The buffers that would stay allocated through the loop (those not
    // already used in or after it).
    auto inOrAfter = [&](Operation *user) {
      Operation *at = loop->getBlock()->findAncestorOpInBlock(*user);
      return at && (at == loop.getOperation() || loop->isBeforeInBlock(at));
    };
    int64_t before = sharedBytesLiveIn(loop), more = 0;
    llvm::SmallPtrSet<Operation *, 4> added;
    for (LocalLoadOp read : held) {
      Operation *alloc = getAllocation(read.getBuffer());
      if (!alloc || !added.insert(alloc).second ||
          llvm::any_of(getBufferUsers(alloc->getResult(0)), inOrAfter))
        continue;
      more += llvm::alignTo(getAllocationBytes(alloc), 128);
    }
    int64_t budget =
        sharedMemoryBytes > 0 ? sharedMemoryBytes : limits.sharedBytesPerBlock;
    if (before + more > budget)
      return;
    // Blocks a multiprocessor: by registers (every thread at its most),
    // then by shared memory before and after.
    int64_t byRegisters = std::max<int64_t>(
        1, limits.registersPerMultiprocessor / (threads * perThread));
    if (std::min(byRegisters, limits.blocksByShared(before + more)) <
        std::min(byRegisters, limits.blocksByShared(before)))
      return;
    for (LocalLoadOp read : held) {
      for (OpOperand &use : llvm::make_early_inc_range(read->getUses())) {
        OpBuilder b(use.getOwner());
        use.set(b.clone(*read)->getResult(0));
      }
      read.erase();
    }
  }
};

} // namespace
