//===- AttentionTest.cpp - tile-runtime-tests -----------------------------===//
//
// Tile::attention's argument checks (no GPU: they come before it).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// tile::attention's argument checks (no GPU: they come before it)
//===----------------------------------------------------------------------===//

namespace {
/// A tensor at its own fake address, so that tensors do not overlap.
Tensor attnTensor(uintptr_t slot, std::vector<int64_t> shape,
                  DType dtype = DType::F16) {
  return fakeTensor(slot, std::move(shape), dtype);
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
    auto c = toCTensor;
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

//===----------------------------------------------------------------------===//
// tile::attentionBackward's argument checks (no GPU: they come first)
//===----------------------------------------------------------------------===//

namespace {
struct BwdArgs {
  // GQA: 8 query heads on 2 K/V heads; 100 queries (lse and delta: 128
  // rows), 96 keys.
  Tensor q = attnTensor(1, {2, 8, 100, 64});
  Tensor k = attnTensor(2, {2, 2, 96, 64});
  Tensor v = attnTensor(3, {2, 2, 96, 64});
  Tensor out = attnTensor(4, {2, 8, 100, 64});
  Tensor lse = attnTensor(5, {2, 8, 128}, DType::F32);
  Tensor dout = attnTensor(6, {2, 8, 100, 64});
  Tensor dq = attnTensor(7, {2, 8, 100, 64});
  Tensor dk = attnTensor(8, {2, 2, 96, 64});
  Tensor dv = attnTensor(9, {2, 2, 96, 64});
  Tensor delta = attnTensor(10, {2, 8, 128}, DType::F32);
  AttentionTrainingOptions options;

  std::string check() const {
    return checkAttentionBackward(q, k, v, out, lse, dout, dq, dk, dv, delta,
                                  options)
        .message();
  }
  /// The same through the C API.
  std::string checkC() const {
    auto c = toCTensor;
    tile_tensor t[10] = {c(q),    c(k),  c(v),  c(out), c(lse),
                         c(dout), c(dq), c(dk), c(dv),  c(delta)};
    tile_attention_training_options o = {};
    o.causal = options.causal;
    o.has_scale = options.scale.has_value();
    o.scale = options.scale.value_or(0);
    return tile_attention_backward_check(&t[0], &t[1], &t[2], &t[3], &t[4],
                                         &t[5], &t[6], &t[7], &t[8], &t[9],
                                         &o) == TILE_OK
               ? ""
               : tile_last_error();
  }
};
} // namespace

TEST(AttentionBackward, AcceptsWhatTheKernelsCompute) {
  EXPECT_EQ(attentionLseRows(100), 128);
  EXPECT_EQ(attentionLseRows(128), 128);
  EXPECT_EQ(attentionLseRows(1), 64);
  EXPECT_EQ(tile_attention_lse_rows(100), 128);
  BwdArgs a;
  EXPECT_EQ(a.check(), "");
  EXPECT_EQ(a.checkC(), "");
  for (int64_t d : {96, 128}) {
    BwdArgs b;
    for (Tensor *t : {&b.q, &b.k, &b.v, &b.out, &b.dout, &b.dq, &b.dk, &b.dv})
      *t = attnTensor(reinterpret_cast<uintptr_t>(t->data) /
                          (uintptr_t(1) << 32),
                      {t->shape[0], t->shape[1], t->shape[2], d});
    b.options.causal = true;
    EXPECT_EQ(b.check(), "") << d;
  }
}

TEST(AttentionBackward, RefusalsNameTheArgument) {
  auto refusal = [](std::function<void(BwdArgs &)> change,
                    const std::string &message) {
    BwdArgs a;
    change(a);
    EXPECT_EQ(a.check(), "tile::attentionBackward: " + message);
    EXPECT_EQ(a.checkC(), "tile::attentionBackward: " + message);
  };
  refusal(
      [](BwdArgs &a) {
        a.q = attnTensor(1, {2, 8, 100, 80});
      },
      "k: shape [2, 2, 96, 64] must be (batch, kv_heads, seq_k, "
      "head_dim) with q's batch and head_dim (q: [2, 8, 100, 80])");
  refusal(
      [](BwdArgs &a) {
        for (Tensor *t : {&a.q, &a.out, &a.dout, &a.dq})
          *t = attnTensor(reinterpret_cast<uintptr_t>(t->data) /
                              (uintptr_t(1) << 32),
                          {2, 8, 100, 32});
        for (Tensor *t : {&a.k, &a.v, &a.dk, &a.dv})
          *t = attnTensor(reinterpret_cast<uintptr_t>(t->data) /
                              (uintptr_t(1) << 32),
                          {2, 2, 96, 32});
      },
      "q: head_dim 32 is not supported; expected 64, 96, 128, 192 or "
      "256");
  refusal(
      [](BwdArgs &a) {
        a.dk = attnTensor(8, {2, 2, 95, 64});
      },
      "dk: shape [2, 2, 95, 64] does not match k's [2, 2, 96, 64]");
  refusal(
      [](BwdArgs &a) {
        a.lse = attnTensor(5, {2, 8, 100}, DType::F32);
      },
      "lse: shape [2, 8, 100] must be (batch, heads, "
      "attentionLseRows(seq_q)) = [2, 8, 128]");
  refusal(
      [](BwdArgs &a) {
        a.delta = attnTensor(10, {2, 8, 128});
      },
      "delta: dtype f16 is not supported; expected f32");
  refusal(
      [](BwdArgs &a) {
        a.dout = attnTensor(6, {2, 8, 100, 64}, DType::BF16);
      },
      "dout: dtype bf16 does not match q's f16");
  refusal(
      [](BwdArgs &a) {
        a.dq = Tensor(a.dq.data, DType::F16, {2, 8, 100, 64},
                      {8 * 100 * 64, 64, 8 * 64, 1});
      },
      "dq: must be row-major (contiguous); got strides [51200, 64, 512, 1] "
      "for shape [2, 8, 100, 64]");
  refusal(
      [](BwdArgs &a) {
        a.k = attnTensor(2, {2, 3, 96, 64});
      },
      "v: shape [2, 2, 96, 64] does not match k's [2, 3, 96, 64]");
  refusal([](BwdArgs &a) { a.dv = a.dk; }, "dk: overlaps dv");
  refusal([](BwdArgs &a) { a.dq = a.q; }, "dq: overlaps q");
  refusal([](BwdArgs &a) { a.options.scale = NAN; },
          "scale: nan is not a finite number");
  // The C API's own malformed inputs.
  BwdArgs a;
  auto c = toCTensor;
  tile_tensor q = c(a.q), bad = {};
  bad.rank = -1;
  EXPECT_NE(tile_attention_backward_check(&q, &q, &q, &q, &q, &q, &q, nullptr,
                                          &q, &q, nullptr),
            TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile::attentionBackward: dk: NULL tensor");
  EXPECT_NE(tile_attention_with_lse(&q, &bad, &q, &q, &q, nullptr, nullptr),
            TILE_OK);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile::attentionWithLse: k: malformed tile_tensor (rank -1, "
            "dtype 0)");
}

//===----------------------------------------------------------------------===//
// tile::attentionVarlen's argument checks
//===----------------------------------------------------------------------===//

namespace {
struct VarlenArgs {
  Tensor q = attnTensor(1, {300, 8, 64});
  Tensor k = attnTensor(2, {500, 2, 64});
  Tensor v = attnTensor(3, {500, 2, 64});
  Tensor out = attnTensor(4, {300, 8, 64});
  Tensor cuQ = attnTensor(5, {5}, DType::I32);
  Tensor cuK = attnTensor(6, {5}, DType::I32);
  int64_t maxQ = 100, maxK = 200;
  AttentionOptions options;

  std::string check() const {
    return checkAttentionVarlen(q, k, v, out, cuQ, cuK, maxQ, maxK, options)
        .message();
  }
  std::string checkC() const {
    auto c = toCTensor;
    tile_tensor t[6] = {c(q), c(k), c(v), c(out), c(cuQ), c(cuK)};
    tile_attention_options o = {};
    o.causal = options.causal;
    o.input_pos = options.inputPos;
    return tile_attention_varlen_check(&t[0], &t[1], &t[2], &t[3], &t[4], &t[5],
                                       maxQ, maxK, &o) == TILE_OK
               ? ""
               : tile_last_error();
  }
};
} // namespace

TEST(AttentionVarlen, AcceptsPackedSequences) {
  VarlenArgs a;
  EXPECT_EQ(a.check(), "");
  EXPECT_EQ(a.checkC(), "");
  a.options.causal = true;
  EXPECT_EQ(a.check(), "");
}

TEST(AttentionVarlen, RefusalsNameTheArgument) {
  auto refusal = [](auto change) {
    VarlenArgs a;
    change(a);
    std::string c = a.checkC();
    EXPECT_EQ(a.check(), c) << "the C API refuses as the C++ one";
    return c;
  };
  auto has = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(refusal([](VarlenArgs &a) {
                    a.q = attnTensor(1, {2, 8, 128, 64});
                  }),
                  "q: expected a rank-3 tensor (total, heads, head_dim)"));
  EXPECT_TRUE(has(
      refusal([](VarlenArgs &a) { a.cuK = attnTensor(6, {4}, DType::I32); }),
      "cu_seqlens_k: has 4 entries, cu_seqlens_q 5"));
  EXPECT_TRUE(has(
      refusal([](VarlenArgs &a) { a.cuQ = attnTensor(5, {5}, DType::I64); }),
      "cu_seqlens_q: dtype i64 is not supported"));
  EXPECT_TRUE(has(refusal([](VarlenArgs &a) { a.options.inputPos = 3; }),
                  "input_pos: 3 does not apply to packed sequences"));
  EXPECT_TRUE(has(refusal([](VarlenArgs &a) { a.maxK = -1; }),
                  "max_seqlen_k: -1 is not in [0, 2^31-1]"));
  EXPECT_TRUE(has(refusal([](VarlenArgs &a) { a.out = a.cuQ; }),
                  "out: expected a rank-3 tensor"));
  EXPECT_TRUE(
      has(refusal([](VarlenArgs &a) {
            a.out = Tensor::contiguous(a.k.data, DType::F16, {300, 8, 64});
          }),
          "out: overlaps k"));
}
