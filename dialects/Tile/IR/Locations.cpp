//===- Locations.cpp - Where in the user's source an op is ----------------===//

#include "Tile/IR/Locations.h"

#include "mlir/IR/Block.h"

using namespace mlir;

bool tile::hasSourceLocation(Location loc) {
  bool found = false;
  loc->walk([&](Location inner) {
    if (isa<FileLineColLoc>(inner)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

Location tile::getUserFacingLoc(Operation *op) {
  if (hasSourceLocation(op->getLoc()))
    return op->getLoc();
  // The first user in program order: users of a value form no order, so
  // take the one earliest in its block among those in the same block as
  // the first found, which is where a constant hoisted by folding was used.
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    if (!hasSourceLocation(user->getLoc()))
      continue;
    if (!first || (user->getBlock() == first->getBlock() &&
                   user->isBeforeInBlock(first)))
      first = user;
  }
  if (first)
    return first->getLoc();
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (hasSourceLocation(p->getLoc()))
      return p->getLoc();
  return op->getLoc();
}
