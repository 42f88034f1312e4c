// RUN: tile-opt %s -split-input-file --tile-persistent | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline=tile-stages=1 | FileCheck %s --check-prefix=TILE1
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize | FileCheck %s --check-prefix=WS
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline=tile-stages=1 --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize | FileCheck %s --check-prefix=WS1
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline="tile-stages=1 tile-refill-after-read" | FileCheck %s --check-prefix=TILE1R
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline="tile-stages=1 tile-refill-after-read" --tile-convert-copies-to-tma --canonicalize --cse --tile-warp-specialize | FileCheck %s --check-prefix=WS1R
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-persistent | FileCheck %s --check-prefix=TWICE
// RUN: tile-opt %s -split-input-file --tile-persistent --tile-pipeline="tile-stages=1 tile-refill-after-read warn-tile-stages warn-refill" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILEWARN

// tile-stages and tile-refill-after-read asked for (warn-tile-stages,
// warn-refill): said where a tile loads nothing of its own outside its
// loops (@grid, @gemm, @two_loops); not where it does (@tile_operand,
// @mixed_tile_copies).
// TILEWARN:      warning: tile_stages=1 does not apply to this kernel: its tile loads nothing of its own outside its loops
// TILEWARN-NEXT: func.func @grid
// TILEWARN:      warning: tile_refill_after_read does not apply to this kernel: its tile loads nothing of its own outside its loops
// TILEWARN:      warning: tile_stages=1 does not apply to this kernel
// TILEWARN-NEXT: func.func @gemm
// TILEWARN:      warning: tile_refill_after_read does not apply to this kernel
// TILEWARN:      warning: tile_stages=1 does not apply to this kernel
// TILEWARN-NEXT: func.func @two_loops
// TILEWARN:      warning: tile_refill_after_read does not apply to this kernel
// TILEWARN-NOT:  warning

// tile-persistent: the kernel gets three trailing i32 parameters, its
// logical grid, and the i64 address of its tile counter, and its body moves into an scf.for over the logical blocks,
// from tile.bid 0 to gx * gy * gz in steps of tile.num_blocks 0, marked
// tile.tile_loop (and never split). In it, tile.bid i is the logical
// block's index, x fastest, and tile.num_blocks i the logical grid.
// CHECK-LABEL: func.func @grid
// CHECK-SAME:  (%[[OUT:[^:]*]]: !tile.global<i32, 1>, %[[GX:[^:]*]]: i32, %[[GY:[^:]*]]: i32, %[[GZ:[^:]*]]: i32, %{{[^:]*}}: i64)
// CHECK-SAME:  tile.persistent = 1 : i32
// CHECK-NEXT:  %[[XY:.*]] = arith.muli %[[GX]], %[[GY]] : i32
// CHECK-NEXT:  %[[ALL:.*]] = arith.muli %[[XY]], %[[GZ]] : i32
// CHECK-NEXT:  %[[FIRST:.*]] = tile.bid 0
// CHECK-NEXT:  %[[STEP:.*]] = tile.num_blocks 0
// CHECK-NEXT:  scf.for %[[T:.*]] = %[[FIRST]] to %[[ALL]] step %[[STEP]] : i32 {
// CHECK-NEXT:    %[[X:.*]] = arith.remui %[[T]], %[[GX]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.divui %[[T]], %[[GX]] : i32
// CHECK-NEXT:    %[[Y:.*]] = arith.remui %[[R]], %[[GY]] : i32
// CHECK-NEXT:    %[[Z:.*]] = arith.divui %[[R]], %[[GY]] : i32
// CHECK-NEXT:    %[[A:.*]] = arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT:    %[[B:.*]] = arith.addi %[[A]], %[[Z]] : i32
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[B]], %[[GY]] : i32
// CHECK-NOT:     tile.bid
// CHECK-NOT:     tile.num_blocks
// CHECK:         tile.store %[[OUT]][%[[C]]]
// CHECK-NEXT:  } {tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// CHECK-NEXT:  return
// Made persistent once only.
// TWICE-LABEL: func.func @grid
// TWICE-SAME:  (%{{[^:]*}}: !tile.global<i32, 1>, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i64)
// TWICE-SAME:  tile.persistent = 1 : i32
// TWICE:       scf.for
// TWICE-NOT:   scf.for
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @grid(%out: !tile.global<i32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.bid 0
  %y = tile.bid 1
  %z = tile.bid 2
  %ny = tile.num_blocks 1
  %a = arith.addi %x, %y : i32
  %b = arith.addi %a, %z : i32
  %c = arith.addi %b, %ny : i32
  %v = tile.full %c : tensor<128xi32, #b1>
  tile.store %out[%c], %v : <i32, 1>, tensor<128xi32, #b1>
  return
}

