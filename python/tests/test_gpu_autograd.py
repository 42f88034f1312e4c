"""tilec.attention's gradients (tilec.autograd: the DSL's forward with LSE
and backward kernels) against a float64 reference, as close as PyTorch's
own SDPA; torch.ops.tilec.attention's gradients in eager mode and under
torch.compile(fullgraph=True); what the backward does not support refused
with a message naming the argument."""

import math

import pytest

import tilec
from tilec import ArgumentError


def reference(torch, q, k, v, causal, scale):
    # Grouped-query attention: K/V head j serves query heads j*G .. j*G+G-1.
    group = q.shape[1] // k.shape[1]
    k, v = (t.repeat_interleave(group, dim=1) for t in (k, v))
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if causal:
        # Key j masked for query i when j > i (any lengths).
        s = s.masked_fill(torch.ones(q.shape[2], k.shape[2], device=q.device,
                                     dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v.double()


def grads(torch, fn, q, k, v, dout):
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = fn(qs, ks, vs)
    out.backward(dout)
    return out.detach(), qs.grad, ks.grad, vs.grad


def check_against_float64(torch, fn, q, k, v, dout, causal, scale, dtype):
    ours = grads(torch, fn, q, k, v, dout)
    ref = grads(torch, lambda a, b, c: reference(torch, a, b, c, causal,
                                                 scale),
                q.double(), k.double(), v.double(), dout.double())
    theirs = grads(torch, lambda a, b, c:
                   torch.nn.functional.scaled_dot_product_attention(
                       a, b, c, is_causal=causal, scale=scale,
                       enable_gqa=k.shape[1] != q.shape[1]), q, k, v,
                   dout)
    for name, got, want, sdpa, like in zip(("out", "dq", "dk", "dv"), ours,
                                           ref, theirs, (q, q, k, v)):
        assert got.dtype == q.dtype and got.shape == like.shape, name
        assert torch.isfinite(got).all(), name
        err = ((got.double() - want).norm() / want.norm()).item()
        sdpa_err = ((sdpa.double() - want).norm() / want.norm()).item()
        # As close as PyTorch's own, within a factor (dQ's f32 atomics and
        # the approximate exp2 add a little), plus a unit of the dtype.
        unit = 2**-10 if dtype == "float16" else 2**-7
        assert err <= 3 * sdpa_err + unit, (name, err, sdpa_err)


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("shape", [(2, 3, 256, 64), (1, 2, 192, 128),
                                   (1, 3, 128, 96), (1, 2, 200, 256),
                                   (1, 2, 200, 192), (1, 1, 8200, 256)])
def test_attention_gradients(torch_gpu, dtype, causal, shape):
    # (1, 1, 8200, 256): the forward's 128 x 80 tiles from 8192 keys
    # (autograd.forward_tiles), the last key tile partial.
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    dt = getattr(torch, dtype)
    q, k, v, dout = (torch.randn(shape, device="cuda", dtype=dt)
                     for _ in range(4))
    scale = 1 / math.sqrt(shape[-1])
    check_against_float64(
        torch, lambda a, b, c: tilec.attention(a, b, c, causal=causal), q, k,
        v, dout, causal, scale, dtype)


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("shape", [(2, 8, 2, 256, 64), (1, 6, 1, 192, 128),
                                   (1, 4, 4, 128, 64), (1, 4, 2, 130, 256),
                                   (1, 4, 2, 130, 192)])
def test_attention_gradients_grouped_query(torch_gpu, dtype, causal, shape):
    """Grouped-query (8 query heads on 2 K/V heads) and multi-query (6 on
    1) attention: dK and dV summed over the query heads sharing a K/V head
    (each backward block loops over them), against float64; 4 on 4 is the
    plain case through the same loop."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, hq, hk, n, d = shape
    dt = getattr(torch, dtype)
    q, dout = (torch.randn(b, hq, n, d, device="cuda", dtype=dt)
               for _ in range(2))
    k, v = (torch.randn(b, hk, n, d, device="cuda", dtype=dt)
            for _ in range(2))
    check_against_float64(
        torch, lambda a, b_, c: tilec.attention(a, b_, c, causal=causal), q,
        k, v, dout, causal, 1 / math.sqrt(d), dtype)


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("shape", [(2, 4, 4, 256, 64), (1, 8, 2, 192, 128),
                                   (1, 3, 1, 128, 96), (1, 4, 2, 192, 256),
                                   (1, 4, 2, 192, 192)])
def test_attention_gradients_deterministic(torch_gpu, causal, shape):
    """dQ from a kernel of its own (no atomics), so the gradients are the
    same bits on every run (deterministic=True, and as it is with
    torch.use_deterministic_algorithms(True)), within the float64
    reference's tolerance."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, hq, hk, n, d = shape
    q, dout = (torch.randn(b, hq, n, d, device="cuda", dtype=torch.float16)
               for _ in range(2))
    k, v = (torch.randn(b, hk, n, d, device="cuda", dtype=torch.float16)
            for _ in range(2))

    def det(a, b_, c):
        return tilec.attention(a, b_, c, causal=causal, deterministic=True)
    check_against_float64(torch, det, q, k, v, dout, causal,
                          1 / math.sqrt(d), "float16")
    first = grads(torch, det, q, k, v, dout)
    for _ in range(3):
        again = grads(torch, det, q, k, v, dout)
        for name, a, b_ in zip(("out", "dq", "dk", "dv"), first, again):
            assert torch.equal(a, b_), name
    keep = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        through_torch = grads(torch, lambda a, b_, c: tilec.attention(
            a, b_, c, causal=causal), q, k, v, dout)
    finally:
        torch.use_deterministic_algorithms(keep)
    for name, a, b_ in zip(("out", "dq", "dk", "dv"), first, through_torch):
        assert torch.equal(a, b_), name


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("shape", [(1, 2, 1, 100, 100, 64),
                                   (2, 2, 2, 77, 200, 64),
                                   (1, 4, 2, 250, 130, 128),
                                   (1, 3, 3, 5, 65, 96)])
def test_attention_gradients_any_lengths(torch_gpu, causal, shape):
    """Sequence lengths that are not multiples of a tile, and seq_q !=
    seq_k (causal: key j masked for query i when j > i), with grouped
    heads: gradients against the float64 reference."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, hq, hk, nq, nk, d = shape
    q, dout = (torch.randn(b, hq, nq, d, device="cuda", dtype=torch.float16)
               for _ in range(2))
    k, v = (torch.randn(b, hk, nk, d, device="cuda", dtype=torch.float16)
            for _ in range(2))
    check_against_float64(
        torch, lambda a, b_, c: tilec.attention(a, b_, c, causal=causal), q,
        k, v, dout, causal, 1 / math.sqrt(d), "float16")


@pytest.mark.parametrize("causal", (False, True))
def test_attention_gradients_without_queries(torch_gpu, causal):
    """No query (seq_q = 0) against keys: dK and dV are zeros (they were
    left unwritten), dQ empty."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    q = torch.randn(1, 4, 0, 64, device="cuda", dtype=torch.float16,
                    requires_grad=True)
    k, v = (torch.randn(1, 2, 33, 64, device="cuda", dtype=torch.float16,
                        requires_grad=True) for _ in range(2))
    # Memory that held non-zeros, for the gradients to be allocated from.
    torch.full((1, 2, 33, 64), float("nan"), device="cuda",
               dtype=torch.float16)
    out = tilec.attention(q, k, v, causal=causal)
    assert out.shape == q.shape
    dq, dk, dv = torch.autograd.grad(out.sum(), (q, k, v),
                                     allow_unused=True)
    assert dq.shape == q.shape
    assert torch.equal(dk, torch.zeros_like(k))
    assert torch.equal(dv, torch.zeros_like(v))


@pytest.mark.parametrize("causal,d", [(False, 128), (True, 128), (True, 64),
                                      (False, 64)])
def test_attention_gradients_by_atomics(torch_gpu, causal, d):
    """From 4096 queries at head_dim 128 (2048 at 64) the default
    backward adds dQ by atomics (tilec.autograd.uses_atomics): gradients
    within the float64 reference's tolerance, as deterministic=True's (its
    own dQ kernel) are; the two dQ agree to a few units of f16 (different
    f32 sums)."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, hq, hk, n = 1, 2, 1, 4096
    assert tilec.autograd.uses_atomics(d, n, causal, None)
    assert not tilec.autograd.uses_atomics(d, n, causal, True)
    assert not tilec.autograd.uses_atomics(d, 512, causal, None)
    assert tilec.autograd.uses_atomics(64, 2048, causal, None)
    assert not tilec.autograd.uses_atomics(64, 1024, causal, None)
    assert not tilec.autograd.uses_atomics(128, 2048, causal, None)
    assert not tilec.autograd.uses_atomics(96, n, causal, None)
    q, dout = (torch.randn(b, hq, n, d, device="cuda", dtype=torch.float16)
               for _ in range(2))
    k, v = (torch.randn(b, hk, n, d, device="cuda", dtype=torch.float16)
            for _ in range(2))
    scale = 1 / math.sqrt(d)
    check_against_float64(
        torch, lambda a, b_, c: tilec.attention(a, b_, c, causal=causal), q,
        k, v, dout, causal, scale, "float16")
    fast = grads(torch, lambda a, b_, c: tilec.attention(
        a, b_, c, causal=causal), q, k, v, dout)
    det = grads(torch, lambda a, b_, c: tilec.attention(
        a, b_, c, causal=causal, deterministic=True), q, k, v, dout)
    for name, a, b_ in zip(("out", "dq", "dk", "dv"), fast, det):
        err = ((a.float() - b_.float()).norm() / b_.float().norm()).item()
        assert err < 2**-9, (name, err)


ATOMIC_CONFIGS = [dict(D=64), dict(D=128),
                  dict(D=96, TILE_N=128, num_warps=8),
                  dict(D=128, TILE_N=128, num_warps=8),
                  dict(D=64, TILE_N=128, num_warps=8),
                  # autograd's at head_dim 64 (128 queries a trip)
                  dict(D=64, TILE_M=128, TILE_N=128, num_warps=8)]


def check_backward_kernel_with_atomics(torch, config, causal, b, hq, hk, nq,
                                       nk):
    """attn_bwd with DQ_ATOMIC=True against the autograd backward's dQ, dK,
    dV (poisoned dK and dV, dQ zeroed as the kernel adds to it; its sum
    times the scale is dQ)."""
    import os
    d = config["D"]
    q, dout = (torch.randn(b, hq, nq, d, device="cuda", dtype=torch.float16)
               for _ in range(2))
    k, v = (torch.randn(b, hk, nk, d, device="cuda", dtype=torch.float16)
            for _ in range(2))
    scale = 1 / math.sqrt(d)
    out, lse = tilec.autograd.forward(q, k, v, causal, scale, "f16")
    want = tilec.autograd.backward(q, k, v, out, lse, dout, causal, scale,
                                   "f16")
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "kernels", "flash_attention_bwd.tile")
    pre = tilec.compile(path, kernel="attn_bwd_preprocess", D=d)
    bwd = tilec.compile(path, kernel="attn_bwd", CAUSAL=causal,
                        DQ_ATOMIC=True, **config)
    delta = torch.empty(b * hq, nq, device="cuda")
    pre[((nq + 63) // 64, b * hq)](out, dout, delta)
    dq = torch.zeros(b, hq, nq, d, device="cuda")
    dk, dv = (torch.full((b, hk, nk, d), float("nan"), device="cuda",
                         dtype=torch.float16) for _ in range(2))
    keys = config.get("TILE_N", 64)
    bwd[((nk + keys - 1) // keys, b * hk)](
        q, k, v, dout, lse.reshape(b * hq, -1), delta, dq, dk, dv, scale)
    # The kernel adds dQ / scale (dS unscaled in its loop).
    for name, got, ref in zip(("dq", "dk", "dv"), (dq * scale, dk, dv),
                              want):
        got, ref = got.reshape(ref.shape).double(), ref.double()
        assert torch.isfinite(got).all(), name
        if ref.norm() == 0:  # no query sees these keys: zeros
            assert torch.equal(got, ref), name
            continue
        err = ((got - ref).norm() / ref.norm()).item()
        assert err < 2**-9, (name, err)


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("config", ATOMIC_CONFIGS)
def test_backward_kernel_with_atomics(torch_gpu, causal, config):
    """attn_bwd with DQ_ATOMIC (its share of dQ added by atomics, the
    autograd backward's alternative it does not take): dQ, dK, dV as the
    autograd backward's, within a unit of f16 after the norm (the atomics'
    order and dQ's f32 sum differ in the last bits), on two query heads
    per K/V head and a partial last key block."""
    from conftest import skip_unless_arch
    skip_unless_arch(torch_gpu, "sm_90a")
    check_backward_kernel_with_atomics(torch_gpu, config, causal, 1, 4, 2,
                                       192, 192)


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("config", ATOMIC_CONFIGS[:2] + ATOMIC_CONFIGS[3:4] +
                         ATOMIC_CONFIGS[5:])
@pytest.mark.parametrize("group", (1, 2))
def test_backward_kernel_with_atomics_few_trips(torch_gpu, causal, config,
                                                group):
    """The same over 64 queries and 256 keys: a block's loop runs one query
    tile per query head sharing its K/V head (1 or 2 trips), and causal, the
    key blocks past the queries run none (their dK, dV zeros)."""
    from conftest import skip_unless_arch
    skip_unless_arch(torch_gpu, "sm_90a")
    check_backward_kernel_with_atomics(torch_gpu, config, causal, 1,
                                       2 * group, 2, 64, 256)


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("d", (64, 96, 128))
def test_backward_kernels_for_sm80(torch_gpu, causal, d):
    """The backward's kernels as an A100 gets them (sm_80: mma.sync, the
    compiler's choice of warps, no options given): 8 warps, no spill on an
    A100 (on the default 4 they spilled at D = 64 and needed more shared
    memory than sm_80 has at 96 and 128), and dQ, dK, dV as close to the
    float64 reference as PyTorch's SDPA (poisoned outputs; a partial last
    tile)."""
    import os
    torch = torch_gpu
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "kernels", "flash_attention_bwd.tile")
    pre = tilec.compile(path, kernel="attn_bwd_preprocess", arch="sm_80",
                        D=d)
    bwd, dq_kernel = (tilec.compile(path, kernel=name, arch="sm_80", D=d,
                                    CAUSAL=causal, **extra)
                      for name, extra in (("attn_bwd", {"DQ_ATOMIC": False}),
                                          ("attn_bwd_dq", {})))
    for kernel in (bwd, dq_kernel):
        assert kernel.num_warps == 8, kernel
        # (The driver's code for a later GPU may differ: on an H200 the
        # dK/dV kernel at D = 128 spills 8 bytes where ptxas for sm_80
        # spills none, which lit's auto-schedule.test checks.)
        if torch.cuda.get_device_capability() == (8, 0):
            assert not any("spill" in w for w in kernel.warnings), \
                kernel.warnings
    b, h, n = 1, 3, 200
    q, k, v, dout = (torch.randn(b, h, n, d, device="cuda",
                                 dtype=torch.float16) for _ in range(4))
    scale = 1 / math.sqrt(d)

    class Sm80Backward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v):
            out, lse = tilec.autograd.forward(q, k, v, causal, scale, "f16")
            ctx.save_for_backward(q, k, v, out, lse)
            return out

        @staticmethod
        def backward(ctx, do):
            q, k, v, out, lse = ctx.saved_tensors
            padded = (n + 63) // 64 * 64
            delta = torch.full((b * h, padded), float("nan"), device="cuda")
            dq, dk, dv = (torch.full((b, h, n, d), float("nan"),
                                     device="cuda", dtype=q.dtype)
                          for _ in range(3))
            do = do.contiguous()
            lse2 = lse.reshape(b * h, padded)
            pre[(padded // 64, b * h)](out, do, delta)
            unused = torch.empty(1, 1, 1, 1, device="cuda")
            bwd[((n + 63) // 64, b * h)](q, k, v, do, lse2, delta, unused,
                                         dk, dv, scale)
            dq_kernel[(padded // 64, b * h)](q, k, v, do, lse2, delta, dq,
                                             scale)
            return dq, dk, dv

    check_against_float64(torch, Sm80Backward.apply, q, k, v, dout, causal,
                          scale, "float16")


def test_attention_gradients_custom_scale_strided(torch_gpu):
    """A scale of its own, and q, k, v as views of a (batch, seq, heads,
    dim) tensor (transposed strides)."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    qkv = torch.randn(2, 128, 3, 4, 64, device="cuda", dtype=torch.float16)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    dout = torch.randn(2, 4, 128, 64, device="cuda", dtype=torch.float16)
    check_against_float64(
        torch, lambda a, b, c: tilec.attention(a, b, c, causal=True,
                                               scale=0.3),
        q, k, v, dout, True, 0.3, "float16")


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("split", (1, 2, 4))
def test_attention_gradients_partial_kv_sums(torch_gpu, monkeypatch, causal,
                                             split):
    """Grouped-query attention's dK and dV from S partial sums per K/V head
    (tilec.autograd.kv_split; S = 1: summed in the kernel's registers, S =
    4: per query head), with the layouts a transformers model hands over
    (q, k, v, dO transposed views of (batch, seq, heads, dim) tensors);
    against float64, and the same bits twice with deterministic=True."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    import tilec.autograd
    monkeypatch.setattr(tilec.autograd, "KV_SPLIT", split)
    b, hq, hk, n, d = 2, 8, 2, 320, 128

    def bshd(heads):
        return torch.randn(b, n, heads, d, device="cuda",
                           dtype=torch.bfloat16).transpose(1, 2)
    q, dout, k, v = bshd(hq), bshd(hq), bshd(hk), bshd(hk)
    check_against_float64(
        torch, lambda a, b_, c: tilec.attention(a, b_, c, causal=causal), q,
        k, v, dout, causal, 1 / math.sqrt(d), "bfloat16")

    def det(a, b_, c):
        return tilec.attention(a, b_, c, causal=causal, deterministic=True)
    first, again = (grads(torch, det, q, k, v, dout) for _ in range(2))
    for name, x, y in zip(("out", "dq", "dk", "dv"), first, again):
        assert torch.equal(x, y), name


def test_attention_output_and_gradients_follow_layouts(torch_gpu):
    """out and dQ, dK, dV are laid out like q, k and v (a transformers
    model's transposed views: its transpose back is then free), and an
    expanded dO (out.sum()'s: strides 0) is taken."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, h, n, d = 2, 4, 192, 64
    leaves = [torch.randn(b, n, h, d, device="cuda", dtype=torch.float16,
                          requires_grad=True) for _ in range(3)]
    q, k, v = (t.transpose(1, 2) for t in leaves)
    out = tilec.attention(q, k, v, causal=True)
    assert out.stride() == q.stride()
    got = torch.autograd.grad(out.sum(), (q, k, v))
    for g, like in zip(got, (q, k, v)):
        assert g.stride() == like.stride()
    ref = grads(torch, lambda a, b_, c: reference(torch, a, b_, c, True,
                                                  1 / math.sqrt(d)),
                q.double(), k.double(), v.double(),
                torch.ones(b, h, n, d, device="cuda", dtype=torch.float64))
    for name, g, want in zip(("dq", "dk", "dv"), got, ref[1:]):
        err = ((g.double() - want).norm() / want.norm()).item()
        assert err < 1e-2, (name, err)


def test_atomic_dq_follows_layouts(torch_gpu):
    """The atomics path's dQ (an f32 sum scaled and rounded by
    attn_bwd_dq_convert) written into q's transposed layout: its strides
    q's, its values those of the deterministic path's dQ kernel to a few
    units of f16, and no element past the sequence's rows touched."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    b, h, n, d = 1, 2, 2100, 64
    assert tilec.autograd.uses_atomics(d, n, False, None)
    torch.manual_seed(11)
    leaves = [torch.randn(b, n, h, d, device="cuda", dtype=torch.float16,
                          requires_grad=True) for _ in range(3)]
    q, k, v = (t.transpose(1, 2) for t in leaves)
    dout = torch.randn(b, h, n, d, device="cuda", dtype=torch.float16)
    got = torch.autograd.grad(tilec.attention(q, k, v), (q,), dout)[0]
    assert got.stride() == q.stride()
    want = torch.autograd.grad(tilec.attention(q, k, v, deterministic=True),
                               (q,), dout)[0]
    assert torch.allclose(got.float(), want.float(), rtol=2e-2, atol=2e-3)


def test_torch_op_gradients_and_compile(torch_gpu):
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    import tilec.torch_ops  # noqa: F401
    def op(a, b, c):
        return torch.ops.tilec.attention(a, b, c, True, None, 0)
    # One K/V head per query head, and two query heads per K/V head.
    for kv_heads in (4, 2):
        q, dout = (torch.randn(1, 4, 128, 64, device="cuda",
                               dtype=torch.bfloat16) for _ in range(2))
        k, v = (torch.randn(1, kv_heads, 128, 64, device="cuda",
                            dtype=torch.bfloat16) for _ in range(2))
        check_against_float64(torch, op, q, k, v, dout, True, 1 / 8,
                              "bfloat16")
        eager = grads(torch, op, q, k, v, dout)
        compiled = grads(torch, torch.compile(op, fullgraph=True), q, k, v,
                         dout)
        for a, b in zip(eager, compiled):
            assert ((a.float() - b.float()).norm() /
                    a.float().norm()).item() < 1e-2


def test_attention_without_grad_is_unchanged(torch_gpu):
    """Inputs that require grad under no_grad (and inputs that do not)
    take the forward of old: GQA works there."""
    torch = torch_gpu
    q = torch.randn(1, 4, 64, 64, device="cuda", dtype=torch.float16,
                    requires_grad=True)
    k = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.float16,
                    requires_grad=True)
    with torch.no_grad():
        out = tilec.attention(q, k, k)
    assert not out.requires_grad


def test_gradient_arguments(torch_gpu):
    torch = torch_gpu

    def t(*shape, dtype=torch.float16):
        return torch.randn(*shape, device="cuda", dtype=dtype,
                           requires_grad=True)
    q = t(1, 4, 128, 64)
    cases = [
        (lambda: tilec.attention(q, t(1, 3, 128, 64), t(1, 3, 128, 64)),
         "k, v: with gradients, k and v must both be (batch, kv_heads, "
         "seq_k, head_dim) = (1, H, S, 64) with H dividing q's 4 heads"),
        (lambda: tilec.attention(q, t(1, 2, 128, 64), t(1, 1, 128, 64)),
         "k, v: with gradients, k and v must both be"),
        (lambda: tilec.attention(q, t(1, 4, 0, 64), t(1, 4, 0, 64)),
         "and S >= 1"),
        (lambda: tilec.attention(t(1, 2, 128, 160), t(1, 2, 128, 160),
                                 t(1, 2, 128, 160)),
         "head_dim must be 64, 96, 128, 192 or 256"),
        (lambda: tilec.attention(q, q, q, input_pos=3),
         "input_pos: with gradients"),
        (lambda: tilec.attention(q, q, q, out=torch.empty_like(q)),
         "out: not supported when q, k or v requires grad"),
        (lambda: tilec.attention(q, q, q, scale=float("nan")),
         "scale: expected a finite float"),
        (lambda: tilec.attention(q, q.float(), q), "k: expected float16"),
        (lambda: tilec.attention(q, q, q, deterministic="yes"),
         "deterministic: expected a bool or None"),
    ]
    for call, message in cases:
        with pytest.raises(ArgumentError) as info:
            call()
        assert message in str(info.value), (message, str(info.value))


def test_attention_under_autocast(torch_gpu):
    """float32 q, k, v under CUDA autocast are taken in autocast's dtype (as
    SDPA takes them), with gradients back in float32."""
    torch = torch_gpu
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    q, k, v = (torch.randn(1, 2, 128, 64, device="cuda",
                           requires_grad=True) for _ in range(3))
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = tilec.attention(q, k, v, causal=True)
        ref = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=True)
    assert out.dtype == torch.bfloat16 == ref.dtype
    out.float().sum().backward()
    assert q.grad.dtype == torch.float32 and torch.isfinite(q.grad).all()
    assert ((out.float() - ref.float()).abs().max() < 2e-2).item()
