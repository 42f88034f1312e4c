//===- DecodeCApi.cpp - the decode operations' C API ----------------------===//
//
// The decode operations' C entry points (tile/tile.h): tile_tensor and the
// options structs to tile::Tensor, tile::MlaDecodeOptions and
// tile::KVCacheOptions, decode plans as opaque handles, the split-KV
// schedule's arrays; errors through the runtime's thread-local last error.
//
//===----------------------------------------------------------------------===//

#include "tile/Decode.h"
#include "tile/tile.h"

#include "RuntimeImpl.h"

#include <algorithm>

using namespace tile;
using namespace tile::detail;

namespace {

bool toTensor(const tile_tensor *in, const char *name, Tensor &out,
              const char *op = "tile::mlaDecode") {
  return fromCTensor(in, op, name, out);
}

MlaDecodeOptions toOptions(const tile_mla_decode_options *in,
                           struct CUstream_st *stream) {
  MlaDecodeOptions o;
  if (in) {
    if (in->head_dim_v)
      o.headDimV = in->head_dim_v;
    if (in->has_scale)
      o.scale = in->scale;
    o.causal = in->non_causal == 0;
    o.numSplits = in->num_splits;
    o.plan = reinterpret_cast<const DecodePlan *>(in->plan);
  }
  o.stream = stream;
  return o;
}

constexpr const char *kKV = "tile::attentionWithKVCache";

/// A tensor that may be absent (NULL).
bool toOptional(const tile_tensor *in, const char *name, Tensor &out,
                const Tensor *&pointer) {
  pointer = nullptr;
  if (!in)
    return true;
  if (!toTensor(in, name, out, kKV))
    return false;
  pointer = &out;
  return true;
}

KVCacheOptions toKVOptions(const tile_kvcache_options *in,
                           struct CUstream_st *stream) {
  KVCacheOptions o;
  if (in) {
    if (in->has_scale)
      o.scale = in->scale;
    o.causal = in->non_causal == 0;
    o.numSplits = in->num_splits;
    o.plan = reinterpret_cast<const DecodePlan *>(in->plan);
    o.checkBlockTable = in->check_block_table != 0;
    o.tickets = in->tickets;
  }
  o.stream = stream;
  return o;
}

int kvCacheC(const tile_tensor *q, const tile_tensor *k_cache,
             const tile_tensor *v_cache, const tile_tensor *cache_seqlens,
             const tile_tensor *block_table, const tile_tensor *k_new,
             const tile_tensor *v_new, const tile_tensor *out, void *workspace,
             size_t workspace_bytes, const tile_kvcache_options *options,
             struct CUstream_st *stream, bool launch) {
  Tensor t[5], opt[3];
  const Tensor *table, *kNew, *vNew;
  if (!toTensor(q, "q", t[0], kKV) ||
      !toTensor(k_cache, "k_cache", t[1], kKV) ||
      !toTensor(v_cache, "v_cache", t[2], kKV) ||
      !toTensor(cache_seqlens, "cache_seqlens", t[3], kKV) ||
      !toTensor(out, "out", t[4], kKV) ||
      !toOptional(block_table, "block_table", opt[0], table) ||
      !toOptional(k_new, "k_new", opt[1], kNew) ||
      !toOptional(v_new, "v_new", opt[2], vNew))
    return TILE_ERROR;
  KVCacheOptions o = toKVOptions(options, stream);
  Status status =
      launch ? attentionWithKVCache(t[0], t[1], t[2], t[3], table, kNew, vNew,
                                    t[4], workspace, workspace_bytes, o)
             : checkAttentionWithKVCache(t[0], t[1], t[2], t[3], table, kNew,
                                         vNew, t[4], o);
  return status.ok() ? TILE_OK : failC(status);
}

} // namespace

