"""Decode attention over a KV cache: kernels/flash_decoding.tile (split-KV,
FlashDecoding, the splits merged by the last of them in the same launch)
and kernels/kv_append.tile, from PyTorch tensors, through libtile's
tile_attention_with_kvcache (C++: tile::attentionWithKVCache).

    out = tilec.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens)

q (batch, tokens, heads, head_dim); k_cache, v_cache (batch, seq_cache,
kv_heads, head_dim), as flash_attn_with_kvcache takes them, or with
block_table (batch, max_pages) int32 a paged cache (num_pages, page_size,
kv_heads, head_dim), page_size a multiple of 64 or 8, 16 or 32; cache_seqlens
(batch,) int32: the keys of each sequence. The query heads that share a KV
head are the rows of one multiply (each KV tile is read once per KV head),
and the keys of each sequence are split across blocks so that the grid
fills the GPU, each split's partial output and log-sum-exp merged in f32
(a sequence of one split writes its output itself). The splits are
libtile's split-KV schedule (tile::splitKVSchedule: work items, one block
each, longest first, the split length chosen by simulating the blocks'
dispatch on the GPU's slots): without a plan every sequence is cut as if
at the cache's capacity (the lengths stay on the GPU); with
plan=tilec.decode_plan(cache_seqlens) (the lengths read once per batch,
shared by every layer) each sequence by its own length, so that in a
batch of skewed lengths a long sequence spreads over many blocks and a
short one takes one. num_splits forces the splits of every sequence.

Several query tokens (speculative or chunked decode: tokens x query heads
per KV head up to 128 rows) are the last tokens of their sequence: with
causal=True token t of T sees the keys before length - T + 1 + t
(flash_attn's bottom-right alignment), else all of them.

k_new, v_new (batch, new, kv_heads, head_dim): the new tokens' keys and
values, written into the cache at each sequence's length before the
attention (which then covers length + new keys; tokens past the cache are
dropped); cache_seqlens is not updated. q and out may have any strides
(the last dimension contiguous): they are read and written in place. Page numbers are checked against the cache only with
check_block_table=True (a pass over the table and a wait for its answer:
an entry out of range among a sequence's pages is an ArgumentError naming
it); unchecked, an entry out of range among a
sequence's pages reads out of bounds.
"""

import ctypes
import sys

from ._kernels import tickets as _tickets
from .errors import ArgumentError


TILE_N = 64  # flash_decoding.tile's key tile


def _check_common(torch, cache_seqlens, B, num_splits, causal):
    """The arguments both decode entry points take alike."""
    if (not isinstance(cache_seqlens, torch.Tensor) or
            cache_seqlens.dtype != torch.int32 or
            tuple(cache_seqlens.shape) != (B,) or not cache_seqlens.is_cuda):
        raise ArgumentError(f"cache_seqlens: expected a ({B},) int32 CUDA "
                            f"tensor")
    if not isinstance(num_splits, int) or num_splits < 0:
        raise ArgumentError("num_splits: expected an int >= 0 (0: chosen)")
    if type(causal) is not bool:
        raise ArgumentError("causal: expected a bool")


def split_schedule(lengths, units, slots, max_keys, splits=0,
                   keys_per_trip=TILE_N, merge_trips=0.5, saturating=0,
                   multiprocessors=0):
    """libtile's split-KV schedule (tile::splitKVSchedule) of sequences of
    `lengths` keys, `units` units (KV heads) each, `slots` blocks resident
    at once over `multiprocessors` (0: one pool), `saturating` of them
    active saturating the memory (0: all),
    merge_trips the key tiles each partial adds to a unit after
    its last split ends (a merge in the split kernel: 2 / the partials it
    reads a trip, e.g. 0.125 at 4 query heads per KV head; 0: a kernel of
    its own):
    (table, items, partials) with table a (5, items) list of
    lists of ints, per item its unit, split, split length in keys, the
    unit's splits and its first partial slot (-1: one split)."""
    from ._capi import lib, TILE_OK, last_error
    from .errors import from_message
    n = len(lengths)
    arr = (ctypes.c_int64 * max(n, 1))(*lengths)
    items, partials, most = (ctypes.c_int64() for _ in range(3))
    args = (arr, n, units, keys_per_trip, slots, saturating,
            multiprocessors, max_keys, splits, float(merge_trips))
    counts = (ctypes.byref(items), ctypes.byref(partials), ctypes.byref(most))
    if lib().tile_split_kv_schedule(*args, None, 0, *counts) != TILE_OK:
        raise from_message(last_error())
    table = (ctypes.c_int32 * (5 * items.value))()
    if lib().tile_split_kv_schedule(*args, table, 5 * items.value,
                                    *counts) != TILE_OK:
        raise from_message(last_error())
    rows = [list(table[f * items.value:(f + 1) * items.value])
            for f in range(5)]
    return rows, items.value, partials.value