// -----

// A GEMM tile per logical block. tile-pipeline allocates the rings of the
// K loop before the tile loop and carries its iteration counter around it:
// each tile's prologue fills the slots (base + t) mod S, base being the
// trips of the tiles before, and the next tile starts where this one's
// counter ended.
// TWICE-LABEL: func.func @gemm
// PIPE-LABEL: func.func @gemm
// PIPE:       %[[RA:.*]] = tile.smem_alloc : <[2, 128, 64], f16
// PIPE-NEXT:  %[[RB:.*]] = tile.smem_alloc : <[2, 64, 128], f16
// PIPE-NEXT:  %[[END:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BASE:.*]] = %{{.*}}) -> (i32)  : i32 {
// PIPE:         %[[F:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// PIPE-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// PIPE-NEXT:    %[[S:.*]] = arith.remui %[[F]], %[[C2]] : i32
// PIPE-NEXT:    tile.smem_slot %[[RA]][%[[S]]]
// PIPE:         %[[K:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[BASE]]) -> (tensor<128x128xf32, #mma>, i32)
// PIPE:         } {tile.pipelined}
// PIPE:         scf.yield %[[K]]#1 : i32
// PIPE-NEXT:  } {tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// On sm_90a the rings' barriers are initialized once, before the tile
// loop, and invalidated after it: their phases follow the fill count from
// tile to tile.
// TMA-LABEL: func.func @gemm
// TMA:       %[[BA:.*]] = tile.mbarrier_alloc : <2>
// TMA-NEXT:  tile.mbarrier_init %[[BA]] {count = 1 : i32} : <2>
// TMA:       %[[BB:.*]] = tile.mbarrier_alloc : <2>
// TMA-NEXT:  tile.mbarrier_init %[[BB]] {count = 1 : i32} : <2>
// TMA:       scf.for
// TMA-NOT:     tile.mbarrier_init
// TMA-NOT:     tile.mbarrier_inval
// TMA:         tile.tma_load
// TMA:         scf.for
// TMA:           tile.mbarrier_wait %[[BA]]
// TMA:         } {tile.pipelined}
// TMA-NOT:     tile.mbarrier_inval
// TMA:       } {tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// TMA-NEXT:  tile.mbarrier_inval %[[BB]] : <2>
// TMA-NEXT:  tile.mbarrier_inval %[[BA]] : <2>
// Specialized, both roles run the tile loop with the ring position. The
// producer waits for a free slot before every fill, the prologue's too
// (their slots held the previous tile's last data); the consumers release
// only where the pipeline refilled, in the K loop.
// WS-LABEL:  func.func @gemm
// WS:        tile.warp_specialize
// WS-SAME:   producer {
// WS:          scf.for {{.*}} iter_args(%[[PB:.*]] = %{{.*}}) -> (i32)
// WS:            %[[PS:.*]] = arith.remui %[[PB]], %{{.*}} : i32
// WS:            %[[PR:.*]] = arith.divui %[[PB]], %{{.*}} : i32
// WS-NEXT:       %[[PR1:.*]] = arith.addi %[[PR]], %{{.*}} : i32
// WS-NEXT:       %[[PP:.*]] = arith.andi %[[PR1]], %{{.*}} : i32
// WS-NEXT:       tile.mbarrier_wait %{{.*}}[%[[PS]]], %[[PP]] if
// WS-NEXT:       tile.tma_load {{.*}} {issuer = 128 : i32}
// WS:            scf.for
// WS:              tile.mbarrier_wait
// WS:              tile.tma_load {{.*}} {issuer = 128 : i32}
// WS:        } consumer {
// WS:          scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32)
// WS-NOT:        tile.mbarrier_arrive
// WS:            scf.for
// WS:              tile.mbarrier_arrive
// WS:            } {tile.pipelined}
// WS-NOT:        tile.mbarrier_arrive
// WS:          } {tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %n = tile.bid 1
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
    tile.async_copy %A[%m, %j], %ba {layout = #blocked, shape = array<i64: 128, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// Two copying loops in a tile (a split attention kernel's): their rings
// stay in the tile loop, one after the other, and each tile fills them
// afresh.
// PIPE-LABEL: func.func @two_loops
// PIPE:       scf.for {{.*}} {
// PIPE:         tile.smem_alloc : <[2, 64, 64], f16
// PIPE:         scf.for
// PIPE:         } {tile.pipelined}
// PIPE:         tile.smem_alloc : <[2, 64, 64], f16
// PIPE:         scf.for
// PIPE:         } {tile.pipelined}
// PIPE:       } {tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @two_loops(%A: !tile.global<f16, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  scf.for %j = %c0 to %k step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
    tile.async_copy %A[%m, %j], %ba {layout = #blocked, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 64], f16, #sa>
  }
  scf.for %j = %c0 to %k step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
    tile.async_copy %A[%j, %m], %ba {layout = #blocked, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 64], f16, #sa>
  }
  return
}

