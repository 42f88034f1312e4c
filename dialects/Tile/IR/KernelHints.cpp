//===- KernelHints.cpp - The compile-time options a kernel may give -------===//

#include "Tile/IR/KernelHints.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

ArrayRef<KernelHintSpec> mlir::tile::getKernelHintSpecs() {
  static const KernelHintSpec specs[] = {
      {"num_warps", false, 1, 32, true,
       "warps the layouts use; with warp specialization, the consumer "
       "warps (4 per consumer warpgroup)"},
      {"num_stages", false, 1, 8, false,
       "pipeline stages of every pipelined copy (instead of the latency "
       "hints)"},
      {"occupancy", false, 1, 32, false,
       "blocks per multiprocessor the registers are budgeted for"},
      {"warp_specialize", true, 0, 1, false,
       "sm_90a: a TMA producer warp and consumer warpgroups"},
      {"ping_pong", true, 0, 1, false,
       "sm_90a, specialized: consumer warpgroups multiply in turns"},
      {"rotate_wgmma", true, 0, 1, false,
       "sm_90a: a loop's last multiply issued in the next trip"},
      {"persistent", true, 0, 1, false,
       "a block per multiprocessor slot, looping over the grid's blocks"},
  };
  return specs;
}

const KernelHintSpec *mlir::tile::lookupKernelHint(StringRef name) {
  for (const KernelHintSpec &spec : getKernelHintSpecs())
    if (spec.name == name)
      return &spec;
  return nullptr;
}

std::string mlir::tile::listKernelHints() {
  std::string list;
  ArrayRef<KernelHintSpec> specs = getKernelHintSpecs();
  for (auto [i, spec] : llvm::enumerate(specs)) {
    if (i)
      list += i + 1 == specs.size() ? " and " : ", ";
    list += spec.name.str();
  }
  return list;
}

std::string mlir::tile::checkKernelHint(StringRef name, Attribute value) {
  const KernelHintSpec *spec = lookupKernelHint(name);
  if (!spec)
    return "unknown hint '" + name.str() + "' (the hints are " +
           listKernelHints() + ")";
  if (spec->isBool)
    return isa<BoolAttr>(value) ? "" : name.str() + " must be a bool";
  auto n = dyn_cast<IntegerAttr>(value);
  if (!n || !n.getType().isSignlessInteger(64))
    return name.str() + " must be an integer";
  int64_t v = n.getInt();
  if (v < spec->min || v > spec->max ||
      (spec->powerOfTwo && !llvm::isPowerOf2_64(uint64_t(v))))
    return name.str() + " must be " +
           (spec->powerOfTwo ? "a power of two" : "an integer") + " from " +
           std::to_string(spec->min) + " to " + std::to_string(spec->max) +
           ", got " + std::to_string(v);
  return "";
}
