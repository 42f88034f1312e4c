//===- ValueSources.cpp - Which sources a kernel's values follow from -----===//

#include "Tile/Transforms/ValueSources.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

ValueSources::ValueSources(Operation *root, SourceFn sources) : root(root) {
  bool changed = true;
  while (changed) {
    changed = false;
    root->walk([&](Operation *op) { changed |= visit(op, sources); });
  }
}

unsigned ValueSources::ofAll(ValueRange values) const {
  unsigned d = 0;
  for (Value v : values)
    d |= of(v);
  return d;
}

bool ValueSources::add(Value v, unsigned sources) {
  if (!sources)
    return false;
  unsigned &mine = deps[v];
  unsigned old = mine;
  mine |= sources;
  return mine != old;
}

bool ValueSources::visit(Operation *op, SourceFn sources) {
  bool changed = false;
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    unsigned bounds =
        ofAll({f.getLowerBound(), f.getUpperBound(), f.getStep()});
    changed |= add(f.getInductionVar(), bounds);
    auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
    for (unsigned i = 0; i < f.getNumResults(); ++i) {
      unsigned d = bounds | of(f.getInitArgs()[i]) | of(yield.getOperand(i));
      changed |= add(f.getRegionIterArgs()[i], d) | add(f.getResult(i), d);
    }
    return changed;
  }
  if (auto w = dyn_cast<scf::WhileOp>(op)) {
    scf::ConditionOp cond = w.getConditionOp();
    auto yield = cast<scf::YieldOp>(w.getAfterBody()->getTerminator());
    unsigned decides = of(cond.getCondition());
    for (unsigned i = 0; i < w.getBeforeArguments().size(); ++i)
      changed |= add(w.getBeforeArguments()[i],
                     of(w.getInits()[i]) | of(yield.getOperand(i)));
    for (unsigned i = 0; i < w.getNumResults(); ++i) {
      unsigned d = decides | of(cond.getArgs()[i]);
      changed |= add(w.getAfterArguments()[i], d) | add(w.getResult(i), d);
    }
    return changed;
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    unsigned decides = of(i.getCondition());
    for (unsigned r = 0; r < i.getNumResults(); ++r) {
      unsigned d = decides;
      for (Region *region : {&i.getThenRegion(), &i.getElseRegion()})
        if (!region->empty())
          d |= of(region->front().getTerminator()->getOperand(r));
      changed |= add(i.getResult(r), d);
    }
    return changed;
  }
  if (op->getNumResults() == 0)
    return false;
  std::optional<unsigned> own = sources(op, *this);
  unsigned d = own ? *own : ofAll(op->getOperands());
  for (Value r : op->getResults())
    changed |= add(r, d);
  return changed;
}

std::optional<unsigned> ValueSources::deciding(
    Operation *op, llvm::function_ref<bool(Operation *)> transparent) const {
  unsigned d = 0;
  for (Operation *p = op->getParentOp(); p && p != root; p = p->getParentOp()) {
    if (auto f = dyn_cast<scf::ForOp>(p))
      d |= ofAll({f.getLowerBound(), f.getUpperBound(), f.getStep()});
    else if (auto i = dyn_cast<scf::IfOp>(p))
      d |= of(i.getCondition());
    else if (auto w = dyn_cast<scf::WhileOp>(p))
      d |= of(w.getConditionOp().getCondition());
    else if (!transparent(p))
      return std::nullopt;
  }
  return d;
}
