//===- PrintLayouts.cpp - Which thread holds which element ----------------===//
//
// tile-print-layouts: for each distinct laid-out tile type, the layout's
// linear form and a table of the (warp, lane, register) that holds each
// element; for each shared memory buffer type, the offset of each element.
// A debugging aid: the IR is left as it is.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPRINTLAYOUTS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when every dimension is a power of two and there are at most 2^24
/// elements: the shapes linear layouts describe.
bool isLinearShape(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0 || !llvm::isPowerOf2_64(d) || d > (int64_t(1) << 24))
      return false;
    n *= d;
    if (n > (int64_t(1) << 24))
      return false;
  }
  return !shape.empty();
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Prints `cells` (one per element, row-major over `shape`) as one line per
/// index of the leading dimensions, columns aligned.
void printTable(raw_ostream &os, ArrayRef<int64_t> shape,
                ArrayRef<std::string> cells) {
  size_t width = 0;
  for (const std::string &c : cells)
    width = std::max(width, c.size());
  int64_t last = shape.back();
  SmallVector<std::string> labels;
  size_t labelWidth = 0;
  for (int64_t line = 0; line * last < int64_t(cells.size()); ++line) {
    // The leading coordinates of this line.
    SmallVector<int64_t> lead;
    int64_t rest = line;
    for (int d = int(shape.size()) - 2; d >= 0; --d) {
      lead.push_back(rest % shape[d]);
      rest /= shape[d];
    }
    std::string label = "[";
    for (int64_t c : llvm::reverse(lead))
      label += std::to_string(c) + ", ";
    label += "*]:";
    labelWidth = std::max(labelWidth, label.size());
    labels.push_back(label);
  }
  for (auto [line, label] : llvm::enumerate(labels)) {
    os << "  " << label << std::string(labelWidth - label.size(), ' ');
    for (int64_t j = 0; j < last; ++j) {
      const std::string &c = cells[line * last + j];
      os << std::string(width + 1 - c.size(), ' ') << c;
    }
    os << "\n";
  }
}

/// Every coordinate of `shape`, row-major.
SmallVector<LinearLayout::Basis> allCoords(ArrayRef<int64_t> shape) {
  SmallVector<LinearLayout::Basis> all;
  int64_t n = numElements(shape);
  for (int64_t x = 0; x < n; ++x) {
    LinearLayout::Basis c(shape.size());
    int64_t rest = x;
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      c[d] = rest % shape[d];
      rest /= shape[d];
    }
    all.push_back(c);
  }
  return all;
}

void printShape(raw_ostream &os, ArrayRef<int64_t> shape) {
  llvm::interleave(shape, os, "x");
}

void printDistributed(raw_ostream &os, RankedTensorType type,
                      int64_t maxElements) {
  ArrayRef<int64_t> shape = type.getShape();
  LinearLayout layout = toLinearLayout(type.getEncoding(), shape);
  int64_t elements = numElements(shape);
  int64_t lanes = layout.getInDimSize(LinearLayout::kLane);
  bool covers = layout.isSurjective();
  os << "tile ";
  printShape(os, shape);
  if (isPadded(shape)) {
    os << " (held as ";
    printShape(os, layout.getShape());
    os << ")";
  }
  os << " in " << type.getEncoding() << "\n  warps " << layout.getNumWarps()
     << ", registers per thread " << layout.getNumRegs();
  if (covers)
    os << ", threads holding each element "
       << int64_t(layout.getNumRegs()) * lanes * layout.getNumWarps() /
              numElements(layout.getShape());
  else
    os << ", some elements held by no thread";
  os << "\n  " << layout << "\n";
  if (!covers)
    return;
  if (elements > maxElements) {
    os << "  (" << elements
       << " elements: no table above max-elements = " << maxElements << ")\n";
    return;
  }
  // A holder of each element: the right inverse of the layout, which
  // takes the replicated bits (of lanes and warps holding the same
  // elements) zero.
  LinearLayout holder = layout.pseudoInvert();
  SmallVector<std::string> cells(elements);
  for (const LinearLayout::Basis &c : allCoords(shape)) {
    LinearLayout::Basis hw = holder.apply(c);
    auto value = [&](StringRef dim) {
      auto i = layout.inDimIndex(dim);
      return i ? hw[*i] : 0;
    };
    int64_t flat = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      flat = flat * shape[d] + c[d];
    cells[flat] = std::to_string(value(LinearLayout::kWarp)) + ":" +
                  std::to_string(value(LinearLayout::kLane)) + ":" +
                  std::to_string(value(LinearLayout::kRegister));
  }
  os << "  element: warp:lane:register\n";
  printTable(os, shape, cells);
}

void printShared(raw_ostream &os, SharedMemoryType type, int64_t maxElements) {
  ArrayRef<int64_t> shape = type.getShape();
  auto layout = cast<SharedLayoutInterface>(Attribute(type.getLayout()));
  os << "buffer ";
  printShape(os, shape);
  os << "x" << type.getElementType() << " in " << Attribute(layout) << "\n";
  if (!isLinearShape(paddedShape(shape))) {
    os << "  (too many elements: no linear form)\n";
    return;
  }
  LinearLayout l = layout.toLinearLayout(shape, type.getElementType());
  os << "  " << l << "\n";
  int64_t elements = numElements(shape);
  if (elements > maxElements) {
    os << "  (" << elements
       << " elements: no table above max-elements = " << maxElements << ")\n";
    return;
  }
  SmallVector<std::string> cells(elements);
  for (int64_t offset = 0; offset < elements; ++offset) {
    LinearLayout::Basis c = l.apply({offset});
    int64_t flat = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      flat = flat * shape[d] + c[d];
    cells[flat] = std::to_string(offset);
  }
  os << "  element: offset\n";
  printTable(os, shape, cells);
}

struct PrintLayoutsPass
    : public mlir::tile::impl::TilePrintLayoutsBase<PrintLayoutsPass> {
  using TilePrintLayoutsBase::TilePrintLayoutsBase;

  void runOnOperation() override {
    llvm::SetVector<Type> types;
    auto collect = [&](TypeRange range) {
      for (Type t : range) {
        if (auto tensor = dyn_cast<RankedTensorType>(t)) {
          if (isTileType(tensor) && isDistributedLayout(tensor.getEncoding()))
            // The element type does not change where elements are.
            types.insert(RankedTensorType::get(
                tensor.getShape(), IntegerType::get(t.getContext(), 8),
                tensor.getEncoding()));
        } else if (isa<SharedMemoryType>(t)) {
          types.insert(t);
        }
      }
    };
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        collect(fn.getArgumentTypes());
        collect(fn.getResultTypes());
      }
      collect(op->getResultTypes());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          collect(block.getArgumentTypes());
    });

    std::unique_ptr<llvm::ToolOutputFile> file;
    raw_ostream *os = &llvm::errs();
    if (!output.empty()) {
      std::string error;
      file = openOutputFile(output, &error);
      if (!file) {
        getOperation()->emitError() << "tile-print-layouts: " << error;
        return signalPassFailure();
      }
      os = &file->os();
    }
    for (Type t : types) {
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        printDistributed(*os, tensor, maxElements);
      else
        printShared(*os, cast<SharedMemoryType>(t), maxElements);
    }
    if (file)
      file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
