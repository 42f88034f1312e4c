//===- LinearLayout.cpp - Layouts as linear maps --------------------------===//

#include "Tile/IR/LinearLayout.h"
#include "Tile/IR/TileTypes.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;

using Basis = LinearLayout::Basis;

std::string LinearLayout::dimName(unsigned d) {
  return "dim" + std::to_string(d);
}

LinearLayout::LinearLayout(ArrayRef<int64_t> shape) {
  for (StringRef name : {kRegister, kLane, kWarp, kBlock})
    ins.push_back({name.str(), {}});
  for (unsigned d = 0; d < shape.size(); ++d) {
    outNames.push_back(dimName(d));
    outSizes.push_back(shape[d]);
  }
}

LinearLayout::LinearLayout(SmallVector<InDim> inDims,
                           ArrayRef<std::pair<std::string, int64_t>> outDims)
    : ins(inDims.begin(), inDims.end()) {
  for (const auto &[name, size] : outDims) {
    assert(size > 0 && llvm::isPowerOf2_64(size) && "sizes are powers of two");
    outNames.push_back(name);
    outSizes.push_back(size);
  }
#ifndef NDEBUG
  for (const InDim &in : ins)
    for (const Basis &b : in.bases)
      assert(b.size() == outSizes.size() && "a value per output dimension");
#endif
}

LinearLayout LinearLayout::identity1D(int64_t size, StringRef inDim,
                                      StringRef outDim) {
  assert(size > 0 && llvm::isPowerOf2_64(size));
  InDim in{inDim.str(), {}};
  for (int64_t v = 1; v < size; v *= 2)
    in.bases.push_back({v});
  return LinearLayout({in}, {{outDim.str(), size}});
}

LinearLayout LinearLayout::zeros1D(int64_t size, StringRef inDim,
                                   StringRef outDim) {
  assert(size > 0 && llvm::isPowerOf2_64(size));
  InDim in{inDim.str(), {}};
  for (int64_t v = 1; v < size; v *= 2)
    in.bases.push_back({0});
  return LinearLayout({in}, {{outDim.str(), 1}});
}

LinearLayout LinearLayout::operator*(const LinearLayout &other) const {
  // Output dimensions: ours, then other's new ones; other's values go above
  // ours in a dimension both have.
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (unsigned d = 0; d < getRank(); ++d)
    outs.push_back({outNames[d], outSizes[d]});
  SmallVector<unsigned> otherOut;
  SmallVector<unsigned> otherShift;
  for (unsigned d = 0; d < other.getRank(); ++d) {
    if (auto i = outDimIndex(other.outNames[d])) {
      otherOut.push_back(*i);
      otherShift.push_back(llvm::Log2_64(outSizes[*i]));
      outs[*i].second *= other.outSizes[d];
    } else {
      otherOut.push_back(outs.size());
      otherShift.push_back(0);
      outs.push_back({other.outNames[d], other.outSizes[d]});
    }
  }
  SmallVector<InDim> result;
  for (const InDim &in : ins) {
    InDim r{in.name, {}};
    for (const Basis &b : in.bases) {
      Basis e(outs.size(), 0);
      llvm::copy(b, e.begin());
      r.bases.push_back(e);
    }
    result.push_back(r);
  }
  for (const InDim &in : other.ins) {
    auto it = llvm::find_if(result,
                            [&](const InDim &r) { return r.name == in.name; });
    if (it == result.end()) {
      result.push_back({in.name, {}});
      it = std::prev(result.end());
    }
    for (const Basis &b : in.bases) {
      Basis e(outs.size(), 0);
      for (unsigned d = 0; d < b.size(); ++d)
        e[otherOut[d]] = b[d] << otherShift[d];
      it->bases.push_back(e);
    }
  }
  return LinearLayout(std::move(result), outs);
}

//===----------------------------------------------------------------------===//
// Dimensions and bases
//===----------------------------------------------------------------------===//

SmallVector<StringRef> LinearLayout::getInDimNames() const {
  SmallVector<StringRef> names;
  for (const InDim &in : ins)
    names.push_back(in.name);
  return names;
}

SmallVector<StringRef> LinearLayout::getOutDimNames() const {
  SmallVector<StringRef> names;
  for (const std::string &n : outNames)
    names.push_back(n);
  return names;
}

std::optional<unsigned> LinearLayout::inDimIndex(StringRef name) const {
  for (unsigned i = 0; i < ins.size(); ++i)
    if (ins[i].name == name)
      return i;
  return std::nullopt;
}

std::optional<unsigned> LinearLayout::outDimIndex(StringRef name) const {
  for (unsigned i = 0; i < outNames.size(); ++i)
    if (outNames[i] == name)
      return i;
  return std::nullopt;
}

unsigned LinearLayout::getTotalInBits() const {
  unsigned n = 0;
  for (const InDim &in : ins)
    n += in.bases.size();
  return n;
}

