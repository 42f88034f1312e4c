// RUN: tile-opt %s -split-input-file --tile-convert-stores-to-tma=reuse-ring-slots --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-convert-stores-to-tma=reuse-ring-slots --canonicalize --cse --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=BAR
// RUN: tile-opt %s -split-input-file --tile-convert-stores-to-tma | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file --tile-convert-stores-to-tma="reuse-ring-slots shared-memory-bytes=20000" | FileCheck %s --check-prefix=FIT
// RUN: tile-opt %s -split-input-file --tile-convert-stores-to-tma="reuse-ring-slots shared-memory-bytes=20000" --canonicalize --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=FITBAR

// tile-convert-stores-to-tma: a store whose tile comes through a layout
// conversion that moves data between threads (an accumulator on its way to
// a coalesced store layout) becomes a tile.local_store of the unconverted
// tile into a buffer in TMA's swizzled layout and a tile.tma_store from a
// descriptor of the tensor (a new kernel parameter, in tile.tensor_maps),
// with tile.tma_store_wait before the kernel returns and, in a tile loop,
// before the next tile writes the buffer. tile-insert-barriers then fences
// the writes and meets before the copy, and after the wait before the next
// writes.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>

// The tile (64 x 64 halves: 128-byte rows, the 128-byte swizzle) in the
// mma layout it had, through a reshape that drops a unit dimension; the box
// is [1, 64, 64], the coordinates the tile index times the extent.
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME:  (%{{[^:]*}}: !tile.global<f16, 3>, %[[V:[^:]*]]: f16, %[[B:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[MAP:[^:]*]]: !tile.tensor_map<[1, 64, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 1, 64, 64>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : i32
// CHECK:       %[[X:.*]] = tile.full %[[V]] : tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f16, #[[S:shared[0-9]*]]>
// CHECK-NEXT:  tile.local_store %[[X]], %[[BUF]] : tensor<64x64xf16, #mma>, <[64, 64], f16, #[[S]]>
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %[[M]], %[[C64]] : i32
// CHECK-NEXT:  tile.tma_store %[[MAP]][%[[B]], %[[ROW]], %[[C0]]], %[[BUF]]
// CHECK-NEXT:  tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:  return
// The buffer's layout: 16-byte vectors swizzled over 128-byte blocks.
// CHECK:       #[[S]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @epilogue(%O: !tile.global<f16, 3>, %v: f16, %b: i32, %m: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x64xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
  %z = tile.reshape %y : tensor<64x64xf16, #blocked> -> tensor<1x64x64xf16, #blocked3>
  tile.store %O[%b, %m, %c0], %z : !tile.global<f16, 3>, tensor<1x64x64xf16, #blocked3>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// In a persistent kernel's tile loop: the buffer before the loop, the wait
// for the previous tile's copy before the write, the last wait after the
// loop. Barriers: after that wait (the other threads' writes), and fenced
// before the copy.
// CHECK-LABEL: func.func @tile_loop
// CHECK:       %[[BUF:.*]] = tile.smem_alloc
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[X:.*]] = tile.full
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.local_store %[[X]], %[[BUF]]
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.tma_store %{{.*}}, %[[BUF]]
// CHECK-NEXT:  } {tile.tile_loop}
// CHECK-NEXT:  tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:  return
// BAR-LABEL:   func.func @tile_loop
// BAR:         scf.for
// BAR:           tile.tma_store_wait
// BAR-NEXT:      tile.barrier
// BAR-NEXT:      tile.local_store
// BAR-NEXT:      arith.muli
// BAR-NEXT:      tile.fence_async_shared
// BAR-NEXT:      tile.barrier
// BAR-NEXT:      tile.tma_store
// BAR-NEXT:    } {tile.tile_loop}
func.func @tile_loop(%O: !tile.global<f16, 2>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<64x64xf16, #mma>
    %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A tile loop with a ring of its own (tile-pipeline's Q: the tile's slot
// waited for, the next tile's filled, at the top): the tile's slot, read
// for the last time, is the buffer; no buffer of its own. The wait for the
// copy's read moves before the refill, which fills the slot the previous
// tile held; the last wait names the ring. Barriers: between the last read
// and the writes, and fenced before the copy.
// CHECK-LABEL: func.func @ring_slot
// CHECK-NOT:   tile.smem_alloc : <[64, 64]
// CHECK:       scf.for
// CHECK:         %[[CUR:.*]] = tile.smem_slot %[[RING:[0-9a-z_]+]]
// CHECK:         tile.mbarrier_wait %{{.*}}, %[[CUR]]
// CHECK:         %[[NEXT:.*]] = tile.smem_slot %[[RING]]
// CHECK:         tile.tma_store_wait %[[NEXT]]
// CHECK-NEXT:    tile.tma_load %{{.*}}, %[[NEXT]]
// CHECK-NEXT:    %[[R:.*]] = tile.local_load %[[CUR]]
// CHECK-NOT:     tile.tma_store_wait
// CHECK:         tile.local_store %{{.*}}, %[[CUR]]
// CHECK:         tile.tma_store %{{.*}}, %[[CUR]]
// CHECK-NEXT:  } {tile.tile_loop}
// CHECK-NEXT:  tile.tma_store_wait %[[RING]] : !tile.smem<[2, 64, 64]
// Without reuse-ring-slots: a buffer of its own.
// OFF-LABEL:   func.func @ring_slot
// OFF:         %[[BUF:.*]] = tile.smem_alloc : <[64, 64]
// OFF:         scf.for
// OFF:           tile.tma_store_wait %[[BUF]]
// OFF-NEXT:      tile.local_store %{{.*}}, %[[BUF]]
// BAR-LABEL:   func.func @ring_slot
// BAR:           tile.local_load
// BAR:           tile.barrier
// BAR-NEXT:      tile.local_store
// BAR-NEXT:      arith.muli
// BAR-NEXT:      tile.fence_async_shared
// BAR-NEXT:      tile.barrier
// BAR-NEXT:      tile.tma_store
func.func @ring_slot(%O: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %true = arith.constant true
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  %first = tile.smem_slot %ring[%c0] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
  tile.tma_load %map[%c0, %c0], %first, %full[%c0] if %true : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <2>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %i = arith.remui %t, %c2 : i32
    %cur = tile.smem_slot %ring[%i] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %par = arith.divui %t, %c2 : i32
    %phase = arith.andi %par, %c1 : i32
    tile.mbarrier_wait %full[%i], %phase, %cur : <2>, !tile.smem<[64, 64], f16, #s>
    %t1 = arith.addi %t, %c1 : i32
    %j = arith.remui %t1, %c2 : i32
    %next = tile.smem_slot %ring[%j] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %more = arith.cmpi slt, %t1, %n : i32
    tile.tma_load %map[%t1, %c0], %next, %full[%j] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <2>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A ring of one slot (tile-pipeline's tile-stages=1): each tile fills the
// slot itself, before it waits for it. The slot is the buffer; the wait
// for the previous tile's copy goes before this tile's fill.
// CHECK-LABEL: func.func @one_slot
// CHECK-NOT:   tile.smem_alloc : <[64, 64]
// CHECK:       scf.for
// CHECK:         %[[CUR:.*]] = tile.smem_slot %[[RING:[0-9a-z_]+]]
// CHECK-NEXT:    tile.tma_store_wait %[[CUR]]
// CHECK-NEXT:    tile.tma_load %{{.*}}, %[[CUR]]
// CHECK:         tile.mbarrier_wait %{{.*}}, %[[CUR]]
// CHECK-NOT:     tile.tma_store_wait
// CHECK:         tile.local_store %{{.*}}, %[[CUR]]
// CHECK:         tile.tma_store %{{.*}}, %[[CUR]]
// CHECK-NEXT:  } {tile.tile_loop}
// CHECK-NEXT:  tile.tma_store_wait %[[RING]] : !tile.smem<[1, 64, 64]
func.func @one_slot(%O: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %cur = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    tile.tma_load %map[%t, %c0], %cur, %full[%c0] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <1>
    %phase = arith.andi %t, %c1 : i32
    tile.mbarrier_wait %full[%c0], %phase, %cur : <1>, !tile.smem<[64, 64], f16, #s>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}

// A fill after the wait is not this tile's own: a buffer of its own.
// CHECK-LABEL: func.func @one_slot_late_fill
// CHECK:       tile.smem_alloc : <[64, 64]
func.func @one_slot_late_fill(%O: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %cur = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %phase = arith.andi %t, %c1 : i32
    tile.mbarrier_wait %full[%c0], %phase, %cur : <1>, !tile.smem<[64, 64], f16, #s>
    tile.tma_load %map[%t, %c0], %cur, %full[%c0] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <1>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}

// A ring of one slot refilled for the next tile after the tile's last
// read of it (tile-pipeline's tile-refill-after-read), through a slot op
// of its own: the slot holds the next tile's data by the store, a buffer
// of its own.
// CHECK-LABEL: func.func @one_slot_refill_after_read
// CHECK:       tile.smem_alloc : <[64, 64]
// CHECK:       scf.for
// CHECK-NOT:     tile.tma_store_wait
// CHECK:         tile.tma_load
// CHECK:         tile.tma_store_wait
// CHECK-NEXT:    tile.local_store
func.func @one_slot_refill_after_read(%O: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%it = %c0) -> (i32) : i32 {
    %i = arith.remui %it, %c1 : i32
    %cur = tile.smem_slot %ring[%i] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %phase = arith.andi %it, %c1 : i32
    tile.mbarrier_wait %full[%c0], %phase, %cur : <1>, !tile.smem<[64, 64], f16, #s>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %next = arith.addi %t, %c1 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %it1 = arith.addi %it, %c1 : i32
    %j = arith.remui %it1, %c1 : i32
    %nxt = tile.smem_slot %ring[%j] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    tile.tma_load %map[%next, %c0], %nxt, %full[%c0] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <1>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
    scf.yield %it1 : i32
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// With shared-memory-bytes, a tile loop's store without a slot to stage in
// whose buffer (8 KB) does not fit beside the buffers allocated before the
// tile loop (two of 8 KB and an mbarrier, 16,392 bytes, of 20,000: 3,608
// free) is staged in parts, as few as fit: four of 64 x 16 (2 KB), the
// column slices that the mma layout holds in the same threads (a slice of
// rows would not be: the warps split the rows). Each part waits for the
// previous copy's read of the one buffer, is extracted from the tile (no
// data moves), written and copied at its column offset.
// FIT-LABEL: func.func @in_parts
// FIT-SAME:    %[[MAP:[^:]*]]: !tile.tensor_map<[1, 64, 16], f16, swizzle = 32>)
// FIT-SAME:    tile.tensor_maps = [{box = array<i64: 1, 64, 16>, param = 0 : i32, swizzle = 32 : i32}]
// FIT:         %[[BUF:.*]] = tile.smem_alloc : <[64, 16], f16, #{{.*}}>
// FIT-NEXT:    scf.for
// FIT:           %[[Q:.*]] = tile.local_load
// FIT-NOT:       tile.store
// FIT:           tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      %[[P0:.*]] = tile.extract %[[Q]] [0, 0] : tensor<64x64xf16, #mma> -> tensor<64x16xf16, #mma>
// FIT-NEXT:      tile.local_store %[[P0]], %[[BUF]]
// FIT:           tile.tma_store %[[MAP]][%[[B:[^,]*]], %[[R:[^,]*]], %[[COL:[a-z0-9_]+]]], %[[BUF]]
// FIT-NEXT:      tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      %[[P1:.*]] = tile.extract %[[Q]] [0, 16]
// FIT-NEXT:      tile.local_store %[[P1]], %[[BUF]]
// FIT-NEXT:      %[[C16:.*]] = arith.constant 16 : i32
// FIT-NEXT:      %[[COL1:.*]] = arith.addi %[[COL]], %[[C16]] : i32
// FIT-NEXT:      tile.tma_store %[[MAP]][%[[B]], %[[R]], %[[COL1]]], %[[BUF]]
// FIT-NEXT:      tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      tile.extract %[[Q]] [0, 32]
// FIT:           tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      tile.extract %[[Q]] [0, 48]
// FIT:           tile.tma_store %[[MAP]]
// FIT-NEXT:    } {tile.tile_loop}
// FIT-NEXT:    tile.tma_store_wait %[[BUF]]
// FIT-NEXT:    return
// Barriers as between two tiles' copies: each part's writes wait for the
// previous part's read (thread 0's wait, then the block meets) and are
// fenced and met before the part's copy.
// FITBAR-LABEL: func.func @in_parts
// FITBAR:         scf.for
// FITBAR-COUNT-4:   tile.tma_store_wait
// FITBAR-NEXT:      tile.extract
// FITBAR-NEXT:      tile.barrier
// FITBAR-NEXT:      tile.local_store
// FITBAR:           tile.fence_async_shared
// FITBAR-NEXT:      tile.barrier
// FITBAR-NEXT:      tile.tma_store
// FITBAR-NEXT:    } {tile.tile_loop}
func.func @in_parts(%O: !tile.global<f16, 3>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %other = tile.smem_alloc : <[64, 64], f16, #s>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %cur = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    %z = tile.reshape %y : tensor<64x64xf16, #blocked> -> tensor<1x64x64xf16, #blocked3>
    tile.store %O[%t, %t, %c0], %z : !tile.global<f16, 3>, tensor<1x64x64xf16, #blocked3>
  } {tile.tile_loop}
  return
}

// Where not even the smallest part (64 x 8, 1 KB) fits (two more buffers
// of 8 KB: none free), the tile is written from the registers it is in:
// the conversion and the reshape go, the store takes the mma tile with the
// tile's shape.
// FIT-LABEL: func.func @in_place
// FIT-SAME:    (%{{[^:]*}}: !tile.global<f16, 3>, %{{[^:]*}}: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
// FIT-NOT:     tile.convert_layout
// FIT-NOT:     tile.local_store
// FIT-NOT:     tile.tma_store
// FIT:         tile.store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[Q:.*]] {shape = array<i64: 1, 64, 64>} : <f16, 3>, tensor<64x64xf16, #mma>
// FIT-NOT:     tile.tma_store_wait
// FIT:         return
func.func @in_place(%O: !tile.global<f16, 3>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %other = tile.smem_alloc : <[64, 64], f16, #s>
  %more = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %cur = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    %z = tile.reshape %y : tensor<64x64xf16, #blocked> -> tensor<1x64x64xf16, #blocked3>
    tile.store %O[%t, %t, %c0], %z : !tile.global<f16, 3>, tensor<1x64x64xf16, #blocked3>
  } {tile.tile_loop}
  return
}

// One that fits is staged in a buffer of its own, as without the bound.
// FIT-LABEL: func.func @fits
// FIT:         tile.smem_alloc : <[64, 64]
// FIT:         tile.tma_store
func.func @fits(%O: !tile.global<f16, 3>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %cur = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    %z = tile.reshape %y : tensor<64x64xf16, #blocked> -> tensor<1x64x64xf16, #blocked3>
    tile.store %O[%t, %t, %c0], %z : !tile.global<f16, 3>, tensor<1x64x64xf16, #blocked3>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// The ring's slot is read after the store (or its fill is not waited for
// in the tile loop's body): a buffer of its own.
// CHECK-LABEL: func.func @slot_read_after
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 64]
// CHECK:       scf.for
// CHECK:         tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.local_store %{{.*}}, %[[BUF]]
// CHECK-LABEL: func.func @slot_not_waited
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 64]
// CHECK:       scf.for
// CHECK:         tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.local_store %{{.*}}, %[[BUF]]
func.func @slot_read_after(%O: !tile.global<f16, 2>, %P: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 2 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %i = arith.remui %t, %c2 : i32
    %cur = tile.smem_slot %ring[%i] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    tile.mbarrier_wait %full[%i], %c0, %cur : <2>, !tile.smem<[64, 64], f16, #s>
    %t1 = arith.addi %t, %c1 : i32
    %j = arith.remui %t1, %c2 : i32
    %next = tile.smem_slot %ring[%j] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %more = arith.cmpi slt, %t1, %n : i32
    tile.tma_load %map[%t1, %c0], %next, %full[%j] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <2>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
    %r = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #blocked>
    tile.store %P[%t, %c0], %r : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}
func.func @slot_not_waited(%O: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %n: i32, %c: i1, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring = tile.smem_alloc : <[2, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <2>
  tile.mbarrier_init %full {count = 1 : i32} : <2>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %i = arith.remui %t, %c2 : i32
    %cur = tile.smem_slot %ring[%i] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    scf.if %c {
      tile.mbarrier_wait %full[%i], %c0, %cur : <2>, !tile.smem<[64, 64], f16, #s>
    }
    %t1 = arith.addi %t, %c1 : i32
    %j = arith.remui %t1, %c2 : i32
    %next = tile.smem_slot %ring[%j] : <[2, 64, 64], f16, #ring> -> <[64, 64], f16, #s>
    %more = arith.cmpi slt, %t1, %n : i32
    tile.tma_load %map[%t1, %c0], %next, %full[%j] if %more : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #s>, <2>
    %q = tile.local_load %cur [0, 0] : !tile.smem<[64, 64], f16, #s> -> tensor<64x64xf16, #mma>
    %y = tile.convert_layout %q : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>

// Stores left alone: a tile in its store layout already (a TMA store would
// add a trip through shared memory); tensors assumed 8-byte aligned; a
// store in a branch; rows of 16 bytes (no TMA swizzle fills them).
// CHECK-LABEL: func.func @no_conversion
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
func.func @no_conversion(%O: !tile.global<f16, 2>, %v: f16) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x64xf16, #blocked>
  tile.store %O[%c0, %c0], %x : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  return
}

// CHECK-LABEL: func.func @unaligned
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
func.func @unaligned(%O: !tile.global<f16, 2>, %v: f16) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_alignment = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x64xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
  tile.store %O[%c0, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  return
}

// CHECK-LABEL: func.func @in_branch
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
func.func @in_branch(%O: !tile.global<f16, 2>, %v: f16, %p: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  scf.if %p {
    %x = tile.full %v : tensor<64x64xf16, #mma>
    %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%c0, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  }
  return
}

// CHECK-LABEL: func.func @narrow
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
func.func @narrow(%O: !tile.global<f16, 2>, %v: f16) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x8xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x8xf16, #mma> -> tensor<64x8xf16, #blocked>
  tile.store %O[%c0, %c0], %y : !tile.global<f16, 2>, tensor<64x8xf16, #blocked>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 2, 16], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>

// An atomic sum in a loop (attention backward's dQ): the accumulator, before
// its conversion, staged in a buffer allocated before the loop and combined
// with the tensor by the copy (cp.reduce.async.bulk.tensor); each trip waits
// for the previous trip's copy to read the buffer.
// CHECK-LABEL: func.func @atomic_in_loop
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 1, 64, 32>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 64], f32
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[X:.*]] = tile.full %{{.*}} : tensor<64x64xf32, #mma>
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.local_store %[[X]], %[[BUF]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.tma_store %{{.*}}, %[[BUF]] reduce sum :
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:  return
// CHECK-NOT:   tile.atomic_rmw
// BAR-LABEL:   func.func @atomic_in_loop
// BAR:         scf.for
// BAR:           tile.tma_store_wait
// BAR-NEXT:      tile.barrier
// BAR-NEXT:      tile.local_store
// BAR-NEXT:      arith.muli
// BAR-NEXT:      tile.fence_async_shared
// BAR-NEXT:      tile.barrier
// BAR-NEXT:      tile.tma_store {{.*}} reduce sum
func.func @atomic_in_loop(%DQ: !tile.global<f32, 3>, %v: f32, %b: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %m = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<64x64xf32, #mma>
    %y = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %z = tile.reshape %y : tensor<64x64xf32, #blocked> -> tensor<1x64x64xf32, #blocked3>
    tile.atomic_rmw sum %DQ[%b, %m, %c0], %z : !tile.global<f32, 3>, tensor<1x64x64xf32, #blocked3>
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 80, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked3 = #tile.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [1, 32, 1], warpsPerCTA = [1, 1, 4], order = [1, 2, 0]>

// A transposed accumulator (FlashAttention-3's dQ^T = K^T dS^T, 80 queries
// a trip): permuted in registers (the #tile.linear layout that keeps each
// element where the accumulator holds it), staged in the tensor's order
// (its 80 rows padded, held at their own rows: the padding is whole
// registers, which the store skips) and combined by the copy, in boxes of
// the tile's 80 rows. A store of one goes the same way.
// CHECK-LABEL: func.func @atomic_transposed
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 1, 80, 32>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[80, 64], f32, #[[S:shared[0-9]*]]>
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[X:.*]] = tile.full %{{.*}} : tensor<64x80xf32, #mma>
// CHECK-NEXT:    %[[T:.*]] = tile.permute %[[X]] [1, 0] : tensor<64x80xf32, #mma> -> tensor<80x64xf32, #[[L:linear[0-9]*]]>
// CHECK-NEXT:    tile.tma_store_wait %[[BUF]]
// CHECK-NEXT:    tile.local_store %[[T]], %[[BUF]] : tensor<80x64xf32, #[[L]]>
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.tma_store %{{.*}}, %[[BUF]] reduce sum :
// CHECK-NEXT:  }
// CHECK-NOT:   tile.atomic_rmw
// CHECK-LABEL: func.func @store_transposed
// CHECK:       tile.permute %{{.*}} [1, 0] : tensor<64x80xf32, #mma> -> tensor<80x64xf32, #linear
// CHECK:       tile.local_store
// CHECK:       tile.tma_store
// CHECK-NOT:   tile.store
// CHECK-NOT:   tile.convert_layout
// BAR-LABEL:   func.func @atomic_transposed
// BAR:         tile.smem_alloc {tile.slot_bytes = 20480 : i32, tile.smem_offset = 0 : i32} : <[80, 64], f32
func.func @atomic_transposed(%DQ: !tile.global<f32, 3>, %v: f32, %b: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %m = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<64x80xf32, #mma>
    %y = tile.convert_layout %x : tensor<64x80xf32, #mma> -> tensor<64x80xf32, #blocked>
    %t = tile.permute %y [1, 0] : tensor<64x80xf32, #blocked> -> tensor<80x64xf32, #blockedT>
    %z = tile.reshape %t : tensor<80x64xf32, #blockedT> -> tensor<1x80x64xf32, #blocked3>
    tile.atomic_rmw sum %DQ[%b, %m, %c0], %z : !tile.global<f32, 3>, tensor<1x80x64xf32, #blocked3>
  }
  return
}

func.func @store_transposed(%C: !tile.global<f32, 2>, %v: f32, %m: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.full %v : tensor<64x80xf32, #mma>
  %y = tile.convert_layout %x : tensor<64x80xf32, #mma> -> tensor<64x80xf32, #blocked>
  %t = tile.permute %y [1, 0] : tensor<64x80xf32, #blocked> -> tensor<80x64xf32, #blockedT>
  tile.store %C[%n, %m], %t : !tile.global<f32, 2>, tensor<80x64xf32, #blockedT>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>

// An accumulator combined straight from its registers (pairs of elements:
// red.global's vectors would be of 8 bytes) goes through the copy too; max
// on bf16 is one cp.reduce.async.bulk.tensor has.
// CHECK-LABEL: func.func @atomic_accumulator
// CHECK:       tile.local_store %{{.*}} : tensor<64x64xbf16, #mma>
// CHECK-NEXT:  arith.muli
// CHECK-NEXT:  arith.muli
// CHECK-NEXT:  tile.tma_store %{{.*}} reduce max :
// CHECK-NOT:   tile.atomic_rmw
func.func @atomic_accumulator(%C: !tile.global<bf16, 2>, %v: bf16, %m: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.full %v : tensor<64x64xbf16, #mma>
  tile.atomic_rmw max %C[%m, %n], %x : !tile.global<bf16, 2>, tensor<64x64xbf16, #mma>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// Left to red.global: max on f32 (the copy has no f32 max), a tile in a
// layout of 16-byte vectors already, a tensor the kernel also reads (the
// copy's writes, by the async proxy, would not be ordered before the
// reads), and an atomic under a branch.
// CHECK-LABEL: func.func @atomics_kept
// CHECK-NOT:   tile.tma_store
// CHECK-COUNT-4: tile.atomic_rmw
// CHECK-NOT:   tile.tma_store
func.func @atomics_kept(%A: !tile.global<f32, 2>, %B: !tile.global<f32, 2>, %C: !tile.global<f32, 2>, %v: f32, %m: i32, %p: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x64xf32, #mma>
  tile.atomic_rmw max %A[%m, %c0], %x : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  %y = tile.full %v : tensor<64x64xf32, #blocked>
  tile.atomic_rmw sum %A[%m, %c0], %y : !tile.global<f32, 2>, tensor<64x64xf32, #blocked>
  %r = tile.load %B[%m, %c0] : !tile.global<f32, 2> -> tensor<64x64xf32, #blocked>
  tile.atomic_rmw sum %B[%m, %c0], %x : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  scf.if %p {
    tile.atomic_rmw sum %C[%m, %c0], %x : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  }
  return
}

// -----

// A tile without a layout (the pass runs after tile-assign-layouts; the
// fuzzer feeds it anything) is left as it is.
// CHECK-LABEL: func.func @no_layout
// CHECK:       tile.atomic_rmw sum
// CHECK-NOT:   tile.tma_store
func.func @no_layout(%A: !tile.global<f32, 2>, %v: f32, %m: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.full %v : tensor<64x64xf32>
  tile.atomic_rmw sum %A[%m, %m], %x : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

// A tile.block_atomic after the store (or in a loop around both) releases
// the block's writes, which a TMA store, completing later, would escape:
// such stores stay thread stores; one after the atomic is converted.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @before_block_atomic
// CHECK:       tile.store %arg0
// CHECK:       tile.block_atomic
// CHECK:       scf.for
// CHECK-NEXT:    tile.store %arg0
// CHECK-NEXT:    tile.block_atomic
// CHECK:       tile.tma_store %
// CHECK-NOT:   tile.tma_store %
// CHECK:       return
func.func @before_block_atomic(%O: !tile.global<f16, 2>, %C: !tile.global<i32, 1>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.full %v : tensor<64x64xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
  tile.store %O[%c0, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  %t = tile.block_atomic sum %C[%c0], %c1 : !tile.global<i32, 1>, i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %z = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %O[%i, %c0], %z : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
    %u = tile.block_atomic sum %C[%i], %c1 : !tile.global<i32, 1>, i32
  }
  tile.store %O[%t, %c1], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  return
}

// -----

// A store that stays a store (here under a branch, in a loop) whose
// conversion's scratch (8 KB) would not fit beside the buffers living
// across its loop (a ring of 16 KB allocated before it, as tile-pipeline
// carries a loop's rings, of 20,000 bytes) is written from the registers
// its tile is in; where it fits (@branch_fits: a ring of 4 KB), the
// conversion stays. Without shared-memory-bytes nothing changes.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// FIT-LABEL:  func.func @branch_crowded
// FIT:          scf.if
// FIT-NOT:        tile.convert_layout
// FIT:            tile.store %{{.*}}, %{{.*}} {shape = array<i64: 64, 64>} : <f16, 2>, tensor<64x64xf16, #mma>
// OFF-LABEL:  func.func @branch_crowded
// OFF:          tile.convert_layout
// OFF-NEXT:     tile.store %{{.*}} : <f16, 2>, tensor<64x64xf16, #blocked>
func.func @branch_crowded(%O: !tile.global<f16, 2>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #ring>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %p = arith.cmpi sgt, %i, %c1 : i32
    scf.if %p {
      %x = tile.full %v : tensor<64x64xf16, #mma>
      %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
      tile.store %O[%i, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// FIT-LABEL:  func.func @branch_fits
// FIT:          scf.if
// FIT:            tile.convert_layout
// FIT-NEXT:       tile.store %{{.*}} : <f16, 2>, tensor<64x64xf16, #blocked>
func.func @branch_fits(%O: !tile.global<f16, 2>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.smem_alloc : !tile.smem<[32, 64], f16, #sw>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %p = arith.cmpi sgt, %i, %c1 : i32
    scf.if %p {
      %x = tile.full %v : tensor<64x64xf16, #mma>
      %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
      tile.store %O[%i, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
    }
  }
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// A tile 152 halves wide (304-byte rows: a multiple of 16 bytes, of no
// swizzle's block): staged in unswizzled rows at their own width (cols =
// 152, not the padding's 256) and copied by one box as wide as the tile.
// CHECK:       #[[S:shared[0-9]*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 152>
// CHECK-LABEL: func.func @own_width
// CHECK-SAME:  !tile.tensor_map<[64, 152], f16, swizzle = 0>
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 64, 152>, param = 0 : i32, swizzle = 0 : i32}]
// CHECK:       %[[BUF:.*]] = tile.smem_alloc : <[64, 152], f16, #[[S]]>
// CHECK-NEXT:  tile.local_store %{{.*}}, %[[BUF]] : tensor<64x152xf16, #mma>
// CHECK:       tile.tma_store %{{.*}}, %[[BUF]]
func.func @own_width(%O: !tile.global<f16, 2>, %v: f16, %m: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.full %v : tensor<64x152xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x152xf16, #mma> -> tensor<64x152xf16, #blocked>
  tile.store %O[%m, %c0], %y : !tile.global<f16, 2>, tensor<64x152xf16, #blocked>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// 152 bytes of 8-bit floats: not a multiple of 16 bytes, no box writes
// the rows.
// CHECK-LABEL: func.func @own_width_unaligned
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
func.func @own_width_unaligned(%O: !tile.global<f8E4M3FN, 2>, %v: f32, %m: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %w = arith.truncf %v : f32 to f8E4M3FN
  %x = tile.full %w : tensor<64x152xf8E4M3FN, #mma>
  %y = tile.convert_layout %x : tensor<64x152xf8E4M3FN, #mma> -> tensor<64x152xf8E4M3FN, #blocked>
  tile.store %O[%m, %c0], %y : !tile.global<f8E4M3FN, 2>, tensor<64x152xf8E4M3FN, #blocked>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// A 64 x 152 tile (19,456 bytes) beside a ring of 8 KB (of 20,000: 11,800
// free), staged in parts: 152 columns do not split in two halves the
// threads hold (76: not whole column pairs of the accumulator's groups of
// 8), so the parts are 80 wide (10,240 bytes) and the last one what is
// left, 72 at column 80, written into a view of the buffer's first bytes
// (rows at their own width, 144 bytes) and copied by a map of its own.
// FIT-LABEL: func.func @ragged_parts
// FIT-SAME:    tile.tensor_maps = [{box = array<i64: 64, 80>, param = 0 : i32, swizzle = 0 : i32}, {box = array<i64: 64, 72>, param = 0 : i32, swizzle = 0 : i32}]
// FIT:         %[[BUF:.*]] = tile.smem_alloc : <[64, 80], f16, #{{.*}}>
// FIT:         scf.for
// FIT:           tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      %[[P0:.*]] = tile.extract %[[X:.*]] [0, 0] : tensor<64x152xf16, #mma> -> tensor<64x80xf16, #mma>
// FIT-NEXT:      tile.local_store %[[P0]], %[[BUF]]
// FIT:           tile.tma_store %[[MAP:[^\[]*]][%[[R:[^,]*]], %[[COL:[a-z0-9_]+]]], %[[BUF]]
// FIT-NEXT:      tile.tma_store_wait %[[BUF]]
// FIT-NEXT:      %[[P1:.*]] = tile.extract %[[X]] [0, 80] : tensor<64x152xf16, #mma> -> tensor<64x72xf16, #mma>
// FIT-NEXT:      %[[V:.*]] = tile.smem_view %[[BUF]] : <[64, 80], f16, #{{.*}}> -> <[64, 72], f16, #{{.*}}>
// FIT-NEXT:      tile.local_store %[[P1]], %[[V]]
// FIT-NEXT:      %[[C80:.*]] = arith.constant 80 : i32
// FIT-NEXT:      %[[COL1:.*]] = arith.addi %[[COL]], %[[C80]] : i32
// FIT-NEXT:      tile.tma_store %[[MAP2:[^\[]*]][%[[R]], %[[COL1]]], %[[V]]
// FIT-NEXT:    } {tile.tile_loop}
// Both extractions move no data (no scratch memory: no tile.smem_offset),
// and the view's writes are fenced and met before its copy, as the
// buffer's.
// FITBAR-LABEL: func.func @ragged_parts
// FITBAR:         tile.extract %{{.*}} [0, 0] : tensor<64x152xf16, #mma>
// FITBAR:         tile.extract %{{.*}} [0, 80] : tensor<64x152xf16, #mma>
// FITBAR-NEXT:    tile.smem_view
// FITBAR:         tile.local_store
// FITBAR-NEXT:    tile.fence_async_shared
// FITBAR-NEXT:    tile.barrier
// FITBAR:         tile.tma_store
func.func @ragged_parts(%O: !tile.global<f16, 2>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<64x152xf16, #mma>
    %y = tile.convert_layout %x : tensor<64x152xf16, #mma> -> tensor<64x152xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<64x152xf16, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// An atomic the same way: its parts do not overlap, each adds its own
// columns (f32 sums: halves of 80 would take 20,480 bytes, so four parts,
// 40, 40, 40 and 32 wide).
// FIT-LABEL: func.func @ragged_atomic
// FIT-SAME:    tile.tensor_maps = [{box = array<i64: 64, 40>, param = 0 : i32, swizzle = 0 : i32}, {box = array<i64: 64, 32>, param = 0 : i32, swizzle = 0 : i32}]
// FIT-COUNT-3: tile.tma_store %{{.*}} reduce sum : <[64, 40], f32, swizzle = 0>
// FIT:         tile.extract %{{.*}} [0, 120] : tensor<64x152xf32, #mma> -> tensor<64x32xf32, #mma>
// FIT:         tile.tma_store %{{.*}} reduce sum : <[64, 32], f32, swizzle = 0>
// FIT-NOT:     tile.atomic_rmw
func.func @ragged_atomic(%O: !tile.global<f32, 2>, %v: f32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<64x152xf32, #mma>
    %y = tile.convert_layout %x : tensor<64x152xf32, #mma> -> tensor<64x152xf32, #blocked>
    tile.atomic_rmw sum %O[%t, %c0], %y : !tile.global<f32, 2>, tensor<64x152xf32, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// A 128 x 152 tile (two 64-row blocks of the four warps') in 11,800 free
// bytes: neither its 64-row halves (19,456 bytes) nor its column halves (80
// wide: 20,480) fit, so four parts, halves of both dimensions (64 x 80 and
// 64 x 72) before quarters of one (128 x 40): rows twice as wide, half as
// many of them for the copies to move.
// FIT-LABEL: func.func @ragged_quarters
// FIT-SAME:    tile.tensor_maps = [{box = array<i64: 64, 80>, param = 0 : i32, swizzle = 0 : i32}, {box = array<i64: 64, 72>, param = 0 : i32, swizzle = 0 : i32}]
// FIT:         tile.extract %[[X:.*]] [0, 0] : tensor<128x152xf16, #mma> -> tensor<64x80xf16, #mma>
// FIT:         tile.extract %[[X]] [0, 80] : tensor<128x152xf16, #mma> -> tensor<64x72xf16, #mma>
// FIT:         tile.extract %[[X]] [64, 0] : tensor<128x152xf16, #mma> -> tensor<64x80xf16, #mma>
// FIT:         %[[C64:.*]] = arith.constant 64 : i32
// FIT-NEXT:    %[[ROW:.*]] = arith.addi %{{.*}}, %[[C64]] : i32
// FIT-NEXT:    tile.tma_store %{{.*}}[%[[ROW]], %{{.*}}]
// FIT:         tile.extract %[[X]] [64, 80] : tensor<128x152xf16, #mma> -> tensor<64x72xf16, #mma>
// FIT-NOT:     tile.extract
// FIT:         } {tile.tile_loop}
func.func @ragged_quarters(%O: !tile.global<f16, 2>, %v: f16, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  scf.for %t = %c0 to %n step %c1 : i32 {
    %x = tile.full %v : tensor<128x152xf16, #mma>
    %y = tile.convert_layout %x : tensor<128x152xf16, #mma> -> tensor<128x152xf16, #blocked>
    tile.store %O[%t, %c0], %y : !tile.global<f16, 2>, tensor<128x152xf16, #blocked>
  } {tile.tile_loop}
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A store into a view (tile.subview): from rows %first on, through the
// viewed tensor's descriptor at coordinates moved by the view's start; a
// view ending before its tensor does stays a store from registers (TMA
// would write past the view's end).
// CHECK-LABEL: func.func @views
// CHECK-SAME:  (%[[O:[^:]*]]: !tile.global<f16, 2>, %[[V:[^:]*]]: f16, %[[F:[^:]*]]: i32, %[[L:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[MAP:[^:]*]]: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK:       %[[NARROW:.*]] = tile.subview %[[O]][%[[F]], %{{.*}}] ends[%[[L]]]
// CHECK:       %[[ROW:.*]] = arith.muli %[[M]], %{{.*}} : i32
// CHECK:       %[[START:.*]] = arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK:       %[[AT:.*]] = arith.select %{{.*}}, %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:  tile.tma_store %[[MAP]][%[[AT]], %{{.*}}]
// CHECK:       tile.store %[[NARROW]][%[[M]], %{{.*}}]
func.func @views(%O: !tile.global<f16, 2>, %v: f16, %first: i32, %last: i32, %m: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %from = tile.subview %O[%first, %c0] : !tile.global<f16, 2>
  %within = tile.subview %O[%first, %c0] ends[%last] {end_dims = array<i32: 0>} : !tile.global<f16, 2>
  %x = tile.full %v : tensor<64x64xf16, #mma>
  %y = tile.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
  tile.store %from[%m, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  tile.store %within[%m, %c0], %y : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  return
}
