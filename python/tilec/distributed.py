"""Context parallelism: attention over a sequence split across GPUs, on
torch.distributed (NCCL), with tilec's kernels as each step's attention.

    import tilec.distributed as tcp
    q, k, v = (tcp.shard(t, group) for t in (q_full, k_full, v_full))
    out = tcp.ring_attention(q, k, v, causal=True)       # local rows
    out_full = tcp.unshard(out, group)

Each rank holds a chunk of the sequence of q, k and v: (batch, heads,
local_seq, head_dim), the same shape on every rank. Causal attention
balances the work with the zigzag layout: the sequence is cut into
2 * world chunks and rank i holds chunks i and 2 * world - 1 - i, one after
the other (`shard` and `unshard` convert a full sequence, dimension 2, to
and from it); `layout="contiguous"` takes rank i's local rows as the i-th
world-th of the sequence instead (unbalanced: the last rank does the most).
Without a mask the layout does not matter.

Two ways to bring the keys to the queries, `variant=`:
  - "ring": K and V travel around the ring (rank i sends to i + 1) with
    torch.distributed's batched isend/irecv, double buffered: the next
    chunk's transfer overlaps the attention of the chunk in hand.
  - "allgather": every rank gathers the whole K and V first (Llama 3's
    choice when they are small beside Q, as under grouped-query
    attention), then attends its rows in a few large launches.
  - "auto" (the default): "ring". bench/ring_attention.py measured the
    ring faster at every point tried, grouped-query heads included (H200
    x2, causal bf16, 32 query / 8 K/V heads, D 128, N 32k-128k: forward
    0.91-0.96 of single-GPU tilec against 0.85-0.95 for the all-gather,
    forward + backward 0.95 against 0.87-0.92): the all-gather's transfer
    is not overlapped, the ring's is, and its step kernels are large
    enough (bench/results/2026-11-29-h200x2-ring-attention.md).

Each step's attention is kernels/attention_lse.tile (the forward that also
writes each row's log-sum-exp), its output unrounded (OUT_DTYPE f32); a
block over rows an earlier block wrote merges its result into theirs in
the kernel's epilogue through the two log-sum-exps (MERGE), so the running
output stays in float32 with no pass of its own; rounded to q's dtype once
at the end. Blocks are launched only where the mask leaves anything: with the zigzag layout and causal masking, each step is
either the diagonal (causal), all local rows against the first half of the
keys in hand, or the second half of the rows against all of them (not
masked); fully masked blocks are never launched. The backward (autograd:
ring_attention is differentiable) runs kernels/flash_attention_bwd.tile on
the same blocks with the merged output's log-sum-exp: dQ accumulates
locally in float32; dK and dV accumulate in float32 buffers that travel
around the ring with their chunk and arrive at its owner after the last
step (the allgather variant reduce-scatters them instead).

What runs, each refused with an ArgumentError naming the argument
otherwise: q, k and v float16 or bfloat16 on the rank's CUDA device, k and
v of one shape (batch, kv_heads, local_seq, head_dim) with kv_heads
dividing q's heads and q's local_seq the same, head_dim 64, 96 or 128, the
same shapes on every rank (checked through one small all-gather per call,
which waits for it: check_ranks=False leaves it out), an even local_seq
when causal with the zigzag layout.
"""

from . import autograd as _fa
from .errors import ArgumentError

VARIANTS = ("auto", "ring", "allgather")
LAYOUTS = ("zigzag", "contiguous")


def _dist():
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        raise ArgumentError("group: torch.distributed is not initialized "
                            "(call torch.distributed.init_process_group "
                            "first)")
    return dist


def _world(group):
    dist = _dist()
    return dist.get_world_size(group), dist.get_rank(group)


def _global_rank(dist, group, rank):
    return rank if group is None else dist.get_global_rank(group, rank)


