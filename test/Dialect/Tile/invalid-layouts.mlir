// RUN: tile-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the layout attributes (TileLayouts.cpp),
// of the ops that code generation adds (TileOps.cpp: tile.convert_layout,
// tile.extract, tile.concat, tile.local_alloc, tile.local_load,
// tile.async_copy), of the code generation attributes of a kernel
// (TileDialect.cpp), and the ODS-generated constraint failures that matter.

//===----------------------------------------------------------------------===//
// #tile.blocked (BlockedLayoutAttr::verify)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{blocked layout: sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same non-zero length}}
func.func private @blocked_lengths(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{blocked layout: sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same non-zero length}}
func.func private @blocked_order_length(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1]>>)

// -----

// expected-error @+1 {{blocked layout: sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same non-zero length}}
func.func private @blocked_empty(tensor<64xf32, #tile.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>>)

// -----

// expected-error @+1 {{sizePerThread entries must be powers of two, got 3}}
func.func private @blocked_spt(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 3], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{sizePerThread entries must be powers of two, got 0}}
func.func private @blocked_spt_zero(tensor<64x64xf32, #tile.blocked<sizePerThread = [0, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{threadsPerWarp entries must be powers of two, got 0}}
func.func private @blocked_tpw(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [0, 32], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{warpsPerCTA entries must be powers of two, got 3}}
func.func private @blocked_wpc(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [3, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{blocked layout: threadsPerWarp must multiply to 32, got 16}}
func.func private @blocked_lanes16(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{blocked layout: threadsPerWarp must multiply to 32, got 64}}
func.func private @blocked_lanes64(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{blocked layout: order must be a permutation of the dimensions}}
func.func private @blocked_order_range(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [2, 0]>>)

// -----

// expected-error @+1 {{blocked layout: order must be a permutation of the dimensions}}
func.func private @blocked_order_repeat(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]>>)

// -----

// The parameters are a struct: all four, in this order.
// expected-error @+1 {{expected ','}}
func.func private @blocked_missing(tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.mma (MmaLayoutAttr::verify)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{mma layout: warpsPerCTA must have two entries}}
func.func private @mma_rank(tensor<64x64xf32, #tile.mma<warpsPerCTA = [4]>>)

// -----

// expected-error @+1 {{mma layout: warpsPerCTA must have two entries}}
func.func private @mma_rank3(tensor<64x64xf32, #tile.mma<warpsPerCTA = [2, 2, 1]>>)

// -----

// expected-error @+1 {{warpsPerCTA entries must be powers of two, got 3}}
func.func private @mma_pow2(tensor<64x64xf32, #tile.mma<warpsPerCTA = [3, 1]>>)

// -----

// expected-error @+1 {{warpsPerCTA entries must be powers of two, got 0}}
func.func private @mma_zero(tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 0]>>)

// -----

// Only mma.sync (2) and wgmma (3) exist.
// expected-error @+1 {{mma layout: version must be 2 (mma.sync) or 3 (wgmma), got 1}}
func.func private @mma_version(tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 1>>)

// -----

// expected-error @+1 {{mma layout: instrShape must be [M, N, K]}}
func.func private @mma_instr_rank(tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128]>>)

// -----

// Version 2 has one instruction shape: it may be written, but only as
// [16, 8, 16].
// expected-error @+1 {{mma layout: version 2 is mma.sync.m16n8k16, instrShape must be [16, 8, 16]}}
func.func private @mma_v2_instr(tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>>)

// -----

// Version 3 needs its instrShape: there is no default N.
// expected-error @+1 {{mma layout: version 3 is wgmma.m64nNk16 with N a multiple of 8 up to 256: instrShape must be [64, N, 16]}}
func.func private @mma_v3_no_instr(tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>)

// -----

// N not a multiple of 8.
// expected-error @+1 {{mma layout: version 3 is wgmma.m64nNk16 with N a multiple of 8 up to 256: instrShape must be [64, N, 16]}}
func.func private @mma_v3_n_multiple(tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 12, 16]>>)

// -----

// N above 256.
// expected-error @+1 {{mma layout: version 3 is wgmma.m64nNk16 with N a multiple of 8 up to 256: instrShape must be [64, N, 16]}}
func.func private @mma_v3_n_large(tensor<128x512xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 512, 16]>>)

