// RUN: tile-opt %s -split-input-file --tile-persistent=cluster=2 | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-persistent=cluster=2 --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-dynamic-schedule --tile-multicast-copies | FileCheck %s --check-prefix=MC
// RUN: tile-opt %s -split-input-file --tile-persistent=cluster=2 --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-dynamic-schedule --tile-multicast-copies --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=SYNC
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-dynamic-schedule --tile-multicast-copies --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=NOCLUSTER
// RUN: not tile-opt %s -split-input-file --tile-persistent=cluster=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tile-opt %s -split-input-file --tile-persistent=cluster=2 --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-dynamic-schedule --tile-multicast-copies=warn=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN

// tile-persistent in clusters of 2 along x: the loop goes over the
// clusters' tiles (gx / 2 * gy * gz, from tile.cluster_id in steps of
// tile.num_clusters), and block r of a cluster takes x = (u mod gx / 2) * 2
// + r: y and z are the cluster's.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  (%{{[^:]*}}: !tile.global<f16, 2>, %{{[^:]*}}: !tile.global<f16, 2>, %{{[^:]*}}: !tile.global<f32, 2>, %{{[^:]*}}: i32, %[[GX:[^:]*]]: i32, %[[GY:[^:]*]]: i32, %[[GZ:[^:]*]]: i32, %{{[^:]*}}: i64)
// CHECK-SAME:  tile.cluster = 2 : i32
// CHECK:       %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[CX:.*]] = arith.divui %[[GX]], %[[TWO]] : i32
// CHECK-NEXT:  %[[XY:.*]] = arith.muli %[[CX]], %[[GY]] : i32
// CHECK-NEXT:  %[[ALL:.*]] = arith.muli %[[XY]], %[[GZ]] : i32
// CHECK-NEXT:  %[[FIRST:.*]] = tile.cluster_id
// CHECK-NEXT:  %[[STEP:.*]] = tile.num_clusters
// CHECK-NEXT:  scf.for %[[U:.*]] = %[[FIRST]] to %[[ALL]] step %[[STEP]] : i32 {
// CHECK-NEXT:    %[[PAIR:.*]] = arith.remui %[[U]], %[[CX]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.divui %[[U]], %[[CX]] : i32
// CHECK-NEXT:    %[[RANK:.*]] = tile.cluster_rank
// CHECK:         %[[X0:.*]] = arith.muli %[[PAIR]], %{{.*}} : i32
// CHECK-NEXT:    %[[X:.*]] = arith.addi %[[X0]], %[[RANK]] : i32
// CHECK-NEXT:    %[[Y:.*]] = arith.remui %[[R]], %[[GY]] : i32
// CHECK:         tile.async_copy %{{.*}}[%[[X]], %{{.*}}]
// CHECK:         tile.async_copy %{{.*}}[%{{.*}}, %[[Y]]]

// tile-dynamic-schedule claims a cluster's tiles: the claim writes every
// block's ring (with the full barriers), and each reader releases the slot
// in every block: the empty barriers count a cluster's warps (4 consumer
// warps and two producer warps, twice). tile-multicast-copies shares B's
// ring (its coordinates follow from y and the K loop's trip), not A's
// (x): B's copies are multicast, its releases the cluster's, and its empty
// barriers count 4 consumer warps twice.
// MC-LABEL:  func.func @gemm
// MC:        %[[RING:.*]] = tile.smem_alloc : <[4], i32, #shared>
// MC-NEXT:   %[[FULL:.*]] = tile.mbarrier_alloc : <4>
// MC-NEXT:   tile.mbarrier_init %[[FULL]] {count = 32 : i32} : <4>
// MC-NEXT:   %[[EMPTY:.*]] = tile.mbarrier_alloc : <4>
// MC-NEXT:   tile.mbarrier_init %[[EMPTY]] {count = 12 : i32} : <4>
// MC:        %[[AFULL:.*]] = tile.mbarrier_alloc : <2>
// MC-NEXT:   tile.mbarrier_init %[[AFULL]] {count = 1 : i32} : <2>
// MC-NEXT:   %[[AEMPTY:.*]] = tile.mbarrier_alloc : <2>
// MC-NEXT:   tile.mbarrier_init %[[AEMPTY]] {count = 128 : i32} : <2>
// MC:        %[[BFULL:.*]] = tile.mbarrier_alloc : <2>
// MC-NEXT:   tile.mbarrier_init %[[BFULL]] {count = 1 : i32} : <2>
// MC-NEXT:   %[[BEMPTY:.*]] = tile.mbarrier_alloc : <2>
// MC-NEXT:   tile.mbarrier_init %[[BEMPTY]] {count = 8 : i32} : <2>
// MC:        tile.warp_specialize
// MC:          tile.tma_load %{{.*}}, %[[AFULL]][%{{.*}}] if %{{.*}} {issuer = 128 : i32} :
// MC:          tile.mbarrier_arrive %[[EMPTY]][%{{.*}}], %[[RING]] {cluster}
// MC:        } producer {
// MC:          tile.tma_load %{{.*}}, %[[BFULL]][%{{.*}}] if %{{.*}} {issuer = 160 : i32, multicast} :
// MC:          tile.tile_claim %{{.*}} + %{{.*}} -> %[[RING]][%{{.*}}], %[[FULL]] {issuer = 160 : i32}
// MC-NEXT:     tile.mbarrier_arrive %[[FULL]][%{{.*}}], %[[RING]] :
// MC:        } consumer {
// MC:          tile.mbarrier_arrive %[[AEMPTY]][%{{.*}}], %{{.*}} :
// MC:          tile.mbarrier_arrive %[[BEMPTY]][%{{.*}}], %{{.*}} if %{{.*}} {cluster}

