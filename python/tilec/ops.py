"""The kernel library on PyTorch tensors: tilec's own .tile kernels
(kernels/norms.tile, softmax.tile, softmax_looped.tile, softmax_cluster.tile,
cross_entropy.tile, linear.tile, bmm.tile, gemm_fp8.tile, transpose.tile,
reduce.tile), written as a user would
write them and compiled with no per-kernel options, behind the signatures
of the PyTorch ops they replace.

    y = tilec.ops.rms_norm(x, weight, eps=1e-6)
    y = tilec.ops.layer_norm(x, weight, bias, eps=1e-5)
    y = tilec.ops.softmax(x, dim=-1)
    loss = tilec.ops.cross_entropy(logits, target)        # reduction="none"
    loss, lse = tilec.ops.cross_entropy(logits, target, return_lse=True)
    y = tilec.ops.linear(x, weight, bias, activation="gelu_tanh")
    c = tilec.ops.bmm(a, b)
    c = tilec.ops.scaled_mm(a8, b8, scale_a, scale_b)    # fp8, as torch._scaled_mm
    t = tilec.ops.transpose(x)                             # x.t(), contiguous
    s = tilec.ops.sum(x, dim=-1)                           # also amax, amin

Each works over the last dimension of a CUDA tensor whose last dimension is
contiguous (the others are flattened into rows). A problem class (the
kernel, dtype and the row length's power of two) is compiled once, with
tiles and warps chosen from the row length (measured on an H200): a row
held whole in registers where it fits (norms, and softmax up to 16k
columns), else read in chunks (softmax over longer rows, cross-entropy over
any vocabulary; on sm_90 a row too long for one block, or a cross-entropy
of few rows, split over the blocks of a thread block cluster). (Timing each
problem class's candidates at its first call with tilec.autotune picked
worse shapes than these rules: single launches
of 20-80 us are within the timer's noise; tilec.autotune now times CUDA
graphs.) Layernorm over rows of more than 8192 columns and rmsnorm over
rows of more than 16384 on sm_90 are tuned per power of two of the rows
between the one-row-a-block kernel and norms.tile's ROW_LOOP (a few
blocks a multiprocessor, each looping over its rows with the next one in
flight). The multiplies (linear, bmm)
(and scaled_mm) are tuned once per problem class (dtype, the rows' power
of two, N, K, bias and activation) by tilec.autotune over their kernel's @tune tiles,
each with the compiler's schedules (tilec.tune_space_configs), and linear
on sm_90 also persistent in clusters of 2 (neighbouring tiles sharing an
operand's tile, multicast: linear.tile's CLUSTER_M / CLUSTER_N) and, where
the power-of-two tiles leave the last wave part-empty, over the tile of 128
or 256 rows and 128 to 256 columns in eights that fills the waves best
(3000 x 5000 on 132 multiprocessors: 256 x 152, three waves); the winner
is remembered in memory and on disk; a skinny linear (at most 128 rows)
is tuned over 64-row tiles with K split across 1, 2 or 4 blocks per output
tile, the last block in adding the partials (kernels/linear.tile's SPLITS),
and at most 32 rows also over the product swapped (SWAP_AB: W's 64 rows as
the multiply's A, X's 16 or 32 rows its N),
and linear (and skinny scaled_mm) is timed on copies of its inputs past
twice the L2, taken in turn, so that the weight is read from memory as a
model reads it.
Tuning times CUDA graphs of the launches: the GPU's time. Statistics
are computed in f32. Every argument is checked, with a message naming it
(tilec.ArgumentError).
"""

from ._kernels import compile_once as _compile, path as _kernel_path, \
    rotated as _rotated, sm_count as _sm_count, tickets as _tickets
from ._tensors import current_stream
from .errors import ArgumentError
from .fp8 import out_dtype_of

__all__ = ["rms_norm", "layer_norm", "softmax", "cross_entropy", "linear",
           "bmm", "scaled_mm", "int_mm", "transpose", "sum", "amax", "amin"]

_tuned = {}
# (kernel, dtype, row length) -> (the norms' kernel, rows per block, the
# constants and the row-loop candidates to tune over); for those tuned,
# ((kernel, dtype, row length), the rows' power of two) -> (the kernel
# tuned, its blocks: 0 for one row a block).
_row_kernels = {}

#: The longest row the norms hold in registers (16 warps x 64 elements a
#: thread; f32 rows half as long: at 32768, layernorm's f32 spills).
MAX_NORM_COLUMNS = 32768
MAX_NORM_COLUMNS_F32 = 16384
#: The longest row softmax reads in one tile; longer ones are read in chunks.
MAX_SINGLE_PASS_COLUMNS = 16384
#: Longer rows, up to this many columns, are held by the blocks of a thread
#: block cluster on sm_90 (tilec.ops.softmax: up to 16 parts of at most
#: 20480 on 8 warps, 16-bit ones held as read, 64 registers, f32 123);
#: longer ones, and any on sm_80, are read twice. (H100, bf16, 512 x 327680
#: in 16 parts of 20480: 0.94 of the copy, held in f32 0.82, read twice
#: 0.60; bench/results/2026-12-05-memory-bound-rows.md.)
MAX_CLUSTER_SOFTMAX_COLUMNS = 16 * 20480


