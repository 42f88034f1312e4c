// RUN: tile-opt %s -split-input-file --tile-defer-epilogue | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-defer-epilogue=warn=true 2>&1 | FileCheck %s --check-prefix=WARN

// The epilogue of a tile (the store of its output, staged in shared memory
// and copied out through TMA) moves under the next tile's first multiply,
// behind `scf.if %pending`; the division on the last multiply's result
// stays in the trip and its result (with the tile's coordinate) goes around
// the loop, zeros before the first tile. The other region of the scf.if
// that holds the first multiply runs the epilogue first thing; after the
// loop, the last tile's.
// CHECK-LABEL: func.func @attention_like
// CHECK-DAG:   %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:   %[[ZO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf16, #mma>
// CHECK:       %[[R:.*]]:4 = scf.for %[[T:.*]] = {{.*}} iter_args(%[[F:.*]] = %{{.*}}, %[[PEND:.*]] = %[[FALSE]], %[[O:.*]] = %[[ZO]], %[[C:.*]] = %{{.*}}) -> (i32, i1, tensor<128x128xf16, #mma>, i32)
// CHECK:         %[[ROW:.*]] = arith.muli %[[T]]
// CHECK:         %[[ACC:.*]] = scf.if %{{.*}} -> (tensor<128x128xf32, #mma>) {
// CHECK-NEXT:      %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:      scf.if %[[PEND]] {
// CHECK-NEXT:        tile.tma_store_wait %[[STAGE:.*]] :
// CHECK-NEXT:        tile.local_store %[[O]], %[[STAGE]]
// CHECK-NEXT:        tile.tma_store %{{.*}}[%[[C]], %{{.*}}], %[[STAGE]]
// CHECK-NEXT:      }
// CHECK-NEXT:      tile.wgmma_wait 0, %[[S]]
// CHECK:           tile.wgmma_wait 0
// CHECK:         } else {
// CHECK-NEXT:      scf.if %[[PEND]] {
// CHECK-NEXT:        tile.tma_store_wait %[[STAGE]]
// CHECK-NEXT:        tile.local_store %[[O]], %[[STAGE]]
// CHECK-NEXT:        tile.tma_store %{{.*}}[%[[C]], %{{.*}}], %[[STAGE]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Q:.*]] = tile.div %[[ACC]]
// CHECK-NEXT:    %[[H:.*]] = arith.truncf %[[Q]]
// CHECK-NEXT:    %[[F1:.*]] = arith.addi %[[F]]
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    scf.yield %[[F1]], %[[TRUE]], %[[H]], %[[ROW]] : i32, i1, tensor<128x128xf16, #mma>, i32
// CHECK-NEXT:  } {tile.tile_loop}
// CHECK-NEXT:  scf.if %[[R]]#1 {
// CHECK-NEXT:    tile.tma_store_wait %[[STAGE]]
// CHECK-NEXT:    tile.local_store %[[R]]#2, %[[STAGE]]
// CHECK-NEXT:    tile.tma_store %{{.*}}[%[[R]]#3, %{{.*}}], %[[STAGE]]
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.tma_store_wait %[[STAGE]]
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @attention_like(%Og: !tile.global<f16, 2>, %n: i32, %run: i1, %lv: f32, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %l = tile.full %lv : tensor<128x128xf32, #mma>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 64], f16, #ring>
  %rk = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %stage = tile.smem_alloc : !tile.smem<[128, 128], f16, #slot>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %row = arith.muli %t, %c128 : i32
    %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %acc = scf.if %run -> (tensor<128x128xf32, #mma>) {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %q, %k : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>
      %e = tile.wgmma async %q, %k, %s1 : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
      %e1 = tile.wgmma_wait 0, %e : tensor<128x128xf32, #mma> reads %q, %k : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>
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

// The epilogue stages its output in the tile's own ring slot, which the
// next tile waits for (and refills) before its first multiply: it would
// move past a use of its buffer, so the loop stays as it is.
// CHECK-LABEL: func.func @stage_in_ring_slot
// CHECK:       scf.for {{.*}} -> (i32)
// CHECK:         tile.mbarrier_wait
// CHECK:         tile.wgmma async
// CHECK:         tile.local_store
// CHECK-NEXT:    tile.tma_store
// CHECK:       } {tile.tile_loop}
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @stage_in_ring_slot(%Og: !tile.global<f16, 2>, %n: i32, %O: !tile.tensor_map<[128, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 128], f16, #ring>
  %rk = tile.smem_alloc : !tile.smem<[2, 128, 128], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
    %k = tile.smem_slot %rk[%c0] : !tile.smem<[2, 128, 128], f16, #ring> -> !tile.smem<[128, 128], f16, #slot>
    %phase = arith.andi %f, %c1 : i32
    tile.mbarrier_wait %full[%c0], %phase, %q : <1>, !tile.smem<[128, 128], f16, #slot>
    %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>, tensor<128x128xf32, #mma>
    %s1 = tile.wgmma_wait 0, %s : tensor<128x128xf32, #mma> reads %q, %k : !tile.smem<[128, 128], f16, #slot>, !tile.smem<[128, 128], f16, #slot>
    %h = arith.truncf %s1 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    tile.local_store %h, %q : tensor<128x128xf16, #mma>, <[128, 128], f16, #slot>
    tile.tma_store %O[%t, %c0], %q : <[128, 64], f16, swizzle = 128>, <[128, 128], f16, #slot>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// A first multiply inside a loop of the tile (a GEMM's K loop): the
// previous tile's epilogue runs in the loop's first trip, right after the
// multiply (`iv == lb`), and before the loop where it runs no trip
// (`lb >= ub`); not a tile loop: nothing deferred.
// CHECK-LABEL: func.func @first_multiply_in_a_loop
// CHECK-SAME:  (%[[C:.*]]: !tile.global<f32, 2>, %{{.*}}: i32, %[[KT:.*]]: i32)
// CHECK:       %[[R:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PEND:.*]] = %false, %[[PT:.*]] = %{{.*}}, %[[PD:.*]] = %{{.*}}) -> (i32, i1, i32, tensor<128x128xf32, #mma>)
// CHECK:         %[[NONE:.*]] = arith.cmpi sge, %[[C0:.*]], %[[KT]] : i32
// CHECK-NEXT:    %[[SKIP:.*]] = arith.andi %[[PEND]], %[[NONE]] : i1
// CHECK-NEXT:    scf.if %[[SKIP]] {
// CHECK-NEXT:      tile.store %[[C]][%[[PT]], %{{.*}}], %[[PD]]
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[C0]] to %[[KT]]
// CHECK-NEXT:      tile.wgmma async
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[J]], %[[C0]] : i32
// CHECK-NEXT:      %[[NOW:.*]] = arith.andi %[[PEND]], %[[FIRST]] : i1
// CHECK-NEXT:      scf.if %[[NOW]] {
// CHECK-NEXT:        tile.store %[[C]][%[[PT]], %{{.*}}], %[[PD]]
// CHECK-NEXT:      }
// CHECK:         tile.wgmma_wait 0
// CHECK-NOT:     tile.store
// CHECK:       } {tile.tile_loop}
// CHECK-NEXT:  scf.if %[[R]]#1 {
// CHECK-NEXT:    tile.store %[[C]][%[[R]]#2, %{{.*}}], %[[R]]#3
// CHECK:       scf.for {{.*}} -> (i32)
// CHECK:         tile.wgmma async
// CHECK:         tile.wgmma_wait 0
// CHECK-NEXT:    tile.store
// CHECK-NOT:   tile.tile_loop
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @first_multiply_in_a_loop(%C: !tile.global<f32, 2>, %n: i32, %kt: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 128, 64], f16, #ring>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %a = tile.smem_slot %ra[%c0] : !tile.smem<[2, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %acc = scf.for %j = %c0 to %kt step %c1 iter_args(%x = %z) -> (tensor<128x128xf32, #mma>) : i32 {
      %d = tile.wgmma async %a, %b, %x : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %done = tile.wgmma_wait 0, %acc : tensor<128x128xf32, #mma> reads %ra, %rb : !tile.smem<[2, 128, 64], f16, #ring>, !tile.smem<[2, 64, 128], f16, #ring>
    tile.store %C[%t, %c0], %done : <f32, 2>, tensor<128x128xf32, #mma>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  %s = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %a = tile.smem_slot %ra[%c0] : !tile.smem<[2, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %d = tile.wgmma async %a, %b, %z : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
    %done = tile.wgmma_wait 0, %d : tensor<128x128xf32, #mma> reads %a, %b : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>
    tile.store %C[%t, %c0], %done : <f32, 2>, tensor<128x128xf32, #mma>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  }
  return
}

