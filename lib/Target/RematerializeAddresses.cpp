//===- RematerializeAddresses.cpp - loop-invariant addresses into loops ---===//

#include "RematerializeAddresses.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"

#include <functional>

using namespace llvm;
using namespace tilec;

namespace {

/// Integer and address arithmetic a thread recomputes in an instruction or
/// two, and conversions of loaded values (a half widened to float, an
/// element of a loaded vector): what the pass moves into loops.
bool isCheap(const Instruction *i) {
  if (auto *bin = dyn_cast<BinaryOperator>(i)) {
    switch (bin->getOpcode()) {
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Mul:
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor:
      return true;
    default:
      return false;
    }
  }
  if (auto *cast = dyn_cast<CastInst>(i))
    return isa<ZExtInst, SExtInst, TruncInst, PtrToIntInst, IntToPtrInst,
               AddrSpaceCastInst, BitCastInst, FPExtInst>(cast) &&
           !cast->getType()->isVectorTy();
  if (isa<ExtractElementInst>(i))
    return isa<ConstantInt>(i->getOperand(1));
  return isa<GetElementPtrInst>(i) && !i->getType()->isVectorTy();
}

/// 32-bit registers a value takes (predicates: none).
unsigned registersOf(const Value *v, const DataLayout &layout) {
  Type *type = v->getType();
  if (type->isIntegerTy(1) || type->isVoidTy() || type->isLabelTy() ||
      type->isMetadataTy() || type->isTokenTy())
    return 0;
  // An aggregate (an inline asm's results) is counted in its extracted
  // elements.
  if (!type->isSized() || type->isAggregateType())
    return 0;
  return (layout.getTypeSizeInBits(type).getFixedValue() + 31) / 32;
}

/// Where a use of a value is: its user's block, or for a phi the end of
/// the block the value comes from.
BasicBlock *useBlock(const Use &use) {
  if (auto *phi = dyn_cast<PHINode>(use.getUser()))
    return phi->getIncomingBlock(use);
  return cast<Instruction>(use.getUser())->getParent();
}

/// What to recompute, as computed by `plan`.
struct Plan {
  /// Cheap instructions outside loops recomputed at each of their uses from
  /// the crowded loops on (uses before keep the original).
  SetVector<Instruction *> chains;
  /// Blocks from the crowded loops on (the loops' own, and those after).
  DenseSet<const BasicBlock *> reach;
  /// Registers live across the crowded loops for these values, before and
  /// after.
  int64_t before = 0, after = 0;
};

/// A directed graph with capacities and Edmonds-Karp's maximum flow: the
/// minimum cut of `plan`.
class FlowGraph {
public:
  static constexpr int64_t kInfinite = int64_t(1) << 40;

