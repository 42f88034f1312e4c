//===- LoweringUtils.cpp - Shared by the tile-to-LLVM patterns ------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;

TileTypeConverter::TileTypeConverter(MLIRContext *context) {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    if (!type.getEncoding())
      return std::nullopt;
    LinearLayout layout = getLinearLayout(type);
    results.append(layout.getNumRegs(), registerType(type.getElementType()));
    return success();
  });
  addConversion([context](tile::SharedMemoryType type) -> Type {
    return LLVM::LLVMPointerType::get(context, 3);
  });
  addConversion([context](tile::MbarrierType type) -> Type {
    return LLVM::LLVMPointerType::get(context, 3);
  });
  // A by-value kernel parameter, through its (generic) address.
  addConversion([context](tile::TensorMapType type) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
  addConversion(
      [context](tile::GlobalTensorType type, SmallVectorImpl<Type> &results) {
        results.push_back(LLVM::LLVMPointerType::get(context, 1));
        results.append(type.getRank(), IntegerType::get(context, 32));
        results.append(type.getRank(), IntegerType::get(context, 64));
        return success();
      });
}

Type tilec::registerType(Type elt) {
  if (tile::isFloat8Type(elt))
    return IntegerType::get(elt.getContext(), 8);
  return elt;
}

TypedAttr tilec::registerConstant(TypedAttr value) {
  auto f = dyn_cast<FloatAttr>(value);
  if (!f || !tile::isFloat8Type(f.getType()))
    return value;
  return IntegerAttr::get(registerType(f.getType()),
                          f.getValue().bitcastToAPInt());
}

LinearLayout tilec::getLinearLayout(Type tileType) {
  auto t = cast<RankedTensorType>(tileType);
  return tile::toLinearLayout(t.getEncoding(), t.getShape());
}

Value tilec::andInsideTile(OpBuilder &b, Location loc,
                           const LinearLayout &layout, ArrayRef<int64_t> shape,
                           ArrayRef<Value> coords, Value ok) {
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (layout.getShape()[d] <= shape[d])
      continue;
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     coords[d], constI32(b, loc, shape[d]));
    ok = ok ? Value(arith::AndIOp::create(b, loc, ok, in)) : in;
  }
  return ok;
}

unsigned tilec::paddedVectorLimit(const LinearLayout &layout,
                                  ArrayRef<int64_t> shape, unsigned dim) {
  if (layout.getShape()[dim] <= shape[dim])
    return ~0u;
  return unsigned(shape[dim] & -shape[dim]);
}

LinearLayout tilec::unsqueezeLayout(const LinearLayout &layout,
                                    ArrayRef<int64_t> shape) {
  SmallVector<unsigned> dims = tile::nonUnitDims(shape);
  LinearLayout whole(tile::paddedShape(shape));
  for (StringRef dim : layout.getInDimNames()) {
    SmallVector<LinearLayout::Basis> &out = whole.bases(dim);
    for (const LinearLayout::Basis &basis : layout.getBases(dim)) {
      LinearLayout::Basis e(shape.size(), 0);
      for (unsigned i = 0; i < dims.size(); ++i)
        e[dims[i]] = basis[i];
      out.push_back(e);
    }
  }
  return whole;
}

Operation *tilec::inlinePtx(OpBuilder &b, Location loc, TypeRange results,
                            ValueRange operands, StringRef text,
                            StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
}

int64_t tilec::clusterSize(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto size = func ? func->getAttrOfType<IntegerAttr>(
                         tile::TileDialect::getClusterAttrName())
                   : IntegerAttr();
  return size ? size.getInt() : 1;
}

unsigned tilec::replicaMask(const LinearLayout &layout, StringRef dim) {
  if (!layout.hasInDim(dim))
    return 0;
  unsigned mask = 0;
  for (auto [i, basis] : llvm::enumerate(layout.getBases(dim)))
    if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
      mask |= 1u << i;
  return mask;
}

