// RUN: tile-opt %s -split-input-file --tile-schedule-async-copies | FileCheck %s

// tile-schedule-async-copies schedules straight-line async copies:
//  - a tile.async_copy moves up its block to right after the ops that define
//    its operands, taking its tile.smem_alloc along, but not above another
//    copy or a barrier (copies complete in issue order), an op that may
//    write global memory (tile.store), or an op that uses its buffer; it
//    may pass waits for other buffers and global reads (tile.load);
//  - a tile.async_wait moves down its block to right before the first op
//    that uses (or contains a use of) one of its buffers, passing copies but
//    not other waits, barriers or ops containing async ops;
//  - its `pending` becomes the number of copy groups issued after the last
//    copy into its buffers (predicated copies count), when that is known
//    statically;
//  - ops in a loop marked tile.pipelined are left as they are.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// The copy (with its buffer) moves up to right after %i, its index; the
// wait moves down to right before the read, so that the copy overlaps with
// the four multiplies.
// CHECK-LABEL: func.func @hoist_and_sink
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[X:.*]]: tensor<64x32xf16, #dot_a>, %[[M:.*]]: i32)
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[Y:.*]] = arith.addf %[[X]], %[[X]]
// CHECK-NEXT:  %[[I:.*]] = arith.addi %[[M]], %[[C1]] : i32
// CHECK-NEXT:  %[[B:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// CHECK-NEXT:  tile.async_copy %[[A]][%[[I]], %[[M]]], %[[B]] {layout = #blocked, shape = array<i64: 64, 32>}
// CHECK-NEXT:  %[[Y2:.*]] = arith.mulf %[[Y]], %[[Y]]
// CHECK-NEXT:  %[[Y3:.*]] = arith.mulf %[[Y2]], %[[Y]]
// CHECK-NEXT:  %[[Y4:.*]] = arith.mulf %[[Y3]], %[[Y]]
// CHECK-NEXT:  %[[Y5:.*]] = arith.mulf %[[Y4]], %[[Y]]
// CHECK-NEXT:  tile.async_wait %[[B]] : !tile.smem<[64, 32], f16, #{{.*}}>
// CHECK-NEXT:  %[[R:.*]] = tile.local_load %[[B]] [0, 0]
// CHECK-NEXT:  arith.addf %[[R]], %[[Y5]]
// CHECK-NEXT:  return
func.func @hoist_and_sink(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %y = arith.addf %x, %x : tensor<64x32xf16, #dot_a>
  %i = arith.addi %m, %c1 : i32
  %y2 = arith.mulf %y, %y : tensor<64x32xf16, #dot_a>
  %y3 = arith.mulf %y2, %y : tensor<64x32xf16, #dot_a>
  %b = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%i, %m], %b {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %y4 = arith.mulf %y3, %y : tensor<64x32xf16, #dot_a>
  tile.async_wait %b : !tile.smem<[64, 32], f16, #sa>
  %y5 = arith.mulf %y4, %y : tensor<64x32xf16, #dot_a>
  %a = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %a, %y5 : tensor<64x32xf16, #dot_a>
  return %s : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Three copies, then three waits (each right before its read, pending 0 in
// the input): A is followed by B and C, so pending 2; B by C, pending 1; C by
// nothing, pending 0 (printed without the attribute).
// CHECK-LABEL: func.func @three_copies
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BB]]
// CHECK-NEXT:  %[[BC:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BC]]
// CHECK-NEXT:  tile.async_wait %[[BA]] {pending = 2 : i32}
// CHECK-NEXT:  tile.local_load %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BB]] {pending = 1 : i32}
// CHECK-NEXT:  tile.local_load %[[BB]]
// CHECK-NEXT:  tile.async_wait %[[BC]] : !tile.smem
// CHECK-NEXT:  tile.local_load %[[BC]]
func.func @three_copies(%A: !tile.global<f16, 2>, %m: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bc = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bc {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_wait %bc : !tile.smem<[64, 32], f16, #sa>
  %c = tile.local_load %bc [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %a, %b : tensor<64x32xf16, #dot_a>
  %t = arith.addf %s, %c : tensor<64x32xf16, #dot_a>
  return %t : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// The wait for A passes the copy of B, which cannot move above it (its index
// is computed after it): one more group may stay in flight, pending 1.
// CHECK-LABEL: func.func @wait_passes_copy
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[X:.*]]: tensor<64x32xf16, #dot_a>, %[[M:.*]]: i32)
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[M]]], %[[BA]]
// CHECK-NEXT:  %[[Y:.*]] = arith.addf
// CHECK-NEXT:  %[[I:.*]] = tile.dim %[[A]], 0
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][%[[I]], %[[M]]], %[[BB]]
// CHECK-NEXT:  arith.mulf %[[Y]], %[[Y]]
// CHECK-NEXT:  tile.async_wait %[[BA]] {pending = 1 : i32}
// CHECK-NEXT:  tile.local_load %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BB]] : !tile.smem
// CHECK-NEXT:  tile.local_load %[[BB]]
func.func @wait_passes_copy(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %y = arith.addf %x, %x : tensor<64x32xf16, #dot_a>
  %i = tile.dim %A, 0 : !tile.global<f16, 2>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%i, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %y2 = arith.mulf %y, %y : tensor<64x32xf16, #dot_a>
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %a, %b : tensor<64x32xf16, #dot_a>
  %t = arith.addf %s, %y2 : tensor<64x32xf16, #dot_a>
  return %t : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// What a copy does not move above: another copy (B stops right after A,
// passing the addf), a global store (C), a barrier (D). The wait for all four
// needs the last, D: pending 0.
// CHECK-LABEL: func.func @hoist_blockers
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BB]]
// CHECK-NEXT:  %[[Y:.*]] = arith.addf
// CHECK-NEXT:  tile.store
// CHECK-NEXT:  %[[BC:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BC]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  %[[BD:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BD]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BA]], %[[BB]], %[[BC]], %[[BD]] : !tile.smem
// CHECK-NEXT:  tile.local_load %[[BA]]
func.func @hoist_blockers(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %x: tensor<64x32xf16, #blocked>, %m: i32) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %y = arith.addf %x, %x : tensor<64x32xf16, #blocked>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.store %O[%m, %m], %y : !tile.global<f16, 2>, tensor<64x32xf16, #blocked>
  %y2 = arith.addf %y, %y : tensor<64x32xf16, #blocked>
  %bc = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bc {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.barrier
  %y3 = arith.addf %y2, %y : tensor<64x32xf16, #blocked>
  %bd = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bd {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba, %bb, %bc, %bd : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %a, %y3 : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A second copy into %ba does not move above the read of its first contents
// (it would overwrite them), but passes a tile.load (a global read) and the
// addf; the copy into %bb follows it up, past the same ops, to right after
// it. The second wait for %ba is then followed by the copy into %bb: pending
// 1.
// CHECK-LABEL: func.func @reused_buffer
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BA]] : !tile.smem
// CHECK-NEXT:  %[[R1:.*]] = tile.local_load %[[BA]]
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BB]]
// CHECK-NEXT:  tile.load
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BA]] {pending = 1 : i32}
// CHECK-NEXT:  tile.local_load %[[BA]]
// CHECK-NEXT:  tile.async_wait %[[BB]] : !tile.smem
// CHECK-NEXT:  tile.local_load %[[BB]]
func.func @reused_buffer(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #blocked>, %m: i32) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %r1 = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %l = tile.load %A[%m, %m] : !tile.global<f16, 2> -> tensor<64x32xf16, #blocked>
  %y = arith.addf %l, %x : tensor<64x32xf16, #blocked>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %r2 = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
  %r3 = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %r2, %r3 : tensor<64x32xf16, #dot_a>
  return %r1, %s, %y : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A copy moves above a wait for another buffer (and the read after it); the
// wait's count is recomputed: the copy of B is now issued after A's, pending
// 1.
// CHECK-LABEL: func.func @copy_passes_wait
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BB]]
// CHECK-NEXT:  tile.async_wait %[[BA]] {pending = 1 : i32}
// CHECK-NEXT:  tile.local_load %[[BA]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BB]] : !tile.smem
// CHECK-NEXT:  tile.local_load %[[BB]]
func.func @copy_passes_wait(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %y = arith.addf %a, %x : tensor<64x32xf16, #dot_a>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %y, %b : tensor<64x32xf16, #dot_a>
  return %s : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Where waits stop. Four copies A, B (predicated: it still counts), C, D:
//  - the wait for A passes an addf and stops at the next wait: pending 3;
//  - the wait for B and C passes an addf and stops at the barrier: pending
//    1 (D was issued after C, the later of its two);
//  - the wait for D passes an addf and stops at the loop, whose body holds
//    a copy and a wait: pending 0.
// The copies move above the constants. The loop body is scheduled too.
// CHECK-LABEL: func.func @wait_blockers
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %{{.*}}: tensor<64x32xf16, #dot_a>, %{{.*}}: i32, %{{.*}}: i32, %[[P:.*]]: i1)
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][{{.*}}], %[[BA]] {
// CHECK-NEXT:  %[[BB:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][{{.*}}], %[[BB]] if %[[P]] {
// CHECK-NEXT:  %[[BC:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][{{.*}}], %[[BC]] {
// CHECK-NEXT:  %[[BD:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %[[A]][{{.*}}], %[[BD]] {
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  arith.constant 1 : i32
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BA]] {pending = 3 : i32}
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BB]], %[[BC]] {pending = 1 : i32}
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  tile.local_load %[[BB]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BD]] : !tile.smem
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[BX:.*]] = tile.smem_alloc
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BX]]
// CHECK-NEXT:    tile.async_wait %[[BX]] : !tile.smem
// CHECK-NEXT:    tile.local_load %[[BX]]
// CHECK:         scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.local_load %[[BA]]
// CHECK-NEXT:  tile.local_load %[[BD]]
func.func @wait_blockers(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32, %n: i32, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bb if %p {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bc = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bc {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %bd = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %bd {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %y = arith.addf %x, %x : tensor<64x32xf16, #dot_a>
  tile.async_wait %bb, %bc : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>
  %y1 = arith.addf %y, %x : tensor<64x32xf16, #dot_a>
  tile.barrier
  %rb = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_wait %bd : !tile.smem<[64, 32], f16, #sa>
  %y2 = arith.addf %y1, %x : tensor<64x32xf16, #dot_a>
  %l = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %y2) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %bx = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %bx {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %bx : !tile.smem<[64, 32], f16, #sa>
    %rx = tile.local_load %bx [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %rx : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  %ra = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %rd = tile.local_load %bd [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %o = arith.addf %ra, %rd : tensor<64x32xf16, #dot_a>
  %o2 = arith.addf %o, %l : tensor<64x32xf16, #dot_a>
  %o3 = arith.addf %o2, %rb : tensor<64x32xf16, #dot_a>
  return %o3 : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A wait stops right before an op whose region reads its buffer (here an
// scf.if). A wait separated from its copy by a loop that issues copies keeps
// its count (0): how many copies the loop issued is not known.
// CHECK-LABEL: func.func @nested_uses
// CHECK-NEXT:  %[[BA:.*]] = tile.smem_alloc
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[BA]]
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  arith.constant 1 : i32
// CHECK-NEXT:  scf.for
// CHECK:         scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[BA]] : !tile.smem
// CHECK-NEXT:  scf.if
// CHECK-NEXT:    tile.local_load %[[BA]]
func.func @nested_uses(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32, %n: i32, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %l = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %bx = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %bx {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %bx : !tile.smem<[64, 32], f16, #sa>
    %rx = tile.local_load %bx [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %rx : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
  %y = arith.addf %l, %x : tensor<64x32xf16, #dot_a>
  %r = scf.if %p -> (tensor<64x32xf16, #dot_a>) {
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    scf.yield %a : tensor<64x32xf16, #dot_a>
  } else {
    scf.yield %y : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>

// In a loop that is not pipelined, the body is scheduled like any block: the
// copy moves to the top of the body, the wait down to the read. In a loop
// marked tile.pipelined nothing moves and the counts stay.
// CHECK-LABEL: func.func @loops
// CHECK:       scf.for
// CHECK-NEXT:    %[[BX:.*]] = tile.smem_alloc
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BX]]
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    tile.async_wait %[[BX]] : !tile.smem
// CHECK-NEXT:    tile.local_load %[[BX]]
// CHECK:       scf.for
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.remui
// CHECK-NEXT:    %[[V:.*]] = tile.smem_slot
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[V]]
// CHECK-NEXT:    tile.async_wait %[[V]] {pending = 1 : i32}
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    tile.local_load %[[V]]
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
func.func @loops(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %y = arith.addf %acc, %acc : tensor<64x32xf16, #dot_a>
    %bx = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %bx {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %bx : !tile.smem<[64, 32], f16, #sa>
    %y2 = arith.mulf %y, %y : tensor<64x32xf16, #dot_a>
    %rx = tile.local_load %bx [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %y2, %rx : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 32], f16, #sr>
  %r2:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r, %it = %c0) -> (tensor<64x32xf16, #dot_a>, i32) : i32 {
    %y = arith.addf %acc, %acc : tensor<64x32xf16, #dot_a>
    %s = arith.remui %it, %c3 : i32
    %v = tile.smem_slot %ring[%s] : !tile.smem<[3, 64, 32], f16, #sr> -> !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %v {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %v {pending = 1 : i32} : !tile.smem<[64, 32], f16, #sa>
    %y2 = arith.mulf %y, %y : tensor<64x32xf16, #dot_a>
    %rx = tile.local_load %v [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %t = arith.addf %y2, %rx : tensor<64x32xf16, #dot_a>
    %it1 = arith.addi %it, %c1 : i32
    scf.yield %t, %it1 : tensor<64x32xf16, #dot_a>, i32
  } {tile.pipelined}
  tile.async_wait all {pending = 0 : i32}
  return %r2#0 : tensor<64x32xf16, #dot_a>
}
