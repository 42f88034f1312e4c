//===- MlaDecode.cpp - tile::mlaDecode over kernels/mla_decode.tile -------===//
//
// Checks the arguments, compiles the split kernel once per problem class
// (dtype, value and rotary dims, page size, heads, query tokens, causal),
// takes the split-KV schedule's work table (each (sequence, row block) a
// unit; WorkTables.h: once per problem shape, or per DecodePlan), and
// launches: the split kernel on (items,), then, when some unit has more
// than one split, mla_combine (compiled once per class and tiles, which
// follow the schedule's most splits) on (those units x their rows,
// head_dim_v / its columns).
//
//===----------------------------------------------------------------------===//

#include "tile/Decode.h"

#include "DecodeChecks.h"
#include "WorkTables.h"

#include <climits>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

using namespace tile;

/// kernels/mla_decode.tile, as built.
static const char kMlaSource[] =
#include "mla_decode.inc"
    ;
static const char kMlaName[] = "mla_decode.tile";

namespace {

constexpr int64_t kKeysPerTrip = 64;   // mla_decode.tile's TILE_N
constexpr int64_t kMergeColumns = 128; // mla_combine's narrowest MERGE_N
/// mla_combine's SPLIT_TILE x MERGE_N: the f32 partials a block gathers
/// and sums at once (64 registers a thread on its 4 warps).
constexpr int64_t kMergeElements = 8192;

/// mla_decode.tile's TILE_M for a problem of `rows` query rows a sequence
/// (s_q x heads). 64 rows are one wgmma's M on each warpgroup. 16 rows or
/// fewer padded to 64 made the kernel compute-bound on the padding (four
/// times the multiplies at ~400 TFLOP/s while the latent cache streamed at
/// ~0.8 of the copy); a 16-row tile, multiplied by mma.sync with its
/// operands read in place from the cp.async ring, streams at ~0.95 (H200,
/// bench/results/2026-12-01-h200-mla-small-heads.md). At 32 rows the 64-row
/// wgmma tile stays: 32-row tiles (64 keys a trip spill; 32 keys in 3 or 4
/// stages) and two 16-row units each ran slower there.
int64_t rowsPerBlock(int64_t rows) { return rows <= 16 ? 16 : 64; }

Status refuse(const std::string &message) {
  return Status::error("tile::mlaDecode: " + message);
}

using decode::isEmpty;
using decode::listText;

Status checkTensor(const Tensor &t, const char *name, size_t rank,
                   const char *dims) {
  return decode::checkTensor("tile::mlaDecode", t, name, rank, dims);
}

/// (s_q, heads) rows of a (batch, s_q, heads, ...) tensor one after the
/// other: the kernel sees (batch, s_q x heads, ...).
bool rowsCollapse(const Tensor &t) {
  return t.shape[1] <= 1 || t.shape[2] <= 1 ||
         t.strides[1] == t.shape[2] * t.strides[2];
}

struct Problem {
  int64_t batch = 0, tokens = 0, heads = 0, dims = 0, valueDims = 0;
  int64_t pages = 0, page = 0, maxPages = 0;
  DType dtype = DType::F16;
  float scale = 1;
};

Expected<Problem> checkShapes(const Tensor &q, const Tensor &kv,
                              const Tensor &table,
                              const MlaDecodeOptions &options) {
  if (Status s = checkTensor(q, "q", 4, "(batch, s_q, heads, head_dim)");
      !s.ok())
    return s;
  if (Status s =
          checkTensor(kv, "kv_cache", 4, "(num_pages, page_size, 1, head_dim)");
      !s.ok())
    return s;
  if (Status s = checkTensor(table, "block_table", 2, "(batch, max_pages)");
      !s.ok())
    return s;
  Problem p;
  p.dtype = q.dtype;
  if (Status s = decode::checkHalfInputs("tile::mlaDecode", q, kv, "kv_cache",
                                         "MLA decode");
      !s.ok())
    return s;
  p.batch = q.shape[0];
  p.tokens = q.shape[1];
  p.heads = q.shape[2];
  p.dims = q.shape[3];
  p.pages = kv.shape[0];
  p.page = kv.shape[1];
  if (kv.shape[2] != 1 || kv.shape[3] != p.dims)
    return refuse("kv_cache: expected (num_pages, page_size, 1, " +
                  std::to_string(p.dims) + "), got shape " +
                  listText(kv.shape));
  if (p.page % kKeysPerTrip || p.page == 0)
    return refuse("kv_cache: page size " + std::to_string(p.page) +
                  " is not a multiple of " + std::to_string(kKeysPerTrip));
  p.valueDims = options.headDimV;
  int64_t rotary = p.dims - p.valueDims;
  if (p.valueDims <= 0 || rotary <= 0 || p.valueDims % kMergeColumns ||
      rotary % 16 || rotary > 256 || p.valueDims % rotary)
    return refuse("headDimV: " + std::to_string(p.valueDims) +
                  " value dims and " + std::to_string(rotary) +
                  " rotary ones of q's " + std::to_string(p.dims) +
                  ": the values must be a multiple of 128, the rotary dims "
                  "a multiple of 16 up to 256 that divides them");
  if (!rowsCollapse(q))
    return refuse("q: its (s_q, heads) rows must follow each other "
                  "(strides[1] = heads x strides[2]), got strides " +
                  listText(q.strides));
  if (table.dtype != DType::I32 || table.shape[0] != p.batch)
    return refuse("block_table: expected a (" + std::to_string(p.batch) +
                  ", max_pages) int32 tensor, got " + dtypeName(table.dtype) +
                  " " + listText(table.shape));
  p.maxPages = table.shape[1];
  if (Status s = decode::checkCommonOptions(
          "tile::mlaDecode", options.numSplits, options.plan, p.batch,
          options.scale, p.dims, p.scale);
      !s.ok())
    return s;
  return p;
}

Expected<Problem> checkAll(const Tensor &q, const Tensor &kv,
                           const Tensor &seqlens, const Tensor &table,
                           const Tensor &out, const Tensor &lse,
                           const MlaDecodeOptions &options) {
  Expected<Problem> p = checkShapes(q, kv, table, options);
  if (!p)
    return p;
  if (Status s = checkTensor(seqlens, "cache_seqlens", 1, "(batch,)"); !s.ok())
    return s;
  if (seqlens.dtype != DType::I32 || seqlens.shape[0] != p->batch)
    return refuse("cache_seqlens: expected a (" + std::to_string(p->batch) +
                  ",) int32 tensor, got " + dtypeName(seqlens.dtype) + " " +
                  listText(seqlens.shape));
  if (Status s = checkTensor(out, "out", 4, "(batch, s_q, heads, head_dim_v)");
      !s.ok())
    return s;
  std::vector<int64_t> outShape = {p->batch, p->tokens, p->heads, p->valueDims};
  if (out.dtype != q.dtype || out.shape != outShape || !rowsCollapse(out))
    return refuse("out: expected a " + std::string(dtypeName(q.dtype)) +
                  " tensor of shape " + listText(outShape) +
                  " with rows as q's, got " + dtypeName(out.dtype) + " " +
                  listText(out.shape) + " strides " + listText(out.strides));
  if (Status s = checkTensor(lse, "lse", 3, "(batch, s_q, heads)"); !s.ok())
    return s;
  std::vector<int64_t> lseShape = {p->batch, p->tokens, p->heads};
  if (lse.dtype != DType::F32 || lse.shape != lseShape || !rowsCollapse(lse))
    return refuse("lse: expected an f32 tensor of shape " + listText(lseShape) +
                  " with rows as q's, got " + dtypeName(lse.dtype) + " " +
                  listText(lse.shape) + " strides " + listText(lse.strides));
  return p;
}

/// mla_combine's tiles for a schedule whose units have at most `splits`
/// splits: the splits it gathers a trip (a power of two from 2, at most
/// 64) and the output columns of a block (the widest of 512, 256 and 128
/// that divides the value dims and fits kMergeElements with them). A
/// fixed 64 x 128 made a schedule of 4 splits (32 sequences of 8k keys,
/// 64 heads) gather 16 times the partials it has, 8192 blocks of them:
/// 54 us of a 190 us decode (ncu, H200).
struct MergeTiles {
  int64_t splits = 2, columns = kMergeColumns;
};

MergeTiles mergeTiles(int64_t splits, int64_t valueDims) {
  MergeTiles t;
  while (t.splits < std::min<int64_t>(splits, 64))
    t.splits *= 2;
  for (int64_t columns : {4 * kMergeColumns, 2 * kMergeColumns})
    if (valueDims % columns == 0 && t.splits * columns <= kMergeElements) {
      t.columns = columns;
      break;
    }
  return t;
}

/// The split kernel of a problem class, and its combine kernels by their
/// tiles.
struct Kernels {
  Kernel split;
  std::map<std::pair<int64_t, int64_t>, Kernel> combine;
};

using ClassKey =
    std::tuple<DType, int64_t, int64_t, int64_t, int64_t, int64_t, bool>;
std::mutex kernelsMutex;

Expected<Kernels *> kernelsFor(const Problem &p, bool causal) {
  ClassKey key{p.dtype,  p.valueDims, p.dims - p.valueDims, p.page, p.heads,
               p.tokens, causal};
  static std::map<ClassKey, Kernels> compiled;
  std::lock_guard<std::mutex> lock(kernelsMutex);
  auto it = compiled.find(key);
  if (it != compiled.end())
    return &it->second;
  std::string tileM = std::to_string(rowsPerBlock(p.tokens * p.heads));
  CompileOptions split;
  split.kernel = "mla_decode";
  split.constants = {{"DTYPE", dtypeName(p.dtype)},
                     {"DV", std::to_string(p.valueDims)},
                     {"DR", std::to_string(p.dims - p.valueDims)},
                     {"PAGE", std::to_string(p.page)},
                     {"HEADS", std::to_string(p.heads)},
                     {"SQ", std::to_string(p.tokens)},
                     {"CAUSAL", causal ? "true" : "false"},
                     {"TILE_M", tileM},
                     {"TILE_N", std::to_string(kKeysPerTrip)}};
  Expected<Kernel> s =
      Runtime::get().compileSource(kMlaSource, kMlaName, split);
  if (!s)
    return s.status();
  return &compiled.emplace(key, Kernels{*s, {}}).first->second;
}

/// The combine kernel of a problem class (its split kernel's `kernels`) at
/// `tiles`, compiled on first use.
Expected<Kernel> combineFor(const Problem &p, Kernels &kernels,
                            int64_t rowsPerBlock, MergeTiles tiles) {
  std::lock_guard<std::mutex> lock(kernelsMutex);
  auto it = kernels.combine.find({tiles.splits, tiles.columns});
  if (it != kernels.combine.end())
    return it->second;
  CompileOptions combine;
  combine.kernel = "mla_combine";
  combine.constants = {{"DTYPE", dtypeName(p.dtype)},
                       {"TILE_M", std::to_string(rowsPerBlock)},
                       {"SPLIT_TILE", std::to_string(tiles.splits)},
                       {"MERGE_N", std::to_string(tiles.columns)}};
  Expected<Kernel> c =
      Runtime::get().compileSource(kMlaSource, kMlaName, combine);
  if (!c)
    return c.status();
  return kernels.combine.emplace(std::pair(tiles.splits, tiles.columns), *c)
      .first->second;
}

struct Plan {
  const Kernels *kernels = nullptr;
  Kernel combine; // invalid where no unit has more than one split
  MergeTiles merge;
  int64_t rows = 0, rowsPerBlock = 0, rowBlocks = 0, maxKeys = 0;
  decode::WorkTable table;
  size_t partialBytes = 0, workspaceBytes = 0;
};

Expected<Plan> planFor(const Problem &p, const MlaDecodeOptions &options) {
  Plan plan;
  Expected<Kernels *> kernels = kernelsFor(p, options.causal && p.tokens > 1);
  if (!kernels)
    return kernels.status(); // a compile error, as the compiler said it
  plan.kernels = *kernels;
  plan.rows = p.tokens * p.heads;
  plan.rowsPerBlock = rowsPerBlock(plan.rows);
  plan.rowBlocks = (plan.rows + plan.rowsPerBlock - 1) / plan.rowsPerBlock;
  plan.maxKeys = p.maxPages * p.page;
  Expected<DeviceInfo> device = deviceInfo();
  if (!device)
    return device.status();
  // The split kernel's resident blocks (one per SM: its shared memory);
  // each (sequence, row block) a unit of the split-KV schedule.
  int64_t slots = std::max<int64_t>(1, plan.kernels->split.blocksPerSM()) *
                  device->multiprocessors;
  SplitScheduleOptions o;
  o.keysPerTrip = kKeysPerTrip;
  o.slots = slots;
  o.maxKeys = plan.maxKeys;
  o.splits = options.numSplits;
  o.mergeTrips = 0; // mla_combine merges every row's partials in parallel
  Expected<decode::WorkTable> t =
      decode::workTable(options.plan, p.batch, plan.rowBlocks, o);
  if (!t)
    return t.status();
  plan.table = *t;
  if (plan.table.partials) {
    plan.merge = mergeTiles(plan.table.maxSplits, p.valueDims);
    Expected<Kernel> combine =
        combineFor(p, **kernels, plan.rowsPerBlock, plan.merge);
    if (!combine)
      return combine.status();
    plan.combine = *combine;
    size_t rowsTotal = size_t(plan.table.partials) * plan.rowsPerBlock;
    plan.partialBytes = (rowsTotal * p.valueDims * 4 + 15) / 16 * 16;
    plan.workspaceBytes = plan.partialBytes + rowsTotal * 4;
  }
  return plan;
}

} // namespace

