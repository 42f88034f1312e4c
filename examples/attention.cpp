//===- attention.cpp - The README's C++ example, checked ------------------===//
//
// Runs the five lines the README shows (between the README-BEGIN and
// README-END markers; ctest `readme-examples` checks that the README holds
// the same lines) on random inputs and checks `out` against a float64 CPU
// reference. Links only libtile (tile::tile).
//
// Exit codes: 0 checked; 77 no GPU; 1 failure.
//
//===----------------------------------------------------------------------===//

#include "tile/Attention.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

static uint16_t toHalf(float value) { // round to nearest even, normal range
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000, magnitude = x & 0x7fffffff;
  if (magnitude < 0x38800000)
    return sign; // tiny inputs flush to zero (none here)
  return sign |
         ((magnitude + 0xfff + ((magnitude >> 13) & 1) - 0x38000000) >> 13);
}

static double fromHalf(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double sign = h & 0x8000 ? -1 : 1;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

int main() {
  tile::Expected<tile::DeviceInfo> device = tile::deviceInfo();
  if (!device) {
    std::printf("SKIP: no GPU: %s\n", device.status().message().c_str());
    return 77;
  }
  const int64_t B = 2, H = 8, N = 1024, D = 128, count = B * H * N * D;
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> host[3];
  void *q, *k, *v, *out;
  void **pointers[] = {&q, &k, &v, &out};
  for (int i = 0; i < 4; ++i) {
    tile::Expected<void *> memory = tile::deviceAlloc(count * 2);
    if (!memory) {
      std::printf("FAIL: %s\n", memory.status().message().c_str());
      return 1;
    }
    *pointers[i] = *memory;
    if (i < 3) {
      host[i].resize(count);
      for (uint16_t &x : host[i])
        x = toHalf(normal(rng));
      tile::copyToDevice(*memory, host[i].data(), count * 2);
    }
  }

  // clang-format off
  // README-BEGIN
  auto t = [](void *p) { return tile::Tensor::contiguous(p, tile::DType::F16, {2, 8, 1024, 128}); };
  tile::AttentionOptions options;
  options.causal = true;
  tile::Status status = tile::attention(t(q), t(k), t(v), t(out), options);
  if (!status.ok()) std::fprintf(stderr, "%s\n", status.message().c_str());
  // README-END
  // clang-format on
  if (!status.ok() || !tile::synchronize().ok()) {
    std::printf("FAIL: %s\n", status.message().c_str());
    return 1;
  }

  std::vector<uint16_t> result(count);
  tile::copyToHost(result.data(), out, count * 2);
  // The reference on every 7th query row of every head (all of them would
  // take the CPU a while).
  double diff2 = 0, ref2 = 0;
  std::vector<double> p(N);
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t i = 0; i < N; i += 7) {
      const uint16_t *qi = &host[0][(bh * N + i) * D];
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j <= i; ++j) {
        const uint16_t *kj = &host[1][(bh * N + j) * D];
        double s = 0;
        for (int64_t d = 0; d < D; ++d)
          s += fromHalf(qi[d]) * fromHalf(kj[d]);
        p[j] = s / std::sqrt(double(D));
        mx = std::max(mx, p[j]);
      }
      for (int64_t j = 0; j <= i; ++j)
        sum += p[j] = std::exp(p[j] - mx);
      for (int64_t d = 0; d < D; ++d) {
        double ref = 0;
        for (int64_t j = 0; j <= i; ++j)
          ref += p[j] * fromHalf(host[2][(bh * N + j) * D + d]);
        ref /= sum;
        double got = fromHalf(result[(bh * N + i) * D + d]);
        diff2 += (got - ref) * (got - ref);
        ref2 += ref * ref;
      }
    }
  double relative = std::sqrt(diff2 / ref2);
  bool ok = std::isfinite(relative) && relative < 4e-3;
  std::printf("README C++ example: tile::attention causal %lldx%lldx%lldx%lld "
              "f16 on %s: rel_err=%.3e %s\n",
              (long long)B, (long long)H, (long long)N, (long long)D,
              device->name.c_str(), relative, ok ? "PASS" : "FAIL");
  for (void *pointer : {q, k, v, out})
    tile::deviceFree(pointer);
  return ok ? 0 : 1;
}
