//===- TensorMapTest.cpp - TMA descriptors at launch, no GPU needed -------===//
//
// The "tensor_maps" and "tma_fallback" fields of the kernel description
// (round trip, old descriptions, every malformed entry), what a launch checks
// of a tensor the kernel copies with TMA (one test per requirement, each
// with its message), the cuTensorMapEncodeTiled arguments built from a
// tensor, and the per-kernel descriptor cache, driven by a fake encoder that
// counts its calls: hits, misses, eviction, failures, threads, and no
// allocation on the hit path.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"
#include "tile/Tile.h"
#include "tile/tile.h"
#include "tilec/Target/KernelInfo.h"

#include "KernelParams.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

using namespace tile;
using namespace tile::detail;
using tile::test::scalarParam;
using tile::test::tensorParam;
using tilec::ElementKind;
using tilec::KernelInfo;
using tilec::KernelParam;
using tilec::ScalarKind;
using tilec::TensorMapFill;
using tilec::TensorMapInfo;

//===----------------------------------------------------------------------===//
// Counting allocations (for the hit path)
//===----------------------------------------------------------------------===//

static thread_local long allocations = 0;

// (GCC 12 inlines these into callers and takes the free of a pointer from
// this operator new for a mismatched pair: -Wmismatched-new-delete, a
// false positive for a replacement pair built on malloc and free.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void *operator new(std::size_t size) {
  ++allocations;
  void *pointer = std::malloc(size ? size : 1);
  if (!pointer)
    std::abort(); // built without exceptions
  return pointer;
}
void operator delete(void *pointer) noexcept { std::free(pointer); }
void operator delete(void *pointer, std::size_t) noexcept {
  std::free(pointer);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

TensorMapInfo tensorMap(unsigned param, std::vector<unsigned> box,
                        unsigned swizzle = 128,
                        TensorMapFill fill = TensorMapFill::Zero) {
  TensorMapInfo map;
  map.param = param;
  map.box = std::move(box);
  map.swizzle = swizzle;
  map.fill = fill;
  return map;
}

/// A GEMM-like kernel: A and B copied with TMA (B twice, two boxes), C
/// stored without, then a scalar.
KernelInfo gemmInfo() {
  KernelInfo info;
  info.name = "gemm";
  info.arch = "sm_90a";
  info.params = {tensorParam("A", ElementKind::F16, 2),
                 tensorParam("B", ElementKind::F16, 2),
                 tensorParam("C", ElementKind::F32, 2),
                 scalarParam("alpha", ScalarKind::F32)};
  info.tensorMaps = {tensorMap(0, {128, 64}), tensorMap(1, {64, 64}),
                     tensorMap(1, {64, 32}, 64, TensorMapFill::NaN)};
  return info;
}

void *fakePointer(uintptr_t alignment, uintptr_t which = 0) {
  return reinterpret_cast<void *>(uintptr_t(1) << 40 | which << 20 | alignment);
}

std::vector<Arg> gemmArgs(void *a = fakePointer(256), int64_t m = 512,
                          int64_t k = 256) {
  return {Tensor::contiguous(a, DType::F16, {m, k}),
          Tensor::contiguous(fakePointer(256, 1), DType::F16, {k, 384}),
          Tensor::contiguous(fakePointer(256, 2), DType::F32, {m, 384}), 1.0f};
}

/// The tensor map part of an argument check's message ("" when fine).
std::string checkMessage(const KernelInfo &info, const std::vector<Arg> &args) {
  return makeUnloadedKernel(info).check(args).message();
}

//===----------------------------------------------------------------------===//
// A fake cuTensorMapEncodeTiled
//===----------------------------------------------------------------------===//

struct FakeEncoder {
  std::atomic<int> calls{0};
  CUresult result = CUDA_SUCCESS;
  TensorMapEncoding last; // written by single-threaded tests only
};
FakeEncoder *fake = nullptr;

/// Records its call and writes the address, rank and sizes into the map, so
/// that a test can tell which descriptor it got.
CUresult fakeEncode(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                    void *address, const cuuint64_t *dims,
                    const cuuint64_t *strides, const cuuint32_t *box,
                    const cuuint32_t *elementStrides,
                    CUtensorMapInterleave interleave,
                    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                    CUtensorMapFloatOOBfill fill) {
  ++fake->calls;
  if (fake->result != CUDA_SUCCESS)
    return fake->result;
  if (reinterpret_cast<uintptr_t>(map) % 64)
    return CUDA_ERROR_INVALID_VALUE; // as the driver requires
  std::memset(map, 0, sizeof(*map));
  map->opaque[0] = reinterpret_cast<uintptr_t>(address);
  map->opaque[1] = rank;
  for (cuuint32_t i = 0; i < rank && i < 5; ++i)
    map->opaque[2 + i] = dims[i];
  map->opaque[7] = rank > 1 ? strides[0] : 0;
  map->opaque[8] = box[0];
  return CUDA_SUCCESS;
}

CUresult recordingEncode(CUtensorMap *map, CUtensorMapDataType type,
                         cuuint32_t rank, void *address, const cuuint64_t *dims,
                         const cuuint64_t *strides, const cuuint32_t *box,
                         const cuuint32_t *elementStrides,
                         CUtensorMapInterleave interleave,
                         CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                         CUtensorMapFloatOOBfill fill) {
  TensorMapEncoding &e = fake->last;
  e = TensorMapEncoding();
  e.dataType = type;
  e.rank = rank;
  e.address = address;
  for (cuuint32_t i = 0; i < rank; ++i) {
    e.globalDim[i] = dims[i];
    e.boxDim[i] = box[i];
    e.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      e.globalStrides[i] = strides[i];
  }
  e.interleave = interleave;
  e.swizzle = swizzle;
  e.l2Promotion = l2;
  e.oobFill = fill;
  return fakeEncode(map, type, rank, address, dims, strides, box,
                    elementStrides, interleave, swizzle, l2, fill);
}

class TensorMapFixture : public ::testing::Test {
protected:
  void SetUp() override { fake = &encoder; }
  void TearDown() override { fake = nullptr; }
  FakeEncoder encoder;
};

/// Checks `args` for `kernel` and builds its descriptors with `encode`.
Status launchMaps(Kernel kernel, const std::vector<Arg> &args,
                  TensorMapEncodeFn encode, CUtensorMap *maps,
                  PackedArgs &packed) {
  ArgRefs refs;
  toArgRefs(args, refs);
  AlignmentFit fit;
  Status status = checkArguments(kernel.get()->info, refs, packed, fit);
  if (!status.ok())
    return status;
  return tensorMapsForLaunch(*kernel.get(), refs.data(), refs.size(), encode,
                             nullptr, maps, packed);
}

} // namespace

