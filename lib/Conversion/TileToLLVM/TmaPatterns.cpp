//===- TmaPatterns.cpp - TMA copies and mbarriers (sm_90) -----------------===//
//
// A ring of mbarriers is `count` 8-byte words of shared memory. Thread 0
// initializes and invalidates them; every thread waits on them (and, in a
// warp-specialized kernel's consumers, arrives on the empty ones); one
// lane of warp 0, or of the producer warp that owns the ring (its
// `issuer`'s), elected by `elect.sync` (electedThread: ptxas then issues
// each copy once, not in a loop over the lanes that might hold it), issues
// the TMA copies of a `tile.tma_load`:
//
//   mbarrier.arrive.expect_tx   the bytes of all its boxes, on its barrier
//   cp.async.bulk.tensor        one per box, completing on the barrier
//
// A `tile.tma_store` is warp 0's elected lane's (or its `issuer`'s, a
// producer warp's): one cp.async.bulk.tensor
// per box from the buffer to the tensor, one bulk group for them all, and
// `tile.tma_store_wait` its wait (the same lane's) until the group has read
// the buffer.
//
// The copy engine writes each box at its place in the buffer with the
// swizzle the tensor map names, which is the buffer's layout (the
// verifier of tile.tma_load and tile-convert-copies-to-tma see to it). A
// tensor map is a by-value kernel parameter, read through its generic
// address (`nvvm.grid_constant` keeps it in parameter space).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;

namespace {

/// i32 `pred` (i1) or 1.
Value predicate32(OpBuilder &b, Location loc, Value pred) {
  if (!pred)
    return constI32(b, loc, 1);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
}

/// The shared address of barrier `slot` (i32) of the ring at `bars`.
Value barrierAddress(OpBuilder &b, Location loc, Value bars, Value slot) {
  return sharedAddress32(b, loc, bars, slot, tile::kMbarrierBytes);
}

/// Thread 0 runs `instr` ("mbarrier.init.shared::cta.b64" ...) on every
/// barrier of the ring, with `suffix` after the address; `after` follows,
/// in thread 0 too.
void onEveryBarrier(OpBuilder &b, Location loc, Value bars, unsigned count,
                    StringRef instr, StringRef suffix, StringRef after) {
  std::string text = "{\n .reg .pred p;\n setp.ne.b32 p, $0, 0;\n";
  for (unsigned i = 0; i < count; ++i)
    text += " @p " + instr.str() + " [$1+" +
            std::to_string(i * tile::kMbarrierBytes) + "]" + suffix.str() +
            ";\n";
  if (!after.empty())
    text += " @p " + after.str() + ";\n";
  text += "}";
  inlinePtx(b, loc, TypeRange(),
            ValueRange{firstThread(b, loc), sharedAddress32(b, loc, bars)},
            text, "r,r,~{memory}");
}

/// The initialization is fenced for the async proxy, which completes the
/// copies' transactions on the barriers.
struct MbarrierInitLowering : OpConversionPattern<tile::MbarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MbarrierInitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    onEveryBarrier(rewriter, op.getLoc(), adaptor.getBarriers().front(),
                   op.getBarriers().getType().getCount(),
                   "mbarrier.init.shared::cta.b64",
                   ", " + std::to_string(op.getCount()),
                   "fence.mbarrier_init.release.cluster");
    rewriter.eraseOp(op);
    return success();
  }
};

struct MbarrierInvalLowering : OpConversionPattern<tile::MbarrierInvalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MbarrierInvalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    onEveryBarrier(rewriter, op.getLoc(), adaptor.getBarriers().front(),
                   op.getBarriers().getType().getCount(),
                   "mbarrier.inval.shared::cta.b64", "", "");
    rewriter.eraseOp(op);
    return success();
  }
};

