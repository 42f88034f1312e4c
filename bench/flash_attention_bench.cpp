//===- flash_attention_bench.cpp - Time the flash-attention kernel --------===//
//
// Compiles kernels/flash_attention.tile through libtile and times it with
// CUDA events (median of timed launches after warm-up, queued back to back,
// inputs rotated between launches so that they do not sit in L2). B=4,
// H=32, fp16; FLOPs = 4 * B * H * N^2 * D, halved when causal.
//
//   tile-bench-attention --kernel=kernels/flash_attention.tile
//   [--kernel-name=fmha] --json=out.json
//                        [--quick] [--no-prune]
//                        [--ablation=split|stages] [--best-from=bench.json]
//                        [--tile=TILE_MxTILE_NxWARPS]
//
// The default mode searches, for D in {128, 64}, causal and not, and N from
// 1k to 16k, the configurations tile shape (TILE_M x TILE_N in 64x64,
// 128x32, 128x64, 64x128, 128x128) x warps (4, 8) x pipeline stages (0 = from
// the kernel's latency hints, 2, 3), and for causal points loop splitting
// on and off (the masked iterations in a loop of their own, or masked in
// place: one loop, and fewer live registers). Pruned (unless --no-prune): 8
// warps only for 128-row tiles, and 4 warps for 128-row tiles only where the
// per-thread accumulators (TILE_M * (D + TILE_N) / threads f32 values) stay
// within 192 registers. Every candidate is compiled ahead of timing, on several
// threads; one that fails to compile or to launch is skipped with a note;
// candidates whose PTX is the same as an earlier one's are not timed again.
// Each candidate gets a short measurement (3 warm-up + 10 timed launches,
// stopped after 2 when both are 1.5x slower than the best so far); the
// fastest three are measured again together (round-robin, 30 timed launches
// each) to pick the winner, which gets the full measurement (30 timed
// launches) on its own. One JSON object per point:
//
//   {"impl": "tilec", "bench": "attention", "B": 4, "H": 32, "N": 4096,
//    "D": 128, "causal": true, "ms": 1.23, "tflops": 456.7,
//    "config": "TILE_M=128,TILE_N=64,warps=8,stages=2", "candidates": 15,
//    "timed": 12}
//
// --ablation=split: causal, D=128, N 1k..16k: the best configuration (the
// point's row in --best-from, else a search as above) with loop splitting
// on and off, both measured in this run, launches alternating:
//
//   {"impl": "tilec", "bench": "ablation-split", "variant": "split" or
//    "nosplit", ..., "config": "...", "same_code": false}
//
// --ablation=stages: D=128, N 4k and 16k, causal and not: one tile shape and
// warp count (--tile, else the point's best from --best-from, else
// 128x64x8) with 1, 2, 3, 4 stages and 0 (the hints), alternating:
//
//   {"impl": "tilec", "bench": "ablation-stages", "variant": "stages=2",
//    "stages": 2, ..., "same_code_as": null}
//
// "same_code" / "same_code_as" say that variants compiled to the same PTX
// (as long as the compiler ignores an option), so that a table does not
// read noise as an effect. --quick: a small subset of everything.
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

using namespace bench;

namespace {

constexpr int kB = 4, kH = 32;

struct Point {
  int N, D;
  bool causal;
};

double flops(const Point &p) {
  double f = 4.0 * kB * kH * double(p.N) * double(p.N) * p.D;
  return p.causal ? f / 2 : f;
}

struct Candidate {
  int tileM = 64, tileN = 64, warps = 4, stages = 0;
  bool split = true;

