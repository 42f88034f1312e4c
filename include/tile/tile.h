/*===- tile.h - libtile's C API ---------------------------------*- C -*-===*\
|*                                                                            *|
|* Compile and launch tile kernels at run time from C (or any language with *|
|* a C FFI). Every call returns TILE_OK (0) or TILE_ERROR; after an error,   *|
|* tile_last_error() gives the calling thread's message. Kernel handles stay *|
|* valid for the life of the process and need no release.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_TILE_C_H
#define TILE_TILE_C_H

#include <stddef.h>
#include <stdint.h>

#ifndef TILE_API
#define TILE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The driver's stream type: CUstream and cudaStream_t both point to it. */
struct CUstream_st;

typedef struct tile_kernel_s *tile_kernel;

enum { TILE_OK = 0, TILE_ERROR = 1 };

typedef enum tile_dtype {
  TILE_F16 = 0,
  TILE_BF16 = 1,
  TILE_F32 = 2,
  TILE_I32 = 3,
  TILE_BOOL = 4,
  TILE_F8E4M3 = 5, /* torch.float8_e4m3fn */
  TILE_F8E5M2 = 6, /* torch.float8_e5m2 */
  TILE_I64 = 7,    /* torch.int64 */
  TILE_I8 = 8      /* torch.int8 */
} tile_dtype;

typedef enum tile_arg_kind {
  TILE_ARG_TENSOR = 0,
  TILE_ARG_INT = 1,
  TILE_ARG_FLOAT = 2,
  TILE_ARG_BOOL = 3
} tile_arg_kind;

/* A tensor in GPU memory; shape and strides (in elements) have `rank`
 * entries each. */
typedef struct tile_tensor {
  void *data;
  tile_dtype dtype;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
} tile_tensor;

/* One argument, tagged by kind. */
typedef struct tile_arg {
  tile_arg_kind kind;
  union {
    tile_tensor tensor;
    int64_t i;
    float f;
    int32_t b;
  } value;
} tile_arg;

typedef struct tile_constant {
  const char *name;
  const char *value;
} tile_constant;

/* NULL options, or zeroed fields, mean the defaults: no constants, the
 * file's only kernel, the current GPU's arch, and no compile option set.
 * `options` sets compile options by name, as text: "num_warps=8,
 * warp_specialize=on,num_stages=3" (bools: on/off, true/false, 1/0); the
 * options are those of tile/Options.def (tile_option_list() names them;
 * tilec --help describes each, with '-' for '_': --num-warps). An option
 * not set takes the kernel's @hints(...) where it may give it, else its
 * default. A name that is not an option, or a value out of range, is an
 * error naming it. Zero-initialize the struct (`tile_compile_options o =
 * {0};`) so that fields added at the end keep their defaults. */
typedef struct tile_compile_options {
  const tile_constant *constants;
  size_t num_constants;
  const char *kernel;
  const char *arch;
  const char *options;
} tile_compile_options;

/* Every compile option's name, comma-separated ("num_warps,num_stages,...",
 * in tile/Options.def's order). */
TILE_API const char *tile_option_list(void);

typedef struct tile_stats {
  uint64_t compiles;
  uint64_t disk_hits;
  uint64_t disk_writes;
  uint64_t memory_hits;
  uint64_t modules_loaded;
  uint64_t alignment_variants;
} tile_stats;

TILE_API int tile_compile_file(const char *path,
                               const tile_compile_options *options,
                               tile_kernel *kernel);
TILE_API int tile_compile_source(const char *source, const char *name,
                                 const tile_compile_options *options,
                                 tile_kernel *kernel);
/* An ahead-of-time .ptx file written by `tilec --emit=ptx`. */
TILE_API int tile_load_ptx(const char *path, tile_kernel *kernel);

/* Launches `grid_x * grid_y * grid_z` blocks on `stream` (NULL: the default
 * stream). */
TILE_API int tile_kernel_launch(tile_kernel kernel, unsigned grid_x,
                                unsigned grid_y, unsigned grid_z,
                                struct CUstream_st *stream,
                                const tile_arg *args, size_t num_args);
/* Checks the arguments as tile_kernel_launch does, without launching. */
TILE_API int tile_kernel_check(tile_kernel kernel, const tile_arg *args,
                               size_t num_args);

