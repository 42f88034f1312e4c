// RUN: tile-opt %s -split-input-file --tile-ring-stored-operands | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-ring-stored-operands | tile-opt -split-input-file --verify-roundtrip > /dev/null
// RUN: tile-opt %s -split-input-file --tile-ring-stored-operands="slots=1" | FileCheck %s --check-prefix=ONE

// tile-ring-stored-operands: a multiply's B operand that a loop stores in
// each trip (tile.local_alloc of a tile the body computes) becomes a ring of
// two buffers before the loop, the trip storing into the slot of its trip
// counter modulo 2 (the loop's own counter where it has one, else one
// added), so that tile-async-wgmma need not complete the previous trip's
// multiply before the store.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A B dequantized in each trip, the loop counting its trips already (as
// tile-pipeline's rings leave it): that counter picks the slot.
// CHECK:       #[[RINGL:.*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// CHECK-LABEL: func.func @dequantized_b
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[2, 64, 64], f16, #[[RINGL]]>
// CHECK-NEXT:  scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}})
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[I:.*]] = arith.remui %[[C]], %[[TWO]] : i32
// CHECK:         %[[H:.*]] = arith.truncf
// CHECK-NEXT:    %[[S:.*]] = tile.smem_slot %[[RING]][%[[I]]]
// CHECK-NEXT:    tile.local_store %[[H]], %[[S]]
// CHECK-NEXT:    tile.wgmma %{{.*}}, %[[S]], %[[ACC]]
// CHECK-NOT:   tile.local_alloc
// With one slot, the buffer is still allocated before the loop (so that
// the wait completing the previous trip's multiply can name it).
// ONE-LABEL:   func.func @dequantized_b
// ONE:         %[[B:.*]] = tile.smem_alloc : <[64, 64], f16
// ONE-NEXT:    scf.for
// ONE-NOT:       arith.remui
// ONE:           tile.local_store %{{.*}}, %[[B]]
// ONE-NEXT:      tile.wgmma %{{.*}}, %[[B]], %{{.*}}
// ONE-NOT:     tile.local_alloc
// ONE-LABEL:   func.func @counter_added
func.func @dequantized_b(%a: !tile.smem<[64, 64], f16, #sw>, %w: tensor<64x64xf32, #blk>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %k = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.mulf %w, %w : tensor<64x64xf32, #blk>
    %h = arith.truncf %s : tensor<64x64xf32, #blk> to tensor<64x64xf16, #blk>
    %b = tile.local_alloc %h : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %d, %k1 : tensor<64x64xf32, #mma>, i32
  }
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// No counter: one is added, from 0, growing by 1 each trip (not with one
// slot: ONE). Both multiplies
// of the trip read the slot (one as B, one as A).
// CHECK-LABEL: func.func @counter_added
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[2, 64, 64]
// CHECK:       scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[C:.*]] = %c0{{.*}})
// CHECK:         %[[I:.*]] = arith.remui %[[C]], %{{.*}} : i32
// CHECK:         %[[S:.*]] = tile.smem_slot %[[RING]][%[[I]]]
// CHECK-NEXT:    tile.local_store %{{.*}}, %[[S]]
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma %{{.*}}, %[[S]], %{{.*}}
// CHECK-NEXT:    %[[E:.*]] = tile.wgmma %[[S]], %{{.*}}, %[[D]]
// CHECK:         %[[N:.*]] = arith.addi %[[C]], %{{.*}} : i32
// CHECK-NEXT:    scf.yield %[[E]], %[[N]]
// ONE:         scf.for %{{.*}} iter_args(%{{[^,]*}}) ->
func.func @counter_added(%a: !tile.smem<[64, 64], f16, #sw>, %w: tensor<64x64xf16, #blk>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %h = arith.addf %w, %w : tensor<64x64xf16, #blk>
    %b = tile.local_alloc %h : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.wgmma %b, %a, %d : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %e : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Left as they are: a buffer multiplied only as A (each warpgroup's own
// rows: tile-insert-barriers orders them per warpgroup), one also read
// otherwise (a local_load), and one outside a loop.
// CHECK-LABEL: func.func @not_ringed
// CHECK-NOT:   tile.smem_alloc
// CHECK-COUNT-3: tile.local_alloc
// CHECK-NOT:   tile.smem_slot
func.func @not_ringed(%a: !tile.smem<[64, 64], f16, #sw>, %w: tensor<64x64xf16, #blk>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %h = arith.addf %w, %w : tensor<64x64xf16, #blk>
    %p = tile.local_alloc %h : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %p, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %b = tile.local_alloc %h : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
    %e = tile.wgmma %a, %b, %d : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %back = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #blk>
    scf.yield %e : tensor<64x64xf32, #mma>
  }
  %o = tile.local_alloc %w : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
  %f = tile.wgmma %a, %o, %r : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  return %f : tensor<64x64xf32, #mma>
}

