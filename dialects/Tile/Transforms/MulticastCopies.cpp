//===- MulticastCopies.cpp - Copies a cluster's blocks share --------------===//
//
// In a kernel launched in clusters (tile-persistent's `cluster`, or a
// kernel's own: `--cluster`, `@hints(cluster=C)`), the blocks of a cluster
// run neighbouring tiles along x together. Attention's
// K and V tiles depend on the head alone, not on the query tile: every
// block of the cluster copies the same K and V. This pass finds such rings
// and has the cluster's blocks fill them together, each block copying a
// share of every tile for all of them (TMA multicast), so that the tile
// crosses L2 once per cluster rather than once per block:
//
//   (in each block)                        (in each block)
//   wait %empty[s]                         wait %empty[s]      all blocks'
//   tma_load %k[...], %ring[s], %full[s]   tma_load ... {multicast}
//   ...                                    ...
//   wait %full[s]; wgmma ...               wait %full[s]; wgmma ...
//   arrive %empty[s], %ring[s]             arrive %empty[s] {cluster}
//   mbarrier_init %empty {count = 256}     mbarrier_init %empty {count = 16}
//
// A block refills a slot in every block of the cluster, so its producer
// waits until every block's consumers have released it: each releasing
// warp arrives on the slot's empty barrier in every block (the barriers
// count a cluster's warps), and each block's full barrier completes when
// all blocks' shares have landed in it.
//
// A ring is shared when every block is sure to copy the same tiles in the
// same order: each of its copies has coordinates, slot and predicate that
// are the same in every block of the cluster, and runs under control flow
// that is (the loops' bounds, the branches' conditions); each release of
// it likewise, so that every block's consumers release every slot alike;
// and nothing but its copies writes it. Values that may differ between the
// blocks start at `tile.cluster_rank` and `tile.bid` (and at any read of
// memory but the claims of tile-dynamic-schedule, which are the cluster's,
// and loads of a tensor the kernel never writes: at coordinates alike in
// every block they read the same elements, a mixture of experts' schedule
// say) and spread through the ops and the loops' and branches' results, but
// for one quotient: a persistent kernel's logical x in clusters of C is the
// cluster's tile * C + the block's rank, and x // d rounded down, d a
// multiple of C, is the cluster's (a GEMM whose pairs of neighbouring
// tiles share an operand's tile, linear.tile's CLUSTER_M). The query
// tile's copies (logical x) differ; the key and value tiles' (the head,
// and a key loop whose bounds follow from the head) do not.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/Locations.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/Views.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"
#include "Tile/Transforms/ValueSources.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMULTICASTCOPIES
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The values of a kernel that may differ between the blocks of a
/// cluster (ValueSources, one source).
class ClusterVarying {
public:
  ClusterVarying(func::FuncOp func, int64_t size)
      : size(size), sources(func, [&](Operation *op, const ValueSources &s) {
          return source(op, s);
        }) {
    // The loads read alike by the analysis: at coordinates alike in every
    // block.
    for (auto [load, param] : unwrittenParams)
      if (param && llvm::none_of(load->getOperands(),
                                 [&](Value v) { return varies(v); }))
        unwritten.insert(*param);
  }

  bool varies(Value v) const { return sources.of(v) != 0; }

  /// The tensor parameters of the alike loads the analysis took as alike
  /// (a kernel sharing a ring its coordinates come from records them:
  /// recordReadAhead, the launch checks that no written tensor overlaps).
  const SetVector<unsigned> &unwrittenReads() const { return unwritten; }

  /// Whether every block of the cluster runs `op` alike: no enclosing loop
  /// or branch decides differently in different blocks (nor a region this
  /// analysis does not know but the warp-specialized roles').
  bool runsAlike(Operation *op) const {
    return sources.deciding(
               op, [](Operation *p) { return isa<WarpSpecializeOp>(p); }) == 0u;
  }

private:
  /// Where op's results vary (1) or not (0), or nullopt where they follow
  /// from its operands.
  std::optional<unsigned> source(Operation *op, const ValueSources &s) {
    // Sources: the block's place in the cluster or along the grid's x, and
    // memory (but the cluster's claims).
    // (Clusters run along x: a block's y and z are its cluster's.)
    if (auto bid = dyn_cast<BlockIdOp>(op))
      return bid.getAxis() == 0 ? 1u : 0u;
    if (isa<ClusterRankOp>(op))
      return 1u;
    // A load of a tensor the kernel never writes (every write's tensor a
    // known parameter): at alike coordinates, the same elements in every
    // block, which stay as they are while the kernel runs.
    if (auto load = dyn_cast<LoadOp>(op)) {
      auto [it, fresh] = unwrittenParams.try_emplace(op);
      if (fresh)
        it->second = getUnwrittenParam(load);
      if (it->second)
        return std::nullopt;
    }
    if (!isa<TileReadOp>(op) && !isMemoryEffectFree(op) &&
        !isa<SmemSlotOp, SmemAllocOp, MbarrierAllocOp>(op))
      return 1u;
    if (op->getNumRegions() != 0)
      return 1u; // not one this analysis knows
    if (isClusterQuotient(op, s))
      return 0u;
    return std::nullopt;
  }