Value tilec::firstHolder(OpBuilder &b, Location loc, const LinearLayout &layout,
                         bool lanes) {
  unsigned laneMask = lanes ? replicaMask(layout, LinearLayout::kLane) : 0;
  unsigned warpMask = replicaMask(layout, LinearLayout::kWarp);
  if (!laneMask && !warpMask)
    return {};
  Value owner;
  ThreadIndex t = getThreadIndex(b, loc);
  for (auto [index, mask] :
       {std::pair(t.lane, laneMask), std::pair(t.warp, warpMask)}) {
    if (!mask)
      continue;
    Value bits = arith::AndIOp::create(b, loc, index, constI32(b, loc, mask));
    Value clear = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                        constI32(b, loc, 0));
    owner = owner ? Value(arith::AndIOp::create(b, loc, owner, clear)) : clear;
  }
  return owner;
}

Value tilec::andOwner(OpBuilder &b, Location loc, Value pred, Value owner) {
  return owner ? Value(arith::AndIOp::create(b, loc, pred, owner)) : pred;
}

std::pair<Value, unsigned> tilec::replicaIndex(OpBuilder &b, Location loc,
                                               const LinearLayout &layout) {
  ThreadIndex t = getThreadIndex(b, loc);
  Value replica = constI32(b, loc, 0);
  unsigned count = 0;
  for (auto [index, dim] : {std::pair(t.lane, LinearLayout::kLane),
                            std::pair(t.warp, LinearLayout::kWarp)}) {
    // Each run of consecutive bits of the mask at once.
    unsigned mask = replicaMask(layout, dim);
    for (unsigned p = 0; mask >> p;) {
      if (!(mask >> p & 1)) {
        ++p;
        continue;
      }
      unsigned n = llvm::countr_one(mask >> p);
      Value bits = index;
      if (p)
        bits = arith::ShRUIOp::create(b, loc, bits, constI32(b, loc, p));
      bits =
          arith::AndIOp::create(b, loc, bits, constI32(b, loc, (1 << n) - 1));
      if (count)
        bits = arith::ShLIOp::create(b, loc, bits, constI32(b, loc, count));
      replica = arith::OrIOp::create(b, loc, replica, bits);
      count += n;
      p += n;
    }
  }
  return {replica, count};
}

Value tilec::firstThread(OpBuilder &b, Location loc, Value pred,
                         int32_t thread) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      constI32(b, loc, thread));
  if (pred)
    first = arith::AndIOp::create(b, loc, first, pred);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), first);
}

Value tilec::sharedAddress32(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

Value tilec::sharedAddress32(OpBuilder &b, Location loc, Value ptr, Value index,
                             int64_t bytes) {
  Value offset = arith::MulIOp::create(b, loc, index, constI32(b, loc, bytes));
  return arith::AddIOp::create(b, loc, sharedAddress32(b, loc, ptr), offset);
}

Value tilec::constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value tilec::constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

ThreadIndex tilec::getThreadIndex(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = arith::AndIOp::create(b, loc, tid, constI32(b, loc, 31));
  Value warp = arith::ShRUIOp::create(b, loc, tid, constI32(b, loc, 5));
  return {lane, warp};
}

Value tilec::warpUniform(OpBuilder &b, Location loc, Value v) {
  return NVVM::ShflOp::create(b, loc, b.getI32Type(), constI32(b, loc, -1), v,
                              constI32(b, loc, 0), constI32(b, loc, 0x1f),
                              NVVM::ShflKind::idx, UnitAttr());
}

/// tid.x / `threads`, warp-uniform, computed once before the loops and
/// branches around `at`: at its ancestor in the kernel's body, or for the
/// index among a group of consumers (not `physical`), in the consumer
/// region, whose threads localizeConsumerThreads numbers from 0 there. The
/// indices computed before one op share one shuffle, marked with
/// kGroupIndexAttr: `threads`, negated where `physical`.
static Value groupIndexBefore(OpBuilder &b, Operation *at, int64_t threads,
                              bool physical) {
  Operation *anchor = at;
  for (Operation *parent = at->getParentOp();
       parent && !isa<FunctionOpInterface>(parent) &&
       (physical || !isa<tile::WarpSpecializeOp>(parent));
       parent = parent->getParentOp())
    anchor = parent;
  int64_t mark = physical ? -threads : threads;
  for (Operation &op : *anchor->getBlock()) {
    if (&op == anchor)
      break;
    auto index = op.getAttrOfType<IntegerAttr>(kGroupIndexAttr);
    if (index && index.getInt() == mark)
      return op.getResult(0);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(anchor);
  Location loc = at->getLoc();
  auto tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  if (physical)
    tid->setAttr(kPhysicalThreadAttr, b.getUnitAttr());
  Value group = arith::DivUIOp::create(b, loc, tid, constI32(b, loc, threads));
  if (threads % 32 == 0)
    group = warpUniform(b, loc, group);
  group.getDefiningOp()->setAttr(kGroupIndexAttr, b.getI64IntegerAttr(mark));
  return group;
}

Value tilec::getWarpgroupIndex(OpBuilder &b, Operation *at) {
  return groupIndexBefore(b, at, 128, /*physical=*/false);
}

Value tilec::blockGroupIndex(OpBuilder &b, Operation *at, int64_t threads) {
  return groupIndexBefore(b, at, threads, /*physical=*/true);
}

Value tilec::electedThread(OpBuilder &b, Operation *at, Value pred,
                           int32_t thread) {
  assert(thread % 32 == 0 && "a warp's first thread");
  Location loc = at->getLoc();
  Value warp = groupIndexBefore(b, at, 32, /*physical=*/false);
  Value elected = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                            constI32(b, loc, thread / 32)),
      NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value()));
  if (pred)
    elected = arith::AndIOp::create(b, loc, elected, pred);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), elected);
}

