// RUN: tile-opt %s -split-input-file --tile-stage-mma-operands | FileCheck %s

// tile-stage-mma-operands feeds mma operands that reach their operand layout
// through shared memory from a swizzled shared memory buffer:
//  - an operand converted from a tile.load (possibly through a reshape that
//    drops unit dimensions), used nowhere else, with zero padding and at
//    least 4 bytes per thread and vector, is copied global -> shared with
//    tile.async_copy (cp.async) into a tile.smem_alloc buffer where the load
//    was, and waited for (tile.async_wait, pending 0) before it is read;
//  - any other converted operand is written with tile.local_alloc;
//  - an operand whose conversion keeps every element in its thread (the
//    16-bit accumulator of one mma as the A operand of the next) stays in
//    registers;
//  - the mma reads the whole buffer with one tile.local_load.
// The loads, reshapes and conversions that fed the buffers are erased.
// For a version-3 (wgmma) mma the buffers get the layouts wgmma's
// descriptors describe (#tile.shared with `block`: 16-byte chunks swizzled
// over blocks of 128, 64 or 32 bytes, the widest the fastest dimension
// fills), and tile.wgmma reads them in place, with no tile.local_load; an A
// operand whose conversion is register-only stays in registers, unless its
// tile is written to a buffer wgmma reads as A anyway. A register tile
// transposed into an operand is written once as its registers hold it and
// read through a tile.smem_permute view.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// An operand converted from a tile.load used nowhere else is copied global ->
// shared where the load was (tile.smem_alloc + tile.async_copy), waited for
// right before the conversion, and read whole with tile.local_load. The
// mma is not split (tile-slice-mma-k) and the copies are not moved
// (tile-schedule-async-copies).
// A 64x32 row-major f16 tile has 64-byte rows: four 16-byte chunks, so the
// swizzle has 4 phases, each 2 rows high; 128-byte rows get 8 phases of 1 row.
// CHECK:      #[[SA:shared]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-NEXT: #[[SB:shared1]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[B:.*]]: !tile.global<f16, 2>, %[[I:.*]]: i32)
// CHECK-NEXT:  %[[Z:.*]] = arith.constant
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc : <[64, 32], f16, #[[SA]]>
// CHECK-NEXT:  tile.async_copy %[[A]][%[[I]], %[[I]]], %[[BA]] {layout = #blocked, shape = array<i64: 64, 32>} : <f16, 2>, <[64, 32], f16, #[[SA]]>
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc : <[32, 64], f16, #[[SB]]>
// CHECK-NEXT:  tile.async_copy %[[B]][%[[I]], %[[I]]], %[[BB]] {layout = #blocked1, shape = array<i64: 32, 64>} : <f16, 2>, <[32, 64], f16, #[[SB]]>
// CHECK-NEXT:  tile.async_wait %[[BA]] : !tile.smem<[64, 32], f16, #[[SA]]>
// CHECK-NEXT:  %[[RA:.*]] = tile.local_load %[[BA]] [0, 0] : <[64, 32], f16, #[[SA]]> -> tensor<64x32xf16, #dot_a>
// CHECK-NEXT:  tile.async_wait %[[BB]] : !tile.smem<[32, 64], f16, #[[SB]]>
// CHECK-NEXT:  %[[RB:.*]] = tile.local_load %[[BB]] [0, 0] : <[32, 64], f16, #[[SB]]> -> tensor<32x64xf16, #dot_b>
// CHECK-NEXT:  %[[D:.*]] = tile.mma %[[RA]], %[[RB]], %[[Z]]
// CHECK-NEXT:  return %[[D]]
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %i: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x32xf16, #blocked>
  %b = tile.load %B[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16, #blocked1>
  %ad = tile.convert_layout %a : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %bd = tile.convert_layout %b : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #dot_b>
  %d = tile.mma %ad, %bd, %z : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}
// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 8, 4], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>
#blocked4 = #tile.blocked<sizePerThread = [1, 1, 8, 1], threadsPerWarp = [1, 1, 4, 8], warpsPerCTA = [1, 1, 1, 4], order = [2, 3, 1, 0]>
#blocked5 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Attention: Q and V come from 4-D loads reshaped to 2-D, K from a transposed
// 4-D load (the buffer is then column-major: order = [0, 1]); the async copy
// takes the 4-D tile and the reshape's 2-D layout. P, the f16 accumulator of
// the first mma, is already held by the right threads for the second: its
// conversion is register-only and stays.
// CHECK:      #[[SQ:shared]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-NEXT: #[[SK:shared1]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-LABEL: func.func @attention
// CHECK-SAME:  (%[[Q:.*]]: !tile.global<f16, 4>, %[[K:.*]]: !tile.global<f16, 4>, %[[V:.*]]: !tile.global<f16, 4>, %[[I:.*]]: i32)
// CHECK-NOT:   tile.load
// CHECK-NOT:   tile.reshape
// CHECK:       %[[BQ:.*]] = tile.smem_alloc : <[64, 32], f16, #[[SQ]]>
// CHECK-NEXT:  tile.async_copy %[[Q]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[BQ]] {layout = #blocked, shape = array<i64: 1, 1, 64, 32>}
// CHECK-NEXT:  %[[BK:.*]] = tile.smem_alloc : <[32, 64], f16, #[[SK]]>
// CHECK-NEXT:  tile.async_copy %[[K]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[BK]] {layout = #blocked1, order = array<i32: 0, 1, 3, 2>, shape = array<i64: 1, 1, 32, 64>}
// CHECK-NEXT:  tile.async_wait %[[BQ]]
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 0] : <[64, 32], f16, #[[SQ]]> -> tensor<64x32xf16, #dot_a>
// CHECK-NEXT:  tile.async_wait %[[BK]]
// CHECK-NEXT:  tile.local_load %[[BK]] [0, 0] : <[32, 64], f16, #[[SK]]> -> tensor<32x64xf16, #dot_b>
// CHECK-NEXT:  %[[S:.*]] = tile.mma
// CHECK-NEXT:  %[[P:.*]] = arith.truncf %[[S]]
// CHECK-NEXT:  %[[BV:.*]] = tile.smem_alloc : <[64, 32], f16, #[[SQ]]>
// CHECK-NEXT:  tile.async_copy %[[V]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[BV]]
// CHECK-NEXT:  %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
// CHECK-NEXT:  tile.async_wait %[[BV]]
// CHECK-NEXT:  %[[RV:.*]] = tile.local_load %[[BV]] [0, 0] : <[64, 32], f16, #[[SQ]]> -> tensor<64x32xf16, #dot_b>
// CHECK-NEXT:  %[[O:.*]] = tile.mma %[[PA]], %[[RV]]
// CHECK-NEXT:  return %[[O]]
func.func @attention(%Q: !tile.global<f16, 4>, %K: !tile.global<f16, 4>, %V: !tile.global<f16, 4>, %i: i32) -> tensor<64x32xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %0 = tile.load %Q[%i, %i, %i, %i] : !tile.global<f16, 4> -> tensor<1x1x64x32xf16, #blocked3>
  %1 = tile.reshape %0 : tensor<1x1x64x32xf16, #blocked3> -> tensor<64x32xf16, #blocked>
  %2 = tile.load %K[%i, %i, %i, %i] {order = array<i32: 0, 1, 3, 2>} : !tile.global<f16, 4> -> tensor<1x1x32x64xf16, #blocked4>
  %3 = tile.reshape %2 : tensor<1x1x32x64xf16, #blocked4> -> tensor<32x64xf16, #blocked5>
  %4 = tile.convert_layout %1 : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %5 = tile.convert_layout %3 : tensor<32x64xf16, #blocked5> -> tensor<32x64xf16, #dot_b>
  %6 = tile.mma %4, %5, %cst_0 : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %7 = arith.truncf %6 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
  %8 = tile.load %V[%i, %i, %i, %i] : !tile.global<f16, 4> -> tensor<1x1x64x32xf16, #blocked3>
  %9 = tile.reshape %8 : tensor<1x1x64x32xf16, #blocked3> -> tensor<64x32xf16, #blocked>
  %10 = tile.convert_layout %7 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
  %11 = tile.convert_layout %9 : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_b>
  %12 = tile.mma %10, %11, %cst : tensor<64x64xf16, #dot_a>, tensor<64x32xf16, #dot_b>, tensor<64x32xf32, #mma>
  return %12 : tensor<64x32xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// cp.async fills out-of-bounds elements with zeros only: a load padded with
