//===- AttentionCApi.cpp - tile_attention and friends, the C API
//-----------===//
//
// The attention operation's C entry points (tile/tile.h): tile_tensor and
// tile_attention_options to the operation's TensorRef and AttentionOptions,
// and the training entry points' tensors and options to tile::Tensor and
// AttentionTrainingOptions; errors through the runtime's thread-local last
// error.
//
//===----------------------------------------------------------------------===//

#include "AttentionImpl.h"

#include "tile/tile.h"

#include <cstring>

using namespace tile;
using namespace tile::detail;

static bool toTensorRef(const tile_tensor *in, const char *name,
                        TensorRef &out) {
  if (!in) {
    failC(std::string("tile::attention: ") + name + ": NULL tensor");
    return false;
  }
  if (in->rank < 0 || static_cast<unsigned>(in->dtype) > TILE_I8) {
    failC(std::string("tile::attention: ") + name +
          ": malformed tile_tensor (rank " + std::to_string(in->rank) +
          ", dtype " + std::to_string(static_cast<int>(in->dtype)) + ")");
    return false;
  }
  out.data = in->data;
  out.dtype = static_cast<DType>(in->dtype);
  out.shape = in->shape;
  out.strides = in->strides;
  out.rank = out.stridesRank = static_cast<size_t>(in->rank);
  return true;
}

/// The C options as tile::AttentionOptions (the defaults where null).
static AttentionOptions attentionOptions(const tile_attention_options *options,
                                         Stream stream) {
  AttentionOptions o;
  if (options) {
    o.causal = options->causal != 0;
    if (options->has_scale)
      o.scale = options->scale;
    o.inputPos = options->input_pos;
    o.autotune = options->disable_autotune == 0;
  }
  o.stream = stream;
  return o;
}

static int attentionC(const tile_tensor *q, const tile_tensor *k,
                      const tile_tensor *v, const tile_tensor *out,
                      const tile_attention_options *options, Stream stream,
                      bool launch, std::string *config = nullptr) {
  TensorRef refs[4];
  if (!toTensorRef(q, "q", refs[0]) || !toTensorRef(k, "k", refs[1]) ||
      !toTensorRef(v, "v", refs[2]) || !toTensorRef(out, "out", refs[3]))
    return TILE_ERROR;
  AttentionOptions o = attentionOptions(options, stream);
  Status status =
      attentionRefs(refs[0], refs[1], refs[2], refs[3], o, launch, config);
  return status.ok() ? TILE_OK : failC(status);
}

static int attentionVarlenC(const tile_tensor *q, const tile_tensor *k,
                            const tile_tensor *v, const tile_tensor *out,
                            const tile_tensor *cuSeqlensQ,
                            const tile_tensor *cuSeqlensK, int64_t maxSeqlenQ,
                            int64_t maxSeqlenK,
                            const tile_attention_options *options,
                            Stream stream, bool launch) {
  TensorRef refs[6];
  if (!toTensorRef(q, "q", refs[0]) || !toTensorRef(k, "k", refs[1]) ||
      !toTensorRef(v, "v", refs[2]) || !toTensorRef(out, "out", refs[3]) ||
      !toTensorRef(cuSeqlensQ, "cu_seqlens_q", refs[4]) ||
      !toTensorRef(cuSeqlensK, "cu_seqlens_k", refs[5]))
    return TILE_ERROR;
  AttentionOptions o = attentionOptions(options, stream);
  Status status =
      attentionVarlenRefs(refs[0], refs[1], refs[2], refs[3], refs[4], refs[5],
                          maxSeqlenQ, maxSeqlenK, o, launch, nullptr);
  return status.ok() ? TILE_OK : failC(status);
}

