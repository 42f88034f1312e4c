//===- ConvertCopiesToTMA.cpp - Pipelined rings on TMA and mbarriers ------===//
//
// On sm_90a the rings of a loop that tile-pipeline made are filled by the
// tensor memory accelerator instead of every thread's cp.async:
//
//   %ring = tile.smem_alloc                     %ring = tile.smem_alloc
//                                               %bars = tile.mbarrier_alloc
//                                               tile.mbarrier_init %bars
//   tile.async_copy %t[idx], %ring[s] if %p     tile.tma_load %map[coords],
//                                                   %ring[s], %bars[s] if %p
//   scf.for ... iter_args(%it = ...) {          scf.for ... {
//     tile.async_wait %ring[it % S] {pending}     tile.mbarrier_wait
//                                                     %bars[it % S], (it/S)%2
//     ...                                         ...
//   }                                           }
//   tile.async_wait {pending = 0}               tile.mbarrier_inval %bars
//
// Slot s of a ring is filled for iterations s, s + S, s + 2S, ...: the
// prologue fills the first ones, iteration j fills slot (j + S - 1) mod S
// for iteration j + S - 1, and iteration `it` waits for the (it / S)-th
// fill of slot it mod S, whose completion flips the barrier's phase to
// parity (it / S) mod 2 ... counted from 0 after the initialization. A copy
// predicated off (an iteration past the end) arrives on nothing, and no
// iteration waits for it. Every copy issued is waited for in the loop, so
// the barriers are idle after it and are invalidated there; a loop that
// runs again (inside another loop) initializes them again. The rings of a
// loop in the tile loop of a persistent kernel are allocated before the
// tile loop and their fills are counted across tiles (tile-pipeline): their
// barriers are initialized there too, once, and invalidated after the tile
// loop, the phase following the fill count from tile to tile. The tile
// loop's own ring of one slot (tile-stages=1) is filled right before each
// tile waits for it, or a tile ahead (tile-refill-after-read), the phase
// flipping every tile.
//
// The TMA descriptors are new kernel parameters (`!tile.tensor_map`), one
// per tensor, box and swizzle, appended after the others and listed in the
// kernel's `tile.tensor_maps` attribute for the runtime, which encodes them
// at launch.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "Tile/Transforms/Rings.h"
#include "Tile/Transforms/TensorMaps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTCOPIESTOTMA
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr llvm::StringLiteral kFallbackAttr =
    TileDialect::getTmaFallbackAttrName();

/// A ring of a pipelined loop and its TMA form.
struct Ring {
  SmemAllocOp alloc;
  unsigned stages = 0;
  SmallVector<AsyncCopyOp> copies; // prologue and body
  SmallVector<AsyncWaitOp> waits;  // in the body
  unsigned param = 0;              // the tensor's kernel parameter
  TensorMapType map;
};

