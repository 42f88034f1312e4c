//===- TileDialect.cpp - The tile dialect ---------------------------------===//

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/KernelHints.h"
#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "Tile/IR/TileOpsDialect.cpp.inc"

namespace {
/// Short aliases for layouts in printed IR: #blocked, #mma, ...
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr))
      os << "blocked";
    else if (isa<MmaLayoutAttr>(attr))
      os << "mma";
    else if (auto d = dyn_cast<DotOperandLayoutAttr>(attr))
      os << (d.getOpIdx() == 0 ? "dot_a" : "dot_b");
    else if (isa<SliceLayoutAttr>(attr))
      os << "slice";
    else if (isa<SharedLayoutAttr>(attr))
      os << "shared";
    else if (isa<LinearLayoutAttr>(attr))
      os << "linear";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  addOperations<
#define GET_OP_LIST
#include "Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

/// Scalars a kernel may take by value.
static bool isKernelScalarType(Type type) {
  return type.isInteger(1) || type.isInteger(32) || type.isInteger(64) ||
         type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Checks that every tensor value in the kernel is a tile (static shape,
/// tile element type). Upstream arith/math/scf ops accept
/// any tensor, so this is where such a value is caught.
static LogicalResult verifyKernelTiles(func::FuncOp func) {
  auto warps =
      func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
  auto check = [&](Value value, Operation *where) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    if (!tensor)
      return success();
    if (Attribute layout = tensor.getEncoding()) {
      if (!isDistributedLayout(layout))
        return where->emitOpError() << "produces " << tensor
                                    << ", whose encoding is not a tile layout";
      if (warps && getNumWarps(layout) != warps.getInt())
        return where->emitOpError()
               << "produces " << tensor << ", laid out over "
               << getNumWarps(layout) << " warps in a kernel of "
               << warps.getInt();
    }
    if (!isTileType(tensor))
      return where->emitOpError()
             << "produces " << tensor
             << ", which is not a tile: tiles have one or more static "
                "dimensions, at most 2^24 (padded) elements, and f16, "
                "bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2 elements";
    return success();
  };
  WalkResult result = func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (failed(check(v, op)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg, op)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// `tile.tensor_maps`: one {param, box, swizzle} entry per TMA descriptor
/// parameter, which are the function's last parameters; `param` names a
/// tensor parameter before them. (After the lowering only the entries'
/// form is checked: the parameters are then pointers.)
static LogicalResult verifyTensorMaps(Operation *op, Attribute value) {
  auto list = dyn_cast<ArrayAttr>(value);
  auto fail = [&]() {
    return op->emitError("'tile.tensor_maps' must be an array of {param, "
                         "box, swizzle} entries, one per trailing "
                         "!tile.tensor_map parameter, each naming a tensor "
                         "parameter");
  };
  if (!list)
    return fail();
  auto func = dyn_cast<func::FuncOp>(op);
  unsigned n = func ? func.getNumArguments() : 0;
  if (func && list.size() > n)
    return fail();
  for (auto [i, entry] : llvm::enumerate(list)) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto param = dict ? dict.getAs<IntegerAttr>("param") : nullptr;
    auto box = dict ? dict.getAs<DenseI64ArrayAttr>("box") : nullptr;
    auto swizzle = dict ? dict.getAs<IntegerAttr>("swizzle") : nullptr;
    if (!param || !box || !swizzle || param.getInt() < 0)
      return fail();
    if (!func)
      continue;
    auto map =
        dyn_cast<TensorMapType>(func.getArgumentTypes()[n - list.size() + i]);
    if (!map || param.getInt() >= int64_t(n - list.size()) ||
        !isa<GlobalTensorType>(func.getArgumentTypes()[param.getInt()]) ||
        map.getBox() != box.asArrayRef() ||
        map.getSwizzle() != swizzle.getInt())
      return fail();
  }
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // Set by code generation for the runtime.
  if (attr.getName() == "tile.tensor_alignment") {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!n || n.getInt() < 1 || !llvm::isPowerOf2_64(n.getInt()))
      return op->emitError()
             << "'tile.tensor_alignment' must be a power of two (bytes)";
    return success();
  }
  // Lowering's bookkeeping of global accesses (LoweringUtils.h): a
  // kernel's widest vector per parameter, and (an integer, below) the
  // parameter a memory op accesses.
  if (attr.getName() == getParamVectorBytesAttrName() ||
      attr.getName() == getReadAheadParamsAttrName() ||
      attr.getName() == getWrittenParamsAttrName()) {
    if (!isa<DenseI32ArrayAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' must be an array of i32";
    return success();
  }
  if (attr.getName() == getParamAttrName() ||
      attr.getName() == "tile.shared_bytes" ||
      attr.getName() == "tile.smem_offset" ||
      attr.getName() == "tile.slot_bytes" ||
      attr.getName() == "tile.group_stride" ||
      attr.getName() == "tile.group_copies" ||
      attr.getName() == "tile.consumer_group_threads") {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' must be an integer";
    return success();
  }
  // The lowering's marks of tid.x reads (LoweringUtils.h), gone by its end.
  if (attr.getName() == "tile.physical" ||
      attr.getName() == "tile.consumer_entry") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == getTmaFallbackAttrName()) {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    if (!list || !llvm::all_of(list, llvm::IsaPred<StringAttr>))
      return op->emitError("'tile.tma_fallback' must be an array of strings");
    return success();
  }
  if (attr.getName() == getNotWarpSpecializedAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'tile.not_warp_specialized' must be a string");
    return success();
  }
  if (attr.getName() == getTensorMapsAttrName())
    return verifyTensorMaps(op, attr.getValue());
  if (attr.getName() == getTimelineAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    auto records = dict ? dict.getAs<IntegerAttr>("records") : IntegerAttr();
    auto sites = dict ? dict.getAs<ArrayAttr>("sites") : ArrayAttr();
    if (!records || records.getInt() < 1 || !sites ||
        !llvm::all_of(sites, llvm::IsaPred<StringAttr>))
      return op->emitError() << "'" << getTimelineAttrName()
                             << "' must be {records = N (at least 1), sites "
                                "= [strings]}";
    return success();
  }
  if (attr.getName() == getClusterAttrName()) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!n || n.getInt() < 2 || n.getInt() > 16 ||
        !llvm::isPowerOf2_64(n.getInt()))
      return op->emitError() << "'" << getClusterAttrName()
                             << "' must be 2, 4, 8 or 16 (blocks along x)";
    return success();
  }
  if (attr.getName() == getDependentLaunchAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getDependentLaunchAttrName()
                             << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == getNumWarpsAttrName()) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!n || n.getInt() < 1 || n.getInt() > 32 ||
        !llvm::isPowerOf2_64(n.getInt()))
      return op->emitError() << "'" << getNumWarpsAttrName()
                             << "' must be a power of two from 1 to 32";
    return success();
  }
  if (attr.getName() == getConstantsAttrName()) {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'" << getConstantsAttrName()
                             << "' must be a dictionary of constants";
    return success();
  }
  if (attr.getName() == getHintsAttrName()) {
    auto hints = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!hints)
      return op->emitError() << "'" << getHintsAttrName()
                             << "' must be a dictionary of kernel hints";
    for (NamedAttribute hint : hints) {
      std::string why = checkKernelHint(hint.getName(), hint.getValue());
      if (!why.empty())
        return op->emitError() << "'" << getHintsAttrName() << "': " << why;
    }
    return success();
  }
  if (attr.getName() == getTuneAttrName()) {
    auto tune = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!tune)
      return op->emitError() << "'" << getTuneAttrName()
                             << "' must be a dictionary of value lists";
    for (NamedAttribute entry : tune) {
      auto values = dyn_cast<ArrayAttr>(entry.getValue());
      if (!values || values.empty() || !llvm::all_of(values, [](Attribute v) {
            return isa<IntegerAttr, BoolAttr, TypeAttr>(v);
          }))
        return op->emitError()
               << "'" << getTuneAttrName() << "': " << entry.getName()
               << " must list one or more ints, bools or types";
    }
    return success();
  }
  // Loop attributes: a loop's schedule (set in the source, range(...,
  // num_stages=N, loop_split=False), or by the passes) and the marks the
  // passes leave.
  if (attr.getName() == getScheduleAttrName() ||
      attr.getName() == getPipelinedAttrName() ||
      attr.getName() == getTileLoopAttrName()) {
    if (!isa<scf::ForOp>(op))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' applies only to scf.for";
    if (attr.getName() == getScheduleAttrName()) {
      if (!isa<LoopScheduleAttr>(attr.getValue()))
        return op->emitError() << "'" << getScheduleAttrName()
                               << "' must be a #tile.schedule attribute";
    } else if (!isa<UnitAttr>(attr.getValue())) {
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute";
    }
    // A block's tiles are visited by one loop (each role's copy of it, in
    // a warp-specialized kernel).
    if (attr.getName() == getTileLoopAttrName())
      for (Operation *parent = op->getParentOp(); parent;
           parent = parent->getParentOp())
        if (isa<scf::ForOp>(parent) && parent->hasAttr(getTileLoopAttrName()))
          return op->emitError()
                 << "'" << getTileLoopAttrName() << "' loops do not nest";
    return success();
  }
  if (attr.getName() == getPersistentAttrName()) {
    auto first = dyn_cast<IntegerAttr>(attr.getValue());
    if (!first || !first.getType().isSignlessInteger(32))
      return op->emitError()
             << "'" << getPersistentAttrName() << "' must be an i32";
    // (The lowered kernel keeps it; its parameters are the ABI's.)
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return success();
    // Three i32 parameters from `first` on: the logical grid.
    int64_t i = first.getInt();
    if (i < 0 || i + 3 > int64_t(func.getNumArguments()) ||
        llvm::any_of(func.getArgumentTypes().slice(i, 3),
                     [](Type t) { return !t.isSignlessInteger(32); }))
      return op->emitError() << "'" << getPersistentAttrName()
                             << "' must index the first of three i32 "
                                "parameters (the logical grid)";
    return success();
  }
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown tile dialect attribute '"
                           << attr.getName().getValue() << "'";

  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << getKernelAttrName()
                           << "' applies only to func.func";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << getKernelAttrName()
                           << "' must be a unit attribute";
  if (func.getFunctionType().getNumResults() != 0)
    return op->emitError("a kernel returns no results; it writes its outputs "
                         "with tile.store");
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!isa<GlobalTensorType, TensorMapType>(type) &&
        !isKernelScalarType(type))
      return op->emitError() << "kernel argument #" << i << " has type " << type
                             << "; kernel arguments are global tensors "
                                "(!tile.global), integer/float scalars or "
                                "TMA descriptors (!tile.tensor_map)";
  // TMA descriptors are the last parameters, one per tile.tensor_maps
  // entry (the attribute's own check ties each to its tensor).
  auto maps = func->getAttrOfType<ArrayAttr>(getTensorMapsAttrName());
  unsigned numMaps =
      llvm::count_if(func.getArgumentTypes(), llvm::IsaPred<TensorMapType>);
  if (numMaps != (maps ? maps.size() : 0))
    return op->emitError() << "a kernel with " << numMaps
                           << " !tile.tensor_map parameters needs as many "
                              "'tile.tensor_maps' entries, one per "
                              "parameter";
  if (func.isExternal())
    return success();
  return verifyKernelTiles(func);
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

LogicalResult
LoopScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         std::optional<unsigned> numStages, BoolAttr, BoolAttr,
                         BoolAttr, BoolAttr) {
  // (As range(..., num_stages=) takes it: up to the 16 slots a
  // !tile.smem ring holds.)
  if (numStages && (*numStages < 1 || *numStages > 16))
    return emitError() << "#tile.schedule: num_stages must be from 1 to 16, "
                          "got "
                       << *numStages;
  return success();
}

LoopScheduleAttr LoopScheduleAttr::of(Operation *loop) {
  return loop ? loop->getAttrOfType<LoopScheduleAttr>(
                    TileDialect::getScheduleAttrName())
              : LoopScheduleAttr();
}
