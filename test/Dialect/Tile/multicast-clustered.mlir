// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-multicast-copies | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize --tile-multicast-copies=warn=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN

// tile-multicast-copies in a kernel launched in clusters as it is (not
// persistent: `tile.cluster` from --cluster or @hints(cluster=C)). Its
// clusters are C consecutive blocks along x, so bid(0) // 2 is the pair's
// and bid(1) the cluster's: B's ring, whose columns follow from the pair
// and whose trip count from y, is filled by both blocks together.
// WARN-NOT:  warning
// CHECK-LABEL: func.func @pair_along_x
// CHECK:       tile.tma_load {{.*}} {issuer = {{[0-9]+}} : i32, multicast}
// CHECK:       tile.mbarrier_arrive {{.*}} {cluster}
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @pair_along_x(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %m = tile.bid 0
  %y = tile.bid 1
  %k = arith.addi %y, %c2 : i32
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

// B's columns from bid(0) itself: each block of the pair loads its own
// tile; nothing is shared, and with the warning the user is told why.
// WARN:      multicast-clustered.mlir:[[# @LINE + 17]]:5: warning: cluster=2 does not apply to this kernel: the blocks of a cluster share none of its loads; not this one, as the tile it loads may differ between the cluster's blocks (its coordinates follow from the block's tile)
// WARN:      note: a cluster's blocks share a load whose coordinates follow from bid(0) // 2
// CHECK-LABEL: func.func @own_tiles
// CHECK-NOT:   multicast
// CHECK:       return
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @own_tiles(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %m], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %c0], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// A kernel whose blocks meet at cluster_barrier() (a row split over the
// cluster: kernels/softmax_cluster.tile) has its own use for the cluster:
// no warning that its loads are not shared.
// WARN-NOT:    cluster=2 does not apply
// CHECK-LABEL: func.func @meets_at_barrier
// CHECK-NOT:   multicast
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @meets_at_barrier(%X: !tile.global<f32, 2>, %Y: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %r = tile.cluster_rank
  %m = tile.bid 0
  %x = tile.load %X[%m, %r] : <f32, 2> -> tensor<1x512xf32, #blocked>
  tile.barrier {cluster}
  tile.store %Y[%m, %r], %x : <f32, 2>, tensor<1x512xf32, #blocked>
  return
}

// -----

// B's columns from a scalar the kernel loads at coordinates from y (an
// expert's index in a mixture of experts' schedule): a tensor it never
// writes reads the same in every block of the pair, so B's ring is shared,
// and the launch checks that no written tensor overlaps the one read
// (tile.read_ahead_params).
// WARN-NOT:    cluster=2 does not apply
// CHECK-LABEL: func.func @column_from_memory
// CHECK-SAME:  tile.read_ahead_params = array<i32: 3>
// CHECK:       tile.tma_load {{.*}} {issuer = {{[0-9]+}} : i32, multicast}
// CHECK:       tile.mbarrier_arrive {{.*}} {cluster}
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#one = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @column_from_memory(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %S: !tile.global<i32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %y = tile.bid 1
  %e = tile.load %S[%c0, %y] : <i32, 2> -> tensor<1x1xi32, #one>
  %n = tile.item %e : tensor<1x1xi32, #one> -> i32
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

// The same with the scalar's tensor written by the kernel too: another
// block's store may change it between the pair's reads, so each block
// loads its own tile.
// WARN:        multicast-clustered.mlir:[[# @LINE + 20]]:5: warning: cluster=2 does not apply to this kernel: the blocks of a cluster share none of its loads; not this one, as the tile it loads may differ between the cluster's blocks (its coordinates follow from the block's tile)
// CHECK-LABEL: func.func @column_from_written_memory
// CHECK-NOT:   multicast
// CHECK:       return
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#one = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @column_from_written_memory(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %S: !tile.global<i32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %y = tile.bid 1
  %e = tile.load %S[%c0, %y] : <i32, 2> -> tensor<1x1xi32, #one>
  %n = tile.item %e : tensor<1x1xi32, #one> -> i32
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
  tile.store %S[%c1, %y], %e : <i32, 2>, tensor<1x1xi32, #one>
  return
}
