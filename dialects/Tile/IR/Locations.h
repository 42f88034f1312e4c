//===- Locations.h - Where in the user's source an op is -------*- C++ -*-===//
//
// Diagnostics about code the user wrote name a file:line:col. Ops made by
// the passes carry the location of the code they came from, but folding
// erases the location of the constants it merges (MLIR's OperationFolder
// gives them an unknown one): for those, the code that uses the value is
// where the user looks.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_LOCATIONS_H
#define TILE_IR_LOCATIONS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// True when `loc` names a place in a file (directly, or within a fused,
/// named or call-site location).
bool hasSourceLocation(Location loc);

/// The location to report `op` at: its own when it names a place in a file,
/// else that of the first of its users (in the order they appear) that
/// does, else that of the nearest enclosing op that does, else its own.
Location getUserFacingLoc(Operation *op);

} // namespace mlir::tile

#endif // TILE_IR_LOCATIONS_H
