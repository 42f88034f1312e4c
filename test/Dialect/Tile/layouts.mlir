// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --verify-roundtrip > /dev/null

// Round trip of the layout attributes (#tile.blocked, #tile.mma,
// #tile.dot_operand, #tile.slice, #tile.shared), of !tile.smem, and of the
// ops that code generation adds: tile.convert_layout, tile.extract, tile.concat,
// tile.local_alloc, tile.local_load, tile.async_load and tile.async_wait.
//
// The printer names layouts with the aliases #blocked, #mma, #dot_a, #dot_b,
// #slice and #shared (numbered when there are several of one kind); inside
// an op's custom format a !tile.smem or !tile.global type prints stripped,
// as `<...>`.

// The alias definitions come first, kinds in a fixed order, numbered within a
// kind in order of first use; nested layouts refer to their parent's alias.
// CHECK:      #[[BLK:blocked]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-NEXT: #[[BLKT:blocked1]] = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-NEXT: #[[BLK1D:blocked2]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// CHECK-NEXT: #[[BLK4D:blocked3]] = #tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 2, 16], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>
// CHECK-NEXT: #[[BLK3D:blocked4]] = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
// CHECK-NEXT: #[[MMA:mma]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-NEXT: #[[MMA22:mma1]] = #tile.mma<warpsPerCTA = [2, 2]>
// The wgmma (version 3) layouts print their version and instrShape; the
// default version (2) is not printed, an instrShape given for it is.
// CHECK-NEXT: #[[MMA3:mma2]] = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
// CHECK-NEXT: #[[MMA3W8:mma3]] = #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 256, 16]>
// CHECK-NEXT: #[[MMAI:mma4]] = #tile.mma<warpsPerCTA = [4, 1], instrShape = [16, 8, 16]>
// CHECK-NEXT: #[[SH:shared]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-NEXT: #[[SHT:shared1]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-NEXT: #[[SHP:shared2]] = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
// CHECK-NEXT: #[[SH3:shared3]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
// block prints when not 0: the 128-byte swizzle of f16 (64 columns), the
// 32-byte one of a column-major bf16 tile (16 rows), and a ring of the first.
// CHECK-NEXT: #[[SHB128:shared4]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// CHECK-NEXT: #[[SHB32T:shared5]] = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1], block = 16>
// CHECK-NEXT: #[[SHB3:shared6]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
// CHECK-NEXT: #[[DOTA:dot_a]] = #tile.dot_operand<opIdx = 0, parent = #mma>
// CHECK-NEXT: #[[DOTA3:dot_a1]] = #tile.dot_operand<opIdx = 0, parent = #mma2>
// CHECK-NEXT: #[[DOTB:dot_b]] = #tile.dot_operand<opIdx = 1, parent = #mma>
// CHECK-NEXT: #[[DOTB22:dot_b1]] = #tile.dot_operand<opIdx = 1, parent = #mma1>
// CHECK-NEXT: #[[SL1:slice]] = #tile.slice<dim = 1, parent = #mma>
// CHECK-NEXT: #[[SL0:slice1]] = #tile.slice<dim = 0, parent = #blocked>
// A slice of a slice.
// CHECK-NEXT: #[[SLIN:slice2]] = #tile.slice<dim = 2, parent = #blocked4>
// CHECK-NEXT: #[[SLSL:slice3]] = #tile.slice<dim = 0, parent = #slice2>
// CHECK-NEXT: module