// tile-insert-barriers: the cluster meets after the barriers'
// initialization and before the kernel returns, and the invalidations
// follow that last barrier.
// SYNC-LABEL: func.func @gemm
// SYNC:       tile.mbarrier_init
// SYNC-NOT:   tile.warp_specialize
// SYNC:       tile.barrier {cluster}
// SYNC-NEXT:  tile.warp_specialize
// SYNC-NOT:   tile.mbarrier_inval
// SYNC:       tile.barrier {cluster}
// SYNC-NEXT:  tile.mbarrier_inval
// SYNC-NOT:   tile.barrier
// SYNC:       return

// Without clusters, nothing is shared.
// NOCLUSTER-LABEL: func.func @gemm
// NOCLUSTER-NOT:   cluster
// NOCLUSTER-NOT:   multicast
// NOCLUSTER:       return

// BAD: error: clusters of 3 blocks: a persistent kernel's cluster has 2, 4 or 8 (16, a non-portable size, only without persistence)
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %n = tile.bid 1
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  tile.async_copy %A[%m, %c0], %ba {layout = #blocked, shape = array<i64: 128, 64>} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
  tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// A loop whose trip count follows from x (a causal mask's): the blocks of
// a cluster run different trips, so B's ring stays each block's own. With
// `warn` (the user asked for clusters), said at B's load; not for @gemm,
// whose B is shared.
// WARN-NOT:  warning
// WARN:      cluster.mlir:[[# @LINE + 22]]:5: warning: cluster=2 does not apply to this kernel: the blocks of a cluster share none of its loads; not this one, as the tile it loads may differ between the cluster's blocks (its coordinates follow from the block's tile)
// WARN-NOT:  warning
// MC-LABEL:  func.func @trips_from_x
// MC-NOT:    multicast
// MC-NOT:    {cluster}
// MC:        tile.tile_claim
// MC-NOT:    multicast
// MC:        return
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @trips_from_x(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %n = tile.bid 1
  %trips = arith.addi %m, %c1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %trips step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// B's columns from x // 2: a persistent kernel's x in clusters of 2 is the
// cluster's tile * 2 + its rank, so x // 2 (rounded down, by a multiple of
// the cluster's size) is the same in both blocks: B's ring is shared. (A
// kernel's tile pairs, whose blocks share an operand's tile: linear.tile's
// CLUSTER_M.) Not so x // 3, nor a quotient rounded toward zero (divsi).
// WARN-NOT:  warning
// MC-LABEL:  func.func @pair_from_x
// MC:        tile.tma_load {{.*}} {issuer = {{[0-9]+}} : i32, multicast}
// MC:        tile.mbarrier_arrive {{.*}} {cluster}
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @pair_from_x(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %m = tile.bid 0
  %n = arith.floordivsi %m, %c2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// WARN:      cluster.mlir:[[# @LINE + 21]]:5: warning: cluster=2 does not apply to this kernel: the blocks of a cluster share none of its loads; not this one, as the tile it loads may differ between the cluster's blocks (its coordinates follow from the block's tile)
// WARN:      cluster.mlir:[[# @LINE + 22]]:5: note: nor this one, as the tile it loads may differ between the cluster's blocks (its coordinates follow from the block's tile)
// WARN:      note: a cluster's blocks share a load whose coordinates follow from bid(0) // 2 (or a multiple), not from bid(0) itself: blocks that take their tiles in units of 2 neighbouring tiles along the grid's x, with an operand's coordinates from the unit (as kernels/linear.tile's CLUSTER_M)
// MC-LABEL:  func.func @not_pairs
// MC-NOT:    multicast
// MC:        return
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @not_pairs(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %m = tile.bid 0
  %n3 = arith.divui %m, %c3 : i32
  %n2 = arith.divsi %m, %c2 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
    tile.async_copy %A[%n2, %j], %ba {layout = #blocked1, shape = array<i64: 128, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n3], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n3], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}
