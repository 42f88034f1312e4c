// RUN: tile-opt %s -canonicalize | FileCheck %s

// The folders of the tile dialect. Constants the folders produce are
// materialized as arith.constant (TileDialect::materializeConstant).

//===----------------------------------------------------------------------===//
// tile.full
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @full_of_constant
// CHECK-DAG: %[[F:[[:alnum:]_]+]] = arith.constant dense<1.500000e+00> : tensor<64x32xf32>
// CHECK-DAG: %[[H:[[:alnum:]_]+]] = arith.constant dense<-2.000000e+00> : tensor<16xf16>
// CHECK-DAG: %[[I:[[:alnum:]_]+]] = arith.constant dense<7> : tensor<8x1xi32>
// CHECK-DAG: %[[P:[[:alnum:]_]+]] = arith.constant dense<true> : tensor<4x4xi1>
// CHECK-NOT: tile.full
// CHECK: return %[[F]], %[[H]], %[[I]], %[[P]]
func.func @full_of_constant() -> (tensor<64x32xf32>, tensor<16xf16>, tensor<8x1xi32>, tensor<4x4xi1>) {
  %f = arith.constant 1.5 : f32
  %h = arith.constant -2.0 : f16
  %i = arith.constant 7 : i32
  %p = arith.constant true
  %0 = tile.full %f : tensor<64x32xf32>
  %1 = tile.full %h : tensor<16xf16>
  %2 = tile.full %i : tensor<8x1xi32>
  %3 = tile.full %p : tensor<4x4xi1>
  return %0, %1, %2, %3 : tensor<64x32xf32>, tensor<16xf16>, tensor<8x1xi32>, tensor<4x4xi1>
}

// CHECK-LABEL: func.func @full_not_constant
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: f32)
// CHECK-NEXT: %[[T:[[:alnum:]_]+]] = tile.full %[[X]] : tensor<64x64xf32>
// CHECK-NEXT: return %[[T]]
func.func @full_not_constant(%x: f32) -> tensor<64x64xf32> {
  %0 = tile.full %x : tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x1xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_same_type(%x: tensor<64x1xf32>) -> tensor<64x1xf32> {
  %0 = tile.broadcast %x : tensor<64x1xf32> -> tensor<64x1xf32>
  return %0 : tensor<64x1xf32>
}

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<3.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<64x64xf32> {
  %c = arith.constant dense<3.0> : tensor<64x1xf32>
  %0 = tile.broadcast %c : tensor<64x1xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// tile.full of a constant folds first, then the broadcast of the splat.
// CHECK-LABEL: func.func @broadcast_full
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<5> : tensor<8x16xi32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_full() -> tensor<8x16xi32> {
  %c = arith.constant 5 : i32
  %f = tile.full %c : tensor<8x1xi32>
  %0 = tile.broadcast %f : tensor<8x1xi32> -> tensor<8x16xi32>
  return %0 : tensor<8x16xi32>
}

// CHECK-LABEL: func.func @broadcast_not_constant
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x1xf32>)
// CHECK-NEXT: %[[B:[[:alnum:]_]+]] = tile.broadcast %[[X]] : tensor<64x1xf32> -> tensor<64x64xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_not_constant(%x: tensor<64x1xf32>) -> tensor<64x64xf32> {
  %0 = tile.broadcast %x : tensor<64x1xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// A constant that is not a splat is not folded.
// CHECK-LABEL: func.func @broadcast_not_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<{{\[}}[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[B:[[:alnum:]_]+]] = tile.broadcast %[[C]] : tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_not_splat() -> tensor<2x4xf32> {
  %c = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %0 = tile.broadcast %c : tensor<2x1xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x128xf16>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_type(%x: tensor<64x128xf16>) -> tensor<64x128xf16> {
  %0 = tile.reshape %x : tensor<64x128xf16> -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}

// CHECK-LABEL: func.func @reshape_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<0.000000e+00> : tensor<64x128xf16>
// CHECK-NEXT: return %[[C]]
func.func @reshape_splat() -> tensor<64x128xf16> {
  %c = arith.constant dense<0.0> : tensor<1x1x64x128xf16>
  %0 = tile.reshape %c : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<2x32x64xf16>)
// CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.reshape %[[X]] : tensor<2x32x64xf16> -> tensor<4096xf16>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x32x64xf16>) -> tensor<4096xf16> {
  %0 = tile.reshape %x : tensor<2x32x64xf16> -> tensor<64x64xf16>
  %1 = tile.reshape %0 : tensor<64x64xf16> -> tensor<4096xf16>
  return %1 : tensor<4096xf16>
}

