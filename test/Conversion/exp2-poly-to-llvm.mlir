// RUN: tile-opt %s --convert-tile-to-llvm="exp2-poly=2" | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s --check-prefix=OFF

// exp2-poly=2: of an f32 exp2 with flush_to_zero, one register in two (the
// odd ones) is computed on the FMA pipe: x clamped to [-126, 127] (maximum
// and minimum keep NaN), the nearest integer j by adding and subtracting
// 1.5 * 2^23, 2^f of f = x - j by three fmas of a degree-3 polynomial, j
// shifted into the exponent bits (t's bits << 23) and added. The other
// registers, and an exp2 without flush_to_zero, use ex2.approx.
// CHECK-LABEL: llvm.func @exp2s
// CHECK:       llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:       %[[LO:.*]] = llvm.mlir.constant(-1.260000e+02 : f32) : f32
// CHECK-NEXT:  %[[C:.*]] = llvm.intr.maximum(%{{.*}}, %[[LO]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[HI:.*]] = llvm.mlir.constant(1.270000e+02 : f32) : f32
// CHECK-NEXT:  %[[X:.*]] = llvm.intr.minimum(%[[C]], %[[HI]]) : (f32, f32) -> f32
// CHECK-NEXT:  %[[MAGIC:.*]] = llvm.mlir.constant(0x4B400000 : f32) : f32
// CHECK-NEXT:  %[[T:.*]] = llvm.fadd %[[X]], %[[MAGIC]] : f32
// CHECK-NEXT:  %[[J:.*]] = llvm.fsub %[[T]], %[[MAGIC]] : f32
// CHECK-NEXT:  %[[F:.*]] = llvm.fsub %[[X]], %[[J]] : f32
// CHECK-COUNT-3: llvm.intr.fma({{.*}}, %[[F]], {{.*}})
// CHECK:       %[[TB:.*]] = llvm.bitcast %[[T]] : f32 to i32
// CHECK-NEXT:  %[[SH:.*]] = llvm.shl %[[TB]], %{{.*}} : i32
// CHECK-NEXT:  %[[PB:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:  %[[SUM:.*]] = llvm.add %[[PB]], %[[SH]] : i32
// CHECK-NEXT:  llvm.bitcast %[[SUM]] : i32 to f32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// OFF-LABEL:   llvm.func @exp2s
// OFF-NOT:     llvm.intr.fma
// OFF-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// OFF-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @exp2s(%in: !tile.global<f32, 1>, %out: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %in[%c0] : <f32, 1> -> tensor<128xf32, #b>
  %y = tile.exp2 %x flush_to_zero : tensor<128xf32, #b>
  %z = tile.exp2 %y : tensor<128xf32, #b>
  tile.store %out[%c0], %z : !tile.global<f32, 1>, tensor<128xf32, #b>
  return
}