  /// Whether `v` is a multiple of the cluster's size in every block, the
  /// same in all: `u * c` or `u << s` of an alike `u` with c (2^s) a
  /// multiple of the size.
  bool isAlikeMultiple(Value v, const ValueSources &s) const {
    if (s.of(v))
      return false;
    auto multiple = [&](Value c, bool shift) {
      APInt value;
      if (!matchPattern(c, m_ConstantInt(&value)) || value.isNegative())
        return false;
      if (shift)
        return value.getZExtValue() < 63 &&
               (int64_t(1) << value.getZExtValue()) % size == 0;
      return value.getSExtValue() % size == 0;
    };
    if (auto mul = v.getDefiningOp<arith::MulIOp>())
      return multiple(mul.getLhs(), false) || multiple(mul.getRhs(), false);
    if (auto shl = v.getDefiningOp<arith::ShLIOp>())
      return multiple(shl.getRhs(), true);
    return multiple(v, false);
  }

  /// A quotient every block of the cluster computes alike although its
  /// dividend varies: `(m + rank) / d`, with m an alike multiple of the
  /// cluster's size C and d a constant multiple of C, rounded down
  /// (divui, floordivsi): m + rank, rank < C, stays between the same two
  /// multiples of d as m. A persistent kernel's logical x in clusters is
  /// `cluster's tile * C + rank`, so that `bid(0) // C` (a kernel's tile
  /// pair, say, whose blocks share an operand's tile) is the cluster's; so
  /// is a clustered kernel's own `bid(0) // C` (its clusters are C
  /// consecutive blocks along x).
  bool isClusterQuotient(Operation *op, const ValueSources &s) const {
    if (!isa<arith::DivUIOp, arith::FloorDivSIOp>(op))
      return false;
    APInt divisor;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) ||
        divisor.isNegative() || divisor.isZero() ||
        divisor.getSExtValue() % size)
      return false;
    // A kernel launched in clusters as it is (not persistent): its blocks'
    // x, clusters of C along x, is the cluster's index * C + the rank.
    if (auto bid = op->getOperand(0).getDefiningOp<BlockIdOp>())
      return bid.getAxis() == 0;
    auto add = op->getOperand(0).getDefiningOp<arith::AddIOp>();
    if (!add)
      return false;
    for (auto [rank, base] : {std::pair(add.getLhs(), add.getRhs()),
                              std::pair(add.getRhs(), add.getLhs())})
      if (rank.getDefiningOp<ClusterRankOp>() && isAlikeMultiple(base, s))
        return true;
    return false;
  }

  int64_t size;
  /// Each load's parameter where the kernel never writes it (cached).
  DenseMap<Operation *, std::optional<unsigned>> unwrittenParams;
  ValueSources sources;
  SetVector<unsigned> unwritten;
};

/// A ring the copies of one or more `tile.tma_load`s fill.
struct Ring {
  SmallVector<TmaLoadOp> copies;
  SmallVector<MbarrierArriveOp> releases;
  bool shareable = true;
  /// Why it is not (the first reason found), for the warning.
  const char *why = nullptr;

  /// Keeps the ring shareable only if `ok`, else records `reason`.
  void need(bool ok, const char *reason) {
    if (!ok && shareable)
      why = reason;
    shareable &= ok;
  }
};

/// Why a ring whose copies' coordinates differ between the blocks is not
/// shared (compared by address, for the note on what would share it).
constexpr const char *kCoordinatesDiffer =
    "the tile it loads may differ between the cluster's blocks (its "
    "coordinates follow from the block's tile)";

