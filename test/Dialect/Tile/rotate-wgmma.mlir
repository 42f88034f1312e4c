// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma --canonicalize --tile-async-wgmma | FileCheck %s --check-prefix=ASYNC
// With rescale-in-trip, the rescaling stays at the end of its trip:
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma=rescale-in-trip=true | FileCheck %s --check-prefix=INTRIP
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma=rescale-in-trip=true --canonicalize --tile-async-wgmma | FileCheck %s --check-prefix=INTRIP-ASYNC
// The register budget: @attention's rotated loop keeps 166 registers per
// thread live (the moved multiply's accumulator 32, Q K^T's result 32, and
// twice what goes around: P 16, the rescaling's factor 32 and three i32);
// with the rescaling left in its trip, its factor does not go around: 102.
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma=max-registers=166 | FileCheck %s --check-prefix=FITS
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma=max-registers=165 | FileCheck %s --check-prefix=OVER
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma="max-registers=102 rescale-in-trip=true" | FileCheck %s --check-prefix=FITS
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma="max-registers=101 rescale-in-trip=true" | FileCheck %s --check-prefix=OVER
// FITS-LABEL: func.func @attention
// FITS:       scf.if
// OVER-LABEL: func.func @attention
// OVER-NOT:   scf.if
// OVER-LABEL: func.func @alone

