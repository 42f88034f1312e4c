//===- Builtins.cpp - Built-in functions and methods ----------------------===//
//
// Each built-in declares its parameters once (names, which are required);
// one binder matches positional and keyword arguments against them and
// reports missing, repeated and unknown arguments the way Python does.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace mlir;
using llvm::SMLoc;

namespace {

/// Arguments of one call, bound to the callee's parameters by position.
class Args {
public:
  Args(Emitter &em, SMLoc callLoc, llvm::StringRef fname)
      : em(em), callLoc(callLoc), fname(fname.str()) {}

  bool has(unsigned i) const { return i < vals.size() && vals[i]; }
  const Val &operator[](unsigned i) const { return *vals[i]; }
  SMLoc loc(unsigned i) const {
    return i < locs.size() && locs[i].isValid() ? locs[i] : callLoc;
  }
  bool anyInvalid() const {
    for (const auto &v : vals)
      if (v && v->containsInvalid())
        return true;
    return false;
  }

  Emitter &em;
  SMLoc callLoc;
  std::string fname;
  std::vector<std::optional<Val>> vals;
  std::vector<SMLoc> locs;
};

struct Param {
  const char *name;
  bool required;
};

} // namespace

/// Binds `call`'s arguments to `params`. `self` (for methods) takes the first
/// parameter. Returns nullopt after reporting an error.
static std::optional<Args> bindArgs(Emitter &em, const ast::Call &call,
                                    llvm::StringRef fname,
                                    llvm::ArrayRef<Param> params,
                                    const Val *self = nullptr,
                                    SMLoc selfLoc = SMLoc()) {
  Args args(em, call.getLoc(), fname);
  args.vals.resize(params.size());
  args.locs.resize(params.size());
  unsigned next = 0;
  if (self) {
    args.vals[0] = *self;
    args.locs[0] = selfLoc;
    next = 1;
  }
  bool ok = true;
  for (const ast::ExprPtr &arg : call.args) {
    if (next >= params.size()) {
      em.diag.error(arg->getLoc(),
                    fname + "() takes at most " +
                        std::to_string(params.size() - (self ? 1 : 0)) +
                        " positional arguments");
      return std::nullopt;
    }
    args.vals[next] = em.emitExpr(*arg);
    args.locs[next] = arg->getLoc();
    ++next;
  }
  for (const ast::Keyword &kw : call.keywords) {
    auto it = llvm::find_if(params,
                            [&](const Param &p) { return kw.name == p.name; });
    if (it == params.end() || (self && it == params.begin())) {
      em.diag.error(kw.nameRange.Start, fname +
                                            "() got an unexpected keyword "
                                            "argument '" +
                                            kw.name + "'");
      ok = false;
      continue;
    }
    unsigned idx = it - params.begin();
    if (args.vals[idx]) {
      em.diag.error(kw.nameRange.Start, fname +
                                            "() got multiple values for "
                                            "argument '" +
                                            kw.name + "'");
      ok = false;
      continue;
    }
    args.vals[idx] = em.emitExpr(*kw.value);
    args.locs[idx] = kw.value->getLoc();
  }
  for (auto [i, p] : llvm::enumerate(params)) {
    if (p.required && !args.vals[i]) {
      em.diag.error(call.getLoc(),
                    fname + "() missing required argument '" + p.name + "'");
      ok = false;
    }
  }
  if (!ok || args.anyInvalid())
    return std::nullopt;
  return args;
}

//===----------------------------------------------------------------------===//
// Argument helpers
//===----------------------------------------------------------------------===//

static std::optional<int64_t> constIntArg(const Args &a, unsigned i,
                                          llvm::StringRef what) {
  const Val &v = a[i];
  if (v.kind == Val::Kind::Int)
    return v.i;
  a.em.diag.error(a.loc(i), a.fname + "(): " + what.str() +
                                " must be an integer constant, got " +
                                v.describe());
  return std::nullopt;
}

static std::optional<bool> constBoolArg(const Args &a, unsigned i,
                                        llvm::StringRef what) {
  const Val &v = a[i];
  if (v.kind == Val::Kind::Bool)
    return v.b;
  a.em.diag.error(a.loc(i), a.fname + "(): " + what.str() +
                                " must be a bool constant, got " +
                                v.describe());
  return std::nullopt;
}

static Type dtypeArg(const Args &a, unsigned i) {
  const Val &v = a[i];
  if (v.kind == Val::Kind::DType)
    return v.type;
  a.em.diag.error(a.loc(i), a.fname +
                                "(): expected a dtype (f16, bf16, f32, "
                                "i32, i64, i8, bool, f8e4m3, f8e5m2), got " +
                                v.describe());
  return {};
}

/// A tuple of integer constants, or a single integer constant.
static std::optional<SmallVector<int64_t>>
constIntsArg(const Args &a, unsigned i, llvm::StringRef what) {
  const Val &v = a[i];
  SmallVector<int64_t> out;
  if (v.kind == Val::Kind::Int) {
    out.push_back(v.i);
    return out;
  }
  if (v.kind == Val::Kind::Tuple) {
    for (const Val &e : v.elts) {
      if (e.kind != Val::Kind::Int) {
        a.em.diag.error(a.loc(i), a.fname + "(): " + what.str() +
                                      " must hold integer constants, got " +
                                      e.describe());
        return std::nullopt;
      }
      out.push_back(e.i);
    }
    return out;
  }
  a.em.diag.error(a.loc(i), a.fname + "(): " + what.str() +
                                " must be a tuple of integer constants, got " +
                                v.describe());
  return std::nullopt;
}

static std::optional<int64_t> axisArg(const Args &a, unsigned i, int64_t rank) {
  auto axis = constIntArg(a, i, "axis");
  if (!axis)
    return std::nullopt;
  int64_t k = *axis < 0 ? *axis + rank : *axis;
  if (k < 0 || k >= rank) {
    a.em.diag.error(a.loc(i), a.fname + "(): axis " + std::to_string(*axis) +
                                  " is out of range for a tile of rank " +
                                  std::to_string(rank));
    return std::nullopt;
  }
  return k;
}

static bool requireTile(const Args &a, unsigned i, llvm::StringRef what) {
  if (a[i].kind == Val::Kind::Tile)
    return true;
  a.em.diag.error(a.loc(i), a.fname + "(): " + what.str() +
                                " must be a tile, got " + a[i].describe());
  return false;
}

static bool requireGlobal(const Args &a, unsigned i) {
  if (a[i].kind == Val::Kind::Global)
    return true;
  a.em.diag.error(a.loc(i), a.fname +
                                "(): the first argument must be a tensor "
                                "parameter, got " +
                                a[i].describe());
  return false;
}

static bool isPermutation(ArrayRef<int64_t> perm) {
  llvm::SmallBitVector seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen.test(p))
      return false;
    seen.set(p);
  }
  return true;
}

/// Tile indices for load/store: integer constants or i32 scalars.
static std::optional<SmallVector<Value>>
indexArgs(const Args &a, unsigned i, unsigned rank, llvm::StringRef tensor,
          std::optional<std::pair<unsigned, Value>> *boxes = nullptr) {
  const Val &v = a[i];
  std::vector<Val> elts =
      v.kind == Val::Kind::Tuple ? v.elts : std::vector<Val>{v};
  if (elts.size() != rank) {
    a.em.diag.error(a.loc(i), "wrong index rank: " + a.fname + "() of a rank-" +
                                  std::to_string(rank) + " tensor needs " +
                                  std::to_string(rank) + " indices, got " +
                                  std::to_string(elts.size()));
    return std::nullopt;
  }
  SmallVector<Value> out;
  for (const Val &given : elts) {
    Val e = a.em.scalarOf(given, a.loc(i));
    if (e.kind == Val::Kind::Int) {
      out.push_back(
          a.em.materializeScalar(e, a.em.builder.getI32Type(), a.loc(i)));
      if (!out.back())
        return std::nullopt;
      continue;
    }
    if (e.kind == Val::Kind::Scalar && e.value.getType().isInteger(32)) {
      out.push_back(e.value);
      continue;
    }
    // load(): one dimension may take a 1-D i32 tile, the tile coordinates
    // of its boxes (the pages of a paged KV cache).
    auto tileType = e.kind == Val::Kind::Tile
                        ? dyn_cast<RankedTensorType>(e.value.getType())
                        : RankedTensorType();
    if (boxes && tileType && tileType.getRank() == 1 &&
        tileType.getElementType().isInteger(32)) {
      if (*boxes) {
        a.em.diag.error(a.loc(i), a.fname + "(): only one index may be a "
                                            "tile of box coordinates");
        return std::nullopt;
      }
      *boxes = std::make_pair(static_cast<unsigned>(out.size()), e.value);
      out.push_back(a.em.materializeScalar(
          Val::integer(0), a.em.builder.getI32Type(), a.loc(i)));
      continue;
    }
    a.em.diag.error(a.loc(i), a.fname +
                                  "(): tile indices must be integers, "
                                  "got " +
                                  e.describe() + e.notI32Hint() +
                                  (e.kind == Val::Kind::Tile
                                       ? (boxes ? " (only a tile of one "
                                                  "element is a scalar; a "
                                                  "1-D i32 tile gives boxes)"
                                                : " (only a tile of one "
                                                  "element is a scalar)")
                                       : ""));
    return std::nullopt;
  }
  return out;
}

static std::optional<SmallVector<int32_t>> orderArg(const Args &a, unsigned i,
                                                    unsigned rank) {
  if (!a.has(i))
    return SmallVector<int32_t>();
  auto order = constIntsArg(a, i, "order");
  if (!order)
    return std::nullopt;
  if (order->size() != rank || !isPermutation(*order)) {
    a.em.diag.error(a.loc(i), a.fname + "(): order must be a permutation of " +
                                  std::to_string(rank) + " dimensions, got " +
                                  shapeString(*order));
    return std::nullopt;
  }
  SmallVector<int32_t> out(order->begin(), order->end());
  bool identity = true;
  for (auto [k, p] : llvm::enumerate(out))
    identity &= static_cast<int64_t>(k) == p;
  if (identity)
    out.clear();
  return out;
}

//===----------------------------------------------------------------------===//
// Grid and construction
//===----------------------------------------------------------------------===//

