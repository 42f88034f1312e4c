//===- Pipeline.cpp - The pass pipelines of tilec -------------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tilec::buildTileCleanupPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void tilec::registerPipelines() {
  mlir::PassPipelineRegistration<>(
      "tile-cleanup", "Clean up freshly emitted tile IR",
      [](mlir::OpPassManager &pm) { buildTileCleanupPipeline(pm); });
}
