//===- KernelParams.h - Kernel descriptions for the runtime's tests -*- C++ -*-===//
//
// Builders of the parameters of a kernel description (tilec::KernelInfo),
// shared by the runtime's unit tests.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_UNIT_KERNELPARAMS_H
#define TILE_TEST_UNIT_KERNELPARAMS_H

#include "tilec/Target/KernelInfo.h"

#include <string>

namespace tile::test {

inline tilec::KernelParam tensorParam(const std::string &name,
                                      tilec::ElementKind element,
                                      unsigned rank, unsigned alignment = 16,
                                      bool contiguous = true) {
  tilec::KernelParam param;
  param.name = name;
  param.isTensor = true;
  param.element = element;
  param.rank = rank;
  param.alignment = alignment;
  param.contiguous = contiguous;
  return param;
}

inline tilec::KernelParam scalarParam(const std::string &name,
                                      tilec::ScalarKind kind) {
  tilec::KernelParam param;
  param.name = name;
  param.scalar = kind;
  return param;
}

} // namespace tile::test

#endif // TILE_TEST_UNIT_KERNELPARAMS_H
