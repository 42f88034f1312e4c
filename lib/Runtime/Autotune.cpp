//===- Autotune.cpp - Timing candidate configurations of a kernel ---------===//
//
// autotune() (tile/Autotune.h) in four steps: the winner remembered in
// memory, else on disk, else every candidate compiled (in parallel) and
// timed with CUDA events on the caller's stream. Candidates that fail to
// compile, to load or to launch, and those that spill where another does
// not, are skipped with a note.
//
//===----------------------------------------------------------------------===//

#include "tile/Autotune.h"

#include "RuntimeImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <unistd.h>

using namespace tile;
using namespace tile::detail;

std::string TuneCandidate::describe() const {
  std::string text;
  for (const auto &[name, value] : constants)
    text += (text.empty() ? "" : ",") + name + "=" + value;
  std::string set = options.text();
  if (!set.empty())
    text += (text.empty() ? "" : ",") + set;
  return text;
}

Expected<TuneCandidate> TuneCandidate::parse(const std::string &text) {
  TuneCandidate candidate;
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(text).split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    item = item.trim();
    auto [name, value] = item.split('=');
    if (name.empty() || !item.contains('='))
      return Status::error("tune candidate '" + text +
                           "': expected NAME=VALUE, got '" + item.str() + "'");
    if (lookupOption(name.str())) {
      if (std::string error = candidate.options.set(name.str(), value.str());
          !error.empty())
        return Status::error("tune candidate '" + text + "': " + error);
    } else {
      candidate.constants.emplace_back(name.str(), value.str());
    }
  }
  return candidate;
}

bool tile::autotuneDisabled() {
  const char *value = std::getenv("TILEC_AUTOTUNE");
  if (!value)
    return false;
  llvm::StringRef text(value);
  return text == "0" || text.equals_insensitive("off") ||
         text.equals_insensitive("false") || text.equals_insensitive("no");
}

bool tile::autotuneVerbose() {
  const char *value = std::getenv("TILEC_AUTOTUNE");
  return value && llvm::StringRef(value).equals_insensitive("verbose");
}

namespace {

/// The base options with the candidate's constants and options.
CompileOptions optionsFor(const CompileOptions &base,
                          const TuneCandidate &candidate) {
  CompileOptions options = base;
  for (const auto &[name, value] : candidate.constants) {
    auto it = std::find_if(options.constants.begin(), options.constants.end(),
                           [&](const auto &c) { return c.first == name; });
    if (it != options.constants.end())
      it->second = value;
    else
      options.constants.emplace_back(name, value);
  }
  options.merge(candidate.options);
  // A candidate is a schedule: the options it leaves out keep their
  // defaults rather than taking the compiler's choice (auto_schedule), so
  // that each candidate is the one the caller listed. A candidate may ask
  // for the choice with auto_schedule=on.
  if (!options.autoSchedule)
    options.autoSchedule = false;
  return options;
}

/// Hex SHA-256 over length-prefixed fields.
class KeyHasher {
public:
  void add(llvm::StringRef field) {
    uint64_t size = field.size();
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
      bytes[i] = static_cast<uint8_t>(size >> (8 * i));
    hasher.update(llvm::ArrayRef<uint8_t>(bytes));
    hasher.update(field);
  }
  std::string hex() { return llvm::toHex(hasher.final(), /*LowerCase=*/true); }

private:
  llvm::SHA256 hasher;
};

/// What autotune() remembers per key in this process.
std::mutex memoryMutex;
std::map<std::string, size_t> &memory() {
  static auto *table = new std::map<std::string, size_t>();
  return *table;
}

/// A progress line on stderr, once the tuning has taken a second.
class Progress {
public:
  Progress(std::string what)
      : what(std::move(what)), tty(isatty(2)), verbose(autotuneVerbose()) {}
  ~Progress() {
    if (shown && tty)
      std::fputc('\n', stderr);
  }
  bool due() const { return verbose || seconds() > 1.0; }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
  /// Shows `text` if a second has passed; on a terminal the line is
  /// rewritten in place, elsewhere only `final` steps are printed.
  /// TILEC_AUTOTUNE=verbose: the `final` steps and details at once, each
  /// on a line of its own.
  void show(const std::string &text, bool final) {
    if (verbose) {
      if (!final)
        return;
      std::fprintf(stderr, "tilec: autotuning %s: %s (%.1f s)\n", what.c_str(),
                   text.c_str(), seconds());
      std::fflush(stderr);
      return;
    }
    if (!due() || (!tty && !final))
      return;
    shown = true;
    std::fprintf(stderr, "%stilec: autotuning %s: %s (%.1f s)%s",
                 tty ? "\r" : "", what.c_str(), text.c_str(), seconds(),
                 tty ? "\x1b[K" : "\n");
    std::fflush(stderr);
  }

