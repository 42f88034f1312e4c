// RUN: tile-opt %s -split-input-file --tile-ping-pong | FileCheck %s
// Running it again on its own output changes nothing.
// RUN: tile-opt %s -split-input-file --tile-ping-pong --tile-ping-pong | FileCheck %s

// tile-ping-pong makes the consumer warpgroups of a tile.warp_specialize
// issue their multiplies in turns: a `start` first in the consumer region,
// a `wait` before and a `pass` after each block's run of tile.wgmma ops
// (a section, ended by an op with regions, a tile.barrier other than a
// warpgroup's own or an op with scratch memory), a `finish` last; named barriers 2 .. 2 + groups - 1.
// Only where a loop's multiply feeds work other than multiplies in the
// loop (attention's softmax); nothing in the producer region.

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Attention's shape (as tile-rotate-wgmma and tile-async-wgmma leave it),
// with two consumer warpgroups. Sections: the prologue's Q K^T in the
// branch; the loop's Q K^T and the previous trip's P V with the rescaling
// of the accumulator between them (one section: nothing between them ends
// it, and the wait there, wait_group 1, completes the previous trip's P V,
// none of the section's own multiplies); the epilogue's multiply after the
// loop (the loop itself ends no section of its block: it holds one of its
// own). The softmax after the loop's section reads Q K^T through a wait,
// which is what makes the kernel worth it. The producer's multiply (there
// only to show that the producer region is left alone) gets no turn.
// CHECK-LABEL: func.func @attention
// CHECK:       tile.warp_specialize {consumer_warps = 8 : i32} producer {
// CHECK-NOT:     tile.warpgroup_turn
// CHECK:         tile.wgmma async
// CHECK-NOT:     tile.warpgroup_turn
// CHECK:       } consumer {
// CHECK-NEXT:    tile.warpgroup_turn start {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:      %[[S0:.*]] = tile.wgmma async
// CHECK-NEXT:      tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:      tile.wgmma_wait 0, %[[S0]]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]]:2 = scf.for
// CHECK-NEXT:      tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:      %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      tile.wgmma_wait 1,
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      %[[O:.*]] = tile.wgmma async
// CHECK-NEXT:      tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:      %[[SW:.*]] = tile.wgmma_wait 1, %[[S]]
// CHECK-NEXT:      tile.reduce max %[[SW]]
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      arith.subf
// CHECK-NEXT:      tile.exp2
// CHECK-NEXT:      tile.reduce sum
// CHECK-NEXT:      scf.yield %[[O]],
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[W:.*]] = tile.wgmma_wait 0, %[[R]]#0
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[E:.*]] = tile.wgmma async %{{.*}}, %{{.*}}, %[[W]]
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    tile.wgmma_wait 0, %[[E]]
// CHECK-NEXT:    tile.warpgroup_turn finish {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:  }
// CHECK-NEXT:  return
// CHECK-NOT:   tile.warpgroup_turn
func.func @attention(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>,
                     %p: !tile.smem<[128, 64], f16, #sw>, %v: !tile.smem<[64, 64], f16, #sw>,
                     %c: i1, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  %z1 = arith.constant dense<0.000000e+00> : tensor<128x1xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
    %x = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
  } consumer {
    %pro = scf.if %c -> (tensor<128x64xf32, #mma>) {
      %s0 = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %w0 = tile.wgmma_wait 0, %s0 : tensor<128x64xf32, #mma>
      scf.yield %w0 : tensor<128x64xf32, #mma>
    } else {
      scf.yield %z : tensor<128x64xf32, #mma>
    }
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %pro, %l = %z1) -> (tensor<128x64xf32, #mma>, tensor<128x1xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %lb = tile.broadcast %l : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
      %aw = tile.wgmma_wait 1, %acc : tensor<128x64xf32, #mma>
      %sc = arith.mulf %aw, %lb : tensor<128x64xf32, #mma>
      %o = tile.wgmma async %p, %v, %sc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %sw = tile.wgmma_wait 1, %s : tensor<128x64xf32, #mma>
      %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
      %mb = tile.broadcast %m : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
      %d = arith.subf %sw, %mb : tensor<128x64xf32, #mma>
      %e = tile.exp2 %d : tensor<128x64xf32, #mma>
      %sum = tile.reduce sum %e {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
      scf.yield %o, %sum : tensor<128x64xf32, #mma>, tensor<128x1xf32, #mma>
    }
    %w = tile.wgmma_wait 0, %r#0 : tensor<128x64xf32, #mma>
    %ep = tile.wgmma async %p, %v, %w : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
    %epw = tile.wgmma_wait 0, %ep : tensor<128x64xf32, #mma>
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A consumers' named barrier between two multiplies of a block ends the
// section: every consumer thread must reach it before any goes on, so a
// warpgroup holding the turn there would wait for one waiting for its turn.
// Each side is a section of its own and the barrier is in neither. (The
// first multiply's result is waited for after the second, where the work
// on it begins.)
// CHECK-LABEL: func.func @barrier_splits
// CHECK:       scf.for
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    tile.barrier {id = 1 : i32, num_threads = 256 : i32}
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[O:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 1, %[[S]]
// CHECK-NEXT:    tile.reduce max %[[SW]]
// CHECK-NEXT:    scf.yield %[[O]]
func.func @barrier_splits(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      tile.barrier {id = 1 : i32, num_threads = 256 : i32}
      %o = tile.wgmma async %q, %k, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %sw = tile.wgmma_wait 1, %s : tensor<128x64xf32, #mma>
      %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
      scf.yield %o : tensor<128x64xf32, #mma>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A warpgroup's own barrier (tile.barrier {warpgroup}) waits for none of
// the other warpgroups: the two multiplies around it stay one section.
// CHECK-LABEL: func.func @warpgroup_barrier_inside
// CHECK:       scf.for
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.barrier {warpgroup}
// CHECK-NEXT:    %[[O:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 1, %[[S]]
func.func @warpgroup_barrier_inside(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      tile.barrier {warpgroup}
      %o = tile.wgmma async %q, %k, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %sw = tile.wgmma_wait 1, %s : tensor<128x64xf32, #mma>
      %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
      scf.yield %o : tensor<128x64xf32, #mma>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// So does an op whose lowering synchronizes the consumers around its
// scratch memory: a reduction across the warps (axis 0 of a tile whose
// rows are spread over the 8 warps) between the two multiplies.
// CHECK-LABEL: func.func @scratch_splits
// CHECK:       scf.for
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    tile.reduce sum %{{.*}} {axis = 0 : i32, keepdims}
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[O:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[SW:.*]] = tile.wgmma_wait 1, %[[S]]
// CHECK-NEXT:    tile.exp2 %[[SW]]
// CHECK-NEXT:    scf.yield %[[O]]
func.func @scratch_splits(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %x = %z) -> (tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %m = tile.reduce sum %x {axis = 0 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<1x64xf32, #mma>
      %o = tile.wgmma async %q, %k, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %sw = tile.wgmma_wait 1, %s : tensor<128x64xf32, #mma>
      %e = tile.exp2 %sw : tensor<128x64xf32, #mma>
      scf.yield %o, %e : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// So does a wait that completes one of the section's own multiplies (the
// unrotated attention loop: S is waited for at once, wait_group 0, and its
// softmax follows before P V): the softmax is what the other warpgroup's
// multiplies should run under, so it is in no section. A wait that only
// completes older multiplies does not end one: the wait_group 1 for the
// accumulator (the previous trip's P V, issued before S) stays inside.
// CHECK-LABEL: func.func @own_wait_splits
// CHECK:       scf.for
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[S:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.wgmma_wait 1,
// CHECK-NEXT:    %[[T:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[SW:.*]]:2 = tile.wgmma_wait 0, %[[S]], %[[T]]
// CHECK-NEXT:    tile.reduce max %[[SW]]#0
// CHECK-NEXT:    tile.broadcast
// CHECK-NEXT:    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    %[[O:.*]] = tile.wgmma async
// CHECK-NEXT:    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
// CHECK-NEXT:    scf.yield %[[O]]
func.func @own_wait_splits(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %aw = tile.wgmma_wait 1, %acc : tensor<128x64xf32, #mma>
      %t = tile.wgmma async %q, %k, %aw : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      %sw:2 = tile.wgmma_wait 0, %s, %t : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>
      %m = tile.reduce max %sw#0 {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
      %mb = tile.broadcast %m : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
      %o = tile.wgmma async %q, %k, %mb : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      scf.yield %o : tensor<128x64xf32, #mma>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A GEMM main loop: its multiply's accumulator only goes around the loop
// (and is waited for after it), so there is no work to run under another
// warpgroup's multiplies and the kernel is left as it is.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       tile.wgmma async
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       return
func.func @gemm(%a: !tile.smem<[128, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #mma>) : i32 {
      %d = tile.wgmma async %a, %b, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
      scf.yield %d : tensor<128x64xf32, #mma>
    }
    %w = tile.wgmma_wait 0, %r : tensor<128x64xf32, #mma>
    %e = arith.addf %w, %w : tensor<128x64xf32, #mma>
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A multiply outside any loop whose result is reduced is not what turns
// pay for (there is no next trip's multiply to overlap with): no turns.
// CHECK-LABEL: func.func @straight_line
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       tile.reduce max
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       return
func.func @straight_line(%q: !tile.smem<[128, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>) {
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %s = tile.wgmma async %q, %k, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<128x64xf32, #mma>
    %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<128x64xf32, #mma> -> tensor<128x1xf32, #mma>
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// One consumer warpgroup (consumer_warps = 4) has no one to take turns
// with: attention's loop is left as it is.
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       tile.reduce max
// CHECK-NOT:   tile.warpgroup_turn
// CHECK:       return
func.func @one_warpgroup(%q: !tile.smem<[64, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma>
      %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
      %mb = tile.broadcast %m : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %o = tile.wgmma async %q, %k, %mb : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      scf.yield %o : tensor<64x64xf32, #mma>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Three consumer warpgroups (consumer_warps = 12) take turns on named
// barriers 2, 3 and 4: groups = 3 on every step. (The pass reads the
// warpgroups off consumer_warps only; a layout of 12 warps does not exist,
// so the tiles are one warpgroup's.)
// CHECK-LABEL: func.func @three_warpgroups
// CHECK:       } consumer {
// CHECK-NEXT:    tile.warpgroup_turn start {barrier = 2 : i32, groups = 3 : i32}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      tile.warpgroup_turn wait {barrier = 2 : i32, groups = 3 : i32}
// CHECK-NEXT:      tile.wgmma async
// CHECK-NEXT:      tile.warpgroup_turn pass {barrier = 2 : i32, groups = 3 : i32}
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.warpgroup_turn finish {barrier = 2 : i32, groups = 3 : i32}
// CHECK-NEXT:  }
func.func @three_warpgroups(%q: !tile.smem<[64, 64], f16, #sw>, %k: !tile.smem<[64, 64], f16, #sw>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %z1 = arith.constant dense<0.000000e+00> : tensor<64x1xf32, #mma>
  tile.warp_specialize {consumer_warps = 12 : i32} producer {
  } consumer {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z1) -> (tensor<64x1xf32, #mma>) : i32 {
      %s = tile.wgmma async %q, %k, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma>
      %m = tile.reduce max %sw {axis = 1 : i32, keepdims} : tensor<64x64xf32, #mma> -> tensor<64x1xf32, #mma>
      scf.yield %m : tensor<64x1xf32, #mma>
    }
  }
  return
}
