// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trip of every op of the tile dialect and of !tile.global,
// !tile.mbarrier and !tile.tensor_map, through the custom assembly format and
// through the generic form. Note that inside an op's custom format a
// !tile.global operand type prints in its stripped form, `<f16, 4>`; the
// full form `!tile.global<f16, 4>` is accepted on input.

//===----------------------------------------------------------------------===//
// !tile.global
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @global_types
// CHECK-SAME: (!tile.global<f16, 1>, !tile.global<bf16, 8>, !tile.global<f32, 2>, !tile.global<i32, 3>, !tile.global<i1, 4>)
func.func private @global_types(!tile.global<f16, 1>, !tile.global<bf16, 8>,
                                !tile.global<f32, 2>, !tile.global<i32, 3>,
                                !tile.global<i1, 4>)

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @grid
func.func @grid() -> (i32, i32, i32, i32, i32, i32) {
  // CHECK-NEXT: %[[B0:[[:alnum:]_]+]] = tile.bid 0
  // CHECK-NEXT: %[[B1:[[:alnum:]_]+]] = tile.bid 1
  // CHECK-NEXT: %[[B2:[[:alnum:]_]+]] = tile.bid 2
  // CHECK-NEXT: %[[N0:[[:alnum:]_]+]] = tile.num_blocks 0
  // CHECK-NEXT: %[[N1:[[:alnum:]_]+]] = tile.num_blocks 1
  // CHECK-NEXT: %[[N2:[[:alnum:]_]+]] = tile.num_blocks 2
  // CHECK-NEXT: return %[[B0]], %[[B1]], %[[B2]], %[[N0]], %[[N1]], %[[N2]] : i32, i32, i32, i32, i32, i32
  %b0 = tile.bid 0
  %b1 = tile.bid 1
  %b2 = tile.bid 2
  %n0 = tile.num_blocks 0
  %n1 = tile.num_blocks 1
  %n2 = tile.num_blocks 2
  return %b0, %b1, %b2, %n0, %n1, %n2 : i32, i32, i32, i32, i32, i32
}

//===----------------------------------------------------------------------===//
// Tile construction and reshaping
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @arange
func.func @arange() -> (tensor<1xi32>, tensor<128xi32>) {
  // CHECK-NEXT: %[[A:[[:alnum:]_]+]] = tile.arange : tensor<1xi32>
  // CHECK-NEXT: %[[B:[[:alnum:]_]+]] = tile.arange : tensor<128xi32>
  // CHECK-NEXT: return %[[A]], %[[B]]
  %a = tile.arange : tensor<1xi32>
  %b = tile.arange : tensor<128xi32>
  return %a, %b : tensor<1xi32>, tensor<128xi32>
}

// CHECK-LABEL: func.func @full
// CHECK-SAME: (%[[H:[[:alnum:]_]+]]: f16, %[[BF:[[:alnum:]_]+]]: bf16, %[[F:[[:alnum:]_]+]]: f32, %[[I:[[:alnum:]_]+]]: i32, %[[P:[[:alnum:]_]+]]: i1)
func.func @full(%h: f16, %bf: bf16, %f: f32, %i: i32, %p: i1) {
  // CHECK-NEXT: tile.full %[[H]] : tensor<64x64xf16>
  // CHECK-NEXT: tile.full %[[BF]] : tensor<16xbf16>
  // CHECK-NEXT: tile.full %[[F]] : tensor<1x2x4x8xf32>
  // CHECK-NEXT: tile.full %[[I]] : tensor<32x1xi32>
  // CHECK-NEXT: tile.full %[[P]] : tensor<2x2xi1>
  // CHECK-NEXT: return
  %0 = tile.full %h : tensor<64x64xf16>
  %1 = tile.full %bf : tensor<16xbf16>
  %2 = tile.full %f : tensor<1x2x4x8xf32>
  %3 = tile.full %i : tensor<32x1xi32>
  %4 = tile.full %p : tensor<2x2xi1>
  return
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x1xf32>, %[[B:[[:alnum:]_]+]]: tensor<1x1x8xi1>)
func.func @broadcast(%a: tensor<64x1xf32>, %b: tensor<1x1x8xi1>) {
  // CHECK-NEXT: tile.broadcast %[[A]] : tensor<64x1xf32> -> tensor<64x64xf32>
  // CHECK-NEXT: tile.broadcast %[[B]] : tensor<1x1x8xi1> -> tensor<4x2x8xi1>
  // CHECK-NEXT: tile.broadcast %[[A]] : tensor<64x1xf32> -> tensor<64x1xf32>
  %0 = tile.broadcast %a : tensor<64x1xf32> -> tensor<64x64xf32>
  %1 = tile.broadcast %b : tensor<1x1x8xi1> -> tensor<4x2x8xi1>
  %2 = tile.broadcast %a : tensor<64x1xf32> -> tensor<64x1xf32>
  return
}

// CHECK-LABEL: func.func @expand_dims
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64xi32>)
func.func @expand_dims(%a: tensor<64xi32>) {
  // CHECK-NEXT: tile.expand_dims %[[A]] {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // CHECK-NEXT: tile.expand_dims %[[A]] {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %0 = tile.expand_dims %a {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %1 = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<1x1x64x128xf16>)
func.func @reshape(%a: tensor<1x1x64x128xf16>) {
  // CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.reshape %[[A]] : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
  // CHECK-NEXT: tile.reshape %[[R]] : tensor<64x128xf16> -> tensor<8192xf16>
  %0 = tile.reshape %a : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
  %1 = tile.reshape %0 : tensor<64x128xf16> -> tensor<8192xf16>
  return
}

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x128xf16>, %[[B:[[:alnum:]_]+]]: tensor<2x4x8xf32>)
func.func @permute(%a: tensor<64x128xf16>, %b: tensor<2x4x8xf32>) {
  // CHECK-NEXT: tile.permute %[[A]] [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  // CHECK-NEXT: tile.permute %[[B]] [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  // CHECK-NEXT: tile.permute %[[B]] [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %0 = tile.permute %a [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  %1 = tile.permute %b [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %2 = tile.permute %b [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Global tensors
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dim
// CHECK-SAME: (%[[K:[[:alnum:]_]+]]: !tile.global<f16, 4>)
func.func @dim(%K: !tile.global<f16, 4>) -> (i32, i32) {
  // CHECK-NEXT: %[[D0:[[:alnum:]_]+]] = tile.dim %[[K]], 0 : <f16, 4>
  // CHECK-NEXT: %[[D3:[[:alnum:]_]+]] = tile.dim %[[K]], 3 : <f16, 4>
  // CHECK-NEXT: return %[[D0]], %[[D3]] : i32, i32
  %0 = tile.dim %K, 0 : !tile.global<f16, 4>
  %1 = tile.dim %K, 3 : !tile.global<f16, 4>
  return %0, %1 : i32, i32
}

// CHECK-LABEL: func.func @subview
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[A:[[:alnum:]_]+]]: i32, %[[B:[[:alnum:]_]+]]: i32)
func.func @subview(%X: !tile.global<f16, 2>, %a: i32, %b: i32) -> !tile.global<f16, 2> {
  // CHECK-NEXT: %[[V:[[:alnum:]_]+]] = tile.subview %[[X]][%[[A]], %[[B]]] : <f16, 2>
  // CHECK-NEXT: %[[W:[[:alnum:]_]+]] = tile.subview %[[V]][%[[A]], %[[A]]] ends[%[[B]], %[[B]]] {end_dims = array<i32: 0, 1>} : <f16, 2>
  // CHECK-NEXT: return %[[W]]
  %0 = tile.subview %X[%a, %b] : !tile.global<f16, 2>
  %1 = tile.subview %0[%a, %a] ends[%b, %b] {end_dims = array<i32: 0, 1>} : !tile.global<f16, 2>
  return %1 : !tile.global<f16, 2>
}

