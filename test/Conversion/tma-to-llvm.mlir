// RUN: split-file %s %t
// RUN: tile-opt %t/lower.mlir -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm -canonicalize -cse | FileCheck %t/lower.mlir
// RUN: tile-opt %t/lower.mlir -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm=occupancy=1 | FileCheck %t/lower.mlir --check-prefix=OCC
// RUN: tile-opt %t/errors.mlir -split-input-file --convert-tile-to-llvm -verify-diagnostics

// The lowering of the sm_90a TMA and mbarrier ops (TmaPatterns.cpp) to
// inline PTX, preceded by the shared memory allocation and the barrier
// placement and followed by the canonicalization and CSE of the real
// pipeline (as in tile-to-llvm.mlir), and the kernel ABI of TMA descriptors;
// then the errors of the lowering run on its own.

//--- lower.mlir

//===----------------------------------------------------------------------===//
// mbarriers: thread 0 initializes every barrier of the ring (one
// mbarrier.init per barrier, 8 bytes apart, with the op's arrival count)
// and fences the initialization (fence.mbarrier_init); every thread waits
// on barrier `slot` (at base + slot * 8) with a try_wait.parity loop;
// thread 0 invalidates every barrier. tile-insert-barriers puts a barrier
// after the initialization and before the invalidation.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @mbarriers
// CHECK-SAME:  (%[[SLOT:arg[0-9]+]]: i32, %[[PHASE:arg[0-9]+]]: i32)
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.num_warps = 4 : i32, tile.param_vector_bytes = array<i32: {{[0-9, ]+}}>, tile.shared_bytes = 128 : i32}
// CHECK-DAG:   %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// The predicate: thread 0 of the block.
// CHECK:       %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %[[IS0:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// CHECK-NEXT:  %[[FIRST:.*]] = llvm.zext %[[IS0]] : i1 to i32
// The ring's 32-bit shared address (offset 0: it is the only buffer).
// CHECK-NEXT:  %[[BARS:.*]] = llvm.ptrtoint %[[SMEM]] : !llvm.ptr<3> to i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.init.shared::cta.b64 [$1+0], 2;\0A @p mbarrier.init.shared::cta.b64 [$1+8], 2;\0A @p mbarrier.init.shared::cta.b64 [$1+16], 2;\0A @p fence.mbarrier_init.release.cluster;\0A}", "r,r,~{memory}" %[[FIRST]], %[[BARS]] : (i32, i32) -> ()
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  %[[OFF:.*]] = llvm.mul %[[SLOT]], %[[C8]] : i32
// CHECK-NEXT:  %[[BAR:.*]] = llvm.add %[[BARS]], %[[OFF]] : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.b32 p, $2, 0;\0A wait:\0A @!p mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A @!p bra wait;\0A}", "r,r,r,~{memory}" %[[BAR]], %[[PHASE]], %{{.*}} : (i32, i32, i32) -> ()
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.inval.shared::cta.b64 [$1+0];\0A @p mbarrier.inval.shared::cta.b64 [$1+8];\0A @p mbarrier.inval.shared::cta.b64 [$1+16];\0A}", "r,r,~{memory}" %[[FIRST]], %[[BARS]] : (i32, i32) -> ()
// CHECK-NEXT:  llvm.return
func.func @mbarriers(%slot: i32, %phase: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %bars = tile.mbarrier_alloc : !tile.mbarrier<3>
  tile.mbarrier_init %bars {count = 2 : i32} : !tile.mbarrier<3>
  tile.mbarrier_wait %bars[%slot], %phase : !tile.mbarrier<3>
  tile.mbarrier_inval %bars : !tile.mbarrier<3>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.tma_load: thread 0 (and the op's predicate, if any) raises the
// barrier's transaction count by the bytes of all the boxes
// (mbarrier.arrive.expect_tx) and issues one cp.async.bulk.tensor.Nd per
// box, all completing on barrier `slot` (base + slot * 8). Box k goes to the
// buffer's block k (its unswizzled offset) and starts k * box[-1] elements
// further along the innermost tensor dimension. PTX lists the coordinates
// innermost first. The TMA descriptors, the kernel's trailing
// !tile.tensor_map parameters listed in tile.tensor_maps, are generic
// pointers to by-value 128-byte parameters aligned to 64 that are grid
// constants (PTX .param .align 64 .b8 [128]); the other parameters keep no
// such attributes.
//===----------------------------------------------------------------------===//

// Buffers, largest first: K's 64 x 128 halves (two 128-byte swizzle blocks
// of 64 x 64, 8192 bytes each) at 0, A2's 64 x 128 halves (four 64-byte
// swizzle blocks of 64 x 32, 4096 bytes each) at 16384, A's 128 x 32 halves
// (one block) at 32768, the two barriers at 40960.
// CHECK-LABEL: llvm.func @tma_load
// CHECK-SAME:  (%{{arg[0-9]+}}: !llvm.ptr<1>, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i64,
// CHECK-SAME:  %{{arg[0-9]+}}: !llvm.ptr<1>, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i64,
// CHECK-SAME:  %[[B:arg[0-9]+]]: i32, %[[H:arg[0-9]+]]: i32, %[[R:arg[0-9]+]]: i32, %[[C:arg[0-9]+]]: i32, %[[SLOT:arg[0-9]+]]: i32, %[[P:arg[0-9]+]]: i1,
// CHECK-SAME:  %[[MK:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:  %[[MA:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:  %[[MA2:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.num_warps = 4 : i32, tile.param_vector_bytes = array<i32: {{[0-9, ]+}}>, tile.shared_bytes = 41088 : i32, tile.tensor_maps = [
// The block's first thread prefetches every descriptor, first thing.
// CHECK-DAG:   llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 t;\0A mov.u32 t, %tid.x;\0A setp.eq.u32 p, t, 0;\0A @p prefetch.tensormap [$0];\0A @p prefetch.tensormap [$1];\0A @p prefetch.tensormap [$2];\0A}", "l,l,l" %[[MK]], %[[MA]], %[[MA2]]
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// CHECK-DAG:   %[[A2_PTR:.*]] = llvm.getelementptr %[[SMEM]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-DAG:   %[[A_PTR:.*]] = llvm.getelementptr %[[SMEM]][32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-DAG:   %[[BARS_PTR:.*]] = llvm.getelementptr %[[SMEM]][40960] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG:   %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG:   %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG:   %[[IS0:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// CHECK-DAG:   %[[FIRST:.*]] = llvm.zext %[[IS0]] : i1 to i32
// CHECK-DAG:   %[[BARS:.*]] = llvm.ptrtoint %[[BARS_PTR]] : !llvm.ptr<3> to i32
// CHECK:       mbarrier.init.shared::cta.b64 [$1+0], 1;\0A @p mbarrier.init.shared::cta.b64 [$1+8], 1;\0A @p fence.mbarrier_init.release.cluster;\0A}", "r,r,~{memory}" %[[FIRST]], %[[BARS]]
// CHECK-NEXT:  nvvm.barrier0
// The 4-D copy of K, predicated: 2 boxes of 64 x 64 halves, 16384 bytes;
// box 1 at byte 8192 of the buffer and 64 elements further along the
// innermost dimension, both offsets added in the asm (three registers for
// any number of boxes), the boxes behind one branch on the predicate.
// CHECK-DAG:   %[[OFF:.*]] = llvm.mul %[[SLOT]], %[[C8]] : i32
// CHECK-DAG:   %[[BAR:.*]] = llvm.add %[[BARS]], %[[OFF]] : i32
// CHECK-DAG:   %[[K0:.*]] = llvm.ptrtoint %[[SMEM]] : !llvm.ptr<3> to i32
// The copy's lane: one of warp 0 (its index broadcast from lane 0, so that
// ptxas knows it alike in the warp), elected by elect.sync, where %p holds.
// CHECK-DAG:   %[[WARP:.*]] = llvm.udiv %[[TID]], %[[C32]] : i32
// CHECK-DAG:   %[[UWARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[WARP]], %[[C0]], %{{.*}} : i32 -> i32
// CHECK-DAG:   %[[E0:.*]] = nvvm.elect.sync -> i1
// CHECK-DAG:   %[[W0:.*]] = llvm.icmp "eq" %[[UWARP]], %[[C0]] : i32
// CHECK-DAG:   %[[ONE:.*]] = llvm.and %[[W0]], %[[E0]] : i1
// CHECK-DAG:   %[[ANDP:.*]] = llvm.and %[[ONE]], %[[P]] : i1
// CHECK-DAG:   %[[PRED:.*]] = llvm.zext %[[ANDP]] : i1 to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b64 state;\0A .reg .b32 x4;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], 16384;\0A @!p bra skip;\0A cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3], [$2, {$4, $5, $6, $7}], [$1];\0A add.s32 x4, $4, 64;\0A cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3+8192], [$2, {x4, $5, $6, $7}], [$1];\0A skip:\0A}", "r,r,l,r,r,r,r,r,~{memory}" %[[PRED]], %[[BAR]], %[[MK]], %[[K0]], %[[C]], %[[R]], %[[H]], %[[B]] : (i32, i32, !llvm.ptr, i32, i32, i32, i32, i32) -> ()
// The 2-D copy of A, one box of 128 x 32 halves (8192 bytes), not
// predicated: warp 0's elected lane alone (an elect.sync of its own; the
// warp's index shared).
// CHECK-DAG:   %[[A0:.*]] = llvm.ptrtoint %[[A_PTR]] : !llvm.ptr<3> to i32
// CHECK-DAG:   %[[E1:.*]] = nvvm.elect.sync -> i1
// CHECK-DAG:   %[[ONE1:.*]] = llvm.and %[[W0]], %[[E1]] : i1
// CHECK-DAG:   %[[LANE1:.*]] = llvm.zext %[[ONE1]] : i1 to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b64 state;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], 8192;\0A @p cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3], [$2, {$4, $5}], [$1];\0A}", "r,r,l,r,r,r,~{memory}" %[[LANE1]], %[[BAR]], %[[MA]], %[[A0]], %[[C]], %[[R]] : (i32, i32, !llvm.ptr, i32, i32, i32) -> ()
// The 2-D copy of A2: 4 boxes of 64 x 32 halves (16384 bytes), 4096 bytes
// and 32 elements apart.
// CHECK-DAG:   %[[Q0:.*]] = llvm.ptrtoint %[[A2_PTR]] : !llvm.ptr<3> to i32
// CHECK-DAG:   %[[E2:.*]] = nvvm.elect.sync -> i1
// CHECK-DAG:   %[[ONE2:.*]] = llvm.and %[[W0]], %[[E2]] : i1
// CHECK-DAG:   %[[LANE2:.*]] = llvm.zext %[[ONE2]] : i1 to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b64 state;\0A .reg .b32 x4;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], 16384;\0A @!p bra skip;\0A cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3], [$2, {$4, $5}], [$1];\0A add.s32 x4, $4, 32;\0A cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3+4096], [$2, {x4, $5}], [$1];\0A add.s32 x4, $4, 64;\0A cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3+8192], [$2, {x4, $5}], [$1];\0A add.s32 x4, $4, 96;\0A cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$3+12288], [$2, {x4, $5}], [$1];\0A skip:\0A}", "r,r,l,r,r,r,~{memory}" %[[LANE2]], %[[BAR]], %[[MA2]], %[[Q0]], %[[C]], %[[R]] : (i32, i32, !llvm.ptr, i32, i32, i32) -> ()
// The wait for the three copies, on the same barrier.
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.b32 p, $2, 0;\0A wait:\0A @!p mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A @!p bra wait;\0A}", "r,r,r,~{memory}" %[[BAR]], %[[C0]], %{{.*}} : (i32, i32, i32) -> ()
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p mbarrier.inval.shared::cta.b64 [$1+0];\0A @p mbarrier.inval.shared::cta.b64 [$1+8];\0A}", "r,r,~{memory}" %[[FIRST]], %[[BARS]] : (i32, i32) -> ()
// CHECK-NEXT:  llvm.return
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @tma_load(%K: !tile.global<f16, 4>, %A: !tile.global<f16, 2>,
                    %b: i32, %h: i32, %r: i32, %c: i32, %slot: i32, %p: i1,
                    %mK: !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>,
                    %mA: !tile.tensor_map<[128, 32], f16, swizzle = 64>,
                    %mA2: !tile.tensor_map<[64, 32], f16, swizzle = 64>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 1, 1, 64, 64>, swizzle = 128 : i32},
                                    {param = 1 : i32, box = array<i64: 128, 32>, swizzle = 64 : i32},
                                    {param = 1 : i32, box = array<i64: 64, 32>, swizzle = 64 : i32}]} {
  %c0 = arith.constant 0 : i32
  %bk = tile.smem_alloc : !tile.smem<[64, 128], f16, #sk>
  %ba = tile.smem_alloc : !tile.smem<[128, 32], f16, #sa>
  %ba2 = tile.smem_alloc : !tile.smem<[64, 128], f16, #sa>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<2>
  tile.tma_load %mK[%b, %h, %r, %c], %bk, %bars[%slot] if %p : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #sk>, !tile.mbarrier<2>
  tile.tma_load %mA[%r, %c], %ba, %bars[%slot] : !tile.tensor_map<[128, 32], f16, swizzle = 64>, !tile.smem<[128, 32], f16, #sa>, !tile.mbarrier<2>
  tile.tma_load %mA2[%r, %c], %ba2, %bars[%slot] : !tile.tensor_map<[64, 32], f16, swizzle = 64>, !tile.smem<[64, 128], f16, #sa>, !tile.mbarrier<2>
  tile.mbarrier_wait %bars[%slot], %c0, %bk, %ba, %ba2 : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #sk>, !tile.smem<[128, 32], f16, #sa>, !tile.smem<[64, 128], f16, #sa>
  tile.mbarrier_inval %bars : !tile.mbarrier<2>
  return
}

