// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// Element-wise ops on 16-bit values take a thread's registers two by two:
// one op on a vector of two (add.bf16x2, mul.f16x2, or.b32), the halves
// extracted for the ops after it. Wider elements go register by register.

// The dequantizing chain of tile-cheapen-conversions on two registers a
// thread: the OR on i16 pairs, the bitcast, the bf16 subtraction and
// multiply each once; f32 multiplies twice.
// CHECK-LABEL: llvm.func @pairs
// CHECK:       llvm.or %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK:       llvm.bitcast %{{.*}} : vector<2xi16> to vector<2xbf16>
// CHECK:       llvm.fsub %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK:       llvm.fmul %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK-NOT:   llvm.fmul %{{.*}}, %{{.*}} : bf16
// CHECK:       llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NOT:   vector<2xf32>
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @pairs(%X: !tile.global<i32, 1>, %S: !tile.global<bf16, 1>, %F: !tile.global<f32, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = tile.load %X[%i] : !tile.global<i32, 1> -> tensor<64xi32, #l>
  %t = arith.trunci %x : tensor<64xi32, #l> to tensor<64xi16, #l>
  %m = arith.constant dense<17152> : tensor<64xi16, #l>
  %o = arith.ori %t, %m : tensor<64xi16, #l>
  %b = arith.bitcast %o : tensor<64xi16, #l> to tensor<64xbf16, #l>
  %c = arith.constant dense<1.360000e+02> : tensor<64xbf16, #l>
  %d = arith.subf %b, %c : tensor<64xbf16, #l>
  %s = tile.load %S[%i] : !tile.global<bf16, 1> -> tensor<64xbf16, #l>
  %p = arith.mulf %d, %s : tensor<64xbf16, #l>
  tile.store %S[%i], %p : !tile.global<bf16, 1>, tensor<64xbf16, #l>
  %f = tile.load %F[%i] : !tile.global<f32, 1> -> tensor<64xf32, #l>
  %g = arith.mulf %f, %f : tensor<64xf32, #l>
  tile.store %F[%i], %g : !tile.global<f32, 1>, tensor<64xf32, #l>
  return
}
