// RUN: tile-opt %s -split-input-file --tile-warp-specialize="producer-stores=true" | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-warp-specialize="producer-stores=true" --tile-async-wgmma --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=SYNC
// RUN: tile-opt %s -split-input-file --tile-warp-specialize | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file --tile-warp-specialize="producer-stores=true warn-stores=true" --verify-diagnostics -o /dev/null

// tile-warp-specialize's producer-stores: a loop's TMA store of a tile it
// stages in every trip (attention backward's dQ share, added to global
// memory by a TMA reduction) is issued by a producer warp, trip n being
// phase n of a "full" barrier (the consumers' 128 arrivals: staged) and of
// an "empty" one (the producer warp's 32: read by the copy).

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#swf = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// The staging buffer and the two barriers of one slot go before the split
// with the ring's; the store joins a producer warp of its own (issuer 160:
// the ring's producer is warp 0 of the producer warpgroup, 128), which runs
// the loop, waits for phase n of "full", copies, waits for its read and
// arrives on "empty". The consumers wait on "empty" for phase n - 1 where
// they waited for the previous copy (parity (n + 1) mod 2: the first trip
// passes), stage, fence and arrive on "full" where they copied.
// CHECK-LABEL: func.func @staged
// CHECK:       %[[STAGE:.*]] = tile.smem_alloc : <[64, 64], f32, #{{.*}}>
// CHECK:       %[[SFULL:.*]] = tile.mbarrier_alloc : <1>
// CHECK-NEXT:  tile.mbarrier_init %[[SFULL]] {count = 128 : i32} : <1>
// CHECK-NEXT:  %[[SEMPTY:.*]] = tile.mbarrier_alloc : <1>
// CHECK-NEXT:  tile.mbarrier_init %[[SEMPTY]] {count = 32 : i32} : <1>
// CHECK-NEXT:  tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 24 : i32} producer {
// CHECK:         tile.tma_load {{.*}} {issuer = 128 : i32}
// CHECK-NOT:     tile.tma_store
// CHECK:       } producer {
// CHECK-NOT:     tile.tma_load
// CHECK:         scf.for %[[J:.*]] = %[[LB:.*]] to %{{.*}} step
// CHECK:           %[[K:.*]] = arith.muli %[[J]], %{{.*}} : i32
// CHECK:           %[[N:.*]] = arith.subi %[[J]], %[[LB]] : i32
// CHECK-NEXT:      %[[PAR:.*]] = arith.andi %[[N]], %{{.*}} : i32
// CHECK-NEXT:      tile.mbarrier_wait %[[SFULL]][%{{.*}}], %[[PAR]] : <1>
// CHECK-NEXT:      tile.tma_store %{{.*}}[%[[K]], %{{.*}}], %[[STAGE]] reduce sum {issuer = 160 : i32}
// CHECK-NEXT:      tile.tma_store_wait %[[STAGE]] : !tile.smem<[64, 64], f32, #{{.*}}> {issuer = 160 : i32}
// CHECK-NEXT:      tile.mbarrier_arrive %[[SEMPTY]][%{{.*}}], %[[STAGE]] : <1>
// CHECK-NOT:       tile.wgmma
// CHECK:       } consumer {
// CHECK:         scf.for %[[CJ:.*]] = %[[CLB:.*]] to
// CHECK:           tile.wgmma
// CHECK:           %[[CN:.*]] = arith.subi %[[CJ]], %[[CLB]] : i32
// CHECK-NEXT:      %[[CN1:.*]] = arith.addi %[[CN]], %{{.*}} : i32
// CHECK-NEXT:      %[[CPAR:.*]] = arith.andi %[[CN1]], %{{.*}} : i32
// CHECK-NEXT:      tile.mbarrier_wait %[[SEMPTY]][%{{.*}}], %[[CPAR]] : <1>
// CHECK-NOT:       tile.tma_store_wait
// CHECK-NEXT:      tile.local_store %{{.*}}, %[[STAGE]]
// CHECK-NEXT:      tile.fence_async_shared
// CHECK-NEXT:      tile.mbarrier_arrive %[[SFULL]][%{{.*}}], %[[STAGE]] : <1>
// CHECK-NOT:       tile.tma_store
// CHECK:         } {tile.pipelined}

// Nothing of the consumers reads the buffer they stage: no barrier between
// their stores and the copy (one before the stores remains here, for the
// previous trip's stores of the same bytes, which tile-insert-barriers
// orders whichever threads wrote them; the attention backward's loop has
// a barrier there anyway).
// SYNC-LABEL: func.func @staged
// SYNC:       } consumer {
// SYNC:         scf.for
// SYNC:           tile.mbarrier_wait
// SYNC:           tile.local_store
// SYNC-NEXT:      tile.fence_async_shared
// SYNC-NEXT:      tile.mbarrier_arrive
// SYNC-NEXT:      scf.yield
// SYNC:         } {tile.pipelined}

