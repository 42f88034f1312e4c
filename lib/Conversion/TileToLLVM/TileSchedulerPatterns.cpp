//===- TileSchedulerPatterns.cpp - Claimed tiles of a persistent kernel ---===//
//
// The run-time side of tile-dynamic-schedule. The tile counter is two
// 32-bit words in global memory, zero when a launch starts: the claims
// made so far, then the blocks that have made their last one.
//
//   tile.tile_claim          (its issuer) atom.add claims, 1; the block's
//                            next tile, offset + the old count, into the
//                            ring slot (st.shared; the slot's full mbarrier
//                            publishes it)
//                            In clusters (with `full`): every block's
//                            issuer expects 4 bytes on its full barrier;
//                            block 0's claims and writes the tile into
//                            every block's slot (mapa + st.async, which
//                            completes on that block's full barrier)
//   tile.tile_read           ld.shared of the slot
//   tile.tile_counter_done   (its issuer) atom.acq_rel.gpu.add done, 1; the
//                            block that makes it %nctaid.x zeroes both words
//
// The acquire-release count orders every block's claims before the reset:
// a block counts itself out after its last claim, in the same thread.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/SharedMemory.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;

namespace {

/// The shared address of slot `slot` (i32) of a ring of i32.
Value slotAddress(OpBuilder &b, Location loc, Value ring, Value slot) {
  return sharedAddress32(b, loc, ring, slot, 4);
}

struct TileClaimLowering : OpConversionPattern<tile::TileClaimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TileClaimOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = slotAddress(rewriter, loc, adaptor.getRing().front(),
                             adaptor.getSlot().front());
    if (op.getFull()) {
      int64_t size = clusterSize(op);
      Value full =
          sharedAddress32(rewriter, loc, adaptor.getFull().front(),
                          adaptor.getSlot().front(), tile::kMbarrierBytes);
      std::string text =
          "{\n .reg .pred p, q;\n .reg .b32 v, rank, dst, bar;\n"
          " setp.ne.b32 p, $0, 0;\n"
          " @p mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$4], 4;\n"
          " mov.u32 rank, %cluster_ctarank;\n"
          " setp.eq.and.u32 q, rank, 0, p;\n"
          " @q atom.relaxed.gpu.add.u32 v, [$1], 1;\n"
          " @q add.u32 v, v, $2;\n";
      for (int64_t r = 0; r < size; ++r)
        text += " @q mapa.shared::cluster.u32 dst, $3, " + std::to_string(r) +
                ";\n @q mapa.shared::cluster.u32 bar, $4, " +
                std::to_string(r) +
                ";\n @q st.async.shared::cluster.mbarrier::complete_tx::bytes"
                ".u32 [dst], v, [bar];\n";
      text += "}";
      inlinePtx(rewriter, loc, TypeRange(),
                ValueRange{firstThread(rewriter, loc, nullptr, op.getIssuer()),
                           adaptor.getCounter().front(),
                           adaptor.getOffset().front(), slot, full},
                text, "r,l,r,r,r,~{memory}");
      rewriter.eraseOp(op);
      return success();
    }
    inlinePtx(rewriter, loc, TypeRange(),
              ValueRange{firstThread(rewriter, loc, nullptr, op.getIssuer()),
                         adaptor.getCounter().front(),
                         adaptor.getOffset().front(), slot},
              "{\n .reg .pred p;\n .reg .b32 v;\n setp.ne.b32 p, $0, 0;\n"
              " @p atom.relaxed.gpu.add.u32 v, [$1], 1;\n"
              " @p add.u32 v, v, $2;\n"
              " @p st.shared.u32 [$3], v;\n}",
              "r,l,r,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct TileReadLowering : OpConversionPattern<tile::TileReadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TileReadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = slotAddress(rewriter, loc, adaptor.getRing().front(),
                             adaptor.getSlot().front());
    Operation *load = inlinePtx(rewriter, loc, TypeRange{rewriter.getI32Type()},
                                ValueRange{slot}, "ld.shared.u32 $0, [$1];",
                                "=r,r,~{memory}");
    rewriter.replaceOp(op, load->getResults());
    return success();
  }
};

struct TileCounterDoneLowering : OpConversionPattern<tile::TileCounterDoneOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TileCounterDoneOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    inlinePtx(rewriter, loc, TypeRange(),
              ValueRange{firstThread(rewriter, loc, nullptr, op.getIssuer()),
                         adaptor.getCounter().front()},
              "{\n .reg .pred p, q;\n .reg .b32 v, n;\n"
              " setp.ne.b32 p, $0, 0;\n"
              " mov.u32 v, 0;\n"
              " @p atom.acq_rel.gpu.add.u32 v, [$1+4], 1;\n"
              " mov.u32 n, %nctaid.x;\n sub.u32 n, n, 1;\n"
              " setp.eq.and.u32 q, v, n, p;\n"
              " @q st.relaxed.gpu.u32 [$1], 0;\n"
              " @q st.relaxed.gpu.u32 [$1+4], 0;\n}",
              "r,l,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// Programmatic dependent launch (tile-dependent-launch): each thread's
/// `griddepcontrol.wait` / `griddepcontrol.launch_dependents`.
template <typename Op, NVVM::GridDepActionKind Kind>
struct GridDependencyLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op,
                  typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GriddepcontrolOp>(op, Kind);
    return success();
  }
};

} // namespace

void tilec::populateTileSchedulerPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns
      .add<TileClaimLowering, TileReadLowering, TileCounterDoneLowering,
           GridDependencyLowering<tile::GridDependencyWaitOp,
                                  NVVM::GridDepActionKind::wait>,
           GridDependencyLowering<tile::LaunchDependentsOp,
                                  NVVM::GridDepActionKind::launch_dependents>>(
          converter, patterns.getContext());
}
