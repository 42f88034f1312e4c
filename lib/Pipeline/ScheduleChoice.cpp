//===- ScheduleChoice.cpp - Schedule options from a kernel's structure ----===//
//
// With no options given, `tilec --arch=sm_90a` should compile the fast
// path. What the structure of a kernel's tile IR decides, before layouts:
//
//   - a kernel with multiplies but no loop streaming their operands (a
//     product whose K is one tile) gets the warps that hold their f32
//     results, as mma.sync's choice below counts them, on every target;
//   - a loop streams mma operands when a tile.mma in its body reads (through
//     reshapes, permutes and casts) a tile.load of the same body: it is a
//     pipeline's consumer, and a producer warp can feed it;
//   - wgmma gives each warpgroup 64 rows of a multiply: the warps are one
//     warpgroup per 64 rows of the streaming loops' multiplies, at most two
//     (the registers of two consumer warpgroups at 240 each fill the file);
//     multiplies of other row counts keep the defaults;
//   - the rings must fit shared memory: when the loads' latency hints
//     would not, every pipelined copy gets the most stages that do (a
//     16-bit wgmma operand's stage counted at what its tile reaches, as
//     tile-allocate-shared-memory sizes it: operandTileBytes);
//   - without a producer warp, the blocks sharing a multiprocessor hide each
//     other's latency: rings deeper than two stages that would cost a
//     block per multiprocessor (in shared memory) get the most stages that
//     do not, unless registers limit the blocks anyway (estimated from the
//     largest streaming loop's f32 multiply results per thread); loads
//     with no latency hint get the most stages, up to 4, that keep the
//     blocks two-stage rings would have (loops in sequence counted one at
//     a time: their rings do not live at once);
//   - with a producer warp (below), one block per multiprocessor: loads
//     with no latency hint get the most stages, up to 4, that fit (two in
//     a loop of more than two multiplies);
//   - a loaded tile that several multiplies read is counted once (it has
//     one buffer);
//   - a loop of one accumulator chain whose multiplies read only operands
//     the loop streams (a GEMM's main loop: no operand loaded once per
//     block) gets no producer warp unless the caller makes it persistent or
//     launches it in clusters: 8 warps that issue their own copies, on
//     rings that keep two blocks a multiprocessor where registers allow
//     (128 x 128 tiles: 3 stages), ran 1.05-1.43x the specialized kernel on
//     an H200 (bf16 128 x 128 x 64 and 128 x 256 x 64, 8-bit 128 x 128 x
//     128; 4096^3, 8192 x 8192 x 1024, 2048 x 2048 x 8192, 3000 x 5000 x
//     1000; bench/results/2026-12-02-h200-register-a.md);
//   - tile-warp-specialize takes the rings of one loop: with one streaming
//     loop and two consumer warpgroups (one group of two, or two groups of
//     one under consumer_groups=2) it is on (with one, two blocks share
//     a multiprocessor and a consumer thread starts with 128 registers, too
//     few for wide accumulators), when the loop's multiplies have together
//     at least 128 bytes of K per stage (four wgmma K steps): with less, the
//     consumers wait on the producer's handshake more than they multiply
//     (gemm.tile's 128 x 128 x 32 tiles: 0.39 of cuBLAS specialized, 0.73
//     not, on an H200; bench/results/2026-11-28-h200-occupancy-stages.md;
//     8-bit attention at D = 64, 64 + 128 bytes, specialized and persistent
//     1.13-1.24x the eight warps without a producer,
//     bench/results/2026-12-01-h200-fp8-tiles.md),
//     and when the loop's f32 multiply results (accumulators and scores)
//     leave a consumer thread's 240 registers room for its operands: 192
//     a thread (the attention backward's dK/dV loop at D = 128, 128 keys:
//     specialized, 1.11x the eight warps without a producer,
//     bench/results/2026-11-29-h200-backward-unrotated.md); in a rotated
//     loop the results and twice the A operands the loop makes in
//     registers (the one carried across the back edge while the next is
//     made) within 224 (the same backward loop rotated, 192 + 2 x 32, ran
//     1.04x unspecialized and spilled less,
//     bench/results/2026-11-29-h200-backward.md; 8-bit attention at
//     D = 256 with 128 x 128 tiles, 192 + 2 x 16, specialized, no spills,
//     1.20-1.29x unspecialized, bench/results/2026-12-01-h200-fp8-tiles.md);
//   - multiplies are counted by accumulator chain: one accumulating into
//     another's result in the same trip (scores in two parts, MLA's latent
//     and rotary dimensions: kernels/attention_rope.tile) continues that
//     chain and holds its registers, so it counts once below (rotated,
//     specialized and persistent, that kernel ran 1.20-1.29x the schedule
//     it got as three multiplies; bench/results/2026-12-01-h200-two-part-
//     scores.md);
//   - a loop of more than two multiplies is not rotated (tile-rotate-wgmma):
//     its other multiplies overlap its elementwise work already, and the
//     rotated multiply's register operand, carried across the back edge,
//     costs registers (measured below, at kMaxRotatedMultiplies). A
//     branch of that loop on its induction variable (a causal mask) is split
//     off after specialization (tile-loop-split runs once the schedule is in
//     place), so the two choices do not interact;
//   - a specialized kernel whose multiplies read an operand loaded once per
//     block (attention's Q), in a loop of at most two multiplies, is
//     persistent, its producer loading the next tile's while the consumers
//     finish this one (choosePersistence);
//   - a persistent kernel's blocks claim their tiles from a counter
//     (tile-dynamic-schedule) only where the tiles' work may differ: a
//     loop whose bounds, or a branch around a loop whose condition, depends
//     on the block's index (a causal mask's key range, a sequence's length
//     read at its index). Where every tile runs the same loops (a GEMM, a
//     non-causal attention) each block takes every P-th tile, as even as
//     claims and without their round trips (3000 x 5000 x 1000 f16 in
//     256 x 152 pairs: 0.959 of cuBLAS static, 0.922 claimed; H200,
//     bench/results/2026-12-04-h200-static-tiles.md).
//
// On the other targets (mma.sync) the choice is the warps that hold a
// loop's multiply results without spilling (mmaSyncWarps) and rings that
// fit shared memory.
//
// A kernel without multiplies (a row kernel: norms, softmaxes, their
// backward passes) gets, on every target, the warps whose threads hold the
// tiles it keeps live at once within kTileWordsPerThread registers
// (tileWarps): on the default 4 warps a user's layer-norm backward over
// rows of 8192 spilled 5 KB a thread (1057 us on an H200; on 16 warps, the
// choice, 127 registers, 88 us); at 4096 columns it stays within 4 warps'
// 253 registers but the choice's 8 ran 132 us to their 136.
//
// Nothing here names a kernel: any kernel whose IR fits gets the choice.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
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

