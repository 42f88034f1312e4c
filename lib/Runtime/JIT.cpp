//===- JIT.cpp - Compiling, caching and loading kernels -------------------===//
//
// A compile request goes through three levels: the in-memory table (key ->
// PTX and loaded kernel), the on-disk PTX cache, and the compiler. Each key
// has its own entry, locked while it is filled, so that threads asking for
// the same kernel compile it once, while different kernels compile in
// parallel; the table's lock is held only to find the entry.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include "tilec/Frontend/Source.h"
#include "tilec/Support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SHA256.h"

using namespace tile;
using namespace tile::detail;

RuntimeImpl::RuntimeImpl(RuntimeConfig config)
    : disk(std::move(config.cacheDirectory)),
      compiler(std::move(config.compiler)),
      version(std::move(config.compilerVersion)) {
  if (!compiler)
    compiler = [](const tilec::CompileRequest &request) {
      return tilec::compile(request, tilec::Stage::PTX);
    };
  if (version.empty())
    version = tilec::compilerVersion();
}

Expected<tilec::CompileRequest>
RuntimeImpl::makeRequest(const std::string &source, const std::string &name,
                         const CompileOptions &options) {
  // Each option in its range and the options together (as tilec::compile
  // checks them), before anything is hashed or compiled.
  if (std::string error = options.check(); !error.empty())
    return Status::error("CompileOptions: " + error);
  tilec::CompileRequest request;
  static_cast<Options &>(request) = options;
  request.source = source;
  request.bufferName = name.empty() ? "<source>" : name;
  request.defines = options.constants;
  request.kernelName = options.kernel;
  request.arch = options.arch;
  if (request.arch.empty()) {
    Expected<const GpuContext *> gpu = gpuContext();
    if (!gpu)
      return Status::error("cannot choose an arch for the current GPU "
                           "(set CompileOptions::arch to compile without "
                           "one): " +
                           gpu.status().message());
    request.arch = (*gpu)->info.arch;
  }
  return request;
}

std::shared_ptr<RuntimeImpl::Entry>
RuntimeImpl::entryFor(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Entry> &entry = entries[key];
  if (!entry) {
    entry = std::make_shared<Entry>();
    entry->key = key;
  }
  return entry;
}

/// The kernel of `result` that `request` asked for.
static Expected<const tilec::CompiledKernel *>
pickKernel(const tilec::CompileResult &result,
           const tilec::CompileRequest &request) {
  if (!result.ok)
    return Status::error("compiling " + request.bufferName + " failed:\n" +
                         result.diagnostics);
  if (!request.kernelName.empty()) {
    for (const tilec::CompiledKernel &kernel : result.kernels)
      if (kernel.info.name == request.kernelName)
        return &kernel;
    return Status::error(request.bufferName + " has no kernel '" +
                         request.kernelName + "'");
  }
  if (result.kernels.empty())
    return Status::error(request.bufferName + " defines no kernel");
  if (result.kernels.size() > 1) {
    std::string names;
    for (const tilec::CompiledKernel &kernel : result.kernels)
      names += (names.empty() ? "" : ", ") + kernel.info.name;
    return Status::error(request.bufferName + " defines " +
                         std::to_string(result.kernels.size()) + " kernels (" +
                         names + "); choose one with CompileOptions::kernel");
  }
  return &result.kernels.front();
}

Status RuntimeImpl::ensurePTX(Entry &entry, const std::string &key,
                              const tilec::CompileRequest &request) {
  if (entry.compiled)
    return Status();

  // On disk, from an earlier run or another process?
  if (std::optional<std::string> ptx = disk.read(key)) {
    Expected<tilec::KernelInfo> info = parsePTXHeader(*ptx);
    if (info &&
        (request.kernelName.empty() || info->name == request.kernelName)) {
      entry.ptx = std::move(*ptx);
      entry.info = std::move(*info);
      entry.compiled = true;
      ++diskHits;
      return Status();
    }
    // A damaged entry: compile and write it anew.
  }

  ++compiles;
  tilec::CompileResult result = compiler(request);
  Expected<const tilec::CompiledKernel *> kernel = pickKernel(result, request);
  if (!kernel)
    return kernel.status();
  entry.info = (*kernel)->info;
  entry.ptx = (*kernel)->ptx;
  // The PTX must describe itself (Compile.h); add the line if it does not.
  if (!parsePTXHeader(entry.ptx))
    entry.ptx = "// tilec-kernel: " + entry.info.toJSON() + "\n" + entry.ptx;
  entry.compiled = true;
  // A cache that cannot be written only costs a compile next time.
  if (disk.enabled() && disk.write(key, entry.ptx).ok())
    ++diskWrites;
  return Status();
}

