//===- TileTypes.cpp - Types and attributes of the tile dialect -----------===//

#include "Tile/IR/TileTypes.h"
#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;

#include "Tile/IR/TileEnums.cpp.inc"
#include "Tile/IR/TileLayoutInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/IR/TileOpsTypes.cpp.inc"
      >();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tile/IR/TileAttrs.cpp.inc"
      >();
}

bool mlir::tile::isTileElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isInteger(32) ||
         type.isInteger(64) || type.isInteger(16) || type.isInteger(8) ||
         type.isInteger(1) || isFloat8Type(type);
}

std::string mlir::tile::getLanguageTypeName(Type type) {
  if (!type)
    return "<unknown>";
  if (type.isInteger(1))
    return "bool";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

bool mlir::tile::isFloat8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

unsigned mlir::tile::getMmaKWidth(Type type) {
  return 32 / type.getIntOrFloatBitWidth();
}

bool mlir::tile::isKMajorMmaType(Type type) {
  return type.getIntOrFloatBitWidth() != 16;
}

StringRef mlir::tile::getKMajorMmaTypeName(Type type) {
  return type.isF32() ? "f32 (tf32)" : "8-bit";
}

bool mlir::tile::isMmaOperandPair(Type a, Type b) {
  if (isFloat8Type(a) && isFloat8Type(b))
    return true;
  return a == b && (a.isF16() || a.isBF16() || a.isInteger(8) || a.isF32());
}

Type mlir::tile::getMmaAccumulatorType(Type operand) {
  if (operand.isInteger(8))
    return IntegerType::get(operand.getContext(), 32);
  return Float32Type::get(operand.getContext());
}

/// Positive dimensions, at most 2^24 elements in all once padded to powers
/// of two (which also keeps element counts far from overflow).
static bool isTileShape(ArrayRef<int64_t> shape) {
  uint64_t total = 1;
  for (int64_t d : shape) {
    if (d <= 0 || d > (int64_t(1) << 24))
      return false;
    total *= llvm::PowerOf2Ceil(static_cast<uint64_t>(d));
    if (total > (uint64_t(1) << 24))
      return false;
  }
  return true;
}

bool mlir::tile::isTileType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() >= 1 && tensor.hasStaticShape() &&
         isTileElementType(tensor.getElementType()) &&
         isTileShape(tensor.getShape());
}

LogicalResult
GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                         Type elementType, unsigned rank) {
  // i16 tiles are the compiler's own (the bits of 16-bit floats).
  if (!isTileElementType(elementType) || elementType.isInteger(16))
    return emitError() << "global tensor element type must be f16, bf16, f32, "
                          "i32, i64, i8, i1, f8E4M3FN or f8E5M2, got "
                       << elementType;
  if (rank < 1 || rank > 8)
    return emitError() << "global tensor rank must be between 1 and 8, got "
                       << rank;
  return success();
}

LogicalResult
SharedMemoryType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType,
                         SharedLayoutAttr layout) {
  // A buffer holds a tile (the same shapes and element types), or a ring of
  // tiles: a leading stage dimension of any size from 1 to 16.
  bool tile = !shape.empty() && isTileShape(shape);
  bool ring = shape.size() >= 2 && shape.front() >= 1 && shape.front() <= 16 &&
              isTileShape(shape.drop_front());
  if (ring) {
    uint64_t total = uint64_t(shape.front());
    for (int64_t d : shape.drop_front())
      total *= uint64_t(d);
    ring = total <= (uint64_t(1) << 24);
  }
  if ((!tile && !ring) || !isTileElementType(elementType))
    return emitError() << "shared memory buffer must hold a tile or a ring "
                          "of tiles: at least one dimension, static "
                          "dimensions (a leading stage dimension from 1 to "
                          "16 excepted), at most 2^24 (padded) "
                          "elements, and f16, bf16, f32, i32, i64, i16, i8, "
                          "i1, f8E4M3FN or f8E5M2 elements";
  if (layout.getOrder().size() != shape.size())
    return emitError() << "the shared layout's order has "
                       << layout.getOrder().size()
                       << " entries for a buffer of rank " << shape.size();
  if (unsigned block = layout.getBlock())
    if (llvm::PowerOf2Ceil(shape[layout.getOrder()[0]]) % block)
      return emitError() << "the shared layout's block of " << block
                         << " columns does not divide the buffer's fastest "
                            "dimension ("
                         << shape[layout.getOrder()[0]] << ")";
  // Columns (order[0]) or rows (order[1]) stored at their own size: at
  // least the buffer's, at most their padding.
  for (auto [stored, dim, what] : {std::tuple<unsigned, unsigned, StringRef>{
                                       layout.getCols(), 0, "columns"},
                                   {layout.getRows(), 1, "rows"}}) {
    if (!stored)
      continue;
    int64_t own = shape[layout.getOrder()[dim]];
    if (stored < own || stored > llvm::PowerOf2Ceil(uint64_t(own)))
      return emitError() << "the shared layout's " << stored << " " << what
                         << " must hold the buffer's " << own
                         << " and be at most their padding";
  }
  return success();
}

SmallVector<int64_t> SharedMemoryType::getStorageShape() const {
  SmallVector<int64_t> storage = paddedShape(getShape());
  if (unsigned rows = getLayout().getRows())
    storage[getLayout().getOrder()[1]] = rows;
  if (unsigned cols = getLayout().getCols())
    storage[getLayout().getOrder()[0]] = cols;
  return storage;
}

int64_t SharedMemoryType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getStorageShape())
    n *= d;
  return n;
}

LogicalResult MbarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   unsigned count) {
  if (count < 1 || count > 16)
    return emitError() << "a ring of mbarriers holds 1 to 16 barriers, not "
                       << count;
  return success();
}

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> box, Type elementType,
                      unsigned swizzle) {
  if (box.empty() || box.size() > 5)
    return emitError() << "a tensor map's box has 1 to 5 dimensions, not "
                       << box.size();
  for (int64_t d : box)
    if (d < 1 || d > 256)
      return emitError() << "a tensor map's box dimensions are 1 to 256, not "
                         << d;
  if (!elementType.isF16() && !elementType.isBF16() && !elementType.isF32() &&
      !elementType.isInteger(32) && !elementType.isInteger(64) &&
      !elementType.isInteger(8) && !isFloat8Type(elementType))
    return emitError() << "a tensor map describes f16, bf16, f32, i32, i64, "
                          "i8, f8E4M3FN or f8E5M2 elements, not "
                       << elementType;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "a tensor map's swizzle is 0, 32, 64 or 128 bytes, "
                          "not "
                       << swizzle;
  int64_t innerBytes = box.back() * elementType.getIntOrFloatBitWidth() / 8;
  if (innerBytes % 16)
    return emitError() << "a tensor map's innermost box dimension must span a "
                          "multiple of 16 bytes, not "
                       << innerBytes;
  if (swizzle && innerBytes > swizzle)
    return emitError() << "a tensor map's innermost box dimension ("
                       << innerBytes << " bytes) exceeds its swizzle span ("
                       << swizzle << " bytes)";
  return success();
}
