"""tilec.attention_varlen on a GPU: packed sequences of different lengths
(FlashAttention's varlen) against a float64 reference per sequence, with
lengths 0, 1, a tile +- 1 and several tiles, fewer and more queries than
keys, causal (aligned to the bottom right) and not, GQA, f16 and bf16,
head dims 64 to 256; the same bits from run to run; the launch refusing a
tensor written over one the warp-specialized producer reads ahead. Skipped
without PyTorch and a CUDA GPU."""

import itertools
import math
import os
import random

import pytest

import tilec
from conftest import skip_unless_arch

# The attention API's default configuration per head dim; the schedules
# the tuner may pick are run by test_fmha_varlen_schedules.
os.environ.setdefault("TILEC_AUTOTUNE", "off")


def packed(torch, lens, heads, d, dtype):
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    t = torch.randn(cu[-1], heads, d, device="cuda", dtype=dtype)
    return t, torch.tensor(cu, device="cuda", dtype=torch.int32), cu


def reference(torch, q, k, v, cu_q, cu_k, causal, scale):
    """Float64 attention per sequence; a query that sees no key gives 0."""
    out = torch.zeros(q.shape, dtype=torch.float64, device="cuda")
    group = q.shape[1] // k.shape[1]
    for b in range(len(cu_q) - 1):
        qs = q[cu_q[b]:cu_q[b + 1]].double().transpose(0, 1)
        ks = k[cu_k[b]:cu_k[b + 1]].double().transpose(0, 1)
        vs = v[cu_k[b]:cu_k[b + 1]].double().transpose(0, 1)
        ks = ks.repeat_interleave(group, 0)
        vs = vs.repeat_interleave(group, 0)
        nq, nk = qs.shape[1], ks.shape[1]
        if nq == 0:
            continue
        s = qs @ ks.transpose(1, 2) * scale
        keep = torch.ones(nq, nk, dtype=torch.bool, device="cuda")
        if causal:
            keep = (torch.arange(nk, device="cuda")[None, :] <=
                    torch.arange(nq, device="cuda")[:, None] + nk - nq)
        s = s.masked_fill(~keep, float("-inf"))
        p = torch.softmax(s, -1).nan_to_num()   # rows with no key: 0
        out[cu_q[b]:cu_q[b + 1]] = (p @ vs).transpose(0, 1)
    return out


