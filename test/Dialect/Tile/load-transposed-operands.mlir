// RUN: tile-opt %s -split-input-file --tile-load-transposed-operands | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-load-transposed-operands=wgmma=true | FileCheck %s --check-prefix=WG

// tile-load-transposed-operands: a multiply's operand that is a loaded tile
// transposed (through reshapes of unit dimensions) is loaded transposed,
// the permutation moved into the load's order.

// Q^T of a (1, 64, 128) load: the load reads (1, 128, 64) through order
// [0, 2, 1], its indices swapped alike; the load of Q goes (no other use).
// CHECK-LABEL: func.func @operand_transposed
// CHECK-SAME:  (%[[Q:.*]]: !tile.global<f16, 3>, %{{.*}}: tensor<64x128xf16>, %[[B:.*]]: i32, %[[M:.*]]: i32)
// CHECK:       %[[C0:.*]] = arith.constant 0 : i32
// CHECK:       %[[L:.*]] = tile.load %[[Q]][%[[B]], %[[C0]], %[[M]]] {latency = 2 : i32, order = array<i32: 0, 2, 1>} : <f16, 3> -> tensor<1x128x64xf16>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[L]] : tensor<1x128x64xf16> -> tensor<128x64xf16>
// CHECK-NEXT:  tile.mma %{{.*}}, %[[R]], %{{.*}} : tensor<64x128xf16>, tensor<128x64xf16>, tensor<64x64xf32>
// CHECK-NOT:   tile.permute
func.func @operand_transposed(%Q: !tile.global<f16, 3>, %k: tensor<64x128xf16>, %b: i32, %m: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %q = tile.load %Q[%b, %m, %c0] {latency = 2 : i32} : !tile.global<f16, 3> -> tensor<1x64x128xf16>
  %r = tile.reshape %q : tensor<1x64x128xf16> -> tensor<64x128xf16>
  %qt = tile.permute %r [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  %s = tile.mma %k, %qt, %acc : tensor<64x128xf16>, tensor<128x64xf16>, tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// -----

// The same tile used as it is too (attention backward's Q: K Q^T and
// dS^T Q): its load stays, and the transposed operand gets a load of its own.
// With wgmma (sm_90a) the transpose, read only as B, stays: one load, whose
// buffer tile.wgmma reads both ways (tile-stage-mma-operands).
// WG-LABEL:    func.func @both_orders
// WG:          %[[Q:.*]] = tile.load
// WG-NEXT:     %[[R:.*]] = tile.reshape %[[Q]]
// WG-NEXT:     %[[QT:.*]] = tile.permute %[[R]] [1, 0]
// WG-NEXT:     tile.mma %{{.*}}, %[[QT]], %{{.*}}
// WG-NEXT:     tile.mma %{{.*}}, %[[R]], %{{.*}}
// WG-NEXT:     return
// CHECK-LABEL: func.func @both_orders
// CHECK:       %[[Q:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : <f16, 3> -> tensor<1x64x64xf16>
// CHECK-NEXT:  %[[QT:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {order = array<i32: 0, 2, 1>} : <f16, 3> -> tensor<1x64x64xf16>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[Q]]
// CHECK-NEXT:  %[[RT:.*]] = tile.reshape %[[QT]]
// CHECK-NEXT:  %[[S:.*]] = tile.mma %{{.*}}, %[[RT]], %{{.*}}
// CHECK-NEXT:  tile.mma %{{.*}}, %[[R]], %{{.*}}
func.func @both_orders(%Q: !tile.global<f16, 3>, %k: tensor<64x64xf16>, %ds: tensor<64x64xf16>, %b: i32, %m: i32) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %q = tile.load %Q[%b, %m, %c0] : !tile.global<f16, 3> -> tensor<1x64x64xf16>
  %r = tile.reshape %q : tensor<1x64x64xf16> -> tensor<64x64xf16>
  %qt = tile.permute %r [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %s = tile.mma %k, %qt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %d = tile.mma %ds, %r, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  return %s, %d : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// The same tile transposed as A (attention backward's K in K Q^T and
// dQ^T = K^T dS^T): with wgmma the 16-bit transpose stays, read M-major
// through a transposed view of the tile's one buffer
// (tile-stage-mma-operands); 8-bit A is read K-major only, so its
// transpose gets a load of its own, as without wgmma.
// WG-LABEL:    func.func @both_orders_a
// WG:          %[[K:.*]] = tile.load
// WG-NEXT:     %[[R:.*]] = tile.reshape %[[K]]
// WG-NEXT:     %[[KT:.*]] = tile.permute %[[R]] [1, 0]
// WG-NEXT:     tile.mma %[[R]], %{{.*}}, %{{.*}}
// WG-NEXT:     tile.mma %[[KT]], %{{.*}}, %{{.*}}
// WG-NEXT:     return
// WG-LABEL:    func.func @both_orders_a_8_bit
// WG:          tile.load {{.*}} : <f8E4M3FN, 2> -> tensor<64x64xf8E4M3FN>
// WG-NEXT:     %[[KT8:.*]] = tile.load {{.*}} {order = array<i32: 1, 0>} : <f8E4M3FN, 2> -> tensor<64x64xf8E4M3FN>
// WG-NEXT:     tile.mma
// WG-NEXT:     tile.mma %[[KT8]],
// CHECK-LABEL: func.func @both_orders_a
// CHECK:       tile.load
// CHECK-NEXT:  tile.load {{.*}} {order = array<i32: 0, 1, 3, 2>}
// CHECK-NOT:   tile.permute
func.func @both_orders_a(%K: !tile.global<f16, 4>, %q: tensor<64x80xf16>, %ds: tensor<64x80xf16>, %b: i32, %n: i32) -> (tensor<64x80xf32>, tensor<64x80xf32>) {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<64x80xf32>
  %k = tile.load %K[%b, %b, %n, %c0] : !tile.global<f16, 4> -> tensor<1x1x64x64xf16>
  %r = tile.reshape %k : tensor<1x1x64x64xf16> -> tensor<64x64xf16>
  %kt = tile.permute %r [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %s = tile.mma %r, %q, %acc : tensor<64x64xf16>, tensor<64x80xf16>, tensor<64x80xf32>
  %dqt = tile.mma %kt, %ds, %acc : tensor<64x64xf16>, tensor<64x80xf16>, tensor<64x80xf32>
  return %s, %dqt : tensor<64x80xf32>, tensor<64x80xf32>
}

func.func @both_orders_a_8_bit(%K: !tile.global<f8E4M3FN, 2>, %q: tensor<64x64xf8E4M3FN>, %n: i32) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %k = tile.load %K[%n, %n] : !tile.global<f8E4M3FN, 2> -> tensor<64x64xf8E4M3FN>
  %kt = tile.permute %k [1, 0] : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %s = tile.mma %k, %q, %acc : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<64x64xf32>
  %t = tile.mma %kt, %q, %acc : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<64x64xf32>
  return %s, %t : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A load that already reads transposed, permuted back: a plain load (no
// order, no reshape).
// CHECK-LABEL: func.func @back_to_identity
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[B:.*]]: tensor<32x64xf16>, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK:       %[[L:.*]] = tile.load %[[A]][%[[I]], %[[J]]] : <f16, 2> -> tensor<64x32xf16>
// CHECK-NEXT:  tile.mma %[[L]], %[[B]]
// CHECK-NOT:   tile.permute
func.func @back_to_identity(%A: !tile.global<f16, 2>, %b: tensor<32x64xf16>, %i: i32, %j: i32) -> tensor<64x64xf32> {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %at = tile.load %A[%j, %i] {order = array<i32: 1, 0>} : !tile.global<f16, 2> -> tensor<32x64xf16>
  %a = tile.permute %at [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %s = tile.mma %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// -----

// Left alone: a transposed tile used otherwise than by multiplies (a store:
// kernels/transpose.tile reads rows and writes them transposed), and a
// gathered load.
// CHECK-LABEL: func.func @not_only_multiplied
// CHECK:       tile.permute
// CHECK-LABEL: func.func @gathered
// CHECK:       tile.permute
func.func @not_only_multiplied(%X: !tile.global<f16, 2>, %Y: !tile.global<f16, 2>, %k: tensor<64x64xf16>, %i: i32) -> tensor<64x64xf32> {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %X[%i, %i] : !tile.global<f16, 2> -> tensor<64x64xf16>
  %xt = tile.permute %x [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %s = tile.mma %k, %xt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  tile.store %Y[%i, %i], %xt : !tile.global<f16, 2>, tensor<64x64xf16>
  return %s : tensor<64x64xf32>
}

func.func @gathered(%K: !tile.global<f16, 2>, %pages: tensor<4xi32>, %q: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %k = tile.load %K[%c0, %c0] boxes(%pages : tensor<4xi32>) {box_dim = 0 : i32} : !tile.global<f16, 2> -> tensor<64x64xf16>
  %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %s = tile.mma %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
