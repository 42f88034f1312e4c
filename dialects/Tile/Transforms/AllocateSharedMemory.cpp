//===- AllocateSharedMemory.cpp - Offsets for shared memory buffers -------===//
//
// Every shared memory buffer of a kernel gets a byte offset in the kernel's
// dynamic shared memory; buffers that are never live at the same time share
// memory. The buffers are the `tile.smem_alloc`, `tile.local_alloc` and
// `tile.mbarrier_alloc` ops and the scratch memory of ops that go through
// shared memory while they run (tile::getScratchBytes).
//
// Liveness: ops are numbered in program order (pre-order, so an op with
// regions comes before what it contains and `end` is its last nested op). A
// buffer is live from its definition to its last use; a use inside an op
// that the buffer's block contains (a loop, a branch) counts as a use at the
// end of that op, so that a buffer read in a loop stays live for the whole
// loop (the regions of a `tile.warp_specialize` are the exception: each is
// straight-line code, the producer's before the consumers'). A buffer an async
// copy writes stays live until the wait that completes the copy; one an async
// wgmma reads, until the wait that names it (a later one in the wgmma's block)
// or else the end of that block. Scratch memory is live only during its op,
// but a reduction's until the next op of its block that uses scratch (or the
// block's end), so that the two get different memory.
// Placement is first fit, largest buffers first, at 128-byte alignment (8 bytes
// for mbarriers, more for the swizzled layouts of wgmma and TMA).
//
// First, a buffer whose rows (the layout's second fastest dimension) are
// padded and lie under a higher digit of its address (blocks of columns, or
// stacked tiles), and that no access reaches past its tile
// (isAccessedWithinTile), is retyped to store only its own rows rounded to
// the swizzle's period (#tile.shared<..., rows = R>): an 80-key stage of a
// 256-wide head in 128-byte blocks takes 4 x 80 rows, not 4 x 128. A
// wgmma's A keeps whole 64-row multiples (each instruction reads 64 rows:
// 48 packed query rows keep their 64). The views of it (ring slots,
// permutations) follow.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedMemory.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORY
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kAlignment = 128;

/// Whether a `tile.wgmma_wait` after `mma` in its block names `buffer`
/// (which the multiply reads): the buffer is read until there.
bool waitedInBlock(WarpgroupMmaOp mma, Value buffer) {
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    return isa<WgmmaWaitOp>(user) && user->getBlock() == mma->getBlock() &&
           mma->isBeforeInBlock(user);
  });
}

/// The op of `block` that stands for `op` in liveness: its ancestor there,
/// or, inside a `tile.warp_specialize` of the block, its ancestor in a
/// producer region or the consumer region (the regions count as
/// straight-line code, producers first: the producers' copies all complete
/// before the consumers' last wait for them, so what the consumers allocate
/// after that may reuse the rings).
Operation *anchorIn(Block *block, Operation *op) {
  Operation *at = block->findAncestorOpInBlock(*op);
  while (auto ws = dyn_cast_or_null<WarpSpecializeOp>(at)) {
    Region *region = &ws.getConsumer();
    for (Region &producer : ws.getProducers())
      if (producer.isAncestor(op->getParentRegion()))
        region = &producer;
    at = region->front().findAncestorOpInBlock(*op);
  }
  return at;
}

struct Buffer {
  Operation *owner; // the allocating op, or the op using scratch memory
  int64_t bytes;
  int64_t start, end; // live range, inclusive, in program order
  int64_t offset = -1;
  int64_t align = kAlignment;
  // In a consumer region of G groups: a copy a group, `stride` apart.
  int64_t copies = 1, stride = 0, groupThreads = 0;
};

/// The warp-specialized op whose consumer region holds `op`, where its
/// consumers are in groups (tile-consumer-groups); null otherwise.
WarpSpecializeOp groupedConsumerOf(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion())
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(region->getParentOp()))
      return region == &ws.getConsumer() && ws.getNumConsumerGroups() > 1
                 ? ws
                 : WarpSpecializeOp();
  return WarpSpecializeOp();
}

