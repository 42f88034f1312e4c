//===- Tile.h - libtile: compile and launch tile kernels -------*- C++ -*-===//
//-*-===//
//
// The C++ API of libtile, the embeddable JIT of the tilec project:
//
//   tile::CompileOptions options;
//   options.constants = {{"DTYPE", "f16"}, {"TILE_D", "64"}};
//   tile::Expected<tile::Kernel> kernel =
//       tile::Runtime::get().compileFile("flash_attention.tile", options);
//   if (!kernel) { puts(kernel.status().message().c_str()); return; }
//   tile::Status status = kernel->launch(grid, stream, {q, k, v, out, scale,
//   0});
//
// Nothing here throws. Every fallible call returns a Status or an Expected<T>
// whose message says what went wrong; CUDA errors name the driver call and
// carry cuGetErrorName/cuGetErrorString's text.
//
// The CUDA driver (libcuda.so.1) is loaded with dlopen on first use: a
// program linked with libtile runs, and compiles kernels for an explicit
// arch, on a machine without a GPU; the calls that need the GPU then fail
// with "CUDA driver not found: ...".
//
// Kernels run in the CUDA context that is current on the calling thread when
// the runtime first touches the GPU, or else in device 0's primary context
// (TILE_DEVICE=N picks another device), and every kernel is loaded into that
// one context. Kernel handles stay valid for the life of the process.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TILE_H
#define TILE_TILE_H

#include "tile/Options.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#ifndef TILE_API
#define TILE_API __attribute__((visibility("default")))
#endif

/// The driver's stream type: CUstream and cudaStream_t both point to it.
struct CUstream_st;

namespace tile {

using Stream = CUstream_st *;

//===----------------------------------------------------------------------===//
// Status and Expected
//===----------------------------------------------------------------------===//

/// Success, or an error with a message.
class Status {
public:
  /// Success.
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    if (status.text.empty())
      status.text = "unknown error";
    return status;
  }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  /// Empty on success.
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

/// A T, or the Status that says why there is none.
template <typename T> class Expected {
public:
  Expected(T value) : value(std::move(value)) {}
  /// `status` must be an error.
  Expected(Status status) : error(std::move(status)) {
    if (error.ok())
      error = Status::error("Expected<T> built from a success status");
  }

  bool ok() const { return value.has_value(); }
  explicit operator bool() const { return ok(); }
  /// The error (success when ok()).
  const Status &status() const { return error; }

  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  T &get() { return *value; }
  const T &get() const { return *value; }

private:
  std::optional<T> value;
  Status error;
};

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

enum class DType { F16, BF16, F32, I32, Bool, F8E4M3, F8E5M2, I64, I8 };

/// Bytes per element, and the DSL's spelling ("f16", "bf16", ...).
TILE_API unsigned dtypeBytes(DType dtype);
TILE_API const char *dtypeName(DType dtype);

/// A tensor in GPU memory. Strides count elements, not bytes.
struct Tensor {
  void *data = nullptr; // device pointer
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  Tensor() = default;
  Tensor(void *data, DType dtype, std::vector<int64_t> shape,
         std::vector<int64_t> strides)
      : data(data), dtype(dtype), shape(std::move(shape)),
        strides(std::move(strides)) {}
  /// A row-major (C-contiguous) tensor.
  static Tensor contiguous(void *data, DType dtype,
                           std::vector<int64_t> shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i > 1; --i)
      strides[i - 2] = strides[i - 1] * shape[i - 1];
    return Tensor(data, dtype, std::move(shape), std::move(strides));
  }
};

/// One kernel argument: a tensor, an int, a float or a bool, matching the
/// kernel's run-time parameters in order. An int argument also fits a float
/// parameter when a 32-bit float holds it exactly (any int up to 2^24 in
/// magnitude); otherwise the launch refuses it. A float never fits an int
/// parameter. A double is stored as a float.
class Arg {
public:
  enum class Kind { Tensor, Int, Float, Bool };

