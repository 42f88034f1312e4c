//===- Launch.cpp - Checking, packing and launching kernel arguments ------===//
//
// The launch path is the one libtile runs per kernel call, so it builds no
// strings and allocates nothing unless something is wrong: the arguments are
// checked and packed into a stack buffer in one pass, the alignment check is
// a few ORs of pointer and stride bits, and cuLaunchKernel gets the buffer.
// A kernel that copies with TMA also gets its descriptors, from the kernel's
// descriptor cache when the tensors were seen before (TensorMap.h).
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

using namespace tile;
using namespace tile::detail;

static DType toDType(tilec::ElementKind kind) {
  switch (kind) {
  case tilec::ElementKind::F16:
    return DType::F16;
  case tilec::ElementKind::BF16:
    return DType::BF16;
  case tilec::ElementKind::F32:
    return DType::F32;
  case tilec::ElementKind::I32:
    return DType::I32;
  case tilec::ElementKind::Bool:
    return DType::Bool;
  case tilec::ElementKind::F8E4M3:
    return DType::F8E4M3;
  case tilec::ElementKind::F8E5M2:
    return DType::F8E5M2;
  case tilec::ElementKind::I64:
    return DType::I64;
  case tilec::ElementKind::I8:
    return DType::I8;
  }
  return DType::F32;
}

unsigned tile::dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  case DType::I8:
  case DType::Bool:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 1;
  }
  return 0;
}

const char *tile::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::Bool:
    return "bool";
  case DType::F8E4M3:
    return "f8e4m3";
  case DType::F8E5M2:
    return "f8e5m2";
  case DType::I64:
    return "i64";
  case DType::I8:
    return "i8";
  }
  return "?";
}

void tile::detail::toArgRefs(const std::vector<Arg> &args, ArgRefs &refs) {
  refs.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &arg = args[i];
    ArgRef &ref = refs[i];
    ref.kind = arg.kind();
    switch (arg.kind()) {
    case Arg::Kind::Tensor: {
      const Tensor &tensor = arg.tensor();
      ref.data = tensor.data;
      ref.dtype = tensor.dtype;
      ref.shape = tensor.shape.data();
      ref.shapeSize = tensor.shape.size();
      ref.strides = tensor.strides.data();
      ref.stridesSize = tensor.strides.size();
      break;
    }
    case Arg::Kind::Int:
      ref.intValue = arg.intArg();
      break;
    case Arg::Kind::Float:
      ref.floatValue = arg.floatArg();
      break;
    case Arg::Kind::Bool:
      ref.boolValue = arg.boolArg();
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Messages (error paths only)
//===----------------------------------------------------------------------===//

static const char *argKindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Tensor:
    return "a tensor";
  case Arg::Kind::Int:
    return "an int";
  case Arg::Kind::Float:
    return "a float";
  case Arg::Kind::Bool:
    return "a bool";
  }
  return "?";
}

static std::string describeArg(const ArgRef &arg) {
  if (arg.kind != Arg::Kind::Tensor)
    return argKindName(arg.kind);
  return std::string("a ") + dtypeName(arg.dtype) + " tensor of rank " +
         std::to_string(arg.shapeSize);
}

static std::string describeParam(const tilec::KernelParam &param) {
  if (!param.isTensor) {
    switch (param.scalar) {
    case tilec::ScalarKind::I32:
      return "an int";
    case tilec::ScalarKind::I64:
      return "an i64 int";
    case tilec::ScalarKind::F32:
      return "a float";
    case tilec::ScalarKind::Bool:
      return "a bool";
    }
  }
  return std::string("a rank-") + std::to_string(param.rank) + " " +
         tilec::elementName(param.element) + " tensor";
}

static Status argError(size_t index, const tilec::KernelParam &param,
                       const std::string &message) {
  return Status::error("argument " + std::to_string(index + 1) + " ('" +
                       param.name + "'): " + message);
}

static std::string hexPointer(const void *pointer) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%" PRIxPTR,
                reinterpret_cast<uintptr_t>(pointer));
  return buffer;
}