// -----

// A kernel without tile.tensor_maps: no parameter gets the descriptor
// attributes.
// CHECK-LABEL: llvm.func @no_tensor_maps
// CHECK-SAME:  (%{{arg[0-9]+}}: !llvm.ptr<1>, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i32) attributes {nvvm.kernel,
// CHECK-NOT:   llvm.byval
func.func @no_tensor_maps(%A: !tile.global<f16, 1>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Warp specialization: a branch on the thread's role. The block grows by a
// warpgroup (maxntid 256 = 128 consumers + 128) and is bounded to two
// blocks per multiprocessor (its shared memory allows eight, but a thread
// must start with 128 registers); the consumers rise to 232 registers,
// the producer's warpgroup drops to 24 and its warp r runs producer
// region r (two here; its other warps nothing). The first producer's copy
// is issued by a lane of warp 4 (issuer 128, the lane elected) after a
// predicated wait (a third operand: 0 skips it), the second's by one of
// warp 5 (issuer 160); the consumers release with mbarrier.arrive where the
// predicate holds.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @specialized
// With occupancy 1 (a kernel's @hints, tilec --occupancy) every kernel is
// budgeted for one block, whose threads start with 255 registers: the
// consumers need take none from the producer.
// OCC-LABEL: llvm.func @mbarriers
// OCC-SAME:  nvvm.minctasm = 1 : i32
// OCC-LABEL: llvm.func @specialized
// OCC-SAME:  nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32
// OCC-NOT:   nvvm.setmaxregister
// OCC-LABEL: llvm.func @turns
// CHECK-SAME:  nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32
// CHECK-DAG:   %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG:   %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG:   %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG:   %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:       %[[CONS:.*]] = llvm.icmp "ult" %[[TID]], %[[C128]] : i32
// CHECK-NEXT:  llvm.cond_br %[[CONS]], ^[[C:.*]], ^[[P:.*]]
// CHECK:       ^[[C]]:
// CHECK-NEXT:  nvvm.setmaxregister increase 232
// CHECK:       @p mbarrier.arrive.shared::cta.b64 _, [$0];
// Producer r runs on warp r of the producer warpgroup, (tid - 128) / 32.
// CHECK:       ^[[P]]:
// CHECK-NEXT:  nvvm.setmaxregister decrease 24
// CHECK-NEXT:  %[[OFF:.*]] = llvm.sub %[[TID]], %[[C128]] : i32
// CHECK-NEXT:  %[[W:.*]] = llvm.lshr %[[OFF]], %{{.*}} : i32
// CHECK-NEXT:  %[[IS0:.*]] = llvm.icmp "eq" %[[W]], %{{.*}} : i32
// CHECK-NEXT:  llvm.cond_br %[[IS0]]
// CHECK:       mbarrier.try_wait.parity
// CHECK:       %[[U4:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  %[[E4:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[IS4:.*]] = llvm.icmp "eq" %[[U4]], %[[C4]] : i32
// CHECK-NEXT:  llvm.and %[[IS4]], %[[E4]] : i1
// CHECK:       cp.async.bulk.tensor.2d
// CHECK:       %[[IS1:.*]] = llvm.icmp "eq" %[[W]], %{{.*}} : i32
// CHECK-NEXT:  llvm.cond_br %[[IS1]]
// CHECK:       %[[U5:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  %[[E5:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[IS5:.*]] = llvm.icmp "eq" %[[U5]], %[[C5]] : i32
// CHECK-NEXT:  llvm.and %[[IS5]], %[[E5]] : i1
// CHECK:       cp.async.bulk.tensor.2d
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @specialized(%t: !tile.global<f16, 2>, %p: i1, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %empty = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %empty {count = 128 : i32} : <1>
  tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 24 : i32} producer {
    %b = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.mbarrier_wait %empty[%c0], %c0 if %p : <1>
    tile.tma_load %map[%c0, %c0], %b, %full[%c0] if %p {issuer = 128 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <1>
  } producer {
    %b = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%c0, %c0], %b, %full[%c0] if %p {issuer = 160 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <1>
  } consumer {
    %b = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.mbarrier_wait %full[%c0], %c0, %b : <1>, !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_arrive %empty[%c0], %b if %p : <1>, <[64, 64], f16, #sw>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// The consumer warpgroups' turns (tile.warpgroup_turn, tile-ping-pong), on
// named barriers `barrier + g` of 256 threads (two warpgroups), g the
// consumer's warpgroup (thread / 128): start, the last warpgroup arrives
// at the first barrier; wait, warpgroup g syncs on its own; pass, it
// arrives at the next warpgroup's ((g + 1) mod groups); finish, warpgroup
// 0 syncs on the first barrier, taking the last pass. All in the
// consumers' branch; the producer's takes no part.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @turns
// CHECK-SAME:  nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:   %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG:   %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-DAG:   %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// The warpgroup, once, before the roles' branch, broadcast from the warp's
// first lane (warp-uniform to ptxas).
// CHECK:       %[[G0:.*]] = llvm.udiv %[[TID]], %[[C128]] : i32
// CHECK-NEXT:  %[[G:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[G0]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  %[[CONS:.*]] = llvm.icmp "ult" %[[TID]], %[[C256]] : i32
// CHECK-NEXT:  llvm.cond_br %[[CONS]], ^[[C:.*]], ^[[P:[^ ]*]]
// CHECK-NEXT:  ^[[C]]:
// start: warpgroup 1 gives warpgroup 0 the first turn.
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.u32 p, $0, 1;\0A @p bar.arrive 2, 256;\0A}", "r,~{memory}" %[[G]] : (i32) -> ()
// wait: bar.sync (g + 2).
// CHECK-NEXT:  %[[MINE:.*]] = llvm.add %[[G]], %[[C2]] : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "bar.sync $0, 256;", "r,~{memory}" %[[MINE]] : (i32) -> ()
// pass: bar.arrive ((g + 1) mod 2 + 2).
// CHECK-NEXT:  %[[G1:.*]] = llvm.add %[[G]], %[[C1]] : i32
// CHECK-NEXT:  %[[NG:.*]] = llvm.urem %[[G1]], %[[C2]] : i32
// CHECK-NEXT:  %[[NEXT:.*]] = llvm.add %[[NG]], %[[C2]] : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "bar.arrive $0, 256;", "r,~{memory}" %[[NEXT]] : (i32) -> ()
// finish: warpgroup 0 takes warpgroup 1's last pass.
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.u32 p, $0, 0;\0A @p bar.sync 2, 256;\0A}", "r,~{memory}" %[[G]] : (i32) -> ()
// CHECK-NEXT:  llvm.br
// CHECK-NEXT:  ^[[P]]:
// CHECK-NOT:   bar.
// CHECK:       llvm.return
func.func @turns() attributes {tile.kernel, tile.num_warps = 8 : i32} {
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    tile.warpgroup_turn start {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn pass {barrier = 2 : i32, groups = 2 : i32}
    tile.warpgroup_turn finish {barrier = 2 : i32, groups = 2 : i32}
  }
  return
}

// -----

// Three warpgroups on barriers 5, 6 and 7 (a function, not a kernel: a
// kernel's tile.num_warps is a power of two): warpgroup 2 starts, the pass
// wraps around modulo 3, the barriers are still of two warpgroups (256).
// CHECK-LABEL: llvm.func @three_turns
// CHECK-SAME:  nvvm.maxntid = array<i32: 512, 1, 1>
// CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG:   %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG:   %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG:   %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:       %[[G0:.*]] = llvm.udiv %[[TID]], %[[C128]] : i32
// CHECK-NEXT:  %[[G:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[G0]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.u32 p, $0, 2;\0A @p bar.arrive 5, 256;\0A}", "r,~{memory}" %[[G]] : (i32) -> ()
// CHECK-NEXT:  %[[MINE:.*]] = llvm.add %[[G]], %[[C5]] : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "bar.sync $0, 256;", "r,~{memory}" %[[MINE]] : (i32) -> ()
// CHECK-NEXT:  %[[G1:.*]] = llvm.add %[[G]], %[[C1]] : i32
// CHECK-NEXT:  %[[NG:.*]] = llvm.urem %[[G1]], %[[C3]] : i32
// CHECK-NEXT:  %[[NEXT:.*]] = llvm.add %[[NG]], %[[C5]] : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "bar.arrive $0, 256;", "r,~{memory}" %[[NEXT]] : (i32) -> ()
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.eq.u32 p, $0, 0;\0A @p bar.sync 5, 256;\0A}", "r,~{memory}" %[[G]] : (i32) -> ()
func.func @three_turns() {
  tile.warp_specialize {consumer_warps = 12 : i32} producer {
  } consumer {
    tile.warpgroup_turn start {barrier = 5 : i32, groups = 3 : i32}
    tile.warpgroup_turn wait {barrier = 5 : i32, groups = 3 : i32}
    tile.warpgroup_turn pass {barrier = 5 : i32, groups = 3 : i32}
    tile.warpgroup_turn finish {barrier = 5 : i32, groups = 3 : i32}
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// An op that synchronizes its threads around its scratch memory, in the
// consumer region: the barrier between its shared stores and loads is the
// consumers' named barrier 1 of 256 threads (the producer never reaches
// one of theirs), not bar.sync 0 of the whole block.
//===----------------------------------------------------------------------===//

// A sum across the 8 warps (rows spread over them): each warp's partial
// goes through shared memory.
// CHECK-LABEL: llvm.func @reduce_in_consumer
// CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
// CHECK-NEXT:  llvm.getelementptr
// CHECK-NEXT:  llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:   nvvm.barrier
// CHECK:       llvm.return
#rows = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>
func.func @reduce_in_consumer(%out: !tile.global<f32, 2>, %s: f32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %x = tile.full %s : tensor<256x1xf32, #rows>
    %m = tile.reduce sum %x {axis = 0 : i32, keepdims} : tensor<256x1xf32, #rows> -> tensor<1x1xf32, #rows>
    tile.store %out[%c0, %c0], %m : !tile.global<f32, 2>, tensor<1x1xf32, #rows>
  }
  return
}

// -----

// A layout conversion from warps along the rows to warps along the
// columns, through shared memory.
// CHECK-LABEL: llvm.func @convert_in_consumer
// CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
// CHECK-NOT:   nvvm.barrier
// CHECK:       llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:   nvvm.barrier
// CHECK:       llvm.return
#rows = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#cols = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
func.func @convert_in_consumer(%in: !tile.global<f32, 2>, %out: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  tile.warp_specialize {consumer_warps = 8 : i32} producer {
  } consumer {
    %x = tile.load %in[%c0, %c0] : !tile.global<f32, 2> -> tensor<8x32xf32, #rows>
    %y = tile.convert_layout %x : tensor<8x32xf32, #rows> -> tensor<8x32xf32, #cols>
    tile.store %out[%c0, %c0], %y : !tile.global<f32, 2>, tensor<8x32xf32, #cols>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.tma_store: the threads write the buffer (tile.local_store, 16-byte
// vectors of the swizzled layout), tile-insert-barriers fences the writes
// for the async proxy and meets at a barrier, then warp 0's elected lane
// issues one cp.async.bulk.tensor.Nd.global.shared::cta per box (box k from
// the buffer's block k, k * box[-1] elements further along the innermost
// dimension, both added in the asm; coordinates innermost first; several
// boxes behind one branch on the lane's predicate) and commits them as one
// bulk group; tile.tma_store_wait is the same lane's wait (elect.sync elects the
// same lane again) until the group has read the buffer.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @tma_store
// CHECK-SAME:  %[[R:arg[0-9]+]]: i32, %[[C:arg[0-9]+]]: i32, %[[MO:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:  tile.shared_bytes = 16384 : i32
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK:       llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", ""
// CHECK-NEXT:  nvvm.barrier0
// CHECK-DAG:   %[[B0:.*]] = llvm.ptrtoint %[[SMEM]] : !llvm.ptr<3> to i32
// CHECK-DAG:   %[[UWARP:.*]] = nvvm.shfl.sync idx
// CHECK-DAG:   %[[E0:.*]] = nvvm.elect.sync -> i1
// CHECK-DAG:   %[[W0:.*]] = llvm.icmp "eq" %[[UWARP]], %{{.*}} : i32
// CHECK-DAG:   %[[ONE:.*]] = llvm.and %[[W0]], %[[E0]] : i1
// CHECK-DAG:   %[[FIRST:.*]] = llvm.zext %[[ONE]] : i1 to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 x3;\0A setp.ne.b32 p, $0, 0;\0A @!p bra skip;\0A cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$1, {$3, $4}], [$2];\0A add.s32 x3, $3, 64;\0A cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$1, {x3, $4}], [$2+8192];\0A cp.async.bulk.commit_group;\0A skip:\0A}", "r,l,r,r,r,~{memory}" %[[FIRST]], %[[MO]], %[[B0]], %[[C]], %[[R]]
// CHECK-NEXT:  %[[E1:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[ONE1:.*]] = llvm.and %[[W0]], %[[E1]] : i1
// CHECK-NEXT:  %[[WAITER:.*]] = llvm.zext %[[ONE1]] : i1 to i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p cp.async.bulk.wait_group.read 0;\0A}", "r,~{memory}" %[[WAITER]]
// CHECK-NEXT:  llvm.return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#so = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @tma_store(%O: !tile.global<f16, 2>, %v: f16, %r: i32, %c: i32,
                     %mO: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 64>, swizzle = 128 : i32}]} {
  %x = tile.full %v : tensor<64x128xf16, #blocked>
  %buf = tile.smem_alloc : !tile.smem<[64, 128], f16, #so>
  tile.local_store %x, %buf : tensor<64x128xf16, #blocked>, !tile.smem<[64, 128], f16, #so>
  tile.tma_store %mO[%r, %c], %buf : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 128], f16, #so>
  tile.tma_store_wait %buf : !tile.smem<[64, 128], f16, #so>
  return
}