// CHECK-LABEL: func.func @load
// CHECK-SAME: (%[[K:[[:alnum:]_]+]]: !tile.global<f16, 4>, %[[X:[[:alnum:]_]+]]: !tile.global<i32, 1>, %[[I:[[:alnum:]_]+]]: i32, %[[J:[[:alnum:]_]+]]: i32)
func.func @load(%K: !tile.global<f16, 4>, %X: !tile.global<i32, 1>, %i: i32, %j: i32) {
  // CHECK-NEXT: tile.load %[[K]][%[[I]], %[[J]], %[[I]], %[[J]]] : <f16, 4> -> tensor<1x1x64x128xf16>
  %0 = tile.load %K[%i, %j, %i, %j] : !tile.global<f16, 4> -> tensor<1x1x64x128xf16>
  // CHECK-NEXT: tile.load %[[K]][%[[I]], %[[J]], %[[I]], %[[J]]] {order = array<i32: 0, 1, 3, 2>} : <f16, 4> -> tensor<1x1x128x64xf16>
  %1 = tile.load %K[%i, %j, %i, %j] {order = array<i32: 0, 1, 3, 2>} : !tile.global<f16, 4> -> tensor<1x1x128x64xf16>
  // CHECK-NEXT: tile.load %[[K]][%[[I]], %[[J]], %[[I]], %[[J]]] {latency = 3 : i32} : <f16, 4> -> tensor<1x1x64x128xf16>
  %2 = tile.load %K[%i, %j, %i, %j] {latency = 3 : i32} : !tile.global<f16, 4> -> tensor<1x1x64x128xf16>
  // CHECK-NEXT: tile.load %[[K]][%[[I]], %[[J]], %[[I]], %[[J]]] {padding = -1.000000e+00 : f16} : <f16, 4> -> tensor<1x1x64x128xf16>
  %3 = tile.load %K[%i, %j, %i, %j] {padding = -1.0 : f16} : !tile.global<f16, 4> -> tensor<1x1x64x128xf16>
  // CHECK-NEXT: tile.load %[[K]][%[[I]], %[[J]], %[[I]], %[[J]]] {latency = 2 : i32, order = array<i32: 0, 1, 3, 2>, padding = 0xFC00 : f16} : <f16, 4> -> tensor<1x1x128x64xf16>
  %4 = tile.load %K[%i, %j, %i, %j] {order = array<i32: 0, 1, 3, 2>, latency = 2 : i32, padding = 0xFC00 : f16} : !tile.global<f16, 4> -> tensor<1x1x128x64xf16>
  // CHECK-NEXT: tile.load %[[X]][%[[I]]] {padding = 7 : i32} : <i32, 1> -> tensor<256xi32>
  %5 = tile.load %X[%i] {padding = 7 : i32} : !tile.global<i32, 1> -> tensor<256xi32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @gather_scatter
// CHECK-SAME: (%[[E:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[R:[[:alnum:]_]+]]: tensor<64x128xi32>, %[[C:[[:alnum:]_]+]]: tensor<64x128xi32>)
func.func @gather_scatter(%E: !tile.global<f16, 2>, %r: tensor<64x128xi32>, %c: tensor<64x128xi32>) {
  // CHECK-NEXT: %[[G:.*]] = tile.gather %[[E]][%[[R]], %[[C]]] : <f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  %g = tile.gather %E[%r, %c] : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  // CHECK-NEXT: tile.gather %[[E]][%[[R]], %[[C]]] {padding = -1.000000e+00 : f16} : <f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  %h = tile.gather %E[%r, %c] {padding = -1.0 : f16} : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  // CHECK-NEXT: tile.scatter %[[E]][%[[C]], %[[R]]], %[[G]] : <f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf16>
  tile.scatter %E[%c, %r], %g : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf16>
  // CHECK-NEXT: tile.scatter combine(sum) %[[E]][%[[C]], %[[R]]], %[[G]] : <f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf16>
  tile.scatter combine(sum) %E[%c, %r], %g : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf16>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @atomic_rmw
// CHECK-SAME: (%[[O:[[:alnum:]_]+]]: !tile.global<f32, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[V:[[:alnum:]_]+]]: tensor<64x128xf32>)
func.func @atomic_rmw(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x128xf32>) {
  // CHECK-NEXT: tile.atomic_rmw sum %[[O]][%[[I]], %[[I]]], %[[V]] : <f32, 2>, tensor<64x128xf32>
  tile.atomic_rmw sum %O[%i, %i], %v : !tile.global<f32, 2>, tensor<64x128xf32>
  // CHECK-NEXT: tile.atomic_rmw max %[[O]][%[[I]], %[[I]]], %[[V]] {order = array<i32: 1, 0>} : <f32, 2>, tensor<64x128xf32>
  tile.atomic_rmw max %O[%i, %i], %v {order = array<i32: 1, 0>} : !tile.global<f32, 2>, tensor<64x128xf32>
  // CHECK-NEXT: tile.atomic_rmw min
  tile.atomic_rmw min %O[%i, %i], %v : !tile.global<f32, 2>, tensor<64x128xf32>
  // CHECK-NEXT: return
  return
}

// The old values, returned.
// CHECK-LABEL: func.func @atomics_returning
func.func @atomics_returning(%O: !tile.global<f32, 2>, %H: !tile.global<i32, 1>, %i: i32, %v: tensor<64x128xf32>, %e: tensor<128xi32>) -> (tensor<64x128xf32>, tensor<128xi32>) {
  // CHECK-NEXT: %[[OLD:.*]] = tile.atomic_rmw sum %{{.*}}, %{{.*}} : <f32, 2>, tensor<64x128xf32> -> tensor<64x128xf32>
  %old = tile.atomic_rmw sum %O[%i, %i], %v : !tile.global<f32, 2>, tensor<64x128xf32> -> tensor<64x128xf32>
  // CHECK-NEXT: %[[SLOT:.*]] = tile.scatter combine(sum) %{{.*}}, %{{.*}} : <i32, 1>[tensor<128xi32>], tensor<128xi32> -> tensor<128xi32>
  %slot = tile.scatter combine(sum) %H[%e], %e : !tile.global<i32, 1>[tensor<128xi32>], tensor<128xi32> -> tensor<128xi32>
  return %old, %slot : tensor<64x128xf32>, tensor<128xi32>
}

// CHECK-LABEL: func.func @block_atomic
// CHECK-SAME: (%[[C:[[:alnum:]_]+]]: !tile.global<i32, 1>, %[[F:[[:alnum:]_]+]]: !tile.global<f32, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[X:[[:alnum:]_]+]]: f32)
func.func @block_atomic(%C: !tile.global<i32, 1>, %F: !tile.global<f32, 2>, %i: i32, %x: f32) -> (i32, f32) {
  // CHECK-NEXT: %[[T:.*]] = tile.block_atomic sum %[[C]][%[[I]]], %[[I]] : <i32, 1>, i32
  %t = tile.block_atomic sum %C[%i], %i : !tile.global<i32, 1>, i32
  // CHECK-NEXT: tile.block_atomic max %[[C]][%[[I]]], %[[T]] : <i32, 1>, i32
  %m = tile.block_atomic max %C[%i], %t : !tile.global<i32, 1>, i32
  // CHECK-NEXT: tile.block_atomic sum %[[F]][%[[I]], %[[I]]], %[[X]] : <f32, 2>, f32
  %s = tile.block_atomic sum %F[%i, %i], %x : !tile.global<f32, 2>, f32
  return %m, %s : i32, f32
}

// CHECK-LABEL: func.func @block_exchange
// CHECK-SAME: (%[[C:[[:alnum:]_]+]]: !tile.global<i32, 1>, %[[F:[[:alnum:]_]+]]: !tile.global<f32, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[X:[[:alnum:]_]+]]: f32)
func.func @block_exchange(%C: !tile.global<i32, 1>, %F: !tile.global<f32, 2>, %i: i32, %x: f32) -> (i32, f32) {
  // CHECK-NEXT: %[[T:.*]] = tile.block_exchange %[[C]][%[[I]]], %[[I]] compare %[[I]] : i32 : <i32, 1>, i32
  %t = tile.block_exchange %C[%i], %i compare %i : i32 : !tile.global<i32, 1>, i32
  // CHECK-NEXT: tile.block_exchange %[[F]][%[[I]], %[[T]]], %[[X]] : <f32, 2>, f32
  %s = tile.block_exchange %F[%i, %t], %x : !tile.global<f32, 2>, f32
  return %t, %s : i32, f32
}

// CHECK-LABEL: func.func @item
// CHECK-SAME: (%[[T:[[:alnum:]_]+]]: tensor<1x1xi32>)
func.func @item(%t: tensor<1x1xi32>) -> i32 {
  // CHECK-NEXT: %[[S:.*]] = tile.item %[[T]] : tensor<1x1xi32> -> i32
  %s = tile.item %t : tensor<1x1xi32> -> i32
  // CHECK-NEXT: return %[[S]]
  return %s : i32
}

// CHECK-LABEL: func.func @store
// CHECK-SAME: (%[[O:[[:alnum:]_]+]]: !tile.global<f16, 4>, %[[M:[[:alnum:]_]+]]: !tile.global<i1, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[V:[[:alnum:]_]+]]: tensor<1x1x64x128xf16>, %[[P:[[:alnum:]_]+]]: tensor<16x32xi1>, %[[W:[[:alnum:]_]+]]: tensor<64x128xf16>)
func.func @store(%O: !tile.global<f16, 4>, %M: !tile.global<i1, 2>, %i: i32,
                 %v: tensor<1x1x64x128xf16>, %p: tensor<16x32xi1>,
                 %w: tensor<64x128xf16>) {
  // CHECK-NEXT: tile.store %[[O]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[V]] : <f16, 4>, tensor<1x1x64x128xf16>
  tile.store %O[%i, %i, %i, %i], %v : !tile.global<f16, 4>, tensor<1x1x64x128xf16>
  // CHECK-NEXT: tile.store %[[O]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[V]] {order = array<i32: 3, 2, 1, 0>} : <f16, 4>, tensor<1x1x64x128xf16>
  tile.store %O[%i, %i, %i, %i], %v {order = array<i32: 3, 2, 1, 0>} : !tile.global<f16, 4>, tensor<1x1x64x128xf16>
  // CHECK-NEXT: tile.store %[[M]][%[[I]], %[[I]]], %[[P]] : <i1, 2>, tensor<16x32xi1>
  tile.store %M[%i, %i], %p : !tile.global<i1, 2>, tensor<16x32xi1>
  // The tile's shape given, the value holds it without its unit dimensions.
  // CHECK-NEXT: tile.store %[[O]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[W]] {shape = array<i64: 1, 1, 64, 128>} : <f16, 4>, tensor<64x128xf16>
  tile.store %O[%i, %i, %i, %i], %w {shape = array<i64: 1, 1, 64, 128>} : !tile.global<f16, 4>, tensor<64x128xf16>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mma
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x128xf16>, %[[B:[[:alnum:]_]+]]: tensor<128x32xf16>, %[[C:[[:alnum:]_]+]]: tensor<64x32xf32>, %[[BA:[[:alnum:]_]+]]: tensor<16x16xbf16>, %[[BC:[[:alnum:]_]+]]: tensor<16x16xf32>)
func.func @mma(%a: tensor<64x128xf16>, %b: tensor<128x32xf16>, %c: tensor<64x32xf32>,
               %ba: tensor<16x16xbf16>, %bc: tensor<16x16xf32>) -> (tensor<64x32xf32>, tensor<16x16xf32>) {
  // CHECK-NEXT: %[[D:[[:alnum:]_]+]] = tile.mma %[[A]], %[[B]], %[[C]] : tensor<64x128xf16>, tensor<128x32xf16>, tensor<64x32xf32>
  // CHECK-NEXT: %[[E:[[:alnum:]_]+]] = tile.mma %[[BA]], %[[BA]], %[[BC]] : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32>
  // CHECK-NEXT: return %[[D]], %[[E]]
  %d = tile.mma %a, %b, %c : tensor<64x128xf16>, tensor<128x32xf16>, tensor<64x32xf32>
  %e = tile.mma %ba, %ba, %bc : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32>
  return %d, %e : tensor<64x32xf32>, tensor<16x16xf32>
}

// tile.wgmma (Hopper): b in shared memory, a in shared memory (SS) or in
// registers in the dot_operand A layout of the accumulator's (RS); the
// accumulator in a version-3 mma layout. b's type prints stripped (`<...>`),
// the format knowing it is a !tile.smem; a's, a tile or a !tile.smem, in full.
#wg_mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#wg_a = #tile.dot_operand<opIdx = 0, parent = #wg_mma>
#wg_s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#wg_t = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>

// CHECK-LABEL: func.func @wgmma
// CHECK-SAME: (%[[SA:[[:alnum:]_]+]]: !tile.smem<[128, 64], f16, #[[S:shared[0-9]*]]>, %[[SB:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[S]]>, %[[ST:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[T:shared[0-9]*]]>, %[[RA:[[:alnum:]_]+]]: tensor<128x64xf16, #[[A:dot_a[0-9]*]]>, %[[C:[[:alnum:]_]+]]: tensor<128x128xf32, #[[M:mma[0-9]*]]>)
func.func @wgmma(%sa: !tile.smem<[128, 64], f16, #wg_s>, %sb: !tile.smem<[64, 128], f16, #wg_s>,
                 %st: !tile.smem<[64, 128], f16, #wg_t>, %ra: tensor<128x64xf16, #wg_a>,
                 %c: tensor<128x128xf32, #wg_mma>) -> tensor<128x128xf32, #wg_mma> {
  // SS: both operands in shared memory; then B column-major (K fastest,
  // 64-byte swizzle).
  // CHECK-NEXT: %[[D:[[:alnum:]_]+]] = tile.wgmma %[[SA]], %[[SB]], %[[C]] : !tile.smem<[128, 64], f16, #[[S]]>, <[64, 128], f16, #[[S]]>, tensor<128x128xf32, #[[M]]>
  // CHECK-NEXT: %[[E:[[:alnum:]_]+]] = tile.wgmma %[[SA]], %[[ST]], %[[D]] : !tile.smem<[128, 64], f16, #[[S]]>, <[64, 128], f16, #[[T]]>, tensor<128x128xf32, #[[M]]>
  // RS: A from registers.
  // CHECK-NEXT: %[[F:[[:alnum:]_]+]] = tile.wgmma %[[RA]], %[[SB]], %[[E]] : tensor<128x64xf16, #[[A]]>, <[64, 128], f16, #[[S]]>, tensor<128x128xf32, #[[M]]>
  // `transposed`: b's buffer holds B^T (N x K, here the 128 x 64 of a).
  // CHECK-NEXT: %[[G:[[:alnum:]_]+]] = tile.wgmma %[[SA]], %[[SA]] transposed, %[[F]] : !tile.smem<[128, 64], f16, #[[S]]>, <[128, 64], f16, #[[S]]>, tensor<128x128xf32, #[[M]]>
  // CHECK-NEXT: return %[[G]]
  %d = tile.wgmma %sa, %sb, %c : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[64, 128], f16, #wg_s>, tensor<128x128xf32, #wg_mma>
  %e = tile.wgmma %sa, %st, %d : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[64, 128], f16, #wg_t>, tensor<128x128xf32, #wg_mma>
  %f = tile.wgmma %ra, %sb, %e : tensor<128x64xf16, #wg_a>, !tile.smem<[64, 128], f16, #wg_s>, tensor<128x128xf32, #wg_mma>
  %g = tile.wgmma %sa, %sa transposed, %f : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[128, 64], f16, #wg_s>, tensor<128x128xf32, #wg_mma>
  return %g : tensor<128x128xf32, #wg_mma>
}

// tile.smem_permute: a buffer seen with its dimensions permuted, its
// layout's order renamed to match.
// CHECK-LABEL: func.func @smem_permute
// CHECK-NEXT: %[[V:[[:alnum:]_]+]] = tile.smem_permute %{{.*}} [1, 0] : <[128, 64], f16, #{{.*}}> -> <[64, 128], f16, #{{.*}}>
// CHECK-NEXT: return %[[V]]
func.func @smem_permute(%s: !tile.smem<[128, 64], f16, #wg_s>) -> !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>> {
  %v = tile.smem_permute %s [1, 0] : !tile.smem<[128, 64], f16, #wg_s> -> !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>>
  return %v : !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>>
}

// tile.smem_view: a buffer's first bytes as a buffer of another type (a
// 64 x 256 ring slot holding a 128 x 128 part of a store).
// CHECK-LABEL: func.func @smem_view
// CHECK-NEXT: %[[V:[[:alnum:]_]+]] = tile.smem_view %{{.*}} : <[64, 256], f16, #{{.*}}> -> <[128, 128], f16, #{{.*}}>
// CHECK-NEXT: return %[[V]]
func.func @smem_view(%s: !tile.smem<[64, 256], f16, #wg_s>) -> !tile.smem<[128, 128], f16, #wg_s> {
  %v = tile.smem_view %s : !tile.smem<[64, 256], f16, #wg_s> -> !tile.smem<[128, 128], f16, #wg_s>
  return %v : !tile.smem<[128, 128], f16, #wg_s>
}

// Async multiplies (tile-async-wgmma) and the waits that complete them:
// with the accumulators they make available and the buffers they read, or
// neither.
// CHECK-LABEL: func.func @wgmma_async
// CHECK-SAME: (%[[SA:[[:alnum:]_]+]]: !tile.smem<[128, 64], f16, #[[S:shared[0-9]*]]>, %[[SB:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[S]]>, %[[C:[[:alnum:]_]+]]: tensor<128x128xf32, #[[M:mma[0-9]*]]>)
func.func @wgmma_async(%sa: !tile.smem<[128, 64], f16, #wg_s>, %sb: !tile.smem<[64, 128], f16, #wg_s>,
                       %c: tensor<128x128xf32, #wg_mma>) -> (tensor<128x128xf32, #wg_mma>, tensor<128x128xf32, #wg_mma>) {
  // CHECK-NEXT: %[[D:[[:alnum:]_]+]] = tile.wgmma async %[[SA]], %[[SB]], %[[C]] : !tile.smem<[128, 64], f16, #[[S]]>, <[64, 128], f16, #[[S]]>, tensor<128x128xf32, #[[M]]>
  // CHECK-NEXT: %[[E:[[:alnum:]_]+]] = tile.wgmma async %[[SA]], %[[SB]], %[[D]]
  // CHECK-NEXT: tile.wgmma_wait 1{{$}}
  // CHECK-NEXT: tile.wgmma_wait 1 reads %[[SA]] : !tile.smem<[128, 64], f16, #[[S]]>
  // CHECK-NEXT: %[[W:[[:alnum:]_]+]]:2 = tile.wgmma_wait 0, %[[D]], %[[E]] : tensor<128x128xf32, #[[M]]>, tensor<128x128xf32, #[[M]]> reads %[[SA]], %[[SB]] : !tile.smem<[128, 64], f16, #[[S]]>, !tile.smem<[64, 128], f16, #[[S]]>
  // CHECK-NEXT: return %[[W]]#0, %[[W]]#1
  %d = tile.wgmma async %sa, %sb, %c : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[64, 128], f16, #wg_s>, tensor<128x128xf32, #wg_mma>
  %e = tile.wgmma async %sa, %sb, %d : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[64, 128], f16, #wg_s>, tensor<128x128xf32, #wg_mma>
  tile.wgmma_wait 1
  tile.wgmma_wait 1 reads %sa : !tile.smem<[128, 64], f16, #wg_s>
  %w:2 = tile.wgmma_wait 0, %d, %e : tensor<128x128xf32, #wg_mma>, tensor<128x128xf32, #wg_mma> reads %sa, %sb : !tile.smem<[128, 64], f16, #wg_s>, !tile.smem<[64, 128], f16, #wg_s>
  return %w#0, %w#1 : tensor<128x128xf32, #wg_mma>, tensor<128x128xf32, #wg_mma>
}

// bf16 operands.
// CHECK-LABEL: func.func @wgmma_bf16
// CHECK-NEXT: tile.wgmma %{{.*}} : !tile.smem<[64, 32], bf16, #{{.*}}>, <[32, 64], bf16, #{{.*}}>, tensor<64x64xf32, #{{.*}}>
func.func @wgmma_bf16(%a: !tile.smem<[64, 32], bf16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>>,
                      %b: !tile.smem<[32, 64], bf16, #wg_s>,
                      %c: tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>>) -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>> {
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 32], bf16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>>, !tile.smem<[32, 64], bf16, #wg_s>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>>
  return %d : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>>
}

// tile.fence_async_shared: no operands, no results.
// CHECK-LABEL: func.func @fence_async_shared
// CHECK-NEXT: tile.fence_async_shared{{$}}
// CHECK-NEXT: return
func.func @fence_async_shared() {
  tile.fence_async_shared
  return
}

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x32xf32>, %[[I:[[:alnum:]_]+]]: tensor<8x4xi32>, %[[P:[[:alnum:]_]+]]: tensor<16xi1>)
func.func @reduce(%x: tensor<64x32xf32>, %i: tensor<8x4xi32>, %p: tensor<16xi1>) {
  // CHECK-NEXT: tile.reduce max %[[X]] {axis = 1 : i32, keepdims} : tensor<64x32xf32> -> tensor<64x1xf32>
  %0 = tile.reduce max %x {axis = 1 : i32, keepdims} : tensor<64x32xf32> -> tensor<64x1xf32>
  // CHECK-NEXT: tile.reduce max %[[X]] {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  %1 = tile.reduce max %x {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  // CHECK-NEXT: tile.reduce min %[[X]] {axis = 0 : i32, keepdims} : tensor<64x32xf32> -> tensor<1x32xf32>
  %2 = tile.reduce min %x {axis = 0 : i32, keepdims} : tensor<64x32xf32> -> tensor<1x32xf32>
  // CHECK-NEXT: tile.reduce min %[[I]] {axis = 0 : i32} : tensor<8x4xi32> -> tensor<4xi32>
  %3 = tile.reduce min %i {axis = 0 : i32} : tensor<8x4xi32> -> tensor<4xi32>
  // CHECK-NEXT: tile.reduce sum %[[X]] {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  %4 = tile.reduce sum %x {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  // CHECK-NEXT: tile.reduce sum %[[I]] {axis = 1 : i32, keepdims} : tensor<8x4xi32> -> tensor<8x1xi32>
  %5 = tile.reduce sum %i {axis = 1 : i32, keepdims} : tensor<8x4xi32> -> tensor<8x1xi32>
  // CHECK-NEXT: tile.reduce prod %[[X]] {axis = 0 : i32} : tensor<64x32xf32> -> tensor<32xf32>
  %p0 = tile.reduce prod %x {axis = 0 : i32} : tensor<64x32xf32> -> tensor<32xf32>
  // A 1-D tile reduces with keepdims to a 1-element tile; max of i1 is "any".
  // CHECK-NEXT: tile.reduce max %[[P]] {axis = 0 : i32, keepdims} : tensor<16xi1> -> tensor<1xi1>
  %6 = tile.reduce max %p {axis = 0 : i32, keepdims} : tensor<16xi1> -> tensor<1xi1>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @exp2
// CHECK-SAME: (%[[T:[[:alnum:]_]+]]: tensor<64x64xf32>, %[[H:[[:alnum:]_]+]]: tensor<32xf16>, %[[S:[[:alnum:]_]+]]: f32, %[[B:[[:alnum:]_]+]]: bf16)
func.func @exp2(%t: tensor<64x64xf32>, %h: tensor<32xf16>, %s: f32, %b: bf16) {
  // CHECK-NEXT: tile.exp2 %[[T]] : tensor<64x64xf32>
  %0 = tile.exp2 %t : tensor<64x64xf32>
  // CHECK-NEXT: tile.exp2 %[[T]] flush_to_zero : tensor<64x64xf32>
  %1 = tile.exp2 %t flush_to_zero : tensor<64x64xf32>
  // CHECK-NEXT: tile.exp2 %[[H]] : tensor<32xf16>
  %2 = tile.exp2 %h : tensor<32xf16>
  // CHECK-NEXT: tile.exp2 %[[S]] : f32
  %3 = tile.exp2 %s : f32
  // CHECK-NEXT: tile.exp2 %[[S]] flush_to_zero : f32
  %4 = tile.exp2 %s flush_to_zero : f32
  // CHECK-NEXT: tile.exp2 %[[B]] : bf16
  %5 = tile.exp2 %b : bf16
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x128xf32>, %[[B:[[:alnum:]_]+]]: tensor<64x128xf32>, %[[S:[[:alnum:]_]+]]: f32, %[[H:[[:alnum:]_]+]]: f16)
func.func @div(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>, %s: f32, %h: f16) {
  // CHECK-NEXT: tile.div %[[A]], %[[B]] full : tensor<64x128xf32>
  %0 = tile.div %a, %b full : tensor<64x128xf32>
  // CHECK-NEXT: tile.div %[[A]], %[[B]] full flush_to_zero : tensor<64x128xf32>
  %1 = tile.div %a, %b full flush_to_zero : tensor<64x128xf32>
  // CHECK-NEXT: tile.div %[[A]], %[[B]] approx : tensor<64x128xf32>
  %2 = tile.div %a, %b approx : tensor<64x128xf32>
  // CHECK-NEXT: tile.div %[[A]], %[[B]] approx flush_to_zero : tensor<64x128xf32>
  %3 = tile.div %a, %b approx flush_to_zero : tensor<64x128xf32>
  // CHECK-NEXT: tile.div %[[S]], %[[S]] full : f32
  %4 = tile.div %s, %s full : f32
  // CHECK-NEXT: tile.div %[[S]], %[[S]] approx flush_to_zero : f32
  %5 = tile.div %s, %s approx flush_to_zero : f32
  // CHECK-NEXT: tile.div %[[H]], %[[H]] approx : f16
  %6 = tile.div %h, %h approx : f16
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// A kernel with the two discardable tile attributes, using upstream arith,
// math and scf ops on tiles together with tile ops.

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: !tile.global<f32, 2>, %[[Y:[[:alnum:]_]+]]: !tile.global<f32, 2>, %[[N:[[:alnum:]_]+]]: i32, %[[SCALE:[[:alnum:]_]+]]: f32)
// CHECK-SAME: attributes {tile.constants = {BLOCK = 64 : i32, CAUSAL = false, DTYPE = "f32"}, tile.kernel}
func.func @kernel(%X: !tile.global<f32, 2>, %Y: !tile.global<f32, 2>, %n: i32, %scale: f32)
    attributes {tile.kernel, tile.constants = {BLOCK = 64 : i32, CAUSAL = false, DTYPE = "f32"}} {
  // CHECK-NEXT: %[[PID:[[:alnum:]_]+]] = tile.bid 0
  // CHECK-NEXT: %[[C0:[[:alnum:]_]+]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[T:[[:alnum:]_]+]] = tile.load %[[X]][%[[PID]], %[[C0]]] {padding = 0.000000e+00 : f32} : <f32, 2> -> tensor<64x64xf32>
  // CHECK-NEXT: %[[S:[[:alnum:]_]+]] = tile.full %[[SCALE]] : tensor<64x64xf32>
  // CHECK-NEXT: %[[M:[[:alnum:]_]+]] = arith.mulf %[[T]], %[[S]] : tensor<64x64xf32>
  // CHECK-NEXT: %[[E:[[:alnum:]_]+]] = math.exp %[[M]] : tensor<64x64xf32>
  // CHECK-NEXT: %[[CMP:[[:alnum:]_]+]] = arith.cmpf ogt, %[[E]], %[[S]] : tensor<64x64xf32>
  // CHECK-NEXT: %[[SEL:[[:alnum:]_]+]] = arith.select %[[CMP]], %[[E]], %[[S]] : tensor<64x64xi1>, tensor<64x64xf32>
  // CHECK-NEXT: %[[C1:[[:alnum:]_]+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[R:[[:alnum:]_]+]] = scf.for %[[IV:[[:alnum:]_]+]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:[[:alnum:]_]+]] = %[[SEL]]) -> (tensor<64x64xf32>)  : i32 {
  // CHECK-NEXT:   %[[ADD:[[:alnum:]_]+]] = arith.addf %[[ACC]], %[[S]] : tensor<64x64xf32>
  // CHECK-NEXT:   scf.yield %[[ADD]] : tensor<64x64xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[SUM:[[:alnum:]_]+]] = tile.reduce sum %[[R]] {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
  // CHECK-NEXT: %[[BC:[[:alnum:]_]+]] = tile.broadcast %[[SUM]] : tensor<64x1xf32> -> tensor<64x64xf32>
  // CHECK-NEXT: %[[Q:[[:alnum:]_]+]] = tile.div %[[R]], %[[BC]] approx flush_to_zero : tensor<64x64xf32>
  // CHECK-NEXT: tile.store %[[Y]][%[[PID]], %[[C0]]], %[[Q]] : <f32, 2>, tensor<64x64xf32>
  // CHECK-NEXT: return
  %pid = tile.bid 0
  %c0 = arith.constant 0 : i32
  %t = tile.load %X[%pid, %c0] {padding = 0.0 : f32} : !tile.global<f32, 2> -> tensor<64x64xf32>
  %s = tile.full %scale : tensor<64x64xf32>
  %m = arith.mulf %t, %s : tensor<64x64xf32>
  %e = math.exp %m : tensor<64x64xf32>
  %cmp = arith.cmpf ogt, %e, %s : tensor<64x64xf32>
  %sel = arith.select %cmp, %e, %s : tensor<64x64xi1>, tensor<64x64xf32>
  %c1 = arith.constant 1 : i32
  %r = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %sel) -> (tensor<64x64xf32>) : i32 {
    %add = arith.addf %acc, %s : tensor<64x64xf32>
    scf.yield %add : tensor<64x64xf32>
  }
  %sum = tile.reduce sum %r {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
  %bc = tile.broadcast %sum : tensor<64x1xf32> -> tensor<64x64xf32>
  %q = tile.div %r, %bc approx flush_to_zero : tensor<64x64xf32>
  tile.store %Y[%pid, %c0], %q : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// A kernel declaration: the signature is checked, there is no body to check.

// CHECK-LABEL: func.func private @kernel_decl
// CHECK-SAME: (!tile.global<bf16, 3>, i1, i32, i64, f16, bf16, f32, f64)
// CHECK-SAME: attributes {tile.kernel}
func.func private @kernel_decl(!tile.global<bf16, 3>, i1, i32, i64, f16, bf16, f32, f64)
    attributes {tile.kernel}

//===----------------------------------------------------------------------===//
// TMA and mbarriers (sm_90a)
//===----------------------------------------------------------------------===//

// !tile.mbarrier<N> (a ring of N = 1 to 16 barriers) and
// !tile.tensor_map<[box], elt, swizzle = S>, at the limits their verifiers
// accept: 1 and 16 barriers; boxes of 2 to 5 dimensions, every element type
// a map describes and every swizzle span (0, 32, 64, 128 bytes). Outside an
// op's format both print in full.
// CHECK-LABEL: func.func private @tma_types
// CHECK-SAME: (!tile.mbarrier<1>, !tile.mbarrier<16>, !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.tensor_map<[1, 1, 64, 64], bf16, swizzle = 128>, !tile.tensor_map<[8, 4], f32, swizzle = 0>, !tile.tensor_map<[1, 2, 2, 256, 8], i32, swizzle = 32>)
func.func private @tma_types(!tile.mbarrier<1>, !tile.mbarrier<16>,
                             !tile.tensor_map<[128, 32], f16, swizzle = 64>,
                             !tile.tensor_map<[1, 1, 64, 64], bf16, swizzle = 128>,
                             !tile.tensor_map<[8, 4], f32, swizzle = 0>,
                             !tile.tensor_map<[1, 2, 2, 256, 8], i32, swizzle = 32>)

// tile.mbarrier_alloc / init / wait / inval. The wait names the buffers
// whose copies complete on the barrier: none, one or several (each printed
// in full after the barrier type, which prints stripped).
#tma_s128 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#tma_s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>

// CHECK-LABEL: func.func @mbarriers
// CHECK-SAME: (%[[SLOT:[[:alnum:]_]+]]: i32, %[[PH:[[:alnum:]_]+]]: i32, %[[B1:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[S1:shared[0-9]*]]>, %[[B2:[[:alnum:]_]+]]: !tile.smem<[128, 32], f16, #[[S2:shared[0-9]*]]>)
func.func @mbarriers(%slot: i32, %phase: i32, %b1: !tile.smem<[64, 128], f16, #tma_s128>,
                     %b2: !tile.smem<[128, 32], f16, #tma_s64>) {
  // CHECK-NEXT: %[[BARS:[[:alnum:]_]+]] = tile.mbarrier_alloc : <3>
  // CHECK-NEXT: tile.mbarrier_init %[[BARS]] {count = 1 : i32} : <3>
  // CHECK-NEXT: tile.mbarrier_init %[[BARS]] {count = 128 : i32} : <3>
  // CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PH]] : <3>{{$}}
  // CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PH]], %[[B1]] : <3>, !tile.smem<[64, 128], f16, #[[S1]]>
  // CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[PH]]], %[[SLOT]], %[[B1]], %[[B2]] : <3>, !tile.smem<[64, 128], f16, #[[S1]]>, !tile.smem<[128, 32], f16, #[[S2]]>
  // A predicated wait (a producer's, for a free slot) and a release.
  // CHECK-NEXT: %[[P:[[:alnum:]_]+]] = arith.cmpi
  // CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PH]] if %[[P]] : <3>{{$}}
  // CHECK-NEXT: tile.mbarrier_arrive %[[BARS]][%[[SLOT]]], %[[B1]] if %[[P]] : <3>, <[64, 128], f16, #[[S1]]>
  // CHECK-NEXT: tile.mbarrier_arrive %[[BARS]][%[[SLOT]]], %[[B1]] : <3>, <[64, 128], f16, #[[S1]]>
  // CHECK-NEXT: tile.mbarrier_inval %[[BARS]] : <3>
  // CHECK-NEXT: return
  %bars = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<3>
  tile.mbarrier_init %bars {count = 128 : i32} : !tile.mbarrier<3>
  tile.mbarrier_wait %bars[%slot], %phase : !tile.mbarrier<3>
  tile.mbarrier_wait %bars[%slot], %phase, %b1 : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.mbarrier_wait %bars[%phase], %slot, %b1, %b2 : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #tma_s128>, !tile.smem<[128, 32], f16, #tma_s64>
  %p = arith.cmpi ult, %slot, %phase : i32
  tile.mbarrier_wait %bars[%slot], %phase if %p : !tile.mbarrier<3>
  tile.mbarrier_arrive %bars[%slot], %b1 if %p : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.mbarrier_arrive %bars[%slot], %b1 : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.mbarrier_inval %bars : !tile.mbarrier<3>
  return
}

// tile.tma_load, with and without a predicate: a 4-D map whose box is one
// 64 x 64 block, into a buffer of two such blocks (64 x 128, block = 64);
// a 2-D map whose box is the whole 128 x 32 buffer. The operand types print
// stripped.
// CHECK-LABEL: func.func @tma_load
// CHECK-SAME: (%[[M4:[[:alnum:]_]+]]: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, %[[M2:[[:alnum:]_]+]]: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %[[I:[[:alnum:]_]+]]: i32, %[[J:[[:alnum:]_]+]]: i32, %[[P:[[:alnum:]_]+]]: i1, %[[B1:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[S1:shared[0-9]*]]>, %[[B2:[[:alnum:]_]+]]: !tile.smem<[128, 32], f16, #[[S2:shared[0-9]*]]>, %[[BARS:[[:alnum:]_]+]]: !tile.mbarrier<2>)
func.func @tma_load(%m4: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>,
                    %m2: !tile.tensor_map<[128, 32], f16, swizzle = 64>,
                    %i: i32, %j: i32, %p: i1,
                    %b1: !tile.smem<[64, 128], f16, #tma_s128>,
                    %b2: !tile.smem<[128, 32], f16, #tma_s64>, %bars: !tile.mbarrier<2>) {
  // CHECK-NEXT: tile.tma_load %[[M4]][%[[I]], %[[J]], %[[J]], %[[I]]], %[[B1]], %[[BARS]][%[[I]]] : <[1, 1, 64, 64], f16, swizzle = 128>, <[64, 128], f16, #[[S1]]>, <2>{{$}}
  // CHECK-NEXT: tile.tma_load %[[M4]][%[[I]], %[[J]], %[[J]], %[[I]]], %[[B1]], %[[BARS]][%[[J]]] if %[[P]] : <[1, 1, 64, 64], f16, swizzle = 128>, <[64, 128], f16, #[[S1]]>, <2>
  // CHECK-NEXT: tile.tma_load %[[M2]][%[[J]], %[[I]]], %[[B2]], %[[BARS]][%[[I]]] if %[[P]] : <[128, 32], f16, swizzle = 64>, <[128, 32], f16, #[[S2]]>, <2>
  // CHECK-NEXT: return
  tile.tma_load %m4[%i, %j, %j, %i], %b1, %bars[%i] : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #tma_s128>, !tile.mbarrier<2>
  tile.tma_load %m4[%i, %j, %j, %i], %b1, %bars[%j] if %p : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #tma_s128>, !tile.mbarrier<2>
  tile.tma_load %m2[%j, %i], %b2, %bars[%i] if %p : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #tma_s64>, !tile.mbarrier<2>
  return
}

// tile.local_store, tile.tma_store (one 64 x 64 box per block of the
// buffer; with `reduce`, combined with the tensor) and tile.tma_store_wait, with and without buffers.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: (%[[M:[[:alnum:]_]+]]: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, %[[I:[[:alnum:]_]+]]: i32, %[[T:[[:alnum:]_]+]]: tensor<64x128xf16>, %[[B:[[:alnum:]_]+]]: !tile.smem<[64, 128], f16, #[[S:shared[0-9]*]]>)
func.func @tma_store(%m: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>,
                     %i: i32, %t: tensor<64x128xf16>,
                     %b: !tile.smem<[64, 128], f16, #tma_s128>) {
  // CHECK-NEXT: tile.local_store %[[T]], %[[B]] : tensor<64x128xf16>, <[64, 128], f16, #[[S]]>
  // CHECK-NEXT: tile.tma_store %[[M]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[B]] : <[1, 1, 64, 64], f16, swizzle = 128>, <[64, 128], f16, #[[S]]>
  // CHECK-NEXT: tile.tma_store %[[M]][%[[I]], %[[I]], %[[I]], %[[I]]], %[[B]] reduce sum : <[1, 1, 64, 64], f16, swizzle = 128>, <[64, 128], f16, #[[S]]>
  // CHECK-NEXT: tile.tma_store_wait %[[B]] : !tile.smem<[64, 128], f16, #[[S]]>
  // CHECK-NEXT: tile.tma_store_wait{{$}}
  // CHECK-NEXT: return
  tile.local_store %t, %b : tensor<64x128xf16>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.tma_store %m[%i, %i, %i, %i], %b : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.tma_store %m[%i, %i, %i, %i], %b reduce sum : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #tma_s128>
  tile.tma_store_wait %b : !tile.smem<[64, 128], f16, #tma_s128>
  tile.tma_store_wait
  return
}

// A kernel taking TMA descriptors: the trailing !tile.tensor_map parameters,
// described by tile.tensor_maps (which tensor parameter, box and swizzle,
// matching the parameter's type), and the reasons some loops stayed on
// cp.async in tile.tma_fallback (an array of strings, here empty too).
// CHECK-LABEL: func.func private @tma_kernel
// CHECK-SAME: (!tile.global<f16, 2>, i32, !tile.global<f16, 4>, !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>)
// CHECK-SAME: attributes {tile.kernel, tile.tensor_maps = [{box = array<i64: 128, 32>, param = 0 : i32, swizzle = 64 : i32}, {box = array<i64: 1, 1, 64, 64>, param = 2 : i32, swizzle = 128 : i32}], tile.tma_fallback = ["line 3: cp.async instead of TMA: a reason"]}
func.func private @tma_kernel(!tile.global<f16, 2>, i32, !tile.global<f16, 4>,
                              !tile.tensor_map<[128, 32], f16, swizzle = 64>,
                              !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>)
    attributes {tile.kernel,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32},
                                    {param = 2 : i32, box = array<i64: 1, 1, 64, 64>, swizzle = 128 : i32}],
                tile.tma_fallback = ["line 3: cp.async instead of TMA: a reason"]}

