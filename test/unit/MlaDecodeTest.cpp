//===- MlaDecodeTest.cpp - tile-runtime-tests -----------------------------===//
//
// tile::mlaDecode's argument checks, C++ and C (no GPU: they come before
// it).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "tile/Decode.h"

namespace {
/// A tensor at its own fake address.
Tensor mlaTensor(uintptr_t slot, std::vector<int64_t> shape,
                 DType dtype = DType::BF16) {
  return fakeTensor(slot, std::move(shape), dtype);
}

struct MlaArgs {
  Tensor q = mlaTensor(1, {4, 2, 128, 576});
  Tensor kv = mlaTensor(2, {100, 64, 1, 576});
  Tensor seqlens = mlaTensor(3, {4}, DType::I32);
  Tensor table = mlaTensor(4, {4, 25}, DType::I32);
  Tensor out = mlaTensor(5, {4, 2, 128, 512});
  Tensor lse = mlaTensor(6, {4, 2, 128}, DType::F32);
  MlaDecodeOptions options;

  std::string check() const {
    return checkMlaDecode(q, kv, seqlens, table, out, lse, options).message();
  }
  /// The same through the C API.
  std::string checkC() const {
    auto c = toCTensor;
    tile_tensor t[6] = {c(q), c(kv), c(seqlens), c(table), c(out), c(lse)};
    tile_mla_decode_options o = {};
    o.head_dim_v = options.headDimV;
    o.has_scale = options.scale.has_value();
    o.scale = options.scale.value_or(0);
    o.non_causal = !options.causal;
    o.num_splits = options.numSplits;
    return tile_mla_decode_check(&t[0], &t[1], &t[2], &t[3], &t[4], &t[5],
                                 &o) == TILE_OK
               ? ""
               : tile_last_error();
  }
};
} // namespace

TEST(MlaDecode, AcceptsWhatTheKernelComputes) {
  MlaArgs a;
  EXPECT_EQ(a.check(), "");
  EXPECT_EQ(a.checkC(), "");
  // f16, pages of 256, 16 heads, one token, not causal, a scale, splits.
  MlaArgs b;
  b.q = mlaTensor(1, {3, 1, 16, 576}, DType::F16);
  b.kv = mlaTensor(2, {10, 256, 1, 576}, DType::F16);
  b.seqlens = mlaTensor(3, {3}, DType::I32);
  b.table = mlaTensor(4, {3, 4}, DType::I32);
  b.out = mlaTensor(5, {3, 1, 16, 512}, DType::F16);
  b.lse = mlaTensor(6, {3, 1, 16}, DType::F32);
  b.options.causal = false;
  b.options.scale = 0.1f;
  b.options.numSplits = 3;
  EXPECT_EQ(b.check(), "");
  EXPECT_EQ(b.checkC(), "");
  // Other value/rotary splits: 256 + 64, 384 + 128.
  for (auto [dk, dv] : {std::pair<int64_t, int64_t>{320, 256}, {512, 384}}) {
    MlaArgs c;
    c.q = mlaTensor(1, {4, 2, 128, dk});
    c.kv = mlaTensor(2, {100, 64, 1, dk});
    c.out = mlaTensor(5, {4, 2, 128, dv});
    c.options.headDimV = dv;
    EXPECT_EQ(c.check(), "") << dk;
  }
  // An empty batch is a no-op that needs no GPU.
  MlaArgs e;
  e.q = Tensor(nullptr, DType::BF16, {0, 2, 128, 576}, {147456, 73728, 576, 1});
  e.out =
      Tensor(nullptr, DType::BF16, {0, 2, 128, 512}, {131072, 65536, 512, 1});
  e.lse = Tensor(nullptr, DType::F32, {0, 2, 128}, {256, 128, 1});
  e.seqlens = Tensor(nullptr, DType::I32, {0}, {1});
  e.table = Tensor(nullptr, DType::I32, {0, 25}, {25, 1});
  EXPECT_EQ(e.check(), "");
  EXPECT_TRUE(
      mlaDecode(e.q, e.kv, e.seqlens, e.table, e.out, e.lse, nullptr, 0).ok());
}