// A view of a ring slot (tile.smem_view) is the slot's own address: the
// tile is written at slot * 16384 bytes and the copy reads it there. A
// tma_store_wait with a predicate waits only where it holds, in the lane:
// the two conditions are joined, not branched on; so does a tma_store with
// one (a loop's first trip has no previous trip's copy to issue:
// tile-defer-loop-stores).
// CHECK-LABEL: llvm.func @tma_store_in_slot
// CHECK-SAME:  %[[SLOT:arg[0-9]+]]: i32, %[[P:arg[0-9]+]]: i1, %[[Q:arg[0-9]+]]: i1
// CHECK:       %[[OFF:.*]] = llvm.mul %[[SLOT]], %{{.*}} : i32
// CHECK:       %[[AT:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:       llvm.getelementptr %[[AT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK:       %[[ADDR:.*]] = llvm.ptrtoint %[[AT]] : !llvm.ptr<3> to i32
// CHECK:       %[[E0:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[W0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[T0:.*]] = llvm.and %[[W0]], %[[E0]] : i1
// CHECK-NEXT:  %[[FIRST:.*]] = llvm.zext %[[T0]] : i1 to i32
// CHECK-NEXT:  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$1, {$3, $4}], [$2];
// CHECK-SAME:  %[[FIRST]], %{{.*}}, %[[ADDR]],
// CHECK-NEXT:  %[[E1:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[T1:.*]] = llvm.and %[[W0]], %[[E1]] : i1
// CHECK-NEXT:  %[[IFQ:.*]] = llvm.and %[[T1]], %[[Q]] : i1
// CHECK-NEXT:  %[[ONQ:.*]] = llvm.zext %[[IFQ]] : i1 to i32
// CHECK-NEXT:  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$1, {$3, $4}], [$2];
// CHECK-SAME:  %[[ONQ]], %{{.*}}, %[[ADDR]],
// CHECK-NEXT:  %[[E2:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[T2:.*]] = llvm.and %[[W0]], %[[E2]] : i1
// CHECK-NEXT:  %[[BOTH:.*]] = llvm.and %[[T2]], %[[P]] : i1
// CHECK-NEXT:  %[[ONCE:.*]] = llvm.zext %[[BOTH]] : i1 to i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p cp.async.bulk.wait_group.read 0;\0A}", "r,~{memory}" %[[ONCE]]
// With `pending`, all but that many of the newest groups:
// CHECK:       @p cp.async.bulk.wait_group.read 2;
func.func @tma_store_in_slot(%O: !tile.global<f16, 2>, %v: f16, %r: i32, %c: i32, %slot: i32, %p: i1, %q: i1,
                             %mO: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 64>, swizzle = 128 : i32}]} {
  %x = tile.full %v : tensor<64x64xf16, #blocked>
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>>
  %s = tile.smem_slot %ring[%slot] : !tile.smem<[2, 64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>> -> !tile.smem<[64, 128], f16, #so>
  %view = tile.smem_view %s : !tile.smem<[64, 128], f16, #so> -> !tile.smem<[64, 64], f16, #so>
  tile.local_store %x, %view : tensor<64x64xf16, #blocked>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store %mO[%r, %c], %view : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store %mO[%r, %c], %view if %q : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 64], f16, #so>
  tile.tma_store_wait %ring : !tile.smem<[2, 64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>> if %p
  tile.tma_store_wait %ring : !tile.smem<[2, 64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>> if %p {pending = 2 : i32}
  return
}

// -----

// A buffer whose rows are stored at their own width (`cols`: 152 halves,
// 304 bytes, unswizzled): element (r, c) at r * 152 + c, 64 x 152 x 2 bytes
// of shared memory, one box as wide as the tile (no swizzle). An
// accumulator's 19 groups of 8 columns, two rows each: 38 pairs a thread;
// its padding's registers (columns 152..255) are not written.
// CHECK-LABEL: llvm.func @tma_store_own_width
// CHECK-SAME:  tile.shared_bytes = 19456 : i32
// CHECK-DAG:   %[[C152:.*]] = llvm.mlir.constant(152 : i32) : i32
// CHECK:       llvm.mul %{{.*}}, %[[C152]] : i32
// CHECK-COUNT-38: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT:   llvm.store
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$1, {$3, $4}], [$2];\0A @p cp.async.bulk.commit_group;\0A}"
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 152, 16]>
#sc = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 152>
func.func @tma_store_own_width(%O: !tile.global<f16, 2>, %v: f16, %r: i32, %c: i32,
                               %mO: !tile.tensor_map<[64, 152], f16, swizzle = 0>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 152>, swizzle = 0 : i32}]} {
  %x = tile.full %v : tensor<64x152xf16, #mma>
  %buf = tile.smem_alloc : !tile.smem<[64, 152], f16, #sc>
  tile.local_store %x, %buf : tensor<64x152xf16, #mma>, !tile.smem<[64, 152], f16, #sc>
  tile.tma_store %mO[%r, %c], %buf : !tile.tensor_map<[64, 152], f16, swizzle = 0>, !tile.smem<[64, 152], f16, #sc>
  tile.tma_store_wait %buf : !tile.smem<[64, 152], f16, #sc>
  return
}