void tilec::localizeConsumerThreads(Operation *func) {
  SmallVector<Operation *> entries;
  func->walk([&](NVVM::ThreadIdXOp op) {
    if (op->hasAttr(kConsumerEntryAttr))
      entries.push_back(op);
  });
  // The marks go once read (the lowered kernel has no tile attributes).
  auto unmark = [&] {
    func->walk([&](Operation *op) {
      op->removeAttr(kPhysicalThreadAttr);
      op->removeAttr(kConsumerEntryAttr);
      op->removeAttr(kGroupIndexAttr);
    });
  };
  if (entries.empty())
    return unmark();
  DominanceInfo dominance(func);
  for (Operation *entry : entries) {
    // The entry's remainder by the group's threads: the local index.
    Value local;
    for (Operation *user : entry->getUsers())
      if (isa<LLVM::URemOp>(user) && user->hasAttr(kConsumerEntryAttr))
        local = user->getResult(0);
    if (!local)
      continue;
    func->walk([&](NVVM::ThreadIdXOp op) {
      if (op == entry || op->hasAttr(kPhysicalThreadAttr) ||
          op->hasAttr(kConsumerEntryAttr))
        return;
      if (!dominance.properlyDominates(local, op))
        return;
      op->getResult(0).replaceAllUsesWith(local);
      op->erase();
    });
  }
  unmark();
}

SmallVector<Value> tilec::threadOffsets(OpBuilder &b, Location loc,
                                        const LinearLayout &layout) {
  ThreadIndex idx = getThreadIndex(b, loc);
  SmallVector<Value> offsets;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value acc = constI32(b, loc, 0);
    auto addBits = [&](Value index, ArrayRef<LinearLayout::Basis> bases) {
      for (auto [i, basis] : llvm::enumerate(bases)) {
        if (basis[d] == 0)
          continue;
        // ((index >> i) & 1) * basis[d]
        Value bit = arith::ShRUIOp::create(b, loc, index, constI32(b, loc, i));
        bit = arith::AndIOp::create(b, loc, bit, constI32(b, loc, 1));
        Value term =
            arith::MulIOp::create(b, loc, bit, constI32(b, loc, basis[d]));
        acc = arith::XOrIOp::create(b, loc, acc, term);
      }
    };
    addBits(idx.lane, layout.lanes());
    addBits(idx.warp, layout.warps());
    offsets.push_back(acc);
  }
  return offsets;
}