/* NULL for an invalid handle. */
TILE_API const char *tile_kernel_name(tile_kernel kernel);
TILE_API unsigned tile_kernel_num_warps(tile_kernel kernel);
/* Registers per thread of the driver's machine code, and the most blocks a
 * multiprocessor runs at once (its occupancy); 0 for a kernel not loaded. */
TILE_API unsigned tile_kernel_registers(tile_kernel kernel);
TILE_API unsigned tile_kernel_blocks_per_sm(tile_kernel kernel);
/* How the kernel was built: its pipeline stages (0: from the latency hints)
 * and 1 if its loops were split, 0 if not (or for an invalid handle). */
TILE_API unsigned tile_kernel_num_stages(tile_kernel kernel);
TILE_API int tile_kernel_loop_split(tile_kernel kernel);
TILE_API unsigned tile_kernel_shared_bytes(tile_kernel kernel);
TILE_API size_t tile_kernel_num_params(tile_kernel kernel);
/* The TMA descriptors the kernel takes (built by the launch; 0 for kernels
 * that copy without TMA), and why the compiler used cp.async instead of TMA
 * for some of its loads: reason `index` of tile_kernel_num_tma_fallbacks, or
 * NULL past the end. */
TILE_API size_t tile_kernel_num_tensor_maps(tile_kernel kernel);
TILE_API size_t tile_kernel_num_tma_fallbacks(tile_kernel kernel);
TILE_API const char *tile_kernel_tma_fallback(tile_kernel kernel, size_t index);
/* The compiler's warnings on the kernel (an option or hint it could not
 * apply, and why), "file:line:col: warning: ..." each: warning `index` of
 * tile_kernel_num_warnings, or NULL past the end. */
TILE_API size_t tile_kernel_num_warnings(tile_kernel kernel);
TILE_API const char *tile_kernel_warning(tile_kernel kernel, size_t index);
/* A kernel compiled with timeline=N (tile-timeline): N, the records each
 * warpgroup of a block logs (0: not instrumented), and what site `index` is
 * ("start", "consumer: loop 1 (40:5) trip"), or NULL past the end. */
TILE_API unsigned tile_kernel_timeline_records(tile_kernel kernel);
TILE_API const char *tile_kernel_timeline_site(tile_kernel kernel,
                                               size_t index);
/* The records of the kernel's last launch, once the context's work is done
 * (this waits for it): `*blocks` blocks (x, y, z order) of `*warpgroups`
 * logs of tile_kernel_timeline_records 16-byte records each: the global
 * timer in ns, then a word whose low 32 bits are the multiprocessor's clock
 * and high 32 bits the site; a record not written is zero. At most `bytes`
 * are copied into `records`; with `records` NULL only the counts are set. */
TILE_API int tile_kernel_timeline(tile_kernel kernel, void *records,
                                  size_t bytes, uint64_t *blocks,
                                  unsigned *warpgroups);
/* When a launch needed an alignment variant (tensors less aligned than the
 * kernel was compiled for): which argument, and what the variant gives up
 * (tile::Kernel::variantNote), for the variant the last such launch ran;
 * NULL when none did. Valid while the kernel lives. */
TILE_API const char *tile_kernel_variant_note(tile_kernel kernel);
/* The values a tuner may try for the kernel's constants (its @tune), as
 * "TILE_M=64|128,TILE_N=64|128"; "" without one, NULL for an invalid
 * handle. tile_autotune with no candidates tries every combination. */
TILE_API const char *tile_kernel_tune_space(tile_kernel kernel);

/* The schedules autotuning with no candidates tries for each combination of
 * a kernel's @tune values (tile::scheduleVariants): option texts separated
 * by ';', the first the compiler's choice ("auto_schedule=on"), leaving out
 * variants of the options `given` (option text, NULL: none) sets. NULL,
 * with tile_last_error, when `given` does not parse. Valid until the
 * thread's next call. */
TILE_API const char *tile_schedule_variants(const char *given);

/* ---- MLA decode (tile/Decode.h) -------------------------------------------
 * Multi-head latent attention decode over a paged latent cache (FlashMLA's
 * problem): q (batch, s_q, heads, head_dim), kv_cache (num_pages,
 * page_size, 1, head_dim) whose first head_dim_v dims are the values,
 * cache_seqlens (batch,) and block_table (batch, max_pages) int32, out
 * (batch, s_q, heads, head_dim_v), lse (batch, s_q, heads) f32; the
 * shapes, dtypes and strides tile::mlaDecode takes. Zero-initialize the
 * options: head_dim_v 0 means 512, has_scale 0 means 1/sqrt(head_dim),
 * non_causal 0 is causal, num_splits 0 is chosen. */