def _softmax_cluster_shape(n, most=10240, least=2):
    """(cluster, part width, warps) for a row of n columns held by a
    cluster's blocks: the fewest blocks (`least` to 16) whose parts are at
    most `most` columns, on 4 warps up to 9216 columns, else 8. (H200, bf16,
    bench/softmax_cluster.py, of the copy: 4096 x 20480 in 2 parts of
    10240 on 8 warps 0.91, in 4 of 5120 0.88, read twice 0.67; 2048 x
    32768 in 4 of 8192 on 4 warps 0.88, 2 of 16384 0.83; 512 x 65536 in 8
    of 8192 0.83; 256 x 131072 in 16 of 8192 0.74, in 8 of 16384 0.63;
    2026-11-30-h200-cluster-gather.md.)"""
    cluster = least
    while cluster < 16 and (n + cluster - 1) // cluster > most:
        cluster *= 2
    part = ((n + cluster - 1) // cluster + 7) // 8 * 8
    return cluster, part, 4 if part <= 9216 else 8


def _pow2(n):
    return 1 << max(0, (int(n) - 1).bit_length())


def _row_tile(n):
    """The tile width for rows of n columns held whole: n itself from 1024
    columns (a tile that is not a power of two is held padded, with no
    register that is padding in every thread, and its loads stop at n: a
    row of 10000 in a 16384-column tile left 39% of the lanes without
    work), a power of two below (several rows a block)."""
    return n if n >= 1024 else max(32, _pow2(n))


def _chunk_tile(n, most):
    """The tile width for rows of n columns read in chunks of at most
    `most`: the fewest chunks, of equal width rounded up to 8 elements (so
    that each chunk starts 16-byte aligned where the row does; rows of
    10000 read as 3 x 3336 rather than 4096 + 4096 + 1808)."""
    if n <= most:
        return max(32, _pow2(n)) if n < 1024 else (n + 7) // 8 * 8
    chunks = (n + most - 1) // most
    return ((n + chunks - 1) // chunks + 7) // 8 * 8


def _dsl_dtype(torch, dtype, name, allowed):
    names = {torch.float16: "f16", torch.bfloat16: "bf16",
             torch.float32: "f32"}
    if dtype not in allowed:
        raise ArgumentError(
            f"{name}: expected one of "
            f"{', '.join(str(d).replace('torch.', '') for d in allowed)}, "
            f"got {str(dtype).replace('torch.', '')}")
    return names[dtype]


def _rows(torch, x, name, dtypes):
    """x as a (rows, N) view (its last dimension contiguous) and its DSL
    dtype."""
    if not isinstance(x, torch.Tensor) or not x.is_cuda:
        raise ArgumentError(f"{name}: expected a CUDA tensor")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ArgumentError(f"{name}: expected at least one dimension, the "
                            f"last one not empty")
    dtype = _dsl_dtype(torch, x.dtype, name, dtypes)
    if x.stride(-1) != 1:
        raise ArgumentError(f"{name}: its last dimension must be contiguous")
    if x.dim() == 2:
        return x, dtype
    try:
        rows = x.view(-1, x.shape[-1])
    except RuntimeError:
        rows = x.reshape(-1, x.shape[-1])
    return rows, dtype


def _shape_for(tile_n, per_warp=512):
    """(TILE_M, num_warps) for rows held whole in tiles of TILE_N columns
    (any width: see _row_tile). Rows of 1024 columns and more: one row a
    block, a warp per `per_warp` columns (512; layer_norm 1024) of the
    row's power of two from 2 to 8 warps up to 8192 columns; past that a
    warp per 1024 columns of the largest power of two within the row, at
    most 16. Shorter rows: several a block, 4096 elements, 4 warps. (H200, graph-timed, bench/row_shapes.py:
    at 1024, 4096 and 10000 columns within 2% of the fastest (TILE_M,
    warps) of rms_norm, layer_norm and softmax, bench/results/
    2026-11-28-h200-row-shapes.log; at 16384 columns softmax on 16 warps
    ran 0.91 of the device copy where 8 ran 0.74, and at 10000 columns 8
    warps 0.96 where 16 ran slower, bench/results/
    2026-11-30-h200-row-tiles.md.)"""
    if tile_n < 1024:
        return max(1, 4096 // tile_n), 4
    if tile_n <= 8192:
        return 1, min(8, max(2, _pow2(tile_n) // per_warp))
    return 1, min(16, (_pow2(tile_n + 1) >> 1) // 1024)


def _vector(torch, t, name, n, dtype, device):
    if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 1 or \
            t.shape[0] != n or t.dtype != dtype or t.stride(0) != 1:
        raise ArgumentError(f"{name}: expected a contiguous ({n},) CUDA "
                            f"tensor of {str(dtype).replace('torch.', '')}")
    if t.device != device:
        raise ArgumentError(f"{name}: on {t.device}, not on the input's "
                            f"{device}")


def _eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or \
            not eps >= 0:
        raise ArgumentError(f"eps: expected a float >= 0, got {eps!r}")
    return float(eps)


def _out(torch, out, like, rows):
    """The output (`out`, checked, or a new tensor like `like`) and its
    (rows, N) view."""
    if out is None:
        y = torch.empty(like.shape, device=like.device, dtype=like.dtype)
        return y, y if y.dim() == 2 else y.view(rows.shape)
    if not isinstance(out, torch.Tensor) or out.shape != like.shape or \
            out.dtype != like.dtype or out.device != like.device:
        raise ArgumentError(f"out: expected a tensor of shape "
                            f"{tuple(like.shape)} and dtype {like.dtype} on "
                            f"{like.device}")
    if not out.is_contiguous():
        raise ArgumentError("out: must be contiguous")
    return out, out if out.dim() == 2 else out.view(rows.shape)


def _norm(kind, x, weight, bias, eps, out):
    import torch
    rows, dtype = _rows(torch, x, "x", (torch.float16, torch.bfloat16,
                                         torch.float32))
    n = rows.shape[1]
    most = MAX_NORM_COLUMNS_F32 if dtype == "f32" else MAX_NORM_COLUMNS
    if n > most:
        raise ArgumentError(f"x: rows of {n} elements are longer than the "
                            f"{most} a block holds ({x.dtype})")
    _vector(torch, weight, "weight", n, x.dtype, x.device)
    if kind == "layernorm":
        _vector(torch, bias, "bias", n, x.dtype, x.device)
    eps = _eps(eps)
    y, y_rows = _out(torch, out, x, rows)
    r = rows.shape[0]
    if r == 0:
        return y
    args = (rows, weight, bias, y_rows, eps) if kind == "layernorm" else \
        (rows, weight, y_rows, eps)
    key = (kind, dtype, n)
    found = _row_kernels.get(key)
    if found is None:
        tile_n = _row_tile(n)
        # layernorm holds twice rmsnorm's registers across its reductions:
        # fewer warps, more rows an SM (bench/row_shapes.py: 4096 columns
        # on 4 warps 0.92 of the device copy where 8 ran 0.87-0.91, 10000
        # on 4 0.89 where 8 ran 0.84; rmsnorm and softmax there: 8).
        layer = kind == "layernorm"
        tile_m, warps = _shape_for(tile_n, 1024 if layer else 512)
        if layer and 8192 < tile_n < 16384:
            warps //= 2
        if 512 < n < 1024 and n & (n - 1):
            # Rows of 513-1023 columns in tiles of their own width on 2
            # warps (a row, or two for layernorm, a block) rather than 4 a
            # block in tiles of 1024, a quarter of whose lanes at 768 had
            # nothing to load. H200, bf16, 65536 rows (.gpu/probe6.py,
            # 2026-11-30-h200-silu-and-clusters.md): layernorm at 640 / 768 /
            # 896 columns 0.76 / 0.84 / 0.91 -> 0.95 / 0.97 / 0.97 of the
            # copy, rmsnorm 0.97 / 0.96 / 0.97 -> 0.96 / 0.98 / 0.99.
            tile_n, tile_m, warps = n, (2 if layer else 1), 2
        # layernorm's shift (kernels/norms.tile): the mean of 32 elements
        # for f32 rows, whose result shows f32's last bits.
        shift = {"SHIFT": 32} if layer and dtype == "f32" else {}
        # A tile of the row's own width: no column mask (EVEN).
        if layer and tile_n == n:
            shift["EVEN"] = True
        loops = _row_loop_configs(kind, dtype, n, tile_n, warps) if \
            tile_m == 1 and torch.cuda.get_device_capability(x.device) >= \
            (9, 0) else []
        found = _row_kernels[key] = (
            None if loops else
            _compile("norms.tile", kind, DTYPE=dtype, TILE_M=tile_m,
                     TILE_N=tile_n, num_warps=warps, **shift), tile_m,
            dict(TILE_N=tile_n, **shift), loops)
    k, tile_m, constants, loops = found
    if loops:
        # Tuned per power of two of the rows: the row loop's grid is a few
        # blocks a multiprocessor (blocks: that many, or 0 for one row a
        # block).
        rows_class = min(_pow2(r), 1 << 20)
        tuned = _row_kernels.get((key, rows_class))
        if tuned is None:
            sms = _sm_count(torch, x.device)

            def blocks(config):
                # 16 warps' worth of row loops a multiprocessor.
                return sms * 16 // config.options["num_warps"] \
                    if config.constants.get("ROW_LOOP") else 0
            k = _autotuned("norms.tile", kind, f"{dtype}:N={n}:R={rows_class}",
                           lambda c: (min(r, blocks(c)) or r,),
                           lambda: _rotated(torch, x.device, args, (0,)),
                           loops, DTYPE=dtype, TILE_M=1, **constants)
            tuned = _row_kernels[(key, rows_class)] = (k, blocks(k.config))
        k, most = tuned
        k.launch(min(r, most) or r, *args)
        return y
    k.launch((r + tile_m - 1) // tile_m, *args)
    return y


def _row_loop_configs(kind, dtype, n, tile_n, warps):
    """For long rows (one a block) on sm_90, what tilec.ops tunes over: the
    one-row-a-block kernel on `warps` (first: what TILEC_AUTOTUNE=off
    takes), and norms.tile's ROW_LOOP (each block's rows in a loop, the
    weights loaded once, the next row in flight while this one is reduced)
    where it compiles without spills (ptxas, sm_90a) and rows are 16-byte
    multiples (the copy ahead moves 16 bytes at least). [] for other rows.
    layernorm above 8192 columns: 8 warps, rows 2 trips ahead (up to 24576
    bf16, 16384 f16, 12288 f32 columns), and for bf16 and f16 4 warps, 1
    ahead (up to 12288; f16's spilled until tile-rematerialize-addresses
    converted the weights, held as f16, in the loop: 255 -> 220
    registers); rmsnorm above 16384 (its one-row kernel runs 16 warps
    there): 8 warps, 1 ahead (up to 32768 bf16, 24576 f16). (H200,
    graph-timed, of the device copy, one-row blocks / row loop: layernorm
    bf16 4096 x 10000 0.89 / 0.92, 4096 x 12288 0.84 / 0.92, 2048 x 16384
    0.81 / 0.88, 2048 x 20000 0.62 / 0.76, f32 4096 x 10000 0.84 / 0.88,
    f16 4096 x 10000 0.90 / 0.83 (hence tuned); rmsnorm bf16 2048 x 20000
    0.74 / 0.90, 1024 x 32768 0.85 / 0.91, 2048 x 16384 0.93 / 0.88-0.93;
    bench/results/2026-12-01-h200-swapped-skinny.md.)"""
    from . import Config
    if n * (4 if dtype == "f32" else 2) % 16:
        return []
    configs = [Config(num_warps=warps)]
    if kind == "layernorm" and tile_n > 8192:
        if tile_n <= {"bf16": 24576, "f16": 16384, "f32": 12288}[dtype]:
            configs.append(Config(ROW_LOOP=True, LATENCY=3, num_warps=8))
        if dtype in ("bf16", "f16") and tile_n <= 12288:
            configs.append(Config(ROW_LOOP=True, LATENCY=2, num_warps=4))
    elif kind == "rmsnorm" and tile_n > 16384 and \
            tile_n <= {"bf16": 32768, "f16": 24576, "f32": 0}[dtype]:
        configs.append(Config(ROW_LOOP=True, LATENCY=2, num_warps=8))
    return configs if len(configs) > 1 else []


def rms_norm(x, weight, eps=1e-6, out=None):
    """x / sqrt(mean(x^2, last dim) + eps) * weight, as
    torch.nn.functional.rms_norm(x, (N,), weight, eps) computes it (f16,
    bf16 or f32; weight of x's dtype, (N,))."""
    return _norm("rmsnorm", x, weight, None, eps, out)


def layer_norm(x, weight, bias, eps=1e-5, out=None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dimension
    (the biased variance), as torch.nn.functional.layer_norm(x, (N,),
    weight, bias, eps) computes it."""
    return _norm("layernorm", x, weight, bias, eps, out)


def softmax(x, dim=-1, out=None):
    """torch.softmax(x, dim) for dim the last dimension: rows of up to
    16384 held whole; on sm_90 rows of up to 16 x 20480 held by the blocks
    of a thread block cluster, each a part, read once; the others read in
    chunks twice (online softmax)."""
    import torch
    _last_dim(x, dim)
    rows, dtype = _rows(torch, x, "x", (torch.float16, torch.bfloat16,
                                         torch.float32))
    n = rows.shape[1]
    y, y_rows = _out(torch, out, x, rows)
    r = rows.shape[0]
    if r == 0:
        return y
    if n <= MAX_SINGLE_PASS_COLUMNS:
        tile_n = _row_tile(n)
        tile_m, warps = _shape_for(tile_n)
        k = _compile("softmax.tile", "softmax", DTYPE=dtype, TILE_M=tile_m,
                     TILE_N=tile_n, num_warps=warps)
    elif n <= MAX_CLUSTER_SOFTMAX_COLUMNS and \
            torch.cuda.get_device_capability(x.device) >= (9, 0):
        # The row's parts in the blocks of a cluster, which gather each
        # other's max and sum through their shared memory: the row read
        # once (_softmax_cluster_shape).
        # Rows of more than 32768 columns in parts of at most 8192 (8 or
        # 16) on 4 warps, a cluster looping over rows (ROW_LOOP), the next
        # row's part on its way while this one's are exchanged; one block a
        # multiprocessor fewer than fit (clusters of 8 and 16 do not fill
        # the last). H200, bf16, of the copy, row loop / one row a cluster:
        # 256 x 131072 0.84 / 0.74 (at 5 blocks of 5 a multiprocessor
        # 0.71), 512 x 65536 0.86 / 0.84, 1024 x 40960 0.87 / 0.85;
        # 2048 x 32768 0.87 / 0.89; bench/results/
        # 2026-12-01-h200-swapped-skinny.md.
        parts, tile_n, warps = _softmax_cluster_shape(n, 8192, 8)
        if n > 32768 and tile_n <= 8192:
            k = _compile("softmax_cluster.tile", "softmax_cluster",
                         DTYPE=dtype, CLUSTER=parts, TILE_N=tile_n,
                         ROW_LOOP=True, num_warps=warps)
            sms = _sm_count(torch, x.device)
            blocks = max(k.blocks_per_sm - 1, 1) * sms // parts * parts
            k.launch(max(parts, min(r * parts, blocks)), rows, y_rows)
            return y
        cluster, tile_n, warps = _softmax_cluster_shape(n)
        # 16-bit parts held as read, their exponentials computed twice,
        # where held in f32 they would take more than 64 registers a
        # thread: half the registers, more blocks a multiprocessor (H100,
        # bf16, of the copy: 512 x 327680 in 16 parts of 20480 on 8 warps
        # 0.82 -> 0.94; where f32 held leaves as many blocks, the second
        # exponentials only cost: 2048 x 32768 in 4 parts of 8192 on 4
        # warps 0.95 -> 0.92; bench/results/
        # 2026-12-05-memory-bound-rows.md).
        hold = dtype != "f32" and tile_n > 64 * 32 * warps
        k = _compile("softmax_cluster.tile", "softmax_cluster", DTYPE=dtype,
                     CLUSTER=cluster, TILE_N=tile_n, HOLD_INPUT=hold,
                     num_warps=warps)
        k.launch(r * cluster, rows, y_rows)
        return y
    else:
        # Chunks of at most 16384 on 16 warps (1024 x 32768: 0.76 of the
        # copy, 8192 on 8 warps 0.73; bench/loop_shapes.py).
        tile_m = 1
        k = _compile("softmax_looped.tile", "softmax_looped", DTYPE=dtype,
                     TILE_M=1, TILE_N=_chunk_tile(n, 16384), num_warps=16)
    k.launch((r + tile_m - 1) // tile_m, rows, y_rows)
    return y


def _cross_entropy_shape(torch, device, rows, v):
    """(blocks a row is split over, warps a block, chunk width) for
    cross-entropy: 16 logits a thread a chunk (two 16-byte loads of 16-bit
    logits), and enough warps on each multiprocessor: 8 warps a block where
    the rows give at most 8 blocks a multiprocessor, else 4; on sm_90 a row
    split over a cluster of 2 below 4 rows a multiprocessor (4 below one,
    8 below half), 4 warps each reading chunks of up to 4096. H200,
    bench/loop_shapes.py (bf16, of the device copy, GROUP = 8):
    2048 x 50257 (flat) 2016 columns on 4 warps 0.90, 8 warps 0.85;
    1024 x 128256 4008 on 8 warps 0.96, on 4 warps 0.74 (ops.py); 4096 x
    32000 2000 on 4 warps 0.97; 512 x 128256 and 256 x 50257 in clusters
    of 2 0.88 (4008 and 3872 on 4 warps; 4 or 8 blocks 0.80-0.82)."""
    sms = _sm_count(torch, device)
    if rows and rows < 4 * sms and \
            torch.cuda.get_device_capability(device) >= (9, 0):
        cluster = 8 if 2 * rows < sms else 4 if rows < sms else 2
        # (Each block at least two chunks.)
        while cluster > 1 and v < cluster * 2 * 4096:
            cluster //= 2
        if cluster > 1:
            return cluster, 4, _chunk_tile(v, 4096)
    warps = 8 if rows <= 8 * sms else 4
    return 1, warps, _chunk_tile(v, 16 * 32 * warps)


def cross_entropy(logits, target, ignore_index=-100, return_lse=False):
    """torch.nn.functional.cross_entropy(logits, target, reduction="none",
    ignore_index=ignore_index) for logits (rows, V) of f16, bf16 or f32 and
    target (rows,) int32 or int64 class indices (read as they are): the f32
    loss per row (0
    where target == ignore_index), and with return_lse=True also each row's
    log-sum-exp (f32), what a backward needs. A target outside [0, V)
    other than ignore_index gives a NaN loss (not an error: no pass over the
    targets)."""
    import torch
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ArgumentError("logits: expected a 2-D CUDA tensor (rows, V)")
    rows, dtype = _rows(torch, logits, "logits",
                        (torch.float16, torch.bfloat16, torch.float32))
    r, v = rows.shape
    if not isinstance(target, torch.Tensor) or not target.is_cuda or \
            target.dim() != 1 or target.shape[0] != r or \
            target.dtype not in (torch.int32, torch.int64):
        raise ArgumentError(f"target: expected a ({r},) int32 or int64 CUDA "
                            f"tensor")
    if target.device != logits.device:
        raise ArgumentError(f"target: on {target.device}, not on the "
                            f"logits' {logits.device}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int) \
            or not -2**31 <= ignore_index < 2**31:
        raise ArgumentError(f"ignore_index: expected an int32, got "
                            f"{ignore_index!r}")
    # The targets read as they are, in their own type (a conversion to
    # int32 was a kernel of its own: 2048 x 50257 at 0.83 of the copy where
    # the kernel alone ran 0.87).
    t = target.contiguous()
    tdtype = "i64" if t.dtype == torch.int64 else "i32"
    loss = torch.empty(r, device=logits.device, dtype=torch.float32)
    lse = torch.empty(r, device=logits.device, dtype=torch.float32)
    cluster, warps, chunk = _cross_entropy_shape(torch, logits.device, r, v)
    # The running max and sum per 16 bytes of logits (a thread's own
    # vector): no reduction across threads in the loop.
    group = 16 // rows.element_size()
    # Contiguous rows, read through the flat view (i32 element offsets).
    flat = r and rows.stride(0) == v and r * v < 2**31 - 2 * 4096
    if flat and cluster > 1:
        # Few rows: each split over the blocks of a cluster (sm_90).
        k = _compile("cross_entropy.tile", "cross_entropy_cluster",
                     DTYPE=dtype, IGNORE=ignore_index, TDTYPE=tdtype,
                     CLUSTER=cluster, TILE_N=chunk, GROUP=group,
                     num_warps=warps)
        k.launch(r * cluster, rows.view(-1), t, loss, lse, v)
    elif flat and (v * rows.element_size()) % 16:
        # Rows that do not start 16-byte aligned: read through the flat
        # view in aligned chunks (the 2-D kernel's loads would be single
        # elements: 0.53 of the copy at 2048 x 50257), two 16-byte loads a
        # thread, a row's ends in chunks of one (H100, 2048 x 50257: 0.93
        # of the copy; all chunks 2016 wide, 0.90; bench/results/
        # 2026-12-05-memory-bound-rows.md).
        edge = 16 // rows.element_size() * 32 * warps
        k = _compile("cross_entropy.tile", "cross_entropy_flat", DTYPE=dtype,
                     IGNORE=ignore_index, TDTYPE=tdtype, TILE_N=2 * edge,
                     EDGE=edge, GROUP=group, num_warps=warps)
        k.launch(r, rows.view(-1), t, loss, lse, v)
    elif r:
        k = _compile("cross_entropy.tile", "cross_entropy", DTYPE=dtype,
                     IGNORE=ignore_index, TDTYPE=tdtype, TILE_M=1,
                     TILE_N=chunk, GROUP=group, num_warps=warps)
        k.launch(r, rows, t, loss, lse)
    return (loss, lse) if return_lse else loss


_ACTIVATIONS = {None: 0, "relu": 1, "gelu_tanh": 2, "silu": 3}


def _matrix(torch, t, name, dims, wide=False):
    """t a `dims`-D CUDA tensor of 16-bit floats (`wide`: or float32) whose
    rows are 16-byte aligned."""
    if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != dims:
        raise ArgumentError(f"{name}: expected a {dims}-D CUDA tensor")
    if t.dtype not in (torch.float16, torch.bfloat16) and \
            not (wide and t.dtype == torch.float32):
        raise ArgumentError(f"{name}: expected float16, bfloat16" +
                            (" or float32" if wide else "") + ", got " +
                            str(t.dtype).replace('torch.', ''))
    if t.stride(-1) != 1:
        raise ArgumentError(f"{name}: its last dimension must be contiguous")
    if any(s % 8 for s in t.stride()[:-1]) or t.data_ptr() % 16:
        raise ArgumentError(f"{name}: its rows must start 16-byte aligned "
                            f"(strides a multiple of 8 elements)")


def _autotuned(file, kernel, key, grid, args, configs=None, **constants):
    """`kernel` of `file` tuned once for the problem class `key` over
    `configs`, by default its @tune tiles, each with the compiler's
    schedules (tilec.autotune with tilec.tune_space_configs: the choice,
    rings of 2, 3 and 4 stages, persistent, two consumer groups), or a
    callable returning them. `args`: the launch's arguments, or a callable
    returning what tilec.autotune takes. (Both callables are called only
    when the class is not tuned yet: argument sets cost copies, and a call
    of a tuned class builds no candidates.)"""
    from . import autotune, tune_space_configs
    full = (file, kernel, key, tuple(constants.items()))
    k = _tuned.get(full)
    if k is None:
        if callable(configs):
            configs = configs()
        if configs is None:
            configs = tune_space_configs(_compile(file, kernel, **constants))
        k = _tuned[full] = autotune(
            _kernel_path(file), configs, f"tilec.ops.{kernel}:{key}", grid,
            args() if callable(args) else args, kernel=kernel, **constants)
    return k


#: Skinny multiplies (at most this many rows) also try splitting K.
SPLIT_K_MAX_ROWS = 128

# (device, stream) -> f32 partial products of linear.tile's split-K, one
# buffer per stream (a stream's launches run in order, so that they may
# share it; launches on other streams get their own), grown as needed.
_partials = {}


def _split_k_workspace(torch, device, splits, m, n, tiles):
    """Views of this device and stream's split-K workspace: the f32 partial
    products (splits, m, n) and one ticket per output tile (_kernels.
    tickets). A plan keeps the views it was given; a larger problem grows
    the workspace (at least doubling it), leaving earlier plans their
    buffers."""
    key = (device, current_stream(None))
    part = _partials.get(key)
    floats = splits * m * n
    if part is None or part.numel() < floats:
        part = _partials[key] = torch.empty(
            max(floats, 2 * (part.numel() if part is not None else 0)),
            device=device, dtype=torch.float32)
    return part[:floats].view(splits, m, n), _tickets(torch, device, tiles)


def _k_splits(k, tile_k, tiles, sms):
    """The blocks a skinny product's output tile may share its K among: 1,
    and 2 or 4 while each keeps at least 4 K tiles and the blocks are at
    most 4 waves."""
    return [s for s in (1, 2, 4)
            if s == 1 or ((k + tile_k - 1) // tile_k >= 4 * s and
                          tiles * s <= 4 * sms)]


def _linear_split_configs(m, n, k, sms, clusters=False, dependent=False):
    """Candidates for a skinny product: 64-row tiles, N tiles of 32, 64 and
    128, K tiles of 128 in rings of 4 and 6 stages and of 256 in rings of 3
    and 4 (and of 64 in 4 and 6 where K is at most 1024), as fit 200 KB of
    shared memory (with few blocks, deep rings keep the loads in flight,
    where the compiler's choice would keep rings shallow for blocks that
    are not there); K shared by 1, 2 or 4 blocks per tile while each keeps
    at least 4 K tiles and the blocks are at most 4 waves. (H200, bf16, graph-timed: 64 x 4096 x 4096 ran 50 us at the
    default 2 stages, 15-20 at 4-6; 8 splits lost to 2-4 everywhere; 64 x
    32 tiles with K tiles of 256 in 4 stages, 192 KB in flight, ran 0.87x
    cuBLAS where K tiles of 64 in 8 stages, 96 KB, ran 0.65x and of 128 in
    4, 0.78x: fewer, larger copies a stage. cuBLAS itself runs 64 x 32
    tiles, 16 stages of 64.) With `dependent` (sm_90), a candidate for at
    most 64 rows whose tiles (times its K splits) are at most one a
    multiprocessor is compiled with dependent_launch: the kernel (a few us,
    one wave) starts under the kernel before it in the stream. (H200, bf16,
    CUDA graphs: linear 64 x 4096 x 4096 0.92 -> 1.01 of torch, 16 x 4096
    x 4096 1.06 -> 1.16; at 128 x 8192 x 8192 it lost, 1.00 -> 0.85 with
    or without the one-wave bound, not understood;
    2026-12-04-h200-dependent-launch.md.)"""
    from . import Config as _Config

    def Config(**kwargs):
        tm, tn = kwargs["TILE_M"], kwargs["TILE_N"]
        blocks = ((m + tm - 1) // tm) * ((n + tn - 1) // tn) * kwargs["SPLITS"]
        if dependent and m <= 64 and blocks <= sms:
            kwargs["dependent_launch"] = True
        return _Config(**kwargs)
    configs = []
    for tn in (32, 64, 128):
        tiles = ((m + 63) // 64) * ((n + tn - 1) // tn)
        for tk, depths in (((64, (4, 6)),) if k <= 1024 else ()) + \
                ((128, (4, 6)), (256, (3, 4))):
            stage = (64 + tn) * tk * 2
            for stages in depths:
                if stages * stage > 200 * 1024:
                    continue
                for s in _k_splits(k, tk, tiles, sms):
                    configs.append(Config(TILE_M=64, TILE_N=tn, TILE_K=tk,
                                          SPLITS=s, num_stages=stages))
                    # K tiles of 256 also with a producer warp (64 x 32, 4
                    # stages: 0.91x cuBLAS where 0.87 without); K not split
                    # (64 x 64 in two splits with the producer warp, X read
                    # half as often: 14.0-15.1 us against 12.5-13.5,
                    # 2026-11-30-h200-row-tiles).
                    if tk == 256 and s == 1:
                        configs.append(Config(
                            TILE_M=64, TILE_N=tn, TILE_K=tk, SPLITS=s,
                            num_stages=stages, warp_specialize=True))
    # At most 32 rows, the product swapped (linear.tile's SWAP_AB): W's
    # 64-row tiles as the multiply's A, X's rows (16 or 32) its narrow N,
    # so that a stage holds no padding rows of X. (H200, bf16, graph-timed,
    # 16 x 4096 x 4096: 12.6-12.8 us against 15.2 for the best 64-row tile
    # and cuBLAS's 13.4; at 64 rows the swapped product lost, 13.9 against
    # 12.7; bench/results/2026-12-01-h200-swapped-skinny.md.)
    if m <= 32:
        tm = 16 if m <= 16 else 32
        tiles = (n + 63) // 64
        for tk, depths in ((128, (3, 4, 6)), (256, (3, 4))):
            for stages in depths:
                if stages * (64 + tm) * tk * 2 > 200 * 1024:
                    continue
                for s in _k_splits(k, tk, tiles, sms):
                    for spec in (False, True):
                        configs.append(Config(
                            TILE_M=tm, TILE_N=64, TILE_K=tk, SPLITS=s,
                            SWAP_AB=True, num_warps=4, num_stages=stages,
                            warp_specialize=spec))
    # On sm_90, 64 x 64 tiles in clusters of 4 along N, which share X's
    # tile (multicast), K tiles of 256 in 3 stages with a producer warp:
    # 16 x 4096 x 4096 ran 0.885 of cuBLAS where the best above ran 0.755
    # (64 x 4096 x 4096: 0.73 against 0.93; H200,
    # 2026-11-30-h200-buffers-at-their-own-size.md).
    if clusters and k >= 4 * 256:
        configs.append(Config(TILE_M=64, TILE_N=64, TILE_K=256, SPLITS=1,
                              num_stages=3, warp_specialize=True, cluster=4,
                              CLUSTER_N=4))
    return configs


def _wave_fit_tile(m, n, sms):
    """The (TILE_M, TILE_N) of 128 or 256 rows and 128 to 256 columns in
    eights whose tiles fill the multiprocessors' last wave best, where that
    beats the power-of-two tiles (and 256 x 160) by more than 3%, else None.
    The fraction of the waves' tile area that is the product's, m n /
    (waves x SMs x TILE_M x TILE_N), counts both the tiles past the matrix's
    edges and the idle multiprocessors of the last wave; ties go to the
    larger tile. cuBLAS runs 3000 x 5000 x 1000 on 152 x 256 tiles, 396 of
    them: three waves of 132 (its kernel's name says so). Widths of no
    swizzle's block (152 halves: 304 bytes) are stored through rows at
    their own width, one TMA box a tile (tile-convert-stores-to-tma)."""
    def filled(tm, tn):
        tiles = -(-m // tm) * -(-n // tn)
        waves = -(-tiles // sms)
        return m * n / (waves * sms * tm * tn)
    base = max(filled(tm, tn) for tm, tn in
               ((64, 128), (64, 256), (128, 128), (128, 256), (256, 160)))
    fit, tm, tn = max((filled(tm, tn), tm, tn) for tm in (128, 256)
                      for tn in range(128, 257, 8))
    return (tm, tn) if fit > 1.03 * base else None


def _cluster_configs(kernel):
    """A GEMM kernel's candidates beyond its @tune tiles with the compiler's
    schedules (tilec.tune_space_configs): each tile persistent in clusters
    of 2 whose blocks take neighbouring tiles along M (sharing the B
    operand's tile, multicast: CLUSTER_M) or along N (the A operand's).
    linear.tile and bmm.tile take CLUSTER_M / CLUSTER_N so. (H200,
    2026-11-30: linear's 128 x 256 in pairs along M ran 3000x5000x1000 at
    0.90 of cuBLAS where the best without clusters ran 0.79, 4096^3 0.96
    from 0.94; bench/results/2026-11-30-h200-gemm-tiles-and-skinny-
    tuning.md.)"""
    from . import tune_space_configs
    configs = tune_space_configs(kernel)
    tiles = []
    for c in configs:
        tile = (c.constants.get("TILE_M"), c.constants.get("TILE_N"))
        if None not in tile and tile not in tiles:
            tiles.append(tile)
    return configs + _cluster_pairs(tiles)


def _cluster_pairs(tiles):
    """Each (TILE_M, TILE_N) of `tiles` persistent in clusters of 2 along M
    and along N (_cluster_configs)."""
    from . import Config
    return [Config(TILE_M=tm, TILE_N=tn, persistent=True, cluster=2,
                   auto_schedule=True, **{along: 2})
            for tm, tn in tiles for along in ("CLUSTER_M", "CLUSTER_N")]


def _cluster_grid(m, n, config, *rest):
    """The grid of a GEMM kernel taking units of CLUSTER_M x CLUSTER_N
    tiles (linear.tile, bmm.tile): whole units along x, then `rest`."""
    c = config.constants
    tm = c.get("TILE_M", 128) * c.get("CLUSTER_M", 1)
    tn = c.get("TILE_N", 128) * c.get("CLUSTER_N", 1)
    return (((m + tm - 1) // tm) * ((n + tn - 1) // tn) *
            c.get("CLUSTER_M", 1) * c.get("CLUSTER_N", 1),) + rest


def _linear_cluster_configs(kernel, fit=None):
    """What linear.tile is tuned over beyond the skinny products:
    _cluster_configs, and the tiles below."""
    from . import Config
    configs = _cluster_configs(kernel)
    # 256 x 160 tiles in 4 stages, which fit since a ring's stage takes only
    # the blocks its tile reaches (tile.slot_bytes: 56 KiB, not 64): 0.93 of
    # cuBLAS at 3000x5000x4000 where the best above ran 0.90, 0.98 at 8192^3
    # (H200, 2026-11-30-h200-buffers-at-their-own-size.md).
    configs.append(Config(TILE_M=256, TILE_N=160, num_stages=4,
                          auto_schedule=True))
    # The tile that fills the waves (_wave_fit_tile), not persistent, and
    # persistent with rings of 3 stages (the tile's staging for its TMA
    # store fits beside them in two parts of whole rows) and of 4 (staged in
    # four parts, two of them in the slots the K loop holds), alone and in
    # pairs along M. (H200, 3000 x 5000: 256 x 152 ran 0.97 of cuBLAS at
    # K = 4000 where 128 x 256 in pairs ran 0.89, 0.88 at K = 1000 as they
    # did, bench/results/2026-12-02-h200-wave-fit-tiles.md; in pairs at 4
    # stages 0.91 at K = 1000, as 128 x 256 in pairs, where 3 stages ran
    # 0.88, bench/results/2026-12-04-h200-ragged-parts.md.)
    if fit:
        tm, tn = fit
        configs += [Config(TILE_M=tm, TILE_N=tn, auto_schedule=True),
                    Config(TILE_M=tm, TILE_N=tn, persistent=True,
                           num_stages=3, auto_schedule=True)]
        configs += [Config(TILE_M=tm, TILE_N=tn, persistent=True, cluster=2,
                           CLUSTER_M=2, num_stages=stages,
                           auto_schedule=True) for stages in (3, 4)]
    return configs


def linear(x, weight, bias=None, activation=None, out=None):
    """activation(x @ weight.T + bias), torch.nn.functional.linear with the
    activation fused into the multiply's epilogue: x (..., K), weight (N, K)
    as nn.Linear holds it, bias (N,) or None; activation None, "relu",
    "gelu_tanh" (gelu(approximate="tanh")) or "silu". f16 or bf16, f32
    accumulation; or f32 multiplied as tf32 on the tensor cores where
    PyTorch allows its own float32 matmuls tf32 (_tf32_allowed), as
    torch.nn.functional.linear then does."""
    import torch
    if activation not in _ACTIVATIONS:
        raise ArgumentError(f"activation: expected one of None, 'relu', "
                            f"'gelu_tanh', 'silu', got {activation!r}")
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise ArgumentError("x: expected a CUDA tensor (..., K)")
    rows, dtype = _rows(torch, x, "x", (torch.float16, torch.bfloat16,
                                        torch.float32))
    if x.dtype == torch.float32 and not _tf32_allowed(torch):
        raise ArgumentError(
            "x: float32 is multiplied as tf32 on the tensor cores (10 bits "
            "of mantissa; tilec has no exact float32 multiply): allow it "
            "as for torch's own matmuls, torch.backends.cuda.matmul."
            "allow_tf32 = True or torch.set_float32_matmul_precision("
            "'high')")
    _matrix(torch, rows, "x", 2, wide=True)
    _matrix(torch, weight, "weight", 2, wide=True)
    m, k = rows.shape
    n = weight.shape[0]
    if weight.shape[1] != k or weight.dtype != x.dtype or \
            weight.device != x.device:
        raise ArgumentError(f"weight: expected ({n}, {k}) of x's dtype "
                            f"{str(x.dtype).replace('torch.', '')} on "
                            f"{x.device}, got {tuple(weight.shape)} "
                            f"{str(weight.dtype).replace('torch.', '')}")
    if n % 8:
        raise ArgumentError(f"weight: its {n} rows (the output features) "
                            f"must be a multiple of 8")
    if bias is not None:
        _vector(torch, bias, "bias", n, x.dtype, x.device)
    shape = tuple(x.shape[:-1]) + (n,)
    if out is None:
        out = torch.empty(shape, device=x.device, dtype=x.dtype)
    elif not isinstance(out, torch.Tensor) or tuple(out.shape) != shape or \
            out.dtype != x.dtype or not out.is_contiguous():
        raise ArgumentError(f"out: expected a contiguous tensor of shape "
                            f"{shape} and dtype {x.dtype}")
    if m == 0:
        return out
    y = out.view(m, n)
    has_bias = bias is not None
    key = (x.dtype, m, n, k, has_bias, activation, x.device,
           current_stream(None))
    plan = _linear_plans.get(key)
    if plan is None:
        plan = _linear_plan(torch, x, rows, weight, bias, y, activation,
                            dtype)
        if len(_linear_plans) >= 1024:
            _linear_plans.clear()
        _linear_plans[key] = plan
    kern, grid, partial, tickets, no_bias = plan
    kern.launch(grid, rows, weight, bias if has_bias else no_bias, y,
                partial, tickets)
    return out


# (dtype, M, N, K, bias?, activation, device, stream) -> (kernel, grid,
# split-K workspace): what a call with arguments seen before launches.
_linear_plans = {}


def _tf32_allowed(torch):
    """Whether PyTorch multiplies float32 matrices as tf32 (its
    allow_tf32 flag, or fp32_precision "tf32" where torch has it)."""
    matmul = torch.backends.cuda.matmul
    precision = getattr(matmul, "fp32_precision", None)
    if precision is not None and precision != "none":
        return precision == "tf32"
    return bool(matmul.allow_tf32)


def _linear_plan(torch, x, rows, weight, bias, y, activation, dtype):
    """linear.tile for this problem: tuned once per problem class (dtype,
    the rows' power of two, N, K, bias, activation) over its @tune tiles
    with the compiler's schedules and, on sm_90, in clusters of 2
    (_linear_cluster_configs), or for a skinny product (at most
    SPLIT_K_MAX_ROWS rows) over tiles of 64 rows with K split in 1, 2 or 4;
    with the split-K workspace of this device and stream. `dtype`: x's as
    the DSL names it."""
    m, k = rows.shape
    n = weight.shape[0]
    # f32 (tf32) tiles of 32 elements of K, a 128-byte row of the swizzle;
    # tuned over the kernel's own tiles with the compiler's schedules (the
    # split-K and cluster candidates below are sized for 16-bit elements).
    wide = {"TILE_K": 32} if dtype == "f32" else {}
    # The bias the kernel does not read without one.
    no_bias = torch.zeros(8, device=x.device, dtype=x.dtype)
    has_bias = bias is not None
    b = bias if has_bias else no_bias
    configs = None
    if m <= SPLIT_K_MAX_ROWS and not wide:
        sm90 = torch.cuda.get_device_capability(x.device) >= (9, 0)
        configs = _linear_split_configs(
            m, n, k, _sm_count(torch, x.device), clusters=sm90,
            dependent=sm90)
    most = max((c.constants.get("SPLITS", 1) for c in configs or ()),
               default=1)
    # One ticket per tile of the smallest tiles tried.
    tile_m = min((c.constants.get("TILE_M", 64) for c in configs or ()),
                 default=64)
    tiles = ((m + tile_m - 1) // tile_m) * ((n + 63) // 64)
    partial, tickets = _split_k_workspace(torch, x.device, most, m, n, tiles) \
        if most > 1 else _split_k_workspace(torch, x.device, 1, 1, 1, 1)

    fit = None
    if configs is None and not wide and \
            torch.cuda.get_device_capability(x.device) >= (9, 0):
        fit = _wave_fit_tile(m, n, _sm_count(torch, x.device))
        configs = _linear_cluster_configs(_compile(
            "linear.tile", "linear", DTYPE=dtype, HAS_BIAS=has_bias,
            ACT=_ACTIVATIONS[activation]), fit)

    def grid(config):
        # Whole units of CLUSTER_M x CLUSTER_N tiles (see linear.tile).
        return _cluster_grid(m, n, config,
                             config.constants.get("SPLITS", 1))
    args = (rows, weight, b, y, partial, tickets)
    if configs is not None:
        # Timed with x and the weight read from memory, as a model reads
        # them: a skinny product is memory-bound on the weight (one held in
        # L2 picked splits and tiles that ran 5-10% slower from memory);
        # the other classes on sm_90 are tuned so too (measured so,
        # 2026-11-30), at most twice the L2 of copies.
        args = (lambda args=args: _rotated(torch, x.device, args, (0, 1)))
    kern = _autotuned("linear.tile", "linear",
                      f"{dtype}:M={min(_pow2(m), 8192)}:N={n}:K={k}" +
                      (f":fit={fit[0]}x{fit[1]}" if fit else ""), grid,
                      args, configs,
                      DTYPE=dtype, HAS_BIAS=has_bias,
                      ACT=_ACTIVATIONS[activation], **wide)
    # The launches keep the chosen split's part of the workspace only.
    splits = kern.config.constants.get("SPLITS", 1)
    if splits == 1:
        partial, tickets = _split_k_workspace(torch, x.device, 1, 1, 1, 1)
    else:
        partial = partial[:splits]
    return kern, grid(kern.config), partial, tickets, no_bias


def bmm(a, b, out=None):
    """torch.bmm(a, b): a (batch, M, K), b (batch, K, N), f16 or bf16, f32
    accumulation; the result (batch, M, N)."""
    import torch
    _matrix(torch, a, "a", 3)
    _matrix(torch, b, "b", 3)
    batch, m, k = a.shape
    if b.shape[0] != batch or b.shape[1] != k or b.dtype != a.dtype or \
            b.device != a.device:
        raise ArgumentError(f"b: expected ({batch}, {k}, N) of a's dtype on "
                            f"{a.device}, got {tuple(b.shape)}")
    n = b.shape[2]
    if out is None:
        out = torch.empty(batch, m, n, device=a.device, dtype=a.dtype)
    elif not isinstance(out, torch.Tensor) or \
            tuple(out.shape) != (batch, m, n) or out.dtype != a.dtype or \
            not out.is_contiguous():
        raise ArgumentError(f"out: expected a contiguous ({batch}, {m}, {n}) "
                            f"tensor of a's dtype")
    if batch == 0 or m == 0 or n == 0:
        return out
    if batch >= 65536:
        raise ArgumentError(f"a: a batch of {batch} is more than the grid's "
                            f"65535 along z")
    dtype = "f16" if a.dtype == torch.float16 else "bf16"

    def grid(config):
        # Whole units of CLUSTER_M x CLUSTER_N tiles (see bmm.tile).
        return _cluster_grid(m, n, config, 1, batch)
    args = (a, b, out)
    # (bmm.tile's units in clusters, CLUSTER_M / CLUSTER_N, are not among
    # the candidates: correct (python/tests/test_gpu_ops.py::
    # test_bmm_clusters, H100), but no faster than the persistent 128 x 256
    # tile without them at 16 x 2048^3, either axis, either orientation:
    # 0.95-0.98 of cuBLAS against 0.98, bench/results/
    # 2026-12-07-h100-gemm-tiles-cublas.md.)
    kern = _autotuned("bmm.tile", "bmm",
                      f"{dtype}:B={min(_pow2(batch), 1024)}:M={m}:N={n}:K={k}",
                      grid, args, DTYPE=dtype)
    kern.launch(grid(kern.config), *args)
    return out


def _fp8_matrix(torch, t, name, shape, k_major, dtypes=None,
                caller="torch._scaled_mm"):
    """An 8-bit operand of scaled_mm (or int_mm, `dtypes` (torch.int8,)):
    (rows, K) with K contiguous, or for b, (K, N) column-major (b.T
    contiguous), as torch._scaled_mm (torch._int_mm) takes them; rows
    16-byte aligned (TMA)."""
    dtypes = dtypes or (torch.float8_e4m3fn, torch.float8_e5m2)
    if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 2:
        raise ArgumentError(f"{name}: expected a 2-D CUDA tensor")
    if t.dtype not in dtypes:
        names = " or ".join(str(d).replace("torch.", "") for d in dtypes)
        raise ArgumentError(f"{name}: expected {names}, got "
                            f"{str(t.dtype).replace('torch.', '')}")
    if shape is not None and tuple(t.shape) != shape:
        raise ArgumentError(f"{name}: expected shape {shape}, got "
                            f"{tuple(t.shape)}")
    inner, outer = (1, 0) if k_major else (0, 1)
    if t.shape[0] > 0 and t.shape[1] > 0 and t.stride(inner) != 1 and \
            t.shape[inner] > 1:
        raise ArgumentError(
            f"{name}: expected K contiguous ({'row' if k_major else 'column'}"
            f"-major, as {caller} takes it), got strides "
            f"{tuple(t.stride())}")
    if t.stride(outer) % 16 or t.data_ptr() % 16:
        raise ArgumentError(f"{name}: its K rows must start 16-byte aligned "
                            f"(K a multiple of 16)")


def _fp8_scale(torch, s, name, device):
    """A scale of scaled_mm: a float32 CUDA tensor on a's device."""
    if not isinstance(s, torch.Tensor) or not s.is_cuda or \
            s.dtype != torch.float32:
        raise ArgumentError(f"{name}: expected a float32 CUDA tensor")
    if s.device != device:
        raise ArgumentError(f"{name}: on {s.device}, not on a's {device}")


def _fp8_scales(scale_a, scale_b, m, n):
    """scaled_mm's scaling: 1 (both scales one element: per tensor) or 2
    (scale_a (M, 1), scale_b (1, N): rowwise), with the scales as
    contiguous 2-D tensors ((1, 1) per tensor)."""
    if scale_a.numel() == 1 and scale_b.numel() == 1 and \
            scale_a.dim() <= 2 and scale_b.dim() <= 2:
        return 1, scale_a.reshape(1, 1), scale_b.reshape(1, 1)
    for s, name, shape in ((scale_a, "scale_a", (m, 1)),
                           (scale_b, "scale_b", (1, n))):
        if tuple(s.shape) != shape:
            raise ArgumentError(
                f"{name}: expected shape {shape} (rowwise scales), or both "
                f"scales of one element (per tensor), got {tuple(s.shape)}")
    return 2, scale_a.contiguous(), scale_b.contiguous()


def _gemm_out(torch, out, m, n, dtype, name, device):
    """scaled_mm's and int_mm's (m, n) output: `out` checked (contiguous,
    of `dtype`, on `device`), or a new one; n such that its rows start
    16-byte aligned (TMA stores)."""
    if out is None:
        out = torch.empty(m, n, device=device, dtype=dtype)
    elif not isinstance(out, torch.Tensor) or tuple(out.shape) != (m, n) or \
            out.dtype != dtype or not out.is_contiguous() or \
            out.device != device:
        raise ArgumentError(f"out: expected a contiguous ({m}, {n}) tensor "
                            f"of {str(dtype).replace('torch.', '')} on "
                            f"{device}")
    if n % (16 // out.element_size()):
        raise ArgumentError(f"b: its {n} columns must be a multiple of "
                            f"{16 // out.element_size()} (the {name} "
                            f"output's rows start 16-byte aligned)")
    return out


def scaled_mm(a, b, scale_a, scale_b, out_dtype=None, out=None):
    """torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=...): (a @ b)
    scaled, with 8-bit float operands (e4m3 or e5m2, the tensor cores' fp8
    rate on sm_90a) and f32 accumulation. a (M, K) row-major, b (K, N)
    column-major (b.T contiguous, as nn.Linear's weight is held); scale_a
    and scale_b float32 CUDA tensors, both of one element (per-tensor
    scales) or of shapes (M, 1) and (1, N) (a scale per row of a and per
    column of b); the result (M, N) in out_dtype (bfloat16 unless given:
    float32, bfloat16 or float16) is a @ b times the scales, computed once
    on the f32 accumulator. The scales are read on the device (no host
    synchronization). kernels/gemm_fp8.tile, tuned once per problem class."""
    import torch
    _fp8_matrix(torch, a, "a", None, True)
    m, k = a.shape
    _fp8_matrix(torch, b, "b", None, False)
    if b.shape[0] != k or b.device != a.device:
        raise ArgumentError(f"b: expected ({k}, N) on {a.device}, got "
                            f"{tuple(b.shape)} on {b.device}")
    n = b.shape[1]
    out_dtype, out_name = out_dtype_of(torch, out_dtype, out)
    _fp8_scale(torch, scale_a, "scale_a", a.device)
    _fp8_scale(torch, scale_b, "scale_b", a.device)
    scales, sa, sb = _fp8_scales(scale_a, scale_b, m, n)
    out = _gemm_out(torch, out, m, n, out_dtype, out_name, a.device)
    if m == 0 or n == 0:
        return out
    if k == 0:
        return out.zero_()
    dta = "f8e4m3" if a.dtype == torch.float8_e4m3fn else "f8e5m2"
    dtb = "f8e4m3" if b.dtype == torch.float8_e4m3fn else "f8e5m2"

    def grid(config):
        tm = config.constants.get("TILE_M", 128)
        tn = config.constants.get("TILE_N", 256)
        return ((m + tm - 1) // tm, (n + tn - 1) // tn)
    args = (a, b.t(), out, sa, sb, 1.0)
    # Skinny products are memory-bound on b: tuned with it read from memory.
    tuning = (lambda: _rotated(torch, a.device, args, (0, 1))) \
        if m <= SPLIT_K_MAX_ROWS else args
    kern = _autotuned("gemm_fp8.tile", "gemm_fp8",
                      f"{dta}:{dtb}:{out_name}:M={min(_pow2(m), 8192)}:N={n}"
                      f":K={k}:S={scales}", grid, tuning,
                      DTYPE_A=dta, DTYPE_B=dtb, OUT=out_name, SCALES=scales)
    kern.launch(grid(kern.config), *args)
    return out


# device -> a (1, 1) f32 tensor: gemm_i8's scale operands, which its i32
# output does not read.
_unit_scales = {}


def int_mm(a, b, out=None):
    """torch._int_mm(a, b): a @ b of int8 matrices, exactly, in int32 (on
    the tensor cores at their int8 rate: wgmma on sm_90a, mma.sync m16n8k32
    from sm_80 on; wrapping past 2^31 as they do). a (M, K) row-major, b
    (K, N) column-major (b.T contiguous, as nn.Linear's weight is held),
    both with K a multiple of 16 (rows 16-byte aligned); the result (M, N)
    int32, N a multiple of 4. kernels/gemm_i8.tile, tuned once per problem
    class."""
    import torch
    _fp8_matrix(torch, a, "a", None, True, (torch.int8,), "torch._int_mm")
    m, k = a.shape
    _fp8_matrix(torch, b, "b", None, False, (torch.int8,), "torch._int_mm")
    if b.shape[0] != k or b.device != a.device:
        raise ArgumentError(f"b: expected ({k}, N) on {a.device}, got "
                            f"{tuple(b.shape)} on {b.device}")
    n = b.shape[1]
    out = _gemm_out(torch, out, m, n, torch.int32, "int32", a.device)
    if m == 0 or n == 0:
        return out
    if k == 0:
        return out.zero_()
    one = _unit_scales.get(a.device)
    if one is None:
        one = _unit_scales[a.device] = torch.ones(1, 1, device=a.device)

    def grid(config):
        tm = config.constants.get("TILE_M", 128)
        tn = config.constants.get("TILE_N", 256)
        return ((m + tm - 1) // tm, (n + tn - 1) // tn)
    args = (a, b.t(), out, one, one)
    kern = _autotuned("gemm_i8.tile", "gemm_i8",
                      f"M={min(_pow2(m), 8192)}:N={n}:K={k}", grid, args,
                      OUT="i32")
    kern.launch(grid(kern.config), *args)
    return out


def transpose(x, out=None):
    """x.t().contiguous() for a 2-D x (any dtype of 2 or 4 bytes)."""
    import torch
    if not isinstance(x, torch.Tensor) or not x.is_cuda or x.dim() != 2:
        raise ArgumentError("x: expected a 2-D CUDA tensor")
    dtype = _dsl_dtype(torch, x.dtype, "x",
                       (torch.float16, torch.bfloat16, torch.float32))
    if x.stride(1) != 1:
        raise ArgumentError("x: its last dimension must be contiguous")
    r, c = x.shape
    if out is None:
        out = torch.empty(c, r, device=x.device, dtype=x.dtype)
    elif not isinstance(out, torch.Tensor) or tuple(out.shape) != (c, r) \
            or out.dtype != x.dtype or not out.is_contiguous():
        raise ArgumentError(f"out: expected a contiguous ({c}, {r}) tensor "
                            f"of x's dtype")
    if r and c:
        # 64 x 64 tiles on 8 warps: 0.93 of the device copy at 8192x8192
        # (f16 and f32), 0.91 at 4096x10000, where 128 x 32 ran 0.82-0.90
        # (H200, bench/transpose_configs.py; bench/results/2026-11-30-h200-
        # transposed-stores.md). Each thread holds 2 x 8 (f16) or 4 x 4
        # (f32) elements, so that its transposed rows are vector stores.
        k = _compile("transpose.tile", "transpose", DTYPE=dtype,
                     TILE_M=TRANSPOSE_ROWS, TILE_N=TRANSPOSE_COLS,
                     num_warps=8)
        k.launch(((r + TRANSPOSE_ROWS - 1) // TRANSPOSE_ROWS,
                  (c + TRANSPOSE_COLS - 1) // TRANSPOSE_COLS), x, out)
    return out


#: The rows and columns of X a transpose block reads (tilec.ops.transpose).
TRANSPOSE_ROWS = 64
TRANSPOSE_COLS = 64


def _last_dim(x, dim):
    """Refuses a dim other than x's last (-1, or its rank - 1), for x of
    any type (what is not a tensor is refused after, by _rows)."""
    rank = x.dim() if callable(getattr(x, "dim", None)) else None
    if dim != -1 and (rank is None or dim != rank - 1):
        raise ArgumentError(f"dim: only the last dimension (-1) is "
                            f"supported, got {dim!r}")


def _reduce(op, x, dim):
    import torch
    _last_dim(x, dim)
    rows, dtype = _rows(torch, x, "x", (torch.float16, torch.bfloat16,
                                         torch.float32))
    r, n = rows.shape
    out = torch.empty(x.shape[:-1], device=x.device, dtype=x.dtype)
    if r:
        # Chunks of at most 4096 columns (4096 x 10000 in 3 x 3336), on 4
        # warps (sum and amax at 4096, 8192, 10000 and 32768 columns as
        # fast as on 8 or faster: bench/results/
        # 2026-11-30-h200-row-tiles.md).
        tile_n = _chunk_tile(n, 4096)
        latency = 1
        if n > 16384 and r <= 2 * _sm_count(torch, x.device):
            # Few long rows (a block each): chunks of up to 8192 copied
            # into shared memory two trips ahead (reduce.tile's LATENCY).
            # H200, bf16, bench/loop_shapes.py --sum-latency: sums of
            # 256 x 131072 0.95 of the device copy, read into registers at
            # most 0.89.
            tile_n, latency = _chunk_tile(n, 8192), 3
        tile_m = max(1, 4096 // tile_n)
        k = _compile("reduce.tile", "reduce_rows", DTYPE=dtype, OUT=dtype,
                     OP=op, TILE_M=tile_m, TILE_N=tile_n, LATENCY=latency,
                     num_warps=4)
        k.launch((r + tile_m - 1) // tile_m, rows, out.view(r))
    return out


def sum(x, dim=-1):
    """torch.sum(x, dim) over the last dimension, accumulated in f32, the
    result in x's dtype."""
    return _reduce(0, x, dim)


def amax(x, dim=-1):
    """torch.amax(x, dim) over the last dimension."""
    return _reduce(1, x, dim)


def amin(x, dim=-1):
    """torch.amin(x, dim) over the last dimension."""
    return _reduce(2, x, dim)
