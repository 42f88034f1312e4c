// RUN: tile-opt %s -split-input-file --tile-assign-layouts | FileCheck %s

// A while loop's values: the init, the condition region's argument and a
// trip's yield share a layout; the condition's forwarded value, the trip's
// argument and the loop's result another (here all the mma layout: the
// accumulator never leaves its registers, and the condition's reduction
// reads it where it is).
// CHECK:       #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-LABEL: func.func @while_mma
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT:  %[[R:.*]]:2 = scf.while (%[[ACC:.*]] = %[[Z]], %[[K:.*]] = %{{.*}}) : (tensor<64x64xf32, #[[MMA]]>, i32) -> (tensor<64x64xf32, #[[MMA]]>, i32) {
// CHECK-NEXT:    tile.reduce max %[[ACC]] {axis = 0 : i32} : tensor<64x64xf32, #[[MMA]]> -> tensor<64xf32, #slice>
// CHECK:         scf.condition(%{{.*}}) %[[ACC]], %[[K]] : tensor<64x64xf32, #[[MMA]]>, i32
// CHECK-NEXT:  } do {
// CHECK-NEXT:  ^bb0(%[[ACC2:.*]]: tensor<64x64xf32, #[[MMA]]>, %{{.*}}: i32):
// CHECK-NOT:     tile.convert_layout %[[ACC2]]
// CHECK:         %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[ACC2]] : {{.*}}, tensor<64x64xf32, #[[MMA]]>
// CHECK:         scf.yield %[[D]], %{{.*}} : tensor<64x64xf32, #[[MMA]]>, i32
// CHECK-NEXT:  }
// CHECK-NEXT:  arith.truncf %[[R]]#0 : tensor<64x64xf32, #[[MMA]]> to tensor<64x64xf16, #[[MMA]]>
func.func @while_mma(%A: !tile.global<f16, 2>, %C: !tile.global<f16, 2>, %n: i32, %tol: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.while (%acc = %z, %k = %c0) : (tensor<64x64xf32>, i32) -> (tensor<64x64xf32>, i32) {
    %m = tile.reduce max %acc {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %mm = tile.reduce max %m {axis = 0 : i32, keepdims} : tensor<64xf32> -> tensor<1xf32>
    %s = tile.item %mm : tensor<1xf32> -> f32
    %small = arith.cmpf olt, %s, %tol : f32
    %more = arith.cmpi slt, %k, %n : i32
    %go = arith.andi %small, %more : i1
    scf.condition(%go) %acc, %k : tensor<64x64xf32>, i32
  } do {
  ^bb0(%acc: tensor<64x64xf32>, %k: i32):
    %a = tile.load %A[%c0, %k] : !tile.global<f16, 2> -> tensor<64x16xf16>
    %b = tile.load %A[%k, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16>
    %d = tile.mma %a, %b, %acc : tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %d, %k1 : tensor<64x64xf32>, i32
  }
  %h = arith.truncf %r#0 : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %C[%c0, %c0], %h : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// -----

// An init loaded in a blocked layout where the loop's use wants the mma
// layout (a backward use through the trip's argument, the condition and
// the condition region's argument): it is converted once, before the loop.
// CHECK-LABEL: func.func @while_converted
// CHECK:       %[[X:.*]] = tile.load %arg1{{.*}} -> tensor<64x64xf32, #[[L:blocked]]>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf32, #[[L]]> -> tensor<64x64xf32, #[[MMA2:mma]]>
// CHECK-NEXT:  %[[R:.*]] = scf.while (%[[V:.*]] = %[[C]]) : (tensor<64x64xf32, #[[MMA2]]>) -> tensor<64x64xf32, #[[MMA2]]> {
// CHECK:         scf.condition(%{{.*}}) %[[V]] : tensor<64x64xf32, #[[MMA2]]>
// CHECK-NEXT:  } do {
// CHECK-NEXT:  ^bb0(%[[A:.*]]: tensor<64x64xf32, #[[MMA2]]>):
// CHECK:         tile.mma %{{.*}}, %{{.*}}, %[[A]]
// CHECK:       tile.convert_layout %[[R]] : tensor<64x64xf32, #[[MMA2]]> -> tensor<64x64xf32, #[[L]]>
func.func @while_converted(%A: !tile.global<f16, 2>, %X: !tile.global<f32, 2>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<64x64xf32>
  %r = scf.while (%v = %x) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    %m = tile.reduce max %v {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %mm = tile.reduce max %m {axis = 0 : i32, keepdims} : tensor<64xf32> -> tensor<1xf32>
    %s = tile.item %mm : tensor<1xf32> -> f32
    %f = arith.sitofp %n : i32 to f32
    %go = arith.cmpf olt, %s, %f : f32
    scf.condition(%go) %v : tensor<64x64xf32>
  } do {
  ^bb0(%acc: tensor<64x64xf32>):
    %a = tile.load %A[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x16xf16>
    %b = tile.load %A[%c0, %c0] : !tile.global<f16, 2> -> tensor<16x64xf16>
    %d = tile.mma %a, %b, %acc : tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>
    %e = arith.addf %d, %d : tensor<64x64xf32>
    %y = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<64x64xf32>
    %w = arith.addf %e, %y : tensor<64x64xf32>
    scf.yield %w : tensor<64x64xf32>
  }
  tile.store %X[%c0, %c0], %r : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}
