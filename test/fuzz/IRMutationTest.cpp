//===- IRMutationTest.cpp - tile-opt never crashes ------------------------===//
//
// The no-crash promise of tile-opt: IR fed to it gets diagnostics, never an
// abort. Starting from real IR (the lit inputs, split at `// -----` and
// `//---`, and the kernels' `tilec --emit=tile|layout` output), it applies
// token-level mutations that keep the IR plausible but make it wrong (drop,
// duplicate or swap lines; change a number, a type, a tensor shape or a
// layout encoding; replace or drop an attribute, drop an operand, rename an
// op to another op; truncate) and runs each result in process, as tile-opt
// would: parse, verify, print, and then, on a clone each, every pass of the
// project alone, canonicalize and cse, and the whole `tile-to-llvm` pipeline
// (kPipelines), with diagnostics captured. Any crash or assertion kills the
// process, which fails the test; the input is then written to stderr and to
// `ir-mutation-crash.mlir`. Each input has a time limit, so a hang fails
// too, and so does a pass that fails without reporting an error.
//
// Input number i is a function of (--seed, i) alone: the first inputs are
// the seeds unmutated, the others are mutated seeds. `--only=I` replays one.
//
// With --fork, inputs run in a child process that is replaced when it
// crashes, so that one crash does not end the search: at the end every
// distinct crash site is listed (signal, first line of the assertion
// message, the two innermost frames of the project, the pipeline) and the
// first inputs that crashed at each are saved as `ir-crash-N.mlir`.
//
//   tile-opt-mutation-test [--seed=N] [--iterations=N] [--seconds=S]
//                          [--timeout=S] [--fork] [--only=I] FILES...
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

static cl::list<std::string>
    seedFiles(cl::Positional, cl::OneOrMore,
              cl::desc("<seed .mlir files (lit inputs, tilec output)>"));
static cl::opt<unsigned> rngSeed("seed", cl::init(20261121),
                                 cl::desc("Random seed"));
static cl::opt<unsigned> maxIterations("iterations", cl::init(20000),
                                       cl::desc("Number of inputs"));
static cl::opt<double> maxSeconds("seconds", cl::init(120),
                                  cl::desc("Stop after this many seconds"));
static cl::opt<unsigned>
    perInputSeconds("timeout", cl::init(20),
                    cl::desc("Fail when one input takes longer"));
static cl::opt<bool>
    forkMode("fork", cl::desc("Run inputs in a child process, replaced when "
                              "it crashes; report every crash site"));
static cl::opt<unsigned>
    keepPerSite("keep", cl::init(3),
                cl::desc("With --fork: crashing inputs saved per crash site"));
static cl::opt<int> onlyInput("only", cl::init(-1),
                              cl::desc("Run input number I only"));
static cl::opt<bool> printInput("print", cl::desc("With --only: print it"));
static cl::opt<int> forcedKind("kind", cl::init(-1), cl::Hidden,
                               cl::desc("Apply mutations of this kind only"));

/// The pass pipelines each verified input goes through (each on its own
/// clone): every pass of the project alone, the upstream clean-up, the
/// combination of the issue, and the whole pipeline.
static const char *const kPipelines[] = {
    "func.func(tile-assign-layouts)",
    "func.func(tile-remove-layout-conversions)",
    "func.func(tile-stage-mma-operands)",
    "convert-tile-to-llvm",
    "canonicalize,cse",
    "func.func(tile-stage-mma-operands),convert-tile-to-llvm",
    "func.func(tile-assign-layouts{num-warps=8 vector-bytes=4}),canonicalize,"
    "func.func(tile-remove-layout-conversions),loop-invariant-code-motion,cse,"
    "func.func(tile-stage-mma-operands)",
    "func.func(tile-loop-split)",
    "func.func(tile-slice-mma-k)",
    "func.func(tile-pipeline)",
    "func.func(tile-pipeline{num-stages=3})",
    "func.func(tile-pipeline{tile-stages=1 tile-refill-after-read})",
    "func.func(tile-convert-copies-to-tma)",
    "func.func(tile-convert-stores-to-tma{reuse-ring-slots "
    "shared-memory-bytes=16384})",
    "func.func(tile-hoist-refills)",
    "func.func(tile-schedule-async-copies)",
    "func.func(tile-prefetch-loads)",
    "func.func(tile-async-wgmma)",
    "func.func(tile-async-wgmma),tile-allocate-shared-memory,"
    "tile-insert-barriers,convert-tile-to-llvm",
    "tile-allocate-shared-memory",
    "tile-allocate-shared-memory,tile-insert-barriers",
    "tile-allocate-shared-memory,tile-insert-barriers,convert-tile-to-llvm",
    "func.func(tile-persistent)",
    "func.func(tile-warp-specialize)",
    "func.func(tile-rotate-wgmma)",
    "func.func(tile-dynamic-schedule)",
    "func.func(tile-defer-epilogue)",
    "func.func(tile-ping-pong)",
    "tile-schedule",
    "tile-schedule{num-warps=8 warp-specialize persistent}",
    "tile-schedule{num-warps=8 warp-specialize persistent tile-stages=1 "
    "tile-refill-after-read}",
    "tile-schedule{num-warps=8 warp-specialize ping-pong}",
    "tile-schedule{num-warps=8 warp-specialize persistent defer-epilogue}",
    "tile-to-llvm",
    "tile-to-llvm{num-warps=8 warp-specialize persistent}",
    "tile-print-layouts{output=/dev/null}",
};

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

