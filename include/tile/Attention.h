//===- Attention.h - libtile: forward attention on GPU tensors -*- C++ -*-===//
//
// Flash attention forward, the project's kernels/flash_attention.tile
// (built into libtile), without knowing its constants, grid or tiles:
//
//   tile::Tensor q = tile::Tensor::contiguous(qData, tile::DType::F16,
//                                             {batch, heads, seq_q, head_dim});
//   ... k, v: {batch, kv_heads, seq_k, head_dim}; out: like q ...
//   tile::AttentionOptions options;
//   options.causal = true;
//   tile::Status status = tile::attention(q, k, v, out, options);
//
// out = softmax(scale * q k^T + mask) v, per batch and query head, on
// (batch, heads, seq, head_dim) tensors of any strides whose last dimension
// is contiguous (a (batch, seq, heads, head_dim) buffer viewed with
// permuted strides works as is). Supported:
//   - f16 or bf16, the same for q, k, v and out;
//   - head_dim a multiple of 8 up to 256 (the kernel runs the next power of
//     two, padding with zeros and masking the store);
//   - grouped-query and multi-query attention: kv_heads divides heads;
//   - seq_q != seq_k; causal masks key j for query i when
//     j > input_pos + i (input_pos 0: the top-left aligned mask of
//     PyTorch's is_causal; seq_k - seq_q: bottom-right, for decoding);
//   - empty inputs (a zero batch, head count, seq_q or head_dim): nothing
//     runs and the call succeeds.
// Every argument is checked first; a refusal names the argument
// ("tile::attention: k: has 64 heads, more than q's 32").
//
// The kernel constants, grid and tile configuration are picked for the
// current GPU by the autotuner (tile/Autotune.h), once per problem class
// (dtype, head dim, head counts, mask, and seq_q/seq_k/batch*heads rounded
// up to powers of two), remembered in memory and on disk. A tuned call
// costs a table look-up, the checks and one launch. TILEC_AUTOTUNE=off
// uses a default configuration per head dim.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ATTENTION_H
#define TILE_ATTENTION_H

#include "tile/Tile.h"

#include <optional>

