"""8-bit float attention (FlashAttention-3's FP8 forward) on PyTorch tensors:
kernels/attention_fp8.tile behind tilec.attention, and the quantization
that feeds it.

    q8, k8, v8, dq, dk, dv = tilec.fp8.quantize(q, k, v, hadamard=True)
    out = tilec.attention(q8, k8, v8, causal=True, descale_q=dq,
                          descale_k=dk, descale_v=dv)      # bf16

tilec.attention takes float8_e4m3fn q, k and v (batch, heads, seq,
head_dim), head_dim 64, 128 or 256, K/V with fewer heads than Q (GQA) and
any lengths, with dequantization factors ("descales"): descale_q a float
(per tensor) or a float32 CUDA tensor broadcastable to (batch, heads,
cdiv(seq_q, 128)) (a scale per block of 128 query rows, per head),
descale_k likewise over (batch, kv_heads, cdiv(seq_k, 128)), descale_v a
float or broadcastable to (batch, kv_heads, head_dim) (a scale per channel
of V: it multiplies that column of the output). The descales must be
positive. The output is out_dtype (bfloat16 unless given; float16 or
float32), and with return_lse=True also the rows' log-sum-exp (float32,
natural log). The kernel's key tiles and schedule are tuned once per
problem class: the first call of a class times each of _candidates
(TILEC_AUTOTUNE=off takes the first), as tilec.attention does on 16-bit
tensors. V is read with its keys contiguous: a v whose seq dimension
has stride 1 (the transpose of a (batch, kv_heads, head_dim, seq) tensor,
as quantize returns it) is read in place; any other v is transposed into a
new tensor first (a copy per call, kernels/transpose_heads.tile; at
head_dim 128 with its keys in the order the kernel's P holds them in
registers: fragment_order(v) gives V so, for callers of the kernel itself).

quantize rounds q, k and v (float16, bfloat16 or float32) to e4m3 with a
scale per block of 128 rows per head for q and k (FlashAttention-3's block
quantization) and per channel for v, or per tensor with block=None; with
hadamard=True it first rotates q and k by the same random orthogonal
matrix (a Hadamard matrix with random signs, head_dim a power of two):
q k^T does not change, and outliers are spread over the head dimension
(FlashAttention-3's incoherent processing).
"""

import math

from ._kernels import compile_once as _compile
from ._tensors import current_stream
from .errors import ArgumentError

__all__ = ["attention", "quantize", "fragment_order", "E4M3_MAX",
           "SCALE_BLOCK"]

#: The largest finite e4m3 value.
E4M3_MAX = 448.0
#: Rows of q and of k per block scale.
SCALE_BLOCK = 128

_OUT = {"bfloat16": "bf16", "float16": "f16", "float32": "f32"}
# (device, (shape)) -> a float32 tensor of ones for the descales not read.
_ones = {}


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _operand(torch, t, name):
    if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 4:
        raise ArgumentError(f"{name}: expected a 4-D CUDA tensor (batch, "
                            f"heads, seq, head_dim)")
    if t.dtype != torch.float8_e4m3fn:
        raise ArgumentError(f"{name}: expected float8_e4m3fn (as q), got "
                            f"{_dtype_name(t)}")


def _descale(torch, d, name, shape, device):
    """A descale: (float, None) per tensor, or (1.0, a contiguous float32
    tensor of `shape`) from a tensor broadcastable to it."""
    if isinstance(d, bool) or d is None:
        raise ArgumentError(f"{name}: expected a float or a float32 CUDA "
                            f"tensor, got {d!r}")
    if isinstance(d, (int, float)):
        if not (d > 0 and math.isfinite(d)):
            raise ArgumentError(f"{name}: expected a positive finite "
                                f"scale, got {d!r}")
        return float(d), None
    if not isinstance(d, torch.Tensor) or not d.is_cuda or \
            d.dtype != torch.float32:
        raise ArgumentError(f"{name}: expected a float or a float32 CUDA "
                            f"tensor, got {type(d).__name__}")
    if d.device != device:
        raise ArgumentError(f"{name}: on {d.device}, not on q's {device}")
    try:
        full = d.expand(shape)
    except RuntimeError:
        raise ArgumentError(f"{name}: shape {tuple(d.shape)} does not "
                            f"broadcast to {shape}") from None
    return 1.0, full.contiguous()


