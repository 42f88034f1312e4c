// RUN: tile-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// A kernel launched in clusters (tile.cluster = 2): .reqnctapercluster
// (nvvm.cluster_dim); the cluster's index, count and the block's rank read
// %clusterid.x, %nclusterid.x and %cluster_ctarank; a cluster barrier is
// barrier.cluster.arrive.release + wait.acquire.
// CHECK-LABEL: llvm.func @cluster
// CHECK-SAME:  nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK:       %[[ID:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK-NEXT:  %[[N:.*]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK-NEXT:  %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:       llvm.inline_asm has_side_effects "barrier.cluster.arrive.release;\0Abarrier.cluster.wait.acquire;", "~{memory}"
// A multicast copy: the issuer expects the whole copy's bytes on its own
// barrier; block r issues the boxes k with k mod 2 = r, each to both
// blocks (mask 3) at the same offsets.
// CHECK:       llvm.inline_asm has_side_effects "{{.*}}@p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], 16384;\0A mov.u32 rank, %cluster_ctarank;\0A mov.b16 mask, 3;\0A setp.eq.and.u32 q, rank, 0, p;\0A @q cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$3], [$2, {$4, $5}], [$1], mask;\0A add.s32 x4, $4, 64;\0A setp.eq.and.u32 q, rank, 1, p;\0A @q cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$3+8192], [$2, {x4, $5}], [$1], mask;\0A}"
// A release in every block: lane r of each warp arrives on block r's
// barrier once the warp is there.
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 lane, remote;\0A mov.u32 lane, %laneid;\0A setp.lt.u32 p, lane, 2;\0A setp.ne.and.b32 p, $1, 0, p;\0A bar.warp.sync -1;\0A mapa.shared::cluster.u32 remote, $0, lane;\0A @p mbarrier.arrive.shared::cluster.b64 _, [remote];\0A}", "r,r,~{memory}"
// A cluster's claim: every issuer expects 4 bytes on its full barrier;
// block 0's claims and writes the tile into both blocks' slots with
// st.async, completing on each block's full barrier.
// CHECK:       llvm.inline_asm has_side_effects "{{.*}}@p mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$4], 4;\0A mov.u32 rank, %cluster_ctarank;\0A setp.eq.and.u32 q, rank, 0, p;\0A @q atom.relaxed.gpu.add.u32 v, [$1], 1;\0A @q add.u32 v, v, $2;\0A @q mapa.shared::cluster.u32 dst, $3, 0;\0A @q mapa.shared::cluster.u32 bar, $4, 0;\0A @q st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [dst], v, [bar];\0A @q mapa.shared::cluster.u32 dst, $3, 1;\0A @q mapa.shared::cluster.u32 bar, $4, 1;\0A @q st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [dst], v, [bar];\0A}", "r,l,r,r,r,~{memory}" %{{.*}}, %{{.*}}, %[[RANK]],
// CHECK:       llvm.inline_asm has_side_effects "barrier.cluster.arrive.release;\0Abarrier.cluster.wait.acquire;", "~{memory}"
// CHECK-NEXT:  llvm.return
#ring_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @cluster(%A: !tile.global<f16, 2>, %c: i64, %p: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %id = tile.cluster_id
  %n = tile.num_clusters
  %rank = tile.cluster_rank
  %ring = tile.smem_alloc : !tile.smem<[4], i32, #ring_s>
  %full = tile.mbarrier_alloc : !tile.mbarrier<4>
  tile.mbarrier_init %full {count = 32 : i32} : !tile.mbarrier<4>
  %buf = tile.smem_alloc : !tile.smem<[64, 128], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<1>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %empty {count = 8 : i32} : !tile.mbarrier<1>
  tile.barrier {cluster}
  %c0 = arith.constant 0 : i32
  tile.tma_load %map[%id, %n], %buf, %bars[%c0] {multicast} : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %buf : !tile.mbarrier<1>, !tile.smem<[64, 128], f16, #sw>
  tile.mbarrier_arrive %empty[%c0], %buf {cluster} : !tile.mbarrier<1>, !tile.smem<[64, 128], f16, #sw>
  tile.tile_claim %c + %rank -> %ring[%p], %full {issuer = 0 : i32} : !tile.smem<[4], i32, #ring_s>, !tile.mbarrier<4>
  tile.barrier {cluster}
  return
}

// An exchange (tile-exchange-in-cluster's): the start's arrive and wait are
// the halves of a cluster barrier. A (4, 1) tile whose 32 lanes of a warp
// all hold a row: lane q writes the row into block q's buffer (lanes 0 and
// 1 of the cluster of 2: the replicas share the remote stores, one each),
// at this block's place (rank * 1 along axis 1), by mapa and
// st.shared::cluster; read back after the cluster barrier.
// CHECK-LABEL: llvm.func @exchange
// CHECK:       llvm.inline_asm has_side_effects "barrier.cluster.arrive.release;", "~{memory}"
// CHECK:       llvm.inline_asm has_side_effects "barrier.cluster.wait.acquire;", "~{memory}"
// CHECK:       %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK:       %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK:       %[[REPLICA:.*]] = llvm.and %[[LANE]], %{{.*}} : i32
// CHECK:       %[[IN:.*]] = llvm.icmp "ult" %[[REPLICA]], %{{.*}} : i32
// CHECK:       %[[PRED:.*]] = llvm.zext %[[IN]] : i1 to i32
// CHECK:       %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:       llvm.add %{{.*}}, %[[RANK]] : i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 a;\0A setp.ne.b32 p, $0, 0;\0A mapa.shared::cluster.u32 a, $1, $2;\0A @p st.shared::cluster.b32 [a], $3;\0A}", "r,r,r,r" %[[PRED]], %{{.*}}, %[[REPLICA]], %{{.*}} :
// CHECK-NOT:   st.shared::cluster
// CHECK:       llvm.inline_asm has_side_effects "barrier.cluster.arrive.release;\0Abarrier.cluster.wait.acquire;", "~{memory}"
// CHECK:       llvm.load
#row_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
#rows = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @exchange(%out: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cluster = 2 : i32} {
  %buf = tile.smem_alloc : !tile.smem<[4, 2], f32, #row_s>
  tile.barrier {cluster, arrive}
  %t = arith.constant dense<1.0> : tensor<4x1xf32, #rows>
  tile.barrier {cluster, wait}
  tile.cluster_store %t, %buf {axis = 1 : i32} : tensor<4x1xf32, #rows>, !tile.smem<[4, 2], f32, #row_s>
  tile.barrier {cluster}
  %g = tile.local_load %buf [0, 0] : !tile.smem<[4, 2], f32, #row_s> -> tensor<4x2xf32, #rows>
  %c0 = arith.constant 0 : i32
  tile.store %out[%c0, %c0], %g : !tile.global<f32, 2>, tensor<4x2xf32, #rows>
  return
}