Expected<KernelImpl *> RuntimeImpl::ensureLoaded(Entry &entry) {
  if (entry.kernel)
    return entry.kernel;
  Expected<KernelImpl *> kernel = loadKernel(entry.info, entry.ptx);
  if (!kernel)
    return kernel.status();
  ++modulesLoaded;
  (*kernel)->runtime = this;
  entry.kernel = *kernel;
  return entry.kernel;
}

Expected<Kernel>
RuntimeImpl::compileRequest(const tilec::CompileRequest &request,
                            const CompileOptions &options,
                            const std::string &source) {
  std::string key = cacheKey(request, version);
  std::shared_ptr<Entry> entry = entryFor(key);
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (entry->kernel) {
    ++memoryHits;
    return Kernel(entry->kernel);
  }
  if (Status status = ensurePTX(*entry, key, request); !status.ok())
    return status;
  Expected<KernelImpl *> kernel = ensureLoaded(*entry);
  if (!kernel)
    return kernel.status();
  auto recipe = std::make_shared<CompileRecipe>();
  recipe->source = source;
  recipe->name = request.bufferName;
  recipe->options = options;
  recipe->options.arch = request.arch;
  (*kernel)->recipe = std::move(recipe);
  return Kernel(*kernel);
}

Expected<Kernel> RuntimeImpl::compile(const std::string &source,
                                      const std::string &name,
                                      const CompileOptions &options) {
  Expected<tilec::CompileRequest> request = makeRequest(source, name, options);
  if (!request)
    return request.status();
  return compileRequest(*request, options, source);
}

Expected<std::string> RuntimeImpl::compileToPTX(const std::string &source,
                                                const std::string &name,
                                                const CompileOptions &options) {
  Expected<tilec::CompileRequest> request = makeRequest(source, name, options);
  if (!request)
    return request.status();
  std::string key = cacheKey(*request, version);
  std::shared_ptr<Entry> entry = entryFor(key);
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (entry->compiled) {
    ++memoryHits;
    return entry->ptx;
  }
  if (Status status = ensurePTX(*entry, key, *request); !status.ok())
    return status;
  return entry->ptx;
}

/// Counts the PTX entry points (`.entry NAME`) of a module.
static size_t countEntries(llvm::StringRef ptx) {
  size_t count = 0;
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    ptx = rest;
    line = line.ltrim();
    if (line.starts_with("//"))
      continue;
    for (llvm::StringRef directive : {".visible", ".weak", ".extern"})
      if (line.consume_front(directive))
        line = line.ltrim();
    if (line.starts_with(".entry") && line.size() > 6 && llvm::isSpace(line[6]))
      ++count;
  }
  return count;
}

Expected<Kernel> RuntimeImpl::loadPTX(const std::string &ptx,
                                      const std::string &origin) {
  std::string key =
      "ptx-" + llvm::toHex(llvm::SHA256::hash(
                   llvm::ArrayRef<uint8_t>(llvm::StringRef(ptx).bytes_begin(),
                                           llvm::StringRef(ptx).bytes_end())));
  std::shared_ptr<Entry> entry = entryFor(key);
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (entry->kernel) {
    ++memoryHits;
    return Kernel(entry->kernel);
  }
  if (!entry->compiled) {
    Expected<tilec::KernelInfo> info = parsePTXHeader(ptx);
    if (!info)
      return Status::error(origin + ": " + info.status().message());
    size_t entries = countEntries(ptx);
    if (entries != 1)
      return Status::error(origin + ": holds " + std::to_string(entries) +
                           " kernel entry points; libtile loads PTX files "
                           "of exactly one kernel");
    entry->info = std::move(*info);
    entry->ptx = ptx;
    entry->compiled = true;
  }
  Expected<KernelImpl *> kernel = ensureLoaded(*entry);
  if (!kernel)
    return Status::error(origin + ": " + kernel.status().message());
  return Kernel(*kernel);
}