def out_dtype_of(torch, out_dtype, out):
    """An 8-bit multiply's output type: out_dtype, else out's, else
    bfloat16; with its DSL name (bf16, f16, f32)."""
    if out_dtype is None:
        out_dtype = out.dtype if isinstance(out, torch.Tensor) else \
            torch.bfloat16
    name = _OUT.get(str(out_dtype).replace("torch.", ""))
    if name is None:
        raise ArgumentError(f"out_dtype: expected torch.bfloat16, float16 "
                            f"or float32, got {out_dtype!r}")
    return out_dtype, name


def _ones_like(torch, device, shape):
    key = (device, shape)
    t = _ones.get(key)
    if t is None:
        t = _ones[key] = torch.ones(shape, device=device)
    return t


def _keys_contiguous(torch, v, copy=True):
    """v (batch, kv_heads, seq_k, head_dim) as the kernel reads it: a
    (batch, kv_heads, head_dim, seq_k) tensor with the keys contiguous and
    its rows 16-byte aligned, v's own memory where it is laid out so (else
    a copy, or None with copy=False)."""
    b, h, n, d = v.shape
    if (v.stride(2) == 1 or n == 1) and v.stride(3) % 16 == 0 and \
            v.stride(1) % 16 == 0 and v.stride(0) % 16 == 0 and \
            v.data_ptr() % 16 == 0:
        return v.transpose(2, 3)
    if not copy:
        return None
    padded = (n + 15) // 16 * 16
    vt = torch.empty(b, h, d, padded, device=v.device, dtype=v.dtype)
    vt = vt[..., :n]
    vt.copy_(v.transpose(2, 3))
    return vt


