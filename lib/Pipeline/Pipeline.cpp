//===- Pipeline.cpp - The pass pipelines of tilec -------------------------===//
//
// The whole compiler, front end aside, as pass lists per target. Read
// buildCodegenPipeline top to bottom to see what happens to a kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "Tile/IR/TargetLimits.h"
#include "Tile/Transforms/Passes.h"
#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

std::vector<std::string>
tilec::inapplicableOptions(const CodegenOptions &options) {
  std::vector<std::string> out;
  const tile::Options &given = options.given;
  auto persistentOnly = [&](bool asked, const char *key) {
    if (asked && !options.persistent)
      out.push_back(std::string(key) +
                    " does not apply: it is an option of persistent kernels "
                    "(persistent=on)");
  };
  persistentOnly(given.deferEpilogue.value_or(false), "defer_epilogue");
  persistentOnly(given.deferLastMultiply.value_or(false),
                 "defer_last_multiply");
  persistentOnly(given.tileStages.has_value(), "tile_stages");
  persistentOnly(given.tileRefillAfterRead.value_or(false),
                 "tile_refill_after_read");
  persistentOnly(given.dynamicSchedule.has_value(), "dynamic_schedule");
  persistentOnly(given.consumerGroups.value_or(1) > 1, "consumer_groups");
  if (given.consumerGroups.value_or(1) > 1 && !options.hasWgmma())
    out.push_back("consumer_groups does not apply: it is an option of "
                  "sm_90a's warp-specialized kernels");
  if (given.deferLoopStores.value_or(false) && !options.hasTMA())
    out.push_back("defer_loop_stores does not apply: it is an option of "
                  "sm_90's TMA stores");
  if (given.producerStores.value_or(false) && !options.hasWgmma())
    out.push_back("producer_stores does not apply: it is an option of "
                  "sm_90a's warp-specialized kernels");
  if (given.stageInRingSlots.has_value() && !options.hasTMA())
    out.push_back("stage_in_ring_slots does not apply: it is an option of "
                  "sm_90's TMA stores");
  if (given.storedOperandSlots.value_or(1) > 1 && !options.hasWgmma())
    out.push_back("stored_operand_slots does not apply: it is an option of "
                  "sm_90a's wgmma (mma.sync reads its operands from "
                  "registers)");
  if (given.dependentLaunch.value_or(false) && !options.hasTMA())
    out.push_back("dependent_launch does not apply: it is an option of "
                  "sm_90 (griddepcontrol)");
  if (given.sliceRegisterA.value_or(false) && !options.hasWgmma())
    out.push_back("slice_register_a does not apply: it is an option of "
                  "sm_90a's wgmma (mma.sync's operands are sliced along K "
                  "on every target: tile-slice-mma-k)");
  return out;
}

long tilec::CodegenOptions::sharedMemoryBytes() const {
  std::optional<mlir::tile::TargetLimits> limits =
      mlir::tile::TargetLimits::get(arch);
  return limits ? limits->sharedBytesPerBlockAt(occupancy) : 0;
}

void tilec::buildTileCleanupPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  // A while loop that counts is a for loop for the passes after.
  pm.addNestedPass<mlir::func::FuncOp>(
      mlir::tile::createTileCountedWhileLoops());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildLayoutPipeline(mlir::OpPassManager &pm,
                                const CodegenOptions &options) {
  mlir::OpPassManager &fpm = pm.nest<mlir::func::FuncOp>();
  // Conversions between integers and floats in exact arithmetic where the
  // values' ranges allow (a dequantizing loop's), before layouts are
  // given to the ops they become.
  fpm.addPass(mlir::tile::createTileCheapenConversions());
  // Blocks of a 2-D grid take their tiles in groups along x where its
  // loops load operands by x and by y (L2 shared between resident blocks).
  mlir::tile::TileGroupTileOrderOptions groupOptions;
  groupOptions.group = options.groupTiles;
  groupOptions.warn = options.given.groupTiles.value_or(1) > 1;
  fpm.addPass(mlir::tile::createTileGroupTileOrder(groupOptions));
  // A persistent kernel loops over the blocks of its logical grid; the
  // passes below see that loop around the kernel's body.
  if (options.persistent) {
    mlir::tile::TilePersistentOptions persistentOptions;
    persistentOptions.cluster = options.hasTMA() ? options.cluster : 1;
    fpm.addPass(mlir::tile::createTilePersistent(persistentOptions));
  }
  // A multiply's transposed operand read transposed from memory, so that
  // its copy into shared memory can be pipelined like any other (on sm_90a
  // a transposed B sharing its tile with other multiplies is read from the
  // tile's own buffer instead).
  mlir::tile::TileLoadTransposedOperandsOptions transposedOptions;
  transposedOptions.wgmma = options.hasWgmma();
  fpm.addPass(mlir::tile::createTileLoadTransposedOperands(transposedOptions));
  // Layouts.
  mlir::tile::TileAssignLayoutsOptions layoutOptions;
  layoutOptions.numWarps = options.numWarps;
  layoutOptions.vectorBytes = std::min(16u, options.tensorAlignment);
  // sm_90a multiplies on warpgroups (wgmma) where the tiles allow.
  layoutOptions.wgmma = options.hasWgmma();
  fpm.addPass(mlir::tile::createTileAssignLayouts(layoutOptions));
  fpm.addPass(mlir::createCanonicalizerPass());
  fpm.addPass(mlir::tile::createTileRemoveLayoutConversions());
  // A loop's sums combined across threads once, after the loop.
  fpm.addPass(mlir::tile::createTileDeferLoopReductions());
  fpm.addPass(mlir::createCanonicalizerPass());
  // Conversions of loop-invariant values (the Q tile of attention) leave
  // the loop.
  fpm.addPass(mlir::createLoopInvariantCodeMotionPass());
  fpm.addPass(mlir::createCSEPass());
}