/// Bytes of a tile in shared memory (held padded to powers of two).
int64_t tileBytes(RankedTensorType type) {
  int64_t elements = 1;
  for (int64_t d : mlir::tile::paddedShape(type.getShape()))
    elements *= d;
  return elements * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Bytes a stage of `load`'s ring takes when it is a 16-bit wgmma operand
/// (sm_90a): tile-allocate-shared-memory gives such a slot only what its
/// tile reaches (TMA fills and wgmma reads stay within the tile:
/// getTileExtentBytes of getCompactType), for the swizzled layout
/// tile-stage-mma-operands gives its buffer (getHopperSharedLayout, fastest
/// along the tensor's contiguous dimension; an N-major B's swizzle blocks
/// dividing the columns each warpgroup along N reads, which the choice cannot
/// know before layouts: the most over one, two and four warpgroups; an A's
/// rows kept in 64-row multiples, as wgmma reads them). Padded storage
/// otherwise.
int64_t operandTileBytes(mlir::tile::LoadOp load, Value operand, bool isB,
                         bool wgmma) {
  RankedTensorType loaded = load.getType();
  // The operand is the load's tile without its unit dimensions (a (1, 1,
  // N, D) load reshaped to (N, D)), contiguous along the tile dimension the
  // load's order maps to the tensor's last.
  SmallVector<unsigned> dims = mlir::tile::nonUnitDims(loaded.getShape());
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t last = loaded.getRank() - 1;
  std::optional<ArrayRef<int32_t>> loadOrder = load.getOrder();
  std::optional<unsigned> contiguous;
  for (unsigned i = 0; i < dims.size(); ++i)
    if ((loadOrder ? int64_t((*loadOrder)[dims[i]]) : int64_t(dims[i])) == last)
      contiguous = i;
  if (!wgmma || dims.size() != 2 || !contiguous ||
      loaded.getElementTypeBitWidth() != 16 || type.getRank() != 2 ||
      type.getDimSize(0) != loaded.getDimSize(dims[0]) ||
      type.getDimSize(1) != loaded.getDimSize(dims[1]))
    return tileBytes(loaded);
  SmallVector<unsigned> order = {*contiguous, 1 - *contiguous};
  int64_t bytes = 0;
  SmallVector<int64_t> splits = {0};
  if (isB && *contiguous == 1)
    splits.append({type.getDimSize(1) / 2, type.getDimSize(1) / 4});
  for (int64_t parts : splits) {
    mlir::tile::SharedLayoutAttr layout =
        mlir::tile::getHopperSharedLayout(type, order, /*exact=*/false, parts);
    if (!layout)
      return tileBytes(type);
    bytes = std::max(bytes,
                     mlir::tile::getTileExtentBytes(mlir::tile::getCompactType(
                         mlir::tile::SharedMemoryType::get(
                             type.getContext(), type.getShape(),
                             type.getElementType(), layout),
                         /*wgmmaA=*/!isB)));
  }
  return std::min(bytes, tileBytes(type));
}

/// The multiplies' operand bytes in shared memory: streamed through rings
/// (`hinted` at the loads' latency hints, `streamed` per stage) or held
/// (`fixed`), the deepest hinted ring, and whether no streamed load has a
/// hint. The rings of loops in sequence do not live at once
/// (tile-allocate-shared-memory reuses their memory): the streamed bytes
/// are the largest loop's.
struct OperandBytes {
  int64_t hinted = 0, streamed = 0, fixed = 0;
  unsigned deepest = 1;
  bool unhinted = true;
};

/// The load whose ring feeds `operand`: sourceLoad's, or through
/// element-wise ops whose other operands are uniform or broadcast rows and
/// columns (mlir::tile::chainOperand: an A operand scaled or rounded in
/// every trip, read from its ring slot in the operand layout:
/// tile-stage-converted-loads).
mlir::tile::LoadOp ringLoad(Value operand) {
  while (Operation *def = operand.getDefiningOp()) {
    if (mlir::tile::LoadOp load = sourceLoad(operand))
      return load;
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1)
      return {};
    Value next = mlir::tile::chainOperand(def);
    if (!next)
      return {};
    operand = next;
  }
  return {};
}

