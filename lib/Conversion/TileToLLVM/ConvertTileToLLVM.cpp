//===- ConvertTileToLLVM.cpp - Laid-out tile IR to LLVM and NVVM ----------===//

#include "LoweringUtils.h"
#include "tilec/Conversion/Passes.h"

#include "Tile/IR/Locations.h"
#include "Tile/IR/Registers.h"
#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TargetLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/Views.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

bool hasTileTypes(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    return isa<RankedTensorType, tile::GlobalTensorType, tile::SharedMemoryType,
               tile::MbarrierType, tile::TensorMapType>(t);
  });
}

/// Stage 1: tiles to registers, global tensors to (pointer, sizes, strides).
LogicalResult lowerTiles(ModuleOp module,
                         const mlir::tile::TargetLimits &limits,
                         unsigned exp2Poly) {
  MLIRContext *ctx = module.getContext();
  TileTypeConverter converter(ctx);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *op) {
    return !hasTileTypes(op->getOperandTypes()) &&
           !hasTileTypes(op->getResultTypes());
  });
  // Shared memory and synchronization ops may have no tile-typed operand.
  target.addIllegalOp<
      tile::SmemAllocOp, tile::SmemSlotOp, tile::SmemPermuteOp,
      tile::SmemViewOp, tile::AsyncCopyOp, tile::AsyncWaitOp, tile::BarrierOp,
      tile::FenceAsyncSharedOp, tile::MbarrierAllocOp, tile::MbarrierInitOp,
      tile::MbarrierInvalOp, tile::MbarrierWaitOp, tile::MbarrierArriveOp,
      tile::TmaLoadOp, tile::TmaStoreOp, tile::TmaStoreWaitOp,
      tile::WgmmaWaitOp, tile::WarpgroupTurnOp, tile::TileClaimOp,
      tile::TileReadOp, tile::TileCounterDoneOp, tile::GridDependencyWaitOp,
      tile::LaunchDependentsOp>();
  target.addDynamicallyLegalOp<func::FuncOp>(
      [](func::FuncOp f) { return !hasTileTypes(f.getArgumentTypes()); });
  RewritePatternSet patterns(ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  populateElementwisePatterns(converter, patterns, exp2Poly);
  populateFloat8Patterns(converter, patterns);
  populateLayoutPatterns(converter, patterns);
  populateMemoryPatterns(converter, limits.vectorReductions, patterns);
  populateReducePatterns(converter, patterns);
  populateMmaPatterns(converter, patterns);
  populateSharedMemoryPatterns(converter, limits.storeMatrix, patterns);
  populateWgmmaPatterns(converter, patterns, module);
  populateTmaPatterns(converter, patterns);
  populateTileSchedulerPatterns(converter, patterns);
  return applyPartialConversion(module, target, std::move(patterns));
}

/// Stage 2: structured control flow, scalars and functions to LLVM.
LogicalResult lowerToLLVM(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  {
    // erf has no instruction: a polynomial of f32 arithmetic and exp.
    // (A walk, not the greedy driver: nothing else is folded or erased.)
    RewritePatternSet patterns(ctx);
    populatePolynomialApproximateErfPattern(patterns);
    walkAndApplyPatterns(module, std::move(patterns));
  }
  {
    RewritePatternSet patterns(ctx);
    arith::populateArithExpandOpsPatterns(patterns);
    populateSCFToControlFlowConversionPatterns(patterns);
    ConversionTarget target(*ctx);
    target
        .addIllegalOp<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ConditionOp,
                      scf::YieldOp, arith::CeilDivSIOp, arith::FloorDivSIOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
  }
  LowerToLLVMOptions options(ctx);
  LLVMTypeConverter converter(ctx, options);
  RewritePatternSet patterns(ctx);
  populateScalarPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalOp<ModuleOp>();
  target.addLegalDialect<NVVM::NVVMDialect>();
  return applyFullConversion(module, target, std::move(patterns));
}

