//===- Pipeline.h - The pass pipelines of tilec -----------------*- C++ -*-===//
//
// Every pipeline the tools run is assembled here, so that tilec, libtile and
// tile-opt (--tile-cleanup) agree on the order of passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_PIPELINE_H
#define TILEC_PIPELINE_PIPELINE_H

#include "tile/Options.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace tilec {

/// Clean-up of freshly emitted tile IR: folding and canonicalization of the
/// tile ops, CSE, dead code removal.
void buildTileCleanupPipeline(mlir::OpPassManager &pm);

/// The options a kernel is compiled with, every one resolved (the
/// request's, else the kernel's @hints, else the default: tile/Options.def)
/// and the target. The pipelines are assembled from them.
struct CodegenOptions {
  /// The GPU the code is for: sm_80, sm_86, sm_89, sm_90 or sm_90a. The
  /// pass pipeline is assembled per target from it.
  std::string arch = "sm_90a";
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  TYPE FIELD = DEFAULT;
#include "tile/Options.def"

  bool operator==(const CodegenOptions &o) const {
    bool same = arch == o.arch;
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  same = same && FIELD == o.FIELD;
#include "tile/Options.def"
    return same;
  }
  bool operator!=(const CodegenOptions &o) const { return !(*this == o); }

  /// The options the caller or the kernel's @hints gave (the others are
  /// the compiler's choice or defaults): a pass warns where one of these
  /// cannot apply.
  tile::Options given;

  /// The target has warpgroup mma (wgmma): sm_90a.
  bool hasWgmma() const { return arch == "sm_90a"; }
  /// The target has the tensor memory accelerator (cp.async.bulk.tensor)
  /// and transaction mbarriers: sm_90 and sm_90a.
  bool hasTMA() const { return arch == "sm_90" || arch == "sm_90a"; }
  /// The shared memory a block may have on every GPU that runs code for
  /// the target, in bytes (mlir::tile::TargetLimits); under `occupancy`, its
  /// share of a multiprocessor's.
  long sharedMemoryBytes() const;
};

/// The compiler's choice of schedule options for `func` (tile IR, before
/// layouts) on `arch`, from its structure alone; only the options it has a
/// reason for are set (see docs/architecture.md, "How a schedule is
/// chosen"). On targets without wgmma (mma.sync): num_warps 8 where the
/// largest streaming loop's f32 multiply results (those started from zeros
/// counted twice) exceed 144 registers a thread on the default 4, and
/// num_stages as below. On sm_90a:
///   - num_warps: one consumer warpgroup per 64 rows of the multiplies of
///     its loops (wgmma's M), two when every one has a multiple of 128;
///   - warp_specialize: on when exactly one loop streams mma operands (a
///     load in the loop feeds a multiply) and two consumer warpgroups take
///     its multiplies (8 warps, rows a multiple of 128), each multiply with
///     at least 128 bytes of K a stage and the loop's f32 results at most
///     160 registers a consumer thread;
///   - persistent, with it (one block per multiprocessor), where a multiply
///     reads an operand loaded once per block and the loop has at most two
///     multiplies: tile_stages=1, tile_refill_after_read and
///     rescale_in_trip;
///   - num_stages: the most stages, up to the loads' latency hints, with
///     which the multiplies' operands fit shared memory, when the hints'
///     would not; deeper rings where blocks per multiprocessor allow.
/// `given` is what the caller or the hints gave: those stay as they are.
tile::Options chooseSchedule(mlir::func::FuncOp func, const std::string &arch,
                             const tile::Options &given);

/// The options the caller or the hints gave (`options.given`) that the
/// pipeline built from `options` leaves unused, each with why: an option of
/// persistent kernels on a kernel that is not one. (Options of Hopper
/// instructions on other targets are not listed, nor loops' schedules
/// asking for them: a kernel tuned for sm_90a compiles for sm_80 as it is;
/// combinations that contradict each other are errors, tile::Options::check.)
std::vector<std::string> inapplicableOptions(const CodegenOptions &options);

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
