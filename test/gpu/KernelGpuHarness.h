//===- KernelGpuHarness.h - tile-kernel-gpu-tests' harness -----*- C++ -*-===//
//
// What the GPU tests of the project's kernels share: the run's configuration,
// the compile options a case asks for (carried with its constants as one
// tile::Options text), getting kernels JIT and AOT (tilec --emit=ptx with
// each option as its flag) with a cache keyed by the constants, launching,
// and host matrices. Each family's cases are in a file of their own
// (VectorAdd, Softmax, Gemm, FlashAttention); KernelGpuTest.cpp is the main.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_GPU_KERNELGPUHARNESS_H
#define TILE_TEST_GPU_KERNELGPUHARNESS_H

#include "GpuTest.h"
#include "tile/Tile.h"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace gputest;
using tile::Arg;
using tile::DType;
using tile::Kernel;
using tile::Tensor;

#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace kernelgpu {

using Constants = std::vector<std::pair<std::string, std::string>>;

/// What a case builds: the kernel's constants (tilec -D), the compile
/// options (tilec's flags, or the JIT's tile::CompileOptions), the byte
/// alignment its tensors have (base, outer strides and the length of the
/// last dimension: an AOT kernel is compiled for it, tilec --alignment), and
/// whether the options a kernel may give in its @hints(...) reach the
/// compiler as the kernel's own hints, written into a copy of its source,
/// and not as compile options. A persistent kernel runs on few blocks: the
/// test sets $TILEC_PERSISTENT_BLOCKS to 3, so that even the small grids
/// here run several tiles per block.
struct Build {
  /// The kernel of the file to build; empty: the file's only one.
  std::string kernel;
  Constants constants;
  tile::Options options;
  unsigned alignment = 16;
  bool viaHints = false;

  /// "DTYPE=f16 TILE_M=128 [num_stages=2,...] align=16 (hints)": the key of
  /// the kernel cache below.
  std::string describe() const {
    std::string text = kernel.empty() ? "" : kernel + ":";
    for (const auto &[name, value] : constants)
      text += (text.empty() ? "" : " ") + name + "=" + value;
    text += " [" + options.text() + "] align=" + std::to_string(alignment);
    if (viaHints)
      text += " (hints)";
    return text;
  }
};

/// The options every case gives the compiler: `stages` pipeline stages,
/// loops split or not, warp specialization on or off, `warps` warps, no
/// ping-pong, not persistent (each case changes what it tests).
inline tile::Options codegen(unsigned stages, bool split,
                             bool specialize = false, unsigned warps = 4) {
  tile::Options options;
  options.numStages = stages;
  options.loopSplit = split;
  options.warpSpecialize = specialize;
  options.numWarps = warps;
  options.pingPong = false;
  options.persistent = false;
  return options;
}

/// The largest power of two up to 16 dividing `elements` elements of
/// `bytes` bytes each.
inline unsigned alignmentFor(int64_t elements, unsigned bytes) {
  uint64_t total = uint64_t(elements) * bytes;
  unsigned a = 16;
  while (a > bytes && total % a)
    a /= 2;
  return a;
}

struct Config {
  std::string kernelsDir;
  std::string tilec;
  std::string family = "all";
  std::string workDir;
  bool quick = false;
  bool sanitize = false; // --sanitize-subset
  bool jitOnly = false;
  bool aotOnly = false;
  unsigned jobs = 0; // parallel compiles; 0: one per core
  uint64_t seed = 0;
  /// --arch=: the target both JIT and AOT compile for (sm_80: the mma.sync
  /// path, sm_90a: wgmma); empty: the GPU's own (JIT) and tilec's default.
  std::string arch;
  /// Whether the kernels are built for sm_90a (wgmma, TMA, warp
  /// specialization): --arch=sm_90a, or tilec's default.
  bool sm90a() const { return arch.empty() || arch == "sm_90a"; }
};
inline Config config;
inline int passes = 0, failures = 0;

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Runs `parallel` threads over [0, n).
inline void parallelFor(size_t n, const std::function<void(size_t)> &body) {
  unsigned threads = config.jobs
                         ? config.jobs
                         : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < n;)
        body(i);
    });
  for (std::thread &thread : pool)
    thread.join();
}

//===----------------------------------------------------------------------===//
// Getting kernels: JIT and AOT
//===----------------------------------------------------------------------===//

enum class Mode { JIT, AOT };
inline const char *modeName(Mode mode) {
  return mode == Mode::JIT ? "jit" : "aot";
}

