//===- PTXEmitter.cpp - LLVM dialect to PTX, in process -------------------===//

#include "PTXEmitter.h"
#include "RematerializeAddresses.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace tilec;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit pointers to shared memory: half the registers for the many
    // shared addresses of a kernel, and [reg + immediate] addressing for
    // the offsets between its tiles.
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it != options.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  });
}

/// The PTX ISA version each target needs: mma.sync on 8-bit floats
/// (sm_89 on) needs PTX 8.4; before sm_89, 7.8 does.
static const char *ptxFeatures(llvm::StringRef arch) {
  return llvm::StringSwitch<const char *>(arch)
      .Cases({"sm_89", "sm_90", "sm_90a"}, "+ptx84")
      .Default("+ptx78");
}

static std::unique_ptr<llvm::TargetMachine>
createTargetMachine(llvm::StringRef arch, std::string &error) {
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  if (!llvm::StringSwitch<bool>(arch)
           .Cases({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}, true)
           .Default(false)) {
    error = "unsupported GPU architecture '" + arch.str() +
            "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)";
    return nullptr;
  }
  llvm::TargetOptions options;
  // Contract a * b + c into fma, as nvcc does by default (--fmad=true) and
  // as the tile language promises no particular rounding of its float
  // expressions: the online softmax's scale-and-subtract is one fma.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, arch, ptxFeatures(arch), options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
}

std::unique_ptr<llvm::Module>
tilec::translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                         llvm::StringRef arch, bool rematerialize,
                         std::string &error, unsigned *rematerialized) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  auto tm = createTargetMachine(arch, error);
  if (!tm)
    return nullptr;
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(tm->createDataLayout());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  // After LICM has hoisted every invariant: the addresses a crowded loop
  // would hold in registers across its trips, recomputed in the loop.
  if (rematerialize)
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(
        RematerializeAddressesPass(rematerialized)));
  mpm.run(*llvmModule, mam);
  return llvmModule;
}

namespace {
/// Keeps NVPTX's straight-line strength reduction (SLSR) off functions with
/// more address arithmetic than it handles in reasonable time. For each
/// add, multiply or address computation, SLSR searches the earlier ones of
/// the same stride or base (and asks ScalarEvolution whether each could be
/// reused without poison): the work grows with the square of their number.
/// A kernel that loads many tiles of one tensor in straight-line code has
/// thousands that share one stride (300 loads of 64x64 tiles: 9,600, and 33
/// s in SLSR alone). Beyond kMaxCandidates the addresses are computed as
/// written, one mad.wide each, and compile time stays linear in the size of
/// the kernel.
/// Also keeps loop strength reduction (LSR) off a module with a function
/// that tile-rematerialize-addresses found crowded (kCrowdedLoopsAttr): LSR
/// gives each address of a loop an induction variable whose invariant part
/// is held across the loop, the registers the recomputation freed. (LSR is
/// gated per loop with no function named: the module decides, one kernel
/// in each as tilec and libtile compile them.) Register sweep, 2026-12-04
/// (bench/results/2026-12-04-lsr-crowded-loops.md): on sm_80 attention_window
/// 12 bytes of spills and attn_bwd_dq 4 to none, the attention API's causal
/// 128 x 64 candidates 520 to 352 bytes.
/// Every other pass runs, and the bisection gate (--opt-bisect-limit)
/// still has its say.
class StrengthReductionGate : public llvm::OptPassGate {
public:
  static constexpr unsigned kMaxCandidates = 1536;

  StrengthReductionGate(const llvm::Module &module, llvm::OptPassGate &next)
      : next(next) {
    for (const llvm::Function &f : module) {
      if (f.hasFnAttribute(kCrowdedLoopsAttr))
        crowded = true;
      unsigned candidates = 0;
      for (const llvm::Instruction &i : llvm::instructions(f))
        if (llvm::isa<llvm::GetElementPtrInst>(i) ||
            (i.getType()->isIntegerTy() &&
             llvm::is_contained({llvm::Instruction::Add, llvm::Instruction::Sub,
                                 llvm::Instruction::Mul, llvm::Instruction::Shl,
                                 llvm::Instruction::Or},
                                i.getOpcode())))
          ++candidates;
      if (candidates > kMaxCandidates)
        tooLarge.insert("function (" + f.getName().str() + ")");
    }
  }

  bool shouldRunPass(llvm::StringRef pass,
                     llvm::StringRef description) const override {
    if (pass == "slsr" && tooLarge.contains(description))
      return false;
    if (crowded && pass == "Loop Strength Reduction")
      return false;
    return !next.isEnabled() || next.shouldRunPass(pass, description);
  }
  bool isEnabled() const override { return true; }

private:
  llvm::OptPassGate &next;
  llvm::StringSet<> tooLarge;
  bool crowded = false;
};
} // namespace

bool tilec::emitPTX(llvm::Module &module, llvm::StringRef arch,
                    std::string &ptx, std::string &error) {
  auto tm = createTargetMachine(arch, error);
  if (!tm)
    return false;
  llvm::LLVMContext &context = module.getContext();
  llvm::OptPassGate &previous = context.getOptPassGate();
  StrengthReductionGate gate(module, previous);
  context.setOptPassGate(gate);
  llvm::scope_exit restore([&] { context.setOptPassGate(previous); });
  llvm::raw_string_ostream os(ptx);
  llvm::buffer_ostream bos(os);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, bos, nullptr,
                              llvm::CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX back end cannot emit assembly";
    return false;
  }
  pm.run(module);
  return true;
}
