//===- AST.cpp - Printing the .tile abstract syntax tree ------------------===//
//
// `ast::print` writes the `--emit=ast` listing: a deterministic,
// S-expression-like dump indented by two spaces per level.
//
//   (module                              globals first, then functions,
//     (global NAME EXPR)                 then kernels, each in source
//     (def NAME                          order
//       (param NAME [(default EXPR)])
//       (body
//         STMT...))
//     (kernel NAME
//       (hints (kw NAME EXPR)...)        only with an @hints(...) decorator
//       (tune (kw NAME EXPR)...)         only with a @tune(...) decorator
//       (param NAME [const] TYPE [(default EXPR)])
//       (body
//         STMT...)))
//
// Statements take one line each; compound statements put their bodies on
// the following lines, one level deeper, and the closing parentheses go at
// the end of the last line:
//
//   (assign NAME... EXPR)                `a, b = v` is (assign a b V)
//   (augassign NAME OP EXPR)             (augassign x += (int 1))
//   (expr EXPR)
//   (pass)
//   (return) | (return EXPR)
//   (if COND                             an elif is an if alone in else
//     (then
//       STMT...)
//     (else                              only when the else branch exists
//       STMT...))
//   (for NAME ITER
//     STMT...)
//
// Expressions are printed on a single line:
//
//   (int 42)  (float 0.5)  (bool True)  (none)  (name x)
//   (tuple EXPR...)                      `()` is (tuple)
//   (unary OP EXPR)                      OP is - + ~ not
//   (binop OP LHS RHS)                   OP is + - * / // % ** & | ^ << >>
//   (boolop and|or LHS RHS)
//   (compare EXPR OP EXPR [OP EXPR]...)  a chain is one node
//   (call CALLEE ARG... (kw NAME EXPR)...)
//   (attr BASE NAME)
//   (subscript BASE INDEX...)
//   (slice LOWER UPPER STEP)             `_` for an absent part
//
// Floats use the shortest form that reads back to the same double and always
// contain a '.' or an exponent (`1.0`, `0.1`, `1e-05`, `inf`).
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/AST.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tilec;
using namespace tilec::ast;
using llvm::raw_ostream;
using llvm::StringRef;

StringRef ast::toString(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  }
  return "?";
}

StringRef ast::toString(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Not:
    return "not";
  case UnaryOp::Invert:
    return "~";
  }
  return "?";
}

StringRef ast::toString(CompareOp op) {
  switch (op) {
  case CompareOp::Lt:
    return "<";
  case CompareOp::Le:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::Ge:
    return ">=";
  case CompareOp::Eq:
    return "==";
  case CompareOp::Ne:
    return "!=";
  }
  return "?";
}

StringRef ast::toString(BoolOpKind op) {
  return op == BoolOpKind::And ? "and" : "or";
}

/// The shortest decimal form of `value` that reads back as the same double,
/// in fixed notation for exponents in [-4, 16) as Python's repr does.
static std::string formatFloat(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buf[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, value);
  int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent >= -4 && exponent < 16)
    std::snprintf(buf, sizeof(buf), "%.*f", std::max(digits - 1 - exponent, 0),
                  value);
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

namespace {

class Printer {
public:
  explicit Printer(raw_ostream &os) : os(os) {}

  void printModule(const Module &module);

private:
  void newline() { os << '\n' << std::string(2 * indent, ' '); }
  void printKernel(const Kernel &kernel);
  void printFunction(const Function &function);
  void printParam(const Param &param);
  void printBlock(const Block &block);
  void printStmt(const Stmt &stmt);
  void printExpr(const Expr *expr);

  raw_ostream &os;
  unsigned indent = 0;
};

} // namespace

void Printer::printModule(const Module &module) {
  os << "(module";
  ++indent;
  for (const GlobalConst &global : module.globals) {
    newline();
    os << "(global " << global.name << ' ';
    printExpr(global.value.get());
    os << ')';
  }
  for (const Function &function : module.functions)
    printFunction(function);
  for (const Kernel &kernel : module.kernels)
    printKernel(kernel);
  --indent;
  os << ")\n";
}