  unsigned addNode() {
    edges.emplace_back();
    return edges.size() - 1;
  }
  void addEdge(unsigned from, unsigned to, int64_t capacity) {
    edges[from].push_back({to, capacity, unsigned(edges[to].size())});
    edges[to].push_back({from, 0, unsigned(edges[from].size() - 1)});
  }
  int64_t maxFlow(unsigned source, unsigned sink) {
    int64_t total = 0;
    while (true) {
      SmallVector<std::pair<unsigned, unsigned>> parent(edges.size(),
                                                        {~0u, ~0u});
      SmallVector<unsigned> queue = {source};
      parent[source] = {source, 0};
      for (unsigned q = 0; q < queue.size() && parent[sink].first == ~0u; ++q)
        for (auto [k, e] : llvm::enumerate(edges[queue[q]]))
          if (e.capacity > 0 && parent[e.to].first == ~0u) {
            parent[e.to] = {queue[q], unsigned(k)};
            queue.push_back(e.to);
          }
      if (parent[sink].first == ~0u)
        return total;
      int64_t push = kInfinite;
      for (unsigned v = sink; v != source; v = parent[v].first)
        push =
            std::min(push, edges[parent[v].first][parent[v].second].capacity);
      for (unsigned v = sink; v != source; v = parent[v].first) {
        Edge &e = edges[parent[v].first][parent[v].second];
        e.capacity -= push;
        edges[v][e.reverse].capacity += push;
      }
      total += push;
    }
  }
  /// After maxFlow: the nodes the source still reaches.
  SmallVector<bool> reachable(unsigned source) const {
    SmallVector<bool> seen(edges.size(), false);
    SmallVector<unsigned> stack = {source};
    seen[source] = true;
    while (!stack.empty())
      for (const Edge &e : edges[stack.pop_back_val()])
        if (e.capacity > 0 && !seen[e.to]) {
          seen[e.to] = true;
          stack.push_back(e.to);
        }
    return seen;
  }

private:
  struct Edge {
    unsigned to;
    int64_t capacity;
    unsigned reverse;
  };
  SmallVector<SmallVector<Edge, 4>> edges;
};

/// Which of the values the crowded loops use to keep in registers across
/// them and which to recompute there: the fewest registers held (a minimum
/// vertex cut between the values that cannot be recomputed, those that are
/// not cheap arithmetic outside loops, and the uses from the loops on;
/// each value weighs its registers, nothing for one the loops use anyway).
/// Everything on the uses' side of the cut is recomputed at its uses from
/// the loops on. (The crowded loops at once: a loop split in two, a causal
/// mask's unmasked and masked trips, share their invariants; an epilogue
/// after them often uses the same addresses.)
Plan plan(Function &function, LoopInfo &loops,
          const DenseSet<const BasicBlock *> &crowded,
          const DataLayout &layout) {
  auto inAnyLoop = [&](const Instruction *i) {
    return loops.getLoopFor(i->getParent()) != nullptr;
  };
  Plan result;
  // The blocks from the crowded loops on.
  SmallVector<const BasicBlock *> stack(crowded.begin(), crowded.end());
  result.reach.insert(crowded.begin(), crowded.end());
  while (!stack.empty())
    for (const BasicBlock *succ : successors(stack.pop_back_val()))
      if (result.reach.insert(succ).second)
        stack.push_back(succ);
  // Values defined outside loops that the crowded loops use (not through
  // their phis: a value entering by a phi is used on the way in), and the
  // cheap ones' operands, back to values that are not cheap.
  SetVector<Value *> values;
  SmallVector<Value *> work;
  auto visit = [&](Value *op) {
    if (auto *def = dyn_cast<Instruction>(op)) {
      if (!inAnyLoop(def) && values.insert(def) && isCheap(def))
        work.push_back(def);
    } else if (isa<Argument>(op)) {
      values.insert(op);
    }
  };
  for (BasicBlock &block : function)
    if (crowded.contains(&block))
      for (Instruction &i : block)
        if (!isa<PHINode>(i))
          for (Value *op : i.operands())
            visit(op);
  while (!work.empty())
    for (Value *op : cast<Instruction>(work.pop_back_val())->operands())
      visit(op);
  auto recomputable = [&](Value *v) {
    auto *i = dyn_cast<Instruction>(v);
    return i && isCheap(i);
  };
  // A use from the loops on by something other than these values' own
  // arithmetic.
  auto usedThere = [&](Value *v, bool loopsOnly) {
    return llvm::any_of(v->uses(), [&](const Use &use) {
      const BasicBlock *at = useBlock(use);
      if (!(loopsOnly ? crowded.contains(at) : result.reach.contains(at)))
        return false;
      auto *user = cast<Instruction>(use.getUser());
      return !values.contains(user) || !recomputable(user);
    });
  };
  // Node v: in -> out with v's registers; source -> in of what cannot be
  // recomputed; out -> sink of what is used from the loops on; out(u) ->
  // in(v) for each operand u of a recomputable v.
  FlowGraph graph;
  unsigned source = graph.addNode(), sink = graph.addNode();
  DenseMap<Value *, unsigned> node;
  for (Value *v : values) {
    unsigned in = graph.addNode(), out = graph.addNode();
    node[v] = in;
    int64_t weight = std::max(1u, registersOf(v, layout));
    if (usedThere(v, /*loopsOnly=*/true) && !recomputable(v))
      weight = 0; // live in the loops anyway
    graph.addEdge(in, out, weight);
    if (!recomputable(v))
      graph.addEdge(source, in, FlowGraph::kInfinite);
    if (usedThere(v, /*loopsOnly=*/false)) {
      graph.addEdge(out, sink, FlowGraph::kInfinite);
      result.before += weight;
    }
  }
  for (Value *v : values)
    if (recomputable(v))
      for (Value *op : cast<Instruction>(v)->operands())
        if (node.count(op))
          graph.addEdge(node[op] + 1, node[v], FlowGraph::kInfinite);
  result.after = graph.maxFlow(source, sink);
  SmallVector<bool> side = graph.reachable(source);
  for (Value *v : values)
    if (!side[node[v]])
      result.chains.insert(cast<Instruction>(v));
  return result;
}

/// Recomputes `plan.chains` at each of their uses from the crowded loops
/// on: once per block, before the block's first instruction that needs
/// the value (a phi's: at the end of the block the value comes from).
void rematerialize(Function &function, const Plan &plan) {
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> copies;
  std::function<Value *(Value *, Instruction *)> copyOf =
      [&](Value *v, Instruction *before) -> Value * {
    auto *i = dyn_cast<Instruction>(v);
    if (!i || !plan.chains.contains(i))
      return v;
    Value *&copy = copies[{before->getParent(), v}];
    if (copy)
      return copy;
    Instruction *clone = i->clone();
    for (Use &op : clone->operands())
      op.set(copyOf(op.get(), before));
    clone->insertBefore(before->getIterator());
    clone->setName(i->getName() + ".remat");
    // (copyOf above may have grown the map: look the slot up again.)
    copies[{before->getParent(), v}] = clone;
    return clone;
  };
  // Users in block order, so that a block's copy comes before its users.
  for (BasicBlock &block : function) {
    if (!plan.reach.contains(&block))
      continue;
    for (Instruction &user : block) {
      if (isa<PHINode>(user) || plan.chains.contains(&user))
        continue;
      for (Use &op : user.operands())
        if (auto *def = dyn_cast<Instruction>(op.get()))
          if (plan.chains.contains(def))
            op.set(copyOf(def, &user));
    }
  }
  for (Instruction *i : plan.chains)
    for (Use &use : llvm::make_early_inc_range(i->uses()))
      if (auto *phi = dyn_cast<PHINode>(use.getUser()))
        if (plan.reach.contains(phi->getIncomingBlock(use)))
          use.set(copyOf(i, phi->getIncomingBlock(use)->getTerminator()));
  // Originals left without users: users before the values they use.
  SmallVector<Instruction *> dead(plan.chains.begin(), plan.chains.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Instruction *&i : dead)
      if (i && i->use_empty()) {
        i->eraseFromParent();
        i = nullptr;
        erased = true;
      }
  }
}

