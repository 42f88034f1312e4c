// RUN: tile-opt %s -split-input-file --tile-guard-masks | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-guard-masks=split=false | FileCheck %s --check-prefix=NOSPLIT
// RUN: tile-opt %s -split-input-file --tile-guard-masks=enabled=false | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file --tile-guard-masks=warn=true -verify-diagnostics -o /dev/null

// tile-guard-masks: a causal mask whose query tile is a scalar of the trip
// (m = t % tiles, which no split follows): rows m * 64 + arange(64) along
// the columns against keys n * 128 + arange(128) along the rows. It keeps
// the whole tile where min(rows) - max(keys) = 64 m - 128 n - 127 >= 0,
// so the select and the mask's comparison run under an scf.if on
// 64 m - n * 128 >= 127 (the scalars of each side as they are: %q, %k).
// A second comparison that is the same on every trip and always holds
// (arange(64) >= -5) drops out of the test, and moves into the branch with
// the rest of the mask.

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tile.slice<dim = 1, parent = #b>
#c = #tile.slice<dim = 0, parent = #b>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @per_trip
// CHECK-SAME:  (%[[N:[^:]*]]: i32, %[[T:[^:]*]]: i32
// CHECK:       %[[K:.*]] = arith.muli %[[N]], %{{.*}} : i32
// CHECK:       scf.for %[[J:[a-z0-9_]+]] =
// CHECK:         %[[M:.*]] = arith.remsi %[[J]], %[[T]] : i32
// CHECK:         %[[Q:.*]] = arith.muli %[[M]], %{{.*}} : i32
// CHECK:         %[[E:.*]] = math.exp2
// CHECK:         %[[D:.*]] = arith.subi %[[Q]], %[[K]] : i32
// CHECK:         %[[B:.*]] = arith.constant 127 : i32
// CHECK:         %[[ALL:.*]] = arith.cmpi sge, %[[D]], %[[B]] : i32
// CHECK:         %[[P:.*]] = scf.if %[[ALL]] -> (tensor<128x64xf32, #blocked>) {
// CHECK-NEXT:      scf.yield %[[E]] : tensor<128x64xf32, #blocked>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tile.full %[[Q]] : tensor<64xi32,
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      tile.expand_dims
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      arith.cmpi sge
// CHECK-NEXT:      tile.expand_dims
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      arith.cmpi sge
// CHECK-NEXT:      %[[V:.*]] = arith.andi
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[V]], %[[E]], %{{.*}} : tensor<128x64xi1, #blocked>, tensor<128x64xf32, #blocked>
// CHECK-NEXT:      scf.yield %[[S]] : tensor<128x64xf32, #blocked>
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.addf %{{.*}}, %[[P]]
// NOSPLIT-LABEL: func.func @per_trip
// NOSPLIT:       scf.if
// OFF-LABEL:   func.func @per_trip
// OFF-NOT:     scf.if
func.func @per_trip(%n: i32, %tiles: i32, %ub: i32, %s: tensor<128x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<128x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #b>
  %m5 = arith.constant dense<-5> : tensor<128x64xi32, #b>
  %n128 = arith.muli %n, %c128 : i32
  %kt = tile.full %n128 : tensor<128xi32, #r>
  %ak = tile.arange : tensor<128xi32, #r>
  %keys1 = arith.addi %kt, %ak : tensor<128xi32, #r>
  %keys2 = tile.expand_dims %keys1 {axis = 1 : i32} : tensor<128xi32, #r> -> tensor<128x1xi32, #b>
  %keys = tile.broadcast %keys2 : tensor<128x1xi32, #b> -> tensor<128x64xi32, #b>
  %aq = tile.arange : tensor<64xi32, #c>
  %r:2 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %zero, %o = %z0) -> (tensor<128x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %m = arith.remsi %j, %tiles : i32
    %q = arith.muli %m, %c64 : i32
    %e = math.exp2 %s : tensor<128x64xf32, #b>
    %qt = tile.full %q : tensor<64xi32, #c>
    %rows1 = arith.addi %qt, %aq : tensor<64xi32, #c>
    %rows2 = tile.expand_dims %rows1 {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #b>
    %rows = tile.broadcast %rows2 : tensor<1x64xi32, #b> -> tensor<128x64xi32, #b>
    %causal = arith.cmpi sge, %rows, %keys : tensor<128x64xi32, #b>
    %aq2 = tile.expand_dims %aq {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #b>
    %aqb = tile.broadcast %aq2 : tensor<1x64xi32, #b> -> tensor<128x64xi32, #b>
    %positive = arith.cmpi sge, %aqb, %m5 : tensor<128x64xi32, #b>
    %valid = arith.andi %causal, %positive : tensor<128x64xi1, #b>
    %p = arith.select %valid, %e, %zero : tensor<128x64xi1, #b>, tensor<128x64xf32, #b>
    %next = arith.addf %acc, %p : tensor<128x64xf32, #b>
    scf.yield %next, %o2 : tensor<128x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<128x64xf32, #b>, tensor<64x64xf32, #mma>
}

// -----

// A mask linear in the induction variable over loop-invariant scalars
// (keys j * 64 + arange against a length %n) is left to tile-mask-ranges
// and tile-loop-split where loops split (CHECK), and guarded where they do
// not (split=false: j * 64 - n <= -64, the test of `cols < n`).

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @linear
// CHECK-NOT:   scf.if
// CHECK:       return
// NOSPLIT-LABEL: func.func @linear
// NOSPLIT-SAME:  (%[[N:[^:]*]]: i32
// NOSPLIT:       scf.for %[[J:[a-z0-9_]+]] =
// NOSPLIT:         %[[J64:.*]] = arith.muli %[[J]]
// NOSPLIT:         %[[D:.*]] = arith.subi %[[J64]], %[[N]] : i32
// NOSPLIT:         %[[B:.*]] = arith.constant -64 : i32
// NOSPLIT:         %[[ALL:.*]] = arith.cmpi sle, %[[D]], %[[B]] : i32
// NOSPLIT:         scf.if %[[ALL]]
// (Split: nothing guarded, which warn says.)
// expected-warning @+1 {{guard_masks does not apply to kernel 'linear': no loop that multiplies selects on a mask of index comparisons}}
func.func @linear(%n: i32, %ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %nt = tile.full %n : tensor<64x64xi32, #b>
  %ac = tile.arange : tensor<64xi32, #tile.slice<dim = 0, parent = #b>>
  %ac2 = tile.expand_dims %ac {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #b>> -> tensor<1x64xi32, #b>
  %acb = tile.broadcast %ac2 : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>
  %r:2 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %j64 = arith.muli %j, %c64 : i32
    %jt = tile.full %j64 : tensor<64x64xi32, #b>
    %cols = arith.addi %jt, %acb : tensor<64x64xi32, #b>
    %inside = arith.cmpi slt, %cols, %nt : tensor<64x64xi32, #b>
    %masked = arith.select %inside, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %masked : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}

// -----

// Left alone: a loop that does not multiply; a mask that never keeps the
// whole tile (a triangle of constants: arange >= arange); an unsigned
// comparison; a mask of a loaded tile.

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma>
#db = #tile.dot_operand<opIdx = 1, parent = #mma>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   scf.if
// CHECK:       return
// NOSPLIT-LABEL: func.func @left_alone
// NOSPLIT-NOT:   scf.if
// NOSPLIT:       return
// expected-warning @+1 {{guard_masks does not apply to kernel 'left_alone': no loop that multiplies selects on a mask of index comparisons}}
func.func @left_alone(%g: !tile.global<i32, 2>, %n: i32, %ub: i32, %s: tensor<64x64xf32, #b>, %x: tensor<64x64xf16, #da>, %y: tensor<64x64xf16, #db>, %z0: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
  %ar = tile.arange : tensor<64xi32, #tile.slice<dim = 1, parent = #b>>
  %ar2 = tile.expand_dims %ar {axis = 1 : i32} : tensor<64xi32, #tile.slice<dim = 1, parent = #b>> -> tensor<64x1xi32, #b>
  %arb = tile.broadcast %ar2 : tensor<64x1xi32, #b> -> tensor<64x64xi32, #b>
  %ac = tile.arange : tensor<64xi32, #tile.slice<dim = 0, parent = #b>>
  %ac2 = tile.expand_dims %ac {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #b>> -> tensor<1x64xi32, #b>
  %acb = tile.broadcast %ac2 : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>
  // No multiply in this loop.
  %r0 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #b>) : i32 {
    %jt = tile.full %j : tensor<64x64xi32, #b>
    %m = arith.cmpi slt, %jt, %acb : tensor<64x64xi32, #b>
    %a = arith.select %m, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %a : tensor<64x64xf32, #b>
    scf.yield %next : tensor<64x64xf32, #b>
  }
  %r:2 = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %r0, %o = %z0) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>) : i32 {
    %o2 = tile.mma %x, %y, %o : tensor<64x64xf16, #da>, tensor<64x64xf16, #db>, tensor<64x64xf32, #mma>
    %tri = arith.cmpi sge, %acb, %arb : tensor<64x64xi32, #b>
    %a = arith.select %tri, %s, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %jt = tile.full %j : tensor<64x64xi32, #b>
    %uns = arith.cmpi ult, %jt, %acb : tensor<64x64xi32, #b>
    %b2 = arith.select %uns, %a, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %l = tile.load %g[%j, %c0] : <i32, 2> -> tensor<64x64xi32, #b>
    %loaded = arith.cmpi slt, %l, %acb : tensor<64x64xi32, #b>
    %b3 = arith.select %loaded, %b2, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
    %next = arith.addf %acc, %b3 : tensor<64x64xf32, #b>
    scf.yield %next, %o2 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #mma>
}