namespace {

enum class Tok {
  Space,
  Comment,
  Ident,
  Number,
  Ssa,
  Alias,
  Sigil,
  String,
  Punct
};

struct Token {
  Tok kind;
  std::string text;
};

bool isIdentChar(char c) {
  return isAlnum(c) || c == '_' || c == '.' || c == '$';
}

/// MLIR's lexical structure, coarsely: enough to find numbers, types, SSA
/// names, aliases, op names and brackets. `64x64xf32` is 64, x, 64, x, f32.
std::vector<Token> tokenize(StringRef s) {
  std::vector<Token> out;
  size_t i = 0, n = s.size();
  auto push = [&](Tok k, size_t from) {
    out.push_back({k, s.substr(from, i - from).str()});
  };
  while (i < n) {
    size_t start = i;
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      while (i < n &&
             (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
      push(Tok::Space, start);
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        ++i;
      push(Tok::Comment, start);
    } else if (c == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n')
        i += s[i] == '\\' ? 2 : 1;
      i = std::min(n, i + 1);
      push(Tok::String, start);
    } else if (c == '%' || c == '#' || c == '!' || c == '@' || c == '^') {
      ++i;
      while (i < n && (isIdentChar(s[i]) || s[i] == '-'))
        ++i;
      push(c == '%' ? Tok::Ssa : c == '#' ? Tok::Alias : Tok::Sigil, start);
    } else if (isDigit(c)) {
      if (c == '0' && i + 1 < n && s[i + 1] == 'x' && i + 2 < n &&
          isHexDigit(s[i + 2])) {
        i += 2;
        while (i < n && isHexDigit(s[i]))
          ++i;
      } else {
        while (i < n && isDigit(s[i]))
          ++i;
        if (i + 1 < n && s[i] == '.' && isDigit(s[i + 1])) {
          ++i;
          while (i < n && isDigit(s[i]))
            ++i;
          if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            ++i;
            if (i < n && (s[i] == '+' || s[i] == '-'))
              ++i;
            while (i < n && isDigit(s[i]))
              ++i;
          }
        }
      }
      push(Tok::Number, start);
    } else if (c == 'x' && !out.empty() && out.back().kind == Tok::Number) {
      ++i; // the `x` of a shape
      push(Tok::Punct, start);
    } else if (isAlpha(c) || c == '_') {
      while (i < n && isIdentChar(s[i]))
        ++i;
      push(Tok::Ident, start);
    } else {
      ++i;
      if (i < n && ((c == '-' && s[i] == '>') || (c == ':' && s[i] == ':')))
        ++i;
      push(Tok::Punct, start);
    }
  }
  return out;
}

std::string join(const std::vector<Token> &tokens) {
  std::string s;
  for (const Token &t : tokens)
    s += t.text;
  return s;
}

bool isInteger(const Token &t) {
  return t.kind == Tok::Number &&
         llvm::all_of(t.text, [](char c) { return isDigit(c); });
}

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

const char *const kTypes[] = {"f16", "bf16", "f32", "i32",  "i1",
                              "i64", "f64",  "i8",  "index"};

const char *const kOps[] = {
    "tile.bid",        "tile.num_blocks",
    "tile.arange",     "tile.full",
    "tile.broadcast",  "tile.expand_dims",
    "tile.reshape",    "tile.permute",
    "tile.dim",        "tile.load",
    "tile.store",      "tile.mma",
    "tile.reduce",     "tile.exp2",
    "tile.div",        "tile.convert_layout",
    "tile.extract",    "tile.local_alloc",
    "tile.local_load", "tile.async_load",
    "tile.async_wait", "arith.addf",
    "arith.mulf",      "arith.subf",
    "arith.divf",      "arith.maximumf",
    "arith.maxnumf",   "arith.addi",
    "arith.muli",      "arith.cmpi",
    "arith.cmpf",      "arith.select",
    "arith.truncf",    "arith.extf",
    "arith.sitofp",    "arith.fptosi",
    "arith.extui",     "arith.constant",
    "math.exp",        "math.exp2",
    "math.log",        "math.rsqrt",
    "scf.yield",       "scf.for",
    "scf.if",          "func.return",
};

/// Layout encodings to put on tensor types. Some fit, some are of the
/// wrong rank or kind, some are not layouts at all.
const char *const kEncodings[] = {
    "#tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA "
    "= [4], order = [0]>",
    "#tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
    "warpsPerCTA = [4, 1], order = [1, 0]>",
    "#tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
    "warpsPerCTA = [1, 8], order = [0, 1]>",
    "#tile.blocked<sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 1, 2, "
    "16], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>",
    "#tile.mma<warpsPerCTA = [4, 1]>",
    "#tile.mma<warpsPerCTA = [2, 2]>",
    "#tile.mma<warpsPerCTA = [1, 8]>",
    "#tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>",
    "#tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>",
    "#tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>",
    "#tile.slice<dim = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>",
    "#tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], "
    "threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>",
    "#tile.slice<dim = 0, parent = #tile.slice<dim = 0, parent = "
    "#tile.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [2, 4, 4], "
    "warpsPerCTA = [1, 1, 4], order = [2, 1, 0]>>>",
    "#tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>",
    "\"not_a_layout\"",
    "0 : i32",
};

/// Values to give an attribute.
const char *const kAttrValues[] = {
    "0 : i32",
    "1 : i32",
    "2 : i32",
    "3 : i32",
    "-1 : i32",
    "64 : i32",
    "1000000 : i32",
    "0 : i64",
    "true",
    "unit",
    "0.0 : f32",
    "1.0 : f16",
    "-3.0 : f32",
    "\"x\"",
    "array<i32: 1, 0>",
    "array<i32: 0>",
    "array<i32: 0, 1, 3, 2>",
    "array<i32: 0, 0>",
    "array<i32>",
    "array<i64: 0, 16>",
    "array<i64: 1, 1, 64, 64>",
    "array<i64: 64, 64>",
    "array<i64: 16>",
    "[1, 0]",
    "[0]",
    "[]",
    "[4, 1]",
    "[2, 2]",
    "[1, 32]",
    "[32]",
    "[1, 1, 1]",
    "#tile.mma<warpsPerCTA = [4, 1]>",
    "#tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
    "warpsPerCTA = [4, 1], order = [1, 0]>",
    "#tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = "
    "[4], order = [0]>",
    "#tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>",
    "{a = 1 : i32}",
};

/// Attribute entries to add to an attribute dictionary.
const char *const kAttrEntries[] = {
    "keepdims",
    "flush_to_zero",
    "tile.kernel",
    "tile.num_warps = 8 : i32",
    "tile.num_warps = 1 : i32",
    "tile.num_warps = 4 : i32",
    "order = array<i32: 1, 0>",
    "order = array<i32: 0, 1, 3, 2>",
    "padding = 1.0 : f32",
    "padding = 0 : i32",
    "latency = 2 : i32",
    "axis = 1 : i32",
    "axis = 3 : i32",
    "pending = 1 : i32",
    "offsets = array<i64: 0, 16>",
    "shape = array<i64: 64, 64>",
    "tile.smem_offset = 0 : i32",
    "tile.scratch_offset = 64 : i32",
    "tile.shared_bytes = 0 : i32",
    "tile.tensor_alignment = 4 : i32",
    "tile.constants = {N = 1 : i64}",
    "rounding = #tile<rounding_mode approx>",
    "layout = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
    "warpsPerCTA = [4, 1], order = [1, 0]>",
};

const char *const kNumbers[] = {"0",          "1",
                                "2",          "3",
                                "4",          "5",
                                "7",          "8",
                                "16",         "24",
                                "32",         "48",
                                "64",         "128",
                                "256",        "512",
                                "1024",       "4096",
                                "65536",      "2147483647",
                                "4294967296", "99999999999999999999"};

class Mutator {
public:
  Mutator(unsigned seed, const std::vector<std::vector<std::string>> &seeds)
      : rng(seed), seeds(seeds) {}

