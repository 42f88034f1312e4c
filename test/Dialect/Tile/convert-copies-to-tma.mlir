// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-convert-copies-to-tma --canonicalize --cse | FileCheck %s

// tile-convert-copies-to-tma turns the rings of a loop pipelined by
// tile-pipeline into TMA rings: every copy into a ring slot is a tile.tma_load
// from a descriptor of the tensor (a new, trailing kernel parameter, listed
// in tile.tensor_maps), completing on the slot's mbarrier; every wait for a
// slot is a tile.mbarrier_wait on it with parity (it / S) mod 2, where it is
// the pipeline's iteration counter. The barriers are allocated and
// initialized after their ring and invalidated after the loop, whose wait
// for all cp.async groups goes.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A GEMM, two stages. A's 128x32 tile is one box of 32 halves (the 64-byte
// swizzle); B's 32x128 tile, in blocks of 64 columns (the 128-byte swizzle),
// is two boxes of 32x64: its map's box is [32, 64]. Coordinates are in
// elements: the tile index times the tile's extent.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  (%[[A:[^:]*]]: !tile.global<f16, 2>, %[[B:[^:]*]]: !tile.global<f16, 2>, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[K:[^:]*]]: i32,
// CHECK-SAME:  %[[MA:[^:]*]]: !tile.tensor_map<[128, 32], f16, swizzle = 64>, %[[MB:[^:]*]]: !tile.tensor_map<[32, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 128, 32>, param = 0 : i32, swizzle = 64 : i32}, {box = array<i64: 32, 64>, param = 1 : i32, swizzle = 128 : i32}]
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG:   %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : i32
// CHECK:       %[[RA:.*]] = tile.smem_alloc : <[2, 128, 32], f16
// CHECK-NEXT:  %[[BA:.*]] = tile.mbarrier_alloc : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[BA]] {count = 1 : i32} : <2>
// CHECK-NEXT:  %[[RB:.*]] = tile.smem_alloc : <[2, 32, 128], f16
// CHECK-NEXT:  %[[BB:.*]] = tile.mbarrier_alloc : <2>
// CHECK-NEXT:  tile.mbarrier_init %[[BB]] {count = 1 : i32} : <2>
// The prologue: iteration 0's copies into slot 0, if the loop runs.
// CHECK-NEXT:  %[[RUNS:.*]] = arith.cmpi sgt, %[[K]], %[[C0]]
// CHECK-NEXT:  %[[SA0:.*]] = tile.smem_slot %[[RA]][%[[C0]]]
// CHECK-NEXT:  %[[ROWA:.*]] = arith.muli %[[M]], %[[C128]]
// CHECK-NEXT:  tile.tma_load %[[MA]][%[[ROWA]], %[[C0]]], %[[SA0]], %[[BA]][%[[C0]]] if %[[RUNS]] : <[128, 32], f16, swizzle = 64>, <[128, 32], f16, #{{.*}}>, <2>
// CHECK-NEXT:  %[[SB0:.*]] = tile.smem_slot %[[RB]][%[[C0]]]
// CHECK-NEXT:  %[[COLB:.*]] = arith.muli %[[N]], %[[C128]]
// CHECK-NEXT:  tile.tma_load %[[MB]][%[[C0]], %[[COLB]]], %[[SB0]], %[[BB]][%[[C0]]] if %[[RUNS]]
// CHECK-NEXT:  %{{.*}}:2 = scf.for %[[J:.*]] = %[[C0]] to %[[K]] step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[IT:.*]] = %[[C0]])
// Iteration it waits for slot it % 2 at parity (it / 2) % 2.
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[IT]], %[[C2]]
// CHECK-NEXT:    %[[VB:.*]] = tile.smem_slot %[[RB]][%[[SLOT]]]
// CHECK-NEXT:    %[[VA:.*]] = tile.smem_slot %[[RA]][%[[SLOT]]]
// CHECK-NEXT:    %[[FILLS:.*]] = arith.divui %[[IT]], %[[C2]]
// CHECK-NEXT:    %[[PHASE:.*]] = arith.andi %[[FILLS]], %[[C1]]
// CHECK-NEXT:    tile.mbarrier_wait %[[BA]][%[[SLOT]]], %[[PHASE]], %[[VA]] : <2>, !tile.smem<[128, 32], f16
// CHECK-NEXT:    tile.mbarrier_wait %[[BB]][%[[SLOT]]], %[[PHASE]], %[[VB]] : <2>, !tile.smem<[32, 128], f16
// The refills, for iteration j + 1 into slot (it + 1) % 2.
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[J]], %[[C1]]
// CHECK-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[K]]
// CHECK-NEXT:    %[[IT1:.*]] = arith.addi %[[IT]], %[[C1]]
// CHECK-NEXT:    %[[WSLOT:.*]] = arith.remui %[[IT1]], %[[C2]]
// CHECK-NEXT:    %[[WA:.*]] = tile.smem_slot %[[RA]][%[[WSLOT]]]
// CHECK-NEXT:    %[[KA:.*]] = arith.muli %[[NEXT]], %[[C32]]
// CHECK-NEXT:    tile.tma_load %[[MA]][%[[ROWA]], %[[KA]]], %[[WA]], %[[BA]][%[[WSLOT]]] if %[[MORE]]
// CHECK-NEXT:    %[[WB:.*]] = tile.smem_slot %[[RB]][%[[WSLOT]]]
// CHECK-NEXT:    tile.tma_load %[[MB]][%[[KA]], %[[COLB]]], %[[WB]], %[[BB]][%[[WSLOT]]] if %[[MORE]]
// CHECK-NEXT:    tile.wgmma %[[VA]], %[[VB]], %[[ACC]]
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {tile.pipelined}
// CHECK-NEXT:  tile.mbarrier_inval %[[BB]] : <2>
// CHECK-NEXT:  tile.mbarrier_inval %[[BA]] : <2>
// CHECK-NEXT:  return
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32, %n: i32, %k: i32) -> tensor<128x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[128, 32], f16, #sa>
    tile.async_copy %A[%m, %j], %ba {layout = #blocked, shape = array<i64: 128, 32>} : !tile.global<f16, 2>, !tile.smem<[128, 32], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[32, 128], f16, #sb>
    tile.async_copy %B[%j, %n], %bb {layout = #blocked1, shape = array<i64: 32, 128>} : !tile.global<f16, 2>, !tile.smem<[32, 128], f16, #sb>
    tile.async_wait %ba : !tile.smem<[128, 32], f16, #sa>
    tile.async_wait %bb : !tile.smem<[32, 128], f16, #sb>
    %d = tile.wgmma %ba, %bb, %acc : !tile.smem<[128, 32], f16, #sa>, !tile.smem<[32, 128], f16, #sb>, tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  return %r : tensor<128x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>

// K^T, a transposed copy (order = [0, 1, 3, 2]) of K[b, h, n, d]: tile
// dimension 2 (d) lies along tensor dimension 3, the buffer's fastest, and
// tile dimension 3 (n) along tensor dimension 2. The box, in the tensor's
// order, is [1, 1, 64 (n), 64 (d)]; the coordinates are permuted the same
// way. Three stages: two copies in the prologue, parity (it / 3) % 2. All
// the copies share one descriptor.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME:  (%[[K:[^:]*]]: !tile.global<f16, 4>, %[[B:[^:]*]]: i32, %[[H:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[MK:[^:]*]]: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 1, 1, 64, 64>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : i32
// CHECK:       %[[BARS:.*]] = tile.mbarrier_alloc : <3>
// CHECK:       tile.tma_load %[[MK]][%[[B]], %[[H]], %[[C0]], %[[C0]]], %{{.*}}, %[[BARS]][%[[C0]]] if
// CHECK:       tile.tma_load %[[MK]][%[[B]], %[[H]], %[[C64]], %[[C0]]], %{{.*}}, %[[BARS]][%{{.*}}] if
// CHECK:       scf.for
// CHECK:         %[[SLOT:.*]] = arith.remui %[[IT:.*]], %[[C3]]
// CHECK:         %[[FILLS:.*]] = arith.divui %[[IT]], %[[C3]]
// CHECK-NEXT:    %[[PHASE:.*]] = arith.andi %[[FILLS]],
// CHECK-NEXT:    tile.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PHASE]], %{{.*}} : <3>, !tile.smem<[64, 64], f16
// CHECK:         tile.tma_load %[[MK]][%[[B]], %[[H]], %{{.*}}, %[[C0]]]
// CHECK:       tile.mbarrier_inval %[[BARS]] : <3>
func.func @transposed(%K: !tile.global<f16, 4>, %b: i32, %h: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %bk = tile.smem_alloc : !tile.smem<[64, 64], f16, #sk>
    tile.async_copy %K[%b, %h, %c0, %j], %bk {layout = #blocked, order = array<i32: 0, 1, 3, 2>, shape = array<i64: 1, 1, 64, 64>, latency = 3 : i32} : !tile.global<f16, 4>, !tile.smem<[64, 64], f16, #sk>
    tile.async_wait %bk : !tile.smem<[64, 64], f16, #sk>
    %d = tile.wgmma %bk, %bk, %acc : !tile.smem<[64, 64], f16, #sk>, !tile.smem<[64, 64], f16, #sk>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ld = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// Loops whose copies TMA cannot make stay cp.async, whole, and the kernel
// says why in tile.tma_fallback: tensors assumed 8-byte aligned; a buffer
// swizzled for ldmatrix.
// CHECK-LABEL: func.func @aligned8
// CHECK-SAME:  tile.tma_fallback = ["line {{[0-9]+}}: cp.async instead of TMA: the tensors' assumed alignment (8 bytes) is below the 16 bytes TMA needs"]
// CHECK-NOT:   tile.tma_load
// CHECK:       tile.async_copy
// CHECK:       tile.async_wait %
// CHECK-NOT:   tile.mbarrier
func.func @aligned8(%A: !tile.global<f16, 2>, %n: i32) attributes {tile.num_warps = 4 : i32, tile.tensor_alignment = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[32, 128], f16, #sb>
    tile.async_copy %A[%j, %c0], %ba {layout = #blocked, shape = array<i64: 32, 128>} : !tile.global<f16, 2>, !tile.smem<[32, 128], f16, #sb>
    tile.async_wait %ba : !tile.smem<[32, 128], f16, #sb>
  }
  return
}

// CHECK-LABEL: func.func @ldmatrix_swizzle
// CHECK-SAME:  tile.tma_fallback = ["line {{[0-9]+}}: cp.async instead of TMA: the buffer is swizzled for ldmatrix, not as TMA writes"]
// CHECK-NOT:   tile.tma_load
// CHECK:       tile.async_copy
func.func @ldmatrix_swizzle(%A: !tile.global<f16, 2>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[32, 128], f16, #ld>
    tile.async_copy %A[%j, %c0], %ba {layout = #blocked, shape = array<i64: 32, 128>} : !tile.global<f16, 2>, !tile.smem<[32, 128], f16, #ld>
    tile.async_wait %ba : !tile.smem<[32, 128], f16, #ld>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A tile padded across its fastest dimension (48 rows held in a buffer of
// 64): the box is the tile's 48 rows, not the buffer's 64, so that the copy
// reads no rows of the tensor past the tile (a GEMM's 192-column B tile read
// 256 rows of W); the barrier expects the box's bytes, and the padding's
// rows stay as they are.
// CHECK-LABEL: func.func @padded_rows
// CHECK-SAME:  %{{.*}}: !tile.tensor_map<[48, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 48, 64>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK:       tile.tma_load %{{.*}} : <[48, 64], f16, swizzle = 128>, <[48, 64], f16, #{{.*}}>, <2>
func.func @padded_rows(%A: !tile.global<f16, 2>, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[48, 64], f16, #sb>
    tile.async_copy %A[%j, %c0], %ba {layout = #blocked, shape = array<i64: 48, 64>} : !tile.global<f16, 2>, !tile.smem<[48, 64], f16, #sb>
    tile.async_wait %ba : !tile.smem<[48, 64], f16, #sb>
  }
  return
}

// -----

#row = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#s1 = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>

// A row of 80 f32 (attention backward's LSE at 80 queries a trip): a box of
// its own 80 elements (320 bytes, whole 16-byte units), not of its padded
// 128: the ring's slots are held at 384 bytes
// (tile-allocate-shared-memory), where 512 would write into the next.
// CHECK-LABEL: func.func @padded_row
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 1, 80>, param = 0 : i32, swizzle = 0 : i32}]
// CHECK:       tile.tma_load %{{.*}} : <[1, 80], f32, swizzle = 0>, <[80], f32, #{{.*}}>, <2>
func.func @padded_row(%L: !tile.global<f32, 2>, %b: i32, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %ba = tile.smem_alloc : !tile.smem<[80], f32, #s1>
    tile.async_copy %L[%b, %j], %ba {layout = #row, shape = array<i64: 1, 80>} : !tile.global<f32, 2>, !tile.smem<[80], f32, #s1>
    tile.async_wait %ba : !tile.smem<[80], f32, #s1>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A copy from a view (tile.subview, rows %first on) uses the viewed
// tensor's descriptor, its coordinates moved by the view's start clamped
// into the tensor (a view's coordinate that is negative, outside the view,
// stays negative: outside the tensor too). Along columns the view starts
// at 0: nothing added.
// CHECK-LABEL: func.func @view_rows
// CHECK-SAME:  (%[[X:[^:]*]]: !tile.global<f16, 2>, %[[F:[^:]*]]: i32, %[[K:[^:]*]]: i32, %[[M:[^:]*]]: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
// CHECK-SAME:  tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]
// CHECK-NOT:   tile.tma_fallback
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK:       %[[SIZE:.*]] = tile.dim %[[X]], 0 : <f16, 2>
// CHECK-NEXT:  %[[LO:.*]] = arith.maxsi %[[F]], %[[C0]] : i32
// CHECK-NEXT:  %[[START:.*]] = arith.minsi %[[LO]], %[[SIZE]] : i32
// The prologue's copy, of the view's row tile 0: the start.
// CHECK-NEXT:  tile.tma_load %[[M]][%[[START]], %[[C0]]]
// CHECK:       scf.for
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[ROW]], %[[C0]] : i32
// CHECK-NEXT:    %[[SHIFTED:.*]] = arith.addi %[[ROW]], %[[START]] : i32
// CHECK-NEXT:    %[[AT:.*]] = arith.select %[[NEG]], %[[ROW]], %[[SHIFTED]] : i32
// CHECK-NEXT:    tile.tma_load %[[M]][%[[AT]], %[[C0]]]
func.func @view_rows(%X: !tile.global<f16, 2>, %first: i32, %k: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %v = tile.subview %X[%first, %c0] : !tile.global<f16, 2>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
    tile.async_copy %v[%j, %c0], %ba {layout = #blocked, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 64], f16, #sa>
    %d = tile.wgmma %ba, %ba, %acc : !tile.smem<[64, 64], f16, #sa>, !tile.smem<[64, 64], f16, #sa>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// A view ending before its tensor does pads past its own end, which TMA
// (padding only past the tensor's) would read: cp.async, and why.
// CHECK-LABEL: func.func @view_narrowed
// CHECK-SAME:  tile.tma_fallback = ["line {{[0-9]+}}: cp.async instead of TMA: the tensor is a slice ending before its tensor does (TMA pads only past a tensor's own end): slice only its start where what follows may be read"]
// CHECK-NOT:   tile.tma_load
func.func @view_narrowed(%X: !tile.global<f16, 2>, %first: i32, %last: i32, %k: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %v = tile.subview %X[%first, %c0] ends[%last] {end_dims = array<i32: 0>} : !tile.global<f16, 2>
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 64], f16, #sa>
    tile.async_copy %v[%j, %c0], %ba {layout = #blocked, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 64], f16, #sa>
    %d = tile.wgmma %ba, %ba, %acc : !tile.smem<[64, 64], f16, #sa>, !tile.smem<[64, 64], f16, #sa>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
