//===- Parser.cpp - Parser of the .tile language --------------------------===//
//
// Recursive descent over the token stream of Lexer.h, with one token of
// lookahead. The grammar is Python's, restricted to what kernels need:
//
//   module      := (NEWLINE | global | kernel)* EOF
//   global      := NAME '=' exprlist NEWLINE
//   kernel      := 'kernel' NAME '(' [param (',' param)* [',']] ')' ':' suite
//   param       := NAME ':' ['const'] expr ['=' expr]
//   suite       := NEWLINE INDENT stmt+ DEDENT | simple_stmt NEWLINE
//   stmt        := simple_stmt NEWLINE | if_stmt | for_stmt
//   simple_stmt := 'pass' | 'return' [exprlist] | NAME (',' NAME)* '=' exprlist
//                | NAME augop expr | expr
//   if_stmt     := 'if' expr ':' suite ('elif' expr ':' suite)*
//                  ['else' ':' suite]
//   for_stmt    := 'for' NAME 'in' expr ':' suite
//   exprlist    := expr (',' expr)* [',']        (several make a Tuple)
//
// and the expression grammar of Python from `or` down to atoms (see the
// parse functions). `exprlist` lets `a, b = b, a` mean `a, b = (b, a)`.
//
// Two limits make every input safe to parse and to walk afterwards:
//  - `nesting` counts the parser's own recursion: brackets, calls,
//    subscripts, unary operators, `**`, `not`, nested blocks and elif chains
//    (an elif is an If inside the previous else branch). Past kMaxNesting
//    levels the parser reports "nesting too deep" and recovers.
//  - PExpr carries the height of each expression tree. Chains such as
//    `a + b + c ...` or `x.f().g()...` are parsed by loops, not recursion, but
//    still build trees as tall as the chain is long; every later pass (the
//    printer, the emitter, even the destructors) walks trees recursively, so
//    the parser rejects trees taller than kMaxNesting too.
//
// Error recovery: a parse function that fails reports one error (none when
// the lexer already reported the offending Error token) and returns null.
// The statement loop then skips to the next logical line and, when the
// broken statement opened an indented block, skips that block as well.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

#include "Lexer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <optional>

using namespace tilec;
using namespace tilec::ast;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace {

constexpr unsigned kMaxNesting = 256;

/// A parsed expression and the height of its tree (a leaf has height 1).
struct PExpr {
  ExprPtr node;
  unsigned height = 0;

  explicit operator bool() const { return node != nullptr; }
};

std::optional<BinaryOp> getAugmentedOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::PlusEqual:
    return BinaryOp::Add;
  case TokenKind::MinusEqual:
    return BinaryOp::Sub;
  case TokenKind::StarEqual:
    return BinaryOp::Mul;
  case TokenKind::SlashEqual:
    return BinaryOp::Div;
  case TokenKind::SlashSlashEqual:
    return BinaryOp::FloorDiv;
  case TokenKind::PercentEqual:
    return BinaryOp::Mod;
  case TokenKind::AmpEqual:
    return BinaryOp::BitAnd;
  case TokenKind::PipeEqual:
    return BinaryOp::BitOr;
  case TokenKind::CaretEqual:
    return BinaryOp::BitXor;
  case TokenKind::LessLessEqual:
    return BinaryOp::Shl;
  case TokenKind::GreaterGreaterEqual:
    return BinaryOp::Shr;
  case TokenKind::StarStarEqual:
    return BinaryOp::Pow;
  default:
    return std::nullopt;
  }
}

/// Precedence of the left-associative binary operators between comparisons
/// and unary operators, from `|` (1) to `*` (6); 0 for any other token.
unsigned getBinaryPrecedence(TokenKind kind, BinaryOp &op) {
  switch (kind) {
  case TokenKind::Pipe:
    op = BinaryOp::BitOr;
    return 1;
  case TokenKind::Caret:
    op = BinaryOp::BitXor;
    return 2;
  case TokenKind::Amp:
    op = BinaryOp::BitAnd;
    return 3;
  case TokenKind::LessLess:
    op = BinaryOp::Shl;
    return 4;
  case TokenKind::GreaterGreater:
    op = BinaryOp::Shr;
    return 4;
  case TokenKind::Plus:
    op = BinaryOp::Add;
    return 5;
  case TokenKind::Minus:
    op = BinaryOp::Sub;
    return 5;
  case TokenKind::Star:
    op = BinaryOp::Mul;
    return 6;
  case TokenKind::Slash:
    op = BinaryOp::Div;
    return 6;
  case TokenKind::SlashSlash:
    op = BinaryOp::FloorDiv;
    return 6;
  case TokenKind::Percent:
    op = BinaryOp::Mod;
    return 6;
  default:
    return 0;
  }
}

std::optional<CompareOp> getCompareOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::Less:
    return CompareOp::Lt;
  case TokenKind::LessEqual:
    return CompareOp::Le;
  case TokenKind::Greater:
    return CompareOp::Gt;
  case TokenKind::GreaterEqual:
    return CompareOp::Ge;
  case TokenKind::EqualEqual:
    return CompareOp::Eq;
  case TokenKind::NotEqual:
    return CompareOp::Ne;
  default:
    return std::nullopt;
  }
}

std::optional<UnaryOp> getUnaryOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::Minus:
    return UnaryOp::Neg;
  case TokenKind::Plus:
    return UnaryOp::Pos;
  case TokenKind::Tilde:
    return UnaryOp::Invert;
  default:
    return std::nullopt;
  }
}

bool canStartExpression(TokenKind kind) {
  switch (kind) {
  case TokenKind::Name:
  case TokenKind::Int:
  case TokenKind::Float:
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
  case TokenKind::KwNone:
  case TokenKind::KwNot:
  case TokenKind::LParen:
  case TokenKind::Minus:
  case TokenKind::Plus:
  case TokenKind::Tilde:
    return true;
  default:
    return false;
  }
}

