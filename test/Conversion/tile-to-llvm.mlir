// RUN: split-file %s %t
// RUN: tile-opt %t/laid-out.mlir -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm -canonicalize -cse | FileCheck %t/laid-out.mlir
// RUN: tile-opt %t/pipeline.mlir --tile-to-llvm="arch=sm_80" | FileCheck %t/pipeline.mlir
// RUN: tile-opt %t/wgmma-pipeline.mlir --tile-to-llvm | FileCheck %t/wgmma-pipeline.mlir
// RUN: tile-opt %t/errors.mlir -split-input-file --convert-tile-to-llvm -verify-diagnostics
// RUN: tile-opt %t/wgmma-errors.mlir --tile-allocate-shared-memory --convert-tile-to-llvm -verify-diagnostics

// The lowering of laid-out tile IR to the LLVM and NVVM dialects
// (--convert-tile-to-llvm, preceded by the shared memory allocation and the
// barrier placement and followed by the canonicalization and CSE of the real
// pipeline), then whole kernels through the --tile-to-llvm pipeline, and the
// errors of the lowering (run on its own, without the passes before it).

//--- laid-out.mlir

//===----------------------------------------------------------------------===//
// The kernel ABI: each !tile.global<T, R> becomes (ptr<1>, R x i32 sizes,
// R x i64 strides); scalars stay; the kernel gets nvvm.kernel and
// nvvm.maxntid = 32 * num_warps. tile.dim is the size argument; tile.bid
// and tile.num_blocks read %ctaid and %nctaid. A kernel that uses no shared
// memory gets tile.shared_bytes = 0 from tile-allocate-shared-memory.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @signature
// CHECK-SAME:  (%[[A:.*]]: !llvm.ptr<1>, %[[A_D0:.*]]: i32, %[[A_D1:.*]]: i32, %[[A_S0:.*]]: i64, %[[A_S1:.*]]: i64, %[[S:.*]]: f32, %[[N:.*]]: i32, %[[B:.*]]: !llvm.ptr<1>, %[[B_D0:.*]]: i32, %[[B_S0:.*]]: i64)
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, tile.num_warps = 8 : i32, tile.param_vector_bytes = array<i32: {{[0-9, ]+}}>, tile.shared_bytes = 0 : i32}
// CHECK-NOT:   tile_shared_memory
// CHECK-NOT:   tile.kernel
// CHECK:       %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:  %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT:  %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT:  %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT:  %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT:  %[[NZ:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK-NEXT:  %[[T0:.*]] = llvm.add %[[X]], %[[Y]] : i32
// CHECK-NEXT:  %[[T1:.*]] = llvm.add %[[T0]], %[[Z]] : i32
// CHECK-NEXT:  %[[T2:.*]] = llvm.add %[[T1]], %[[NX]] : i32
// CHECK-NEXT:  %[[T3:.*]] = llvm.add %[[T2]], %[[NY]] : i32
// CHECK-NEXT:  %[[T4:.*]] = llvm.add %[[T3]], %[[NZ]] : i32
// CHECK-NEXT:  %[[T5:.*]] = llvm.add %[[T4]], %[[A_D0]] : i32
// CHECK-NEXT:  %[[T6:.*]] = llvm.add %[[T5]], %[[A_D1]] : i32
// CHECK-NEXT:  %[[T7:.*]] = llvm.add %[[T6]], %[[N]] : i32
// The tile.full is the scalar in its single register, stored as a 32-bit word.
// CHECK:       %[[W:.*]] = llvm.bitcast %[[S]] : f32 to i32
// CHECK:       st.global.b32 [$1], {$2};{{.*}}"r,l,r" %{{.*}}, %{{.*}}, %[[W]] : (i32, !llvm.ptr<1>, i32) -> ()
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
func.func @signature(%A: !tile.global<f16, 2>, %s: f32, %n: i32, %B: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %x = tile.bid 0
  %y = tile.bid 1
  %z = tile.bid 2
  %nx = tile.num_blocks 0
  %ny = tile.num_blocks 1
  %nz = tile.num_blocks 2
  %d0 = tile.dim %A, 0 : !tile.global<f16, 2>
  %d1 = tile.dim %A, 1 : !tile.global<f16, 2>
  %t0 = arith.addi %x, %y : i32
  %t1 = arith.addi %t0, %z : i32
  %t2 = arith.addi %t1, %nx : i32
  %t3 = arith.addi %t2, %ny : i32
  %t4 = arith.addi %t3, %nz : i32
  %t5 = arith.addi %t4, %d0 : i32
  %t6 = arith.addi %t5, %d1 : i32
  %t7 = arith.addi %t6, %n : i32
  %v = tile.full %s : tensor<256xf32, #b>
  tile.store %B[%t7], %v : !tile.global<f32, 1>, tensor<256xf32, #b>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Element-wise ops, one per register: a 256-element tile in a layout of 2
// elements per thread is two scalars per thread (the function's tile
// arguments become two f32 / f16 arguments each). exp2 with flush_to_zero is
// ex2.approx.ftz.f32; f16 goes through f32. tile-allocate-shared-memory
// gives every function, kernel or not, its tile.shared_bytes (none here).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @elementwise
// CHECK-SAME:  (%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[B0:.*]]: f32, %[[B1:.*]]: f32, %[[H0:.*]]: f16, %[[H1:.*]]: f16, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64)
// CHECK-SAME:  attributes {tile.shared_bytes = 0 : i32}
// CHECK-NOT:   tile.
// CHECK:       %[[C0:.*]] = llvm.fadd %[[A0]], %[[B0]] : f32
// CHECK-NEXT:  %[[C1:.*]] = llvm.fadd %[[A1]], %[[B1]] : f32
// CHECK-NEXT:  %[[E0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[C0]]) : (f32) -> f32
// CHECK-NEXT:  %[[E1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[C1]]) : (f32) -> f32
// CHECK-NEXT:  %[[W0:.*]] = llvm.fpext %[[H0]] : f16 to f32
// CHECK-NEXT:  %[[X0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[W0]]) : (f32) -> f32
// CHECK-NEXT:  %[[F0:.*]] = llvm.fptrunc %[[X0]] : f32 to f16
// CHECK-NEXT:  %[[W1:.*]] = llvm.fpext %[[H1]] : f16 to f32
// CHECK-NEXT:  %[[X1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[W1]]) : (f32) -> f32
// CHECK-NEXT:  %[[F1:.*]] = llvm.fptrunc %[[X1]] : f32 to f16
// The two f32 registers are contiguous: one st.global.v2.b32; the two f16
// registers are one 32-bit word: one st.global.b32.
// CHECK:       %[[I0:.*]] = llvm.bitcast %[[E0]] : f32 to i32
// CHECK-NEXT:  %[[I1:.*]] = llvm.bitcast %[[E1]] : f32 to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p st.global.v2.b32 [$1], {$2, $3};\0A}", "r,l,r,r" %{{.*}}, %{{.*}}, %[[I0]], %[[I1]]
// CHECK:       %[[V0:.*]] = llvm.insertelement %[[F0]], %{{.*}} : vector<2xf16>
// CHECK-NEXT:  %[[V1:.*]] = llvm.insertelement %[[F1]], %[[V0]][%{{.*}} : i32] : vector<2xf16>
// CHECK-NEXT:  %[[HW:.*]] = llvm.bitcast %[[V1]] : vector<2xf16> to i32
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p st.global.b32 [$1], {$2};\0A}", "r,l,r" %{{.*}}, %{{.*}}, %[[HW]]
// CHECK-NEXT:  llvm.return
#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @elementwise(%a: tensor<256xf32, #b>, %b: tensor<256xf32, #b>, %x: tensor<256xf16, #b>, %O: !tile.global<f32, 1>, %H: !tile.global<f16, 1>) {
  %c0 = arith.constant 0 : i32
  %c = arith.addf %a, %b : tensor<256xf32, #b>
  %e = tile.exp2 %c flush_to_zero : tensor<256xf32, #b>
  %f = tile.exp2 %x : tensor<256xf16, #b>
  tile.store %O[%c0], %e : !tile.global<f32, 1>, tensor<256xf32, #b>
  tile.store %H[%c0], %f : !tile.global<f16, 1>, tensor<256xf16, #b>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.div: the three rounding modes, with and without flush_to_zero.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @div
// CHECK-SAME:  (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[H:.*]]: f16)
// CHECK:       llvm.call_intrinsic "llvm.nvvm.div.rn.f"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.div.rn.ftz.f"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.div.full"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.div.full.ftz"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.div.approx.f"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.div.approx.ftz.f"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[W:.*]] = llvm.fpext %[[H]] : f16 to f32
// CHECK-NEXT:  %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.div.approx.ftz.f"(%[[W]], %[[W]]) : (f32, f32) -> f32
// CHECK-NEXT:  llvm.fptrunc %[[Q]] : f32 to f16
func.func @div(%a: f32, %b: f32, %h: f16) -> (f32, f32, f32, f32, f32, f32, f16) {
  %0 = tile.div %a, %b rn : f32
  %1 = tile.div %a, %b rn flush_to_zero : f32
  %2 = tile.div %a, %b full : f32
  %3 = tile.div %a, %b full flush_to_zero : f32
  %4 = tile.div %a, %b approx : f32
  %5 = tile.div %a, %b approx flush_to_zero : f32
  %6 = tile.div %h, %h approx flush_to_zero : f16
  return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f32, f32, f32, f16
}

// -----

