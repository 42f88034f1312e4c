// RUN: tile-opt %s --split-input-file --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// A layout conversion that moves data between the lanes of each warp only
// is shuffles (tile::WarpShufflePlan), no scratch shared memory and no
// barrier: the f32 accumulator of a wgmma rounded to 8 bits, into the k32
// A fragment of the next multiply (FP8 attention's P). Each quad's lanes
// trade pairs: a 32-bit word of two pairs (rows r and r + 8) per
// shuffle, four per 32 columns, the word sent and the registers filled
// picked by one lane bit each (selects). The wgmma then reads A from four
// 32-bit registers of four bytes adjacent along K.

// CHECK-LABEL: llvm.func @wgmma_f8_rs
// CHECK-SAME:  tile.shared_bytes = 4096
// CHECK-NOT:   llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier
// CHECK-COUNT-8: nvvm.shfl.sync  idx
// CHECK-NOT:   nvvm.shfl.sync
// CHECK-NOT:   nvvm.barrier
// CHECK:       llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, db, p, 1, 1;\0A}", "=f,{{.*}},31,r,r,r,r,l,r"
// CHECK-NOT:   wgmma.mma_async
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#sb = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], block = 64>
func.func @wgmma_f8_rs(%v: f32, %out: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %s = tile.load %out[%c0, %c0] : <f32, 2> -> tensor<64x64xf32, #mma>
  %acc = tile.full %v : tensor<64x64xf32, #mma>
  %b_buf = tile.smem_alloc : !tile.smem<[64, 64], f8E4M3FN, #sb>
  %p = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf8E4M3FN, #mma>
  %a = tile.convert_layout %p : tensor<64x64xf8E4M3FN, #mma> -> tensor<64x64xf8E4M3FN, #dot_a>
  %d = tile.wgmma %a, %b_buf, %acc : tensor<64x64xf8E4M3FN, #dot_a>, !tile.smem<[64, 64], f8E4M3FN, #sb>, tensor<64x64xf32, #mma>
  tile.store %out[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  return
}

// -----

// Two arrangements of one warp's lanes (8 x 4 and 4 x 8, four f16 each):
// every element moves, two to a word, eight shuffles; no scratch.
// CHECK-LABEL: llvm.func @in_warp
// CHECK-SAME:  tile.shared_bytes = 0
// CHECK-COUNT-8: nvvm.shfl.sync  idx
// CHECK-NOT:   nvvm.shfl.sync
// CHECK-NOT:   nvvm.barrier
#a = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @in_warp(%out: !tile.global<f16, 2>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %out[%c0, %c0] : <f16, 2> -> tensor<16x32xf16, #a>
  %y = tile.convert_layout %x : tensor<16x32xf16, #a> -> tensor<16x32xf16, #b>
  tile.store %out[%c0, %c0], %y : !tile.global<f16, 2>, tensor<16x32xf16, #b>
  return
}

// -----

// Across warps (rows held by other warps): scratch shared memory, as
// before.
// CHECK-LABEL: llvm.func @across_warps
// CHECK-SAME:  tile.shared_bytes = 2048
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       llvm.store {{.*}} !llvm.ptr<3>
// CHECK:       nvvm.barrier
#c = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
#d = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]>
func.func @across_warps(%out: !tile.global<f16, 2>) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %out[%c0, %c0] : <f16, 2> -> tensor<32x32xf16, #c>
  %y = tile.convert_layout %x : tensor<32x32xf16, #c> -> tensor<32x32xf16, #d>
  tile.store %out[%c0, %c0], %y : !tile.global<f16, 2>, tensor<32x32xf16, #d>
  return
}