/// The error for `target = ...` when the target is not a name.
StringRef getBadTargetMessage(const Expr &target) {
  switch (target.getKind()) {
  case Expr::Kind::Call:
    return "cannot assign to a call";
  case Expr::Kind::Attribute:
    return "cannot assign to an attribute";
  case Expr::Kind::Subscript:
    return "cannot assign to a subscript";
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::BoolLit:
  case Expr::Kind::NoneLit:
    return "cannot assign to a literal";
  case Expr::Kind::Tuple:
    return "cannot assign to a parenthesized tuple; write 'a, b = ...'";
  case Expr::Kind::Compare:
    return "cannot assign to a comparison";
  default:
    return "cannot assign to an expression";
  }
}

class Parser {
public:
  Parser(StringRef buffer, DiagnosticEngine &diag)
      : lexer(buffer, diag), diag(diag), bufferEnd(buffer.end()) {
    tok = lexer.next();
  }

  std::unique_ptr<Module> parseModule();

private:
  /// Counts one level of recursion for its lifetime; converts to false (after
  /// reporting) when that exceeds the limit.
  class NestingScope {
  public:
    explicit NestingScope(Parser &parser)
        : parser(parser), ok(++parser.nesting <= kMaxNesting) {
      if (!ok)
        parser.reportTooDeep();
    }
    ~NestingScope() { --parser.nesting; }
    explicit operator bool() const { return ok; }

  private:
    Parser &parser;
    bool ok;
  };

  // Tokens.
  bool at(TokenKind kind) const { return tok.kind == kind; }
  void consume();
  bool consumeIf(TokenKind kind);
  SMRange rangeFrom(SMLoc start) const {
    return {start, SMLoc::getFromPointer(prevEnd)};
  }

  // Diagnostics.
  SMLoc getErrorLoc() const;
  bool errorAtToken(const Twine &msg);
  bool errorExpected(const Twine &what);
  void reportTooDeep();
  void noteOpening(SMLoc open);

  // Recovery.
  void skipToNextLine();
  void skipBlock();
  void skipLineAndBlock();

  // Top level.
  void parseGlobal(Module &module);
  void parseHints(Module &module);
  void parseKernel(Module &module, Hints hints = {}, Hints tune = {});
  void parseFunction(Module &module);
  bool parseParamList(
      StringRef owner,
      llvm::function_ref<std::optional<std::string>(llvm::StringMap<SMLoc> &)>
          parseOne);
  bool parseParamName(StringRef owner, llvm::StringMap<SMLoc> &seen,
                      std::string &name, SMRange &range);
  bool parseFuncParams(Function &function);
  bool parseParams(Kernel &kernel);
  bool parseParam(Kernel &kernel, llvm::StringMap<SMLoc> &seen);

  // Statements.
  void parseSuite(Block &body, StringRef owner);
  void parseBlock(Block &body);
  StmtPtr parseStatement();
  StmtPtr parseSimpleLine();
  StmtPtr parseSimpleStatement();
  StmtPtr parseAssign(SMLoc start, PExpr first);
  StmtPtr parseAugAssign(SMLoc start, PExpr target, BinaryOp op);
  StmtPtr parseIf();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  /// Parses a loop's body (after its ':'), where break and continue are
  /// allowed.
  void parseLoopBody(Block &body, StringRef owner);
  bool endStatement();

  // Expressions.
  PExpr finish(ExprPtr node, unsigned childHeight, SMLoc loc);
  PExpr parseExprList();
  PExpr parseExpr();
  PExpr parseBoolOp(BoolOpKind kind);
  PExpr parseNot();
  PExpr parseComparison();
  PExpr parseBinary(unsigned minPrecedence);
  PExpr parseFactor();
  PExpr parsePower();
  PExpr parsePrimary();
  PExpr parseCall(PExpr callee, SMLoc start);
  bool parseArgument(std::vector<ExprPtr> &args, std::vector<Keyword> &keywords,
                     llvm::StringSet<> &seenKeywords, unsigned &height);
  PExpr parseSubscript(PExpr base, SMLoc start);
  PExpr parseSubscriptItem();
  PExpr parseAttribute(PExpr base, SMLoc start);
  PExpr parseAtom();
  PExpr parseParenthesized();