typedef struct tile_decode_plan tile_decode_plan;
typedef struct tile_mla_decode_options {
  int64_t head_dim_v;
  int has_scale;
  float scale;
  int non_causal;
  int64_t num_splits;
  const tile_decode_plan *plan; /* NULL: sequences cut by the capacity */
} tile_mla_decode_options;

/* The device workspace tile_mla_decode needs, in bytes, into `*bytes` (0
 * with one split). Compiles the kernels once per problem class: needs the
 * GPU. */
TILE_API int tile_mla_decode_workspace_bytes(
    const tile_tensor *q, const tile_tensor *kv_cache,
    const tile_tensor *block_table, const tile_mla_decode_options *options,
    size_t *bytes);
/* Checks, then runs asynchronously on `stream` (NULL: the default stream);
 * `workspace`: 16-byte aligned device memory of at least that many bytes
 * (NULL when 0). */
TILE_API int tile_mla_decode(const tile_tensor *q, const tile_tensor *kv_cache,
                             const tile_tensor *cache_seqlens,
                             const tile_tensor *block_table,
                             const tile_tensor *out, const tile_tensor *lse,
                             void *workspace, size_t workspace_bytes,
                             const tile_mla_decode_options *options,
                             struct CUstream_st *stream);
/* The checks alone (not the workspace); needs no GPU. */
TILE_API int tile_mla_decode_check(const tile_tensor *q,
                                   const tile_tensor *kv_cache,
                                   const tile_tensor *cache_seqlens,
                                   const tile_tensor *block_table,
                                   const tile_tensor *out,
                                   const tile_tensor *lse,
                                   const tile_mla_decode_options *options);

/* ---- Split-KV schedules (tile/Decode.h) ----------------------------------
 * tile::splitKVSchedule: the work items of a split-KV decode kernel for a
 * batch whose `batch` sequences have lengths[b] keys, `units` units (KV
 * heads, query row blocks) per sequence, keys_per_trip keys per key tile,
 * `slots` blocks resident at once over `multiprocessors` (0: one pool),
 * of which saturating_slots active saturate the memory (0: all), lengths
 * clamped to max_keys, `splits`
 * splits per unit forced (0: chosen), merge_trips the key tiles of time
 * each partial adds to a unit after its last split ends
 * (SplitScheduleOptions). Writes the item count, the partial
 * outputs and the most splits of a unit; when `table` is not NULL and
 * `capacity` (int32 entries) holds 5 x items, the (5, items) table too
 * (else only the counts: call with NULL first for the size). Host only. */
TILE_API int tile_split_kv_schedule(
    const int64_t *lengths, int64_t batch, int64_t units, int64_t keys_per_trip,
    int64_t slots, int64_t saturating_slots, int64_t multiprocessors,
    int64_t max_keys, int64_t splits, double merge_trips, int32_t *table,
    int64_t capacity, int64_t *items, int64_t *partials, int64_t *max_splits);

/* ---- Decode attention over a KV cache (tile/Decode.h) ---------------------
 * tile::attentionWithKVCache (flash_attn_with_kvcache): q and out (batch,
 * s_q, heads, head_dim), k_cache and v_cache (batch, capacity, kv_heads,
 * head_dim), or with block_table (batch, max_pages) int32 (num_pages,
 * page_size, kv_heads, head_dim), cache_seqlens (batch,) int32, k_new and
 * v_new (batch, new, kv_heads, head_dim) or NULL; the shapes, dtypes and
 * strides tile::attentionWithKVCache takes. A decode plan holds each
 * sequence's length as the host knows it (tile::DecodePlan): the keys are
 * split by them; destroying it waits for the device. Zero-initialize the
 * options: has_scale 0 means 1/sqrt(head_dim), non_causal 0 is causal,
 * num_splits 0 is chosen, plan NULL splits by the capacity. */
/* NULL, with tile_last_error, when batch < 0 or lengths is NULL for a
 * batch. */
