//===- Decode.h - libtile: decode attention over a paged KV cache -*- C++
//-*-===//
//
// Multi-head latent attention decode (DeepSeek's MLA, FlashMLA's
// flash_mla_with_kvcache), the project's kernels/mla_decode.tile (built
// into libtile), without knowing its constants, grid or splits:
//
//   tile::MlaDecodeOptions options;           // head_dim_v 512, causal
//   tile::Expected<size_t> bytes =
//       tile::mlaDecodeWorkspaceBytes(q, kvCache, blockTable, options);
//   ... a device buffer of *bytes (none when 0), reusable across calls ...
//   tile::Status status = tile::mlaDecode(q, kvCache, cacheSeqlens,
//       blockTable, out, lse, workspace, *bytes, options);
//
// Tensors (f16 or bf16, the same for q, kv_cache and out; the last
// dimension contiguous):
//   - q (batch, s_q, heads, head_dim), head_dim = head_dim_v + the rotary
//     dims, its (s_q, heads) rows one after the other (strides[1] =
//     heads x strides[2]);
//   - kv_cache (num_pages, page_size, 1, head_dim): the one latent head,
//     its first head_dim_v dims the values; page_size a multiple of 64;
//   - cache_seqlens (batch,) int32: the keys of each sequence;
//   - block_table (batch, max_pages) int32: page j of sequence b; a length
//     past max_pages x page_size reads the table's pages only;
//   - out (batch, s_q, heads, head_dim_v), rows as q's; lse (batch, s_q,
//     heads) f32, its last dimension contiguous and rows as q's: the
//     natural log-sum-exp of the scaled scores (-inf for no keys, whose
//     output is zeros).
// head_dim_v a multiple of 128; the rotary dims a multiple of 16 up to 256
// that divides it. With causal and s_q > 1, query token t of the last s_q
// sees the keys before length - s_q + 1 + t. Every argument is checked
// first; a refusal names the argument ("tile::mlaDecode: kv_cache: page
// size 32 is not a multiple of 64").
//
// The keys of each sequence are split across blocks so that the grid fills
// the GPU (the split-KV schedule below, each (sequence, 64 query rows, or
// 16 where it has no more) a unit: numSplits 0 chosen; a DecodePlan cuts each sequence by its own
// length), each split's output and log-sum-exp written to the workspace
// and merged in f32 by a second kernel; a unit of one split writes out
// itself.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DECODE_H
#define TILE_DECODE_H

#include "tile/Tile.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tile {

/// The key count of each sequence of a decode batch as the host knows it:
/// attentionWithKVCache cuts each sequence's keys by its own length (a long
/// sequence over many blocks, a short one in one) instead of by the cache's
/// capacity. Made once per batch and step, shared by every layer; the
/// work table of each problem class is built on the device at first use
/// and kept with the plan. Lengths that differ from cache_seqlens still
/// give the right result (the last split of a sequence takes every key
/// past its start), only balanced for the planned ones. Destroying a plan
/// whose tables were built waits for the device (launches may read them).
class TILE_API DecodePlan {
public:
  explicit DecodePlan(std::vector<int64_t> lengths);
  ~DecodePlan();
  DecodePlan(const DecodePlan &) = delete;
  DecodePlan &operator=(const DecodePlan &) = delete;

  const std::vector<int64_t> &lengths() const { return lengths_; }

  /// The plan's device tables (KVCacheAttention.cpp).
  struct Tables;
  Tables &tables() const { return *tables_; }

private:
  std::vector<int64_t> lengths_;
  std::unique_ptr<Tables> tables_;
};

struct MlaDecodeOptions {
  /// Value dims: the first of each cache row (and of the output).
  int64_t headDimV = 512;
  /// Softmax scale; default 1/sqrt(head_dim). Must be finite.
  std::optional<float> scale;
  bool causal = true;
  /// Splits of each sequence's keys; 0: chosen.
  int64_t numSplits = 0;
  /// Each sequence cut by its planned length; nullptr: by the capacity.
  const DecodePlan *plan = nullptr;
  /// The stream to run on; nullptr: the default stream.
  Stream stream = nullptr;
};

/// The workspace mlaDecode needs for these arguments (the splits' partial
/// outputs, f32), in bytes; 0 when no sequence is split. Compiles the kernels
/// (once per problem class) to know their occupancy: needs the GPU.
TILE_API Expected<size_t>
mlaDecodeWorkspaceBytes(const Tensor &q, const Tensor &kvCache,
                        const Tensor &blockTable,
                        const MlaDecodeOptions &options = {});
