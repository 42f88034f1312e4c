//===- KernelGpuTest.cpp - The project's kernels on a GPU, through libtile ===//
//
// Runs kernels/{vector_add,softmax,gemm,flash_attention}.tile on the GPU and
// compares every output with a float64 CPU reference. Each case runs twice:
//   [jit]  compiled at run time (tile::Runtime::compileFile), on tensors in
//          their natural layout: rows that are not 16-byte aligned make the
//          runtime compile an alignment variant;
//   [aot]  compiled ahead of time by `tilec --emit=ptx` and loaded with
//          tile::Runtime::loadPTXFile, on tensors whose rows are padded to
//          16 bytes (an AOT kernel assumes the default alignment). Padding is
//          NaN, so a kernel that reads it fails.
// Outputs are poisoned (0xFF bytes: NaN) before every run, every element is
// checked, inputs are fresh random numbers per case, seeded from the clock
// (the seed is printed; --seed=N repeats a run).
//
//   tile-kernel-gpu-tests --kernels=DIR --tilec=PATH [--family=NAME]
//                         [--quick | --sanitize-subset] [--seed=N]
//                         [--jit-only | --aot-only] [--jobs=N]
//                         [--arch=sm_80|sm_90a]
//
// Families: vector_add, softmax, gemm, flash_attention, all (the default).
// One line per case: name, relative error, PASS/FAIL. Exit 0 when all pass,
// 1 on any failure, 77 (skip) without a GPU.
//
// Software pipelining and loop splitting: besides the default build
// (num_stages=0: stages from the kernels' `latency` hints; loop splitting
// on), GEMM and flash attention run sweeps over num_stages in {1 (no
// pipelining), 2, 3, 4, 0} and, for attention, loop splitting on and off,
// with trip counts of the pipelined loops of 0, 1, 2, 3, 5 and many, ragged
// last tiles, and split points of the causal loop early, late and at the
// end. CompileOptions::numStages / loopSplit in JIT, --num-stages /
// --loop-split in AOT; every kernel is checked to say it was built with what
// was asked for. Case names carry `stages=N` (and `split=on|off`).
//
// --quick runs a subset of every family (the stage sweeps included).
// --sanitize-subset runs only a few tiny GEMM and attention cases, for
// scripts/gpu-sanitize.sh (compute-sanitizer slows every launch a lot);
// --sanitize-control=TOOL runs a kernel with a bug that TOOL must report
// (memcheck, racecheck, synccheck), to show that the sanitizer sees the
// kernels libtile loads.
//
// Flash attention: with input_pos >= 0 and seq_k >= 1, key 0 is visible to
// every query under the causal mask (q_pos = i + input_pos >= 0 = k_pos), so
// no row is fully masked and both the kernel and the reference are defined
// everywhere; the cases keep to that (a negative input_pos could mask whole
// rows, which both sides leave undefined). Rows past seq_q are computed by
// the last block but not stored.
//
//===----------------------------------------------------------------------===//

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