unsigned LinearLayout::getTotalOutBits() const {
  unsigned n = 0;
  for (int64_t s : outSizes)
    n += llvm::Log2_64(s);
  return n;
}

ArrayRef<Basis> LinearLayout::getBases(StringRef inDim) const {
  if (auto i = inDimIndex(inDim))
    return ins[*i].bases;
  return {};
}

SmallVector<Basis> &LinearLayout::bases(StringRef inDim) {
  regIndex.clear();
  if (auto i = inDimIndex(inDim))
    return ins[*i].bases;
  ins.push_back({inDim.str(), {}});
  return ins.back().bases;
}

//===----------------------------------------------------------------------===//
// The map
//===----------------------------------------------------------------------===//

Basis LinearLayout::apply(ArrayRef<int64_t> inValues) const {
  assert(inValues.size() <= ins.size() && "a value per input dimension");
  Basis out(getRank(), 0);
  for (unsigned i = 0; i < inValues.size(); ++i) {
    const SmallVector<Basis> &bs = ins[i].bases;
    assert((inValues[i] >> bs.size()) == 0 && "input value out of range");
    for (unsigned j = 0; j < bs.size(); ++j)
      if ((inValues[i] >> j) & 1)
        for (unsigned d = 0; d < out.size(); ++d)
          out[d] ^= bs[j][d];
  }
  return out;
}

Basis LinearLayout::apply(
    ArrayRef<std::pair<StringRef, int64_t>> inValues) const {
  SmallVector<int64_t> values(ins.size(), 0);
  for (const auto &[name, v] : inValues) {
    auto i = inDimIndex(name);
    assert((i || v == 0) && "no such input dimension");
    if (i)
      values[*i] = v;
  }
  return apply(values);
}

Basis LinearLayout::regCoords(unsigned r) const {
  Basis c(getRank(), 0);
  ArrayRef<Basis> rs = regs();
  for (unsigned i = 0; i < rs.size(); ++i)
    if (r & (1u << i))
      for (unsigned d = 0; d < c.size(); ++d)
        c[d] ^= rs[i][d];
  return c;
}

uint64_t LinearLayout::toBits(ArrayRef<int64_t> outValues) const {
  uint64_t bits = 0;
  unsigned shift = 0;
  for (unsigned d = 0; d < getRank(); ++d) {
    assert(outValues[d] >= 0 && outValues[d] < outSizes[d] &&
           "value out of its dimension: normalize first");
    bits |= uint64_t(outValues[d]) << shift;
    shift += llvm::Log2_64(outSizes[d]);
  }
  return bits;
}

Basis LinearLayout::fromBits(uint64_t bits) const {
  Basis out;
  for (unsigned d = 0; d < getRank(); ++d) {
    unsigned n = llvm::Log2_64(outSizes[d]);
    out.push_back(int64_t(bits & ((uint64_t(1) << n) - 1)));
    bits >>= n;
  }
  return out;
}

SmallVector<uint64_t> LinearLayout::columns() const {
  assert(getTotalInBits() <= 64 && getTotalOutBits() <= 64);
  SmallVector<uint64_t> cols;
  for (const InDim &in : ins)
    for (const Basis &b : in.bases)
      cols.push_back(toBits(b));
  return cols;
}

namespace {
/// A subspace of GF(2)^64 in row echelon form (distinct highest bits, in
/// decreasing order), each vector with the set of columns it is the XOR of.
/// Columns added first are preferred: a later column that is a combination
/// of earlier ones is dropped.
class Span {
public:
  /// Adds column `index` of value `v`; false when it is dependent.
  bool add(uint64_t v, unsigned index) {
    uint64_t combo = uint64_t(1) << index;
    reduce(v, combo);
    if (!v)
      return false;
    unsigned pivot = llvm::Log2_64(v);
    auto it =
        llvm::find_if(rows, [&](const Row &r) { return r.pivot < pivot; });
    rows.insert(it, Row{v, combo, pivot});
    return true;
  }
  /// The columns whose XOR is `t`, if any.
  std::optional<uint64_t> solve(uint64_t t) const {
    uint64_t combo = 0;
    reduce(t, combo);
    if (t)
      return std::nullopt;
    return combo;
  }
  unsigned rank() const { return rows.size(); }

private:
  struct Row {
    uint64_t v, combo;
    unsigned pivot;
  };
  SmallVector<Row> rows;
  void reduce(uint64_t &v, uint64_t &combo) const {
    for (const Row &r : rows)
      if ((v >> r.pivot) & 1) {
        v ^= r.v;
        combo ^= r.combo;
      }
  }
};

/// The span of the columns of `l`, in order.
Span spanOf(ArrayRef<uint64_t> cols) {
  Span s;
  for (unsigned i = 0; i < cols.size(); ++i)
    s.add(cols[i], i);
  return s;
}

/// A set of input bits (columns) split into one value per input dimension.
Basis splitInBits(const LinearLayout &l, uint64_t combo) {
  Basis values;
  for (const LinearLayout::InDim &in : l.getInDims()) {
    unsigned n = in.bases.size();
    values.push_back(int64_t(combo & ((n == 64 ? 0 : uint64_t(1) << n) - 1)));
    combo = n == 64 ? 0 : combo >> n;
  }
  return values;
}

SmallVector<std::pair<std::string, int64_t>>
inDimsAsOutDims(const LinearLayout &l) {
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (const LinearLayout::InDim &in : l.getInDims())
    outs.push_back({in.name, int64_t(1) << in.bases.size()});
  return outs;
}
} // namespace

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  SmallVector<InDim> result;
  for (const InDim &in : ins) {
    InDim r{in.name, {}};
    for (const Basis &b : in.bases) {
      SmallVector<std::pair<StringRef, int64_t>> named;
      for (unsigned d = 0; d < getRank(); ++d) {
        assert(outer.hasInDim(outNames[d]) &&
               outer.getInDimSize(outNames[d]) >= outSizes[d] &&
               "outer's inputs must cover this layout's outputs");
        named.push_back({outNames[d], b[d]});
      }
      r.bases.push_back(outer.apply(named));
    }
    result.push_back(std::move(r));
  }
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (unsigned d = 0; d < outer.getRank(); ++d)
    outs.push_back({outer.outNames[d], outer.outSizes[d]});
  return LinearLayout(std::move(result), outs);
}

