//===- gemm_bench.cpp - Time the GEMM kernel and its mma.sync ceiling -----===//
//
// Compiles kernels/gemm.tile (C = A @ B, fp16 in and out, f32 accumulation)
// through libtile and times it at M = N = K = 4096 and 8192 with CUDA events
// (median of timed launches after warm-up, queued back to back, inputs
// rotated between launches so that they do not sit in L2); FLOPs = 2*M*N*K.
//
//   tile-bench-gemm --kernel=kernels/gemm.tile
//                   --ceiling=bench/kernels/mma_ceiling.tile
//                   --json=out.json [--quick] [--no-prune]
//
// Searched: TILE_M x TILE_N x TILE_K in 128x128x32, 128x128x64, 128x256x32,
// 256x128x32, 128x256x64, 256x128x64, x warps (4, 8) x pipeline stages (0 =
// from the kernel's latency hints, 2, 3, 4); pruned (unless --no-prune) to at
// most 128 f32 accumulator registers per thread (TILE_M * TILE_N / threads).
// Every candidate is compiled ahead of timing, on several threads; one that
// fails to compile or to launch is skipped with a note; one whose PTX is the
// same as an earlier candidate's is not timed again. Before it is timed, each
// candidate's output (C poisoned first) is compared at a few places with a
// CPU dot product: a wrong kernel is reported and not timed. Candidates get
// 3 warm-up + 10 timed launches (stopped after 2 when both are 1.5x slower
// than the best so far); the fastest three are measured again together
// (round-robin, 30 timed launches each) to pick the winner, which gets 30
// on its own.
//
// The ceiling, bench/kernels/mma_ceiling.tile, runs the GEMM's mma and
// ldmatrix instruction stream without the global loads (and their barriers)
// in the loop: A and B tiles loaded once, multiplied k_tiles times. It is
// checked like the GEMM and timed (30 launches, on its own: alternating it
// with the GEMM would slow both by its power draw) with the winner's
// configuration, and with the fastest of the searched shapes. Rows:
//
//   {"impl": "tilec", "bench": "gemm", "M": 4096, "N": 4096, "K": 4096,
//    "dtype": "f16", "ms": 0.5, "tflops": 275.1,
//    "config": "TILE_M=128,TILE_N=128,TILE_K=32,warps=4,stages=3",
//    "candidates": 24, "timed": 9}
//   {"impl": "tilec-ceiling", "bench": "gemm", ..., "config": (the same),
//    "gemm_fraction": 0.71}
//   {"impl": "tilec-ceiling-max", ...}: the fastest ceiling over the
//    searched tile shapes and warps (with the winner's stages), and the
//    GEMM's fraction of it.
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

using namespace bench;

namespace {

struct Candidate {
  int tileM = 128, tileN = 128, tileK = 32, warps = 4, stages = 0;

  std::string str() const {
    return fmt("TILE_M=%d,TILE_N=%d,TILE_K=%d,warps=%d,stages=%d", tileM, tileN,
               tileK, warps, stages);
  }
};

struct Settings {
  std::string kernelPath = "kernels/gemm.tile";
  std::string ceilingPath = "bench/kernels/mma_ceiling.tile";
  std::string jsonPath = "bench-gemm.json";
  bool quick = false;
  bool prune = true;
  std::string arch;
  int warmup = 3, shortIters = 10, fullIters = 30;
};

Settings settings;

tile::CompileOptions compileOptions(const Candidate &c) {
  tile::CompileOptions o;
  o.arch = settings.arch;
  o.numWarps = c.warps;
  o.numStages = c.stages;
  o.constants = {{"DTYPE", "f16"},
                 {"TILE_M", std::to_string(c.tileM)},
                 {"TILE_N", std::to_string(c.tileN)},
                 {"TILE_K", std::to_string(c.tileK)}};
  return o;
}

std::vector<Candidate> searchSpace() {
  struct Shape {
    int m, n, k;
  };
  std::vector<Shape> shapes = {{128, 128, 32}, {128, 128, 64}, {128, 256, 32},
                               {256, 128, 32}, {128, 256, 64}, {256, 128, 64}};
  std::vector<int> stages = {0, 2, 3, 4};
  if (settings.quick) {
    shapes = {{128, 128, 64}, {128, 256, 64}};
    stages = {0, 3};
  }
  std::vector<Candidate> out;
  for (const Shape &s : shapes)
    for (int warps : {4, 8})
      for (int st : stages) {
        if (settings.prune && s.m * s.n / (32 * warps) > 128)
          continue;
        Candidate c;
        c.tileM = s.m;
        c.tileN = s.n;
        c.tileK = s.k;
        c.warps = warps;
        c.stages = st;
        out.push_back(c);
      }
  return out;
}

/// A, B and C of size x size, in enough sets to exceed L2 many times over;
/// every set holds the same values (A[i] = a.at(i), B[i] = b.at(i)).
struct Problem {
  int64_t size;
  ArgSets sets;
  std::vector<void *> buffers;
  void *c0 = nullptr; // set 0's C, checked