/// Runs tilec --emit=ptx with `options` as its flags (each option's key
/// with '-' for '_'); the error text on failure.
inline std::string runTilec(const std::string &file, const Constants &constants,
                            const std::string &output, unsigned alignment,
                            const tile::Options &options,
                            const std::string &kernel = "") {
  std::vector<std::string> args = {
      config.tilec, "--emit=ptx", file,
      "--alignment=" + std::to_string(alignment),
      "--arch=" + (config.arch.empty() ? std::string("sm_90a") : config.arch)};
  if (!kernel.empty())
    args.push_back("--kernel=" + kernel);
  options.forEach([&](const tile::OptionInfo &info, const auto &value) {
    if (!value)
      return;
    args.push_back(std::string("--") + tile::optionFlag(info.key) + "=" +
                   (info.isBool ? (*value ? "true" : "false")
                                : std::to_string(unsigned(*value))));
  });
  for (const auto &[name, value] : constants)
    args.push_back("-D" + name + "=" + value);
  args.push_back("-o");
  args.push_back(output);
  return runProgram(args, output + ".log");
}

/// Kernels by (mode, file, build), each built once even when several
/// threads ask for it at the same time.
class Kernels {
public:
  tile::Expected<Kernel> get(Mode mode, const std::string &name,
                             const Build &wanted) {
    std::string key =
        std::string(modeName(mode)) + "|" + name + "|" + wanted.describe();
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard<std::mutex> lock(mutex);
      std::shared_ptr<Slot> &entry = slots[key];
      if (!entry)
        entry = std::make_shared<Slot>();
      slot = entry;
    }
    std::lock_guard<std::mutex> lock(slot->mutex);
    if (!slot->kernel)
      slot->kernel.emplace(build(mode, name, wanted));
    return *slot->kernel;
  }

  /// Compiles everything `wanted` names, on all cores at once.
  void
  prepare(const std::vector<std::tuple<Mode, std::string, Build>> &wanted) {
    parallelFor(wanted.size(), [&](size_t i) {
      auto &[mode, name, build] = wanted[i];
      get(mode, name, build);
    });
  }

private:
  struct Slot {
    std::mutex mutex;
    std::optional<tile::Expected<Kernel>> kernel;
  };

  tile::Expected<Kernel> build(Mode mode, const std::string &name,
                               const Build &wanted) {
    std::string file = config.kernelsDir + "/" + name + ".tile";
    const Constants &constants = wanted.constants;
    const tile::Options &asked = wanted.options;
    unsigned alignment = wanted.alignment;
    bool viaHints = wanted.viaHints;
    // With viaHints, the options a kernel may give go into its @hints and
    // not to the compiler.
    tile::Options given = asked;
    if (viaHints) {
      tile::Expected<std::string> hinted =
          withHints(file, asked, wanted.kernel);
      if (!hinted)
        return hinted.status();
      file = *hinted;
      given.forEach([&](const tile::OptionInfo &info, auto &value) {
        if (info.flags & TILE_OPTION_HINT)
          value.reset();
      });
    }
    bool warpSpecialize = asked.warpSpecialize.value_or(false);
    bool persistent = asked.persistent.value_or(false);
    unsigned numWarps = asked.numWarps.value_or(4);
    unsigned numStages = asked.numStages.value_or(0);
    bool loopSplit = asked.loopSplit.value_or(true);
    auto compile = [&]() -> tile::Expected<Kernel> {
      if (mode == Mode::JIT) {
        tile::CompileOptions options;
        static_cast<tile::Options &>(options) = given;
        options.constants = constants;
        options.arch = config.arch;
        options.kernel = wanted.kernel;
        return tile::Runtime::get().compileFile(file, options);
      }
      std::string output = config.workDir + "/" + name + "-" +
                           std::to_string(++counter) + ".ptx";
      std::string error =
          runTilec(file, constants, output, alignment, given, wanted.kernel);
      if (!error.empty())
        return tile::Status::error(error);
      return tile::Runtime::get().loadPTXFile(output);
    };
    tile::Expected<Kernel> kernel = compile();
    // Warp specialization (sm_90a) adds the producer's warpgroup to the
    // block: a kernel asked for it must have it.
    if (kernel && warpSpecialize && config.sm90a() &&
        kernel->numWarps() != numWarps + 4)
      return tile::Status::error(
          "asked for warp specialization, got a kernel of " +
          std::to_string(kernel->numWarps()) + " warps (" +
          std::to_string(numWarps) + " + 4 expected)");
    if (kernel && kernel->persistent() != persistent)
      return tile::Status::error(std::string("asked for persistent=") +
                                 (persistent ? "true" : "false") +
                                 ", got a kernel that is " +
                                 (persistent ? "not " : "") + "persistent");
    // The options must have reached the compiler: a test of stages=3 that
    // ran the default build would prove nothing.
    if (kernel &&
        (kernel->numStages() != numStages || kernel->loopSplit() != loopSplit))
      return tile::Status::error(
          "asked for num_stages=" + std::to_string(numStages) +
          " loop_split=" + (loopSplit ? "true" : "false") +
          ", got a kernel built with num_stages=" +
          std::to_string(kernel->numStages()) +
          " loop_split=" + (kernel->loopSplit() ? "true" : "false"));
    return kernel;
  }

  /// A copy of `file` whose kernel `kernel` (empty: its first) carries the
  /// options it may give (tile/Options.def's TILE_OPTION_HINT) as its
  /// @hints(...); its path.
  tile::Expected<std::string> withHints(const std::string &file,
                                        const tile::Options &options,
                                        const std::string &kernel) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::string source = text.str();
    size_t at = source.find("\nkernel " + kernel + (kernel.empty() ? "" : "("));
    if (!in || at == std::string::npos)
      return tile::Status::error("no kernel " + kernel + " in " + file);
    std::string hints = "\n@hints(";
    bool first = true;
    options.forEach([&](const tile::OptionInfo &info, const auto &value) {
      if (!value || !(info.flags & TILE_OPTION_HINT))
        return;
      hints += std::string(first ? "" : ", ") + info.key + "=" +
               (info.isBool ? (*value ? "True" : "False")
                            : std::to_string(unsigned(*value)));
      first = false;
    });
    source.insert(at, hints + ")");
    std::string path =
        config.workDir + "/hinted-" + std::to_string(++counter) + ".tile";
    std::ofstream out(path);
    out << source;
    if (!out.flush())
      return tile::Status::error("cannot write " + path);
    return path;
  }

  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Slot>> slots;
  std::atomic<int> counter{0};
};
inline Kernels kernels;

