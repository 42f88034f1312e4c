//===- launch_overhead_bench.cpp - Host time per kernel launch ------------===//
//
// How long Kernel::launch takes on the host, and what TMA descriptors add to
// it: for each case, N launches (default 10000) of a one-block kernel, each
// timed on the host clock around the launch call alone; the device is
// synchronized every --sync-every launches (outside the timed calls, so that
// a full launch queue never blocks a timed call; 0: only at the end) and at
// the end. Reports the median, the 10th and 90th percentiles and the mean in
// microseconds per launch.
//
// Cases:
//   plain         kernels/vector_add.tile (f32, 1024 elements): no tensor
//                 maps, the launch path as it was before them;
//   tma-hit       a kernel with tensor maps, the same tensors every launch:
//                 every descriptor comes from the kernel's cache;
//   tma-miss      the same, with the first tensor-mapped argument's pointer
//                 rotating over more addresses than the cache keeps per
//                 descriptor (17 > 8 ways): that descriptor is encoded by
//                 cuTensorMapEncodeTiled at every launch.
// The kernel with tensor maps is --tma-kernel=FILE.tile (with
// --tma-constants=K=V,...; default kernels/gemm.tile) compiled for this GPU;
// its arguments are made from its parameters: every tensor of --size
// elements per dimension (default 64), contiguous, every int --size, every
// float 1.0, every bool false, one block. Where that kernel has no tensor
// maps (a compiler that does not emit TMA, or a GPU older than sm_90), the
// tma rows are measured on a stand-in: vector_add's description with tensor
// maps for A and B added (the driver takes the kernel's parameters from its
// entry, so the descriptors are built and passed and the kernel ignores
// them), which costs the host what a TMA kernel's launch costs; the rows say
// which kernel they measured.
//
//   tile-bench-launch --kernels=DIR [--launches=N] [--sync-every=K]
//       [--tma-kernel=FILE] [--tma-constants=K=V,...] [--size=S]
//       [--json=FILE]
//
// Exit 77 where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

#include <memory>

using namespace bench;

