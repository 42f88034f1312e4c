//===- RuntimeTestMain.cpp - tile-runtime-tests' main ---------------------===//
//
// The runtime's unit tests (no GPU needed), one file per area:
// KernelInfoTest, ArgumentsTest, CacheTest, JITTest, CApiTest,
// AttentionTest, AutotuneTest and TensorMapTest.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

int main(int argc, char **argv) {
  // Keep the process-wide runtime's disk cache out of the user's home.
  std::string dir = temporaryDirectory("tile-runtime-test");
  setenv("TILEC_CACHE_DIR", dir.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  llvm::sys::fs::remove_directories(dir);
  return result;
}
