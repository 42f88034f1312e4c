//===- MLIRGen.cpp - Kernels, parameters, statements, control flow --------===//

#include "Emitter.h"

#include "Tile/IR/KernelHints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace tilec;
using namespace mlir;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

void tilec::collectAssignedNames(ArrayRef<ast::StmtPtr> block,
                                 SmallVectorImpl<std::string> &names,
                                 llvm::StringMap<SMLoc> &firstLoc) {
  auto add = [&](const ast::Name &n) {
    if (firstLoc.try_emplace(n.id, n.getLoc()).second)
      names.push_back(n.id);
  };
  for (const ast::StmtPtr &s : block) {
    if (auto *a = dyn_cast<ast::Assign>(s.get())) {
      for (const auto &t : a->targets)
        add(*t);
    } else if (auto *a = dyn_cast<ast::AugAssign>(s.get())) {
      add(*a->target);
    } else if (auto *i = dyn_cast<ast::If>(s.get())) {
      collectAssignedNames(i->thenBody, names, firstLoc);
      collectAssignedNames(i->elseBody, names, firstLoc);
    } else if (auto *f = dyn_cast<ast::For>(s.get())) {
      add(*f->var);
      collectAssignedNames(f->body, names, firstLoc);
    } else if (auto *w = dyn_cast<ast::While>(s.get())) {
      collectAssignedNames(w->body, names, firstLoc);
    }
  }
}

/// Whether `block` has a statement of `kind` (break or continue) for the
/// loop whose body it is: in its branches, not in loops nested in it.
static bool hasLoopExit(ArrayRef<ast::StmtPtr> block, ast::Stmt::Kind kind) {
  for (const ast::StmtPtr &s : block) {
    if (s->getKind() == kind)
      return true;
    if (auto *i = dyn_cast<ast::If>(s.get()))
      if (hasLoopExit(i->thenBody, kind) || hasLoopExit(i->elseBody, kind))
        return true;
  }
  return false;
}

Emitter::Emitter(MLIRContext &context, DiagnosticEngine &diag,
                 const MLIRGenOptions &options)
    : builder(&context), context(context), diag(diag), options(options) {}

Location Emitter::loc(SMLoc l) {
  llvm::SourceMgr &sm = diag.getSourceMgr();
  unsigned id = l.isValid() ? sm.FindBufferContainingLoc(l) : 0;
  if (!id)
    return builder.getUnknownLoc();
  auto [line, col] = sm.getLineAndColumn(l, id);
  Location at = FileLineColLoc::get(
      builder.getStringAttr(sm.getMemoryBuffer(id)->getBufferIdentifier()),
      line, col);
  // In a function's body: this line, called from the caller's.
  return calls.empty() ? at : CallSiteLoc::get(at, calls.back().callerLoc);
}

bool tilec::sameValue(const Val &a, const Val &b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Val::Kind::Int:
    return a.i == b.i;
  case Val::Kind::Bool:
    return a.b == b.b;
  case Val::Kind::Float:
    return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
  case Val::Kind::DType:
    return a.type == b.type;
  case Val::Kind::Rounding:
    return a.rounding == b.rounding;
  case Val::Kind::None:
    return true;
  case Val::Kind::Tuple:
    if (a.elts.size() != b.elts.size())
      return false;
    for (size_t i = 0; i < a.elts.size(); ++i)
      if (!sameValue(a.elts[i], b.elts[i]))
        return false;
    return true;
  case Val::Kind::Scalar:
  case Val::Kind::Tile:
  case Val::Kind::Global:
  case Val::Kind::ShapeOf:
    return a.value == b.value;
  case Val::Kind::Invalid:
    return false;
  }
  return false;
}

