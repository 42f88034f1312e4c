//===- CudaDriver.cpp - The CUDA driver API, loaded with dlopen -----------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace tile::detail;

std::vector<std::string> CudaDriver::defaultCandidates() {
  if (const char *path = std::getenv("TILE_LIBCUDA"); path && *path)
    return {path};
  return {"libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
          "/usr/lib/x86_64-linux-gnu/libcuda.so.1"};
}

std::unique_ptr<CudaDriver>
CudaDriver::load(const std::vector<std::string> &candidates,
                 std::string &error) {
  void *library = nullptr;
  std::string path, firstError;
  for (const std::string &candidate : candidates) {
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library) {
      path = candidate;
      break;
    }
    if (firstError.empty()) {
      const char *why = dlerror();
      firstError =
          "dlopen(" + candidate + ") failed: " + (why ? why : "unknown error");
    }
  }
  if (!library) {
    error =
        "CUDA driver not found: " +
        (firstError.empty() ? std::string("no library to try") : firstError);
    if (candidates.size() > 1) {
      error += " (also tried";
      for (size_t i = 1; i < candidates.size(); ++i)
        error += (i == 1 ? " " : ", ") + candidates[i];
      error += ")";
    }
    return nullptr;
  }

  auto driver = std::make_unique<CudaDriver>();
  driver->library = library;
  driver->libraryPath = path;
#define TILE_CUDA_RESOLVE(field, symbol, fallback)                             \
  {                                                                            \
    void *address = dlsym(library, symbol);                                    \
    const char *fallbackName = fallback;                                       \
    if (!address && fallbackName)                                              \
      address = dlsym(library, fallbackName);                                  \
    if (!address) {                                                            \
      error = "CUDA driver " + path +                                          \
              " lacks " symbol " (a driver older than CUDA 12?)";              \
      dlclose(library);                                                        \
      return nullptr;                                                          \
    }                                                                          \
    driver->field = reinterpret_cast<decltype(driver->field)>(address);        \
  }
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_CUDA_RESOLVE)
#undef TILE_CUDA_RESOLVE
#define TILE_CUDA_RESOLVE_OPTIONAL(field, symbol, fallback)                    \
  {                                                                            \
    void *address = dlsym(library, symbol);                                    \
    const char *fallbackName = fallback;                                       \
    if (!address && fallbackName)                                              \
      address = dlsym(library, fallbackName);                                  \
    driver->field = reinterpret_cast<decltype(driver->field)>(address);        \
  }
  TILE_CUDA_DRIVER_OPTIONAL_FUNCTIONS(TILE_CUDA_RESOLVE_OPTIONAL)
#undef TILE_CUDA_RESOLVE_OPTIONAL
  return driver;
}

const CudaDriver *CudaDriver::get(std::string &error) {
  static std::once_flag once;
  static std::unique_ptr<CudaDriver> driver;
  static std::string loadError;
  std::call_once(once, [] {
    std::unique_ptr<CudaDriver> loaded = load(defaultCandidates(), loadError);
    if (!loaded)
      return;
    CUresult result = loaded->cuInit(0);
    if (result != CUDA_SUCCESS) {
      loadError = loaded->errorText(result, "cuInit");
      if (result == CUDA_ERROR_NO_DEVICE)
        loadError = "no CUDA device: " + loadError;
      return;
    }
    loaded->cuDriverGetVersion(&loaded->driverVersion);
    driver = std::move(loaded);
  });
  if (!driver)
    error = loadError;
  return driver.get();
}

std::string CudaDriver::errorText(CUresult result, const char *call) const {
  const char *name = nullptr, *description = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString &&
      cuGetErrorString(result, &description) != CUDA_SUCCESS)
    description = nullptr;
  std::string text = std::string(call) + " failed: ";
  text += name ? name : "CUDA error " + std::to_string(result);
  if (description)
    text += std::string(" (") + description + ")";
  return text;
}
