//===- Attention.cpp - tile::attention over kernels/flash_attention.tile --===//
//
// Checks the arguments, derives the kernel's constants from the shapes
// (TILE_D the head dim rounded up to a multiple of 16, H, QUERY_GROUP_SIZE,
// CAUSAL, EVEN_K per tile), picks the tile configuration with the
// autotuner once per problem class, and launches. The per-call path after
// the first call of a class is the checks, one look-up and the launch,
// with no allocation.
//
//===----------------------------------------------------------------------===//

#include "tile/Attention.h"
#include "tile/Autotune.h"
#include "tile/tile.h"

#include "AttentionImpl.h"

#include "llvm/Support/MathExtras.h"

#include <climits>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

using namespace tile;
using namespace tile::detail;

/// kernels/flash_attention.tile, as built.
static const char kAttentionSource[] =
#include "flash_attention.inc"
    ;
static const char kAttentionName[] = "flash_attention.tile";

namespace {

Status refuse(const std::string &message) {
  return Status::error("tile::attention: " + message);
}

std::string listText(const int64_t *values, size_t size) {
  std::string text = "[";
  for (size_t i = 0; i < size; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

TensorRef toRef(const Tensor &t) {
  TensorRef ref;
  ref.data = t.data;
  ref.dtype = t.dtype;
  ref.shape = t.shape.data();
  ref.rank = t.shape.size();
  ref.strides = t.strides.data();
  ref.stridesRank = t.strides.size();
  return ref;
}

bool isEmpty(const TensorRef &t) {
  for (size_t d = 0; d < t.rank; ++d)
    if (t.shape[d] == 0)
      return true;
  return false;
}

Status checkTensor(const TensorRef &t, const std::string &name, size_t rank = 4,
                   const char *dims = "(batch, heads, seq, head_dim)") {
  if (t.rank != rank)
    return refuse(name + ": expected a rank-" + std::to_string(rank) +
                  " tensor " + dims + ", got rank " + std::to_string(t.rank));
  if (t.stridesRank != rank)
    return refuse(name + ": the shape has " + std::to_string(rank) +
                  " entries but the strides have " +
                  std::to_string(t.stridesRank));
  if (!t.shape || !t.strides)
    return refuse(name + ": null shape or strides array");
  if (t.dtype != DType::F16 && t.dtype != DType::BF16)
    return refuse(name + ": dtype " + dtypeName(t.dtype) +
                  " is not supported; attention takes f16 or bf16");
  for (size_t d = 0; d < rank; ++d) {
    if (t.shape[d] < 0)
      return refuse(name + ": shape[" + std::to_string(d) +
                    "] = " + std::to_string(t.shape[d]) + " is negative");
    if (t.shape[d] > INT32_MAX)
      return refuse(name + ": shape[" + std::to_string(d) +
                    "] = " + std::to_string(t.shape[d]) + " exceeds 2^31-1");
    if (t.strides[d] < 0)
      return refuse(name + ": strides[" + std::to_string(d) +
                    "] = " + std::to_string(t.strides[d]) +
                    " is negative; negative strides are not supported");
  }
  if (!t.data && !isEmpty(t))
    return refuse(name +
                  ": null data pointer for a non-empty tensor of shape " +
                  listText(t.shape, rank));
  if (t.shape[rank - 1] > 1 && t.strides[rank - 1] != 1)
    return refuse(name +
                  ": the head_dim dimension must be contiguous (stride 1), "
                  "got strides " +
                  listText(t.strides, rank));
  return Status();
}

/// The head dims the kernel takes: multiples of 8 up to 256.
Status checkHeadDim(int64_t headDim) {
  if (headDim % 8 != 0)
    return refuse("q: head_dim " + std::to_string(headDim) +
                  " is not a multiple of 8");
  if (headDim > 256)
    return refuse("q: head_dim " + std::to_string(headDim) +
                  " is over 256, the largest supported");
  return Status();
}

/// The bytes [first, last) a tensor may touch.
std::pair<uintptr_t, uintptr_t> extent(const TensorRef &t) {
  uintptr_t first = reinterpret_cast<uintptr_t>(t.data);
  uint64_t reach = 0;
  for (size_t d = 0; d < t.rank; ++d)
    reach += static_cast<uint64_t>(t.shape[d] - 1) *
             static_cast<uint64_t>(t.strides[d]);
  unsigned bytes = dtypeBytes(t.dtype);
  return {first, first + (reach + 1) * bytes};
}

bool overlaps(const TensorRef &a, const TensorRef &b) {
  if (isEmpty(a) || isEmpty(b))
    return false;
  auto [a0, a1] = extent(a);
  auto [b0, b1] = extent(b);
  return a0 < b1 && b0 < a1;
}

/// The configurations the tuner tries per padded head dim, the default
/// first, as tile::TuneCandidate text: the kernel's constants (TILE_M,
/// TILE_N, K_LATENCY/V_LATENCY for rings of their own depth) and compile
/// options (tile/Options.def). With a causal mask each is tried both with
/// the masked key tiles in the loop and split into a loop of their own (in
/// that order; the split keeps the loop's schedule, warp specialization
/// included). Why each is there, with the
/// measurements: bench/results/2026-11-28-attention-candidates.md (the
/// 128 x 80 ones at head dim 256, FlashAttention-3's tiles, faster from
/// 4096 keys: bench/results/2026-12-01-h200-attention-256-tiles.md; the
/// persistent one with both rescale_in_trip and defer_epilogue, 1-2% ahead
/// of the same kernel without the deferral at 1k keys, H100:
/// bench/results/2026-12-05-h100-softmax-alu.md).
std::vector<const char *> candidateConfigs(int tileD) {
  if (tileD > 128)
    return {"TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on,tile_stages=1,"
            "tile_refill_after_read=on,rescale_in_trip=on",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on,tile_stages=1,"
            "tile_refill_after_read=on,defer_epilogue=on",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on,tile_stages=1,"
            "tile_refill_after_read=on,rescale_in_trip=on,defer_epilogue=on",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on,tile_stages=1",
            "TILE_M=128,TILE_N=64,K_LATENCY=3,V_LATENCY=2,num_warps=8,"
            "num_stages=0,warp_specialize=on",
            "TILE_M=64,TILE_N=32,num_warps=4,num_stages=2",
            "TILE_M=64,TILE_N=64,num_warps=4,num_stages=2",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2",
            "TILE_M=128,TILE_N=32,num_warps=8,num_stages=2",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on",
            "TILE_M=128,TILE_N=80,num_warps=8,num_stages=2,"
            "warp_specialize=on,rescale_in_trip=on",
            "TILE_M=128,TILE_N=80,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on,tile_stages=1,"
            "rescale_in_trip=on"};
  if (tileD <= 64)
    return {"TILE_M=64,TILE_N=64,num_warps=4,num_stages=2",
            "TILE_M=64,TILE_N=128,num_warps=4,num_stages=2",
            "TILE_M=128,TILE_N=64,num_warps=4,num_stages=2",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=0",
            "TILE_M=128,TILE_N=32,num_warps=4,num_stages=2",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=0,"
            "warp_specialize=on",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=3,"
            "warp_specialize=on",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=4,"
            "warp_specialize=on",
            "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2,"
            "warp_specialize=on",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=2,"
            "warp_specialize=on,persistent=on",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=4,"
            "warp_specialize=on,persistent=on",
            "TILE_M=128,TILE_N=128,num_warps=8,num_stages=4,"
            "warp_specialize=on,persistent=on,rescale_in_trip=on"};
  return {"TILE_M=128,TILE_N=64,num_warps=4,num_stages=2",
          "TILE_M=64,TILE_N=64,num_warps=4,num_stages=2",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=0",
          "TILE_M=128,TILE_N=32,num_warps=4,num_stages=2",
          "TILE_M=128,TILE_N=64,num_warps=8,num_stages=2",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=0,"
          "warp_specialize=on",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=2,"
          "warp_specialize=on",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=3,"
          "warp_specialize=on",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=2,"
          "warp_specialize=on,persistent=on",
          "TILE_M=128,TILE_N=128,num_warps=8,num_stages=2,"
          "warp_specialize=on,persistent=on,tile_stages=1,"
          "tile_refill_after_read=on,rescale_in_trip=on"};
}

/// The value of constant `name` in `candidate` ("" when it has none).
std::string constantOf(const TuneCandidate &candidate, const char *name) {
  for (const auto &[n, v] : candidate.constants)
    if (n == name)
      return v;
  return "";
}

/// What makes two calls the same tuning problem.
struct ClassKey {
  int dtype, tileD, heads, group;
  bool causal, tuned;
  int keyAlign;           // the largest power of two up to 128 dividing seq_k
  int seqQ, seqK, blocks; // log2 of the next power of two (varlen: the
                          // longest sequence's)
  bool varlen = false;    // fmha_varlen: packed sequences
  bool operator<(const ClassKey &o) const {
    return std::tie(dtype, tileD, heads, group, causal, tuned, keyAlign, seqQ,
                    seqK, blocks, varlen) <
           std::tie(o.dtype, o.tileD, o.heads, o.group, o.causal, o.tuned,
                    o.keyAlign, o.seqQ, o.seqK, o.blocks, o.varlen);
  }
  std::string text() const {
    return std::string(varlen ? "varlen," : "") +
           "dtype=" + dtypeName(static_cast<DType>(dtype)) +
           ",TILE_D=" + std::to_string(tileD) + ",H=" + std::to_string(heads) +
           ",group=" + std::to_string(group) +
           ",causal=" + (causal ? "1" : "0") + ",seq_k%" +
           std::to_string(keyAlign) + "=0,seq_q<=2^" + std::to_string(seqQ) +
           ",seq_k<=2^" + std::to_string(seqK) + ",blocks<=2^" +
           std::to_string(blocks);
  }
};

struct Choice {
  Kernel kernel;
  int tileM = 0;
  std::string config;
  /// fmha_varlen's: varlen_tiles at TILE_M, which makes its tile table.
  Kernel table;
};

std::mutex choicesMutex;
std::map<ClassKey, Choice> &choices() {
  static auto *table = new std::map<ClassKey, Choice>();
  return *table;
}

int log2Ceil(int64_t value) {
  return value <= 1 ? 0 : static_cast<int>(llvm::Log2_64_Ceil(value));
}

/// The head dim at its own size (held padded to a power of two in
/// registers and shared memory, but multiplied only to its own K and N),
/// rounded up to the mma's K step of 16: the kernel's TILE_D.
int paddedHeadDim(int64_t headDim) {
  return std::max<int>(16, static_cast<int>(llvm::alignTo(headDim, 16)));
}

float scaleOf(const AttentionOptions &options, int64_t headDim) {
  return options.scale ? *options.scale
                       : static_cast<float>(1.0 / std::sqrt(double(headDim)));
}

/// A checked call of one of flash_attention.tile's kernels: its problem
/// class, its arguments (tensors, then scalars, as the kernel takes them)
/// and its grid, (cdiv(queries, TILE_M), pairs).
struct Problem {
  const char *kernel = "fmha";
  ClassKey key;
  /// Keys per (batch, head), for the EVEN_K constant of each candidate;
  /// -1 for a kernel without it (fmha_varlen masks every last key tile).
  int64_t evenKeys = -1;
  int64_t queries = 0, pairs = 0;
  llvm::SmallVector<const TensorRef *, 7> tensors;
  llvm::SmallVector<ArgRef, 2> scalars; // (inline: a call allocates nothing)
  /// fmha_varlen: the packed queries' offsets, their rows and sequences,
  /// and the tile table varlen_tiles makes for each TILE_M before the
  /// launch (`table->ref` is one of `tensors`); the grid is then (the
  /// table's columns, pairs).
  const TensorRef *offsets = nullptr;
  int64_t rows = 0, sequences = 0;
  struct Table {
    TensorRef ref;
    int64_t shape[2] = {2, 0}, strides[2] = {0, 1};
  } *table = nullptr;
};

/// The columns of fmha_varlen's tile table: every sequence's query tiles,
/// at most its rows over TILE_M plus one.
int64_t tableColumns(const Problem &problem, int tileM) {
  return (problem.rows + tileM - 1) / tileM + problem.sequences;
}

/// kernels/flash_attention.tile's varlen_tiles for TILE_M, compiled once.
Expected<Kernel> tileTableKernel(int tileM) {
  static std::mutex mutex;
  static auto *kernels = new std::map<int, Kernel>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = kernels->find(tileM); it != kernels->end())
    return it->second;
  CompileOptions options;
  options.kernel = "varlen_tiles";
  options.constants = {{"TILE_M", std::to_string(tileM)}};
  Expected<Kernel> kernel =
      Runtime::get().compileSource(kAttentionSource, kAttentionName, options);
  if (kernel)
    (*kernels)[tileM] = *kernel;
  return kernel;
}

ArgRef tensorArg(const TensorRef &t) {
  ArgRef ref;
  ref.kind = Arg::Kind::Tensor;
  ref.data = t.data;
  ref.dtype = t.dtype;
  ref.shape = t.shape;
  ref.shapeSize = t.rank;
  ref.strides = t.strides;
  ref.stridesSize = t.stridesRank;
  return ref;
}

/// For fmha_varlen at `tileM`: its tile table, in the stream's scratch,
/// made on `stream` by `plan` (varlen_tiles; the launch after it reads
/// the table).
Status makeTileTable(const Problem &problem, const Kernel &plan, int tileM,
                     Stream stream) {
  int64_t columns = tableColumns(problem, tileM);
  Expected<void *> memory =
      streamScratch(stream, size_t(2 * columns) * sizeof(int32_t),
                    "the table of varlen attention's query tiles");
  if (!memory)
    return memory.status();
  Problem::Table &table = *problem.table;
  table.shape[1] = table.strides[0] = columns;
  table.ref.data = *memory;
  table.ref.dtype = DType::I32;
  table.ref.rank = table.ref.stridesRank = 2;
  table.ref.shape = table.shape;
  table.ref.strides = table.strides;
  ArgRefs refs;
  refs.push_back(tensorArg(*problem.offsets));
  refs.push_back(tensorArg(table.ref));
  constexpr int64_t kChunk = 64; // varlen_tiles's CHUNK
  return launchKernel(
      *plan.get(), Dim3(static_cast<unsigned>((columns + kChunk - 1) / kChunk)),
      stream, refs);
}

ArgRef floatArg(float value) {
  ArgRef ref;
  ref.kind = Arg::Kind::Float;
  ref.floatValue = value;
  return ref;
}

ArgRef intArg(int64_t value) {
  ArgRef ref;
  ref.kind = Arg::Kind::Int;
  ref.intValue = value;
  return ref;
}

/// Tunes `problem`'s class once (or finds it tuned) and, with `launch`,
/// runs it; with `config`, stores the configuration.
Status runAttention(const Problem &problem, const AttentionOptions &options,
                    bool launch, std::string *config) {
  const ClassKey &key = problem.key;
  // Entries are never erased: a pointer to one stays valid.
  const Choice *choice = nullptr;
  {
    std::lock_guard<std::mutex> lock(choicesMutex);
    auto it = choices().find(key);
    if (it != choices().end())
      choice = &it->second;
  }

  auto argsFor = [&](ArgRefs &refs) {
    refs.clear();
    for (const TensorRef *t : problem.tensors)
      refs.push_back(tensorArg(*t));
    refs.append(problem.scalars.begin(), problem.scalars.end());
  };
  auto gridFor = [&](int tileM) {
    int64_t x = problem.table ? tableColumns(problem, tileM)
                              : (problem.queries + tileM - 1) / tileM;
    return Dim3(static_cast<unsigned>(x), static_cast<unsigned>(problem.pairs));
  };

  if (!choice) {
    std::vector<TuneCandidate> candidates;
    for (const char *text : candidateConfigs(key.tileD)) {
      Expected<TuneCandidate> parsed = TuneCandidate::parse(text);
      if (!parsed)
        return refuse(parsed.status().message());
      TuneCandidate c = *parsed;
      int tileN = std::atoi(constantOf(c, "TILE_N").c_str());
      if (problem.evenKeys >= 0)
        c.constants.push_back(
            {"EVEN_K", problem.evenKeys % tileN == 0 ? "true" : "false"});
      if (key.causal) {
        c.options.loopSplit = false;
        candidates.push_back(c);
        c.options.loopSplit = true;
      }
      candidates.push_back(c);
    }
    if (!key.tuned)
      candidates.resize(1);
    CompileOptions base;
    base.kernel = problem.kernel;
    base.constants = {{"DTYPE", dtypeName(static_cast<DType>(key.dtype))},
                      {"TILE_D", std::to_string(key.tileD)},
                      {"H", std::to_string(key.heads)},
                      {"QUERY_GROUP_SIZE", std::to_string(key.group)},
                      {"CAUSAL", key.causal ? "true" : "false"}};
    TuneLaunch tuneLaunch = [&](const Kernel &kernel,
                                const TuneCandidate &candidate,
                                Stream stream) -> Status {
      int tileM = std::atoi(constantOf(candidate, "TILE_M").c_str());
      if (problem.table) {
        Expected<Kernel> plan = tileTableKernel(tileM);
        if (!plan)
          return plan.status();
        if (Status status = makeTileTable(problem, *plan, tileM, stream);
            !status.ok())
          return status;
      }
      ArgRefs refs;
      argsFor(refs);
      return launchKernel(*kernel.get(), gridFor(tileM), stream, refs);
    };
    Expected<TuneResult> result =
        autotune(kAttentionSource, kAttentionName, base, candidates, key.text(),
                 tuneLaunch, options.stream);
    if (!result)
      return refuse(result.status().message());
    Choice made;
    made.kernel = result->kernel;
    made.tileM = std::atoi(constantOf(result->config, "TILE_M").c_str());
    made.config = result->config.describe();
    if (problem.table) {
      Expected<Kernel> plan = tileTableKernel(made.tileM);
      if (!plan)
        return refuse(plan.status().message());
      made.table = *plan;
    }
    std::lock_guard<std::mutex> lock(choicesMutex);
    // Another thread may have tuned the same class meanwhile: keep one.
    choice = &choices().emplace(key, std::move(made)).first->second;
  }
  if (config)
    *config = choice->config;
  if (!launch)
    return Status();
  if (problem.table)
    if (Status status = makeTileTable(problem, choice->table, choice->tileM,
                                      options.stream);
        !status.ok())
      return refuse(status.message());
  ArgRefs refs;
  argsFor(refs);
  Status status = launchKernel(*choice->kernel.get(), gridFor(choice->tileM),
                               options.stream, refs);
  if (!status.ok())
    return refuse(status.message());
  return Status();
}

} // namespace

Status tile::detail::attentionRefs(const TensorRef &q, const TensorRef &k,
                                   const TensorRef &v, const TensorRef &out,
                                   const AttentionOptions &options, bool launch,
                                   std::string *config) {
  // Each tensor on its own.
  const std::pair<const TensorRef *, const char *> tensors[] = {
      {&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}};
  for (auto [tensor, name] : tensors)
    if (Status status = checkTensor(*tensor, name); !status.ok())
      return status;

  // Against each other.
  for (auto [tensor, name] : tensors)
    if (tensor->dtype != q.dtype)
      return refuse(std::string(name) + ": dtype " + dtypeName(tensor->dtype) +
                    " does not match q's " + dtypeName(q.dtype));
  for (auto [tensor, name] : {tensors[1], tensors[2]}) {
    if (tensor->shape[0] != q.shape[0])
      return refuse(std::string(name) + ": batch " +
                    std::to_string(tensor->shape[0]) + " does not match q's " +
                    std::to_string(q.shape[0]));
    if (tensor->shape[3] != q.shape[3])
      return refuse(std::string(name) + ": head_dim " +
                    std::to_string(tensor->shape[3]) + " does not match q's " +
                    std::to_string(q.shape[3]) +
                    " (the kernel takes one head dim for q, k and v)");
  }
  if (v.shape[1] != k.shape[1])
    return refuse("v: has " + std::to_string(v.shape[1]) + " heads, k has " +
                  std::to_string(k.shape[1]));
  if (v.shape[2] != k.shape[2])
    return refuse("v: seq_k " + std::to_string(v.shape[2]) +
                  " does not match k's " + std::to_string(k.shape[2]));
  for (int d = 0; d < 4; ++d)
    if (out.shape[d] != q.shape[d])
      return refuse("out: shape " + listText(out.shape, 4) +
                    " does not match q's " + listText(q.shape, 4));

  int64_t batch = q.shape[0], heads = q.shape[1], seqQ = q.shape[2],
          headDim = q.shape[3], kvHeads = k.shape[1], seqK = k.shape[2];
  if (Status status = checkHeadDim(headDim); !status.ok())
    return status;
  if (kvHeads > heads)
    return refuse("k: has " + std::to_string(kvHeads) +
                  " heads, more than q's " + std::to_string(heads));
  if (heads > 0 && kvHeads == 0)
    return refuse("k: has 0 heads; q has " + std::to_string(heads));
  if (kvHeads > 0 && heads % kvHeads != 0)
    return refuse("q: its " + std::to_string(heads) +
                  " heads are not a multiple of k's " +
                  std::to_string(kvHeads) +
                  " (grouped-query attention shares each k/v head among "
                  "heads / kv_heads query heads)");
  if (options.inputPos < 0)
    return refuse("input_pos: " + std::to_string(options.inputPos) +
                  " is negative");
  if (options.inputPos + seqQ > INT32_MAX)
    return refuse("input_pos: " + std::to_string(options.inputPos) +
                  " + seq_q exceeds 2^31-1");
  if (options.scale && !std::isfinite(*options.scale))
    return refuse("scale: " + std::to_string(*options.scale) +
                  " is not a finite number");
  for (auto [tensor, name] : {tensors[0], tensors[1], tensors[2]})
    if (overlaps(out, *tensor))
      return refuse(std::string("out: overlaps ") + name +
                    " (attention cannot write over its inputs)");

  bool empty = batch == 0 || heads == 0 || seqQ == 0 || headDim == 0;
  if (!empty && seqK == 0)
    return refuse("k: seq_k is 0 while seq_q is " + std::to_string(seqQ) +
                  ": attention over no keys is undefined");
  if (!empty && batch * heads > 65535)
    return refuse("q: batch * heads = " + std::to_string(batch * heads) +
                  " exceeds 65535, the kernel grid's limit");
  if (!launch && !config)
    return Status();
  if (empty) {
    if (config)
      *config = "";
    return Status(); // nothing to compute
  }

  int tileD = paddedHeadDim(headDim);
  int group = static_cast<int>(heads / kvHeads);
  int keyAlign = 128;
  while (keyAlign > 1 && seqK % keyAlign)
    keyAlign /= 2;
  Problem problem;
  problem.kernel = "fmha";
  problem.key = ClassKey{static_cast<int>(q.dtype),
                         tileD,
                         static_cast<int>(heads),
                         group,
                         options.causal,
                         options.autotune && !autotuneDisabled(),
                         keyAlign,
                         log2Ceil(seqQ),
                         log2Ceil(seqK),
                         log2Ceil(batch * heads)};
  problem.evenKeys = seqK;
  problem.queries = seqQ;
  problem.pairs = batch * heads;
  problem.tensors = {&q, &k, &v, &out};
  problem.scalars = {floatArg(scaleOf(options, headDim)),
                     intArg(options.inputPos)};
  return runAttention(problem, options, launch, config);
}

Status tile::detail::attentionVarlenRefs(
    const TensorRef &q, const TensorRef &k, const TensorRef &v,
    const TensorRef &out, const TensorRef &cuSeqlensQ,
    const TensorRef &cuSeqlensK, int64_t maxSeqlenQ, int64_t maxSeqlenK,
    const AttentionOptions &options, bool launch, std::string *config) {
  static const char kPacked[] = "(total, heads, head_dim)";
  const std::pair<const TensorRef *, const char *> tensors[] = {
      {&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}};
  for (auto [tensor, name] : tensors)
    if (Status status = checkTensor(*tensor, name, 3, kPacked); !status.ok())
      return status;
  for (auto [tensor, name] : tensors)
    if (tensor->dtype != q.dtype)
      return refuse(std::string(name) + ": dtype " + dtypeName(tensor->dtype) +
                    " does not match q's " + dtypeName(q.dtype));
  for (auto [tensor, name] : {tensors[1], tensors[2]})
    if (tensor->shape[2] != q.shape[2])
      return refuse(std::string(name) + ": head_dim " +
                    std::to_string(tensor->shape[2]) + " does not match q's " +
                    std::to_string(q.shape[2]) +
                    " (the kernel takes one head dim for q, k and v)");
  for (int d = 0; d < 2; ++d)
    if (v.shape[d] != k.shape[d])
      return refuse("v: shape " + listText(v.shape, 3) +
                    " does not match k's " + listText(k.shape, 3));
  for (int d = 0; d < 3; ++d)
    if (out.shape[d] != q.shape[d])
      return refuse("out: shape " + listText(out.shape, 3) +
                    " does not match q's " + listText(q.shape, 3));

  // The sequences' bounds: (batch + 1,) int32, the same count for both.
  const std::pair<const TensorRef *, const char *> bounds[] = {
      {&cuSeqlensQ, "cu_seqlens_q"}, {&cuSeqlensK, "cu_seqlens_k"}};
  for (auto [t, name] : bounds) {
    if (t->rank != 1 || t->stridesRank != 1 || !t->shape || !t->strides)
      return refuse(std::string(name) +
                    ": expected a rank-1 tensor (batch + 1,) of offsets, got "
                    "rank " +
                    std::to_string(t->rank));
    if (t->dtype != DType::I32)
      return refuse(std::string(name) + ": dtype " + dtypeName(t->dtype) +
                    " is not supported; the offsets are int32");
    if (t->shape[0] < 1 || t->shape[0] > INT32_MAX)
      return refuse(std::string(name) + ": has " + std::to_string(t->shape[0]) +
                    " entries; it holds batch + 1 offsets, from 0");
    if (t->strides[0] < 0)
      return refuse(std::string(name) + ": stride " +
                    std::to_string(t->strides[0]) + " is negative");
    if (!t->data)
      return refuse(std::string(name) + ": null data pointer");
  }
  if (cuSeqlensK.shape[0] != cuSeqlensQ.shape[0])
    return refuse("cu_seqlens_k: has " + std::to_string(cuSeqlensK.shape[0]) +
                  " entries, cu_seqlens_q " +
                  std::to_string(cuSeqlensQ.shape[0]) +
                  " (one batch of sequences: batch + 1 each)");
  for (auto [value, name] : {std::pair{maxSeqlenQ, "max_seqlen_q"},
                             std::pair{maxSeqlenK, "max_seqlen_k"}})
    if (value < 0 || value > INT32_MAX)
      return refuse(std::string(name) + ": " + std::to_string(value) +
                    " is not in [0, 2^31-1]");

  int64_t batch = cuSeqlensQ.shape[0] - 1, heads = q.shape[1],
          headDim = q.shape[2], kvHeads = k.shape[1];
  if (Status status = checkHeadDim(headDim); !status.ok())
    return status;
  if (kvHeads > heads || (heads > 0 && kvHeads == 0) ||
      (kvHeads > 0 && heads % kvHeads != 0))
    return refuse("k: its " + std::to_string(kvHeads) +
                  " heads do not divide q's " + std::to_string(heads) +
                  " (grouped-query attention shares each k/v head among "
                  "heads / kv_heads query heads)");
  if (options.inputPos != 0)
    return refuse("input_pos: " + std::to_string(options.inputPos) +
                  " does not apply to packed sequences: causal masks are "
                  "aligned to each sequence's last query and key");
  if (options.scale && !std::isfinite(*options.scale))
    return refuse("scale: " + std::to_string(*options.scale) +
                  " is not a finite number");
  for (auto [tensor, name] :
       {tensors[0], tensors[1], tensors[2], bounds[0], bounds[1]})
    if (overlaps(out, *tensor))
      return refuse(std::string("out: overlaps ") + name +
                    " (attention cannot write over its inputs)");
  if (batch * heads > 65535)
    return refuse(
        "cu_seqlens_q: batch * heads = " + std::to_string(batch * heads) +
        " exceeds 65535, the kernel grid's limit");
  if (!launch && !config)
    return Status();
  if (batch == 0 || heads == 0 || headDim == 0 || q.shape[0] == 0 ||
      maxSeqlenQ == 0) {
    if (config)
      *config = "";
    return Status(); // nothing to compute
  }

  // The kernel's views, (1, heads, total, head_dim), of the packed tensors.
  int64_t shapes[4][4], strides[4][4];
  TensorRef views[4];
  const TensorRef *packed[] = {&q, &k, &v, &out};
  for (int i = 0; i < 4; ++i) {
    const TensorRef &t = *packed[i];
    int64_t shape[4] = {1, t.shape[1], t.shape[0], t.shape[2]};
    int64_t stride[4] = {t.shape[0] * t.strides[0], t.strides[1], t.strides[0],
                         t.strides[2]};
    std::copy(shape, shape + 4, shapes[i]);
    std::copy(stride, stride + 4, strides[i]);
    views[i] = t;
    views[i].shape = shapes[i];
    views[i].strides = strides[i];
    views[i].rank = views[i].stridesRank = 4;
  }
  Problem problem;
  problem.kernel = "fmha_varlen";
  problem.key = ClassKey{static_cast<int>(q.dtype),
                         paddedHeadDim(headDim),
                         static_cast<int>(heads),
                         static_cast<int>(heads / kvHeads),
                         options.causal,
                         options.autotune && !autotuneDisabled(),
                         1,
                         log2Ceil(maxSeqlenQ),
                         log2Ceil(maxSeqlenK),
                         log2Ceil(batch * heads),
                         /*varlen=*/true};
  Problem::Table table;
  problem.queries = maxSeqlenQ;
  problem.pairs = heads;
  problem.offsets = &cuSeqlensQ;
  problem.rows = q.shape[0];
  problem.sequences = batch;
  problem.table = &table;
  problem.tensors = {&views[0],   &views[1],   &views[2], &views[3],
                     &cuSeqlensQ, &cuSeqlensK, &table.ref};
  problem.scalars = {floatArg(scaleOf(options, headDim)), intArg(maxSeqlenK)};
  return runAttention(problem, options, launch, config);
}

Status tile::attention(const Tensor &q, const Tensor &k, const Tensor &v,
                       const Tensor &out, const AttentionOptions &options) {
  return attentionRefs(toRef(q), toRef(k), toRef(v), toRef(out), options,
                       /*launch=*/true, nullptr);
}

Status tile::checkAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                            const Tensor &out,
                            const AttentionOptions &options) {
  return attentionRefs(toRef(q), toRef(k), toRef(v), toRef(out), options,
                       /*launch=*/false, nullptr);
}

