// RUN: tile-opt %s -split-input-file --tile-defer-loop-reductions -canonicalize | FileCheck %s

// tile-defer-loop-reductions carries a loop's sum as per-thread partials
// (the lane and warp bits of the axis kept) and combines them across
// threads once, after the loop.

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>

// The online softmax's row sum on two warpgroups that split the columns
// (MLA decode's scores): the axis' bits 1 and 2 are lanes, bit 5 the
// warpgroup (kept_bits = 0b100110), bits 0, 3 and 4 registers. alpha is
// broadcast along the partials (the threads holding a row's partials hold
// its alpha: no conversion); the partials are summed after the loop into
// the value's own layout.
// CHECK:       #[[LIN:.*]] = #tile.linear<register = {{\[\[}}8, 0]], lane = {{\[\[}}0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0], [0, 4]]>
// CHECK-LABEL: func.func @online_softmax_sum
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x8xf32, #[[LIN]]>
// CHECK:       %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[P:.*]] = %[[Z]])
// CHECK-NOT:     tile.reduce sum {{.*}} -> tensor<64x1xf32
// CHECK:         %[[ALPHA:.*]] = tile.exp2 %{{.*}} : tensor<64x1xf32, #mma>
// CHECK:         %[[PART:.*]] = tile.reduce sum %{{.*}} {axis = 1 : i32, keepdims, kept_bits = 38 : i64} : tensor<64x64xf32, #mma> -> tensor<64x8xf32, #[[LIN]]>
// CHECK:         %[[AB:.*]] = tile.broadcast %[[ALPHA]] : tensor<64x1xf32, #mma> -> tensor<64x8xf32, #[[LIN]]>
// CHECK:         %[[S:.*]] = arith.mulf %[[P]], %[[AB]]
// CHECK:         %[[N:.*]] = arith.addf %[[S]], %[[PART]]
// CHECK:         scf.yield %{{.*}}, %[[N]]
// CHECK:       %[[L:.*]] = tile.reduce sum %[[R]]#1 {axis = 1 : i32, keepdims} : tensor<64x8xf32, #[[LIN]]> -> tensor<64x1xf32, #mma>
// CHECK:       return %[[L]], %[[R]]#0
func.func @online_softmax_sum(%s: tensor<64x64xf32, #mma>, %n: i32) -> (tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<64x1xf32, #mma>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x1xf32, #mma>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero, %m = %ninf) -> (tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>) : i32 {
    %mx = tile.reduce max %s {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
    %mn = arith.maximumf %m, %mx : tensor<64x1xf32, #mma>
    %mb = tile.broadcast %mn : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %d = arith.subf %s, %mb : tensor<64x64xf32, #mma>
    %p = tile.exp2 %d : tensor<64x64xf32, #mma>
    %dm = arith.subf %m, %mn : tensor<64x1xf32, #mma>
    %alpha = tile.exp2 %dm : tensor<64x1xf32, #mma>
    %ls = arith.mulf %l, %alpha : tensor<64x1xf32, #mma>
    %ps = tile.reduce sum %p {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
    %ln = arith.addf %ls, %ps : tensor<64x1xf32, #mma>
    scf.yield %ln, %mn : tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A looped row sum without keepdims and without a scale (reduce.tile's
// `acc += sum(x, axis=1)`): the eight lanes along a row are kept (bits 2 to
// 4), the four registers combined in each trip; after the loop the sum is
// reshaped to the value's rank-1 type.
// CHECK:       #[[LIN:.*]] = #tile.linear<register = [], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = {{\[\[}}4, 0], [8, 0]]>
// CHECK-LABEL: func.func @row_sum
// CHECK:       scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (tensor<16x8xf32, #[[LIN]]>)
// CHECK:         %[[PART:.*]] = tile.reduce sum %{{.*}} {axis = 1 : i32, keepdims, kept_bits = 28 : i64} : tensor<16x32xf32, #blocked> -> tensor<16x8xf32, #[[LIN]]>
// CHECK:         %[[N:.*]] = arith.addf %[[P]], %[[PART]]
// CHECK:         scf.yield %[[N]]
// CHECK:       %[[L:.*]] = tile.reduce sum %{{.*}} {axis = 1 : i32, keepdims} : tensor<16x8xf32, #[[LIN]]> -> tensor<16x1xf32
// CHECK:       %[[V:.*]] = tile.reshape %[[L]] : tensor<16x1xf32, {{.*}}> -> tensor<16xf32, #slice>
// CHECK:       return %[[V]]
func.func @row_sum(%x: tensor<16x32xf32, #blocked>, %n: i32) -> tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>) : i32 {
    %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16x32xf32, #blocked> -> tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
    %a = arith.addf %acc, %s : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
    scf.yield %a : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
  }
  return %r : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A scaled sum without keepdims (alpha rank 1, defined before the loop):
// alpha gets the axis back (expand_dims into the partials' layout with the
// axis dropped) before its broadcast.
// CHECK-LABEL: func.func @scaled_row_sum
// CHECK:       scf.for
// CHECK:         %[[PART:.*]] = tile.reduce sum %{{.*}} {axis = 1 : i32, keepdims, kept_bits = 28 : i64}
// CHECK:         %[[E:.*]] = tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xf32, #slice> -> tensor<16x1xf32, #[[ONE:.*]]>
// CHECK:         %[[B:.*]] = tile.broadcast %[[E]] : tensor<16x1xf32, #[[ONE]]> -> tensor<16x8xf32
// CHECK:         %[[S:.*]] = arith.mulf %{{.*}}, %[[B]]
// CHECK:         arith.addf %[[S]], %[[PART]]
// CHECK:       tile.reduce sum %{{.*}} {axis = 1 : i32, keepdims} : tensor<16x8xf32, {{.*}}> -> tensor<16x1xf32
// CHECK:       tile.reshape
func.func @scaled_row_sum(%x: tensor<16x32xf32, #blocked>, %alpha: tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>, %n: i32) -> tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>) : i32 {
    %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16x32xf32, #blocked> -> tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
    %a = arith.mulf %alpha, %acc : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
    %b = arith.addf %s, %a : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
    scf.yield %b : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
  }
  return %r : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Extremes (reduce.tile's looped amax and amin): combined as the reduction
// combines (maxnum, minnum); each partial starts at the value's start, a
// splat constant repeated or a value broadcast along the partials.
// CHECK-LABEL: func.func @row_extremes
// CHECK-DAG:   %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<16x8xf32
// CHECK-DAG:   %[[LO:.*]] = tile.broadcast %{{.*}} : tensor<16x1xf32, #blocked> -> tensor<16x8xf32
// CHECK:       scf.for {{.*}} iter_args(%[[MX:.*]] = %[[NINF]], %[[MN:.*]] = %[[LO]])
// CHECK:         %[[PMX:.*]] = tile.reduce max %{{.*}} {axis = 1 : i32, keepdims, kept_bits = 28 : i64}
// CHECK:         arith.maxnumf %[[MX]], %[[PMX]]
// CHECK:         %[[PMN:.*]] = tile.reduce min %{{.*}} {axis = 1 : i32, keepdims, kept_bits = 28 : i64}
// CHECK:         arith.minnumf %[[MN]], %[[PMN]]
// CHECK-DAG:   tile.reduce max %{{.*}} {axis = 1 : i32, keepdims} : tensor<16x8xf32, {{.*}}> -> tensor<16x1xf32, #blocked>
// CHECK-DAG:   tile.reduce min %{{.*}} {axis = 1 : i32, keepdims} : tensor<16x8xf32, {{.*}}> -> tensor<16x1xf32, #blocked>
func.func @row_extremes(%x: tensor<16x32xf32, #blocked>, %lo: tensor<16x1xf32, #blocked>, %n: i32) -> (tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<16x1xf32, #blocked>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%mx = %ninf, %mn = %lo) -> (tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>) : i32 {
    %a = tile.reduce max %x {axis = 1 : i32, keepdims} : tensor<16x32xf32, #blocked> -> tensor<16x1xf32, #blocked>
    %mx2 = arith.maxnumf %mx, %a : tensor<16x1xf32, #blocked>
    %b = tile.reduce min %x {axis = 1 : i32, keepdims} : tensor<16x32xf32, #blocked> -> tensor<16x1xf32, #blocked>
    %mn2 = arith.minnumf %b, %mn : tensor<16x1xf32, #blocked>
    scf.yield %mx2, %mn2 : tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>
  }
  return %r#0, %r#1 : tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Left alone: a sum that does not start at zero, one the loop reads
// elsewhere, a maximum combined by maximumf (NaN-propagating: not the
// reduction's maxnum), and a sum held in each thread whole (no lane or warp
// holds part of its axis).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   kept_bits
// CHECK:       return
#rows = #tile.blocked<sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @left_alone(%x: tensor<16x32xf32, #blocked>, %y: tensor<128x32xf32, #rows>, %n: i32) -> (tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<128x1xf32, #rows>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x1xf32, #blocked>
  %one = arith.constant dense<1.000000e+00> : tensor<16x1xf32, #blocked>
  %zr = arith.constant dense<0.000000e+00> : tensor<128x1xf32, #rows>
  %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %one, %b = %zero, %c = %zero, %d = %zr) -> (tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<128x1xf32, #rows>) : i32 {
    %s = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<16x32xf32, #blocked> -> tensor<16x1xf32, #blocked>
    %a2 = arith.addf %a, %s : tensor<16x1xf32, #blocked>
    %s2 = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<16x32xf32, #blocked> -> tensor<16x1xf32, #blocked>
    %bb = arith.mulf %b, %b : tensor<16x1xf32, #blocked>
    %b2 = arith.addf %bb, %s2 : tensor<16x1xf32, #blocked>
    %mx = tile.reduce max %x {axis = 1 : i32, keepdims} : tensor<16x32xf32, #blocked> -> tensor<16x1xf32, #blocked>
    %c2 = arith.maximumf %c, %mx : tensor<16x1xf32, #blocked>
    %s3 = tile.reduce sum %y {axis = 1 : i32, keepdims} : tensor<128x32xf32, #rows> -> tensor<128x1xf32, #rows>
    %d2 = arith.addf %d, %s3 : tensor<128x1xf32, #rows>
    scf.yield %a2, %b2, %c2, %d2 : tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<128x1xf32, #rows>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<16x1xf32, #blocked>, tensor<128x1xf32, #rows>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>

// A loop value without a layout (IR not laid out, or mutated): left alone,
// not a crash (ir-no-crash found one).
// CHECK-LABEL: func.func @no_layout
// CHECK-NOT:   kept_bits
// CHECK:       return
func.func @no_layout(%p: tensor<64x64xf32, #mma>, %alpha: tensor<64x1xf32>, %n: i32) -> tensor<64x1xf32> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<64x1xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero) -> (tensor<64x1xf32>) : i32 {
    %ls = arith.mulf %l, %alpha : tensor<64x1xf32>
    %ps = tile.reduce sum %p {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32>
    %ln = arith.addf %ls, %ps : tensor<64x1xf32>
    scf.yield %ln : tensor<64x1xf32>
  }
  return %r : tensor<64x1xf32>
}
