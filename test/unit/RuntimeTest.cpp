//===- RuntimeTest.cpp - Unit tests of libtile's runtime, no GPU needed ---===//
//
// KernelInfo's JSON form, argument checking and packing (on kernels built
// from a description, with no CUDA module), the cache key, the on-disk PTX
// cache, the JIT's caching levels with a fake compiler, the code-generation
// options (pipeline stages, loop splitting) from CompileOptions to the PTX
// header, the driver-loading failure path and the C API's error reporting.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"
#include "tile/Attention.h"
#include "tile/Autotune.h"
#include "tile/Tile.h"
#include "tile/tile.h"
#include "tilec/Target/Compile.h"
#include "tilec/Target/KernelInfo.h"

#include "KernelParams.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <thread>

using namespace tile;
using namespace tile::detail;
using tile::test::scalarParam;
using tile::test::tensorParam;
using tilec::ElementKind;
using tilec::KernelInfo;
using tilec::KernelParam;
using tilec::ScalarKind;

namespace {

/// The description of kernels/flash_attention.tile's fmha.
KernelInfo fmhaInfo() {
  KernelInfo info;
  info.name = "fmha";
  info.numWarps = 4;
  info.sharedBytes = 65536;
  info.arch = "sm_90a";
  for (const char *name : {"Q", "K", "V", "Out"})
    info.params.push_back(tensorParam(name, ElementKind::F16, 4));
  info.params.push_back(scalarParam("qk_scale", ScalarKind::F32));
  info.params.push_back(scalarParam("input_pos", ScalarKind::I32));
  info.constants = {{"DTYPE", "f16"}, {"TILE_D", "64"}, {"CAUSAL", "True"}};
  return info;
}

/// A fake device pointer with the given alignment (never dereferenced).
void *fakePointer(uintptr_t alignment) {
  return reinterpret_cast<void *>(uintptr_t(1) << 40 | alignment);
}

std::vector<Arg> fmhaArgs(int64_t seq = 128) {
  std::vector<Arg> args;
  for (int i = 0; i < 4; ++i)
    args.push_back(
        Tensor::contiguous(fakePointer(256), DType::F16, {2, 8, seq, 64}));
  args.push_back(0.125f);
  args.push_back(0);
  return args;
}

std::string temporaryDirectory(const char *prefix) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  return std::string(path);
}

size_t countFiles(const std::string &directory) {
  size_t count = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec))
    ++count;
  return count;
}

} // namespace

//===----------------------------------------------------------------------===//
// KernelInfo
//===----------------------------------------------------------------------===//

TEST(KernelInfoJSON, RoundTrip) {
  KernelInfo info = fmhaInfo();
  info.params[1].contiguous = false;
  info.params[2].alignment = 4;
  info.params[3].element = ElementKind::BF16;
  info.params.push_back(scalarParam("flag", ScalarKind::Bool));
  info.constants.push_back({"NAME \"quoted\"", "a\nb"});
  info.numStages = 3;
  info.loopSplit = false;
  info.persistent = true;
  info.tileCounter = true;
  info.cluster = 2;
  std::string json = info.toJSON();
  EXPECT_EQ(json.find('\n'), std::string::npos) << "must fit on one line";

  std::string error;
  std::optional<KernelInfo> back = KernelInfo::fromJSON(json, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->name, info.name);
  EXPECT_EQ(back->numWarps, info.numWarps);
  EXPECT_EQ(back->sharedBytes, info.sharedBytes);
  EXPECT_EQ(back->arch, info.arch);
  EXPECT_EQ(back->numStages, 3u);
  EXPECT_FALSE(back->loopSplit);
  EXPECT_TRUE(back->persistent);
  EXPECT_TRUE(back->tileCounter);
  EXPECT_EQ(back->cluster, 2u);
  EXPECT_EQ(back->constants, info.constants);
  ASSERT_EQ(back->params.size(), info.params.size());
  for (size_t i = 0; i < info.params.size(); ++i) {
    const KernelParam &a = info.params[i], &b = back->params[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.isTensor, b.isTensor);
    if (a.isTensor) {
      EXPECT_EQ(a.element, b.element);
      EXPECT_EQ(a.rank, b.rank);
      EXPECT_EQ(a.alignment, b.alignment);
      EXPECT_EQ(a.contiguous, b.contiguous);
    } else {
      EXPECT_EQ(a.scalar, b.scalar);
    }
  }
  EXPECT_EQ(back->toJSON(), json);
}

TEST(KernelInfoJSON, Elements) {
  EXPECT_EQ(tilec::elementBytes(ElementKind::F16), 2u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::BF16), 2u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::F32), 4u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::I32), 4u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::Bool), 1u);
  EXPECT_STREQ(tilec::elementName(ElementKind::BF16), "bf16");
  EXPECT_STREQ(tilec::elementName(ElementKind::Bool), "bool");
}

TEST(KernelInfoJSON, RejectsMalformed) {
  const std::string params = R"("params":[])";
  struct Case {
    std::string json;
    const char *expected;
  } cases[] = {
      {"", "invalid kernel description JSON"},
      {"{", "invalid kernel description JSON"},
      {"[]", "expected a JSON object"},
      {"42", "expected a JSON object"},
      {R"({"num_warps":4,"shared_bytes":0,)" + params + "}",
       "missing \"name\""},
      {R"({"name":7,"num_warps":4,"shared_bytes":0,)" + params + "}",
       "\"name\" must be a string"},
      {R"({"name":"","num_warps":4,"shared_bytes":0,)" + params + "}",
       "empty kernel name"},
      {R"({"name":"k","num_warps":0,"shared_bytes":0,)" + params + "}",
       "\"num_warps\" is 0"},
      {R"({"name":"k","num_warps":4.5,"shared_bytes":0,)" + params + "}",
       "\"num_warps\" must be an integer"},
      {R"({"name":"k","num_warps":4,"shared_bytes":-1,)" + params + "}",
       "\"shared_bytes\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0})", "missing \"params\""},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"cluster":3,)" + params +
           "}",
       "\"cluster\" must be 1, 2, 4 or 8"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"cluster":2,)" + params +
           "}",
       "more than 1 only for a persistent kernel"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"cluster":16,)" + params +
           "}",
       "\"cluster\" is 16"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":{}})",
       "\"params\" must be an array"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[3]})",
       "params[0]: expected an object"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"matrix"}]})",
       "params[0] ('A'): unknown parameter kind 'matrix'"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f64","rank":1}]})",
       "unknown dtype 'f64'"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":-1}]})",
       "\"rank\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16"}]})",
       "missing \"rank\""},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2,"alignment":12}]})",
       "expected a power of two"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2,"contiguous":"yes"}]})",
       "\"contiguous\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"constants":[["A"]]})",
       "constants[0] must be a [name, value] pair"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"abi":2})",
       "unsupported kernel ABI version 2"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"num_stages":-1})",
       "\"num_stages\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"num_stages":"2"})",
       "\"num_stages\" must be an integer"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"loop_split":1})",
       "\"loop_split\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"persistent":"yes"})",
       "\"persistent\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"tile_counter":1})",
       "\"tile_counter\" must be true or false"},
      {std::string(100000, '['), "nests deeper than"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_FALSE(KernelInfo::fromJSON(c.json, error)) << c.json;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "input: " << c.json.substr(0, 200) << "\nerror: " << error;
  }
}

TEST(KernelInfoJSON, BuildOptions) {
  // Written before "num_stages" and "loop_split" were recorded: the
  // defaults.
  std::string error;
  std::optional<KernelInfo> old = KernelInfo::fromJSON(
      R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[]})", error);
  ASSERT_TRUE(old) << error;
  EXPECT_EQ(old->numStages, 0u);
  EXPECT_TRUE(old->loopSplit);
  EXPECT_FALSE(old->persistent);
  EXPECT_FALSE(old->tileCounter);

  KernelInfo info = fmhaInfo();
  info.numStages = 2;
  info.loopSplit = false;
  std::string json = info.toJSON();
  EXPECT_NE(json.find(R"("num_stages":2)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("loop_split":false)"), std::string::npos) << json;
  // The kernel handle reports them.
  Kernel kernel = makeUnloadedKernel(info);
  EXPECT_EQ(kernel.numStages(), 2u);
  EXPECT_FALSE(kernel.loopSplit());
  EXPECT_FALSE(kernel.persistent());
  EXPECT_EQ(json.find("persistent"), std::string::npos) << json;
  info.persistent = true;
  EXPECT_TRUE(makeUnloadedKernel(info).persistent());
  tile_kernel handle = reinterpret_cast<tile_kernel>(kernel.get());
  EXPECT_EQ(tile_kernel_num_stages(handle), 2u);
  EXPECT_EQ(tile_kernel_loop_split(handle), 0);
  EXPECT_EQ(tile_kernel_num_stages(nullptr), 0u);
  EXPECT_EQ(tile_kernel_loop_split(nullptr), 0);
  EXPECT_EQ(tile_kernel_loop_split(reinterpret_cast<tile_kernel>(
                makeUnloadedKernel(fmhaInfo()).get())),
            1);
}

