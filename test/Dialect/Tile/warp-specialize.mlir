// RUN: tile-opt %s -split-input-file --tile-warp-specialize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-warp-specialize --tile-async-wgmma --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=SYNC
// RUN: tile-opt %s -split-input-file --tile-warp-specialize=producer-registers=0 | FileCheck %s --check-prefix=NOREG

// tile-warp-specialize splits a kernel with one pipelined TMA loop into a
// producer, which issues the copies, and consumers, which release each
// slot on an empty barrier where the pipeline refilled it.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The ring, its full barriers and the new empty ones (one arrival per
// consumer thread) come first; the producer runs the prologue's first
// fill (no wait) and the loop's refills, each after waiting for the
// slot's previous fill to be released (parity (t / 2 + 1) mod 2, only if
// the copy is issued), as the thread after the consumers' (issuer 128);
// the consumers keep the loop's waits and multiplies and release the slot
// where the refill was, when it held data (t >= 2).
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  %{{[^:]*}}: !tile.global<f16, 2>, %[[N:[^:]*]]: i32, %{{[^:]*}}: !tile.global<f32, 2>, %[[MAP:[^:]*]]: !tile.tensor_map<[64, 64], f16, swizzle = 128>
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[2, 64, 64], f16, #{{.*}}>
// CHECK-NEXT:  %[[FULL:.*]] = tile.mbarrier_alloc : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[FULL]] {count = 1 : i32}
// CHECK-NEXT:  %[[EMPTY:.*]] = tile.mbarrier_alloc : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[EMPTY]] {count = 128 : i32}
// CHECK-NEXT:  tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 24 : i32} producer {
// CHECK-NOT:     tile.mbarrier_wait
// CHECK:         tile.tma_load %[[MAP]][%{{.*}}], %{{.*}}, %[[FULL]][%{{.*}}] if %{{.*}} {issuer = 128 : i32}
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (i32)
// CHECK:           %[[T:.*]] = arith.addi %[[IT]], %{{.*}} : i32
// CHECK-NEXT:      %[[S:.*]] = arith.remui %[[T]], %{{.*}} : i32
// CHECK:           %[[ROUND:.*]] = arith.divui %[[T]], %{{.*}} : i32
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROUND]], %{{.*}} : i32
// CHECK-NEXT:      %[[PAR:.*]] = arith.andi %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT:      tile.mbarrier_wait %[[EMPTY]][%[[S]]], %[[PAR]] if %[[P:.*]] : <2>
// CHECK-NEXT:      tile.tma_load %[[MAP]][%{{.*}}], %{{.*}}, %[[FULL]][%[[S]]] if %[[P]] {issuer = 128 : i32}
// CHECK-NOT:       tile.wgmma
// CHECK:           scf.yield %[[T]] : i32
// CHECK-NOT:     tile.wgmma
// CHECK:       } consumer {
// CHECK-NOT:     tile.tma_load
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[FULL]]
// CHECK:           arith.cmpi slt
// CHECK-NEXT:      %[[CT:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[CS:.*]] = arith.remui %[[CT]]
// CHECK:           %[[HELD:.*]] = arith.cmpi uge, %[[CT]], %{{.*}} : i32
// CHECK-NEXT:      tile.mbarrier_arrive %[[EMPTY]][%[[CS]]], %{{.*}} if %[[HELD]]
// CHECK:           tile.wgmma
// CHECK:         } {tile.pipelined}
// CHECK-NEXT:    tile.mbarrier_inval %[[FULL]]
// CHECK-NEXT:    tile.mbarrier_inval %[[EMPTY]]
// CHECK:         tile.store
// CHECK-NEXT:  }
// CHECK-NEXT:  return