def shard(x, group=None, dim=2, layout="zigzag"):
    """This rank's chunk of a full sequence `x` (the same on every rank),
    along `dim`: zigzag, chunks rank and 2 * world - 1 - rank of
    2 * world; contiguous, the rank-th of world. A contiguous copy."""
    import torch
    world, rank = _world(group)
    _check_layout(layout)
    n = x.shape[dim]
    parts = 2 * world if layout == "zigzag" else world
    if n % parts:
        raise ArgumentError(
            f"x: the sequence (dimension {dim}, {n}) must divide into "
            f"{parts} equal chunks ({'2 x ' if parts != world else ''}"
            f"{world} ranks); uneven lengths are not supported")
    chunks = x.chunk(parts, dim)
    if layout == "contiguous":
        return chunks[rank].contiguous()
    return torch.cat([chunks[rank], chunks[parts - 1 - rank]],
                     dim).contiguous()


def unshard(x, group=None, dim=2, layout="zigzag"):
    """The full sequence from every rank's chunk `x` (shard's inverse; an
    all-gather: every rank gets it)."""
    import torch
    dist = _dist()
    world, _ = _world(group)
    _check_layout(layout)
    if layout == "zigzag" and x.shape[dim] % 2:
        raise ArgumentError(f"x: a zigzag chunk holds two halves; its "
                            f"length (dimension {dim}) {x.shape[dim]} is odd")
    x = x.contiguous()
    parts = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(parts, x, group=group)
    return _natural(torch, parts, world, layout, dim)


def _check_layout(layout):
    if layout not in LAYOUTS:
        raise ArgumentError(f"layout: expected one of {LAYOUTS}, got "
                            f"{layout!r}")


# A block of work: local query rows [q0, q1) against rows [k0, k1) of the
# keys in hand, causal (the diagonal: key k0 + j masked for query q0 + i
# when j > i, the two ranges starting at the same sequence position) or not.
class _Block:
    __slots__ = ("q0", "q1", "k0", "k1", "causal")

    def __init__(self, q0, q1, k0, k1, causal):
        self.q0, self.q1, self.k0, self.k1 = q0, q1, k0, k1
        self.causal = causal

    def __repr__(self):
        return (f"_Block(q[{self.q0}:{self.q1}], k[{self.k0}:{self.k1}]"
                f"{', causal' if self.causal else ''})")


def ring_blocks(rank, world, step, n, causal, layout):
    """The blocks rank `rank` computes at ring step `step` (holding the keys
    of rank (rank - step) mod world), local length n."""
    if not causal:
        return [_Block(0, n, 0, n, False)]
    src = (rank - step) % world
    if step == 0:
        return [_Block(0, n, 0, n, True)]
    if layout == "contiguous":
        # Rank src's keys all come before this rank's queries, or all after.
        return [_Block(0, n, 0, n, False)] if src < rank else []
    half = n // 2
    # Keys: chunks src and 2w-1-src; queries: chunks rank and 2w-1-rank.
    if src < rank:   # src < rank < 2w-1-rank < 2w-1-src: first key chunk
        return [_Block(0, n, 0, half, False)]
    # rank < src < 2w-1-src < 2w-1-rank: the second query chunk sees both.
    return [_Block(half, n, 0, n, False)]


def allgather_blocks(rank, world, n, causal, layout):
    """The blocks of rank `rank` against the whole sequence's keys in
    natural order (length world * n)."""
    total = world * n
    if not causal:
        return [_Block(0, n, 0, total, False)]
    if layout == "contiguous":
        starts = [(0, rank * n, n)]
    else:
        half = n // 2
        starts = [(0, rank * half, half),
                  (half, (2 * world - 1 - rank) * half, half)]
    blocks = []
    for q0, start, length in starts:
        if start:
            blocks.append(_Block(q0, q0 + length, 0, start, False))
        blocks.append(_Block(q0, q0 + length, start, start + length, True))
    return blocks


def _natural(torch, parts, world, layout, dim=2):
    """The whole sequence in order from the ranks' chunks (allgather)."""
    if layout == "contiguous":
        return torch.cat(parts, dim)
    halves = [p.chunk(2, dim) for p in parts]
    return torch.cat([halves[c][0] for c in range(world)] +
                     [halves[world - 1 - c][1] for c in range(world)], dim)