namespace {

using Constants = std::vector<std::pair<std::string, std::string>>;

/// Not a kernel constant: the byte alignment the test's tensors have (base,
/// outer strides and the length of the last dimension), for AOT compiles.
const char *const kAlignment = "(alignment)";
/// Not a kernel constant either: the compile options (tile::Options text,
/// "num_stages=2,loop_split=on,..."), carried with the constants so that
/// they are part of the key of the kernel cache below. A persistent kernel
/// runs on few blocks: the test sets $TILEC_PERSISTENT_BLOCKS to 3, so that
/// even the small grids here run several tiles per block.
const char *const kOptions = "(options)";
/// "true": the options a kernel may give in its @hints(...) reach the
/// compiler as the kernel's own hints, written into a copy of its source,
/// and not as compile options.
const char *const kViaHints = "(hints)";

/// The options every case gives the compiler: `stages` pipeline stages,
/// loops split or not, warp specialization on or off, `warps` warps, no
/// ping-pong, not persistent (each case changes what it tests).
tile::Options codegen(unsigned stages, bool split, bool specialize = false,
                      unsigned warps = 4) {
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
std::string alignmentFor(int64_t elements, unsigned bytes) {
  uint64_t total = uint64_t(elements) * bytes;
  unsigned a = 16;
  while (a > bytes && total % a)
    a /= 2;
  return std::to_string(a);
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
Config config;
int passes = 0, failures = 0;

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string describe(const Constants &constants) {
  std::string text;
  for (const auto &[name, value] : constants)
    text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

/// Runs `parallel` threads over [0, n).
void parallelFor(size_t n, const std::function<void(size_t)> &body) {
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
const char *modeName(Mode mode) { return mode == Mode::JIT ? "jit" : "aot"; }

/// Runs tilec --emit=ptx with `options` as its flags (each option's key
/// with '-' for '_'); the error text on failure.
std::string runTilec(const std::string &file, const Constants &constants,
                     const std::string &output, unsigned alignment,
                     const tile::Options &options) {
  std::vector<std::string> args = {
      config.tilec, "--emit=ptx", file,
      "--alignment=" + std::to_string(alignment),
      "--arch=" + (config.arch.empty() ? std::string("sm_90a") : config.arch)};
  options.forEach([&](const tile::OptionInfo &info, const auto &value) {
    if (!value)
      return;
    std::string flag = info.key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    args.push_back("--" + flag + "=" +
                   (info.isBool ? (*value ? "true" : "false")
                                : std::to_string(unsigned(*value))));
  });
  for (const auto &[name, value] : constants)
    args.push_back("-D" + name + "=" + value);
  args.push_back("-o");
  args.push_back(output);
  std::string log = output + ".log";
  // Everything the child needs is built before fork(): this process has
  // threads, and only async-signal-safe calls may follow fork().
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0)
    return "cannot run " + config.tilec;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  std::string command;
  for (const std::string &arg : args)
    command += (command.empty() ? "" : " ") + arg;
  std::string text = "`" + command + "` failed";
  if (FILE *f = std::fopen(log.c_str(), "r")) {
    char buffer[4096];
    size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, f);
    buffer[n] = 0;
    std::fclose(f);
    text += ":\n" + std::string(buffer);
  }
  return text;
}

/// Kernels by (mode, file, constants), each built once even when several
/// threads ask for it at the same time.
class Kernels {
public:
  tile::Expected<Kernel> get(Mode mode, const std::string &name,
                             const Constants &constants) {
    std::string key =
        std::string(modeName(mode)) + "|" + name + "|" + describe(constants);
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
      slot->kernel.emplace(build(mode, name, constants));
    return *slot->kernel;
  }

  /// Compiles everything `wanted` names, on all cores at once.
  void
  prepare(const std::vector<std::tuple<Mode, std::string, Constants>> &wanted) {
    parallelFor(wanted.size(), [&](size_t i) {
      auto &[mode, name, constants] = wanted[i];
      get(mode, name, constants);
    });
  }

private:
  struct Slot {
    std::mutex mutex;
    std::optional<tile::Expected<Kernel>> kernel;
  };

  tile::Expected<Kernel> build(Mode mode, const std::string &name,
                               const Constants &allConstants) {
    std::string file = config.kernelsDir + "/" + name + ".tile";
    // kAlignment is no constant of the kernel: the alignment its tensors
    // have, which an AOT kernel must be compiled for (tilec --alignment).
    // kOptions are the compile options the case asks for.
    Constants constants;
    unsigned alignment = 16;
    tile::Options asked;
    bool viaHints = false;
    for (const auto &[k, v] : allConstants) {
      if (k == kAlignment) {
        alignment = std::stoul(v);
      } else if (k == kOptions) {
        if (std::string error = asked.parse(v); !error.empty())
          return tile::Status::error("test options '" + v + "': " + error);
      } else if (k == kViaHints) {
        viaHints = v == "true";
      } else {
        constants.emplace_back(k, v);
      }
    }
    // With kViaHints, the options a kernel may give go into its @hints and
    // not to the compiler.
    tile::Options given = asked;
    if (viaHints) {
      tile::Expected<std::string> hinted = withHints(file, asked);
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
        return tile::Runtime::get().compileFile(file, options);
      }
      std::string output = config.workDir + "/" + name + "-" +
                           std::to_string(++counter) + ".ptx";
      std::string error = runTilec(file, constants, output, alignment, given);
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

  /// A copy of `file` whose first kernel carries the options it may give
  /// (tile/Options.def's TILE_OPTION_HINT) as its @hints(...); its path.
  tile::Expected<std::string> withHints(const std::string &file,
                                        const tile::Options &options) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::string source = text.str();
    size_t at = source.find("\nkernel ");
    if (!in || at == std::string::npos)
      return tile::Status::error("no kernel in " + file);
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
Kernels kernels;

std::vector<Mode> modes() {
  if (config.jitOnly)
    return {Mode::JIT};
  if (config.aotOnly)
    return {Mode::AOT};
  return {Mode::JIT, Mode::AOT};
}

/// Launches `name` with `constants` in `mode`; false (reported) on failure.
bool launch(const std::string &caseName, Mode mode, const std::string &name,
            const Constants &constants, tile::Dim3 grid,
            const std::vector<Arg> &args) {
  tile::Expected<Kernel> kernel = kernels.get(mode, name, constants);
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

void tally(bool ok) { (ok ? passes : failures)++; }

double dtypeBound(DType dtype, double f16, double bf16) {
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
// vector_add
//===----------------------------------------------------------------------===//

void vectorAdd(DType dtype, int64_t n, std::mt19937_64 &rng, bool offset) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  int64_t shift = offset ? 1 : 0; // one element in: not 16-byte aligned
  HostTensor a(dtype, n + shift), b(dtype, n + shift), c(dtype, n + shift);
  for (int64_t i = 0; i < n + shift; ++i) {
    a.set(i, uniform(rng));
    b.set(i, uniform(rng));
  }
  DeviceBuffer da(a.bytes.size()), db(b.bytes.size()), dc(c.bytes.size());
  da.upload(a);
  db.upload(b);
  Constants constants = {
      {"DTYPE", tile::dtypeName(dtype)},
      {"TILE", "1024"},
      {kAlignment, alignmentFor(n, tile::dtypeBytes(dtype))}};
  auto view = [&](const DeviceBuffer &buffer) {
    return Tensor(static_cast<char *>(buffer.get()) +
                      shift * tile::dtypeBytes(dtype),
                  dtype, {n}, {1});
  };
  for (Mode mode : modes()) {
    if (offset && mode == Mode::AOT)
      continue; // an AOT kernel assumes 16-byte alignment
    std::string name = std::string("vector_add ") + tile::dtypeName(dtype) +
                       " n=" + std::to_string(n) + (offset ? " base+1" : "") +
                       " [" + modeName(mode) + "]";
    dc.poison();
    if (!launch(name, mode, "vector_add", constants,
                tile::Dim3(static_cast<unsigned>(cdiv(n, 1024))),
                {view(da), view(db), view(dc)}))
      continue;
    dc.download(c);
    ErrorMeter meter;
    for (int64_t i = shift; i < n + shift; ++i)
      meter.add(c.get(i), a.get(i) + b.get(i), i);
    tally(report(name, meter.finish(), dtypeBound(dtype, 2e-3, 1.5e-2)));
  }
}

void vectorAddCases(std::mt19937_64 &rng) {
  for (DType dtype : {DType::F32, DType::F16})
    for (int64_t n :
         {int64_t(1), int64_t(1000), int64_t(1) << 20, (int64_t(1) << 20) + 3})
      vectorAdd(dtype, n, rng, false);
  vectorAdd(DType::F32, 1000, rng, true);
  vectorAdd(DType::F16, 4099, rng, true);
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

void softmax(DType dtype, int64_t rows, int64_t cols, int64_t tileN,
             std::mt19937_64 &rng) {
  std::normal_distribution<double> normal(0, 3);
  Constants constants = {
      {"DTYPE", tile::dtypeName(dtype)},
      {"TILE_M", "4"},
      {"TILE_N", std::to_string(tileN)},
      {kAlignment, alignmentFor(cols, tile::dtypeBytes(dtype))}};
  std::vector<double> x(rows * cols);
  for (double &v : x)
    v = normal(rng);
  for (Mode mode : modes()) {
    bool pad = mode == Mode::AOT;
    Matrix in(dtype, rows, cols, pad), out(dtype, rows, cols, pad);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        in.host.set(in.index(r, c), x[r * cols + c]);
    in.upload();
    out.device.poison();
    std::string name = std::string("softmax ") + tile::dtypeName(dtype) + " " +
                       std::to_string(rows) + "x" + std::to_string(cols) +
                       " TILE_N=" + std::to_string(tileN) + " [" +
                       modeName(mode) + "]";
    if (!launch(name, mode, "softmax", constants,
                tile::Dim3(static_cast<unsigned>(cdiv(rows, 4))),
                {in.tensor(), out.tensor()}))
      continue;
    out.download();
    ErrorMeter meter;
    for (int64_t r = 0; r < rows; ++r) {
      double max = -INFINITY, sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        max = std::max(max, in.host.get(in.index(r, c)));
      for (int64_t c = 0; c < cols; ++c)
        sum += std::exp(in.host.get(in.index(r, c)) - max);
      for (int64_t c = 0; c < cols; ++c)
        meter.add(out.host.get(out.index(r, c)),
                  std::exp(in.host.get(in.index(r, c)) - max) / sum,
                  out.index(r, c));
    }
    tally(report(name, meter.finish(), dtypeBound(dtype, 3e-3, 1.5e-2)));
  }
}

void softmaxCases(std::mt19937_64 &rng) {
  struct Shape {
    int64_t rows, cols, tileN;
  } shapes[] = {{1, 1, 1024},      {7, 1000, 1024}, {128, 1024, 1024},
                {1000, 333, 1024}, {3, 17, 1024},   {4097, 1023, 1024},
                {50, 100, 128}};
  for (DType dtype : {DType::F32, DType::F16})
    for (const Shape &shape : shapes)
      softmax(dtype, shape.rows, shape.cols, shape.tileN, rng);
}

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
};

Constants gemmConstants(const Gemm &g) {
  std::string alignK = alignmentFor(g.k, tile::dtypeBytes(g.dtype));
  std::string alignN = alignmentFor(g.n, tile::dtypeBytes(g.dtype));
  Constants constants = {
      {"DTYPE", tile::dtypeName(g.dtype)},
      {"TILE_M", "128"},
      {"TILE_N", "128"},
      {"TILE_K", std::to_string(kGemmTileK)},
      {kAlignment, std::stoul(alignK) < std::stoul(alignN) ? alignK : alignN}};
  tile::Options options = codegen(g.stages, true, g.specialize);
  options.persistent = g.persistent;
  constants.push_back({kOptions, options.text()});
  if (g.viaHints)
    constants.push_back({kViaHints, "true"});
  return constants;
}

void gemm(const Gemm &g, std::mt19937_64 &rng) {
  const DType dtype = g.dtype;
  const int64_t m = g.m, n = g.n, k = g.k;
  std::uniform_real_distribution<double> uniform(-1, 1);
  Constants constants = gemmConstants(g);
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
        (rowsChecked.size() < size_t(m) ? " (sampled rows)" : "") + " [" +
        modeName(mode) + "]";
    if (!launch(name, mode, "gemm", constants,
                tile::Dim3(static_cast<unsigned>(cdiv(m, 128)),
                           static_cast<unsigned>(cdiv(n, 128))),
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
  // bf16 through the ring.
  if (!config.quick)
    for (unsigned stages : {2u, 4u})
      for (int64_t k : {0, 33, 160})
        cases.push_back({DType::BF16, 129, 257, k, stages});
  return cases;
}

//===----------------------------------------------------------------------===//
// flash attention
//===----------------------------------------------------------------------===//

struct Attention {
  DType dtype;
  int64_t d;
  bool causal;
  int64_t group;
  int64_t seqQ, seqK, inputPos;
  int64_t batch = 2, heads = 8;   // heads is the kernel's constant H
  unsigned stages = 0;            // CompileOptions::numStages; 0: the hints
  bool split = true;              // CompileOptions::loopSplit
  bool specialize = false;        // CompileOptions::warpSpecialize
  int64_t tileM = 64;             // TILE_M (128: two warpgroups of 4 warps)
  int64_t tileN = 64;             // TILE_N, keys a trip
  unsigned warps = 4;             // CompileOptions::numWarps
  bool pingPong = false;          // CompileOptions::pingPong
  bool viaHints = false;          // the options as the kernel's @hints
  bool persistent = false;        // CompileOptions::persistent
  unsigned tileStages = 0;        // CompileOptions::tileStages; 0: default
  bool tileRefill = false;        // CompileOptions::tileRefillAfterRead
  bool deferEpilogue = false;     // CompileOptions::deferEpilogue
  bool rotateTiles = false;       // CompileOptions::rotateTiles
  bool rescaleInTrip = false;     // CompileOptions::rescaleInTrip
  unsigned cluster = 1;           // CompileOptions::cluster
  int64_t groupBytes = 0;         // GROUP_BYTES (causal grid order); 0: default
  int kLatency = 0, vLatency = 0; // K_LATENCY, V_LATENCY (ring depths with
                                  // stages = 0); 0: the kernel's defaults
};

Constants attentionConstants(const Attention &t) {
  Constants constants = {{"DTYPE", tile::dtypeName(t.dtype)},
                         {"TILE_D", std::to_string(t.d)},
                         {"H", std::to_string(t.heads)},
                         {"TILE_M", std::to_string(t.tileM)},
                         {"TILE_N", std::to_string(t.tileN)},
                         {"QUERY_GROUP_SIZE", std::to_string(t.group)},
                         {"CAUSAL", t.causal ? "True" : "False"},
                         {"EVEN_K", t.seqK % t.tileN == 0 ? "True" : "False"}};
  tile::Options options = codegen(t.stages, t.split, t.specialize, t.warps);
  options.pingPong = t.pingPong;
  options.persistent = t.persistent;
  if (t.tileStages)
    options.tileStages = t.tileStages;
  if (t.tileRefill)
    options.tileRefillAfterRead = true;
  if (t.deferEpilogue)
    options.deferEpilogue = true;
  if (t.rotateTiles)
    options.rotateTiles = true;
  if (t.rescaleInTrip)
    options.rescaleInTrip = true;
  if (t.cluster > 1)
    options.cluster = t.cluster;
  constants.push_back({kOptions, options.text()});
  if (t.viaHints)
    constants.push_back({kViaHints, "true"});
  if (t.groupBytes)
    constants.push_back({"GROUP_BYTES", std::to_string(t.groupBytes)});
  if (t.kLatency)
    constants.push_back({"K_LATENCY", std::to_string(t.kLatency)});
  if (t.vLatency)
    constants.push_back({"V_LATENCY", std::to_string(t.vLatency)});
  return constants;
}

/// The persistent, specialized 128 x 128 kernel at head dim 128 with
/// `seq` queries and keys (the attention API's pick there, 2 stages).
Attention persistentD128(int64_t seq) {
  Attention t{DType::F16, 128, false, 1, seq, seq, 0};
  t.split = false;
  t.specialize = true;
  t.tileM = t.tileN = 128;
  t.warps = 8;
  t.stages = 2;
  t.persistent = true;
  return t;
}

/// The warp-specialized kernels of the attention API at head dim 128
/// (persistent, 2 consumer warpgroups, setmaxnreg; and its pick without a
/// mask: Q in one slot refilled after its last read, O * alpha at the end of
/// its trip) as the driver built them, JIT and AOT: no local memory. ptxas
/// spills it (176 bytes a thread) and serializes its wgmmas where it ignores
/// setmaxnreg, as it does when it compiles PTX as a relocatable unit (the
/// driver's JIT linker, cuLink*): a load path that did so would run the kernel
/// at 0.6-0.8x its speed.
void wholeProgramCheck() {
  if (config.arch != "sm_90a")
    return;
  Attention pick = persistentD128(256);
  pick.tileStages = 1;
  pick.tileRefill = true;
  pick.rescaleInTrip = true;
  for (const Attention &t : {persistentD128(256), pick})
    for (Mode mode : modes()) {
      tile::Expected<Kernel> kernel =
          kernels.get(mode, "flash_attention", attentionConstants(t));
      std::string name = std::string("specialized attention") +
                         (t.rescaleInTrip ? " (pick)" : "") +
                         " compiled whole [" + modeName(mode) + "]";
      if (!kernel) {
        std::printf("%-64s FAIL: %s\n", name.c_str(),
                    kernel.status().message().c_str());
        ++failures;
        continue;
      }
      bool ok = kernel->registers() > 0 && kernel->localBytes() == 0;
      std::printf("%-64s %s: %u registers, %u bytes of local memory\n",
                  name.c_str(), ok ? "PASS" : "FAIL", kernel->registers(),
                  kernel->localBytes());
      tally(ok);
    }
}

/// A kernel launched in clusters of two refuses a grid whose x is odd (a
/// cluster runs two neighbouring query tiles), saying why, and launches
/// nothing.
void clusterGridCheck() {
  if (config.arch != "sm_90a")
    return;
  Attention t = persistentD128(128);
  t.cluster = 2;
  DeviceBuffer buffer(size_t(128) * 128 * 2);
  Tensor x = Tensor::contiguous(buffer.get(), DType::F16, {1, 1, 128, 128});
  std::vector<Arg> args = {x, x, x, x, 1.0f, int64_t(0)};
  for (Mode mode : modes()) {
    std::string name =
        std::string("clustered attention, odd grid x refused [") +
        modeName(mode) + "]";
    tile::Expected<Kernel> kernel =
        kernels.get(mode, "flash_attention", attentionConstants(t));
    tile::Status status = kernel
                              ? kernel->launch(tile::Dim3(1, 1), nullptr, args)
                              : kernel.status();
    bool ok = kernel && !status.ok() &&
              status.message().find("does not split into clusters of 2") !=
                  std::string::npos;
    std::printf("%-64s %s%s%s\n", name.c_str(), ok ? "PASS" : "FAIL",
                status.ok() ? "" : ": ", status.message().c_str());
    tally(ok);
  }
}

void flashAttention(const Attention &t, std::mt19937_64 &rng) {
  const int64_t batch = t.batch, heads = t.heads, kvHeads = heads / t.group;
  const int64_t tileM = t.tileM;
  Constants constants = attentionConstants(t);

  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(-1, 1);
  HostTensor q(t.dtype, batch * heads * t.seqQ * t.d),
      k(t.dtype, batch * kvHeads * t.seqK * t.d),
      v(t.dtype, batch * kvHeads * t.seqK * t.d),
      o(t.dtype, batch * heads * t.seqQ * t.d);
  for (size_t i = 0; i < q.size(); ++i)
    q.set(i, normal(rng));
  for (size_t i = 0; i < k.size(); ++i)
    k.set(i, normal(rng));
  for (size_t i = 0; i < v.size(); ++i)
    v.set(i, uniform(rng));
  DeviceBuffer dq(q.bytes.size()), dk(k.bytes.size()), dv(v.bytes.size()),
      dout(o.bytes.size());
  dq.upload(q);
  dk.upload(k);
  dv.upload(v);
  double scale = 1.0 / std::sqrt(double(t.d));
  // The rounded inputs, in float64 for the reference.
  auto widen = [](const HostTensor &tensor) {
    std::vector<double> values(tensor.size());
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = tensor.get(i);
    return values;
  };
  std::vector<double> qd = widen(q), kd = widen(k), vd = widen(v);

  // Which (batch, head) pairs and query rows to check: all of them when the
  // reference is cheap, else a sample with the tile boundaries.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::vector<int64_t> rows;
  double cost = double(batch) * heads * t.seqQ * t.seqK * t.d;
  if (cost <= 5e8) {
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        pairs.push_back({b, h});
    for (int64_t i = 0; i < t.seqQ; ++i)
      rows.push_back(i);
  } else {
    pairs = {{0, 0},
             {batch - 1, heads - 1},
             {int64_t(rng() % batch), int64_t(rng() % heads)}};
    for (int64_t i : {int64_t(0), tileM - 1, tileM, t.seqQ - 1})
      rows.push_back(std::min(i, t.seqQ - 1));
    for (int i = 0; i < 60; ++i)
      rows.push_back(int64_t(rng() % t.seqQ));
  }

  // float64 reference: O = softmax(scale Q K^T + mask) V, with the causal
  // mask q_pos + input_pos >= k_pos.
  std::vector<double> ref(pairs.size() * rows.size() * t.d);
  parallelFor(pairs.size() * rows.size(), [&](size_t job) {
    auto [b, h] = pairs[job / rows.size()];
    int64_t i = rows[job % rows.size()];
    int64_t kvh = h / t.group;
    size_t qBase = ((b * heads + h) * t.seqQ + i) * t.d;
    size_t kvBase = (b * kvHeads + kvh) * t.seqK * t.d;
    int64_t visible = t.causal ? std::min(t.seqK, i + t.inputPos + 1) : t.seqK;
    std::vector<double> logits(visible);
    double max = -INFINITY;
    for (int64_t j = 0; j < visible; ++j) {
      double dot = 0;
      for (int64_t e = 0; e < t.d; ++e)
        dot += qd[qBase + e] * kd[kvBase + j * t.d + e];
      logits[j] = scale * dot;
      max = std::max(max, logits[j]);
    }
    double sum = 0;
    for (double &l : logits)
      sum += (l = std::exp(l - max));
    double *out = &ref[job * t.d];
    std::fill(out, out + t.d, 0.0);
    for (int64_t j = 0; j < visible; ++j)
      for (int64_t e = 0; e < t.d; ++e)
        out[e] += logits[j] / sum * vd[kvBase + j * t.d + e];
  });

  std::string base =
      std::string("fmha ") + tile::dtypeName(t.dtype) +
      " D=" + std::to_string(t.d) + (t.causal ? " causal" : " full") +
      " g=" + std::to_string(t.group) + " B=" + std::to_string(batch) +
      " H=" + std::to_string(heads) + " sq=" + std::to_string(t.seqQ) +
      " sk=" + std::to_string(t.seqK) + " pos=" + std::to_string(t.inputPos) +
      " stages=" + std::to_string(t.stages) +
      " split=" + (t.split ? "on" : "off") + (t.specialize ? " ws" : "") +
      (t.warps != 4 ? " M=" + std::to_string(t.tileM) +
                          " warps=" + std::to_string(t.warps)
                    : std::string()) +
      (t.tileN != 64 ? " N=" + std::to_string(t.tileN) : std::string()) +
      (t.pingPong ? " ping-pong" : "") + (t.persistent ? " persistent" : "") +
      (t.tileStages ? " tile_stages=" + std::to_string(t.tileStages)
                    : std::string()) +
      (t.tileRefill ? " refill_after_read" : "") +
      (t.deferEpilogue ? " defer_epilogue" : "") +
      (t.rotateTiles ? " rotate_tiles" : "") +
      (t.rescaleInTrip ? " rescale_in_trip" : "") +
      (t.cluster > 1 ? " cluster=" + std::to_string(t.cluster)
                     : std::string()) +
      (t.groupBytes ? " group_bytes=" + std::to_string(t.groupBytes)
                    : std::string()) +
      (t.kLatency || t.vLatency ? " k_latency=" + std::to_string(t.kLatency) +
                                      " v_latency=" + std::to_string(t.vLatency)
                                : std::string()) +
      (t.seqK == 0                    ? " (launch only)"
       : rows.size() < size_t(t.seqQ) ? " (sampled)"
                                      : "");
  for (Mode mode : modes()) {
    std::string name = base + " [" + modeName(mode) + "]";
    dout.poison();
    std::vector<Arg> args = {
        Tensor::contiguous(dq.get(), t.dtype, {batch, heads, t.seqQ, t.d}),
        Tensor::contiguous(dk.get(), t.dtype, {batch, kvHeads, t.seqK, t.d}),
        Tensor::contiguous(dv.get(), t.dtype, {batch, kvHeads, t.seqK, t.d}),
        Tensor::contiguous(dout.get(), t.dtype, {batch, heads, t.seqQ, t.d}),
        static_cast<float>(scale),
        t.inputPos};
    if (!launch(name, mode, "flash_attention", constants,
                tile::Dim3(static_cast<unsigned>(cdiv(t.seqQ, tileM)),
                           static_cast<unsigned>(batch * heads)),
                args))
      continue;
    if (t.seqK == 0) {
      // No keys: the loop runs 0 times and the output is 0/0, undefined on
      // both sides; the case only checks that the kernel (its pipeline
      // prologue and epilogue) runs without a fault.
      std::printf("%-64s launched, output not checked (no keys) PASS\n",
                  name.c_str());
      std::fflush(stdout);
      tally(true);
      continue;
    }
    dout.download(o);
    ErrorMeter meter;
    for (size_t i = 0; i < o.size(); ++i)
      if (!std::isfinite(o.get(i)))
        meter.add(NAN, 0, i);
    for (size_t job = 0; job < pairs.size() * rows.size(); ++job) {
      auto [b, h] = pairs[job / rows.size()];
      int64_t i = rows[job % rows.size()];
      size_t oBase = ((b * heads + h) * t.seqQ + i) * t.d;
      for (int64_t e = 0; e < t.d; ++e)
        meter.add(o.get(oBase + e), ref[job * t.d + e], oBase + e);
    }
    tally(report(name, meter.finish(), dtypeBound(t.dtype, 5e-3, 1.5e-2)));
  }
}

/// Cases of the software pipeline and of loop splitting: the K/V loop with
/// num_stages in {1, 2, 3, 4, 0} and the causal loop split or whole.
void pipelineAttentionCases(std::vector<Attention> &cases) {
  auto add = [&](DType dtype, int64_t d, bool causal, int64_t group,
                 int64_t seqQ, int64_t seqK, int64_t pos, int64_t heads,
                 unsigned stages, bool split) {
    Attention t{dtype, d, causal, group, seqQ, seqK, pos};
    t.batch = 1;
    t.heads = heads;
    t.stages = stages;
    t.split = split;
    cases.push_back(t);
  };
  const DType f16 = DType::F16;
  std::vector<unsigned> stagesSwept = {1, 2, 3, 4, 0};
  // With TILE_N=64, seq_k = 1, 63, 64: one key tile (ragged or whole); 65:
  // two; 130: three; 200: four; 1000: sixteen (ragged). Under the causal
  // mask with seq_q = seq_k, query block i visits i + 1 key tiles, so the
  // larger ones cover every trip count up to there.
  std::vector<int64_t> seqs = {1, 63, 64, 65, 130, 200, 1000};
  std::vector<int64_t> seqs128 = {65, 200, 1000};
  if (config.quick) {
    stagesSwept = {1, 3, 0};
    seqs = {1, 65, 200};
    seqs128 = {200};
  }
  for (unsigned stages : stagesSwept)
    for (bool split : {true, false})
      for (bool causal : {false, true}) {
        for (int64_t seq : seqs)
          add(f16, 64, causal, 1, seq, seq, 0, 2, stages, split);
        // Queries after a prefix of keys: the causal loop splits late
        // (14 unmasked tiles, then 2 masked), in the middle, and after its
        // first tile with a ragged end; non-causal, the ragged last tile
        // is the masked part.
        add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, split);
        if (causal && !config.quick) {
          add(f16, 64, true, 1, 100, 200, 100, 2, stages, split);
          add(f16, 64, true, 1, 17, 130, 113, 2, stages, split);
        }
        // D=128: twice the shared memory per stage.
        if (split || causal)
          for (int64_t seq : seqs128)
            if (!config.quick || split)
              add(f16, 128, causal, 1, seq, seq, 0, 2, stages, split);
      }
  // bf16 and GQA (two query heads per K/V head) through the ring.
  for (unsigned stages : {2u, 3u})
    for (bool causal : {false, true})
      if (!config.quick || stages == 3)
        add(DType::BF16, 64, causal, 1, 200, 200, 0, 2, stages, true);
  for (unsigned stages : {1u, 3u, 0u})
    add(f16, 64, true, 2, 200, 200, 0, 4, stages, true);
  add(f16, 128, false, 2, 130, 130, 0, 4, 3, true);
  // Warp specialized (sm_90a), the loop whole (a split kernel's two loops
  // stay unspecialized): every trip count above, masking, and D=128.
  for (unsigned stages : {2u, 4u, 0u})
    for (bool causal : {false, true}) {
      for (int64_t seq : seqs) {
        add(f16, 64, causal, 1, seq, seq, 0, 2, stages, false);
        cases.back().specialize = true;
      }
      add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, false);
      cases.back().specialize = true;
      for (int64_t seq : seqs128) {
        add(f16, 128, causal, 1, seq, seq, 0, 2, stages, false);
        cases.back().specialize = true;
      }
    }
  // Two consumer warpgroups (128 rows, 8 warps), free or taking turns
  // to issue their multiplies (tile-ping-pong): 1, 2, 3, 4 and 16 key
  // tiles (the last ragged), masked and not, a query tile past the keys'
  // prefix, and query rows that end inside the first warpgroup's half.
  auto twoGroups = [&](bool pingPong) {
    cases.back().specialize = true;
    cases.back().tileM = 128;
    cases.back().warps = 8;
    cases.back().pingPong = pingPong;
  };
  for (bool pingPong : {false, true})
    for (unsigned stages : {2u, 0u})
      for (bool causal : {false, true}) {
        for (int64_t d : {64, 128})
          for (int64_t seq : {int64_t(1), int64_t(64), int64_t(130),
                              int64_t(200), int64_t(1000)}) {
            add(f16, d, causal, 1, seq, seq, 0, 2, stages, false);
            twoGroups(pingPong);
          }
        add(f16, 128, causal, 1, 64, 1000, 936, 2, stages, false);
        twoGroups(pingPong);
      }
  // The causal grid order in groups of heads: 15 (batch, head) pairs in
  // groups of 4 (GROUP_BYTES = 4 heads' K and V at 200 keys, D=64), the
  // last group of 3, and of 1; 4 query tiles each.
  for (int64_t groupBytes : {int64_t(4 * 200 * 64 * 4), int64_t(1)})
    for (bool specialize : {false, true}) {
      add(f16, 64, true, 1, 200, 200, 0, 5, 2, false);
      cases.back().batch = 3;
      cases.back().groupBytes = groupBytes;
      if (specialize)
        twoGroups(false);
    }
  // The attention API's deeper rings for two consumer warpgroups: 3
  // stages (all the shared memory there is at head dim 128), 4 at 64.
  for (auto [d, stages] :
       {std::pair<int64_t, unsigned>{64, 3}, {128, 3}, {64, 4}})
    for (bool causal : {false, true})
      for (int64_t seq :
           {int64_t(1), int64_t(130), int64_t(200), int64_t(1000)}) {
        add(f16, d, causal, 1, seq, seq, 0, 2, stages, false);
        twoGroups(false);
      }
  // Rings of different depths for K and V (the attention API's head dim
  // 256 candidate: 3 stages of K, 2 of V, from the kernel's K_LATENCY and
  // V_LATENCY with stages = 0), and the reverse, so that the slots of the
  // two rings wrap at different trips: 1, 2, 3, 4 and 16 key tiles, masked
  // and not, a query tile past the keys' prefix.
  for (auto [d, kLatency, vLatency] :
       {std::tuple<int64_t, int, int>{256, 3, 2}, {64, 2, 3}})
    for (bool causal : {false, true}) {
      // At 256 the rings take 224 KiB: more than an sm_80 block may have
      // (163 KiB on an A100), so the compiler refuses it for sm_80.
      if (d == 256 && !config.sm90a())
        continue;
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(200), int64_t(256),
                          int64_t(1000)}) {
        add(f16, d, causal, 1, seq, seq, 0, 2, 0, false);
        twoGroups(false);
        cases.back().kLatency = kLatency;
        cases.back().vLatency = vLatency;
      }
      add(f16, d, causal, 1, 64, 1000, 936, 2, 0, false);
      twoGroups(false);
      cases.back().kLatency = kLatency;
      cases.back().vLatency = vLatency;
    }
  // Persistent (3 blocks, $TILEC_PERSISTENT_BLOCKS), so that each block
  // runs many query tiles of different trip counts (causal: 1 to 16 key
  // tiles; more queries than keys): two consumer warpgroups
  // with the rings running on from tile to tile, one warpgroup with and
  // without the producer warp, the causal loop split (per-tile rings) and
  // whole.
  for (unsigned stages : {2u, 0u})
    for (bool causal : {false, true}) {
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)}) {
        add(f16, 128, causal, 1, seq, seq, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        add(f16, 64, causal, 1, seq, seq, 0, 2, stages, false);
        cases.back().specialize = true;
        cases.back().persistent = true;
        for (bool split : {true, false}) {
          add(f16, 64, causal, 1, seq, seq, 0, 2, stages, split);
          cases.back().persistent = true;
        }
      }
      add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
    }
  // Persistent with K and V rings of 3 and 2 (the epilogue staged in the
  // tile's Q slot leaves room for them): head dim 128 and, with 32 keys a
  // trip, 256. sm_90a only: elsewhere the epilogue's conversion needs
  // shared memory of its own, more than there is.
  for (bool causal : {false, true})
    for (int64_t d : {128, 256}) {
      if (!config.sm90a())
        break;
      add(f16, d, causal, 1, 1000, 1000, 0, 2, 0, false);
      twoGroups(false);
      cases.back().persistent = true;
      cases.back().kLatency = 3;
      cases.back().vLatency = 2;
      if (d == 256)
        cases.back().tileN = 32;
    }
  // Persistent with each tile's Q in one slot (tile-stages=1: the producer
  // fills it at the tile's start, once the consumers have released it and
  // the previous tile's output staged there has left): head dims 128 and
  // 256 (the attention API's pick there), 1, 3 and up to 16 key tiles a
  // query tile, masked and not, and more queries than keys.
  for (bool causal : {false, true})
    for (int64_t d : {128, 256}) {
      if (!config.sm90a())
        break;
      // Each also with the slot refilled for the next tile after the
      // tile's last read (tile-refill-after-read: the release ahead of the
      // last P V; at 256 the output staged in two column halves through a
      // buffer of half its size), and with no keys at all (every tile
      // releases the slot without reading it); and that with each tile's
      // epilogue under the next tile's first multiply (tile-defer-epilogue:
      // the last tile's after the loop, a keyless tile's at its start).
      for (int variant : {0, 1, 2}) {
        bool refill = variant >= 1, defer = variant == 2;
        for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)}) {
          add(f16, d, causal, 1, seq, seq, 0, 2, 2, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().tileStages = 1;
          cases.back().tileRefill = refill;
          cases.back().deferEpilogue = defer;
        }
        add(f16, d, causal, 1, 1000, 200, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        cases.back().tileStages = 1;
        cases.back().tileRefill = refill;
        cases.back().deferEpilogue = defer;
        if (refill) {
          add(f16, d, false, 1, 300, 0, 0, 2, 2, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
          cases.back().deferEpilogue = defer;
        }
        // At 256 with K and V rings of 3 and 2: not even a quarter of the
        // output's buffer fits beside them, and it is stored from the
        // accumulator's registers.
        if (refill && d == 256) {
          add(f16, d, causal, 1, 1000, 1000, 0, 2, 0, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().kLatency = 3;
          cases.back().vLatency = 2;
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
          cases.back().deferEpilogue = defer;
        }
      }
    }
  // Persistent with its tile loop rotated (tile-rotate-tiles: the next
  // tile's first Q K^T and softmax under this tile's last P V, the output
  // staged in a buffer of its own), two consumer warpgroups, at head dims
  // 64 and 128 with 64 and 128 keys a trip: 1, 3 and 16 key tiles (the
  // pipelined loop run 0, 2 and 15 times), more queries than keys, no keys
  // at all (the unrotated copy runs), and masked (left unrotated: each
  // tile's key count differs).
  for (int64_t d : {64, 128})
    for (int64_t tileN : {64, 128}) {
      if (!config.sm90a())
        break;
      auto rotated = [&](bool causal, int64_t seqQ, int64_t seqK) {
        add(f16, d, causal, 1, seqQ, seqK, 0, 2, 2, false);
        twoGroups(false);
        cases.back().tileN = tileN;
        cases.back().persistent = true;
        cases.back().rotateTiles = true;
      };
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)})
        rotated(false, seq, seq);
      rotated(false, 1000, 200);
      rotated(false, 300, 0);
      rotated(true, 1000, 1000);
    }
  // The rotated key loop's O * alpha at the end of its trip
  // (tilec --rescale-in-trip: the peeled first trip rescales the initial
  // accumulator, the last P V after the loop continues the loop's result
  // in registers of its own): the attention API's candidates with it, the
  // persistent kernel with Q in one slot refilled after its last read at
  // head dims 128 and 256 and the persistent one of 4 stages at 64, and
  // the launched one with two warpgroups at 128; one key tile (the loop
  // not run), 2, 3 and 8 (at 256, 16), ragged, more queries than keys and
  // no keys at all, masked and not.
  for (bool causal : {false, true})
    for (int variant : {0, 1, 2, 3}) {
      if (!config.sm90a())
        break;
      int64_t d = variant == 0 ? 64 : variant == 3 ? 256 : 128;
      auto inTrip = [&](int64_t seqQ, int64_t seqK) {
        add(f16, d, causal, 1, seqQ, seqK, 0, 2, variant == 0 ? 4 : 2, false);
        twoGroups(false);
        cases.back().tileN = d == 256 ? 64 : 128;
        cases.back().rescaleInTrip = true;
        if (variant == 2)
          return;
        cases.back().persistent = true;
        if (variant != 0) {
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
        }
      };
      for (int64_t seq :
           {int64_t(1), int64_t(130), int64_t(300), int64_t(1000)})
        inTrip(seq, seq);
      inTrip(1000, 200);
      inTrip(300, 0);
    }
  // Persistent in clusters of two blocks (tilec --cluster=2; launched as
  // whole clusters, one with $TILEC_PERSISTENT_BLOCKS=3): without a
  // mask K and V are multicast, each block copying half of every tile for
  // both, their slots released in both blocks; with one each block copies
  // its own. The attention API's kernel at head dim 128 (Q refilled after
  // its last read) and the plain persistent one; 1, 2 and 8 key tiles and
  // 2 to 8 query tiles (x even, as clusters need), keys not a multiple of
  // the trip (masked in place, the same in both blocks), no keys at all.
  for (bool causal : {false, true})
    for (bool refill : {false, true}) {
      if (!config.sm90a())
        break;
      auto clustered = [&](int64_t seqQ, int64_t seqK) {
        add(f16, 128, causal, 1, seqQ, seqK, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        cases.back().cluster = 2;
        if (refill) {
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
        }
      };
      for (int64_t seq : {int64_t(130), int64_t(256), int64_t(1000)})
        clustered(seq, seq);
      clustered(1000, 200);
      clustered(512, 0);
    }
  // Causal with the loop split (its unmasked and masked loops, each with
  // rings of its own, made and invalidated inside the tile loop), the
  // default kernel persistent in clusters of 2, 4 and 8 (which failed the
  // verifier before: tile-insert-barriers moved the rings' invalidations
  // out of the loop): 1 to 16 query tiles of 1 to 16 key tiles, queries
  // after a prefix of keys, fewer keys than queries, no keys.
  for (unsigned cluster : {2u, 4u, 8u}) {
    if (!config.sm90a())
      break;
    auto clustered = [&](int64_t seqQ, int64_t seqK, int64_t pos) {
      add(f16, 64, true, 1, seqQ, seqK, pos, 2, 2, true);
      cases.back().persistent = true;
      cases.back().cluster = cluster;
    };
    clustered(64 * cluster, 64 * cluster, 0);
    clustered(1024, 1024, 0);
    clustered(1024, 1000, 0);
    clustered(64 * cluster, 1000, 1000 - 64 * cluster);
    clustered(64 * cluster, 0, 0);
  }
  // Persistent with fewer tiles than blocks (2 query tiles, 3 blocks): a
  // block that claims no tile at all, and one whose first claim ends it;
  // one and two consumer warpgroups.
  for (bool causal : {false, true})
    for (int64_t tileM : {64, 128}) {
      add(f16, 64, causal, 1, 64, 200, 136, 2, 2, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
      if (tileM == 128)
        twoGroups(false);
    }
  // Two consumer warpgroups asked for by the kernel's own @hints.
  for (bool causal : {false, true})
    for (int64_t seq : {int64_t(64), int64_t(1000)}) {
      add(f16, 128, causal, 1, seq, seq, 0, 2, 2, false);
      twoGroups(false);
      cases.back().viaHints = true;
    }
}

/// No keys at all (launch only: the output is undefined): the loop runs 0
/// times. Run last, so that a fault here cannot take other cases with it.
void emptyAttentionCases(std::vector<Attention> &cases) {
  for (unsigned stages : {1u, 3u, 0u})
    for (bool causal : {false, true})
      if (!config.quick || stages == 3) {
        Attention t{DType::F16, 64, causal, 1, 64, 0, 0};
        t.batch = 1;
        t.heads = 2;
        t.stages = stages;
        cases.push_back(t);
        t.split = false;
        t.specialize = true;
        cases.push_back(t);
        t.tileM = 128; // two consumer warpgroups, taking turns
        t.warps = 8;
        t.pingPong = true;
        cases.push_back(t);
        // Persistent (3 blocks, claimed tiles): 2 tiles of no trips, so
        // that a block also claims none.
        t.pingPong = false;
        t.persistent = true;
        cases.push_back(t);
      }
}

std::vector<Attention> attentionCases() {
  std::vector<Attention> cases;
  if (config.sanitize) {
    // Tiny, for compute-sanitizer: three key tiles (the last ragged),
    // without pipelining and with the hinted stages; then one query tile
    // over sixteen key tiles, the causal loop split after fourteen or
    // whole, through a 3-stage ring and the hinted one; a 4-stage ring at
    // D=128 on a whole loop; and no keys at all (launch only).
    auto add = [&](int64_t d, bool causal, int64_t seqQ, int64_t seqK,
                   int64_t pos, unsigned stages, bool split) {
      Attention t{DType::F16, d, causal, 1, seqQ, seqK, pos};
      t.batch = 1;
      t.heads = 2;
      t.stages = stages;
      t.split = split;
      cases.push_back(t);
    };
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (unsigned stages : {1u, 0u})
          add(d, causal, 130, 130, 0, stages, true);
    for (unsigned stages : {3u, 0u})
      for (bool split : {true, false})
        add(64, true, 64, 1000, 936, stages, split);
    add(128, true, 130, 130, 0, 4, false);
    add(64, true, 64, 0, 0, 3, true);
    // Warp specialized: 0, 1, 3 and 16 key tiles, masked and not.
    for (auto [causal, seqQ, seqK, pos] :
         {std::tuple<bool, int64_t, int64_t, int64_t>{false, 130, 130, 0},
          {true, 130, 130, 0},
          {true, 64, 1000, 936},
          {false, 64, 64, 0},
          {true, 64, 0, 0}}) {
      add(64, causal, seqQ, seqK, pos, 2, false);
      cases.back().specialize = true;
    }
    add(128, false, 130, 130, 0, 0, false);
    cases.back().specialize = true;
    // Two consumer warpgroups on 3-stage rings (the attention API's):
    // 0, 1 and 2 key tiles (the last ragged).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{false, 130, 130},
          {true, 130, 130},
          {false, 64, 64},
          {true, 64, 0}}) {
      add(64, causal, seqQ, seqK, 0, 3, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
    }
    // K and V rings of different depths (3 and 2, the API's at head dim
    // 256): 1, 3 and 4 key tiles (the last ragged), masked and not.
    for (auto [causal, seqK] : {std::pair<bool, int64_t>{false, 64},
                                {false, 200},
                                {true, 200},
                                {true, 256}}) {
      add(256, causal, 256, seqK, 0, 0, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().kLatency = 3;
      cases.back().vLatency = 2;
    }
    // Persistent (3 blocks): 3 query tiles of 1 to 3 key tiles on each,
    // specialized with one and two consumer warpgroups, and not.
    for (bool causal : {false, true}) {
      add(64, causal, 1000, 130, 0, 2, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
      add(64, causal, 1000, 130, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      add(64, causal, 1000, 130, 0, 2, true);
      cases.back().persistent = true;
    }
    // Two consumer warpgroups taking turns: 0, 1 and 3 key tiles.
    for (auto [causal, seqK] : {std::pair<bool, int64_t>{false, 130},
                                {true, 130},
                                {false, 64},
                                {true, 0}}) {
      add(64, causal, causal && !seqK ? 64 : 130, seqK, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().pingPong = true;
    }
    // Persistent, claiming its tiles: 2 query tiles on 3 blocks (a block
    // with none), of 0 and 2 key tiles, with two consumer warpgroups.
    for (int64_t seqK : {0, 130}) {
      add(64, seqK > 0, 64, seqK, seqK > 0 ? 66 : 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
    }
    // The attention API's persistent pick at head dim 128 (sm_90a): two
    // consumer warpgroups, 128 x 128, Q in one slot refilled after its
    // last read.
    auto pick128 = [&](bool causal, int64_t seqQ, int64_t seqK) {
      add(128, causal, seqQ, seqK, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().tileN = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      cases.back().tileStages = 1;
      cases.back().tileRefill = true;
    };
    // Persistent in clusters of two (K and V multicast without a mask):
    // 8 query tiles of 2 key tiles (the last ragged) on one cluster, 2 of 1
    // key tile, no keys; masked (clustered, nothing multicast).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{false, 1000, 130},
          {false, 130, 64},
          {false, 256, 0},
          {true, 256, 256}}) {
      if (!config.sm90a())
        break;
      pick128(causal, seqQ, seqK);
      cases.back().cluster = 2;
    }
    // Causal, the loop split, the default kernel persistent in clusters of
    // 2 and 4: each split loop's rings made and invalidated per tile, the
    // claims cluster-wide; 4 query tiles of 1 to 4 key tiles (the last
    // ragged), and no keys.
    for (unsigned cluster : {2u, 4u})
      for (int64_t seqK : {int64_t(250), int64_t(0)}) {
        if (!config.sm90a())
          break;
        add(64, true, 256, seqK, 0, 2, true);
        cases.back().persistent = true;
        cases.back().cluster = cluster;
      }
    // Persistent with its tile loop rotated (tile-rotate-tiles): 8 query
    // tiles of 2 key tiles on 3 blocks, 2 query tiles of 1 key tile (a
    // block with none), no keys (the loop left unrotated runs).
    for (auto [seqQ, seqK] :
         {std::pair<int64_t, int64_t>{1000, 130}, {130, 64}, {130, 0}}) {
      add(64, false, seqQ, seqK, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      cases.back().rotateTiles = true;
    }
    // The rotated loop's O * alpha at the end of its trip
    // (rescale-in-trip) on that pick: 4 query tiles on 3 blocks of 1 to 4
    // key tiles (causal) and of 2 (the last ragged), and 2 of 1 key tile
    // (the loop not run).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{true, 400, 400},
          {false, 400, 200},
          {false, 130, 64}}) {
      if (!config.sm90a())
        break;
      pick128(causal, seqQ, seqK);
      cases.back().rescaleInTrip = true;
    }
    // Persistent at head dim 128 with K and V rings of 3 and 2, the
    // epilogue staged in the tile's Q slot: 4 query tiles on 3 blocks.
    add(128, true, 400, 400, 0, 0, false);
    cases.back().specialize = true;
    cases.back().tileM = 128;
    cases.back().warps = 8;
    cases.back().persistent = true;
    cases.back().kLatency = 3;
    cases.back().vLatency = 2;
    // Persistent with each tile's Q in one slot (tile-stages=1), which
    // stages the output too: 4 query tiles on 3 blocks, 1 to 4 key tiles
    // (causal), at head dims 128 and 256; 0 key tiles. The same with the
    // slot refilled after each tile's last read (tile-refill-after-read:
    // the consumers release it inside the rotated loop's branch, and at
    // 256 stage the output in two halves through a buffer of its own).
    for (bool refill : {false, true})
      for (auto [d, causal, seqK] :
           {std::tuple<int64_t, bool, int64_t>{128, true, 400},
            {256, true, 400},
            {128, false, 0}}) {
        add(d, causal, 400, seqK, 0, 2, false);
        cases.back().specialize = true;
        cases.back().tileM = 128;
        cases.back().warps = 8;
        cases.back().persistent = true;
        cases.back().tileStages = 1;
        cases.back().tileRefill = refill;
      }
    return cases;
  }
  std::vector<int64_t> seqs = {1, 17, 64, 100, 128, 1000, 1024};
  if (config.quick)
    seqs = {17, 128, 1000};
  for (DType dtype : {DType::F16, DType::BF16})
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (int64_t group : {1, 4, 8}) {
          for (int64_t seq : seqs)
            cases.push_back({dtype, d, causal, group, seq, seq, 0});
          // Queries after a prefix of keys (input_pos > 0, seq_q < seq_k).
          cases.push_back({dtype, d, causal, group, 100, 200, 100});
          if (!config.quick)
            cases.push_back({dtype, d, causal, group, 17, 1000, 983});
        }
  if (!config.quick)
    for (DType dtype : {DType::F16, DType::BF16})
      for (int64_t d : {64, 128}) {
        cases.push_back({dtype, d, true, 4, 4096, 4096, 0});
        cases.push_back({dtype, d, false, 1, 4096, 4096, 0});
      }
  pipelineAttentionCases(cases);
  emptyAttentionCases(cases);
  return cases;
}

//===----------------------------------------------------------------------===//
// Planted bugs, for scripts/gpu-sanitize.sh
//===----------------------------------------------------------------------===//

// Hand-written PTX kernels with one bug each, loaded through libtile like
// every kernel of the tests (loadPTX), so that a sanitizer run that catches
// nothing can be told from one that does not see libtile's kernels at all:
//   memcheck   thread 0 writes the element one past the end of X
//   racecheck  every thread writes and reads the same shared word, unsynced
//   synccheck  bar.sync reached by the even lanes of each warp only
// Each takes one f32 tensor (the kernel ABI: base, size, stride).
const char *const kControlHeader =
    R"(// tilec-kernel: {"abi":1,"arch":"sm_80","constants":[],"loop_split":true,"name":"control","num_stages":0,"num_warps":4,"params":[{"alignment":16,"contiguous":true,"dtype":"f32","kind":"tensor","name":"X","rank":1}],"shared_bytes":0}
.version 7.8
.target sm_80
.address_size 64
)";

// The entry every control shares, and the shared word racecheck's races on.
const char *const kControlEntry = R"(
.shared .align 4 .b32 cell[32];
.visible .entry control(.param .u64 control_param_0,
                        .param .u32 control_param_1,
                        .param .u64 control_param_2)
.maxntid 128, 1, 1
)";

const char *const kControlMemcheck = R"(
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [control_param_0];
  ld.param.u32 %r2, [control_param_1];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd3], %f1;
DONE:
  ret;
}
)";

