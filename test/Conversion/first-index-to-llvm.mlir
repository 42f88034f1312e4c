// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// The first index along an axis where a condition holds (argmax's and
// argmin's second reduction: min(select(p, index, past)), the index a
// tile.arange along the axis broadcast over the others): a register's index
// is the thread's offset along the axis plus a constant of the register, so
// the thread takes the least constant whose condition holds by a chain of
// selects of constants, from the greatest, and adds its offset once; no
// register holds an index of its own (LLVM would hoist them all out of a
// loop). The lanes then combine the thread's results by min as before.

// 4 rows of 64 on one warp, 8 columns a thread (registers 0-7, columns
// 8 (lane mod 8) + r): the condition x > 0.
// CHECK-LABEL: llvm.func @first_index
// CHECK-DAG:   %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG:   %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-DAG:   %[[C6:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:       %[[NONE:.*]] = llvm.sub %[[C64]], %[[BASE:.*]] : i32
// CHECK:       %[[S7:.*]] = llvm.select %{{.*}}, %[[C7]], %[[NONE]] : i1, i32
// CHECK-NEXT:  %[[S6:.*]] = llvm.select %{{.*}}, %[[C6]], %[[S7]] : i1, i32
// CHECK-COUNT-5: llvm.select
// CHECK:       %[[S0:.*]] = llvm.select %{{.*}}, %[[C0]], %{{.*}} : i1, i32
// CHECK-NEXT:  %[[FIRST:.*]] = llvm.add %[[BASE]], %[[S0]] : i32
// CHECK:       nvvm.shfl.sync bfly %{{.*}}, %[[FIRST]]
// CHECK:       llvm.intr.smin
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#row = #tile.blocked<sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @first_index(%X: !tile.global<f32, 2>, %O: !tile.global<i32, 2>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<4x64xf32, #b>
  %zero = arith.constant dense<0.0> : tensor<4x64xf32, #b>
  %past = arith.constant dense<64> : tensor<4x64xi32, #b>
  %p = arith.cmpf ogt, %x, %zero : tensor<4x64xf32, #b>
  %i = tile.arange : tensor<64xi32, #tile.slice<dim = 0, parent = #b>>
  %i2 = tile.expand_dims %i {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #b>> -> tensor<1x64xi32, #b>
  %ib = tile.broadcast %i2 : tensor<1x64xi32, #b> -> tensor<4x64xi32, #b>
  %s = arith.select %p, %ib, %past : tensor<4x64xi1, #b>, tensor<4x64xi32, #b>
  %m = tile.reduce min %s {axis = 1 : i32, keepdims} : tensor<4x64xi32, #b> -> tensor<4x1xi32, #b>
  tile.store %O[%c0, %c0], %m : !tile.global<i32, 2>, tensor<4x1xi32, #b>
  return
}

// -----

// A select of anything else (here an arange along the other axis) is
// reduced as before: each register's value, combined in a tree.
// CHECK-LABEL: llvm.func @not_along_axis
// CHECK-NOT:   llvm.sub
// CHECK:       llvm.intr.smin
#b = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]>
func.func @not_along_axis(%X: !tile.global<f32, 2>, %O: !tile.global<i32, 2>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<64x4xf32, #b>
  %zero = arith.constant dense<0.0> : tensor<64x4xf32, #b>
  %past = arith.constant dense<64> : tensor<64x4xi32, #b>
  %p = arith.cmpf ogt, %x, %zero : tensor<64x4xf32, #b>
  %i = tile.arange : tensor<64xi32, #tile.slice<dim = 1, parent = #b>>
  %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #tile.slice<dim = 1, parent = #b>> -> tensor<64x1xi32, #b>
  %ib = tile.broadcast %i2 : tensor<64x1xi32, #b> -> tensor<64x4xi32, #b>
  %s = arith.select %p, %ib, %past : tensor<64x4xi1, #b>, tensor<64x4xi32, #b>
  %m = tile.reduce min %s {axis = 1 : i32, keepdims} : tensor<64x4xi32, #b> -> tensor<64x1xi32, #b>
  tile.store %O[%c0, %c0], %m : !tile.global<i32, 2>, tensor<64x1xi32, #b>
  return
}
