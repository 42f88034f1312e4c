// RUN: tile-opt %s -split-input-file --tile-stage-converted-loads | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-stage-converted-loads | tile-opt -split-input-file --verify-roundtrip > /dev/null

// tile-stage-converted-loads: a loop body's tile.load whose tile reaches its
// only use through a tile.convert_layout that moves data between threads
// (here a row, spread over the lanes, broadcast down an mma accumulator's
// columns), possibly through elementwise ops whose other operands are
// uniform tiles (splat constants, splats of scalars), becomes a copy into
// an unswizzled buffer of the tile without its size-1 dimensions
// (tile.smem_alloc + tile.async_copy where the load was, with the copy's
// layout on those dimensions) and a read in the
// conversion's layout where the conversion was (tile.async_wait +
// tile.local_load), the elementwise ops redone after it in that layout.

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// CHECK:       #[[ROW:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK:       #[[S:shared]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
// CHECK-LABEL: func.func @row
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[64], f32, #[[S]]>
// CHECK-NEXT:    tile.async_copy %{{.*}}[%[[I]], %{{.*}}], %[[BUF]] {latency = 2 : i32, layout = #[[ROW]], shape = array<i64: 1, 64>}
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[ACC]], %[[ACC]]
// CHECK-NEXT:    tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[R:.*]] = tile.local_load %[[BUF]] [0] : <[64], f32, #[[S]]> -> tensor<1x64xf32, #mma>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<1x64xf32, #mma>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[R]], %[[TWO]] : tensor<1x64xf32, #mma>
// CHECK-NEXT:    %[[B:.*]] = tile.broadcast %[[M]]
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[P]], %[[B]]
// CHECK-NEXT:    scf.yield %[[SUM]]
// CHECK-NOT:   tile.load
// CHECK-NOT:   tile.convert_layout
func.func @row(%R: !tile.global<f32, 2>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %two = arith.constant dense<2.000000e+00> : tensor<1x64xf32, #blocked>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %row = tile.load %R[%i, %c0] {latency = 2 : i32} : <f32, 2> -> tensor<1x64xf32, #blocked>
    %p = arith.mulf %acc, %acc : tensor<64x64xf32, #mma>
    %s = arith.mulf %row, %two : tensor<1x64xf32, #blocked>
    %m = tile.convert_layout %s : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %b = tile.broadcast %m : tensor<1x64xf32, #mma> -> tensor<64x64xf32, #mma>
    %sum = arith.addf %p, %b : tensor<64x64xf32, #mma>
    scf.yield %sum : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

// Left alone: a load outside a loop; a loaded tile used twice; a tile
// combined with another loaded tile before the conversion; a load padded
// with other than zero.

#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: func.func @not_staged
// CHECK-NOT:   tile.async_copy
// CHECK-NOT:   tile.local_load
// CHECK:       return
func.func @not_staged(%R: !tile.global<f32, 2>, %n: i32) -> (tensor<1x64xf32, #mma>, tensor<1x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<1x64xf32, #mma>
  %out = tile.load %R[%c0, %c0] : <f32, 2> -> tensor<1x64xf32, #blocked>
  %o = tile.convert_layout %out : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<1x64xf32, #mma>) : i32 {
    %twice = tile.load %R[%i, %c0] : <f32, 2> -> tensor<1x64xf32, #blocked>
    %a = tile.convert_layout %twice : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %sq = arith.mulf %twice, %twice : tensor<1x64xf32, #blocked>
    %b = tile.convert_layout %sq : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %x = tile.load %R[%i, %c1] : <f32, 2> -> tensor<1x64xf32, #blocked>
    %y = tile.load %R[%c1, %i] : <f32, 2> -> tensor<1x64xf32, #blocked>
    %xy = arith.addf %x, %y : tensor<1x64xf32, #blocked>
    %c = tile.convert_layout %xy : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %pad = tile.load %R[%i, %i] {padding = 1.000000e+00 : f32} : <f32, 2> -> tensor<1x64xf32, #blocked>
    %d = tile.convert_layout %pad : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %s1 = arith.addf %acc, %a : tensor<1x64xf32, #mma>
    %s2 = arith.addf %s1, %b : tensor<1x64xf32, #mma>
    %s3 = arith.addf %s2, %c : tensor<1x64xf32, #mma>
    %s4 = arith.addf %s3, %d : tensor<1x64xf32, #mma>
    scf.yield %s4 : tensor<1x64xf32, #mma>
  }
  return %o, %r : tensor<1x64xf32, #mma>, tensor<1x64xf32, #mma>
}