  size_t below(size_t n) { return n ? rng() % n : 0; }
  template <typename T, size_t N> const char *pick(T (&arr)[N]) {
    return arr[below(N)];
  }

  std::string generate() {
    std::string s;
    do
      s = generateOnce();
    while (hitsUpstreamCrash(s));
    return s;
  }

  /// Crashes of MLIR itself, not of the project, that mutations could
  /// reach: the parser of MLIR 22 asserts (or crashes) on a dense array of
  /// `index` (llvm-project issue 179045, fixed after 22.1).
  static bool hitsUpstreamCrash(StringRef s) {
    return s.contains("array<index");
  }

private:
  std::string generateOnce() {
    const std::vector<std::string> &file = seeds[below(seeds.size())];
    std::string s = file[below(file.size())];
    unsigned count = 1 + below(3);
    for (unsigned i = 0; i < count; ++i)
      for (unsigned attempt = 0; attempt < 8; ++attempt) {
        auto tokens = tokenize(s);
        if (mutateOnce(tokens, s)) {
          s = join(tokens);
          break;
        }
      }
    return s;
  }

  /// Indices of tokens satisfying `pred`.
  template <typename F>
  std::vector<size_t> find(const std::vector<Token> &t, F pred) {
    std::vector<size_t> out;
    for (size_t i = 0; i < t.size(); ++i)
      if (pred(t[i], i))
        out.push_back(i);
    return out;
  }

  size_t nextNonSpace(const std::vector<Token> &t, size_t i) {
    for (++i; i < t.size(); ++i)
      if (t[i].kind != Tok::Space && t[i].kind != Tok::Comment)
        return i;
    return t.size();
  }
  size_t prevNonSpace(const std::vector<Token> &t, size_t i) {
    while (i-- > 0)
      if (t[i].kind != Tok::Space && t[i].kind != Tok::Comment)
        return i;
    return t.size();
  }
  bool is(const std::vector<Token> &t, size_t i, StringRef text) {
    return i < t.size() && t[i].text == text;
  }

  /// The index of the bracket closing the one at `open`, or t.size().
  size_t matching(const std::vector<Token> &t, size_t open) {
    int depth = 0;
    for (size_t i = open; i < t.size(); ++i) {
      if (t[i].kind != Tok::Punct)
        continue;
      StringRef x = t[i].text;
      if (x == "<" || x == "(" || x == "[" || x == "{")
        ++depth;
      else if (x == ">" || x == ")" || x == "]" || x == "}")
        if (--depth == 0)
          return i;
    }
    return t.size();
  }

