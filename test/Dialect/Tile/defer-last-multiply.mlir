// RUN: tile-opt %s -split-input-file --tile-defer-epilogue="multiply=true epilogue=false" | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-defer-epilogue="multiply=true epilogue=true warn-multiply=true" 2>&1 | FileCheck %s --check-prefix=WARN

// The tile's last multiply (P V of the last key tile, A in registers, B a
// ring slot the trip picks), its completion and the epilogue move to the
// next trip: the multiply right before the next tile's first multiply, on
// the operands that came around the loop (P, the accumulator, the slot's
// index; zeros and slot 0 before the first tile), its completion right
// after that one (`wgmma_wait 1`), the rest under `scf.if %pending`, the
// result selected by whether the scf.if ran its first region (its other
// region's zeros otherwise). The other region of the next tile's scf.if
// runs it first thing (`wgmma_wait 0`); after the loop, the last tile's.
// CHECK-LABEL: func.func @attention_like
// CHECK-SAME:  (%{{.*}}: !tile.global<f16, 2>, %[[N:.*]]: i32, %[[COND:.*]]: i1,
// CHECK:       %[[R:.*]]:6 = scf.for %[[T:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PEND:.*]] = %false, %[[IDX:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[ROW:.*]] = %{{.*}}) -> (i32, i1, i32, tensor<128x128xf16, #dot_a>, tensor<128x128xf32, #mma>, i32)
// CHECK:         %[[Q:.*]] = tile.smem_slot
// CHECK:         %[[I:.*]] = arith.remui %[[T]]
// CHECK:         scf.if %[[COND]] -> (tensor<128x128xf32, #mma>, tensor<128x128xf16, #dot_a>, tensor<128x128xf32, #mma>) {
// CHECK-NEXT:      %[[K:.*]] = tile.smem_slot %{{.*}}[%[[I]]]
// CHECK-NEXT:      %[[V:.*]] = tile.smem_slot %[[RV:.*]][%[[IDX]]]
// CHECK-NEXT:      %[[PV:.*]] = tile.wgmma async %[[P]], %[[V]], %[[ACC]]
// CHECK-NEXT:      %[[S:.*]] = tile.wgmma async %[[Q]], %[[K]], %{{.*}}
// CHECK-NEXT:      %[[O:.*]] = tile.wgmma_wait 1, %[[PV]] {{.*}} reads %[[V]]
// CHECK-NEXT:      scf.if %[[PEND]] {
// CHECK-NEXT:        %[[RAN:.*]] = tile.full %[[COND]] : tensor<128x128xi1, #mma>
// CHECK-NEXT:        %[[SEL:.*]] = arith.select %[[RAN]], %[[O]], %[[Z:.*]] :
// CHECK-NEXT:        tile.div %[[SEL]]
// CHECK-NEXT:        arith.truncf
// CHECK-NEXT:        tile.tma_store_wait
// CHECK-NEXT:        tile.local_store
// CHECK-NEXT:        tile.tma_store %{{.*}}[%[[ROW]], %{{.*}}]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[S1:.*]] = tile.wgmma_wait 0, %[[S]]
// CHECK-NEXT:      %[[P1:.*]] = arith.truncf %[[S1]]
// CHECK-NEXT:      %[[PA:.*]] = tile.convert_layout %[[P1]]
// CHECK:           scf.yield %{{.*}}, %[[PA]], %[[S1]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[V2:.*]] = tile.smem_slot %[[RV]][%[[IDX]]]
// CHECK-NEXT:      %[[PV2:.*]] = tile.wgmma async %[[P]], %[[V2]], %[[ACC]]
// CHECK-NEXT:      %[[O2:.*]] = tile.wgmma_wait 0, %[[PV2]]
// CHECK-NEXT:      scf.if %[[PEND]] {
// CHECK:             tile.tma_store %
// CHECK-NEXT:      }
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK:         scf.yield %{{.*}}, %true, %[[I]], %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT:  } {tile.tile_loop}
// CHECK-NEXT:  scf.if %[[R]]#1 {
// CHECK-NEXT:    %[[V3:.*]] = tile.smem_slot %[[RV]][%[[R]]#2]
// CHECK-NEXT:    %[[PV3:.*]] = tile.wgmma async %[[R]]#3, %[[V3]], %[[R]]#4
// CHECK-NEXT:    %[[O3:.*]] = tile.wgmma_wait 0, %[[PV3]]
// CHECK-NEXT:    %[[RAN3:.*]] = tile.full %[[COND]]
// CHECK-NEXT:    arith.select %[[RAN3]], %[[O3]], %[[Z]]
// CHECK:         tile.tma_store %{{.*}}[%[[R]]#5, %{{.*}}]
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.tma_store_wait
// WARN-NOT:    warning
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @attention_like(%Og: !tile.global<f16, 2>, %n: i32, %run: i1, %lv: f32, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %l = tile.full %lv : tensor<128x128xf32, #mma>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 128], f16, #ring>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %rv = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %row = arith.muli %t, %c128 : i32
    %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
    %i = arith.remui %t, %c2 : i32
    %acc = scf.if %run -> (tensor<128x128xf32, #mma>) {
      %k = tile.smem_slot %rk[%i] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %q, %k : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>
      %p = arith.truncf %s1 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
      %pa = tile.convert_layout %p : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #tile.dot_operand<opIdx = 0, parent = #mma>>
      %v = tile.smem_slot %rv[%i] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %e = tile.wgmma async %pa, %v, %s1 : tensor<128x128xf16, #tile.dot_operand<opIdx = 0, parent = #mma>>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %e1 = tile.wgmma_wait 0, %e : tensor<128x128xf32, #mma> reads %v : !tile.smem<[128, 128], f16, #slot>
      scf.yield %e1 : tensor<128x128xf32, #mma>
    } else {
      scf.yield %z : tensor<128x128xf32, #mma>
    }
    %o = tile.div %acc, %l approx flush_to_zero : tensor<128x128xf32, #mma>
    %h = arith.truncf %o : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
    tile.local_store %h, %stage : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%row, %c0], %stage : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
  return
}