// -----

// A reshape right after the load that drops its size-1 dimension (a
// (1, 64, 64) box of a 3-D tensor, an attention's bias tile, read as
// (64, 64)) is the read's: the buffer holds the tile without it, read
// straight into the mma layout, the reshape gone. A reshape that keeps a
// size-1 dimension is not staged.

#b3 = #tile.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#b2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: func.func @squeezed
// CHECK:       scf.for
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16, #{{.*}}>
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BUF]] {{.*}}shape = array<i64: 1, 64, 64>}
// CHECK:         tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[R:.*]] = tile.local_load %[[BUF]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<64x64xf16, #mma>
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[R]] : tensor<64x64xf16, #mma> to tensor<64x64xf32, #mma>
// CHECK-NEXT:    arith.addf %{{.*}}, %[[E]]
// CHECK-NOT:     tile.reshape
// CHECK-LABEL: func.func @kept_unit
// CHECK-NOT:   tile.async_copy
func.func @squeezed(%B: !tile.global<f16, 3>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %t = tile.load %B[%c0, %c0, %i] : <f16, 3> -> tensor<1x64x64xf16, #b3>
    %t2 = tile.reshape %t : tensor<1x64x64xf16, #b3> -> tensor<64x64xf16, #b2>
    %e = arith.extf %t2 : tensor<64x64xf16, #b2> to tensor<64x64xf32, #b2>
    %m = tile.convert_layout %e : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #mma>
    %sum = arith.addf %acc, %m : tensor<64x64xf32, #mma>
    scf.yield %sum : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#b3 = #tile.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#b4 = #tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 4, 8], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>
#mma4 = #tile.blocked<sizePerThread = [1, 1, 8, 1], threadsPerWarp = [1, 1, 4, 8], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>

func.func @kept_unit(%B: !tile.global<f16, 3>, %n: i32) -> tensor<1x1x64x64xf32, #mma4> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<1x1x64x64xf32, #mma4>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<1x1x64x64xf32, #mma4>) : i32 {
    %t = tile.load %B[%c0, %c0, %i] : <f16, 3> -> tensor<1x64x64xf16, #b3>
    %t2 = tile.reshape %t : tensor<1x64x64xf16, #b3> -> tensor<1x1x64x64xf16, #b4>
    %e = arith.extf %t2 : tensor<1x1x64x64xf16, #b4> to tensor<1x1x64x64xf32, #b4>
    %m = tile.convert_layout %e : tensor<1x1x64x64xf32, #b4> -> tensor<1x1x64x64xf32, #mma4>
    %sum = arith.addf %acc, %m : tensor<1x1x64x64xf32, #mma4>
    scf.yield %sum : tensor<1x1x64x64xf32, #mma4>
  }
  return %r : tensor<1x1x64x64xf32, #mma4>
}

// -----

