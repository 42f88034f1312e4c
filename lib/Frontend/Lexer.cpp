//===- Lexer.cpp - Tokenizer of the .tile language ------------------------===//
//
// The lexer never reads past `bufEnd` and never relies on a terminating NUL:
// the buffer may hold arbitrary bytes. It is a single forward pass, so it runs
// in time linear in the size of the buffer.
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cassert>
#include <cstdlib>
#include <limits>

using namespace tilec;
using llvm::SMLoc;
using llvm::StringRef;

/// Tab stops used to keep going after a tab in indentation was reported.
static constexpr unsigned kTabWidth = 8;
/// Longest source text quoted in a message.
static constexpr size_t kMaxQuotedLength = 40;

StringRef tilec::getTokenSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Newline:
    return "end of line";
  case TokenKind::Indent:
    return "indent";
  case TokenKind::Dedent:
    return "end of the indented block";
  case TokenKind::Error:
    return "invalid token";
  case TokenKind::Name:
    return "name";
  case TokenKind::Int:
    return "integer literal";
  case TokenKind::Float:
    return "float literal";
  case TokenKind::KwKernel:
    return "kernel";
  case TokenKind::KwConst:
    return "const";
  case TokenKind::KwIf:
    return "if";
  case TokenKind::KwElif:
    return "elif";
  case TokenKind::KwElse:
    return "else";
  case TokenKind::KwFor:
    return "for";
  case TokenKind::KwWhile:
    return "while";
  case TokenKind::KwBreak:
    return "break";
  case TokenKind::KwContinue:
    return "continue";
  case TokenKind::KwIn:
    return "in";
  case TokenKind::KwAnd:
    return "and";
  case TokenKind::KwOr:
    return "or";
  case TokenKind::KwNot:
    return "not";
  case TokenKind::KwTrue:
    return "True";
  case TokenKind::KwFalse:
    return "False";
  case TokenKind::KwNone:
    return "None";
  case TokenKind::KwPass:
    return "pass";
  case TokenKind::KwReturn:
    return "return";
  case TokenKind::KwDef:
    return "def";
  case TokenKind::KwAssert:
    return "assert";
  case TokenKind::LParen:
    return "(";
  case TokenKind::RParen:
    return ")";
  case TokenKind::LSquare:
    return "[";
  case TokenKind::RSquare:
    return "]";
  case TokenKind::Comma:
    return ",";
  case TokenKind::Colon:
    return ":";
  case TokenKind::Dot:
    return ".";
  case TokenKind::Equal:
    return "=";
  case TokenKind::Plus:
    return "+";
  case TokenKind::Minus:
    return "-";
  case TokenKind::Star:
    return "*";
  case TokenKind::Slash:
    return "/";
  case TokenKind::SlashSlash:
    return "//";
  case TokenKind::Percent:
    return "%";
  case TokenKind::StarStar:
    return "**";
  case TokenKind::Tilde:
    return "~";
  case TokenKind::At:
    return "@";
  case TokenKind::Amp:
    return "&";
  case TokenKind::Pipe:
    return "|";
  case TokenKind::Caret:
    return "^";
  case TokenKind::LessLess:
    return "<<";
  case TokenKind::GreaterGreater:
    return ">>";
  case TokenKind::Less:
    return "<";
  case TokenKind::LessEqual:
    return "<=";
  case TokenKind::Greater:
    return ">";
  case TokenKind::GreaterEqual:
    return ">=";
  case TokenKind::EqualEqual:
    return "==";
  case TokenKind::NotEqual:
    return "!=";
  case TokenKind::PlusEqual:
    return "+=";
  case TokenKind::MinusEqual:
    return "-=";
  case TokenKind::StarEqual:
    return "*=";
  case TokenKind::SlashEqual:
    return "/=";
  case TokenKind::SlashSlashEqual:
    return "//=";
  case TokenKind::PercentEqual:
    return "%=";
  case TokenKind::AmpEqual:
    return "&=";
  case TokenKind::PipeEqual:
    return "|=";
  case TokenKind::CaretEqual:
    return "^=";
  case TokenKind::LessLessEqual:
    return "<<=";
  case TokenKind::GreaterGreaterEqual:
    return ">>=";
  case TokenKind::StarStarEqual:
    return "**=";
  }
  return "token";
}

