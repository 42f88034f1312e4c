//===- SoftmaxGpuTest.cpp - tile-kernel-gpu-tests -------------------------===//
//
// Kernels/softmax.tile: rows of any length.
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

namespace kernelgpu {

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

void softmax(DType dtype, int64_t rows, int64_t cols, int64_t tileN,
             std::mt19937_64 &rng) {
  std::normal_distribution<double> normal(0, 3);
  Build build;
  build.constants = {{"DTYPE", tile::dtypeName(dtype)},
                     {"TILE_M", "4"},
                     {"TILE_N", std::to_string(tileN)}};
  build.alignment = alignmentFor(cols, tile::dtypeBytes(dtype));
  std::vector<double> x(rows * cols);
  for (double &v : x)
    v = normal(rng);
  for (Mode mode : modes()) {
    bool pad = mode == Mode::AOT;
    Matrix in(dtype, rows, cols, pad), out(dtype, rows, cols, pad);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        in.host.set(in.index(r, c), x[r * cols + c]);
    in.upload();
    out.device.poison();
    std::string name = std::string("softmax ") + tile::dtypeName(dtype) + " " +
                       std::to_string(rows) + "x" + std::to_string(cols) +
                       " TILE_N=" + std::to_string(tileN) + " [" +
                       modeName(mode) + "]";
    if (!launch(name, mode, "softmax", build,
                tile::Dim3(static_cast<unsigned>(cdiv(rows, 4))),
                {in.tensor(), out.tensor()}))
      continue;
    out.download();
    ErrorMeter meter;
    for (int64_t r = 0; r < rows; ++r) {
      double max = -INFINITY, sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        max = std::max(max, in.host.get(in.index(r, c)));
      for (int64_t c = 0; c < cols; ++c)
        sum += std::exp(in.host.get(in.index(r, c)) - max);
      for (int64_t c = 0; c < cols; ++c)
        meter.add(out.host.get(out.index(r, c)),
                  std::exp(in.host.get(in.index(r, c)) - max) / sum,
                  out.index(r, c));
    }
    tally(report(name, meter.finish(), dtypeBound(dtype, 3e-3, 1.5e-2)));
  }
}

void softmaxCases(std::mt19937_64 &rng) {
  struct Shape {
    int64_t rows, cols, tileN;
  } shapes[] = {{1, 1, 1024},      {7, 1000, 1024}, {128, 1024, 1024},
                {1000, 333, 1024}, {3, 17, 1024},   {4097, 1023, 1024},
                {50, 100, 128}};
  for (DType dtype : {DType::F32, DType::F16})
    for (const Shape &shape : shapes)
      softmax(dtype, shape.rows, shape.cols, shape.tileN, rng);
}

} // namespace kernelgpu