// -----

// tile.tma_store with `reduce`: cp.reduce.async.bulk.tensor with the
// combiner (sum is PTX's add), one per box, in one bulk group.
// CHECK-LABEL: llvm.func @tma_store_reduce
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 x3;\0A setp.ne.b32 p, $0, 0;\0A @!p bra skip;\0A cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {$3, $4}], [$2];\0A add.s32 x3, $3, 32;\0A cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {x3, $4}], [$2+8192];\0A cp.async.bulk.commit_group;\0A skip:\0A}"
// CHECK:       cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#so = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
func.func @tma_store_reduce(%O: !tile.global<f32, 2>, %I: !tile.global<i32, 2>, %v: f32, %w: i32, %r: i32, %c: i32,
                     %mO: !tile.tensor_map<[64, 32], f32, swizzle = 128>,
                     %mI: !tile.tensor_map<[64, 32], i32, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 32>, swizzle = 128 : i32},
                                    {param = 1 : i32, box = array<i64: 64, 32>, swizzle = 128 : i32}]} {
  %x = tile.full %v : tensor<64x64xf32, #blocked>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f32, #so>
  tile.local_store %x, %buf : tensor<64x64xf32, #blocked>, !tile.smem<[64, 64], f32, #so>
  tile.tma_store %mO[%r, %c], %buf reduce sum : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #so>
  tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #so>
  %y = tile.full %w : tensor<64x64xi32, #blocked>
  %ibuf = tile.smem_alloc : !tile.smem<[64, 64], i32, #so>
  tile.local_store %y, %ibuf : tensor<64x64xi32, #blocked>, !tile.smem<[64, 64], i32, #so>
  tile.tma_store %mI[%r, %c], %ibuf reduce min : !tile.tensor_map<[64, 32], i32, swizzle = 128>, !tile.smem<[64, 64], i32, #so>
  tile.tma_store_wait %ibuf : !tile.smem<[64, 64], i32, #so>
  return
}

