"""Slices of a tensor with run-time bounds (`X[a:b, c:]`, tile.subview) on
a GPU, sm_90a and sm_80, against PyTorch on fresh random inputs with
poisoned outputs: the sizes a slice has (bounds clamped into the tensor, a
slice of a slice), segments of a packed batch (a load padding past the
segment's end, not reading the next one; a store writing nothing past it,
the rows between segments left as they were), a column slice at an odd
start (one element an access), and a grouped GEMM of a mixture of experts
whose rows start anywhere (on sm_90a its X tiles copied by TMA through the
slice; warp-specialized and persistent too). Skipped without PyTorch and a CUDA GPU."""

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