SmallVector<Value> tilec::registerCoords(OpBuilder &b, Location loc,
                                         const LinearLayout &layout,
                                         ArrayRef<Value> offsets,
                                         unsigned reg) {
  LinearLayout::Basis c = layout.regCoords(reg);
  SmallVector<Value> coords;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    coords.push_back(c[d] == 0
                         ? offsets[d]
                         : Value(arith::XOrIOp::create(
                               b, loc, offsets[d], constI32(b, loc, c[d]))));
  return coords;
}

std::optional<SmallVector<unsigned>> tilec::registerMapping(
    const LinearLayout &src, const LinearLayout &dst,
    function_ref<LinearLayout::Basis(ArrayRef<int64_t>)> toSrc) {
  if (src.lanes().size() != dst.lanes().size() ||
      src.warps().size() != dst.warps().size())
    return std::nullopt;
  for (unsigned i = 0; i < dst.lanes().size(); ++i)
    if (toSrc(dst.lanes()[i]) != src.lanes()[i])
      return std::nullopt;
  for (unsigned i = 0; i < dst.warps().size(); ++i)
    if (toSrc(dst.warps()[i]) != src.warps()[i])
      return std::nullopt;
  SmallVector<unsigned> mapping;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
    auto reg = src.findReg(toSrc(dst.regCoords(r)));
    if (!reg)
      return std::nullopt;
    mapping.push_back(*reg);
  }
  return mapping;
}

unsigned tilec::contiguousRegisters(const LinearLayout &layout, unsigned dim) {
  unsigned k = 0;
  for (const LinearLayout::Basis &b : layout.regs()) {
    bool unitStep = true;
    for (unsigned d = 0; d < layout.getRank(); ++d)
      unitStep &= b[d] == (d == dim ? (int64_t(1) << k) : 0);
    if (!unitStep)
      break;
    ++k;
  }
  return k;
}

RegisterVectors::RegisterVectors(const LinearLayout &layout, unsigned dim,
                                 unsigned maxLength) {
  ArrayRef<LinearLayout::Basis> regs = layout.regs();
  auto stepsOnly = [&](const LinearLayout::Basis &b, int64_t step) {
    for (unsigned d = 0; d < layout.getRank(); ++d)
      if (b[d] != (d == dim ? step : 0))
        return false;
    return true;
  };
  while ((2u << bits.size()) <= maxLength) {
    int64_t step = int64_t(1) << bits.size();
    auto it =
        llvm::find_if(llvm::seq<unsigned>(0, regs.size()),
                      [&](unsigned i) { return stepsOnly(regs[i], step); });
    if (it == llvm::seq<unsigned>(0, regs.size()).end())
      break;
    bits.push_back(*it);
  }
  // Every other basis must keep a vector's start a multiple of its length.
  auto aligned = [&](unsigned k) {
    int64_t run = int64_t(1) << k;
    auto ok = [&](ArrayRef<LinearLayout::Basis> bases, bool isReg) {
      for (auto [i, b] : llvm::enumerate(bases))
        if (!(isReg &&
              llvm::is_contained(ArrayRef(bits).take_front(k), unsigned(i))) &&
            b[dim] % run)
          return false;
      return true;
    };
    return ok(regs, true) && ok(layout.lanes(), false) &&
           ok(layout.warps(), false);
  };
  while (!bits.empty() && !aligned(bits.size()))
    bits.pop_back();
  for (unsigned b : bits)
    mask |= 1u << b;
}

unsigned RegisterVectors::reg(unsigned first, unsigned j) const {
  for (auto [i, b] : llvm::enumerate(bits))
    if (j & (1u << i))
      first |= 1u << b;
  return first;
}

static Value sharedMemoryBase(OpBuilder &b, Location loc, Operation *user) {
  auto module = user->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  if (!module.lookupSymbol(kSharedMemorySymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kSharedMemorySymbol,
        /*value=*/Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3),
                                   kSharedMemorySymbol);
}