// -----

// A TMA store and its wait with `issuer` (tile-warp-specialize's
// producer-stores): a lane of the issuer's warp, 5 here (thread 160, the
// second producer warp), elected, copies and waits for the copy's read;
// the consumers stage, fence and arrive.
// CHECK-LABEL: llvm.func @producer_store
// CHECK-DAG:   %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:       nvvm.setmaxregister decrease 24
// CHECK:       mbarrier.try_wait.parity
// CHECK:       %[[U:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:  %[[IS:.*]] = llvm.icmp "eq" %[[U]], %[[C5]] : i32
// CHECK-NEXT:  %[[AND:.*]] = llvm.and %[[IS]], %[[E]] : i1
// CHECK-NEXT:  %[[PRED:.*]] = llvm.zext %[[AND]] : i1 to i32
// CHECK:       llvm.inline_asm has_side_effects {{.*}}cp.reduce.async.bulk.tensor.2d{{.*}}", "r,l,{{.*}}" %[[PRED]]
// CHECK:       llvm.inline_asm has_side_effects {{.*}}cp.async.bulk.wait_group.read 0;{{.*}}" %[[PRED2:.*]] :
// CHECK:       mbarrier.arrive.shared::cta.b64
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
#so = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @producer_store(%t: !tile.global<f16, 2>, %O: !tile.global<f32, 2>, %p: i1, %v: f32,
                          %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>,
                          %mO: !tile.tensor_map<[64, 32], f32, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i32, swizzle = 128 : i32},
                                    {box = array<i64: 64, 32>, param = 1 : i32, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : <[1, 64, 64], f16, #ring>
  %full = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %full {count = 1 : i32} : <1>
  %empty = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %empty {count = 128 : i32} : <1>
  %buf = tile.smem_alloc : !tile.smem<[64, 64], f32, #so>
  %sfull = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %sfull {count = 128 : i32} : <1>
  %sempty = tile.mbarrier_alloc : <1>
  tile.mbarrier_init %sempty {count = 32 : i32} : <1>
  tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 24 : i32} producer {
    %b = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.tma_load %map[%c0, %c0], %b, %full[%c0] if %p {issuer = 128 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, #sw>, <1>
  } producer {
    tile.mbarrier_wait %sfull[%c0], %c0 : <1>
    tile.tma_store %mO[%c0, %c0], %buf reduce sum {issuer = 160 : i32} : !tile.tensor_map<[64, 32], f32, swizzle = 128>, !tile.smem<[64, 64], f32, #so>
    tile.tma_store_wait %buf : !tile.smem<[64, 64], f32, #so> {issuer = 160 : i32}
    tile.mbarrier_arrive %sempty[%c0], %buf : <1>, !tile.smem<[64, 64], f32, #so>
  } consumer {
    %b = tile.smem_slot %ring[%c0] : <[1, 64, 64], f16, #ring> -> <[64, 64], f16, #sw>
    tile.mbarrier_wait %full[%c0], %c0, %b : <1>, !tile.smem<[64, 64], f16, #sw>
    tile.mbarrier_arrive %empty[%c0], %b if %p : <1>, <[64, 64], f16, #sw>
    %x = tile.full %v : tensor<64x64xf32, #blocked>
    tile.mbarrier_wait %sempty[%c0], %c0 : <1>
    tile.local_store %x, %buf : tensor<64x64xf32, #blocked>, !tile.smem<[64, 64], f32, #so>
    tile.fence_async_shared
    tile.mbarrier_arrive %sfull[%c0], %buf : <1>, !tile.smem<[64, 64], f32, #so>
  }
  return
}

