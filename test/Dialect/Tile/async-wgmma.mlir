// RUN: tile-opt %s -split-input-file --tile-async-wgmma | FileCheck %s
// Running it again on its own output changes nothing.
// RUN: tile-opt %s -split-input-file --tile-async-wgmma --tile-async-wgmma | FileCheck %s

// tile-async-wgmma makes every tile.wgmma async and places the
// tile.wgmma_waits: before the first use that reads an accumulator's
// registers (with the number of groups known to be issued since), and
// before a write into a buffer a multiply in flight may still read; a refill
// of a pipelined ring instead moves, with the trip's other refills, after a
// wait that completes the previous trip's multiply (or, where the next trip
// needs the slot early and no other block covers the wait, stays behind a
// wait for that multiply alone: @one_ring_both_multiplies).

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// A GEMM main loop (two-stage TMA rings, as tile-convert-copies-to-tma
// leaves it): the multiply of trip k accumulates onto trip k-1's, which is
// still in flight (no wait for the chain); a wait_group 1 after it completes
// trip k-1's, and the refills of the slots trip k-1 read move after that
// wait. After the loop, the result is waited for at once, naming the rings.
// CHECK-LABEL: func.func @gemm
// CHECK:       %[[RA:.*]] = tile.smem_alloc
// CHECK:       %[[RB:.*]] = tile.smem_alloc
// CHECK:       %[[R:.*]]:2 = scf.for
// CHECK:         tile.mbarrier_wait
// CHECK-NEXT:    tile.mbarrier_wait
// CHECK-NOT:     tile.tma_load
// CHECK:         %[[D:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT:    tile.wgmma_wait 1 reads %[[RA]], %[[RB]] :
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    scf.yield %[[D]],
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  %[[W:.*]] = tile.wgmma_wait 0, %[[R]]#0 : tensor<64x64xf32, #mma> reads %[[RA]], %[[RB]] :
// CHECK-NEXT:  tile.mbarrier_inval
// CHECK-NEXT:  tile.mbarrier_inval
// CHECK-NEXT:  return %[[W]]
func.func @gemm(%mA: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mB: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %m: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %ba = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %ba {count = 1 : i32} : !tile.mbarrier<2>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bb = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %bb {count = 1 : i32} : !tile.mbarrier<2>
  %p0 = arith.cmpi sgt, %n, %c0 : i32
  %sa0 = tile.smem_slot %ra[%c0] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %mA[%m, %c0], %sa0, %ba[%c0] if %p0 : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
  %sb0 = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %mB[%c0, %m], %sb0, %bb[%c0] if %p0 : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %vb = tile.smem_slot %rb[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %va = tile.smem_slot %ra[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %fills = arith.divui %it, %c2 : i32
    %phase = arith.andi %fills, %c1 : i32
    tile.mbarrier_wait %ba[%s], %phase, %va : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bb[%s], %phase, %vb : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %k1 = arith.addi %k, %c1 : i32
    %more = arith.cmpi slt, %k1, %n : i32
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wa = tile.smem_slot %ra[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %kk = arith.muli %k1, %c64 : i32
    tile.tma_load %mA[%m, %kk], %wa, %ba[%ws] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %wb = tile.smem_slot %rb[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mB[%kk, %m], %wb, %bb[%ws] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %d = tile.wgmma %va, %vb, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.mbarrier_inval %bb : !tile.mbarrier<2>
  tile.mbarrier_inval %ba : !tile.mbarrier<2>
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// B computed in registers and stored in each trip into the slot of its trip
// (trip counter modulo 2: tile-ring-stored-operands' ring), A from a TMA
// ring. The previous trip's multiply reads the other slot, and the one two
// trips back is complete (the wait_group 1 after each multiply): the store
// gets no wait, and the multiply of the previous trip runs under it.
// CHECK-LABEL: func.func @stored_b_ring
// CHECK:       %[[RA:.*]] = tile.smem_alloc
// CHECK:       %[[RS:.*]] = tile.smem_alloc
// CHECK:       scf.for
// CHECK-NOT:     tile.wgmma_wait
// CHECK:         tile.local_store %{{.*}}, %[[S:[a-z0-9]+]] :
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %{{.*}}, %[[S]], %{{.*}} :
// CHECK-NEXT:    tile.wgmma_wait 1 reads %[[RA]], %[[RS]] :
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    scf.yield %[[D]],
func.func @stored_b_ring(%mA: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %x: tensor<64x64xf16, #blk>, %m: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %ba = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %ba {count = 1 : i32} : !tile.mbarrier<2>
  %rs = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %p0 = arith.cmpi sgt, %n, %c0 : i32
  %sa0 = tile.smem_slot %ra[%c0] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %mA[%m, %c0], %sa0, %ba[%c0] if %p0 : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %va = tile.smem_slot %ra[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %fills = arith.divui %it, %c2 : i32
    %phase = arith.andi %fills, %c1 : i32
    tile.mbarrier_wait %ba[%s], %phase, %va : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %k1 = arith.addi %k, %c1 : i32
    %more = arith.cmpi slt, %k1, %n : i32
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wa = tile.smem_slot %ra[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %kk = arith.muli %k1, %c64 : i32
    tile.tma_load %mA[%m, %kk], %wa, %ba[%ws] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %b = arith.addf %x, %x : tensor<64x64xf16, #blk>
    %vs = tile.smem_slot %rs[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.local_store %b, %vs : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %va, %vs, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.mbarrier_inval %ba : !tile.mbarrier<2>
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The same ring where no wait bounds the groups in flight (the multiplies
// chain through the accumulator, nothing else waits): one from two trips
// back may still read the slot, so the store waits for every multiply.
// And a slot not of a trip counter (the induction variable modulo 2): the
// previous trip's multiply that read the buffer is waited for as for any
// buffer (wait_group 1: the other multiply of the trip stays in flight).
// CHECK-LABEL: func.func @stored_b_ring_unbounded
// CHECK:       scf.for
// CHECK:         tile.wgmma_wait 0 reads %{{.*}} :
// CHECK-NEXT:    tile.local_store
// CHECK-NEXT:    tile.wgmma async
// CHECK:       scf.for
// CHECK:         tile.wgmma_wait 1 reads %{{.*}} :
// CHECK-NEXT:    tile.local_store
// CHECK-NEXT:    tile.wgmma async
func.func @stored_b_ring_unbounded(%a: !tile.smem<[64, 64], f16, #sw>, %x: tensor<64x64xf16, #blk>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rs = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %vs = tile.smem_slot %rs[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.local_store %x, %vs : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %vs, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %it1 = arith.addi %it, %c1 : i32
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  }
  %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r#0) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = arith.remui %k, %c2 : i32
    %vs = tile.smem_slot %rs[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.local_store %x, %vs : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %vs, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.wgmma %a, %a, %d : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %e : tensor<64x64xf32, #mma>
  }
  return %r2 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The shape of attention's loop. S = Q K^T is read at once: a wait_group 0
// right before its first use. The refills of K's and V's rings move after
// that wait (it also completes the previous trip's P V, which read the V
// slot being refilled). P V accumulates onto the rescaled accumulator and
// goes back around the loop through a conversion that only renames
// registers, still in flight; the next trip's rescaling waits for it with
// wait_group 1 (S was issued after it). After the loop, a wait_group 0.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:  %[[Q:[^:]*]]: !tile.smem<[64, 64], f16, #shared>, %[[P:[^:]*]]: !tile.smem<[64, 64], f16, #shared>
// CHECK:       tile.smem_alloc
// CHECK-NEXT:  tile.mbarrier_alloc
// CHECK-NEXT:  %[[RV:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.mbarrier_alloc
// CHECK-NEXT:  %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK:         %[[K:.*]] = tile.smem_slot
// CHECK-NEXT:    %[[V:.*]] = tile.smem_slot
// CHECK-NOT:     tile.tma_load
// CHECK:         %[[S:.*]] = tile.wgmma async %[[Q]], %[[K]], %{{.*}} :
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 0, %[[S]] : tensor<64x64xf32, #mma> reads %[[Q]], %[[K]] :
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    %[[E:.*]] = arith.mulf %[[SW]], %[[SW]]
// CHECK-NEXT:    %[[AW:.*]] = tile.wgmma_wait 1, %[[ACC]] : tensor<64x64xf32, #mma> reads %[[P]], %[[V]] :
// CHECK-NEXT:    %[[SC:.*]] = arith.mulf %[[AW]], %[[E]]
// CHECK-NEXT:    %[[A1:.*]] = tile.convert_layout %[[SC]]
// CHECK-NEXT:    %[[PV:.*]] = tile.wgmma async %[[P]], %[[V]], %[[A1]] :
// CHECK-NEXT:    %[[BACK:.*]] = tile.convert_layout %[[PV]]
// CHECK-NEXT:    scf.yield %[[BACK]],
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  %[[W:.*]] = tile.wgmma_wait 0, %[[R]]#0 : tensor<64x64xf32, #mma> reads %[[P]], %[[RV]] :
// CHECK-NEXT:  return %[[W]]
func.func @attention(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %p: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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
    %pv = tile.wgmma %p, %v, %a1 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma1>
    %back = tile.convert_layout %pv : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
    scf.yield %back, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Straight-line code: the second multiply chains onto the first in flight;
// a copy into the buffer both read is not a ring refill, so a wait_group 0
// (both read it) goes right before it; the result's first register use,
// the return, gets its own wait.
// CHECK-LABEL: func.func @overwrite
// CHECK:       %[[BUF:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.mbarrier_alloc
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma async %[[BUF]], %[[BUF]], %{{.*}} :
// CHECK-NEXT:  %[[E:.*]] = tile.wgmma async %[[BUF]], %[[BUF]], %[[D]] :
// CHECK-NEXT:  tile.wgmma_wait 0 reads %[[BUF]] :
// CHECK-NEXT:  tile.tma_load
// CHECK-NEXT:  %[[W:.*]] = tile.wgmma_wait 0, %[[E]] : tensor<64x64xf32, #mma> reads %[[BUF]] :
// CHECK-NEXT:  return %[[W]]
func.func @overwrite(%map: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %d = tile.wgmma %buf, %buf, %c : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  %e = tile.wgmma %buf, %buf, %d : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  tile.tma_load %map[%i, %c0], %buf, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<1>
  return %e : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A loop's result that starts another loop (attention's two split loops):
// the wait goes right after the first loop, before the second loop's
// buffers are written, so that the first loop's buffers can be reused. In
// the second loop, the multiply reads a buffer stored each trip: the store
// of trip k waits for trip k-1's multiply (wait_group 0: it is the last
// one issued).
// CHECK-LABEL: func.func @two_loops
// CHECK:       %[[R1:.*]] = scf.for
// CHECK:         tile.wgmma async
// CHECK:       }
// CHECK-NEXT:  %[[W1:.*]] = tile.wgmma_wait 0, %[[R1]] : tensor<64x64xf32, #mma> reads %{{.*}} :
// CHECK-NEXT:  %[[B:.*]] = tile.smem_alloc
// CHECK-NEXT:  %[[R2:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[W1]])
// CHECK-NEXT:    tile.wgmma_wait 0 reads %{{[^,]*}} :
// CHECK-NEXT:    tile.local_alloc
// CHECK-NEXT:    tile.wgmma async
func.func @two_loops(%a: !tile.smem<[64, 64], f16, #sw>, %x: tensor<64x64xf16, #mma>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %b = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %r1) -> (tensor<64x64xf32, #mma>) : i32 {
    %t = tile.local_alloc %x : tensor<64x64xf16, #mma> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %t, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r2 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A multiply whose A operand is registers that go around the loop (an
// iteration argument, as tile-rotate-wgmma's P): the yield writes the next
// trip's value into them, so the multiply completes before the back edge.
// Here the wait for the later multiply's result (wait_group 0) completes it
// already: no second wait.
// CHECK-LABEL: func.func @registers_around
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}})
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %[[P]], %{{.*}}, %[[ACC]] :
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 0, %[[S]] :
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[SW]]
// CHECK-NEXT:    %[[TA:.*]] = tile.convert_layout %[[T]]
// CHECK-NEXT:    scf.yield %[[D]], %[[TA]]
func.func @registers_around(%a: !tile.smem<[64, 64], f16, #sw>, %p0: tensor<64x64xf16, #dot_a>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %p = %p0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>) : i32 {
    %d = tile.wgmma %p, %a, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %s = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %t = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ta = tile.convert_layout %t : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    scf.yield %d, %ta : tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>
  }
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The next trip's P made by a conversion that moves data between the
// warpgroups (through scratch memory: the scores split by columns, P whole
// in each warpgroup, MLA decode's): its loads write the registers the
// multiply reading P still reads, and no instruction moves past the wait,
// so the multiply completes before the conversion, not at the back edge
// (ptxas would serialize every wgmma, C7513). The wait for S, after the
// second multiply, leaves one group pending (the second); before the
// conversion, none (wait_group 0 completes the first too).
// CHECK-LABEL: func.func @registers_around_converted
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}})
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %[[P]], %{{.*}}, %[[ACC]] :
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 1, %[[S]] :
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[SW]]
// CHECK-NEXT:    tile.wgmma_wait 0 reads
// CHECK-NEXT:    %[[TA:.*]] = tile.convert_layout %[[T]]
// CHECK-NEXT:    scf.yield %[[D]], %[[TA]]
func.func @registers_around_converted(%a: !tile.smem<[64, 64], f16, #sw>, %p0: tensor<64x64xf16, #dot_a>, %n: i32) -> tensor<64x64xf32, #mma1> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %z1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z1, %p = %p0) -> (tensor<64x64xf32, #mma1>, tensor<64x64xf16, #dot_a>) : i32 {
    %s = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %d = tile.wgmma %p, %a, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma1>
    %t = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ta = tile.convert_layout %t : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    scf.yield %d, %ta : tensor<64x64xf32, #mma1>, tensor<64x64xf16, #dot_a>
  }
  return %r#0 : tensor<64x64xf32, #mma1>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same with nothing waited for in the trip (both results go around):
// the multiply reading P completes before the back edge, the one issued
// after it left in flight (wait_group 1: the oldest group completes first).
// CHECK-LABEL: func.func @registers_around_in_flight
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[ACC2:.*]] = %{{.*}})
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %[[P]], %{{.*}}, %[[ACC]] :
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[ACC2]] :
// CHECK-NEXT:    tile.wgmma_wait 1 reads
// CHECK-NEXT:    scf.yield %[[D]], %{{.*}}, %[[S]]
func.func @registers_around_in_flight(%a: !tile.smem<[64, 64], f16, #sw>, %p0: tensor<64x64xf16, #dot_a>, %p1: tensor<64x64xf16, #dot_a>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:3 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %p = %p0, %acc2 = %z) -> (tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>, tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %p, %a, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %s = tile.wgmma %a, %a, %acc2 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %p1, %s : tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The release of a ring of one slot in a pipelined loop is no refill of the
// slot an earlier trip read (tile-pipeline's tile-refill-after-read puts it
// after this trip's last read): the multiply of this trip that reads the
// slot, in flight, is completed right before it, not passed by.
// CHECK-LABEL: func.func @one_slot_release
// CHECK:       scf.for
// CHECK:         %[[D:.*]] = tile.wgmma async %[[Q:[^,]*]], %{{.*}}, %{{.*}} :
// CHECK-NEXT:    tile.wgmma_wait 0 reads %{{.*}} :
// CHECK-NEXT:    tile.mbarrier_arrive %{{.*}}, %[[Q]] :
func.func @one_slot_release(%c: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : !tile.smem<[1, 64, 64], f16, #ring>
  %b = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<1>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
    %q = tile.smem_slot %ring[%c0] : !tile.smem<[1, 64, 64], f16, #ring> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %q, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0], %q : !tile.mbarrier<1>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.pipelined}
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Attention backward's trip, on one warpgroup: two products, then two
// multiplies that accumulate onto the loop's dV and dK, both left in flight
// by the trip. Kept in flight, they would hold their A operand (32
// registers a thread) and their accumulators (64 each, going around)
// through the next trip's two products (64 each) up to the wait that
// completes them: 288 registers, with kRegistersAroundWgmma more, where a
// thread has 255. They complete before the back edge instead (one wait for
// both; ptxas would serialize every wgmma otherwise, C7514).
// CHECK-LABEL: func.func @registers_around_too_many
// CHECK:       scf.for %{{.*}} iter_args(%[[DV:.*]] = %{{.*}}, %[[DK:.*]] = %{{.*}})
// CHECK:         %[[V:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[DV]] :
// CHECK-NEXT:    %[[K:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[DK]] :
// CHECK-NEXT:    tile.wgmma_wait 0 reads
// CHECK-NEXT:    scf.yield %[[V]], %[[K]]
func.func @registers_around_too_many(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: !tile.smem<[128, 128], f16, #sw>, %n: i32) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%dv = %z, %dk = %z) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>) : i32 {
    %s = tile.wgmma %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x128xf32, #mma>
    %dp = tile.wgmma %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x128xf32, #mma>
    %x = arith.mulf %s, %dp : tensor<64x128xf32, #mma>
    %t = arith.truncf %x : tensor<64x128xf32, #mma> to tensor<64x128xf16, #mma>
    %ta = tile.convert_layout %t : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #dot_a>
    %v = tile.wgmma %ta, %c, %dv : tensor<64x128xf16, #dot_a>, !tile.smem<[128, 128], f16, #sw>, tensor<64x128xf32, #mma>
    %k = tile.wgmma %ta, %c, %dk : tensor<64x128xf16, #dot_a>, !tile.smem<[128, 128], f16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %v, %k : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same trip at half the width: 144 registers, 160 with the ones around;
// the multiplies stay in flight into the next trip (its first wait
// completes them).
// CHECK-LABEL: func.func @registers_around_fit
// CHECK:       scf.for %{{.*}} iter_args(%[[DV:.*]] = %{{.*}}, %[[DK:.*]] = %{{.*}})
// CHECK:         %[[V:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[DV]] :
// CHECK-NEXT:    %[[K:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[DK]] :
// CHECK-NEXT:    scf.yield %[[V]], %[[K]]
func.func @registers_around_fit(%a: !tile.smem<[64, 64], f16, #sw>, %c: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%dv = %z, %dk = %z) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %s = tile.wgmma %a, %c, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %dp = tile.wgmma %a, %c, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %x = arith.mulf %s, %dp : tensor<64x64xf32, #mma>
    %t = arith.truncf %x : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ta = tile.convert_layout %t : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %v = tile.wgmma %ta, %c, %dv : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = tile.wgmma %ta, %c, %dk : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %v, %k : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 256, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// One ring read by both multiplies of a trip (MLA's latent tile: K^T for
// the scores, V for P V; the scores add the rotary part, from a ring of its
// own), its buffers filling shared memory (the rings' 144 KiB: one block a
// multiprocessor), the scores more of the trip's work than P V (64 x 64 x
// 576 against 64 x 512 x 64). The refill of the slot the previous trip's
// P V read stays before the scores' multiply, which reads the ring too,
// behind a wait_group 0 for that P V alone: after the scores' wait (which
// completes P V as well) the copy would arrive a multiply later, with no
// other block to cover the wait for it.
// CHECK-LABEL: func.func @one_ring_both_multiplies
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK:         tile.wgmma_wait 0 reads
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    tile.smem_slot
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    %[[S2:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.wgmma_wait 0, %[[S2]]
func.func @one_ring_both_multiplies(%mC: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 512], f16, #sw>, %qr: !tile.smem<[64, 64], f16, #sw>, %p: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x512xf32, #mma1> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %zo = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #mma1>
  %rc = tile.smem_alloc : !tile.smem<[2, 64, 512], f16, #rw>
  %bc = tile.mbarrier_alloc : !tile.mbarrier<2>
  %rr = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %br = tile.mbarrier_alloc : !tile.mbarrier<2>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zo, %it = %c0) -> (tensor<64x512xf32, #mma1>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %c = tile.smem_slot %rc[%s] : !tile.smem<[2, 64, 512], f16, #rw> -> !tile.smem<[64, 512], f16, #sw>
    %kr = tile.smem_slot %rr[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bc[%s], %c0, %c : !tile.mbarrier<2>, !tile.smem<[64, 512], f16, #sw>
    tile.mbarrier_wait %br[%s], %c0, %kr : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wc = tile.smem_slot %rc[%ws] : !tile.smem<[2, 64, 512], f16, #rw> -> !tile.smem<[64, 512], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wc, %bc[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 512], f16, #sw>, !tile.mbarrier<2>
    %wr = tile.smem_slot %rr[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wr, %br[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %qk0 = tile.wgmma %q, %c transposed, %z : !tile.smem<[64, 512], f16, #sw>, !tile.smem<[64, 512], f16, #sw>, tensor<64x64xf32, #mma>
    %qk = tile.wgmma %qr, %kr transposed, %qk0 : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.reduce max %qk {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
    %e1 = tile.convert_layout %e : tensor<64x1xf32, #mma> -> tensor<64x1xf32, #mma1>
    %eb = tile.broadcast %e1 : tensor<64x1xf32, #mma1> -> tensor<64x512xf32, #mma1>
    %scaled = arith.mulf %acc, %eb : tensor<64x512xf32, #mma1>
    %pv = tile.wgmma %p, %c, %scaled : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 512], f16, #sw>, tensor<64x512xf32, #mma1>
    scf.yield %pv, %it1 : tensor<64x512xf32, #mma1>, i32
  } {tile.pipelined}
  return %r#0 : tensor<64x512xf32, #mma1>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// A trip of one ring on 128 columns (its 32 KiB: blocks fit beside it,
// whose work covers a late copy): the refill moves after the
// scores' wait, as attention's do, and the previous trip's P V keeps
// running under the scores' multiply.
// CHECK-LABEL: func.func @one_ring_both_multiplies_room
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK-NOT:     tile.wgmma_wait
// CHECK:         %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.wgmma_wait 0, %[[S]]
// CHECK-NEXT:    tile.tma_load
func.func @one_ring_both_multiplies_room(%mC: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 128], f16, #sw>, %p: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x128xf32, #mma1> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %zo = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma1>
  %rc = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #rw>
  %bc = tile.mbarrier_alloc : !tile.mbarrier<2>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zo, %it = %c0) -> (tensor<64x128xf32, #mma1>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %c = tile.smem_slot %rc[%s] : !tile.smem<[2, 64, 128], f16, #rw> -> !tile.smem<[64, 128], f16, #sw>
    tile.mbarrier_wait %bc[%s], %c0, %c : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wc = tile.smem_slot %rc[%ws] : !tile.smem<[2, 64, 128], f16, #rw> -> !tile.smem<[64, 128], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wc, %bc[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #sw>, !tile.mbarrier<2>
    %qk = tile.wgmma %q, %c transposed, %z : !tile.smem<[64, 128], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.reduce max %qk {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
    %e1 = tile.convert_layout %e : tensor<64x1xf32, #mma> -> tensor<64x1xf32, #mma1>
    %eb = tile.broadcast %e1 : tensor<64x1xf32, #mma1> -> tensor<64x128xf32, #mma1>
    %scaled = arith.mulf %acc, %eb : tensor<64x128xf32, #mma1>
    %pv = tile.wgmma %p, %c, %scaled : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x128xf32, #mma1>
    scf.yield %pv, %it1 : tensor<64x128xf32, #mma1>, i32
  } {tile.pipelined}
  return %r#0 : tensor<64x128xf32, #mma1>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 256, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The first case's trip without the rotary part: the ring fills shared
// memory, but the scores (64 x 64 x 512) are no more of the trip's work
// than P V (64 x 512 x 64), which keeps running under them; the refill
// moves after the scores' wait.
// CHECK-LABEL: func.func @one_ring_even_work
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK-NOT:     tile.wgmma_wait
// CHECK:         %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.wgmma_wait 0, %[[S]]
// CHECK-NEXT:    tile.tma_load
func.func @one_ring_even_work(%mC: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 512], f16, #sw>, %p: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x512xf32, #mma1> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %zo = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #mma1>
  %rc = tile.smem_alloc : !tile.smem<[2, 64, 512], f16, #rw>
  %bc = tile.mbarrier_alloc : !tile.mbarrier<2>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zo, %it = %c0) -> (tensor<64x512xf32, #mma1>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %c = tile.smem_slot %rc[%s] : !tile.smem<[2, 64, 512], f16, #rw> -> !tile.smem<[64, 512], f16, #sw>
    tile.mbarrier_wait %bc[%s], %c0, %c : !tile.mbarrier<2>, !tile.smem<[64, 512], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wc = tile.smem_slot %rc[%ws] : !tile.smem<[2, 64, 512], f16, #rw> -> !tile.smem<[64, 512], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wc, %bc[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 512], f16, #sw>, !tile.mbarrier<2>
    %qk = tile.wgmma %q, %c transposed, %z : !tile.smem<[64, 512], f16, #sw>, !tile.smem<[64, 512], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.reduce max %qk {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
    %e1 = tile.convert_layout %e : tensor<64x1xf32, #mma> -> tensor<64x1xf32, #mma1>
    %eb = tile.broadcast %e1 : tensor<64x1xf32, #mma1> -> tensor<64x512xf32, #mma1>
    %scaled = arith.mulf %acc, %eb : tensor<64x512xf32, #mma1>
    %pv = tile.wgmma %p, %c, %scaled : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 512], f16, #sw>, tensor<64x512xf32, #mma1>
    scf.yield %pv, %it1 : tensor<64x512xf32, #mma1>, i32
  } {tile.pipelined}
  return %r#0 : tensor<64x512xf32, #mma1>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// An accumulator carried by a loop nest (a loop over heads around one over
// tiles): the inner loop leaves its last multiply in flight, and the wait
// goes right after the inner loop, before the outer loop's yield, not at
// the top of the outer loop's next trip (in flight across the outer back
// edge, ptxas serialized every wgmma: C7515). Around the inner loop's own
// back edge it stays in flight.
// CHECK-LABEL: func.func @loop_nest
// CHECK:       scf.for {{.*}} iter_args(%[[O:.*]] = %{{.*}})
// CHECK-NOT:     tile.wgmma_wait
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[I:.*]] = %[[O]])
// CHECK-NEXT:      tile.wgmma async %{{.*}}, %{{.*}}, %[[I]]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[R]]
// CHECK-NEXT:    scf.yield %[[W]]
func.func @loop_nest(%a: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %h = %c0 to %n step %c1 iter_args(%o = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %i = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %o) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    scf.yield %i : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A register A operand the body computes (a tile read from shared memory
// in the operand layout, scaled in f32 and rounded, as
// tile-stage-converted-loads leaves a scaled A): the multiply is in flight
// at the next trip's head, which writes the next A into the same
// registers. The next trip waits for it (wait_group 0: nothing issued
// since) right before the rounding that writes A, the scaled f32 tile
// passed through the wait; the read and the scaling come before it.
// CHECK-LABEL: func.func @register_a_made_in_trip
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[L:.*]] = tile.local_load
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[L]]
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[E]], %{{.*}}
// CHECK-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[M]] : tensor<64x64xf32, #dot_a> reads %{{.*}} :
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[W]]
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %[[T]], %{{.*}}, %[[ACC]] :
// CHECK-NEXT:    scf.yield %[[D]]
func.func @register_a_made_in_trip(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %s = arith.constant dense<5.000000e-01> : tensor<64x64xf32, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %l = tile.local_load %a [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #dot_a>
    %e = arith.extf %l : tensor<64x64xf16, #dot_a> to tensor<64x64xf32, #dot_a>
    %m = arith.mulf %e, %s : tensor<64x64xf32, #dot_a>
    %t = arith.truncf %m : tensor<64x64xf32, #dot_a> to tensor<64x64xf16, #dot_a>
    %d = tile.wgmma %t, %b, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same where A's op reads no f32 tile (a 16-bit tile scaled in 16
// bits): the wait goes before the first op A is computed from, the read.
// CHECK-LABEL: func.func @register_a_made_in_trip_16
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    tile.wgmma_wait 0 reads %{{.*}} :
// CHECK-NEXT:    %[[L:.*]] = tile.local_load
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[L]], %{{.*}}
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma async %[[M]], %{{.*}}, %[[ACC]] :
// CHECK-NEXT:    scf.yield %[[D]]
func.func @register_a_made_in_trip_16(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %s = arith.constant dense<5.000000e-01> : tensor<64x64xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %l = tile.local_load %a [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #dot_a>
    %m = arith.mulf %l, %s : tensor<64x64xf16, #dot_a>
    %d = tile.wgmma %m, %b, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