template <typename OpTy> static Val emitGridQuery(const Args &a) {
  auto axis = constIntArg(a, 0, "axis");
  if (!axis)
    return Val::invalid();
  if (*axis < 0 || *axis > 2)
    return a.em.error(a.loc(0), a.fname + "(): axis must be 0, 1 or 2, got " +
                                    std::to_string(*axis));
  return Val::dynamic(OpTy::create(
      a.em.builder, a.em.loc(a.callLoc),
      a.em.builder.getI32IntegerAttr(static_cast<int32_t>(*axis))));
}

/// arange(n, dtype=i32): 0 .. n-1, a tile.arange of i32 converted to a
/// float dtype where one is asked for (exact up to 2^24 in f32, 2^11 in
/// f16, 2^8 in bf16, as the conversion rounds).
static Val emitArange(const Args &a) {
  auto n = constIntArg(a, 0, "the size");
  if (!n)
    return Val::invalid();
  Type t = a.em.builder.getI32Type();
  if (a.has(1)) {
    t = dtypeArg(a, 1);
    if (!t)
      return Val::invalid();
    if (!t.isInteger(32) && !t.isInteger(64) && !t.isInteger(8) && !t.isF32() &&
        !t.isF16() && !t.isBF16())
      return a.em.error(a.loc(1), "arange(): dtype must be i32, i64, i8, f32, "
                                  "f16 or bf16, got " +
                                      typeName(t));
  }
  SmallVector<int64_t> shape = {*n};
  if (!a.em.checkTileShape(shape, a.loc(0)))
    return Val::invalid();
  Location location = a.em.loc(a.callLoc);
  Value iota = tile::ArangeOp::create(
      a.em.builder, location,
      RankedTensorType::get(shape, a.em.builder.getI32Type()));
  if (!t.isInteger(32))
    iota = a.em.castElements(iota, t, location);
  return Val::dynamic(iota);
}

/// full(shape, value, dtype=None) and zeros(shape, dtype=f32).
static Val emitFull(const Args &a, const Val &value, SMLoc valueLoc,
                    Type dtype) {
  auto shape = constIntsArg(a, 0, "the shape");
  if (!shape || !a.em.checkTileShape(*shape, a.loc(0)))
    return Val::invalid();
  if (!value.isNumeric() || value.kind == Val::Kind::Tile)
    return a.em.error(valueLoc, a.fname +
                                    "(): the fill value must be a "
                                    "scalar, got " +
                                    value.describe());
  Type elt = dtype ? dtype : a.em.defaultType(value);
  Value v = a.em.coerce(value, elt, *shape, valueLoc);
  return v ? Val::dynamic(v) : Val::invalid();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The `padding` argument `i` of load() or gather(): a constant of `elt`,
/// as an attribute (null when absent); nullopt after an error.
static std::optional<TypedAttr> paddingArg(const Args &a, unsigned i,
                                           Type elt) {
  if (!a.has(i))
    return TypedAttr();
  if (!a[i].isConstNumber()) {
    a.em.error(a.loc(i), a.fname + "(): padding must be a constant, got " +
                             a[i].describe());
    return std::nullopt;
  }
  Value p = a.em.materializeScalar(a[i], elt, a.loc(i));
  if (!p)
    return std::nullopt;
  auto attr = cast<TypedAttr>(p.getDefiningOp<arith::ConstantOp>().getValue());
  p.getDefiningOp()->erase();
  return attr;
}

static Val emitLoad(const Args &a) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0))
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  unsigned rank = type.getRank();
  std::optional<std::pair<unsigned, Value>> boxes;
  auto indices = indexArgs(a, 1, rank, "tensor", &boxes);
  auto shape = constIntsArg(a, 2, "the shape");
  auto order = orderArg(a, 3, rank);
  if (!indices || !shape || !order)
    return Val::invalid();
  if (shape->size() != rank)
    return em.error(a.loc(2), "load(): the tile shape " + shapeString(*shape) +
                                  " must have one entry per tensor dimension "
                                  "(" +
                                  std::to_string(rank) + ")");
  if (!em.checkTileShape(*shape, a.loc(2)))
    return Val::invalid();
  Value boxTile;
  IntegerAttr boxDim;
  if (boxes) {
    auto [dim, tile] = *boxes;
    int64_t count = cast<RankedTensorType>(tile.getType()).getDimSize(0);
    if ((*shape)[dim] % count)
      return em.error(a.loc(1), "load(): " + std::to_string(count) +
                                    " boxes do not divide the tile's extent " +
                                    std::to_string((*shape)[dim]) +
                                    " along dimension " + std::to_string(dim));
    boxTile = tile;
    boxDim = em.builder.getI32IntegerAttr(static_cast<int32_t>(dim));
  }
  IntegerAttr latency;
  if (a.has(4)) {
    auto l = constIntArg(a, 4, "latency");
    if (!l)
      return Val::invalid();
    if (*l < 1 || *l > 10)
      return em.error(a.loc(4), "load(): latency must be between 1 and 10");
    latency = em.builder.getI32IntegerAttr(static_cast<int32_t>(*l));
  }
  auto padding = paddingArg(a, 5, type.getElementType());
  if (!padding)
    return Val::invalid();
  auto resultType = RankedTensorType::get(*shape, type.getElementType());
  auto op = tile::LoadOp::create(em.builder, em.loc(a.callLoc), resultType,
                                 a[0].value, *indices, boxTile, boxDim,
                                 order->empty()
                                     ? DenseI32ArrayAttr()
                                     : em.builder.getDenseI32ArrayAttr(*order),
                                 latency, *padding);
  return Val::dynamic(op.getResult());
}

/// gather(tensor, indices, padding) / scatter(tensor, indices, tile): one
/// index per tensor dimension (i32 tiles, scalars or ints: element
/// coordinates), broadcast together, with scatter's tile, to one shape.
struct IndexedAccess {
  SmallVector<Value> indices; // i32 tiles of `shape`
  SmallVector<int64_t> shape;
  Value tile; // scatter's, of `shape`
};

static std::optional<IndexedAccess> indexedArgs(const Args &a, bool scatter) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0))
    return std::nullopt;
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  unsigned rank = type.getRank();
  const Val &v = a[1];
  std::vector<Val> elts =
      v.kind == Val::Kind::Tuple ? v.elts : std::vector<Val>{v};
  if (elts.size() != rank) {
    em.error(a.loc(1), "wrong index rank: " + a.fname + "() of a rank-" +
                           std::to_string(rank) + " tensor needs " +
                           std::to_string(rank) + " index tiles, got " +
                           std::to_string(elts.size()));
    return std::nullopt;
  }
  std::vector<const Val *> operands;
  bool anyTile = false;
  for (const Val &e : elts) {
    bool isInt = e.kind == Val::Kind::Int ||
                 (e.isDynamic() && e.getElementType().isInteger(32));
    if (!isInt) {
      em.error(a.loc(1), a.fname +
                             "(): indices must be i32 tiles or "
                             "integers, got " +
                             e.describe() + e.notI32Hint());
      return std::nullopt;
    }
    anyTile |= e.kind == Val::Kind::Tile;
    operands.push_back(&e);
  }
  if (scatter) {
    if (!requireTile(a, 2, "the stored value"))
      return std::nullopt;
    if (a[2].getElementType() != type.getElementType()) {
      em.error(a.loc(2), a.fname + "(): type mismatch: the tile holds " +
                             typeName(a[2].getElementType()) +
                             " but the tensor holds " +
                             typeName(type.getElementType()) +
                             "; convert it with .astype()");
      return std::nullopt;
    }
    operands.push_back(&a[2]);
    anyTile = true;
  }
  if (!anyTile) {
    em.error(a.loc(1), a.fname + "(): at least one index must be a tile (use "
                                 "load() or store() for a single element's "
                                 "tile)");
    return std::nullopt;
  }
  auto shape = em.resultShape(operands, a.callLoc);
  if (!shape)
    return std::nullopt;
  IndexedAccess out;
  out.shape = *shape;
  for (const Val &e : elts) {
    Value idx = em.coerce(e, em.builder.getI32Type(), out.shape, a.loc(1));
    if (!idx)
      return std::nullopt;
    out.indices.push_back(idx);
  }
  if (scatter)
    out.tile = em.coerce(a[2], type.getElementType(), out.shape, a.loc(2));
  return out;
}

static Val emitGather(const Args &a) {
  Emitter &em = a.em;
  auto g = indexedArgs(a, /*scatter=*/false);
  if (!g)
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  if (type.getElementType().isInteger(1))
    return em.error(a.loc(0), "gather(): bool tensors are not supported");
  auto padding = paddingArg(a, 2, type.getElementType());
  if (!padding)
    return Val::invalid();
  auto resultType = RankedTensorType::get(g->shape, type.getElementType());
  return Val::dynamic(tile::GatherOp::create(em.builder, em.loc(a.callLoc),
                                             resultType, a[0].value, g->indices,
                                             *padding));
}

/// The error for an atomic or a combining scatter on a tensor of `elt` that
/// `red.global` does not combine by `kind`.
static Val unsupportedAtomic(const Args &a, tile::ReduceKind kind, Type elt) {
  return a.em.error(a.loc(0), a.fname + "() on a tensor of " + typeName(elt) +
                                  " is not supported: " +
                                  tile::getTileAtomicTypeList(kind).str() +
                                  " are");
}

/// scatter(), and with `combine` scatter_add/max/min(): each element
/// combined atomically where its indices name (two naming one place both
/// count), on the element types the atomics take.
static Val emitScatter(const Args &a,
                       std::optional<tile::ReduceKind> combine = {}) {
  auto s = indexedArgs(a, /*scatter=*/true);
  if (!s)
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  Type elt = type.getElementType();
  if (elt.isInteger(1))
    return a.em.error(a.loc(0), a.fname + "(): bool tensors are not supported");
  if (combine && !tile::isTileAtomicSupported(*combine, elt))
    return unsupportedAtomic(a, *combine, elt);
  tile::ReduceKindAttr kind =
      combine ? tile::ReduceKindAttr::get(a.em.builder.getContext(), *combine)
              : tile::ReduceKindAttr();
  // A combining scatter returns the values it found (a plain one nothing);
  // the cleanup drops them where they are not read.
  auto scatter = tile::ScatterOp::create(a.em.builder, a.em.loc(a.callLoc),
                                         combine ? s->tile.getType() : Type(),
                                         a[0].value, s->indices, s->tile, kind);
  return combine ? Val::dynamic(scatter.getOld()) : Val::none();
}