  Arg(const Tensor &tensor) : argKind(Kind::Tensor), tensorValue(tensor) {}
  Arg(Tensor &&tensor)
      : argKind(Kind::Tensor), tensorValue(std::move(tensor)) {}
  Arg(int value) : argKind(Kind::Int), intValue(value) {}
  Arg(long value) : argKind(Kind::Int), intValue(value) {}
  Arg(long long value) : argKind(Kind::Int), intValue(value) {}
  Arg(unsigned value) : argKind(Kind::Int), intValue(value) {}
  Arg(unsigned long value)
      : argKind(Kind::Int), intValue(static_cast<int64_t>(value)) {}
  Arg(unsigned long long value)
      : argKind(Kind::Int), intValue(static_cast<int64_t>(value)) {}
  Arg(float value) : argKind(Kind::Float), floatValue(value) {}
  Arg(double value)
      : argKind(Kind::Float), floatValue(static_cast<float>(value)) {}
  Arg(bool value) : argKind(Kind::Bool), boolValue(value) {}
  /// A raw pointer is no tensor (and must not turn into a bool): pass a
  /// Tensor with its dtype, shape and strides.
  template <typename T> Arg(T *) = delete;

  Kind kind() const { return argKind; }
  const Tensor &tensor() const { return tensorValue; }
  /// The int's value; the launch checks that it fits the kernel's 32 bits.
  int64_t intArg() const { return intValue; }
  float floatArg() const { return floatValue; }
  bool boolArg() const { return boolValue; }

private:
  Kind argKind;
  Tensor tensorValue;
  int64_t intValue = 0;
  float floatValue = 0;
  bool boolValue = false;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// How to compile a kernel: the values of its `const` parameters, which
/// kernel, the target, and the compile options (tile::Options: every option
/// of tile/Options.def, e.g. `options.numWarps = 8`,
/// `options.warpSpecialize = true`, or from text,
/// `options.parse("num_warps=8,warp_specialize=on")`). An option left unset
/// takes the kernel's @hints(...) where it may give it, else the default;
/// `tilec --help` and docs/language.md describe each.
struct CompileOptions : Options {
  /// Values for the kernel's `const` parameters (tilec's -DNAME=VALUE).
  std::vector<std::pair<std::string, std::string>> constants;
  /// The kernel to compile; empty: the file's only kernel.
  std::string kernel;
  /// Target, e.g. "sm_80" or "sm_90a"; empty: the current GPU's (sm_XY from
  /// its compute capability, "sm_90a" for 9.0).
  std::string arch;
};

/// A run-time parameter of a kernel (see tilec/Target/KernelInfo.h).
struct ParamInfo {
  enum class Kind { Tensor, Int, Float, Bool };
  std::string name;
  Kind kind = Kind::Int;
  // Tensors only:
  DType dtype = DType::F32;
  unsigned rank = 0;
  unsigned alignment = 1;  // bytes; base pointer and every stride but the last
  bool contiguous = false; // the last stride must be 1
};

namespace detail {
struct KernelImpl;
} // namespace detail

/// A loaded kernel. A cheap handle: copy it freely; it stays valid for the
/// life of the process. A default-constructed Kernel is invalid.
class TILE_API Kernel {
public:
  Kernel() = default;
  explicit Kernel(detail::KernelImpl *impl) : impl(impl) {}

  bool valid() const { return impl != nullptr; }
  explicit operator bool() const { return valid(); }