// The whole block meets once, after the barriers' initialization; the
// consumers use their named barrier only, none in the loop: the release
// has moved behind the wait for the multiply that read the slot.
// SYNC-LABEL: func.func @gemm
// SYNC:       tile.mbarrier_init
// SYNC:       tile.barrier
// SYNC-NEXT:  tile.warp_specialize
// SYNC:       } consumer {
// SYNC-NOT:     tile.barrier
// SYNC:         scf.for
// SYNC-NOT:       tile.barrier
// SYNC:           tile.wgmma async
// SYNC-NEXT:      tile.wgmma_wait 1
// SYNC-NEXT:      tile.mbarrier_arrive
// SYNC-NOT:       tile.barrier
// SYNC:         } {tile.pipelined}
// SYNC:         tile.barrier {id = 1 : i32, num_threads = 128 : i32}
// SYNC-NEXT:    tile.mbarrier_inval
// NOREG-LABEL: func.func @gemm
// NOREG:       tile.warp_specialize {consumer_warps = 4 : i32} producer
func.func @gemm(%src: !tile.global<f16, 2>, %n: i32, %out: !tile.global<f32, 2>,
                %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %a = tile.smem_alloc : <[64, 64], f16, #sw>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  %runs = arith.cmpi sgt, %n, %c0 : i32
  %s0 = tile.smem_slot %ring[%c0] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %s0, %full[%c0] if %runs : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %b = tile.smem_slot %ring[%s] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %round = arith.divui %it, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    tile.mbarrier_wait %full[%s], %phase, %b : <2>, !tile.smem<[64, 64], f16, #sw>
    %jn = arith.addi %j, %c1 : i32
    %more = arith.cmpi slt, %jn, %n : i32
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %k = arith.muli %jn, %c64 : i32
    tile.tma_load %map[%k, %c0], %bn, %full[%sn] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, <[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %t : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.mbarrier_inval %full : <2>
  tile.store %out[%c0, %c0], %r#0 : <f32, 2>, tensor<64x64xf32, #mma>
  return
}

// -----

// One ring filled in two loops (each counting its fills from 0, which the
// barriers' phases would not follow): left as it is, with the reason on
// the kernel. (Loops with rings of their own are specialized:
// @loops_in_sequence.)
// CHECK-LABEL: func.func @two_loops
// CHECK-SAME:  tile.not_warp_specialized = "a ring is filled in more than one loop"
// CHECK-NOT:   tile.warp_specialize
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @two_loops(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined}
  %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined}
  return
}

// -----