//===----------------------------------------------------------------------===//
// The description
//===----------------------------------------------------------------------===//

TEST(TensorMapJSON, RoundTrip) {
  KernelInfo info = gemmInfo();
  info.tmaFallback = {"C: stored without TMA", "K: \"strides\" unknown"};
  std::string json = info.toJSON();
  EXPECT_NE(json.find("\"tensor_maps\":[{\"box\":[128,64],\"fill\":\"zero\","
                      "\"param\":0,\"swizzle\":128},"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"box\":[64,32],\"fill\":\"nan\",\"param\":1,"
                      "\"swizzle\":64}]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"tma_fallback\":[\"C: stored without TMA\","),
            std::string::npos)
      << json;

  std::string error;
  std::optional<KernelInfo> parsed = KernelInfo::fromJSON(json, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->tensorMaps, info.tensorMaps);
  EXPECT_EQ(parsed->tmaFallback, info.tmaFallback);
  EXPECT_EQ(parsed->toJSON(), json);

  // The PTX header carries them, so AOT-loaded kernels get them too.
  Expected<KernelInfo> header =
      parsePTXHeader("// tilec-kernel: " + json + "\n.version 8.0\n");
  ASSERT_TRUE(header) << header.status().message();
  EXPECT_EQ(header->tensorMaps, info.tensorMaps);
  EXPECT_EQ(header->tmaFallback, info.tmaFallback);
  Kernel kernel = makeUnloadedKernel(*header);
  EXPECT_EQ(kernel.numTensorMaps(), 3u);
  EXPECT_EQ(kernel.tmaFallback(), info.tmaFallback);
  tile_kernel handle = reinterpret_cast<tile_kernel>(kernel.get());
  EXPECT_EQ(tile_kernel_num_tensor_maps(handle), 3u);
  EXPECT_EQ(tile_kernel_num_tma_fallbacks(handle), 2u);
  EXPECT_STREQ(tile_kernel_tma_fallback(handle, 0), "C: stored without TMA");
  EXPECT_EQ(tile_kernel_tma_fallback(handle, 2), nullptr);
  EXPECT_EQ(tile_kernel_num_tensor_maps(nullptr), 0u);
  EXPECT_EQ(tile_kernel_tma_fallback(nullptr, 0), nullptr);
}