struct ConvertCopiesToTMAPass
    : public mlir::tile::impl::TileConvertCopiesToTMABase<
          ConvertCopiesToTMAPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileDialect::getPipelinedAttrName()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      SmallVector<Ring> rings;
      std::string reason = analyze(func, loop, rings);
      if (!reason.empty()) {
        addFallback(func, loop.getLoc(), reason);
        continue;
      }
      if (failed(convert(func, loop, rings)))
        return signalPassFailure();
    }
  }

  /// Says why the copies of `loop` stay cp.async; fills `rings` and returns
  /// "" when they can all be TMA copies.
  std::string analyze(func::FuncOp func, scf::ForOp loop,
                      SmallVectorImpl<Ring> &rings) {
    DenseMap<Operation *, unsigned> ringIndex;
    std::string reason;
    loop.getBody()->walk([&](AsyncCopyOp copy) -> WalkResult {
      auto slot = copy.getBuffer().getDefiningOp<SmemSlotOp>();
      auto alloc = slot ? dyn_cast_or_null<SmemAllocOp>(getAllocation(slot))
                        : SmemAllocOp();
      // The ring is allocated before the loop, or before the loop around
      // it that carries it (tile-pipeline's carrying loop).
      Operation *parent = loop->getParentOp();
      if (!alloc || !alloc->getBlock()->findAncestorOpInBlock(*loop) ||
          (alloc->getBlock() != loop->getBlock() &&
           !(isa<scf::ForOp>(parent) &&
             alloc->getBlock() == parent->getBlock()))) {
        reason = "a copy of the loop is not pipelined";
        return WalkResult::interrupt();
      }
      if (!ringIndex.count(alloc)) {
        ringIndex[alloc] = rings.size();
        Ring r;
        r.alloc = alloc;
        r.stages = alloc.getType().getShape().front();
        rings.push_back(r);
      }
      return WalkResult::advance();
    });
    if (!reason.empty())
      return reason;
    if (rings.empty())
      return "the loop copies nothing";
    for (Ring &r : rings) {
      // Every use of the ring is a slot; the slots are written by copies
      // (before the loop or in it) and waited for in the loop.
      if (llvm::any_of(r.alloc->getUsers(),
                       [](Operation *user) { return !isa<SmemSlotOp>(user); }))
        return "a ring is used other than through its slots";
      RingAccesses uses = collectRingAccesses(r.alloc);
      for (Operation *fill : uses.fills) {
        auto copy = dyn_cast<AsyncCopyOp>(fill);
        if (!copy)
          continue;
        // (A one-slot ring's copy is the tile's own, unpredicated.)
        if (!copy.getPred() && r.stages > 1)
          return "a copy into a ring is not predicated as the pipeline "
                 "makes it";
        // (TMA fills what is outside the tensor with zeros or NaN.)
        if (copy.getPaddingAttr())
          return "a copy pads with other than zero";
        r.copies.push_back(copy);
      }
      for (Operation *op : uses.waits) {
        auto wait = dyn_cast<AsyncWaitOp>(op);
        if (!wait)
          continue;
        if (wait.getBuffers().size() != 1 ||
            wait->getParentOp() != loop.getOperation())
          return "a wait for a ring slot is not the pipeline's";
        auto slot = wait.getBuffers().front().getDefiningOp<SmemSlotOp>();
        if (!getSlotCounter(slot.getSlot(), r.stages))
          return "a ring slot's index is not the pipeline's counter "
                 "modulo the stages";
        r.waits.push_back(wait);
      }
      // One slot: a persistent kernel's tile loop only (tile-pipeline).
      if (r.stages < 2 && !loop->hasAttr(TileDialect::getTileLoopAttrName()))
        return "a copy of the loop has a single stage";
      if (std::string why = describe(func, r); !why.empty())
        return why;
    }
    return "";
  }

  /// The tensor map of ring `r`'s copies (all of one tensor, shape, order
  /// and buffer type, as the pipeline makes them); why not, if they have
  /// none.
  std::string describe(func::FuncOp func, Ring &r) {
    AsyncCopyOp first = r.copies.front();
    for (AsyncCopyOp copy : r.copies)
      if (copy.getTensor() != first.getTensor() ||
          copy.getShape() != first.getShape() ||
          copy.getOrder() != first.getOrder() ||
          copy.getBoxDim() != first.getBoxDim() ||
          (copy.getBoxes() == nullptr) != (first.getBoxes() == nullptr))
        return "the copies into a ring differ";
    TmaTile tile{first.getTensor(), first.getShape(), first.getOrder(),
                 cast<SharedMemoryType>(first.getBuffer().getType()),
                 first.getLoc()};
    if (Value boxes = first.getBoxes()) {
      tile.boxDim = *first.getBoxDim();
      tile.numBoxes = cast<RankedTensorType>(boxes.getType()).getDimSize(0);
    }
    return describeTensorMap(func, tile, r.map, r.param);
  }

  /// Appends "line L: reason" to the kernel's tile.tma_fallback.
  void addFallback(func::FuncOp func, Location loc, StringRef reason) {
    std::string text;
    if (auto file = loc->findInstanceOf<FileLineColLoc>())
      text = "line " + std::to_string(file.getLine()) + ": ";
    text += "cp.async instead of TMA: " + reason.str();
    SmallVector<Attribute> list;
    if (auto old = func->getAttrOfType<ArrayAttr>(kFallbackAttr))
      llvm::append_range(list, old);
    auto attr = StringAttr::get(func.getContext(), text);
    if (!llvm::is_contained(list, attr))
      list.push_back(attr);
    func->setAttr(kFallbackAttr, ArrayAttr::get(func.getContext(), list));
  }

  LogicalResult convert(func::FuncOp func, scf::ForOp loop,
                        MutableArrayRef<Ring> rings) {
    // The descriptors first: a kernel out of parameter room stays cp.async.
    SmallVector<Value> maps;
    for (Ring &r : rings) {
      auto map = getTensorMapArgument(func, r.param, r.map);
      if (failed(map)) {
        addFallback(func, loop.getLoc(),
                    "the kernel has no room for more TMA descriptors");
        return success();
      }
      maps.push_back(*map);
    }
    for (auto [r, map] : llvm::zip(rings, maps)) {
      OpBuilder b(r.alloc);
      b.setInsertionPointAfter(r.alloc);
      Location loc = r.alloc.getLoc();
      Value bars = MbarrierAllocOp::create(
          b, loc, MbarrierType::get(b.getContext(), r.stages));
      MbarrierInitOp::create(b, loc, bars, b.getI32IntegerAttr(1));

      for (AsyncCopyOp copy : r.copies) {
        b.setInsertionPoint(copy);
        Location l = copy.getLoc();
        SmallVector<Value> coords =
            tmaCoordinates(b, l, copy.getTensor(), copy.getIndices(),
                           copy.getShape(), copy.getOrder());
        auto slot = copy.getBuffer().getDefiningOp<SmemSlotOp>();
        // A gathered copy's boxes lie along the tensor dimension of its
        // view dimension.
        IntegerAttr boxDim;
        if (auto d = copy.getBoxDim()) {
          auto order = copy.getOrder();
          boxDim = b.getI32IntegerAttr(order ? (*order)[*d] : *d);
        }
        TmaLoadOp::create(b, l, map, coords, copy.getBoxes(), copy.getBuffer(),
                          bars, slot.getSlot(), copy.getPred(), boxDim,
                          /*issuer=*/nullptr);
        copy.erase();
      }
      for (AsyncWaitOp wait : r.waits) {
        b.setInsertionPoint(wait);
        Location l = wait.getLoc();
        Value view = wait.getBuffers().front();
        Value slot = view.getDefiningOp<SmemSlotOp>().getSlot();
        Value counter = getSlotCounter(slot, r.stages);
        Value stages =
            arith::ConstantOp::create(b, l, b.getI32IntegerAttr(r.stages));
        Value one = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(1));
        Value phase = arith::AndIOp::create(
            b, l, arith::DivUIOp::create(b, l, counter, stages), one);
        MbarrierWaitOp::create(b, l, bars, slot, phase, ValueRange{view},
                               /*pred=*/Value());
        wait.erase();
      }
      // After the loop, or after the tile loop that carries the ring.
      b.setInsertionPointAfter(
          r.alloc->getBlock()->findAncestorOpInBlock(*loop));
      MbarrierInvalOp::create(b, loop.getLoc(), bars);
    }
    // The wait for every copy after the loop waited for the cp.async
    // groups of the loop, which are gone.
    for (Operation *next = loop->getNextNode(); next;
         next = next->getNextNode()) {
      auto wait = dyn_cast<AsyncWaitOp>(next);
      if (wait && wait.getBuffers().empty()) {
        wait.erase();
        break;
      }
      if (!isa<MbarrierInvalOp>(next))
        break;
    }
    return success();
  }
};

} // namespace
