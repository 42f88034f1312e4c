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
  TILE_BOOL = 4
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
 * file's only kernel, the current GPU's arch, 16-byte alignment, loops
 * split, and for the options a kernel may give in its @hints (num_warps,
 * num_stages, occupancy, rotate_wgmma, warp_specialize, ping_pong,
 * persistent) the
 * kernel's hint, or else the default: 4 warps, pipeline stages from the
 * kernel's latency hints, no occupancy bound, multiplies rotated, no
 * specialization, no ping-pong. Zero-initialize the struct
 * (`tile_compile_options o = {0};`) so that fields added at the end keep
 * their defaults.
 *
 * num_stages: software-pipeline stages of the async copies in loops; 0 takes
 *   them from the kernel's `latency` hints, 1 turns pipelining off, 2 to 8
 *   gives every pipelined copy that many stages (tilec --num-stages).
 * disable_loop_split: non-zero keeps loops whole instead of splitting them
 *   at branches on their induction variable (tilec --loop-split=false).
 * disable_rotate_wgmma: non-zero keeps each trip's multiplies in it on
 *   sm_90a instead of issuing a loop's last multiply in the next trip
 *   (tilec --rotate-wgmma=false).
 * warp_specialize: positive splits the block on sm_90a into a TMA
 *   producer warp and the kernel's warps as consumers, which take the
 *   producer's registers (tilec --warp-specialize); negative keeps it
 *   whole even where the kernel's @hints ask for it.
 * ping_pong: positive makes two or more specialized consumer warpgroups
 *   issue their multiplies in turns (tilec --ping-pong); negative turns it
 *   off against the kernel's @hints.
 * occupancy: blocks per multiprocessor the registers are budgeted for, 1
 *   to 32 (tilec --occupancy).
 * persistent: positive makes the kernel persistent (tilec --persistent):
 *   launched with at most a block per multiprocessor slot, each looping
 *   over the blocks of the grid the launch asks for; negative turns it
 *   off against the kernel's @hints.
 * tile_stages: a persistent kernel's stages of each tile's own copies
 *   (tilec --tile-stages): 0 the default (2), 1 or 2.
 * tile_refill_after_read: non-zero loads, with tile_stages 1, the next
 *   tile's copy right after this tile's last read of it instead of at the
 *   next tile's start (tilec --tile-refill-after-read).
 * defer_epilogue: non-zero runs a persistent kernel's tile epilogue under
 *   the next tile's first multiply (sm_90a; tilec --defer-epilogue).
 * rescale_in_trip: non-zero leaves a rotated loop's accumulator rescaling
 *   at the end of its trip (sm_90a; tilec --rescale-in-trip). */
typedef struct tile_compile_options {
  const tile_constant *constants;
  size_t num_constants;
  const char *kernel;
  const char *arch;
  unsigned num_warps;
  unsigned tensor_alignment;
  unsigned num_stages;
  int disable_loop_split;
  int disable_rotate_wgmma;
  int warp_specialize;
  int ping_pong;
  unsigned occupancy;
  int persistent;
  unsigned tile_stages;
  int tile_refill_after_read;
  int defer_epilogue;
  int rescale_in_trip;
} tile_compile_options;

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
 * TILE_N=128,...,warps=8,stages=2,ws=on,..."; empty for an empty problem),
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

/* ---- Autotuning (tile/Autotune.h) ------------------------------------------
 * One candidate configuration: constants added to the options' constants,
 * warps (0: 4) and pipeline stages. */
typedef struct tile_tune_candidate {
  const tile_constant *constants;
  size_t num_constants;
  unsigned num_warps;
  unsigned num_stages;
  /* As in tile_compile_options: 0 keeps the base options' (or the
   * kernel's @hints), positive on, negative off. */
  int warp_specialize;
  int persistent;
  unsigned tile_stages;       /* 0 keeps the base options' */
  int tile_refill_after_read; /* 0 keeps the base options', positive on,
                                 negative off */
  int defer_epilogue;         /* likewise */
  int rescale_in_trip;        /* likewise */
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