//===----------------------------------------------------------------------===//
// Loads and stores: one predicated vector access per 16 bytes of contiguous
// registers, the predicate being the bounds check of every dimension;
// outputs are set first to the padding (zero where none is given), so that
// nothing is selected after the load. The address steps the last dimension
// by 1, the others by their strides.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @loads
// CHECK-SAME:  (%[[X:.*]]: !llvm.ptr<1>, %[[XD0:.*]]: i32, %[[XD1:.*]]: i32, %[[XS0:.*]]: i64, %[[XS1:.*]]: i64, %[[H:.*]]: !llvm.ptr<1>, %[[HD0:.*]]: i32, %[[HD1:.*]]: i32, %[[HS0:.*]]: i64, %[[HS1:.*]]: i64, %[[I:.*]]: i32)
// Per parameter, the widest vector its accesses use (the alignment the
// kernel's description asks launches for): 16 bytes of X and of H.
// CHECK-SAME:  tile.param_vector_bytes = array<i32: 16, 16, 0>
// CHECK:       %[[R:.*]] = llvm.add %{{.*}} : i32
// CHECK-NEXT:  %[[IN0:.*]] = llvm.icmp "ult" %[[R]], %[[XD0]] : i32
// CHECK-NEXT:  %[[R64:.*]] = llvm.sext %[[R]] : i32 to i64
// CHECK-NEXT:  %[[O0:.*]] = llvm.mul %[[R64]], %[[XS0]] : i64
// CHECK-NEXT:  %[[C:.*]] = llvm.add %{{.*}} : i32
// CHECK-NEXT:  %[[IN1:.*]] = llvm.icmp "ult" %[[C]], %[[XD1]] : i32
// CHECK-NEXT:  %[[IN:.*]] = llvm.and %[[IN0]], %[[IN1]] : i1
// The last stride is 1 (the contract, checked at launch), not a multiply.
// CHECK-NEXT:  %[[C64:.*]] = llvm.sext %[[C]] : i32 to i64
// CHECK-NEXT:  %[[OFF:.*]] = llvm.add %[[O0]], %[[C64]] : i64
// CHECK-NEXT:  %[[P:.*]] = llvm.getelementptr %[[X]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:  %[[PRED:.*]] = llvm.zext %[[IN]] : i1 to i32
// CHECK-NEXT:  %[[LD:.*]] = llvm.inline_asm {{(has_side_effects )?}}"{\0A .reg .pred p;\0A setp.ne.b32 p, $4, 0;\0A mov.b32 $0, 0;\0A mov.b32 $1, 0;\0A mov.b32 $2, 0;\0A mov.b32 $3, 0;\0A @p ld.global.v4.b32 {$0, $1, $2, $3}, [$5];\0A}", "=r,=r,=r,=r,r,l" %[[PRED]], %[[P]] : (i32, !llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// 8 halves: also one ld.global.v4.b32, each word (two -inf halves, 0xfc00,
// where the predicate is off) then split in two f16.
// CHECK:       %[[HP:.*]] = llvm.getelementptr %[[H]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT:  %[[HPRED:.*]] = llvm.zext %[[HIN:.*]] : i1 to i32
// CHECK-NEXT:  %[[HLD:.*]] = llvm.inline_asm {{(has_side_effects )?}}"{\0A .reg .pred p;\0A setp.ne.b32 p, $4, 0;\0A mov.b32 $0, 0xfc00fc00;\0A mov.b32 $1, 0xfc00fc00;\0A mov.b32 $2, 0xfc00fc00;\0A mov.b32 $3, 0xfc00fc00;\0A @p ld.global.v4.b32 {$0, $1, $2, $3}, [$5];\0A}", "=r,=r,=r,=r,r,l" %[[HPRED]], %[[HP]]
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-NOT:   llvm.select
// The f32 tile is stored back from the loaded words, at the same address
// and under the same predicate.
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p st.global.v4.b32 [$1], {$2, $3, $4, $5};\0A}", "r,l,r,r,r,r" %[[PRED]], %[[P]],
// CHECK:       llvm.inline_asm has_side_effects "{{.*}}@p st.global.v4.b32 [$1], {$2, $3, $4, $5};{{.*}}", "r,l,r,r,r,r" %[[HPRED]], %[[HP]],
// CHECK-NEXT:  llvm.return
#b32 = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b16 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @loads(%X: !tile.global<f32, 2>, %H: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<16x32xf32, #b32>
  %h = tile.load %H[%i, %i] {padding = 0xFC00 : f16} : !tile.global<f16, 2> -> tensor<16x64xf16, #b16>
  tile.store %X[%i, %i], %x : !tile.global<f32, 2>, tensor<16x32xf32, #b32>
  tile.store %H[%i, %i], %h : !tile.global<f16, 2>, tensor<16x64xf16, #b16>
  return
}

// -----

// A store with the tile's shape given takes its value's layout on the whole
// tile, the unit dimension at offset 0: an mma accumulator (rows lane / 4
// and + 8, column pairs 2 (lane mod 4) and + 8) is stored from its
// registers, a pair of floats at a time, each pair checked in all three
// dimensions.
// CHECK-LABEL: llvm.func @store_mma
// CHECK-SAME:  (%[[O:[^:]*]]: !llvm.ptr<1>, %[[D0:[^:]*]]: i32, %[[D1:[^:]*]]: i32, %[[D2:[^:]*]]: i32, %[[S0:[^:]*]]: i64, %[[S1:[^:]*]]: i64, %{{[^:]*}}: i64, %[[I:[^:]*]]: i32,
// CHECK:       %[[IN0:.*]] = llvm.icmp "ult" %[[I]], %[[D0]] : i32
// CHECK-NEXT:  %[[B0:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK-NEXT:  llvm.mul %[[B0]], %[[S0]] : i64
// CHECK:       llvm.icmp "ult" %{{.*}}, %[[D1]] : i32
// CHECK:       llvm.mul %{{.*}}, %[[S1]] : i64
// CHECK:       llvm.icmp "ult" %{{.*}}, %[[D2]] : i32
// CHECK:       llvm.getelementptr %[[O]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-COUNT-4: @p st.global.v2.b32 [$1], {$2, $3};
// CHECK-NOT:   st.global
// CHECK:       llvm.return
#mma1 = #tile.mma<warpsPerCTA = [1, 1]>
func.func @store_mma(%O: !tile.global<f32, 3>, %i: i32, %x: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %v = tile.full %x : tensor<16x16xf32, #mma1>
  tile.store %O[%i, %i, %i], %v {shape = array<i64: 1, 16, 16>} : !tile.global<f32, 3>, tensor<16x16xf32, #mma1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions: registers in the thread first, then lanes with butterfly
// shuffles, then warps through shared memory.
//===----------------------------------------------------------------------===//

// In the mma layout a row is spread over 2 registers x 4 lanes (lane bits 0
// and 1) of one warp: 3 maxnum per row in the thread, as a tree of depth 2,
// then shuffles with masks 1 and 2; no shared memory for the reduction itself.
// CHECK-LABEL: llvm.func @reduce_mma
// CHECK-SAME:  (%[[R0:.*]]: f32, %[[R1:.*]]: f32, %[[R2:.*]]: f32, %[[R3:.*]]: f32, %[[R4:.*]]: f32, %[[R5:.*]]: f32, %[[R6:.*]]: f32, %[[R7:.*]]: f32,
// CHECK-SAME:  attributes {tile.shared_bytes = 256 : i32}
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// CHECK-DAG:   %[[M31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-DAG:   %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-DAG:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[A0:.*]] = llvm.intr.maxnum(%[[R0]], %[[R1]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[A1:.*]] = llvm.intr.maxnum(%[[R4]], %[[R5]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[A3:.*]] = llvm.intr.maxnum(%[[A0]], %[[A1]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[B0:.*]] = llvm.intr.maxnum(%[[R2]], %[[R3]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[B1:.*]] = llvm.intr.maxnum(%[[R6]], %[[R7]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[B3:.*]] = llvm.intr.maxnum(%[[B0]], %[[B1]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[SA:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[A3]], %[[ONE]], %[[M31]] : f32 -> f32
// CHECK-NEXT:  %[[A4:.*]] = llvm.intr.maxnum(%[[A3]], %[[SA]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[SB:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[B3]], %[[ONE]], %[[M31]] : f32 -> f32
// CHECK-NEXT:  %[[B4:.*]] = llvm.intr.maxnum(%[[B3]], %[[SB]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[SA2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[A4]], %[[TWO]], %[[M31]] : f32 -> f32
// CHECK-NEXT:  %[[A5:.*]] = llvm.intr.maxnum(%[[A4]], %[[SA2]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[SB2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[B4]], %[[TWO]], %[[M31]] : f32 -> f32
// CHECK-NEXT:  %[[B5:.*]] = llvm.intr.maxnum(%[[B4]], %[[SB2]]) : (f32, f32) -> f32
// CHECK-NOT:   nvvm.shfl.sync
// The result is the (64,) row vector in a slice of the mma layout; storing
// it in a blocked 1-D layout is a conversion through shared memory, whose
// 64 x 4 bytes of scratch memory are the function's only shared memory
// (at offset 0: straight from @tile_shared_memory). Nothing touched shared
// memory before, so no barrier before the stores; the one between the stores
// and the loads is the conversion's own (other threads' values are read).
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[P0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:  llvm.store %[[A5]], %[[P0]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %[[B5]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @reduce_mma(%x: tensor<64x16xf32, #mma>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %m = tile.reduce max %x {axis = 1 : i32} : tensor<64x16xf32, #mma> -> tensor<64xf32, #rows>
  %mb = tile.convert_layout %m : tensor<64xf32, #rows> -> tensor<64xf32, #b>
  tile.store %O[%c0], %mb : !tile.global<f32, 1>, tensor<64xf32, #b>
  return
}

// -----

// A row spread over 4 registers, 32 lanes and 4 warps: 3 adds, 5 shuffle
// steps (masks 1, 2, 4, 8, 16), then each warp's partial sums go through
// shared memory (4 slots per row) and every thread adds the 4 of its rows.
// The scratch memory is 2 rows x 4 slots x 4 bytes = 32 bytes, and the
// kernel's shared memory is rounded up to the 128-byte alignment. The only
// barrier is the reduction's own, between the partials' stores and the
// loads of the other warps' partials.
// CHECK-LABEL: llvm.func @reduce_warps
// CHECK-SAME:  tile.shared_bytes = 128 : i32
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-6: llvm.fadd
// CHECK-COUNT-10: nvvm.shfl.sync  bfly
// CHECK-NOT:   nvvm.shfl.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:   llvm.load
// CHECK-NOT:   nvvm.barrier0
// CHECK:       st.global.b32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @reduce_warps(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<2x512xf32, #l>
  %s = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<2x512xf32, #l> -> tensor<2x1xf32, #l>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<2x1xf32, #l>
  return
}

// -----

// An i64 sum: each butterfly step shuffles the element's two 32-bit words
// (low word first), the warps' partials cross shared memory as i64, and the
// result, which every lane and warp holds, is stored by its first holder
// alone (lane and warp bits clear: a holder that read the tensor after
// another stored must not store a stale value) as two words.
// CHECK-LABEL: llvm.func @reduce_i64
// CHECK:       ld.global.v4.b32
// CHECK-COUNT-2: llvm.bitcast %{{.*}} : vector<2xi32> to i64
// CHECK:       llvm.add %{{.*}} : i64
// CHECK:       %[[V:.*]] = llvm.bitcast %{{.*}} : i64 to vector<2xi32>
// CHECK-NEXT:  %[[LO:.*]] = llvm.extractelement %[[V]]
// CHECK-NEXT:  %[[HI:.*]] = llvm.extractelement %[[V]]
// CHECK-NEXT:  nvvm.shfl.sync  bfly %{{.*}}, %[[LO]],
// CHECK-NEXT:  nvvm.shfl.sync  bfly %{{.*}}, %[[HI]],
// CHECK-COUNT-8: nvvm.shfl.sync  bfly
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       llvm.store %{{.*}} : i64, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK:       %[[HOLDER:.*]] = llvm.and %{{.*}}, %{{.*}} : i32
// CHECK:       %[[FIRST:.*]] = llvm.icmp "eq" %[[HOLDER]], %{{.*}} : i32
// CHECK:       %[[P:.*]] = llvm.and %{{.*}}, %[[FIRST]] : i1
// CHECK:       %[[P32:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK:       st.global.v2.b32 [$1], {$2, $3};{{.*}}"r,l,r,r" %[[P32]]
#l = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @reduce_i64(%X: !tile.global<i64, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<i64, 2> -> tensor<1x256xi64, #l>
  %s = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<1x256xi64, #l> -> tensor<1x1xi64, #l>
  tile.store %X[%i, %i], %s : !tile.global<i64, 2>, tensor<1x1xi64, #l>
  return
}

// -----

// A float sum across lanes is add.rn (llvm.nvvm.add.rn.f), which LLVM does
// not contract with the product that feeds it: lane i's fma(a_i, a_i, p_j)
// and lane j's fma(a_j, a_j, p_i) would round differently, and the lanes
// hold the result as copies of one element (each copy must be the same
// value: a later op may read any of them).
// CHECK-LABEL: llvm.func @reduce_product_lanes
// CHECK:       %[[P:.*]] = llvm.fmul
// CHECK-NEXT:  %[[Q:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[P]],
// CHECK-NEXT:  %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.add.rn.f"(%[[P]], %[[Q]]) : (f32, f32) -> f32
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.add.rn.f"
// CHECK-NOT:   llvm.fadd
// CHECK:       llvm.return
#l1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @reduce_product_lanes(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<1x32xf32, #l1>
  %p = arith.mulf %x, %x : tensor<1x32xf32, #l1>
  %s = tile.reduce sum %p {axis = 1 : i32, keepdims} : tensor<1x32xf32, #l1> -> tensor<1x1xf32, #l1>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<1x1xf32, #l1>
  return
}

// -----

// A product across the 32 lanes: five butterfly shuffles, each followed by a
// multiply (no add): tile.reduce prod.
// CHECK-LABEL: llvm.func @reduce_prod_lanes
// CHECK-COUNT-5: nvvm.shfl.sync bfly {{.*}}
// CHECK-NOT:   llvm.fadd
// CHECK:       llvm.return
#l1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @reduce_prod_lanes(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<1x32xf32, #l1>
  %s = tile.reduce prod %x {axis = 1 : i32, keepdims} : tensor<1x32xf32, #l1> -> tensor<1x1xf32, #l1>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<1x1xf32, #l1>
  return
}