OperandBytes operandBytes(func::FuncOp func, bool wgmma) {
  OperandBytes r;
  llvm::MapVector<Operation *, std::pair<int64_t, int64_t>> perLoop;
  // A tile read by several multiplies (attention backward's Q and dO, as
  // they are and transposed) has one buffer (tile-stage-mma-operands).
  llvm::DenseSet<Operation *> counted;
  func.walk([&](mlir::tile::MmaOp mma) {
    auto loop = dyn_cast<scf::ForOp>(mma->getParentOp());
    for (Value operand : {mma.getA(), mma.getB()}) {
      mlir::tile::LoadOp load = ringLoad(operand);
      if (!load || !counted.insert(load).second)
        continue;
      int64_t bytes =
          operandTileBytes(load, operand, operand == mma.getB(), wgmma);
      if (loop && load->getParentOp() == loop.getOperation()) {
        // tile-pipeline: the hint's stages, 2 without one.
        unsigned stages = load.getLatency() ? *load.getLatency() : 2;
        auto &[hinted, streamed] = perLoop[loop];
        hinted += bytes * stages;
        streamed += bytes;
        r.deepest = std::max(r.deepest, stages);
        r.unhinted &= !load.getLatency();
      } else {
        r.fixed += bytes;
      }
    }
  });
  for (auto &[loop, bytes] : perLoop) {
    r.hinted = std::max(r.hinted, bytes.first);
    r.streamed = std::max(r.streamed, bytes.second);
  }
  return r;
}

/// The stages every pipelined copy may have so that the multiplies'
/// operands fit `budget` bytes of shared memory: the largest S up to the
/// loads' own latency hints with (streamed bytes) * S + (the others') in
/// budget; nullopt when the hints fit as they are.
std::optional<unsigned> stagesThatFit(const OperandBytes &ops, int64_t budget) {
  if (!ops.streamed || ops.hinted + ops.fixed <= budget)
    return std::nullopt;
  for (unsigned s = ops.deepest; s >= 2; --s)
    if (ops.streamed * s + ops.fixed <= budget)
      return s;
  return 1u;
}

/// The deepest rings the choice gives loads without latency hints.
constexpr unsigned kMaxUnhintedStages = 4;

/// The most f32 multiply results a specialized consumer thread holds: of
/// its 240 registers, the rest go to operands, masks and addresses. Where
/// tile-rotate-wgmma carries a multiply's register operand across the back
/// edge, the results and twice the loop's register A operands (the carried
/// one, the next one and the f32 work making it) within the second.
constexpr int64_t kSpecializedResultRegisters = 192;
constexpr int64_t kSpecializedRotatedRegisters = 224;

/// The most registers (as counted for kSpecializedRotatedRegisters) a
/// persistent consumer thread's loop may take: the tile loop's own state
/// lives across it. 16-bit attention at D = 256 (128 x 64 tiles, 160 + 2 x
/// 16) and D = 128 (128 x 128, 128 + 2 x 32) runs persistent (0.98-1.13 of
/// cuDNN, bench/results/2026-11-28-h200-occupancy-stages.md); 8-bit
/// attention at D = 256 with 128 x 128 tiles (192 + 2 x 16) persistent had
/// its wgmma serialized by ptxas (C7512) and ran 0.79x the same kernel not
/// persistent (bench/results/2026-12-01-h200-fp8-tiles.md).
constexpr int64_t kPersistentConsumerRegisters = 192;

/// Loops of more than this many multiplies are not rotated (their other
/// multiplies already run under the elementwise work between two of them)
/// and, specialized, keep two-stage rings.
constexpr unsigned kMaxRotatedMultiplies = 2;