// CHECK-LABEL: func.func private @tma_no_fallback
// CHECK-SAME: attributes {tile.kernel, tile.tensor_maps = [], tile.tma_fallback = []}
func.func private @tma_no_fallback(!tile.global<f16, 2>)
    attributes {tile.kernel, tile.tensor_maps = [], tile.tma_fallback = []}

// tile.warpgroup_turn, each of its four kinds, in the consumer region of a
// tile.warp_specialize of two consumer warpgroups (where its verifier wants
// it): named barriers 2 and 3, one per warpgroup.
// CHECK-LABEL: func.func @warpgroup_turns
// Two producer regions (warps 0 and 1 of the producer warpgroup) print
// as they parse, before the consumer's.
// CHECK-NEXT: tile.warp_specialize {consumer_warps = 8 : i32} producer {
// CHECK-NEXT: } producer {
// CHECK-NEXT: } consumer {
// CHECK-NEXT:   tile.warpgroup_turn start {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:   tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:   tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:   tile.warpgroup_turn finish {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @warpgroup_turns() {
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } producer {
  } consumer {
    tile.warpgroup_turn start {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn finish {barrier = 2 : i32, groups = 2 : i32}
  }
  return
}

// Groups of consumers (tile-consumer-groups): two groups of one warpgroup,
// tile.consumer_group saying which a thread is in, their turns between the
// two groups.
// CHECK-LABEL: func.func @consumer_groups
// CHECK-NEXT: tile.warp_specialize {consumer_groups = 2 : i32, consumer_warps = 4 : i32} producer {
// CHECK-NEXT: } consumer {
// CHECK-NEXT:   %{{.*}} = tile.consumer_group {threads = 128 : i32}
// CHECK-NEXT:   tile.warpgroup_turn wait {barrier = 4 : i32, groups = 2 : i32}
// CHECK-NEXT: }
func.func @consumer_groups() {
  tile.warp_specialize {consumer_groups = 2 : i32, consumer_warps = 4 : i32} producer {
  } consumer {
    %g = tile.consumer_group {threads = 128 : i32}
    tile.warpgroup_turn wait {barrier = 4 : i32, groups = 2 : i32}
  }
  return
}

