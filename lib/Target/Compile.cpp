//===- Compile.cpp - From .tile source to PTX, in process -----------------===//

#include "tilec/Target/Compile.h"

#include "PTXEmitter.h"

#include "tilec/Frontend/Compiler.h"
#include "tilec/Frontend/Source.h"
#include "tilec/Pipeline/Pipeline.h"
#include "tilec/Pipeline/Registration.h"

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <sys/stat.h>

using namespace tilec;
using llvm::SmallVector;

/// The release plus the identity (size and modification time) of the binary
/// the compiler is in, so that a rebuilt compiler never reuses PTX that an
/// older build left in the on-disk cache.
const char *tilec::compilerVersion() {
  static const std::string version = [] {
    std::string v = "tilec-0.2.0";
    Dl_info info;
    struct stat st;
    if (dladdr(reinterpret_cast<void *>(&tilec::compilerVersion), &info) &&
        info.dli_fname && stat(info.dli_fname, &st) == 0)
      v += "+" + std::to_string(st.st_size) + "." +
           std::to_string(static_cast<long long>(st.st_mtime));
    return v;
  }();
  return version.c_str();
}

namespace {

std::optional<ElementKind> elementKind(mlir::Type t) {
  if (t.isF16())
    return ElementKind::F16;
  if (t.isBF16())
    return ElementKind::BF16;
  if (t.isF32())
    return ElementKind::F32;
  if (t.isInteger(32))
    return ElementKind::I32;
  if (t.isInteger(64))
    return ElementKind::I64;
  if (t.isInteger(8))
    return ElementKind::I8;
  if (t.isInteger(1))
    return ElementKind::Bool;
  if (mlir::isa<mlir::Float8E4M3FNType>(t))
    return ElementKind::F8E4M3;
  if (mlir::isa<mlir::Float8E5M2Type>(t))
    return ElementKind::F8E5M2;
  return std::nullopt;
}

/// What the runtime needs of a kernel, from its tile IR signature and the
/// parameter names of its source.
/// A constant as -D and the kernel's description spell it.
std::string constantText(mlir::Attribute value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto t = mlir::dyn_cast<mlir::TypeAttr>(value))
    os << t.getValue();
  else if (auto b = mlir::dyn_cast<mlir::BoolAttr>(value))
    os << (b.getValue() ? "true" : "false");
  else if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(value))
    os << i.getInt();
  else if (auto f = mlir::dyn_cast<mlir::FloatAttr>(value))
    os << f.getValueAsDouble();
  return text;
}

KernelInfo describeKernel(mlir::func::FuncOp func, const ast::Kernel &kernel,
                          const CodegenOptions &options) {
  KernelInfo info;
  info.name = func.getName().str();
  info.numWarps = options.numWarps;
  info.numStages = options.numStages;
  info.loopSplit = options.loopSplit;
  info.persistent = options.persistent;
  info.tileCounter = options.persistent;
  info.arch = options.arch;
  SmallVector<const ast::Param *> runtime;
  for (const ast::Param &p : kernel.params)
    if (!p.isConst)
      runtime.push_back(&p);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    KernelParam param;
    param.name =
        i < runtime.size() ? runtime[i]->name : "arg" + std::to_string(i);
    if (auto g = mlir::dyn_cast<mlir::tile::GlobalTensorType>(type)) {
      param.isTensor = true;
      param.element = *elementKind(g.getElementType());
      param.rank = g.getRank();
      param.alignment = options.tensorAlignment;
      param.contiguous = true;
    } else if (type.isF32()) {
      param.scalar = ScalarKind::F32;
    } else if (type.isInteger(1)) {
      param.scalar = ScalarKind::Bool;
    } else if (type.isInteger(64)) {
      param.scalar = ScalarKind::I64;
    } else {
      param.scalar = ScalarKind::I32;
    }
    info.params.push_back(param);
  }
  if (auto constants = func->getAttrOfType<mlir::DictionaryAttr>(
          mlir::tile::TileDialect::getConstantsAttrName()))
    for (mlir::NamedAttribute c : constants)
      info.constants.emplace_back(c.getName().str(),
                                  constantText(c.getValue()));
  // The values a tuner may try (@tune).
  if (auto tune = func->getAttrOfType<mlir::DictionaryAttr>(
          mlir::tile::TileDialect::getTuneAttrName()))
    for (mlir::NamedAttribute entry : tune) {
      std::vector<std::string> values;
      for (mlir::Attribute v : mlir::cast<mlir::ArrayAttr>(entry.getValue()))
        values.push_back(constantText(v));
      info.tune.emplace_back(entry.getName().str(), std::move(values));
    }
  return info;
}

