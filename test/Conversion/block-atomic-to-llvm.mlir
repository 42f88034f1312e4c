// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// tile.block_atomic: a barrier (the block's writes done), then thread 0,
// where the element is inside the tensor, releases them and combines the
// value at GPU scope, and writes the old value (0 outside) to the op's 4
// bytes of scratch; a barrier; every thread reads it and fences (acquire).

// CHECK-LABEL: llvm.func @ticket
// CHECK:       llvm.icmp "ult"
// CHECK:       nvvm.barrier0
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p, q;\0A .reg .b32 v;\0A setp.ne.b32 p, $0, 0;\0A setp.ne.b32 q, $1, 0;\0A mov.b32 v, 0;\0A @q fence.acq_rel.gpu;\0A @q atom.acq_rel.gpu.global.add.u32 v, [$2], $3;\0A @p st.shared.b32 [$4], v;\0A}", "r,r,l,r,r,~{memory}"
// CHECK:       nvvm.barrier0
// CHECK:       %[[OLD:.*]] = llvm.inline_asm has_side_effects "ld.shared.b32 $0, [$1];\0A fence.acq_rel.gpu;", "=r,r,~{memory}"
// CHECK:       llvm.return %[[OLD]] : i32
func.func @ticket(%C: !tile.global<i32, 1>, %i: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = tile.block_atomic sum %C[%i], %c1 : !tile.global<i32, 1>, i32
  return %t : i32
}

// -----

// max and min on i32 are signed; an f32 sum goes through its bits.
// CHECK-LABEL: llvm.func @kinds
// CHECK:       atom.acq_rel.gpu.global.max.s32
// CHECK:       atom.acq_rel.gpu.global.min.s32
// CHECK:       llvm.bitcast %{{.*}} : f32 to i32
// CHECK:       atom.acq_rel.gpu.global.add.f32
// CHECK:       llvm.bitcast %{{.*}} : i32 to f32
func.func @kinds(%C: !tile.global<i32, 2>, %F: !tile.global<f32, 1>, %i: i32, %x: f32) -> f32 {
  %a = tile.block_atomic max %C[%i, %i], %i : !tile.global<i32, 2>, i32
  %b = tile.block_atomic min %C[%i, %a], %a : !tile.global<i32, 2>, i32
  %s = tile.block_atomic sum %F[%b], %x : !tile.global<f32, 1>, f32
  return %s : f32
}

// -----

// tile.block_exchange, the same way: an exchange (b32, an f32 by its bits),
// or a compare-and-swap whose compared value is the instruction's first
// operand and the value its second.
// CHECK-LABEL: llvm.func @exchanges
// CHECK:       atom.acq_rel.gpu.global.cas.b32 v, [$2], $5, $3;
// CHECK-SAME:  "r,r,l,r,r,r,~{memory}"
// CHECK:       llvm.bitcast %{{.*}} : f32 to i32
// CHECK:       atom.acq_rel.gpu.global.exch.b32 v, [$2], $3;
// CHECK-SAME:  "r,r,l,r,r,~{memory}"
// CHECK:       llvm.bitcast %{{.*}} : i32 to f32
func.func @exchanges(%L: !tile.global<i32, 1>, %F: !tile.global<f32, 1>, %i: i32, %x: f32) -> (i32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = tile.block_exchange %L[%i], %c1 compare %c0 : i32 : !tile.global<i32, 1>, i32
  %s = tile.block_exchange %F[%t], %x : !tile.global<f32, 1>, f32
  return %t, %s : i32, f32
}
