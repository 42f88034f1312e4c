// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma --verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-rotate-wgmma=enabled=false --verify-diagnostics | FileCheck %s --check-prefix=OFF

// Loops' schedules decide which loops tile-rotate-wgmma rotates: a loop
// whose schedule says rotate_wgmma = true or false is rotated or not
// whatever `enabled` (the kernel's rotate_wgmma option); one whose schedule
// says nothing follows `enabled`. A loop that asks and cannot be rotated is
// told why, whatever `warn`. (Rotated: the peeled first trip and the last
// trip's P V sit under an scf.if on the loop running at all.)

// CHECK-LABEL: func.func @asks
// CHECK:       scf.if
// OFF-LABEL:   func.func @asks
// OFF:         scf.if
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @asks(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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

// -----

// CHECK-LABEL: func.func @declines
// CHECK-NOT:   scf.if
// CHECK:       return
// OFF-LABEL:   func.func @declines
// OFF-NOT:     scf.if
// OFF:         return
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @declines(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = false>}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

// CHECK-LABEL: func.func @says_nothing
// CHECK:       scf.if
// OFF-LABEL:   func.func @says_nothing
// OFF-NOT:     scf.if
// OFF:         return
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
  } {tile.pipelined}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A loop that asks and has one multiply: told why it is left alone.
// CHECK-LABEL: func.func @asks_alone
// CHECK-NOT:   scf.if
func.func @asks_alone(%a: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  // expected-warning @+1 {{rotate_wgmma does not apply to this loop: the loop has one multiply at its top level; there is no first multiply to issue the last one behind}}
  %g = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.schedule = #tile.schedule<rotate_wgmma = true>}
  return %g : tensor<64x64xf32, #mma>
}

// -----

// A loop's rescale_in_trip keeps the accumulator's rescaling at the end of
// its trip, whatever the pass's default: what goes around is the rescaled
// accumulator, no factor beside it (one result fewer out of the peeled
// trip's scf.if than @asks's).
// CHECK-LABEL: func.func @keeps_rescale
// CHECK:       scf.if %{{.*}} -> (tensor<64x64xf32, #mma>, i32, i32, i32, i32, tensor<64x64xf16, #dot_a>)
// OFF-LABEL:   func.func @keeps_rescale
// OFF:         scf.if %{{.*}} -> (tensor<64x64xf32, #mma>, i32, i32, i32, i32, tensor<64x64xf16, #dot_a>)
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @keeps_rescale(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
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
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = true, rescale_in_trip = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}


// -----

// rescale_in_trip on a loop that is not rotated: told so.
// CHECK-LABEL: func.func @rescale_not_rotated
// CHECK-NOT:   scf.if
// CHECK:       return
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @rescale_not_rotated(%mK: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mV: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bk = tile.mbarrier_alloc : !tile.mbarrier<2>
  %rv = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bv = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-warning @+1 {{rescale_in_trip does not apply to this loop: it is not rotated (rotate_wgmma is off for it)}}
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
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = false, rescale_in_trip = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}


// -----

// One ring read by both multiplies (a latent tile read as K^T by the scores
// and as V by P V, tile.wgmma `transposed`): rotated, a trip holds two of
// its slots, this trip's tile for the scores and the trip before's for the
// moved P V, and refills the latter after P V. With two stages no copy
// would then be in flight as a trip begins (each would wait for the one
// issued at the end of the trip before; MLA decode rotated so ran 30%
// slower, bench/results/2026-12-07-h100-mla-rotated.md): left alone, told
// why. With three it rotates.
// CHECK-LABEL: func.func @one_ring_two_stages
// CHECK-NOT:   scf.if
// CHECK:       tile.wgmma %{{.*}} transposed
// CHECK:       tile.wgmma
// CHECK:       scf.yield
// OFF-LABEL:   func.func @one_ring_two_stages
// OFF-NOT:     scf.if
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @one_ring_two_stages(%mC: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cs = arith.constant 2 : i32
  %c2m1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rc = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bc = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-warning @+1 {{rotate_wgmma does not apply to this loop: rotated, a trip would hold two tiles of a ring that the moved multiply and one staying in the trip both read (its tile and the trip before's); with 2 stages no copy would be in flight as a trip begins (three stages or more)}}
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %cs : i32
    %c = tile.smem_slot %rc[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bc[%s], %c0, %c : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ahead = arith.addi %it, %c2m1 : i32
    %ws = arith.remui %ahead, %cs : i32
    %wc = tile.smem_slot %rc[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wc, %bc[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %qk = tile.wgmma %q, %c transposed, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = arith.mulf %qk, %qk : tensor<64x64xf32, #mma>
    %scaled = arith.mulf %acc, %e : tensor<64x64xf32, #mma>
    %a1 = tile.convert_layout %scaled : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma1>
    %p = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %pv = tile.wgmma %pa, %c, %a1 : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma1>
    %back = tile.convert_layout %pv : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
    scf.yield %back, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

// CHECK-LABEL: func.func @one_ring_three_stages
// CHECK:       scf.if
// OFF-LABEL:   func.func @one_ring_three_stages
// OFF:         scf.if
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#mma1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma1>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

func.func @one_ring_three_stages(%mC: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %q: !tile.smem<[64, 64], f16, #sw>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cs = arith.constant 3 : i32
  %c3m1 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %rc = tile.smem_alloc : !tile.smem<[3, 64, 64], f16, #rw>
  %bc = tile.mbarrier_alloc : !tile.mbarrier<3>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %cs : i32
    %c = tile.smem_slot %rc[%s] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bc[%s], %c0, %c : !tile.mbarrier<3>, !tile.smem<[64, 64], f16, #sw>
    %it1 = arith.addi %it, %c1 : i32
    %ahead = arith.addi %it, %c3m1 : i32
    %ws = arith.remui %ahead, %cs : i32
    %wc = tile.smem_slot %rc[%ws] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mC[%j, %c0], %wc, %bc[%ws] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<3>
    %qk = tile.wgmma %q, %c transposed, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = arith.mulf %qk, %qk : tensor<64x64xf32, #mma>
    %scaled = arith.mulf %acc, %e : tensor<64x64xf32, #mma>
    %a1 = tile.convert_layout %scaled : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma1>
    %p = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %pv = tile.wgmma %pa, %c, %a1 : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma1>
    %back = tile.convert_layout %pv : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #mma>
    scf.yield %back, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined, tile.schedule = #tile.schedule<rotate_wgmma = true>}
  return %r#0 : tensor<64x64xf32, #mma>
}