void Printer::printFunction(const Function &function) {
  newline();
  os << "(def " << function.name;
  ++indent;
  for (const FuncParam &param : function.params) {
    newline();
    os << "(param " << param.name;
    if (param.defaultValue) {
      os << " (default ";
      printExpr(param.defaultValue.get());
      os << ')';
    }
    os << ')';
  }
  newline();
  os << "(body";
  printBlock(function.body);
  os << "))";
  --indent;
}

void Printer::printKernel(const Kernel &kernel) {
  newline();
  os << "(kernel " << kernel.name;
  ++indent;
  if (kernel.hints.range.isValid()) {
    newline();
    os << "(hints";
    for (const Keyword &kw : kernel.hints.keywords) {
      os << " (kw " << kw.name << ' ';
      printExpr(kw.value.get());
      os << ')';
    }
    os << ')';
  }
  if (kernel.tune.range.isValid()) {
    newline();
    os << "(tune";
    for (const Keyword &kw : kernel.tune.keywords) {
      os << " (kw " << kw.name << ' ';
      printExpr(kw.value.get());
      os << ')';
    }
    os << ')';
  }
  for (const Param &param : kernel.params)
    printParam(param);
  newline();
  os << "(body";
  printBlock(kernel.body);
  os << "))";
  --indent;
}

void Printer::printParam(const Param &param) {
  newline();
  os << "(param " << param.name << ' ';
  if (param.isConst)
    os << "const ";
  printExpr(param.type.get());
  if (param.defaultValue) {
    os << " (default ";
    printExpr(param.defaultValue.get());
    os << ')';
  }
  os << ')';
}

/// Prints the statements one level deeper, each on its own line.
void Printer::printBlock(const Block &block) {
  ++indent;
  for (const StmtPtr &stmt : block)
    printStmt(*stmt);
  --indent;
}

void Printer::printStmt(const Stmt &stmt) {
  newline();
  switch (stmt.getKind()) {
  case Stmt::Kind::Assign: {
    const auto &assign = llvm::cast<Assign>(stmt);
    os << "(assign";
    for (const auto &target : assign.targets)
      os << ' ' << target->id;
    os << ' ';
    printExpr(assign.value.get());
    os << ')';
    return;
  }
  case Stmt::Kind::AugAssign: {
    const auto &aug = llvm::cast<AugAssign>(stmt);
    os << "(augassign " << aug.target->id << ' ' << toString(aug.op) << "= ";
    printExpr(aug.value.get());
    os << ')';
    return;
  }
  case Stmt::Kind::ExprStmt:
    os << "(expr ";
    printExpr(llvm::cast<ExprStmt>(stmt).expr.get());
    os << ')';
    return;
  case Stmt::Kind::Pass:
    os << "(pass)";
    return;
  case Stmt::Kind::Assert:
    os << "(assert ";
    printExpr(llvm::cast<Assert>(stmt).cond.get());
    os << ')';
    return;
  case Stmt::Kind::Break:
    os << "(break)";
    return;
  case Stmt::Kind::Continue:
    os << "(continue)";
    return;
  case Stmt::Kind::Return: {
    const auto &ret = llvm::cast<Return>(stmt);
    os << "(return";
    if (ret.value) {
      os << ' ';
      printExpr(ret.value.get());
    }
    os << ')';
    return;
  }
  case Stmt::Kind::If: {
    const auto &ifStmt = llvm::cast<If>(stmt);
    os << "(if ";
    printExpr(ifStmt.cond.get());
    ++indent;
    newline();
    os << "(then";
    printBlock(ifStmt.thenBody);
    os << ')';
    if (!ifStmt.elseBody.empty()) {
      newline();
      os << "(else";
      printBlock(ifStmt.elseBody);
      os << ')';
    }
    --indent;
    os << ')';
    return;
  }
  case Stmt::Kind::For: {
    const auto &forStmt = llvm::cast<For>(stmt);
    os << "(for " << forStmt.var->id << ' ';
    printExpr(forStmt.iter.get());
    printBlock(forStmt.body);
    os << ')';
    return;
  }
  case Stmt::Kind::While: {
    const auto &whileStmt = llvm::cast<While>(stmt);
    os << "(while ";
    printExpr(whileStmt.cond.get());
    printBlock(whileStmt.body);
    os << ')';
    return;
  }
  }
}

