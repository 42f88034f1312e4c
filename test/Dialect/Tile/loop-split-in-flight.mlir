// RUN: tile-opt %s -split-input-file --tile-loop-split | FileCheck %s

// tile-loop-split with multiplies in flight at the loop's exit (dK and dV
// of attention backward, left in flight across the back edge and completed
// by the waits right after the loop): those waits, copied, complete the
// first loop's results before the second loop starts from them, so that no
// accumulator in flight crosses the second loop's entry. The second loop's
// results are completed by the original waits.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

func.func private @sink(tensor<64x64xf32, #mma>)

// CHECK-LABEL: func.func @in_flight
// CHECK:       %[[FIRST:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[SPLIT:[^ ]*]] step
// CHECK:         func.call @sink(%{{.*}})
// CHECK:       }
// CHECK-NEXT:  %[[W0:.*]] = tile.wgmma_wait 0, %[[FIRST]]#0 : tensor<64x64xf32, #mma> reads
// CHECK-NEXT:  %[[W1:.*]] = tile.wgmma_wait 0, %[[FIRST]]#1 : tensor<64x64xf32, #mma> reads
// CHECK-NEXT:  %[[SECOND:.*]]:3 = scf.for %{{.*}} = %[[SPLIT]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[W0]], %{{.*}} = %[[W1]], %{{.*}} = %[[FIRST]]#2)
// CHECK:         func.call @sink(%{{.*}})
// CHECK:       }
// CHECK-NEXT:  %[[V0:.*]] = tile.wgmma_wait 0, %[[SECOND]]#0
// CHECK-NEXT:  %[[V1:.*]] = tile.wgmma_wait 0, %[[SECOND]]#1
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[SECOND]]#2
func.func @in_flight(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %ub: i32, %split: i32, %x: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r:3 = scf.for %i = %c0 to %ub step %c1 iter_args(%dk = %z, %dv = %z, %n = %c0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32) : i32 {
    %s = tile.wgmma async %a, %b, %z : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %sw = tile.wgmma_wait 0, %s : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
    %masked = arith.cmpi slt, %i, %split : i32
    %p = arith.select %masked, %x, %sw : tensor<64x64xf32, #mma>
    func.call @sink(%p) : (tensor<64x64xf32, #mma>) -> ()
    %v = tile.wgmma async %a, %b, %dv : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %k = tile.wgmma async %a, %b, %dk : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    %m = arith.addi %n, %c1 : i32
    scf.yield %k, %v, %m : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
  }
  %w0 = tile.wgmma_wait 0, %r#0 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  %w1 = tile.wgmma_wait 0, %r#1 : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w0, %w1, %r#2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>

// No wait right after the loop (its result used as it is, completed
// later): nothing is added between the loops.
// CHECK-LABEL: func.func @waited_later
// CHECK:       %[[FIRST:.*]] = scf.for
// CHECK:       }
// CHECK-NEXT:  %[[SECOND:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[FIRST]])
// CHECK:       }
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  tile.wgmma_wait 0, %[[SECOND]]
func.func @waited_later(%a: !tile.smem<[64, 64], f16, #sw>, %b: !tile.smem<[64, 64], f16, #sw>, %ub: i32, %split: i32, %x: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %masked = arith.cmpi slt, %i, %split : i32
    %p = arith.select %masked, %x, %acc : tensor<64x64xf32, #mma>
    %k = tile.wgmma async %a, %b, %p : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>, tensor<64x64xf32, #mma>
    scf.yield %k : tensor<64x64xf32, #mma>
  }
  %one = arith.constant 1 : i32
  %w = tile.wgmma_wait 0, %r : tensor<64x64xf32, #mma> reads %a, %b : !tile.smem<[64, 64], f16, #sw>, !tile.smem<[64, 64], f16, #sw>
  return %w : tensor<64x64xf32, #mma>
}