unsigned LinearLayout::getMatrixRank() const {
  return spanOf(columns()).rank();
}

LinearLayout LinearLayout::pseudoInvert() const {
  assert(isSurjective() && "only a surjective layout has a right inverse");
  Span span = spanOf(columns());
  SmallVector<InDim> result;
  for (unsigned d = 0; d < getRank(); ++d) {
    InDim r{outNames[d], {}};
    for (int64_t v = 1; v < outSizes[d]; v *= 2) {
      Basis unitOut(getRank(), 0);
      unitOut[d] = v;
      std::optional<uint64_t> combo = span.solve(toBits(unitOut));
      assert(combo && "surjective");
      r.bases.push_back(splitInBits(*this, *combo));
    }
    result.push_back(std::move(r));
  }
  return LinearLayout(std::move(result), inDimsAsOutDims(*this));
}

LinearLayout LinearLayout::invert() const {
  assert(isInvertible() && "only a bijective layout has an inverse");
  return pseudoInvert();
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &other) const {
  if (outNames != other.outNames || outSizes != other.outSizes)
    return std::nullopt;
  Span span = spanOf(other.columns());
  SmallVector<InDim> result;
  for (const InDim &in : ins) {
    InDim r{in.name, {}};
    for (const Basis &b : in.bases) {
      std::optional<uint64_t> combo = span.solve(toBits(b));
      if (!combo)
        return std::nullopt;
      r.bases.push_back(splitInBits(other, *combo));
    }
    result.push_back(std::move(r));
  }
  return LinearLayout(std::move(result), inDimsAsOutDims(other));
}

//===----------------------------------------------------------------------===//
// Helpers of the lowering
//===----------------------------------------------------------------------===//

void LinearLayout::normalize() {
  auto wrap = [&](Basis &b) {
    for (unsigned d = 0; d < getRank(); ++d)
      b[d] &= outSizes[d] - 1; // shapes are powers of two
  };
  for (InDim &in : ins) {
    if (in.name != kRegister) {
      for (Basis &b : in.bases)
        wrap(b);
      continue;
    }
    SmallVector<Basis> kept;
    for (Basis &b : in.bases) {
      wrap(b);
      bool zero = llvm::all_of(b, [](int64_t x) { return x == 0; });
      if (!zero && !llvm::is_contained(kept, b))
        kept.push_back(b);
    }
    in.bases = std::move(kept);
  }
  regIndex.clear();
}

int64_t LinearLayout::flatten(ArrayRef<int64_t> coords) const {
  int64_t flat = 0;
  for (unsigned d = 0; d < getRank(); ++d)
    flat = flat * outSizes[d] + coords[d];
  return flat;
}

std::optional<unsigned> LinearLayout::findReg(ArrayRef<int64_t> coords) const {
  if (regIndex.empty())
    for (unsigned r = 0; r < getNumRegs(); ++r)
      regIndex.try_emplace(flatten(regCoords(r)), r);
  auto it = regIndex.find(flatten(coords));
  if (it == regIndex.end())
    return std::nullopt;
  return it->second;
}

