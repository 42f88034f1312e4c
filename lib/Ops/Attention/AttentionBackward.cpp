//===- AttentionBackward.cpp - tile::attentionWithLse, attentionBackward --===//
//
// Training through libtile: the forward that writes each query row's
// log-sum-exp (kernels/attention_lse.tile) and the backward's three kernels
// (kernels/flash_attention_bwd.tile: Delta = rowsum(dO * O); dK and dV per
// block of 64 keys over the query heads sharing it; dQ per block of 64
// queries over the key tiles in order), with the tiles and options
// tilec.attention's autograd uses (python/tilec/autograd.py; the rest is
// the compiler's choice). The kernels take (batch x heads, seq, head_dim)
// views, so every tensor must be row-major.
//
//===----------------------------------------------------------------------===//

#include "tile/Attention.h"

#include "RuntimeImpl.h"

#include <cmath>
#include <map>
#include <mutex>

using namespace tile;

/// kernels/attention_lse.tile and kernels/flash_attention_bwd.tile, as built.
static const char kLseSource[] =
#include "attention_lse.inc"
    ;
static const char kBackwardSource[] =
#include "flash_attention_bwd.inc"
    ;

namespace {

/// Queries (and keys) per block of the backward's kernels; the rows of lse
/// and delta are padded to it.
constexpr int64_t kTile = 64;
/// The fewest keys from which the forward with LSE takes 80 keys a step at
/// head dims above 192 (python/tilec/autograd.py LONG_KEYS).
constexpr int64_t kLongKeys = 8192;

Status refuse(const char *op, const std::string &message) {
  return Status::error(std::string("tile::") + op + ": " + message);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

bool isEmpty(const Tensor &t) {
  for (int64_t d : t.shape)
    if (d == 0)
      return true;
  return false;
}

/// A row-major tensor of `rank` dimensions and `dtype` (f16 or bf16 where
/// `dtype` is null).
Status checkTensor(const char *op, const Tensor &t, const char *name,
                   size_t rank, const DType *dtype) {
  if (t.shape.size() != rank)
    return refuse(op, std::string(name) + ": expected a rank-" +
                          std::to_string(rank) + " tensor, got rank " +
                          std::to_string(t.shape.size()));
  if (t.strides.size() != rank)
    return refuse(op, std::string(name) + ": the shape has " +
                          std::to_string(rank) + " entries but the strides " +
                          std::to_string(t.strides.size()));
  if (dtype ? t.dtype != *dtype
            : t.dtype != DType::F16 && t.dtype != DType::BF16)
    return refuse(op, std::string(name) + ": dtype " + dtypeName(t.dtype) +
                          " is not supported; expected " +
                          (dtype ? dtypeName(*dtype) : "f16 or bf16"));
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    if (t.shape[d] < 0 || t.shape[d] > INT32_MAX)
      return refuse(op, std::string(name) + ": shape " + shapeText(t.shape) +
                            " has a dimension outside [0, 2^31-1]");
    if (t.shape[d] > 1 && t.strides[d] != stride)
      return refuse(op, std::string(name) +
                            ": must be row-major (contiguous); "
                            "got strides " +
                            shapeText(t.strides) + " for shape " +
                            shapeText(t.shape));
    stride *= t.shape[d];
  }
  if (!t.data && !isEmpty(t))
    return refuse(op, std::string(name) +
                          ": null data pointer for a "
                          "non-empty tensor of shape " +
                          shapeText(t.shape));
  return Status();
}

std::pair<uintptr_t, uintptr_t> extent(const Tensor &t) {
  uintptr_t first = reinterpret_cast<uintptr_t>(t.data);
  int64_t elements = 1;
  for (int64_t d : t.shape)
    elements *= d;
  return {first, first + uintptr_t(elements) * dtypeBytes(t.dtype)};
}

bool overlaps(const Tensor &a, const Tensor &b) {
  if (isEmpty(a) || isEmpty(b))
    return false;
  auto [a0, a1] = extent(a);
  auto [b0, b1] = extent(b);
  return a0 < b1 && b0 < a1;
}

using Named = std::pair<const Tensor *, const char *>;

/// The checks both operations share: q (batch, heads, seq_q, head_dim), k
/// and v (batch, kv_heads, seq_k, head_dim), `likeQ` shaped as q, `likeK`
/// as k, `rows` (lse, delta) f32 (batch, heads, attentionLseRows(seq_q)),
/// `outputs` overlapping nothing else; the scale.
Status checkAll(const char *op, const Tensor &q, const Tensor &k,
                const Tensor &v, std::initializer_list<Named> likeQ,
                std::initializer_list<Named> likeK,
                std::initializer_list<Named> rows,
                std::initializer_list<Named> outputs,
                const AttentionTrainingOptions &options) {
  const DType f32 = DType::F32;
  for (auto [t, name] : {Named{&q, "q"}, Named{&k, "k"}, Named{&v, "v"}})
    if (Status s = checkTensor(op, *t, name, 4, nullptr); !s.ok())
      return s;
  for (auto list : {likeQ, likeK})
    for (auto [t, name] : list)
      if (Status s = checkTensor(op, *t, name, 4, nullptr); !s.ok())
        return s;
  for (auto [t, name] : rows)
    if (Status s = checkTensor(op, *t, name, 3, &f32); !s.ok())
      return s;
  for (auto list :
       {std::initializer_list<Named>{{&k, "k"}, {&v, "v"}}, likeQ, likeK})
    for (auto [t, name] : list)
      if (t->dtype != q.dtype)
        return refuse(op, std::string(name) + ": dtype " + dtypeName(t->dtype) +
                              " does not match q's " + dtypeName(q.dtype));
  int64_t batch = q.shape[0], heads = q.shape[1], seqQ = q.shape[2],
          headDim = q.shape[3], kvHeads = k.shape[1], seqK = k.shape[2];
  if (k.shape[0] != batch || k.shape[3] != headDim)
    return refuse(op, "k: shape " + shapeText(k.shape) +
                          " must be (batch, kv_heads, seq_k, head_dim) with "
                          "q's batch and head_dim (q: " +
                          shapeText(q.shape) + ")");
  for (auto [t, name] : likeQ)
    if (t->shape != q.shape)
      return refuse(op, std::string(name) + ": shape " + shapeText(t->shape) +
                            " does not match q's " + shapeText(q.shape));
  for (auto [t, name] : {Named{&v, "v"}})
    if (t->shape != k.shape)
      return refuse(op, std::string(name) + ": shape " + shapeText(t->shape) +
                            " does not match k's " + shapeText(k.shape));
  for (auto [t, name] : likeK)
    if (t->shape != k.shape)
      return refuse(op, std::string(name) + ": shape " + shapeText(t->shape) +
                            " does not match k's " + shapeText(k.shape));
  std::vector<int64_t> rowShape = {batch, heads, attentionLseRows(seqQ)};
  for (auto [t, name] : rows)
    if (t->shape != rowShape)
      return refuse(op, std::string(name) + ": shape " + shapeText(t->shape) +
                            " must be (batch, heads, attentionLseRows(seq_q)) "
                            "= " +
                            shapeText(rowShape));
  if (headDim != 64 && headDim != 96 && headDim != 128 && headDim != 192 &&
      headDim != 256)
    return refuse(op, "q: head_dim " + std::to_string(headDim) +
                          " is not supported; expected 64, 96, 128, 192 or "
                          "256");
  if (kvHeads < 1 || heads % kvHeads)
    return refuse(op, "k: its " + std::to_string(kvHeads) +
                          " heads must divide q's " + std::to_string(heads) +
                          " (grouped-query attention)");
  if (batch * heads > 0 && (seqQ < 1 || seqK < 1))
    return refuse(op, "q, k: seq_q and seq_k must be at least 1, got " +
                          std::to_string(seqQ) + " and " +
                          std::to_string(seqK));
  if (batch * heads > 65535)
    return refuse(op, "q: batch * heads = " + std::to_string(batch * heads) +
                          " exceeds 65535, the kernels' grid limit");
  if (options.scale && !std::isfinite(*options.scale))
    return refuse(op, "scale: " + std::to_string(*options.scale) +
                          " is not a finite number");
  // An output overlaps no other tensor.
  std::vector<Named> all = {{&q, "q"}, {&k, "k"}, {&v, "v"}};
  for (auto list : {likeQ, likeK, rows})
    all.insert(all.end(), list.begin(), list.end());
  for (auto [out, outName] : outputs)
    for (auto [t, name] : all)
      if (t != out && overlaps(*out, *t))
        return refuse(op, std::string(outName) + ": overlaps " + name);
  return Status();
}

/// The (batch x heads, rows) view of a row-major (batch, heads, rows) tensor
/// (lse, delta: the backward kernels' rows).
Tensor rowsView(const Tensor &t) {
  return Tensor::contiguous(t.data, t.dtype,
                            {t.shape[0] * t.shape[1], t.shape[2]});
}

/// A kernel of one of the built-in sources with these constants, compiled
/// and loaded once per process.
Expected<Kernel>
kernelFor(const char *source, const char *file, const char *name,
          std::vector<std::pair<std::string, std::string>> constants,
          unsigned numWarps = 0) {
  static std::mutex mutex;
  static auto *kernels = new std::map<std::string, Kernel>();
  std::string key = std::string(file) + ":" + name;
  for (const auto &[n, v] : constants)
    key += "," + n + "=" + v;
  if (numWarps)
    key += ",num_warps=" + std::to_string(numWarps);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = kernels->find(key); it != kernels->end())
    return it->second;
  CompileOptions options;
  options.kernel = name;
  options.constants = std::move(constants);
  if (numWarps)
    options.numWarps = numWarps;
  Expected<Kernel> kernel = Runtime::get().compileSource(source, file, options);
  if (kernel)
    (*kernels)[key] = *kernel;
  return kernel;
}