// -----

// One multiply a tile: no first multiply to issue the last behind. Left as
// it is (with epilogue=true, the epilogue alone is deferred).
// CHECK-LABEL: func.func @one_multiply
// CHECK:       scf.for {{.*}} -> (i32)
// CHECK:       } {tile.tile_loop}
// WARN:        warning: defer_last_multiply does not apply to this kernel: its tile issues one multiply: there is no first one to issue the last behind
// WARN-NOT:    warning: defer_epilogue
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @one_multiply(%Og: !tile.global<f16, 2>, %n: i32, %run: i1, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %acc = scf.if %run -> (tensor<128x128xf32, #mma>) {
      %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %s = tile.wgmma async %k, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
      scf.yield %s1 : tensor<128x128xf32, #mma>
    } else {
      scf.yield %z : tensor<128x128xf32, #mma>
    }
    %h = arith.truncf %acc : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
    tile.local_store %h, %stage : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%t, %c0], %stage : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// The last multiply's result used in its own region before the region's
// end: it is not the tile's last work, left as it is.
// CHECK-LABEL: func.func @used_in_region
// CHECK:       scf.for {{.*}} -> (i32)
// WARN:        warning: defer_last_multiply does not apply to this kernel: the tile's last multiply is not completed right after it, at the end of its block
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @used_in_region(%Og: !tile.global<f16, 2>, %n: i32, %run: i1, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %zh = arith.constant dense<0.000000e+00> : tensor<128x128xf16, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %h = scf.if %run -> (tensor<128x128xf16, #mma>) {
      %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %s = tile.wgmma async %k, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
      %e = tile.wgmma async %k, %k, %s1 : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %e1 = tile.wgmma_wait 0, %e : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
      %e2 = arith.truncf %e1 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
      scf.yield %e2 : tensor<128x128xf16, #mma>
    } else {
      scf.yield %zh : tensor<128x128xf16, #mma>
    }
    tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
    tile.local_store %h, %stage : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%t, %c0], %stage : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// The next trip releases a slot of the ring the last multiply reads
// (another slot: the check is by buffer) before its first multiply: the
// multiply would move past it, left as it is.
// CHECK-LABEL: func.func @ring_released_before
// CHECK:       scf.for {{.*}} -> (i32)
// WARN:        warning: defer_last_multiply does not apply to this kernel: an op between the epilogue and the next multiply uses the epilogue's shared memory
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @ring_released_before(%Og: !tile.global<f16, 2>, %n: i32, %run: i1, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %rv = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %empty = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %empty {count = 128 : i32} : <2>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %acc = scf.if %run -> (tensor<128x128xf32, #mma>) {
      %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %v1 = tile.smem_slot %rv[%c1] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      tile.mbarrier_arrive %empty[%c1], %v1 : <2>, <[128, 128], f16, #slot>
      %s = tile.wgmma async %k, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
      %v = tile.smem_slot %rv[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
      %e = tile.wgmma async %k, %v, %s1 : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %e1 = tile.wgmma_wait 0, %e : tensor<128x128xf32, #mma> reads %v : !tile.smem<[128, 128], f16, #slot>
      scf.yield %e1 : tensor<128x128xf32, #mma>
    } else {
      scf.yield %z : tensor<128x128xf32, #mma>
    }
    %h = arith.truncf %acc : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
    tile.local_store %h, %stage : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%t, %c0], %stage : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// The last multiply at the body's top level (no scf.if: every tile runs
// it), its epilogue after it: deferred the same way, with no select.
// CHECK-LABEL: func.func @at_the_top
// CHECK:       %[[R:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PEND:.*]] = %false, %[[ACC:.*]] = %{{.*}}, %[[T0:.*]] = %{{.*}}) -> (i32, i1, tensor<128x128xf32, #mma>, i32)
// CHECK:         tile.smem_slot
// CHECK-NEXT:    %[[V:.*]] = tile.smem_slot
// CHECK-NEXT:    %[[PV:.*]] = tile.wgmma async %[[V]], %[[V]], %[[ACC]]
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    %[[O:.*]] = tile.wgmma_wait 1, %[[PV]]
// CHECK-NEXT:    scf.if %[[PEND]] {
// CHECK-NEXT:      arith.truncf %[[O]]
// CHECK-NOT:       arith.select
// CHECK:           tile.tma_store %{{.*}}[%[[T0]], %{{.*}}]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S1:.*]] = tile.wgmma_wait 0, %[[S]]
// CHECK:       } {tile.tile_loop}
// CHECK-NEXT:  scf.if %[[R]]#1 {
// CHECK-NEXT:    tile.smem_slot
// CHECK-NEXT:    tile.wgmma async %{{.*}}, %{{.*}}, %[[R]]#2
// CHECK-NEXT:    tile.wgmma_wait 0
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @at_the_top(%Og: !tile.global<f16, 2>, %n: i32, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
    %s = tile.wgmma async %k, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
    %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
    %e = tile.wgmma async %k, %k, %s1 : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
    %e1 = tile.wgmma_wait 0, %e : tensor<128x128xf32, #mma> reads %k : !tile.smem<[128, 128], f16, #slot>
    %h = arith.truncf %e1 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    tile.tma_store_wait %stage : !tile.smem<[128, 128], f16, #slot>
    tile.local_store %h, %stage : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%t, %c0], %stage : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}
