//===- KVCacheAttention.cpp - tile::attentionWithKVCache ------------------===//
//
// Decode attention over a KV cache through kernels/flash_decoding.tile
// (and kernels/kv_append.tile for new tokens): checks the arguments,
// compiles the kernels once per problem class (dtype, head dim, KV heads,
// rows, page size, query tokens, group, causal), takes the split-KV
// schedule's work table (WorkTables.h: once per problem shape, or per
// DecodePlan), zeroes the merge's tickets in the workspace on the stream,
// and launches:
// kv_append on (batch, new / 4), flash_decoding on (items,).
//
//===----------------------------------------------------------------------===//

#include "tile/Decode.h"

#include "DecodeChecks.h"
#include "WorkTables.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

using namespace tile;

/// kernels/flash_decoding.tile and kernels/kv_append.tile, as built.
static const char kDecodingSource[] =
#include "flash_decoding.inc"
    ;
static const char kAppendSource[] =
#include "kv_append.inc"
    ;

namespace {

constexpr const char *kOp = "tile::attentionWithKVCache";
constexpr int64_t kKeysPerTrip = 64; // flash_decoding.tile's TILE_N
constexpr int64_t kAppendTokens = 4; // kv_append.tile's TILE_T

Status refuse(const std::string &message) {
  return Status::error(std::string(kOp) + ": " + message);
}

using decode::listText;

Status checkTensor(const Tensor &t, const char *name, size_t rank,
                   const char *dims) {
  return decode::checkTensor(kOp, t, name, rank, dims);
}

int64_t pow2AtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p *= 2;
  return p;
}

struct Problem {
  int64_t batch = 0, tokens = 0, heads = 0, dims = 0, kvHeads = 0;
  int64_t group = 0, rows = 0, page = 0, capacity = 0, fresh = 0;
  bool paged = false, causal = false;
  DType dtype = DType::F16;
  float scale = 1;

  /// The rows the merge of a unit's splits reads: its queries, a power of
  /// two within the multiply's rows.
  int64_t mergeRows() const {
    return std::min(pow2AtLeast(group * tokens), rows);
  }
  /// The partials the merge reads a trip (one load each, their latency
  /// paid once a trip): as many as keep a trip's partials at 8192 f32
  /// (4 x 16 rows x 128 dims measured without spills, 128 registers at 16
  /// rows), a power of two up to 32.
  int64_t mergeSplits() const {
    int64_t fit = std::max<int64_t>(1, 8192 / (mergeRows() * dims));
    int64_t m = 1;
    while (m * 2 <= std::min<int64_t>(fit, 32))
      m *= 2;
    return m;
  }
};

/// The checks the workspace query needs (q, k_cache, the block table).
Expected<Problem> checkShapes(const Tensor &q, const Tensor &k,
                              const Tensor *table,
                              const KVCacheOptions &options) {
  if (Status s = checkTensor(q, "q", 4, "(batch, s_q, heads, head_dim)");
      !s.ok())
    return s;
  if (Status s = checkTensor(k, "k_cache", 4,
                             table ? "(num_pages, page_size, kv_heads, "
                                     "head_dim)"
                                   : "(batch, capacity, kv_heads, head_dim)");
      !s.ok())
    return s;
  Problem p;
  p.dtype = q.dtype;
  if (Status s = decode::checkHalfInputs(kOp, q, k, "k_cache", "decode");
      !s.ok())
    return s;
  p.batch = q.shape[0];
  p.tokens = q.shape[1];
  p.heads = q.shape[2];
  p.dims = q.shape[3];
  p.kvHeads = k.shape[2];
  p.paged = table != nullptr;
  if (k.shape[3] != p.dims || (!p.paged && k.shape[0] != p.batch))
    return refuse("k_cache: shape " + listText(k.shape) +
                  " does not match q's batch " + std::to_string(p.batch) +
                  " and head_dim " + std::to_string(p.dims));
  if (p.dims % 16 || p.dims == 0 || p.dims > 256)
    return refuse("q: head_dim " + std::to_string(p.dims) +
                  " must be a multiple of 16 up to 256");
  if (p.kvHeads == 0 || p.heads % p.kvHeads)
    return refuse("q: its " + std::to_string(p.heads) +
                  " heads are not a multiple of the cache's " +
                  std::to_string(p.kvHeads));
  p.group = p.heads / p.kvHeads;
  if (p.group * p.tokens > 128)
    return refuse("q: " + std::to_string(p.tokens) + " query tokens x " +
                  std::to_string(p.group) +
                  " query heads per KV head are the rows of one multiply: "
                  "at most 128 are supported");
  p.rows = std::max<int64_t>(16, (p.group * p.tokens + 15) / 16 * 16);
  if (p.paged) {
    if (Status s = checkTensor(*table, "block_table", 2, "(batch, max_pages)");
        !s.ok())
      return s;
    if (table->dtype != DType::I32 || table->shape[0] != p.batch)
      return refuse("block_table: expected a (" + std::to_string(p.batch) +
                    ", max_pages) int32 tensor, got " +
                    dtypeName(table->dtype) + " " + listText(table->shape));
    p.page = k.shape[1];
    if (p.page == 0 ||
        (p.page % kKeysPerTrip && p.page != 8 && p.page != 16 && p.page != 32))
      return refuse("k_cache: page size " + std::to_string(p.page) +
                    " must be a multiple of " + std::to_string(kKeysPerTrip) +
                    ", or 8, 16 or 32");
    if (p.page <= kKeysPerTrip && k.strides[0] != p.page * k.strides[1])
      return refuse("k_cache: pages of " + std::to_string(p.page) +
                    " keys must follow each other in memory (strides[0] = "
                    "page_size x strides[1]), got strides " +
                    listText(k.strides));
    p.capacity = table->shape[1] * p.page;
  } else {
    p.capacity = k.shape[1];
  }
  if (Status s =
          decode::checkCommonOptions(kOp, options.numSplits, options.plan,
                                     p.batch, options.scale, p.dims, p.scale);
      !s.ok())
    return s;
  p.causal = options.causal && p.tokens > 1;
  return p;
}

