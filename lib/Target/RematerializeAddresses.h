//===- RematerializeAddresses.h - loop-invariant addresses back into loops ===//
//
// An LLVM IR pass run after the O3 pipeline on NVPTX: LICM hoists every
// loop-invariant computation out of its loop, among them the per-thread
// addresses of a loop's shared-memory stores and loads (a swizzled tile
// written each trip has one address per 16-byte chunk a thread writes). On
// a GPU each hoisted value is a register held across the whole loop, and
// where the loop's tiles already fill the registers ptxas spills them and
// reloads them every trip. The pass recomputes such arithmetic next to its
// uses inside the loop, from the few values it derives from, in loops
// whose estimated register demand exceeds the kernel's budget, and marks
// such a function (kCrowdedLoopsAttr) so that the back end does not
// strength-reduce its loops: LSR gives each address of a loop an induction
// variable of its own, its invariant part hoisted again (a causal
// attention's 16 row addresses of a key tile: 32 registers a thread held
// across the loop), which undoes the recomputation where registers are
// short.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_REMATERIALIZEADDRESSES_H
#define TILEC_LIB_TARGET_REMATERIALIZEADDRESSES_H

#include "llvm/IR/PassManager.h"

namespace tilec {

/// The string attribute RematerializeAddressesPass puts on a function with
/// a loop whose estimated register demand exceeds the kernel's budget
/// (whether or not it recomputed anything there).
inline constexpr const char *kCrowdedLoopsAttr = "tilec-crowded-loops";

/// Recomputes, inside a loop, cheap integer and address arithmetic defined
/// outside it and used only inside it (a chain of add, sub, mul, shifts,
/// bitwise ops, casts and getelementptr), when that lowers the number of
/// registers live across the loop and the loop's estimated register demand
/// is above the kernel's budget (its setmaxnreg, or the registers per
/// thread its launch bounds allow).
class RematerializeAddressesPass
    : public llvm::PassInfoMixin<RematerializeAddressesPass> {
public:
  /// `changed`, when given, counts the functions the pass changed.
  explicit RematerializeAddressesPass(unsigned *changed = nullptr)
      : changed(changed) {}
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);

private:
  unsigned *changed;
};

} // namespace tilec

#endif // TILEC_LIB_TARGET_REMATERIALIZEADDRESSES_H
