"""Slices of a tensor with run-time bounds (`X[a:b, c:]`, tile.subview) on
a GPU, sm_90a and sm_80, against PyTorch on fresh random inputs with
poisoned outputs: the sizes a slice has (bounds clamped into the tensor, a
slice of a slice), segments of a packed batch (a load padding past the
segment's end, not reading the next one; a store writing nothing past it,
the rows between segments left as they were), a column slice at an odd
start (one element an access), and a grouped GEMM of a mixture of experts
whose rows start anywhere (on sm_90a its X tiles copied by TMA through the
slice; warp-specialized and persistent too), and FlashAttention's varlen
forward written with slices of packed sequences (causal aligned to the
bottom right; lengths 0, 1, a tile, past several; on sm_90a plain and
warp-specialized). Skipped without PyTorch and a CUDA GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]

SIZES = """
kernel sizes(X: Tensor[f32, 2], Out: Tensor[i32, 1], a: int, b: int, c: int):
    V = X[a:b, c:]
    W = V[1:]
    i = arange(4)
    store(Out, index=(0,),
          tile=where(i == 0, V.shape[0], where(i == 1, V.shape[1],
                     where(i == 2, W.shape[0], W.shape[1]))))
"""

SEGMENTS = """
kernel segments(X: Tensor[f16, 2], Bounds: Tensor[i32, 1], Y: Tensor[f16, 2],
                P: Tensor[f16, 3], TILE: const int = 32, D: const int = 64):
    s = bid(0)
    first = load(Bounds, index=(2 * s,), shape=(1,)).item()
    last = load(Bounds, index=(2 * s + 1,), shape=(1,)).item()
    Xs = X[first:last]
    Ys = Y[first:last]
    for i in range(cdiv(Xs.shape[0], TILE)):
        x = load(Xs, index=(i, 0), shape=(TILE, D), padding=-7.0)
        store(Ys, index=(i, 0), tile=x * 2.0)
    # the segment's first tile again, padded past its end, into P[s]
    p = load(Xs, index=(0, 0), shape=(TILE, D), padding=-7.0)
    store(P, index=(s, 0, 0), tile=p.reshape((1, TILE, D)))
"""

COLUMNS = """
kernel columns(X: Tensor[f32, 2], Y: Tensor[f32, 2], c: int,
               ROWS: const int = 16, D: const int = 64):
    x = load(X[:, c:], index=(bid(0), 0), shape=(ROWS, D))
    store(Y, index=(bid(0), 0), tile=x)
"""

GROUPED = """
kernel grouped(X: Tensor[DT, 2], W: Tensor[DT, 3], Offsets: Tensor[i32, 1],
               Sched: Tensor[i32, 2], Y: Tensor[DT, 2], DT: const dtype = bf16,
               TILE_M: const int = 128, TILE_N: const int = 128,
               TILE_K: const int = 64):
    t = bid(0)
    e = load(Sched, index=(0, t), shape=(1, 1)).item()
    first = load(Sched, index=(1, t), shape=(1, 1)).item()
    end = load(Offsets, index=(e + 1,), shape=(1,)).item()
    Xe = X[first:, :]
    acc = zeros((TILE_M, TILE_N), dtype=f32)
    for k in range(cdiv(X.shape[1], TILE_K)):
        x = load(Xe, index=(0, k), shape=(TILE_M, TILE_K))
        w = load(W, index=(e, k, bid(1)), shape=(1, TILE_K, TILE_N),
                 order=(0, 2, 1))
        acc = mma(x, w.reshape((TILE_K, TILE_N)), acc)
    store(Y[first:end], index=(0, bid(1)), tile=acc.astype(DT))
