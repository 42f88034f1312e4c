// RUN: tile-opt %s -split-input-file --tile-stage-hinted-loads -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-stage-hinted-loads="warn=false" | tile-opt -split-input-file --verify-roundtrip > /dev/null

// tile-stage-hinted-loads: a loop body's tile.load with a latency hint of 2
// or more becomes a copy into an unswizzled buffer of the tile without its
// size-1 dimensions (tile.smem_alloc + tile.async_copy, the hint kept for
// tile-pipeline's ring) and a read in the load's own layout at the same
// place (tile.async_wait + tile.local_load).

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>

// CHECK-DAG:   #[[ROW:blocked[0-9]*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG:   #[[S:shared]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
// CHECK-LABEL: func.func @row_sums
// CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[1024], f32, #[[S]]>
// CHECK-NEXT:    tile.async_copy %{{.*}}[%{{.*}}, %[[J]]], %[[BUF]] {latency = 3 : i32, layout = #[[ROW]], shape = array<i64: 1, 1024>}
// CHECK-NEXT:    tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[X:.*]] = tile.local_load %[[BUF]] [0] : <[1024], f32, #[[S]]> -> tensor<1x1024xf32, #blocked>
// CHECK-NEXT:    %[[S1:.*]] = tile.reduce sum %[[X]]
// CHECK-NOT:   tile.load
func.func @row_sums(%X: !tile.global<f32, 2>, %Y: !tile.global<f32, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<1xf32, #tile.slice<dim = 1, parent = #blocked>>
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<1xf32, #tile.slice<dim = 1, parent = #blocked>>) : i32 {
    %x = tile.load %X[%row, %j] {latency = 3 : i32} : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    %r = tile.reduce sum %x {axis = 1 : i32} : tensor<1x1024xf32, #blocked> -> tensor<1xf32, #tile.slice<dim = 1, parent = #blocked>>
    %a = arith.addf %acc, %r : tensor<1xf32, #tile.slice<dim = 1, parent = #blocked>>
    scf.yield %a : tensor<1xf32, #tile.slice<dim = 1, parent = #blocked>>
  }
  return
}

// -----

// No hint, or a hint of 1 (one stage: nothing issued ahead): the loads stay.
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @unhinted
// CHECK-NOT:   tile.smem_alloc
// CHECK:       tile.load
// CHECK:       tile.load
func.func @unhinted(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %x = tile.load %X[%row, %j] : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    %y = tile.load %X[%row, %j] {latency = 1 : i32} : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    %z = arith.addf %x, %y : tensor<1x1024xf32, #blocked>
    tile.store %O[%row, %j], %z : !tile.global<f32, 2>, tensor<1x1024xf32, #blocked>
  }
  return
}

// -----

// A hint that cannot apply says why, and the load stays.
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#one = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @not_staged
// CHECK-NOT:   tile.smem_alloc
func.func @not_staged(%X: !tile.global<f32, 2>, %H: !tile.global<f16, 2>, %O: !tile.global<f32, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-warning @+1 {{latency=2 has no effect on this load: it is not copied into shared memory ahead of its use, since it is not directly in a loop's body (there is no trip to issue it ahead of)}}
  %w = tile.load %X[%row, %c0] {latency = 2 : i32} : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %x = tile.load %X[%row, %j] : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    // expected-warning @+1 {{latency=2 has no effect on this load: it is not copied into shared memory ahead of its use, since its threads hold less than 4 contiguous bytes (the least a copy moves)}}
    %h = tile.load %H[%row, %j] {latency = 2 : i32} : !tile.global<f16, 2> -> tensor<1x1024xf16, #one>
    %hf = arith.extf %h : tensor<1x1024xf16, #one> to tensor<1x1024xf32, #one>
    %hc = tile.convert_layout %hf : tensor<1x1024xf32, #one> -> tensor<1x1024xf32, #blocked>
    %z = arith.addf %x, %hc : tensor<1x1024xf32, #blocked>
    %z2 = arith.addf %z, %w : tensor<1x1024xf32, #blocked>
    tile.store %O[%row, %j], %z2 : !tile.global<f32, 2>, tensor<1x1024xf32, #blocked>
  }
  return
}

// -----

// A padding other than zero goes with the copy (which stores it where the
// tile is outside the tensor, cp.async filling zeros there); a zero padding
// is the copy's own.
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @padded
// CHECK:       tile.async_copy {{.*}} {latency = 3 : i32, layout = #{{.*}}, padding = 0xFF800000 : f32, shape = array<i64: 1, 1024>}
// CHECK:       tile.async_copy
// CHECK-NOT:   padding
// CHECK:       tile.store
func.func @padded(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %x = tile.load %X[%row, %j] {latency = 3 : i32, padding = 0xFF800000 : f32} : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    %y = tile.load %X[%row, %j] {latency = 2 : i32, padding = 0.0 : f32} : !tile.global<f32, 2> -> tensor<1x1024xf32, #blocked>
    %z = arith.maximumf %x, %y : tensor<1x1024xf32, #blocked>
    tile.store %O[%row, %j], %z : !tile.global<f32, 2>, tensor<1x1024xf32, #blocked>
  }
  return
}

