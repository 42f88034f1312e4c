//===- Emitter.h - State of the AST-to-tile-IR walk -------------*- C++ -*-===//
//
// Internal to lib/Frontend. The emitter is split by concern:
//   MLIRGen.cpp    kernels, parameters, statements, control flow
//   Expressions.cpp names, literals, operators, subscripts, attributes
//   Builtins.cpp   the built-in functions and methods (load, mma, ...)
//   Values.cpp     the value model, conversions and broadcasting
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_EMITTER_H
#define TILEC_LIB_FRONTEND_EMITTER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/MLIRGen.h"

#include "Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A value during emission: either known at compile time (a number, a dtype,
/// a tuple, ...) or an SSA value of tile IR (a scalar or a tile), or a
/// global tensor parameter. `Invalid` stands for the result of an expression
/// that already produced an error; using it reports nothing more.
struct Val {
  enum class Kind {
    Invalid,
    None,     // the result of store(), or `None`
    Int,      // compile-time integer (Python int)
    Float,    // compile-time float
    Bool,     // compile-time bool
    DType,    // an element type: f16, bf16, f32, i32, bool
    Rounding, // a rounding mode constant: RN, FULL, APPROX
    Tuple,    // compile-time tuple of values
    Scalar,   // run-time scalar (i32, f32, i1, ...)
    Tile,     // run-time tile (ranked tensor)
    Global,   // a global tensor parameter
    ShapeOf,  // `T.shape` of a global tensor: indexing it reads one dim
  };

  Kind kind = Kind::Invalid;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  mlir::Type type; // DType
  mlir::tile::RoundingMode rounding = mlir::tile::RoundingMode::RN;
  std::vector<Val> elts; // Tuple
  mlir::Value value;     // Scalar, Tile, Global, ShapeOf

  static Val invalid() { return {}; }
  static Val none() { return make(Kind::None); }
  static Val integer(int64_t v) {
    Val r = make(Kind::Int);
    r.i = v;
    return r;
  }
  static Val floating(double v) {
    Val r = make(Kind::Float);
    r.f = v;
    return r;
  }
  static Val boolean(bool v) {
    Val r = make(Kind::Bool);
    r.b = v;
    return r;
  }
  static Val dtype(mlir::Type t) {
    Val r = make(Kind::DType);
    r.type = t;
    return r;
  }
  static Val roundingMode(mlir::tile::RoundingMode m) {
    Val r = make(Kind::Rounding);
    r.rounding = m;
    return r;
  }
  static Val tuple(std::vector<Val> elts) {
    Val r = make(Kind::Tuple);
    r.elts = std::move(elts);
    return r;
  }
  static Val dynamic(mlir::Value v); // Scalar, Tile or Global by type
  static Val shapeOf(mlir::Value global) {
    Val r = make(Kind::ShapeOf);
    r.value = global;
    return r;
  }

  bool isInvalid() const { return kind == Kind::Invalid; }
  bool isConstNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  bool isDynamic() const { return kind == Kind::Scalar || kind == Kind::Tile; }
  bool isNumeric() const { return isConstNumber() || isDynamic(); }
  /// True when the tuple holds an Invalid anywhere.
  bool containsInvalid() const;

  /// Element type of a dynamic value (the tile's element type for tiles).
  mlir::Type getElementType() const;
  /// Shape of a tile; empty for scalars and constants.
  llvm::ArrayRef<int64_t> getShape() const;

  /// A short description for diagnostics: "int constant 3", "tile
  /// (64, 64) of f32", "f32 scalar", ...
  std::string describe() const;
  /// "; convert it with .astype(i32)" for a run-time integer of another
  /// width than i32 (where an index, a bound or a coordinate must be an
  /// i32), else "".
  std::string notI32Hint() const;

private:
  static Val make(Kind k) {
    Val r;
    r.kind = k;
    return r;
  }
};

/// Prints a type as the language spells it (f16, bool, ...).
std::string typeName(mlir::Type type);

/// The built-in functions' names (for suggestions).
llvm::ArrayRef<llvm::StringRef> builtinFunctionNames();

/// "; did you mean 'X'?" for the candidate closest to `name` (a few edits,
/// or a prefix either way), or "".
std::string didYouMean(llvm::StringRef name,
                       llvm::ArrayRef<llvm::StringRef> candidates);

/// `x` truncated toward zero, when the result fits in 64 bits (not for NaN,
/// the infinities and magnitudes from 2^63 on).
std::optional<int64_t> floatToInt64(double x);
/// Prints a shape as a tuple: (64, 1).
std::string shapeString(llvm::ArrayRef<int64_t> shape);

/// Lexical environment: names to values. Blocks of `if` and `for` copy it.
using Env = llvm::StringMap<Val>;

class Emitter {
public:
  Emitter(mlir::MLIRContext &context, DiagnosticEngine &diag,
          const MLIRGenOptions &options);

