// RUN: tile-opt %s -split-input-file --tile-prefetch-loads | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-prefetch-loads | tile-opt -split-input-file --verify-roundtrip > /dev/null

// tile-prefetch-loads: a loop's small tile.load left in registers (a scale
// per trip, here at an index computed from the induction variable) is
// issued a trip ahead: the first trip's before the loop, the next trip's at
// the load's place, carried as a loop value.

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// CHECK-LABEL: func.func @scale_per_trip
// CHECK-SAME:  (%[[S:.*]]: !tile.global<f32, 1>, %[[N:.*]]: i32, %[[X:.*]]: f32)
// CHECK:       %[[C0:.*]] = arith.constant 0 : i32
// CHECK:       %[[C1:.*]] = arith.constant 1 : i32
// CHECK:       %[[I0:.*]] = arith.muli %[[C0]], %{{.*}} : i32
// CHECK-NEXT:  %[[FIRST:.*]] = tile.load %[[S]][%[[I0]]] : <f32, 1> -> tensor<1xf32, #blocked>
// CHECK-NEXT:  %[[R:.*]]:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[X]], %[[CUR:.*]] = %[[FIRST]])
// CHECK-NEXT:    %[[NEXT_I:.*]] = arith.addi %[[I]], %[[C1]] : i32
// CHECK-NEXT:    %[[J:.*]] = arith.muli %[[NEXT_I]], %{{.*}} : i32
// CHECK-NEXT:    %[[NEXT:.*]] = tile.load %[[S]][%[[J]]] : <f32, 1> -> tensor<1xf32, #blocked>
// CHECK-NEXT:    %[[V:.*]] = tile.item %[[CUR]]
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:    scf.yield %[[M]], %[[NEXT]] : f32, tensor<1xf32, #blocked>
// CHECK:       return %[[R]]#0
func.func @scale_per_trip(%S: !tile.global<f32, 1>, %n: i32, %x: f32) -> f32 attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) : i32 {
    %j = arith.muli %i, %c2 : i32
    %s = tile.load %S[%j] : <f32, 1> -> tensor<1xf32, #blocked>
    %v = tile.item %s : tensor<1xf32, #blocked> -> f32
    %m = arith.mulf %acc, %v : f32
    scf.yield %m : f32
  }
  return %r : f32
}

// -----

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#blocked2 = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Left alone: a loop that stores (the load may read what an earlier trip
// wrote), an index carried by the loop, a tile of 8 registers a thread, and
// a persistent kernel's tile loop.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:   iter_args({{.*}}tensor
// CHECK:       scf.for
// CHECK-NEXT:    tile.load
// CHECK-NEXT:    tile.store
// CHECK:       scf.for
// CHECK-NEXT:    tile.load
// CHECK:       scf.for
// CHECK-NEXT:    tile.load
// CHECK:       scf.for
// CHECK-NEXT:    tile.load
// CHECK:       } {tile.tile_loop}
func.func @kept(%S: !tile.global<f32, 1>, %T: !tile.global<f32, 1>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = tile.load %S[%i] : <f32, 1> -> tensor<1xf32, #blocked>
    tile.store %T[%i], %s : <f32, 1>, tensor<1xf32, #blocked>
  }
  %k = scf.for %i = %c0 to %n step %c1 iter_args(%j = %c0) -> (i32) : i32 {
    %s = tile.load %S[%j] : <f32, 1> -> tensor<1xf32, #blocked>
    %v = tile.item %s : tensor<1xf32, #blocked> -> f32
    %w = arith.fptosi %v : f32 to i32
    scf.yield %w : i32
  }
  %z = arith.constant dense<0.0> : tensor<1024xf32, #blocked2>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<1024xf32, #blocked2>) : i32 {
    %s = tile.load %S[%i] : <f32, 1> -> tensor<1024xf32, #blocked2>
    %sum = arith.addf %acc, %s : tensor<1024xf32, #blocked2>
    scf.yield %sum : tensor<1024xf32, #blocked2>
  }
  %f = arith.constant 0.0 : f32
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> (f32) : i32 {
    %s = tile.load %S[%i] : <f32, 1> -> tensor<1xf32, #blocked>
    %v = tile.item %s : tensor<1xf32, #blocked> -> f32
    %m = arith.addf %acc, %v : f32
    scf.yield %m : f32
  } {tile.tile_loop}
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#cp = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#sh = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0]>

// Left in place: a load whose value only says where a pipelined copy reads
// (a block-table entry giving a paged cache's page); the copy is ahead of
// its use already, and carrying the entry a further trip slowed flash
// decoding's paged loop.
// CHECK-LABEL: func.func @copy_index
// CHECK-NOT:   iter_args
// CHECK:       scf.for
// CHECK-NEXT:    tile.load
// CHECK-NEXT:    tile.item
// CHECK-NEXT:    tile.async_copy
func.func @copy_index(%T: !tile.global<i32, 1>, %K: !tile.global<f16, 2>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.smem_alloc : !tile.smem<[1024], f16, #sh>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %e = tile.load %T[%i] : <i32, 1> -> tensor<1xi32, #blocked>
    %page = tile.item %e : tensor<1xi32, #blocked> -> i32
    tile.async_copy %K[%page, %c0], %buf {layout = #cp, shape = array<i64: 1, 1024>} : !tile.global<f16, 2>, !tile.smem<[1024], f16, #sh>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#cp = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#sh = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0]>

// A value that also leaves the trip (yielded) has a use of its own beside
// the copy's index: prefetched.
// CHECK-LABEL: func.func @copy_index_and_yield
// CHECK:       tile.load
// CHECK:       scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1xi32, #blocked>, tensor<1xi32, #blocked>)
func.func @copy_index_and_yield(%T: !tile.global<i32, 1>, %K: !tile.global<f16, 2>, %n: i32, %e0: tensor<1xi32, #blocked>) -> tensor<1xi32, #blocked> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.smem_alloc : !tile.smem<[1024], f16, #sh>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%last = %e0) -> (tensor<1xi32, #blocked>) : i32 {
    %e = tile.load %T[%i] : <i32, 1> -> tensor<1xi32, #blocked>
    %page = tile.item %e : tensor<1xi32, #blocked> -> i32
    tile.async_copy %K[%page, %c0], %buf {layout = #cp, shape = array<i64: 1, 1024>} : !tile.global<f16, 2>, !tile.smem<[1024], f16, #sh>
    scf.yield %e : tensor<1xi32, #blocked>
  }
  return %r : tensor<1xi32, #blocked>
}