Expected<Problem> checkAll(const Tensor &q, const Tensor &k, const Tensor &v,
                           const Tensor &seqlens, const Tensor *table,
                           const Tensor *kNew, const Tensor *vNew,
                           const Tensor &out, const KVCacheOptions &options) {
  Expected<Problem> p = checkShapes(q, k, table, options);
  if (!p)
    return p;
  if (Status s = checkTensor(v, "v_cache", 4, "like k_cache"); !s.ok())
    return s;
  if (v.dtype != k.dtype || v.shape != k.shape)
    return refuse("v_cache: " + std::string(dtypeName(v.dtype)) + " " +
                  listText(v.shape) + " is not k_cache's " +
                  dtypeName(k.dtype) + " " + listText(k.shape));
  if (p->paged && p->page <= kKeysPerTrip &&
      v.strides[0] != p->page * v.strides[1])
    return refuse("v_cache: pages of " + std::to_string(p->page) +
                  " keys must follow each other in memory (strides[0] = "
                  "page_size x strides[1]), got strides " +
                  listText(v.strides));
  if (Status s = checkTensor(seqlens, "cache_seqlens", 1, "(batch,)"); !s.ok())
    return s;
  if (seqlens.dtype != DType::I32 || seqlens.shape[0] != p->batch)
    return refuse("cache_seqlens: expected a (" + std::to_string(p->batch) +
                  ",) int32 tensor, got " + dtypeName(seqlens.dtype) + " " +
                  listText(seqlens.shape));
  if (bool(kNew) != bool(vNew))
    return refuse("k_new, v_new: give both or neither");
  if (kNew) {
    for (auto [t, name] : {std::pair{kNew, "k_new"}, std::pair{vNew, "v_new"}})
      if (Status s = checkTensor(*t, name, 4,
                                 "(batch, new tokens, kv_heads, head_dim)");
          !s.ok())
        return s;
    std::vector<int64_t> shape = kNew->shape;
    if (shape.size() != 4 || shape[0] != p->batch || shape[1] == 0 ||
        shape[2] != p->kvHeads || shape[3] != p->dims || vNew->shape != shape ||
        kNew->dtype != q.dtype || vNew->dtype != q.dtype)
      return refuse("k_new, v_new: expected (" + std::to_string(p->batch) +
                    ", new tokens, " + std::to_string(p->kvHeads) + ", " +
                    std::to_string(p->dims) + ") tensors of q's dtype, got " +
                    listText(kNew->shape) + " and " + listText(vNew->shape));
    p->fresh = shape[1];
  }
  if (Status s = checkTensor(out, "out", 4, "like q"); !s.ok())
    return s;
  if (out.dtype != q.dtype || out.shape != q.shape)
    return refuse("out: expected a " + std::string(dtypeName(q.dtype)) +
                  " tensor of q's shape " + listText(q.shape) + ", got " +
                  dtypeName(out.dtype) + " " + listText(out.shape));
  return p;
}

struct Kernels {
  Kernel decoding, append;
  int64_t keyTilesInFlight = 2; // the decoding kernel's LATENCY
};