  /// Tensor types: the index of their `<` and `>`.
  std::vector<std::pair<size_t, size_t>>
  tensorTypes(const std::vector<Token> &t) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i + 1 < t.size(); ++i)
      if (t[i].kind == Tok::Ident && t[i].text == "tensor" &&
          is(t, i + 1, "<")) {
        size_t close = matching(t, i + 1);
        if (close < t.size())
          out.push_back({i + 1, close});
      }
    return out;
  }

  /// The top-level comma before the encoding of a tensor type, if any.
  size_t encodingComma(const std::vector<Token> &t, size_t open, size_t close) {
    int depth = 0;
    for (size_t i = open + 1; i < close; ++i) {
      StringRef x = t[i].text;
      if (t[i].kind != Tok::Punct)
        continue;
      if (x == "<" || x == "(" || x == "[" || x == "{")
        ++depth;
      else if (x == ">" || x == ")" || x == "]" || x == "}")
        --depth;
      else if (x == "," && depth == 0)
        return i;
    }
    return t.size();
  }

  /// Aliases the text defines (`#name = ...` at the start of a line).
  std::vector<std::string> definedAliases(const std::vector<Token> &t) {
    std::vector<std::string> out;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i].kind == Tok::Alias &&
          (i == 0 || (t[i - 1].kind == Tok::Space &&
                      t[i - 1].text.find('\n') != std::string::npos)) &&
          is(t, nextNonSpace(t, i), "="))
        out.push_back(t[i].text);
    return out;
  }

  std::string randomEncoding(const std::vector<Token> &t) {
    std::vector<std::string> aliases = definedAliases(t);
    if (!aliases.empty() && below(2))
      return aliases[below(aliases.size())];
    return pick(kEncodings);
  }

  /// The end (exclusive) of an attribute value starting at `i`: the next
  /// top-level `,` or the closing bracket.
  size_t valueEnd(const std::vector<Token> &t, size_t i) {
    int depth = 0;
    for (; i < t.size(); ++i) {
      if (t[i].kind != Tok::Punct)
        continue;
      StringRef x = t[i].text;
      if (x == "<" || x == "(" || x == "[" || x == "{")
        ++depth;
      else if (x == ">" || x == ")" || x == "]" || x == "}") {
        if (depth-- == 0)
          return i;
      } else if (x == "," && depth == 0)
        return i;
    }
    return t.size();
  }

  void replace(std::vector<Token> &t, size_t from, size_t to,
               const std::string &text) {
    t.erase(t.begin() + from, t.begin() + to);
    t.insert(t.begin() + from, Token{Tok::Ident, text});
  }

  std::vector<std::string> lines(const std::string &s) {
    std::vector<std::string> out;
    SmallVector<StringRef> parts;
    StringRef(s).split(parts, '\n');
    for (StringRef p : parts)
      out.push_back(p.str());
    return out;
  }
  void setLines(std::vector<Token> &t, const std::vector<std::string> &ls) {
    std::string s;
    for (size_t i = 0; i < ls.size(); ++i)
      s += ls[i] + (i + 1 < ls.size() ? "\n" : "");
    t = tokenize(s);
  }

  bool mutateOnce(std::vector<Token> &t, const std::string &text) {
    unsigned kind = forcedKind >= 0 ? unsigned(forcedKind) : below(26);
    switch (kind) {
    case 20:
    case 21:
    case 22:
    case 23: { // retype every occurrence of one tensor type alike
      auto tensors = tensorTypes(t);
      if (tensors.empty())
        return false;
      auto [open, close] = tensors[below(tensors.size())];
      std::vector<Token> type(t.begin() + open - 1, t.begin() + close + 1);
      std::string from = join(type);
      size_t typeClose = type.size() - 1;
      size_t comma = encodingComma(type, 1, typeClose);
      auto elt = find(type, [](const Token &x, size_t) {
        return x.kind == Tok::Ident && llvm::is_contained(kTypes, x.text);
      });
      std::vector<size_t> dims;
      for (size_t i = 2; i + 1 < typeClose; ++i)
        if (type[i].kind == Tok::Number && is(type, i + 1, "x"))
          dims.push_back(i);
      switch (kind) {
      case 20: // drop the layout
        if (comma >= typeClose)
          return false;
        type.erase(type.begin() + comma, type.begin() + typeClose);
        break;
      case 21: // another layout
        if (comma < typeClose)
          type.erase(type.begin() + comma, type.begin() + typeClose);
        type.insert(type.end() - 1,
                    Token{Tok::Ident, ", " + randomEncoding(t)});
        break;
      case 22: // another element type
        if (elt.empty())
          return false;
        type[elt.front()].text = pick(kTypes);
        break;
      default: // another dimension
        if (dims.empty())
          return false;
        type[dims[below(dims.size())]].text = pick(kNumbers);
        break;
      }
      std::string to = join(type);
      std::string s = join(t);
      for (size_t at = s.find(from); at != std::string::npos;
           at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
      t = tokenize(s);
      return true;
    }
    case 24:
    case 25: { // redefine an alias
      auto defs = find(t, [&](const Token &x, size_t i) {
        return x.kind == Tok::Alias && is(t, nextNonSpace(t, i), "=");
      });
      if (defs.empty())
        return false;
      size_t eq = nextNonSpace(t, defs[below(defs.size())]);
      size_t begin = nextNonSpace(t, eq);
      size_t end = begin;
      while (end < t.size() && !(t[end].kind == Tok::Space &&
                                 t[end].text.find('\n') != std::string::npos))
        ++end;
      if (begin >= t.size())
        return false;
      if (kind == 24) {
        replace(t, begin, end, pick(kEncodings));
        return true;
      }
      std::vector<size_t> nums;
      for (size_t i = begin; i < end; ++i)
        if (isInteger(t[i]))
          nums.push_back(i);
      if (nums.empty())
        return false;
      t[nums[below(nums.size())]].text = pick(kNumbers);
      return true;
    }
    case 0: { // change a number
      auto nums = find(t, [](const Token &x, size_t) { return isInteger(x); });
      if (nums.empty())
        return false;
      Token &x = t[nums[below(nums.size())]];
      uint64_t v = 0;
      StringRef(x.text).getAsInteger(10, v);
      switch (below(4)) {
      case 0:
        x.text = std::to_string(v + 1);
        break;
      case 1:
        x.text = std::to_string(v ? v - 1 : 0);
        break;
      case 2:
        x.text = std::to_string(below(2) ? v * 2 : v / 2);
        break;
      default:
        x.text = pick(kNumbers);
      }
      return true;
    }
    case 1:
    case 2: { // swap an element type
      auto types = find(t, [](const Token &x, size_t) {
        return x.kind == Tok::Ident && llvm::is_contained(kTypes, x.text);
      });
      if (types.empty())
        return false;
      t[types[below(types.size())]].text = pick(kTypes);
      return true;
    }
    case 3: { // change a tensor shape: add, drop or change a dimension
      auto tensors = tensorTypes(t);
      if (tensors.empty())
        return false;
      auto [open, close] = tensors[below(tensors.size())];
      std::vector<size_t> dims;
      for (size_t i = open + 1; i + 1 < close; ++i)
        if (t[i].kind == Tok::Number && is(t, i + 1, "x"))
          dims.push_back(i);
      switch (below(4)) {
      case 0: // insert a dimension
        t.insert(t.begin() + open + 1,
                 {Token{Tok::Number, below(2) ? "1" : "16"},
                  Token{Tok::Punct, "x"}});
        return true;
      case 1: // drop one
        if (dims.empty())
          return false;
        {
          size_t d = dims[below(dims.size())];
          t.erase(t.begin() + d, t.begin() + d + 2);
        }
        return true;
      case 2: // dynamic
        if (dims.empty())
          return false;
        t[dims[below(dims.size())]] = Token{Tok::Punct, "?"};
        return true;
      default:
        if (dims.empty())
          return false;
        t[dims[below(dims.size())]].text = pick(kNumbers);
        return true;
      }
    }
    case 4:
    case 5:
    case 6: { // delete the encoding of a tensor type
      auto tensors = tensorTypes(t);
      std::vector<std::pair<size_t, size_t>> encoded;
      for (auto [open, close] : tensors) {
        size_t comma = encodingComma(t, open, close);
        if (comma < close)
          encoded.push_back({comma, close});
      }
      if (encoded.empty())
        return false;
      auto [comma, close] = encoded[below(encoded.size())];
      t.erase(t.begin() + comma, t.begin() + close);
      return true;
    }
    case 7:
    case 8: { // change or add the encoding of a tensor type
      auto tensors = tensorTypes(t);
      if (tensors.empty())
        return false;
      auto [open, close] = tensors[below(tensors.size())];
      size_t comma = encodingComma(t, open, close);
      std::string enc = ", " + randomEncoding(t);
      if (comma < close)
        replace(t, comma, close, enc);
      else
        t.insert(t.begin() + close, Token{Tok::Ident, enc});
      return true;
    }
    case 9: { // swap an alias for another alias or a layout
      auto uses = find(t, [&](const Token &x, size_t i) {
        return x.kind == Tok::Alias && !is(t, nextNonSpace(t, i), "=");
      });
      if (uses.empty())
        return false;
      t[uses[below(uses.size())]].text = randomEncoding(t);
      return true;
    }
    case 10:
    case 11: { // replace, drop or add an attribute (or layout parameter)
      auto entries = find(t, [&](const Token &x, size_t i) {
        if (x.kind != Tok::Ident || !is(t, nextNonSpace(t, i), "="))
          return false;
        size_t p = prevNonSpace(t, i);
        return is(t, p, "{") || is(t, p, ",") || is(t, p, "<");
      });
      auto dicts = find(t, [&](const Token &x, size_t i) {
        return x.text == "{" && i + 1 < t.size() && t[i + 1].kind == Tok::Ident;
      });
      unsigned what = below(3);
      if (what == 2 || entries.empty()) { // add
        if (dicts.empty())
          return false;
        size_t at = dicts[below(dicts.size())];
        t.insert(t.begin() + at + 1,
                 Token{Tok::Ident, std::string(pick(kAttrEntries)) + ", "});
        return true;
      }
      size_t name = entries[below(entries.size())];
      size_t eq = nextNonSpace(t, name);
      size_t begin = nextNonSpace(t, eq);
      size_t end = valueEnd(t, begin);
      if (begin >= t.size() || end > t.size())
        return false;
      if (what == 0) {
        replace(t, begin, end, pick(kAttrValues));
      } else { // drop the entry and one comma
        size_t from = name, to = end;
        if (is(t, to, ","))
          ++to;
        else if (is(t, prevNonSpace(t, name), ","))
          from = prevNonSpace(t, name);
        t.erase(t.begin() + from, t.begin() + to);
      }
      return true;
    }
    case 12: { // drop an operand
      auto uses = find(t, [&](const Token &x, size_t i) {
        return x.kind == Tok::Ssa && !is(t, nextNonSpace(t, i), "=") &&
               !is(t, nextNonSpace(t, i), ":");
      });
      if (uses.empty())
        return false;
      size_t u = uses[below(uses.size())];
      size_t next = nextNonSpace(t, u), prev = prevNonSpace(t, u);
      if (is(t, next, ","))
        t.erase(t.begin() + u, t.begin() + next + 1);
      else if (is(t, prev, ","))
        t.erase(t.begin() + prev, t.begin() + u + 1);
      else
        t.erase(t.begin() + u);
      return true;
    }
    case 13: { // use another value
      auto ssa =
          find(t, [](const Token &x, size_t) { return x.kind == Tok::Ssa; });
      if (ssa.size() < 2)
        return false;
      t[ssa[below(ssa.size())]].text = t[ssa[below(ssa.size())]].text;
      return true;
    }
    case 14: { // rename an op
      auto ops = find(t, [](const Token &x, size_t) {
        return x.kind == Tok::Ident && llvm::is_contained(kOps, x.text);
      });
      if (ops.empty())
        return false;
      Token &op = t[ops[below(ops.size())]];
      // Mostly within the tile dialect, where the syntaxes are alike.
      if (StringRef(op.text).starts_with("tile.") && below(4)) {
        do
          op.text = pick(kOps);
        while (!StringRef(op.text).starts_with("tile."));
      } else {
        op.text = pick(kOps);
      }
      return true;
    }
    case 15: { // drop a line
      auto ls = lines(text);
      if (ls.size() < 2)
        return false;
      ls.erase(ls.begin() + below(ls.size()));
      setLines(t, ls);
      return true;
    }
    case 16: { // duplicate a line, or bring one from another seed
      auto ls = lines(text);
      std::string line;
      if (below(2)) {
        line = ls[below(ls.size())];
      } else {
        const auto &file = seeds[below(seeds.size())];
        auto other = lines(file[below(file.size())]);
        line = other[below(other.size())];
      }
      ls.insert(ls.begin() + below(ls.size() + 1), line);
      setLines(t, ls);
      return true;
    }
    case 17: { // swap two lines
      auto ls = lines(text);
      if (ls.size() < 2)
        return false;
      std::swap(ls[below(ls.size())], ls[below(ls.size())]);
      setLines(t, ls);
      return true;
    }
    case 18: { // delete or duplicate a token
      auto real = find(t, [](const Token &x, size_t) {
        return x.kind != Tok::Space && x.kind != Tok::Comment;
      });
      if (real.empty())
        return false;
      size_t i = real[below(real.size())];
      if (below(2))
        t.erase(t.begin() + i);
      else
        t.insert(t.begin() + i, t[i]);
      return true;
    }
    default: // truncate
      if (t.empty())
        return false;
      t.resize(below(t.size()));
      return true;
    }
  }

  std::mt19937 rng;
  const std::vector<std::vector<std::string>> &seeds;
};

