//===- GpuTest.h - Helpers of the GPU tests ---------------------*- C++ -*-===//
//
// Host-side f16/bf16 conversion, seeded random inputs, device buffers that
// are poisoned before every run, and the error measure every GPU test uses:
// the relative error ||out - ref||_2 / ||ref||_2 against a float64 reference,
// with every output element required to be finite (the poison is NaN, so an
// element the kernel did not write fails, and NaN never passes).
//
// Exit codes: 0 all passed, 1 a failure, 77 no GPU (ctest's SKIP_RETURN_CODE).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_GPU_GPUTEST_H
#define TILE_TEST_GPU_GPUTEST_H

#include "tile/Tile.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <vector>

extern char **environ;

namespace gputest {

constexpr int kExitSkip = 77;

//===----------------------------------------------------------------------===//
// Half-precision formats on the host
//===----------------------------------------------------------------------===//

inline float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

/// IEEE binary16, round to nearest even.
inline uint16_t floatToHalf(float value) {
  uint32_t x = floatToBits(value);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t magnitude = x & 0x7fffffff;
  if (magnitude >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (magnitude > 0x7f800000 ? 0x200 : 0);
  if (magnitude >= 0x477ff000) // rounds to >= 65520: inf
    return sign | 0x7c00;
  if (magnitude < 0x38800000) {                     // subnormal half (or zero)
    float f = bitsToFloat(magnitude) * 16777216.0f; // * 2^24
    uint32_t q = static_cast<uint32_t>(std::nearbyint(f));
    return sign | q;
  }
  uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
  return sign | ((rounded - 0x38000000) >> 13);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0)
    return (sign ? -1.0f : 1.0f) * mantissa * (1.0f / 16777216.0f);
  if (exponent == 31)
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t floatToBF16(float value) {
  uint32_t x = floatToBits(value);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
inline float bf16ToFloat(uint16_t b) { return bitsToFloat(uint32_t(b) << 16); }

/// Host data of one dtype, with float64 views for the reference.
struct HostTensor {
  tile::DType dtype = tile::DType::F32;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(tile::DType dtype, size_t count)
      : dtype(dtype), bytes(count * tile::dtypeBytes(dtype)) {}
  size_t size() const { return bytes.size() / tile::dtypeBytes(dtype); }

  double get(size_t i) const {
    switch (dtype) {
    case tile::DType::F32: {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      return f;
    }
    case tile::DType::F16: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      return halfToFloat(h);
    }
    case tile::DType::BF16: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      return bf16ToFloat(h);
    }
    case tile::DType::I32: {
      int32_t v;
      std::memcpy(&v, &bytes[i * 4], 4);
      return v;
    }
    case tile::DType::I64: {
      int64_t v;
      std::memcpy(&v, &bytes[i * 8], 8);
      return static_cast<double>(v);
    }
    case tile::DType::I8:
      return static_cast<int8_t>(bytes[i]);
    case tile::DType::Bool:
      return bytes[i];
    case tile::DType::F8E4M3:
    case tile::DType::F8E5M2:
      break; // not used by the C++ GPU tests
    }
    return 0;
  }
  /// Stores `value` rounded to the dtype.
  void set(size_t i, double value) {
    switch (dtype) {
    case tile::DType::F32: {
      float f = static_cast<float>(value);
      std::memcpy(&bytes[i * 4], &f, 4);
      break;
    }
    case tile::DType::F16: {
      uint16_t h = floatToHalf(static_cast<float>(value));
      std::memcpy(&bytes[i * 2], &h, 2);
      break;
    }
    case tile::DType::BF16: {
      uint16_t h = floatToBF16(static_cast<float>(value));
      std::memcpy(&bytes[i * 2], &h, 2);
      break;
    }
    case tile::DType::I32: {
      int32_t v = static_cast<int32_t>(value);
      std::memcpy(&bytes[i * 4], &v, 4);
      break;
    }
    case tile::DType::I64: {
      int64_t v = static_cast<int64_t>(value);
      std::memcpy(&bytes[i * 8], &v, 8);
      break;
    }
    case tile::DType::I8:
      bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(value));
      break;
    case tile::DType::F8E4M3:
    case tile::DType::F8E5M2:
      break; // not used by the C++ GPU tests
    case tile::DType::Bool:
      bytes[i] = value != 0;
      break;
    }
  }
};

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

/// Stops the program when a runtime call fails: a test must never carry on
/// after an unchecked CUDA error.
inline void check(const tile::Status &status, const char *what) {
  if (!status.ok()) {
    std::printf("FATAL: %s: %s\n", what, status.message().c_str());
    std::fflush(stdout);
    std::exit(1);
  }
}
template <typename T> T checkValue(tile::Expected<T> value, const char *what) {
  check(value.status(), what);
  return std::move(*value);
}

