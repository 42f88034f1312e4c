// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-check-resources="arch=sm_90a occupancy=4"

// With `occupancy` N blocks per multiprocessor asked for: N blocks' threads
// (2048 on sm_90a) and shared memory (228 KiB, of which the GPU keeps 1 KiB
// per block) must fit a multiprocessor, and a thread may have the register
// file over N blocks' threads, in steps of 8: with 4 blocks of 128 threads,
// 128 registers.

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @at_limits() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 57344 : i32} {
  %0 = arith.constant dense<0.0> : tensor<128x128xf32, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @registers_past() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @below {{a 128x256 tile of 'f32' held by 4 warps needs 256 registers per thread in kernel 'registers_past'; under --occupancy=4, 4 blocks of 128 threads share the multiprocessor's 65536 registers, which leaves a thread 128: use smaller tiles, more warps (--num-warps) or a lower --occupancy}}
  %0 = arith.constant dense<0.0> : tensor<128x256xf32, #blocked>
  return
}

// -----

// expected-error @below {{kernel 'shared_past': --occupancy=4 asks for 4 blocks per multiprocessor, each with 57345 bytes of shared memory (and 1 KiB the GPU keeps per block): 233476 bytes; a sm_90a multiprocessor has 233472: lower --occupancy to at most 3 or use less shared memory}}
func.func @shared_past() attributes {tile.kernel, tile.num_warps = 4 : i32, tile.shared_bytes = 57345 : i32} {
  return
}

// -----

func.func @threads_at_limit() attributes {tile.kernel, tile.num_warps = 16 : i32} {
  return
}

// -----

// expected-error @below {{kernel 'threads_past': --occupancy=4 asks for 4 blocks of 640 threads (16 warps and a producer warpgroup) per multiprocessor (2560 threads); sm_90a runs at most 2048 threads on one: lower --occupancy to at most 3 or use fewer warps}}
func.func @threads_past() attributes {tile.kernel, tile.num_warps = 16 : i32} {
  tile.warp_specialize {consumer_warps = 16 : i32} producer {
  } consumer {
  }
  return
}
