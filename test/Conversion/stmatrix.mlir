// stmatrix (sm_90): a 16-bit tile in an mma fragment's layout staged for a
// TMA store (its only use) is written into shared memory 8 x 8 matrices at a
// time, one 16-byte row a lane; plain vector stores for a buffer the threads
// read back, a tile that stays live, any other layout, element width or
// buffer, and on targets without the instruction.
// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm="arch=sm_90a" -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm="arch=sm_80" -canonicalize -cse | FileCheck %s --check-prefix=SM80

// A wgmma accumulator (64 x 64 on one warpgroup: 32 elements a thread)
// rounded to f16 and staged in the 128-byte swizzle a TMA store reads: four
// stmatrix.x4 a thread, no other store to shared memory. On sm_80 (no
// stmatrix): 16 stores of a pair each.
// CHECK-LABEL: llvm.func @epilogue
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT:   nvvm.stmatrix
// CHECK-NOT:   llvm.store {{.*}}!llvm.ptr<3>
// CHECK:       fence.proxy.async.shared::cta
// SM80-LABEL: llvm.func @epilogue
// SM80-NOT:    nvvm.stmatrix
// SM80-COUNT-16: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#so = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @epilogue(%c: tensor<64x64xf32, #mma3>, %r: i32, %mO: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.num_warps = 4 : i32} {
  %h = arith.truncf %c : tensor<64x64xf32, #mma3> to tensor<64x64xf16, #mma3>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #so>
  tile.local_store %h, %buf : tensor<64x64xf16, #mma3>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store %mO[%r, %r], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #so>
  return
}

// -----

// An mma.sync accumulator (two m16 row blocks a warp, 4 warps: 64 x 32)
// staged for a TMA store through a view of its buffer: stmatrix too (the
// same fragments), 16 elements a thread in two .x4.
// CHECK-LABEL: llvm.func @mma_sync_epilogue
// CHECK-COUNT-2: nvvm.stmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-NOT:   nvvm.stmatrix
// SM80-LABEL: llvm.func @mma_sync_epilogue
// SM80-NOT:    nvvm.stmatrix
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @mma_sync_epilogue(%c: tensor<64x32xf32, #mma>, %r: i32, %mO: !tile.tensor_map<[64, 32], bf16, swizzle = 64>) attributes {tile.num_warps = 4 : i32} {
  %h = arith.truncf %c : tensor<64x32xf32, #mma> to tensor<64x32xbf16, #mma>
  %buf = tile.smem_alloc : !tile.smem<[64, 32], bf16, #s>
  tile.local_store %h, %buf : tensor<64x32xbf16, #mma>, !tile.smem<[64, 32], bf16, #s>
  tile.tma_store %mO[%r, %r], %buf : !tile.tensor_map<[64, 32], bf16, swizzle = 64>, !tile.smem<[64, 32], bf16, #s>
  tile.tma_store_wait %buf : !tile.smem<[64, 32], bf16, #s>
  return
}

// -----

// Plain stores: a buffer the threads read back (MLA decode's P, exchanged
// between warpgroups: stmatrix measured 1-3% slower there); a tile that
// stays live after its store (attention backward's dS, also read from
// registers: packed words beside its registers spilled); 32-bit elements
// (stmatrix moves 16-bit units); a swizzle of 8-byte chunks (vec = 4
// halves), which splits a matrix's 16-byte rows; a buffer whose fastest
// dimension is the fragment's rows (.trans: no kernel stages so, never run
// on a GPU).
// CHECK-LABEL: llvm.func @read_back
// CHECK-NOT:   nvvm.stmatrix
// CHECK:       llvm.store %{{.*}} : vector<2xf16>, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @still_live
// CHECK-NOT:   nvvm.stmatrix
// CHECK:       llvm.store %{{.*}} : vector<2xf16>, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @f32_epilogue
// CHECK-NOT:   nvvm.stmatrix
// CHECK:       llvm.store %{{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @split_rows
// CHECK-NOT:   nvvm.stmatrix
// CHECK:       llvm.store %{{.*}} : vector<2xf16>, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @transposed
// CHECK-NOT:   nvvm.stmatrix
// CHECK:       llvm.store {{.*}}!llvm.ptr<3>
// CHECK-NOT:   nvvm.stmatrix
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#so = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#s32 = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
#s8 = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
#st = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @read_back(%c: tensor<64x64xf32, #mma3>, %O: !tile.global<f16, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %h = arith.truncf %c : tensor<64x64xf32, #mma3> to tensor<64x64xf16, #mma3>
  %b = tile.local_alloc %h : tensor<64x64xf16, #mma3> -> !tile.smem<[64, 64], f16, #so>
  %l = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #so> -> tensor<64x64xf16, #blk>
  tile.store %O[%c0, %c0], %l : !tile.global<f16, 2>, tensor<64x64xf16, #blk>
  return
}
func.func @still_live(%c: tensor<64x64xf32, #mma3>, %r: i32, %mO: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %P: !tile.global<f16, 2>) attributes {tile.num_warps = 4 : i32} {
  %h = arith.truncf %c : tensor<64x64xf32, #mma3> to tensor<64x64xf16, #mma3>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #so>
  tile.local_store %h, %buf : tensor<64x64xf16, #mma3>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store %mO[%r, %r], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #so>
  tile.store %P[%r, %r], %h : !tile.global<f16, 2>, tensor<64x64xf16, #mma3>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #so>
  return
}
func.func @f32_epilogue(%c: tensor<64x64xf32, #mma3>, %r: i32, %mO: !tile.tensor_map<[64, 32], f32, swizzle = 128>) attributes {tile.num_warps = 4 : i32} {
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f32, #s32>
  tile.local_store %c, %buf : tensor<64x64xf32, #mma3>, !tile.smem<[64, 64], f32, #s32>
  tile.tma_store %mO[%r, %r], %buf : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #s32>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #s32>
  return
}
func.func @split_rows(%c: tensor<64x64xf32, #mma3>, %O: !tile.global<f16, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %h = arith.truncf %c : tensor<64x64xf32, #mma3> to tensor<64x64xf16, #mma3>
  %b = tile.local_alloc %h : tensor<64x64xf16, #mma3> -> !tile.smem<[64, 64], f16, #s8>
  %l = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #s8> -> tensor<64x64xf16, #blk>
  tile.store %O[%c0, %c0], %l : !tile.global<f16, 2>, tensor<64x64xf16, #blk>
  return
}
func.func @transposed(%c: tensor<64x64xf32, #mma3>, %r: i32, %mO: !tile.tensor_map<[64, 64], bf16, swizzle = 128>) attributes {tile.num_warps = 4 : i32} {
  %h = arith.truncf %c : tensor<64x64xf32, #mma3> to tensor<64x64xbf16, #mma3>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], bf16, #st>
  tile.local_store %h, %buf : tensor<64x64xbf16, #mma3>, !tile.smem<[64, 64], bf16, #st>
  tile.tma_store %mO[%r, %r], %buf : !tile.tensor_map<[64, 64], bf16, swizzle = 128>, !tile.smem<[64, 64], bf16, #st>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], bf16, #st>
  return
}