extern "C" {

tile_decode_plan *tile_decode_plan_create(const int64_t *lengths,
                                          int64_t batch) {
  if (batch < 0 || (batch && !lengths)) {
    failC("tile_decode_plan_create: lengths: NULL or batch " +
          std::to_string(batch) + " negative");
    return nullptr;
  }
  return reinterpret_cast<tile_decode_plan *>(
      new DecodePlan(std::vector<int64_t>(lengths, lengths + batch)));
}

void tile_decode_plan_destroy(tile_decode_plan *plan) {
  delete reinterpret_cast<DecodePlan *>(plan);
}

int tile_attention_with_kvcache_workspace_bytes(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *block_table, const tile_kvcache_options *options,
    size_t *bytes) {
  Tensor t[2], tableTensor;
  const Tensor *table;
  if (!toTensor(q, "q", t[0], kKV) ||
      !toTensor(k_cache, "k_cache", t[1], kKV) ||
      !toOptional(block_table, "block_table", tableTensor, table))
    return TILE_ERROR;
  if (!bytes)
    return failC("tile_attention_with_kvcache_workspace_bytes: NULL bytes");
  Expected<size_t> n = attentionWithKVCacheWorkspaceBytes(
      t[0], t[1], table, toKVOptions(options, nullptr));
  if (!n)
    return failC(n.status());
  *bytes = *n;
  return TILE_OK;
}

int tile_attention_with_kvcache(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *v_cache, const tile_tensor *cache_seqlens,
    const tile_tensor *block_table, const tile_tensor *k_new,
    const tile_tensor *v_new, const tile_tensor *out, void *workspace,
    size_t workspace_bytes, const tile_kvcache_options *options,
    struct CUstream_st *stream) {
  return kvCacheC(q, k_cache, v_cache, cache_seqlens, block_table, k_new, v_new,
                  out, workspace, workspace_bytes, options, stream, true);
}

int tile_attention_with_kvcache_check(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *v_cache, const tile_tensor *cache_seqlens,
    const tile_tensor *block_table, const tile_tensor *k_new,
    const tile_tensor *v_new, const tile_tensor *out,
    const tile_kvcache_options *options) {
  return kvCacheC(q, k_cache, v_cache, cache_seqlens, block_table, k_new, v_new,
                  out, nullptr, 0, options, nullptr, false);
}

int tile_mla_decode_workspace_bytes(const tile_tensor *q,
                                    const tile_tensor *kv_cache,
                                    const tile_tensor *block_table,
                                    const tile_mla_decode_options *options,
                                    size_t *bytes) {
  Tensor t[3];
  if (!toTensor(q, "q", t[0]) || !toTensor(kv_cache, "kv_cache", t[1]) ||
      !toTensor(block_table, "block_table", t[2]))
    return TILE_ERROR;
  if (!bytes)
    return failC("tile_mla_decode_workspace_bytes: NULL bytes");
  Expected<size_t> n =
      mlaDecodeWorkspaceBytes(t[0], t[1], t[2], toOptions(options, nullptr));
  if (!n)
    return failC(n.status());
  *bytes = *n;
  return TILE_OK;
}

static int mlaDecodeC(const tile_tensor *q, const tile_tensor *kv_cache,
                      const tile_tensor *cache_seqlens,
                      const tile_tensor *block_table, const tile_tensor *out,
                      const tile_tensor *lse, void *workspace,
                      size_t workspace_bytes,
                      const tile_mla_decode_options *options,
                      struct CUstream_st *stream, bool launch) {
  Tensor t[6];
  if (!toTensor(q, "q", t[0]) || !toTensor(kv_cache, "kv_cache", t[1]) ||
      !toTensor(cache_seqlens, "cache_seqlens", t[2]) ||
      !toTensor(block_table, "block_table", t[3]) ||
      !toTensor(out, "out", t[4]) || !toTensor(lse, "lse", t[5]))
    return TILE_ERROR;
  MlaDecodeOptions o = toOptions(options, stream);
  Status status = launch
                      ? mlaDecode(t[0], t[1], t[2], t[3], t[4], t[5], workspace,
                                  workspace_bytes, o)
                      : checkMlaDecode(t[0], t[1], t[2], t[3], t[4], t[5], o);
  return status.ok() ? TILE_OK : failC(status);
}

int tile_mla_decode(const tile_tensor *q, const tile_tensor *kv_cache,
                    const tile_tensor *cache_seqlens,
                    const tile_tensor *block_table, const tile_tensor *out,
                    const tile_tensor *lse, void *workspace,
                    size_t workspace_bytes,
                    const tile_mla_decode_options *options,
                    struct CUstream_st *stream) {
  return mlaDecodeC(q, kv_cache, cache_seqlens, block_table, out, lse,
                    workspace, workspace_bytes, options, stream, true);
}

int tile_mla_decode_check(const tile_tensor *q, const tile_tensor *kv_cache,
                          const tile_tensor *cache_seqlens,
                          const tile_tensor *block_table,
                          const tile_tensor *out, const tile_tensor *lse,
                          const tile_mla_decode_options *options) {
  return mlaDecodeC(q, kv_cache, cache_seqlens, block_table, out, lse, nullptr,
                    0, options, nullptr, false);
}

int tile_split_kv_schedule(const int64_t *lengths, int64_t batch, int64_t units,
                           int64_t keys_per_trip, int64_t slots,
                           int64_t saturating_slots, int64_t multiprocessors,
                           int64_t max_keys, int64_t splits, double merge_trips,
                           int32_t *table, int64_t capacity, int64_t *items,
                           int64_t *partials, int64_t *max_splits) {
  if (batch < 0 || (batch && !lengths))
    return failC("tile_split_kv_schedule: lengths: NULL or batch " +
                 std::to_string(batch) + " negative");
  if (!items || !partials || !max_splits)
    return failC("tile_split_kv_schedule: NULL items, partials or "
                 "max_splits");
  SplitScheduleOptions o;
  o.keysPerTrip = keys_per_trip;
  o.slots = slots;
  o.saturatingSlots = saturating_slots;
  o.multiprocessors = multiprocessors;
  o.maxKeys = max_keys;
  o.splits = splits;
  o.mergeTrips = merge_trips;
  Expected<SplitSchedule> s =
      splitKVSchedule(std::vector<int64_t>(lengths, lengths + batch), units, o);
  if (!s)
    return failC(s.status());
  *items = s->items;
  *partials = s->partials;
  *max_splits = s->maxSplits;
  if (table && capacity >= static_cast<int64_t>(s->table.size()))
    std::copy(s->table.begin(), s->table.end(), table);
  return TILE_OK;
}

} // extern "C"
