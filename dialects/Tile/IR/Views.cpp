//===- Views.cpp - Global tensors seen through tile.subview ---------------===//

#include "Tile/IR/Views.h"

#include "Tile/IR/IndexAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

SmallVector<SubviewOp> tile::getViews(Value tensor) {
  SmallVector<SubviewOp> views;
  while (auto view = tensor.getDefiningOp<SubviewOp>()) {
    views.push_back(view);
    tensor = view.getTensor();
  }
  return views;
}

Value tile::getViewedTensor(Value tensor) {
  while (auto view = tensor.getDefiningOp<SubviewOp>())
    tensor = view.getTensor();
  return tensor;
}

bool tile::viewNarrowsEnd(Value tensor) {
  return llvm::any_of(getViews(tensor),
                      [](SubviewOp view) { return !view.getEnds().empty(); });
}

int64_t tile::getViewContiguousDivisor(Value tensor) {
  int64_t divisor = int64_t(1) << 30;
  for (SubviewOp view : getViews(tensor)) {
    unsigned last = view.getTensor().getType().getRank() - 1;
    divisor = std::min(divisor, scalarDivisor(view.getStarts()[last]));
    if (Value end = view.getEnd(last))
      divisor = std::min(divisor, scalarDivisor(end));
  }
  return divisor;
}

bool tile::viewShiftsDim(Value tensor, unsigned dim) {
  return llvm::any_of(getViews(tensor), [&](SubviewOp view) {
    return !matchPattern(view.getStarts()[dim], m_Zero());
  });
}

Value tile::getViewedCoordinate(OpBuilder &b, Location loc, Value tensor,
                                unsigned dim, Value coord) {
  for (SubviewOp view : getViews(tensor)) {
    Value start = view.getStarts()[dim];
    if (matchPattern(start, m_Zero()))
      continue;
    // The view's start as the lowering clamps it into the viewed tensor.
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    Value size = DimOp::create(b, loc, view.getTensor(),
                               b.getI32IntegerAttr(int32_t(dim)));
    Value clamped = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, start, zero), size);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, coord, zero);
    coord = arith::SelectOp::create(
        b, loc, negative, coord, arith::AddIOp::create(b, loc, coord, clamped));
  }
  return coord;
}

std::optional<unsigned> tile::getViewedParam(Value tensor) {
  auto arg = dyn_cast<BlockArgument>(getViewedTensor(tensor));
  if (!arg || !arg.getOwner()->isEntryBlock())
    return std::nullopt;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn)
    return std::nullopt;
  // A TMA descriptor (the kernel's last arguments): its tile.tensor_maps
  // entry names the tensor.
  auto maps =
      fn->getAttrOfType<ArrayAttr>(TileDialect::getTensorMapsAttrName());
  int64_t entry = int64_t(arg.getArgNumber()) -
                  int64_t(fn.getNumArguments() - (maps ? maps.size() : 0));
  if (entry < 0)
    return arg.getArgNumber();
  auto dict = dyn_cast<DictionaryAttr>(maps[entry]);
  auto param = dict ? dict.getAs<IntegerAttr>("param") : IntegerAttr();
  if (!param)
    return std::nullopt;
  return unsigned(param.getInt());
}

std::optional<SmallVector<unsigned>> tile::getWrittenParams(Operation *func) {
  SmallVector<unsigned> params;
  bool known = true;
  func->walk([&](Operation *op) {
    // (Each write's first operand is its tensor, or a TMA store's map.)
    if (!isa<StoreOp, AtomicRMWOp, BlockAtomicOp, BlockExchangeOp, ScatterOp,
             TmaStoreOp>(op))
      return WalkResult::advance();
    std::optional<unsigned> param = getViewedParam(op->getOperand(0));
    if (!param) {
      known = false;
      return WalkResult::interrupt();
    }
    params.push_back(*param);
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  llvm::sort(params);
  params.erase(llvm::unique(params), params.end());
  return params;
}

std::optional<unsigned> tile::getUnwrittenParam(LoadOp load) {
  Operation *func = load->getParentOfType<FunctionOpInterface>();
  std::optional<unsigned> param = getViewedParam(load.getTensor());
  if (!func || !param)
    return std::nullopt;
  std::optional<SmallVector<unsigned>> written = getWrittenParams(func);
  if (!written || llvm::is_contained(*written, *param))
    return std::nullopt;
  return param;
}

void tile::recordReadAhead(Operation *func, unsigned param) {
  SmallVector<int32_t> ahead;
  if (auto old = func->getAttrOfType<DenseI32ArrayAttr>(
          TileDialect::getReadAheadParamsAttrName()))
    llvm::append_range(ahead, old.asArrayRef());
  if (!llvm::is_contained(ahead, int32_t(param)))
    ahead.push_back(int32_t(param));
  llvm::sort(ahead);
  SmallVector<int32_t> writes;
  if (std::optional<SmallVector<unsigned>> written = getWrittenParams(func))
    for (unsigned w : *written)
      writes.push_back(int32_t(w));
  Builder b(func->getContext());
  func->setAttr(TileDialect::getReadAheadParamsAttrName(),
                b.getDenseI32ArrayAttr(ahead));
  func->setAttr(TileDialect::getWrittenParamsAttrName(),
                b.getDenseI32ArrayAttr(writes));
}
