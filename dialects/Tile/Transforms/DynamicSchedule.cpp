//===- DynamicSchedule.cpp - Blocks of a persistent kernel claim tiles ----===//
//
// tile-persistent gives block b of P the tiles b, b + P, b + 2P, ... of the
// logical grid, in the order the hardware would have dispatched them. That
// order is only fair when the tiles cost alike: a causal attention kernel
// orders its tiles longest first within groups of heads (for L2), so the
// block that draws a group's long tiles every round runs half again as long
// as the average. A launched grid does not suffer it, because the hardware
// gives the next block to whichever multiprocessor is free. This pass gives
// a persistent kernel the same: after its first tile (its own index), a
// block claims the next one from a counter in global memory.
//
//   func @k(..., %gx, %gy, %gz, %counter: i64)
//     %ring = smem_alloc : !tile.smem<[4], i32>      the claims, in order
//     %full, %empty = mbarrier_alloc                 per slot
//     (the claimer)                       (every role, the claimer too)
//     scf.while (%n, %t = %bid, ...) : %t < %total  (the same loop)
//       ... tile %t ...                             ... tile %t ...
//       if %t < %total:                             if %t < %total:
//         wait %empty[n % 4]
//         tile_claim %counter + P -> %ring[n % 4]
//         arrive %full[n % 4]
//                                                     wait %full[n % 4]
//                                                     %t' = tile_read
//                                                     arrive %empty[n % 4]
//     tile_counter_done %counter
//
// A warp-specialized kernel runs the tile loop in every role (each producer
// and the consumers), and they must visit the same tiles: one thread of one
// role claims, every thread of every role reads each claim once, and a slot
// is claimed into again when all of them have read it (the empty barrier
// counts every thread of the roles that loop). Which role claims decides
// when: a producer whose copies need no tile ahead claims when it has
// issued this tile's copies, that is when its ring has room for the next
// tile's first ones, a few trips before the consumers finish this tile;
// the claim is as late as the next tile's prefetch allows. A role that
// does need a tile ahead, tile-pipeline's prefetch of the next tile's own
// copies (`iv + step` in its loop), carries a window of claims and waits
// for them; it never makes the claimer claim early.
//
// A kernel launched in clusters (tile-persistent's `cluster`) claims a
// cluster's tiles: the loops run from `tile.cluster_id` in steps of
// `tile.num_clusters`, block 0's claimer claims for the cluster and writes
// the claim into every block's ring (tile.tile_claim with the full
// barriers: st.async completing on each block's full barrier, whose
// claimer expects its bytes), and every reader releases the slot in every
// block (tile.mbarrier_arrive {cluster}; the empty barriers count a
// cluster's warps), so that block 0 writes no block's slot before that
// block has read it.
//
// The sequence ends with the first claim past the logical grid: a role
// reads no claim after it (and nobody claims one), so every role reads the
// same claims. The claiming thread then counts its block out of the launch
// (tile_counter_done); the last block out zeroes the counter for the next
// launch on the stream.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDYNAMICSCHEDULE
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Slots of the ring of claims: a claim waits for the readers of the one
/// this many before it.
constexpr int64_t kClaimSlots = 4;

/// A part of the block that runs the tile loop: the whole block, or one
/// role of a warp-specialized kernel.
struct Role {
  Block *block = nullptr;
  int32_t threads = 0;
  int32_t issuer = 0; // its first thread
  bool producer = false;
  scf::ForOp loop;
  /// Uses of the induction variable as `iv + c * step`, with their c.
  SmallVector<std::pair<arith::AddIOp, int64_t>> ahead;
  int64_t window = 0; // the largest c
};

