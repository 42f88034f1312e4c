// RUN: tile-opt %s -split-input-file --tile-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize | FileCheck %s --check-prefix=WS
// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize="producer-registers=0" | FileCheck %s --check-prefix=NOREG
// RUN: tile-opt %s -split-input-file --tile-pipeline="shared-memory-bytes=100000" | FileCheck %s --check-prefix=FIT
// RUN: tile-opt %s -split-input-file --tile-pipeline="shared-memory-bytes=100000 staged-stores" | FileCheck %s --check-prefix=STAGED

// A kernel's own loop around a pipelined loop (a persistent GEMM written by
// hand: each block's tiles in a loop of its own, not tile-persistent's tile
// loop) gets what a tile loop gets. tile-pipeline allocates the K loop's
// rings before the outer loop and carries the ring position around it: each
// trip's prologue fills the slots (base + t) mod S, and the next trip
// starts where this one's counter ended.
// PIPE-LABEL: func.func @own_tile_loop
// PIPE:       %[[RA:.*]] = tile.smem_alloc : <[2, 128, 64], f16
// PIPE-NEXT:  %[[RB:.*]] = tile.smem_alloc : <[2, 64, 128], f16
// PIPE-NEXT:  %[[END:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BASE:.*]] = %{{.*}}) -> (i32)  : i32 {
// PIPE:         %[[F:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// PIPE-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// PIPE-NEXT:    %[[S:.*]] = arith.remui %[[F]], %[[C2]] : i32
// PIPE-NEXT:    tile.smem_slot %[[RA]][%[[S]]]
// PIPE:         %[[K:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[BASE]]) -> (tensor<128x128xf32, #mma>, i32)
// PIPE:         } {tile.pipelined}
// PIPE:         scf.yield %[[K]]#1 : i32
// PIPE-NEXT:  }{{$}}
// On sm_90a the rings' barriers are initialized once, before the outer
// loop, and invalidated after it: their phases follow the fill count from
// trip to trip.
// TMA-LABEL: func.func @own_tile_loop
// TMA:       %[[BA:.*]] = tile.mbarrier_alloc : <2>
// TMA-NEXT:  tile.mbarrier_init %[[BA]] {count = 1 : i32} : <2>
// TMA:       %[[BB:.*]] = tile.mbarrier_alloc : <2>
// TMA-NEXT:  tile.mbarrier_init %[[BB]] {count = 1 : i32} : <2>
// TMA:       scf.for
// TMA-NOT:     tile.mbarrier_init
// TMA-NOT:     tile.mbarrier_inval
// TMA:         tile.tma_load
// TMA:         scf.for
// TMA:           tile.mbarrier_wait %[[BA]]
// TMA:         } {tile.pipelined}
// TMA-NOT:     tile.mbarrier_inval
// TMA:       }{{$}}
// TMA-NEXT:  tile.mbarrier_inval %[[BB]] : <2>
// TMA-NEXT:  tile.mbarrier_inval %[[BA]] : <2>
// Specialized: both roles run the outer loop with the ring position, the
// producer working out each trip's tile and K bounds itself. A producer
// running a loop around its loop keeps 32 registers (24 spilled).
// WS-LABEL:  func.func @own_tile_loop
// WS-NOT:    tile.not_warp_specialized
// WS:        tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 32 : i32}
// WS-SAME:   producer {
// WS:          scf.for {{.*}} iter_args(%[[PB:.*]] = %{{.*}}) -> (i32)
// WS:            arith.divui %{{.*}}, %{{.*}} : i32
// WS:            tile.mbarrier_wait
// WS-NEXT:       tile.tma_load {{.*}} {issuer = 128 : i32}
// WS:            scf.for
// WS:              tile.mbarrier_wait
// WS:              tile.tma_load {{.*}} {issuer = 128 : i32}
// WS:        } consumer {
// WS:          scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32)
// WS-NOT:        tile.mbarrier_arrive
// WS:            scf.for
// WS:              tile.mbarrier_arrive
// WS:            } {tile.pipelined}
// WS-NOT:        tile.mbarrier_arrive
// WS:            tile.store
// NOREG-LABEL: func.func @own_tile_loop
// NOREG:       tile.warp_specialize {consumer_warps = 4 : i32}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @own_tile_loop(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32, %tiles: i32, %tn: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %m = arith.divui %t, %tn : i32
    %n = arith.remui %t, %tn : i32
    %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
      %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
      tile.async_copy %A[%m, %j], %ba {layout = #blocked, shape = array<i64: 128, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
      %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
      tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
      tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
      tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
      %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  }
  return
}

