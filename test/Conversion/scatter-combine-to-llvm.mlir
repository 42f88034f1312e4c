// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm="arch=sm_90a" -canonicalize -cse | FileCheck %s --check-prefix=SM90

// tile.scatter combine(...): each element combined by `red.global` at the
// address its index registers name, predicated on its bounds check and on
// the thread being the first holder of a replicated element (each element
// once per scatter); on sm_90 a float sum in 16-byte vectors where the
// index analysis shows the last index running contiguously.

// A histogram: 256 bins' counts, two elements per thread, no replication:
// two scalar reductions, no stores.
// CHECK-LABEL: llvm.func @histogram
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "{\0A .reg .pred p;\0A setp.ne.b32 p, $0, 0;\0A @p red.global.add.s32 [$1], $2;\0A}", "r,l,r"
// CHECK-NOT:   red.global
// CHECK-NOT:   st.global
// CHECK:       llvm.return
#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @histogram(%H: !tile.global<i32, 1>, %bins: tensor<256xi32, #b>, %ones: tensor<256xi32, #b>) {
  tile.scatter combine(sum) %H[%bins], %ones : <i32, 1>[tensor<256xi32, #b>], tensor<256xi32, #b>
  return
}

// -----

// A 16-element tile over 128 threads, each element held by 8 threads: only
// the first holder (lane & 16 == 0, warp & 3 == 0) combines it.
// CHECK-LABEL: llvm.func @replicated
// CHECK-DAG:   %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG:   %[[C3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-DAG:   llvm.and %{{.*}}, %[[C16]]
// CHECK-DAG:   llvm.and %{{.*}}, %[[C3]]
// CHECK:       llvm.inline_asm has_side_effects "{{.*}}red.global.max.s32 [$1], $2;{{.*}}red.global.min.u32 [$1], $2;{{.*}}", "r,l,r"
// CHECK-NOT:   red.global
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @replicated(%M: !tile.global<f32, 1>, %rows: tensor<16xi32, #b>, %v: tensor<16xf32, #b>) {
  tile.scatter combine(max) %M[%rows], %v : <f32, 1>[tensor<16xi32, #b>], tensor<16xf32, #b>
  return
}

// -----

// index_add of rows: row indices broadcast along the row, the columns an
// arange: on sm_90 one red.global.add.v4.f32 per four contiguous elements,
// elsewhere one per element.
// CHECK-LABEL: llvm.func @index_add
// CHECK-COUNT-4: red.global.add.f32 [$1], $2;
// SM90-LABEL: llvm.func @index_add
// SM90:         red.global.add.v4.f32 [$1], {$2, $3, $4, $5};
// SM90-NOT:     red.global.add.f32
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #tile.slice<dim = 0, parent = #blocked>
func.func @index_add(%E: !tile.global<f32, 2>, %ids: tensor<16x1xi32, #blocked>, %g: tensor<16x32xf32, #blocked>) {
  %0 = tile.arange : tensor<32xi32, #cols>
  %1 = tile.reshape %0 : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
  %2 = tile.broadcast %1 : tensor<1x32xi32, #blocked> -> tensor<16x32xi32, #blocked>
  %3 = tile.broadcast %ids : tensor<16x1xi32, #blocked> -> tensor<16x32xi32, #blocked>
  tile.scatter combine(sum) %E[%3, %2], %g : <f32, 2>[tensor<16x32xi32, #blocked>, tensor<16x32xi32, #blocked>], tensor<16x32xf32, #blocked>
  return
}
