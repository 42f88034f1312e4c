//===- TensorMapGpuTest.cpp - TMA descriptors with the real driver --------===//
//
// Two parts:
//
//   [driver] the runtime's tensor-map code (lib/Runtime/TensorMap.cpp and
//            CudaDriver.cpp, compiled into this program) with the driver's
//            own cuTensorMapEncodeTiled, fetched through the dlopen-ed
//            driver table: descriptors for several ranks, element types,
//            swizzles, fills and strided views of real device memory must
//            encode (CUDA_SUCCESS); the cache must hand back the very bytes
//            the driver wrote; encodings the driver refuses must give a
//            message that names the call, the CUDA error and the arguments.
//            It also times one encode and one cache hit.
//   [aot]    libtile.so's public API on a kernel description that carries
//            tensor maps, loaded from a .ptx file with tile_load_ptx: the
//            kernel reports them and every launch builds them. Until tilec
//            emits TMA kernels, the PTX is tilec's vector_add with tensor
//            maps for A and B added to its `// tilec-kernel:` line: the
//            driver takes a kernel's parameter layout from its entry, so the
//            descriptors are built and passed but the kernel does not read
//            them, and its output is checked as usual.
//
//   tile-tensormap-gpu-tests --kernels=DIR
//
// Exit 0: all passed; 1: a failure; 77: no GPU, or one older than sm_90
// (tensor maps need compute capability 9.0).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "RuntimeImpl.h"
#include "TensorMap.h"

#include "tile/Tile.h"
#include "tile/tile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tile;
using namespace tile::detail;

