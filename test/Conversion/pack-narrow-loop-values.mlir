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

// A loop carrying 16-bit tiles carries them two to an i32, each type in
// words of its own (an odd one out stays a half): a value made by a
// conversion and used as a word (a register-A multiply's operand) is then
// converted two elements at once into its word rather than re-packed from
// 16-bit registers each trip. The f16 tile's 4 halves are 2 words, the bf16
// tile's 2 halves 1 word, the 1-element f16 tile's half stays.
// CHECK-LABEL: llvm.func @carried_halves
// CHECK:       ^bb1(%{{[0-9]+}}: i32, %{{[0-9]+}}: f16, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32):
// CHECK-NOT:   ^bb{{[0-9]+}}({{.*}}bf16
#h = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
#g = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
#s = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @carried_halves(%in: !tile.global<f32, 1>, %out: !tile.global<f16, 1>, %outb: !tile.global<bf16, 1>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.load %in[%c0] : <f32, 1> -> tensor<128xf32, #h>
  %h0 = arith.truncf %x : tensor<128xf32, #h> to tensor<128xf16, #h>
  %y = tile.load %in[%c0] : <f32, 1> -> tensor<64xf32, #g>
  %b0 = arith.truncf %y : tensor<64xf32, #g> to tensor<64xbf16, #g>
  %z = tile.load %in[%c0] : <f32, 1> -> tensor<32xf32, #s>
  %s0 = arith.truncf %z : tensor<32xf32, #s> to tensor<32xf16, #s>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %h0, %b = %b0, %s = %s0) -> (tensor<128xf16, #h>, tensor<64xbf16, #g>, tensor<32xf16, #s>) : i32 {
    tile.store %out[%i], %h : !tile.global<f16, 1>, tensor<128xf16, #h>
    tile.store %outb[%i], %b : !tile.global<bf16, 1>, tensor<64xbf16, #g>
    tile.store %out[%i], %s : !tile.global<f16, 1>, tensor<32xf16, #s>
    %xi = tile.load %in[%i] : <f32, 1> -> tensor<128xf32, #h>
    %hi = arith.truncf %xi : tensor<128xf32, #h> to tensor<128xf16, #h>
    %yi = tile.load %in[%i] : <f32, 1> -> tensor<64xf32, #g>
    %bi = arith.truncf %yi : tensor<64xf32, #g> to tensor<64xbf16, #g>
    %zi = tile.load %in[%i] : <f32, 1> -> tensor<32xf32, #s>
    %si = arith.truncf %zi : tensor<32xf32, #s> to tensor<32xf16, #s>
    scf.yield %hi, %bi, %si : tensor<128xf16, #h>, tensor<64xbf16, #g>, tensor<32xf16, #s>
  }
  tile.store %out[%c0], %r#0 : !tile.global<f16, 1>, tensor<128xf16, #h>
  return
}