Value tilec::getSharedMemoryAt(OpBuilder &b, Location loc, Operation *user,
                               int64_t byteOffset) {
  Value base = sharedMemoryBase(b, loc, user);
  if (byteOffset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
}

/// The shared memory at the offset tile-allocate-shared-memory gave `op`;
/// `missing` is emitted when it gave none.
static FailureOr<Value> getAllocatedMemory(OpBuilder &b, Location loc,
                                           Operation *op,
                                           function_ref<void()> missing) {
  auto offset = op->getAttrOfType<IntegerAttr>(tile::kSharedOffsetAttr);
  if (!offset) {
    missing();
    return failure();
  }
  Value at = getSharedMemoryAt(b, loc, op, offset.getInt());
  // A group of consumers' own copy: group (thread / group's threads) times
  // the copies' stride further.
  auto stride = op->getAttrOfType<IntegerAttr>(tile::kGroupStrideAttr);
  auto threads =
      op->getAttrOfType<IntegerAttr>(tile::kConsumerGroupThreadsAttr);
  if (stride && threads) {
    Value group = blockGroupIndex(b, op, threads.getInt());
    Value bytes =
        arith::MulIOp::create(b, loc, group, constI32(b, loc, stride.getInt()));
    at = LLVM::GEPOp::create(b, loc, at.getType(), b.getI8Type(), at,
                             ArrayRef<LLVM::GEPArg>{bytes});
  }
  return at;
}

FailureOr<Value> tilec::getScratchMemory(OpBuilder &b, Location loc,
                                         Operation *op) {
  return getAllocatedMemory(b, loc, op, [&] {
    op->emitOpError("needs scratch shared memory, which was not "
                    "allocated: run tile-allocate-shared-memory first");
  });
}

FailureOr<Value> tilec::getBufferMemory(OpBuilder &b, Location loc,
                                        Operation *op) {
  return getAllocatedMemory(b, loc, op, [&] {
    op->emitError("shared memory was not allocated for this buffer: "
                  "run tile-allocate-shared-memory first");
  });
}

static Value shrConst(OpBuilder &b, Location loc, Value v, unsigned s) {
  return s ? Value(arith::ShRUIOp::create(b, loc, v, constI32(b, loc, s))) : v;
}

namespace {
/// The geometry of a shared layout on a buffer shape: the fastest dimension
/// `f` cut into blocks of `blockCols` columns, each block a row-major tile of
/// `rows` rows (dimension `s`), dimensions beyond the two fastest stacking
/// whole tiles.
struct SharedGeometry {
  unsigned f = 0;
  std::optional<unsigned> s;
  int64_t blockCols = 0, rows = 1, tileElems = 0;
  SharedGeometry(tile::SharedMemoryType type) {
    tile::SharedLayoutAttr layout = type.getLayout();
    ArrayRef<unsigned> order = layout.getOrder();
    SmallVector<int64_t> shape = type.getStorageShape();
    f = order[0];
    if (order.size() > 1) {
      s = order[1];
      rows = shape[*s];
    }
    blockCols = layout.getBlock()
                    ? std::min<int64_t>(layout.getBlock(), shape[f])
                    : shape[f];
    tileElems = rows * shape[f];
  }
};
} // namespace

int64_t tilec::unswizzledSharedOffset(tile::SharedMemoryType type,
                                      ArrayRef<int64_t> coords) {
  ArrayRef<unsigned> order = type.getLayout().getOrder();
  SmallVector<int64_t> shape = type.getStorageShape();
  SharedGeometry g(type);
  int64_t outer = 0, scale = 1;
  for (unsigned i = 2; i < order.size(); ++i) {
    outer += coords[order[i]] * scale;
    scale *= shape[order[i]];
  }
  int64_t row = g.s ? coords[*g.s] : 0, col = coords[g.f];
  return outer * g.tileElems + (col / g.blockCols) * g.rows * g.blockCols +
         row * g.blockCols + col % g.blockCols;
}

Value tilec::sharedOffset(OpBuilder &b, Location loc,
                          tile::SharedMemoryType type, ArrayRef<Value> coords) {
  tile::SharedLayoutAttr layout = type.getLayout();
  ArrayRef<unsigned> order = layout.getOrder();
  SmallVector<int64_t> shape = type.getStorageShape();
  SharedGeometry g(type);
  // The row over all dimensions but the fastest (for the swizzle phase),
  // and its two parts: the row in the 2-D tile and the stacked tiles.
  Value row2 = g.s ? coords[*g.s] : constI32(b, loc, 0);
  Value outer = constI32(b, loc, 0);
  int64_t scale = 1;
  for (unsigned i = 2; i < order.size(); ++i) {
    Value term = arith::MulIOp::create(b, loc, coords[order[i]],
                                       constI32(b, loc, scale));
    outer = arith::AddIOp::create(b, loc, outer, term);
    scale *= shape[order[i]];
  }
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, outer, constI32(b, loc, g.rows)),
      row2);
  Value col = coords[g.f];
  unsigned vec = layout.getVec();
  if (layout.getMaxPhase() > 1) {
    Value phase = shrConst(b, loc, row, llvm::Log2_32(layout.getPerPhase()));
    phase = arith::AndIOp::create(b, loc, phase,
                                  constI32(b, loc, layout.getMaxPhase() - 1));
    // col ^ (phase * vec) flips the chunk index, keeps the offset in it.
    Value flip = arith::MulIOp::create(b, loc, phase, constI32(b, loc, vec));
    col = arith::XOrIOp::create(b, loc, col, flip);
  }
  Value offset =
      arith::MulIOp::create(b, loc, outer, constI32(b, loc, g.tileElems));
  offset = arith::AddIOp::create(
      b, loc, offset,
      arith::MulIOp::create(b, loc, row2, constI32(b, loc, g.blockCols)));
  if (g.blockCols < shape[g.f]) {
    unsigned log = llvm::Log2_64(g.blockCols);
    Value blockIdx = shrConst(b, loc, col, log);
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, blockIdx,
                              constI32(b, loc, g.rows * g.blockCols)));
    col = arith::AndIOp::create(b, loc, col, constI32(b, loc, g.blockCols - 1));
  }
  return arith::AddIOp::create(b, loc, offset, col);
}