//===----------------------------------------------------------------------===//
// Seeds
//===----------------------------------------------------------------------===//

/// The pieces of a lit input (split at `// -----` and at split-file's
/// `//--- name`), without their comment lines (RUN, CHECK, expected-...).
std::vector<std::string> splitSeed(StringRef text) {
  std::vector<std::string> chunks;
  std::string cur;
  auto flush = [&] {
    if (StringRef(cur).trim().size())
      chunks.push_back(cur);
    cur.clear();
  };
  SmallVector<StringRef> ls;
  text.split(ls, '\n');
  for (StringRef l : ls) {
    StringRef trimmed = l.trim();
    if (trimmed.starts_with("// -----") || trimmed.starts_with("//---")) {
      flush();
      continue;
    }
    if (trimmed.starts_with("//"))
      continue;
    cur += l.str() + "\n";
  }
  flush();
  return chunks;
}

//===----------------------------------------------------------------------===//
// Running an input
//===----------------------------------------------------------------------===//

/// Counters, in shared memory with --fork so that they survive the child.
struct Stats {
  uint64_t tried = 0, parsed = 0, verified = 0, pipelines = 0,
           pipelineFailures = 0, silentFailures = 0, rejected = 0;
  int64_t current = -1; // the input being run
  char stage[160] = {}; // what it is doing
};