  Lexer lexer;
  DiagnosticEngine &diag;
  const char *bufferEnd;
  Token tok;
  /// End of the last consumed token that has text: node ranges end there.
  const char *prevEnd = nullptr;
  unsigned nesting = 0;
  /// The loops around the statement being parsed, in the kernel or function
  /// being parsed (a function called in a loop is not in it).
  unsigned loopDepth = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Tokens, diagnostics, recovery
//===----------------------------------------------------------------------===//

void Parser::consume() {
  // NEWLINE and the zero-width INDENT/DEDENT/EOF are not part of any node.
  if (!at(TokenKind::Newline) && !at(TokenKind::Indent) &&
      !at(TokenKind::Dedent) && !at(TokenKind::Eof))
    prevEnd = tok.text.end();
  tok = lexer.next();
}

bool Parser::consumeIf(TokenKind kind) {
  if (!at(kind))
    return false;
  consume();
  return true;
}

/// Where to report a problem with the current token. A missing piece at the
/// end of a line is reported right after the last token, not after a
/// trailing comment.
SMLoc Parser::getErrorLoc() const {
  // The DEDENTs that close the blocks at the end of the file sit past the
  // last line, like EOF.
  bool atEndOfLine = at(TokenKind::Newline) || at(TokenKind::Eof) ||
                     (at(TokenKind::Dedent) && tok.text.data() == bufferEnd);
  if (atEndOfLine && prevEnd)
    return SMLoc::getFromPointer(prevEnd);
  return tok.getLoc();
}

/// Reports `msg` at the current token, unless the lexer already reported
/// that token as malformed. Returns whether an error was reported.
bool Parser::errorAtToken(const Twine &msg) {
  if (at(TokenKind::Error))
    return false;
  diag.error(getErrorLoc(), msg);
  return true;
}

bool Parser::errorExpected(const Twine &what) {
  return errorAtToken("expected " + what + ", found " + describeToken(tok));
}

void Parser::reportTooDeep() {
  errorAtToken("nesting too deep (limit " + Twine(kMaxNesting) + ")");
}

void Parser::noteOpening(SMLoc open) {
  diag.note(open, "to match this '" + StringRef(open.getPointer(), 1) + "'");
}

/// Skips the rest of the logical line (the lexer has already balanced the
/// brackets) and the indented block that follows it, if any: after an error
/// in a statement header, its body would only produce more errors.
void Parser::skipToNextLine() {
  while (!at(TokenKind::Newline) && !at(TokenKind::Eof) &&
         !at(TokenKind::Indent) && !at(TokenKind::Dedent))
    consume();
  consumeIf(TokenKind::Newline);
  if (at(TokenKind::Indent))
    skipBlock();
}

/// Skips an indented block, from its INDENT through the matching DEDENT,
/// without recursion so that any depth of blocks is safe.
void Parser::skipBlock() {
  unsigned depth = 0;
  do {
    if (at(TokenKind::Indent))
      ++depth;
    else if (at(TokenKind::Dedent))
      --depth;
    consume();
  } while (depth != 0 && !at(TokenKind::Eof));
}

/// Skips a malformed header line and the indented block after it, if any
/// (its body), with no further errors.
void Parser::skipLineAndBlock() {
  skipToNextLine();
  if (at(TokenKind::Indent))
    skipBlock();
}

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  while (!at(TokenKind::Eof)) {
    switch (tok.kind) {
    case TokenKind::KwKernel:
      parseKernel(*module);
      break;
    case TokenKind::KwDef:
      parseFunction(*module);
      break;
    case TokenKind::At:
      parseHints(*module);
      break;
    case TokenKind::Name:
      parseGlobal(*module);
      break;
    case TokenKind::Newline:
    case TokenKind::Dedent:
      consume(); // defensive: the lexer does not produce these here
      break;
    case TokenKind::Indent:
      errorAtToken("unexpected indent");
      skipBlock();
      break;
    default:
      errorExpected("'kernel', 'def' or a constant 'NAME = value' at the "
                    "top level");
      skipToNextLine();
      break;
    }
  }
  return module;
}

void Parser::parseGlobal(Module &module) {
  GlobalConst global;
  global.name = tok.text.str();
  global.nameRange = tok.getRange();
  consume();
  if (!at(TokenKind::Equal)) {
    errorAtToken("expected '=' after '" + global.name +
                 "': the top level holds only kernels, functions ('def') "
                 "and constants 'NAME = value'");
    skipToNextLine();
    return;
  }
  consume();
  PExpr value = parseExprList();
  if (!value || !endStatement()) {
    skipToNextLine();
    return;
  }
  global.value = std::move(value.node);
  module.globals.push_back(std::move(global));
}

/// `@hints(name=value, ...)` and `@tune(NAME=(values), ...)` on the lines
/// before a kernel, in either order: its compile-time options and the
/// values a tuner may try for its constants (evaluated by the emitter). A
/// malformed decorator is reported and the kernel after it is still parsed,
/// without it.
void Parser::parseHints(Module &module) {
  Hints hints, tune;
  while (at(TokenKind::At)) {
    SMLoc start = tok.getLoc();
    consume(); // '@'
    bool ok = false;
    if (PExpr e = parseExpr()) {
      auto *call = llvm::dyn_cast<Call>(e.node.get());
      auto *callee = call ? llvm::dyn_cast<Name>(call->callee.get()) : nullptr;
      llvm::StringRef name = callee ? llvm::StringRef(callee->id) : "";
      Hints *into = name == "hints" ? &hints : name == "tune" ? &tune : nullptr;
      if (!into) {
        diag.error(start, "unknown decorator: a kernel takes "
                          "'@hints(name=value, ...)' and "
                          "'@tune(NAME=(value, ...), ...)'");
      } else if (into->range.isValid()) {
        diag.error(start, "@" + name.str() + " is given twice");
      } else if (!call->args.empty()) {
        diag.error(call->args.front()->getLoc(),
                   "@" + name.str() +
                       " takes keyword arguments only (name=value)");
      } else {
        into->range = rangeFrom(start);
        into->keywords = std::move(call->keywords);
        ok = consumeIf(TokenKind::Newline);
        if (!ok)
          errorExpected("end of line after @" + name.str() + "(...)");
      }
    }
    if (!ok)
      skipToNextLine();
    consumeIf(TokenKind::Newline);
  }
  if (!at(TokenKind::KwKernel)) {
    errorExpected("'kernel' on the line after a decorator");
    return;
  }
  parseKernel(module, std::move(hints), std::move(tune));
}

void Parser::parseKernel(Module &module, Hints hints, Hints tune) {
  Kernel kernel;
  kernel.hints = std::move(hints);
  kernel.tune = std::move(tune);
  SMLoc start = tok.getLoc();
  consume(); // 'kernel'
  if (!at(TokenKind::Name)) {
    errorExpected("a kernel name after 'kernel'");
    skipToNextLine();
    return;
  }
  kernel.name = tok.text.str();
  kernel.nameRange = tok.getRange();
  consume();
  if (!parseParams(kernel)) {
    skipToNextLine();
    return;
  }
  if (!at(TokenKind::Colon)) {
    errorAtToken("expected ':' after the kernel parameter list");
    skipToNextLine();
    return;
  }
  consume();
  {
    NestingScope scope(*this); // the body is the first level of blocks
    parseSuite(kernel.body, "the kernel signature");
  }
  kernel.range = rangeFrom(start);
  module.kernels.push_back(std::move(kernel));
}

