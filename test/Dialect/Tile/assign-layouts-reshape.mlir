// RUN: tile-opt %s -split-input-file --tile-assign-layouts=num-warps=1 | FileCheck %s

// A store's layout reaches a reshape's result when it maps back to a
// blocked layout of the reshape's source holding every element in the same
// threads: here the 2-D store layout puts threads on the size-1 dimension,
// which the 1-D layout of four elements per thread over 32 threads gives
// too (each thread a copy of the four), so the reshape's source is converted
// to it and the store writes the reshape's result as it is.

// CHECK-DAG:  #[[SRC:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-DAG:  #[[BACK:blocked[0-9]*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-DAG:  #[[ST:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]>
// CHECK-LABEL: func.func @reshape_to_store
// CHECK:       %[[A:.*]] = tile.arange : tensor<4xi32, #[[SRC]]>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[A]] : tensor<4xi32, #[[SRC]]> -> tensor<4xi32, #[[BACK]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[C]] : tensor<4xi32, #[[BACK]]> -> tensor<1x4xi32, #[[ST]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[R]] : <i32, 2>, tensor<1x4xi32, #[[ST]]>
func.func @reshape_to_store(%O: !tile.global<i32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.arange : tensor<4xi32>
  %r = tile.reshape %a : tensor<4xi32> -> tensor<1x4xi32>
  tile.store %O[%i, %i], %r : !tile.global<i32, 2>, tensor<1x4xi32>
  return
}

// -----

