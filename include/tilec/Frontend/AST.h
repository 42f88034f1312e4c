//===- AST.h - Abstract syntax tree of the .tile language -------*- C++ -*-===//
//
// The parser builds this tree; the emitter (MLIRGen) walks it to produce tile
// IR, folding compile-time constants as it goes. Nodes own their children
// through unique_ptr and carry the source range they were parsed from, so that
// every later diagnostic can point at the text the user wrote.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::ast {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    IntLit,
    FloatLit,
    BoolLit,
    NoneLit,
    Name,
    Tuple,
    Unary,
    Binary,
    BoolOp,
    IfExp,
    Compare,
    Call,
    Attribute,
    Subscript,
    Slice,
  };

  Expr(Kind kind, llvm::SMRange range) : kind(kind), range(range) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMRange getRange() const { return range; }
  llvm::SMLoc getLoc() const { return range.Start; }

private:
  Kind kind;
  llvm::SMRange range;
};

using ExprPtr = std::unique_ptr<Expr>;

/// An integer literal. Python integers are unbounded; the lexer rejects
/// literals that do not fit in 64 bits.
class IntLit : public Expr {
public:
  IntLit(llvm::SMRange r, int64_t value)
      : Expr(Kind::IntLit, r), value(value) {}
  int64_t value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::IntLit; }
};

class FloatLit : public Expr {
public:
  FloatLit(llvm::SMRange r, double value)
      : Expr(Kind::FloatLit, r), value(value) {}
  double value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::FloatLit; }
};

/// `True` / `False`.
class BoolLit : public Expr {
public:
  BoolLit(llvm::SMRange r, bool value) : Expr(Kind::BoolLit, r), value(value) {}
  bool value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::BoolLit; }
};

/// `None`: only meaningful inside a subscript (`x[:, None]`).
class NoneLit : public Expr {
public:
  explicit NoneLit(llvm::SMRange r) : Expr(Kind::NoneLit, r) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::NoneLit; }
};

class Name : public Expr {
public:
  Name(llvm::SMRange r, std::string id)
      : Expr(Kind::Name, r), id(std::move(id)) {}
  std::string id;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Name; }
};

/// `(a, b, c)`, `(a,)` or `()`.
class Tuple : public Expr {
public:
  Tuple(llvm::SMRange r, std::vector<ExprPtr> elts)
      : Expr(Kind::Tuple, r), elts(std::move(elts)) {}
  std::vector<ExprPtr> elts;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Tuple; }
};

enum class UnaryOp { Neg, Pos, Not, Invert };

class Unary : public Expr {
public:
  Unary(llvm::SMRange r, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, r), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }
};

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,      // `/`: true division
  FloorDiv, // `//`
  Mod,      // `%`
  Pow,      // `**`
  BitAnd,   // `&`
  BitOr,    // `|`
  BitXor,   // `^`
  Shl,      // `<<`
  Shr,      // `>>`
};

class Binary : public Expr {
public:
  Binary(llvm::SMRange r, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, r), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BinaryOp op;
  llvm::SMLoc opLoc; // location of the operator token
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }
};

enum class BoolOpKind { And, Or };

/// Short-circuit `and` / `or`.
class BoolOp : public Expr {
public:
  BoolOp(llvm::SMRange r, BoolOpKind op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::BoolOp, r), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BoolOpKind op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::BoolOp; }
};

/// The conditional expression `body if test else orelse`: only the taken
/// side is evaluated.
class IfExp : public Expr {
public:
  IfExp(llvm::SMRange r, ExprPtr body, ExprPtr test, ExprPtr orelse)
      : Expr(Kind::IfExp, r), body(std::move(body)), test(std::move(test)),
        orelse(std::move(orelse)) {}
  ExprPtr body, test, orelse;
  llvm::SMLoc ifLoc; // location of the 'if' token
  static bool classof(const Expr *e) { return e->getKind() == Kind::IfExp; }
};

enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };

/// A comparison chain `a < b <= c` as in Python: operands.size() ==
/// ops.size() + 1, and the chain means `a < b and b <= c`.
class Compare : public Expr {
public:
  Compare(llvm::SMRange r, std::vector<ExprPtr> operands,
          std::vector<CompareOp> ops, std::vector<llvm::SMLoc> opLocs)
      : Expr(Kind::Compare, r), operands(std::move(operands)),
        ops(std::move(ops)), opLocs(std::move(opLocs)) {}
  std::vector<ExprPtr> operands;
  std::vector<CompareOp> ops;
  std::vector<llvm::SMLoc> opLocs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Compare; }
};

