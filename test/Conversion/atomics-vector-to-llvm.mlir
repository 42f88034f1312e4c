// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm="arch=sm_90a" -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -canonicalize -cse | FileCheck %s --check-prefix=SM80
// RUN: not tile-opt %s -split-input-file --convert-tile-to-llvm="arch=sm_70" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// sm_90: a float sum combines the registers a thread holds contiguous
// along the tensor's last dimension in one vector red.global (16 bytes at
// most; 16-bit elements in pairs); sm_80 (the pass's default target) has
// one reduction per element. Other kinds and integers stay one per element.

// CHECK-LABEL: llvm.func @vector_sums
// CHECK-COUNT-2: @p red.global.add.v4.f32 [$1], {$2, $3, $4, $5};{{.*}}", "r,l,r,r,r,r"
// CHECK-COUNT-1: @p red.global.add.noftz.v4.f16x2 [$1], {$2, $3, $4, $5};{{.*}}", "r,l,r,r,r,r"
// CHECK-COUNT-1: @p red.global.add.noftz.v4.bf16x2 [$1], {$2, $3, $4, $5};{{.*}}", "r,l,r,r,r,r"
// CHECK-COUNT-8: @p red.global.max.s32 [$1], $2;
// CHECK-NOT:     red.global
// SM80-LABEL: llvm.func @vector_sums
// SM80-COUNT-8: @p red.global.add.f32 [$1], $2;
// SM80-COUNT-8: @p red.global.add.noftz.f16 [$1], $2;
// SM80-NOT:     .v4.
#b = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @vector_sums(%f: tensor<1024xf32, #b>, %h: tensor<1024xf16, #b>, %bf: tensor<1024xbf16, #b>, %i: tensor<1024xi32, #b>,
                       %F: !tile.global<f32, 1>, %H: !tile.global<f16, 1>, %BF: !tile.global<bf16, 1>, %I: !tile.global<i32, 1>) {
  %c0 = arith.constant 0 : i32
  tile.atomic_rmw sum %F[%c0], %f : !tile.global<f32, 1>, tensor<1024xf32, #b>
  tile.atomic_rmw sum %H[%c0], %h : !tile.global<f16, 1>, tensor<1024xf16, #b>
  tile.atomic_rmw sum %BF[%c0], %bf : !tile.global<bf16, 1>, tensor<1024xbf16, #b>
  tile.atomic_rmw max %I[%c0], %i : !tile.global<i32, 1>, tensor<1024xi32, #b>
  return
}

// -----

// BAD: error: convert-tile-to-llvm: unknown target 'sm_70' (sm_80, sm_86, sm_89, sm_90 or sm_90a)
func.func @any() {
  return
}
