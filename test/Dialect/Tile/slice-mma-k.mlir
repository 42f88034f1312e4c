// RUN: tile-opt %s -split-input-file --tile-slice-mma-k | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-slice-mma-k=max-invariant-registers=8 | FileCheck %s --check-prefix=FEW

// tile-slice-mma-k splits a tile.mma along K into a chain of mmas over K
// slices of 16 (the K of mma.sync.m16n8k16; 32 for 8-bit operands, that
// of m16n8k32), chained through the
// accumulator:
//  - an operand read whole from shared memory (a tile.local_load of the
//    whole buffer) is read slice by slice (tile.local_load at offset k along
//    K: [0, k] for A, [k, 0] for B) right before each step, and the whole
//    read is erased once nothing else uses it;
//  - an operand held in registers is sliced with tile.extract;
//  - an operand read whole outside the mma's block (a loop-invariant operand
//    read before the loop) is read slice by slice where the whole read was,
//    once, and the slices stay in registers across the loop, when that costs
//    each thread at most max-invariant-registers (32) 32-bit registers;
//    otherwise its slices are read in the loop like the others;
//  - a register-only mma with K = 16 and an mma whose K is not a multiple of
//    16 are left alone.

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// Both operands read whole from shared memory, K = 64: four steps, each
// reading its slices of A ([0, k]) and B ([k, 0]) right before its mma; the
// whole reads are gone.
// CHECK-LABEL: func.func @smem_operands
// CHECK-SAME:  (%[[BA:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[BB:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[C:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[A0:.*]] = tile.local_load %[[BA]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[B0:.*]] = tile.local_load %[[BB]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D0:.*]] = tile.mma %[[A0]], %[[B0]], %[[C]] : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[A1:.*]] = tile.local_load %[[BA]] [0, 16] : {{.*}} -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[B1:.*]] = tile.local_load %[[BB]] [16, 0] : {{.*}} -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D1:.*]] = tile.mma %[[A1]], %[[B1]], %[[D0]]
// CHECK-NEXT:  %[[A2:.*]] = tile.local_load %[[BA]] [0, 32]
// CHECK-NEXT:  %[[B2:.*]] = tile.local_load %[[BB]] [32, 0]
// CHECK-NEXT:  %[[D2:.*]] = tile.mma %[[A2]], %[[B2]], %[[D1]]
// CHECK-NEXT:  %[[A3:.*]] = tile.local_load %[[BA]] [0, 48]
// CHECK-NEXT:  %[[B3:.*]] = tile.local_load %[[BB]] [48, 0]
// CHECK-NEXT:  %[[D3:.*]] = tile.mma %[[A3]], %[[B3]], %[[D2]]
// CHECK-NEXT:  return %[[D3]]
func.func @smem_operands(%ba: !tile.smem<[64, 64], f16, #sa>, %bb: !tile.smem<[64, 64], f16, #sb>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 64], f16, #sa> -> tensor<64x64xf16, #dot_a>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 64], f16, #sb> -> tensor<64x64xf16, #dot_b>
  %d = tile.mma %a, %b, %c : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Operands in registers, K = 32: two steps over tile.extract slices.
// CHECK-LABEL: func.func @register_operands
// CHECK-SAME:  (%[[A:.*]]: tensor<64x32xf16, #dot_a>, %[[B:.*]]: tensor<32x64xf16, #dot_b>, %[[C:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[A0:.*]] = tile.extract %[[A]] [0, 0] : tensor<64x32xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[B0:.*]] = tile.extract %[[B]] [0, 0] : tensor<32x64xf16, #dot_b> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D0:.*]] = tile.mma %[[A0]], %[[B0]], %[[C]] : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[A1:.*]] = tile.extract %[[A]] [0, 16] : tensor<64x32xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[B1:.*]] = tile.extract %[[B]] [16, 0] : tensor<32x64xf16, #dot_b> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D1:.*]] = tile.mma %[[A1]], %[[B1]], %[[D0]]
// CHECK-NEXT:  return %[[D1]]
func.func @register_operands(%a: tensor<64x32xf16, #dot_a>, %b: tensor<32x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %d = tile.mma %a, %b, %c : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sb = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// A in registers (the P tile of attention), B read whole from shared memory:
// extract slices of A, local_load slices of B. A read of part of a buffer
// (here the top half of a 64x64 buffer) is not a whole-buffer read: the
// operand it gives is sliced in registers, and the read stays.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME:  (%[[P:.*]]: tensor<64x32xf16, #dot_a>, %[[BV:.*]]: !tile.smem<[32, 64], f16, #{{.*}}>, %[[BW:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[C:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[W:.*]] = tile.local_load %[[BW]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<32x64xf16, #dot_b>
// CHECK-NEXT:  %[[P0:.*]] = tile.extract %[[P]] [0, 0] : tensor<64x32xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[V0:.*]] = tile.local_load %[[BV]] [0, 0] : <[32, 64], f16, #{{.*}}> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D0:.*]] = tile.mma %[[P0]], %[[V0]], %[[C]]
// CHECK-NEXT:  %[[P1:.*]] = tile.extract %[[P]] [0, 16]
// CHECK-NEXT:  %[[V1:.*]] = tile.local_load %[[BV]] [16, 0]
// CHECK-NEXT:  %[[D1:.*]] = tile.mma %[[P1]], %[[V1]], %[[D0]]
// CHECK-NEXT:  %[[Q0:.*]] = tile.extract %[[P]] [0, 0]
// CHECK-NEXT:  %[[W0:.*]] = tile.extract %[[W]] [0, 0] : tensor<32x64xf16, #dot_b> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[E0:.*]] = tile.mma %[[Q0]], %[[W0]], %[[D1]]
// CHECK-NEXT:  %[[Q1:.*]] = tile.extract %[[P]] [0, 16]
// CHECK-NEXT:  %[[W1:.*]] = tile.extract %[[W]] [16, 0]
// CHECK-NEXT:  %[[E1:.*]] = tile.mma %[[Q1]], %[[W1]], %[[E0]]
// CHECK-NEXT:  return %[[E1]]
func.func @mixed(%p: tensor<64x32xf16, #dot_a>, %bv: !tile.smem<[32, 64], f16, #sb>, %bw: !tile.smem<[64, 64], f16, #sb>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %w = tile.local_load %bw [0, 0] : !tile.smem<[64, 64], f16, #sb> -> tensor<32x64xf16, #dot_b>
  %v = tile.local_load %bv [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<32x64xf16, #dot_b>
  %d = tile.mma %p, %v, %c : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %e = tile.mma %p, %w, %d : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %e : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Left alone: K = 16 with both operands in registers (already one step), and
// K = 8, not a multiple of 16 (the lowering reports the shape).
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME:  (%[[A:.*]]: tensor<64x16xf16, #dot_a>, %[[B:.*]]: tensor<16x64xf16, #dot_b>, %[[C:.*]]: tensor<64x64xf32, #mma>, %[[A8:.*]]: tensor<64x8xf16, #dot_a>, %[[B8:.*]]: tensor<8x64xf16, #dot_b>)
// CHECK-NEXT:  %[[D:.*]] = tile.mma %[[A]], %[[B]], %[[C]] : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[E:.*]] = tile.mma %[[A8]], %[[B8]], %[[D]] : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>, tensor<64x64xf32, #mma>
// CHECK-NEXT:  return %[[E]]
func.func @left_alone(%a: tensor<64x16xf16, #dot_a>, %b: tensor<16x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>,
                      %a8: tensor<64x8xf16, #dot_a>, %b8: tensor<8x64xf16, #dot_b>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %d = tile.mma %a, %b, %c : tensor<64x16xf16, #dot_a>, tensor<16x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  %e = tile.mma %a8, %b8, %d : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %e : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// K = 8 from shared memory is left alone too, whole reads included.
// CHECK-LABEL: func.func @k8_smem
// CHECK-NEXT:  %[[A:.*]] = tile.local_load %{{.*}} [0, 0] : <[64, 8], f16, #{{.*}}> -> tensor<64x8xf16, #dot_a>
// CHECK-NEXT:  %[[B:.*]] = tile.local_load %{{.*}} [0, 0] : <[8, 64], f16, #{{.*}}> -> tensor<8x64xf16, #dot_b>
// CHECK-NEXT:  %[[D:.*]] = tile.mma %[[A]], %[[B]], %{{.*}} : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>
// CHECK-NEXT:  return %[[D]]
func.func @k8_smem(%ba: !tile.smem<[64, 8], f16, #sa>, %bb: !tile.smem<[8, 64], f16, #sb>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 8], f16, #sa> -> tensor<64x8xf16, #dot_a>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[8, 64], f16, #sb> -> tensor<8x64xf16, #dot_b>
  %d = tile.mma %a, %b, %c : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// The Q tile of attention: read whole before the loop, used by the mma in
// the loop. Its four slices are read before the loop, where the whole read
// was (once, not again each iteration), and the whole read is erased; the K
// tile, read whole in the loop, is read slice by slice in the loop, each
// slice right before its step.
// CHECK-LABEL: func.func @loop_invariant
// CHECK-SAME:  (%[[BQ:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[BK:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[N:.*]]: i32)
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT:  %[[Q0:.*]] = tile.local_load %[[BQ]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[Q1:.*]] = tile.local_load %[[BQ]] [0, 16] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[Q2:.*]] = tile.local_load %[[BQ]] [0, 32] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[Q3:.*]] = tile.local_load %[[BQ]] [0, 48] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]])
// CHECK-NEXT:    %[[K0:.*]] = tile.local_load %[[BK]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:    %[[S0:.*]] = tile.mma %[[Q0]], %[[K0]], %[[ACC]]
// CHECK-NEXT:    %[[K1:.*]] = tile.local_load %[[BK]] [16, 0]
// CHECK-NEXT:    %[[S1:.*]] = tile.mma %[[Q1]], %[[K1]], %[[S0]]
// CHECK-NEXT:    %[[K2:.*]] = tile.local_load %[[BK]] [32, 0]
// CHECK-NEXT:    %[[S2:.*]] = tile.mma %[[Q2]], %[[K2]], %[[S1]]
// CHECK-NEXT:    %[[K3:.*]] = tile.local_load %[[BK]] [48, 0]
// CHECK-NEXT:    %[[S3:.*]] = tile.mma %[[Q3]], %[[K3]], %[[S2]]
// CHECK-NEXT:    scf.yield %[[S3]]
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[R]]
// With at most 8 registers per thread for it, Q (64 x 64 f16 over 128
// threads: 32 halves, 16 registers per thread) is read slice by slice in the
// loop; the whole read before the loop is gone all the same.
// FEW-LABEL:   func.func @loop_invariant
// FEW-SAME:    (%[[BQ:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[BK:.*]]: !tile.smem<[64, 64], f16, #{{.*}}>, %[[N:.*]]: i32)
// FEW-NOT:     tile.local_load
// FEW:         scf.for
// FEW-NEXT:      %[[Q0:.*]] = tile.local_load %[[BQ]] [0, 0] : <[64, 64], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// FEW-NEXT:      %[[K0:.*]] = tile.local_load %[[BK]] [0, 0]
// FEW-NEXT:      %[[S0:.*]] = tile.mma %[[Q0]], %[[K0]]
// FEW-NEXT:      %[[Q1:.*]] = tile.local_load %[[BQ]] [0, 16]
// FEW-NEXT:      %[[K1:.*]] = tile.local_load %[[BK]] [16, 0]
// FEW-NEXT:      %[[S1:.*]] = tile.mma %[[Q1]], %[[K1]], %[[S0]]
// FEW-NEXT:      %[[Q2:.*]] = tile.local_load %[[BQ]] [0, 32]
// FEW-NEXT:      %[[K2:.*]] = tile.local_load %[[BK]] [32, 0]
// FEW-NEXT:      %[[S2:.*]] = tile.mma %[[Q2]], %[[K2]], %[[S1]]
// FEW-NEXT:      %[[Q3:.*]] = tile.local_load %[[BQ]] [0, 48]
// FEW-NEXT:      %[[K3:.*]] = tile.local_load %[[BK]] [48, 0]
// FEW-NEXT:      %[[S3:.*]] = tile.mma %[[Q3]], %[[K3]], %[[S2]]
// FEW-NEXT:      scf.yield %[[S3]]
func.func @loop_invariant(%bq: !tile.smem<[64, 64], f16, #sa>, %bk: !tile.smem<[64, 64], f16, #sb>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %q = tile.local_load %bq [0, 0] : !tile.smem<[64, 64], f16, #sa> -> tensor<64x64xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = tile.local_load %bk [0, 0] : !tile.smem<[64, 64], f16, #sb> -> tensor<64x64xf16, #dot_b>
    %s = tile.mma %q, %k, %acc : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %s : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// A whole read that has another use stays (here it is also returned); the
// mma still reads its slices from the buffer.
// CHECK-LABEL: func.func @whole_read_kept
// CHECK-SAME:  (%[[BA:.*]]: !tile.smem<[64, 32], f16, #{{.*}}>, %[[BB:.*]]: !tile.smem<[32, 64], f16, #{{.*}}>, %[[C:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[A:.*]] = tile.local_load %[[BA]] [0, 0] : <[64, 32], f16, #{{.*}}> -> tensor<64x32xf16, #dot_a>
// CHECK-NEXT:  %[[A0:.*]] = tile.local_load %[[BA]] [0, 0] : <[64, 32], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  %[[B0:.*]] = tile.local_load %[[BB]] [0, 0] : <[32, 64], f16, #{{.*}}> -> tensor<16x64xf16, #dot_b>
// CHECK-NEXT:  %[[D0:.*]] = tile.mma %[[A0]], %[[B0]], %[[C]]
// CHECK-NEXT:  %[[A1:.*]] = tile.local_load %[[BA]] [0, 16]
// CHECK-NEXT:  %[[B1:.*]] = tile.local_load %[[BB]] [16, 0]
// CHECK-NEXT:  %[[D1:.*]] = tile.mma %[[A1]], %[[B1]], %[[D0]]
// CHECK-NEXT:  return %[[D1]], %[[A]]
func.func @whole_read_kept(%ba: !tile.smem<[64, 32], f16, #sa>, %bb: !tile.smem<[32, 64], f16, #sb>, %c: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x32xf16, #dot_a>) attributes {tile.num_warps = 4 : i32} {
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 32], f16, #sa> -> tensor<64x32xf16, #dot_a>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[32, 64], f16, #sb> -> tensor<32x64xf16, #dot_b>
  %d = tile.mma %a, %b, %c : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d, %a : tensor<64x64xf32, #mma>, tensor<64x32xf16, #dot_a>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>

// Loop-invariant operands by size (default limit: 32 registers per thread):
// a 64 x 128 f16 Q is 64 halves = 32 registers per thread, kept: its 8
// slices are read before the loop; a 64 x 256 one is 64 registers, too many:
// its 16 slices are read in the loop, each right before its step.
// CHECK-LABEL: func.func @invariant_sizes
// CHECK-SAME:  (%[[BQ:.*]]: !tile.smem<[64, 128], f16, #{{.*}}>, %[[BK:.*]]: !tile.smem<[128, 64], f16, #{{.*}}>, %[[BQ2:.*]]: !tile.smem<[64, 256], f16, #{{.*}}>, %[[BK2:.*]]: !tile.smem<[256, 64], f16, #{{.*}}>, %{{.*}}: i32)
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  arith.constant 1 : i32
// CHECK-NEXT:  arith.constant dense
// CHECK-NEXT:  %[[Q0:.*]] = tile.local_load %[[BQ]] [0, 0] : <[64, 128], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 16] :
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 32] :
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 48] :
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 64] :
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 80] :
// CHECK-NEXT:  tile.local_load %[[BQ]] [0, 96] :
// CHECK-NEXT:  %[[Q7:.*]] = tile.local_load %[[BQ]] [0, 112] :
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[K0:.*]] = tile.local_load %[[BK]] [0, 0]
// CHECK-NEXT:    tile.mma %[[Q0]], %[[K0]]
// CHECK-NOT:     tile.local_load %[[BQ]]
// CHECK:         %[[K7:.*]] = tile.local_load %[[BK]] [112, 0]
// CHECK-NEXT:    %[[S7:.*]] = tile.mma %[[Q7]], %[[K7]]
// CHECK-NEXT:    %[[P0:.*]] = tile.local_load %[[BQ2]] [0, 0] : <[64, 256], f16, #{{.*}}> -> tensor<64x16xf16, #dot_a>
// CHECK-NEXT:    %[[L0:.*]] = tile.local_load %[[BK2]] [0, 0]
// CHECK-NEXT:    tile.mma %[[P0]], %[[L0]], %[[S7]]
// CHECK:         %[[P15:.*]] = tile.local_load %[[BQ2]] [0, 240]
// CHECK-NEXT:    %[[L15:.*]] = tile.local_load %[[BK2]] [240, 0]
// CHECK-NEXT:    %[[S15:.*]] = tile.mma %[[P15]], %[[L15]]
// CHECK-NEXT:    scf.yield %[[S15]]
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @invariant_sizes(%bq: !tile.smem<[64, 128], f16, #sa>, %bk: !tile.smem<[128, 64], f16, #sb>,
                           %bq2: !tile.smem<[64, 256], f16, #sa>, %bk2: !tile.smem<[256, 64], f16, #sb>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %q = tile.local_load %bq [0, 0] : !tile.smem<[64, 128], f16, #sa> -> tensor<64x128xf16, #dot_a>
  %q2 = tile.local_load %bq2 [0, 0] : !tile.smem<[64, 256], f16, #sa> -> tensor<64x256xf16, #dot_a>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = tile.local_load %bk [0, 0] : !tile.smem<[128, 64], f16, #sb> -> tensor<128x64xf16, #dot_b>
    %s = tile.mma %q, %k, %acc : tensor<64x128xf16, #dot_a>, tensor<128x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    %k2 = tile.local_load %bk2 [0, 0] : !tile.smem<[256, 64], f16, #sb> -> tensor<256x64xf16, #dot_b>
    %s2 = tile.mma %q2, %k2, %s : tensor<64x256xf16, #dot_a>, tensor<256x64xf16, #dot_b>, tensor<64x64xf32, #mma>
    scf.yield %s2 : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

// 8-bit operands (kWidth 4): slices of 32, the K of mma.sync.m16n8k32.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
#sa = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sb = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-LABEL: func.func @f8_operands
// CHECK:       tile.local_load %{{.*}} [0, 0] : {{.*}} -> tensor<64x32xf8E4M3FN, #dot_a>
// CHECK:       tile.local_load %{{.*}} [0, 0] : {{.*}} -> tensor<32x64xf8E4M3FN, #dot_b>
// CHECK:       tile.mma
// CHECK:       tile.local_load %{{.*}} [0, 32] : {{.*}} -> tensor<64x32xf8E4M3FN, #dot_a>
// CHECK:       tile.local_load %{{.*}} [32, 0] : {{.*}} -> tensor<32x64xf8E4M3FN, #dot_b>
// CHECK:       tile.mma
// CHECK-NOT:   tile.mma
func.func @f8_operands(%ba: !tile.smem<[64, 64], f8E4M3FN, #sa>, %bb: !tile.smem<[64, 64], f8E4M3FN, #sb>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %a = tile.local_load %ba [0, 0] : !tile.smem<[64, 64], f8E4M3FN, #sa> -> tensor<64x64xf8E4M3FN, #dot_a>
  %b = tile.local_load %bb [0, 0] : !tile.smem<[64, 64], f8E4M3FN, #sb> -> tensor<64x64xf8E4M3FN, #dot_b>
  %d = tile.mma %a, %b, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E4M3FN, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}
