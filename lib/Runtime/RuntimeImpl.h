//===- RuntimeImpl.h - libtile internals ------------------------*- C++ -*-===//
//
// Shared by the runtime's source files and by the unit tests, which build
// kernels from descriptions alone and drive the caches with a fake compiler.
// Not installed; not part of the API.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIMEIMPL_H
#define TILE_RUNTIME_RUNTIMEIMPL_H

#include "CudaDriver.h"
#include "TensorMap.h"
#include "tile/Tile.h"
#include "tilec/Target/Compile.h"
#include "tilec/Target/KernelInfo.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

struct tile_tensor; // tile/tile.h

namespace tile {
namespace detail {

//===----------------------------------------------------------------------===//
// The GPU (Module.cpp)
//===----------------------------------------------------------------------===//

/// The device and context every kernel of the process is loaded into.
struct GpuContext {
  const CudaDriver *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  DeviceInfo info;
};

/// Loads the driver and picks the context on first use (see Tile.h); later
/// calls return the same context or the same error.
Expected<const GpuContext *> gpuContext();

/// Makes `gpu`'s context current on this thread if no context is.
Status makeCurrent(const GpuContext &gpu);

/// "sm_XY" for compute capability X.Y; "sm_90a" for 9.0.
std::string archForComputeCapability(int major, int minor);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

class RuntimeImpl;

/// What compiled a JIT kernel, to compile variants of it.
struct CompileRecipe {
  std::string source;
  std::string name;       // buffer name
  CompileOptions options; // arch resolved
};

struct KernelImpl {
  tilec::KernelInfo info;
  std::vector<ParamInfo> params; // info.params, as the API shows them
  /// info.tune as text, "TILE_M=64|128,TILE_N=64|128" ("" without @tune).
  std::string tuneText;
  std::string ptx;

  const GpuContext *gpu = nullptr; // null: not loaded (tests)
  CUmodule module = nullptr;
  CUfunction function = nullptr;

