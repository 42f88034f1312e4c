//===- KernelHints.h - The compile-time options a kernel may give -*- C++
//-*-===//
//
// A kernel's `@hints(name=value, ...)` decorator records compile-time
// options in its `tile.hints` dictionary (the cuTile kernel hints:
// `num_worker_warps`, `occupancy`). The compiler driver takes them where
// the command line or the API gives no value (tilec::compile); a value
// given there wins. The hints are the compile options tile/Options.def
// marks TILE_OPTION_HINT; this table of them serves the front end, the
// dialect's attribute verifier and the driver.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_KERNELHINTS_H
#define TILE_IR_KERNELHINTS_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tile {

/// One hint: a bool, or an integer in [min, max] (a power of two if
/// `powerOfTwo`).
struct KernelHintSpec {
  llvm::StringRef name;
  bool isBool;
  int64_t min, max;
  bool powerOfTwo;
  llvm::StringRef meaning;
};

/// Every hint, in the order the documentation lists them.
llvm::ArrayRef<KernelHintSpec> getKernelHintSpecs();

/// The hint called `name`, or null.
const KernelHintSpec *lookupKernelHint(llvm::StringRef name);

/// Why `value` (an i64 IntegerAttr or a BoolAttr) is not a valid value of
/// the hint `name`; empty when it is.
std::string checkKernelHint(llvm::StringRef name, Attribute value);

/// The names of every hint, as "a, b, c and d", for messages.
std::string listKernelHints();

} // namespace mlir::tile

#endif // TILE_IR_KERNELHINTS_H
