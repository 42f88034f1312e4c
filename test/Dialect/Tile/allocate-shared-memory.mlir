// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory | FileCheck %s

// tile-allocate-shared-memory gives every shared memory buffer of a function
// (tile.smem_alloc, tile.local_alloc, tile.mbarrier_alloc, and the scratch
// memory of a tile.convert_layout that moves data between threads and of a
// tile.reduce across warps) a byte offset, tile.smem_offset, and the
// function the total, tile.shared_bytes (a multiple of 128). A buffer is
// live from its definition to its last use; a use inside an op of the
// buffer's block (a loop) counts as a use at the end of that op; uses of a
// ring's slots (tile.smem_slot) and of a permuted view (tile.smem_permute)
// are uses of the ring or buffer; scratch memory is live
// only during its op. Buffers live at the same time get disjoint ranges, at
// offsets that are multiples of 128 (of 8 for mbarriers, 8 bytes each),
// placed first fit, largest first (ties in program order). A buffer in a
// wgmma/TMA swizzled layout (#tile.shared with `block`) starts at a multiple
// of its swizzle pattern, 8 rows of the swizzle width: 1024 bytes for
// 128-byte swizzles, 512 for 64-byte ones.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#ss = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>

// Four buffers live together: two of 64 x 32 x 2 = 4096 bytes (placed first,
// at 0 and 4096) and two of 8 x 4 x 2 = 64 bytes, at 8192 and, aligned to
// 128, 8320; the total, 8384, rounds up to 8448.
// CHECK-LABEL: func.func @overlapping
// CHECK-SAME:  attributes {tile.num_warps = 4 : i32, tile.shared_bytes = 8448 : i32}
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> <[64, 32], f16
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 8192 : i32} : tensor<8x4xf16, #blocked> -> <[8, 4], f16
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 8320 : i32} : tensor<8x4xf16, #blocked> -> <[8, 4], f16
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32} : tensor<64x32xf16, #blocked> -> <[64, 32], f16
// CHECK-NOT:   tile.smem_offset
// CHECK:       return
func.func @overlapping(%x: tensor<64x32xf16, #blocked>, %y: tensor<8x4xf16, #blocked>) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<8x4xf16, #blocked>, tensor<8x4xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %s1 = tile.local_alloc %y : tensor<8x4xf16, #blocked> -> !tile.smem<[8, 4], f16, #ss>
  %s2 = tile.local_alloc %y : tensor<8x4xf16, #blocked> -> !tile.smem<[8, 4], f16, #ss>
  %b = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %r1 = tile.local_load %s1 [0, 0] : !tile.smem<[8, 4], f16, #ss> -> tensor<8x4xf16, #blocked>
  %r2 = tile.local_load %s2 [0, 0] : !tile.smem<[8, 4], f16, #ss> -> tensor<8x4xf16, #blocked>
  return %ra, %rb, %r1, %r2 : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<8x4xf16, #blocked>, tensor<8x4xf16, #blocked>
}

