//===- MutationTest.cpp - The front end never crashes ---------------------===//
//
// A fixed-corpus mutation test of the no-crash promise: starting from real
// kernels, it applies random byte- and token-level mutations (and generates
// pathological inputs: deep nesting, huge literals, binary data, enormous
// files) and compiles each result in process, from source to verified and
// cleaned-up tile IR. Any crash or assertion kills the process, which fails
// the test; the input being compiled is then written to stderr and to
// `mutation-crash.tile`. Each input has a time limit, so a hang fails too.
//
// Besides not crashing, three properties of how sources are read:
// - line endings: an input with its line breaks made CR only (old Mac OS),
//   CRLF or a mix compiles to the same IR as with LF, or fails alike (CR-only
//   files used to lex as one line: code after a comment was dropped);
// - standard input: an input read through a pipe as `tilec -` reads it
//   arrives whole;
// - size: a source of 16 MiB is read, one byte more is refused, from a file
//   or a pipe, and so is a device that never ends (/dev/zero).
//
//   tilec-mutation-test [--seed=N] [--iterations=N] [--seconds=S] FILES...
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Source.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace llvm;

static cl::list<std::string> seedFiles(cl::Positional, cl::OneOrMore,
                                       cl::desc("<seed .tile files>"));
static cl::opt<unsigned> rngSeed("seed", cl::init(20261121),
                                 cl::desc("Random seed"));
static cl::opt<unsigned> maxIterations("iterations", cl::init(20000),
                                       cl::desc("Number of mutated inputs"));
static cl::opt<double> maxSeconds("seconds", cl::init(120),
                                  cl::desc("Stop after this many seconds"));
static cl::opt<unsigned>
    perInputSeconds("timeout", cl::init(20),
                    cl::desc("Fail when one input takes longer"));

/// The input being compiled, for the crash handler.
static std::string currentInput;

