//===- KVCacheAttentionTest.cpp - tile-runtime-tests ----------------------===//
//
// tile::attentionWithKVCache's argument checks, C++ and C (no GPU: they
// come before it), and decode plans.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "tile/Decode.h"

#include <functional>

// (GCC 12 takes the std::optional<Tensor> members of KVArgs below, copied
// and assigned, for possibly uninitialized vectors: -Wmaybe-uninitialized's
// known false positive on optionals of classes with vectors.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace {

struct KVArgs {
  Tensor q = fakeTensor(1, {4, 1, 32, 128}, DType::BF16);
  Tensor k = fakeTensor(2, {4, 4096, 8, 128}, DType::BF16);
  Tensor v = fakeTensor(3, {4, 4096, 8, 128}, DType::BF16);
  Tensor seqlens = fakeTensor(4, {4}, DType::I32);
  std::optional<Tensor> table, kNew, vNew;
  Tensor out = fakeTensor(5, {4, 1, 32, 128}, DType::BF16);
  KVCacheOptions options;

  const Tensor *ptr(const std::optional<Tensor> &t) const {
    return t ? &*t : nullptr;
  }
  std::string check() const {
    return checkAttentionWithKVCache(q, k, v, seqlens, ptr(table), ptr(kNew),
                                     ptr(vNew), out, options)
        .message();
  }
  /// The same through the C API.
  std::string checkC() const {
    auto c = toCTensor;
    tile_tensor t[5] = {c(q), c(k), c(v), c(seqlens), c(out)};
    tile_tensor o[3];
    const tile_tensor *opt[3] = {nullptr, nullptr, nullptr};
    const std::optional<Tensor> *given[3] = {&table, &kNew, &vNew};
    for (int i = 0; i < 3; ++i)
      if (*given[i]) {
        o[i] = c(**given[i]);
        opt[i] = &o[i];
      }
    tile_kvcache_options co = {};
    co.has_scale = options.scale.has_value();
    co.scale = options.scale.value_or(0);
    co.non_causal = !options.causal;
    co.num_splits = options.numSplits;
    co.plan = reinterpret_cast<const tile_decode_plan *>(options.plan);
    return tile_attention_with_kvcache_check(&t[0], &t[1], &t[2], &t[3], opt[0],
                                             opt[1], opt[2], &t[4],
                                             &co) == TILE_OK
               ? ""
               : tile_last_error();
  }
};

} // namespace

TEST(KVCacheAttention, AcceptsWhatTheKernelComputes) {
  KVArgs a;
  EXPECT_EQ(a.check(), "");
  EXPECT_EQ(a.checkC(), "");
  // Paged (16 and 256 keys a page), new tokens, several query tokens,
  // f16, MHA, a plan.
  DecodePlan plan({5, 0, 4000, 17});
  for (int64_t page : {16, 256}) {
    KVArgs b;
    for (Tensor *t : {&b.q, &b.k, &b.v, &b.out})
      t->dtype = DType::F16;
    b.q = fakeTensor(1, {4, 3, 32, 128}, DType::F16);
    b.out = fakeTensor(5, {4, 3, 32, 128}, DType::F16);
    b.k = fakeTensor(2, {100, page, 32, 128}, DType::F16);
    b.v = fakeTensor(3, {100, page, 32, 128}, DType::F16);
    b.table = fakeTensor(6, {4, 25}, DType::I32);
    b.kNew = fakeTensor(7, {4, 2, 32, 128}, DType::F16);
    b.vNew = fakeTensor(8, {4, 2, 32, 128}, DType::F16);
    b.options.plan = &plan;
    EXPECT_EQ(b.check(), "") << page;
    EXPECT_EQ(b.checkC(), "") << page;
  }
  // q and out of any strides (a slice of a wider tensor).
  KVArgs c;
  c.q.strides = {32 * 256, 32 * 256, 256, 1};
  c.out.strides = {8192 * 2, 8192, 256, 1};
  EXPECT_EQ(c.check(), "");
  // An empty batch is a no-op that needs no GPU.
  KVArgs e;
  e.q = Tensor(nullptr, DType::BF16, {0, 1, 32, 128}, {4096, 4096, 128, 1});
  e.out = e.q;
  e.k =
      Tensor(nullptr, DType::BF16, {0, 4096, 8, 128}, {1 << 22, 1024, 128, 1});
  e.v = e.k;
  e.seqlens = Tensor(nullptr, DType::I32, {0}, {1});
  EXPECT_EQ(e.check(), "");
  EXPECT_TRUE(attentionWithKVCache(e.q, e.k, e.v, e.seqlens, nullptr, nullptr,
                                   nullptr, e.out, nullptr, 0)
                  .ok());
}