std::string tilec::quoteSource(StringRef text) {
  size_t cut = std::min(text.find_first_of("\r\n"), kMaxQuotedLength);
  std::string result = "'";
  result += text.take_front(cut).str();
  if (cut < text.size())
    result += "...";
  result += "'";
  return result;
}

std::string tilec::describeToken(const Token &tok) {
  switch (tok.kind) {
  case TokenKind::Eof:
  case TokenKind::Newline:
  case TokenKind::Indent:
  case TokenKind::Dedent:
    return getTokenSpelling(tok.kind).str();
  default:
    return quoteSource(tok.text);
  }
}

//===----------------------------------------------------------------------===//
// Character classes
//===----------------------------------------------------------------------===//

static bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// Whitespace that separates tokens within a line. A lone '\r' is accepted
/// so that files with CRLF line endings lex like LF files.
static bool isInlineSpace(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\r';
}

static bool isDigitOfBase(char c, unsigned base) {
  switch (base) {
  case 2:
    return c == '0' || c == '1';
  case 8:
    return c >= '0' && c <= '7';
  case 10:
    return llvm::isDigit(c);
  default:
    return llvm::isHexDigit(c);
  }
}

/// Python words with no meaning in .tile kernels; naming them in the error
/// is clearer than a syntax error at some later token.
static bool isUnsupportedKeyword(StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases({"lambda", "import", "from", "class", "with", "try", "except",
              "global", "nonlocal", "yield", "async", "await", "del", "raise",
              "is"},
             true)
      .Default(false);
}

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

Lexer::Lexer(StringRef buffer, DiagnosticEngine &diag)
    : cur(buffer.begin()), bufEnd(buffer.end()), diag(diag) {
  indents.push_back(0);
}

Token Lexer::make(TokenKind kind, const char *start, const char *stop) const {
  Token tok;
  tok.kind = kind;
  tok.text = StringRef(start, stop - start);
  return tok;
}

Token Lexer::next() {
  // Stop early: after many errors the rest of the input is likely garbage.
  if (diag.tooManyErrors()) {
    StringRef rest(cur, bufEnd - cur);
    if (!stopped && rest.find_first_not_of(" \t\f\r\n") != StringRef::npos) {
      // One error past the limit makes the engine print its "too many
      // errors emitted, stopping now" notice: the user learns that the rest
      // of the file was not checked.
      diag.error(SMLoc::getFromPointer(cur), "too many errors");
    }
    stopped = true;
    return make(TokenKind::Eof, bufEnd, bufEnd);
  }
  if (pendingDedents != 0) {
    --pendingDedents;
    return make(TokenKind::Dedent, dedentLoc, dedentLoc);
  }
  while (true) {
    if (atLineStart && brackets.empty()) {
      Token tok;
      if (lexIndentation(tok))
        return tok;
    }
    skipWhitespaceAndComments();
    if (cur == bufEnd)
      return lexEndOfBuffer();
    if (*cur != '\n')
      return lexToken();
    ++cur;
    // Implicit line joining: a line break inside brackets is whitespace.
    if (!brackets.empty())
      continue;
    atLineStart = true;
    return make(TokenKind::Newline, cur - 1, cur);
  }
}

/// Skips blank and comment-only lines, then measures the indentation of the
/// next line. Returns true and sets `result` when that produces a token.
bool Lexer::lexIndentation(Token &result) {
  while (cur != bufEnd) {
    unsigned column = 0;
    const char *p = cur;
    for (; p != bufEnd; ++p) {
      if (*p == ' ') {
        ++column;
      } else if (*p == '\t') {
        if (!reportedTab) {
          // Once per file: an editor that inserts tabs would otherwise bury
          // every other error under one report per line.
          reportedTab = true;
          diag.error(SMLoc::getFromPointer(p),
                     "tabs are not allowed in indentation; use spaces");
        }
        column = (column / kTabWidth + 1) * kTabWidth;
      } else if (*p != '\f' && *p != '\r') {
        break;
      }
    }
    cur = p;
    if (p == bufEnd)
      return false;
    if (*p == '#') {
      while (cur != bufEnd && *cur != '\n')
        ++cur;
      if (cur == bufEnd)
        return false;
    }
    if (*cur == '\n') {
      ++cur; // a blank line: no NEWLINE, no indentation change
      continue;
    }
    atLineStart = false;
    return applyIndentation(column, cur, result);
  }
  return false;
}