/// Blocks of `warps` per multiprocessor by registers, a thread's estimated
/// as 32 plus the f32 results of the largest streaming loop's multiplies
/// (accumulators and scores) per thread.
int64_t blocksByRegisters(int64_t accumulatorElements, unsigned warps,
                          const mlir::tile::TargetLimits &limits) {
  int64_t threads = int64_t(warps) * 32;
  int64_t registers = std::min<int64_t>(limits.registersPerThread,
                                        32 + accumulatorElements /
                                                 std::max<int64_t>(1, threads));
  return limits.registersPerMultiprocessor /
         (threads * std::max<int64_t>(1, registers));
}

/// Without a producer warp: the stages that keep as many blocks on a
/// multiprocessor as two-stage rings would, where shared memory, not
/// registers (blocksByRegisters), is what limits them: fewer than the
/// hints' deepest, or, for loads with no hint (two stages by default), the
/// most up to kMaxUnhintedStages (blocks sharing a multiprocessor hide each
/// other's latency; deeper rings hide it within a block: two loops of
/// 4096^3 f16 multiplies at 3 stages ran 1.29x their 2-stage speed, H200,
/// bench/results/2026-11-28-h200-tma-reduce.md); nullopt to keep the
/// hints.
std::optional<unsigned>
stagesForOccupancy(const OperandBytes &ops, int64_t accumulatorElements,
                   unsigned warps, const mlir::tile::TargetLimits &limits) {
  if (!ops.streamed || (ops.deepest <= 2 && !ops.unhinted))
    return std::nullopt;
  auto blocksWith = [&](int64_t bytes) { return limits.blocksByShared(bytes); };
  int64_t target =
      std::min(blocksWith(ops.streamed * 2 + ops.fixed),
               blocksByRegisters(accumulatorElements, warps, limits));
  if (ops.unhinted) {
    for (unsigned s = kMaxUnhintedStages; s > 2; --s)
      if (blocksWith(ops.streamed * s + ops.fixed) >= target)
        return s;
    return std::nullopt;
  }
  if (blocksWith(ops.hinted + ops.fixed) >= target)
    return std::nullopt;
  for (unsigned s = ops.deepest - 1; s >= 2; --s)
    if (blocksWith(ops.streamed * s + ops.fixed) >= target)
      return s;
  return 2u;
}

/// Blocks per multiprocessor of a kernel without a producer warp: by
/// registers and by its rings at `stages` (0: the hints' own, two stages
/// for loads with none).
int64_t blocksPerMultiprocessor(const OperandBytes &ops,
                                int64_t accumulatorElements, unsigned warps,
                                unsigned stages,
                                const mlir::tile::TargetLimits &limits) {
  int64_t rings = stages         ? ops.streamed * stages + ops.fixed
                  : ops.unhinted ? ops.streamed * 2 + ops.fixed
                                 : ops.hinted + ops.fixed;
  return std::min(blocksByRegisters(accumulatorElements, warps, limits),
                  limits.blocksByShared(rings));
}

/// A specialized kernel runs one block per multiprocessor: between two
/// blocks, nothing hides the next block's first copies and the last one's
/// epilogue. Where its multiplies read an operand loaded once per block
/// (`ops.fixed`: attention's Q), the first trip of every block waits for it.
/// Persistent, the producer loads the next tile's while the consumers
/// finish this one: the tile's own copies take one slot, refilled for the
/// next tile right after their last read (so the rings keep the stages
/// chosen for them), and the accumulator's rescaling stays at its trip's
/// end. On an H200 this schedule matched the attention API's tuned pick of
/// flash_attention.tile at every point of FlashAttention-3's setting at D =
/// 128 and 256 (0.98-1.13 of cuDNN), where the specialized kernel alone
/// ran 0.84-1.12 (bench/results/2026-11-28-h200-occupancy-stages.md). A
/// loop streaming all its operands (a GEMM) is left as it is: there
/// persistence measured 1.25x at K = 128 and 0.96x at K = 4096
/// (bench/results/2026-11-29-h200-gemm-schedules.md), which the tuner sees
/// and a compile-time choice does not. Nor a loop of more than two
/// multiplies: the attention backward's kernels (dK/dV: four, dQ: three)
/// compiled so hung on an H200 (a loop ring shared a producer warp with a
/// ring filled a tile ahead; tile-warp-specialize no longer pairs them,
/// which has not been run on a GPU yet: bench/results/2026-11-29-h200-
/// persistent-choice.md). Nor where the loop's registers leave the tile
/// loop's state no room (kPersistentConsumerRegisters), nor where its rings
/// were given two stages that fill shared memory (`ringsFillShared`: none
/// left for what lives across the tile loop). What the caller or the hints
/// gave stays.
void choosePersistence(const OperandBytes &ops, unsigned multiplies,
                       int64_t consumerRegisters, bool ringsFillShared,
                       const ::tile::Options &given, ::tile::Options &choice) {
  if (given.persistent || !ops.fixed || multiplies > 2 ||
      consumerRegisters > kPersistentConsumerRegisters || ringsFillShared)
    return;
  choice.persistent = true;
  if (!given.tileStages)
    choice.tileStages = 1u;
  if (!given.tileRefillAfterRead && given.tileStages.value_or(1) == 1)
    choice.tileRefillAfterRead = true;
  if (!given.rescaleInTrip)
    choice.rescaleInTrip = true;
}