// -----

// The same in f16 (add.rn.f16) and bf16 (fma.rn.bf16 with 1.0: sm_80 has
// no bf16 add), on the halves' bits.
// CHECK-LABEL: llvm.func @reduce_product_lanes_16
// CHECK:       llvm.fmul %{{.*}} : f16
// CHECK-COUNT-5: llvm.inline_asm "add.rn.f16 $0, $1, $2;", "=h,h,h"
// CHECK:       llvm.fmul %{{.*}} : bf16
// CHECK-COUNT-5: llvm.inline_asm "{\0A .reg .b16 one;\0A mov.b16 one, 0x3F80;\0A fma.rn.bf16 $0, $1, one, $2;\0A}", "=h,h,h"
// CHECK-NOT:   llvm.fadd
// CHECK:       llvm.return
#l16 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @reduce_product_lanes_16(%X: !tile.global<f16, 2>, %Y: !tile.global<bf16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<1x32xf16, #l16>
  %p = arith.mulf %x, %x : tensor<1x32xf16, #l16>
  %s = tile.reduce sum %p {axis = 1 : i32, keepdims} : tensor<1x32xf16, #l16> -> tensor<1x1xf16, #l16>
  tile.store %X[%i, %i], %s : !tile.global<f16, 2>, tensor<1x1xf16, #l16>
  %y = tile.load %Y[%i, %i] : !tile.global<bf16, 2> -> tensor<1x32xbf16, #l16>
  %q = arith.mulf %y, %y : tensor<1x32xbf16, #l16>
  %t = tile.reduce sum %q {axis = 1 : i32, keepdims} : tensor<1x32xbf16, #l16> -> tensor<1x1xbf16, #l16>
  tile.store %Y[%i, %i], %t : !tile.global<bf16, 2>, tensor<1x1xbf16, #l16>
  return
}

// -----

// A max along a padded axis (192 columns held as 256): each thread's run of
// four registers (one vector, starting at a multiple of four, which divides
// 192) is wholly inside or wholly padding, so it is combined first and
// masked once, a select per run rather than per register.
// CHECK-LABEL: llvm.func @reduce_padded_runs
// CHECK-NOT:   llvm.select
// CHECK-COUNT-6: llvm.intr.maxnum
// CHECK-NEXT:  llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.maxnum
// CHECK-NOT:   llvm.select {{.*}} : i1, f32
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @reduce_padded_runs(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<1x192xf32, #l>
  %m = tile.reduce max %x {axis = 1 : i32, keepdims} : tensor<1x192xf32, #l> -> tensor<1x1xf32, #l>
  tile.store %X[%i, %i], %m : !tile.global<f32, 2>, tensor<1x1xf32, #l>
  return
}

// -----

// tile.local_store of a transposed tile (each thread's registers run down
// dimension 0 first, the buffer's fastest dimension is 1): the eight
// registers a column apart along dimension 1 (register bits 3, 4, 5) are
// one 16-byte vector store, eight a thread, not 64 single halves.
// CHECK-LABEL: llvm.func @store_transposed
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT:   llvm.store
#t = #tile.blocked<sizePerThread = [8, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#sh = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @store_transposed(%X: !tile.global<f16, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<32x256xf16, #t>
  %b = tile.smem_alloc : <[32, 256], f16, #sh>
  tile.local_store %x, %b : tensor<32x256xf16, #t>, <[32, 256], f16, #sh>
  return
}

// -----

// bf16 -> f32 (arith.extf on a tile): the 16 bits shifted to the top of an
// i32, as integer ops (LLVM folds them with the unpacking of the loaded
// word into one shift or one mask a register), not fpext.
// CHECK-LABEL: llvm.func @bf16_to_f32
// CHECK-DAG:   %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NOT:   llvm.fpext
// CHECK:       %[[B:.*]] = llvm.bitcast %{{.*}} : bf16 to i16
// CHECK-NEXT:  %[[W:.*]] = llvm.zext %[[B]] : i16 to i32
// CHECK-NEXT:  llvm.shl %[[W]], %[[C16]] : i32
// CHECK-NOT:   llvm.fpext
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @bf16_to_f32(%X: !tile.global<bf16, 2>, %Y: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<bf16, 2> -> tensor<16x64xbf16, #l>
  %y = arith.extf %x : tensor<16x64xbf16, #l> to tensor<16x64xf32, #l>
  tile.store %Y[%i, %i], %y : !tile.global<f32, 2>, tensor<16x64xf32, #l>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.mma: one mma.sync.m16n8k16 per 16 x 8 block of the warp's part of the
// accumulator and per 16 of K, its fragments picked from the operand
// registers. The f16 accumulator of one mma converted to the A layout of the
// next moves no data: P's registers go straight into the A fragments.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @p_times_v
// CHECK-SAME:  (%[[S0:.*]]: f32, %[[S1:.*]]: f32, %[[S2:.*]]: f32, %[[S3:.*]]: f32, %[[S4:.*]]: f32, %[[S5:.*]]: f32, %[[S6:.*]]: f32, %[[S7:.*]]: f32, %[[V0:.*]]: f16, %[[V1:.*]]: f16, %[[V2:.*]]: f16, %[[V3:.*]]: f16, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[C2:.*]]: f32, %[[C3:.*]]: f32,
// CHECK-NOT:   nvvm.barrier0
// CHECK-NOT:   !llvm.ptr<3>
// CHECK:       %[[P0:.*]] = llvm.fptrunc %[[S0]] : f32 to f16
// CHECK-NEXT:  %[[P1:.*]] = llvm.fptrunc %[[S1]] : f32 to f16
// CHECK:       %[[A0:.*]] = llvm.insertelement %[[P1]], %{{.*}} : vector<2xf16>
// CHECK:       %[[B0:.*]] = llvm.insertelement %[[V1]], %{{.*}} : vector<2xf16>
// CHECK:       %[[B1:.*]] = llvm.insertelement %[[V3]], %{{.*}} : vector<2xf16>
// CHECK-NEXT:  %[[D:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}]  B[%[[B0]], %[[B1]]]  C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:   nvvm.mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @p_times_v(%s: tensor<64x16xf32, #mma>, %v: tensor<16x8xf16, #dot_b>, %c: tensor<64x8xf32, #mma>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  %p = arith.truncf %s : tensor<64x16xf32, #mma> to tensor<64x16xf16, #mma>
  %pa = tile.convert_layout %p : tensor<64x16xf16, #mma> -> tensor<64x16xf16, #dot_a>
  %d = tile.mma %pa, %v, %c : tensor<64x16xf16, #dot_a>, tensor<16x8xf16, #dot_b>, tensor<64x8xf32, #mma>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x8xf32, #mma>
  return
}

// -----