using ClassKey = std::tuple<DType, int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, bool, bool>;

/// Key tiles each block keeps in flight: three where two blocks a
/// multiprocessor (the split schedule's slots) still fit in its shared
/// memory, else two. The hardware then keeps resident as many blocks as
/// the schedule assumed: with two tiles (64 KiB at D = 128) it ran three,
/// and 16 x 8k keys of 32 KV heads (512 items on 264 slots) read 3,973
/// GB/s against 4,428 with three tiles (H200,
/// bench/results/2026-11-29-h200-decode-merge-rows.md).
Expected<int64_t> keyTilesInFlight(const Problem &p) {
  Expected<DeviceInfo> device = deviceInfo();
  if (!device)
    return device.status();
  int64_t stage = 2 * kKeysPerTrip * p.dims * dtypeBytes(p.dtype); // K and V
  return 2 * 3 * stage <= device->maxSharedPerBlockOptin ? 3 : 2;
}

Expected<Kernels> kernelsFor(const Problem &p) {
  static std::mutex mutex;
  static std::map<ClassKey, Kernels> compiled;
  ClassKey key{p.dtype,  p.dims,  p.kvHeads, p.rows,     p.paged ? p.page : 0,
               p.tokens, p.group, p.causal,  p.fresh > 0};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = compiled.find(key);
  if (it != compiled.end())
    return it->second;
  Expected<int64_t> inFlight = keyTilesInFlight(p);
  if (!inFlight)
    return inFlight.status();
  std::vector<std::pair<std::string, std::string>> paged;
  if (p.paged)
    paged = {{"PAGED", "true"}, {"PAGE", std::to_string(p.page)}};
  CompileOptions split;
  split.kernel = "flash_decoding";
  split.constants = {{"DTYPE", dtypeName(p.dtype)},
                     {"D", std::to_string(p.dims)},
                     {"H_KV", std::to_string(p.kvHeads)},
                     {"GROUP_M", std::to_string(p.rows)},
                     {"TILE_N", std::to_string(kKeysPerTrip)},
                     {"LATENCY", std::to_string(*inFlight)},
                     {"SQ", std::to_string(p.tokens)},
                     {"G", std::to_string(p.group)},
                     {"CAUSAL", p.causal ? "true" : "false"},
                     {"MERGE", std::to_string(p.mergeSplits())},
                     {"MERGE_ROWS", std::to_string(p.mergeRows())}};
  split.constants.insert(split.constants.end(), paged.begin(), paged.end());
  // The merge holds two (rows, D) f32 tiles: from 64 rows two warpgroups
  // keep them in registers (one spilled 84 bytes at 64 rows, D = 128).
  if (p.rows >= 64)
    split.numWarps = 8;
  Expected<Kernel> s = Runtime::get().compileSource(
      kDecodingSource, "flash_decoding.tile", split);
  if (!s)
    return s.status();
  Kernels k{*s, Kernel(), *inFlight};
  if (p.fresh) {
    CompileOptions append;
    append.constants = {{"DTYPE", dtypeName(p.dtype)},
                        {"D", std::to_string(p.dims)},
                        {"D_TILE", std::to_string(pow2AtLeast(p.dims))},
                        {"H_KV", std::to_string(p.kvHeads)},
                        {"H_TILE", std::to_string(pow2AtLeast(p.kvHeads))},
                        {"TILE_T", std::to_string(kAppendTokens)}};
    append.constants.insert(append.constants.end(), paged.begin(), paged.end());
    Expected<Kernel> a =
        Runtime::get().compileSource(kAppendSource, "kv_append.tile", append);
    if (!a)
      return a.status();
    k.append = *a;
  }
  return compiled.emplace(key, k).first->second;
}

struct Launch {
  Kernels kernels;
  decode::WorkTable table;
  size_t ticketBytes = 0, partialBytes = 0, workspaceBytes = 0;
};

