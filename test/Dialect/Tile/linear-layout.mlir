// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-print-layouts -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYOUT

// #tile.linear: a layout given by its bases (the coordinates each bit of
// the register index, the lane and the warp steps to), printed with the
// alias #linear. Here the 16 x 8 accumulator of one mma.sync (#tile.mma on
// one warp) written out, and a 3-D view of it that no other layout gives.

// CHECK: #linear = #tile.linear<register = {{\[}}[0, 1], [8, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// CHECK: #linear1 = #tile.linear<register = {{\[}}[0, 0, 1], [1, 0, 0]], lane = {{\[}}[0, 1, 0], [0, 2, 0], [0, 0, 2], [0, 0, 4], [0, 4, 0]], warp = {{\[}}[2, 0, 0]]>
// CHECK: func.func private @bases(tensor<16x8xf32, #linear>, tensor<4x8x8xf8E4M3FN, #linear1>)

// LAYOUT:      tile 16x8 in #tile.linear<register = {{\[}}[0, 1], [8, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// LAYOUT-NEXT:   warps 1, registers per thread 4, threads holding each element 1
// LAYOUT-NEXT:   register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [], block = [] -> dim0 = 16, dim1 = 8
// LAYOUT:        [0, *]:   0:0:0  0:0:1  0:1:0  0:1:1  0:2:0  0:2:1  0:3:0  0:3:1
// LAYOUT:        [8, *]:   0:0:2  0:0:3  0:1:2  0:1:3  0:2:2  0:2:3  0:3:2  0:3:3
// LAYOUT:      tile 4x8x8 in #tile.linear
// LAYOUT-NEXT:   warps 2, registers per thread 4, threads holding each element 1
func.func private @bases(
    tensor<16x8xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>,
    tensor<4x8x8xf8E4M3FN, #tile.linear<register = [[0, 0, 1], [1, 0, 0]], lane = [[0, 1, 0], [0, 2, 0], [0, 0, 2], [0, 0, 4], [0, 4, 0]], warp = [[2, 0, 0]]>>)