// -----

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#st = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// A buffer read through a permuted view after the next is allocated is live
// until that read: the two get disjoint memory (without the view's use, the
// first would be dead at the second's allocation and share its offset).
// CHECK-LABEL: func.func @permuted_view
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.smem_permute
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32}
func.func @permuted_view(%x: tensor<64x32xf16, #blocked>) -> (tensor<32x64xf16, #dot_a>, tensor<64x32xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %t = tile.smem_permute %a [1, 0] : !tile.smem<[64, 32], f16, #sa> -> !tile.smem<[32, 64], f16, #st>
  %b = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %ra = tile.local_load %t [0, 0] : !tile.smem<[32, 64], f16, #st> -> tensor<32x64xf16, #dot_a>
  return %ra, %rb : tensor<32x64xf16, #dot_a>, tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A buffer last read before the next is allocated shares its memory: both at
// 0. The larger one (64 x 64 x 2 = 8192 bytes) sets the total.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK-NEXT:  %[[A:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32} : <[64, 32], f16
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[A]]
// CHECK-NEXT:  tile.async_wait %[[A]]
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32} : tensor<64x64xf16, #blocked> -> <[64, 64], f16
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  return
func.func @reuse(%A: !tile.global<f16, 2>, %x: tensor<64x64xf16, #blocked>, %m: i32) -> (tensor<64x32xf16, #dot_a>, tensor<64x64xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %m], %a {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %a : !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %b = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sa>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #sa> -> tensor<64x64xf16, #dot_a>
  return %ra, %rb : tensor<64x32xf16, #dot_a>, tensor<64x64xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// %q is defined before the loop and read at the top of its body: it is live
// for the whole loop, so %t, allocated in the body after that read, cannot
// take its memory (the next iteration reads %q again). %after, allocated
// after the loop, reuses it.
// CHECK-LABEL: func.func @loop
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK:       %[[Q:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.local_load %[[Q]]
// CHECK-NEXT:    %[[T:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32}
// CHECK-NEXT:    tile.local_load %[[T]]
// CHECK:         scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[AFTER:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.local_load %[[AFTER]]
func.func @loop(%x: tensor<64x32xf16, #blocked>, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %q = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %rq = tile.local_load %q [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %t = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
    %rt = tile.local_load %t [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %u = arith.addf %acc, %rq : tensor<64x32xf16, #dot_a>
    %v = arith.addf %u, %rt : tensor<64x32xf16, #dot_a>
    scf.yield %v : tensor<64x32xf16, #dot_a>
  }
  %after = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %after [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %o = arith.addf %r, %ra : tensor<64x32xf16, #dot_a>
  return %o : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Buffers defined in a loop body and used only there (here in a nested
// scf.if too) are live within the iteration: %t1 is live until the end of the
// scf.if that reads it, so %t2, allocated in the branch, is disjoint; %t3,
// allocated after the scf.if, reuses %t1's memory. Nothing is live across
// the loop: %after reuses offset 0.
// CHECK-LABEL: func.func @body_buffers
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK:       scf.for
// CHECK-NEXT:    %[[T1:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      %[[T2:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32}
// CHECK-NEXT:      tile.local_load %[[T2]]
// CHECK-NEXT:      tile.local_load %[[T1]]
// CHECK:         %[[T3:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK:       %[[AFTER:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
func.func @body_buffers(%x: tensor<64x32xf16, #blocked>, %n: i32, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %t1 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
    %s = scf.if %p -> (tensor<64x32xf16, #dot_a>) {
      %t2 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
      %r2 = tile.local_load %t2 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
      %r1 = tile.local_load %t1 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
      %u = arith.addf %r1, %r2 : tensor<64x32xf16, #dot_a>
      scf.yield %u : tensor<64x32xf16, #dot_a>
    } else {
      scf.yield %acc : tensor<64x32xf16, #dot_a>
    }
    %t3 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
    %r3 = tile.local_load %t3 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %v = arith.addf %s, %r3 : tensor<64x32xf16, #dot_a>
    scf.yield %v : tensor<64x32xf16, #dot_a>
  }
  %after = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %after [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %o = arith.addf %r, %ra : tensor<64x32xf16, #dot_a>
  return %o : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Scratch memory. The #mma -> #blocked conversion of a 64x64 f32 tile goes
// through shared memory: 64 * 64 * 4 = 16384 bytes, live only during the
// conversion. It is placed first (largest) at 0, over %a, dead by then, but
// not over %b, live across it, which goes to 16384. The sum over axis 0 of a
// tile spread over 4 warps along that axis keeps one partial per warp:
// 64 * 4 * 4 = 1024 bytes, also at 0. The sum over axis 1 (one warp along
// it) and the register-only conversion of the f16 accumulator to the A
// operand layout need none.
// CHECK-LABEL: func.func @scratch
// CHECK-SAME:  tile.shared_bytes = 20480 : i32
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.local_load %[[A]]
// CHECK-NEXT:  %[[B:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 16384 : i32}
// CHECK-NEXT:  tile.convert_layout %{{.*}} {tile.smem_offset = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked1>
// CHECK-NEXT:  tile.reduce sum %{{.*}} {axis = 0 : i32, tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.reduce sum %{{.*}} {axis = 1 : i32} :
// CHECK-NEXT:  tile.convert_layout %{{.*}} : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
// CHECK-NEXT:  tile.local_load %[[B]]
// CHECK-NEXT:  return
func.func @scratch(%x: tensor<64x32xf16, #blocked>, %acc: tensor<64x64xf32, #mma>, %p: tensor<64x64xf16, #mma>) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x64xf32, #blocked2>, tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>, tensor<64x64xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %b = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked2>
  %r0 = tile.reduce sum %acc {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>
  %r1 = tile.reduce sum %acc {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>
  %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
  %rb = tile.local_load %b [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %ra, %rb, %c, %r0, %r1, %pa : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x64xf32, #blocked2>, tensor<64xf32, #tile.slice<dim = 0, parent = #mma>>, tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>, tensor<64x64xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>

// A ring of 3 x 64 x 32 x 2 = 12288 bytes, used only through its slots: the
// slot taken before the loop (%s0) is read in the loop, and the loop's slots
// are read there, so the ring is live until the end of the loop: %x1 (live
// while the ring is) and %t (in the loop) go to 12288, and %after, allocated
// after the loop, reuses offset 0. The slots get no offset of their own.
// CHECK-LABEL: func.func @ring
// CHECK-SAME:  tile.shared_bytes = 16384 : i32
// CHECK:       %[[RING:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 64, 32], f16
// CHECK-NEXT:  %[[S0:.*]] = tile.smem_slot %[[RING]][%{{.*}}] : <[3, 64, 32], f16, #{{.*}}> -> <[64, 32], f16
// CHECK-NEXT:  tile.async_copy %{{.*}}, %[[S0]]
// CHECK-NEXT:  %[[X1:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 12288 : i32}
// CHECK-NEXT:  tile.local_load %[[X1]]
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[S:.*]] = tile.smem_slot %[[RING]][%{{.*}}] : <[3, 64, 32], f16, #{{.*}}> -> <[64, 32], f16
// CHECK-NEXT:    tile.async_wait %[[S]], %[[S0]]
// CHECK-NEXT:    tile.local_load %[[S]]
// CHECK-NEXT:    %[[T:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 12288 : i32}
// CHECK-NEXT:    tile.local_load %[[T]]
// CHECK-NEXT:    tile.local_load %[[S0]]
// CHECK:         scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[AFTER:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
func.func @ring(%A: !tile.global<f16, 2>, %x: tensor<64x32xf16, #blocked>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 32], f16, #sr>
  %s0 = tile.smem_slot %ring[%c0] : !tile.smem<[3, 64, 32], f16, #sr> -> !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %A[%m, %c0], %s0 {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  %x1 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %rx = tile.local_load %x1 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %rx) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %s = tile.smem_slot %ring[%k] : !tile.smem<[3, 64, 32], f16, #sr> -> !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %s, %s0 : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %s [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %t = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
    %rt = tile.local_load %t [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %a0 = tile.local_load %s0 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %u = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    %v = arith.addf %u, %rt : tensor<64x32xf16, #dot_a>
    %w = arith.addf %v, %a0 : tensor<64x32xf16, #dot_a>
    scf.yield %w : tensor<64x32xf16, #dot_a>
  }
  %after = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %ra = tile.local_load %after [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %o = arith.addf %r, %ra : tensor<64x32xf16, #dot_a>
  return %o : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>

// A slot taken early and read late keeps its ring live until the read, not
// just until the tile.smem_slot: %x1, allocated in between, is disjoint.
// CHECK-LABEL: func.func @slot_read_late
// CHECK-SAME:  tile.shared_bytes = 16384 : i32
// CHECK-NEXT:  %[[RING:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 64, 32], f16
// CHECK-NEXT:  %[[S:.*]] = tile.smem_slot %[[RING]]
// CHECK-NEXT:  %[[X1:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 12288 : i32}
// CHECK-NEXT:  tile.local_load %[[X1]]
// CHECK-NEXT:  tile.local_load %[[S]]
// CHECK-NEXT:  %[[X2:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
func.func @slot_read_late(%x: tensor<64x32xf16, #blocked>, %i: i32) -> (tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 32], f16, #sr>
  %s = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 32], f16, #sr> -> !tile.smem<[64, 32], f16, #sa>
  %x1 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %r1 = tile.local_load %x1 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %rs = tile.local_load %s [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %x2 = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %r2 = tile.local_load %x2 [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  return %r1, %rs, %r2 : tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>, tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#sp = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#s128 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Three buffers live together: a ring of 3 x 8 x 32 x 2 = 1536 bytes at 0;
// %w, 8 x 64 halves (1024 bytes) in the 128-byte swizzle, would fit at 1536
// but must start at a multiple of 1024: 2048; %p, 8 x 32 halves (512 bytes)
// in a plain layout, placed last, takes the gap left at 1536. Total 3072.
// CHECK-LABEL: func.func @swizzle_alignment
// CHECK-SAME:  tile.shared_bytes = 3072 : i32
// CHECK-NEXT:  %[[R:.*]] = tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 8, 32], f16
// CHECK-NEXT:  %[[W:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 2048 : i32} : tensor<8x64xf16, #blocked> -> <[8, 64], f16, #shared1>
// CHECK-NEXT:  %[[P:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 1536 : i32} : tensor<8x32xf16, #blocked> -> <[8, 32], f16, #shared2>
// CHECK-NEXT:  tile.smem_slot %[[R]]
// CHECK-NEXT:  tile.local_load
// CHECK-NEXT:  tile.local_load %[[W]]
// CHECK-NEXT:  tile.local_load %[[P]]
func.func @swizzle_alignment(%x: tensor<8x64xf16, #blocked>, %y: tensor<8x32xf16, #blocked>, %i: i32) -> (tensor<8x32xf16, #blocked>, tensor<8x64xf16, #blocked>, tensor<8x32xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %r = tile.smem_alloc : !tile.smem<[3, 8, 32], f16, #sr>
  %w = tile.local_alloc %x : tensor<8x64xf16, #blocked> -> !tile.smem<[8, 64], f16, #s128>
  %p = tile.local_alloc %y : tensor<8x32xf16, #blocked> -> !tile.smem<[8, 32], f16, #sp>
  %s = tile.smem_slot %r[%i] : !tile.smem<[3, 8, 32], f16, #sr> -> !tile.smem<[8, 32], f16, #sp>
  %rs = tile.local_load %s [0, 0] : !tile.smem<[8, 32], f16, #sp> -> tensor<8x32xf16, #blocked>
  %rw = tile.local_load %w [0, 0] : !tile.smem<[8, 64], f16, #s128> -> tensor<8x64xf16, #blocked>
  %rp = tile.local_load %p [0, 0] : !tile.smem<[8, 32], f16, #sp> -> tensor<8x32xf16, #blocked>
  return %rs, %rw, %rp : tensor<8x32xf16, #blocked>, tensor<8x64xf16, #blocked>, tensor<8x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#sp = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#s64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>

// The 64-byte swizzle repeats every 8 x 64 = 512 bytes: after a ring of
// 3 x 4 x 32 x 2 = 768 bytes, %w (512 bytes) goes to 1024, not 768.
// CHECK-LABEL: func.func @swizzle_alignment_64
// CHECK-SAME:  tile.shared_bytes = 1536 : i32
// CHECK-NEXT:  tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 4, 32], f16
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 1024 : i32} : tensor<8x32xf16, #blocked> -> <[8, 32], f16, #shared1>
func.func @swizzle_alignment_64(%y: tensor<8x32xf16, #blocked>, %i: i32) -> (tensor<4x32xf16, #blocked>, tensor<8x32xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %r = tile.smem_alloc : !tile.smem<[3, 4, 32], f16, #sr>
  %w = tile.local_alloc %y : tensor<8x32xf16, #blocked> -> !tile.smem<[8, 32], f16, #s64>
  %s = tile.smem_slot %r[%i] : !tile.smem<[3, 4, 32], f16, #sr> -> !tile.smem<[4, 32], f16, #sp>
  %rs = tile.local_load %s [0, 0] : !tile.smem<[4, 32], f16, #sp> -> tensor<4x32xf16, #blocked>
  %rw = tile.local_load %w [0, 0] : !tile.smem<[8, 32], f16, #s64> -> tensor<8x32xf16, #blocked>
  return %rs, %rw : tensor<4x32xf16, #blocked>, tensor<8x32xf16, #blocked>
}

// -----

// A function without shared memory gets tile.shared_bytes = 0; every
// function is allocated on its own, from 0.
// CHECK-LABEL: func.func @none
// CHECK-SAME:  attributes {tile.shared_bytes = 0 : i32}
func.func @none(%x: tensor<16xf32>) -> tensor<16xf32> {
  return %x : tensor<16xf32>
}
// CHECK-LABEL: func.func @other
// CHECK-SAME:  tile.shared_bytes = 256 : i32
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
func.func @other(%x: tensor<8x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>>) -> tensor<8x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<8x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>> -> !tile.smem<[8, 16], f16, #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  %r = tile.local_load %a [0, 0] : !tile.smem<[8, 16], f16, #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>> -> tensor<8x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>>
  return %r : tensor<8x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#ss = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>

// tile.mbarrier_alloc: 8 bytes per barrier, at 8-byte alignment (not 128),
// live from the alloc to its last use (the tile.mbarrier_inval). All six
// buffers are live together. Largest first: %a (4096 bytes) at 0, %s (64)
// at 4096, %t (64) at the next multiple of 128, 4224, leaving a gap at
// 4160; the ring of 3 barriers (24 bytes) fills it at 4160, and the single
// barrier (8 bytes) follows it at 4184, a multiple of 8 only. The total,
// 4288, rounds up to 4352.
// CHECK-LABEL: func.func @mbarriers
// CHECK-SAME:  tile.shared_bytes = 4352 : i32
// CHECK-NEXT:  %[[A:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> <[64, 32], f16
// CHECK-NEXT:  %[[S:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 4096 : i32} : tensor<8x4xf16, #blocked> -> <[8, 4], f16
// CHECK-NEXT:  %[[BARS:.*]] = tile.mbarrier_alloc {tile.smem_offset = 4160 : i32} : <3>
// CHECK-NEXT:  tile.mbarrier_init %[[BARS]] {count = 1 : i32} : <3>
// CHECK-NEXT:  %[[T:.*]] = tile.local_alloc %{{.*}} {tile.smem_offset = 4224 : i32} : tensor<8x4xf16, #blocked> -> <[8, 4], f16
// CHECK-NEXT:  %[[ONE:.*]] = tile.mbarrier_alloc {tile.smem_offset = 4184 : i32} : <1>
// CHECK-NEXT:  tile.mbarrier_init %[[ONE]] {count = 1 : i32} : <1>
// CHECK-NOT:   tile.smem_offset
// CHECK:       tile.mbarrier_inval %[[BARS]] : <3>
// CHECK-NEXT:  tile.mbarrier_inval %[[ONE]] : <1>
// CHECK-NEXT:  return
func.func @mbarriers(%x: tensor<64x32xf16, #blocked>, %y: tensor<8x4xf16, #blocked>) -> (tensor<64x32xf16, #dot_a>, tensor<8x4xf16, #blocked>, tensor<8x4xf16, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_alloc %x : tensor<64x32xf16, #blocked> -> !tile.smem<[64, 32], f16, #sa>
  %s = tile.local_alloc %y : tensor<8x4xf16, #blocked> -> !tile.smem<[8, 4], f16, #ss>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<3>
  %t = tile.local_alloc %y : tensor<8x4xf16, #blocked> -> !tile.smem<[8, 4], f16, #ss>
  %one = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %one {count = 1 : i32} : !tile.mbarrier<1>
  %ra = tile.local_load %a [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %rs = tile.local_load %s [0, 0] : !tile.smem<[8, 4], f16, #ss> -> tensor<8x4xf16, #blocked>
  %rt = tile.local_load %t [0, 0] : !tile.smem<[8, 4], f16, #ss> -> tensor<8x4xf16, #blocked>
  tile.mbarrier_inval %bars : !tile.mbarrier<3>
  tile.mbarrier_inval %one : !tile.mbarrier<1>
  return %ra, %rs, %rt : tensor<64x32xf16, #dot_a>, tensor<8x4xf16, #blocked>, tensor<8x4xf16, #blocked>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A buffer an async wgmma reads stays live to the end of the wgmma's block
// (here, until the trip ends: no wait names it): the buffer stored after
// the wgmma in the same trip does not reuse its memory. A synchronous
// wgmma's operand would be dead after it.
// CHECK-LABEL: func.func @async_wgmma_operand
// CHECK-SAME:  tile.shared_bytes = 16384 : i32
// CHECK:         tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:    tile.wgmma async
// CHECK-NEXT:    tile.local_alloc %{{.*}} {tile.smem_offset = 8192 : i32}
func.func @async_wgmma_operand(%x: tensor<64x64xf16, #blocked>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %a = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
    %d = tile.wgmma async %a, %a, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %b = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
    %e = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #blocked>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A later wait in the wgmma's block that names the buffer ends its reads
// there (as after a loop, for tile-rotate-wgmma's last multiply): the
// buffer stored after the wait reuses its memory.
// CHECK-LABEL: func.func @async_wgmma_waited
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK:       tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
// CHECK-NEXT:  tile.wgmma async
// CHECK-NEXT:  tile.wgmma_wait 0
// CHECK-NEXT:  tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32}
func.func @async_wgmma_waited(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %a = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
  %d = tile.wgmma async %a, %a, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
  %w = tile.wgmma_wait 0, %d : tensor<64x64xf32, #mma> reads %a : !tile.smem<[64, 64], f16, #sw>
  %b = tile.local_alloc %x : tensor<64x64xf16, #blocked> -> !tile.smem<[64, 64], f16, #sw>
  %e = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #sw> -> tensor<64x64xf16, #blocked>
  return %w : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sr = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>

// Buffers of tiles whose dimensions are not powers of two are stored padded
// to powers of two: a 48 x 96 tile stored from a layout whose warps hold
// rows 48-63 (row 16 is a warp bit of #blocked, 32 a register's) takes
// 64 x 128 x 2 = 16384 bytes. A ring's stages are not padded to 4, and
// its stages, read only by tile.local_load into a blocked layout (which,
// from a buffer held short, reads the tile's own elements), take their 48
// rows: 48 x 128 x 2 = 12288 bytes each, 36864 in all.
// CHECK-LABEL: func.func @padded
// CHECK-SAME:  tile.shared_bytes = 53248 : i32
// CHECK:       tile.smem_alloc {tile.slot_bytes = 12288 : i32, tile.smem_offset = 0 : i32} : <[3, 48, 96], f16
// CHECK:       tile.local_alloc %{{.*}} {tile.smem_offset = 36864 : i32} : tensor<48x96xf16, #blocked> -> <[48, 96], f16
func.func @padded(%x: tensor<48x96xf16, #blocked>, %m: i32) -> tensor<48x96xf16, #blocked> attributes {tile.num_warps = 4 : i32} {
  %ring = tile.smem_alloc : !tile.smem<[3, 48, 96], f16, #sr>
  %s = tile.smem_slot %ring[%m] : !tile.smem<[3, 48, 96], f16, #sr> -> !tile.smem<[48, 96], f16, #sa>
  %b = tile.local_alloc %x : tensor<48x96xf16, #blocked> -> !tile.smem<[48, 96], f16, #sa>
  %r1 = tile.local_load %s [0, 0] : !tile.smem<[48, 96], f16, #sa> -> tensor<48x96xf16, #blocked>
  %r2 = tile.local_load %b [0, 0] : !tile.smem<[48, 96], f16, #sa> -> tensor<48x96xf16, #blocked>
  %r = arith.addf %r1, %r2 : tensor<48x96xf16, #blocked>
  return %r : tensor<48x96xf16, #blocked>
}

// -----

// A buffer whose tile is padded takes only what the tile reaches of its
// padded storage when every access stays within the tile (TMA copies,
// wgmma operands): the highest digit of its layout's address is cut. Here
// a ring of 64 x 160 f16 stages in 128-byte swizzled blocks of 64 columns:
// 3 blocks of 64 rows (24576 bytes, tile.slot_bytes) instead of 4 (32768), so
// the ring takes 3 x 24576 = 73728 bytes and the 128 x 64 buffer after it
// starts there (at a multiple of its 1024-byte swizzle pattern).
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 160, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// CHECK-LABEL: func.func @trimmed_ring
// CHECK-SAME:  tile.shared_bytes = 90240
// CHECK:       tile.smem_alloc {tile.slot_bytes = 24576 : i32, tile.smem_offset = 0 : i32} : <[3, 64, 160], f16
// CHECK-NEXT:  tile.smem_alloc {tile.smem_offset = 73728 : i32} : <[128, 64], f16
func.func @trimmed_ring(%mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mapa: !tile.tensor_map<[128, 64], f16, swizzle = 128>, %i: i32, %c: tensor<128x160xf32, #mma>) -> tensor<128x160xf32, #mma> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 160], f16, #ring>
  %a = tile.smem_alloc : !tile.smem<[128, 64], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<1>
  tile.tma_load %mapa[%i, %c0], %a, %bars[%c0] : !tile.tensor_map<[128, 64], f16, swizzle = 128>, !tile.smem<[128, 64], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b, %a : !tile.mbarrier<1>, !tile.smem<[64, 160], f16, #sw>, !tile.smem<[128, 64], f16, #sw>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sw>, !tile.smem<[64, 160], f16, #sw>, tensor<128x160xf32, #mma>
  return %d : tensor<128x160xf32, #mma>
}

// -----

// The same ring, a slot of which a staged store's part reuses through a
// tile.smem_view (tile-stage-in-held-slots): a view whose own elements end
// within the slot's (64 rows of 96 halves at their own width, 12288 bytes,
// of the slot's 24576) leaves the ring trimmed; one past them (a 128 x 128
// view, 32768 bytes) keeps the ring's padded storage.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 160, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#own = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 96>
// CHECK-LABEL: func.func @view_within
// CHECK:       tile.smem_alloc {tile.slot_bytes = 24576 : i32, tile.smem_offset = 0 : i32} : <[3, 64, 160], f16
// CHECK-LABEL: func.func @view_past
// CHECK:       tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 64, 160], f16
func.func @view_within(%mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mapo: !tile.tensor_map<[64, 96], f16, swizzle = 0>, %i: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 160], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b : !tile.mbarrier<1>, !tile.smem<[64, 160], f16, #sw>
  %v = tile.smem_view %b : !tile.smem<[64, 160], f16, #sw> -> !tile.smem<[64, 96], f16, #own>
  tile.tma_store %mapo[%c0, %c0], %v : !tile.tensor_map<[64, 96], f16, swizzle = 0>, !tile.smem<[64, 96], f16, #own>
  return
}
func.func @view_past(%mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %mapo: !tile.tensor_map<[128, 64], f16, swizzle = 128>, %i: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 160], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b : !tile.mbarrier<1>, !tile.smem<[64, 160], f16, #sw>
  %v = tile.smem_view %b : !tile.smem<[64, 160], f16, #sw> -> !tile.smem<[128, 128], f16, #sw>
  tile.tma_store %mapo[%c0, %c0], %v : !tile.tensor_map<[128, 64], f16, swizzle = 128>, !tile.smem<[128, 128], f16, #sw>
  return
}

// -----

// The same ring read by tile.local_load into a padded mma operand (ldmatrix,
// which reads whole 8 x 8 matrices, the padding's too): the stages keep
// their padded storage (no tile.slot_bytes): 3 x 32768 bytes.
#mma2 = #tile.mma<warpsPerCTA = [8, 1]>
#blocked = #tile.dot_operand<opIdx = 1, parent = #mma2>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// CHECK-LABEL: func.func @padding_read
// CHECK-SAME:  tile.shared_bytes = 98432
// CHECK:       tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 64, 160], f16
func.func @padding_read(%mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32) -> tensor<64x160xf16, #blocked> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 160], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b : !tile.mbarrier<1>, !tile.smem<[64, 160], f16, #sw>
  %r = tile.local_load %b [0, 0] : !tile.smem<[64, 160], f16, #sw> -> tensor<64x160xf16, #blocked>
  return %r : tensor<64x160xf16, #blocked>
}

// -----

// Read into no layout (which the lowering refuses: IR the mutation test
// made, on which the allocation crashed): the stages keep their padded
// storage too.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// CHECK-LABEL: func.func @read_without_layout
// CHECK-SAME:  tile.shared_bytes = 98432
// CHECK:       tile.smem_alloc {tile.smem_offset = 0 : i32} : <[3, 64, 160], f16
func.func @read_without_layout(%mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32) -> tensor<64x160xf16> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 160], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b : !tile.mbarrier<1>, !tile.smem<[64, 160], f16, #sw>
  %r = tile.local_load %b [0, 0] : !tile.smem<[64, 160], f16, #sw> -> tensor<64x160xf16>
  return %r : tensor<64x160xf16>
}

// -----

// Rows as the highest digit (one block of columns): a 160 x 64 tile stored
// from registers whose padding is whole registers (rows 8-128 of #regs are
// register bits) takes 160 rows, 20480 bytes. Stored from a layout whose
// warps hold rows past 160 (row 32 of #warps is a warp bit), some
// threads write padding: that buffer keeps its 256 rows, 32768 bytes.
#regs = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]>
#warps = #tile.blocked<sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-LABEL: func.func @trimmed_rows
// CHECK-SAME:  tile.shared_bytes = 53248
// CHECK:       tile.local_alloc %{{.*}} {tile.slot_bytes = 20480 : i32, tile.smem_offset = 32768 : i32} : tensor<160x64xf16, #blocked>
// CHECK:       tile.local_alloc %{{.*}} {tile.smem_offset = 0 : i32} : tensor<160x64xf16, #blocked1>
func.func @trimmed_rows(%x: tensor<160x64xf16, #regs>, %y: tensor<160x64xf16, #warps>, %map: !tile.tensor_map<[160, 64], f16, swizzle = 128>) attributes {tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<160x64xf16, #regs> -> !tile.smem<[160, 64], f16, #sw>
  %b = tile.local_alloc %y : tensor<160x64xf16, #warps> -> !tile.smem<[160, 64], f16, #sw>
  tile.tma_store %map[%c0, %c0], %a : !tile.tensor_map<[160, 64], f16, swizzle = 128>, !tile.smem<[160, 64], f16, #sw>
  tile.tma_store %map[%c0, %c0], %b : !tile.tensor_map<[160, 64], f16, swizzle = 128>, !tile.smem<[160, 64], f16, #sw>
  tile.tma_store_wait %a, %b : !tile.smem<[160, 64], f16, #sw>, !tile.smem<[160, 64], f16, #sw>
  return
}

// -----

// A ring of 80-row stages in four 128-byte blocks of 64 columns (attention's
// K^T at a head dim of 256, 80 keys a trip): the rows lie under the block
// digit, so cutting the highest digit would keep 4 x 128 rows. Filled by
// TMA and read by wgmma only, the ring is retyped to store its own 80 rows
// a block (`rows = 80`, on the ring and the slot's view): 40960 bytes a
// stage, not 65536.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 80, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#kt = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 2, 0], block = 64>
// CHECK-DAG:   #[[RING:.*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 2, 0], block = 64, rows = 80>
// CHECK-DAG:   #[[SLOT:.*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64, rows = 80>
// CHECK-LABEL: func.func @compact_rows
// CHECK-SAME:  tile.shared_bytes = 114816
// CHECK:       tile.smem_alloc {tile.slot_bytes = 40960 : i32, tile.smem_offset = 0 : i32} : <[2, 256, 80], f16, #[[RING]]>
// CHECK:       tile.smem_slot %{{.*}} : <[2, 256, 80], f16, #[[RING]]> -> <[256, 80], f16, #[[SLOT]]>
func.func @compact_rows(%mapb: !tile.tensor_map<[80, 64], f16, swizzle = 128>, %mapa: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32, %c: tensor<64x80xf32, #mma>) -> tensor<64x80xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 256, 80], f16, #ring>
  %a = tile.smem_alloc : !tile.smem<[64, 256], f16, #sw>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[2, 256, 80], f16, #ring> -> !tile.smem<[256, 80], f16, #kt>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[80, 64], f16, swizzle = 128>, !tile.smem<[256, 80], f16, #kt>, !tile.mbarrier<1>
  tile.tma_load %mapa[%i, %c0], %a, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 256], f16, #sw>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b, %a : !tile.mbarrier<1>, !tile.smem<[256, 80], f16, #kt>, !tile.smem<[64, 256], f16, #sw>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 256], f16, #sw>, !tile.smem<[256, 80], f16, #kt>, tensor<64x80xf32, #mma>
  return %d : tensor<64x80xf32, #mma>
}

// -----

// The same ring read by tile.local_load into an mma operand (ldmatrix reads
// the padding's rows too): it keeps its padded rows, 2 x 65536 bytes.
#mma2 = #tile.mma<warpsPerCTA = [8, 1]>
#dot = #tile.dot_operand<opIdx = 1, parent = #mma2>
#kt = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 2, 0], block = 64>
// CHECK-LABEL: func.func @compact_rows_not_padding_read
// CHECK-SAME:  tile.shared_bytes = 131200
// CHECK:       tile.smem_alloc {tile.smem_offset = 0 : i32} : <[2, 256, 80], f16, #{{[a-z0-9]+}}>
func.func @compact_rows_not_padding_read(%mapb: !tile.tensor_map<[80, 64], f16, swizzle = 128>, %i: i32) -> tensor<256x80xf16, #dot> attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 256, 80], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[2, 256, 80], f16, #ring> -> !tile.smem<[256, 80], f16, #kt>
  tile.tma_load %mapb[%i, %c0], %b, %bars[%c0] : !tile.tensor_map<[80, 64], f16, swizzle = 128>, !tile.smem<[256, 80], f16, #kt>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %b : !tile.mbarrier<1>, !tile.smem<[256, 80], f16, #kt>
  %r = tile.local_load %b [0, 0] : !tile.smem<[256, 80], f16, #kt> -> tensor<256x80xf16, #dot>
  return %r : tensor<256x80xf16, #dot>
}

// -----

// A wgmma's A of 48 rows (6 query heads x 8 rows, packed) in two blocks:
// each instruction reads 64 rows, so its rows stay 64 a block (stored at
// 48, block 1's rows 48-63 would be read past the buffer): 64 x 128 x 2 =
// 16384 bytes, no `rows`.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#kt = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
// CHECK-LABEL: func.func @compact_rows_not_wgmma_a
// CHECK-SAME:  tile.shared_bytes = 32896
// CHECK:       tile.smem_alloc {tile.smem_offset = 0 : i32} : <[48, 128], f16, #{{[a-z0-9]+}}>
func.func @compact_rows_not_wgmma_a(%mapa: !tile.tensor_map<[48, 64], f16, swizzle = 128>, %mapb: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %c: tensor<48x64xf32, #mma>) -> tensor<48x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.smem_alloc : !tile.smem<[48, 128], f16, #sw>
  %b = tile.smem_alloc : !tile.smem<[128, 64], f16, #kt>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.tma_load %mapa[%c0, %c0], %a, %bars[%c0] : !tile.tensor_map<[48, 64], f16, swizzle = 128>, !tile.smem<[48, 128], f16, #sw>, !tile.mbarrier<1>
  tile.tma_load %mapb[%c0, %c0], %b, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[128, 64], f16, #kt>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %a, %b : !tile.mbarrier<1>, !tile.smem<[48, 128], f16, #sw>, !tile.smem<[128, 64], f16, #kt>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[48, 128], f16, #sw>, !tile.smem<[128, 64], f16, #kt>, tensor<48x64xf32, #mma>
  return %d : tensor<48x64xf32, #mma>
}