SharedAddresses::SharedAddresses(OpBuilder &b, Location loc,
                                 tile::SharedMemoryType type,
                                 ArrayRef<Value> laneCoords,
                                 ArrayRef<int64_t> laneBound,
                                 bool boundsAreBits)
    : b(b), loc(loc), type(type), lane(laneCoords), bound(laneBound),
      boundsAreBits(boundsAreBits) {}

Value SharedAddresses::offset(ArrayRef<int64_t> constCoords) {
  tile::SharedLayoutAttr layout = type.getLayout();
  ArrayRef<unsigned> order = layout.getOrder();
  SmallVector<int64_t> shape = type.getStorageShape();
  SharedGeometry g(type);
  int64_t row2Const = g.s ? constCoords[*g.s] : 0;
  int64_t outerConst = 0, scale = 1;
  for (unsigned i = 2; i < order.size(); ++i) {
    outerConst += constCoords[order[i]] * scale;
    scale *= shape[order[i]];
  }
  int64_t rowConst = outerConst * g.rows + row2Const;
  int64_t span = int64_t(layout.getMaxPhase()) * layout.getVec();
  int64_t period = int64_t(layout.getMaxPhase()) * layout.getPerPhase();
  int64_t colConst = constCoords[g.f];
  bool swizzled = layout.getMaxPhase() > 1;
  int64_t colLow = swizzled ? colConst % span : 0;
  // The constant rows within a swizzle period, taken into the base (where
  // the 2-D tile's rows are whole periods, so the stacked tiles keep the
  // phase too): the rows past them are whole periods, which keep every
  // row's swizzle phase.
  int64_t rowLow = swizzled && g.rows % period == 0 ? row2Const % period : 0;
  // The thread's column within a swizzle span plus colLow stays in that
  // span (and so in its block), its columns past the span are whole
  // blocks, and the constant rows past rowLow are whole periods: the offset
  // is a per-thread base plus a constant.
  int64_t threadLow = bound[g.f] - 1, threadHigh = 0;
  if (boundsAreBits) {
    threadHigh = threadLow & ~(span - 1);
    threadLow &= span - 1;
  }
  bool split =
      (layout.getMaxPhase() == 1 && g.blockCols == shape[g.f]) ||
      ((rowConst - rowLow) % period == 0 && threadLow + colLow < span &&
       threadHigh % g.blockCols == 0 && g.blockCols % span == 0);
  if (!split) {
    SmallVector<Value> coords;
    for (unsigned d = 0; d < lane.size(); ++d)
      coords.push_back(arith::AddIOp::create(b, loc, lane[d],
                                             constI32(b, loc, constCoords[d])));
    return sharedOffset(b, loc, type, coords);
  }
  Value &base = bases[{colLow, rowLow}];
  if (!base) {
    SmallVector<Value> coords(lane.begin(), lane.end());
    if (colLow)
      coords[g.f] =
          arith::AddIOp::create(b, loc, coords[g.f], constI32(b, loc, colLow));
    // (rowLow is 0 without a row dimension, order[1].)
    if (rowLow)
      coords[order[1]] = arith::AddIOp::create(b, loc, coords[order[1]],
                                               constI32(b, loc, rowLow));
    base = sharedOffset(b, loc, type, coords);
  }
  int64_t rest = outerConst * g.tileElems + (row2Const - rowLow) * g.blockCols +
                 (colConst / g.blockCols) * (g.rows * g.blockCols) +
                 (colConst % g.blockCols - colLow);
  return rest ? Value(
                    arith::AddIOp::create(b, loc, base, constI32(b, loc, rest)))
              : base;
}

