// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers -verify-diagnostics | FileCheck %s
// Running the pass a second time inserts nothing: the same checks hold.
// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --tile-insert-barriers -verify-diagnostics | FileCheck %s
// Without tile-allocate-shared-memory, no buffer has an offset.
// RUN: not tile-opt %s -split-input-file --tile-insert-barriers 2>&1 >/dev/null | FileCheck %s --check-prefix=NOALLOC

// tile-insert-barriers puts a tile.barrier (whole thread block) before an op
// whose shared memory access conflicts with one made by some thread since
// the last barrier: a read of bytes written (RAW), a write of bytes read
// (WAR) or written (WAW). tile.local_alloc writes its buffer, tile.local_load
// reads it; an op with scratch memory (a layout conversion through shared
// memory, a reduction across warps) reads and writes its scratch range; an
// async copy writes its buffer when issued, and its data counts as written
// at the tile.async_wait that completes it. Loops are analysed to a fixed
// point; both branches of an scf.if start from the state before it. A named
// barrier (with an id) ends no hazard. tile.wgmma reads its shared operands
// through the async proxy: data written by the threads (tile.local_alloc,
// async copies landed at their wait) since the last tile.fence_async_shared
// needs a fence, then a barrier, before a wgmma reads it; a barrier placed
// while data some wgmma of the function reads is unfenced gets the fence.
// A hazard between what precedes a loop and what the loop touches gets its
// barrier (and fence) before the loop. TMA copies (tile.tma_load) write their
// buffer through the async proxy and read their mbarrier; a
// tile.mbarrier_wait reads the mbarrier and shows the data of the buffers it
// names to every waiting thread, for either proxy: no barrier and no fence
// after it. tile.mbarrier_init and tile.mbarrier_inval write the mbarriers.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// RAW: the buffer written by tile.local_alloc is read by other threads: a
// barrier before the first read, none between the two reads. WAR: the
// conversion's 16384 bytes of scratch reuse the memory of %a (offset 0),
// dead after its reads: a barrier before the conversion.
// NOALLOC: error: 'tile.local_alloc' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @raw_war
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.convert_layout %{{.*}} {tile.smem_offset = 0 : i32} : tensor<64x64xf32, #mma>
// CHECK-NEXT:  return
func.func @raw_war(%x: tensor<64x32xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x64xf32, #blocked2>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %r1 = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %r2 = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked2>
  return %r1, %r2, %c : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x64xf32, #blocked2>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Disjoint buffers (%a at 0, %b at 4096, both live): writing %b needs no
// barrier after writing or reading %a; reading %b needs one after %b was
// written; reading %a again needs none.
// NOALLOC: error: 'tile.local_alloc' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @disjoint
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32}
// CHECK-NEXT:  %[[C:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 8192 : i32}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  tile.local_load %[[C]]
// CHECK-NEXT:  return
func.func @disjoint(%x: tensor<64x32xf16, #blocked>) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %b = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %c = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %ra2 = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %rc = tile.local_load %c [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %ra, %rb, %ra2, %rc : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Async copies: no barrier between a copy and its wait (the data is not
// there yet for anyone), one between the wait and the first read (the wait
// shows each thread only its own part of the copy). Copying into the buffer
// again after it was read is a WAR: a barrier before the copy.
// NOALLOC: error: 'tile.async_copy' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @async_copy
// CHECK-NEXT:  %[[B:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[B]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  tile.async_wait %[[B]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[B]]
// CHECK-NEXT:  tile.async_wait %[[B]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  return
func.func @async_copy(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #dot_a>, %m: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %b = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %b {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %y = arith.addf %x, %x : tensor<64x32xf16, #dot_a>
  tile.async_wait %b : !tile.smem<[64, 32], f16, #sa>
  %r1 = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %r2 = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  tile.async_copy %A[%m, %m], %b {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %b : !tile.smem<[64, 32], f16, #sa>
  %r3 = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %s = arith.addf %r1, %r2 : tensor<64x32xf16, #dot_a>
  %t = arith.addf %s, %r3 : tensor<64x32xf16, #dot_a>
  return %t : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// In a loop, the read at the end of one iteration and the write at the
// start of the next (same buffer) conflict: a barrier at the top of the
// body, besides the RAW one inside it. Nothing after the loop.
// NOALLOC: error: 'tile.local_alloc' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @loop_carried
// CHECK:       scf.for
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    %[[T:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.local_load %[[T]]
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @loop_carried(%x: tensor<64x32xf16, #blocked>, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %t = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
    %rt = tile.local_load %t [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %v = arith.addf %acc, %rt : tensor<64x32xf16, #dot_a>
    scf.yield %v : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#ra = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#rb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>

// A loop as tile-pipeline makes it (3 stages): waits for the current slots,
// refills of the slots the previous iteration read, reads of the current
// slots. Exactly one barrier per iteration, between the waits and the first
// refill: it shows the landed data to every thread (RAW) and ends the
// previous iteration's reads of the slots being refilled (WAR); the reads
// after the refills need none (a slot stands for its whole ring, and the
// refills are still in flight). None in the prologue. After the loop, the
// final wait lands the (predicated-off) copies, and the conversion's scratch
// reuses ring A's memory: one barrier before it.
// NOALLOC: error: 'tile.async_copy' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @pipelined
// CHECK-SAME:  tile.shared_bytes = 24576 : i32
// CHECK-NOT:   tile.barrier
// CHECK:       scf.for
// CHECK-NOT:     tile.barrier
// CHECK:         tile.async_wait %{{.*}} {pending = 3 : i32}
// CHECK-NEXT:    tile.async_wait %{{.*}} {pending = 2 : i32}
// CHECK-NOT:     tile.barrier
// CHECK:         tile.smem_slot
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    tile.smem_slot
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    tile.local_load
// CHECK-NEXT:    tile.local_load
// CHECK-NEXT:    tile.mma
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.convert_layout %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  return
func.func @pipelined(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x64xf32, #blocked2> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[3, 64, 32], f16, #ra>
  %rb = tile.smem_alloc : !tile.smem<[3, 32, 64], f16, #rb>
  %p0 = arith.cmpi slt, %c0, %n : i32
  %sa0 = tile.smem_slot %ra[%c0] : !tile.smem<[3, 64, 32], f16, #ra> -> !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %c0], %sa0 if %p0 {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %sb0 = tile.smem_slot %rb[%c0] : !tile.smem<[3, 32, 64], f16, #rb> -> !tile.smem<[32, 64], f16, #sb>
  tile.async_copy %B[%c0, %m], %sb0 if %p0 {layout = #blocked1, shape = array<i64: 32, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[32, 64], f16, #sb>
  %p1 = arith.cmpi slt, %c1, %n : i32
  %sa1 = tile.smem_slot %ra[%c1] : !tile.smem<[3, 64, 32], f16, #ra> -> !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %c1], %sa1 if %p1 {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %sb1 = tile.smem_slot %rb[%c1] : !tile.smem<[3, 32, 64], f16, #rb> -> !tile.smem<[32, 64], f16, #sb>
  tile.async_copy %B[%c1, %m], %sb1 if %p1 {layout = #blocked1, shape = array<i64: 32, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[32, 64], f16, #sb>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c3 : i32
    %va = tile.smem_slot %ra[%s] : !tile.smem<[3, 64, 32], f16, #ra> -> !tile.smem<[64, 32], f16, #sa>
    %vb = tile.smem_slot %rb[%s] : !tile.smem<[3, 32, 64], f16, #rb> -> !tile.smem<[32, 64], f16, #sb>
    tile.async_wait %va {pending = 3 : i32} : !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %vb {pending = 2 : i32} : !tile.smem<[32, 64], f16, #sb>
    %k2 = arith.addi %k, %c2 : i32
    %p = arith.cmpi slt, %k2, %n : i32
    %w = arith.addi %it, %c2 : i32
    %ws = arith.remui %w, %c3 : i32
    %wa = tile.smem_slot %ra[%ws] : !tile.smem<[3, 64, 32], f16, #ra> -> !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k2], %wa if %p {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    %wb = tile.smem_slot %rb[%ws] : !tile.smem<[3, 32, 64], f16, #rb> -> !tile.smem<[32, 64], f16, #sb>
    tile.async_copy %B[%k2, %m], %wb if %p {layout = #blocked1, shape = array<i64: 32, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[32, 64], f16, #sb>
    %a = tile.local_load %va [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %b = tile.local_load %vb [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<32x64xf16, #dot_b>
    %d = tile.mma %a, %b, %acc : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %it1 = arith.addi %it, %c1 : i32
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.async_wait all {pending = 0 : i32}
  %o = tile.convert_layout %r#0 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked2>
  return %o : tensor<64x64xf32, #blocked2>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Both branches of an scf.if start from the state before it: each reads
// what the local_alloc wrote, so each gets its own barrier (the else branch
// does not inherit the then branch's).
// NOALLOC: error: 'tile.local_alloc' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @branches
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc
// CHECK-NEXT:  scf.if
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.local_load %[[A]]
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } else {
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.local_load %[[A]]
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  }
func.func @branches(%x: tensor<64x32xf16, #blocked>, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %s = scf.if %p -> (tensor<64x32xf16, #dot_a>) {
    %r1 = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    scf.yield %r1 : tensor<64x32xf16, #dot_a>
  } else {
    %r2 = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %r3 = arith.addf %r2, %r2 : tensor<64x32xf16, #dot_a>
    scf.yield %r3 : tensor<64x32xf16, #dot_a>
  }
  return %s : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// After an scf.if, the state joins both paths: the copy landed in the then
// branch makes the read after the scf.if need a barrier.
// NOALLOC: error: 'tile.async_copy' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @branch_join
// CHECK-NEXT:  %[[B:.*]] = tile.smem_alloc
// CHECK-NEXT:  scf.if
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[B]]
// CHECK-NEXT:    tile.async_wait %[[B]]
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[B]]
func.func @branch_join(%A: !tile.global<f16, 2>, %m: i32, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %b = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  scf.if %p {
    tile.async_copy %A[%m, %m], %b {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %b : !tile.smem<[64, 32], f16, #sa>
  }
  %r = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A named barrier synchronizes only the threads that share it: it ends no
// hazard of the whole block, and a tile.barrier is still inserted. A
// whole-block barrier already there ends the hazard: none is added.
// NOALLOC: error: 'tile.local_alloc' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @named_barrier
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc
// CHECK-NEXT:  tile.barrier {id = 1 : i32, num_threads = 64 : i32}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  return
// CHECK-LABEL: func.func @existing_barrier
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  return
func.func @named_barrier(%x: tensor<64x32xf16, #blocked>) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  tile.barrier {id = 1 : i32, num_threads = 64 : i32}
  %r = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %r : tensor<64x32xf16, #dot_a>
}
func.func @existing_barrier(%x: tensor<64x32xf16, #blocked>) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  tile.barrier
  %r = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>

// Two reductions across warps (axis 0: one partial per warp): each writes
// its partials, passes a barrier of its own (its lowering's) and reads
// them. The first's scratch stays live until the next op that uses scratch
// (tile-allocate-shared-memory), so the second writes other memory and
// needs no barrier before it. The reduction along axis 1 (within warps)
// uses no shared memory.
// NOALLOC: error: 'tile.reduce' op needs scratch shared memory that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @reductions
// CHECK-SAME:  tile.shared_bytes = 2048 : i32
// CHECK-NEXT:  tile.reduce sum %{{.*}} {axis = 0 : i32, tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.reduce sum %{{.*}} {axis = 1 : i32}
// CHECK-NEXT:  tile.reduce max %{{.*}} {axis = 0 : i32, tile.smem_offset = 1024 : i32}
// CHECK-NEXT:  return
func.func @reductions(%acc: tensor<64x64xf32, #mma>) -> (tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>) attributes {tile.num_warps = 4 : i32} {
  %r0 = tile.reduce sum %acc {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  %r1 = tile.reduce sum %acc {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>
  %r2 = tile.reduce max %acc {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  return %r0, %r2, %r1 : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>

// One reduction across warps a trip: the next trip's writes its partials
// where this trip's are still being read (the same scratch: nothing else
// uses scratch in the loop), so a barrier comes first; so does the
// reduction after the loop, in the same memory (the loop's reduction is
// live to the end of the body only). Then a conversion through scratch
// right after a reduction: after the reduction's own barrier only its
// reads are pending, and the conversion's scratch is other memory.
// CHECK-LABEL: func.func @reduction_a_trip
// CHECK-SAME:  tile.shared_bytes = 1280 : i32
// CHECK:       scf.for
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.reduce sum %{{.*}} {axis = 0 : i32, tile.smem_offset = 0 : i32}
// CHECK:       tile.barrier{{$}}
// CHECK-NEXT:  tile.reduce max %{{.*}} {axis = 0 : i32, tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.convert_layout %{{.*}} {tile.smem_offset = 1024 : i32}
// CHECK-NEXT:  return
func.func @reduction_a_trip(%acc: tensor<64x64xf32, #mma>, %n: index) -> (tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>) {
    %r = tile.reduce sum %acc {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
    %b = arith.addf %a, %r : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
    scf.yield %b : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  }
  %m = tile.reduce max %acc {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  %c = tile.convert_layout %m : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>> -> tensor<64xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  return %s, %c : tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A buffer that no tile.smem_alloc or tile.local_alloc of the function
// allocated (here a function argument) has no offset, even after
// tile-allocate-shared-memory.
// NOALLOC: error: 'tile.local_load' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
func.func @no_offset(%b: !tile.smem<[64, 32], f16, #sa>) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{'tile.local_load' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first}}
  %r = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// SS wgmma of buffers filled by cp.async: after the waits, a fence (the
// copies wrote through the generic proxy) and a barrier (each thread's wait
// covers only its own copies), one for both buffers; the second wgmma of the
// same buffers needs neither.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_async_copy
// CHECK:       %[[A:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[A]]
// CHECK-NEXT:  %[[B:.*]] = tile.smem_alloc {tile.smem_offset = 16384 : i32}
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[B]]
// CHECK-NEXT:  tile.async_wait %[[A]]
// CHECK-NEXT:  tile.async_wait %[[B]]
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma %[[A]], %[[B]]
// CHECK-NEXT:  tile.wgmma %[[A]], %[[B]], %[[D]]
// CHECK-NEXT:  return
func.func @wgmma_async_copy(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %a = tile.smem_alloc : !tile.smem<[128, 64], f16, #sw>
  tile.async_copy %A[%m, %m], %a {layout = #blocked, shape = array<i64: 128, 64>} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sw>
  %b = tile.smem_alloc : !tile.smem<[64, 128], f16, #sw>
  tile.async_copy %B[%m, %m], %b {layout = #blocked1, shape = array<i64: 64, 128>} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sw>
  tile.async_wait %a : !tile.smem<[128, 64], f16, #sw>
  tile.async_wait %b : !tile.smem<[64, 128], f16, #sw>
  %d = tile.wgmma %a, %b, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  %e = tile.wgmma %a, %b, %d : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  return %e : tensor<128x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// RS wgmma of a B stored with tile.local_alloc: fence and barrier before
// the wgmma (A, in registers, is no shared memory access). Then %c, reusing
// B's memory (B is dead), is written after the wgmma read it: a barrier
// (WAR), without a fence (nothing is unfenced). The barrier before %c is
// read (RAW) gets a fence: the analysis tracks bytes, and %c's are bytes a
// wgmma reads.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_local_alloc
// CHECK:       %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.wgmma %{{.*}}, %[[B]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  %[[C:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[C]]
// CHECK-NEXT:  return
func.func @wgmma_local_alloc(%x: tensor<64x128xf16, #blocked1>, %p: tensor<128x64xf16, #dot_a>) -> (tensor<128x128xf32, #mma>, tensor<64x128xf16, #blocked1>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %b = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  %d = tile.wgmma %p, %b, %z : tensor<128x64xf16, #dot_a>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  %c = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  %r = tile.local_load %c [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blocked1>
  return %d, %r : tensor<128x128xf32, #mma>, tensor<64x128xf16, #blocked1>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A barrier already there shows the data to the other threads' generic
// proxy only: the wgmma still gets a fence and a barrier. A fence followed
// by a barrier already there is enough: nothing is added.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_existing_barrier
// CHECK:       tile.local_alloc
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.wgmma
// CHECK-NEXT:  return
// CHECK-LABEL: func.func @wgmma_existing_fence
// CHECK:       tile.local_alloc
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.wgmma
// CHECK-NEXT:  return
func.func @wgmma_existing_barrier(%x: tensor<64x128xf16, #blocked1>, %p: tensor<128x64xf16, #dot_a>) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %b = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  tile.barrier
  %d = tile.wgmma %p, %b, %z : tensor<128x64xf16, #dot_a>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  return %d : tensor<128x128xf32, #mma>
}
func.func @wgmma_existing_fence(%x: tensor<64x128xf16, #blocked1>, %p: tensor<128x64xf16, #dot_a>) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %b = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  tile.fence_async_shared
  tile.barrier
  %d = tile.wgmma %p, %b, %z : tensor<128x64xf16, #dot_a>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  return %d : tensor<128x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A buffer read both by tile.local_load and by a wgmma: the barrier the
// local_load needs (RAW) comes with the fence, since a wgmma reads the
// buffer later; the wgmma then needs nothing. A buffer no wgmma reads gets
// a barrier without a fence.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_shared_barrier
// CHECK:       %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  tile.wgmma %{{.*}}, %[[B]]
// CHECK-NEXT:  %[[C:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 16384 : i32}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.local_load %[[C]]
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  return
func.func @wgmma_shared_barrier(%x: tensor<64x128xf16, #blocked1>, %p: tensor<128x64xf16, #dot_a>) -> (tensor<128x128xf32, #mma>, tensor<64x128xf16, #blocked1>, tensor<64x128xf16, #blocked1>) attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %b = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  %r = tile.local_load %b [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blocked1>
  %d = tile.wgmma %p, %b, %z : tensor<128x64xf16, #dot_a>, !tile.smem<[64, 128], f16, #sw>, tensor<128x128xf32, #mma>
  %c = tile.local_alloc %x : tensor<64x128xf16, #blocked1> -> !tile.smem<[64, 128], f16, #sw>
  %rc = tile.local_load %c [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blocked1>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 128], f16, #sw> -> tensor<64x128xf16, #blocked1>
  return %d, %rc, %rb : tensor<128x128xf32, #mma>, tensor<64x128xf16, #blocked1>, tensor<64x128xf16, #blocked1>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The pipelined loop of @pipelined, with a wgmma reading the current slots
// in place: still exactly one barrier per iteration, between the waits and
// the first refill, and it carries the fence: it shows the landed data to
// every thread's async proxy (RAW) and ends the previous iteration's wgmma
// reads of the slots being refilled (WAR). The wgmma after the refills
// needs nothing: the refills are still in flight, not yet unfenced data.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_pipelined
// CHECK-SAME:  tile.shared_bytes = 49152 : i32
// CHECK-NOT:   tile.barrier
// CHECK-NOT:   tile.fence_async_shared
// CHECK:       scf.for
// CHECK-NOT:     tile.barrier
// CHECK:         tile.async_wait %{{.*}} {pending = 3 : i32}
// CHECK-NEXT:    tile.async_wait %{{.*}} {pending = 2 : i32}
// CHECK-NOT:     tile.barrier
// CHECK:         tile.smem_slot
// CHECK-NEXT:    tile.fence_async_shared
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    tile.smem_slot
// CHECK-NEXT:    tile.async_copy
// CHECK-NEXT:    tile.wgmma
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
// CHECK-NEXT:  return
func.func @wgmma_pipelined(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[3, 64, 64], f16, #rw>
  %rb = tile.smem_alloc : !tile.smem<[3, 64, 64], f16, #rw>
  %p0 = arith.cmpi slt, %c0, %n : i32
  %sa0 = tile.smem_slot %ra[%c0] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.async_copy %A[%m, %c0], %sa0 if %p0 {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
  %sb0 = tile.smem_slot %rb[%c0] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.async_copy %B[%c0, %m], %sb0 if %p0 {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
  %p1 = arith.cmpi slt, %c1, %n : i32
  %sa1 = tile.smem_slot %ra[%c1] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.async_copy %A[%m, %c1], %sa1 if %p1 {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
  %sb1 = tile.smem_slot %rb[%c1] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.async_copy %B[%c1, %m], %sb1 if %p1 {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c3 : i32
    %va = tile.smem_slot %ra[%s] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %vb = tile.smem_slot %rb[%s] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.async_wait %va {pending = 3 : i32} : !tile.smem<[64, 64], f16, #sw>
    tile.async_wait %vb {pending = 2 : i32} : !tile.smem<[64, 64], f16, #sw>
    %k2 = arith.addi %k, %c2 : i32
    %p = arith.cmpi slt, %k2, %n : i32
    %w = arith.addi %it, %c2 : i32
    %ws = arith.remui %w, %c3 : i32
    %wa = tile.smem_slot %ra[%ws] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.async_copy %A[%m, %k2], %wa if %p {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
    %wb = tile.smem_slot %rb[%ws] : !tile.smem<[3, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.async_copy %B[%k2, %m], %wb if %p {layout = #blocked, shape = array<i64: 64, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %va, %vb, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %it1 = arith.addi %it, %c1 : i32
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.async_wait all {pending = 0 : i32}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A TMA copy and its mbarrier, straight-line. The copy reads the barrier
// that thread 0 initialized: a barrier between the two (RAW). After the
// wait that names the buffer, neither the wgmma (async proxy) nor the
// tile.local_load (generic proxy) needs a barrier or a fence: every thread
// waited, and the copy engine wrote through the async proxy (compare
// @wgmma_async_copy, where cp.async data needs both). Copying into the
// buffer again after those reads is a WAR: a barrier (no fence: nothing the
// threads wrote is unfenced) before the second copy; its wait and the
// wgmma after it need nothing.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @tma_load_wait
// CHECK:       %[[BUF:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  %[[BARS:.*]] = tile.mbarrier_alloc {tile.smem_offset = 8192 : i32} : <1>
// CHECK-NEXT:  tile.mbarrier_init %[[BARS]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.tma_load %{{.*}}, %[[BUF]], %[[BARS]]
// CHECK-NEXT:  tile.mbarrier_wait %[[BARS]][%{{.*}}], %{{.*}}, %[[BUF]]
// CHECK-NEXT:  %[[D:.*]] = tile.wgmma %[[BUF]], %[[BUF]]
// CHECK-NEXT:  tile.local_load %[[BUF]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.tma_load %{{.*}}, %[[BUF]], %[[BARS]]
// CHECK-NEXT:  tile.mbarrier_wait %[[BARS]][%{{.*}}], %{{.*}}, %[[BUF]]
// CHECK-NEXT:  tile.wgmma %[[BUF]], %[[BUF]], %[[D]]
// CHECK-NEXT:  return
func.func @tma_load_wait(%map: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32, %c: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<1>
  tile.tma_load %map[%i, %c0], %buf, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %buf : !tile.mbarrier<1>, !tile.smem<[64, 64], f16, #sw>
  %d = tile.wgmma %buf, %buf, %c : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  %r = tile.local_load %buf [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #blocked>
  tile.tma_load %map[%i, %i], %buf, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c1, %buf : !tile.mbarrier<1>, !tile.smem<[64, 64], f16, #sw>
  %e = tile.wgmma %buf, %buf, %d : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  return %e, %r : tensor<64x64xf32, #mma>, tensor<64x64xf16, #blocked>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#rw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// The loop of @wgmma_pipelined (two stages) as tile-convert-copies-to-tma
// makes it: each ring has a ring of mbarriers, initialized after it; the
// prologue's copies are TMA copies, each iteration waits on the current
// slot's mbarrier (naming the slot), refills the next slot and runs the
// wgmma on the current one; the mbarriers are invalidated after the loop.
// One barrier after the initializations, before the first copy reads an
// mbarrier (none before the second copy: both initializations precede it).
// None before the loop: the prologue's copies are in flight, and nothing
// the threads accessed overlaps what the loop writes. In the loop, exactly
// one barrier, before the first refill: it ends the previous iteration's
// wgmma reads of the slot being refilled (WAR). The waits need none and the
// wgmma needs neither a barrier nor a fence (the landed data is visible to
// every thread that waited). After the loop, one barrier before the first
// tile.mbarrier_inval (other threads may still be reading the mbarriers),
// none before the second.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @tma_pipelined
// CHECK-SAME:  tile.shared_bytes = 32896 : i32
// CHECK-NOT:   tile.fence_async_shared
// CHECK:       %[[RA:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  %[[BA:.*]] = tile.mbarrier_alloc {tile.smem_offset = 32768 : i32} : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[BA]]
// CHECK-NEXT:  %[[RB:.*]] = tile.smem_alloc {tile.smem_offset = 16384 : i32}
// CHECK-NEXT:  %[[BB:.*]] = tile.mbarrier_alloc {tile.smem_offset = 32784 : i32} : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[BB]]
// CHECK-NEXT:  arith.cmpi
// CHECK-NEXT:  tile.smem_slot %[[RA]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.tma_load %{{.*}}, %[[BA]][%{{.*}}] if
// CHECK-NEXT:  tile.smem_slot %[[RB]]
// CHECK-NEXT:  tile.tma_load %{{.*}}, %[[BB]][%{{.*}}] if
// CHECK-NEXT:  scf.for
// CHECK-NOT:     tile.barrier
// CHECK-NOT:     tile.fence_async_shared
// CHECK:         tile.mbarrier_wait %[[BA]]
// CHECK-NEXT:    tile.mbarrier_wait %[[BB]]
// CHECK-NOT:     tile.barrier
// CHECK:         %[[WA:.*]] = tile.smem_slot %[[RA]]
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.tma_load %{{.*}}, %[[WA]], %[[BA]]
// CHECK-NEXT:    %[[WB:.*]] = tile.smem_slot %[[RB]]
// CHECK-NEXT:    tile.tma_load %{{.*}}, %[[WB]], %[[BB]]
// CHECK-NEXT:    tile.wgmma
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.mbarrier_inval %[[BB]]
// CHECK-NEXT:  tile.mbarrier_inval %[[BA]]
// CHECK-NEXT:  return
func.func @tma_pipelined(%mA: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mB: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %m: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ra = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %ba = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %ba {count = 1 : i32} : !tile.mbarrier<2>
  %rb = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #rw>
  %bb = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %bb {count = 1 : i32} : !tile.mbarrier<2>
  %p0 = arith.cmpi sgt, %n, %c0 : i32
  %sa0 = tile.smem_slot %ra[%c0] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %mA[%m, %c0], %sa0, %ba[%c0] if %p0 : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
  %sb0 = tile.smem_slot %rb[%c0] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %mB[%c0, %m], %sb0, %bb[%c0] if %p0 : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %it = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
    %s = arith.remui %it, %c2 : i32
    %vb = tile.smem_slot %rb[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %va = tile.smem_slot %ra[%s] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %fills = arith.divui %it, %c2 : i32
    %phase = arith.andi %fills, %c1 : i32
    tile.mbarrier_wait %ba[%s], %phase, %va : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_wait %bb[%s], %phase, %vb : !tile.mbarrier<2>, !tile.smem<[64, 64], f16, #sw>
    %k1 = arith.addi %k, %c1 : i32
    %more = arith.cmpi slt, %k1, %n : i32
    %it1 = arith.addi %it, %c1 : i32
    %ws = arith.remui %it1, %c2 : i32
    %wa = tile.smem_slot %ra[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    %kk = arith.muli %k1, %c64 : i32
    tile.tma_load %mA[%m, %kk], %wa, %ba[%ws] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %wb = tile.smem_slot %rb[%ws] : !tile.smem<[2, 64, 64], f16, #rw> -> !tile.smem<[64, 64], f16, #sw>
    tile.tma_load %mB[%kk, %m], %wb, %bb[%ws] if %more : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<2>
    %d = tile.wgmma %va, %vb, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %it1 : tensor<64x64xf32, #mma>, i32
  } {tile.pipelined}
  tile.mbarrier_inval %bb : !tile.mbarrier<2>
  tile.mbarrier_inval %ba : !tile.mbarrier<2>
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A hazard between what precedes a loop and what its body reads gets its
// fence and barrier once, before the loop, not in every iteration: a B
// stored with tile.local_alloc, and an A and B filled by cp.async and waited
// for, before a loop whose wgmma reads them. The loop bodies keep no
// barrier and no fence.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @hazard_before_loop
// CHECK:       %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.wgmma %{{.*}}, %[[B]], %{{.*}}
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  return
// CHECK-LABEL: func.func @async_hazard_before_loop
// CHECK:       %[[A:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[A]]
// CHECK-NEXT:  tile.async_wait %[[A]]
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.wgmma %[[A]], %[[A]], %{{.*}}
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @hazard_before_loop(%x: tensor<64x64xf16, #blocked>, %p: tensor<64x64xf16, #dot_a>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %b = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %p, %b, %acc : tensor<64x64xf16, #dot_a>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
func.func @async_hazard_before_loop(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %a = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  tile.async_copy %A[%m, %c0], %a {layout = #blocked, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sw>
  tile.async_wait %a : !tile.smem<[64, 64], f16, #sw>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// An async wgmma reads its operands until the tile.wgmma_wait that names
// them: a barrier between the wgmma and the wait does not order the copy
// into the buffer after the wait (the threads' multiplies may still be
// reading it then); the copy gets its own barrier, after the wait.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @wgmma_wait_reads
// CHECK:       %[[BUF:.*]] = tile.smem_alloc
// CHECK:       tile.wgmma async %[[BUF]], %[[BUF]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.wgmma_wait 0, %{{.*}} : tensor<64x64xf32, #mma> reads %[[BUF]]
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.tma_load %{{.*}}, %[[BUF]]
func.func @wgmma_wait_reads(%map: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<1>
  %d = tile.wgmma async %buf, %buf, %c : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  tile.barrier
  %w = tile.wgmma_wait 0, %d : tensor<64x64xf32, #mma> reads %buf : !tile.smem<[64, 64], f16, #sw>
  tile.tma_load %map[%i, %c0], %buf, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #sw>, !tile.mbarrier<1>
  return %w : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sf = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// A staging buffer refilled every trip (tile.local_store) after the
// previous trip's TMA store has read it (tile.tma_store_wait, in the
// issuing thread): the other threads may write once a barrier follows the
// wait. The trip has a barrier already (the wgmma reads what local_alloc
// wrote): the wait moves before it, and the write needs none of its own.
// Two barriers a trip, not three.
// CHECK-LABEL: func.func @tma_store_wait_hoisted
// CHECK:       %[[STAGE:.*]] = tile.smem_alloc
// CHECK:       scf.for
// CHECK-NEXT:    %[[A:.*]] = tile.local_alloc
// CHECK-NEXT:    tile.tma_store_wait %[[STAGE]]
// CHECK-NEXT:    tile.fence_async_shared
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    %[[D:.*]] = tile.wgmma %[[A]], %[[A]]
// CHECK-NEXT:    tile.local_store %[[D]], %[[STAGE]]
// CHECK-NEXT:    tile.fence_async_shared
// CHECK-NEXT:    tile.barrier{{$}}
// CHECK-NEXT:    tile.tma_store %{{.*}}, %[[STAGE]]
// CHECK-NEXT:  }
func.func @tma_store_wait_hoisted(%map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %x: tensor<64x64xf16, #mma>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %stage = tile.smem_alloc : !tile.smem<[64, 64], f32, #sf>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %a = tile.local_alloc %x : tensor<64x64xf16, #mma> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #sf>
    tile.local_store %d, %stage : tensor<64x64xf32, #mma>, !tile.smem<[64, 64], f32, #sf>
    tile.tma_store %map[%i, %c0], %stage : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #sf>
  }
  tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #sf>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sf = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// The same with a counted wait (all but the newest group) after a copy of
// another buffer: above that copy it would count one group fewer after the
// one it waits for, so it stays where it is.
// CHECK-LABEL: func.func @counted_wait_not_hoisted
// CHECK:       %[[STAGE:.*]] = tile.smem_alloc
// CHECK:       %[[OTHER:.*]] = tile.smem_alloc
// CHECK:       scf.for
// CHECK-NOT:     tile.tma_store_wait
// CHECK:         tile.tma_store %{{.*}}, %[[OTHER]]
// CHECK-NEXT:    tile.tma_store_wait %[[STAGE]] : {{.*}} {pending = 1 : i32}
// CHECK:         tile.local_store %{{.*}}, %[[STAGE]]
func.func @counted_wait_not_hoisted(%map: !tile.tensor_map<[64, 32], f32, swizzle = 128>, %x: tensor<64x64xf16, #mma>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %stage = tile.smem_alloc : !tile.smem<[64, 64], f32, #sf>
  %other = tile.smem_alloc : !tile.smem<[64, 64], f32, #sf>
  tile.local_store %z, %other : tensor<64x64xf32, #mma>, !tile.smem<[64, 64], f32, #sf>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %a = tile.local_alloc %x : tensor<64x64xf16, #mma> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    tile.tma_store %map[%i, %c1], %other : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #sf>
    tile.tma_store_wait %stage : !tile.smem<[64, 64], f32, #sf> {pending = 1 : i32}
    tile.local_store %d, %stage : tensor<64x64xf32, #mma>, !tile.smem<[64, 64], f32, #sf>
    tile.tma_store %map[%i, %c0], %stage : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #sf>
  }
  tile.tma_store_wait %stage, %other : !tile.smem<[64, 64], f32, #sf>, !tile.smem<[64, 64], f32, #sf>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// P stored for P V in a loop by two warpgroups (8 warps, 128 rows): each
// warpgroup writes rows 64g to 64g + 63 of the buffer (its accumulator's)
// and its wgmma reads the same rows as A. The store before the multiply
// (RAW, through the async proxy: with the fence) and the next trip's store
// after it (WAR) need only each warpgroup's own barrier. The second loop's
// buffer is another allocation over the same bytes, whose rows the other
// warpgroup may have used: the block's barrier between the loops.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @warpgroup_parts
// CHECK:       tile.local_alloc
// CHECK:       tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.barrier {warpgroup}
// CHECK-NEXT:    %[[P:.*]] = tile.local_alloc
// CHECK-NEXT:    tile.fence_async_shared
// CHECK-NEXT:    tile.barrier {warpgroup}
// CHECK-NEXT:    tile.wgmma async %[[P]]
// CHECK-NEXT:    tile.wgmma_wait
// CHECK-NEXT:    scf.yield
// CHECK:       tile.barrier{{$}}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.barrier {warpgroup}
// CHECK-NEXT:    tile.local_alloc
// CHECK-NEXT:    tile.fence_async_shared
// CHECK-NEXT:    tile.barrier {warpgroup}
// CHECK:       return
func.func @warpgroup_parts(%x: tensor<128x64xf16, #mma>, %y: tensor<64x64xf16, #blocked>, %n: i32) -> tensor<128x64xf32, #mma> attributes {tile.num_warps = 8 : i32} {
  %b = tile.local_alloc %y : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #mma>) : i32 {
    %p = tile.local_alloc %x : tensor<128x64xf16, #mma> -> !tile.smem<[128, 64], f16, #sw>
    %d = tile.wgmma async %p, %b, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
    %w = tile.wgmma_wait 0, %d : tensor<128x64xf32, #mma> reads %p : !tile.smem<[128, 64], f16, #sw>
    scf.yield %w : tensor<128x64xf32, #mma>
  }
  %q = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<128x64xf32, #mma>) : i32 {
    %p = tile.local_alloc %x : tensor<128x64xf16, #mma> -> !tile.smem<[128, 64], f16, #sw>
    %d = tile.wgmma async %p, %b, %acc : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
    %w = tile.wgmma_wait 0, %d : tensor<128x64xf32, #mma> reads %p : !tile.smem<[128, 64], f16, #sw>
    scf.yield %w : tensor<128x64xf32, #mma>
  }
  return %q : tensor<128x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The same buffer also read back in a layout whose warps each hold some of
// every row (warps along the columns): every warpgroup reads the other's
// rows, so the block's barriers, as for any buffer.
// NOALLOC: error: 'tile.wgmma' op uses a shared memory buffer that has no offset: run tile-allocate-shared-memory first
// CHECK-LABEL: func.func @warpgroup_parts_not
// CHECK:       tile.local_alloc
// CHECK:       tile.local_alloc
// CHECK-NEXT:  tile.fence_async_shared
// CHECK-NEXT:  tile.barrier{{$}}
// CHECK-NEXT:  tile.wgmma
// CHECK-NEXT:  tile.wgmma_wait
// CHECK-NEXT:  tile.local_load
// CHECK-NEXT:  return
func.func @warpgroup_parts_not(%x: tensor<128x64xf16, #mma>, %y: tensor<64x64xf16, #blocked>) -> (tensor<128x64xf32, #mma>, tensor<128x64xf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]>>) attributes {tile.num_warps = 8 : i32} {
  %b = tile.local_alloc %y : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
  %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
  %p = tile.local_alloc %x : tensor<128x64xf16, #mma> -> !tile.smem<[128, 64], f16, #sw>
  %d = tile.wgmma async %p, %b, %z : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<128x64xf32, #mma>
  %w = tile.wgmma_wait 0, %d : tensor<128x64xf32, #mma> reads %p : !tile.smem<[128, 64], f16, #sw>
  %l = tile.local_load %p [0, 0] : !tile.smem<[128, 64], f16, #sw> -> tensor<128x64xf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]>>
  return %w, %l : tensor<128x64xf32, #mma>, tensor<128x64xf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]>>
}
