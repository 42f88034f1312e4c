//===- flash_attention_jit.cpp - Embedding libtile: flash attention -------===//
//
// A program that embeds the tile compiler: it compiles
// kernels/flash_attention.tile at run time through libtile.so (public
// headers only, no CUDA library linked), runs it on random inputs, checks
// the output against a float64 CPU reference and times it with CUDA events.
//
//   flash_attention_jit [path/to/flash_attention.tile]
//
// Exit codes: 0 success; 77 no GPU (the kernel was compiled, for sm_90a,
// and the program stopped where it needed the GPU); 1 failure.
//
//===----------------------------------------------------------------------===//

#include "tile/Tile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifndef TILE_KERNELS_DIR
#define TILE_KERNELS_DIR "kernels"
#endif

namespace {

const char *program = "flash_attention_jit";

// Problem size: batch 2, 16 query heads sharing 4 K/V heads (GQA), 2048
// tokens, head dimension 64, causal, f16.
const int64_t kBatch = 2, kHeads = 16, kGroup = 4, kSeq = 2048, kDim = 64;
const int64_t kKVHeads = kHeads / kGroup, kTileM = 64, kTileN = 64;

uint16_t toHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000, magnitude = x & 0x7fffffff;
  if (magnitude >= 0x477ff000)
    return sign | 0x7c00; // inputs here are small: no NaN to keep
  if (magnitude < 0x38800000) {
    float f;
    std::memcpy(&f, &magnitude, 4);
    return sign | static_cast<uint32_t>(std::nearbyint(f * 16777216.0f));
  }
  return sign |
         ((magnitude + 0xfff + ((magnitude >> 13) & 1) - 0x38000000) >> 13);
}

