// RUN: tile-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// 8-bit mma.sync (sm_89 on): operands in the kWidth = 4 dot_operand
// layouts are read from K-contiguous buffers by ldmatrix (16-bit units,
// untransposed: a word is four bytes adjacent along K): A's 16 x 32 bytes
// in one x4, B's 32 x 8 in one x2. The multiply is mma.sync.m16n8k32 with
// the operands' own 8-bit types (the NVVM dialect has no dense 8-bit
// mma.sync), four words of A, two of B and the accumulator tied to the
// result; not marked as having side effects (it only computes).

// CHECK-LABEL: llvm.func @mma_f8
// CHECK:       nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:       nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK:       llvm.inline_asm "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3" {{.*}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:   nvvm.mma.sync
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
#sa = #tile.shared<vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]>
#sb = #tile.shared<vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]>
func.func @mma_f8(%v: f32, %out: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %acc = tile.full %v : tensor<16x8xf32, #mma>
  %a_buf = tile.smem_alloc : !tile.smem<[16, 32], f8E4M3FN, #sa>
  %b_buf = tile.smem_alloc : !tile.smem<[32, 8], f8E5M2, #sb>
  %a = tile.local_load %a_buf [0, 0] : !tile.smem<[16, 32], f8E4M3FN, #sa> -> tensor<16x32xf8E4M3FN, #dot_a>
  %b = tile.local_load %b_buf [0, 0] : !tile.smem<[32, 8], f8E5M2, #sb> -> tensor<32x8xf8E5M2, #dot_b>
  %d = tile.mma %a, %b, %acc : tensor<16x32xf8E4M3FN, #dot_a>, tensor<32x8xf8E5M2, #dot_b>, tensor<16x8xf32, #mma>
  tile.store %out[%c0, %c0], %d : !tile.global<f32, 2>, tensor<16x8xf32, #mma>
  return
}