  mlir::OwningOpRef<mlir::ModuleOp> emitModule(const ast::Module &module);

  //===--------------------------------------------------------------------===//
  // Shared by the files of the emitter
  //===--------------------------------------------------------------------===//

  mlir::Location loc(llvm::SMLoc l);
  mlir::Location loc(const ast::Expr &e) { return loc(e.getLoc()); }

  /// Reports an error and returns Invalid, for `return error(...)`.
  Val error(llvm::SMLoc l, const llvm::Twine &msg);

  // Expressions.cpp
  Val emitExpr(const ast::Expr &e);
  Val emitBinary(ast::BinaryOp op, Val lhs, Val rhs, llvm::SMLoc l);
  Val emitCompare(ast::CompareOp op, Val lhs, Val rhs, llvm::SMLoc l);

  // Functions.cpp
  /// A call of a `def` function, inlined here.
  Val emitFunctionCall(const ast::Call &call, const ast::Function &function);
  /// Fills `functions`; false after reporting a clash of names.
  bool collectFunctions(const ast::Module &module);

  // Builtins.cpp
  Val emitCall(const ast::Call &call);
  Val emitMethodCall(const ast::Call &call, const ast::Attribute &callee);
  /// Elementwise or constant max/min of two values.
  Val emitMinMax(bool isMax, Val lhs, Val rhs, llvm::SMLoc l);

  // Values.cpp
  /// Makes a dynamic scalar of the given type out of a constant number.
  mlir::Value materializeScalar(const Val &v, mlir::Type type, llvm::SMLoc l);
  /// The natural IR type of a constant number: i32, f32 or i1.
  mlir::Type defaultType(const Val &v);
  /// Converts any numeric value to a dynamic value of element type `elt`
  /// (casting as `.astype` does) and of shape `shape` (broadcasting).
  /// Empty `shape` means a scalar.
  mlir::Value coerce(const Val &v, mlir::Type elt,
                     llvm::ArrayRef<int64_t> shape, llvm::SMLoc l);
  /// The numpy broadcast of two shapes; error and nullopt when they do not
  /// broadcast.
  std::optional<llvm::SmallVector<int64_t>>
  broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                  llvm::SMLoc l);
  /// The shape operands of an elementwise op broadcast to: empty when all
  /// are scalars; nullopt after an error.
  std::optional<llvm::SmallVector<int64_t>>
  resultShape(llvm::ArrayRef<const Val *> operands, llvm::SMLoc l);
  /// Broadcasts a tile to `shape` (adding leading dimensions as needed).
  mlir::Value broadcastTo(mlir::Value tile, llvm::ArrayRef<int64_t> shape,
                          mlir::Location location);
  /// Casts a dynamic value (scalar or tile) to element type `elt`.
  mlir::Value castElements(mlir::Value v, mlir::Type elt,
                           mlir::Location location);
  /// The element type two operands are computed in; null (after an error)
  /// when they cannot be combined.
  mlir::Type promote(const Val &a, const Val &b, llvm::SMLoc l,
                     llvm::StringRef what);
  /// False (after an error naming `what`) when `v` holds 8-bit floats, which
  /// are for loads, stores, conversions and mma only.
  bool requireArithmetic(const Val &v, llvm::SMLoc l, llvm::StringRef what);
  /// A one-element tile as the run-time scalar it holds (`tile.item`): a
  /// value read from memory where a scalar is needed (a range bound, a tile
  /// index). Anything else is returned as it is.
  Val scalarOf(const Val &v, llvm::SMLoc l);
  /// Checks a tile shape: non-empty, static, positive dimensions.
  bool checkTileShape(llvm::ArrayRef<int64_t> shape, llvm::SMLoc l);
  /// Constant `v` as an integer if it is an int or bool constant.
  std::optional<int64_t> getConstInt(const Val &v);

  mlir::OpBuilder builder;
  mlir::MLIRContext &context;
  DiagnosticEngine &diag;
  const MLIRGenOptions &options;
  Env env;
  /// Globals of the module, visible in every kernel.
  Env globals;
  /// Names that went out of scope (defined inside a loop or in one branch of
  /// an `if`), with where they were defined, for a better "unknown name".
  llvm::StringMap<llvm::SMLoc> outOfScope;
  /// While a kernel's @hints are evaluated: its run-time parameters, which
  /// a hint cannot use (said instead of "unknown name").
  llvm::StringSet<> runtimeOnly;
  /// The module's functions (`def`), by name.
  llvm::StringMap<const ast::Function *> functions;
  /// The calls being inlined, innermost last, with the caller's location
  /// (operations emitted in a function's body are located at their line
  /// there, called from it).
  struct InlinedCall {
    const ast::Function *function;
    mlir::Location callerLoc;
  };
  llvm::SmallVector<InlinedCall> calls;
  /// While a kernel's body is emitted (where functions can be called).
  bool inKernelBody = false;
  /// The loops around the statements being emitted, innermost last: the
  /// names in `env` of their run-time exit flags (names no source can
  /// spell), empty where the loop has no such statement. `break` and
  /// `continue` set a flag; the statements after one that may have set it
  /// run under an `scf.if` of its negation, and a loop with a `break` is an
  /// `scf.while` carrying its flag.
  struct LoopExits {
    std::string breakFlag, continueFlag;
  };
  llvm::SmallVector<LoopExits> loops;
  unsigned numLoops = 0;

  void emitStmt(const ast::Stmt &stmt);