// -----

// M is always 64 and K always 16 (f16/bf16).
// expected-error @+1 {{mma layout: version 3 is wgmma.m64nNk16 with N a multiple of 8 up to 256: instrShape must be [64, N, 16]}}
func.func private @mma_v3_m(tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [128, 128, 16]>>)

// -----

// expected-error @+1 {{mma layout: version 3 is wgmma.m64nNk16 with N a multiple of 8 up to 256: instrShape must be [64, N, 16]}}
func.func private @mma_v3_k(tensor<128x128xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 32]>>)

// -----

// Warpgroups are 4 warps along M: [2, 2] splits one across N.
// expected-error @+1 {{mma layout: version 3 runs on warpgroups of 4 warps along M: warpsPerCTA[0] must be a multiple of 4}}
func.func private @mma_v3_warps(tensor<128x128xf32, #tile.mma<warpsPerCTA = [2, 2], version = 3, instrShape = [64, 64, 16]>>)

// -----

// The powers-of-two check on warpsPerCTA comes first.
// expected-error @+1 {{warpsPerCTA entries must be powers of two, got 12}}
func.func private @mma_v3_warps_pow2(tensor<128x128xf32, #tile.mma<warpsPerCTA = [12, 1], version = 3, instrShape = [64, 64, 16]>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.dot_operand (DotOperandLayoutAttr::verify)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{dot_operand layout: opIdx must be 0 (A) or 1 (B)}}
func.func private @dot_opidx(tensor<64x16xf16, #tile.dot_operand<opIdx = 2, parent = #tile.mma<warpsPerCTA = [4, 1]>>>)

// -----

// The parent must be an mma layout.
// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse Tile_DotOperandLayoutAttr parameter 'parent' which is to be a `MmaLayoutAttr`}}
func.func private @dot_parent(tensor<64x16xf16, #tile.dot_operand<opIdx = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.shared (SharedLayoutAttr::verify): block
//===----------------------------------------------------------------------===//

// expected-error @+1 {{shared layout: block must be a power of two of at least vec * maxPhase elements, got 48}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 48>

// -----

// A block narrower than one swizzle row (vec * maxPhase = 64 elements): the
// XOR would move chunks out of it.
// expected-error @+1 {{shared layout: block must be a power of two of at least vec * maxPhase elements, got 32}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 32>

// -----

// Blocks of columns need rows: a 1-D buffer has none.
// expected-error @+1 {{shared layout: block needs two or more dimensions}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0], block = 64>

// -----

//===----------------------------------------------------------------------===//
// !tile.smem
//===----------------------------------------------------------------------===//

// Its layout must be a #tile.shared layout.
// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse Tile_SharedMemoryType parameter 'layout' which is to be a `SharedLayoutAttr`}}
func.func private @smem_layout(!tile.smem<[64, 64], f16, #tile.mma<warpsPerCTA = [4, 1]>>)

// -----

// Its layout's order covers every dimension (SharedMemoryType::verify).
#shared1d = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0]>
// expected-error @+1 {{the shared layout's order has 1 entries for a buffer of rank 2}}
func.func private @smem_order(!tile.smem<[64, 64], f16, #shared1d>)

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = []>
// expected-error @+1 {{the shared layout's order has 0 entries for a buffer of rank 2}}
func.func private @smem_order_empty(!tile.smem<[64, 128], f16, #shared>)

// -----

// It holds a tile.
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// expected-error @+1 {{shared memory buffer must hold a tile or a ring of tiles: at least one dimension, static dimensions (a leading stage dimension from 1 to 16 excepted), at most 2^24 (padded) elements, and f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements}}
func.func private @smem_shape(!tile.smem<[8192, 4096], f16, #shared>)

// -----

// A ring: any number of stages from 1 to 16, then a tile.
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
// expected-error @+1 {{shared memory buffer must hold a tile or a ring of tiles}}
func.func private @smem_ring_depth(!tile.smem<[17, 2048, 1024], f16, #shared3>)

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// expected-error @+1 {{shared memory buffer must hold a tile}}
func.func private @smem_negative(!tile.smem<[-64, 64], f16, #shared>)

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = []>
// expected-error @+1 {{shared memory buffer must hold a tile}}
func.func private @smem_rank0(!tile.smem<[], f16, #shared>)

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// expected-error @+1 {{shared memory buffer must hold a tile}}
func.func private @smem_element_type(!tile.smem<[64, 64], f64, #shared>)

// -----

// rows: whole swizzle periods of rows (8 here), on two or more dimensions.
// expected-error @+1 {{shared layout: rows must be a multiple of the swizzle's period (and of 8) on two or more dimensions, got 84}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64, rows = 84>

// -----

// expected-error @+1 {{shared layout: rows must be a multiple of the swizzle's period (and of 8) on two or more dimensions, got 8}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0], rows = 8>

// -----

// A buffer's rows (order[1]) stored: at least its own, at most their padding
// (SharedMemoryType::verify).
#srows = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64, rows = 72>
// expected-error @+1 {{the shared layout's 72 rows must hold the buffer's 80 and be at most their padding}}
func.func private @smem_rows_hold(!tile.smem<[80, 256], f16, #srows>)

// -----

#srows2 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64, rows = 136>
// expected-error @+1 {{the shared layout's 136 rows must hold the buffer's 80 and be at most their padding}}
func.func private @smem_rows_padding(!tile.smem<[80, 256], f16, #srows2>)

// -----

// cols: a row at its own width, unswizzled, without blocks, in whole vectors.
// expected-error @+1 {{shared layout: cols (the rows' own width) needs an unswizzled layout without blocks and a multiple of vec, got 152}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], cols = 152>

// -----

// expected-error @+1 {{shared layout: cols (the rows' own width) needs an unswizzled layout without blocks and a multiple of vec, got 148}}
#s = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 148>

// -----

// A buffer's columns (order[0]) stored: at least its own, at most their
// padding (SharedMemoryType::verify).
#scols = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 144>
// expected-error @+1 {{the shared layout's 144 columns must hold the buffer's 152 and be at most their padding}}
func.func private @smem_cols_hold(!tile.smem<[128, 152], f16, #scols>)

// -----

// The block cuts the buffer's fastest dimension (order[0]) into whole
// blocks (SharedMemoryType::verify).
#sblock = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
// expected-error @+1 {{the shared layout's block of 64 columns does not divide the buffer's fastest dimension (32)}}
func.func private @smem_block_divides(!tile.smem<[128, 32], f16, #sblock>)

// -----

// Column-major: the fastest dimension is dimension 0 (32 here), not the last.
#sblock_t = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
// expected-error @+1 {{the shared layout's block of 64 columns does not divide the buffer's fastest dimension (32)}}
func.func private @smem_block_divides_t(!tile.smem<[32, 128], f16, #sblock_t>)

// -----

//===----------------------------------------------------------------------===//
// Kernel attributes set by code generation (TileDialect.cpp)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32}}
func.func private @num_warps_3() attributes {tile.num_warps = 3 : i32}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32}}
func.func private @num_warps_64() attributes {tile.num_warps = 64 : i32}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32}}
func.func private @num_warps_str() attributes {tile.num_warps = "4"}

// -----

// expected-error @+1 {{'tile.shared_bytes' must be an integer}}
func.func private @shared_bytes() attributes {tile.shared_bytes = 1.0 : f32}

// -----

// expected-error @+1 {{'tile.smem_offset' must be an integer}}
func.func private @smem_offset() attributes {tile.smem_offset = "0"}

// -----

// expected-error @+1 {{'tile.slot_bytes' must be an integer}}
func.func private @slot_bytes() attributes {tile.slot_bytes = "0"}

// -----

// expected-error @+1 {{'tile.tensor_alignment' must be a power of two (bytes)}}
func.func private @tensor_alignment_15() attributes {tile.tensor_alignment = 15 : i32}

// -----

// expected-error @+1 {{'tile.tensor_alignment' must be a power of two (bytes)}}
func.func private @tensor_alignment_0() attributes {tile.tensor_alignment = 0 : i32}

// -----

// expected-error @+1 {{'tile.tensor_alignment' must be a power of two (bytes)}}
func.func private @tensor_alignment_str() attributes {tile.tensor_alignment = "16"}

// -----

//===----------------------------------------------------------------------===//
// tile.convert_layout
//===----------------------------------------------------------------------===//

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @convert_shape(%x: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'tile.convert_layout' op source 'tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>' and result 'tensor<64x32xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>' must differ only in their layout}}
  %0 = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x32xf32, #blocked>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @convert_element_type(%x: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{must differ only in their layout}}
  %0 = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf16, #blocked>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.extract
//===----------------------------------------------------------------------===//

func.func @extract_element_type(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.extract' op element types must match}}
  %0 = tile.extract %x [0, 0] : tensor<64x64xf32> -> tensor<64x16xf16>
  return
}

// -----

func.func @extract_offsets_rank(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.extract' op offsets and result must have the rank of the source (2)}}
  %0 = tile.extract %x [0] : tensor<64x64xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @extract_result_rank(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.extract' op offsets and result must have the rank of the source (2)}}
  %0 = tile.extract %x [0, 0] : tensor<64x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @extract_outside(%x: tensor<64x64xf32>) {
  // (Anywhere inside: at 8, a slice x[:, 8:24].)
  %ok = tile.extract %x [0, 8] : tensor<64x64xf32> -> tensor<64x16xf32>
  // expected-error @+1 {{'tile.extract' op the sub-tile at offset 56 of size 16 in dimension 1 must lie inside the source (64)}}
  %0 = tile.extract %x [0, 56] : tensor<64x64xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @concat_one(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.concat' op needs two or more inputs}}
  %0 = tile.concat %x {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.concat' op axis 2 is not a dimension of the result (rank 2)}}
  %0 = tile.concat %x, %x {axis = 2 : i32} : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @concat_type(%x: tensor<64x64xf32>, %y: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.concat' op input 1 must have the result's rank and element type}}
  %0 = tile.concat %x, %y {axis = 1 : i32} : tensor<64x64xf32>, tensor<64x64xf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @concat_other_dim(%x: tensor<64x64xf32>, %y: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.concat' op input 1 has size 32 in dimension 0, the result 64}}
  %0 = tile.concat %x, %y {axis = 1 : i32} : tensor<64x64xf32>, tensor<32x64xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @concat_sum(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.concat' op the inputs' sizes along axis 1 add up to 128, not the result's 256}}
  %0 = tile.concat %x, %x {axis = 1 : i32} : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x256xf32>
  return
}

// -----

func.func @extract_negative(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.extract' op the sub-tile at offset -16 of size 16 in dimension 0 must lie inside the source (64)}}
  %0 = tile.extract %x [-16, 0] : tensor<64x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @extract_too_big(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.extract' op the sub-tile at offset 0 of size 128 in dimension 0 must lie inside the source (64)}}
  %0 = tile.extract %x [0, 0] : tensor<64x64xf32> -> tensor<128x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.local_alloc
//===----------------------------------------------------------------------===//

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_alloc_shape(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op the buffer must have the tile's shape and element type}}
  %0 = tile.local_alloc %x : tensor<64x64xf16> -> !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

// Rows at their own width take no padding: a tile whose lanes hold padding
// beside its elements (a blocked layout's columns 152..191) would write it
// into the next row.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sc = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 152>
func.func @local_store_own_width(%x: tensor<64x152xf16, #blocked>, %b: !tile.smem<[64, 152], f16, #sc>) {
  // expected-error @+1 {{'tile.local_store' op a buffer whose rows are stored at their own width (cols) takes a tile whose padding is whole registers}}
  tile.local_store %x, %b : tensor<64x152xf16, #blocked>, !tile.smem<[64, 152], f16, #sc>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_alloc_element_type(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op the buffer must have the tile's shape and element type}}
  %0 = tile.local_alloc %x : tensor<64x64xf16> -> !tile.smem<[64, 64], bf16, #shared>
  return
}

// -----


#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_alloc_result(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op result #0 must be}}
  %0 = "tile.local_alloc"(%x) : (tensor<64x64xf16>) -> tensor<64x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.smem_view
//===----------------------------------------------------------------------===//

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @smem_view_larger(%b: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.smem_view' op the result takes 32768 bytes, more than the buffer's 16384}}
  %0 = tile.smem_view %b : !tile.smem<[64, 128], f16, #shared> -> !tile.smem<[128, 128], f16, #shared>
  return
}

// -----

#plain = #tile.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @smem_view_alignment(%b: !tile.smem<[128, 128], f16, #plain>) {
  // expected-error @+1 {{'tile.smem_view' op the result starts at a multiple of 1024 bytes, the buffer at one of 128}}
  %0 = tile.smem_view %b : !tile.smem<[128, 128], f16, #plain> -> !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.smem_permute
//===----------------------------------------------------------------------===//

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#shared_t = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
func.func @smem_permute_not_a_permutation(%b: !tile.smem<[128, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.smem_permute' op permutation}}
  %0 = tile.smem_permute %b [1, 1] : !tile.smem<[128, 64], f16, #shared> -> !tile.smem<[64, 128], f16, #shared_t>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#shared_t = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>
func.func @smem_permute_shape(%b: !tile.smem<[128, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.smem_permute' op the result must be the buffer's shape permuted, in its element type}}
  %0 = tile.smem_permute %b [1, 0] : !tile.smem<[128, 64], f16, #shared> -> !tile.smem<[128, 64], f16, #shared_t>
  return
}

// -----

// The view keeps the buffer's bytes: its layout is the buffer's with the
// order renamed, not another one (here the order left as it was).
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
func.func @smem_permute_layout(%b: !tile.smem<[128, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.smem_permute' op the result's shared layout must be the buffer's with its order permuted: #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], block = 64>}}
  %0 = tile.smem_permute %b [1, 0] : !tile.smem<[128, 64], f16, #shared> -> !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.local_load
//===----------------------------------------------------------------------===//

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_load_element_type(%b: !tile.smem<[64, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.local_load' op element types must match}}
  %0 = tile.local_load %b [0, 0] : !tile.smem<[64, 64], f16, #shared> -> tensor<64x16xf32>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_load_rank(%b: !tile.smem<[64, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.local_load' op offsets and result must have the rank of the source (2)}}
  %0 = tile.local_load %b [0, 0, 0] : !tile.smem<[64, 64], f16, #shared> -> tensor<64x16xf16>
  return
}

// -----

// A buffer of lower rank holds the tile without its size-1 dimensions: a
// result with other dimensions than those does not fit it.
#shared = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
func.func @local_load_reduced_rank(%b: !tile.smem<[64], f32, #shared>) {
  // expected-error @+1 {{'tile.local_load' op offsets and result must have the rank of the source (1)}}
  %0 = tile.local_load %b [0] : !tile.smem<[64], f32, #shared> -> tensor<2x64xf32>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_load_misaligned(%b: !tile.smem<[128, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.local_load' op the sub-tile at offset 24 of size 16 in dimension 0 must lie inside the source (128) at a multiple of its size}}
  %0 = tile.local_load %b [24, 0] : !tile.smem<[128, 64], f16, #shared> -> tensor<16x64xf16>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @local_load_outside(%b: !tile.smem<[128, 64], f16, #shared>) {
  // expected-error @+1 {{'tile.local_load' op the sub-tile at offset 128 of size 16 in dimension 0 must lie inside the source (128) at a multiple of its size}}
  %0 = tile.local_load %b [128, 0] : !tile.smem<[128, 64], f16, #shared> -> tensor<16x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.async_copy
//===----------------------------------------------------------------------===//

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_indices(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op expected 4 tile indices and shape entries}}
  tile.async_copy %Q[%i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_shape(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op expected 4 tile indices and shape entries}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 64, 128>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_order_length(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op order has 2 entries but the rank is 4}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, order = array<i32: 1, 0>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_order_range(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op order entry 4 is out of range [0, 4)}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, order = array<i32: 0, 1, 4, 2>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_order_repeat(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op order repeats dimension 2}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, order = array<i32: 0, 2, 2, 3>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @async_buffer_shape(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[1, 64, 128], f16, #shared>) {
  // The buffer keeps the size-1 dimensions: not allowed.
  // expected-error @+1 {{'tile.async_copy' op the buffer must hold the tile without its size-1 dimensions, in the tensor's element type}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[1, 64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_buffer_element_type(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], bf16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op the buffer must hold the tile without its size-1 dimensions, in the tensor's element type}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #blocked}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], bf16, #shared>
  return
}

// -----

#blocked1d = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_layout_rank(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op the layout must have the buffer's rank}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #blocked1d}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_padding_type(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op padding value type 'f32' does not match the element type 'f16'}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #blocked, padding = 0xFF800000 : f32}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_layout_kind(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // The copy layout must be a blocked layout.
  // expected-error @+1 {{'tile.async_copy' op attribute 'layout' failed to satisfy constraint}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>, layout = #mma}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @async_layout_missing(%Q: !tile.global<f16, 4>, %i: i32, %buf: !tile.smem<[64, 128], f16, #shared>) {
  // expected-error @+1 {{'tile.async_copy' op requires attribute 'layout'}}
  tile.async_copy %Q[%i, %i, %i, %i], %buf {shape = array<i64: 1, 1, 64, 128>}
      : !tile.global<f16, 4>, !tile.smem<[64, 128], f16, #shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.async_wait
//===----------------------------------------------------------------------===//

func.func @async_wait_tile(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.async_wait' op operand #0 must be}}
  "tile.async_wait"(%x) : (tensor<64x64xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.smem_alloc, tile.smem_slot, tile.barrier, loop attributes
//===----------------------------------------------------------------------===//

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @smem_alloc_order() {
  // expected-error @+1 {{the shared layout's order has 2 entries for a buffer of rank 3}}
  %0 = tile.smem_alloc : !tile.smem<[2, 64, 64], f16, #shared>
  return
}

// -----

#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @smem_alloc_empty() {
  // expected-error @+1 {{shared memory buffer must hold a tile or a ring of tiles}}
  %0 = tile.smem_alloc : !tile.smem<[0, 64, 64], f16, #shared3>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @smem_slot_shape(%ring: !tile.smem<[3, 64, 64], f16, #shared3>, %i: i32) {
  // expected-error @+1 {{'tile.smem_slot' op the result must be one stage of the ring: its shape without the leading dimension, in its element type}}
  %0 = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 64], f16, #shared3> -> !tile.smem<[64, 32], f16, #shared>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @smem_slot_element(%ring: !tile.smem<[3, 64, 64], f16, #shared3>, %i: i32) {
  // expected-error @+1 {{'tile.smem_slot' op the result must be one stage of the ring}}
  %0 = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 64], f16, #shared3> -> !tile.smem<[64, 64], bf16, #shared>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 2, 0]>
func.func @smem_slot_layout(%ring: !tile.smem<[3, 64, 64], f16, #shared3>, %i: i32) {
  // The stage's order [1, 0] needs the ring's [2, 1, 0].
  // expected-error @+1 {{'tile.smem_slot' op the ring's shared layout must be the stage's, with the stage dimension slowest}}
  %0 = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 64], f16, #shared3> -> !tile.smem<[64, 64], f16, #shared>
  return
}

// -----

#shared2 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @smem_slot_swizzle(%ring: !tile.smem<[3, 64, 64], f16, #shared3>, %i: i32) {
  // expected-error @+1 {{'tile.smem_slot' op the ring's shared layout must be the stage's, with the stage dimension slowest}}
  %0 = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 64], f16, #shared3> -> !tile.smem<[64, 64], f16, #shared2>
  return
}

// -----

#sblock = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
#sblock3 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
func.func @smem_slot_block(%ring: !tile.smem<[3, 64, 128], f16, #sblock3>, %i: i32) {
  // The ring must have the stage's block too (here it has none).
  // expected-error @+1 {{'tile.smem_slot' op the ring's shared layout must be the stage's, with the stage dimension slowest}}
  %0 = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 128], f16, #sblock3> -> !tile.smem<[64, 128], f16, #sblock>
  return
}

// -----

#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @smem_slot_rank(%b: !tile.smem<[64, 64], f16, #shared>, %i: i32) {
  // expected-error @+1 {{'tile.smem_slot' op the result must be one stage of the ring}}
  %0 = tile.smem_slot %b[%i] : !tile.smem<[64, 64], f16, #shared> -> !tile.smem<[64, 64], f16, #shared>
  return
}

// -----

func.func @barrier_half_named() {
  // expected-error @+1 {{'tile.barrier' op a named barrier needs both 'id' and 'num_threads'}}
  tile.barrier {id = 1 : i32}
  return
}

// -----

func.func @barrier_warpgroup_named() {
  // expected-error @+1 {{'tile.barrier' op a warpgroup barrier takes no 'id', 'num_threads' or 'cluster'}}
  tile.barrier {warpgroup, id = 1 : i32, num_threads = 128 : i32}
  return
}

// -----

func.func @barrier_threads() {
  // expected-error @+1 {{'tile.barrier' op 'num_threads' must be a multiple of 32, not 100}}
  tile.barrier {id = 1 : i32, num_threads = 100 : i32}
  return
}

// -----

func.func @barrier_id() {
  // expected-error @+1 {{'tile.barrier' op attribute 'id' failed to satisfy constraint}}
  tile.barrier {id = 16 : i32, num_threads = 128 : i32}
  return
}

// -----

func.func @async_wait_pending() {
  // expected-error @+1 {{'tile.async_wait' op attribute 'pending' failed to satisfy constraint}}
  tile.async_wait all {pending = -1 : i32}
  return
}

// -----

func.func @pipelined_unit(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tile.pipelined' must be a unit attribute}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.pipelined = 1 : i32}
  return
}

// -----

func.func @scan_axis(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.scan' op axis 2 is out of range for a rank-2 tile}}
  %0 = tile.scan sum %x {axis = 2 : i32} : tensor<64x64xf32>
  return
}

// -----

func.func @scan_i1(%x: tensor<64x64xi1>) {
  // expected-error @+1 {{'tile.scan' op cannot sum an i1 tile; cast it to i32 first}}
  %0 = tile.scan sum %x {axis = 0 : i32} : tensor<64x64xi1>
  return
}

// -----

// kWidth: elements along K in a 32-bit register, 1 (f32 as tf32), 2 (16-bit)
// or 4 (8-bit).
// expected-error @+1 {{dot_operand layout: kWidth must be 1 (f32 elements, read as tf32), 2 (16-bit) or 4 (8-bit), not 8}}
func.func private @dot_kwidth(tensor<64x16xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>, kWidth = 8>>)


// -----

//===----------------------------------------------------------------------===//
// #tile.linear (LinearLayoutAttr::verify, verifyEncoding)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{linear layout: a warp's 32 lanes need 5 lane bases, got 4}}
func.func private @linear_lanes(tensor<16x8xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 4]], lane = [[0, 2], [1, 0], [2, 0], [4, 0]], warp = []>>)

// -----

// expected-error @+1 {{linear layout: register basis 1 is zero (a register holds distinct elements)}}
func.func private @linear_zero_register(tensor<16x8xf32, #tile.linear<register = [[0, 1], [0, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>)

// -----

// expected-error @+1 {{linear layout: every basis needs the same non-zero number of coordinates}}
func.func private @linear_ranks(tensor<16x8xf32, #tile.linear<register = [[0, 1], [8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>)

// -----

// expected-error @+1 {{steps past dimension 0 of a tile of 16}}
func.func private @linear_past(tensor<16x8xf32, #tile.linear<register = [[0, 1], [16, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>)

// -----

// Rows 8-15 held by no register: not every element is held.
// expected-error @+1 {{does not hold every element of the tile once in a thread's registers}}
func.func private @linear_uncovered(tensor<16x8xf32, #tile.linear<register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>)

// -----

// expected-error @+1 {{is for rank-2 tiles, not rank 1}}
func.func private @linear_rank(tensor<128xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>)
