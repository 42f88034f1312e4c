//===- ScheduleChoice.cpp - Schedule options from a kernel's structure ----===//
//
// With no options given, `tilec --arch=sm_90a` should compile the fast
// path. What the structure of a kernel's tile IR decides, before layouts:
//
//   - a loop streams mma operands when a tile.mma in its body reads (through
//     reshapes, permutes and casts) a tile.load of the same body: it is a
//     pipeline's consumer, and a producer warp can feed it;
//   - wgmma gives each warpgroup 64 rows of a multiply: the warps are one
//     warpgroup per 64 rows of the streaming loops' multiplies, at most two
//     (the registers of two consumer warpgroups at 240 each fill the file);
//     multiplies of other row counts keep the defaults;
//   - the rings must fit shared memory: when the loads' latency hints
//     would not, every pipelined copy gets the most stages that do;
//   - tile-warp-specialize takes the rings of one loop: with one streaming
//     loop and two consumer warpgroups it is on (with one, two blocks share
//     a multiprocessor and a consumer thread starts with 128 registers, too
//     few for wide accumulators). A branch of that loop on its induction
//     variable (a causal mask) is split off after specialization
//     (tile-loop-split runs once the schedule is in place), so the two
//     choices do not interact.
//
// Nothing here names a kernel: any kernel whose IR fits gets the choice.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The load `v` is read from, through ops that only reshape or convert it.
mlir::tile::LoadOp sourceLoad(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto load = dyn_cast<mlir::tile::LoadOp>(def))
      return load;
    if (!isa<mlir::tile::ReshapeOp, mlir::tile::PermuteOp, arith::ExtFOp,
             arith::TruncFOp>(def))
      return {};
    v = def->getOperand(0);
  }
  return {};
}

/// Bytes of a tile.
int64_t tileBytes(RankedTensorType type) {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The stages every pipelined copy may have so that the multiplies'
/// operands fit `budget` bytes of shared memory: the largest S up to the
/// loads' own latency hints with (streamed bytes) * S + (the others') in
/// budget; nullopt when the hints fit as they are.
std::optional<unsigned> stagesThatFit(func::FuncOp func, int64_t budget) {
  int64_t hinted = 0, streamedBytes = 0, fixed = 0;
  unsigned deepest = 1;
  func.walk([&](mlir::tile::MmaOp mma) {
    auto loop = dyn_cast<scf::ForOp>(mma->getParentOp());
    for (Value operand : {mma.getA(), mma.getB()}) {
      mlir::tile::LoadOp load = sourceLoad(operand);
      if (!load)
        continue;
      int64_t bytes = tileBytes(load.getType());
      if (loop && load->getParentOp() == loop.getOperation()) {
        // tile-pipeline: the hint's stages, 2 without one.
        unsigned stages = load.getLatency() ? *load.getLatency() : 2;
        hinted += bytes * stages;
        streamedBytes += bytes;
        deepest = std::max(deepest, stages);
      } else {
        fixed += bytes;
      }
    }
  });
  if (!streamedBytes || hinted + fixed <= budget)
    return std::nullopt;
  for (unsigned s = deepest; s >= 2; --s)
    if (streamedBytes * s + fixed <= budget)
      return s;
  return 1u;
}

} // namespace

::tile::Options tilec::chooseSchedule(func::FuncOp func,
                                      const std::string &arch,
                                      std::optional<unsigned> numWarps,
                                      std::optional<unsigned> numStages) {
  ::tile::Options choice;
  if (arch != "sm_90a" || !func || func.isExternal())
    return choice;
  llvm::SetVector<scf::ForOp> streaming;
  int64_t rows = 0;
  bool allMultiplesOf128 = true;
  func.walk([&](mlir::tile::MmaOp mma) {
    auto loop = dyn_cast<scf::ForOp>(mma->getParentOp());
    if (!loop)
      return;
    bool streams = false;
    for (Value operand : {mma.getA(), mma.getB()})
      if (mlir::tile::LoadOp load = sourceLoad(operand))
        streams |= load->getParentOp() == loop.getOperation();
    if (!streams)
      return;
    streaming.insert(loop);
    int64_t m = mma.getType().getDimSize(0);
    rows = rows ? std::min(rows, m) : m;
    allMultiplesOf128 &= m % 128 == 0;
  });
  if (streaming.empty())
    return choice;
  if (rows % 64)
    return choice; // not wgmma's rows: the defaults
  if (!numWarps)
    choice.numWarps = allMultiplesOf128 ? 8u : 4u;
  // Rings that fit: the latency hints' stages, fewer where they would not
  // (a 64 KiB Q tile beside K and V rings of 32 KiB slots at D = 256),
  // with a sixteenth of the budget left for the epilogue's staging and
  // barriers.
  if (!numStages)
    if (auto stages = stagesThatFit(
            func,
            mlir::tile::TargetLimits::get(arch)->sharedBytesPerBlock * 15 / 16))
      choice.numStages = *stages;
  unsigned warps = numWarps ? *numWarps : *choice.numWarps;
  // A producer with two consumer warpgroups: one block per multiprocessor,
  // the consumers at 240 registers. With one, two blocks fit and a thread
  // starts with 128, which an accumulator of 64 x 256 f32 alone fills.
  if (streaming.size() != 1 || warps != 8 || !allMultiplesOf128)
    return choice;
  choice.warpSpecialize = true;
  return choice;
}