// Without the option the consumers copy as before.
// OFF-LABEL: func.func @staged
// OFF:       } consumer {
// OFF:         scf.for
// OFF:           tile.tma_store_wait
// OFF:           tile.local_store
// OFF-NEXT:      tile.tma_store
func.func @staged(%src: !tile.global<f16, 2>, %n: i32, %out: !tile.global<f32, 2>,
                  %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>,
                  %omap: !tile.tensor_map<[64, 32], f32, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}, {box = array<i64: 64, 32>, param = 2 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %a = tile.smem_alloc : <[64, 64], f16, #sw>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  %stage = tile.smem_alloc : <[64, 64], f32, #swf>
  %runs = arith.cmpi sgt, %n, %c0 : i32
  %s0 = tile.smem_slot %ring[%c0] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %s0, %full[%c0] if %runs : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
  %it = scf.for %j = %c0 to %n step %c1 iter_args(%i = %c0) -> (i32) : i32 {
    %s = arith.remui %i, %c2 : i32
    %b = tile.smem_slot %ring[%s] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %round = arith.divui %i, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    tile.mbarrier_wait %full[%s], %phase, %b : <2>, !tile.smem<[64, 64], f16, #sw>
    %jn = arith.addi %j, %c1 : i32
    %more = arith.cmpi slt, %jn, %n : i32
    %t = arith.addi %i, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %kn = arith.muli %jn, %c64 : i32
    tile.tma_load %map[%kn, %c0], %bn, %full[%sn] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    %d = tile.wgmma %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, <[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = arith.muli %j, %c64 : i32
    tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #swf>
    tile.local_store %d, %stage : tensor<64x64xf32, #mma>, <[64, 64], f32, #swf>
    tile.tma_store %omap[%k, %c0], %stage reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #swf>
    scf.yield %t : i32
  } {tile.pipelined}
  tile.mbarrier_inval %full : <2>
  tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #swf>
  return
}

// -----

// A store under a predicate stays with the consumers (said where asked);
// so does the kernel's other loop store, staged before its wait.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#swf = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
// CHECK-LABEL: func.func @not_moved
// CHECK:       } consumer {
// CHECK:         tile.tma_store {{.*}} if
// CHECK:         tile.tma_store
// expected-warning @+1 {{producer_stores does not apply to kernel 'not_moved': no loop stages a tile and copies it out with TMA in every trip}}
func.func @not_moved(%src: !tile.global<f16, 2>, %n: i32, %out: !tile.global<f32, 2>,
                     %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>,
                     %omap: !tile.tensor_map<[64, 32], f32, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}, {box = array<i64: 64, 32>, param = 2 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %a = tile.smem_alloc : <[64, 64], f16, #sw>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  %stage = tile.smem_alloc : <[64, 64], f32, #swf>
  %stage2 = tile.smem_alloc : <[64, 64], f32, #swf>
  %runs = arith.cmpi sgt, %n, %c0 : i32
  %s0 = tile.smem_slot %ring[%c0] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
  tile.tma_load %map[%c0, %c0], %s0, %full[%c0] if %runs : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
  %it = scf.for %j = %c0 to %n step %c1 iter_args(%i = %c0) -> (i32) : i32 {
    %s = arith.remui %i, %c2 : i32
    %b = tile.smem_slot %ring[%s] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %round = arith.divui %i, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    tile.mbarrier_wait %full[%s], %phase, %b : <2>, !tile.smem<[64, 64], f16, #sw>
    %jn = arith.addi %j, %c1 : i32
    %more = arith.cmpi slt, %jn, %n : i32
    %t = arith.addi %i, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    %kn = arith.muli %jn, %c64 : i32
    tile.tma_load %map[%kn, %c0], %bn, %full[%sn] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    %d = tile.wgmma %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, <[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = arith.muli %j, %c64 : i32
    tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #swf>
    tile.local_store %d, %stage : tensor<64x64xf32, #mma>, <[64, 64], f32, #swf>
    // expected-warning @+1 {{producer_stores does not apply to this store: it is issued under a predicate}}
    tile.tma_store %omap[%k, %c0], %stage if %more reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #swf>
    tile.local_store %d, %stage2 : tensor<64x64xf32, #mma>, <[64, 64], f32, #swf>
    tile.tma_store_wait %stage2 : !tile.smem<[64, 64], f32, #swf>
    // expected-warning @+1 {{producer_stores does not apply to this store: its buffer is staged before the wait for the previous copy}}
    tile.tma_store %omap[%k, %c0], %stage2 reduce sum : <[64, 32], f32, swizzle = 128>, <[64, 64], f32, #swf>
    scf.yield %t : i32
  } {tile.pipelined}
  tile.mbarrier_inval %full : <2>
  return
}