/// `def name(a, b=default, ...): body`.
void Parser::parseFunction(Module &module) {
  Function function;
  SMLoc start = tok.getLoc();
  consume(); // 'def'
  if (!at(TokenKind::Name)) {
    errorExpected("a function name after 'def'");
    skipLineAndBlock();
    return;
  }
  function.name = tok.text.str();
  function.nameRange = tok.getRange();
  consume();
  bool ok = parseFuncParams(function);
  if (ok && !at(TokenKind::Colon)) {
    errorAtToken("expected ':' after the function's parameter list (a "
                 "function takes no return annotation)");
    ok = false;
  }
  if (!ok) {
    skipLineAndBlock();
    return;
  }
  consume();
  {
    NestingScope scope(*this);
    parseSuite(function.body, "the function signature");
  }
  function.range = rangeFrom(start);
  module.functions.push_back(std::move(function));
}

/// `(param, ...)` after a kernel's or a function's name (`owner`):
/// `parseOne` parses one parameter and gives its name (nullopt after an
/// error).
bool Parser::parseParamList(
    StringRef owner,
    llvm::function_ref<std::optional<std::string>(llvm::StringMap<SMLoc> &)>
        parseOne) {
  if (!at(TokenKind::LParen)) {
    errorExpected("'(' after the " + owner + " name");
    return false;
  }
  SMLoc open = tok.getLoc();
  consume();
  llvm::StringMap<SMLoc> seen;
  while (!at(TokenKind::RParen)) {
    std::optional<std::string> name = parseOne(seen);
    if (!name)
      return false;
    if (consumeIf(TokenKind::Comma))
      continue;
    if (!at(TokenKind::RParen)) {
      if (errorExpected("',' or ')' after parameter '" + *name + "'"))
        noteOpening(open);
      return false;
    }
  }
  consume();
  return true;
}

/// A parameter's name, checked against the signature's others (a
/// duplicate is reported, not fatal: the rest of the header is still
/// checked).
bool Parser::parseParamName(StringRef owner, llvm::StringMap<SMLoc> &seen,
                            std::string &name, SMRange &range) {
  if (!at(TokenKind::Name)) {
    errorExpected("a parameter name");
    return false;
  }
  name = tok.text.str();
  range = tok.getRange();
  consume();
  auto [it, inserted] = seen.try_emplace(name, range.Start);
  if (!inserted) {
    diag.error(range.Start, "duplicate parameter '" + name + "' in the " +
                                owner + " signature");
    diag.note(it->second, "'" + name + "' was first declared here");
  }
  return true;
}

bool Parser::parseFuncParams(Function &function) {
  return parseParamList(
      "function",
      [&](llvm::StringMap<SMLoc> &seen) -> std::optional<std::string> {
        FuncParam param;
        if (!parseParamName("function", seen, param.name, param.nameRange))
          return std::nullopt;
        if (at(TokenKind::Colon)) {
          errorAtToken("a function's parameters take no type: each call "
                       "binds the caller's values as they are");
          return std::nullopt;
        }
        if (consumeIf(TokenKind::Equal)) {
          PExpr value = parseExpr();
          if (!value)
            return std::nullopt;
          param.defaultValue = std::move(value.node);
        } else if (!function.params.empty() &&
                   function.params.back().defaultValue) {
          diag.error(param.nameRange.Start,
                     "parameter '" + param.name +
                         "' without a default follows one with a default");
        }
        function.params.push_back(std::move(param));
        return function.params.back().name;
      });
}

bool Parser::parseParams(Kernel &kernel) {
  return parseParamList(
      "kernel",
      [&](llvm::StringMap<SMLoc> &seen) -> std::optional<std::string> {
        if (!parseParam(kernel, seen))
          return std::nullopt;
        return kernel.params.back().name;
      });
}