TEST(KernelInfoJSON, MutationsNeverCrash) {
  std::string json = fmhaInfo().toJSON();
  // Every prefix, then random byte edits: parse or fail with a message.
  for (size_t n = 0; n < json.size(); ++n) {
    std::string error;
    if (!KernelInfo::fromJSON(json.substr(0, n), error)) {
      EXPECT_FALSE(error.empty());
    }
  }
  std::mt19937 rng(1234);
  const char alphabet[] = "{}[]\",:0123456789-.eEtrufalsn \\x\x80\xff";
  for (int i = 0; i < 5000; ++i) {
    std::string mutated = json;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % mutated.size();
      char c = alphabet[rng() % (sizeof(alphabet) - 1)];
      switch (rng() % 3) {
      case 0:
        mutated[at] = c;
        break;
      case 1:
        mutated.insert(mutated.begin() + at, c);
        break;
      default:
        mutated.erase(at, 1 + rng() % 8);
        break;
      }
      if (mutated.empty())
        mutated = "{";
    }
    std::string error;
    std::optional<KernelInfo> info = KernelInfo::fromJSON(mutated, error);
    if (!info) {
      EXPECT_FALSE(error.empty());
    } else {
      // Whatever parses must describe a usable kernel.
      EXPECT_FALSE(info->name.empty());
      EXPECT_GE(info->numWarps, 1u);
      for (const KernelParam &param : info->params)
        EXPECT_TRUE(!param.isTensor || param.rank <= 16);
    }
  }
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

TEST(Arguments, PacksPerTheABI) {
  KernelInfo info = fmhaInfo();
  std::vector<Arg> args = fmhaArgs(100);
  args[5] = 37;
  ArgRefs refs;
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  Status status = checkArguments(info, refs, packed, fit);
  ASSERT_TRUE(status.ok()) << status.message();

  // Per tensor: base, 4 sizes, 4 strides; then qk_scale and input_pos.
  ASSERT_EQ(packed.values.size(), 4u * 9 + 2);
  ASSERT_EQ(packed.pointers.size(), packed.values.size());
  for (size_t i = 0; i < packed.values.size(); ++i)
    EXPECT_EQ(packed.pointers[i], &packed.values[i]);
  const Tensor &q = args[0].tensor();
  EXPECT_EQ(packed.values[0], reinterpret_cast<uintptr_t>(q.data));
  uint32_t size;
  for (int d = 0; d < 4; ++d) {
    std::memcpy(&size, packed.pointers[1 + d], sizeof(size));
    EXPECT_EQ(size, q.shape[d]);
    uint64_t stride;
    std::memcpy(&stride, packed.pointers[5 + d], sizeof(stride));
    EXPECT_EQ(static_cast<int64_t>(stride), q.strides[d]);
  }
  float scale;
  std::memcpy(&scale, packed.pointers[36], sizeof(scale));
  EXPECT_EQ(scale, 0.125f);
  int32_t pos;
  std::memcpy(&pos, packed.pointers[37], sizeof(pos));
  EXPECT_EQ(pos, 37);
  EXPECT_EQ(fit.alignment, 128u); // the 64-element stride: 128 bytes
  EXPECT_FALSE(fit.alignmentOnly);
}

TEST(Arguments, ScalarConversions) {
  KernelInfo info;
  info.name = "scalars";
  info.params = {scalarParam("i", ScalarKind::I32),
                 scalarParam("f", ScalarKind::F32),
                 scalarParam("b", ScalarKind::Bool)};
  Kernel kernel = makeUnloadedKernel(info);
  EXPECT_TRUE(kernel.check({-5, 3, true}).ok()) << "an int fits a float";
  EXPECT_TRUE(kernel.check({int64_t(INT32_MIN), 2.5, false}).ok());

  ArgRefs refs;
  std::vector<Arg> args = {-1, 3, true};
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  ASSERT_TRUE(checkArguments(info, refs, packed, fit).ok());
  uint32_t i, b;
  float f;
  std::memcpy(&i, packed.pointers[0], 4);
  std::memcpy(&f, packed.pointers[1], 4);
  std::memcpy(&b, packed.pointers[2], 4);
  EXPECT_EQ(i, 0xffffffffu);
  EXPECT_EQ(f, 3.0f);
  EXPECT_EQ(b, 1u);
}

TEST(Arguments, IntForFloatIsExactOrRefused) {
  KernelInfo info;
  info.name = "scalars";
  info.params = {scalarParam("i", ScalarKind::I32),
                 scalarParam("f", ScalarKind::F32)};
  Kernel kernel = makeUnloadedKernel(info);
  // Every int up to 2^24 has a float, and so has every power of two.
  EXPECT_TRUE(kernel.check({0, 1 << 24}).ok());
  EXPECT_TRUE(kernel.check({0, -(1 << 24)}).ok());
  EXPECT_TRUE(kernel.check({0, int64_t(1) << 40}).ok());
  EXPECT_TRUE(kernel.check({0, (int64_t(1) << 25) + 4}).ok());
  EXPECT_FALSE(kernel.check({0, (int64_t(1) << 25) + 2}).ok());
  EXPECT_EQ(kernel.check({0, (1 << 24) + 1}).message(),
            "kernel 'scalars': argument 2 ('f'): the int 16777217 has no "
            "exact 32-bit float value (the nearest is 16777216); pass a float "
            "to round it");
  EXPECT_FALSE(kernel.check({0, INT64_MAX}).ok());
  EXPECT_FALSE(kernel.check({0, INT64_MIN + 1}).ok());
  EXPECT_TRUE(kernel.check({0, INT64_MIN}).ok()) << "-2^63 is a float";
  // A float for an int parameter is refused, whatever its value.
  EXPECT_EQ(kernel.check({2.0, 1}).message(),
            "kernel 'scalars': argument 1 ('i'): expected an int, got a float");
  EXPECT_EQ(kernel.check({2.0f, 1}).message(),
            "kernel 'scalars': argument 1 ('i'): expected an int, got a float");
}

/// check()'s message for `args` on `info`'s kernel.
static std::string checkMessage(const KernelInfo &info,
                                const std::vector<Arg> &args) {
  return makeUnloadedKernel(info).check(args).message();
}

