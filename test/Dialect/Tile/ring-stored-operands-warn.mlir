// RUN: tile-opt %s -split-input-file --tile-ring-stored-operands="warn=true" -verify-diagnostics | FileCheck %s

// tile-ring-stored-operands with `warn` (stored_operand_slots given): where
// no buffer is ringed, the function says why.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Nothing stored in a loop for a multiply.
// CHECK-LABEL: func.func @nothing_stored
// expected-warning @+1 {{stored_operand_slots=2 does not apply: no loop stores a multiply's operand in each trip}}
func.func @nothing_stored(%a: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// What the loop holds (a ring of four 8 KiB stages, the stored 8 KiB B: 40
// KiB, five blocks a multiprocessor) and a second buffer of B would leave
// four. B keeps one buffer, allocated before the loop.
// CHECK-LABEL: func.func @fewer_blocks
// CHECK-NOT:   tile.smem_slot %{{.*}} : <[2, 64, 64]
// CHECK:       %[[B:.*]] = tile.smem_alloc : <[64, 64], f16
// CHECK:       tile.local_store %{{.*}}, %[[B]]
// expected-warning @+1 {{stored_operand_slots=2 does not apply: a loop's stored operand 2 times would leave fewer blocks a multiprocessor (4, not 5)}}
func.func @fewer_blocks(%w: tensor<64x64xf16, #blk>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ring = tile.smem_alloc : !tile.smem<[4, 64, 64], f16, #rw>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %i = arith.remui %j, %c4 : i32
    %a = tile.smem_slot %ring[%i] : !tile.smem<[4, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %h = arith.addf %w, %w : tensor<64x64xf16, #blk>
    %b = tile.local_alloc %h : tensor<64x64xf16, #blk> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 256, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// Buffers live across the loop (read after it: 192 KiB) and the stored 32
// KiB B leave no room for a second buffer of B.
// CHECK-LABEL: func.func @no_room
// CHECK-NOT:   tile.smem_slot %{{.*}} : <[2, 64, 256]
// CHECK:       %[[B:.*]] = tile.smem_alloc : <[64, 256], f16
// CHECK:       tile.local_store %{{.*}}, %[[B]]
// expected-warning @+1 {{stored_operand_slots=2 does not apply: a loop's stored operand would not fit 2 times (262144 bytes of shared memory)}}
func.func @no_room(%a: !tile.smem<[64, 64], f16, #sw>, %w: tensor<64x256xf16, #blk>, %n: i32) -> (tensor<64x256xf32, #mma>, tensor<64x128xf16, #blk>, tensor<64x128xf16, #blk>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x256xf32, #mma>
  %big = tile.smem_alloc : !tile.smem<[8, 64, 128], f16, #rw>
  %mid = tile.smem_alloc : !tile.smem<[4, 64, 128], f16, #rw>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x256xf32, #mma>) : i32 {
    %h = arith.addf %w, %w : tensor<64x256xf16, #blk>
    %b = tile.local_alloc %h : tensor<64x256xf16, #blk> -> !tile.smem<[64, 256], f16, #sw>
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 256], f16, #sw>, tensor<64x256xf32, #mma>
    scf.yield %d : tensor<64x256xf32, #mma>
  }
  %s0 = tile.smem_slot %big[%c0] : !tile.smem<[8, 64, 128], f16, #rw> -> !tile.smem<[64, 128], f16, #sw>
  %v0 = tile.local_load %s0 [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blk>
  %s1 = tile.smem_slot %mid[%c0] : !tile.smem<[4, 64, 128], f16, #rw> -> !tile.smem<[64, 128], f16, #sw>
  %v1 = tile.local_load %s1 [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blk>
  return %r, %v0, %v1 : tensor<64x256xf32, #mma>, tensor<64x128xf16, #blk>, tensor<64x128xf16, #blk>
}
