//===- WgmmaPatterns.cpp - tile.wgmma to wgmma.mma_async (sm_90a) ---------===//
//
// The Hopper generation of the tensor-core multiply. A warpgroup (four
// consecutive warps) computes 64 x N blocks of the accumulator with
// `wgmma.mma_async.sync.aligned.m64nNk16` (k32 for 8-bit floats and i8, whose
// operands are K-major, with no transpose immediates; i8 accumulates in s32
// registers, with no scale immediates), reading B, and A when it
// is in shared memory, through 64-bit matrix descriptors:
//
//   bits  0-13  start address >> 4      bits 32-45  stride byte offset >> 4
//   bits 16-29  leading byte offset >> 4  bits 62-63  swizzle (1: 128 B,
//                                                      2: 64 B, 3: 32 B)
//
// A shared operand is laid out in blocks of `block` columns along its
// fastest dimension (#tile.shared<..., block = B>), each a row-major tile
// with rows of B elements (the swizzle width) whose 16-byte chunks are
// XOR-ed with the row, as the instruction's canonical swizzled layouts are.
// So the leading byte offset is the distance between blocks (used when an
// instruction spans several blocks: M/N-major operands), the stride byte
// offset that between groups of 8 rows, and the start address of each
// instruction's operand the unswizzled offset of its first element (the
// hardware swizzles from the address bits, which is why swizzled buffers
// are aligned to 1024 bytes). An operand is K-major (K fastest) or M/N-major
// (transposed, for 16-bit types).
//
// A held in registers (P * V in attention) is the RS form, which the NVVM
// dialect has no op for: every wgmma here is inline PTX, one form for both.
// A multiply is wgmma.fence, the instructions of every 64-row block and K
// step, and one commit group; a synchronous one also waits for its group,
// in inline asm that ties the accumulator registers, so nothing reads them
// before they are complete. An async one (tile-async-wgmma) leaves that to
// a tile.wgmma_wait, which ties the registers of the values it completes
// the same way.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "Tile/IR/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;

namespace {

/// How a shared operand is described to wgmma.
struct OperandDescriptor {
  uint64_t constant = 0; // leading/stride byte offsets and swizzle bits
  bool transposed = false;
  tile::SharedMemoryType type;
  unsigned elementBytes = 2;

  /// `kDim` is the operand's K dimension (1 for A, 0 for B).
  OperandDescriptor(tile::SharedMemoryType type, unsigned kDim) : type(type) {
    tile::SharedLayoutAttr layout = type.getLayout();
    elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    unsigned swizzle = layout.getHopperSwizzleBytes(elementBytes);
    unsigned f = layout.getOrder()[0], s = layout.getOrder()[1];
    transposed = f != kDim;
    int64_t rows = type.getStorageShape()[s];
    uint64_t leading = uint64_t(rows) * swizzle; // between blocks
    uint64_t stride = 8ull * swizzle;            // between 8-row groups
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    constant = ((leading >> 4) & 0x3FFF) << 16 |
               ((stride >> 4) & 0x3FFF) << 32 | mode << 62;
  }

  /// Unswizzled element offset of `coords` (rows a multiple of 8, columns
  /// of 16 bytes: where the swizzle is the identity).
  int64_t offset(ArrayRef<int64_t> coords) const {
    return unswizzledSharedOffset(type, coords);
  }

  /// The descriptor of the operand starting at byte address `address` (i32,
  /// shared window, 16-byte aligned).
  Value base(OpBuilder &b, Location loc, Value address) const {
    Value start = arith::ShRUIOp::create(b, loc, address, constI32(b, loc, 4));
    start = arith::AndIOp::create(b, loc, start, constI32(b, loc, 0x3FFF));
    Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), start);
    return arith::OrIOp::create(b, loc, wide,
                                constI64(b, loc, int64_t(constant)));
  }

  /// What to add to base()'s descriptor for the operand `elements` elements
  /// further on: the start address field counts 16 bytes, and a shared
  /// address plus an offset inside the same window stays within its 14 bits,
  /// so the sum never carries into the next field.
  int64_t step(int64_t elements) const {
    assert(elements * elementBytes % 16 == 0 && "unaligned wgmma operand");
    return elements * elementBytes / 16;
  }
};