// -----

// A ring of 64 x 160 stages read only by TMA and wgmma takes 3 of its 4
// blocks of 64 columns a stage (tile-allocate-shared-memory's
// tile.slot_bytes = 24576): the slot steps by 24576 bytes, and the copy
// moves the 3 boxes holding the tile, 8192 bytes apart (24576 expected on
// the barrier).
// CHECK-LABEL: llvm.func @trimmed_slots
// CHECK-DAG:   %[[STAGE:.*]] = llvm.mlir.constant(24576 : i32) : i32
// CHECK:       %[[OFF:.*]] = llvm.mul %{{.*}}, %[[STAGE]] : i32
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:       mbarrier.arrive.expect_tx{{.*}}24576
// CHECK-COUNT-3: cp.async.bulk.tensor.2d
// CHECK-NOT:   cp.async.bulk.tensor
// CHECK:       llvm.return
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>
func.func @trimmed_slots(%t: !tile.global<f16, 2>, %i: i32, %map: !tile.tensor_map<[64, 64], f16, swizzle = 128>)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                tile.tensor_maps = [{param = 0 : i32, box = array<i64: 64, 64>, swizzle = 128 : i32}]} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 160], f16, #ring>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<2>
  %b = tile.smem_slot %ring[%i] : !tile.smem<[2, 64, 160], f16, #ring> -> !tile.smem<[64, 160], f16, #sw>
  tile.tma_load %map[%i, %c0], %b, %bars[%i] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 160], f16, #sw>, !tile.mbarrier<2>
  tile.mbarrier_wait %bars[%i], %c0, %b : !tile.mbarrier<2>, !tile.smem<[64, 160], f16, #sw>
  return
}