/// Compares the indentation of a new logical line with the open blocks.
bool Lexer::applyIndentation(unsigned column, const char *lineStart,
                             Token &result) {
  if (column > indents.back()) {
    indents.push_back(column);
    result = make(TokenKind::Indent, lineStart, lineStart);
    return true;
  }
  unsigned numDedents = 0;
  while (column < indents.back()) {
    indents.pop_back();
    ++numDedents;
  }
  if (column != indents.back()) {
    diag.error(SMLoc::getFromPointer(lineStart),
               "unindent does not match any outer indentation level");
    // The line lies between two levels. Keep it in the inner block, whose
    // column becomes this one: later lines at the same column then need no
    // second report, and a kernel body is not closed by a stray line.
    indents.push_back(column);
    --numDedents;
  }
  if (numDedents == 0)
    return false;
  pendingDedents = numDedents - 1;
  dedentLoc = lineStart;
  result = make(TokenKind::Dedent, lineStart, lineStart);
  return true;
}

void Lexer::skipWhitespaceAndComments() {
  while (cur != bufEnd) {
    if (isInlineSpace(*cur)) {
      ++cur;
    } else if (*cur == '#') {
      while (cur != bufEnd && *cur != '\n')
        ++cur;
    } else if (*cur == '\\') {
      // Explicit line joining; a backslash before anything else is an error
      // that lexToken reports.
      const char *p = cur + 1;
      if (p != bufEnd && *p == '\r')
        ++p;
      if (p != bufEnd && *p != '\n')
        return;
      cur = p == bufEnd ? p : p + 1;
    } else {
      return;
    }
  }
}

Token Lexer::lexEndOfBuffer() {
  if (!brackets.empty()) {
    const char *open = brackets.back();
    StringRef close = *open == '(' ? ")" : "]";
    diag.error(SMLoc::getFromPointer(open),
               llvm::Twine("unclosed '") + StringRef(open, 1) +
                   "': expected a matching '" + close +
                   "' before the end of the file");
    brackets.clear();
    // Stand in for the missing text so the parser does not report it again.
    return make(TokenKind::Error, bufEnd, bufEnd);
  }
  if (!atLineStart) {
    // The last line has no newline character: end it anyway.
    atLineStart = true;
    return make(TokenKind::Newline, bufEnd, bufEnd);
  }
  if (indents.size() > 1) {
    indents.pop_back();
    return make(TokenKind::Dedent, bufEnd, bufEnd);
  }
  return make(TokenKind::Eof, bufEnd, bufEnd);
}

Token Lexer::lexToken() {
  char c = *cur;
  if (isIdentStart(c))
    return lexIdentifier();
  if (llvm::isDigit(c) ||
      (c == '.' && cur + 1 != bufEnd && llvm::isDigit(cur[1])))
    return lexNumber();
  if (c == '"' || c == '\'')
    return lexString();
  if (c == '\\') {
    diag.error(SMLoc::getFromPointer(cur),
               "a line-continuation backslash must be the last character of "
               "its line");
    ++cur;
    return make(TokenKind::Error, cur - 1, cur);
  }
  if (!canStartToken(cur))
    return lexInvalidCharacters();
  return lexPunctuation();
}

Token Lexer::lexIdentifier() {
  const char *start = cur;
  while (cur != bufEnd && isIdentChar(*cur))
    ++cur;
  StringRef word(start, cur - start);
  TokenKind kind = llvm::StringSwitch<TokenKind>(word)
                       .Case("kernel", TokenKind::KwKernel)
                       .Case("const", TokenKind::KwConst)
                       .Case("if", TokenKind::KwIf)
                       .Case("elif", TokenKind::KwElif)
                       .Case("else", TokenKind::KwElse)
                       .Case("for", TokenKind::KwFor)
                       .Case("while", TokenKind::KwWhile)
                       .Case("break", TokenKind::KwBreak)
                       .Case("continue", TokenKind::KwContinue)
                       .Case("in", TokenKind::KwIn)
                       .Case("and", TokenKind::KwAnd)
                       .Case("or", TokenKind::KwOr)
                       .Case("not", TokenKind::KwNot)
                       .Case("True", TokenKind::KwTrue)
                       .Case("False", TokenKind::KwFalse)
                       .Case("None", TokenKind::KwNone)
                       .Case("pass", TokenKind::KwPass)
                       .Case("return", TokenKind::KwReturn)
                       .Case("def", TokenKind::KwDef)
                       .Case("assert", TokenKind::KwAssert)
                       .Default(TokenKind::Name);
  if (kind == TokenKind::Name && isUnsupportedKeyword(word)) {
    diag.error(SMLoc::getFromPointer(start),
               "'" + word + "' is not supported in .tile kernels");
    kind = TokenKind::Error;
  }
  return make(kind, start, cur);
}