  const std::string &name() const;
  const std::vector<ParamInfo> &params() const;
  unsigned numWarps() const;
  /// How the kernel was built: CompileOptions::numStages and loopSplit (as
  /// recorded in its `// tilec-kernel:` line).
  unsigned numStages() const;
  bool loopSplit() const;
  /// A persistent kernel (CompileOptions::persistent): launch() runs at
  /// most as many blocks as the GPU holds at once (and at most
  /// $TILEC_PERSISTENT_BLOCKS, when set at the kernel's first launch), which
  /// loop over the grid asked for.
  bool persistent() const;
  /// Dynamic shared memory per block, in bytes.
  unsigned sharedBytes() const;
  /// Registers per thread, and local memory per thread in bytes (stack
  /// frame and spills), of the machine code the driver compiled; 0 for a
  /// kernel that is not loaded.
  unsigned registers() const;
  unsigned localBytes() const;
  /// The most blocks of this kernel a multiprocessor runs at once (the
  /// driver's occupancy for its registers, warps and shared memory); 0 for
  /// a kernel that is not loaded. A grid of a multiple of blocksPerSM() times
  /// the multiprocessors runs in whole waves.
  unsigned blocksPerSM() const;
  const std::string &arch() const;
  const std::vector<std::pair<std::string, std::string>> &constants() const;
  /// The kernel's PTX, starting with its `// tilec-kernel: {json}` line.
  const std::string &ptx() const;
  /// The TMA descriptors the kernel takes after its ordinary parameters
  /// (sm_90a kernels that copy with TMA; 0 otherwise). launch() builds them
  /// from the tensor arguments with the driver's cuTensorMapEncodeTiled and
  /// caches them per pointer, shape and strides.
  size_t numTensorMaps() const;
  /// Why the compiler used cp.async instead of TMA for some loads (free
  /// text, from the kernel's description).
  const std::vector<std::string> &tmaFallback() const;
  /// The compiler's warnings on this kernel: an option or hint it could not
  /// apply, and why ("file:line:col: warning: ..." each); and, when the
  /// driver's code for it uses local memory (localBytes() > 0: spills),
  /// "kernel 'NAME' spills: ...".
  const std::vector<std::string> &warnings() const;
  /// When a launch needed an alignment variant (tensors less aligned than
  /// the kernel was compiled for; see check()): which argument, and what
  /// the variant gives up ("kernel 'K': argument 4 ('OPart'): ...:
  /// launched as a variant compiled for 4-byte tensors (narrower vector
  /// accesses, cp.async instead of TMA copies: slower); ..."), for the
  /// variant the last such launch ran. "" when none did.
  std::string variantNote() const;
  /// The values a tuner may try for the kernel's constants, from its
  /// @tune: "TILE_M=64|128,TILE_N=64|128" ("" without one). tile::autotune
  /// with no candidates tries every combination.
  const std::string &tuneSpace() const;

  /// Checks `args` against the parameters without touching the GPU: count,
  /// kinds, dtypes, ranks, shapes and strides, null pointers, alignment and
  /// contiguity, and what TMA needs of the tensors the kernel copies with it
  /// (a 16-byte aligned base, stride 1 innermost, other strides multiples
  /// of 16 bytes below 2^40; launch() also refuses an empty one). The messages
  /// name the argument: "argument 2 ('K'): expected a rank-4 tensor, got rank
  /// 3". Tensors less aligned than the kernel assumes are an error for kernels
  /// loaded from PTX; a JIT kernel accepts them (launch() compiles a variant
  /// for them).
  Status check(const std::vector<Arg> &args) const;

  /// Checks `args`, then launches the kernel on `stream` (nullptr: the
  /// default stream) with `grid` blocks of numWarps() * 32 threads and
  /// sharedBytes() of dynamic shared memory. Asynchronous: errors the kernel
  /// hits while running show up at the next synchronizing call. A grid with
  /// a zero dimension launches nothing and succeeds.
  Status launch(Dim3 grid, Stream stream, const std::vector<Arg> &args) const;

  detail::KernelImpl *get() const { return impl; }

private:
  detail::KernelImpl *impl = nullptr;
};

//===----------------------------------------------------------------------===//
// The runtime
//===----------------------------------------------------------------------===//

struct RuntimeStats {
  uint64_t compiles = 0;          // calls into the compiler
  uint64_t diskHits = 0;          // PTX found in the on-disk cache
  uint64_t diskWrites = 0;        // PTX written to the on-disk cache
  uint64_t memoryHits = 0;        // kernels found already loaded
  uint64_t modulesLoaded = 0;     // cuModuleLoadDataEx calls that succeeded
  uint64_t alignmentVariants = 0; // variants compiled for less aligned tensors
};

namespace detail {
class RuntimeImpl;
} // namespace detail

/// Compiles, caches and loads kernels. One per process, thread-safe: two
/// threads that ask for the same kernel at once compile it once.
///
/// Compiled PTX is cached on disk in $TILEC_CACHE_DIR, else
/// $XDG_CACHE_HOME/tilec, else ~/.cache/tilec, keyed by a SHA-256 of the
/// source, the constants, the kernel name, the arch, the warps, the tensor
/// alignment, the pipeline stages, the loop splitting and the compiler's
/// version. TILEC_CACHE_DIR=off disables it. The driver compiles the PTX
/// to machine code as a whole program when a kernel is loaded, and keeps the
/// result in its own JIT cache ($CUDA_CACHE_PATH, else ~/.nv/ComputeCache;
/// CUDA_CACHE_DISABLE=1 turns it off), so that a kernel loads in a new
/// process without that compile either.
class TILE_API Runtime {
public:
  /// The process-wide runtime.
  static Runtime &get();