bool Parser::parseParam(Kernel &kernel, llvm::StringMap<SMLoc> &seen) {
  Param param;
  if (!parseParamName("kernel", seen, param.name, param.nameRange))
    return false;
  if (!at(TokenKind::Colon)) {
    errorAtToken("expected ':' and a type after parameter '" + param.name +
                 "'");
    return false;
  }
  consume();
  param.isConst = consumeIf(TokenKind::KwConst);
  PExpr type = parseExpr();
  if (!type)
    return false;
  param.type = std::move(type.node);
  if (consumeIf(TokenKind::Equal)) {
    PExpr value = parseExpr();
    if (!value)
      return false;
    param.defaultValue = std::move(value.node);
  }
  kernel.params.push_back(std::move(param));
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// Parses the body after a ':'. `owner` names the statement in messages.
void Parser::parseSuite(Block &body, StringRef owner) {
  if (!at(TokenKind::Newline)) {
    // `if c: x = 1`: one simple statement on the same line.
    if (at(TokenKind::KwIf) || at(TokenKind::KwFor) || at(TokenKind::KwWhile)) {
      errorAtToken("'" + getTokenSpelling(tok.kind) +
                   "' cannot follow ':' on the same line; start an indented "
                   "block");
      skipToNextLine();
      return;
    }
    if (StmtPtr stmt = parseSimpleLine())
      body.push_back(std::move(stmt));
    return;
  }
  consume();
  if (!at(TokenKind::Indent)) {
    // The body stays empty; the next line is parsed as the next statement of
    // the enclosing block.
    errorAtToken("expected an indented block after " + owner);
    return;
  }
  consume();
  parseBlock(body);
}

/// Parses statements up to and including the DEDENT that ends the block.
void Parser::parseBlock(Block &body) {
  while (!at(TokenKind::Dedent) && !at(TokenKind::Eof)) {
    if (consumeIf(TokenKind::Newline))
      continue; // an empty logical line such as a lone `\`
    if (at(TokenKind::Indent)) {
      errorAtToken("unexpected indent");
      skipBlock();
      continue;
    }
    if (StmtPtr stmt = parseStatement())
      body.push_back(std::move(stmt));
  }
  consumeIf(TokenKind::Dedent);
}

/// Parses one statement; on error, reports it, skips past the statement and
/// returns null.
StmtPtr Parser::parseStatement() {
  switch (tok.kind) {
  case TokenKind::KwIf:
  case TokenKind::KwFor:
  case TokenKind::KwWhile: {
    NestingScope scope(*this);
    StmtPtr stmt;
    if (scope)
      stmt = at(TokenKind::KwIf)    ? parseIf()
             : at(TokenKind::KwFor) ? parseFor()
                                    : parseWhile();
    if (!stmt)
      skipToNextLine();
    return stmt;
  }
  case TokenKind::KwElif:
  case TokenKind::KwElse:
    errorAtToken("'" + getTokenSpelling(tok.kind) +
                 "' without a matching 'if'");
    skipToNextLine();
    return nullptr;
  case TokenKind::KwKernel:
    errorAtToken("kernels cannot be nested; 'kernel' must start at the top "
                 "level");
    skipToNextLine();
    return nullptr;
  case TokenKind::KwDef:
    errorAtToken("functions cannot be nested; 'def' must start at the top "
                 "level");
    skipLineAndBlock();
    return nullptr;
  default:
    return parseSimpleLine();
  }
}

/// A simple statement and the NEWLINE that ends it.
StmtPtr Parser::parseSimpleLine() {
  StmtPtr stmt = parseSimpleStatement();
  if (stmt && !endStatement())
    stmt = nullptr;
  if (!stmt)
    skipToNextLine();
  return stmt;
}

bool Parser::endStatement() {
  // EOF without NEWLINE only happens once the lexer stopped on errors.
  if (consumeIf(TokenKind::Newline) || at(TokenKind::Eof))
    return true;
  errorExpected("end of line after the statement");
  return false;
}

StmtPtr Parser::parseSimpleStatement() {
  SMLoc start = tok.getLoc();
  if (consumeIf(TokenKind::KwPass))
    return std::make_unique<Pass>(rangeFrom(start));
  if (at(TokenKind::KwBreak) || at(TokenKind::KwContinue)) {
    bool isBreak = at(TokenKind::KwBreak);
    if (loopDepth == 0) {
      errorAtToken("'" + getTokenSpelling(tok.kind) + "' outside a loop");
      return nullptr;
    }
    consume();
    if (isBreak)
      return std::make_unique<Break>(rangeFrom(start));
    return std::make_unique<Continue>(rangeFrom(start));
  }
  if (consumeIf(TokenKind::KwAssert)) {
    PExpr cond = parseExpr();
    if (!cond)
      return nullptr;
    if (at(TokenKind::Comma)) {
      errorAtToken("assert takes no message in .tile kernels: where its "
                   "condition is false, the error shows the assert's line");
      return nullptr;
    }
    return std::make_unique<Assert>(rangeFrom(start), std::move(cond.node));
  }
  if (consumeIf(TokenKind::KwReturn)) {
    PExpr value;
    if (!at(TokenKind::Newline) && !at(TokenKind::Eof)) {
      value = parseExprList();
      if (!value)
        return nullptr;
    }
    return std::make_unique<Return>(rangeFrom(start), std::move(value.node));
  }
  PExpr first = parseExpr();
  if (!first)
    return nullptr;
  if (at(TokenKind::Comma) || at(TokenKind::Equal))
    return parseAssign(start, std::move(first));
  if (std::optional<BinaryOp> op = getAugmentedOp(tok.kind))
    return parseAugAssign(start, std::move(first), *op);
  return std::make_unique<ExprStmt>(rangeFrom(start), std::move(first.node));
}

/// `a = value` or `a, b = value`; `first` is the first target.
StmtPtr Parser::parseAssign(SMLoc start, PExpr first) {
  std::vector<ExprPtr> targets;
  targets.push_back(std::move(first.node));
  while (consumeIf(TokenKind::Comma)) {
    if (at(TokenKind::Equal))
      break; // `a, = value` unpacks a one-element tuple
    PExpr target = parseExpr();
    if (!target)
      return nullptr;
    targets.push_back(std::move(target.node));
  }
  if (!at(TokenKind::Equal)) {
    if (getAugmentedOp(tok.kind)) {
      StringRef text(start.getPointer(), prevEnd - start.getPointer());
      diag.error(start, quoteSource(text) +
                            " is not a valid augmented-assignment target");
      return nullptr;
    }
    errorExpected("'=' after the assignment targets");
    return nullptr;
  }
  consume();

  std::vector<std::unique_ptr<Name>> names;
  for (ExprPtr &target : targets) {
    if (!llvm::isa<Name>(target.get())) {
      diag.error(target->getLoc(), getBadTargetMessage(*target));
      return nullptr;
    }
    names.emplace_back(llvm::cast<Name>(target.release()));
  }
  PExpr value = parseExprList();
  if (!value)
    return nullptr;
  if (at(TokenKind::Equal)) {
    errorAtToken("chained assignment 'a = b = value' is not supported");
    return nullptr;
  }
  return std::make_unique<Assign>(rangeFrom(start), std::move(names),
                                  std::move(value.node));
}

StmtPtr Parser::parseAugAssign(SMLoc start, PExpr target, BinaryOp op) {
  if (!llvm::isa<Name>(target.node.get())) {
    StringRef text(start.getPointer(), prevEnd - start.getPointer());
    diag.error(start, quoteSource(text) +
                          " is not a valid augmented-assignment target");
    return nullptr;
  }
  consume(); // the operator
  PExpr value = parseExpr();
  if (!value)
    return nullptr;
  std::unique_ptr<Name> name(llvm::cast<Name>(target.node.release()));
  return std::make_unique<AugAssign>(rangeFrom(start), std::move(name), op,
                                     std::move(value.node));
}

StmtPtr Parser::parseIf() {
  struct Clause {
    SMLoc start;
    ExprPtr cond;
    Block body;
  };
  std::vector<Clause> clauses;

  clauses.push_back({tok.getLoc(), nullptr, {}});
  consume(); // 'if'
  PExpr cond = parseExpr();
  if (!cond)
    return nullptr;
  if (!at(TokenKind::Colon)) {
    errorAtToken("expected ':' after the if condition");
    return nullptr;
  }
  consume();
  clauses.back().cond = std::move(cond.node);
  parseSuite(clauses.back().body, "'if'");

  // Each elif nests one level deeper in the tree, so the chain counts against
  // the nesting limit; a broken elif header skips just that clause.
  unsigned elifLevels = 0;
  bool tooDeep = false;
  while (at(TokenKind::KwElif)) {
    if (!tooDeep && nesting >= kMaxNesting) {
      reportTooDeep();
      tooDeep = true;
    }
    if (tooDeep) {
      skipToNextLine();
      continue;
    }
    ++nesting;
    ++elifLevels;
    SMLoc start = tok.getLoc();
    consume();
    PExpr elifCond = parseExpr();
    if (elifCond && !at(TokenKind::Colon)) {
      errorAtToken("expected ':' after the elif condition");
      elifCond = PExpr();
    }
    if (!elifCond) {
      skipToNextLine();
      continue;
    }
    consume();
    clauses.push_back({start, std::move(elifCond.node), {}});
    parseSuite(clauses.back().body, "'elif'");
  }

  Block elseBody;
  if (consumeIf(TokenKind::KwElse)) {
    if (consumeIf(TokenKind::Colon)) {
      parseSuite(elseBody, "'else'");
    } else {
      errorAtToken("expected ':' after 'else'");
      skipToNextLine();
    }
  }
  nesting -= elifLevels;

  // Build the chain inside out: each clause becomes the else branch of the
  // one before it.
  SMLoc end = SMLoc::getFromPointer(prevEnd);
  for (auto it = clauses.rbegin(); it != clauses.rend(); ++it) {
    auto node =
        std::make_unique<If>(SMRange(it->start, end), std::move(it->cond),
                             std::move(it->body), std::move(elseBody));
    elseBody = Block();
    elseBody.push_back(std::move(node));
  }
  return std::move(elseBody.front());
}

StmtPtr Parser::parseFor() {
  SMLoc start = tok.getLoc();
  consume(); // 'for'
  if (!at(TokenKind::Name)) {
    errorExpected("a loop variable name after 'for'");
    return nullptr;
  }
  auto var = std::make_unique<Name>(tok.getRange(), tok.text.str());
  consume();
  if (!at(TokenKind::KwIn)) {
    if (at(TokenKind::Comma))
      errorAtToken("a for loop takes a single loop variable");
    else
      errorExpected("'in' after the loop variable");
    return nullptr;
  }
  consume();
  PExpr iter = parseExpr();
  if (!iter)
    return nullptr;
  if (!at(TokenKind::Colon)) {
    errorAtToken("expected ':' after the for-loop range");
    return nullptr;
  }
  consume();
  Block body;
  parseLoopBody(body, "'for'");
  if (at(TokenKind::KwElse)) {
    errorAtToken("'else' after a loop is not supported in .tile kernels");
    skipLineAndBlock();
  }
  return std::make_unique<For>(rangeFrom(start), std::move(var),
                               std::move(iter.node), std::move(body));
}

StmtPtr Parser::parseWhile() {
  SMLoc start = tok.getLoc();
  consume(); // 'while'
  PExpr cond = parseExpr();
  if (!cond)
    return nullptr;
  if (!at(TokenKind::Colon)) {
    errorAtToken("expected ':' after the while-loop condition");
    return nullptr;
  }
  consume();
  Block body;
  parseLoopBody(body, "'while'");
  if (at(TokenKind::KwElse)) {
    errorAtToken("'else' after a loop is not supported in .tile kernels");
    skipLineAndBlock();
  }
  return std::make_unique<While>(rangeFrom(start), std::move(cond.node),
                                 std::move(body));
}

void Parser::parseLoopBody(Block &body, StringRef owner) {
  ++loopDepth;
  parseSuite(body, owner);
  --loopDepth;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Wraps a new node whose tallest child has `childHeight`, rejecting trees
/// taller than the limit. `loc` is where the growth happened (an operator).
PExpr Parser::finish(ExprPtr node, unsigned childHeight, SMLoc loc) {
  unsigned height = childHeight + 1;
  if (height > kMaxNesting) {
    diag.error(loc, "expression too deep (more than " + Twine(kMaxNesting) +
                        " nested operations); split it into several "
                        "statements");
    return {};
  }
  return {std::move(node), height};
}

/// expr (',' expr)* [','] without brackets; several expressions make a
/// Tuple, as in Python's `return a, b`.
PExpr Parser::parseExprList() {
  SMLoc start = tok.getLoc();
  PExpr first = parseExpr();
  if (!first || !at(TokenKind::Comma))
    return first;
  unsigned height = first.height;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first.node));
  while (consumeIf(TokenKind::Comma) && canStartExpression(tok.kind)) {
    PExpr elt = parseExpr();
    if (!elt)
      return {};
    height = std::max(height, elt.height);
    elts.push_back(std::move(elt.node));
  }
  return finish(std::make_unique<Tuple>(rangeFrom(start), std::move(elts)),
                height, start);
}