/// What store() and the atomics write: the tile, at tile coordinates of a
/// tensor seen through `order`, of the tensor's rank and element type.
struct TileWrite {
  SmallVector<Value> indices;
  DenseI32ArrayAttr order;
  Value tile;
};

static std::optional<TileWrite> tileWriteArgs(const Args &a,
                                              llvm::StringRef what) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0) || !requireTile(a, 2, what))
    return std::nullopt;
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  unsigned rank = type.getRank();
  auto indices = indexArgs(a, 1, rank, "tensor");
  auto order = orderArg(a, 3, rank);
  if (!indices || !order)
    return std::nullopt;
  const Val &t = a[2];
  if (t.getShape().size() != rank) {
    em.error(a.loc(2), a.fname + "(): the tile has rank " +
                           std::to_string(t.getShape().size()) +
                           " but the tensor has rank " + std::to_string(rank) +
                           "; reshape it first");
    return std::nullopt;
  }
  if (t.getElementType() != type.getElementType()) {
    em.error(a.loc(2), a.fname + "(): type mismatch: the tile holds " +
                           typeName(t.getElementType()) +
                           " but the tensor holds " +
                           typeName(type.getElementType()) +
                           "; convert it with .astype()");
    return std::nullopt;
  }
  return TileWrite{*indices,
                   order->empty() ? DenseI32ArrayAttr()
                                  : em.builder.getDenseI32ArrayAttr(*order),
                   t.value};
}

static Val emitStore(const Args &a) {
  auto w = tileWriteArgs(a, "the stored value");
  if (!w)
    return Val::invalid();
  tile::StoreOp::create(a.em.builder, a.em.loc(a.callLoc), a[0].value,
                        w->indices, w->tile, w->order,
                        /*shape=*/DenseI64ArrayAttr());
  return Val::none();
}

/// Argument `i` of a scalar atomic as a run-time scalar of the tensor's
/// element type `elt` (a constant materialized); null after an error.
static Value blockAtomicOperand(const Args &a, unsigned i, Type elt) {
  Emitter &em = a.em;
  const Val &v = a[i];
  if (v.kind == Val::Kind::Float && !isa<FloatType>(elt)) {
    em.error(a.loc(i), a.fname +
                           "(): type mismatch: the value is a float "
                           "but the tensor holds " +
                           typeName(elt));
    return {};
  }
  if (v.kind == Val::Kind::Scalar && v.value.getType() != elt) {
    em.error(a.loc(i), a.fname + "(): type mismatch: the value is " +
                           typeName(v.value.getType()) +
                           " but the tensor holds " + typeName(elt) +
                           "; convert it with .astype()");
    return {};
  }
  if (v.kind != Val::Kind::Scalar && !v.isConstNumber()) {
    em.error(a.loc(i), a.fname + "(): expected a scalar, got " + v.describe());
    return {};
  }
  return v.kind == Val::Kind::Scalar ? v.value
                                     : em.materializeScalar(v, elt, a.loc(i));
}

/// atomic_add / atomic_max / atomic_min(tensor, index, value) of a scalar:
/// one atomic by the block, ordered (acquire-release at GPU scope), whose
/// old value it returns to every thread.
static Val emitBlockAtomic(const Args &a, tile::ReduceKind kind) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0))
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  Type elt = type.getElementType();
  bool sum = kind == tile::ReduceKind::Sum;
  if (!(elt.isInteger(32) || (sum && elt.isF32())))
    return em.error(
        a.loc(0),
        a.fname + "() of a scalar on a tensor of " + typeName(elt) +
            " is not supported: " + (sum ? "i32 and f32 are" : "i32 is") +
            (elt.isInteger(64) ? " (a tile's atomics take i64: "
                                 "combine a (1,) tile)"
                               : ""));
  if (a.has(3) && a[3].kind != Val::Kind::None)
    return em.error(a.loc(3), a.fname + "(): `order` applies to a tile; a "
                                        "scalar's index is the element's");
  auto indices = indexArgs(a, 1, type.getRank(), "tensor");
  if (!indices)
    return Val::invalid();
  Value value = blockAtomicOperand(a, 2, elt);
  if (!value)
    return Val::invalid();
  return Val::dynamic(tile::BlockAtomicOp::create(
      em.builder, em.loc(a.callLoc), kind, a[0].value, value, *indices));
}

/// atomic_xchg(tensor, index, value) and atomic_cas(tensor, index, compare,
/// value): one exchange (or compare-and-swap) by the block, ordered as the
/// scalar atomics are, whose old value it returns to every thread.
static Val emitBlockExchange(const Args &a, bool cas) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0))
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  Type elt = type.getElementType();
  unsigned valueArg = cas ? 3 : 2;
  for (unsigned i = 2; i <= valueArg; ++i)
    if (a[i].kind == Val::Kind::Tile)
      return em.error(a.loc(i), a.fname + "() takes scalars: one " +
                                    (cas ? "compare-and-swap" : "exchange") +
                                    " by the block, returning the old value "
                                    "(a tile's is not supported)");
  if (!(elt.isInteger(32) || (!cas && elt.isF32())))
    return em.error(a.loc(0), a.fname + "() on a tensor of " + typeName(elt) +
                                  " is not supported: " +
                                  (cas ? "i32 is" : "i32 and f32 are"));
  auto indices = indexArgs(a, 1, type.getRank(), "tensor");
  if (!indices)
    return Val::invalid();
  Value compare = cas ? blockAtomicOperand(a, 2, elt) : Value();
  Value value = blockAtomicOperand(a, valueArg, elt);
  if (!value || (cas && !compare))
    return Val::invalid();
  return Val::dynamic(tile::BlockExchangeOp::create(
      em.builder, em.loc(a.callLoc), a[0].value, value, compare, *indices));
}

