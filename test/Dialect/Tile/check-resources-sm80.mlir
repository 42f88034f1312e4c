// RUN: not tile-opt %s -split-input-file --tile-check-resources=arch=sm_80 2>&1 | FileCheck %s
// RUN: not tile-opt %s -split-input-file --tile-check-resources=arch=sm_86 2>&1 | FileCheck %s --check-prefix=SM86

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
