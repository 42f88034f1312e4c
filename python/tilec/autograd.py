"""tilec.attention's backward: when q, k or v requires grad (and autograd
is on), tilec.attention runs the forward that also writes each query row's
log-sum-exp (kernels/attention_lse.tile) and saves q, k, v, out and it; the
backward runs kernels/flash_attention_bwd.tile (Delta = rowsum(dO * O);
one block per 64 keys accumulating dK and dV in registers; then one block
per 64 queries accumulating dQ in registers; or, from 4096 queries at
head_dim 128 and 2048 at 64, one block per 128 keys that also adds its
share of dQ by atomics), all written in the DSL. q, k, v, dO are taken
with the strides they have (a transformers model's transposed (batch,
seq, heads, dim) views as they are), and out, dQ, dK, dV are laid out
like q, k and v.

What the backward supports, each refused with an ArgumentError naming the
argument otherwise: k and v of one shape (batch, kv_heads, seq_k, head_dim)
with kv_heads dividing q's heads (grouped-query and multi-query attention:
each K/V block of the backward loops over the query heads sharing it, so
dK and dV are summed over them in registers, or over a part of them, the
parts' sums added after: kv_split), any seq_q and seq_k >= 1
(causal masks key j for query i when j > i), head_dim 64, 96, 128, 192
or 256 (192 and 256 on sm_90 only: their dK/dV kernel needs more shared
memory than an A100 has; 192 runs the backward's 256-wide kernels, TMA
reading the columns past 192 as zeros and clipping them from the stores,
a third of the work wasted: BACKWARD_D), f16 or bf16, input_pos 0, no
`out`.

`deterministic=True` (or None under torch.use_deterministic_algorithms(True))
gives the same bits on every run: dQ comes from a kernel of its own
(attn_bwd_dq, over the key tiles in order), not from atomics adding each
key block's share (attn_bwd's DQ_ATOMIC, whose order varies dQ's last bits
from run to run). Otherwise the atomics are used where they measured faster
than recomputing Q K^T and dO V^T in the dQ kernel: from 4096 queries at
head_dim 128 and 2048 at 64 (H200, bf16, the backward alone: at head_dim
128 the atomics ran 0.91-1.00x the two kernels at 1024 queries, 0.90-0.98x
at 2048 with a Llama's 16/4 heads, 0.97-1.04x at 4096, 1.06x at 16384;
at head_dim 64 0.97-1.02x at 1024, 1.02-1.16x from 2048; at head_dim 96
0.75-0.85x): bench/results/2026-12-01-h200-backward-unscaled.md,
2026-12-01-h200-training-layouts.md.
"""

import math

from ._kernels import compile_once, sm_count
from .errors import ArgumentError

TILE = 64
LOG2E = 1.4426950408889634
HEAD_DIMS = (64, 96, 128, 192, 256)
# The backward kernels' D for a head_dim: at 192, the 256-wide kernels (on
# two warpgroups a 64 x 192 dK/dV multiply would split its columns 96 + 96,
# which tile-assign-layouts does not lay out; on one it needs 256 registers
# a thread: serialized wgmma, ptxas C7512/C7514).
BACKWARD_D = {192: 256}
# The shortest query length whose backward adds dQ by atomics when it may
# (uses_atomics), at head_dim 128 and at 64.
ATOMIC_SEQ_Q = 4096
ATOMIC_SEQ_Q_64 = 2048
# The head dims to which the atomics backward stages its dQ share in a ring
# of two and copies it out in the next trip (defer_loop_stores; _backward_
# kernels).
DEFER_DQ_MAX_HEAD_DIM = 64
# The head dims above DEFER_DQ_MAX_HEAD_DIM from which the atomics backward
# has a producer warp copy its dQ share out (producer_stores), the
# consumers signalling each trip's on an mbarrier rather than meeting at a
# barrier (FlashAttention-3's dQ writer).
PRODUCER_DQ_MIN_HEAD_DIM = 65
# With PRODUCER_DQ_MIN_HEAD_DIM's producer_stores and non-causal: the
# queries a trip of the atomics backward computing its dQ share transposed
# (DQ_T: dQ^T = K^T dS^T, FlashAttention-3's 80 at head_dim 128, where 64
# rows of a wgmma's M would not divide 80), or None for TILE queries and dQ
# as it is. Off until measured (bench/attention_train_step.py --variants
# "m80:DQ_T_TILE_M=80"): compiled and checked by ptxas only (168 registers,
# no spill, no serialized wgmma; bench/results/2026-12-08-backward-dq-
# transposed.md).
DQ_T_TILE_M = None
# The fewest keys from which the forward with LSE takes 80 keys a step at
# head dims above 192 (forward_tiles).
LONG_KEYS = 8192