TEST(Arguments, ClearErrors) {
  KernelInfo info = fmhaInfo();
  Kernel kernel = makeUnloadedKernel(info);
  ASSERT_TRUE(kernel.check(fmhaArgs()).ok())
      << kernel.check(fmhaArgs()).message();
  EXPECT_EQ(kernel.name(), "fmha");
  EXPECT_EQ(kernel.params().size(), 6u);
  EXPECT_EQ(kernel.params()[0].kind, ParamInfo::Kind::Tensor);
  EXPECT_EQ(kernel.params()[0].dtype, DType::F16);
  EXPECT_EQ(kernel.params()[4].kind, ParamInfo::Kind::Float);
  EXPECT_EQ(kernel.sharedBytes(), 65536u);

  auto with = [&](size_t index, Arg arg) {
    std::vector<Arg> args = fmhaArgs();
    args[index] = std::move(arg);
    return checkMessage(info, args);
  };
  Tensor good = fmhaArgs()[1].tensor();
  auto modified = [&](auto change) {
    Tensor t = good;
    change(t);
    return t;
  };

  EXPECT_EQ(with(1, Tensor::contiguous(good.data, DType::F16, {2, 8, 128})),
            "kernel 'fmha': argument 2 ('K'): expected a rank-4 tensor, got "
            "rank 3");

  std::vector<Arg> five = fmhaArgs();
  five.pop_back();
  EXPECT_EQ(checkMessage(info, five),
            "kernel 'fmha': expected 6 arguments (Q, K, V, Out, qk_scale, "
            "input_pos), got 5");
  EXPECT_EQ(
      with(2, Tensor::contiguous(good.data, DType::BF16, {2, 8, 128, 64})),
      "kernel 'fmha': argument 3 ('V'): expected a f16 tensor, got a "
      "bf16 tensor");
  EXPECT_EQ(with(0, 1.5f),
            "kernel 'fmha': argument 1 ('Q'): expected a rank-4 f16 tensor, "
            "got a float");
  EXPECT_EQ(with(4, good),
            "kernel 'fmha': argument 5 ('qk_scale'): expected a float, got a "
            "f16 tensor of rank 4");
  EXPECT_EQ(with(5, 1.0f),
            "kernel 'fmha': argument 6 ('input_pos'): expected an int, got a "
            "float");
  EXPECT_EQ(with(5, int64_t(1) << 32),
            "kernel 'fmha': argument 6 ('input_pos'): value 4294967296 does "
            "not fit the kernel's 32-bit int");
  EXPECT_EQ(with(5, true),
            "kernel 'fmha': argument 6 ('input_pos'): expected an int, got a "
            "bool");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.strides.pop_back(); })),
            "kernel 'fmha': argument 1 ('Q'): the shape has 4 entries but the "
            "strides have 3; a rank-4 tensor needs one of each per dimension");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.shape[2] = -1; })),
            "kernel 'fmha': argument 1 ('Q'): shape[2] = -1 is negative");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.shape[2] = int64_t(1) << 31; })),
            "kernel 'fmha': argument 1 ('Q'): shape[2] = 2147483648 exceeds "
            "2^31-1, the largest size the kernel ABI carries");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.strides[1] = -64; })),
            "kernel 'fmha': argument 1 ('Q'): strides[1] = -64 is negative; "
            "negative strides are not supported");
  EXPECT_EQ(with(3, modified([](Tensor &t) { t.data = nullptr; })),
            "kernel 'fmha': argument 4 ('Out'): null data pointer for a "
            "non-empty tensor of shape [2, 8, 128, 64]");
  EXPECT_EQ(with(1, modified([](Tensor &t) { t.strides[3] = 2; })),
            "kernel 'fmha': argument 2 ('K'): the kernel needs a contiguous "
            "last dimension (stride 1), got strides [65536, 8192, 64, 2]");

  // Alignment: this kernel has no source to recompile, so it is an error.
  std::string message =
      with(0, modified([](Tensor &t) { t.data = fakePointer(8); }));
  EXPECT_NE(message.find("argument 1 ('Q'): base pointer 0x"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("is not 16-byte aligned, which the kernel assumes"),
            std::string::npos)
      << message;
  EXPECT_EQ(with(2, modified([](Tensor &t) {
                   t.shape[3] = 60;
                   t.strides = {8 * 128 * 60, 128 * 60, 60, 1};
                 })),
            "kernel 'fmha': argument 3 ('V'): the last dimension (60 elements, "
            "120 bytes) is not a multiple of 16 bytes, which the kernel "
            "assumes");
  message = with(0, modified([](Tensor &t) { t.data = fakePointer(1); }));
  EXPECT_NE(message.find("is not aligned to the element size (2 bytes)"),
            std::string::npos)
      << message;
}

TEST(Arguments, LenientWhereHarmless) {
  KernelInfo info = fmhaInfo();
  Kernel kernel = makeUnloadedKernel(info);
  // Empty tensors may have a null pointer.
  std::vector<Arg> args = fmhaArgs();
  args[0] = Tensor(nullptr, DType::F16, {2, 8, 0, 64}, {0, 0, 64, 1});
  EXPECT_TRUE(kernel.check(args).ok()) << kernel.check(args).message();
  // A last dimension of size 1 needs no unit stride (and gets one). Its
  // length, one element, bounds the alignment the kernel may assume: vector
  // accesses along it would read past the row.
  KernelInfo vec;
  vec.name = "v";
  vec.params = {tensorParam("A", ElementKind::F32, 2)};
  vec.params[0].alignment = 4;
  std::vector<Arg> column = {
      Tensor(fakePointer(64), DType::F32, {16, 1}, {4, 7})};
  ArgRefs refs;
  toArgRefs(column, refs);
  PackedArgs packed;
  AlignmentFit fit;
  Status status = checkArguments(vec, refs, packed, fit);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(packed.values[4], 1u);
  // Strides of size-1 dimensions are never used: no alignment needed.
  std::vector<Arg> single = {
      Tensor(fakePointer(64), DType::F32, {1, 8}, {3, 1})};
  EXPECT_TRUE(makeUnloadedKernel(vec).check(single).ok());
}

TEST(Arguments, AlignmentFit) {
  KernelInfo info = fmhaInfo();
  std::vector<Arg> args = fmhaArgs();
  Tensor t = args[2].tensor();
  t.data = fakePointer(4);
  args[2] = t;
  ArgRefs refs;
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  EXPECT_FALSE(checkArguments(info, refs, packed, fit).ok());
  EXPECT_TRUE(fit.alignmentOnly);
  EXPECT_EQ(fit.alignment, 4u);
  // Another problem wins over alignment.
  args[5] = 1.5f;
  toArgRefs(args, refs);
  EXPECT_FALSE(checkArguments(info, refs, packed, fit).ok());
  EXPECT_FALSE(fit.alignmentOnly);
}

TEST(Arguments, LaunchWithoutModuleFailsCleanly) {
  Kernel kernel = makeUnloadedKernel(fmhaInfo());
  Status status = kernel.launch(Dim3(2, 16), nullptr, fmhaArgs());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not loaded on a GPU"), std::string::npos)
      << status.message();
  // Bad arguments are reported before anything else.
  status = kernel.launch(Dim3(2, 16), nullptr, {});
  EXPECT_NE(status.message().find("expected 6 arguments"), std::string::npos);
  // So are impossible grids.
  status = kernel.launch(Dim3(1, 70000), nullptr, fmhaArgs());
  EXPECT_NE(status.message().find("exceeds the CUDA limits"),
            std::string::npos);
  // An empty grid runs nothing.
  EXPECT_TRUE(kernel.launch(Dim3(0, 16), nullptr, fmhaArgs()).ok());
  EXPECT_FALSE(Kernel().launch(Dim3(1), nullptr, {}).ok());
  EXPECT_FALSE(Kernel().check({}).ok());
}

//===----------------------------------------------------------------------===//
// Cache key and disk cache
//===----------------------------------------------------------------------===//

static tilec::CompileRequest sampleRequest() {
  tilec::CompileRequest request;
  request.source = "kernel k(A: Tensor[f32, 1]):\n    pass\n";
  request.bufferName = "k.tile";
  request.defines = {{"TILE", "128"}, {"DTYPE", "f16"}};
  request.kernelName = "k";
  request.arch = "sm_90a";
  request.numWarps = 4;
  request.tensorAlignment = 16;
  return request;
}

