//===- Pipeline.h - The pass pipelines of tilec -----------------*- C++ -*-===//
//
// Every pipeline the tools run is assembled here, so that tilec, libtile and
// tile-opt (--tile-cleanup) agree on the order of passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_PIPELINE_H
#define TILEC_PIPELINE_PIPELINE_H

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tilec {

/// Clean-up of freshly emitted tile IR: folding and canonicalization of the
/// tile ops, CSE, dead code removal.
void buildTileCleanupPipeline(mlir::OpPassManager &pm);

struct CodegenOptions {
  /// The GPU the code is for: sm_80, sm_86, sm_89, sm_90 or sm_90a. The
  /// pass pipeline is assembled per target from it.
  std::string arch = "sm_90a";
  unsigned numWarps = 4;
  /// Byte alignment of tensors; bounds the width of vector accesses.
  unsigned tensorAlignment = 16;
  /// Pipeline stages of every async copy in a loop; 0 takes them from the
  /// kernel's `latency` hints (tile-pipeline), 1 turns pipelining off.
  unsigned numStages = 0;
  /// Split loops at branches on their induction variable (tile-loop-split).
  bool loopSplit = true;
  /// sm_90a: issue a loop's last multiply in the next trip, behind its
  /// first (tile-rotate-wgmma; in-warpgroup overlap).
  bool rotateWgmma = true;
  /// sm_90a: a TMA producer warp and consumer warpgroups
  /// (tile-warp-specialize).
  bool warpSpecialize = false;
  /// sm_90a, with warpSpecialize: two or more consumer warpgroups issue
  /// their multiplies in turns (tile-ping-pong).
  bool pingPong = false;
  /// Blocks per multiprocessor the registers are budgeted for (PTX
  /// .minnctapersm, and the register split of warp specialization); 0:
  /// unconstrained.
  unsigned occupancy = 0;
  /// A persistent kernel: about one block per multiprocessor slot, looping
  /// over the blocks of the grid a launch asks for (tile-persistent).
  bool persistent = false;
  /// sm_90, persistent: launched in clusters of this many blocks along x,
  /// which run neighbouring tiles together and share the copies that are
  /// the same for all of them (tile-persistent's cluster,
  /// tile-multicast-copies); 1: no clusters.
  unsigned cluster = 1;
  /// Stages of a persistent kernel's per-tile copies (tile-pipeline's
  /// tile-stages): 2 loads the next tile's (attention's Q) during this one.
  unsigned tileStages = 2;
  /// With tileStages 1: the slot is refilled for the next tile right after
  /// the tile's last read of it, not at the next tile's start
  /// (tile-pipeline's tile-refill-after-read).
  bool tileRefillAfterRead = false;
  /// sm_90: its blocks claim their tiles at run time (tile-dynamic-schedule).
  bool dynamicSchedule = true;
  /// sm_90a: a tile's epilogue runs under the next tile's first multiply
  /// (tile-defer-epilogue).
  bool deferEpilogue = false;
  /// sm_90a: the next tile's first multiply and its softmax run under this
  /// tile's last multiply (tile-rotate-tiles; the tile loop of
  /// tile-dynamic-schedule).
  bool rotateTiles = false;
  /// sm_90a: tile-rotate-wgmma leaves the accumulator's rescaling at the
  /// end of its trip instead of moving it with the multiply (its
  /// rescale-in-trip; not with rotateTiles, where it spills).
  bool rescaleInTrip = false;
  /// sm_90: its TMA stores are staged in the tile's own, last-read slot of
  /// the tile loop's ring (attention's Q) rather than a buffer of their own
  /// (tile-convert-stores-to-tma's reuse-ring-slots).
  bool stageInRingSlots = true;

  /// tile-rotate-tiles runs: sm_90a, a persistent kernel claiming its tiles.
  bool rotatesTiles() const {
    return rotateTiles && hasWgmma() && persistent && dynamicSchedule;
  }

  /// The target has warpgroup mma (wgmma): sm_90a.
  bool hasWgmma() const { return arch == "sm_90a"; }
  /// The target has the tensor memory accelerator (cp.async.bulk.tensor)
  /// and transaction mbarriers: sm_90 and sm_90a.
  bool hasTMA() const { return arch == "sm_90" || arch == "sm_90a"; }
  /// The shared memory a block may have on every GPU that runs code for
  /// the target, in bytes (mlir::tile::TargetLimits).
  long sharedMemoryBytes() const;
};

/// Loop splitting, layout assignment and the clean-up of layout conversions
/// (tilec --emit=layout stops here).
void buildLayoutPipeline(mlir::OpPassManager &pm,
                         const CodegenOptions &options);

/// From laid-out tile IR to scheduled tile IR: mma operands staged in
/// shared memory, loops software-pipelined, shared memory allocated and
/// barriers placed. The target-specific part of the pipeline.
void buildSchedulePipeline(mlir::OpPassManager &pm,
                           const CodegenOptions &options);

/// From scheduled tile IR to the LLVM and NVVM dialects.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const CodegenOptions &options);

/// The three above, in order: tile IR to LLVM/NVVM for options.arch.
void buildCodegenPipeline(mlir::OpPassManager &pm,
                          const CodegenOptions &options);

/// Registers the pipelines above with the pass registry (tile-opt).
void registerPipelines();

} // namespace tilec

#endif // TILEC_PIPELINE_PIPELINE_H
