//===- MmaPatterns.cpp - tile.mma to mma.sync ----------------------------===//
//
// The operands arrive in the dot-operand layouts and the accumulator in the
// mma layout, so each thread already holds exactly the fragments it passes
// to mma.sync: the pattern only finds them, by coordinates, for every
// 16 x 8 x 16 step of the warp's part of the product (16 x 8 x 32 for 8-bit
// operands, m16n8k32 with e4m3/e5m2, or s8 into s32 accumulators; 16 x 8 x
// 8 for f32 ones, m16n8k8 with tf32).
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
    // (Warpgroups along N split the columns in wgmma's blocks, which
    // mma.sync's warps do not hold.)
    if (mma.isWarpgroup() && mma.getWarpsPerCTA()[1] != 1)
      return op.emitError("mma: an accumulator with warpgroups along N is "
                          "wgmma's only: run tile-stage-mma-operands first");
    // A padded tile: every row and column of its padded shape is computed
    // (the padding's are undefined), but K stops at the operands' own K.
    LinearLayout la = getLinearLayout(aType), lb = getLinearLayout(bType),
                 lc = getLinearLayout(cType);
    // kWidth elements adjacent along K per 32-bit register: m16n8k16 for
    // 16-bit elements, m16n8k32 for 8-bit ones, m16n8k8 for tf32.
    auto aDot = dyn_cast<tile::DotOperandLayoutAttr>(aType.getEncoding());
    int64_t w = aDot ? aDot.getKWidth() : 2;
    int64_t instK = aDot ? aDot.getInstructionK() : 16;
    int64_t M = lc.getShape()[0], N = lc.getShape()[1], K = aType.getDimSize(1);
    if (M % 16 || N % 8 || K % instK) {
      InFlightDiagnostic diag =
          op.emitError() << "mma: tiles must be multiples of 16 x 8 x " << instK
                         << " (M x N x K), got " << cType.getDimSize(0) << " x "
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
    Type i32 = rewriter.getI32Type();
    auto reg = [&](const LinearLayout &l, int64_t row, int64_t col) {
      auto r =
          l.findReg({row & (l.getShape()[0] - 1), col & (l.getShape()[1] - 1)});
      assert(r && "mma fragment not held by this thread");
      return *r;
    };
    // The register word of the w elements at (row, col) and on along K
    // (dimension kDim): a vector of two halves, or an i32 of two bf16 or
    // of four bytes.
    auto word = [&](ValueRange regs, const LinearLayout &l, int64_t row,
                    int64_t col, unsigned kDim) -> Value {
      auto vecType = VectorType::get(w, registerType(elt));
      Value vec = LLVM::UndefOp::create(rewriter, loc, vecType);
      for (int64_t e = 0; e < w; ++e)
        vec = LLVM::InsertElementOp::create(
            rewriter, loc, vec,
            regs[reg(l, row + (kDim == 0 ? e : 0), col + (kDim == 1 ? e : 0))],
            constI32(rewriter, loc, e));
      if (w == 2 && !isBF16)
        return vec;
      return LLVM::BitcastOp::create(rewriter, loc, i32, vec);
    };

    SmallVector<Value> acc(c.begin(), c.end());
    int64_t mTiles = std::max<int64_t>(1, M / (16 * wm));
    int64_t nTiles = std::max<int64_t>(1, N / (8 * wn));
    // i8 operands accumulate in i32 (s32), the rest in f32.
    bool int8 = elt.isInteger(8);
    Type accElt = int8 ? i32 : rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), {accElt, accElt, accElt, accElt});
    NVVM::MMATypes ptxType =
        isBF16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    // 8-bit operands: mma.sync.m16n8k32 with e4m3/e5m2 (sm_89 on) or s8
    // (sm_80 on, s32 accumulators); f32 ones: m16n8k8 with tf32 (sm_80
    // on). In PTX: the NVVM dialect has no dense 8-bit mma.sync, and the
    // operand counts are the same (four words of A, two of B).
    std::string bytesPtx, bytesConstraints;
    if (w != 2) {
      auto name = [](Type t) {
        if (t.isInteger(8))
          return std::string("s8");
        if (t.isF32())
          return std::string("tf32");
        return isa<Float8E5M2Type>(t) ? std::string("e5m2")
                                      : std::string("e4m3");
      };
      std::string acc = int8 ? "s32" : "f32";
      bytesPtx = "mma.sync.aligned.m16n8k" + std::to_string(instK) +
                 ".row.col." + acc + "." + name(elt) + "." +
                 name(bType.getElementType()) + "." + acc +
                 " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                 "{$10, $11, $12, $13};";
      bytesConstraints = int8 ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3"
                              : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    }
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
        for (int64_t k = 0; k < K; k += instK) {
          // a0 (row, k) | a1 (row + 8) | a2 (k + 4w) | a3; b0 (k) | b1.
          SmallVector<Value> fa = {word(a, la, row, k, 1),
                                   word(a, la, row + 8, k, 1),
                                   word(a, la, row, k + 4 * w, 1),
                                   word(a, la, row + 8, k + 4 * w, 1)};
          SmallVector<Value> fb = {word(b, lb, k, col, 0),
                                   word(b, lb, k + 4 * w, col, 0)};
          SmallVector<Value> fc = {acc[c0], acc[c1], acc[c2], acc[c3]};
          Value result;
          if (w != 2) {
            SmallVector<Value> operands(fa);
            llvm::append_range(operands, fb);
            llvm::append_range(operands, fc);
            result = LLVM::InlineAsmOp::create(
                         rewriter, loc, resultType, operands, bytesPtx,
                         bytesConstraints,
                         /*has_side_effects=*/false,
                         /*is_align_stack=*/false, LLVM::TailCallKind::None,
                         LLVM::AsmDialectAttr(), ArrayAttr())
                         .getResult(0);
          } else {
            result = NVVM::MmaOp::create(
                rewriter, loc, resultType, fa, fb, fc, {16, 8, 16},
                std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
          }
          for (auto [q, idx] :
               llvm::enumerate(std::array<unsigned, 4>{c0, c1, c2, c3}))
            acc[idx] = LLVM::ExtractValueOp::create(
                rewriter, loc, result, ArrayRef<int64_t>{(int64_t)q});
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
