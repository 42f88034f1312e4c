// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -verify-diagnostics
// RUN: tile-opt %s -split-input-file --tile-stage-mma-operands --convert-tile-to-llvm -verify-diagnostics
// RUN: tile-opt %s -split-input-file --tile-to-llvm -verify-diagnostics

// The preconditions of convert-tile-to-llvm (Preconditions.cpp): every
// tensor is a tile in a distributed layout, of at most 4096 registers per
// thread. The first op of each function that breaks them is reported, and
// nothing is lowered. tile-assign-layouts lays out kernels only, so through
// the whole tile-to-llvm pipeline too the tiles of these functions reach the
// lowering as they are.

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @no_layout(%x: f32, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.full' op result #0 has type 'tensor<512xf32>', which has no layout: run tile-assign-layouts first}}
  %t = tile.full %x : tensor<512xf32>
  %e = math.exp %t : tensor<512xf32>
  %u = tile.convert_layout %e : tensor<512xf32> -> tensor<512xf32, #b>
  tile.store %O[%c0], %u : !tile.global<f32, 1>, tensor<512xf32, #b>
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<512xf32>', which has no layout: run tile-assign-layouts first}}
func.func @argument(%t: tensor<512xf32>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.store %O[%c0], %t : !tile.global<f32, 1>, tensor<512xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 has type 'tensor<512xf32>', which has no layout: run tile-assign-layouts first}}
func.func private @result() -> tensor<512xf32>

// -----

// One error per function.
func.func @first(%x: f32, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.full' op result #0 has type 'tensor<512xf32>', which has no layout: run tile-assign-layouts first}}
  %t = tile.full %x : tensor<512xf32>
  %e = math.exp %t : tensor<512xf32>
  tile.store %O[%c0], %e : !tile.global<f32, 1>, tensor<512xf32>
  return
}

func.func @second(%O: !tile.global<i32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.arange' op result #0 has type 'tensor<64xi32>', which has no layout: run tile-assign-layouts first}}
  %r = tile.arange : tensor<64xi32>
  tile.store %O[%c0], %r : !tile.global<i32, 1>, tensor<64xi32>
  return
}

// -----

// Outside kernels, the verifier lets any tensor through.
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<33554432xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>', which is not a tile: tiles have one or more static dimensions, at most 2^24 (padded) elements, and f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements}}
func.func @not_a_tile(%t: tensor<33554432xf32, #b>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.store %O[%c0], %t : !tile.global<f32, 1>, tensor<33554432xf32, #b>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<64x64xf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>', whose encoding is not a distributed layout (blocked, mma, dot_operand, slice or linear)}}
func.func @shared_encoding(%t: tensor<64x64xf16, #shared>, %O: !tile.global<f16, 2>) {
  %c0 = arith.constant 0 : i32
  tile.store %O[%c0, %c0], %t : !tile.global<f16, 2>, tensor<64x64xf16, #shared>
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<64xf32, "rows">', whose encoding is not a distributed layout (blocked, mma, dot_operand, slice or linear)}}
func.func @string_encoding(%t: tensor<64xf32, "rows">, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.store %O[%c0], %t : !tile.global<f32, 1>, tensor<64xf32, "rows">
  return
}

// -----

// 2^20 elements over 128 threads: 8192 registers each.
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @too_many_registers(%x: f32, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.full' op result #0 has type 'tensor<1048576xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>', which needs 8192 registers per thread; code generation supports at most 4096 (use smaller tiles or more warps)}}
  %t = tile.full %x : tensor<1048576xf32, #b>
  tile.store %O[%c0], %t : !tile.global<f32, 1>, tensor<1048576xf32, #b>
  return
}

// -----

// Held in several warps: refused.
#w = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @old_in_warps(%v: tensor<32xf32, #w>, %O: !tile.global<f32, 1>, %P: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{atomics returning the old values of a tile its layout holds in several warps}}
  // expected-error @+1 {{failed to legalize operation 'tile.atomic_rmw'}}
  %o = tile.atomic_rmw sum %O[%c0], %v : !tile.global<f32, 1>, tensor<32xf32, #w> -> tensor<32xf32, #w>
  tile.store %P[%c0], %o : !tile.global<f32, 1>, tensor<32xf32, #w>
  return
}
