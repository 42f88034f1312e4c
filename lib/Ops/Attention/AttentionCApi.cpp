//===- AttentionCApi.cpp - tile_attention and friends, the C API
//-----------===//
//
// The attention operation's C entry points (tile/tile.h): tile_tensor and
// tile_attention_options to the operation's TensorRef and AttentionOptions,
// errors through the runtime's thread-local last error.
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
  if (in->rank < 0 || static_cast<unsigned>(in->dtype) > TILE_F8E5M2) {
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

static int attentionC(const tile_tensor *q, const tile_tensor *k,
                      const tile_tensor *v, const tile_tensor *out,
                      const tile_attention_options *options, Stream stream,
                      bool launch, std::string *config = nullptr) {
  TensorRef refs[4];
  if (!toTensorRef(q, "q", refs[0]) || !toTensorRef(k, "k", refs[1]) ||
      !toTensorRef(v, "v", refs[2]) || !toTensorRef(out, "out", refs[3]))
    return TILE_ERROR;
  AttentionOptions o;
  if (options) {
    o.causal = options->causal != 0;
    if (options->has_scale)
      o.scale = options->scale;
    o.inputPos = options->input_pos;
    o.autotune = options->disable_autotune == 0;
  }
  o.stream = stream;
  Status status =
      attentionRefs(refs[0], refs[1], refs[2], refs[3], o, launch, config);
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

} // extern "C"
