// RUN: tile-opt %s -split-input-file --tile-counted-while-loops | FileCheck %s

// A while loop whose condition is one comparison of a value the trip steps
// by a loop-invariant amount is the scf.for it counts.
// CHECK-LABEL: func.func @counted
// CHECK-NOT:   scf.while
// CHECK:       %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %arg2 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16xf32>) : i32 {
// CHECK-NEXT:    %[[X:.*]] = tile.load %arg0[%[[I]]]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK:         scf.yield %[[S]] : tensor<16xf32>
// CHECK:       tile.store %arg1[%{{.*}}], %[[R]]
func.func @counted(%X: !tile.global<f32, 1>, %Y: !tile.global<f32, 1>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<16xf32>
  %r:2 = scf.while (%acc = %z, %i = %c0) : (tensor<16xf32>, i32) -> (tensor<16xf32>, i32) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %acc, %i : tensor<16xf32>, i32
  } do {
  ^bb0(%acc: tensor<16xf32>, %i: i32):
    %x = tile.load %X[%i] : !tile.global<f32, 1> -> tensor<16xf32>
    %s = arith.addf %acc, %x : tensor<16xf32>
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %s, %i1 : tensor<16xf32>, i32
  }
  tile.store %Y[%c0], %r#0 : !tile.global<f32, 1>, tensor<16xf32>
  return
}

// -----

// A condition on a value the trip computes (or a break's flag) keeps the
// while loop.
// CHECK-LABEL: func.func @converging
// CHECK-NOT:   scf.for
// CHECK:       scf.while
func.func @converging(%X: !tile.global<f32, 1>, %tol: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  %r = scf.while (%e = %one) : (f32) -> f32 {
    %c = arith.cmpf ogt, %e, %tol : f32
    scf.condition(%c) %e : f32
  } do {
  ^bb0(%e: f32):
    %h = arith.mulf %e, %e : f32
    scf.yield %h : f32
  }
  %t = tile.full %r : tensor<16xf32>
  tile.store %X[%c0], %t : !tile.global<f32, 1>, tensor<16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @broken
// CHECK-NOT:   scf.for
// CHECK:       scf.while
func.func @broken(%X: !tile.global<f32, 1>, %n: i32, %t: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %false = arith.constant false
  %r:2 = scf.while (%i = %c0, %b = %false) : (i32, i1) -> (i32, i1) {
    %go = scf.if %b -> (i1) {
      scf.yield %false : i1
    } else {
      %lt = arith.cmpi slt, %i, %n : i32
      scf.yield %lt : i1
    }
    scf.condition(%go) %i, %b : i32, i1
  } do {
  ^bb0(%i: i32, %b: i1):
    %x = tile.load %X[%i] : !tile.global<f32, 1> -> tensor<16xf32>
    %m = tile.reduce max %x {axis = 0 : i32, keepdims} : tensor<16xf32> -> tensor<1xf32>
    %s = tile.item %m : tensor<1xf32> -> f32
    %hit = arith.cmpf ogt, %s, %t : f32
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %i1, %hit : i32, i1
  }
  %f = tile.full %r#0 : tensor<1xi32>
  return
}

// -----

// `<=` (and counting down) is not the for loop's `<`: left as it is.
// CHECK-LABEL: func.func @less_or_equal
// CHECK-NOT:   scf.for
// CHECK:       scf.while
func.func @less_or_equal(%X: !tile.global<i32, 1>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %c = arith.cmpi sle, %i, %n : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%i: i32):
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %i1 : i32
  }
  %t = tile.full %r : tensor<16xi32>
  tile.store %X[%c0], %t : !tile.global<i32, 1>, tensor<16xi32>
  return
}
