//===- Lexer.h - Tokenizer of the .tile language ----------------*- C++ -*-===//
//
// Turns a .tile buffer into tokens the way Python's tokenizer does: NEWLINE
// ends a logical line, INDENT/DEDENT bracket indented blocks, and line breaks
// inside () and [] or after a backslash do not end the line.
//
// The lexer reports malformed input itself (invalid characters, bad numbers,
// string literals, unsupported Python keywords, tabs and inconsistent
// indentation, unclosed brackets) and hands the parser an `Error` token in
// place of the bad text, so that the parser can recover without reporting a
// second error for the same problem.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_LEXER_H
#define TILEC_LIB_FRONTEND_LEXER_H

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

enum class TokenKind {
  Eof,
  Newline,
  Indent,
  Dedent,
  /// Malformed input, already reported by the lexer.
  Error,

  Name,
  Int,
  Float,

  // Keywords.
  KwKernel,
  KwConst,
  KwIf,
  KwElif,
  KwElse,
  KwFor,
  KwWhile,
  KwBreak,
  KwContinue,
  KwIn,
  KwAnd,
  KwOr,
  KwNot,
  KwTrue,
  KwFalse,
  KwNone,
  KwPass,
  KwReturn,
  KwDef,
  KwAssert,

  // Brackets and punctuation.
  LParen,
  RParen,
  LSquare,
  RSquare,
  Comma,
  Colon,
  Dot,
  Equal,
  At, // '@' of a kernel's @hints(...)

  // Operators.
  Plus,
  Minus,
  Star,
  Slash,
  SlashSlash,
  Percent,
  StarStar,
  Tilde,
  Amp,
  Pipe,
  Caret,
  LessLess,
  GreaterGreater,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  EqualEqual,
  NotEqual,

  // Augmented assignment operators.
  PlusEqual,
  MinusEqual,
  StarEqual,
  SlashEqual,
  SlashSlashEqual,
  PercentEqual,
  AmpEqual,
  PipeEqual,
  CaretEqual,
  LessLessEqual,
  GreaterGreaterEqual,
  StarStarEqual,
};

/// The fixed spelling of a keyword or punctuation token (`if`, `**=`), or a
/// description of the other kinds (`end of line`, `name`).
llvm::StringRef getTokenSpelling(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  /// The token's characters in the buffer. INDENT, DEDENT and EOF are empty
  /// but still point into the buffer (at the first token of the line, or at
  /// the end of the buffer), so every token has a valid location.
  llvm::StringRef text;
  int64_t intValue = 0;  // for Int
  double floatValue = 0; // for Float

  bool is(TokenKind k) const { return kind == k; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(text.data());
  }
  /// The half-open range [start, end) of the token's text.
  llvm::SMRange getRange() const {
    return {getLoc(), llvm::SMLoc::getFromPointer(text.data() + text.size())};
  }
};

/// Quotes source text for a message: `'text'`, cut at the first line break
/// and shortened with `...` so that a huge token cannot flood the output.
std::string quoteSource(llvm::StringRef text);

/// Describes a token for "expected X, found Y" messages: `')'`, `'foo'`,
/// `end of line`, `end of file`.
std::string describeToken(const Token &tok);

class Lexer {
public:
  /// `buffer` must stay alive while the lexer is used; it may contain any
  /// bytes, including NULs, and need not end with a newline.
  Lexer(llvm::StringRef buffer, DiagnosticEngine &diag);

  /// Returns the next token. After the end of the buffer (or once the
  /// diagnostic engine reports too many errors) it keeps returning Eof.
  Token next();

private:
  Token make(TokenKind kind, const char *start, const char *stop) const;
  bool lexIndentation(Token &result);
  bool applyIndentation(unsigned column, const char *lineStart, Token &result);
  void skipWhitespaceAndComments();
  Token lexEndOfBuffer();
  Token lexToken();
  Token lexIdentifier();
  Token lexNumber();
  Token lexString();
  Token lexInvalidCharacters();
  Token lexPunctuation();
  bool canStartToken(const char *p) const;

  const char *cur;
  const char *bufEnd;
  DiagnosticEngine &diag;

  /// True before the first token of a logical line has been lexed, i.e. when
  /// the indentation of the next non-blank line must be measured.
  bool atLineStart = true;
  /// Columns of the open blocks, outermost (0) first.
  llvm::SmallVector<unsigned> indents;
  /// DEDENTs still owed to the parser, all located at `dedentLoc`.
  unsigned pendingDedents = 0;
  const char *dedentLoc = nullptr;
  /// Opening brackets not yet closed; line breaks inside them are ignored.
  std::vector<const char *> brackets;
  bool reportedTab = false;
  /// Set once the lexer gave up because of too many errors.
  bool stopped = false;
};

} // namespace tilec

#endif // TILEC_LIB_FRONTEND_LEXER_H
