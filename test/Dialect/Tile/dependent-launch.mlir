// RUN: tile-opt %s -split-input-file --tile-dependent-launch | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-dependent-launch --tile-dependent-launch | FileCheck %s

// tile-dependent-launch: the shared buffers, mbarriers, their
// initialization, barriers and side-effect-free ops stay ahead; the wait
// (and the trigger for the next kernel) goes before the first op that may
// touch global memory, here a region holding a load. Run twice, it places
// them once.
// CHECK-LABEL: func.func @prologue_then_region
// CHECK-SAME:  tile.dependent_launch
// CHECK:       tile.smem_alloc
// CHECK-NEXT:  tile.mbarrier_alloc
// CHECK-NEXT:  tile.mbarrier_init
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  tile.bid 0
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  tile.launch_dependents
// CHECK-NEXT:  tile.grid_dependency_wait
// CHECK-NEXT:  scf.if
// CHECK-NOT:   tile.grid_dependency_wait
// CHECK:       return
#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
module {
  func.func @prologue_then_region(%x: !tile.global<f32, 1>, %c: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %b = tile.smem_alloc : <[128], f32, #shared>
    %m = tile.mbarrier_alloc : <2>
    tile.mbarrier_init %m {count = 1 : i32} : <2>
    %c0 = arith.constant 0 : i32
    %bid = tile.bid 0
    tile.barrier
    scf.if %c {
      %v = tile.load %x[%bid] : <f32, 1> -> tensor<128xf32, #blocked>
      tile.store %x[%c0], %v : !tile.global<f32, 1>, tensor<128xf32, #blocked>
    }
    return
  }
}

// -----

// A load at the top: the wait goes first of all.
// CHECK-LABEL: func.func @load_first
// CHECK-SAME:  tile.dependent_launch
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  tile.launch_dependents
// CHECK-NEXT:  tile.grid_dependency_wait
// CHECK-NEXT:  tile.load
#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module {
  func.func @load_first(%x: !tile.global<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %v = tile.load %x[%c0] : <f32, 1> -> tensor<128xf32, #blocked>
    tile.store %x[%c0], %v : !tile.global<f32, 1>, tensor<128xf32, #blocked>
    return
  }
}

// -----

// A kernel that touches no global memory, and a function that is not a
// kernel, are left as they are.
// CHECK-LABEL: func.func @no_global_memory
// CHECK-NOT:   tile.dependent_launch
// CHECK-NOT:   tile.grid_dependency_wait
// CHECK:       return
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:   tile.grid_dependency_wait
// CHECK:       return
#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module {
  func.func @no_global_memory() attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %m = tile.mbarrier_alloc : <2>
    tile.mbarrier_init %m {count = 1 : i32} : <2>
    return
  }
  func.func @not_a_kernel(%x: !tile.global<f32, 1>) {
    %c0 = arith.constant 0 : i32
    %v = tile.load %x[%c0] : <f32, 1> -> tensor<128xf32, #blocked>
    tile.store %x[%c0], %v : !tile.global<f32, 1>, tensor<128xf32, #blocked>
    return
  }
}
