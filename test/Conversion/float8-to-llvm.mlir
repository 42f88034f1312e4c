// RUN: tile-opt %s --convert-tile-to-llvm -canonicalize | FileCheck %s

// Tiles of 8-bit floats are bytes in registers (i8). Narrowing takes two
// registers at a time through nvvm.convert.f32x2.to.f8x2 (rounding to
// nearest, saturating to the largest finite value) or
// nvvm.convert.f16x2.to.f8x2; widening through nvvm.convert.f8x2.to.f16x2,
// then arith.extf for f32. Loads and stores move the bytes, four registers
// of this layout in one 32-bit access; constants are their bit patterns.

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// CHECK-LABEL: llvm.func @float8
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(60 : i8) : i8
// CHECK-COUNT-2: nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK:         @p st.global.b32 [$1], {$2};
// CHECK:         @p ld.global.b32 {$0}, [$2];
// CHECK-COUNT-2: nvvm.convert.f8x2.to.f16x2 {{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK-COUNT-4: llvm.fpext {{.*}} : f16 to f32
// CHECK-COUNT-2: nvvm.convert.f16x2.to.f8x2 {{.*}} : vector<2xf16> -> vector<2xi8>(f8E5M2)
// CHECK:         llvm.select {{.*}}, %[[ONE]] : i1, i8
// CHECK-NOT:     arith.
func.func @float8(%x: !tile.global<f32, 1>, %y: !tile.global<f8E4M3FN, 1>,
                  %z: !tile.global<f8E5M2, 1>, %w: !tile.global<f32, 1>,
                  %h: !tile.global<f16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %0 = tile.load %x[%c0] : <f32, 1> -> tensor<512xf32, #b>
  %1 = arith.truncf %0 : tensor<512xf32, #b> to tensor<512xf8E4M3FN, #b>
  tile.store %y[%c0], %1 : <f8E4M3FN, 1>, tensor<512xf8E4M3FN, #b>
  %2 = tile.load %y[%c0] : <f8E4M3FN, 1> -> tensor<512xf8E4M3FN, #b>
  %3 = arith.extf %2 : tensor<512xf8E4M3FN, #b> to tensor<512xf32, #b>
  tile.store %w[%c0], %3 : <f32, 1>, tensor<512xf32, #b>
  %4 = tile.load %h[%c0] : <f16, 1> -> tensor<512xf16, #b>
  %5 = arith.truncf %4 : tensor<512xf16, #b> to tensor<512xf8E5M2, #b>
  %one = arith.constant dense<1.0> : tensor<512xf8E5M2, #b>
  %pos = arith.cmpf ogt, %0, %3 : tensor<512xf32, #b>
  %6 = arith.select %pos, %5, %one : tensor<512xi1, #b>, tensor<512xf8E5M2, #b>
  tile.store %z[%c0], %6 : <f8E5M2, 1>, tensor<512xf8E5M2, #b>
  return
}