float scaleOf(const Tensor &q, const AttentionTrainingOptions &options) {
  return options.scale
             ? *options.scale
             : static_cast<float>(1.0 / std::sqrt(double(q.shape[3])));
}

unsigned blocks(int64_t n, int64_t tile) {
  return static_cast<unsigned>((n + tile - 1) / tile);
}

} // namespace

int64_t tile::attentionLseRows(int64_t seqQ) {
  return (std::max<int64_t>(seqQ, 0) + kTile - 1) / kTile * kTile;
}

Status tile::attentionWithLse(const Tensor &q, const Tensor &k, const Tensor &v,
                              const Tensor &out, const Tensor &lse,
                              const AttentionTrainingOptions &options) {
  const char *op = "attentionWithLse";
  if (Status s = checkAll(op, q, k, v, {{&out, "out"}}, {}, {{&lse, "lse"}},
                          {{&out, "out"}, {&lse, "lse"}}, options);
      !s.ok())
    return s;
  if (q.shape[0] * q.shape[1] == 0)
    return Status();
  // 64 x 64 tiles to head_dim 64, 128 x 128 to 128, 128 x 64 above, 128
  // x 80 above 192 from kLongKeys keys (python/tilec/autograd.py
  // forward_tiles, with the measurements).
  int64_t tile = q.shape[3] <= 64 ? kTile : 2 * kTile;
  int64_t keys = q.shape[3] > 192 && k.shape[2] >= kLongKeys ? 80
                 : q.shape[3] > 128                          ? kTile
                                                             : tile;
  Expected<Kernel> kernel =
      kernelFor(kLseSource, "attention_lse.tile", "attention_lse",
                {{"DTYPE", dtypeName(q.dtype)},
                 {"TILE_D", std::to_string(q.shape[3])},
                 {"TILE_M", std::to_string(tile)},
                 {"TILE_N", std::to_string(keys)},
                 {"CAUSAL", options.causal ? "true" : "false"},
                 {"EVEN_N", k.shape[2] % keys == 0 ? "true" : "false"}});
  if (!kernel)
    return refuse(op, kernel.status().message());
  Status s =
      kernel->launch(Dim3(blocks(q.shape[2], tile),
                          static_cast<unsigned>(q.shape[0] * q.shape[1])),
                     options.stream, {q, k, v, out, lse, scaleOf(q, options)});
  return s.ok() ? s : refuse(op, s.message());
}