// The inner reshape stays while it has another use.
// CHECK-LABEL: func.func @reshape_of_reshape_multi_use
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<2x32x64xf16>)
// CHECK-NEXT: %[[A:[[:alnum:]_]+]] = tile.reshape %[[X]] : tensor<2x32x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT: %[[B:[[:alnum:]_]+]] = tile.reshape %[[X]] : tensor<2x32x64xf16> -> tensor<4096xf16>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @reshape_of_reshape_multi_use(%x: tensor<2x32x64xf16>) -> (tensor<64x64xf16>, tensor<4096xf16>) {
  %0 = tile.reshape %x : tensor<2x32x64xf16> -> tensor<64x64xf16>
  %1 = tile.reshape %0 : tensor<64x64xf16> -> tensor<4096xf16>
  return %0, %1 : tensor<64x64xf16>, tensor<4096xf16>
}

// A chain that comes back to the source type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x64xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = tile.reshape %x : tensor<64x64xf32> -> tensor<4096xf32>
  %1 = tile.reshape %0 : tensor<4096xf32> -> tensor<16x256xf32>
  %2 = tile.reshape %1 : tensor<16x256xf32> -> tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @reshape_not_constant
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<1x1x64x128xf16>)
// CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.reshape %[[X]] : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
// CHECK-NEXT: return %[[R]]
func.func @reshape_not_constant(%x: tensor<1x1x64x128xf16>) -> tensor<64x128xf16> {
  %0 = tile.reshape %x : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}

// CHECK-LABEL: func.func @reshape_not_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.reshape %[[C]] : tensor<4xi32> -> tensor<2x2xi32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_not_splat() -> tensor<2x2xi32> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = tile.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

