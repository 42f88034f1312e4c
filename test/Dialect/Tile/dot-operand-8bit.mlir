// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s --tile-print-layouts -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYOUT

// The mma.sync operand layouts of 8-bit elements (kWidth = 4): four
// elements adjacent along K in each 32-bit register, the fragments of
// mma.sync.m16n8k32 (PTX ISA, "Matrix Fragments for mma.m16n8k32"): A's
// thread t holds row t / 4 (and + 8) at columns 4 (t mod 4) + 0..3 (and
// + 16); B's holds column t / 4 at rows 4 (t mod 4) + 0..3 (and + 16).
// kWidth = 2, the 16-bit layouts', prints as the default it is.

// CHECK: #dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
// CHECK: #dot_a1 = #tile.dot_operand<opIdx = 0, parent = #mma>
// CHECK: #dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
// CHECK: func.func private @operands(tensor<16x32xf8E4M3FN, #dot_a>, tensor<32x8xf8E5M2, #dot_b>, tensor<16x16xf16, #dot_a1>)

// LAYOUT:      tile 16x32 in #tile.dot_operand<opIdx = 0, parent = <warpsPerCTA = [1, 1]>, kWidth = 4>
// LAYOUT-NEXT:   warps 1, registers per thread 16, threads holding each element 1
// LAYOUT-NEXT:   register = [(0, 1), (0, 2), (8, 0), (0, 16)], lane = [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)], warp = [], block = [] -> dim0 = 16, dim1 = 32
// LAYOUT:        [0, *]:    0:0:0   0:0:1   0:0:2   0:0:3   0:1:0   0:1:1   0:1:2   0:1:3
// LAYOUT:        [8, *]:    0:0:4   0:0:5   0:0:6   0:0:7   0:1:4
// LAYOUT:      tile 32x8 in #tile.dot_operand<opIdx = 1, parent = <warpsPerCTA = [1, 1]>, kWidth = 4>
// LAYOUT-NEXT:   warps 1, registers per thread 8, threads holding each element 1
// LAYOUT-NEXT:   register = [(1, 0), (2, 0), (16, 0)], lane = [(4, 0), (8, 0), (0, 1), (0, 2), (0, 4)], warp = [], block = [] -> dim0 = 32, dim1 = 8
// LAYOUT:      tile 16x16 in #tile.dot_operand<opIdx = 0, parent = <warpsPerCTA = [1, 1]>>
// LAYOUT-NEXT:   warps 1, registers per thread 8, threads holding each element 1
// LAYOUT-NEXT:   register = [(0, 1), (8, 0), (0, 8)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
func.func private @operands(
    tensor<16x32xf8E4M3FN, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [1, 1]>, kWidth = 4>>,
    tensor<32x8xf8E5M2, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [1, 1]>, kWidth = 4>>,
    tensor<16x16xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [1, 1]>, kWidth = 2>>)
