// RUN: tile-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// Ops on 8-bit integers take a thread's registers four at a time, the
// bytes of one 32-bit word: bitwise ops on vector<4xi8>; a shift by a
// constant as the 32-bit shift with the bits that crossed between bytes
// masked; a sum or a difference as the low 7 bits of each byte summed apart
// and the top bit set by xor. Widening 8-bit to 16-bit values goes
// two registers at a time: the two bytes put in bytes 0 and 2 of a word and
// the others masked (one byte permute and one AND, where LLVM folds the
// unpacking of the bytes' words into it).

// CHECK-LABEL: llvm.func @lanes
// CHECK-DAG:   %[[PAIR:.*]] = llvm.mlir.constant(16711935 : i32)
// CHECK-DAG:   %[[NIBBLES:.*]] = llvm.mlir.constant(252645135 : i32)
// CHECK-NOT:   llvm.ashr
// The mask: one vector op a word.
// CHECK:       llvm.and %{{.*}}, %{{.*}} : vector<4xi8>
// An arithmetic shift right whose uses keep the low 4 bits: a logical one
// on the word, masked to 0x0F in each byte.
// CHECK:       %[[W:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  llvm.and %[[W]], %[[NIBBLES]] : i32
// CHECK:       llvm.xor %{{.*}}, %{{.*}} : vector<4xi8>
// Widened to i16 two at a time: bytes 0 and 2 of a word, 0x00FF00FF.
// CHECK:       llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK-NEXT:  llvm.and %{{.*}}, %[[PAIR]] : i32
// CHECK-NEXT:  llvm.bitcast %{{.*}} : i32 to vector<2xi16>
// CHECK:       llvm.or %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK-NOT:   llvm.ashr
// CHECK-NOT:   llvm.zext %{{.*}} : i8 to i16
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @lanes(%Q: !tile.global<i8, 1>, %B: !tile.global<bf16, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %q = tile.load %Q[%i] : !tile.global<i8, 1> -> tensor<128xi8, #l>
  %m = arith.constant dense<15> : tensor<128xi8, #l>
  %four = arith.constant dense<4> : tensor<128xi8, #l>
  %lo = arith.andi %q, %m : tensor<128xi8, #l>
  %s = arith.shrsi %q, %four : tensor<128xi8, #l>
  %hi = arith.andi %s, %m : tensor<128xi8, #l>
  %x = arith.xori %lo, %hi : tensor<128xi8, #l>
  %w = arith.extui %x : tensor<128xi8, #l> to tensor<128xi16, #l>
  %e = arith.constant dense<17152> : tensor<128xi16, #l>
  %o = arith.ori %w, %e : tensor<128xi16, #l>
  %b = arith.bitcast %o : tensor<128xi16, #l> to tensor<128xbf16, #l>
  tile.store %B[%i], %b : !tile.global<bf16, 1>, tensor<128xbf16, #l>
  return
}

// -----

// Shifts by a constant and sums, four bytes a word: a left shift masked to
// 0xF8 in each byte (-117901064), a logical right shift to 0x1F
// (522133279); x + y as ((x & 0x7F7F7F7F) + (y & 0x7F7F7F7F)) xor'd with
// (x ^ y) & 0x80808080; x - y as ((x | 0x80808080) - (y & 0x7F7F7F7F))
// xor'd with (x ^ ~y) & 0x80808080 (no carry or borrow leaves a byte).
// CHECK-LABEL: llvm.func @shifts_and_sums
// CHECK-DAG:   %[[ONES:.*]] = llvm.mlir.constant(-1 : i32)
// CHECK-DAG:   %[[TOP:.*]] = llvm.mlir.constant(-2139062144 : i32)
// CHECK-DAG:   %[[LOW7:.*]] = llvm.mlir.constant(2139062143 : i32)
// CHECK-DAG:   %[[RIGHT:.*]] = llvm.mlir.constant(522133279 : i32)
// CHECK-DAG:   %[[LEFT:.*]] = llvm.mlir.constant(-117901064 : i32)
// CHECK:       %[[L:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  llvm.and %[[L]], %[[LEFT]] : i32
// CHECK:       %[[R:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  llvm.and %[[R]], %[[RIGHT]] : i32
// CHECK:       %[[YL:.*]] = llvm.and %[[Y:.*]], %[[LOW7]] : i32
// CHECK-NEXT:  %[[XL:.*]] = llvm.and %[[X:.*]], %[[LOW7]] : i32
// CHECK-NEXT:  %[[S:.*]] = llvm.add %[[XL]], %[[YL]] : i32
// CHECK-NEXT:  %[[XY:.*]] = llvm.xor %[[X]], %[[Y]] : i32
// CHECK-NEXT:  %[[T:.*]] = llvm.and %[[XY]], %[[TOP]] : i32
// CHECK-NEXT:  llvm.xor %[[S]], %[[T]] : i32
// CHECK:       %[[EL:.*]] = llvm.and %[[E:.*]], %[[LOW7]] : i32
// CHECK-NEXT:  %[[DH:.*]] = llvm.or %[[D:.*]], %[[TOP]] : i32
// CHECK-NEXT:  %[[DIFF:.*]] = llvm.sub %[[DH]], %[[EL]] : i32
// CHECK-NEXT:  %[[DE:.*]] = llvm.xor %[[D]], %[[E]] : i32
// CHECK-NEXT:  %[[DNE:.*]] = llvm.xor %[[DE]], %[[ONES]] : i32
// CHECK-NEXT:  %[[B:.*]] = llvm.and %[[DNE]], %[[TOP]] : i32
// CHECK-NEXT:  llvm.xor %[[DIFF]], %[[B]] : i32
// CHECK-NOT:   : i8{{$}}
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @shifts_and_sums(%Q: !tile.global<i8, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %q = tile.load %Q[%i] : !tile.global<i8, 1> -> tensor<128xi8, #l>
  %three = arith.constant dense<3> : tensor<128xi8, #l>
  %l = arith.shli %q, %three : tensor<128xi8, #l>
  %r = arith.shrui %l, %three : tensor<128xi8, #l>
  %a = arith.addi %r, %q : tensor<128xi8, #l>
  %s = arith.constant dense<77> : tensor<128xi8, #l>
  %d = arith.subi %a, %s : tensor<128xi8, #l>
  tile.store %Q[%i], %d : !tile.global<i8, 1>, tensor<128xi8, #l>
  return
}

