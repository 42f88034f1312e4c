//===- first_launch.cpp - Time a new process's first attention launch ----===//
//
// What a new process pays before its first flash-attention kernel has run:
//
//   tile-bench-first-launch --kernel=kernels/flash_attention.tile [--label=L]
//
// prints one JSON line with the milliseconds of each step, measured from
// main():
//
//   context  loading the driver and creating the context (deviceInfo())
//   load     compileFile(): the compile-and-load step (the compiler or the
//            disk's PTX, then the driver's JIT compile or its JIT cache)
//   launch   the launch and its completion (synchronize())
//   total    all of the above
//
// and the runtime's counters, which say where the PTX came from (compiles,
// disk_hits). Run it in fresh processes over one TILEC_CACHE_DIR and one
// CUDA_CACHE_PATH (the driver's JIT cache): both empty (cold), then both
// warm, then warm with CUDA_CACHE_DISABLE=1 (the driver compiles the PTX).
// Exits 77 without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tile/Tile.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

static double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  std::string kernelPath = "kernels/flash_attention.tile", label = "run",
              kernelName = "fmha";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--kernel=", 0) == 0)
      kernelPath = arg.substr(9);
    else if (arg.rfind("--kernel-name=", 0) == 0)
      kernelName = arg.substr(14);
    else if (arg.rfind("--label=", 0) == 0)
      label = arg.substr(8);
    else {
      std::fprintf(stderr,
                   "usage: %s [--kernel=FILE.tile] [--kernel-name=fmha] "
                   "[--label=NAME]\n",
                   argv[0]);
      return 2;
    }
  }
  auto fail = [](const char *what, const tile::Status &status) {
    std::fprintf(stderr, "error: %s: %s\n", what, status.message().c_str());
    return 1;
  };

  tile::Expected<tile::DeviceInfo> device = tile::deviceInfo();
  if (!device) {
    std::printf("SKIP: %s\n", device.status().message().c_str());
    return 77;
  }
  double contextMs = msSince(start);

  // B=1, H=8, N=512, D=128 fp16, causal: the kernel's defaults otherwise.
  const int B = 1, H = 8, N = 512, D = 128;
  tile::CompileOptions options;
  options.constants = {{"DTYPE", "f16"},
                       {"TILE_D", std::to_string(D)},
                       {"H", std::to_string(H)},
                       {"CAUSAL", "true"}};
  options.kernel = kernelName;
  auto beforeLoad = std::chrono::steady_clock::now();
  tile::Expected<tile::Kernel> kernel =
      tile::Runtime::get().compileFile(kernelPath, options);
  if (!kernel)
    return fail("compileFile", kernel.status());
  double loadMs = msSince(beforeLoad);

  size_t elements = size_t(B) * H * N * D, bytes = elements * 2;
  void *buffers[4] = {};
  for (void *&buffer : buffers) {
    tile::Expected<void *> memory = tile::deviceAlloc(bytes);
    if (!memory)
      return fail("deviceAlloc", memory.status());
    buffer = *memory;
    if (tile::Status s = tile::deviceMemset(buffer, 0, bytes); !s.ok())
      return fail("deviceMemset", s);
  }
  if (tile::Status s = tile::synchronizeDevice(); !s.ok())
    return fail("synchronizeDevice", s);
  auto beforeLaunch = std::chrono::steady_clock::now();
  auto tensor = [&](void *data) {
    return tile::Tensor::contiguous(data, tile::DType::F16, {B, H, N, D});
  };
  tile::Status status =
      kernel->launch(tile::Dim3((N + 63) / 64, B * H), nullptr,
                     {tensor(buffers[0]), tensor(buffers[1]),
                      tensor(buffers[2]), tensor(buffers[3]), 0.088f, 0});
  if (!status.ok())
    return fail("launch", status);
  if (tile::Status s = tile::synchronize(); !s.ok())
    return fail("synchronize", s);
  double launchMs = msSince(beforeLaunch);
  double totalMs = msSince(start);
  for (void *buffer : buffers)
    tile::deviceFree(buffer);

  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("{\"bench\": \"first-launch\", \"label\": \"%s\", \"gpu\": "
              "\"%s\", \"context_ms\": %.2f, \"load_ms\": %.2f, "
              "\"launch_ms\": %.2f, \"total_ms\": %.2f, \"compiles\": %llu, "
              "\"disk_hits\": %llu}\n",
              label.c_str(), device->name.c_str(), contextMs, loadMs, launchMs,
              totalMs, (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits);
  return 0;
}
