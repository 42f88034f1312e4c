//===- BenchCommon.h - What the benchmarks share --------------*- C++ -*-===//
//
// Error handling, random fp16 inputs, kernels compiled in parallel ahead of
// timing, launch timing with CUDA events, and JSON lines, for
// tile-bench-attention and tile-bench-gemm. Header-only: each benchmark is
// one translation unit that links libtile like any application.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_BENCH_BENCHCOMMON_H
#define TILE_BENCH_BENCHCOMMON_H

#include "tile/Tile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace bench {

#define BENCH_CHECK(expr)                                                      \
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

inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline uint16_t toHalf(float f) {
  // Round-to-nearest-even float -> IEEE half, for inputs in [-1, 1] (no
  // overflow; values below the normal range flush to zero).
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

inline float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  int32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (mant << 13); // inf or NaN
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        mant <<= 1;
        ++e;
      } while (!(mant & 0x400));
      x = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else {
    x = sign | uint32_t(exp - 15 + 127) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// Random halves in [-1, 1] that fill device buffers: a block of them,
/// repeated. The block's length is prime, so that the repetition does not
/// line up with the rows of a matrix; element `i` of a filled buffer is
/// `at(i)`.
struct HalfPattern {
  std::vector<uint16_t> block;

  HalfPattern(std::mt19937 &rng, size_t length = 4194301) : block(length) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (uint16_t &h : block)
      h = toHalf(dist(rng));
  }
  float at(size_t i) const { return fromHalf(block[i % block.size()]); }

  /// A device buffer of `elements` halves, element i = at(i).
  void *upload(size_t elements) const {
    void *dev = unwrap(tile::deviceAlloc(elements * 2), "deviceAlloc");
    for (size_t off = 0; off < elements; off += block.size()) {
      size_t n = std::min(block.size(), elements - off);
      BENCH_CHECK(tile::copyToDevice(static_cast<char *>(dev) + off * 2,
                                     block.data(), n * 2));
    }
    return dev;
  }
};

/// A configuration string's "name=value" fields: "TILE_M=128,warps=8".
inline std::map<std::string, std::string> parseFields(const std::string &s) {
  std::map<std::string, std::string> fields;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t eq = item.find('=');
    if (eq != std::string::npos)
      fields[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return fields;
}

/// The value of `key` in one JSON line as the benchmarks write it (a number,
/// true/false or a string without escapes); empty if absent.
inline std::string jsonField(const std::string &line, const std::string &key) {
  std::string quoted = "\"" + key + "\"";
  size_t at = line.find(quoted);
  if (at == std::string::npos)
    return "";
  at = line.find(':', at + quoted.size());
  if (at == std::string::npos)
    return "";
  ++at;
  while (at < line.size() && line[at] == ' ')
    ++at;
  if (at < line.size() && line[at] == '"') {
    size_t end = line.find('"', at + 1);
    return end == std::string::npos ? "" : line.substr(at + 1, end - at - 1);
  }
  size_t end = line.find_first_of(",}", at);
  std::string value = line.substr(at, end - at);
  while (!value.empty() && value.back() == ' ')
    value.pop_back();
  return value;
}

/// The kernel's code without its `// tilec-kernel:` line (which records the
/// options): two candidates with the same body are the same kernel.
inline std::string ptxBody(const std::string &ptx) {
  size_t eol = ptx.find('\n');
  return eol == std::string::npos ? ptx : ptx.substr(eol + 1);
}

/// Compiles every options set to PTX (filling the runtime's cache) on
/// `threads` threads. Returns, per options set, the PTX or the error.
inline std::vector<tile::Expected<std::string>>
compileAll(const std::string &source, const std::string &name,
           const std::vector<tile::CompileOptions> &options) {
  std::vector<tile::Expected<std::string>> results(
      options.size(), tile::Status::error("not compiled"));
  unsigned threads =
      std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<size_t>(threads, options.size()); ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < options.size();)
        results[i] =
            tile::Runtime::get().compileToPTX(source, name, options[i]);
    });
  for (std::thread &thread : pool)
    thread.join();
  return results;
}

/// Loaded kernels by their compile options, compiled ahead of timing on
/// several threads. Failures (to compile or to load) are remembered, so that
/// a failing candidate costs one compile.
class Kernels {
public:
  Kernels(std::string source, std::string name)
      : source(std::move(source)), name(std::move(name)) {}

