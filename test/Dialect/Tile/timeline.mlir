// RUN: tile-opt %s -split-input-file --tile-timeline=records=64 | FileCheck %s
// RUN: not tile-opt %s -split-input-file --tile-timeline=records=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// tile-timeline: the kernel takes one more parameter, the i64 address of
// its timeline's buffer, and records at its start, at each loop's entry,
// at the top of each of its trips and at its exit, and before its return;
// tile.timeline names the sites in order.
// CHECK-LABEL: func.func @loops
// CHECK-SAME:  (%{{[^:]*}}: !tile.global<f32, 1>, %{{[^:]*}}: i32, %[[T:[^:]*]]: i64)
// CHECK-SAME:  tile.timeline = {records = 64 : i32, sites = ["start", "loop 1 ([[L1:[0-9]+:[0-9]+]]) enter", "loop 1 ([[L1]]) trip", "loop 1 ([[L1]]) exit", "loop 2 ([[L2:[0-9]+:[0-9]+]]) enter", "loop 2 ([[L2]]) trip", "loop 2 ([[L2]]) exit", "end"]}
// CHECK-NEXT:  tile.timestamp %[[T]] {records = 64 : i32, site = 0 : i32}
// CHECK:       tile.timestamp %[[T]] {records = 64 : i32, site = 1 : i32}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.timestamp %[[T]] {records = 64 : i32, site = 2 : i32}
// CHECK:         tile.timestamp %[[T]] {records = 64 : i32, site = 4 : i32}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      tile.timestamp %[[T]] {records = 64 : i32, site = 5 : i32}
// CHECK:         }
// CHECK-NEXT:    tile.timestamp %[[T]] {records = 64 : i32, site = 6 : i32}
// CHECK:       }
// CHECK-NEXT:  tile.timestamp %[[T]] {records = 64 : i32, site = 3 : i32}
// CHECK-NEXT:  tile.timestamp %[[T]] {records = 64 : i32, site = 7 : i32}
// CHECK-NEXT:  return
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @loops(%out: !tile.global<f32, 1>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %n step %c1 : i32 {
      %v = tile.full %c0 : tensor<128xi32, #b1>
      %f = arith.sitofp %v : tensor<128xi32, #b1> to tensor<128xf32, #b1>
      tile.store %out[%j], %f : <f32, 1>, tensor<128xf32, #b1>
    }
  }
  return
}

// -----

// A warp-specialized kernel: each role's copy of a loop has sites of its
// own, named by the role; an scf.while's trips are recorded at the top of
// its body.
// CHECK-LABEL: func.func @roles
// CHECK-SAME:  sites = ["start", "consumer: loop 1 ({{[0-9:]+}}) enter", "consumer: loop 1 ({{[0-9:]+}}) trip", "consumer: loop 1 ({{[0-9:]+}}) exit", "producer 0: loop 1 ({{[0-9:]+}}) enter", "producer 0: loop 1 ({{[0-9:]+}}) trip", "producer 0: loop 1 ({{[0-9:]+}}) exit", "end"]
// CHECK:       tile.warp_specialize
// CHECK:         tile.timestamp %{{.*}} {records = 64 : i32, site = 4 : i32}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      tile.timestamp %{{.*}} {records = 64 : i32, site = 5 : i32}
// CHECK:       } consumer {
// CHECK:         tile.timestamp %{{.*}} {records = 64 : i32, site = 1 : i32}
// CHECK-NEXT:    scf.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.timestamp %{{.*}} {records = 64 : i32, site = 2 : i32}
func.func @roles(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.warp_specialize {consumer_warps = 4 : i32} producer {
    scf.for %i = %c0 to %n step %c1 : i32 {
    }
  } consumer {
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %i : i32
    } do {
    ^bb0(%i: i32):
      %next = arith.addi %i, %c1 : i32
      scf.yield %next : i32
    }
  }
  return
}

// -----

// ZERO: error: tile-timeline: records must be a power of two, at least 2
func.func @zero() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  return
}
