// RUN: tile-opt %s -split-input-file --tile-hoist-refills | FileCheck %s

// tile-hoist-refills moves the refill of a tile loop's ring of one slot
// (here the consumers' release of it) up to right after the last op that
// touches the slot, with the computation of its predicate. The scf.if that
// holds the last read gets it in both regions: in the then region right
// after the loop that reads the slot, ahead of the multiply that reads
// another ring only; in the else region at its top.
// CHECK-LABEL: func.func @release_into_branches
// CHECK:       scf.for {{.*}} {
// CHECK:         %[[Q:.*]] = tile.smem_slot %[[RQ:[^ ]*]][%{{.*}}]
// CHECK:         %[[HELD:.*]] = arith.cmpi uge
// CHECK-NEXT:    scf.if %{{.*}} -> (tensor<128x128xf32, #mma>) {
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        tile.wgmma %[[Q]]
// CHECK:           }
// CHECK-NEXT:      tile.mbarrier_arrive %[[EMPTY:[^ ]*]][%{{.*}}], %[[Q]] if %[[HELD]]
// CHECK-NEXT:      tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} : !tile.smem<[128, 64]{{.*}}, <[64, 128]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tile.mbarrier_arrive %[[EMPTY]][%{{.*}}], %[[Q]] if %[[HELD]]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    tile.store
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    scf.yield
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @release_into_branches(%C: !tile.global<f32, 2>, %n: i32, %k: i32, %run: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 64], f16, #ring>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %p = tile.smem_alloc : !tile.smem<[128, 64], f16, #slot>
  %empty = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %empty {count = 128 : i32} : <1>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%f = %c0) -> (i32) : i32 {
    %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %acc = scf.if %run -> (tensor<128x128xf32, #mma>) {
      %s = scf.for %j = %c0 to %k step %c1 iter_args(%a = %z) -> (tensor<128x128xf32, #mma>) : i32 {
        %d = tile.wgmma %q, %b, %a : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
        scf.yield %d : tensor<128x128xf32, #mma>
      }
      %e = tile.wgmma %p, %b, %s : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
      scf.yield %e : tensor<128x128xf32, #mma>
    } else {
      scf.yield %z : tensor<128x128xf32, #mma>
    }
    %o = arith.addf %acc, %acc : tensor<128x128xf32, #mma>
    %fill = arith.addi %f, %c1 : i32
    %held = arith.cmpi uge, %fill, %c1 : i32
    tile.mbarrier_arrive %empty[%c0], %q if %held : <1>, <[128, 64], f16, #slot>
    tile.store %C[%t, %c0], %o : <f32, 2>, tensor<128x128xf32, #mma>
    %f1 = arith.addi %f, %c1 : i32
    scf.yield %f1 : i32
  } {tile.tile_loop}
  return
}

// -----

// A TMA copy refilling the slot (no warp specialization) moves up past what
// does not touch the slot, its barriers or global memory: here it stops
// after the store, which it may not overtake (the copy reads global
// memory). Its index computation moves with it. The refill of a ring of
// two slots stays where it is (it fills the slot the previous tile read).
// CHECK-LABEL: func.func @copy_after_store
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK-NEXT:    tile.wgmma
// CHECK-NEXT:    tile.store
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.cmpi
// CHECK-NEXT:    tile.tma_load {{.*}} : <[128, 64], f16, swizzle = 128>, <[128, 64], f16, #{{.*}}>, <1>
// CHECK-NEXT:    arith.negf
// CHECK-NEXT:    tile.tma_load {{.*}}, <2>
// CHECK-NEXT:  } {tile.tile_loop}
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @copy_after_store(%C: !tile.global<f32, 2>, %Q: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %n: i32,
                            %mq: !tile.tensor_map<[128, 64], f16, swizzle = 128>,
                            %mb: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 1 : i32, box = array<i64: 128, 64>, swizzle = 128 : i32},
                                    {param = 2 : i32, box = array<i64: 64, 64>, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 64], f16, #ring>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %fb = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %fb {count = 1 : i32} : <2>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
    %b = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    tile.mbarrier_wait %full[%c0], %c0, %q : <1>, !tile.smem<[128, 64], f16, #slot>
    %d = tile.wgmma %q, %b, %z : !tile.smem<[128, 64], f16, #slot>, !tile.smem<[64, 128], f16, #slot>, tensor<128x128xf32, #mma>
    tile.store %C[%t, %c0], %d : <f32, 2>, tensor<128x128xf32, #mma>
    %e = arith.negf %d : tensor<128x128xf32, #mma>
    %next = arith.addi %t, %c1 : i32
    %more = arith.cmpi slt, %next, %n : i32
    tile.tma_load %mq[%next, %c0], %q, %full[%c0] if %more : !tile.tensor_map<[128, 64], f16, swizzle = 128>, !tile.smem<[128, 64], f16, #slot>, !tile.mbarrier<1>
    tile.tma_load %mb[%c0, %next], %b, %fb[%c0] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<2>
  } {tile.tile_loop}
  return
}

// -----

// A release whose operands come from the scf.if stays after it; one
// outside a tile loop stays where it is.
// CHECK-LABEL: func.func @needs_branch_result
// CHECK:       scf.for
// CHECK:         %[[R:.*]] = scf.if
// CHECK:         } else {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.mbarrier_arrive %{{.*}}, %{{.*}} if %[[R]]
// CHECK-NEXT:    arith.addi
// CHECK:       } {tile.tile_loop}
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  tile.mbarrier_arrive
// CHECK-NEXT:  return
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @needs_branch_result(%n: i32, %run: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rq = tile.smem_alloc : !tile.smem<[1, 128, 64], f16, #ring>
  %empty = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %empty {count = 128 : i32} : <1>
  %q = tile.smem_slot %rq[%c0] : !tile.smem<[1, 128, 64], f16, #ring> -> !tile.smem<[128, 64], f16, #slot>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %r = scf.if %run -> (i1) {
      %l = tile.local_load %q [0, 0] : !tile.smem<[128, 64], f16, #slot> -> tensor<128x64xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
      scf.yield %run : i1
    } else {
      scf.yield %run : i1
    }
    tile.mbarrier_arrive %empty[%c0], %q if %r : <1>, <[128, 64], f16, #slot>
    %x = arith.addi %t, %c1 : i32
  } {tile.tile_loop}
  %y = arith.addi %n, %c1 : i32
  tile.mbarrier_arrive %empty[%c0], %q : <1>, <[128, 64], f16, #slot>
  return
}