  /// Compiles every options set not compiled yet, in parallel.
  void precompile(const std::vector<tile::CompileOptions> &all) {
    std::vector<tile::CompileOptions> todo;
    std::vector<std::string> keys;
    for (const tile::CompileOptions &o : all) {
      std::string k = key(o);
      if (compiled.count(k) || failed.count(k) ||
          std::find(keys.begin(), keys.end(), k) != keys.end())
        continue;
      keys.push_back(k);
      todo.push_back(o);
    }
    if (todo.empty())
      return;
    double start = now();
    std::vector<tile::Expected<std::string>> results =
        compileAll(source, name, todo);
    size_t ok = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
      if (results[i].ok()) {
        compiled.insert(keys[i]);
        ++ok;
      } else {
        failed[keys[i]] = results[i].status().message();
      }
    }
    std::printf("compiled %zu kernels in %.1f s (%zu failed)\n", todo.size(),
                now() - start, todo.size() - ok);
    std::fflush(stdout);
  }

  /// The loaded kernel, or why there is none.
  tile::Expected<tile::Kernel> get(const tile::CompileOptions &o) {
    std::string k = key(o);
    if (auto it = failed.find(k); it != failed.end())
      return tile::Status::error(it->second);
    if (auto it = loaded.find(k); it != loaded.end())
      return it->second;
    tile::Expected<tile::Kernel> kernel =
        tile::Runtime::get().compileSource(source, name, o);
    if (!kernel.ok()) {
      failed[k] = kernel.status().message();
      return kernel.status();
    }
    loaded[k] = *kernel;
    return *kernel;
  }

private:
  static std::string key(const tile::CompileOptions &o) {
    // Every compile option set (tile/Options.def), then the constants.
    std::string k = o.kernel + "|" + o.arch + "|" + o.text();
    std::vector<std::pair<std::string, std::string>> constants = o.constants;
    std::sort(constants.begin(), constants.end());
    for (const auto &[n, v] : constants)
      k += "|" + n + "=" + v;
    return k;
  }

  std::string source, name;
  std::set<std::string> compiled;            // PTX in the runtime's cache
  std::map<std::string, std::string> failed; // key -> error
  std::map<std::string, tile::Kernel> loaded;
};

/// One launch's argument lists, rotated between launches so that the inputs
/// do not sit in L2.
using ArgSets = std::vector<std::vector<tile::Arg>>;