// A vector loaded as (1, 64) (threads on its unit dimension: copies of each
// element) reshaped to a column and broadcast beside an mma result: the
// reshape keeps the load's layout (the threads on the unit dimension
// replicate in the result too, so no data moves), the column is converted
// once, as 64 elements, to the mma's rows, and the broadcast and the
// subtraction are in the mma layout: the broadcast takes its layout from its
// use, not from its blocked source, which would give each thread whole rows
// of the 64 x 64 tile.
// CHECK-LABEL: func.func @vector_beside_mma
// CHECK:       %[[L:.*]] = tile.load %{{.*}} -> tensor<1x64xf32, #[[LL:blocked[0-9]*]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[L]] : tensor<1x64xf32, #[[LL]]> -> tensor<64x1xf32, #[[RL:blocked[0-9]*]]>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[R]] : tensor<64x1xf32, #[[RL]]> -> tensor<64x1xf32, #mma>
// CHECK-NEXT:  %[[B:.*]] = tile.broadcast %[[C]] : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:  arith.subf %{{.*}}, %[[B]] : tensor<64x64xf32, #mma>
func.func @vector_beside_mma(%A: !tile.global<f16, 2>, %L: !tile.global<f32, 2>, %O: !tile.global<f32, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %a = tile.load %A[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.mma %a, %a, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %l = tile.load %L[%c0, %c0] : !tile.global<f32, 2> -> tensor<1x64xf32>
  %r = tile.reshape %l : tensor<1x64xf32> -> tensor<64x1xf32>
  %b = tile.broadcast %r : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %s, %b : tensor<64x64xf32>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A reshape that splits a dimension (every one a power of two: an element
// keeps its row-major index) moves no data when the result's blocked layout
// holds each element where the operand's did: 8 elements a thread, 32 lanes
// along 1024 give rows of 128 over 16 lanes, two rows a warp; the reduction
// along the rows then stays within the warp.
// CHECK-DAG:  #[[ROW:blocked[0-9]*]] = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-DAG:  #[[PARTS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]>
// CHECK-LABEL: func.func @split_dims
// CHECK:       %[[F:.*]] = arith.extf %{{.*}} : tensor<1024xf16, #[[ROW]]> to tensor<1024xf32, #[[ROW]]>
// CHECK-NEXT:  %[[P:.*]] = tile.reshape %[[F]] : tensor<1024xf32, #[[ROW]]> -> tensor<8x128xf32, #[[PARTS]]>
// CHECK-NEXT:  tile.reduce sum %[[P]] {axis = 1 : i32} : tensor<8x128xf32, #[[PARTS]]>
func.func @split_dims(%X: !tile.global<f16, 1>, %O: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i] : !tile.global<f16, 1> -> tensor<1024xf16>
  %f = arith.extf %x : tensor<1024xf16> to tensor<1024xf32>
  %p = tile.reshape %f : tensor<1024xf32> -> tensor<8x128xf32>
  %s = tile.reduce sum %p {axis = 1 : i32} : tensor<8x128xf32> -> tensor<8xf32>
  tile.store %O[%i], %s : !tile.global<f32, 1>, tensor<8xf32>
  return
}

// -----

// Joining dimensions: rows of 64 over 16 lanes of 4 elements, two rows a
// warp, are the 1-D layout of 4 elements a thread over 32 lanes; no
// conversion on either side.
// CHECK-DAG:  #[[TWO:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]>
// CHECK-DAG:  #[[ONE:blocked[0-9]*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-LABEL: func.func @join_dims
// CHECK:       %[[X:.*]] = tile.load %{{.*}} -> tensor<16x64xf32, #[[TWO]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[X]] : tensor<16x64xf32, #[[TWO]]> -> tensor<1024xf32, #[[ONE]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[R]] : <f32, 1>, tensor<1024xf32, #[[ONE]]>
func.func @join_dims(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<16x64xf32>
  %r = tile.reshape %x : tensor<16x64xf32> -> tensor<1024xf32>
  tile.store %O[%i], %r : !tile.global<f32, 1>, tensor<1024xf32>
  return
}

// -----

// Splitting a dimension that is held padded (1008 elements as 1024) into
// rows of 8: the inner part is a power of two, so an element keeps its
// row-major index in the padded shapes (126 x 8 held as 128 x 8), and the
// result's layout holds each element where the load put it, a row of 8 a
// thread: the reduction along the rows stays in the thread.
// CHECK-DAG:  #[[ROW:blocked[0-9]*]] = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-DAG:  #[[GROUPS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]>
// CHECK-LABEL: func.func @split_padded_dim
// CHECK:       %[[F:.*]] = arith.extf %{{.*}} : tensor<1008xf16, #[[ROW]]> to tensor<1008xf32, #[[ROW]]>
// CHECK-NEXT:  %[[P:.*]] = tile.reshape %[[F]] : tensor<1008xf32, #[[ROW]]> -> tensor<126x8xf32, #[[GROUPS]]>
// CHECK-NEXT:  tile.reduce max %[[P]] {axis = 1 : i32} : tensor<126x8xf32, #[[GROUPS]]>
func.func @split_padded_dim(%X: !tile.global<f16, 1>, %O: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i] : !tile.global<f16, 1> -> tensor<1008xf16>
  %f = arith.extf %x : tensor<1008xf16> to tensor<1008xf32>
  %p = tile.reshape %f : tensor<1008xf32> -> tensor<126x8xf32>
  %s = tile.reduce max %p {axis = 1 : i32} : tensor<126x8xf32> -> tensor<126xf32>
  tile.store %O[%i], %s : !tile.global<f32, 1>, tensor<126xf32>
  return
}

// -----

// Two nibbles of each packed byte stacked along a new axis and interleaved
// by a reshape (a W4A16 GEMM's weight, K in order): the stack holds the new
// axis in each thread's registers, fastest (as Triton's join), so that the
// reshape merging it into K is a view: no conversion between the two, each
// thread 32 consecutive K of its column, as its 16 loaded bytes held them.
// CHECK-DAG:  #[[IN:blocked[0-9]*]] = #tile.blocked<sizePerThread = [16, 1, 1], threadsPerWarp = [2, 1, 16], warpsPerCTA = [1, 1, 1], order = [0, 2, 1]>
// CHECK-DAG:  #[[STACK:blocked[0-9]*]] = #tile.blocked<sizePerThread = [16, 2, 1], threadsPerWarp = [2, 1, 16], warpsPerCTA = [1, 1, 1], order = [1, 0, 2]>
// CHECK-DAG:  #[[K:blocked[0-9]*]] = #tile.blocked<sizePerThread = [32, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [0, 1]>
// CHECK-LABEL: func.func @stacked_nibbles
// CHECK:       %[[J:.*]] = tile.concat %{{.*}}, %{{.*}} {axis = 1 : i32} : tensor<32x1x128xi8, #[[IN]]>, tensor<32x1x128xi8, #[[IN]]> -> tensor<32x2x128xi8, #[[STACK]]>
// CHECK-NEXT:  tile.reshape %[[J]] : tensor<32x2x128xi8, #[[STACK]]> -> tensor<64x128xi8, #[[K]]>
func.func @stacked_nibbles(%W: !tile.global<i8, 2>, %O: !tile.global<i8, 2>, %i: i32) attributes {tile.kernel} {
  %c15 = arith.constant dense<15> : tensor<32x128xi8>
  %c4 = arith.constant dense<4> : tensor<32x128xi8>
  %q = tile.load %W[%i, %i] {order = array<i32: 1, 0>} : <i8, 2> -> tensor<32x128xi8>
  %lo = arith.andi %q, %c15 : tensor<32x128xi8>
  %s = arith.shrsi %q, %c4 : tensor<32x128xi8>
  %hi = arith.andi %s, %c15 : tensor<32x128xi8>
  %a = tile.expand_dims %lo {axis = 1 : i32} : tensor<32x128xi8> -> tensor<32x1x128xi8>
  %b = tile.expand_dims %hi {axis = 1 : i32} : tensor<32x128xi8> -> tensor<32x1x128xi8>
  %j = tile.concat %a, %b {axis = 1 : i32} : tensor<32x1x128xi8>, tensor<32x1x128xi8> -> tensor<32x2x128xi8>
  %r = tile.reshape %j : tensor<32x2x128xi8> -> tensor<64x128xi8>
  tile.store %O[%i, %i], %r {order = array<i32: 1, 0>} : !tile.global<i8, 2>, tensor<64x128xi8>
  return
}
