// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s --check-prefixes=CHECK,FULL

// A partial sum (tile.reduce's kept_bits, tile-defer-loop-reductions'
// partials) that keeps the axis' lane and warp bits combines the registers
// of each thread only: no shuffle, no shared memory, no barrier. Here each
// thread holds 4 of a row's 32 elements (a blocked 1 x 4 of 4 x 8 lanes):
// three adds, and its 4 x 1 partial is the thread's one value.
// CHECK-LABEL: llvm.func @in_thread
// CHECK:       ld.global.v4.b32
// CHECK-COUNT-3: llvm.fadd
// CHECK-NOT:   nvvm.shfl.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK-NOT:   llvm.store {{.*}} !llvm.ptr<3>
// CHECK:       st.global.b32
// CHECK:       llvm.return
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#p = #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
func.func @in_thread(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<16x32xf32, #b>
  %s = tile.reduce sum %x {axis = 1 : i32, keepdims, kept_bits = 28 : i64} : tensor<16x32xf32, #b> -> tensor<16x8xf32, #p>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<16x8xf32, #p>
  return
}

// -----

// The partials then summed (as after the loop): across the 8 lanes of a
// row, three butterfly steps, and no more.
// FULL-LABEL: llvm.func @partials_summed
// FULL-COUNT-3: llvm.fadd
// FULL-COUNT-3: nvvm.shfl.sync  bfly
// FULL-NOT:   nvvm.shfl.sync
// FULL-NOT:   nvvm.barrier0
// FULL:       llvm.return
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#p = #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#r = #tile.linear<register = [], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
func.func @partials_summed(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<16x32xf32, #b>
  %p = tile.reduce sum %x {axis = 1 : i32, keepdims, kept_bits = 28 : i64} : tensor<16x32xf32, #b> -> tensor<16x8xf32, #p>
  %s = tile.reduce sum %p {axis = 1 : i32, keepdims} : tensor<16x8xf32, #p> -> tensor<16x1xf32, #r>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<16x1xf32, #r>
  return
}