std::optional<Value> Emitter::toCarried(const Val &v, SMLoc l) {
  if (v.isDynamic())
    return v.value;
  if (v.isConstNumber()) {
    Value s = materializeScalar(v, defaultType(v), l);
    if (s)
      return s;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

namespace {
enum class ConstKind { Int, Bool, Float, DType };
}

static std::optional<ConstKind> constKindOf(const ast::Expr &type) {
  auto *n = dyn_cast<ast::Name>(&type);
  if (!n)
    return std::nullopt;
  return llvm::StringSwitch<std::optional<ConstKind>>(n->id)
      .Case("int", ConstKind::Int)
      .Case("bool", ConstKind::Bool)
      .Case("float", ConstKind::Float)
      .Case("dtype", ConstKind::DType)
      .Default(std::nullopt);
}

/// Parses a `-DNAME=VALUE` override for a constant of the given kind.
static std::optional<Val> parseDefine(Emitter &em, llvm::StringRef text,
                                      ConstKind kind) {
  text = text.trim();
  switch (kind) {
  case ConstKind::Bool:
    if (text == "true" || text == "True" || text == "1")
      return Val::boolean(true);
    if (text == "false" || text == "False" || text == "0")
      return Val::boolean(false);
    return std::nullopt;
  case ConstKind::Int: {
    int64_t v;
    if (text.getAsInteger(0, v))
      return std::nullopt;
    return Val::integer(v);
  }
  case ConstKind::Float: {
    std::string s = text.str();
    if (s.empty())
      return std::nullopt;
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    if (errno != 0 || end != s.c_str() + s.size())
      return std::nullopt;
    return Val::floating(v);
  }
  case ConstKind::DType: {
    Builder &b = em.builder;
    Type t =
        llvm::StringSwitch<Type>(text)
            .Cases({"f16", "float16"}, b.getF16Type())
            .Cases({"bf16", "bfloat16"}, b.getBF16Type())
            .Cases({"f8e4m3", "float8_e4m3fn"}, b.getType<Float8E4M3FNType>())
            .Cases({"f8e5m2", "float8_e5m2"}, b.getType<Float8E5M2Type>())
            .Cases({"f32", "float32"}, b.getF32Type())
            .Cases({"i32", "int32"}, b.getI32Type())
            .Cases({"i64", "int64"}, b.getI64Type())
            .Cases({"i8", "int8"}, b.getI8Type())
            .Case("bool", b.getI1Type())
            .Default(Type());
    if (!t)
      return std::nullopt;
    return Val::dtype(t);
  }
  }
  return std::nullopt;
}

static const char *kindName(ConstKind k) {
  switch (k) {
  case ConstKind::Int:
    return "int";
  case ConstKind::Bool:
    return "bool";
  case ConstKind::Float:
    return "float";
  case ConstKind::DType:
    return "dtype";
  }
  return "?";
}

std::optional<Val> Emitter::evalConstParam(const ast::Param &param,
                                           const ast::Kernel &kernel) {
  auto kind = constKindOf(*param.type);
  if (!kind) {
    diag.error(param.type->getLoc(),
               "a const parameter has type int, bool, float or dtype");
    return std::nullopt;
  }
  // The last -D for a name wins, as with a C compiler.
  const std::string *override = nullptr;
  for (const auto &[name, value] : options.defines)
    if (name == param.name)
      override = &value;
  if (override) {
    auto v = parseDefine(*this, *override, *kind);
    if (!v) {
      diag.error(param.nameRange.Start,
                 "-D" + param.name + "=" + *override + " is not a valid " +
                     kindName(*kind) + " value for this const parameter");
      return std::nullopt;
    }
    return v;
  }
  if (!param.defaultValue) {
    diag.error(param.nameRange.Start, "const parameter '" + param.name +
                                          "' of kernel '" + kernel.name +
                                          "' has no default; pass -D" +
                                          param.name + "=VALUE");
    return std::nullopt;
  }
  Val v = emitExpr(*param.defaultValue);
  if (v.isInvalid())
    return std::nullopt;
  bool ok = (*kind == ConstKind::Int && v.kind == Val::Kind::Int) ||
            (*kind == ConstKind::Bool && v.kind == Val::Kind::Bool) ||
            (*kind == ConstKind::DType && v.kind == Val::Kind::DType) ||
            (*kind == ConstKind::Float &&
             (v.kind == Val::Kind::Float || v.kind == Val::Kind::Int));
  if (!ok) {
    diag.error(param.defaultValue->getLoc(),
               "the default of const parameter '" + param.name + "' must be " +
                   (*kind == ConstKind::Int ? "an " : "a ") + kindName(*kind) +
                   " constant, got " + v.describe());
    return std::nullopt;
  }
  if (*kind == ConstKind::Float && v.kind == Val::Kind::Int)
    return Val::floating(static_cast<double>(v.i));
  return v;
}

Type Emitter::resolveParamType(const ast::Param &param) {
  const ast::Expr &t = *param.type;
  if (auto *n = dyn_cast<ast::Name>(&t)) {
    Type type = llvm::StringSwitch<Type>(n->id)
                    .Cases({"int", "i32", "int32"}, builder.getI32Type())
                    .Cases({"i64", "int64"}, builder.getI64Type())
                    .Cases({"float", "f32", "float32"}, builder.getF32Type())
                    .Case("bool", builder.getI1Type())
                    .Default(Type());
    if (type)
      return type;
    if (n->id == "Tensor")
      diag.error(t.getLoc(),
                 "'Tensor' needs an element type and a rank: Tensor[f16, 4]");
    else if (n->id == "dtype")
      diag.error(t.getLoc(), "a dtype parameter must be const");
    else
      diag.error(t.getLoc(), "unknown parameter type '" + n->id +
                                 "'; expected int, float, bool or "
                                 "Tensor[dtype, rank]");
    return {};
  }
  auto *s = dyn_cast<ast::Subscript>(&t);
  auto *base = s ? dyn_cast<ast::Name>(s->base.get()) : nullptr;
  if (!base || base->id != "Tensor") {
    diag.error(t.getLoc(), "unknown parameter type; expected int, float, bool "
                           "or Tensor[dtype, rank]");
    return {};
  }
  if (s->indices.size() != 2) {
    diag.error(t.getLoc(), "Tensor[...] takes an element type and a rank");
    return {};
  }
  Val dtype = emitExpr(*s->indices[0]);
  Val rank = emitExpr(*s->indices[1]);
  if (dtype.isInvalid() || rank.isInvalid())
    return {};
  if (dtype.kind != Val::Kind::DType) {
    diag.error(s->indices[0]->getLoc(),
               "the element type of a Tensor must be a dtype, got " +
                   dtype.describe());
    return {};
  }
  if (rank.kind != Val::Kind::Int || rank.i < 1 || rank.i > 8) {
    diag.error(s->indices[1]->getLoc(),
               "the rank of a Tensor must be an integer constant from 1 to 8");
    return {};
  }
  return tile::GlobalTensorType::get(&context, dtype.type,
                                     static_cast<unsigned>(rank.i));
}

/// The constant as an attribute for the kernel's `tile.constants`.
static Attribute constantAttr(Builder &b, const Val &v) {
  switch (v.kind) {
  case Val::Kind::Int:
    return b.getI64IntegerAttr(v.i);
  case Val::Kind::Bool:
    return b.getBoolAttr(v.b);
  case Val::Kind::Float:
    return b.getF64FloatAttr(v.f);
  case Val::Kind::DType:
    return TypeAttr::get(v.type);
  default:
    return {};
  }
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Each hint is a constant expression over the module's constants and the
/// kernel's const parameters (`num_warps=TILE_M // 16`), checked against
/// the table of Tile/IR/KernelHints.h.
DictionaryAttr Emitter::emitHints(const ast::Kernel &kernel) {
  SmallVector<NamedAttribute> hints;
  bool ok = true;
  runtimeOnly.clear();
  for (const ast::Param &p : kernel.params)
    if (!p.isConst)
      runtimeOnly.insert(p.name);
  llvm::scope_exit clearRuntimeOnly([&] { runtimeOnly.clear(); });
  for (const ast::Keyword &kw : kernel.hints.keywords) {
    const tile::KernelHintSpec *spec = tile::lookupKernelHint(kw.name);
    if (!spec) {
      diag.error(kw.nameRange.Start, tile::checkKernelHint(kw.name, {}));
      ok = false;
      continue;
    }
    Val v = emitExpr(*kw.value);
    SMLoc l = kw.value->getLoc();
    if (v.isInvalid()) {
      ok = false;
      continue;
    }
    Attribute value;
    if (spec->isBool && v.kind == Val::Kind::Bool)
      value = builder.getBoolAttr(v.b);
    else if (!spec->isBool && v.kind == Val::Kind::Int)
      value = builder.getI64IntegerAttr(v.i);
    if (!value) {
      diag.error(l, "@hints: " + kw.name + " must be " +
                        (spec->isBool ? "a bool" : "an int") +
                        " constant, got " + v.describe());
      ok = false;
      continue;
    }
    std::string why = tile::checkKernelHint(kw.name, value);
    if (!why.empty()) {
      diag.error(l, "@hints: " + why);
      ok = false;
      continue;
    }
    hints.push_back(builder.getNamedAttr(kw.name, value));
  }
  if (!ok)
    return {};
  return builder.getDictionaryAttr(hints);
}

/// The kernel's @tune as its `tile.tune` dictionary: each name a const
/// parameter, each value a tuple of constants (ints, bools, dtypes); null on
/// an error (reported).
static DictionaryAttr emitTune(Emitter &em, const ast::Kernel &kernel) {
  SmallVector<NamedAttribute> entries;
  bool ok = true;
  for (const ast::Keyword &kw : kernel.tune.keywords) {
    auto param = llvm::find_if(
        kernel.params, [&](const ast::Param &p) { return p.name == kw.name; });
    if (param == kernel.params.end() || !param->isConst) {
      em.diag.error(kw.nameRange.Start,
                    "@tune: '" + kw.name +
                        "' is not a const parameter of kernel '" + kernel.name +
                        "'");
      ok = false;
      continue;
    }
    Val v = em.emitExpr(*kw.value);
    if (v.isInvalid()) {
      ok = false;
      continue;
    }
    std::vector<Val> items =
        v.kind == Val::Kind::Tuple ? v.elts : std::vector<Val>{v};
    SmallVector<Attribute> values;
    for (const Val &item : items) {
      if (item.kind == Val::Kind::Int)
        values.push_back(em.builder.getI64IntegerAttr(item.i));
      else if (item.kind == Val::Kind::Bool)
        values.push_back(em.builder.getBoolAttr(item.b));
      else if (item.kind == Val::Kind::DType)
        values.push_back(TypeAttr::get(item.type));
      else {
        em.diag.error(kw.value->getLoc(),
                      "@tune: " + kw.name +
                          " must be a tuple of int, bool or dtype "
                          "constants, got " +
                          item.describe());
        ok = false;
        break;
      }
    }
    if (values.empty() && ok) {
      em.diag.error(kw.value->getLoc(),
                    "@tune: " + kw.name + " lists no values");
      ok = false;
    }
    entries.push_back(
        em.builder.getNamedAttr(kw.name, em.builder.getArrayAttr(values)));
  }
  if (!ok)
    return {};
  return em.builder.getDictionaryAttr(entries);
}

void Emitter::emitKernel(const ast::Kernel &kernel, ModuleOp module) {
  env.clear();
  outOfScope.clear();
  llvm::StringSet<> seen;
  for (const ast::Param &p : kernel.params)
    if (!seen.insert(p.name).second)
      diag.error(p.nameRange.Start, "duplicate parameter '" + p.name + "'");

  // Constants first: run-time parameter types may name them
  // (`Q: Tensor[DTYPE, 4]`).
  SmallVector<NamedAttribute> constants;
  bool ok = true;
  for (const ast::Param &p : kernel.params) {
    if (!p.isConst)
      continue;
    auto v = evalConstParam(p, kernel);
    if (!v) {
      ok = false;
      env[p.name] = Val::invalid();
      continue;
    }
    env[p.name] = *v;
    constants.push_back(
        builder.getNamedAttr(p.name, constantAttr(builder, *v)));
  }

  // A bad hint is reported; the body is still checked.
  DictionaryAttr hints;
  if (kernel.hints.range.isValid())
    hints = emitHints(kernel);

  SmallVector<Type> argTypes;
  SmallVector<const ast::Param *> runtimeParams;
  for (const ast::Param &p : kernel.params) {
    if (p.isConst)
      continue;
    if (p.defaultValue)
      diag.error(p.defaultValue->getLoc(),
                 "only const parameters can have a default value");
    Type t = resolveParamType(p);
    if (!t) {
      ok = false;
      t = builder.getI32Type(); // keep going to find more errors
    }
    argTypes.push_back(t);
    runtimeParams.push_back(&p);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func =
      func::FuncOp::create(builder, loc(kernel.nameRange.Start), kernel.name,
                           builder.getFunctionType(argTypes, {}));
  func->setAttr(tile::TileDialect::getKernelAttrName(), builder.getUnitAttr());
  // Launched in clusters: the compile option, else the kernel's hint.
  int64_t cluster = options.cluster.value_or(1);
  if (!options.cluster && hints)
    if (auto hinted = hints.getAs<IntegerAttr>("cluster"))
      cluster = hinted.getInt();
  if (cluster > 1)
    func->setAttr(tile::TileDialect::getClusterAttrName(),
                  builder.getI32IntegerAttr(int32_t(cluster)));
  func->setAttr(tile::TileDialect::getConstantsAttrName(),
                builder.getDictionaryAttr(constants));
  if (hints && !hints.empty())
    func->setAttr(tile::TileDialect::getHintsAttrName(), hints);
  if (kernel.tune.range.isValid()) {
    if (DictionaryAttr tune = emitTune(*this, kernel); tune && !tune.empty())
      func->setAttr(tile::TileDialect::getTuneAttrName(), tune);
  }
  Block *entry = func.addEntryBlock();
  for (auto [i, p] : llvm::enumerate(runtimeParams)) {
    entry->getArgument(i).setLoc(loc(p->nameRange.Start));
    env[p->name] = Val::dynamic(entry->getArgument(i));
  }
  if (!ok) {
    // Body errors would only cascade from the bad parameters.
    func.erase();
    return;
  }
  builder.setInsertionPointToStart(entry);
  inKernelBody = true;
  emitBlock(kernel.body);
  inKernelBody = false;
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc(kernel.range.End));
}

void Emitter::emitBlock(ArrayRef<ast::StmtPtr> block) {
  for (auto [i, s] : llvm::enumerate(block)) {
    if (diag.tooManyErrors())
      return;
    emitStmt(*s);
    if (loops.empty() || i + 1 == block.size())
      continue;
    // After a break or continue that may have run, the rest of the body
    // runs only where none did.
    Location location = loc(block[i + 1]->getLoc());
    Value any;
    switch (loopExitState(location, any)) {
    case LoopExit::None:
      continue;
    case LoopExit::Always:
      return; // the rest never runs
    case LoopExit::Maybe:
      emitUnlessExited(location, any, block.drop_front(i + 1));
      return;
    }
  }
}

void Emitter::emitUnlessExited(Location location, Value exited,
                               ArrayRef<ast::StmtPtr> stmts) {
  Value none = arith::XOrIOp::create(
      builder, location, exited,
      arith::ConstantIntOp::create(builder, location, 1, 1));
  emitDynamicIf(location, none, stmts, {}, /*exitsClearInThen=*/true);
}

Emitter::LoopExits Emitter::loopExitsOf(ArrayRef<ast::StmtPtr> body,
                                        bool withBreak) {
  LoopExits exits;
  if (withBreak && hasLoopExit(body, ast::Stmt::Kind::Break)) {
    exits.breakFlag = "break:" + std::to_string(numLoops++);
    env[exits.breakFlag] = Val::boolean(false);
  }
  if (hasLoopExit(body, ast::Stmt::Kind::Continue))
    exits.continueFlag = "continue:" + std::to_string(numLoops++);
  return exits;
}

Emitter::LoopExit Emitter::loopExitState(Location location, Value &any) {
  any = {};
  bool always = false;
  for (const std::string *flag :
       {&loops.back().breakFlag, &loops.back().continueFlag}) {
    if (flag->empty())
      continue;
    auto it = env.find(*flag);
    if (it == env.end() || it->second.isInvalid())
      continue;
    const Val &v = it->second;
    if (v.kind == Val::Kind::Bool) {
      always |= v.b;
      continue;
    }
    any = any ? arith::OrIOp::create(builder, location, any, v.value) : v.value;
  }
  if (always)
    return LoopExit::Always;
  return any ? LoopExit::Maybe : LoopExit::None;
}

void Emitter::emitAssign(const ast::Assign &assign) {
  Val v = emitExpr(*assign.value);
  if (assign.targets.size() == 1) {
    env[assign.targets[0]->id] = std::move(v);
    return;
  }
  // a, b = A.shape: a run-time i32 per dimension (tile.dim).
  if (v.kind == Val::Kind::ShapeOf) {
    auto type = cast<tile::GlobalTensorType>(v.value.getType());
    if (type.getRank() != assign.targets.size()) {
      diag.error(assign.value->getLoc(),
                 "cannot unpack the shape of a rank-" +
                     std::to_string(type.getRank()) + " tensor into " +
                     std::to_string(assign.targets.size()) + " names");
      for (const auto &t : assign.targets)
        env[t->id] = Val::invalid();
      return;
    }
    std::vector<Val> dims;
    for (unsigned d = 0; d < type.getRank(); ++d)
      dims.push_back(Val::dynamic(
          tile::DimOp::create(builder, loc(assign.value->getLoc()), v.value,
                              builder.getI32IntegerAttr(d))));
    v = Val::tuple(std::move(dims));
  }
  // a, b = tuple
  if (!v.isInvalid() &&
      (v.kind != Val::Kind::Tuple || v.elts.size() != assign.targets.size())) {
    diag.error(assign.value->getLoc(),
               "cannot unpack " + v.describe() + " into " +
                   std::to_string(assign.targets.size()) + " names");
    v = Val::invalid();
  }
  for (auto [i, t] : llvm::enumerate(assign.targets))
    env[t->id] = v.isInvalid() ? Val::invalid() : v.elts[i];
}

void Emitter::emitStmt(const ast::Stmt &stmt) {
  switch (stmt.getKind()) {
  case ast::Stmt::Kind::Assign:
    emitAssign(cast<ast::Assign>(stmt));
    return;
  case ast::Stmt::Kind::AugAssign: {
    const auto &a = cast<ast::AugAssign>(stmt);
    Val lhs = emitExpr(*a.target);
    Val rhs = emitExpr(*a.value);
    env[a.target->id] = emitBinary(a.op, lhs, rhs, a.getLoc());
    return;
  }
  case ast::Stmt::Kind::ExprStmt:
    (void)emitExpr(*cast<ast::ExprStmt>(stmt).expr);
    return;
  case ast::Stmt::Kind::If:
    emitIf(cast<ast::If>(stmt));
    return;
  case ast::Stmt::Kind::For:
    emitFor(cast<ast::For>(stmt));
    return;
  case ast::Stmt::Kind::While:
    emitWhile(cast<ast::While>(stmt));
    return;
  case ast::Stmt::Kind::Break:
  case ast::Stmt::Kind::Continue: {
    // (The parser took them only in a loop's body, and a function's body
    // is emitted with no loop around it.)
    if (loops.empty())
      return;
    bool isBreak = stmt.getKind() == ast::Stmt::Kind::Break;
    const std::string &flag =
        isBreak ? loops.back().breakFlag : loops.back().continueFlag;
    if (!flag.empty())
      env[flag] = Val::boolean(true);
    return;
  }
  case ast::Stmt::Kind::Pass:
    return;
  case ast::Stmt::Kind::Assert:
    emitAssert(cast<ast::Assert>(stmt));
    return;
  case ast::Stmt::Kind::Return:
    if (!calls.empty())
      diag.error(stmt.getLoc(),
                 "'return' must be the last statement of function '" +
                     calls.back().function->name +
                     "', outside any if or for: assign the result to a "
                     "name and return it at the end");
    else if (cast<ast::Return>(stmt).value)
      diag.error(stmt.getLoc(), "a kernel cannot return a value; write its "
                                "outputs with store()");
    else
      diag.error(stmt.getLoc(), "'return' is not supported in a kernel body; "
                                "the kernel ends after its last statement");
    return;
  }
}

void Emitter::emitAssert(const ast::Assert &stmt) {
  Val cond = emitExpr(*stmt.cond);
  if (cond.isInvalid())
    return;
  if (!cond.isConstNumber()) {
    diag.error(stmt.cond->getLoc(),
               "assert checks a condition known when the kernel is compiled "
               "(constants, const parameters, tile shapes), got " +
                   cond.describe() +
                   "; a run-time condition cannot be checked this way");
    return;
  }
  bool holds =
      cond.kind == Val::Kind::Float ? cond.f != 0 : *getConstInt(cond) != 0;
  if (!holds)
    diag.error(stmt.getLoc(), "assertion failed: the condition is false for "
                              "the kernel's constants");
}

//===----------------------------------------------------------------------===//
// if
//===----------------------------------------------------------------------===//

void Emitter::emitIf(const ast::If &stmt) {
  Val cond = emitExpr(*stmt.cond);
  if (cond.isInvalid()) {
    // Still look for errors in both branches, on copies of the scope.
    Env saved = env;
    emitBlock(stmt.thenBody);
    env = saved;
    emitBlock(stmt.elseBody);
    env = saved;
    return;
  }
  if (cond.isConstNumber()) {
    // Compile-time condition: only the taken branch is emitted.
    bool taken =
        cond.kind == Val::Kind::Float ? cond.f != 0 : *getConstInt(cond) != 0;
    emitBlock(taken ? stmt.thenBody : stmt.elseBody);
    return;
  }
  if (cond.kind == Val::Kind::Tile) {
    diag.error(stmt.cond->getLoc(),
               "the condition of 'if' must be a scalar, got " +
                   cond.describe() + "; use where() for elementwise choices");
    return;
  }
  if (cond.kind != Val::Kind::Scalar || !cond.getElementType().isInteger(1)) {
    diag.error(stmt.cond->getLoc(), "the condition of 'if' must be a bool, "
                                    "got " +
                                        cond.describe());
    return;
  }
  emitDynamicIf(loc(stmt.getLoc()), cond.value, stmt.thenBody, stmt.elseBody);
}

void Emitter::emitDynamicIf(Location location, Value cond,
                            ArrayRef<ast::StmtPtr> thenBody,
                            ArrayRef<ast::StmtPtr> elseBody,
                            bool exitsClearInThen) {
  // Emit both branches into a result-less scf.if first: the result types are
  // only known once the branches have been walked.
  auto ifOp = scf::IfOp::create(builder, location, TypeRange(), cond,
                                /*withElseRegion=*/true);
  Env before = env;
  SmallVector<std::string> names;
  llvm::StringMap<SMLoc> firstLoc;
  collectAssignedNames(thenBody, names, firstLoc);
  collectAssignedNames(elseBody, names, firstLoc);
  // The innermost loop's exit flags flow out as the names do.
  SmallVector<std::string> flags;
  if (!loops.empty())
    for (const std::string &flag :
         {loops.back().breakFlag, loops.back().continueFlag})
      if (!flag.empty() && before.count(flag)) {
        flags.push_back(flag);
        if (firstLoc.try_emplace(flag, SMLoc()).second)
          names.push_back(flag);
      }
  auto emitBranch = [&](ArrayRef<ast::StmtPtr> body, Block *block, bool clear) {
    env = before;
    if (clear)
      for (const std::string &flag : flags)
        env[flag] = Val::boolean(false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(block->getTerminator());
    emitBlock(body);
    return env;
  };
  Env thenEnv = emitBranch(thenBody, ifOp.thenBlock(), exitsClearInThen);
  Env elseEnv = emitBranch(elseBody, ifOp.elseBlock(), false);
  env = before;

  // Decide what flows out: names assigned on some path that exist on both.
  struct Out {
    std::string name;
    Value thenValue, elseValue;
  };
  SmallVector<Out> outs;
  for (const std::string &name : names) {
    auto t = thenEnv.find(name), e = elseEnv.find(name);
    if (t == thenEnv.end() || e == elseEnv.end()) {
      outOfScope[name] = firstLoc[name];
      env.erase(name);
      continue;
    }
    Val tv = t->second, ev = e->second;
    if (tv.isInvalid() || ev.isInvalid()) {
      env[name] = Val::invalid();
      continue;
    }
    // Identical compile-time values (and the same SSA value) need no IR.
    bool sameConst = sameValue(tv, ev);
    if (sameConst) {
      env[name] = tv;
      continue;
    }
    if (!(tv.isNumeric() && ev.isNumeric())) {
      diag.error(firstLoc[name], "'" + name +
                                     "' must have the same compile-time "
                                     "value on both paths of this 'if'");
      env[name] = Val::invalid();
      continue;
    }
    // Materialize constants in their branch, in the other side's type.
    auto materialize = [&](const Val &v, const Val &other,
                           Block *block) -> Value {
      if (v.isDynamic())
        return v.value;
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(block->getTerminator());
      Type type = other.isDynamic() ? other.getElementType() : defaultType(v);
      if (v.kind == Val::Kind::Float && !isa<FloatType>(type)) {
        // (Not truncated.)
        diag.error(firstLoc[name], "'" + name + "' is " + v.describe() +
                                       " on one path of this 'if' and " +
                                       other.describe() +
                                       " on the other; convert it with "
                                       ".astype() on both");
        return Value();
      }
      return coerce(v, type, other.getShape(), firstLoc[name]);
    };
    Value tval = materialize(tv, ev, ifOp.thenBlock());
    Value eval = materialize(ev, tv, ifOp.elseBlock());
    if (!tval || !eval) {
      env[name] = Val::invalid();
      continue;
    }
    if (tval.getType() != eval.getType()) {
      diag.error(firstLoc[name],
                 "'" + name + "' is " + Val::dynamic(tval).describe() +
                     " on one path of this 'if' and " +
                     Val::dynamic(eval).describe() + " on the other");
      env[name] = Val::invalid();
      continue;
    }
    outs.push_back({name, tval, eval});
  }

  // Rebuild the scf.if with results and move the branches into it.
  SmallVector<Type> types;
  for (const Out &o : outs)
    types.push_back(o.thenValue.getType());
  auto newIf = scf::IfOp::create(builder, location, types, cond,
                                 /*withElseRegion=*/true);
  for (auto [region, block, field] :
       {std::make_tuple(&newIf.getThenRegion(), ifOp.thenBlock(), 0),
        std::make_tuple(&newIf.getElseRegion(), ifOp.elseBlock(), 1)}) {
    (void)block;
    region->takeBody(field == 0 ? ifOp.getThenRegion() : ifOp.getElseRegion());
    Block &b = region->front();
    b.getTerminator()->erase();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&b);
    SmallVector<Value> yields;
    for (const Out &o : outs)
      yields.push_back(field == 0 ? o.thenValue : o.elseValue);
    scf::YieldOp::create(builder, location, yields);
  }
  ifOp.erase();
  for (auto [i, o] : llvm::enumerate(outs))
    env[o.name] = Val::dynamic(newIf.getResult(i));
}

//===----------------------------------------------------------------------===//
// for
//===----------------------------------------------------------------------===//

namespace {
/// The keyword arguments of range(): the loop's own schedule, attached to
/// the scf.for as `tile.schedule` (#tile.schedule).
struct LoopHints {
  std::optional<unsigned> numStages;
  std::optional<bool> loopSplit, warpSpecialize, rotateWgmma, rescaleInTrip;

  bool empty() const {
    return !numStages && !loopSplit && !warpSpecialize && !rotateWgmma &&
           !rescaleInTrip;
  }
};
} // namespace

/// Evaluates the keyword arguments of range(). A bad one is reported and left
/// out; the loop is still emitted, so that its body is checked.
static LoopHints emitLoopHints(Emitter &em, const ast::Call &call) {
  tilec::DiagnosticEngine &diag = em.diag;
  LoopHints hints;
  llvm::StringMap<std::optional<bool> *> flags = {
      {"loop_split", &hints.loopSplit},
      {"warp_specialize", &hints.warpSpecialize},
      {"rotate_wgmma", &hints.rotateWgmma},
      {"rescale_in_trip", &hints.rescaleInTrip}};
  for (const ast::Keyword &kw : call.keywords) {
    bool isStages = kw.name == "num_stages";
    auto flag = flags.find(kw.name);
    if (!isStages && flag == flags.end()) {
      diag.error(kw.nameRange.Start,
                 "range() got an unexpected keyword argument '" + kw.name +
                     "' (it takes num_stages, loop_split, warp_specialize, "
                     "rotate_wgmma and rescale_in_trip)");
      continue;
    }
    Val v = em.emitExpr(*kw.value);
    SMLoc l = kw.value->getLoc();
    if (v.isInvalid())
      continue;
    if (isStages) {
      if (v.kind != Val::Kind::Int)
        diag.error(l, "range(): num_stages must be an integer constant, got " +
                          v.describe());
      else if (v.i < 1 || v.i > 16)
        diag.error(l, "range(): num_stages must be from 1 to 16, got " +
                          std::to_string(v.i));
      else
        hints.numStages = unsigned(v.i);
      continue;
    }
    if (v.kind != Val::Kind::Bool)
      diag.error(l, "range(): " + kw.name + " must be a bool constant, got " +
                        v.describe());
    else
      *flag->second = v.b;
  }
  return hints;
}

/// The most trips a static_range loop unrolls.
static constexpr int64_t kMaxStaticTrips = 1024;

void Emitter::emitStaticFor(const ast::For &stmt, const ast::Call &call) {
  if (!call.keywords.empty()) {
    diag.error(call.keywords.front().nameRange,
               "static_range() takes no keyword arguments: its trips are "
               "unrolled when the kernel is compiled (a loop schedule is "
               "range()'s)");
    return;
  }
  if (call.args.empty() || call.args.size() > 3) {
    diag.error(call.getLoc(), "static_range() takes 1 to 3 positional "
                              "arguments: static_range(stop), "
                              "static_range(start, stop) or "
                              "static_range(start, stop, step)");
    return;
  }
  SmallVector<int64_t, 3> bounds;
  for (const ast::ExprPtr &a : call.args) {
    Val v = emitExpr(*a);
    if (v.isInvalid())
      return;
    if (v.kind != Val::Kind::Int) {
      diag.error(a->getLoc(),
                 "static_range() bounds and step must be int constants (its "
                 "trips are unrolled when the kernel is compiled), got " +
                     v.describe() + "; range() takes run-time bounds");
      return;
    }
    bounds.push_back(v.i);
  }
  int64_t start = bounds.size() == 1 ? 0 : bounds[0];
  int64_t stop = bounds.size() == 1 ? bounds[0] : bounds[1];
  int64_t step = bounds.size() == 3 ? bounds[2] : 1;
  if (step == 0) {
    diag.error(call.args.back()->getLoc(),
               "the step of static_range() must not be zero");
    return;
  }
  // Python's len(range(start, stop, step)), without overflow.
  auto span = [](int64_t from, int64_t to) -> uint64_t {
    return from < to ? uint64_t(to) - uint64_t(from) : 0;
  };
  uint64_t distance = step > 0 ? span(start, stop) : span(stop, start);
  uint64_t magnitude = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
  uint64_t trips = distance == 0 ? 0 : (distance - 1) / magnitude + 1;
  if (trips > uint64_t(kMaxStaticTrips)) {
    diag.error(call.getLoc(), "static_range() unrolls at most " +
                                  std::to_string(kMaxStaticTrips) +
                                  " trips, got " + std::to_string(trips) +
                                  "; use range() for a loop");
    return;
  }

  // As range()'s: the names first assigned in the body (and the loop
  // variable) end with the loop; the others keep the last trip's values.
  SmallVector<std::string> names;
  llvm::StringMap<SMLoc> firstLoc;
  collectAssignedNames(stmt.body, names, firstLoc);
  Env before = env;
  // Its break and continue are flags as a run-time loop's; a trip after
  // one where a break may have run runs only where none did.
  LoopExits exits = loopExitsOf(stmt.body, /*withBreak=*/true);
  loops.push_back(exits);
  for (uint64_t t = 0; t < trips; ++t) {
    env[stmt.var->id] = Val::integer(start + int64_t(t) * step);
    if (!exits.continueFlag.empty())
      env[exits.continueFlag] = Val::boolean(false);
    unsigned errors = diag.getNumErrors();
    Value broke;
    LoopExit state = exits.breakFlag.empty()
                         ? LoopExit::None
                         : loopExitState(loc(stmt.getLoc()), broke);
    if (state == LoopExit::Always)
      break;
    if (state == LoopExit::Maybe) {
      emitUnlessExited(loc(stmt.getLoc()), broke, stmt.body);
    } else {
      emitBlock(stmt.body);
    }
    // The same error in every trip once is enough.
    if (diag.getNumErrors() != errors || diag.tooManyErrors())
      break;
  }
  loops.pop_back();
  Env after = std::move(env);
  env = before;
  for (const std::string &name : names) {
    if (before.count(name)) {
      auto it = after.find(name);
      if (it != after.end())
        env[name] = it->second;
    } else {
      outOfScope[name] = firstLoc[name];
    }
  }
  if (!before.count(stmt.var->id))
    outOfScope[stmt.var->id] = stmt.var->getLoc();
}

void Emitter::emitFor(const ast::For &stmt) {
  auto *call = dyn_cast<ast::Call>(stmt.iter.get());
  auto *callee = call ? dyn_cast<ast::Name>(call->callee.get()) : nullptr;
  if (callee && callee->id == "static_range") {
    emitStaticFor(stmt, *call);
    return;
  }
  if (!callee || callee->id != "range") {
    diag.error(stmt.iter->getLoc(),
               "a 'for' loop iterates over range(...) or static_range(...) "
               "only");
    return;
  }
  if (call->args.empty() || call->args.size() > 3) {
    diag.error(call->getLoc(),
               "range() takes 1 to 3 positional arguments: range(stop), "
               "range(start, stop) or range(start, stop, step)");
    return;
  }
  std::vector<Val> args;
  for (const ast::ExprPtr &a : call->args)
    args.push_back(emitExpr(*a));
  LoopHints hints = emitLoopHints(*this, *call);
  if (llvm::any_of(args, [](const Val &v) { return v.isInvalid(); }))
    return;
  Val start = args.size() == 1 ? Val::integer(0) : args[0];
  Val stop = args.size() == 1 ? args[0] : args[1];
  Val step = args.size() == 3 ? args[2] : Val::integer(1);
  if (step.kind != Val::Kind::Int || step.i <= 0) {
    diag.error(call->args.back()->getLoc(),
               "the step of range() must be a positive integer constant");
    return;
  }
  auto toIndex = [&](const Val &given, SMLoc l) -> Value {
    Val v = scalarOf(given, l);
    if (v.kind == Val::Kind::Int)
      return materializeScalar(v, builder.getI32Type(), l);
    if (v.kind == Val::Kind::Scalar && v.value.getType().isInteger(32))
      return v.value;
    diag.error(l, "range() bounds must be integers, got " + v.describe() +
                      v.notI32Hint() +
                      (v.kind == Val::Kind::Tile
                           ? " (only a tile of one element is a scalar)"
                           : ""));
    return {};
  };
  SMLoc startLoc = args.size() == 1 ? call->getLoc() : call->args[0]->getLoc();
  SMLoc stopLoc =
      args.size() == 1 ? call->args[0]->getLoc() : call->args[1]->getLoc();
  Value lb = toIndex(start, startLoc);
  Value ub = toIndex(stop, stopLoc);
  Value st = toIndex(step, call->getLoc());
  if (!lb || !ub || !st)
    return;

  Location location = loc(stmt.getLoc());
  if (hasLoopExit(stmt.body, ast::Stmt::Kind::Break)) {
    // A loop that may end early is a while loop over a counter.
    if (!hints.empty()) {
      diag.error(call->keywords.front().nameRange,
                 "range(): a loop with 'break' takes no schedule (it runs as "
                 "a while loop, which is not pipelined); drop the keyword "
                 "arguments");
      return;
    }
    std::string counter = "for:" + std::to_string(numLoops++);
    env[counter] = Val::dynamic(lb);
    std::string var = stmt.var->id;
    emitWhileLoop(
        location, stmt.body, {counter}, var,
        [&]() -> Value {
          Value iv = env[counter].value;
          return arith::CmpIOp::create(builder, location,
                                       arith::CmpIPredicate::slt, iv, ub);
        },
        [&] {
          Value iv = env[counter].value;
          env[var] = Val::dynamic(iv);
          env[counter] =
              Val::dynamic(arith::AddIOp::create(builder, location, iv, st));
        });
    env.erase(counter);
    if (!env.count(var))
      outOfScope[var] = stmt.var->getLoc();
    return;
  }

  Carried carried = collectCarried(stmt.body, {}, stmt.var->id);
  auto forOp = scf::ForOp::create(builder, location, lb, ub, st, carried.inits);
  if (!hints.empty()) {
    auto flag = [&](std::optional<bool> v) {
      return v ? builder.getBoolAttr(*v) : BoolAttr();
    };
    forOp->setAttr(mlir::tile::TileDialect::getScheduleAttrName(),
                   mlir::tile::LoopScheduleAttr::get(
                       builder.getContext(), hints.numStages,
                       flag(hints.loopSplit), flag(hints.warpSpecialize),
                       flag(hints.rotateWgmma), flag(hints.rescaleInTrip)));
  }
  Env before = env;
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *body = forOp.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      body->back().erase();
    builder.setInsertionPointToEnd(body);
    env[stmt.var->id] = Val::dynamic(forOp.getInductionVar());
    for (auto [i, name] : llvm::enumerate(carried.names))
      env[name] = Val::dynamic(forOp.getRegionIterArgs()[i]);
    // A continue skips the rest of its trip: a flag each trip starts clear.
    LoopExits exits = loopExitsOf(stmt.body, /*withBreak=*/false);
    if (!exits.continueFlag.empty())
      env[exits.continueFlag] = Val::boolean(false);
    loops.push_back(exits);
    emitBlock(stmt.body);
    loops.pop_back();
    scf::YieldOp::create(builder, location,
                         carriedYields(carried, forOp.getRegionIterArgs()));
  }
  if (!before.count(stmt.var->id))
    outOfScope[stmt.var->id] = stmt.var->getLoc();
  endLoopScope(carried, before, forOp.getResults());
}

Emitter::Carried Emitter::collectCarried(ArrayRef<ast::StmtPtr> body,
                                         ArrayRef<std::string> extra,
                                         StringRef loopVar) {
  Carried c;
  collectAssignedNames(body, c.assigned, c.firstLoc);
  SmallVector<std::string> names(extra.begin(), extra.end());
  llvm::append_range(names, c.assigned);
  for (const std::string &name : names) {
    if (name == loopVar || llvm::is_contained(c.names, name))
      continue;
    auto it = env.find(name);
    if (it == env.end() || it->second.isInvalid())
      continue;
    auto v = toCarried(it->second, c.firstLoc.lookup(name));
    if (!v) {
      diag.error(c.firstLoc[name], "'" + name +
                                       "' cannot be reassigned inside a "
                                       "loop: it holds " +
                                       it->second.describe());
      continue;
    }
    c.names.push_back(name);
    c.inits.push_back(*v);
  }
  return c;
}

SmallVector<Value> Emitter::carriedYields(const Carried &carried,
                                          ValueRange args) {
  SmallVector<Value> yields;
  for (auto [i, name] : llvm::enumerate(carried.names)) {
    Val v = env.lookup(name);
    Type expected = carried.inits[i].getType();
    SMLoc l = carried.firstLoc.lookup(name);
    Value y;
    if (v.isInvalid()) {
      y = args[i];
    } else if (v.kind == Val::Kind::Float &&
               !isa<FloatType>(getElementTypeOrSelf(expected))) {
      // (A float constant would be truncated: y stays null, reported.)
    } else if (v.isConstNumber()) {
      y = coerce(v, getElementTypeOrSelf(expected),
                 isa<RankedTensorType>(expected)
                     ? cast<RankedTensorType>(expected).getShape()
                     : ArrayRef<int64_t>(),
                 l);
    } else if (v.isDynamic()) {
      y = v.value;
    }
    if (!y || y.getType() != expected) {
      if (!v.isInvalid())
        diag.error(l, "'" + name + "' changes type in the loop: it is " +
                          Val::dynamic(carried.inits[i]).describe() +
                          " before the loop and " + v.describe() +
                          " after one iteration; convert it with .astype() "
                          "or initialize it with the loop's type");
      y = args[i];
    }
    yields.push_back(y);
  }
  return yields;
}

void Emitter::endLoopScope(const Carried &carried, const Env &before,
                           ValueRange results) {
  env = before;
  // Names first assigned in the body end with it.
  for (const std::string &name : carried.assigned)
    if (!llvm::is_contained(carried.names, name) && !before.count(name))
      outOfScope[name] = carried.firstLoc.lookup(name);
  for (auto [i, name] : llvm::enumerate(carried.names))
    env[name] = Val::dynamic(results[i]);
}

void Emitter::emitWhileLoop(Location location, ArrayRef<ast::StmtPtr> body,
                            ArrayRef<std::string> extra, StringRef loopVar,
                            function_ref<Value()> emitCondition,
                            function_ref<void()> startTrip) {
  LoopExits exits = loopExitsOf(body, /*withBreak=*/true);
  SmallVector<std::string> hidden(extra.begin(), extra.end());
  if (!exits.breakFlag.empty())
    hidden.push_back(exits.breakFlag);
  Carried carried = collectCarried(body, hidden, loopVar);
  Env before = env;

  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value v : carried.inits) {
    types.push_back(v.getType());
    locs.push_back(location);
  }
  auto whileOp = scf::WhileOp::create(builder, location, types, carried.inits);
  {
    // Before each trip: the condition (false once a break ran: the
    // condition is not evaluated then, as Python's).
    OpBuilder::InsertionGuard guard(builder);
    Block *cond = builder.createBlock(&whileOp.getBefore(), {}, types, locs);
    for (auto [i, name] : llvm::enumerate(carried.names))
      env[name] = Val::dynamic(cond->getArgument(i));
    Value go;
    if (exits.breakFlag.empty()) {
      go = emitCondition();
    } else {
      auto ifOp = scf::IfOp::create(builder, location, builder.getI1Type(),
                                    env[exits.breakFlag].value,
                                    /*withElseRegion=*/true);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(
          builder, location,
          ValueRange{arith::ConstantIntOp::create(builder, location, 0, 1)});
      builder.setInsertionPointToStart(ifOp.elseBlock());
      Value c = emitCondition();
      if (!c)
        c = arith::ConstantIntOp::create(builder, location, 0, 1);
      scf::YieldOp::create(builder, location, ValueRange{c});
      builder.setInsertionPointAfter(ifOp);
      go = ifOp.getResult(0);
    }
    if (!go)
      go = arith::ConstantIntOp::create(builder, location, 0, 1);
    scf::ConditionOp::create(builder, location, go, cond->getArguments());
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *trip = builder.createBlock(&whileOp.getAfter(), {}, types, locs);
    env = before;
    for (auto [i, name] : llvm::enumerate(carried.names))
      env[name] = Val::dynamic(trip->getArgument(i));
    startTrip();
    // A trip runs only where no break has (the condition says so).
    if (!exits.breakFlag.empty())
      env[exits.breakFlag] = Val::boolean(false);
    if (!exits.continueFlag.empty())
      env[exits.continueFlag] = Val::boolean(false);
    loops.push_back(exits);
    emitBlock(body);
    loops.pop_back();
    scf::YieldOp::create(builder, location,
                         carriedYields(carried, trip->getArguments()));
  }
  endLoopScope(carried, before, whileOp.getResults());
  for (const std::string &name : hidden)
    env.erase(name);
}

void Emitter::emitWhile(const ast::While &stmt) {
  Location location = loc(stmt.getLoc());
  bool hasBreak = hasLoopExit(stmt.body, ast::Stmt::Kind::Break);
  auto condition = [&]() -> Value {
    Val c = scalarOf(emitExpr(*stmt.cond), stmt.cond->getLoc());
    if (c.isInvalid())
      return {};
    if (c.kind == Val::Kind::Bool) {
      if (c.b && !hasBreak) {
        diag.error(stmt.cond->getLoc(),
                   "this 'while' loop never ends: its condition is always "
                   "true and its body has no 'break'");
        return {};
      }
      return arith::ConstantIntOp::create(builder, location, c.b ? 1 : 0, 1);
    }
    if (c.kind == Val::Kind::Tile) {
      diag.error(stmt.cond->getLoc(),
                 "the condition of 'while' must be a scalar, got " +
                     c.describe() + "; reduce it to one first (max(), sum())");
      return {};
    }
    if (c.kind != Val::Kind::Scalar || !c.getElementType().isInteger(1)) {
      diag.error(stmt.cond->getLoc(),
                 "the condition of 'while' must be a bool, got " +
                     c.describe());
      return {};
    }
    return c.value;
  };
  emitWhileLoop(location, stmt.body, {}, "", condition, [] {});
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Emitter::emitModule(const ast::Module &module) {
  OwningOpRef<ModuleOp> result = ModuleOp::create(builder.getUnknownLoc());

  // The functions first: a constant that calls one is told why it cannot.
  bool functionsOk = collectFunctions(module);

  // Module-level constants, in order; each may use the ones before it.
  for (const ast::GlobalConst &g : module.globals) {
    env.clear();
    Val v = emitExpr(*g.value);
    if (!v.isInvalid() && !v.isConstNumber() && v.kind != Val::Kind::DType &&
        v.kind != Val::Kind::Tuple) {
      diag.error(g.value->getLoc(), "a module-level name must be a constant, "
                                    "got " +
                                        v.describe());
      v = Val::invalid();
    }
    globals[g.name] = v;
    if (functions.count(g.name)) {
      diag.error(g.nameRange.Start,
                 "'" + g.name + "' names both a function and a constant");
      functionsOk = false;
    }
  }
  if (!functionsOk)
    return nullptr;

  // Every -D must name a const parameter of some kernel that is emitted.
  llvm::StringSet<> constNames;
  bool found = options.kernelName.empty();
  llvm::StringSet<> kernelNames;
  for (const ast::Kernel &k : module.kernels) {
    if (!kernelNames.insert(k.name).second)
      diag.error(k.nameRange.Start, "duplicate kernel '" + k.name + "'");
    if (!options.kernelName.empty() && k.name != options.kernelName)
      continue;
    found = true;
    for (const ast::Param &p : k.params)
      if (p.isConst)
        constNames.insert(p.name);
  }
  if (!found) {
    diag.error(SMLoc(), "no kernel named '" + options.kernelName + "'");
    return nullptr;
  }
  if (module.kernels.empty() && !diag.hasErrors()) {
    diag.error(SMLoc(), "the file defines no kernel");
    return nullptr;
  }
  for (const auto &[name, value] : options.defines)
    if (!constNames.count(name))
      diag.error(SMLoc(), "-D" + name +
                              " does not name a const parameter of any "
                              "kernel being compiled");

  for (const ast::Kernel &k : module.kernels) {
    if (diag.tooManyErrors())
      break;
    if (!options.kernelName.empty() && k.name != options.kernelName)
      continue;
    emitKernel(k, *result);
  }
  if (diag.hasErrors())
    return nullptr;
  return result;
}

OwningOpRef<ModuleOp> tilec::emitTileIR(MLIRContext &context,
                                        const ast::Module &module,
                                        DiagnosticEngine &diag,
                                        const MLIRGenOptions &options) {
  context.getOrLoadDialect<tile::TileDialect>();
  Emitter emitter(context, diag, options);
  return emitter.emitModule(module);
}
