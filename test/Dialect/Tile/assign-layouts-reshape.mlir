// RUN: tile-opt %s --tile-assign-layouts=num-warps=1 | FileCheck %s

// A store's layout reaches a reshape's result only when it maps back to a
// blocked layout of the reshape's source: here the 2-D store layout puts
// threads on the size-1 dimension, which no 1-D layout gives, so the
// reshape keeps its source's layout and the store gets a conversion.

// CHECK-DAG:  #[[SRC:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// CHECK-DAG:  #[[ST:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]>
// CHECK-LABEL: func.func @reshape_to_store
// CHECK:       %[[A:.*]] = tile.arange : tensor<4xi32, #[[SRC]]>
// CHECK:       %[[R:.*]] = tile.reshape %[[A]] : tensor<4xi32, #[[SRC]]> -> tensor<1x4xi32, #[[RL:blocked[0-9]*]]>
// CHECK:       %[[C:.*]] = tile.convert_layout %[[R]] : tensor<1x4xi32, #[[RL]]> -> tensor<1x4xi32, #[[ST]]>
// CHECK:       tile.store %{{.*}}, %[[C]] : <i32, 2>, tensor<1x4xi32, #[[ST]]>
func.func @reshape_to_store(%O: !tile.global<i32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.arange : tensor<4xi32>
  %r = tile.reshape %a : tensor<4xi32> -> tensor<1x4xi32>
  tile.store %O[%i, %i], %r : !tile.global<i32, 2>, tensor<1x4xi32>
  return
}
