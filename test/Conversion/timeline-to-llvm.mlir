// RUN: tile-opt %s --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// tile.timestamp: at the kernel's entry, the index of the thread's
// warpgroup's first record, (block * warpgroups + warpgroup) * records, in
// a variable per thread (an alloca); a site's first thread of each
// warpgroup stores { %globaltimer, site << 32 | clock } at buffer + index *
// 16, and the index moves on while the next is not a multiple of records
// (the log's last record then holds the latest site's).
// CHECK-LABEL: llvm.func @stamps
// CHECK-SAME:  (%[[T:[^:]*]]: i64)
// CHECK-DAG:   nvvm.read.ptx.sreg.tid.x
// CHECK-DAG:   nvvm.read.ptx.sreg.ntid.x
// CHECK-DAG:   nvvm.read.ptx.sreg.ctaid.z
// CHECK-DAG:   nvvm.read.ptx.sreg.nctaid.y
// CHECK:       %[[COUNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK:       %[[FIRST:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK:       llvm.store %[[FIRST]], %[[COUNT]]
// CHECK:       %[[N0:.*]] = llvm.load %[[COUNT]]
// CHECK:       llvm.inline_asm has_side_effects {{.*}}mov.u32 t, %tid.x;\0A and.b32 t, t, 127;\0A setp.eq.u32 p, t, 0;\0A mul.wide.u32 a, $1, 16;\0A add.u64 a, a, $0;\0A mov.u64 g, %globaltimer;\0A mov.u64 c, %clock64;\0A and.b64 c, c, 4294967295;\0A or.b64 c, c, 0;\0A @p st.global.v2.u64 [a], {g, c};{{.*}}", "l,r,~{memory}" %[[T]], %[[N0]]
// CHECK:       %[[N1:.*]] = llvm.add %[[N0]], %{{.*}}
// CHECK:       %[[LAST:.*]] = llvm.and %[[N1]], %{{.*}}
// CHECK:       %[[ROOM:.*]] = llvm.icmp "ne" %[[LAST]]
// CHECK:       %[[NEXT:.*]] = llvm.select %[[ROOM]], %[[N1]], %[[N0]]
// CHECK:       llvm.store %[[NEXT]], %[[COUNT]]
// CHECK:       llvm.load %[[COUNT]]
// CHECK:       llvm.inline_asm has_side_effects {{.*}}or.b64 c, c, 12884901888;{{.*}}", "l,r,~{memory}"
func.func @stamps(%t: i64) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  tile.timestamp %t {records = 16 : i32, site = 0 : i32}
  tile.timestamp %t {records = 16 : i32, site = 3 : i32}
  return
}