// At the limits: four warpgroups on named barriers 12 to 15 (the last one),
// in a branch nested in the consumer region.
// CHECK-LABEL: func.func @warpgroup_turns_last_barriers
// CHECK:      } consumer {
// CHECK-NEXT:   scf.if
// CHECK-NEXT:     tile.warpgroup_turn wait {barrier = 12 : i32, groups = 4 : i32}
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @warpgroup_turns_last_barriers(%c: i1) {
  tile.warp_specialize {consumer_warps = 16 : i32} producer {
  } consumer {
    scf.if %c {
      tile.warpgroup_turn wait {barrier = 12 : i32, groups = 4 : i32}
    }
  }
  return
}

// The tile scheduler's ops (tile-dynamic-schedule): a claim into a ring of
// i32, a read of it, the block's count out.
#ring_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
// CHECK-LABEL: func.func @tile_scheduler
// CHECK-SAME: (%[[C:[[:alnum:]_]+]]: i64, %[[P:[[:alnum:]_]+]]: i32, %[[R:[[:alnum:]_]+]]: !tile.smem<[4], i32, #[[S:shared[0-9]*]]>)
func.func @tile_scheduler(%c: i64, %p: i32, %r: !tile.smem<[4], i32, #ring_s>) -> i32 {
  // CHECK-NEXT: tile.tile_claim %[[C]] + %[[P]] -> %[[R]][%[[P]]] {issuer = 256 : i32} : <[4], i32, #[[S]]>
  // CHECK-NEXT: %[[T:.*]] = tile.tile_read %[[R]][%[[P]]] : <[4], i32, #[[S]]>
  // CHECK-NEXT: tile.tile_counter_done %[[C]] {issuer = 256 : i32}
  // CHECK-NEXT: return %[[T]]
  tile.tile_claim %c + %p -> %r[%p] {issuer = 256 : i32} : !tile.smem<[4], i32, #ring_s>
  %t = tile.tile_read %r[%p] : !tile.smem<[4], i32, #ring_s>
  tile.tile_counter_done %c {issuer = 256 : i32}
  return %t : i32
}