// tile-rotate-wgmma moves a loop's last multiply (attention's P V) to the
// next trip, right after the first (Q K^T), with the wait and refill of the
// ring it reads; it peels the first trip (which has no P V) and issues the
// last trip's after the loop, all under a branch on the loop running at
// all. The accumulator's rescaling moves with the multiply, or, with
// rescale-in-trip, stays in its trip, at the trip's end, on the multiply
// issued in the trip.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The shape of attention's loop with TMA rings for K and V. What the moved
// ops read from the trip goes around the loop: V's slot index (%[[VI]],
// which its wait reads too: one argument), the refill's coordinate (the
// induction variable, %[[VJ]]) and slot (%[[VW]]), the rescaling's factor
// (%[[EE]]) and P (%[[PP]]). The accumulator's argument (%[[ACC]]) now
// carries P V's result. The peeled trip waits for K, refills it, and runs
// Q K^T and the softmax: no V wait or refill, no rescaling, no P V. After
// the loop, the last trip's V wait, refill, rescaling and P V.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:  %[[MK:[^:]*]]: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %[[MV:[^:]*]]: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %[[Q:[^:]*]]: !tile.smem<[64, 64], f16, #shared>, %[[N:[^:]*]]: i32
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
// CHECK:       %[[RK:.*]] = tile.smem_alloc
// CHECK-NEXT:  %[[BK:.*]] = tile.mbarrier_alloc
// CHECK-NEXT:  %[[RV:.*]] = tile.smem_alloc
// CHECK-NEXT:  %[[BV:.*]] = tile.mbarrier_alloc
// CHECK:       %[[RUNS:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK-NEXT:  %[[IF:.*]]:7 = scf.if %[[RUNS]] -> (tensor<64x64xf32, #mma>, i32, i32, i32, i32, tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>) {
// CHECK:         tile.mbarrier_wait %[[BK]]
// CHECK-NOT:     tile.mbarrier_wait
// CHECK:         tile.tma_load %[[MK]]
// CHECK-NOT:     tile.tma_load
// CHECK:         %[[S0:.*]] = tile.wgmma %[[Q]], %{{.*}}, %[[Z]] :
// CHECK-NEXT:    %[[E0:.*]] = arith.mulf %[[S0]], %[[S0]]
// CHECK-NEXT:    %[[P0:.*]] = arith.truncf %[[E0]]
// CHECK-NEXT:    %[[PA0:.*]] = tile.convert_layout %[[P0]]
// CHECK-NEXT:    %[[STEP:.*]] = arith.addi %[[C0]], %[[C1]] : i32
// CHECK-NEXT:    %[[R:.*]]:7 = scf.for %[[J:.*]] = %[[STEP]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[Z]], %[[IT:.*]] = %{{.*}}, %[[VI:.*]] = %{{.*}}, %[[VJ:.*]] = %[[C0]], %[[VW:.*]] = %{{.*}}, %[[EE:.*]] = %[[E0]], %[[PP:.*]] = %[[PA0]])
// CHECK:           %[[S:.*]] = arith.remui %[[IT]]
// CHECK-NEXT:      %[[K:.*]] = tile.smem_slot %[[RK]][%[[S]]]
// CHECK:           tile.mbarrier_wait %[[BK]][%[[S]]]
// CHECK:           tile.tma_load %[[MK]][%[[J]], %[[C0]]]
// CHECK:           %[[QK:.*]] = tile.wgmma %[[Q]], %[[K]], %[[Z]] :
// CHECK-NEXT:      %[[VP:.*]] = tile.smem_slot %[[RV]][%[[VI]]]
// CHECK-NEXT:      %[[VWP:.*]] = tile.smem_slot %[[RV]][%[[VW]]]
// CHECK-NEXT:      tile.mbarrier_wait %[[BV]][%[[VI]]], %[[C0]], %[[VP]]
// CHECK-NEXT:      tile.tma_load %[[MV]][%[[VJ]], %[[C0]]], %[[VWP]], %[[BV]][%[[VW]]]
// CHECK-NEXT:      %[[SC:.*]] = arith.mulf %[[ACC]], %[[EE]]
// CHECK-NEXT:      %[[A1:.*]] = tile.convert_layout %[[SC]]
// CHECK-NEXT:      %[[PV:.*]] = tile.wgmma %[[PP]], %[[VP]], %[[A1]] :
// CHECK-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]] : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:      %[[E:.*]] = arith.mulf %[[QK]], %[[QK]]
// CHECK-NEXT:      %[[P:.*]] = arith.truncf %[[E]]
// CHECK-NEXT:      %[[PA:.*]] = tile.convert_layout %[[P]]
// CHECK-NEXT:      scf.yield %[[BACK]], %{{.*}}, %[[S]], %[[J]], %{{.*}}, %[[E]], %[[PA]] :
// CHECK-NEXT:    } {tile.pipelined}
// CHECK-NEXT:    %[[VL:.*]] = tile.smem_slot %[[RV]][%[[R]]#2]
// CHECK-NEXT:    %[[VLW:.*]] = tile.smem_slot %[[RV]][%[[R]]#4]
// CHECK-NEXT:    tile.mbarrier_wait %[[BV]][%[[R]]#2], %[[C0]], %[[VL]]
// CHECK-NEXT:    tile.tma_load %[[MV]][%[[R]]#3, %[[C0]]], %[[VLW]], %[[BV]][%[[R]]#4]
// CHECK-NEXT:    %[[SCL:.*]] = arith.mulf %[[R]]#0, %[[R]]#5
// CHECK-NEXT:    %[[AL:.*]] = tile.convert_layout %[[SCL]]
// CHECK-NEXT:    %[[LAST:.*]] = tile.wgmma %[[R]]#6, %[[VL]], %[[AL]] :
// CHECK-NEXT:    %[[LASTB:.*]] = tile.convert_layout %[[LAST]]
// CHECK-NEXT:    scf.yield %[[LASTB]], %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[R]]#4, %[[R]]#5, %[[R]]#6 :
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]], %[[C0]],
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[IF]]#0
// Then tile-async-wgmma: Q K^T and P V both in flight; a wait_group 1
// before the rescaling (the previous P V: already complete), P V issued,
// a wait_group 1 completes Q K^T with P V in flight under the softmax,
// and a wait_group 0 before the back edge completes P V (its A operand,
// P, is an iteration argument: ptxas serializes an RS multiply whose
// registers a yield may overwrite while it runs). The last P V, after the
// loop, is waited for at once.
// ASYNC-LABEL: func.func @attention
// ASYNC:         scf.for
// ASYNC:           %[[QK:.*]] = tile.wgmma async
// ASYNC:           tile.mbarrier_wait
// ASYNC-NEXT:      tile.tma_load
// ASYNC-NEXT:      %[[O:.*]] = tile.wgmma_wait 1, %{{.*}} : tensor<64x64xf32, #mma> reads
// ASYNC-NEXT:      arith.mulf %[[O]],
// ASYNC-NEXT:      tile.convert_layout
// ASYNC-NEXT:      %[[PV:.*]] = tile.wgmma async
// ASYNC-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]]
// ASYNC-NEXT:      %[[S:.*]] = tile.wgmma_wait 1, %[[QK]] :
// ASYNC-NEXT:      arith.mulf %[[S]], %[[S]]
// ASYNC-NOT:       tile.wgmma
// ASYNC:           tile.wgmma_wait 0 reads
// ASYNC-NEXT:      scf.yield %[[BACK]],
// ASYNC-NEXT:    } {tile.pipelined}
// ASYNC:         %[[LAST:.*]] = tile.wgmma async
// ASYNC-NEXT:    %[[LASTB:.*]] = tile.convert_layout %[[LAST]]
// ASYNC-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[LASTB]]
// ASYNC-NEXT:    scf.yield %[[W]]
// With the rescaling in its trip: the accumulator's argument (%[[ACC]])
// carries the rescaled accumulator, which the moved P V reads (renamed to
// its layout); at the trip's end, P V's result is rescaled by this trip's
// factor (%[[E]]) and goes around. The peeled trip rescales the initial
// accumulator; the last P V, after the loop, reads the loop's result as it
// is. The factor no longer goes around.
// INTRIP-LABEL: func.func @attention
// INTRIP:       scf.if
// INTRIP:         %[[S0:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[Z:.*]] :
// INTRIP-NEXT:    %[[E0:.*]] = arith.mulf %[[S0]], %[[S0]]
// INTRIP:         %[[R0:.*]] = arith.mulf %[[Z]], %[[E0]]
// INTRIP-NEXT:    %[[R0A:.*]] = tile.convert_layout %[[R0]]
// INTRIP-NEXT:    %[[R0B:.*]] = tile.convert_layout %[[R0A]]
// INTRIP:         %[[R:.*]]:6 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[R0B]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PP:.*]] = %{{.*}})
// INTRIP:           %[[QK:.*]] = tile.wgmma
// INTRIP:           %[[A1:.*]] = tile.convert_layout %[[ACC]] : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma1>
// INTRIP-NEXT:      tile.mbarrier_wait
// INTRIP-NEXT:      tile.tma_load
// INTRIP-NEXT:      %[[PV:.*]] = tile.wgmma %[[PP]], %{{.*}}, %[[A1]] :
// INTRIP-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]]
// INTRIP-NEXT:      %[[E:.*]] = arith.mulf %[[QK]], %[[QK]]
// INTRIP-NEXT:      arith.truncf %[[E]]
// INTRIP-NEXT:      %[[PA:.*]] = tile.convert_layout
// INTRIP-NEXT:      %[[SC:.*]] = arith.mulf %[[BACK]], %[[E]]
// INTRIP-NEXT:      %[[SC1:.*]] = tile.convert_layout %[[SC]]
// INTRIP-NEXT:      %[[SC2:.*]] = tile.convert_layout %[[SC1]]
// INTRIP-NEXT:      scf.yield %[[SC2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PA]] :
// INTRIP:         %[[AL:.*]] = tile.convert_layout %[[R]]#0
// INTRIP-NEXT:    tile.mbarrier_wait
// INTRIP-NEXT:    tile.tma_load
// INTRIP-NEXT:    tile.wgmma %[[R]]#5, %{{.*}}, %[[AL]] :
// Then tile-async-wgmma: P V issued on the rescaled accumulator without a
// wait (it completed in the previous trip), Q K^T completed under P V for
// the softmax, and P V completed (wait_group 0, its result) for the
// rescaling at the trip's end, which also frees P's registers for the
// yield: no second wait before the back edge.
// INTRIP-ASYNC-LABEL: func.func @attention
// INTRIP-ASYNC:         scf.for
// INTRIP-ASYNC:           %[[QK:.*]] = tile.wgmma async
// INTRIP-ASYNC-NOT:       tile.wgmma_wait
// INTRIP-ASYNC:           %[[PV:.*]] = tile.wgmma async
// INTRIP-ASYNC-NEXT:      %[[BACK:.*]] = tile.convert_layout %[[PV]]
// INTRIP-ASYNC-NEXT:      %[[S:.*]] = tile.wgmma_wait 1, %[[QK]] :
// INTRIP-ASYNC-NEXT:      %[[E:.*]] = arith.mulf %[[S]], %[[S]]
// INTRIP-ASYNC-NOT:       tile.wgmma
// INTRIP-ASYNC:           %[[O:.*]] = tile.wgmma_wait 0, %[[BACK]] :
// INTRIP-ASYNC-NEXT:      %[[SC:.*]] = arith.mulf %[[O]], %[[E]]
// INTRIP-ASYNC-NEXT:      scf.yield %[[SC]],
// INTRIP-ASYNC-NEXT:    } {tile.pipelined}
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
// (its waits count copies in program order); an accumulator read by
// something other than the rescaling (here yielded: it would read the
// multiply's result in flight).
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
  %g3:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %x = %z) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %e = arith.mulf %acc, %acc : tensor<64x64xf32, #mma>
    %s1 = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e2 = arith.mulf %e, %s1 : tensor<64x64xf32, #mma>
    %d = tile.wgmma %a, %a, %e2 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %e : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  return %g1, %g2, %g3#0 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A rescaling that starts before the first multiply moves too: it runs
