// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-check-resources=arch=sm_90a

// tile-check-resources refuses a kernel the target cannot run: threads and
// shared memory per block, blocks per multiprocessor asked for with
// `occupancy`, registers of a tile and of a wgmma. Each limit at its value
// passes, one past it is reported. It changes nothing.

// Shared memory: 227 KiB a block on sm_90a (check-resources-sm80.mlir:
// 163 KiB on sm_80).
func.func @smem_sm90a_at_limit() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 232448 : i32} {
  return
}

// -----

// expected-error @below {{kernel 'smem_past' needs 232449 bytes (227.0 KiB) of shared memory per block; sm_90a gives a block at most 232448 (227 KiB): use smaller tiles or fewer pipeline stages}}
func.func @smem_past() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 232449 : i32} {
  return
}

// -----

// Threads: 32 warps are a whole block; a producer warpgroup on top is not.
func.func @threads_at_limit() attributes {tile.kernel, tile.num_warps = 32 : i32} {
  return
}

// -----

// expected-error @below {{kernel 'threads_past' has blocks of 1152 threads (32 warps and a producer warpgroup); a sm_90a block has at most 1024 threads: use fewer warps}}
func.func @threads_past() attributes {tile.kernel, tile.num_warps = 32 : i32} {
  tile.warp_specialize {consumer_warps = 32 : i32} producer {
  } consumer {
  }
  return
}

// -----

// Registers of a tile: 128 x 128 f32 over 4 warps is 128 registers a
// thread, 256 x 256 is 512, over the 255 a thread may have.
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @tile_fits() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %0 = arith.constant dense<0.0> : tensor<128x128xf32, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @tile_too_big() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @below {{a 256x256 tile of 'f32' held by 4 warps needs 512 registers per thread in kernel 'tile_too_big'; a thread has at most 255: use smaller tiles or more warps}}
  %0 = arith.constant dense<0.0> : tensor<256x256xf32, #blocked>
  return
}

// -----

// A broadcast repeats its source's registers: a (1, 256) row of indices
// broadcast to 256 x 256 (a gather's column indices) holds 2 a thread,
// not 512.
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @broadcast_fits() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = arith.constant dense<1> : tensor<1x256xi32, #blocked>
  %0 = tile.broadcast %r : tensor<1x256xi32, #blocked> -> tensor<256x256xi32, #blocked>
  return
}

// -----

// Halves pack two to a register: 256 x 128 f16 over 4 warps is 128.
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @halves_pack() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %0 = arith.constant dense<0.0> : tensor<256x128xf16, #blocked>
  return
}