/// mma.sync (every target but sm_90a) keeps a warp's multiply results in
/// its threads' registers from one multiply to the elementwise work after
/// it. The f32 results of a loop's multiplies per thread, those started
/// from zeros in each trip (attention's scores) counted twice (the result
/// and what the elementwise work makes of it live together), fit
/// ptxas's 255 registers up to about this many, beside the operands'
/// fragments and addresses: sm_80, attention backward's dK/dV kernel
/// (64 x 64 tiles: dK and dV carried, S and dP from zeros) at D = 64 on 4
/// warps, 192, spills 24 bytes; its dQ kernel at D = 64, 160, spills 4 and
/// at D = 96, 176, none (255 registers); a GEMM's 128 x 128 accumulator on
/// 4 warps, 128, none; the dK/dV kernel on 8 warps at D = 128, 128, 254
/// registers and none.
constexpr int64_t kMmaSyncResultRegisters = 144;

/// The warps up to which mma.sync's choice doubles a block for registers,
/// each warp keeping at least a 16 x 16 part of the smallest multiply.
constexpr unsigned kMmaSyncMostWarps = 8;

/// On mma.sync targets: the fewest warps, from the default up to
/// kMmaSyncMostWarps, whose threads hold `weightedResults` within
/// kMmaSyncResultRegisters each; nullopt to keep the default.
std::optional<unsigned> mmaSyncWarps(int64_t weightedResults,
                                     int64_t smallestResult) {
  unsigned warps = ::tile::lookupOption("num_warps")->defaultValue;
  unsigned chosen = warps;
  while (weightedResults > kMmaSyncResultRegisters * chosen * 32 &&
         chosen < kMmaSyncMostWarps &&
         smallestResult >= int64_t(chosen) * 2 * 16 * 16)
    chosen *= 2;
  if (chosen == warps)
    return std::nullopt;
  return chosen;
}

/// 32-bit registers a block holds of a tile value, before layouts: its
/// elements (padded to powers of two, as they are held), 16-bit ones two
/// to a register, 8-bit ones (and masks) four; a splat's, what it repeats.
/// 0 for what is not a tile.
int64_t tileWords(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return 0;
  // A splat (a constant, full(), a broadcast of a smaller tile) holds what
  // it repeats, not its elements.
  if (matchPattern(value, m_Constant()) ||
      value.getDefiningOp<mlir::tile::FullOp>())
    return 0;
  if (auto broadcast = value.getDefiningOp<mlir::tile::BroadcastOp>())
    return tileWords(broadcast->getOperand(0));
  return (tileBytes(tensor) + 3) / 4;
}

/// The most tile registers a block holds at once anywhere in `func`: the
/// values live after an op (its results, and what is held across it; a
/// chain of elementwise ops holds one link at a time): what its threads
/// share between them, besides addresses and scalars.
int64_t peakTileWords(func::FuncOp func) {
  Liveness liveness(func);
  int64_t peak = 0;
  func.walk([&](Block *block) {
    const LivenessBlockInfo *info = liveness.getLiveness(block);
    if (!info)
      return;
    for (Operation &op : *block) {
      int64_t words = 0;
      for (Value v : info->currentlyLiveValues(&op))
        if (!liveness.isDeadAfter(v, &op))
          words += tileWords(v);
      peak = std::max(peak, words);
    }
  });
  return peak;
}

/// Tile registers a thread may hold at once, in a kernel without
/// multiplies, before the compiler's choice gives its block more warps.
/// ptxas took about 1.3 registers a counted one and 15 more (a layer-norm
/// backward's dx kernel: 192 -> 253, 96 -> 127, 48 -> 76; softmax.tile 4 x
/// 8192: 128 -> 205, 64 -> 107): 128 stays clear of spills. More warps than
/// that cost a kernel whose rows are reduced across them (H200, the dx
/// kernel at 4096 columns: 4 warps 136 us, 8 132, 16 203; at 8192: 4 warps
/// spilled, 1057 us, 8 and 16 87; bench/results/
/// 2026-12-06-user-kernels-from-the-docs.md).
constexpr int64_t kTileWordsPerThread = 128;

/// The warps, from the default to 16, the fewest whose threads hold
/// `peakWords` within kTileWordsPerThread each; nullopt to keep the
/// default.
std::optional<unsigned> tileWarps(int64_t peakWords) {
  unsigned warps = ::tile::lookupOption("num_warps")->defaultValue;
  unsigned chosen = warps;
  while (peakWords > kTileWordsPerThread * chosen * 32 && chosen < 16)
    chosen *= 2;
  if (chosen == warps)
    return std::nullopt;
  return chosen;
}