// -----

// A first multiply two loops down (a loop in the K loop): left as it is,
// and with `warn`, said at the tile loop.
// CHECK-LABEL: func.func @first_multiply_two_loops_down
// CHECK:       scf.for {{.*}} -> (i32)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             tile.wgmma async
// CHECK:         tile.wgmma_wait 0
// CHECK-NEXT:    tile.store
// CHECK:       } {tile.tile_loop}
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @first_multiply_two_loops_down(%C: !tile.global<f32, 2>, %n: i32, %kt: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 128, 64], f16, #ring>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  // WARN: defer-epilogue.mlir:[[@LINE+1]]:8: warning: defer_epilogue does not apply to this kernel: the next tile's first multiply is not at the top of its tile or of a loop there
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %a = tile.smem_slot %ra[%c0] : !tile.smem<[2, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %acc = scf.for %j = %c0 to %kt step %c1 iter_args(%x = %z) -> (tensor<128x128xf32, #mma>) : i32 {
      %y = scf.for %h = %c0 to %c2 step %c1 iter_args(%w = %x) -> (tensor<128x128xf32, #mma>) : i32 {
        %d = tile.wgmma async %a, %b, %w : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
        scf.yield %d : tensor<128x128xf32, #mma>
      }
      scf.yield %y : tensor<128x128xf32, #mma>
    }
    %done = tile.wgmma_wait 0, %acc : tensor<128x128xf32, #mma> reads %ra, %rb : !tile.smem<[2, 128, 64], f16, #ring>, !tile.smem<[2, 64, 128], f16, #ring>
    tile.store %C[%t, %c0], %done : <f32, 2>, tensor<128x128xf32, #mma>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// The epilogue stores at the tile loop's own index: the previous tile's
// index goes around the loop (a block argument of the body, which the new
// loop replaces), so each deferred store lands at its own tile.
// CHECK-LABEL: func.func @store_at_the_tile_index
// CHECK:       %[[R:.*]]:4 = scf.for %[[T:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PEND:.*]] = %{{.*}}, %[[PT:.*]] = %{{.*}}, %[[PD:.*]] = %{{.*}}) -> (i32, i1, i32, tensor<128x128xf32, #mma>)
// CHECK:         tile.wgmma async
// CHECK-NEXT:    scf.if %[[PEND]] {
// CHECK-NEXT:      tile.store %{{.*}}[%[[PT]], %{{.*}}], %[[PD]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DONE:.*]] = tile.wgmma_wait 0
// CHECK:         scf.yield %{{.*}}, %{{.*}}, %[[T]], %[[DONE]]
// CHECK:       } {tile.tile_loop}
// CHECK-NEXT:  scf.if %[[R]]#1 {
// CHECK-NEXT:    tile.store %{{.*}}[%[[R]]#2, %{{.*}}], %[[R]]#3
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @store_at_the_tile_index(%C: !tile.global<f32, 2>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 128, 64], f16, #ring>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %a = tile.smem_slot %ra[%c0] : !tile.smem<[2, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %d = tile.wgmma async %a, %b, %z : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
    %done = tile.wgmma_wait 0, %d : tensor<128x128xf32, #mma> reads %a, %b : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>
    tile.store %C[%t, %c0], %done : <f32, 2>, tensor<128x128xf32, #mma>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}