// -----

// A tile of 3001 columns moves one element at a time (its vectors stay on
// one side of its edge): 2 bytes of f16, less than an async copy moves.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-LABEL: func.func @odd_width
// CHECK-NOT:   tile.smem_alloc
func.func @odd_width(%X: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    // expected-warning @+1 {{latency=2 has no effect on this load: it is not copied into shared memory ahead of its use, since its threads hold less than 4 contiguous bytes (the least a copy moves)}}
    %x = tile.load %X[%row, %j] {latency = 2 : i32} : !tile.global<f16, 2> -> tensor<1x3001xf16, #blocked>
    tile.store %O[%row, %j], %x : !tile.global<f16, 2>, tensor<1x3001xf16, #blocked>
  }
  return
}

// -----

// A one-element tile is not staged (there is no dimension to lay a buffer
// along; the IR mutation test found the pass aborting on it).
// CHECK-LABEL: func.func @one_element
// CHECK-NOT:   tile.async_copy
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @one_element(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 2>, %row: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    // expected-warning @+1 {{latency=3 has no effect on this load: it is not copied into shared memory ahead of its use, since its tile is one element (a buffer of it would save nothing)}}
    %x = tile.load %X[%row, %j] {latency = 3 : i32} : !tile.global<f32, 2> -> tensor<1x1xf32, #blocked>
    tile.store %O[%row, %j], %x : !tile.global<f32, 2>, tensor<1x1xf32, #blocked>
  }
  return
}

// -----

