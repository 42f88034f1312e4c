//===- MmaPatterns.cpp - tile.mma to mma.sync.m16n8k16 --------------------===//
//
// The operands arrive in the dot-operand layouts and the accumulator in the
// mma layout, so each thread already holds exactly the fragments it passes
// to mma.sync: the pattern only finds them, by coordinates, for every
// 16 x 8 x 16 step of the warp's part of the product.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;

namespace {

struct MmaLowering : OpConversionPattern<tile::MmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::MmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto cType = op.getAcc().getType();
    auto mma = dyn_cast<tile::MmaLayoutAttr>(cType.getEncoding());
    if (!mma)
      return op.emitError("mma: the accumulator must be in an mma layout");
    // A padded tile: every row and column of its padded shape is computed
    // (the padding's are undefined), but K stops at the operands' own K.
    LinearLayout la = getLinearLayout(aType), lb = getLinearLayout(bType),
                 lc = getLinearLayout(cType);
    int64_t M = lc.getShape()[0], N = lc.getShape()[1], K = aType.getDimSize(1);
    if (M % 16 || N % 8 || K % 16) {
      InFlightDiagnostic diag = op.emitError()
                                << "mma: tiles must be multiples of 16 x 8 x "
                                   "16 (M x N x K), got "
                                << cType.getDimSize(0) << " x "
                                << cType.getDimSize(1) << " x " << K;
      if (tile::isPadded(cType.getShape()))
        diag << " (held as " << M << " x " << N
             << "; pad M to 16 rows yourself, e.g. rows past the tensor)";
      return diag;
    }
    int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
    ValueRange a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();

    Type elt = aType.getElementType();
    bool isBF16 = elt.isBF16();
    Type pairType =
        isBF16 ? Type(rewriter.getI32Type()) : Type(VectorType::get(2, elt));
    auto reg = [&](const LinearLayout &l, int64_t row, int64_t col) {
      auto r =
          l.findReg({row & (l.getShape()[0] - 1), col & (l.getShape()[1] - 1)});
      assert(r && "mma fragment not held by this thread");
      return *r;
    };
    auto pair = [&](ValueRange regs, unsigned r0, unsigned r1) {
      Value vec = LLVM::UndefOp::create(rewriter, loc, VectorType::get(2, elt));
      vec = LLVM::InsertElementOp::create(rewriter, loc, vec, regs[r0],
                                          constI32(rewriter, loc, 0));
      vec = LLVM::InsertElementOp::create(rewriter, loc, vec, regs[r1],
                                          constI32(rewriter, loc, 1));
      return isBF16
                 ? Value(LLVM::BitcastOp::create(rewriter, loc, pairType, vec))
                 : vec;
    };

    SmallVector<Value> acc(c.begin(), c.end());
    int64_t mTiles = std::max<int64_t>(1, M / (16 * wm));
    int64_t nTiles = std::max<int64_t>(1, N / (8 * wn));
    Type f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                       {f32, f32, f32, f32});
    NVVM::MMATypes ptxType =
        isBF16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    for (int64_t i = 0; i < mTiles; ++i) {
      int64_t row = 16 * wm * i;
      for (int64_t j = 0; j < nTiles; ++j) {
        int64_t col = 8 * wn * j;
        unsigned c0 = reg(lc, row, col), c1 = reg(lc, row, col + 1),
                 c2 = reg(lc, row + 8, col), c3 = reg(lc, row + 8, col + 1);
        // A block of a padded accumulator's padding: not computed.
        if (llvm::all_of(std::array<unsigned, 4>{c0, c1, c2, c3},
                         [&](unsigned r) {
                           return isPaddingRegister(lc, cType.getShape(), r);
                         }))
          continue;
        for (int64_t kk = 0; kk < K / 16; ++kk) {
          int64_t k = 16 * kk;
          SmallVector<Value> fa = {
              pair(a, reg(la, row, k), reg(la, row, k + 1)),
              pair(a, reg(la, row + 8, k), reg(la, row + 8, k + 1)),
              pair(a, reg(la, row, k + 8), reg(la, row, k + 9)),
              pair(a, reg(la, row + 8, k + 8), reg(la, row + 8, k + 9))};
          SmallVector<Value> fb = {
              pair(b, reg(lb, k, col), reg(lb, k + 1, col)),
              pair(b, reg(lb, k + 8, col), reg(lb, k + 9, col))};
          SmallVector<Value> fc = {acc[c0], acc[c1], acc[c2], acc[c3]};
          auto mmaOp = NVVM::MmaOp::create(
              rewriter, loc, resultType, fa, fb, fc, {16, 8, 16}, std::nullopt,
              std::nullopt, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (auto [q, idx] :
               llvm::enumerate(std::array<unsigned, 4>{c0, c1, c2, c3}))
            acc[idx] =
                LLVM::ExtractValueOp::create(rewriter, loc, mmaOp.getResult(),
                                             ArrayRef<int64_t>{(int64_t)q});
        }
      }
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

} // namespace

void tilec::populateMmaPatterns(TileTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<MmaLowering>(converter, patterns.getContext());
}
