// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// Warps that hold replicas of the same elements (a zero warp basis) store
// them into shared memory from the first replica only: the others would
// write the same value to the same address, a race to compute-sanitizer's
// racecheck. A reduction across warps: one row, warps [2, 4]; warp bit 2
// (the rows' warp) has a zero basis, so only warps with it clear store
// their partial sums before the reduction's barrier.
// CHECK-LABEL: llvm.func @reduce_replicated
// CHECK-DAG:   %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[FIVE:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:       %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:       %[[WARP:.*]] = llvm.lshr %[[TID]], %[[FIVE]] : i32
// CHECK:       nvvm.shfl.sync  bfly
// CHECK:       %[[BITS:.*]] = llvm.and %[[WARP]], %[[FOUR]] : i32
// CHECK-NEXT:  %[[FIRST:.*]] = llvm.icmp "eq" %[[BITS]], %[[ZERO]] : i32
// CHECK-NEXT:  llvm.cond_br %[[FIRST]], ^[[STORE:.*]], ^[[JOIN:.*]]
// CHECK:       ^[[STORE]]:
// CHECK:       llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br ^[[JOIN]]
// CHECK:       ^[[JOIN]]:
// CHECK-NEXT:  nvvm.barrier0
#l = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]>
func.func @reduce_replicated(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<1x128xf32, #l>
  %s = tile.reduce sum %x {axis = 1 : i32, keepdims} : tensor<1x128xf32, #l> -> tensor<1x1xf32, #l>
  tile.store %X[%i, %i], %s : !tile.global<f32, 2>, tensor<1x1xf32, #l>
  return
}

// -----

// A conversion through scratch memory from 4 rows on 8 warps along the
// rows (warps 4-7 hold what warps 0-3 do: warp bit 2 has a zero basis):
// the stores come from warps 0-3, then the conversion's barrier and every
// thread's loads.
// CHECK-LABEL: llvm.func @convert_replicated
// CHECK-DAG:   %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:   %[[FIVE:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:       %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:       %[[WARP:.*]] = llvm.lshr %[[TID]], %[[FIVE]] : i32
// CHECK:       %[[BITS:.*]] = llvm.and %[[WARP]], %[[FOUR]] : i32
// CHECK-NEXT:  %[[FIRST:.*]] = llvm.icmp "eq" %[[BITS]], %[[ZERO]] : i32
// CHECK-NEXT:  llvm.cond_br %[[FIRST]], ^[[STORE:.*]], ^[[JOIN:.*]]
// CHECK:       ^[[STORE]]:
// CHECK:       llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br ^[[JOIN]]
// CHECK:       ^[[JOIN]]:
// CHECK-NEXT:  nvvm.barrier0
// CHECK:       llvm.load %{{.*}} : !llvm.ptr<3> -> f32
#rep = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#col = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
func.func @convert_replicated(%X: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %x = tile.load %X[%i, %i] : !tile.global<f32, 2> -> tensor<4x32xf32, #rep>
  %y = tile.convert_layout %x : tensor<4x32xf32, #rep> -> tensor<4x32xf32, #col>
  tile.store %X[%i, %i], %y : !tile.global<f32, 2>, tensor<4x32xf32, #col>
  return
}