def forward_tiles(head_dim, seq_k=0, plain=True):
    """(queries per block, keys per step) of the forward with LSE: 64 x 64
    to head_dim 64, 128 x 128 above (bench/lse_tiles.py, H200, bf16, N 4k
    and 16k, causal and not, of cuDNN: head_dim 64: 0.91-0.94 at 64 x 64,
    0.76-0.82 at 128 x 128; head_dim 128: 0.70-0.73 at 64 x 64, 0.90-1.00
    at 128 x 128, 1.04-1.16 since the compiler's schedules of
    2026-11-30 and the causal order: bench/results/
    2026-11-30-h200-causal-order.md)."""
    if head_dim <= 64:
        return TILE, TILE
    # At 256, 128 x 128 spills (the 128 x 256 f32 output beside the
    # scores); 128 x 64 holds everything in registers. From LONG_KEYS keys,
    # FlashAttention-3's 128 x 80 (K and V stages at their own 80 rows):
    # of cuDNN 1.05 / 1.14 at 16k keys against 0.99 / 1.10 (non-causal /
    # causal), equal at 4k, 0.91 / 0.87 against 0.97 at 1k; not for the
    # ring's f32 partials (`plain` False: with MERGE it spills 1,500 bytes)
    # (bench/results/2026-12-01-h200-attention-256-tiles.md).
    if head_dim > 192:
        return 2 * TILE, 80 if plain and seq_k >= LONG_KEYS else TILE
    return (2 * TILE, TILE) if head_dim > 128 else (2 * TILE, 2 * TILE)


def forward_kernel(dtype, head_dim, causal, seq_k, **constants):
    """The forward with LSE (kernels/attention_lse.tile) for a problem
    class, compiled once: EVEN_N from seq_k (no key tile masked for the
    sequence's end where it fills whole tiles); `constants` add to it
    (OUT_DTYPE, MERGE: tilec.distributed). Launch it on
    (cdiv(seq_q, kernel.constants["TILE_M"]), batch * heads)."""
    tm, tn = forward_tiles(head_dim, seq_k, plain=not constants)
    return compile_once("attention_lse.tile", DTYPE=dtype, TILE_D=head_dim,
                        TILE_M=tm, TILE_N=tn, CAUSAL=causal,
                        EVEN_N=seq_k % tn == 0, **constants)


def uses_atomics(head_dim, seq_q, causal, deterministic):
    """Whether the backward adds dQ by atomics (one kernel: attn_bwd's
    DQ_ATOMIC) rather than in a kernel of its own (attn_bwd_dq, recomputing
    Q K^T and dO V^T): not when `deterministic` is True, or None with
    torch.use_deterministic_algorithms(True) (the atomics' order changes
    dQ's last bits from run to run), and only from ATOMIC_SEQ_Q queries at
    head_dim 128 and ATOMIC_SEQ_Q_64 at 64, where it measured faster
    (module docstring)."""
    if deterministic is None:
        import torch
        deterministic = torch.are_deterministic_algorithms_enabled()
    # (At head_dim 256 the atomics kernel fits only with one-stage rings
    # and ran 0.81-0.95x the two kernels: bench/results/
    # 2026-12-01-h200-backward-registers.md.)
    if deterministic or head_dim not in (64, 128):
        return False
    return seq_q >= (ATOMIC_SEQ_Q_64 if head_dim == 64 else ATOMIC_SEQ_Q)


