// RUN: tile-opt %s -split-input-file --tile-exchange-in-cluster -verify-diagnostics | FileCheck %s

// Two tiles gathered at one barrier: their buffers (the gathered shapes,
// row-major) at the top; the cluster arrived on after the top's mbarrier
// initialization and waited for before the first op that synchronizes it
// (here the user's cluster barrier); each block writes its tiles into every
// block's buffers, meets the cluster, reads its own.
// CHECK-LABEL: func.func @gather
// CHECK:      %[[BM:.*]] = tile.smem_alloc : <[1, 4], f32, #[[ROW:.*]]>
// CHECK-NEXT: %[[BS:.*]] = tile.smem_alloc : <[1, 8], i32, #[[ROW]]>
// CHECK-NEXT: tile.mbarrier_alloc
// CHECK-NEXT: tile.mbarrier_init
// CHECK-NEXT: tile.barrier {arrive, cluster}
// CHECK-NEXT: arith.addf
// CHECK-NEXT: tile.barrier {cluster, wait}
// CHECK-NEXT: tile.barrier {cluster}
// CHECK-NEXT: tile.cluster_store %{{.*}}, %[[BM]] {axis = 1 : i32}
// CHECK-NEXT: tile.cluster_store %{{.*}}, %[[BS]] {axis = 1 : i32}
// CHECK-NEXT: tile.barrier {cluster}
// CHECK-NEXT: %[[M:.*]] = tile.local_load %[[BM]] [0, 0] : <[1, 4], f32, #[[ROW]]> -> tensor<1x4xf32>
// CHECK-NEXT: %[[S:.*]] = tile.local_load %[[BS]] [0, 0] : <[1, 8], i32, #[[ROW]]> -> tensor<1x8xi32>
// CHECK-NEXT: return %[[M]], %[[S]]
func.func @gather(%m: tensor<1x1xf32>, %s: tensor<1x2xi32>) -> (tensor<1x4xf32>, tensor<1x8xi32>) attributes {tile.cluster = 4 : i32} {
  %bars = tile.mbarrier_alloc : !tile.mbarrier<1>
  tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<1>
  %m2 = arith.addf %m, %m : tensor<1x1xf32>
  tile.barrier {cluster}
  %g:2 = tile.cluster_gather %m2, %s {axis = 1 : i32} : tensor<1x1xf32>, tensor<1x2xi32> -> tensor<1x4xf32>, tensor<1x8xi32>
  return %g#0, %g#1 : tensor<1x4xf32>, tensor<1x8xi32>
}

// -----

// Two exchanges: the start is waited for once, before the first; no block
// waits for the others after its last read (nothing in its shared memory
// is touched by another block after a gather's barrier).
// CHECK-LABEL: func.func @two_gathers
// CHECK:      tile.smem_alloc
// CHECK-NEXT: tile.smem_alloc
// CHECK-NEXT: tile.barrier {arrive, cluster}
// CHECK-NEXT: tile.barrier {cluster, wait}
// CHECK-NEXT: tile.cluster_store
// CHECK-NEXT: tile.barrier {cluster}
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.cluster_store
// CHECK-NEXT: tile.barrier {cluster}
// CHECK-NEXT: tile.local_load
// CHECK-NOT:  tile.barrier
// CHECK:      return
func.func @two_gathers(%a: tensor<2x2xf16>) -> tensor<2x8xf16> attributes {tile.cluster = 2 : i32} {
  %g = tile.cluster_gather %a {axis = 0 : i32} : tensor<2x2xf16> -> tensor<4x2xf16>
  %h = tile.cluster_gather %a {axis = 1 : i32} : tensor<2x2xf16> -> tensor<2x4xf16>
  %c = tile.concat %h, %h {axis = 1 : i32} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<2x8xf16>
  return %c : tensor<2x8xf16>
}

// -----

// A kernel without gathers is left as it is.
// CHECK-LABEL: func.func @none
// CHECK-NOT:   tile.barrier
// CHECK:       return
func.func @none() attributes {tile.cluster = 2 : i32} {
  return
}

// -----

// A gather in a loop at the top level: two buffers each, the trip's
// parity (a trip counter added to the loop) choosing the slot; the start
// waited for before the loop.
// CHECK-LABEL: func.func @in_loop
// CHECK:      %[[B:.*]] = tile.smem_alloc : <[2, 2, 1], f32, #[[ROW:.*]]>
// CHECK-NEXT: tile.barrier {arrive, cluster}
// CHECK:      tile.barrier {cluster, wait}
// CHECK:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:      scf.for {{.*}} iter_args(%[[T:.*]] = %[[ZERO]]) -> (i32)
// CHECK:        %[[P:.*]] = arith.andi %[[T]], %{{.*}} : i32
// CHECK:        %[[S:.*]] = tile.smem_slot %[[B]][%[[P]]] : <[2, 2, 1], f32, #[[ROW]]> -> <[2, 1], f32, #[[ROW2:.*]]>
// CHECK-NEXT:   tile.cluster_store %{{.*}}, %[[S]] {axis = 0 : i32}
// CHECK-NEXT:   tile.barrier {cluster}
// CHECK-NEXT:   tile.local_load %[[S]] [0, 0]
// CHECK:        %[[NEXT:.*]] = arith.addi %[[T]], %{{.*}} : i32
// CHECK:        scf.yield %[[NEXT]]
func.func @in_loop(%a: tensor<1x1xf32>, %n: index) attributes {tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %g = tile.cluster_gather %a {axis = 0 : i32} : tensor<1x1xf32> -> tensor<2x1xf32>
  }
  return
}

// -----

func.func @in_nested_loop(%a: tensor<1x1xf32>, %n: index) attributes {tile.cluster = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      // expected-error @+1 {{must be at the top level of the kernel or directly in a loop there (not in a branch or a nested loop): every block of the cluster executes it at the same points}}
      %g = tile.cluster_gather %a {axis = 0 : i32} : tensor<1x1xf32> -> tensor<2x1xf32>
    }
  }
  return
}

// -----

func.func @in_branch(%a: tensor<1x1xf32>, %c: i1) attributes {tile.cluster = 2 : i32} {
  scf.if %c {
    // expected-error @+1 {{must be at the top level of the kernel or directly in a loop there}}
    %g = tile.cluster_gather %a {axis = 0 : i32} : tensor<1x1xf32> -> tensor<2x1xf32>
  }
  return
}