TEST(CacheKey, StableAndSensitive) {
  tilec::CompileRequest request = sampleRequest();
  std::string key = cacheKey(request, "v1");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, cacheKey(sampleRequest(), "v1"));

  // The constants' order does not matter; the buffer name neither.
  tilec::CompileRequest reordered = request;
  std::swap(reordered.defines[0], reordered.defines[1]);
  reordered.bufferName = "elsewhere/k.tile";
  EXPECT_EQ(cacheKey(reordered, "v1"), key);

  std::vector<std::function<void(tilec::CompileRequest &)>> changes = {
      [](auto &r) { r.source += " "; },
      [](auto &r) { r.defines[0].second = "256"; },
      [](auto &r) { r.defines[1].first = "DTYPE2"; },
      [](auto &r) {
        r.defines.push_back({"X", "1"});
      },
      [](auto &r) { r.defines.pop_back(); },
      [](auto &r) { r.kernelName = ""; },
      [](auto &r) { r.arch = "sm_80"; },
      [](auto &r) { r.numWarps = 8; },
      [](auto &r) { r.tensorAlignment = 4; },
      [](auto &r) { r.numStages = 2; },
      [](auto &r) { r.loopSplit = false; },
      [](auto &r) { r.rotateWgmma = false; },
      [](auto &r) { r.persistent = true; },
      [](auto &r) { r.tileStages = 1; },
      [](auto &r) { r.tileRefillAfterRead = true; },
      [](auto &r) { r.dynamicSchedule = false; },
      [](auto &r) { r.stageInRingSlots = false; },
      [](auto &r) { r.deferEpilogue = true; },
      [](auto &r) { r.rotateTiles = true; },
      [](auto &r) { r.rescaleInTrip = true; },
      // Field boundaries: moving a character between two fields.
      [](auto &r) {
        r.defines[0].first = "TIL";
        r.defines[0].second = "E128";
      },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    tilec::CompileRequest changed = request;
    changes[i](changed);
    EXPECT_NE(cacheKey(changed, "v1"), key) << "change " << i;
  }
  EXPECT_NE(cacheKey(request, "v2"), key) << "compiler version";
}

TEST(CacheKey, StagesAndLoopSplit) {
  // Every pair of (stages, split) settings has its own key.
  std::set<std::string> keys;
  for (unsigned stages = 0; stages <= 8; ++stages)
    for (bool split : {true, false}) {
      tilec::CompileRequest request = sampleRequest();
      request.numStages = stages;
      request.loopSplit = split;
      EXPECT_TRUE(keys.insert(cacheKey(request, "v1")).second)
          << "stages " << stages << ", split " << split;
    }
  // Split is the default. Stages left unset are the kernel's @hints' (or
  // the latency hints'), which need not be an explicit 0's.
  tilec::CompileRequest defaults = sampleRequest();
  tilec::CompileRequest explicitDefaults = sampleRequest();
  explicitDefaults.loopSplit = true;
  EXPECT_EQ(cacheKey(defaults, "v1"), cacheKey(explicitDefaults, "v1"));
  explicitDefaults.numStages = 0;
  EXPECT_NE(cacheKey(defaults, "v1"), cacheKey(explicitDefaults, "v1"));
}