/// Checks the arguments, then runs into `out` and `lse` (asynchronously on
/// options.stream); `workspace` (device memory, 16-byte aligned) of at
/// least mlaDecodeWorkspaceBytes bytes.
TILE_API Status mlaDecode(const Tensor &q, const Tensor &kvCache,
                          const Tensor &cacheSeqlens, const Tensor &blockTable,
                          const Tensor &out, const Tensor &lse, void *workspace,
                          size_t workspaceBytes,
                          const MlaDecodeOptions &options = {});
/// The checks of mlaDecode() alone (not the workspace's size): touches no
/// GPU.
TILE_API Status checkMlaDecode(const Tensor &q, const Tensor &kvCache,
                               const Tensor &cacheSeqlens,
                               const Tensor &blockTable, const Tensor &out,
                               const Tensor &lse,
                               const MlaDecodeOptions &options = {});

/// A split-KV schedule for one batch of decode (FlashMLA's scheduling
/// metadata, FlashInfer's plan): the work of a split kernel as items, one
/// block each, so that a short sequence does not cost a long one's time.
/// Each sequence's keys are cut into splits of at most the same number of
/// key tiles, that number chosen by simulating how `slots` resident blocks
/// (the kernel's occupancy x the multiprocessors) take the items, sharing
/// the memory once more than `saturatingSlots` are active; every unit
/// of a sequence (a KV head, a block of query rows: the work that reads
/// the same keys) has the sequence's splits. Items are ordered longest
/// first (the hardware hands blocks out in order: the long ones start
/// first, the short ones fill in behind them), a unit's items next to each
/// other.
struct SplitSchedule {
  /// The fields of an item, the rows of `table`.
  enum Field : int { Unit, Split, SplitKeys, Splits, FirstPartial, Fields };
  /// (Fields, items) int32, row f holding field f of every item: the unit
  /// (sequence x units + unit), the split's index in its unit, the keys of
  /// each split of the unit (a multiple of keysPerTrip; the last split
  /// also takes any keys past its end: a length longer than scheduled is
  /// still covered), the unit's split count, and the partial-output slot of
  /// the unit's first split (slot + split: the split's own; -1 for a unit
  /// of one split, which writes the output itself).
  std::vector<int32_t> table;
  int64_t items = 0;
  /// Partial-output slots the splits write (units of one split write none).
  int64_t partials = 0;
  /// The most splits of any unit.
  int64_t maxSplits = 0;
};

struct SplitScheduleOptions {
  /// Keys per key tile (the kernel's trip); split lengths are multiples.
  int64_t keysPerTrip = 64;
  /// Blocks of the kernel resident at once (occupancy x multiprocessors).
  int64_t slots = 1;
  /// Blocks that saturate the memory when active together, as many on
  /// each multiprocessor: past its part, a multiprocessor's active blocks
  /// share its share of the memory, each slower (0: slots, no sharing).
  int64_t saturatingSlots = 0;
  /// The multiprocessors the slots are spread over (each keeps slots /
  /// multiprocessors blocks; the hardware hands out one block to each in
  /// turn, then each where a block ends); 0: one pool.
  int64_t multiprocessors = 0;
  /// A sequence's keys past this are not read (the cache's capacity).
  int64_t maxKeys = INT32_MAX;
  /// Each split at least this many key tiles long (where the sequence has
  /// them): shorter ones cost more in the merge than they gain.
  int64_t minTrips = 4;
  /// The most splits of a unit.
  int64_t maxSplits = 64;
  /// Splits of every unit, forced (each sequence's keys cut in that many,
  /// fewer where it has fewer key tiles); 0: chosen.
  int64_t splits = 0;
  /// The time, in key tiles, each partial adds to a unit after its last
  /// split finishes when the split kernel itself merges them (its trips'
  /// loads: flash_decoding.tile, 2 / its partials per trip); 0 where a
  /// kernel of its own merges them, in parallel (mla_decode.tile's
  /// mla_combine).
  double mergeTrips = 0.5;
};

/// The schedule of a batch whose sequences have `lengths` keys (clamped to
/// 0 .. maxKeys; a sequence of no keys still has an item, which writes the
/// empty output), `units` units per sequence. Host only; refuses
/// arguments out of range with a message naming them.
TILE_API Expected<SplitSchedule>
splitKVSchedule(const std::vector<int64_t> &lengths, int64_t units,
                const SplitScheduleOptions &options);