/// The TMA descriptors tile-convert-copies-to-tma gave the kernel, and why
/// some loops kept cp.async, from its attributes; a message when an entry
/// is not one the runtime can build.
std::string describeTensorMaps(mlir::LLVM::LLVMFuncOp func, KernelInfo &info) {
  if (auto reasons = func->getAttrOfType<mlir::ArrayAttr>(
          mlir::tile::TileDialect::getTmaFallbackAttrName()))
    for (auto r : reasons.getAsRange<mlir::StringAttr>())
      info.tmaFallback.push_back(r.str());
  auto maps = func->getAttrOfType<mlir::ArrayAttr>(
      mlir::tile::TileDialect::getTensorMapsAttrName());
  if (!maps)
    return "";
  for (auto entry : maps.getAsRange<mlir::DictionaryAttr>()) {
    auto param = entry.getAs<mlir::IntegerAttr>("param");
    auto box = entry.getAs<mlir::DenseI64ArrayAttr>("box");
    auto swizzle = entry.getAs<mlir::IntegerAttr>("swizzle");
    if (!param || !box || !swizzle ||
        param.getInt() >= int64_t(info.params.size()))
      return "malformed tile.tensor_maps entry";
    TensorMapInfo map;
    map.param = param.getInt();
    for (int64_t d : box.asArrayRef())
      map.box.push_back(unsigned(d));
    map.swizzle = swizzle.getInt();
    std::string problem = tensorMapProblem(map, info.params[map.param]);
    if (!problem.empty())
      return problem;
    info.tensorMaps.push_back(map);
  }
  return "";
}

/// The alignment each tensor parameter's accesses rely on, which launches
/// check: the widest vector the lowering gave them (at least an element;
/// convert-tile-to-llvm's getParamVectorBytesAttrName), or, for a tensor with a
/// TMA descriptor, the kernel's assumed alignment (`info`'s until now). A
/// small tensor read an element at a time (a sequence length, a block
/// table) then takes any element-aligned pointer and length without a
/// less aligned variant of the whole kernel.
void describeAlignments(mlir::LLVM::LLVMFuncOp func, KernelInfo &info) {
  auto widths = func->getAttrOfType<mlir::DenseI32ArrayAttr>(
      mlir::tile::TileDialect::getParamVectorBytesAttrName());
  if (!widths)
    return;
  llvm::SmallVector<bool> tma(info.params.size(), false);
  if (auto maps = func->getAttrOfType<mlir::ArrayAttr>(
          mlir::tile::TileDialect::getTensorMapsAttrName()))
    for (auto entry : maps.getAsRange<mlir::DictionaryAttr>())
      if (auto param = entry.getAs<mlir::IntegerAttr>("param");
          param && param.getInt() >= 0 &&
          param.getInt() < int64_t(info.params.size()))
        tma[param.getInt()] = true;
  for (auto [i, param] : llvm::enumerate(info.params)) {
    if (!param.isTensor || tma[i] || i >= size_t(widths.size()))
      continue;
    unsigned need = std::max<unsigned>(elementBytes(param.element),
                                       unsigned(std::max(widths[i], 0)));
    param.alignment =
        std::min(param.alignment, unsigned(llvm::PowerOf2Ceil(need)));
  }
}

