//===- ValueSources.h - What a kernel's values follow from -----*- C++ -*-===//
//
// What tile-group-tile-order (which of the block's x and y a multiply's
// operands follow from) and tile-multicast-copies (which values may differ
// between the blocks of a cluster) share: a forward analysis of which of a
// client's sources, bits of a mask, each value of a function follows from,
// through the operands of its ops and through the loops and branches that
// decide it, to a fixed point over its loops:
//
//   scf.for     the induction variable: the bounds and step; an iteration
//               argument and its result: those, its init and its yield
//   scf.while   a before-argument: its init and the after-body's yield; an
//               after-argument and its result: the condition and what the
//               condition passes
//   scf.if      a result: the condition and both regions' yields
//   other ops   their results: what the client's `sources` says for the op,
//               or where it says nothing, the union of the operands'
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_VALUESOURCES_H
#define TILE_TRANSFORMS_VALUESOURCES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::tile {

class ValueSources {
public:
  /// The sources of an op's results where the client decides them (the
  /// analysis so far as the second argument, for a rule that reads its
  /// operands'), or nullopt: the union of its operands'. Asked for every op
  /// with results but scf.for, scf.while and scf.if.
  using SourceFn = llvm::function_ref<std::optional<unsigned>(
      Operation *, const ValueSources &)>;

  ValueSources(Operation *root, SourceFn sources);

  /// The sources `v` follows from (0: none).
  unsigned of(Value v) const { return deps.lookup(v); }
  unsigned ofAll(ValueRange values) const;

  /// The sources of the loops' bounds and the branches' conditions that
  /// decide whether `op` runs, up to `root`; nullopt where an op with
  /// regions other than scf.for, scf.while and scf.if, and not one that
  /// `transparent` accepts, encloses it.
  std::optional<unsigned>
  deciding(Operation *op,
           llvm::function_ref<bool(Operation *)> transparent) const;

private:
  bool add(Value v, unsigned sources);
  bool visit(Operation *op, SourceFn sources);

  Operation *root;
  llvm::DenseMap<Value, unsigned> deps;
};

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_VALUESOURCES_H