struct KVCacheOptions {
  /// Softmax scale; default 1/sqrt(head_dim). Must be finite.
  std::optional<float> scale;
  /// With several query tokens, token t of the last s_q sees the keys
  /// before length - s_q + 1 + t (flash_attn's bottom-right alignment).
  bool causal = true;
  /// Splits of each sequence's keys, forced; 0: chosen.
  int64_t numSplits = 0;
  /// Each sequence cut by its planned length; nullptr: by the capacity.
  const DecodePlan *plan = nullptr;
  /// Check that the pages each sequence's keys fall in are pages of the
  /// cache: a copy of the block table and the lengths to the host and a
  /// wait for them (a refusal names the entry).
  bool checkBlockTable = false;
  /// The merge's counters, kept by the caller: at least batch x kv_heads
  /// int32 of device memory, zero before the first call, left zero by
  /// every call (the last split of a unit sets its own back); calls on
  /// different streams at once need their own. nullptr: in the workspace,
  /// zeroed on the stream each call (a memset, a few microseconds).
  int32_t *tickets = nullptr;
  /// The stream to run on; nullptr: the default stream.
  Stream stream = nullptr;
};

/// Decode attention over a KV cache (flash_attn_with_kvcache), the
/// project's kernels/flash_decoding.tile and kernels/kv_append.tile (built
/// into libtile):
///   - q (batch, s_q, heads, head_dim) and out (the same shape), f16 or
///     bf16, any strides with the last dimension contiguous; head_dim a
///     multiple of 16 up to 256;
///   - k_cache, v_cache: (batch, capacity, kv_heads, head_dim), or with a
///     block table (num_pages, page_size, kv_heads, head_dim), page_size a
///     multiple of 64, or 8, 16 or 32 (then pages must follow each other:
///     strides[0] = page_size x strides[1]); kv_heads divides heads, s_q x
///     heads / kv_heads at most 128;
///   - cache_seqlens (batch,) int32; block_table (batch, max_pages) int32
///     or nullptr;
///   - k_new, v_new (batch, new, kv_heads, head_dim) or nullptr: written
///     into the cache at each sequence's length first (tokens past the
///     cache dropped), the attention then covering length + new keys;
///     cache_seqlens is not changed.
/// The query heads sharing a KV head (and the query tokens) are the rows of
/// one multiply; the keys are split by a split-KV schedule
/// (splitKVSchedule), the splits merged in f32 by the last of them. Every
/// argument is checked first; a refusal names it
/// ("tile::attentionWithKVCache: k_cache: ...").

/// The workspace attentionWithKVCache needs for these arguments (the
/// splits' partial outputs, f32, and the merge's tickets), in bytes; 0 when
/// no sequence is split. Compiles the kernel (once per
/// problem class) to know its occupancy: needs the GPU.
TILE_API Expected<size_t>
attentionWithKVCacheWorkspaceBytes(const Tensor &q, const Tensor &kCache,
                                   const Tensor *blockTable,
                                   const KVCacheOptions &options = {});
/// Checks the arguments, then runs into `out` (asynchronously on
/// options.stream); `workspace` (device memory, 16-byte aligned) of at
/// least attentionWithKVCacheWorkspaceBytes bytes. The first call of a
/// problem class (and of a plan) builds its schedule on the device, which
/// cannot happen while a CUDA graph captures the stream: call once before
/// capturing; the calls a graph captures are its kernels and a memset (a
/// plan must outlive the graphs that use it).
TILE_API Status attentionWithKVCache(
    const Tensor &q, const Tensor &kCache, const Tensor &vCache,
    const Tensor &cacheSeqlens, const Tensor *blockTable, const Tensor *kNew,
    const Tensor *vNew, const Tensor &out, void *workspace,
    size_t workspaceBytes, const KVCacheOptions &options = {});
/// The checks of attentionWithKVCache() alone, without checkBlockTable's:
/// touches no GPU.
TILE_API Status checkAttentionWithKVCache(
    const Tensor &q, const Tensor &kCache, const Tensor &vCache,
    const Tensor &cacheSeqlens, const Tensor *blockTable, const Tensor *kNew,
    const Tensor *vNew, const Tensor &out, const KVCacheOptions &options = {});

} // namespace tile

#endif // TILE_DECODE_H