Status tile::checkAttentionBackward(const Tensor &q, const Tensor &k,
                                    const Tensor &v, const Tensor &out,
                                    const Tensor &lse, const Tensor &dout,
                                    const Tensor &dq, const Tensor &dk,
                                    const Tensor &dv, const Tensor &delta,
                                    const AttentionTrainingOptions &options) {
  return checkAll(
      "attentionBackward", q, k, v,
      {{&out, "out"}, {&dout, "dout"}, {&dq, "dq"}}, {{&dk, "dk"}, {&dv, "dv"}},
      {{&lse, "lse"}, {&delta, "delta"}},
      {{&dq, "dq"}, {&dk, "dk"}, {&dv, "dv"}, {&delta, "delta"}}, options);
}

Status tile::attentionBackward(const Tensor &q, const Tensor &k,
                               const Tensor &v, const Tensor &out,
                               const Tensor &lse, const Tensor &dout,
                               const Tensor &dq, const Tensor &dk,
                               const Tensor &dv, const Tensor &delta,
                               const AttentionTrainingOptions &options) {
  const char *op = "attentionBackward";
  if (Status s = checkAttentionBackward(q, k, v, out, lse, dout, dq, dk, dv,
                                        delta, options);
      !s.ok())
    return s;
  int64_t bh = q.shape[0] * q.shape[1], bhk = k.shape[0] * k.shape[1];
  if (bh == 0)
    return Status();
  // At head_dim 192 the 256-wide kernels: TMA reads the columns past 192
  // as zeros and clips them from the stores (on two warpgroups a 64 x 192
  // dK/dV multiply would split its columns 96 + 96, which wgmma cannot;
  // autograd.py's BACKWARD_D).
  std::string dtype = dtypeName(q.dtype),
              d = std::to_string(q.shape[3] == 192 ? 256 : q.shape[3]),
              causal = options.causal ? "true" : "false";
  // Past head_dim 128 the dK/dV and dQ kernels take two warpgroups (on one,
  // the 64 x 256 dK and dV need 256 registers a thread; autograd.py's).
  unsigned warps = q.shape[3] > 128 ? 8 : 0;
  auto get = [&](const char *name,
                 std::vector<std::pair<std::string, std::string>> extra,
                 unsigned numWarps = 0) {
    std::vector<std::pair<std::string, std::string>> constants = {
        {"DTYPE", dtype}, {"D", d}};
    constants.insert(constants.end(), extra.begin(), extra.end());
    return kernelFor(kBackwardSource, "flash_attention_bwd.tile", name,
                     std::move(constants), numWarps);
  };
  std::string t = std::to_string(kTile);
  // No key masked for the sequence's end where the keys fill whole tiles.
  std::string even = k.shape[2] % kTile == 0 ? "true" : "false";
  Expected<Kernel> pre = get("attn_bwd_preprocess", {{"TILE_M", t}});
  if (!pre)
    return refuse(op, pre.status().message());
  Expected<Kernel> dkdv = get("attn_bwd",
                              {{"TILE_M", t},
                               {"TILE_N", t},
                               {"CAUSAL", causal},
                               {"DQ_ATOMIC", "false"},
                               {"EVEN_N", even}},
                              warps);
  if (!dkdv)
    return refuse(op, dkdv.status().message());
  Expected<Kernel> dqKernel =
      get("attn_bwd_dq",
          {{"TILE_M", t}, {"TILE_N", t}, {"CAUSAL", causal}, {"EVEN_N", even}},
          warps);
  if (!dqKernel)
    return refuse(op, dqKernel.status().message());
  // Without its atomics attn_bwd never touches its f32 dQ: delta's first
  // element stands in for it. dK and dV have the K/V heads (no partial
  // sums: there is no workspace for them here).
  Tensor unused = Tensor::contiguous(delta.data, DType::F32, {1, 1, 1, 1});
  float scale = scaleOf(q, options);
  unsigned queryTiles = blocks(q.shape[2], kTile);
  Status s = pre->launch(Dim3(queryTiles, unsigned(bh)), options.stream,
                         {out, dout, rowsView(delta)});
  if (s.ok())
    s = dkdv->launch(
        Dim3(blocks(k.shape[2], kTile), unsigned(bhk)), options.stream,
        {q, k, v, dout, rowsView(lse), rowsView(delta), unused, dk, dv, scale});
  if (s.ok())
    s = dqKernel->launch(
        Dim3(queryTiles, unsigned(bh)), options.stream,
        {q, k, v, dout, rowsView(lse), rowsView(delta), dq, scale});
  return s.ok() ? s : refuse(op, s.message());
}