// -----

// Left register by register: two bytes a thread (no whole word), a shift by
// a tile and a sign-extension.
// CHECK-LABEL: llvm.func @bytes_alone
// CHECK:       llvm.ashr %{{.*}}, %{{.*}} : i8
// CHECK:       llvm.ashr %{{.*}}, %{{.*}} : i8
// CHECK:       llvm.shl %{{.*}}, %{{.*}} : i8
// CHECK:       llvm.sext %{{.*}} : i8 to i16
// CHECK-NOT:   vector<4xi8>
// CHECK:       llvm.return
#l2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @bytes_alone(%Q: !tile.global<i8, 1>, %B: !tile.global<bf16, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %q = tile.load %Q[%i] : !tile.global<i8, 1> -> tensor<64xi8, #l2>
  %two = arith.constant dense<2> : tensor<64xi8, #l2>
  %s = arith.shrsi %q, %two : tensor<64xi8, #l2>
  %t = arith.shli %s, %q : tensor<64xi8, #l2>
  %w = arith.extsi %t : tensor<64xi8, #l2> to tensor<64xi16, #l2>
  %b = arith.bitcast %w : tensor<64xi16, #l2> to tensor<64xbf16, #l2>
  tile.store %B[%i], %b : !tile.global<bf16, 1>, tensor<64xbf16, #l2>
  return
}

// -----

// An arithmetic shift right whose top bits are used (a signed nibble), four
// bytes a word: the bytes offset by 128 (xor 0x80808080), shifted
// logically and masked (0x0F0F0F0F), less 8 in each byte (0x08080808, from
// the bytes with their top bit set).
// CHECK-LABEL: llvm.func @signed_nibbles
// CHECK-DAG:   %[[SIGN:.*]] = llvm.mlir.constant(-2139062144 : i32)
// CHECK-DAG:   %[[NIBBLES:.*]] = llvm.mlir.constant(252645135 : i32)
// CHECK-DAG:   %[[EIGHTS:.*]] = llvm.mlir.constant(134744072 : i32)
// CHECK:       %[[O:.*]] = llvm.xor %{{.*}}, %[[SIGN]] : i32
// CHECK-NEXT:  %[[S:.*]] = llvm.lshr %[[O]], %{{.*}} : i32
// CHECK-NEXT:  %[[M:.*]] = llvm.and %[[S]], %[[NIBBLES]] : i32
// CHECK-NEXT:  %[[MH:.*]] = llvm.or %[[M]], %[[SIGN]] : i32
// CHECK-NEXT:  llvm.sub %[[MH]], %[[EIGHTS]] : i32
// CHECK-NOT:   llvm.ashr
// CHECK:       llvm.return
#l = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
func.func @signed_nibbles(%Q: !tile.global<i8, 1>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %q = tile.load %Q[%i] : !tile.global<i8, 1> -> tensor<128xi8, #l>
  %four = arith.constant dense<4> : tensor<128xi8, #l>
  %s = arith.shrsi %q, %four : tensor<128xi8, #l>
  tile.store %Q[%i], %s : !tile.global<i8, 1>, tensor<128xi8, #l>
  return
}
