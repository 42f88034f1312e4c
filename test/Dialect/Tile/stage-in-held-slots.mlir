// RUN: tile-opt %s -split-input-file --tile-stage-in-held-slots | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-stage-in-held-slots --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=BAR

// tile-stage-in-held-slots: the consumers' loop releases each slot of the
// ring a trip after reading it (the slot of counter c - 1 at trip c), so
// the slot of its last trip is held after it (until the loop's next run
// releases it in its first trip). The store staged in two
// parts after the loop stages its second part there (a 64 x 64 view of the
// 64 x 128 slot) rather than waiting for the first part's copy, when a
// trip ran (otherwise as before), each branch extracting the part itself,
// ahead of the first part's write into the one buffer (nothing waits for
// that part's copy until the next run); the thread that issues the copies
// waits for the slot's part's read (all but the one copy committed after
// it) before it releases the ring in the loop's first trip.
// CHECK-LABEL: func.func @held
// CHECK:       %[[RING:.*]] = tile.smem_alloc : <[2, 64, 128], f16
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16
// CHECK:       } consumer {
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %[[LB:[^ ]*]] to
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[LB]] : i32
// CHECK-NEXT:      tile.tma_store_wait %[[RING]] : {{.*}} if %[[FIRST]] {pending = 1 : i32}
// CHECK-NEXT:      tile.mbarrier_arrive %[[EMPTY:.*]][%{{.*}}], %{{.*}} if %{{.*}}
// CHECK:         }
// CHECK:         tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    %[[P0:.*]] = tile.extract %[[LOOP]]#0 [0, 0]
// CHECK-NOT:     tile.tma_store
// CHECK:         %[[RAN:.*]] = arith.cmpi ne, %[[LOOP]]#1, %{{.*}} : i32
// CHECK-NEXT:    scf.if %[[RAN]] {
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[LAST:.*]] = arith.addi %[[LOOP]]#1, %[[ONE]] : i32
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[INDEX:.*]] = arith.remui %[[LAST]], %[[TWO]] : i32
// CHECK-NEXT:      %[[SLOT:.*]] = tile.smem_slot %[[RING]][%[[INDEX]]]
// CHECK-NEXT:      %[[VIEW:.*]] = tile.smem_view %[[SLOT]] : <[64, 128], f16, #{{.*}}> -> <[64, 64], f16, #{{.*}}>
// CHECK-NEXT:      %[[P1:.*]] = tile.extract %[[LOOP]]#0 [0, 64]
// CHECK-NEXT:      tile.local_store %[[P1]], %[[VIEW]]
// CHECK-NEXT:      tile.tma_store %{{.*}}, %[[VIEW]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:      %[[Q1:.*]] = tile.extract %[[LOOP]]#0 [0, 64]
// CHECK-NEXT:      tile.local_store %[[Q1]], %[[BUF]]
// CHECK-NEXT:      tile.tma_store %{{.*}}, %[[BUF]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.local_store %[[P0]], %[[BUF]]
// CHECK-NEXT:    tile.tma_store %{{.*}}, %[[BUF]]
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:  }