static std::string formatShape(const int64_t *values, size_t size) {
  std::string text = "[";
  for (size_t i = 0; i < size; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// Why a tensor misses the alignment `required`: the base pointer, or which
/// stride.
static std::string alignmentProblem(const ArgRef &arg, unsigned elementBytes,
                                    unsigned required) {
  uintptr_t address = reinterpret_cast<uintptr_t>(arg.data);
  if (address % required)
    return "base pointer " + hexPointer(arg.data) + " is not " +
           std::to_string(required) + "-byte aligned";
  if (arg.shapeSize > 0) {
    uint64_t last = static_cast<uint64_t>(arg.shape[arg.shapeSize - 1]);
    if (last > 0 && (last * elementBytes) % required)
      return "the last dimension (" + std::to_string(last) + " elements, " +
             std::to_string(last * elementBytes) +
             " bytes) is not a multiple of " + std::to_string(required) +
             " bytes";
  }
  for (size_t d = 0; d + 1 < arg.shapeSize; ++d) {
    if (arg.shape[d] <= 1)
      continue;
    uint64_t bytes = static_cast<uint64_t>(arg.strides[d]) * elementBytes;
    if (bytes % required)
      return "strides[" + std::to_string(d) +
             "] = " + std::to_string(arg.strides[d]) + " elements (" +
             std::to_string(bytes) + " bytes) is not a multiple of " +
             std::to_string(required) + " bytes";
  }
  return "it is not " + std::to_string(required) + "-byte aligned";
}

//===----------------------------------------------------------------------===//
// Checking and packing
//===----------------------------------------------------------------------===//

/// Converts `value` to the float parameter's 32 bits; false when the float
/// is not exactly `value` (beyond 2^24, not every int has a float).
static bool intFitsFloatExactly(int64_t value, float &converted) {
  converted = static_cast<float>(value);
  // 2^63 rounds to a float that does not convert back to an int64.
  if (converted >= 0x1p63f || converted < -0x1p63f)
    return false;
  return static_cast<int64_t>(converted) == value;
}

static std::string formatFloat(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
  return buffer;
}

static constexpr unsigned kAlignmentCap = 1u << 30;

/// The bytes [first, last) tensor `arg` of `param` may touch; empty for a
/// tensor with no elements.
static std::pair<uintptr_t, uintptr_t>
tensorExtent(const ArgRef &arg, const tilec::KernelParam &param) {
  uintptr_t first = reinterpret_cast<uintptr_t>(arg.data);
  uint64_t reach = 0;
  for (unsigned d = 0; d < param.rank; ++d) {
    if (arg.shape[d] == 0)
      return {first, first};
    reach += static_cast<uint64_t>(arg.shape[d] - 1) *
             static_cast<uint64_t>(arg.strides[d]);
  }
  return {first, first + (reach + 1) * tilec::elementBytes(param.element)};
}

/// Whether two checked tensor arguments may touch a common byte.
static bool tensorsOverlap(const ArgRef &a, const tilec::KernelParam &pa,
                           const ArgRef &b, const tilec::KernelParam &pb) {
  auto [a0, a1] = tensorExtent(a, pa);
  auto [b0, b1] = tensorExtent(b, pb);
  return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;
}

Status tile::detail::checkArguments(const tilec::KernelInfo &info,
                                    llvm::ArrayRef<ArgRef> args,
                                    PackedArgs &packed, AlignmentFit &fit) {
  packed.values.clear();
  packed.pointers.clear();
  fit = AlignmentFit();

  if (args.size() != info.params.size()) {
    std::string names;
    for (const tilec::KernelParam &param : info.params)
      names += (names.empty() ? "" : ", ") + param.name;
    return Status::error("expected " + std::to_string(info.params.size()) +
                         " argument" + (info.params.size() == 1 ? "" : "s") +
                         " (" + names + "), got " +
                         std::to_string(args.size()));
  }

  unsigned fitAlignment = kAlignmentCap;
  // The first alignment problem, reported if no other problem comes up.
  int misalignedIndex = -1;

  for (size_t i = 0; i < args.size(); ++i) {
    const tilec::KernelParam &param = info.params[i];
    const ArgRef &arg = args[i];

    if (!param.isTensor) {
      uint64_t slot = 0;
      switch (param.scalar) {
      case tilec::ScalarKind::I32: {
        if (arg.kind != Arg::Kind::Int)
          return argError(i, param, "expected an int, got " + describeArg(arg));
        if (arg.intValue < INT32_MIN || arg.intValue > INT32_MAX)
          return argError(i, param,
                          "value " + std::to_string(arg.intValue) +
                              " does not fit the kernel's 32-bit int");
        uint32_t value = static_cast<uint32_t>(arg.intValue);
        std::memcpy(&slot, &value, sizeof(value));
        break;
      }
      case tilec::ScalarKind::I64: {
        if (arg.kind != Arg::Kind::Int)
          return argError(i, param, "expected an int, got " + describeArg(arg));
        int64_t value = arg.intValue;
        std::memcpy(&slot, &value, sizeof(value));
        break;
      }
      case tilec::ScalarKind::F32: {
        float value;
        if (arg.kind == Arg::Kind::Float)
          value = arg.floatValue;
        else if (arg.kind == Arg::Kind::Int) {
          if (!intFitsFloatExactly(arg.intValue, value))
            return argError(i, param,
                            "the int " + std::to_string(arg.intValue) +
                                " has no exact 32-bit float value (the "
                                "nearest is " +
                                formatFloat(value) +
                                "); pass a float to round it");
        } else
          return argError(i, param,
                          "expected a float, got " + describeArg(arg));
        std::memcpy(&slot, &value, sizeof(value));
        break;
      }
      case tilec::ScalarKind::Bool: {
        if (arg.kind != Arg::Kind::Bool)
          return argError(i, param, "expected a bool, got " + describeArg(arg));
        uint32_t value = arg.boolValue ? 1 : 0;
        std::memcpy(&slot, &value, sizeof(value));
        break;
      }
      }
      packed.values.push_back(slot);
      continue;
    }

    // Tensors.
    if (arg.kind != Arg::Kind::Tensor)
      return argError(i, param,
                      "expected " + describeParam(param) + ", got " +
                          describeArg(arg));
    if (arg.dtype != toDType(param.element))
      return argError(i, param,
                      std::string("expected a ") +
                          tilec::elementName(param.element) +
                          " tensor, got a " + dtypeName(arg.dtype) + " tensor");
    if (arg.shapeSize != param.rank)
      return argError(i, param,
                      "expected a rank-" + std::to_string(param.rank) +
                          " tensor, got rank " + std::to_string(arg.shapeSize));
    if (arg.stridesSize != param.rank)
      return argError(i, param,
                      "the shape has " + std::to_string(arg.shapeSize) +
                          " entries but the strides have " +
                          std::to_string(arg.stridesSize) + "; a rank-" +
                          std::to_string(param.rank) +
                          " tensor needs one of each per dimension");
    if (param.rank && (!arg.shape || !arg.strides))
      return argError(i, param, "null shape or strides array");

    bool empty = false;
    for (unsigned d = 0; d < param.rank; ++d) {
      int64_t size = arg.shape[d];
      if (size < 0)
        return argError(i, param,
                        "shape[" + std::to_string(d) +
                            "] = " + std::to_string(size) + " is negative");
      if (size > INT32_MAX)
        return argError(i, param,
                        "shape[" + std::to_string(d) +
                            "] = " + std::to_string(size) +
                            " exceeds 2^31-1, the largest size the kernel "
                            "ABI carries");
      if (arg.strides[d] < 0)
        return argError(i, param,
                        "strides[" + std::to_string(d) +
                            "] = " + std::to_string(arg.strides[d]) +
                            " is negative; negative strides are not "
                            "supported");
      empty |= size == 0;
    }
    if (!arg.data && !empty)
      return argError(i, param,
                      "null data pointer for a non-empty tensor of shape " +
                          formatShape(arg.shape, arg.shapeSize));

    // A last dimension of size 0 or 1 is never stepped through: any stride
    // will do, and the kernel gets 1.
    bool lastTrivial = param.rank == 0 || arg.shape[param.rank - 1] <= 1;
    if (param.contiguous && !lastTrivial && arg.strides[param.rank - 1] != 1)
      return argError(i, param,
                      "the kernel needs a contiguous last dimension "
                      "(stride 1), got strides " +
                          formatShape(arg.strides, arg.stridesSize));

    // Alignment of the base pointer and of every outer stride in bytes
    // (strides of size-1 dimensions never move the address).
    // The kernel's vectors along the last dimension are masked whole, so
    // its length in bytes counts as an alignment too.
    unsigned elementBytes = tilec::elementBytes(param.element);
    uint64_t bits = reinterpret_cast<uintptr_t>(arg.data);
    for (unsigned d = 0; d + 1 < param.rank; ++d)
      if (arg.shape[d] > 1)
        bits |= static_cast<uint64_t>(arg.strides[d]) * elementBytes;
    if (param.rank > 0 && arg.shape[param.rank - 1] > 0)
      bits |= static_cast<uint64_t>(arg.shape[param.rank - 1]) * elementBytes;
    uint64_t have = bits ? (bits & (~bits + 1)) : kAlignmentCap;
    if (have > kAlignmentCap)
      have = kAlignmentCap;
    if (have < elementBytes)
      return argError(i, param,
                      "base pointer " + hexPointer(arg.data) +
                          " is not aligned to the element size (" +
                          std::to_string(elementBytes) + " bytes)");
    // (A variant for the tensors that lack what the kernel assumes: the
    // others keep to their own, smaller, needs in any variant.)
    if (have < param.alignment) {
      if (have < fitAlignment)
        fitAlignment = static_cast<unsigned>(have);
      if (misalignedIndex < 0)
        misalignedIndex = static_cast<int>(i);
    }

    // Kernel ABI: .u64 base, rank x .u32 sizes, rank x .u64 strides.
    packed.values.push_back(reinterpret_cast<uintptr_t>(arg.data));
    for (unsigned d = 0; d < param.rank; ++d)
      packed.values.push_back(static_cast<uint32_t>(arg.shape[d]));
    for (unsigned d = 0; d < param.rank; ++d) {
      bool last = d + 1 == param.rank;
      packed.values.push_back(last && lastTrivial && param.contiguous
                                  ? 1
                                  : static_cast<uint64_t>(arg.strides[d]));
    }
  }

  fit.alignment = fitAlignment;
  if (misalignedIndex >= 0) {
    fit.alignmentOnly = true;
    const tilec::KernelParam &param = info.params[misalignedIndex];
    return argError(misalignedIndex, param,
                    alignmentProblem(args[misalignedIndex],
                                     tilec::elementBytes(param.element),
                                     param.alignment) +
                        ", which the kernel assumes");
  }

  // Tensors a warp-specialized producer reads ahead of the kernel's writes
  // (KernelParam::readAhead): no tensor the kernel writes may overlap one.
  for (size_t r = 0; r < args.size(); ++r) {
    if (!info.params[r].readAhead)
      continue;
    for (size_t w = 0; w < args.size(); ++w)
      if (w != r && info.params[w].written &&
          tensorsOverlap(args[r], info.params[r], args[w], info.params[w]))
        return argError(
            r, info.params[r],
            "overlaps '" + info.params[w].name +
                "', which the kernel writes: the kernel reads '" +
                info.params[r].name +
                "' ahead of its own writes (its warp-specialized producer "
                "does); pass tensors apart, or compile the kernel without "
                "warp_specialize");
  }

  // Tensors the kernel copies with TMA: what a descriptor needs of them
  // (the descriptors are built at launch).
  for (size_t m = 0; m < info.tensorMaps.size(); ++m) {
    const tilec::TensorMapInfo &map = info.tensorMaps[m];
    if (map.param >= info.params.size())
      return Status::error("the kernel's tensor map " + std::to_string(m) +
                           " names parameter " + std::to_string(map.param) +
                           " of " + std::to_string(info.params.size()));
    const tilec::KernelParam &param = info.params[map.param];
    std::string problem = tensorMapArgumentProblem(map, param, args[map.param]);
    if (!problem.empty())
      return argError(map.param, param, problem);
  }

  packed.pointers.resize(packed.values.size());
  for (size_t i = 0; i < packed.values.size(); ++i)
    packed.pointers[i] = &packed.values[i];
  return Status();
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

namespace {
/// The tile counters of persistent kernels (tile-dynamic-schedule, the
/// kernel ABI in KernelInfo.h): two 32-bit words per context and stream,
/// zero between launches (a launch's last block zeroes them), so that the
/// launches of one stream, which run one after another, share them and
/// launches on other streams have their own. Kept for the process, freed
/// at its exit.
struct TileCounters {
  std::mutex mutex;
  std::map<std::pair<CUcontext, CUstream>,
           std::pair<const CudaDriver *, CUdeviceptr>>
      counters;
  ~TileCounters() {
    for (auto &[key, counter] : counters)
      counter.first->cuMemFree_v2(counter.second);
  }
};
} // namespace

/// The tile counter of `stream` in `gpu`'s context, allocated and zeroed on
/// first use. The context is current.
static Status tileCounter(const GpuContext &gpu, CUstream stream,
                          CUdeviceptr &out) {
  static TileCounters tileCounters;
  std::lock_guard<std::mutex> lock(tileCounters.mutex);
  auto &counters = tileCounters.counters;
  if (auto it = counters.find({gpu.context, stream}); it != counters.end()) {
    out = it->second.second;
    return Status();
  }
  const CudaDriver &driver = *gpu.driver;
  CUdeviceptr counter = 0;
  CUresult result = driver.cuMemAlloc_v2(&counter, 8);
  if (result != CUDA_SUCCESS)
    return Status::error(driver.errorText(result, "cuMemAlloc") +
                         " (a persistent kernel's tile counter)");
  // Synchronous: ordered before the launch on any stream.
  const uint32_t zeros[2] = {0, 0};
  result = driver.cuMemcpyHtoD_v2(counter, zeros, sizeof(zeros));
  if (result != CUDA_SUCCESS) {
    driver.cuMemFree_v2(counter);
    return Status::error(driver.errorText(result, "cuMemcpyHtoD") +
                         " (a persistent kernel's tile counter)");
  }
  counters[{gpu.context, stream}] = {&driver, counter};
  out = counter;
  return Status();
}

namespace {
/// Operations' scratch memory per context and stream (streamScratch).
struct StreamScratch {
  std::mutex mutex;
  std::map<std::pair<CUcontext, CUstream>,
           std::tuple<const CudaDriver *, CUdeviceptr, size_t>>
      buffers;
  ~StreamScratch() {
    for (auto &[key, buffer] : buffers)
      std::get<0>(buffer)->cuMemFree_v2(std::get<1>(buffer));
  }
};
} // namespace

Expected<void *> tile::detail::streamScratch(Stream stream, size_t bytes,
                                             const char *purpose) {
  static StreamScratch scratch;
  Expected<const GpuContext *> gpu = gpuContext();
  if (!gpu)
    return gpu.status();
  if (Status status = makeCurrent(**gpu); !status.ok())
    return status;
  const CudaDriver &driver = *(*gpu)->driver;
  CUstream cuStream = reinterpret_cast<CUstream>(stream);
  std::lock_guard<std::mutex> lock(scratch.mutex);
  auto &[owner, pointer, size] = scratch.buffers[{(*gpu)->context, cuStream}];
  if (size >= bytes && pointer)
    return reinterpret_cast<void *>(pointer);
  if (pointer) {
    // Launches on the stream may still read the smaller buffer.
    CUresult result = driver.cuStreamSynchronize(cuStream);
    if (result != CUDA_SUCCESS)
      return Status::error(driver.errorText(result, "cuStreamSynchronize") +
                           " (" + purpose + ")");
    driver.cuMemFree_v2(pointer);
    pointer = 0;
    size = 0;
  }
  size_t grown = std::max<size_t>(bytes, 4096);
  CUresult result = driver.cuMemAlloc_v2(&pointer, grown);
  if (result != CUDA_SUCCESS) {
    pointer = 0;
    return Status::error(driver.errorText(result, "cuMemAlloc") + " (" +
                         purpose + ")");
  }
  owner = &driver;
  size = grown;
  return reinterpret_cast<void *>(pointer);
}

/// The buffer a timeline kernel's launch of `launched` blocks logs into:
/// `kernel`'s (the handle launched, whichever variant runs), grown to one
/// log of `info.timelineRecords` 16-byte records per warpgroup of each
/// block, zeroed on `stream` before the launch.
static Status timelineBuffer(KernelImpl &kernel, const tilec::KernelInfo &info,
                             Dim3 launched, CUstream stream,
                             uint64_t &address) {
  const CudaDriver &driver = *kernel.gpu->driver;
  uint64_t blocks = uint64_t(launched.x) * launched.y * launched.z;
  unsigned warpgroups = (info.numWarps * 32 + 127) / 128;
  size_t bytes = size_t(blocks) * warpgroups * info.timelineRecords * 16;
  std::lock_guard<std::mutex> lock(kernel.timelineMutex);
  if (bytes > kernel.timelineBytes) {
    if (kernel.timeline)
      driver.cuMemFree_v2(kernel.timeline);
    kernel.timeline = 0;
    kernel.timelineBytes = 0;
    CUresult result = driver.cuMemAlloc_v2(&kernel.timeline, bytes);
    if (result != CUDA_SUCCESS) {
      kernel.timeline = 0;
      return Status::error(driver.errorText(result, "cuMemAlloc") +
                           " (a timeline of " + std::to_string(bytes) +
                           " bytes)");
    }
    kernel.timelineBytes = bytes;
  }
  CUresult result = driver.cuMemsetD8Async(kernel.timeline, 0, bytes, stream);
  if (result != CUDA_SUCCESS)
    return Status::error(driver.errorText(result, "cuMemsetD8Async") +
                         " (a timeline's buffer)");
  kernel.timelineBlocks = blocks;
  kernel.timelineWarpgroups = warpgroups;
  address = uint64_t(kernel.timeline);
  return Status();
}

Status tile::detail::readTimeline(KernelImpl &kernel, void *records,
                                  size_t bytes, uint64_t &blocks,
                                  unsigned &warpgroups) {
  if (!kernel.info.timelineRecords)
    return Status::error("kernel '" + kernel.info.name +
                         "' has no timeline: compile it with timeline=N");
  if (!kernel.gpu)
    return Status::error("kernel '" + kernel.info.name +
                         "' is not loaded on a GPU");
  std::lock_guard<std::mutex> lock(kernel.timelineMutex);
  blocks = kernel.timelineBlocks;
  warpgroups = kernel.timelineWarpgroups;
  if (!records || !kernel.timeline)
    return Status();
  const CudaDriver &driver = *kernel.gpu->driver;
  CUcontext current = nullptr;
  CUresult result = driver.cuCtxGetCurrent(&current);
  if (result == CUDA_SUCCESS && current != kernel.gpu->context)
    result = driver.cuCtxSetCurrent(kernel.gpu->context);
  if (result == CUDA_SUCCESS)
    result = driver.cuCtxSynchronize();
  if (result == CUDA_SUCCESS)
    result = driver.cuMemcpyDtoH_v2(
        records, kernel.timeline,
        std::min(bytes, size_t(blocks) * warpgroups *
                            kernel.info.timelineRecords * 16));
  if (result != CUDA_SUCCESS)
    return Status::error(driver.errorText(result, "reading a timeline") +
                         " (kernel '" + kernel.info.name + "')");
  return Status();
}

static Status kernelError(const KernelImpl &kernel, const Status &status) {
  return Status::error("kernel '" + kernel.info.name +
                       "': " + status.message());
}

/// Checks `args` for `kernel`, moving to an alignment variant when that is
/// all they need. Fills `packed` for the kernel returned in `target`.
static Status prepare(KernelImpl &kernel, llvm::ArrayRef<ArgRef> args,
                      PackedArgs &packed, KernelImpl *&target,
                      bool compileVariant) {
  target = &kernel;
  AlignmentFit fit;
  Status status = checkArguments(kernel.info, args, packed, fit);
  if (status.ok())
    return status;
  // Only JIT kernels, whose source we have, can be recompiled.
  if (!fit.alignmentOnly || !kernel.recipe || !kernel.runtime)
    return kernelError(kernel, status);
  // Both are powers of two.
  unsigned alignment =
      std::min(fit.alignment, kernel.recipe->options.tensorAlignment.value_or(
                                  lookupOption("alignment")->defaultValue));
  if (!compileVariant)
    return Status(); // launch() would compile a variant
  Expected<KernelImpl *> variant =
      kernel.runtime->variant(kernel, alignment, status.message());
  if (!variant)
    return kernelError(
        kernel,
        Status::error(status.message() + "; compiling a variant for " +
                      std::to_string(alignment) +
                      "-byte alignment failed: " + variant.status().message()));
  target = *variant;
  status = checkArguments(target->info, args, packed, fit);
  if (!status.ok())
    return kernelError(*target, status);
  kernel.lastVariant.store(target, std::memory_order_release);
  return status;
}

Status tile::detail::checkKernel(const KernelImpl &kernel,
                                 llvm::ArrayRef<ArgRef> args) {
  PackedArgs packed;
  KernelImpl *target;
  return prepare(const_cast<KernelImpl &>(kernel), args, packed, target,
                 /*compileVariant=*/false);
}

Status tile::detail::launchKernel(KernelImpl &kernel, Dim3 grid, Stream stream,
                                  llvm::ArrayRef<ArgRef> args) {
  PackedArgs packed;
  KernelImpl *target;
  // Fast path: the kernel's own alignment fits.
  if (Status status = prepare(kernel, args, packed, target, true); !status.ok())
    return status;

  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return Status(); // nothing to run
  if (grid.x > static_cast<unsigned>(INT32_MAX) || grid.y > 65535 ||
      grid.z > 65535)
    return Status::error(
        "kernel '" + kernel.info.name + "': grid (" + std::to_string(grid.x) +
        ", " + std::to_string(grid.y) + ", " + std::to_string(grid.z) +
        ") exceeds the CUDA limits (2^31-1, 65535, 65535)");
  if (!target->function)
    return Status::error("kernel '" + kernel.info.name +
                         "' is not loaded on a GPU (it was built from a "
                         "description alone)");

  const GpuContext &gpu = *target->gpu;
  const CudaDriver &driver = *gpu.driver;
  CUcontext current = nullptr;
  CUresult result = driver.cuCtxGetCurrent(&current);
  if (result == CUDA_SUCCESS && current != gpu.context) {
    if (current)
      return Status::error(
          "kernel '" + kernel.info.name +
          "': the calling thread's current CUDA context is not the one the "
          "kernel was loaded into");
    result = driver.cuCtxSetCurrent(gpu.context);
  }
  if (result != CUDA_SUCCESS)
    return Status::error(driver.errorText(result, "cuCtxSetCurrent"));

  // A persistent kernel: the grid asked for is its logical grid, which its
  // blocks loop over, after the ordinary parameters (KernelInfo.h); as
  // many blocks are launched as the GPU runs at once.
  Dim3 launched = grid;
  // In clusters of C blocks along x (KernelInfo::cluster): whole clusters,
  // the grid's x (a persistent kernel's logical grid's, whose clusters run
  // C neighbouring tiles along x) a multiple of C.
  unsigned cluster = std::max(target->info.cluster, 1u);
  if (grid.x % cluster)
    return Status::error(
        "kernel '" + kernel.info.name + "': grid (" + std::to_string(grid.x) +
        ", " + std::to_string(grid.y) + ", " + std::to_string(grid.z) +
        ") does not split into clusters of " + std::to_string(cluster) +
        " blocks along x (the kernel was compiled with cluster=" +
        std::to_string(cluster) + "): x must be a multiple of " +
        std::to_string(cluster));
  if (target->info.persistent) {
    uint64_t tiles = uint64_t(grid.x) * grid.y * grid.z;
    if (tiles > uint64_t(INT32_MAX))
      return Status::error(
          "kernel '" + kernel.info.name + "': grid (" + std::to_string(grid.x) +
          ", " + std::to_string(grid.y) + ", " + std::to_string(grid.z) +
          ") has more than 2^31-1 "
          "blocks, which a persistent kernel counts in 32 "
          "bits");
    // Computed at the kernel's first launch, then a load.
    uint64_t slots = target->persistentBlocks.load(std::memory_order_relaxed);
    if (!slots) {
      // (The driver's occupancy, taken when the kernel was loaded.)
      slots = uint64_t(std::max(target->blocksPerSM, 1u)) *
              uint64_t(std::max(gpu.info.multiprocessors, 1));
      // Clusters: as many as fit at once (a cluster's blocks share a GPC).
      if (cluster > 1 && driver.cuOccupancyMaxActiveClusters) {
        CUlaunchConfig config = {};
        config.gridDimX = unsigned(slots / cluster * cluster);
        config.gridDimY = config.gridDimZ = 1;
        config.blockDimX = target->info.numWarps * 32;
        config.blockDimY = config.blockDimZ = 1;
        config.sharedMemBytes = target->info.sharedBytes;
        int clusters = 0;
        if (driver.cuOccupancyMaxActiveClusters(&clusters, target->function,
                                                &config) == CUDA_SUCCESS &&
            clusters > 0)
          slots = std::min<uint64_t>(slots, uint64_t(clusters) * cluster);
      }
      // $TILEC_PERSISTENT_BLOCKS bounds the blocks further (many tiles per
      // block on small problems: tests, sanitizers, experiments).
      if (const char *env = std::getenv("TILEC_PERSISTENT_BLOCKS")) {
        char *end = nullptr;
        unsigned long long cap = std::strtoull(env, &end, 10);
        if (end != env && *end == '\0' && cap > 0)
          slots = std::min<uint64_t>(slots, cap);
      }
      slots = std::max<uint64_t>(slots / cluster * cluster, cluster);
      target->persistentBlocks.store(slots, std::memory_order_relaxed);
    }
    // (tiles is a multiple of the cluster's size, as slots is.)
    launched = Dim3{unsigned(std::min(tiles, slots)), 1, 1};
    for (unsigned size : {grid.x, grid.y, grid.z})
      packed.values.push_back(size);
    if (target->info.tileCounter) {
      CUdeviceptr counter = 0;
      if (Status status =
              tileCounter(gpu, reinterpret_cast<CUstream>(stream), counter);
          !status.ok())
        return kernelError(kernel, status);
      packed.values.push_back(uint64_t(counter));
    }
    packed.pointers.resize(packed.values.size());
    for (size_t i = 0; i < packed.values.size(); ++i)
      packed.pointers[i] = &packed.values[i];
  }

  // A timeline kernel's buffer, after the ordinary (and
  // persistent) parameters, before the TMA descriptors (KernelInfo.h).
  uint64_t timelineAddress = 0;
  if (target->info.timelineRecords) {
    if (Status status =
            timelineBuffer(kernel, target->info, launched,
                           reinterpret_cast<CUstream>(stream), timelineAddress);
        !status.ok())
      return kernelError(kernel, status);
    packed.pointers.push_back(&timelineAddress);
  }

  // The TMA descriptors, after the ordinary parameters (KernelInfo.h).
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  if (!target->info.tensorMaps.empty())
    if (Status status = tensorMapsForLaunch(*target, args.data(), args.size(),
                                            driver.cuTensorMapEncodeTiled,
                                            &driver, maps, packed);
        !status.ok())
      return status;

  // A kernel that waits for the one before it (tile-dependent-launch:
  // griddepcontrol.wait before its first global access) is launched with
  // programmatic stream serialization: it may start while that kernel's
  // last blocks run. (Without cuLaunchKernelEx, as any other: its wait then
  // returns at once.)
  const char *launcher = "cuLaunchKernel";
  if (target->info.dependentLaunch && driver.cuLaunchKernelEx) {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {};
    config.gridDimX = launched.x;
    config.gridDimY = launched.y;
    config.gridDimZ = launched.z;
    config.blockDimX = target->info.numWarps * 32;
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = target->info.sharedBytes;
    config.hStream = reinterpret_cast<CUstream>(stream);
    config.attrs = &attribute;
    config.numAttrs = 1;
    launcher = "cuLaunchKernelEx";
    result = driver.cuLaunchKernelEx(&config, target->function,
                                     packed.pointers.data(), nullptr);
  } else {
    result = driver.cuLaunchKernel(
        target->function, launched.x, launched.y, launched.z,
        target->info.numWarps * 32, 1, 1, target->info.sharedBytes,
        reinterpret_cast<CUstream>(stream), packed.pointers.data(), nullptr);
  }
  if (result != CUDA_SUCCESS)
    return Status::error(
        driver.errorText(result, launcher) + " (kernel '" + kernel.info.name +
        "', grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) +
        ", " + std::to_string(grid.z) + "), " +
        std::to_string(target->info.numWarps * 32) + " threads, " +
        std::to_string(target->info.sharedBytes) + " bytes of shared memory)");
  return Status();
}

//===----------------------------------------------------------------------===//
// tile::Kernel
//===----------------------------------------------------------------------===//

Status Kernel::check(const std::vector<Arg> &args) const {
  if (!impl)
    return Status::error("invalid (default-constructed) kernel handle");
  ArgRefs refs;
  toArgRefs(args, refs);
  return checkKernel(*impl, refs);
}

Status Kernel::launch(Dim3 grid, Stream stream,
                      const std::vector<Arg> &args) const {
  if (!impl)
    return Status::error("invalid (default-constructed) kernel handle");
  ArgRefs refs;
  toArgRefs(args, refs);
  return launchKernel(*impl, grid, stream, refs);
}

const std::string &Kernel::name() const { return impl->info.name; }
const std::vector<ParamInfo> &Kernel::params() const { return impl->params; }
unsigned Kernel::numWarps() const { return impl->info.numWarps; }
unsigned Kernel::numStages() const { return impl->info.numStages; }
bool Kernel::loopSplit() const { return impl->info.loopSplit; }
bool Kernel::persistent() const { return impl->info.persistent; }
unsigned Kernel::sharedBytes() const { return impl->info.sharedBytes; }
unsigned Kernel::registers() const { return impl->registers; }
unsigned Kernel::blocksPerSM() const { return impl->blocksPerSM; }
unsigned Kernel::localBytes() const { return impl->localBytes; }
const std::string &Kernel::arch() const { return impl->info.arch; }
const std::vector<std::pair<std::string, std::string>> &
Kernel::constants() const {
  return impl->info.constants;
}
const std::string &Kernel::ptx() const { return impl->ptx; }
size_t Kernel::numTensorMaps() const { return impl->info.tensorMaps.size(); }
const std::vector<std::string> &Kernel::tmaFallback() const {
  return impl->info.tmaFallback;
}
const std::vector<std::string> &Kernel::warnings() const {
  return impl->info.warnings;
}
std::string Kernel::variantNote() const {
  KernelImpl *variant = impl->lastVariant.load(std::memory_order_acquire);
  return variant ? variant->variantNote : std::string();
}
const std::string &Kernel::tuneSpace() const { return impl->tuneText; }

void tile::detail::describeParams(KernelImpl &impl) {
  impl.tuneText.clear();
  for (const auto &[name, values] : impl.info.tune) {
    impl.tuneText += (impl.tuneText.empty() ? "" : ",") + name + "=";
    for (size_t i = 0; i < values.size(); ++i)
      impl.tuneText += (i ? "|" : "") + values[i];
  }
  impl.params.clear();
  for (const tilec::KernelParam &param : impl.info.params) {
    ParamInfo p;
    p.name = param.name;
    if (param.isTensor) {
      p.kind = ParamInfo::Kind::Tensor;
      p.dtype = toDType(param.element);
      p.rank = param.rank;
      p.alignment = param.alignment;
      p.contiguous = param.contiguous;
    } else {
      switch (param.scalar) {
      case tilec::ScalarKind::I32:
      case tilec::ScalarKind::I64:
        p.kind = ParamInfo::Kind::Int;
        break;
      case tilec::ScalarKind::F32:
        p.kind = ParamInfo::Kind::Float;
        break;
      case tilec::ScalarKind::Bool:
        p.kind = ParamInfo::Kind::Bool;
        break;
      }
    }
    impl.params.push_back(std::move(p));
  }
}

Kernel tile::detail::makeUnloadedKernel(tilec::KernelInfo info) {
  auto *impl = new KernelImpl(); // lives for the process, like every kernel
  impl->info = std::move(info);
  describeParams(*impl);
  return Kernel(impl);
}
