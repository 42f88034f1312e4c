//===- KernelHints.cpp - The compile-time options a kernel may give -------===//

#include "Tile/IR/KernelHints.h"

#include "tile/Options.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <vector>

using namespace mlir;
using namespace mlir::tile;

ArrayRef<KernelHintSpec> mlir::tile::getKernelHintSpecs() {
  // The compile options a kernel may give (TILE_OPTION_HINT in
  // tile/Options.def), in their order there.
  static const std::vector<KernelHintSpec> specs = [] {
    std::vector<KernelHintSpec> list;
    size_t count;
    const ::tile::OptionInfo *infos = ::tile::optionInfos(count);
    for (size_t i = 0; i < count; ++i)
      if (infos[i].flags & TILE_OPTION_HINT)
        list.push_back({infos[i].key, infos[i].isBool,
                        (infos[i].flags & TILE_OPTION_ZERO) ? 0
                                                            : infos[i].min,
                        infos[i].max,
                        (infos[i].flags & TILE_OPTION_POW2) != 0,
                        infos[i].doc});
    return list;
  }();
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
