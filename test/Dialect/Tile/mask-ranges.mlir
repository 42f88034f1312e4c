// RUN: tile-opt %s -split-input-file --tile-mask-ranges | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-mask-ranges --tile-loop-split --canonicalize | FileCheck %s --check-prefix=SPLIT
// RUN: tile-opt %s -split-input-file --tile-mask-ranges=enabled=false | FileCheck %s --check-prefix=OFF

// tile-mask-ranges: a select on a mask of comparisons linear in the
// induction variable (the key tile's columns j * 64 + arange against the
// rows m + arange and a bound n) is wrapped in a select on the trips where
// every comparison holds over the whole tile, [lo, hi), computed before
// the loop: cols <= rows holds everywhere while 64 j + 63 <= m, i.e.
// j < floor((m - 63) / 64) + 1; cols < n while 64 j + 63 <= n - 1;
// cols > rows - 200 from 64 j >= m + 63 - 200 + 1, j >= ceil(...).
// tile-loop-split then splits the loop at lo and hi, and the middle loop
// has no mask.

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tile.slice<dim = 1, parent = #b>
#c = #tile.slice<dim = 0, parent = #b>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @window
// CHECK-SAME:  (%[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[UB:[^:]*]]: i32
// CHECK:       %[[C63:.*]] = arith.constant -63 : i32
// CHECK:       arith.subi %[[C63]], %{{.*}} : i32
// CHECK:       %[[HI1:.*]] = arith.floordivsi
// CHECK:       %[[END1:.*]] = arith.addi %[[HI1]]
// CHECK:       arith.constant -64 : i32
// CHECK:       arith.floordivsi
// CHECK:       %[[END2:.*]] = arith.addi
// CHECK:       %[[HI:.*]] = arith.minsi %[[END1]], %[[END2]] : i32
// CHECK:       arith.constant -136 : i32
// CHECK:       %[[LO:.*]] = arith.ceildivsi
// CHECK:       scf.for %[[J:[a-z0-9_]+]] =
// CHECK:         %[[MASKED:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xi1, #blocked>
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpi sge, %[[J]], %[[LO]] : i32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[J]], %[[HI]] : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:    %[[W:.*]] = arith.select %[[IN]], %{{.*}}, %[[MASKED]] : tensor<64x64xf32, #blocked>
// CHECK-NEXT:    arith.addf %{{.*}}, %[[W]]
// SPLIT-LABEL: func.func @window
// SPLIT:       scf.for
// SPLIT:         arith.select {{.*}} : tensor<64x64xi1
// SPLIT:       scf.for
// SPLIT-NOT:     arith.select
// SPLIT:       scf.for
// SPLIT:         arith.select {{.*}} : tensor<64x64xi1
// SPLIT-NOT:   scf.for
// SPLIT-LABEL: func.func @not_ranges
// OFF-LABEL: func.func @window
// OFF-NOT:   arith.cmpi sge
func.func @window(%m: i32, %n: i32, %ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %w = arith.constant dense<200> : tensor<64x64xi32, #b>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %ar = tile.arange : tensor<64xi32, #r>
  %mr = tile.full %m : tensor<64xi32, #r>
  %rows1 = arith.addi %mr, %ar : tensor<64xi32, #r>
  %rows2 = tile.expand_dims %rows1 {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #b>
  %rows = tile.broadcast %rows2 : tensor<64x1xi32, #b> -> tensor<64x64xi32, #b>
  %ac = tile.arange : tensor<64xi32, #c>
  %nt = tile.full %n : tensor<64x64xi32, #b>
  %lowest = arith.subi %rows, %w : tensor<64x64xi32, #b>
  %r:2 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %j64 = arith.muli %j, %c64 : i32
    %jt = tile.full %j64 : tensor<64xi32, #c>
    %cols1 = arith.addi %jt, %ac : tensor<64xi32, #c>
    %cols2 = tile.expand_dims %cols1 {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #b>
    %cols = tile.broadcast %cols2 : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>
    %causal = arith.cmpi sle, %cols, %rows : tensor<64x64xi32, #b>
    %inside = arith.cmpi slt, %cols, %nt : tensor<64x64xi32, #b>
    %recent = arith.cmpi sgt, %cols, %lowest : tensor<64x64xi32, #b>
    %c12 = arith.andi %causal, %inside : tensor<64x64xi1, #b>
    %mask = arith.andi %c12, %recent : tensor<64x64xi1, #b>
    %masked = arith.select %mask, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %masked : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}

// -----

// Left alone: a mask compared with a loaded tile (not linear in the
// induction variable), and one that does not depend on it; and a mask
// linear in the induction variable in a loop that does not multiply (a
// gather's indices: the split would cost a copy of the body for a select
// an element).

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @not_ranges
// CHECK-NOT:   arith.cmpi sge
// CHECK-NOT:   arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:       return
func.func @not_ranges(%g: !tile.global<i32, 2>, %ub: i32, %s: tensor<64x64xf32, #b>, %t: tensor<64x64xi32, #b>) -> tensor<64x64xf32, #b> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %r = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #b>) : i32 {
    %l = tile.load %g[%j, %c0] : <i32, 2> -> tensor<64x64xi32, #b>
    %loaded = arith.cmpi slt, %l, %t : tensor<64x64xi32, #b>
    %a = arith.select %loaded, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %fixed = arith.cmpi slt, %t, %t : tensor<64x64xi32, #b>
    %b2 = arith.select %fixed, %a, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %jt = tile.full %j : tensor<64x64xi32, #b>
    %five = arith.constant dense<5> : tensor<64x64xi32, #b>
    %linear = arith.cmpi slt, %jt, %five : tensor<64x64xi32, #b>
    %b3 = arith.select %linear, %b2, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %b3 : tensor<64x64xf32, #b>
    scf.yield %next : tensor<64x64xf32, #b>
  }
  return %r : tensor<64x64xf32, #b>
}

// -----

// Left alone: bounds that would not fit the i32 they are computed in (a
// factor of 2^32 on the induction variable).

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @too_big
// CHECK-NOT:   arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:       return
func.func @too_big(%ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c65536 = arith.constant 65536 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %lim = arith.constant dense<100> : tensor<64x64xi32, #b>
  %r:2 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %big = arith.muli %j, %c65536 : i32
    %big2 = arith.muli %big, %c65536 : i32
    %t = tile.full %big2 : tensor<64x64xi32, #b>
    %m = arith.cmpi slt, %t, %lim : tensor<64x64xi32, #b>
    %a = arith.select %m, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %a : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}

// -----

// The query tile of a loop over (tile, head of a group) pairs, q = t // g
// (g a tensor's size: non-negative, and positive wherever the division
// runs): non-decreasing in t, so the trips where cols >= rows holds over
// the tile, 64 q - n - 63 >= 0, are q >= L = ceil((n + 63) / 64), i.e.
// t >= L * g. The split then takes the mask out of the later trips.
// Left alone: a divisor whose sign is unknown, and an index that mixes the
// quotient with the induction variable.

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tile.slice<dim = 1, parent = #b>
#c = #tile.slice<dim = 0, parent = #b>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @quotient
// CHECK:       %[[G:.*]] = tile.dim
// CHECK:       %[[L:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : i32
// CHECK:       %[[LG:.*]] = arith.muli %[[L]], %[[G]] : i32
// CHECK:       %[[LO:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : i32
// CHECK:       scf.for %[[T:[a-z0-9_]+]] =
// CHECK:         %[[MASKED:.*]] = arith.select %{{.*}} : tensor<64x64xi1, #blocked>
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpi sge, %[[T]], %[[LO]] : i32
// CHECK-NEXT:    arith.select %[[GE]], %{{.*}}, %[[MASKED]] : tensor<64x64xf32, #blocked>
// CHECK-LABEL: func.func @quotient_unknown
// CHECK-NOT:   arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK:       return
// SPLIT-LABEL: func.func @quotient
// SPLIT:       %[[G:.*]] = tile.dim
// SPLIT:       %[[LG:.*]] = arith.muli %{{.*}}, %[[G]] : i32
// SPLIT:       %[[S:.*]] = arith.minsi %[[LG]], %{{.*}} : i32
// SPLIT:       %[[S2:.*]] = arith.maxsi %[[S]], %{{.*}} : i32
// SPLIT:       scf.for %{{.*}} = %{{.*}} to %[[S2]]
// SPLIT:         arith.select {{.*}} : tensor<64x64xi1
// SPLIT:       scf.for %{{.*}} = %[[S2]] to
// SPLIT-NOT:     arith.select
// SPLIT:       return
// OFF-LABEL: func.func @quotient(
func.func @quotient(%x0: !tile.global<f16, 2>, %n: i32, %ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %g = tile.dim %x0, 1 : <f16, 2>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %ar = tile.arange : tensor<64xi32, #r>
  %nr = tile.full %n : tensor<64xi32, #r>
  %rows1 = arith.addi %nr, %ar : tensor<64xi32, #r>
  %rows2 = tile.expand_dims %rows1 {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #b>
  %rows = tile.broadcast %rows2 : tensor<64x1xi32, #b> -> tensor<64x64xi32, #b>
  %ac = tile.arange : tensor<64xi32, #c>
  %r:2 = scf.for %t = %c0 to %ub step %c1 iter_args(%acc = %z, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %q = arith.floordivsi %t, %g : i32
    %q64 = arith.muli %q, %c64 : i32
    %qt = tile.full %q64 : tensor<64xi32, #c>
    %cols1 = arith.addi %qt, %ac : tensor<64xi32, #c>
    %cols2 = tile.expand_dims %cols1 {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #b>
    %cols = tile.broadcast %cols2 : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>
    %causal = arith.cmpi sge, %cols, %rows : tensor<64x64xi32, #b>
    %masked = arith.select %causal, %s, %z : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %masked : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}

func.func @quotient_unknown(%d: i32, %g: i32, %n: i32, %ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %nt = tile.full %n : tensor<64x64xi32, #b>
  %g1 = arith.maxsi %g, %c1 : i32
  %r:2 = scf.for %t = %c0 to %ub step %c1 iter_args(%acc = %z, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    // (d may be negative: t // d need not grow with t.)
    %q = arith.floordivsi %t, %d : i32
    %qt = tile.full %q : tensor<64x64xi32, #b>
    %c1m = arith.cmpi slt, %qt, %nt : tensor<64x64xi32, #b>
    %a = arith.select %c1m, %s, %z : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    // (t // g + t: two variables.)
    %p = arith.floordivsi %t, %g1 : i32
    %pt = arith.addi %p, %t : i32
    %ptt = tile.full %pt : tensor<64x64xi32, #b>
    %c2m = arith.cmpi slt, %ptt, %nt : tensor<64x64xi32, #b>
    %a2 = arith.select %c2m, %a, %z : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %a2 : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}