// another value goes through registers and tile.local_alloc; so does a tile
// computed from a load.
// CHECK-LABEL: func.func @local_alloc
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[I:.*]]: i32)
// CHECK-NEXT:  %[[Z:.*]] = arith.constant
// CHECK-NEXT:  %[[X:.*]] = tile.load %[[A]][%[[I]], %[[I]]] {padding = 1.000000e+00 : f16} : <f16, 2> -> tensor<64x32xf16, #blocked>
// CHECK-NEXT:  %[[Y:.*]] = tile.load %[[A]][%[[I]], %[[I]]] : <f16, 2> -> tensor<32x64xf16, #blocked1>
// CHECK-NEXT:  %[[Y2:.*]] = arith.addf %[[Y]], %[[Y]] : tensor<32x64xf16, #blocked1>
// CHECK-NEXT:  %[[BX:.*]] = tile.local_alloc %[[X]] : tensor<64x32xf16, #blocked> -> <[64, 32], f16, #shared>
// CHECK-NEXT:  tile.local_load %[[BX]] [0, 0]
// CHECK-NEXT:  %[[BY:.*]] = tile.local_alloc %[[Y2]] : tensor<32x64xf16, #blocked1> -> <[32, 64], f16, #shared1>
// CHECK-NEXT:  tile.local_load %[[BY]] [0, 0]
// CHECK-NEXT:  tile.mma
// CHECK-NOT:   tile.async
// CHECK:       return
func.func @local_alloc(%A: !tile.global<f16, 2>, %i: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %0 = tile.load %A[%i, %i] {padding = 1.000000e+00 : f16} : !tile.global<f16, 2> -> tensor<64x32xf16, #blocked>
  %1 = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16, #blocked1>
  %2 = arith.addf %1, %1 : tensor<32x64xf16, #blocked1>
  %3 = tile.convert_layout %0 : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %4 = tile.convert_layout %2 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #dot_b>
  %5 = tile.mma %3, %4, %cst : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %5 : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#narrow = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Zero padding still allows the async copy; a load of 2 bytes per thread
// (cp.async copies 4, 8 or 16) and a load with another use do not. One
// converted operand used by two mmas is written to shared memory once.
// CHECK-LABEL: func.func @async_or_not
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[I:.*]]: i32)
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  %[[BX:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][%[[I]], %[[I]]], %[[BX]] {layout = #blocked, shape = array<i64: 64, 32>}
// CHECK-NEXT:  %[[Y:.*]] = tile.load %[[A]][%[[I]], %[[I]]] : <f16, 2> -> tensor<32x64xf16, #blocked1>
// CHECK-NEXT:  %[[W:.*]] = tile.load %[[A]][%[[I]], %[[I]]] : <f16, 2> -> tensor<64x32xf16, #blocked>
// CHECK-NEXT:  tile.async_wait %[[BX]]
// CHECK-NEXT:  %[[RX:.*]] = tile.local_load %[[BX]] [0, 0]
// CHECK-NEXT:  %[[BY:.*]] = tile.local_alloc %[[Y]] : tensor<32x64xf16, #blocked1> -> <[32, 64], f16, #shared1>
// CHECK-NEXT:  %[[RY:.*]] = tile.local_load %[[BY]] [0, 0]
// CHECK-NEXT:  tile.mma %[[RX]], %[[RY]]
// CHECK-NEXT:  %[[BW:.*]] = tile.local_alloc %[[W]] : tensor<64x32xf16, #blocked> -> <[64, 32], f16, #shared>
// CHECK-NEXT:  %[[RW:.*]] = tile.local_load %[[BW]] [0, 0]
// CHECK-NEXT:  tile.mma %[[RW]], %[[RY]]
// CHECK-NEXT:  return
func.func @async_or_not(%A: !tile.global<f16, 2>, %i: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x32xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %0 = tile.load %A[%i, %i] {padding = 0.000000e+00 : f16} : !tile.global<f16, 2> -> tensor<64x32xf16, #blocked>
  %1 = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16, #narrow>
  %w = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x32xf16, #blocked>
  %3 = tile.convert_layout %0 : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %4 = tile.convert_layout %1 : tensor<32x64xf16, #narrow> -> tensor<32x64xf16, #dot_b>
  %5 = tile.mma %3, %4, %cst : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %6 = tile.convert_layout %w : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %7 = tile.mma %6, %4, %cst : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %5, %7, %w : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x32xf16, #blocked>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Operands already in their layouts (no conversion) are left alone.
// CHECK-LABEL: func.func @registers
// CHECK-NEXT:  tile.mma %arg0, %arg1, %arg2
// CHECK-NEXT:  tile.mma %arg3, %arg4
// CHECK-NEXT:  return
func.func @registers(%a: tensor<64x16xf16, #dot_a>, %b: tensor<16x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>,
                     %a2: tensor<64x32xf16, #dot_a>, %b2: tensor<32x64xf16, #dot_b>) -> tensor<64x64xf32, #mma> {
  %d = tile.mma %a, %b, %c : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %e = tile.mma %a2, %b2, %d : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %e : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// In a loop, the copy stays in the iteration that needs it (tile-pipeline
// moves it ahead); the loop-invariant operand is copied once before it.
// CHECK-LABEL: func.func @loop
// CHECK:       %[[BA:.*]] = tile.smem_alloc : <[64, 128], f16, #shared>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BA]]
// CHECK-NEXT:  %[[RA:.*]] = tile.local_load %[[BA]] [0, 0]
// CHECK-NEXT:  scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[BB:.*]] = tile.smem_alloc : <[128, 64], f16, #shared1>
// CHECK-NEXT:    tile.async_copy %{{.*}}[%{{.*}}, %[[J]]], %[[BB]] {layout = #blocked1, order = array<i32: 1, 0>, shape = array<i64: 128, 64>}
// CHECK-NEXT:    tile.async_wait %[[BB]]
// CHECK-NEXT:    %[[RB:.*]] = tile.local_load %[[BB]] [0, 0]
// CHECK-NEXT:    tile.mma %[[RA]], %[[RB]], %[[ACC]]
func.func @loop(%Q: !tile.global<f16, 2>, %K: !tile.global<f16, 2>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %q = tile.load %Q[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x128xf16, #blocked>
  %qa = tile.convert_layout %q : tensor<64x128xf16, #blocked> -> tensor<64x128xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = tile.load %K[%c0, %j] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<128x64xf16, #blocked1>
    %kb = tile.convert_layout %k : tensor<128x64xf16, #blocked1> -> tensor<128x64xf16, #dot_b>
    %s = tile.mma %qa, %kb, %acc : tensor<64x128xf16, #dot_a>, tensor<128x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %s : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

//===----------------------------------------------------------------------===//
// Version-3 (wgmma) mmas
//===----------------------------------------------------------------------===//

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// SS: both operands from tile.load are copied asynchronously into swizzled
// buffers and waited for, and the tile.mma becomes a tile.wgmma reading the
// buffers. A's rows are 32 halves (64 bytes): the 64-byte swizzle (blocks of
// 32 columns, 4 phases of 2 rows); B's 128 halves fill the 128-byte one
// (blocks of 64 columns, 8 phases of 1 row). Nothing reads the buffers into
// registers.
// CHECK:      #[[SA:shared]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
// CHECK-NEXT: #[[SB:shared1]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @wgmma_ss
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[B:.*]]: !tile.global<f16, 2>, %[[I:.*]]: i32)
// CHECK-NEXT:  %[[Z:.*]] = arith.constant
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc : <[128, 32], f16, #[[SA]]>
// CHECK-NEXT:  tile.async_copy %[[A]][%[[I]], %[[I]]], %[[BA]] {layout = #blocked, shape = array<i64: 128, 32>} : <f16, 2>, <[128, 32], f16, #[[SA]]>
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc : <[32, 128], f16, #[[SB]]>
// CHECK-NEXT:  tile.async_copy %[[B]][%[[I]], %[[I]]], %[[BB]] {layout = #blocked1, shape = array<i64: 32, 128>} : <f16, 2>, <[32, 128], f16, #[[SB]]>
// CHECK-NEXT:  tile.async_wait %[[BA]] : !tile.smem<[128, 32], f16, #[[SA]]>
// CHECK-NEXT:  tile.async_wait %[[BB]] : !tile.smem<[32, 128], f16, #[[SB]]>
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma %[[BA]], %[[BB]], %[[Z]] : !tile.smem<[128, 32], f16, #[[SA]]>, <[32, 128], f16, #[[SB]]>, tensor<128x128xf32, #mma>
// CHECK-NEXT:  return %[[D]]
func.func @wgmma_ss(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %i: i32) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<128x32xf16, #blocked>
  %b = tile.load %B[%i, %i] : !tile.global<f16, 2> -> tensor<32x128xf16, #blocked1>
  %ad = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #dot_a>
  %bd = tile.convert_layout %b : tensor<32x128xf16, #blocked1> -> tensor<32x128xf16, #dot_b>
  %d = tile.mma %ad, %bd, %z : tensor<128x32xf16, #dot_a>, tensor<32x128xf16, #dot_b>, tensor<128x128xf32, #mma>
  return %d : tensor<128x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// One loaded tile read as B by one multiply and, transposed, as B by
// another (attention backward's Q in K Q^T and dS^T Q; MLA's latent tile):
// one buffer, one async copy; the transposed use is a tile.wgmma reading it
// as B^T (`transposed`), the permute gone with the load.
// CHECK-LABEL: func.func @wgmma_shared_transposed_b
// CHECK:       tile.smem_alloc
// CHECK-NEXT:  tile.async_copy
// CHECK-NEXT:  %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16, #[[SQ:shared[0-9]*]]>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BUF]]
// CHECK-NOT:   tile.async_copy
// CHECK:       tile.wgmma %{{.*}}, %[[BUF]] transposed, %{{.*}} : !tile.smem<{{.*}}>, <[64, 64], f16, #[[SQ]]>, tensor<64x64xf32, #mma>
// CHECK:       tile.wgmma %{{.*}}, %[[BUF]], %{{.*}} : !tile.smem<{{.*}}>, <[64, 64], f16, #[[SQ]]>, tensor<64x64xf32, #mma>
// CHECK-NOT:   tile.permute
// CHECK-NOT:   tile.load
func.func @wgmma_shared_transposed_b(%Q: !tile.global<f16, 2>, %K: !tile.global<f16, 2>, %i: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %k = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16, #blocked>
  %q = tile.load %Q[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16, #blocked>
  %qt = tile.permute %q [1, 0] : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blockedT>
  %ka = tile.convert_layout %k : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
  %qtb = tile.convert_layout %qt : tensor<64x64xf16, #blockedT> -> tensor<64x64xf16, #dot_b>
  %s = tile.mma %ka, %qtb, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %qb = tile.convert_layout %q : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_b>
  %d = tile.mma %ka, %qb, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %s, %d : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 80, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// One loaded tile read as A by one multiply and, transposed, as A by
// another (attention backward's K in K Q^T and dQ^T = K^T dS^T): one buffer,
// one async copy; the transposed use reads it through a transposed view
// (`tile.smem_permute`, M-major: wgmma's transpose bit for A), the
// permute gone with the load.
// CHECK-LABEL: func.func @wgmma_shared_transposed_a
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16, #[[SK:shared[0-9]*]]>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BUF]]
// CHECK-NOT:   tile.async_copy
// CHECK:       tile.wgmma %[[BUF]], %{{.*}}, %{{.*}} : !tile.smem<[64, 64], f16, #[[SK]]>
// CHECK:       %[[KT:.*]] = tile.smem_permute %[[BUF]] [1, 0] : <[64, 64], f16, #[[SK]]> -> <[64, 64], f16, #[[SKT:shared[0-9]*]]>
// CHECK-NEXT:  tile.wgmma %[[KT]], %{{.*}}, %{{.*}} : !tile.smem<[64, 64], f16, #[[SKT]]>
// CHECK-NOT:   tile.permute
// CHECK-NOT:   tile.load
func.func @wgmma_shared_transposed_a(%K: !tile.global<f16, 2>, %q: tensor<64x80xf16, #dot_b>, %ds: tensor<64x80xf16, #dot_b>, %i: i32) -> (tensor<64x80xf32, #mma>, tensor<64x80xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x80xf32, #mma>
  %k = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16, #blocked>
  %kt = tile.permute %k [1, 0] : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blockedT>
  %ka = tile.convert_layout %k : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
  %s = tile.mma %ka, %q, %z : tensor<64x64xf16, #dot_a>, tensor<64x80xf16, #dot_b>, tensor<64x80xf32, #mma>
  %kta = tile.convert_layout %kt : tensor<64x64xf16, #blockedT> -> tensor<64x64xf16, #dot_a>
  %dqt = tile.mma %kta, %ds, %z : tensor<64x64xf16, #dot_a>, tensor<64x80xf16, #dot_b>, tensor<64x80xf32, #mma>
  return %s, %dqt : tensor<64x80xf32, #mma>, tensor<64x80xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]>
#blockedT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [1, 4]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// The same with mma.sync (MLA's latent tile on 16 query rows: K^T for the
// scores, V for P V): one buffer, the tile as loaded (row-major), copied
// once; the transposed use reads it through a tile.smem_permute view
// (column-major: ldmatrix without .trans), the other as it is. Nothing is
// written from registers.
// CHECK-LABEL: func.func @shared_transposed_b
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 128], f16, #[[SB:shared[0-9]*]]>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BUF]]
// CHECK-NOT:   tile.async_copy
// CHECK:       %[[T:.*]] = tile.smem_permute %[[BUF]] [1, 0] : <[64, 128], f16, #[[SB]]> -> <[128, 64], f16, #[[ST:shared[0-9]*]]>
// CHECK-NEXT:  tile.local_load %[[T]] [0, 0] : <[128, 64], f16, #[[ST]]> -> tensor<128x64xf16, #dot_b>
// CHECK:       tile.local_load %[[BUF]] [0, 0] : <[64, 128], f16, #[[SB]]> -> tensor<64x128xf16, #dot_b>
// CHECK-NOT:   tile.local_alloc
// CHECK-NOT:   tile.permute
// CHECK-NOT:   tile.load
func.func @shared_transposed_b(%Q: !tile.global<f16, 2>, %C: !tile.global<f16, 2>, %i: i32, %p: tensor<16x64xf16, #dot_a>) -> (tensor<16x64xf32, #mma>, tensor<16x128xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #mma>
  %z2 = arith.constant dense<0.000000e+00> : tensor<16x128xf32, #mma>
  %q = tile.load %Q[%i, %i] : !tile.global<f16, 2> -> tensor<16x128xf16, #blocked>
  %c = tile.load %C[%i, %i] : !tile.global<f16, 2> -> tensor<64x128xf16, #blocked>
  %ct = tile.permute %c [1, 0] : tensor<64x128xf16, #blocked> -> tensor<128x64xf16, #blockedT>
  %qa = tile.convert_layout %q : tensor<16x128xf16, #blocked> -> tensor<16x128xf16, #dot_a>
  %ctb = tile.convert_layout %ct : tensor<128x64xf16, #blockedT> -> tensor<128x64xf16, #dot_b>
  %s = tile.mma %qa, %ctb, %z : tensor<16x128xf16, #dot_a>, tensor<128x64xf16, #dot_b>, tensor<16x64xf32, #mma>
  %cb = tile.convert_layout %c : tensor<64x128xf16, #blocked> -> tensor<64x128xf16, #dot_b>
  %o = tile.mma %p, %cb, %z2 : tensor<16x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<16x128xf32, #mma>
  return %s, %o : tensor<16x64xf32, #mma>, tensor<16x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#s = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#o = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #s>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #s>
#dot_a1 = #tile.dot_operand<opIdx = 0, parent = #o>
#dot_b1 = #tile.dot_operand<opIdx = 1, parent = #o>

// Attention with wgmma (RS for the second multiply): K^T comes from a
// transposed load, so its buffer is column-major (order = [0, 1]), blocks
// of 64 rows of K. P, converted from the first accumulator's layout to the
// A operand layout of the second (instrShape N 128 -> 64, the same
// registers), stays in registers: the second tile.wgmma reads it there and
// only V from shared memory.
// CHECK:      #[[SQ:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-NEXT: #[[SK:shared1]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
// CHECK-LABEL: func.func @wgmma_attention
// CHECK-SAME:  (%[[Q:.*]]: !tile.global<f16, 2>, %[[K:.*]]: !tile.global<f16, 2>, %[[V:.*]]: !tile.global<f16, 2>, %[[I:.*]]: i32)
// CHECK:       %[[BQ:.*]] = tile.smem_alloc : <[128, 64], f16, #[[SQ]]>
// CHECK-NEXT:  tile.async_copy %[[Q]][%[[I]], %[[I]]], %[[BQ]]
// CHECK-NEXT:  %[[BK:.*]] = tile.smem_alloc : <[64, 128], f16, #[[SK]]>
// CHECK-NEXT:  tile.async_copy %[[K]][%[[I]], %[[I]]], %[[BK]] {layout = #blocked1, order = array<i32: 1, 0>, shape = array<i64: 64, 128>}
// CHECK-NEXT:  %[[BV:.*]] = tile.smem_alloc : <[128, 64], f16, #[[SQ]]>
// CHECK-NEXT:  tile.async_copy %[[V]][%[[I]], %[[I]]], %[[BV]]
// CHECK:       tile.async_wait %[[BQ]]
// CHECK-NEXT:  tile.async_wait %[[BK]]
// CHECK-NEXT:  %[[S:.*]] = tile.wgmma %[[BQ]], %[[BK]], %{{.*}} : !tile.smem<[128, 64], f16, #[[SQ]]>, <[64, 128], f16, #[[SK]]>, tensor<128x128xf32, #[[MS:mma[0-9]*]]>
// CHECK-NEXT:  %[[P:.*]] = arith.truncf %[[S]]
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<128x128xf16, #[[MS]]> -> tensor<128x128xf16, #[[DA:dot_a[0-9]*]]>
// CHECK-NEXT:  tile.async_wait %[[BV]]
// CHECK-NEXT:  %[[O:.*]] = tile.wgmma %[[PA]], %[[BV]], %{{.*}} : tensor<128x128xf16, #[[DA]]>, <[128, 64], f16, #[[SQ]]>, tensor<128x64xf32, #[[MO:mma[0-9]*]]>
// CHECK-NEXT:  return %[[O]] : tensor<128x64xf32, #[[MO]]>
func.func @wgmma_attention(%Q: !tile.global<f16, 2>, %K: !tile.global<f16, 2>, %V: !tile.global<f16, 2>, %i: i32) -> tensor<128x64xf32, #o> attributes {tile.num_warps = 4 : i32} {
  %q = tile.load %Q[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16, #blocked>
  %k = tile.load %K[%i, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<64x128xf16, #blocked1>
  %v = tile.load %V[%i, %i] : !tile.global<f16, 2> -> tensor<128x64xf16, #blocked>
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #s>
  %qa = tile.convert_layout %q : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #dot_a>
  %kb = tile.convert_layout %k : tensor<64x128xf16, #blocked1> -> tensor<64x128xf16, #dot_b>
  %s = tile.mma %qa, %kb, %z : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #s>
  %p = arith.truncf %s : tensor<128x128xf32, #s> to tensor<128x128xf16, #s>
  %z2 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #o>
  %pa = tile.convert_layout %p : tensor<128x128xf16, #s> -> tensor<128x128xf16, #dot_a1>
  %vb = tile.convert_layout %v : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #dot_b1>
  %o = tile.mma %pa, %vb, %z2 : tensor<128x128xf16, #dot_a1>, tensor<128x64xf16, #dot_b1>, tensor<128x64xf32, #o>
  return %o : tensor<128x64xf32, #o>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Operands that cannot be copied asynchronously are stored from registers
// with tile.local_alloc, in the same swizzled layouts: A, padded with ones
// (its blocked -> dot_operand conversion moves data between threads, so it
// goes through shared memory), and B, computed. B used by two mmas is
// stored once; both tile.wgmma read the same buffers.
// CHECK:      #[[SW:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @wgmma_local_alloc
// CHECK:       %[[X:.*]] = tile.load %{{.*}} {padding = 1.000000e+00 : f16} : <f16, 2> -> tensor<128x64xf16, #blocked>
// CHECK-NEXT:  %[[Y:.*]] = tile.load
// CHECK-NEXT:  %[[Y2:.*]] = arith.addf %[[Y]], %[[Y]] : tensor<64x128xf16, #blocked1>
// CHECK-NEXT:  %[[BX:.*]] = tile.local_alloc %[[X]] : tensor<128x64xf16, #blocked> -> <[128, 64], f16, #[[SW]]>
// CHECK-NEXT:  %[[BY:.*]] = tile.local_alloc %[[Y2]] : tensor<64x128xf16, #blocked1> -> <[64, 128], f16, #[[SW]]>
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma %[[BX]], %[[BY]], %{{.*}} : !tile.smem<[128, 64], f16, #[[SW]]>, <[64, 128], f16, #[[SW]]>, tensor<128x128xf32, #mma>
// CHECK-NEXT:  %[[E:.*]] = tile.wgmma %[[BX]], %[[BY]], %[[D]]
// CHECK-NEXT:  return %[[E]]
func.func @wgmma_local_alloc(%A: !tile.global<f16, 2>, %i: i32) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %a = tile.load %A[%i, %i] {padding = 1.000000e+00 : f16} : !tile.global<f16, 2> -> tensor<128x64xf16, #blocked>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x128xf16, #blocked1>
  %b2 = arith.addf %b, %b : tensor<64x128xf16, #blocked1>
  %ad = tile.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #dot_a>
  %bd = tile.convert_layout %b2 : tensor<64x128xf16, #blocked1> -> tensor<64x128xf16, #dot_b>
  %d = tile.mma %ad, %bd, %z : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #mma>
  %e = tile.mma %ad, %bd, %d : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #mma>
  return %e : tensor<128x128xf32, #mma>
}

// -----

#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
#s = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Attention backward's dS^T (keys x queries, in an accumulator's layout):
// the A of dK += dS^T Q as it is (a register-only conversion) and,
// transposed, the A of dQ = dS K. The transpose's conversion would move
// the tile between threads through shared memory and then write it again
// for wgmma: instead the tile is written once from its registers, K-major
// (#SW), and the second multiply reads it through a tile.smem_permute view
// (#ST, the same swizzle with the order renamed: wgmma's M-major A). The
// first multiply reads its A from registers all the same (wgmma reading
// only B from shared memory).
// CHECK:      #[[SW:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-NEXT: #[[ST:shared1]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
// CHECK-LABEL: func.func @wgmma_transposed_registers
// CHECK:       %[[H:.*]] = arith.truncf
// CHECK-NEXT:  %[[HA:.*]] = tile.convert_layout %[[H]] : tensor<128x64xf16, #[[S:mma[0-9]*]]> -> tensor<128x64xf16, #[[DA:dot_a[0-9]*]]>
// CHECK-NEXT:  %[[DK:.*]] = tile.wgmma %[[HA]], %{{.*}}, %{{.*}} : tensor<128x64xf16, #[[DA]]>, <[64, 128], f16, #[[SW]]>, tensor<128x128xf32, #[[M:mma[0-9]*]]>
// CHECK-NEXT:  %[[BH:.*]] = tile.local_alloc %[[H]] : tensor<128x64xf16, #[[S]]> -> <[128, 64], f16, #[[SW]]>
// CHECK-NEXT:  %[[HT:.*]] = tile.smem_permute %[[BH]] [1, 0] : <[128, 64], f16, #[[SW]]> -> <[64, 128], f16, #[[ST]]>
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  %[[DQ:.*]] = tile.wgmma %[[HT]], %{{.*}}, %{{.*}} : !tile.smem<[64, 128], f16, #[[ST]]>, <[128, 128], f16, #[[SW]]>, tensor<64x128xf32, #[[M]]>
// CHECK-NEXT:  return %[[DK]], %[[DQ]]
// CHECK-NOT:   tile.permute
func.func @wgmma_transposed_registers(%ds: tensor<128x64xf32, #s>, %q: tensor<64x128xf16, #dot_b>, %k: tensor<128x128xf16, #dot_b>, %dk: tensor<128x128xf32, #mma>) -> (tensor<128x128xf32, #mma>, tensor<64x128xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %h = arith.truncf %ds : tensor<128x64xf32, #s> to tensor<128x64xf16, #s>
  %ha = tile.convert_layout %h : tensor<128x64xf16, #s> -> tensor<128x64xf16, #dot_a>
  %dk2 = tile.mma %ha, %q, %dk : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #mma>
  %hb = tile.convert_layout %h : tensor<128x64xf16, #s> -> tensor<128x64xf16, #blocked1>
  %ht = tile.permute %hb [1, 0] : tensor<128x64xf16, #blocked1> -> tensor<64x128xf16, #blocked2>
  %hta = tile.convert_layout %ht : tensor<64x128xf16, #blocked2> -> tensor<64x128xf16, #dot_a>
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %dq = tile.mma %hta, %k, %z : tensor<64x128xf16, #dot_a>, tensor<128x128xf16, #dot_b>, tensor<64x128xf32, #mma>
  return %dk2, %dq : tensor<128x128xf32, #mma>, tensor<64x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Two warpgroups along N, 32 columns each, reading an N-major B: each
// starts its instructions at its own columns of B's buffer, so the
// buffer's swizzle blocks divide 32 columns: 64-byte swizzle (blocks of
// 32), not the 128 bytes its 64-column rows would take (A's).
// CHECK:      #[[SA:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-NEXT: #[[SB:shared1]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
// CHECK-LABEL: func.func @wgmma_b_parts
// CHECK:       tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} : !tile.smem<[64, 64], f16, #[[SA]]>, <[64, 64], f16, #[[SB]]>, tensor<64x64xf32, #mma>
func.func @wgmma_b_parts(%A: !tile.global<f16, 2>, %i: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 8 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16, #blocked>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16, #blocked>
  %ad = tile.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
  %bd = tile.convert_layout %b : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_b>
  %d = tile.mma %ad, %bd, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Operands already in their layouts (no conversion): A stays in registers;
// B, which wgmma reads only from shared memory, is stored from its operand
// layout at the top of the block.
// CHECK:      #[[SW:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @wgmma_registers
// CHECK-SAME:  (%[[A:.*]]: tensor<128x64xf16, #dot_a>, %[[B:.*]]: tensor<64x128xf16, #dot_b>, %[[C:.*]]: tensor<128x128xf32, #mma>)
// CHECK-NEXT:  %[[BB:.*]] = tile.local_alloc %[[B]] : tensor<64x128xf16, #dot_b> -> <[64, 128], f16, #[[SW]]>
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma %[[A]], %[[BB]], %[[C]] : tensor<128x64xf16, #dot_a>, <[64, 128], f16, #[[SW]]>, tensor<128x128xf32, #mma>
// CHECK-NEXT:  return %[[D]]
func.func @wgmma_registers(%a: tensor<128x64xf16, #dot_a>, %b: tensor<64x128xf16, #dot_b>, %c: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %d = tile.mma %a, %b, %c : tensor<128x64xf16, #dot_a>, tensor<64x128xf16, #dot_b>, tensor<128x128xf32, #mma>
  return %d : tensor<128x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// In a loop: the loop-invariant A is copied once before it, B in the
// iteration that reads it (tile-pipeline moves it ahead). With K = 16 both
// fastest dimensions are 32 bytes: the 32-byte swizzle (blocks of 16
// columns, 2 phases of 4 rows), row-major for A, column-major for the
// transposed B.
// CHECK:      #[[SA:shared]] = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0], block = 16>
// CHECK-NEXT: #[[SB:shared1]] = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1], block = 16>
// CHECK-LABEL: func.func @wgmma_loop
// CHECK:       %[[BA:.*]] = tile.smem_alloc : <[64, 16], f16, #[[SA]]>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BA]]
// CHECK-NEXT:  scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[BB:.*]] = tile.smem_alloc : <[16, 64], f16, #[[SB]]>
// CHECK-NEXT:    tile.async_copy %{{.*}}[%{{.*}}, %[[J]]], %[[BB]] {layout = #blocked1, order = array<i32: 1, 0>, shape = array<i64: 16, 64>}
// CHECK-NEXT:    tile.async_wait %[[BB]]
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma %[[BA]], %[[BB]], %[[ACC]]
// CHECK-NEXT:    scf.yield %[[S]]
func.func @wgmma_loop(%Q: !tile.global<f16, 2>, %K: !tile.global<f16, 2>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %q = tile.load %Q[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x16xf16, #blocked>
  %qa = tile.convert_layout %q : tensor<64x16xf16, #blocked> -> tensor<64x16xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = tile.load %K[%c0, %j] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<16x64xf16, #blocked1>
    %kb = tile.convert_layout %k : tensor<16x64xf16, #blocked1> -> tensor<16x64xf16, #dot_b>
    %s = tile.mma %qa, %kb, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %s : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

// 8-bit operands on wgmma: A K-major as its registers run; B, whose
// registers run along N, stored K-major (order [0, 1]) from registers; a
// swizzle of 64 bytes (64 8-bit elements of K).
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
// CHECK:       #[[SA:shared[0-9]*]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>
// CHECK-NEXT:  #[[SB:shared[0-9]*]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], block = 64>
// CHECK-LABEL: func.func @f8_operands
// CHECK:       %[[A:.*]] = tile.local_alloc %arg0 : tensor<64x64xf8E4M3FN, #{{.*}}> -> <[64, 64], f8E4M3FN, #[[SA]]>
// CHECK:       %[[B:.*]] = tile.local_alloc %arg1 : tensor<64x64xf8E5M2, #{{.*}}> -> <[64, 64], f8E5M2, #[[SB]]>
// CHECK:       tile.wgmma %[[A]], %[[B]], %arg2
func.func @f8_operands(%a: tensor<64x64xf8E4M3FN, #blocked>, %b: tensor<64x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %0 = tile.convert_layout %a : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_a>
  %1 = tile.convert_layout %b : tensor<64x64xf8E5M2, #blocked> -> tensor<64x64xf8E5M2, #dot_b>
  %2 = tile.mma %0, %1, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E5M2, #dot_b>, tensor<64x64xf32, #mma>
  return %2 : tensor<64x64xf32, #mma>
}

// -----

// An 8-bit A rounded from an accumulator stays in registers: its elements
// move between the lanes of each quad (shuffles), not through shared
// memory; B is read from its buffer.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
// CHECK-LABEL: func.func @f8_a_from_accumulator
// CHECK:       %[[P:.*]] = arith.truncf %arg0
// CHECK-NEXT:  %[[A:.*]] = tile.convert_layout %[[P]] : tensor<64x64xf8E4M3FN, #mma> -> tensor<64x64xf8E4M3FN, #dot_a>
// CHECK-NOT:   tile.local_alloc %[[A]]
// CHECK:       %[[B:.*]] = tile.local_alloc %arg1
// CHECK:       tile.wgmma %[[A]], %[[B]], %arg2 : tensor<64x64xf8E4M3FN, #dot_a>
func.func @f8_a_from_accumulator(%s: tensor<64x64xf32, #mma>, %b: tensor<64x64xf8E4M3FN, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %p = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf8E4M3FN, #mma>
  %0 = tile.convert_layout %p : tensor<64x64xf8E4M3FN, #mma> -> tensor<64x64xf8E4M3FN, #dot_a>
  %1 = tile.convert_layout %b : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_b>
  %2 = tile.mma %0, %1, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E4M3FN, #dot_b>, tensor<64x64xf32, #mma>
  return %2 : tensor<64x64xf32, #mma>
}

// -----

// 8-bit operands of mma.sync (kWidth 4) are staged K-contiguous: A as its
// rows run, B (registers along N) stored transposed into a buffer whose
// fastest dimension is K (order [0, 1]); both swizzled in 16-byte vectors
// of 16 bytes.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
// CHECK:       #[[SA:shared[0-9]*]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK:       #[[SB:shared[0-9]*]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-LABEL: func.func @f8_mma_sync
// CHECK:       %[[A:.*]] = tile.local_alloc %{{.*}} : tensor<64x64xf8E4M3FN, #blocked> -> <[64, 64], f8E4M3FN, #[[SA]]>
// CHECK-NEXT:  tile.local_load %[[A]] [0, 0] : {{.*}} -> tensor<64x64xf8E4M3FN, #dot_a>
// CHECK-NEXT:  %[[B:.*]] = tile.local_alloc %{{.*}} : tensor<64x64xf8E5M2, #blocked> -> <[64, 64], f8E5M2, #[[SB]]>
// CHECK-NEXT:  tile.local_load %[[B]] [0, 0] : {{.*}} -> tensor<64x64xf8E5M2, #dot_b>
// CHECK-NEXT:  tile.mma
func.func @f8_mma_sync(%a: tensor<64x64xf8E4M3FN, #blocked>, %b: tensor<64x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %0 = tile.convert_layout %a : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_a>
  %1 = tile.convert_layout %b : tensor<64x64xf8E5M2, #blocked> -> tensor<64x64xf8E5M2, #dot_b>
  %2 = tile.mma %0, %1, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E5M2, #dot_b>, tensor<64x64xf32, #mma>
  return %2 : tensor<64x64xf32, #mma>
}

// -----

// f32 operands (tf32) are read K-major as 8-bit ones are: on wgmma, A as its
// rows run and B, whose registers run along N, stored K-major (order
// [0, 1]) from registers, in 128-byte swizzles of 32 f32s; an f32
// accumulator as the next multiply's A stays in registers (its elements
// move between the lanes of each quad).
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 1>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 1>
// CHECK:       #[[SA:shared[0-9]*]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
// CHECK-NEXT:  #[[SB:shared[0-9]*]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1], block = 32>
// CHECK-LABEL: func.func @tf32_operands
// CHECK:       %[[A:.*]] = tile.local_alloc %arg0 : tensor<64x32xf32, #{{.*}}> -> <[64, 32], f32, #[[SA]]>
// CHECK:       %[[B:.*]] = tile.local_alloc %arg1 : tensor<32x64xf32, #{{.*}}> -> <[32, 64], f32, #[[SB]]>
// CHECK:       %[[S:.*]] = tile.wgmma %[[A]], %[[B]], %arg2
// CHECK-NEXT:  %[[P:.*]] = tile.convert_layout %[[S]] : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #dot_a>
// CHECK-NOT:   tile.local_alloc %[[P]]
// CHECK:       tile.wgmma %[[P]], %{{.*}}, %arg2 : tensor<64x64xf32, #dot_a>
func.func @tf32_operands(%a: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf32, #blocked>, %c: tensor<64x64xf32, #mma>, %v: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #mma> {
  %0 = tile.convert_layout %a : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #dot_a>
  %1 = tile.convert_layout %b : tensor<32x64xf32, #blocked> -> tensor<32x64xf32, #dot_b>
  %2 = tile.mma %0, %1, %c : tensor<64x32xf32, #dot_a>, tensor<32x64xf32, #dot_b>, tensor<64x64xf32, #mma>
  %3 = tile.convert_layout %2 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #dot_a>
  %4 = tile.convert_layout %v : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #dot_b>
  %5 = tile.mma %3, %4, %c : tensor<64x64xf32, #dot_a>, tensor<64x64xf32, #dot_b>, tensor<64x64xf32, #mma>
  return %5 : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// One loaded tile read by two multiplies, as A of one and B of the other
// (attention backward's Q: Q K^T, and dS^T Q): one buffer, one async copy
// where the load was, one wait before the first conversion; both wgmmas
// read the buffer (B N-major: wgmma's transpose of 16-bit B).
// CHECK-LABEL: func.func @shared_operand
// CHECK:       %[[BQ:.*]] = tile.smem_alloc : <[64, 64], f16, #[[S:shared[0-9]*]]>
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BQ]] {layout = #{{.*}}, shape = array<i64: 1, 64, 64>}
// CHECK-NEXT:  tile.async_wait %[[BQ]]
// CHECK-NEXT:  tile.wgmma %[[BQ]], %{{.*}}, %{{.*}} : !tile.smem<[64, 64], f16, #[[S]]>
// CHECK-NEXT:  tile.wgmma %{{.*}}, %[[BQ]], %{{.*}} : tensor<64x64xf16, #dot_a>, <[64, 64], f16, #[[S]]>
// CHECK-NOT:   tile.async_copy
// CHECK-NOT:   tile.local_alloc %{{.*}} : tensor<64x64xf16, #blocked>
func.func @shared_operand(%Q: !tile.global<f16, 3>, %k: tensor<64x64xf16, #dot_b>, %ds: tensor<64x64xf16, #dot_a>, %i: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %q3 = tile.load %Q[%i, %i, %i] : !tile.global<f16, 3> -> tensor<1x64x64xf16, #blocked3>
  %q = tile.reshape %q3 : tensor<1x64x64xf16, #blocked3> -> tensor<64x64xf16, #blocked>
  %qa = tile.convert_layout %q : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
  %s = tile.mma %qa, %k, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %qb = tile.convert_layout %q : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_b>
  %dk = tile.mma %ds, %qb, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %s, %dk : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#mma2 = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#dot_a2 = #tile.dot_operand<opIdx = 0, parent = #mma2>
#dot_b2 = #tile.dot_operand<opIdx = 1, parent = #mma2>

// An A operand (read from registers by wgmma and by mma.sync), converted
// from a loop's load scaled in f32 and rounded: left converted, for
// tile-stage-converted-loads to read the load's ring slot in the operand
// layout (no buffer of the operand, no store from registers).
// B, a load converted as it is, is copied to its buffer as before; so is
// an operand whose chain starts from no load of the loop.
// CHECK-LABEL: func.func @operand_chain_from_load
// CHECK:       scf.for
// CHECK:         %[[T:.*]] = arith.truncf
// CHECK-NEXT:    %[[TA:.*]] = tile.convert_layout %[[T]] : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
// CHECK-NEXT:    %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    tile.async_wait %[[BB]]
// CHECK-NEXT:    tile.wgmma %[[TA]], %[[BB]]
// CHECK:         %[[T2:.*]] = arith.truncf
// CHECK-NEXT:    %[[TA2:.*]] = tile.convert_layout %[[T2]] : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a{{[0-9]+}}>
// CHECK:         tile.local_load {{.*}} -> tensor<64x128xbf16, #dot_b{{[0-9]*}}>
// CHECK-NEXT:    tile.mma %[[TA2]]
// CHECK:         %[[X:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
// CHECK-NEXT:    %[[XB:.*]] = tile.local_alloc %[[X]]
// CHECK:         tile.wgmma %[[XB]]
func.func @operand_chain_from_load(%A: !tile.global<bf16, 2>, %B: !tile.global<bf16, 2>, %x: tensor<64x64xf32, #blocked>, %s: f32, %n: i32) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %z2 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma2>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %acc2 = %z2) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma2>) : i32 {
    %a = tile.load %A[%c0, %k] : <bf16, 2> -> tensor<64x64xbf16, #blocked>
    %e = arith.extf %a : tensor<64x64xbf16, #blocked> to tensor<64x64xf32, #blocked>
    %sc = tile.full %s : tensor<64x64xf32, #blocked>
    %m = arith.mulf %e, %sc : tensor<64x64xf32, #blocked>
    %t = arith.truncf %m : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
    %ta = tile.convert_layout %t : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
    %b = tile.load %B[%k, %c0] : <bf16, 2> -> tensor<64x128xbf16, #blocked1>
    %bb = tile.convert_layout %b : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #dot_b>
    %d = tile.mma %ta, %bb, %acc : tensor<64x64xbf16, #dot_a>, tensor<64x128xbf16, #dot_b>, tensor<64x128xf32, #mma>
    %a2 = tile.load %A[%c1, %k] : <bf16, 2> -> tensor<64x64xbf16, #blocked>
    %e2 = arith.extf %a2 : tensor<64x64xbf16, #blocked> to tensor<64x64xf32, #blocked>
    %m2 = arith.mulf %e2, %sc : tensor<64x64xf32, #blocked>
    %t2 = arith.truncf %m2 : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
    %ta2 = tile.convert_layout %t2 : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a2>
    %b2 = tile.load %B[%k, %c1] : <bf16, 2> -> tensor<64x128xbf16, #blocked1>
    %bb2 = tile.convert_layout %b2 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #dot_b2>
    %d2 = tile.mma %ta2, %bb2, %acc2 : tensor<64x64xbf16, #dot_a2>, tensor<64x128xbf16, #dot_b2>, tensor<64x128xf32, #mma2>
    scf.yield %d, %d2 : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma2>
  }
  %xt = arith.truncf %x : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
  %xa = tile.convert_layout %xt : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
  %b3 = tile.load %B[%c0, %c0] : <bf16, 2> -> tensor<64x128xbf16, #blocked1>
  %bb3 = tile.convert_layout %b3 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #dot_b>
  %d3 = tile.mma %xa, %bb3, %r#0 : tensor<64x64xbf16, #dot_a>, tensor<64x128xbf16, #dot_b>, tensor<64x128xf32, #mma>
  return %d3, %r#1 : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma2>
}
