//===- Views.h - Global tensors seen through tile.subview ------*- C++ -*-===//
//
// A `tile.subview` is a part of a global tensor with run-time bounds (the
// language's `X[a:b, c:]`). Lowered, a view is a tensor like any other (a
// base pointer, sizes and strides), so loads, stores, gathers and copies
// through it need nothing of their own. What does depend on the chain of
// views a tensor is made by: the kernel parameter it reads (the alignment
// the launch checks, the TMA descriptor), how its starts move a TMA copy's
// coordinates, and what is known of the alignment of its starts along the
// contiguous dimension.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_VIEWS_H
#define TILE_IR_VIEWS_H

#include "Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {

/// The tensor `tensor` views: through every `tile.subview` it is made by,
/// the value at the root (a kernel parameter, usually).
Value getViewedTensor(Value tensor);

/// The views `tensor` is made by, the outermost (`tensor`'s own) first.
SmallVector<SubviewOp> getViews(Value tensor);

/// Whether a view `tensor` is made by ends before the tensor it views
/// along some dimension (it has `ends`): past it, a load reads padding
/// where the viewed tensor has elements (which TMA would read).
bool viewNarrowsEnd(Value tensor);

/// The largest power of two (up to 2^30) known to divide every start and
/// end of the views `tensor` is made by along the tensor's last
/// (contiguous) dimension; 2^30 where none bounds it. A vector access
/// through the view stays as aligned as one of that many elements.
int64_t getViewContiguousDivisor(Value tensor);

/// The element coordinate along tensor dimension `dim` of the tensor at the
/// root of `tensor`'s views, of `coord` in `tensor`, built at `b`'s
/// insertion point: each view's clamped start added, where `coord` is not
/// negative (a negative coordinate stays one, outside every tensor).
Value getViewedCoordinate(OpBuilder &b, Location loc, Value tensor,
                          unsigned dim, Value coord);

/// Whether some view `tensor` is made by may start past 0 along tensor
/// dimension `dim` (a start not the constant 0).
bool viewShiftsDim(Value tensor, unsigned dim);

/// The index of the kernel parameter `tensor` views (through its views;
/// for a TMA descriptor argument, the tensor its tile.tensor_maps entry
/// names), or none where it is not an argument of the kernel's entry block.
std::optional<unsigned> getViewedParam(Value tensor);

/// The tensor parameters `func` writes to global memory (stores, atomics,
/// scatters, TMA stores; sorted, once each), or none where some write's
/// tensor is not known to be a parameter.
std::optional<SmallVector<unsigned>> getWrittenParams(Operation *func);

/// The tensor parameter `load` reads where the kernel never writes it,
/// every tensor the kernel writes being a known parameter: a value that
/// may be read ahead of the kernel's own writes, provided no written
/// tensor overlaps it at launch (recordReadAhead). None otherwise.
std::optional<unsigned> getUnwrittenParam(LoadOp load);

/// Records that `func` reads tensor parameter `param` ahead of its writes:
/// adds it to the kernel's tile.read_ahead_params and sets
/// tile.written_params to the parameters it writes, which the launch checks
/// do not overlap it.
void recordReadAhead(Operation *func, unsigned param);

} // namespace mlir::tile

#endif // TILE_IR_VIEWS_H