CASES = [
    # lens_q, lens_k, heads, kv_heads, d
    ([1, 64, 0, 130, 65, 200, 127, 129], None, 4, 4, 64),
    ([300, 17, 1, 256, 0, 511], [300, 40, 5, 256, 3, 700], 8, 2, 128),
    ([5, 129, 64, 300], [3, 100, 64, 1], 4, 1, 128),      # more queries
    ([1000, 24, 513], None, 2, 2, 256),
    ([96, 33], [160, 33], 4, 2, 80),                      # padded head dim
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_attention_varlen(torch_gpu, case, causal, dtype):
    torch = torch_gpu
    lens_q, lens_k, heads, kv_heads, d = CASES[case]
    lens_k = lens_k or lens_q
    if d > 128 and torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("head dim 256: sm_90")
    torch.manual_seed(100 * case + 2 * causal + (dtype == "bfloat16"))
    dt = getattr(torch, dtype)
    q, cq, cu_q = packed(torch, lens_q, heads, d, dt)
    k, ck, cu_k = packed(torch, lens_k, kv_heads, d, dt)
    v = torch.randn_like(k)
    scale = 1 / math.sqrt(d)
    out = torch.full_like(q, float("nan"))
    tilec.attention_varlen(q, k, v, cq, ck, max(lens_q), max(lens_k),
                           causal=causal, out=out)
    ref = reference(torch, q, k, v, cu_q, cu_k, causal, scale)
    torch.cuda.synchronize()
    assert not out.isnan().any()
    tol = 2e-2 if dtype == "bfloat16" else 4e-3
    err = (out.double() - ref).abs().max().item()
    assert err < tol, (err, tilec.attention_varlen.__name__)
    # The same bits again (a race would show here).
    again = torch.full_like(q, float("nan"))
    tilec.attention_varlen(q, k, v, cq, ck, max(lens_q), max(lens_k),
                           causal=causal, out=again)
    assert torch.equal(out, again)


def test_attention_varlen_matches_dense(torch_gpu):
    """Sequences of one length: the packed call gives the dense call's
    result (the same kernel body, the same tiles)."""
    torch = torch_gpu
    torch.manual_seed(3)
    B, H, N, D = 3, 4, 384, 128
    q, k, v = (torch.randn(B, N, H, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    cu = torch.arange(0, B * N + 1, N, device="cuda", dtype=torch.int32)
    for causal in (False, True):
        got = tilec.attention_varlen(q.flatten(0, 1), k.flatten(0, 1),
                                     v.flatten(0, 1), cu, cu, N, N,
                                     causal=causal)
        dense = tilec.attention(q.transpose(1, 2), k.transpose(1, 2),
                                v.transpose(1, 2), causal=causal)
        err = (got.view(B, N, H, D).float() -
               dense.transpose(1, 2).float()).abs().max().item()
        assert err < 2e-3, (causal, err)


def test_read_ahead_overlap_is_refused(torch_gpu, repo):
    """fmha_varlen warp-specialized and persistent: its producer reads the
    sequence offsets ahead of the kernel's stores, so a launch whose output
    overlaps the offsets is refused, naming both."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    kern = tilec.compile(os.path.join(repo, "kernels", "flash_attention.tile"),
                         "fmha_varlen", arch="sm_90a", H=2, TILE_D=64,
                         TILE_M=128, TILE_N=128, num_warps=8, num_stages=2,
                         warp_specialize=True, persistent=True, CAUSAL=False)
    assert kern.num_warps == 12
    view = lambda t: t.permute(1, 0, 2)[None]  # noqa: E731
    q = torch.randn(256, 2, 64, device="cuda", dtype=torch.float16)
    out = torch.zeros_like(q)
    cu = torch.tensor([0, 128, 256], device="cuda", dtype=torch.int32)
    table = tile_table(torch, repo, cu, 256, 128)
    kern[(table.shape[1], 2)](view(q), view(q), view(q), view(out), cu, cu,
                              table, 0.125, 128)
    torch.cuda.synchronize()
    # The offsets inside the output: refused before anything runs.
    inside = out.view(-1).view(torch.int32)[:3]
    inside.copy_(cu)
    with pytest.raises(tilec.TileError,
                       match="CuSeqlensQ.*overlaps 'Out', which the kernel "
                             "writes"):
        kern[(table.shape[1], 2)](view(q), view(q), view(q), view(out),
                                  inside, cu, table, 0.125, 128)


# Warp-specialized schedules of the attention API's candidates (the
# producer reading the sequence offsets ahead), persistent or not.
SCHEDULES = [
    dict(TILE_M=128, TILE_N=128, num_warps=8, num_stages=2,
         warp_specialize=True, persistent=True),
    dict(TILE_M=128, TILE_N=128, num_warps=8, num_stages=2,
         warp_specialize=True, persistent=True, tile_stages=1,
         tile_refill_after_read=True, rescale_in_trip=True),
    dict(TILE_M=128, TILE_N=64, num_warps=8, num_stages=2,
         warp_specialize=True),
]


def tile_table(torch, repo, cq, rows, tile_m, arch="sm_90a"):
    """varlen_tiles's table of query tiles for offsets cq (as the attention
    API makes it before each launch)."""
    plan = tilec.compile(os.path.join(repo, "kernels", "flash_attention.tile"),
                         "varlen_tiles", arch=arch, TILE_M=tile_m)
    columns = -(-rows // tile_m) + cq.numel() - 1
    table = torch.full((2, columns), 7, device="cuda", dtype=torch.int32)
    plan[(-(-columns // 64),)](cq, table)
    return table


@pytest.mark.parametrize("tile_m", [64, 128])
def test_varlen_tiles(torch_gpu, repo, tile_m):
    """The table lists each sequence's query tiles in order, sequence by
    sequence (empty sequences have none), then -1: over batches of 1 to 300
    sequences (several chunks of 64), lengths 0, 1, a tile +- 1, long."""
    torch = torch_gpu
    arch = "sm_90a" if torch.cuda.get_device_capability()[0] == 9 else \
        "sm_80"
    rng = random.Random(tile_m)
    for batch in (1, 3, 64, 65, 300):
        lens = [rng.choice([0, 1, tile_m - 1, tile_m, tile_m + 1, 700])
                for _ in range(batch)]
        cu = [0] + list(itertools.accumulate(lens))
        cq = torch.tensor(cu, device="cuda", dtype=torch.int32)
        table = tile_table(torch, repo, cq, cu[-1], tile_m, arch).cpu()
        want = [(b, j) for b, n in enumerate(lens)
                for j in range(-(-n // tile_m))]
        want += [(-1, -1)] * (table.shape[1] - len(want))
        assert [tuple(c) for c in table.t().tolist()] == want, batch


def run_schedules(torch, repo, causal, log=None):
    """fmha_varlen at each schedule, loop split and not, over lengths 0,
    1, a tile +- 1 and more queries than keys; the largest error of each
    against float64."""
    errors = []
    for cfg, split in itertools.product(SCHEDULES, (True, False)):
        kern = tilec.compile(os.path.join(repo, "kernels",
                                          "flash_attention.tile"),
                             "fmha_varlen", arch="sm_90a", H=2, TILE_D=64,
                             CAUSAL=causal, loop_split=split, **cfg)
        assert kern.num_warps == cfg["num_warps"] + 4
        for lens_q, lens_k in (([1, 0, 129, 127, 300], [1, 3, 129, 128, 300]),
                               ([200, 5], [3, 300])):
            q, cq, cu_q = packed(torch, lens_q, 2, 64, torch.float16)
            k, ck, cu_k = packed(torch, lens_k, 2, 64, torch.float16)
            v = torch.randn_like(k)
            out = torch.full_like(q, float("nan"))
            view = lambda t: t.permute(1, 0, 2)[None]  # noqa: E731
            table = tile_table(torch, repo, cq, q.shape[0], cfg["TILE_M"])
            kern[(table.shape[1], 2)](view(q), view(k), view(v), view(out),
                                      cq, ck, table, 0.125, max(lens_k))
            ref = reference(torch, q, k, v, cu_q, cu_k, causal, 0.125)
            torch.cuda.synchronize()
            err = (out.double() - ref).abs().max().item()
            errors.append(err)
            if log:
                log(f"causal={causal} split={split} {cfg} {lens_q} {lens_k}: "
                    f"{err:.1e}")
    return errors


@pytest.mark.parametrize("causal", [False, True])
def test_fmha_varlen_schedules(torch_gpu, repo, causal):
    skip_unless_arch(torch_gpu, "sm_90a")
    errors = run_schedules(torch_gpu, repo, causal)
    assert max(errors) < 4e-3, errors
