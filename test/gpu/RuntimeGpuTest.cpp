//===- RuntimeGpuTest.cpp - libtile's runtime on a real GPU ---------------===//
//
// Drives the runtime with kernels written by hand to the kernel ABI
// (Inputs/abi_kernels.cu, compiled to Inputs/echo.ptx and axpy.ptx), so that
// it needs no code generator:
//   - echo: every parameter arrives as packed (pointers, sizes, strides,
//     float, int, bool), with the block and grid asked for;
//   - axpy: strided tensors, more than 48 KB of dynamic shared memory;
//   - the JIT path and its alignment variants, with a stand-in compiler
//     that hands out axpy's PTX;
//   - launches from several threads, the C API, events, and the errors for
//     bad PTX, too much shared memory, a missing entry, misaligned tensors.
//
//   tile-runtime-gpu-tests INPUTS_DIR [--seed=N]
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "RuntimeImpl.h"
#include "tile/Tile.h"
#include "tile/tile.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

using namespace gputest;
using tile::Arg;
using tile::DType;
using tile::Kernel;
using tile::Tensor;

static int failures = 0;
static int passes = 0;

static void result(const std::string &name, bool ok,
                   const std::string &detail = "") {
  std::printf("%-64s %s%s%s\n", name.c_str(), ok ? "PASS" : "FAIL",
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
  (ok ? passes : failures)++;
}

static bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

static std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Replaces the first line (the `// tilec-kernel:` header) of `ptx`.
static std::string withHeader(const std::string &ptx,
                              const tilec::KernelInfo &info) {
  return "// tilec-kernel: " + info.toJSON() + ptx.substr(ptx.find('\n'));
}

static void testEcho(const std::string &inputs, std::mt19937_64 &rng) {
  Kernel echo =
      checkValue(tile::Runtime::get().loadPTXFile(inputs + "/echo.ptx"),
                 "loadPTXFile(echo.ptx)");
  result("runtime/load-aot-ptx", echo.name() == "echo" &&
                                     echo.numWarps() == 1 &&
                                     echo.params().size() == 6);

  // A: 3 x 5 f32 in rows of 8; H: 7 f16 at stride 2.
  HostTensor a(DType::F32, 3 * 8), h(DType::F16, 14);
  for (size_t i = 0; i < a.size(); ++i)
    a.set(i, static_cast<double>(rng() % 1000));
  for (size_t i = 0; i < h.size(); ++i)
    h.set(i, static_cast<double>(rng() % 1000));
  DeviceBuffer da(a.bytes.size()), dh(h.bytes.size()), dout(18 * 4);
  da.upload(a);
  dh.upload(h);
  dout.poison();
  float s = 1.5f + static_cast<float>(rng() % 100);
  int i = -static_cast<int>(rng() % 1000);
  std::vector<Arg> args = {Tensor(da.get(), DType::F32, {3, 5}, {8, 1}),
                           Tensor(dh.get(), DType::F16, {7}, {2}),
                           s,
                           i,
                           true,
                           Tensor(dout.get(), DType::I32, {18}, {1})};
  check(echo.launch(tile::Dim3(2, 3), nullptr, args), "launch echo");
  check(tile::synchronize(), "synchronize");
  HostTensor out(DType::I32, 18);
  dout.download(out);
  uint16_t hLast;
  std::memcpy(&hLast, &h.bytes[12 * 2], 2);
  int32_t expected[18] = {
      static_cast<int32_t>(reinterpret_cast<uintptr_t>(da.get()) & 0x7fffffff),
      3,
      5,
      8,
      1,
      static_cast<int32_t>(reinterpret_cast<uintptr_t>(dh.get()) & 0x7fffffff),
      7,
      2,
      static_cast<int32_t>(floatToBits(s)),
      i,
      1,
      32,
      2,
      3,
      18,
      1,
      static_cast<int32_t>(a.get(2 * 8 + 4)),
      static_cast<int32_t>(hLast)};
  std::string mismatches;
  for (int k = 0; k < 18; ++k)
    if (static_cast<int32_t>(out.get(k)) != expected[k])
      mismatches += " [" + std::to_string(k) + "] got " +
                    std::to_string(static_cast<int32_t>(out.get(k))) +
                    " expected " + std::to_string(expected[k]);
  result("runtime/abi-packing (echo: pointers, sizes, strides, scalars)",
         mismatches.empty(), mismatches);

  // A fresh thread, with no CUDA context current, launches directly.
  dout.poison();
  tile::Status threadStatus;
  std::thread([&] {
    threadStatus = echo.launch(tile::Dim3(2, 3), nullptr, args);
    if (threadStatus.ok())
      threadStatus = tile::synchronize();
  }).join();
  dout.download(out);
  result("runtime/launch-from-a-new-thread",
         threadStatus.ok() && static_cast<int32_t>(out.get(9)) == i,
         threadStatus.message());

  // The C API, with tagged arguments.
  tile_kernel cEcho = nullptr;
  if (tile_load_ptx((inputs + "/echo.ptx").c_str(), &cEcho) != TILE_OK) {
    result("runtime/c-api", false, tile_last_error());
    return;
  }
  int64_t aShape[2] = {3, 5}, aStrides[2] = {8, 1}, hShape[1] = {7},
          hStrides[1] = {2}, oShape[1] = {18}, oStrides[1] = {1};
  tile_arg cArgs[6];
  cArgs[0].kind = TILE_ARG_TENSOR;
  cArgs[0].value.tensor = {da.get(), TILE_F32, 2, aShape, aStrides};
  cArgs[1].kind = TILE_ARG_TENSOR;
  cArgs[1].value.tensor = {dh.get(), TILE_F16, 1, hShape, hStrides};
  cArgs[2].kind = TILE_ARG_FLOAT;
  cArgs[2].value.f = s;
  cArgs[3].kind = TILE_ARG_INT;
  cArgs[3].value.i = i;
  cArgs[4].kind = TILE_ARG_BOOL;
  cArgs[4].value.b = 1;
  cArgs[5].kind = TILE_ARG_TENSOR;
  cArgs[5].value.tensor = {dout.get(), TILE_I32, 1, oShape, oStrides};
  dout.poison();
  bool ok = tile_kernel_launch(cEcho, 2, 3, 1, nullptr, cArgs, 6) == TILE_OK;
  std::string detail = ok ? "" : tile_last_error();
  check(tile::synchronize(), "synchronize");
  dout.download(out);
  for (int k = 0; ok && k < 18; ++k)
    ok = static_cast<int32_t>(out.get(k)) == expected[k];
  result("runtime/c-api (tile_load_ptx, tile_kernel_launch)", ok, detail);
  result("runtime/same-file-same-handle",
         cEcho == reinterpret_cast<tile_kernel>(echo.get()));

  // Launch overhead, for information.
  auto start = std::chrono::steady_clock::now();
  const int launches = 20000;
  for (int k = 0; k < launches; ++k)
    check(echo.launch(tile::Dim3(1), nullptr, args), "launch echo");
  auto end = std::chrono::steady_clock::now();
  check(tile::synchronize(), "synchronize");
  std::printf("runtime/launch-overhead: %.2f us per Kernel::launch (host "
              "side, 6 arguments)\n",
              std::chrono::duration<double, std::micro>(end - start).count() /
                  launches);
}

/// Y += alpha X on the host, in float64, for the given layouts.
struct Axpy {
  int64_t rows, cols;
  std::vector<int64_t> xStrides, yStrides;
  HostTensor x, y0;
  float alpha;
  DeviceBuffer dx, dy;

  Axpy(int64_t rows, int64_t cols, std::vector<int64_t> xs,
       std::vector<int64_t> ys, std::mt19937_64 &rng)
      : rows(rows), cols(cols), xStrides(std::move(xs)),
        yStrides(std::move(ys)) {
    size_t xSpan = (rows - 1) * xStrides[0] + (cols - 1) * xStrides[1] + 1;
    size_t ySpan = (rows - 1) * yStrides[0] + (cols - 1) * yStrides[1] + 1;
    x = HostTensor(DType::F32, xSpan);
    y0 = HostTensor(DType::F32, ySpan + 1); // +1: room for an offset view
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (size_t i = 0; i < x.size(); ++i)
      x.set(i, uniform(rng));
    for (size_t i = 0; i < y0.size(); ++i)
      y0.set(i, uniform(rng));
    alpha = static_cast<float>(uniform(rng));
    dx = DeviceBuffer(x.bytes.size());
    dy = DeviceBuffer(y0.bytes.size());
    dx.upload(x);
  }

  /// Y's tensor, `offset` elements into its buffer.
  std::vector<Arg> args(int64_t offset = 0) {
    dy.upload(y0);
    return {Tensor(dx.get(), DType::F32, {rows, cols}, xStrides),
            Tensor(static_cast<float *>(dy.get()) + offset, DType::F32,
                   {rows, cols}, yStrides),
            alpha};
  }
  unsigned blocks() const {
    return static_cast<unsigned>((rows * cols + 127) / 128);
  }

  ErrorStats verify(int64_t offset = 0) {
    check(tile::synchronize(), "synchronize");
    HostTensor y(DType::F32, y0.size());
    dy.download(y);
    ErrorMeter meter;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        size_t yi = offset + r * yStrides[0] + c * yStrides[1];
        double ref = double(alpha) * x.get(r * xStrides[0] + c * xStrides[1]) +
                     y0.get(yi);
        meter.add(y.get(yi), ref, yi);
      }
    return meter.finish();
  }
};