  /// Compiles the kernel in the .tile file at `path` (or finds it cached) and
  /// loads it on the GPU.
  Expected<Kernel> compileFile(const std::string &path,
                               const CompileOptions &options = {});
  /// The same for source text; `name` is the file name used in diagnostics.
  Expected<Kernel> compileSource(const std::string &source,
                                 const std::string &name,
                                 const CompileOptions &options = {});
  /// Compiles (or finds cached) without loading: needs no GPU when
  /// options.arch is set. Returns the PTX with its `// tilec-kernel:` line.
  Expected<std::string> compileToPTX(const std::string &source,
                                     const std::string &name,
                                     const CompileOptions &options = {});
  /// Loads an ahead-of-time compiled kernel: a .ptx file written by
  /// `tilec --emit=ptx`, whose first line is `// tilec-kernel: {json}`.
  Expected<Kernel> loadPTXFile(const std::string &path);
  /// The same for PTX text.
  Expected<Kernel> loadPTX(const std::string &ptx);

  RuntimeStats stats() const;
  /// The on-disk cache directory; empty when disabled.
  std::string cacheDirectory() const;

  explicit Runtime(detail::RuntimeImpl *impl) : impl(impl) {}
  detail::RuntimeImpl *getImpl() const { return impl; }

private:
  detail::RuntimeImpl *impl;
};

//===----------------------------------------------------------------------===//
// GPU memory, synchronization and timing
//===----------------------------------------------------------------------===//

/// What a program that embeds libtile needs around its launches, without
/// linking CUDA itself. All of them act on the runtime's context.
struct DeviceInfo {
  std::string name;
  int ordinal = 0;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int maxSharedPerBlockOptin = 0;
  std::string arch; // what an empty CompileOptions::arch compiles for
};

/// Loads the driver and sets up the runtime's context; fails with "CUDA
/// driver not found: ..." or "no CUDA device: ..." where there is no GPU.
TILE_API Expected<DeviceInfo> deviceInfo();
TILE_API Expected<void *> deviceAlloc(size_t bytes);
TILE_API Status deviceFree(void *pointer);
TILE_API Status copyToDevice(void *dst, const void *src, size_t bytes);
TILE_API Status copyToHost(void *dst, const void *src, size_t bytes);
TILE_API Status deviceMemset(void *dst, uint8_t value, size_t bytes);
/// deviceMemset ordered on `stream` (nullptr: the default stream), without
/// waiting: usable while a CUDA graph captures the stream.
TILE_API Status deviceMemsetAsync(void *dst, uint8_t value, size_t bytes,
                                  Stream stream);
/// Waits for `stream` (nullptr: the default stream).
TILE_API Status synchronize(Stream stream = nullptr);
/// Waits for all work of the runtime's context.
TILE_API Status synchronizeDevice();
TILE_API Expected<Stream> createStream();
TILE_API Status destroyStream(Stream stream);

/// A CUDA event for timing work on a stream.
class TILE_API Event {
public:
  static Expected<Event> create();
  Event() = default;
  Event(Event &&other) noexcept : handle(other.handle) {
    other.handle = nullptr;
  }
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  Status record(Stream stream = nullptr);
  Status synchronize();
  /// Milliseconds from `start` to this event; both must have completed
  /// (synchronize() this one first).
  Expected<float> elapsedMsSince(const Event &start) const;

private:
  void *handle = nullptr;
};

} // namespace tile

#endif // TILE_TILE_H