  /// The JIT's inputs; null for kernels loaded from PTX.
  std::shared_ptr<const CompileRecipe> recipe;
  RuntimeImpl *runtime = nullptr;
  /// Variants of this kernel for less aligned tensors, by log2(alignment),
  /// compiled on demand.
  std::atomic<KernelImpl *> variants[8] = {};
  /// A variant's: why it was compiled and what it gives up, said once to
  /// whoever launches the kernel it is a variant of (variantNote()).
  std::string variantNote;
  /// The variant the last launch that needed one ran (null: none yet).
  std::atomic<KernelImpl *> lastVariant{nullptr};
  /// The TMA descriptors built for this kernel's launches (TensorMap.h).
  TensorMapCache tensorMapCache;
  /// The most blocks a launch of a persistent kernel runs: the driver's
  /// occupancy for its block and shared memory times the multiprocessors,
  /// bounded by $TILEC_PERSISTENT_BLOCKS; 0 until first launched.
  std::atomic<uint64_t> persistentBlocks{0};
  /// Registers per thread and local memory (stack and spills) per thread,
  /// in bytes, as the driver's compile left them.
  unsigned registers = 0, localBytes = 0;
  /// The driver's occupancy: blocks per multiprocessor (0: not loaded).
  unsigned blocksPerSM = 0;
  /// A kernel instrumented for a timeline (info.timelineRecords): the
  /// buffer its last launch logged into, zeroed before it (grown as
  /// launches need; it lives as long as the kernel), and the blocks and
  /// warpgroups per block that launch had.
  std::mutex timelineMutex;
  CUdeviceptr timeline = 0;
  size_t timelineBytes = 0;
  uint64_t timelineBlocks = 0;
  unsigned timelineWarpgroups = 0;
};

/// Builds a kernel from its description alone, with no module: check()
/// works, launch() reports that nothing is loaded. Lives for the process.
Kernel makeUnloadedKernel(tilec::KernelInfo info);

/// Fills `impl.params` from `impl.info.params`.
void describeParams(KernelImpl &impl);

//===----------------------------------------------------------------------===//
// Arguments (Launch.cpp)
//===----------------------------------------------------------------------===//

/// One argument, whichever API it came through.
struct ArgRef {
  Arg::Kind kind = Arg::Kind::Int;
  // Tensors
  const void *data = nullptr;
  DType dtype = DType::F32;
  const int64_t *shape = nullptr;
  size_t shapeSize = 0;
  const int64_t *strides = nullptr;
  size_t stridesSize = 0;
  // Scalars
  int64_t intValue = 0;
  float floatValue = 0;
  bool boolValue = false;
};

using ArgRefs = llvm::SmallVector<ArgRef, 12>;
void toArgRefs(const std::vector<Arg> &args, ArgRefs &refs);

/// The kernel's parameter values, one 8-byte slot per PTX parameter (a .u32
/// or .f32 in the slot's low bytes), and cuLaunchKernel's pointers to them.
struct PackedArgs {
  llvm::SmallVector<uint64_t, 48> values;
  llvm::SmallVector<void *, 48> pointers;
};

/// What a launch could do about misaligned tensors.
struct AlignmentFit {
  /// Every problem found is an alignment the kernel assumes and the tensors
  /// lack (they are element-aligned): a variant compiled for `alignment`
  /// would take them.
  bool alignmentOnly = false;
  /// The largest power of two dividing the base pointer, outer byte strides
  /// and last dimension's bytes of every tensor that lacks the alignment
  /// its parameter asks for (capped at 1 << 30).
  unsigned alignment = 0;
};

/// Checks `args` against `info`'s parameters and packs them per the kernel
/// ABI (KernelInfo.h), and checks that every tensor with a tensor map fits
/// TMA (tensorMapArgumentProblem); the descriptors themselves are built at
/// launch (tensorMapsForLaunch). A pure function: no GPU, no allocation on
/// success beyond `packed`'s inline storage. Messages name the argument,
/// 1-based: "argument 2 ('K'): expected a rank-4 tensor, got rank 3".
Status checkArguments(const tilec::KernelInfo &info,
                      llvm::ArrayRef<ArgRef> args, PackedArgs &packed,
                      AlignmentFit &fit);

/// Milliseconds per launch of `iterations` calls of `launchOn(stream)`,
/// captured into one CUDA graph on a stream of the runtime's own (after
/// `caller`'s work) and replayed: the GPU's time, without the host's launch
/// cost between the launches. An error when the driver lacks graphs or a
/// launch cannot be captured; the caller then times launches as they come.
Expected<float>
timeCapturedLaunches(Stream caller, unsigned iterations,
                     llvm::function_ref<Status(Stream)> launchOn);
/// timeCapturedLaunches' error where the driver has no CUDA graphs.
inline constexpr const char *kNoGraphs = "the driver has no CUDA graphs";

/// Checks, picks an alignment variant if needed, and launches.
/// At least `bytes` of device memory of `stream` (in the runtime's context)
/// for an operation's own tables between its launches on that stream,
/// which run in order: kept for the process, grown (after the stream's
/// earlier work) when a call needs more. `purpose` names it in errors.
Expected<void *> streamScratch(Stream stream, size_t bytes,
                               const char *purpose);

Status launchKernel(KernelImpl &kernel, Dim3 grid, Stream stream,
                    llvm::ArrayRef<ArgRef> args);
/// The records of `kernel`'s last launch (a timeline kernel's), once the
/// context's work is done: copied into `records` (at most `bytes`; null:
/// none), with the blocks and warpgroups per block they are the logs of.
Status readTimeline(KernelImpl &kernel, void *records, size_t bytes,
                    uint64_t &blocks, unsigned &warpgroups);
/// The same checks as launchKernel, without launching or compiling.
Status checkKernel(const KernelImpl &kernel, llvm::ArrayRef<ArgRef> args);

//===----------------------------------------------------------------------===//
// The C API's errors (CApi.cpp), for the operations' C entry points too
//===----------------------------------------------------------------------===//

/// The calling thread's last C API error (tile_last_error).
std::string &lastCError();
/// Records `message` as the thread's last error; returns TILE_ERROR.
int failC(const std::string &message);
inline int failC(const Status &status) { return failC(status.message()); }
/// A C API tensor as a tile::Tensor (its shape and strides copied); false,
/// with the last error "OP: NAME: NULL tensor" or "OP: NAME: malformed
/// tile_tensor (rank R, dtype D)", where it is NULL, of a negative rank or
/// one over 8, of an unknown dtype, or without shape or strides arrays.
bool fromCTensor(const ::tile_tensor *in, const std::string &op,
                 const char *name, Tensor &out);

//===----------------------------------------------------------------------===//
// Caches (Cache.cpp)
//===----------------------------------------------------------------------===//

/// The cache key: hex SHA-256 over the source, the constants (sorted by
/// name), the kernel name, the arch, the warps, the tensor alignment and the
/// compiler version.
std::string cacheKey(const tilec::CompileRequest &request,
                     llvm::StringRef compilerVersion);

/// $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else $HOME/.cache/tilec;
/// empty when TILEC_CACHE_DIR is "off" or no directory can be named.
std::string defaultCacheDirectory();

/// A PTX file's `// tilec-kernel: {json}` first line, parsed.
Expected<tilec::KernelInfo> parsePTXHeader(llvm::StringRef ptx);

/// The on-disk PTX cache: one file per key, written atomically (a temporary
/// file renamed over the entry) and ending in a line with the SHA-256 of
/// what precedes it, so that truncated or corrupt entries are detected.
class DiskCache {
public:
  explicit DiskCache(std::string directory) : directory(std::move(directory)) {}
  bool enabled() const { return !directory.empty(); }
  const std::string &path() const { return directory; }
  std::string entryPath(llvm::StringRef key) const;