struct DynamicSchedulePass
    : public mlir::tile::impl::TileDynamicScheduleBase<DynamicSchedulePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto first =
        func->getAttrOfType<IntegerAttr>(TileDialect::getPersistentAttrName());
    if (!first || func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &top = func.getBody().front();
    unsigned counterIndex = unsigned(first.getInt()) + 3;
    if (counterIndex >= top.getNumArguments() ||
        !top.getArgument(counterIndex).getType().isInteger(64))
      return;
    Value counter = top.getArgument(counterIndex);
    int32_t cluster = 1;
    if (auto c =
            func->getAttrOfType<IntegerAttr>(TileDialect::getClusterAttrName()))
      cluster = int32_t(c.getInt());

    SmallVector<Role> roles;
    if (!collectRoles(func, roles))
      return;
    for (Role &role : roles)
      if (!analyze(role))
        return; // statically scheduled, as tile-persistent made it
    // The claimer: a producer needing no tile ahead if there is one (the
    // latest claim that still lets it prefetch), else the role that needs
    // the fewest.
    Role *claimer = &roles.front();
    for (Role &role : roles)
      if (std::make_pair(role.window, !role.producer) <
          std::make_pair(claimer->window, !claimer->producer))
        claimer = &role;

    // The ring of claims and its barriers, at the top, before any role.
    MLIRContext *ctx = func.getContext();
    Location loc = func.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&top);
    auto layout = SharedLayoutAttr::get(ctx, 1, 1, 1, {0}, 0);
    auto ringType = SharedMemoryType::get(ctx, {kClaimSlots},
                                          IntegerType::get(ctx, 32), layout);
    Value ring = SmemAllocOp::create(b, loc, ringType);
    auto barType = MbarrierType::get(ctx, kClaimSlots);
    Value full = MbarrierAllocOp::create(b, loc, barType);
    MbarrierInitOp::create(b, loc, full, b.getI32IntegerAttr(claimer->threads));
    Value empty = MbarrierAllocOp::create(b, loc, barType);
    int32_t readers = 0;
    for (Role &role : roles)
      readers += role.threads;
    // In clusters, a warp's release counts once in each block.
    if (cluster > 1)
      readers = readers / 32 * cluster;
    MbarrierInitOp::create(b, loc, empty, b.getI32IntegerAttr(readers));
    if (auto ret = dyn_cast<func::ReturnOp>(top.getTerminator())) {
      b.setInsertionPoint(ret);
      MbarrierInvalOp::create(b, loc, full);
      MbarrierInvalOp::create(b, loc, empty);
    }

    Claims claims{counter, ring, full, empty, cluster > 1};
    for (Role &role : roles)
      rewrite(role, &role == claimer, claims);
  }

  /// The roles that run a tile loop; false when the kernel's shape is not
  /// one this pass knows.
  static bool collectRoles(func::FuncOp func, SmallVectorImpl<Role> &roles) {
    Block &top = func.getBody().front();
    auto addRole = [&](Block *block, int32_t threads, int32_t issuer,
                       bool producer) {
      Role role;
      role.block = block;
      role.threads = threads;
      role.issuer = issuer;
      role.producer = producer;
      for (auto loop : block->getOps<scf::ForOp>())
        if (loop->hasAttr(TileDialect::getTileLoopAttrName())) {
          if (role.loop)
            return false; // two tile loops: not tile-persistent's
          role.loop = loop;
        }
      if (role.loop)
        roles.push_back(role);
      return true;
    };
    auto specialized = top.getOps<WarpSpecializeOp>();
    if (!specialized.empty()) {
      WarpSpecializeOp ws = *specialized.begin();
      // (Every group of consumers reads every claim.)
      int32_t consumers = int32_t(ws.getAllConsumerThreads());
      for (auto [r, producer] : llvm::enumerate(ws.getProducers()))
        if (!addRole(&producer.front(), 32, consumers + 32 * int32_t(r), true))
          return false;
      if (!addRole(&ws.getConsumer().front(), consumers, 0, false))
        return false;
    } else {
      auto numWarps =
          func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
      if (!numWarps || !addRole(&top, int32_t(numWarps.getInt()) * 32, 0,
                                /*producer=*/false))
        return false;
    }
    return !roles.empty();
  }

  /// Finds how the role's loop uses its induction variable; false where it
  /// is not the persistent loop over bid, bid + P, ... whose tiles a
  /// claim stands for, or where a tile ahead is used outside the loop.
  static bool analyze(Role &role) {
    scf::ForOp loop = role.loop;
    auto lb = loop.getLowerBound().getDefiningOp<BlockIdOp>();
    auto step = loop.getStep().getDefiningOp<NumBlocksOp>();
    bool blocks = lb && lb.getAxis() == 0 && step && step.getAxis() == 0;
    bool clusters = loop.getLowerBound().getDefiningOp<ClusterIdOp>() &&
                    loop.getStep().getDefiningOp<NumClustersOp>();
    if (!(blocks || clusters) ||
        !loop.getInductionVar().getType().isInteger(32))
      return false;
    Value iv = loop.getInductionVar();
    // c of `iv + c * step`, or nullopt; c below the ring's slots (a window
    // reaching further than the ring holds claims is not one this pass
    // makes room for).
    auto aheadOf = [&](Value v) -> std::optional<int64_t> {
      if (v == loop.getStep())
        return 1;
      auto mul = v.getDefiningOp<arith::MulIOp>();
      if (!mul)
        return std::nullopt;
      APInt c;
      for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())})
        if (x == loop.getStep() && matchPattern(y, m_ConstantInt(&c)) &&
            c.isStrictlyPositive() && c.slt(kClaimSlots))
          return c.getSExtValue();
      return std::nullopt;
    };
    for (OpOperand &use : iv.getUses()) {
      auto add = dyn_cast<arith::AddIOp>(use.getOwner());
      if (!add)
        continue; // the tile itself
      Value other = add->getOperand(1 - use.getOperandNumber());
      if (auto c = aheadOf(other)) {
        role.ahead.push_back({add, *c});
        role.window = std::max(role.window, *c);
      }
    }
    // The step counts blocks nowhere else: a tile ahead computed outside
    // the loop (a deeper prefetch's prologue) would be no claim's.
    for (Operation *user : loop.getStep().getUsers()) {
      if (user == loop.getOperation())
        continue;
      if (!loop->isAncestor(user))
        return false;
      bool known = llvm::any_of(role.ahead, [&](auto &a) {
        return a.first == user ||
               (isa<arith::MulIOp>(user) &&
                llvm::is_contained(user->getUsers(), a.first.getOperation()));
      });
      if (!known)
        return false;
    }
    return true;
  }

  struct Claims {
    Value counter, ring, full, empty;
    bool clustered; // a cluster's claims, in every block's ring
  };

  /// The tile after `prev` for the `n`-th claim (i32) in the role's order:
  /// `prev` itself once it is past the grid, else the claim, which the
  /// claimer makes first.
  static Value fetch(OpBuilder &b, Location loc, const Role &role, bool claimer,
                     const Claims &claims, Value n, Value prev, Value total,
                     Value blocks) {
    Value more =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, prev, total);
    auto branch = scf::IfOp::create(b, loc, TypeRange{b.getI32Type()}, more,
                                    /*withElseRegion=*/true);
    OpBuilder t = branch.getThenBodyBuilder();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(t, loc, t.getI32IntegerAttr(v));
    };
    Value slot = arith::RemUIOp::create(t, loc, n, c(kClaimSlots));
    Value round = arith::DivUIOp::create(t, loc, n, c(kClaimSlots));
    Value parity = arith::AndIOp::create(t, loc, round, c(1));
    if (claimer) {
      // Claim f of a slot waits for the readers of claim f - 1 (parity
      // (f + 1) mod 2; a fresh barrier passes parity 1 at once).
      Value free = arith::AndIOp::create(
          t, loc, arith::AddIOp::create(t, loc, round, c(1)), c(1));
      MbarrierWaitOp::create(t, loc, claims.empty, slot, free, ValueRange(),
                             Value());
      TileClaimOp::create(t, loc, claims.counter, blocks, claims.ring, slot,
                          claims.clustered ? claims.full : Value(),
                          t.getI32IntegerAttr(role.issuer));
      MbarrierArriveOp::create(t, loc, claims.full, slot, claims.ring, Value());
    }
    MbarrierWaitOp::create(t, loc, claims.full, slot, parity, ValueRange(),
                           Value());
    Value tile = TileReadOp::create(t, loc, claims.ring, slot);
    MbarrierArriveOp::create(t, loc, claims.empty, slot, claims.ring, Value(),
                             claims.clustered);
    scf::YieldOp::create(t, loc, tile);
    OpBuilder e = branch.getElseBodyBuilder();
    scf::YieldOp::create(e, loc, prev);
    return branch.getResult(0);
  }

  /// The role's tile loop as a loop over its block's claims.
  static void rewrite(Role &role, bool claimer, const Claims &claims) {
    scf::ForOp loop = role.loop;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value total = loop.getUpperBound(), blocks = loop.getStep();
    auto i32 = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    // The first tile is the block's own; the window's others, claims.
    SmallVector<Value> window = {loop.getLowerBound()};
    for (int64_t j = 0; j < role.window; ++j)
      window.push_back(fetch(b, loc, role, claimer, claims, i32(b, j),
                             window.back(), total, blocks));

    SmallVector<Value> inits = {i32(b, role.window)};
    llvm::append_range(inits, window);
    llvm::append_range(inits, loop.getInitArgs());
    SmallVector<Type> types;
    for (Value v : inits)
      types.push_back(v.getType());
    SmallVector<Location> locs(types.size(), loc);
    auto whileOp = scf::WhileOp::create(b, loc, types, inits);
    Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
    Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       before->getArgument(1), total);
    scf::ConditionOp::create(b, loc, more, before->getArguments());
    Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);

    // The body, on the window's first tile; a tile c ahead is the
    // window's c-th.
    unsigned w = unsigned(role.window) + 1;
    Value n = after->getArgument(0);
    ArrayRef<BlockArgument> tiles = after->getArguments().slice(1, w);
    for (auto [add, c] : role.ahead) {
      add.getResult().replaceAllUsesWith(tiles[c]);
      add.erase();
    }
    loop.getInductionVar().replaceAllUsesWith(tiles[0]);
    for (auto [arg, repl] : llvm::zip(loop.getRegionIterArgs(),
                                      after->getArguments().drop_front(1 + w)))
      arg.replaceAllUsesWith(repl);
    Operation *yield = loop.getBody()->getTerminator();
    after->getOperations().splice(after->end(), loop.getBody()->getOperations(),
                                  loop.getBody()->begin(),
                                  Block::iterator(yield));
    b.setInsertionPointToEnd(after);
    Value next =
        fetch(b, loc, role, claimer, claims, n, tiles.back(), total, blocks);
    SmallVector<Value> yielded = {arith::AddIOp::create(b, loc, n, i32(b, 1))};
    llvm::append_range(yielded, tiles.drop_front());
    yielded.push_back(next);
    llvm::append_range(yielded, yield->getOperands());
    scf::YieldOp::create(b, loc, yielded);
    for (auto [result, repl] :
         llvm::zip(loop.getResults(), whileOp.getResults().drop_front(1 + w)))
      result.replaceAllUsesWith(repl);
    loop.erase();

    if (claimer) {
      b.setInsertionPointAfter(whileOp);
      TileCounterDoneOp::create(b, loc, claims.counter,
                                b.getI32IntegerAttr(role.issuer));
    }
  }
};

} // namespace