// bf16 operands are passed to mma.sync as i32 words.
// CHECK-LABEL: llvm.func @mma_bf16
// CHECK-COUNT-2: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:   nvvm.mma.sync
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @mma_bf16(%a: tensor<64x16xbf16, #dot_a>, %b: tensor<16x16xbf16, #dot_b>, %c: tensor<64x16xf32, #mma>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16, #dot_a>, tensor<16x16xbf16, #dot_b>, tensor<64x16xf32, #mma>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x16xf32, #mma>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shared memory: buffers and scratch memory at the offsets that
// tile-allocate-shared-memory gives them, barriers only where
// tile-insert-barriers finds threads of the block racing on the same bytes,
// async copies and their waits, local_alloc, ldmatrix, and layout
// conversions through scratch memory.
//===----------------------------------------------------------------------===//

// Offsets: A's buffer (64 x 32 f16, 4 KiB) is live from its tile.smem_alloc
// to its last ldmatrix and B's (32 x 64 f16, 4 KiB) from its local_alloc to
// its last local_load; they overlap, so A gets 0 and B 4096. The scratch
// memory of the final conversion (64 x 64 f32, 16 KiB) is live only during
// the conversion, after both, and reuses offset 0: the kernel needs 16 KiB,
// not 24.
// CHECK:       llvm.mlir.global external @tile_shared_memory() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @staged
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.num_warps = 4 : i32, tile.param_vector_bytes = array<i32: {{[0-9, ]+}}>, tile.shared_bytes = 16384 : i32}
// CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// tile.async_copy: one 16-byte cp.async per 8 halves of the thread (64 x 32
// / 128 threads = 2 of them) into A's buffer at offset 0, copying 0 bytes
// (zero fill) where out of bounds, then one commit. No barrier before it:
// nothing has accessed shared memory yet.
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[DA0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  %[[SRC0:.*]] = llvm.select %{{.*}}, %[[C16]], %[[C0]] : i1, i32
// CHECK-NEXT:  nvvm.cp.async.shared.global %[[DA0]], %{{.*}}, 16, cache =  cg, %[[SRC0]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:       %[[DA1:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  %[[SRC1:.*]] = llvm.select %{{.*}}, %[[C16]], %[[C0]] : i1, i32
// CHECK-NEXT:  nvvm.cp.async.shared.global %[[DA1]], %{{.*}}, 16, cache =  cg, %[[SRC1]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  nvvm.cp.async.commit.group
// CHECK-NOT:   nvvm.cp.async.shared.global
// tile.local_alloc: 16-byte vector stores into B's buffer at 4096, with no
// barrier before (nobody has accessed B's bytes) nor after them (the
// lowering no longer adds any).
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[BUFB:.*]] = llvm.getelementptr %[[SMEM]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[PB0:.*]] = llvm.getelementptr %[[BUFB]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %[[PB0]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[PB1:.*]] = llvm.getelementptr %[[BUFB]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %[[PB1]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// tile.async_wait: only the wait until at most `pending` groups are in
// flight (this thread's copies of A have landed). The barrier after it is
// tile-insert-barriers': the ldmatrix of A reads bytes other threads'
// cp.async wrote, and the ldmatrix of B bytes other threads stored; this one
// barrier covers both hazards.
// CHECK-NEXT:  nvvm.cp.async.wait.group 1
// CHECK-NEXT:  nvvm.barrier0
// tile.local_load of the A operand: one ldmatrix.x4 per warp (no transpose:
// the buffer is row-major along K) from A's buffer; of the B operand from a
// row-major (N-contiguous) buffer: ldmatrix.x4.trans, four of them for
// 16 x 64, from B's buffer. Reads after reads need no barrier.
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[PA:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  nvvm.ldmatrix %[[PA]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[PBT:.*]] = llvm.getelementptr %[[BUFB]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  nvvm.ldmatrix %[[PBT]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-3: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// 64 x 64 x 16 on 4 warps of 16 x 64: 8 mma.sync per K step, 2 K steps.
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>
// CHECK-COUNT-3: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT:   nvvm.mma.sync
// A blocked tile.local_load: plain 16-byte loads from the swizzled buffer.
// It has B's layout, so each thread loads from the very addresses it stored
// at (the first the same value; the stores' second is their base plus a
// constant); no barrier either.
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.load %[[PB0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       st.global.v4.b32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       st.global.v4.b32
// mma -> blocked conversion of the f32 result through its scratch memory at
// offset 0. Those bytes are A's buffer, which other warps may still be
// reading with ldmatrix: tile-insert-barriers puts a barrier before the
// conversion's stores. The barrier between its stores and its loads is the
// conversion's own; none follows.
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[S0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %[[S0]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @staged(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #shared>
  tile.async_copy %A[%i, %i], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #shared>
  %b = tile.load %B[%i, %i] : !tile.global<f16, 2> -> tensor<32x64xf16, #blocked1>
  %bb = tile.local_alloc %b : tensor<32x64xf16, #blocked1> -> !tile.smem<[32, 64], f16, #shared1>
  tile.async_wait %ba {pending = 1 : i32} : !tile.smem<[64, 32], f16, #shared>
  %a0 = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #shared> -> tensor<64x16xf16, #dot_a>
  %b0 = tile.local_load %bb [0, 0] : !tile.smem<[32, 64], f16, #shared1> -> tensor<16x64xf16, #dot_b>
  %d0 = tile.mma %a0, %b0, %z : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %a1 = tile.local_load %ba [0, 16] : !tile.smem<[64, 32], f16, #shared> -> tensor<64x16xf16, #dot_a>
  %b1 = tile.local_load %bb [16, 0] : !tile.smem<[32, 64], f16, #shared1> -> tensor<16x64xf16, #dot_b>
  %d1 = tile.mma %a1, %b1, %d0 : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %x = tile.local_load %bb [0, 0] : !tile.smem<[32, 64], f16, #shared1> -> tensor<32x64xf16, #blocked1>
  tile.store %B[%i, %i], %x : !tile.global<f16, 2>, tensor<32x64xf16, #blocked1>
  %o = tile.convert_layout %d1 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  tile.store %C[%i, %i], %o : !tile.global<f32, 2>, tensor<64x64xf32, #blocked>
  return
}

// -----

// A conversion that keeps every element in its thread (here the same
// distribution with the registers in another order) moves no data: the
// registers are only renumbered. Register i of the column-ordered layout
// holds element (i % 2, i / 2) of the thread's 2 x 2 block, which is
// register 2 * (i % 2) + i / 2 of the row-ordered one; registers adjacent
// along the contiguous dimension are no longer consecutive, so each is
// stored on its own.
// CHECK-LABEL: llvm.func @register_only
// CHECK-SAME:  (%[[R0:.*]]: f32, %[[R1:.*]]: f32, %[[R2:.*]]: f32, %[[R3:.*]]: f32,
// CHECK-NOT:   nvvm.barrier0
// CHECK-NOT:   !llvm.ptr<3>
// CHECK:       %[[W0:.*]] = llvm.bitcast %[[R0]] : f32 to i32
// CHECK:       st.global.b32 [$1], {$2};{{.*}} %[[W0]] :
// CHECK:       %[[W1:.*]] = llvm.bitcast %[[R2]] : f32 to i32
// CHECK:       st.global.b32 [$1], {$2};{{.*}} %[[W1]] :
// CHECK:       %[[W2:.*]] = llvm.bitcast %[[R1]] : f32 to i32
// CHECK:       st.global.b32 [$1], {$2};{{.*}} %[[W2]] :
// CHECK:       %[[W3:.*]] = llvm.bitcast %[[R3]] : f32 to i32
// CHECK:       st.global.b32 [$1], {$2};{{.*}} %[[W3]] :
// CHECK-NOT:   nvvm.barrier0
// CHECK-NOT:   tile_shared_memory
// CHECK:       llvm.return
#row = #tile.blocked<sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tile.blocked<sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]>
func.func @register_only(%x: tensor<8x64xf32, #row>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  %y = tile.convert_layout %x : tensor<8x64xf32, #row> -> tensor<8x64xf32, #col>
  tile.store %O[%c0, %c0], %y : !tile.global<f32, 2>, tensor<8x64xf32, #col>
  return
}

// -----

// Two conversions through scratch memory: each is live only while its op
// runs, so both get offset 0 and the function needs 64 x 4 bytes, not
// twice that. The second one's stores go to the very addresses the first
// one's loads read (CSE shares them), and those loads are other threads':
// tile-insert-barriers puts a barrier between the first conversion's loads
// and the second's stores (write after read), and each conversion keeps
// its own barrier between its stores and its loads.
// CHECK-LABEL: llvm.func @scratch_reuse
// CHECK-SAME:  (%[[X0:.*]]: f32, %[[X1:.*]]: f32, %[[Y0:.*]]: f32, %[[Y1:.*]]: f32,
// CHECK-SAME:  attributes {tile.shared_bytes = 256 : i32}
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[P0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:  llvm.store %[[X0]], %[[P0]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[P1:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:  llvm.store %[[X1]], %[[P1]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[Q:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:  %[[XB:.*]] = llvm.load %[[Q]] {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  llvm.store %[[Y0]], %[[P0]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  llvm.store %[[Y1]], %[[P1]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  %[[YB:.*]] = llvm.load %[[Q]] {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.bitcast %[[XB]] : f32 to i32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.bitcast %[[YB]] : f32 to i32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @scratch_reuse(%x: tensor<64xf32, #rows>, %y: tensor<64xf32, #rows>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %xb = tile.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b>
  %yb = tile.convert_layout %y : tensor<64xf32, #rows> -> tensor<64xf32, #b>
  tile.store %O[%c0], %xb : !tile.global<f32, 1>, tensor<64xf32, #b>
  tile.store %O[%c64], %yb : !tile.global<f32, 1>, tensor<64xf32, #b>
  return
}

// -----

// Slices and concatenation, one warp, a row of 64 (two registers a thread:
// columns t and t + 32). The slice at 32 is the second register (no data
// moves); the slice at 16 goes through scratch memory: the row stored,
// a barrier, column t + 16 loaded. The concatenation joins two tiles held
// where the result holds them (tile::concatRegisters): its registers are
// theirs, the slice at 32 as column t and the one at 16 as column t + 32,
// stored as they are; no scratch of its own (256 bytes: the slice's row).
// CHECK-LABEL: llvm.func @extract_concat
// CHECK-SAME:  (%[[X0:.*]]: f32, %[[X1:.*]]: f32,
// CHECK-SAME:  tile.shared_bytes = 256 : i32
// CHECK:       %[[P0:.*]] = llvm.getelementptr %{{.*}}[%[[T:.*]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:  llvm.store %[[X0]], %[[P0]]
// CHECK:       %[[P1:.*]] = llvm.getelementptr
// CHECK-NEXT:  llvm.store %[[X1]], %[[P1]]
// CHECK-NEXT:  nvvm.barrier0
// CHECK:       %[[MID:.*]] = llvm.load
// CHECK-NOT:   nvvm.barrier0
// CHECK-NOT:   llvm.store
// CHECK:       llvm.bitcast %[[X1]] : f32 to i32
// CHECK:       st.global.b32
// CHECK:       llvm.bitcast %[[MID]] : f32 to i32
// CHECK:       st.global.b32
// CHECK:       llvm.return
#row = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @extract_concat(%x: tensor<1x64xf32, #row>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %hi = tile.extract %x [0, 32] : tensor<1x64xf32, #row> -> tensor<1x32xf32, #row>
  %mid = tile.extract %x [0, 16] : tensor<1x64xf32, #row> -> tensor<1x32xf32, #row>
  %c = tile.concat %hi, %mid {axis = 1 : i32} : tensor<1x32xf32, #row>, tensor<1x32xf32, #row> -> tensor<1x64xf32, #row>
  tile.store %O[%c0, %c0], %c : !tile.global<f32, 2>, tensor<1x64xf32, #row>
  return
}

// -----

// A scan along a row of 128: bit 0 of the axis in a register (the second
// register adds the first), bits 1 to 5 in lanes (one shuffle per step, of
// the thread's total, from the lane whose lower bits are set: the elements
// with the bit set add it in), bit 6 in the warps (through scratch memory:
// stores, a barrier, the load of the lower half's last element).
// CHECK-LABEL: llvm.func @scan
// CHECK-SAME:  (%[[X0:.*]]: f32, %[[X1:.*]]: f32,
// CHECK-SAME:  tile.shared_bytes = 512 : i32
// CHECK:       %[[T:.*]] = llvm.fadd %[[X0]], %[[X1]] : f32
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       llvm.store
// CHECK:       llvm.store
// CHECK-NEXT:  nvvm.barrier0
// CHECK:       llvm.load
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
#scanrow = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]>
func.func @scan(%x: tensor<1x128xf32, #scanrow>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %s = tile.scan sum %x {axis = 1 : i32} : tensor<1x128xf32, #scanrow>
  tile.store %O[%c0, %c0], %s : !tile.global<f32, 2>, tensor<1x128xf32, #scanrow>
  return
}

// -----

// A conversion in a loop races with itself across iterations: iteration
// j + 1's stores overwrite what other threads may still be loading in
// iteration j. The barrier goes at the top of the body (before the stores),
// found by iterating the analysis around the loop; nothing before the loop
// touched shared memory, so there is none before it, and none at the end of
// the body.
// CHECK-LABEL: llvm.func @loop_carried
// CHECK-SAME:  attributes {tile.shared_bytes = 256 : i32}
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.br ^[[HEAD:bb[0-9]+]](
// CHECK:       ^[[HEAD]](%{{.*}}: i32, %[[V0:.*]]: f32, %[[V1:.*]]: f32):
// CHECK-NEXT:  %[[C:.*]] = llvm.icmp "slt"
// CHECK-NEXT:  llvm.cond_br %[[C]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %[[V0]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %[[V1]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.br ^[[HEAD]](
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:  llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @loop_carried(%x: tensor<64xf32, #rows>, %n: i32, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64xf32, #rows>) : i32 {
    %xb = tile.convert_layout %acc : tensor<64xf32, #rows> -> tensor<64xf32, #b>
    tile.store %O[%j], %xb : !tile.global<f32, 1>, tensor<64xf32, #b>
    %next = arith.addf %acc, %acc : tensor<64xf32, #rows>
    scf.yield %next : tensor<64xf32, #rows>
  }
  return
}

// -----

// A two-stage pipelined loop, as tile-pipeline writes it: a ring of two
// 64 x 32 f16 buffers (8 KiB, at offset 0), the copy for iteration 0 before
// the loop, and in iteration j the wait for slot j % 2, the copy for
// iteration j + 1 into slot (j + 1) % 2 (predicated off past the end), and
// the reads of slot j % 2.
// CHECK-LABEL: llvm.func @pipelined
// CHECK-SAME:  (%[[A:.*]]: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %[[N:.*]]: i32)
// CHECK-SAME:  tile.shared_bytes = 8192 : i32
// CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:   %[[STAGE:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// The predicated copy: its cp.async ops in a conditional block, the commit
// outside it, so that the group is committed (empty) even when the copy is
// predicated off and the waits' counts hold. Slot 0 is the ring itself.
// No barrier: nothing has accessed shared memory yet.
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[P0:.*]] = llvm.icmp "sgt" %[[N]], %[[C0]] : i32
// CHECK-NEXT:  llvm.cond_br %[[P0]], ^[[COPY0:bb[0-9]+]], ^[[COMMIT0:bb[0-9]+]]
// CHECK-NEXT:  ^[[COPY0]]:
// CHECK:       %[[D0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK:       nvvm.cp.async.shared.global %[[D0]], %{{.*}}, 16, cache =  cg
// CHECK:       nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NEXT:  llvm.br ^[[COMMIT0]]
// CHECK-NEXT:  ^[[COMMIT0]]:
// CHECK-NEXT:  nvvm.cp.async.commit.group
// CHECK-NEXT:  llvm.br ^[[HEAD:bb[0-9]+]](%[[C0]] : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[J:.*]]: i32):
// CHECK-NEXT:  %[[MORE:.*]] = llvm.icmp "slt" %[[J]], %[[N]] : i32
// CHECK-NEXT:  llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// tile.smem_slot: slot * (bytes of a stage), as a byte offset from the ring.
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:  %[[CUR:.*]] = llvm.urem %[[J]], %[[C2]] : i32
// CHECK-NEXT:  %[[CUROFF:.*]] = llvm.mul %[[CUR]], %[[STAGE]] : i32
// CHECK-NEXT:  %[[VIEW:.*]] = llvm.getelementptr %[[SMEM]][%[[CUROFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  nvvm.cp.async.wait.group 0
// CHECK-NEXT:  %[[J1:.*]] = llvm.add %[[J]], %[[C1]] : i32
// CHECK-NEXT:  %[[NXT:.*]] = llvm.urem %[[J1]], %[[C2]] : i32
// CHECK-NEXT:  %[[NXTOFF:.*]] = llvm.mul %[[NXT]], %[[STAGE]] : i32
// CHECK-NEXT:  %[[SLOT:.*]] = llvm.getelementptr %[[SMEM]][%[[NXTOFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  %[[P:.*]] = llvm.icmp "slt" %[[J1]], %[[N]] : i32
// One barrier per iteration, between the wait and the refill, serves both
// hazards: other threads' copies into slot j % 2, waited for, are read below
// (read after write), and slot (j + 1) % 2, about to be refilled, was read
// by other threads in iteration j - 1 (write after read). The analysis does
// not tell the slots apart, so no second barrier goes before the reads.
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  llvm.cond_br %[[P]], ^[[COPY:bb[0-9]+]], ^[[COMMIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[COPY]]:
// CHECK:       %[[D1:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK:       nvvm.cp.async.shared.global %[[D1]], %{{.*}}, 16, cache =  cg
// CHECK:       nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NEXT:  llvm.br ^[[COMMIT]]
// CHECK-NEXT:  ^[[COMMIT]]:
// CHECK-NEXT:  nvvm.cp.async.commit.group
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[R0:.*]] = llvm.getelementptr %[[VIEW]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  llvm.load %[[R0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       st.global.v4.b32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       st.global.v4.b32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.br ^[[HEAD]](%[[J1]] : i32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:  llvm.return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#ring = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
func.func @pipelined(%A: !tile.global<f16, 2>, %O: !tile.global<f16, 2>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %ring = tile.smem_alloc : !tile.smem<[2, 64, 32], f16, #ring>
  %p0 = arith.cmpi slt, %c0, %n : i32
  %s0 = tile.smem_slot %ring[%c0] : !tile.smem<[2, 64, 32], f16, #ring> -> !tile.smem<[64, 32], f16, #shared>
  tile.async_copy %A[%c0, %c0], %s0 if %p0 {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #shared>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %cur = arith.remui %j, %c2 : i32
    %view = tile.smem_slot %ring[%cur] : !tile.smem<[2, 64, 32], f16, #ring> -> !tile.smem<[64, 32], f16, #shared>
    tile.async_wait %view {pending = 0 : i32} : !tile.smem<[64, 32], f16, #shared>
    %j1 = arith.addi %j, %c1 : i32
    %nxt = arith.remui %j1, %c2 : i32
    %slot = tile.smem_slot %ring[%nxt] : !tile.smem<[2, 64, 32], f16, #ring> -> !tile.smem<[64, 32], f16, #shared>
    %p = arith.cmpi slt, %j1, %n : i32
    tile.async_copy %A[%j1, %c0], %slot if %p {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #shared>
    %x = tile.local_load %view [0, 0] : !tile.smem<[64, 32], f16, #shared> -> tensor<64x32xf16, #blocked>
    tile.store %O[%j, %c0], %x : !tile.global<f16, 2>, tensor<64x32xf16, #blocked>
  }
  return
}

// -----

// tile.local_load from a buffer that holds the tile without its size-1
// dimensions (a 1 x 64 row in a [64] buffer, as tile.async_copy fills it
// and tile-stage-converted-loads reads it): the row in an mma accumulator's
// column layout, each thread's 8 pairs of adjacent columns as 8-byte loads.
// CHECK-LABEL: llvm.func @row_from_unit_dims
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-NOT:   llvm.load
// CHECK:       llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @row_from_unit_dims(%O: !tile.global<f32, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %b = tile.smem_alloc : !tile.smem<[64], f32, #shared>
  %r = tile.local_load %b [0] : !tile.smem<[64], f32, #shared> -> tensor<1x64xf32, #mma>
  tile.store %O[%c0, %c0], %r : !tile.global<f32, 2>, tensor<1x64xf32, #mma>
  return
}

// -----

// tile.barrier: the whole block is bar.sync 0 (nvvm.barrier0), a named
// barrier is bar.sync id, num_threads, a warpgroup's the named barrier of
// the thread's warpgroup. Barriers written in the input stay
// where they are; with no shared memory access around, tile-insert-barriers
// adds none.
// CHECK-LABEL: llvm.func @barriers
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.num_warps = 4 : i32, tile.param_vector_bytes = array<i32>, tile.shared_bytes = 0 : i32}
// CHECK-DAG:   %[[ID:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:   %[[NT:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NOT:   nvvm.barrier
// CHECK:       nvvm.barrier id = %[[ID]] number_of_threads = %[[NT]]
// CHECK-NEXT:  nvvm.barrier0
// A warpgroup's: bar.sync 8 + thread / 128, 128, the warpgroup broadcast
// from the warp's first lane (warp-uniform to ptxas).
// CHECK-NEXT:  %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT:  %[[G:.*]] = llvm.udiv %[[T]], %[[C128:.*]] : i32
// CHECK-NEXT:  %[[U:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[G]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  %[[WID:.*]] = llvm.add %[[U]], %[[C8:.*]] : i32
// CHECK-NEXT:  nvvm.barrier id = %[[WID]] number_of_threads = %[[C128]]
// CHECK-NEXT:  llvm.return
func.func @barriers() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  tile.barrier {id = 1 : i32, num_threads = 64 : i32}
  tile.barrier
  tile.barrier {warpgroup}
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.wgmma (sm_90a), both operands in shared memory: a fence, one
// wgmma.mma_async.m64n64k16 per K step of 16 for the warpgroup's 64 rows,
// one commit group and a wait that ties the 32 accumulator registers. A is
// K-major (64-byte swizzle: leading offset 64 rows x 64 B = 4096 B, stride
// offset 8 x 64 B = 512 B, mode 2 in bits 62-63: 0x8000002001000000 |
// address >> 4); B is K x N with K fastest, also K-major (no transpose).
// Every instruction takes the same two base descriptors and adds its K
// step inside its asm (32 bytes: 2 in the 16-byte address field).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.func @wgmma_ss
// CHECK-DAG:   %[[DESC:.*]] = llvm.mlir.constant(-9223371899399045120 : i64) : i64
// CHECK:       llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;"
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $64, 0;\0A add.s64 db, $65, 0;\0A setp.ne.b32 p, $66, 0;\0A wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, da, db, p, 1, 1, 0, 0;\0A}", "=f,{{.*}},=f,0,{{.*}},31,l,l,r" {{.*}}, %[[A:[0-9]+]], %[[B:[0-9]+]], %{{[0-9]+}} :
// CHECK-NOT:   wgmma.fence
// CHECK:       "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $64, 2;\0A add.s64 db, $65, 2;\0A {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %[[A]], %[[B]], %{{[0-9]+}} :
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.commit_group.sync.aligned;"
// CHECK-NEXT:  llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},=f,0,{{.*}},31"
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_ss(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// tile.smem_permute is the buffer's own address: B (K x N = 32 x 64, K
// fastest) read through the transposed view of a 64 x 32 row-major buffer
// is the K-major B of @wgmma_ss (no transpose bit), its descriptor built
// from the local_alloc's address (its `tile.smem_offset`, 4096) with
// nothing in between.
// CHECK-LABEL: llvm.func @wgmma_permuted_view
// CHECK-NOT:   tile.smem_permute
// CHECK:       wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, da, db, p, 1, 1, 0, 0;
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_permuted_view(%x: tensor<64x32xf16, #blk>, %y: tensor<64x32xf16, #blk>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %yb = tile.local_alloc %y : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.smem_permute %yb [1, 0] : !tile.smem<[64, 32], f16, #sa> -> !tile.smem<[32, 64], f16, #sb>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// A multiply onto zeros reads no accumulator: the first instruction of the
// output block writes its 32 registers only ("=f", no tied inputs), with
// scale-d false (a constant 0); the next K step accumulates onto it.
// CHECK-LABEL: llvm.func @wgmma_onto_zeros
// CHECK-DAG:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:       llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;"
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $32, 0;\0A add.s64 db, $33, 0;\0A setp.ne.b32 p, $34, 0;\0A wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, da, db, p, 1, 1, 0, 0;\0A}", "{{(=f,)+}}l,l,r" %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO]] :
// CHECK-NEXT:  llvm.extractvalue
// CHECK:       "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $64, 2;\0A add.s64 db, $65, 2;\0A setp.ne.b32 p, $66, 0;{{.*}}", "=f,{{.*}},=f,0,{{.*}},31,l,l,r"
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.commit_group.sync.aligned;"
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_onto_zeros(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma3>
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %d = tile.wgmma %a, %b, %z : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// Warpgroups along N (#tile.mma<warpsPerCTA = [4, 2], version = 3>): 8 warps
// on a 64 x 64 accumulator, each warpgroup 32 columns (m64n32, 16
// registers). B is K-major: the second warpgroup's columns are 32 rows of
// B's buffer further (32 x 32 elements x 2 B = 2048 bytes), one offset
// added to B's address before its descriptor; A is the same for both.
// CHECK-LABEL: llvm.func @wgmma_split_n
// CHECK-DAG:   %[[SHIFT:.*]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK:       %[[OFF:.*]] = llvm.mul %{{.*}}, %[[SHIFT]] : i32
// CHECK:       llvm.add %{{.*}}, %[[OFF]] : i32
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-NEXT:  "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $32, 0;\0A add.s64 db, $33, 0;\0A setp.ne.b32 p, $34, 0;\0A wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {$0, {{.*}}, $15}, da, db, p, 1, 1, 0, 0;\0A}"
// CHECK:       "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $32, 2;\0A add.s64 db, $33, 2;\0A {{.*}}m64n32k16
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.commit_group.sync.aligned;"
#mma3 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_split_n(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// The warpgroup a multiply's descriptors follow from (thread / 128) is
// broadcast from the warp's first lane (shfl.sync.idx), so that ptxas knows
// it is warp-uniform and keeps the descriptors in uniform registers, not
// moved into them (R2UR) at every wgmma; computed once, before the loop
// around the multiplies (LLVM does not hoist a shuffle), and shared by both.
// (After CSE both multiplies take their B columns' offset from one product.)
// CHECK-LABEL: llvm.func @wgmma_warpgroup_in_loop
// CHECK-DAG:   %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG:   %[[SHIFT:.*]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK:       %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       %[[G:.*]] = llvm.udiv %[[T]], %[[C128]] : i32
// CHECK-NEXT:  %[[WG:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[G]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:  llvm.br ^[[HEADER:.*]](
// CHECK:       ^[[HEADER]](
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       llvm.mul %[[WG]], %[[SHIFT]] : i32
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       llvm.return
#mma3 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_warpgroup_in_loop(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %n: i32, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma3>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
    %e = tile.wgmma %a, %b, %d : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
    scf.yield %e : tensor<64x64xf32, #mma3>
  }
  tile.store %O[%c0, %c0], %r : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// b `transposed`: its buffer holds B^T (64 x 32, N x K, K fastest): read as
// K-major B (transpose immediate 0), K steps of 16 elements (32 bytes: 2 in
// the descriptor's address field) along the buffer's rows.
// CHECK-LABEL: llvm.func @wgmma_b_transposed
// CHECK:       "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $32, 0;\0A add.s64 db, $33, 0;\0A setp.ne.b32 p, $34, 0;\0A wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, da, db, p, 1, 1, 0, 0;\0A}"
// CHECK:       "{\0A .reg .pred p;\0A .reg .b64 da, db;\0A add.s64 da, $64, 2;\0A add.s64 db, $65, 2;\0A {{.*}}m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;\0A}"
// CHECK-NOT:   wgmma.mma_async
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
func.func @wgmma_b_transposed(%x: tensor<64x32xf16, #blk>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma3>
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %d = tile.wgmma %a, %a transposed, %z : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[64, 32], f16, #sa>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// A from registers (P * V): the RS form takes A's m16k16 fragment of each
// warp in four 32-bit words; V (K x N, N fastest) is M/N-major: the
// transpose flag is set.
// CHECK-LABEL: llvm.func @wgmma_rs
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-NEXT:  add.s64 db, $68, 0;\0A setp.ne.b32 p, $69, 0;\0A wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, db, p, 1, 1, 1;{{.*}}", "=f,{{.*}},31,r,r,r,r,l,r"
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.commit_group.sync.aligned;"
// CHECK-NEXT:  "wgmma.wait_group.sync.aligned 0;"
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma3>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sv = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_rs(%s: tensor<64x16xf32, #mma3>, %v: tensor<16x64xf16, #blk>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %p = arith.truncf %s : tensor<64x16xf32, #mma3> to tensor<64x16xf16, #mma3>
  %pa = tile.convert_layout %p : tensor<64x16xf16, #mma3> -> tensor<64x16xf16, #dot_a>
  %b = tile.local_alloc %v : tensor<16x64xf16, #blk> -> !tile.smem<[16, 64], f16, #sv>
  %d = tile.wgmma %pa, %b, %c : tensor<64x16xf16, #dot_a>, !tile.smem<[16, 64], f16, #sv>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// One K step of a multiply split along K (tile-slice-wgmma-k): A's 16
// columns from registers, B's rows 16 .. 31 (k_offset 16) of a 32 x 64
// buffer with N fastest in 128-byte rows: the descriptor starts 16 rows of
// 128 bytes in (2048 B: 128 in the 16-byte address field).
// CHECK-LABEL: llvm.func @wgmma_rs_k_offset
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-NEXT:  add.s64 db, $68, 128;\0A setp.ne.b32 p, $69, 0;\0A wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.commit_group.sync.aligned;"
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma3>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sv = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_rs_k_offset(%s: tensor<64x16xf32, #mma3>, %v: tensor<32x64xf16, #blk>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %p = arith.truncf %s : tensor<64x16xf32, #mma3> to tensor<64x16xf16, #mma3>
  %pa = tile.convert_layout %p : tensor<64x16xf16, #mma3> -> tensor<64x16xf16, #dot_a>
  %b = tile.local_alloc %v : tensor<32x64xf16, #blk> -> !tile.smem<[32, 64], f16, #sv>
  %d = tile.wgmma %pa, %b [k_offset = 16], %c : tensor<64x16xf16, #dot_a>, !tile.smem<[32, 64], f16, #sv>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// Async multiplies (tile-async-wgmma): each is a fence, its instructions and
// a commit group, with no wait; the second takes the first's accumulator
// registers in flight (the tensor cores chain them). tile.wgmma_wait 1
// without values is a bare wait_group 1; tile.wgmma_wait 0 ties the 32
// accumulator registers it completes, which the store then reads.
// CHECK-LABEL: llvm.func @wgmma_async
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:   wgmma.wait_group
// CHECK:       "wgmma.commit_group.sync.aligned;"
// CHECK-NOT:   wgmma.wait_group
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:   wgmma.wait_group
// CHECK:       "wgmma.commit_group.sync.aligned;"
// CHECK-NOT:   llvm.inline_asm
// CHECK:       llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", ""
// CHECK-NEXT:  llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},=f,0,{{.*}},31"
// CHECK-NOT:   wgmma
// CHECK:       st.global
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_async(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %d = tile.wgmma async %a, %b, %c : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  %e = tile.wgmma async %a, %b, %d : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.wgmma_wait 1 reads %a : !tile.smem<[64, 32], f16, #sa>
  %f = tile.wgmma_wait 0, %e : tensor<64x64xf32, #mma3> reads %a, %b : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>
  tile.store %O[%c0, %c0], %f : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// A multiply that continues a loop's accumulator after the loop (the last
// trip's P V that tile-rotate-wgmma issues there) copies it into registers
// of its own in its fence's asm, untied ("=f" outputs, "f" inputs), so that
// the loop's registers and the epilogue's are two webs for ptxas; the
// multiply in the loop, whose accumulator is the loop's argument, keeps the
// bare fence.
// CHECK-LABEL: llvm.func @wgmma_after_loop
// CHECK:       ^bb{{[0-9]+}}(%{{.*}}: i32, %{{.*}}: f32,
// CHECK:       llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;", ""
// CHECK:       wgmma.mma_async
// CHECK:       llvm.br ^bb
// CHECK:       llvm.inline_asm has_side_effects "mov.b32 $0, $32;\0Amov.b32 $1, $33;\0A{{.*}}mov.b32 $31, $63;\0Awgmma.fence.sync.aligned;", "=f,{{(=f,)+}}f,{{(f,)+}}f"
// CHECK-NEXT:  llvm.extractvalue
// CHECK-NOT:   wgmma.fence
// CHECK:       wgmma.mma_async
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_after_loop(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %n: i32, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma3>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
    scf.yield %d : tensor<64x64xf32, #mma3>
  }
  %e = tile.wgmma %a, %b, %r : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %e : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// A loop that yields its accumulator in flight (an async multiply's
// result): the multiply after it chains on the registers as they are, with
// the bare fence (a copy would read them before any wait).
// CHECK-LABEL: llvm.func @wgmma_after_loop_in_flight
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;", ""
// CHECK-NOT:   mov.b32
// CHECK:       "wgmma.wait_group.sync.aligned 0;"
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkT = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], block = 32>
func.func @wgmma_after_loop_in_flight(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blkT>, %c: tensor<64x64xf32, #mma3>, %n: i32, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blkT> -> !tile.smem<[32, 64], f16, #sb>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma3>) : i32 {
    %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
    scf.yield %d : tensor<64x64xf32, #mma3>
  }
  %e = tile.wgmma async %a, %b, %r : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>, tensor<64x64xf32, #mma3>
  %f = tile.wgmma_wait 0, %e : tensor<64x64xf32, #mma3> reads %a, %b : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sb>
  tile.store %O[%c0, %c0], %f : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

// -----

// A reshape that joins dimensions (powers of two) whose layouts hold each
// element in the same thread: the registers are passed on, nothing goes
// through shared memory. Rows of 16 (4 a thread over 4 lanes) over 8 lanes
// and 4 warps are 256 elements, 4 a thread over 32 lanes and 4 warps.
// CHECK-LABEL: llvm.func @reshape_joins_dims
// CHECK-NOT:   !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier
// CHECK:       @p ld.global.v4.b32
// CHECK-NOT:   !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier
// CHECK:       @p st.global.v4.b32
// CHECK-NEXT:  llvm.return
#rj = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#rj1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @reshape_joins_dims(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<16x16xf32, #rj>
  %r = tile.reshape %x : tensor<16x16xf32, #rj> -> tensor<256xf32, #rj1>
  tile.store %O[%c0], %r : !tile.global<f32, 1>, tensor<256xf32, #rj1>
  return
}

// -----

// tile.async_copy with a padding other than zero: each vector is copied by
// cp.async where it is inside the tensor, else the padding is stored there
// (st.shared of its words; a cp.async of 0 bytes would fill zeros,
// asynchronously), one predicate choosing: 1 x 128 f32 over the 32 lanes
// of one warp, one 16-byte vector each, -inf in four words.
// CHECK-LABEL: llvm.func @async_copy_padded
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A .reg .b32 w<4>;\0A setp.ne.b32 p, $0, 0;\0A @p cp.async.cg.shared.global [$1], [$2], 16;\0A mov.b32 w0, 0xff800000;\0A mov.b32 w1, 0xff800000;\0A mov.b32 w2, 0xff800000;\0A mov.b32 w3, 0xff800000;\0A @!p st.shared.v4.b32 [$1], {w0, w1, w2, w3};\0A}", "r,r,l,~{memory}"
// CHECK-NOT:   nvvm.cp.async.shared.global
// CHECK:       nvvm.cp.async.commit.group
#cp = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
#cps = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @async_copy_padded(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %buf = tile.smem_alloc : !tile.smem<[128], f32, #cps>
  tile.async_copy %X[%i, %i], %buf {layout = #cp, padding = 0xFF800000 : f32, shape = array<i64: 1, 128>} : !tile.global<f32, 2>, !tile.smem<[128], f32, #cps>
  return
}

// -----

// tile.async_copy whose layout holds each vector in several threads (64
// f32, 4 a thread: 16 lanes; the other 16 lanes and the second warp hold
// copies): only the first holder (lane bit 4 and the warp clear) issues the
// cp.async, as two copies into one destination race; every thread commits.
// CHECK-LABEL: llvm.func @async_copy_replicated
// CHECK:       %[[LANE:.*]] = llvm.and %{{.*}}, %{{.*}} : i32
// CHECK:       %[[FIRST:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:  llvm.cond_br %[[FIRST]], ^[[COPY:.*]], ^[[DONE:.*]]
// CHECK:       ^[[COPY]]:
// CHECK:       nvvm.cp.async.shared.global
// CHECK-NOT:   nvvm.cp.async.shared.global
// CHECK:       ^[[DONE]]:
// CHECK-NEXT:  nvvm.cp.async.commit.group
#cpr = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
#cprs = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @async_copy_replicated(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %buf = tile.smem_alloc : !tile.smem<[64], f32, #cprs>
  tile.async_copy %X[%i, %i], %buf {layout = #cpr, shape = array<i64: 1, 64>} : !tile.global<f32, 2>, !tile.smem<[64], f32, #cprs>
  return
}

// -----

// The same with 12 rows, held padded to 16: the joined dimension's inner
// part (the rows of 16) is a power of two, so an element keeps its
// row-major index in the padded shapes (12 x 16 -> 192, held as 256), and
// the registers are passed on as above.
// CHECK-LABEL: llvm.func @reshape_joins_padded_dims
// CHECK-NOT:   !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier
// CHECK:       @p ld.global.v4.b32
// CHECK-NOT:   !llvm.ptr<3>
// CHECK-NOT:   nvvm.barrier
// CHECK:       @p st.global.v4.b32
// CHECK-NEXT:  llvm.return
#rp = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#rp1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @reshape_joins_padded_dims(%X: !tile.global<f32, 2>, %O: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%c0, %c0] : !tile.global<f32, 2> -> tensor<12x16xf32, #rp>
  %r = tile.reshape %x : tensor<12x16xf32, #rp> -> tensor<192xf32, #rp1>
  tile.store %O[%c0], %r : !tile.global<f32, 1>, tensor<192xf32, #rp1>
  return
}

// -----

// tile.fence_async_shared is fence.proxy.async for the CTA's shared memory.
// CHECK-LABEL: llvm.func @fence
// CHECK:       llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", ""
func.func @fence() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  tile.fence_async_shared
  return
}

// -----

// A buffer held short of its padding (tile.slot_bytes: 640 f32 of 1024,
// filled by an async copy, read by tile.local_load): the copy's lanes past
// the tile's 640 columns copy nothing (the cp.async under their in-tile
// predicate), and the read's lanes past them read the buffer's first
// element instead (the address selected), so that neither reaches past the
// 2560 bytes allocated.
// CHECK-LABEL: llvm.func @read_short
// CHECK:       @q cp.async.cg.shared.global
// CHECK:       nvvm.cp.async.wait.group 0
// CHECK:       %[[P:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, !llvm.ptr<3>
// CHECK-NEXT:  llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#flat = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @read_short(%X: !tile.global<f32, 1>, %O: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %buf = tile.smem_alloc : !tile.smem<[640], f32, #flat>
  tile.async_copy %X[%c0], %buf {layout = #blocked, shape = array<i64: 640>} : !tile.global<f32, 1>, !tile.smem<[640], f32, #flat>
  tile.async_wait %buf {pending = 0 : i32} : !tile.smem<[640], f32, #flat>
  %x = tile.local_load %buf [0] : !tile.smem<[640], f32, #flat> -> tensor<640xf32, #blocked>
  tile.store %O[%c0], %x : !tile.global<f32, 1>, tensor<640xf32, #blocked>
  return
}

//--- pipeline.mlir

// A small GEMM through the whole --tile-to-llvm pipeline: layouts, staging
// of both operands with cp.async, shared memory allocation, barrier
// placement, ldmatrix, mma.sync, and the conversion of the f32 accumulator
// to the store's blocked layout through scratch memory. A's buffer is at 0,
// B's at 4096, and the conversion's 16 KiB of scratch memory reuse offset 0
// once both are dead: 16 KiB in all.
// CHECK-LABEL: llvm.func @gemm
// CHECK-SAME:  (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.num_warps = 4 : i32, tile.param_vector_bytes = array<i32: {{[0-9, ]+}}>, tile.shared_bytes = 16384 : i32}
// CHECK-DAG:   %[[SMEM:.*]] = llvm.mlir.addressof @tile_shared_memory : !llvm.ptr<3>
// Both copies are issued up front, A's then B's, one commit group each, and
// with no barrier before them (nothing has accessed shared memory yet). A's
// copy needs only the block's row, so it is issued before the column is read.
// CHECK:       nvvm.read.ptx.sreg.ctaid.x
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NEXT:  nvvm.cp.async.commit.group
// CHECK-NEXT:  nvvm.read.ptx.sreg.ctaid.y
// CHECK-NEXT:  %[[BUFB:.*]] = llvm.getelementptr %[[SMEM]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NEXT:  nvvm.cp.async.commit.group
// Each wait is followed by the barrier that lets every thread read what the
// other threads' copies wrote (read after write). The wait for A is
// wait.group 1: B's copy, issued after A's, may stay in flight while A is
// read.
// CHECK-NEXT:  nvvm.cp.async.wait.group 1
// CHECK-NEXT:  nvvm.barrier0
// The kernel reduces no mma result, so its 4 warps tile the 64 x 64 result
// 2 x 2: per K step of 16, each warp reads its 32 rows of A (2 ldmatrix.x4)
// and its 32 columns of B (2 ldmatrix.x4.trans) for 2 x 4 mma.sync.
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-NOT:   nvvm.barrier0
// CHECK:       nvvm.cp.async.wait.group 0
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[PB:.*]] = llvm.getelementptr %[[BUFB]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT:  nvvm.ldmatrix %[[PB]] {{.*}}layout = #nvvm.mma_layout<col>
// CHECK:       nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT:   nvvm.mma.sync
// The conversion's scratch memory lies over A's buffer, which other warps
// may still be reading with ldmatrix: a barrier before its stores (write
// after read), then its own barrier between its stores and its loads.
// CHECK:       nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK:       %[[S:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.store %{{.*}}, %[[S]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-8: st.global.v4.b32
// CHECK-NOT:   st.global
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
// CHECK-NOT:   tile.
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>) attributes {tile.kernel} {
  %m = tile.bid 0
  %n = tile.bid 1
  %c0 = arith.constant 0 : i32
  %a = tile.load %A[%m, %c0] : !tile.global<f16, 2> -> tensor<64x32xf16>
  %b = tile.load %B[%c0, %n] : !tile.global<f16, 2> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
  tile.store %C[%m, %n], %d : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

//--- wgmma-pipeline.mlir

// The same GEMM for sm_90a (the default): a version-3 mma layout, both
// operands copied with cp.async into 128/64-byte swizzled buffers that
// wgmma reads in place (no ldmatrix), one fence.proxy.async before the
// barrier that publishes them, two wgmma.mma_async.m64n64k16 (K = 32).
// CHECK-LABEL: llvm.func @gemm
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-2: nvvm.cp.async.commit.group
// CHECK:       nvvm.cp.async.wait.group 0
// CHECK:       "fence.proxy.async.shared::cta;"
// CHECK-NEXT:  nvvm.barrier0
// CHECK:       "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:   wgmma.mma_async
// CHECK:       "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       llvm.return
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %C: !tile.global<f32, 2>) attributes {tile.kernel} {
  %m = tile.bid 0
  %n = tile.bid 1
  %c0 = arith.constant 0 : i32
  %a = tile.load %A[%m, %c0] : !tile.global<f16, 2> -> tensor<64x32xf16>
  %b = tile.load %B[%c0, %n] : !tile.global<f16, 2> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
  tile.store %C[%m, %n], %d : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

//--- errors.mlir

// expected-error @+1 {{kernel has no layouts: run tile-assign-layouts first}}
func.func @no_layouts(%A: !tile.global<f32, 1>) attributes {tile.kernel} {
  return
}

// -----

// Joining dimensions where the result's layout holds elements in other
// threads (tile-assign-layouts gives it one that does not, or converts).
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @reshape(%x: tensor<16x16xf32, #b>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{the layouts of this op's operand and result do not keep elements in their threads}}
  // expected-error @+1 {{failed to legalize operation 'tile.reshape'}}
  %r = tile.reshape %x : tensor<16x16xf32, #b> -> tensor<256xf32, #b1>
  tile.store %O[%c0], %r : !tile.global<f32, 1>, tensor<256xf32, #b1>
  return
}

// -----

// A dimension that is not a power of two inside a joined group (the rows
// of 12): the padded shapes (16 x 16) would not keep an element's row-major
// index, so no relabelling.
#b = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @reshape_padded(%x: tensor<16x12xf32, #b>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{only reshapes that add or remove dimensions of size 1, or that split or join dimensions whose extents are powers of two but for the outermost of each split or joined group, are supported by code generation for tiles with a dimension that is not a power of two}}
  // expected-error @+1 {{failed to legalize operation 'tile.reshape'}}
  %r = tile.reshape %x : tensor<16x12xf32, #b> -> tensor<192xf32, #b1>
  tile.store %O[%c0], %r : !tile.global<f32, 1>, tensor<192xf32, #b1>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @load_bool(%A: !tile.global<i1, 1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{loading bool tensors is not supported yet}}
  // expected-error @+1 {{failed to legalize operation 'tile.load'}}
  %x = tile.load %A[%c0] : !tile.global<i1, 1> -> tensor<512xi1, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @store_bool(%A: !tile.global<i1, 1>, %x: tensor<512xi1, #b>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{storing bool tensors is not supported yet}}
  // expected-error @+1 {{failed to legalize operation 'tile.store'}}
  tile.store %A[%c0], %x : !tile.global<i1, 1>, tensor<512xi1, #b>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @mma_shape(%a: tensor<64x8xf16, #dot_a>, %b: tensor<8x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{mma: tiles must be multiples of 16 x 8 x 16 (M x N x K), got 64 x 64 x 8}}
  // expected-error @+1 {{failed to legalize operation 'tile.mma'}}
  %d = tile.mma %a, %b, %c : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @mma_warpgroups_along_n(%a: tensor<64x16xf16, #dot_a>, %b: tensor<16x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{mma: an accumulator with warpgroups along N is wgmma's only: run tile-stage-mma-operands first}}
  // expected-error @+1 {{failed to legalize operation 'tile.mma'}}
  %d = tile.mma %a, %b, %c : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @mma_not_mma_layout(%a: tensor<64x16xf16, #b>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #b>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.mma' op with layouts, the accumulator must be in an mma layout and a and b in its dot_operand layouts (opIdx 0 and 1)}}
  %d = tile.mma %a, %b, %c : tensor<64x16xf16, #b>, tensor<16x64xf16, #b>, tensor<64x64xf32, #b>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @extract_without_scratch(%x: tensor<64x64xf32, #b>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  // 16 columns are held by 4 lanes of a row where 64 were held by 8: through
  // scratch memory, which tile-allocate-shared-memory did not give.
  // expected-error @+2 {{'tile.extract' op needs scratch shared memory, which was not allocated: run tile-allocate-shared-memory first}}
  // expected-error @+1 {{failed to legalize operation 'tile.extract'}}
  %e = tile.extract %x [0, 16] : tensor<64x64xf32, #b> -> tensor<64x16xf32, #b>
  tile.store %O[%c0, %c0], %e : !tile.global<f32, 2>, tensor<64x16xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @cp_async_2_bytes(%A: !tile.global<f16, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // The buffer has an offset, as tile-allocate-shared-memory would give it;
  // the copy, one f16 per thread and vector, is what cannot be lowered.
  %x = tile.smem_alloc {tile.smem_offset = 0 : i32} : !tile.smem<[64, 64], f16, #shared>
  // expected-error @+2 {{cp.async copies 4, 8 or 16 bytes, not 2}}
  // expected-error @+1 {{failed to legalize operation 'tile.async_copy'}}
  tile.async_copy %A[%c0, %c0], %x {layout = #b, shape = array<i64: 64, 64>} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #shared>
  tile.async_wait %x : !tile.smem<[64, 64], f16, #shared>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b2 = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
func.func @broadcast(%x: tensor<64x1xf32, #b>, %O: !tile.global<f32, 2>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{the layouts of this op's operand and result do not keep elements in their threads}}
  // expected-error @+1 {{failed to legalize operation 'tile.broadcast'}}
  %e = tile.broadcast %x : tensor<64x1xf32, #b> -> tensor<64x64xf32, #b2>
  tile.store %O[%c0, %c0], %e : !tile.global<f32, 2>, tensor<64x64xf32, #b2>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @shared_not_allocated(%x: tensor<64x16xf16, #mma>) {
  // The lowering does not place buffers: without tile-allocate-shared-memory
  // before it, a buffer has no tile.smem_offset.
  // expected-error @+2 {{shared memory was not allocated for this buffer: run tile-allocate-shared-memory first}}
  // expected-error @+1 {{failed to legalize operation 'tile.local_alloc'}}
  %b = tile.local_alloc %x : tensor<64x16xf16, #mma> -> !tile.smem<[64, 16], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @smem_alloc_not_allocated(%A: !tile.global<f16, 2>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error @+2 {{shared memory was not allocated for this buffer: run tile-allocate-shared-memory first}}
  // expected-error @+1 {{failed to legalize operation 'tile.smem_alloc'}}
  %x = tile.smem_alloc : !tile.smem<[64, 32], f16, #shared>
  tile.async_copy %A[%c0, %c0], %x {layout = #b, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #shared>
  tile.async_wait %x : !tile.smem<[64, 32], f16, #shared>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @scratch_not_allocated(%x: tensor<64xf32, #rows>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  // Rows of the mma layout to a blocked layout move data between threads:
  // the conversion goes through scratch memory, which has no offset here.
  // expected-error @+2 {{'tile.convert_layout' op needs scratch shared memory, which was not allocated: run tile-allocate-shared-memory first}}
  // expected-error @+1 {{failed to legalize operation 'tile.convert_layout'}}
  %y = tile.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b>
  tile.store %O[%c0], %y : !tile.global<f32, 1>, tensor<64xf32, #b>
  return
}

//--- wgmma-errors.mlir
// Warpgroups along N whose columns start inside a swizzle block of an
// N-major B (32 of its 64-column blocks): refused (tile-assign-layouts does
// not split so).
#mma3 = #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 32, 16]>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], block = 32>
#sn = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @wgmma_split_n_major(%x: tensor<64x32xf16, #blk>, %y: tensor<32x64xf16, #blk>, %c: tensor<64x64xf32, #mma3>, %O: !tile.global<f32, 2>) attributes {tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.local_alloc %x : tensor<64x32xf16, #blk> -> !tile.smem<[64, 32], f16, #sa>
  %b = tile.local_alloc %y : tensor<32x64xf16, #blk> -> !tile.smem<[32, 64], f16, #sn>
  // expected-error @+2 {{wgmma: B's shared layout does not split into the 2 warpgroups' 32-column blocks}}
  // expected-error @+1 {{failed to legalize operation 'tile.wgmma'}}
  %d = tile.wgmma %a, %b, %c : !tile.smem<[64, 32], f16, #sa>, !tile.smem<[32, 64], f16, #sn>, tensor<64x64xf32, #mma3>
  tile.store %O[%c0, %c0], %d : !tile.global<f32, 2>, tensor<64x64xf32, #mma3>
  return
}

