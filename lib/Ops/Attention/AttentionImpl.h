//===- AttentionImpl.h - The attention operation, inside libtile -*- C++
//-*-===//
//
// What the attention operation's C++ (Attention.cpp) and C (AttentionCApi.cpp)
// entry points share: a tensor argument borrowed from either API, and the
// operation's body.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_ATTENTION_ATTENTIONIMPL_H
#define TILE_OPS_ATTENTION_ATTENTIONIMPL_H

#include "tile/Attention.h"

#include "RuntimeImpl.h"

#include <string>

namespace tile::detail {

/// A tensor argument of tile::attention, borrowed from whichever API it came
/// through.
struct TensorRef {
  const void *data = nullptr;
  DType dtype = DType::F16;
  const int64_t *shape = nullptr;
  size_t rank = 0;
  const int64_t *strides = nullptr;
  size_t stridesRank = 0;
};

/// tile::attention's body: checks; then, with `launch`, runs; with
/// `config`, stores the configuration used (tuning it if needed).
Status attentionRefs(const TensorRef &q, const TensorRef &k, const TensorRef &v,
                     const TensorRef &out, const AttentionOptions &options,
                     bool launch, std::string *config);

/// tile::attentionVarlen's body, as attentionRefs's.
Status attentionVarlenRefs(const TensorRef &q, const TensorRef &k,
                           const TensorRef &v, const TensorRef &out,
                           const TensorRef &cuSeqlensQ,
                           const TensorRef &cuSeqlensK, int64_t maxSeqlenQ,
                           int64_t maxSeqlenK, const AttentionOptions &options,
                           bool launch, std::string *config);

} // namespace tile::detail

#endif // TILE_OPS_ATTENTION_ATTENTIONIMPL_H