private:
  // MLIRGen.cpp
  void emitKernel(const ast::Kernel &kernel, mlir::ModuleOp module);
  void emitBlock(llvm::ArrayRef<ast::StmtPtr> block);
  void emitAssign(const ast::Assign &assign);
  void emitAssert(const ast::Assert &stmt);
  void emitIf(const ast::If &stmt);
  /// An `scf.if` on `cond` running `thenBody` or `elseBody`; the names they
  /// assign (and the innermost loop's exit flags) flow out of it.
  /// `exitsClearInThen`: the then side runs only where no exit flag is set
  /// (the rest of a loop's body after a `break` or `continue` that may have
  /// run).
  void emitDynamicIf(mlir::Location location, mlir::Value cond,
                     llvm::ArrayRef<ast::StmtPtr> thenBody,
                     llvm::ArrayRef<ast::StmtPtr> elseBody,
                     bool exitsClearInThen = false);
  void emitFor(const ast::For &stmt);
  void emitWhile(const ast::While &stmt);
  /// The names a loop carries: assigned in `body` (or `extra`) and known
  /// before it; the others assigned in it end with it.
  struct Carried {
    llvm::SmallVector<std::string> names, assigned;
    llvm::SmallVector<mlir::Value> inits;
    llvm::StringMap<llvm::SMLoc> firstLoc;
  };
  Carried collectCarried(llvm::ArrayRef<ast::StmtPtr> body,
                         llvm::ArrayRef<std::string> extra,
                         llvm::StringRef loopVar);
  /// The values a trip yields for `carried`, in their types (`args`, the
  /// trip's own, where a value is invalid or changed type: reported).
  llvm::SmallVector<mlir::Value> carriedYields(const Carried &carried,
                                               mlir::ValueRange args);
  /// After a loop: `results` bound to the carried names, the others out of
  /// scope.
  void endLoopScope(const Carried &carried, const Env &before,
                    mlir::ValueRange results);
  /// An `scf.while` over `body`: `emitCondition` gives the i1 that decides
  /// each trip (null after an error), `startTrip` binds what a trip sees
  /// before its body; `extra` are hidden names it carries (they must be in
  /// `env`).
  void emitWhileLoop(mlir::Location location, llvm::ArrayRef<ast::StmtPtr> body,
                     llvm::ArrayRef<std::string> extra, llvm::StringRef loopVar,
                     llvm::function_ref<mlir::Value()> emitCondition,
                     llvm::function_ref<void()> startTrip);
  /// Where the innermost loop's exit flags stand: none set, some surely
  /// set, or some set at run time (`any`: their disjunction).
  enum class LoopExit { None, Always, Maybe };
  LoopExit loopExitState(mlir::Location location, mlir::Value &any);
  /// `stmts` under an `scf.if` of `exited`'s negation (the exit flags
  /// clear inside).
  void emitUnlessExited(mlir::Location location, mlir::Value exited,
                        llvm::ArrayRef<ast::StmtPtr> stmts);
  /// The exit flags a loop over `body` needs (a break's, set false in
  /// `env`, only `withBreak`: a loop that can end early).
  LoopExits loopExitsOf(llvm::ArrayRef<ast::StmtPtr> body, bool withBreak);
  /// A `for` over static_range(...): the body emitted once a trip, the
  /// loop variable an int constant.
  void emitStaticFor(const ast::For &stmt, const ast::Call &call);
  std::optional<Val> evalConstParam(const ast::Param &param,
                                    const ast::Kernel &kernel);
  mlir::Type resolveParamType(const ast::Param &param);
  /// The kernel's @hints as its `tile.hints` dictionary; null on an error
  /// (reported).
  mlir::DictionaryAttr emitHints(const ast::Kernel &kernel);
  /// Brings a value that flows out of a region (if / for) to IR form; for
  /// constants that differ between paths.
  std::optional<mlir::Value> toCarried(const Val &v, llvm::SMLoc l);
};

/// True when two values are the same compile-time value or SSA value.
bool sameValue(const Val &a, const Val &b);

/// Names assigned anywhere in a block, recursively, in first-seen order.
void collectAssignedNames(llvm::ArrayRef<ast::StmtPtr> block,
                          llvm::SmallVectorImpl<std::string> &names,
                          llvm::StringMap<llvm::SMLoc> &firstLoc);

} // namespace tilec

#endif // TILEC_LIB_FRONTEND_EMITTER_H
