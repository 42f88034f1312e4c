// RUN: tile-opt %s -split-input-file --tile-slice-wgmma-k | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-slice-wgmma-k | tile-opt -split-input-file --verify-roundtrip > /dev/null

// tile-slice-wgmma-k: a loop's wgmma whose register A the body makes from a
// shared buffer (read in the operand layout, then element-wise ops that
// each carry it on) becomes one multiply per K step of 16, each reading
// its slice of the buffer and making its A slice right before it, B read
// from the step's k_offset; the chain's other operands are read slice by
// slice through tile.extract.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// CHECK-LABEL: func.func @scaled
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[S:.*]] = tile.full
// CHECK-NEXT:    %[[R0:.*]] = tile.local_load %[[BUF:.*]] [0, 0] : {{.*}} -> tensor<64x16xbf16, #dot_a>
// CHECK-NEXT:    %[[E0:.*]] = arith.extf %[[R0]] : tensor<64x16xbf16, #dot_a> to tensor<64x16xf32, #dot_a>
// CHECK-NEXT:    %[[S0:.*]] = tile.extract %[[S]] [0, 0] : tensor<64x64xf32, #dot_a> -> tensor<64x16xf32, #dot_a>
// CHECK-NEXT:    %[[M0:.*]] = arith.mulf %[[E0]], %[[S0]] : tensor<64x16xf32, #dot_a>
// CHECK-NEXT:    %[[T0:.*]] = arith.truncf %[[M0]] : tensor<64x16xf32, #dot_a> to tensor<64x16xbf16, #dot_a>
// CHECK-NEXT:    %[[D0:.*]] = tile.wgmma %[[T0]], %[[B:[a-z0-9]+]][k_offset = 0], %[[ACC]] : tensor<64x16xbf16, #dot_a>
// CHECK-NEXT:    %[[R1:.*]] = tile.local_load %[[BUF]] [0, 16]
// CHECK-NEXT:    arith.extf %[[R1]]
// CHECK-NEXT:    tile.extract %[[S]] [0, 16]
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    arith.truncf
// CHECK-NEXT:    %[[D1:.*]] = tile.wgmma %{{.*}}, %[[B]][k_offset = 16], %[[D0]]
// CHECK:         tile.local_load %[[BUF]] [0, 32]
// CHECK:         %[[D2:.*]] = tile.wgmma %{{.*}}, %[[B]][k_offset = 32], %[[D1]]
// CHECK:         tile.local_load %[[BUF]] [0, 48]
// CHECK:         %[[D3:.*]] = tile.wgmma %{{.*}}, %[[B]][k_offset = 48], %[[D2]]
// CHECK-NEXT:    scf.yield %[[D3]]
// CHECK-NOT:   tile.local_load
func.func @scaled(%buf: !tile.smem<[64, 64], bf16, #sw>, %b: !tile.smem<[64, 128], bf16, #sw>, %s: f32, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %sc = tile.full %s : tensor<64x64xf32, #dot_a>
    %a = tile.local_load %buf [0, 0] : <[64, 64], bf16, #sw> -> tensor<64x64xbf16, #dot_a>
    %e = arith.extf %a : tensor<64x64xbf16, #dot_a> to tensor<64x64xf32, #dot_a>
    %m = arith.mulf %e, %sc : tensor<64x64xf32, #dot_a>
    %t = arith.truncf %m : tensor<64x64xf32, #dot_a> to tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %t, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

// A broadcast row beside the chain (a norm's weight along K) and a column
// (its per-row scale): each read a slice at a time; B transposed keeps its
// flag. A cast from f32 (a buffer of f32 read and rounded) is a chain of
// one op.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sf = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// CHECK-LABEL: func.func @broadcasts
// CHECK:       scf.for
// CHECK:         tile.local_load %{{.*}} [0, 32] : {{.*}} -> tensor<64x16xbf16, #dot_a>
// CHECK-NEXT:    arith.extf
// CHECK-NEXT:    tile.extract %{{.*}} [0, 32] : tensor<64x64xf32, #dot_a> -> tensor<64x16xf32, #dot_a>
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    tile.extract %{{.*}} [0, 32] : tensor<64x64xf32, #dot_a> -> tensor<64x16xf32, #dot_a>
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    arith.truncf
// CHECK-NEXT:    tile.wgmma %{{.*}}, %{{.*}} transposed[k_offset = 32], %{{.*}}
// CHECK-LABEL: func.func @cast
// CHECK-COUNT-4: tile.local_load {{.*}} -> tensor<64x16xf32, #dot_a>
// CHECK-NOT:   {{tile.wgmma %[0-9]+, %arg[0-9]+, }}
func.func @broadcasts(%buf: !tile.smem<[64, 64], bf16, #sw>, %bt: !tile.smem<[128, 64], bf16, #sw>, %rows: tensor<64x1xf32, #dot_a>, %g: tensor<1x64xf32, #dot_a>, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %a = tile.local_load %buf [0, 0] : <[64, 64], bf16, #sw> -> tensor<64x64xbf16, #dot_a>
    %e = arith.extf %a : tensor<64x64xbf16, #dot_a> to tensor<64x64xf32, #dot_a>
    %rb = tile.broadcast %rows : tensor<64x1xf32, #dot_a> -> tensor<64x64xf32, #dot_a>
    %m = arith.mulf %e, %rb : tensor<64x64xf32, #dot_a>
    %gb = tile.broadcast %g : tensor<1x64xf32, #dot_a> -> tensor<64x64xf32, #dot_a>
    %m2 = arith.mulf %gb, %m : tensor<64x64xf32, #dot_a>
    %t = arith.truncf %m2 : tensor<64x64xf32, #dot_a> to tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %t, %bt transposed, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[128, 64], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}
func.func @cast(%buf: !tile.smem<[64, 64], f32, #sf>, %b: !tile.smem<[64, 128], bf16, #sw>, %n: i32) -> tensor<64x128xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #mma>) : i32 {
    %a = tile.local_load %buf [0, 0] : <[64, 64], f32, #sf> -> tensor<64x64xf32, #dot_a>
    %t = arith.truncf %a : tensor<64x64xf32, #dot_a> to tensor<64x64xbf16, #dot_a>
    %d = tile.wgmma %t, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

// Left alone: an A that is not made from a buffer read in the loop (the P
// of attention, from the scores' reduction; here an A carried around the
// loop), an A whose chain feeds something else too, a multiply of one K
// step, and one outside a loop.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#s16 = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0], block = 16>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   k_offset
// CHECK:       return
func.func @left_alone(%buf: !tile.smem<[64, 64], bf16, #sw>, %buf16: !tile.smem<[64, 16], bf16, #s16>, %b: !tile.smem<[64, 128], bf16, #sw>, %b16: !tile.smem<[16, 128], bf16, #sw>, %p0: tensor<64x64xbf16, #dot_a>, %n: i32) -> (tensor<64x128xf32, #mma>, tensor<64x64xf32, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %ze = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #dot_a>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %p = %p0, %keep = %ze) -> (tensor<64x128xf32, #mma>, tensor<64x64xbf16, #dot_a>, tensor<64x64xf32, #dot_a>) : i32 {
    %d = tile.wgmma %p, %b, %acc : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    %a = tile.local_load %buf [0, 0] : <[64, 64], bf16, #sw> -> tensor<64x64xbf16, #dot_a>
    %e = arith.extf %a : tensor<64x64xbf16, #dot_a> to tensor<64x64xf32, #dot_a>
    %t = arith.truncf %e : tensor<64x64xf32, #dot_a> to tensor<64x64xbf16, #dot_a>
    %d2 = tile.wgmma %t, %b, %d : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    %a16 = tile.local_load %buf16 [0, 0] : <[64, 16], bf16, #s16> -> tensor<64x16xbf16, #dot_a>
    %d3 = tile.wgmma %a16, %b16, %d2 : tensor<64x16xbf16, #dot_a>, !tile.smem<[16, 128], bf16, #sw>, tensor<64x128xf32, #mma>
    scf.yield %d3, %t, %e : tensor<64x128xf32, #mma>, tensor<64x64xbf16, #dot_a>, tensor<64x64xf32, #dot_a>
  }
  %a = tile.local_load %buf [0, 0] : <[64, 64], bf16, #sw> -> tensor<64x64xbf16, #dot_a>
  %out = tile.wgmma %a, %b, %r#0 : tensor<64x64xbf16, #dot_a>, !tile.smem<[64, 128], bf16, #sw>, tensor<64x128xf32, #mma>
  return %out, %r#2 : tensor<64x128xf32, #mma>, tensor<64x64xf32, #dot_a>
}