static void testAxpy(const std::string &inputs, std::mt19937_64 &rng) {
  Kernel axpy =
      checkValue(tile::Runtime::get().loadPTXFile(inputs + "/axpy.ptx"),
                 "loadPTXFile(axpy.ptx)");
  // X column-major (any strides), Y in padded rows (16-byte aligned).
  Axpy column(100, 37, {1, 100}, {40, 1}, rng);
  check(axpy.launch(column.blocks(), nullptr, column.args()), "launch axpy");
  report("runtime/strided-tensors+100KB-dynamic-shared (axpy f32)",
         column.verify(), 1e-6)
      ? ++passes
      : ++failures;

  // Y's rows of 37 floats are not 16-byte aligned: an AOT kernel cannot be
  // recompiled, so the launch must say so.
  Axpy packed(100, 37, {37, 1}, {37, 1}, rng);
  tile::Status status = axpy.launch(packed.blocks(), nullptr, packed.args());
  result("runtime/aot-misaligned-is-a-clear-error",
         !status.ok() &&
             contains(status.message(),
                      "kernel 'axpy': argument 2 ('Y'): strides[0] = 37 "
                      "elements (148 bytes) is not a multiple of 16 bytes"),
         status.message());

  // Timing with events.
  tile::Event start = checkValue(tile::Event::create(), "Event::create");
  tile::Event stop = checkValue(tile::Event::create(), "Event::create");
  Axpy big(4096, 1024, {1024, 1}, {1024, 1}, rng);
  std::vector<Arg> args = big.args();
  check(start.record(), "record");
  for (int k = 0; k < 10; ++k)
    check(axpy.launch(big.blocks(), nullptr, args), "launch axpy");
  check(stop.record(), "record");
  check(stop.synchronize(), "event synchronize");
  float ms = checkValue(stop.elapsedMsSince(start), "elapsed");
  result("runtime/events (10 axpy launches: " + std::to_string(ms) + " ms)",
         ms > 0 && std::isfinite(ms));

  // Launches from several threads at once, each on its own stream.
  std::atomic<int> threadFailures{0};
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<Axpy>> work;
  for (int t = 0; t < 4; ++t)
    work.push_back(std::make_unique<Axpy>(64 + t, 129,
                                          std::vector<int64_t>{129, 1},
                                          std::vector<int64_t>{132, 1}, rng));
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      tile::Expected<tile::Stream> stream = tile::createStream();
      if (!stream) {
        ++threadFailures;
        return;
      }
      std::vector<Arg> threadArgs = work[t]->args();
      for (int k = 0; k < 50; ++k) {
        // Y += alpha X fifty times over.
        if (!axpy.launch(work[t]->blocks(), *stream, threadArgs).ok())
          ++threadFailures;
      }
      if (!tile::synchronize(*stream).ok() ||
          !tile::destroyStream(*stream).ok())
        ++threadFailures;
    });
  for (std::thread &thread : threads)
    thread.join();
  bool ok = threadFailures == 0;
  for (int t = 0; t < 4 && ok; ++t) {
    Axpy &w = *work[t];
    HostTensor y(DType::F32, w.y0.size());
    w.dy.download(y);
    ErrorMeter meter;
    for (int64_t r = 0; r < w.rows; ++r)
      for (int64_t c = 0; c < w.cols; ++c) {
        size_t yi = r * 132 + c;
        float expect = static_cast<float>(w.y0.get(yi));
        for (int k = 0; k < 50; ++k)
          expect += w.alpha * static_cast<float>(w.x.get(r * 129 + c));
        meter.add(y.get(yi), expect, yi);
      }
    ok = meter.finish().passes(1e-5);
  }
  result("runtime/threads (4 threads x 50 launches, own streams)", ok);
}