Status tile::checkMlaDecode(const Tensor &q, const Tensor &kvCache,
                            const Tensor &cacheSeqlens,
                            const Tensor &blockTable, const Tensor &out,
                            const Tensor &lse,
                            const MlaDecodeOptions &options) {
  Expected<Problem> p =
      checkAll(q, kvCache, cacheSeqlens, blockTable, out, lse, options);
  return p ? Status() : p.status();
}

Expected<size_t>
tile::mlaDecodeWorkspaceBytes(const Tensor &q, const Tensor &kvCache,
                              const Tensor &blockTable,
                              const MlaDecodeOptions &options) {
  Expected<Problem> p = checkShapes(q, kvCache, blockTable, options);
  if (!p)
    return p.status();
  if (isEmpty(q) || p->maxPages == 0)
    return size_t(0);
  Expected<Plan> plan = planFor(*p, options);
  if (!plan)
    return plan.status();
  return plan->workspaceBytes;
}

Status tile::mlaDecode(const Tensor &q, const Tensor &kvCache,
                       const Tensor &cacheSeqlens, const Tensor &blockTable,
                       const Tensor &out, const Tensor &lse, void *workspace,
                       size_t workspaceBytes, const MlaDecodeOptions &options) {
  Expected<Problem> p =
      checkAll(q, kvCache, cacheSeqlens, blockTable, out, lse, options);
  if (!p)
    return p.status();
  if (isEmpty(q))
    return Status(); // nothing to compute
  if (p->maxPages == 0)
    return refuse("block_table: has no pages (max_pages 0)");
  Expected<Plan> plan = planFor(*p, options);
  if (!plan)
    return plan.status();
  if (Status s = decode::checkWorkspace("tile::mlaDecode", workspace,
                                        workspaceBytes, plan->workspaceBytes,
                                        "mlaDecodeWorkspaceBytes");
      !s.ok())
    return s;
  int64_t B = p->batch, rows = plan->rows, DV = p->valueDims;
  DType dt = p->dtype;
  Tensor qRows(q.data, dt, {B, rows, p->dims}, {q.strides[0], q.strides[2], 1});
  Tensor kv(kvCache.data, dt, {p->pages, p->page, p->dims},
            {kvCache.strides[0], kvCache.strides[1], 1});
  Tensor outRows(out.data, dt, {B, rows, DV},
                 {out.strides[0], out.strides[2], 1});
  Tensor lseRows(lse.data, DType::F32, {B, rows}, {lse.strides[0], 1});
  Tensor oPart, lPart;
  if (plan->table.partials) {
    char *base = static_cast<char *>(workspace);
    oPart = Tensor::contiguous(base, DType::F32,
                               {plan->table.partials, plan->rowsPerBlock, DV});
    lPart = Tensor::contiguous(base + plan->partialBytes, DType::F32,
                               {plan->table.partials, plan->rowsPerBlock});
  } else {
    Expected<void *> memory = decode::standIn();
    if (!memory)
      return memory.status();
    oPart = Tensor::contiguous(*memory, DType::F32, {1, 1, 4});
    lPart = Tensor::contiguous(*memory, DType::F32, {1, 4});
  }
  Status status = plan->kernels->split.launch(
      Dim3(unsigned(plan->table.items)), options.stream,
      {qRows, kv, blockTable, cacheSeqlens, plan->table.itemTensor(), oPart,
       lPart, outRows, lseRows, p->scale, plan->maxKeys});
  if (status.ok() && plan->table.partials)
    status = plan->combine.launch(
        Dim3(unsigned(plan->table.mergedUnits * plan->rowsPerBlock),
             unsigned(DV / plan->merge.columns)),
        options.stream,
        {plan->table.unitTensor(), oPart, lPart, outRows, lseRows});
  return status; // a launch's failure names the kernel
}
