// RUN: tile-opt %s -split-input-file --tile-reread-invariant-operands | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-reread-invariant-operands=shared-memory-bytes=6144 | FileCheck %s --check-prefix=SMALL
// RUN: not tile-opt %s -split-input-file --tile-reread-invariant-operands=arch=sm_70 2>&1 | FileCheck %s --check-prefix=ARCH

// ARCH: error: tile-reread-invariant-operands: unknown target 'sm_70'

// tile-reread-invariant-operands: the slices of a loop-invariant mma.sync
// operand read before the loop (tile-slice-mma-k's held Q) are read in the
// loop, each right before its multiply, where the loop's tiles live before
// its multiplies plus what ptxas holds around them (kRegistersAroundMma,
// 80) exceed a thread's registers (255 up to 256 threads), the buffer is
// not written in the loop, and it fits beside what the loop keeps in
// shared memory (shared-memory-bytes) without fewer blocks a
// multiprocessor.

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// 4 warps: a 64 x 256 f32 tile carried through the loop (128 registers a
// thread), the scores' 32, Q's two held slices (8) and K's slice: over 255
// with the 80 around. Q's slices are read in the loop; its buffer (4 KiB)
// beside K's (4 KiB) fits in sm_80's shared memory, not in 6 KiB.
// CHECK-LABEL: func.func @pressed
// CHECK:       %[[BQ:.*]] = tile.smem_alloc : <[64, 32], f16
// CHECK:       %[[BK:.*]] = tile.smem_alloc : <[32, 64], f16
// CHECK-NOT:   tile.local_load
// CHECK:       scf.for
// CHECK-NEXT:    %[[K0:.*]] = tile.local_load %[[BK]] [0, 0]
// CHECK-NEXT:    %[[Q0:.*]] = tile.local_load %[[BQ]] [0, 0] : <[64, 32], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:    %[[S0:.*]] = tile.mma %[[Q0]], %[[K0]]
// CHECK-NEXT:    %[[K1:.*]] = tile.local_load %[[BK]] [16, 0]
// CHECK-NEXT:    %[[Q1:.*]] = tile.local_load %[[BQ]] [0, 16]
// CHECK-NEXT:    tile.mma %[[Q1]], %[[K1]], %[[S0]]
// SMALL-LABEL: func.func @pressed
// SMALL:       tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// SMALL-NEXT:  scf.for
// SMALL-NOT:     tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// SMALL:         scf.yield
func.func @pressed(%o0: tensor<64x256xf32, #mma>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) : i32 {
    %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %o2 = arith.addf %o, %o : tensor<64x256xf32, #mma>
    scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// The same loop with a 64 x 64 tile carried (32 registers): room for Q,
// whose slices stay before the loop.
// CHECK-LABEL: func.func @room
// CHECK:       tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// CHECK-NEXT:  scf.for
// CHECK-NOT:     tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK:         scf.yield
func.func @room(%o0: tensor<64x64xf32, #mma>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %o2 = arith.addf %o, %o : tensor<64x64xf32, #mma>
    scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// The pressed loop at 8 warps: the carried tile is 64 registers a thread,
// room for Q.
// CHECK-LABEL: func.func @eight_warps
// CHECK:       tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// CHECK-NEXT:  scf.for
// CHECK-NOT:     tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK:         scf.yield
func.func @eight_warps(%o0: tensor<64x256xf32, #mma>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) : i32 {
    %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %o2 = arith.addf %o, %o : tensor<64x256xf32, #mma>
    scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// Pressed, but the loop writes Q's buffer: the slices read before the loop
// hold what the buffer had then, and stay.
// CHECK-LABEL: func.func @buffer_written
// CHECK:       tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// CHECK-NEXT:  scf.for
// CHECK-NOT:     tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK:         tile.local_store
func.func @buffer_written(%o0: tensor<64x256xf32, #mma>, %h: tensor<64x32xf16, #mma>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) : i32 {
    %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    tile.local_store %h, %bq : tensor<64x32xf16, #mma>, !tile.smem<[64, 32], f16, #sa>
    %o2 = arith.addf %o, %o : tensor<64x256xf32, #mma>
    scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// Pressed, but the buffer is written between the reads and the loop (a
// ring slot refilled for the next tile): read in the loop, the slices would
// hold what was written after them. They stay.
// CHECK-LABEL: func.func @written_before_loop
// CHECK:       tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// CHECK-NEXT:  tile.local_store
// CHECK-NEXT:  scf.for
// CHECK-NOT:     tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK:         scf.yield
func.func @written_before_loop(%o0: tensor<64x256xf32, #mma>, %h: tensor<64x32xf16, #mma>, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
  tile.local_store %h, %bq : tensor<64x32xf16, #mma>, !tile.smem<[64, 32], f16, #sa>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) : i32 {
    %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
    %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %o2 = arith.addf %o, %o : tensor<64x256xf32, #mma>
    scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// Pressed, in a warp-specialized consumer region (a producer refills the
// slots the consumers release): left alone.
// CHECK-LABEL: func.func @specialized
// CHECK:       } consumer {
// CHECK:         tile.local_load %{{.*}} [0, 16] : <[64, 32], f16
// CHECK-NEXT:    scf.for
// CHECK-NOT:       tile.local_load {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK:           scf.yield
func.func @specialized(%o0: tensor<64x256xf32, #mma>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  %bk = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
  } consumer {
    %q0 = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
    %q1 = tile.local_load %bq [0, 16] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x16xf16, #dot_a>
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %o = %o0) -> (tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>) : i32 {
      %k0 = tile.local_load %bk [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
      %s0 = tile.mma %q0, %k0, %acc : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
      %k1 = tile.local_load %bk [16, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<16x64xf16, #dot_b>
      %s1 = tile.mma %q1, %k1, %s0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
      %o2 = arith.addf %o, %o : tensor<64x256xf32, #mma>
      scf.yield %s1, %o2 : tensor<64x64xf32, #mma>, tensor<64x256xf32, #mma>
    }
  }
  return
}
