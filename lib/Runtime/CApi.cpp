//===- CApi.cpp - libtile's C API -----------------------------------------===//

#include "tile/Autotune.h"
#include "tile/tile.h"

#include "RuntimeImpl.h"

#include <cstring>

using namespace tile;
using namespace tile::detail;

std::string &tile::detail::lastCError() {
  static thread_local std::string error;
  return error;
}

int tile::detail::failC(const std::string &message) {
  lastCError() = message;
  return TILE_ERROR;
}

bool tile::detail::fromCTensor(const tile_tensor *in, const std::string &op,
                               const char *name, Tensor &out) {
  if (!in) {
    failC(op + ": " + name + ": NULL tensor");
    return false;
  }
  if (in->rank < 0 || in->rank > 8 ||
      static_cast<unsigned>(in->dtype) > TILE_I8 ||
      (in->rank && (!in->shape || !in->strides))) {
    failC(op + ": " + name + ": malformed tile_tensor (rank " +
          std::to_string(in->rank) + ", dtype " +
          std::to_string(static_cast<int>(in->dtype)) + ")");
    return false;
  }
  out.data = in->data;
  out.dtype = static_cast<DType>(in->dtype);
  out.shape.assign(in->shape, in->shape + in->rank);
  out.strides.assign(in->strides, in->strides + in->rank);
  return true;
}

static int fail(const std::string &message) { return failC(message); }
static int fail(const Status &status) { return failC(status); }

static KernelImpl *toImpl(tile_kernel kernel) {
  return reinterpret_cast<KernelImpl *>(kernel);
}

static tile_kernel toHandle(const Kernel &kernel) {
  return reinterpret_cast<tile_kernel>(kernel.get());
}

static bool toOptions(const tile_compile_options *in, CompileOptions &out) {
  if (!in)
    return true;
  if (in->num_constants && !in->constants) {
    fail("tile_compile_options: num_constants is " +
         std::to_string(in->num_constants) + " but constants is NULL");
    return false;
  }
  for (size_t i = 0; i < in->num_constants; ++i) {
    const tile_constant &constant = in->constants[i];
    if (!constant.name || !constant.value) {
      fail("tile_compile_options: constants[" + std::to_string(i) +
           "] has a NULL name or value");
      return false;
    }
    out.constants.emplace_back(constant.name, constant.value);
  }
  if (in->kernel)
    out.kernel = in->kernel;
  if (in->arch)
    out.arch = in->arch;
  if (in->options)
    if (std::string error = out.parse(in->options); !error.empty()) {
      fail("tile_compile_options: " + error);
      return false;
    }
  return true;
}

static int finish(const Expected<Kernel> &kernel, tile_kernel *out) {
  if (!kernel)
    return fail(kernel.status());
  *out = toHandle(*kernel);
  return TILE_OK;
}

