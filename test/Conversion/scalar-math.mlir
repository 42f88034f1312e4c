// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// Scalar math functions lower to the approximate NVVM instructions rather
// than to libdevice: exp through ex2.approx (x * log2(e)), log through
// lg2.approx (times ln 2), log2 and rsqrt directly. f16 and bf16 are
// computed in f32. On tiles the same happens in every register.

// CHECK-LABEL: llvm.func @f32
// CHECK-SAME:  (%[[X:.*]]: f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:  %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT:  %[[XS:.*]] = llvm.fmul %[[X]], %[[LOG2E]] : f32
// CHECK-NEXT:  %[[EXP:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[XS]]) : (f32) -> f32
// CHECK-NEXT:  %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[X]]) : (f32) -> f32
// CHECK-NEXT:  %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT:  %[[LOG:.*]] = llvm.fmul %[[LG]], %[[LN2]] : f32
// CHECK-NEXT:  %[[LOG2:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[X]]) : (f32) -> f32
// CHECK-NEXT:  %[[RSQRT:.*]] = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%[[X]]) : (f32) -> f32
// CHECK:       llvm.insertvalue %[[EXP]], %{{.*}}[0]
// CHECK-NEXT:  llvm.insertvalue %[[LOG]], %{{.*}}[1]
// CHECK-NEXT:  llvm.insertvalue %[[LOG2]], %{{.*}}[2]
// CHECK-NEXT:  llvm.insertvalue %[[RSQRT]], %{{.*}}[3]
// CHECK-NOT:   __nv_
// CHECK-NOT:   llvm.intr.exp
func.func @f32(%x: f32) -> (f32, f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.log %x : f32
  %2 = math.log2 %x : f32
  %3 = math.rsqrt %x : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}

// CHECK-LABEL: llvm.func @f16
// CHECK-SAME:  (%[[X:.*]]: f16) -> !llvm.struct<(f16, f16, f16, f16)>
// CHECK-NEXT:  %[[W0:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK-NEXT:  %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT:  %[[XS:.*]] = llvm.fmul %[[W0]], %[[LOG2E]] : f32
// CHECK-NEXT:  %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[XS]]) : (f32) -> f32
// CHECK-NEXT:  %[[EXP:.*]] = llvm.fptrunc %[[E]] : f32 to f16
// CHECK-NEXT:  %[[W1:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK-NEXT:  %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[W1]]) : (f32) -> f32
// CHECK-NEXT:  %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT:  %[[L:.*]] = llvm.fmul %[[LG]], %[[LN2]] : f32
// CHECK-NEXT:  %[[LOG:.*]] = llvm.fptrunc %[[L]] : f32 to f16
// CHECK-NEXT:  %[[W2:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK-NEXT:  %[[L2:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[W2]]) : (f32) -> f32
// CHECK-NEXT:  %[[LOG2:.*]] = llvm.fptrunc %[[L2]] : f32 to f16
// CHECK-NEXT:  %[[W3:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK-NEXT:  %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%[[W3]]) : (f32) -> f32
// CHECK-NEXT:  %[[RSQRT:.*]] = llvm.fptrunc %[[R]] : f32 to f16
// CHECK:       llvm.insertvalue %[[EXP]], %{{.*}}[0]
// CHECK-NEXT:  llvm.insertvalue %[[LOG]], %{{.*}}[1]
// CHECK-NEXT:  llvm.insertvalue %[[LOG2]], %{{.*}}[2]
// CHECK-NEXT:  llvm.insertvalue %[[RSQRT]], %{{.*}}[3]
func.func @f16(%x: f16) -> (f16, f16, f16, f16) {
  %0 = math.exp %x : f16
  %1 = math.log %x : f16
  %2 = math.log2 %x : f16
  %3 = math.rsqrt %x : f16
  return %0, %1, %2, %3 : f16, f16, f16, f16
}

// CHECK-LABEL: llvm.func @bf16
// CHECK-SAME:  (%[[X:.*]]: bf16) -> bf16
// CHECK-NEXT:  %[[W:.*]] = llvm.fpext %[[X]] : bf16 to f32
// CHECK-NEXT:  llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT:  %[[XS:.*]] = llvm.fmul %[[W]], %{{.*}} : f32
// CHECK-NEXT:  %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[XS]]) : (f32) -> f32
// CHECK-NEXT:  %[[R:.*]] = llvm.fptrunc %[[E]] : f32 to bf16
// CHECK-NEXT:  llvm.return %[[R]] : bf16
func.func @bf16(%x: bf16) -> bf16 {
  %0 = math.exp %x : bf16
  return %0 : bf16
}

// A tile of two registers per thread: one exp per register.
#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @tile
// CHECK-SAME:  (%[[R0:.*]]: f32, %[[R1:.*]]: f32, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64)
// CHECK:       %[[S0:.*]] = llvm.fmul %[[R0]], %{{.*}} : f32
// CHECK-NEXT:  %[[E0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[S0]]) : (f32) -> f32
// CHECK:       %[[S1:.*]] = llvm.fmul %[[R1]], %{{.*}} : f32
// CHECK-NEXT:  %[[E1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[S1]]) : (f32) -> f32
// CHECK-NOT:   ex2.approx
// CHECK:       %[[B0:.*]] = llvm.bitcast %[[E0]] : f32 to i32
// CHECK-NEXT:  %[[B1:.*]] = llvm.bitcast %[[E1]] : f32 to i32
// CHECK:       st.global.v2.b32 [$1], {$2, $3}{{.*}} %[[B0]], %[[B1]]
func.func @tile(%x: tensor<256xf32, #b>, %O: !tile.global<f32, 1>) {
  %c0 = arith.constant 0 : i32
  %e = math.exp %x : tensor<256xf32, #b>
  tile.store %O[%c0], %e : !tile.global<f32, 1>, tensor<256xf32, #b>
  return
}

// tanh.approx.f32 (no NVVM intrinsic: asm without side effects, so that it
// combines like arithmetic), sin.approx and cos.approx; erf is a polynomial
// (no libdevice call, no instruction of its own).
// CHECK-LABEL: llvm.func @approx
// CHECK-SAME:  (%[[X:.*]]: f32, %[[H:.*]]: f16)
// CHECK:       llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK:       llvm.call_intrinsic "llvm.nvvm.sin.approx.f"(%[[X]]) : (f32) -> f32
// CHECK:       llvm.call_intrinsic "llvm.nvvm.cos.approx.f"(%[[X]]) : (f32) -> f32
// CHECK:       %[[HW:.*]] = llvm.fpext %[[H]] : f16 to f32
// CHECK:       llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[HW]] : (f32) -> f32
// CHECK:       llvm.fptrunc
// CHECK-NOT:   math.erf
// CHECK-NOT:   __nv_
// CHECK:       llvm.return
func.func @approx(%x: f32, %h: f16) -> (f32, f32, f32, f16, f32) {
  %0 = math.tanh %x : f32
  %1 = math.sin %x : f32
  %2 = math.cos %x : f32
  %3 = math.tanh %h : f16
  %4 = math.erf %x : f32
  return %0, %1, %2, %3, %4 : f32, f32, f32, f16, f32
}