namespace tile {

struct AttentionOptions {
  bool causal = false;
  /// Softmax scale; default 1/sqrt(head_dim). Must be finite.
  std::optional<float> scale;
  /// Position of the first query (offsets the causal mask); 0 or more.
  int64_t inputPos = 0;
  /// The stream to run (and tune) on; nullptr: the default stream.
  Stream stream = nullptr;
  /// false: the default configuration, whatever TILEC_AUTOTUNE says.
  bool autotune = true;
};

/// Checks the arguments, then runs attention into `out` (asynchronously on
/// options.stream).
TILE_API Status attention(const Tensor &q, const Tensor &k, const Tensor &v,
                          const Tensor &out,
                          const AttentionOptions &options = {});

/// The checks of attention() alone: touches no GPU.
TILE_API Status checkAttention(const Tensor &q, const Tensor &k,
                               const Tensor &v, const Tensor &out,
                               const AttentionOptions &options = {});

/// The configuration attention() uses for these arguments (tuning it if
/// needed), e.g. "TILE_M=128,TILE_N=64,warps=4,stages=2".
TILE_API Expected<std::string>
attentionConfig(const Tensor &q, const Tensor &k, const Tensor &v,
                const Tensor &out, const AttentionOptions &options = {});

//===----------------------------------------------------------------------===//
// Packed sequences of different lengths (FlashAttention's varlen)
//===----------------------------------------------------------------------===//
//
// kernels/flash_attention.tile's fmha_varlen: a batch of sequences of
// different lengths packed end to end, as flash_attn_varlen_func takes
// them (no padding computed):
//
//   q, out: (total_q, heads, head_dim)    k, v: (total_k, kv_heads, head_dim)
//   cuSeqlensQ, cuSeqlensK: (batch + 1,) int32 on the GPU, from 0 to the
//   totals; sequence b is rows cuSeqlensQ[b] .. cuSeqlensQ[b + 1] - 1 of q
//   and out and cuSeqlensK[b] .. cuSeqlensK[b + 1] - 1 of k and v.
//
// maxSeqlenQ and maxSeqlenK are the longest sequence's queries and keys
// (they size the grid: a sequence longer than maxSeqlenQ has its later
// rows left unwritten). causal masks key j for query i of a sequence of
// q_len queries and k_len keys when j > i + k_len - q_len (aligned to the
// bottom right, as FlashAttention 2.1 on); a query that sees no key
// (q_len > k_len) and a sequence with no keys write zeros. Offsets past the
// totals read as the totals (the kernel clamps its slices into the
// tensors): wrong offsets give wrong rows, never an access outside q, k,
// v or out. dtype, head dims, GQA, strides and the tuning per problem class
// (the longest lengths rounded up to powers of two) as attention();
// options.inputPos must be 0. Each call first makes the table of the
// sequences' query tiles on the stream (the same file's varlen_tiles, into
// device memory libtile keeps per stream: 8 bytes per query tile), so that
// the grid holds those tiles and no others: a short sequence costs its own
// tiles, not the longest one's.
TILE_API Status attentionVarlen(const Tensor &q, const Tensor &k,
                                const Tensor &v, const Tensor &out,
                                const Tensor &cuSeqlensQ,
                                const Tensor &cuSeqlensK, int64_t maxSeqlenQ,
                                int64_t maxSeqlenK,
                                const AttentionOptions &options = {});

/// The checks of attentionVarlen() alone: touches no GPU.
TILE_API Status checkAttentionVarlen(const Tensor &q, const Tensor &k,
                                     const Tensor &v, const Tensor &out,
                                     const Tensor &cuSeqlensQ,
                                     const Tensor &cuSeqlensK,
                                     int64_t maxSeqlenQ, int64_t maxSeqlenK,
                                     const AttentionOptions &options = {});

//===----------------------------------------------------------------------===//
// Training: the forward that saves the log-sum-exp, and the backward
//===----------------------------------------------------------------------===//
//
// kernels/attention_lse.tile and kernels/flash_attention_bwd.tile (built
// into libtile), as tilec.attention's autograd runs them:
//
//   attentionWithLse(q, k, v, out, lse, options);        // training forward
//   attentionBackward(q, k, v, out, lse, dout, dq, dk, dv, delta, options);
//
// q, out, dout, dq: (batch, heads, seq_q, head_dim); k, v, dk, dv:
// (batch, kv_heads, seq_k, head_dim), kv_heads dividing heads (dk and dv
// summed over the query heads sharing a k/v head); all row-major
// (contiguous), f16 or bf16 alike, head_dim 64, 96, 128, 192 or 256 (192 and
// 256 on sm_90; 192 runs the backward's 256-wide kernels, a third of their
// multiplies on the zeros TMA reads past the 192 columns),
// seq_q and seq_k >= 1 and may differ (causal masks key j for query i when
// j > i). lse and delta: f32, row-major (batch, heads,
// attentionLseRows(seq_q)): the forward's natural-log log-sum-exp of each
// query row, and the backward's scratch (rowsum(dout * out)); their rows
// past seq_q are written and read by the kernels. The gradients are
// deterministic (the same bits on every run): dq comes from a kernel of its own
// over the key tiles in order, not from atomics. Every argument is checked
// first, a refusal naming it.

struct AttentionTrainingOptions {
  bool causal = false;
  /// Softmax scale; default 1/sqrt(head_dim). Must be finite.
  std::optional<float> scale;
  /// The stream to run on; nullptr: the default stream.
  Stream stream = nullptr;
};

/// The rows of lse and delta per (batch, head): seq_q rounded up to the
/// kernels' 64-query tiles.
TILE_API int64_t attentionLseRows(int64_t seqQ);

/// attention() (no input_pos) that also writes each query row's
/// log-sum-exp into `lse`, for attentionBackward.
TILE_API Status attentionWithLse(const Tensor &q, const Tensor &k,
                                 const Tensor &v, const Tensor &out,
                                 const Tensor &lse,
                                 const AttentionTrainingOptions &options = {});

/// dq, dk, dv of attention(q, k, v) given dout, from the forward's out and
/// lse, using delta as scratch (asynchronously on options.stream). The
/// gradients are the same bits on every run: dQ comes from a kernel of its
/// own (Python's tilec.attention adds dQ by atomics instead from 4096
/// queries at head_dim 128, and causal at 64, unless deterministic:
/// 1.03-1.14x faster there).
TILE_API Status attentionBackward(const Tensor &q, const Tensor &k,
                                  const Tensor &v, const Tensor &out,
                                  const Tensor &lse, const Tensor &dout,
                                  const Tensor &dq, const Tensor &dk,
                                  const Tensor &dv, const Tensor &delta,
                                  const AttentionTrainingOptions &options = {});

/// The checks of attentionBackward() alone: touches no GPU.
TILE_API Status checkAttentionBackward(
    const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &out,
    const Tensor &lse, const Tensor &dout, const Tensor &dq, const Tensor &dk,
    const Tensor &dv, const Tensor &delta,
    const AttentionTrainingOptions &options = {});

} // namespace tile

#endif // TILE_ATTENTION_H