namespace {

struct Options {
  std::string kernels = "kernels";
  std::string tmaKernel; // default: <kernels>/gemm.tile
  std::string tmaConstants;
  int launches = 10000;
  int syncEvery = 1000;
  int64_t size = 64;
  std::string json;
};

/// Cache ways per descriptor in libtile (lib/Runtime/TensorMap.h), plus
/// one more than twice that: rotating over these always misses.
constexpr int kRotation = 17;
constexpr size_t kSlackBytes = kRotation * 256;

struct Result {
  std::string name, kernel;
  size_t tensorMaps = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0;
};

/// Arguments for `kernel` from its parameters; `rotate` selects the
/// pointer variant of parameter `rotateParam` (offset by rotate * 256
/// bytes).
struct ArgSet {
  std::vector<void *> buffers;
  std::vector<tile::Arg> args;
};

ArgSet makeArgs(const tile::Kernel &kernel, int64_t size) {
  ArgSet set;
  for (const tile::ParamInfo &param : kernel.params()) {
    switch (param.kind) {
    case tile::ParamInfo::Kind::Tensor: {
      std::vector<int64_t> shape(param.rank, size);
      size_t bytes = tile::dtypeBytes(param.dtype);
      for (int64_t s : shape)
        bytes *= size_t(s);
      void *data =
          unwrap(tile::deviceAlloc(bytes + kSlackBytes), "deviceAlloc");
      BENCH_CHECK(tile::deviceMemset(data, 0, bytes + kSlackBytes));
      set.buffers.push_back(data);
      set.args.push_back(tile::Tensor::contiguous(data, param.dtype, shape));
      break;
    }
    case tile::ParamInfo::Kind::Int:
      set.args.push_back(size);
      break;
    case tile::ParamInfo::Kind::Float:
      set.args.push_back(1.0f);
      break;
    case tile::ParamInfo::Kind::Bool:
      set.args.push_back(false);
      break;
    }
  }
  return set;
}

double percentile(const std::vector<double> &sorted, double p) {
  return sorted[std::min(sorted.size() - 1, size_t(p * sorted.size()))];
}

/// Times `launches` launches; `argsFor(i)` gives launch i's arguments.
Result measure(const std::string &name, const tile::Kernel &kernel,
               const std::vector<std::vector<tile::Arg>> &variants,
               const Options &options) {
  // Warm up (the first launch loads nothing more, but fills the caches).
  for (int i = 0; i < 100; ++i)
    BENCH_CHECK(
        kernel.launch(tile::Dim3(1), nullptr, variants[i % variants.size()]));
  BENCH_CHECK(tile::synchronize());
  std::vector<double> times(options.launches);
  for (int i = 0; i < options.launches; ++i) {
    if (options.syncEvery > 0 && i > 0 && i % options.syncEvery == 0)
      BENCH_CHECK(tile::synchronize());
    const std::vector<tile::Arg> &args = variants[i % variants.size()];
    auto start = std::chrono::steady_clock::now();
    tile::Status status = kernel.launch(tile::Dim3(1), nullptr, args);
    auto end = std::chrono::steady_clock::now();
    if (!status.ok()) {
      std::fprintf(stderr, "error: %s: launch %d: %s\n", name.c_str(), i,
                   status.message().c_str());
      std::exit(1);
    }
    times[i] = std::chrono::duration<double, std::micro>(end - start).count();
  }
  BENCH_CHECK(tile::synchronize());
  Result result;
  result.name = name;
  result.kernel = kernel.name();
  result.tensorMaps = kernel.numTensorMaps();
  double sum = 0;
  for (double t : times)
    sum += t;
  result.mean = sum / times.size();
  std::sort(times.begin(), times.end());
  result.median = percentile(times, 0.5);
  result.p10 = percentile(times, 0.1);
  result.p90 = percentile(times, 0.9);
  return result;
}

/// `args` with the pointer of tensor argument `param` moved by 256 * k
/// bytes, for k in [0, kRotation).
std::vector<std::vector<tile::Arg>>
rotations(const std::vector<tile::Arg> &args, size_t param) {
  std::vector<std::vector<tile::Arg>> variants;
  for (int k = 0; k < kRotation; ++k) {
    std::vector<tile::Arg> moved = args;
    tile::Tensor tensor = moved[param].tensor();
    tensor.data = static_cast<char *>(tensor.data) + 256 * k;
    moved[param] = tensor;
    variants.push_back(std::move(moved));
  }
  return variants;
}

/// The first tensor argument of `kernel` (the one the stand-in maps first).
size_t firstTensor(const tile::Kernel &kernel) {
  for (size_t i = 0; i < kernel.params().size(); ++i)
    if (kernel.params()[i].kind == tile::ParamInfo::Kind::Tensor)
      return i;
  return 0;
}

/// vector_add's PTX for `arch` with tensor maps for A and B added to its
/// description.
tile::Kernel standIn(const std::string &source, const std::string &path,
                     const std::string &arch) {
  tile::CompileOptions options;
  options.arch = arch;
  options.constants = {{"DTYPE", "f32"}, {"TILE", "1024"}};
  std::string ptx = unwrap(
      tile::Runtime::get().compileToPTX(source, path, options), "compile");
  size_t lineEnd = ptx.find('\n');
  size_t close = ptx.rfind('}', lineEnd);
  ptx = ptx.substr(0, close) +
        R"(,"tensor_maps":[{"param":0,"box":[256],"swizzle":0,"fill":"zero"},)"
        R"({"param":1,"box":[256],"swizzle":0,"fill":"zero"}])" +
        ptx.substr(close);
  return unwrap(tile::Runtime::get().loadPTX(ptx), "loadPTX (stand-in)");
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> std::optional<std::string> {
      size_t n = std::strlen(prefix);
      if (arg.compare(0, n, prefix) == 0)
        return arg.substr(n);
      return std::nullopt;
    };
    if (auto v = value("--kernels="))
      options.kernels = *v;
    else if (auto v = value("--tma-kernel="))
      options.tmaKernel = *v;
    else if (auto v = value("--tma-constants="))
      options.tmaConstants = *v;
    else if (auto v = value("--launches="))
      options.launches = std::max(1, std::atoi(v->c_str()));
    else if (auto v = value("--sync-every="))
      options.syncEvery = std::max(0, std::atoi(v->c_str()));
    else if (auto v = value("--size="))
      options.size = std::max<int64_t>(1, std::atoll(v->c_str()));
    else if (auto v = value("--json="))
      options.json = *v;
    else {
      std::fprintf(stderr,
                   "usage: %s --kernels=DIR [--launches=N] [--sync-every=K] "
                   "[--tma-kernel=FILE] [--tma-constants=K=V,...] [--size=S] "
                   "[--json=FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  if (options.tmaKernel.empty())
    options.tmaKernel = options.kernels + "/gemm.tile";

  std::optional<std::string> arch = openGpu();
  if (!arch)
    return 77;
  std::vector<Result> results;

  // plain: vector_add, no tensor maps.
  std::string vectorAddPath = options.kernels + "/vector_add.tile";
  std::string vectorAdd = readText(vectorAddPath);
  tile::CompileOptions plainOptions;
  plainOptions.constants = {{"DTYPE", "f32"}, {"TILE", "1024"}};
  tile::Kernel plain = unwrap(tile::Runtime::get().compileSource(
                                  vectorAdd, vectorAddPath, plainOptions),
                              "compile vector_add");
  ArgSet plainArgs = makeArgs(plain, 1024);
  results.push_back(measure("plain", plain, {plainArgs.args}, options));

  // The kernel with tensor maps: --tma-kernel, else the stand-in.
  tile::CompileOptions tmaOptions;
  for (const auto &[key, v] : parseFields(options.tmaConstants))
    tmaOptions.constants.emplace_back(key, v);
  tile::Kernel tma =
      unwrap(tile::Runtime::get().compileSource(readText(options.tmaKernel),
                                                options.tmaKernel, tmaOptions),
             "compile the TMA kernel");
  int64_t tmaSize = options.size;
  if (tma.numTensorMaps() == 0) {
    std::printf("%s has no tensor maps on %s", options.tmaKernel.c_str(),
                arch->c_str());
    for (const std::string &reason : tma.tmaFallback())
      std::printf("; fallback: %s", reason.c_str());
    std::printf("; measuring the stand-in (vector_add described with 2 "
                "tensor maps)\n");
    tma = standIn(vectorAdd, vectorAddPath, *arch);
    tmaSize = 1024;
  }
  ArgSet tmaArgs = makeArgs(tma, tmaSize);
  results.push_back(measure("tma-hit", tma, {tmaArgs.args}, options));
  results.push_back(measure(
      "tma-miss", tma, rotations(tmaArgs.args, firstTensor(tma)), options));

  std::printf("\nhost time per Kernel::launch, %d launches each (us)\n",
              options.launches);
  std::printf("%-10s %-12s %5s %8s %8s %8s %8s\n", "case", "kernel", "maps",
              "median", "p10", "p90", "mean");
  std::unique_ptr<JsonLines> json;
  if (!options.json.empty())
    json = std::make_unique<JsonLines>(options.json);
  for (const Result &r : results) {
    std::printf("%-10s %-12s %5zu %8.2f %8.2f %8.2f %8.2f\n", r.name.c_str(),
                r.kernel.c_str(), r.tensorMaps, r.median, r.p10, r.p90, r.mean);
    if (json)
      json->write(fmt("{\"bench\":\"launch\",\"case\":\"%s\",\"kernel\":\"%s\","
                      "\"tensor_maps\":%zu,\"launches\":%d,\"median_us\":%.3f,"
                      "\"p10_us\":%.3f,\"p90_us\":%.3f,\"mean_us\":%.3f}",
                      r.name.c_str(), r.kernel.c_str(), r.tensorMaps,
                      options.launches, r.median, r.p10, r.p90, r.mean));
  }
  for (void *buffer : plainArgs.buffers)
    tile::deviceFree(buffer);
  for (void *buffer : tmaArgs.buffers)
    tile::deviceFree(buffer);
  return 0;
}