TEST(DiskCache, WriteReadCorrupt) {
  std::string dir = temporaryDirectory("tile-disk-cache");
  DiskCache cache(dir + "/nested/cache");
  std::string key(64, 'a');
  EXPECT_FALSE(cache.read(key));
  std::string ptx = "// tilec-kernel: {}\n.version 8.0\n";
  ASSERT_TRUE(cache.write(key, ptx).ok());
  std::optional<std::string> back = cache.read(key);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, ptx);
  EXPECT_EQ(countFiles(dir + "/nested/cache"), 1u) << "no temporaries left";

  // Corruptions: truncation, a flipped byte, a missing trailer, garbage.
  std::string path = cache.entryPath(key);
  auto contents = [&] {
    return (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
  };
  auto overwrite = [&](const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  };
  std::string intact = contents();
  for (std::string corrupt :
       {intact.substr(0, intact.size() - 5), intact.substr(0, 10),
        std::string(), ptx, std::string("\xff\xfe garbage\n")}) {
    overwrite(corrupt);
    EXPECT_FALSE(cache.read(key)) << corrupt;
  }
  std::string flipped = intact;
  flipped[20] ^= 1;
  overwrite(flipped);
  EXPECT_FALSE(cache.read(key));
  // Rewriting repairs the entry.
  ASSERT_TRUE(cache.write(key, ptx).ok());
  EXPECT_EQ(cache.read(key).value_or(""), ptx);

  // An unwritable directory is an error, not a crash.
  DiskCache bad("/proc/no-such-dir/tile");
  EXPECT_FALSE(bad.write(key, ptx).ok());
  EXPECT_FALSE(bad.read(key));
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, BinaryEntries) {
  std::string dir = temporaryDirectory("tile-binary-cache");
  DiskCache cache(dir + "/c");
  std::string key(64, 'b');
  std::string name = key + ".tune";
  EXPECT_FALSE(cache.readBinary(name));
  // Binary data, NULs and newlines included.
  std::string cubin("\x7f"
                    "ELF\0\0\n\x01\xff binary",
                    16);
  ASSERT_TRUE(cache.writeBinary(name, cubin).ok());
  EXPECT_EQ(cache.readBinary(name).value_or(""), cubin);
  EXPECT_EQ(countFiles(dir + "/c"), 1u) << "no temporaries left";

  std::string path = cache.binaryPath(name);
  std::string intact = (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
  auto overwrite = [&](const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  };
  std::string flipped = intact;
  flipped[3] ^= 1;
  for (const std::string &corrupt :
       {intact.substr(0, intact.size() - 1), intact.substr(0, 8), cubin,
        std::string(), flipped}) {
    overwrite(corrupt);
    EXPECT_FALSE(cache.readBinary(name));
  }
  ASSERT_TRUE(cache.writeBinary(name, cubin).ok());
  EXPECT_EQ(cache.readBinary(name).value_or(""), cubin);
  EXPECT_FALSE(DiskCache("/proc/no-such-dir/t").writeBinary(name, cubin).ok());
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, DefaultDirectory) {
  std::string savedDir = std::getenv("TILEC_CACHE_DIR") ?: "";
  std::string savedHome = std::getenv("HOME") ?: "";
  setenv("TILEC_CACHE_DIR", "/tmp/x-tile", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/tmp/x-tile");
  setenv("TILEC_CACHE_DIR", "off", 1);
  EXPECT_EQ(defaultCacheDirectory(), "");
  unsetenv("TILEC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/tmp/xdg/tilec");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/home/someone/.cache/tilec");
  setenv("HOME", savedHome.c_str(), 1);
  setenv("TILEC_CACHE_DIR", savedDir.c_str(), 1);
}

TEST(PTXHeader, Parse) {
  KernelInfo info = fmhaInfo();
  std::string ptx = "// tilec-kernel: " + info.toJSON() + "\r\n.version 8.0\n";
  Expected<KernelInfo> parsed = parsePTXHeader(ptx);
  ASSERT_TRUE(parsed) << parsed.status().message();
  EXPECT_EQ(parsed->name, "fmha");
  EXPECT_FALSE(parsePTXHeader(".version 8.0\n"));
  EXPECT_NE(parsePTXHeader("// tilec-kernel: {\"name\":1}\n")
                .status()
                .message()
                .find("bad `// tilec-kernel:` line"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// The JIT's caches, with a fake compiler
//===----------------------------------------------------------------------===//

namespace {
struct FakeCompiler {
  std::atomic<int> calls{0};
  int delayMs = 0;
  tilec::CompileRequest last; // the request of the last call

  tilec::CompileResult operator()(const tilec::CompileRequest &request) {
    ++calls;
    last = request;
    if (delayMs)
      std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    tilec::CompileResult result;
    if (request.source.find("syntax error") != std::string::npos) {
      result.diagnostics = request.bufferName + ":1:1: error: syntax error\n";
      return result;
    }
    result.ok = true;
    for (const char *name : {"k", "other"}) {
      if (!request.kernelName.empty()
              ? request.kernelName != name
              : std::strcmp(name, "other") == 0 &&
                    request.source.find("two") == std::string::npos)
        continue;
      tilec::CompiledKernel kernel;
      kernel.info.name = name;
      kernel.info.arch = request.arch;
      kernel.info.numWarps = request.numWarps.value_or(4);
      kernel.info.numStages = request.numStages.value_or(0);
      kernel.info.loopSplit = request.loopSplit.value_or(true);
      kernel.info.params = {tensorParam("A", ElementKind::F32, 1,
                                        request.tensorAlignment.value_or(16))};
      kernel.info.constants = request.defines;
      kernel.ptx = "// tilec-kernel: " + kernel.info.toJSON() +
                   "\n.version 8.0\n.target " + request.arch +
                   "\n.address_size 64\n.visible .entry " + name +
                   "() { ret; }\n";
      result.kernels.push_back(std::move(kernel));
    }
    return result;
  }
};

RuntimeConfig fakeConfig(const std::string &dir,
                         std::shared_ptr<FakeCompiler> compiler) {
  RuntimeConfig config;
  config.cacheDirectory = dir;
  config.compiler = [compiler](const tilec::CompileRequest &request) {
    return (*compiler)(request);
  };
  config.compilerVersion = "fake-1";
  return config;
}

CompileOptions
sm90(std::vector<std::pair<std::string, std::string>> constants = {}) {
  CompileOptions options;
  options.arch = "sm_90a";
  options.constants = std::move(constants);
  return options;
}
} // namespace

//===----------------------------------------------------------------------===//
// The options schema (tile/Options.def)
//===----------------------------------------------------------------------===//

/// A valid value of `info` other than its default.
static unsigned otherValue(const OptionInfo &info) {
  if (info.isBool)
    return info.defaultValue ? 0 : 1;
  return info.defaultValue == info.max ? info.min : info.max;
}

TEST(Options, EveryOptionRoundTrips) {
  size_t count;
  const OptionInfo *infos = optionInfos(count);
  ASSERT_GE(count, 17u);
  std::string cList = tile_option_list();
  std::set<std::string> keys;
  std::string dir = temporaryDirectory("tile-options");
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig(dir, compiler));
  tilec::CompileRequest base;
  base.source = "kernel k(A: Tensor[f32, 1]):\n    pass\n";
  base.arch = "sm_90a";
  std::set<std::string> cacheKeys = {cacheKey(base, "v1")};
  for (size_t i = 0; i < count; ++i) {
    const OptionInfo &info = infos[i];
    SCOPED_TRACE(info.key);
    EXPECT_TRUE(keys.insert(info.key).second) << "a key given twice";
    // The C API lists it.
    EXPECT_NE(("," + cList + ",").find(std::string(",") + info.key + ","),
              std::string::npos);
    // Text: set by name, printed, parsed back.
    unsigned value = otherValue(info);
    std::string text =
        std::string(info.key) + "=" +
        (info.isBool ? (value ? "on" : "off") : std::to_string(value));
    Options o;
    ASSERT_EQ(o.parse(text), "");
    EXPECT_EQ(o.text(), text);
    Options back;
    ASSERT_EQ(back.parse(o.text()), "");
    EXPECT_TRUE(back == o);
    // Out of range, or not a value of its type: refused by name.
    Options bad;
    std::string error =
        bad.set(info.key, info.isBool ? "maybe" : std::to_string(info.max + 1));
    EXPECT_NE(error.find(info.key), std::string::npos) << error;
    // The cache key sees it: each value has its own key; the default
    // keys as unset unless a kernel's @hints may give the option.
    tilec::CompileRequest request = base;
    static_cast<Options &>(request) = o;
    EXPECT_TRUE(cacheKeys.insert(cacheKey(request, "v1")).second);
    request = base;
    request.set(info.key, std::to_string(info.defaultValue));
    if (info.flags & TILE_OPTION_HINT)
      EXPECT_NE(cacheKey(request, "v1"), cacheKey(base, "v1"));
    else
      EXPECT_EQ(cacheKey(request, "v1"), cacheKey(base, "v1"));
    // A tuning candidate carries it.
    Expected<TuneCandidate> candidate = TuneCandidate::parse("TILE=1," + text);
    ASSERT_TRUE(candidate.ok()) << candidate.status().message();
    EXPECT_TRUE(candidate->options == o);
    EXPECT_EQ(candidate->describe(), "TILE=1," + text);
    // The JIT hands it to the compiler as given (tile_refill_after_read
    // needs tile_stages=1 beside it).
    CompileOptions options = sm90();
    static_cast<Options &>(options) = o;
    if (o.tileRefillAfterRead.value_or(false))
      options.tileStages = 1;
    Expected<std::string> ptx = runtime.compileToPTX(base.source, "k.tile",
                                                     options);
    ASSERT_TRUE(ptx.ok()) << ptx.status().message();
    EXPECT_TRUE(static_cast<const Options &>(compiler->last) ==
                static_cast<const Options &>(options));
  }
}

TEST(JIT, MemoryAndDiskCaches) {
  std::string dir = temporaryDirectory("tile-jit-cache");
  auto compiler = std::make_shared<FakeCompiler>();
  const std::string source = "kernel k(...)";
  {
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    Expected<std::string> ptx =
        runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}}));
    ASSERT_TRUE(ptx) << ptx.status().message();
    EXPECT_EQ(ptx->rfind("// tilec-kernel: {", 0), 0u);
    EXPECT_EQ(runtime.stats().compiles, 1u);
    EXPECT_EQ(runtime.stats().diskWrites, 1u);
    EXPECT_EQ(countFiles(dir), 1u);

    // Same request: from memory.
    Expected<std::string> again =
        runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}}));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *ptx);
    EXPECT_EQ(runtime.stats().memoryHits, 1u);
    EXPECT_EQ(runtime.stats().compiles, 1u);

    // A different constant compiles again.
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "32"}})));
    EXPECT_EQ(runtime.stats().compiles, 2u);
    EXPECT_EQ(countFiles(dir), 2u);
  }
  {
    // A fresh runtime (as in a second process) finds both on disk.
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "32"}})));
    EXPECT_EQ(runtime.stats().compiles, 0u);
    EXPECT_EQ(runtime.stats().diskHits, 2u);
    EXPECT_EQ(compiler->calls.load(), 2);
  }
  {
    // Corrupt every entry: the next runtime compiles and rewrites them.
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      llvm::raw_fd_ostream os(it->path(), ec);
      os << "// tilec-kernel: {\"name\":\"k\"\ntruncated";
    }
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    EXPECT_EQ(runtime.stats().compiles, 1u);
    EXPECT_EQ(runtime.stats().diskHits, 0u);
    EXPECT_EQ(runtime.stats().diskWrites, 1u);
    RuntimeImpl next(fakeConfig(dir, compiler));
    ASSERT_TRUE(next.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    EXPECT_EQ(next.stats().diskHits, 1u);
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(JIT, ConcurrentRequestsCompileOnce) {
  auto compiler = std::make_shared<FakeCompiler>();
  compiler->delayMs = 100;
  RuntimeImpl runtime(fakeConfig("", compiler));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      // Two distinct kernels, four threads each.
      if (!runtime.compileToPTX("kernel", "k.tile",
                                sm90({{"TILE", i % 2 ? "1" : "2"}})))
        ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(compiler->calls.load(), 2);
  EXPECT_EQ(runtime.stats().memoryHits, 6u);
}

TEST(JIT, StagesAndLoopSplitAreCachedApart) {
  std::string dir = temporaryDirectory("tile-jit-stages");
  auto compiler = std::make_shared<FakeCompiler>();
  const std::string source = "kernel k(...)";
  auto options = [](unsigned stages, bool split) {
    CompileOptions o = sm90({{"TILE", "64"}});
    o.numStages = stages;
    o.loopSplit = split;
    return o;
  };
  const std::pair<unsigned, bool> settings[] = {
      {0, true}, {1, true}, {2, true}, {3, true}, {3, false}, {0, false}};
  {
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    for (auto [stages, split] : settings) {
      Expected<std::string> ptx =
          runtime.compileToPTX(source, "k.tile", options(stages, split));
      ASSERT_TRUE(ptx) << ptx.status().message();
      // The request reached the compiler, whose description records it.
      Expected<KernelInfo> info = parsePTXHeader(*ptx);
      ASSERT_TRUE(info) << info.status().message();
      EXPECT_EQ(info->numStages, stages);
      EXPECT_EQ(info->loopSplit, split);
    }
    EXPECT_EQ(runtime.stats().compiles, std::size(settings));
    EXPECT_EQ(countFiles(dir), std::size(settings));
    // Asked again: every one from memory.
    for (auto [stages, split] : settings)
      ASSERT_TRUE(
          runtime.compileToPTX(source, "k.tile", options(stages, split)));
    EXPECT_EQ(runtime.stats().compiles, std::size(settings));
    EXPECT_EQ(runtime.stats().memoryHits, std::size(settings));
  }
  {
    // A second process: every one from disk, each its own.
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    for (auto [stages, split] : settings) {
      Expected<std::string> ptx =
          runtime.compileToPTX(source, "k.tile", options(stages, split));
      ASSERT_TRUE(ptx);
      Expected<KernelInfo> info = parsePTXHeader(*ptx);
      ASSERT_TRUE(info);
      EXPECT_EQ(info->numStages, stages);
      EXPECT_EQ(info->loopSplit, split);
    }
    EXPECT_EQ(runtime.stats().compiles, 0u);
    EXPECT_EQ(runtime.stats().diskHits, std::size(settings));
  }
  llvm::sys::fs::remove_directories(dir);

  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<std::string> bad =
      runtime.compileToPTX(source, "k.tile", options(9, true));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(),
            "CompileOptions: num_stages must be 0 or an integer from 1 to 8, "
            "got 9");
}