extern "C" {

const char *tile_option_list(void) {
  static const std::string list = [] {
    std::string text;
    size_t count;
    const OptionInfo *infos = optionInfos(count);
    for (size_t i = 0; i < count; ++i)
      text += std::string(i ? "," : "") + infos[i].key;
    return text;
  }();
  return list.c_str();
}

int tile_compile_file(const char *path, const tile_compile_options *options,
                      tile_kernel *kernel) {
  if (!path || !kernel)
    return fail("tile_compile_file: NULL path or kernel pointer");
  *kernel = nullptr;
  CompileOptions compileOptions;
  if (!toOptions(options, compileOptions))
    return TILE_ERROR;
  return finish(Runtime::get().compileFile(path, compileOptions), kernel);
}

int tile_compile_source(const char *source, const char *name,
                        const tile_compile_options *options,
                        tile_kernel *kernel) {
  if (!source || !kernel)
    return fail("tile_compile_source: NULL source or kernel pointer");
  *kernel = nullptr;
  CompileOptions compileOptions;
  if (!toOptions(options, compileOptions))
    return TILE_ERROR;
  return finish(Runtime::get().compileSource(source, name ? name : "<source>",
                                             compileOptions),
                kernel);
}

int tile_load_ptx(const char *path, tile_kernel *kernel) {
  if (!path || !kernel)
    return fail("tile_load_ptx: NULL path or kernel pointer");
  *kernel = nullptr;
  return finish(Runtime::get().loadPTXFile(path), kernel);
}

/// Converts the C arguments; false (with the error set) on a malformed one.
static bool toArgRefs(const tile_arg *args, size_t numArgs, ArgRefs &refs) {
  if (numArgs && !args) {
    fail("tile_kernel_launch: num_args is " + std::to_string(numArgs) +
         " but args is NULL");
    return false;
  }
  refs.resize(numArgs);
  for (size_t i = 0; i < numArgs; ++i) {
    const tile_arg &arg = args[i];
    ArgRef &ref = refs[i];
    switch (arg.kind) {
    case TILE_ARG_TENSOR: {
      const tile_tensor &tensor = arg.value.tensor;
      if (tensor.rank < 0 ||
          static_cast<unsigned>(tensor.dtype) > TILE_I8) {
        fail("argument " + std::to_string(i + 1) +
             ": malformed tile_tensor (rank " + std::to_string(tensor.rank) +
             ", dtype " + std::to_string(static_cast<int>(tensor.dtype)) + ")");
        return false;
      }
      ref.kind = Arg::Kind::Tensor;
      ref.data = tensor.data;
      ref.dtype = static_cast<DType>(tensor.dtype);
      ref.shape = tensor.shape;
      ref.strides = tensor.strides;
      ref.shapeSize = ref.stridesSize = static_cast<size_t>(tensor.rank);
      break;
    }
    case TILE_ARG_INT:
      ref.kind = Arg::Kind::Int;
      ref.intValue = arg.value.i;
      break;
    case TILE_ARG_FLOAT:
      ref.kind = Arg::Kind::Float;
      ref.floatValue = arg.value.f;
      break;
    case TILE_ARG_BOOL:
      ref.kind = Arg::Kind::Bool;
      ref.boolValue = arg.value.b != 0;
      break;
    default:
      fail("argument " + std::to_string(i + 1) + ": unknown tile_arg kind " +
           std::to_string(static_cast<int>(arg.kind)));
      return false;
    }
  }
  return true;
}

int tile_kernel_launch(tile_kernel kernel, unsigned gridX, unsigned gridY,
                       unsigned gridZ, struct CUstream_st *stream,
                       const tile_arg *args, size_t numArgs) {
  if (!kernel)
    return fail("tile_kernel_launch: NULL kernel");
  ArgRefs refs;
  if (!toArgRefs(args, numArgs, refs))
    return TILE_ERROR;
  Status status =
      launchKernel(*toImpl(kernel), Dim3(gridX, gridY, gridZ), stream, refs);
  return status.ok() ? TILE_OK : fail(status);
}

int tile_kernel_check(tile_kernel kernel, const tile_arg *args,
                      size_t numArgs) {
  if (!kernel)
    return fail("tile_kernel_check: NULL kernel");
  ArgRefs refs;
  if (!toArgRefs(args, numArgs, refs))
    return TILE_ERROR;
  Status status = checkKernel(*toImpl(kernel), refs);
  return status.ok() ? TILE_OK : fail(status);
}

const char *tile_kernel_name(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.name.c_str() : nullptr;
}

unsigned tile_kernel_num_warps(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.numWarps : 0;
}

unsigned tile_kernel_registers(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->registers : 0;
}

unsigned tile_kernel_blocks_per_sm(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->blocksPerSM : 0;
}

unsigned tile_kernel_num_stages(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.numStages : 0;
}

int tile_kernel_loop_split(tile_kernel kernel) {
  return kernel && toImpl(kernel)->info.loopSplit ? 1 : 0;
}

unsigned tile_kernel_shared_bytes(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.sharedBytes : 0;
}

size_t tile_kernel_num_params(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.params.size() : 0;
}

size_t tile_kernel_num_tensor_maps(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.tensorMaps.size() : 0;
}

size_t tile_kernel_num_tma_fallbacks(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.tmaFallback.size() : 0;
}

const char *tile_kernel_tma_fallback(tile_kernel kernel, size_t index) {
  if (!kernel || index >= toImpl(kernel)->info.tmaFallback.size())
    return nullptr;
  return toImpl(kernel)->info.tmaFallback[index].c_str();
}

size_t tile_kernel_num_warnings(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.warnings.size() : 0;
}

const char *tile_kernel_warning(tile_kernel kernel, size_t index) {
  if (!kernel || index >= toImpl(kernel)->info.warnings.size())
    return nullptr;
  return toImpl(kernel)->info.warnings[index].c_str();
}

unsigned tile_kernel_timeline_records(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->info.timelineRecords : 0;
}

const char *tile_kernel_timeline_site(tile_kernel kernel, size_t index) {
  if (!kernel || index >= toImpl(kernel)->info.timelineSites.size())
    return nullptr;
  return toImpl(kernel)->info.timelineSites[index].c_str();
}

int tile_kernel_timeline(tile_kernel kernel, void *records, size_t bytes,
                         uint64_t *blocks, unsigned *warpgroups) {
  if (!kernel)
    return fail("tile_kernel_timeline: NULL kernel");
  uint64_t b = 0;
  unsigned w = 0;
  Status status = readTimeline(*toImpl(kernel), records, bytes, b, w);
  if (blocks)
    *blocks = b;
  if (warpgroups)
    *warpgroups = w;
  return status.ok() ? TILE_OK : fail(status);
}

const char *tile_kernel_variant_note(tile_kernel kernel) {
  if (!kernel)
    return nullptr;
  KernelImpl *variant =
      toImpl(kernel)->lastVariant.load(std::memory_order_acquire);
  return variant ? variant->variantNote.c_str() : nullptr;
}

const char *tile_kernel_tune_space(tile_kernel kernel) {
  return kernel ? toImpl(kernel)->tuneText.c_str() : nullptr;
}

const char *tile_schedule_variants(const char *given) {
  Options options;
  std::string error = options.parse(given ? given : "");
  if (!error.empty()) {
    lastCError() = "tile_schedule_variants: " + error;
    return nullptr;
  }
  static thread_local std::string text;
  text.clear();
  for (const Options &variant : scheduleVariants(options))
    text += (text.empty() ? "" : ";") + variant.text();
  return text.c_str();
}

int tile_autotune(const char *source, const char *name,
                  const tile_compile_options *options,
                  const tile_tune_candidate *candidates, size_t numCandidates,
                  const char *problemKey, struct CUstream_st *stream,
                  tile_tune_launch_fn launch, void *user, tile_kernel *kernel,
                  size_t *chosen) {
  if (!source || !kernel || !launch)
    return fail("tile_autotune: NULL source, launch or kernel pointer");
  if (numCandidates && !candidates)
    return fail("tile_autotune: num_candidates is " +
                std::to_string(numCandidates) + " but candidates is NULL");
  *kernel = nullptr;
  CompileOptions base;
  if (!toOptions(options, base))
    return TILE_ERROR;
  std::vector<TuneCandidate> list;
  for (size_t i = 0; i < numCandidates; ++i) {
    const tile_tune_candidate &in = candidates[i];
    TuneCandidate candidate;
    if (in.num_constants && !in.constants)
      return fail("tile_autotune: candidates[" + std::to_string(i) +
                  "] has num_constants " + std::to_string(in.num_constants) +
                  " but constants is NULL");
    for (size_t c = 0; c < in.num_constants; ++c) {
      if (!in.constants[c].name || !in.constants[c].value)
        return fail("tile_autotune: candidates[" + std::to_string(i) +
                    "].constants[" + std::to_string(c) +
                    "] has a NULL name or value");
      candidate.constants.emplace_back(in.constants[c].name,
                                       in.constants[c].value);
    }
    if (in.options)
      if (std::string error = candidate.options.parse(in.options);
          !error.empty())
        return fail("tile_autotune: candidates[" + std::to_string(i) +
                    "].options: " + error);
    list.push_back(std::move(candidate));
  }
  TuneLaunch tuneLaunch = [&](const Kernel &k, const TuneCandidate &c,
                              Stream s) -> Status {
    size_t index = static_cast<size_t>(&c - list.data());
    lastCError().clear();
    if (launch(user, toHandle(k), index, s) == TILE_OK)
      return Status();
    return Status::error(lastCError().empty() ? "the launch callback failed"
                                              : lastCError());
  };
  // No candidates: the kernel's @tune's, here, so that the callback's
  // index is a position in them (tile_kernel_tune_space's order).
  if (list.empty()) {
    Expected<Kernel> plain =
        Runtime::get().compileSource(source, name ? name : "<source>", base);
    if (!plain)
      return fail("tile_autotune: no candidates, and the kernel does not "
                  "compile to read its @tune: " +
                  plain.status().message());
    Expected<std::vector<TuneCandidate>> space =
        tuneSpaceCandidates(*plain, base);
    if (!space)
      return fail("tile_autotune: no candidates, and " +
                  space.status().message());
    list = std::move(*space);
  }
  Expected<TuneResult> result =
      autotune(source, name ? name : "<source>", base, list,
               problemKey ? problemKey : "", tuneLaunch, stream);
  if (!result)
    return fail(result.status());
  *kernel = toHandle(result->kernel);
  if (chosen)
    *chosen = result->index;
  return TILE_OK;
}

void tile_set_error(const char *message) {
  lastCError() = message ? message : "";
}

const char *tile_last_error(void) { return lastCError().c_str(); }

int tile_runtime_stats(tile_stats *stats) {
  if (!stats)
    return fail("tile_runtime_stats: NULL stats pointer");
  RuntimeStats s = Runtime::get().stats();
  stats->compiles = s.compiles;
  stats->disk_hits = s.diskHits;
  stats->disk_writes = s.diskWrites;
  stats->memory_hits = s.memoryHits;
  stats->modules_loaded = s.modulesLoaded;
  stats->alignment_variants = s.alignmentVariants;
  return TILE_OK;
}

} // extern "C"