//===----------------------------------------------------------------------===//
// Tiles with layouts, and !tile.smem, in signatures
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @layout_types
// CHECK-SAME: tensor<64x128xf16, #[[BLK]]>
// CHECK-SAME: tensor<128x64xf16, #[[BLKT]]>
// CHECK-SAME: tensor<1024xf32, #[[BLK1D]]>
// CHECK-SAME: tensor<1x1x64x128xf16, #[[BLK4D]]>
// CHECK-SAME: tensor<64x64xf32, #[[MMA]]>
// CHECK-SAME: tensor<64x64xf32, #[[MMA22]]>
// CHECK-SAME: tensor<64x16xf16, #[[DOTA]]>
// CHECK-SAME: tensor<16x64xf16, #[[DOTB]]>
// CHECK-SAME: tensor<16x64xbf16, #[[DOTB22]]>
// CHECK-SAME: tensor<64xf32, #[[SL1]]>
// CHECK-SAME: tensor<128xi32, #[[SL0]]>
// CHECK-SAME: tensor<4xi1, #[[SLSL]]>
// CHECK-SAME: !tile.smem<[64, 128], f16, #[[SH]]>
// CHECK-SAME: !tile.smem<[128, 64], f16, #[[SHT]]>
// CHECK-SAME: !tile.smem<[16, 16], f32, #[[SHP]]>
func.func private @layout_types(
    tensor<64x128xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>,
    tensor<128x64xf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>>,
    tensor<1024xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>,
    tensor<1x1x64x128xf16, #tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 2, 16], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>>,
    tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>,
    tensor<64x64xf32, #tile.mma<warpsPerCTA = [2, 2]>>,
    tensor<64x16xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>>,
    tensor<16x64xf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>>,
    tensor<16x64xbf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [2, 2]>>>,
    tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>>,
    tensor<128xi32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>>,
    tensor<4xi1, #tile.slice<dim = 0, parent = #tile.slice<dim = 2, parent = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>>>>,
    !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>,
    !tile.smem<[128, 64], f16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>>,
    !tile.smem<[16, 16], f32, #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// Layouts written with the aliases parse the same.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#slice = #tile.slice<dim = 1, parent = #mma>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shared_t = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#blocked_t = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func private @aliases
// CHECK-SAME: (tensor<64x128xf16, #[[BLK]]>, tensor<64x64xf32, #[[MMA]]>, tensor<64x16xf16, #[[DOTA]]>, tensor<16x64xf16, #[[DOTB]]>, tensor<64xf32, #[[SL1]]>, !tile.smem<[64, 128], f16, #[[SH]]>)
func.func private @aliases(tensor<64x128xf16, #blocked>, tensor<64x64xf32, #mma>,
                           tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>,
                           tensor<64xf32, #slice>,
                           !tile.smem<[64, 128], f16, #shared>)

//===----------------------------------------------------------------------===//
// tile.convert_layout
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @convert_layout
// CHECK-SAME: (%[[X:[[:alnum:]_]+]]: tensor<64x64xf32, #[[MMA]]>, %[[H:[[:alnum:]_]+]]: tensor<64x64xf16, #[[MMA]]>, %[[S:[[:alnum:]_]+]]: tensor<64xf32, #[[SL1]]>)
func.func @convert_layout(%x: tensor<64x64xf32, #mma>, %h: tensor<64x64xf16, #mma>,
                          %s: tensor<64xf32, #slice>) {
  // CHECK-NEXT: %[[B:[[:alnum:]_]+]] = tile.convert_layout %[[X]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[BLK]]>
  // CHECK-NEXT: tile.convert_layout %[[B]] : tensor<64x64xf32, #[[BLK]]> -> tensor<64x64xf32, #[[MMA]]>
  // CHECK-NEXT: tile.convert_layout %[[H]] : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #[[DOTA]]>
  // CHECK-NEXT: tile.convert_layout %[[S]] : tensor<64xf32, #[[SL1]]> -> tensor<64xf32, #[[SL0]]>
  // CHECK-NEXT: return
  %0 = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %1 = tile.convert_layout %0 : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %2 = tile.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
  %3 = tile.convert_layout %s : tensor<64xf32, #slice> -> tensor<64xf32, #tile.slice<dim = 0, parent = #blocked>>
  return
}

//===----------------------------------------------------------------------===//
// tile.extract
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @extract
// CHECK-SAME: (%[[P:[[:alnum:]_]+]]: tensor<64x64xf16, #[[DOTA]]>, %[[T:[[:alnum:]_]+]]: tensor<64x64xf32>)
func.func @extract(%p: tensor<64x64xf16, #dot_a>, %t: tensor<64x64xf32>) {
  // CHECK-NEXT: tile.extract %[[P]] [0, 0] : tensor<64x64xf16, #[[DOTA]]> -> tensor<64x16xf16, #[[DOTA]]>
  // CHECK-NEXT: tile.extract %[[P]] [0, 48] : tensor<64x64xf16, #[[DOTA]]> -> tensor<64x16xf16, #[[DOTA]]>
  // CHECK-NEXT: tile.extract %[[T]] [32, 16] : tensor<64x64xf32> -> tensor<32x16xf32>
  // CHECK-NEXT: tile.extract %[[T]] [0, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  // CHECK-NEXT: return
  %0 = tile.extract %p [0, 0] : tensor<64x64xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
  %1 = tile.extract %p [0, 48] : tensor<64x64xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
  %2 = tile.extract %t [32, 16] : tensor<64x64xf32> -> tensor<32x16xf32>
  %3 = tile.extract %t [0, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tile.concat
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x16xf32>, %[[B:[[:alnum:]_]+]]: tensor<64x48xf32>)
func.func @concat(%a: tensor<64x16xf32>, %b: tensor<64x48xf32>) {
  // CHECK-NEXT: tile.concat %[[A]], %[[B]] {axis = 1 : i32} : tensor<64x16xf32>, tensor<64x48xf32> -> tensor<64x64xf32>
  // CHECK-NEXT: tile.concat %[[A]], %[[A]], %[[A]], %[[A]] {axis = 0 : i32} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<256x16xf32>
  %0 = tile.concat %a, %b {axis = 1 : i32} : tensor<64x16xf32>, tensor<64x48xf32> -> tensor<64x64xf32>
  %1 = tile.concat %a, %a, %a, %a {axis = 0 : i32} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<256x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tile.local_alloc / tile.local_load
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @local_alloc_load
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: tensor<64x128xf16, #[[BLK]]>, %[[K:[[:alnum:]_]+]]: tensor<128x64xf16, #[[BLKT]]>)
func.func @local_alloc_load(%a: tensor<64x128xf16, #blocked>,
                            %k: tensor<128x64xf16, #blocked_t>) {
  // CHECK-NEXT: %[[BA:[[:alnum:]_]+]] = tile.local_alloc %[[A]] : tensor<64x128xf16, #[[BLK]]> -> <[64, 128], f16, #[[SH]]>
  // CHECK-NEXT: %[[BK:[[:alnum:]_]+]] = tile.local_alloc %[[K]] : tensor<128x64xf16, #[[BLKT]]> -> <[128, 64], f16, #[[SHT]]>
  // CHECK-NEXT: tile.local_load %[[BA]] [0, 0] : <[64, 128], f16, #[[SH]]> -> tensor<64x16xf16, #[[DOTA]]>
  // CHECK-NEXT: tile.local_load %[[BA]] [0, 112] : <[64, 128], f16, #[[SH]]> -> tensor<64x16xf16, #[[DOTA]]>
  // CHECK-NEXT: tile.local_load %[[BK]] [16, 0] : <[128, 64], f16, #[[SHT]]> -> tensor<16x64xf16, #[[DOTB]]>
  // CHECK-NEXT: tile.local_load %[[BA]] [0, 0] : <[64, 128], f16, #[[SH]]> -> tensor<64x128xf16, #[[BLK]]>
  // CHECK-NEXT: return
  %ba = tile.local_alloc %a : tensor<64x128xf16, #blocked> -> !tile.smem<[64, 128], f16, #shared>
  %bk = tile.local_alloc %k : tensor<128x64xf16, #blocked_t> -> !tile.smem<[128, 64], f16, #shared_t>
  %0 = tile.local_load %ba [0, 0] : !tile.smem<[64, 128], f16, #shared> -> tensor<64x16xf16, #dot_a>
  %1 = tile.local_load %ba [0, 112] : !tile.smem<[64, 128], f16, #shared> -> tensor<64x16xf16, #dot_a>
  %2 = tile.local_load %bk [16, 0] : !tile.smem<[128, 64], f16, #shared_t> -> tensor<16x64xf16, #dot_b>
  %3 = tile.local_load %ba [0, 0] : !tile.smem<[64, 128], f16, #shared> -> tensor<64x128xf16, #blocked>
  return
}

//===----------------------------------------------------------------------===//
// tile.smem_alloc / tile.smem_slot / tile.async_copy / tile.async_wait /
// tile.barrier
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @async_copy
// CHECK-SAME: (%[[Q:[[:alnum:]_]+]]: !tile.global<f16, 4>, %[[G:[[:alnum:]_]+]]: !tile.global<f16, 2>, %[[I:[[:alnum:]_]+]]: i32, %[[J:[[:alnum:]_]+]]: i32, %[[P:[[:alnum:]_]+]]: i1)
func.func @async_copy(%Q: !tile.global<f16, 4>, %G: !tile.global<f16, 2>, %i: i32, %j: i32, %p: i1) {
  // CHECK-NEXT: %[[BQ:[[:alnum:]_]+]] = tile.smem_alloc : <[64, 128], f16, #[[SH]]>
  // CHECK-NEXT: %[[BK:[[:alnum:]_]+]] = tile.smem_alloc : <[128, 64], f16, #[[SHT]]>
  // CHECK-NEXT: %[[RING:[[:alnum:]_]+]] = tile.smem_alloc : <[3, 64, 128], f16, #[[SH3]]>
  %q = tile.smem_alloc : !tile.smem<[64, 128], f16, #shared>
  %k = tile.smem_alloc : !tile.smem<[128, 64], f16, #shared_t>
  %ring = tile.smem_alloc : !tile.smem<[3, 64, 128], f16, #shared3>
  // CHECK-NEXT: %[[S:[[:alnum:]_]+]] = tile.smem_slot %[[RING]][%[[I]]] : <[3, 64, 128], f16, #[[SH3]]> -> <[64, 128], f16, #[[SH]]>
  %s = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 128], f16, #shared3> -> !tile.smem<[64, 128], f16, #shared>
  // Size-1 dimensions of the tile are dropped in the buffer.
  // CHECK-NEXT: tile.async_copy %[[Q]][%[[I]], %[[J]], %[[I]], %[[J]]], %[[BQ]] {layout = #[[BLK]], shape = array<i64: 1, 1, 64, 128>} : <f16, 4>, <[64, 128], f16, #[[SH]]>
  tile.async_copy %Q[%i, %j, %i, %j], %q {shape = array<i64: 1, 1, 64, 128>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  // A transposed view (order) of the tensor, with a pipelining hint.
  // CHECK-NEXT: tile.async_copy %[[Q]][%[[I]], %[[J]], %[[I]], %[[J]]], %[[BK]] {latency = 3 : i32, layout = #[[BLKT]], order = array<i32: 0, 1, 3, 2>, shape = array<i64: 1, 1, 128, 64>} : <f16, 4>, <[128, 64], f16, #[[SHT]]>
  tile.async_copy %Q[%i, %j, %i, %j], %k {shape = array<i64: 1, 1, 128, 64>, order = array<i32: 0, 1, 3, 2>, layout = #blocked_t, latency = 3 : i32}
      : !tile.global<f16, 4>, !tile.smem<[128, 64], f16, #shared_t>
  // Predicated, into a ring slot.
  // CHECK-NEXT: tile.async_copy %[[G]][%[[I]], %[[J]]], %[[S]] if %[[P]] {layout = #[[BLK]], shape = array<i64: 64, 128>} : <f16, 2>, <[64, 128], f16, #[[SH]]>
  tile.async_copy %G[%i, %j], %s if %p {shape = array<i64: 64, 128>, layout = #blocked}
      : !tile.global<f16, 2>, !tile.smem<[64, 128], f16, #shared>
  // `pending` (default 0, not printed): how many later copies may stay in flight.
  // CHECK-NEXT: tile.async_wait %[[BQ]] {pending = 2 : i32} : !tile.smem<[64, 128], f16, #[[SH]]>
  // CHECK-NEXT: tile.async_wait %[[BK]], %[[S]] : !tile.smem<[128, 64], f16, #[[SHT]]>, !tile.smem<[64, 128], f16, #[[SH]]>
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load %[[BK]] [0, 0] : <[128, 64], f16, #[[SHT]]> -> tensor<16x64xf16, #[[DOTB]]>
  // Without buffers, `all` (so that a result on the next line is not read
  // as a buffer: the round trips above check it).
  // CHECK-NEXT: tile.async_wait all{{$}}
  // CHECK-NEXT: tile.local_load %[[BK]] [0, 0]
  // CHECK-NEXT: tile.async_wait all {pending = 1 : i32}{{$}}
  // CHECK-NEXT: tile.barrier {id = 1 : i32, num_threads = 256 : i32}
  // CHECK-NEXT: tile.barrier {warpgroup}
  // CHECK-NEXT: return
  tile.async_wait %q {pending = 2 : i32} : !tile.smem<[64, 128], f16, #shared>
  tile.async_wait %k, %s {pending = 0 : i32} : !tile.smem<[128, 64], f16, #shared_t>, !tile.smem<[64, 128], f16, #shared>
  tile.barrier
  %0 = tile.local_load %k [0, 0] : !tile.smem<[128, 64], f16, #shared_t> -> tensor<16x64xf16, #dot_b>
  tile.async_wait all
  %1 = tile.local_load %k [0, 0] : !tile.smem<[128, 64], f16, #shared_t> -> tensor<16x64xf16, #dot_b>
  tile.async_wait all {pending = 1 : i32}
  tile.barrier {id = 1 : i32, num_threads = 256 : i32}
  tile.barrier {warpgroup}
  return
}


//===----------------------------------------------------------------------===//
// Hopper (wgmma) parameters: #tile.mma version and instrShape, #tile.shared
// block
//===----------------------------------------------------------------------===//

// version = 3 with its instrShape (wgmma.m64nNk16) prints both; version = 2
// (the default) and block = 0 (the default) are elided, so those layouts are
// the plain #mma and #shared. An instrShape written for version 2 is kept as
// written (it is not the default, empty, one). A version-3 layout is the
// parent of operand layouts like any other.
// CHECK-LABEL: func.func private @hopper_types
// CHECK-SAME: tensor<128x128xf32, #[[MMA3]]>
// CHECK-SAME: tensor<128x128xf32, #[[MMA3W8]]>
// CHECK-SAME: tensor<128x64xf16, #[[DOTA3]]>
// CHECK-SAME: tensor<64x64xf32, #[[MMA]]>
// CHECK-SAME: tensor<64x64xf32, #[[MMAI]]>
// CHECK-SAME: !tile.smem<[64, 128], f16, #[[SHB128]]>
// CHECK-SAME: !tile.smem<[64, 64], bf16, #[[SHB32T]]>
// CHECK-SAME: !tile.smem<[3, 64, 128], f16, #[[SHB3]]>
// CHECK-SAME: !tile.smem<[64, 128], f16, #[[SH]]>
func.func private @hopper_types(
    tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>>,
    tensor<128x128xf32, #tile.mma<warpsPerCTA = [8, 1], version = 3, instrShape = [64, 256, 16]>>,
    tensor<128x64xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>>>,
    tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 2>>,
    tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], instrShape = [16, 8, 16]>>,
    !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>>,
    !tile.smem<[64, 64], bf16, #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1], block = 16>>,
    !tile.smem<[3, 64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>>,
    !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 0>>)

// A ring of block-swizzled stages and its slot.
#sblock = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sblock3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// CHECK-LABEL: func.func @hopper_ring
// CHECK-SAME: (%[[I:[[:alnum:]_]+]]: i32)
// CHECK-NEXT: %[[R:[[:alnum:]_]+]] = tile.smem_alloc : <[3, 64, 128], f16, #[[SHB3]]>
// CHECK-NEXT: tile.smem_slot %[[R]][%[[I]]] : <[3, 64, 128], f16, #[[SHB3]]> -> <[64, 128], f16, #[[SHB128]]>
// CHECK-NEXT: return
func.func @hopper_ring(%i: i32) {
  %r = tile.smem_alloc : !tile.smem<[3, 64, 128], f16, #sblock3>
  %s = tile.smem_slot %r[%i] : !tile.smem<[3, 64, 128], f16, #sblock3> -> !tile.smem<[64, 128], f16, #sblock>
  return
}