void tilec::buildSchedulePipeline(mlir::OpPassManager &pm,
                                  const CodegenOptions &options) {
  mlir::OpPassManager &fpm = pm.nest<mlir::func::FuncOp>();
  // Operands of the tensor cores: through shared memory. mma.sync (sm_80
  // and later): cp.async into swizzled buffers, sliced along K, ldmatrix.
  // wgmma (sm_90a, version-3 mma layouts): cp.async into the swizzled
  // layouts wgmma's descriptors describe, read in place by tile.wgmma (the
  // slicing leaves it alone).
  fpm.addPass(mlir::tile::createTileStageMmaOperands());
  fpm.addPass(mlir::tile::createTileSliceMmaK());
  // A loop's loads that a layout conversion moves between threads: copied
  // into shared memory like the operands (ring copies once pipelined), read
  // in the converted layout at their use (an mma operand the multiply reads
  // from registers, computed from a loaded tile: read from its ring slot in
  // the operand's layout).
  fpm.addPass(mlir::tile::createTileStageConvertedLoads());
  // sm_90a: such an A made and multiplied K step by K step, so that the
  // next trip rewrites a step's registers once the step is done, not the
  // whole multiply (the compiler's choice: where a block has its
  // multiprocessor to itself).
  if (options.hasWgmma()) {
    mlir::tile::TileSliceWgmmaKOptions sliceOptions;
    sliceOptions.enabled = options.sliceRegisterA;
    sliceOptions.warn = options.given.sliceRegisterA.value_or(false);
    fpm.addPass(mlir::tile::createTileSliceWgmmaK(sliceOptions));
  }
  // A loop's other loads with a latency hint: copied into shared memory
  // too, so that the pipeline below keeps them in flight in rings.
  fpm.addPass(mlir::tile::createTileStageHintedLoads());
  // Copies ahead of their use: multi-stage rings in loops, then straight
  // line code.
  mlir::tile::TilePipelineOptions pipelineOptions;
  pipelineOptions.numStages = options.numStages;
  pipelineOptions.tileStages = options.tileStages;
  pipelineOptions.tileRefillAfterRead = options.tileRefillAfterRead;
  pipelineOptions.warn = options.given.numStages.has_value();
  pipelineOptions.warnTileStages = options.given.tileStages.has_value();
  pipelineOptions.warnRefill =
      options.given.tileRefillAfterRead.value_or(false);
  // A kernel's own loop carries its loop's rings where they fit beside the
  // rest of its body; on sm_90 tile-convert-stores-to-tma fits the stores.
  pipelineOptions.sharedMemoryBytes = options.sharedMemoryBytes();
  pipelineOptions.stagedStores = options.hasTMA();
  fpm.addPass(mlir::tile::createTilePipeline(pipelineOptions));
  // mma.sync: a loop-invariant operand held in registers (Q) read in the
  // loop instead where the loop's tiles leave no registers for it and its
  // buffer fits beside the rings.
  mlir::tile::TileRereadInvariantOperandsOptions rereadOptions;
  rereadOptions.arch = options.arch;
  rereadOptions.sharedMemoryBytes = options.sharedMemoryBytes();
  fpm.addPass(mlir::tile::createTileRereadInvariantOperands(rereadOptions));
  // sm_90: the rings fill by TMA copies completing on mbarriers (where the
  // buffers' layouts are ones TMA writes: wgmma's, on sm_90a), and a tile
  // stored from another layout (an accumulator) goes through a TMA store
  // from shared memory instead of the conversion's round trip and every
  // thread's stores.
  if (options.hasTMA()) {
    fpm.addPass(mlir::tile::createTileConvertCopiesToTMA());
    mlir::tile::TileConvertStoresToTMAOptions storeOptions;
    storeOptions.reuseRingSlots =
        options.persistent && options.stageInRingSlots;
    // (A store whose buffer would not fit is staged in parts, or written
    // from registers.)
    storeOptions.sharedMemoryBytes = options.sharedMemoryBytes();
    fpm.addPass(mlir::tile::createTileConvertStoresToTMA(storeOptions));
  }
  fpm.addPass(mlir::tile::createTileScheduleAsyncCopies());
  // A loop's small loads left in registers (scales, indices) a trip ahead.
  fpm.addPass(mlir::tile::createTilePrefetchLoads());
  fpm.addPass(mlir::createCanonicalizerPass());
  fpm.addPass(mlir::createCSEPass());
  // sm_90a: a loop's last multiply (attention's P V) moves to the next
  // trip, behind its first (Q K^T), so that the work between them overlaps
  // the tensor cores; multiplies stay in flight until their results or
  // buffers are needed.
  if (options.hasWgmma()) {
    // A TMA producer warp fills the rings; the kernel's warps consume
    // them, releasing each slot on an mbarrier where they refilled it.
    // (Also when the kernel's option is off: a loop's schedule may ask.)
    mlir::tile::TileWarpSpecializeOptions wsOptions;
    wsOptions.enabled = options.warpSpecialize;
    // Warnings where the user asked (not where the compiler chose).
    wsOptions.warn = options.given.warpSpecialize.value_or(false);
    // A loop's staged TMA store issued by a producer warp, where asked.
    wsOptions.producerStores = options.producerStores;
    wsOptions.warnStores = options.given.producerStores.value_or(false);
    // (A producer running a loop around its loops, a persistent kernel's
    // tile loop among them, keeps 32 registers: the pass's own rule.)
    fpm.addPass(mlir::tile::createTileWarpSpecialize(wsOptions));
    mlir::tile::TileRotateWgmmaOptions rotateOptions;
    rotateOptions.enabled = options.rotateWgmma;
    // With rescaleInTrip, the accumulator's rescaling stays at its
    // trip's end rather than between the next trip's V wait and P V
    // (bench/results/2026-11-28-architecture-notes.md 7.5.2).
    rotateOptions.rescaleInTrip = options.rescaleInTrip;
    rotateOptions.warn = options.given.rotateWgmma.value_or(false);
    fpm.addPass(mlir::tile::createTileRotateWgmma(rotateOptions));
    fpm.addPass(mlir::createCanonicalizerPass());
    // A persistent kernel's ring of one slot, refilled for the next tile
    // after the tile's last read of it: the refill (or its release) back
    // up to that read, ahead of the last trip's P V.
    if (options.persistent && options.tileRefillAfterRead)
      fpm.addPass(mlir::tile::createTileHoistRefills());
    // A multiply operand a loop stores in each trip (a B computed in
    // registers): a ring of buffers the trips take in turn, so that the
    // store of one trip runs under the previous trip's multiply.
    mlir::tile::TileRingStoredOperandsOptions ringOptions;
    ringOptions.slots = options.storedOperandSlots;
    ringOptions.sharedMemoryBytes = options.sharedMemoryBytes();
    ringOptions.warn = options.given.storedOperandSlots.value_or(1) > 1;
    fpm.addPass(mlir::tile::createTileRingStoredOperands(ringOptions));
    fpm.addPass(mlir::tile::createTileAsyncWgmma());
    // A persistent kernel's epilogue (the last multiply's completion and
    // the output's store) runs under the next tile's first multiply.
    // With defer_last_multiply, the last multiply too (attention's last
    // P V issued before the next tile's Q K^T).
    if (options.persistent &&
        (options.deferEpilogue || options.deferLastMultiply)) {
      mlir::tile::TileDeferEpilogueOptions defer;
      defer.epilogue = options.deferEpilogue;
      defer.multiply = options.deferLastMultiply;
      defer.warn = options.given.deferEpilogue.value_or(false);
      defer.warnMultiply = options.given.deferLastMultiply.value_or(false);
      fpm.addPass(mlir::tile::createTileDeferEpilogue(defer));
    }
    // A persistent specialized kernel's consumer warps in groups that
    // take its tiles in turn: one group's epilogue runs under another's
    // main loop.
    if (options.persistent && options.consumerGroups > 1) {
      mlir::tile::TileConsumerGroupsOptions groups;
      groups.groups = options.consumerGroups;
      groups.warn = options.given.consumerGroups.value_or(1) > 1;
      fpm.addPass(mlir::tile::createTileConsumerGroups(groups));
    }
  }
  // sm_90: a persistent kernel's blocks claim their tiles as they go, the
  // hardware's dispatch order without its fixed share per block.
  if (options.persistent && options.dynamicSchedule && options.hasTMA())
    fpm.addPass(mlir::tile::createTileDynamicSchedule());
  // sm_90, in clusters: the copies every block of a cluster makes alike
  // (attention's K and V), each block's share multicast to all of them;
  // persistent or not (a kernel's blocks launched in clusters as they are).
  if (options.hasTMA() && options.cluster > 1) {
    mlir::tile::TileMulticastCopiesOptions mcOptions;
    // Said where the user asked for clusters.
    mcOptions.warn = options.given.cluster.value_or(1) > 1;
    fpm.addPass(mlir::tile::createTileMulticastCopies(mcOptions));
  }
  // sm_90a: a TMA store staged in parts after a warp-specialized loop puts
  // a part in the ring slot the loop's last trip read and still holds,
  // rather than waiting for the previous part's copy.
  if (options.hasWgmma() && options.hasTMA() && options.stageInRingSlots)
    fpm.addPass(mlir::tile::createTileStageInHeldSlots());
  // sm_90: a loop's staged TMA store (a tile reduced into global memory in
  // every trip) issued in the next trip, from a ring of two buffers, behind
  // the barrier that trip places anyway.
  if (options.hasTMA() && options.deferLoopStores) {
    mlir::tile::TileDeferLoopStoresOptions deferStores;
    deferStores.sharedMemoryBytes = options.sharedMemoryBytes();
    deferStores.warn = options.given.deferLoopStores.value_or(false);
    fpm.addPass(mlir::tile::createTileDeferLoopStores(deferStores));
  }
  // A loop branching on its induction variable (attention's causal mask)
  // is split in two at the iteration where the branch changes, once its
  // schedule is in place: both loops keep the schedule, and the rings,
  // counters and multiplies in flight continue from the first to the
  // second (a producer warp runs ahead across the boundary).
  // (Also when the kernel's option is off: a loop's schedule may ask.)
  // A select on a mask whose comparisons are linear in the induction
  // variable (written on every trip) gets a branch on the trips where it
  // keeps the whole tile, for the split below.
  mlir::tile::TileMaskRangesOptions maskOptions;
  maskOptions.enabled = options.loopSplit;
  fpm.addPass(mlir::tile::createTileMaskRanges(maskOptions));
  mlir::tile::TileLoopSplitOptions splitOptions;
  splitOptions.enabled = options.loopSplit;
  // Said where the user asked for it.
  splitOptions.warn = options.given.loopSplit.value_or(false);
  fpm.addPass(mlir::tile::createTileLoopSplit(splitOptions));
  // A select on a mask that no split took away (its comparisons on scalars
  // of the trip: a query tile t % tiles of a loop over (head, tile) pairs)
  // under a branch on the trip's test that it keeps the whole tile: no
  // comparison or select per element on those trips.
  mlir::tile::TileGuardMasksOptions guardOptions;
  guardOptions.enabled = options.guardMasks;
  guardOptions.split = options.loopSplit;
  guardOptions.warn = options.given.guardMasks.value_or(false);
  fpm.addPass(mlir::tile::createTileGuardMasks(guardOptions));
  // sm_90a: a loop that may run no trip and leaves a multiply in flight,
  // under a guard on its trip count, so that no zeros are moved into
  // registers the pending multiply writes (ptxas would serialize every
  // wgmma).
  if (options.hasWgmma()) {
    fpm.addPass(mlir::tile::createTileGuardEmptyLoops());
    // A loop that runs a trip, streams multiplies and whose accumulator
    // starts at zero: its first trip peeled, a multiply onto the zeros
    // that reads no accumulator (the loop's entry moves no zeros into the
    // registers, at each tile of a persistent GEMM); the rest of the loop,
    // which continues that multiply in flight, guarded in turn.
    fpm.addPass(mlir::tile::createTileFreshAccumulators());
    fpm.addPass(mlir::tile::createTileGuardEmptyLoops());
  }
  // A cluster's blocks exchange gathered tiles through each other's shared
  // memory (buffers at the top, the cluster barriers around the kernel).
  fpm.addPass(mlir::tile::createTileExchangeInCluster());
  // Shared memory: offsets, then the barriers its accesses need.
  pm.addPass(mlir::tile::createTileAllocateSharedMemory());
  pm.addPass(mlir::tile::createTileInsertBarriers());
  // Two or more specialized consumer warpgroups issue their multiplies in
  // turns, between the consumers' barriers: one's softmax runs under the
  // other's multiplies.
  // (Also without warp specialization, to say that it does not apply.)
  if (options.hasWgmma() && options.pingPong) {
    mlir::tile::TilePingPongOptions pingPong;
    pingPong.warn = options.given.pingPong.value_or(false);
    pm.nest<mlir::func::FuncOp>().addPass(
        mlir::tile::createTilePingPong(pingPong));
  }
  // sm_90: the kernel may start under the one before it in its stream,
  // its first access to global memory behind a wait for that kernel.
  if (options.hasTMA() && options.dependentLaunch)
    pm.nest<mlir::func::FuncOp>().addPass(
        mlir::tile::createTileDependentLaunch());
  // A timeline's records, on the schedule the passes above made.
  if (options.timeline) {
    mlir::tile::TileTimelineOptions timeline;
    timeline.records = options.timeline;
    pm.nest<mlir::func::FuncOp>().addPass(
        mlir::tile::createTileTimeline(timeline));
  }
  // What the kernel needs of the GPU (threads, shared memory, registers),
  // checked before code generation: a kernel the target cannot run is
  // refused here, at the code that needs too much.
  mlir::tile::TileCheckResourcesOptions checkOptions;
  checkOptions.arch = options.arch;
  checkOptions.occupancy = options.occupancy;
  pm.addPass(mlir::tile::createTileCheckResources(checkOptions));
}