Stats *stats;
std::string currentInput;
bool inChild = false;

void setStage(StringRef s) {
  size_t n = std::min(s.size(), sizeof(stats->stage) - 1);
  std::memcpy(stats->stage, s.data(), n);
  stats->stage[n] = 0;
}

/// Parses, verifies, prints, and runs every pipeline on a clone. Silent
/// failures (a pass that fails without an error) are collected in `silent`.
void runInput(mlir::MLIRContext &context, const std::string &text,
              std::vector<std::string> *silent) {
  ++stats->tried;
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      ++errors;
    return mlir::success(); // swallowed
  });
  setStage("parse");
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "mutated.mlir");
  if (!module) {
    ++stats->rejected;
    return;
  }
  ++stats->parsed;
  setStage("verify");
  if (failed(mlir::verify(*module))) {
    ++stats->rejected;
    return;
  }
  ++stats->verified;
  setStage("print");
  {
    raw_null_ostream sink;
    module->print(sink);
  }
  for (const char *pipeline : kPipelines) {
    setStage(pipeline);
    mlir::OwningOpRef<mlir::ModuleOp> clone = module->clone();
    mlir::PassManager pm(&context);
    std::string err;
    raw_string_ostream errStream(err);
    if (failed(mlir::parsePassPipeline(pipeline, pm, errStream))) {
      errs() << "cannot parse pipeline '" << pipeline << "': " << err << "\n";
      std::_Exit(3);
    }
    errors = 0;
    ++stats->pipelines;
    if (succeeded(pm.run(*clone))) {
      raw_null_ostream sink;
      clone->print(sink);
      continue;
    }
    ++stats->pipelineFailures;
    if (errors == 0) {
      ++stats->silentFailures;
      if (silent)
        silent->push_back(pipeline);
    }
  }
  setStage("done");
}

