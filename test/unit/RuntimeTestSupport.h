//===- RuntimeTestSupport.h - What libtile's unit tests share ---*- C++ -*-===//
//
// Helpers of the runtime's unit tests (tile-runtime-tests): a flash-attention
// description, fake pointers and arguments, temporary directories, and a
// fake compiler for the JIT's caches.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_UNIT_RUNTIMETESTSUPPORT_H
#define TILE_TEST_UNIT_RUNTIMETESTSUPPORT_H

#include "RuntimeImpl.h"
#include "tile/Attention.h"
#include "tile/Autotune.h"
#include "tile/Tile.h"
#include "tile/tile.h"
#include "tilec/Target/Compile.h"
#include "tilec/Target/KernelInfo.h"

#include "KernelParams.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <thread>

using namespace tile;
using namespace tile::detail;
using tile::test::scalarParam;
using tile::test::tensorParam;
using tilec::ElementKind;
using tilec::KernelInfo;
using tilec::KernelParam;
using tilec::ScalarKind;

namespace tile::test {

/// The description of kernels/flash_attention.tile's fmha.
inline KernelInfo fmhaInfo() {
  KernelInfo info;
  info.name = "fmha";
  info.numWarps = 4;
  info.sharedBytes = 65536;
  info.arch = "sm_90a";
  for (const char *name : {"Q", "K", "V", "Out"})
    info.params.push_back(tensorParam(name, ElementKind::F16, 4));
  info.params.push_back(scalarParam("qk_scale", ScalarKind::F32));
  info.params.push_back(scalarParam("input_pos", ScalarKind::I32));
  info.constants = {{"DTYPE", "f16"}, {"TILE_D", "64"}, {"CAUSAL", "True"}};
  return info;
}

/// A fake device pointer with the given alignment (never dereferenced).
inline void *fakePointer(uintptr_t alignment) {
  return reinterpret_cast<void *>(uintptr_t(1) << 40 | alignment);
}

inline std::vector<Arg> fmhaArgs(int64_t seq = 128) {
  std::vector<Arg> args;
  for (int i = 0; i < 4; ++i)
    args.push_back(
        Tensor::contiguous(fakePointer(256), DType::F16, {2, 8, seq, 64}));
  args.push_back(0.125f);
  args.push_back(0);
  return args;
}

inline std::string temporaryDirectory(const char *prefix) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  return std::string(path);
}

inline size_t countFiles(const std::string &directory) {
  size_t count = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec))
    ++count;
  return count;
}

struct FakeCompiler {
  std::atomic<int> calls{0};
  int delayMs = 0;
  tilec::CompileRequest last; // the request of the last call

  tilec::CompileResult operator()(const tilec::CompileRequest &request) {
    ++calls;
    last = request;
    if (delayMs)
      std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    tilec::CompileResult result;
    if (request.source.find("syntax error") != std::string::npos) {
      result.diagnostics = request.bufferName + ":1:1: error: syntax error\n";
      return result;
    }
    result.ok = true;
    for (const char *name : {"k", "other"}) {
      if (!request.kernelName.empty()
              ? request.kernelName != name
              : std::strcmp(name, "other") == 0 &&
                    request.source.find("two") == std::string::npos)
        continue;
      tilec::CompiledKernel kernel;
      kernel.info.name = name;
      kernel.info.arch = request.arch;
      kernel.info.numWarps = request.numWarps.value_or(4);
      kernel.info.numStages = request.numStages.value_or(0);
      kernel.info.loopSplit = request.loopSplit.value_or(true);
      kernel.info.params = {tensorParam("A", ElementKind::F32, 1,
                                        request.tensorAlignment.value_or(16))};
      kernel.info.constants = request.defines;
      kernel.ptx = "// tilec-kernel: " + kernel.info.toJSON() +
                   "\n.version 8.0\n.target " + request.arch +
                   "\n.address_size 64\n.visible .entry " + name +
                   "() { ret; }\n";
      result.kernels.push_back(std::move(kernel));
    }
    return result;
  }
};

inline RuntimeConfig fakeConfig(const std::string &dir,
                                std::shared_ptr<FakeCompiler> compiler) {
  RuntimeConfig config;
  config.cacheDirectory = dir;
  config.compiler = [compiler](const tilec::CompileRequest &request) {
    return (*compiler)(request);
  };
  config.compilerVersion = "fake-1";
  return config;
}

inline CompileOptions
sm90(std::vector<std::pair<std::string, std::string>> constants = {}) {
  CompileOptions options;
  options.arch = "sm_90a";
  options.constants = std::move(constants);
  return options;
}

/// A contiguous tensor at its own fake address (slot << 32), so that the
/// tensors of an operation's argument checks do not overlap.
inline Tensor fakeTensor(uintptr_t slot, std::vector<int64_t> shape,
                         DType dtype) {
  return Tensor::contiguous(reinterpret_cast<void *>(slot << 32), dtype,
                            std::move(shape));
}

/// `t` as the C API's tile_tensor (borrowing its arrays).
inline tile_tensor toCTensor(const Tensor &t) {
  tile_tensor r;
  r.data = t.data;
  r.dtype = static_cast<tile_dtype>(t.dtype);
  r.rank = static_cast<int32_t>(t.shape.size());
  r.shape = t.shape.data();
  r.strides = t.strides.data();
  return r;
}

} // namespace tile::test

using namespace tile::test;

#endif // TILE_TEST_UNIT_RUNTIMETESTSUPPORT_H