def _ranks_chunks(torch, full, world, layout, dim=2):
    """_natural's inverse: (world, *chunk) stacked, rank order."""
    if layout == "contiguous":
        return torch.stack(full.chunk(world, dim))
    chunks = full.chunk(2 * world, dim)
    return torch.stack([torch.cat([chunks[r], chunks[2 * world - 1 - r]],
                                  dim) for r in range(world)])


class _Fwd:
    """The running output (float32) and log-sum-exp of this rank's rows.
    A block's rows are either new (its kernel writes them) or those of
    earlier blocks (its kernel merges into them: attention_lse's MERGE)."""

    def __init__(self, torch, q, scale, dtype):
        b, h, n, d = q.shape
        self.out = torch.empty(b, h, n, d, device=q.device,
                               dtype=torch.float32)
        self.lse = torch.empty(b, h, n, device=q.device,
                               dtype=torch.float32)
        self.q, self.scale, self.dtype = q, scale, dtype
        self.filled = []

    def add(self, block, k, v):
        """Attends rows [q0, q1) to keys [k0, k1) of k and v."""
        q0, q1 = block.q0, block.q1
        merge = any(f0 <= q0 and q1 <= f1 for f0, f1 in self.filled)
        if not merge:
            assert all(f1 <= q0 or q1 <= f0 for f0, f1 in self.filled), \
                "a block's rows partly overlap earlier blocks'"
            self.filled.append((q0, q1))
        b, h, _, d = self.q.shape
        kern = _fa.forward_kernel(self.dtype, d, block.causal,
                                  block.k1 - block.k0, OUT_DTYPE="f32",
                                  MERGE=merge)
        tm = kern.constants["TILE_M"]
        kern[((block.q1 - block.q0 + tm - 1) // tm, b * h)](
            self.q[:, :, block.q0:block.q1], k[:, :, block.k0:block.k1],
            v[:, :, block.k0:block.k1], self.out[:, :, block.q0:block.q1],
            self.lse[:, :, block.q0:block.q1], self.scale)

    def result(self):
        n = self.out.shape[2]
        assert sum(f[1] - f[0] for f in self.filled) == n, \
            "some rows saw no keys"
        return self.out, self.lse


def _padded_lse(torch, lse):
    """A (b, h, n) float32 log-sum-exp as the backward kernels read it:
    contiguous, rows padded to whole query tiles."""
    b, h, n = lse.shape
    p = torch.zeros(b, h, _fa._padded(n), device=lse.device,
                    dtype=torch.float32)
    p[:, :, :n] = lse
    return p


def _backward_block(torch, q, k, v, out, lse, dout, block, scale, dtype):
    """(dq, dk, dv) of one block, given the whole result's out and lse."""
    rows = slice(block.q0, block.q1)
    keys = slice(block.k0, block.k1)
    qs = q[:, :, rows].contiguous()
    return _fa.backward(qs, k[:, :, keys].contiguous(),
                        v[:, :, keys].contiguous(),
                        out[:, :, rows].contiguous(),
                        _padded_lse(torch, lse[:, :, rows]),
                        dout[:, :, rows].contiguous(), block.causal, scale,
                        dtype)


def _exchange(dist, group, world, rank, sends, recvs):
    """Sends `sends` to the next rank and receives `recvs` from the
    previous one, batched; the requests to wait on."""
    nxt = _global_rank(dist, group, (rank + 1) % world)
    prv = _global_rank(dist, group, (rank - 1) % world)
    ops = [dist.P2POp(dist.isend, t, nxt, group) for t in sends] + \
        [dist.P2POp(dist.irecv, t, prv, group) for t in recvs]
    return dist.batch_isend_irecv(ops)


def _wait(reqs):
    for r in reqs:
        r.wait()


def _pass_keys(torch, dist, group, world, rank, step, k, v):
    """Starts sending k and v on to the next rank and receiving the
    previous rank's (except at the ring's last step): (requests, the
    buffers k and v of the next step)."""
    if step == world - 1:
        return [], k, v
    k_next, v_next = torch.empty_like(k), torch.empty_like(v)
    return (_exchange(dist, group, world, rank, [k, v], [k_next, v_next]),
            k_next, v_next)


def _ring_forward(torch, dist, group, world, rank, q, k, v, causal, scale,
                  dtype, layout):
    acc = _Fwd(torch, q, scale, dtype)
    n = q.shape[2]
    for step in range(world):
        reqs, k_next, v_next = _pass_keys(torch, dist, group, world, rank,
                                          step, k, v)
        for block in ring_blocks(rank, world, step, n, causal, layout):
            acc.add(block, k, v)
        _wait(reqs)
        k, v = k_next, v_next
    return acc.result()


def _ring_backward(torch, dist, group, world, rank, q, k, v, out, lse, dout,
                   causal, scale, dtype, layout):
    n = q.shape[2]
    dq = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dkv_reqs, dkv_recv = [], None   # (dk, dv) accumulators in flight
    for step in range(world):
        reqs, k_next, v_next = _pass_keys(torch, dist, group, world, rank,
                                          step, k, v)
        parts = [(b, _backward_block(torch, q, k, v, out, lse, dout, b,
                                     scale, dtype))
                 for b in ring_blocks(rank, world, step, n, causal, layout)]
        if dkv_reqs:
            _wait(dkv_reqs)   # this chunk's accumulators, from rank - 1
            dkv = dkv_recv
        else:
            dkv = [torch.zeros(k.shape, device=k.device,
                               dtype=torch.float32) for _ in range(2)]
        for b, (bq, bk, bv) in parts:
            dq[:, :, b.q0:b.q1] += bq
            dkv[0][:, :, b.k0:b.k1] += bk
            dkv[1][:, :, b.k0:b.k1] += bv
        if world == 1:
            return dq, dkv[0], dkv[1]
        # On to the rank holding this chunk next (after the last step: its
        # owner).
        dkv_recv = [torch.empty_like(t) for t in dkv]
        dkv_reqs = _exchange(dist, group, world, rank, dkv, dkv_recv)
        _wait(reqs)
        k, v = k_next, v_next
    _wait(dkv_reqs)
    return dq, dkv_recv[0], dkv_recv[1]


def _gather(torch, dist, group, world, t):
    parts = [torch.empty_like(t) for _ in range(world)]
    dist.all_gather(parts, t.contiguous(), group=group)
    return parts


def _allgather_forward(torch, dist, group, world, rank, q, k, v, causal,
                       scale, dtype, layout):
    kf = _natural(torch, _gather(torch, dist, group, world, k), world, layout)
    vf = _natural(torch, _gather(torch, dist, group, world, v), world, layout)
    acc = _Fwd(torch, q, scale, dtype)
    for block in allgather_blocks(rank, world, q.shape[2], causal, layout):
        acc.add(block, kf, vf)
    return acc.result()


def _allgather_backward(torch, dist, group, world, rank, q, k, v, out, lse,
                        dout, causal, scale, dtype, layout):
    kf = _natural(torch, _gather(torch, dist, group, world, k), world, layout)
    vf = _natural(torch, _gather(torch, dist, group, world, v), world, layout)
    dq = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dkf = torch.zeros(kf.shape, device=q.device, dtype=torch.float32)
    dvf = torch.zeros(kf.shape, device=q.device, dtype=torch.float32)
    for b in allgather_blocks(rank, world, q.shape[2], causal, layout):
        bq, bk, bv = _backward_block(torch, q, kf, vf, out, lse, dout, b,
                                     scale, dtype)
        dq[:, :, b.q0:b.q1] += bq
        dkf[:, :, b.k0:b.k1] += bk
        dvf[:, :, b.k0:b.k1] += bv
    grads = []
    for full in (dkf, dvf):
        mine = torch.empty(k.shape, device=k.device, dtype=torch.float32)
        dist.reduce_scatter_tensor(mine, _ranks_chunks(torch, full, world,
                                                       layout),
                                   group=group)
        grads.append(mine)
    return dq, grads[0], grads[1]


_function = None


def _autograd_function():
    global _function
    if _function is None:
        import torch

        class RingAttention(torch.autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, causal, scale, dtype, group, variant,
                        layout):
                dist = _dist()
                world, rank = _world(group)
                run = _ring_forward if variant == "ring" else \
                    _allgather_forward
                out, lse = run(torch, dist, group, world, rank, q, k, v,
                               causal, scale, dtype, layout)
                out = out.to(q.dtype)
                ctx.save_for_backward(q, k, v, out, lse)
                ctx.args = (causal, scale, dtype, group, variant, layout)
                return out

            @staticmethod
            def backward(ctx, dout):
                q, k, v, out, lse = ctx.saved_tensors
                causal, scale, dtype, group, variant, layout = ctx.args
                dist = _dist()
                world, rank = _world(group)
                run = _ring_backward if variant == "ring" else \
                    _allgather_backward
                dq, dk, dv = run(torch, dist, group, world, rank, q, k, v,
                                 out, lse, dout.contiguous(), causal, scale,
                                 dtype, layout)
                return (dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype),
                        None, None, None, None, None, None)

        _function = RingAttention
    return _function


