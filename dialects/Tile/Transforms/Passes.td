//===- Passes.td - Passes over tile IR ---------------------*- tablegen -*-===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::func::FuncOp"> {
  let summary = "Give every tile a distributed layout";
  let description = [{
    Chooses how each tile of a kernel is spread over threads and registers,
    and makes it part of the tile's type:

    - loads and stores get a blocked layout that makes each thread move up to
      16 contiguous bytes and each warp cover contiguous memory;
    - `tile.mma` gets the mma.sync accumulator layout for its result and
      accumulator and the matching operand layouts for A and B;
    - layouts then flow forward through element-wise ops, broadcasts,
      reductions (as slices) and loops, and backward into the ops that are
      free to take any layout (constants, `tile.full`, `tile.arange` and what
      is computed from them only), so that masks and softmax statistics are
      computed directly in the layout of the accumulator they update;
    - where a value's layout differs from what a use needs,
      `tile.convert_layout` is inserted.

    The kernel gets a `tile.num_warps` attribute.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per thread block">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "Widest global memory access per thread, in bytes (alignment)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "::mlir::func::FuncOp"> {
  let summary = "Fold away layout conversions that are not needed";
  let description = [{
    Removes `tile.convert_layout` ops whose source already has the target
    layout, chains of conversions, and conversions of values that are free
    to be recomputed in the target layout (constants, splats), by
    re-creating those values in the layout their user needs.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileLoopSplit : Pass<"tile-loop-split", "::mlir::func::FuncOp"> {
  let summary = "Split loops at a branch on the induction variable";
  let description = [{
    An `scf.for` whose body branches on a comparison of its induction
    variable with a loop-invariant bound (an `scf.if` on an `arith.cmpi`, or
    an `arith.select` of one) is split into two loops without the branch:
    the iterations before the split point, where the comparison has one
    value, and those after it, where it has the other. For flash attention
    with a causal mask this separates the key tiles that need no mask from
    the ones that do.

    Handles `<`, `<=`, `>`, `>=` (signed and unsigned) with the induction
    variable on either side, any positive step, split points outside
    `[lb, ub)` (one of the loops then runs zero times) and loop-carried
    values (the first loop's results are the second's initial values).

    A loop is left alone when it carries the attribute
    `tile.loop_split = false`, or when its body has more than `max-ops`
    operations (the body is duplicated).
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", "4000",
           "Largest loop body (in operations) that is split">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileStageMmaOperands
    : Pass<"tile-stage-mma-operands", "::mlir::func::FuncOp"> {
  let summary = "Feed mma from shared memory, one K slice at a time";
  let description = [{
    An mma operand that reaches its operand layout through shared memory
    (a loaded K or V tile, say) is written once to a swizzled shared memory
    buffer (`tile.local_alloc`), and the mma is split along K into steps of
    16: each step reads just its slice of the operands (`tile.local_load`,
    which becomes `ldmatrix`) right before its `mma.sync`. Operands already
    in registers (the P tile of attention) are sliced with `tile.extract`.
    So a thread never holds a whole operand tile in registers.

    A tile that comes straight from `tile.load` is copied with
    `tile.async_load` (cp.async) instead, bypassing registers; each copy is
    issued as early as its block allows (after the ops its indices come
    from and after earlier copies) and waited for (`tile.async_wait`, with
    the number of later copies that may stay in flight) right before the
    first read, so that it overlaps with the work in between.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
