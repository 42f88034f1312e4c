//===- TargetLimits.h - What a GPU target gives one kernel -----*- C++ -*-===//
//
// The limits of each GPU target tilec compiles for, in one table: the
// passes that size buffers and split registers, the checks that refuse a
// kernel the GPU cannot run (tile-check-resources,
// tile-check-kernel-parameters) and the runtime read them here. The figures
// are the smallest of the GPUs that run code for the target (the CUDA
// programming guide's table of compute capabilities), so that a kernel
// that fits runs on every one of them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TARGETLIMITS_H
#define TILE_IR_TARGETLIMITS_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mlir::tile {

struct TargetLimits {
  /// Dynamic shared memory one block may have (the opt-in maximum).
  int64_t sharedBytesPerBlock;
  /// Shared memory of a multiprocessor, and what it keeps of it per block.
  int64_t sharedBytesPerMultiprocessor;
  int64_t reservedSharedBytesPerBlock = 1024;
  int64_t threadsPerBlock = 1024;
  int64_t threadsPerMultiprocessor;
  int64_t blocksPerMultiprocessor;
  int64_t registersPerMultiprocessor = 65536;
  /// The most registers one thread may have.
  int64_t registersPerThread = 255;
  /// Bytes of kernel parameters, with the PTX ISA version tilec emits for
  /// the target (PTXEmitter: 8.4 on sm_89 and sm_90, 7.8 before, where the
  /// limit is 4 KiB and 256 bytes; sm_89 keeps that limit, which its
  /// drivers' older releases had).
  int64_t parameterBytes;
  /// Whether `red.global.add` takes bf16 (sm_90 on).
  bool bf16AtomicAdd = false;
  /// Whether cvt converts to and from 8-bit floats (e4m3x2, e5m2x2: sm_89
  /// on), and mma.sync multiplies them (m16n8k32 with e4m3/e5m2).
  bool float8Conversions = false;
  /// Whether `red.global` takes vectors (.v4.f32, .v4.f16x2: sm_90 on).
  bool vectorReductions = false;
  /// Whether stmatrix stores 8 x 8 matrices of 16-bit elements from mma
  /// fragments (sm_90 on).
  bool storeMatrix = false;

  /// Blocks a multiprocessor holds by shared memory, each with `bytes`.
  int64_t blocksByShared(int64_t bytes) const {
    return std::min(blocksPerMultiprocessor,
                    sharedBytesPerMultiprocessor /
                        (bytes + reservedSharedBytesPerBlock));
  }

  /// The shared memory one block may have where `blocks` of them share a
  /// multiprocessor (--occupancy; 0: not asked, the opt-in maximum).
  int64_t sharedBytesPerBlockAt(int64_t blocks) const {
    if (blocks <= 0)
      return sharedBytesPerBlock;
    return std::min(sharedBytesPerBlock, sharedBytesPerMultiprocessor / blocks -
                                             reservedSharedBytesPerBlock);
  }

  /// The limits of `arch` (sm_80, sm_86, sm_89, sm_90, sm_90a); nullopt for
  /// any other.
  static std::optional<TargetLimits> get(llvm::StringRef arch) {
    TargetLimits l{};
    if (arch == "sm_90" || arch == "sm_90a") {
      l.sharedBytesPerBlock = 227 * 1024;
      l.sharedBytesPerMultiprocessor = 228 * 1024;
      l.threadsPerMultiprocessor = 2048;
      l.blocksPerMultiprocessor = 32;
      l.parameterBytes = 32764;
      l.bf16AtomicAdd = true;
      l.float8Conversions = true;
      l.vectorReductions = true;
      l.storeMatrix = true;
    } else if (arch == "sm_80") {
      l.sharedBytesPerBlock = 163 * 1024;
      l.sharedBytesPerMultiprocessor = 164 * 1024;
      l.threadsPerMultiprocessor = 2048;
      l.blocksPerMultiprocessor = 32;
      l.parameterBytes = 4352;
    } else if (arch == "sm_86" || arch == "sm_89") {
      l.sharedBytesPerBlock = 99 * 1024;
      l.sharedBytesPerMultiprocessor = 100 * 1024;
      l.threadsPerMultiprocessor = 1536;
      l.blocksPerMultiprocessor = arch == "sm_86" ? 16 : 24;
      l.parameterBytes = 4352;
      l.float8Conversions = arch == "sm_89";
    } else {
      return std::nullopt;
    }
    return l;
  }

  /// Registers a thread may have when `blocks` blocks of `threads` threads
  /// share a multiprocessor: the register file over the threads, in the
  /// units of 8 registers per thread the GPU allocates, at most
  /// registersPerThread.
  int64_t registersPerThreadAt(int64_t blocks, int64_t threads) const {
    int64_t r = registersPerMultiprocessor / (blocks * threads);
    r &= ~int64_t(7);
    return r < registersPerThread ? r : registersPerThread;
  }
};

} // namespace mlir::tile

#endif // TILE_IR_TARGETLIMITS_H