TEST(MlaDecode, RefusalsNameTheArgument) {
  auto expect = [](const std::function<void(MlaArgs &)> &change,
                   const std::string &message) {
    MlaArgs a;
    change(a);
    EXPECT_EQ(a.check(), "tile::mlaDecode: " + message);
    EXPECT_EQ(a.checkC(), "tile::mlaDecode: " + message);
  };
  expect(
      [](MlaArgs &a) {
        a.q = mlaTensor(1, {4, 128, 576});
      },
      "q: expected a rank-4 tensor (batch, s_q, heads, head_dim), got "
      "rank 3");
  expect([](MlaArgs &a) { a.q.dtype = DType::F32; },
         "q: dtype f32 is not supported; MLA decode takes f16 or bf16");
  expect([](MlaArgs &a) { a.kv.dtype = DType::F16; },
         "kv_cache: dtype f16 is not q's bf16");
  expect(
      [](MlaArgs &a) {
        a.kv = mlaTensor(2, {100, 32, 1, 576});
      },
      "kv_cache: page size 32 is not a multiple of 64");
  expect(
      [](MlaArgs &a) {
        a.kv = mlaTensor(2, {100, 64, 2, 576});
      },
      "kv_cache: expected (num_pages, page_size, 1, 576), got shape "
      "[100, 64, 2, 576]");
  expect([](MlaArgs &a) { a.options.headDimV = 500; },
         "headDimV: 500 value dims and 76 rotary ones of q's 576: the values "
         "must be a multiple of 128, the rotary dims a multiple of 16 up to "
         "256 that divides them");
  expect(
      [](MlaArgs &a) {
        a.q.strides = {2 * 576 * 200, 576 * 200, 576, 1};
      },
      "q: its (s_q, heads) rows must follow each other (strides[1] = "
      "heads x strides[2]), got strides [230400, 115200, 576, 1]");
  expect([](MlaArgs &a) { a.q.strides[3] = 2; },
         "q: its last dimension must be contiguous (stride 1), got strides "
         "[147456, 73728, 576, 2]");
  expect([](MlaArgs &a) { a.table.dtype = DType::F32; },
         "block_table: expected a (4, max_pages) int32 tensor, got f32 "
         "[4, 25]");
  expect([](MlaArgs &a) { a.seqlens = mlaTensor(3, {3}, DType::I32); },
         "cache_seqlens: expected a (4,) int32 tensor, got i32 [3]");
  expect(
      [](MlaArgs &a) {
        a.out = mlaTensor(5, {4, 2, 128, 576});
      },
      "out: expected a bf16 tensor of shape [4, 2, 128, 512] with rows as "
      "q's, got bf16 [4, 2, 128, 576] strides [147456, 73728, 576, 1]");
  expect([](MlaArgs &a) { a.lse.dtype = DType::F16; },
         "lse: expected an f32 tensor of shape [4, 2, 128] with rows as q's, "
         "got f16 [4, 2, 128] strides [256, 128, 1]");
  expect([](MlaArgs &a) { a.options.numSplits = -1; },
         "numSplits: -1 is negative (0: chosen)");
  expect([](MlaArgs &a) { a.options.scale = INFINITY; },
         "scale: must be finite");
  expect([](MlaArgs &a) { a.kv.data = nullptr; },
         "kv_cache: null data pointer for a non-empty tensor of shape "
         "[100, 64, 1, 576]");
  // The workspace query checks the shapes it reads first (no GPU).
  {
    MlaArgs w;
    w.kv = mlaTensor(2, {100, 48, 1, 576});
    Expected<size_t> bytes =
        mlaDecodeWorkspaceBytes(w.q, w.kv, w.table, w.options);
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.status().message(),
              "tile::mlaDecode: kv_cache: page size 48 is not a multiple of "
              "64");
    tile_tensor tq = toCTensor(w.q), tkv = toCTensor(w.kv),
                tt = toCTensor(w.table);
    size_t n = 0;
    EXPECT_NE(tile_mla_decode_workspace_bytes(&tq, &tkv, &tt, nullptr, &n),
              TILE_OK);
    EXPECT_EQ(std::string(tile_last_error()),
              "tile::mlaDecode: kv_cache: page size 48 is not a multiple of "
              "64");
    EXPECT_NE(tile_mla_decode_workspace_bytes(&tq, &tkv, &tt, nullptr, nullptr),
              TILE_OK);
    EXPECT_EQ(std::string(tile_last_error()),
              "tile_mla_decode_workspace_bytes: NULL bytes");
  }
  // A NULL tensor through the C API.
  tile_tensor t = {};
  EXPECT_NE(tile_mla_decode_check(nullptr, &t, &t, &t, &t, &t, nullptr),
            TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()), "tile::mlaDecode: q: NULL tensor");
}
