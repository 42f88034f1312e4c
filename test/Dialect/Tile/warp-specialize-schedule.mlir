// RUN: tile-opt %s -split-input-file --tile-warp-specialize="enabled=false warn=false" --verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-warp-specialize=warn=false --verify-diagnostics | FileCheck %s --check-prefix=ON
// (With warn, the caller having asked for the kernel's option, a loop declining
// it is told so: test/Target/loop-schedules.test.)

// Loops' schedules decide which kernels tile-warp-specialize takes: a loop
// filling rings whose schedule says warp_specialize = true asks for it, one
// whose schedule says nothing follows `enabled` (the kernel's
// warp_specialize option). The split of the warps is the kernel's: a loop
// declining in a kernel specialized for another is told so.

// The first loop asks, the second says nothing: specialized (a producer
// per ring), with the kernel's option off.
// CHECK-LABEL: func.func @one_loop_asks
// CHECK-NOT:   tile.not_warp_specialized
// CHECK:       tile.warp_specialize
// CHECK-SAME:  producer {
// CHECK:       } producer {
// CHECK:       } consumer {
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @one_loop_asks(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
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
  } {tile.pipelined, tile.schedule = #tile.schedule<warp_specialize = true>}
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

// One asks, the other declines: specialized, and the one declining is told.
// CHECK-LABEL: func.func @one_declines
// CHECK:       tile.warp_specialize
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @one_declines(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
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
  } {tile.pipelined, tile.schedule = #tile.schedule<warp_specialize = true>}
  // expected-warning @+1 {{warp_specialize=False does not apply to this loop: the kernel's warps are split for another loop, and its producer fills this loop's rings too}}
  %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring2[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full2[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined, tile.schedule = #tile.schedule<warp_specialize = false>}
  return
}

// -----

// No loop says: the kernel's option decides (off: left alone, with no
// reason recorded; on: specialized).
// CHECK-LABEL: func.func @none_says
// CHECK-NOT:   tile.not_warp_specialized
// CHECK-NOT:   tile.warp_specialize
// ON-LABEL:    func.func @none_says
// ON:          tile.warp_specialize
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @none_says(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring1 = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full1 = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full1 {count = 1 : i32} : <2>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring1[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full1[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined}
  return
}

// -----

// The only loop declines: left alone whatever the kernel's option.
// CHECK-LABEL: func.func @declines
// CHECK-NOT:   tile.warp_specialize
// ON-LABEL:    func.func @declines
// ON-NOT:      tile.not_warp_specialized
// ON-NOT:      tile.warp_specialize
// ON-LABEL:    func.func @asks_cannot
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @declines(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring1 = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full1 = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full1 {count = 1 : i32} : <2>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring1[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full1[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined, tile.schedule = #tile.schedule<warp_specialize = false>}
  return
}

// -----

// A loop asks and the kernel cannot be specialized (its warps are not whole
// warpgroups): said, whether or not the caller asked.
// CHECK-LABEL: func.func @asks_cannot
// CHECK-SAME:  tile.not_warp_specialized = "the kernel's warps are not whole warpgroups"
// expected-warning @+3 {{kernel 'asks_cannot' is not warp-specialized: the kernel's warps are not whole warpgroups}}
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @asks_cannot(%src: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 2 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring1 = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full1 = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full1 {count = 1 : i32} : <2>
  %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %t = arith.addi %it, %c1 : i32
    %sn = arith.remui %t, %c2 : i32
    %bn = tile.smem_slot %ring1[%sn] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%j, %c0], %bn, %full1[%sn] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <2>
    scf.yield %t : i32
  } {tile.pipelined, tile.schedule = #tile.schedule<warp_specialize = true>}
  return
}
