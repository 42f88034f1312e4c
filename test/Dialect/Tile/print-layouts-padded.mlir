// RUN: tile-opt %s --tile-print-layouts -o /dev/null 2>&1 | FileCheck %s

// A tile whose dimensions are not powers of two is laid out over its padded
// shape: the table shows its own elements, the replication counts the
// padded ones.
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile 6x12 (held as 8x16) in #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT:  warps 4, registers per thread 4, threads holding each element 4
// CHECK-NEXT:  register = [(0, 1), (0, 2)], lane = [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)], warp = [(0, 0), (0, 0)], block = [] -> dim0 = 8, dim1 = 16
// CHECK-NEXT:  element: warp:lane:register
// CHECK-NEXT:  [0, *]:  0:0:0  0:0:1  0:0:2  0:0:3  0:1:0  0:1:1  0:1:2  0:1:3  0:2:0  0:2:1  0:2:2  0:2:3
// CHECK:       [5, *]: 0:20:0 0:20:1 0:20:2 0:20:3 0:21:0 0:21:1 0:21:2 0:21:3 0:22:0 0:22:1 0:22:2 0:22:3
func.func @padded(%x: tensor<6x12xf32, #b>) -> tensor<6x12xf32, #b> {
  return %x : tensor<6x12xf32, #b>
}
