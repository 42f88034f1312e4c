// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma="rotated-tiles=true rescale-in-trip=true" --verify-diagnostics | FileCheck %s

// With the kernel's tile loop rotated too (rotated-tiles: tile-rotate-tiles
// runs later), the rescaling moves with the multiply in every loop: the
// kernel's rescale-in-trip gives way quietly, a loop's own rescale_in_trip
// is told why. (Moved: the factor goes around beside the accumulator, one
// more result out of the peeled trip's scf.if.)

// CHECK-LABEL: func.func @asks_rescale
// CHECK:       scf.if %{{.*}} -> (tensor<64x64xf32, #mma>, i32, i32, i32, i32, tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>)
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @asks_rescale(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bk = tile.mbarrier_alloc : !tile.mbarrier<2>
  %rv = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bv = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-warning @+1 {{rescale_in_trip does not apply to this loop: the kernel's tile loop is rotated (rotate_tiles), and the rescaling moves with the multiply (in the rotated tile loop's peeled first trip it would spill)}}
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
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = true, rescale_in_trip = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}


// -----

// CHECK-LABEL: func.func @says_nothing
// CHECK:       scf.if %{{.*}} -> (tensor<64x64xf32, #mma>, i32, i32, i32, i32, tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_a>)
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @says_nothing(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}