// The real compiler: the options reach the kernel's description, and an
// out-of-range stage count is a clear error.
TEST(Compile, StagesAndLoopSplitOptions) {
  tilec::CompileRequest request;
  request.source = "kernel copy(A: Tensor[f32, 1], B: Tensor[f32, 1],\n"
                   "         TILE: const int = 128):\n"
                   "    i = bid(0)\n"
                   "    store(B, index=(i,), tile=load(A, index=(i,), "
                   "shape=(TILE,)))\n";
  request.bufferName = "copy.tile";
  request.arch = "sm_80";
  request.numStages = 3;
  request.loopSplit = false;
  tilec::CompileResult result = tilec::compile(request, tilec::Stage::PTX);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].info.numStages, 3u);
  EXPECT_FALSE(result.kernels[0].info.loopSplit);
  Expected<KernelInfo> header = parsePTXHeader(result.kernels[0].ptx);
  ASSERT_TRUE(header) << header.status().message();
  EXPECT_EQ(header->numStages, 3u);
  EXPECT_FALSE(header->loopSplit);

  for (unsigned stages : {0u, 1u, 8u}) {
    request.numStages = stages;
    EXPECT_TRUE(tilec::compile(request, tilec::Stage::Layout).ok)
        << "stages " << stages;
  }
  request.numStages = 9;
  result = tilec::compile(request, tilec::Stage::PTX);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.diagnostics, "tilec: error: num_stages must be 0 or an "
                                "integer from 1 to 8, got 9\n");
}