// -----

// A copy of the tile itself (attention's Q: once per tile, read by every
// trip of the K loop) gets a ring of its own in the tile loop (tile-stages,
// 2): the prologue, before the tile loop, fills slot 0 for the block's
// first tile; tile `it` waits for its slot, then copies the next tile's
// (t + step, if below the logical grid's end) into slot (it + 1) mod 2.
// The tile loop is pipelined after the K loop, whose rings it carries.
// PIPE-LABEL: func.func @tile_operand
// PIPE:       %[[RB:.*]] = tile.smem_alloc : <[2, 64, 128], f16
// PIPE-NEXT:  %[[RA:.*]] = tile.smem_alloc : <[2, 128, 64], f16
// PIPE:       %[[FIRST:.*]] = tile.smem_slot %[[RA]][%{{.*}}]
// PIPE-NEXT:  tile.async_copy %{{.*}}, %[[FIRST]] if
// PIPE:       scf.for %[[T:.*]] = %{{.*}} to %[[END:.*]] step %[[STEP:[^ ]*]] iter_args(%[[BASE:.*]] = %{{.*}}, %[[IT:.*]] = %{{.*}}) -> (i32, i32)
// PIPE:         %[[S:.*]] = arith.remui %[[IT]], %{{.*}} : i32
// PIPE-NEXT:    %[[VIEW:.*]] = tile.smem_slot %[[RA]][%[[S]]]
// PIPE:         tile.async_wait %[[VIEW]]
// PIPE:         %[[NEXT:.*]] = arith.addi %[[T]], %{{.*}} : i32
// PIPE-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[END]] : i32
// PIPE:         %[[IT1:.*]] = arith.addi %[[IT]], %{{.*}} : i32
// PIPE-NEXT:    %[[S1:.*]] = arith.remui %[[IT1]], %{{.*}} : i32
// PIPE:         %[[REFILL:.*]] = tile.smem_slot %[[RA]][%[[S1]]]
// PIPE-NEXT:    tile.async_copy %{{.*}}, %[[REFILL]] if %[[MORE]]
// PIPE:         scf.for
// PIPE:           tile.wgmma %[[VIEW]]
// PIPE:         } {tile.pipelined}
// PIPE:       } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// At tile-stages=1 the tile's copy stays where it waits for it, unpredicated,
// but into a ring of one slot before the tile loop, indexed by the tile
// loop's counter modulo 1 (which tile-convert-copies-to-tma counts fills
// by).
// TILE1-LABEL: func.func @tile_operand
// TILE1:       %[[RQ:.*]] = tile.smem_alloc : <[1, 128, 64], f16
// TILE1:       scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %{{.*}}) -> (i32, i32)
// TILE1:         %[[S:.*]] = arith.remui %[[IT]], %c1_i32
// TILE1-NEXT:    %[[Q:.*]] = tile.smem_slot %[[RQ]][%[[S]]]
// TILE1:         tile.async_copy %{{.*}}, %[[Q]] {
// TILE1-NEXT:    tile.async_wait %[[Q]]
// TILE1:         scf.for
// TILE1:           tile.wgmma %[[Q]]
// TILE1:       } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// Specialized, the ring of one slot has its producer too: its fills are
// the tile loop's trips, which tile-warp-specialize counts in both roles
// (a new iteration argument); fill f waits for the consumers' release of
// fill f - 1 (parity (f + 1) mod 2), which they give at the top of tile f,
// where the copy was, from the second tile on.
// WS1-LABEL: func.func @tile_operand
// WS1:       %[[RQ:.*]] = tile.smem_alloc : <[1, 128, 64], f16
// WS1-NEXT:  %[[FULL:.*]] = tile.mbarrier_alloc : <1>
// WS1-NEXT:  tile.mbarrier_init %[[FULL]] {count = 1 : i32}
// WS1-NEXT:  %[[EMPTY:.*]] = tile.mbarrier_alloc : <1>
// WS1-NEXT:  tile.mbarrier_init %[[EMPTY]] {count = 128 : i32}
// WS1:       tile.warp_specialize
// WS1-SAME:  producer {
// WS1:         scf.for %{{.*}} iter_args(%[[F:.*]] = %{{.*}}) -> (i32)
// WS1:           %[[SLOT:.*]] = tile.smem_slot %[[RQ]][%[[C0:c0_i32[_0-9]*]]]
// WS1:           %[[ROUND:.*]] = arith.divui %[[F]], %{{.*}} : i32
// WS1-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROUND]], %{{.*}} : i32
// WS1-NEXT:      %[[PAR:.*]] = arith.andi %[[NEXT]], %{{.*}} : i32
// WS1-NEXT:      tile.mbarrier_wait %[[EMPTY]][%[[C0]]], %[[PAR]] : <1>
// WS1-NEXT:      tile.tma_load %{{.*}}, %[[SLOT]], %[[FULL]][%[[C0]]] {issuer = 128 : i32}
// WS1:           %[[F1:.*]] = arith.addi %[[F]], %{{.*}} : i32
// WS1-NEXT:      scf.yield %[[F1]]
// WS1:       } producer {
// WS1:       } consumer {
// WS1:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %{{.*}}, %[[CF:.*]] = %{{.*}}) -> (i32, i32, i32)
// WS1:           %[[Q:.*]] = tile.smem_slot %[[RQ]]
// WS1:           %[[HELD:.*]] = arith.cmpi uge, %[[CF]], %{{.*}} : i32
// WS1-NEXT:      tile.mbarrier_arrive %[[EMPTY]][%{{.*}}], %[[Q]] if %[[HELD]] : <1>
// WS1-NEXT:      %[[PH:.*]] = arith.andi %[[IT]], %{{.*}} : i32
// WS1-NEXT:      tile.mbarrier_wait %[[FULL]][%{{.*}}], %[[PH]], %[[Q]]
// WS1:           scf.for
// WS1:             tile.wgmma %[[Q]]
// WS1:           } {tile.pipelined}
// WS1:           %[[CF1:.*]] = arith.addi %[[CF]], %{{.*}} : i32
// WS1-NEXT:      scf.yield %{{.*}}, %{{.*}}, %[[CF1]]
// WS1:         } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// With tile-refill-after-read the one slot is filled a tile ahead: the
// prologue fills it for the block's first tile, and each tile, after its
// last read of the slot (the K loop) and the loop's drain, copies the next
// tile's (t + step, if below the grid's end) into it; the tile waits for
// its own at its top as before.
// TILE1R-LABEL: func.func @tile_operand
// TILE1R:       %[[RQ:.*]] = tile.smem_alloc : <[1, 128, 64], f16
// TILE1R:       %[[FIRST:.*]] = tile.smem_slot %[[RQ]][%{{.*}}]
// TILE1R-NEXT:  tile.async_copy %{{.*}}, %[[FIRST]] if
// TILE1R:       scf.for %[[T:.*]] = %{{.*}} to %[[END:.*]] step %[[STEP:[^ ]*]] iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %{{.*}}) -> (i32, i32)
// TILE1R:         %[[S:.*]] = arith.remui %[[IT]], %c1_i32
// TILE1R-NEXT:    %[[Q:.*]] = tile.smem_slot %[[RQ]][%[[S]]]
// TILE1R-NOT:     tile.async_copy %{{.*}}, %[[Q]]
// TILE1R:         tile.async_wait %[[Q]]
// TILE1R:         scf.for
// TILE1R:           tile.wgmma %[[Q]]
// TILE1R:         } {tile.pipelined}
// TILE1R-NEXT:    tile.async_wait
// TILE1R-NEXT:    %[[NEXT:.*]] = arith.addi %[[T]], %[[STEP]] : i32
// TILE1R-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[END]] : i32
// TILE1R:         %[[IT1:.*]] = arith.addi %[[IT]], %{{.*}} : i32
// TILE1R-NEXT:    %[[S1:.*]] = arith.remui %[[IT1]], %{{.*}} : i32
// TILE1R:         %[[REFILL:.*]] = tile.smem_slot %[[RQ]][%[[S1]]]
// TILE1R-NEXT:    tile.async_copy %{{.*}}, %[[REFILL]] if %[[MORE]]
// TILE1R-NEXT:    tile.store
// TILE1R:       } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// Specialized, the refill is the consumers' release of the slot right after
// the K loop, unpredicated: tile t's refill is the slot's fill t + 1 (the
// first came before the tile loop), so the producer waits for phase t of
// the empty barrier (parity (t + 2) mod 2) before copying the next tile's.
// WS1R-LABEL: func.func @tile_operand
// WS1R:       %[[RQ:.*]] = tile.smem_alloc : <[1, 128, 64], f16
// WS1R-NEXT:  %[[FULL:.*]] = tile.mbarrier_alloc : <1>
// WS1R-NEXT:  tile.mbarrier_init %[[FULL]] {count = 1 : i32}
// WS1R-NEXT:  %[[EMPTY:.*]] = tile.mbarrier_alloc : <1>
// WS1R-NEXT:  tile.mbarrier_init %[[EMPTY]] {count = 128 : i32}
// WS1R:       tile.warp_specialize
// WS1R-SAME:  producer {
// WS1R:         %[[SLOT:.*]] = tile.smem_slot %[[RQ]][%[[C0:c0_i32[_0-9]*]]]
// WS1R-NOT:     tile.mbarrier_wait
// WS1R:         tile.tma_load %{{.*}}, %[[SLOT]], %[[FULL]][%[[C0]]] if %{{.*}} {issuer = 128 : i32}
// WS1R:         scf.for %{{.*}} iter_args(%[[F:.*]] = %{{.*}}) -> (i32)
// WS1R:           %[[FILL:.*]] = arith.addi %[[F]], %c1_i32
// WS1R:           %[[ROUND:.*]] = arith.divui %[[FILL]], %{{.*}} : i32
// WS1R-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROUND]], %{{.*}} : i32
// WS1R-NEXT:      %[[PAR:.*]] = arith.andi %[[NEXT]], %{{.*}} : i32
// WS1R-NEXT:      tile.mbarrier_wait %[[EMPTY]][%[[C0]]], %[[PAR]] if %[[MORE:.*]] : <1>
// WS1R-NEXT:      tile.tma_load %{{.*}}, %[[SLOT]], %[[FULL]][%[[C0]]] if %[[MORE]] {issuer = 128 : i32}
// WS1R:       } producer {
// WS1R:       } consumer {
// WS1R:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32)
// WS1R:           %[[PH:.*]] = arith.andi %[[IT]], %{{.*}} : i32
// WS1R-NEXT:      tile.mbarrier_wait %[[FULL]][%{{.*}}], %[[PH]], %[[Q:[^ ]*]]
// WS1R-NOT:       tile.mbarrier_arrive %[[EMPTY]]
// WS1R:           scf.for
// WS1R:             tile.wgmma %[[Q]]
// WS1R:           } {tile.pipelined}
// WS1R-NOT:       tile.mbarrier_arrive %[[EMPTY]]{{.*}} if
// WS1R:           tile.mbarrier_arrive %[[EMPTY]][%{{.*}}], %[[Q]] : <1>
// WS1R-NEXT:      tile.store
// WS1R:         } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
// Specialized: a producer per ring, the tile's ring first. The consumers
// release the tile's slot at the top of the next tile (where the pipeline
// refilled), and the K loop's ring only in the K loop: the K ring's first
// fills, in the tile loop too, are no refills (the ring is first filled
// in the tile loop, not before it).
// WS-LABEL:  func.func @tile_operand
// WS:        tile.warp_specialize
// WS-SAME:   producer {
// WS:          tile.tma_load {{.*}} {issuer = 128 : i32} : <[128, 64], f16
// WS:          scf.for
// WS:            tile.mbarrier_wait
// WS-NEXT:       tile.tma_load {{.*}} {issuer = 128 : i32} : <[128, 64], f16
// WS:        } producer {
// WS:          scf.for
// WS:            tile.tma_load {{.*}} {issuer = 160 : i32}
// WS:            scf.for
// WS:              tile.tma_load {{.*}} {issuer = 160 : i32}
// WS:        } consumer {
// WS:          scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CIT:.*]] = %{{.*}}) -> (i32, i32)
// WS:            tile.mbarrier_wait
// WS:            %[[CIT1:.*]] = arith.addi %[[CIT]], %{{.*}} : i32
// WS:            %[[HELD:.*]] = arith.cmpi uge, %[[CIT1]], %{{.*}} : i32
// WS-NEXT:       tile.mbarrier_arrive %{{.*}} if %[[HELD]] : <2>, <[128, 64], f16
// WS-NOT:        tile.mbarrier_arrive
// WS:            scf.for
// WS:              tile.mbarrier_arrive %{{.*}} : <2>, <[64, 128], f16
// WS:            } {tile.pipelined}
// WS-NOT:        tile.mbarrier_arrive
// WS:          } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @tile_operand(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = tile.bid 0
  %n = tile.bid 1
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[128, 64], f16, #sa>
  tile.async_copy %A[%m, %c0], %ba {layout = #blocked, shape = array<i64: 128, 64>} : !tile.global<f16, 2>, !tile.smem<[128, 64], f16, #sa>
  tile.async_wait %ba : !tile.smem<[128, 64], f16, #sa>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %bb = tile.smem_alloc : !tile.smem<[64, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 64, 128>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #sb>
    tile.async_wait %bb : !tile.smem<[64, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32, #mma>
  return
}

// -----

// With a tile copy of two stages beside it (a latency hint), a one-stage
// copy is not refilled after its last read (the cp.async wait counts of
// the prefetched copy would not hold): it stays at its own wait.
// TILE1R-LABEL: func.func @mixed_tile_copies
// TILE1R:       scf.for
// TILE1R:         %[[B:.*]] = tile.smem_slot %{{.*}} : <[1, 64, 64], f16
// TILE1R:         tile.local_load
// TILE1R-NEXT:    tile.async_copy %{{.*}}, %[[B]] {
// TILE1R-NEXT:    tile.async_wait %[[B]]
// TILE1R-NEXT:    tile.local_load %[[B]]
// TILE1R-NOT:     tile.async_copy %{{.*}}, %[[B]]
// TILE1R:       } {tile.pipelined, tile.schedule = #tile.schedule<loop_split = false>, tile.tile_loop}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @mixed_tile_copies(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %m = tile.bid 0
  %ba = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
  tile.async_copy %A[%m, %c0], %ba {layout = #blocked, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
  tile.async_wait %ba : !tile.smem<[64, 64], f16, #sa>
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 64], f16, #sa> -> tensor<64x64xf16, #blocked>
  %bb = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
  tile.async_copy %A[%c0, %m], %bb {layout = #blocked, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
  tile.async_wait %bb : !tile.smem<[64, 64], f16, #sa>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 64], f16, #sa> -> tensor<64x64xf16, #blocked>
  %s = arith.addf %a, %b : tensor<64x64xf16, #blocked>
  tile.store %O[%m, %c0], %s : !tile.global<f16, 2>, tensor<64x64xf16, #blocked>
  return
}
