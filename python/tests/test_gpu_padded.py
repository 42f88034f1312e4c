"""Tiles whose dimensions are not powers of two (held padded), on a GPU, on
sm_90a and sm_80, against float64 references on fresh random inputs with
poisoned outputs: loads, stores and arithmetic at the tile's own size (the
padding never read or written in memory, neighbours left intact), row and
column reductions and cumsum along a padded axis (the padding not counted),
argmax, slices that end past a power of two, gathers and atomics, and
multiplies whose N (96) and K (80) are the tiles' own: wgmma m64n96 on
sm_90a and mma.sync on sm_80, in a pipelined GEMM loop. Skipped without
PyTorch and a CUDA GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]


ROWS = """
kernel rows(X: Tensor[f32, 2], Y: Tensor[f32, 2], S: Tensor[f32, 1],
            M: Tensor[f32, 2], C: Tensor[f32, 2], A: Tensor[i32, 1],
            R: const int = 48, D: const int = 96):
    x = load(X, index=(bid(0), 0), shape=(R, D), padding=1000.0)
    store(Y, index=(bid(0), 0), tile=x * 2.0 + 1.0)
    store(S, index=(bid(0),), tile=sum(x, axis=1))
    store(M, index=(bid(0), 0), tile=max(x, axis=0, keepdims=True))
    store(C, index=(bid(0), 0), tile=cumsum(x, axis=1))
    store(A, index=(bid(0),), tile=argmax(x, axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("shape", [(48, 96), (6, 80), (64, 24), (3, 40)])
def test_padded_rows(torch_gpu, arch, shape):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    R, D = shape
    torch.manual_seed(R * 1000 + D)
    blocks = 3
    # The tensor is wider than the tile: columns past D are someone else's.
    x = torch.randn(blocks * R, D + 16, device="cuda")
    y = torch.full_like(x, float("nan"))
    s = torch.full((blocks * R,), float("nan"), device="cuda")
    m = torch.full((blocks, D + 16), float("nan"), device="cuda")
    c = torch.full_like(x, float("nan"))
    a = torch.full((blocks * R,), -7, device="cuda", dtype=torch.int32)
    k = tilec.compile(ROWS, name="rows.tile", arch=arch, R=R, D=D)
    k[(blocks,)](x, y, s, m, c, a)
    torch.cuda.synchronize()
    xd = x[:, :D].double()
    assert torch.allclose(y[:, :D].double(), xd * 2 + 1, atol=1e-6)
    assert torch.isnan(y[:, D:]).all()  # the padding wrote nothing
    assert torch.allclose(s.double(), xd.sum(1), atol=1e-4)
    ref_m = xd.view(blocks, R, D).amax(1)
    assert torch.equal(m[:, :D].double(), ref_m)
    assert torch.isnan(m[:, D:]).all()
    assert torch.allclose(c[:, :D].double(), xd.cumsum(1), atol=1e-4)
    assert torch.isnan(c[:, D:]).all()
    assert torch.equal(a.long(), xd.argmax(1))


SLICE = """
kernel slice(X: Tensor[f32, 2], Y: Tensor[f32, 2], Z: Tensor[f32, 2],
             W: Tensor[f32, 2]):
    x = load(X, index=(bid(0), 0), shape=(64, 128))
    store(Y, index=(bid(0), 0), tile=x[:, 32:128] + 1.0)  # 96 wide
    store(Z, index=(bid(0), 0), tile=x[8:56, 5:125])      # 48 x 120
    # a padded tile joined last: 64 + 48 columns
    store(W, index=(bid(0), 0), tile=cat((x[:, 64:128], x[:, 0:48]), axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_padded_slices(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(3)
    x = torch.randn(128, 128, device="cuda")
    y = torch.full((128, 96), float("nan"), device="cuda")
    z = torch.full((96, 120), float("nan"), device="cuda")
    w = torch.full((128, 112), float("nan"), device="cuda")
    k = tilec.compile(SLICE, name="slice.tile", arch=arch)
    k[(2,)](x, y, z, w)
    torch.cuda.synchronize()
    assert torch.equal(y, x[:, 32:] + 1)
    assert torch.equal(w, torch.cat([x[:, 64:], x[:, :48]], 1))
    ref = torch.cat([x[8:56, 5:125], x[64 + 8:64 + 56, 5:125]])
    assert torch.equal(z, ref)


GATHER_ATOMIC = """
kernel ga(E: Tensor[f32, 2], Ids: Tensor[i32, 1], O: Tensor[f32, 2],
          Acc: Tensor[f32, 2], ROWS: const int = 6, D: const int = 72):
    ids = load(Ids, index=(bid(0),), shape=(ROWS,))
    x = gather(E, (ids[:, None], arange(D)[None, :]))
    store(O, index=(bid(0), 0), tile=x)
    atomic_add(Acc, index=(0, 0), tile=x)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_padded_gather_and_atomics(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(4)
    ROWS, D, blocks = 6, 72, 5
    e = torch.randn(50, D + 8, device="cuda")
    ids = torch.randint(0, 50, (ROWS * blocks,), device="cuda",
                        dtype=torch.int32)
    o = torch.full((ROWS * blocks, D + 8), float("nan"), device="cuda")
    acc = torch.zeros(ROWS + 2, D + 8, device="cuda")
    k = tilec.compile(GATHER_ATOMIC, name="ga.tile", arch=arch)
    k[(blocks,)](e, ids, o, acc)
    torch.cuda.synchronize()
    rows = e[ids.long(), :D]
    assert torch.equal(o[:, :D], rows)
    assert torch.isnan(o[:, D:]).all()
    ref = rows.double().view(blocks, ROWS, D).sum(0)
    assert torch.allclose(acc[:ROWS, :D].double(), ref, atol=1e-4)
    assert (acc[ROWS:] == 0).all() and (acc[:, D:] == 0).all()


GEMM = """
kernel gemm(A: Tensor[DTYPE, 2], B: Tensor[DTYPE, 2], C: Tensor[f32, 2],
            DTYPE: const dtype = f16, BM: const int = 64,
            BN: const int = 96, BK: const int = 80):
    acc = zeros((BM, BN), dtype=f32)
    for k in range(0, cdiv(A.shape[1], BK)):
        a = load(A, index=(bid(0), k), shape=(BM, BK), latency=2)
        b = load(B, index=(k, bid(1)), shape=(BK, BN), latency=2)
        acc = mma(a, b, acc)
    store(C, index=(bid(0), bid(1)), tile=acc)
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("tiles", [(64, 96, 80), (128, 96, 48), (64, 40, 32),
                                   (48, 96, 64), (128, 192, 64)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_padded_gemm(torch_gpu, arch, tiles, dtype):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    BM, BN, BK = tiles
    if arch == "sm_80" and BN > 128:
        pytest.skip("a 128x192 f32 accumulator needs more than 255 "
                    "registers per thread with mma.sync")
    torch.manual_seed(BM + BN + BK)
    tdt = getattr(torch, dtype)
    M, N, K = 2 * BM + 5, 3 * BN - 7, 4 * BK + 3
    a = torch.randn(M, K, device="cuda").to(tdt)
    b = torch.randn(K, N, device="cuda").to(tdt)
    c = torch.full((M, N), float("nan"), device="cuda")
    dsl = {"float16": "f16", "bfloat16": "bf16"}[dtype]
    k = tilec.compile(GEMM, name="gemm.tile", arch=arch, DTYPE=dsl, BM=BM,
                      BN=BN, BK=BK)
    k[(-(-M // BM), -(-N // BN))](a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-5, err


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("group,rows,D", [(6, 8, 96), (3, 16, 80), (5, 2, 128)])
def test_gqa_rows_packed(torch_gpu, repo, arch, group, rows, D):
    """The query rows of the `group` heads sharing a K/V head, packed into
    one tile of group * rows rows (48: wgmma's 64 rows, padded) through a
    view of q, none through the kernel: kernels/flash_attention.tile
    with TILE_M the packed rows, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(group * 100 + rows)
    B, Hkv, N = 2, 2, 300
    M = group * rows
    q = torch.randn(B, Hkv * group, rows, D, device="cuda",
                    dtype=torch.float16)
    k = torch.randn(B, Hkv, N, D, device="cuda", dtype=torch.float16)
    v = torch.randn(B, Hkv, N, D, device="cuda", dtype=torch.float16)
    out = torch.full_like(q, float("nan"))
    fmha = tilec.compile(os.path.join(repo, "kernels", "flash_attention.tile"),
                         "fmha", arch=arch, H=Hkv, TILE_M=M, TILE_N=64, TILE_D=D,
                         CAUSAL=False, EVEN_K=False, QUERY_GROUP_SIZE=1)
    packed = q.view(B, Hkv, M, D)  # heads of a group are contiguous
    fmha[(1, B * Hkv)](packed, k, v, out.view(B, Hkv, M, D),
                       1 / D ** 0.5, 0)
    torch.cuda.synchronize()
    kk = k.double().repeat_interleave(group, dim=1)
    vv = v.double().repeat_interleave(group, dim=1)
    s = q.double() @ kk.transpose(-1, -2) / D ** 0.5
    ref = torch.softmax(s, -1) @ vv
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err


@pytest.mark.parametrize("tiles", [(128, 160, 64), (256, 160, 64),
                                   (64, 152, 64), (128, 232, 32),
                                   (256, 152, 64),
                                   (192, 64, 64)])
@pytest.mark.parametrize("options", [{}, {"persistent": True},
                                     {"num_stages": 4},
                                     {"warp_specialize": True}])
def test_buffers_at_their_own_size(torch_gpu, repo, tiles, options):
    """kernels/gemm.tile with tiles that are not powers of two, on sm_90a:
    the B ring's stages and the output's staging buffer (TMA copies, wgmma
    operands, stores from the accumulator's registers) take only the blocks
    of columns or rows their tile reaches (tile.slot_bytes), so a ring's
    stages sit closer than their padded size; a width of no swizzle's block
    (152, 232 halves) is staged in rows at their own width (#tile.shared<...,
    cols = 152>), one TMA box a tile. Every output element against
    float64 (the output poisoned with NaN, eight spare columns on each side
    left untouched), with K spanning many stages; no tensor needs the
    unaligned variant (every row a multiple of 16 bytes)."""
    check_gemm(torch_gpu, repo, tiles, options)


def check_gemm(torch_gpu, repo, tiles, options):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    BM, BN, BK = tiles
    torch.manual_seed(BM * BN + BK)
    # Rows of 16-byte multiples (TMA's strides), edges inside tiles.
    M, N, K = 3 * BM + 17, 5 * BN - 8, 24 * BK + 8
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    wide = torch.full((M, N + 16), float("nan"), device="cuda",
                      dtype=torch.float16)  # c in the middle, 16 bytes in
    c = wide[:, 8:N + 8]
    gemm = tilec.compile(os.path.join(repo, "kernels", "gemm.tile"),
                         arch="sm_90a", DTYPE="f16", TILE_M=BM, TILE_N=BN,
                         TILE_K=BK, **options)
    gemm[(-(-M // BM), -(-N // BN))](a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    assert torch.isnan(wide[:, :8]).all() and torch.isnan(wide[:, N + 8:]).all()


@pytest.mark.parametrize("tiles", [(192, 128, 128), (192, 64, 128),
                                   (80, 128, 128)])
@pytest.mark.parametrize("options", [{}, {"persistent": True},
                                     {"warp_specialize": True}])
def test_gemm_rows_at_their_own_size(torch_gpu, repo, tiles, options):
    """The same with K = 128 (A in two blocks of 64 columns): an A of 192
    rows is stored at its own rows a block (#tile.shared<..., rows = 192>:
    48 KiB a stage, not 64); one of 80 rows keeps 128 (a wgmma reads 64 rows
    at a time)."""
    check_gemm(torch_gpu, repo, tiles, options)


@pytest.mark.parametrize("options", [
    {},
    {"num_warps": 8, "num_stages": 2, "warp_specialize": True,
     "rescale_in_trip": True},
    {"num_warps": 8, "num_stages": 2, "warp_specialize": True,
     "persistent": True, "tile_stages": 1, "rescale_in_trip": True}])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_rows_at_their_own_size(torch_gpu, repo, options, causal):
    """kernels/flash_attention.tile at head dim 256 with 128 x 80 tiles
    (FlashAttention-3's): the K and V ring stages are stored at their own
    80 rows in each 64-column block (40 KiB, not 64: two stages fit beside
    Q), the scores' padding registers left out of the rotation's count. The
    compiler's choice and the attention API's two 128 x 80 candidates, at
    lengths of one key, one tile, a partial tile and many (80 dividing none
    but one), against float64 with the output poisoned."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    D = 256
    for N in (1, 80, 100, 1000):
        torch.manual_seed(N)
        q, k, v = (torch.randn(2, 2, N, D, device="cuda",
                               dtype=torch.float16) for _ in range(3))
        out = torch.full_like(q, float("nan"))
        kernel = tilec.compile(
            os.path.join(repo, "kernels", "flash_attention.tile"), "fmha",
            arch="sm_90a", DTYPE="f16", TILE_D=D, H=2, TILE_M=128,
            TILE_N=80, CAUSAL=causal, EVEN_K=N % 80 == 0, **options)
        kernel[(-(-N // 128), 4)](q, k, v, out, D ** -0.5, 0)
        torch.cuda.synchronize()
        s = q.double() @ k.double().transpose(-1, -2) * D ** -0.5
        if causal:
            s.masked_fill_(torch.ones(N, N, device="cuda",
                                      dtype=torch.bool).triu(1),
                           float("-inf"))
        ref = torch.softmax(s, -1) @ v.double()
        err = (out.double() - ref).abs().max().item()
        assert err < 2e-3, (N, err)