TEST(TensorMapJSON, AbsentMeansNone) {
  // Kernels without TMA are described as before: no new keys.
  KernelInfo info = gemmInfo();
  info.tensorMaps.clear();
  std::string json = info.toJSON();
  EXPECT_EQ(json.find("tensor_maps"), std::string::npos) << json;
  EXPECT_EQ(json.find("tma_fallback"), std::string::npos) << json;
  // A description written before the fields existed.
  std::string error;
  std::optional<KernelInfo> old = KernelInfo::fromJSON(
      R"({"abi":1,"name":"k","num_warps":4,"shared_bytes":0,)"
      R"("params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2}]})",
      error);
  ASSERT_TRUE(old) << error;
  EXPECT_TRUE(old->tensorMaps.empty());
  EXPECT_TRUE(old->tmaFallback.empty());
  EXPECT_EQ(makeUnloadedKernel(*old).numTensorMaps(), 0u);
}

TEST(TensorMapJSON, RejectsMalformed) {
  const std::string params =
      R"("params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2},)"
      R"({"name":"s","kind":"float"},)"
      R"({"name":"X","kind":"tensor","dtype":"f32","rank":6},)"
      R"({"name":"M","kind":"tensor","dtype":"bool","rank":1},)"
      R"({"name":"I","kind":"tensor","dtype":"i32","rank":1}])";
  auto parse = [&](const std::string &tail) {
    std::string error;
    std::optional<KernelInfo> info =
        KernelInfo::fromJSON(R"({"name":"k","num_warps":4,"shared_bytes":0,)" +
                                 params + "," + tail + "}",
                             error);
    EXPECT_FALSE(info) << tail;
    return error;
  };
  auto map = [](const std::string &fields) {
    return "\"tensor_maps\":[" + fields + "]";
  };
  struct Case {
    std::string json, message;
  } cases[] = {
      {R"("tensor_maps":{})", "\"tensor_maps\" must be an array"},
      {map("3"), "tensor_maps[0]: expected an object"},
      {map(R"({"box":[8,64],"swizzle":128,"fill":"zero"})"),
       "tensor_maps[0]: missing \"param\""},
      {map(R"({"param":9,"box":[8,64],"swizzle":128,"fill":"zero"})"),
       "tensor_maps[0]: \"param\" is 9 but the kernel has 5 parameters"},
      {map(R"({"param":-1,"box":[8,64],"swizzle":128,"fill":"zero"})"),
       "\"param\" is -1, expected a value in [0, 1024]"},
      {map(R"({"param":1,"box":[8],"swizzle":0,"fill":"zero"})"),
       "tensor_maps[0] (parameter 's'): parameter 's' is not a tensor"},
      {map(R"({"param":2,"box":[1,1,1,1,1,4],"swizzle":0,"fill":"zero"})"),
       "\"box\" has 6 entries; a tensor map has at most 5 dimensions"},
      {map(R"({"param":2,"box":[1,1,1,1,4],"swizzle":0,"fill":"zero"})"),
       "parameter 'X' has rank 6; a tensor map needs rank 1 to 5"},
      {map(R"({"param":3,"box":[16],"swizzle":0,"fill":"zero"})"),
       "parameter 'M' is a bool tensor; tensor maps take f16, bf16, f32, i32 "
       "and the 8-bit floats"},
      {map(R"({"param":0,"swizzle":128,"fill":"zero"})"),
       "tensor_maps[0] (parameter 'A'): missing \"box\""},
      {map(R"({"param":0,"box":64,"swizzle":128,"fill":"zero"})"),
       "\"box\" must be an array of integers"},
      {map(R"({"param":0,"box":[64],"swizzle":128,"fill":"zero"})"),
       "\"box\" has 1 entries; parameter 'A' has rank 2"},
      {map(R"({"param":0,"box":[0,64],"swizzle":128,"fill":"zero"})"),
       "box[0] must be an integer in [1, 256]"},
      {map(R"({"param":0,"box":[257,64],"swizzle":128,"fill":"zero"})"),
       "box[0] must be an integer in [1, 256]"},
      {map(R"({"param":0,"box":["8",64],"swizzle":128,"fill":"zero"})"),
       "box[0] must be an integer in [1, 256]"},
      {map(R"({"param":0,"box":[8,64],"fill":"zero"})"), "missing \"swizzle\""},
      {map(R"({"param":0,"box":[8,64],"swizzle":16,"fill":"zero"})"),
       "\"swizzle\" is 16, expected 0, 32, 64 or 128 (bytes)"},
      {map(R"({"param":0,"box":[8,64],"swizzle":256,"fill":"zero"})"),
       "\"swizzle\" is 256, expected a value in [0, 128]"},
      {map(R"({"param":0,"box":[8,4],"swizzle":0,"fill":"zero"})"),
       "the innermost box dimension is 8 bytes (4 x f16), not a multiple of "
       "16 bytes"},
      {map(R"({"param":0,"box":[8,12],"swizzle":32,"fill":"zero"})"),
       "the innermost box dimension is 24 bytes (12 x f16), not a multiple "
       "of 16 bytes"},
      {map(R"({"param":0,"box":[8,128],"swizzle":128,"fill":"zero"})"),
       "the innermost box dimension is 256 bytes (128 x f16), more than the "
       "128-byte swizzle span"},
      {map(R"({"param":0,"box":[8,32],"swizzle":32,"fill":"zero"})"),
       "64 bytes (32 x f16), more than the 32-byte swizzle span"},
      {map(R"({"param":0,"box":[8,64],"swizzle":128})"), "missing \"fill\""},
      {map(R"({"param":0,"box":[8,64],"swizzle":128,"fill":"inf"})"),
       "unknown \"fill\" 'inf' (expected zero or nan)"},
      {map(R"({"param":4,"box":[8],"swizzle":32,"fill":"nan"})"),
       "\"fill\": \"nan\" needs a floating-point tensor; parameter 'I' is "
       "i32"},
      {R"("tma_fallback":"no")",
       "\"tma_fallback\" must be an array of strings"},
      {R"("tma_fallback":["ok",1])", "tma_fallback[1] must be a string"},
  };
  for (const Case &c : cases) {
    std::string error = parse(c.json);
    EXPECT_NE(error.find(c.message), std::string::npos)
        << c.json << "\n  gave: " << error << "\n  expected: " << c.message;
  }

  // At most kMaxTensorMaps.
  std::string many;
  for (unsigned i = 0; i <= tilec::kMaxTensorMaps; ++i)
    many += std::string(i ? "," : "") +
            R"({"param":0,"box":[8,64],"swizzle":128,"fill":"zero"})";
  EXPECT_NE(parse(map(many)).find("17 tensor maps; a kernel takes at most 16"),
            std::string::npos);

  // The edges that are fine: 16-byte rows unswizzled, a row that fills the
  // span, box 256, every swizzle.
  for (const char *fine :
       {R"({"param":0,"box":[256,8],"swizzle":0,"fill":"zero"})",
        R"({"param":0,"box":[1,16],"swizzle":32,"fill":"nan"})",
        R"({"param":0,"box":[1,32],"swizzle":64,"fill":"zero"})",
        R"({"param":0,"box":[1,64],"swizzle":128,"fill":"zero"})",
        R"({"param":4,"box":[256],"swizzle":0,"fill":"zero"})"}) {
    std::string error;
    EXPECT_TRUE(KernelInfo::fromJSON(R"({"name":"k","num_warps":4,)"
                                     R"("shared_bytes":0,)" +
                                         params + "," + map(fine) + "}",
                                     error))
        << fine << ": " << error;
  }
}

