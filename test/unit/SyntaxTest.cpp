//===- SyntaxTest.cpp - Unit tests of the .tile lexer and parser ----------===//
//
// Each test feeds source text through the lexer or parser and compares the
// token listing, the `--emit=ast` dump or the diagnostics ("line:col: error:
// message") with the exact expected text.
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"
#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace tilec;
using llvm::StringRef;

namespace {

/// Keeps only the "line:col: error: message" (and note) lines of the
/// diagnostic output, without the file name, the source line and the caret.
std::string summarizeDiagnostics(StringRef text) {
  std::string result;
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.consume_front("test.tile:") ||
        line.starts_with("error: too many errors")) {
      result += line.str();
      result += '\n';
    }
  }
  return result;
}

/// A source buffer registered with a SourceMgr and a diagnostic engine that
/// writes into a string.
struct Harness {
  explicit Harness(StringRef source, unsigned maxErrors = 20)
      : diagOS(diagText), diag(srcMgr, diagOS) {
    bufferId = srcMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, "test.tile"),
        llvm::SMLoc());
    diag.setMaxErrors(maxErrors);
  }
  StringRef buffer() const {
    return srcMgr.getMemoryBuffer(bufferId)->getBuffer();
  }
  std::string errors() const { return summarizeDiagnostics(diagText); }

  llvm::SourceMgr srcMgr;
  std::string diagText;
  llvm::raw_string_ostream diagOS;
  DiagnosticEngine diag;
  unsigned bufferId;
};

std::string describeForTest(const Token &tok) {
  switch (tok.kind) {
  case TokenKind::Eof:
    return "EOF";
  case TokenKind::Newline:
    return "NL";
  case TokenKind::Indent:
    return "INDENT";
  case TokenKind::Dedent:
    return "DEDENT";
  case TokenKind::Error:
    return "ERR(" + tok.text.str() + ")";
  case TokenKind::Name:
    return "name:" + tok.text.str();
  case TokenKind::Int:
    return "int:" + std::to_string(tok.intValue);
  case TokenKind::Float: {
    char buf[64];
    snprintf(buf, sizeof(buf), "float:%g", tok.floatValue);
    return buf;
  }
  default:
    return getTokenSpelling(tok.kind).str();
  }
}

struct LexResult {
  std::string tokens; // space-separated, through EOF
  std::string errors;
};

LexResult lex(StringRef source, unsigned maxErrors = 20) {
  Harness h(source, maxErrors);
  Lexer lexer(h.buffer(), h.diag);
  LexResult result;
  // Bounded, so that a lexer bug that never reaches EOF fails the test.
  for (unsigned i = 0; i < 10000; ++i) {
    Token tok = lexer.next();
    if (!result.tokens.empty())
      result.tokens += ' ';
    result.tokens += describeForTest(tok);
    // Every token, even a synthesized one, points into the buffer.
    EXPECT_GE(tok.text.begin(), h.buffer().begin());
    EXPECT_LE(tok.text.end(), h.buffer().end());
    if (tok.is(TokenKind::Eof))
      break;
  }
  result.errors = h.errors();
  return result;
}

struct ParseResult {
  std::string ast;
  std::string errors;
  unsigned numErrors;
};

ParseResult parse(StringRef source, unsigned maxErrors = 20) {
  Harness h(source, maxErrors);
  std::unique_ptr<ast::Module> module = parseModule(h.bufferId, h.diag);
  ParseResult result;
  llvm::raw_string_ostream os(result.ast);
  ast::print(*module, os);
  result.errors = h.errors();
  result.numErrors = h.diag.getNumErrors();
  return result;
}

/// Parses `x = <source>` and returns the dump of the expression.
std::string parseExpr(StringRef source) {
  ParseResult result = parse(("x = " + source + "\n").str());
  EXPECT_EQ(result.errors, "") << "in expression: " << source.str();
  StringRef ast = result.ast;
  if (!ast.consume_front("(module\n  (global x ") || !ast.consume_back("))\n"))
    return "unexpected dump: " + result.ast;
  return ast.str();
}

/// Parses `source` and returns only its error summary.
std::string parseErrors(StringRef source) { return parse(source).errors; }

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