/// PTX that sets the 64-bit register `name` to the descriptor operand `$n`
/// plus `step` (see OperandDescriptor::step), for use by the next line. The
/// instructions of one multiply share their operands' base descriptors, so
/// only those stay live in registers (a loop-invariant operand's would
/// otherwise be hoisted out of the loop, one register pair per instruction).
std::string descriptorAt(StringRef name, unsigned n, int64_t step) {
  return " add.s64 " + name.str() + ", $" + std::to_string(n) + ", " +
         std::to_string(step) + ";\n";
}

void emitAsm(OpBuilder &b, Location loc, StringRef text) {
  inlinePtx(b, loc, TypeRange(), ValueRange(), text, "");
}

/// How inline asm over accumulator registers takes their values: each
/// output in its input's register (tied), the outputs in registers of their
/// own (untied: the asm copies them), or no inputs at all (written only: a
/// multiply onto zeros, with scale-d false, reads no accumulator).
enum class AccIn { Tied, Untied, None };

/// Inline asm over the accumulator registers `acc` (f32, or i32 for an i8
/// multiply's), which it writes
/// (and reads, but with AccIn::None), with `inputs` after them; returns the
/// new accumulator values (`acc` gives only their number with AccIn::None).
SmallVector<Value> accumulatorAsm(OpBuilder &b, Location loc,
                                  ArrayRef<Value> acc, ArrayRef<Value> inputs,
                                  StringRef inputConstraints,
                                  const std::string &text,
                                  AccIn in = AccIn::Tied) {
  unsigned n = acc.size();
  Type accType = n ? acc.front().getType() : b.getF32Type();
  std::string reg = accType.isInteger(32) ? "r" : "f";
  std::string constraints;
  for (unsigned i = 0; i < n; ++i)
    constraints += (i ? ",=" : "=") + reg;
  if (in != AccIn::None)
    for (unsigned i = 0; i < n; ++i)
      constraints += "," + (in == AccIn::Tied ? std::to_string(i) : reg);
  if (!inputConstraints.empty())
    constraints += "," + inputConstraints.str();
  SmallVector<Value> operands;
  if (in != AccIn::None)
    operands.append(acc.begin(), acc.end());
  operands.append(inputs.begin(), inputs.end());
  SmallVector<Type> fields(n, accType);
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Operation *op = inlinePtx(b, loc, resultType, operands, text, constraints);
  SmallVector<Value> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, op->getResult(0),
                                               ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

/// Whether `op` continues the complete accumulator of a loop it follows:
/// its accumulator is one of the loop's results (through renaming layout
/// conversions), as the last trip's multiply that tile-rotate-wgmma issues
/// after the loop, and the loop does not yield it in flight (an async
/// multiply's result: its registers may not be read until a wait, so the
/// multiply after the loop chains on them as they are).
bool continuesLoop(tile::WarpgroupMmaOp op) {
  Value acc = tile::beforeRenaming(op.getAcc());
  auto loop = acc.getDefiningOp<scf::ForOp>();
  if (!loop)
    return false;
  Value yielded = tile::beforeRenaming(
      loop.getYieldedValues()[cast<OpResult>(acc).getResultNumber()]);
  auto mma = yielded.getDefiningOp<tile::WarpgroupMmaOp>();
  return !(mma && mma.getIsAsync());
}

/// The fence before a multiply, with the accumulator copied into registers
/// of its own first (in the same asm, so that nothing writes them between
/// the fence and the multiply). Tied to the loop's accumulator, the
/// multiply after a loop would make the loop's registers and the
/// epilogue's one register web for ptxas; copied, they are two, as they
/// are when the loop's result is rescaled before that multiply (at head
/// dim 128 ptxas otherwise spills and the loop runs 2% slower,
/// bench/results/2026-11-28-architecture-notes.md section 7.5.2).
SmallVector<Value> freshFence(OpBuilder &b, Location loc, ArrayRef<Value> acc) {
  std::string text;
  for (unsigned i = 0, n = acc.size(); i < n; ++i)
    text +=
        "mov.b32 $" + std::to_string(i) + ", $" + std::to_string(n + i) + ";\n";
  text += "wgmma.fence.sync.aligned;";
  return accumulatorAsm(b, loc, acc, {}, "", text, AccIn::Untied);
}

/// Whether `acc` is a tile of (positive) zeros: a multiply onto it need not
/// read it. Its first instruction of each output block then sets scale-d
/// false and takes no accumulator registers, so no instruction moves zeros
/// into them: ptxas serializes every wgmma (C7515) where such moves define
/// a wgmma's accumulator while another wgmma is in flight.
bool isZeroTile(Value acc) {
  Value v = tile::beforeRenaming(acc);
  return matchPattern(v, m_PosZeroFloat()) || matchPattern(v, m_Zero());
}

std::string operandList(unsigned first, unsigned count) {
  std::string s = "{";
  for (unsigned i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

struct WarpgroupMmaLowering : OpConversionPattern<tile::WarpgroupMmaOp> {
  /// `continuing`: the multiplies that continue a loop's accumulator
  /// (continuesLoop), `ontoZeros` those whose accumulator is zeros
  /// (isZeroTile), found before the conversion.
  WarpgroupMmaLowering(TileTypeConverter &converter, MLIRContext *ctx,
                       llvm::DenseSet<Operation *> continuing,
                       llvm::DenseSet<Operation *> ontoZeros)
      : OpConversionPattern(converter, ctx), continuing(std::move(continuing)),
        ontoZeros(std::move(ontoZeros)) {}
  llvm::DenseSet<Operation *> continuing, ontoZeros;

  LogicalResult
  matchAndRewrite(tile::WarpgroupMmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto accType = op.getAcc().getType();
    auto mma = cast<tile::MmaLayoutAttr>(accType.getEncoding());
    SmallVector<unsigned, 3> instr = mma.getInstrShapeOrDefault();
    // A padded accumulator: all its rows (the padding's rows are computed
    // too), its columns to the next multiple of 8; the operands' K exactly.
    LinearLayout lc = getLinearLayout(accType);
    int64_t M = lc.getShape()[0], N = llvm::alignTo(accType.getDimSize(1), 8);
    auto bType = op.getB().getType();
    // B's buffer holds K x N, or N x K with `transposed`: coordinates
    // (k, n) of B are bAt(k, n) in it.
    unsigned bK = op.getBKDim();
    // The multiply's K: B's, or an A in registers' with B read from row
    // k_offset (one K step of a multiply split along K).
    int64_t kOffset = op.getKOffset().value_or(0);
    int64_t K = op.getKOffset()
                    ? cast<RankedTensorType>(op.getA().getType()).getDimSize(1)
                    : bType.getShape()[bK];
    auto bAt = [&](int64_t k, int64_t n) -> SmallVector<int64_t, 2> {
      if (bK)
        return {n, k};
      return {k, n};
    };
    int64_t groups = mma.getWarpsPerCTA()[0] / 4;
    // Warpgroups along N (warpsPerCTA[1] > 1) each take `per` columns.
    int64_t wn = mma.getWarpsPerCTA()[1];
    int64_t per = N / wn;
    int64_t instrN = instr[1];
    // An instruction takes 32 bytes of K: 16 elements, 32 of 8 bits, 8 of
    // f32 (read as tf32).
    auto ptxType = [](Type t) -> std::string {
      if (t.isInteger(8))
        return "s8";
      if (t.isF32())
        return "tf32";
      if (isa<Float8E4M3FNType>(t))
        return "e4m3";
      if (isa<Float8E5M2Type>(t))
        return "e5m2";
      return t.isBF16() ? "bf16" : "f16";
    };
    auto aSmem = dyn_cast<tile::SharedMemoryType>(op.getA().getType());
    Type aElt = aSmem ? aSmem.getElementType()
                      : getElementTypeOrSelf(op.getA().getType());
    Type bElt = bType.getElementType();
    // 8-bit operands (floats or i8) and f32 ones (tf32): K-major, no
    // transpose immediates; i8 accumulates in s32 and takes no scale
    // immediates either.
    bool kMajor = tile::isKMajorMmaType(bElt);
    bool int8 = bElt.isInteger(8);
    int64_t kStep = 8 * tile::getMmaKWidth(bElt);
    if (M % (64 * groups) || N % wn || per % instrN || K % kStep ||
        (wn > 1 && lc.getShape()[1] != N))
      return op.emitError() << "wgmma: a " << M << " x " << N << " x " << K
                            << " multiply does not fit m64n" << instrN << "k"
                            << kStep << " instructions on " << groups
                            << " warpgroups along M and " << wn << " along N";
    std::string types = ptxType(aElt) + "." + ptxType(bElt);

    // This thread's warpgroup takes rows 64 * wgM of every 64 * groups and
    // columns per * wgN .. per * (wgN + 1) - 1 (the layout's warp bases:
    // those along M first). One warpgroup: 0.
    Value wg = groups * wn > 1 ? getWarpgroupIndex(rewriter, op)
                               : constI32(rewriter, loc, 0);
    Value wgM = wg, wgN;
    if (wn > 1) {
      Value g = constI32(rewriter, loc, groups);
      wgM = arith::RemUIOp::create(rewriter, loc, wg, g);
      wgN = arith::DivUIOp::create(rewriter, loc, wg, g);
    }

    OperandDescriptor descB(bType, bK);
    Value addrB = sharedAddress32(rewriter, loc, adaptor.getB().front());
    if (wn > 1) {
      // This warpgroup's columns of B: one byte offset for all of its
      // instructions, which holds where B's unswizzled offsets are linear
      // in the column across warpgroups and an N-major B's instructions
      // start at whole swizzle blocks (K-major B, or columns per warpgroup
      // a multiple of the swizzle block; tile-assign-layouts splits N only
      // then).
      int64_t shift = descB.offset(bAt(0, per));
      bool linear =
          !descB.transposed || per % int64_t(bType.getLayout().getBlock()) == 0;
      for (int64_t k = kOffset; k < kOffset + K; k += kStep)
        for (int64_t col = 0; col < per; col += instrN)
          linear &= descB.offset(bAt(k, col + per)) ==
                    descB.offset(bAt(k, col)) + shift;
      if (!linear)
        return op.emitError()
               << "wgmma: B's shared layout does not split into the " << wn
               << " warpgroups' " << per << "-column blocks";
      Value bytes = arith::MulIOp::create(
          rewriter, loc, wgN,
          constI32(rewriter, loc, shift * descB.elementBytes));
      addrB = arith::AddIOp::create(rewriter, loc, addrB, bytes);
    }

    std::optional<OperandDescriptor> descA;
    Value addrA;
    LinearLayout la(ArrayRef<int64_t>{});
    if (aSmem) {
      descA.emplace(aSmem, /*kDim=*/1);
      addrA = sharedAddress32(rewriter, loc, adaptor.getA().front());
      // This warpgroup's rows.
      Value rowsBytes = arith::MulIOp::create(
          rewriter, loc, wgM,
          constI32(rewriter, loc,
                   descA->offset({64, 0}) * descA->elementBytes));
      addrA = arith::AddIOp::create(rewriter, loc, addrA, rowsBytes);
    } else {
      la = getLinearLayout(op.getA().getType());
    }
    auto reg = [&](const LinearLayout &l, int64_t row, int64_t col) {
      auto r = l.findReg({row, col});
      assert(r && "wgmma fragment not held by this thread");
      return *r;
    };

    SmallVector<Value> acc(adaptor.getAcc().begin(), adaptor.getAcc().end());
    ValueRange aRegs = adaptor.getA();
    Value one = constI32(rewriter, loc, 1);
    // scale-d of each output block's first instruction: 0 onto zeros (no
    // accumulator read), else 1.
    bool fromZeros = ontoZeros.contains(op);
    Value firstScale = fromZeros ? constI32(rewriter, loc, 0) : one;
    Value baseA = aSmem ? descA->base(rewriter, loc, addrA) : Value();
    Value baseB = descB.base(rewriter, loc, addrB);

    // Every instruction's operands first (A's registers packed in 32-bit
    // words, and the base descriptors), so that no register that a wgmma
    // reads asynchronously is written between the fence and the last wgmma;
    // each instruction adds its own offset to the base descriptors inside
    // its asm (descriptors are read when the instruction issues).
    struct Instr {
      SmallVector<unsigned> dRegs; // accumulator registers, wgmma's order
      std::string text, constraints;
      SmallVector<Value> inputs;
      AccIn accIn;
    };
    SmallVector<Instr> instrs;
    for (int64_t i = 0; i < M / (64 * groups); ++i) {
      int64_t row = 64 * groups * i;
      for (int64_t j = 0; j < per / instrN; ++j) {
        int64_t col = instrN * j;
        // Per 8-column block: (r, c), (r, c + 1), (r + 8, c), (r + 8, c + 1).
        SmallVector<unsigned> dRegs;
        for (int64_t q = 0; q < instrN / 2; ++q)
          dRegs.push_back(
              reg(lc, row + 8 * ((q / 2) % 2), col + 8 * (q / 4) + (q % 2)));
        unsigned n = dRegs.size();
        for (int64_t k = 0; k < K; k += kStep) {
          Instr in;
          in.dRegs = dRegs;
          // The first instruction onto zeros reads no accumulator.
          in.accIn = fromZeros && k == 0 ? AccIn::None : AccIn::Tied;
          // The first input's operand number.
          unsigned next = in.accIn == AccIn::None ? n : 2 * n;
          std::string operands;
          in.text = "{\n .reg .pred p;\n .reg .b64 da, db;\n";
          if (aSmem) {
            in.inputs.push_back(baseA);
            in.text += descriptorAt("da", next++,
                                    descA->step(descA->offset({row, k})));
            operands = "da";
            in.constraints = "l,";
          } else {
            // A from registers: the m16k16 (8-bit: m16k32, tf32: m16k8)
            // fragment of each warp, as mma.sync takes it, in four 32-bit
            // words of kWidth elements adjacent along K.
            int64_t w = kStep / 8;
            for (auto [dr, dk] : {std::pair<int64_t, int64_t>{0, 0},
                                  {8, 0},
                                  {0, 4 * w},
                                  {8, 4 * w}}) {
              SmallVector<Value> word;
              for (int64_t e = 0; e < w; ++e)
                word.push_back(aRegs[reg(la, row + dr, k + dk + e)]);
              in.inputs.push_back(packWords(rewriter, loc, word).front());
            }
            operands = operandList(next, 4);
            next += 4;
            in.constraints = "r,r,r,r,";
          }
          in.inputs.push_back(baseB);
          in.text += descriptorAt(
              "db", next++, descB.step(descB.offset(bAt(kOffset + k, col))));
          // scale-d: whether D is added to the product.
          in.inputs.push_back(k == 0 ? firstScale : one);
          in.constraints += "l,r";
          // 8-bit and tf32 operands are K-major: no transpose immediates.
          std::string transposes =
              kMajor
                  ? std::string()
                  : ", " +
                        (aSmem ? std::string(descA->transposed ? "1, " : "0, ")
                               : std::string()) +
                        (descB.transposed ? "1" : "0");
          in.text += " setp.ne.b32 p, $" + std::to_string(next) +
                     ", 0;\n wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(instrN) + "k" + std::to_string(kStep) +
                     (int8 ? ".s32." : ".f32.") + types + " " +
                     operandList(0, n) + ", " + operands +
                     (int8 ? ", db, p" : ", db, p, 1, 1" + transposes) + ";\n}";
          instrs.push_back(std::move(in));
        }
      }
    }
    // The registers the instructions write: a padded accumulator's padding
    // is left out of the fence and the wait (no register kept for it).
    SmallVector<unsigned> written;
    for (Instr &in : instrs)
      for (unsigned r : in.dRegs)
        if (!llvm::is_contained(written, r))
          written.push_back(r);
    llvm::sort(written);
    auto onWritten = [&](auto fn) {
      SmallVector<Value> regs;
      for (unsigned r : written)
        regs.push_back(acc[r]);
      regs = fn(regs);
      for (auto [r, v] : llvm::zip(written, regs))
        acc[r] = v;
    };
    if (continuing.contains(op))
      onWritten([&](ArrayRef<Value> regs) {
        return freshFence(rewriter, loc, regs);
      });
    else
      emitAsm(rewriter, loc, "wgmma.fence.sync.aligned;");
    for (Instr &in : instrs) {
      SmallVector<Value> d;
      for (unsigned r : in.dRegs)
        d.push_back(acc[r]);
      d = accumulatorAsm(rewriter, loc, d, in.inputs, in.constraints, in.text,
                         in.accIn);
      for (auto [r, v] : llvm::zip(in.dRegs, d))
        acc[r] = v;
    }
    emitAsm(rewriter, loc, "wgmma.commit_group.sync.aligned;");
    if (!op.getIsAsync())
      onWritten([&](ArrayRef<Value> regs) {
        return accumulatorAsm(rewriter, loc, regs, {}, "",
                              "wgmma.wait_group.sync.aligned 0;");
      });
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

/// `wgmma.wait_group N`, with the registers of every value it completes
/// tied to it (read and written by the asm), so that nothing reads them
/// before it.
struct WgmmaWaitLowering : OpConversionPattern<tile::WgmmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::WgmmaWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Every register of the values, but a padded tile's padding.
    SmallVector<Value> regs;
    SmallVector<std::pair<unsigned, unsigned>> where; // (value, register)
    for (auto [i, v] : llvm::enumerate(adaptor.getValues())) {
      auto type = dyn_cast<RankedTensorType>(op.getValues()[i].getType());
      std::optional<LinearLayout> layout;
      if (type && tile::isPadded(type.getShape()))
        layout = getLinearLayout(type);
      for (auto [r, reg] : llvm::enumerate(v)) {
        if (layout && isPaddingRegister(*layout, type.getShape(), r))
          continue;
        regs.push_back(reg);
        where.push_back({unsigned(i), unsigned(r)});
      }
    }
    std::string text = "wgmma.wait_group.sync.aligned " +
                       std::to_string(op.getPending()) + ";";
    if (regs.empty()) {
      emitAsm(rewriter, op.getLoc(), text);
      SmallVector<SmallVector<Value>> same;
      for (ValueRange v : adaptor.getValues())
        same.emplace_back(v.begin(), v.end());
      rewriter.replaceOpWithMultiple(op, same);
      return success();
    }
    regs = accumulatorAsm(rewriter, op.getLoc(), regs, {}, "", text);
    SmallVector<SmallVector<Value>> results;
    for (ValueRange v : adaptor.getValues())
      results.emplace_back(v.begin(), v.end());
    for (auto [w, reg] : llvm::zip(where, regs))
      results[w.first][w.second] = reg;
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct FenceAsyncSharedLowering
    : OpConversionPattern<tile::FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitAsm(rewriter, op.getLoc(), "fence.proxy.async.shared::cta;");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::populateWgmmaPatterns(TileTypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  Operation *root) {
  // Looked at here: the conversion moves a loop's body into the loop that
  // replaces it, so a pattern could not follow a result to its yield.
  llvm::DenseSet<Operation *> continuing, ontoZeros;
  root->walk([&](tile::WarpgroupMmaOp op) {
    if (continuesLoop(op))
      continuing.insert(op);
    if (isZeroTile(op.getAcc()))
      ontoZeros.insert(op);
  });
  patterns.add<WarpgroupMmaLowering>(converter, patterns.getContext(),
                                     std::move(continuing),
                                     std::move(ontoZeros));
  patterns.add<WgmmaWaitLowering, FenceAsyncSharedLowering>(
      converter, patterns.getContext());
}