std::optional<SmallVector<unsigned>>
LinearLayout::subTileRegs(const LinearLayout &sub,
                          ArrayRef<int64_t> offsets) const {
  if (lanes() != sub.lanes() || warps() != sub.warps())
    return std::nullopt;
  SmallVector<unsigned> regs;
  for (unsigned r = 0; r < sub.getNumRegs(); ++r) {
    Basis c = sub.regCoords(r);
    for (unsigned d = 0; d < c.size(); ++d)
      c[d] += offsets[d];
    std::optional<unsigned> reg = findReg(c);
    if (!reg)
      return std::nullopt;
    regs.push_back(*reg);
  }
  // The registers were matched in thread 0; a thread's elements are its
  // registers' coordinates XOR its lane's and warp's, and XOR commutes with
  // adding the offsets only where the bits do not carry into each other
  // (offsets multiples of a power-of-two sub-tile's shape): check the others.
  bool aligned = true;
  for (unsigned d = 0; d < offsets.size(); ++d)
    aligned =
        aligned && sub.getShape()[d] && offsets[d] % sub.getShape()[d] == 0;
  if (aligned)
    return regs;
  SmallVector<Basis> threadBases(lanes());
  llvm::append_range(threadBases, warps());
  for (uint64_t t = 1; t < (uint64_t(1) << threadBases.size()); ++t) {
    Basis at(getRank(), 0);
    for (unsigned i = 0; i < threadBases.size(); ++i)
      if ((t >> i) & 1)
        for (unsigned d = 0; d < at.size(); ++d)
          at[d] ^= threadBases[i][d];
    for (unsigned r = 0; r < sub.getNumRegs(); ++r) {
      Basis inSub = sub.regCoords(r);
      Basis inTile = regCoords(regs[r]);
      for (unsigned d = 0; d < at.size(); ++d)
        if (((inSub[d] ^ at[d]) + offsets[d]) != (inTile[d] ^ at[d]))
          return std::nullopt;
    }
  }
  return regs;
}

LinearLayout LinearLayout::zeroDims(ArrayRef<bool> dims,
                                    ArrayRef<int64_t> newShape) const {
  SmallVector<InDim> result;
  for (const InDim &in : ins) {
    InDim r{in.name, in.bases};
    for (Basis &b : r.bases)
      for (unsigned d = 0; d < dims.size(); ++d)
        if (dims[d])
          b[d] = 0;
    result.push_back(std::move(r));
  }
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (unsigned d = 0; d < newShape.size(); ++d)
    outs.push_back({outNames[d], newShape[d]});
  LinearLayout out(std::move(result), outs);
  out.normalize();
  return out;
}

LinearLayout LinearLayout::keepBits(unsigned dim, int64_t kept) const {
  SmallVector<InDim> result;
  for (const InDim &in : ins) {
    InDim r{in.name, in.bases};
    for (Basis &b : r.bases)
      b[dim] = extractBits(b[dim], kept);
    result.push_back(std::move(r));
  }
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (unsigned d = 0; d < getRank(); ++d)
    outs.push_back(
        {outNames[d], d == dim ? int64_t(1) << llvm::popcount(uint64_t(kept))
                               : outSizes[d]});
  LinearLayout out(std::move(result), outs);
  out.normalize();
  return out;
}

int64_t tile::extractBits(int64_t value, int64_t mask) {
  int64_t out = 0;
  for (unsigned i = 0, j = 0; i < 63; ++i)
    if (mask & (int64_t(1) << i))
      out |= ((value >> i) & 1) << j++;
  return out;
}

int64_t tile::depositBits(int64_t value, int64_t mask) {
  int64_t out = 0;
  for (unsigned i = 0, j = 0; i < 63; ++i)
    if (mask & (int64_t(1) << i))
      out |= ((value >> j++) & 1) << i;
  return out;
}