"""

VARLEN = """
# FlashAttention's varlen forward written plainly: sequences packed end to
# end, sequence b the rows Cu[b] to Cu[b + 1] - 1 of Q, K, V and O, each
# (1, heads, total, D) views of (total, heads, D) tensors; causal aligned to
# the bottom right (query i sees keys up to i + k_len - q_len).
kernel varlen(Q: Tensor[f16, 4], K: Tensor[f16, 4], V: Tensor[f16, 4],
              O: Tensor[f16, 4], CuQ: Tensor[i32, 1], CuK: Tensor[i32, 1],
              scale: float, H: const int = 4, D: const int = 64,
              TILE_M: const int = 64, TILE_N: const int = 64,
              CAUSAL: const bool = False):
    b = bid(1) // H
    h = bid(1) % H
    q0 = load(CuQ, index=(b,), shape=(1,)).item()
    q1 = load(CuQ, index=(b + 1,), shape=(1,)).item()
    k0 = load(CuK, index=(b,), shape=(1,)).item()
    k1 = load(CuK, index=(b + 1,), shape=(1,)).item()
    Qb = Q[:, :, q0:q1]
    Kb = K[:, :, k0:]          # to the end: TMA on sm_90a; keys past k1 masked
    Vb = V[:, :, k0:]
    n_k = k1 - k0
    shift = n_k - (q1 - q0)
    rows = bid(0) * TILE_M + arange(TILE_M)[:, None] + shift
    q = load(Qb, index=(0, h, bid(0), 0), shape=(1, 1, TILE_M, D)).reshape((TILE_M, D))
    m_i = full((TILE_M, 1), -inf, dtype=f32)
    l_i = zeros((TILE_M, 1), dtype=f32)
    acc = zeros((TILE_M, D), dtype=f32)
    trips = cdiv(n_k, TILE_N)
    if CAUSAL:
        trips = cdiv(max(min(n_k, shift + (bid(0) + 1) * TILE_M), 0), TILE_N)
    if bid(0) * TILE_M >= q1 - q0:
        trips = 0
    for j in range(trips):
        k = load(Kb, index=(0, h, 0, j), shape=(1, 1, D, TILE_N),
                 order=(0, 1, 3, 2), latency=2).reshape((D, TILE_N))
        s = mma(q, k, zeros((TILE_M, TILE_N), dtype=f32)) * scale
        cols = j * TILE_N + arange(TILE_N)[None, :]
        ok = cols < n_k
        if CAUSAL:
            ok = ok & (cols <= rows)
        s = where(ok, s, -inf)
        m_new = max(m_i, max(s, axis=1, keepdims=True))
        p = exp(s - m_new)
        alpha = exp(m_i - m_new)
        l_i = l_i * alpha + sum(p, axis=1, keepdims=True)
        v = load(Vb, index=(0, h, j, 0), shape=(1, 1, TILE_N, D),
                 latency=2).reshape((TILE_N, D))
        acc = mma(p.astype(f16), v, acc * alpha)
        m_i = m_new
    out = (acc / l_i).astype(f16).reshape((1, 1, TILE_M, D))
    store(O[:, :, q0:q1], index=(0, h, bid(0), 0), tile=out)
