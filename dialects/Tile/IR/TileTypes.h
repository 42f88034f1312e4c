//===- TileTypes.h - Types and attributes of the tile dialect --*- C++ -*-===//

#ifndef TILE_IR_TILETYPES_H
#define TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/Types.h"

#include <string>

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileEnums.h.inc"
#include "Tile/IR/TileLayoutInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.h.inc"

namespace mlir::tile {

/// True for the element types a tile may hold: f16, bf16, f32, i32, i1,
/// f8E4M3FN, f8E5M2.
bool isTileElementType(Type type);

/// True for the 8-bit floats (f8E4M3FN, f8E5M2): storage, conversion and
/// mma only.
bool isFloat8Type(Type type);

/// The elements of an mma operand of element type `type` that one 32-bit
/// register holds, adjacent along K (the dot_operand layout's kWidth): 4
/// in 8 bits (8-bit floats, i8), 2 in 16 (f16, bf16), 1 for f32 (read as
/// tf32). An instruction's K step is 32 bytes: 8 times this.
unsigned getMmaKWidth(Type type);

/// Whether mma operands of element type `type` must lie K-major (K their
/// fastest dimension) where the tensor cores read them from shared memory:
/// every type but the 16-bit ones, which alone ldmatrix and wgmma
/// transpose (8-bit floats, i8, and f32 read as tf32).
bool isKMajorMmaType(Type type);

/// How diagnostics name the K-major operand types: "f32 (tf32)" or
/// "8-bit".
StringRef getKMajorMmaTypeName(Type type);

/// Whether an mma multiplies elements of types `a` and `b`: both f16, both
/// bf16, 8-bit floats (either in each), both i8, or both f32 (multiplied
/// as tf32: the low 13 bits of each mantissa are not read).
bool isMmaOperandPair(Type a, Type b);

/// The element type of the accumulator of an mma on `operand`s: i32 for
/// i8, f32 otherwise.
Type getMmaAccumulatorType(Type operand);

/// An element type as the .tile language spells it (bool, f8e4m3, f8e5m2;
/// f16, bf16, f32, i32 as MLIR prints them), for diagnostics about .tile
/// input.
std::string getLanguageTypeName(Type type);

/// True when `type` is a tile: a ranked tensor of rank 1 or more with a
/// static shape whose dimensions are powers of two (at most 2^24 elements)
/// and whose element type is a tile element type.
bool isTileType(Type type);

/// Checks what the passes after layout assignment need of a tensor type: a
/// tile in a distributed layout (blocked, mma, dot_operand, slice or linear).
/// Otherwise reports, through `emitError` (which names the op and the value),
/// that it is not a tile, has no layout ("run tile-assign-layouts first") or
/// has an encoding that is not a distributed layout. Other types pass.
LogicalResult verifyLaidOutTile(Type type,
                                function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::tile

#endif // TILE_IR_TILETYPES_H