struct MulticastCopiesPass
    : public mlir::tile::impl::TileMulticastCopiesBase<MulticastCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto cluster =
        func->getAttrOfType<IntegerAttr>(TileDialect::getClusterAttrName());
    if (!cluster || func.isExternal())
      return;
    int64_t size = cluster.getInt();
    ClusterVarying analysis(func, size);
    auto alike = [&](Operation *op, ValueRange values) {
      return analysis.runsAlike(op) &&
             llvm::none_of(values, [&](Value v) { return analysis.varies(v); });
    };

    // Only a ring that lives as long as the kernel is shared: its buffer
    // and barriers are made in the function's first block, between the
    // cluster barriers tile-insert-barriers puts after the barriers'
    // initialization and before the return. A ring made inside a loop (a
    // persistent kernel's tile loop, one of a split loop's rings) is
    // initialized and invalidated by each block on its own while another
    // block's copies could still be landing in it.
    Block *top = &func.getBody().front();
    auto livesInTop = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->getBlock() == top;
    };

    llvm::MapVector<Operation *, Ring> rings;
    bool shared = false;
    func.walk([&](TmaLoadOp copy) {
      auto alloc =
          dyn_cast_or_null<SmemAllocOp>(getAllocation(copy.getBuffer()));
      // (A gathered copy's boxes are each block's own.)
      if (!alloc || copy.getMulticast() || copy.getBoxes())
        return;
      Ring &ring = rings[alloc];
      ring.copies.push_back(copy);
      ring.need(alloc->getBlock() == top && livesInTop(copy.getBarriers()),
                "its buffer is made inside a loop (each block makes its "
                "own)");
      ring.need(analysis.runsAlike(copy),
                "it runs under control flow that may differ between the "
                "cluster's blocks (a trip count or a branch from the "
                "block's tile)");
      SmallVector<Value> values(copy.getCoords());
      values.push_back(copy.getSlot());
      if (copy.getPred())
        values.push_back(copy.getPred());
      ring.need(
          llvm::none_of(values, [&](Value v) { return analysis.varies(v); }),
          kCoordinatesDiffer);
    });

    for (auto &[alloc, ring] : rings) {
      // Every other use of the ring reads it: multiplies, their waits and
      // the barriers' buffer operands. Any other write keeps it the block's.
      RingAccesses uses = collectRingAccesses(cast<SmemAllocOp>(alloc));
      ring.releases = uses.releases;
      const char *written = "its buffer is written or used otherwise than "
                            "by its copies and multiplies";
      for (Operation *fill : uses.fills)
        ring.need(llvm::is_contained(ring.copies, fill), written);
      for (Operation *wait : uses.waits)
        ring.need(isa<MbarrierWaitOp>(wait), written);
      for (Operation *other : uses.others)
        ring.need(isa<WarpgroupMmaOp, WgmmaWaitOp, LocalLoadOp>(other),
                  written);
      // The releases: alike in every block, on barriers of this ring only.
      SetVector<Value> empties;
      for (MbarrierArriveOp release : ring.releases) {
        SmallVector<Value> values = {release.getSlot()};
        if (release.getPred())
          values.push_back(release.getPred());
        ring.need(!release.getCluster() && alike(release, values) &&
                      livesInTop(release.getBarriers()),
                  "its slots are released differently in the cluster's "
                  "blocks");
        empties.insert(release.getBarriers());
      }
      ring.need(!ring.releases.empty(),
                "its slots are not released on barriers (no producer warp "
                "to share the refills)");
      if (!ring.shareable)
        continue;
      SmallVector<MbarrierInitOp> inits;
      for (Value empty : empties)
        for (Operation *user : empty.getUsers()) {
          if (auto init = dyn_cast<MbarrierInitOp>(user))
            inits.push_back(init);
          else if (auto arrive = dyn_cast<MbarrierArriveOp>(user))
            ring.need(llvm::is_contained(ring.releases, arrive),
                      "its empty barriers are signalled by other ops too");
        }
      ring.need(
          inits.size() == empties.size() &&
              llvm::none_of(inits,
                            [](MbarrierInitOp i) { return i.getCount() % 32; }),
          "its empty barriers are not counted in whole warps");
      if (!ring.shareable)
        continue;

      shared = true;
      for (TmaLoadOp copy : ring.copies)
        copy.setMulticast(true);
      for (MbarrierArriveOp release : ring.releases)
        release.setCluster(true);
      for (MbarrierInitOp init : inits)
        init.setCount(int32_t(init.getCount() / 32 * size));
    }
    if (shared)
      for (unsigned param : analysis.unwrittenReads())
        recordReadAhead(func, param);
    if (!warn || shared)
      return;
    // A kernel whose blocks meet at cluster_barrier() or exchange tiles
    // (cluster_gather) has its own use for the cluster
    // (tile-insert-barriers' cluster barriers come later).
    if (func.walk([](Operation *op) {
              auto barrier = dyn_cast<BarrierOp>(op);
              return (barrier && barrier.getCluster()) ||
                             isa<ClusterGatherOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted())
      return;
    // Launched in clusters for nothing: say why, at the first ring's load.
    if (rings.empty()) {
      emitWarning(getUserFacingLoc(func))
          << "cluster=" << size
          << " does not apply to this kernel: it has no ring of TMA copies "
             "for the cluster's blocks to share";
      return;
    }
    // The first ring's load, and each other ring's in a note.
    auto why = [](const Ring &ring) {
      return ring.why ? ring.why : "it cannot be shared";
    };
    auto at = [](const Ring &ring) {
      return getUserFacingLoc(ring.copies.front());
    };
    const Ring &first = rings.front().second;
    InFlightDiagnostic diag =
        emitWarning(at(first))
        << "cluster=" << size
        << " does not apply to this kernel: the blocks of a cluster share "
           "none of its loads; not this one, as "
        << why(first);
    for (auto &entry : llvm::drop_begin(rings))
      diag.attachNote(at(entry.second))
          << "nor this one, as " << why(entry.second);
    // What would share them: blocks that take their tiles by units.
    if (llvm::any_of(rings, [](const auto &entry) {
          return entry.second.why == kCoordinatesDiffer;
        }))
      diag.attachNote(getUserFacingLoc(func))
          << "a cluster's blocks share a load whose coordinates follow from "
             "bid(0) // "
          << size
          << " (or a multiple), not from bid(0) itself: blocks that take "
             "their tiles in units of "
          << size
          << " neighbouring tiles along the grid's x, with an operand's "
             "coordinates from the unit (as kernels/linear.tile's CLUSTER_M)";
  }
};

} // namespace
