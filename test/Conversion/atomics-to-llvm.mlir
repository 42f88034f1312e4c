// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// tile.atomic_rmw: one predicated red.global per element a thread owns, at
// the element's address and under its bounds check; tile.item: the
// register every thread holds.

// f32 sum in a layout of two elements per thread and no replication: two
// reductions per thread, each predicated on its bounds check only.
// CHECK-LABEL: llvm.func @sum_f32
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p red.global.add.f32 [$1], $2;\0A}", "r,l,r"
// CHECK-NOT:   red.global
// CHECK:       llvm.return
#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @sum_f32(%v: tensor<256xf32, #b>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.atomic_rmw sum %O[%c0], %v : !tile.global<f32, 1>, tensor<256xf32, #b>
  return
}

// -----

// A 16-element tile over 128 threads: the element of lane l and warp w is
// also held by lanes l + 16 and by every warp. Only lanes 0-15 of warp 0
// combine (lane & 16 == 0, warp & 3 == 0), each once: an atomic combines
// every element exactly once.
// CHECK-LABEL: llvm.func @replicated
// CHECK-DAG:   %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG:   %[[C3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-DAG:   llvm.and %{{.*}}, %[[C16]]
// CHECK-DAG:   llvm.and %{{.*}}, %[[C3]]
// CHECK:       llvm.inline_asm has_side_effects "{{.*}}@p red.global.add.s32 [$1], $2;{{.*}}", "r,l,r"
// CHECK-NOT:   red.global
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @replicated(%v: tensor<16xi32, #b>, %O: !tile.global<i32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.atomic_rmw sum %O[%c0], %v : !tile.global<i32, 1>, tensor<16xi32, #b>
  return
}

// -----

// f16 and bf16 add without flushing subnormals (a 16-bit register); i32 max;
// f32 max through the integers: s32 max where the value is not negative,
// u32 min where it is.
// CHECK-LABEL: llvm.func @kinds
// CHECK:       "{{.*}}@p red.global.add.noftz.f16 [$1], $2;{{.*}}", "r,l,h"
// CHECK:       "{{.*}}@p red.global.add.noftz.bf16 [$1], $2;{{.*}}", "r,l,h"
// CHECK:       "{{.*}}@p red.global.max.s32 [$1], $2;{{.*}}", "r,l,r"
// CHECK:       "{{.*}}setp.lt.s32 n, $2, 0;\0A and.pred q, p, n;\0A and.pred p, p, !n;\0A @p red.global.max.s32 [$1], $2;\0A @q red.global.min.u32 [$1], $2;\0A}", "r,l,r"
// CHECK:       "{{.*}}@p red.global.min.s32 [$1], $2;\0A @q red.global.max.u32 [$1], $2;\0A}", "r,l,r"
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @kinds(%h: tensor<128xf16, #b>, %bf: tensor<128xbf16, #b>, %i: tensor<128xi32, #b>, %f: tensor<128xf32, #b>,
                 %H: !tile.global<f16, 1>, %BF: !tile.global<bf16, 1>, %I: !tile.global<i32, 1>, %F: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.atomic_rmw sum %H[%c0], %h : !tile.global<f16, 1>, tensor<128xf16, #b>
  tile.atomic_rmw sum %BF[%c0], %bf : !tile.global<bf16, 1>, tensor<128xbf16, #b>
  tile.atomic_rmw max %I[%c0], %i : !tile.global<i32, 1>, tensor<128xi32, #b>
  tile.atomic_rmw max %F[%c0], %f : !tile.global<f32, 1>, tensor<128xf32, #b>
  tile.atomic_rmw min %F[%c0], %f : !tile.global<f32, 1>, tensor<128xf32, #b>
  return
}

// -----

// tile.item: the one register of a one-element tile, in any layout.
// CHECK-LABEL: llvm.func @item
// CHECK-SAME:  (%[[X:.*]]: i32)
// CHECK-NEXT:  llvm.return %[[X]] : i32
#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @item(%t: tensor<1x1xi32, #b>) -> i32 {
  %s = tile.item %t : tensor<1x1xi32, #b> -> i32
  return %s : i32
}

// -----

// Returning the old values: an atom per element by its first holder (0
// elsewhere), a lane that holds it again takes it by a shuffle from the
// lane with the replicated bits clear (a 16-element tile over one warp:
// lanes l and l + 16).
// CHECK-LABEL: llvm.func @old_values
// CHECK:       llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $1, 0;\0A mov.b32 $0, 0;\0A @p atom.global.add.f32 $0, [$2], $3;\0A}", "=r,r,l,r"
// CHECK-NOT:   red.global
// CHECK:       nvvm.shfl.sync  idx
// CHECK:       llvm.return
#r = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @old_values(%v: tensor<16xf32, #r>, %O: !tile.global<f32, 1>, %P: !tile.global<f32, 1>) attributes {tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %o = tile.atomic_rmw sum %O[%c0], %v : !tile.global<f32, 1>, tensor<16xf32, #r> -> tensor<16xf32, #r>
  tile.store %P[%c0], %o : !tile.global<f32, 1>, tensor<16xf32, #r>
  return
}

// -----

// f32 max returning the old value: either integer atom writes it.
// CHECK-LABEL: llvm.func @old_max
// CHECK:       @p atom.global.max.s32 $0, [$2], $3;\0A @q atom.global.min.u32 $0, [$2], $3;
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @old_max(%v: tensor<128xf32, #b1>, %O: !tile.global<f32, 1>, %P: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %o = tile.atomic_rmw max %O[%c0], %v : !tile.global<f32, 1>, tensor<128xf32, #b1> -> tensor<128xf32, #b1>
  tile.store %P[%c0], %o : !tile.global<f32, 1>, tensor<128xf32, #b1>
  return
}

