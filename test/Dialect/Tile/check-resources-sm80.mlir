// RUN: not tile-opt %s -split-input-file --tile-check-resources=arch=sm_80 2>&1 | FileCheck %s
// RUN: not tile-opt %s -split-input-file --tile-check-resources=arch=sm_86 2>&1 | FileCheck %s --check-prefix=SM86
// RUN: not tile-opt %s -split-input-file --tile-check-resources="arch=sm_80 occupancy=4" 2>&1 | FileCheck %s --check-prefix=OCC

// The limits are the target's: on sm_80 a block may have 163 KiB of shared
// memory (an A100's), on sm_86 99 KiB; a multiprocessor runs 2048 threads
// on sm_80, 1536 on sm_86.

// CHECK-NOT: error: kernel 'at_limit'
// SM86: error: kernel 'at_limit' needs 166912 bytes (163 KiB) of shared memory per block; sm_86 gives a block at most 101376 (99 KiB)
func.func @at_limit() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 166912 : i32} {
  return
}

// -----

// CHECK: error: kernel 'past' needs 166913 bytes (163.0 KiB) of shared memory per block; sm_80 gives a block at most 166912 (163 KiB)
func.func @past() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 166913 : i32} {
  return
}

// -----

// Registers are the same on every target: a 128 x 128 f32 tile over 4 warps
// (128 a thread) fits 255, and with 4 blocks of 128 threads asked for, the
// 128 they leave; 128 x 256 (256) fits neither.
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NOT: error: {{.*}}kernel 'regs_at_limit'
// OCC-NOT: error: {{.*}}kernel 'regs_at_limit'
func.func @regs_at_limit() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %0 = arith.constant dense<0.0> : tensor<128x128xf32, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: error: a 128x256 tile of 'f32' held by 4 warps needs 256 registers per thread in kernel 'regs_past'; a thread has at most 255
// OCC: error: a 128x256 tile of 'f32' held by 4 warps needs 256 registers per thread in kernel 'regs_past'; under --occupancy=4, 4 blocks of 128 threads share the multiprocessor's 65536 registers, which leaves a thread 128
func.func @regs_past() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %0 = arith.constant dense<0.0> : tensor<128x256xf32, #blocked>
  return
}
