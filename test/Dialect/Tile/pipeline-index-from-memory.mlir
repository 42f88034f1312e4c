// RUN: tile-opt %s -split-input-file --tile-pipeline -verify-diagnostics | FileCheck %s

// A copy whose index is read from memory (a paged cache's page number from
// its block table: a one-element tile.load and tile.item) is pipelined when
// the loop writes no global memory: the load is part of the index
// computation, cloned for the iteration the copy is issued for, in the
// prologue and in the body. When the loop also writes global memory the
// read could see a later write issued early, so the copy is left as it is,
// and, since it was asked to be pipelined (latency 3), a warning says why.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#one = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// CHECK-LABEL: func.func @paged
// CHECK-SAME:  (%[[K:.*]]: !tile.global<f16, 2>, %[[T:.*]]: !tile.global<i32, 2>, %[[B:.*]]: i32, %[[N:.*]]: i32)
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[3, 64, 32], f16
// Prologue: the page numbers of iterations 0 and 1, read to index their copies.
// CHECK:       %[[P0:.*]] = tile.load %[[T]][%[[B]], %{{.*}}] : <i32, 2> -> tensor<1x1xi32, #{{.*}}>
// CHECK-NEXT:  %[[S0:.*]] = tile.item %[[P0]]
// CHECK:       tile.async_copy %[[K]][%[[S0]], %{{.*}}], %{{.*}} if
// CHECK:       %[[P1:.*]] = tile.load %[[T]]
// CHECK-NEXT:  %[[S1:.*]] = tile.item %[[P1]]
// CHECK:       tile.async_copy %[[K]][%[[S1]], %{{.*}}], %{{.*}} if
// CHECK:       scf.for
// The refill for iteration j + 2 reads its own page number.
// CHECK:         tile.async_wait
// CHECK:         %[[PJ:.*]] = tile.load %[[T]]
// CHECK-NEXT:    %[[SJ:.*]] = tile.item %[[PJ]]
// CHECK:         tile.async_copy %[[K]][%[[SJ]], %{{.*}}], %{{.*}} if
// CHECK:       } {tile.pipelined}
func.func @paged(%K: !tile.global<f16, 2>, %T: !tile.global<i32, 2>, %b: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %p = tile.load %T[%b, %j] : !tile.global<i32, 2> -> tensor<1x1xi32, #one>
    %page = tile.item %p : tensor<1x1xi32, #one> -> i32
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %K[%page, %c0], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#one = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// CHECK-LABEL: func.func @writes_table
// CHECK-NOT:   tile.smem_slot
// CHECK-NOT:   tile.pipelined
func.func @writes_table(%K: !tile.global<f16, 2>, %T: !tile.global<i32, 2>, %b: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %p = tile.load %T[%b, %j] : !tile.global<i32, 2> -> tensor<1x1xi32, #one>
    %page = tile.item %p : tensor<1x1xi32, #one> -> i32
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    // expected-warning @+1 {{this load is not pipelined: its index depends on a value carried by the loop, computed in a region, or read from memory the loop also writes}}
    tile.async_copy %K[%page, %c0], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    tile.store %T[%b, %j], %p : !tile.global<i32, 2>, tensor<1x1xi32, #one>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}