TILE_API tile_decode_plan *tile_decode_plan_create(const int64_t *lengths,
                                                   int64_t batch);
TILE_API void tile_decode_plan_destroy(tile_decode_plan *plan);

typedef struct tile_kvcache_options {
  int has_scale;
  float scale;
  int non_causal;
  int64_t num_splits;
  const tile_decode_plan *plan;
  int check_block_table;
  int32_t *tickets; /* NULL: in the workspace (tile::KVCacheOptions) */
} tile_kvcache_options;

/* The device workspace tile_attention_with_kvcache needs, in bytes, into
 * `*bytes` (block_table NULL for a contiguous cache). Compiles the kernel
 * once per problem class: needs the GPU. */
TILE_API int tile_attention_with_kvcache_workspace_bytes(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *block_table, const tile_kvcache_options *options,
    size_t *bytes);
/* Checks, then runs asynchronously on `stream` (NULL: the default stream);
 * `workspace`: 16-byte aligned device memory of at least that many bytes
 * (NULL when 0). block_table, k_new and v_new may be NULL. */
TILE_API int tile_attention_with_kvcache(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *v_cache, const tile_tensor *cache_seqlens,
    const tile_tensor *block_table, const tile_tensor *k_new,
    const tile_tensor *v_new, const tile_tensor *out, void *workspace,
    size_t workspace_bytes, const tile_kvcache_options *options,
    struct CUstream_st *stream);
/* The checks alone (not check_block_table's); needs no GPU. */
TILE_API int tile_attention_with_kvcache_check(
    const tile_tensor *q, const tile_tensor *k_cache,
    const tile_tensor *v_cache, const tile_tensor *cache_seqlens,
    const tile_tensor *block_table, const tile_tensor *k_new,
    const tile_tensor *v_new, const tile_tensor *out,
    const tile_kvcache_options *options);

/* ---- Attention (tile/Attention.h) ----------------------------------------
 * Forward attention on (batch, heads, seq, head_dim) tensors: q and out
 * (batch, heads, seq_q, head_dim), k and v (batch, kv_heads, seq_k,
 * head_dim), f16 or bf16, head_dim a multiple of 8 up to 256, kv_heads
 * dividing heads. Zero-initialize the options: has_scale 0 means
 * 1/sqrt(head_dim); disable_autotune non-zero uses the default tiles. */
typedef struct tile_attention_options {
  int causal;
  int has_scale;
  float scale;
  int64_t input_pos;
  int disable_autotune;
} tile_attention_options;

/* Checks, then runs asynchronously on `stream` (NULL: the default stream). */
TILE_API int tile_attention(const tile_tensor *q, const tile_tensor *k,
                            const tile_tensor *v, const tile_tensor *out,
                            const tile_attention_options *options,
                            struct CUstream_st *stream);
/* The checks alone; needs no GPU. */
TILE_API int tile_attention_check(const tile_tensor *q, const tile_tensor *k,
                                  const tile_tensor *v, const tile_tensor *out,
                                  const tile_attention_options *options);
/* The configuration tile_attention runs for these arguments ("TILE_M=128,
 * TILE_N=128,...,num_warps=8,num_stages=2,warp_specialize=on,..."; empty
 * for an empty problem),
 * tuning the problem's class first if it was not (launches on `stream`,
 * nothing written to out). Writes it NUL-terminated into `buffer` when its
 * `size` holds it, and its length plus one to `*needed` (may be NULL);
 * a buffer too small (NULL with size 0 included) writes nothing there and
 * is no error. */
TILE_API int tile_attention_config(const tile_tensor *q, const tile_tensor *k,
                                   const tile_tensor *v, const tile_tensor *out,
                                   const tile_attention_options *options,
                                   struct CUstream_st *stream, char *buffer,
                                   size_t size, size_t *needed);

/* Packed sequences of different lengths (FlashAttention's varlen;
 * tile::attentionVarlen in tile/Attention.h says what each argument is):
 * q, out (total_q, heads, head_dim); k, v (total_k, kv_heads, head_dim);
 * cu_seqlens_q, cu_seqlens_k (batch + 1,) int32 offsets on the GPU;
 * max_seqlen_q, max_seqlen_k the longest sequence's queries and keys.
 * options->input_pos must be 0. */