def _backward_kernels(dtype, head_dim, causal, atomic, seq_k):
    """The preprocessing, the dK/dV kernel and the dQ kernel (with
    `atomic`, where the dK/dV kernel adds dQ unscaled in f32, the kernel
    scaling and rounding that sum: attn_bwd_dq_convert) for a problem class,
    compiled once; EVEN_N from seq_k (no key masked for the sequence's end
    where the keys fill whole tiles); the dK/dV kernel takes LSE in log2
    units (LSE_LOG2).
    Without atomics the dK/dV kernel takes 64 keys on one warpgroup at
    every head dimension, the rest the compiler's choice (its loop of four
    multiplies unrotated, two-stage rings). At 96 and 128, 128 keys on two
    warpgroups (a producer warp) ran 0.94-1.02x of it in one process (H200,
    bench/results/2026-11-29-h200-backward-unrotated.md). With atomics it
    takes 128 keys on two warpgroups (64 ran 0.6x), and at head_dim 64
    128 queries a trip."""
    pre = compile_once("flash_attention_bwd.tile", "attn_bwd_preprocess",
                       DTYPE=dtype, D=head_dim, TILE_M=TILE)
    if atomic:
        # At head_dim 64 a trip takes 128 queries (FlashAttention-3's
        # 128 x 128): 1.07-1.10x the 64-query trips, causal, H200, f16,
        # once the loop's addresses are recomputed in it rather than
        # spilled (bench/results/2026-11-30-h200-rematerialize.md).
        # At head_dim 64 the f32 dQ share of a trip is staged in a ring of
        # two and copied out in the next trip (defer_loop_stores): its
        # stores then meet the next trip's barrier rather than a fence and
        # barrier of their own, 1.02-1.04x (H200, f16, FlashAttention-3's
        # 16k tokens). At 128 (64 queries a trip) it runs 0.90-1.00x, with
        # its multiplies overlapped (bench/results/
        # 2026-12-04-h200-deferred-dq-stores.md): DEFER_DQ_MAX_HEAD_DIM.
        # There a producer warp copies each trip's share out instead
        # (producer_stores), the consumers signalling on mbarriers: 1.08-
        # 1.16x the consumers' own copy, H100, bf16, 4k and 16k, causal and
        # not (bench/results/2026-12-07-h100-producer-stores.md; at 64 the
        # deferred copy stays 5-8% faster): PRODUCER_DQ_MIN_HEAD_DIM.
        deferred = {"defer_loop_stores": True} \
            if head_dim <= DEFER_DQ_MAX_HEAD_DIM else {}
        if not deferred and head_dim >= PRODUCER_DQ_MIN_HEAD_DIM:
            deferred = {"producer_stores": True}
        # Keys in whole blocks (EVEN_N), causal: the kernel's loop splits
        # where the diagonal stops crossing its query tiles, and the trips
        # after run without the mask (tile-mask-ranges, tile-loop-split):
        # 1.03-1.10x the mask on every trip, H100, bf16, 4k and 16k
        # (bench/results/2026-12-07-h100-causal-backward-split.md).
        even = seq_k % (2 * TILE) == 0
        queries = 2 * TILE if head_dim == 64 else TILE
        # (80 queries a trip estimate 208 f32 results a consumer thread,
        # past the compiler's 192 for a producer warp: asked for.)
        if "producer_stores" in deferred and not causal and DQ_T_TILE_M:
            queries = DQ_T_TILE_M
            deferred.update(DQ_T=True, warp_specialize=True)
        bwd = compile_once("flash_attention_bwd.tile", "attn_bwd",
                           DTYPE=dtype, D=head_dim, TILE_M=queries,
                           TILE_N=2 * TILE, CAUSAL=causal, DQ_ATOMIC=True,
                           EVEN_N=even, LSE_LOG2=True,
                           num_warps=8, **deferred)
        convert = compile_once("flash_attention_bwd.tile",
                               "attn_bwd_dq_convert", DTYPE=dtype,
                               D=head_dim, TILE_M=TILE)
        return pre, bwd, convert
    # At head_dim 256 two warpgroups hold the 64 x 256 dK and dV (on one
    # they need 256 registers a thread, and spill).
    warps = {"num_warps": 8} if head_dim > 128 else {}
    even = seq_k % TILE == 0
    bwd = compile_once("flash_attention_bwd.tile", "attn_bwd", DTYPE=dtype,
                       D=head_dim, TILE_M=TILE, TILE_N=TILE, CAUSAL=causal,
                       DQ_ATOMIC=False, EVEN_N=even, LSE_LOG2=True,
                       **warps)
    dq = compile_once("flash_attention_bwd.tile", "attn_bwd_dq",
                      DTYPE=dtype, D=head_dim, TILE_M=TILE, TILE_N=TILE,
                      CAUSAL=causal, EVEN_N=even, **warps)
    return pre, bwd, dq