class DecodePlan:
    """The key count of each sequence of a decode batch as the host knows
    it (tilec.decode_plan; libtile's tile::DecodePlan), from which
    attention_with_kvcache(..., plan=...) cuts each sequence's keys by its
    own length (a long sequence over many blocks, a short one in one)
    instead of by the cache's capacity. Made once per batch and decode
    step, used by every layer; the work table of each problem class is
    built on the GPU on first use and kept with the plan (freed with it,
    after a wait for the device). A plan whose lengths differ from
    cache_seqlens still gives the right result (the last split of a
    sequence takes every key past its start), only balanced for the
    lengths it was made from."""

    def __init__(self, lengths):
        from ._capi import lib, last_error
        from .errors import from_message
        self.lengths = [int(n) for n in lengths]
        arr = (ctypes.c_int64 * max(len(self.lengths), 1))(*self.lengths)
        self._handle = lib().tile_decode_plan_create(arr, len(self.lengths))
        if not self._handle:
            raise from_message(last_error())

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            from ._capi import lib
            lib().tile_decode_plan_destroy(handle)
            self._handle = None

    def __repr__(self):
        return f"DecodePlan(batch={len(self.lengths)}, " \
               f"keys={sum(max(n, 0) for n in self.lengths)})"


def decode_plan(cache_seqlens, new_tokens=0):
    """A DecodePlan for sequences of cache_seqlens keys (a (batch,) int
    tensor, on the host or the GPU: read back once, a wait for the GPU;
    or a list of ints), new_tokens more each (the k_new/v_new tokens the
    attention will append)."""
    if not isinstance(new_tokens, int) or new_tokens < 0:
        raise ArgumentError("new_tokens: expected an int >= 0")
    if isinstance(cache_seqlens, (list, tuple)):
        lengths = list(cache_seqlens)
        if not all(isinstance(n, int) for n in lengths):
            raise ArgumentError("cache_seqlens: expected ints")
    else:
        torch = sys.modules.get("torch")
        if torch is None or not isinstance(cache_seqlens, torch.Tensor) or \
                cache_seqlens.dim() != 1 or cache_seqlens.dtype not in (
                    torch.int32, torch.int64):
            raise ArgumentError("cache_seqlens: expected a (batch,) int32 "
                                "or int64 tensor, or a list of ints")
        lengths = cache_seqlens.tolist()
    return DecodePlan(n + new_tokens for n in lengths)