  std::string str() const {
    return fmt("TILE_M=%d,TILE_N=%d,warps=%d,stages=%d", tileM, tileN, warps,
               stages) +
           (split ? "" : ",split=off");
  }
  /// Parses str()'s form; false if a field is missing.
  bool parse(const std::string &text) {
    std::map<std::string, std::string> f = parseFields(text);
    if (!f.count("TILE_M") || !f.count("TILE_N") || !f.count("warps"))
      return false;
    tileM = std::atoi(f["TILE_M"].c_str());
    tileN = std::atoi(f["TILE_N"].c_str());
    warps = std::atoi(f["warps"].c_str());
    stages = f.count("stages") ? std::atoi(f["stages"].c_str()) : 0;
    split = !f.count("split") || f["split"] != "off";
    return tileM > 0 && tileN > 0 && warps > 0;
  }
};

struct Settings {
  std::string kernelPath = "kernels/flash_attention.tile";
  std::string kernelName = "fmha"; // the file's kernel to time
  std::string jsonPath = "bench-tilec.json";
  std::string ablation; // "", "split" or "stages"
  std::string bestFrom; // JSON lines of an earlier search
  std::string tile;     // --tile=MxNxW for the stages ablation
  bool quick = false;
  bool prune = true;
  std::string arch;
  int warmup = 3, shortIters = 10, fullIters = 30;
};

Settings settings;
std::string source;

tile::CompileOptions compileOptions(const Point &p, const Candidate &c) {
  tile::CompileOptions o;
  o.arch = settings.arch;
  o.kernel = settings.kernelName;
  o.numWarps = c.warps;
  o.numStages = c.stages;
  o.loopSplit = c.split;
  o.constants = {{"TILE_D", std::to_string(p.D)},
                 {"H", std::to_string(kH)},
                 {"TILE_M", std::to_string(c.tileM)},
                 {"TILE_N", std::to_string(c.tileN)},
                 {"CAUSAL", p.causal ? "true" : "false"},
                 {"EVEN_K", p.N % c.tileN ? "false" : "true"}};
  return o;
}

tile::Dim3 gridFor(const Point &p, const Candidate &c) {
  return tile::Dim3((p.N + c.tileM - 1) / c.tileM, kB * kH);
}

/// The configurations searched at `p`.
std::vector<Candidate> searchSpace(const Point &p) {
  int D = p.D;
  // 128 x 32 with 4 warps gives each warp 32 query rows (twice the reuse
  // of each K and V element read from shared memory) in the registers a
  // thread has.
  std::vector<std::pair<int, int>> shapes = {
      {64, 64}, {128, 32}, {128, 64}, {64, 128}, {128, 128}};
  std::vector<int> stages = {0, 2, 3};
  if (settings.quick) {
    shapes = {{64, 64}, {128, 32}, {128, 128}};
    stages = {0, 2};
  }
  std::vector<Candidate> out;
  for (auto [m, n] : shapes)
    for (int warps : {4, 8})
      for (int s : stages) {
        if (settings.prune) {
          // 64 rows are four warps of m16 rows: more warps split the columns
          // and the row statistics go through shared memory.
          if (warps == 8 && m < 128)
            continue;
          // The S and O accumulators of a thread, in f32 registers.
          if (warps == 4 && m == 128 && m * (D + n) / (32 * warps) > 192)
            continue;
        }
        Candidate c;
        c.tileM = m;
        c.tileN = n;
        c.warps = warps;
        c.stages = s;
        out.push_back(c);
        // Causal: with the masked iterations in a loop of their own, or
        // masked in place (one loop, fewer live registers).
        if (p.causal) {
          c.split = false;
          out.push_back(c);
        }
      }
  return out;
}

/// The inputs of one point: Q, K, V and Out, in enough sets to exceed L2
/// many times over.
struct Inputs {
  ArgSets sets;
  std::vector<void *> buffers;