void LinearLayout::print(raw_ostream &os) const {
  llvm::interleaveComma(ins, os, [&](const InDim &in) {
    os << in.name << " = [";
    llvm::interleaveComma(in.bases, os, [&](const Basis &b) {
      os << "(";
      llvm::interleaveComma(b, os);
      os << ")";
    });
    os << "]";
  });
  os << " -> ";
  for (unsigned d = 0; d < getRank(); ++d)
    os << (d ? ", " : "") << outNames[d] << " = " << outSizes[d];
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

std::optional<LayoutConversion>
mlir::tile::getConversion(const LinearLayout &src, const LinearLayout &dst) {
  if (src.getShape() != dst.getShape() ||
      src.getOutDimNames() != dst.getOutDimNames())
    return std::nullopt;
  SmallVector<uint64_t> cols = src.columns();
  // The source's input bits, by dimension.
  SmallVector<unsigned> firstBit;
  unsigned n = 0;
  for (const LinearLayout::InDim &in : src.getInDims()) {
    firstBit.push_back(n);
    n += in.bases.size();
  }
  auto bitsOf = [&](ArrayRef<StringRef> dims) {
    SmallVector<unsigned> bits;
    for (StringRef d : dims)
      if (auto i = src.inDimIndex(d))
        for (unsigned j = 0; j < src.getInDims()[*i].bases.size(); ++j)
          bits.push_back(firstBit[*i] + j);
    return bits;
  };
  auto spanOfBits = [&](ArrayRef<unsigned> bits) {
    Span s;
    for (unsigned b : bits)
      s.add(cols[b], b);
    return s;
  };
  // Where an element may come from, from the closest: the thread's own
  // registers, its warp's, anywhere.
  Span inThread = spanOfBits(bitsOf({LinearLayout::kRegister}));
  Span inWarp =
      spanOfBits(bitsOf({LinearLayout::kRegister, LinearLayout::kLane}));
  Span anywhere = spanOf(cols);
  // The level at which bit j of a thread dimension stays the same thread:
  // Registers for lanes, warps and blocks; the warp level for warps and
  // blocks.
  auto ownBit = [&](StringRef dim, unsigned j) -> std::optional<unsigned> {
    auto i = src.inDimIndex(dim);
    if (!i || j >= src.getInDims()[*i].bases.size())
      return std::nullopt;
    return firstBit[*i] + j;
  };

  ConversionKind kind = ConversionKind::Registers;
  SmallVector<LinearLayout::InDim> mapDims;
  for (const LinearLayout::InDim &in : dst.getInDims()) {
    LinearLayout::InDim m{in.name, {}};
    bool isReg = in.name == LinearLayout::kRegister;
    bool isLane = in.name == LinearLayout::kLane;
    bool isWarpOrBlock =
        in.name == LinearLayout::kWarp || in.name == LinearLayout::kBlock;
    for (auto [j, b] : llvm::enumerate(in.bases)) {
      Basis wrapped(b);
      for (unsigned d = 0; d < wrapped.size(); ++d)
        wrapped[d] &= dst.getShape()[d] - 1;
      uint64_t y = 0;
      unsigned shift = 0;
      for (unsigned d = 0; d < wrapped.size(); ++d) {
        y |= uint64_t(wrapped[d]) << shift;
        shift += llvm::Log2_64(dst.getShape()[d]);
      }
      std::optional<unsigned> own =
          isReg ? std::nullopt : ownBit(in.name, unsigned(j));
      // Solves src(own bit ^ combination of `span`) == y.
      auto tryIn = [&](const Span &span,
                       bool withOwn) -> std::optional<uint64_t> {
        if (withOwn && !own)
          return std::nullopt;
        uint64_t ownMask = withOwn ? uint64_t(1) << *own : 0;
        auto combo = span.solve(withOwn ? y ^ cols[*own] : y);
        if (!combo)
          return std::nullopt;
        return *combo ^ ownMask;
      };
      std::optional<uint64_t> combo;
      ConversionKind level = ConversionKind::Registers;
      if (isReg)
        combo = tryIn(inThread, false);
      else if (isLane || isWarpOrBlock)
        combo = tryIn(inThread, true);
      if (!combo) {
        level = ConversionKind::WarpShuffle;
        if (isReg || isLane)
          combo = tryIn(inWarp, false);
        else if (isWarpOrBlock)
          combo = tryIn(inWarp, true);
      }
      if (!combo) {
        level = ConversionKind::SharedMemory;
        combo = anywhere.solve(y);
      }
      if (!combo)
        return std::nullopt; // src does not hold this element
      kind = std::max(kind, level);
      m.bases.push_back(splitInBits(src, *combo));
    }
    mapDims.push_back(std::move(m));
  }
  LayoutConversion result{
      kind, LinearLayout(std::move(mapDims), inDimsAsOutDims(src)),
      std::nullopt};
  if (kind != ConversionKind::Registers)
    return result;
  // A register permutation when no thread bit moves registers.
  auto srcReg = src.inDimIndex(LinearLayout::kRegister);
  for (const LinearLayout::InDim &in : result.map.getInDims())
    if (in.name != LinearLayout::kRegister && srcReg)
      for (const Basis &b : in.bases)
        if (b[*srcReg] != 0)
          return result;
  SmallVector<unsigned> regMap;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r)
    regMap.push_back(srcReg ? unsigned(result.map.apply(
                                  {{LinearLayout::kRegister, r}})[*srcReg])
                            : 0);
  result.registerMap = std::move(regMap);
  return result;
}

static uint64_t applyMasks(ArrayRef<uint64_t> columns, uint64_t bits) {
  uint64_t out = 0;
  for (auto [i, c] : llvm::enumerate(columns))
    if (bits >> i & 1)
      out ^= c;
  return out;
}

uint64_t WarpShufflePlan::srcRegOf(uint64_t dstReg) const {
  return applyMasks(srcReg, dstReg);
}
uint64_t WarpShufflePlan::srcLaneOf(uint64_t dstReg) const {
  return applyMasks(srcLane, dstReg);
}
uint64_t WarpShufflePlan::twistOf(uint64_t lane) const {
  return applyMasks(twist, lane);
}
uint64_t WarpShufflePlan::readLaneOf(uint64_t lane) const {
  return applyMasks(readLane, lane);
}
uint64_t WarpShufflePlan::sendRegOf(uint64_t lane) const {
  return applyMasks(sendReg, lane);
}

