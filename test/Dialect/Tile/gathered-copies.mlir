// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse | FileCheck %s

// Gathered copies (a load whose boxes come from a tile of indices: the
// pages of a paged KV cache) in a pipelined loop. tile-pipeline issues the
// read of the page numbers ahead with the copy they index (the boxes are
// part of the copy's operands); tile-convert-copies-to-tma gives the copy a
// map whose box is one page along the gathered tensor dimension (here the
// (pages * 16, heads, 64) cache's rows, view dimension 2 of the transposed
// view), and keeps the boxes on the tile.tma_load.

#bq = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#rep2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#rep1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#bo = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sq = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>

// CHECK-LABEL: func.func @paged
// CHECK-SAME:  %[[MAP:[^:]*]]: !tile.tensor_map<[16, 1, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 16, 1, 64>, param = 1 : i32, swizzle = 128 : i32}]
// The prologue: iteration 0's pages, and its copy.
// CHECK:       %[[T0:.*]] = tile.load %arg3[%{{.*}}, %[[C0:.*]]] : <i32, 2> -> tensor<1x4xi32, #[[REP2:.*]]>
// CHECK-NEXT:  %[[P0:.*]] = tile.reshape %[[T0]]
// CHECK-NEXT:  %[[S0:.*]] = tile.smem_slot
// CHECK-NEXT:  tile.tma_load %[[MAP]][%[[C0]], %{{.*}}, %[[C0]]] boxes(%[[P0]] : tensor<4xi32, #{{.*}}>), %[[S0]], %{{.*}}[%[[C0]]] if %{{.*}} {box_dim = 0 : i32}
// CHECK:       scf.for %[[J:[^ ]*]] = 
// CHECK:         tile.mbarrier_wait
// The next iteration's pages and copy.
// CHECK:         %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK:         %[[T1:.*]] = tile.load %arg3[%{{.*}}, %[[NEXT]]]
// CHECK-NEXT:    %[[P1:.*]] = tile.reshape %[[T1]]
// CHECK-NEXT:    %[[S1:.*]] = tile.smem_slot
// CHECK-NEXT:    tile.tma_load %[[MAP]][%[[C0]], %{{.*}}, %[[C0]]] boxes(%[[P1]] : tensor<4xi32, #{{.*}}>), %[[S1]], {{.*}} {box_dim = 0 : i32}
// CHECK:         tile.wgmma

func.func @paged(%arg0: !tile.global<f16, 2>, %arg1: !tile.global<f16, 3>, %arg2: !tile.global<f16, 3>, %arg3: !tile.global<i32, 2>, %arg4: !tile.global<f32, 2>, %arg5: i32) attributes {tile.constants = {D = 64 : i64, PAGE = 16 : i64, TILE_N = 64 : i64}, tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
  %c1_i32 = arith.constant 1 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %c0_i32 = arith.constant 0 : i32
  %0 = tile.bid 0
  %1 = tile.bid 1
  %2 = tile.smem_alloc : <[64, 64], f16, #sq>
  tile.async_copy %arg0[%0, %c0_i32], %2 {layout = #bq, shape = array<i64: 64, 64>} : <f16, 2>, <[64, 64], f16, #sq>
  tile.async_wait %2 : !tile.smem<[64, 64], f16, #sq>
  %3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst) -> (tensor<64x64xf32, #mma>)  : i32 {
    %5 = tile.load %arg3[%0, %arg6] : <i32, 2> -> tensor<1x4xi32, #rep2>
    %6 = tile.reshape %5 : tensor<1x4xi32, #rep2> -> tensor<4xi32, #rep1>
    %7 = tile.smem_alloc : <[64, 64], f16, #sk>
    tile.async_copy %arg1[%c0_i32, %1, %c0_i32] boxes(%6 : tensor<4xi32, #rep1>), %7 {box_dim = 2 : i32, latency = 2 : i32, layout = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>, order = array<i32: 2, 1, 0>, shape = array<i64: 64, 1, 64>} : <f16, 3>, <[64, 64], f16, #sk>
    tile.async_wait %7 : !tile.smem<[64, 64], f16, #sk>
    %8 = tile.wgmma %2, %7, %arg7 : !tile.smem<[64, 64], f16, #sq>, <[64, 64], f16, #sk>, tensor<64x64xf32, #mma>
    scf.yield %8 : tensor<64x64xf32, #mma>
  }
  %4 = tile.convert_layout %3 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #bo>
  tile.store %arg4[%0, %c0_i32], %4 : <f32, 2>, tensor<64x64xf32, #bo>
  return
}

// -----

// Pages of four keys: boxes of 4 rows of 128 bytes do not start the 128-byte
// swizzle's pattern (8 rows) again, so TMA cannot write them; cp.async, and
// the reason is kept.
#bq = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#rep2 = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#rep1 = #tile.blocked<sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#bo = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sq = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>

// CHECK-LABEL: func.func @small_pages
// CHECK-SAME:  tile.tma_fallback = ["line {{[0-9]+}}: cp.async instead of TMA: a gathered box of 4 rows does not start a new swizzle pattern (it needs 8 rows or a multiple)"]
// CHECK:       tile.async_copy %arg1[{{.*}}] boxes(
// CHECK-NOT:   tile.tma_load

func.func @small_pages(%arg0: !tile.global<f16, 2>, %arg1: !tile.global<f16, 3>, %arg2: !tile.global<f16, 3>, %arg3: !tile.global<i32, 2>, %arg4: !tile.global<f32, 2>, %arg5: i32) attributes {tile.constants = {D = 64 : i64, PAGE = 4 : i64, TILE_N = 64 : i64}, tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
  %c1_i32 = arith.constant 1 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %c0_i32 = arith.constant 0 : i32
  %0 = tile.bid 0
  %1 = tile.bid 1
  %2 = tile.smem_alloc : <[64, 64], f16, #sq>
  tile.async_copy %arg0[%0, %c0_i32], %2 {layout = #bq, shape = array<i64: 64, 64>} : <f16, 2>, <[64, 64], f16, #sq>
  tile.async_wait %2 : !tile.smem<[64, 64], f16, #sq>
  %3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst) -> (tensor<64x64xf32, #mma>)  : i32 {
    %5 = tile.load %arg3[%0, %arg6] : <i32, 2> -> tensor<1x16xi32, #rep2>
    %6 = tile.reshape %5 : tensor<1x16xi32, #rep2> -> tensor<16xi32, #rep1>
    %7 = tile.smem_alloc : <[64, 64], f16, #sk>
    tile.async_copy %arg1[%c0_i32, %1, %c0_i32] boxes(%6 : tensor<16xi32, #rep1>), %7 {box_dim = 2 : i32, latency = 2 : i32, layout = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>, order = array<i32: 2, 1, 0>, shape = array<i64: 64, 1, 64>} : <f16, 3>, <[64, 64], f16, #sk>
    tile.async_wait %7 : !tile.smem<[64, 64], f16, #sk>
    %8 = tile.wgmma %2, %7, %arg7 : !tile.smem<[64, 64], f16, #sq>, <[64, 64], f16, #sk>, tensor<64x64xf32, #mma>
    scf.yield %8 : tensor<64x64xf32, #mma>
  }
  %4 = tile.convert_layout %3 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #bo>
  tile.store %arg4[%0, %c0_i32], %4 : <f32, 2>, tensor<64x64xf32, #bo>
  return
}