/// The tensors a warp-specialized kernel's producer reads ahead of the
/// kernel's writes, and those it writes (tile-warp-specialize's
/// tile.read_ahead_params and tile.written_params): the launch checks that
/// none of the second overlaps one of the first.
void describeReadAhead(mlir::LLVM::LLVMFuncOp func, KernelInfo &info) {
  for (auto [name, field] :
       {std::pair{mlir::tile::TileDialect::getReadAheadParamsAttrName(),
                  &KernelParam::readAhead},
        std::pair{mlir::tile::TileDialect::getWrittenParamsAttrName(),
                  &KernelParam::written}}) {
    auto params = func->getAttrOfType<mlir::DenseI32ArrayAttr>(name);
    if (!params)
      continue;
    for (int32_t i : params.asArrayRef())
      if (i >= 0 && size_t(i) < info.params.size() && info.params[i].isTensor)
        info.params[i].*field = true;
  }
}

/// The options `func` is compiled with: the request's where it gives them,
/// else the kernel's @hints (its `tile.hints`) for the options a kernel may
/// give, else the defaults (tile/Options.def).
CodegenOptions resolveOptions(const CompileRequest &request,
                              mlir::func::FuncOp func, bool choose = true) {
  CodegenOptions options;
  options.arch = request.arch;
  auto hints = func ? func->getAttrOfType<mlir::DictionaryAttr>(
                          mlir::tile::TileDialect::getHintsAttrName())
                    : mlir::DictionaryAttr();
  // The caller's value, else the kernel's hint; whether either gave one.
  auto pick = [&](auto &field, const auto &given, llvm::StringRef key,
                  unsigned flags) {
    using T = std::decay_t<decltype(field)>;
    if (given) {
      field = *given;
      return true;
    }
    if (!(flags & TILE_OPTION_HINT) || !hints)
      return false;
    mlir::Attribute a = hints.get(key);
    if constexpr (std::is_same_v<T, bool>) {
      if (auto b = llvm::dyn_cast_or_null<mlir::BoolAttr>(a)) {
        field = b.getValue();
        return true;
      }
    } else {
      if (auto i = llvm::dyn_cast_or_null<mlir::IntegerAttr>(a)) {
        field = T(i.getInt());
        return true;
      }
    }
    return false;
  };
  tile::Options set; // which options the caller or the hints gave
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  if (pick(options.FIELD, request.FIELD, #KEY, FLAGS))                         \
    set.FIELD = options.FIELD;
#include "tile/Options.def"
  options.given = set;
  // Else the compiler's choice from the kernel's structure (sm_90a), else
  // the default.
  if (options.autoSchedule && func && choose) {
    tile::Options choice = chooseSchedule(func, options.arch, set);
#define TILE_OPTION(FIELD, KEY, TYPE, DEFAULT, MIN, MAX, FLAGS, DOC)           \
  if (!set.FIELD && choice.FIELD)                                              \
    options.FIELD = *choice.FIELD;
#include "tile/Options.def"
  }
  return options;
}

/// Clusters are sm_90's: a persistent kernel's (tile-persistent's cluster,
/// its blocks sharing copies by multicast), or any kernel's launched in
/// clusters along x (its blocks meeting at cluster_barrier()).
/// Reported at the kernel, by name, with where the option came from.
bool checkCluster(const CodegenOptions &options, mlir::func::FuncOp func) {
  if (options.cluster <= 1 || options.hasTMA())
    return true;
  mlir::emitError(func.getLoc())
      << "kernel '" << func.getName() << "': cluster=" << options.cluster
      << " (blocks launched in clusters, from its @hints or --cluster) "
         "needs sm_90 or sm_90a, not "
      << options.arch
      << " (--kernel NAME compiles another kernel of the file alone)";
  return false;
}

} // namespace

CompileResult tilec::compile(const CompileRequest &request, Stage stage) {
  CompileResult result;
  llvm::raw_string_ostream diagOS(result.diagnostics);
  if (std::string tooLarge =
          sourceSizeError(request.bufferName, request.source.size());
      !tooLarge.empty()) {
    diagOS << "tilec: error: " << tooLarge << "\n";
    return result;
  }
  llvm::SourceMgr sourceMgr;
  unsigned bufferId =
      addSourceBuffer(sourceMgr, request.source, request.bufferName);
  DiagnosticEngine diag(sourceMgr, diagOS);

  auto ast = parseSource(bufferId, diag);
  if (!ast)
    return result;
  if (stage == Stage::AST) {
    llvm::raw_string_ostream os(result.text);
    ast::print(*ast, os);
    result.ok = true;
    return result;
  }

  if (stage >= Stage::Layout) {
    static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90",
                                        "sm_90a"};
    if (!llvm::is_contained(archs, request.arch)) {
      diagOS << "tilec: error: unsupported GPU architecture '" << request.arch
             << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)\n";
      return result;
    }
    // Each option in its range, and the options together (Options.def).
    if (std::string error = request.check(); !error.empty()) {
      diagOS << "tilec: error: " << error << "\n";
      return result;
    }
  }

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  FrontendOptions options;
  options.defines = request.defines;
  options.kernelName = request.kernelName;
  options.configurePM = request.configurePM;
  // (The kernels' @hints(cluster=C) where the request gives none.)
  options.cluster = request.cluster;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      compileToTileIR(context, bufferId, diag, options);
  if (!module)
    return result;
  if (stage == Stage::Tile) {
    llvm::raw_string_ostream os(result.text);
    module->print(os);
    result.ok = true;
    return result;
  }

  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
  SmallVector<mlir::func::FuncOp> funcs(module->getOps<mlir::func::FuncOp>());
  // A diagnostic about an op with no source location is reported at the
  // kernel being compiled.
  mlir::Location kernelLoc =
      funcs.empty() ? module->getLoc() : funcs.front().getLoc();
  LocateUnlocatedDiagnostics locate(context, [&] { return kernelLoc; });
  // A lowering pattern that refuses an op says why, in the language's
  // terms; the dialect conversion then adds "failed to legalize operation
  // 'tile.mma' ...", which names MLIR's internals: dropped after an error
  // (kept when it is the only one, as the bug report it then is).
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler legalizeNoise(
      &context, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
        if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
          return mlir::failure();
        if (errors && llvm::StringRef(d.str()).starts_with(
                          "failed to legalize operation"))
          return mlir::success(); // handled: not printed
        ++errors;
        return mlir::failure();
      });
  for (auto func : module->getOps<mlir::func::FuncOp>())
    func->setAttr(
        "tile.tensor_alignment",
        mlir::IntegerAttr::get(mlir::IntegerType::get(&context, 32),
                               resolveOptions(request, func).tensorAlignment));

  auto runPipeline = [&](mlir::ModuleOp m, const CodegenOptions &codegen,
                         bool toLLVM) {
    mlir::PassManager pm(&context);
    if (request.configurePM && mlir::failed(request.configurePM(pm)))
      return false;
    if (toLLVM)
      buildCodegenPipeline(pm, codegen);
    else
      buildLayoutPipeline(pm, codegen);
    return mlir::succeeded(pm.run(m));
  };
  // The codegen pipeline on `m`. Where the kernel's buffers exceed a
  // block's shared memory (tile-check-resources) with options the compiler
  // chose (chooseSchedule sizes the rings from the multiplies' operands
  // alone, and a persistent kernel keeps a sixteenth of shared memory and
  // its epilogue's staging beside them: a plain attention with a bias
  // tile loaded in its loop needed 256 KiB so), it is built again from `m`
  // without the persistence it chose, then with one stage fewer, down to
  // one: each attempt's diagnostics are dropped, the last attempt's kept.
  // A given persistent or num_stages is never changed.
  auto runCodegen = [&](mlir::OwningOpRef<mlir::ModuleOp> &m,
                        CodegenOptions &codegen, KernelInfo &info) {
    while (true) {
      bool chosePersistent = codegen.persistent && !codegen.given.persistent;
      bool choseStages = !codegen.given.numStages && codegen.numStages > 1;
      if (!chosePersistent && !choseStages)
        break;
      mlir::OwningOpRef<mlir::ModuleOp> attempt = m->clone();
      std::vector<mlir::Diagnostic> held;
      bool ran;
      {
        mlir::ScopedDiagnosticHandler hold(
            &context, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
              held.push_back(std::move(d));
              return mlir::success();
            });
        ran = runPipeline(*attempt, codegen, /*toLLVM=*/true);
      }
      // What tile-allocate-shared-memory gave the kernel, when it got that
      // far.
      int64_t shared = 0;
      attempt->walk([&](mlir::func::FuncOp f) {
        if (auto bytes = f->getAttrOfType<mlir::IntegerAttr>(
                mlir::tile::kSharedBytesAttr))
          shared = std::max<int64_t>(shared, bytes.getInt());
      });
      if (ran || shared <= codegen.sharedMemoryBytes()) {
        for (mlir::Diagnostic &d : held)
          context.getDiagEngine().emit(std::move(d));
        m = std::move(attempt);
        return ran;
      }
      if (chosePersistent) {
        // The persistence and what the choice made with it (choosePersistence),
        // where not given: the options' defaults again.
        CodegenOptions defaults;
        codegen.persistent = false;
        if (!codegen.given.tileStages)
          codegen.tileStages = defaults.tileStages;
        if (!codegen.given.tileRefillAfterRead)
          codegen.tileRefillAfterRead = defaults.tileRefillAfterRead;
        if (!codegen.given.rescaleInTrip)
          codegen.rescaleInTrip = defaults.rescaleInTrip;
        info.persistent = info.tileCounter = false;
      } else {
        --codegen.numStages;
        info.numStages = codegen.numStages;
      }
    }
    return runPipeline(*m, codegen, /*toLLVM=*/true);
  };
  if (stage == Stage::Layout || stage == Stage::NVVM) {
    // One pipeline for the whole module: its kernels' options must agree.
    // The compiler's choice only when it is the same for every kernel.
    bool choose = true;
    for (mlir::func::FuncOp func : funcs)
      choose &= resolveOptions(request, funcs.front()) ==
                resolveOptions(request, func);
    CodegenOptions codegen =
        funcs.empty() ? resolveOptions(request, mlir::func::FuncOp())
                      : resolveOptions(request, funcs.front(), choose);
    for (mlir::func::FuncOp func : funcs)
      if (codegen != resolveOptions(request, func, choose)) {
        diagOS << request.bufferName << ": error: kernels '"
               << funcs.front().getName() << "' and '" << func.getName()
               << "' are compiled with different options (from their "
                  "@hints); choose one with --kernel\n";
        return result;
      }
    for (mlir::func::FuncOp func : funcs)
      if (!checkCluster(codegen, func))
        return result;
    if (!runPipeline(*module, codegen, stage == Stage::NVVM))
      return result;
    llvm::raw_string_ostream os(result.text);
    module->print(os);
    result.ok = true;
    return result;
  }

  // LLVM IR and PTX: each kernel in a module of its own, so that each PTX
  // file holds one entry and describes it in its first line.
  llvm::StringMap<const ast::Kernel *> kernels;
  for (const ast::Kernel &k : ast->kernels)
    kernels[k.name] = &k;
  for (mlir::func::FuncOp func : funcs) {
    kernelLoc = func.getLoc();
    CodegenOptions codegen = resolveOptions(request, func);
    if (!checkCluster(codegen, func))
      return result;
    KernelInfo info = describeKernel(func, *kernels[func.getName()], codegen);
    mlir::OwningOpRef<mlir::ModuleOp> single = module->clone();
    for (auto other :
         llvm::make_early_inc_range(single->getOps<mlir::func::FuncOp>()))
      if (other.getName() != func.getName())
        other.erase();
    {
      // The kernel's warnings, also in its description (for JIT users,
      // who see no compiler output), as one line each.
      mlir::ScopedDiagnosticHandler collect(
          &context, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
            if (d.getSeverity() != mlir::DiagnosticSeverity::Warning)
              return mlir::failure();
            std::string text;
            llvm::raw_string_ostream os(text);
            if (auto at =
                    d.getLocation()->findInstanceOf<mlir::FileLineColLoc>())
              os << at.getFilename().getValue() << ":" << at.getLine() << ":"
                 << at.getColumn() << ": ";
            os << "warning: " << d.str();
            info.warnings.push_back(text);
            return mlir::failure(); // printed by the handlers below
          });
      for (const std::string &why : inapplicableOptions(codegen))
        mlir::emitWarning(func.getLoc()) << why;
      if (!runCodegen(single, codegen, info))
        return result;
    }
    for (auto f : single->getOps<mlir::LLVM::LLVMFuncOp>())
      if (f.getName() == info.name) {
        if (auto bytes =
                f->getAttrOfType<mlir::IntegerAttr>("tile.shared_bytes"))
          info.sharedBytes = bytes.getInt();
        // Launched in clusters (tile-persistent's, or a kernel's own).
        if (auto dims =
                f->getAttrOfType<mlir::DenseI32ArrayAttr>("nvvm.cluster_dim");
            dims && !dims.empty())
          info.cluster = unsigned(dims[0]);
        // Waits for the kernel before it (tile-dependent-launch).
        info.dependentLaunch =
            f->hasAttr(mlir::tile::TileDialect::getDependentLaunchAttrName());
        // The block as launched: a warp-specialized kernel has a producer
        // warpgroup besides the warps its layouts describe.
        if (auto threads =
                f->getAttrOfType<mlir::DenseI32ArrayAttr>("nvvm.maxntid");
            threads && threads.size() && threads[0] > 0)
          info.numWarps = unsigned(threads[0]) / 32;
        describeAlignments(f, info);
        describeReadAhead(f, info);
        // Instrumented for a timeline (tile-timeline).
        if (auto timeline = f->getAttrOfType<mlir::DictionaryAttr>(
                mlir::tile::TileDialect::getTimelineAttrName())) {
          info.timelineRecords =
              unsigned(timeline.getAs<mlir::IntegerAttr>("records").getInt());
          for (mlir::Attribute site : timeline.getAs<mlir::ArrayAttr>("sites"))
            info.timelineSites.push_back(
                mlir::cast<mlir::StringAttr>(site).str());
        }
        std::string problem = describeTensorMaps(f, info);
        if (!problem.empty()) {
          diagOS << request.bufferName << ": error: kernel '" << info.name
                 << "': " << problem << "\n";
          return result;
        }
      }
    llvm::LLVMContext llvmContext;
    std::string error;
    unsigned rematerialized = 0;
    auto llvmModule =
        translateToLLVMIR(*single, llvmContext, request.arch,
                          codegen.rematerialize, error, &rematerialized);
    if (!llvmModule) {
      diagOS << request.bufferName << ": error: " << error << "\n";
      return result;
    }
    // Asked for by name (an option or a hint), the pass changed nothing.
    if (codegen.given.rematerialize.value_or(false) && !rematerialized) {
      std::string line =
          request.bufferName + ": warning: kernel '" + info.name +
          "': rematerialize does not apply: no loop of the kernel is "
          "estimated to need more registers than its budget, so no address "
          "is recomputed in a loop";
      diagOS << line << "\n";
      info.warnings.push_back(line);
    }
    if (stage == Stage::LLVM) {
      llvm::raw_string_ostream os(result.text);
      llvmModule->print(os, nullptr);
      continue;
    }
    std::string ptx;
    if (!emitPTX(*llvmModule, request.arch, ptx, error)) {
      diagOS << request.bufferName << ": error: " << error << "\n";
      return result;
    }
    CompiledKernel compiled;
    compiled.info = info;
    compiled.ptx = "// tilec-kernel: " + info.toJSON() + "\n" + ptx;
    result.text += compiled.ptx;
    result.kernels.push_back(std::move(compiled));
  }
  result.ok = true;
  return result;
}