  /// A line only TILEC_AUTOTUNE=verbose prints.
  template <typename Text> void detail(Text text) {
    if (verbose)
      show(text(), true);
  }

private:
  std::string what;
  bool tty, verbose;
  bool shown = false;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

struct Compiled {
  size_t index;
  Kernel kernel;
};

} // namespace

/// The most candidates autotuning with no candidates makes.
static constexpr size_t kMaxTuneSpace = 256;

std::vector<Options> tile::scheduleVariants(const Options &given) {
  std::vector<Options> out;
  // The compiler's choice (on sm_90a a specialized kernel is persistent),
  // then not persistent: with the choice's rings and with rings of 2, 3 and
  // 4 stages (the choice keeps the loads' latency hints where they fit);
  // then persistent (a block per multiprocessor slot, for grids of many
  // short blocks): with the choice's rings, with 2 and with 3 (a
  // specialized GEMM's 128 x 256 f16 output staged whole beside 3 stages,
  // in halves beside 4: 1.25x faster at K = 128, 0.96x at K = 4096, H200,
  // bench/results/2026-11-29-h200-gemm-schedules.md), and with the tile's own
  // copies in one slot (tile_stages=1, room for rings where two would not fit);
  // and persistent with 2 stages and the accumulator rescaled at its trip's end
  // (rescale_in_trip), alone and with the tile's one copy refilled right after
  // its last read (tile_refill_after_read): on a plain attention forward at N =
  // 1024-4096 these gain 4-13% over the others
  // (bench/results/2026-11-28-h200-occupancy-stages.md); and persistent in two
  // consumer groups that take the tiles in turn, one's epilogue under the
  // other's main loop (consumer_groups=2: where the epilogue is much of a
  // tile, a batched 64 x 1024 x 1024 x 128 product 1.02x torch.bmm where the
  // others ran 0.99x, bench/results/2026-12-05-h100-consumer-groups-bmm.md).
  // Where an option does not apply, its candidate is the same kernel (a
  // warning in its description; the tuner times one of those), or does not
  // compile and is skipped. What the caller gave stays.
  struct Variant {
    std::optional<unsigned> stages;
    std::optional<bool> persistent;
    std::optional<unsigned> tileStages;
    bool refill = false, rescale = false;
    std::optional<unsigned> groups;
  };
  auto add = [&](const Variant &v) {
    if ((v.stages && given.numStages) || (v.tileStages && given.tileStages) ||
        (v.refill && given.tileRefillAfterRead) ||
        (v.rescale && given.rescaleInTrip) ||
        (v.groups && given.consumerGroups))
      return;
    // Where the caller gave persistent, the persistent variants go and the
    // others keep only their rings.
    std::optional<bool> persistent = v.persistent;
    if (persistent && given.persistent) {
      if (*persistent || !v.stages)
        return;
      persistent.reset();
    }
    Options o;
    if (!given.autoSchedule)
      o.autoSchedule = true;
    o.numStages = v.stages;
    o.persistent = persistent;
    o.tileStages = v.tileStages;
    if (v.refill)
      o.tileRefillAfterRead = true;
    if (v.rescale)
      o.rescaleInTrip = true;
    o.consumerGroups = v.groups;
    out.push_back(o);
  };
  add({});
  add({std::nullopt, false});
  for (unsigned stages : {2u, 3u, 4u})
    add({stages, false});
  add({std::nullopt, true});
  add({2u, true});
  add({3u, true});
  add({std::nullopt, true, 1u});
  add({2u, true, std::nullopt, false, true});
  add({2u, true, 1u, true, true});
  add({std::nullopt, true, std::nullopt, false, false, 2u});
  return out;
}

Expected<std::vector<TuneCandidate>>
tile::tuneSpaceCandidates(const Kernel &kernel, const Options &given) {
  std::vector<TuneCandidate> out(1);
  for (const auto &[name, values] : kernel.get()->info.tune) {
    std::vector<TuneCandidate> grown;
    for (const TuneCandidate &c : out)
      for (const std::string &v : values) {
        TuneCandidate n = c;
        n.constants.emplace_back(name, v);
        grown.push_back(std::move(n));
      }
    out = std::move(grown);
  }
  std::vector<Options> schedules = scheduleVariants(given);
  if (out.size() * schedules.size() > kMaxTuneSpace)
    return Status::error("kernel '" + kernel.name() + "': its @tune's " +
                         std::to_string(out.size()) + " combinations, " +
                         std::to_string(schedules.size()) +
                         " schedules each, are more than " +
                         std::to_string(kMaxTuneSpace) + " candidates");
  std::vector<TuneCandidate> candidates;
  for (const TuneCandidate &c : out)
    for (const Options &schedule : schedules) {
      TuneCandidate n = c;
      n.options = schedule;
      candidates.push_back(std::move(n));
    }
  return candidates;
}

bool tile::detail::sameKernel(
    const KernelImpl &x,
    const std::vector<std::pair<std::string, std::string>> &xConstants,
    const KernelImpl &y,
    const std::vector<std::pair<std::string, std::string>> &yConstants) {
  auto body = [](const std::string &ptx) {
    size_t line = ptx.find('\n');
    return llvm::StringRef(ptx).substr(line == std::string::npos ? 0 : line);
  };
  return xConstants == yConstants && x.info.numWarps == y.info.numWarps &&
         x.info.sharedBytes == y.info.sharedBytes &&
         x.info.persistent == y.info.persistent &&
         x.info.tileCounter == y.info.tileCounter &&
         x.info.cluster == y.info.cluster &&
         x.info.tensorMaps.size() == y.info.tensorMaps.size() &&
         body(x.ptx) == body(y.ptx);
}

Expected<TuneResult> tile::autotune(const std::string &source,
                                    const std::string &name,
                                    const CompileOptions &base,
                                    const std::vector<TuneCandidate> &given,
                                    const std::string &problemKey,
                                    const TuneLaunch &launch, Stream stream,
                                    const TuneOptions &tuneOptions) {
  if (!launch)
    return Status::error("autotune: no launch function");
  Runtime &runtime = Runtime::get();
  Expected<const GpuContext *> gpu = gpuContext();
  if (!gpu)
    return Status::error("autotune: " + gpu.status().message());
  const DeviceInfo &device = (*gpu)->info;

  CompileOptions resolved = base;
  if (resolved.arch.empty())
    resolved.arch = device.arch;

  // The given candidates themselves (callers may find a candidate's index
  // from its address), or the kernel's @tune's.
  std::vector<TuneCandidate> generated;
  const std::vector<TuneCandidate> &candidates =
      given.empty() ? generated : given;
  if (given.empty()) {
    // No candidates: the kernel's own @tune, compiled with the base
    // options to read it.
    Expected<Kernel> plain = runtime.compileSource(source, name, resolved);
    if (!plain)
      return Status::error("autotune: no candidates, and the kernel does "
                           "not compile to read its @tune: " +
                           plain.status().message());
    Expected<std::vector<TuneCandidate>> space =
        tuneSpaceCandidates(*plain, resolved);
    if (!space)
      return Status::error("autotune: no candidates, and " +
                           space.status().message());
    generated = std::move(*space);
  }

  // The key: everything that could change the winner.
  KeyHasher hasher;
  hasher.add("tilec-autotune-v2");
  hasher.add(device.name);
  hasher.add(std::to_string(device.computeMajor) + "." +
             std::to_string(device.computeMinor));
  hasher.add(std::to_string((*gpu)->driver->driverVersion));
  hasher.add(runtime.getImpl()->compilerVersion());
  hasher.add(source);
  hasher.add(resolved.kernel);
  hasher.add(resolved.arch);
  // Every compile option (tile/Options.def), as Options::keyText says.
  hasher.add(resolved.keyText());
  std::vector<std::pair<std::string, std::string>> constants =
      resolved.constants;
  std::stable_sort(
      constants.begin(), constants.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  for (const auto &[constant, value] : constants) {
    hasher.add(constant);
    hasher.add(value);
  }
  hasher.add(std::to_string(candidates.size()));
  for (const TuneCandidate &candidate : candidates)
    hasher.add(candidate.describe());
  hasher.add(problemKey);
  std::string key = hasher.hex();

  TuneResult result;
  auto finish = [&](size_t index, Kernel kernel,
                    const char *from) -> Expected<TuneResult> {
    result.kernel = kernel;
    result.index = index;
    result.config = candidates[index];
    result.source = from;
    return result;
  };
  auto compileOne = [&](size_t index) {
    return runtime.compileSource(source, name,
                                 optionsFor(resolved, candidates[index]));
  };

  bool disabled = autotuneDisabled();
  // Remembered in this process, or on disk?
  if (!disabled) {
    std::optional<size_t> known;
    {
      std::lock_guard<std::mutex> lock(memoryMutex);
      auto it = memory().find(key);
      if (it != memory().end())
        known = it->second;
    }
    if (known) {
      Expected<Kernel> kernel = compileOne(*known);
      if (kernel)
        return finish(*known, *kernel, "memory");
    }
    const DiskCache &disk = runtime.getImpl()->diskCache();
    if (std::optional<std::string> stored = disk.readBinary(key + ".tune")) {
      // "index\nconfig\nms\n"
      llvm::SmallVector<llvm::StringRef, 4> lines;
      llvm::StringRef(*stored).split(lines, '\n');
      size_t index = 0;
      if (lines.size() >= 2 && !lines[0].getAsInteger(10, index) &&
          index < candidates.size() &&
          lines[1] == candidates[index].describe()) {
        Expected<Kernel> kernel = compileOne(index);
        if (kernel) {
          {
            std::lock_guard<std::mutex> lock(memoryMutex);
            memory()[key] = index;
          }
          double ms = 0;
          if (lines.size() >= 3 && !lines[2].getAsDouble(ms))
            result.ms = static_cast<float>(ms);
          return finish(index, *kernel, "disk");
        }
      }
    }
  }

  Progress progress(name + " [" + problemKey + "]");

  // Compile every candidate (all of them, in parallel; only the first that
  // works when tuning is off).
  std::vector<std::optional<Expected<Kernel>>> kernels(candidates.size());
  if (disabled || candidates.size() == 1) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      Expected<Kernel> kernel = compileOne(i);
      if (kernel)
        return finish(i, *kernel, "default");
      result.notes.push_back("skipped " + candidates[i].describe() + ": " +
                             kernel.status().message());
    }
  } else {
    std::atomic<size_t> next{0}, done{0};
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    workers = std::min<unsigned>(workers, candidates.size());
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < candidates.size();) {
          kernels[i] = compileOne(i);
          done.fetch_add(1);
        }
      });
    while (done.load() < candidates.size()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      progress.show("compiled " + std::to_string(done.load()) + "/" +
                        std::to_string(candidates.size()) + " candidates",
                    false);
    }
    for (std::thread &thread : threads)
      thread.join();
    progress.show(
        "compiled " + std::to_string(candidates.size()) + " candidates", true);
  }

  // Candidates that compiled to the same kernel as an earlier one (an
  // option that did not apply, a schedule the choice made anyway) are
  // timed once, as the first of them.
  std::vector<Compiled> compiled;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kernels[i])
      continue;
    if (!*kernels[i]) {
      result.notes.push_back("skipped " + candidates[i].describe() + ": " +
                             kernels[i]->status().message());
      continue;
    }
    auto same = llvm::find_if(compiled, [&](const Compiled &c) {
      return detail::sameKernel(*c.kernel.get(), candidates[c.index].constants,
                                *(**kernels[i]).get(), candidates[i].constants);
    });
    if (same != compiled.end()) {
      result.notes.push_back("skipped " + candidates[i].describe() +
                             ": the same kernel as " +
                             candidates[same->index].describe());
      continue;
    }
    compiled.push_back({i, **kernels[i]});
  }
  // A candidate that spills (the driver gave its threads local memory) is
  // not timed where another does not: its spilled values go through local
  // memory, and a pick that spills warns of it at every load. Where every
  // candidate spills, all are timed.
  if (llvm::any_of(compiled, [](const Compiled &c) {
        return c.kernel.localBytes() == 0;
      }))
    llvm::erase_if(compiled, [&](const Compiled &c) {
      unsigned bytes = c.kernel.localBytes();
      if (bytes)
        result.notes.push_back(
            "skipped " + candidates[c.index].describe() + ": it spills (" +
            std::to_string(bytes) +
            " bytes of local memory per thread) and another candidate "
            "does not");
      return bytes != 0;
    });
  auto allFailed = [&] {
    std::string message = "autotune " + name + " [" + problemKey +
                          "]: no candidate compiled and launched";
    for (const std::string &note : result.notes)
      message += "\n  " + note;
    return Status::error(message);
  };
  if (compiled.empty())
    return allFailed();
  for (const std::string &note : result.notes)
    progress.detail([&] { return note; });

  // Time each on the caller's stream.
  Expected<Event> start = Event::create();
  if (!start)
    return start.status();
  Expected<Event> end = Event::create();
  if (!end)
    return end.status();
  // Milliseconds per launch of compiled[c] over `iterations` launches after
  // the warm-up, or the failure. The launches are captured into a CUDA
  // graph and replayed, so that the GPU's time is measured: launched one
  // by one, a kernel shorter than the host's launch cost (a few rows of a
  // decode-shaped multiply, 15 us against 30 us of Python and driver per
  // launch on the H200's host) is timed at the host's pace, and every
  // candidate alike. Where the launches cannot be captured (a driver
  // without graphs, a launch function that does not launch on the stream it
  // is given), that candidate's are timed as they come, which can only
  // make it look slower.
  bool graphs = true;
  auto timeOne = [&](size_t c, unsigned iterations) -> Expected<float> {
    const Compiled &candidate = compiled[c];
    const TuneCandidate &config = candidates[candidate.index];
    Status status;
    for (unsigned i = 0; i < tuneOptions.warmup && status.ok(); ++i)
      status = launch(candidate.kernel, config, stream);
    if (status.ok() && graphs) {
      Expected<float> captured =
          timeCapturedLaunches(stream, iterations, [&](Stream on) {
            return launch(candidate.kernel, config, on);
          });
      if (captured)
        return captured;
      graphs = graphs && captured.status().message() != kNoGraphs;
      result.notes.push_back(
          config.describe() +
          " timed without a CUDA graph: " + captured.status().message());
    }
    if (status.ok())
      status = start->record(stream);
    for (unsigned i = 0; i < iterations && status.ok(); ++i)
      status = launch(candidate.kernel, config, stream);
    if (status.ok())
      status = end->record(stream);
    if (status.ok())
      status = end->synchronize();
    Expected<float> ms =
        status.ok() ? end->elapsedMsSince(*start) : Expected<float>(status);
    if (!ms)
      return ms;
    return *ms / iterations;
  };
  unsigned iterations = std::max(1u, tuneOptions.iterations);
  std::vector<std::pair<float, size_t>> ran; // (ms, position in compiled)
  for (size_t c = 0; c < compiled.size(); ++c) {
    const TuneCandidate &config = candidates[compiled[c].index];
    progress.show("timing " + std::to_string(c + 1) + "/" +
                      std::to_string(compiled.size()) + " (" +
                      config.describe() + ")",
                  false);
    Expected<float> ms = timeOne(c, iterations);
    if (!ms) {
      result.notes.push_back("skipped " + config.describe() + ": " +
                             ms.status().message());
      // A kernel fault poisons the context: stop there.
      if (Status sync = synchronize(stream); !sync.ok())
        return Status::error("autotune " + name + " [" + problemKey +
                             "]: the GPU failed while timing " +
                             config.describe() + ": " + sync.message());
      continue;
    }
    ran.emplace_back(*ms, c);
    progress.detail(
        [&] { return config.describe() + ": " + std::to_string(*ms) + " ms"; });
  }
  // One short measurement each is noisy enough to crown the wrong one, and
  // timing candidates one after another lets the clocks drift between
  // them (a long run heats the GPU for the next). The fastest few (the
  // three fastest, and up to five within 5% of the fastest: a candidate a
  // few percent behind in one short measurement can win the rounds) are
  // timed again in rounds, each round timing every one of them once, and
  // the median of the rounds decides. Each round starts one finalist
  // further on, so that no finalist always runs right after the same one.
  // With the finalists in one fixed order (H200, attention at head dim 64,
  // N = 16k) the 64 x 128 kernel measured 20.5 ms in the rounds against
  // 19.6 ms in its first measurement, behind the specialized 128 x 128
  // kernel's 20.1 ms, though it runs 9% faster than that one interleaved
  // with it (bench/ptx_ab.py); with the order rotated and seven rounds,
  // two tunings of two chose it (bench/results/2026-11-23-h200-tuner-order.md).
  std::sort(ran.begin(), ran.end());
  if (ran.size() > 1) {
    size_t finalists = std::min<size_t>(ran.size(), 3);
    while (finalists < std::min<size_t>(ran.size(), 5) &&
           ran[finalists].first <= ran.front().first * 1.05f)
      ++finalists;
    ran.resize(finalists);
    progress.show("timing the fastest " + std::to_string(ran.size()) +
                      " again, interleaved",
                  false);
    constexpr unsigned kRounds = 7;
    std::vector<std::vector<float>> rounds(ran.size());
    for (unsigned round = 0; round < kRounds; ++round)
      for (size_t i = 0; i < ran.size(); ++i) {
        size_t f = (round + i) % ran.size();
        size_t c = ran[f].second;
        Expected<float> again = timeOne(c, std::max(1u, iterations / 2));
        if (!again)
          return Status::error("autotune " + name + " [" + problemKey +
                               "]: the GPU failed while timing " +
                               candidates[compiled[c].index].describe() +
                               " again: " + again.status().message());
        rounds[f].push_back(*again);
      }
    for (size_t f = 0; f < ran.size(); ++f) {
      std::sort(rounds[f].begin(), rounds[f].end());
      ran[f].first = rounds[f][kRounds / 2];
      progress.detail([&] {
        return candidates[compiled[ran[f].second].index].describe() +
               ": median of the rounds " + std::to_string(ran[f].first) +
               " ms (" + std::to_string(rounds[f].front()) + " to " +
               std::to_string(rounds[f].back()) + ")";
      });
    }
    std::sort(ran.begin(), ran.end());
  }
  if (ran.empty())
    return allFailed();
  auto [bestMs, best] = ran.front();

  size_t index = compiled[best].index;
  {
    std::lock_guard<std::mutex> lock(memoryMutex);
    memory()[key] = index;
  }
  char msText[32];
  std::snprintf(msText, sizeof(msText), "%.6f", bestMs);
  // A cache that cannot be written only costs a tuning next time.
  (void)runtime.getImpl()->diskCache().writeBinary(
      key + ".tune", std::to_string(index) + "\n" +
                         candidates[index].describe() + "\n" + msText + "\n");
  progress.show(
      "chose " + candidates[index].describe() + ", " + msText + " ms, of " +
          std::to_string(compiled.size()) + " candidates" +
          (result.notes.empty()
               ? std::string()
               : " (" + std::to_string(result.notes.size()) + " skipped)"),
      true);
  result.ms = bestMs;
  return finish(index, compiled[best].kernel, "tuned");
}
