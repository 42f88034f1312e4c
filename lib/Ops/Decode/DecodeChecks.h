//===- DecodeChecks.h - argument checks the decode operations share -------===//
//
// Tensor checks with messages prefixed by the operation's name
// ("tile::mlaDecode: kv_cache: ..."), and small device buffers the
// operations keep (a stand-in for partials a launch never touches).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_DECODE_DECODECHECKS_H
#define TILE_OPS_DECODE_DECODECHECKS_H

#include "tile/Decode.h"

#include <string>
#include <vector>

namespace tile::decode {

/// "[1, 2, 3]".
std::string listText(const std::vector<int64_t> &values);
/// A size of 0 anywhere.
bool isEmpty(const Tensor &t);
/// Rank, sizes in 0 .. 2^31-1, non-negative strides, data for a non-empty
/// tensor and a contiguous last dimension; `dims` names the dimensions
/// ("(batch, s_q, heads, head_dim)") in the message.
Status checkTensor(const std::string &op, const Tensor &t, const char *name,
                   size_t rank, const char *dims);
/// q of f16 or bf16 ("<what> takes f16 or bf16") and `cache` of q's.
Status checkHalfInputs(const std::string &op, const Tensor &q,
                       const Tensor &cache, const char *cacheName,
                       const char *what);
/// The options both operations take: splits not negative, a plan made for
/// `batch` sequences, a finite scale (default 1/sqrt(dims)) into `scale`.
Status checkCommonOptions(const std::string &op, int64_t numSplits,
                          const DecodePlan *plan, int64_t batch,
                          std::optional<float> given, int64_t dims,
                          float &scale);
/// A workspace of `given` bytes at `workspace` for one that needs `needed`
/// (sizeQuery names the function that says how many): large enough and,
/// when needed at all, 16-byte aligned.
Status checkWorkspace(const std::string &op, void *workspace, size_t given,
                      size_t needed, const char *sizeQuery);
/// 64 bytes of device memory, kept for the process: the arguments of
/// tensors a launch never reads or writes.
Expected<void *> standIn();

} // namespace tile::decode

#endif // TILE_OPS_DECODE_DECODECHECKS_H
