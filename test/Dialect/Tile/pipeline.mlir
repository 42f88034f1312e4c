// RUN: tile-opt %s -split-input-file --tile-pipeline | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-pipeline=num-stages=1 | FileCheck %s --check-prefix=ONE
// RUN: tile-opt %s -split-input-file --tile-pipeline=num-stages=2 | FileCheck %s --check-prefix=TWO
// RUN: tile-opt %s -split-input-file --tile-pipeline="num-stages=3 warn" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOPY
// RUN: tile-opt %s -split-input-file --tile-pipeline=default-stages=3 | FileCheck %s --check-prefix=DEF3
// RUN: tile-opt %s -split-input-file --tile-pipeline="num-stages=2 warn=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// A pipelined loop (its copies are now predicated) is not pipelined again:
// RUN: tile-opt %s -split-input-file --tile-pipeline --tile-pipeline | FileCheck %s

// tile-pipeline gives each tile.async_copy of an scf.for body a ring of S
// shared memory buffers (tile.smem_alloc with a leading stage dimension,
// indexed with tile.smem_slot by a loop-carried i32 iteration counter) and
// issues it d = S - 1 iterations ahead:
//  - a prologue of D = max(d) virtual iterations -D..-1 before the loop
//    issues, in each, one predicated copy per copy of the body: the copy for
//    iteration t = v + d into slot t % S, predicated on lb + t * step < ub,
//    or on `false` (slot 0, operands of iteration 0) when t < 0;
//  - in the body, at the first wait of the prefetched copies: all their
//    waits, on the slot it % S, with the exact pending counts, then the
//    refills for iteration j + d into slot (it + d) % S, predicated on
//    iv + d * step < ub, then the reads of the current slot;
//  - the loop gets tile.pipelined and is followed by tile.async_wait with no
//    buffers and pending 0 (printed without the attribute).
// S comes from the loop's schedule (#tile.schedule<num_stages = S>), else
// num-stages (when non-zero), else the copy's latency hint, else
// default-stages.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// A GEMM: copies of A and B with latency 3, so S = 3, d = 2, D = 2, n = 2
// copies per iteration. Issue order (prologue, then each iteration j):
//   v = -2: A(0) B(0)   v = -1: A(1) B(1)   j: [waits] A(j+2) B(j+2)
// At the waits of iteration j the last groups issued are
//   A(j) B(j) A(j+1) B(j+1)
// so A(j) is complete when at most 3 groups are pending (B(j), A(j+1),
// B(j+1)), and B(j) at most 2. The header's formula, (n - 1 - k) +
// n * (S - 2) + (copies issued before the group, here 0), gives the same:
// A (k = 0): 1 + 2 + 0 = 3, B (k = 1): 0 + 2 + 0 = 2. It holds for any trip
// count since predicated-off copies still commit a group.
// The ring layouts put the stage dimension slowest: [1, 0] -> [2, 1, 0].
// CHECK-DAG:   #[[RSA:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
// CHECK-DAG:   #[[RSB:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
// CHECK-DAG:   #[[SA:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-DAG:   #[[SB:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[B:.*]]: !tile.global<f16, 2>, %[[M:.*]]: i32, %[[NN:.*]]: i32, %[[N:.*]]: i32)
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[Z:.*]] = arith.constant dense<0.000000e+00>
// The rings.
// CHECK-NEXT:  %[[RA:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #[[RSA]]>
// CHECK-NEXT:  %[[RB:.*]] = tile.smem_alloc : <[3, 32, 64], f16, #[[RSB]]>
// CHECK-NEXT:  arith.constant false
// Prologue, v = -2: A(0) and B(0) into slot 0, if lb + 0 * step < ub.
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C1]], %[[T]] : i32
// CHECK-NEXT:  %[[IVA0:.*]] = arith.addi %[[C0]], %[[O]] : i32
// CHECK-NEXT:  %[[PA0:.*]] = arith.cmpi slt, %[[IVA0]], %[[N]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[SA0:.*]] = tile.smem_slot %[[RA]][%[[S]]] : <[3, 64, 32], f16, #[[RSA]]> -> <[64, 32], f16, #[[SA]]>
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[IVA0]]], %[[SA0]] if %[[PA0]] {latency = 3 : i32, layout = #{{.*}}, shape = array<i64: 64, 32>} : <f16, 2>, <[64, 32], f16, #[[SA]]>
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C1]], %[[T]] : i32
// CHECK-NEXT:  %[[IVB0:.*]] = arith.addi %[[C0]], %[[O]] : i32
// CHECK-NEXT:  %[[PB0:.*]] = arith.cmpi slt, %[[IVB0]], %[[N]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[SB0:.*]] = tile.smem_slot %[[RB]][%[[S]]] : <[3, 32, 64], f16, #[[RSB]]> -> <[32, 64], f16, #[[SB]]>
// CHECK-NEXT:  tile.async_copy %[[B]][%[[IVB0]], %[[NN]]], %[[SB0]] if %[[PB0]] {latency = 3 : i32, layout = #{{.*}}, shape = array<i64: 32, 64>} : <f16, 2>, <[32, 64], f16, #[[SB]]>
// Prologue, v = -1: A(1) and B(1) into slot 1, if lb + 1 * step < ub.
// CHECK-NEXT:  %[[T:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C1]], %[[T]] : i32
// CHECK-NEXT:  %[[IVA1:.*]] = arith.addi %[[C0]], %[[O]] : i32
// CHECK-NEXT:  %[[PA1:.*]] = arith.cmpi slt, %[[IVA1]], %[[N]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[SA1:.*]] = tile.smem_slot %[[RA]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[IVA1]]], %[[SA1]] if %[[PA1]]
// CHECK-NEXT:  %[[T:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C1]], %[[T]] : i32
// CHECK-NEXT:  %[[IVB1:.*]] = arith.addi %[[C0]], %[[O]] : i32
// CHECK-NEXT:  %[[PB1:.*]] = arith.cmpi slt, %[[IVB1]], %[[N]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[SB1:.*]] = tile.smem_slot %[[RB]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[B]][%[[IVB1]], %[[NN]]], %[[SB1]] if %[[PB1]]
// The loop, with the iteration counter (from 0, + 1 each iteration).
// CHECK-NEXT:  %[[IT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[R:.*]]:2 = scf.for %[[K:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[Z]], %[[IT:.*]] = %[[IT0]]) -> (tensor<64x64xf32, #mma>, i32)
// The slots this iteration reads: it % 3.
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[RSLOTB:.*]] = arith.remui %[[IT]], %[[C3]] : i32
// CHECK-NEXT:    %[[VB:.*]] = tile.smem_slot %[[RB]][%[[RSLOTB]]] : <[3, 32, 64], f16, #[[RSB]]> -> <[32, 64], f16, #[[SB]]>
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[RSLOTA:.*]] = arith.remui %[[IT]], %[[C3]] : i32
// CHECK-NEXT:    %[[VA:.*]] = tile.smem_slot %[[RA]][%[[RSLOTA]]] : <[3, 64, 32], f16, #[[RSA]]> -> <[64, 32], f16, #[[SA]]>
// The waits, together, with the counts derived above.
// CHECK-NEXT:    tile.async_wait %[[VA]] {pending = 3 : i32} : !tile.smem<[64, 32], f16, #[[SA]]>
// CHECK-NEXT:    tile.async_wait %[[VB]] {pending = 2 : i32} : !tile.smem<[32, 64], f16, #[[SB]]>
// The refills: A(j + 2) into slot (it + 2) % 3, if iv + 2 * step < ub.
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[C1]], %[[C2]] : i32
// CHECK-NEXT:    %[[NEXTA:.*]] = arith.addi %[[K]], %[[O]] : i32
// CHECK-NEXT:    %[[PA:.*]] = arith.cmpi slt, %[[NEXTA]], %[[N]] : i32
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[IT]], %[[C2]] : i32
// CHECK-NEXT:    %[[WSLOTA:.*]] = arith.remui %[[W]], %[[C3]] : i32
// CHECK-NEXT:    %[[WA:.*]] = tile.smem_slot %[[RA]][%[[WSLOTA]]]
// CHECK-NEXT:    tile.async_copy %[[A]][%[[M]], %[[NEXTA]]], %[[WA]] if %[[PA]] {latency = 3 : i32, layout = #{{.*}}, shape = array<i64: 64, 32>}
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[C1]], %[[C2]] : i32
// CHECK-NEXT:    %[[NEXTB:.*]] = arith.addi %[[K]], %[[O]] : i32
// CHECK-NEXT:    %[[PB:.*]] = arith.cmpi slt, %[[NEXTB]], %[[N]] : i32
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[IT]], %[[C2]] : i32
// CHECK-NEXT:    %[[WSLOTB:.*]] = arith.remui %[[W]], %[[C3]] : i32
// CHECK-NEXT:    %[[WB:.*]] = tile.smem_slot %[[RB]][%[[WSLOTB]]]
// CHECK-NEXT:    tile.async_copy %[[B]][%[[NEXTB]], %[[NN]]], %[[WB]] if %[[PB]] {latency = 3 : i32, layout = #{{.*}}, shape = array<i64: 32, 64>}
// The reads of the current slots, and the compute.
// CHECK-NEXT:    %[[LA:.*]] = tile.local_load %[[VA]] [0, 0] : <[64, 32], f16, #[[SA]]> -> tensor<64x32xf16, #dot_a>
// CHECK-NEXT:    %[[LB:.*]] = tile.local_load %[[VB]] [0, 0] : <[32, 64], f16, #[[SB]]> -> tensor<32x64xf16, #dot_b>
// CHECK-NEXT:    %[[D:.*]] = tile.mma %[[LA]], %[[LB]], %[[ACC]]
// CHECK-NEXT:    %[[INC:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXTIT:.*]] = arith.addi %[[IT]], %[[INC]] : i32
// CHECK-NEXT:    scf.yield %[[D]], %[[NEXTIT]] : tensor<64x64xf32, #mma>, i32
// CHECK-NEXT:  } {tile.pipelined}
// Nothing stays in flight after the loop.
// CHECK-NEXT:  tile.async_wait all{{ *$}}
// CHECK-NEXT:  return %[[R]]#0
// CHECK-NOT:   tile.async_copy
// CHECK-NOT:   tile.async_wait