/// expr := or_expr ['if' or_expr 'else' expr]: the conditional expression,
/// right-associative (`a if c else b if d else e` is `a if c else (b if d
/// else e)`), as in Python.
PExpr Parser::parseExpr() {
  SMLoc start = tok.getLoc();
  PExpr body = parseBoolOp(BoolOpKind::Or);
  if (!body || !at(TokenKind::KwIf))
    return body;
  SMLoc ifLoc = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume(); // 'if'
  PExpr test = parseBoolOp(BoolOpKind::Or);
  if (!test)
    return {};
  if (!consumeIf(TokenKind::KwElse)) {
    errorAtToken("expected 'else' in the conditional expression "
                 "'... if ... else ...'");
    return {};
  }
  PExpr orelse = parseExpr();
  if (!orelse)
    return {};
  unsigned height = std::max({body.height, test.height, orelse.height});
  auto node =
      std::make_unique<IfExp>(rangeFrom(start), std::move(body.node),
                              std::move(test.node), std::move(orelse.node));
  node->ifLoc = ifLoc;
  return finish(std::move(node), height, ifLoc);
}

/// or_expr := and_expr ('or' and_expr)*; and_expr := not_expr ('and'
/// not_expr)*. Both are left-associative.
PExpr Parser::parseBoolOp(BoolOpKind kind) {
  TokenKind opToken =
      kind == BoolOpKind::Or ? TokenKind::KwOr : TokenKind::KwAnd;
  auto parseOperand = [&] {
    return kind == BoolOpKind::Or ? parseBoolOp(BoolOpKind::And) : parseNot();
  };
  SMLoc start = tok.getLoc();
  PExpr lhs = parseOperand();
  while (lhs && at(opToken)) {
    SMLoc opLoc = tok.getLoc();
    consume();
    PExpr rhs = parseOperand();
    if (!rhs)
      return {};
    unsigned height = std::max(lhs.height, rhs.height);
    lhs = finish(std::make_unique<BoolOp>(rangeFrom(start), kind,
                                          std::move(lhs.node),
                                          std::move(rhs.node)),
                 height, opLoc);
  }
  return lhs;
}