/// A loop of `mbarrier.try_wait.parity` (each try suspends the thread for a
/// while when the phase is not complete yet), in PTX: labels in braces are
/// local to them, so the asm may be repeated.
struct MbarrierWaitLowering : OpConversionPattern<tile::MbarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MbarrierWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = barrierAddress(rewriter, loc, adaptor.getBarriers().front(),
                                adaptor.getSlot().front());
    Value pred = op.getPred() ? adaptor.getPred().front() : Value();
    inlinePtx(rewriter, loc, TypeRange(),
              ValueRange{addr, adaptor.getPhase().front(),
                         predicate32(rewriter, loc, pred)},
              // p starts true where the thread does not wait.
              "{\n .reg .pred p;\n setp.eq.b32 p, $2, 0;\n wait:\n"
              " @!p mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
              " @!p bra wait;\n}",
              "r,r,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread (where `pred`) arrives once on the barrier. With
/// `cluster`, each warp's lane r arrives on block r's barrier once the
/// warp's threads are all there:
///   bar.warp.sync; mapa (the barrier in block `%laneid`);
///   mbarrier.arrive.shared::cluster   (lanes < size; the default release
///   at CTA scope, as the reads it releases are the block's own)
struct MbarrierArriveLowering : OpConversionPattern<tile::MbarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MbarrierArriveOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = barrierAddress(rewriter, loc, adaptor.getBarriers().front(),
                                adaptor.getSlot().front());
    Value pred = op.getPred() ? adaptor.getPred().front() : Value();
    if (op.getCluster()) {
      inlinePtx(rewriter, loc, TypeRange(),
                ValueRange{addr, predicate32(rewriter, loc, pred)},
                "{\n .reg .pred p;\n .reg .b32 lane, remote;\n"
                " mov.u32 lane, %laneid;\n"
                " setp.lt.u32 p, lane, " +
                    std::to_string(clusterSize(op)) +
                    ";\n"
                    " setp.ne.and.b32 p, $1, 0, p;\n"
                    " bar.warp.sync -1;\n"
                    " mapa.shared::cluster.u32 remote, $0, lane;\n"
                    " @p mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
                "r,r,~{memory}");
      rewriter.eraseOp(op);
      return success();
    }
    inlinePtx(rewriter, loc, TypeRange(),
              ValueRange{addr, predicate32(rewriter, loc, pred)},
              "{\n .reg .pred p;\n setp.ne.b32 p, $1, 0;\n"
              " @p mbarrier.arrive.shared::cta.b64 _, [$0];\n}",
              "r,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// A TMA copy's boxes in PTX: per box the instructions that compute its
/// innermost coordinate (into one register local to the asm block, declared
/// by `declarations` at its top), its tensor operand
/// `[$map, {inner, $outer...}]` and its shared address `[$smem+offset]`.
struct BoxText {
  std::string setup, tensor, address;
};
struct BoxTexts {
  std::string declarations;
  SmallVector<BoxText> boxes;
};

/// The operands a TMA copy of `bufType`'s boxes through `map` appends to
/// `operands` (and their constraints): the buffer's shared address `smem`
/// and the coordinates, innermost first as PTX lists them; the boxes' own
/// addresses and innermost coordinates are the first's plus constants,
/// added in the asm block, so that a copy of many boxes takes three
/// registers rather than two a box (a producer warp holds 24: 16 boxes of
/// a 64 x 128 f32 tile in 32-byte rows spilled 104 bytes there,
/// bench/results/2026-12-08-h100-dq-staging-and-early-loads.md).
/// With `slabAt`, the boxes fill the slab of the buffer that starts there
/// along its slowest dimension (a gathered copy's).
BoxTexts appendBoxOperands(OpBuilder &b, Location loc, tile::TensorMapType map,
                           tile::SharedMemoryType bufType, Value smem,
                           ArrayRef<Value> coords, unsigned mapOperand,
                           SmallVectorImpl<Value> &operands,
                           std::string &constraints, int64_t slabAt = 0) {
  unsigned rank = map.getBox().size();
  unsigned fastest = bufType.getLayout().getOrder()[0];
  int64_t inner = map.getBox().back();
  // The boxes that hold the tile: none for a padded buffer's padding.
  int64_t boxes = tile::getTmaBoxCount(bufType, inner);
  unsigned eltBytes = tile::getSharedElementBytes(bufType.getElementType());
  auto ref = [](unsigned operand) { return "$" + std::to_string(operand); };
  unsigned smemOperand = operands.size();
  operands.push_back(smem);
  for (unsigned d = rank; d-- > 0;)
    operands.push_back(coords[d]);
  for (unsigned i = 0; i <= rank; ++i)
    constraints += ",r";
  unsigned innerOperand = smemOperand + 1;
  std::string outer;
  for (unsigned d = 1; d < rank; ++d)
    outer += ", " + ref(innerOperand + d);
  BoxTexts texts;
  if (boxes > 1)
    texts.declarations = " .reg .b32 x" + std::to_string(innerOperand) + ";\n";
  for (int64_t k = 0; k < boxes; ++k) {
    SmallVector<int64_t> at(bufType.getShape().size(), 0);
    at[bufType.getLayout().getOrder().back()] = slabAt;
    at[fastest] = k * inner;
    int64_t offset = unswizzledSharedOffset(bufType, at) * eltBytes;
    // Box k's coordinate, made right before its copy (which reads it as
    // it issues) in the one register all boxes share.
    std::string coordinate = ref(innerOperand), setup;
    if (k) {
      coordinate = "x" + std::to_string(innerOperand);
      setup = " add.s32 " + coordinate + ", " + ref(innerOperand) + ", " +
              std::to_string(k * inner) + ";\n";
    }
    texts.boxes.push_back(
        {setup, "[" + ref(mapOperand) + ", {" + coordinate + outer + "}]",
         "[" + ref(smemOperand) +
             (offset ? "+" + std::to_string(offset) : std::string()) + "]"});
  }
  return texts;
}

struct TmaLoadLowering : OpConversionPattern<tile::TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TmaLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::TensorMapType map = op.getMap().getType();
    tile::SharedMemoryType bufType = op.getBuffer().getType();
    unsigned rank = map.getBox().size();
    int64_t boxes = op.getNumBoxes();
    unsigned eltBytes = tile::getSharedElementBytes(bufType.getElementType());
    int64_t bytes = map.getBoxElements() * eltBytes * boxes;

    Value pred = op.getPred() ? adaptor.getPred().front() : Value();
    Value bar = barrierAddress(rewriter, loc, adaptor.getBarriers().front(),
                               adaptor.getSlot().front());
    Value dst = sharedAddress32(rewriter, loc, adaptor.getBuffer().front());
    SmallVector<Value> coords;
    for (ValueRange c : adaptor.getCoords())
      coords.push_back(c.front());

    // Operands: $0 predicate, $1 barrier, $2 tensor map, then the boxes'.
    SmallVector<Value> operands = {
        electedThread(rewriter, op, pred, op.getIssuer().value_or(0)), bar,
        adaptor.getMap().front()};
    std::string constraints = "r,r,l";
    BoxTexts boxTexts;
    auto append = [&](const BoxTexts &t) {
      boxTexts.declarations += t.declarations;
      llvm::append_range(boxTexts.boxes, t.boxes);
    };
    if (!op.getBoxes()) {
      append(appendBoxOperands(rewriter, loc, map, bufType, dst, coords, 2,
                               operands, constraints));
    } else {
      // A gathered copy: one slab of boxes per entry, at coordinate
      // boxes[k] * box along the gathered dimension.
      auto boxes = replicatedElements(op, op.getBoxes(), adaptor.getBoxes());
      if (failed(boxes))
        return failure();
      unsigned dim = *op.getBoxDim();
      int64_t extent = map.getBox()[dim];
      for (auto [k, box] : llvm::enumerate(*boxes)) {
        SmallVector<Value> at(coords);
        at[dim] = arith::AddIOp::create(
            rewriter, loc, coords[dim],
            arith::MulIOp::create(rewriter, loc, box,
                                  constI32(rewriter, loc, extent)));
        append(appendBoxOperands(rewriter, loc, map, bufType, dst, at, 2,
                                 operands, constraints, int64_t(k) * extent));
      }
    }
    constraints += ",~{memory}";

    // Multicast: box k is block (k mod size)'s, for every block.
    int64_t size = op.getMulticast() ? clusterSize(op) : 1;
    std::string text =
        std::string(size > 1 ? "{\n .reg .pred p, q;\n .reg .b64 state;\n"
                               " .reg .b32 rank;\n .reg .b16 mask;\n"
                             : "{\n .reg .pred p;\n .reg .b64 state;\n") +
        boxTexts.declarations +
        " setp.ne.b32 p, $0, 0;\n"
        " @p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], " +
        std::to_string(bytes) + ";\n";
    if (size > 1)
      text += " mov.u32 rank, %cluster_ctarank;\n"
              " mov.b16 mask, " +
              std::to_string((1 << size) - 1) + ";\n";
    // Several copies go behind one branch rather than a predicate each
    // (ptxas holds registers for each predicated copy: a producer warp's
    // 24 spilled from 8 such copies on, none unpredicated).
    bool branch = size == 1 && boxTexts.boxes.size() > 1;
    if (branch)
      text += " @!p bra skip;\n";
    for (auto [k, box] : llvm::enumerate(boxTexts.boxes)) {
      auto [setup, tensor, address] = box;
      text += setup;
      std::string copy = "cp.async.bulk.tensor." + std::to_string(rank) +
                         "d.shared::cluster.global.tile.mbarrier::complete_tx::"
                         "bytes";
      if (size == 1) {
        text += std::string(branch ? " " : " @p ") + copy + " " + address +
                ", " + tensor + ", [$1];\n";
        continue;
      }
      text += " setp.eq.and.u32 q, rank, " + std::to_string(k % size) +
              ", p;\n @q " + copy + ".multicast::cluster " + address + ", " +
              tensor + ", [$1], mask;\n";
    }
    text += branch ? " skip:\n}" : "}";
    inlinePtx(rewriter, loc, TypeRange(), operands, text, constraints);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Warp 0's elected lane copies the buffer's boxes to the tensor (or
/// combines them with it: cp.reduce.async.bulk.tensor) and commits them as
/// one bulk group:
///   cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group  one per box
///   cp.async.bulk.commit_group
struct TmaStoreLowering : OpConversionPattern<tile::TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TmaStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::TensorMapType map = op.getMap().getType();
    tile::SharedMemoryType bufType = op.getBuffer().getType();
    unsigned rank = map.getBox().size();
    Value src = sharedAddress32(rewriter, loc, adaptor.getBuffer().front());
    SmallVector<Value> coords;
    for (ValueRange c : adaptor.getCoords())
      coords.push_back(c.front());

    // Operands: $0 predicate, $1 tensor map, then the boxes'.
    Value pred = op.getPred() ? adaptor.getPred().front() : Value();
    SmallVector<Value> operands = {
        electedThread(rewriter, op, pred, op.getIssuer().value_or(0)),
        adaptor.getMap().front()};
    std::string constraints = "r,l";
    BoxTexts boxTexts = appendBoxOperands(rewriter, loc, map, bufType, src,
                                          coords, 1, operands, constraints);
    constraints += ",~{memory}";

    std::string copy = "cp.async.bulk.tensor." + std::to_string(rank) +
                       "d.global.shared::cta.tile.bulk_group ";
    if (std::optional<tile::ReduceKind> kind = op.getReduce())
      copy = "cp.reduce.async.bulk.tensor." + std::to_string(rank) +
             "d.global.shared::cta." +
             (*kind == tile::ReduceKind::Sum ? "add"
                                             : tile::stringifyReduceKind(*kind))
                 .str() +
             ".tile.bulk_group ";
    // Several copies go behind one branch rather than a predicate each
    // (ptxas holds registers for each predicated copy: a producer warp's
    // 24 spilled from 8 such copies on, none unpredicated).
    bool branch = boxTexts.boxes.size() > 1;
    std::string at = branch ? " " : " @p ";
    std::string text = "{\n .reg .pred p;\n" + boxTexts.declarations +
                       " setp.ne.b32 p, $0, 0;\n";
    if (branch)
      text += " @!p bra skip;\n";
    for (auto [setup, tensor, address] : boxTexts.boxes)
      text += setup + at + copy + tensor + ", " + address + ";\n";
    text += at + "cp.async.bulk.commit_group;\n" + (branch ? " skip:\n}" : "}");
    inlinePtx(rewriter, loc, TypeRange(), operands, text, constraints);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The lane that issued the stores (elect.sync elects the same one) waits
/// until they have read their buffers (all but its `pending` most recent
/// groups).
struct TmaStoreWaitLowering : OpConversionPattern<tile::TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TmaStoreWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = op.getPred() ? adaptor.getPred().front() : Value();
    inlinePtx(rewriter, loc, TypeRange(),
              ValueRange{electedThread(rewriter, op, pred,
                                       op.getIssuer().value_or(0))},
              "{\n .reg .pred p;\n setp.ne.b32 p, $0, 0;\n"
              " @p cp.async.bulk.wait_group.read " +
                  std::to_string(op.getPending()) + ";\n}",
              "r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::populateTmaPatterns(TileTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<MbarrierInitLowering, MbarrierInvalLowering,
               MbarrierWaitLowering, MbarrierArriveLowering, TmaLoadLowering,
               TmaStoreLowering, TmaStoreWaitLowering>(converter,
                                                       patterns.getContext());
}
