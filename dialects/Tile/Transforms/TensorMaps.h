//===- TensorMaps.h - TMA descriptors as kernel parameters ------*- C++ -*-===//
//
// What tile-convert-copies-to-tma and tile-convert-stores-to-tma share: the
// tensor map (box and swizzle) of a tile copied between a global tensor and
// a shared memory buffer, and the kernel parameter that carries it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_TENSORMAPS_H
#define TILE_TRANSFORMS_TENSORMAPS_H

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// The most TMA descriptors a kernel takes (KernelInfo's kMaxTensorMaps).
constexpr unsigned kMaxTensorMaps = 16;

/// A tile of `shape` at tile coordinates seen through `order` of `tensor`
/// (a kernel parameter, or a view of one), moved to or from a buffer of
/// `bufType`.
struct TmaTile {
  Value tensor;
  ArrayRef<int64_t> shape;
  std::optional<ArrayRef<int32_t>> order;
  SharedMemoryType bufType;
  Location loc;
  /// A gathered copy's view dimension and number of boxes along it (one
  /// box of the map each, stacked along the buffer's slowest dimension).
  std::optional<unsigned> boxDim = std::nullopt;
  int64_t numBoxes = 1;
};

/// The tensor map of `tile` and the index of its tensor's parameter; why
/// TMA cannot move it, if so (the kernel's `tile.tensor_alignment`, the
/// tensor's rank and element type, the buffer's layout, the box's limits).
std::string describeTensorMap(func::FuncOp func, const TmaTile &tile,
                              TensorMapType &map, unsigned &param);

/// The kernel parameter holding the descriptor of `map` for parameter
/// `param`, added (after the others, listed in `tile.tensor_maps`) when
/// new; failure when the kernel has kMaxTensorMaps already.
FailureOr<Value> getTensorMapArgument(func::FuncOp func, unsigned param,
                                      TensorMapType map);

/// The element coordinates of a TMA copy of `tensor`: tile index i times
/// the tile's extent, at tensor dimension order[i], moved by the starts of
/// the views `tensor` is made by into the viewed tensor's (whose descriptor
/// the copy uses: describeTensorMap).
SmallVector<Value> tmaCoordinates(OpBuilder &b, Location loc, Value tensor,
                                  ValueRange indices, ArrayRef<int64_t> shape,
                                  std::optional<ArrayRef<int32_t>> order);

/// Whether a TMA copy may do `write` (a store or atomic of a tile), as far
/// as where it is goes: only loops hold it between it and the kernel's top
/// (each trip's copy can wait for the previous one's read of a buffer
/// allocated before the outermost), and no `tile.block_atomic` may run
/// after it (later in program order, or in a loop around both: the atomic
/// releases the block's writes, which a copy completing later would
/// escape). tile-convert-stores-to-tma's rule; tile-pipeline counts on it
/// when it sizes what a loop's body needs beside carried rings.
bool isPlaceableTmaWrite(func::FuncOp func, Operation *write);

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_TENSORMAPS_H