std::optional<SmallVector<int64_t>>
tilec::additiveThreadBound(const LinearLayout &layout) {
  SmallVector<int64_t> bound;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    int64_t threadBits = 0, regBits = 0;
    for (const auto &bb : layout.lanes())
      threadBits |= bb[d];
    for (const auto &bb : layout.warps())
      threadBits |= bb[d];
    for (const auto &bb : layout.regs())
      regBits |= bb[d];
    if (threadBits & regBits)
      return std::nullopt;
    bound.push_back(threadBits + 1);
  }
  return bound;
}

int64_t tilec::consumerGroupThreads(Operation *op) {
  auto ws = op->getParentOfType<tile::WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor(op->getParentRegion()) ||
      ws.getNumConsumerGroups() < 2)
    return 0;
  return ws.getNumConsumerThreads();
}

void tilec::createBarrier(OpBuilder &b, Location loc, Operation *op) {
  auto ws = op->getParentOfType<tile::WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor(op->getParentRegion())) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  if (int64_t threads = consumerGroupThreads(op)) {
    // Each group of consumers on a named barrier of its own.
    Value group = blockGroupIndex(b, op, threads);
    Value id = arith::AddIOp::create(
        b, loc, group, constI32(b, loc, tile::kConsumerBarrierId));
    NVVM::BarrierOp::create(b, loc, /*res=*/Type(), id,
                            constI32(b, loc, threads),
                            /*reductionOp=*/nullptr,
                            /*reductionPredicate=*/Value());
    return;
  }
  NVVM::BarrierOp::create(
      b, loc, /*res=*/Type(), constI32(b, loc, tile::kConsumerBarrierId),
      constI32(b, loc, int32_t(ws.getNumConsumerThreads())),
      /*reductionOp=*/nullptr, /*reductionPredicate=*/Value());
}

unsigned tilec::bitWidth(Type elementType) {
  return elementType.getIntOrFloatBitWidth();
}

SmallVector<Value> tilec::packWords(OpBuilder &b, Location loc,
                                    ArrayRef<Value> values) {
  Type elt = values.front().getType();
  unsigned bits = bitWidth(elt);
  unsigned total = bits * values.size();
  if (total < 32) {
    // A single narrow word: an integer of the vector's width.
    auto vecType = VectorType::get(values.size(), elt);
    Value vec = LLVM::UndefOp::create(b, loc, vecType);
    for (auto [i, v] : llvm::enumerate(values))
      vec = LLVM::InsertElementOp::create(b, loc, vec, v, constI32(b, loc, i));
    return {LLVM::BitcastOp::create(b, loc, b.getIntegerType(total), vec)};
  }
  if (bits > 32) {
    // A wide element (i64) is bits / 32 words, its low word first.
    auto wordsType = VectorType::get(bits / 32, b.getI32Type());
    SmallVector<Value> words;
    for (Value v : values) {
      Value vec = LLVM::BitcastOp::create(b, loc, wordsType, v);
      for (unsigned i = 0; i < bits / 32; ++i)
        words.push_back(
            LLVM::ExtractElementOp::create(b, loc, vec, constI32(b, loc, i)));
    }
    return words;
  }
  unsigned perWord = 32 / bits;
  SmallVector<Value> words;
  for (unsigned w = 0; w < values.size() / perWord; ++w) {
    Value word;
    if (perWord == 1) {
      word = LLVM::BitcastOp::create(b, loc, b.getI32Type(), values[w]);
    } else {
      auto vecType = VectorType::get(perWord, elt);
      Value vec = LLVM::UndefOp::create(b, loc, vecType);
      for (unsigned i = 0; i < perWord; ++i)
        vec = LLVM::InsertElementOp::create(
            b, loc, vec, values[w * perWord + i], constI32(b, loc, i));
      word = LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
    }
    words.push_back(word);
  }
  return words;
}