TEST(KVCacheAttention, RefusalsNameTheArgument) {
  DecodePlan three({1, 2, 3});
  auto expect = [&](const std::function<void(KVArgs &)> &change,
                    const std::string &message) {
    KVArgs a;
    change(a);
    EXPECT_EQ(a.check(), "tile::attentionWithKVCache: " + message);
    EXPECT_EQ(a.checkC(), "tile::attentionWithKVCache: " + message);
  };
  expect(
      [](KVArgs &a) {
        a.q = fakeTensor(1, {4, 32, 128}, DType::BF16);
      },
      "q: expected a rank-4 tensor (batch, s_q, heads, head_dim), got "
      "rank 3");
  expect([](KVArgs &a) { a.q.dtype = DType::F32; },
         "q: dtype f32 is not supported; decode takes f16 or bf16");
  expect([](KVArgs &a) { a.k.dtype = DType::F16; },
         "k_cache: dtype f16 is not q's bf16");
  expect(
      [](KVArgs &a) {
        a.v = fakeTensor(3, {4, 4000, 8, 128}, DType::BF16);
      },
      "v_cache: bf16 [4, 4000, 8, 128] is not k_cache's bf16 "
      "[4, 4096, 8, 128]");
  expect(
      [](KVArgs &a) {
        a.k = fakeTensor(2, {3, 4096, 8, 128}, DType::BF16);
      },
      "k_cache: shape [3, 4096, 8, 128] does not match q's batch 4 and "
      "head_dim 128");
  expect(
      [](KVArgs &a) {
        a.q = fakeTensor(1, {4, 1, 30, 128}, DType::BF16);
        a.out = a.q;
      },
      "q: its 30 heads are not a multiple of the cache's 8");
  expect(
      [](KVArgs &a) {
        a.q = fakeTensor(1, {4, 1, 32, 72}, DType::BF16);
        a.k = fakeTensor(2, {4, 4096, 8, 72}, DType::BF16);
        a.v = a.k;
        a.out = a.q;
      },
      "q: head_dim 72 must be a multiple of 16 up to 256");
  expect(
      [](KVArgs &a) {
        a.q = fakeTensor(1, {4, 40, 32, 128}, DType::BF16);
        a.out = a.q;
      },
      "q: 40 query tokens x 4 query heads per KV head are the rows of one "
      "multiply: at most 128 are supported");
  expect(
      [](KVArgs &a) {
        a.table = fakeTensor(6, {4, 25}, DType::I32);
        a.k = fakeTensor(2, {100, 48, 8, 128}, DType::BF16);
        a.v = a.k;
      },
      "k_cache: page size 48 must be a multiple of 64, or 8, 16 or 32");
  expect(
      [](KVArgs &a) {
        a.table = fakeTensor(6, {4, 25}, DType::I32);
        a.k = fakeTensor(2, {100, 16, 8, 128}, DType::BF16);
        a.k.strides[0] *= 2;
        a.v = a.k;
      },
      "k_cache: pages of 16 keys must follow each other in memory "
      "(strides[0] = page_size x strides[1]), got strides "
      "[32768, 1024, 128, 1]");
  expect(
      [](KVArgs &a) {
        a.table = fakeTensor(6, {3, 25}, DType::I32);
        a.k = fakeTensor(2, {100, 64, 8, 128}, DType::BF16);
        a.v = a.k;
      },
      "block_table: expected a (4, max_pages) int32 tensor, got i32 [3, 25]");
  expect([](KVArgs &a) { a.seqlens.dtype = DType::F32; },
         "cache_seqlens: expected a (4,) int32 tensor, got f32 [4]");
  expect(
      [](KVArgs &a) {
        a.kNew = fakeTensor(7, {4, 1, 8, 128}, DType::BF16);
      },
      "k_new, v_new: give both or neither");
  expect(
      [](KVArgs &a) {
        a.kNew = fakeTensor(7, {4, 1, 8, 128}, DType::BF16);
        a.vNew = fakeTensor(8, {4, 2, 8, 128}, DType::BF16);
      },
      "k_new, v_new: expected (4, new tokens, 8, 128) tensors of q's dtype, "
      "got [4, 1, 8, 128] and [4, 2, 8, 128]");
  expect([](KVArgs &a) { a.out.dtype = DType::F16; },
         "out: expected a bf16 tensor of q's shape [4, 1, 32, 128], got f16 "
         "[4, 1, 32, 128]");
  expect([](KVArgs &a) { a.options.numSplits = -1; },
         "numSplits: -1 is negative (0: chosen)");
  expect([&](KVArgs &a) { a.options.plan = &three; },
         "plan: made for a batch of 3 sequences, q has 4");
  expect(
      [](KVArgs &a) {
        a.options.scale = std::numeric_limits<float>::infinity();
      },
      "scale: must be finite");
}

TEST(KVCacheAttention, CApiNullsAndPlans) {
  KVArgs a;
  auto c = toCTensor;
  tile_tensor t[5] = {c(a.q), c(a.k), c(a.v), c(a.seqlens), c(a.out)};
  EXPECT_EQ(tile_attention_with_kvcache_check(&t[0], nullptr, &t[2], &t[3],
                                              nullptr, nullptr, nullptr, &t[4],
                                              nullptr),
            TILE_ERROR);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile::attentionWithKVCache: k_cache: NULL tensor");
  // No options: the defaults.
  EXPECT_EQ(tile_attention_with_kvcache_check(&t[0], &t[1], &t[2], &t[3],
                                              nullptr, nullptr, nullptr, &t[4],
                                              nullptr),
            TILE_OK);
  int64_t lengths[] = {3, 4};
  tile_decode_plan *plan = tile_decode_plan_create(lengths, 2);
  ASSERT_NE(plan, nullptr);
  tile_decode_plan_destroy(plan);
  tile_decode_plan_destroy(nullptr);
  EXPECT_EQ(tile_decode_plan_create(nullptr, 2), nullptr);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile_decode_plan_create: lengths: NULL or batch 2 negative");
  size_t bytes = 0;
  EXPECT_EQ(tile_attention_with_kvcache_workspace_bytes(&t[0], &t[1], nullptr,
                                                        nullptr, nullptr),
            TILE_ERROR);
  (void)bytes;
}