def check(q, k, v, causal, scale, input_pos, out=None):
    """ArgumentError where the backward cannot run; the dtype's name and
    the scale otherwise."""
    import torch
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 4:
            raise ArgumentError(f"{name}: expected a 4-D CUDA tensor")
        if t.dtype not in (torch.float16, torch.bfloat16):
            raise ArgumentError(f"{name}: expected float16 or bfloat16, got "
                                f"{str(t.dtype).replace('torch.', '')}")
        if t.dtype != q.dtype or t.device != q.device:
            raise ArgumentError(f"{name}: must have q's dtype and device")
    b, h, n, d = q.shape
    if v.shape != k.shape or k.shape[0] != b or k.shape[3] != d \
            or k.shape[1] < 1 or h % k.shape[1] or \
            (n and k.shape[2] < 1):
        raise ArgumentError(
            f"k, v: with gradients, k and v must both be (batch, kv_heads, "
            f"seq_k, head_dim) = ({b}, H, S, {d}) with H dividing q's {h} "
            f"heads and S >= 1, got {tuple(k.shape)} and {tuple(v.shape)}")
    if d not in HEAD_DIMS:
        raise ArgumentError(f"q: with gradients, head_dim must be 64, 96, "
                            f"128, 192 or 256, got {d}")
    if d > 128 and torch.cuda.get_device_capability(q.device) < (9, 0):
        raise ArgumentError(f"q: with gradients, head_dim {d} needs sm_90 "
                            f"(its dK/dV kernel needs 192 KiB of shared "
                            f"memory a block; this GPU gives less)")
    if type(causal) is not bool:
        raise ArgumentError("causal: expected a bool")
    if input_pos != 0:
        raise ArgumentError("input_pos: with gradients, only 0 is supported")
    if out is not None:
        raise ArgumentError("out: not supported when q, k or v requires "
                            "grad (autograd allocates the output)")
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)) or \
            not math.isfinite(scale):
        raise ArgumentError(f"scale: expected a finite float, got {scale!r}")
    return ("f16" if q.dtype == torch.float16 else "bf16"), float(scale)


def _padded(n):
    """seq_q rounded up to whole query tiles: the length of LSE and Delta,
    whose rows past seq_q the kernels write (from queries of zeros: finite)
    and read back (a 16-byte aligned row stride, whole tiles)."""
    return (n + TILE - 1) // TILE * TILE


def tma_ready(t):
    """`t` where the kernels' tensor maps take it as it is (a contiguous
    last dimension, a 16-byte aligned address and strides: a transformers
    model's transposed (batch, tokens, heads, D) views are), else a
    contiguous copy (e.g. the expanded gradient of out.sum())."""
    size = t.element_size()
    if t.data_ptr() % 16 or (t.shape[-1] > 1 and t.stride(-1) != 1):
        return t.contiguous()
    for n, st in zip(t.shape[:-1], t.stride()[:-1]):
        if n > 1 and (st <= 0 or st * size % 16):
            return t.contiguous()
    return t


