//===- KernelInfo.h - What the runtime needs to launch a kernel -*- C++ -*-===//
//
// The compiler describes every kernel it emits: its parameters (in the order
// of the PTX entry's parameters), the threads per block and the dynamic
// shared memory it needs. The description travels with the PTX as one JSON
// line in a comment at the top of the file:
//
//   // tilec-kernel: {"loop_split":true,"name":"fmha","num_stages":0,
//                     "num_warps":4,"shared_bytes":32768,...}
//
// so that an AOT-compiled .ptx file is self-describing.
//
// Kernel ABI, per run-time parameter in source order:
//   Tensor[dtype, rank]  -> .u64 base pointer, rank x .u32 sizes,
//                           rank x .u64 strides (in elements)
//   int                  -> .u32      float -> .f32
//   bool                 -> .u8 (0/1; the runtime passes a 32-bit value
//                           whose low byte the kernel reads)
// then, for a persistent kernel (KernelInfo::persistent), three .u32: the
// grid the launch asks for (x, y, z), which the kernel's blocks loop over
// (the runtime launches fewer blocks: as many as the GPU runs at once),
// and a .u64, the address of its tile counter: two 32-bit words of device
// memory, zero when the launch starts, which the blocks claim tiles from
// (sm_90) and the launch's last block zeroes again (the runtime keeps one
// per stream, for launches that run one after another);
// then, for a kernel instrumented for a timeline (KernelInfo::
// timelineRecords), a .u64: the address of its records (tile-timeline; the
// runtime allocates and zeroes them for each launch);
// then, after all of those, one parameter per KernelInfo::tensorMaps entry,
// in list order:
//   .param .align 64 .b8 NAME[128]   a CUtensorMap (TMA descriptor) by
//                                    value, for the kernel's grid-constant
//                                    use; the runtime encodes it from the
//                                    tensor argument of the entry's param.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_KERNELINFO_H
#define TILEC_TARGET_KERNELINFO_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

enum class ScalarKind { I32, F32, Bool, I64 };
enum class ElementKind { F16, BF16, F32, I32, Bool, F8E4M3, F8E5M2, I64, I8 };

struct KernelParam {
  std::string name;
  bool isTensor = false;
  // Tensors
  ElementKind element = ElementKind::F32;
  unsigned rank = 0;
  /// Byte alignment the code assumes for the base pointer, for every stride
  /// but the last (in bytes) and for the length of the last dimension (in
  /// bytes: vector accesses along it are masked whole); the last stride is
  /// assumed to be 1 when `contiguous` is set. The runtime checks all of it
  /// at launch. The widest vector the kernel's accesses to this tensor use
  /// (at least an element), or the kernel's assumed alignment for a tensor
  /// it copies with TMA.
  unsigned alignment = 1;
  bool contiguous = false;
  /// A tensor a warp-specialized kernel's producer reads ahead of the
  /// kernel's own writes (a sequence bound, a tile schedule): no tensor
  /// marked `written` may overlap it, which the runtime checks at launch.
  bool readAhead = false;
  /// A tensor the kernel writes; recorded where some tensor is read ahead.
  bool written = false;
  // Scalars
  ScalarKind scalar = ScalarKind::I32;
};

/// What the out-of-bounds elements of a TMA copy read as.
enum class TensorMapFill {
  Zero, ///< CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros
  NaN,  ///< CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA (float only)
};

/// A TMA descriptor the kernel takes after its ordinary parameters, built at
/// launch by cuTensorMapEncodeTiled from the tensor argument of `param`.
struct TensorMapInfo {
  /// Index into KernelInfo::params of a tensor parameter of rank 1 to 5 and
  /// element type f16, bf16, f32 or i32.
  unsigned param = 0;
  /// The box (the tile one copy moves), per tensor dimension in the tensor's
  /// own order: box[0] outermost ... box[rank-1] innermost (contiguous).
  /// Every entry is in [1, 256]; box[rank-1] * element bytes is a multiple
  /// of 16 and, when swizzled, at most `swizzle`.
  std::vector<unsigned> box;
  /// Shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128.
  unsigned swizzle = 0;
  TensorMapFill fill = TensorMapFill::Zero;

