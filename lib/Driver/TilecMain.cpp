//===- TilecMain.cpp - The tilec command line -----------------------------===//
//
//   tilec FILE [-DNAME=VALUE ...] [--kernel NAME]
//         [--emit=ast|tile|layout|nvvm|llvm|ptx] [--arch=sm_90a]
//         [--num-warps=4 ... every option of tile/Options.def] [-o OUT]
//
// Diagnostics go to stderr as file:line:col with the source line and a
// caret; the exit code is non-zero on any error. The output file is written
// only after a successful compilation, and never over the input.
//
// The driver lives in libtile (exported as tile_tilec_main), so that the
// tilec executable is the same compiler applications embed.
//
//===----------------------------------------------------------------------===//

#include "PtxasCheck.h"

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Frontend/Source.h"
#include "tilec/Pipeline/Registration.h"
#include "tilec/Support/Files.h"
#include "tilec/Target/Compile.h"

#include "tile/Options.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <csignal>
#include <memory>
#include <vector>

using namespace llvm;

namespace {
using tilec::Stage;

cl::OptionCategory tilecCategory("tilec options");
cl::OptionCategory mlirCategory(
    "MLIR options (debugging the pipeline: --mlir-print-ir-after-all, ...)");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .tile file>"),
                               cl::Required, cl::cat(tilecCategory));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(tilecCategory));
cl::opt<Stage> emitKind(
    "emit", cl::desc("What to produce"), cl::init(Stage::Tile),
    cl::values(clEnumValN(Stage::AST, "ast", "the parsed syntax tree"),
               clEnumValN(Stage::Tile, "tile", "verified tile IR"),
               clEnumValN(Stage::Layout, "layout",
                          "tile IR with layouts assigned"),
               clEnumValN(Stage::NVVM, "nvvm", "the LLVM and NVVM dialects"),
               clEnumValN(Stage::LLVM, "llvm", "optimized LLVM IR for NVPTX"),
               clEnumValN(Stage::PTX, "ptx",
                          "PTX, one kernel per entry, each "
                          "preceded by its description")),
    cl::cat(tilecCategory));
cl::opt<std::string> arch("arch", cl::desc("GPU architecture"),
                          cl::init("sm_90a"),
                          cl::value_desc("sm_80|sm_86|sm_89|sm_90|sm_90a"),
                          cl::cat(tilecCategory));
/// An unsigned option's values in --help ("0-8"; 0 where it means none).
template <typename T>
cl::value_desc valueDesc(unsigned min, unsigned max, unsigned flags) {
  static std::vector<std::unique_ptr<std::string>> descs;
  descs.push_back(std::make_unique<std::string>(
      std::is_same_v<T, bool>
          ? "true|false"
          : std::to_string((flags & TILE_OPTION_ZERO) ? 0 : min) + "-" +
                std::to_string(max)));
  return cl::value_desc(*descs.back());
}

// Every compile option of tile/Options.def, as a flag. Given on the command
// line, it wins over the kernel's @hints.
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  cl::opt<TYPE> FIELD##Flag(                                                   \
      StringRef(tile::optionFlag(#KEY)), cl::desc(DOC), cl::init(DEFAULT),     \
      valueDesc<TYPE>(MIN, MAX, FLAGS), cl::cat(tilecCategory));
#include "tile/Options.def"
cl::opt<bool> noLoopSplit("no-loop-split",
                          cl::desc("The same as --loop-split=false"),
                          cl::cat(tilecCategory));
cl::list<std::string> defines("D", cl::Prefix,
                              cl::desc("Override a const parameter"),
                              cl::value_desc("NAME=VALUE"),
                              cl::cat(tilecCategory));
cl::opt<bool> ptxasCheck(
    "ptxas-check",
    cl::desc("With --emit=ptx: compile the PTX with ptxas -v where there is "
             "one ($TILEC_PTXAS, the PATH, /usr/local/cuda/bin) and warn of "
             "kernels that spill"),
    cl::init(true));
cl::opt<std::string> kernelName("kernel", cl::desc("Compile only this kernel"),
                                cl::value_desc("name"), cl::cat(tilecCategory));
cl::opt<bool> noCleanup("no-cleanup",
                        cl::desc("Print tile IR as emitted, before "
                                 "canonicalization and CSE"),
                        cl::cat(tilecCategory));
} // namespace

/// Applies --mlir-print-ir-*, --mlir-timing and the other pass-manager
/// options to every pipeline the compiler runs.
static mlir::LogicalResult configurePassManager(mlir::PassManager &pm) {
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  return mlir::success();
}