/// Bit k of `i` at bit positions[k].
static uint64_t scatterBits(ArrayRef<unsigned> positions, uint64_t i) {
  SmallVector<uint64_t> columns;
  for (unsigned bit : positions)
    columns.push_back(uint64_t(1) << bit);
  return applyMasks(columns, i);
}

uint64_t WarpShufflePlan::packOffset(uint64_t u) const {
  return scatterBits(packBits, u);
}
uint64_t WarpShufflePlan::roundRegs(uint64_t i) const {
  return scatterBits(roundBits, i);
}

uint64_t WarpShufflePlan::keptLaneBits() const {
  uint64_t kept = 0;
  for (auto [j, p] : llvm::enumerate(readLane))
    if (p == uint64_t(1) << j)
      kept |= p;
  return kept;
}

bool WarpShufflePlan::readsOwnLane(uint64_t r0) const {
  return !srcLaneOf(r0) &&
         keptLaneBits() == (uint64_t(1) << readLane.size()) - 1;
}

unsigned WarpShufflePlan::numShuffles() const {
  unsigned n = 0;
  for (uint64_t i = 0; i < (uint64_t(1) << roundBits.size()); ++i)
    n += !readsOwnLane(roundRegs(i));
  return n;
}

std::optional<WarpShufflePlan>
mlir::tile::getWarpShufflePlan(const LinearLayout &src, const LinearLayout &dst,
                               unsigned elementBits) {
  if (elementBits < 8 || elementBits > 32 || 32 % elementBits)
    return std::nullopt;
  std::optional<LayoutConversion> conv = getConversion(src, dst);
  if (!conv || conv->kind != ConversionKind::WarpShuffle)
    return std::nullopt;
  const LinearLayout &map = conv->map;
  unsigned laneBits = dst.lanes().size();
  if (src.lanes().size() != laneBits || laneBits > 5)
    return std::nullopt;
  auto component = [&](const Basis &b, StringRef dim) -> uint64_t {
    auto i = map.outDimIndex(dim);
    return i ? uint64_t(b[*i]) : 0;
  };
  // Warps (and blocks) read their own: each bit maps to itself only.
  for (StringRef dim : {LinearLayout::kWarp, LinearLayout::kBlock})
    for (auto [j, b] : llvm::enumerate(map.getBases(dim)))
      for (StringRef out : map.getOutDimNames())
        if (component(b, out) != (out == dim ? uint64_t(1) << j : 0))
          return std::nullopt;

  WarpShufflePlan plan;
  plan.elementBits = elementBits;
  for (const Basis &b : map.getBases(LinearLayout::kRegister)) {
    plan.srcReg.push_back(component(b, LinearLayout::kRegister));
    plan.srcLane.push_back(component(b, LinearLayout::kLane));
  }
  SmallVector<uint64_t> laneReg, laneLane; // B and D
  for (const Basis &b : map.getBases(LinearLayout::kLane)) {
    laneReg.push_back(component(b, LinearLayout::kRegister));
    laneLane.push_back(component(b, LinearLayout::kLane));
  }
  // Register bits that stay in their lane, packed into words.
  unsigned maxPack = llvm::Log2_32(32 / elementBits);
  for (auto [i, c] : llvm::enumerate(plan.srcLane)) {
    if (c == 0 && plan.packBits.size() < maxPack)
      plan.packBits.push_back(i);
    else
      plan.roundBits.push_back(i);
  }

  // The twist: the fewest lane bits (at most two), each given a distinct
  // round bit, that make P = C E ^ D a permutation of the lanes.
  SmallVector<uint64_t> e(laneBits, 0);
  auto tryTwist = [&]() {
    SmallVector<uint64_t> p(laneBits);
    for (unsigned j = 0; j < laneBits; ++j)
      p[j] = laneLane[j] ^ applyMasks(plan.srcLane, e[j]);
    if (spanOf(p).rank() != laneBits)
      return false;
    plan.twist = e;
    plan.readLane = std::move(p);
    return true;
  };
  std::function<bool(unsigned, unsigned)> search = [&](unsigned left,
                                                       unsigned from) {
    if (left == 0)
      return tryTwist();
    for (unsigned j = from; j < laneBits; ++j)
      for (unsigned i : plan.roundBits) {
        uint64_t bit = uint64_t(1) << i;
        if (llvm::is_contained(e, bit))
          continue;
        e[j] = bit;
        if (search(left - 1, j + 1))
          return true;
        e[j] = 0;
      }
    return false;
  };
  if (!search(0, 0) && !search(1, 0) && !search(2, 0))
    return std::nullopt;
  // G = (A E ^ B) P^-1.
  Span lanes = spanOf(plan.readLane);
  for (unsigned k = 0; k < laneBits; ++k) {
    uint64_t inverse = *lanes.solve(uint64_t(1) << k);
    uint64_t g = 0;
    for (unsigned j = 0; j < laneBits; ++j)
      if (inverse >> j & 1)
        g ^= plan.srcRegOf(plan.twist[j]) ^ laneReg[j];
    plan.sendReg.push_back(g);
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Shared memory layouts
//===----------------------------------------------------------------------===//

/// The coordinates of row bit `j` of a buffer whose rows run over
/// `order[1..]` (the first of them fastest).
static Basis rowBitCoords(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                          unsigned j) {
  Basis c(shape.size(), 0);
  for (unsigned i = 1; i < order.size(); ++i) {
    unsigned bits = llvm::Log2_64(shape[order[i]]);
    if (j < bits) {
      c[order[i]] = int64_t(1) << j;
      return c;
    }
    j -= bits;
  }
  llvm_unreachable("row bit past the buffer");
}

static SmallVector<std::pair<std::string, int64_t>>
tileOutDims(ArrayRef<int64_t> shape) {
  SmallVector<std::pair<std::string, int64_t>> outs;
  for (unsigned d = 0; d < shape.size(); ++d)
    outs.push_back({LinearLayout::dimName(d), shape[d]});
  return outs;
}

LinearLayout mlir::tile::swizzledSharedLayout(ArrayRef<int64_t> shapeIn,
                                              unsigned vec, unsigned perPhase,
                                              unsigned maxPhase,
                                              ArrayRef<unsigned> order,
                                              unsigned block) {
  SmallVector<int64_t> shape = paddedShape(shapeIn);
  unsigned rank = shape.size();
  unsigned f = order[0];
  unsigned colBits = llvm::Log2_64(shape[f]);
  // Rows of the 2-D tile (order[1]) and of the whole buffer.
  unsigned tileRowBits = rank > 1 ? llvm::Log2_64(shape[order[1]]) : 0;
  int64_t numel = 1;
  for (int64_t s : shape)
    numel *= s;
  unsigned rowBits = llvm::Log2_64(numel) - colBits;
  unsigned blockColBits =
      block ? std::min<unsigned>(colBits, llvm::Log2_32(block)) : colBits;
  unsigned phaseShift = llvm::Log2_32(perPhase);
  unsigned phaseBits = llvm::Log2_32(maxPhase);
  // The coordinates of bit j of the row over order[1..], with what the
  // swizzle adds: the column is the stored column XOR phase * vec, phase =
  // (row / perPhase) % maxPhase.
  auto rowBit = [&](unsigned j) {
    Basis b = rowBitCoords(shape, order, j);
    if (j >= phaseShift && j - phaseShift < phaseBits)
      b[f] ^= (int64_t(vec) << (j - phaseShift)) & (shape[f] - 1);
    return b;
  };
  auto colBit = [&](unsigned k) {
    Basis b(rank, 0);
    b[f] = int64_t(1) << k;
    return b;
  };
  // Offset bits from the lowest: the column in a block, the row in the
  // tile, the block, the stacked tiles (order[2..]).
  LinearLayout::InDim offset{LinearLayout::kOffset.str(), {}};
  for (unsigned k = 0; k < blockColBits; ++k)
    offset.bases.push_back(colBit(k));
  for (unsigned j = 0; j < tileRowBits; ++j)
    offset.bases.push_back(rowBit(j));
  for (unsigned k = blockColBits; k < colBits; ++k)
    offset.bases.push_back(colBit(k));
  for (unsigned j = tileRowBits; j < rowBits; ++j)
    offset.bases.push_back(rowBit(j));
  return LinearLayout({offset}, tileOutDims(shape));
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

SmallVector<int64_t> mlir::tile::paddedShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded;
  for (int64_t d : shape)
    padded.push_back(d > 0 ? int64_t(llvm::PowerOf2Ceil(uint64_t(d))) : d);
  return padded;
}

bool mlir::tile::isPadded(ArrayRef<int64_t> shape) {
  return llvm::any_of(
      shape, [](int64_t d) { return d > 0 && !llvm::isPowerOf2_64(d); });
}

/// The coordinate bits lanes and warps may set, per dimension.
static SmallVector<int64_t> threadBitsOf(const LinearLayout &layout,
                                         unsigned rank) {
  SmallVector<int64_t> threadBits(rank, 0);
  for (StringRef dim : {LinearLayout::kLane, LinearLayout::kWarp})
    if (layout.hasInDim(dim))
      for (const LinearLayout::Basis &b : layout.getBases(dim))
        for (unsigned d = 0; d < rank; ++d)
          threadBits[d] |= b[d];
  return threadBits;
}

bool mlir::tile::isPaddingRegister(const LinearLayout &layout,
                                   ArrayRef<int64_t> shape, unsigned r,
                                   unsigned count) {
  if (!isPadded(shape))
    return false;
  SmallVector<int64_t> threadBits = threadBitsOf(layout, shape.size());
  for (unsigned i = r; i < r + count; ++i) {
    LinearLayout::Basis c = layout.regCoords(i);
    bool padding = false;
    for (unsigned d = 0; d < shape.size() && !padding; ++d)
      padding = layout.getShape()[d] > shape[d] &&
                (c[d] & ~threadBits[d]) >= shape[d];
    if (!padding)
      return false;
  }
  return true;
}

bool mlir::tile::isPaddingPerRegister(const LinearLayout &layout,
                                      ArrayRef<int64_t> shape) {
  if (!isPadded(shape))
    return true;
  SmallVector<int64_t> threadBits = threadBitsOf(layout, shape.size());
  for (unsigned r = 0; r < layout.getNumRegs(); ++r) {
    if (isPaddingRegister(layout, shape, r))
      continue;
    // A lane or warp adds at most the bits it may set: the register holds
    // data in every thread when its largest coordinate is in the tile.
    LinearLayout::Basis c = layout.regCoords(r);
    for (unsigned d = 0; d < shape.size(); ++d)
      if (layout.getShape()[d] > shape[d] && (c[d] | threadBits[d]) >= shape[d])
        return false;
  }
  return true;
}

int64_t mlir::tile::countDataRegisters(const LinearLayout &layout,
                                       ArrayRef<int64_t> shape) {
  if (!isPadded(shape))
    return layout.getNumRegs();
  int64_t n = 0;
  for (unsigned r = 0; r < layout.getNumRegs(); ++r)
    n += !isPaddingRegister(layout, shape, r);
  return n;
}

SmallVector<unsigned> mlir::tile::nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      dims.push_back(d);
  return dims;
}

std::optional<std::pair<SmallVector<unsigned>, SmallVector<unsigned>>>
mlir::tile::matchNonUnitDims(ArrayRef<int64_t> src, ArrayRef<int64_t> dst) {
  SmallVector<unsigned> srcDims = nonUnitDims(src), dstDims = nonUnitDims(dst);
  if (srcDims.size() != dstDims.size())
    return std::nullopt;
  for (unsigned i = 0; i < srcDims.size(); ++i)
    if (src[srcDims[i]] != dst[dstDims[i]])
      return std::nullopt;
  return std::make_pair(srcDims, dstDims);
}

bool mlir::tile::isBitReshape(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  // Cut both shapes, from the innermost dimension, into the groups of
  // dimensions the reshape splits or joins (where the products of the
  // extents agree). Within a group every dimension but the outermost must
  // be a power of two: an element's row-major index in the group is then
  // the same in the padded shapes, whose groups hold as many elements.
  int i = int(from.size()), j = int(to.size());
  auto inner = [](ArrayRef<int64_t> group) {
    return group.empty() ||
           llvm::all_of(group.drop_back(), llvm::isPowerOf2_64);
  };
  while (i > 0 || j > 0) {
    int64_t pf = 1, pt = 1;
    SmallVector<int64_t> gf, gt; // innermost first
    do {
      if (i > 0 && (pf <= pt || j == 0)) {
        pf *= from[--i];
        gf.push_back(from[i]);
      } else if (j > 0) {
        pt *= to[--j];
        gt.push_back(to[j]);
      } else {
        break;
      }
    } while (pf != pt);
    if (pf != pt || pf <= 0 || !inner(gf) || !inner(gt))
      return false;
  }
  return true;
}

std::optional<SmallVector<int64_t, 4>>
mlir::tile::reshapeCoords(ArrayRef<int64_t> coords, ArrayRef<int64_t> from,
                          ArrayRef<int64_t> to) {
  if (!isBitReshape(from, to))
    return std::nullopt;
  SmallVector<int64_t> paddedFrom = paddedShape(from),
                       paddedTo = paddedShape(to);
  int64_t index = 0;
  for (auto [c, d] : llvm::zip(coords, paddedFrom))
    index = index * d + c;
  SmallVector<int64_t, 4> result(to.size());
  for (int i = int(to.size()) - 1; i >= 0; --i) {
    result[i] = index % paddedTo[i];
    index /= paddedTo[i];
  }
  return result;
}

bool tile::isReplicatedLayout(Attribute layout, ArrayRef<int64_t> shape) {
  LinearLayout ll = toLinearLayout(layout, shape);
  for (StringRef dim : {LinearLayout::kLane, LinearLayout::kWarp})
    for (const LinearLayout::Basis &basis : ll.getBases(dim))
      if (llvm::any_of(basis, [](int64_t x) { return x != 0; }))
        return false;
  return true;
}
