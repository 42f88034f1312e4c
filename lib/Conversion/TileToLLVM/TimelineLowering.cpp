//===- TimelineLowering.cpp - tile.timestamp to a warpgroup's log ---------===//
//
// The records of tile-timeline. Each thread keeps the index of its next
// record in a variable of its own (an alloca, which LLVM keeps in a
// register), from its warpgroup's log's first at the kernel's entry; the
// first thread of each warpgroup stores at each site, and the index moves
// on up to the log's last, which then holds the latest site's record:
//
//   first = (block * warpgroups + warpgroup) * records   (x, y, z order)
//   entry = buffer + index * 16:  { %globaltimer, site << 32 | %clock64 & ~0u }
//   index = index + 1 where (index + 1) % records != 0   (records: 2^k)
//
// Lowered before the tiles (a walk, not a pattern): the count is threaded
// through the kernel's control flow by memory, whatever regions hold the
// sites (a warp-specialized kernel's roles, inlined later).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

void tilec::lowerTimestamps(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    SmallVector<tile::TimestampOp> stamps;
    func.walk([&](tile::TimestampOp op) { stamps.push_back(op); });
    if (stamps.empty())
      return;
    MLIRContext *ctx = func.getContext();
    OpBuilder b(ctx);
    Location loc = func.getLoc();
    Type i32 = b.getI32Type();
    auto constant = [&](Type t, int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
    };
    // At the kernel's entry, once: the index of this thread's warpgroup's
    // first record (its log's), the count's start. The count is the one
    // value the sites keep across the kernel (the buffer's address is a
    // kernel parameter): a producer warpgroup has few registers to spare.
    b.setInsertionPointToStart(&func.getBody().front());
    int64_t records = stamps.front().getRecords();
    Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
    Value threads = NVVM::BlockDimXOp::create(b, loc, i32);
    Value x = NVVM::BlockIdXOp::create(b, loc, i32);
    Value y = NVVM::BlockIdYOp::create(b, loc, i32);
    Value z = NVVM::BlockIdZOp::create(b, loc, i32);
    Value nx = NVVM::GridDimXOp::create(b, loc, i32);
    Value ny = NVVM::GridDimYOp::create(b, loc, i32);
    Value block = LLVM::AddOp::create(
        b, loc,
        LLVM::MulOp::create(
            b, loc,
            LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, z, ny), y),
            nx),
        x);
    Value seven = constant(i32, 7);
    Value groups = LLVM::LShrOp::create(
        b, loc, LLVM::AddOp::create(b, loc, threads, constant(i32, 127)),
        seven);
    Value log =
        LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, block, groups),
                            LLVM::LShrOp::create(b, loc, tid, seven));
    Value one = constant(i32, 1);
    Value count = LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(ctx), i32, one);
    LLVM::StoreOp::create(
        b, loc, LLVM::MulOp::create(b, loc, log, constant(i32, records)),
        count);
    for (tile::TimestampOp op : stamps) {
      b.setInsertionPoint(op);
      Location at = op.getLoc();
      Value n = LLVM::LoadOp::create(b, at, i32, count);
      std::string site = std::to_string(uint64_t(op.getSite()) << 32);
      inlinePtx(b, at, TypeRange(), ValueRange{op.getBuffer(), n},
                "{\n .reg .pred p;\n .reg .b32 t;\n .reg .b64 a, g, c;\n"
                " mov.u32 t, %tid.x;\n and.b32 t, t, 127;\n"
                " setp.eq.u32 p, t, 0;\n mul.wide.u32 a, $1, 16;\n"
                " add.u64 a, a, $0;\n"
                " mov.u64 g, %globaltimer;\n mov.u64 c, %clock64;\n"
                " and.b64 c, c, 4294967295;\n or.b64 c, c, " +
                    site + ";\n @p st.global.v2.u64 [a], {g, c};\n}",
                "l,r,~{memory}");
      // The next record's index, up to the log's last (records is a power
      // of two): a full log's last record is the latest site's.
      Value next = LLVM::AddOp::create(b, at, n, one);
      Value room = LLVM::ICmpOp::create(
          b, at, LLVM::ICmpPredicate::ne,
          LLVM::AndOp::create(b, at, next, constant(i32, records - 1)),
          constant(i32, 0));
      LLVM::StoreOp::create(b, at, LLVM::SelectOp::create(b, at, room, next, n),
                            count);
      op.erase();
    }
  });
}
