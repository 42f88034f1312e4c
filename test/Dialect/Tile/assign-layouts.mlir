// RUN: tile-opt %s -split-input-file --tile-assign-layouts | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=W8
// RUN: tile-opt %s -split-input-file --tile-assign-layouts=vector-bytes=4 | FileCheck %s --check-prefix=V4
// RUN: tile-opt %s -split-input-file --tile-assign-layouts="wgmma=true" | FileCheck %s --check-prefix=WG
// RUN: tile-opt %s -split-input-file --tile-assign-layouts="wgmma=true num-warps=8" | FileCheck %s --check-prefix=WG8
// RUN: not tile-opt %s -split-input-file --tile-assign-layouts=num-warps=3 2>&1 | FileCheck %s --check-prefix=BADWARPS

// tile-assign-layouts gives every tile of a kernel a layout and inserts
// tile.convert_layout where a use needs another one. Each case is a small
// kernel in a file of its own (-split-input-file), so that the layout aliases
// (#blocked, #blocked1, ...) are numbered per case.

// BADWARPS: error: num-warps must be a power of two from 1 to 32

//===----------------------------------------------------------------------===//
// Loads and stores: blocked layouts moving 16 bytes per thread along the
// tensor's contiguous dimension, lanes along it first, warps across it.
//===----------------------------------------------------------------------===//

// 64x128 f16: 8 halves (16 bytes) per thread, 16 lanes cover a 128-wide row,
// 2 rows per warp, the 4 warps stacked over rows.
// CHECK:      #[[F16:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// order = [1, 0] on the load: view dimension 0 walks the tensor's contiguous
// dimension, so the vector and the lanes go along dimension 0.
// CHECK-NEXT: #[[TRANS:blocked1]] = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// 32x32 f32: 4 floats (16 bytes) per thread, 8 lanes per row.
// CHECK-NEXT: #[[F32:blocked2]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// 4x1024 f32: a whole warp on one row, one warp per row.
// CHECK-NEXT: #[[WIDE:blocked3]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @loads
// CHECK-SAME:  attributes {tile.kernel, tile.num_warps = 4 : i32}
// CHECK-NEXT:  tile.load %{{.*}} : <f16, 2> -> tensor<64x128xf16, #[[F16]]>
// CHECK-NEXT:  tile.load %{{.*}} {order = array<i32: 1, 0>} : <f16, 2> -> tensor<128x64xf16, #[[TRANS]]>
// CHECK-NEXT:  %[[B:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<32x32xf32, #[[F32]]>
// CHECK-NEXT:  tile.load %{{.*}} : <f32, 2> -> tensor<4x1024xf32, #[[WIDE]]>
// The stored tile already has the store's layout: no conversion.
// CHECK-NEXT:  tile.store %{{.*}}, %[[B]] : <f32, 2>, tensor<32x32xf32, #[[F32]]>
// CHECK-NEXT:  return

// With 8 warps the warps still go to the rows; 4x1024 has only 4 rows, so the
// other warps split the columns.
// W8:      #blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
// W8-NEXT: #blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
// W8-NEXT: #blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
// W8-NEXT: #blocked3 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
// W8-LABEL: func.func @loads
// W8-SAME:  tile.num_warps = 8 : i32

// vector-bytes=4 (tensors only 4-byte aligned): 2 halves or 1 float per
// thread; both f32 tiles then get the same layout.
// V4:      #blocked = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// V4-NEXT: #blocked1 = #tile.blocked<sizePerThread = [2, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
// V4-NEXT: #blocked2 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// V4-NEXT: module
// V4-LABEL: func.func @loads
// V4:       tensor<32x32xf32, #blocked2>
// V4:       tensor<4x1024xf32, #blocked2>
func.func @loads(%A: !tile.global<f16, 2>, %B: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x128xf16>
  %t = tile.load %A[%i, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<128x64xf16>
  %b = tile.load %B[%i, %i] : !tile.global<f32, 2> -> tensor<32x32xf32>
  %c = tile.load %B[%i, %i] : !tile.global<f32, 2> -> tensor<4x1024xf32>
  tile.store %B[%i, %i], %b : !tile.global<f32, 2>, tensor<32x32xf32>
  return
}

// -----

// A 1-D tile: 4 floats per thread, 32 lanes, 4 warps, repeated twice to
// cover 1024 elements; the element-wise op takes its operands' layout.
// CHECK:      #[[L:blocked]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @vector_add
// CHECK-NEXT:  %[[X:.*]] = tile.load %{{.*}} : <f32, 1> -> tensor<1024xf32, #[[L]]>
// CHECK-NEXT:  %[[Y:.*]] = tile.load %{{.*}} : <f32, 1> -> tensor<1024xf32, #[[L]]>
// CHECK-NEXT:  %[[Z:.*]] = arith.addf %[[X]], %[[Y]] : tensor<1024xf32, #[[L]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[Z]] : <f32, 1>, tensor<1024xf32, #[[L]]>
// W8:      #blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// W8-LABEL: func.func @vector_add
func.func @vector_add(%A: !tile.global<f32, 1>, %B: !tile.global<f32, 1>, %C: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i] : !tile.global<f32, 1> -> tensor<1024xf32>
  %b = tile.load %B[%i] : !tile.global<f32, 1> -> tensor<1024xf32>
  %c = arith.addf %a, %b : tensor<1024xf32>
  tile.store %C[%i], %c : !tile.global<f32, 1>, tensor<1024xf32>
  return
}

// -----