/// Whether `v` depends on the block's position in the grid (its index or
/// its cluster's), through the ops that define it; a block argument other
/// than the function's counts as dependent unless it is a loop's induction
/// variable whose bounds do not depend on it.
bool dependsOnBlock(Value v, llvm::DenseMap<Value, bool> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = true; // (a cycle: dependent)
  bool depends;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner)) {
      depends = false;
    } else if (auto loop = dyn_cast<scf::ForOp>(owner);
               loop && arg == loop.getInductionVar()) {
      depends = dependsOnBlock(loop.getLowerBound(), memo) ||
                dependsOnBlock(loop.getStep(), memo);
    } else {
      depends = true;
    }
  } else {
    Operation *def = v.getDefiningOp();
    depends = isa<mlir::tile::BlockIdOp, mlir::tile::ClusterIdOp,
                  mlir::tile::ClusterRankOp>(def) ||
              def->getNumRegions() ||
              llvm::any_of(def->getOperands(), [&](Value operand) {
                return dependsOnBlock(operand, memo);
              });
  }
  memo[v] = depends;
  return depends;
}

/// Whether every block's tile runs the same loops: no loop's bounds, and no
/// branch's condition around a loop, depend on the block's index, and no
/// while loop.
bool tilesCostAlike(func::FuncOp func) {
  llvm::DenseMap<Value, bool> memo;
  return !func
              .walk([&](Operation *op) {
                if (isa<scf::WhileOp>(op))
                  return WalkResult::interrupt();
                if (auto loop = dyn_cast<scf::ForOp>(op))
                  for (Value bound : {loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep()})
                    if (dependsOnBlock(bound, memo))
                      return WalkResult::interrupt();
                if (auto branch = dyn_cast<scf::IfOp>(op)) {
                  bool loops = branch
                                   ->walk([](Operation *inner) {
                                     return isa<scf::ForOp, scf::WhileOp>(
                                                inner)
                                                ? WalkResult::interrupt()
                                                : WalkResult::advance();
                                   })
                                   .wasInterrupted();
                  if (loops && dependsOnBlock(branch.getCondition(), memo))
                    return WalkResult::interrupt();
                }
                return WalkResult::advance();
              })
              .wasInterrupted();
}

} // namespace