// A column of per-row scales ((64, 1) of an (M, K / 64) tensor: 4 bytes
// along the tensor's contiguous dimension) stays loaded and converted: TMA
// cannot copy it, and its cp.async copy ran slower than the conversion (on
// sm_90a among the loop's TMA copies, and on sm_80).
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: func.func @scale_column
// CHECK-NOT:     tile.async_copy
// CHECK:         tile.load
// CHECK-NEXT:    tile.convert_layout
func.func @scale_column(%S: !tile.global<f32, 2>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.load %S[%c0, %i] : <f32, 2> -> tensor<64x1xf32, #blocked>
    %m = tile.convert_layout %s : tensor<64x1xf32, #blocked> -> tensor<64x1xf32, #mma>
    %b = tile.broadcast %m : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %sum = arith.addf %acc, %b : tensor<64x64xf32, #mma>
    scf.yield %sum : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

// A wgmma A operand made from a loop's load scaled by a scalar in f32 and
// rounded (tile-stage-mma-operands leaves it converted): the load becomes
// a copy into a buffer swizzled as wgmma's (its rows read by ldmatrix, 8 at
// once: unswizzled 128-byte rows would put them in one bank group), read
// in the A operand layout; the splat of the scalar and the ops are made
// again in that layout, and the multiply takes A from registers.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// CHECK:       #[[SA:shared[0-9]*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @scaled_operand
// CHECK:       scf.for
// CHECK-NEXT:    %[[BUF:.*]] = tile.smem_alloc : <[64, 64], bf16, #[[SA]]>
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BUF]]
// CHECK-NEXT:    tile.async_wait %[[BUF]]
// CHECK-NEXT:    %[[R:.*]] = tile.local_load %[[BUF]] [0, 0] : <[64, 64], bf16, #[[SA]]> -> tensor<64x64xbf16, #dot_a>
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[R]] : tensor<64x64xbf16, #dot_a> to tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[S:.*]] = tile.full %{{.*}} : tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[E]], %[[S]] : tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[M]] : tensor<64x64xf32, #dot_a> to tensor<64x64xbf16, #dot_a>
// CHECK-NEXT:    tile.wgmma %[[T]]
func.func @scaled_operand(%A: !tile.global<bf16, 2>, %b: !tile.smem<[64, 128], bf16, #sw>, %s: f32, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %a = tile.load %A[%c0, %k] : <bf16, 2> -> tensor<64x64xbf16, #blocked>
    %e = arith.extf %a : tensor<64x64xbf16, #blocked> to tensor<64x64xf32, #blocked>
    %sc = tile.full %s : tensor<64x64xf32, #blocked>
    %m = arith.mulf %e, %sc : tensor<64x64xf32, #blocked>
    %t = arith.truncf %m : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
    %ta = tile.convert_layout %t : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %ta, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

// The same with broadcast operands beside the chain (RMSNorm folded into a
// GEMM's A): a per-row scale computed before the loop is converted into the
// A operand layout there, once, and broadcast in it inside the loop; a
// per-K vector loaded in the loop is copied into a buffer of its own (a
// ring once pipelined) and read in the slice of that layout, each thread
// the elements it broadcasts (no conversion between threads, and its
// barriers, in every trip). The old broadcasts, and what only they read,
// go.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#vec = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#row = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// CHECK:       #[[SL:.*]] = #tile.slice<dim = 0, parent = #dot_a>
// CHECK-LABEL: func.func @broadcast_operands
// CHECK:       %[[RS:.*]] = tile.convert_layout %{{.*}} : tensor<64x1xf32, #blocked> -> tensor<64x1xf32, #dot_a>
// CHECK-NEXT:  scf.for
// CHECK:         %[[GBUF:.*]] = tile.smem_alloc : <[64], bf16
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[GBUF]]
// CHECK-NOT:     tile.convert_layout
// CHECK:         tile.local_load %{{.*}} -> tensor<64x64xbf16, #dot_a>
// CHECK-NEXT:    %[[E:.*]] = arith.extf
// CHECK-NEXT:    %[[RB:.*]] = tile.broadcast %[[RS]] : tensor<64x1xf32, #dot_a> -> tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[E]], %[[RB]] : tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    tile.async_wait %[[GBUF]]
// CHECK-NEXT:    %[[G:.*]] = tile.local_load %[[GBUF]] [0] : {{.*}} -> tensor<64xbf16, #[[SL]]>
// CHECK-NEXT:    %[[GE:.*]] = arith.extf %[[G]] : tensor<64xbf16, #[[SL]]> to tensor<64xf32, #[[SL]]>
// CHECK-NEXT:    %[[GX:.*]] = tile.expand_dims %[[GE]] {axis = 0 : i32} : {{.*}} -> tensor<1x64xf32, #dot_a>
// CHECK-NEXT:    %[[GB:.*]] = tile.broadcast %[[GX]] : tensor<1x64xf32, #dot_a> -> tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[M2:.*]] = arith.mulf %[[GB]], %[[M]] : tensor<64x64xf32, #dot_a>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[M2]]
// CHECK-NEXT:    tile.wgmma %[[T]]
// CHECK-NOT:   tile.broadcast
// CHECK-NOT:   tile.load
func.func @broadcast_operands(%A: !tile.global<bf16, 2>, %G: !tile.global<bf16, 1>, %b: !tile.smem<[64, 128], bf16, #sw>, %rstd: tensor<64x1xf32, #blocked>, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %rb = tile.broadcast %rstd : tensor<64x1xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %a = tile.load %A[%c0, %k] : <bf16, 2> -> tensor<64x64xbf16, #blocked>
    %g = tile.load %G[%k] : <bf16, 1> -> tensor<64xbf16, #vec>
    %e = arith.extf %a : tensor<64x64xbf16, #blocked> to tensor<64x64xf32, #blocked>
    %m = arith.mulf %e, %rb : tensor<64x64xf32, #blocked>
    %gf = arith.extf %g : tensor<64xbf16, #vec> to tensor<64xf32, #vec>
    %gx = tile.expand_dims %gf {axis = 0 : i32} : tensor<64xf32, #vec> -> tensor<1x64xf32, #row>
    %gc = tile.convert_layout %gx : tensor<1x64xf32, #row> -> tensor<1x64xf32, #blocked>
    %gb = tile.broadcast %gc : tensor<1x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %m2 = arith.mulf %gb, %m : tensor<64x64xf32, #blocked>
    %t = arith.truncf %m2 : tensor<64x64xf32, #blocked> to tensor<64x64xbf16, #blocked>
    %ta = tile.convert_layout %t : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %ta, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

// A per-K vector that cannot be copied into shared memory (a padding of
// 1.0, which an async copy does not write) is loaded in the slice of the A
// operand layout instead, where it was loaded.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#vec = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// CHECK:       #[[SL:.*]] = #tile.slice<dim = 0, parent = #dot_a>
// CHECK-LABEL: func.func @broadcast_operand_loaded
// CHECK:       scf.for
// CHECK-NEXT:    tile.smem_alloc
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    %[[G:.*]] = tile.load %{{.*}} {padding = 1.000000e+00 : bf16} : <bf16, 1> -> tensor<64xbf16, #[[SL]]>
// CHECK:         %[[GX:.*]] = tile.expand_dims %[[G]] {axis = 0 : i32} : {{.*}} -> tensor<1x64xbf16, #dot_a>
// CHECK-NEXT:    %[[GB:.*]] = tile.broadcast %[[GX]] : tensor<1x64xbf16, #dot_a> -> tensor<64x64xbf16, #dot_a>
// CHECK-NEXT:    arith.mulf %{{.*}}, %[[GB]] : tensor<64x64xbf16, #dot_a>
// CHECK-NOT:   tile.convert_layout
func.func @broadcast_operand_loaded(%A: !tile.global<bf16, 2>, %G: !tile.global<bf16, 1>, %b: !tile.smem<[64, 128], bf16, #sw>, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %a = tile.load %A[%c0, %k] : <bf16, 2> -> tensor<64x64xbf16, #blocked>
    %g = tile.load %G[%k] {padding = 1.0 : bf16} : <bf16, 1> -> tensor<64xbf16, #vec>
    %gx = tile.expand_dims %g {axis = 0 : i32} : tensor<64xbf16, #vec> -> tensor<1x64xbf16, #row>
    %gc = tile.convert_layout %gx : tensor<1x64xbf16, #row> -> tensor<1x64xbf16, #blocked>
    %gb = tile.broadcast %gc : tensor<1x64xbf16, #blocked> -> tensor<64x64xbf16, #blocked>
    %m = arith.mulf %a, %gb : tensor<64x64xbf16, #blocked>
    %ta = tile.convert_layout %m : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %ta, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}
