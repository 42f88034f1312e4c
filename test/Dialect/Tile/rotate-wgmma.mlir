// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma --canonicalize --tile-async-wgmma | FileCheck %s --check-prefix=ASYNC

// tile-rotate-wgmma moves a loop's last multiply (attention's P V) to the
// next trip, right after the first (Q K^T), peels the first trip (which
// has no P V) and issues the last trip's P V after the loop, all under a
// branch on the loop running at all.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The shape of attention's loop with TMA rings for K and V. P V goes around
// the loop as V's slot index (%[[VI]]), P (%[[PP]]) and the rescaled
// accumulator (%[[CC]]). The V refill, which would overwrite the slot P V
// of the previous trip reads, moves after it; K's stays before Q K^T. The
// peeled trip has Q K^T and the softmax but no P V: the rescaling reads the
// loop's initial accumulator. After the loop, P V of the last trip.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:  %[[Q:[^:]*]]: !tile.smem<[64, 64], f16, #shared>, %[[N:[^:]*]]: i32
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
// CHECK:       %[[RK:.*]] = tile.smem_alloc
// CHECK:       %[[RV:.*]] = tile.smem_alloc
// CHECK:       %[[RUNS:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK-NEXT:  %[[IF:.*]]:5 = scf.if %[[RUNS]] -> (tensor<64x64xf32, #mma>, i32, tensor<64x64xf16, #dot_a>, i32, tensor<64x64xf32, #mma1>) {
//                the first trip: Q K^T, no P V; the rescaling reads the
//                loop's initial accumulator
// CHECK:         %[[K0:.*]] = tile.smem_slot %[[RK]]
// CHECK:         %[[S0:.*]] = tile.wgmma %[[Q]], %[[K0]], %[[Z]] :
// CHECK-NOT:     tile.wgmma
// CHECK:         %[[E0:.*]] = arith.mulf %[[S0]], %[[S0]]
// CHECK-NEXT:    %[[SC0:.*]] = arith.mulf %[[Z]], %[[E0]]
// CHECK-NEXT:    %[[A10:.*]] = tile.convert_layout %[[SC0]]
// CHECK-NOT:     tile.wgmma
// CHECK:         %[[STEP:.*]] = arith.addi %[[C0]], %[[C1]] : i32
// CHECK-NEXT:    %[[R:.*]]:5 = scf.for %[[J:.*]] = %[[STEP]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[Z]], %[[IT:.*]] = %{{.*}}, %[[PP:.*]] = %{{.*}}, %[[VI:.*]] = %{{.*}}, %[[CC:.*]] = %[[A10]])
// CHECK:           %[[S:.*]] = arith.remui %[[IT]]
// CHECK-NEXT:      %[[K:.*]] = tile.smem_slot %[[RK]][%[[S]]]
// CHECK:           tile.tma_load %{{.*}}, %{{.*}}, %[[BK:.*]][%{{.*}}] :
// CHECK-NOT:       tile.tma_load
// CHECK:           %[[QK:.*]] = tile.wgmma %[[Q]], %[[K]], %[[Z]] :
// CHECK-NEXT:      %[[VP:.*]] = tile.smem_slot %[[RV]][%[[VI]]]
// CHECK-NEXT:      %[[PV:.*]] = tile.wgmma %[[PP]], %[[VP]], %[[CC]] :
// CHECK-NEXT:      tile.tma_load %{{.*}}, %{{.*}}, %[[BV:.*]][%{{.*}}] :
// CHECK-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]] : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:      %[[E:.*]] = arith.mulf %[[QK]], %[[QK]]
// CHECK-NEXT:      %[[SC:.*]] = arith.mulf %[[BACK]], %[[E]]
// CHECK-NEXT:      %[[A1:.*]] = tile.convert_layout %[[SC]]
// CHECK-NEXT:      %[[P:.*]] = arith.truncf %[[E]]
// CHECK-NEXT:      %[[PA:.*]] = tile.convert_layout %[[P]]
// CHECK-NEXT:      scf.yield %[[ACC]], %{{.*}}, %[[PA]], %[[S]], %[[A1]] :
// CHECK-NEXT:    } {tile.pipelined}
// CHECK-NEXT:    %[[VL:.*]] = tile.smem_slot %[[RV]][%[[R]]#3]
// CHECK-NEXT:    %[[LAST:.*]] = tile.wgmma %[[R]]#2, %[[VL]], %[[R]]#4 :
// CHECK-NEXT:    %[[LASTB:.*]] = tile.convert_layout %[[LAST]]
// CHECK-NEXT:    scf.yield %[[LASTB]], %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[R]]#4 :
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]], %[[C0]],
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[IF]]#0
// Then tile-async-wgmma: Q K^T is waited for with wait_group 1, leaving
// P V (issued after it) in flight under the work up to the rescaling, which
// waits with wait_group 0; the V refill, held back by P V of this trip
// (its slot index came around the loop), moves alone to the end of the
// trip, K's stays at the top. The last P V, after the loop, is waited for at once.
// ASYNC-LABEL: func.func @attention
// ASYNC:         scf.for
// ASYNC:           tile.tma_load %{{.*}}, %{{.*}}, %[[BK:.*]][%{{.*}}] :
// ASYNC-NOT:       tile.tma_load
// ASYNC:           %[[QK:.*]] = tile.wgmma async
// ASYNC-NEXT:      %[[VP:.*]] = tile.smem_slot
// ASYNC-NEXT:      %[[PV:.*]] = tile.wgmma async %{{.*}}, %[[VP]], %{{.*}} :
// ASYNC-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]]
// ASYNC-NEXT:      %[[S:.*]] = tile.wgmma_wait 1, %[[QK]] :
// ASYNC-NEXT:      %[[E:.*]] = arith.mulf %[[S]], %[[S]]
// ASYNC-NEXT:      %[[O:.*]] = tile.wgmma_wait 0, %[[BACK]] : tensor<64x64xf32, #mma> reads %[[VP]] :
// ASYNC-NEXT:      arith.mulf %[[O]], %[[E]]
// ASYNC-NOT:       tile.wgmma
// ASYNC:           tile.tma_load %{{.*}}, %{{.*}}, %[[BV:.*]][%{{.*}}] :
// ASYNC-NEXT:      scf.yield
// ASYNC-NEXT:    } {tile.pipelined}
// ASYNC:         %[[LAST:.*]] = tile.wgmma async
// ASYNC-NEXT:    %[[LASTB:.*]] = tile.convert_layout %[[LAST]]
// ASYNC-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[LASTB]]
// ASYNC-NEXT:    scf.yield %[[W]]
func.func @attention(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bk = tile.mbarrier_alloc : !tile.mbarrier<2>
  %rv = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bv = tile.mbarrier_alloc : !tile.mbarrier<2>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %k = tile.smem_slot %rk[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %v = tile.smem_slot %rv[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bk[%s], %c0, %k : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bv[%s], %c0, %v : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wk = tile.smem_slot %rk[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mK[%j, %c0], %wk, %bk[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %wv = tile.smem_slot %rv[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mV[%j, %c0], %wv, %bv[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %qk = tile.wgmma %q, %k, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = arith.mulf %qk, %qk : tensor<64x64xf32, #mma>
    %scaled = arith.mulf %acc, %e : tensor<64x64xf32, #mma>
    %a1 = tile.convert_layout %scaled : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma1>
    %p = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %pv = tile.wgmma %pa, %v, %a1 : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma1>
    %back = tile.convert_layout %pv : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
    scf.yield %back, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// Left alone: one multiply (a GEMM main loop: nothing runs between two
// multiplies to overlap); a second multiply whose ring cp.async fills
// (its waits count copies in program order); an accumulator read before
// the first multiply.
// CHECK-LABEL: func.func @alone
// CHECK-NOT:   scf.if
// CHECK:       return
func.func @alone(%a: !tile.smem<[64, 64], f16, #sw>, %g: !tile.global<f16, 2>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %g1 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %g2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = arith.remui %j, %c2 : i32
    %v = tile.smem_slot %r[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.async_copy %g[%j, %c0], %v {layout = #blocked, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
    %s1 = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = arith.mulf %acc, %s1 : tensor<64x64xf32, #mma>
    %d = tile.wgmma %a, %v, %e : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %g3 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %e = arith.mulf %acc, %acc : tensor<64x64xf32, #mma>
    %s1 = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e2 = arith.mulf %e, %s1 : tensor<64x64xf32, #mma>
    %d = tile.wgmma %a, %a, %e2 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %g1, %g2, %g3 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}
