// RUN: tile-opt %s -split-input-file --tile-stage-mma-operands -verify-diagnostics

// tile-stage-mma-operands needs the layouts of each tile.mma and of the
// tiles converted into its operands (Preconditions.cpp); without them it
// reports the op and changes nothing. A version-3 (wgmma) mma whose staged
// operand has a fastest dimension under 32 bytes, which no wgmma shared
// layout describes, is reported too.

func.func @no_layouts(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'tile.mma' op a has type 'tensor<64x32xf16>', which has no layout: run tile-assign-layouts first}}
  %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @source_without_layout(%a: tensor<64x32xf16>, %b: tensor<32x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  // expected-error @+1 {{'tile.convert_layout' op source has type 'tensor<64x32xf16>', which has no layout: run tile-assign-layouts first}}
  %a2 = tile.convert_layout %a : tensor<64x32xf16> -> tensor<64x32xf16, #dot_a>
  %d = tile.mma %a2, %b, %c : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>
func.func @source_not_a_layout(%a: tensor<64x32xf16, #dot_a>, %b: tensor<32x64xf16, #shared>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  // expected-error @+1 {{'tile.convert_layout' op source has type 'tensor<32x64xf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>>', whose encoding is not a distributed layout (blocked, mma, dot_operand, slice or linear)}}
  %b2 = tile.convert_layout %b : tensor<32x64xf16, #shared> -> tensor<32x64xf16, #dot_b>
  %d = tile.mma %a, %b2, %c : tensor<64x32xf16, #dot_a>, tensor<32x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

// wgmma reads shared operands in blocks of at least 32 bytes along their
// fastest dimension: a row-major B of 8 halves (16 bytes) has none.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 8, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @wgmma_narrow_b(%a: tensor<64x16xf16, #blocked>, %b: tensor<16x8xf16, #blocked1>, %c: tensor<64x8xf32, #mma>) -> tensor<64x8xf32, #mma> {
  %a2 = tile.convert_layout %a : tensor<64x16xf16, #blocked> -> tensor<64x16xf16, #dot_a>
  %b2 = tile.convert_layout %b : tensor<16x8xf16, #blocked1> -> tensor<16x8xf16, #dot_b>
  // expected-error @+1 {{wgmma: the B operand cannot be put in a shared layout wgmma reads (its fastest dimension is narrower than 32 bytes)}}
  %d = tile.mma %a2, %b2, %c : tensor<64x16xf16, #dot_a>, tensor<16x8xf16, #dot_b>, tensor<64x8xf32, #mma>
  return %d : tensor<64x8xf32, #mma>
}

// -----

// The same for A when it goes through shared memory: 8 halves of K.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
func.func @wgmma_narrow_a(%a: tensor<64x8xf16, #blocked>, %b: tensor<8x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %a2 = tile.convert_layout %a : tensor<64x8xf16, #blocked> -> tensor<64x8xf16, #dot_a>
  %b2 = tile.convert_layout %b : tensor<8x64xf16, #blocked1> -> tensor<8x64xf16, #dot_b>
  // expected-error @+1 {{wgmma: the A operand cannot be put in a shared layout wgmma reads (its fastest dimension is narrower than 32 bytes)}}
  %d = tile.mma %a2, %b2, %c : tensor<64x8xf16, #dot_a>, tensor<8x64xf16, #dot_b>, tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

// mma.sync reads 8-bit operands K-contiguous as well (ldmatrix transposes
// only 16-bit units): the same B is transposed on its way into its buffer,
// with the warning; A, K-contiguous, is not.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
func.func @f8_mma_sync_n_major_b(%a: tensor<64x64xf8E4M3FN, #blocked>, %b: tensor<64x64xf8E4M3FN, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %0 = tile.convert_layout %a : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_a>
  %1 = tile.convert_layout %b : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_b>
  // expected-warning @+1 {{the 8-bit B operand of this mma is transposed through registers: mma.sync reads 8-bit operands with K contiguous; load B from an (N, K) tensor with order=(1, 0) to copy it straight to shared memory}}
  %2 = tile.mma %0, %1, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E4M3FN, #dot_b>, tensor<64x64xf32, #mma>
  return %2 : tensor<64x64xf32, #mma>
}

// -----

// wgmma reads 8-bit operands K-major: a B whose registers run along N is
// stored transposed into its buffer (no copy keeps it), with a warning.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 64, 16]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
func.func @f8_n_major_b(%a: tensor<64x64xf8E4M3FN, #blocked>, %b: tensor<64x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %0 = tile.convert_layout %a : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #dot_a>
  %1 = tile.convert_layout %b : tensor<64x64xf8E5M2, #blocked> -> tensor<64x64xf8E5M2, #dot_b>
  // expected-warning @+1 {{the 8-bit B operand of this mma is transposed through registers: wgmma reads 8-bit operands with K contiguous; load B from an (N, K) tensor with order=(1, 0) to copy it straight to shared memory}}
  %2 = tile.mma %0, %1, %c : tensor<64x64xf8E4M3FN, #dot_a>, tensor<64x64xf8E5M2, #dot_b>, tensor<64x64xf32, #mma>
  return %2 : tensor<64x64xf32, #mma>
}