def forward(q, k, v, causal, scale, dtype):
    """(out, lse): out shaped and laid out like q (torch.empty_like), lse
    (batch, heads, seq_q rounded up to a multiple of 64) f32."""
    import torch
    q, k, v = (tma_ready(t) for t in (q, k, v))
    b, h, n, d = q.shape
    fwd = forward_kernel(dtype, d, causal, k.shape[2])
    out = torch.empty_like(q)  # q's strides where dense: ready as q is
    lse = torch.empty(b, h, _padded(n), device=q.device, dtype=torch.float32)
    if q.numel():
        tm = fwd.constants["TILE_M"]
        fwd[((n + tm - 1) // tm, b * h)](q, k, v, out, lse, scale)
    return out, lse


# The number of partial sums of dK and dV per K/V head under grouped-query
# attention (None: kv_split's choice); a benchmark may set it.
KV_SPLIT = None


def kv_split(key_tiles, batch, kv_heads, group, device):
    """S, a divisor of the query heads per K/V head (`group`): attn_bwd
    then runs S blocks for each K/V tile, each summing dK and dV over
    group / S query heads, and the S partial sums are added up after it.
    A K/V head's blocks run its whole group's query tiles one after
    another; with few K/V heads that leaves multiprocessors idle: the
    smallest S giving at least eight blocks a multiprocessor, else S =
    group (FlashAttention's choice: dK and dV per query head, summed).
    A Llama's 16 query heads on 4 K/V heads, 4 x 2048 tokens, head_dim 128,
    causal (256 blocks at S = 1), backward alone: S = 1, 2, 4 ran 248, 264,
    282 TFLOP/s (H200, bf16; bench/results/2026-12-01-h200-training-
    layouts.md); the sums' cost grows with the tokens, the attention's with
    their square."""
    if KV_SPLIT is not None:
        return KV_SPLIT if group % KV_SPLIT == 0 else 1
    import torch
    sms = sm_count(torch, device)
    for s in range(1, group + 1):
        if group % s == 0 and key_tiles * batch * kv_heads * s >= 8 * sms:
            return s
    return group


def backward(q, k, v, out, lse, dout, causal, scale, dtype,
             deterministic=None):
    """(dq, dk, dv), laid out like q, k and v (torch.empty_like);
    `deterministic` as tilec.attention's (uses_atomics)."""
    import torch
    q, k, v, out, dout = (tma_ready(t) for t in (q, k, v, out, dout))
    b, h, n, d = q.shape
    hk, nk = k.shape[1], k.shape[2]
    atomic = uses_atomics(d, n, causal, deterministic)
    pre, bwd, dq_kernel = _backward_kernels(dtype, BACKWARD_D.get(d, d),
                                            causal, atomic, nk)
    # Laid out like q, k, v where those are dense (ready as they are),
    # contiguous otherwise.
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    if not q.numel():
        # No query: no gradient reaches k and v.
        return dq, dk.zero_(), dv.zero_()
    keys = bwd.constants["TILE_N"]
    key_tiles = (nk + keys - 1) // keys
    split = kv_split(key_tiles, b, hk, h // hk, q.device)
    if split == 1:
        dk_parts, dv_parts = dk, dv
    else:
        dk_parts, dv_parts = (
            torch.empty(b, hk * split, nk, d, device=q.device,
                        dtype=q.dtype) for _ in range(2))
    tiles = _padded(n) // TILE
    # LSE and Delta as (batch x heads, rows): the kernels' rows.
    lse = lse.reshape(b * h, _padded(n))
    delta = torch.empty(b * h, _padded(n), device=q.device,
                        dtype=torch.float32)
    pre[(tiles, b * h)](out, dout, delta)
    # Without the atomics attn_bwd does not touch its f32 dQ; with
    # them it adds every key block's share into zeros.
    dq32 = torch.zeros(b, h, n, d, device=q.device, dtype=torch.float32) \
        if atomic else \
        torch.empty(1, 1, 1, 1, device=q.device, dtype=torch.float32)
    # The dK/dV kernel's LSE in log2 units (a multiply a query a trip
    # fewer in its loop).
    lse2 = lse * LOG2E
    bwd[(key_tiles, b * hk * split)](q, k, v, dout, lse2, delta, dq32,
                                     dk_parts, dv_parts, scale)
    if atomic:
        # The kernel's sum is dQ / scale (dS unscaled in its loop): scaled
        # and rounded by attn_bwd_dq_convert (4 x 16 x 4096 x 128, H200: 48
        # us where torch.mul(dq32, scale, out=dq) took 67, cuDNN's own
        # conversion 56; bench/results/2026-12-01-h200-user-kernels.md).
        dq_kernel[((n + TILE - 1) // TILE, b * h)](dq32, dq, scale)
    else:
        dq_kernel[(tiles, b * h)](q, k, v, dout, lse, delta, dq, scale)
    if split > 1:
        # In f32, rounded once (torch's sum of 16-bit tensors).
        for grad, parts in ((dk, dk_parts), (dv, dv_parts)):
            torch.sum(parts.view(b, hk, split, nk, d), 2, out=grad)
    return dq, dk, dv


_function = None


def function():
    """The torch.autograd.Function (made once torch is imported)."""
    global _function
    if _function is None:
        import torch

        class Attention(torch.autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, causal, scale, dtype, deterministic):
                out, lse = forward(q, k, v, causal, scale, dtype)
                ctx.save_for_backward(q, k, v, out, lse)
                ctx.args = (causal, scale, dtype, deterministic)
                return out

            @staticmethod
            def backward(ctx, dout):
                q, k, v, out, lse = ctx.saved_tensors
                dq, dk, dv = backward(q, k, v, out, lse, dout, *ctx.args)
                return dq, dk, dv, None, None, None, None

        _function = Attention
    return _function


def autocast(q, k, v):
    """q, k, v in autocast's dtype where they are float32 and CUDA autocast
    is on (as scaled_dot_product_attention takes them under autocast)."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None or not torch.is_autocast_enabled("cuda"):
        return q, k, v
    dtype = torch.get_autocast_dtype("cuda")
    return tuple(t.to(dtype) if isinstance(t, torch.Tensor) and
                 t.dtype == torch.float32 else t for t in (q, k, v))


def needs_grad(q, k, v):
    """Whether autograd is on and q, k or v requires grad (torch tensors)."""
    import sys
    torch = sys.modules.get("torch")
    return (torch is not None and torch.is_grad_enabled() and
            any(isinstance(t, torch.Tensor) and t.requires_grad
                for t in (q, k, v)))


def attention(q, k, v, causal=False, scale=None, input_pos=0, out=None,
              deterministic=None):
    """tilec.attention with gradients (module docstring; `deterministic`
    True keeps dQ's bits the same from run to run)."""
    dtype, scale = check(q, k, v, causal, scale, input_pos, out)
    if deterministic is not None and type(deterministic) is not bool:
        raise ArgumentError(f"deterministic: expected a bool or None, got "
                            f"{deterministic!r}")
    return function().apply(q, k, v, causal, scale, dtype, deterministic)
