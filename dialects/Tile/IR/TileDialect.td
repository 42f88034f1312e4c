//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The tile dialect holds a kernel as operations over whole tiles: values of
// builtin ranked tensor type with a static shape (held padded to powers of
// two), owned by one thread block. Element-wise arithmetic, comparisons, casts and selection use
// the upstream `arith` and `math` dialects directly on those tensors; loops and
// branches use `scf`. The tile dialect adds what has no exact upstream
// equivalent: block indices, tile construction and reshaping, loads and stores
// of tiles from global tensors, tensor-core matrix multiply-accumulate,
// reductions, and the fast-math variants of exp2 and division.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level operations for GPU kernels";
  let description = [{
    Tile IR: a kernel is a `func.func` marked `tile.kernel` whose arguments are
    global tensors (`!tile.global`) and scalars, and whose body computes on
    tiles (ranked tensors with static shapes, held padded to powers of two).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    // Defined in TileTypes.cpp, where the storage classes are complete.
    void registerTypes();
    void registerAttributes();

    /// Marks a `func.func` as a kernel entry point.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("tile.kernel");
    }
    /// Warps per thread block, set by layout assignment.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tile.num_warps");
    }
    /// The dictionary of compile-time constants a kernel was specialized with.
    static constexpr ::llvm::StringLiteral getConstantsAttrName() {
      return ::llvm::StringLiteral("tile.constants");
    }
    /// The compile-time options a kernel gives in `@hints(...)`: a
    /// dictionary of the hints of Tile/IR/KernelHints.h.
    static constexpr ::llvm::StringLiteral getHintsAttrName() {
      return ::llvm::StringLiteral("tile.hints");
    }
    /// A kernel's `@tune(...)`: the values a tuner may try for its const
    /// parameters, {NAME = [v1, v2, ...]} (ints, bools or types).
    static constexpr ::llvm::StringLiteral getTuneAttrName() {
      return ::llvm::StringLiteral("tile.tune");
    }
    /// A kernel's TMA descriptors: one {param, box, swizzle} per trailing
    /// !tile.tensor_map parameter, set by tile-convert-copies-to-tma.
    static constexpr ::llvm::StringLiteral getTensorMapsAttrName() {
      return ::llvm::StringLiteral("tile.tensor_maps");
    }
    /// The kernel parameter (argument number) a memory op accesses, set by
    /// convert-tile-to-llvm before it lowers the op.
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return ::llvm::StringLiteral("tile.param");
    }
    /// Per kernel argument, the widest vector (bytes) the lowering gave its
    /// accesses: the alignment the kernel's description asks for.
    static constexpr ::llvm::StringLiteral getParamVectorBytesAttrName() {
      return ::llvm::StringLiteral("tile.param_vector_bytes");
    }
    /// The tensor parameters (argument numbers) a warp-specialized
    /// kernel's producer reads ahead of the kernel's own writes
    /// (tile-warp-specialize), and those the kernel writes: no written
    /// tensor may overlap one read ahead, which the launch checks.
    static constexpr ::llvm::StringLiteral getReadAheadParamsAttrName() {
      return ::llvm::StringLiteral("tile.read_ahead_params");
    }
    static constexpr ::llvm::StringLiteral getWrittenParamsAttrName() {
      return ::llvm::StringLiteral("tile.written_params");
    }
    /// Why loops of a kernel kept cp.async instead of TMA (text).
    static constexpr ::llvm::StringLiteral getTmaFallbackAttrName() {
      return ::llvm::StringLiteral("tile.tma_fallback");
    }
    /// Why tile-warp-specialize left a kernel with TMA copies as it is
    /// (text).
    static constexpr ::llvm::StringLiteral getNotWarpSpecializedAttrName() {
      return ::llvm::StringLiteral("tile.not_warp_specialized");
    }
    /// A persistent kernel (tile-persistent): the index (i32) of the first
    /// of the three trailing i32 parameters that give its logical grid.
    static constexpr ::llvm::StringLiteral getPersistentAttrName() {
      return ::llvm::StringLiteral("tile.persistent");
    }
    /// A clustered persistent kernel (tile-persistent's `cluster`): the
    /// blocks of a cluster of this many (i32, 2 to 8) along x run
    /// neighbouring tiles of the logical grid together and may share
    /// copies (tile-multicast-copies).
    static constexpr ::llvm::StringLiteral getClusterAttrName() {
      return ::llvm::StringLiteral("tile.cluster");
    }
    /// A kernel that waits for the kernel before it in its stream at its
    /// `tile.grid_dependency_wait` (tile-dependent-launch): libtile launches
    /// it with programmatic stream serialization.
    static constexpr ::llvm::StringLiteral getDependentLaunchAttrName() {
      return ::llvm::StringLiteral("tile.dependent_launch");
    }
    /// A kernel compiled with a timeline (tile-timeline): {records = N :
    /// i32, sites = [...]}, the records a warpgroup's log holds and what
    /// each `tile.timestamp` site is, in site order.
    static constexpr ::llvm::StringLiteral getTimelineAttrName() {
      return ::llvm::StringLiteral("tile.timeline");
    }
    /// The loop over a persistent kernel's tiles (unit): each trip runs
    /// the kernel body for one block of the logical grid.
    static constexpr ::llvm::StringLiteral getTileLoopAttrName() {
      return ::llvm::StringLiteral("tile.tile_loop");
    }
    /// A loop's own schedule (#tile.schedule): what it asks of the
    /// schedule passes, overriding the kernel's options.
    static constexpr ::llvm::StringLiteral getScheduleAttrName() {
      return ::llvm::StringLiteral("tile.schedule");
    }
    /// A loop tile-pipeline made (unit): its copies are rings refilled
    /// S - 1 trips ahead, the slot the previous trip read.
    static constexpr ::llvm::StringLiteral getPipelinedAttrName() {
      return ::llvm::StringLiteral("tile.pipelined");
    }
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