/// The registers a thread of `function` may hold in `loop`: the value of a
/// setmaxnreg that dominates it (a warp-specialized kernel's consumers or
/// producer), otherwise what its launch bounds allow (65,536 a
/// multiprocessor over nvvm.maxntid threads times nvvm.minctasm blocks, in
/// steps of 8, at most 255).
unsigned budgetOf(Function &function, Loop &loop, DominatorTree &dominators) {
  for (BasicBlock *block = loop.getHeader(); block;) {
    for (Instruction &i : llvm::reverse(*block))
      if (auto *call = dyn_cast<IntrinsicInst>(&i))
        if (call->getIntrinsicID() ==
                Intrinsic::nvvm_setmaxnreg_inc_sync_aligned_u32 ||
            call->getIntrinsicID() ==
                Intrinsic::nvvm_setmaxnreg_dec_sync_aligned_u32)
          if (auto *n = dyn_cast<ConstantInt>(call->getArgOperand(0)))
            return n->getZExtValue();
    DomTreeNode *node = dominators.getNode(block)->getIDom();
    block = node ? node->getBlock() : nullptr;
  }
  unsigned threads = 1, blocks = 1;
  Attribute maxntid = function.getFnAttribute("nvvm.maxntid");
  if (maxntid.isStringAttribute()) {
    SmallVector<StringRef> dims;
    maxntid.getValueAsString().split(dims, ',');
    for (StringRef d : dims) {
      unsigned v = 1;
      if (!d.trim().getAsInteger(10, v) && v)
        threads *= v;
    }
  }
  Attribute minctasm = function.getFnAttribute("nvvm.minctasm");
  if (minctasm.isStringAttribute())
    if (minctasm.getValueAsString().getAsInteger(10, blocks) || !blocks)
      blocks = 1;
  if (threads <= 1)
    return 255;
  return std::min(255u, 65536 / (threads * blocks) / 8 * 8);
}

