// RUN: tile-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// tile.tile_claim: the issuer adds 1 to the counter and stores the old
// count plus the offset into the ring slot (4 bytes each); tile.tile_read
// loads the slot; tile.tile_counter_done counts the block out
// (acquire-release) and the launch's last block (%nctaid.x - 1 before it)
// zeroes both words.
#ring_s = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
// CHECK-LABEL: llvm.func @claim
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.inline_asm has_side_effects {{.*}}"{\0A .reg .pred p;\0A .reg .b32 v;\0A setp.ne.b32 p, $0, 0;\0A @p atom.relaxed.gpu.add.u32 v, [$1], 1;\0A @p add.u32 v, v, $2;\0A @p st.shared.u32 [$3], v;\0A}", "r,l,r,r,~{memory}"
// CHECK: %[[T:.*]] = llvm.inline_asm has_side_effects {{.*}}"ld.shared.u32 $0, [$1];", "=r,r,~{memory}"
// CHECK: llvm.inline_asm has_side_effects "{{.*}}atom.relaxed.gpu.add.u32{{.*}}", "r,l,r,r,~{memory}" %{{[0-9]+}}, %{{.*}}, %[[T]], %{{[0-9]+}} :
// CHECK: llvm.inline_asm has_side_effects {{.*}}@p atom.acq_rel.gpu.add.u32 v, [$1+4], 1;\0A mov.u32 n, %nctaid.x;\0A sub.u32 n, n, 1;\0A setp.eq.and.u32 q, v, n, p;\0A @q st.relaxed.gpu.u32 [$1], 0;\0A @q st.relaxed.gpu.u32 [$1+4], 0;
func.func @claim(%c: i64, %p: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.smem_alloc : !tile.smem<[4], i32, #ring_s>
  tile.tile_claim %c + %p -> %r[%p] {issuer = 128 : i32} : !tile.smem<[4], i32, #ring_s>
  %t = tile.tile_read %r[%p] : !tile.smem<[4], i32, #ring_s>
  tile.tile_claim %c + %t -> %r[%p] {issuer = 128 : i32} : !tile.smem<[4], i32, #ring_s>
  tile.tile_counter_done %c {issuer = 128 : i32}
  return
}

// tile-dependent-launch's ops: griddepcontrol, each thread.
// CHECK-LABEL: llvm.func @dependent_launch
// CHECK:       nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:  nvvm.griddepcontrol wait
func.func @dependent_launch() attributes {tile.kernel, tile.num_warps = 4 : i32} {
  tile.launch_dependents
  tile.grid_dependency_wait
  return
}