void dumpCurrentInput(void *) {
  if (inChild)
    return; // the parent saves it
  if (FILE *f = std::fopen("ir-mutation-crash.mlir", "wb")) {
    std::fwrite(currentInput.data(), 1, currentInput.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr,
               "\n*** tile-opt crashed in '%s' on input %lld (also written to "
               "ir-mutation-crash.mlir) ***\n%.*s\n*** end of input ***\n",
               stats->stage, static_cast<long long>(stats->current),
               static_cast<int>(std::min<size_t>(currentInput.size(), 8000)),
               currentInput.data());
}

void onTimeout(int) {
  static const char msg[] = "\n*** one input took too long: a hang ***\n";
  (void)!write(2, msg, sizeof(msg) - 1);
  dumpCurrentInput(nullptr);
  std::_Exit(2);
}

/// Input number `index`: the seeds first, unmutated, then mutations.
std::string inputAt(const std::vector<std::vector<std::string>> &seeds,
                    const std::vector<std::string> &flat, uint64_t index) {
  if (index < flat.size())
    return flat[index];
  Mutator mutator(rngSeed * 2654435761u + index * 40503u + 1, seeds);
  return mutator.generate();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

//===----------------------------------------------------------------------===//
// --fork: find every crash site
//===----------------------------------------------------------------------===//

struct Site {
  std::string description;
  unsigned count = 0;
  std::vector<std::string> files;
};

/// A crash site from the child's stderr: the signal or exit code, the first
/// line of an assertion or error message, and the innermost frame of the
/// project's code in the stack dump.
std::string crashSite(int status, StringRef err, StringRef stage) {
  std::string what;
  if (WIFSIGNALED(status))
    what = std::string("signal ") + strsignal(WTERMSIG(status));
  else
    what = "exit " + std::to_string(WEXITSTATUS(status));
  if (err.contains("took too long"))
    what = "hang";
  std::string message, frame;
  unsigned frames = 0; // the two innermost frames of the project
  SmallVector<StringRef> ls;
  err.split(ls, '\n');
  for (StringRef l : ls) {
    if (message.empty() &&
        (l.contains("Assertion") || l.contains("UNREACHABLE") ||
         l.contains("LLVM ERROR") || l.contains("error:"))) {
      // Drop the program name and the function signature of the assert.
      size_t a = l.find("Assertion");
      message = (a != StringRef::npos ? l.substr(a) : l).str();
    }
    if (frames < 2 && l.ltrim().starts_with("#")) {
      StringRef f = l.ltrim();
      bool project = f.contains("tilec::") || f.contains("mlir::tile::") ||
                     f.contains("LayoutAssigner") ||
                     f.contains("(anonymous namespace)::");
      bool noise = f.contains("llvm::sys::") || f.contains("SignalHandler") ||
                   f.contains("crashSite") || f.contains("runInput");
      if (project && !noise) {
        // "#5 0x00.. name(args) (file+0x..)" -> name
        size_t sp = f.find(' ');
        sp = f.find(' ', sp + 1);
        StringRef name = f.substr(sp + 1);
        std::string fn = name.substr(0, name.find('(')).str();
        if (fn.size() < 4)
          fn = name.substr(0, 160).str();
        frame += (frames++ ? " <- " : "") + fn;
      }
    }
  }
  std::string key = what;
  if (!message.empty())
    key += " | " + message.substr(0, 240);
  key += " | at " + (frame.empty() ? std::string("?") : frame);
  key += " | in '" + stage.str() + "'";
  return key;
}

int runForked(mlir::MLIRContext &context,
              const std::vector<std::vector<std::string>> &seeds,
              const std::vector<std::string> &flat) {
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, Site> sites;
  std::map<std::string, unsigned> silentCounts;
  unsigned crashes = 0, saved = 0;
  uint64_t next = 0;
  while (next < maxIterations && secondsSince(start) < maxSeconds) {
    int pipeFd[2];
    if (pipe(pipeFd) != 0) {
      perror("pipe");
      return 1;
    }
    int silentFd[2];
    if (pipe(silentFd) != 0) {
      perror("pipe");
      return 1;
    }
    stats->current = -1;
    pid_t pid = fork();
    if (pid == 0) {
      inChild = true;
      close(pipeFd[0]);
      close(silentFd[0]);
      dup2(pipeFd[1], 2);
      for (uint64_t i = next; i < maxIterations; ++i) {
        if (secondsSince(start) >= maxSeconds)
          break;
        stats->current = i;
        currentInput = inputAt(seeds, flat, i);
        std::vector<std::string> silent;
        alarm(perInputSeconds);
        runInput(context, currentInput, &silent);
        alarm(0);
        for (const std::string &p : silent) {
          std::string line = std::to_string(i) + "\t" + p + "\n";
          (void)!write(silentFd[1], line.data(), line.size());
        }
      }
      stats->current = -2; // finished
      std::_Exit(0);
    }
    close(pipeFd[1]);
    close(silentFd[1]);
    std::string err, silentText;
    char buf[4096];
    // Both pipes stay small except the crash report; read the report first.
    ssize_t got;
    while ((got = read(pipeFd[0], buf, sizeof(buf))) > 0)
      if (err.size() < (1u << 20))
        err.append(buf, got);
    while ((got = read(silentFd[0], buf, sizeof(buf))) > 0)
      silentText.append(buf, got);
    close(pipeFd[0]);
    close(silentFd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    SmallVector<StringRef> silentLines;
    StringRef(silentText).split(silentLines, '\n', -1, false);
    for (StringRef l : silentLines) {
      auto [idx, pipeline] = l.split('\t');
      unsigned &c = silentCounts[pipeline.str()];
      if (c++ < keepPerSite) {
        std::string name = "ir-silent-" + std::to_string(saved++) + ".mlir";
        uint64_t i = 0;
        idx.getAsInteger(10, i);
        std::string input = inputAt(seeds, flat, i);
        if (FILE *f = std::fopen(name.c_str(), "wb")) {
          std::fwrite(input.data(), 1, input.size(), f);
          std::fclose(f);
        }
        outs() << "silent failure of '" << pipeline << "' on input " << i
               << ": " << name << "\n";
      }
    }
    int64_t cur = stats->current;
    if (cur == -2 ||
        (WIFEXITED(status) && WEXITSTATUS(status) == 0 && cur < 0)) {
      break; // done
    }
    if (cur < 0) {
      errs() << "the child failed before its first input\n" << err;
      return 1;
    }
    ++crashes;
    std::string key = crashSite(status, err, stats->stage);
    Site &site = sites[key];
    site.description = key;
    if (site.count++ < keepPerSite) {
      std::string name = "ir-crash-" + std::to_string(saved++) + ".mlir";
      std::string input = inputAt(seeds, flat, cur);
      if (FILE *f = std::fopen(name.c_str(), "wb")) {
        std::fwrite(input.data(), 1, input.size(), f);
        std::fclose(f);
      }
      site.files.push_back(name);
      if (site.count == 1)
        outs() << "new crash site (input " << cur << ", " << name
               << "): " << key << "\n";
    }
    outs().flush();
    next = cur + 1;
  }
  outs() << "\nIR mutation test (--fork): " << stats->tried << " inputs (seed "
         << rngSeed << "): " << stats->parsed << " parsed, " << stats->verified
         << " verified, " << stats->pipelines << " pass pipelines run ("
         << stats->pipelineFailures << " failed with diagnostics, "
         << stats->silentFailures << " without), " << stats->rejected
         << " inputs rejected with diagnostics, " << crashes << " crashed at "
         << sites.size() << " distinct sites\n";
  for (auto &[key, site] : sites) {
    outs() << "  " << site.count << " x " << key << "\n     ";
    for (const std::string &f : site.files)
      outs() << " " << f;
    outs() << "\n";
  }
  for (auto &[pipeline, count] : silentCounts)
    outs() << "  " << count << " x silent failure of '" << pipeline << "'\n";
  return crashes || !silentCounts.empty() ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  tilec::registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv, "tile-opt IR mutation test\n");

  // Shared with the children of --fork.
  void *mem = mmap(nullptr, sizeof(Stats), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  stats = new (mem) Stats();
  sys::AddSignalHandler(dumpCurrentInput, nullptr);
  std::signal(SIGALRM, onTimeout);

  std::vector<std::vector<std::string>> seeds;
  std::vector<std::string> flat;
  for (const std::string &path : seedFiles) {
    auto buf = MemoryBuffer::getFile(path);
    if (!buf) {
      errs() << "cannot read seed " << path << "\n";
      return 1;
    }
    std::vector<std::string> chunks = splitSeed((*buf)->getBuffer());
    if (chunks.empty())
      continue;
    flat.insert(flat.end(), chunks.begin(), chunks.end());
    seeds.push_back(std::move(chunks));
  }
  if (seeds.empty()) {
    errs() << "no seeds\n";
    return 1;
  }

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  tilec::registerAllDialects(context);
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);

  if (onlyInput >= 0) {
    stats->current = onlyInput;
    currentInput = inputAt(seeds, flat, onlyInput);
    if (printInput)
      outs() << currentInput << "\n";
    std::vector<std::string> silent;
    runInput(context, currentInput, &silent);
    outs() << "input " << onlyInput << ": parsed " << stats->parsed
           << ", verified " << stats->verified << ", pipelines failed "
           << stats->pipelineFailures << " (silently: ";
    llvm::interleaveComma(silent, outs());
    outs() << ")\n";
    return 0;
  }
  if (forkMode)
    return runForked(context, seeds, flat);

  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> silent;
  for (uint64_t i = 0; i < maxIterations; ++i) {
    if (secondsSince(start) > maxSeconds)
      break;
    stats->current = i;
    currentInput = inputAt(seeds, flat, i);
    alarm(perInputSeconds);
    size_t before = silent.size();
    runInput(context, currentInput, &silent);
    alarm(0);
    for (size_t s = before; s < silent.size(); ++s)
      errs() << "input " << i << ": '" << silent[s]
             << "' failed without a diagnostic\n";
  }
  outs() << "IR mutation test: " << stats->tried << " inputs (seed " << rngSeed
         << ", " << flat.size() << " unmutated seeds first): " << stats->parsed
         << " parsed, " << stats->verified << " verified, " << stats->pipelines
         << " pass pipelines run (" << stats->pipelineFailures
         << " failed with diagnostics, " << stats->silentFailures
         << " without), " << stats->rejected
         << " inputs rejected with diagnostics, 0 crashed\n";
  if (stats->tried == 0)
    return 1;
  return silent.empty() ? 0 : 1;
}