/// SSA liveness of a function's values in 32-bit registers, solved once;
/// `peak` then estimates a loop's register demand.
class Liveness {
public:
  Liveness(Function &function, const DataLayout &layout) : layout(layout) {
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock &block : llvm::reverse(function)) {
        DenseSet<Value *> live = liveOut(&block);
        for (Instruction &i : llvm::reverse(block)) {
          live.erase(&i);
          if (isa<PHINode>(i)) {
            live.insert(&i); // defined on entry
            continue;
          }
          for (Value *op : i.operands())
            if (counted(op))
              live.insert(op);
        }
        // (Sets only grow: a change is a change of size.)
        auto &in = liveIn[&block];
        if (live.size() != in.size()) {
          in = std::move(live);
          changed = true;
        }
      }
    }
  }

  /// The most registers live at once in `loop`'s blocks, on the IR as
  /// ordered (ptxas schedules it again: an estimate).
  unsigned peak(Loop &loop) {
    unsigned most = 0;
    for (BasicBlock *block : loop.blocks()) {
      DenseSet<Value *> live = liveOut(block);
      unsigned now = 0;
      for (Value *v : live)
        now += registersOf(v, layout);
      most = std::max(most, now);
      for (Instruction &i : llvm::reverse(*block)) {
        if (live.erase(&i))
          now -= registersOf(&i, layout);
        if (isa<PHINode>(i))
          continue;
        for (Value *op : i.operands())
          if (counted(op) && live.insert(op).second)
            now += registersOf(op, layout);
        most = std::max(most, now);
      }
    }
    return most;
  }

private:
  bool counted(Value *v) const {
    return (isa<Instruction>(v) || isa<Argument>(v)) &&
           registersOf(v, layout) > 0;
  }
  DenseSet<Value *> liveOut(BasicBlock *block) {
    DenseSet<Value *> out;
    for (BasicBlock *succ : successors(block)) {
      for (Value *v : liveIn[succ])
        if (!isa<PHINode>(v) || cast<PHINode>(v)->getParent() != succ)
          out.insert(v);
      for (PHINode &phi : succ->phis()) {
        Value *in = phi.getIncomingValueForBlock(block);
        if (in && counted(in))
          out.insert(in);
      }
    }
    return out;
  }

  const DataLayout &layout;
  DenseMap<BasicBlock *, DenseSet<Value *>> liveIn;
};

} // namespace

PreservedAnalyses
RematerializeAddressesPass::run(Function &function,
                                FunctionAnalysisManager &analyses) {
  auto &loops = analyses.getResult<LoopAnalysis>(function);
  const DataLayout &layout = function.getParent()->getDataLayout();
  if (loops.empty())
    return PreservedAnalyses::all();
  auto &dominators = analyses.getResult<DominatorTreeAnalysis>(function);
  Liveness liveness(function, layout);
  DenseSet<const BasicBlock *> crowded;
  for (Loop *loop : loops.getTopLevelLoops())
    if (liveness.peak(*loop) > budgetOf(function, *loop, dominators))
      crowded.insert(loop->block_begin(), loop->block_end());
  if (crowded.empty())
    return PreservedAnalyses::all();
  // For the back end: no loop strength reduction here (emitPTX).
  function.addFnAttr(kCrowdedLoopsAttr);
  Plan p = plan(function, loops, crowded, layout);
  if (p.chains.empty() || p.after >= p.before)
    return PreservedAnalyses::all(); // (an attribute changes no analysis)
  rematerialize(function, p);
  assert(!verifyFunction(function, &errs()) && "broken rematerialization");
  if (changed)
    ++*changed;
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}