/// Exits 77 with the reason when there is no GPU to test on.
inline tile::DeviceInfo requireGpu(const char *program) {
  tile::Expected<tile::DeviceInfo> info = tile::deviceInfo();
  if (!info) {
    std::printf("%s: SKIP: no GPU to test on: %s\n", program,
                info.status().message().c_str());
    std::exit(kExitSkip);
  }
  std::printf("%s: %s (%s, %d SMs, %d KB shared memory per block)\n", program,
              info->name.c_str(), info->arch.c_str(), info->multiprocessors,
              info->maxSharedPerBlockOptin / 1024);
  return *info;
}

/// The seed: --seed=N, else the clock; printed so that a failure reproduces.
inline uint64_t pickSeed(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--seed=", 7) == 0)
      return std::strtoull(argv[i] + 7, nullptr, 10);
  return static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
}

struct ErrorStats {
  double relative = 0; // ||out - ref|| / ||ref||
  double maxAbs = 0;
  size_t nonFinite = 0; // unwritten (still poisoned) or NaN/inf outputs
  size_t firstBad = 0;
  size_t count = 0;

  bool passes(double bound) const {
    return count > 0 && nonFinite == 0 && std::isfinite(relative) &&
           std::isfinite(maxAbs) && relative <= bound;
  }
};

/// Accumulates (out, ref) pairs.
class ErrorMeter {
public:
  void add(double out, double ref, size_t index) {
    ++stats.count;
    if (!std::isfinite(out)) {
      if (!stats.nonFinite++)
        stats.firstBad = index;
      return;
    }
    double diff = out - ref;
    diffSquares += diff * diff;
    refSquares += ref * ref;
    stats.maxAbs = std::max(stats.maxAbs, std::fabs(diff));
  }
  ErrorStats finish() {
    stats.relative = refSquares > 0 ? std::sqrt(diffSquares / refSquares)
                                    : std::sqrt(diffSquares);
    return stats;
  }

private:
  ErrorStats stats;
  double diffSquares = 0, refSquares = 0;
};

/// One result line; returns whether it passed.
inline bool report(const std::string &name, const ErrorStats &stats,
                   double bound) {
  bool ok = stats.passes(bound);
  if (stats.nonFinite)
    std::printf("%-64s rel_err=%.3e max_abs=%.3e bound=%.1e %s (%zu of %zu "
                "outputs not finite, first at %zu: unwritten or NaN)\n",
                name.c_str(), stats.relative, stats.maxAbs, bound,
                ok ? "PASS" : "FAIL", stats.nonFinite, stats.count,
                stats.firstBad);
  else
    std::printf("%-64s rel_err=%.3e max_abs=%.3e bound=%.1e %s\n", name.c_str(),
                stats.relative, stats.maxAbs, bound, ok ? "PASS" : "FAIL");
  std::fflush(stdout);
  return ok;
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

/// A device allocation, freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes(bytes) {
    pointer = checkValue(tile::deviceAlloc(bytes ? bytes : 1), "deviceAlloc");
  }
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : pointer(other.pointer), bytes(other.bytes) {
    other.pointer = nullptr;
  }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    std::swap(pointer, other.pointer);
    std::swap(bytes, other.bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (pointer)
      check(tile::deviceFree(pointer), "deviceFree");
  }
  void *get() const { return pointer; }
  size_t size() const { return bytes; }

  void upload(const HostTensor &host) {
    check(tile::copyToDevice(pointer, host.bytes.data(), host.bytes.size()),
          "copyToDevice");
  }
  void download(HostTensor &host) const {
    check(tile::copyToHost(host.bytes.data(), pointer, host.bytes.size()),
          "copyToHost");
  }
  /// 0xFF bytes: NaN in f16, bf16 and f32.
  void poison() { check(tile::deviceMemset(pointer, 0xff, bytes), "memset"); }

private:
  void *pointer = nullptr;
  size_t bytes = 0;
};

/// Runs the program `args[0]` with `args`, its output (stdout and stderr)
/// into `log`; "" when it exits 0, else the error text: the command, then
/// the first 4 KiB of its output. posix_spawn, so that a test's threads may
/// run programs at the same time.
inline std::string runProgram(std::vector<std::string> args,
                              const std::string &log) {
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int spawnError =
      posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  std::string command;
  for (const std::string &arg : args)
    command += (command.empty() ? "" : " ") + arg;
  if (spawnError)
    return "cannot run `" + command + "`: " + std::strerror(spawnError);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return "waiting for `" + command + "` failed";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  std::string text = "`" + command + "` failed";
  if (FILE *f = std::fopen(log.c_str(), "r")) {
    char buffer[4096];
    size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, f);
    buffer[n] = 0;
    std::fclose(f);
    text += ":\n" + std::string(buffer);
  }
  return text;
}

} // namespace gputest

#endif // TILE_TEST_GPU_GPUTEST_H