def attention_with_kvcache(q, k_cache, v_cache, cache_seqlens,
                           block_table=None, causal=True, scale=None,
                           num_splits=0, k_new=None, v_new=None, out=None,
                           check_block_table=False, plan=None):
    """Decode attention of q over the first cache_seqlens[b] keys of each
    sequence's cache (module docstring). Returns out (allocated like q when
    None)."""
    import torch
    tensors = (("q", q), ("k_cache", k_cache), ("v_cache", v_cache),
               ("block_table", block_table), ("k_new", k_new),
               ("v_new", v_new), ("out", out))
    for name, t in tensors:
        if t is not None and (not isinstance(t, torch.Tensor) or
                              not t.is_cuda):
            raise ArgumentError(f"{name}: expected a CUDA tensor")
    if q.dim() != 4:
        raise ArgumentError(f"q: expected (batch, tokens, heads, head_dim), "
                            f"got shape {tuple(q.shape)}")
    _check_common(torch, cache_seqlens, q.shape[0], num_splits, causal)
    if plan is not None and not isinstance(plan, DecodePlan):
        raise ArgumentError("plan: expected a tilec.decode_plan(...)")
    if out is None:
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
    # libtile's tile_attention_with_kvcache (lib/Ops/Decode): the checks,
    # the kernels (built in), the split-KV schedule and the launches; the
    # workspace holds the splits' partial outputs.
    from ._capi import KVCacheOptions, lib, TILE_OK, last_error
    from ._tensors import current_stream
    from .errors import from_message
    held = []

    def c(t):
        return ctypes.byref(_c_tensor(t, held)) if t is not None else None
    # The merge's counters: kept zero per device and stream (torch memory:
    # also made inside a CUDA graph capture), saving a memset per call.
    tickets = _tickets(torch, q.device, q.shape[0] * (
        k_cache.shape[2] if k_cache.dim() == 4 else 1))
    o = KVCacheOptions(has_scale=scale is not None,
                       scale=float(scale) if scale is not None else 0.0,
                       non_causal=not causal, num_splits=num_splits,
                       plan=plan._handle if plan is not None else None,
                       check_block_table=bool(check_block_table),
                       tickets=tickets.data_ptr())
    nbytes = ctypes.c_size_t()
    if lib().tile_attention_with_kvcache_workspace_bytes(
            c(q), c(k_cache), c(block_table), ctypes.byref(o),
            ctypes.byref(nbytes)) != TILE_OK:
        raise from_message(last_error())
    work = _workspace(torch, q.device, nbytes.value) if nbytes.value else None
    if lib().tile_attention_with_kvcache(
            c(q), c(k_cache), c(v_cache), c(cache_seqlens), c(block_table),
            c(k_new), c(v_new), c(out),
            work.data_ptr() if work is not None else None, nbytes.value,
            ctypes.byref(o), current_stream(None)) != TILE_OK:
        raise from_message(last_error())
    return out


# --- MLA decode ----------------------------------------------------------------

# (device, stream) -> uint8 workspace of tile_mla_decode, grown as needed.
_workspaces = {}


def _workspace(torch, device, nbytes):
    from ._tensors import current_stream
    key = (device, current_stream(None))
    w = _workspaces.get(key)
    if w is None or w.numel() < nbytes:
        w = _workspaces[key] = torch.empty(
            max(nbytes, 2 * (w.numel() if w is not None else 0)),
            device=device, dtype=torch.uint8)
    return w


def _c_tensor(t, held):
    """A tile_tensor for torch tensor `t` (its arrays kept in `held`)."""
    from ._capi import Tensor
    from ._tensors import TensorArg, torch_dtypes
    arg = TensorArg(t.data_ptr(), torch_dtypes()[t.dtype], t.shape,
                    t.stride(), keep=t)
    held.append(arg)
    return arg.fill(Tensor())


