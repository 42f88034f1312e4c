// RUN: tile-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier message of the tile dialect (TileOps.cpp,
// TileTypes.cpp, TileDialect.cpp) and the ODS-generated constraint failures
// that matter. -allow-unregistered-dialect is only needed for the one case
// that gives tile.load a typed padding attribute of a foreign dialect.

//===----------------------------------------------------------------------===//
// !tile.global (GlobalTensorType::verify)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{global tensor element type must be f16, bf16, f32, i32, i64, i8, i1, f8E4M3FN or f8E5M2, got 'f64'}}
func.func private @global_f64(!tile.global<f64, 2>)

// -----

// expected-error @+1 {{global tensor element type must be f16, bf16, f32, i32, i64, i8, i1, f8E4M3FN or f8E5M2, got 'i16'}}
func.func private @global_i16(!tile.global<i16, 1>)

// -----

// expected-error @+1 {{global tensor element type must be f16, bf16, f32, i32, i64, i8, i1, f8E4M3FN or f8E5M2, got 'tensor<4xf32>'}}
func.func private @global_tensor_elt(!tile.global<tensor<4xf32>, 1>)

// -----

// expected-error @+1 {{global tensor rank must be between 1 and 8, got 0}}
func.func private @global_rank0(!tile.global<f16, 0>)

// -----

// expected-error @+1 {{global tensor rank must be between 1 and 8, got 9}}
func.func private @global_rank9(!tile.global<f16, 9>)

// -----

//===----------------------------------------------------------------------===//
// tile.bid / tile.num_blocks (ODS constraints)
//===----------------------------------------------------------------------===//

func.func @bid_axis3() {
  // expected-error @+1 {{'tile.bid' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 2}}
  %0 = tile.bid 3
  return
}

// -----

func.func @num_blocks_negative() {
  // expected-error @+1 {{'tile.num_blocks' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 2}}
  %0 = tile.num_blocks -1
  return
}

// -----

func.func @bid_no_axis() {
  // expected-error @+1 {{'tile.bid' op requires attribute 'axis'}}
  %0 = "tile.bid"() : () -> i32
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.arange
//===----------------------------------------------------------------------===//

func.func @arange_f32() {
  // expected-error @+1 {{'tile.arange' op result #0 must be tile of i32, but got 'tensor<64xf32>'}}
  %0 = tile.arange : tensor<64xf32>
  return
}

// -----

func.func @arange_2d() {
  // expected-error @+1 {{'tile.arange' op result must be a 1-D tile, got rank 2}}
  %0 = tile.arange : tensor<8x8xi32>
  return
}

// -----

func.func @arange_0d() {
  // expected-error @+1 {{'tile.arange' op result must be a 1-D tile, got rank 0}}
  %0 = tile.arange : tensor<i32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.full
//===----------------------------------------------------------------------===//

func.func @full_0d(%x: f32) {
  // expected-error @+1 {{'tile.full' op result must have at least one dimension}}
  %0 = tile.full %x : tensor<f32>
  return
}

// -----

func.func @full_value_type(%x: i32) {
  // expected-error @+1 {{'tile.full' op failed to verify that value type matches the tile's element type}}
  %0 = "tile.full"(%x) : (i32) -> tensor<4xf32>
  return
}

// -----

func.func @full_dynamic(%x: f32) {
  // The custom parser infers the operand type from the result type, so the
  // result constraint is checked while parsing.
  // expected-error @+1 {{custom op 'tile.full' 'result' must be tile (statically shaped tensor of f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2), but got 'tensor<?xf32>'}}
  %0 = tile.full %x : tensor<?xf32>
  return
}

// -----

func.func @full_f64(%x: f64) {
  // expected-error @+1 {{custom op 'tile.full' 'result' must be tile (statically shaped tensor of f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2), but got 'tensor<4xf64>'}}
  %0 = tile.full %x : tensor<4xf64>
  return
}

// -----

func.func @full_f64_generic(%x: f64) {
  // expected-error @+1 {{'tile.full' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float or 32-bit signless integer or 64-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer or f8E4M3FN type or f8E5M2 type, but got 'f64'}}
  %0 = "tile.full"(%x) : (f64) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

func.func @broadcast_element_type(%x: tensor<64x1xf32>) {
  // expected-error @+1 {{'tile.broadcast' op element type changes from 'f32' to 'f16'}}
  %0 = tile.broadcast %x : tensor<64x1xf32> -> tensor<64x64xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source rank 1 does not match result rank 2}}
  %0 = tile.broadcast %x : tensor<64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 1 of the source (2) must be 1 or equal the result's (64)}}
  %0 = tile.broadcast %x : tensor<64x2xf32> -> tensor<64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.expand_dims
//===----------------------------------------------------------------------===//

func.func @expand_dims_axis(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 3 is out of range for a rank-2 source}}
  %0 = tile.expand_dims %x {axis = 3 : i32} : tensor<64x64xf32> -> tensor<64x64x1xf32>
  return
}

// -----

func.func @expand_dims_result(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type must be 'tensor<1x64xi32>', got 'tensor<64x1xi32>'}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}

// -----

func.func @expand_dims_element_type(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type must be 'tensor<64x1xi32>', got 'tensor<64x1xf32>'}}
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xf32>
  return
}

// -----

func.func @expand_dims_negative_axis(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = "tile.expand_dims"(%x) <{axis = -1 : i32}> : (tensor<64xi32>) -> tensor<64x1xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

func.func @reshape_element_type(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op element type changes from 'f32' to 'f16'; use a cast to change it}}
  %0 = tile.reshape %x : tensor<64x64xf32> -> tensor<4096xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op cannot reshape 4096 elements into 2048}}
  %0 = tile.reshape %x : tensor<64x64xf32> -> tensor<2048xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.permute
//===----------------------------------------------------------------------===//

func.func @permute_length(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation has 1 entries but the rank is 2}}
  %0 = tile.permute %x [0] : tensor<64x128xf16> -> tensor<64x128xf16>
  return
}

// -----

func.func @permute_range(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation entry 2 is out of range [0, 2)}}
  %0 = tile.permute %x [2, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @permute_negative(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation entry -1 is out of range [0, 2)}}
  %0 = tile.permute %x [-1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @permute_repeat(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation repeats dimension 1}}
  %0 = tile.permute %x [1, 1] : tensor<64x128xf16> -> tensor<128x128xf16>
  return
}

// -----

func.func @permute_result_rank(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op result type 'tensor<8192xf16>' must have the source's rank and element type}}
  %0 = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<8192xf16>
  return
}

// -----

func.func @permute_result_element_type(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op result type 'tensor<128x64xf32>' must have the source's rank and element type}}
  %0 = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @permute_result_dim(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op result dimension 0 is 64 but source dimension 1 is 128}}
  %0 = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<64x128xf16>
  return
}

// -----

func.func @permute_missing(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op requires attribute 'permutation'}}
  %0 = "tile.permute"(%x) : (tensor<64x128xf16>) -> tensor<64x128xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.dim
//===----------------------------------------------------------------------===//

func.func @dim_axis(%K: !tile.global<f16, 4>) {
  // expected-error @+1 {{'tile.dim' op axis 4 is out of range for a rank-4 tensor}}
  %0 = tile.dim %K, 4 : !tile.global<f16, 4>
  return
}

// -----

func.func @dim_negative(%K: !tile.global<f16, 4>) {
  // expected-error @+1 {{'tile.dim' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = tile.dim %K, -1 : !tile.global<f16, 4>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.subview
//===----------------------------------------------------------------------===//

func.func @subview_starts(%X: !tile.global<f16, 2>, %a: i32) {
  // expected-error @+1 {{'tile.subview' op needs a start for each of the tensor's 2 dimensions, got 1}}
  %0 = tile.subview %X[%a] : !tile.global<f16, 2>
  return
}

// -----

func.func @subview_ends(%X: !tile.global<f16, 2>, %a: i32) {
  // expected-error @+1 {{'tile.subview' op has 2 ends for 1 end_dims}}
  %0 = tile.subview %X[%a, %a] ends[%a, %a] {end_dims = array<i32: 1>} : !tile.global<f16, 2>
  return
}

// -----

func.func @subview_end_dim(%X: !tile.global<f16, 2>, %a: i32) {
  // expected-error @+1 {{'tile.subview' op end_dims entry 2 is out of range for a rank-2 tensor}}
  %0 = tile.subview %X[%a, %a] ends[%a] {end_dims = array<i32: 2>} : !tile.global<f16, 2>
  return
}

// -----

func.func @subview_end_order(%X: !tile.global<f16, 2>, %a: i32) {
  // expected-error @+1 {{'tile.subview' op end_dims must increase, got 1 then 0}}
  %0 = tile.subview %X[%a, %a] ends[%a, %a] {end_dims = array<i32: 1, 0>} : !tile.global<f16, 2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.load
//===----------------------------------------------------------------------===//

func.func @load_index_count(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op expected 2 tile indices for a rank-2 tensor, got 1}}
  %0 = tile.load %K[%i] : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_tile_rank(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op the result tile has rank 1 but the tensor has rank 2}}
  %0 = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<64xf16>
  return
}