/// Retypes `value` (an allocation or a view of it) and its views to store
/// `rows` rows a block.
void setRows(Value value, unsigned rows) {
  auto type = cast<SharedMemoryType>(value.getType());
  value.setType(SharedMemoryType::get(type.getContext(), type.getShape(),
                                      type.getElementType(),
                                      type.getLayout().withRows(rows)));
  for (Operation *user : value.getUsers())
    if (isa<SmemSlotOp, SmemPermuteOp>(user))
      setRows(user->getResult(0), rows);
}

struct AllocateSharedMemoryPass
    : public mlir::tile::impl::TileAllocateSharedMemoryBase<
          AllocateSharedMemoryPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(allocate(func)))
        return signalPassFailure();
  }

  /// Buffers held at their own rows (the file comment), marked with their
  /// slot's bytes so that the lowering reads them at the tile's own
  /// elements.
  void compactBuffers(func::FuncOp func) {
    Builder builder(func.getContext());
    func.walk([&](Operation *op) {
      if (!isa<SmemAllocOp, LocalAllocOp>(op) ||
          !isa<SharedMemoryType>(op->getResult(0).getType()))
        return;
      SharedMemoryType slot = getSlotType(op);
      unsigned rows = getCompactType(slot, isWgmmaA(op)).getLayout().getRows();
      if (rows == slot.getLayout().getRows() || !isAccessedWithinTile(op))
        return;
      setRows(op->getResult(0), rows);
      op->setAttr(kSlotBytesAttr, builder.getI32IntegerAttr(
                                      getTileExtentBytes(getSlotType(op))));
    });
  }

  LogicalResult allocate(func::FuncOp func) {
    compactBuffers(func);
    // Program order, and the last op nested in each op.
    // A warp-specialized body counts its producers before its consumers
    // (anchorIn), whatever the order of its regions.
    DenseMap<Operation *, int64_t> index, last;
    int64_t counter = 0;
    std::function<void(Operation *)> number = [&](Operation *op) {
      index[op] = counter++;
      SmallVector<Region *> regions;
      for (Region &r : op->getRegions())
        regions.push_back(&r);
      if (isa<WarpSpecializeOp>(op))
        std::rotate(regions.begin(), regions.begin() + 1, regions.end());
      for (Region *r : regions)
        for (Block &b : *r)
          for (Operation &nested : b)
            number(&nested);
      last[op] = counter - 1;
    };
    number(func);

    // An async copy writes its buffer until a wait completes it: the buffer
    // stays live until the first wait after the copy that names it or waits
    // for everything (or to the end of the function).
    SmallVector<AsyncWaitOp> waits;
    func.walk([&](AsyncWaitOp w) { waits.push_back(w); });
    DenseMap<Operation *, SmallVector<Operation *>> completions;
    func.walk([&](AsyncCopyOp copy) {
      Operation *alloc = getAllocation(copy.getBuffer());
      if (!alloc)
        return;
      Operation *done = nullptr;
      for (AsyncWaitOp w : waits) {
        if (index[w] <= index[copy] || (done && index[w] >= index[done]))
          continue;
        bool covers = w.getBuffers().empty() ||
                      llvm::any_of(w.getBuffers(), [&](Value b) {
                        return getAllocation(b) == alloc;
                      });
        if (covers)
          done = w;
      }
      completions[alloc].push_back(done ? done : &func.getBody().back().back());
    });

    SmallVector<Buffer> buffers;
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (isa<SmemAllocOp, LocalAllocOp, MbarrierAllocOp>(op)) {
        Value buf = op->getResult(0);
        Buffer b{op, getAllocationBytes(op), index[op], index[op]};
        if (auto type = dyn_cast<SharedMemoryType>(buf.getType()))
          b.align = getSharedAlignment(type);
        else
          b.align = kMbarrierBytes;
        // Uses through ring slots and views count as uses of the buffer.
        SmallVector<Value> values = {buf};
        while (!values.empty()) {
          Value v = values.pop_back_val();
          for (Operation *user : v.getUsers()) {
            if (isa<SmemSlotOp, SmemPermuteOp, SmemViewOp>(user))
              values.push_back(user->getResult(0));
            Operation *at = anchorIn(op->getBlock(), user);
            if (!at)
              return op->emitOpError(
                  "a shared memory buffer used outside the block that "
                  "allocates it");
            b.end = std::max(b.end, last[at]);
            // An async multiply reads its operands until a wait completes
            // it, at the latest when its block ends (the wait names the
            // buffer where it can).
            if (auto mma = dyn_cast<WarpgroupMmaOp>(user);
                mma && mma.getIsAsync() && !waitedInBlock(mma, v))
              if (Operation *end =
                      anchorIn(op->getBlock(), &user->getBlock()->back()))
                b.end = std::max(b.end, last[end]);
          }
        }
        for (Operation *done : completions.lookup(op))
          if (Operation *at = anchorIn(op->getBlock(), done))
            b.end = std::max(b.end, last[at]);
        buffers.push_back(b);
        return WalkResult::advance();
      }
      if (int64_t bytes = getScratchBytes(op)) {
        Buffer b{op, bytes, index[op], index[op]};
        // Read after a barrier of the op's own: kept apart from the next
        // op in its block that uses scratch, that op may write its own
        // without a barrier between (tile-insert-barriers): two reductions
        // in a row, one barrier each.
        if (isScratchReadAfterOwnBarrier(op)) {
          b.end = last[&op->getBlock()->back()];
          for (Operation *next = op->getNextNode(); next;
               next = next->getNextNode()) {
            WalkResult scratch = next->walk([](Operation *nested) {
              return getScratchBytes(nested) ? WalkResult::interrupt()
                                             : WalkResult::advance();
            });
            if (scratch.wasInterrupted()) {
              b.end = last[next];
              break;
            }
          }
        }
        buffers.push_back(b);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    // Each group of consumers its own copy of what their region allocates.
    for (Buffer &b : buffers)
      if (WarpSpecializeOp ws = groupedConsumerOf(b.owner)) {
        b.copies = ws.getNumConsumerGroups();
        b.stride = llvm::alignTo(b.bytes, b.align);
        b.groupThreads = ws.getNumConsumerThreads();
        b.bytes = b.stride * b.copies;
      }

    // First fit, largest first.
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    llvm::stable_sort(order, [](Buffer *a, Buffer *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a->start < b->start;
    });
    int64_t total = 0;
    SmallVector<Buffer *> placed;
    for (Buffer *b : order) {
      SmallVector<std::pair<int64_t, int64_t>> taken;
      for (Buffer *p : placed)
        if (p->start <= b->end && b->start <= p->end)
          taken.push_back({p->offset, p->offset + p->bytes});
      llvm::sort(taken);
      int64_t offset = 0;
      for (auto [lo, hi] : taken)
        if (offset + b->bytes > lo && offset < hi)
          offset = llvm::alignTo(hi, b->align);
      b->offset = offset;
      total = std::max<int64_t>(total, offset + b->bytes);
      placed.push_back(b);
    }

    Builder builder(func.getContext());
    for (Buffer &b : buffers) {
      b.owner->setAttr(kSharedOffsetAttr, builder.getI32IntegerAttr(b.offset));
      if (b.copies > 1) {
        b.owner->setAttr(kGroupStrideAttr, builder.getI32IntegerAttr(b.stride));
        b.owner->setAttr(kGroupCopiesAttr, builder.getI32IntegerAttr(b.copies));
        b.owner->setAttr(kConsumerGroupThreadsAttr,
                         builder.getI32IntegerAttr(b.groupThreads));
      }
      // A buffer (a ring's stage) held short of its padded storage: the
      // lowering's slots step by what was allocated here.
      if (isa<SmemAllocOp, LocalAllocOp>(b.owner) &&
          !b.owner->hasAttr(kSlotBytesAttr)) {
        int64_t slot = getSlotBytes(b.owner);
        if (slot < getSharedBytes(getSlotType(b.owner)))
          b.owner->setAttr(kSlotBytesAttr, builder.getI32IntegerAttr(slot));
      }
    }
    func->setAttr(kSharedBytesAttr,
                  builder.getI32IntegerAttr(llvm::alignTo(total, kAlignment)));
    return success();
  }
};

} // namespace