Expected<Launch> prepare(const Problem &p, const KVCacheOptions &options) {
  Launch l;
  Expected<Kernels> k = kernelsFor(p);
  if (!k)
    return k.status(); // a compile error, as the compiler said it
  l.kernels = *k;
  Expected<DeviceInfo> device = deviceInfo();
  if (!device)
    return device.status();
  // The blocks the hardware keeps resident, spread over the
  // multiprocessors. Three key tiles in flight a multiprocessor saturate
  // its share of the memory where a tile is one load (H200, num_splits
  // forced: 1 x 64k keys in 16 splits, 128 blocks of three tiles, read
  // faster than in 32 and much faster than in 24, where 60
  // multiprocessors ran two blocks); a tile gathered from pages smaller
  // than it does not (8 x 32k keys in pages of 8: 3,252 GB/s in one block
  // per multiprocessor, 4,170 in two): there two blocks do, as measured
  // before (bench/results/2026-11-29-h200-decode-merge-rows.md,
  // 2026-11-29-h200-decode-plan.md).
  SplitScheduleOptions o;
  o.keysPerTrip = kKeysPerTrip;
  o.multiprocessors = device->multiprocessors;
  o.slots = std::max<int64_t>(1, l.kernels.decoding.blocksPerSM()) *
            device->multiprocessors;
  o.saturatingSlots =
      p.paged && p.page < kKeysPerTrip
          ? std::min<int64_t>(2 * device->multiprocessors, o.slots)
          : std::max<int64_t>(1, 3 * device->multiprocessors /
                                     l.kernels.keyTilesInFlight);
  o.maxKeys = p.capacity;
  o.splits = options.numSplits;
  // Splits as short as one key tile where the simulation says they pay:
  // few units on an idle GPU, where a split's time is its latency (H200,
  // 1 x 1k keys, 32/8 heads: 8 splits of 2 tiles 392 GB/s, the four of 4
  // tiles that the default least of 4 allowed 344, cuDNN 394; 1 x 2k: 16
  // of 2 tiles 761, 8 of 4 716, cuDNN 714; no other cut of batches 1 to
  // 128 at 1k-128k keys changes: bench/results/2026-11-30-h200-sm80-
  // choice-and-decode-splits.md).
  o.minTrips = 1;
  // The last split merges the partials, mergeSplits() a trip, a trip
  // costing about two key tiles (its loads' latency).
  o.mergeTrips = 2.0 / double(p.mergeSplits());
  Expected<decode::WorkTable> t =
      decode::workTable(options.plan, p.batch, p.kvHeads, o);
  if (!t)
    return t.status();
  l.table = *t;
  // The workspace: the merge's tickets unless the caller keeps them
  // (zeroed on the stream before the launch; the last split of a unit
  // sets its own back), the partial outputs, their log-sum-exps. Nothing
  // when no unit is split.
  size_t rows = size_t(p.tokens * p.group);
  if (l.table.partials) {
    if (!options.tickets)
      l.ticketBytes = (size_t(p.batch * p.kvHeads) * 4 + 15) / 16 * 16;
    l.partialBytes = (l.table.partials * rows * p.dims * 4 + 15) / 16 * 16;
    l.workspaceBytes =
        l.ticketBytes + l.partialBytes + l.table.partials * rows * 4;
  }
  return l;
}

/// checkBlockTable: the pages each sequence's keys (length plus the new
/// tokens, within the table) fall in are pages of the cache.
Status checkPages(const Problem &p, const Tensor &seqlens, const Tensor &table,
                  int64_t pages) {
  int64_t maxPages = table.shape[1];
  std::vector<int32_t> lengths(p.batch), entries(maxPages);
  if (Status s = copyToHost(lengths.data(), seqlens.data, p.batch * 4);
      !s.ok() && p.batch)
    return s;
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t keys = std::max<int64_t>(0, lengths[b] + p.fresh);
    int64_t used = std::min<int64_t>(maxPages, (keys + p.page - 1) / p.page);
    if (!used)
      continue;
    char *row = static_cast<char *>(table.data) + b * table.strides[0] * 4;
    if (Status s = copyToHost(entries.data(), row, used * 4); !s.ok())
      return s;
    for (int64_t j = 0; j < used; ++j)
      if (entries[j] < 0 || entries[j] >= pages)
        return refuse("block_table[" + std::to_string(b) + ", " +
                      std::to_string(j) + "] = " + std::to_string(entries[j]) +
                      " is not a page of the cache (0 to " +
                      std::to_string(pages - 1) + ")");
  }
  return Status();
}

} // namespace

Status tile::checkAttentionWithKVCache(
    const Tensor &q, const Tensor &kCache, const Tensor &vCache,
    const Tensor &cacheSeqlens, const Tensor *blockTable, const Tensor *kNew,
    const Tensor *vNew, const Tensor &out, const KVCacheOptions &options) {
  Expected<Problem> p = checkAll(q, kCache, vCache, cacheSeqlens, blockTable,
                                 kNew, vNew, out, options);
  return p ? Status() : p.status();
}