//===----------------------------------------------------------------------===//
// What a launch checks
//===----------------------------------------------------------------------===//

TEST(TensorMapArguments, EveryRequirementHasAClearError) {
  KernelInfo info = gemmInfo();
  ASSERT_EQ(checkMessage(info, gemmArgs()), "");

  // Parameters whose own alignment and contiguity do not already imply what
  // TMA needs (the compiler requests TMA only where they do; the runtime
  // checks anyway).
  KernelInfo loose = info;
  loose.params[0] = tensorParam("A", ElementKind::F16, 2, /*alignment=*/2,
                                /*contiguous=*/false);
  ASSERT_EQ(checkMessage(loose, gemmArgs()), "");

  auto withA = [&](Tensor a) {
    std::vector<Arg> args = gemmArgs();
    args[0] = a;
    return checkMessage(loose, args);
  };
  const std::string prefix = "kernel 'gemm': argument 1 ('A'): the kernel "
                             "copies this tensor with TMA, which needs ";

  EXPECT_EQ(withA(Tensor(fakePointer(256), DType::F16, {512, 256}, {1, 512})),
            prefix + "a contiguous last dimension (stride 1); got "
                     "strides[1] = 512");
  EXPECT_EQ(withA(Tensor::contiguous(fakePointer(8), DType::F16, {512, 256})),
            prefix + "a 16-byte aligned base pointer; got 0x10000000008");
  EXPECT_EQ(withA(Tensor(fakePointer(256), DType::F16, {512, 256}, {260, 1})),
            prefix + "byte strides that are multiples of 16; got strides[0] "
                     "= 260 elements (520 bytes)");
  EXPECT_EQ(withA(Tensor(fakePointer(256), DType::F16, {512, 256},
                         {int64_t(1) << 39, 1})),
            prefix + "byte strides below 2^40; got strides[0] = "
                     "549755813888 elements of 2 bytes");
  // Strides of size-1 dimensions never move the address: anything goes,
  // and so does the last one when the last dimension has one element.
  EXPECT_EQ(withA(Tensor(fakePointer(256), DType::F16, {1, 256}, {3, 1})), "");
  EXPECT_EQ(withA(Tensor(fakePointer(256), DType::F16, {64, 1}, {64, 7})), "");

  // Sizes below 2^32: the ordinary checks stop at 2^31-1, so this one is
  // reached directly.
  {
    int64_t shape[2] = {int64_t(1) << 32, 64}, strides[2] = {64, 1};
    ArgRef arg;
    arg.kind = Arg::Kind::Tensor;
    arg.data = fakePointer(256);
    arg.dtype = DType::F16;
    arg.shape = shape;
    arg.strides = strides;
    arg.shapeSize = arg.stridesSize = 2;
    EXPECT_EQ(tensorMapArgumentProblem(info.tensorMaps[0], info.params[0], arg),
              "the kernel copies this tensor with TMA, which needs sizes "
              "below 2^32; got shape[0] = 4294967296");
    // A tensor map that does not fit its parameter (built without fromJSON).
    TensorMapInfo bad = tensorMap(0, {64});
    EXPECT_EQ(tensorMapArgumentProblem(bad, info.params[0], arg),
              "the kernel's tensor map for it is malformed (rank 2, box of 1 "
              "entries)");
  }

  // A tensor map naming a parameter that does not exist (built without
  // fromJSON).
  KernelInfo dangling = info;
  dangling.tensorMaps.push_back(tensorMap(7, {8, 64}));
  EXPECT_EQ(checkMessage(dangling, gemmArgs()),
            "kernel 'gemm': the kernel's tensor map 3 names parameter 7 of 4");

  // The ordinary alignment check comes first, so that a JIT kernel can move
  // to a variant (which the compiler builds without TMA).
  EXPECT_NE(checkMessage(info, {Tensor::contiguous(fakePointer(8), DType::F16,
                                                   {512, 256}),
                                gemmArgs()[1], gemmArgs()[2], 1.0f})
                .find("is not 16-byte aligned, which the kernel assumes"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// The encode call
//===----------------------------------------------------------------------===//

TEST_F(TensorMapFixture, EncodeArguments) {
  KernelInfo info;
  info.name = "k";
  info.params = {tensorParam("T", ElementKind::BF16, 4)};
  info.tensorMaps = {tensorMap(0, {1, 2, 64, 32}, 64, TensorMapFill::NaN)};
  Kernel kernel = makeUnloadedKernel(info);
  // A permuted, padded view: [2, 3, 100, 32] with strides in elements.
  std::vector<Arg> args = {Tensor(fakePointer(256), DType::BF16,
                                  {2, 3, 100, 32}, {40 * 100 * 3, 40, 120, 1})};
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  PackedArgs packed;
  ASSERT_TRUE(launchMaps(kernel, args, recordingEncode, maps, packed).ok());
  const TensorMapEncoding &e = encoder.last;
  EXPECT_EQ(e.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(e.rank, 4u);
  EXPECT_EQ(e.address, fakePointer(256));
  // Innermost first.
  EXPECT_EQ(std::vector<cuuint64_t>(e.globalDim, e.globalDim + 4),
            (std::vector<cuuint64_t>{32, 100, 3, 2}));
  EXPECT_EQ(std::vector<cuuint64_t>(e.globalStrides, e.globalStrides + 3),
            (std::vector<cuuint64_t>{240, 80, 24000}));
  EXPECT_EQ(std::vector<cuuint32_t>(e.boxDim, e.boxDim + 4),
            (std::vector<cuuint32_t>{32, 64, 2, 1}));
  EXPECT_EQ(std::vector<cuuint32_t>(e.elementStrides, e.elementStrides + 4),
            (std::vector<cuuint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(e.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_64B);
  EXPECT_EQ(e.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(e.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(e.describe(),
            "rank-4 BFLOAT16 tensor map at 0x10000000100 (innermost first: "
            "globalDim [32, 100, 3, 2], globalStrides [240, 80, 24000] bytes, "
            "box [32, 64, 2, 1], swizzle 64B, oob fill nan)");

  // Every element type and swizzle; a size-1 outer dimension gets a valid
  // stride whatever it had.
  struct Case {
    ElementKind element;
    DType dtype;
    unsigned swizzle;
    CUtensorMapDataType type;
    CUtensorMapSwizzle mode;
  } cases[] = {
      {ElementKind::F16, DType::F16, 0, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
       CU_TENSOR_MAP_SWIZZLE_NONE},
      {ElementKind::F32, DType::F32, 32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
       CU_TENSOR_MAP_SWIZZLE_32B},
      {ElementKind::I32, DType::I32, 128, CU_TENSOR_MAP_DATA_TYPE_INT32,
       CU_TENSOR_MAP_SWIZZLE_128B},
  };
  for (const Case &c : cases) {
    KernelInfo one;
    one.name = "k";
    one.params = {tensorParam("T", c.element, 2)};
    one.tensorMaps = {
        tensorMap(0, {4, 32 / tilec::elementBytes(c.element)}, c.swizzle)};
    PackedArgs packed;
    ASSERT_TRUE(launchMaps(makeUnloadedKernel(one),
                           {Tensor(fakePointer(256), c.dtype, {1, 40}, {3, 1})},
                           recordingEncode, maps, packed)
                    .ok());
    EXPECT_EQ(encoder.last.dataType, c.type);
    EXPECT_EQ(encoder.last.swizzle, c.mode);
    EXPECT_EQ(encoder.last.globalStrides[0], 16u);
    EXPECT_EQ(encoder.last.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
}

//===----------------------------------------------------------------------===//
// At launch, and the cache
//===----------------------------------------------------------------------===//

TEST_F(TensorMapFixture, DescriptorsFollowTheOrdinaryParameters) {
  Kernel kernel = makeUnloadedKernel(gemmInfo());
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  PackedArgs packed;
  ASSERT_TRUE(launchMaps(kernel, gemmArgs(), fakeEncode, maps, packed).ok());
  // Three tensors of rank 2 (5 slots each) and a float; then the 3 maps.
  ASSERT_EQ(packed.values.size(), 16u);
  ASSERT_EQ(packed.pointers.size(), 19u);
  for (size_t i = 0; i < 16; ++i)
    EXPECT_EQ(packed.pointers[i], &packed.values[i]);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(packed.pointers[16 + m], &maps[m]);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(packed.pointers[16 + m]) % 64, 0u);
  }
  // Map 0 is A's, maps 1 and 2 are B's with their own boxes.
  EXPECT_EQ(maps[0].opaque[0], reinterpret_cast<uintptr_t>(fakePointer(256)));
  EXPECT_EQ(maps[0].opaque[8], 64u);
  EXPECT_EQ(maps[1].opaque[0],
            reinterpret_cast<uintptr_t>(fakePointer(256, 1)));
  EXPECT_EQ(maps[1].opaque[8], 64u);
  EXPECT_EQ(maps[2].opaque[8], 32u);
  EXPECT_EQ(encoder.calls, 3);
}

TEST_F(TensorMapFixture, CacheHitsMissesAndEviction) {
  Kernel kernel = makeUnloadedKernel(gemmInfo());
  TensorMapCache &cache = kernel.get()->tensorMapCache;
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  auto launch = [&](std::vector<Arg> args) {
    PackedArgs packed;
    Status status = launchMaps(kernel, args, fakeEncode, maps, packed);
    EXPECT_TRUE(status.ok()) << status.message();
    return maps[0].opaque[0];
  };

  launch(gemmArgs());
  EXPECT_EQ(encoder.calls, 3);
  // The same tensors again: three hits, no encoding.
  for (int i = 0; i < 5; ++i)
    launch(gemmArgs());
  EXPECT_EQ(encoder.calls, 3);
  EXPECT_EQ(cache.stats().hits, 15u);
  EXPECT_EQ(cache.stats().misses, 3u);

  // Another pointer for A: only A's descriptor is built.
  EXPECT_EQ(launch(gemmArgs(fakePointer(256, 5))),
            reinterpret_cast<uintptr_t>(fakePointer(256, 5)));
  EXPECT_EQ(encoder.calls, 4);
  // Another shape or other strides for A: built again.
  launch(gemmArgs(fakePointer(256), 256));
  EXPECT_EQ(encoder.calls, 5);
  {
    std::vector<Arg> args = gemmArgs();
    args[0] = Tensor(fakePointer(256), DType::F16, {512, 256}, {512, 1});
    launch(args);
    EXPECT_EQ(encoder.calls, 6);
    EXPECT_EQ(maps[0].opaque[7], 1024u); // the byte stride
    launch(args);
    EXPECT_EQ(encoder.calls, 6);
  }
  // The first one is still there; the hit returns its descriptor.
  EXPECT_EQ(launch(gemmArgs()), reinterpret_cast<uintptr_t>(fakePointer(256)));
  EXPECT_EQ(maps[0].opaque[2], 256u);
  EXPECT_EQ(maps[0].opaque[3], 512u);
  EXPECT_EQ(encoder.calls, 6);

  // Rotating through as many pointers as the cache holds: all hits on the
  // second round. One more than it holds: all misses (round robin).
  Kernel fresh = makeUnloadedKernel(gemmInfo());
  kernel = fresh;
  int before = encoder.calls;
  for (int round = 0; round < 2; ++round)
    for (unsigned i = 0; i < TensorMapCache::kWays; ++i)
      launch(gemmArgs(fakePointer(256, 100 + i)));
  EXPECT_EQ(encoder.calls - before, int(TensorMapCache::kWays) + 2);
  before = encoder.calls;
  for (int round = 0; round < 2; ++round)
    for (unsigned i = 0; i <= TensorMapCache::kWays; ++i)
      launch(gemmArgs(fakePointer(256, 200 + i)));
  EXPECT_EQ(encoder.calls - before, 2 * int(TensorMapCache::kWays + 1));
}

TEST_F(TensorMapFixture, Failures) {
  Kernel kernel = makeUnloadedKernel(gemmInfo());
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  PackedArgs packed;

  // The driver lacks cuTensorMapEncodeTiled.
  Status status = launchMaps(kernel, gemmArgs(), nullptr, maps, packed);
  EXPECT_EQ(status.message(),
            "kernel 'gemm': it copies with TMA, but the CUDA driver lacks "
            "cuTensorMapEncodeTiled, which CUDA 12.0 and newer drivers have");

  // The encoder fails: the message names the argument and the call, and
  // nothing is cached.
  encoder.result = CUDA_ERROR_INVALID_VALUE;
  packed = PackedArgs();
  status = launchMaps(kernel, gemmArgs(), fakeEncode, maps, packed);
  EXPECT_EQ(status.message(),
            "kernel 'gemm': argument 1 ('A'): cuTensorMapEncodeTiled failed: "
            "CUDA error 1 for the rank-2 FLOAT16 tensor map at 0x10000000100 "
            "(innermost first: globalDim [256, 512], globalStrides [512] "
            "bytes, box [64, 128], swizzle 128B, oob fill zero)");
  encoder.result = CUDA_SUCCESS;
  packed = PackedArgs();
  EXPECT_TRUE(launchMaps(kernel, gemmArgs(), fakeEncode, maps, packed).ok());
  EXPECT_EQ(encoder.calls, 4); // 1 failed, then 3
  EXPECT_EQ(kernel.get()->tensorMapCache.stats().misses, 3u);

  // An empty tensor: TMA cannot describe it; on a GPU its descriptor
  // describes a zeroed stand-in (the GPU tests launch it), without one the
  // launch says so. check() accepts it (a launch of an empty grid is fine).
  std::vector<Arg> empty = gemmArgs(fakePointer(256), 0);
  EXPECT_TRUE(kernel.check(empty).ok()) << kernel.check(empty).message();
  packed = PackedArgs();
  status = launchMaps(kernel, empty, fakeEncode, maps, packed);
  EXPECT_EQ(status.message(),
            "kernel 'gemm': argument 1 ('A'): the kernel copies this tensor "
            "with TMA, which cannot describe an empty tensor (shape[0] = 0), "
            "and no GPU holds a stand-in for it");
  EXPECT_TRUE(kernel.launch(Dim3(0), nullptr, empty).ok());

  // Without a module the launch still says so, after the checks.
  status = kernel.launch(Dim3(1), nullptr, gemmArgs());
  EXPECT_NE(status.message().find("not loaded on a GPU"), std::string::npos)
      << status.message();
  std::vector<Arg> strided = gemmArgs();
  strided[1] = Tensor(fakePointer(256, 1), DType::F16, {256, 384}, {390, 1});
  status = kernel.launch(Dim3(1), nullptr, strided);
  EXPECT_NE(status.message().find("argument 2 ('B'): "), std::string::npos)
      << status.message();
}

TEST_F(TensorMapFixture, HitsAllocateNothing) {
  Kernel kernel = makeUnloadedKernel(gemmInfo());
  std::vector<Arg> args = gemmArgs();
  ArgRefs refs;
  toArgRefs(args, refs);
  alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
  auto once = [&] {
    PackedArgs packed;
    AlignmentFit fit;
    Status status = checkArguments(kernel.get()->info, refs, packed, fit);
    if (status.ok())
      status = tensorMapsForLaunch(*kernel.get(), refs.data(), refs.size(),
                                   fakeEncode, nullptr, maps, packed);
    return status.ok() && packed.pointers.size() == 19;
  };
  ASSERT_TRUE(once()); // the misses fill the cache
  long before = allocations;
  std::vector<int> counted(100); // the counter counts
  ASSERT_EQ(allocations - before, 1);
  before = allocations;
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(once());
  EXPECT_EQ(allocations - before, 0);
  EXPECT_EQ(encoder.calls, 3);
}

TEST_F(TensorMapFixture, ConcurrentLaunches) {
  Kernel kernel = makeUnloadedKernel(gemmInfo());
  constexpr int kThreads = 8, kLaunches = 2000, kPointers = 4;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      alignas(64) CUtensorMap maps[tilec::kMaxTensorMaps];
      for (int i = 0; i < kLaunches; ++i) {
        void *a = fakePointer(256, 10 + (i + t) % kPointers);
        PackedArgs packed;
        Status status =
            launchMaps(kernel, gemmArgs(a), fakeEncode, maps, packed);
        if (!status.ok() ||
            maps[0].opaque[0] != reinterpret_cast<uintptr_t>(a) ||
            maps[1].opaque[0] !=
                reinterpret_cast<uintptr_t>(fakePointer(256, 1)) ||
            maps[2].opaque[8] != 32)
          ++wrong;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  TensorMapCache::Stats stats = kernel.get()->tensorMapCache.stats();
  EXPECT_EQ(stats.hits + stats.misses, uint64_t(kThreads * kLaunches * 3));
  // Every distinct descriptor is built at least once, and only a few times
  // (threads that miss together both encode).
  EXPECT_GE(encoder.calls, kPointers + 2);
  EXPECT_LE(encoder.calls, kThreads * (kPointers + 2));
}