// after it, in the next trip, on what the previous trip's first multiply
// left (%[[T]]), and the peeled trip has none of it.
// CHECK-LABEL: func.func @rescale_first
// CHECK:       scf.if
// CHECK:         %[[S0:.*]] = tile.wgmma
// CHECK-NOT:     arith.mulf
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[T:.*]] = %[[S0]])
// CHECK-NEXT:      %[[S:.*]] = tile.wgmma
// CHECK-NEXT:      %[[E:.*]] = arith.mulf %[[ACC]], %[[ACC]]
// CHECK-NEXT:      %[[E2:.*]] = arith.mulf %[[E]], %[[T]]
// CHECK-NEXT:      %[[D:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[E2]]
// CHECK-NEXT:      scf.yield %[[D]], %[[S]]
// In its trip, that rescaling runs at the trip's end, on the multiply
// issued in the trip and this trip's first multiply; the peeled trip
// rescales the initial accumulator.
// INTRIP-LABEL: func.func @rescale_first
// INTRIP:       scf.if
// INTRIP:         %[[S0:.*]] = tile.wgmma
// INTRIP-NEXT:    %[[E0:.*]] = arith.mulf %[[Z:.*]], %[[Z]]
// INTRIP-NEXT:    %[[R0:.*]] = arith.mulf %[[E0]], %[[S0]]
// INTRIP:         %[[L:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[R0]])
// INTRIP-NEXT:      %[[S:.*]] = tile.wgmma
// INTRIP-NEXT:      %[[D:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[ACC]]
// INTRIP-NEXT:      %[[E:.*]] = arith.mulf %[[D]], %[[D]]
// INTRIP-NEXT:      %[[E2:.*]] = arith.mulf %[[E]], %[[S]]
// INTRIP-NEXT:      scf.yield %[[E2]]
// INTRIP:         tile.wgmma %{{.*}}, %{{.*}}, %[[L]] :
func.func @rescale_first(%a: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %g = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %e = arith.mulf %acc, %acc : tensor<64x64xf32, #mma>
    %s1 = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e2 = arith.mulf %e, %s1 : tensor<64x64xf32, #mma>
    %d = tile.wgmma %a, %a, %e2 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %g : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// Scores in two parts (MLA's latent and rotary dimensions): the second
// multiply accumulates into the first's result. The moved multiply goes
// behind the whole chain, so that the wait for the scores before the
// softmax leaves it in flight (tile-async-wgmma waits for all groups but
// one), and the chain's registers count once in the budget (the same 166
// as @attention).
// CHECK-LABEL: func.func @two_part_scores
// CHECK:         scf.for
// CHECK:           %[[S1:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT:      %[[S2:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[S1]] :
// CHECK-NEXT:      tile.smem_slot
// CHECK:           %[[PV:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16, #dot_a>
// CHECK:           arith.mulf %[[S2]], %[[S2]]
// ASYNC-LABEL: func.func @two_part_scores
// ASYNC:         scf.for
// ASYNC:           %[[S1:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %{{.*}} : !tile.smem
// ASYNC-NEXT:      %[[S2:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[S1]] : !tile.smem
// ASYNC:           tile.wgmma async %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16
// ASYNC-NEXT:      tile.convert_layout
// ASYNC-NEXT:      tile.wgmma_wait 1, %[[S2]]
// FITS-LABEL: func.func @two_part_scores
// FITS:       scf.if
// OVER-LABEL: func.func @two_part_scores
// OVER-NOT:   scf.if
func.func @two_part_scores(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %q2: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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
    %qk1 = tile.wgmma %q, %k, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %qk = tile.wgmma %q2, %k, %qk1 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
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