// -----

// Two copying loops in a kernel's own loop: their rings stay in it, one
// after the other, and each trip fills them afresh (carried, both would
// live at once); so nothing is specialized (a ring filled in a loop that is
// not at the kernel's top).
// PIPE-LABEL: func.func @two_inner_loops
// PIPE:       scf.for {{.*}} {
// PIPE:         tile.smem_alloc : <[2, 64, 64], f16
// PIPE:         scf.for
// PIPE:         } {tile.pipelined}
// PIPE:         tile.smem_alloc : <[2, 64, 64], f16
// PIPE:         scf.for
// PIPE:         } {tile.pipelined}
// PIPE:       }{{$}}
// WS-LABEL:   func.func @two_inner_loops
// WS-SAME:    tile.not_warp_specialized
// WS-NOT:     tile.warp_specialize
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @two_inner_loops(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %k: i32, %tiles: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %r1 = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<64x64xf16, #blocked>) : i32 {
      %b = tile.smem_alloc : !tile.smem<[64, 64], f16, #s>
      tile.async_copy %A[%t, %j], %b {layout = #blocked, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #s>
      tile.async_wait %b : !tile.smem<[64, 64], f16, #s>
      %x = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #blocked>
      %y = arith.addf %acc, %x : tensor<64x64xf16, #blocked>
      scf.yield %y : tensor<64x64xf16, #blocked>
    }
    %r2 = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %r1) -> (tensor<64x64xf16, #blocked>) : i32 {
      %b = tile.smem_alloc : !tile.smem<[64, 64], f16, #s>
      tile.async_copy %A[%j, %t], %b {layout = #blocked, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #s>
      tile.async_wait %b : !tile.smem<[64, 64], f16, #s>
      %x = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #blocked>
      %y = arith.addf %acc, %x : tensor<64x64xf16, #blocked>
      scf.yield %y : tensor<64x64xf16, #blocked>
    }
    tile.store %O[%t, %c0], %r2 : <f16, 2>, tensor<64x64xf16, #blocked>
  }
  return
}

// -----

// The rings are carried only where they fit beside the rest of the outer
// loop's body: here 64 KB of rings and the 64 KB conversion of the
// accumulator on its way to the store, in 100,000 bytes, do not, and the
// rings stay in the loop (dead between trips, the conversion's scratch may
// reuse them); with staged-stores (sm_90: tile-convert-stores-to-tma
// stages the store in parts, or writes it from registers, where it would
// not fit) the conversion does not count, and they are carried.
// FIT-LABEL:    func.func @converted_store
// FIT:          scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}}  : i32 {
// FIT-NEXT:       arith.divui
// FIT-NEXT:       arith.remui
// FIT-NEXT:       tile.smem_alloc : <[2, 128, 64], f16
// STAGED-LABEL: func.func @converted_store
// STAGED:       tile.smem_alloc : <[2, 128, 64], f16
// STAGED-NEXT:  tile.smem_alloc : <[2, 64, 128], f16
// STAGED-NEXT:  scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32)
// WS-LABEL:     func.func @converted_store
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#st = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @converted_store(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32, %tiles: i32, %tn: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %m = arith.divui %t, %tn : i32
    %n = arith.remui %t, %tn : i32
    %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
      %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
      tile.async_copy %A[%m, %j], %ba {layout = #blocked, shape = array<i64: 128, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
      %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
      tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
      tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
      tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
      %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %s = tile.convert_layout %r : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #st>
    tile.store %C[%m, %n], %s : <f32, 2>, tensor<128x128xf32, #st>
  }
  return
}