/// The JIT path, with a compiler that hands out axpy's PTX described for
/// the requested tensor alignment.
static void testJitVariants(const std::string &inputs, std::mt19937_64 &rng) {
  std::string axpyPTX = readFile(inputs + "/axpy.ptx");
  std::string error;
  std::optional<tilec::KernelInfo> info = tilec::KernelInfo::fromJSON(
      axpyPTX.substr(17, axpyPTX.find('\n') - 17), error);
  if (!info) {
    result("runtime/jit-alignment-variants", false, error);
    return;
  }
  std::atomic<int> compiles{0};
  tile::detail::RuntimeConfig config;
  config.compilerVersion = "axpy-stand-in";
  config.compiler = [&](const tilec::CompileRequest &request) {
    ++compiles;
    tilec::CompileResult result;
    result.ok = true;
    tilec::CompiledKernel kernel;
    kernel.info = *info;
    kernel.info.arch = request.arch;
    kernel.info.params[1].alignment = request.tensorAlignment;
    kernel.ptx = withHeader(axpyPTX, kernel.info);
    result.kernels.push_back(kernel);
    return result;
  };
  tile::detail::RuntimeImpl runtime(config);
  tile::Runtime jit(&runtime);
  // An empty arch: the current GPU's.
  tile::Expected<Kernel> axpy = jit.compileSource("axpy source", "axpy.tile");
  if (!axpy) {
    result("runtime/jit-alignment-variants", false, axpy.status().message());
    return;
  }
  tile::DeviceInfo device = checkValue(tile::deviceInfo(), "deviceInfo");
  result("runtime/jit-arch-of-current-gpu", axpy->arch() == device.arch,
         axpy->arch());

  // Rows of 37 floats: 4-byte aligned. The launch compiles a variant.
  Axpy packed(100, 37, {37, 1}, {37, 1}, rng);
  tile::Status status = axpy->launch(packed.blocks(), nullptr, packed.args());
  bool ok = status.ok() && report("runtime/jit-alignment-variant (4-byte rows)",
                                  packed.verify(), 1e-6);
  ok = ok && runtime.stats().alignmentVariants == 1 && compiles == 2;
  // The same again: no compile.
  status = axpy->launch(packed.blocks(), nullptr, packed.args(1));
  ok = ok && status.ok() && packed.verify(1).passes(1e-6) && compiles == 2;
  result("runtime/jit-alignment-variants (compiled once, reused)", ok,
         status.message() + " compiles=" + std::to_string(compiles.load()));
  // An aligned launch still uses the 16-byte kernel.
  Axpy aligned(100, 37, {40, 1}, {40, 1}, rng);
  status = axpy->launch(aligned.blocks(), nullptr, aligned.args());
  result("runtime/jit-aligned-after-variant",
         status.ok() && aligned.verify().passes(1e-6) && compiles == 2,
         status.message());
  tile::Expected<Kernel> again = jit.compileSource("axpy source", "axpy.tile");
  result("runtime/jit-memory-hit",
         again && again->get() == axpy->get() && compiles == 2);
}

