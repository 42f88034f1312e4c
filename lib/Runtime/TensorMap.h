//===- TensorMap.h - TMA descriptors at launch ------------------*- C++ -*-===//
//
// Kernels that copy with TMA (sm_90a) take, after their ordinary parameters,
// one CUtensorMap per KernelInfo::tensorMaps entry (see KernelInfo.h). The
// launch builds each with the driver's cuTensorMapEncodeTiled from the
// tensor argument the entry names:
//
//   globalAddress   the tensor's data pointer (16-byte aligned)
//   globalDim       the sizes, innermost first
//   globalStrides   the byte strides of dimensions rank-2 ... 0 (innermost
//                   first, rank-1 entries; multiples of 16, below 2^40)
//   boxDim          the entry's box, innermost first
//   elementStrides  all 1
//   interleave none, swizzle as the entry says, L2 promotion 128 bytes,
//   out-of-bounds fill zero or NaN as the entry says; data type from the
//   parameter's element type (f16, bf16, f32, i32).
//
// Encoding costs microseconds, a launch a few: every kernel keeps a small
// cache of the descriptors it built, per entry, keyed by the argument's
// pointer, sizes and strides (everything else is fixed per entry). A hit is
// a comparison and a copy of 128 bytes under the kernel's lock, and
// allocates nothing; the encode function is a parameter so that the unit
// tests can count its calls.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TENSORMAP_H
#define TILE_RUNTIME_TENSORMAP_H

#include "CudaDriver.h"
#include "tile/Tile.h"
#include "tilec/Target/KernelInfo.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace tile {
namespace detail {

struct ArgRef;
struct KernelImpl;
struct PackedArgs;

/// cuTensorMapEncodeTiled's signature.
using TensorMapEncodeFn = decltype(&::cuTensorMapEncodeTiled);

/// The arguments of one cuTensorMapEncodeTiled call (innermost first).
struct TensorMapEncoding {
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint32_t rank = 0;
  void *address = nullptr;
  cuuint64_t globalDim[tilec::kTensorMapMaxRank] = {};
  cuuint64_t globalStrides[tilec::kTensorMapMaxRank - 1] = {};
  cuuint32_t boxDim[tilec::kTensorMapMaxRank] = {};
  cuuint32_t elementStrides[tilec::kTensorMapMaxRank] = {};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;

  /// Calls `encode` with these arguments.
  CUresult encode(TensorMapEncodeFn encode, CUtensorMap &out) const;
  /// "rank-2 FLOAT16 tensor map: globalDim [64, 100], globalStrides [128]
  /// bytes, box [64, 32], swizzle 128B" (innermost first), for messages.
  std::string describe() const;
};

/// Why the tensor argument `arg` of `param` cannot be described by `map`;
/// empty when it can. `arg` has passed checkArguments' ordinary checks
/// (kind, dtype, rank, non-negative sizes at most 2^31-1 and strides).
/// Checks the innermost stride (1), the base pointer (16-byte aligned), the
/// outer byte strides (multiples of 16, below 2^40) and the sizes (below
/// 2^32). Empty tensors pass: the launch reports them (tensorMapsForLaunch),
/// since a launch of an empty grid is fine with them.
std::string tensorMapArgumentProblem(const tilec::TensorMapInfo &map,
                                     const tilec::KernelParam &param,
                                     const ArgRef &arg);

/// The encode call for `map` and its (checked, non-empty) argument.
void describeTensorMap(const tilec::TensorMapInfo &map,
                       const tilec::KernelParam &param, const ArgRef &arg,
                       TensorMapEncoding &encoding);

/// One kernel's encoded descriptors, a few per tensor-map entry. Safe to use
/// from several threads.
class TensorMapCache {
public:
  /// Descriptors kept per entry; more distinct arguments evict the oldest.
  static constexpr unsigned kWays = 8;

  TensorMapCache();
  ~TensorMapCache();
  TensorMapCache(const TensorMapCache &) = delete;
  TensorMapCache &operator=(const TensorMapCache &) = delete;

  /// Sets `out` to the descriptor of entry `index` of `info` for `arg`:
  /// cached, or encoded with `encode` and cached. `arg` has passed
  /// tensorMapArgumentProblem and is not empty. On failure the message is
  /// the encode error (`driver`, when given, names the CUDA error) and the
  /// call's arguments.
  Status get(const tilec::KernelInfo &info, size_t index, const ArgRef &arg,
             TensorMapEncodeFn encode, const CudaDriver *driver,
             CUtensorMap &out);

  struct Stats {
    uint64_t hits = 0, misses = 0;
  };
  Stats stats() const;

private:
  /// What a descriptor depends on besides its entry (zero-padded, compared
  /// with memcmp).
  struct Key {
    uint64_t address = 0;
    uint64_t rank = 0;
    uint64_t sizes[tilec::kTensorMapMaxRank] = {};
    uint64_t strides[tilec::kTensorMapMaxRank] = {};
  };
  struct Slot {
    CUtensorMap map;
    Key key;
    bool valid = false;
  };
  struct Entry {
    Slot slots[kWays];
    unsigned next = 0; // the slot a miss replaces (round robin)
  };

  static void makeKey(const ArgRef &arg, Key &key);

  mutable std::mutex mutex;
  /// One Entry per tensor map, allocated on the first miss.
  std::unique_ptr<Entry[]> entries;
  size_t numEntries = 0;
  Stats counts;
};

/// Builds the descriptors of `kernel`'s tensor maps for `args` (checked by
/// checkArguments) into `maps` (room for kMaxTensorMaps) and appends a
/// pointer to each to `packed.pointers`, in order: the kernel's parameters
/// after the ordinary ones. `encode` is the driver's cuTensorMapEncodeTiled
/// (null: the driver lacks it, an error naming `driver`'s library). Errors
/// name the argument; an empty tensor is one (TMA cannot describe it).
Status tensorMapsForLaunch(KernelImpl &kernel, const ArgRef *args,
                           size_t numArgs, TensorMapEncodeFn encode,
                           const CudaDriver *driver, CUtensorMap *maps,
                           PackedArgs &packed);

} // namespace detail
} // namespace tile

#endif // TILE_RUNTIME_TENSORMAP_H