struct Keyword {
  std::string name;
  llvm::SMRange nameRange;
  ExprPtr value;
};

/// `callee(args..., name=value...)`. Positional arguments must precede
/// keyword arguments.
class Call : public Expr {
public:
  Call(llvm::SMRange r, ExprPtr callee, std::vector<ExprPtr> args,
       std::vector<Keyword> keywords)
      : Expr(Kind::Call, r), callee(std::move(callee)), args(std::move(args)),
        keywords(std::move(keywords)) {}
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }
};

/// `base.attr` (`K.shape`, `Q.dtype`, method callee `x.reshape`).
class Attribute : public Expr {
public:
  Attribute(llvm::SMRange r, ExprPtr base, std::string attr,
            llvm::SMRange attrRange)
      : Expr(Kind::Attribute, r), base(std::move(base)), attr(std::move(attr)),
        attrRange(attrRange) {}
  ExprPtr base;
  std::string attr;
  llvm::SMRange attrRange;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Attribute; }
};

/// `base[i]`, `base[i, j]`, `base[:, None]`. Each index is an expression, a
/// Slice or a NoneLit. `x[a, b]` has two indices (not one tuple index).
class Subscript : public Expr {
public:
  Subscript(llvm::SMRange r, ExprPtr base, std::vector<ExprPtr> indices)
      : Expr(Kind::Subscript, r), base(std::move(base)),
        indices(std::move(indices)) {}
  ExprPtr base;
  std::vector<ExprPtr> indices;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Subscript; }
};

/// `lower:upper:step` inside a subscript; each part may be null.
class Slice : public Expr {
public:
  Slice(llvm::SMRange r, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : Expr(Kind::Slice, r), lower(std::move(lower)), upper(std::move(upper)),
        step(std::move(step)) {}
  ExprPtr lower, upper, step;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Slice; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind {
    Assign,
    AugAssign,
    ExprStmt,
    If,
    For,
    While,
    Break,
    Continue,
    Pass,
    Return,
    Assert
  };

  Stmt(Kind kind, llvm::SMRange range) : kind(kind), range(range) {}
  virtual ~Stmt() = default;

  Kind getKind() const { return kind; }
  llvm::SMRange getRange() const { return range; }
  llvm::SMLoc getLoc() const { return range.Start; }

private:
  Kind kind;
  llvm::SMRange range;
};

using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

/// `target = value` or `a, b = value`. Targets are names; `targets.size() > 1`
/// means tuple unpacking.
class Assign : public Stmt {
public:
  Assign(llvm::SMRange r, std::vector<std::unique_ptr<Name>> targets,
         ExprPtr value)
      : Stmt(Kind::Assign, r), targets(std::move(targets)),
        value(std::move(value)) {}
  std::vector<std::unique_ptr<Name>> targets;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }
};

/// `target op= value`.
class AugAssign : public Stmt {
public:
  AugAssign(llvm::SMRange r, std::unique_ptr<Name> target, BinaryOp op,
            ExprPtr value)
      : Stmt(Kind::AugAssign, r), target(std::move(target)), op(op),
        value(std::move(value)) {}
  std::unique_ptr<Name> target;
  BinaryOp op;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::AugAssign; }
};

/// An expression evaluated for its effect (`store(...)`).
class ExprStmt : public Stmt {
public:
  ExprStmt(llvm::SMRange r, ExprPtr expr)
      : Stmt(Kind::ExprStmt, r), expr(std::move(expr)) {}
  ExprPtr expr;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ExprStmt; }
};

/// `if cond: then else: orelse`; `elif` is an If nested alone in `orelse`.
class If : public Stmt {
public:
  If(llvm::SMRange r, ExprPtr cond, Block thenBody, Block elseBody)
      : Stmt(Kind::If, r), cond(std::move(cond)), thenBody(std::move(thenBody)),
        elseBody(std::move(elseBody)) {}
  ExprPtr cond;
  Block thenBody;
  Block elseBody;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::If; }
};

