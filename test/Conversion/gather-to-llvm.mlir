// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize | FileCheck %s

// tile.gather / tile.scatter: each thread reads (writes) its elements at the
// coordinates its index registers hold, predicated on being inside the
// tensor. Along the last dimension they are vectors where the index
// analysis (Tile/IR/IndexAnalysis.h) shows the column index running in
// steps of one from a multiple of the vector (arange + j * 64: 8 halves, one
// 16-byte access) and the row index constant over it; a column index
// arange * 2 is known nothing of: one element per access, each set to the
// padding (1.0: 0x3c00) before its predicated load.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#slice = #tile.slice<dim = 0, parent = #blocked>

// CHECK-LABEL: llvm.func @gather
// CHECK:         @p ld.global.b32
// CHECK:         @p ld.global.v4.b32
// CHECK-NOT:     ld.global.v4
// CHECK-COUNT-8: mov.b16 $0, 0x3c00;\0A @p ld.global.b16
// CHECK-NOT:     llvm.select
// CHECK:         @p st.global.v4.b32
// CHECK-NOT:     st.global
func.func @gather(%E: !tile.global<f16, 2>, %O: !tile.global<f16, 2>,
                  %Ids: !tile.global<i32, 2>, %j: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %ids = tile.load %Ids[%c0, %c0] : <i32, 2> -> tensor<16x1xi32, #blocked>
  %two = arith.constant dense<2> : tensor<1x64xi32, #blocked>
  %c64 = arith.constant 64 : i32
  %1 = tile.arange : tensor<64xi32, #slice>
  %2 = tile.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #slice> -> tensor<1x64xi32, #blocked>
  %3 = arith.muli %j, %c64 : i32
  %4 = tile.full %3 : tensor<1x64xi32, #blocked>
  %5 = arith.addi %2, %4 : tensor<1x64xi32, #blocked>
  %7 = tile.broadcast %ids : tensor<16x1xi32, #blocked> -> tensor<16x64xi32, #blocked>
  %8 = tile.broadcast %5 : tensor<1x64xi32, #blocked> -> tensor<16x64xi32, #blocked>
  %9 = tile.gather %E[%7, %8] : <f16, 2>[tensor<16x64xi32, #blocked>, tensor<16x64xi32, #blocked>] -> tensor<16x64xf16, #blocked>
  %10 = arith.muli %5, %two : tensor<1x64xi32, #blocked>
  %11 = tile.broadcast %10 : tensor<1x64xi32, #blocked> -> tensor<16x64xi32, #blocked>
  %12 = tile.gather %E[%7, %11] {padding = 1.000000e+00 : f16} : <f16, 2>[tensor<16x64xi32, #blocked>, tensor<16x64xi32, #blocked>] -> tensor<16x64xf16, #blocked>
  %13 = arith.addf %9, %12 : tensor<16x64xf16, #blocked>
  tile.scatter %O[%7, %8], %13 : <f16, 2>[tensor<16x64xi32, #blocked>, tensor<16x64xi32, #blocked>], tensor<16x64xf16, #blocked>
  return
}

// -----

// A column offset not known to be a multiple of the vector (j + arange):
// one element per access, loads and stores alike.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#slice = #tile.slice<dim = 0, parent = #blocked>
// CHECK-LABEL: llvm.func @unaligned
// CHECK-NOT:     .v4.
// CHECK:         @p ld.global.b32
// CHECK-COUNT-8: @p ld.global.b16
// CHECK-COUNT-8: @p st.global.b16
func.func @unaligned(%E: !tile.global<f16, 2>, %O: !tile.global<f16, 2>,
                     %Ids: !tile.global<i32, 2>, %j: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %ids = tile.load %Ids[%c0, %c0] : <i32, 2> -> tensor<16x1xi32, #blocked>
  %1 = tile.arange : tensor<64xi32, #slice>
  %2 = tile.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #slice> -> tensor<1x64xi32, #blocked>
  %4 = tile.full %j : tensor<1x64xi32, #blocked>
  %5 = arith.addi %2, %4 : tensor<1x64xi32, #blocked>
  %7 = tile.broadcast %ids : tensor<16x1xi32, #blocked> -> tensor<16x64xi32, #blocked>
  %8 = tile.broadcast %5 : tensor<1x64xi32, #blocked> -> tensor<16x64xi32, #blocked>
  %9 = tile.gather %E[%7, %8] : <f16, 2>[tensor<16x64xi32, #blocked>, tensor<16x64xi32, #blocked>] -> tensor<16x64xf16, #blocked>
  tile.scatter %O[%7, %8], %9 : <f16, 2>[tensor<16x64xi32, #blocked>, tensor<16x64xi32, #blocked>], tensor<16x64xf16, #blocked>
  return
}

// -----

// Column indices made by a reshape of an arange to (1, N) (as by
// expand_dims) and a row index plus an offset by a reshape to (M, 1): the
// index analysis sees through views that insert unit dimensions, and the
// gather reads 16-byte vectors.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #tile.slice<dim = 1, parent = #blocked>
#cols = #tile.slice<dim = 0, parent = #blocked>
// CHECK-LABEL: llvm.func @gather_reshaped_indices
// CHECK:         @p ld.global.v4.b32
// CHECK-NOT:     ld.global.b16
func.func @gather_reshaped_indices(%E: !tile.global<bf16, 2>, %O: !tile.global<bf16, 2>, %p: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.arange : tensor<16xi32, #rows>
  %off = tile.full %p : tensor<16xi32, #rows>
  %r = arith.addi %a, %off : tensor<16xi32, #rows>
  %rv = tile.reshape %r : tensor<16xi32, #rows> -> tensor<16x1xi32, #blocked>
  %b = tile.arange : tensor<128xi32, #cols>
  %cv = tile.reshape %b : tensor<128xi32, #cols> -> tensor<1x128xi32, #blocked>
  %rb = tile.broadcast %rv : tensor<16x1xi32, #blocked> -> tensor<16x128xi32, #blocked>
  %cb = tile.broadcast %cv : tensor<1x128xi32, #blocked> -> tensor<16x128xi32, #blocked>
  %g = tile.gather %E[%rb, %cb] : <bf16, 2>[tensor<16x128xi32, #blocked>, tensor<16x128xi32, #blocked>] -> tensor<16x128xbf16, #blocked>
  tile.store %O[%c0, %c0], %g : !tile.global<bf16, 2>, tensor<16x128xbf16, #blocked>
  return
}
