//===- TileTypes.h - Types and attributes of the tile dialect --*- C++ -*-===//

#ifndef TILE_IR_TILETYPES_H
#define TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/Types.h"

#include "Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.h.inc"

namespace mlir::tile {

/// True for the element types a tile may hold: f16, bf16, f32, i32, i1.
bool isTileElementType(Type type);

/// True when `type` is a tile: a ranked tensor with a static shape whose
/// dimensions are powers of two and whose element type is a tile element type.
bool isTileType(Type type);

} // namespace mlir::tile

#endif // TILE_IR_TILETYPES_H