"""


def clamp(v, lo, hi):
    return max(lo, min(v, hi))


@pytest.mark.parametrize("arch", ARCHS)
def test_slice_sizes(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    k = tilec.compile(SIZES, name="sizes.tile", arch=arch)
    R, C = 50, 70
    x = torch.zeros(R, C, device="cuda")
    for a, b, c in ((3, 20, 5), (-4, 10, 0), (10, 5, 69), (40, 500, 80),
                    (60, 70, -1), (0, 1, 0)):
        out = torch.full((4,), -99, device="cuda", dtype=torch.int32)
        k[(1,)](x, out, a, b, c)
        s = clamp(a, 0, R)
        rows = clamp(b, s, R) - s
        cols = C - clamp(c, 0, C)
        ref = [rows, cols, rows - min(1, rows), cols]
        assert out.tolist() == ref, (a, b, c)


@pytest.mark.parametrize("arch", ARCHS)
def test_segments(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(11)
    TILE, D = 32, 64
    # Segments with gaps between them (left as they were), of lengths 0,
    # under a tile, a tile, over several tiles; one running past the end.
    bounds = [0, 5, 9, 9, 12, 44, 50, 150, 151, 152, 160, 400]
    R = 170
    S = len(bounds) // 2
    x = torch.randn(R, D, device="cuda").half()
    y = torch.full((R, D), float("nan"), device="cuda").half()
    p = torch.full((S, TILE, D), float("nan"), device="cuda").half()
    b = torch.tensor(bounds, device="cuda", dtype=torch.int32)
    k = tilec.compile(SEGMENTS, name="segments.tile", arch=arch)
    k[(S,)](x, b, y, p)
    torch.cuda.synchronize()
    ref = torch.full((R, D), float("nan"), device="cuda").half()
    ref_p = torch.full((S, TILE, D), -7.0, device="cuda").half()
    for s in range(S):
        lo, hi = min(bounds[2 * s], R), min(bounds[2 * s + 1], R)
        ref[lo:hi] = x[lo:hi] * 2
        n = min(hi - lo, TILE)
        ref_p[s, :n] = x[lo:lo + n]
    assert torch.equal(y.isnan(), ref.isnan())
    assert torch.equal(y.nan_to_num(), ref.nan_to_num())
    assert torch.equal(p, ref_p)


@pytest.mark.parametrize("arch", ARCHS)
def test_unaligned_columns(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(12)
    x = torch.randn(64, 80, device="cuda")
    k = tilec.compile(COLUMNS, name="columns.tile", arch=arch)
    for c in (0, 3, 8, 17, 79):
        y = torch.full((64, 64), float("nan"), device="cuda")
        k[(4,)](x, y, c)
        ref = torch.zeros(64, 64, device="cuda")
        ref[:, :80 - c] = x[:, c:c + 64]
        assert torch.equal(y, ref), c


@pytest.mark.parametrize("arch,opts", [
    ("sm_90a", {}), ("sm_90a", {"warp_specialize": True}),
    ("sm_90a", {"persistent": True}), ("sm_80", {})])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_grouped_gemm(torch_gpu, arch, opts, dtype):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(13)
    tdt = getattr(torch, dtype)
    E, K, N, TILE_M = 6, 320, 256, 128
    sizes = [0, 1, 127, 300, 129, 64]
    offsets = [0]
    for n in sizes:
        offsets.append(offsets[-1] + n)
    T = offsets[-1]
    x = (torch.randn(T, K, device="cuda") / 8).to(tdt)
    w = (torch.randn(E, N, K, device="cuda") / 8).to(tdt)
    sched = [(e, f) for e in range(E)
             for f in range(offsets[e], offsets[e + 1], TILE_M)]
    sched_t = torch.tensor(sched, device="cuda",
                           dtype=torch.int32).t().contiguous()
    offs = torch.tensor(offsets, device="cuda", dtype=torch.int32)
    y = torch.full((T, N), float("nan"), device="cuda").to(tdt)
    dsl = {"bfloat16": "bf16", "float16": "f16"}[dtype]
    k = tilec.compile(GROUPED, name="grouped.tile", arch=arch, DT=dsl, **opts)
    k[(len(sched), N // 128)](x, w, offs, sched_t, y)
    torch.cuda.synchronize()
    ref = torch.empty(T, N, dtype=torch.float64, device="cuda")
    for e in range(E):
        lo, hi = offsets[e], offsets[e + 1]
        ref[lo:hi] = x[lo:hi].double() @ w[e].double().t()
    err = (y.double() - ref).abs().max().item()
    assert not y.isnan().any()
    assert err < 2e-2, err


@pytest.mark.parametrize("arch,opts", [
    ("sm_90a", {}), ("sm_90a", {"warp_specialize": True}), ("sm_80", {})])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_attention(torch_gpu, arch, opts, causal):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(14)
    H, D = 4, 64
    lens_q = [1, 64, 0, 130, 65, 200]
    lens_k = [1, 64, 5, 130, 200, 200]
    cu_q, cu_k = [0], [0]
    for a, b in zip(lens_q, lens_k):
        cu_q.append(cu_q[-1] + a)
        cu_k.append(cu_k[-1] + b)
    q = torch.randn(cu_q[-1], H, D, device="cuda").half()
    k = torch.randn(cu_k[-1], H, D, device="cuda").half()
    v = torch.randn(cu_k[-1], H, D, device="cuda").half()
    o = torch.full_like(q, float("nan"))
    view = lambda t: t.permute(1, 0, 2)[None]  # noqa: E731
    kern = tilec.compile(VARLEN, name="varlen.tile", arch=arch, H=H, D=D,
                         CAUSAL=causal, **opts)
    grid = (-(-max(lens_q) // 64), len(lens_q) * H)
    cq = torch.tensor(cu_q, device="cuda", dtype=torch.int32)
    ck = torch.tensor(cu_k, device="cuda", dtype=torch.int32)
    kern[grid](view(q), view(k), view(v), view(o), cq, ck, D ** -0.5)
    torch.cuda.synchronize()
    for b in range(len(lens_q)):
        qs = q[cu_q[b]:cu_q[b + 1]].double().transpose(0, 1)
        ks = k[cu_k[b]:cu_k[b + 1]].double().transpose(0, 1)
        vs = v[cu_k[b]:cu_k[b + 1]].double().transpose(0, 1)
        s = qs @ ks.transpose(1, 2) * D ** -0.5
        if causal:
            nq, nk = qs.shape[1], ks.shape[1]
            keep = (torch.arange(nk, device="cuda")[None, :] <=
                    torch.arange(nq, device="cuda")[:, None] + nk - nq)
            s = s.masked_fill(~keep, float("-inf"))
        ref = (torch.softmax(s, -1) @ vs).transpose(0, 1)
        got = o[cu_q[b]:cu_q[b + 1]].double()
        # (A causal query row that sees no key, q_len > k_len, is 0/0.)
        assert torch.allclose(got.nan_to_num(), ref.nan_to_num(), atol=2e-2), b