TEST(JIT, CompileErrors) {
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<std::string> ptx =
      runtime.compileToPTX("syntax error", "bad.tile", sm90());
  ASSERT_FALSE(ptx);
  EXPECT_EQ(ptx.status().message(),
            "compiling bad.tile failed:\nbad.tile:1:1: error: syntax error\n");
  // Failures are not cached.
  EXPECT_FALSE(runtime.compileToPTX("syntax error", "bad.tile", sm90()));
  EXPECT_EQ(compiler->calls.load(), 2);

  ptx = runtime.compileToPTX("two kernels", "two.tile", sm90());
  ASSERT_FALSE(ptx);
  EXPECT_EQ(ptx.status().message(),
            "two.tile defines 2 kernels (k, other); choose one with "
            "CompileOptions::kernel");
  CompileOptions pick = sm90();
  pick.kernel = "other";
  ptx = runtime.compileToPTX("two kernels", "two.tile", pick);
  ASSERT_TRUE(ptx) << ptx.status().message();
  EXPECT_NE(ptx->find(".entry other"), std::string::npos);

  // The JIT checks the options as the compiler does (a power of two of
  // warps: it accepted 3 before), before compiling anything.
  CompileOptions bad = sm90();
  bad.numWarps = 3;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("num_warps must be a power of two from 1 to 32, got 3"),
            std::string::npos);
  bad.numWarps = 0;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("num_warps must be a power of two from 1 to 32, got 0"),
            std::string::npos);
  bad = sm90();
  bad.tensorAlignment = 12;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("alignment must be a power of two from 1 to 256, got 12"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Without a GPU
//===----------------------------------------------------------------------===//

static bool haveDriver() {
  std::string error;
  return CudaDriver::get(error) != nullptr;
}

TEST(Driver, MissingLibraryIsAClearError) {
  std::string error;
  std::unique_ptr<CudaDriver> driver =
      CudaDriver::load({"/nonexistent/libcuda.so.1", "libnocuda.so.9"}, error);
  EXPECT_FALSE(driver);
  EXPECT_EQ(error.rfind("CUDA driver not found: "
                        "dlopen(/nonexistent/libcuda.so.1) failed: ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("(also tried libnocuda.so.9)"), std::string::npos)
      << error;

  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed; the no-driver path of the "
                    "process-wide runtime cannot be exercised here";
  const CudaDriver *global = CudaDriver::get(error);
  EXPECT_FALSE(global);
  EXPECT_TRUE(error.rfind("CUDA driver not found: dlopen(libcuda.so.1) "
                          "failed: ",
                          0) == 0 ||
              error.rfind("no CUDA device", 0) == 0)
      << error;

  // Everything that needs the GPU says so, and keeps saying so.
  for (int i = 0; i < 2; ++i) {
    Expected<DeviceInfo> info = deviceInfo();
    ASSERT_FALSE(info);
    EXPECT_EQ(info.status().message(), error);
  }
  Expected<void *> memory = deviceAlloc(1024);
  ASSERT_FALSE(memory);
  EXPECT_EQ(memory.status().message(), error);
  EXPECT_FALSE(synchronize().ok());
  EXPECT_FALSE(Event::create());

  // Compiling for "the current GPU" needs one; loading PTX too.
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<Kernel> kernel = runtime.compile("k", "k.tile", CompileOptions());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "cannot choose an arch for the current GPU (set "
            "CompileOptions::arch to compile without one): " +
                error);
  kernel = runtime.compile("k", "k.tile", sm90());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(), error);
  EXPECT_EQ(compiler->calls.load(), 1) << "compiled before needing the GPU";
}

TEST(LoadPTX, ChecksTheFile) {
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<Kernel> kernel = runtime.loadPTX(".version 8.0\n", "x.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message().rfind("x.ptx: not a tilec PTX file", 0),
            0u)
      << kernel.status().message();

  KernelInfo info;
  info.name = "k";
  std::string header = "// tilec-kernel: " + info.toJSON() + "\n";
  kernel = runtime.loadPTX(header + ".visible .entry a() { ret; }\n"
                                    ".visible .entry b() { ret; }\n",
                           "two.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "two.ptx: holds 2 kernel entry points; libtile loads PTX files of "
            "exactly one kernel");
  if (haveDriver())
    return;
  kernel = runtime.loadPTX(header + ".visible .entry k() { ret; }\n", "k.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("CUDA driver not found"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// The C API
//===----------------------------------------------------------------------===//

TEST(CApi, ErrorsPropagate) {
  tile_kernel kernel = reinterpret_cast<tile_kernel>(0x1);
  EXPECT_EQ(tile_compile_file("/nonexistent/k.tile", nullptr, &kernel),
            TILE_ERROR);
  EXPECT_EQ(kernel, nullptr);
  std::string message = tile_last_error();
  EXPECT_EQ(message.rfind("cannot read '/nonexistent/k.tile': ", 0), 0u)
      << message;

  EXPECT_EQ(tile_load_ptx("/nonexistent/k.ptx", &kernel), TILE_ERROR);
  EXPECT_NE(std::string(tile_last_error()).find("/nonexistent/k.ptx"),
            std::string::npos);
  EXPECT_EQ(tile_compile_source(nullptr, "x", nullptr, &kernel), TILE_ERROR);
  EXPECT_EQ(tile_kernel_launch(nullptr, 1, 1, 1, nullptr, nullptr, 0),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "tile_kernel_launch: NULL kernel");

  tile_constant constant = {"TILE", nullptr};
  tile_compile_options options = {&constant, 1, nullptr, "sm_90a", nullptr};
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &options, &kernel),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_compile_options: constants[0] has a NULL name or value");
  // The options' text reaches CompileOptions (and is checked before
  // compiling): a value out of range, a name that is no option.
  tile_compile_options stages = {};
  stages.arch = "sm_90a";
  stages.options = "num_stages=12,loop_split=off";
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &stages, &kernel),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_compile_options: num_stages must be 0 or an integer "
               "from 1 to 8, got 12");
  stages.options = "num_warp=8";
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &stages, &kernel),
            TILE_ERROR);
  EXPECT_EQ(std::string(tile_last_error())
                .rfind("tile_compile_options: unknown option 'num_warp' (the "
                       "options are num_warps, num_stages,",
                       0),
            0u)
      << tile_last_error();

  // Arguments, on a kernel built from its description.
  tile_kernel fmha =
      reinterpret_cast<tile_kernel>(makeUnloadedKernel(fmhaInfo()).get());
  EXPECT_STREQ(tile_kernel_name(fmha), "fmha");
  EXPECT_EQ(tile_kernel_num_params(fmha), 6u);
  EXPECT_EQ(tile_kernel_num_warps(fmha), 4u);
  EXPECT_EQ(tile_kernel_shared_bytes(fmha), 65536u);
  int64_t shape[4] = {2, 8, 128, 64}, strides[4] = {65536, 8192, 64, 1};
  tile_arg args[6];
  for (int i = 0; i < 4; ++i) {
    args[i].kind = TILE_ARG_TENSOR;
    args[i].value.tensor = {fakePointer(256), TILE_F16, 4, shape, strides};
  }
  args[4].kind = TILE_ARG_FLOAT;
  args[4].value.f = 0.125f;
  args[5].kind = TILE_ARG_INT;
  args[5].value.i = 0;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_OK) << tile_last_error();
  args[1].value.tensor.rank = 3;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "kernel 'fmha': argument 2 ('K'): expected "
                                  "a rank-4 tensor, got rank 3");
  args[1].value.tensor.rank = 4;
  args[1].value.tensor.shape = nullptr;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "kernel 'fmha': argument 2 ('K'): null shape or strides array");
  args[1].value.tensor.shape = shape;
  args[2].kind = static_cast<tile_arg_kind>(9);
  EXPECT_EQ(tile_kernel_launch(fmha, 1, 1, 1, nullptr, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "argument 3: unknown tile_arg kind 9");
  EXPECT_EQ(tile_kernel_check(fmha, nullptr, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_kernel_launch: num_args is 6 but args is NULL");
  EXPECT_EQ(tile_kernel_check(fmha, args, 0), TILE_ERROR);
  std::string mine = tile_last_error();
  EXPECT_EQ(mine, "kernel 'fmha': expected 6 arguments (Q, K, V, Out, "
                  "qk_scale, input_pos), got 0");

  // The message is per thread.
  std::string other;
  std::thread([&] {
    EXPECT_STREQ(tile_last_error(), "");
    tile_load_ptx(nullptr, nullptr);
    other = tile_last_error();
  }).join();
  EXPECT_EQ(other, "tile_load_ptx: NULL path or kernel pointer");
  EXPECT_EQ(tile_last_error(), mine);

  tile_stats stats;
  EXPECT_EQ(tile_runtime_stats(&stats), TILE_OK);
  EXPECT_EQ(tile_runtime_stats(nullptr), TILE_ERROR);
}

int main(int argc, char **argv) {
  // Keep the process-wide runtime's disk cache out of the user's home.
  std::string dir = temporaryDirectory("tile-runtime-test");
  setenv("TILEC_CACHE_DIR", dir.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  llvm::sys::fs::remove_directories(dir);
  return result;
}

//===----------------------------------------------------------------------===//
// tile::attention's argument checks (no GPU: they come before it)
//===----------------------------------------------------------------------===//

namespace {
/// A tensor at its own fake address, so that tensors do not overlap.
Tensor attnTensor(uintptr_t slot, std::vector<int64_t> shape,
                  DType dtype = DType::F16) {
  return Tensor::contiguous(reinterpret_cast<void *>(slot << 32), dtype,
                            std::move(shape));
}

struct AttnArgs {
  Tensor q = attnTensor(1, {2, 8, 128, 64});
  Tensor k = attnTensor(2, {2, 2, 96, 64});
  Tensor v = attnTensor(3, {2, 2, 96, 64});
  Tensor out = attnTensor(4, {2, 8, 128, 64});
  AttentionOptions options;

  std::string check() const {
    return checkAttention(q, k, v, out, options).message();
  }
  /// The same through the C API.
  std::string checkC() const {
    auto c = [](const Tensor &t) {
      tile_tensor r;
      r.data = t.data;
      r.dtype = static_cast<tile_dtype>(t.dtype);
      r.rank = static_cast<int32_t>(t.shape.size());
      r.shape = t.shape.data();
      r.strides = t.strides.data();
      return r;
    };
    tile_tensor tq = c(q), tk = c(k), tv = c(v), to = c(out);
    tile_attention_options o = {};
    o.causal = options.causal;
    o.has_scale = options.scale.has_value();
    o.scale = options.scale.value_or(0);
    o.input_pos = options.inputPos;
    return tile_attention_check(&tq, &tk, &tv, &to, &o) == TILE_OK
               ? ""
               : tile_last_error();
  }
};
} // namespace

TEST(Attention, AcceptsWhatTheKernelComputes) {
  AttnArgs a;
  EXPECT_EQ(a.check(), "");
  EXPECT_EQ(a.checkC(), "");
  // Head dims: every multiple of 8 up to 256.
  for (int64_t d : {8, 32, 72, 80, 96, 136, 192, 256}) {
    AttnArgs b;
    for (Tensor *t : {&b.q, &b.k, &b.v, &b.out}) {
      t->shape[3] = d;
      *t = Tensor::contiguous(t->data, t->dtype, t->shape);
    }
    EXPECT_EQ(b.check(), "") << d;
  }
  // MQA, bf16, causal with input_pos, an explicit scale.
  AttnArgs m;
  m.k = attnTensor(2, {2, 1, 96, 64}, DType::BF16);
  m.v = attnTensor(3, {2, 1, 96, 64}, DType::BF16);
  m.q = attnTensor(1, {2, 8, 128, 64}, DType::BF16);
  m.out = attnTensor(4, {2, 8, 128, 64}, DType::BF16);
  m.options.causal = true;
  m.options.inputPos = 100;
  m.options.scale = 0.5f;
  EXPECT_EQ(m.check(), "");
  // (B, N, H, D) memory viewed as (B, H, N, D): permuted strides.
  AttnArgs s;
  s.q.strides = {128 * 8 * 64, 64, 8 * 64, 1};
  s.out.strides = s.q.strides;
  EXPECT_EQ(s.check(), "");
  // Empty inputs are a no-op, with or without data.
  AttnArgs e;
  e.q = Tensor(nullptr, DType::F16, {0, 8, 128, 64}, {65536, 8192, 64, 1});
  e.out = e.q;
  e.k.shape[0] = e.v.shape[0] = 0;
  EXPECT_EQ(e.check(), "");
  EXPECT_TRUE(attention(e.q, e.k, e.v, e.out).ok())
      << "an empty problem needs no GPU";
  AttnArgs z;
  z.q.shape[2] = z.out.shape[2] = 0;
  EXPECT_TRUE(attention(z.q, z.k, z.v, z.out).ok());
}

TEST(Attention, RefusalsNameTheArgument) {
  auto expect = [](const std::function<void(AttnArgs &)> &change,
                   const std::string &message) {
    AttnArgs a;
    change(a);
    EXPECT_EQ(a.check(), "tile::attention: " + message);
    EXPECT_EQ(a.checkC(), "tile::attention: " + message);
  };
  expect(
      [](AttnArgs &a) {
        a.k = attnTensor(2, {2, 96, 64});
      },
      "k: expected a rank-4 tensor (batch, heads, seq, head_dim), got "
      "rank 3");
  {
    // (The C API's tile_tensor has one rank for both.)
    AttnArgs a;
    a.v.strides.pop_back();
    EXPECT_EQ(a.check(), "tile::attention: v: the shape has 4 entries but the "
                         "strides have 3");
  }
  expect([](AttnArgs &a) { a.q.dtype = DType::F32; },
         "q: dtype f32 is not supported; attention takes f16 or bf16");
  expect([](AttnArgs &a) { a.v.dtype = DType::BF16; },
         "v: dtype bf16 does not match q's f16");
  expect([](AttnArgs &a) { a.out.dtype = DType::BF16; },
         "out: dtype bf16 does not match q's f16");
  expect(
      [](AttnArgs &a) {
        a.k.shape[1] = 16;
        a.v.shape[1] = 16;
      },
      "k: has 16 heads, more than q's 8");
  expect(
      [](AttnArgs &a) {
        a.k.shape[1] = 3;
        a.v.shape[1] = 3;
      },
      "q: its 8 heads are not a multiple of k's 3 (grouped-query attention "
      "shares each k/v head among heads / kv_heads query heads)");
  expect(
      [](AttnArgs &a) {
        a.k.shape[1] = 0;
        a.v.shape[1] = 0;
      },
      "k: has 0 heads; q has 8");
  expect([](AttnArgs &a) { a.v.shape[1] = 1; }, "v: has 1 heads, k has 2");
  expect([](AttnArgs &a) { a.v.shape[2] = 95; },
         "v: seq_k 95 does not match k's 96");
  expect([](AttnArgs &a) { a.k.shape[0] = 3; },
         "k: batch 3 does not match q's 2");
  expect([](AttnArgs &a) { a.v.shape[3] = 32; },
         "v: head_dim 32 does not match q's 64 (the kernel takes one head dim "
         "for q, k and v)");
  expect(
      [](AttnArgs &a) {
        for (Tensor *t : {&a.q, &a.k, &a.v, &a.out})
          t->shape[3] = 60;
      },
      "q: head_dim 60 is not a multiple of 8");
  expect(
      [](AttnArgs &a) {
        for (Tensor *t : {&a.q, &a.k, &a.v, &a.out})
          t->shape[3] = 264;
      },
      "q: head_dim 264 is over 256, the largest supported");
  expect([](AttnArgs &a) { a.out.shape[2] = 64; },
         "out: shape [2, 8, 64, 64] does not match q's [2, 8, 128, 64]");
  expect([](AttnArgs &a) { a.q.strides[3] = 2; },
         "q: the head_dim dimension must be contiguous (stride 1), got strides "
         "[65536, 8192, 64, 2]");
  expect([](AttnArgs &a) { a.k.strides[0] = -1; },
         "k: strides[0] = -1 is negative; negative strides are not supported");
  expect([](AttnArgs &a) { a.q.shape[2] = -4; },
         "q: shape[2] = -4 is negative");
  expect([](AttnArgs &a) { a.v.data = nullptr; },
         "v: null data pointer for a non-empty tensor of shape [2, 2, 96, 64]");
  expect([](AttnArgs &a) { a.options.inputPos = -1; },
         "input_pos: -1 is negative");
  expect([](AttnArgs &a) { a.options.inputPos = INT32_MAX; },
         "input_pos: 2147483647 + seq_q exceeds 2^31-1");
  expect([](AttnArgs &a) { a.options.scale = NAN; },
         "scale: nan is not a finite number");
  expect([](AttnArgs &a) { a.out.data = a.q.data; },
         "out: overlaps q (attention cannot write over its inputs)");
  expect(
      [](AttnArgs &a) {
        a.out.data = static_cast<char *>(a.v.data) + 2 * 2 * 96 * 64 * 2 - 2;
      },
      "out: overlaps v (attention cannot write over its inputs)");
  expect([](AttnArgs &a) { a.k.shape[2] = a.v.shape[2] = 0; },
         "k: seq_k is 0 while seq_q is 128: attention over no keys is "
         "undefined");
  expect(
      [](AttnArgs &a) {
        a.q = attnTensor(1, {8192, 8, 128, 64});
        a.out = attnTensor(5, {8192, 8, 128, 64});
        a.k = attnTensor(2, {8192, 2, 96, 64});
        a.v = attnTensor(3, {8192, 2, 96, 64});
      },
      "q: batch * heads = 65536 exceeds 65535, the kernel grid's limit");
  // The C API's own malformed inputs.
  AttnArgs a;
  tile_tensor bad = {};
  bad.rank = -1;
  EXPECT_NE(tile_attention_check(&bad, &bad, &bad, &bad, nullptr), TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile::attention: q: malformed tile_tensor (rank -1, dtype 0)");
  EXPECT_NE(tile_attention_check(nullptr, &bad, &bad, &bad, nullptr), TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()), "tile::attention: q: NULL tensor");
}

TEST(Attention, ConfigThroughTheCApi) {
  // An empty problem has no configuration and needs no GPU.
  std::vector<int64_t> shape = {0, 8, 128, 64}, strides = {65536, 8192, 64, 1};
  tile_tensor t[4];
  for (int i = 0; i < 4; ++i) {
    t[i] = {};
    t[i].data = reinterpret_cast<void *>(uintptr_t(i + 1) << 36);
    t[i].dtype = TILE_F16;
    t[i].rank = 4;
    t[i].shape = shape.data();
    t[i].strides = strides.data();
  }
  size_t needed = 99;
  char buffer[8] = "unset";
  ASSERT_EQ(tile_attention_config(&t[0], &t[1], &t[2], &t[3], nullptr, nullptr,
                                  buffer, sizeof(buffer), &needed),
            TILE_OK)
      << tile_last_error();
  EXPECT_EQ(needed, 1u);
  EXPECT_STREQ(buffer, "");
  // Only the length asked for.
  needed = 0;
  EXPECT_EQ(tile_attention_config(&t[0], &t[1], &t[2], &t[3], nullptr, nullptr,
                                  nullptr, 0, &needed),
            TILE_OK);
  EXPECT_EQ(needed, 1u);
  // A buffer that is not there, and the checks' refusals.
  EXPECT_NE(tile_attention_config(&t[0], &t[1], &t[2], &t[3], nullptr, nullptr,
                                  nullptr, 8, &needed),
            TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile_attention_config: NULL buffer of size 8");
  EXPECT_NE(tile_attention_config(nullptr, &t[1], &t[2], &t[3], nullptr,
                                  nullptr, buffer, sizeof(buffer), &needed),
            TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()), "tile::attention: q: NULL tensor");
}

TEST(Autotune, WithoutAGpuIsAClearError) {
  // No candidates, and no GPU (the tests run where there may be none).
  std::vector<TuneCandidate> none;
  Expected<TuneResult> result = autotune(
      "kernel k(): pass", "k.tile", CompileOptions(), none, "key",
      [](const Kernel &, const TuneCandidate &, Stream) { return Status(); });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "autotune: no candidates");
  TuneCandidate c;
  c.constants = {{"TILE_M", "128"}, {"TILE_N", "64"}};
  c.options.numStages = 2;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2");
  c.options.loopSplit = false;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2,loop_split=off");
  c.options.loopSplit.reset();
  c.options.persistent = true;
  c.options.tileStages = 1;
  c.options.tileRefillAfterRead = true;
  c.options.rescaleInTrip = true;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2,persistent=on,"
                          "tile_stages=1,tile_refill_after_read=on,"
                          "rescale_in_trip=on");
  // describe() and parse() round-trip; names that are options set them,
  // the rest are constants.
  Expected<TuneCandidate> parsed = TuneCandidate::parse(c.describe());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->constants, c.constants);
  EXPECT_TRUE(parsed->options == c.options);
  EXPECT_EQ(parsed->describe(), c.describe());
  Expected<TuneCandidate> bad = TuneCandidate::parse("TILE_M=64,cluster=3");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "tune candidate 'TILE_M=64,cluster=3': cluster must be a power of "
            "two from 1 to 8, got 3");
}

TEST(Autotune, DisabledByTheEnvironment) {
  const char *saved = std::getenv("TILEC_AUTOTUNE");
  std::string keep = saved ? saved : "";
  for (const char *off : {"0", "off", "OFF", "false", "no"}) {
    setenv("TILEC_AUTOTUNE", off, 1);
    EXPECT_TRUE(autotuneDisabled()) << off;
  }
  for (const char *on : {"1", "on", ""}) {
    setenv("TILEC_AUTOTUNE", on, 1);
    EXPECT_FALSE(autotuneDisabled()) << on;
    EXPECT_FALSE(autotuneVerbose()) << on;
  }
  // Verbose tunes, and says so.
  for (const char *verbose : {"verbose", "VERBOSE"}) {
    setenv("TILEC_AUTOTUNE", verbose, 1);
    EXPECT_FALSE(autotuneDisabled()) << verbose;
    EXPECT_TRUE(autotuneVerbose()) << verbose;
  }
  if (saved)
    setenv("TILEC_AUTOTUNE", keep.c_str(), 1);
  else
    unsetenv("TILEC_AUTOTUNE");
}