  explicit Inputs(const Point &p) {
    static std::mt19937 rng(12345);
    static const HalfPattern q(rng), k(rng), v(rng);
    size_t elements = size_t(kB) * kH * p.N * p.D;
    int numSets = elements * 2 * 3 < (size_t(256) << 20) ? 4 : 2;
    std::vector<int64_t> shape = {kB, kH, p.N, p.D};
    auto tensor = [&](void *ptr) {
      return tile::Tensor::contiguous(ptr, tile::DType::F16, shape);
    };
    for (int s = 0; s < numSets; ++s) {
      void *dq = q.upload(elements), *dk = k.upload(elements),
           *dv = v.upload(elements);
      void *dout = unwrap(tile::deviceAlloc(elements * 2), "deviceAlloc");
      buffers.insert(buffers.end(), {dq, dk, dv, dout});
      sets.push_back({tensor(dq), tensor(dk), tensor(dv), tensor(dout),
                      1.0f / std::sqrt(float(p.D)), 0});
    }
  }
  ~Inputs() {
    for (void *ptr : buffers)
      BENCH_CHECK(tile::deviceFree(ptr));
  }
  Inputs(const Inputs &) = delete;
  Inputs &operator=(const Inputs &) = delete;
};

std::string pointStr(const Point &p) {
  return fmt("N=%-5d D=%-3d causal=%d", p.N, p.D, p.causal ? 1 : 0);
}

std::string rowPrefix(const char *bench, const Point &p) {
  return fmt("{\"impl\": \"tilec\", \"bench\": \"%s\", \"B\": %d, \"H\": %d, "
             "\"N\": %d, \"D\": %d, \"causal\": %s",
             bench, kB, kH, p.N, p.D, p.causal ? "true" : "false");
}

Kernels *kernels;

/// The candidates' compile options at `p` (for precompiling).
void addOptions(std::vector<tile::CompileOptions> &all, const Point &p,
                const std::vector<Candidate> &cands) {
  for (const Candidate &c : cands)
    all.push_back(compileOptions(p, c));
}

struct Best {
  Candidate config;
  float ms = 0;
  int considered = 0, timed = 0;
};

/// Times every candidate at `p` with the short measurement, then the
/// fastest few again together (runOff), and returns the winner; nullopt if
/// none ran.
std::optional<Best> search(const Point &p, const Inputs &in,
                           const std::vector<Candidate> &cands) {
  std::optional<Best> best;
  std::map<std::string, std::string> seen; // PTX body -> candidate
  std::vector<Timed> results;
  int considered = 0, timed = 0;
  for (const Candidate &c : cands) {
    if (c.tileN > p.N || c.tileM > p.N)
      continue;
    ++considered;
    tile::Expected<tile::Kernel> kernel = kernels->get(compileOptions(p, c));
    if (!kernel.ok()) {
      std::printf("  %s  %-36s skipped: %s\n", pointStr(p).c_str(),
                  c.str().c_str(), kernel.status().message().c_str());
      continue;
    }
    std::string body = ptxBody(kernel->ptx());
    if (auto it = seen.find(body); it != seen.end()) {
      std::printf("  %s  %-36s same code as %s\n", pointStr(p).c_str(),
                  c.str().c_str(), it->second.c_str());
      continue;
    }
    seen[body] = c.str();
    float abandon =
        best ? 1.5f * best->ms : std::numeric_limits<float>::infinity();
    tile::Expected<std::vector<float>> ms =
        timeRoundRobin({*kernel}, {gridFor(p, c)}, in.sets, settings.warmup,
                       settings.shortIters, abandon);
    if (!ms.ok()) {
      std::printf("  %s  %-36s launch failed, skipped: %s\n",
                  pointStr(p).c_str(), c.str().c_str(),
                  ms.status().message().c_str());
      requireUsableContext("a failed launch of " + c.str());
      continue;
    }
    ++timed;
    float t = (*ms)[0];
    std::printf("  %s  %-36s %8.3f ms %7.1f TFLOPS%s\n", pointStr(p).c_str(),
                c.str().c_str(), t, flops(p) / t / 1e9,
                t > abandon ? "  (abandoned after 2)" : "");
    std::fflush(stdout);
    results.push_back({size_t(&c - cands.data()), *kernel, gridFor(p, c), t});
    if (!best || t < best->ms) {
      best = Best();
      best->config = c;
      best->ms = t;
    }
  }
  if (!best)
    return best;
  Timed winner = runOff(results, in.sets, settings.warmup, settings.fullIters,
                        pointStr(p));
  best->config = cands[winner.index];
  best->ms = winner.ms;
  best->considered = considered;
  best->timed = timed;
  return best;
}

std::vector<Point> mainPoints() {
  std::vector<Point> points;
  for (int D : {128, 64})
    for (bool causal : {true, false})
      for (int N : {1024, 2048, 4096, 8192, 16384}) {
        if (settings.quick && N != 1024 && N != 4096)
          continue;
        points.push_back({N, D, causal});
      }
  return points;
}

int runSearch() {
  std::vector<Point> points = mainPoints();
  std::vector<tile::CompileOptions> all;
  for (const Point &p : points)
    addOptions(all, p, searchSpace(p));
  kernels->precompile(all);

  JsonLines json(settings.jsonPath);
  for (const Point &p : points) {
    double start = now();
    Inputs in(p);
    std::optional<Best> best = search(p, in, searchSpace(p));
    if (!best) {
      std::printf("  %s: no candidate ran\n", pointStr(p).c_str());
      continue;
    }
    tile::Expected<tile::Kernel> kernel =
        kernels->get(compileOptions(p, best->config));
    tile::Expected<std::vector<float>> ms =
        timeRoundRobin({*kernel}, {gridFor(p, best->config)}, in.sets,
                       settings.warmup, settings.fullIters);
    if (!ms.ok()) {
      std::printf("  %s: the winner failed to launch: %s\n",
                  pointStr(p).c_str(), ms.status().message().c_str());
      requireUsableContext("a failed launch");
      continue;
    }
    float t = (*ms)[0];
    json.write(rowPrefix("attention", p) +
               fmt(", \"ms\": %.5f, \"tflops\": %.2f, \"config\": \"%s\", "
                   "\"candidates\": %d, \"timed\": %d}",
                   t, flops(p) / t / 1e9, best->config.str().c_str(),
                   best->considered, best->timed));
    std::printf("  (%s: %.1f s)\n", pointStr(p).c_str(), now() - start);
  }
  return 0;
}

/// The point's configuration in --best-from's rows, if there is one.
std::optional<Candidate> bestFromFile(const Point &p) {
  if (settings.bestFrom.empty())
    return std::nullopt;
  std::ifstream in(settings.bestFrom);
  std::string line;
  while (std::getline(in, line)) {
    std::string bench = jsonField(line, "bench");
    if (jsonField(line, "impl") != "tilec" ||
        (!bench.empty() && bench != "attention") ||
        jsonField(line, "N") != std::to_string(p.N) ||
        jsonField(line, "D") != std::to_string(p.D) ||
        jsonField(line, "causal") != (p.causal ? "true" : "false") ||
        jsonField(line, "B") != std::to_string(kB) ||
        jsonField(line, "H") != std::to_string(kH))
      continue;
    Candidate c;
    if (c.parse(jsonField(line, "config")))
      return c;
  }
  return std::nullopt;
}

/// The best configuration at `p`: from --best-from, else searched.
std::optional<Candidate> bestConfig(const Point &p) {
  if (std::optional<Candidate> c = bestFromFile(p)) {
    std::printf("  %s: best from %s: %s\n", pointStr(p).c_str(),
                settings.bestFrom.c_str(), c->str().c_str());
    return c;
  }
  Inputs in(p);
  std::vector<tile::CompileOptions> all;
  addOptions(all, p, searchSpace(p));
  kernels->precompile(all);
  std::optional<Best> best = search(p, in, searchSpace(p));
  if (!best)
    return std::nullopt;
  std::printf("  %s: best %s\n", pointStr(p).c_str(),
              best->config.str().c_str());
  return best->config;
}

/// Measures `variants` at `p` round-robin (full measurement) and writes one
/// row per variant that ran; `extra(i, sameAs)` adds the variant's fields.
void measureVariants(
    JsonLines &json, const char *bench, const Point &p,
    const std::vector<Candidate> &variants,
    const std::vector<std::string> &names,
    const std::function<std::string(size_t, const std::string &)> &extra) {
  Inputs in(p);
  std::vector<tile::Kernel> ks;
  std::vector<tile::Dim3> grids;
  std::vector<size_t> which;
  std::vector<std::string> sameAs;
  std::map<std::string, std::string> seen;
  for (size_t i = 0; i < variants.size(); ++i) {
    tile::Expected<tile::Kernel> k =
        kernels->get(compileOptions(p, variants[i]));
    if (!k.ok()) {
      std::printf("  %s  %s (%s) skipped: %s\n", pointStr(p).c_str(),
                  names[i].c_str(), variants[i].str().c_str(),
                  k.status().message().c_str());
      continue;
    }
    std::string body = ptxBody(k->ptx());
    auto it = seen.find(body);
    sameAs.push_back(it == seen.end() ? "" : it->second);
    if (it == seen.end())
      seen[body] = names[i];
    ks.push_back(*k);
    grids.push_back(gridFor(p, variants[i]));
    which.push_back(i);
  }
  if (ks.empty())
    return;
  tile::Expected<std::vector<float>> ms =
      timeRoundRobin(ks, grids, in.sets, settings.warmup, settings.fullIters);
  if (!ms.ok()) {
    // Find the variant that fails, then measure the others.
    std::printf("  %s: a launch failed (%s); measuring one by one\n",
                pointStr(p).c_str(), ms.status().message().c_str());
    requireUsableContext("a failed launch");
    std::vector<float> each;
    for (size_t j = 0; j < ks.size(); ++j) {
      tile::Expected<std::vector<float>> one = timeRoundRobin(
          {ks[j]}, {grids[j]}, in.sets, settings.warmup, settings.fullIters);
      if (!one.ok()) {
        std::printf("  %s  %s launch failed: %s\n", pointStr(p).c_str(),
                    names[which[j]].c_str(), one.status().message().c_str());
        requireUsableContext("a failed launch");
        each.push_back(-1);
      } else {
        each.push_back((*one)[0]);
      }
    }
    ms = each;
  }
  for (size_t j = 0; j < ks.size(); ++j) {
    float t = (*ms)[j];
    if (t < 0)
      continue;
    size_t i = which[j];
    json.write(rowPrefix(bench, p) +
               fmt(", \"variant\": \"%s\", \"ms\": %.5f, \"tflops\": %.2f, "
                   "\"config\": \"%s\"",
                   names[i].c_str(), t, flops(p) / t / 1e9,
                   variants[i].str().c_str()) +
               extra(i, sameAs[j]) + "}");
  }
}

int runSplitAblation() {
  std::vector<Point> points;
  for (int N : {1024, 2048, 4096, 8192, 16384})
    if (!settings.quick || N == 1024 || N == 4096)
      points.push_back({N, 128, true});
  std::vector<std::pair<Point, Candidate>> chosen;
  for (const Point &p : points)
    if (std::optional<Candidate> c = bestConfig(p))
      chosen.push_back({p, *c});
  std::vector<tile::CompileOptions> all;
  for (auto &[p, c] : chosen) {
    Candidate off = c;
    off.split = false;
    addOptions(all, p, {c, off});
  }
  kernels->precompile(all);
  JsonLines json(settings.jsonPath);
  for (auto &[p, c] : chosen) {
    Candidate on = c, off = c;
    on.split = true;
    off.split = false;
    measureVariants(json, "ablation-split", p, {on, off}, {"split", "nosplit"},
                    [](size_t, const std::string &sameAs) {
                      return std::string(", \"same_code\": ") +
                             (sameAs.empty() ? "false" : "true");
                    });
  }
  return 0;
}

int runStagesAblation() {
  std::vector<Point> points;
  for (bool causal : {true, false})
    for (int N : {4096, 16384})
      if (!settings.quick || N == 4096)
        points.push_back({N, 128, causal});
  Candidate fixed;
  fixed.tileM = 128;
  fixed.tileN = 64;
  fixed.warps = 8;
  bool haveFixed = false;
  if (!settings.tile.empty()) {
    if (std::sscanf(settings.tile.c_str(), "%dx%dx%d", &fixed.tileM,
                    &fixed.tileN, &fixed.warps) != 3) {
      std::fprintf(stderr, "error: --tile=%s: expected TILE_MxTILE_NxWARPS\n",
                   settings.tile.c_str());
      return 2;
    }
    haveFixed = true;
  }
  const std::vector<int> stages = {1, 2, 3, 4, 0};
  std::vector<std::pair<Point, std::vector<Candidate>>> plan;
  std::vector<tile::CompileOptions> all;
  for (const Point &p : points) {
    Candidate base = fixed;
    if (!haveFixed)
      if (std::optional<Candidate> c = bestFromFile(p))
        base = *c;
    std::vector<Candidate> variants;
    for (int s : stages) {
      Candidate c = base;
      c.stages = s;
      variants.push_back(c);
    }
    std::printf("  %s: tile %dx%d, %d warps\n", pointStr(p).c_str(), base.tileM,
                base.tileN, base.warps);
    addOptions(all, p, variants);
    plan.push_back({p, variants});
  }
  kernels->precompile(all);
  JsonLines json(settings.jsonPath);
  for (auto &[p, variants] : plan) {
    std::vector<std::string> names;
    for (const Candidate &c : variants)
      names.push_back("stages=" + std::to_string(c.stages));
    measureVariants(json, "ablation-stages", p, variants, names,
                    [&](size_t i, const std::string &sameAs) {
                      return fmt(", \"stages\": %d, \"same_code_as\": ",
                                 variants[i].stages) +
                             (sameAs.empty() ? "null" : "\"" + sameAs + "\"");
                    });
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *prefix, std::string &out) {
      size_t n = std::strlen(prefix);
      if (a.compare(0, n, prefix) != 0)
        return false;
      out = a.substr(n);
      return true;
    };
    if (value("--kernel=", settings.kernelPath) ||
        value("--kernel-name=", settings.kernelName) ||
        value("--json=", settings.jsonPath) ||
        value("--ablation=", settings.ablation) ||
        value("--best-from=", settings.bestFrom) ||
        value("--tile=", settings.tile))
      continue;
    if (a == "--quick")
      settings.quick = true;
    else if (a == "--no-prune")
      settings.prune = false;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (!settings.ablation.empty() && settings.ablation != "split" &&
      settings.ablation != "stages") {
    std::fprintf(stderr, "--ablation=%s: expected split or stages\n",
                 settings.ablation.c_str());
    return 2;
  }
  if (settings.quick)
    settings.fullIters = 10;

  std::optional<std::string> arch = openGpu();
  if (!arch)
    return 77;
  settings.arch = *arch;
  source = readText(settings.kernelPath);
  Kernels k(source, settings.kernelPath);
  kernels = &k;

  double start = now();
  int rc = settings.ablation == "split"    ? runSplitAblation()
           : settings.ablation == "stages" ? runStagesAblation()
                                           : runSearch();
  std::printf("done in %.1f s\n", now() - start);
  return rc;
}
