// RUN: tile-opt %s -split-input-file --tile-assign-layouts="wgmma=true" | FileCheck %s

// Views that keep an accumulator's elements in place (viewInPlace): 8-bit P
// with its columns c of each 32 permuted to c0 + 2 c3 + 4 c1 + 8 c2 + 16 c4
// (FlashAttention-3's way) is, in the accumulator's registers, the A
// operand of the next multiply: the reshape to (64, 2, 2, 2, 2, 2) and the
// permute take #tile.linear layouts holding every element where the
// accumulator does, the last reshape the operand layout; no conversion.
// CHECK-DAG:   #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 32, 16]>
// CHECK-DAG:   #[[MMA2:mma1]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
// CHECK-DAG:   #[[A:dot_a1]] = #tile.dot_operand<opIdx = 0, parent = #[[MMA2]], kWidth = 4>
// CHECK-DAG:   #[[L0:linear]] = #tile.linear<register = {{\[}}[0, 0, 0, 0, 0, 1], [8, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 0]], lane = {{\[}}[0, 0, 0, 0, 1, 0], [0, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0], [4, 0, 0, 0, 0, 0]], warp = {{\[}}[16, 0, 0, 0, 0, 0], [32, 0, 0, 0, 0, 0]]>
// CHECK-DAG:   #[[L1:linear1]] = #tile.linear<register = {{\[}}[0, 0, 0, 0, 0, 1], [8, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 0]], lane = {{\[}}[0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0], [4, 0, 0, 0, 0, 0]], warp = {{\[}}[16, 0, 0, 0, 0, 0], [32, 0, 0, 0, 0, 0]]>
// CHECK-LABEL: func.func @fragment_order
// CHECK:       %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x32xf32, #[[MMA]]> to tensor<64x32xf8E4M3FN, #[[MMA]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[P]] : tensor<64x32xf8E4M3FN, #[[MMA]]> -> tensor<64x2x2x2x2x2xf8E4M3FN, #[[L0]]>
// CHECK-NEXT:  %[[T:.*]] = tile.permute %[[R]] [0, 1, 3, 4, 2, 5] : tensor<64x2x2x2x2x2xf8E4M3FN, #[[L0]]> -> tensor<64x2x2x2x2x2xf8E4M3FN, #[[L1]]>
// CHECK-NEXT:  %[[V:.*]] = tile.reshape %[[T]] : tensor<64x2x2x2x2x2xf8E4M3FN, #[[L1]]> -> tensor<64x32xf8E4M3FN, #[[A]]>
// CHECK-NOT:   tile.convert_layout %[[V]]
// CHECK:       tile.mma %[[V]],
func.func @fragment_order(%Q: !tile.global<f8E4M3FN, 2>, %K: !tile.global<f8E4M3FN, 2>, %V: !tile.global<f8E4M3FN, 2>, %O: !tile.global<f32, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %Q[%c0, %c0] : !tile.global<f8E4M3FN, 2> -> tensor<64x64xf8E4M3FN>
  %k = tile.load %K[%c0, %c0] {order = array<i32: 1, 0>} : !tile.global<f8E4M3FN, 2> -> tensor<64x32xf8E4M3FN>
  %v = tile.load %V[%c0, %c0] {order = array<i32: 1, 0>} : !tile.global<f8E4M3FN, 2> -> tensor<32x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %s = tile.mma %q, %k, %z : tensor<64x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<64x32xf32>
  %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xf8E4M3FN>
  %r = tile.reshape %p : tensor<64x32xf8E4M3FN> -> tensor<64x2x2x2x2x2xf8E4M3FN>
  %t = tile.permute %r [0, 1, 3, 4, 2, 5] : tensor<64x2x2x2x2x2xf8E4M3FN> -> tensor<64x2x2x2x2x2xf8E4M3FN>
  %a = tile.reshape %t : tensor<64x2x2x2x2x2xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %o = tile.mma %a, %v, %z2 : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<64x64xf32>
  tile.store %O[%c0, %c0], %o : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// The same with 96 key columns (3 x 32: a tile padded to 128, the reshape's
// outer dimension 3 padded to 4): each element keeps its row-major index in
// the padded shapes, so the views still rename registers (before, a padded
// view was converted through shared memory and P read by the multiply from
// there: 8-bit attention at 128 x 160 tiles ran at half the speed of 128).
// CHECK-LABEL: func.func @fragment_order_padded
// CHECK:       %[[R:.*]] = tile.reshape %{{.*}} : tensor<64x96xf8E4M3FN, #{{mma[0-9]*}}> -> tensor<64x3x2x2x2x2x2xf8E4M3FN, #{{linear[0-9]*}}>
// CHECK-NEXT:  %[[T:.*]] = tile.permute %[[R]] [0, 1, 2, 4, 5, 3, 6] : tensor<64x3x2x2x2x2x2xf8E4M3FN, #{{linear[0-9]*}}> -> tensor<64x3x2x2x2x2x2xf8E4M3FN, #{{linear[0-9]*}}>
// CHECK-NEXT:  %[[V:.*]] = tile.reshape %[[T]] : {{.*}} -> tensor<64x96xf8E4M3FN, #{{dot_a[0-9]*}}>
// CHECK-NOT:   tile.convert_layout %[[V]]
// CHECK:       tile.mma %[[V]],
func.func @fragment_order_padded(%Q: !tile.global<f8E4M3FN, 2>, %K: !tile.global<f8E4M3FN, 2>, %V: !tile.global<f8E4M3FN, 2>, %O: !tile.global<f32, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %Q[%c0, %c0] : !tile.global<f8E4M3FN, 2> -> tensor<64x64xf8E4M3FN>
  %k = tile.load %K[%c0, %c0] {order = array<i32: 1, 0>} : !tile.global<f8E4M3FN, 2> -> tensor<64x96xf8E4M3FN>
  %v = tile.load %V[%c0, %c0] {order = array<i32: 1, 0>} : !tile.global<f8E4M3FN, 2> -> tensor<96x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x96xf32>
  %s = tile.mma %q, %k, %z : tensor<64x64xf8E4M3FN>, tensor<64x96xf8E4M3FN>, tensor<64x96xf32>
  %p = arith.truncf %s : tensor<64x96xf32> to tensor<64x96xf8E4M3FN>
  %r = tile.reshape %p : tensor<64x96xf8E4M3FN> -> tensor<64x3x2x2x2x2x2xf8E4M3FN>
  %t = tile.permute %r [0, 1, 2, 4, 5, 3, 6] : tensor<64x3x2x2x2x2x2xf8E4M3FN> -> tensor<64x3x2x2x2x2x2xf8E4M3FN>
  %a = tile.reshape %t : tensor<64x3x2x2x2x2x2xf8E4M3FN> -> tensor<64x96xf8E4M3FN>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %o = tile.mma %a, %v, %z2 : tensor<64x96xf8E4M3FN>, tensor<96x64xf8E4M3FN>, tensor<64x64xf32>
  tile.store %O[%c0, %c0], %o : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// Views that move data (P transposed, read as the A operand): the chain is
// left to the other rules, a conversion where the operand needs it.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT:   #tile.linear
// CHECK:       tile.permute
// CHECK:       tile.convert_layout
// CHECK:       tile.mma
func.func @transposed(%Q: !tile.global<f16, 2>, %V: !tile.global<f16, 2>, %O: !tile.global<f32, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %Q[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %v = tile.load %V[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.mma %q, %v, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  %t = tile.permute %p [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %o = tile.mma %t, %v, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %O[%c0, %c0], %o : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// The same for 16 bits: an accumulator split into pairs and joined again
// on its way to the next multiply's A (whose layout the accumulator's
// registers already are) keeps its registers; the split view is
// #tile.linear (no blocked layout holds the pairs where the accumulator
// does), the join the operand layout. (Before: converted to a blocked
// layout for the views and back to the operand's, twice through shared
// memory.)
// CHECK-LABEL: func.func @split_join
// CHECK:       %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[P]] : tensor<64x64xf16, #mma> -> tensor<64x32x2xf16, #linear>
// CHECK-NEXT:  %[[A:.*]] = tile.reshape %[[R]] : tensor<64x32x2xf16, #linear> -> tensor<64x64xf16, #dot_a>
// CHECK-NOT:   tile.convert_layout %[[A]]
// CHECK:       tile.mma %[[A]],
func.func @split_join(%Q: !tile.global<f16, 2>, %V: !tile.global<f16, 2>, %O: !tile.global<f32, 2>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %Q[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %v = tile.load %V[%c0, %c0] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.mma %q, %v, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  %r = tile.reshape %p : tensor<64x64xf16> -> tensor<64x32x2xf16>
  %a = tile.reshape %r : tensor<64x32x2xf16> -> tensor<64x64xf16>
  %o = tile.mma %a, %v, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %O[%c0, %c0], %o : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A reshape whose result layout (the 1-D default, an element a thread)
// maps back to no blocked layout of its source that the source's own (four
// columns a thread, the concatenated halves' rows over the warps) gives: the
// result's linear form seen in the source's shape (#tile.linear), which the
// source converts to; the reshape then keeps every element in its thread.
// CHECK-DAG:   #[[FLAT:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG:   #[[LIN:linear[0-9]*]] = #tile.linear<register = {{\[}}[0, 128], [1, 0], [2, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = {{\[}}[0, 32], [0, 64]]>
// CHECK-LABEL: func.func @reshape_joins_split_threads
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<16x256xf32, #{{.*}}> -> tensor<16x256xf32, #[[LIN]]>
// CHECK-NEXT:  tile.reshape %[[C]] : tensor<16x256xf32, #[[LIN]]> -> tensor<4096xf32, #[[FLAT]]>
func.func @reshape_joins_split_threads(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<8x512xf32>
  %a = tile.extract %x [0, 0] : tensor<8x512xf32> -> tensor<8x256xf32>
  %b = tile.extract %x [0, 256] : tensor<8x512xf32> -> tensor<8x256xf32>
  %c = tile.concat %a, %b {axis = 0 : i32} : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<16x256xf32>
  %r = tile.reshape %c : tensor<16x256xf32> -> tensor<4096xf32>
  %e = tile.extract %r [0] : tensor<4096xf32> -> tensor<8xf32>
  tile.store %O[%i], %e : !tile.global<f32, 1>, tensor<8xf32>
  return
}