::tile::Options tilec::chooseSchedule(func::FuncOp func,
                                      const std::string &arch,
                                      const ::tile::Options &given) {
  ::tile::Options choice;
  std::optional<unsigned> numWarps = given.numWarps,
                          numStages = given.numStages;
  std::optional<mlir::tile::TargetLimits> target =
      mlir::tile::TargetLimits::get(arch);
  if (!target || !func || func.isExternal())
    return choice;
  // (Read only where the kernel is persistent.)
  if (!given.dynamicSchedule && tilesCostAlike(func))
    choice.dynamicSchedule = false;
  bool wgmma = arch == "sm_90a";
  llvm::SetVector<scf::ForOp> streaming;
  llvm::DenseMap<Operation *, unsigned> multipliesPerLoop;
  llvm::DenseMap<Operation *, int64_t> resultsPerLoop, weightedPerLoop,
      registerOperandBytesPerLoop, kBytesPerLoop;
  int64_t rows = 0, smallestResult = 0;
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
    int64_t elements = mma.getType().getNumElements();
    smallestResult =
        smallestResult ? std::min(smallestResult, elements) : elements;
    // A multiply accumulating into another's result in the same trip
    // continues that one's accumulator chain (scores in two parts, such as
    // MLA's latent and rotary dimensions): the same result registers, and
    // one multiply where rotation and persistence count them.
    auto previous = mma.getAcc().getDefiningOp<mlir::tile::MmaOp>();
    if (!previous || previous->getParentOp() != loop.getOperation()) {
      resultsPerLoop[loop] += elements;
      bool fromZeros = matchPattern(mma.getAcc(), m_AnyZeroFloat());
      weightedPerLoop[loop] += fromZeros ? 2 * elements : elements;
      ++multipliesPerLoop[loop];
    }
    auto a = cast<RankedTensorType>(mma.getA().getType());
    int64_t aBytes = std::max<int64_t>(1, a.getElementTypeBitWidth() / 8);
    kBytesPerLoop[loop] += a.getDimSize(1) * aBytes;
    // An A operand the loop makes (attention's P) is held in registers.
    if (!sourceLoad(mma.getA()))
      registerOperandBytesPerLoop[loop] += a.getNumElements() * aBytes;
    int64_t m = mma.getType().getDimSize(0);
    rows = rows ? std::min(rows, m) : m;
    allMultiplesOf128 &= m % 128 == 0;
  });
  if (streaming.empty()) {
    // Multiplies in no loop that streams their operands (a product whose
    // K is one tile: 128 x 256 x 32): warps for their results' registers
    // alone (on 4 warps that product's 256 f32 a thread were refused).
    if (!numWarps) {
      int64_t weighted = 0, smallest = 0;
      func.walk([&](mlir::tile::MmaOp mma) {
        int64_t elements = mma.getType().getNumElements();
        bool fromZeros = matchPattern(mma.getAcc(), m_AnyZeroFloat());
        weighted = std::max(weighted, fromZeros ? 2 * elements : elements);
        smallest = smallest ? std::min(smallest, elements) : elements;
      });
      if (weighted)
        choice.numWarps = mmaSyncWarps(weighted, smallest);
      else
        choice.numWarps = tileWarps(peakTileWords(func));
    }
    return choice;
  }
  bool longStages = llvm::all_of(
      kBytesPerLoop, [](auto &entry) { return entry.second >= 128; });
  // (Loops in sequence do not hold their results at once.)
  int64_t accumulatorElements = 0;
  for (auto &[loop, elements] : resultsPerLoop)
    accumulatorElements = std::max(accumulatorElements, elements);
  // Under --occupancy, a block has its share of the multiprocessor's shared
  // memory: the rings and the epilogue's staging are sized to it.
  mlir::tile::TargetLimits limits = *target;
  limits.sharedBytesPerBlock =
      limits.sharedBytesPerBlockAt(given.occupancy.value_or(0));
  OperandBytes ops = operandBytes(func, wgmma);
  // Rings that fit: the latency hints' stages, fewer where they would not
  // (a 64 KiB Q tile beside K and V rings of 32 KiB slots at D = 256),
  // within `budget`.
  auto fitRings = [&](int64_t budget) {
    if (!numStages)
      if (auto stages = stagesThatFit(ops, budget))
        choice.numStages = *stages;
  };
  // A sixteenth of the budget left for the epilogue's staging and barriers.
  int64_t sixteenthLeft = limits.sharedBytesPerBlock * 15 / 16;
  if (!wgmma) {
    // mma.sync: warps for the multiplies' registers, and rings that fit.
    int64_t weighted = 0;
    for (auto &[loop, elements] : weightedPerLoop)
      weighted = std::max(weighted, elements);
    if (!numWarps)
      choice.numWarps = mmaSyncWarps(weighted, smallestResult);
    fitRings(sixteenthLeft);
    return choice;
  }
  if (rows % 64)
    return choice; // not wgmma's rows: the defaults
  if (!numWarps)
    choice.numWarps = allMultiplesOf128 ? 8u : 4u;
  fitRings(sixteenthLeft);
  // sm_90a: where that leaves one stage (no copy under the multiplies), two
  // if they fit all of shared memory but the mbarriers' reserve: the
  // epilogue's staging reuses the rings' memory after the loop, and such a
  // kernel is not made persistent (choosePersistence). 16-bit attention at
  // D = 256 with 128 x 80 tiles: 224 KiB at two stages, 0.65x the tuned
  // kernel at one. Where what else the loop keeps then overflows, the
  // compile tries one stage fewer (lib/Target/Compile.cpp).
  bool ringsFillShared =
      !numStages && choice.numStages == 1u &&
      ops.streamed * 2 + ops.fixed <=
          limits.sharedBytesPerBlock - limits.reservedSharedBytesPerBlock;
  if (ringsFillShared)
    choice.numStages = 2u;
  unsigned warps = numWarps ? *numWarps : *choice.numWarps;
  // Rotation (a loop's last multiply issued behind the next trip's first)
  // overlaps a loop's elementwise work with the tensor cores where nothing
  // else would: attention's softmax between Q K^T and P V. In loops of more
  // than two multiplies the others overlap it already, and the rotated
  // multiply's register operand, live across the back edge, costs more
  // than it hides (the attention backward's dK/dV loop of four: 1.04-1.24x
  // faster unrotated at D = 64 and 128; its dQ loop of three: 1.06-1.14x;
  // H200, bench/results/2026-11-29-h200-backward-unrotated.md).
  if (!given.rotateWgmma && llvm::all_of(multipliesPerLoop, [](auto &entry) {
        return entry.second > kMaxRotatedMultiplies;
      }))
    choice.rotateWgmma = false;
  bool rotated = given.rotateWgmma.value_or(choice.rotateWgmma.value_or(true));
  // A producer with two consumer warpgroups: one block per multiprocessor,
  // the consumers at 240 registers. With one, two blocks fit and a thread
  // starts with 128, which an accumulator of 64 x 256 f32 alone fills.
  // A consumer thread's registers for the loops' f32 results and, rotated,
  // twice their register A operands (kSpecializedRotatedRegisters).
  int64_t threads = int64_t(warps) * 32, consumerRegisters = 0;
  for (auto &[loop, elements] : resultsPerLoop)
    consumerRegisters = std::max(
        consumerRegisters,
        (elements +
         (rotated ? 2 * registerOperandBytesPerLoop.lookup(loop) / 4 : 0)) /
            threads);
  bool resultsFit = rotated ? consumerRegisters <= kSpecializedRotatedRegisters
                            : consumerRegisters <= kSpecializedResultRegisters;
  // A loop of one accumulator chain whose operands it streams all (a GEMM's
  // main loop: nothing loaded once per block) runs faster without a
  // producer warp, its blocks overlapping one another's first copies and
  // epilogues. Persistent (as the caller asks, or in a tile loop of the
  // kernel's own), the producer loads the next tile's operands under this
  // one's epilogue, and stays; in clusters, the producers of the cluster's
  // blocks share the multicast copies (tile-multicast-copies), and stay.
  bool streamsEverything =
      ops.fixed == 0 && !given.persistent.value_or(false) &&
      given.cluster.value_or(1) == 1 &&
      !streaming.front()->getParentOfType<scf::ForOp>() &&
      llvm::all_of(multipliesPerLoop,
                   [](auto &entry) { return entry.second == 1; });
  // Two consumer warpgroups fill the register file (one block a
  // multiprocessor): a group of two on rows of 128, or two groups of one
  // that take the tiles in turn, 64 rows or more each (tile-consumer-groups,
  // CUTLASS's ping-pong GEMM: 128 x 128 tiles on one warpgroup each got the
  // two stages of the rule below, which keeps blocks that cannot share a
  // multiprocessor, and ran 0.41-0.49 of the 128 x 256 kernel (bmm 16 x
  // 2048^3, linear 8192 x 4096 x 4096; H100,
  // bench/results/2026-12-07-h100-gemm-tiles-cublas.md).
  bool twoConsumerWarpgroups =
      (warps == 8 && allMultiplesOf128) ||
      (warps == 4 && given.consumerGroups.value_or(1) == 2);
  if (streaming.size() != 1 || !twoConsumerWarpgroups || !longStages ||
      !resultsFit || given.warpSpecialize == false ||
      (streamsEverything && !given.warpSpecialize)) {
    if (!numStages && !choice.numStages)
      if (auto stages =
              stagesForOccupancy(ops, accumulatorElements, warps, limits))
        choice.numStages = *stages;
    // A register A operand made K step by K step where a block has its
    // multiprocessor to itself: nothing else runs while a trip waits for
    // the previous one's multiply before it rewrites A (bf16 128 x 256 x 64
    // tiles, one block: A scaled 1.26-1.39x, cast from f32 1.05-1.08x, an
    // RMSNorm's scales 1.13-1.17x; 128 x 128, two blocks hiding each
    // other's wait: 0.92-1.01x; H200,
    // bench/results/2026-12-02-h200-register-a-steps.md).
    if (!given.sliceRegisterA &&
        blocksPerMultiprocessor(
            ops, accumulatorElements, warps,
            numStages ? *numStages : choice.numStages.value_or(0), limits) == 1)
      choice.sliceRegisterA = true;
    return choice;
  }
  choice.warpSpecialize = true;
  // (One block a multiprocessor, as above.)
  if (!given.sliceRegisterA)
    choice.sliceRegisterA = true;
  // One block per multiprocessor: rings deeper than two stages cost no
  // blocks, and the producer keeps them full. Loads with no latency hint
  // get the most stages, up to kMaxUnhintedStages, that fit (H200, linear
  // 128 x 256 x 64 tiles specialized: 4 stages ran 1.29-1.39x the 2-stage
  // default, bench/results/2026-11-29-h200-gemm-schedules.md), in a loop of
  // at most two multiplies: one of more does more work a stage, and deeper
  // rings only take shared memory (the attention backward's dK/dV loop of
  // four at D = 128: no faster at 4 stages than at 2, and its variant adding
  // dQ by TMA reduce no longer fitted;
  // bench/results/2026-11-29-h200-backward-unrotated.md).
  // A persistent kernel keeps a sixteenth of shared memory for what lives
  // across its tile loop beside the rings (the epilogue's staging where it
  // takes no ring slot); otherwise the epilogue's buffers reuse the rings'
  // memory after the loop, and only the mbarriers are kept back (8-bit
  // attention at D = 256, 128 x 128 tiles: three stages, 224 KiB, ran
  // 1.10x two, bench/results/2026-12-01-h200-fp8-tiles.md).
  unsigned multiplies = multipliesPerLoop[streaming.front()];
  choosePersistence(ops, multiplies, consumerRegisters, ringsFillShared, given,
                    choice);
  int64_t ringBudget =
      given.persistent.value_or(choice.persistent.value_or(false))
          ? limits.sharedBytesPerBlock * 15 / 16
          : limits.sharedBytesPerBlock - limits.reservedSharedBytesPerBlock;
  if (!numStages && !choice.numStages && ops.unhinted &&
      multiplies <= kMaxRotatedMultiplies)
    for (unsigned s = kMaxUnhintedStages; s > 2; --s)
      if (ops.streamed * s + ops.fixed <= ringBudget) {
        choice.numStages = s;
        break;
      }
  return choice;
}
