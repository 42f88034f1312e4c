//===- Functions.cpp - Calls of the module's `def` functions --------------===//
//
// A call of a function defined with `def` is inlined where it is made: its
// arguments are evaluated in the caller's scope and bound to the
// parameters (positionally, then by keyword, then the defaults, which are
// evaluated in the function's scope), and its body is emitted at the call
// in a scope of its own, which sees the parameters, the module's constants
// and functions and the built-ins, not the caller's names. The body's
// operations carry call-site locations (the line in the function, called
// from the caller's line), so that a later diagnostic names both. The
// value of a trailing `return` is the call's value (None without one).
//
// Functions are called from kernel bodies (and from functions called
// there): a module constant, a @hints value or a parameter's default has no
// block to emit operations into. A function calling itself, directly or
// not, is refused: each call is expanded, and the expansion would not end.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tilec;
using llvm::SMLoc;

namespace {
/// Calls expanded within one another, at most (a bound on the compile
/// time of deep call chains; recursion is refused before it).
constexpr unsigned kMaxCallDepth = 64;
} // namespace

Val Emitter::emitFunctionCall(const ast::Call &call,
                              const ast::Function &function) {
  const std::string &name = function.name;
  if (!inKernelBody)
    return error(call.getLoc(), "'" + name +
                                    "' is a function: functions are called "
                                    "in kernel bodies only (not in module "
                                    "constants, hints or parameter defaults)");
  for (const InlinedCall &c : calls)
    if (c.function == &function)
      return error(call.getLoc(), "'" + name +
                                      "' calls itself (through the calls "
                                      "above it): recursion is not supported; "
                                      "each call of a function is expanded "
                                      "where it is made");
  if (calls.size() >= kMaxCallDepth)
    return error(call.getLoc(), "calls nested too deep (more than " +
                                    std::to_string(kMaxCallDepth) + ")");

  // The arguments, in the caller's scope.
  size_t n = function.params.size();
  std::vector<std::optional<Val>> bound(n);
  bool ok = true;
  if (call.args.size() > n) {
    diag.error(call.args[n]->getLoc(), name + "() takes " + std::to_string(n) +
                                           " argument" + (n == 1 ? "" : "s") +
                                           ", got " +
                                           std::to_string(call.args.size()));
    ok = false;
  }
  for (auto [i, arg] : llvm::enumerate(call.args))
    if (i < n)
      bound[i] = emitExpr(*arg);
  for (const ast::Keyword &kw : call.keywords) {
    auto it = llvm::find_if(function.params, [&](const ast::FuncParam &p) {
      return p.name == kw.name;
    });
    if (it == function.params.end()) {
      diag.error(kw.nameRange.Start, name +
                                         "() got an unexpected keyword "
                                         "argument '" +
                                         kw.name + "'");
      ok = false;
      continue;
    }
    size_t i = it - function.params.begin();
    if (bound[i]) {
      diag.error(kw.nameRange.Start, name +
                                         "() got multiple values for "
                                         "argument '" +
                                         kw.name + "'");
      ok = false;
      continue;
    }
    bound[i] = emitExpr(*kw.value);
  }
  for (auto [i, p] : llvm::enumerate(function.params))
    if (!bound[i] && !p.defaultValue) {
      diag.error(call.getLoc(),
                 name + "() missing required argument '" + p.name + "'");
      ok = false;
    }
  if (!ok)
    return Val::invalid();

  // The function's scope: its parameters over the module's names.
  unsigned errorsBefore = diag.getNumErrors();
  Location callerLoc = loc(call.getLoc());
  Env callerEnv = std::move(env);
  llvm::StringMap<SMLoc> callerOutOfScope = std::move(outOfScope);
  env = Env();
  outOfScope.clear();
  calls.push_back({&function, callerLoc});
  // A function's body is in no loop of its caller's.
  auto callerLoops = std::move(loops);
  loops.clear();
  // Defaults see the module's names only (as Python's, evaluated where
  // the function is defined), then the parameters are bound.
  for (auto [i, p] : llvm::enumerate(function.params))
    if (!bound[i])
      bound[i] = emitExpr(*p.defaultValue);
  for (auto [i, p] : llvm::enumerate(function.params))
    env[p.name] = std::move(*bound[i]);

  Val result = Val::none();
  for (auto [i, stmt] : llvm::enumerate(function.body)) {
    if (diag.tooManyErrors())
      break;
    auto *ret = dyn_cast<ast::Return>(stmt.get());
    if (ret && i + 1 == function.body.size()) {
      if (ret->value)
        result = emitExpr(*ret->value);
      break;
    }
    emitStmt(*stmt); // a `return` anywhere else is an error there
  }

  calls.pop_back();
  loops = std::move(callerLoops);
  env = std::move(callerEnv);
  outOfScope = std::move(callerOutOfScope);
  if (diag.getNumErrors() != errorsBefore) {
    diag.note(call.getLoc(), "in this call of '" + name + "'");
    return Val::invalid();
  }
  return result;
}

bool Emitter::collectFunctions(const ast::Module &module) {
  bool ok = true;
  llvm::StringSet<> kernels;
  for (const ast::Kernel &k : module.kernels)
    kernels.insert(k.name);
  for (const ast::Function &f : module.functions) {
    auto [it, inserted] = functions.try_emplace(f.name, &f);
    if (!inserted) {
      diag.error(f.nameRange.Start, "duplicate function '" + f.name + "'");
      diag.note(it->second->nameRange.Start,
                "'" + f.name + "' was first defined here");
      ok = false;
    } else if (kernels.count(f.name)) {
      diag.error(f.nameRange.Start,
                 "'" + f.name + "' names both a function and a kernel");
      ok = false;
    }
  }
  return ok;
}