extern "C" {

int tile_attention(const tile_tensor *q, const tile_tensor *k,
                   const tile_tensor *v, const tile_tensor *out,
                   const tile_attention_options *options,
                   struct CUstream_st *stream) {
  return attentionC(q, k, v, out, options, stream, /*launch=*/true);
}

int tile_attention_check(const tile_tensor *q, const tile_tensor *k,
                         const tile_tensor *v, const tile_tensor *out,
                         const tile_attention_options *options) {
  return attentionC(q, k, v, out, options, nullptr, /*launch=*/false);
}

int tile_attention_config(const tile_tensor *q, const tile_tensor *k,
                          const tile_tensor *v, const tile_tensor *out,
                          const tile_attention_options *options,
                          struct CUstream_st *stream, char *buffer, size_t size,
                          size_t *needed) {
  if (size && !buffer)
    return failC("tile_attention_config: NULL buffer of size " +
                 std::to_string(size));
  std::string config;
  if (int rc =
          attentionC(q, k, v, out, options, stream, /*launch=*/false, &config);
      rc != TILE_OK)
    return rc;
  if (needed)
    *needed = config.size() + 1;
  if (size > config.size())
    std::memcpy(buffer, config.c_str(), config.size() + 1);
  return TILE_OK;
}

int tile_attention_varlen(const tile_tensor *q, const tile_tensor *k,
                          const tile_tensor *v, const tile_tensor *out,
                          const tile_tensor *cu_seqlens_q,
                          const tile_tensor *cu_seqlens_k, int64_t max_seqlen_q,
                          int64_t max_seqlen_k,
                          const tile_attention_options *options,
                          struct CUstream_st *stream) {
  return attentionVarlenC(q, k, v, out, cu_seqlens_q, cu_seqlens_k,
                          max_seqlen_q, max_seqlen_k, options, stream,
                          /*launch=*/true);
}

int tile_attention_varlen_check(const tile_tensor *q, const tile_tensor *k,
                                const tile_tensor *v, const tile_tensor *out,
                                const tile_tensor *cu_seqlens_q,
                                const tile_tensor *cu_seqlens_k,
                                int64_t max_seqlen_q, int64_t max_seqlen_k,
                                const tile_attention_options *options) {
  return attentionVarlenC(q, k, v, out, cu_seqlens_q, cu_seqlens_k,
                          max_seqlen_q, max_seqlen_k, options, nullptr,
                          /*launch=*/false);
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Training: tile_attention_with_lse, tile_attention_backward
//===----------------------------------------------------------------------===//

static AttentionTrainingOptions
trainingOptions(const tile_attention_training_options *options, Stream stream) {
  AttentionTrainingOptions o;
  if (options) {
    o.causal = options->causal != 0;
    if (options->has_scale)
      o.scale = options->scale;
  }
  o.stream = stream;
  return o;
}

static int backwardC(const tile_tensor *const (&in)[10],
                     const tile_attention_training_options *options,
                     Stream stream, bool launch) {
  static const char *const names[10] = {"q",    "k",  "v",  "out", "lse",
                                        "dout", "dq", "dk", "dv",  "delta"};
  Tensor t[10];
  for (int i = 0; i < 10; ++i)
    if (!fromCTensor(in[i], "tile::attentionBackward", names[i], t[i]))
      return TILE_ERROR;
  AttentionTrainingOptions o = trainingOptions(options, stream);
  Status status = launch
                      ? attentionBackward(t[0], t[1], t[2], t[3], t[4], t[5],
                                          t[6], t[7], t[8], t[9], o)
                      : checkAttentionBackward(t[0], t[1], t[2], t[3], t[4],
                                               t[5], t[6], t[7], t[8], t[9], o);
  return status.ok() ? TILE_OK : failC(status);
}

extern "C" {

int64_t tile_attention_lse_rows(int64_t seq_q) {
  return attentionLseRows(seq_q);
}

int tile_attention_with_lse(const tile_tensor *q, const tile_tensor *k,
                            const tile_tensor *v, const tile_tensor *out,
                            const tile_tensor *lse,
                            const tile_attention_training_options *options,
                            struct CUstream_st *stream) {
  const tile_tensor *in[5] = {q, k, v, out, lse};
  static const char *const names[5] = {"q", "k", "v", "out", "lse"};
  Tensor t[5];
  for (int i = 0; i < 5; ++i)
    if (!fromCTensor(in[i], "tile::attentionWithLse", names[i], t[i]))
      return TILE_ERROR;
  Status status = attentionWithLse(t[0], t[1], t[2], t[3], t[4],
                                   trainingOptions(options, stream));
  return status.ok() ? TILE_OK : failC(status);
}

int tile_attention_backward(const tile_tensor *q, const tile_tensor *k,
                            const tile_tensor *v, const tile_tensor *out,
                            const tile_tensor *lse, const tile_tensor *dout,
                            const tile_tensor *dq, const tile_tensor *dk,
                            const tile_tensor *dv, const tile_tensor *delta,
                            const tile_attention_training_options *options,
                            struct CUstream_st *stream) {
  return backwardC({q, k, v, out, lse, dout, dq, dk, dv, delta}, options,
                   stream, /*launch=*/true);
}

int tile_attention_backward_check(
    const tile_tensor *q, const tile_tensor *k, const tile_tensor *v,
    const tile_tensor *out, const tile_tensor *lse, const tile_tensor *dout,
    const tile_tensor *dq, const tile_tensor *dk, const tile_tensor *dv,
    const tile_tensor *delta, const tile_attention_training_options *options) {
  return backwardC({q, k, v, out, lse, dout, dq, dk, dv, delta}, options,
                   nullptr, /*launch=*/false);
}

} // extern "C"