def _transposed_keys(torch, v, fragment, stream=None):
    """A new (batch, kv_heads, head_dim, seq_k rounded up to 32) copy of v
    (batch, kv_heads, seq_k, head_dim) with the keys contiguous, made by
    kernels/transpose_heads.tile (one pass through shared memory), the keys
    in fragment order with `fragment`; keys past seq_k zeros."""
    b, h, n, d = v.shape
    padded = (n + 31) // 32 * 32
    vt = torch.empty(b, h, d, padded, device=v.device, dtype=v.dtype)
    if vt.numel() == 0:
        return vt
    x = v.reshape(b * h, n, d)
    if x.stride(2) != 1 or any(s % 16 for s in x.stride()[:2]) or \
            x.data_ptr() % 16:
        x = x.contiguous()
    kern = _compile("transpose_heads.tile", "transpose_heads",
                    DTYPE="f8e4m3", TILE_M=TRANSPOSE_KEYS,
                    TILE_N=TRANSPOSE_DIMS, FRAGMENT_ORDER=fragment,
                    num_warps=4)
    kern.launch(((padded + TRANSPOSE_KEYS - 1) // TRANSPOSE_KEYS,
                 (d + TRANSPOSE_DIMS - 1) // TRANSPOSE_DIMS, b * h),
                x, vt.view(b * h, d, padded), stream=current_stream(stream))
    return vt


#: The keys and head dimensions of v a transpose_heads block copies.
TRANSPOSE_KEYS = 128
TRANSPOSE_DIMS = 64


def _candidates(head_dim, causal, seq_k, fragment):
    """The schedules tilec.attention tunes 8-bit attention over, once per
    problem class (_tuning_key), each a tilec.Config of the kernel's
    TILE_N (with its EVEN_N) and compile options; the first is what runs
    untuned (TILEC_AUTOTUNE=off): 128-key tiles at the compiler's choice,
    at head_dim 128 without the causal mask with ping_pong (the two
    consumer warpgroups multiplying in turns: H200, 696 / 813 / 806 -> 710
    / 830 / 810 TFLOP/s at N = 1k / 4k / 16k, bench/results/
    2026-12-04-h200-fp8-ping-pong.md). At head_dim 128 also the same with
    ping_pong the other way, 8 consumer warps specialized and persistent
    on 128- and 256-key tiles, and with V in fragment order 160-key tiles
    at the compiler's choice:
    H100, FRAGMENT_ORDER, one run, TFLOP/s at N = 1k / 4k / 16k, non-causal
    128 at the choice 739 / 820 / 817, specialized 712 / 838 / 839, with
    ping_pong 678 / 775 / 782, 160 at the choice 684 / 850 / 875; causal
    128 at the choice 534 / 705 / 809, 256 specialized 478 / 758 / 902
    (bench/results/2026-12-06-h100-fp8-schedules.md): which wins depends
    on the problem and the GPU, so the API measures them. (Head dims 64 and
    256 keep the one schedule: these were not measured there.)"""
    from . import Config

    # (auto_schedule: each candidate at the compiler's choice where it says
    # nothing, as tilec.compile gives it; tilec.autotune otherwise compiles
    # a candidate's unnamed options at their defaults, 4 warps, on which
    # head_dim 256's 128 x 256 accumulator does not fit.)
    def tile(n):
        return {"TILE_N": n, "EVEN_N": seq_k % n == 0, "auto_schedule": True}
    turns = head_dim == 128 and not causal
    configs = [Config(**tile(128), **({"ping_pong": True} if turns else {}))]
    if head_dim != 128:
        return configs
    specialized = {"warp_specialize": True, "num_warps": 8,
                   "persistent": True}
    configs += [Config(**tile(128), **({} if turns else {"ping_pong": True})),
                Config(**tile(128), **specialized)]
    if seq_k > 128:
        configs.append(Config(**tile(256), **specialized))
        # (160 keys measured, and checked against cuDNN, with V in fragment
        # order only.)
        if fragment:
            configs.append(Config(**tile(160)))
    return configs


def _tuning_key(head_dim, causal, blocks, lse, out_name, fragment, bh, nq,
                nk):
    """The problem class 8-bit attention is tuned per: what the kernel is
    compiled for, and the powers of two of the rows, keys and heads."""
    from .ops import _pow2 as pow2
    return (f"D={head_dim}:causal={causal}:blocks={blocks}:lse={lse}:"
            f"out={out_name}:fragment={fragment}:even={nk % 128 == 0}"
            f"{nk % 256 == 0}:BH={pow2(bh)}:Nq={pow2(nq)}:Nk={pow2(nk)}")


def fragment_order(v):
    """v (batch, kv_heads, seq_k, head_dim), float8_e4m3fn, as
    attention_fp8.tile reads it with FRAGMENT_ORDER: a new (batch,
    kv_heads, head_dim, seq_k rounded up to 32) tensor, the keys contiguous,
    each 32 of them in the order the 8-bit A operand of P V holds P's
    columns in the accumulator's registers (key c0 + 2 c1 + 4 c2 + 8 c3 +
    16 c4 at c0 + 2 c3 + 4 c1 + 8 c2 + 16 c4), the keys past seq_k zeros."""
    import torch
    if not isinstance(v, torch.Tensor) or v.dim() != 4 or \
            v.dtype != torch.float8_e4m3fn or not v.is_cuda:
        raise ArgumentError("v: expected a 4-D float8_e4m3fn CUDA tensor")
    return _transposed_keys(torch, v, True)


def attention(q, k, v, causal=False, scale=None, input_pos=0, out=None,
              stream=None, descale_q=1.0, descale_k=1.0, descale_v=1.0,
              out_dtype=None, return_lse=False):
    """tilec.attention on float8_e4m3fn q, k, v (see the module's text)."""
    import torch
    _operand(torch, q, "q")
    _operand(torch, k, "k")
    _operand(torch, v, "v")
    B, H, Nq, D = q.shape
    if D not in (64, 128, 256):
        raise ArgumentError(f"q: head_dim {D}: 8-bit attention takes 64, "
                            f"128 or 256")
    if k.shape[0] != B or k.shape[3] != D or k.device != q.device:
        raise ArgumentError(f"k: expected ({B}, kv_heads, seq_k, {D}) on "
                            f"{q.device}, got {tuple(k.shape)}")
    Hkv, Nk = k.shape[1], k.shape[2]
    if Hkv == 0 or H % Hkv:
        raise ArgumentError(f"k: its {Hkv} heads must divide q's {H}")
    if tuple(v.shape) != tuple(k.shape) or v.device != q.device:
        raise ArgumentError(f"v: expected k's shape {tuple(k.shape)} on "
                            f"{q.device}, got {tuple(v.shape)}")
    for t, name in ((q, "q"), (k, "k")):
        if t.stride(3) != 1 or any(s % 16 for s in t.stride()[:3]) or \
                t.data_ptr() % 16:
            raise ArgumentError(f"{name}: its last dimension must be "
                                f"contiguous and its rows 16-byte aligned")
    if type(causal) is not bool:
        raise ArgumentError(f"causal: expected a bool, got {causal!r}")
    if type(return_lse) is not bool:
        raise ArgumentError(f"return_lse: expected a bool, got "
                            f"{return_lse!r}")
    if isinstance(input_pos, bool) or not isinstance(input_pos, int) or \
            not 0 <= input_pos < 2**31:
        raise ArgumentError(f"input_pos: expected an int in [0, 2^31), got "
                            f"{input_pos!r}")
    if scale is None:
        scale = D ** -0.5
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)) or \
            not math.isfinite(scale):
        raise ArgumentError(f"scale: expected a finite float, got {scale!r}")
    out_dtype, out_name = out_dtype_of(torch, out_dtype, out)
    if out is None:
        out = torch.empty(B, H, Nq, D, device=q.device, dtype=out_dtype)
    elif not isinstance(out, torch.Tensor) or \
            tuple(out.shape) != (B, H, Nq, D) or out.dtype != out_dtype or \
            out.device != q.device or out.stride(3) != 1:
        raise ArgumentError(f"out: expected a ({B}, {H}, {Nq}, {D}) tensor "
                            f"of {str(out_dtype).replace('torch.', '')} on "
                            f"{q.device}, its last dimension contiguous")
    blocks_q = (Nq + SCALE_BLOCK - 1) // SCALE_BLOCK
    blocks_k = (Nk + SCALE_BLOCK - 1) // SCALE_BLOCK
    sq, tq = _descale(torch, descale_q, "descale_q", (B, H, blocks_q),
                      q.device)
    sk, tk = _descale(torch, descale_k, "descale_k", (B, Hkv, blocks_k),
                      q.device)
    sv, tv = _descale(torch, descale_v, "descale_v", (B, Hkv, D), q.device)
    blocks = tq is not None or tk is not None or tv is not None
    if blocks:
        tq = tq if tq is not None else _ones_like(torch, q.device,
                                                  (B, H, blocks_q))
        tk = tk if tk is not None else _ones_like(torch, q.device,
                                                  (B, Hkv, blocks_k))
        tv = tv if tv is not None else _ones_like(torch, q.device,
                                                  (B, Hkv, D))
    else:
        tq = tk = _ones_like(torch, q.device, (1, 1, 1))
        tv = _ones_like(torch, q.device, (1, 1))
    lse = torch.empty(B, H, Nq, device=q.device, dtype=torch.float32) \
        if return_lse else _ones_like(torch, q.device, (1, 1, 1))
    if B * H == 0 or Nq == 0:
        return (out, lse) if return_lse else out
    if Nk == 0:
        out.zero_()
        if return_lse:
            lse.fill_(float("-inf"))
        return (out, lse) if return_lse else out
    if B * H >= 2**31 or (Nq + 127) // 128 >= 2**31:
        raise ArgumentError("q: too many rows for the grid")
    major, minor = torch.cuda.get_device_capability(q.device)
    if major < 9:
        raise ArgumentError(f"q: 8-bit attention runs on sm_90a (Hopper's "
                            f"8-bit wgmma); {q.device} is sm_{major}{minor}")
    # A v read in place keeps its keys' order. One the kernel cannot read
    # (its keys not contiguous) is copied by a DSL transpose, at head_dim
    # 128 with its keys in the order P's 8-bit registers hold them
    # (FRAGMENT_ORDER: P goes to the second multiply without shuffles,
    # 1.05-1.06x causal on an H200; at 64 and 256 that kernel ran slower,
    # bench/results/2026-12-04-h200-fp8-fragment-order.md).
    vt = _keys_contiguous(torch, v, copy=False)
    fragment = vt is None and D == 128
    if vt is None:
        vt = _transposed_keys(torch, v, fragment, stream)
    args = (q, k, vt, out, lse, tq, tk, tv.reshape(-1, tv.shape[-1]),
            float(scale), sq, sk, sv, input_pos)
    grid = ((Nq + 127) // 128, B * H)
    # 128-row blocks; the key tiles and the schedule tuned per problem
    # class over _candidates (the first untuned).
    from .ops import _autotuned
    kern = _autotuned(
        "attention_fp8.tile", "attention_fp8",
        _tuning_key(D, causal, blocks, return_lse, out_name, fragment, B * H,
                    Nq, Nk),
        lambda config: grid, args,
        lambda: _candidates(D, causal, Nk, fragment), TILE_D=D,
        TILE_M=128, CAUSAL=causal, BLOCK_SCALES=blocks,
        SCALE_BLOCK=SCALE_BLOCK, WRITE_LSE=return_lse, OUT=out_name,
        FRAGMENT_ORDER=fragment)
    kern.launch(grid, *args, stream=current_stream(stream))
    return (out, lse) if return_lse else out


def _hadamard(torch, n, device, generator):
    """A random orthogonal (n, n) matrix: a Sylvester Hadamard matrix with
    random signs on its rows, over sqrt(n)."""
    h = torch.ones(1, 1, device=device)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    signs = torch.randint(0, 2, (n,), device=device, generator=generator)
    return (signs.float() * 2 - 1)[:, None] * h / math.sqrt(n)


def _quantize_rows(torch, x, block):
    """x (batch, heads, seq, d) to e4m3 with a scale per `block` rows per
    head (or per tensor with block None): (x8, descale) with descale of
    shape (batch, heads, cdiv(seq, block)) (or a 0-d tensor)."""
    x = x.float()
    if block is None:
        amax = x.abs().amax()
        s = torch.where(amax > 0, amax / E4M3_MAX, torch.ones_like(amax))
        return _e4m3(x / s), s
    b, h, n, d = x.shape
    blocks = (n + block - 1) // block
    pad = blocks * block - n
    xp = torch.nn.functional.pad(x, (0, 0, 0, pad)) if pad else x
    amax = xp.reshape(b, h, blocks, block * d).abs().amax(-1)
    s = torch.where(amax > 0, amax / E4M3_MAX, torch.ones_like(amax))
    scaled = xp.reshape(b, h, blocks, block, d) / s[..., None, None]
    x8 = scaled.reshape(b, h, blocks * block, d)[:, :, :n]
    return _e4m3(x8), s


def _e4m3(x):
    """x rounded to e4m3, clamped to its range first (x / (amax / 448) may
    round past 448, where torch's conversion gives NaN)."""
    import torch
    return x.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)