void Printer::printExpr(const Expr *expr) {
  if (!expr) {
    os << "_";
    return;
  }
  switch (expr->getKind()) {
  case Expr::Kind::IntLit:
    os << "(int " << llvm::cast<IntLit>(expr)->value << ')';
    return;
  case Expr::Kind::FloatLit:
    os << "(float " << formatFloat(llvm::cast<FloatLit>(expr)->value) << ')';
    return;
  case Expr::Kind::BoolLit:
    os << "(bool " << (llvm::cast<BoolLit>(expr)->value ? "True" : "False")
       << ')';
    return;
  case Expr::Kind::NoneLit:
    os << "(none)";
    return;
  case Expr::Kind::Name:
    os << "(name " << llvm::cast<Name>(expr)->id << ')';
    return;
  case Expr::Kind::Tuple:
    os << "(tuple";
    for (const ExprPtr &elt : llvm::cast<Tuple>(expr)->elts) {
      os << ' ';
      printExpr(elt.get());
    }
    os << ')';
    return;
  case Expr::Kind::Unary: {
    const auto *unary = llvm::cast<Unary>(expr);
    os << "(unary " << toString(unary->op) << ' ';
    printExpr(unary->operand.get());
    os << ')';
    return;
  }
  case Expr::Kind::Binary: {
    const auto *binary = llvm::cast<Binary>(expr);
    os << "(binop " << toString(binary->op) << ' ';
    printExpr(binary->lhs.get());
    os << ' ';
    printExpr(binary->rhs.get());
    os << ')';
    return;
  }
  case Expr::Kind::BoolOp: {
    const auto *boolOp = llvm::cast<BoolOp>(expr);
    os << "(boolop " << toString(boolOp->op) << ' ';
    printExpr(boolOp->lhs.get());
    os << ' ';
    printExpr(boolOp->rhs.get());
    os << ')';
    return;
  }
  case Expr::Kind::IfExp: {
    const auto *ifExp = llvm::cast<IfExp>(expr);
    os << "(ifexp ";
    printExpr(ifExp->test.get());
    os << ' ';
    printExpr(ifExp->body.get());
    os << ' ';
    printExpr(ifExp->orelse.get());
    os << ')';
    return;
  }
  case Expr::Kind::Compare: {
    const auto *compare = llvm::cast<Compare>(expr);
    os << "(compare ";
    for (size_t i = 0, e = compare->operands.size(); i != e; ++i) {
      if (i != 0 && i - 1 < compare->ops.size())
        os << ' ' << toString(compare->ops[i - 1]) << ' ';
      printExpr(compare->operands[i].get());
    }
    os << ')';
    return;
  }
  case Expr::Kind::Call: {
    const auto *call = llvm::cast<Call>(expr);
    os << "(call ";
    printExpr(call->callee.get());
    for (const ExprPtr &arg : call->args) {
      os << ' ';
      printExpr(arg.get());
    }
    for (const Keyword &kw : call->keywords) {
      os << " (kw " << kw.name << ' ';
      printExpr(kw.value.get());
      os << ')';
    }
    os << ')';
    return;
  }
  case Expr::Kind::Attribute: {
    const auto *attr = llvm::cast<Attribute>(expr);
    os << "(attr ";
    printExpr(attr->base.get());
    os << ' ' << attr->attr << ')';
    return;
  }
  case Expr::Kind::Subscript: {
    const auto *subscript = llvm::cast<Subscript>(expr);
    os << "(subscript ";
    printExpr(subscript->base.get());
    for (const ExprPtr &index : subscript->indices) {
      os << ' ';
      printExpr(index.get());
    }
    os << ')';
    return;
  }
  case Expr::Kind::Slice: {
    const auto *slice = llvm::cast<Slice>(expr);
    os << "(slice ";
    printExpr(slice->lower.get());
    os << ' ';
    printExpr(slice->upper.get());
    os << ' ';
    printExpr(slice->step.get());
    os << ')';
    return;
  }
  }
}

void ast::print(const Module &module, raw_ostream &os) {
  Printer(os).printModule(module);
}
