//===- Module.cpp - The GPU context and loading PTX modules ---------------===//

#include "RuntimeImpl.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace tile;
using namespace tile::detail;

std::string tile::detail::archForComputeCapability(int major, int minor) {
  std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  // Hopper's wgmma and TMA instructions need the arch-specific target.
  if (major == 9 && minor == 0)
    arch += "a";
  return arch;
}

static Status setUpContext(GpuContext &gpu) {
  std::string error;
  const CudaDriver *driver = CudaDriver::get(error);
  if (!driver)
    return Status::error(error);
  gpu.driver = driver;

  CUcontext current = nullptr;
  CUresult result = driver->cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS)
    return Status::error(driver->errorText(result, "cuCtxGetCurrent"));
  if (current) {
    // The program set up CUDA itself: use its context.
    gpu.context = current;
    if ((result = driver->cuCtxGetDevice(&gpu.device)) != CUDA_SUCCESS)
      return Status::error(driver->errorText(result, "cuCtxGetDevice"));
  } else {
    int count = 0;
    if ((result = driver->cuDeviceGetCount(&count)) != CUDA_SUCCESS)
      return Status::error(driver->errorText(result, "cuDeviceGetCount"));
    if (count == 0)
      return Status::error("no CUDA device: the driver reports 0 devices");
    int ordinal = 0;
    if (const char *env = std::getenv("TILE_DEVICE"); env && *env) {
      char *end = nullptr;
      long value = std::strtol(env, &end, 10);
      if (*end || value < 0 || value >= count)
        return Status::error("TILE_DEVICE='" + std::string(env) +
                             "' is not a device ordinal in [0, " +
                             std::to_string(count) + ")");
      ordinal = static_cast<int>(value);
    }
    if ((result = driver->cuDeviceGet(&gpu.device, ordinal)) != CUDA_SUCCESS)
      return Status::error(driver->errorText(result, "cuDeviceGet"));
    if ((result = driver->cuDevicePrimaryCtxRetain(&gpu.context, gpu.device)) !=
        CUDA_SUCCESS)
      return Status::error(
          driver->errorText(result, "cuDevicePrimaryCtxRetain"));
    if ((result = driver->cuCtxSetCurrent(gpu.context)) != CUDA_SUCCESS)
      return Status::error(driver->errorText(result, "cuCtxSetCurrent"));
  }

  DeviceInfo &info = gpu.info;
  info.ordinal = static_cast<int>(gpu.device);
  char name[256] = {0};
  if ((result = driver->cuDeviceGetName(name, sizeof(name) - 1, gpu.device)) !=
      CUDA_SUCCESS)
    return Status::error(driver->errorText(result, "cuDeviceGetName"));
  info.name = name;
  struct {
    CUdevice_attribute attribute;
    int *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.computeMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.computeMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.maxSharedPerBlockOptin},
  };
  for (auto &[attribute, value] : attributes)
    if ((result = driver->cuDeviceGetAttribute(value, attribute, gpu.device)) !=
        CUDA_SUCCESS)
      return Status::error(driver->errorText(result, "cuDeviceGetAttribute"));
  info.arch = archForComputeCapability(info.computeMajor, info.computeMinor);
  return Status();
}

Expected<const GpuContext *> tile::detail::gpuContext() {
  static std::once_flag once;
  static GpuContext *gpu = nullptr;
  static Status *failure = nullptr;
  std::call_once(once, [] {
    auto *context = new GpuContext();
    Status status = setUpContext(*context);
    if (status.ok())
      gpu = context;
    else
      failure = new Status(std::move(status));
  });
  if (!gpu)
    return *failure;
  return static_cast<const GpuContext *>(gpu);
}

Status tile::detail::makeCurrent(const GpuContext &gpu) {
  CUcontext current = nullptr;
  CUresult result = gpu.driver->cuCtxGetCurrent(&current);
  if (result == CUDA_SUCCESS && !current)
    result = gpu.driver->cuCtxSetCurrent(gpu.context);
  if (result != CUDA_SUCCESS)
    return Status::error(gpu.driver->errorText(result, "cuCtxSetCurrent"));
  return Status();
}

namespace {
/// Makes the runtime's context current for a scope, whatever the thread had.
class ScopedContext {
public:
  ScopedContext(const GpuContext &gpu) : gpu(gpu) {
    CUcontext current = nullptr;
    if (gpu.driver->cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
        current != gpu.context)
      pushed = gpu.driver->cuCtxPushCurrent_v2(gpu.context) == CUDA_SUCCESS;
  }
  ~ScopedContext() {
    if (pushed) {
      CUcontext popped;
      gpu.driver->cuCtxPopCurrent_v2(&popped);
    }
  }

private:
  const GpuContext &gpu;
  bool pushed = false;
};
} // namespace

/// The driver's JIT log, trimmed, or "".
static std::string trimLog(std::string log) {
  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
    log.pop_back();
  return log;
}

/// The driver JIT's error log: a buffer and the options that point it there.
struct JitLog {
  JitLog() = default;
  JitLog(const JitLog &) = delete; // values point into buffer
  JitLog &operator=(const JitLog &) = delete;

