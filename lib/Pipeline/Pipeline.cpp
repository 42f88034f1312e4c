//===- Pipeline.cpp - The pass pipelines of tilec -------------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "Tile/Transforms/Passes.h"
#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tilec::buildTileCleanupPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::buildLayoutPipeline(mlir::OpPassManager &pm,
                                const CodegenOptions &options) {
  mlir::OpPassManager &fpm = pm.nest<mlir::func::FuncOp>();
  mlir::tile::TileAssignLayoutsOptions layoutOptions;
  layoutOptions.numWarps = options.numWarps;
  layoutOptions.vectorBytes = std::min(16u, options.tensorAlignment);
  fpm.addPass(mlir::tile::createTileAssignLayouts(layoutOptions));
  fpm.addPass(mlir::createCanonicalizerPass());
  fpm.addPass(mlir::tile::createTileRemoveLayoutConversions());
  // Conversions of loop-invariant values (the Q tile of attention) leave
  // the loop.
  fpm.addPass(mlir::createLoopInvariantCodeMotionPass());
  fpm.addPass(mlir::createCSEPass());
  fpm.addPass(mlir::tile::createTileStageMmaOperands());
}

void tilec::buildLowerToLLVMPipeline(mlir::OpPassManager &pm) {
  pm.addPass(tilec::createConvertTileToLLVM());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::registerPipelines() {
  mlir::PassPipelineRegistration<>(
      "tile-to-llvm", "Assign layouts and lower tile IR to LLVM/NVVM",
      [](mlir::OpPassManager &pm) {
        buildLayoutPipeline(pm, CodegenOptions());
        buildLowerToLLVMPipeline(pm);
      });
  mlir::PassPipelineRegistration<>(
      "tile-cleanup", "Clean up freshly emitted tile IR",
      [](mlir::OpPassManager &pm) { buildTileCleanupPipeline(pm); });
}