// The slot's writes come after a barrier that follows the loop's last
// reads of the ring, and are fenced and met before the copy; the waits in
// the loop need no barrier.
// BAR-LABEL: func.func @held
// BAR:       scf.for
// BAR-NOT:     tile.barrier
// BAR:         tile.tma_store_wait {{.*}} if
// BAR-NEXT:    tile.mbarrier_arrive
// BAR:       }
// BAR:       tile.barrier {id = 1 : i32, num_threads = 128 : i32}
// BAR:       scf.if
// BAR-NEXT:    arith.constant
// BAR:         tile.smem_view
// BAR-NEXT:    tile.extract
// BAR-NEXT:    tile.local_store
// BAR-NEXT:    tile.fence_async_shared
// BAR-NEXT:    tile.barrier {id = 1 : i32, num_threads = 128 : i32}
// BAR-NEXT:    tile.tma_store
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @held(%A: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf16, #blk>
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %s, %full[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %c = %c0) -> (tensor<64x128xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %s : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %x = tile.local_load %s [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #blk>
      %prev = arith.addi %c, %c1 : i32
      %j = arith.remui %prev, %c2 : i32
      %p = arith.cmpi uge, %prev, %c2 : i32
      %r = tile.smem_slot %ring[%j] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %r if %p : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %next : tensor<64x128xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %loop#0 [0, 0] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %loop#0 [0, 64] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  return
}

// -----

// A loop that releases each slot in the trip that reads it holds none
// after it: the parts stay as they are.
// CHECK-LABEL: func.func @released_in_trip
// CHECK-NOT:   tile.smem_view
// CHECK:       return
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @released_in_trip(%A: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf16, #blk>
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %s, %full[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %c = %c0) -> (tensor<64x128xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %s : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %x = tile.local_load %s [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #blk>
      tile.mbarrier_arrive %empty[%i], %s : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %next : tensor<64x128xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %loop#0 [0, 0] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %loop#0 [0, 64] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  return
}

// -----

// A slot smaller than the part (4 KB against 8 KB) takes none.
// CHECK-LABEL: func.func @part_too_large
// CHECK-NOT:   tile.smem_view
// CHECK:       return
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @part_too_large(%A: !tile.tensor_map<[32, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf16, #blk>
  %whole = arith.constant dense<1.0> : tensor<64x128xf16, #blk>
  %ring = tile.smem_alloc : !tile.smem<[2, 32, 64], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 32, 64], f16, #ring> -> !tile.smem<[32, 64], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %s, %full[%i] : !tile.tensor_map<[32, 64], f16, swizzle = 128>, !tile.smem<[32, 64], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %c = %c0) -> (tensor<32x64xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 32, 64], f16, #ring> -> !tile.smem<[32, 64], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %s : !tile.mbarrier<2>, !tile.smem<[32, 64], f16, #slot>
      %x = tile.local_load %s [0, 0] : !tile.smem<[32, 64], f16, #slot> -> tensor<32x64xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<32x64xf16, #blk>
      %prev = arith.addi %c, %c1 : i32
      %j = arith.remui %prev, %c2 : i32
      %p = arith.cmpi uge, %prev, %c2 : i32
      %r = tile.smem_slot %ring[%j] : !tile.smem<[2, 32, 64], f16, #ring> -> !tile.smem<[32, 64], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %r if %p : !tile.mbarrier<2>, !tile.smem<[32, 64], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %next : tensor<32x64xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %whole [0, 0] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %whole [0, 64] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  return
}

// -----

// A slot of 48 x 64 halves (6 KB, padded to 8 KB) takes no part of 8 KB:
// the ring is allocated at its slots' own size (tile-allocate-shared-
// memory, where only its tiles' elements are accessed), and a view into
// the padding would cost it the padded size.
// CHECK-LABEL: func.func @part_in_padding
// CHECK-NOT:   tile.smem_view
// CHECK:       return
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @part_in_padding(%A: !tile.tensor_map<[48, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<48x64xf16, #blk>
  %whole = arith.constant dense<1.0> : tensor<64x128xf16, #blk>
  %ring = tile.smem_alloc : !tile.smem<[2, 48, 64], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 48, 64], f16, #ring> -> !tile.smem<[48, 64], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %s, %full[%i] : !tile.tensor_map<[48, 64], f16, swizzle = 128>, !tile.smem<[48, 64], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %c = %c0) -> (tensor<48x64xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 48, 64], f16, #ring> -> !tile.smem<[48, 64], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %s : !tile.mbarrier<2>, !tile.smem<[48, 64], f16, #slot>
      %x = tile.local_load %s [0, 0] : !tile.smem<[48, 64], f16, #slot> -> tensor<48x64xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<48x64xf16, #blk>
      %prev = arith.addi %c, %c1 : i32
      %j = arith.remui %prev, %c2 : i32
      %p = arith.cmpi uge, %prev, %c2 : i32
      %r = tile.smem_slot %ring[%j] : !tile.smem<[2, 48, 64], f16, #ring> -> !tile.smem<[48, 64], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %r if %p : !tile.mbarrier<2>, !tile.smem<[48, 64], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %next : tensor<48x64xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %whole [0, 0] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %whole [0, 64] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  return
}

// -----

// The consumers read the ring after the loop: no slot is known held.
// CHECK-LABEL: func.func @read_after_loop
// CHECK-NOT:   tile.smem_view
// CHECK:       return
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @read_after_loop(%A: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf16, #blk>
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %s, %full[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %c = %c0) -> (tensor<64x128xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %s = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %s : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %x = tile.local_load %s [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #blk>
      %prev = arith.addi %c, %c1 : i32
      %j = arith.remui %prev, %c2 : i32
      %p = arith.cmpi uge, %prev, %c2 : i32
      %r = tile.smem_slot %ring[%j] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %r if %p : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %next : tensor<64x128xf16, #blk>, i32
    }
    %s0 = tile.smem_slot %ring[%c0] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
    %late = tile.local_load %s0 [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %loop#0 [0, 0] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %loop#0 [0, 64] : tensor<64x128xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  return
}

// -----

// Two rings hold a slot each (16 KB and 8 KB) and four parts of 8 KB wait
// in one buffer: each slot, smallest first, takes the largest part left
// that it holds, the later of equal ones (the last part in B's slot, the
// third in A's); the parts in slots move, in order, between the first part
// left in the buffer and the next one, whose wait for the first one's copy
// their writes then hide. (Rings of two stages: none holds two slots.)
// Each release in the first trip waits for its slot's part: all but the
// copies committed after it (A's part, then B's, then the fourth).
// CHECK-LABEL: func.func @two_rings
// CHECK:         %[[RA:.*]] = tile.smem_alloc : <[2, 64, 128], f16
// CHECK:         %[[RB:.*]] = tile.smem_alloc : <[2, 32, 128], f16
// CHECK:         %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16
// CHECK:       } consumer {
// CHECK:         scf.for
// CHECK:           tile.tma_store_wait %[[RA]] : {{.*}} {pending = 2 : i32}
// CHECK:           tile.tma_store_wait %[[RB]] : {{.*}} {pending = 1 : i32}
// CHECK:         }
// CHECK:         tile.extract %{{.*}} [0, 0]
// CHECK-NEXT:    tile.local_store %{{.*}}, %[[BUF]]
// CHECK-NEXT:    tile.tma_store
// CHECK-NOT:     tile.tma_store_wait %[[BUF]]
// CHECK:         scf.if
// CHECK:           tile.smem_slot %[[RA]]
// CHECK:           tile.extract %{{.*}} [0, 128]
// CHECK:         } else {
// CHECK:         scf.if
// CHECK:           tile.smem_slot %[[RB]]
// CHECK:           tile.extract %{{.*}} [0, 192]
// CHECK:         } else {
// CHECK:         }
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.extract %{{.*}} [0, 64]
// CHECK-NEXT:    tile.local_store %{{.*}}, %[[BUF]]
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @two_rings(%A: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %B: !tile.tensor_map<[32, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c192 = arith.constant 192 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf16, #blk>
  %zb = arith.constant dense<0.0> : tensor<32x128xf16, #blk>
  %whole = arith.constant dense<1.0> : tensor<64x256xf16, #blk>
  %ringa = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #ring>
  %ringb = tile.smem_alloc : !tile.smem<[2, 32, 128], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<2>
  %emptyb = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %emptyb {count = 128 : i32} : !tile.mbarrier<2>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %sa = tile.smem_slot %ringa[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %sb = tile.smem_slot %ringb[%i] : !tile.smem<[2, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c2 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<2>
      tile.mbarrier_wait %emptyb[%i], %ph if %wait : !tile.mbarrier<2>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %sa, %full[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<2>
      tile.tma_load %B[%c0, %x], %sb, %full[%i] : !tile.tensor_map<[32, 64], f16, swizzle = 128>, !tile.smem<[32, 128], f16, #slot>, !tile.mbarrier<2>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %accb = %zb, %c = %c0) -> (tensor<64x128xf16, #blk>, tensor<32x128xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c2 : i32
      %sa = tile.smem_slot %ringa[%i] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %sb = tile.smem_slot %ringb[%i] : !tile.smem<[2, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      %round = arith.divui %c, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %sa, %sb : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>, !tile.smem<[32, 128], f16, #slot>
      %x = tile.local_load %sa [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
      %y = tile.local_load %sb [0, 0] : !tile.smem<[32, 128], f16, #slot> -> tensor<32x128xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #blk>
      %sumb = arith.addf %accb, %y : tensor<32x128xf16, #blk>
      %prev = arith.addi %c, %c1 : i32
      %j = arith.remui %prev, %c2 : i32
      %p = arith.cmpi uge, %prev, %c2 : i32
      %ra = tile.smem_slot %ringa[%j] : !tile.smem<[2, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %rb = tile.smem_slot %ringb[%j] : !tile.smem<[2, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %ra if %p : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #slot>
      tile.mbarrier_arrive %emptyb[%j], %rb if %p : !tile.mbarrier<2>, !tile.smem<[32, 128], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %sumb, %next : tensor<64x128xf16, #blk>, tensor<32x128xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %whole [0, 0] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %whole [0, 64] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p2 = tile.extract %whole [0, 128] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p2, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c128], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p3 = tile.extract %whole [0, 192] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p3, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c192], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<2>
  tile.mbarrier_inval %empty : !tile.mbarrier<2>
  tile.mbarrier_inval %emptyb : !tile.mbarrier<2>
  return
}

// -----

// The same with rings of three stages: the slots held leave the second
// part to wait for the first one's copy, so the rings hold their last two
// trips' slots: B's (8 KB each) take the last two parts, A's last one the
// second, and nothing waits in the one buffer. B's release of the previous
// trip's slot is skipped in the loop's last trip, and its first trip also
// releases the slot two trips before it (the older held one, once the
// counter has passed it), first of the held slots (the producer refills it
// first); A's releases are as before. The parts go out in the order their
// slots are refilled (B's older one, A's, B's newer one) ahead of the first
// part's write into the one buffer, and each release waits for its own
// part's copy: all but the 3, 2 and 1 copies committed after it.
// CHECK-LABEL: func.func @hold_two
// CHECK:         %[[RA:.*]] = tile.smem_alloc : <[3, 64, 128], f16
// CHECK:         %[[RB:.*]] = tile.smem_alloc : <[3, 32, 128], f16
// CHECK:         %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16
// CHECK:       } consumer {
// CHECK:         scf.for %[[I:[^ ]*]] = %[[LB:[^ ]*]] to %[[UB:[^ ]*]] step %[[STEP:[^ ]*]] iter_args(%{{.*}}, %{{.*}}, %[[C:[^ ]*]] = 
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[LB]] : i32
// CHECK:           %[[PASSED:.*]] = arith.cmpi uge, %[[C]], %{{.*}} : i32
// CHECK-NEXT:      %[[Q:.*]] = arith.andi %[[FIRST]], %[[PASSED]] : i1
// CHECK-NEXT:      %[[S:.*]] = tile.smem_slot %[[RB]][%[[OLD:.*]]] :
// CHECK:           tile.tma_store_wait %[[RB]] : {{.*}} {pending = 3 : i32}
// CHECK-NEXT:      tile.mbarrier_arrive %[[EB:[^\[]*]][%[[OLD]]], %[[S]] if %[[Q]]
// CHECK:           tile.tma_store_wait %[[RA]] : {{.*}} {pending = 2 : i32}
// CHECK-NEXT:      tile.mbarrier_arrive %{{.*}}, %{{.*}} if %{{.*}} : <3>, <[64, 128]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %[[STEP]] : i32
// CHECK-NEXT:      %[[NOTLAST:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.andi %{{.*}}, %[[NOTLAST]] : i1
// CHECK:           tile.tma_store_wait %[[RB]] : {{.*}} {pending = 1 : i32}
// CHECK-NEXT:      tile.mbarrier_arrive %[[EB]][%{{.*}}], %{{.*}} if %[[P]] : <3>, <[32, 128]
// CHECK:         }
// CHECK:         %[[P0:.*]] = tile.extract %{{.*}} [0, 0]
// CHECK-NOT:     tile.tma_store
// CHECK:         arith.cmpi uge
// CHECK-NEXT:    scf.if
// CHECK:           tile.smem_slot %[[RB]]
// CHECK:           tile.extract %{{.*}} [0, 128]
// CHECK:         } else {
// CHECK:         scf.if
// CHECK:           tile.smem_slot %[[RA]]
// CHECK:           tile.extract %{{.*}} [0, 64]
// CHECK:         } else {
// CHECK:         scf.if
// CHECK:           tile.smem_slot %[[RB]]
// CHECK:           tile.extract %{{.*}} [0, 192]
// CHECK:         } else {
// CHECK:         }
// CHECK-NEXT:    tile.local_store %[[P0]], %[[BUF]]
// CHECK-NEXT:    tile.tma_store
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:  }
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#slot = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @hold_two(%A: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %B: !tile.tensor_map<[32, 64], f16, swizzle = 128>, %O: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c192 = arith.constant 192 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf16, #blk>
  %zb = arith.constant dense<0.0> : tensor<32x128xf16, #blk>
  %whole = arith.constant dense<1.0> : tensor<64x256xf16, #blk>
  %ringa = tile.smem_alloc : !tile.smem<[3, 64, 128], f16, #ring>
  %ringb = tile.smem_alloc : !tile.smem<[3, 32, 128], f16, #ring>
  %full = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %full {count = 1 : i32} : !tile.mbarrier<3>
  %empty = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %empty {count = 128 : i32} : !tile.mbarrier<3>
  %emptyb = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %emptyb {count = 128 : i32} : !tile.mbarrier<3>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f16, #slot>
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %c0) -> (i32) : i32 {
      %i = arith.remui %c, %c3 : i32
      %sa = tile.smem_slot %ringa[%i] : !tile.smem<[3, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %sb = tile.smem_slot %ringb[%i] : !tile.smem<[3, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      %round = arith.divui %c, %c3 : i32
      %phase = arith.andi %round, %c1 : i32
      %wait = arith.cmpi uge, %c, %c3 : i32
      %ph = arith.xori %phase, %c1 : i32
      tile.mbarrier_wait %empty[%i], %ph if %wait : !tile.mbarrier<3>
      tile.mbarrier_wait %emptyb[%i], %ph if %wait : !tile.mbarrier<3>
      %x = arith.muli %k, %c64 : i32
      tile.tma_load %A[%c0, %x], %sa, %full[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #slot>, !tile.mbarrier<3>
      tile.tma_load %B[%c0, %x], %sb, %full[%i] : !tile.tensor_map<[32, 64], f16, swizzle = 128>, !tile.smem<[32, 128], f16, #slot>, !tile.mbarrier<3>
      %next = arith.addi %c, %c1 : i32
      scf.yield %next : i32
    }
  } consumer {
    %loop:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %accb = %zb, %c = %c0) -> (tensor<64x128xf16, #blk>, tensor<32x128xf16, #blk>, i32) : i32 {
      %i = arith.remui %c, %c3 : i32
      %sa = tile.smem_slot %ringa[%i] : !tile.smem<[3, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %sb = tile.smem_slot %ringb[%i] : !tile.smem<[3, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      %round = arith.divui %c, %c3 : i32
      %phase = arith.andi %round, %c1 : i32
      tile.mbarrier_wait %full[%i], %phase, %sa, %sb : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #slot>, !tile.smem<[32, 128], f16, #slot>
      %x = tile.local_load %sa [0, 0] : !tile.smem<[64, 128], f16, #slot> -> tensor<64x128xf16, #blk>
      %y = tile.local_load %sb [0, 0] : !tile.smem<[32, 128], f16, #slot> -> tensor<32x128xf16, #blk>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #blk>
      %sumb = arith.addf %accb, %y : tensor<32x128xf16, #blk>
      %prev = arith.addi %c, %c2 : i32
      %j = arith.remui %prev, %c3 : i32
      %p = arith.cmpi uge, %prev, %c3 : i32
      %ra = tile.smem_slot %ringa[%j] : !tile.smem<[3, 64, 128], f16, #ring> -> !tile.smem<[64, 128], f16, #slot>
      %rb = tile.smem_slot %ringb[%j] : !tile.smem<[3, 32, 128], f16, #ring> -> !tile.smem<[32, 128], f16, #slot>
      tile.mbarrier_arrive %empty[%j], %ra if %p : !tile.mbarrier<3>, !tile.smem<[64, 128], f16, #slot>
      tile.mbarrier_arrive %emptyb[%j], %rb if %p : !tile.mbarrier<3>, !tile.smem<[32, 128], f16, #slot>
      %next = arith.addi %c, %c1 : i32
      scf.yield %sum, %sumb, %next : tensor<64x128xf16, #blk>, tensor<32x128xf16, #blk>, i32
    }
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p0 = tile.extract %whole [0, 0] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p0, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c0], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p1 = tile.extract %whole [0, 64] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p1, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c64], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p2 = tile.extract %whole [0, 128] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p2, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c128], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
    %p3 = tile.extract %whole [0, 192] : tensor<64x256xf16, #blk> -> tensor<64x64xf16, #blk>
    tile.local_store %p3, %buf : tensor<64x64xf16, #blk>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store %O[%c0, %c192], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #slot>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f16, #slot>
  }
  tile.mbarrier_inval %full : !tile.mbarrier<3>
  tile.mbarrier_inval %empty : !tile.mbarrier<3>
  tile.mbarrier_inval %emptyb : !tile.mbarrier<3>
  return
}
