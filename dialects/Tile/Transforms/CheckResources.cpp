//===- CheckResources.cpp - Refuse a kernel the target cannot run ---------===//
//
// The GPU refuses a kernel that needs more of it than it has: more threads
// or shared memory in a block than a block may have, more registers in a
// thread than a thread may have. ptxas would report some of these as its
// own errors after tilec had said nothing (C7602, "insufficient
// registers"), others only show at launch, and a kernel far too large
// would first take minutes of code generation. This pass checks them on
// scheduled tile IR, where the numbers are known (tile.num_warps, the
// producer warpgroup, tile.shared_bytes, the layouts of the tiles), and
// reports each at the code it is about, with the amount, the limit and
// what to change.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKRESOURCES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `bytes` in KiB, to a tenth where it is not a whole number of them.
std::string kib(int64_t bytes) {
  std::string text = std::to_string(bytes / 1024);
  if (bytes % 1024)
    text += "." + std::to_string(bytes % 1024 * 10 / 1024);
  return text + " KiB";
}

struct CheckResourcesPass
    : public mlir::tile::impl::TileCheckResourcesBase<CheckResourcesPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<TargetLimits> limits = TargetLimits::get(arch);
    if (!limits) {
      getOperation().emitError()
          << "tile-check-resources: unknown target '" << arch << "'";
      return signalPassFailure();
    }
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(TileDialect::getKernelAttrName()) && !func.isExternal())
        ok &= succeeded(checkKernel(func, *limits));
    if (!ok)
      signalPassFailure();
  }

  LogicalResult checkKernel(func::FuncOp func, const TargetLimits &limits) {
    StringRef name = func.getSymName();
    auto warpsAttr =
        func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
    int64_t warps = warpsAttr ? warpsAttr.getInt() : 4;
    WarpSpecializeOp ws;
    func.walk([&](WarpSpecializeOp op) { ws = op; });
    int64_t groups = ws ? ws.getNumConsumerGroups() : 1;
    int64_t threads = warps * 32 * groups + (ws ? 128 : 0);
    std::string block =
        std::to_string(threads) + " threads (" +
        (groups > 1 ? std::to_string(groups) + " groups of " : "") +
        std::to_string(warps) + " warps" +
        (ws ? " and a producer warpgroup)" : ")");

    // Instructions the target lacks.
    LogicalResult supported = success();
    func.walk([&](Operation *op) {
      // atomic_add and scatter_add of bf16.
      std::optional<ReduceKind> kind;
      Type elt;
      if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
        kind = rmw.getKind();
        elt = rmw.getValue().getType().getElementType();
      } else if (auto scatter = dyn_cast<ScatterOp>(op)) {
        kind = scatter.getCombine();
        elt = scatter.getValue().getType().getElementType();
      }
      if (kind != ReduceKind::Sum || !elt.isBF16() || limits.bf16AtomicAdd)
        return WalkResult::advance();
      supported = emitError(getUserFacingLoc(op))
                  << (isa<ScatterOp>(op) ? "scatter_add" : "atomic_add")
                  << " on bf16 needs sm_90 (red.global.add.bf16); " << arch
                  << " has it for f16, f32 and i32: accumulate in f32";
      return WalkResult::interrupt();
    });
    if (failed(supported))
      return failure();
    func.walk([&](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) || limits.float8Conversions)
        return WalkResult::advance();
      Type from = getElementTypeOrSelf(op->getOperand(0).getType());
      Type to = getElementTypeOrSelf(op->getResult(0).getType());
      if (!isFloat8Type(from) && !isFloat8Type(to))
        return WalkResult::advance();
      supported = emitError(getUserFacingLoc(op))
                  << "converting " << getLanguageTypeName(from) << " to "
                  << getLanguageTypeName(to)
                  << " needs sm_89 or later (cvt with e4m3x2/e5m2x2); " << arch
                  << " has no 8-bit float instructions";
      return WalkResult::interrupt();
    });
    if (failed(supported))
      return failure();
    func.walk([&](MmaOp op) {
      Type elt = op.getA().getType().getElementType();
      if (!isFloat8Type(elt) || limits.float8Conversions)
        return WalkResult::advance();
      supported = emitError(getUserFacingLoc(op))
                  << "mma on " << getLanguageTypeName(elt)
                  << " needs sm_89 or later (mma.sync.m16n8k32 with "
                     "e4m3/e5m2, or sm_90a's wgmma); "
                  << arch << " has no 8-bit float instructions";
      return WalkResult::interrupt();
    });
    if (failed(supported))
      return failure();

    // Threads of a block.
    if (threads > limits.threadsPerBlock)
      return func.emitError()
             << "kernel '" << name << "' has blocks of " << block << "; a "
             << arch << " block has at most " << limits.threadsPerBlock
             << " threads: use fewer warps (--num-warps, num_warps=)";

    // Shared memory of a block.
    auto sharedAttr = func->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
    int64_t shared = sharedAttr ? sharedAttr.getInt() : 0;
    if (shared > limits.sharedBytesPerBlock) {
      InFlightDiagnostic diag =
          func.emitError()
          << "kernel '" << name << "' needs " << shared << " bytes ("
          << kib(shared) << ") of shared memory per block; " << arch
          << " gives a block at most " << limits.sharedBytesPerBlock << " ("
          << kib(limits.sharedBytesPerBlock)
          << "): use smaller tiles or fewer pipeline stages (--num-stages, "
             "the loads' latency hints)";
      noteLargestBuffers(func, diag);
      return failure();
    }

    // Blocks per multiprocessor, when the kernel asks for them.
    int64_t blocks = occupancy;
    std::string asked = "--occupancy=" + std::to_string(blocks);
    if (blocks) {
      if (blocks > limits.blocksPerMultiprocessor)
        return func.emitError()
               << "kernel '" << name << "': " << asked << " asks for " << blocks
               << " blocks per multiprocessor; " << arch << " runs at most "
               << limits.blocksPerMultiprocessor << ": lower --occupancy";
      if (blocks * threads > limits.threadsPerMultiprocessor)
        return func.emitError()
               << "kernel '" << name << "': " << asked << " asks for " << blocks
               << " blocks of " << block << " per multiprocessor ("
               << blocks * threads << " threads); " << arch << " runs at most "
               << limits.threadsPerMultiprocessor
               << " threads on one: lower --occupancy to at most "
               << limits.threadsPerMultiprocessor / threads
               << " or use fewer warps";
      int64_t perBlock = shared + limits.reservedSharedBytesPerBlock;
      if (blocks * perBlock > limits.sharedBytesPerMultiprocessor)
        return func.emitError()
               << "kernel '" << name << "': " << asked << " asks for " << blocks
               << " blocks per multiprocessor, each with " << shared
               << " bytes of shared memory (and "
               << kib(limits.reservedSharedBytesPerBlock)
               << " the GPU keeps per block): " << blocks * perBlock
               << " bytes; a " << arch << " multiprocessor has "
               << limits.sharedBytesPerMultiprocessor
               << ": lower --occupancy to at most "
               << limits.sharedBytesPerMultiprocessor / perBlock
               << " or use less shared memory";
    }

    // Registers of a thread: those it starts with, which ptxas checks a
    // wgmma against (C7602), and in a warp-specialized block whose producer
    // warpgroup gives its registers up, the consumers' once they take what
    // that frees (setmaxnreg), which hold the tiles. Without --occupancy, a
    // block's threads at one block per multiprocessor, the most they have
    // (a block of 640 threads starts with 96 each, not the 255 a thread may
    // address).
    int64_t budget = limits.registersPerThreadAt(blocks ? blocks : 1, threads);
    int64_t risen = 0;
    if (ws && ws.getProducerRegisters())
      risen = consumerRegistersAt(budget, threads, ws.getAllConsumerThreads(),
                                  *ws.getProducerRegisters());
    std::string why =
        blocks
            ? "under " + asked + ", " + std::to_string(blocks) + " blocks of " +
                  std::to_string(threads) +
                  " threads share the multiprocessor's " +
                  std::to_string(limits.registersPerMultiprocessor) +
                  " registers, which leaves a thread " + std::to_string(budget)
        : budget < limits.registersPerThread
            ? "blocks of " + std::to_string(threads) +
                  " threads leave a thread at most " + std::to_string(budget) +
                  " of the multiprocessor's " +
                  std::to_string(limits.registersPerMultiprocessor)
            : "a thread has at most " + std::to_string(budget);
    std::string whyTiles =
        risen ? why + " at its start and a consumer " + std::to_string(risen) +
                    " once the producer warpgroup gives its registers up (" +
                    std::to_string(*ws.getProducerRegisters()) +
                    " a thread, setmaxnreg)"
              : why;
    int64_t tileBudget = risen ? risen : budget;
    std::string fix = groups > 1 ? "use smaller tiles or fewer consumer groups "
                                   "(--consumer-groups, consumer_groups=)"
                      : blocks
                          ? "use smaller tiles, more warps (--num-warps) "
                            "or a lower --occupancy"
                          : "use smaller tiles or more warps (--num-warps)";

    // The largest tile.
    Operation *largest = nullptr;
    Type largestType;
    int64_t largestRegs = 0;
    auto consider = [&](Operation *op, Type type) {
      int64_t regs = registersOf(type);
      if (regs > largestRegs) {
        largest = op;
        largestType = type;
        largestRegs = regs;
      }
    };
    func.walk([&](Operation *op) {
      // (A broadcast repeats its source's registers: the index tiles of a
      // gather, a row applied to every row of a tile.)
      if (auto b = dyn_cast<BroadcastOp>(op)) {
        consider(op, b.getSource().getType());
        return;
      }
      for (Type t : op->getResultTypes())
        consider(op, t);
      for (Region &region : op->getRegions())
        for (Block &b : region)
          for (BlockArgument arg : b.getArguments())
            consider(op, arg.getType());
    });
    if (largestRegs > tileBudget) {
      auto tensor = cast<RankedTensorType>(largestType);
      std::string shape;
      for (int64_t d : tensor.getShape())
        shape += (shape.empty() ? "" : "x") + std::to_string(d);
      return emitError(getUserFacingLoc(largest))
             << "a " << shape << " tile of " << tensor.getElementType()
             << " held by " << warps << (warps == 1 ? " warp" : " warps")
             << " needs " << largestRegs << " registers per thread in kernel '"
             << name << "'; " << whyTiles << ": " << fix;
    }

    // What one wgmma instruction binds at once, against the registers a
    // thread starts with.
    LogicalResult result = success();
    func.walk([&](WarpgroupMmaOp mma) {
      auto [acc, a] = wgmmaInstructionOperands(mma);
      int64_t binds = wgmmaBoundRegisters(mma);
      if (binds + kRegistersAroundWgmma <= budget)
        return WalkResult::advance();
      result = emitError(getUserFacingLoc(mma))
               << "this multiply's wgmma instructions bind " << binds
               << " registers per thread each (an accumulator's " << acc
               << (a ? ", an A operand's " + std::to_string(a) : "")
               << " and two descriptors of 2) and need about "
               << kRegistersAroundWgmma << " more around it, "
               << binds + kRegistersAroundWgmma << " in all, in kernel '"
               << name << "'; " << why << ": " << fix;
      return WalkResult::interrupt();
    });
    return result;
  }

  /// Notes the three largest buffers of `func` at the code they are for.
  static void noteLargestBuffers(func::FuncOp func, InFlightDiagnostic &diag) {
    SmallVector<std::pair<int64_t, Operation *>> buffers;
    func.walk([&](Operation *op) {
      if (isa<SmemAllocOp, LocalAllocOp>(op))
        if (auto type = dyn_cast<SharedMemoryType>(op->getResult(0).getType()))
          buffers.push_back({getAllocationBytes(op), op});
    });
    llvm::stable_sort(buffers,
                      [](auto &a, auto &b) { return a.first > b.first; });
    // One note per place and buffer type (a split loop has a ring per part).
    llvm::SmallPtrSet<const void *, 4> noted;
    unsigned notes = 0;
    for (auto &[bytes, op] : buffers) {
      Location loc = getUserFacingLoc(op);
      if (notes == 3 || !noted.insert(loc.getAsOpaquePointer()).second)
        continue;
      ++notes;
      diag.attachNote(loc) << "a buffer of " << bytes << " bytes ("
                           << kib(bytes)
                           << ") for this: " << op->getResult(0).getType();
    }
  }
};

} // namespace
