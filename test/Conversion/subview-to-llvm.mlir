// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// tile.subview: the base moved to the view's first element (the starts
// clamped into the tensor, times the strides), the sizes the clamped
// bounds' difference, the strides the tensor's; loads and stores through it
// are the tensor's own, their bounds checks against the view's sizes. The
// accesses count for the parameter viewed (tile.param_vector_bytes, which
// the launch checks), and their vectors are as wide as the view's starts
// and ends along the contiguous dimension are known to be aligned.

// CHECK-LABEL: llvm.func @rows
// CHECK-SAME:  (%[[X:[^:]*]]: !llvm.ptr<1>, %[[D0:[^:]*]]: i32, %[[D1:[^:]*]]: i32, %[[S0:[^:]*]]: i64, %[[S1:[^:]*]]: i64, %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32)
// CHECK-SAME:  tile.param_vector_bytes = array<i32: 16, 0, 0>
// CHECK-DAG:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:       %[[LO:.*]] = llvm.intr.smax(%[[A]], %[[Z]]) : (i32, i32) -> i32
// CHECK-NEXT:  %[[S:.*]] = llvm.intr.smin(%[[LO]], %[[D0]]) : (i32, i32) -> i32
// CHECK-NEXT:  %[[HI:.*]] = llvm.intr.smax(%[[B]], %[[S]]) : (i32, i32) -> i32
// CHECK-NEXT:  %[[E:.*]] = llvm.intr.smin(%[[HI]], %[[D0]]) : (i32, i32) -> i32
// CHECK-NEXT:  %[[N:.*]] = llvm.sub %[[E]], %[[S]] : i32
// CHECK-NEXT:  %[[S64:.*]] = llvm.sext %[[S]] : i32 to i64
// CHECK-NEXT:  %[[OFF:.*]] = llvm.mul %[[S64]], %[[S0]] : i64
// CHECK-NEXT:  %[[BASE:.*]] = llvm.getelementptr %[[X]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// The rows are checked against the view's size, the columns the tensor's.
// CHECK:       llvm.icmp "ult" %{{.*}}, %[[N]] : i32
// CHECK:       llvm.icmp "ult" %{{.*}}, %[[D1]] : i32
// CHECK:       llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK:       ld.global.v4.b32
// CHECK:       st.global.v4.b32
#b16 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @rows(%X: !tile.global<f16, 2>, %a: i32, %b: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.subview %X[%a, %c0] ends[%b] {end_dims = array<i32: 0>} : !tile.global<f16, 2>
  %x = tile.load %v[%c0, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16, #b16>
  tile.store %v[%c1, %c0], %x : !tile.global<f16, 2>, tensor<16x64xf16, #b16>
  return
}

// -----

// Along the contiguous dimension: a start of a multiple of 8 halves keeps
// 16-byte vectors, a start of any value one element at a time.
// CHECK-LABEL: llvm.func @columns
// CHECK-SAME:  tile.param_vector_bytes = array<i32: 16, 2, 0>
// CHECK-COUNT-1: ld.global.v4.b32
// CHECK-NOT:   ld.global.v
// CHECK-COUNT-8: ld.global.b16
// CHECK-NOT:   ld.global
#b16 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @columns(%X: !tile.global<f16, 2>, %Y: !tile.global<f16, 2>, %a: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %a8 = arith.muli %a, %c8 : i32
  %v = tile.subview %X[%c0, %a8] : !tile.global<f16, 2>
  %w = tile.subview %Y[%c0, %a] : !tile.global<f16, 2>
  %x = tile.load %v[%c0, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16, #b16>
  %y = tile.load %w[%c0, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16, #b16>
  %s = arith.addf %x, %y : tensor<16x64xf16, #b16>
  tile.store %X[%c0, %c0], %s : !tile.global<f16, 2>, tensor<16x64xf16, #b16>
  return
}