/// Times launches of `kernels` (each with its grid), round-robin: `warmup`
/// launches of each, then `iters` rounds of one timed launch of each, all
/// queued back to back (CUDA events around each launch, one synchronization
/// at the end). Returns the median milliseconds of each kernel, or the
/// first launch error.
///
/// With `abandonAboveMs`, a single kernel whose first two timed launches
/// both take longer stops there (its result is their minimum): a bad
/// candidate costs little.
inline tile::Expected<std::vector<float>>
timeRoundRobin(const std::vector<tile::Kernel> &kernels,
               const std::vector<tile::Dim3> &grids, const ArgSets &sets,
               int warmup, int iters,
               float abandonAboveMs = std::numeric_limits<float>::infinity()) {
  size_t n = kernels.size();
  size_t launches = 0;
  for (int i = 0; i < warmup; ++i)
    for (size_t k = 0; k < n; ++k)
      if (tile::Status s = kernels[k].launch(grids[k], nullptr,
                                             sets[launches++ % sets.size()]);
          !s.ok())
        return s;
  std::vector<tile::Event> events;
  events.reserve(2 * n * iters);
  std::vector<std::vector<float>> times(n);
  auto collect = [&](size_t first) -> tile::Status {
    if (tile::Status s = events.back().synchronize(); !s.ok())
      return s;
    for (size_t e = first; e < events.size(); e += 2) {
      tile::Expected<float> ms = events[e + 1].elapsedMsSince(events[e]);
      if (!ms.ok())
        return ms.status();
      times[(e / 2) % n].push_back(*ms);
    }
    return tile::Status();
  };
  bool probe = n == 1 && std::isfinite(abandonAboveMs) && iters > 2;
  size_t collected = 0;
  for (int i = 0; i < iters; ++i) {
    for (size_t k = 0; k < n; ++k) {
      tile::Expected<tile::Event> start = tile::Event::create(),
                                  stop = tile::Event::create();
      if (!start.ok())
        return start.status();
      if (!stop.ok())
        return stop.status();
      events.push_back(std::move(*start));
      events.push_back(std::move(*stop));
      if (tile::Status s = events[events.size() - 2].record(); !s.ok())
        return s;
      if (tile::Status s = kernels[k].launch(grids[k], nullptr,
                                             sets[launches++ % sets.size()]);
          !s.ok())
        return s;
      if (tile::Status s = events.back().record(); !s.ok())
        return s;
    }
    if (probe && i == 1) {
      // Two timed launches: abandon a candidate far slower than the best.
      if (tile::Status s = collect(0); !s.ok())
        return s;
      collected = events.size();
      if (std::min(times[0][0], times[0][1]) > abandonAboveMs)
        return std::vector<float>{std::min(times[0][0], times[0][1])};
    }
  }
  if (tile::Status s = collect(collected); !s.ok())
    return s;
  std::vector<float> medians;
  for (std::vector<float> &t : times) {
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

/// After a failed launch: true if the context still works (an invalid
/// configuration, too much shared memory), false if the error is sticky
/// (an illegal address) and nothing more can run in this process.
inline bool contextUsable() {
  if (!tile::synchronize().ok())
    return false;
  tile::Expected<void *> probe = tile::deviceAlloc(16);
  return probe.ok() && tile::deviceFree(*probe).ok();
}

/// Appends JSON lines to a file, flushed after each, so that a run cut short
/// keeps what it measured.
class JsonLines {
public:
  explicit JsonLines(const std::string &path) : out(path) {
    if (!out) {
      std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
      std::exit(1);
    }
  }
  void write(const std::string &line) {
    out << line << "\n";
    out.flush();
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

private:
  std::ofstream out;
};

/// Stops the run when a failed launch left the context unusable.
inline void requireUsableContext(const std::string &after) {
  if (!contextUsable()) {
    std::fprintf(stderr,
                 "error: the GPU context is unusable after %s; stopping "
                 "(the rows written so far are kept)\n",
                 after.c_str());
    std::exit(1);
  }
}

/// A candidate of a search, with its short measurement.
struct Timed {
  size_t index; // the candidate's position in the search's list
  tile::Kernel kernel;
  tile::Dim3 grid;
  float ms;
};

/// How many of a search's fastest are measured again (runOff).
constexpr size_t kFinalists = 3;

/// The search's fastest (up to kFinalists of `timed`, which is not empty)
/// measured again together, round-robin, with `iters` timed launches each: a
/// short measurement is noisy enough to crown a candidate that is not the
/// fastest (a clock change or a neighbour's burst during its ten launches).
/// Returns the winner's entry in `timed` with the run-off's median as its
/// time. Where the run-off cannot launch, says so (`where` names the point)
/// and keeps the short measurement's fastest.
inline Timed runOff(std::vector<Timed> timed, const ArgSets &sets, int warmup,
                    int iters, const std::string &where) {
  std::sort(timed.begin(), timed.end(),
            [](const Timed &a, const Timed &b) { return a.ms < b.ms; });
  timed.resize(std::min(timed.size(), kFinalists));
  if (timed.size() == 1)
    return timed[0];
  std::vector<tile::Kernel> kernels;
  std::vector<tile::Dim3> grids;
  for (const Timed &t : timed) {
    kernels.push_back(t.kernel);
    grids.push_back(t.grid);
  }
  tile::Expected<std::vector<float>> ms =
      timeRoundRobin(kernels, grids, sets, warmup, iters);
  if (!ms.ok()) {
    std::printf("  %s: the run-off failed: %s\n", where.c_str(),
                ms.status().message().c_str());
    requireUsableContext("the run-off");
    return timed[0];
  }
  size_t best = 0;
  for (size_t i = 0; i < timed.size(); ++i) {
    timed[i].ms = (*ms)[i];
    if (timed[i].ms < timed[best].ms)
      best = i;
  }
  std::printf("  %s  run-off of the fastest %zu\n", where.c_str(),
              timed.size());
  return timed[best];
}

/// The current GPU's arch, after printing what it is; nullopt (and a line
/// saying why, for an exit code 77) when there is none.
inline std::optional<std::string> openGpu() {
  tile::Expected<tile::DeviceInfo> info = tile::deviceInfo();
  if (!info.ok()) {
    std::printf("no GPU: %s\n", info.status().message().c_str());
    return std::nullopt;
  }
  std::printf("GPU: %s (%s), %d SMs\n", info->name.c_str(), info->arch.c_str(),
              info->multiprocessors);
  return info->arch;
}

inline std::string readText(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string fmt(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

} // namespace bench

#endif // TILE_BENCH_BENCHCOMMON_H
