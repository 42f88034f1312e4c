//===- SharedAddressesTest.cpp - Base-plus-constant shared offsets --------===//
//
// SharedAddresses (lib/Conversion/TileToLLVM/LoweringUtils.h) computes a
// tile's shared memory offsets as a few per-thread bases plus constants
// where the swizzle allows. Here its offsets are evaluated, for every value
// of a thread's coordinates within their bounds and every constant of a
// tile's registers, against sharedOffset's of the summed coordinates (the
// plain computation): a split that the swizzle does not allow would give
// another offset for some thread.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// The value of `v`, an expression of arith ops over constants.
int64_t evaluate(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    return cast<IntegerAttr>(c.getValue()).getInt();
  Operation *op = v.getDefiningOp();
  EXPECT_TRUE(op && op->getNumOperands() == 2) << "not an arith expression";
  if (!op || op->getNumOperands() != 2)
    return 0;
  int64_t x = evaluate(op->getOperand(0)), y = evaluate(op->getOperand(1));
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([&](arith::AddIOp) { return x + y; })
      .Case([&](arith::MulIOp) { return x * y; })
      .Case([&](arith::XOrIOp) { return x ^ y; })
      .Case([&](arith::AndIOp) { return x & y; })
      .Case([&](arith::OrIOp) { return x | y; })
      .Case([&](arith::ShRUIOp) { return x >> y; })
      .Case([&](arith::ShLIOp) { return x << y; })
      .Default([&](Operation *) {
        ADD_FAILURE() << "unexpected op " << op->getName().getStringRef().str();
        return int64_t(0);
      });
}

struct SharedAddressesTest : ::testing::Test {
  MLIRContext context;
  OpBuilder b{&context};
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;

  SharedAddressesTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        tile::TileDialect>();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
  }

  /// A transposed 64 x 80 f32 accumulator's staging, 80 x 64 in the
  /// 128-byte swizzle (blocks of 32 columns), its rows held at 80.
  tile::SharedMemoryType transposedStaging() {
    auto layout =
        tile::SharedLayoutAttr::get(&context, 4, 1, 8, ArrayRef<unsigned>{1, 0},
                                    /*block=*/32, /*rows=*/80, /*cols=*/0);
    return tile::SharedMemoryType::get(&context, {80, 64}, b.getF32Type(),
                                       layout);
  }

  /// Every thread coordinate below `bound` (taken as the OR of the bits a
  /// coordinate may have where `bits`: additiveThreadBound's), every
  /// constant in `consts`: SharedAddresses' offset is sharedOffset's.
  void check(tile::SharedMemoryType type, ArrayRef<int64_t> bound, bool bits,
             ArrayRef<SmallVector<int64_t, 2>> consts) {
    SmallVector<int64_t, 2> lane(2, 0);
    auto isThreadValue = [&](int64_t value, int64_t bnd) {
      return bits ? (value & ~(bnd - 1)) == 0 : value < bnd;
    };
    for (lane[0] = 0; lane[0] < int64_t(llvm::PowerOf2Ceil(bound[0]));
         ++lane[0]) {
      if (!isThreadValue(lane[0], bound[0]))
        continue;
      for (lane[1] = 0; lane[1] < int64_t(llvm::PowerOf2Ceil(bound[1]));
           ++lane[1]) {
        if (!isThreadValue(lane[1], bound[1]))
          continue;
        SmallVector<Value> laneValues = {tilec::constI32(b, loc, lane[0]),
                                         tilec::constI32(b, loc, lane[1])};
        tilec::SharedAddresses addresses(b, loc, type, laneValues, bound, bits);
        for (ArrayRef<int64_t> c : consts) {
          Value split = addresses.offset(c);
          Value plain =
              tilec::sharedOffset(b, loc, type,
                                  {tilec::constI32(b, loc, lane[0] + c[0]),
                                   tilec::constI32(b, loc, lane[1] + c[1])});
          ASSERT_EQ(evaluate(split), evaluate(plain))
              << "thread (" << lane[0] << ", " << lane[1] << "), constant ("
              << c[0] << ", " << c[1] << ")";
        }
      }
    }
  }
};

/// A transposed 64 x 80 f32 accumulator staged as 80 x 64 for a TMA copy
/// (FlashAttention-3's dQ^T): 128-byte swizzle, blocks of 32 columns, rows
/// held at 80. A thread's rows are 2 x (lane % 4) (bits 1, 2), its columns
/// lane / 4 and 16 x its warp (bits 0-2, 4, 5); the constants' rows 0, 1,
/// 8, 9, ... (the pairs and the 8-row steps), columns 0 and 8.
TEST_F(SharedAddressesTest, TransposedAccumulatorRows) {
  tile::SharedMemoryType type = transposedStaging();
  SmallVector<SmallVector<int64_t, 2>> consts;
  for (int64_t row = 0; row < 80; row += 8)
    for (int64_t pair : {0, 1})
      for (int64_t col : {0, 8})
        consts.push_back({row + pair, col});
  // additiveThreadBound's bounds: one more than the OR of the bits.
  check(type, {0b110 + 1, 0b110111 + 1}, /*bits=*/true, consts);
}

/// The same with bounds that are not bits (every row below 7): constant
/// rows of 1 and 3 carry some threads' rows into another phase, which the
/// base (its rows plus the constant's within the period) takes in.
TEST_F(SharedAddressesTest, RowsBelowABound) {
  tile::SharedMemoryType type = transposedStaging();
  SmallVector<SmallVector<int64_t, 2>> consts;
  for (int64_t row = 0; row < 72; row += 8)
    for (int64_t pair : {0, 1, 3})
      consts.push_back({row + pair, 8});
  check(type, {7, 32}, /*bits=*/false, consts);
}

/// A 16-bit tile in the 64-byte swizzle (two rows a phase: perPhase 2),
/// rows of a quarter period apart.
TEST_F(SharedAddressesTest, TwoRowsAPhase) {
  auto layout =
      tile::SharedLayoutAttr::get(&context, 8, 2, 4, ArrayRef<unsigned>{1, 0},
                                  /*block=*/32);
  auto type =
      tile::SharedMemoryType::get(&context, {64, 64}, b.getF16Type(), layout);
  SmallVector<SmallVector<int64_t, 2>> consts;
  for (int64_t row : {0, 1, 2, 3, 8, 9, 16, 17, 33})
    for (int64_t col : {0, 8, 16, 32})
      consts.push_back({row, col});
  check(type, {0b100 + 1, 0b111 + 1}, /*bits=*/true, consts);
}

} // namespace