TILE_API int tile_attention_varlen(const tile_tensor *q, const tile_tensor *k,
                                   const tile_tensor *v, const tile_tensor *out,
                                   const tile_tensor *cu_seqlens_q,
                                   const tile_tensor *cu_seqlens_k,
                                   int64_t max_seqlen_q, int64_t max_seqlen_k,
                                   const tile_attention_options *options,
                                   struct CUstream_st *stream);
/* The checks alone; needs no GPU. */
TILE_API int tile_attention_varlen_check(
    const tile_tensor *q, const tile_tensor *k, const tile_tensor *v,
    const tile_tensor *out, const tile_tensor *cu_seqlens_q,
    const tile_tensor *cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const tile_attention_options *options);

/* ---- Attention training (tile/Attention.h) ----------------------------------
 * tile::attentionWithLse and tile::attentionBackward: row-major q, out, dout,
 * dq (batch, heads, seq_q, head_dim), k, v, dk, dv (batch, kv_heads, seq_k,
 * head_dim), head_dim 64, 96, 128, 192 or 256 (192 and 256 on sm_90), f16
 * or bf16; lse and delta f32 (batch, heads, tile_attention_lse_rows(seq_q)).
 * Zero-initialize the options: has_scale 0 means 1/sqrt(head_dim). */
typedef struct tile_attention_training_options {
  int causal;
  int has_scale;
  float scale;
} tile_attention_training_options;

/* seq_q rounded up to the kernels' 64-query tiles: lse's and delta's rows. */
TILE_API int64_t tile_attention_lse_rows(int64_t seq_q);
/* The forward that also writes each query row's log-sum-exp into lse;
 * checks, then runs asynchronously on `stream` (NULL: the default stream). */
TILE_API int tile_attention_with_lse(
    const tile_tensor *q, const tile_tensor *k, const tile_tensor *v,
    const tile_tensor *out, const tile_tensor *lse,
    const tile_attention_training_options *options, struct CUstream_st *stream);
/* dq, dk, dv from the forward's out and lse and dout, delta as scratch;
 * checks, then runs asynchronously on `stream`. */
TILE_API int tile_attention_backward(
    const tile_tensor *q, const tile_tensor *k, const tile_tensor *v,
    const tile_tensor *out, const tile_tensor *lse, const tile_tensor *dout,
    const tile_tensor *dq, const tile_tensor *dk, const tile_tensor *dv,
    const tile_tensor *delta, const tile_attention_training_options *options,
    struct CUstream_st *stream);
/* tile_attention_backward's checks alone; needs no GPU. */
TILE_API int tile_attention_backward_check(
    const tile_tensor *q, const tile_tensor *k, const tile_tensor *v,
    const tile_tensor *out, const tile_tensor *lse, const tile_tensor *dout,
    const tile_tensor *dq, const tile_tensor *dk, const tile_tensor *dv,
    const tile_tensor *delta, const tile_attention_training_options *options);

/* ---- Autotuning (tile/Autotune.h) ------------------------------------------
 * One candidate configuration: constants added to the options' constants,
 * and compile options (text, as in tile_compile_options) that replace the
 * base options' (NULL or "": none). */
typedef struct tile_tune_candidate {
  const tile_constant *constants;
  size_t num_constants;
  const char *options;
} tile_tune_candidate;

/* Launches `kernel` (compiled for candidates[candidate]) once on `stream`;
 * returns TILE_OK or TILE_ERROR (a message through tile_set_error). */
typedef int (*tile_tune_launch_fn)(void *user, tile_kernel kernel,
                                   size_t candidate,
                                   struct CUstream_st *stream);

/* Picks the fastest candidate for `problem_key`, timing on `stream`;
 * remembered in memory and on disk. Sets *kernel and *chosen. */
TILE_API int tile_autotune(const char *source, const char *name,
                           const tile_compile_options *options,
                           const tile_tune_candidate *candidates,
                           size_t num_candidates, const char *problem_key,
                           struct CUstream_st *stream,
                           tile_tune_launch_fn launch, void *user,
                           tile_kernel *kernel, size_t *chosen);

/* For callbacks: sets the calling thread's error message. */
TILE_API void tile_set_error(const char *message);

/* The calling thread's last error message; "" if none. Valid until the
 * thread's next failing tile_* call. */
TILE_API const char *tile_last_error(void);

TILE_API int tile_runtime_stats(tile_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* TILE_TILE_C_H */
