//===- CudaDriver.h - The CUDA driver API, loaded with dlopen ---*- C++ -*-===//
//
// libtile never links libcuda: it opens libcuda.so.1 on first use and looks
// up the driver calls it needs. cuda.h is used for its types only. A program
// built with libtile thus starts, and compiles kernels, where no driver is
// installed; the first call that needs the GPU then fails with a message.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDADRIVER_H
#define TILE_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

namespace tile {
namespace detail {

/// X(field, symbol, fallback symbol or nullptr). The fields are named after
/// the versioned symbols, which is what cuda.h's macros turn the plain names
/// into anyway.
#define TILE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName, "cuGetErrorName", nullptr)                                 \
  X(cuGetErrorString, "cuGetErrorString", nullptr)                             \
  X(cuInit, "cuInit", nullptr)                                                 \
  X(cuDriverGetVersion, "cuDriverGetVersion", nullptr)                         \
  X(cuDeviceGet, "cuDeviceGet", nullptr)                                       \
  X(cuDeviceGetCount, "cuDeviceGetCount", nullptr)                             \
  X(cuDeviceGetName, "cuDeviceGetName", nullptr)                               \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr)                     \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr)             \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", nullptr)                               \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", nullptr)                               \
  X(cuCtxGetDevice, "cuCtxGetDevice", nullptr)                                 \
  X(cuCtxPushCurrent_v2, "cuCtxPushCurrent_v2", "cuCtxPushCurrent")            \
  X(cuCtxPopCurrent_v2, "cuCtxPopCurrent_v2", "cuCtxPopCurrent")               \
  X(cuCtxSynchronize, "cuCtxSynchronize", nullptr)                             \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr)                         \
  X(cuModuleUnload, "cuModuleUnload", nullptr)                                 \
  X(cuModuleGetFunction, "cuModuleGetFunction", nullptr)                       \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", nullptr)                         \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", nullptr)                         \
  X(cuLaunchKernel, "cuLaunchKernel", nullptr)                                 \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                               \
    "cuOccupancyMaxActiveBlocksPerMultiprocessor", nullptr)                    \
  X(cuMemAlloc_v2, "cuMemAlloc_v2", nullptr)                                   \
  X(cuMemFree_v2, "cuMemFree_v2", nullptr)                                     \
  X(cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", nullptr)                               \
  X(cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", nullptr)                               \
  X(cuMemsetD8_v2, "cuMemsetD8_v2", nullptr)                                   \
  X(cuMemsetD8Async, "cuMemsetD8Async", nullptr)                               \
  X(cuStreamCreate, "cuStreamCreate", nullptr)                                 \
  X(cuStreamDestroy_v2, "cuStreamDestroy_v2", "cuStreamDestroy")               \
  X(cuStreamSynchronize, "cuStreamSynchronize", nullptr)                       \
  X(cuEventCreate, "cuEventCreate", nullptr)                                   \
  X(cuEventRecord, "cuEventRecord", nullptr)                                   \
  X(cuEventSynchronize, "cuEventSynchronize", nullptr)                         \
  X(cuEventElapsedTime_v2, "cuEventElapsedTime_v2", "cuEventElapsedTime")      \
  X(cuEventDestroy_v2, "cuEventDestroy_v2", "cuEventDestroy")

/// Calls that only some kernels need: null when the driver lacks them, and
/// the code that needs one says so (e.g. a kernel that copies with TMA on a
/// driver without cuTensorMapEncodeTiled, which came with CUDA 12.0).
#define TILE_CUDA_DRIVER_OPTIONAL_FUNCTIONS(X)                                 \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", nullptr)                 \
  X(cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters", nullptr)     \
  X(cuLaunchKernelEx, "cuLaunchKernelEx", nullptr)                             \
  X(cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", nullptr)               \
  X(cuStreamEndCapture, "cuStreamEndCapture", nullptr)                         \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", nullptr)       \
  X(cuGraphLaunch, "cuGraphLaunch", nullptr)                                   \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", nullptr)                         \
  X(cuGraphDestroy, "cuGraphDestroy", nullptr)                                 \
  X(cuGraphGetNodes, "cuGraphGetNodes", nullptr)

/// The driver calls libtile uses, as function pointers.
struct CudaDriver {
#define TILE_CUDA_FIELD(field, symbol, fallback)                               \
  decltype(&::field) field = nullptr;
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_CUDA_FIELD)
  TILE_CUDA_DRIVER_OPTIONAL_FUNCTIONS(TILE_CUDA_FIELD)
#undef TILE_CUDA_FIELD

  void *library = nullptr;
  std::string libraryPath;
  int driverVersion = 0; // e.g. 13000

  /// The process-wide driver: loaded and cuInit'ed on the first call. Null,
  /// with `error` set, when that failed ("CUDA driver not found: dlopen(...)
  /// failed: ..."); later calls return the same error.
  static const CudaDriver *get(std::string &error);

  /// Opens the first of `candidates` that dlopen accepts and resolves every
  /// call (the optional ones where the driver has them); does not call
  /// cuInit. $TILE_LIBCUDA, when set, replaces the
  /// default candidates of get().
  static std::unique_ptr<CudaDriver>
  load(const std::vector<std::string> &candidates, std::string &error);

  /// The default candidates: libcuda.so.1, then the usual install paths.
  static std::vector<std::string> defaultCandidates();

  /// "CALL failed: CUDA_ERROR_X (description)".
  std::string errorText(CUresult result, const char *call) const;
};

} // namespace detail
} // namespace tile

#endif // TILE_RUNTIME_CUDADRIVER_H