/// Splits the -D values into (name, value) pairs.
static bool parseDefines(tilec::MLIRGenOptions &options) {
  for (const std::string &d : defines) {
    StringRef text(d);
    auto [name, value] = text.split('=');
    if (name.empty() || !text.contains('=')) {
      errs() << "tilec: error: -D" << d << ": expected -DNAME=VALUE\n";
      return false;
    }
    options.defines.emplace_back(name.trim().str(), value.str());
  }
  return true;
}

/// `--help` lists tilec's options and MLIR's pass-manager and printing ones
/// (`--mlir-*`), each under a heading of its own; the LLVM back end's
/// internal options, linked in with it, are listed by `--help-hidden` only.
static void groupOptionsForHelp() {
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    // --help and --version: LLVM's "Generic Options" has no accessor.
    bool generic = llvm::any_of(option->Categories, [](cl::OptionCategory *c) {
      return c->getName() == "Generic Options";
    });
    if (generic || llvm::is_contained(option->Categories, &tilecCategory))
      continue;
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
    else
      option->setHiddenFlag(cl::Hidden);
  }
}

extern "C" __attribute__((visibility("default"))) int
tile_tilec_main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  // Past the file-size limit (ulimit -f) a write fails with EFBIG, which is
  // reported as any write error, rather than the signal killing tilec.
  signal(SIGXFSZ, SIG_IGN);
  // The passes, so that --mlir-print-ir-before=tile-insert-barriers and the
  // other pass-manager options that name a pass know them.
  tilec::registerAllPasses();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerAsmPrinterCLOptions();
  groupOptionsForHelp();
  cl::ParseCommandLineOptions(argc, argv, "tilec: the tile DSL compiler\n");

  tilec::FrontendOptions options;
  options.kernelName = kernelName;
  options.cleanup = !noCleanup;
  if (!parseDefines(options))
    return 1;

  // Nothing tilec writes may be its input, named or standard input.
  std::string source, error;
  if (!tilec::checkWritesSpareInput(inputFile, outputFile, error)) {
    errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  if (!tilec::readSource(inputFile, source, error)) {
    errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  SourceMgr sourceMgr;
  unsigned bufferId = tilec::addSourceBuffer(
      sourceMgr, source,
      inputFile == "-" ? std::string("<stdin>") : inputFile.getValue());
  tilec::DiagnosticEngine diag(sourceMgr);

  std::string text, sourceName;
  raw_string_ostream os(text);
  if (emitKind == Stage::AST) {
    auto ast = tilec::parseSource(bufferId, diag);
    if (!ast)
      return 1;
    tilec::ast::print(*ast, os);
  } else if (emitKind == Stage::Tile) {
    mlir::MLIRContext context;
    options.configurePM = configurePassManager;
    // (The one option the tile IR shows: kernels launched in clusters.)
    if (clusterFlag.getNumOccurrences())
      options.cluster = clusterFlag.getValue();
    auto module = tilec::compileToTileIR(context, bufferId, diag, options);
    if (!module)
      return 1;
    module->print(os);
  } else {
    tilec::CompileRequest request;
    request.source = std::move(source);
    request.bufferName =
        inputFile == "-" ? std::string("<stdin>") : inputFile.getValue();
    request.defines = options.defines;
    request.kernelName = options.kernelName;
    request.arch = arch;
    // The options given on the command line; the others are left to the
    // kernel's @hints and the defaults.
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  if (FIELD##Flag.getNumOccurrences())                                         \
    request.FIELD = FIELD##Flag.getValue();
#include "tile/Options.def"
    if (noLoopSplit)
      request.loopSplit = false;
    request.configurePM = configurePassManager;
    tilec::CompileResult result = tilec::compile(request, emitKind);
    errs() << result.diagnostics;
    if (!result.ok)
      return 1;
    os << result.text;
    sourceName = request.bufferName;
  }

  if (!tilec::writeFileSafely(outputFile, text, error,
                              /*removeOnSignal=*/true)) {
    errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  // Spills and serialized wgmma are ptxas's to know: ask it, where there
  // is one.
  if (emitKind == Stage::PTX && ptxasCheck)
    if (std::string ptxas = tilec::findPtxas(); !ptxas.empty()) {
      // The target, from the kernels' descriptions ("arch":"sm_90a").
      StringRef ptx(text);
      size_t at = ptx.find("\"arch\":\"");
      StringRef target = at == StringRef::npos
                             ? StringRef()
                             : ptx.drop_front(at + 8).take_until(
                                   [](char c) { return c == '"'; });
      if (!target.empty())
        tilec::reportPtxasWarnings(ptxas, ptx, target, sourceName, errs());
    }
  return 0;
}