Expected<size_t>
tile::attentionWithKVCacheWorkspaceBytes(const Tensor &q, const Tensor &kCache,
                                         const Tensor *blockTable,
                                         const KVCacheOptions &options) {
  Expected<Problem> p = checkShapes(q, kCache, blockTable, options);
  if (!p)
    return p.status();
  if (decode::isEmpty(q))
    return size_t(0);
  Expected<Launch> l = prepare(*p, options);
  if (!l)
    return l.status();
  return l->workspaceBytes;
}

Status tile::attentionWithKVCache(const Tensor &q, const Tensor &kCache,
                                  const Tensor &vCache,
                                  const Tensor &cacheSeqlens,
                                  const Tensor *blockTable, const Tensor *kNew,
                                  const Tensor *vNew, const Tensor &out,
                                  void *workspace, size_t workspaceBytes,
                                  const KVCacheOptions &options) {
  Expected<Problem> p = checkAll(q, kCache, vCache, cacheSeqlens, blockTable,
                                 kNew, vNew, out, options);
  if (!p)
    return p.status();
  if (decode::isEmpty(q))
    return Status(); // nothing to compute
  if (options.checkBlockTable && blockTable)
    if (Status s = checkPages(*p, cacheSeqlens, *blockTable, kCache.shape[0]);
        !s.ok())
      return s;
  Expected<Launch> l = prepare(*p, options);
  if (!l)
    return l.status();
  if (Status s = decode::checkWorkspace(kOp, workspace, workspaceBytes,
                                        l->workspaceBytes,
                                        "attentionWithKVCacheWorkspaceBytes");
      !s.ok())
    return s;
  Expected<void *> standIn = decode::standIn();
  if (!standIn)
    return standIn.status();
  int64_t B = p->batch, S = p->tokens, Hkv = p->kvHeads, G = p->group,
          D = p->dims, rows = S * G;
  DType dt = p->dtype;
  Tensor table = blockTable ? *blockTable
                            : Tensor::contiguous(*standIn, DType::I32, {1, 1});
  if (p->fresh) {
    Status s = l->kernels.append.launch(
        Dim3(unsigned(B),
             unsigned((p->fresh + kAppendTokens - 1) / kAppendTokens)),
        options.stream,
        {*kNew, *vNew, kCache, vCache, cacheSeqlens, table, p->fresh});
    if (!s.ok())
      return s;
  }
  // q and out with their heads split (KV head, head of its group).
  auto split = [&](const Tensor &t) {
    return Tensor(
        t.data, dt, {B, S, Hkv, G, D},
        {t.strides[0], t.strides[1], G * t.strides[2], t.strides[2], 1});
  };
  // The cache as (batch or pages, kv_heads, keys, D); pages up to a key
  // tile long: every page's keys in a row, (1, kv_heads, pages x page, D).
  auto keys = [&](const Tensor &c) {
    if (p->paged && p->page <= kKeysPerTrip)
      return Tensor(
          c.data, dt, {1, Hkv, c.shape[0] * p->page, D},
          {c.shape[0] * p->page * c.strides[1], c.strides[2], c.strides[1], 1});
    return Tensor(c.data, dt, {c.shape[0], Hkv, c.shape[1], D},
                  {c.strides[0], c.strides[2], c.strides[1], 1});
  };
  Tensor oPart, lPart, tickets;
  if (l->table.partials) {
    char *base = static_cast<char *>(workspace);
    if (options.tickets) {
      tickets = Tensor::contiguous(options.tickets, DType::I32, {B * Hkv});
    } else {
      tickets = Tensor::contiguous(base, DType::I32, {B * Hkv});
      if (Status z = deviceMemsetAsync(base, 0, l->ticketBytes, options.stream);
          !z.ok())
        return z;
      base += l->ticketBytes;
    }
    oPart = Tensor::contiguous(base, DType::F32, {l->table.partials, rows, D});
    lPart = Tensor::contiguous(base + l->partialBytes, DType::F32,
                               {l->table.partials, rows});
  } else { // (no unit is split: none of them is read)
    tickets = Tensor::contiguous(*standIn, DType::I32, {4});
    oPart = Tensor::contiguous(*standIn, DType::F32, {1, 1, 4});
    lPart = Tensor::contiguous(*standIn, DType::F32, {1, 4});
  }
  Tensor work(l->table.data, DType::I32,
              {SplitSchedule::Fields, l->table.items}, {l->table.padded, 1});
  return l->kernels.decoding.launch(
      Dim3(unsigned(l->table.items)), options.stream,
      {split(q), keys(kCache), keys(vCache), cacheSeqlens, table, oPart, lPart,
       split(out), tickets, l->table.itemTensor(), p->scale, p->capacity,
       p->fresh});
}
