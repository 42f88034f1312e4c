// RUN: tile-opt %s --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// A loop carrying a tile of 8-bit floats (8 bytes a thread) carries them
// four to an i32 (PTX has no 8-bit registers: one phi a byte would take a
// 32-bit register each): the loop's block has the induction variable and
// two words, packed where the bytes are made and unpacked where they are
// used.
// CHECK-LABEL: llvm.func @carried_bytes
// CHECK:       llvm.br ^bb1(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32, i32)
// CHECK:       ^bb1(%{{[0-9]+}}: i32, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32):
// CHECK-NOT:   ^bb{{[0-9]+}}({{.*}}i8
// CHECK:       llvm.br ^bb1(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32, i32)
#b = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @carried_bytes(%in: !tile.global<f8E4M3FN, 1>, %out: !tile.global<f8E4M3FN, 1>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.load %in[%c0] : <f8E4M3FN, 1> -> tensor<256xf8E4M3FN, #b>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> (tensor<256xf8E4M3FN, #b>) : i32 {
    tile.store %out[%i], %t : !tile.global<f8E4M3FN, 1>, tensor<256xf8E4M3FN, #b>
    %y = tile.load %in[%i] : <f8E4M3FN, 1> -> tensor<256xf8E4M3FN, #b>
    scf.yield %y : tensor<256xf8E4M3FN, #b>
  }
  tile.store %out[%c0], %r : !tile.global<f8E4M3FN, 1>, tensor<256xf8E4M3FN, #b>
  return
}