  bool operator==(const TensorMapInfo &other) const {
    return param == other.param && box == other.box &&
           swizzle == other.swizzle && fill == other.fill;
  }
};

/// Limits of a tensor map (cuTensorMapEncodeTiled's).
inline constexpr unsigned kTensorMapMaxRank = 5;
inline constexpr unsigned kTensorMapMaxBox = 256;
/// At most this many tensor maps per kernel (each is 128 bytes of the
/// kernel's parameter space).
inline constexpr unsigned kMaxTensorMaps = 16;

struct KernelInfo {
  std::string name;
  unsigned numWarps = 4;
  unsigned sharedBytes = 0; // dynamic shared memory per block
  std::string arch;         // e.g. "sm_90a"
  /// How the code was built (CompileRequest::numStages and loopSplit); they
  /// do not change how the kernel is launched. Descriptions written before
  /// they were recorded read as the defaults (0 and true).
  unsigned numStages = 0;
  bool loopSplit = true;
  /// A persistent kernel: it takes the logical grid after its ordinary
  /// parameters, and its blocks loop over it (see the kernel ABI above).
  bool persistent = false;
  /// A persistent kernel that takes its tile counter after the grid (see
  /// the kernel ABI above); descriptions written before it came read false.
  bool tileCounter = false;
  /// A persistent kernel launched in clusters of this many blocks along x
  /// (its PTX says so: .reqnctapercluster); the logical grid's x must be a
  /// multiple of it. 1: no clusters (descriptions without it).
  unsigned cluster = 1;
  /// A kernel that waits for the kernel before it in its stream before
  /// touching global memory (tile-dependent-launch): the runtime launches
  /// it with programmatic stream serialization, so that it may start under
  /// that kernel. False in descriptions without it.
  bool dependentLaunch = false;
  /// A kernel instrumented for a timeline (tile-timeline): it takes, after
  /// its ordinary (and persistent) parameters and before its TMA
  /// descriptors, the address of a buffer of this many 16-byte
  /// records per warpgroup of each launched block; 0: none.
  unsigned timelineRecords = 0;
  /// What each timeline site is ("start", "consumer: loop 1 (40:5) trip"),
  /// by site number.
  std::vector<std::string> timelineSites;
  std::vector<KernelParam> params;
  /// The compile-time constants the kernel was specialized with, as text.
  std::vector<std::pair<std::string, std::string>> constants;
  /// The TMA descriptors the kernel takes after its ordinary parameters, in
  /// order (see the kernel ABI above). Empty for kernels without TMA.
  std::vector<TensorMapInfo> tensorMaps;
  /// Why the compiler used cp.async instead of TMA for some loads, as text
  /// for people (tools print it; the runtime does not interpret it).
  std::vector<std::string> tmaFallback;
  /// The values a tuner may try for the kernel's constants (its @tune), by
  /// name, as text.
  std::vector<std::pair<std::string, std::vector<std::string>>> tune;
  /// The compiler's warnings on this kernel (an option or hint it could not
  /// apply, and why), each as printed: "file:line:col: warning: ...".
  std::vector<std::string> warnings;

  std::string toJSON() const;
  static std::optional<KernelInfo> fromJSON(const std::string &json,
                                            std::string &error);
};

/// Size in bytes of an element kind.
unsigned elementBytes(ElementKind kind);
const char *elementName(ElementKind kind);

/// Why `map` cannot describe a TMA copy of `param` (which must be the
/// parameter it names); empty when it can. Checks the rank, the element
/// type, the box and the swizzle; fromJSON runs it on every entry.
std::string tensorMapProblem(const TensorMapInfo &map,
                             const KernelParam &param);

} // namespace tilec

#endif // TILEC_TARGET_KERNELINFO_H