/// not_expr := 'not' not_expr | comparison
PExpr Parser::parseNot() {
  if (!at(TokenKind::KwNot))
    return parseComparison();
  SMLoc start = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  PExpr operand = parseNot();
  if (!operand)
    return {};
  unsigned height = operand.height;
  return finish(std::make_unique<Unary>(rangeFrom(start), UnaryOp::Not,
                                        std::move(operand.node)),
                height, start);
}

/// comparison := bitor (compare_op bitor)*, one Compare node per chain.
PExpr Parser::parseComparison() {
  SMLoc start = tok.getLoc();
  PExpr first = parseBinary(1);
  if (!first)
    return {};
  std::optional<CompareOp> op = getCompareOp(tok.kind);
  if (!op)
    return first;
  unsigned height = first.height;
  std::vector<ExprPtr> operands;
  std::vector<CompareOp> ops;
  std::vector<SMLoc> opLocs;
  operands.push_back(std::move(first.node));
  for (; op; op = getCompareOp(tok.kind)) {
    ops.push_back(*op);
    opLocs.push_back(tok.getLoc());
    consume();
    PExpr operand = parseBinary(1);
    if (!operand)
      return {};
    height = std::max(height, operand.height);
    operands.push_back(std::move(operand.node));
  }
  return finish(std::make_unique<Compare>(rangeFrom(start), std::move(operands),
                                          std::move(ops), std::move(opLocs)),
                height, start);
}

/// The left-associative levels bitor, bitxor, bitand, shift, arith and term,
/// by precedence climbing: operators of precedence >= `minPrecedence`.
PExpr Parser::parseBinary(unsigned minPrecedence) {
  SMLoc start = tok.getLoc();
  PExpr lhs = parseFactor();
  BinaryOp op;
  unsigned precedence;
  while (lhs && (precedence = getBinaryPrecedence(tok.kind, op)) != 0 &&
         precedence >= minPrecedence) {
    SMLoc opLoc = tok.getLoc();
    consume();
    PExpr rhs = parseBinary(precedence + 1);
    if (!rhs)
      return {};
    unsigned height = std::max(lhs.height, rhs.height);
    auto node = std::make_unique<Binary>(
        rangeFrom(start), op, std::move(lhs.node), std::move(rhs.node));
    node->opLoc = opLoc;
    lhs = finish(std::move(node), height, opLoc);
  }
  return lhs;
}

/// factor := ('-' | '+' | '~') factor | power
PExpr Parser::parseFactor() {
  std::optional<UnaryOp> op = getUnaryOp(tok.kind);
  if (!op)
    return parsePower();
  SMLoc start = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  PExpr operand = parseFactor();
  if (!operand)
    return {};
  unsigned height = operand.height;
  return finish(
      std::make_unique<Unary>(rangeFrom(start), *op, std::move(operand.node)),
      height, start);
}

/// power := primary ['**' factor]: right-associative, and `-x**2` is
/// `-(x**2)` because the unary minus is parsed by the caller.
PExpr Parser::parsePower() {
  SMLoc start = tok.getLoc();
  PExpr base = parsePrimary();
  if (!base || !at(TokenKind::StarStar))
    return base;
  SMLoc opLoc = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  PExpr exponent = parseFactor();
  if (!exponent)
    return {};
  unsigned height = std::max(base.height, exponent.height);
  auto node =
      std::make_unique<Binary>(rangeFrom(start), BinaryOp::Pow,
                               std::move(base.node), std::move(exponent.node));
  node->opLoc = opLoc;
  return finish(std::move(node), height, opLoc);
}

/// primary := atom trailer*
PExpr Parser::parsePrimary() {
  SMLoc start = tok.getLoc();
  PExpr expr = parseAtom();
  while (expr) {
    if (at(TokenKind::LParen))
      expr = parseCall(std::move(expr), start);
    else if (at(TokenKind::LSquare))
      expr = parseSubscript(std::move(expr), start);
    else if (at(TokenKind::Dot))
      expr = parseAttribute(std::move(expr), start);
    else
      break;
  }
  return expr;
}

PExpr Parser::parseCall(PExpr callee, SMLoc start) {
  SMLoc open = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  llvm::StringSet<> seenKeywords;
  unsigned height = callee.height;
  while (!at(TokenKind::RParen)) {
    if (!parseArgument(args, keywords, seenKeywords, height))
      return {};
    if (consumeIf(TokenKind::Comma))
      continue;
    if (!at(TokenKind::RParen)) {
      if (errorExpected("',' or ')' after the argument"))
        noteOpening(open);
      return {};
    }
  }
  consume();
  return finish(std::make_unique<Call>(rangeFrom(start), std::move(callee.node),
                                       std::move(args), std::move(keywords)),
                height, open);
}