inline std::vector<Mode> modes() {
  if (config.jitOnly)
    return {Mode::JIT};
  if (config.aotOnly)
    return {Mode::AOT};
  return {Mode::JIT, Mode::AOT};
}

/// Launches `name` built as `build` asks in `mode`; false (reported) on
/// failure.
inline bool launch(const std::string &caseName, Mode mode,
                   const std::string &name, const Build &build, tile::Dim3 grid,
                   const std::vector<Arg> &args) {
  tile::Expected<Kernel> kernel = kernels.get(mode, name, build);
  tile::Status status =
      kernel ? kernel->launch(grid, nullptr, args) : kernel.status();
  if (status.ok())
    status = tile::synchronize();
  if (!status.ok()) {
    std::printf("%-64s FAIL: %s\n", caseName.c_str(), status.message().c_str());
    std::fflush(stdout);
    ++failures;
    return false;
  }
  return true;
}

inline void tally(bool ok) { (ok ? passes : failures)++; }

inline double dtypeBound(DType dtype, double f16, double bf16) {
  switch (dtype) {
  case DType::F16:
    return f16;
  case DType::BF16:
    return bf16;
  default:
    return 1e-5;
  }
}

//===----------------------------------------------------------------------===//
// 2-D matrices in a row-major layout with a leading dimension
//===----------------------------------------------------------------------===//

struct Matrix {
  int64_t rows = 0, cols = 0, ld = 0;
  DType dtype = DType::F32;
  HostTensor host;
  DeviceBuffer device;

  Matrix(DType dtype, int64_t rows, int64_t cols, bool padRows)
      : rows(rows), cols(cols), dtype(dtype) {
    int64_t perRow = 16 / tile::dtypeBytes(dtype);
    ld = padRows ? cdiv(cols, perRow) * perRow : cols;
    host = HostTensor(dtype, std::max<int64_t>(1, rows * ld));
    std::fill(host.bytes.begin(), host.bytes.end(), 0xff); // NaN padding
    device = DeviceBuffer(host.bytes.size());
  }
  size_t index(int64_t r, int64_t c) const { return r * ld + c; }
  Tensor tensor() const {
    return Tensor(device.get(), dtype, {rows, cols}, {ld, 1});
  }
  void upload() { device.upload(host); }
  void download() { device.download(host); }
};

//===----------------------------------------------------------------------===//
// The families (one file each) and the sanitizers' controls
//===----------------------------------------------------------------------===//

/// The kernels the families will launch, compiled ahead in parallel.
using Wanted = std::vector<std::tuple<Mode, std::string, Build>>;

void vectorAddCases(std::mt19937_64 &rng);
void softmaxCases(std::mt19937_64 &rng);
void prepareGemm(Wanted &wanted);
void runGemm(std::mt19937_64 &rng);
void prepareFlashAttention(Wanted &wanted);
void runFlashAttention(std::mt19937_64 &rng);
/// Runs the control kernel of `tool` (memcheck, racecheck, synccheck).
int sanitizerControl(const std::string &tool);

} // namespace kernelgpu

#endif // TILE_TEST_GPU_KERNELGPUHARNESS_H