// Loops in sequence, each filling a ring of its own: one producer per
// ring, each running its loop (the second from the kernel's start: its
// ring is its own) and waiting on its ring's empty barriers; the
// consumers run both loops.
// CHECK-LABEL: func.func @loops_in_sequence
// CHECK-NOT:   tile.not_warp_specialized
// CHECK:       tile.warp_specialize
// CHECK-SAME:  producer {
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[E1:[0-9]+]]
// CHECK:           tile.tma_load {{.*}} {issuer = 128 : i32}
// CHECK:       } producer {
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[E2:[0-9]+]]
// CHECK:           tile.tma_load {{.*}} {issuer = 160 : i32}
// CHECK:       } consumer {
// CHECK:         scf.for
// CHECK:         } {tile.pipelined}
// CHECK:         scf.for
// CHECK:         } {tile.pipelined}
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @loops_in_sequence(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring1 = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full1 = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full1 {count = 1 : i32} : <2>
  %ring2 = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full2 = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full2 {count = 1 : i32} : <2>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring1[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full1[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined}
  %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring2[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full2[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined}
  return
}

// -----

// Warps that are not whole warpgroups cannot hand registers over.
// CHECK-LABEL: func.func @two_warps
// CHECK-SAME:  tile.not_warp_specialized = "the kernel's warps are not whole warpgroups"
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @two_warps(%src: !tile.global<f16, 2>, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 2 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %buf = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %b = tile.smem_slot %buf[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %b, %full[%c0] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <1>
  return
}

// -----

// A copy whose coordinate is a branch's result is left as it is (the
// producer runs no branch that yields values).
// CHECK-LABEL: func.func @branch_coordinate
// CHECK-SAME:  tile.not_warp_specialized = "a copy depends on a value 'scf.if' yields"
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @branch_coordinate(%src: !tile.global<f16, 2>, %c: i1, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %b = tile.smem_slot %buf[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  %x = scf.if %c -> (i32) {
    scf.yield %c0 : i32
  } else {
    scf.yield %c1 : i32
  }
  tile.tma_load %map[%x, %c0], %b, %full[%c0] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <1>
  return
}

// -----

// Two rings (attention's K and V, 2 and 3 stages): a producer each, on
// warps 0 and 1 of the producer warpgroup (issuers 128 and 160). Each
// producer waits only for its own ring's slots, so K's copy is not held
// back behind a wait for V's slot, which the consumers release later.
// CHECK-LABEL: func.func @two_rings
// CHECK:       %[[KFULL:.*]] = tile.mbarrier_alloc : <2>
// CHECK:       %[[KEMPTY:.*]] = tile.mbarrier_alloc : <2>
// CHECK:       %[[VFULL:.*]] = tile.mbarrier_alloc : <3>
// CHECK:       %[[VEMPTY:.*]] = tile.mbarrier_alloc : <3>
// CHECK:       tile.warp_specialize {{.*}} producer {
// CHECK-NOT:     %[[VFULL]][
// CHECK-NOT:     %[[VEMPTY]][
// CHECK:         tile.tma_load %{{.*}}, %[[KFULL]][%{{.*}}] if %{{.*}} {issuer = 128 : i32}
// CHECK:         scf.for
// CHECK-NOT:       %[[VEMPTY]][
// CHECK:           tile.mbarrier_wait %[[KEMPTY]]
// CHECK-NEXT:      tile.tma_load %{{.*}}, %[[KFULL]][%{{.*}}] if %{{.*}} {issuer = 128 : i32}
// CHECK-NOT:       %[[VEMPTY]][
// CHECK:       } producer {
// CHECK-NOT:     %[[KFULL]][
// CHECK-NOT:     %[[KEMPTY]][
// CHECK:         tile.tma_load %{{.*}}, %[[VFULL]][%{{.*}}] if %{{.*}} {issuer = 160 : i32}
// CHECK:         tile.tma_load %{{.*}}, %[[VFULL]][%{{.*}}] if %{{.*}} {issuer = 160 : i32}
// CHECK:         scf.for
// CHECK-NOT:       %[[KEMPTY]][
// CHECK:           tile.mbarrier_wait %[[VEMPTY]]
// CHECK-NEXT:      tile.tma_load %{{.*}}, %[[VFULL]][%{{.*}}] if %{{.*}} {issuer = 160 : i32}
// CHECK-NOT:       %[[KEMPTY]][
// CHECK:       } consumer {
// CHECK-NOT:     tile.tma_load
// CHECK:         tile.mbarrier_arrive %[[KEMPTY]]
// CHECK:         tile.mbarrier_arrive %[[VEMPTY]]
// CHECK:       }
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @two_rings(%src: !tile.global<f16, 2>, %n: i32, %out: !tile.global<f32, 2>,
                     %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.smem_alloc : <[64, 64], f16, #sw>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %kring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %kfull = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %kfull {count = 1 : i32} : <2>
  %vring = tile.smem_alloc : <[3, 64, 64], f16, #ring>
  %vfull = tile.mbarrier_alloc : <3>
  tile.mbarrier_init %vfull {count = 1 : i32} : <3>
  %runs = arith.cmpi sgt, %n, %c0 : i32
  %runs1 = arith.cmpi sgt, %n, %c1 : i32
  %k0 = tile.smem_slot %kring[%c0] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %k0, %kfull[%c0] if %runs : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
  %v0 = tile.smem_slot %vring[%c0] : <[3, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %v0, %vfull[%c0] if %runs : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <3>
  %v1 = tile.smem_slot %vring[%c1] : <[3, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c64, %c0], %v1, %vfull[%c1] if %runs1 : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <3>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %ks = arith.remui %it, %c2 : i32
    %kb = tile.smem_slot %kring[%ks] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %kround = arith.divui %it, %c2 : i32
    %kphase = arith.andi %kround, %c1 : i32
    tile.mbarrier_wait %kfull[%ks], %kphase, %kb : <2>, !tile.smem<[64, 64], f16, #sw>
    %vs = arith.remui %it, %c3 : i32
    %vb = tile.smem_slot %vring[%vs] : <[3, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %vround = arith.divui %it, %c3 : i32
    %vphase = arith.andi %vround, %c1 : i32
    tile.mbarrier_wait %vfull[%vs], %vphase, %vb : <3>, !tile.smem<[64, 64], f16, #sw>
    %j1 = arith.addi %j, %c1 : i32
    %more1 = arith.cmpi slt, %j1, %n : i32
    %t1 = arith.addi %it, %c1 : i32
    %ksn = arith.remui %t1, %c2 : i32
    %kbn = tile.smem_slot %kring[%ksn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %kk = arith.muli %j1, %c64 : i32
    tile.tma_load %map[%kk, %c0], %kbn, %kfull[%ksn] if %more1 : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    %j2 = arith.addi %j, %c2 : i32
    %more2 = arith.cmpi slt, %j2, %n : i32
    %t2 = arith.addi %it, %c2 : i32
    %vsn = arith.remui %t2, %c3 : i32
    %vbn = tile.smem_slot %vring[%vsn] : <[3, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %vk = arith.muli %j2, %c64 : i32
    tile.tma_load %map[%vk, %c0], %vbn, %vfull[%vsn] if %more2 : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <3>
    %d = tile.wgmma %a, %kb, %acc : !tile.smem<[64, 64], f16, #sw>, <[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.wgmma %a, %vb, %d : !tile.smem<[64, 64], f16, #sw>, <[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %e, %t1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.mbarrier_inval %kfull : <2>
  tile.mbarrier_inval %vfull : <3>
  tile.store %out[%c0, %c0], %r#0 : <f32, 2>, tensor<64x64xf32, #mma>
  return
}

// -----

// A kernel without copies still gets the specialized shape (one idle
// producer warp), so that its launch is the same...
// CHECK-LABEL: func.func @no_copies
// CHECK:       tile.warp_specialize
func.func @no_copies(%out: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  return
}

// -----

// ... but not one without warps yet (IR before tile-assign-layouts).
// CHECK-LABEL: func.func @no_warps
// CHECK-NOT:   tile.warp_specialize
// CHECK:       return
func.func @no_warps(%out: !tile.global<f32, 1>) attributes {tile.kernel} {
  return
}