namespace {

int passes = 0, failures = 0;

void result(const std::string &name, bool ok, const std::string &detail = "") {
  std::printf("%-60s %s%s%s\n", name.c_str(), ok ? "PASS" : "FAIL",
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
  ++(ok ? passes : failures);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

tilec::KernelParam tensorParam(tilec::ElementKind element, unsigned rank) {
  tilec::KernelParam param;
  param.name = "T";
  param.isTensor = true;
  param.element = element;
  param.rank = rank;
  param.alignment = 16;
  param.contiguous = true;
  return param;
}

DType toDType(tilec::ElementKind kind) {
  switch (kind) {
  case tilec::ElementKind::F16:
    return DType::F16;
  case tilec::ElementKind::BF16:
    return DType::BF16;
  case tilec::ElementKind::I32:
    return DType::I32;
  default:
    return DType::F32;
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

//===----------------------------------------------------------------------===//
// [driver]
//===----------------------------------------------------------------------===//

struct Shape {
  const char *name;
  tilec::ElementKind element;
  std::vector<int64_t> shape, strides; // elements
  std::vector<unsigned> box;
  unsigned swizzle;
  tilec::TensorMapFill fill;
};

void driverTests(const CudaDriver &driver, CUdeviceptr memory) {
  void *base = reinterpret_cast<void *>(memory);
  using tilec::ElementKind;
  using tilec::TensorMapFill;
  const Shape shapes[] = {
      {"f16 rank 2, 128B swizzle (a GEMM operand)",
       ElementKind::F16,
       {1000, 4096},
       {4096, 1},
       {128, 64},
       128,
       TensorMapFill::Zero},
      {"f16 rank 4, 128B swizzle (attention Q/K/V)",
       ElementKind::F16,
       {4, 32, 1024, 128},
       {32 * 1024 * 128, 1024 * 128, 128, 1},
       {1, 1, 64, 64},
       128,
       TensorMapFill::Zero},
      {"bf16 rank 4, permuted view, 64B swizzle, nan fill",
       ElementKind::BF16,
       {2, 100, 8, 64},
       {100 * 8 * 72, 72, 100 * 72, 1},
       {1, 64, 1, 32},
       64,
       TensorMapFill::NaN},
      {"f32 rank 1, box 256, no swizzle",
       ElementKind::F32,
       {100000},
       {1},
       {256},
       0,
       TensorMapFill::Zero},
      {"f32 rank 3, 32B swizzle, ragged sizes",
       ElementKind::F32,
       {3, 77, 33},
       {77 * 36, 36, 1},
       {2, 16, 8},
       32,
       TensorMapFill::NaN},
      {"i32 rank 5, box of ones outside",
       ElementKind::I32,
       {2, 2, 2, 2, 64},
       {512, 256, 128, 64, 1},
       {1, 1, 1, 2, 4},
       0,
       TensorMapFill::Zero},
      {"f16 rank 2, size-1 outer dimension with odd stride",
       ElementKind::F16,
       {1, 64},
       {3, 1},
       {1, 64},
       128,
       TensorMapFill::Zero},
  };
  for (const Shape &s : shapes) {
    std::string name = std::string("[driver] encode ") + s.name;
    tilec::KernelInfo info;
    info.name = "k";
    info.params = {tensorParam(s.element, s.shape.size())};
    tilec::TensorMapInfo map;
    map.box = s.box;
    map.swizzle = s.swizzle;
    map.fill = s.fill;
    info.tensorMaps = {map};
    std::string problem = tilec::tensorMapProblem(map, info.params[0]);
    ArgRef arg;
    arg.kind = Arg::Kind::Tensor;
    arg.data = base;
    arg.dtype = toDType(s.element);
    arg.shape = s.shape.data();
    arg.strides = s.strides.data();
    arg.shapeSize = arg.stridesSize = s.shape.size();
    if (problem.empty())
      problem = tensorMapArgumentProblem(map, info.params[0], arg);
    if (!problem.empty()) {
      result(name, false, "the runtime refuses it: " + problem);
      continue;
    }
    TensorMapEncoding encoding;
    describeTensorMap(map, info.params[0], arg, encoding);
    alignas(64) CUtensorMap direct, cached, again;
    CUresult code = encoding.encode(driver.cuTensorMapEncodeTiled, direct);
    if (code != CUDA_SUCCESS) {
      result(name, false,
             driver.errorText(code, "cuTensorMapEncodeTiled") + " for the " +
                 encoding.describe());
      continue;
    }
    // Through the cache: a miss, then a hit, both the driver's bytes.
    TensorMapCache cache;
    Status miss =
        cache.get(info, 0, arg, driver.cuTensorMapEncodeTiled, &driver, cached);
    Status hit =
        cache.get(info, 0, arg, driver.cuTensorMapEncodeTiled, &driver, again);
    bool ok = miss.ok() && hit.ok() &&
              !std::memcmp(&direct, &cached, sizeof(CUtensorMap)) &&
              !std::memcmp(&direct, &again, sizeof(CUtensorMap)) &&
              cache.stats().hits == 1 && cache.stats().misses == 1;
    result(name, ok, ok ? "" : miss.message() + hit.message());
  }

  // What the driver refuses, built past the runtime's checks: the message.
  struct Bad {
    const char *name;
    std::vector<int64_t> shape, strides;
    std::vector<unsigned> box;
    unsigned swizzle;
    uintptr_t offset;
  } bads[] = {
      {"a stride that is not a multiple of 16 bytes",
       {64, 100},
       {100, 1},
       {8, 64},
       128,
       0},
      {"a box row wider than the swizzle",
       {64, 256},
       {256, 1},
       {8, 128},
       64,
       0},
      {"a misaligned base", {64, 64}, {64, 1}, {8, 64}, 128, 8},
  };
  for (const Bad &b : bads) {
    std::string name = std::string("[driver] refuses ") + b.name;
    tilec::KernelInfo info;
    info.name = "k";
    info.params = {tensorParam(tilec::ElementKind::F16, 2)};
    tilec::TensorMapInfo map;
    map.box = b.box;
    map.swizzle = b.swizzle;
    info.tensorMaps = {map};
    ArgRef arg;
    arg.kind = Arg::Kind::Tensor;
    arg.data = static_cast<char *>(base) + b.offset;
    arg.dtype = DType::F16;
    arg.shape = b.shape.data();
    arg.strides = b.strides.data();
    arg.shapeSize = arg.stridesSize = 2;
    // The runtime's own checks catch each of them first.
    std::string problem = tilec::tensorMapProblem(map, info.params[0]);
    if (problem.empty())
      problem = tensorMapArgumentProblem(map, info.params[0], arg);
    TensorMapCache cache;
    alignas(64) CUtensorMap out;
    Status status =
        cache.get(info, 0, arg, driver.cuTensorMapEncodeTiled, &driver, out);
    bool ok = !problem.empty() && !status.ok() &&
              contains(status.message(), "cuTensorMapEncodeTiled failed: "
                                         "CUDA_ERROR_INVALID_VALUE") &&
              contains(status.message(), "tensor map at 0x") &&
              cache.stats().misses == 0;
    result(name, ok, status.message() + " | runtime check: " + problem);
  }

  // Timing: one encode, one cache hit.
  {
    tilec::KernelInfo info;
    info.name = "k";
    info.params = {tensorParam(tilec::ElementKind::F16, 4)};
    tilec::TensorMapInfo map;
    map.box = {1, 1, 64, 64};
    map.swizzle = 128;
    info.tensorMaps = {map};
    int64_t shape[4] = {4, 32, 1024, 128};
    int64_t strides[4] = {32 * 1024 * 128, 1024 * 128, 128, 1};
    ArgRef arg;
    arg.kind = Arg::Kind::Tensor;
    arg.data = base;
    arg.dtype = DType::F16;
    arg.shape = shape;
    arg.strides = strides;
    arg.shapeSize = arg.stridesSize = 4;
    TensorMapEncoding encoding;
    describeTensorMap(map, info.params[0], arg, encoding);
    alignas(64) CUtensorMap out;
    std::vector<double> encodes, hits;
    for (int i = 0; i < 2000; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      encoding.encode(driver.cuTensorMapEncodeTiled, out);
      auto t1 = std::chrono::steady_clock::now();
      encodes.push_back(
          std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    TensorMapCache cache;
    cache.get(info, 0, arg, driver.cuTensorMapEncodeTiled, &driver, out);
    for (int i = 0; i < 2000; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      cache.get(info, 0, arg, driver.cuTensorMapEncodeTiled, &driver, out);
      auto t1 = std::chrono::steady_clock::now();
      hits.push_back(
          std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    char text[128];
    std::snprintf(text, sizeof(text),
                  "median %.3f us per cuTensorMapEncodeTiled, %.3f us per "
                  "cache hit",
                  median(encodes), median(hits));
    result("[driver] timing", cache.stats().hits == 2000, text);
  }
}

//===----------------------------------------------------------------------===//
// [aot]
//===----------------------------------------------------------------------===//

/// `ptx` with `tensorMaps` (a JSON array) added to its description.
std::string withTensorMaps(const std::string &ptx, const std::string &maps) {
  size_t lineEnd = ptx.find('\n');
  size_t close = ptx.rfind('}', lineEnd);
  return ptx.substr(0, close) + ",\"tensor_maps\":" + maps +
         ",\"tma_fallback\":[\"C: stores do not use TMA\"]" + ptx.substr(close);
}

void aotTests(const std::string &kernels) {
  Expected<DeviceInfo> device = deviceInfo();
  if (!device) {
    result("[aot] device", false, device.status().message());
    return;
  }
  std::ifstream file(kernels + "/vector_add.tile");
  std::stringstream source;
  source << file.rdbuf();
  CompileOptions options;
  options.arch = device->arch;
  options.constants = {{"DTYPE", "f32"}, {"TILE", "1024"}};
  Expected<std::string> ptx = Runtime::get().compileToPTX(
      source.str(), kernels + "/vector_add.tile", options);
  if (!ptx) {
    result("[aot] compile vector_add", false, ptx.status().message());
    return;
  }
  std::string described = withTensorMaps(
      *ptx, R"([{"param":0,"box":[256],"swizzle":0,"fill":"zero"},)"
            R"({"param":1,"box":[256],"swizzle":0,"fill":"nan"}])");
  char path[] = "/tmp/tile-tensormap-XXXXXX.ptx";
  int fd = mkstemps(path, 4);
  if (fd < 0 || write(fd, described.data(), described.size()) !=
                    static_cast<ssize_t>(described.size())) {
    result("[aot] write the .ptx file", false, path);
    return;
  }
  close(fd);

  tile_kernel kernel = nullptr;
  int rc = tile_load_ptx(path, &kernel);
  unlink(path);
  result("[aot] tile_load_ptx", rc == TILE_OK,
         rc == TILE_OK ? "" : tile_last_error());
  if (rc != TILE_OK)
    return;
  result("[aot] the description's tensor maps",
         tile_kernel_num_tensor_maps(kernel) == 2 &&
             tile_kernel_num_tma_fallbacks(kernel) == 1 &&
             std::string(tile_kernel_tma_fallback(kernel, 0)) ==
                 "C: stores do not use TMA");

  const int64_t n = 5000;
  Expected<void *> memory = deviceAlloc(3 * 8192 * sizeof(float));
  if (!memory) {
    result("[aot] allocate", false, memory.status().message());
    return;
  }
  float *a = static_cast<float *>(*memory), *b = a + 8192, *c = b + 8192;
  std::vector<float> ha(n), hb(n), hc(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    ha[i] = float(i % 97) * 0.5f;
    hb[i] = float(i % 13) - 6;
  }
  copyToDevice(a, ha.data(), n * sizeof(float));
  copyToDevice(b, hb.data(), n * sizeof(float));

  int64_t shape[1] = {n}, strides[1] = {1};
  auto tensorArg = [&](void *data, int64_t *s) {
    tile_arg arg;
    arg.kind = TILE_ARG_TENSOR;
    arg.value.tensor.data = data;
    arg.value.tensor.dtype = TILE_F32;
    arg.value.tensor.rank = 1;
    arg.value.tensor.shape = s;
    arg.value.tensor.strides = strides;
    return arg;
  };
  tile_arg args[3] = {tensorArg(a, shape), tensorArg(b, shape),
                      tensorArg(c, shape)};
  unsigned grid = (n + 1023) / 1024;
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) // a miss, then hits
    ok = tile_kernel_launch(kernel, grid, 1, 1, nullptr, args, 3) == TILE_OK;
  std::string error = ok ? "" : tile_last_error();
  Status sync = synchronizeDevice();
  copyToHost(hc.data(), c, n * sizeof(float));
  for (int64_t i = 0; i < n && ok; ++i)
    ok = hc[i] == ha[i] + hb[i];
  result("[aot] launch with descriptors, output", ok && sync.ok(),
         error + sync.message());

  // A tensor TMA cannot describe, an empty one, on a grid that runs: its
  // descriptor describes a zeroed stand-in; A reads as zeros.
  int64_t none[1] = {0};
  tile_arg emptyArgs[3] = {tensorArg(a, none), tensorArg(b, shape),
                           tensorArg(c, shape)};
  std::fill(hc.begin(), hc.end(), -1.0f);
  copyToDevice(c, hc.data(), n * sizeof(float));
  rc = tile_kernel_launch(kernel, 1, 1, 1, nullptr, emptyArgs, 3);
  std::string message = rc == TILE_OK ? "" : tile_last_error();
  sync = synchronizeDevice();
  copyToHost(hc.data(), c, n * sizeof(float));
  ok = rc == TILE_OK && sync.ok();
  for (int64_t i = 0; i < 1024 && ok; ++i)
    ok = hc[i] == hb[i];
  result("[aot] an empty tensor launches on a stand-in descriptor", ok,
         message + sync.message());
  result("[aot] ... and an empty grid is fine",
         tile_kernel_launch(kernel, 0, 1, 1, nullptr, emptyArgs, 3) == TILE_OK);

  // The same PTX text through the C++ API, on a stream, from a thread of
  // its own and this one at once.
  Expected<Kernel> loaded = Runtime::get().loadPTX(described);
  ok = loaded && loaded->numTensorMaps() == 2;
  if (ok) {
    std::vector<Arg> cargs = {Tensor::contiguous(a, DType::F32, {n}),
                              Tensor::contiguous(b, DType::F32, {n}),
                              Tensor::contiguous(c, DType::F32, {n})};
    Status first, second;
    std::thread other([&] {
      for (int i = 0; i < 200 && first.ok(); ++i)
        first = loaded->launch(Dim3(grid), nullptr, cargs);
    });
    for (int i = 0; i < 200 && second.ok(); ++i)
      second = loaded->launch(Dim3(grid), nullptr, cargs);
    other.join();
    Status done = synchronizeDevice();
    ok = first.ok() && second.ok() && done.ok();
    error = first.message() + second.message() + done.message();
  } else {
    error = loaded ? "no tensor maps" : loaded.status().message();
  }
  result("[aot] Runtime::loadPTX, launches from two threads", ok, error);
  deviceFree(*memory);
}

} // namespace

int main(int argc, char **argv) {
  std::string kernels;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--kernels=", 0) == 0)
      kernels = arg.substr(10);
    else {
      std::fprintf(stderr, "usage: %s --kernels=DIR\n", argv[0]);
      return 2;
    }
  }
  if (kernels.empty()) {
    std::fprintf(stderr, "usage: %s --kernels=DIR\n", argv[0]);
    return 2;
  }

  std::string error;
  const CudaDriver *driver = CudaDriver::get(error);
  if (!driver) {
    std::printf("SKIP: %s\n", error.c_str());
    return 77;
  }
  CUdevice device;
  CUcontext context;
  int major = 0;
  if (driver->cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      driver->cuDeviceGetAttribute(&major,
                                   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   device) != CUDA_SUCCESS) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (major < 9) {
    std::printf("SKIP: tensor maps need compute capability 9.0; device 0 has "
                "%d.x\n",
                major);
    return 77;
  }
  result("[driver] the table has cuTensorMapEncodeTiled",
         driver->cuTensorMapEncodeTiled != nullptr);
  if (!driver->cuTensorMapEncodeTiled)
    return 1;
  CUdeviceptr memory = 0;
  CUresult code = driver->cuDevicePrimaryCtxRetain(&context, device);
  if (code == CUDA_SUCCESS)
    code = driver->cuCtxSetCurrent(context);
  if (code == CUDA_SUCCESS)
    code = driver->cuMemAlloc_v2(&memory, size_t(64) << 20);
  if (code != CUDA_SUCCESS) {
    result("[driver] context and memory", false,
           driver->errorText(code, "setting up"));
    return 1;
  }
  driverTests(*driver, memory);
  driver->cuMemFree_v2(memory);

  aotTests(kernels);
  std::printf("\n%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