TEST(LexerTest, Operators) {
  LexResult r = lex("a **= b //= c <<= d >>= e ** f // g << h >> i\n"
                    "<= >= == != += -= *= /= %= &= |= ^= = < > + - * / % ~ "
                    "& | ^ . , : ( ) [ ] @");
  EXPECT_EQ(r.tokens,
            "name:a **= name:b //= name:c <<= name:d >>= name:e ** name:f // "
            "name:g << name:h >> name:i NL <= >= == != += -= *= /= %= &= |= "
            "^= = < > + - * / % ~ & | ^ . , : ( ) [ ] @ NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, KeywordsAndNames) {
  LexResult r = lex("kernel const if elif else for while break continue in and "
                    "or not True False None pass return assert kernels _x x1 "
                    "true none");
  EXPECT_EQ(r.tokens,
            "kernel const if elif else for while break continue in and or not "
            "True False None pass return assert name:kernels name:_x name:x1 "
            "name:true name:none NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, IndentAndDedent) {
  LexResult r = lex("a\n"
                    "  b\n"
                    "\n"
                    "      # comment at another column\n"
                    "  c\n"
                    "      d\n"
                    "e\n"
                    "  f");
  EXPECT_EQ(r.tokens, "name:a NL INDENT name:b NL name:c NL INDENT name:d NL "
                      "DEDENT DEDENT name:e NL INDENT name:f NL DEDENT EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, BlankLinesAndCommentsProduceNoTokens) {
  EXPECT_EQ(lex("").tokens, "EOF");
  EXPECT_EQ(lex("\n\n   \n# only a comment\n   # another").tokens, "EOF");
  EXPECT_EQ(lex("x # trailing\n").tokens, "name:x NL EOF");
}

TEST(LexerTest, CRLFLineEndings) {
  LexResult r = lex("a\r\n  b\r\n\r\nc\r\n");
  EXPECT_EQ(r.tokens, "name:a NL INDENT name:b NL DEDENT name:c NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, ImplicitLineJoiningInBrackets) {
  LexResult r = lex("f(a,\n"
                    "      b[1,\n"
                    "  2])\n"
                    "g\n");
  EXPECT_EQ(r.tokens,
            "name:f ( name:a , name:b [ int:1 , int:2 ] ) NL name:g NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, BackslashContinuation) {
  LexResult r = lex("a = 1 + \\\n"
                    "        2\n"
                    "b = \\\r\n"
                    "3\n");
  EXPECT_EQ(r.tokens, "name:a = int:1 + int:2 NL name:b = int:3 NL EOF");
  EXPECT_EQ(r.errors, "");

  r = lex("a = \\ 1\n");
  EXPECT_EQ(r.tokens, "name:a = ERR(\\) int:1 NL EOF");
  EXPECT_EQ(r.errors, "1:5: error: a line-continuation backslash must be the "
                      "last character of its line\n");
}

TEST(LexerTest, MismatchedDedent) {
  LexResult r = lex("a\n"
                    "    b\n"
                    "  c\n"
                    "  d\n"
                    "      e\n"
                    "f\n");
  // `c` is reported, then stays in the block of `b`, which now has its
  // column: `d` at the same column needs no second report.
  EXPECT_EQ(r.tokens, "name:a NL INDENT name:b NL name:c NL name:d NL "
                      "INDENT name:e NL DEDENT DEDENT name:f NL EOF");
  EXPECT_EQ(
      r.errors,
      "3:3: error: unindent does not match any outer indentation level\n");
}

TEST(LexerTest, TabsInIndentation) {
  LexResult r = lex("a\n"
                    "\tb\n"
                    "\tc\n"
                    "d\te\n");
  // Reported once per file; tabs count to the next multiple of 8 so that
  // consistently tabbed files keep their structure. Tabs after the
  // indentation are ordinary whitespace.
  EXPECT_EQ(r.tokens,
            "name:a NL INDENT name:b NL name:c NL DEDENT name:d name:e NL EOF");
  EXPECT_EQ(r.errors,
            "2:1: error: tabs are not allowed in indentation; use spaces\n");

  // A tab and eight spaces are the same level; two spaces and a tab too.
  r = lex("a\n\tb\n        c\n  \td\n");
  EXPECT_EQ(r.tokens,
            "name:a NL INDENT name:b NL name:c NL name:d NL DEDENT EOF");
  EXPECT_EQ(r.errors,
            "2:1: error: tabs are not allowed in indentation; use spaces\n");
}

TEST(LexerTest, IntegerLiterals) {
  LexResult r = lex("0 7 1_000 0x1F 0XfF 0b101 0B1_1 0o17 00 "
                    "9223372036854775807 0x7fffffffffffffff");
  EXPECT_EQ(r.tokens, "int:0 int:7 int:1000 int:31 int:255 int:5 int:3 "
                      "int:15 int:0 int:9223372036854775807 "
                      "int:9223372036854775807 NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, FloatLiterals) {
  LexResult r = lex("1.0 .5 1. 1e-3 2.5E+4 1_000.25 3e2 1.e1 0.1");
  EXPECT_EQ(r.tokens, "float:1 float:0.5 float:1 float:0.001 float:25000 "
                      "float:1000.25 float:300 float:10 float:0.1 NL EOF");
  EXPECT_EQ(r.errors, "");
}

TEST(LexerTest, IntegerOverflow) {
  LexResult r = lex("9223372036854775808 0x8000000000000000\n"
                    "x = 99999999999999999999999");
  // The tokens stay integers so that parsing continues normally.
  EXPECT_EQ(r.tokens, "int:0 int:0 NL name:x = int:0 NL EOF");
  EXPECT_EQ(r.errors,
            "1:1: error: integer literal '9223372036854775808' is too large "
            "(the maximum is 9223372036854775807)\n"
            "1:21: error: integer literal '0x8000000000000000' is too large "
            "(the maximum is 9223372036854775807)\n"
            "2:5: error: integer literal '99999999999999999999999' is too "
            "large (the maximum is 9223372036854775807)\n");
}

TEST(LexerTest, MalformedNumbers) {
  LexResult r = lex("0x 1abc 1e 1e+ 1__0 1_ 0b102 007 1.5f ok");
  EXPECT_EQ(r.tokens, "ERR(0x) ERR(1abc) ERR(1e) ERR(1e+) ERR(1__0) ERR(1_) "
                      "ERR(0b102) ERR(007) ERR(1.5f) name:ok NL EOF");
  EXPECT_EQ(r.errors,
            "1:1: error: invalid numeric literal '0x'\n"
            "1:4: error: invalid numeric literal '1abc'\n"
            "1:9: error: invalid numeric literal '1e'\n"
            "1:12: error: invalid numeric literal '1e+'\n"
            "1:16: error: invalid numeric literal '1__0'\n"
            "1:21: error: invalid numeric literal '1_'\n"
            "1:24: error: invalid numeric literal '0b102'\n"
            "1:30: error: leading zeros are not allowed in decimal integer "
            "literals: '007'\n"
            "1:34: error: invalid numeric literal '1.5f'\n");
}

TEST(LexerTest, StringLiterals) {
  LexResult r = lex("a = \"x(\" + 'y\\'z' + \"\"\"multi\n"
                    "line (\"\"\" b\n"
                    "c = 'unterminated\n"
                    "d\n");
  EXPECT_EQ(r.tokens, "name:a = ERR(\"x(\") + ERR('y\\'z') + "
                      "ERR(\"\"\"multi\nline (\"\"\") name:b NL name:c = "
                      "ERR('unterminated) NL name:d NL EOF");
  EXPECT_EQ(r.errors,
            "1:5: error: string literals are not supported in .tile kernels\n"
            "1:12: error: string literals are not supported in .tile kernels\n"
            "1:21: error: string literals are not supported in .tile kernels\n"
            "3:5: error: string literals are not supported in .tile kernels\n");
}

TEST(LexerTest, InvalidCharacters) {
  LexResult r = lex("a $$ b ? c\n"
                    "d ! e != f ; g\n"
                    "\xc3\xa9t\xc3\xa9 " +
                    std::string("\x00\x01\x7f", 3) + " h {}");
  // One error per run of bad characters; lexing goes on after each.
  EXPECT_EQ(r.tokens, "name:a ERR($$) name:b ERR(?) name:c NL name:d ERR(!) "
                      "name:e != name:f ERR(;) name:g NL ERR(\xc3\xa9) name:t "
                      "ERR(\xc3\xa9) " +
                          std::string("ERR(\x00\x01\x7f", 7) +
                          ") name:h ERR({}) NL EOF");
  EXPECT_EQ(r.errors, "1:3: error: invalid character '$' in source\n"
                      "1:8: error: invalid character '?' in source\n"
                      "2:3: error: invalid character '!' in source\n"
                      "2:12: error: invalid character ';' in source\n"
                      "3:1: error: invalid character '\\xc3' in source\n"
                      "3:4: error: invalid character '\\xc3' in source\n"
                      "3:7: error: invalid character '\\x00' in source\n"
                      "3:13: error: invalid character '{' in source\n");
}

TEST(LexerTest, UnsupportedKeywords) {
  const char *words[] = {"lambda", "import", "from",   "class",    "with",
                         "try",    "except", "global", "nonlocal", "yield",
                         "async",  "await",  "del",    "raise",    "is"};
  for (const char *word : words) {
    LexResult r = lex(std::string(word) + " x");
    EXPECT_EQ(r.tokens, "ERR(" + std::string(word) + ") name:x NL EOF");
    EXPECT_EQ(r.errors, "1:1: error: '" + std::string(word) +
                            "' is not supported in .tile kernels\n");
  }
}

TEST(LexerTest, UnclosedBracketAtEndOfFile) {
  LexResult r = lex("a = f(x, [1,\n"
                    "  2]\n"
                    "b = 3\n");
  EXPECT_EQ(r.tokens, "name:a = name:f ( name:x , [ int:1 , int:2 ] name:b = "
                      "int:3 ERR() NL EOF");
  EXPECT_EQ(r.errors, "1:6: error: unclosed '(': expected a matching ')' "
                      "before the end of the file\n");
}

TEST(LexerTest, StrayClosingBracketDoesNotUnderflow) {
  LexResult r = lex(") ]\nx\n");
  EXPECT_EQ(r.tokens, ") ] NL name:x NL EOF");
}

TEST(LexerTest, StopsAfterTooManyErrors) {
  LexResult r = lex("$ a $ b $ c $ d $ e", /*maxErrors=*/3);
  EXPECT_EQ(r.tokens, "ERR($) name:a ERR($) name:b ERR($) EOF");
  EXPECT_EQ(r.errors, "1:1: error: invalid character '$' in source\n"
                      "1:5: error: invalid character '$' in source\n"
                      "1:9: error: invalid character '$' in source\n"
                      "error: too many errors emitted, stopping now\n");
}

//===----------------------------------------------------------------------===//
// Parser: the whole example
//===----------------------------------------------------------------------===//

const char *const kFmhaSource = R"(# comment
INV_LOG_2 = 1.4426950408889634

kernel fmha(Q: Tensor[DTYPE, 4], K: Tensor[DTYPE, 4], Out: Tensor[DTYPE, 4],
            qk_scale: f32, input_pos: i32,
            DTYPE: const dtype = f16, TILE_M: const int = 64, CAUSAL: const bool = True):
    bid_x = bid(0)
    offs_m = bid_x * TILE_M + arange(TILE_M, dtype=i32)
    offs_m += input_pos
    offs_m = offs_m[:, None]
    m_i = full((TILE_M, 1), -inf, dtype=f32)
    q = load(Q, index=(b, h, bid_x, 0), shape=(1, 1, TILE_M, TILE_D)).reshape((TILE_M, TILE_D))
    k_seqlen = K.shape[2]
    if CAUSAL:
        Tc = cdiv(min(m_end, k_seqlen), TILE_N)
    elif not EVEN_K:
        Tc = 1
    else:
        Tc = cdiv(k_seqlen, TILE_N)
    for j in range(0, Tc):
        if (CAUSAL or not EVEN_K) and j >= mask_start:
            mask = mask & (offs_m >= offs_n)
        p = p.astype(Q.dtype)
    store(Out, index=(b, h, bid_x, 0), tile=acc)
)";

TEST(ParserTest, FlashAttentionExample) {
  ParseResult r = parse(kFmhaSource);
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast, R"((module
  (global INV_LOG_2 (float 1.4426950408889634))
  (kernel fmha
    (param Q (subscript (name Tensor) (name DTYPE) (int 4)))
    (param K (subscript (name Tensor) (name DTYPE) (int 4)))
    (param Out (subscript (name Tensor) (name DTYPE) (int 4)))
    (param qk_scale (name f32))
    (param input_pos (name i32))
    (param DTYPE const (name dtype) (default (name f16)))
    (param TILE_M const (name int) (default (int 64)))
    (param CAUSAL const (name bool) (default (bool True)))
    (body
      (assign bid_x (call (name bid) (int 0)))
      (assign offs_m (binop + (binop * (name bid_x) (name TILE_M)) (call (name arange) (name TILE_M) (kw dtype (name i32)))))
      (augassign offs_m += (name input_pos))
      (assign offs_m (subscript (name offs_m) (slice _ _ _) (none)))
      (assign m_i (call (name full) (tuple (name TILE_M) (int 1)) (unary - (name inf)) (kw dtype (name f32))))
      (assign q (call (attr (call (name load) (name Q) (kw index (tuple (name b) (name h) (name bid_x) (int 0))) (kw shape (tuple (int 1) (int 1) (name TILE_M) (name TILE_D)))) reshape) (tuple (name TILE_M) (name TILE_D))))
      (assign k_seqlen (subscript (attr (name K) shape) (int 2)))
      (if (name CAUSAL)
        (then
          (assign Tc (call (name cdiv) (call (name min) (name m_end) (name k_seqlen)) (name TILE_N))))
        (else
          (if (unary not (name EVEN_K))
            (then
              (assign Tc (int 1)))
            (else
              (assign Tc (call (name cdiv) (name k_seqlen) (name TILE_N)))))))
      (for j (call (name range) (int 0) (name Tc))
        (if (boolop and (boolop or (name CAUSAL) (unary not (name EVEN_K))) (compare (name j) >= (name mask_start)))
          (then
            (assign mask (binop & (name mask) (compare (name offs_m) >= (name offs_n))))))
        (assign p (call (attr (name p) astype) (attr (name Q) dtype))))
      (expr (call (name store) (name Out) (kw index (tuple (name b) (name h) (name bid_x) (int 0))) (kw tile (name acc)))))))
)");
}

TEST(ParserTest, EveryPrefixOfTheExampleParsesWithoutCrashing) {
  StringRef source = kFmhaSource;
  for (size_t n = 0; n <= source.size(); ++n) {
    ParseResult r = parse(source.take_front(n));
    // A prefix that ends at a line boundary inside a block is still valid;
    // the printer must cope with whatever partial tree comes back.
    EXPECT_FALSE(r.ast.empty());
  }
}

//===----------------------------------------------------------------------===//
// Parser: expressions
//===----------------------------------------------------------------------===//

TEST(ParserTest, ArithmeticPrecedence) {
  EXPECT_EQ(parseExpr("1 + 2 * 3"),
            "(binop + (int 1) (binop * (int 2) (int 3)))");
  EXPECT_EQ(parseExpr("1 - 2 - 3"),
            "(binop - (binop - (int 1) (int 2)) (int 3))");
  EXPECT_EQ(parseExpr("a / b // c % d * e"),
            "(binop * (binop % (binop // (binop / (name a) (name b)) (name c)) "
            "(name d)) (name e))");
  EXPECT_EQ(parseExpr("(a + b) * c"),
            "(binop * (binop + (name a) (name b)) (name c))");
  EXPECT_EQ(parseExpr("a | b ^ c & d << e + f"),
            "(binop | (name a) (binop ^ (name b) (binop & (name c) (binop << "
            "(name d) (binop + (name e) (name f))))))");
  EXPECT_EQ(parseExpr("a >> b << c"),
            "(binop << (binop >> (name a) (name b)) (name c))");
  EXPECT_EQ(
      parseExpr("a & b | c & d"),
      "(binop | (binop & (name a) (name b)) (binop & (name c) (name d)))");
}

TEST(ParserTest, UnaryAndPower) {
  EXPECT_EQ(parseExpr("2 ** 3 ** 2"),
            "(binop ** (int 2) (binop ** (int 3) (int 2)))");
  EXPECT_EQ(parseExpr("-2 ** 2"), "(unary - (binop ** (int 2) (int 2)))");
  EXPECT_EQ(parseExpr("2 ** -1"), "(binop ** (int 2) (unary - (int 1)))");
  EXPECT_EQ(parseExpr("-a * b"), "(binop * (unary - (name a)) (name b))");
  EXPECT_EQ(parseExpr("- + ~a"), "(unary - (unary + (unary ~ (name a))))");
  EXPECT_EQ(parseExpr("a.b ** c[0]"),
            "(binop ** (attr (name a) b) (subscript (name c) (int 0)))");
}

TEST(ParserTest, ComparisonsAndBooleans) {
  EXPECT_EQ(parseExpr("a < b <= c > d >= e == f != g"),
            "(compare (name a) < (name b) <= (name c) > (name d) >= (name e) "
            "== (name f) != (name g))");
  EXPECT_EQ(
      parseExpr("a + 1 < b * 2"),
      "(compare (binop + (name a) (int 1)) < (binop * (name b) (int 2)))");
  EXPECT_EQ(parseExpr("not a == b"),
            "(unary not (compare (name a) == (name b)))");
  EXPECT_EQ(parseExpr("not not a"), "(unary not (unary not (name a)))");
  EXPECT_EQ(parseExpr("a or b and not c"),
            "(boolop or (name a) (boolop and (name b) (unary not (name c))))");
  EXPECT_EQ(parseExpr("a and b and c"),
            "(boolop and (boolop and (name a) (name b)) (name c))");
  EXPECT_EQ(parseExpr("a or b or c"),
            "(boolop or (boolop or (name a) (name b)) (name c))");
  EXPECT_EQ(parseExpr("(a or b) and c"),
            "(boolop and (boolop or (name a) (name b)) (name c))");
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(parseExpr("True"), "(bool True)");
  EXPECT_EQ(parseExpr("False"), "(bool False)");
  EXPECT_EQ(parseExpr("None"), "(none)");
  EXPECT_EQ(parseExpr("9223372036854775807"), "(int 9223372036854775807)");
  EXPECT_EQ(parseExpr("0x10"), "(int 16)");
  // Floats print in the shortest form that round-trips, always with '.' or
  // an exponent.
  EXPECT_EQ(parseExpr("1.0"), "(float 1.0)");
  EXPECT_EQ(parseExpr("1."), "(float 1.0)");
  EXPECT_EQ(parseExpr(".5"), "(float 0.5)");
  EXPECT_EQ(parseExpr("0.1"), "(float 0.1)");
  EXPECT_EQ(parseExpr("1e-3"), "(float 0.001)");
  EXPECT_EQ(parseExpr("1e-5"), "(float 1e-05)");
  EXPECT_EQ(parseExpr("2.5E+4"), "(float 25000.0)");
  EXPECT_EQ(parseExpr("1e16"), "(float 1e+16)");
  EXPECT_EQ(parseExpr("123456789012345.6"), "(float 123456789012345.6)");
  EXPECT_EQ(parseExpr("1.4426950408889634"), "(float 1.4426950408889634)");
  EXPECT_EQ(parseExpr("5e-324"), "(float 5e-324)");
  EXPECT_EQ(parseExpr("1.7976931348623157e308"),
            "(float 1.7976931348623157e+308)");
  EXPECT_EQ(parseExpr("1e999"), "(float inf)");
}

TEST(ParserTest, Tuples) {
  EXPECT_EQ(parseExpr("()"), "(tuple)");
  EXPECT_EQ(parseExpr("(a,)"), "(tuple (name a))");
  EXPECT_EQ(parseExpr("(a)"), "(name a)");
  EXPECT_EQ(parseExpr("((a))"), "(name a)");
  EXPECT_EQ(parseExpr("(a, b)"), "(tuple (name a) (name b))");
  EXPECT_EQ(parseExpr("(a, b,)"), "(tuple (name a) (name b))");
  EXPECT_EQ(parseExpr("((), (1,), (1, (2, 3)))"),
            "(tuple (tuple) (tuple (int 1)) (tuple (int 1) (tuple (int 2) "
            "(int 3))))");
  // Without brackets, as the value of an assignment.
  EXPECT_EQ(parseExpr("1, 2"), "(tuple (int 1) (int 2))");
  EXPECT_EQ(parseExpr("1,"), "(tuple (int 1))");
}

TEST(ParserTest, CallsAndKeywordArguments) {
  EXPECT_EQ(parseExpr("f()"), "(call (name f))");
  EXPECT_EQ(parseExpr("f(a, b,)"), "(call (name f) (name a) (name b))");
  EXPECT_EQ(parseExpr("f(a, b=1, order=(0, 1))"),
            "(call (name f) (name a) (kw b (int 1)) (kw order (tuple (int 0) "
            "(int 1))))");
  EXPECT_EQ(parseExpr("f(x=1,)"), "(call (name f) (kw x (int 1)))");
  EXPECT_EQ(parseExpr("f(a)(b)"), "(call (call (name f) (name a)) (name b))");
  EXPECT_EQ(
      parseExpr("x.reshape((1, 2)).astype(f32)"),
      "(call (attr (call (attr (name x) reshape) (tuple (int 1) (int 2))) "
      "astype) (name f32))");
  EXPECT_EQ(parseExpr("f(a == b, c=d < e)"),
            "(call (name f) (compare (name a) == (name b)) (kw c (compare "
            "(name d) < (name e))))");
}

TEST(ParserTest, SubscriptsAndSlices) {
  EXPECT_EQ(parseExpr("x[0]"), "(subscript (name x) (int 0))");
  EXPECT_EQ(parseExpr("x[i, j]"), "(subscript (name x) (name i) (name j))");
  EXPECT_EQ(parseExpr("x[i,]"), "(subscript (name x) (name i))");
  EXPECT_EQ(parseExpr("x[:, None]"),
            "(subscript (name x) (slice _ _ _) (none))");
  EXPECT_EQ(parseExpr("x[None, :]"),
            "(subscript (name x) (none) (slice _ _ _))");
  EXPECT_EQ(parseExpr("x[1:2]"),
            "(subscript (name x) (slice (int 1) (int 2) _))");
  EXPECT_EQ(parseExpr("x[1:]"), "(subscript (name x) (slice (int 1) _ _))");
  EXPECT_EQ(parseExpr("x[:2]"), "(subscript (name x) (slice _ (int 2) _))");
  EXPECT_EQ(parseExpr("x[::2]"), "(subscript (name x) (slice _ _ (int 2)))");
  EXPECT_EQ(parseExpr("x[::]"), "(subscript (name x) (slice _ _ _))");
  EXPECT_EQ(parseExpr("x[a:b:c, :-1]"),
            "(subscript (name x) (slice (name a) (name b) (name c)) (slice _ "
            "(unary - (int 1)) _))");
  EXPECT_EQ(parseExpr("K.shape[2]"),
            "(subscript (attr (name K) shape) (int 2))");
  EXPECT_EQ(parseExpr("x[0][1]"),
            "(subscript (subscript (name x) (int 0)) (int 1))");
}

//===----------------------------------------------------------------------===//
// Parser: statements and top level
//===----------------------------------------------------------------------===//

TEST(ParserTest, SimpleStatements) {
  ParseResult r = parse("kernel k():\n"
                        "    pass\n"
                        "    return\n"
                        "    return x\n"
                        "    a = 1\n"
                        "    a, b = f()\n"
                        "    a, b, = 1, 2\n"
                        "    a, = t\n"
                        "    a, b = b, a\n"
                        "    (a) = 2\n"
                        "    store(x)\n"
                        "    x\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (body\n"
                   "      (pass)\n"
                   "      (return)\n"
                   "      (return (name x))\n"
                   "      (assign a (int 1))\n"
                   "      (assign a b (call (name f)))\n"
                   "      (assign a b (tuple (int 1) (int 2)))\n"
                   "      (assign a (name t))\n"
                   "      (assign a b (tuple (name b) (name a)))\n"
                   "      (assign a (int 2))\n"
                   "      (expr (call (name store) (name x)))\n"
                   "      (expr (name x)))))\n");
}

TEST(ParserTest, AugmentedAssignments) {
  ParseResult r = parse("kernel k():\n"
                        "    a += 1\n    a -= 1\n    a *= 1\n    a /= 1\n"
                        "    a //= 1\n    a %= 1\n    a &= 1\n    a |= 1\n"
                        "    a ^= 1\n    a <<= 1\n    a >>= 1\n    a **= 1\n");
  EXPECT_EQ(r.errors, "");
  std::string expected = "(module\n  (kernel k\n    (body";
  for (const char *op :
       {"+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "**"})
    expected += std::string("\n      (augassign a ") + op + "= (int 1))";
  expected += ")))\n";
  EXPECT_EQ(r.ast, expected);
}

TEST(ParserTest, IfElifElse) {
  ParseResult r = parse("kernel k():\n"
                        "    if a:\n"
                        "        x = 1\n"
                        "        y = 2\n"
                        "    elif b:\n"
                        "        pass\n"
                        "    elif c:\n"
                        "        pass\n"
                        "    else:\n"
                        "        z = 3\n"
                        "    if d:\n"
                        "        pass\n"
                        "    if e: w = 4\n"
                        "    else: w = 5\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (body\n"
                   "      (if (name a)\n"
                   "        (then\n"
                   "          (assign x (int 1))\n"
                   "          (assign y (int 2)))\n"
                   "        (else\n"
                   "          (if (name b)\n"
                   "            (then\n"
                   "              (pass))\n"
                   "            (else\n"
                   "              (if (name c)\n"
                   "                (then\n"
                   "                  (pass))\n"
                   "                (else\n"
                   "                  (assign z (int 3))))))))\n"
                   "      (if (name d)\n"
                   "        (then\n"
                   "          (pass)))\n"
                   "      (if (name e)\n"
                   "        (then\n"
                   "          (assign w (int 4)))\n"
                   "        (else\n"
                   "          (assign w (int 5)))))))\n");
}

TEST(ParserTest, ForLoopsAndNestedBlocks) {
  ParseResult r = parse("kernel k():\n"
                        "    for i in range(4):\n"
                        "        for j in range(i, 8, 2):\n"
                        "            if i < j:\n"
                        "                acc += i\n"
                        "        acc = acc * 2\n"
                        "    for t in range(3): pass\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast,
            "(module\n"
            "  (kernel k\n"
            "    (body\n"
            "      (for i (call (name range) (int 4))\n"
            "        (for j (call (name range) (name i) (int 8) (int 2))\n"
            "          (if (compare (name i) < (name j))\n"
            "            (then\n"
            "              (augassign acc += (name i)))))\n"
            "        (assign acc (binop * (name acc) (int 2))))\n"
            "      (for t (call (name range) (int 3))\n"
            "        (pass)))))\n");
}

TEST(ParserTest, KernelsAndGlobals) {
  ParseResult r = parse("A = 1\n"
                        "kernel first(x: Tensor[f16, 2], n: i32,\n"
                        "             BLOCK: const int = 64,):\n"
                        "    pass\n"
                        "\n"
                        "B = (2, 3)\n"
                        "kernel second(): return\n"
                        "C = -A\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast,
            "(module\n"
            "  (global A (int 1))\n"
            "  (global B (tuple (int 2) (int 3)))\n"
            "  (global C (unary - (name A)))\n"
            "  (kernel first\n"
            "    (param x (subscript (name Tensor) (name f16) (int 2)))\n"
            "    (param n (name i32))\n"
            "    (param BLOCK const (name int) (default (int 64)))\n"
            "    (body\n"
            "      (pass)))\n"
            "  (kernel second\n"
            "    (body\n"
            "      (return))))\n");
}

TEST(ParserTest, KernelHints) {
  ParseResult r = parse("@hints(num_warps=N * 2, warp_specialize=True,)\n"
                        "kernel k(N: const int = 4):\n"
                        "    pass\n"
                        "kernel plain():\n"
                        "    pass\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (hints (kw num_warps (binop * (name N) (int 2))) (kw "
                   "warp_specialize (bool True)))\n"
                   "    (param N const (name int) (default (int 4)))\n"
                   "    (body\n"
                   "      (pass)))\n"
                   "  (kernel plain\n"
                   "    (body\n"
                   "      (pass))))\n");
  // An empty @hints() is a decorator with no hints.
  EXPECT_EQ(parse("@hints()\nkernel k():\n    pass\n").ast,
            "(module\n  (kernel k\n    (hints)\n    (body\n      (pass))))\n");
}

TEST(ParserTest, KernelHintErrors) {
  // Each malformed decorator is one error; the kernel after it is parsed.
  EXPECT_EQ(parseErrors("@hints(8)\nkernel k():\n    pass\n"),
            "1:8: error: @hints takes keyword arguments only (name=value)\n");
  EXPECT_EQ(parseErrors("@kernel_hints(a=1)\nkernel k():\n    pass\n"),
            "1:1: error: unknown decorator: a kernel takes "
            "'@hints(name=value, ...)' and '@tune(NAME=(value, ...), "
            "...)'\n");
  EXPECT_EQ(parseErrors("@hints\nkernel k():\n    pass\n"),
            "1:1: error: unknown decorator: a kernel takes "
            "'@hints(name=value, ...)' and '@tune(NAME=(value, ...), "
            "...)'\n");
  EXPECT_EQ(parseErrors("@hints(a=1) x\nkernel k():\n    pass\n"),
            "1:13: error: expected end of line after @hints(...), found "
            "'x'\n");
  EXPECT_EQ(parseErrors("@hints(a=1)\nX = 2\n"),
            "2:1: error: expected 'kernel' on the line after a decorator, "
            "found 'X'\n");
  EXPECT_EQ(parseErrors("@hints(a=1)\n@hints(b=2)\nkernel k():\n    pass\n"),
            "2:1: error: @hints is given twice\n");
  // @tune and @hints, in either order.
  EXPECT_EQ(parseErrors("@tune(A=(1, 2))\n@hints(a=1)\nkernel k():\n"
                        "    pass\n"),
            "");
  EXPECT_EQ(parseErrors("@tune(1)\nkernel k():\n    pass\n"),
            "1:7: error: @tune takes keyword arguments only (name=value)\n");
  EXPECT_EQ(parseErrors("@hints(a=1, a=2)\nkernel k():\n    pass\n"),
            "1:13: error: keyword argument repeated: 'a'\n");
  EXPECT_EQ(parseErrors("@hints(a=1)\n"), "1:12: error: expected 'kernel' on "
                                          "the line after a decorator, "
                                          "found end of file\n");
}

TEST(ParserTest, EmptyModule) {
  EXPECT_EQ(parse("").ast, "(module)\n");
  EXPECT_EQ(parse("\n# nothing\n\n").ast, "(module)\n");
}

TEST(ParserTest, SourceRanges) {
  std::string source = "kernel k(n: i32):\n"
                       "    y = (a + b) * f(c, d=1)[0]\n"
                       "    if y:  # comment\n"
                       "        z = 1\n";
  Harness h(source);
  std::unique_ptr<ast::Module> module = parseModule(h.bufferId, h.diag);
  ASSERT_EQ(h.errors(), "");
  auto text = [](llvm::SMRange range) {
    return StringRef(range.Start.getPointer(),
                     range.End.getPointer() - range.Start.getPointer())
        .str();
  };
  const ast::Kernel &kernel = module->kernels.at(0);
  EXPECT_EQ(text(kernel.nameRange), "k");
  EXPECT_EQ(text(kernel.params.at(0).nameRange), "n");
  EXPECT_EQ(text(kernel.params.at(0).type->getRange()), "i32");
  // The kernel range runs from `kernel` to the end of its last statement.
  EXPECT_EQ(text(kernel.range), StringRef(source).drop_back().str());

  const auto &assign = llvm::cast<ast::Assign>(*kernel.body.at(0));
  EXPECT_EQ(text(assign.getRange()), "y = (a + b) * f(c, d=1)[0]");
  EXPECT_EQ(text(assign.targets.at(0)->getRange()), "y");
  const auto &mul = llvm::cast<ast::Binary>(*assign.value);
  EXPECT_EQ(text(mul.getRange()), "(a + b) * f(c, d=1)[0]");
  EXPECT_EQ(StringRef(mul.opLoc.getPointer(), 1), "*");
  EXPECT_EQ(text(mul.lhs->getRange()), "a + b");
  const auto &subscript = llvm::cast<ast::Subscript>(*mul.rhs);
  EXPECT_EQ(text(subscript.getRange()), "f(c, d=1)[0]");
  const auto &call = llvm::cast<ast::Call>(*subscript.base);
  EXPECT_EQ(text(call.getRange()), "f(c, d=1)");
  EXPECT_EQ(text(call.keywords.at(0).nameRange), "d");
  EXPECT_EQ(text(call.keywords.at(0).value->getRange()), "1");

  const auto &ifStmt = llvm::cast<ast::If>(*kernel.body.at(1));
  EXPECT_EQ(text(ifStmt.getRange()), "if y:  # comment\n        z = 1");
}

//===----------------------------------------------------------------------===//
// Parser: diagnostics and recovery
//===----------------------------------------------------------------------===//

TEST(ParserErrorTest, KernelHeader) {
  EXPECT_EQ(parseErrors("kernel k(x: i32)\n    pass\n"),
            "1:17: error: expected ':' after the kernel parameter list\n");
  EXPECT_EQ(parseErrors("kernel (x: i32):\n    pass\n"),
            "1:8: error: expected a kernel name after 'kernel', found '('\n");
  EXPECT_EQ(parseErrors("kernel k:\n    pass\n"),
            "1:9: error: expected '(' after the kernel name, found ':'\n");
  EXPECT_EQ(parseErrors("kernel k(x):\n    pass\n"),
            "1:11: error: expected ':' and a type after parameter 'x'\n");
  EXPECT_EQ(parseErrors("kernel k(x: i32 y: i32):\n    pass\n"),
            "1:17: error: expected ',' or ')' after parameter 'x', found 'y'\n"
            "1:9: note: to match this '('\n");
  EXPECT_EQ(parseErrors("kernel k(1: i32):\n    pass\n"),
            "1:10: error: expected a parameter name, found '1'\n");
  EXPECT_EQ(parseErrors("kernel k(x: i32, x: f32):\n    pass\n"),
            "1:18: error: duplicate parameter 'x' in the kernel signature\n"
            "1:10: note: 'x' was first declared here\n");
  EXPECT_EQ(parseErrors("kernel k():\npass\n"),
            "2:1: error: expected an indented block after the kernel "
            "signature\n"
            "2:1: error: expected 'kernel', 'def' or a constant 'NAME = "
            "value' at the top level, found 'pass'\n");
}

TEST(ParserErrorTest, HeaderErrorSkipsTheKernelAndGoesOn) {
  ParseResult r = parse("kernel bad(x: i32)\n"
                        "    y = )\n"
                        "kernel good():\n"
                        "    y = )\n");
  // The body of the broken kernel is skipped; the next kernel is checked.
  EXPECT_EQ(r.errors,
            "1:19: error: expected ':' after the kernel parameter list\n"
            "4:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(r.ast, "(module\n  (kernel good\n    (body)))\n");
}

TEST(ParserErrorTest, TopLevel) {
  EXPECT_EQ(parseErrors("x += 1\n"),
            "1:3: error: expected '=' after 'x': the top level holds only "
            "kernels, functions ('def') and constants 'NAME = value'\n");
  EXPECT_EQ(parseErrors("if x:\n    pass\ny = 1\n"),
            "1:1: error: expected 'kernel', 'def' or a constant 'NAME = "
            "value' at the top level, found 'if'\n");
  EXPECT_EQ(parseErrors("x = 1\n  y = 2\n"), "2:3: error: unexpected indent\n");
  // A function's header error skips its body; the next line is parsed.
  EXPECT_EQ(parseErrors("def f(x: int):\n    pass\nx = )\n"),
            "1:8: error: a function's parameters take no type: each call "
            "binds the caller's values as they are\n"
            "3:5: error: expected an expression, found ')'\n");
}

TEST(ParserTest, Functions) {
  ParseResult r = parse("def f(a, b=2):\n    c = a + b\n    return c, a\n"
                        "def g():\n    return\n");
  EXPECT_EQ(r.errors, "");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (def f\n"
                   "    (param a)\n"
                   "    (param b (default (int 2)))\n"
                   "    (body\n"
                   "      (assign c (binop + (name a) (name b)))\n"
                   "      (return (tuple (name c) (name a)))))\n"
                   "  (def g\n"
                   "    (body\n"
                   "      (return))))\n");
}

TEST(ParserErrorTest, ExpectedExpression) {
  EXPECT_EQ(parseErrors("kernel k():\n    x = )\n"),
            "2:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x =    # nothing\n"),
            "2:8: error: expected an expression, found end of line\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = 1 +\n"),
            "2:12: error: expected an expression, found end of line\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = f(1, , 2)\n"),
            "2:14: error: expected an expression, found ','\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a[]\n"),
            "2:11: error: expected an expression, found ']'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a == not b\n"),
            "2:14: error: expected an expression, found 'not'\n");
}

TEST(ParserErrorTest, BadStatementEnds) {
  EXPECT_EQ(parseErrors("kernel k():\n    x = 1 2\n"),
            "2:11: error: expected end of line after the statement, found "
            "'2'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a b\n"),
            "2:11: error: expected end of line after the statement, found "
            "'b'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a = 1\n"),
            "2:11: error: chained assignment 'a = b = value' is not "
            "supported\n");
  EXPECT_EQ(parseErrors("kernel k():\n    a, b\n"),
            "2:9: error: expected '=' after the assignment targets, found end "
            "of line\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = (1 2)\n"),
            "2:12: error: expected ',' or ')', found '2'\n"
            "2:9: note: to match this '('\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = f(1 2)\n"),
            "2:13: error: expected ',' or ')' after the argument, found '2'\n"
            "2:10: note: to match this '('\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a[1 2]\n"),
            "2:13: error: expected ',' or ']' in the subscript, found '2'\n"
            "2:10: note: to match this '['\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a.1\n"),
            "2:10: error: expected end of line after the statement, found "
            "'.1'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = a.(b)\n"),
            "2:11: error: expected an attribute name after '.', found '('\n");
}

