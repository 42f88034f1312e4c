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
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_KERNELINFO_H
#define TILEC_TARGET_KERNELINFO_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

enum class ScalarKind { I32, F32, Bool };
enum class ElementKind { F16, BF16, F32, I32, Bool };

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
  /// at launch.
  unsigned alignment = 1;
  bool contiguous = false;
  // Scalars
  ScalarKind scalar = ScalarKind::I32;
};

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
  std::vector<KernelParam> params;
  /// The compile-time constants the kernel was specialized with, as text.
  std::vector<std::pair<std::string, std::string>> constants;

  std::string toJSON() const;
  static std::optional<KernelInfo> fromJSON(const std::string &json,
                                            std::string &error);
};

/// Size in bytes of an element kind.
unsigned elementBytes(ElementKind kind);
const char *elementName(ElementKind kind);

} // namespace tilec

#endif // TILEC_TARGET_KERNELINFO_H