  /// The PTX stored under `key`, if an intact entry exists.
  std::optional<std::string> read(llvm::StringRef key) const;
  /// Stores `ptx` under `key`; a failure leaves the cache as it was.
  Status write(llvm::StringRef key, llvm::StringRef ptx) const;

  /// Binary entries (the autotuner's choices): the file `name` in the
  /// directory, its bytes followed by their SHA-256; written atomically, a
  /// damaged one reads as absent.
  std::string binaryPath(llvm::StringRef name) const;
  std::optional<std::string> readBinary(llvm::StringRef name) const;
  Status writeBinary(llvm::StringRef name, llvm::StringRef bytes) const;

private:
  std::string directory;
};

//===----------------------------------------------------------------------===//
// The runtime (JIT.cpp)
//===----------------------------------------------------------------------===//

using CompilerFn =
    std::function<tilec::CompileResult(const tilec::CompileRequest &)>;

struct RuntimeConfig {
  std::string cacheDirectory;  // empty: no disk cache
  CompilerFn compiler;         // tilec::compile when empty
  std::string compilerVersion; // tilec::compilerVersion() when empty
};

class RuntimeImpl {
public:
  explicit RuntimeImpl(RuntimeConfig config);

  Expected<Kernel> compile(const std::string &source, const std::string &name,
                           const CompileOptions &options);
  Expected<std::string> compileToPTX(const std::string &source,
                                     const std::string &name,
                                     const CompileOptions &options);
  Expected<Kernel> loadPTX(const std::string &ptx, const std::string &origin);
  /// `kernel`'s variant for tensors aligned to `alignment` bytes.
  /// `why`: the check that the arguments failed (the variant's note).
  Expected<KernelImpl *> variant(KernelImpl &kernel, unsigned alignment,
                                 const std::string &why);

  RuntimeStats stats() const;
  const DiskCache &diskCache() const { return disk; }
  const std::string &compilerVersion() const { return version; }

private:
  struct Entry {
    std::mutex mutex;
    std::string key; // the cache key
    bool compiled = false;
    std::string ptx;
    tilec::KernelInfo info;
    KernelImpl *kernel = nullptr;
  };

  /// Resolves the arch and builds the compiler's request.
  Expected<tilec::CompileRequest> makeRequest(const std::string &source,
                                              const std::string &name,
                                              const CompileOptions &options);
  std::shared_ptr<Entry> entryFor(const std::string &key);
  /// Fills entry.ptx from the disk cache or the compiler; entry locked.
  Status ensurePTX(Entry &entry, const std::string &key,
                   const tilec::CompileRequest &request);
  Expected<KernelImpl *> ensureLoaded(Entry &entry);
  Expected<Kernel> compileRequest(const tilec::CompileRequest &request,
                                  const CompileOptions &options,
                                  const std::string &source);

  DiskCache disk;
  CompilerFn compiler;
  std::string version;

  mutable std::mutex mutex;
  llvm::StringMap<std::shared_ptr<Entry>> entries;

  std::atomic<uint64_t> compiles{0}, diskHits{0}, diskWrites{0}, memoryHits{0},
      modulesLoaded{0}, alignmentVariants{0};
};

/// Loads `ptx` into the runtime's context: cuModuleLoadDataEx (with the JIT
/// log in the error), cuModuleGetFunction, the shared memory attribute.
///
/// The driver compiles the PTX as a whole program, and its own JIT cache
/// ($CUDA_CACHE_PATH, ~/.nv/ComputeCache) keeps the result for the next
/// process. Not the JIT linker (cuLink*), which would hand back a cubin to
/// keep: it compiles PTX as a relocatable unit, where ptxas ignores
/// setmaxnreg ("to maintain compatibility across compilation units", C7504),
/// and a warp-specialized kernel's consumers then spill and serialize their
/// wgmmas (C7512): 0.6-0.8x the speed of the whole-program build.
Expected<KernelImpl *> loadKernel(const tilec::KernelInfo &info,
                                  const std::string &ptx);

/// Whether kernels `a` and `b` are the same kernel launched the same way:
/// the same constants (`aConstants`, `bConstants`: a launch may read them),
/// the same code after the description's line (which records options that
/// may have changed nothing) and what a launch takes from the description.
/// The autotuner times such candidates once.
bool sameKernel(
    const KernelImpl &a,
    const std::vector<std::pair<std::string, std::string>> &aConstants,
    const KernelImpl &b,
    const std::vector<std::pair<std::string, std::string>> &bConstants);

} // namespace detail
} // namespace tile

#endif // TILE_RUNTIME_RUNTIMEIMPL_H
