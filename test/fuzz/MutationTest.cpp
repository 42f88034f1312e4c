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
//   tilec-mutation-test [--seed=N] [--iterations=N] [--seconds=S] FILES...
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
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

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  Mutator mutator(rngSeed);
  auto start = std::chrono::steady_clock::now();
  unsigned tried = 0, compiled = 0, rejected = 0;
  for (unsigned i = 0; i < maxIterations; ++i) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (elapsed > maxSeconds)
      break;
    const std::string &seed = seeds[mutator.below(seeds.size())];
    currentInput = mutator.below(8) == 0 ? mutator.pathological(seed)
                                         : mutator.mutate(seed);
    SourceMgr sourceMgr;
    unsigned id = sourceMgr.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(currentInput, "mutated.tile"), SMLoc());
    raw_null_ostream sink;
    tilec::DiagnosticEngine diag(sourceMgr, sink);
    tilec::FrontendOptions options;
    alarm(perInputSeconds);
    auto module = tilec::compileToTileIR(context, id, diag, options);
    alarm(0);
    ++tried;
    if (module)
      ++compiled;
    else
      ++rejected;
  }
  outs() << "mutation test: " << tried << " inputs (seed " << rngSeed
         << "): " << compiled << " compiled, " << rejected
         << " rejected with diagnostics, 0 crashed\n";
  return tried == 0 ? 1 : 0;
}