void tilec::buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                                     const CodegenOptions &options) {
  tilec::ConvertTileToLLVMOptions lowerOptions;
  lowerOptions.occupancy = options.occupancy;
  lowerOptions.exp2Poly = options.exp2Poly;
  lowerOptions.arch = options.arch;
  pm.addPass(tilec::createConvertTileToLLVM(lowerOptions));
  // The kernel's parameters, in their final form, fit the target's PTX.
  tilec::CheckKernelParametersOptions parameterOptions;
  parameterOptions.arch = options.arch;
  pm.addPass(tilec::createCheckKernelParameters(parameterOptions));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildCodegenPipeline(mlir::OpPassManager &pm,
                                 const CodegenOptions &options) {
  buildLayoutPipeline(pm, options);
  buildSchedulePipeline(pm, options);
  buildLowerToLLVMPipeline(pm, options);
}

namespace {
/// Options of the registered pipelines: the target, as tilec --arch, and
/// every compile option of tile/Options.def, spelled as tilec's flags.
struct TargetPipelineOptions
    : public mlir::PassPipelineOptions<TargetPipelineOptions> {
  Option<std::string> arch{
      *this, "arch",
      llvm::cl::desc("Target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a"),
      llvm::cl::init("sm_90a")};
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  Option<TYPE> FIELD{*this, tile::optionFlag(#KEY), llvm::cl::desc(DOC),       \
                     llvm::cl::init(DEFAULT)};
#include "tile/Options.def"

  tilec::CodegenOptions get() const {
    tilec::CodegenOptions options;
    options.arch = arch;
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  options.FIELD = FIELD;
#include "tile/Options.def"
    return options;
  }
};
} // namespace

void tilec::registerPipelines() {
  mlir::PassPipelineRegistration<TargetPipelineOptions>(
      "tile-to-llvm", "Assign layouts and lower tile IR to LLVM/NVVM",
      [](mlir::OpPassManager &pm, const TargetPipelineOptions &options) {
        buildCodegenPipeline(pm, options.get());
      });
  mlir::PassPipelineRegistration<TargetPipelineOptions>(
      "tile-schedule",
      "Stage mma operands, pipeline loops, allocate shared "
      "memory and place barriers (laid-out tile IR)",
      [](mlir::OpPassManager &pm, const TargetPipelineOptions &options) {
        buildSchedulePipeline(pm, options.get());
      });
  mlir::PassPipelineRegistration<>(
      "tile-cleanup", "Clean up freshly emitted tile IR",
      [](mlir::OpPassManager &pm) { buildTileCleanupPipeline(pm); });
}