struct ConvertTileToLLVMPass
    : public tilec::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<mlir::tile::TargetLimits> limits =
        mlir::tile::TargetLimits::get(arch);
    if (!limits) {
      module.emitError() << "convert-tile-to-llvm: unknown target '" << arch
                         << "' (sm_80, sm_86, sm_89, sm_90 or sm_90a)";
      return signalPassFailure();
    }
    if (failed(checkLoweringPreconditions(module)))
      return signalPassFailure();
    Builder b(&getContext());
    // Kernels are entry points with a known block size.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(tile::TileDialect::getKernelAttrName()))
        continue;
      auto warps = func->getAttrOfType<IntegerAttr>(
          tile::TileDialect::getNumWarpsAttrName());
      if (!warps) {
        func.emitError("kernel has no layouts: run tile-assign-layouts first");
        return signalPassFailure();
      }
      func->setAttr("nvvm.kernel", b.getUnitAttr());
      func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr(
                                        {int32_t(warps.getInt() * 32), 1, 1}));
      if (occupancy)
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(int32_t(occupancy)));
      // Launched in clusters: .reqnctapercluster (and .explicitcluster).
      if (auto cluster = func->getAttrOfType<IntegerAttr>(
              tile::TileDialect::getClusterAttrName()))
        func->setAttr(
            NVVM::NVVMDialect::getClusterDimAttrName(),
            b.getDenseI32ArrayAttr({int32_t(cluster.getInt()), 1, 1}));
      func->removeAttr(tile::TileDialect::getKernelAttrName());
      // Which parameter each memory access reads or writes, and per
      // parameter the widest vector its accesses use (recordVectorBytes).
      func->setAttr(tile::TileDialect::getParamVectorBytesAttrName(),
                    b.getDenseI32ArrayAttr(
                        SmallVector<int32_t>(func.getNumArguments(), 0)));
      func.walk([&](Operation *op) {
        if (!isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::GatherOp,
                 tile::ScatterOp, tile::AsyncCopyOp>(op))
          return;
        auto arg =
            dyn_cast<BlockArgument>(tile::getViewedTensor(op->getOperand(0)));
        if (arg && arg.getOwner() == &func.getBody().front())
          op->setAttr(tile::TileDialect::getParamAttrName(),
                      b.getI32IntegerAttr(arg.getArgNumber()));
      });
    }
    // Warp-specialized bodies split by role once their contents are
    // lowered (which needs to know which ops the consumers run); what the
    // consumers' wgmmas need in registers is read before.
    llvm::DenseMap<Operation *, int64_t> consumerNeeds;
    module.walk([&](tile::WarpSpecializeOp ws) {
      consumerNeeds[ws] = tile::wgmmaRegistersNeeded(ws);
    });
    if (exp2Poly) {
      // The option applies to exp2 with flush_to_zero on f32 tiles only.
      for (auto func : module.getOps<func::FuncOp>()) {
        bool any = false;
        func.walk([&](tile::Exp2Op op) { any |= takesExp2Poly(op); });
        if (!any && !func.isExternal())
          emitWarning(tile::getUserFacingLoc(func))
              << "exp2_poly does not apply to kernel '" << func.getName()
              << "': it has no exp2(..., flush_to_zero=True) on an f32 tile";
      }
    }
    lowerTimestamps(module);
    if (failed(lowerTiles(module, *limits, exp2Poly)))
      return signalPassFailure();
    module.walk([&](tile::WarpSpecializeOp ws) {
      lowerWarpSpecialize(ws, occupancy, consumerNeeds.lookup(ws));
    });
    packNarrowLoopValues(module);
    if (failed(lowerToLLVM(module)))
      return signalPassFailure();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      localizeConsumerThreads(func);
    markTensorMapParameters(module);
  }

  /// A warp-specialized body becomes a branch on the thread's role. The
  /// block grows by the producer's warpgroup; with `producer_registers`,
  /// the kernel is bounded to its block size and to `occupancy` blocks per
  /// multiprocessor, or else as many as its shared memory allows (and as
  /// leave a thread at least 128 registers, and at least the `needed` of
  /// its widest wgmma: ptxas refused a 64 x 256 f32 accumulator's wgmma at
  /// 128 registers at entry, C7602, though setmaxnreg would have raised
  /// the consumers to 232), which fixes the registers a thread starts with
  /// (R); the producer warpgroup drops to `producer_registers` and the
  /// consumers rise to what that frees (at most 240), with setmaxnreg:
  ///
  ///   if tid < consumers: setmaxnreg.inc; consumer region
  ///   else:               setmaxnreg.dec
  ///                       w = (tid - consumers) / 32
  ///                       if w == 0: producer 0; if w == 1: producer 1 ...
  static void lowerWarpSpecialize(tile::WarpSpecializeOp ws, unsigned occupancy,
                                  int64_t needed) {
    auto func = ws->getParentOfType<func::FuncOp>();
    OpBuilder b(ws);
    Location loc = ws.getLoc();
    // (Every group of consumers, where they are in groups.)
    int32_t consumers = int32_t(ws.getAllConsumerThreads());
    int32_t groupThreads = int32_t(ws.getNumConsumerThreads());
    int32_t threads = consumers + 128;
    func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
    int32_t consumerRegisters = 0, producerRegisters = 0;
    if (auto producer = ws.getProducerRegisters()) {
      auto shared = func->getAttrOfType<IntegerAttr>(tile::kSharedBytesAttr);
      // Warp specialization is sm_90a's (TargetLimits.h: 228 KiB of shared
      // memory per multiprocessor, 1 KiB of it kept per block; 64 Ki
      // registers). No more blocks than leave every thread 128 registers
      // at entry, or what its widest wgmma needs where that is more (a 64 x
      // 256 f32 accumulator on one consumer warpgroup: 148).
      const tile::TargetLimits limits = *tile::TargetLimits::get("sm_90a");
      int64_t atLeast = std::max<int64_t>(128, needed);
      int64_t blocks = std::min<int64_t>(limits.registersPerMultiprocessor /
                                             (threads * atLeast),
                                         limits.blocksPerMultiprocessor);
      if (shared)
        blocks = std::min<int64_t>(
            blocks, limits.sharedBytesPerMultiprocessor /
                        (shared.getInt() + limits.reservedSharedBytesPerBlock));
      if (occupancy)
        blocks = occupancy;
      blocks = std::max<int64_t>(blocks, 1);
      int64_t atEntry = limits.registersPerThreadAt(blocks, threads);
      if (int64_t rise = tile::consumerRegistersAt(atEntry, threads, consumers,
                                                   int64_t(*producer))) {
        consumerRegisters = int32_t(rise);
        producerRegisters = int32_t(*producer);
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(int32_t(blocks)));
      }
    }
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             tid, constI32(b, loc, consumers));
    auto role = scf::IfOp::create(b, loc, isConsumer, /*withElse=*/true);
    auto inlineRegion = [](Region &from, Block *into) {
      into->getOperations().splice(Block::iterator(into->getTerminator()),
                                   from.front().getOperations());
    };
    OpBuilder thenB = role.getThenBodyBuilder();
    if (consumerRegisters)
      NVVM::SetMaxRegisterOp::create(thenB, loc, consumerRegisters,
                                     NVVM::SetMaxRegisterAction::increase);
    if (ws.getNumConsumerGroups() > 1) {
      // Each group's threads from 0 (localizeConsumerThreads, once the
      // kernel is lowered), each group's barriers its own.
      Value entry = NVVM::ThreadIdXOp::create(thenB, loc, thenB.getI32Type());
      entry.getDefiningOp()->setAttr(kConsumerEntryAttr, thenB.getUnitAttr());
      auto local = LLVM::URemOp::create(thenB, loc, entry,
                                        constI32(thenB, loc, groupThreads));
      local->setAttr(kConsumerEntryAttr, thenB.getUnitAttr());
    }
    inlineRegion(ws.getConsumer(), role.thenBlock());
    OpBuilder elseB = role.getElseBodyBuilder();
    if (producerRegisters)
      NVVM::SetMaxRegisterOp::create(elseB, loc, producerRegisters,
                                     NVVM::SetMaxRegisterAction::decrease);
    Value warp = arith::ShRUIOp::create(
        elseB, loc,
        arith::SubIOp::create(elseB, loc, tid, constI32(elseB, loc, consumers)),
        constI32(elseB, loc, 5));
    for (auto [r, region] : llvm::enumerate(ws.getProducers())) {
      Value mine =
          arith::CmpIOp::create(elseB, loc, arith::CmpIPredicate::eq, warp,
                                constI32(elseB, loc, int32_t(r)));
      auto producer = scf::IfOp::create(elseB, loc, mine);
      inlineRegion(region, producer.thenBlock());
    }
    ws.erase();
  }

  /// The TMA descriptors (the kernel's last parameters, one per
  /// tile.tensor_maps entry) are 128-byte by-value parameters, aligned to
  /// 64 and grid constants: PTX `.param .align 64 .b8 NAME[128]`, read in
  /// place through their generic address. The block's first thread
  /// prefetches each (`prefetch.tensormap`) first thing, so that fetching
  /// the descriptors runs under the barriers' initialization rather than
  /// in front of the block's first copy (CUTLASS's kernels do the same).
  static void markTensorMapParameters(ModuleOp module) {
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      auto maps = func->getAttrOfType<ArrayAttr>(
          tile::TileDialect::getTensorMapsAttrName());
      if (!maps || maps.empty())
        continue;
      MLIRContext *ctx = func.getContext();
      Builder b(ctx);
      auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
      unsigned n = func.getNumArguments();
      for (unsigned i = n - maps.size(); i < n; ++i) {
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      Block &entry = func.getBody().front();
      OpBuilder ob = OpBuilder::atBlockBegin(&entry);
      Location loc = func.getLoc();
      SmallVector<Value> operands;
      std::string text = "{\n .reg .pred p;\n .reg .b32 t;\n mov.u32 t, "
                         "%tid.x;\n setp.eq.u32 p, t, 0;\n";
      std::string constraints;
      for (unsigned i = n - maps.size(); i < n; ++i) {
        text += " @p prefetch.tensormap [$" + std::to_string(operands.size()) +
                "];\n";
        constraints += operands.empty() ? "l" : ",l";
        operands.push_back(entry.getArgument(i));
      }
      inlinePtx(ob, loc, TypeRange(), operands, text + "}", constraints);
    }
  }
};

} // namespace
