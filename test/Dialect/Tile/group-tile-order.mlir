// RUN: tile-opt %s -split-input-file --tile-group-tile-order | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-group-tile-order="group=4" | FileCheck %s --check-prefix=FOUR
// RUN: tile-opt %s -split-input-file --tile-group-tile-order="group=1" | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file --tile-group-tile-order="group=8 warn=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN

// A GEMM on a 2-D grid: A's rows by bid(0), B's columns by bid(1). Its
// blocks take their tiles in groups of 8 along x: pid = y * nx + x, the
// group's first x = pid / (8 * ny) * 8, its rows min(nx - first, 8), and
// x, y within it column by column. Every use of the block's indices (the
// loads and the store) takes the new ones.
// WARN-NOT:    warning{{.*}}'gemm'
// CHECK-LABEL: func.func @gemm
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : i32
// CHECK-DAG:   %[[X:.*]] = tile.bid 0
// CHECK-DAG:   %[[Y:.*]] = tile.bid 1
// CHECK-DAG:   %[[NX:.*]] = tile.num_blocks 0
// CHECK-DAG:   %[[NY:.*]] = tile.num_blocks 1
// CHECK:       %[[YNX:.*]] = arith.muli %[[Y]], %[[NX]] : i32
// CHECK:       %[[PID:.*]] = arith.addi %[[YNX]], %[[X]] : i32
// CHECK:       %[[PER:.*]] = arith.muli %[[C8]], %[[NY]] : i32
// CHECK:       %[[G:.*]] = arith.divui %[[PID]], %[[PER]] : i32
// CHECK:       %[[FIRST:.*]] = arith.muli %[[G]], %[[C8]] : i32
// CHECK:       %[[LEFT:.*]] = arith.subi %[[NX]], %[[FIRST]] : i32
// CHECK:       %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[C8]] : i32
// CHECK:       %[[IN:.*]] = arith.remui %[[PID]], %[[PER]] : i32
// CHECK:       %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]] : i32
// CHECK:       %[[NEWX:.*]] = arith.addi %[[FIRST]], %[[R]] : i32
// CHECK:       %[[NEWY:.*]] = arith.divui %[[IN]], %[[ROWS]] : i32
// CHECK:       scf.for
// CHECK:         tile.load %{{.*}}[%[[NEWX]], %{{.*}}]
// CHECK:         tile.load %{{.*}}[%{{.*}}, %[[NEWY]]]
// CHECK:       tile.store %{{.*}}[%[[NEWX]], %[[NEWY]]]
// FOUR-LABEL:  func.func @gemm
// FOUR:        arith.constant 4 : i32
// FOUR:        arith.minui
// OFF-LABEL:   func.func @gemm
// OFF-NOT:     arith.minui
// OFF:         return
func.func @gemm(%A: !tile.global<bf16, 2>, %B: !tile.global<bf16, 2>, %C: !tile.global<bf16, 2>, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %m = tile.bid 0
  %n = tile.bid 1
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %a = tile.load %A[%m, %j] : <bf16, 2> -> tensor<128x64xbf16>
    %b = tile.load %B[%j, %n] : <bf16, 2> -> tensor<64x128xbf16>
    %d = tile.mma %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %o = arith.truncf %r : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %C[%m, %n], %o : <bf16, 2>, tensor<128x128xbf16>
  return
}

// -----

// Attention's scores: Q by the query tile and the head (x and y), K by the
// head (y) alone: no operand follows from x alone, so the blocks keep the
// hardware's order (all query tiles of a head at once share its keys).
// WARN:        warning: group_tiles=8 does not apply to kernel 'scores': no loop of it multiplies a tile that follows from bid(0) alone by one that follows from bid(1)
// CHECK-LABEL: func.func @scores
// CHECK-NOT:   arith.minui
// CHECK:       return
func.func @scores(%Q: !tile.global<bf16, 3>, %K: !tile.global<bf16, 3>, %S: !tile.global<f32, 3>, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %m = tile.bid 0
  %h = tile.bid 1
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %q = tile.load %Q[%h, %m, %c0] : <bf16, 3> -> tensor<1x128x64xbf16>
    %kk = tile.load %K[%h, %c0, %j] : <bf16, 3> -> tensor<1x64x128xbf16>
    %q2 = tile.reshape %q : tensor<1x128x64xbf16> -> tensor<128x64xbf16>
    %k2 = tile.reshape %kk : tensor<1x64x128xbf16> -> tensor<64x128xbf16>
    %d = tile.mma %q2, %k2, %acc : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r3 = tile.reshape %r : tensor<128x128xf32> -> tensor<1x128x128xf32>
  tile.store %S[%h, %m, %c0], %r3 : <f32, 3>, tensor<1x128x128xf32>
  return
}

// -----

// Launched in clusters (their blocks' ranks follow x): left alone.
// WARN:        warning: group_tiles=8 does not apply to kernel 'clustered': it is launched in clusters
// CHECK-LABEL: func.func @clustered
// CHECK-NOT:   arith.minui
// CHECK:       return
func.func @clustered(%A: !tile.global<bf16, 2>, %B: !tile.global<bf16, 2>, %C: !tile.global<f32, 2>, %k: i32) attributes {tile.kernel, tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %m = tile.bid 0
  %n = tile.bid 1
  %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %a = tile.load %A[%m, %j] : <bf16, 2> -> tensor<128x64xbf16>
    %b = tile.load %B[%j, %n] : <bf16, 2> -> tensor<64x128xbf16>
    %d = tile.mma %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %C[%m, %n], %r : <f32, 2>, tensor<128x128xf32>
  return
}

// -----

// A grid of one dimension: nothing to group.
// WARN:        warning: group_tiles=8 does not apply to kernel 'rows': it does not use both bid(0) and bid(1)
// CHECK-LABEL: func.func @rows
// CHECK-NOT:   arith.minui
// CHECK:       return
func.func @rows(%X: !tile.global<f32, 2>, %Y: !tile.global<f32, 2>) attributes {tile.kernel} {
  %m = tile.bid 0
  %c0 = arith.constant 0 : i32
  %x = tile.load %X[%m, %c0] : <f32, 2> -> tensor<1x512xf32>
  tile.store %Y[%m, %c0], %x : <f32, 2>, tensor<1x512xf32>
  return
}