/// atomic_add / atomic_max / atomic_min(tensor, index, tile, order=None).
static Val emitAtomic(const Args &a, tile::ReduceKind kind) {
  if (a[2].kind == Val::Kind::Scalar || a[2].isConstNumber())
    return emitBlockAtomic(a, kind);
  auto w = tileWriteArgs(a, "the combined value");
  if (!w)
    return Val::invalid();
  Type elt =
      cast<tile::GlobalTensorType>(a[0].value.getType()).getElementType();
  if (!tile::isTileAtomicSupported(kind, elt))
    return unsupportedAtomic(a, kind, elt);
  // The old values (read only where used: the cleanup drops them where
  // they are not).
  auto atomic = tile::AtomicRMWOp::create(a.em.builder, a.em.loc(a.callLoc),
                                          w->tile.getType(), kind, a[0].value,
                                          w->indices, w->tile, w->order);
  return Val::dynamic(atomic.getOld());
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

static Val emitMma(const Args &a) {
  Emitter &em = a.em;
  if (!requireTile(a, 0, "a") || !requireTile(a, 1, "b") ||
      !requireTile(a, 2, "the accumulator"))
    return Val::invalid();
  ArrayRef<int64_t> sa = a[0].getShape(), sb = a[1].getShape(),
                    sc = a[2].getShape();
  if (sa.size() != 2 || sb.size() != 2 || sc.size() != 2)
    return em.error(a.callLoc, "mma(): operands must be 2-D tiles, got " +
                                   shapeString(sa) + ", " + shapeString(sb) +
                                   " and " + shapeString(sc));
  if (sa[1] != sb[0])
    return em.error(a.callLoc, "mma(): shape mismatch: a is " +
                                   shapeString(sa) + " and b is " +
                                   shapeString(sb) + "; the K dimensions (" +
                                   std::to_string(sa[1]) + " and " +
                                   std::to_string(sb[0]) + ") must agree");
  if (sc[0] != sa[0] || sc[1] != sb[1])
    return em.error(a.loc(2), "mma(): shape mismatch: the accumulator is " +
                                  shapeString(sc) + " but a @ b is " +
                                  shapeString({sa[0], sb[1]}));
  Type ta = a[0].getElementType(), tb = a[1].getElementType();
  if (!tile::isMmaOperandPair(ta, tb))
    return em.error(a.callLoc, "mma(): type mismatch: a and b must both hold "
                               "f16, both bf16, both 8-bit floats "
                               "(f8e4m3/f8e5m2), both i8 or both f32, got " +
                                   typeName(ta) + " and " + typeName(tb));
  // f32 operands multiply as tf32, which reads 10 of f32's 23 bits of
  // mantissa: asked for by name, as Triton's allow_tf32.
  std::optional<bool> tf32 = false;
  if (a.has(3) && !(tf32 = constBoolArg(a, 3, "allow_tf32")))
    return Val::invalid();
  if (ta.isF32() && !*tf32)
    return em.error(a.callLoc,
                    "mma(): f32 operands multiply on the tensor cores as "
                    "tf32, which reads 10 of each mantissa's 23 bits: pass "
                    "allow_tf32=True, or cast a and b to f16 or bf16");
  if (!ta.isF32() && *tf32)
    return em.error(a.loc(3), "mma(): allow_tf32 applies to f32 operands, "
                              "not " +
                                  typeName(ta));
  Type acc = tile::getMmaAccumulatorType(ta);
  if (a[2].getElementType() != acc)
    return em.error(a.loc(2), "mma(): the accumulator must hold " +
                                  typeName(acc) + " for " + typeName(ta) +
                                  " operands, got " +
                                  typeName(a[2].getElementType()));
  return Val::dynamic(tile::MmaOp::create(em.builder, em.loc(a.callLoc),
                                          a[0].value, a[1].value, a[2].value));
}

/// The axis and keepdims of a reduction-like call (x, axis, keepdims=False)
/// on a tile; nullopt after an error (not a tile, a bad axis, or a 1-D tile
/// without keepdims, whose result would be a scalar).
struct ReduceArgs {
  unsigned axis;
  bool keepdims;
};
/// The checks every reduction makes of its value (a tile it computes on)
/// and its `keepdims` (a bool constant, false when absent): keepdims, or
/// nullopt after an error.
static std::optional<bool> reducedTileKeepdims(const Args &a) {
  if (!requireTile(a, 0, "the reduced value") ||
      !a.em.requireArithmetic(a[0], a.loc(0), a.fname + "()"))
    return std::nullopt;
  if (!a.has(2))
    return false;
  return constBoolArg(a, 2, "keepdims");
}

static std::optional<ReduceArgs> reduceArgs(const Args &a) {
  std::optional<bool> keepdims = reducedTileKeepdims(a);
  if (!keepdims)
    return std::nullopt;
  auto axis = axisArg(a, 1, a[0].getShape().size());
  if (!axis)
    return std::nullopt;
  return ReduceArgs{static_cast<unsigned>(*axis), *keepdims};
}

/// The axes sum(), max() and min() reduce: `axis` an integer constant, a
/// tuple of them, or None or absent (every axis); sorted, each once.
static std::optional<SmallVector<unsigned>> reduceAxes(const Args &a,
                                                       int64_t rank) {
  SmallVector<unsigned> axes;
  if (!a.has(1) || a[1].kind == Val::Kind::None) {
    for (unsigned d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  if (a[1].kind != Val::Kind::Int && a[1].kind != Val::Kind::Tuple) {
    a.em.diag.error(a.loc(1), a.fname +
                                  "(): axis must be an integer "
                                  "constant, a tuple of them or None, "
                                  "got " +
                                  a[1].describe());
    return std::nullopt;
  }
  auto given = constIntsArg(a, 1, "axis");
  if (!given)
    return std::nullopt;
  if (given->empty()) {
    a.em.diag.error(a.loc(1), a.fname + "(): axis=() names no axis");
    return std::nullopt;
  }
  for (int64_t axis : *given) {
    int64_t k = axis < 0 ? axis + rank : axis;
    if (k < 0 || k >= rank) {
      a.em.diag.error(a.loc(1), a.fname + "(): axis " + std::to_string(axis) +
                                    " is out of range for a tile of rank " +
                                    std::to_string(rank));
      return std::nullopt;
    }
    if (llvm::is_contained(axes, unsigned(k))) {
      a.em.diag.error(a.loc(1), a.fname + "(): axis " + std::to_string(axis) +
                                    " is named twice");
      return std::nullopt;
    }
    axes.push_back(unsigned(k));
  }
  llvm::sort(axes);
  return axes;
}

/// sum(), max(), min() over `axis`: one tile.reduce per axis, the last axis
/// first. Without keepdims the reduced axes are dropped; where that leaves
/// none, the result is the run-time scalar (`tile.item` of the 1 x ... x 1
/// tile every thread holds), as `tl.sum(x)` and `x.sum()` give.
static Val emitReduce(const Args &a, tile::ReduceKind kind) {
  Emitter &em = a.em;
  std::optional<bool> keepdimsArg = reducedTileKeepdims(a);
  if (!keepdimsArg)
    return Val::invalid();
  bool keepdims = *keepdimsArg;
  SmallVector<int64_t> shape(a[0].getShape());
  std::optional<SmallVector<unsigned>> axes = reduceAxes(a, shape.size());
  if (!axes)
    return Val::invalid();
  bool scalar = !keepdims && axes->size() == shape.size();
  Location location = em.loc(a.callLoc);
  Value v = a[0].value;
  if ((kind == tile::ReduceKind::Sum || kind == tile::ReduceKind::Prod) &&
      a[0].getElementType().isInteger(1))
    v = em.castElements(v, em.builder.getI32Type(), location);
  Type elt = getElementTypeOrSelf(v.getType());
  // (The last axis first: the others keep their numbers when it is
  // dropped. A result that becomes a scalar keeps its axes until then.)
  for (unsigned axis : llvm::reverse(*axes)) {
    bool keep = keepdims || scalar;
    if (keep)
      shape[axis] = 1;
    else
      shape.erase(shape.begin() + axis);
    v = tile::ReduceOp::create(em.builder, location,
                               RankedTensorType::get(shape, elt), kind, v, axis,
                               keep, /*kept_bits=*/nullptr);
  }
  if (scalar)
    return Val::dynamic(tile::ItemOp::create(em.builder, location, elt, v));
  return Val::dynamic(v);
}

/// The i32 index along `axis` of the first extreme element of `x`.
static Value argReduce(Emitter &em, Value x, unsigned axis, bool keepdims,
                       bool isMax, Location location);

/// argmax/argmin(x, axis=None, keepdims=False): the index along `axis` of
/// the first greatest (least) element, as i32. Two reductions: the extreme
/// value, then the least index where the tile holds it (NaN is skipped, as
/// max() and min() skip it; a row of NaN gives its length).
static Val emitArgReduce(const Args &a, bool isMax) {
  Emitter &em = a.em;
  Location location = em.loc(a.callLoc);
  // No axis: the index into the flattened tile (numpy's); a 1-D tile's
  // without keepdims, a scalar (tile.item).
  if (!a.has(1) || a[1].kind == Val::Kind::None) {
    std::optional<bool> keepdims = reducedTileKeepdims(a);
    if (!keepdims)
      return Val::invalid();
    ArrayRef<int64_t> shape = a[0].getShape();
    int64_t elements = 1;
    for (int64_t d : shape)
      elements *= d;
    Value x = a[0].value;
    auto type = cast<RankedTensorType>(x.getType());
    if (shape.size() > 1)
      x = tile::ReshapeOp::create(
          em.builder, location,
          RankedTensorType::get({elements}, type.getElementType()), x);
    Value index = argReduce(em, x, 0, /*keepdims=*/true, isMax, location);
    if (*keepdims)
      return Val::dynamic(tile::ReshapeOp::create(
          em.builder, location,
          RankedTensorType::get(SmallVector<int64_t>(shape.size(), 1),
                                em.builder.getI32Type()),
          index));
    return Val::dynamic(tile::ItemOp::create(em.builder, location,
                                             em.builder.getI32Type(), index));
  }
  std::optional<ReduceArgs> r = reduceArgs(a);
  if (!r)
    return Val::invalid();
  if (a[0].getShape().size() == 1 && !r->keepdims)
    return Val::dynamic(tile::ItemOp::create(
        em.builder, location, em.builder.getI32Type(),
        argReduce(em, a[0].value, 0, /*keepdims=*/true, isMax, location)));
  return Val::dynamic(
      argReduce(em, a[0].value, r->axis, r->keepdims, isMax, location));
}

static Value argReduce(Emitter &em, Value x, unsigned axis, bool keepdims,
                       bool isMax, Location location) {
  OpBuilder &b = em.builder;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  Type elt = getElementTypeOrSelf(x.getType());
  if (elt.isInteger(1)) {
    x = em.castElements(x, b.getI32Type(), location);
    elt = b.getI32Type();
  }
  SmallVector<int64_t> kept(shape);
  kept[axis] = 1;
  SmallVector<int64_t> dropped(shape);
  dropped.erase(dropped.begin() + axis);
  auto reduce = [&](tile::ReduceKind kind, Value v, bool keep) {
    auto type = RankedTensorType::get(keep ? kept : dropped,
                                      getElementTypeOrSelf(v.getType()));
    return tile::ReduceOp::create(b, location, type, kind, v, axis, keep,
                                  /*kept_bits=*/nullptr)
        .getResult();
  };
  Value extreme = em.broadcastTo(
      reduce(isMax ? tile::ReduceKind::Max : tile::ReduceKind::Min, x,
             /*keep=*/true),
      shape, location);
  Value isExtreme =
      isa<FloatType>(elt)
          ? Value(arith::CmpFOp::create(b, location, arith::CmpFPredicate::OEQ,
                                        x, extreme))
          : Value(arith::CmpIOp::create(b, location, arith::CmpIPredicate::eq,
                                        x, extreme));
  // The index along the axis, broadcast over the others.
  Type i32 = b.getI32Type();
  Value iota = tile::ArangeOp::create(
      b, location, RankedTensorType::get({shape[axis]}, i32));
  SmallVector<int64_t> line(shape.size(), 1);
  line[axis] = shape[axis];
  iota = tile::ReshapeOp::create(b, location, RankedTensorType::get(line, i32),
                                 iota);
  iota = em.broadcastTo(iota, shape, location);
  auto i32Tile = RankedTensorType::get(shape, i32);
  Value past = arith::ConstantOp::create(
      b, location,
      DenseElementsAttr::get(
          i32Tile, b.getI32IntegerAttr(static_cast<int32_t>(shape[axis]))));
  Value where = arith::SelectOp::create(b, location, isExtreme, iota, past);
  return reduce(tile::ReduceKind::Min, where, keepdims);
}

/// cluster_gather(x, axis=0): the tile x of every block of the kernel's
/// cluster (C blocks), joined along `axis` in the order of their ranks; x a
/// tuple of tiles gives a tuple, all exchanged at one cluster barrier.
static Val emitClusterGather(const Args &a) {
  Emitter &em = a.em;
  Operation *parent = em.builder.getInsertionBlock()->getParentOp();
  auto func = isa<func::FuncOp>(parent)
                  ? cast<func::FuncOp>(parent)
                  : parent->getParentOfType<func::FuncOp>();
  auto cluster = func ? func->getAttrOfType<IntegerAttr>(
                            tile::TileDialect::getClusterAttrName())
                      : IntegerAttr();
  if (!cluster)
    return em.error(a.callLoc,
                    "cluster_gather() needs a kernel launched in "
                    "clusters: compile it with cluster=2, 4, 8 or 16 "
                    "(sm_90), or give it @hints(cluster=C)");
  const Val &x = a[0];
  bool many = x.kind == Val::Kind::Tuple;
  std::vector<Val> tiles = many ? x.elts : std::vector<Val>{x};
  if (tiles.empty())
    return em.error(a.loc(0), "cluster_gather(): nothing to gather");
  for (const Val &t : tiles)
    if (t.kind != Val::Kind::Tile)
      return em.error(a.loc(0), "cluster_gather(): expected a tile or a "
                                "tuple of tiles, got " +
                                    t.describe());
  unsigned rank = tiles.front().getShape().size();
  int64_t axis = 0;
  if (a.has(1)) {
    auto k = axisArg(a, 1, rank);
    if (!k)
      return Val::invalid();
    axis = *k;
  }
  SmallVector<Value> inputs;
  SmallVector<Type> types;
  for (const Val &t : tiles) {
    ArrayRef<int64_t> shape = t.getShape();
    if (shape.size() != rank)
      return em.error(a.loc(0), "cluster_gather(): the tiles' ranks differ (" +
                                    shapeString(tiles.front().getShape()) +
                                    " and " + shapeString(shape) + ")");
    if (!llvm::all_of(shape, [](int64_t d) { return llvm::isPowerOf2_64(d); }))
      return em.error(a.loc(0), "cluster_gather(): a tile of shape " +
                                    shapeString(shape) +
                                    ": exchanged tiles have power-of-two "
                                    "dimensions");
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    if (bits != 16 && bits != 32 && bits != 64)
      return em.error(a.loc(0), "cluster_gather(): a tile of " +
                                    typeName(t.getElementType()) +
                                    ": exchanged elements are 16, 32 or 64 "
                                    "bits (convert with .astype())");
    SmallVector<int64_t> whole(shape);
    whole[axis] *= cluster.getInt();
    inputs.push_back(t.value);
    types.push_back(RankedTensorType::get(whole, t.getElementType()));
  }
  auto op = tile::ClusterGatherOp::create(em.builder, em.loc(a.callLoc), types,
                                          inputs, uint32_t(axis));
  std::vector<Val> results;
  for (Value r : op.getResults())
    results.push_back(Val::dynamic(r));
  return many ? Val::tuple(std::move(results)) : results.front();
}

/// cat(tiles, axis=0): two or more tiles joined along `axis` (numpy's
/// concatenate, torch.cat): the same rank, element type and sizes but along
/// the axis.
static Val emitCat(const Args &a) {
  Emitter &em = a.em;
  const Val &tiles = a[0];
  if (tiles.kind != Val::Kind::Tuple || tiles.elts.size() < 2)
    return em.error(a.loc(0), "cat(): the first argument must be a tuple of "
                              "two or more tiles, got " +
                                  tiles.describe());
  for (const Val &t : tiles.elts)
    if (t.kind != Val::Kind::Tile)
      return em.error(a.loc(0), "cat(): every element of the tuple must be a "
                                "tile, got " +
                                    t.describe());
  ArrayRef<int64_t> first = tiles.elts.front().getShape();
  int64_t axis = 0;
  if (a.has(1)) {
    auto k = axisArg(a, 1, first.size());
    if (!k)
      return Val::invalid();
    axis = *k;
  }
  Type elt = tiles.elts.front().getElementType();
  for (const Val &t : tiles.elts)
    if (t.getElementType() != elt)
      return em.error(a.loc(0), "cat(): the tiles hold " + typeName(elt) +
                                    " and " + typeName(t.getElementType()) +
                                    " (convert one with .astype())");
  SmallVector<int64_t> shape(first);
  shape[axis] = 0;
  SmallVector<Value> inputs;
  for (auto [i, t] : llvm::enumerate(tiles.elts)) {
    ArrayRef<int64_t> s = t.getShape();
    bool fits = s.size() == first.size();
    for (unsigned d = 0; fits && d < s.size(); ++d)
      fits = d == axis || s[d] == first[d];
    if (!fits)
      return em.error(a.loc(0), "cat(): tile " + std::to_string(i) +
                                    " has shape " + shapeString(s) +
                                    ", which does not join " +
                                    shapeString(first) + " along axis " +
                                    std::to_string(axis));
    // Held padded to a power of two, a tile's padding along the axis
    // would overlap the next tile.
    if (i + 1 < tiles.elts.size() && !llvm::isPowerOf2_64(s[axis]))
      return em.error(a.loc(0), "cat(): tile " + std::to_string(i) + " has " +
                                    std::to_string(s[axis]) + " along axis " +
                                    std::to_string(axis) +
                                    ", not a power of two; only the last "
                                    "tile joined may be");
    shape[axis] += s[axis];
    inputs.push_back(t.value);
  }
  // The last tile's padding must stay inside the result's.
  int64_t last = tiles.elts.back().getShape()[axis];
  if (shape[axis] - last + int64_t(llvm::PowerOf2Ceil(last)) >
      int64_t(llvm::PowerOf2Ceil(shape[axis])))
    return em.error(a.loc(0),
                    "cat(): the last tile's " + std::to_string(last) +
                        " along axis " + std::to_string(axis) +
                        ", padded to a power of two, would reach past the "
                        "result's padding");
  if (!em.checkTileShape(shape, a.callLoc))
    return Val::invalid();
  return Val::dynamic(tile::ConcatOp::create(
      em.builder, em.loc(a.callLoc), RankedTensorType::get(shape, elt), inputs,
      em.builder.getI32IntegerAttr(axis)));
}

/// cumsum, cumprod, cummax, cummin(x, axis): the inclusive scan along
/// `axis` (tile.scan), in x's type (a bool tile's sum and product in i32).
static Val emitScan(const Args &a, tile::ReduceKind kind) {
  Emitter &em = a.em;
  if (!requireTile(a, 0, "the scanned value") ||
      !em.requireArithmetic(a[0], a.loc(0), a.fname + "()"))
    return Val::invalid();
  auto axis = axisArg(a, 1, a[0].getShape().size());
  if (!axis)
    return Val::invalid();
  Location location = em.loc(a.callLoc);
  Value x = a[0].value;
  if ((kind == tile::ReduceKind::Sum || kind == tile::ReduceKind::Prod) &&
      a[0].getElementType().isInteger(1))
    x = em.castElements(x, em.builder.getI32Type(), location);
  return Val::dynamic(tile::ScanOp::create(em.builder, location, x.getType(),
                                           kind, x,
                                           static_cast<uint32_t>(*axis)));
}

Val Emitter::emitMinMax(bool isMax, Val lhs, Val rhs, SMLoc l) {
  if (lhs.isInvalid() || rhs.isInvalid())
    return Val::invalid();
  const char *name = isMax ? "max" : "min";
  if (!lhs.isNumeric() || !rhs.isNumeric())
    return error(l, std::string(name) + "() cannot be applied to " +
                        (lhs.isNumeric() ? rhs : lhs).describe());
  if (lhs.isConstNumber() && rhs.isConstNumber()) {
    bool isFloat = lhs.kind == Val::Kind::Float || rhs.kind == Val::Kind::Float;
    if (isFloat) {
      double x = lhs.kind == Val::Kind::Float ? lhs.f : *getConstInt(lhs);
      double y = rhs.kind == Val::Kind::Float ? rhs.f : *getConstInt(rhs);
      return Val::floating(isMax ? std::max(x, y) : std::min(x, y));
    }
    int64_t x = *getConstInt(lhs), y = *getConstInt(rhs);
    return Val::integer(isMax ? std::max(x, y) : std::min(x, y));
  }
  Type elt = promote(lhs, rhs, l, std::string(name) + "()");
  if (!elt)
    return Val::invalid();
  auto shapeOr = resultShape({&lhs, &rhs}, l);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  Value a = coerce(lhs, elt, shape, l), b = coerce(rhs, elt, shape, l);
  if (!a || !b)
    return Val::invalid();
  Location location = loc(l);
  // maxnum/minnum ignore a NaN operand, matching PTX max.f32/min.f32.
  if (isa<FloatType>(elt))
    return Val::dynamic(
        isMax ? Value(arith::MaxNumFOp::create(builder, location, a, b))
              : Value(arith::MinNumFOp::create(builder, location, a, b)));
  if (elt.isInteger(1))
    return Val::dynamic(
        isMax ? Value(arith::MaxUIOp::create(builder, location, a, b))
              : Value(arith::MinUIOp::create(builder, location, a, b)));
  return Val::dynamic(
      isMax ? Value(arith::MaxSIOp::create(builder, location, a, b))
            : Value(arith::MinSIOp::create(builder, location, a, b)));
}

/// max()/min(): a reduction with `axis=`, or elementwise over 2+ values.
static Val emitMinMaxCall(Emitter &em, const ast::Call &call, bool isMax) {
  llvm::StringRef name = isMax ? "max" : "min";
  bool isReduction = call.args.size() == 1 ||
                     llvm::any_of(call.keywords, [](const ast::Keyword &k) {
                       return k.name == "axis" || k.name == "keepdims";
                     });
  if (isReduction) {
    auto a = bindArgs(em, call, name,
                      {{"x", true}, {"axis", false}, {"keepdims", false}});
    if (!a)
      return Val::invalid();
    return emitReduce(*a,
                      isMax ? tile::ReduceKind::Max : tile::ReduceKind::Min);
  }
  if (call.args.size() < 2 || !call.keywords.empty())
    return em.error(call.getLoc(),
                    name.str() + "() takes two or more values, or one tile "
                                 "and axis=");
  Val acc = em.emitExpr(*call.args[0]);
  for (size_t i = 1; i < call.args.size(); ++i)
    acc = em.emitMinMax(isMax, acc, em.emitExpr(*call.args[i]),
                        call.args[i]->getLoc());
  return acc;
}

/// Float math functions applying to scalars and tiles.
static Val emitUnaryMath(const Args &a, llvm::StringRef fn) {
  Emitter &em = a.em;
  const Val &x = a[0];
  if (!x.isNumeric())
    return em.error(a.loc(0),
                    a.fname + "() cannot be applied to " + x.describe());
  Location location = em.loc(a.callLoc);
  bool ftz = false;
  if (fn == "exp2" && a.has(1)) {
    auto f = constBoolArg(a, 1, "flush_to_zero");
    if (!f)
      return Val::invalid();
    ftz = *f;
  }
  if (!em.requireArithmetic(x, a.loc(0), a.fname + "()"))
    return Val::invalid();
  if (fn == "abs" && !x.isConstNumber() && !isa<FloatType>(x.getElementType()))
    return Val::dynamic(math::AbsIOp::create(em.builder, location, x.value));
  if (x.isConstNumber()) {
    double v = x.kind == Val::Kind::Float ? x.f : *em.getConstInt(x);
    double r = llvm::StringSwitch<double>(fn)
                   .Case("exp", std::exp(v))
                   .Case("exp2", std::exp2(v))
                   .Case("log", std::log(v))
                   .Case("log2", std::log2(v))
                   .Case("sqrt", std::sqrt(v))
                   .Case("rsqrt", 1.0 / std::sqrt(v))
                   .Case("abs", std::fabs(v))
                   .Case("floor", std::floor(v))
                   .Case("ceil", std::ceil(v))
                   .Case("tanh", std::tanh(v))
                   .Case("erf", std::erf(v))
                   .Case("sin", std::sin(v))
                   .Case("cos", std::cos(v))
                   .Case("sigmoid", 1.0 / (1.0 + std::exp(-v)))
                   .Default(0);
    if (x.kind == Val::Kind::Int && (fn == "abs")) {
      if (x.i == std::numeric_limits<int64_t>::min())
        return em.error(a.callLoc, "integer overflow in a constant expression");
      return Val::integer(std::abs(x.i));
    }
    return Val::floating(r);
  }
  Value v = x.value;
  if (!isa<FloatType>(x.getElementType()))
    v = em.castElements(v, em.builder.getF32Type(), location);
  Value r;
  if (fn == "exp2") {
    r = tile::Exp2Op::create(em.builder, location, v,
                             ftz ? em.builder.getUnitAttr() : UnitAttr());
  } else if (fn == "exp") {
    r = math::ExpOp::create(em.builder, location, v);
  } else if (fn == "log") {
    r = math::LogOp::create(em.builder, location, v);
  } else if (fn == "log2") {
    r = math::Log2Op::create(em.builder, location, v);
  } else if (fn == "sqrt") {
    r = math::SqrtOp::create(em.builder, location, v);
  } else if (fn == "rsqrt") {
    r = math::RsqrtOp::create(em.builder, location, v);
  } else if (fn == "abs") {
    r = math::AbsFOp::create(em.builder, location, v);
  } else if (fn == "floor") {
    r = math::FloorOp::create(em.builder, location, v);
  } else if (fn == "tanh") {
    r = math::TanhOp::create(em.builder, location, v);
  } else if (fn == "sin") {
    r = math::SinOp::create(em.builder, location, v);
  } else if (fn == "cos") {
    r = math::CosOp::create(em.builder, location, v);
  } else if (fn == "erf") {
    // A polynomial in f32 (math's approximation), for f16 and bf16 too.
    Type elt = getElementTypeOrSelf(v.getType());
    Type f32 = em.builder.getF32Type();
    Value wide = elt.isF32() ? v : em.castElements(v, f32, location);
    r = math::ErfOp::create(em.builder, location, wide);
    if (!elt.isF32())
      r = em.castElements(r, elt, location);
  } else if (fn == "sigmoid") {
    // 1 / (1 + exp(-x)) in f32 (f16 and bf16 too): ex2.approx.ftz of
    // -x * log2(e) and div.approx.ftz. exp(-x) overflowing to infinity
    // gives 0, as it should; flushing to zero moves no result by more than
    // 2^-126 (a result below it is 0), and spares the subnormal paths'
    // instructions and registers (x * sigmoid(x) on a 128 x 256 GEMM
    // accumulator spilled with them).
    Type elt = getElementTypeOrSelf(v.getType());
    Type f32 = em.builder.getF32Type();
    Value wide = elt.isF32() ? v : em.castElements(v, f32, location);
    ArrayRef<int64_t> shape;
    if (auto type = dyn_cast<RankedTensorType>(wide.getType()))
      shape = type.getShape();
    Value one = em.coerce(Val::floating(1.0), f32, shape, a.callLoc);
    Value minusLog2e =
        em.coerce(Val::floating(-1.4426950408889634), f32, shape, a.callLoc);
    Value e = tile::Exp2Op::create(
        em.builder, location,
        arith::MulFOp::create(em.builder, location, wide, minusLog2e),
        em.builder.getUnitAttr());
    Value d = arith::AddFOp::create(em.builder, location, one, e);
    r = tile::DivOp::create(
        em.builder, location, one, d,
        tile::RoundingModeAttr::get(&em.context, tile::RoundingMode::Approx),
        em.builder.getUnitAttr());
    if (!elt.isF32())
      r = em.castElements(r, elt, location);
  } else {
    r = math::CeilOp::create(em.builder, location, v);
  }
  return Val::dynamic(r);
}

static Val emitTrueDiv(const Args &a) {
  Emitter &em = a.em;
  tile::RoundingMode mode = tile::RoundingMode::RN;
  if (a.has(2)) {
    if (a[2].kind != Val::Kind::Rounding)
      return em.error(a.loc(2), "truediv(): rounding_mode must be RN, FULL "
                                "or APPROX, got " +
                                    a[2].describe());
    mode = a[2].rounding;
  }
  bool ftz = false;
  if (a.has(3)) {
    auto f = constBoolArg(a, 3, "flush_to_zero");
    if (!f)
      return Val::invalid();
    ftz = *f;
  }
  const Val &x = a[0], &y = a[1];
  if (!x.isNumeric() || !y.isNumeric())
    return em.error(a.callLoc, "truediv() cannot be applied to " +
                                   (x.isNumeric() ? y : x).describe());
  if (x.isConstNumber() && y.isConstNumber())
    return em.emitBinary(ast::BinaryOp::Div, x, y, a.callLoc);
  Type elt = em.promote(x, y, a.callLoc, "truediv()");
  if (!elt)
    return Val::invalid();
  if (!isa<FloatType>(elt))
    elt = em.builder.getF32Type();
  auto shapeOr = em.resultShape({&x, &y}, a.callLoc);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  Value l = em.coerce(x, elt, shape, a.loc(0));
  Value r = em.coerce(y, elt, shape, a.loc(1));
  if (!l || !r)
    return Val::invalid();
  return Val::dynamic(
      tile::DivOp::create(em.builder, em.loc(a.callLoc), l, r,
                          tile::RoundingModeAttr::get(&em.context, mode),
                          ftz ? em.builder.getUnitAttr() : UnitAttr()));
}

static Val emitWhere(const Args &a) {
  Emitter &em = a.em;
  const Val &c = a[0];
  if (c.kind == Val::Kind::Bool)
    return c.b ? a[1] : a[2];
  if (!c.isDynamic() || !c.getElementType().isInteger(1))
    return em.error(a.loc(0),
                    "where(): the condition must be bool, got " + c.describe());
  const Val &x = a[1], &y = a[2];
  if (!x.isNumeric() || !y.isNumeric())
    return em.error(a.callLoc, "where() cannot select " +
                                   (x.isNumeric() ? y : x).describe());
  Type elt = em.promote(x, y, a.callLoc, "where()");
  if (!elt)
    return Val::invalid();
  auto shapeOr = em.resultShape({&c, &x, &y}, a.callLoc);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  Value cv = em.coerce(c, c.getElementType(), shape, a.loc(0));
  Value xv = em.coerce(x, elt, shape, a.loc(1));
  Value yv = em.coerce(y, elt, shape, a.loc(2));
  if (!cv || !xv || !yv)
    return Val::invalid();
  return Val::dynamic(
      arith::SelectOp::create(em.builder, em.loc(a.callLoc), cv, xv, yv));
}

static Val emitCdiv(const Args &a) {
  Emitter &em = a.em;
  const Val &x = a[0], &y = a[1];
  auto isIntLike = [&](const Val &v) {
    return v.kind == Val::Kind::Int ||
           (v.isDynamic() && isa<IntegerType>(v.getElementType()) &&
            !v.getElementType().isInteger(1));
  };
  if (!isIntLike(x) || !isIntLike(y))
    return em.error(a.callLoc, "cdiv() needs integer operands, got " +
                                   (isIntLike(x) ? y : x).describe());
  if (x.kind == Val::Kind::Int && y.kind == Val::Kind::Int) {
    if (y.i == 0)
      return em.error(a.loc(1), "division by zero in a constant expression");
    // Python: -(-x // y). The one quotient that does not fit: INT64_MIN
    // divided by -1 (which would also trap the host's division).
    if (x.i == std::numeric_limits<int64_t>::min() && y.i == -1)
      return em.error(a.callLoc, "integer overflow in a constant expression");
    int64_t q = x.i / y.i;
    if ((x.i % y.i != 0) && ((x.i < 0) == (y.i < 0)))
      ++q;
    return Val::integer(q);
  }
  auto shapeOr = em.resultShape({&x, &y}, a.callLoc);
  if (!shapeOr)
    return Val::invalid();
  SmallVector<int64_t> shape = *shapeOr;
  // In the operands' type (the wider of two ints; i32 for constants).
  Type elt = em.promote(x, y, a.callLoc, "cdiv()");
  if (!elt)
    return Val::invalid();
  Value l = em.coerce(x, elt, shape, a.loc(0));
  Value r = em.coerce(y, elt, shape, a.loc(1));
  if (!l || !r)
    return Val::invalid();
  return Val::dynamic(
      arith::CeilDivSIOp::create(em.builder, em.loc(a.callLoc), l, r));
}

/// num_tiles(array, axis, shape, order=None): the tiles of `shape` along
/// view axis `axis` of the array seen through `order` (load's), as cuTile's
/// ct.num_tiles: cdiv(array.shape[order[axis]], shape[axis]), an i32.
static Val emitNumTiles(const Args &a) {
  Emitter &em = a.em;
  if (!requireGlobal(a, 0))
    return Val::invalid();
  auto type = cast<tile::GlobalTensorType>(a[0].value.getType());
  unsigned rank = type.getRank();
  auto axis = axisArg(a, 1, rank);
  auto shape = constIntsArg(a, 2, "shape");
  auto order = orderArg(a, 3, rank);
  if (!axis || !shape || !order)
    return Val::invalid();
  if (shape->size() != rank) {
    return em.error(a.loc(2), a.fname + "(): the tile shape has " +
                                  std::to_string(shape->size()) +
                                  " dimensions but the array has rank " +
                                  std::to_string(rank));
  }
  int64_t extent = (*shape)[*axis];
  if (extent <= 0 || extent > std::numeric_limits<int32_t>::max())
    return em.error(a.loc(2), a.fname +
                                  "(): tile dimensions must be "
                                  "positive, got " +
                                  shapeString(*shape));
  int64_t dim = order->empty() ? *axis : (*order)[*axis];
  Location location = em.loc(a.callLoc);
  Value size = tile::DimOp::create(em.builder, location, a[0].value,
                                   em.builder.getI32IntegerAttr(dim));
  Value tiles = arith::CeilDivSIOp::create(
      em.builder, location, size,
      arith::ConstantIntOp::create(em.builder, location, extent, 32));
  return Val::dynamic(tiles);
}

/// expand_dims(x, axis): a new axis of size 1 at `axis` (x[:, None]).
static Val emitExpandDims(const Args &a) {
  Emitter &em = a.em;
  if (!requireTile(a, 0, "the value"))
    return Val::invalid();
  ArrayRef<int64_t> shape = a[0].getShape();
  auto axis = axisArg(a, 1, shape.size() + 1);
  if (!axis)
    return Val::invalid();
  SmallVector<int64_t> expanded(shape);
  expanded.insert(expanded.begin() + *axis, 1);
  return Val::dynamic(tile::ExpandDimsOp::create(
      em.builder, em.loc(a.callLoc),
      RankedTensorType::get(expanded, a[0].getElementType()), a[0].value,
      em.builder.getI32IntegerAttr(static_cast<int32_t>(*axis))));
}

/// broadcast_to(x, shape): numpy's broadcast of a tile (or a number) to
/// `shape`, which must be what x and shape broadcast to.
static Val emitBroadcastTo(const Args &a) {
  Emitter &em = a.em;
  const Val &x = a[0];
  if (!x.isNumeric())
    return em.error(a.loc(0), a.fname + "() cannot broadcast " + x.describe());
  auto shape = constIntsArg(a, 1, "shape");
  if (!shape || !em.checkTileShape(*shape, a.loc(1)))
    return Val::invalid();
  auto joint = em.broadcastShapes(x.getShape(), *shape, a.callLoc);
  if (!joint)
    return Val::invalid();
  if (ArrayRef<int64_t>(*joint) != ArrayRef<int64_t>(*shape))
    return em.error(a.callLoc, a.fname + "(): cannot broadcast a tile " +
                                   shapeString(x.getShape()) + " to " +
                                   shapeString(*shape));
  Type elt = x.isDynamic() ? x.getElementType() : em.defaultType(x);
  Value v = em.coerce(x, elt, *shape, a.loc(0));
  return v ? Val::dynamic(v) : Val::invalid();
}

/// fma(a, b, c): a * b + c, promoted and broadcast as `+`; floats by one
/// fused multiply-add (`math.fma`: fma.rn, one rounding), integers by a
/// multiply and an add.
static Val emitFma(const Args &a) {
  Emitter &em = a.em;
  const Val &x = a[0], &y = a[1], &z = a[2];
  for (unsigned i = 0; i < 3; ++i)
    if (!a[i].isNumeric())
      return em.error(a.loc(i),
                      a.fname + "() cannot be applied to " + a[i].describe());
  if (x.isConstNumber() && y.isConstNumber() && z.isConstNumber()) {
    Val product = em.emitBinary(ast::BinaryOp::Mul, x, y, a.callLoc);
    return em.emitBinary(ast::BinaryOp::Add, product, z, a.callLoc);
  }
  Type elt = em.promote(x, y, a.callLoc, a.fname + "()");
  if (!elt)
    return Val::invalid();
  Val xy = Val::dynamic(em.coerce(x, elt, x.getShape(), a.loc(0)));
  elt = em.promote(xy, z, a.callLoc, a.fname + "()");
  if (!elt || !em.requireArithmetic(xy, a.loc(0), a.fname + "()"))
    return Val::invalid();
  auto shapeOr = em.resultShape({&x, &y, &z}, a.callLoc);
  if (!shapeOr)
    return Val::invalid();
  Value l = em.coerce(x, elt, *shapeOr, a.loc(0));
  Value r = em.coerce(y, elt, *shapeOr, a.loc(1));
  Value c = em.coerce(z, elt, *shapeOr, a.loc(2));
  if (!l || !r || !c)
    return Val::invalid();
  Location location = em.loc(a.callLoc);
  if (isa<FloatType>(elt))
    return Val::dynamic(math::FmaOp::create(em.builder, location, l, r, c));
  if (elt.isInteger(1))
    return em.error(a.callLoc, a.fname + "() needs numbers, got bools");
  Value m = arith::MulIOp::create(em.builder, location, l, r);
  return Val::dynamic(arith::AddIOp::create(em.builder, location, m, c));
}

static Val emitAstype(const Args &a) {
  Emitter &em = a.em;
  Type t = dtypeArg(a, 1);
  if (!t)
    return Val::invalid();
  const Val &x = a[0];
  if (!x.isNumeric())
    return em.error(a.loc(0), "astype() cannot convert " + x.describe());
  if (x.isConstNumber()) {
    if (t.isInteger(1))
      return Val::boolean(x.kind == Val::Kind::Float ? x.f != 0
                                                     : *em.getConstInt(x) != 0);
    if (auto intType = dyn_cast<IntegerType>(t)) {
      // Truncated toward zero, as a cast does; a value the type cannot
      // hold (NaN, an infinity, out of range) is an error, not a wrap.
      std::optional<int64_t> v =
          x.kind == Val::Kind::Float ? floatToInt64(x.f) : em.getConstInt(x);
      if (!v ||
          (intType.getWidth() < 64 && !llvm::isIntN(intType.getWidth(), *v)))
        return em.error(a.loc(0), "astype(): " + x.describe() +
                                      " does not fit in " + typeName(t));
      return Val::integer(*v);
    }
    return Val::floating(x.kind == Val::Kind::Float ? x.f : *em.getConstInt(x));
  }
  if (x.kind == Val::Kind::Scalar && tile::isFloat8Type(t))
    return em.error(a.loc(0),
                    "astype(): a run-time scalar cannot be " + typeName(t) +
                        ": 8-bit floats exist in tiles only (make the tile "
                        "first, then convert it)");
  return Val::dynamic(em.castElements(x.value, t, em.loc(a.callLoc)));
}

static Val emitReshape(const Args &a) {
  Emitter &em = a.em;
  if (!requireTile(a, 0, "the reshaped value"))
    return Val::invalid();
  auto shape = constIntsArg(a, 1, "the shape");
  if (!shape || !em.checkTileShape(*shape, a.loc(1)))
    return Val::invalid();
  int64_t n = 1, m = 1;
  for (int64_t d : a[0].getShape())
    n *= d;
  for (int64_t d : *shape)
    m *= d;
  if (n != m)
    return em.error(a.loc(1), "reshape(): cannot reshape a tile " +
                                  shapeString(a[0].getShape()) + " (" +
                                  std::to_string(n) + " elements) into " +
                                  shapeString(*shape) + " (" +
                                  std::to_string(m) + " elements)");
  if (ArrayRef<int64_t>(*shape) == a[0].getShape())
    return a[0];
  return Val::dynamic(tile::ReshapeOp::create(
      em.builder, em.loc(a.callLoc),
      RankedTensorType::get(*shape, a[0].getElementType()), a[0].value));
}

static Val emitPermute(const Args &a,
                       std::optional<SmallVector<int64_t>> perm) {
  Emitter &em = a.em;
  if (!requireTile(a, 0, "the permuted value"))
    return Val::invalid();
  ArrayRef<int64_t> shape = a[0].getShape();
  if (!perm) {
    perm = constIntsArg(a, 1, "the permutation");
    if (!perm)
      return Val::invalid();
  }
  if (perm->size() != shape.size() || !isPermutation(*perm))
    return em.error(a.loc(1), a.fname + "(): " + shapeString(*perm) +
                                  " is not a permutation of the " +
                                  std::to_string(shape.size()) +
                                  " dimensions of the tile");
  SmallVector<int64_t> newShape;
  for (int64_t p : *perm)
    newShape.push_back(shape[p]);
  SmallVector<int32_t> perm32(perm->begin(), perm->end());
  return Val::dynamic(tile::PermuteOp::create(
      em.builder, em.loc(a.callLoc),
      RankedTensorType::get(newShape, a[0].getElementType()), a[0].value,
      em.builder.getDenseI32ArrayAttr(perm32)));
}

static Val emitTranspose(const Args &a) {
  if (!requireTile(a, 0, "the transposed value"))
    return Val::invalid();
  if (a[0].getShape().size() != 2)
    return a.em.error(a.loc(0), "transpose() needs a 2-D tile; use "
                                "permute() for other ranks");
  return emitPermute(a, SmallVector<int64_t>{1, 0});
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// x.item(): the scalar of a one-element tile.
static Val emitItem(const Args &a) {
  const Val &x = a[0];
  if (x.kind == Val::Kind::Scalar || x.isConstNumber())
    return x;
  if (!requireTile(a, 0, "the value"))
    return Val::invalid();
  if (tile::isFloat8Type(x.getElementType()))
    return a.em.error(a.loc(0), "item(): a run-time scalar cannot be " +
                                    typeName(x.getElementType()) +
                                    ": convert the tile first (.astype(f32))");
  Val s = a.em.scalarOf(x, a.callLoc);
  if (s.kind == Val::Kind::Tile)
    return a.em.error(a.loc(0), "item(): the tile must hold one element, "
                                "got a tile " +
                                    shapeString(x.getShape()));
  return s;
}

static Val emitPermuteArgs(const Args &a) {
  return emitPermute(a, std::nullopt);
}

/// Built-ins that are also methods of their first argument:
/// `x.astype(t)` is `astype(x, t)`.
struct TileMethod {
  const char *name;
  SmallVector<Param, 2> params;
  Val (*emit)(const Args &);
};
static const TileMethod kTileMethods[] = {
    {"astype", {{"x", true}, {"dtype", true}}, emitAstype},
    {"reshape", {{"x", true}, {"shape", true}}, emitReshape},
    {"permute", {{"x", true}, {"order", true}}, emitPermuteArgs},
    {"transpose", {{"x", true}}, emitTranspose},
    {"item", {{"x", true}}, emitItem},
};

static const char *const kUnaryMath[] = {
    "exp",   "exp2", "log",  "log2", "sqrt", "rsqrt", "abs",
    "floor", "ceil", "tanh", "erf",  "sin",  "cos",   "sigmoid"};

Val Emitter::emitCall(const ast::Call &call) {
  if (auto *attr = dyn_cast<ast::Attribute>(call.callee.get()))
    return emitMethodCall(call, *attr);
  auto *name = dyn_cast<ast::Name>(call.callee.get());
  if (!name)
    return error(call.callee->getLoc(), "this expression cannot be called");
  llvm::StringRef fn = name->id;
  if (env.count(fn) || globals.count(fn))
    return error(call.callee->getLoc(),
                 "'" + fn.str() + "' is a value, not a function");
  if (auto it = functions.find(fn); it != functions.end())
    return emitFunctionCall(call, *it->second);

  auto bind = [&](llvm::ArrayRef<Param> params) {
    return bindArgs(*this, call, fn, params);
  };
  if (fn == "bid" || fn == "num_blocks") {
    auto a = bind({{"axis", true}});
    if (!a)
      return Val::invalid();
    return fn == "bid" ? emitGridQuery<tile::BlockIdOp>(*a)
                       : emitGridQuery<tile::NumBlocksOp>(*a);
  }
  // Clusters (a kernel compiled with cluster=C, sm_90): this block's index
  // in its cluster, and a barrier of all the cluster's threads that also
  // orders their global memory accesses (release before, acquire after).
  if (fn == "cluster_rank") {
    if (!bind({}))
      return Val::invalid();
    return Val::dynamic(
        tile::ClusterRankOp::create(builder, this->loc(call.getLoc())));
  }
  if (fn == "cluster_barrier") {
    if (!bind({}))
      return Val::invalid();
    tile::BarrierOp::create(builder, this->loc(call.getLoc()), IntegerAttr(),
                            IntegerAttr(), /*cluster=*/true);
    return Val::none();
  }
  if (fn == "arange") {
    auto a = bind({{"size", true}, {"dtype", false}});
    return a ? emitArange(*a) : Val::invalid();
  }
  if (fn == "full") {
    auto a = bind({{"shape", true}, {"value", true}, {"dtype", false}});
    if (!a)
      return Val::invalid();
    Type dtype;
    if (a->has(2) && !(dtype = dtypeArg(*a, 2)))
      return Val::invalid();
    return emitFull(*a, (*a)[1], a->loc(1), dtype);
  }
  if (fn == "zeros" || fn == "ones") {
    auto a = bind({{"shape", true}, {"dtype", false}});
    if (!a)
      return Val::invalid();
    Type dtype = builder.getF32Type();
    if (a->has(1) && !(dtype = dtypeArg(*a, 1)))
      return Val::invalid();
    return emitFull(*a, Val::integer(fn == "ones" ? 1 : 0), call.getLoc(),
                    dtype);
  }
  if (fn == "load") {
    auto a = bind({{"tensor", true},
                   {"index", true},
                   {"shape", true},
                   {"order", false},
                   {"latency", false},
                   {"padding", false}});
    return a ? emitLoad(*a) : Val::invalid();
  }
  if (fn == "store") {
    auto a = bind(
        {{"tensor", true}, {"index", true}, {"tile", true}, {"order", false}});
    return a ? emitStore(*a) : Val::invalid();
  }
  if (fn == "gather") {
    auto a = bind({{"tensor", true}, {"indices", true}, {"padding", false}});
    return a ? emitGather(*a) : Val::invalid();
  }
  if (fn == "scatter") {
    auto a = bind({{"tensor", true}, {"indices", true}, {"tile", true}});
    return a ? emitScatter(*a) : Val::invalid();
  }
  if (fn == "scatter_add" || fn == "scatter_max" || fn == "scatter_min") {
    auto a = bind({{"tensor", true}, {"indices", true}, {"tile", true}});
    if (!a)
      return Val::invalid();
    return emitScatter(*a, fn == "scatter_add"   ? tile::ReduceKind::Sum
                           : fn == "scatter_max" ? tile::ReduceKind::Max
                                                 : tile::ReduceKind::Min);
  }
  if (fn == "atomic_add" || fn == "atomic_max" || fn == "atomic_min") {
    auto a = bind(
        {{"tensor", true}, {"index", true}, {"tile", true}, {"order", false}});
    if (!a)
      return Val::invalid();
    return emitAtomic(*a, fn == "atomic_add"   ? tile::ReduceKind::Sum
                          : fn == "atomic_max" ? tile::ReduceKind::Max
                                               : tile::ReduceKind::Min);
  }
  if (fn == "atomic_xchg") {
    auto a = bind({{"tensor", true}, {"index", true}, {"value", true}});
    return a ? emitBlockExchange(*a, /*cas=*/false) : Val::invalid();
  }
  if (fn == "atomic_cas") {
    auto a = bind({{"tensor", true},
                   {"index", true},
                   {"compare", true},
                   {"value", true}});
    return a ? emitBlockExchange(*a, /*cas=*/true) : Val::invalid();
  }
  if (fn == "mma") {
    auto a =
        bind({{"a", true}, {"b", true}, {"acc", true}, {"allow_tf32", false}});
    return a ? emitMma(*a) : Val::invalid();
  }
  if (fn == "max" || fn == "min")
    return emitMinMaxCall(*this, call, fn == "max");
  if (fn == "sum" || fn == "prod") {
    auto a = bind({{"x", true}, {"axis", false}, {"keepdims", false}});
    return a ? emitReduce(*a, fn == "sum" ? tile::ReduceKind::Sum
                                          : tile::ReduceKind::Prod)
             : Val::invalid();
  }
  if (fn == "cumsum" || fn == "cumprod" || fn == "cummax" || fn == "cummin") {
    auto a = bind({{"x", true}, {"axis", true}});
    return a ? emitScan(*a, fn == "cumsum"    ? tile::ReduceKind::Sum
                            : fn == "cumprod" ? tile::ReduceKind::Prod
                            : fn == "cummax"  ? tile::ReduceKind::Max
                                              : tile::ReduceKind::Min)
             : Val::invalid();
  }
  if (fn == "cat") {
    auto a = bind({{"tiles", true}, {"axis", false}});
    return a ? emitCat(*a) : Val::invalid();
  }
  if (fn == "cluster_gather") {
    auto a = bind({{"x", true}, {"axis", false}});
    return a ? emitClusterGather(*a) : Val::invalid();
  }
  if (fn == "argmax" || fn == "argmin") {
    auto a = bind({{"x", true}, {"axis", false}, {"keepdims", false}});
    return a ? emitArgReduce(*a, fn == "argmax") : Val::invalid();
  }
  if (llvm::is_contained(kUnaryMath, fn)) {
    auto a = fn == "exp2" ? bind({{"x", true}, {"flush_to_zero", false}})
                          : bind({{"x", true}});
    return a ? emitUnaryMath(*a, fn) : Val::invalid();
  }
  if (fn == "truediv") {
    auto a = bind({{"x", true},
                   {"y", true},
                   {"rounding_mode", false},
                   {"flush_to_zero", false}});
    return a ? emitTrueDiv(*a) : Val::invalid();
  }
  if (fn == "where") {
    auto a = bind({{"condition", true}, {"x", true}, {"y", true}});
    return a ? emitWhere(*a) : Val::invalid();
  }
  if (fn == "cdiv") {
    auto a = bind({{"x", true}, {"y", true}});
    return a ? emitCdiv(*a) : Val::invalid();
  }
  if (fn == "num_tiles") {
    auto a = bind(
        {{"array", true}, {"axis", true}, {"shape", true}, {"order", false}});
    return a ? emitNumTiles(*a) : Val::invalid();
  }
  if (fn == "expand_dims") {
    auto a = bind({{"x", true}, {"axis", true}});
    return a ? emitExpandDims(*a) : Val::invalid();
  }
  if (fn == "broadcast_to") {
    auto a = bind({{"x", true}, {"shape", true}});
    return a ? emitBroadcastTo(*a) : Val::invalid();
  }
  if (fn == "fma") {
    auto a = bind({{"a", true}, {"b", true}, {"c", true}});
    return a ? emitFma(*a) : Val::invalid();
  }
  for (const TileMethod &m : kTileMethods)
    if (fn == m.name) {
      auto a = bind(m.params);
      return a ? m.emit(*a) : Val::invalid();
    }
  if (fn == "range" || fn == "static_range")
    return error(call.getLoc(), fn.str() +
                                    "() can only be the iterable of a 'for' "
                                    "loop");
  return error(call.callee->getLoc(),
               "unknown function '" + fn.str() + "'" +
                   didYouMean(fn, builtinFunctionNames()));
}

llvm::ArrayRef<llvm::StringRef> tilec::builtinFunctionNames() {
  // Every name emitCall dispatches on (test/Frontend/sema/suggestions.tile
  // calls each of them: none is an unknown function).
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> list = {
        "bid",           "num_blocks", "arange",       "full",
        "zeros",         "ones",       "load",         "store",
        "mma",           "max",        "min",          "sum",
        "atomic_add",    "atomic_max", "atomic_min",   "where",
        "truediv",       "cdiv",       "range",        "static_range",
        "argmax",        "argmin",     "cat",          "cumsum",
        "gather",        "scatter",    "cluster_rank", "cluster_barrier",
        "cluster_gather"};
    // The combining scatters, and cuTile's shape helpers and fma.
    for (const char *f :
         {"scatter_add", "scatter_max", "scatter_min", "num_tiles",
          "expand_dims", "broadcast_to", "fma", "prod", "cumprod", "cummax",
          "cummin", "atomic_xchg", "atomic_cas"})
      list.push_back(f);
    for (const char *f : kUnaryMath)
      list.push_back(f);
    for (const TileMethod &m : kTileMethods)
      list.push_back(m.name);
    return list;
  }();
  return names;
}

std::string tilec::didYouMean(llvm::StringRef name,
                              llvm::ArrayRef<llvm::StringRef> candidates) {
  // The closest by edit distance (one edit for names of up to three
  // letters, two for longer ones: "tiel" -> "tile"), or else one the name
  // starts with or that starts with it ("maximum" -> "max").
  llvm::StringRef best;
  unsigned bestDistance = ~0u;
  unsigned allowed = name.size() <= 3 ? 1 : 2;
  for (llvm::StringRef c : candidates) {
    unsigned d = name.edit_distance(c, /*AllowReplacements=*/true, allowed);
    if (d <= allowed && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (best.empty())
    for (llvm::StringRef c : candidates)
      if (c.size() >= 3 && (name.starts_with(c) || c.starts_with(name)) &&
          c != name) {
        best = c;
        break;
      }
  return best.empty() ? "" : "; did you mean '" + best.str() + "'?";
}

Val Emitter::emitMethodCall(const ast::Call &call,
                            const ast::Attribute &callee) {
  Val self = emitExpr(*callee.base);
  if (self.isInvalid())
    return self;
  llvm::StringRef m = callee.attr;
  SMLoc selfLoc = callee.base->getLoc();
  if (m == "reshape" && call.args.size() > 1 && call.keywords.empty()) {
    // x.reshape(a, b) as well as x.reshape((a, b))
    std::vector<Val> dims;
    for (const ast::ExprPtr &e : call.args)
      dims.push_back(emitExpr(*e));
    Args a(*this, call.getLoc(), m);
    a.vals = {self, Val::tuple(std::move(dims))};
    a.locs = {selfLoc, call.args[0]->getLoc()};
    if (a.anyInvalid())
      return Val::invalid();
    return emitReshape(a);
  }
  for (const TileMethod &method : kTileMethods)
    if (m == method.name) {
      auto a = bindArgs(*this, call, m, method.params, &self, selfLoc);
      return a ? method.emit(*a) : Val::invalid();
    }
  return error(callee.attrRange.Start,
               self.describe() + " has no method '" + m.str() + "'");
}