// Gathered boxes: a load whose view dimension 0 is four boxes of 16 rows at
// the tile coordinates %pages holds; the async copy of the same into shared
// memory; the TMA copy of four slabs of one 16 x 32 box each.
// CHECK-LABEL: func.func @gathered
// CHECK-SAME: (%[[K:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[M:[[:alnum:]_]+]]: !tile.tensor_map<[16, 32], f16, swizzle = 64>, %[[P:[[:alnum:]_]+]]: tensor<4xi32>, %[[I:[[:alnum:]_]+]]: i32, %[[B:[[:alnum:]_]+]]: !tile.smem<[64, 32], f16, #[[S:shared[0-9]*]]>, %[[BARS:[[:alnum:]_]+]]: !tile.mbarrier<2>)
func.func @gathered(%K: !tile.global<f16, 2>,
                    %m: !tile.tensor_map<[16, 32], f16, swizzle = 64>,
                    %pages: tensor<4xi32>, %i: i32,
                    %b: !tile.smem<[64, 32], f16, #tma_s64>,
                    %bars: !tile.mbarrier<2>) {
  %c0 = arith.constant 0 : i32
  // CHECK: tile.load %[[K]][%{{.*}}, %[[I]]] boxes(%[[P]] : tensor<4xi32>) {box_dim = 0 : i32} : <f16, 2> -> tensor<64x32xf16>
  %0 = tile.load %K[%c0, %i] boxes(%pages : tensor<4xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x32xf16>
  // CHECK: tile.async_copy %[[K]][%{{.*}}, %[[I]]] boxes(%[[P]] : tensor<4xi32>), %[[B]] {box_dim = 0 : i32, layout = #{{.*}}, shape = array<i64: 64, 32>} : <f16, 2>, <[64, 32], f16, #[[S]]>
  tile.async_copy %K[%c0, %i] boxes(%pages : tensor<4xi32>), %b {box_dim = 0 : i32, layout = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #tma_s64>
  // CHECK: tile.tma_load %[[M]][%{{.*}}, %[[I]]] boxes(%[[P]] : tensor<4xi32>), %[[B]], %[[BARS]][%[[I]]] {box_dim = 0 : i32} : <[16, 32], f16, swizzle = 64>, <[64, 32], f16, #[[S]]>, <2>
  tile.tma_load %m[%c0, %i] boxes(%pages : tensor<4xi32>), %b, %bars[%i] {box_dim = 0 : i32} : !tile.tensor_map<[16, 32], f16, swizzle = 64>, !tile.smem<[64, 32], f16, #tma_s64>, !tile.mbarrier<2>
  return
}

// CHECK-LABEL: func.func @dependent_launch_ops
// CHECK:       tile.launch_dependents
// CHECK-NEXT:  tile.grid_dependency_wait
func.func @dependent_launch_ops() {
  tile.launch_dependents
  tile.grid_dependency_wait
  return
}