/// Lexes an integer (decimal, 0x, 0o, 0b) or a float (`1.0`, `.5`, `1.`,
/// `1e-3`). Digits may be separated by single underscores, as in Python.
Token Lexer::lexNumber() {
  const char *start = cur;
  unsigned base = 10;
  bool isFloat = false;
  bool malformed = false;

  // Consumes digits of `base` joined by single underscores; returns how many
  // digits it saw.
  auto scanDigits = [&](unsigned b) {
    unsigned count = 0;
    while (cur != bufEnd) {
      if (isDigitOfBase(*cur, b)) {
        ++count;
        ++cur;
      } else if (*cur == '_' && cur + 1 != bufEnd && isDigitOfBase(cur[1], b) &&
                 (count != 0 || b != 10)) {
        ++cur;
      } else {
        break;
      }
    }
    return count;
  };

  if (*cur == '0' && cur + 1 != bufEnd &&
      StringRef("xXoObB").contains(cur[1])) {
    char prefix = llvm::toLower(cur[1]);
    base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
    cur += 2;
    malformed = scanDigits(base) == 0;
  } else {
    scanDigits(10);
    if (cur != bufEnd && *cur == '.') {
      isFloat = true;
      ++cur;
      scanDigits(10);
    }
    if (cur != bufEnd && (*cur == 'e' || *cur == 'E')) {
      isFloat = true;
      ++cur;
      if (cur != bufEnd && (*cur == '+' || *cur == '-'))
        ++cur;
      malformed = scanDigits(10) == 0;
    }
  }
  // `1abc`, `0x1g`, `1_`: letters glued to a number make it malformed.
  while (cur != bufEnd && isIdentChar(*cur)) {
    malformed = true;
    ++cur;
  }

  // The caller saw a digit, or a '.' and a digit, so some text was consumed.
  assert(cur != start && "a number token must not be empty");
  StringRef text(start, cur - start);
  SMLoc loc = SMLoc::getFromPointer(start);
  if (malformed) {
    diag.error(loc, "invalid numeric literal " + quoteSource(text));
    return make(TokenKind::Error, start, cur);
  }

  std::string digits;
  for (char c : text)
    if (c != '_')
      digits += c;

  if (isFloat) {
    Token tok = make(TokenKind::Float, start, cur);
    tok.floatValue = std::strtod(digits.c_str(), nullptr);
    return tok;
  }

  if (base == 10 && digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos) {
    diag.error(loc, "leading zeros are not allowed in decimal integer "
                    "literals: " +
                        quoteSource(text));
    return make(TokenKind::Error, start, cur);
  }

  // Accumulate in unsigned 64 bits, detecting overflow before it happens.
  uint64_t value = 0;
  bool overflow = false;
  const uint64_t max = std::numeric_limits<int64_t>::max();
  for (char c : StringRef(digits).drop_front(base == 10 ? 0 : 2)) {
    unsigned digit = llvm::hexDigitValue(c);
    if (value > (max - digit) / base) {
      overflow = true;
      break;
    }
    value = value * base + digit;
  }
  Token tok = make(TokenKind::Int, start, cur);
  if (overflow) {
    // Keep an Int token so that parsing goes on normally.
    diag.error(loc, "integer literal " + quoteSource(text) +
                        " is too large (the maximum is " +
                        llvm::Twine(std::numeric_limits<int64_t>::max()) + ")");
    return tok;
  }
  tok.intValue = static_cast<int64_t>(value);
  return tok;
}