double fromHalf(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double sign = h & 0x8000 ? -1 : 1;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

int fail(const std::string &what, const tile::Status &status) {
  std::printf("%s: FAIL: %s: %s\n", program, what.c_str(),
              status.message().c_str());
  return 1;
}

/// The GPU is missing: say so, and where we stopped.
int noGpu(const tile::Status &status) {
  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("%s: STOPPED before the launch: no CUDA driver or GPU here "
              "(%s)\n",
              program, status.message().c_str());
  std::printf("%s: SKIP (exit 77): the JIT compile worked (compiles=%llu, "
              "disk cache hits=%llu); run this on a GPU for the numbers\n",
              program, (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits);
  return 77;
}

} // namespace

int main(int argc, char **argv) {
  std::string path =
      argc > 1 ? argv[1] : TILE_KERNELS_DIR "/flash_attention.tile";

  // Compile for the GPU at hand, or for Hopper when there is none (the
  // compiler needs no GPU; only the launch does).
  tile::Expected<tile::DeviceInfo> device = tile::deviceInfo();
  tile::CompileOptions options;
  options.constants = {{"DTYPE", "f16"},
                       {"TILE_D", std::to_string(kDim)},
                       {"H", std::to_string(kHeads)},
                       {"TILE_M", std::to_string(kTileM)},
                       {"TILE_N", std::to_string(kTileN)},
                       {"QUERY_GROUP_SIZE", std::to_string(kGroup)},
                       {"CAUSAL", "True"},
                       {"EVEN_K", kSeq % kTileN == 0 ? "True" : "False"}};
  options.kernel = "fmha"; // (the file's other kernel is fmha_varlen)
  if (device)
    std::printf("%s: GPU %s (%s)\n", program, device->name.c_str(),
                device->arch.c_str());
  else
    options.arch = "sm_90a";

  auto compileStart = std::chrono::steady_clock::now();
  tile::Expected<tile::Kernel> kernel =
      tile::Runtime::get().compileFile(path, options);
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  if (!kernel) {
    // Without a GPU the compile succeeds and loading the module is what
    // fails; tell the two apart.
    const std::string &message = kernel.status().message();
    if (!device &&
        (message.find("CUDA driver not found") != std::string::npos ||
         message.find("no CUDA device") != std::string::npos))
      return noGpu(kernel.status());
    return fail("compiling " + path, kernel.status());
  }
  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("%s: kernel '%s' ready in %.1f ms (%s; %u warps, %u bytes of "
              "shared memory)\n",
              program, kernel->name().c_str(), compileMs,
              stats.diskHits ? "from the disk cache" : "compiled",
              kernel->numWarps(), kernel->sharedBytes());

  // Random inputs, rounded to f16.
  std::mt19937_64 rng(
      std::chrono::steady_clock::now().time_since_epoch().count());
  std::normal_distribution<float> normal(0, 1);
  size_t qCount = kBatch * kHeads * kSeq * kDim;
  size_t kvCount = kBatch * kKVHeads * kSeq * kDim;
  std::vector<uint16_t> q(qCount), k(kvCount), v(kvCount), out(qCount);
  for (auto *tensor : {&q, &k, &v})
    for (uint16_t &x : *tensor)
      x = toHalf(normal(rng));

  std::vector<void *> buffers;
  auto release = [&] {
    for (void *b : buffers)
      tile::deviceFree(b);
  };
  void *dq, *dk, *dv, *dout;
  for (auto [pointer, bytes] : {std::pair{&dq, qCount * 2},
                                {&dk, kvCount * 2},
                                {&dv, kvCount * 2},
                                {&dout, qCount * 2}}) {
    tile::Expected<void *> memory = tile::deviceAlloc(bytes);
    if (!memory) {
      release();
      return device ? fail("deviceAlloc", memory.status())
                    : noGpu(memory.status());
    }
    buffers.push_back(*pointer = *memory);
  }
  tile::Status status;
  if (!(status = tile::copyToDevice(dq, q.data(), qCount * 2)).ok() ||
      !(status = tile::copyToDevice(dk, k.data(), kvCount * 2)).ok() ||
      !(status = tile::copyToDevice(dv, v.data(), kvCount * 2)).ok() ||
      !(status = tile::deviceMemset(dout, 0xff, qCount * 2)).ok())
    return release(), fail("copying the inputs", status);

  float scale = 1.0f / std::sqrt(static_cast<float>(kDim));
  std::vector<tile::Arg> args = {
      tile::Tensor::contiguous(dq, tile::DType::F16,
                               {kBatch, kHeads, kSeq, kDim}),
      tile::Tensor::contiguous(dk, tile::DType::F16,
                               {kBatch, kKVHeads, kSeq, kDim}),
      tile::Tensor::contiguous(dv, tile::DType::F16,
                               {kBatch, kKVHeads, kSeq, kDim}),
      tile::Tensor::contiguous(dout, tile::DType::F16,
                               {kBatch, kHeads, kSeq, kDim}),
      scale,
      0};
  tile::Dim3 grid(static_cast<unsigned>((kSeq + kTileM - 1) / kTileM),
                  static_cast<unsigned>(kBatch * kHeads));
  if (!(status = kernel->launch(grid, nullptr, args)).ok() ||
      !(status = tile::synchronize()).ok())
    return release(), fail("launch", status);
  if (!(status = tile::copyToHost(out.data(), dout, qCount * 2)).ok())
    return release(), fail("copying the output", status);

  // float64 reference for a sample of rows: O = softmax(scale QK^T + causal
  // mask) V. Every output element must have been written (the poison is NaN).
  size_t unwritten = 0;
  for (uint16_t x : out)
    unwritten += !std::isfinite(fromHalf(x));
  double diff2 = 0, ref2 = 0, maxAbs = 0;
  for (int sample = 0; sample < 64; ++sample) {
    int64_t b = rng() % kBatch, h = rng() % kHeads, i = rng() % kSeq;
    int64_t kvh = h / kGroup;
    const uint16_t *qi = &q[((b * kHeads + h) * kSeq + i) * kDim];
    const uint16_t *kb = &k[(b * kKVHeads + kvh) * kSeq * kDim];
    const uint16_t *vb = &v[(b * kKVHeads + kvh) * kSeq * kDim];
    std::vector<double> p(i + 1);
    double max = -INFINITY, sum = 0;
    for (int64_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (int64_t e = 0; e < kDim; ++e)
        dot += fromHalf(qi[e]) * fromHalf(kb[j * kDim + e]);
      max = std::max(max, p[j] = dot * scale);
    }
    for (double &x : p)
      sum += (x = std::exp(x - max));
    for (int64_t e = 0; e < kDim; ++e) {
      double ref = 0;
      for (int64_t j = 0; j <= i; ++j)
        ref += p[j] / sum * fromHalf(vb[j * kDim + e]);
      double got = fromHalf(out[((b * kHeads + h) * kSeq + i) * kDim + e]);
      diff2 += (got - ref) * (got - ref);
      ref2 += ref * ref;
      maxAbs = std::max(maxAbs, std::fabs(got - ref));
    }
  }
  double relative = std::sqrt(diff2 / ref2);
  bool accurate = unwritten == 0 && std::isfinite(relative) && relative < 5e-3;
  std::printf("%s: error vs float64 reference (64 sampled rows): rel %.3e, "
              "max abs %.3e, unwritten %zu -> %s\n",
              program, relative, maxAbs, unwritten, accurate ? "ok" : "WRONG");

  // Timing: warm up, then the median of 20 runs, each timed with events.
  tile::Expected<tile::Event> start = tile::Event::create();
  tile::Expected<tile::Event> stop = tile::Event::create();
  if (!start || !stop)
    return release(),
           fail("Event::create", start ? stop.status() : start.status());
  for (int i = 0; i < 3; ++i)
    if (!(status = kernel->launch(grid, nullptr, args)).ok())
      return release(), fail("launch", status);
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    if (!(status = start->record()).ok() ||
        !(status = kernel->launch(grid, nullptr, args)).ok() ||
        !(status = stop->record()).ok() || !(status = stop->synchronize()).ok())
      return release(), fail("timed launch", status);
    tile::Expected<float> ms = stop->elapsedMsSince(*start);
    if (!ms)
      return release(), fail("elapsed time", ms.status());
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  // Causal: about half of the 4 * B * H * S^2 * D flops of full attention.
  double flops = 2.0 * kBatch * kHeads * double(kSeq) * kSeq * kDim;
  std::printf("%s: B=%lld H=%lld KV=%lld S=%lld D=%lld causal f16: median "
              "%.3f ms over 20 runs (min %.3f), %.1f TFLOP/s\n",
              program, (long long)kBatch, (long long)kHeads,
              (long long)kKVHeads, (long long)kSeq, (long long)kDim, median,
              times.front(), flops / (median * 1e-3) / 1e12);
  release();
  if (!accurate) {
    std::printf("%s: FAIL: the output does not match the reference\n", program);
    return 1;
  }
  std::printf("%s: PASS\n", program);
  return 0;
}