TEST(ParserErrorTest, AssignmentTargets) {
  EXPECT_EQ(parseErrors("kernel k():\n    f(x) = 1\n"),
            "2:5: error: cannot assign to a call\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x.y = 1\n"),
            "2:5: error: cannot assign to an attribute\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x[0] = 1\n"),
            "2:5: error: cannot assign to a subscript\n");
  EXPECT_EQ(parseErrors("kernel k():\n    1 = x\n"),
            "2:5: error: cannot assign to a literal\n");
  EXPECT_EQ(parseErrors("kernel k():\n    a, b + 1 = x\n"),
            "2:8: error: cannot assign to an expression\n");
  EXPECT_EQ(parseErrors("kernel k():\n    (a, b) = x\n"),
            "2:5: error: cannot assign to a parenthesized tuple; write 'a, b "
            "= ...'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    a == b = x\n"),
            "2:5: error: cannot assign to a comparison\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x.y += 1\n"),
            "2:5: error: 'x.y' is not a valid augmented-assignment target\n");
  EXPECT_EQ(parseErrors("kernel k():\n    f(a) *= 2\n"),
            "2:5: error: 'f(a)' is not a valid augmented-assignment target\n");
  EXPECT_EQ(parseErrors("kernel k():\n    a, b += 1\n"),
            "2:5: error: 'a, b' is not a valid augmented-assignment target\n");
}

