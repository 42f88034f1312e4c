//===- IndexAnalysisTest.cpp - Runs in index tiles
//-------------------------===//
//
// Unit tests of analyzeIndexRuns and scalarDivisor (Tile/IR/IndexAnalysis.h),
// the facts gathers and scatters vectorize on: each case is a tile computed
// by the ops a kernel writes (arange, constants, scalars, broadcasts, adds,
// multiplies), marked with `test.name`, and the runs expected along a
// dimension.
//
//===----------------------------------------------------------------------===//

#include "Tile/IR/IndexAnalysis.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr const char *kSource = R"mlir(
func.func @f(%j: i32, %t: tensor<16x64xi32>) {
  %c64 = arith.constant 64 : i32
  %c3 = arith.constant 3 : i32
  %two = arith.constant dense<2> : tensor<1x64xi32>
  %a = tile.arange {test.name = "arange"} : tensor<64xi32>
  %row = tile.expand_dims %a {axis = 0 : i32, test.name = "row"} : tensor<64xi32> -> tensor<1x64xi32>
  %jc = arith.muli %j, %c64 : i32
  %off = tile.full %jc {test.name = "offset"} : tensor<1x64xi32>
  %cols = arith.addi %row, %off {test.name = "cols"} : tensor<1x64xi32>
  %jo = tile.full %j : tensor<1x64xi32>
  %shifted = arith.addi %row, %jo {test.name = "unaligned"} : tensor<1x64xi32>
  %strided = arith.muli %cols, %two {test.name = "strided"} : tensor<1x64xi32>
  %wide = tile.broadcast %cols {test.name = "wide"} : tensor<1x64xi32> -> tensor<16x64xi32>
  %ids = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tile.broadcast %ids {test.name = "rows"} : tensor<64x1xi32> -> tensor<64x64xi32>
  %j3 = arith.muli %j, %c3 : i32
  %odd = tile.full %j3 {test.name = "odd"} : tensor<1x64xi32>
  %opaque = arith.addi %t, %t {test.name = "opaque"} : tensor<16x64xi32>
  %vrow = tile.reshape %a {test.name = "view_row"} : tensor<64xi32> -> tensor<1x64xi32>
  %vcol = tile.reshape %a {test.name = "view_col"} : tensor<64xi32> -> tensor<64x1xi32>
  %vsplit = tile.reshape %a {test.name = "view_split"} : tensor<64xi32> -> tensor<8x8xi32>
  return
}
)mlir";

class IndexAnalysisTest : public ::testing::Test {
protected:
  IndexAnalysisTest() {
    ctx.loadDialect<TileDialect, arith::ArithDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kSource, &ctx);
  }

  Value named(StringRef name) {
    Value found;
    module->walk([&](Operation *op) {
      if (auto n = op->getAttrOfType<StringAttr>("test.name"))
        if (n.getValue() == name)
          found = op->getResult(0);
    });
    EXPECT_TRUE(found) << name.str();
    return found;
  }

  void expectRuns(StringRef name, unsigned dim, int64_t contiguous,
                  int64_t constant, int64_t divisor) {
    IndexRuns r = analyzeIndexRuns(named(name), dim);
    EXPECT_EQ(r.contiguous, contiguous) << name.str() << " dim " << dim;
    EXPECT_EQ(r.constant, constant) << name.str() << " dim " << dim;
    EXPECT_EQ(r.divisor, divisor) << name.str() << " dim " << dim;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

constexpr int64_t kAny = int64_t(1) << 30;

TEST_F(IndexAnalysisTest, Sources) {
  ASSERT_TRUE(module);
  // arange: one run of 64 from 0; a splat of j * 64: constant, multiples of
  // 64; a splat of j * 3: nothing known of j, so odd multiples possible.
  expectRuns("arange", 0, 64, 1, kAny);
  expectRuns("offset", 1, 1, 64, 64);
  expectRuns("odd", 1, 1, 64, 1);
  // A tile computed some other way: runs of one, nothing known.
  expectRuns("opaque", 1, 1, 1, 1);
}

TEST_F(IndexAnalysisTest, Combinations) {
  ASSERT_TRUE(module);
  // expand_dims: the new unit dimension holds single elements; the old one
  // keeps its runs.
  expectRuns("row", 1, 64, 1, kAny);
  // arange + j * 64: one run of 64 from a multiple of 64 (a vector may start
  // at any multiple of its length inside it); arange + j: the run, from a
  // start known to be a multiple of nothing (a gather reads it one element
  // at a time: min(contiguous, divisor)).
  expectRuns("cols", 1, 64, 1, 64);
  expectRuns("unaligned", 1, 64, 1, 1);
  // (arange + j * 64) * 2: steps of two, every element even.
  expectRuns("strided", 1, 1, 1, 2);
  // Broadcasts: along the broadcast dimension constant; along the other the
  // source's runs.
  expectRuns("wide", 0, 1, 16, 1);
  expectRuns("wide", 1, 64, 1, 64);
  expectRuns("rows", 1, 1, 64, 1);
  expectRuns("rows", 0, 64, 1, kAny);
  // A reshape that inserts a unit dimension is an expand_dims
  // (`arange(n).reshape((1, n))`); one that splits a dimension is known
  // nothing of.
  expectRuns("view_row", 0, 1, 1, 1);
  expectRuns("view_row", 1, 64, 1, kAny);
  expectRuns("view_col", 0, 64, 1, kAny);
  expectRuns("view_col", 1, 1, 1, 1);
  expectRuns("view_split", 1, 1, 1, 1);
}

TEST_F(IndexAnalysisTest, ScalarDivisors) {
  ASSERT_TRUE(module);
  Value jc = named("offset").getDefiningOp()->getOperand(0);
  EXPECT_EQ(scalarDivisor(jc), 64);
  Value j3 = named("odd").getDefiningOp()->getOperand(0);
  EXPECT_EQ(scalarDivisor(j3), 1);
}

} // namespace
