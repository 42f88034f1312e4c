// RUN: tile-opt %s --tile-loop-split | FileCheck %s

// tile-loop-split on a loop already pipelined (the compiler runs it last of
// the schedule passes): a ring of two slots filled one trip ahead, whose
// slot counter (%arg6) is carried, and a branch on the induction variable
// (the accumulator scaled from trip %arg3 on). The prologue stays once,
// before both loops; each body keeps the waits, the slots from the carried
// counter and the copies for the next trip, predicated on the original
// bound (%1): the last trips of the first loop fill the ring for the second
// one's first, and the second starts from the first's counter. Only the
// second loop scales.

// CHECK-LABEL: func.func @k
// CHECK:         %[[UB:.*]] = arith.ceildivsi
// CHECK-COUNT-2: tile.async_copy
// CHECK-NOT:     tile.async_copy
// CHECK:         %[[MIN:.*]] = arith.minsi %arg3, %[[UB]] : i32
// CHECK:         %[[SPLIT:.*]] = arith.maxsi %[[MIN]], %c0_i32 : i32
// CHECK:         %[[FIRST:.*]]:2 = scf.for %[[I:.*]] = %c0_i32 to %[[SPLIT]] step %c1_i32 iter_args(%{{.*}} = %cst_0, %[[N1:.*]] = %c0_i32)
// CHECK:           arith.remui %[[N1]], %c2_i32
// CHECK:           tile.async_wait %{{.*}} {pending = 1 : i32}
// CHECK:           %[[NEXT1:.*]] = arith.addi %[[I]], %c1_i32
// CHECK:           %[[P1:.*]] = arith.cmpi slt, %[[NEXT1]], %[[UB]] : i32
// CHECK:           tile.async_copy %arg0[%{{.*}}, %[[NEXT1]]], %{{.*}} if %[[P1]]
// CHECK:           tile.async_copy %arg1[%[[NEXT1]], %c0_i32], %{{.*}} if %[[P1]]
// CHECK:           tile.mma
// CHECK-NOT:       arith.mulf
// CHECK-NOT:       scf.if
// CHECK:           scf.yield
// CHECK:         } {tile.pipelined}
// CHECK:         %[[SECOND:.*]]:2 = scf.for %[[J:.*]] = %[[SPLIT]] to %[[UB]] step %c1_i32 iter_args(%{{.*}} = %[[FIRST]]#0, %{{.*}} = %[[FIRST]]#1)
// CHECK:           %[[NEXT2:.*]] = arith.addi %[[J]], %c1_i32
// CHECK:           %[[P2:.*]] = arith.cmpi slt, %[[NEXT2]], %[[UB]] : i32
// CHECK:           tile.async_copy %arg0[%{{.*}}, %[[NEXT2]]], %{{.*}} if %[[P2]]
// CHECK:           %[[ACC:.*]] = tile.mma
// CHECK-NOT:       scf.if
// CHECK:           arith.mulf %[[ACC]], %cst
// CHECK:         } {tile.pipelined}
// CHECK:         tile.async_wait all
// CHECK:         tile.convert_layout %[[SECOND]]#0

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#shared = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [2, 1, 0]>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#shared2 = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
module {
  func.func @k(%arg0: !tile.global<f16, 2>, %arg1: !tile.global<f16, 2>, %arg2: !tile.global<f32, 2>, %arg3: i32) attributes {tile.constants = {}, tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
    %c2_i32 = arith.constant 2 : i32
    %cst = arith.constant dense<5.000000e-01> : tensor<64x64xf32, #mma>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c16_i32 = arith.constant 16 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %0 = tile.dim %arg0, 1 : <f16, 2>
    %1 = arith.ceildivsi %0, %c16_i32 : i32
    %2 = tile.bid 0
    %3 = tile.smem_alloc : <[2, 64, 16], f16, #shared>
    %4 = tile.smem_alloc : <[2, 16, 64], f16, #shared1>
    %5 = arith.cmpi sgt, %1, %c0_i32 : i32
    %6 = tile.smem_slot %3[%c0_i32] : <[2, 64, 16], f16, #shared> -> <[64, 16], f16, #shared2>
    tile.async_copy %arg0[%2, %c0_i32], %6 if %5 {latency = 2 : i32, layout = #blocked, shape = array<i64: 64, 16>} : <f16, 2>, <[64, 16], f16, #shared2>
    %7 = tile.smem_slot %4[%c0_i32] : <[2, 16, 64], f16, #shared1> -> <[16, 64], f16, #shared3>
    tile.async_copy %arg1[%c0_i32, %c0_i32], %7 if %5 {latency = 2 : i32, layout = #blocked1, shape = array<i64: 16, 64>} : <f16, 2>, <[16, 64], f16, #shared3>
    %8:2 = scf.for %arg4 = %c0_i32 to %1 step %c1_i32 iter_args(%arg5 = %cst_0, %arg6 = %c0_i32) -> (tensor<64x64xf32, #mma>, i32)  : i32 {
      %10 = arith.remui %arg6, %c2_i32 : i32
      %11 = tile.smem_slot %4[%10] : <[2, 16, 64], f16, #shared1> -> <[16, 64], f16, #shared3>
      %12 = tile.smem_slot %3[%10] : <[2, 64, 16], f16, #shared> -> <[64, 16], f16, #shared2>
      tile.async_wait %12 {pending = 1 : i32} : !tile.smem<[64, 16], f16, #shared2>
      tile.async_wait %11 : !tile.smem<[16, 64], f16, #shared3>
      %13 = arith.addi %arg4, %c1_i32 : i32
      %14 = arith.cmpi slt, %13, %1 : i32
      %15 = arith.addi %arg6, %c1_i32 : i32
      %16 = arith.remui %15, %c2_i32 : i32
      %17 = tile.smem_slot %3[%16] : <[2, 64, 16], f16, #shared> -> <[64, 16], f16, #shared2>
      tile.async_copy %arg0[%2, %13], %17 if %14 {latency = 2 : i32, layout = #blocked, shape = array<i64: 64, 16>} : <f16, 2>, <[64, 16], f16, #shared2>
      %18 = tile.smem_slot %4[%16] : <[2, 16, 64], f16, #shared1> -> <[16, 64], f16, #shared3>
      tile.async_copy %arg1[%13, %c0_i32], %18 if %14 {latency = 2 : i32, layout = #blocked1, shape = array<i64: 16, 64>} : <f16, 2>, <[16, 64], f16, #shared3>
      %19 = tile.local_load %12 [0, 0] : <[64, 16], f16, #shared2> -> tensor<64x16xf16, #dot_a>
      %20 = tile.local_load %11 [0, 0] : <[16, 64], f16, #shared3> -> tensor<16x64xf16, #dot_b>
      %21 = tile.mma %19, %20, %arg5 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
      %22 = arith.cmpi sge, %arg4, %arg3 : i32
      %23 = scf.if %22 -> (tensor<64x64xf32, #mma>) {
        %24 = arith.mulf %21, %cst : tensor<64x64xf32, #mma>
        scf.yield %24 : tensor<64x64xf32, #mma>
      } else {
        scf.yield %21 : tensor<64x64xf32, #mma>
      }
      scf.yield %23, %15 : tensor<64x64xf32, #mma>, i32
    } {tile.pipelined}
    tile.async_wait all
    %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked2>
    tile.store %arg2[%2, %c0_i32], %9 : <f32, 2>, tensor<64x64xf32, #blocked2>
    return
  }
}