TEST(ParserErrorTest, Arguments) {
  EXPECT_EQ(parseErrors("kernel k():\n    f(a=1, b)\n"),
            "2:12: error: positional argument follows keyword argument\n");
  EXPECT_EQ(parseErrors("kernel k():\n    f(order=1, x=2, order=3)\n"),
            "2:21: error: keyword argument repeated: 'order'\n");
  // Both problems in one call are reported.
  EXPECT_EQ(parseErrors("kernel k():\n    f(a=1, a=2, 3)\n"),
            "2:12: error: keyword argument repeated: 'a'\n"
            "2:17: error: positional argument follows keyword argument\n");
  EXPECT_EQ(parseErrors("kernel k():\n    f(a.b=1)\n"),
            "2:7: error: expected a parameter name before '=' in a keyword "
            "argument\n");
}

TEST(ParserErrorTest, Blocks) {
  EXPECT_EQ(parseErrors("kernel k():\n    for i in range(3):\n    x = 1\n"),
            "3:5: error: expected an indented block after 'for'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    if x:\n"),
            "2:10: error: expected an indented block after 'if'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    if x\n        y = 1\n    z = )\n"),
            "2:9: error: expected ':' after the if condition\n"
            "4:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    if x:\n        pass\n    elif y\n"
                        "        pass\n    else:\n        pass\n"),
            "4:11: error: expected ':' after the elif condition\n");
  EXPECT_EQ(parseErrors("kernel k():\n    if x:\n        pass\n    else\n"
                        "        pass\n"),
            "4:9: error: expected ':' after 'else'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    for i range(3):\n        pass\n"),
            "2:11: error: expected 'in' after the loop variable, found "
            "'range'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    for i, j in x:\n        pass\n"),
            "2:10: error: a for loop takes a single loop variable\n");
  EXPECT_EQ(parseErrors("kernel k():\n    for 1 in x:\n        pass\n"),
            "2:9: error: expected a loop variable name after 'for', found "
            "'1'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    for i in x\n        pass\n"),
            "2:15: error: expected ':' after the for-loop range\n");
  EXPECT_EQ(parseErrors("kernel k():\n    x = 1\n        y = 2\n    z = 3\n"),
            "3:9: error: unexpected indent\n");
  EXPECT_EQ(parseErrors("kernel k():\n    else:\n        pass\n"),
            "2:5: error: 'else' without a matching 'if'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    elif x:\n        pass\n"),
            "2:5: error: 'elif' without a matching 'if'\n");
  EXPECT_EQ(parseErrors("kernel k():\n    if x: for i in y: pass\n"),
            "2:11: error: 'for' cannot follow ':' on the same line; start an "
            "indented block\n");
  EXPECT_EQ(parseErrors("kernel k():\n    kernel j():\n        pass\n"),
            "2:5: error: kernels cannot be nested; 'kernel' must start at the "
            "top level\n");
}

