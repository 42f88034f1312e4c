//===- GemmGpuTest.cpp - tile-kernel-gpu-tests ----------------------------===//
//
// Kernels/gemm.tile: shapes, stages, warp specialization, persistence, hints.
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

namespace kernelgpu {

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

const int64_t kGemmTileK = 32;

struct Gemm {
  DType dtype;
  int64_t m, n, k;
  unsigned stages = 0;     // CompileOptions::numStages; 0: the latency hints
  bool specialize = false; // CompileOptions::warpSpecialize
  bool viaHints = false;   // the options as the kernel's @hints
  bool persistent = false; // CompileOptions::persistent
  int64_t tile = 128;      // TILE_M = TILE_N
  unsigned warps = 4;      // CompileOptions::numWarps
};

Build gemmBuild(const Gemm &g) {
  unsigned alignK = alignmentFor(g.k, tile::dtypeBytes(g.dtype));
  unsigned alignN = alignmentFor(g.n, tile::dtypeBytes(g.dtype));
  Build build;
  build.constants = {{"DTYPE", tile::dtypeName(g.dtype)},
                     {"TILE_M", std::to_string(g.tile)},
                     {"TILE_N", std::to_string(g.tile)},
                     {"TILE_K", std::to_string(kGemmTileK)}};
  build.alignment = std::min(alignK, alignN);
  build.options = codegen(g.stages, true, g.specialize, g.warps);
  build.options.persistent = g.persistent;
  build.viaHints = g.viaHints;
  return build;
}

void gemm(const Gemm &g, std::mt19937_64 &rng) {
  const DType dtype = g.dtype;
  const int64_t m = g.m, n = g.n, k = g.k;
  std::uniform_real_distribution<double> uniform(-1, 1);
  Build build = gemmBuild(g);
  // Inputs rounded to the dtype once, kept in float64 for the reference.
  HostTensor rounding(dtype, 1);
  auto draw = [&](std::vector<double> &values, size_t count) {
    values.resize(count);
    for (double &v : values) {
      rounding.set(0, uniform(rng));
      v = rounding.get(0);
    }
  };
  std::vector<double> a, b;
  draw(a, m * k);
  draw(b, k * n);

  // The reference for every row, or for a sample when that is too costly.
  std::vector<int64_t> rowsChecked;
  if (double(m) * n * k <= 4e9) {
    for (int64_t r = 0; r < m; ++r)
      rowsChecked.push_back(r);
  } else {
    rowsChecked = {0, m - 1, std::min<int64_t>(127, m - 1),
                   std::min<int64_t>(128, m - 1)};
    for (int i = 0; i < 60; ++i)
      rowsChecked.push_back(static_cast<int64_t>(rng() % m));
  }
  std::vector<double> ref(rowsChecked.size() * n);
  parallelFor(rowsChecked.size(), [&](size_t i) {
    double *row = &ref[i * n];
    std::fill(row, row + n, 0.0);
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a[rowsChecked[i] * k + kk];
      const double *brow = &b[kk * n];
      for (int64_t j = 0; j < n; ++j)
        row[j] += av * brow[j];
    }
  });

  for (Mode mode : modes()) {
    bool pad = mode == Mode::AOT;
    Matrix ma(dtype, m, k, pad), mb(dtype, k, n, pad), mc(dtype, m, n, pad);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < k; ++c)
        ma.host.set(ma.index(r, c), a[r * k + c]);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        mb.host.set(mb.index(r, c), b[r * n + c]);
    ma.upload();
    mb.upload();
    mc.device.poison();
    // The K loop runs cdiv(K, TILE_K) times: "ktiles" names the trip count.
    std::string name =
        std::string("gemm ") + tile::dtypeName(dtype) + " " +
        std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
        " ktiles=" + std::to_string(cdiv(k, kGemmTileK)) +
        " stages=" + std::to_string(g.stages) + (g.specialize ? " ws" : "") +
        (g.tile != 128 ? " tile=" + std::to_string(g.tile) : "") +
        (g.warps != 4 ? " warps=" + std::to_string(g.warps) : "") +
        (rowsChecked.size() < size_t(m) ? " (sampled rows)" : "") + " [" +
        modeName(mode) + "]";
    if (!launch(name, mode, "gemm", build,
                tile::Dim3(static_cast<unsigned>(cdiv(m, g.tile)),
                           static_cast<unsigned>(cdiv(n, g.tile))),
                {ma.tensor(), mb.tensor(), mc.tensor()}))
      continue;
    mc.download();
    ErrorMeter meter;
    // Every element must have been written, checked or not.
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (!std::isfinite(mc.host.get(mc.index(r, c))))
          meter.add(NAN, 0, mc.index(r, c));
    for (size_t i = 0; i < rowsChecked.size(); ++i)
      for (int64_t c = 0; c < n; ++c)
        meter.add(mc.host.get(mc.index(rowsChecked[i], c)), ref[i * n + c],
                  mc.index(rowsChecked[i], c));
    tally(report(name, meter.finish(), dtypeBound(dtype, 3e-3, 1.5e-2)));
  }
}