SmallVector<Value> tilec::unpackWords(OpBuilder &b, Location loc,
                                      ArrayRef<Value> words, Type elementType,
                                      unsigned count) {
  unsigned bits = bitWidth(elementType);
  SmallVector<Value> values;
  if (bits > 32 && bitWidth(words.front().getType()) == 32) {
    // A wide element from bits / 32 words, its low word first.
    unsigned per = bits / 32;
    auto wordsType = VectorType::get(per, b.getI32Type());
    for (unsigned e = 0; e + per <= words.size() && values.size() < count;
         e += per) {
      Value vec = LLVM::UndefOp::create(b, loc, wordsType);
      for (unsigned i = 0; i < per; ++i)
        vec = LLVM::InsertElementOp::create(b, loc, vec, words[e + i],
                                            constI32(b, loc, i));
      values.push_back(LLVM::BitcastOp::create(b, loc, elementType, vec));
    }
    return values;
  }
  unsigned perWord = std::max(1u, std::min(count, 32 / bits));
  for (Value word : words) {
    if (perWord == 1 && bitWidth(word.getType()) == bits) {
      values.push_back(LLVM::BitcastOp::create(b, loc, elementType, word));
      continue;
    }
    auto vecType = VectorType::get(perWord, elementType);
    Value vec = LLVM::BitcastOp::create(b, loc, vecType, word);
    for (unsigned i = 0; i < perWord; ++i)
      values.push_back(
          LLVM::ExtractElementOp::create(b, loc, vec, constI32(b, loc, i)));
  }
  values.resize(count);
  return values;
}

FailureOr<SmallVector<Value>>
tilec::replicatedElements(Operation *op, Value tile, ValueRange regs) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (type.getRank() != 1 || !type.getEncoding() ||
      !mlir::tile::isReplicatedLayout(type.getEncoding(), type.getShape()))
    return op->emitError("the boxes of a gathered copy must be a 1-D tile "
                         "that every thread holds whole (a replicated "
                         "layout)");
  LinearLayout layout =
      mlir::tile::toLinearLayout(type.getEncoding(), type.getShape());
  SmallVector<Value> elements(type.getDimSize(0));
  for (unsigned r = 0; r < layout.getNumRegs(); ++r) {
    int64_t k = layout.regCoords(r)[0];
    if (k < type.getDimSize(0) && !elements[k])
      elements[k] = regs[r];
  }
  return elements;
}

void tilec::recordVectorBytes(Operation *op, unsigned bytes) {
  auto param = op->getAttrOfType<IntegerAttr>(
      mlir::tile::TileDialect::getParamAttrName());
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!param || !func)
    return;
  auto old = func->getAttrOfType<DenseI32ArrayAttr>(
      mlir::tile::TileDialect::getParamVectorBytesAttrName());
  if (!old || param.getInt() >= int64_t(old.size()))
    return;
  SmallVector<int32_t> widths(old.asArrayRef());
  int32_t &w = widths[param.getInt()];
  if (int32_t(bytes) <= w)
    return;
  w = int32_t(bytes);
  func->setAttr(mlir::tile::TileDialect::getParamVectorBytesAttrName(),
                DenseI32ArrayAttr::get(op->getContext(), widths));
}