// With no hint, a loop's load whose tile is stored to shared memory after
// element-wise work (wgmma's B operand scaled in every trip: the multiply
// reads it from a buffer) is copied ahead too, at the pipeline's depth
// (the copy carries no latency); a load stored as it is (tile-stage-mma-
// operands copies those itself) or read by other ops stays a load.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @stored_after_work
// CHECK:       scf.for
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[64, 128], bf16
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BUF]] {layout = #blocked, shape = array<i64: 64, 128>} :
// CHECK-NEXT:    tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[B:.*]] = tile.local_load %[[BUF]] [0, 0] : {{.*}} -> tensor<64x128xbf16, #blocked>
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[B]]
// CHECK:         tile.local_alloc
// CHECK:         %[[R:.*]] = tile.load %{{.*}} : <bf16, 2> -> tensor<64x128xbf16, #blocked>
// CHECK-NEXT:    arith.extf %[[R]]
// CHECK-NEXT:    tile.store
func.func @stored_after_work(%B: !tile.global<bf16, 2>, %O: !tile.global<f32, 2>, %a: !tile.smem<[64, 64], bf16, #sw>, %s: f32, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %b = tile.load %B[%k, %c0] : !tile.global<bf16, 2> -> tensor<64x128xbf16, #blocked>
    %e = arith.extf %b : tensor<64x128xbf16, #blocked> to tensor<64x128xf32, #blocked>
    %sc = tile.full %s : tensor<64x128xf32, #blocked>
    %m = arith.mulf %e, %sc : tensor<64x128xf32, #blocked>
    %t = arith.truncf %m : tensor<64x128xf32, #blocked> to tensor<64x128xbf16, #blocked>
    %buf = tile.local_alloc %t : tensor<64x128xbf16, #blocked> -> !tile.smem<[64, 128], bf16, #sw>
    %d = tile.wgmma %a, %buf, %acc : !tile.smem<[64, 64], bf16, #sw>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    %other = tile.load %B[%k, %c1] : !tile.global<bf16, 2> -> tensor<64x128xbf16, #blocked>
    %f = arith.extf %other : tensor<64x128xbf16, #blocked> to tensor<64x128xf32, #blocked>
    tile.store %O[%k, %c0], %f : !tile.global<f32, 2>, tensor<64x128xf32, #blocked>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

// The same through a split, a stack and a view: a W4A16 GEMM's packed
// weight, each byte's two nibbles taken with a mask and a shift, stacked
// and interleaved along K, centred, converted and stored for the multiply.
// Everything made from the load goes into the buffer, so the load is
// copied ahead. A second load joined with a tile from elsewhere (%w) is
// not the stored tile's alone and stays a load.
#p = #tile.blocked<sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]>
#p3 = #tile.blocked<sizePerThread = [16, 1, 1], threadsPerWarp = [2, 1, 16], warpsPerCTA = [1, 1, 4], order = [0, 2, 1]>
#s3 = #tile.blocked<sizePerThread = [16, 2, 1], threadsPerWarp = [2, 1, 16], warpsPerCTA = [1, 1, 4], order = [1, 0, 2]>
#k = #tile.blocked<sizePerThread = [32, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#kw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
// CHECK-LABEL: func.func @stored_nibbles
// CHECK:       scf.for
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[32, 128], i8
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BUF]] {layout = #[[P:blocked[0-9]*]], order = array<i32: 1, 0>, shape = array<i64: 32, 128>} :
// CHECK-NEXT:    tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[Q:.*]] = tile.local_load %[[BUF]] [0, 0] : {{.*}} -> tensor<32x128xi8, #[[P]]>
// CHECK-NEXT:    arith.andi %[[Q]]
// CHECK-NEXT:    arith.shrsi %[[Q]]
// CHECK:         tile.local_alloc
// CHECK:         %[[R:.*]] = tile.load %{{.*}} -> tensor<32x128xi8, #[[P]]>
// CHECK-NEXT:    tile.expand_dims %[[R]]
// CHECK-NEXT:    tile.concat
func.func @stored_nibbles(%W: !tile.global<i8, 2>, %a: !tile.smem<[64, 64], bf16, #sw>, %w: tensor<32x1x128xi8, #p3>, %n: i32) -> (tensor<64x128xf32, #mma>, tensor<32x2x128xi8, #s3>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c15 = arith.constant dense<15> : tensor<32x128xi8, #p>
  %c4 = arith.constant dense<4> : tensor<32x128xi8, #p>
  %c8 = arith.constant dense<8> : tensor<64x128xi8, #k>
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %last = %w) -> (tensor<64x128xf32, #mma>, tensor<32x1x128xi8, #p3>) : i32 {
    %q = tile.load %W[%i, %c0] {order = array<i32: 1, 0>} : !tile.global<i8, 2> -> tensor<32x128xi8, #p>
    %lo = arith.andi %q, %c15 : tensor<32x128xi8, #p>
    %sh = arith.shrsi %q, %c4 : tensor<32x128xi8, #p>
    %hi = arith.andi %sh, %c15 : tensor<32x128xi8, #p>
    %el = tile.expand_dims %lo {axis = 1 : i32} : tensor<32x128xi8, #p> -> tensor<32x1x128xi8, #p3>
    %eh = tile.expand_dims %hi {axis = 1 : i32} : tensor<32x128xi8, #p> -> tensor<32x1x128xi8, #p3>
    %j = tile.concat %el, %eh {axis = 1 : i32} : tensor<32x1x128xi8, #p3>, tensor<32x1x128xi8, #p3> -> tensor<32x2x128xi8, #s3>
    %v = tile.reshape %j : tensor<32x2x128xi8, #s3> -> tensor<64x128xi8, #k>
    %c = arith.subi %v, %c8 : tensor<64x128xi8, #k>
    %f = arith.sitofp %c : tensor<64x128xi8, #k> to tensor<64x128xbf16, #k>
    %buf = tile.local_alloc %f : tensor<64x128xbf16, #k> -> !tile.smem<[64, 128], bf16, #kw>
    %d = tile.wgmma %a, %buf, %acc : !tile.smem<[64, 64], bf16, #sw>, !tile.smem<[64, 128], bf16, #kw>, tensor<64x128xf32, #mma>
    %other = tile.load %W[%i, %c1] {order = array<i32: 1, 0>} : !tile.global<i8, 2> -> tensor<32x128xi8, #p>
    %eo = tile.expand_dims %other {axis = 1 : i32} : tensor<32x128xi8, #p> -> tensor<32x1x128xi8, #p3>
    %jo = tile.concat %eo, %last {axis = 1 : i32} : tensor<32x1x128xi8, #p3>, tensor<32x1x128xi8, #p3> -> tensor<32x2x128xi8, #s3>
    %vo = tile.reshape %jo : tensor<32x2x128xi8, #s3> -> tensor<64x128xi8, #k>
    %co = arith.sitofp %vo : tensor<64x128xi8, #k> to tensor<64x128xbf16, #k>
    %bo = tile.local_alloc %co : tensor<64x128xbf16, #k> -> !tile.smem<[64, 128], bf16, #kw>
    scf.yield %d, %last : tensor<64x128xf32, #mma>, tensor<32x1x128xi8, #p3>
  }
  %t = tile.concat %r#1, %w {axis = 1 : i32} : tensor<32x1x128xi8, #p3>, tensor<32x1x128xi8, #p3> -> tensor<32x2x128xi8, #s3>
  return %r#0, %t : tensor<64x128xf32, #mma>, tensor<32x2x128xi8, #s3>
}