std::vector<Gemm> gemmCases() {
  std::vector<Gemm> cases;
  if (config.sanitize) {
    // Tiny, for compute-sanitizer: 0, 1 and 3 trips of the K loop (the last
    // one ragged), without and with a 3-stage cp.async ring; 5 trips
    // through 2- and 4-stage rings and the hinted stages; M and N below the
    // tile.
    for (unsigned stages : {1u, 3u})
      for (int64_t k : {0, 32, 65})
        cases.push_back({DType::F16, 64, 64, k, stages});
    for (unsigned stages : {2u, 4u, 0u})
      cases.push_back({DType::F16, 64, 64, 160, stages});
    // Warp specialized (sm_90a): 0, 1 and 5 trips.
    for (int64_t k : {0, 32, 160})
      cases.push_back({DType::F16, 64, 64, k, 2, true});
    // Persistent, specialized and not: 6 tiles on 3 blocks, 0, 1 and 5
    // trips each.
    for (bool specialize : {true, false})
      for (int64_t k : {0, 32, 160}) {
        cases.push_back({DType::F16, 300, 300, k, 2, specialize});
        cases.back().persistent = true;
      }
    return cases;
  }

  // The default build (stages from the latency hints).
  struct Shape {
    int64_t m, n, k;
  } shapes[] = {{128, 128, 32},    {256, 384, 64}, {1000, 1000, 1000},
                {129, 257, 65},    {1, 1, 1},      {64, 200, 100},
                {4096, 4096, 4096}};
  for (DType dtype : {DType::F16, DType::BF16})
    for (const Shape &shape : shapes) {
      if (config.quick && shape.m == 4096)
        continue;
      cases.push_back({dtype, shape.m, shape.n, shape.k, 0});
    }

  // The pipeline-stage sweep: 1 (no pipelining), 2, 3, 4 and 0 (hints)
  // times K giving 0, 1, 2, 3, 5 and many trips of the K loop with
  // TILE_K=32, full and ragged last tiles (K=0: C is all zeros), on M and N
  // that are no multiple of the 128 x 128 tile.
  std::vector<unsigned> stagesSwept = {1, 2, 3, 4, 0};
  std::vector<int64_t> ks = {0, 1, 31, 32, 33, 64, 65, 96, 160, 1000};
  if (config.quick) {
    stagesSwept = {1, 3, 0};
    ks = {0, 1, 33, 65, 160, 1000};
  }
  for (unsigned stages : stagesSwept)
    for (int64_t k : ks)
      cases.push_back({DType::F16, 129, 257, k, stages});
  // Many trips (128) in the steady state of the ring, on whole tiles.
  for (unsigned stages : stagesSwept)
    cases.push_back({DType::F16, 256, 384, 4096, stages});
  // Warp specialized (sm_90a: a TMA producer warp, the mbarrier protocol
  // of full and empty slots): every trip count of the sweep, many trips,
  // and bf16.
  for (unsigned stages : {2u, 4u, 0u})
    for (int64_t k : ks)
      cases.push_back({DType::F16, 129, 257, k, stages, true});
  cases.push_back({DType::F16, 256, 384, 4096, 2, true});
  cases.push_back({DType::BF16, 129, 257, 160, 3, true});
  // Persistent (3 blocks, $TILEC_PERSISTENT_BLOCKS): 6 tiles per block,
  // the rings running on from tile to tile at every trip count, through
  // the producer warp and without it, and 1024 tiles at 4096^3.
  for (bool specialize : {true, false}) {
    for (unsigned stages : {2u, 4u, 0u})
      for (int64_t k : ks) {
        cases.push_back({DType::F16, 300, 700, k, stages, specialize});
        cases.back().persistent = true;
      }
    cases.push_back({DType::BF16, 300, 700, 160, 3, specialize});
    cases.back().persistent = true;
    if (!config.quick) {
      cases.push_back({DType::F16, 4096, 4096, 4096, 0, specialize});
      cases.back().persistent = true;
    }
  }
  // The same options from the kernel's own @hints(...), specialized and
  // not.
  for (bool specialize : {true, false})
    for (int64_t k : {int64_t(0), int64_t(160), int64_t(1000)}) {
      cases.push_back({DType::F16, 129, 257, k, 3, specialize});
      cases.back().viaHints = true;
    }
  // 64 x 64 tiles on 8 warps (sm_90a: two warpgroups of 32 columns each
  // over B read along N, its buffer swizzled in 32-column blocks):
  // ragged tiles, 0, 2 and 5 trips, pipelined and specialized.
  for (bool specialize : {false, true})
    for (int64_t k : {0, 33, 160}) {
      cases.push_back({DType::F16, 129, 257, k, 2, specialize});
      cases.back().tile = 64;
      cases.back().warps = 8;
    }
  // bf16 through the ring.
  if (!config.quick)
    for (unsigned stages : {2u, 4u})
      for (int64_t k : {0, 33, 160})
        cases.push_back({DType::BF16, 129, 257, k, stages});
  return cases;
}

void prepareGemm(Wanted &wanted) {
  for (const Gemm &g : gemmCases())
    for (Mode mode : modes())
      wanted.emplace_back(mode, "gemm", gemmBuild(g));
}

void runGemm(std::mt19937_64 &rng) {
  for (const Gemm &g : gemmCases())
    gemm(g, rng);
}

} // namespace kernelgpu
