// RUN: tile-opt %s -split-input-file --tile-fresh-accumulators | FileCheck %s

// tile-fresh-accumulators peels the first trip of a loop that runs a trip,
// streams multiplies and carries an accumulator that starts at zero: the
// peeled multiply is onto the zero constant (it reads no accumulator), the
// loop runs from lb + step on the peeled trip's results.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#ring = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0], block = 64>

// Under the guard tile-guard-empty-loops puts (lb < ub): the trip at %lb
// (its slot, its counter) in front of the loop; the zeros stay for the path
// that skips it. In the loop, the test of the first trip is false.
// CHECK-LABEL: func.func @guarded
// CHECK-SAME:  (%[[RA:.*]]: !tile.smem<[2, 64, 64], f16, #shared>, %[[B:.*]]: !tile.smem<[64, 64], f16, #shared1>, %[[LB:.*]]: i32, %[[UB:.*]]: i32)
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK:       scf.if
// CHECK-NEXT:    %[[S0:.*]] = tile.smem_slot %[[RA]][%[[LB]]]
// CHECK-NEXT:    %[[D0:.*]] = tile.wgmma async %[[S0]], %[[B]], %[[Z]] :
// CHECK-NEXT:    tile.wgmma_wait 1
// CHECK-NEXT:    %[[FIRST0:.*]] = arith.cmpi eq, %[[LB]], %[[LB]] : i32
// CHECK-NEXT:    %[[N0:.*]] = arith.select %[[FIRST0]]
// CHECK-NEXT:    %[[LB1:.*]] = arith.addi %[[LB]], %[[C1]] : i32
// CHECK-NEXT:    %[[R:.*]]:2 = scf.for %[[I:.*]] = %[[LB1]] to %[[UB]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[D0]], %[[N:.*]] = %[[N0]])
// CHECK-NEXT:      %[[S:.*]] = tile.smem_slot %[[RA]][%[[I]]]
// CHECK-NEXT:      tile.wgmma async %[[S]], %[[B]], %[[ACC]] :
// CHECK-NEXT:      tile.wgmma_wait 1
// CHECK-NEXT:      %[[NOTFIRST:.*]] = arith.constant false
// CHECK-NEXT:      arith.select %[[NOTFIRST]]
// CHECK:         tile.wgmma_wait 0, %[[R]]#0
// CHECK:       } else {
// CHECK-NEXT:    scf.yield %[[Z]]
func.func @guarded(%ra: !tile.smem<[2, 64, 64], f16, #ring>, %b: !tile.smem<[64, 64], f16, #sw>, %lb: i32, %ub: i32) -> (tensor<64x64xf32, #mma>, i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %ran = arith.cmpi slt, %lb, %ub : i32
  %g:2 = scf.if %ran -> (tensor<64x64xf32, #mma>, i32) {
    %r:2 = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z, %n = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
      %a = tile.smem_slot %ra[%i] : !tile.smem<[2, 64, 64], f16, #ring> -> !tile.smem<[64, 64], f16, #sw>
      %d = tile.wgmma async %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      tile.wgmma_wait 1 reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
      %first = arith.cmpi eq, %i, %lb : i32
      %m = arith.select %first, %c5, %n : i32
      scf.yield %d, %m : tensor<64x64xf32, #mma>, i32
    }
    %w = tile.wgmma_wait 0, %r#0 : tensor<64x64xf32, #mma> reads %ra, %b : !tile.smem<[2, 64, 64], f16, #ring>, !tile.smem<[64, 64], f16, #sw>
    scf.yield %w, %r#1 : tensor<64x64xf32, #mma>, i32
  } else {
    scf.yield %z, %c0 : tensor<64x64xf32, #mma>, i32
  }
  return %g#0, %g#1 : tensor<64x64xf32, #mma>, i32
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Constant bounds that run (4 trips, from 2): the trip at 2 peeled (the
// multiply, synchronous here, onto the zeros), the loop from 3. A second
// accumulator, given by the caller, continues from the peeled trip too.
// CHECK-LABEL: func.func @constant_trips
// CHECK-SAME:  %[[C:[[:alnum:]_]+]]: tensor<64x64xf32, #mma>)
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG:   %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG:   %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK:       %[[D0:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[Z]] :
// CHECK-NEXT:  %[[E0:.*]] = tile.wgmma %{{.*}}, %{{.*}}, %[[C]] :
// CHECK-NEXT:  %[[LB1:.*]] = arith.addi %[[C2]], %[[C1]] : i32
// CHECK-NEXT:  scf.for %{{.*}} = %[[LB1]] to %[[C6]] step %[[C1]] iter_args(%{{.*}} = %[[D0]], %{{.*}} = %[[E0]])
func.func @constant_trips(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %c: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c6 = arith.constant 6 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %i = %c2 to %c6 step %c1 iter_args(%acc = %z, %o = %c) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = tile.wgmma %a, %b, %o : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d, %e : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
  return %r#0, %r#1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// Left alone: a loop that may run no trip, unguarded (its result would be
// the zeros); a guard on other bounds; constant bounds that run no trip;
// accumulators that start at -0.0 or at the caller's value; a body that
// computes a tile in registers (the accumulator rescaled, as attention's).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-6: scf.for
// CHECK-NOT:   arith.addi
// CHECK:       return
func.func @left_alone(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %c: tensor<64x64xf32, #mma>, %lb: i32, %ub: i32, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %nz = arith.constant dense<-0.000000e+00> : tensor<64x64xf32, #mma>
  %r0 = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %other = arith.cmpi slt, %c0, %n : i32
  %r1 = scf.if %other -> (tensor<64x64xf32, #mma>) {
    %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    scf.yield %r : tensor<64x64xf32, #mma>
  } else {
    scf.yield %z : tensor<64x64xf32, #mma>
  }
  %r2 = scf.for %i = %c4 to %c4 step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %r3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %nz) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %r4 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %r5 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = tile.wgmma %a, %b, %acc : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %e = arith.mulf %d, %c : tensor<64x64xf32, #mma>
    scf.yield %e : tensor<64x64xf32, #mma>
  }
  return %r0, %r1, %r3, %r4, %r5, %r2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}