Expected<KernelImpl *> RuntimeImpl::variant(KernelImpl &kernel,
                                            unsigned alignment,
                                            const std::string &why) {
  unsigned index = llvm::Log2_32(alignment);
  if (index >= 8 || !kernel.recipe)
    return Status::error("no variant for " + std::to_string(alignment) +
                         "-byte alignment");
  if (KernelImpl *existing =
          kernel.variants[index].load(std::memory_order_acquire))
    return existing;

  const CompileRecipe &recipe = *kernel.recipe;
  CompileOptions options = recipe.options;
  options.tensorAlignment = alignment;
  Expected<tilec::CompileRequest> request =
      makeRequest(recipe.source, recipe.name, options);
  if (!request)
    return request.status();
  uint64_t compilesBefore = compiles.load();
  Expected<Kernel> compiled = compileRequest(*request, options, recipe.source);
  if (!compiled)
    return compiled.status();
  if (compiles.load() != compilesBefore)
    ++alignmentVariants;
  KernelImpl *impl = compiled->get();
  // (Set before it is published: no launch reads it yet.)
  impl->variantNote =
      "kernel '" + kernel.info.name + "': " + why +
      ": launched as a variant compiled for " + std::to_string(alignment) +
      "-byte tensors (narrower vector accesses" +
      (impl->info.tensorMaps.size() < kernel.info.tensorMaps.size()
           ? ", cp.async instead of TMA copies"
           : "") +
      ": slower); tensors with 16-byte aligned bases, outer strides and "
      "rows run the kernel as compiled";
  kernel.variants[index].store(impl, std::memory_order_release);
  return impl;
}

RuntimeStats RuntimeImpl::stats() const {
  RuntimeStats stats;
  stats.compiles = compiles.load();
  stats.diskHits = diskHits.load();
  stats.diskWrites = diskWrites.load();
  stats.memoryHits = memoryHits.load();
  stats.modulesLoaded = modulesLoaded.load();
  stats.alignmentVariants = alignmentVariants.load();
  return stats;
}

//===----------------------------------------------------------------------===//
// tile::Runtime
//===----------------------------------------------------------------------===//

Runtime &Runtime::get() {
  // Never destroyed: kernels stay valid until the process ends, and nothing
  // is unloaded while the driver is being torn down.
  static Runtime *runtime = new Runtime(
      new RuntimeImpl(RuntimeConfig{defaultCacheDirectory(), {}, {}}));
  return *runtime;
}

/// A file's text, at most `maxBytes` of `what` (a device such as /dev/zero
/// never ends). "-" is a file of that name here, not standard input.
static Expected<std::string> readFile(const std::string &path, size_t maxBytes,
                                      llvm::StringRef what) {
  std::string text, error;
  if (!tilec::readFileBounded(path == "-" ? "./-" : path, maxBytes, what, text,
                              error))
    return Status::error(error);
  return text;
}

Expected<Kernel> Runtime::compileFile(const std::string &path,
                                      const CompileOptions &options) {
  Expected<std::string> source =
      readFile(path, tilec::kMaxSourceBytes, "a .tile source");
  if (!source)
    return source.status();
  return impl->compile(*source, path, options);
}

Expected<Kernel> Runtime::compileSource(const std::string &source,
                                        const std::string &name,
                                        const CompileOptions &options) {
  return impl->compile(source, name, options);
}

Expected<std::string> Runtime::compileToPTX(const std::string &source,
                                            const std::string &name,
                                            const CompileOptions &options) {
  return impl->compileToPTX(source, name, options);
}

Expected<Kernel> Runtime::loadPTXFile(const std::string &path) {
  Expected<std::string> ptx = readFile(path, size_t(256) << 20, "a PTX file");
  if (!ptx)
    return ptx.status();
  return impl->loadPTX(*ptx, path);
}

Expected<Kernel> Runtime::loadPTX(const std::string &ptx) {
  return impl->loadPTX(ptx, "<ptx>");
}

RuntimeStats Runtime::stats() const { return impl->stats(); }

std::string Runtime::cacheDirectory() const { return impl->diskCache().path(); }