TEST(ParserErrorTest, BadDedentKeepsParsing) {
  ParseResult r = parse("kernel k(x: i32):\n"
                        "    if x:\n"
                        "        y = 1\n"
                        "      z = 2\n"
                        "      w = 3\n"
                        "    v = 4\n");
  EXPECT_EQ(r.errors, "4:7: error: unindent does not match any outer "
                      "indentation level\n");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (param x (name i32))\n"
                   "    (body\n"
                   "      (if (name x)\n"
                   "        (then\n"
                   "          (assign y (int 1))\n"
                   "          (assign z (int 2))\n"
                   "          (assign w (int 3))))\n"
                   "      (assign v (int 4)))))\n");
}

TEST(ParserErrorTest, BadDedentDoesNotCloseTheKernel) {
  ParseResult r = parse("kernel k():\n"
                        "        y = 1\n"
                        "    z = 2\n"
                        "    w = 3\n");
  EXPECT_EQ(r.errors, "3:5: error: unindent does not match any outer "
                      "indentation level\n");
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (body\n"
                   "      (assign y (int 1))\n"
                   "      (assign z (int 2))\n"
                   "      (assign w (int 3)))))\n");
}

TEST(ParserErrorTest, LexerErrorsAreNotReportedTwice) {
  EXPECT_EQ(parseErrors("kernel k():\n    x = \"s\" + 1\n    y = $\n"
                        "    with x:\n        pass\n    z = 1 is None\n"),
            "2:9: error: string literals are not supported in .tile kernels\n"
            "3:9: error: invalid character '$' in source\n"
            "4:5: error: 'with' is not supported in .tile kernels\n"
            "6:11: error: 'is' is not supported in .tile kernels\n");
  EXPECT_EQ(parseErrors("kernel k(x: i32):\n    y = (x +\n"),
            "2:9: error: unclosed '(': expected a matching ')' before the end "
            "of the file\n");
}