def quantize(q, k, v, block=SCALE_BLOCK, hadamard=False, generator=None):
    """q, k, v (batch, heads, seq, head_dim; float16, bfloat16 or float32
    CUDA tensors) rounded to e4m3 for tilec.attention: returns (q8, k8, v8,
    descale_q, descale_k, descale_v). block=128 (the default, the only block
    size attention takes): a scale per 128 rows per head for q and k and
    per channel (batch, kv_heads, head_dim) for v; block=None: one scale per
    tensor (0-d tensors). hadamard=True rotates q and k first by one random
    orthogonal matrix (drawn with `generator`), which leaves q k^T as it
    is. v8 is returned with its keys contiguous (a transposed view), the
    layout attention reads in place."""
    import torch
    for t, name in ((q, "q"), (k, "k"), (v, "v")):
        if not isinstance(t, torch.Tensor) or not t.is_cuda or \
                t.dim() != 4 or t.dtype not in (torch.float16, torch.bfloat16,
                                                torch.float32):
            raise ArgumentError(f"{name}: expected a 4-D float16, bfloat16 "
                                f"or float32 CUDA tensor")
    if block is not None and block != SCALE_BLOCK:
        raise ArgumentError(f"block: expected {SCALE_BLOCK} or None, got "
                            f"{block!r}")
    if k.shape != v.shape or k.shape[0] != q.shape[0] or \
            k.shape[3] != q.shape[3]:
        raise ArgumentError(f"k, v: expected the same shape (batch, "
                            f"kv_heads, seq_k, {q.shape[3]}), got "
                            f"{tuple(k.shape)} and {tuple(v.shape)}")
    d = q.shape[3]
    if hadamard:
        if d & (d - 1):
            raise ArgumentError(f"hadamard: head_dim {d} is not a power of "
                                f"two")
        r = _hadamard(torch, d, q.device, generator)
        q = q.float() @ r
        k = k.float() @ r
    q8, dq = _quantize_rows(torch, q, block)
    k8, dk = _quantize_rows(torch, k, block)
    vf = v.float()
    if block is None:
        amax = vf.abs().amax()
    else:
        amax = vf.abs().amax(2)                       # (b, kv_heads, d)
    dv = torch.where(amax > 0, amax / E4M3_MAX, torch.ones_like(amax))
    scaled = vf / (dv[:, :, None, :] if block is not None else dv)
    vt = _keys_contiguous(torch, _e4m3(scaled))
    return q8, k8, vt.transpose(2, 3), dq, dk, dv
