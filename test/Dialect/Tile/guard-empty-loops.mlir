// RUN: tile-opt %s -split-input-file --tile-guard-empty-loops | FileCheck %s

// tile-guard-empty-loops puts a loop that leaves multiplies in flight, and
// the waits right after it, under a guard on its trip count, where the
// next trip completes a pending multiply (a wait) before it continues it:
// the path that skips the loop then yields the initial values after the
// waits, not into the registers of multiplies still in flight.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Two accumulators left in flight across the back edge (attention
// backward's dK and dV): each trip's first multiply is waited for at once,
// which completes the previous trip's too. Both results are waited for
// right after the loop; the counter is yielded as well.
// CHECK-LABEL: func.func @two_accumulators
// CHECK-SAME:  (%{{.*}}: !tile.smem<[64, 64], f16, #shared>, %{{.*}}: !tile.smem<[64, 64], f16, #shared>, %[[LB:.*]]: i32, %[[UB:.*]]: i32)
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK:       %[[RAN:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : i32
// CHECK-NEXT:  %[[G:.*]]:3 = scf.if %[[RAN]] -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32) {
// CHECK-NEXT:    %[[R:.*]]:3 = scf.for
// CHECK:         }
// CHECK-NEXT:    %[[W0:.*]] = tile.wgmma_wait 0, %[[R]]#0
// CHECK-NEXT:    %[[W1:.*]] = tile.wgmma_wait 0, %[[R]]#1
// CHECK-NEXT:    scf.yield %[[W0]], %[[W1]], %[[R]]#2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]], %[[Z]], %{{.*}} : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @two_accumulators(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %lb: i32, %ub: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:3 = scf.for %i = %lb to %ub step %c1 iter_args(%dk = %z, %dv = %z, %n = %c0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32) : i32 {
    %s = tile.wgmma async %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %v = tile.wgmma async %a, %b, %dv : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = tile.wgmma async %a, %b, %dk : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %m = arith.addi %n, %c1 : i32
    scf.yield %k, %v, %m : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
  }
  %w0 = tile.wgmma_wait 0, %r#0 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %w1 = tile.wgmma_wait 0, %r#1 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w0, %w1, %r#2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A GEMM's K loop: the next trip continues the pending multiply first (one
// pipeline stage across the back edge). Continuing an accumulator given by
// the caller: left alone.
// CHECK-LABEL: func.func @chain_first
// CHECK-NOT:   scf.if
// CHECK:       scf.for
// CHECK:       tile.wgmma_wait 0
func.func @chain_first(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %c: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.wgmma_wait 1 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same K loop starting at zero: guarded, so that its first trip may
// overwrite the accumulator (tile-fresh-accumulators); the skipping path
// yields the zeros after the wait.
// CHECK-LABEL: func.func @chain_from_zeros
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK:       %[[RAN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[G:.*]] = scf.if %[[RAN]] -> (tensor<64x64xf32, #mma>) {
// CHECK-NEXT:    %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK:         }
// CHECK-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[R]]
// CHECK-NEXT:    scf.yield %[[W]]
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]]
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[G]]
func.func @chain_from_zeros(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.wgmma_wait 1 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Loops left alone: constant bounds that run (4 trips); a result waited
// for later, under other work (the wait does not follow the loop); a loop
// that yields nothing in flight.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   scf.if
// CHECK:       return
func.func @left_alone(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %n: i32, %x: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    tile.wgmma_wait 0 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    tile.wgmma_wait 0 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %y = arith.addf %x, %x : tensor<64x64xf32, #mma>
  %w2 = tile.wgmma_wait 0, %r2 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %r3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.wgmma_wait 0, %d : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %e : tensor<64x64xf32, #mma>
  }
  return %w, %w2, %r3 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The multiply in flight reaches the yield through a conversion that only
// renames its registers (P V's accumulator laid out for 64 x 128 where
// the loop carries Q K^T's 64 x 64 layout), 64 registers a thread:
// guarded as a multiply yielded as it is (8-bit attention at 128 x 160
// tiles, P V's 64 registers a thread renamed so, had every wgmma
// serialized unguarded, C7515).
// CHECK-LABEL: func.func @renamed_in_flight
// CHECK:       scf.if
// CHECK-NEXT:    scf.for
// CHECK:           tile.convert_layout
// CHECK:         tile.wgmma_wait 0
// CHECK:       } else {
func.func @renamed_in_flight(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %lb: i32, %ub: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %z1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%o = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %s = tile.wgmma async %a, %a, %z1 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma> reads %a : !tile.smem<[64, 64], f16, #sw>
    %oc = tile.convert_layout %o : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #mma1>
    %d = tile.wgmma async %a, %b, %oc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x128xf32, #mma1>
    %dc = tile.convert_layout %d : tensor<64x128xf32, #mma1> -> tensor<64x128xf32, #mma>
    scf.yield %dc : tensor<64x128xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x128xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>
  return %w : tensor<64x128xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same renamed accumulator at 128 x 128 on 4 warps, 128 registers a
// thread (attention at head dim 128, 128 x 64 tiles, causal with the masked
// tiles in the loop, serialized unguarded: C7515): guarded.
// CHECK-LABEL: func.func @renamed_large_in_flight
// CHECK:       scf.if
// CHECK-NEXT:    scf.for
// CHECK:           tile.convert_layout
// CHECK:         tile.wgmma_wait 0
// CHECK:       } else {
func.func @renamed_large_in_flight(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: !tile.smem<[64, 64], f16, #sw>, %lb: i32, %ub: i32) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %z1 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%o = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %s = tile.wgmma async %a, %c, %z1 : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<128x64xf32, #mma> reads %a : !tile.smem<[128, 64], f16, #sw>
    %oc = tile.convert_layout %o : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #mma1>
    %d = tile.wgmma async %a, %b, %oc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma1>
    %dc = tile.convert_layout %d : tensor<128x128xf32, #mma1> -> tensor<128x128xf32, #mma>
    scf.yield %dc : tensor<128x128xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<128x128xf32, #mma> reads %a, %b : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>
  return %w : tensor<128x128xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Two loops a split made of one (tile-loop-split at %mid): the second
// starts from the first's results, multiplies still in flight. Skipped,
// the second loop's initial values are completed by the same waits before
// the paths meet (ptxas would otherwise inject a wait of its own at the
// join: C7517). The first loop is not guarded: its results go on into the
// second, not into waits.
// CHECK-LABEL: func.func @split_pair
// CHECK:       %[[R1:.*]]:2 = scf.for
// CHECK:       scf.if
// CHECK:         %[[R2:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1)
// CHECK:         %[[W0:.*]] = tile.wgmma_wait 0, %[[R2]]#0
// CHECK-NEXT:    %[[W1:.*]] = tile.wgmma_wait 0, %[[R2]]#1
// CHECK-NEXT:    scf.yield %[[W0]], %[[W1]]
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[S0:.*]] = tile.wgmma_wait 0, %[[R1]]#0
// CHECK-NEXT:    %[[S1:.*]] = tile.wgmma_wait 0, %[[R1]]#1
// CHECK-NEXT:    scf.yield %[[S0]], %[[S1]]
// CHECK-NEXT:  }
func.func @split_pair(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %mid: i32, %ub: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r1:2 = scf.for %i = %c0 to %mid step %c1 iter_args(%dk = %z, %dv = %z) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %s = tile.wgmma async %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %v = tile.wgmma async %a, %b, %dv : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = tile.wgmma async %a, %b, %dk : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %k, %v : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  %r2:2 = scf.for %i = %mid to %ub step %c1 iter_args(%dk = %r1#0, %dv = %r1#1) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %s = tile.wgmma async %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %v = tile.wgmma async %a, %b, %dv : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = tile.wgmma async %a, %b, %dk : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %k, %v : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  %w0 = tile.wgmma_wait 0, %r2#0 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %w1 = tile.wgmma_wait 0, %r2#1 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w0, %w1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A K loop from zeros whose body makes its B operand in registers (read,
// scaled and stored for the multiply in every trip: a dequantized weight),
// so its first trip is not peeled: guarded all the same. Unguarded, the
// path that skipped it moved the zeros into the multiply's registers at
// the join before the wait, and ptxas serialized every wgmma (C7515, a
// W4A16 GEMM). A loop from zeros making no tile in registers and streaming
// nothing either (a buffer allocated in its body) is left alone.
// CHECK-LABEL: func.func @operand_made_from_zeros
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK:       %[[RAN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[G:.*]] = scf.if %[[RAN]] -> (tensor<64x64xf32, #mma>) {
// CHECK-NEXT:    %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK:           tile.local_load
// CHECK:         }
// CHECK-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[R]]
// CHECK-NEXT:    scf.yield %[[W]]
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]]
// CHECK-NEXT:  }
// CHECK-NOT:   scf.if
// CHECK:       scf.for
// CHECK:         tile.smem_alloc
// CHECK:       tile.wgmma_wait 0
func.func @operand_made_from_zeros(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %two = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #blocked>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %x = tile.local_load %q [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #blocked>
    %s = arith.mulf %x, %two : tensor<64x64xf16, #blocked>
    tile.local_store %s, %b : tensor<64x64xf16, #blocked>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.wgmma_wait 1 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma async %a, %buf, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.wgmma_wait 1 reads %a, %buf : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %w2 = tile.wgmma_wait 0, %r2 : tensor<64x64xf32, #mma> reads %a : !tile.smem<[64, 64], f16, #sw>
  return %w, %w2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}