TEST(ParserErrorTest, SeveralErrorsInOneRun) {
  ParseResult r = parse("G = )\n"
                        "kernel k(x: i32):\n"
                        "    a = 1 +\n"
                        "    b = 2\n"
                        "    f(x) = 3\n"
                        "    for i in range(3):\n"
                        "        c = (i,\n"
                        "             ])\n"
                        "        d = i\n"
                        "    e = f(p=1, p=2)\n"
                        "    g = 0x\n"
                        "    h = 3\n");
  EXPECT_EQ(r.errors, "1:5: error: expected an expression, found ')'\n"
                      "3:12: error: expected an expression, found end of line\n"
                      "5:5: error: cannot assign to a call\n"
                      "8:14: error: expected an expression, found ']'\n"
                      "10:16: error: keyword argument repeated: 'p'\n"
                      "11:9: error: invalid numeric literal '0x'\n");
  // The statements around the errors are all there.
  EXPECT_EQ(r.ast, "(module\n"
                   "  (kernel k\n"
                   "    (param x (name i32))\n"
                   "    (body\n"
                   "      (assign b (int 2))\n"
                   "      (for i (call (name range) (int 3))\n"
                   "        (assign d (name i)))\n"
                   "      (assign e (call (name f) (kw p (int 1))))\n"
                   "      (assign h (int 3)))))\n");
}