def _check_ranks(torch, dist, group, world, q, k):
    """ArgumentError on every rank when the ranks' shapes differ (one
    all-gather of 8 integers)."""
    mine = torch.tensor(list(q.shape) + list(k.shape), device=q.device,
                        dtype=torch.int64)
    every = torch.empty(world, mine.numel(), device=q.device,
                        dtype=torch.int64)
    dist.all_gather_into_tensor(every, mine, group=group)
    shapes = every.tolist()
    if any(s != shapes[0] for s in shapes):
        raise ArgumentError(
            "q, k: every rank must hold chunks of one shape (q's batch, "
            "heads, local_seq, head_dim, then k's); uneven lengths are not "
            f"supported, got {shapes} by rank")


def ring_attention(q, k, v, causal=False, scale=None, group=None,
                   variant="auto", layout="zigzag", check_ranks=True):
    """softmax(scale * q k^T + mask) v over the whole sequence, for this
    rank's rows (module docstring). q: (batch, heads, local_seq, head_dim);
    k, v: (batch, kv_heads, local_seq, head_dim). Returns the local output
    (a new tensor like q), differentiable."""
    import torch
    dist = _dist()
    dtype, scale = _fa.check(q, k, v, causal, scale, 0)
    if q.shape[3] > 128:
        raise ArgumentError(f"q: ring_attention takes head_dim 64, 96 or "
                            f"128, got {q.shape[3]} (tilec.attention's "
                            f"head_dims 192 and 256 are not run across GPUs "
                            f"yet)")
    if variant not in VARIANTS:
        raise ArgumentError(f"variant: expected one of {VARIANTS}, got "
                            f"{variant!r}")
    _check_layout(layout)
    if k.shape[2] != q.shape[2]:
        raise ArgumentError(f"k: each rank's chunk of keys must be as long "
                            f"as its queries' ({q.shape[2]}), got "
                            f"{k.shape[2]}")
    if causal and layout == "zigzag" and q.shape[2] % 2:
        raise ArgumentError(f"q: with causal and the zigzag layout, the "
                            f"local sequence holds two chunks: its length "
                            f"must be even, got {q.shape[2]}")
    world, rank = _world(group)
    if q.device != torch.device("cuda", torch.cuda.current_device()):
        raise ArgumentError(f"q: on {q.device}, not this rank's current "
                            f"device cuda:{torch.cuda.current_device()}")
    if check_ranks:
        _check_ranks(torch, dist, group, world, q, k)
    if variant == "auto":
        variant = "ring"    # (the module docstring says why)
    q, k, v = (t.contiguous() for t in (q, k, v))
    return _autograd_function().apply(q, k, v, causal, scale, dtype, group,
                                      variant, layout)
