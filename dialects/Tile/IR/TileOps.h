//===- TileOps.h - Operations of the tile dialect --------------*- C++ -*-===//

#ifndef TILE_IR_TILEOPS_H
#define TILE_IR_TILEOPS_H

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
/// The thread block's shared memory.
struct SharedMemoryResource
    : public SideEffects::Resource::Base<SharedMemoryResource> {
  StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

namespace mlir::tile {
/// True when `op`, or an op nested in it, writes global memory (a store, an
/// atomic, a TMA store): what a load may not be moved across.
bool writesGlobalMemory(Operation *op);

/// True for a load's or copy's `padding` that reads as zero: absent, +0.0
/// or the integer 0 (what an async copy fills past the tensor's end).
bool isZeroPadding(Attribute padding);

/// True where `red.global` combines elements of type `elt` by `kind`, as
/// the language's tile atomics and combining scatters take them: sums of
/// f32, f16, bf16, i32 and i64, max and min of f32, i32 and i64 (f32
/// through the integer order of its bits), no product.
bool isTileAtomicSupported(ReduceKind kind, Type elt);

/// The element types isTileAtomicSupported takes for `kind`, as
/// diagnostics list them ("f32, i32 and i64").
StringRef getTileAtomicTypeList(ReduceKind kind);

/// True for a tile whose elements are all one value: a splat constant or a
/// `tile.full` of a scalar (made again in any layout for nothing).
bool isUniformTile(Value v);

/// The operand through which the element-wise `op` (one result) carries a
/// chain of element-wise work on a tile: its one operand that is neither a
/// uniform tile nor a `tile.broadcast` of a row or column beside it (a
/// per-row scale), or, where all non-uniform ones are broadcasts, the one
/// of those; null where there are several candidates or none.
Value chainOperand(Operation *op);
} // namespace mlir::tile

#endif // TILE_IR_TILEOPS_H