static void testLoadErrors(const std::string &inputs) {
  std::string axpyPTX = readFile(inputs + "/axpy.ptx");
  std::string error;
  tilec::KernelInfo info = *tilec::KernelInfo::fromJSON(
      axpyPTX.substr(17, axpyPTX.find('\n') - 17), error);
  tile::Runtime &runtime = tile::Runtime::get();

  tilec::KernelInfo bad = info;
  tile::Expected<Kernel> kernel =
      runtime.loadPTX(withHeader(axpyPTX, bad) + "\nthis is not PTX;\n");
  result("runtime/bad-ptx-reports-jit-log",
         !kernel &&
             contains(kernel.status().message(), "cuModuleLoadDataEx failed: "
                                                 "CUDA_ERROR_INVALID_PTX") &&
             contains(kernel.status().message(), "JIT log:"),
         kernel ? "loaded" : kernel.status().message());

  bad = info;
  bad.sharedBytes = 1 << 20;
  kernel = runtime.loadPTX(withHeader(axpyPTX, bad));
  result("runtime/too-much-shared-memory",
         !kernel && contains(kernel.status().message(),
                             "bytes of shared memory per block; the device "
                             "allows"),
         kernel ? "loaded" : kernel.status().message());

  bad = info;
  bad.name = "nosuch";
  kernel = runtime.loadPTX(withHeader(axpyPTX, bad));
  result("runtime/missing-entry",
         !kernel &&
             contains(kernel.status().message(), "cuModuleGetFunction failed: "
                                                 "CUDA_ERROR_NOT_FOUND") &&
             contains(kernel.status().message(), "no entry 'nosuch'"),
         kernel ? "loaded" : kernel.status().message());
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::printf("usage: %s INPUTS_DIR [--seed=N]\n", argv[0]);
    return 1;
  }
  std::string inputs = argv[1];
  requireGpu("tile-runtime-gpu-tests");
  uint64_t seed = pickSeed(argc, argv);
  std::printf("seed: %llu (rerun with --seed=%llu)\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);

  testEcho(inputs, rng);
  testAxpy(inputs, rng);
  testJitVariants(inputs, rng);
  testLoadErrors(inputs);

  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("runtime stats: compiles=%llu disk_hits=%llu memory_hits=%llu "
              "modules_loaded=%llu\n",
              (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits,
              (unsigned long long)stats.memoryHits,
              (unsigned long long)stats.modulesLoaded);
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
