// RUN: tile-opt %s --tile-print-layouts -o /dev/null 2>&1 | FileCheck %s
// RUN: tile-opt %s --tile-print-layouts="max-elements=64 output=%t" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=FILE < %t
// RUN: not tile-opt %s --tile-print-layouts="output=%t.missing/x" 2>&1 | FileCheck %s --check-prefix=ERR

// tile-print-layouts prints, for each distinct laid-out tile type (a layout
// on a shape; element types do not matter), the linear form and the
// (warp:lane:register) of a thread that holds each element (replicated lane
// and warp bits 0), one line per row; for each !tile.smem type, the offset
// of each element; in order of first appearance. The IR is left as it is.
// The IR mutation test runs it too (a layout of 2^18 warps once hung it).

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 2, order = [1, 0]>

// The accumulator of mma.sync.m16n8k16: lane l holds row l / 4 (and
// l / 4 + 8, registers 2 and 3) at columns 2 (l % 4) and 2 (l % 4) + 1.
// CHECK-LABEL: tile 16x8 in #tile.mma<warpsPerCTA = [1, 1]>
// CHECK-NEXT:  warps 1, registers per thread 4, threads holding each element 1
// CHECK-NEXT:  register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [], block = [] -> dim0 = 16, dim1 = 8
// CHECK-NEXT:  element: warp:lane:register
// CHECK-NEXT:  [0, *]:   0:0:0  0:0:1  0:1:0  0:1:1  0:2:0  0:2:1  0:3:0  0:3:1
// CHECK-NEXT:  [1, *]:   0:4:0  0:4:1  0:5:0  0:5:1  0:6:0  0:6:1  0:7:0  0:7:1
// CHECK:       [8, *]:   0:0:2  0:0:3  0:1:2  0:1:3  0:2:2  0:2:3  0:3:2  0:3:3
// CHECK:       [15, *]: 0:28:2 0:28:3 0:29:2 0:29:3 0:30:2 0:30:3 0:31:2 0:31:3

// The swizzle: the two 8-element chunks of row 1 are swapped.
// CHECK-LABEL: buffer 4x16xf16 in #tile.shared<vec = 8, perPhase = 1, maxPhase = 2, order = [1, 0]>
// CHECK-NEXT:  offset = [(0, 1), (0, 2), (0, 4), (0, 8), (1, 8), (2, 0)] -> dim0 = 4, dim1 = 16
// CHECK-NEXT:  element: offset
// CHECK-NEXT:  [0, *]:  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
// CHECK-NEXT:  [1, *]: 24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23
// CHECK-NEXT:  [2, *]: 32 33
// CHECK-NEXT:  [3, *]: 56 57

// Two warps of 8 x 4 lanes, 4 registers along the row.
// CHECK-LABEL: tile 16x16 in #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
// CHECK-NEXT:  warps 2, registers per thread 4, threads holding each element 1
// CHECK:       [0, *]:   0:0:0  0:0:1  0:0:2  0:0:3  0:1:0  0:1:1  0:1:2  0:1:3  0:2:0  0:2:1  0:2:2  0:2:3  0:3:0  0:3:1  0:3:2  0:3:3
// CHECK:       [8, *]:   1:0:0  1:0:1  1:0:2  1:0:3  1:1:0

// A row vector in the accumulator's layout: the 4 lanes of a row hold it.
// CHECK-LABEL: tile 16 in #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [1, 1]>>
// CHECK-NEXT:  warps 1, registers per thread 2, threads holding each element 4
// CHECK-NEXT:  register = [(8)], lane = [(0), (0), (1), (2), (4)], warp = [], block = [] -> dim0 = 16
// CHECK-NEXT:  element: warp:lane:register
// CHECK-NEXT:  [*]:  0:0:0  0:4:0  0:8:0 0:12:0 0:16:0 0:20:0 0:24:0 0:28:0  0:0:1  0:4:1  0:8:1 0:12:1 0:16:1 0:20:1 0:24:1 0:28:1

// A tile smaller than the layout's block: replicated.
// CHECK-LABEL: tile 4x4 in #tile.blocked
// CHECK-NEXT:  warps 2, registers per thread 4, threads holding each element 16

// Each distinct type once.
// CHECK-NOT: tile 16x8
// CHECK-NOT: buffer

// IR: func.func @layouts
// IR: tile.full

// Over max-elements: the summary only.
// FILE-LABEL: tile 16x8 in #tile.mma<warpsPerCTA = [1, 1]>
// FILE-NEXT:  warps 1, registers per thread 4, threads holding each element 1
// FILE-NEXT:  register =
// FILE-NEXT:  (128 elements: no table above max-elements = 64)
// FILE-NEXT:  buffer 4x16xf16
// FILE-NEXT:  offset =
// FILE-NEXT:  element: offset

// ERR: error: tile-print-layouts: cannot open output file

func.func @layouts(%x: f32, %h: f16, %a: tensor<16x8xf16, #mma>,
                   %4: !tile.smem<[4, 16], f16, #shared>)
    -> (tensor<16x8xf32, #mma>, tensor<16x16xf16, #blocked>,
        tensor<16xf32, #tile.slice<dim = 1, parent = #mma>>,
        !tile.smem<[4, 16], f16, #shared>, tensor<4x4xf16, #blocked>) {
  %0 = tile.full %x : tensor<16x8xf32, #mma>
  %1 = tile.full %h : tensor<16x16xf16, #blocked>
  %2 = tile.full %x : tensor<16xf32, #tile.slice<dim = 1, parent = #mma>>
  %3 = tile.full %h : tensor<4x4xf16, #blocked>
  return %0, %1, %2, %4, %3 : tensor<16x8xf32, #mma>, tensor<16x16xf16, #blocked>, tensor<16xf32, #tile.slice<dim = 1, parent = #mma>>, !tile.smem<[4, 16], f16, #shared>, tensor<4x4xf16, #blocked>
}
