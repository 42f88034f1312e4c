//===- TileDialect.h - The tile dialect ------------------------*- C++ -*-===//

#ifndef TILE_IR_TILEDIALECT_H
#define TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "Tile/IR/TileOpsDialect.h.inc"

#endif // TILE_IR_TILEDIALECT_H