  std::string buffer = std::string(16384, '\0');
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {
      buffer.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(buffer.size() - 1))};

  /// `message`, with the log appended when the driver wrote one.
  std::string annotate(std::string message) const {
    std::string text = trimLog(buffer);
    if (!text.empty())
      message += "; JIT log:\n" + text;
    return message;
  }
};

/// Loads `ptx` (compiled by the driver) into a module.
static Expected<CUmodule> loadPTXModule(const CudaDriver &driver,
                                        const std::string &ptx,
                                        const std::string &where) {
  // The driver compiles the PTX for the device; keep its error log.
  JitLog log;
  CUmodule module = nullptr;
  CUresult result = driver.cuModuleLoadDataEx(&module, ptx.c_str(), 2,
                                              log.options, log.values);
  if (result != CUDA_SUCCESS)
    return Status::error(log.annotate(
        driver.errorText(result, "cuModuleLoadDataEx") + " for " + where));
  return module;
}

Expected<KernelImpl *> tile::detail::loadKernel(const tilec::KernelInfo &info,
                                                const std::string &ptx) {
  Expected<const GpuContext *> context = gpuContext();
  if (!context)
    return context.status();
  const GpuContext &gpu = **context;
  const CudaDriver &driver = *gpu.driver;
  ScopedContext scope(gpu);

  std::string where = "kernel '" + info.name + "' (" +
                      (info.arch.empty() ? "unknown arch" : info.arch) +
                      ", on " + gpu.info.name + ", " + gpu.info.arch + ")";

  Expected<CUmodule> loaded = loadPTXModule(driver, ptx, where);
  if (!loaded)
    return loaded.status();
  CUmodule module = *loaded;
  CUresult result;

  auto fail = [&](const std::string &message) -> Expected<KernelImpl *> {
    driver.cuModuleUnload(module);
    return Status::error(message);
  };

  CUfunction function = nullptr;
  result = driver.cuModuleGetFunction(&function, module, info.name.c_str());
  if (result != CUDA_SUCCESS)
    return fail(driver.errorText(result, "cuModuleGetFunction") +
                ": the module has no entry '" + info.name + "' (" + where +
                ")");

  int maxThreads = 0;
  result = driver.cuFuncGetAttribute(
      &maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
  if (result != CUDA_SUCCESS)
    return fail(driver.errorText(result, "cuFuncGetAttribute"));
  if (info.numWarps * 32 > static_cast<unsigned>(maxThreads))
    return fail(where + " runs " + std::to_string(info.numWarps * 32) +
                " threads per block, but its resource use allows only " +
                std::to_string(maxThreads));

  // Set once here, not per launch: more than 48 KB of dynamic shared memory
  // must be asked for.
  if (info.sharedBytes > 48 * 1024) {
    int staticBytes = 0;
    driver.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                              function);
    uint64_t total = uint64_t(info.sharedBytes) + uint64_t(staticBytes);
    if (total > static_cast<uint64_t>(gpu.info.maxSharedPerBlockOptin))
      return fail(where + " needs " + std::to_string(total) +
                  " bytes of shared memory per block; the device allows " +
                  std::to_string(gpu.info.maxSharedPerBlockOptin));
    result = driver.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(info.sharedBytes));
    if (result != CUDA_SUCCESS)
      return fail(driver.errorText(result, "cuFuncSetAttribute") + " (" +
                  where + ", " + std::to_string(info.sharedBytes) +
                  " bytes of dynamic shared memory)");
  }

  // Clusters of more than 8 blocks (16) are a non-portable size, which the
  // function must be allowed (H100 and H200 run them; where the device
  // cannot, it says so here or at launch).
  if (info.cluster > 8) {
    result = driver.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    if (result != CUDA_SUCCESS)
      return fail(driver.errorText(result, "cuFuncSetAttribute") + " (" +
                  where + ": clusters of " + std::to_string(info.cluster) +
                  " blocks, a non-portable size)");
  }

  // What ptxas made of it (Kernel::registers, Kernel::localBytes).
  int registers = 0, localBytes = 0;
  driver.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function);
  driver.cuFuncGetAttribute(&localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                            function);

  auto *kernel = new KernelImpl(); // lives for the process
  kernel->registers = static_cast<unsigned>(registers);
  kernel->localBytes = static_cast<unsigned>(localBytes);
  int perSM = 0;
  if (driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSM, function, int(info.numWarps * 32), info.sharedBytes) ==
      CUDA_SUCCESS)
    kernel->blocksPerSM = static_cast<unsigned>(std::max(perSM, 0));
  kernel->info = info;
  // Spills are said, not left for the user to find with ptxas: local memory
  // is what ptxas gives a thread when its values do not fit its registers
  // (a kernel's tiles never ask for any otherwise).
  if (localBytes > 0)
    kernel->info.warnings.push_back(
        "kernel '" + info.name + "' spills: " + std::to_string(localBytes) +
        " bytes of local memory per thread beside its " +
        std::to_string(registers) +
        " registers (the driver's count at load; smaller tiles, more warps "
        "(fewer elements per thread) or a lower occupancy give it more "
        "registers)");
  kernel->ptx = ptx;
  kernel->gpu = &gpu;
  kernel->module = module;
  kernel->function = function;
  describeParams(*kernel);
  return kernel;
}