/// arg := expr | NAME '=' expr. Misplaced or repeated arguments are reported
/// and dropped without failing, so the rest of the call is still checked.
bool Parser::parseArgument(std::vector<ExprPtr> &args,
                           std::vector<Keyword> &keywords,
                           llvm::StringSet<> &seenKeywords, unsigned &height) {
  SMLoc start = tok.getLoc();
  PExpr arg = parseExpr();
  if (!arg)
    return false;
  if (!at(TokenKind::Equal)) {
    if (!seenKeywords.empty()) {
      diag.error(start, "positional argument follows keyword argument");
      return true;
    }
    height = std::max(height, arg.height);
    args.push_back(std::move(arg.node));
    return true;
  }
  auto *name = llvm::dyn_cast<Name>(arg.node.get());
  if (!name) {
    diag.error(start, "expected a parameter name before '=' in a keyword "
                      "argument");
    return false;
  }
  consume(); // '='
  PExpr value = parseExpr();
  if (!value)
    return false;
  if (!seenKeywords.insert(name->id).second) {
    diag.error(start, "keyword argument repeated: '" + name->id + "'");
    return true;
  }
  height = std::max(height, value.height);
  keywords.push_back({name->id, name->getRange(), std::move(value.node)});
  return true;
}

/// '[' subscript (',' subscript)* [','] ']'
PExpr Parser::parseSubscript(PExpr base, SMLoc start) {
  SMLoc open = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  std::vector<ExprPtr> indices;
  unsigned height = base.height;
  do {
    PExpr index = parseSubscriptItem();
    if (!index)
      return {};
    height = std::max(height, index.height);
    indices.push_back(std::move(index.node));
  } while (consumeIf(TokenKind::Comma) && !at(TokenKind::RSquare));
  if (!at(TokenKind::RSquare)) {
    if (errorExpected("',' or ']' in the subscript"))
      noteOpening(open);
    return {};
  }
  consume();
  return finish(std::make_unique<Subscript>(
                    rangeFrom(start), std::move(base.node), std::move(indices)),
                height, open);
}

/// subscript := expr | [expr] ':' [expr] [':' [expr]]
PExpr Parser::parseSubscriptItem() {
  SMLoc start = tok.getLoc();
  PExpr lower;
  if (!at(TokenKind::Colon)) {
    lower = parseExpr();
    if (!lower || !at(TokenKind::Colon))
      return lower;
  }
  consume(); // ':'
  auto atPartEnd = [&] {
    return at(TokenKind::Colon) || at(TokenKind::Comma) ||
           at(TokenKind::RSquare);
  };
  PExpr upper, step;
  if (!atPartEnd()) {
    upper = parseExpr();
    if (!upper)
      return {};
  }
  if (consumeIf(TokenKind::Colon) && !atPartEnd()) {
    step = parseExpr();
    if (!step)
      return {};
  }
  unsigned height = std::max({lower.height, upper.height, step.height});
  return finish(std::make_unique<Slice>(rangeFrom(start), std::move(lower.node),
                                        std::move(upper.node),
                                        std::move(step.node)),
                height, start);
}

PExpr Parser::parseAttribute(PExpr base, SMLoc start) {
  consume(); // '.'
  if (!at(TokenKind::Name)) {
    errorExpected("an attribute name after '.'");
    return {};
  }
  std::string attr = tok.text.str();
  SMRange attrRange = tok.getRange();
  consume();
  unsigned height = base.height;
  return finish(std::make_unique<Attribute>(rangeFrom(start),
                                            std::move(base.node),
                                            std::move(attr), attrRange),
                height, attrRange.Start);
}

PExpr Parser::parseAtom() {
  SMRange range = tok.getRange();
  ExprPtr node;
  switch (tok.kind) {
  case TokenKind::Name:
    node = std::make_unique<Name>(range, tok.text.str());
    break;
  case TokenKind::Int:
    node = std::make_unique<IntLit>(range, tok.intValue);
    break;
  case TokenKind::Float:
    node = std::make_unique<FloatLit>(range, tok.floatValue);
    break;
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    node = std::make_unique<BoolLit>(range, at(TokenKind::KwTrue));
    break;
  case TokenKind::KwNone:
    node = std::make_unique<NoneLit>(range);
    break;
  case TokenKind::LParen:
    return parseParenthesized();
  default:
    errorExpected("an expression");
    return {};
  }
  consume();
  return {std::move(node), 1};
}

/// '(' ')' | '(' expr ')' | '(' expr ',' [expr (',' expr)* [',']] ')'
PExpr Parser::parseParenthesized() {
  SMLoc start = tok.getLoc();
  NestingScope scope(*this);
  if (!scope)
    return {};
  consume();
  if (consumeIf(TokenKind::RParen))
    return {std::make_unique<Tuple>(rangeFrom(start), std::vector<ExprPtr>()),
            1};
  PExpr first = parseExpr();
  if (!first)
    return {};
  // Grouping parentheses make no node.
  if (consumeIf(TokenKind::RParen))
    return first;
  unsigned height = first.height;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first.node));
  while (consumeIf(TokenKind::Comma) && !at(TokenKind::RParen)) {
    PExpr elt = parseExpr();
    if (!elt)
      return {};
    height = std::max(height, elt.height);
    elts.push_back(std::move(elt.node));
  }
  if (!at(TokenKind::RParen)) {
    if (errorExpected("',' or ')'"))
      noteOpening(start);
    return {};
  }
  consume();
  return finish(std::make_unique<Tuple>(rangeFrom(start), std::move(elts)),
                height, start);
}

std::unique_ptr<Module> tilec::parseModule(unsigned bufferId,
                                           DiagnosticEngine &diag) {
  StringRef buffer = diag.getSourceMgr().getMemoryBuffer(bufferId)->getBuffer();
  return Parser(buffer, diag).parseModule();
}
