// RUN: tile-opt %s -split-input-file --tile-defer-loop-stores | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-defer-loop-stores | tile-opt -split-input-file --verify-roundtrip > /dev/null
// RUN: tile-opt %s -split-input-file --tile-defer-loop-stores="warn=true shared-memory-bytes=45000" -verify-diagnostics > /dev/null

// tile-defer-loop-stores: a loop that stages a tile in every trip and
// copies it out with TMA (tile-convert-stores-to-tma's wait, store, copy)
// stages into a ring of two buffers the trips take in turn, and issues the
// copy of a trip in the next one (predicated on a previous trip, its
// coordinates carried), behind a wait for the copy two trips back: before
// the first multiply reading shared memory the trip writes, else at the
// top of the body. The last trip's copy follows the loop (and the waits
// right after it); the kernel's last wait names the ring.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#f32sw = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// CHECK:       #[[RINGL:.*]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 32>
// CHECK-LABEL: func.func @reduce_each_trip
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[2, 64, 64], f32, #[[RINGL]]>
// CHECK:       %[[NO:.*]] = arith.constant false
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:       %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:       %[[R:.*]]:4 = scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[RAN:.*]] = %[[NO]], %[[PREV:.*]] = %[[ZERO]], %[[ROW:.*]] = %[[ZERO]])
// CHECK-NEXT:    %[[SLOT:.*]] = arith.subi %[[ONE]], %[[PREV]] : i32
// CHECK-NEXT:    tile.tma_store_wait %[[RING]]
// CHECK-NEXT:    %[[P:.*]] = tile.smem_slot %[[RING]][%[[PREV]]]
// CHECK-NEXT:    tile.tma_store %{{.*}}[%[[ROW]], %{{.*}}], %[[P]] if %[[RAN]] reduce sum
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma
// CHECK:         %[[S:.*]] = tile.smem_slot %[[RING]][%[[SLOT]]]
// CHECK-NEXT:    tile.local_store %[[D]], %[[S]]
// CHECK-NOT:     tile.tma_store
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    scf.yield %[[D]], %[[TRUE]], %[[SLOT]], %{{.*}}
// CHECK:       %[[L:.*]] = tile.smem_slot %[[RING]][%[[R]]#2]
// CHECK-NEXT:  tile.tma_store %{{.*}}[%[[R]]#3, %{{.*}}], %[[L]] if %[[R]]#1 reduce sum
// CHECK:       tile.tma_store_wait %[[RING]]
func.func @reduce_each_trip(%a: !tile.smem<[64, 64], f16, #sw>, %map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %n: i32) attributes {tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %buf = tile.smem_alloc : <[64, 64], f32, #f32sw>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %row = arith.muli %j, %c64 : i32
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
    tile.local_store %d, %buf : tensor<64x64xf32, #mma>, <[64, 64], f32, #f32sw>
    tile.tma_store %map[%row, %c0], %buf reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #f32sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#f32sw = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// A multiply reads a tile the trip stages for it (attention backward's
// dS): the previous trip's copy goes right before it, where a barrier goes
// anyway, not at the top of the body.
// CHECK-LABEL: func.func @behind_staged_operand
// CHECK:       scf.for
// CHECK:         %[[D:.*]] = tile.wgmma
// CHECK-NEXT:    %[[H:.*]] = arith.truncf %[[D]]
// CHECK-NEXT:    %[[ST:.*]] = tile.local_alloc %[[H]]
// CHECK-NEXT:    tile.tma_store_wait
// CHECK-NEXT:    tile.smem_slot
// CHECK-NEXT:    tile.tma_store %{{.*}} if
// CHECK-NEXT:    tile.wgmma %[[ST]]
func.func @behind_staged_operand(%a: !tile.smem<[64, 64], f16, #sw>, %map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %n: i32) attributes {tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %buf = tile.smem_alloc : <[64, 64], f32, #f32sw>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %h = arith.truncf %d : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %st = tile.local_alloc %h : tensor<64x64xf16, #mma> -> !tile.smem<[64, 64], f16, #sw>
    %e = tile.wgmma %st, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
    tile.local_store %e, %buf : tensor<64x64xf32, #mma>, <[64, 64], f32, #f32sw>
    tile.tma_store %map[%j, %c0], %buf reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #f32sw>
  }
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#f32sw = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// A loop leaving a multiply in flight (attention backward's dK), completed
// by the wait right after it: the last trip's copy goes after that wait,
// so that the wait still follows the loop directly (tile-guard-empty-loops
// guards a loop that may run no trip only together with such waits;
// unguarded, ptxas serialized every wgmma at head_dim 128, C7515).
// CHECK-LABEL: func.func @after_waits
// CHECK:       %[[R:.*]]:4 = scf.for
// CHECK:       }
// CHECK-NEXT:  %[[W:.*]] = tile.wgmma_wait 0, %[[R]]#0
// CHECK-NEXT:  %[[L:.*]] = tile.smem_slot %{{.*}}[%[[R]]#2]
// CHECK-NEXT:  tile.tma_store %{{.*}}[%[[R]]#3, %{{.*}}], %[[L]] if %[[R]]#1 reduce sum
// CHECK:       return %[[W]]
func.func @after_waits(%a: !tile.smem<[64, 64], f16, #sw>, %map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %buf = tile.smem_alloc : <[64, 64], f32, #f32sw>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%dk = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %row = arith.muli %j, %c64 : i32
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
    tile.local_store %d, %buf : tensor<64x64xf32, #mma>, <[64, 64], f32, #f32sw>
    tile.tma_store %map[%row, %c0], %buf reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #f32sw>
    %k = tile.wgmma async %a, %a, %dk : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %k : tensor<64x64xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a : !tile.smem<[64, 64], f16, #sw>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
  return %w : tensor<64x64xf32, #mma>
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// No TMA store in a loop: nothing to defer (said with `warn`).
// expected-warning @+1 {{defer_loop_stores does not apply: no loop copies out of shared memory with TMA in its body}}
func.func @no_store(%a: !tile.smem<[64, 64], f16, #sw>, %n: i32) attributes {tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    tile.barrier
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#f32sw = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// The second buffer does not fit the shared memory given (45000 bytes in
// the third RUN line; 16 KiB staged and 8 KiB of operand): said, and left.
// expected-warning @+1 {{defer_loop_stores does not apply: a second staging buffer would not fit}}
func.func @does_not_fit(%a: !tile.smem<[64, 64], f16, #sw>, %map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %n: i32) attributes {tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %buf = tile.smem_alloc : <[64, 64], f32, #f32sw>
  %buf2 = tile.smem_alloc : <[64, 64], f32, #f32sw>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.local_store %d, %buf2 : tensor<64x64xf32, #mma>, <[64, 64], f32, #f32sw>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
    tile.local_store %d, %buf : tensor<64x64xf32, #mma>, <[64, 64], f32, #f32sw>
    tile.tma_store %map[%j, %c0], %buf reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #f32sw>
  }
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #f32sw>
  return
}