static void dumpCurrentInput(void *) {
  if (FILE *f = std::fopen("mutation-crash.tile", "wb")) {
    std::fwrite(currentInput.data(), 1, currentInput.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr,
               "\n*** the front end crashed on this input (also written to "
               "mutation-crash.tile) ***\n%.*s\n*** end of input ***\n",
               static_cast<int>(std::min<size_t>(currentInput.size(), 4000)),
               currentInput.data());
}

namespace {
class Mutator {
public:
  explicit Mutator(unsigned seed) : rng(seed) {}

  size_t below(size_t n) { return n ? rng() % n : 0; }

  std::string mutate(std::string s) {
    unsigned count = 1 + below(4);
    for (unsigned i = 0; i < count; ++i)
      s = mutateOnce(std::move(s));
    return s;
  }

  /// Inputs no mutation of a real kernel is likely to reach.
  std::string pathological(const std::string &seed) {
    switch (below(9)) {
    case 0: // deep parentheses
      return "kernel k():\n    x = " + std::string(200 + below(5000), '(') +
             "1" + std::string(below(6000), ')') + "\n";
    case 1: // deep blocks
    {
      std::string s = "kernel k(n: int):\n";
      unsigned depth = 100 + below(400);
      for (unsigned d = 0; d < depth; ++d)
        s += std::string(4 * (d + 1), ' ') + "if n > " + std::to_string(d) +
             ":\n";
      return s + std::string(4 * (depth + 1), ' ') + "pass\n";
    }
    case 2: // random bytes
    {
      std::string s(below(4096), '\0');
      for (char &c : s)
        c = static_cast<char>(below(256));
      return s;
    }
    case 3: // enormous file: the seed many times
    {
      std::string s;
      while (s.size() < (1u << 20))
        s += seed;
      return s;
    }
    case 4: // huge shapes and literals
      return "kernel k(A: Tensor[f32, 2]):\n    x = full((" +
             std::to_string(1ll << (below(40))) + ", " +
             std::to_string(1ll << (below(40))) + "), 1e" +
             std::to_string(below(500)) + ")\n    y = x * " +
             std::string(below(40), '9') + "\n";
    case 5: // long operator chains
    {
      std::string s = "kernel k(n: int):\n    x = n";
      unsigned len = below(20000);
      for (unsigned i = 0; i < len; ++i)
        s += " + n";
      return s + "\n";
    }
    case 6: // many statements
    {
      std::string s = "kernel k(n: int):\n";
      unsigned len = below(20000);
      for (unsigned i = 0; i < len; ++i)
        s += "    x" + std::to_string(i % 97) + " = n * " + std::to_string(i) +
             "\n";
      return s;
    }
    case 7: // nested loops carrying tiles
    {
      std::string s = "kernel k(n: int):\n    t = zeros((16, 16))\n";
      unsigned depth = 1 + below(60);
      for (unsigned d = 0; d < depth; ++d)
        s += std::string(4 * (d + 1), ' ') + "for i" + std::to_string(d) +
             " in range(n):\n";
      return s + std::string(4 * (depth + 1), ' ') + "t = t + 1.0\n";
    }
    default: // truncation of a real kernel
      return seed.substr(0, below(seed.size() + 1));
    }
  }

private:
  std::string mutateOnce(std::string s) {
    static const char *const tokens[] = {
        "(",
        ")",
        "[",
        "]",
        ":",
        ",",
        "\n",
        "    ",
        "\t",
        "#",
        "'",
        "\"",
        "\\\n",
        "=",
        "+=",
        "**",
        "//",
        "%",
        "<<",
        "not ",
        " and ",
        " or ",
        "None",
        "True",
        "False",
        "0",
        "-1",
        "1",
        "3",
        "65536",
        "2147483648",
        "9223372036854775808",
        "1e400",
        "-inf",
        "nan",
        "inf",
        "0x7fffffff",
        "1.5",
        "kernel ",
        "if ",
        "elif ",
        "else:",
        "for ",
        " in ",
        "range(",
        "return",
        "pass",
        "while ",
        "def ",
        "def f(x, y=1):\n    return x\n",
        "longest_first(", // a function of kernels/flash_attention_bwd.tile
        "load(",
        "store(",
        "mma(",
        "full(",
        "arange(",
        "max(",
        "sum(",
        "exp2(",
        "where(",
        "truediv(",
        "cdiv(",
        "bid(",
        ".reshape(",
        ".astype(",
        ".shape",
        ".dtype",
        "[:, None]",
        "[None, :]",
        "Tensor[f16, 4]",
        "f16",
        "bf16",
        "f32",
        "i32",
        "bool",
        "const int = ",
        "axis=",
        "keepdims=",
        "order=",
        "latency=",
        "index=",
        "shape=",
        "tile=",
        "(1, 1, 64, 64)",
        "(0, 1, 3, 2)",
        "APPROX",
        "" /* a NUL byte */,
        "\xff",
        "\xc3\xa9",
    };
    size_t n = s.size();
    switch (below(10)) {
    case 0: // flip a byte
      if (n)
        s[below(n)] ^= static_cast<char>(1u << below(8));
      break;
    case 1: // random byte
      s.insert(s.begin() + below(n + 1), static_cast<char>(below(256)));
      break;
    case 2: // delete a range
      if (n) {
        size_t at = below(n);
        s.erase(at, below(std::min<size_t>(64, n - at) + 1));
      }
      break;
    case 3: // duplicate a range
      if (n) {
        size_t at = below(n);
        std::string piece = s.substr(at, below(200));
        s.insert(below(n + 1), piece);
      }
      break;
    case 4:
    case 5: // insert a token
    {
      const char *t = tokens[below(std::size(tokens))];
      std::string tok = *t ? std::string(t) : std::string(1, '\0');
      s.insert(below(n + 1), tok);
      break;
    }
    case 6: // replace a number with another
    {
      size_t at = s.find_first_of("0123456789", below(n + 1));
      if (at != std::string::npos) {
        size_t end = s.find_first_not_of("0123456789", at);
        static const char *const nums[] = {
            "0",   "1",  "3",    "48",      "64",
            "128", "-1", "4096", "1048576", "99999999999"};
        s.replace(at, (end == std::string::npos ? s.size() : end) - at,
                  nums[below(std::size(nums))]);
      }
      break;
    }
    case 7: // swap two lines
    {
      std::vector<std::string> lines;
      size_t start = 0;
      for (size_t i = 0; i <= n; ++i)
        if (i == n || s[i] == '\n') {
          lines.push_back(s.substr(start, i - start));
          start = i + 1;
        }
      if (lines.size() > 1)
        std::swap(lines[below(lines.size())], lines[below(lines.size())]);
      s.clear();
      for (size_t i = 0; i < lines.size(); ++i)
        s += lines[i] + (i + 1 < lines.size() ? "\n" : "");
      break;
    }
    case 8: // re-indent a line
    {
      size_t at = s.find('\n', below(n + 1));
      if (at != std::string::npos)
        s.insert(at + 1, std::string(below(9), ' '));
      break;
    }
    default: // truncate
      s.resize(below(n + 1));
      break;
    }
    return s;
  }

  std::mt19937 rng;
};
} // namespace

/// Compiles `source` in process, from source to verified, cleaned-up tile
/// IR, as tilec reads it (line endings normalized), within the time limit.
static mlir::OwningOpRef<mlir::ModuleOp> compile(mlir::MLIRContext &context,
                                                 const std::string &source) {
  SourceMgr sourceMgr;
  unsigned id = tilec::addSourceBuffer(sourceMgr, source, "mutated.tile");
  raw_null_ostream sink;
  tilec::DiagnosticEngine diag(sourceMgr, sink);
  tilec::FrontendOptions options;
  alarm(perInputSeconds);
  auto module = tilec::compileToTileIR(context, id, diag, options);
  alarm(0);
  return module;
}

/// Compiles `source` to tile IR: its text, or "" when it was rejected.
static std::string compileText(mlir::MLIRContext &context,
                               const std::string &source) {
  auto module = compile(context, source);
  if (!module)
    return "";
  std::string text;
  raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// `s` with each "\n" made "\r", "\r\n" or, at random, one of the three.
static std::string withLineEndings(const std::string &s, Mutator &m) {
  unsigned style = unsigned(m.below(3));
  std::string out;
  for (char c : s) {
    if (c != '\n') {
      out.push_back(c);
      continue;
    }
    unsigned pick = style == 2 ? unsigned(m.below(3)) : style;
    out += pick == 0 ? "\r" : pick == 1 ? "\r\n" : "\n";
  }
  return out;
}

/// Reads `bytes` through a pipe as standard input, as `tilec -` does.
static bool readThroughStdin(const std::string &bytes, std::string &text,
                             std::string &error) {
  int fds[2];
  if (pipe(fds) != 0)
    return false;
  int savedStdin = dup(0);
  dup2(fds[0], 0);
  close(fds[0]);
  std::thread writer([&] {
    const char *p = bytes.data();
    size_t left = bytes.size();
    while (left) {
      ssize_t n = write(fds[1], p, left);
      if (n <= 0)
        break; // the reader stopped (too large): EPIPE
      p += n;
      left -= size_t(n);
    }
    close(fds[1]);
  });
  bool ok = tilec::readSource("-", text, error);
  // Unblock the writer if the reader stopped early.
  dup2(savedStdin, 0);
  close(savedStdin);
  writer.join();
  return ok;
}

/// The size bound: 16 MiB is read, a byte more is refused, from a file, a
/// pipe and a device that never ends. Reports and returns false on failure.
static bool checkSourceSizes(const std::string &seed) {
  std::string atLimit = seed;
  atLimit.resize(tilec::kMaxSourceBytes, ' ');
  std::string past = atLimit + " ";
  SmallString<128> path;
  int fd;
  if (sys::fs::createTemporaryFile("mutation-size", "tile", fd, path)) {
    errs() << "size checks: cannot create a temporary file\n";
    return false;
  }
  close(fd);
  bool ok = true;
  auto expect = [&](bool read, bool wanted, const std::string &what,
                    const std::string &error) {
    if (read == wanted)
      return;
    errs() << "size check failed: " << what << " was "
           << (read ? "read" : "refused (" + error + ")") << "\n";
    ok = false;
  };
  for (const std::string *bytes : {&atLimit, &past}) {
    bool wanted = bytes == &atLimit;
    std::string text, error;
    {
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      os << *bytes;
    }
    bool read = tilec::readSource(path, text, error);
    expect(read, wanted, std::to_string(bytes->size()) + " bytes from a file",
           error);
    if (read && text != *bytes)
      expect(false, true, "a file's bytes read whole", "they differ");
    read = readThroughStdin(*bytes, text, error);
    expect(read, wanted, std::to_string(bytes->size()) + " bytes from a pipe",
           error);
    if (!read && !wanted &&
        error.find("is larger than 16 MiB") == std::string::npos)
      expect(true, false, "the refusal's message", error);
  }
  std::string text, error;
  expect(tilec::readSource("/dev/zero", text, error), false, "/dev/zero",
         error);
  sys::fs::remove(path);
  return ok;
}

static void onTimeout(int) {
  static const char msg[] = "\n*** one input took too long: a hang ***\n";
  (void)!write(2, msg, sizeof(msg) - 1);
  dumpCurrentInput(nullptr);
  std::_Exit(2);
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tilec front-end mutation test\n");
  sys::AddSignalHandler(dumpCurrentInput, nullptr);
  std::signal(SIGALRM, onTimeout);

  std::vector<std::string> seeds;
  for (const std::string &path : seedFiles) {
    auto buf = MemoryBuffer::getFile(path);
    if (!buf) {
      errs() << "cannot read seed " << path << "\n";
      return 1;
    }
    seeds.push_back((*buf)->getBuffer().str());
  }

  // Writes into a pipe whose reader stopped fail with EPIPE, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  if (!checkSourceSizes(seeds.front()))
    return 1;

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  Mutator mutator(rngSeed);
  auto start = std::chrono::steady_clock::now();
  unsigned tried = 0, compiled = 0, rejected = 0, lineEndings = 0,
           throughStdin = 0;
  for (unsigned i = 0; i < maxIterations; ++i) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (elapsed > maxSeconds)
      break;
    const std::string &seed = seeds[mutator.below(seeds.size())];
    currentInput = mutator.below(8) == 0 ? mutator.pathological(seed)
                                         : mutator.mutate(seed);
    switch (mutator.below(16)) {
    case 0: { // line endings: the same IR, or rejected alike
      // (Mutations of the seed itself: most still compile.)
      std::string lf = mutator.below(2) ? seed : currentInput;
      currentInput = lf;
      std::string want = compileText(context, lf);
      currentInput = withLineEndings(lf, mutator);
      std::string got = compileText(context, currentInput);
      ++lineEndings;
      if (got != want) {
        errs() << "*** other line endings changed what compiles ***\n"
               << (want.empty() ? "LF: rejected" : "LF: compiled") << ", "
               << (got.empty() ? "converted: rejected" : "converted: compiled")
               << (got.empty() == want.empty() ? " to other IR" : "") << "\n";
        dumpCurrentInput(nullptr);
        return 1;
      }
      continue;
    }
    case 1: { // standard input: read whole
      std::string text, error;
      ++throughStdin;
      if (currentInput.size() <= tilec::kMaxSourceBytes &&
          (!readThroughStdin(currentInput, text, error) ||
           text != currentInput)) {
        errs() << "*** an input read through standard input did not arrive "
                  "whole: "
               << error << " ***\n";
        dumpCurrentInput(nullptr);
        return 1;
      }
      break; // and compile it
    }
    default:
      break;
    }
    auto module = compile(context, currentInput);
    ++tried;
    if (module)
      ++compiled;
    else
      ++rejected;
  }
  outs() << "mutation test: " << tried << " inputs (seed " << rngSeed
         << "): " << compiled << " compiled, " << rejected
         << " rejected with diagnostics, 0 crashed; " << lineEndings
         << " compiled alike with other line endings, " << throughStdin
         << " read whole through standard input; the size bound holds\n";
  return tried == 0 ? 1 : 0;
}