TEST(ParserErrorTest, StopsAfterTooManyErrors) {
  std::string source = "kernel k():\n";
  for (int i = 0; i < 100; ++i)
    source += "    x = )\n";
  ParseResult r = parse(source, /*maxErrors=*/5);
  EXPECT_EQ(r.errors, "2:9: error: expected an expression, found ')'\n"
                      "3:9: error: expected an expression, found ')'\n"
                      "4:9: error: expected an expression, found ')'\n"
                      "5:9: error: expected an expression, found ')'\n"
                      "6:9: error: expected an expression, found ')'\n"
                      "error: too many errors emitted, stopping now\n");
  // No notice when the last error is also the last problem in the file.
  EXPECT_EQ(parse("x = )\ny = )\n", /*maxErrors=*/2).errors,
            "1:5: error: expected an expression, found ')'\n"
            "2:5: error: expected an expression, found ')'\n");
}

//===----------------------------------------------------------------------===//
// Limits and hostile input
//===----------------------------------------------------------------------===//

std::string repeat(StringRef s, unsigned n) {
  std::string result;
  for (unsigned i = 0; i < n; ++i)
    result += s;
  return result;
}

TEST(ParserLimitTest, ParenthesesNesting) {
  // At the top level, 256 levels are fine and the 257th is reported at its
  // own parenthesis.
  EXPECT_EQ(
      parseErrors("x = " + repeat("(", 256) + "1" + repeat(")", 256) + "\n"),
      "");
  EXPECT_EQ(
      parseErrors("x = " + repeat("(", 257) + "1" + repeat(")", 257) + "\n"),
      "1:261: error: nesting too deep (limit 256)\n");
  // Within a kernel body the block is one level already.
  EXPECT_EQ(parseErrors("kernel k():\n    x = " + repeat("(", 300) + "1" +
                        repeat(")", 300) + "\n"),
            "2:264: error: nesting too deep (limit 256)\n");
}