// num-stages=1 turns pipelining off: the loop is as it was.
// ONE-LABEL:   func.func @gemm
// ONE:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32, #mma>) : i32 {
// ONE-NEXT:      %[[BA:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// ONE-NEXT:      tile.async_copy %{{.*}}[%{{.*}}, %[[K]]], %[[BA]] {latency = 3 : i32
// ONE-NEXT:      %[[BB:.*]] = tile.smem_alloc : <[32, 64], f16, #{{.*}}>
// ONE-NEXT:      tile.async_copy %{{.*}}[%[[K]], %{{.*}}], %[[BB]] {latency = 3 : i32
// ONE-NEXT:      tile.async_wait %[[BA]] : !tile.smem
// ONE-NEXT:      tile.local_load %[[BA]]
// ONE-NEXT:      tile.async_wait %[[BB]] : !tile.smem
// ONE-NEXT:      tile.local_load %[[BB]]
// ONE-NEXT:      tile.mma
// ONE-NEXT:      scf.yield
// ONE-NEXT:    {{^ *}}}{{$}}
// ONE-NEXT:    return

// num-stages=2 overrides the hints: rings of 2, one iteration ahead. A(j) is
// then followed by B(j) only: pending 1, and B(j) by nothing: pending 0
// (printed without the attribute).
// TWO-LABEL:   func.func @gemm
// TWO:         %[[RA:.*]] = tile.smem_alloc : <[2, 64, 32], f16, #{{.*}}>
// TWO-NEXT:    %[[RB:.*]] = tile.smem_alloc : <[2, 32, 64], f16, #{{.*}}>
// TWO-COUNT-2: tile.async_copy %{{.*}}, %{{.*}} if %{{.*}} {latency = 3 : i32
// TWO-NOT:     tile.async_copy
// TWO:         scf.for
// TWO:         %[[VA:.*]] = tile.smem_slot %[[RA]]
// TWO-NEXT:    tile.async_wait %[[VA]] {pending = 1 : i32}
// TWO-NEXT:    tile.async_wait %{{[^ ]*}} : !tile.smem<[32, 64]
// TWO:         arith.constant 1 : i32
// TWO-NEXT:    arith.muli
// TWO-NEXT:    %[[NEXT:.*]] = arith.addi
// TWO:         %[[C2:.*]] = arith.constant 2 : i32
// TWO-NEXT:    %[[C1:.*]] = arith.constant 1 : i32
// TWO-NEXT:    %[[W:.*]] = arith.addi %{{.*}}, %[[C1]] : i32
// TWO-NEXT:    arith.remui %[[W]], %[[C2]] : i32
// TWO:         } {tile.pipelined}
// TWO-NEXT:    tile.async_wait all{{ *$}}
func.func @gemm(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32, %nn: i32, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[32, 64], f16, #sb>
    tile.async_copy %B[%k, %nn], %bb {layout = #blocked1, shape = array<i64: 32, 64>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[32, 64], f16, #sb>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    tile.async_wait %bb : !tile.smem<[32, 64], f16, #sb>
    %b = tile.local_load %bb [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<32x64xf16, #dot_b>
    %d = tile.mma %a, %b, %acc : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>
#sv = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// Flash attention: K with latency 2 (S = 2, d = 1), V with latency 4 (S = 4,
// d = 3), D = 3, n = 2. V's wait (after the softmax) joins K's at the first
// wait. Issue order:
//   v = -3: K(-2)=off V(0)   v = -2: K(-1)=off V(1)   v = -1: K(0) V(2)
//   j: [waits] K(j+1) V(j+3)
// At the waits of iteration j the last groups are ... K(j) V(j+2): K(j) is
// followed by V(j+2) only: pending 1 = (2 - 1 - 0) + 2 * (2 - 2) + 0. V(j),
// the last group of iteration j - 3, is followed by the groups of iterations
// j - 2 and j - 1, K(j-1) V(j+1) K(j) V(j+2): pending 4 = (2 - 1 - 1) +
// 2 * (4 - 2) + 0.
// The K copies of the virtual iterations before the first are predicated on
// a constant false, into slot 0, with the first iteration's operands.
// CHECK-DAG:   #[[RSK:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 2, 0]>
// CHECK-DAG:   #[[RSV:[[:alnum:]_]+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
// CHECK-LABEL: func.func @attention
// CHECK-SAME:  (%[[Q:.*]]: tensor<64x64xf16, #dot_a>, %[[K:.*]]: !tile.global<f16, 2>, %[[V:.*]]: !tile.global<f16, 2>, %[[N:.*]]: i32)
// CHECK:       %[[RK:.*]] = tile.smem_alloc : <[2, 64, 64], f16, #[[RSK]]>
// CHECK-NEXT:  %[[RV:.*]] = tile.smem_alloc : <[4, 64, 64], f16, #[[RSV]]>
// CHECK-NEXT:  %[[FALSE:.*]] = arith.constant false
// v = -3: K for iteration -2 (off), V for iteration 0.
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RK]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[K]][%[[IV]], %{{.*}}], %[[X]] if %[[FALSE]] {latency = 2 : i32
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[N]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RV]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[V]][%[[IV]], %{{.*}}], %[[X]] if %[[P]] {latency = 4 : i32
// v = -2: K for iteration -1 (off), V for iteration 1.
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RK]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[K]][%[[IV]], %{{.*}}], %[[X]] if %[[FALSE]] {latency = 2 : i32
// CHECK-NEXT:  %[[T:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[N]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RV]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[V]][%[[IV]], %{{.*}}], %[[X]] if %[[P]] {latency = 4 : i32
// v = -1: K for iteration 0, V for iteration 2.
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[N]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RK]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[K]][%[[IV]], %{{.*}}], %[[X]] if %[[P]] {latency = 2 : i32
// CHECK-NEXT:  %[[T:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %{{.*}}, %[[T]]
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[N]]
// CHECK-NEXT:  %[[S:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[RV]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[V]][%[[IV]], %{{.*}}], %[[X]] if %[[P]] {latency = 4 : i32
// CHECK-NEXT:  %[[IT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %[[STEP:[^ ]*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[IT:.*]] = %[[IT0]])
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[RS:.*]] = arith.remui %[[IT]], %[[C4]] : i32
// CHECK-NEXT:    %[[VV:.*]] = tile.smem_slot %[[RV]][%[[RS]]]
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[RS:.*]] = arith.remui %[[IT]], %[[C2]] : i32
// CHECK-NEXT:    %[[VK:.*]] = tile.smem_slot %[[RK]][%[[RS]]]
// CHECK-NEXT:    tile.async_wait %[[VK]] {pending = 1 : i32}
// CHECK-NEXT:    tile.async_wait %[[VV]] {pending = 4 : i32}
// K(j + 1) into slot (it + 1) % 2, if iv + 1 * step < ub.
// CHECK-NEXT:    %[[D:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[STEP]], %[[D]] : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[J]], %[[O]] : i32
// CHECK-NEXT:    %[[P:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK-NEXT:    %[[S:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[D:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[IT]], %[[D]] : i32
// CHECK-NEXT:    %[[WS:.*]] = arith.remui %[[W]], %[[S]] : i32
// CHECK-NEXT:    %[[X:.*]] = tile.smem_slot %[[RK]][%[[WS]]]
// CHECK-NEXT:    tile.async_copy %[[K]][%[[NEXT]], %{{.*}}], %[[X]] if %[[P]] {latency = 2 : i32
// V(j + 3) into slot (it + 3) % 4, if iv + 3 * step < ub.
// CHECK-NEXT:    %[[D:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[STEP]], %[[D]] : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[J]], %[[O]] : i32
// CHECK-NEXT:    %[[P:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK-NEXT:    %[[S:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[D:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[IT]], %[[D]] : i32
// CHECK-NEXT:    %[[WS:.*]] = arith.remui %[[W]], %[[S]] : i32
// CHECK-NEXT:    %[[X:.*]] = tile.smem_slot %[[RV]][%[[WS]]]
// CHECK-NEXT:    tile.async_copy %[[V]][%[[NEXT]], %{{.*}}], %[[X]] if %[[P]] {latency = 4 : i32
// CHECK-NEXT:    %[[LK:.*]] = tile.local_load %[[VK]] [0, 0]
// CHECK-NEXT:    %[[S:.*]] = tile.mma %[[Q]], %[[LK]]
// CHECK-NEXT:    arith.truncf %[[S]]
// CHECK-NEXT:    %[[PA:.*]] = tile.convert_layout
// CHECK-NEXT:    %[[LV:.*]] = tile.local_load %[[VV]] [0, 0]
// CHECK-NEXT:    tile.mma %[[PA]], %[[LV]], %[[ACC]]
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
func.func @attention(%q: tensor<64x64xf16, #dot_a>, %K: !tile.global<f16, 2>, %V: !tile.global<f16, 2>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %bk = tile.smem_alloc : !tile.smem<[64, 64], f16, #sk>
    tile.async_copy %K[%j, %c0], %bk {layout = #blocked1, order = array<i32: 1, 0>, shape = array<i64: 64, 64>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sk>
    tile.async_wait %bk : !tile.smem<[64, 64], f16, #sk>
    %k = tile.local_load %bk [0, 0] : !tile.smem<[64, 64], f16, #sk> -> tensor<64x64xf16, #dot_b>
    %s = tile.mma %q, %k, %z : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %p = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %bv = tile.smem_alloc : !tile.smem<[64, 64], f16, #sv>
    tile.async_copy %V[%j, %c0], %bv {layout = #blocked, shape = array<i64: 64, 64>, latency = 4 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 64], f16, #sv>
    tile.async_wait %bv : !tile.smem<[64, 64], f16, #sv>
    %v = tile.local_load %bv [0, 0] : !tile.smem<[64, 64], f16, #sv> -> tensor<64x64xf16, #dot_b>
    %o = tile.mma %pa, %v, %acc : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %o : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// The loop's schedule gives every copy of the loop its stages (3): the copy
// without a hint, the one with a latency hint of 2, and whatever
// default-stages or num-stages say (with warn, that num-stages does not
// apply is said); the loop keeps its schedule. Two copies per iteration:
// A(j) is followed by B(j) A(j+1) B(j+1) before its wait, pending 3.
// CHECK-LABEL: func.func @num_stages_attribute
// CHECK:       %[[R:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// CHECK:       %[[RB:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// CHECK-COUNT-4: tile.async_copy %{{.*}}, %{{.*}} if %{{.*}} {
// CHECK-NOT:   tile.async_copy
// CHECK:       scf.for
// CHECK:       %[[VA:.*]] = tile.smem_slot %[[R]]
// CHECK:       tile.async_wait %[[VA]] {pending = 3 : i32}
// CHECK:       tile.async_copy
// CHECK:       } {tile.pipelined, tile.schedule = #tile.schedule<num_stages = 3>}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
// DEF3-LABEL:  func.func @num_stages_attribute
// DEF3-COUNT-2: tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// DEF3:        } {tile.pipelined, tile.schedule = #tile.schedule<num_stages = 3>}
// TWO-LABEL:   func.func @num_stages_attribute
// TWO-COUNT-2: tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// TWO:         } {tile.pipelined, tile.schedule = #tile.schedule<num_stages = 3>}
// ONE-LABEL:   func.func @num_stages_attribute
// ONE-COUNT-2: tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// ONE:         } {tile.pipelined, tile.schedule = #tile.schedule<num_stages = 3>}
// WARN:        warning: num_stages=2 does not apply to this loop: its schedule gives num_stages=3
func.func @num_stages_attribute(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%k, %m], %bb {layout = #blocked, shape = array<i64: 64, 32>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
    %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    %t = arith.addf %s, %b : tensor<64x32xf16, #dot_a>
    scf.yield %t : tensor<64x32xf16, #dot_a>
  } {tile.schedule = #tile.schedule<num_stages = 3>}
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// No hint and no loop attribute: default-stages (2 by default; 3 with
// default-stages=3). With 2 stages the only copy of an iteration is followed
// by nothing when its wait comes: pending 0.
// CHECK-LABEL: func.func @default_stages
// CHECK:       %[[R:.*]] = tile.smem_alloc : <[2, 64, 32], f16, #{{.*}}>
// CHECK-COUNT-1: tile.async_copy %{{.*}}, %{{.*}} if %{{.*}} {layout
// CHECK-NOT:   tile.async_copy
// CHECK:       scf.for
// CHECK:       %[[VA:.*]] = tile.smem_slot %[[R]]
// CHECK-NEXT:  tile.async_wait %[[VA]] : !tile.smem<[64, 32], f16
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
// DEF3-LABEL:  func.func @default_stages
// DEF3:        %[[R:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// DEF3-COUNT-2: tile.async_copy %{{.*}}, %{{.*}} if %{{.*}} {layout
// DEF3-NOT:    tile.async_copy
// DEF3:        scf.for
// DEF3:        %[[VA:.*]] = tile.smem_slot %[[R]]
// DEF3-NEXT:   tile.async_wait %[[VA]] {pending = 1 : i32}
// DEF3:        } {tile.pipelined}
// ONE-LABEL:   func.func @default_stages
// ONE-NOT:     tile.smem_slot
// ONE:         scf.yield
// ONE-NEXT:    {{^ *}}}{{$}}
func.func @default_stages(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// An index-typed loop: the iterations ahead and the predicates are computed
// in index (lb + 0 * step < ub before the loop, iv + 1 * step < ub in it),
// the slot counter in i32, and the copy's i32 index is recomputed from them
// (the index_cast its operand came from is cloned).
// CHECK-LABEL: func.func @index_loop
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[M:.*]]: i32, %[[N:.*]]: index)
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:  arith.constant dense
// CHECK-NEXT:  %[[R:.*]] = tile.smem_alloc : <[2, 64, 32], f16, #{{.*}}>
// CHECK-NEXT:  arith.constant false
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C1]], %[[T]] : index
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %[[C0]], %[[O]] : index
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[N]] : index
// CHECK-NEXT:  %[[I:.*]] = arith.index_cast %[[IV]] : index to i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[R]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[I]]], %[[X]] if %[[P]]
// CHECK-NEXT:  %[[IT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  scf.for %[[K:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %[[IT0]]) -> (tensor<64x32xf16, #dot_a>, i32) {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[RS:.*]] = arith.remui %[[IT]], %[[C2]] : i32
// CHECK-NEXT:    %[[VA:.*]] = tile.smem_slot %[[R]][%[[RS]]]
// CHECK-NEXT:    arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:    tile.async_wait %[[VA]] : !tile.smem
// CHECK-NEXT:    %[[D:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[C1]], %[[D]] : index
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[K]], %[[O]] : index
// CHECK-NEXT:    %[[P:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[D:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[IT]], %[[D]] : i32
// CHECK-NEXT:    %[[WS:.*]] = arith.remui %[[W]], %[[C2]] : i32
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[NEXT]] : index to i32
// CHECK-NEXT:    %[[X:.*]] = tile.smem_slot %[[R]][%[[WS]]]
// CHECK-NEXT:    tile.async_copy %[[A]][%[[M]], %[[I]]], %[[X]] if %[[P]]
// CHECK-NEXT:    tile.local_load %[[VA]] [0, 0]
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
func.func @index_loop(%A: !tile.global<f16, 2>, %m: i32, %n: index) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) {
    %ki = arith.index_cast %k : index to i32
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %ki], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A loop from %lb to %ub by 32, with the tile index computed in the body
// (k / 32): the iterations ahead are lb + t * 32 and iv + d * 32, and the
// division is cloned for each copy.
// CHECK-LABEL: func.func @step
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[M:.*]]: i32, %[[LB:.*]]: i32, %[[UB:.*]]: i32)
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  arith.constant dense
// CHECK-NEXT:  %[[R:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// CHECK-NEXT:  arith.constant false
// CHECK-NEXT:  %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C32]], %[[T]] : i32
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %[[LB]], %[[O]] : i32
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[UB]] : i32
// CHECK-NEXT:  %[[I:.*]] = arith.divsi %[[IV]], %[[C32]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[R]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[I]]], %[[X]] if %[[P]]
// CHECK-NEXT:  %[[T:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[O:.*]] = arith.muli %[[C32]], %[[T]] : i32
// CHECK-NEXT:  %[[IV:.*]] = arith.addi %[[LB]], %[[O]] : i32
// CHECK-NEXT:  %[[P:.*]] = arith.cmpi slt, %[[IV]], %[[UB]] : i32
// CHECK-NEXT:  %[[I:.*]] = arith.divsi %[[IV]], %[[C32]] : i32
// CHECK-NEXT:  %[[S:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[X:.*]] = tile.smem_slot %[[R]][%[[S]]]
// CHECK-NEXT:  tile.async_copy %[[A]][%[[M]], %[[I]]], %[[X]] if %[[P]]
// CHECK-NEXT:  %[[IT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[C32]] iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %[[IT0]])
// CHECK:         %[[VA:.*]] = tile.smem_slot %[[R]]
// CHECK-NEXT:    arith.divsi %[[K]], %[[C32]]
// CHECK-NEXT:    tile.async_wait %[[VA]] {pending = 1 : i32}
// CHECK-NEXT:    %[[D:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.muli %[[C32]], %[[D]] : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[K]], %[[O]] : i32
// CHECK-NEXT:    %[[P:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK:         %[[I:.*]] = arith.divsi %[[NEXT]], %[[C32]] : i32
// CHECK-NEXT:    %[[X:.*]] = tile.smem_slot %[[R]]
// CHECK-NEXT:    tile.async_copy %[[A]][%[[M]], %[[I]]], %[[X]] if %[[P]]
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
func.func @step(%A: !tile.global<f16, 2>, %m: i32, %lb: i32, %ub: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c32 = arith.constant 32 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %lb to %ub step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %kt = arith.divsi %k, %c32 : i32
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %kt], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// One copy with one stage (C: latency 1) beside one with
// 3 (A, latency 3). C is issued right before its own wait, which comes
// before A's, into a ring of 1; its wait keeps pending 0. Issue order:
//   v = -2: C(off) A(0)   v = -1: C(off) A(1)   j: C(j) [waits] A(j+2)
// A(j) is followed by C(off/j-1) A(j+1) C(j) when its wait comes: pending 3
// = (2 - 1 - 1) + 2 * (3 - 2) + 1 (C is issued before the group).
// CHECK-LABEL: func.func @one_stage_copy
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[C:.*]]: !tile.global<f16, 2>, %[[M:.*]]: i32, %[[N:.*]]: i32)
// CHECK:       %[[RC:.*]] = tile.smem_alloc : <[1, 64, 32], f16, #{{.*}}>
// CHECK-NEXT:  %[[RA:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// CHECK-NEXT:  %[[FALSE:.*]] = arith.constant false
// CHECK:       tile.async_copy %[[C]][%{{.*}}], %{{.*}} if %[[FALSE]]
// CHECK:       tile.async_copy %[[A]][%{{.*}}], %{{.*}} if %{{.*}} {latency = 3 : i32
// CHECK:       tile.async_copy %[[C]][%{{.*}}], %{{.*}} if %[[FALSE]]
// CHECK:       tile.async_copy %[[A]][%{{.*}}], %{{.*}} if %{{.*}} {latency = 3 : i32
// CHECK-NEXT:  %[[IT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IT:.*]] = %[[IT0]])
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.remui %[[IT]]
// CHECK-NEXT:    %[[VA:.*]] = tile.smem_slot %[[RA]]
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[VC:.*]] = tile.smem_slot %[[RC]][%[[Z]]]
// CHECK-NEXT:    tile.async_copy %[[C]][%[[M]], %[[K]]], %[[VC]] {latency = 1 : i32, layout
// CHECK-NEXT:    tile.async_wait %[[VC]] : !tile.smem
// CHECK-NEXT:    %[[LC:.*]] = tile.local_load %[[VC]]
// CHECK-NEXT:    tile.async_wait %[[VA]] {pending = 3 : i32}
// CHECK:         tile.async_copy %[[A]]
// CHECK-NEXT:    tile.local_load %[[VA]]
// CHECK:       } {tile.pipelined}
// CHECK-NEXT:  tile.async_wait all{{ *$}}
func.func @one_stage_copy(%A: !tile.global<f16, 2>, %C: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %bc = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %C[%m, %k], %bc {layout = #blocked, shape = array<i64: 64, 32>, latency = 1 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %bc : !tile.smem<[64, 32], f16, #sa>
    %c = tile.local_load %bc [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    %t = arith.addf %s, %c : tensor<64x32xf16, #dot_a>
    scf.yield %t : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// The copy issued first (A) is read after the other (B): the waits go
// together where B's was, the earliest, before any read of either slot
// (attention backward's dQ kernel: K, loaded first, is read by its last
// multiply, K^T by its first). B's wait, k = 1 in the issue order, pending
// (2 - 1 - 1) + 2 * (3 - 2) = 2; A's 3.
// CHECK-LABEL: func.func @first_copy_read_last
// CHECK:       %[[RA:.*]] = tile.smem_alloc
// CHECK-NEXT:  %[[RB:.*]] = tile.smem_alloc
// CHECK:       scf.for
// CHECK:         %[[VB:.*]] = tile.smem_slot %[[RB]]
// CHECK:         %[[VA:.*]] = tile.smem_slot %[[RA]]
// CHECK-NEXT:    tile.async_wait %[[VA]] {pending = 3 : i32}
// CHECK-NEXT:    tile.async_wait %[[VB]] {pending = 2 : i32}
// CHECK:         tile.async_copy
// CHECK:         tile.async_copy
// CHECK-NEXT:    %[[LB:.*]] = tile.local_load %[[VB]]
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    %[[LA:.*]] = tile.local_load %[[VA]]
// CHECK:       } {tile.pipelined}
func.func @first_copy_read_last(%A: !tile.global<f16, 2>, %B: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    %bb = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %B[%m, %k], %bb {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %bb : !tile.smem<[64, 32], f16, #sa>
    %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %b : tensor<64x32xf16, #dot_a>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %t = arith.addf %s, %a : tensor<64x32xf16, #dot_a>
    scf.yield %t : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Left alone: every copy with one stage (latency 1); a copy whose index
// depends on a loop-carried value (the iteration it is for cannot be
// computed ahead); a copy under an scf.if in the body (the number of copy
// groups per iteration would vary).
// CHECK-LABEL: func.func @latency_one
// CHECK-NOT:   tile.smem_slot
// CHECK:       scf.for
// CHECK-NEXT:    %[[BA:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// CHECK-NEXT:    tile.async_copy %{{.*}}, %[[BA]] {latency = 1 : i32
// CHECK-NEXT:    tile.async_wait %[[BA]] : !tile.smem
// CHECK:         scf.yield
// CHECK-NEXT:  {{^ *}}}{{$}}
// CHECK-NEXT:  return
func.func @latency_one(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 1 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// CHECK-LABEL: func.func @loop_carried_index
// CHECK-NOT:   tile.smem_slot
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IDX:.*]] = %{{.*}}) -> (tensor<64x32xf16, #dot_a>, i32) : i32 {
// CHECK-NEXT:    %[[BA:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// CHECK-NEXT:    tile.async_copy %{{.*}}[%[[IDX]], %[[K]]], %[[BA]] {latency = 3 : i32
// CHECK-NEXT:    tile.async_wait %[[BA]] : !tile.smem
// CHECK:         scf.yield
// CHECK-NEXT:  {{^ *}}}{{$}}
// CHECK-NEXT:  return
func.func @loop_carried_index(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %idx = %m) -> (tensor<64x32xf16, #dot_a>, i32) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%idx, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    %next = arith.addi %idx, %c1 : i32
    scf.yield %s, %next : tensor<64x32xf16, #dot_a>, i32
  }
  return %r#0 : tensor<64x32xf16, #dot_a>
}

// CHECK-LABEL: func.func @copy_in_branch
// CHECK-NOT:   tile.smem_slot
// CHECK:       scf.for
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      %[[BA:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// CHECK-NEXT:      tile.async_copy %{{.*}}, %[[BA]] {latency = 3 : i32
// CHECK-NEXT:      tile.async_wait %[[BA]] : !tile.smem
// CHECK:         } else {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  {{^ *}}}{{$}}
// CHECK-NEXT:  return
func.func @copy_in_branch(%A: !tile.global<f16, 2>, %m: i32, %n: i32, %p: i1) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %s = scf.if %p -> (tensor<64x32xf16, #dot_a>) {
      %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
      tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
      tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
      %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
      %t = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
      scf.yield %t : tensor<64x32xf16, #dot_a>
    } else {
      scf.yield %acc : tensor<64x32xf16, #dot_a>
    }
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Nested loops: the inner loop is pipelined, with its prologue and its final
// wait in the outer body; the outer loop, whose copies are then nested in
// the inner one, is not, but carries the inner loop's ring (allocated
// before it) and its counter from trip to trip, as a persistent kernel's
// tile loop does: each trip's prologue fills the slots (base + t) mod 3.
// CHECK-LABEL: func.func @nested
// CHECK:       %[[R:.*]] = tile.smem_alloc : <[3, 64, 32], f16, #{{.*}}>
// CHECK-NEXT:  %[[O:.*]]:2 = scf.for %[[I:[[:alnum:]_]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[BASE:.*]] = %{{.*}}) -> (tensor<64x32xf16, #dot_a>, i32) : i32 {
// CHECK:         %[[F:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// CHECK:         arith.remui %[[F]], %{{.*}} : i32
// CHECK-COUNT-2: tile.async_copy %{{.*}}[%[[I]], %{{.*}}], %{{.*}} if
// CHECK:         %[[K:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[BASE]])
// CHECK:           tile.async_wait %{{.*}} {pending = 1 : i32}
// CHECK:         } {tile.pipelined}
// CHECK-NEXT:    tile.async_wait all{{ *$}}
// CHECK-NEXT:    scf.yield %[[K]]#0, %[[K]]#1
// CHECK-NEXT:  {{^ *}}}{{$}}
// CHECK-NEXT:  return %[[O]]#0
func.func @nested(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%acc0 = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %r1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x32xf16, #dot_a>) : i32 {
      %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
      tile.async_copy %A[%i, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
      tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
      %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
      %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
      scf.yield %s : tensor<64x32xf16, #dot_a>
    }
    scf.yield %r1 : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A copy issued before the loop (the Q tile of attention), waited for and
// read before it. The prologue goes right before the loop, after that read:
// the ring's memory may then reuse the buffer read before the loop (as the
// attention kernel's V ring reuses Q's once Q is in registers), at the cost
// of not overlapping the wait for Q with the prologue.
// CHECK-LABEL: func.func @wait_before_loop
// CHECK-SAME:  (%[[A:.*]]: !tile.global<f16, 2>, %[[Q:.*]]: !tile.global<f16, 2>, %{{.*}}: i32, %{{.*}}: i32)
// CHECK:       %[[BQ:.*]] = tile.smem_alloc : <[64, 32], f16, #{{.*}}>
// CHECK-NEXT:  tile.async_copy %[[Q]][%{{.*}}], %[[BQ]] {layout
// CHECK-NEXT:  tile.async_wait %[[BQ]] :
// CHECK-NEXT:  tile.local_load %[[BQ]]
// CHECK:       tile.async_copy %[[A]][%{{.*}}], %{{.*}} if %{{.*}} {latency = 3 : i32
// CHECK:       tile.async_copy %[[A]][%{{.*}}], %{{.*}} if %{{.*}} {latency = 3 : i32
// CHECK:       scf.for
// CHECK:       } {tile.pipelined}
func.func @wait_before_loop(%A: !tile.global<f16, 2>, %Q: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bq = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
  tile.async_copy %Q[%m, %c0], %bq {layout = #blocked, shape = array<i64: 64, 32>} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
  tile.async_wait %bq : !tile.smem<[64, 32], f16, #sa>
  %q = tile.local_load %bq [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %q) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 3 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A loop with an unsigned comparison (scf.for unsigned): the predicates of
// the copies ahead must compare as the loop does, unsigned (an upper bound of
// 2^31 or more is negative as a signed i32: with `slt` no copy would be
// issued and the loop would read buffers nothing was copied into).
// CHECK-LABEL: func.func @unsigned_loop
// CHECK-SAME:  (%{{.*}}: !tile.global<f16, 2>, %{{.*}}: i32, %[[N:.*]]: i32)
// CHECK:       arith.cmpi ult, %{{.*}}, %[[N]] : i32
// CHECK:       tile.async_copy
// CHECK:       scf.for unsigned
// CHECK:       arith.cmpi ult, %{{.*}}, %[[N]] : i32
// CHECK:       tile.async_copy
// CHECK:       } {tile.pipelined}
func.func @unsigned_loop(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for unsigned %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 2 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A latency hint past the deepest ring !tile.smem holds (16 stages) gets 16.
// CHECK-LABEL: func.func @deep_hint
// CHECK:       tile.smem_alloc : <[16, 64, 32], f16, #{{.*}}>
// CHECK:       } {tile.pipelined}
func.func @deep_hint(%A: !tile.global<f16, 2>, %m: i32, %n: i32) -> tensor<64x32xf16, #dot_a> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #dot_a>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf16, #dot_a>) : i32 {
    %ba = tile.smem_alloc : !tile.smem<[64, 32], f16, #sa>
    tile.async_copy %A[%m, %k], %ba {layout = #blocked, shape = array<i64: 64, 32>, latency = 33 : i32} : !tile.global<f16, 2>, !tile.smem<[64, 32], f16, #sa>
    tile.async_wait %ba : !tile.smem<[64, 32], f16, #sa>
    %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
    %s = arith.addf %acc, %a : tensor<64x32xf16, #dot_a>
    scf.yield %s : tensor<64x32xf16, #dot_a>
  }
  return %r : tensor<64x32xf16, #dot_a>
}

// -----

// A loop of loads that feed no multiply: nothing is copied into shared
// memory, so nothing is pipelined; num_stages, asked for (warn), is said
// not to apply (and only here: every other function of this file copies).
// CHECK-LABEL: func.func @no_copies
// CHECK-NOT:   tile.async_copy
// NOCOPY-NOT:  warning: num_stages
// NOCOPY:      pipeline.mlir:[[# @LINE + 2]]:1: warning: num_stages=3 does not apply to this kernel: no loop of it copies tiles into shared memory to pipeline (only the loads that feed a multiply are)
// NOCOPY-NOT:  warning: num_stages
func.func @no_copies(%A: !tile.global<f32, 1>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tile.load %A[%i] : !tile.global<f32, 1> -> tensor<128xf32>
    tile.store %A[%i], %x : !tile.global<f32, 1>, tensor<128xf32>
  }
  return
}