Expected<std::string> tile::attentionConfig(const Tensor &q, const Tensor &k,
                                            const Tensor &v, const Tensor &out,
                                            const AttentionOptions &options) {
  std::string config;
  Status status = attentionRefs(toRef(q), toRef(k), toRef(v), toRef(out),
                                options, /*launch=*/false, &config);
  if (!status.ok())
    return status;
  return config;
}

Status tile::attentionVarlen(const Tensor &q, const Tensor &k, const Tensor &v,
                             const Tensor &out, const Tensor &cuSeqlensQ,
                             const Tensor &cuSeqlensK, int64_t maxSeqlenQ,
                             int64_t maxSeqlenK,
                             const AttentionOptions &options) {
  return attentionVarlenRefs(toRef(q), toRef(k), toRef(v), toRef(out),
                             toRef(cuSeqlensQ), toRef(cuSeqlensK), maxSeqlenQ,
                             maxSeqlenK, options, /*launch=*/true, nullptr);
}

Status tile::checkAttentionVarlen(const Tensor &q, const Tensor &k,
                                  const Tensor &v, const Tensor &out,
                                  const Tensor &cuSeqlensQ,
                                  const Tensor &cuSeqlensK, int64_t maxSeqlenQ,
                                  int64_t maxSeqlenK,
                                  const AttentionOptions &options) {
  return attentionVarlenRefs(toRef(q), toRef(k), toRef(v), toRef(out),
                             toRef(cuSeqlensQ), toRef(cuSeqlensK), maxSeqlenQ,
                             maxSeqlenK, options, /*launch=*/false, nullptr);
}
