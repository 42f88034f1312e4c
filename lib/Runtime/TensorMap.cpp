//===- TensorMap.cpp - TMA descriptors at launch --------------------------===//
//
// See TensorMap.h. Like Launch.cpp, the success path of a cache hit builds
// no strings and allocates nothing.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "RuntimeImpl.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

using namespace tile;
using namespace tile::detail;
using tilec::kTensorMapMaxRank;

static constexpr uint64_t kMaxStrideBytes = uint64_t(1) << 40;
static constexpr uint64_t kMaxGlobalDim = uint64_t(1) << 32;

static CUtensorMapDataType dataType(tilec::ElementKind kind) {
  switch (kind) {
  case tilec::ElementKind::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case tilec::ElementKind::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case tilec::ElementKind::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case tilec::ElementKind::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case tilec::ElementKind::I8:
  case tilec::ElementKind::F8E4M3:
  case tilec::ElementKind::F8E5M2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8; // TMA moves the bytes
  case tilec::ElementKind::F32:
  case tilec::ElementKind::Bool: // rejected by tensorMapProblem
    break;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

static const char *dataTypeName(CUtensorMapDataType type) {
  switch (type) {
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    return "FLOAT16";
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return "BFLOAT16";
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
    return "INT32";
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    return "FLOAT32";
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return "UINT8";
  default:
    return "?";
  }
}

static CUtensorMapSwizzle swizzleMode(unsigned bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// A size-1 (or empty) dimension never moves the address, so its stride may
/// be anything; TMA still wants a valid one.
static bool strideMatters(const ArgRef &arg, size_t d) {
  return arg.shape[d] > 1;
}

//===----------------------------------------------------------------------===//
// Checks and the encode call
//===----------------------------------------------------------------------===//

std::string
tile::detail::tensorMapArgumentProblem(const tilec::TensorMapInfo &map,
                                       const tilec::KernelParam &param,
                                       const ArgRef &arg) {
  // The description was checked when it was read (tilec::tensorMapProblem);
  // these guard the arrays below against one built otherwise.
  if (!param.isTensor || param.rank < 1 || param.rank > kTensorMapMaxRank ||
      map.box.size() != param.rank || arg.shapeSize != param.rank ||
      arg.stridesSize != param.rank)
    return "the kernel's tensor map for it is malformed (rank " +
           std::to_string(param.rank) + ", box of " +
           std::to_string(map.box.size()) + " entries)";

  auto tma = [&](const std::string &what) {
    return "the kernel copies this tensor with TMA, which needs " + what;
  };
  unsigned r = param.rank;
  unsigned elementBytes = tilec::elementBytes(param.element);
  if (strideMatters(arg, r - 1) && arg.strides[r - 1] != 1)
    return tma("a contiguous last dimension (stride 1); got strides[" +
               std::to_string(r - 1) +
               "] = " + std::to_string(arg.strides[r - 1]));
  uintptr_t address = reinterpret_cast<uintptr_t>(arg.data);
  if (address % 16) {
    char text[32];
    std::snprintf(text, sizeof(text), "0x%" PRIxPTR, address);
    return tma(std::string("a 16-byte aligned base pointer; got ") + text);
  }
  for (unsigned d = 0; d < r; ++d)
    if (static_cast<uint64_t>(arg.shape[d]) >= kMaxGlobalDim)
      return tma("sizes below 2^32; got shape[" + std::to_string(d) +
                 "] = " + std::to_string(arg.shape[d]));
  for (unsigned d = 0; d + 1 < r; ++d) {
    if (!strideMatters(arg, d))
      continue;
    uint64_t stride = static_cast<uint64_t>(arg.strides[d]);
    if (stride >= kMaxStrideBytes / elementBytes)
      return tma("byte strides below 2^40; got strides[" + std::to_string(d) +
                 "] = " + std::to_string(stride) + " elements of " +
                 std::to_string(elementBytes) + " bytes");
    if ((stride * elementBytes) % 16)
      return tma("byte strides that are multiples of 16; got strides[" +
                 std::to_string(d) + "] = " + std::to_string(stride) +
                 " elements (" + std::to_string(stride * elementBytes) +
                 " bytes)");
  }
  return std::string();
}

void tile::detail::describeTensorMap(const tilec::TensorMapInfo &map,
                                     const tilec::KernelParam &param,
                                     const ArgRef &arg,
                                     TensorMapEncoding &encoding) {
  unsigned r = param.rank;
  unsigned elementBytes = tilec::elementBytes(param.element);
  encoding.dataType = dataType(param.element);
  encoding.rank = r;
  encoding.address = const_cast<void *>(arg.data);
  for (unsigned i = 0; i < r; ++i) {
    unsigned d = r - 1 - i; // tensor dimension of encoding dimension i
    encoding.globalDim[i] = static_cast<cuuint64_t>(arg.shape[d]);
    encoding.boxDim[i] = map.box[d];
    encoding.elementStrides[i] = 1;
    if (i > 0) {
      // Any valid stride does for a dimension that never moves the address:
      // the smallest.
      uint64_t bytes = static_cast<uint64_t>(arg.strides[d]) * elementBytes;
      encoding.globalStrides[i - 1] = strideMatters(arg, d) ? bytes : 16;
    }
  }
  encoding.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  encoding.swizzle = swizzleMode(map.swizzle);
  encoding.l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  encoding.oobFill = map.fill == tilec::TensorMapFill::NaN
                         ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                         : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
}

CUresult TensorMapEncoding::encode(TensorMapEncodeFn encode,
                                   CUtensorMap &out) const {
  return encode(&out, dataType, rank, address, globalDim, globalStrides, boxDim,
                elementStrides, interleave, swizzle, l2Promotion, oobFill);
}

template <typename T> static std::string list(const T *values, size_t size) {
  std::string text = "[";
  for (size_t i = 0; i < size; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string TensorMapEncoding::describe() const {
  char pointer[32];
  std::snprintf(pointer, sizeof(pointer), "0x%" PRIxPTR,
                reinterpret_cast<uintptr_t>(address));
  static const char *swizzles[] = {"none", "32B", "64B", "128B"};
  return "rank-" + std::to_string(rank) + " " + dataTypeName(dataType) +
         " tensor map at " + pointer + " (innermost first: globalDim " +
         list(globalDim, rank) + ", globalStrides " +
         list(globalStrides, rank ? rank - 1 : 0) + " bytes, box " +
         list(boxDim, rank) + ", swizzle " +
         (static_cast<unsigned>(swizzle) < 4 ? swizzles[swizzle] : "?") +
         ", oob fill " +
         (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ? "zero" : "nan") + ")";
}

//===----------------------------------------------------------------------===//
// The cache
//===----------------------------------------------------------------------===//

TensorMapCache::TensorMapCache() = default;
TensorMapCache::~TensorMapCache() = default;

void TensorMapCache::makeKey(const ArgRef &arg, Key &key) {
  key.address = reinterpret_cast<uintptr_t>(arg.data);
  key.rank = arg.shapeSize;
  for (size_t d = 0; d < arg.shapeSize && d < kTensorMapMaxRank; ++d) {
    key.sizes[d] = static_cast<uint64_t>(arg.shape[d]);
    key.strides[d] = static_cast<uint64_t>(arg.strides[d]);
  }
}

Status TensorMapCache::get(const tilec::KernelInfo &info, size_t index,
                           const ArgRef &arg, TensorMapEncodeFn encode,
                           const CudaDriver *driver, CUtensorMap &out) {
  Key key;
  makeKey(arg, key);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (entries && index < numEntries) {
      for (const Slot &slot : entries[index].slots) {
        if (slot.valid && std::memcmp(&slot.key, &key, sizeof(Key)) == 0) {
          std::memcpy(&out, &slot.map, sizeof(CUtensorMap));
          ++counts.hits;
          return Status();
        }
      }
    }
  }

  // A miss: encode without the lock (two threads may both encode the same
  // descriptor; they get the same bytes).
  const tilec::TensorMapInfo &map = info.tensorMaps[index];
  TensorMapEncoding encoding;
  describeTensorMap(map, info.params[map.param], arg, encoding);
  CUresult result = encoding.encode(encode, out);
  if (result != CUDA_SUCCESS) {
    std::string error =
        driver ? driver->errorText(result, "cuTensorMapEncodeTiled")
               : "cuTensorMapEncodeTiled failed: CUDA error " +
                     std::to_string(result);
    return Status::error(error + " for the " + encoding.describe());
  }

  std::lock_guard<std::mutex> lock(mutex);
  ++counts.misses;
  if (!entries) {
    numEntries = info.tensorMaps.size();
    entries.reset(new Entry[numEntries]);
  }
  if (index >= numEntries)
    return Status(); // not cacheable (a description that changed size)
  Entry &entry = entries[index];
  // Another thread may have cached it meanwhile: keep one copy.
  for (const Slot &slot : entry.slots)
    if (slot.valid && std::memcmp(&slot.key, &key, sizeof(Key)) == 0)
      return Status();
  Slot &slot = entry.slots[entry.next];
  entry.next = (entry.next + 1) % kWays;
  slot.key = key;
  std::memcpy(&slot.map, &out, sizeof(CUtensorMap));
  slot.valid = true;
  return Status();
}

TensorMapCache::Stats TensorMapCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counts;
}

//===----------------------------------------------------------------------===//
// At launch
//===----------------------------------------------------------------------===//

namespace {
/// Device memory kept for the process, freed at its exit (before the
/// driver's own teardown, which was registered earlier), so that leak
/// checkers see nothing left.
struct ZeroBlocks {
  std::mutex mutex;
  std::map<CUcontext, std::pair<const CudaDriver *, CUdeviceptr>> blocks;
  ~ZeroBlocks() {
    for (auto &[context, block] : blocks)
      block.first->cuMemFree_v2(block.second);
  }
};
} // namespace

/// 256 zeroed bytes of device memory in `gpu`'s context, allocated on
/// first use and kept for the process: what the descriptor of an empty
/// tensor points at. The context is current.
static Status zeroBlock(const GpuContext &gpu, CUdeviceptr &out) {
  static ZeroBlocks zeroBlocks;
  std::lock_guard<std::mutex> lock(zeroBlocks.mutex);
  auto &blocks = zeroBlocks.blocks;
  if (auto it = blocks.find(gpu.context); it != blocks.end()) {
    out = it->second.second;
    return Status();
  }
  const CudaDriver &driver = *gpu.driver;
  constexpr size_t kBytes = 256;
  CUdeviceptr block = 0;
  CUresult result = driver.cuMemAlloc_v2(&block, kBytes);
  if (result != CUDA_SUCCESS)
    return Status::error(driver.errorText(result, "cuMemAlloc"));
  // A synchronous copy: the launch may be on a stream the memset would not
  // be ordered with.
  const unsigned char zeros[kBytes] = {};
  result = driver.cuMemcpyHtoD_v2(block, zeros, kBytes);
  if (result != CUDA_SUCCESS) {
    driver.cuMemFree_v2(block);
    return Status::error(driver.errorText(result, "cuMemcpyHtoD"));
  }
  blocks[gpu.context] = {&driver, block};
  out = block;
  return Status();
}

Status tile::detail::tensorMapsForLaunch(KernelImpl &kernel, const ArgRef *args,
                                         size_t numArgs,
                                         TensorMapEncodeFn encode,
                                         const CudaDriver *driver,
                                         CUtensorMap *maps,
                                         PackedArgs &packed) {
  const tilec::KernelInfo &info = kernel.info;
  if (info.tensorMaps.empty())
    return Status();
  auto fail = [&](const std::string &message) {
    return Status::error("kernel '" + info.name + "': " + message);
  };
  if (info.tensorMaps.size() > tilec::kMaxTensorMaps)
    return fail("takes " + std::to_string(info.tensorMaps.size()) +
                " tensor maps; at most " +
                std::to_string(tilec::kMaxTensorMaps) + " are supported");
  if (!encode)
    return fail(
        "it copies with TMA, but the CUDA driver" +
        (driver ? " " + driver->libraryPath + " (version " +
                      std::to_string(driver->driverVersion) + ")"
                : std::string()) +
        " lacks cuTensorMapEncodeTiled, which CUDA 12.0 and newer drivers "
        "have");

  for (size_t m = 0; m < info.tensorMaps.size(); ++m) {
    const tilec::TensorMapInfo &map = info.tensorMaps[m];
    if (map.param >= numArgs || map.param >= info.params.size())
      return fail("tensor map " + std::to_string(m) + " names parameter " +
                  std::to_string(map.param) + " of " +
                  std::to_string(info.params.size()));
    const tilec::KernelParam &param = info.params[map.param];
    const ArgRef &arg = args[map.param];
    auto argFail = [&](const std::string &message) {
      return fail("argument " + std::to_string(map.param + 1) + " ('" +
                  param.name + "'): " + message);
    };
    // An empty tensor has no elements to read: a copy from it reads only
    // zeros. TMA cannot describe it, so its descriptor describes a tensor
    // of one zero element (every size 1), whose other elements are out of
    // bounds and read as zero too.
    size_t emptyDim = arg.shapeSize;
    for (size_t d = arg.shapeSize; d-- > 0;)
      if (arg.shape[d] == 0)
        emptyDim = d;
    bool empty = emptyDim < arg.shapeSize;
    ArgRef standIn;
    int64_t ones[tilec::kTensorMapMaxRank];
    if (empty) {
      if (!kernel.gpu || !kernel.gpu->driver ||
          arg.shapeSize > tilec::kTensorMapMaxRank)
        return argFail("the kernel copies this tensor with TMA, which "
                       "cannot describe an empty tensor (shape[" +
                       std::to_string(emptyDim) +
                       "] = 0), and no GPU "
                       "holds a stand-in for it");
      CUdeviceptr zero = 0;
      if (Status status = zeroBlock(*kernel.gpu, zero); !status.ok())
        return argFail(status.message());
      std::fill(ones, ones + arg.shapeSize, 1);
      standIn = arg;
      standIn.data = reinterpret_cast<const void *>(zero);
      standIn.shape = ones;
      standIn.strides = ones;
    }
    Status status = kernel.tensorMapCache.get(info, m, empty ? standIn : arg,
                                              encode, driver, maps[m]);
    if (!status.ok())
      return argFail(status.message());
    packed.pointers.push_back(&maps[m]);
  }
  return Status();
}