TEST(ParserLimitTest, VeryDeepInputRecovers) {
  ParseResult r = parse(
      "kernel k():\n    x = " + repeat("(", 10000) + "1" + repeat(")", 10000) +
      "\n    z = 2\n    y = " + repeat("(", 10000) + "\n    w = 3\n");
  // The innermost unclosed bracket is reported; it swallowed the rest of the
  // file, as in Python.
  EXPECT_EQ(r.errors, "2:264: error: nesting too deep (limit 256)\n"
                      "4:264: error: nesting too deep (limit 256)\n"
                      "4:10008: error: unclosed '(': expected a matching ')' "
                      "before the end of the file\n");
  EXPECT_EQ(r.ast, "(module\n  (kernel k\n    (body\n"
                   "      (assign z (int 2)))))\n");
}

TEST(ParserLimitTest, OtherNestedForms) {
  std::string body = "kernel k():\n    x = ";
  EXPECT_EQ(parseErrors(body + repeat("-", 1000) + "1\n"),
            "2:264: error: nesting too deep (limit 256)\n");
  EXPECT_EQ(parseErrors(body + repeat("not ", 1000) + "1\n"),
            "2:1029: error: nesting too deep (limit 256)\n");
  EXPECT_EQ(parseErrors(body + "2" + repeat("**2", 1000) + "\n"),
            "2:775: error: nesting too deep (limit 256)\n");
  EXPECT_EQ(parseErrors(body + repeat("f(", 1000) + repeat(")", 1000) + "\n"),
            "2:520: error: nesting too deep (limit 256)\n");
  EXPECT_EQ(
      parseErrors(body + repeat("a[", 1000) + "0" + repeat("]", 1000) + "\n"),
      "2:520: error: nesting too deep (limit 256)\n");
}

TEST(ParserLimitTest, BlockNesting) {
  // The kernel body is level 1, so 255 nested ifs fit and the 256th fails.
  auto nestedIfs = [](unsigned n) {
    std::string source = "kernel k():\n";
    for (unsigned i = 0; i < n; ++i)
      source += std::string(4 * (i + 1), ' ') + "if x:\n";
    source += std::string(4 * (n + 1), ' ') + "pass\n";
    source += "    y = )\n";
    return source;
  };
  EXPECT_EQ(parseErrors(nestedIfs(255)),
            "258:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors(nestedIfs(256)),
            "257:1025: error: nesting too deep (limit 256)\n"
            "259:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors(nestedIfs(5000)),
            "257:1025: error: nesting too deep (limit 256)\n"
            "5003:9: error: expected an expression, found ')'\n");
}

TEST(ParserLimitTest, ElifChains) {
  // Each elif nests one level deeper in the tree.
  auto chain = [](unsigned n) {
    return "kernel k():\n    if x: pass\n" + repeat("    elif x: pass\n", n) +
           "    else: pass\n    y = )\n";
  };
  EXPECT_EQ(parseErrors(chain(254)),
            "258:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors(chain(255)),
            "257:5: error: nesting too deep (limit 256)\n"
            "259:9: error: expected an expression, found ')'\n");
  EXPECT_EQ(parseErrors(chain(100000)),
            "257:5: error: nesting too deep (limit 256)\n"
            "100004:9: error: expected an expression, found ')'\n");
}

TEST(ParserLimitTest, LongChainsMakeTallTrees) {
  // A chain of n binary operators is a tree of height n + 1.
  EXPECT_EQ(parseErrors("x = 1" + repeat(" + 1", 255) + "\n"), "");
  EXPECT_EQ(parseErrors("x = 1" + repeat(" + 1", 256) + "\n"),
            "1:1027: error: expression too deep (more than 256 nested "
            "operations); split it into several statements\n");
  EXPECT_EQ(parseErrors("x = a" + repeat(" and a", 1000000) + "\n"),
            "1:1537: error: expression too deep (more than 256 nested "
            "operations); split it into several statements\n");
  EXPECT_EQ(parseErrors("x = a" + repeat(".b", 1000) + "\n"),
            "1:517: error: expression too deep (more than 256 nested "
            "operations); split it into several statements\n");
  // Flat forms are not limited.
  EXPECT_EQ(parseErrors("x = a" + repeat(" < a", 100000) + "\n"), "");
  EXPECT_EQ(parseErrors("x = (" + repeat("1, ", 100000) + ")\n"), "");
  // A chain whose first operand is a parenthesized chain is as tall as both
  // together: 2 x 100 operators fit, 3 x 100 do not.
  auto nestedChains = [](unsigned levels) {
    return "x = " + repeat("(", levels) + "a" +
           repeat(repeat(" + a", 100) + ")", levels) + "\n";
  };
  EXPECT_EQ(parseErrors(nestedChains(2)), "");
  EXPECT_EQ(parseErrors(nestedChains(3)),
            "1:1032: error: expression too deep (more than 256 nested "
            "operations); split it into several statements\n");
}

TEST(ParserLimitTest, BinaryAndRandomInput) {
  std::mt19937 rng(42);
  for (unsigned iter = 0; iter < 300; ++iter) {
    std::string source(rng() % 2000, '\0');
    for (char &c : source)
      c = static_cast<char>(rng());
    ParseResult r = parse(source);
    EXPECT_FALSE(r.ast.empty());
  }
  // NUL bytes are ordinary bad characters.
  ParseResult r = parse(StringRef("x = 1\x00\n\x00\x00y = 2\n", 14));
  EXPECT_EQ(r.errors, "1:6: error: invalid character '\\x00' in source\n"
                      "2:1: error: invalid character '\\x00' in source\n");
}

TEST(ParserLimitTest, RandomTokenSoup) {
  const char *pieces[] = {
      "kernel", "k",    "(",      ")",          "[", "]",    ":",
      ",",      "=",    "+",      "**",         "-", "not",  "if",
      "elif",   "else", "for",    "in",         "x", "1",    "2.5",
      "None",   "\n",   "\n    ", "\n        ", ".", "pass", "return",
      "+=",     "\\\n", "#c\n",   "'s'",        "$", "\t",   "def"};
  std::mt19937 rng(7);
  for (unsigned iter = 0; iter < 300; ++iter) {
    std::string source;
    for (unsigned i = 0, n = rng() % 400; i < n; ++i) {
      source += pieces[rng() % std::size(pieces)];
      source += ' ';
    }
    ParseResult r = parse(source);
    EXPECT_FALSE(r.ast.empty());
  }
}

} // namespace