const char *const kControlRacecheck = R"(
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  st.volatile.shared.u32 [cell], %r1;
  ld.volatile.shared.u32 %r2, [cell];
  ld.param.u64 %rd1, [control_param_0];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

const char *const kControlSynccheck = R"(
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ld.param.u64 %rd1, [control_param_0];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

/// Runs the planted bug for `tool`; 0 whatever the kernel did (the
/// sanitizer's report is what counts), 1 when it could not be launched.
int sanitizerControl(const std::string &tool) {
  const char *body = tool == "memcheck"    ? kControlMemcheck
                     : tool == "racecheck" ? kControlRacecheck
                     : tool == "synccheck" ? kControlSynccheck
                                           : nullptr;
  if (!body) {
    std::printf("--sanitize-control: no planted bug for '%s' (memcheck, "
                "racecheck, synccheck)\n",
                tool.c_str());
    return 1;
  }
  tile::Expected<Kernel> kernel = tile::Runtime::get().loadPTX(
      std::string(kControlHeader) + kControlEntry + body);
  if (!kernel) {
    std::printf("control %s: FAIL: %s\n", tool.c_str(),
                kernel.status().message().c_str());
    return 1;
  }
  const int64_t n = 128;
  DeviceBuffer x(n * 4);
  tile::Status status = kernel->launch(tile::Dim3(1), nullptr,
                                       {Tensor(x.get(), DType::F32, {n}, {1})});
  if (status.ok())
    status = tile::synchronize();
  std::printf("control %s: the planted bug ran (%s); the sanitizer must "
              "report it\n",
              tool.c_str(),
              status.ok() ? "no error from CUDA" : status.message().c_str());
  std::fflush(stdout);
  // A DeviceBuffer freed after a fault would exit through check().
  std::_Exit(0);
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return arg.compare(0, n, prefix) == 0 ? argv[i] + n : nullptr;
    };
    if (const char *v = value("--kernels="))
      config.kernelsDir = v;
    else if (const char *v = value("--tilec="))
      config.tilec = v;
    else if (const char *v = value("--family="))
      config.family = v;
    else if (arg == "--quick")
      config.quick = true;
    else if (arg == "--sanitize-subset")
      config.sanitize = true;
    else if (const char *v = value("--sanitize-control=")) {
      requireGpu("tile-kernel-gpu-tests");
      return sanitizerControl(v);
    } else if (arg == "--jit-only")
      config.jitOnly = true;
    else if (arg == "--aot-only")
      config.aotOnly = true;
    else if (const char *v = value("--jobs="))
      config.jobs = static_cast<unsigned>(std::atoi(v));
    else if (const char *v = value("--arch="))
      config.arch = v;
    else if (value("--seed=")) {
    } else {
      std::printf(
          "unknown argument '%s'\nusage: %s --kernels=DIR "
          "--tilec=PATH [--family=NAME] [--quick | --sanitize-subset] "
          "[--jit-only | --aot-only] [--seed=N] [--jobs=N] [--arch=sm_XX]\n",
          argv[i], argv[0]);
      return 1;
    }
  }
  if (config.kernelsDir.empty() || (config.tilec.empty() && !config.jitOnly)) {
    std::printf("%s: --kernels and --tilec are required\n", argv[0]);
    return 1;
  }
  requireGpu("tile-kernel-gpu-tests");
  // Persistent kernels: few blocks, many tiles each.
  setenv("TILEC_PERSISTENT_BLOCKS", "3", /*overwrite=*/0);
  config.seed = pickSeed(argc, argv);
  std::printf("seed: %llu (rerun with --seed=%llu)\n",
              (unsigned long long)config.seed, (unsigned long long)config.seed);
  char work[] = "/tmp/tile-gpu-tests-XXXXXX";
  if (!mkdtemp(work)) {
    std::printf("cannot create a temporary directory\n");
    return 1;
  }
  config.workDir = work;

  auto wants = [](const char *family) {
    // --sanitize-subset: GEMM and flash attention only.
    if (config.sanitize && std::strcmp(family, "gemm") != 0 &&
        std::strcmp(family, "flash_attention") != 0)
      return false;
    return config.family == "all" || config.family == family;
  };
  // Compile every kernel the cases need up front, on all cores. (JIT
  // kernels that a launch finds too aligned for its tensors compile an
  // alignment variant then.)
  std::vector<std::tuple<Mode, std::string, Constants>> wanted;
  if (wants("gemm"))
    for (const Gemm &g : gemmCases())
      for (Mode mode : modes())
        wanted.emplace_back(mode, "gemm", gemmConstants(g));
  if (wants("flash_attention"))
    for (const Attention &t : attentionCases())
      for (Mode mode : modes())
        wanted.emplace_back(mode, "flash_attention", attentionConstants(t));
  auto start = std::chrono::steady_clock::now();
  kernels.prepare(wanted);
  if (!wanted.empty())
    std::printf(
        "compiled the gemm and flash attention kernels in %.1f s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());

  std::mt19937_64 rng(config.seed);
  if (wants("vector_add"))
    vectorAddCases(rng);
  if (wants("softmax"))
    softmaxCases(rng);
  if (wants("gemm"))
    for (const Gemm &g : gemmCases())
      gemm(g, rng);
  if (wants("flash_attention")) {
    wholeProgramCheck();
    clusterGridCheck();
    for (const Attention &t : attentionCases())
      flashAttention(t, rng);
  }

  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("runtime stats: compiles=%llu disk_hits=%llu memory_hits=%llu "
              "modules_loaded=%llu alignment_variants=%llu\n",
              (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits,
              (unsigned long long)stats.memoryHits,
              (unsigned long long)stats.modulesLoaded,
              (unsigned long long)stats.alignmentVariants);
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
