//===- VectorAddGpuTest.cpp - tile-kernel-gpu-tests -----------------------===//
//
// Kernels/vector_add.tile: element-wise, any alignment, offsets.
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

namespace kernelgpu {

//===----------------------------------------------------------------------===//
// vector_add
//===----------------------------------------------------------------------===//

void vectorAdd(DType dtype, int64_t n, std::mt19937_64 &rng, bool offset) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  int64_t shift = offset ? 1 : 0; // one element in: not 16-byte aligned
  HostTensor a(dtype, n + shift), b(dtype, n + shift), c(dtype, n + shift);
  for (int64_t i = 0; i < n + shift; ++i) {
    a.set(i, uniform(rng));
    b.set(i, uniform(rng));
  }
  DeviceBuffer da(a.bytes.size()), db(b.bytes.size()), dc(c.bytes.size());
  da.upload(a);
  db.upload(b);
  Build build;
  build.constants = {{"DTYPE", tile::dtypeName(dtype)}, {"TILE", "1024"}};
  build.alignment = alignmentFor(n, tile::dtypeBytes(dtype));
  auto view = [&](const DeviceBuffer &buffer) {
    return Tensor(static_cast<char *>(buffer.get()) +
                      shift * tile::dtypeBytes(dtype),
                  dtype, {n}, {1});
  };
  for (Mode mode : modes()) {
    if (offset && mode == Mode::AOT)
      continue; // an AOT kernel assumes 16-byte alignment
    std::string name = std::string("vector_add ") + tile::dtypeName(dtype) +
                       " n=" + std::to_string(n) + (offset ? " base+1" : "") +
                       " [" + modeName(mode) + "]";
    dc.poison();
    if (!launch(name, mode, "vector_add", build,
                tile::Dim3(static_cast<unsigned>(cdiv(n, 1024))),
                {view(da), view(db), view(dc)}))
      continue;
    dc.download(c);
    ErrorMeter meter;
    for (int64_t i = shift; i < n + shift; ++i)
      meter.add(c.get(i), a.get(i) + b.get(i), i);
    tally(report(name, meter.finish(), dtypeBound(dtype, 2e-3, 1.5e-2)));
  }
}

void vectorAddCases(std::mt19937_64 &rng) {
  for (DType dtype : {DType::F32, DType::F16})
    for (int64_t n :
         {int64_t(1), int64_t(1000), int64_t(1) << 20, (int64_t(1) << 20) + 3})
      vectorAdd(dtype, n, rng, false);
  vectorAdd(DType::F32, 1000, rng, true);
  vectorAdd(DType::F16, 4099, rng, true);
}

} // namespace kernelgpu
