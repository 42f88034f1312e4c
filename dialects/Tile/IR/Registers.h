//===- Registers.h - What a thread holds in registers -----------*- C++ -*-===//
//
// The register counts that tile-check-resources (which refuses what a
// thread cannot hold) and the lowering of warp specialization (which picks
// how many blocks share a multiprocessor, and so what a thread starts with)
// must agree on.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_REGISTERS_H
#define TILE_IR_REGISTERS_H

#include "Tile/IR/TileOps.h"

namespace mlir::tile {

/// What is around a wgmma in registers besides its operands (addresses,
/// loop counters, barrier phases, predicates): ptxas needs this many more
/// than the instruction binds (measured: 12 to 22 on attention and GEMM).
inline constexpr int64_t kRegistersAroundWgmma = 16;

/// What ptxas holds around a loop's mma.sync multiplies beyond the tiles
/// liveTileRegistersBefore counts (copy addresses, loop counters, the next
/// operand slices in flight): measured 69 to 95 on sm_80 attention kernels
/// (kernels/attention_*.tile at 64 to 128 wide tiles, 4 and 8 warps) that
/// did not spill; tile-reread-invariant-operands weighs a held operand
/// against it.
inline constexpr int64_t kRegistersAroundMma = 80;

/// The most registers a consumer warpgroup's thread of a warp-specialized
/// kernel rises to (setmaxnreg; the lowering of tile.warp_specialize).
inline constexpr int64_t kMaxConsumerRegisters = 240;

/// Registers a thread holds of a laid-out tile: its elements per thread,
/// packed in 32-bit words. 0 for a type that is not one.
int64_t registersOf(Type type);

/// Registers a consumer thread of a warp-specialized block rises to
/// (setmaxnreg.inc) when the block's `threads` threads start with `atEntry`
/// registers each and the producer warpgroup's 128 drop to
/// `producerRegisters`: what that frees over the `consumers` threads, in
/// the units of 8 the GPU allocates, at most kMaxConsumerRegisters; 0 where
/// that is no more than `atEntry` (no rise).
int64_t consumerRegistersAt(int64_t atEntry, int64_t threads, int64_t consumers,
                            int64_t producerRegisters);

/// Registers one wgmma instruction binds at once per thread: its part of
/// the accumulator (one instruction's shape: a tile of several makes
/// several instructions, each binding its own), its part of the A operand
/// when that is in registers, and two descriptors of 2. ptxas checks this
/// against the registers a thread starts with (C7602), not those
/// setmaxnreg raises it to: a 128 x 128 f32 accumulator on one warpgroup,
/// two m64n128 instructions of 64 each, compiles at 128 registers at entry
/// where one m64n256 of 128 does not.
int64_t wgmmaBoundRegisters(WarpgroupMmaOp mma);

/// The parts of wgmmaBoundRegisters: one instruction's accumulator and A
/// operand registers per thread (A's 0 where it is in shared memory).
std::pair<int64_t, int64_t> wgmmaInstructionOperands(WarpgroupMmaOp mma);

/// The registers a thread needs to run every wgmma under `root`: the most
/// one binds plus kRegistersAroundWgmma; 0 without a wgmma.
int64_t wgmmaRegistersNeeded(Operation *root);

struct TargetLimits;

/// The most blocks a multiprocessor holds of the kernel around `loop`,
/// shared memory aside: by its threads (tile.num_warps, and a producer
/// warpgroup where it is warp-specialized) and by the registers its threads
/// need around the loop's multiplies (an estimate: the tiles live before
/// each, and what is around a wgmma). What a pass that adds shared memory
/// for a loop weighs a block's shared memory against.
int64_t mostBlocksAround(Operation *loop, const TargetLimits &limits);

/// Registers of laid-out tiles a thread holds live right before `at`, an
/// op of a loop's body: the body's arguments and values defined before
/// `at` with a use at or after it, and values from above the loop that the
/// body uses. An estimate (tiles only: no addresses or scalars).
int64_t liveTileRegistersBefore(Operation *at);

} // namespace mlir::tile

#endif // TILE_IR_REGISTERS_H
