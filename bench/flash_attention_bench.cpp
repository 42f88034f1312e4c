//===- flash_attention_bench.cpp - Time the flash-attention kernel --------===//
//
// Compiles kernels/flash_attention.tile through libtile for every
// configuration (and each candidate tile shape), times it with CUDA events
// (median of timed launches after warm-up, inputs rotated between launches
// so that they do not sit in L2), and writes one JSON object per
// configuration:
//
//   {"impl": "tilec", "B": 4, "H": 32, "N": 4096, "D": 128, "causal": true,
//    "ms": 1.23, "tflops": 456.7, "config": "TILE_M=128,TILE_N=64,warps=8"}
//
// FLOPs = 4 * B * H * N^2 * D, halved when causal.
//
//   tile-bench-attention --kernel=kernels/flash_attention.tile --json=out.json
//                        [--quick]
//
//===----------------------------------------------------------------------===//

#include "tile/Tile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Config {
  int B, H, N, D;
  bool causal;
};

struct Candidate {
  int tileM, tileN, warps;
};

#define CHECK(expr)                                                            \
  do {                                                                         \
    tile::Status s_ = (expr);                                                  \
    if (!s_.ok()) {                                                            \
      std::fprintf(stderr, "error: %s: %s\n", #expr, s_.message().c_str());    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <typename T> T unwrap(tile::Expected<T> e, const char *what) {
  if (!e.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", what, e.status().message().c_str());
    std::exit(1);
  }
  return std::move(e.get());
}

uint16_t toHalf(float f) {
  // Round-to-nearest-even float -> IEEE half, for random inputs in [-1, 1].
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0)
    return uint16_t(sign);
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  if ((mant & 0x1fff) > 0x1000 || ((mant & 0x1fff) == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(h);
}

/// A device buffer of `elements` random halves: a random block repeated.
void *randomHalves(size_t elements, std::mt19937 &rng) {
  size_t block = std::min<size_t>(elements, size_t(1) << 22);
  std::vector<uint16_t> host(block);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto &h : host)
    h = toHalf(dist(rng));
  void *dev = unwrap(tile::deviceAlloc(elements * 2), "deviceAlloc");
  for (size_t off = 0; off < elements; off += block) {
    size_t n = std::min(block, elements - off);
    CHECK(tile::copyToDevice(static_cast<char *>(dev) + off * 2, host.data(),
                             n * 2));
  }
  return dev;
}

double flops(const Config &c) {
  double f = 4.0 * c.B * c.H * double(c.N) * double(c.N) * c.D;
  return c.causal ? f / 2 : f;
}

/// Median time of `iters` launches, in ms; the inputs rotate over `sets`.
float timeKernel(const tile::Kernel &kernel, const Config &c, int tileM,
                 const std::vector<std::vector<tile::Arg>> &sets, int iters) {
  tile::Dim3 grid((c.N + tileM - 1) / tileM, c.B * c.H);
  for (int i = 0; i < 3; ++i)
    CHECK(kernel.launch(grid, nullptr, sets[i % sets.size()]));
  CHECK(tile::synchronize());
  std::vector<float> times;
  for (int i = 0; i < iters; ++i) {
    auto start = unwrap(tile::Event::create(), "event");
    auto stop = unwrap(tile::Event::create(), "event");
    CHECK(start.record());
    CHECK(kernel.launch(grid, nullptr, sets[i % sets.size()]));
    CHECK(stop.record());
    CHECK(stop.synchronize());
    times.push_back(unwrap(stop.elapsedMsSince(start), "elapsed"));
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  std::string kernelPath = "kernels/flash_attention.tile";
  std::string jsonPath = "bench-tilec.json";
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--kernel=", 0) == 0)
      kernelPath = a.substr(9);
    else if (a.rfind("--json=", 0) == 0)
      jsonPath = a.substr(7);
    else if (a == "--quick")
      quick = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  auto info = tile::deviceInfo();
  if (!info.ok()) {
    std::printf("no GPU: %s\n", info.status().message().c_str());
    return 77;
  }
  std::printf("GPU: %s (%s)\n", info->name.c_str(), info->arch.c_str());

  std::vector<Config> configs;
  for (int D : {128, 64})
    for (bool causal : {true, false})
      for (int N : {1024, 2048, 4096, 8192, 16384}) {
        if (quick && N > 4096)
          continue;
        configs.push_back({4, 32, N, D, causal});
      }
  const std::vector<Candidate> candidates = {
      {64, 64, 4}, {128, 64, 8}, {128, 32, 8}, {64, 32, 4}};

  std::mt19937 rng(12345);
  std::ofstream json(jsonPath);
  for (const Config &c : configs) {
    size_t elements = size_t(c.B) * c.H * c.N * c.D;
    // Enough input sets to exceed L2 many times over.
    int numSets = elements * 2 * 3 < (size_t(256) << 20) ? 4 : 2;
    std::vector<std::vector<tile::Arg>> sets;
    std::vector<void *> buffers;
    for (int s = 0; s < numSets; ++s) {
      void *q = randomHalves(elements, rng), *k = randomHalves(elements, rng),
           *v = randomHalves(elements, rng);
      void *o = unwrap(tile::deviceAlloc(elements * 2), "deviceAlloc");
      buffers.insert(buffers.end(), {q, k, v, o});
      std::vector<int64_t> shape = {c.B, c.H, c.N, c.D};
      auto t = [&](void *p) {
        return tile::Tensor::contiguous(p, tile::DType::F16, shape);
      };
      sets.push_back({t(q), t(k), t(v), t(o), 1.0f / std::sqrt(float(c.D)), 0});
    }
    float best = -1;
    std::string bestConfig;
    for (const Candidate &cand : candidates) {
      if (cand.tileN > c.N)
        continue;
      tile::CompileOptions options;
      options.numWarps = cand.warps;
      options.constants = {{"TILE_D", std::to_string(c.D)},
                           {"H", std::to_string(c.H)},
                           {"TILE_M", std::to_string(cand.tileM)},
                           {"TILE_N", std::to_string(cand.tileN)},
                           {"CAUSAL", c.causal ? "true" : "false"},
                           {"EVEN_K", c.N % cand.tileN ? "false" : "true"}};
      auto kernel = tile::Runtime::get().compileFile(kernelPath, options);
      if (!kernel.ok()) {
        std::printf("  skip %dx%d/%dw: %s\n", cand.tileM, cand.tileN,
                    cand.warps, kernel.status().message().c_str());
        continue;
      }
      float ms = timeKernel(*kernel, c, cand.tileM, sets, quick ? 10 : 30);
      std::printf("  N=%-5d D=%-3d causal=%d  %3dx%-3d %dw  %.3f ms  %.1f "
                  "TFLOPS\n",
                  c.N, c.D, c.causal, cand.tileM, cand.tileN, cand.warps, ms,
                  flops(c) / ms / 1e9);
      if (best < 0 || ms < best) {
        best = ms;
        bestConfig = "TILE_M=" + std::to_string(cand.tileM) +
                     ",TILE_N=" + std::to_string(cand.tileN) +
                     ",warps=" + std::to_string(cand.warps);
      }
    }
    for (void *p : buffers)
      CHECK(tile::deviceFree(p));
    if (best < 0)
      continue;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "{\"impl\": \"tilec\", \"B\": %d, \"H\": %d, \"N\": %d, "
                  "\"D\": %d, \"causal\": %s, \"ms\": %.5f, \"tflops\": %.2f, "
                  "\"config\": \"%s\"}",
                  c.B, c.H, c.N, c.D, c.causal ? "true" : "false", best,
                  flops(c) / best / 1e9, bestConfig.c_str());
    json << line << "\n";
    std::printf("%s\n", line);
  }
  return 0;
}