//===----------------------------------------------------------------------===//
// tile.permute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @permute_identity
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<2x4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @permute_identity(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tile.permute %x [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @permute_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<false> : tensor<128x64xi1>
// CHECK-NEXT: return %[[C]]
func.func @permute_splat() -> tensor<128x64xi1> {
  %c = arith.constant dense<false> : tensor<64x128xi1>
  %0 = tile.permute %c [1, 0] : tensor<64x128xi1> -> tensor<128x64xi1>
  return %0 : tensor<128x64xi1>
}

// A non-identity permutation whose source and result types are equal is
// still a transpose and is kept.
// CHECK-LABEL: func.func @permute_square
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[P:[[:alnum:]_]+]] = tile.permute %[[X]] [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute_square(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = tile.permute %x [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @permute_not_constant
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x128xf16>)
// CHECK-NEXT: %[[P:[[:alnum:]_]+]] = tile.permute %[[X]] [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
// CHECK-NEXT: return %[[P]]
func.func @permute_not_constant(%x: tensor<64x128xf16>) -> tensor<128x64xf16> {
  %0 = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  return %0 : tensor<128x64xf16>
}

// CHECK-LABEL: func.func @permute_not_splat
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<{{\[}}[1, 2]]> : tensor<1x2xi32>
// CHECK-NEXT: %[[P:[[:alnum:]_]+]] = tile.permute %[[C]] [1, 0] : tensor<1x2xi32> -> tensor<2x1xi32>
// CHECK-NEXT: return %[[P]]
func.func @permute_not_splat() -> tensor<2x1xi32> {
  %c = arith.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %0 = tile.permute %c [1, 0] : tensor<1x2xi32> -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}

//===----------------------------------------------------------------------===//
// Ops without folders stay.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @no_folders
// CHECK-NEXT: %[[C:[[:alnum:]_]+]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[E:[[:alnum:]_]+]] = tile.exp2 %[[C]] : tensor<64x64xf32>
// CHECK-NEXT: %[[D:[[:alnum:]_]+]] = tile.div %[[E]], %[[C]] full : tensor<64x64xf32>
// CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.reduce sum %[[D]] {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
// CHECK-NEXT: %[[X:[[:alnum:]_]+]] = tile.expand_dims %[[C]] {axis = 0 : i32} : tensor<64x64xf32> -> tensor<1x64x64xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @no_folders() -> (tensor<64x1xf32>, tensor<1x64x64xf32>) {
  %c = arith.constant dense<1.0> : tensor<64x64xf32>
  %0 = tile.exp2 %c : tensor<64x64xf32>
  %1 = tile.div %0, %c full : tensor<64x64xf32>
  %2 = tile.reduce sum %1 {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
  %3 = tile.expand_dims %c {axis = 0 : i32} : tensor<64x64xf32> -> tensor<1x64x64xf32>
  return %2, %3 : tensor<64x1xf32>, tensor<1x64x64xf32>
}

// Unused ops without side effects are erased. tile.load only reads memory,
// so an unused load is dead too; tile.store writes and stays.
// CHECK-LABEL: func.func @dead_ops
// CHECK-SAME: (%[[K:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[X:[[:alnum:]_]+]]: f32, %[[V:[[:alnum:]_]+]]: tensor<64x64xf16>)
// CHECK-NEXT: tile.store %[[K]][%[[I]], %[[I]]], %[[V]] : <f16, 2>, tensor<64x64xf16>
// CHECK-NEXT: return
func.func @dead_ops(%K: !tile.global<f16, 2>, %i: i32, %x: f32, %v: tensor<64x64xf16>) {
  %0 = tile.bid 0
  %1 = tile.full %x : tensor<64x64xf32>
  %2 = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16>
  tile.store %K[%i, %i], %v : !tile.global<f16, 2>, tensor<64x64xf16>
  return
}

// An atomic's old values that no one reads are dropped (then a red.global);
// read ones stay.
// CHECK-LABEL: func.func @unread_old_values
// CHECK-NEXT:  tile.atomic_rmw sum %arg0[%arg2], %arg3 : <f32, 1>, tensor<64xf32>{{$}}
// CHECK-NEXT:  tile.scatter combine(max) %arg0[%arg4], %arg3 : <f32, 1>[tensor<64xi32>], tensor<64xf32>{{$}}
// CHECK-NEXT:  %[[R:.*]] = tile.scatter combine(sum) %arg1[%arg4], %arg4 : <i32, 1>[tensor<64xi32>], tensor<64xi32> -> tensor<64xi32>
// CHECK-NEXT:  return %[[R]]
func.func @unread_old_values(%O: !tile.global<f32, 1>, %H: !tile.global<i32, 1>, %i: i32, %v: tensor<64xf32>, %e: tensor<64xi32>) -> tensor<64xi32> {
  %a = tile.atomic_rmw sum %O[%i], %v : !tile.global<f32, 1>, tensor<64xf32> -> tensor<64xf32>
  %b = tile.scatter combine(max) %O[%e], %v : !tile.global<f32, 1>[tensor<64xi32>], tensor<64xf32> -> tensor<64xf32>
  %c = tile.scatter combine(sum) %H[%e], %e : !tile.global<i32, 1>[tensor<64xi32>], tensor<64xi32> -> tensor<64xi32>
  return %c : tensor<64xi32>
}

//===----------------------------------------------------------------------===//
// tile.subview
//===----------------------------------------------------------------------===//

// A view from 0 to the tensor's end along every dimension is the tensor;
// one with a start that may not be 0, or with an end, stays.
// CHECK-LABEL: func.func @subview_whole
// CHECK-SAME:  (%[[X:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[A:[[:alnum:]_]+]]: i32)
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[S:.*]] = tile.subview %[[X]][%[[A]], %[[C0]]] : <f16, 2>
// CHECK-NEXT:  %[[E:.*]] = tile.subview %[[X]][%[[C0]], %[[C0]]] ends[%[[A]]] {end_dims = array<i32: 0>} : <f16, 2>
// CHECK-NEXT:  return %[[X]], %[[S]], %[[E]]
func.func @subview_whole(%X: !tile.global<f16, 2>, %a: i32) -> (!tile.global<f16, 2>, !tile.global<f16, 2>, !tile.global<f16, 2>) {
  %c0 = arith.constant 0 : i32
  %w = tile.subview %X[%c0, %c0] : !tile.global<f16, 2>
  %s = tile.subview %X[%a, %c0] : !tile.global<f16, 2>
  %e = tile.subview %X[%c0, %c0] ends[%a] {end_dims = array<i32: 0>} : !tile.global<f16, 2>
  return %w, %s, %e : !tile.global<f16, 2>, !tile.global<f16, 2>, !tile.global<f16, 2>
}