// -----

func.func @load_element_type(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op the result tile element type 'f32' does not match the tensor element type 'f16'}}
  %0 = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf32>
  return
}

// -----

func.func @load_order_length(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op order has 3 entries but the rank is 2}}
  %0 = tile.load %K[%i, %i] {order = array<i32: 0, 1, 2>} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_order_range(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op order entry 2 is out of range [0, 2)}}
  %0 = tile.load %K[%i, %i] {order = array<i32: 2, 0>} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_order_repeat(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op order repeats dimension 0}}
  %0 = tile.load %K[%i, %i] {order = array<i32: 0, 0>} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_order_not_array(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op attribute 'order' failed to satisfy constraint: i32 dense array attribute}}
  %0 = "tile.load"(%K, %i, %i) {order = [1, 0]} : (!tile.global<f16, 2>, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @load_padding_type(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op padding value type 'f32' does not match the element type 'f16'}}
  %0 = tile.load %K[%i, %i] {padding = 0.0 : f32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_padding_dense(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op padding value type 'tensor<64x64xf16>' does not match the element type 'f16'}}
  %0 = tile.load %K[%i, %i] {padding = dense<0.0> : tensor<64x64xf16>} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

// A string attribute is a typed attribute (of type none).
func.func @load_padding_string(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op padding value type 'none' does not match the element type 'f16'}}
  %0 = "tile.load"(%K, %i, %i) <{operandSegmentSizes = array<i32: 1, 2, 0>, padding = "zero"}> : (!tile.global<f16, 2>, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

// A typed attribute of the right type that is not an integer or float
// constant (an opaque attribute of an unregistered dialect).
func.func @load_padding_not_constant(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op padding must be an integer or float constant}}
  %0 = tile.load %K[%i, %i] {padding = #foo<"zero"> : f16} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_padding_untyped(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op attribute 'padding' failed to satisfy constraint: TypedAttr instance}}
  %0 = "tile.load"(%K, %i, %i) {operandSegmentSizes = array<i32: 1, 2, 0>, padding = [0]} : (!tile.global<f16, 2>, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @load_latency_zero(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op attribute 'latency' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %0 = "tile.load"(%K, %i, %i) <{latency = 0 : i32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (!tile.global<f16, 2>, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @load_dynamic_tile(%K: !tile.global<f16, 2>, %i: i32) {
  // expected-error @+1 {{'tile.load' op result #0 must be tile (statically shaped tensor of f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2), but got 'tensor<?x64xf16>'}}
  %0 = tile.load %K[%i, %i] : !tile.global<f16, 2> -> tensor<?x64xf16>
  return
}

// -----

func.func @load_boxes_without_dim(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<4xi32>) {
  // expected-error @+1 {{'tile.load' op boxes and box_dim go together}}
  %0 = tile.load %K[%i, %i] boxes(%p : tensor<4xi32>) : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_boxes_not_dividing(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<8xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.load' op the tile's extent 4 along box_dim is not a whole number of boxes (8)}}
  %0 = tile.load %K[%c0, %i] boxes(%p : tensor<8xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<4x64xf16>
  return
}

// -----

// No boxes at all (a mutation found this: the extent's check divided by
// zero).
func.func @load_no_boxes(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<0xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.load' op boxes must hold at least one box}}
  %0 = tile.load %K[%c0, %i] boxes(%p : tensor<0xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<4x64xf16>
  return
}

// -----

func.func @load_boxes_index_not_zero(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<4xi32>) {
  // expected-error @+1 {{'tile.load' op the index along box_dim must be zero: the boxes give the coordinates there}}
  %0 = tile.load %K[%i, %i] boxes(%p : tensor<4xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_boxes_dim_out_of_range(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<4xi32>) {
  // expected-error @+1 {{'tile.load' op box_dim 2 is not a dimension of the tile}}
  %0 = tile.load %K[%i, %i] boxes(%p : tensor<4xi32>) {box_dim = 2 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_boxes_2d(%K: !tile.global<f16, 2>, %i: i32, %p: tensor<2x2xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.load' op boxes must be a 1-D tile of i32}}
  %0 = tile.load %K[%c0, %i] boxes(%p : tensor<2x2xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  return
}

// -----

func.func @load_not_global(%i: i32) {
  // expected-error @+1 {{'tile.load' op operand #0 must be a tensor in global memory, passed to a kernel, but got 'i32'}}
  %0 = "tile.load"(%i, %i) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, i32) -> tensor<64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.atomic_rmw and tile.item
//===----------------------------------------------------------------------===//

func.func @atomic_element_type(%O: !tile.global<f32, 1>, %i: i32, %v: tensor<64xf16>) {
  // expected-error @+1 {{'tile.atomic_rmw' op the combined tile element type 'f16' does not match the tensor element type 'f32'}}
  tile.atomic_rmw sum %O[%i], %v : !tile.global<f32, 1>, tensor<64xf16>
  return
}

// -----

func.func @atomic_unsupported(%O: !tile.global<i1, 1>, %i: i32, %v: tensor<64xi1>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics on 'i1' are not supported (f16, bf16, f32, f64, i32, i64)}}
  tile.atomic_rmw sum %O[%i], %v : !tile.global<i1, 1>, tensor<64xi1>
  return
}

// -----

func.func @atomic_prod(%O: !tile.global<f32, 1>, %i: i32, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op has no product (red.global adds, takes the maximum or the minimum)}}
  tile.atomic_rmw prod %O[%i], %v : !tile.global<f32, 1>, tensor<64xf32>
  return
}

// -----

func.func @block_atomic_prod(%C: !tile.global<i32, 1>, %i: i32) -> i32 {
  // expected-error @+1 {{'tile.block_atomic' op has no product (atom adds, takes the maximum or the minimum)}}
  %0 = tile.block_atomic prod %C[%i], %i : !tile.global<i32, 1>, i32
  return %0 : i32
}

// -----

func.func @scatter_prod(%O: !tile.global<f32, 1>, %r: tensor<64xi32>, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.scatter' op has no combine(prod) (red.global adds, takes the maximum or the minimum)}}
  tile.scatter combine(prod) %O[%r], %v : !tile.global<f32, 1>[tensor<64xi32>], tensor<64xf32>
  return
}

// -----

func.func @block_atomic_rank(%C: !tile.global<i32, 2>, %i: i32) -> i32 {
  // expected-error @+1 {{'tile.block_atomic' op expected 2 indices (the tensor's rank), got 1}}
  %t = tile.block_atomic sum %C[%i], %i : !tile.global<i32, 2>, i32
  return %t : i32
}

// -----

func.func @block_atomic_type(%C: !tile.global<f32, 1>, %i: i32) -> i32 {
  // expected-error @+1 {{'tile.block_atomic' op the value is 'i32' but the tensor holds 'f32'}}
  %t = tile.block_atomic sum %C[%i], %i : !tile.global<f32, 1>, i32
  return %t : i32
}

// -----

func.func @block_atomic_float_max(%C: !tile.global<f32, 1>, %i: i32, %x: f32) -> f32 {
  // expected-error @+1 {{'tile.block_atomic' op f32 block atomics are sums only (atom.add.f32); max and min take i32}}
  %t = tile.block_atomic max %C[%i], %x : !tile.global<f32, 1>, f32
  return %t : f32
}

// -----

func.func @block_exchange_rank(%C: !tile.global<i32, 2>, %i: i32) -> i32 {
  // expected-error @+1 {{'tile.block_exchange' op expected 2 indices (the tensor's rank), got 1}}
  %t = tile.block_exchange %C[%i], %i : !tile.global<i32, 2>, i32
  return %t : i32
}

// -----

func.func @block_exchange_type(%C: !tile.global<f32, 1>, %i: i32) -> i32 {
  // expected-error @+1 {{'tile.block_exchange' op the value is 'i32' but the tensor holds 'f32'}}
  %t = tile.block_exchange %C[%i], %i : !tile.global<f32, 1>, i32
  return %t : i32
}

// -----

func.func @block_exchange_compare_type(%C: !tile.global<i32, 1>, %i: i32, %x: f32) -> i32 {
  // expected-error @+1 {{'tile.block_exchange' op the compared value is 'f32' but the value is 'i32'}}
  %t = tile.block_exchange %C[%i], %i compare %x : f32 : !tile.global<i32, 1>, i32
  return %t : i32
}

// -----

func.func @block_exchange_float_cas(%C: !tile.global<f32, 1>, %i: i32, %x: f32) -> f32 {
  // expected-error @+1 {{'tile.block_exchange' op a compare-and-swap takes i32 (floats compare equal in other bits than they are stored)}}
  %t = tile.block_exchange %C[%i], %x compare %x : f32 : !tile.global<f32, 1>, f32
  return %t : f32
}

// -----

func.func @item_elements(%t: tensor<2xi32>) -> i32 {
  // expected-error @+1 {{'tile.item' op the tile must hold one element, got 'tensor<2xi32>'}}
  %s = tile.item %t : tensor<2xi32> -> i32
  return %s : i32
}

// -----

func.func @item_type(%t: tensor<1xi32>) -> f32 {
  // expected-error @+1 {{'tile.item' op the result must be the tile's element type ('i32')}}
  %s = tile.item %t : tensor<1xi32> -> f32
  return %s : f32
}

// -----

//===----------------------------------------------------------------------===//
// tile.store
//===----------------------------------------------------------------------===//

func.func @store_index_count(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.store' op expected 2 tile indices for a rank-2 tensor, got 3}}
  tile.store %O[%i, %i, %i], %v : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

func.func @store_shape_rank(%O: !tile.global<f32, 3>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.store' op the stored tile has rank 2 but the tensor has rank 3}}
  tile.store %O[%i, %i, %i], %v {shape = array<i64: 64, 64>} : !tile.global<f32, 3>, tensor<64x64xf32>
  return
}

// -----

func.func @store_shape_mismatch(%O: !tile.global<f32, 3>, %i: i32, %v: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.store' op the value must hold the tile (shape) without its size-1 dimensions}}
  tile.store %O[%i, %i, %i], %v {shape = array<i64: 1, 64, 64>} : !tile.global<f32, 3>, tensor<64x32xf32>
  return
}

// -----

func.func @store_shape_unit_kept(%O: !tile.global<f32, 3>, %i: i32, %v: tensor<1x64x64xf32>) {
  // expected-error @+1 {{'tile.store' op the value must hold the tile (shape) without its size-1 dimensions}}
  tile.store %O[%i, %i, %i], %v {shape = array<i64: 1, 64, 64>} : !tile.global<f32, 3>, tensor<1x64x64xf32>
  return
}

// -----

func.func @store_tile_rank(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<2x64x64xf32>) {
  // expected-error @+1 {{'tile.store' op the stored tile has rank 3 but the tensor has rank 2}}
  tile.store %O[%i, %i], %v : !tile.global<f32, 2>, tensor<2x64x64xf32>
  return
}

// -----

func.func @store_element_type(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.store' op the stored tile element type 'f16' does not match the tensor element type 'f32'}}
  tile.store %O[%i, %i], %v : !tile.global<f32, 2>, tensor<64x64xf16>
  return
}

// -----

func.func @store_order_length(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.store' op order has 1 entries but the rank is 2}}
  tile.store %O[%i, %i], %v {order = array<i32: 0>} : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

func.func @store_order_range(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.store' op order entry -1 is out of range [0, 2)}}
  tile.store %O[%i, %i], %v {order = array<i32: -1, 0>} : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

func.func @store_order_repeat(%O: !tile.global<f32, 2>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.store' op order repeats dimension 1}}
  tile.store %O[%i, %i], %v {order = array<i32: 1, 1>} : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.mma
//===----------------------------------------------------------------------===//

func.func @mma_rank(%a: tensor<2x64x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op operands must be 2-D tiles, got ranks 3, 2 and 2}}
  %0 = tile.mma %a, %b, %c : tensor<2x64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_mixed_ab(%a: tensor<64x64xf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op a and b must both hold f16, both bf16, both 8-bit floats, both i8 or both f32, got 'f16' and 'bf16'}}
  %0 = tile.mma %a, %b, %c : tensor<64x64xf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_f32_f16_operands(%a: tensor<64x64xf32>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op a and b must both hold f16, both bf16, both 8-bit floats, both i8 or both f32, got 'f32' and 'f16'}}
  %0 = tile.mma %a, %b, %c : tensor<64x64xf32>, tensor<64x64xf16>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_f16_acc(%a: tensor<64x64xf16>, %c: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.mma' op operand #2 must be tile of f32 or i32, but got 'tensor<64x64xf16>'}}
  %0 = tile.mma %a, %a, %c : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>
  return
}

// -----

func.func @mma_i8_f32_acc(%a: tensor<64x64xi8>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op the accumulator must hold 'i32' for 'i8' operands, got 'f32'}}
  %0 = tile.mma %a, %a, %c : tensor<64x64xi8>, tensor<64x64xi8>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_f16_i32_acc(%a: tensor<64x64xf16>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.mma' op the accumulator must hold 'f32' for 'f16' operands, got 'i32'}}
  %0 = tile.mma %a, %a, %c : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xi32>
  return
}

// -----

func.func @mma_k(%a: tensor<64x32xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op the K dimension of a (32) does not match the K dimension of b (64)}}
  %0 = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_acc_shape(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op the accumulator is 64x64 but a * b is 64x16}}
  %0 = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x64xf32>
  return
}

// -----

func.func @mma_result_type(%a: tensor<64x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.mma"(%a, %a, %c) : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

func.func @mma_int(%a: tensor<64x64xi32>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op operand #0 must be tile of f16, bf16, f32, f8E4M3FN, f8E5M2 or i8, but got 'tensor<64x64xi32>'}}
  %0 = tile.mma %a, %a, %c : tensor<64x64xi32>, tensor<64x64xi32>, tensor<64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.wgmma_wait (WgmmaWaitOp::verify): it completes wgmma accumulators
//===----------------------------------------------------------------------===//

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @wgmma_wait_not_accumulator(%x: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{'tile.wgmma_wait' op waits for wgmma accumulators or the f32 tiles of register A operands: f32 (or i32 accumulator) tiles in a version-3 #tile.mma layout or f32 in its A operand layout, not 'tensor<64x64xf32, #tile.blocked}}
  %0 = tile.wgmma_wait 0, %x : tensor<64x64xf32, #blocked>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
func.func @wgmma_wait_negative(%x: tensor<64x64xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = tile.wgmma_wait -1, %x : tensor<64x64xf32, #mma3>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.wgmma (WarpgroupMmaOp::verify)
//===----------------------------------------------------------------------===//

// #sw: 16-byte chunks of f16 swizzled over 128-byte blocks (64 columns), the
// layout wgmma descriptors describe.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_rank(%a: !tile.smem<[2, 128, 64], f16, #sw3>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op operands must be 2-D}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[2, 128, 64], f16, #sw3>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_mixed_ab(%a: !tile.smem<[128, 64], bf16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a and b must both hold f16, both bf16, both 8-bit floats, both i8 or both f32, got 'bf16' and 'f16'}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], bf16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// f32 operands (tf32 wgmma) are read K-major only (B's K is dimension 0).
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw32 = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
func.func @wgmma_f32_b_n_major(%a: !tile.smem<[128, 64], f32, #sw32>, %b: !tile.smem<[64, 128], f32, #sw32>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op f32 (tf32) b must be K-major in shared memory (K its fastest dimension), got #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f32, #sw32>, !tile.smem<[64, 128], f32, #sw32>, tensor<128x128xf32, #mma3>
  return
}

// -----

// 8-bit operands: wgmma reads them K-major only (B's K is dimension 0).
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], block = 128>
func.func @wgmma_f8_n_major_b(%a: !tile.smem<[128, 64], f8E4M3FN, #sa>, %b: !tile.smem<[64, 128], f8E5M2, #sb>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op 8-bit b must be K-major in shared memory (K its fastest dimension), got #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], block = 128>}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f8E4M3FN, #sa>, !tile.smem<[64, 128], f8E5M2, #sb>, tensor<128x128xf32, #mma3>
  return
}

// -----

// An 8-bit floats' mma mixed with a 16-bit operand.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_f8_with_f16(%a: !tile.smem<[128, 64], f8E4M3FN, #sa>, %b: !tile.smem<[64, 128], f16, #sb>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a and b must both hold f16, both bf16, both 8-bit floats, both i8 or both f32, got 'f8E4M3FN' and 'f16'}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f8E4M3FN, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma3>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_f16_acc(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf16, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op operand #2 must be tile of f32 or i32, but got 'tensor<128x128xf16, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>>'}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf16, #mma3>
  return
}

// -----

// K of a (64) is not K of b (128).
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_k(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[128, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op shapes do not match: a is 128x64, b 128x128, the accumulator 128x128}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[128, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// k_offset: an A in registers multiplies b's K rows from k_offset on, a
// multiple of the instruction's K, within b.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_k_offset_shared_a(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[128, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op k_offset needs an a held in registers}}
  %0 = tile.wgmma %a, %b [k_offset = 64], %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[128, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma3>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_k_offset_outside(%a: tensor<128x16xf16, #dot_a>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op k_offset 56 with a's K of 16 must be a multiple of 16 within b's K of 64}}
  %0 = tile.wgmma %a, %b [k_offset = 56], %c : tensor<128x16xf16, #dot_a>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// b transposed holds N x K: a 64 x 128 buffer is K = 128 against a's 64.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_k_transposed(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op shapes do not match: a is 128x64, b 128x64 (transposed), the accumulator 128x128}}
  %d = tile.wgmma %a, %b transposed, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// The accumulator is not M x N.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_acc_shape(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<64x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op shapes do not match: a is 128x64, b 64x128, the accumulator 64x128}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<64x128xf32, #mma3>
  return
}

// -----

// An mma.sync (version 2) accumulator.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_v2_acc(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma>) {
  // expected-error @+1 {{'tile.wgmma' op the accumulator must be in a version-3 (wgmma) mma layout}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  return
}

// -----

// An accumulator without a layout.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_acc_no_layout(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{'tile.wgmma' op the accumulator must be in a version-3 (wgmma) mma layout}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32>
  return
}

// -----

// A in registers, in a blocked layout.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @wgmma_a_blocked(%a: tensor<128x64xf16, #blocked>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a held in registers must be in the dot_operand A layout of the accumulator's}}
  %0 = tile.wgmma %a, %b, %c : tensor<128x64xf16, #blocked>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// A in registers, in the dot_operand A layout of another mma layout.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#other = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_a_other_parent(%a: tensor<128x64xf16, #tile.dot_operand<opIdx = 0, parent = #other>>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a held in registers must be in the dot_operand A layout of the accumulator's}}
  %0 = tile.wgmma %a, %b, %c : tensor<128x64xf16, #tile.dot_operand<opIdx = 0, parent = #other>>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// A in registers, in the B operand layout.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_a_dot_b(%a: tensor<128x64xf16, #tile.dot_operand<opIdx = 1, parent = #mma3>>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a held in registers must be in the dot_operand A layout of the accumulator's}}
  %0 = tile.wgmma %a, %b, %c : tensor<128x64xf16, #tile.dot_operand<opIdx = 1, parent = #mma3>>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// A in shared memory without a block: the mma.sync swizzle of whole rows.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#plain = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @wgmma_a_unblocked(%a: !tile.smem<[128, 64], f16, #plain>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op a must be in a shared layout that wgmma descriptors describe (16-byte chunks swizzled over blocks of 128, 64 or 32 bytes), got #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #plain>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>
  return
}

// -----

// B with 128-byte blocks but the phases of a 64-byte swizzle.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#half = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>
func.func @wgmma_b_phases(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #half>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op b must be in a shared layout that wgmma descriptors describe (16-byte chunks swizzled over blocks of 128, 64 or 32 bytes), got #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #half>, tensor<128x128xf32, #mma3>
  return
}

// -----

// B with 8-byte chunks (vec = 4 halves).
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#narrow = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_b_vec(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #narrow>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op b must be in a shared layout that wgmma descriptors describe}}
  %0 = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #narrow>, tensor<128x128xf32, #mma3>
  return
}

// -----

// B is always in shared memory.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_b_registers(%a: !tile.smem<[128, 64], f16, #sw>, %b: tensor<64x128xf16, #tile.dot_operand<opIdx = 1, parent = #mma3>>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op operand #1 must be}}
  %0 = "tile.wgmma"(%a, %b, %c) : (!tile.smem<[128, 64], f16, #sw>, tensor<64x128xf16, #tile.dot_operand<opIdx = 1, parent = #mma3>>, tensor<128x128xf32, #mma3>) -> tensor<128x128xf32, #mma3>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_result_type(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 128], f16, #sw>, %c: tensor<128x128xf32, #mma3>) {
  // expected-error @+1 {{'tile.wgmma' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.wgmma"(%a, %b, %c) : (!tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma3>) -> tensor<128x128xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

func.func @reduce_axis(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for a rank-2 tile}}
  %0 = tile.reduce max %x {axis = 2 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_sum_i1(%x: tensor<64x64xi1>) {
  // expected-error @+1 {{'tile.reduce' op cannot sum an i1 tile; cast it to i32 first}}
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<64x64xi1> -> tensor<64xi1>
  return
}

// -----

func.func @reduce_kept_bits_without_keepdims(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op a partial reduction (kept_bits) keeps its axis: add keepdims}}
  %0 = tile.reduce sum %x {axis = 1 : i32, kept_bits = 6 : i64} : tensor<64x64xf32> -> tensor<64x4xf32>
  return
}

// -----

func.func @reduce_kept_bits_past_axis(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op kept_bits 64 must name bits of the axis' extent 64 (a power of two)}}
  %0 = tile.reduce sum %x {axis = 1 : i32, keepdims, kept_bits = 64 : i64} : tensor<64x64xf32> -> tensor<64x2xf32>
  return
}

// -----

func.func @reduce_kept_bits_shape(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<64x4xf32>', got 'tensor<64x1xf32>'}}
  %0 = tile.reduce sum %x {axis = 1 : i32, keepdims, kept_bits = 6 : i64} : tensor<64x64xf32> -> tensor<64x1xf32>
  return
}

// -----

func.func @reduce_to_scalar(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.reduce' op reducing a 1-D tile without keepdims would give a scalar; use keepdims}}
  %0 = tile.reduce sum %x {axis = 0 : i32} : tensor<64xf32> -> tensor<1xf32>
  return
}

// -----

func.func @reduce_keepdims_shape(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<64x1xf32>', got 'tensor<64xf32>'}}
  %0 = tile.reduce max %x {axis = 1 : i32, keepdims} : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_shape(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<32xf32>', got 'tensor<64xf32>'}}
  %0 = tile.reduce min %x {axis = 0 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_element_type(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<64xf32>', got 'tensor<64xf16>'}}
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf16>
  return
}

// -----

func.func @reduce_kind(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [max, min, sum, prod]}}
  %0 = tile.reduce avg %x {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_no_axis(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op requires attribute 'axis'}}
  %0 = tile.reduce max %x : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.exp2 / tile.div
//===----------------------------------------------------------------------===//

func.func @exp2_vector(%x: vector<4xf32>) {
  // expected-error @+1 {{'tile.exp2' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float or tile of f16, bf16 or f32, but got 'vector<4xf32>'}}
  %0 = tile.exp2 %x : vector<4xf32>
  return
}

// -----

func.func @exp2_int_tile(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.exp2' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float or tile of f16, bf16 or f32, but got 'tensor<4xi32>'}}
  %0 = tile.exp2 %x : tensor<4xi32>
  return
}

// -----

func.func @div_rounding(%x: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'rounding' [rn, full, approx]}}
  %0 = tile.div %x, %x : f32
  return
}

// -----

func.func @div_mixed_types(%x: f32, %h: f16) {
  // expected-error @+1 {{'tile.div' op requires the same type for all operands and results}}
  %0 = "tile.div"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @div_bad_rounding_value(%x: f32) {
  // expected-error @+1 {{'tile.div' op attribute 'rounding' failed to satisfy constraint: division rounding mode}}
  %0 = "tile.div"(%x, %x) {rounding = 9 : i32} : (f32, f32) -> f32
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable tile attributes (TileDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown tile dialect attribute 'tile.bogus'}}
func.func @unknown_attr() attributes {tile.bogus} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' applies only to func.func}}
module attributes {tile.kernel} {
}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @kernel_not_unit() attributes {tile.kernel = true} {
  return
}

// -----

// expected-error @+1 {{a kernel returns no results; it writes its outputs with tile.store}}
func.func @kernel_results() -> i32 attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  return %c0 : i32
}

// -----

// expected-error @+1 {{kernel argument #1 has type 'tensor<64xf32>'; kernel arguments are global tensors (!tile.global), integer/float scalars or TMA descriptors (!tile.tensor_map)}}
func.func @kernel_tensor_arg(%K: !tile.global<f32, 1>, %t: tensor<64xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel argument #0 has type 'index'; kernel arguments are global tensors (!tile.global), integer/float scalars or TMA descriptors (!tile.tensor_map)}}
func.func private @kernel_index_arg(index) attributes {tile.kernel}

// -----

func.func @kernel_not_a_tile(%x: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.full' op produces 'tensor<8192x4096xf32>', which is not a tile: tiles have one or more static dimensions, at most 2^24 (padded) elements, and f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements}}
  %0 = tile.full %x : tensor<8192x4096xf32>
  return
}

// -----

// Upstream ops accept any tensor; in a kernel their results must be tiles too.
func.func @kernel_not_a_tile_arith() attributes {tile.kernel} {
  // expected-error @+1 {{'arith.constant' op produces 'tensor<64xf64>', which is not a tile: tiles have one or more static dimensions, at most 2^24 (padded) elements, and f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements}}
  %0 = arith.constant dense<0.0> : tensor<64xf64>
  return
}

// -----

func.func @kernel_not_a_tile_nested(%n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %iv = %c0 to %n step %c1 : i32 {
    // expected-error @+1 {{'arith.constant' op produces 'tensor<3xi4>', which is not a tile: tiles have one or more static dimensions, at most 2^24 (padded) elements, and f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements}}
    %t = arith.constant dense<1> : tensor<3xi4>
  }
  return
}

// -----

func.func @kernel_rank0(%n: i32) attributes {tile.kernel} {
  // expected-error @+1 {{'arith.constant' op produces 'tensor<i32>', which is not a tile: tiles have one or more static dimensions}}
  %t = arith.constant dense<1> : tensor<i32>
  return
}

// -----

// expected-error @+1 {{'tile.constants' must be a dictionary of constants}}
func.func @constants_not_dict() attributes {tile.kernel, tile.constants = [1, 2]} {
  return
}

// -----

// expected-error @+1 {{'tile.hints' must be a dictionary of kernel hints}}
func.func @hints_not_dict() attributes {tile.kernel, tile.hints = 8} {
  return
}

// -----

// expected-error @+1 {{'tile.hints': unknown hint 'warps' (the hints are num_warps, num_stages, occupancy, warp_specialize, ping_pong, exp2_poly, rotate_wgmma, slice_register_a, stored_operand_slots, group_tiles, persistent, cluster, consumer_groups and auto_schedule)}}
func.func @hints_unknown() attributes {tile.kernel, tile.hints = {warps = 8 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.hints': num_warps must be a power of two from 1 to 32, got 6}}
func.func @hints_range() attributes {tile.kernel, tile.hints = {num_warps = 6 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.hints': num_stages must be an integer}}
func.func @hints_int_type() attributes {tile.kernel, tile.hints = {num_stages = 2 : i32}} {
  return
}

// -----

// expected-error @+1 {{'tile.hints': warp_specialize must be a bool}}
func.func @hints_bool() attributes {tile.kernel, tile.hints = {warp_specialize = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.schedule' applies only to scf.for}}
func.func @schedule_on_func() attributes {tile.schedule = #tile.schedule<loop_split = false>} {
  return
}

// -----

func.func @schedule_not_schedule(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tile.schedule' must be a #tile.schedule attribute}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.schedule = 3 : i32}
  return
}

// -----

func.func @schedule_stages_zero(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  // expected-error @+1 {{#tile.schedule: num_stages must be from 1 to 16, got 0}}
  } {tile.schedule = #tile.schedule<num_stages = 0>}
  return
}

// -----

func.func @schedule_stages_17(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  // expected-error @+1 {{#tile.schedule: num_stages must be from 1 to 16, got 17}}
  } {tile.schedule = #tile.schedule<num_stages = 17>}
  return
}

// -----

func.func @schedule_split_not_bool(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  // expected-error @+2 {{invalid kind of attribute specified}}
  // expected-error @+1 {{failed to parse Tile_LoopScheduleAttr parameter 'loop_split'}}
  } {tile.schedule = #tile.schedule<loop_split = 1 : i32>}
  return
}

// -----

func.func @schedule_unknown_part(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  // expected-error @+1 {{duplicate or unknown struct parameter name: unroll}}
  } {tile.schedule = #tile.schedule<unroll = 2>}
  return
}

// -----

// Non-tensor types where a tile is expected are diagnosed (they once
// tripped an assertion in the type constraint).

func.func @exp2_of_int(%x: i32) {
  // expected-error @+1 {{'tile.exp2' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float or tile of f16, bf16 or f32, but got 'i32'}}
  %0 = tile.exp2 %x : i32
  return
}

// -----

func.func @broadcast_of_scalar(%x: f32) {
  // expected-error @+1 {{'tile.broadcast' op operand #0 must be tile}}
  %0 = "tile.broadcast"(%x) : (f32) -> tensor<4xf32>
  return
}

// -----

func.func @mma_of_scalars(%x: f32) {
  // expected-error @+1 {{'tile.mma' op operand #0 must be tile of f16, bf16, f32, f8E4M3FN, f8E5M2 or i8, but got 'f32'}}
  %0 = "tile.mma"(%x, %x, %x) : (f32, f32, f32) -> f32
  return
}

// -----

func.func @arange_scalar() {
  // expected-error @+1 {{'tile.arange' op result #0 must be tile of i32, but got 'i32'}}
  %0 = "tile.arange"() : () -> i32
  return
}

// -----

// Element counts that overflow int64 are not wrapped around.
func.func @reshape_huge(%t: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op cannot reshape 4096 elements into 9223372036854775807}}
  %0 = tile.reshape %t : tensor<64x64xf32> -> tensor<9223372036854775807x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// !tile.mbarrier (MbarrierType::verify)
//===----------------------------------------------------------------------===//

// A ring has one barrier per pipeline stage: 1 to 16.
// expected-error @+1 {{a ring of mbarriers holds 1 to 16 barriers, not 0}}
func.func private @mbarrier_empty(!tile.mbarrier<0>)

// -----

// expected-error @+1 {{a ring of mbarriers holds 1 to 16 barriers, not 17}}
func.func private @mbarrier_17(!tile.mbarrier<17>)

// -----

// An mbarrier completes a phase after `count` arrivals: at least one.
func.func @mbarrier_init_count_0() {
  %bars = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-error @+1 {{'tile.mbarrier_init' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tile.mbarrier_init %bars {count = 0 : i32} : !tile.mbarrier<2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// !tile.tensor_map (TensorMapType::verify): the limits of a CUtensorMap
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a tensor map's box has 1 to 5 dimensions, not 0}}
func.func private @tensor_map_rank0(!tile.tensor_map<[], f16, swizzle = 0>)

// -----

// expected-error @+1 {{a tensor map's box has 1 to 5 dimensions, not 6}}
func.func private @tensor_map_rank6(!tile.tensor_map<[1, 1, 1, 1, 8, 8], f16, swizzle = 0>)

// -----

// expected-error @+1 {{a tensor map's box dimensions are 1 to 256, not 512}}
func.func private @tensor_map_box_512(!tile.tensor_map<[512, 64], f16, swizzle = 128>)

// -----

// expected-error @+1 {{a tensor map's box dimensions are 1 to 256, not 0}}
func.func private @tensor_map_box_0(!tile.tensor_map<[0, 64], f16, swizzle = 128>)

// -----

// expected-error @+1 {{a tensor map describes f16, bf16, f32, i32, i64, i8, f8E4M3FN or f8E5M2 elements, not 'f64'}}
func.func private @tensor_map_f64(!tile.tensor_map<[64, 16], f64, swizzle = 128>)

// -----

// i1 is a tile element type, but not one TMA copies.
// expected-error @+1 {{a tensor map describes f16, bf16, f32, i32, i64, i8, f8E4M3FN or f8E5M2 elements, not 'i1'}}
func.func private @tensor_map_i1(!tile.tensor_map<[64, 128], i1, swizzle = 128>)

// -----

// expected-error @+1 {{a tensor map's swizzle is 0, 32, 64 or 128 bytes, not 48}}
func.func private @tensor_map_swizzle_48(!tile.tensor_map<[64, 16], f16, swizzle = 48>)

// -----

// 4 halves: 8 bytes.
// expected-error @+1 {{a tensor map's innermost box dimension must span a multiple of 16 bytes, not 8}}
func.func private @tensor_map_inner_8_bytes(!tile.tensor_map<[64, 4], f16, swizzle = 0>)

// -----

// 64 halves (128 bytes) do not fit in a 64-byte swizzle span.
// expected-error @+1 {{a tensor map's innermost box dimension (128 bytes) exceeds its swizzle span (64 bytes)}}
func.func private @tensor_map_inner_over_swizzle(!tile.tensor_map<[64, 64], f16, swizzle = 64>)

// -----

//===----------------------------------------------------------------------===//
// tile.local_store and tile.tma_store (TmaStoreOp::verify shares tma_load's
// checks of the map and the buffer)
//===----------------------------------------------------------------------===//

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @local_store_shape(%t: tensor<64x32xf16>, %b: !tile.smem<[128, 32], f16, #s64>) {
  // expected-error @+1 {{'tile.local_store' op the buffer must have the tile's shape and element type}}
  tile.local_store %t, %b : tensor<64x32xf16>, !tile.smem<[128, 32], f16, #s64>
  return
}

// -----

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_store_coords(%m: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #s64>, %i: i32) {
  // expected-error @+1 {{'tile.tma_store' op expected 2 coordinates, one per dimension of the map's box}}
  tile.tma_store %m[%i], %b : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #s64>
  return
}

// -----

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_store_swizzle(%m: !tile.tensor_map<[64, 32], f16, swizzle = 128>, %b: !tile.smem<[64, 32], f16, #s64>, %i: i32) {
  // expected-error @+1 {{'tile.tma_store' op the buffer's layout swizzles 64-byte rows, the tensor map 128}}
  tile.tma_store %m[%i, %i], %b : !tile.tensor_map<[64, 32], f16, swizzle = 128>, !tile.smem<[64, 32], f16, #s64>
  return
}

// -----

#s128 = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
func.func @tma_store_reduce_type(%m: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %b: !tile.smem<[64, 32], f32, #s128>, %i: i32) {
  // expected-error @+1 {{'tile.tma_store' op cp.reduce.async.bulk.tensor has no 'max' on 'f32' (sum: f32, f16, bf16, i32; max, min: f16, bf16, i32)}}
  tile.tma_store %m[%i, %i], %b reduce max : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 32], f32, #s128>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.tma_load (TmaLoadOp::verify)
//===----------------------------------------------------------------------===//

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_coords(%m: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op expected 2 coordinates, one per dimension of the map's box}}
  tile.tma_load %m[%i], %b, %bars[%i] : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_element_type(%m: !tile.tensor_map<[128, 32], bf16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer and the tensor map must have one element type}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[128, 32], bf16, swizzle = 64>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// The buffer's fastest dimension (32) is not a whole number of the box's
// innermost (64).
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_partial_box(%m: !tile.tensor_map<[32, 64], f16, swizzle = 128>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[32, 64], f16, swizzle = 128>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// Four gathered boxes of 32 x 32 fill a 128 x 32 buffer; eight do not.
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_gathered_count(%m: !tile.tensor_map<[32, 32], f16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32, %p: tensor<8xi32>) {
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i] boxes(%p : tensor<8xi32>), %b, %bars[%i] {box_dim = 0 : i32} : !tile.tensor_map<[32, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_gathered_dim(%m: !tile.tensor_map<[32, 32], f16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32, %p: tensor<4xi32>) {
  // expected-error @+1 {{'tile.tma_load' op box_dim 2 is not a dimension of the tensor}}
  tile.tma_load %m[%i, %i] boxes(%p : tensor<4xi32>), %b, %bars[%i] {box_dim = 2 : i32} : !tile.tensor_map<[32, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// One box of 128 x 32 into a buffer of 64 x 32: the element counts differ.
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_box_count(%m: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %b: !tile.smem<[64, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[64, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// A box of 32 rows into a buffer of 64 x 32 (not padded: 64 rows are the
// tile's) leaves half of the tile uncopied. (A box of a padded buffer's
// own rows, 48 of 64 for a 48 x 32 tile, is one: convert-copies-to-tma.mlir.)
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_box_short(%m: !tile.tensor_map<[32, 32], f16, swizzle = 64>, %b: !tile.smem<[64, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[32, 32], f16, swizzle = 64>, !tile.smem<[64, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// A row (a 1-D buffer) takes one box of its own elements or more, short of
// its padding (80 of 128: fine); 64 leave 16 uncopied.
#row = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @tma_load_row_short(%m: !tile.tensor_map<[1, 64], f32, swizzle = 0>, %ok: !tile.tensor_map<[1, 80], f32, swizzle = 0>, %b: !tile.smem<[80], f32, #row>, %bars: !tile.mbarrier<2>, %i: i32) {
  tile.tma_load %ok[%i, %i], %b, %bars[%i] : !tile.tensor_map<[1, 80], f32, swizzle = 0>, !tile.smem<[80], f32, #row>, !tile.mbarrier<2>
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[1, 64], f32, swizzle = 0>, !tile.smem<[80], f32, #row>, !tile.mbarrier<2>
  return
}

// -----

// Four boxes of 64 x 32 side by side make the 64 x 128 buffer, but its
// layout's blocks are 64 columns wide, not 32: a box is not a block.
#s128 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @tma_load_box_not_block(%m: !tile.tensor_map<[64, 32], f16, swizzle = 64>, %b: !tile.smem<[64, 128], f16, #s128>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer must hold whole boxes of the map side by side along its fastest dimension, one per block of its layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[64, 32], f16, swizzle = 64>, !tile.smem<[64, 128], f16, #s128>, !tile.mbarrier<2>
  return
}

// -----

// A buffer swizzled over whole rows for ldmatrix (no block, maxPhase 8):
// no TMA swizzle writes that pattern.
#ld = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @tma_load_ldmatrix_swizzle(%m: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %b: !tile.smem<[64, 64], f16, #ld>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer's swizzle is not one TMA writes: use a block-swizzled shared layout}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #ld>, !tile.mbarrier<2>
  return
}

// -----

// The buffer's blocks of 32 halves are the 64-byte swizzle; the map writes
// the 128-byte one.
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load_swizzle_mismatch(%m: !tile.tensor_map<[128, 32], f16, swizzle = 128>, %b: !tile.smem<[128, 32], f16, #s64>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer's layout swizzles 64-byte rows, the tensor map 128}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[128, 32], f16, swizzle = 128>, !tile.smem<[128, 32], f16, #s64>, !tile.mbarrier<2>
  return
}

// -----

// Blocks of 64 halves (128 bytes) whose phases are not the 128-byte
// swizzle's (2 rows per phase, 4 phases): TMA would write the standard
// pattern, which this layout's readers do not expect.
#odd = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 64>
func.func @tma_load_block_not_a_tma_swizzle(%m: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %b: !tile.smem<[64, 64], f16, #odd>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer's block layout is not a swizzle TMA writes (16-byte chunks over blocks of 128, 64 or 32 bytes)}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #odd>, !tile.mbarrier<2>
  return
}

// -----

// An unswizzled buffer (no block, maxPhase 1) takes a map without swizzle.
#plain = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
func.func @tma_load_unswizzled_buffer(%m: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %b: !tile.smem<[128, 32], f16, #plain>, %bars: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.tma_load' op the buffer's layout swizzles 0-byte rows, the tensor map 64}}
  tile.tma_load %m[%i, %i], %b, %bars[%i] : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #plain>, !tile.mbarrier<2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.tensor_maps and tile.tma_fallback (TileDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_not_array(!tile.global<f16, 2>, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = {param = 0 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}}

// -----

// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_no_param(!tile.global<f16, 2>, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{box = array<i64: 128, 32>, swizzle = 64 : i32}]}

// -----

// Parameter 1 is an i32, not a tensor.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_param_scalar(!tile.global<f16, 2>, i32, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{param = 1 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}]}

// -----

// Parameter 2 is the descriptor itself, not a tensor before the descriptors.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_param_self(!tile.global<f16, 2>, i32, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{param = 2 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}]}

// -----

// The entry's box is not the box of the trailing parameter's type.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_box_mismatch(!tile.global<f16, 2>, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 32>, swizzle = 64 : i32}]}

// -----

// Nor is its swizzle.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_swizzle_mismatch(!tile.global<f16, 2>, !tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{param = 0 : i32, box = array<i64: 128, 32>, swizzle = 128 : i32}]}

// -----

// The entries describe the trailing parameters: the last one is a scalar.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_not_trailing(!tile.global<f16, 2>, !tile.tensor_map<[128, 32], f16, swizzle = 64>, i32)
    attributes {tile.tensor_maps = [{param = 0 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}]}

// -----

// More entries than parameters.
// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} entries, one per trailing !tile.tensor_map parameter, each naming a tensor parameter}}
func.func private @tensor_maps_too_many(!tile.tensor_map<[128, 32], f16, swizzle = 64>)
    attributes {tile.tensor_maps = [{param = 0 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}, {param = 0 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32}]}

// -----

// expected-error @+1 {{'tile.tma_fallback' must be an array of strings}}
func.func @tma_fallback_string() attributes {tile.tma_fallback = "cp.async instead of TMA"} {
  return
}

// -----

// expected-error @+1 {{'tile.tma_fallback' must be an array of strings}}
func.func @tma_fallback_not_strings() attributes {tile.tma_fallback = ["line 3: cp.async instead of TMA", 3 : i32]} {
  return
}

// -----

// A kernel's TMA descriptor parameters need their tile.tensor_maps entries
// (without them the lowering would not pass them by value).
// expected-error @+1 {{a kernel with 1 !tile.tensor_map parameters needs as many 'tile.tensor_maps' entries, one per parameter}}
func.func @kernel_tensor_map_without_entries(%a: !tile.global<f16, 2>, %m: !tile.tensor_map<[128, 32], f16, swizzle = 64>) attributes {tile.kernel} {
  return
}

// -----

func.func @warp_specialize_partial_warpgroup() {
  // expected-error @+1 {{'consumer_warps' must be whole warpgroups (a multiple of 4), not 6}}
  tile.warp_specialize {consumer_warps = 6 : i32} producer {
  } consumer {
  }
  return
}

// -----

func.func @warp_specialize_five_producers() {
  // expected-error @+1 {{needs 1 to 4 producer regions (one per warp of the producer warpgroup), not 5}}
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
  } producer {
  } producer {
  } producer {
  } producer {
  } consumer {
  }
  return
}

// -----

func.func @warp_specialize_registers() {
  // expected-error @+1 {{'producer_registers' must be a multiple of 8, not 28}}
  tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 28 : i32} producer {
  } consumer {
  }
  return
}

// -----

func.func @warp_specialize_groups_threads() {
  // expected-error @+1 {{3 groups of 12 consumer warps and the producers' warpgroup are more than a block's 1024 threads}}
  tile.warp_specialize {consumer_groups = 3 : i32, consumer_warps = 12 : i32} producer {
  } consumer {
  }
  return
}

// -----

func.func @warp_specialize_groups_range() {
  // expected-error @+1 {{'consumer_groups' failed to satisfy constraint}}
  tile.warp_specialize {consumer_groups = 4 : i32, consumer_warps = 4 : i32} producer {
  } consumer {
  }
  return
}

// -----

func.func @consumer_group_outside() {
  // expected-error @+1 {{must be in the consumer region of a tile.warp_specialize}}
  %g = tile.consumer_group {threads = 128 : i32}
  return
}

// -----

func.func @consumer_group_threads() {
  tile.warp_specialize {consumer_groups = 2 : i32, consumer_warps = 4 : i32} producer {
  } consumer {
    // expected-error @+1 {{counts groups of 256 threads, but the kernel's consumer groups have 128}}
    %g = tile.consumer_group {threads = 256 : i32}
  }
  return
}

// -----

func.func @warp_specialize_nested(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{must be at the top level of a kernel}}
    tile.warp_specialize {consumer_warps = 4 : i32} producer {
    } consumer {
    }
  }
  return
}

// -----

// A parse error in the consumer region after a forward reference that a
// producer value resolved: a located error, and the regions (owned by the
// operation state while parsed) outlive the reference (no use after free,
// which tile-opt-mutation-test found).
func.func @warp_specialize_parse_error(%c: i32) {
  %y = arith.addi %x, %c : i32
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %x = arith.constant 1 : i32
  } consumer {
    // expected-error @+1 {{expected ','}}
    %z = arith.addi %y
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.warpgroup_turn (WarpgroupTurnOp::verify and its attribute constraints)
//===----------------------------------------------------------------------===//

// Four warpgroups from barrier 13 would need barriers 13 to 16.
func.func @warpgroup_turn_past_last_barrier() {
  tile.warp_specialize {consumer_warps = 16 : i32} producer {
  } consumer {
    // expected-error @+1 {{'tile.warpgroup_turn' op needs named barriers 13 to 16, past the last one (15)}}
    tile.warpgroup_turn wait {barrier = 13 : i32, groups = 4 : i32}
  }
  return
}

// -----

func.func @warpgroup_turn_in_producer() {
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
    // expected-error @+1 {{'tile.warpgroup_turn' op must be in the consumer region of a tile.warp_specialize}}
    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
  } consumer {
  }
  return
}

// -----

func.func @warpgroup_turn_top_level() {
  // expected-error @+1 {{'tile.warpgroup_turn' op must be in the consumer region of a tile.warp_specialize}}
  tile.warpgroup_turn start {barrier = 2 : i32, groups = 2 : i32}
  return
}

// -----

// Two warpgroups' turns in a kernel of three consumer warpgroups.
func.func @warpgroup_turn_groups_mismatch() {
  tile.warp_specialize {consumer_warps = 12 : i32} producer {
  } consumer {
    // expected-error @+1 {{'tile.warpgroup_turn' op takes turns between 2 warpgroups, but the kernel has 12 consumer warps}}
    tile.warpgroup_turn finish {barrier = 2 : i32, groups = 2 : i32}
  }
  return
}

// -----

// One warpgroup has no one to take turns with.
func.func @warpgroup_turn_one_group() {
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
  } consumer {
    // expected-error @+1 {{'tile.warpgroup_turn' op attribute 'groups' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 2}}
    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 1 : i32}
  }
  return
}

// -----

// Barrier 0 is the whole block's: the turns start at 1 or later.
func.func @warpgroup_turn_barrier_zero() {
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    // expected-error @+1 {{'tile.warpgroup_turn' op attribute 'barrier' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 15}}
    tile.warpgroup_turn wait {barrier = 0 : i32, groups = 2 : i32}
  }
  return
}

// -----

// A persistent kernel's tile.persistent indexes its three grid parameters.
// expected-error @+1 {{'tile.persistent' must index the first of three i32 parameters (the logical grid)}}
func.func @persistent_too_few(%a: i32, %b: i32) attributes {tile.kernel, tile.persistent = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.persistent' must index the first of three i32 parameters (the logical grid)}}
func.func @persistent_not_i32(%a: f32, %b: i32, %c: i32) attributes {tile.kernel, tile.persistent = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.persistent' must be an i32}}
func.func @persistent_unit(%a: i32, %b: i32, %c: i32) attributes {tile.kernel, tile.persistent} {
  return
}

// -----

// The tile loop is a loop.
// expected-error @+1 {{'tile.tile_loop' applies only to scf.for}}
func.func @tile_loop_on_func() attributes {tile.tile_loop} {
  return
}

// -----

func.func @tile_loop_not_unit(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tile.tile_loop' must be a unit attribute}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.tile_loop = 1 : i32}
  return
}

// -----

func.func @tile_loop_nested(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-error @+1 {{'tile.tile_loop' loops do not nest}}
    scf.for %j = %c0 to %n step %c1 : i32 {
    } {tile.tile_loop}
  } {tile.tile_loop}
  return
}

// -----

#ring_s2 = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
func.func @tile_claim_not_a_ring(%c: i64, %p: i32, %r: !tile.smem<[4, 2], i32, #ring_s2>) {
  // expected-error @+1 {{the ring must be one dimension of i32}}
  tile.tile_claim %c + %p -> %r[%p] {issuer = 0 : i32} : !tile.smem<[4, 2], i32, #ring_s2>
  return
}

// -----

#ring_s1 = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @tile_read_not_i32(%p: i32, %r: !tile.smem<[4], f32, #ring_s1>) -> i32 {
  // expected-error @+1 {{the ring must be one dimension of i32}}
  %t = tile.tile_read %r[%p] : !tile.smem<[4], f32, #ring_s1>
  return %t : i32
}

// -----

// Clusters: the ops and forms of ops that need a kernel launched in them.
func.func @cluster_rank_unclustered() {
  // expected-error @+1 {{'tile.cluster_rank' op needs a kernel launched in clusters (a 'tile.cluster': compile it with cluster=2, 4, 8 or 16, sm_90)}}
  %r = tile.cluster_rank
  return
}

// -----

func.func @cluster_barrier_unclustered() {
  // expected-error @+1 {{a cluster barrier needs a kernel launched in clusters}}
  tile.barrier {cluster}
  return
}

// -----

func.func @cluster_barrier_halves() attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{a cluster barrier with both 'arrive' and 'wait' is a whole one: give neither}}
  tile.barrier {cluster, arrive, wait}
  return
}

// -----

func.func @block_barrier_half() {
  // expected-error @+1 {{'arrive' and 'wait' split a cluster barrier only}}
  tile.barrier {arrive}
  return
}

// -----

func.func @cluster_gather_unclustered(%t: tensor<1x1xf32>) {
  // expected-error @+1 {{'tile.cluster_gather' op needs a kernel launched in clusters}}
  %g = tile.cluster_gather %t {axis = 1 : i32} : tensor<1x1xf32> -> tensor<1x2xf32>
  return
}

// -----

func.func @cluster_gather_shape(%t: tensor<1x1xf32>) attributes {tile.cluster = 4 : i32} {
  // expected-error @+1 {{expected the shape of 4 tiles of shape (1, 1) along axis 1: (1, 4), got (4, 1)}}
  %g = tile.cluster_gather %t {axis = 1 : i32} : tensor<1x1xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @cluster_gather_axis(%t: tensor<1x1xf32>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{axis 2 is not a dimension of a tile of rank 2}}
  %g = tile.cluster_gather %t {axis = 2 : i32} : tensor<1x1xf32> -> tensor<1x2xf32>
  return
}

// -----

func.func @cluster_gather_types(%t: tensor<1x1xf32>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{element types must match}}
  %g = tile.cluster_gather %t {axis = 1 : i32} : tensor<1x1xf32> -> tensor<1x2xf16>
  return
}

// -----

func.func @cluster_gather_padded(%t: tensor<3x1xf32>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{exchanges tiles of power-of-two dimensions only, not (3, 1)}}
  %g = tile.cluster_gather %t {axis = 1 : i32} : tensor<3x1xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @cluster_gather_bits(%t: tensor<1x1xi1>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{exchanges elements of 16, 32 or 64 bits, not 'i1'}}
  %g = tile.cluster_gather %t {axis = 1 : i32} : tensor<1x1xi1> -> tensor<1x2xi1>
  return
}

// -----

func.func @cluster_gather_count(%t: tensor<1x1xf32>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{needs one result per input}}
  %g:2 = tile.cluster_gather %t {axis = 1 : i32} : tensor<1x1xf32> -> tensor<1x2xf32>, tensor<1x2xf32>
  return
}

// -----

#row_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
func.func @cluster_store_shape(%t: tensor<1x1xf32>, %b: !tile.smem<[1, 4], f32, #row_s>) attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{expected the shape of 2 tiles of shape (1, 1) along axis 1: (1, 2), got (1, 4)}}
  tile.cluster_store %t, %b {axis = 1 : i32} : tensor<1x1xf32>, !tile.smem<[1, 4], f32, #row_s>
  return
}

// -----

func.func @cluster_barrier_named() attributes {tile.cluster = 2 : i32} {
  // expected-error @+1 {{a cluster barrier takes no 'id'}}
  tile.barrier {cluster, id = 1 : i32, num_threads = 64 : i32}
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @release_unclustered(%s: i32) {
  %b = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %e = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-error @+1 {{a release in every block of the cluster needs a kernel launched in clusters}}
  tile.mbarrier_arrive %e[%s], %b {cluster} : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
  return
}

// -----

#ring_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @claim_full_slots(%c: i64, %p: i32) attributes {tile.cluster = 2 : i32} {
  %r = tile.smem_alloc : !tile.smem<[4], i32, #ring_s>
  %f = tile.mbarrier_alloc : !tile.mbarrier<2>
  // expected-error @+1 {{needs one full barrier per slot of the ring}}
  tile.tile_claim %c + %p -> %r[%p], %f {issuer = 0 : i32} : !tile.smem<[4], i32, #ring_s>, !tile.mbarrier<2>
  return
}

// -----

// expected-error @+1 {{'tile.cluster' must be 2, 4, 8 or 16 (blocks along x)}}
func.func @cluster_size() attributes {tile.cluster = 3 : i32} {
  return
}

// -----

func.func @gather_rank(%E: !tile.global<f16, 2>, %r: tensor<64xi32>) {
  // expected-error @+1 {{'tile.gather' op needs one index tile per tensor dimension (2), got 1}}
  %g = tile.gather %E[%r] : !tile.global<f16, 2>[tensor<64xi32>] -> tensor<64xf16>
  return
}

// -----

func.func @gather_shapes(%E: !tile.global<f16, 2>, %r: tensor<64x1xi32>, %c: tensor<64x128xi32>) {
  // expected-error @+1 {{'tile.gather' op index tiles must have the result's shape ('tensor<64x128xf16>'), got 'tensor<64x1xi32>'}}
  %g = tile.gather %E[%r, %c] : !tile.global<f16, 2>[tensor<64x1xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
  return
}

// -----

#gb = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#gm = #tile.mma<warpsPerCTA = [2, 2]>
func.func @gather_layouts(%E: !tile.global<f16, 2>, %r: tensor<16x64xi32, #gb>) {
  // expected-error @+1 {{'tile.gather' op index tiles must have the result's layout ('tensor<16x64xf16, #tile.mma<warpsPerCTA = [2, 2]>>'), got 'tensor<16x64xi32, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %g = tile.gather %E[%r, %r] : !tile.global<f16, 2>[tensor<16x64xi32, #gb>, tensor<16x64xi32, #gb>] -> tensor<16x64xf16, #gm>
  return
}

// -----

func.func @gather_type(%E: !tile.global<f16, 1>, %r: tensor<64xi32>) {
  // expected-error @+1 {{'tile.gather' op the result holds 'f32' but the tensor 'f16'}}
  %g = tile.gather %E[%r] : !tile.global<f16, 1>[tensor<64xi32>] -> tensor<64xf32>
  return
}

// -----

func.func @gather_padding(%E: !tile.global<f16, 1>, %r: tensor<64xi32>) {
  // expected-error @+1 {{'tile.gather' op padding must be a 'f16' value, got 1.000000e+00 : f32}}
  %g = tile.gather %E[%r] {padding = 1.0 : f32} : !tile.global<f16, 1>[tensor<64xi32>] -> tensor<64xf16>
  return
}

// -----

func.func @gather_float_index(%E: !tile.global<f16, 1>, %r: tensor<64xf32>) {
  // expected-error @+1 {{'tile.gather' op operand #1 must be variadic of tile of i32, but got 'tensor<64xf32>'}}
  %g = tile.gather %E[%r] : !tile.global<f16, 1>[tensor<64xf32>] -> tensor<64xf16>
  return
}

// -----

func.func @scatter_shapes(%O: !tile.global<f32, 1>, %r: tensor<64xi32>, %v: tensor<128xf32>) {
  // expected-error @+1 {{'tile.scatter' op index tiles must have the stored tile's shape ('tensor<128xf32>'), got 'tensor<64xi32>'}}
  tile.scatter %O[%r], %v : !tile.global<f32, 1>[tensor<64xi32>], tensor<128xf32>
  return
}

// -----

func.func @scatter_combine_type(%O: !tile.global<f16, 1>, %r: tensor<64xi32>, %v: tensor<64xf16>) {
  // expected-error @+1 {{'tile.scatter' op combine(max) on 'f16' is not supported (f32, i32 and i64)}}
  tile.scatter combine(max) %O[%r], %v : !tile.global<f16, 1>[tensor<64xi32>], tensor<64xf16>
  return
}

// -----

func.func @timestamp_records(%t: i64) {
  // expected-error @+1 {{'tile.timestamp' op attribute 'records' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tile.timestamp %t {records = 0 : i32, site = 0 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.timeline' must be {records = N (at least 1), sites = [strings]}}}
func.func @timeline_attr() attributes {tile.timeline = {records = 4 : i32, sites = [1 : i32]}} {
  return
}

// -----

func.func @atomic_old_type(%O: !tile.global<f32, 1>, %i: i32, %v: tensor<64xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'tile.atomic_rmw' op returns the old values as 'tensor<32xf32>', not as the combined tile's 'tensor<64xf32>'}}
  %o = tile.atomic_rmw sum %O[%i], %v : !tile.global<f32, 1>, tensor<64xf32> -> tensor<32xf32>
  return %o : tensor<32xf32>
}

// -----

func.func @plain_scatter_old(%O: !tile.global<f32, 1>, %r: tensor<64xi32>, %v: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'tile.scatter' op returns old values only where it combines (a plain scatter's old values are not read)}}
  %o = tile.scatter %O[%r], %v : !tile.global<f32, 1>[tensor<64xi32>], tensor<64xf32> -> tensor<64xf32>
  return %o : tensor<64xf32>
}