/// `for var in iter: body`. The emitter accepts `range(stop)`,
/// `range(start, stop)` and `range(start, stop, step)` as `iter`.
class For : public Stmt {
public:
  For(llvm::SMRange r, std::unique_ptr<Name> var, ExprPtr iter, Block body)
      : Stmt(Kind::For, r), var(std::move(var)), iter(std::move(iter)),
        body(std::move(body)) {}
  std::unique_ptr<Name> var;
  ExprPtr iter;
  Block body;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::For; }
};

/// `while cond: body`: the condition is evaluated before each trip.
class While : public Stmt {
public:
  While(llvm::SMRange r, ExprPtr cond, Block body)
      : Stmt(Kind::While, r), cond(std::move(cond)), body(std::move(body)) {}
  ExprPtr cond;
  Block body;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::While; }
};

/// `break` and `continue`: the parser only accepts them inside a loop's body
/// (not in a function called from one).
class Break : public Stmt {
public:
  explicit Break(llvm::SMRange r) : Stmt(Kind::Break, r) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Break; }
};

class Continue : public Stmt {
public:
  explicit Continue(llvm::SMRange r) : Stmt(Kind::Continue, r) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Continue; }
};

class Pass : public Stmt {
public:
  explicit Pass(llvm::SMRange r) : Stmt(Kind::Pass, r) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Pass; }
};

/// `assert cond`: a condition on the kernel's constants, checked when the
/// kernel is compiled (an error where it is false); no code.
class Assert : public Stmt {
public:
  Assert(llvm::SMRange r, ExprPtr cond)
      : Stmt(Kind::Assert, r), cond(std::move(cond)) {}
  ExprPtr cond;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assert; }
};

/// `return [value]`: the last statement of a function's body; kernels
/// produce results only through `store`.
class Return : public Stmt {
public:
  Return(llvm::SMRange r, ExprPtr value)
      : Stmt(Kind::Return, r), value(std::move(value)) {}
  ExprPtr value; // null for a bare `return`
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Return; }
};

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

/// A kernel parameter: `name: Type`, or `name: const Type = default`.
/// The annotation is kept as an expression (`Tensor[f16, 4]`, `f32`,
/// `int`, `dtype`) and resolved by the emitter.
struct Param {
  std::string name;
  llvm::SMRange nameRange;
  bool isConst = false;
  ExprPtr type;         // never null
  ExprPtr defaultValue; // null when absent
};

/// A kernel's `@hints(name=value, ...)`: compile-time options that the
/// compiler takes unless the command line or the API gives them.
struct Hints {
  llvm::SMRange range; // the decorator; empty when there is none
  std::vector<Keyword> keywords;
};

struct Kernel {
  Hints hints;
  /// `@tune(NAME=(v1, v2, ...), ...)`: the values a tuner may try for the
  /// kernel's const parameters (the same shape as @hints).
  Hints tune;
  std::string name;
  llvm::SMRange nameRange;
  llvm::SMRange range; // the `kernel` keyword through the end of the body
  std::vector<Param> params;
  Block body;
};

/// A function's parameter: `name` or `name=default` (no annotation: a call
/// binds the caller's values as they are).
struct FuncParam {
  std::string name;
  llvm::SMRange nameRange;
  ExprPtr defaultValue; // null when absent
};

/// `def name(params): body`: a helper that kernels (and other functions)
/// call; each call is inlined with its arguments bound to the parameters,
/// in a scope of its own (the parameters and the module's constants and
/// functions). A `return` may end the body.
struct Function {
  std::string name;
  llvm::SMRange nameRange;
  llvm::SMRange range; // the `def` keyword through the end of the body
  std::vector<FuncParam> params;
  Block body;
};

/// A module-level `NAME = constant-expression`, visible to every kernel.
struct GlobalConst {
  std::string name;
  llvm::SMRange nameRange;
  ExprPtr value;
};

struct Module {
  std::vector<GlobalConst> globals;
  std::vector<Function> functions;
  std::vector<Kernel> kernels;
};

/// Prints the tree as an indented S-expression-like listing (`--emit=ast`).
void print(const Module &module, llvm::raw_ostream &os);

llvm::StringRef toString(BinaryOp op);
llvm::StringRef toString(UnaryOp op);
llvm::StringRef toString(CompareOp op);
llvm::StringRef toString(BoolOpKind op);

} // namespace tilec::ast

#endif // TILEC_FRONTEND_AST_H