  Problem(int64_t size, const HalfPattern &a, const HalfPattern &b)
      : size(size) {
    size_t elements = size_t(size) * size;
    int numSets = elements * 2 * 3 < (size_t(256) << 20) ? 4 : 2;
    auto tensor = [&](void *ptr) {
      return tile::Tensor::contiguous(ptr, tile::DType::F16, {size, size});
    };
    for (int s = 0; s < numSets; ++s) {
      void *da = a.upload(elements), *db = b.upload(elements);
      void *dc = unwrap(tile::deviceAlloc(elements * 2), "deviceAlloc");
      if (s == 0)
        c0 = dc;
      buffers.insert(buffers.end(), {da, db, dc});
      sets.push_back({tensor(da), tensor(db), tensor(dc)});
    }
  }
  ~Problem() {
    for (void *ptr : buffers)
      BENCH_CHECK(tile::deviceFree(ptr));
  }
  Problem(const Problem &) = delete;
  Problem &operator=(const Problem &) = delete;

  double flops() const { return 2.0 * double(size) * size * size; }
};

tile::Dim3 gridFor(const Problem &p, const Candidate &c) {
  return tile::Dim3((p.size + c.tileM - 1) / c.tileM,
                    (p.size + c.tileN - 1) / c.tileN);
}

/// Launches `kernel` once on set 0 with C poisoned (all NaN) and compares C
/// at a few places with a CPU reference. `ceiling`: the reference is the
/// ceiling kernel's, k_tiles times the product over the first TILE_K.
/// Returns an empty string when it matches, else what is wrong.
std::string check(const tile::Kernel &kernel, const Problem &p,
                  const Candidate &c, bool ceiling, const HalfPattern &a,
                  const HalfPattern &b) {
  int64_t n = p.size;
  size_t bytes = size_t(n) * n * 2;
  if (tile::Status s = tile::deviceMemset(p.c0, 0xff, bytes); !s.ok())
    return "memset: " + s.message();
  if (tile::Status s = kernel.launch(gridFor(p, c), nullptr, p.sets[0]);
      !s.ok())
    return "launch: " + s.message();
  if (tile::Status s = tile::synchronize(); !s.ok())
    return "kernel: " + s.message();
  std::mt19937 rng(7);
  std::vector<std::pair<int64_t, int64_t>> at = {{0, 0},
                                                 {n - 1, n - 1},
                                                 {0, n - 1},
                                                 {n - 1, 0},
                                                 {c.tileM - 1, c.tileN},
                                                 {c.tileM, c.tileN - 1},
                                                 {n / 2, n / 2 + 1}};
  while (at.size() < 24)
    at.push_back({int64_t(rng() % n), int64_t(rng() % n)});
  int64_t depth = ceiling ? c.tileK : n;
  double repeat = ceiling ? double((n + c.tileK - 1) / c.tileK) : 1.0;
  std::string errors;
  int bad = 0;
  for (auto [i, j] : at) {
    uint16_t h;
    if (tile::Status s = tile::copyToHost(
            &h, static_cast<char *>(p.c0) + (i * n + j) * 2, 2);
        !s.ok())
      return "copy: " + s.message();
    double ref = 0, magnitude = 0;
    for (int64_t k = 0; k < depth; ++k) {
      double prod = double(a.at(size_t(i * n + k))) * b.at(size_t(k * n + j));
      ref += prod;
      magnitude += std::fabs(prod);
    }
    ref *= repeat;
    magnitude *= repeat;
    double got = fromHalf(h);
    double tolerance = 1e-3 + 1e-3 * std::fabs(ref) + 1e-5 * magnitude;
    if (!(std::fabs(got - ref) <= tolerance)) { // NaN fails too
      if (++bad <= 3)
        errors += fmt(" C[%lld,%lld] = %g, expected %g;", (long long)i,
                      (long long)j, got, ref);
    }
  }
  if (bad)
    return fmt("%d of %zu sampled elements wrong:", bad, at.size()) + errors;
  return "";
}

std::string rowPrefix(const char *impl, const Problem &p) {
  return fmt("{\"impl\": \"%s\", \"bench\": \"gemm\", \"M\": %lld, \"N\": "
             "%lld, \"K\": %lld, \"dtype\": \"f16\"",
             impl, (long long)p.size, (long long)p.size, (long long)p.size);
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--kernel=", 0) == 0)
      settings.kernelPath = a.substr(9);
    else if (a.rfind("--ceiling=", 0) == 0)
      settings.ceilingPath = a.substr(10);
    else if (a.rfind("--json=", 0) == 0)
      settings.jsonPath = a.substr(7);
    else if (a == "--quick")
      settings.quick = true;
    else if (a == "--no-prune")
      settings.prune = false;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (settings.quick)
    settings.fullIters = 10;
  std::optional<std::string> arch = openGpu();
  if (!arch)
    return 77;
  settings.arch = *arch;
  double start = now();

  Kernels gemm(readText(settings.kernelPath), settings.kernelPath);
  Kernels ceiling(readText(settings.ceilingPath), settings.ceilingPath);
  std::vector<Candidate> cands = searchSpace();
  std::vector<tile::CompileOptions> all;
  for (const Candidate &c : cands)
    all.push_back(compileOptions(c));
  gemm.precompile(all);
  ceiling.precompile(all);

  std::mt19937 rng(4242);
  HalfPattern a(rng), b(rng);
  JsonLines json(settings.jsonPath);
  int status = 0;
  std::vector<int64_t> sizes = {4096, 8192};
  if (settings.quick)
    sizes = {4096};
  for (int64_t size : sizes) {
    Problem p(size, a, b);
    std::string where = fmt("%lld^3", (long long)size);
    std::optional<Candidate> best;
    float bestMs = 0;
    int timed = 0;
    std::map<std::string, std::string> seen; // PTX body -> candidate
    std::vector<Timed> results;
    for (const Candidate &c : cands) {
      tile::Expected<tile::Kernel> kernel = gemm.get(compileOptions(c));
      if (!kernel.ok()) {
        std::printf("  %s  %-46s skipped: %s\n", where.c_str(), c.str().c_str(),
                    kernel.status().message().c_str());
        continue;
      }
      std::string body = ptxBody(kernel->ptx());
      if (auto it = seen.find(body); it != seen.end()) {
        std::printf("  %s  %-46s same code as %s\n", where.c_str(),
                    c.str().c_str(), it->second.c_str());
        continue;
      }
      seen[body] = c.str();
      if (std::string wrong = check(*kernel, p, c, false, a, b);
          !wrong.empty()) {
        std::printf("  %s  %-46s WRONG, not timed: %s\n", where.c_str(),
                    c.str().c_str(), wrong.c_str());
        requireUsableContext("checking " + c.str());
        status = 1;
        continue;
      }
      float abandon =
          best ? 1.5f * bestMs : std::numeric_limits<float>::infinity();
      tile::Expected<std::vector<float>> ms =
          timeRoundRobin({*kernel}, {gridFor(p, c)}, p.sets, settings.warmup,
                         settings.shortIters, abandon);
      if (!ms.ok()) {
        std::printf("  %s  %-46s launch failed, skipped: %s\n", where.c_str(),
                    c.str().c_str(), ms.status().message().c_str());
        requireUsableContext("a failed launch of " + c.str());
        continue;
      }
      ++timed;
      float t = (*ms)[0];
      std::printf("  %s  %-46s %8.3f ms %7.1f TFLOPS%s\n", where.c_str(),
                  c.str().c_str(), t, p.flops() / t / 1e9,
                  t > abandon ? "  (abandoned after 2)" : "");
      std::fflush(stdout);
      results.push_back({size_t(&c - cands.data()), *kernel, gridFor(p, c), t});
      if (!best || t < bestMs) {
        best = c;
        bestMs = t;
      }
    }
    if (!best) {
      std::printf("  %s: no candidate ran\n", where.c_str());
      status = 1;
      continue;
    }
    Timed finalist =
        runOff(results, p.sets, settings.warmup, settings.fullIters, where);
    best = cands[finalist.index];

    // The winner, then its ceiling, each measured on its own: alternating
    // them would run the GEMM at the clocks the ceiling's power draw leaves.
    tile::Kernel winner = *gemm.get(compileOptions(*best));
    tile::Expected<std::vector<float>> ms =
        timeRoundRobin({winner}, {gridFor(p, *best)}, p.sets, settings.warmup,
                       settings.fullIters);
    if (!ms.ok()) {
      std::printf("  %s: the final measurement failed: %s\n", where.c_str(),
                  ms.status().message().c_str());
      requireUsableContext("the final measurement");
      status = 1;
      continue;
    }
    float t = (*ms)[0];
    double tflops = p.flops() / t / 1e9;
    json.write(rowPrefix("tilec", p) +
               fmt(", \"ms\": %.5f, \"tflops\": %.2f, \"config\": \"%s\", "
                   "\"candidates\": %zu, \"timed\": %d}",
                   t, tflops, best->str().c_str(), cands.size(), timed));

    // The ceiling of a configuration, checked, then fully measured: its
    // milliseconds, or a negative number when it did not run.
    auto measureCeiling = [&](const Candidate &c) -> float {
      tile::Expected<tile::Kernel> roof = ceiling.get(compileOptions(c));
      if (!roof.ok()) {
        std::printf("  %s  ceiling %s skipped: %s\n", where.c_str(),
                    c.str().c_str(), roof.status().message().c_str());
        return -1;
      }
      if (std::string wrong = check(*roof, p, c, true, a, b); !wrong.empty()) {
        std::printf("  %s  ceiling %s WRONG, not timed: %s\n", where.c_str(),
                    c.str().c_str(), wrong.c_str());
        requireUsableContext("checking the ceiling");
        status = 1;
        return -1;
      }
      tile::Expected<std::vector<float>> tc =
          timeRoundRobin({*roof}, {gridFor(p, c)}, p.sets, settings.warmup,
                         settings.fullIters);
      if (!tc.ok()) {
        std::printf("  %s  ceiling %s launch failed: %s\n", where.c_str(),
                    c.str().c_str(), tc.status().message().c_str());
        requireUsableContext("a failed launch of the ceiling");
        return -1;
      }
      return (*tc)[0];
    };
    auto ceilingRow = [&](const char *impl, const Candidate &c, float tc) {
      double ceilingTflops = p.flops() / tc / 1e9;
      json.write(rowPrefix(impl, p) +
                 fmt(", \"ms\": %.5f, \"tflops\": %.2f, \"config\": \"%s\", "
                     "\"gemm_fraction\": %.4f}",
                     tc, ceilingTflops, c.str().c_str(),
                     tflops / ceilingTflops));
    };
    if (float tc = measureCeiling(*best); tc > 0)
      ceilingRow("tilec-ceiling", *best, tc);

    // The fastest ceiling over the searched shapes and warps.
    std::optional<Candidate> top;
    float topMs = 0;
    std::set<std::string> tried;
    for (Candidate c : cands) {
      c.stages = best->stages;
      if (!tried.insert(c.str()).second)
        continue;
      tile::Expected<tile::Kernel> k = ceiling.get(compileOptions(c));
      if (!k.ok())
        continue;
      tile::Expected<std::vector<float>> one = timeRoundRobin(
          {*k}, {gridFor(p, c)}, p.sets, settings.warmup, settings.shortIters);
      if (!one.ok()) {
        requireUsableContext("a failed launch of the ceiling");
        continue;
      }
      std::printf("  %s  ceiling %-38s %8.3f ms %7.1f TFLOPS\n", where.c_str(),
                  c.str().c_str(), (*one)[0], p.flops() / (*one)[0] / 1e9);
      if (!top || (*one)[0] < topMs) {
        top = c;
        topMs = (*one)[0];
      }
    }
    if (top)
      if (float tc = measureCeiling(*top); tc > 0)
        ceilingRow("tilec-ceiling-max", *top, tc);
  }
  std::printf("done in %.1f s\n", now() - start);
  return status;
}