// -----

// A ring stored at its own 80 rows a block (#tile.shared<..., rows = 80>,
// which tile-allocate-shared-memory gives a TMA-filled, wgmma-read ring of
// 80-row stages): a stage is 4 blocks x 80 rows x 128 bytes = 40960 bytes
// apart (the slot's stride); TMA writes the four 64-column boxes of 80 rows
// 10240 bytes apart and expects 40960 bytes; the M/N-major B's descriptor
// steps between blocks by a leading byte offset of 10240 (640 << 16, with
// the 1024-byte stride between 8-row groups (64 << 32) and the 128-byte
// swizzle (1 << 62)).
// CHECK-LABEL: llvm.func @compact_rows
// CHECK-DAG:   llvm.mlir.constant(4611686293347237888 : i64) : i64
// CHECK-DAG:   %[[STAGE:.*]] = llvm.mlir.constant(40960 : i32) : i32
// CHECK:       %[[OFF:.*]] = llvm.mul %{{.*}}, %[[STAGE]] : i32
// CHECK:       %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK:       mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], 40960;{{.*}}[$3]{{.*}}[$3+10240]{{.*}}[$3+20480]{{.*}}[$3+30720]
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 256, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64, rows = 80>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64, rows = 80>
func.func @compact_rows(%mapv: !tile.tensor_map<[80, 64], f16, swizzle = 128>, %mapa: !tile.tensor_map<[64, 64], f16, swizzle = 128>, %i: i32, %c: tensor<64x256xf32, #mma>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 80, 256], f16, #ring>
  %a = tile.smem_alloc : !tile.smem<[64, 80], f16, #sa>
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  %v = tile.smem_slot %ring[%i] : !tile.smem<[2, 80, 256], f16, #ring> -> !tile.smem<[80, 256], f16, #sw>
  tile.tma_load %mapv[%i, %c0], %v, %bars[%c0] : !tile.tensor_map<[80, 64], f16, swizzle = 128>, !tile.smem<[80, 256], f16, #sw>, !tile.mbarrier<1>
  tile.tma_load %mapa[%i, %c0], %a, %bars[%c0] : !tile.tensor_map<[64, 64], f16, swizzle = 128>, !tile.smem<[64, 80], f16, #sa>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0, %v, %a : !tile.mbarrier<1>, !tile.smem<[80, 256], f16, #sw>, !tile.smem<[64, 80], f16, #sa>
  %d = tile.wgmma %a, %v, %c : !tile.smem<[64, 80], f16, #sa>, !tile.smem<[80, 256], f16, #sw>, tensor<64x256xf32, #mma>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x256xf32, #mma>
  return
}

//--- errors.mlir

// The lowering does not place mbarriers: without tile-allocate-shared-memory
// before it, a ring of mbarriers has no tile.smem_offset.
func.func @mbarrier_not_allocated(%slot: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @+2 {{shared memory was not allocated for this buffer: run tile-allocate-shared-memory first}}
  // expected-error @+1 {{failed to legalize operation 'tile.mbarrier_alloc'}}
  %bars = tile.mbarrier_alloc : !tile.mbarrier<2>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<2>
  tile.mbarrier_wait %bars[%slot], %slot : !tile.mbarrier<2>
  return
}
