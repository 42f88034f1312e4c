//===- TilecMain.cpp - The tilec command line -----------------------------===//
//
//   tilec FILE [-DNAME=VALUE ...] [--kernel NAME]
//         [--emit=ast|tile|layout|nvvm|llvm|ptx] [--arch=sm_90a]
//         [--num-warps=4] [--alignment=16] [--num-stages=0]
//         [--loop-split=true|false] [--no-loop-split] [-o OUT]
//
// Diagnostics go to stderr as file:line:col with the source line and a
// caret; the exit code is non-zero on any error. The output file is written
// only after a successful compilation, and never over the input.
//
// The driver lives in libtile (exported as tile_tilec_main), so that the
// tilec executable is the same compiler applications embed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Frontend/Source.h"
#include "tilec/Pipeline/Registration.h"
#include "tilec/Support/Files.h"
#include "tilec/Target/Compile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <csignal>

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
// The options a kernel may also give in its @hints(...): given here, they
// win over the hint.
cl::opt<unsigned> numWarps("num-warps",
                           cl::desc("Warps per thread block (default 4)"),
                           cl::init(4), cl::cat(tilecCategory));
cl::opt<unsigned>
    occupancy("occupancy",
              cl::desc("Blocks per multiprocessor to budget registers for (PTX "
                       ".minnctapersm), 1 to 32"),
              cl::init(0), cl::value_desc("1-32"), cl::cat(tilecCategory));
cl::opt<unsigned> alignment(
    "alignment",
    cl::desc("Byte alignment assumed for tensors (checked at launch)"),
    cl::init(16), cl::cat(tilecCategory));
cl::opt<unsigned> numStages(
    "num-stages",
    cl::desc("Software-pipeline stages of the async copies in loops: 0 takes "
             "them from the kernel's latency hints, 1 turns pipelining off, "
             "2 to 8 gives every pipelined copy that many stages"),
    cl::init(0), cl::value_desc("0-8"), cl::cat(tilecCategory));
cl::opt<bool> loopSplit(
    "loop-split",
    cl::desc("Split loops at branches on their induction variable (the "
             "causal mask of attention); --loop-split=false turns it off"),
    cl::init(true), cl::cat(tilecCategory));
cl::opt<bool> noLoopSplit("no-loop-split",
                          cl::desc("The same as --loop-split=false"),
                          cl::cat(tilecCategory));
cl::opt<bool> rotateWgmma(
    "rotate-wgmma",
    cl::desc("sm_90a: issue a loop's last multiply in the next trip, behind "
             "its first (in-warpgroup overlap); --rotate-wgmma=false turns "
             "it off"),
    cl::init(true), cl::cat(tilecCategory));
cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("sm_90a: a TMA producer warp and consumer warpgroups that "
             "trade registers with setmaxnreg (tile-warp-specialize)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> pingPong(
    "ping-pong",
    cl::desc("sm_90a, with --warp-specialize and 8 or more warps: consumer "
             "warpgroups issue their multiplies in turns (tile-ping-pong)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> persistent(
    "persistent",
    cl::desc("A persistent kernel: the runtime launches a block per "
             "multiprocessor slot, each looping over the blocks of the grid "
             "the launch asks for (tile-persistent)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<unsigned> cluster(
    "cluster",
    cl::desc("sm_90, with --persistent: launch in clusters of this many "
             "blocks along x, which run neighbouring tiles together and "
             "share the copies that are alike in all of them (TMA multicast: "
             "tile-multicast-copies); 1: no clusters"),
    cl::init(1), cl::value_desc("1|2|4|8"), cl::cat(tilecCategory));
cl::opt<unsigned> tileStages(
    "tile-stages",
    cl::desc("A persistent kernel's per-tile copies (attention's Q): 2 loads "
             "the next tile's while this one runs, 1 does not"),
    cl::init(2), cl::value_desc("1-2"), cl::cat(tilecCategory));
cl::opt<bool> tileRefillAfterRead(
    "tile-refill-after-read",
    cl::desc("With --tile-stages=1: a tile's copy is loaded for the next "
             "tile as soon as this tile has read it for the last time, not "
             "at the next tile's start"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> dynamicSchedule(
    "dynamic-schedule",
    cl::desc("sm_90: a persistent kernel's blocks claim their tiles from a "
             "counter as they go (tile-dynamic-schedule); false: each takes "
             "every P-th tile"),
    cl::init(true), cl::cat(tilecCategory));
cl::opt<bool> deferEpilogue(
    "defer-epilogue",
    cl::desc("sm_90a: a persistent kernel runs a tile's epilogue (the last "
             "multiply's completion, the output's store) under the next "
             "tile's first multiply (tile-defer-epilogue)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> rotateTiles(
    "rotate-tiles",
    cl::desc("sm_90a: a persistent kernel issues the next tile's first "
             "multiply before this tile's last and runs its softmax under "
             "it (tile-rotate-tiles; with --dynamic-schedule)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> rescaleInTrip(
    "rescale-in-trip",
    cl::desc("sm_90a: the accumulator's rescaling (attention's O * alpha) "
             "runs at the end of its trip, once the multiply issued there "
             "completes, not before the next trip's multiply "
             "(tile-rotate-wgmma's rescale-in-trip)"),
    cl::init(false), cl::cat(tilecCategory));
cl::opt<bool> stageInRingSlots(
    "stage-in-ring-slots",
    cl::desc("sm_90: a persistent kernel stages its TMA stores in the "
             "slot of the tile's own copy (attention's Q) that the tile has "
             "read for the last time; false: a buffer of their own"),
    cl::init(true), cl::cat(tilecCategory));
cl::list<std::string> defines("D", cl::Prefix,
                              cl::desc("Override a const parameter"),
                              cl::value_desc("NAME=VALUE"),
                              cl::cat(tilecCategory));
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
      sourceMgr, source, inputFile == "-" ? std::string("<stdin>") : inputFile.getValue());
  tilec::DiagnosticEngine diag(sourceMgr);

  std::string text;
  raw_string_ostream os(text);
  if (emitKind == Stage::AST) {
    auto ast = tilec::parseSource(bufferId, diag);
    if (!ast)
      return 1;
    tilec::ast::print(*ast, os);
  } else if (emitKind == Stage::Tile) {
    mlir::MLIRContext context;
    options.configurePM = configurePassManager;
    auto module = tilec::compileToTileIR(context, bufferId, diag, options);
    if (!module)
      return 1;
    module->print(os);
  } else {
    tilec::CompileRequest request;
    request.source = std::move(source);
    request.bufferName = inputFile == "-" ? std::string("<stdin>") : inputFile.getValue();
    request.defines = options.defines;
    request.kernelName = options.kernelName;
    request.arch = arch;
    request.tensorAlignment = alignment;
    request.loopSplit = loopSplit && !noLoopSplit;
    request.tileStages = tileStages;
    request.cluster = cluster;
    request.tileRefillAfterRead = tileRefillAfterRead;
    request.dynamicSchedule = dynamicSchedule;
    request.deferEpilogue = deferEpilogue;
    request.rotateTiles = rotateTiles;
    request.rescaleInTrip = rescaleInTrip;
    request.stageInRingSlots = stageInRingSlots;
    // Given on the command line, an option wins over the kernel's @hints.
    auto given = [](auto &option, auto &field) {
      if (option.getNumOccurrences())
        field = option.getValue();
    };
    given(numWarps, request.numWarps);
    given(numStages, request.numStages);
    given(occupancy, request.occupancy);
    given(rotateWgmma, request.rotateWgmma);
    given(warpSpecialize, request.warpSpecialize);
    given(pingPong, request.pingPong);
    given(persistent, request.persistent);
    request.configurePM = configurePassManager;
    tilec::CompileResult result = tilec::compile(request, emitKind);
    errs() << result.diagnostics;
    if (!result.ok)
      return 1;
    os << result.text;
  }

  if (!tilec::writeFileSafely(outputFile, text, error)) {
    errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  return 0;
}
