// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-dynamic-schedule | FileCheck %s --check-prefix=WS
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --canonicalize --cse --tile-dynamic-schedule | FileCheck %s --check-prefix=BLOCK
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --tile-dynamic-schedule | FileCheck %s --check-prefix=STATIC
// RUN: tile-opt %s -split-input-file --tile-dynamic-schedule | FileCheck %s --check-prefix=NONE

// tile-dynamic-schedule: each role's tile loop becomes a loop over the
// tiles its block claims. A ring of 4 claims with full barriers for the
// claimer's threads and empty barriers for every thread of every role that
// loops (128 consumers and two producer warps: 192).
// WS-LABEL:  func.func @tile_operand
// WS-SAME:   %[[COUNTER:[^:]*]]: i64
// WS:        %[[RING:.*]] = tile.smem_alloc : <[4], i32, #shared>
// WS-NEXT:   %[[FULL:.*]] = tile.mbarrier_alloc : <4>
// WS-NEXT:   tile.mbarrier_init %[[FULL]] {count = 32 : i32} : <4>
// WS-NEXT:   %[[EMPTY:.*]] = tile.mbarrier_alloc : <4>
// WS-NEXT:   tile.mbarrier_init %[[EMPTY]] {count = 192 : i32} : <4>
// The producer of the tile's own copy (A, one tile ahead: `t + step`)
// needs the next tile before its loop: it reads claim 0 there, and its loop
// carries two tiles, the one it copies for being the second.
// WS:        tile.warp_specialize
// WS-SAME:   producer {
// WS:          %[[BID:.*]] = tile.bid 0
// WS:          %[[NEXT0:.*]] = scf.if
// WS:            tile.mbarrier_wait %[[FULL]]
// WS-NEXT:       %[[R0:.*]] = tile.tile_read %[[RING]]
// WS-NEXT:       tile.mbarrier_arrive %[[EMPTY]]
// WS-NEXT:       scf.yield %[[R0]] : i32
// WS:          scf.while (%{{.*}} = %{{.*}}, %[[T:.*]] = %[[BID]], %[[TN:.*]] = %[[NEXT0]], %{{.*}} = %{{.*}})
// WS:            arith.cmpi slt, %[[T]], %[[TOTAL:.*]] : i32
// WS-NEXT:       scf.condition
// WS:          } do {
// WS:            arith.remui %[[TN2:.*]], %arg4
// WS:            tile.tma_load {{.*}} {issuer = 128 : i32}
// WS-NOT:        tile.tile_claim
// WS:            tile.tile_read
// WS-NOT:        tile.tile_counter_done
// The producer of the loop's ring (B) needs no tile ahead: it claims, at
// the end of each tile's copies, and counts its block out after its loop.
// WS:        } producer {
// WS:          %[[STEP:.*]] = tile.num_blocks 0
// WS:          scf.while
// WS:          } do {
// WS:            scf.for
// WS:              tile.tma_load {{.*}} {issuer = 160 : i32}
// WS:            }
// WS:            %[[MORE:.*]] = arith.cmpi slt
// WS-NEXT:       scf.if %[[MORE]] -> (i32) {
// WS:              tile.mbarrier_wait %[[EMPTY]][%[[SLOT:.*]]], %{{.*}} : <4>
// WS-NEXT:         tile.tile_claim %[[COUNTER]] + %[[STEP]] -> %[[RING]][%[[SLOT]]] {issuer = 160 : i32}
// WS-NEXT:         tile.mbarrier_arrive %[[FULL]][%[[SLOT]]], %[[RING]]
// WS-NEXT:         tile.mbarrier_wait %[[FULL]][%[[SLOT]]]
// WS-NEXT:         %[[CLAIMED:.*]] = tile.tile_read %[[RING]][%[[SLOT]]]
// WS-NEXT:         tile.mbarrier_arrive %[[EMPTY]][%[[SLOT]]], %[[RING]]
// WS-NEXT:         scf.yield %[[CLAIMED]] : i32
// WS-NEXT:       } else {
// WS-NEXT:         scf.yield
// WS:            scf.yield %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32
// WS-NEXT:     }
// WS-NEXT:     tile.tile_counter_done %[[COUNTER]] {issuer = 160 : i32}
// The consumers read every claim too, and claim nothing.
// WS:        } consumer {
// WS-NOT:      tile.tile_claim
// WS:          scf.while
// WS:            tile.wgmma
// WS:            tile.store
// WS:            tile.tile_read %[[RING]]
// WS-NOT:      tile.tile_claim
// WS-NOT:      tile.tile_counter_done
// WS:        }
// WS:        tile.mbarrier_inval %[[FULL]]
// WS-NEXT:   tile.mbarrier_inval %[[EMPTY]]
// WS-NEXT:   return

// Without specialization the whole block is the one role: thread 0 claims,
// every thread reads (128 each way); the prefetch of the next tile's A
// (`t + step`) reads the window's second tile, claimed before the loop.
// BLOCK-LABEL: func.func @tile_operand
// BLOCK-SAME:  %[[COUNTER:[^:]*]]: i64
// BLOCK:       tile.mbarrier_init %{{.*}} {count = 128 : i32} : <4>
// BLOCK:       tile.mbarrier_init %{{.*}} {count = 128 : i32} : <4>
// BLOCK:       %[[BID:.*]] = tile.bid 0
// BLOCK:       %[[STEP:.*]] = tile.num_blocks 0
// BLOCK:       %[[FIRST:.*]] = scf.if
// BLOCK:         tile.tile_claim %[[COUNTER]] + %[[STEP]] -> {{.*}} {issuer = 0 : i32}
// BLOCK:       scf.while (%{{.*}} = %{{.*}}, %[[T:.*]] = %[[BID]], %[[TN:.*]] = %[[FIRST]],
// BLOCK:       } do {
// BLOCK-NEXT:  ^bb0(%{{[^:]*}}: i32, %[[TA:[^:]*]]: i32, %[[TNA:[^:]*]]: i32,
// BLOCK-NOT:     tile.num_blocks
// BLOCK:         %[[P:.*]] = arith.cmpi slt, %[[TNA]], %{{.*}} : i32
// BLOCK:         arith.remui %[[TNA]], %arg4
// BLOCK:         tile.async_copy {{.*}} if %[[P]]
// BLOCK:         tile.tile_claim %[[COUNTER]] + %[[STEP]]
// BLOCK:         tile.tile_read
// BLOCK:         scf.yield %{{.*}}, %[[TNA]], %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32, i32, i32
// BLOCK-NEXT:  }
// BLOCK-NEXT:  tile.tile_counter_done %[[COUNTER]] {issuer = 0 : i32}

// A tile ahead computed outside the loop (here the prologue's uncanonicalized
// `bid + step * 0`) is no claim's: the loop stays static.
// STATIC-LABEL: func.func @tile_operand
// STATIC-NOT:   tile.tile_claim
// STATIC:       scf.for {{.*}} step
// STATIC-NOT:   tile.tile_claim
// STATIC:       } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}

// Not persistent: nothing to schedule.
// NONE-LABEL:  func.func @tile_operand
// NONE-NOT:    tile.tile_claim
// NONE-NOT:    scf.while
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @tile_operand(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %n = tile.bid 1
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  tile.async_copy %A[%m, %c0], %ba {layout = #blocked, shape = array<i64: 128, 64>} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
  tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}