/// Strings have no use in kernels; skip the literal whole so that its
/// contents do not produce more errors.
Token Lexer::lexString() {
  const char *start = cur;
  char quote = *cur;
  bool triple = bufEnd - cur >= 3 && cur[1] == quote && cur[2] == quote;
  if (triple) {
    StringRef rest(cur + 3, bufEnd - cur - 3);
    size_t close = rest.find(StringRef(cur, 3));
    cur = close == StringRef::npos ? bufEnd : rest.data() + close + 3;
  } else {
    ++cur;
    while (cur != bufEnd && *cur != quote && *cur != '\n') {
      if (*cur == '\\' && cur + 1 != bufEnd && cur[1] != '\n')
        ++cur;
      ++cur;
    }
    if (cur != bufEnd && *cur == quote)
      ++cur;
  }
  diag.error(SMLoc::getFromPointer(start),
             "string literals are not supported in .tile kernels");
  return make(TokenKind::Error, start, cur);
}

/// Whether a token (or whitespace, a comment, a line break) starts at `p`.
bool Lexer::canStartToken(const char *p) const {
  char c = *p;
  if (isIdentChar(c) || isInlineSpace(c) || c == '\n' || c == '#' ||
      c == '\\' || c == '"' || c == '\'')
    return true;
  if (c == '!')
    return p + 1 != bufEnd && p[1] == '=';
  return StringRef("()[],:.=+-*/%~&|^<>@").contains(c);
}

/// Reports a run of characters that start no token as one error.
Token Lexer::lexInvalidCharacters() {
  const char *start = cur;
  while (cur != bufEnd && !canStartToken(cur))
    ++cur;
  unsigned char c = *start;
  std::string shown;
  if (c > ' ' && c < 0x7f) {
    shown = std::string(1, c);
  } else {
    shown = "\\x";
    shown += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
    shown += llvm::hexdigit(c & 0xf, /*LowerCase=*/true);
  }
  diag.error(SMLoc::getFromPointer(start),
             "invalid character '" + shown + "' in source");
  return make(TokenKind::Error, start, cur);
}

Token Lexer::lexPunctuation() {
  // Longest match first.
  static const struct {
    StringRef spelling;
    TokenKind kind;
  } table[] = {
      {"**=", TokenKind::StarStarEqual},
      {"//=", TokenKind::SlashSlashEqual},
      {"<<=", TokenKind::LessLessEqual},
      {">>=", TokenKind::GreaterGreaterEqual},
      {"**", TokenKind::StarStar},
      {"//", TokenKind::SlashSlash},
      {"<<", TokenKind::LessLess},
      {">>", TokenKind::GreaterGreater},
      {"<=", TokenKind::LessEqual},
      {">=", TokenKind::GreaterEqual},
      {"==", TokenKind::EqualEqual},
      {"!=", TokenKind::NotEqual},
      {"+=", TokenKind::PlusEqual},
      {"-=", TokenKind::MinusEqual},
      {"*=", TokenKind::StarEqual},
      {"/=", TokenKind::SlashEqual},
      {"%=", TokenKind::PercentEqual},
      {"&=", TokenKind::AmpEqual},
      {"|=", TokenKind::PipeEqual},
      {"^=", TokenKind::CaretEqual},
      {"(", TokenKind::LParen},
      {")", TokenKind::RParen},
      {"[", TokenKind::LSquare},
      {"]", TokenKind::RSquare},
      {",", TokenKind::Comma},
      {":", TokenKind::Colon},
      {".", TokenKind::Dot},
      {"=", TokenKind::Equal},
      {"@", TokenKind::At},
      {"+", TokenKind::Plus},
      {"-", TokenKind::Minus},
      {"*", TokenKind::Star},
      {"/", TokenKind::Slash},
      {"%", TokenKind::Percent},
      {"~", TokenKind::Tilde},
      {"&", TokenKind::Amp},
      {"|", TokenKind::Pipe},
      {"^", TokenKind::Caret},
      {"<", TokenKind::Less},
      {">", TokenKind::Greater},
  };
  StringRef rest(cur, bufEnd - cur);
  for (const auto &entry : table) {
    if (!rest.starts_with(entry.spelling))
      continue;
    const char *start = cur;
    cur += entry.spelling.size();
    if (entry.kind == TokenKind::LParen || entry.kind == TokenKind::LSquare)
      brackets.push_back(start);
    // A stray closer at depth 0 is left for the parser to report.
    if ((entry.kind == TokenKind::RParen || entry.kind == TokenKind::RSquare) &&
        !brackets.empty())
      brackets.pop_back();
    return make(entry.kind, start, cur);
  }
  // canStartToken admitted the character, so the table must cover it.
  assert(false && "punctuation table out of sync with canStartToken");
  ++cur;
  return make(TokenKind::Error, cur - 1, cur);
}