def mla_decode(q, kv_cache, cache_seqlens, block_table, head_dim_v=512,
               scale=None, causal=True, num_splits=0, out=None, plan=None):
    """Multi-head latent attention decode (FlashMLA's flash_mla_with_kvcache)
    through kernels/mla_decode.tile. Returns (out, lse).

    q (batch, s_q, heads, head_dim) f16/bf16, head_dim = head_dim_v + the
    rotary dims; kv_cache (num_pages, page_size, 1, head_dim), the one
    latent head, its first head_dim_v dims the values, page_size a multiple
    of 64; block_table (batch, max_pages) int32; cache_seqlens (batch,)
    int32. With causal and s_q > 1, query token t of the last s_q sees the
    keys before length - s_q + 1 + t. out (batch, s_q, heads, head_dim_v)
    like q; lse (batch, heads, s_q) f32, the natural log-sum-exp of the
    scaled scores (-inf for a sequence of length 0, whose output is
    zeros). The s_q x heads query rows of a sequence are the rows of the
    multiplies (64 per block on wgmma; 16 on mma.sync where a sequence has
    16 rows or fewer), and its keys are split across blocks so that the
    grid fills the GPU (num_splits=0 chooses; with
    plan=tilec.decode_plan(cache_seqlens) each sequence by its own length,
    FlashMLA's scheduling metadata), the splits merged in f32 by a second
    kernel (mla_combine, one block per output row of a split sequence and
    128 to 512 columns). Runs libtile's tile_mla_decode (C++: tile::mlaDecode,
    tile/Decode.h), the kernels built in; its workspace (the splits'
    partial outputs) is kept per device and stream."""
    import torch
    for name, t in (("q", q), ("kv_cache", kv_cache)):
        if not isinstance(t, torch.Tensor) or not t.is_cuda:
            raise ArgumentError(f"{name}: expected a CUDA tensor")
        if t.dtype not in (torch.float16, torch.bfloat16):
            raise ArgumentError(f"{name}: expected float16 or bfloat16, got "
                                f"{t.dtype}")
    if q.dim() != 4:
        raise ArgumentError(f"q: expected (batch, s_q, heads, head_dim), got "
                            f"shape {tuple(q.shape)}")
    B, Sq, H, DK = q.shape
    if kv_cache.dtype != q.dtype:
        raise ArgumentError("kv_cache: must have q's dtype")
    if kv_cache.dim() != 4 or kv_cache.shape[2] != 1 or \
            kv_cache.shape[3] != DK:
        raise ArgumentError(f"kv_cache: expected (num_pages, page_size, 1, "
                            f"{DK}), got shape {tuple(kv_cache.shape)}")
    page = kv_cache.shape[1]
    if page % 64 or page == 0:
        raise ArgumentError(f"kv_cache: page size {page} must be a multiple "
                            f"of 64")
    if not isinstance(head_dim_v, int) or head_dim_v <= 0 or \
            head_dim_v >= DK:
        raise ArgumentError(f"head_dim_v: expected an int below q's "
                            f"head_dim {DK}, got {head_dim_v!r}")
    dr = DK - head_dim_v
    if head_dim_v % 128 or dr % 16 or head_dim_v % dr or dr > 256:
        raise ArgumentError(f"head_dim_v: {head_dim_v} value dims and {dr} "
                            f"rotary ones: the values must be a multiple of "
                            f"128, the rotary dims a multiple of 16 (up to "
                            f"256) that divides them")
    if q.stride(3) != 1 or kv_cache.stride(3) != 1 or \
            kv_cache.stride(1) != DK or kv_cache.stride(0) != page * DK:
        raise ArgumentError("q, kv_cache: their last dimension must be "
                            "contiguous, and each page of the cache too")
    if (not isinstance(block_table, torch.Tensor) or
            block_table.dtype != torch.int32 or block_table.dim() != 2 or
            block_table.shape[0] != B or not block_table.is_cuda or
            block_table.stride(1) != 1):
        raise ArgumentError(f"block_table: expected a ({B}, max_pages) "
                            f"int32 CUDA tensor, rows contiguous")
    _check_common(torch, cache_seqlens, B, num_splits, causal)
    if plan is not None and not isinstance(plan, DecodePlan):
        raise ArgumentError("plan: expected a tilec.decode_plan(...)")
    if out is None:
        out = torch.empty(B, Sq, H, head_dim_v, device=q.device,
                          dtype=q.dtype)
    elif (tuple(out.shape) != (B, Sq, H, head_dim_v) or
          out.dtype != q.dtype or not out.is_contiguous()):
        raise ArgumentError(f"out: expected a contiguous ({B}, {Sq}, {H}, "
                            f"{head_dim_v}) tensor of q's dtype")
    lse = torch.empty(B, Sq, H, device=q.device, dtype=torch.float32)
    if B * Sq * H == 0:
        return out, lse.transpose(1, 2)
    # libtile's tile_mla_decode (lib/Ops/Decode): the split count, the
    # kernels (built in) and their launches; the workspace holds the
    # splits' partial outputs.
    from ._capi import MlaDecodeOptions, lib, TILE_OK, last_error
    from ._tensors import current_stream
    from .errors import from_message
    held = []
    t = [_c_tensor(x, held) for x in (q, kv_cache, cache_seqlens,
                                       block_table, out, lse)]
    o = MlaDecodeOptions(head_dim_v=head_dim_v, has_scale=scale is not None,
                         scale=float(scale) if scale is not None else 0.0,
                         non_causal=not causal, num_splits=num_splits,
                         plan=plan._handle if plan is not None else None)
    nbytes = ctypes.c_size_t()
    if lib().tile_mla_decode_workspace_bytes(
            ctypes.byref(t[0]), ctypes.byref(t[1]), ctypes.byref(t[3]),
            ctypes.byref(o), ctypes.byref(nbytes)) != TILE_OK:
        raise from_message(last_error())
    work = _workspace(torch, q.device, nbytes.value) if nbytes.value else None
    if lib().tile_mla_decode(
            *(ctypes.byref(x) for x in t),
            work.data_ptr() if work is not None else None, nbytes.value,
            ctypes.byref(o), current_stream(None)) != TILE_OK:
        raise from_message(last_error())
    return out, lse.transpose(1, 2)