// Functions without tile.kernel are left alone.
// CHECK-NOT:   #blocked
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-SAME:  (%{{.*}}: tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT:  return %{{.*}} : tensor<64xf32>
func.func @not_a_kernel(%x: tensor<64xf32>) -> tensor<64xf32> {
  return %x : tensor<64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mma: the accumulator layout on result and accumulator, the operand layouts
// on a and b, reached from the loads' blocked layouts by conversions.
// Element-wise ops, splat constants, tile.full and masks computed from
// tile.arange take the mma layout; reductions give slices of it.
//===----------------------------------------------------------------------===//

// CHECK:      #[[LA:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[LB:blocked1]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[ST:blocked2]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// 64 rows: one 16-row block per warp.
// CHECK-NEXT: #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-NEXT: #[[A:dot_a]] = #tile.dot_operand<opIdx = 0, parent = #mma>
// CHECK-NEXT: #[[B:dot_b]] = #tile.dot_operand<opIdx = 1, parent = #mma>
// CHECK-NEXT: #[[ROWS:slice]] = #tile.slice<dim = 1, parent = #mma>
// CHECK-NEXT: #[[COLS:slice1]] = #tile.slice<dim = 0, parent = #mma>
// CHECK-LABEL: func.func @mma
// CHECK-NEXT:  %[[X:.*]] = tile.load %{{.*}} : <f16, 2> -> tensor<64x32xf16, #[[LA]]>
// CHECK-NEXT:  %[[Y:.*]] = tile.load %{{.*}} : <f16, 2> -> tensor<32x64xf16, #[[LB]]>
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[XA:.*]] = tile.convert_layout %[[X]] : tensor<64x32xf16, #[[LA]]> -> tensor<64x32xf16, #[[A]]>
// CHECK-NEXT:  %[[YB:.*]] = tile.convert_layout %[[Y]] : tensor<32x64xf16, #[[LB]]> -> tensor<32x64xf16, #[[B]]>
// CHECK-NEXT:  %[[D:.*]] = tile.mma %[[XA]], %[[YB]], %[[ZERO]] : tensor<64x32xf16, #[[A]]>, tensor<32x64xf16, #[[B]]>, tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[E:.*]] = arith.mulf %[[D]], %[[TWO]] : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  arith.constant 0xFF800000 : f32
// CHECK-NEXT:  %[[NINF:.*]] = tile.full %{{.*}} : tensor<64x64xf32, #[[MMA]]>
// The row and column indices are computed directly in slices of the mma
// layout, so the mask needs no conversion at all.
// CHECK-NEXT:  %[[R:.*]] = tile.arange : tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT:  %[[C:.*]] = tile.arange : tensor<64xi32, #[[COLS]]>
// CHECK-NEXT:  %[[R2:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[ROWS]]> -> tensor<64x1xi32, #[[MMA]]>
// CHECK-NEXT:  %[[C2:.*]] = tile.expand_dims %[[C]] {axis = 0 : i32} : tensor<64xi32, #[[COLS]]> -> tensor<1x64xi32, #[[MMA]]>
// CHECK-NEXT:  %[[RB:.*]] = tile.broadcast %[[R2]] : tensor<64x1xi32, #[[MMA]]> -> tensor<64x64xi32, #[[MMA]]>
// CHECK-NEXT:  %[[CB:.*]] = tile.broadcast %[[C2]] : tensor<1x64xi32, #[[MMA]]> -> tensor<64x64xi32, #[[MMA]]>
// CHECK-NEXT:  %[[MASK:.*]] = arith.cmpi sge, %[[RB]], %[[CB]] : tensor<64x64xi32, #[[MMA]]>
// CHECK-NEXT:  %[[G:.*]] = arith.select %[[MASK]], %[[E]], %[[NINF]] : tensor<64x64xi1, #[[MMA]]>, tensor<64x64xf32, #[[MMA]]>
// Without keepdims: a slice of the mma layout; with keepdims: the mma layout.
// CHECK-NEXT:  tile.reduce max %[[G]] {axis = 1 : i32} : tensor<64x64xf32, #[[MMA]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT:  tile.reduce min %[[G]] {axis = 0 : i32} : tensor<64x64xf32, #[[MMA]]> -> tensor<64xf32, #[[COLS]]>
// CHECK-NEXT:  %[[S:.*]] = tile.reduce sum %[[G]] {axis = 1 : i32, keepdims} : tensor<64x64xf32, #[[MMA]]> -> tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT:  %[[SB:.*]] = tile.broadcast %[[S]] : tensor<64x1xf32, #[[MMA]]> -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[H:.*]] = arith.subf %[[G]], %[[SB]] : tensor<64x64xf32, #[[MMA]]>
// The store wants a blocked layout: converted right before it.
// CHECK-NEXT:  %[[HS:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[ST]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[HS]] : <f32, 2>, tensor<64x64xf32, #[[ST]]>
// CHECK-NEXT:  return

// 8 warps on 64 rows: 4 along M (16 rows each), 2 along N.
// W8:      #blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
// W8-NEXT: #blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
// W8-NEXT: #blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
// W8-NEXT: #mma = #tile.mma<warpsPerCTA = [4, 2]>
// W8-NEXT: #dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
// W8-NEXT: #dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
// W8-LABEL: func.func @mma
// W8-SAME:  tile.num_warps = 8 : i32
// W8:       tile.mma %{{.*}} : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
func.func @mma(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x32xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
  %s = arith.constant dense<2.0> : tensor<64x64xf32>
  %e = arith.mulf %d, %s : tensor<64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f = tile.full %ninf : tensor<64x64xf32>
  %r = tile.arange : tensor<64xi32>
  %c = tile.arange : tensor<64xi32>
  %r0 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c0 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %r0 : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %mask = arith.cmpi sge, %rb, %cb : tensor<64x64xi32>
  %g = arith.select %mask, %e, %f : tensor<64x64xi1>, tensor<64x64xf32>
  %m = tile.reduce max %g {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %n = tile.reduce min %g {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %k = tile.reduce sum %g {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
  %kb = tile.broadcast %k : tensor<64x1xf32> -> tensor<64x64xf32>
  %h = arith.subf %g, %kb : tensor<64x64xf32>
  tile.store %C[%i, %i], %h : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// One arange used both as rows and as columns can have only one layout: it
// gets the first slice it is reached with, and a conversion to the other
// (tile-remove-layout-conversions then re-creates it in place).
// CHECK:      #[[COLS:slice]] = #tile.slice<dim = 0, parent = #mma>
// CHECK-NEXT: #[[ROWS:slice1]] = #tile.slice<dim = 1, parent = #mma>
// CHECK-LABEL: func.func @shared_arange
// CHECK:       %[[R:.*]] = tile.arange : tensor<64xi32, #[[COLS]]>
// CHECK-NEXT:  %[[RC:.*]] = tile.convert_layout %[[R]] : tensor<64xi32, #[[COLS]]> -> tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT:  tile.expand_dims %[[RC]] {axis = 1 : i32} : tensor<64xi32, #[[ROWS]]> -> tensor<64x1xi32, #mma>
// CHECK-NEXT:  tile.expand_dims %[[R]] {axis = 0 : i32} : tensor<64xi32, #[[COLS]]> -> tensor<1x64xi32, #mma>
func.func @shared_arange(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x16xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>
  %r = tile.arange : tensor<64xi32>
  %r0 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %r1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb0 = tile.broadcast %r0 : tensor<64x1xi32> -> tensor<64x64xi32>
  %rb1 = tile.broadcast %r1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %mask = arith.cmpi sge, %rb0, %rb1 : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %g = arith.select %mask, %d, %zero : tensor<64x64xi1>, tensor<64x64xf32>
  tile.store %C[%i, %i], %g : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions of a blocked tile: a slice of the blocked layout, or the blocked
// layout itself with keepdims.
//===----------------------------------------------------------------------===//

// CHECK:      #[[L:blocked]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[S:slice]] = #tile.slice<dim = 1, parent = #blocked>
// CHECK-LABEL: func.func @reduce_blocked
// CHECK-NEXT:  %[[X:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<4x1024xf32, #[[L]]>
// CHECK-NEXT:  tile.reduce max %[[X]] {axis = 1 : i32} : tensor<4x1024xf32, #[[L]]> -> tensor<4xf32, #[[S]]>
// CHECK-NEXT:  %[[K:.*]] = tile.reduce sum %[[X]] {axis = 1 : i32, keepdims} : tensor<4x1024xf32, #[[L]]> -> tensor<4x1xf32, #[[L]]>
// CHECK-NEXT:  %[[KB:.*]] = tile.broadcast %[[K]] : tensor<4x1xf32, #[[L]]> -> tensor<4x1024xf32, #[[L]]>
// CHECK-NEXT:  %[[Y:.*]] = tile.div %[[X]], %[[KB]] approx : tensor<4x1024xf32, #[[L]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[Y]] : <f32, 2>, tensor<4x1024xf32, #[[L]]>
func.func @reduce_blocked(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<4x1024xf32>
  %m = tile.reduce max %x {axis = 1 : i32} : tensor<4x1024xf32> -> tensor<4xf32>
  %s = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<4x1024xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s : tensor<4x1xf32> -> tensor<4x1024xf32>
  %y = tile.div %x, %sb approx : tensor<4x1024xf32>
  tile.store %X[%i, %i], %y : !tile.global<f32, 2>, tensor<4x1024xf32>
  return
}

// -----

// A tile reduced along both axes (a row's sum and its columns' sums, as a
// layer norm's backward takes them): the warps go to the larger dimension,
// the columns, so that the columns' sums stay in threads and the rows' sums
// cross warps with 4 x 4 partials (warps on the rows would exchange 1024 x
// 4 through shared memory).
// CHECK:      #[[L2:blocked]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @reduce_both_axes
// CHECK-NEXT:  %[[X:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<4x1024xf32, #[[L2]]>
// CHECK-NEXT:  tile.reduce sum %[[X]] {axis = 1 : i32, keepdims} : tensor<4x1024xf32, #[[L2]]>
// CHECK-NEXT:  tile.reduce sum %[[X]] {axis = 0 : i32, keepdims} : tensor<4x1024xf32, #[[L2]]>
func.func @reduce_both_axes(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<4x1024xf32>
  %r = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<4x1024xf32> -> tensor<4x1xf32>
  %c = tile.reduce sum %x {axis = 0 : i32, keepdims} : tensor<4x1024xf32> -> tensor<1x1024xf32>
  tile.store %X[%i, %i], %r : !tile.global<f32, 2>, tensor<4x1xf32>
  tile.store %X[%i, %i], %c : !tile.global<f32, 2>, tensor<1x1024xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Loops: iteration values, their inits, yields and results share a layout.
//===----------------------------------------------------------------------===//

// CHECK:      #[[LA:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[LB:blocked1]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-NEXT: #[[A:dot_a]] = #tile.dot_operand<opIdx = 0, parent = #mma>
// CHECK-NEXT: #[[B:dot_b]] = #tile.dot_operand<opIdx = 1, parent = #mma>
// CHECK-LABEL: func.func @loop
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT:  %[[R:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]], %[[M:.*]] = %[[NINF]]) -> (tensor<64x64xf32, #[[MMA]]>, tensor<64x1xf32, #[[MMA]]>) : i32 {
// CHECK-NEXT:    %[[X:.*]] = tile.load %{{.*}} : <f16, 2> -> tensor<64x16xf16, #[[LA]]>
// CHECK-NEXT:    %[[Y:.*]] = tile.load %{{.*}} : <f16, 2> -> tensor<16x64xf16, #[[LB]]>
// CHECK-NEXT:    %[[XA:.*]] = tile.convert_layout %[[X]] : tensor<64x16xf16, #[[LA]]> -> tensor<64x16xf16, #[[A]]>
// CHECK-NEXT:    %[[YB:.*]] = tile.convert_layout %[[Y]] : tensor<16x64xf16, #[[LB]]> -> tensor<16x64xf16, #[[B]]>
// CHECK-NEXT:    %[[D:.*]] = tile.mma %[[XA]], %[[YB]], %[[ACC]] : tensor<64x16xf16, #[[A]]>, tensor<16x64xf16, #[[B]]>, tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:    %[[RM:.*]] = tile.reduce max %[[D]] {axis = 1 : i32, keepdims} : tensor<64x64xf32, #[[MMA]]> -> tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT:    %[[M2:.*]] = arith.maximumf %[[M]], %[[RM]] : tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT:    scf.yield %[[D]], %[[M2]] : tensor<64x64xf32, #[[MMA]]>, tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT:  }
// The loop result keeps the mma layout, and so does the truncf (its operand's
// layout: the store's is only a preference), so the conversion to the
// store's layout happens on the f16 tile.
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[R]]#0 : tensor<64x64xf32, #[[MMA]]> to tensor<64x64xf16, #[[MMA]]>
// CHECK-NEXT:  %[[HC:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #[[LB]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[HC]] : <f16, 2>, tensor<64x64xf16, #[[LB]]>
func.func @loop(%A: !tile.global<f16, 2>, %C: !tile.global<f16, 2>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x1xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %m = %ninf) -> (tensor<64x64xf32>, tensor<64x1xf32>) : i32 {
    %a = tile.load %A[%c0, %k] : !tile.global<f16, 2> -> tensor<64x16xf16>
    %b = tile.load %A[%k, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16>
    %d = tile.mma %a, %b, %acc : tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>
    %rm = tile.reduce max %d {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
    %m2 = arith.maximumf %m, %rm : tensor<64x1xf32>
    scf.yield %d, %m2 : tensor<64x64xf32>, tensor<64x1xf32>
  }
  %h = arith.truncf %r#0 : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %C[%c0, %c0], %h : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reshapes of unit dimensions and permutes carry a blocked layout through.
//===----------------------------------------------------------------------===//

// CHECK:      #[[L4:blocked]] = #tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 2, 16], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>
// CHECK-NEXT: #[[L2:blocked1]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[LT:blocked2]] = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-NEXT: #[[LS:blocked3]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @reshape_permute
// CHECK-NEXT:  %[[Q:.*]] = tile.load %{{.*}} : <f16, 4> -> tensor<1x1x64x128xf16, #[[L4]]>
// CHECK-NEXT:  %[[Q2:.*]] = tile.reshape %[[Q]] : tensor<1x1x64x128xf16, #[[L4]]> -> tensor<64x128xf16, #[[L2]]>
// CHECK-NEXT:  %[[QT:.*]] = tile.permute %[[Q2]] [1, 0] : tensor<64x128xf16, #[[L2]]> -> tensor<128x64xf16, #[[LT]]>
// The store of the transposed tile wants a row-major blocked layout.
// CHECK-NEXT:  %[[QC:.*]] = tile.convert_layout %[[QT]] : tensor<128x64xf16, #[[LT]]> -> tensor<128x64xf16, #[[LS]]>
// CHECK-NEXT:  tile.store %{{.*}}, %[[QC]] : <f16, 2>, tensor<128x64xf16, #[[LS]]>
func.func @reshape_permute(%Q: !tile.global<f16, 4>, %O: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel} {
  %q = tile.load %Q[%i, %i, %i, %i] : !tile.global<f16, 4> -> tensor<1x1x64x128xf16>
  %q2 = tile.reshape %q : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
  %qt = tile.permute %q2 [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  tile.store %O[%i, %i], %qt : !tile.global<f16, 2>, tensor<128x64xf16>
  return
}

// -----

// A tile loaded, permuted and stored (a transpose): each thread also holds
// runs along the dimension that the store writes contiguously, a square of
// 8 x 8 halves where the tile has 64 elements a thread (4 x 8 on 8 warps),
// and 8 lanes go along that dimension first, so that one transposed row of
// a thread is one 16-byte write and the 8 lanes of a write cover 128 bytes
// of a row. A tile with 8 elements a thread keeps the plain load layout.
// CHECK:      #[[SQ:blocked]] = #tile.blocked<sizePerThread = [8, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]>
// CHECK-NEXT: #[[SQT:blocked1]] = #tile.blocked<sizePerThread = [8, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]>
// CHECK-LABEL: func.func @transpose_tile
// CHECK-NEXT:  tile.load %{{.*}} : <f16, 2> -> tensor<128x64xf16, #[[SQ]]>
// CHECK-NEXT:  tile.permute %{{.*}} [1, 0] : tensor<128x64xf16, #[[SQ]]> -> tensor<64x128xf16, #[[SQT]]>
// W8:         #[[SQ8:blocked]] = #tile.blocked<sizePerThread = [4, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 2], order = [1, 0]>
// W8-LABEL:   func.func @transpose_tile
// W8-NEXT:    tile.load %{{.*}} : <f16, 2> -> tensor<128x64xf16, #[[SQ8]]>
func.func @transpose_tile(%X: !tile.global<f16, 2>, %Y: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16>
  %t = tile.permute %x [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
  tile.store %Y[%i, %i], %t : !tile.global<f16, 2>, tensor<64x128xf16>
  return
}

// -----

// CHECK:      #[[SMALL:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @transpose_small
// CHECK-NEXT:  tile.load %{{.*}} : <f16, 2> -> tensor<32x32xf16, #[[SMALL]]>
func.func @transpose_small(%X: !tile.global<f16, 2>, %Y: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<32x32xf16>
  %t = tile.permute %x [1, 0] : tensor<32x32xf16> -> tensor<32x32xf16>
  tile.store %Y[%i, %i], %t : !tile.global<f16, 2>, tensor<32x32xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// wgmma (sm_90a): with `wgmma`, an mma whose result has 64 rows for every
// warpgroup of 4 warps (and N a multiple of 8) gets the version-3 layout,
// all warps along M, instrShape [64, min(N, 256), 16]; its operands get the
// dot_operand layouts of it.
//===----------------------------------------------------------------------===//

// A GEMM, 128 x 128 x 64. Without wgmma: the mma.sync layout, warps 2 x 2.
// CHECK:       #[[MMA:mma]] = #tile.mma<warpsPerCTA = [2, 2]>
// CHECK-LABEL: func.func @gemm_wgmma
// CHECK:       tile.mma %{{.*}} : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #[[MMA]]>
// With wgmma: one warpgroup, two 64-row blocks of it.
// WG:          #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
// WG-NEXT:     #[[A:dot_a]] = #tile.dot_operand<opIdx = 0, parent = #mma>
// WG-NEXT:     #[[B:dot_b]] = #tile.dot_operand<opIdx = 1, parent = #mma>
// WG-LABEL:    func.func @gemm_wgmma
// WG:          %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[MMA]]>
// WG-NEXT:     %[[XA:.*]] = tile.convert_layout %{{.*}} -> tensor<128x64xf16, #[[A]]>
// WG-NEXT:     %[[YB:.*]] = tile.convert_layout %{{.*}} -> tensor<64x128xf16, #[[B]]>
// WG-NEXT:     tile.mma %[[XA]], %[[YB]], %[[Z]] : tensor<128x64xf16, #[[A]]>, tensor<64x128xf16, #[[B]]>, tensor<128x128xf32, #[[MMA]]>
// 8 warps: two warpgroups, one 64-row block each.
// WG8:         #mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 128, 16]>
// WG8-LABEL:   func.func @gemm_wgmma
// WG8-SAME:    tile.num_warps = 8 : i32
// WG8:         tile.mma %{{.*}} : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #mma>
func.func @gemm_wgmma(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x128xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.mma %a, %b, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<128x128xf32>
  return
}

// -----

// B loaded in 8 bits and widened to 16 on its way to the multiply (weights
// dequantized): the load's vector holds 8 elements, one 16-byte chunk of
// the operand's type, so that the operand's store into its swizzled buffer
// is free of bank conflicts; an 8-bit tile that is not widened into B keeps
// its 16-byte vector of 16.
// WG-DAG:      #[[B8:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// WG-DAG:      #[[B16:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// WG-LABEL:    func.func @gemm_dequantized_b
// WG:          tile.load %{{.*}} -> tensor<64x256xf8E4M3FN, #[[B8]]>
// WG:          tile.load %{{.*}} -> tensor<64x256xf8E4M3FN, #[[B16]]>
// CHECK-LABEL: func.func @gemm_dequantized_b
// W8-LABEL:    func.func @gemm_dequantized_b
// V4-LABEL:    func.func @gemm_dequantized_b
// WG8-LABEL:   func.func @gemm_dequantized_b
func.func @gemm_dequantized_b(%A: !tile.global<bf16, 2>, %B: !tile.global<f8E4M3FN, 2>, %C: !tile.global<f32, 2>, %D: !tile.global<f8E4M3FN, 2>, %i: i32, %s: f32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<bf16, 2> -> tensor<128x64xbf16>
  %b = tile.load %B[%i, %i] : !tile.global<f8E4M3FN, 2> -> tensor<64x256xf8E4M3FN>
  %bf = arith.extf %b : tensor<64x256xf8E4M3FN> to tensor<64x256xf32>
  %sc = tile.full %s : tensor<64x256xf32>
  %bs = arith.mulf %bf, %sc : tensor<64x256xf32>
  %bh = arith.truncf %bs : tensor<64x256xf32> to tensor<64x256xbf16>
  %z = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = tile.mma %a, %bh, %z : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<128x256xf32>
  %e = tile.load %B[%i, %i] : !tile.global<f8E4M3FN, 2> -> tensor<64x256xf8E4M3FN>
  tile.store %D[%i, %i], %e : !tile.global<f8E4M3FN, 2>, tensor<64x256xf8E4M3FN>
  return
}

// -----

// N above 256: the instruction takes 256 columns at a time.
// WG:          #mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 256, 16]>
// WG-LABEL:    func.func @gemm_wide
// 8 warps on 64 rows: the second warpgroup takes the other half of the
// columns (64 x 256 each, one instruction).
// WG8:         #mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 256, 16]>
// WG8-LABEL:   func.func @gemm_wide
// WG:          tile.mma %{{.*}} : tensor<64x32xf16, #dot_a>, tensor<32x512xf16, #dot_b>, tensor<64x512xf32, #mma>
func.func @gemm_wide(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x32xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<32x512xf16>
  %z = arith.constant dense<0.0> : tensor<64x512xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf16>, tensor<32x512xf16>, tensor<64x512xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<64x512xf32>
  return
}

// -----

// Warpgroups along N need parts that B's shared layout can be entered at
// with one offset: 32 columns of a B read along K (loaded with order =
// [1, 0], as K^T in attention) split; so do 32 columns of a B read along N
// (64 bytes: tile-stage-mma-operands swizzles its buffer in blocks of 32
// columns, stage-mma-operands.mlir). Both get the same wgmma layout.
// WG8:         #[[SPLIT:mma]] = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
// WG8-NOT:     #tile.mma<
// WG8-LABEL:   func.func @gemm_split_b_order
// WG8:         tile.mma {{.*}} tensor<64x64xf32, #[[SPLIT]]>
// WG8:         tile.mma {{.*}} tensor<64x64xf32, #[[SPLIT]]>
func.func @gemm_split_b_order(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x128xf16>
  %bt = tile.load %A[%i, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<128x64xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %bt, %z : tensor<64x128xf16>, tensor<128x64xf16>, tensor<64x64xf32>
  %e = tile.mma %a, %b, %z2 : tensor<64x128xf16>, tensor<128x64xf16>, tensor<64x64xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<64x64xf32>
  tile.store %C[%i, %i], %e : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// Attention: S = Q K^T (128 x 128), a row max, exp2, truncf to f16 (P),
// O = P V (128 x 64). Both mmas get version-3 layouts (instrShape N 128 and
// 64); the reduction and element-wise ops stay in S's layout, and P is
// converted from it to the dot_operand A layout of O's layout, which keeps
// it in registers (tile-stage-mma-operands then feeds wgmma from them).
// WG:          #[[S:mma]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
// WG-NEXT:     #[[O:mma1]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
// WG-NEXT:     #[[QA:dot_a]] = #tile.dot_operand<opIdx = 0, parent = #mma>
// WG-NEXT:     #[[PA:dot_a1]] = #tile.dot_operand<opIdx = 0, parent = #mma1>
// WG-NEXT:     #[[KB:dot_b]] = #tile.dot_operand<opIdx = 1, parent = #mma>
// WG-NEXT:     #[[VB:dot_b1]] = #tile.dot_operand<opIdx = 1, parent = #mma1>
// WG-LABEL:    func.func @attention_wgmma
// WG:          %[[SV:.*]] = tile.mma %{{.*}} : tensor<128x64xf16, #[[QA]]>, tensor<64x128xf16, #[[KB]]>, tensor<128x128xf32, #[[S]]>
// WG-NEXT:     %[[M:.*]] = tile.reduce max %[[SV]] {axis = 1 : i32, keepdims} : tensor<128x128xf32, #[[S]]> -> tensor<128x1xf32, #[[S]]>
// WG-NEXT:     %[[MB:.*]] = tile.broadcast %[[M]] : tensor<128x1xf32, #[[S]]> -> tensor<128x128xf32, #[[S]]>
// WG-NEXT:     %[[D:.*]] = arith.subf %[[SV]], %[[MB]] : tensor<128x128xf32, #[[S]]>
// WG-NEXT:     %[[E:.*]] = math.exp2 %[[D]] : tensor<128x128xf32, #[[S]]>
// WG-NEXT:     %[[P:.*]] = arith.truncf %[[E]] : tensor<128x128xf32, #[[S]]> to tensor<128x128xf16, #[[S]]>
// WG-NEXT:     %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #[[O]]>
// WG-NEXT:     %[[PC:.*]] = tile.convert_layout %[[P]] : tensor<128x128xf16, #[[S]]> -> tensor<128x128xf16, #[[PA]]>
// WG-NEXT:     %[[VC:.*]] = tile.convert_layout %{{.*}} -> tensor<128x64xf16, #[[VB]]>
// WG-NEXT:     %[[OV:.*]] = tile.mma %[[PC]], %[[VC]], %[[Z]] : tensor<128x128xf16, #[[PA]]>, tensor<128x64xf16, #[[VB]]>, tensor<128x64xf32, #[[O]]>
// WG-NEXT:     tile.convert_layout %[[OV]] : tensor<128x64xf32, #[[O]]> -> tensor<128x64xf32, #blocked{{[0-9]*}}>
func.func @attention_wgmma(%Q: !tile.global<f16, 2>, %K: !tile.global<f16, 2>, %V: !tile.global<f16, 2>, %O: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %q = tile.load %Q[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16>
  %k = tile.load %K[%i, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<64x128xf16>
  %v = tile.load %V[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %s = tile.mma %q, %k, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
  %m = tile.reduce max %s {axis = 1 : i32, keepdims} : tensor<128x128xf32> -> tensor<128x1xf32>
  %mb = tile.broadcast %m : tensor<128x1xf32> -> tensor<128x128xf32>
  %d = arith.subf %s, %mb : tensor<128x128xf32>
  %e = math.exp2 %d : tensor<128x128xf32>
  %p = arith.truncf %e : tensor<128x128xf32> to tensor<128x128xf16>
  %z2 = arith.constant dense<0.0> : tensor<128x64xf32>
  %o = tile.mma %p, %v, %z2 : tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32>
  tile.store %O[%i, %i], %o : !tile.global<f32, 2>, tensor<128x64xf32>
  return
}

// -----

// Too few rows for wgmma: with 4 warps (one warpgroup, 64 rows), the
// 32-row mma falls back to the mma.sync layout while the 64-row one in the
// same kernel gets version 3; with 8 warps (two warpgroups, 128 rows) the
// 32-row one falls back to the mma.sync layout it has without wgmma, and
// the 64-row one splits its 64 columns between the two warpgroups.
// WG:          #[[V2:mma]] = #tile.mma<warpsPerCTA = [2, 2]>
// WG-NEXT:     #[[V3:mma1]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
// WG-LABEL:    func.func @wgmma_fallback
// WG:          tile.mma %{{.*}} : tensor<32x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<32x64xf32, #[[V2]]>
// WG:          tile.mma %{{.*}} : tensor<64x64xf16, #dot_a1>, tensor<64x64xf16, #dot_b1>, tensor<64x64xf32, #[[V3]]>
// WG8:         #mma = #tile.mma<warpsPerCTA = [2, 4]>
// WG8-NEXT:    #mma1 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
// WG8-NEXT:    #dot_a
// WG8-LABEL:   func.func @wgmma_fallback
// WG8:         tile.mma %{{.*}} : tensor<32x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<32x64xf32, #mma>
// WG8:         tile.mma %{{.*}} : tensor<64x64xf16, #dot_a1>, tensor<64x64xf16, #dot_b1>, tensor<64x64xf32, #mma1>
// W8:          #mma = #tile.mma<warpsPerCTA = [2, 4]>
// W8-NEXT:     #mma1 = #tile.mma<warpsPerCTA = [4, 2]>
// W8-LABEL:    func.func @wgmma_fallback
func.func @wgmma_fallback(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %d = tile.mma %a, %b, %z : tensor<32x64xf16>, tensor<64x64xf16>, tensor<32x64xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<32x64xf32>
  %a2 = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %d2 = tile.mma %a2, %b, %z2 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %C[%i, %i], %d2 : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// wgmma reads its operands through swizzles of at least 32-byte rows: an N
// or a K under 16 (f16) keeps mma.sync (version 2).
// WG-LABEL:    func.func @wgmma_narrow
// WG:          tile.mma %{{.*}} : tensor<64x16xf16, {{.*}}>, tensor<16x8xf16, {{.*}}>, tensor<64x8xf32, #mma>
// WG:          tile.mma %{{.*}} : tensor<64x8xf16, {{.*}}>, tensor<8x64xf16, {{.*}}>, tensor<64x64xf32, #mma1>
// WG-NOT:      version = 3
func.func @wgmma_narrow(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x16xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<16x8xf16>
  %z = arith.constant dense<0.0> : tensor<64x8xf32>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x8xf16>, tensor<64x8xf32>
  tile.store %C[%i, %i], %d : !tile.global<f32, 2>, tensor<64x8xf32>
  %a2 = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x8xf16>
  %b2 = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<8x64xf16>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %d2 = tile.mma %a2, %b2, %z2 : tensor<64x8xf16>, tensor<8x64xf16>, tensor<64x64xf32>
  tile.store %C[%i, %i], %d2 : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A store with the tile's shape given (its value without the unit
// dimensions) takes a load's layout on the value's dimensions: along the
// tensor's contiguous dimension, wherever `order` puts it among them.
// CHECK:      #[[ROWS:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[COLS:blocked1]] = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @store_shape
// CHECK-NEXT:  tile.full %{{.*}} : tensor<64x128xf16, #[[ROWS]]>
// CHECK-NEXT:  tile.store {{.*}} {shape = array<i64: 1, 64, 128>} : <f16, 3>, tensor<64x128xf16, #[[ROWS]]>
// CHECK-NEXT:  tile.full %{{.*}} : tensor<128x64xf16, #[[COLS]]>
// CHECK-NEXT:  tile.store {{.*}} {order = array<i32: 0, 2, 1>, shape = array<i64: 1, 128, 64>} : <f16, 3>, tensor<128x64xf16, #[[COLS]]>
func.func @store_shape(%O: !tile.global<f16, 3>, %i: i32, %x: f16) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %v = tile.full %x : tensor<64x128xf16>
  tile.store %O[%i, %i, %i], %v {shape = array<i64: 1, 64, 128>} : !tile.global<f16, 3>, tensor<64x128xf16>
  %t = tile.full %x : tensor<128x64xf16>
  tile.store %O[%i, %i, %i], %t {order = array<i32: 0, 2, 1>, shape = array<i64: 1, 128, 64>} : !tile.global<f16, 3>, tensor<128x64xf16>
  return
}

// -----

// A slice keeps its blocked source's layout (so that a slice at a multiple
// of its shape stays in the threads that hold it); the slice at 16 of 32
// columns is at no multiple of its width, so the load keeps its own layout
// (that slice goes through shared memory in any). A concatenation not held
// where its inputs are takes its layout from its use, here the store's,
// which spans the 32 columns of the tiles joined.
// CHECK-DAG:  #[[B:blocked]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG:  #[[J:blocked[0-9]+]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @slices
// CHECK:       %[[X:.*]] = tile.load {{.*}} -> tensor<64x64xf32, #[[B]]>
// CHECK-NEXT:  %[[A:.*]] = tile.extract %[[X]] [0, 16] : tensor<64x64xf32, #[[B]]> -> tensor<64x32xf32, #[[B]]>
// CHECK-NEXT:  %[[C:.*]] = tile.concat %[[A]], %[[A]] {axis = 1 : i32} : tensor<64x32xf32, #[[B]]>, tensor<64x32xf32, #[[B]]> -> tensor<64x64xf32, #[[J]]>
// CHECK-NEXT:  tile.store {{.*}} : <f32, 2>, tensor<64x64xf32, #[[J]]>
func.func @slices(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<64x64xf32>
  %a = tile.extract %x [0, 16] : tensor<64x64xf32> -> tensor<64x32xf32>
  %c = tile.concat %a, %a {axis = 1 : i32} : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x64xf32>
  tile.store %X[%i, %i], %c : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// Rotary embedding's halves: a loaded row tile sliced at 0 and 64 of its
// 128 columns, combined elementwise, joined back and stored. The load's
// layout spans 64 columns (8 lanes of 8-element vectors; each thread also
// holds the element 64 columns on), so both halves, the arithmetic, the
// join and the store stay in the threads that hold them: no conversion.
// CHECK:       #[[H:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @halves
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.load {{.*}} -> tensor<32x128xf16, #[[H]]>
// CHECK:       tile.extract {{.*}} [0, 0] : tensor<32x128xf16, #[[H]]> -> tensor<32x64xf16, #[[H]]>
// CHECK:       tile.extract {{.*}} [0, 64] : tensor<32x128xf16, #[[H]]> -> tensor<32x64xf16, #[[H]]>
// CHECK:       tile.concat {{.*}} -> tensor<32x128xf16, #[[H]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store {{.*}} tensor<32x128xf16, #[[H]]>
func.func @halves(%X: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<32x128xf16>
  %a = tile.extract %x [0, 0] : tensor<32x128xf16> -> tensor<32x64xf16>
  %b = tile.extract %x [0, 64] : tensor<32x128xf16> -> tensor<32x64xf16>
  %n = arith.negf %b : tensor<32x64xf16>
  %s = arith.addf %a, %b : tensor<32x64xf16>
  %c = tile.concat %n, %s {axis = 1 : i32} : tensor<32x64xf16>, tensor<32x64xf16> -> tensor<32x128xf16>
  tile.store %X[%i, %i], %c : !tile.global<f16, 2>, tensor<32x128xf16>
  return
}

// -----

// A gather gets a load's layout (vectors along the last dimension), and its
// index tiles take it back to their sources: the broadcast row and column
// indices need no conversion. A scatter's value and indices get the layout
// a store of the value would have.
// CHECK:      #[[G:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @gather
// CHECK-NOT:   tile.convert_layout
// CHECK:       %[[R:.*]] = tile.broadcast {{.*}} -> tensor<64x128xi32, #[[G]]>
// CHECK:       %[[C:.*]] = tile.broadcast {{.*}} -> tensor<64x128xi32, #[[G]]>
// CHECK-NEXT:  %[[X:.*]] = tile.gather %arg0[%[[R]], %[[C]]] : <f16, 2>[tensor<64x128xi32, #[[G]]>, tensor<64x128xi32, #[[G]]>] -> tensor<64x128xf16, #[[G]]>
// CHECK-NEXT:  tile.scatter %arg0[%[[C]], %[[R]]], %[[X]] : <f16, 2>[tensor<64x128xi32, #[[G]]>, tensor<64x128xi32, #[[G]]>], tensor<64x128xf16, #[[G]]>
func.func @gather(%E: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.arange : tensor<64xi32>
  %r1 = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c0 = tile.arange : tensor<128xi32>
  %c1 = tile.expand_dims %c0 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %r = tile.broadcast %r1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %x = tile.gather %E[%r, %c] : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  tile.scatter %E[%c, %r], %x : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf16>
  return
}

// -----

// The boxes of a gathered load are held whole by every thread (each thread,
// or the one issuing a TMA copy, picks the box of its rows): the page
// numbers' load and reshape take a replicated layout, as do boxes computed
// from an arange; the load's own result keeps its coalesced layout.
// CHECK:      #[[REP2:blocked]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-NEXT: #[[REP1:blocked1]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-NEXT: #[[ROWS:blocked2]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[REP8:blocked3]] = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @gathered_boxes
// CHECK:       tile.load %arg1[{{.*}}] : <i32, 2> -> tensor<1x4xi32, #[[REP2]]>
// CHECK-NEXT:  tile.reshape {{.*}} -> tensor<4xi32, #[[REP1]]>
// CHECK-NEXT:  tile.load %arg0[{{.*}}] boxes({{.*}} : tensor<4xi32, #[[REP1]]>) {box_dim = 0 : i32} : <f16, 2> -> tensor<64x64xf16, #[[ROWS]]>
// CHECK:       tile.arange : tensor<8xi32, #[[REP8]]>
// CHECK-NEXT:  tile.load %arg0[{{.*}}] boxes({{.*}} : tensor<8xi32, #[[REP8]]>) {box_dim = 0 : i32}
func.func @gathered_boxes(%K: !tile.global<f16, 2>, %T: !tile.global<i32, 2>, %O: !tile.global<f16, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %T[%c0, %c0] : !tile.global<i32, 2> -> tensor<1x4xi32>
  %p = tile.reshape %t : tensor<1x4xi32> -> tensor<4xi32>
  %k = tile.load %K[%c0, %c0] boxes(%p : tensor<4xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  tile.store %O[%c0, %c0], %k : !tile.global<f16, 2>, tensor<64x64xf16>
  %r = tile.arange : tensor<8xi32>
  %k2 = tile.load %K[%c0, %c0] boxes(%r : tensor<8xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  tile.store %O[%c0, %c0], %k2 : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// A tile reduced along a dimension (through ops that keep its shape) gets
// its warps on the other dimensions first: the reduction stays within each
// thread (or warp) instead of going through shared memory. Here 2 partial
// outputs of 16 x 128 summed over the first dimension: the warps go along
// the 16 rows, each thread holds both partials of its elements.
//===----------------------------------------------------------------------===//

// CHECK:      #[[PARTS:blocked]] = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
// CHECK:      #[[SLOWEST:blocked2]] = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 1, 32], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
// CHECK:      #[[SLICE:slice]] = #tile.slice<dim = 0, parent = #[[PARTS]]>
// CHECK-LABEL: func.func @reduced_dim_keeps_warps_off
// CHECK:       %[[O:.*]] = tile.load %{{.*}} : <f32, 3> -> tensor<2x16x128xf32, #[[PARTS]]>
// CHECK:       %[[W:.*]] = arith.mulf %[[O]], %[[O]] : tensor<2x16x128xf32, #[[PARTS]]>
// CHECK:       tile.reduce sum %[[W]] {axis = 0 : i32} : tensor<2x16x128xf32, #[[PARTS]]> -> tensor<16x128xf32, #[[SLICE]]>
// Without the reduction the warps take the slowest dimension first.
// CHECK:      tile.load %{{.*}} : <f32, 3> -> tensor<2x16x128xf32, #[[SLOWEST]]>
func.func @reduced_dim_keeps_warps_off(%P: !tile.global<f32, 3>, %O: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %o = tile.load %P[%i, %i, %i] : !tile.global<f32, 3> -> tensor<2x16x128xf32>
  %w = arith.mulf %o, %o : tensor<2x16x128xf32>
  %s = tile.reduce sum %w {axis = 0 : i32} : tensor<2x16x128xf32> -> tensor<16x128xf32>
  tile.store %O[%i, %i], %s : !tile.global<f32, 2>, tensor<16x128xf32>
  %p = tile.load %P[%i, %i, %i] : !tile.global<f32, 3> -> tensor<2x16x128xf32>
  tile.store %P[%i, %i, %i], %p : !tile.global<f32, 3>, tensor<2x16x128xf32>
  return
}

// -----

// A column sum: the tile is reduced along its rows, across its contiguous
// columns. The lanes would all go to the 256 columns (8 x 32) and the warps
// to the rows, each reduction crossing warps through shared memory; the
// reduced rows get 4 lanes from the columns instead (8 left: 128 bytes a
// row), and the warps go to the columns: the reduction stays in warps.
// CHECK:       #[[C:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @column_sum
// CHECK:       tile.load {{.*}} -> tensor<64x256xf16, #[[C]]>
// CHECK:       tile.reduce sum {{.*}} {axis = 0 : i32, keepdims} : tensor<64x256xf32, #[[C]]>
func.func @column_sum(%X: !tile.global<f16, 2>, %O: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<64x256xf16>
  %f = arith.extf %x : tensor<64x256xf16> to tensor<64x256xf32>
  %s = tile.reduce sum %f {axis = 0 : i32, keepdims} : tensor<64x256xf32> -> tensor<1x256xf32>
  tile.store %O[%i, %i], %s : !tile.global<f32, 2>, tensor<1x256xf32>
  return
}

// -----

// A row sum of a loop's accumulator, stored as a vector (y = W x written
// with a (16, 512) product summed along its rows): the reduction's result
// keeps the reduced source's layout (a slice of it), and the store's
// layout comes by a conversion, not by retyping the reduction's result
// (whose lowering leaves each sum where the source's rows were); the
// rounding keeps the slice (its operand's layout), the conversion moves
// 16 bits.
// CHECK-LABEL: func.func @loop_row_sum_stored
// CHECK:       %[[ACC:.*]] = scf.for
// CHECK:       %[[S:.*]] = tile.reduce sum %[[ACC]] {axis = 1 : i32} : tensor<16x512xf32, #[[L:.*]]> -> tensor<16xf32, #[[SL:.*]]>
// CHECK:       %[[T:.*]] = arith.truncf %[[S]] : tensor<16xf32, #[[SL]]> to tensor<16xbf16, #[[SL]]>
// CHECK:       tile.convert_layout %[[T]] : tensor<16xbf16, #[[SL]]> -> tensor<16xbf16, #[[B:.*]]>
// CHECK:       tile.store
func.func @loop_row_sum_stored(%W: !tile.global<bf16, 2>, %Y: !tile.global<bf16, 1>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<16x512xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x512xf32>) : i32 {
    %w = tile.load %W[%i, %k] : !tile.global<bf16, 2> -> tensor<16x512xbf16>
    %f = arith.extf %w : tensor<16x512xbf16> to tensor<16x512xf32>
    %s = arith.addf %a, %f : tensor<16x512xf32>
    scf.yield %s : tensor<16x512xf32>
  }
  %r = tile.reduce sum %acc {axis = 1 : i32} : tensor<16x512xf32> -> tensor<16xf32>
  %t = arith.truncf %r : tensor<16xf32> to tensor<16xbf16>
  tile.store %Y[%i], %t : !tile.global<bf16, 1>, tensor<16xbf16>
  return
}

// -----

// Heads split from a row: a (64, 8, 64) view permuted to (8, 64, 64) keeps
// the contiguous dimension and its 16-byte vectors, 8 lanes a 128-byte run
// of each row; the store writes it as it is held, with no conversion. A
// permute that moves the contiguous dimension is still converted.
// CHECK-LABEL: func.func @split_heads_store
// CHECK:       %[[P:.*]] = tile.permute {{.*}} -> tensor<8x64x64xbf16, #[[L:.*]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store {{.*}}, %[[P]] : <bf16, 3>, tensor<8x64x64xbf16, #[[L]]>
// CHECK:       %[[T:.*]] = tile.permute {{.*}} -> tensor<64x64xbf16
// CHECK:       %[[C:.*]] = tile.convert_layout %[[T]]
// CHECK:       tile.store {{.*}}, %[[C]]
func.func @split_heads_store(%X: !tile.global<bf16, 2>, %Q: !tile.global<bf16, 3>, %Y: !tile.global<bf16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%i, %c0] : !tile.global<bf16, 2> -> tensor<64x512xbf16>
  %r = tile.reshape %x : tensor<64x512xbf16> -> tensor<64x8x64xbf16>
  %p = tile.permute %r [1, 0, 2] : tensor<64x8x64xbf16> -> tensor<8x64x64xbf16>
  tile.store %Q[%c0, %i, %c0], %p : !tile.global<bf16, 3>, tensor<8x64x64xbf16>
  %y = tile.load %Y[%i, %i] : !tile.global<bf16, 2> -> tensor<64x64xbf16>
  %t = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  tile.store %Y[%i, %i], %t : !tile.global<bf16, 2>, tensor<64x64xbf16>
  return
}

// -----

// A vector only broadcast along the rows of a tile (x of y = W x) takes its
// layout from the broadcast: a slice of the product's layout, each warp
// reading the whole vector, so that no trip converts it through shared
// memory. The same vector in a loop of multiplies keeps a load's layout (the
// pipeline stages such loads, in blocked layouts).
// CHECK-DAG:   #[[XS:slice[0-9]*]] = #tile.slice<dim = 0, parent = #[[WL:blocked[0-9]*]]>
// CHECK-LABEL: func.func @vector_broadcast_in_loop
// WG-LABEL:    func.func @vector_broadcast_in_loop
// CHECK:       scf.for
// CHECK:       tile.load %arg0{{.*}} -> tensor<16x512xbf16, #[[WL]]>
// CHECK:       tile.load %arg1{{.*}} -> tensor<512xbf16, #[[XS]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.broadcast {{.*}} -> tensor<16x512xf32, #[[WL]]>
// CHECK:       scf.yield
func.func @vector_broadcast_in_loop(%W: !tile.global<bf16, 2>, %X: !tile.global<bf16, 1>, %Y: !tile.global<f32, 2>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<16x512xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x512xf32>) : i32 {
    %w = tile.load %W[%i, %k] : !tile.global<bf16, 2> -> tensor<16x512xbf16>
    %wf = arith.extf %w : tensor<16x512xbf16> to tensor<16x512xf32>
    %x = tile.load %X[%k] : !tile.global<bf16, 1> -> tensor<512xbf16>
    %xf = arith.extf %x : tensor<512xbf16> to tensor<512xf32>
    %xr = tile.reshape %xf : tensor<512xf32> -> tensor<1x512xf32>
    %xb = tile.broadcast %xr : tensor<1x512xf32> -> tensor<16x512xf32>
    %p = arith.mulf %wf, %xb : tensor<16x512xf32>
    %s = arith.addf %a, %p : tensor<16x512xf32>
    scf.yield %s : tensor<16x512xf32>
  }
  tile.store %Y[%i, %c0], %acc : !tile.global<f32, 2>, tensor<16x512xf32>
  return
}

// -----

// CHECK-LABEL: func.func @vector_broadcast_beside_mma
// CHECK:       scf.for
// CHECK:       tile.load %arg1{{.*}} -> tensor<64xf32, #blocked
// CHECK:       tile.convert_layout {{.*}} -> tensor<1x64xf32, #mma>
func.func @vector_broadcast_beside_mma(%A: !tile.global<f16, 2>, %X: !tile.global<f32, 1>, %Y: !tile.global<f32, 2>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %A[%i, %k] : !tile.global<f16, 2> -> tensor<64x64xf16>
    %m = tile.mma %x, %x, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
    %v = tile.load %X[%k] : !tile.global<f32, 1> -> tensor<64xf32>
    %vr = tile.reshape %v : tensor<64xf32> -> tensor<1x64xf32>
    %vb = tile.broadcast %vr : tensor<1x64xf32> -> tensor<64x64xf32>
    %d = arith.subf %m, %vb : tensor<64x64xf32>
    %s = arith.addf %a, %d : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %Y[%i, %c0], %acc : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// f32 loaded and stored rounded to 16 bits: the f32 layout (4 elements, 8
// bytes of the store's a thread, 32 lanes along a 256-byte run of each
// row) is stored as held, not converted to the 16-bit load layout (16-byte
// vectors) through shared memory.
// CHECK-LABEL: func.func @rounded_store
// CHECK:       tile.load {{.*}} -> tensor<64x128xf32, #[[F:.*]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store {{.*}} tensor<64x128xbf16, #[[F]]>
func.func @rounded_store(%X: !tile.global<f32, 2>, %Y: !tile.global<bf16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%i, %c0] : !tile.global<f32, 2> -> tensor<64x128xf32>
  %t = arith.truncf %x : tensor<64x128xf32> to tensor<64x128xbf16>
  tile.store %Y[%i, %c0], %t : !tile.global<bf16, 2>, tensor<64x128xbf16>
  return
}

// -----

// An accumulator initialized from a load (C = A B + R, R read first): the
// loop carries it in the multiply's layout, and R is converted once, before
// the loop (it took the load's layout, and the multiply's accumulator was
// converted there and back on every trip).
// CHECK-LABEL: func.func @accumulator_from_load
// CHECK:       %[[R:.*]] = tile.load {{.*}} -> tensor<64x64xf32, #[[B:blocked[0-9]*]]>
// CHECK:       %[[C:.*]] = tile.convert_layout %[[R]] : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #[[M:mma[0-9]*]]>
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (tensor<64x64xf32, #[[M]]>)
// CHECK-NOT:   tile.convert_layout %[[ACC]]
// CHECK:       tile.mma {{.*}}, %[[ACC]] :
// CHECK-NOT:   tile.convert_layout {{.*}}#[[M]]> -> tensor<64x64xf32, #[[B]]>
// CHECK:       scf.yield
func.func @accumulator_from_load(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %R: !tile.global<f32, 2>, %C: !tile.global<f32, 2>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.load %R[%i, %i] : !tile.global<f32, 2> -> tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %r) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %A[%i, %k] : !tile.global<f16, 2> -> tensor<64x32xf16>
    %y = tile.load %B[%k, %i] : !tile.global<f16, 2> -> tensor<32x64xf16>
    %d = tile.mma %x, %y, %a : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %C[%i, %i], %acc : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A loaded vector compared with every bin of an arange and summed over the
// vector (a histogram, a one-hot count): the (64, 256) comparison gets a
// layout of its own, threads along the bins, and the vector a slice of it;
// with the vector's layout expanded, every thread held all 256 bins (1024
// registers, refused).
// CHECK:       #[[P:blocked]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK:       #[[V:slice]] = #tile.slice<dim = 1, parent = #[[P]]>
// CHECK-LABEL: func.func @one_hot_count
// CHECK:       tile.load {{.*}} -> tensor<64xi32, #[[V]]>
// CHECK:       arith.cmpi eq, {{.*}} : tensor<64x256xi32, #[[P]]>
// CHECK:       tile.reduce sum {{.*}} {axis = 0 : i32} : tensor<64x256xi32, #[[P]]>
func.func @one_hot_count(%X: !tile.global<i32, 1>, %H: !tile.global<i32, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%i] : !tile.global<i32, 1> -> tensor<64xi32>
  %col = tile.expand_dims %x {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %xb = tile.broadcast %col : tensor<64x1xi32> -> tensor<64x256xi32>
  %bins = tile.arange : tensor<256xi32>
  %row = tile.expand_dims %bins {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %bb = tile.broadcast %row : tensor<1x256xi32> -> tensor<64x256xi32>
  %eq = arith.cmpi eq, %xb, %bb : tensor<64x256xi32>
  %one = arith.extui %eq : tensor<64x256xi1> to tensor<64x256xi32>
  %n = tile.reduce sum %one {axis = 0 : i32} : tensor<64x256xi32> -> tensor<256xi32>
  tile.store %H[%c0], %n : !tile.global<i32, 1>, tensor<256xi32>
  return
}

// -----

// Indices made by reshapes of one arange (arange(n).reshape((n, 1)) and
// .reshape((1, n))), compared and applied to a product: as expand_dims's,
// the views take the product's layout and the arange a slice of it (its
// view along the other axis a slice along that one, which the arange is
// remade in at no cost); before, the arange took a blocked layout and both
// views were converted through shared memory.
// CHECK:       #[[S:slice]] = #tile.slice<dim = {{[01]}}, parent = #[[M:mma]]>
// CHECK-LABEL: func.func @arange_views
// CHECK:       tile.arange : tensor<64xi32, #[[S]]>
// CHECK-NOT:   tile.convert_layout {{.*}} -> tensor<{{64x1|1x64}}xi32
// CHECK:       tile.reshape {{.*}} -> tensor<64x1xi32, #[[M]]>
// CHECK:       tile.reshape {{.*}} -> tensor<1x64xi32, #[[M]]>
// CHECK-NOT:   tile.convert_layout {{.*}} -> tensor<{{64x1|1x64}}xi32
// CHECK:       arith.cmpi sle, {{.*}} : tensor<64x64xi32, #[[M]]>
func.func @arange_views(%A: !tile.global<f16, 2>, %O: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %A[%i, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %s = tile.mma %x, %x, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %r = tile.arange : tensor<64xi32>
  %rows = tile.reshape %r : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.reshape %r : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %keep = arith.cmpi sle, %cb, %rb : tensor<64x64xi32>
  %m = arith.select %keep, %s, %z : tensor<64x64xi1>, tensor<64x64xf32>
  tile.store %O[%i, %c0], %m : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A product rounded and stored through a view adding a unit dimension, with
// no loop: the view takes the store's layout (its use), and the product is
// converted once, to its 2-D form; before, the view took a default layout
// of its own on the way forward, and the product was converted twice.
// CHECK-LABEL: func.func @product_stored_through_view
// CHECK:       %[[T:.*]] = arith.truncf {{.*}} : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[T]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  %[[V:.*]] = tile.reshape %[[C]] : tensor<64x64xf16, #[[B]]> -> tensor<1x64x64xf16, #[[S:blocked[0-9]*]]>
// CHECK-NEXT:  tile.store {{.*}}, %[[V]] : <f16, 3>, tensor<1x64x64xf16, #[[S]]>
func.func @product_stored_through_view(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 3>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %A[%i, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %s = tile.mma %x, %x, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %h = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  %v = tile.reshape %h : tensor<64x64xf16> -> tensor<1x64x64xf16>
  tile.store %O[%i, %i, %c0], %v : !tile.global<f16, 3>, tensor<1x64x64xf16>
  return
}

// -----

// C = A B + R with R loaded after the loop: the loop's result (placed only
// once its body is) outranks R's load, and the store's layout is only a
// preference: the sum is computed in the accumulator's layout, R converted
// to it (in 16 bits after tile-remove-layout-conversions), and the rounded
// sum converted to the store's layout (a TMA store on sm_90a). It was the
// accumulator (32 bits) converted to R's layout, and stored from registers.
// CHECK-LABEL: func.func @residual_after_loop
// CHECK:       %[[ACC:.*]] = scf.for {{.*}} -> (tensor<64x64xf32, #mma>)
// CHECK:       scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[R:.*]] = tile.load {{.*}} -> tensor<64x64xf16, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  %[[RE:.*]] = arith.extf %[[R]] : tensor<64x64xf16, #[[B]]> to tensor<64x64xf32, #[[B]]>
// CHECK-NEXT:  %[[RC:.*]] = tile.convert_layout %[[RE]] : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[ACC]], %[[RC]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[S]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  tile.convert_layout %[[T]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #[[B]]>
// CHECK-NOT:   tile.convert_layout
func.func @residual_after_loop(%A: !tile.global<f16, 2>, %R: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %A[%i, %k] : !tile.global<f16, 2> -> tensor<64x64xf16>
    %y = tile.mma %x, %x, %a : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
    scf.yield %y : tensor<64x64xf32>
  }
  %r = tile.load %R[%i, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %re = arith.extf %r : tensor<64x64xf16> to tensor<64x64xf32>
  %s = arith.addf %acc, %re : tensor<64x64xf32>
  %t = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %O[%i, %c0], %t : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// -----

// Row and column scales applied to a loop's product (a dequantizing GEMM):
// each vector is loaded in a slice of the accumulator's layout, none
// converted; they were loaded in layouts of their own and converted through
// shared memory, the store's layout having reached the products first.
// CHECK-LABEL: func.func @scales_after_loop
// CHECK:       %[[ACC:.*]] = scf.for {{.*}} -> (tensor<64x64xf32, #mma>)
// CHECK:       tile.load {{.*}} -> tensor<64xf32, #[[RS:slice[0-9]*]]>
// CHECK:       tile.load {{.*}} -> tensor<64xf32, #[[CS:slice[0-9]*]]>
// CHECK:       tile.expand_dims {{.*}} : tensor<64xf32, #[[RS]]> -> tensor<64x1xf32, #mma>
// CHECK:       tile.expand_dims {{.*}} : tensor<64xf32, #[[CS]]> -> tensor<1x64xf32, #mma>
// CHECK:       arith.mulf {{.*}} : tensor<64x64xf32, #mma>
// CHECK:       arith.mulf {{.*}} : tensor<64x64xf32, #mma>
// CHECK:       tile.convert_layout {{.*}} : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked{{[0-9]*}}>
// CHECK-NOT:   tile.convert_layout
func.func @scales_after_loop(%A: !tile.global<f16, 2>, %RS: !tile.global<f32, 1>, %CS: !tile.global<f32, 1>, %O: !tile.global<f16, 2>, %i: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %A[%i, %k] : !tile.global<f16, 2> -> tensor<64x64xf16>
    %y = tile.mma %x, %x, %a : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
    scf.yield %y : tensor<64x64xf32>
  }
  %rs = tile.load %RS[%i] : !tile.global<f32, 1> -> tensor<64xf32>
  %cs = tile.load %CS[%c0] : !tile.global<f32, 1> -> tensor<64xf32>
  %rv = tile.expand_dims %rs {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %cv = tile.expand_dims %cs {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %rb = tile.broadcast %rv : tensor<64x1xf32> -> tensor<64x64xf32>
  %cb = tile.broadcast %cv : tensor<1x64xf32> -> tensor<64x64xf32>
  %p = arith.mulf %acc, %rb : tensor<64x64xf32>
  %q = arith.mulf %p, %cb : tensor<64x64xf32>
  %t = arith.truncf %q : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %O[%i, %c0], %t : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// -----

// A product permuted, rounded and stored: the permute waits for its use's
// layout (the store's, as a reshape of an mma result does) and the product
// is converted once, to the layout the permute carries to the store's.
// CHECK-LABEL: func.func @product_permuted_stored
// CHECK:       %[[S:.*]] = tile.mma
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[S]] : tensor<64x16xf32, #mma> -> tensor<64x16xf32, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  %[[T:.*]] = tile.permute %[[C]] [1, 0] : tensor<64x16xf32, #[[B]]> -> tensor<16x64xf32, #[[ST:blocked[0-9]*]]>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[T]] : tensor<16x64xf32, #[[ST]]> to tensor<16x64xf16, #[[ST]]>
// CHECK-NEXT:  tile.store {{.*}}, %[[H]] : <f16, 2>, tensor<16x64xf16, #[[ST]]>
func.func @product_permuted_stored(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x16xf32>
  %x = tile.load %A[%i, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %y = tile.load %A[%c0, %i] : !tile.global<f16, 2> -> tensor<64x16xf16>
  %s = tile.mma %x, %y, %z : tensor<64x64xf16>, tensor<64x16xf16>, tensor<64x16xf32>
  %t = tile.permute %s [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %h = arith.truncf %t : tensor<16x64xf32> to tensor<16x64xf16>
  tile.store %O[%c0, %i], %h : !tile.global<f16, 2>, tensor<16x64xf16>
  return
}

// -----

// A column sum rounded and stored through a view adding a unit dimension,
// the sum's layout one no layout of the view holds in place (lanes copying
// the unit row): the view waits for its use's layout (the store's) rather
// than taking a default, and the sum is converted once, not twice (MLA
// decode's combine kernel).
// CHECK-LABEL: func.func @column_sum_stored_through_view
// CHECK:       %[[T:.*]] = arith.truncf
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[T]]
// CHECK-NEXT:  %[[V:.*]] = tile.reshape %[[C]] : tensor<1x128xbf16, #{{.*}}> -> tensor<1x1x128xbf16, #[[S:blocked[0-9]*]]>
// CHECK-NEXT:  tile.store {{.*}}, %[[V]] : <bf16, 3>, tensor<1x1x128xbf16, #[[S]]>
func.func @column_sum_stored_through_view(%A: !tile.global<f32, 2>, %O: !tile.global<bf16, 3>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %A[%c0, %i] : !tile.global<f32, 2> -> tensor<64x128xf32>
  %s = tile.reduce sum %x {axis = 0 : i32, keepdims} : tensor<64x128xf32> -> tensor<1x128xf32>
  %h = arith.truncf %s : tensor<1x128xf32> to tensor<1x128xbf16>
  %v = tile.reshape %h : tensor<1x128xbf16> -> tensor<1x1x128xbf16>
  tile.store %O[%c0, %c0, %i], %v : !tile.global<bf16, 3>, tensor<1x1x128xbf16>
  return
}

// -----

// An index vector plus a splat (arange + an offset), given a unit dimension
// by a reshape and broadcast into a gather's indices, is a vector only
// broadcast as a bare arange is: its ops take a slice of the broadcast's
// layout, no conversion (was: the sum in a default layout of its own,
// converted through shared memory).
// CHECK-LABEL: func.func @index_vector_plus_offset
// CHECK:       %[[A:.*]] = tile.arange : tensor<16xi32, #[[S:slice[0-9]*]]>
// CHECK-NEXT:  %[[F:.*]] = tile.full %{{.*}} : tensor<16xi32, #[[S]]>
// CHECK-NEXT:  %[[R:.*]] = arith.addi %[[A]], %[[F]] : tensor<16xi32, #[[S]]>
// CHECK-NEXT:  tile.reshape %[[R]] : tensor<16xi32, #[[S]]> -> tensor<16x1xi32, #[[B:blocked[0-9]*]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.gather {{.*}} -> tensor<16x128xbf16, #[[B]]>
func.func @index_vector_plus_offset(%E: !tile.global<bf16, 2>, %O: !tile.global<bf16, 2>, %p: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.arange : tensor<16xi32>
  %off = tile.full %p : tensor<16xi32>
  %r = arith.addi %a, %off : tensor<16xi32>
  %rows = tile.reshape %r : tensor<16xi32> -> tensor<16x1xi32>
  %b = tile.arange : tensor<128xi32>
  %cols = tile.reshape %b : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x128xi32>
  %cb = tile.broadcast %cols : tensor<1x128xi32> -> tensor<16x128xi32>
  %g = tile.gather %E[%rb, %cb] : <bf16, 2>[tensor<16x128xi32>, tensor<16x128xi32>] -> tensor<16x128xbf16>
  tile.store %O[%c0, %c0], %g : !tile.global<bf16, 2>, tensor<16x128xbf16>
  return
}

// -----

// Tiles computed together from loads of different element widths (an
// optimizer step's f32 moment and bf16 gradient) share one layout: the
// fewest elements a vector of those loads, 4 (16-byte f32, 8-byte bf16
// accesses), no conversion; the bf16 load took 8 of its own before, and the
// sum was converted through shared memory.
// CHECK:       #[[B:blocked]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @mixed_widths
// CHECK:       tile.load {{.*}} -> tensor<2048xbf16, #[[B]]>
// CHECK:       tile.load {{.*}} -> tensor<2048xf32, #[[B]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store {{.*}} tensor<2048xbf16, #[[B]]>
func.func @mixed_widths(%G: !tile.global<bf16, 1>, %M: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %g = tile.load %G[%i] : !tile.global<bf16, 1> -> tensor<2048xbf16>
  %m = tile.load %M[%i] : !tile.global<f32, 1> -> tensor<2048xf32>
  %gf = arith.extf %g : tensor<2048xbf16> to tensor<2048xf32>
  %s = arith.addf %m, %gf : tensor<2048xf32>
  tile.store %M[%i], %s : !tile.global<f32, 1>, tensor<2048xf32>
  %h = arith.truncf %s : tensor<2048xf32> to tensor<2048xbf16>
  tile.store %G[%i], %h : !tile.global<bf16, 1>, tensor<2048xbf16>
  return
}

// -----

// A row of per-column scales loaded in a loop of multiplies and broadcast
// down the B operand it dequantizes (a W4A16 GEMM's group scales): the row
// takes the broadcast's blocked layout, loaded where each thread applies
// it, with no conversion (and its barrier) in every trip. Broadcast onto an
// mma tile instead, it would keep a load's own layout (the pipeline copies
// a loop's loads in blocked layouts only).
// CHECK-LABEL: func.func @scaled_b_operand
// CHECK:       %[[S:.*]] = tile.load %{{.*}} : <bf16, 2> -> tensor<1x64xbf16, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  arith.sitofp
// CHECK-NEXT:  %[[F:.*]] = arith.extf %[[S]] : tensor<1x64xbf16, #[[B]]> to tensor<1x64xf32, #[[B]]>
// CHECK-NEXT:  tile.broadcast %[[F]] : tensor<1x64xf32, #[[B]]> -> tensor<64x64xf32, #[[B]]>
// CHECK-NOT:   tile.convert_layout %[[S]]
// CHECK-NOT:   tile.convert_layout %[[F]]
func.func @scaled_b_operand(%X: !tile.global<bf16, 2>, %W: !tile.global<i8, 2>, %S: !tile.global<bf16, 2>, %Y: !tile.global<f32, 2>, %n: i32, %i: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>)  : i32 {
    %x = tile.load %X[%i, %k] : <bf16, 2> -> tensor<64x64xbf16>
    %w = tile.load %W[%k, %i] : <i8, 2> -> tensor<64x64xi8>
    %s = tile.load %S[%k, %i] : <bf16, 2> -> tensor<1x64xbf16>
    %wf = arith.sitofp %w : tensor<64x64xi8> to tensor<64x64xf32>
    %sf = arith.extf %s : tensor<1x64xbf16> to tensor<1x64xf32>
    %sb = tile.broadcast %sf : tensor<1x64xf32> -> tensor<64x64xf32>
    %m = arith.mulf %wf, %sb : tensor<64x64xf32>
    %b = arith.truncf %m : tensor<64x64xf32> to tensor<64x64xbf16>
    %d = tile.mma %x, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %Y[%i, %i], %r : <f32, 2>, tensor<64x64xf32>
  return
}
