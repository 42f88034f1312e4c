"""The language features for the attention family on a GPU, against float64
references on fresh random inputs with poisoned outputs, on sm_90a and
sm_80: values read from memory bounding loops and indexing loads (a paged-KV
decode with variable lengths, pipelined, and warp-specialized on sm_90a);
atomic_add / atomic_max / atomic_min (a split-K GEMM, replicated layouts
combining once, every element type); the math functions at their
documented precision; row reductions stored as vectors; loops unrolled by
static_range (a causal conv1d); slices and joins held in place (rotary
embeddings, kernels/rotary.tile); conditional expressions, powers with
constant exponents, reductions over several axes or to a scalar, combining
scatters and cuTile's fma, expand_dims, broadcast_to and num_tiles.
Skipped without PyTorch and a CUDA GPU."""

import math
import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]
KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "kernels")


# --- Paged-KV decode -------------------------------------------------------

def paged_reference(torch, q, kc, vc, table, lens, page, scale):
    """float64 decode attention of each sequence over its own tokens,
    gathered from the cache through the block table."""
    BH, G, D = q.shape
    H = kc.shape[1]
    out = torch.zeros(BH, G, D, dtype=torch.float64, device=q.device)
    for bh in range(BH):
        b, h = divmod(bh, H)
        n = int(lens[b])
        if n == 0:
            continue
        pages = table[b, :(n + page - 1) // page].long()
        k = kc[pages, h].reshape(-1, D)[:n].double()
        v = vc[pages, h].reshape(-1, D)[:n].double()
        s = (q[bh].double() @ k.T) * scale
        out[bh] = torch.softmax(s, dim=-1) @ v
    return out


PAGED = [
    # arch, options, B, H_KV, GROUP, D, PAGE, lengths
    ("sm_90a", {}, 3, 2, 4, 128, 64, [1, 200, 64]),
    ("sm_90a", {"warp_specialize": True}, 4, 2, 8, 128, 64,
     [0, 1, 333, 128]),
    ("sm_90a", {"warp_specialize": True}, 2, 4, 16, 64, 32, [1000, 31]),
    ("sm_90a", {"num_stages": 1}, 2, 1, 4, 128, 64, [130, 5]),
    # 64 rows: wgmma and TMA copies; specialized, the producer warp reads
    # the trip count and the page numbers itself.
    ("sm_90a", {"warp_specialize": True, "GROUP_M": 64}, 3, 2, 16, 128, 64,
     [0, 1, 129]),
    ("sm_90a", {"warp_specialize": True, "GROUP_M": 64}, 2, 2, 8, 64, 64,
     [700, 64]),
    ("sm_90a", {"GROUP_M": 64}, 2, 2, 8, 128, 64, [65, 3]),
    # Persistent, on two blocks: each loops over (sequence, KV head) tiles
    # of 0, 1 and several trips in turn, reusing its buffers.
    ("sm_90a", {"persistent": True, "GROUP_M": 64}, 5, 2, 8, 128, 64,
     [0, 1, 64, 65, 300]),
    ("sm_90a", {"persistent": True}, 3, 2, 4, 64, 32, [33, 0, 1]),
    # Persistent and specialized: the producer reads each tile's length and
    # page numbers ahead (the kernel writes neither tensor).
    ("sm_90a", {"persistent": True, "warp_specialize": True, "GROUP_M": 64},
     5, 2, 8, 128, 64, [0, 1, 64, 65, 300]),
    ("sm_80", {}, 3, 2, 4, 128, 64, [0, 77, 640]),
    ("sm_80", {}, 2, 2, 16, 64, 32, [33, 1]),
]


@pytest.mark.parametrize("case", PAGED, ids=lambda c: "-".join(
    str(x) if not isinstance(x, (dict, list)) else
    ("_".join(f"{k}={v}" for k, v in x.items()) or "default")
    if isinstance(x, dict) else "x".join(map(str, x)) for x in c))
def test_paged_decode(torch_gpu, repo, monkeypatch, case):
    torch = torch_gpu
    arch, opts, B, H, G, D, PAGE, lens = case
    skip_unless_arch(torch, arch)
    if opts.get("persistent"):
        # Two blocks (read at the kernel's first launch): each runs several
        # tiles, of different trip counts.
        monkeypatch.setenv("TILEC_PERSISTENT_BLOCKS", "2")
    torch.manual_seed(len(lens) * 7 + D + sum(lens))
    max_pages = max(1, max((n + PAGE - 1) // PAGE for n in lens))
    num_pages = B * max_pages + 3
    kc = torch.randn(num_pages, H, PAGE, D, device="cuda",
                     dtype=torch.float16)
    vc = torch.randn(num_pages, H, PAGE, D, device="cuda",
                     dtype=torch.float16)
    # Each sequence's pages scattered over the cache, in a random order.
    perm = torch.randperm(num_pages, device="cuda").int()
    table = perm[:B * max_pages].reshape(B, max_pages).contiguous()
    seq_lens = torch.tensor(lens, device="cuda", dtype=torch.int32)
    q = torch.randn(B * H, G, D, device="cuda", dtype=torch.float16)
    out = torch.full((B * H, G, D), float("nan"), device="cuda")
    kernel = tilec.compile(os.path.join(repo, "kernels", "paged_decode.tile"),
                           arch=arch, D=D, PAGE=PAGE, H_KV=H, **opts)
    scale = 1 / math.sqrt(D)
    kernel[B * H](q, kc, vc, table, seq_lens, out, scale)
    torch.cuda.synchronize()
    ref = paged_reference(torch, q, kc, vc, table, seq_lens, PAGE, scale)
    assert torch.isfinite(out).all()
    err = (out.double() - ref).abs().max().item()
    assert err < 2e-2, err
    # The same again: a result that changes between runs is a race.
    again = torch.full_like(out, float("nan"))
    kernel[B * H](q, kc, vc, table, seq_lens, again, scale)
    torch.cuda.synchronize()
    assert torch.equal(out, again)


# --- Atomics ---------------------------------------------------------------

SPLIT_K = """
kernel split_k(A: Tensor[f16, 2], B: Tensor[f16, 2], C: Tensor[f32, 2],
               TILE_M: const int = 64, TILE_N: const int = 64,
               TILE_K: const int = 32, K_PER_BLOCK: const int = 128):
    m = bid(0)
    n = bid(1)
    s = bid(2)
    acc = zeros((TILE_M, TILE_N))
    for k in range(K_PER_BLOCK // TILE_K):
        kk = s * (K_PER_BLOCK // TILE_K) + k
        a = load(A, index=(m, kk), shape=(TILE_M, TILE_K))
        b = load(B, index=(kk, n), shape=(TILE_K, TILE_N))
        acc = mma(a, b, acc)
    atomic_add(C, index=(m, n), tile=acc)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_split_k_gemm_atomic_add(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(11)
    M, N, K, KB = 192, 130, 512, 128   # N not a multiple of the tile
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda")
    kernel = tilec.compile(SPLIT_K, name="split_k.tile", arch=arch,
                           K_PER_BLOCK=KB)
    kernel[(M // 64, (N + 63) // 64, K // KB)](a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-5, err


BLOCK_ATOMICS = """
kernel tickets(Count: Tensor[i32, 1], Out: Tensor[i32, 1], Big: Tensor[i32, 1],
               Sum: Tensor[f32, 1], Far: Tensor[i32, 1], X: Tensor[f32, 1]):
    # Every block takes a ticket: the tickets are 0 .. blocks - 1, once each.
    t = atomic_add(Count, (0,), 1)
    store(Out, index=(bid(0),), tile=full((1,), t, dtype=i32))
    old = atomic_max(Big, (0,), bid(0) * 7)
    x = load(X, index=(bid(0),), shape=(1,)).item()
    s = atomic_add(Sum, (0,), x)
    # Outside the tensor: nothing is touched, 0 is read.
    far = atomic_add(Far, (bid(0) + 1000000,), 5)
    store(Out, index=(bid(0) + num_blocks(0),),
          tile=full((1,), old + far, dtype=i32))
    # The last block in reads what every block stored before its ticket.
    if t == num_blocks(0) - 1:
        total = zeros((1,), dtype=i32)
        for j in range(num_blocks(0)):
            total = total + load(Out, index=(j,), shape=(1,))
        store(Out, index=(2 * num_blocks(0),), tile=total)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_block_atomics(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    blocks = 1000
    kernel = tilec.compile(BLOCK_ATOMICS, name="tickets.tile", arch=arch)
    for trial in range(3):
        count = torch.zeros(1, device="cuda", dtype=torch.int32)
        out = torch.full((2 * blocks + 1,), -1, device="cuda",
                         dtype=torch.int32)
        big = torch.full((1,), -5, device="cuda", dtype=torch.int32)
        total = torch.zeros(1, device="cuda")
        far = torch.zeros(4, device="cuda", dtype=torch.int32)
        x = torch.randint(-8, 8, (blocks,), device="cuda").float()
        kernel[blocks](count, out, big, total, far, x)
        torch.cuda.synchronize()
        tickets = out[:blocks].sort().values
        assert torch.equal(tickets, torch.arange(blocks, device="cuda",
                                                 dtype=torch.int32))
        assert count.item() == blocks
        assert big.item() == 7 * (blocks - 1)
        # Each block read the maximum before its own: -5 or a multiple of 7
        # below its own value.
        olds = out[blocks:2 * blocks]
        assert ((olds == -5) | ((olds % 7 == 0) & (olds >= 0))).all()
        assert total.item() == x.sum().item()   # small integers: exact
        assert torch.equal(far, torch.zeros_like(far))
        assert out[2 * blocks].item() == blocks * (blocks - 1) // 2


ATOMICS = """
kernel combine(F: Tensor[f32, 1], I: Tensor[i32, 1], H: Tensor[f16, 1],
               S: Tensor[f32, 1], X: Tensor[f32, 1], Y: Tensor[i32, 1]):
    x = load(X, index=(bid(0),), shape=(256,))
    y = load(Y, index=(bid(0),), shape=(256,))
    atomic_add(F, index=(0,), tile=x)
    atomic_max(F, index=(1,), tile=x)
    atomic_min(F, index=(2,), tile=x)
    atomic_add(I, index=(0,), tile=y)
    atomic_max(I, index=(1,), tile=y)
    atomic_min(I, index=(2,), tile=y)
    atomic_add(H, index=(0,), tile=x.astype(f16))
    # 16 elements held by 128 threads: each is combined once per block.
    atomic_add(S, index=(0,), tile=full((16,), 1.0, dtype=f32))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_atomics_every_kind(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    blocks = 37
    x = torch.randn(blocks * 256, device="cuda")
    y = torch.randint(-1000, 1000, (blocks * 256,), device="cuda",
                      dtype=torch.int32)
    # Targets of 768 elements: 3 x 256 windows, one per kind.
    f = torch.zeros(768, device="cuda")
    f[256:512] = -float("inf")
    f[512:] = float("inf")
    i = torch.zeros(768, device="cuda", dtype=torch.int32)
    i[256:512] = -2**31
    i[512:] = 2**31 - 1
    h = torch.zeros(256, device="cuda", dtype=torch.float16)
    s = torch.zeros(16, device="cuda")
    kernel = tilec.compile(ATOMICS, name="combine.tile", arch=arch)
    kernel[blocks](f, i, h, s, x, y)
    torch.cuda.synchronize()
    xs = x.reshape(blocks, 256)
    ys = y.reshape(blocks, 256)
    assert torch.allclose(f[:256].double(), xs.double().sum(0), atol=1e-4)
    assert torch.equal(f[256:512], xs.max(0).values)
    assert torch.equal(f[512:], xs.min(0).values)
    assert torch.equal(i[:256], ys.sum(0).int())
    assert torch.equal(i[256:512], ys.max(0).values)
    assert torch.equal(i[512:], ys.min(0).values)
    assert torch.allclose(h.double(), xs.half().double().sum(0), atol=0.1)
    # Once per block: replicas do not add again.
    assert torch.equal(s, torch.full((16,), float(blocks), device="cuda"))


TMA_ATOMICS = """
kernel partials(A: Tensor[f16, 2], B: Tensor[f16, 2], S32: Tensor[f32, 2],
                S16: Tensor[f16, 2], SB: Tensor[bf16, 2], XF: Tensor[f32, 2],
                XI: Tensor[i32, 2], NI: Tensor[i32, 2], SI: Tensor[i32, 2],
                K_PER_BLOCK: const int = 64, BF16: const bool = True):
    # Block (m, n, s): the product of A's and B's K slice s, combined into
    # every output by each kind of atomic, straight from the accumulator.
    m = bid(0)
    n = bid(1)
    s = bid(2)
    acc = zeros((64, 64))
    for k in range(K_PER_BLOCK // 32):
        kk = s * (K_PER_BLOCK // 32) + k
        acc = mma(load(A, index=(m, kk), shape=(64, 32)),
                  load(B, index=(kk, n), shape=(32, 64)), acc)
    atomic_add(S32, index=(m, n), tile=acc)
    atomic_add(S16, index=(m, n), tile=acc.astype(f16))
    if BF16:
        atomic_add(SB, index=(m, n), tile=acc.astype(bf16))
    atomic_max(XF, index=(m, n), tile=acc)
    atomic_max(XI, index=(m, n), tile=acc.astype(i32))
    atomic_min(NI, index=(m, n), tile=acc.astype(i32))
    atomic_add(SI, index=(m, n), tile=acc.astype(i32))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_atomics_of_accumulators(torch_gpu, arch):
    """Atomics of an accumulator over blocks that overlap in 4 splits of K:
    on sm_90a combined by the TMA engine (cp.reduce.async.bulk.tensor) but
    for f32 max, which it lacks (red.global); on sm_80 all by red.global.
    Exact with small integers (sums within bf16's integers); outputs start
    at each kind's identity."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(17)
    M, N, KB, splits = 128, 192, 64, 4
    K = KB * splits
    a = torch.randint(-1, 2, (M, K), device="cuda").half()
    b = torch.randint(-1, 2, (K, N), device="cuda").half()
    parts = torch.stack([a[:, s * KB:(s + 1) * KB].double()
                         @ b[s * KB:(s + 1) * KB].double()
                         for s in range(splits)])
    outs = {
        "S32": torch.zeros(M, N, device="cuda"),
        "S16": torch.zeros(M, N, device="cuda", dtype=torch.float16),
        "SB": torch.zeros(M, N, device="cuda", dtype=torch.bfloat16),
        "XF": torch.full((M, N), -float("inf"), device="cuda"),
        "XI": torch.full((M, N), -2**31, device="cuda", dtype=torch.int32),
        "NI": torch.full((M, N), 2**31 - 1, device="cuda", dtype=torch.int32),
        "SI": torch.zeros(M, N, device="cuda", dtype=torch.int32),
    }
    bf16 = arch == "sm_90a"   # red.global.add.bf16 is sm_90's
    kernel = tilec.compile(TMA_ATOMICS, name="partials.tile", arch=arch,
                           K_PER_BLOCK=KB, BF16=bf16)
    if arch == "sm_90a":
        # A's and B's, and the six outputs the copy combines.
        assert kernel.num_tensor_maps == 8, kernel.num_tensor_maps
    kernel[(M // 64, N // 64, splits)](a, b, *outs.values())
    torch.cuda.synchronize()
    want = {
        "S32": parts.sum(0), "S16": parts.sum(0), "SB": parts.sum(0),
        "XF": parts.max(0).values, "XI": parts.max(0).values,
        "NI": parts.min(0).values, "SI": parts.sum(0),
    }
    if not bf16:
        want["SB"] = torch.zeros(M, N, dtype=torch.float64)
    for name, got in outs.items():
        ref = want[name].to(got.device, got.dtype)
        assert torch.equal(got, ref), (name, (got.double() - ref.double())
                                       .abs().max().item())


def test_bf16_atomic_add(torch_gpu):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    src = """
kernel k(T: Tensor[bf16, 1], X: Tensor[bf16, 1]):
    atomic_add(T, index=(0,), tile=load(X, index=(bid(0),), shape=(128,)))
"""
    kernel = tilec.compile(src, name="bf16.tile", arch="sm_90a")
    x = torch.ones(8 * 128, device="cuda", dtype=torch.bfloat16)
    t = torch.zeros(128, device="cuda", dtype=torch.bfloat16)
    kernel[8](t, x)
    torch.cuda.synchronize()
    assert torch.equal(t, torch.full_like(t, 8))


# --- Math functions and vector reductions ----------------------------------

MATH = """
kernel math(X: Tensor[f32, 1], Out: Tensor[f32, 2]):
    x = load(X, index=(bid(0),), shape=(256,))
    r = bid(0)
    store(Out, index=(0, r), tile=tanh(x).reshape((1, 256)))
    store(Out, index=(1, r), tile=erf(x).reshape((1, 256)))
    store(Out, index=(2, r), tile=sigmoid(x).reshape((1, 256)))
    store(Out, index=(3, r), tile=sin(x).reshape((1, 256)))
    store(Out, index=(4, r), tile=cos(x).reshape((1, 256)))
    store(Out, index=(5, r), tile=exp(x).reshape((1, 256)))
    store(Out, index=(6, r), tile=log(abs(x) + 1.0).reshape((1, 256)))
    store(Out, index=(7, r), tile=sqrt(abs(x)).reshape((1, 256)))
"""

# Absolute error bounds the documentation gives (docs/language.md, Math).
MATH_TOL = {"tanh": 2e-3, "erf": 1e-6, "sigmoid": 1e-6, "sin": 2e-6,
            "cos": 2e-6, "exp": 2e-6, "log": 2e-6, "sqrt": 1e-6}


@pytest.mark.parametrize("arch", ARCHS)
def test_math_functions(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(3)
    n = 16 * 256
    x = torch.empty(n, device="cuda").uniform_(-3.14159, 3.14159)
    x[:8] = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 3.0, -3.0, 1e-3, -5e-4])
    out = torch.full((8, n), float("nan"), device="cuda")
    kernel = tilec.compile(MATH, name="math.tile", arch=arch)
    kernel[n // 256](x, out)
    torch.cuda.synchronize()
    d = x.double()
    refs = {"tanh": torch.tanh(d), "erf": torch.erf(d),
            "sigmoid": torch.sigmoid(d), "sin": torch.sin(d),
            "cos": torch.cos(d), "exp": torch.exp(d),
            "log": torch.log(d.abs() + 1), "sqrt": torch.sqrt(d.abs())}
    for row, (name, ref) in enumerate(refs.items()):
        got = out[row].double()
        scale = 1.0 if name != "exp" else ref.abs().clamp(min=1.0)
        err = ((got - ref).abs() / scale).max().item()
        assert err < MATH_TOL[name], (name, err)


EXP2 = """
kernel exp2s(X: Tensor[f32, 1], Y: Tensor[f32, 1]):
    x = load(X, index=(bid(0),), shape=(1024,))
    store(Y, index=(bid(0),), tile=exp2(x, flush_to_zero=True))
"""


@pytest.mark.parametrize("every", [0, 2, 4])
def test_exp2_poly(torch_gpu, every):
    """exp2_poly=N: one register in N of an f32 exp2 with flush_to_zero
    by a polynomial on the FMA pipe (relative error below 1e-4 where the
    result is a normal float), the others by ex2.approx.ftz; inputs
    clamped to [-126, 127] (about 2^-126 below, where ex2 flushes to 0;
    about 2^127 above); NaN stays NaN."""
    torch = torch_gpu
    n = 8 * 1024
    torch.manual_seed(5)
    x = torch.empty(n, device="cuda").uniform_(-125.9, 126.9)
    x[:4096] = torch.empty(4096, device="cuda").uniform_(-8.0, 0.0)
    special = [float("-inf"), -200.0, -126.5, 127.5, 300.0, float("inf"),
               float("nan"), 0.0, -0.0, 0.5, -0.5, 1.0, -1.0]
    # Every register index of a thread sees them (8 elements a thread).
    for k, v in enumerate(special):
        x[8 * k * 32 + (k % 8)] = v
    y = torch.full_like(x, float("nan"))
    opts = {"exp2_poly": every} if every else {}
    kernel = tilec.compile(EXP2, name="exp2s.tile", arch="sm_80", **opts)
    kernel[n // 1024](x, y)
    torch.cuda.synchronize()
    d = x.double()
    ref = torch.exp2(d)
    normal = (d > -125.9) & (d < 127)
    rel = ((y.double() - ref).abs() / ref)[normal].max().item()
    assert rel < (1e-4 if every else 2e-6), rel
    low, high = d < -126, d > 127.5
    if every:
        # The polynomial's 2^0 is 1 within its error at the clamped ends
        # (2^-126 times a p(0) below 1 is a subnormal: one bit less).
        lo, hi = y[low].double() / 2.0 ** -126, y[high].double() / 2.0 ** 127
        assert ((lo == 0) | ((lo - 1).abs() < 2e-4)).all(), lo
        assert (torch.isinf(hi) | ((hi - 1).abs() < 2e-4)).all(), hi
    else:
        assert (y[low] == 0).all() and (y[high] == float("inf")).all()
    assert torch.isnan(y[torch.isnan(x)]).all()


ROWS = """
kernel rows(X: Tensor[f32, 2], S: Tensor[f32, 1], M: Tensor[f32, 1],
            A: Tensor[f16, 2], B: Tensor[f16, 2], P: Tensor[f32, 1]):
    x = load(X, index=(bid(0), 0), shape=(64, 128))
    store(S, index=(bid(0),), tile=sum(x, axis=1))
    store(M, index=(bid(0),), tile=max(x, axis=1))
    acc = mma(load(A, index=(bid(0), 0), shape=(64, 64)),
              load(B, index=(0, 0), shape=(64, 64)), zeros((64, 64)))
    store(P, index=(bid(0),), tile=sum(acc, axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_row_reductions_stored_as_vectors(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(4)
    x = torch.randn(256, 100, device="cuda")   # columns past 100 read 0
    a = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    s, m, p = (torch.full((256,), float("nan"), device="cuda")
               for _ in range(3))
    kernel = tilec.compile(ROWS, name="rows.tile", arch=arch)
    kernel[4](x, s, m, a, b, p)
    torch.cuda.synchronize()
    assert torch.allclose(s.double(), x.double().sum(1), atol=1e-4)
    assert torch.equal(m, x.max(1).values.clamp(min=0.0))
    ref = (a.double() @ b.double()).sum(1)
    assert torch.allclose(p.double(), ref, rtol=1e-4, atol=1e-3)


LOOP_SUMS = """
kernel loop_sums(X: Tensor[f32, 2], L: Tensor[f32, 2], M: Tensor[f32, 2],
                 T: Tensor[f32, 1], MX: Tensor[f32, 1], trips: int,
                 ROWS: const int = 2, COLS: const int = 256):
    r = bid(0)
    l = zeros((ROWS, 1))
    m = full((ROWS, 1), -inf, dtype=f32)
    t = zeros((ROWS,))
    mx = full((ROWS,), -inf, dtype=f32)
    for j in range(trips):
        x = load(X, index=(r, j), shape=(ROWS, COLS))
        m_new = max(m, max(x, axis=1, keepdims=True))
        l = l * exp2(m - m_new) + sum(exp2(x - m_new), axis=1, keepdims=True)
        m = m_new
        t = t * 0.5 + sum(x, axis=1)
        mx = max(mx, max(x * 0.5, axis=1))
    store(L, index=(r, 0), tile=l)
    store(M, index=(r, 0), tile=m)
    store(T, index=(r,), tile=t)
    store(MX, index=(r,), tile=mx)
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("rows,cols,warps", [(2, 256, 4), (64, 64, 4),
                                             (1, 1024, 8), (16, 128, 1),
                                             (128, 64, 8)])
@pytest.mark.parametrize("trips", [0, 1, 3])
def test_loop_sums(torch_gpu, arch, rows, cols, warps, trips):
    """Sums a loop accumulates (the online softmax's scaled row sum, and a
    running row sum without keepdims halved every trip) and a running row
    maximum, which tile-defer-loop-reductions carries as per-thread
    partials combined after the loop,
    against float64: rows spread over lanes, over warps, over both, and
    within threads; no trip (zeros), one, several."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(6)
    blocks = 3
    x = torch.randn(blocks * rows, max(trips, 1) * cols, device="cuda") * 4
    outs = [torch.full((blocks * rows, 1), float("nan"), device="cuda"),
            torch.full((blocks * rows, 1), float("nan"), device="cuda"),
            torch.full((blocks * rows,), float("nan"), device="cuda"),
            torch.full((blocks * rows,), float("nan"), device="cuda")]
    kernel = tilec.compile(LOOP_SUMS, name="loop_sums.tile", arch=arch,
                           num_warps=warps, ROWS=rows, COLS=cols)
    kernel[blocks](x, *outs, trips)
    torch.cuda.synchronize()
    l, m, t, mx = outs
    xd = x[:, :trips * cols].double()
    if trips == 0:
        assert (l == 0).all() and (t == 0).all()
        assert (m == float("-inf")).all() and (mx == float("-inf")).all()
        return
    want_m = xd.max(1, keepdim=True).values
    assert torch.equal(m.double(), want_m)
    assert torch.equal(mx.double(), 0.5 * want_m[:, 0])
    want_l = torch.exp2(xd - want_m).sum(1, keepdim=True)
    assert torch.allclose(l.double(), want_l, rtol=1e-5, atol=0), \
        (l.double() - want_l).abs().max()
    want_t = sum(0.5 ** (trips - 1 - j) * xd[:, j * cols:(j + 1) * cols].sum(1)
                 for j in range(trips))
    assert torch.allclose(t.double(), want_t, rtol=1e-5, atol=1e-3)


CHOOSE = """
kernel choose(X: Tensor[f32, 2], Y: Tensor[f32, 2], Counts: Tensor[i32, 1],
              flag: bool, SCALE: const bool = True):
    row = bid(0)
    x = load(X, index=(row, 0), shape=(1, 64))
    s = 2.0 if SCALE else 3.0
    # Only the taken side runs: one of the two atomics per block.
    k = atomic_add(Counts, (0,), 1) if row % 2 == 0 else \\
        atomic_add(Counts, (1,), 1)
    t = x * s if flag else -x
    z = x if row == 0 else 0.5 if row == 1 else x * x
    store(Y, index=(row, 0), tile=t + z + k * 0.0)
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("flag", [False, True])
def test_conditional_expressions(torch_gpu, arch, flag):
    """`a if c else b`: a constant condition picks a side at compile time,
    a run-time one runs only the taken side (the atomics count the blocks
    of each parity), promoted and broadcast as where()'s operands."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    rows = 7
    x = torch.randn(rows, 64, device="cuda")
    y = torch.full_like(x, float("nan"))
    counts = torch.zeros(2, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(CHOOSE, name="choose.tile", arch=arch)
    kernel[rows](x, y, counts, flag)
    torch.cuda.synchronize()
    xd = x.double()
    t = xd * 2.0 if flag else -xd
    z = xd * xd
    z[0] = xd[0]
    z[1] = 0.5
    assert torch.allclose(y.double(), t + z, atol=1e-5)
    assert counts.tolist() == [(rows + 1) // 2, rows // 2]


LOOP_EXITS = """
kernel loop_exits(X: Tensor[f32, 2], Y: Tensor[f32, 3], F: Tensor[i32, 2],
                  n: int, t: f32, tol: f32):
    r = bid(0)
    m = cdiv(X.shape[1], 16)
    # A counted while loop (an scf.for after the cleanup): tiles 0..n-1.
    acc = zeros((1, 16))
    j = 0
    while j < n:
        acc += load(X, index=(r, j), shape=(1, 16))
        j += 1
    store(Y, index=(0, r, 0), tile=acc.reshape((1, 1, 16)))
    # A condition on what the trip computes: Newton's square root of
    # 1 + |x| to a tolerance (at most 40 steps).
    a = 1.0 + abs(load(X, index=(r, 0), shape=(1, 16)))
    s = a
    err = 1.0
    steps = 0
    while err > tol and steps < 40:
        ns = 0.5 * (s + a / s)
        err = max(abs(ns - s))
        s = ns
        steps += 1
    store(Y, index=(1, r, 0), tile=s.reshape((1, 1, 16)))
    # break: the first tile whose max exceeds t, and the sum before it.
    found = -1
    before = zeros((1, 16))
    for k in range(m):
        x = load(X, index=(r, k), shape=(1, 16))
        if max(x) > t:
            found = k
            break
        before += x
    store(Y, index=(2, r, 0), tile=before.reshape((1, 1, 16)))
    # continue: the sum of the tiles with no negative element.
    kept = zeros((1, 16))
    count = 0
    for k in range(m):
        x = load(X, index=(r, k), shape=(1, 16))
        if min(x) < 0.0:
            continue
        kept += x
        count += 1
    store(Y, index=(3, r, 0), tile=kept.reshape((1, 1, 16)))
    # static_range with a run-time break: tiles 0..min(n, 4)-1.
    first = zeros((1, 16))
    for q in static_range(4):
        if q >= n:
            break
        first += load(X, index=(r, q), shape=(1, 16))
    store(Y, index=(4, r, 0), tile=first.reshape((1, 1, 16)))
    # A while loop with a break nested in a for with a continue: for each
    # tile k with an even index, the number of its leading elements below
    # t (at most 16), summed.
    lead = 0
    for k in range(m):
        if k % 2 == 1:
            continue
        x = load(X, index=(r, k), shape=(1, 16))
        i = 0
        while True:
            if i == 16:
                break
            col = arange(16).reshape((1, 16))
            v = sum(where(col == i, x, 0.0))
            if v >= t:
                break
            i += 1
        lead += i
    store(F, index=(r, 0), tile=full((1, 4), 0) + where(
        arange(4).reshape((1, 4)) == 0, found,
        where(arange(4).reshape((1, 4)) == 1, count,
              where(arange(4).reshape((1, 4)) == 2, steps, lead))))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("n", [0, 2, 5])
def test_loop_exits(torch_gpu, arch, n):
    """while loops (counted, and on a value the trip computes), break out
    of range() loops, static_range and a while True, continue, nested,
    against float64 on the host."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(11 + n)
    rows, m = 6, 7
    x = torch.randn(rows, 16 * m, device="cuda")
    x[1] = x[1].abs()  # a row with no negative tile
    y = torch.full((5, rows, 16), float("nan"), device="cuda")
    f = torch.full((rows, 4), -7, dtype=torch.int32, device="cuda")
    t, tol = 2.0, 1e-6
    kernel = tilec.compile(LOOP_EXITS, name="loop_exits.tile", arch=arch)
    kernel[rows](x, y, f, n, t, tol)
    torch.cuda.synchronize()
    xd = x.double().reshape(rows, m, 16)
    assert torch.allclose(y[0].double(), xd[:, :min(n, m)].sum(1),
                          atol=1e-5)
    assert torch.allclose(y[1].double(), (1 + xd[:, 0].abs()).sqrt(),
                          rtol=1e-6)
    assert torch.allclose(y[4].double(), xd[:, :min(n, 4)].sum(1),
                          atol=1e-5)
    for r in range(rows):
        hits = [k for k in range(m) if xd[r, k].max() > t]
        found = hits[0] if hits else -1
        stop = found if hits else m
        assert int(f[r, 0]) == found, r
        assert torch.allclose(y[2, r].double(), xd[r, :stop].sum(0),
                              atol=1e-5), r
        kept = [k for k in range(m) if xd[r, k].min() >= 0]
        assert int(f[r, 1]) == len(kept), r
        ref = xd[r, kept].sum(0) if kept else torch.zeros_like(xd[r, 0])
        assert torch.allclose(y[3, r].double(), ref, atol=1e-5), r
        assert 1 <= int(f[r, 2]) <= 40, r
        lead = 0
        for k in range(0, m, 2):
            row = xd[r, k].tolist()
            i = 0
            while i < 16 and row[i] < t:
                i += 1
            lead += i
        assert int(f[r, 3]) == lead, r


LOCKED = """
kernel locked(X: Tensor[f32, 2], Acc: Tensor[f32, 1], Lock: Tensor[i32, 1],
              Count: Tensor[i32, 1], Held: Tensor[i32, 1],
              Last: Tensor[i32, 1], Prev: Tensor[i32, 1]):
    x = load(X, index=(bid(0), 0), shape=(1, 64)).reshape((64,))
    # A spin lock: a plain read-modify-write of the sum and the count under
    # it (no atomics on the data).
    while atomic_cas(Lock, (0,), 0, 1) != 0:
        pass
    store(Acc, index=(0,), tile=load(Acc, index=(0,), shape=(64,)) + x)
    store(Count, index=(0,), tile=load(Count, index=(0,), shape=(1,)) + 1)
    held = atomic_xchg(Lock, (0,), 0)
    store(Held, index=(bid(0),), tile=full((1,), held))
    # Exchanges: each block's old value is the one another left (or -1).
    prev = atomic_xchg(Last, (0,), bid(0))
    store(Prev, index=(bid(0),), tile=full((1,), prev))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_lock_and_exchange(torch_gpu, arch):
    """atomic_cas in a while loop as a spin lock around a plain
    read-modify-write (the sum and count exact in count, the sum up to
    the order of its additions), atomic_xchg releasing it (each block held
    it: old value 1) and chaining the blocks (the old values are a
    permutation of -1 and every block but the last one in)."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(13)
    blocks = 300
    x = torch.randn(blocks, 64, device="cuda")
    acc = torch.zeros(64, device="cuda")
    lock = torch.zeros(1, dtype=torch.int32, device="cuda")
    count = torch.zeros(1, dtype=torch.int32, device="cuda")
    held = torch.full((blocks,), -7, dtype=torch.int32, device="cuda")
    last = torch.full((1,), -1, dtype=torch.int32, device="cuda")
    prev = torch.full((blocks,), -7, dtype=torch.int32, device="cuda")
    kernel = tilec.compile(LOCKED, name="locked.tile", arch=arch)
    kernel[blocks](x, acc, lock, count, held, last, prev)
    torch.cuda.synchronize()
    assert int(count) == blocks
    assert int(lock) == 0
    assert (held == 1).all()
    assert torch.allclose(acc.double(), x.double().sum(0), atol=1e-4)
    values = sorted(prev.tolist())
    assert values == sorted([-1] + [b for b in range(blocks)
                                    if b != int(last)])


OLD_VALUES = """
kernel old_values(Expert: Tensor[i32, 1], Counts: Tensor[i32, 1],
                  Slot: Tensor[i32, 1], X: Tensor[f32, 2], Acc: Tensor[f32, 2],
                  Old: Tensor[f32, 3], M: Tensor[i32, 2], OldM: Tensor[i32, 3]):
    # MoE routing: each token's slot in its expert's list.
    e = load(Expert, index=(bid(0),), shape=(128,))
    store(Slot, index=(bid(0),), tile=scatter_add(Counts, (e,),
                                                  full((128,), 1)))
    # A tile's old values: sums of small integers (exact in any order),
    # and an i32 max.
    x = load(X, index=(bid(0), 0), shape=(16, 64))
    old = atomic_add(Acc, (0, 0), x)
    store(Old, index=(bid(0), 0, 0), tile=old.reshape((1, 16, 64)))
    m = atomic_max(M, (0, 0), x.astype(i32))
    store(OldM, index=(bid(0), 0, 0), tile=m.reshape((1, 16, 64)))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("warps", [4, 1])
def test_atomics_returning_old_values(torch_gpu, arch, warps):
    """scatter_add returning each element's slot (the slots of each expert
    a permutation of 0..count-1), atomic_add / atomic_max of a tile
    returning the values found (each block's old values plus its own
    values are what some block found next, or the final value)."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(14)
    blocks, experts = 24, 8
    expert = torch.randint(0, experts, (128 * blocks,), device="cuda",
                           dtype=torch.int32)
    counts = torch.zeros(experts, dtype=torch.int32, device="cuda")
    slot = torch.full_like(expert, -1)
    x = torch.randint(-4, 5, (16 * blocks, 64), device="cuda").float()
    acc = torch.zeros(16, 64, device="cuda")
    old = torch.full((blocks, 16, 64), float("nan"), device="cuda")
    m = torch.full((16, 64), -100, dtype=torch.int32, device="cuda")
    oldm = torch.full((blocks, 16, 64), -7, dtype=torch.int32, device="cuda")
    kernel = tilec.compile(OLD_VALUES, name="old_values.tile", arch=arch,
                           num_warps=warps)
    kernel[blocks](expert, counts, slot, x, acc, old, m, oldm)
    torch.cuda.synchronize()
    assert torch.equal(counts.long(), torch.bincount(expert.long(),
                                                     minlength=experts))
    for k in range(experts):
        mine = slot[expert == k].sort().values
        assert torch.equal(mine, torch.arange(len(mine), device="cuda",
                                              dtype=torch.int32)), k
    xs = x.reshape(blocks, 16, 64)
    assert torch.equal(acc, xs.sum(0))
    # Per element, the blocks' steps (old, old + x) chain from 0 to the
    # sum: each step's end is another's start, or the final value.
    n = 16 * 64
    starts = torch.cat((old.reshape(blocks, n), acc.reshape(1, n)), 0)
    ends = torch.cat((torch.zeros(1, n, device="cuda"),
                      (old + xs).reshape(blocks, n)), 0)
    assert torch.equal(starts.sort(0).values, ends.sort(0).values)
    assert torch.equal(m, xs.int().amax(0).clamp(min=-100))
    # A max's old values: -100 (the first) or one of the blocks' values,
    # never above the final one.
    assert (oldm <= m.unsqueeze(0)).all() and (oldm >= -100).all()
    assert ((oldm == -100).sum(0) >= 1).all()


POWERS = """
kernel powers(X: Tensor[f32, 2], Z: Tensor[f32, 2], Y: Tensor[f32, 3],
              n: int):
    r = bid(0)
    x = load(X, index=(r, 0), shape=(1, 64))
    z = load(Z, index=(r, 0), shape=(1, 64))
    store(Y, index=(0, r, 0), tile=(z ** 3).reshape((1, 1, 64)))
    store(Y, index=(1, r, 0), tile=(z ** -2).reshape((1, 1, 64)))
    store(Y, index=(2, r, 0), tile=(x ** 0.5).reshape((1, 1, 64)))
    store(Y, index=(3, r, 0), tile=(x ** -0.5).reshape((1, 1, 64)))
    store(Y, index=(4, r, 0), tile=(x ** 1.5).reshape((1, 1, 64)))
    store(Y, index=(5, r, 0), tile=(x ** 5 + n ** 3).reshape((1, 1, 64)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_powers(torch_gpu, arch):
    """`x ** c` with constant exponents on run-time tiles and scalars,
    against float64: integral exponents exact up to rounding (repeated
    squaring, negative ones a correctly rounded reciprocal), 0.5 / -0.5 as
    sqrt / rsqrt, 1.5 as exp2(1.5 * log2(x)) on the approximate
    instructions."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(6)
    rows = 5
    x = torch.rand(rows, 64, device="cuda") * 2 + 0.1
    z = torch.randn(rows, 64, device="cuda")
    y = torch.full((6, rows, 64), float("nan"), device="cuda")
    kernel = tilec.compile(POWERS, name="powers.tile", arch=arch)
    kernel[rows](x, z, y, 3)
    torch.cuda.synchronize()
    xd, zd = x.double(), z.double()
    refs = [zd ** 3, zd ** -2, xd ** 0.5, xd ** -0.5, xd ** 1.5,
            xd ** 5 + 27]
    for k, (ref, rtol) in enumerate(zip(refs, [1e-6, 1e-6, 1e-6, 1e-6, 2e-5,
                                                1e-6])):
        assert torch.allclose(y[k].double(), ref, rtol=rtol, atol=0), k


TOTALS = """
kernel totals(X: Tensor[f32, 2], C: Tensor[f32, 3], S: Tensor[f32, 1],
              Y: Tensor[f32, 2], P: Tensor[f32, 1], Q: Tensor[f32, 3]):
    x = load(X, index=(0, 0), shape=(64, 128))
    c = load(C, index=(0, 0, 0), shape=(4, 32, 16))
    k = arange(4, dtype=i32)
    s = where(k == 0, sum(x), where(k == 1, max(x), where(k == 2, min(x),
              sum(c))))
    store(S, index=(0,), tile=s)
    store(P, index=(0,), tile=prod(1.0 + c * 0.01, axis=(0, 2)))
    store(Y, index=(0, 0),
          tile=sum(c, axis=(0, -1), keepdims=True).reshape((1, 32)))
    store(Q, index=(0, 0, 0),
          tile=cumprod(1.0 + x * 0.01, axis=1).reshape((1, 64, 128)))
    store(Q, index=(1, 0, 0), tile=cummax(x, 0).reshape((1, 64, 128)))
    store(Q, index=(2, 0, 0), tile=cummin(x, axis=-1).reshape((1, 64, 128)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_reductions_over_several_axes(torch_gpu, arch):
    """sum/max/min with no axis (a run-time scalar, every thread holding it),
    sum/prod over a tuple of axes and the scans cumprod / cummax / cummin,
    against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(7)
    x = torch.randn(64, 128, device="cuda")
    c = torch.randn(4, 32, 16, device="cuda")
    s = torch.full((4,), float("nan"), device="cuda")
    y = torch.full((1, 32), float("nan"), device="cuda")
    p = torch.full((32,), float("nan"), device="cuda")
    q = torch.full((3, 64, 128), float("nan"), device="cuda")
    kernel = tilec.compile(TOTALS, name="totals.tile", arch=arch)
    kernel[1](x, c, s, y, p, q)
    torch.cuda.synchronize()
    xd, cd = x.double(), c.double()
    ref = torch.stack([xd.sum(), xd.max(), xd.min(), cd.sum()])
    assert torch.allclose(s.double(), ref, rtol=1e-5, atol=1e-4)
    assert torch.allclose(y.double()[0], cd.sum(dim=(0, 2)), atol=1e-4)
    ref_p = (1.0 + c * 0.01).double().prod(dim=2).prod(dim=0)
    assert torch.allclose(p.double(), ref_p, rtol=1e-5)
    assert torch.allclose(q[0].double(), torch.cumprod(1.0 + xd * 0.01, dim=1),
                          rtol=1e-5)
    assert torch.equal(q[1], torch.cummax(x, dim=0).values)
    assert torch.equal(q[2], torch.cummin(x, dim=1).values)


SCATTERS = """
kernel scatters(Bins: Tensor[i32, 1], Hist: Tensor[i32, 1], Ids: Tensor[i32, 1],
                G: Tensor[DTYPE, 2], E: Tensor[DTYPE, 2], Hi: Tensor[f32, 1],
                Lo: Tensor[f32, 1], DTYPE: const dtype = f32):
    b = load(Bins, index=(bid(0),), shape=(256,))
    scatter_add(Hist, (b,), ones((256,), dtype=i32))
    ids = load(Ids, index=(bid(0),), shape=(32,))
    g = load(G, index=(bid(0), 0), shape=(32, 128))
    scatter_add(E, (ids[:, None], arange(128)[None, :]), g)
    gf = g.astype(f32)
    scatter_max(Hi, (ids,), max(gf, axis=1))
    scatter_min(Lo, (ids,), min(gf, axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_combining_scatters(torch_gpu, arch, dtype):
    """scatter_add / scatter_max / scatter_min: elements naming one place
    all count (a histogram of 8 bins over 1024 values, rows added into 16
    of 100 rows, some indices past the tensor), against float64; every
    element once though the row maxima's layout holds each in several
    threads."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    if dtype == "bfloat16" and arch == "sm_80":
        pytest.skip("red.global.add.bf16 needs sm_90")
    torch.manual_seed(8)
    dt = getattr(torch, dtype)
    blocks = 4
    bins = torch.randint(0, 9, (blocks * 256,), device="cuda",
                         dtype=torch.int32)          # 8: past the end
    hist = torch.zeros(8, device="cuda", dtype=torch.int32)
    ids = torch.randint(0, 16, (blocks * 32,), device="cuda",
                        dtype=torch.int32)
    ids[::7] = 100                                   # past the tensor
    g = torch.randn(blocks * 32, 128, device="cuda").to(dt)
    e = torch.zeros(100, 128, device="cuda", dtype=dt)
    hi = torch.full((100,), -float("inf"), device="cuda")
    lo = torch.full((100,), float("inf"), device="cuda")
    kernel = tilec.compile(SCATTERS, name="scatters.tile", arch=arch,
                           DTYPE={"float32": "f32", "float16": "f16",
                                  "bfloat16": "bf16"}[dtype])
    kernel[blocks](bins, hist, ids, g, e, hi, lo)
    torch.cuda.synchronize()
    assert hist.tolist() == torch.bincount(bins.long(), minlength=9)[:8] \
        .tolist()
    inside = ids < 100
    ref = torch.zeros(100, 128, dtype=torch.float64, device="cuda")
    ref.index_add_(0, ids[inside].long(), g[inside].double())
    tol = {"float32": 1e-5, "float16": 2e-2, "bfloat16": 1.5e-1}[dtype]
    assert torch.allclose(e.double(), ref, atol=tol, rtol=tol)
    gf = g.float()
    ref_hi = torch.full((100,), -float("inf"), device="cuda")
    ref_hi.scatter_reduce_(0, ids[inside].long(), gf[inside].amax(1), "amax")
    ref_lo = torch.full((100,), float("inf"), device="cuda")
    ref_lo.scatter_reduce_(0, ids[inside].long(), gf[inside].amin(1), "amin")
    assert torch.equal(hi, ref_hi) and torch.equal(lo, ref_lo)


HELPERS = """
kernel helpers(X: Tensor[f32, 2], Y: Tensor[f32, 2], N: Tensor[i32, 1]):
    cols = broadcast_to(expand_dims(arange(64, dtype=f32), 0), (16, 64))
    x = load(X, index=(bid(0), 0), shape=(16, 64))
    store(Y, index=(bid(0), 0), tile=fma(x, x, cols))
    n = num_tiles(X, 0, (16, 64)) * 100 + num_tiles(X, 0, (64, 16),
                                                    order=(1, 0))
    store(N, index=(0,), tile=broadcast_to(n, (1,)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_cutile_helpers(torch_gpu, arch):
    """cuTile's fma (one rounding), expand_dims / broadcast_to and
    num_tiles (through a view's order), against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(9)
    x = torch.randn(48, 64, device="cuda")
    y = torch.full_like(x, float("nan"))
    n = torch.zeros(1, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(HELPERS, name="helpers.tile", arch=arch)
    kernel[3](x, y, n)
    torch.cuda.synchronize()
    ref = x.double() * x.double() + torch.arange(64, device="cuda")
    assert torch.allclose(y.double(), ref, rtol=1e-6, atol=1e-6)
    assert n.item() == 3 * 100 + 1   # 48 rows / 16; 64 columns / 64


SUMS16 = """
kernel sums16(X: Tensor[bf16, 2], Y: Tensor[f16, 2], SX: Tensor[bf16, 2],
              SY: Tensor[f16, 2]):
    x = load(X, index=(bid(0), 0), shape=(1, 256))
    store(SX, index=(bid(0), 0), tile=sum(x * x, axis=1, keepdims=True))
    y = load(Y, index=(bid(0), 0), shape=(1, 256))
    store(SY, index=(bid(0), 0), tile=sum(y * y, axis=1, keepdims=True))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_sums_of_16_bit_tiles(torch_gpu, arch):
    """Sums of squares of f16 and bf16 tiles, summed in their own type:
    the lanes combine with add.rn.f16 and fma.rn.bf16 (1.0 * a + b), every
    lane with the same bits; against float64 at the type's precision, the
    same in two launches."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(16)
    x = torch.rand(64, 256, device="cuda").bfloat16()
    y = torch.rand(64, 256, device="cuda").half()
    kernel = tilec.compile(SUMS16, name="sums16.tile", arch=arch)
    outs = []
    for _ in range(2):
        sx = torch.full((64, 1), float("nan"), device="cuda",
                        dtype=torch.bfloat16)
        sy = torch.full((64, 1), float("nan"), device="cuda",
                        dtype=torch.float16)
        kernel[64](x, y, sx, sy)
        torch.cuda.synchronize()
        outs.append((sx, sy))
    rx = (x.double() ** 2).sum(1, keepdim=True)
    ry = (y.double() ** 2).sum(1, keepdim=True)
    assert torch.allclose(outs[0][0].double(), rx, rtol=3e-2)
    assert torch.allclose(outs[0][1].double(), ry, rtol=5e-3)
    assert torch.equal(outs[0][0], outs[1][0])
    assert torch.equal(outs[0][1], outs[1][1])


RESHAPES = """
kernel reshapes(X: Tensor[f16, 1], Parts: Tensor[f32, 2], M: Tensor[f32, 2],
                Flat: Tensor[f32, 1], A: Tensor[f16, 2], B: Tensor[f16, 2],
                C: Tensor[f32, 1], Cube: Tensor[f32, 3]):
    # Split: a row of 4096 as 32 parts of 128, each summed.
    x = load(X, index=(bid(0),), shape=(4096,)).astype(f32)
    parts = sum(x.reshape((32, 128)), axis=1)
    store(Parts, index=(bid(0), 0), tile=parts.reshape((1, 32)))
    # Join: a (16, 64) tile stored flat.
    m = load(M, index=(bid(0), 0), shape=(16, 64))
    store(Flat, index=(bid(0),), tile=(m * 2.0).reshape((1024,)))
    # An mma accumulator (not a blocked layout) flattened, and a (4, 64)
    # slice split into (4, 8, 8).
    acc = mma(load(A, index=(0, 0), shape=(64, 64)),
              load(B, index=(0, 0), shape=(64, 64)), zeros((64, 64)))
    store(C, index=(bid(0),), tile=acc.reshape((4096,)))
    store(Cube, index=(bid(0), 0, 0), tile=(m[0:4, :] + 1.0).reshape((4, 8, 8)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_reshapes_that_split_and_join_dimensions(torch_gpu, arch):
    """reshape between shapes of powers of two that split or join
    dimensions (an element keeps its row-major index): in registers where
    the layouts allow it, through a conversion otherwise (the mma
    accumulator)."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    blocks = 3
    x = torch.randn(blocks * 4096, device="cuda", dtype=torch.float16)
    m = torch.randn(blocks * 16, 64, device="cuda")
    a = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    parts = torch.full((blocks, 32), float("nan"), device="cuda")
    flat = torch.full((blocks * 1024,), float("nan"), device="cuda")
    c = torch.full((blocks * 4096,), float("nan"), device="cuda")
    cube = torch.full((blocks * 4, 8, 8), float("nan"), device="cuda")
    kernel = tilec.compile(RESHAPES, name="reshapes.tile", arch=arch)
    kernel[blocks](x, parts, m, flat, a, b, c, cube)
    torch.cuda.synchronize()
    ref = x.double().view(blocks, 32, 128).sum(-1)
    assert torch.allclose(parts.double(), ref, rtol=1e-5, atol=1e-3)
    assert torch.equal(flat, (m * 2).view(-1))
    prod = (a.double() @ b.double()).view(-1).repeat(blocks)
    assert torch.allclose(c.double(), prod, rtol=1e-4, atol=1e-3)
    rows = m.view(blocks, 16, 64)[:, 0:4, :] + 1
    assert torch.equal(cube, rows.reshape(blocks * 4, 8, 8))


PADDED_RESHAPES = """
kernel padded_reshapes(X: Tensor[f16, 1], Groups: Tensor[f32, 2],
                       M: Tensor[f32, 2], Flat: Tensor[f32, 1],
                       Small: Tensor[f32, 2]):
    # Split a chunk of 2016 (held as 2048) into rows of 8, each's max.
    x = load(X, index=(bid(0),), shape=(2016,), padding=-inf).astype(f32)
    groups = max(x.reshape((252, 8)), axis=1)
    store(Groups, index=(bid(0), 0), tile=groups.reshape((1, 252)))
    # Join a (12, 16) tile (held as (16, 16)) into 192.
    m = load(M, index=(bid(0), 0), shape=(12, 16))
    store(Flat, index=(bid(0),), tile=(m * 2.0).reshape((192,)))
    # A tile smaller than the block (104 elements; lanes and warps hold
    # copies) split into rows of 8, each's sum.
    y = load(X, index=(bid(0),), shape=(104,)).astype(f32)
    store(Small, index=(bid(0), 0),
          tile=sum(y.reshape((13, 8)), axis=1).reshape((1, 13)))
"""


@pytest.mark.parametrize("warps", (1, 4, 8))
@pytest.mark.parametrize("arch", ARCHS)
def test_reshapes_of_padded_tiles(torch_gpu, arch, warps):
    """Split or joined groups whose inner dimensions are powers of two and
    outermost is not (held padded: an element keeps its place), and a tile
    smaller than the block: the same elements as torch's reshape."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(6)
    blocks = 3
    x = torch.randn(blocks * 2016, device="cuda", dtype=torch.float16)
    m = torch.randn(blocks * 12, 16, device="cuda")
    groups = torch.full((blocks, 252), float("nan"), device="cuda")
    flat = torch.full((blocks * 192,), float("nan"), device="cuda")
    small = torch.full((blocks, 13), float("nan"), device="cuda")
    kernel = tilec.compile(PADDED_RESHAPES, name="padded_reshapes.tile",
                           arch=arch, num_warps=warps)
    kernel[blocks](x, groups, m, flat, small)
    torch.cuda.synchronize()
    assert torch.equal(groups, x.float().view(blocks, 252, 8).amax(-1))
    assert torch.equal(flat, (m * 2).view(-1))
    # (Block b's tile of 104 is elements 104 b ... 104 b + 103.)
    ref = x.double()[:blocks * 104].view(blocks, 13, 8).sum(-1)
    assert torch.allclose(small.double(), ref, rtol=1e-5, atol=1e-4)


ARG = """
kernel arg(X: Tensor[f32, 2], N: Tensor[i32, 2], IMAX: Tensor[i32, 1],
           IMIN: Tensor[i32, 2], NMAX: Tensor[i32, 1], FLAT: Tensor[i32, 2]):
    x = load(X, index=(bid(0), 0), shape=(64, 128))
    n = load(N, index=(bid(0), 0), shape=(64, 128))
    store(IMAX, index=(bid(0),), tile=argmax(x, axis=1))
    store(IMIN, index=(bid(0), 0), tile=argmin(x, axis=0, keepdims=True))
    store(NMAX, index=(bid(0),), tile=argmax(n, axis=-1))
    # No axis: the index into the flattened tile, a scalar; a 1-D tile's.
    row = load(X, index=(bid(0), 0), shape=(1, 128)).reshape((128,))
    store(FLAT, index=(bid(0), 0), tile=where(
        arange(2).reshape((1, 2)) == 0, argmax(x), argmin(row, axis=0)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_argmax_argmin(torch_gpu, arch):
    """argmax/argmin along either axis against torch's, on floats and on
    integers with many ties (the first index wins), -1 poisoned outputs."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    x = torch.randn(256, 128, device="cuda")
    x[3, 5] = x[3, 77] = 100.0                 # a tie: the first wins
    n = torch.randint(0, 4, (256, 128), device="cuda", dtype=torch.int32)
    imax = torch.full((256,), -1, device="cuda", dtype=torch.int32)
    imin = torch.full((4, 128), -1, device="cuda", dtype=torch.int32)
    nmax = torch.full((256,), -1, device="cuda", dtype=torch.int32)
    flat = torch.full((4, 2), -1, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(ARG, name="arg.tile", arch=arch)
    kernel[4](x, n, imax, imin, nmax, flat)
    torch.cuda.synchronize()
    assert torch.equal(imax.long(), x.argmax(1))
    assert imax[3].item() == 5
    for b in range(4):
        assert torch.equal(imin[b].long(), x[64 * b:64 * (b + 1)].argmin(0))
    # Integers in 0..3: every row has ties; the first maximal index.
    first = (n == n.max(1, keepdim=True).values).int().argmax(1)
    assert torch.equal(nmax.long(), first)
    for b in range(4):
        tile = x[64 * b:64 * (b + 1)]
        assert flat[b, 0].item() == tile.argmax().item(), b
        assert flat[b, 1].item() == x[b].argmin().item(), b  # row b


ARG_LOOP = """
kernel arg_loop(X: Tensor[f32, 2], N: Tensor[i32, 2], IMAX: Tensor[i32, 2],
                IMIN: Tensor[i32, 2], trips: int):
    for t in range(trips):
        x = load(X, index=(bid(0), t), shape=(4, 2048))
        n = load(N, index=(bid(0), t), shape=(4, 2048))
        store(IMAX, index=(bid(0), t), tile=argmax(x, axis=1, keepdims=True))
        store(IMIN, index=(bid(0), t), tile=argmin(n, axis=1, keepdims=True))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_argmax_in_loop(torch_gpu, arch):
    """argmax/argmin of rows of 2048 in a loop (the compiler's warps;
    the first index found without an index tile in registers), against
    torch's: floats with a tie, integers with many, a row of -inf; the
    grid's eighth row, past the tensors read, all zeros: index 0."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    R, T = 7, 3
    x = torch.randn(R, 2048 * T, device="cuda")
    x[1, 100] = x[1, 1900] = 50.0
    x[2, :2048] = float("-inf")
    n = torch.randint(0, 3, (R, 2048 * T), device="cuda", dtype=torch.int32)
    imax = torch.full((8, T), -1, device="cuda", dtype=torch.int32)
    imin = torch.full((8, T), -1, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(ARG_LOOP, name="arg_loop.tile", arch=arch)
    kernel[2](x, n, imax, imin, T)
    torch.cuda.synchronize()
    xs = x.view(R, T, 2048)
    ns = n.view(R, T, 2048)
    assert torch.equal(imax[:R].long(), xs.argmax(-1))
    assert imax[1, 0].item() == 100
    first = (ns == ns.min(-1, keepdim=True).values).int().argmax(-1)
    assert torch.equal(imin[:R].long(), first)
    assert (imax[R:] == 0).all() and (imin[R:] == 0).all()


SLICES = """
kernel sl(X: Tensor[f32, 2], H: Tensor[f16, 2], Y: Tensor[f32, 2],
          Z: Tensor[f32, 2], R: Tensor[f32, 1], M: Tensor[f32, 2],
          Q: Tensor[f16, 2]):
    x = load(X, index=(bid(0), 0), shape=(64, 128))
    # In registers (at multiples of the slice) and through shared memory.
    store(Y, index=(bid(0), 0), tile=cat((x[:, 16:48], x[:, -32:]), axis=1))
    store(Z, index=(bid(0), 0),
          tile=cat((x[32:64, :], x[0:32, :]), axis=0) + x[:, 3, None])
    store(R, index=(bid(0),), tile=x[5, :])
    # A slice of an mma result, joined with a loaded tile.
    h = load(H, index=(bid(0), 0), shape=(64, 64))
    acc = mma(h, h, zeros((64, 64), dtype=f32))
    store(M, index=(bid(0), 0), tile=cat((acc[:, 8:24], x[:, 0:16]), axis=1))
    # f16, along rows.
    store(Q, index=(bid(0), 0), tile=cat((h[32:64, :], h[0:32, :]), axis=0))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_slices_and_cat(torch_gpu, arch):
    """Tile slices (in registers, through shared memory, of an mma result)
    and cat along both axes against torch's, outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    x = torch.randn(128, 128, device="cuda")
    h = (torch.randn(128, 64, device="cuda") / 4).half()
    y, m = (torch.full((128, 64), float("nan"), device="cuda")
            for _ in range(2))
    z = torch.full((128, 128), float("nan"), device="cuda")
    r = torch.full((256,), float("nan"), device="cuda")
    q = torch.full((128, 64), float("nan"), device="cuda",
                   dtype=torch.float16)
    kernel = tilec.compile(SLICES, name="slices.tile", arch=arch)
    kernel[2](x, h, y, z, r, m, q)
    torch.cuda.synchronize()
    for b in range(2):
        xb, hb = x[64 * b:64 * (b + 1)], h[64 * b:64 * (b + 1)]
        rows = slice(64 * b, 64 * (b + 1))
        assert torch.equal(y[rows], torch.cat((xb[:, 16:48], xb[:, 96:]), 1))
        assert torch.equal(z[rows], torch.cat((xb[32:], xb[:32]), 0) +
                           xb[:, 3:4])
        assert torch.equal(r[128 * b:128 * (b + 1)], xb[5])
        acc = hb.double() @ hb[:, :64].double()
        got = m[rows]
        assert torch.allclose(got[:, :16].double(), acc[:, 8:24], atol=1e-3)
        assert torch.equal(got[:, 16:32], xb[:, :16])
        assert got[:, 32:].isnan().all()        # the (64, 32) tile's only
        assert torch.equal(q[rows], torch.cat((hb[32:], hb[:32]), 0))


STRIDED = """
kernel rope_pairs(X: Tensor[f32, 2], C: Tensor[f32, 2], S: Tensor[f32, 2],
                  Y: Tensor[f32, 2], Z: Tensor[f16, 2], H: Tensor[f16, 2]):
    r = bid(0)
    # Interleaved rotary embedding (GPT-J): the pairs (x[2i], x[2i + 1]).
    x = load(X, index=(r, 0), shape=(16, 128))
    c = load(C, index=(r, 0), shape=(16, 64))
    s = load(S, index=(r, 0), shape=(16, 64))
    even = x[:, ::2]
    odd = x[:, 1::2]
    y = cat(((even * c - odd * s).reshape((16, 64, 1)),
             (even * s + odd * c).reshape((16, 64, 1))), axis=2)
    store(Y, index=(r, 0), tile=y.reshape((16, 128)))
    # Steps along both dimensions of an f16 tile, from offsets.
    h = load(H, index=(r, 0), shape=(64, 64))
    store(Z, index=(r, 0), tile=h[1:61:4, 3::8])
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_slices_with_steps(torch_gpu, arch):
    """x[a:b:s] with power-of-two steps: an interleaved rotary embedding's
    even and odd columns (registers) and steps along both dimensions from
    offsets, against torch's slices, outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(12)
    blocks = 3
    x = torch.randn(16 * blocks, 128, device="cuda")
    c = torch.randn(16 * blocks, 64, device="cuda")
    s = torch.randn(16 * blocks, 64, device="cuda")
    h = torch.randn(64 * blocks, 64, device="cuda").half()
    y = torch.full_like(x, float("nan"))
    z = torch.full((15 * blocks, 8), float("nan"), device="cuda",
                   dtype=torch.float16)
    kernel = tilec.compile(STRIDED, name="strided.tile", arch=arch)
    kernel[blocks](x, c, s, y, z, h)
    torch.cuda.synchronize()
    xd, cd, sd = x.double(), c.double(), s.double()
    ref = torch.empty_like(xd)
    ref[:, 0::2] = xd[:, ::2] * cd - xd[:, 1::2] * sd
    ref[:, 1::2] = xd[:, ::2] * sd + xd[:, 1::2] * cd
    assert torch.allclose(y.double(), ref, atol=1e-5)
    for b in range(blocks):
        hb = h[64 * b:64 * (b + 1)]
        assert torch.equal(z[15 * b:15 * (b + 1)], hb[1:61:4, 3::8])


CUMSUM = """
kernel cs(X: Tensor[f32, 2], N: Tensor[i32, 2], H: Tensor[f16, 2],
          ROWS: Tensor[f32, 2], COLS: Tensor[f32, 2], CNT: Tensor[i32, 2],
          NS: Tensor[i32, 2], V: Tensor[f32, 1], M: Tensor[f32, 2]):
    x = load(X, index=(bid(0), 0), shape=(64, 128))
    store(ROWS, index=(bid(0), 0), tile=cumsum(x, axis=1))   # lanes, registers
    store(COLS, index=(bid(0), 0), tile=cumsum(x, axis=0))   # and warps
    store(CNT, index=(bid(0), 0), tile=cumsum(x > 0.0, axis=-1))
    n = load(N, index=(bid(0), 0), shape=(64, 128))
    store(NS, index=(bid(0), 0), tile=cumsum(n, axis=0))
    store(V, index=(bid(0),), tile=cumsum(sum(x, axis=1), axis=0))
    h = load(H, index=(bid(0), 0), shape=(64, 64))
    acc = mma(h, h, zeros((64, 64), dtype=f32))
    store(M, index=(bid(0), 0), tile=acc + cumsum(acc, axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_cumsum(torch_gpu, arch):
    """cumsum along rows (registers and lanes) and columns (warps, through
    shared memory), of f32, bool and i32, of a reduction's vector and of an
    mma result, against torch.cumsum in float64; outputs poisoned."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    x = torch.randn(128, 128, device="cuda")
    n = torch.randint(-50, 50, (128, 128), device="cuda", dtype=torch.int32)
    h = (torch.randn(128, 64, device="cuda") / 4).half()
    rows, cols = (torch.full((128, 128), float("nan"), device="cuda")
                  for _ in range(2))
    cnt, ns = (torch.full((128, 128), -1, device="cuda", dtype=torch.int32)
               for _ in range(2))
    v = torch.full((128,), float("nan"), device="cuda")
    m = torch.full((128, 64), float("nan"), device="cuda")
    kernel = tilec.compile(CUMSUM, name="cumsum.tile", arch=arch)
    kernel[2](x, n, h, rows, cols, cnt, ns, v, m)
    torch.cuda.synchronize()
    xd = x.double()
    assert torch.allclose(rows.double(), xd.cumsum(1), atol=1e-4)
    assert torch.equal(cnt, (x > 0).int().cumsum(1).int())
    for b in range(2):
        r = slice(64 * b, 64 * (b + 1))
        assert torch.allclose(cols[r].double(), xd[r].cumsum(0), atol=1e-4)
        assert torch.equal(ns[r], n[r].cumsum(0).int())
        assert torch.allclose(v[r].double(), xd[r].sum(1).cumsum(0),
                              atol=1e-3)
        acc = h[r].double() @ h[r].double()
        assert torch.allclose(m[r].double(), acc + acc.cumsum(1), atol=1e-2)


TRANSPOSED_PRODUCT = """
kernel gemm_t(A: Tensor[f16, 2], B: Tensor[f16, 2], CT: Tensor[f32, 2],
              ST: Tensor[f32, 2], TILE_N: const int = 80):
    m = bid(0)
    n = bid(1)
    acc = zeros((128, TILE_N))
    for k in range(cdiv(A.shape[1], 64)):
        a = load(A, index=(m, k), shape=(128, 64))
        b = load(B, index=(k, n), shape=(64, TILE_N))
        acc = mma(a, b, acc)
    store(CT, index=(n, m), tile=acc.transpose())
    atomic_add(ST, index=(n, m), tile=acc.transpose())
"""


@pytest.mark.parametrize("tile_n", [64, 80])
def test_transposed_accumulator_by_tma(torch_gpu, tile_n):
    """An accumulator stored and added transposed (C^T): on sm_90a both by
    TMA from a buffer in C^T's order (tile-convert-stores-to-tma permutes
    the tile in registers), at 80 columns its rows padded; edges past the
    matrix on both sides; against float64, outputs poisoned (the sum's
    twice added: it starts at C)."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(tile_n)
    M, N, K = 200, 3 * tile_n - 16, 192
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    kernel = tilec.compile(TRANSPOSED_PRODUCT, name="gemm_t.tile",
                           arch="sm_90a", TILE_N=tile_n)
    # A's, B's, C^T's and the sum's.
    assert kernel.num_tensor_maps == 4, kernel.num_tensor_maps
    ref = (a.double() @ b.double()).t()
    ct = torch.full((N, M), float("nan"), device="cuda")
    st = ref.float().contiguous()
    kernel[((M + 127) // 128, (N + tile_n - 1) // tile_n)](a, b, ct, st)
    torch.cuda.synchronize()
    assert torch.allclose(ct.double(), ref, atol=1e-2, rtol=1e-3)
    assert torch.allclose(st.double(), 2 * ref, atol=2e-2, rtol=1e-3)


# --- Attention backward with dQ by atomic_add ------------------------------

DEFERRED = {"TILE_M": 128, "TILE_N": 128, "num_warps": 8,
            "defer_loop_stores": True}
# head_dim 128's: 64 queries a trip (dK and dV in flight at the loop's exit,
# whose waits the last trip's copies follow: no C7515).
DEFERRED_128 = dict(DEFERRED, TILE_M=64)
# dQ's copy issued by a producer warp (producer_stores: tilec.autograd's
# head_dim 128 kernel, 64 x 128), the consumers signalling on mbarriers.
PRODUCER_128 = {"TILE_M": 64, "TILE_N": 128, "num_warps": 8,
                "producer_stores": True}
PRODUCER_64 = dict(PRODUCER_128, TILE_M=128)
# dQ's share computed transposed (DQ_T: dQ^T = K^T dS^T, staged for TMA in
# dQ's order), at 64 and at FlashAttention-3's 80 queries a trip
# (tilec.autograd's DQ_T_TILE_M), specialized as asked.
TRANSPOSED_128 = dict(PRODUCER_128, DQ_T=True, warp_specialize=True)
TRANSPOSED_80 = dict(TRANSPOSED_128, TILE_M=80)

BWD = [
    # arch, BH, N, D, causal, options
    ("sm_90a", 3, 200, 64, False, {}),
    ("sm_90a", 2, 256, 64, True, {}),
    # A TMA producer warp for Q and dO, each read by two multiplies; trip
    # counts from 4 (a block's queries) down to 1 (causal, the last block).
    ("sm_90a", 2, 256, 64, True, {"warp_specialize": True}),
    ("sm_90a", 1, 64, 64, False, {"warp_specialize": True}),
    ("sm_80", 2, 130, 64, True, {}),
    ("sm_80", 1, 64, 64, False, {}),
    # dQ staged in a ring of two and copied out in the next trip
    # (defer_loop_stores: tilec.autograd's head_dim 64 kernel, 128 x 128):
    # trip counts 3, 2 and 1 (causal: the blocks' own), one trip, and a
    # partial last query tile.
    ("sm_90a", 2, 384, 64, False, DEFERRED),
    ("sm_90a", 2, 384, 64, True, DEFERRED),
    ("sm_90a", 1, 128, 64, False, DEFERRED),
    ("sm_90a", 3, 200, 64, False, DEFERRED),
    ("sm_90a", 2, 384, 128, False, DEFERRED_128),
    ("sm_90a", 2, 384, 128, True, DEFERRED_128),
    ("sm_90a", 1, 64, 128, False, DEFERRED_128),
    ("sm_90a", 3, 200, 128, False, DEFERRED_128),
    # The same trip counts with the copy a producer warp's.
    ("sm_90a", 2, 384, 128, False, PRODUCER_128),
    ("sm_90a", 2, 384, 128, True, PRODUCER_128),
    ("sm_90a", 1, 64, 128, False, PRODUCER_128),
    ("sm_90a", 3, 200, 128, False, PRODUCER_128),
    ("sm_90a", 2, 384, 64, True, PRODUCER_64),
    ("sm_90a", 3, 200, 64, False, PRODUCER_64),
    # dQ transposed: trips of 80 queries 5 (the last partial), 1, 3 (200
    # queries: 2.5 tiles); at 64, causal too.
    ("sm_90a", 2, 384, 128, False, TRANSPOSED_80),
    ("sm_90a", 1, 80, 128, False, TRANSPOSED_80),
    ("sm_90a", 3, 200, 128, False, TRANSPOSED_80),
    ("sm_90a", 2, 384, 128, False, dict(TRANSPOSED_80, EVEN_N=True)),
    ("sm_90a", 2, 384, 128, True, TRANSPOSED_128),
    ("sm_90a", 3, 200, 128, False, TRANSPOSED_128),
    # The causal mask split away (the loop's query tile t // group grows
    # with t: tile-mask-ranges), as tilec.autograd compiles the kernels
    # for whole key blocks: 3 key blocks of 128, 2 trips a block masked and
    # up to 4 not (head_dim 128's 64-query tiles), 1 and up to 2 (64's
    # 128); the last block's second loop runs no trip.
    ("sm_90a", 2, 384, 128, True, dict(PRODUCER_128, EVEN_N=True)),
    ("sm_90a", 1, 256, 128, True, dict(DEFERRED_128, EVEN_N=True)),
    ("sm_90a", 2, 384, 64, True, dict(DEFERRED, EVEN_N=True)),
    # With the split off, the mask under a branch on the trips the
    # diagonal crosses instead (guard_masks).
    ("sm_90a", 2, 384, 128, True, dict(PRODUCER_128, EVEN_N=True,
                                       loop_split=False, guard_masks=True)),
    ("sm_90a", 1, 256, 128, True, dict(PRODUCER_128, EVEN_N=True,
                                       loop_split=False, guard_masks=True)),
]


def backward_problem(torch, BH, N, D, causal):
    """Random f16 q, k, v, dO of (1, BH, N, D) (the kernels' (batch, heads,
    tokens, D)) and, in float64, the forward's O and LSE (natural) and the
    gradients of q, k, v."""
    q, k, v, do = (torch.randn(1, BH, N, D, device="cuda",
                               dtype=torch.float16) for _ in range(4))
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    s = (q64 @ k64.transpose(-1, -2)) * (1 / math.sqrt(D))
    if causal:
        s = s.masked_fill(torch.ones(N, N, device="cuda", dtype=torch.bool)
                          .triu(1), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    o = torch.softmax(s, dim=-1) @ v64
    o.backward(do.double())
    return q, k, v, do, o, lse, (q64.grad, k64.grad, v64.grad)


def check_gradients(torch, got, refs):
    """dQ, dK, dV finite and within 1e-2 (norm-relative) of float64."""
    for name, g, ref in zip(("dq", "dk", "dv"), got, refs):
        assert torch.isfinite(g).all(), name
        err = ((g.double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, (name, err)


@pytest.mark.parametrize("case", BWD, ids=lambda c: "-".join(
    map(str, c[:5])) + "".join(f"-{k}" for k in c[5]))
def test_attention_backward_atomic_dq(torch_gpu, repo, case):
    torch = torch_gpu
    arch, BH, N, D, causal, options = case
    skip_unless_arch(torch, arch)
    torch.manual_seed(BH * N + D + causal)
    q, k, v, do, o, lse, grads = backward_problem(torch, BH, N, D, causal)
    scale = 1 / math.sqrt(D)
    path = os.path.join(repo, "kernels", "flash_attention_bwd.tile")
    pre = tilec.compile(path, kernel="attn_bwd_preprocess", arch=arch, D=D)
    bwd = tilec.compile(path, kernel="attn_bwd", arch=arch, D=D,
                        CAUSAL=causal, DQ_ATOMIC=True, **options)
    # (Specialized, the store deferred and the mask guarded, where asked:
    # the compiler says when it cannot; and no multiply serialized by
    # ptxas, as an accumulator in flight between split loops made it.)
    assert not [w for w in bwd.warnings
                if "speciali" in w or "defer_loop_stores" in w
                or "producer_stores" in w or "guard_masks" in w
                or "serializes" in w], bwd.warnings
    o16 = o.detach().half()
    delta = torch.full((BH, N), float("nan"), device="cuda")
    pre[((N + 63) // 64, BH)](o16, do, delta)
    dq = torch.zeros(1, BH, N, D, device="cuda")
    dk = torch.full_like(k, float("nan"))
    dv = torch.full_like(v, float("nan"))
    tile_n = options.get("TILE_N", 64)
    bwd[((N + tile_n - 1) // tile_n, BH)](q, k, v, do, lse.detach().float()[0],
                                          delta, dq, dk, dv, scale)
    torch.cuda.synchronize()
    ref_delta = (o16.double() * do.double()).sum(-1)[0]
    assert (delta.double() - ref_delta).abs().max().item() < 1e-3
    # The kernel adds dQ / scale (dS unscaled in its loop).
    check_gradients(torch, (dq * scale, dk, dv), grads)


@pytest.mark.parametrize("D,how", [(64, "deferred"), (128, "deferred"),
                                   (128, "producer"), (64, "producer")])
def test_attention_backward_deferred_dq_empty_loops(torch_gpu, repo, D, how):
    """defer_loop_stores (or producer_stores) where some blocks run no
    trip: causal, 128
    queries against 384 keys, so that key blocks 1 and 2 see no query (their
    loop runs no trip: no copy is issued, dK and dV are zeros) and block 0
    runs one (at head_dim 128 two trips of 64); dQ, dK, dV against float64,
    outputs poisoned."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(11)
    BH, NQ, NK = 2, 128, 384
    q, do = (torch.randn(1, BH, NQ, D, device="cuda", dtype=torch.float16)
             for _ in range(2))
    k, v = (torch.randn(1, BH, NK, D, device="cuda", dtype=torch.float16)
            for _ in range(2))
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    s = (q64 @ k64.transpose(-1, -2)) * (1 / math.sqrt(D))
    s = s.masked_fill(torch.ones(NQ, NK, device="cuda", dtype=torch.bool)
                      .triu(1), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    o = torch.softmax(s, dim=-1) @ v64
    o.backward(do.double())
    path = os.path.join(repo, "kernels", "flash_attention_bwd.tile")
    pre = tilec.compile(path, kernel="attn_bwd_preprocess", arch="sm_90a", D=D)
    bwd = tilec.compile(path, kernel="attn_bwd", arch="sm_90a", D=D,
                        CAUSAL=True, DQ_ATOMIC=True,
                        **{("deferred", 64): DEFERRED,
                           ("deferred", 128): DEFERRED_128,
                           ("producer", 64): PRODUCER_64,
                           ("producer", 128): PRODUCER_128}[(how, D)])
    assert not [w for w in bwd.warnings
                if "defer_loop_stores" in w or "producer_stores" in w]
    o16 = o.detach().half()
    delta = torch.empty(BH, NQ, device="cuda")
    pre[(NQ // 64, BH)](o16, do, delta)
    dq = torch.zeros(1, BH, NQ, D, device="cuda")
    dk = torch.full_like(k, float("nan"))
    dv = torch.full_like(v, float("nan"))
    scale = 1 / math.sqrt(D)
    bwd[(NK // 128, BH)](q, k, v, do, lse.detach().float()[0], delta, dq, dk,
                         dv, scale)
    torch.cuda.synchronize()
    assert torch.all(dk[:, :, NQ:] == 0) and torch.all(dv[:, :, NQ:] == 0)
    check_gradients(torch, (dq * scale, dk, dv),
                    (q64.grad, k64.grad, v64.grad))


@pytest.mark.parametrize("causal", [False, True])
def test_attention_backward_persistent_specialized(torch_gpu, repo, causal):
    """The deterministic backward (attn_bwd without atomics, then
    attn_bwd_dq) persistent and warp-specialized with 128-row tiles on 8
    consumer warps, one slot per tile refilled after its read: Q and dO
    (dK/dV) and K (dQ) each one ring read as it is and transposed, more
    tiles than multiprocessors (blocks take several); against float64,
    outputs poisoned. (These kernels hung before the producer warps kept
    the tile's rings apart from the loop's.)"""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    BH, N, D = 48, 512, 64
    torch.manual_seed(7 + causal)
    q, k, v, do, o, lse, grads = backward_problem(torch, BH, N, D, causal)
    scale = 1 / math.sqrt(D)
    path = os.path.join(repo, "kernels", "flash_attention_bwd.tile")
    opts = dict(arch="sm_90a", D=D, CAUSAL=causal, num_warps=8,
                warp_specialize=True, persistent=True, tile_stages=1,
                tile_refill_after_read=True)
    pre = tilec.compile(path, kernel="attn_bwd_preprocess", arch="sm_90a",
                        D=D)
    kv = tilec.compile(path, kernel="attn_bwd", DQ_ATOMIC=False, TILE_N=128,
                       **opts)
    dqk = tilec.compile(path, kernel="attn_bwd_dq", TILE_M=128, **opts)
    o16 = o.detach().half()
    delta = torch.empty(BH, N, device="cuda")
    pre[(N // 64, BH)](o16, do, delta)
    lse32 = lse.detach().float()[0]
    dk, dv, dq = (torch.full_like(t, float("nan")) for t in (k, v, q))
    unused = torch.empty(1, 1, 1, 1, device="cuda")
    kv[(N // 128, BH)](q, k, v, do, lse32, delta, unused, dk, dv, scale)
    dqk[(N // 128, BH)](q, k, v, do, lse32, delta, dq, scale)
    torch.cuda.synchronize()
    check_gradients(torch, (dq, dk, dv), grads)


# --- Warp specialization of loops in sequence ---------------------------

TWO_LOOPS = [
    # M, N, K1, K2, options: trips of 5 and 1, of 1 and 7, of 3 and 2
    (256, 256, 320, 64, {}),
    (128, 384, 64, 448, {}),
    (384, 256, 192, 128, {"num_stages": 3}),
]


@pytest.mark.parametrize("case", TWO_LOOPS, ids=lambda c: "-".join(
    map(str, c[:4])) + "".join(f"-{k}" for k in c[4]))
def test_warp_specialized_loops_in_sequence(torch_gpu, repo, case):
    """C = A1 B1 + A2 B2, a loop each: one producer warp per ring runs each
    loop's copies (loop 2's from the kernel's start), the consumers both
    loops; no warning."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    M, N, K1, K2, options = case
    torch.manual_seed(M + N + K1 + K2)
    a1 = torch.randn(M, K1, device="cuda", dtype=torch.float16)
    b1 = torch.randn(K1, N, device="cuda", dtype=torch.float16)
    a2 = torch.randn(M, K2, device="cuda", dtype=torch.float16)
    b2 = torch.randn(K2, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    path = os.path.join(repo, "test", "Target", "Inputs",
                        "two-gemm-loops.tile")
    kernel = tilec.compile(path, arch="sm_90a", warp_specialize=True,
                           num_warps=8, **options)
    assert not kernel.warnings, kernel.warnings
    kernel[(M // 128, N // 128)](a1, b1, a2, b2, c)
    torch.cuda.synchronize()
    ref = a1.double() @ b1.double() + a2.double() @ b2.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-3, err


# --- The compiler's choice on a specialized GEMM: deep rings ----------------

CHOICE_RINGS = [
    # M, N, K, TILE_M, TILE_N, options: K trips of 1, 2 and 5 (fewer than,
    # as many as, more than the 4 stages), a tile or several per block.
    (128, 256, 64, 128, 256, {}),
    (256, 512, 128, 128, 256, {}),
    (384, 256, 320, 128, 256, {}),
    (256, 384, 320, 128, 128, {"persistent": True}),
    (512, 512, 192, 128, 256, {"persistent": True, "num_stages": 3}),
]


@pytest.mark.parametrize("case", CHOICE_RINGS, ids=lambda c: "x".join(
    map(str, c[:5])) + "".join(f"-{k}" for k in c[5]))
def test_specialized_gemm_rings(torch_gpu, repo, case):
    """kernels/linear.tile at the compiler's choice: warp-specialized, its
    unhinted loads on rings of 4 stages (the most that fit beside one block
    per multiprocessor), at K trips below, at and above the ring's depth,
    persistent too; against a float64 product on the host (no cuBLAS in
    the process: the sanitizers run it), poisoned output."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    M, N, K, tm, tn, options = case
    check_linear(torch, repo, M, N, K, tm, tn, options)


def check_linear(torch, repo, M, N, K, tm, tn, options):
    """kernels/linear.tile (no bias) on sm_90a with TILE_M x TILE_N tiles
    and `options`, an (M, K) x (N, K)^T product against float64 on the
    host, the output poisoned with NaN."""
    torch.manual_seed(M + N + K)
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = torch.randn(N, K, device="cuda", dtype=torch.float16)
    y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    none = torch.zeros(8, device="cuda", dtype=torch.float16)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tick = torch.zeros(1, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(os.path.join(repo, "kernels", "linear.tile"),
                           kernel="linear", arch="sm_90a", HAS_BIAS=False,
                           TILE_M=tm, TILE_N=tn, **options)
    grid = (((M + tm - 1) // tm) * ((N + tn - 1) // tn), 1)
    kernel.launch(grid, x, w, none, y, part, tick)
    torch.cuda.synchronize()
    ref = x.cpu().double() @ w.cpu().double().T
    out = y.cpu().double()
    assert not torch.isnan(out).any()
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < 1e-3, err


def test_compile_warning(torch_gpu, repo):
    """A hint that cannot apply is said, located in the kernel's file: here
    warp specialization of a paged decode of 16 rows (mma.sync from
    ldmatrix-swizzled buffers, filled by cp.async: nothing for a producer to
    issue). At 64 rows (wgmma, TMA copies), persistent or not, it applies
    and nothing is said: the producer reads the page numbers ahead, the
    kernel writing neither the table nor the lengths (test_paged_decode
    runs it)."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    path = os.path.join(repo, "kernels", "paged_decode.tile")
    with pytest.warns(tilec.CompileWarning, match="has no TMA copies"):
        kernel = tilec.compile(path, arch="sm_90a", warp_specialize=True)
    assert len(kernel.warnings) == 1
    assert "paged_decode.tile:" in kernel.warnings[0]
    for persistent in (False, True):
        plain = tilec.compile(path, arch="sm_90a", warp_specialize=True,
                              persistent=persistent, GROUP_M=64)
        assert plain.warnings == []


BIAS = """
kernel gemm_bias(A: Tensor[f16, 2], B: Tensor[f16, 2], Bias: Tensor[f16, 1],
                 C: Tensor[f16, 2], TILE_M: const int = 128,
                 TILE_N: const int = 128, TILE_K: const int = 32):
    acc = zeros((TILE_M, TILE_N), dtype=f32)
    for k in range(0, cdiv(A.shape[1], TILE_K)):
        a = load(A, index=(bid(0), k), shape=(TILE_M, TILE_K))
        b = load(B, index=(k, bid(1)), shape=(TILE_K, TILE_N))
        acc = mma(a, b, acc)
    bias = load(Bias, index=(bid(1),), shape=(TILE_N,))
    acc = max(acc + bias.astype(f32)[None, :], 0.0)
    store(C, index=(bid(0), bid(1)), tile=acc.astype(f16))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_bias_relu_epilogue(torch_gpu, arch):
    """A GEMM with a 1-D bias and a relu, written naturally: the epilogue
    runs in the accumulator's layout (tile-remove-layout-conversions) and
    computes relu(A B + bias) against float64; poisoned output."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    M, N, K = 256, 384, 160
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    bias = torch.randn(N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    kernel = tilec.compile(BIAS, name="gemm_bias.tile", arch=arch)
    assert not any("spills" in w for w in kernel.warnings)
    kernel[(M // 128, N // 128)](a, b, bias, c)
    torch.cuda.synchronize()
    ref = torch.relu(a.double() @ b.double() + bias.double())
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err


def test_spills_are_a_warning(torch_gpu, repo):
    """A kernel that spills says so at load (the driver's local memory per
    thread), naming the kernel: a 128 x 256 GEMM tile on 8 warps budgeted
    for 2 blocks per multiprocessor (128 registers a thread) for sm_80; the
    same tile with the registers it needs says nothing."""
    path = os.path.join(repo, "kernels", "gemm.tile")
    tiles = dict(TILE_M=128, TILE_N=256, TILE_K=32)
    with pytest.warns(tilec.CompileWarning, match="kernel 'gemm' spills: "):
        spilling = tilec.compile(path, arch="sm_80", num_warps=8,
                                 occupancy=2, **tiles)
    assert any("bytes of local memory per thread" in w
               for w in spilling.warnings)
    roomy = tilec.compile(path, arch="sm_80", num_warps=8, **tiles)
    assert not any("spills" in w for w in roomy.warnings)


def test_autotune_skips_spilling_candidates(torch_gpu, repo, monkeypatch,
                                            capfd):
    """tilec.autotune does not time a candidate that spills where another
    does not: test_spills_are_a_warning's spilling GEMM tile (sm_80, 8 warps
    budgeted for 2 blocks a multiprocessor) first, the same tile with the
    registers it needs second; the first is skipped with a note
    (TILEC_AUTOTUNE=verbose prints it) and the second, picked, computes the
    product. Alone, the spilling candidate is still tuned and picked."""
    import time
    import warnings
    torch = torch_gpu
    monkeypatch.setenv("TILEC_AUTOTUNE", "verbose")
    path = os.path.join(repo, "kernels", "gemm.tile")
    tiles = dict(TILE_M=128, TILE_N=256, TILE_K=32)
    spilling = tilec.Config(num_warps=8, occupancy=2, **tiles)
    roomy = tilec.Config(num_warps=8, **tiles)
    M, N, K = 256, 512, 256
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = (M // 128, N // 256, 1)
    # A key of its own: a tuning remembered on disk would not be redone.
    key = f"spills:{os.getpid()}:{time.time_ns()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tilec.CompileWarning)
        kernel = tilec.autotune(path, [spilling, roomy], key=key, grid=grid,
                                args=(a, b, c), arch="sm_80")
        err = capfd.readouterr().err
        assert "it spills (" in err and "another candidate does not" in err, \
            err
        assert kernel.config is roomy
        assert not any("spills" in w for w in kernel.warnings)
        c.fill_(float("nan"))
        kernel[grid](a, b, c)
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        rel = ((c.double() - ref).norm() / ref.norm()).item()
        assert rel < 2e-3, rel
        alone = tilec.autotune(path, [spilling], key=key + ":alone",
                               grid=grid, args=(a, b, c), arch="sm_80")
        assert alone.config is spilling
        assert any("spills" in w for w in alone.warnings)
        assert "it spills (" not in capfd.readouterr().err


def test_autotune_from_the_kernels_own_tune(torch_gpu, repo, monkeypatch):
    """tilec.autotune with no configs tries the kernel's @tune values
    (kernels/gemm.tile: TILE_M x TILE_N x TILE_K), each with the compiler's
    schedules (its choice; not persistent at its rings and at 2, 3, 4
    stages; persistent, six ways; in two consumer groups), and the winner computes the product."""
    torch = torch_gpu
    monkeypatch.setenv("TILEC_AUTOTUNE", "on")
    path = os.path.join(repo, "kernels", "gemm.tile")
    plain = tilec.compile(path)
    configs = tilec.tune_space_configs(plain)
    assert len(configs) == 8 * 12
    assert all(c.options.get("auto_schedule") is True for c in configs)
    assert [c.num_stages for c in configs[:12]] == [None, None, 2, 3, 4,
                                                    None, 2, 3, None, 2, 2,
                                                    None]
    assert [c.persistent for c in configs[:12]] == \
        [None] + [False] * 4 + [True] * 7
    assert configs[11].consumer_groups == 2
    assert configs[8].tile_stages == 1 and configs[10].tile_stages == 1
    assert configs[9].options.get("rescale_in_trip") is True
    assert configs[10].options.get("tile_refill_after_read") is True
    assert configs[0].constants == configs[10].constants
    # An option the caller sets is not varied.
    fixed = tilec.tune_space_configs(plain, num_stages=3)
    assert len(fixed) == 8 * 5
    assert all(c.num_stages is None for c in fixed)
    # A kernel without @tune: the schedules alone.
    lse = tilec.compile(os.path.join(repo, "kernels", "attention_lse.tile"))
    assert [c.constants for c in tilec.tune_space_configs(lse)] == [{}] * 12
    M = N = K = 512
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)

    def grid(config):
        return ((M + config.constants["TILE_M"] - 1) // config.constants["TILE_M"],
                (N + config.constants["TILE_N"] - 1) // config.constants["TILE_N"],
                1)

    kernel = tilec.autotune(path, None, key=f"{M}x{N}x{K}", grid=grid,
                            args=(a, b, c))
    assert kernel.config.constants["TILE_M"] in (64, 128)
    c.fill_(float("nan"))
    kernel[grid(kernel.config)](a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err


@pytest.mark.parametrize("ws,rot,stages", [(True, False, 3), (False, True, 2),
                                           (True, True, 4)])
def test_loop_schedule(torch_gpu, repo, ws, rot, stages):
    """A GEMM whose loop carries its own schedule (range(..., num_stages=,
    warp_specialize=, rotate_wgmma=)), the kernel's options off: specialized
    where the loop asks, correct either way."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    path = os.path.join(repo, "test", "Target", "Inputs",
                        "loop-schedules.tile")
    k = tilec.compile(path, arch="sm_90a", auto_schedule=False, WS=ws,
                      ROT=rot, STAGES=stages)
    assert k.num_warps == (8 if ws else 4)
    M, N, K = 256, 384, 640
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[(M // 128, N // 128)](a, b, c)
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 2e-3, err


# --- wgmma with warpgroups along N -------------------------------------------

SPLIT_N_GEMMS = [
    # M, N, K, TILE_N, options: 64-row tiles on two (or four) warpgroups,
    # each a contiguous part of the tile's columns; K trips of 1 and 5,
    # partial tiles, specialized and persistent.
    (64, 256, 64, 256, {}),
    (192, 512, 320, 256, {}),
    (100, 200, 192, 128, {}),
    (128, 256, 320, 256, {"warp_specialize": False}),
    (256, 512, 192, 256, {"persistent": True}),
    (64, 512, 128, 256, {"num_warps": 16}),
]


@pytest.mark.parametrize("case", SPLIT_N_GEMMS, ids=lambda c: "x".join(
    map(str, c[:4])) + "".join(f"-{k}{v}" for k, v in c[4].items()))
def test_gemm_warpgroups_along_n(torch_gpu, repo, case):
    """kernels/linear.tile with 64-row tiles and 8 warps on sm_90a: the two
    warpgroups split each tile's columns (#tile.mma<warpsPerCTA = [4, 2],
    version = 3>), each wgmma reading its own columns of W; against a
    float64 product, poisoned output."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    M, N, K, tn, options = case
    check_linear(torch, repo, M, N, K, 64, tn,
                 dict({"num_warps": 8}, **options))


@pytest.mark.parametrize("tile_n", [64, 128])
def test_attention_warpgroups_along_n(torch_gpu, repo, tile_n):
    """kernels/flash_attention.tile with 64 queries per block on 8 warps:
    S = Q K^T split by columns between the warpgroups (K^T read along its
    K), the row statistics reduced across them, P gathered whole for each
    warpgroup's half of O; trip counts 1, 2 and several, causal and not,
    against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    path = os.path.join(repo, "kernels", "flash_attention.tile")
    B, H, D = 1, 4, 128
    for causal in (False, True):
        for S in (64, 128, 320):
            # (EVEN_K: the keys fill whole tiles; else the last is masked.)
            fmha = tilec.compile(path, "fmha", arch="sm_90a", H=H,
                                 TILE_D=D, TILE_M=64, TILE_N=tile_n, CAUSAL=causal,
                                 EVEN_K=S % tile_n == 0, num_warps=8)
            q, k, v = (torch.randn(B, H, S, D, device="cuda",
                                   dtype=torch.float16) for _ in range(3))
            out = torch.full_like(q, float("nan"))
            scale = 1 / math.sqrt(D)
            fmha[((S + 63) // 64, B * H)](q, k, v, out, scale, 0)
            torch.cuda.synchronize()
            s = (q.double() @ k.double().transpose(-1, -2)) * scale
            if causal:
                s = s.masked_fill(torch.ones(S, S, device="cuda",
                                             dtype=torch.bool).triu(1),
                                  float("-inf"))
            ref = torch.softmax(s, -1) @ v.double()
            err = ((out.double() - ref).norm() / ref.norm()).item()
            assert err < 4e-3, (causal, S, err)


def test_cluster_rank_and_barrier(torch_gpu, repo):
    """cluster_rank() is bid(0) % C in a kernel launched in clusters of C
    (its @hints(cluster=C)); a grid whose x is not a multiple of C is
    refused at launch, naming the cluster; without clusters the calls are
    refused at compile time."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    path = os.path.join(repo, "kernels", "softmax_cluster.tile")
    # (The kernel's @hints(cluster=CLUSTER) makes it 4.)
    k = tilec.compile(path, DTYPE="f32", CLUSTER=4, TILE_N=1024, num_warps=4)
    x = torch.randn(3, 4 * 1024, device="cuda")
    y = torch.full_like(x, float("nan"))
    k.launch(12, x, y)
    torch.testing.assert_close(y, torch.softmax(x, dim=-1), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(tilec.TileError, match="does not split into clusters "
                       "of 4 blocks along x"):
        k.launch(10, x, y)
    # cluster=1 given to the compiler overrides the hint.
    with pytest.raises(tilec.CompileError, match="needs a kernel launched in "
                       "clusters"):
        tilec.compile(path, DTYPE="f32", CLUSTER=4, TILE_N=1024, cluster=1)


GROUPED_PAIRS = """
kernel grouped(X: Tensor[bf16, 2], W: Tensor[bf16, 3], Offsets: Tensor[i32, 1],
               Sched: Tensor[i32, 2], Y: Tensor[bf16, 2],
               TILE_M: const int = 128, TILE_N: const int = 128,
               TILE_K: const int = 64):
    n = bid(0)
    t = bid(1)
    e = load(Sched, index=(0, t), shape=(1, 1)).item()
    first = load(Sched, index=(1, t), shape=(1, 1)).item()
    end = load(Offsets, index=(e + 1,), shape=(1,)).item()
    acc = zeros((TILE_M, TILE_N), dtype=f32)
    for k in range(cdiv(X.shape[1], TILE_K)):
        x = load(X[first:, :], index=(0, k), shape=(TILE_M, TILE_K))
        w = load(W, index=(e, k, n), shape=(1, TILE_K, TILE_N), order=(0, 2, 1))
        acc = mma(x, w.reshape((TILE_K, TILE_N)), acc)
    store(Y[first:end], index=(0, n), tile=acc.astype(bf16))
"""


@pytest.mark.parametrize("options", [{}, {"persistent": True},
                                     {"num_stages": 4}])
def test_cluster_multicast_from_schedule(torch_gpu, options):
    """A grouped GEMM (a mixture of experts' tokens sorted by expert) whose
    N tiles run along x in clusters of 2: the pair's X tile comes from its
    M tile's first row, which both blocks load from the host's schedule (a
    tensor the kernel never writes), so the pair shares X's ring by
    multicast (no warning that the cluster does not apply). Uneven experts
    (tiles starting mid-expert, an empty expert, a one-row one) against
    float64; a launch whose output overlaps the schedule is refused."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    k = tilec.compile(GROUPED_PAIRS, name="grouped.tile", cluster=2,
                      **options)
    assert not any("does not apply" in w for w in k.warnings), k.warnings
    torch.manual_seed(5)
    counts = [300, 0, 1, 129, 64, 250]
    E, K, N = len(counts), 192, 512
    off = [0]
    for c in counts:
        off.append(off[-1] + c)
    experts, firsts = [], []
    for e in range(E):
        for r in range(off[e], off[e + 1], 128):
            experts.append(e)
            firsts.append(r)
    sched = torch.tensor([experts, firsts], device="cuda", dtype=torch.int32)
    offsets = torch.tensor(off, device="cuda", dtype=torch.int32)
    x = torch.randn(off[-1], K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16)
    y = torch.full((off[-1], N), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    grid = (N // 128, sched.shape[1])
    k[grid](x, w, offsets, sched, y)
    torch.cuda.synchronize()
    ref = torch.empty(off[-1], N, device="cuda", dtype=torch.float64)
    for e in range(E):
        ref[off[e]:off[e + 1]] = (x[off[e]:off[e + 1]].double() @
                                  w[e].double().T)
    err = (y.double() - ref).abs().max().item() / ref.abs().max().item()
    assert err < 1e-2, err
    # The schedule inside the output: refused before anything runs.
    inside = y.view(-1).view(torch.int32)[:sched.numel()].view(sched.shape)
    inside.copy_(sched)
    with pytest.raises(tilec.TileError, match="overlaps 'Y', which the "
                                              "kernel writes"):
        k[grid](x, w, offsets, inside, y)


GRID_GEMM = """
kernel mm(A: Tensor[f16, 2], B: Tensor[f16, 2], C: Tensor[f32, 2],
          TILE_M: const int = 64, TILE_N: const int = 64,
          TILE_K: const int = 32):
    m = bid(0)
    n = bid(1)
    acc = zeros((TILE_M, TILE_N), dtype=f32)
    for k in range(cdiv(A.shape[1], TILE_K)):
        a = load(A, index=(m, k), shape=(TILE_M, TILE_K))
        b = load(B, index=(k, n), shape=(TILE_K, TILE_N))
        acc = mma(a, b, acc)
    store(C, index=(m, n), tile=acc)
"""


@pytest.mark.parametrize("group", [0, 1, 4, 16])
@pytest.mark.parametrize("options", [{}, {"persistent": True}])
def test_group_tile_order(torch_gpu, group, options):
    """A GEMM on a 2-D grid (rows of A by bid(0), columns of B by bid(1))
    whose blocks take their tiles in groups along x (tile-group-tile-order:
    the choice, 8; the hardware's order; 4; 16): every tile computed once,
    with 21 tile rows (a last group of 1 with 4, of 5 with 8 and 16) and a
    partial last tile each way, as is and persistent, against float64."""
    torch = torch_gpu
    k = tilec.compile(GRID_GEMM, name="mm.tile", group_tiles=group,
                      **options)
    assert not any("group_tiles" in w for w in k.warnings), k.warnings
    torch.manual_seed(group)
    M, N, K = 20 * 64 + 17, 5 * 64 + 9, 96
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda")
    k[(21, 6)](a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.double(), ref, rtol=1e-3, atol=1e-3)


CLUSTER_GATHER = """
@hints(cluster=C)
kernel gathers(X: Tensor[f32, 2], Y: Tensor[f32, 2], S: Tensor[f32, 2],
               T: Tensor[f32, 2], Z: Tensor[i32, 2], H: Tensor[f16, 2],
               G: Tensor[f16, 2], C: const int = 4):
    b = bid(0)
    rank = cluster_rank()
    # A tile spread over the block's threads: the cluster's rows in order.
    x = load(X, index=(b, 0), shape=(4, 32))
    store(Y, index=(b, 0), tile=cluster_gather(x))
    # Through global memory across cluster_barrier(), between two gathers.
    total = sum(sum(x, axis=1, keepdims=True), axis=0, keepdims=True)
    store(S, index=(b, 0), tile=total)
    cluster_barrier()
    store(T, index=(b, 0), tile=load(S, index=(b // C, 0),
                                     shape=(C, 1)).reshape((1, C)))
    # Several tiles at one barrier: i32 held replicated, f16 along axis 1.
    z = arange(8).reshape((1, 8)) + rank * 100
    h = load(H, index=(b, 0), shape=(2, 2))
    zs, hs = cluster_gather((z, h), axis=1)
    store(Z, index=(b, 0), tile=zs)
    store(G, index=(b, 0), tile=hs)
"""


CLUSTER_GATHER_LOOP = """
@hints(cluster=C)
kernel gather_loop(X: Tensor[f32, 2], Y: Tensor[f32, 2], C: const int = 4):
    # The cluster's items in turn (a grid-stride loop over clusters): each
    # trip gathers the cluster's (4, 32) tiles of its item, plus the trip.
    rank = cluster_rank()
    first = bid(0) // C
    clusters = num_blocks(0) // C
    for i in range(cdiv(X.shape[0] // (4 * C) - first, clusters)):
        item = first + i * clusters
        x = load(X, index=(item * C + rank, 0), shape=(4, 32))
        store(Y, index=(item * C + rank, 0), tile=cluster_gather(x + i))
"""


@pytest.mark.parametrize("cluster,clusters,items", [(2, 3, 13), (4, 2, 9),
                                                    (8, 5, 3), (16, 1, 4)])
def test_cluster_gather_in_loop(torch_gpu, cluster, clusters, items):
    """cluster_gather in a loop: two buffers a gather, the trip's parity
    choosing one (a block writing trip t + 1's tiles while another still
    reads trip t's); clusters with many trips, one, and none (more clusters
    than items); outputs poisoned, equal in two launches."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(cluster * 100 + items)
    c = cluster
    k = tilec.compile(CLUSTER_GATHER_LOOP, name="gather_loop.tile", C=c,
                      num_warps=4)
    x = torch.randn(items * c * 4, 32, device="cuda")
    want = torch.empty(items * c, 4 * c, 32, device="cuda")
    for item in range(items):
        tiles = x[item * c * 4:(item + 1) * c * 4] + item // clusters
        want[item * c:(item + 1) * c] = tiles
    outs = []
    for _ in range(2):
        y = torch.full((items * c * 4 * c, 32), float("nan"), device="cuda")
        k.launch(clusters * c, x, y)
        torch.cuda.synchronize()
        torch.testing.assert_close(y.view(items * c, 4 * c, 32), want,
                                   rtol=0, atol=0)
        outs.append(y)
    assert torch.equal(outs[0], outs[1])


@pytest.mark.parametrize("cluster", [2, 4, 8, 16])
def test_cluster_gather(torch_gpu, cluster):
    """cluster_gather: every block of the cluster gets the cluster's tiles
    in rank order, through the blocks' shared memory (an f32 tile over the
    block's threads, an i32 one that every thread holds, f16 along axis 1,
    two of them at one barrier), around a cluster_barrier() that orders a
    global exchange; three clusters, outputs poisoned."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(cluster)
    c, n = cluster, 3
    blocks = n * c
    k = tilec.compile(CLUSTER_GATHER, name="gathers.tile", C=c, num_warps=4)
    x = torch.randn(blocks * 4, 32, device="cuda")
    h = torch.randn(blocks * 2, 2, device="cuda").half()
    y = torch.full((blocks * 4 * c, 32), float("nan"), device="cuda")
    s = torch.full((blocks, 1), float("nan"), device="cuda")
    t = torch.full((blocks, c), float("nan"), device="cuda")
    z = torch.full((blocks, 8 * c), -1, device="cuda", dtype=torch.int32)
    g = torch.full((blocks * 2, 2 * c), float("nan"), device="cuda",
                   dtype=torch.float16)
    k.launch(blocks, x, y, s, t, z, h, g)
    torch.cuda.synchronize()
    for b in range(blocks):
        first = b // c * c
        torch.testing.assert_close(
            y.view(blocks, 4 * c, 32)[b], x[4 * first:4 * (first + c)],
            rtol=0, atol=0)
        torch.testing.assert_close(
            t[b], x.view(blocks, 128)[first:first + c].sum(1), rtol=1e-6,
            atol=1e-5)
        want = torch.cat([torch.arange(8, device="cuda", dtype=torch.int32) +
                          100 * q for q in range(c)])
        assert torch.equal(z[b], want), (b, z[b])
        hv = h.view(blocks, 2, 2)
        assert torch.equal(g.view(blocks, 2, 2 * c)[b],
                           torch.cat([hv[first + q] for q in range(c)], 1))



# --- Loops unrolled at compile time: static_range ----------------------------

CONV1D = """
# Causal depthwise conv1d (Mamba's): out[b, c, t] = bias[c] +
# sum_k w[c, k] * x[b, c, t - (K - 1) + k]; the taps unrolled, each a
# constant column of the weight tile.
kernel causal_conv1d(X: Tensor[f32, 3], Wt: Tensor[f32, 2], Bias: Tensor[f32, 1],
                     Out: Tensor[f32, 3],
                     TILE_C: const int = 16, TILE_T: const int = 64,
                     K: const int = 4):
    b = bid(2)
    c = bid(1)
    t = bid(0)
    w = load(Wt, index=(c, 0), shape=(TILE_C, K))
    ts = t * TILE_T + arange(TILE_T, dtype=i32)
    cs = c * TILE_C + arange(TILE_C, dtype=i32)
    acc = load(Bias, index=(c,), shape=(TILE_C,))[:, None] + zeros((TILE_C, TILE_T))
    for k in static_range(K - 1, -1, -1):
        x = gather(X, (b, cs[:, None], ts[None, :] - k), padding=0.0)
        acc = acc + x * w[:, K - 1 - k:K - k]
    store(Out, index=(b, c, t), tile=acc.reshape((1, TILE_C, TILE_T)))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("taps", [1, 4])
def test_static_range_conv1d(torch_gpu, arch, taps):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    B, C, T = 2, 40, 150   # channels and steps past a tile's: masked
    x = torch.randn(B, C, T, device="cuda")
    w = torch.randn(C, taps, device="cuda")
    bias = torch.randn(C, device="cuda")
    out = torch.full((B, C, T), float("nan"), device="cuda")
    kernel = tilec.compile(CONV1D, name="conv1d.tile", arch=arch,
                           K=taps)
    kernel[((T + 63) // 64, (C + 15) // 16, B)](x, w, bias, out)
    torch.cuda.synchronize()
    ref = torch.nn.functional.conv1d(
        torch.nn.functional.pad(x.double(), (taps - 1, 0)),
        w.double()[:, None, :], bias.double(), groups=C)
    assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-5)


# --- Slices and joins held in place: kernels/rotary.tile --------------------

@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("heads,dim,tokens_per_block,in_place",
                         [(8, 128, 2, False), (4, 64, 1, True),
                          (16, 128, 4, False)])
def test_rotary(torch_gpu, repo, arch, heads, dim, tokens_per_block,
                in_place):
    """x's halves sliced and the result joined from two tiles (no data
    moved: tile-assign-layouts spans a half), against float64; 37 tokens,
    the last block's past the end neither read nor written."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(6)
    T = 37
    x = torch.randn(T, heads, dim, device="cuda", dtype=torch.bfloat16)
    angle = torch.rand(T, dim // 2, device="cuda") * 6.3
    cos, sin = angle.cos(), angle.sin()
    out = x.clone() if in_place else torch.full_like(x, float("nan"))
    guard = torch.full((heads, dim), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
    kernel = tilec.compile(os.path.join(repo, "kernels", "rotary.tile"),
                           arch=arch, H=heads, D=dim,
                           TILE_T=tokens_per_block)
    kernel[((T + tokens_per_block - 1) // tokens_per_block,)](
        out if in_place else x, cos, sin, out)
    torch.cuda.synchronize()
    xd, c, s = x.double(), cos.double()[:, None, :], sin.double()[:, None, :]
    x1, x2 = xd[..., :dim // 2], xd[..., dim // 2:]
    ref = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
    assert torch.allclose(out.double(), ref, rtol=8e-3, atol=1e-2)
    assert torch.isnan(guard).all()


# --- Reductions across rows: lanes along the reduced dimension ---------------

COLUMN_SUMS = """
kernel column_sums(X: Tensor[f32, 2], S: Tensor[f32, 1], M: Tensor[f32, 2],
                   rows_per_block: int,
                   TILE_M: const int = 64, TILE_N: const int = 256):
    n = bid(0)
    first = bid(1) * rows_per_block
    acc = zeros((1, TILE_N))
    top = full((1, TILE_N), -inf)
    for i in range(first // TILE_M, cdiv(min(first + rows_per_block, X.shape[0]), TILE_M)):
        x = load(X, index=(i, n), shape=(TILE_M, TILE_N))
        acc += sum(x, axis=0, keepdims=True)
        top = max(top, max(load(X, index=(i, n), shape=(TILE_M, TILE_N), padding=-inf), axis=0, keepdims=True))
    atomic_add(S, (n,), acc.reshape((TILE_N,)))
    store(M, index=(bid(1), n), tile=top)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_column_sums(torch_gpu, arch):
    """Sums and maxima over the rows of a (1000, 300) matrix, three row
    ranges each added atomically (the layout gives the reduced rows lanes
    and the columns warps: no shared memory a trip), against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(7)
    R, C, per = 1000, 300, 384
    x = torch.randn(R, C, device="cuda")
    s = torch.zeros(C, device="cuda")
    m = torch.full((3, C), float("nan"), device="cuda")
    kernel = tilec.compile(COLUMN_SUMS, name="column_sums.tile", arch=arch)
    kernel[((C + 255) // 256, 3)](x, s, m, per)
    torch.cuda.synchronize()
    assert torch.allclose(s.double(), x.double().sum(0), rtol=1e-5, atol=1e-4)
    for b in range(3):
        assert torch.equal(m[b], x[b * per:(b + 1) * per].max(0).values)


# --- Row sums of a loop's accumulator, and permuted stores --------------------

@pytest.mark.parametrize("arch", ARCHS)
def test_gemv_row_sums_stored(torch_gpu, repo, arch):
    """bench/kernels/gemv.tile: sum(acc, axis=1) of a loop's accumulator
    stored as a vector (the reduction keeps its source's layout; the
    store's comes by a conversion), x only broadcast (a slice of the
    product's layout), rows and K past whole tiles, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(7)
    N, K = 1000, 1300
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(K, device="cuda", dtype=torch.bfloat16)
    y = torch.full((N + 8,), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    kernel = tilec.compile(os.path.join(repo, "bench", "kernels", "gemv.tile"),
                           arch=arch)
    kernel[((N + 15) // 16,)](w, x, y[:N])
    torch.cuda.synchronize()
    ref = w.double() @ x.double()
    assert torch.allclose(y[:N].double(), ref, rtol=1e-2, atol=5e-2)
    assert torch.isnan(y[N:]).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_split_heads_permuted_store(torch_gpu, repo, arch):
    """bench/kernels/split_heads.tile: (T, 3 H D) rows split into (H, T, D)
    q, k and v, a permute keeping the contiguous dimension stored as held;
    100 tokens, the last block's past the end neither read nor written;
    bit-exact."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(8)
    T, H, D = 100, 8, 64
    qkv = torch.randn(T, 3 * H * D, device="cuda", dtype=torch.bfloat16)
    outs = [torch.full((H, T + 4, D), float("nan"), device="cuda",
                       dtype=torch.bfloat16) for _ in range(3)]
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "split_heads.tile"),
        arch=arch, H=H, D=D, TILE_T=32)
    kernel[((T + 31) // 32,)](qkv, *(o[:, :T] for o in outs))
    torch.cuda.synchronize()
    ref = qkv.view(T, 3, H, D).permute(1, 2, 0, 3)
    for i, o in enumerate(outs):
        assert torch.equal(o[:, :T], ref[i])
        assert torch.isnan(o[:, T:]).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_cumsum_along_time(torch_gpu, repo, arch):
    """bench/kernels/cumsum_time.tile: a scan along the rows of a tile
    (time; channels contiguous), through a view dropping the batch, its
    running sum carried across trips; times and channels past whole tiles,
    against float64; outputs past the end not written."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(9)
    B, T, C = 3, 300, 200
    x = torch.randn(B, T, C, device="cuda")
    y = torch.full((B, T + 5, C), float("nan"), device="cuda")
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "cumsum_time.tile"), arch=arch)
    kernel[((C + 63) // 64, B)](x, y[:, :T])
    torch.cuda.synchronize()
    ref = torch.cumsum(x.double(), dim=1)
    assert torch.allclose(y[:, :T].double(), ref, rtol=1e-5, atol=1e-4)
    assert torch.isnan(y[:, T:]).all()


def bf16_operands(torch, seed, M, N, K):
    """A (M, K) and B (K, N) of random bf16, from `seed`."""
    torch.manual_seed(seed)
    return (torch.randn(M, K, device="cuda", dtype=torch.bfloat16),
            torch.randn(K, N, device="cuda", dtype=torch.bfloat16))


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_accumulate(torch_gpu, repo, arch):
    """bench/kernels/gemm_accumulate.tile: C += A @ B with the accumulator
    started from C's tile (carried in the multiply's layout, C converted
    once before the loop), M, N and K past whole tiles, against float64;
    C past the problem untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    a, b = bf16_operands(torch, 10, 300, 260, 200)
    M, N, K = 300, 260, 200
    c = torch.full((M + 3, N + 8), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    c0 = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    c[:M, :N] = c0
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "gemm_accumulate.tile"),
        arch=arch)
    kernel[((M + 127) // 128, (N + 127) // 128)](a, b, c[:M, :N])
    torch.cuda.synchronize()
    ref = a.double() @ b.double() + c0.double()
    assert torch.allclose(c[:M, :N].double(), ref, rtol=1e-2, atol=1e-1)
    assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_block_scaled(torch_gpu, repo, arch):
    """bench/kernels/gemm_block_scaled.tile: each K tile's product scaled
    per row by S[:, k] * alpha before it is accumulated (the scale column
    copied ahead and read in the accumulator's layout), M, N and K past
    whole tiles, against float64; C past the problem untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(15)
    M, N, K, TK = 300, 260, 200, 64
    tiles = (K + TK - 1) // TK
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    s = torch.rand(M, tiles, device="cuda") + 0.5
    alpha = 0.75
    c = torch.full((M + 3, N + 8), float("nan"), device="cuda")
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "gemm_block_scaled.tile"),
        arch=arch)
    kernel[((M + 127) // 128, (N + 127) // 128)](a, b, s, c[:M, :N], alpha)
    torch.cuda.synchronize()
    ref = torch.zeros(M, N, device="cuda", dtype=torch.float64)
    for k in range(tiles):
        part = a[:, k * TK:(k + 1) * TK].double() @ \
            b[k * TK:(k + 1) * TK].double()
        ref += part * (s[:, k].double() * alpha)[:, None]
    assert torch.allclose(c[:M, :N].double(), ref, rtol=1e-3, atol=1e-2)
    assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()


ONE_TILE_K = """
# C = A @ B with K in one tile (an outer-product-like update): no loop.
kernel one_tile_k(A: Tensor[bf16, 2], B: Tensor[bf16, 2], C: Tensor[f32, 2]):
    a = load(A, index=(bid(0), 0), shape=(128, 32))
    b = load(B, index=(0, bid(1)), shape=(32, 256))
    store(C, index=(bid(0), bid(1)), tile=mma(a, b, zeros((128, 256))))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_one_tile_k_product(torch_gpu, arch):
    """A 128 x 256 product whose K is one tile, no loop: the compiler's
    choice gives it 8 warps (on 4, 256 registers a thread: refused); M and N
    past whole tiles, against float64; C past the problem untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    a, b = bf16_operands(torch, 17, 300, 600, 32)
    M, N, K = 300, 600, 32
    c = torch.full((M + 3, N + 8), float("nan"), device="cuda")
    kernel = tilec.compile(ONE_TILE_K, arch=arch)
    kernel[((M + 127) // 128, (N + 255) // 256)](a, b, c[:M, :N])
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    assert torch.allclose(c[:M, :N].double(), ref, rtol=1e-4, atol=1e-3)
    assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_adamw_mixed_widths(torch_gpu, repo, arch):
    """bench/kernels/adamw.tile: an AdamW step over f32 weights and moments
    and a bf16 gradient (the f32 and 16-bit tiles in one layout), a length
    past whole blocks, against float64; past the length untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(18)
    n, extra = 5000, 8
    p = torch.randn(n + extra, device="cuda")
    g = torch.randn(n + extra, device="cuda", dtype=torch.bfloat16)
    m = torch.randn(n + extra, device="cuda") * 0.1
    v = torch.rand(n + extra, device="cuda") * 0.01
    p16 = torch.full((n + extra,), float("nan"), device="cuda",
                     dtype=torch.bfloat16)
    p0, m0, v0, gd = p.double(), m.double(), v.double(), g.double()
    lr, b1, b2, eps, wd, t = 1e-3, 0.9, 0.999, 1e-8, 0.01, 3
    bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "adamw.tile"), arch=arch)
    kernel[((n + 2047) // 2048,)](p[:n], g[:n], m[:n], v[:n], p16[:n],
                                  lr, b1, b2, eps, wd, bc1, bc2)
    torch.cuda.synchronize()
    m1 = b1 * m0 + (1 - b1) * gd
    v1 = b2 * v0 + (1 - b2) * gd * gd
    p1 = p0 * (1 - lr * wd) - lr * (m1 / bc1) / ((v1 / bc2).sqrt() + eps)
    assert torch.allclose(m[:n].double(), m1[:n], rtol=1e-5, atol=1e-6)
    assert torch.allclose(v[:n].double(), v1[:n], rtol=1e-5, atol=1e-7)
    assert torch.allclose(p[:n].double(), p1[:n], rtol=1e-5, atol=1e-6)
    assert torch.equal(p16[:n], p[:n].to(torch.bfloat16))
    assert torch.equal(p[n:].double(), p0[n:])
    assert torch.isnan(p16[n:]).all()


GATHER_RESHAPED = """
# Rows p .. p + 16 of E gathered, the indices given their unit dimensions
# by reshapes (as by [:, None] and [None, :]).
kernel gather_rows(E: Tensor[bf16, 2], O: Tensor[bf16, 2], p: int):
    rows = (arange(16) + p).reshape((16, 1))
    cols = arange(128).reshape((1, 128))
    store(O, index=(0, 0), tile=gather(E, (rows, cols)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_gather_reshaped_indices(torch_gpu, arch):
    """Gather indices made by reshapes of aranges (one plus an offset): in
    the gather's layout, read as vectors; rows past the table read as
    zeros; exact."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(16)
    e = torch.randn(40, 128, device="cuda", dtype=torch.bfloat16)
    kernel = tilec.compile(GATHER_RESHAPED, arch=arch)
    for p in (0, 5, 30):
        o = torch.full((16, 128), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        kernel[(1,)](e, o, p)
        torch.cuda.synchronize()
        want = torch.zeros(16, 128, device="cuda", dtype=torch.bfloat16)
        n = min(16, 40 - p)
        want[:n] = e[p:p + n]
        assert torch.equal(o, want)


@pytest.mark.parametrize("batch", [8, 16])
@pytest.mark.parametrize("arch", ARCHS)
def test_batched_gemv(torch_gpu, repo, arch, batch):
    """bench/kernels/batched_gemv.tile: Y = X W^T for a few rows, the block's
    tile transposed (W's rows the multiply's M, the batch its N: mma.sync at
    8 rows, wgmma at 16 on sm_90a), N and K past whole tiles, against
    float64; Y past the problem untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(14)
    N, K = 300, 520
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(batch, K, device="cuda", dtype=torch.bfloat16)
    y = torch.full((batch + 2, N + 8), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "batched_gemv.tile"),
        arch=arch, B=batch)
    kernel[((N + 63) // 64,)](w, x, y[:batch, :N])
    torch.cuda.synchronize()
    ref = x.double() @ w.double().T
    assert torch.allclose(y[:batch, :N].double(), ref, rtol=1e-2, atol=1e-1)
    assert torch.isnan(y[batch:]).all() and torch.isnan(y[:, N:]).all()


@pytest.mark.parametrize("kernel", ["gemm_residual", "gemm_scaled",
                                    "gemm_gated"])
@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_epilogue(torch_gpu, repo, arch, kernel):
    """bench/kernels/gemm_epilogues.tile: C = A @ B + R (R loaded after the
    K loop, converted to the multiply's layout), (A @ B) scaled by a
    per-row and a per-column vector (each loaded in a slice of it) and
    (A @ B) * sigmoid(G) (G converted in 16 bits, its sigmoid computed
    after), M, N and K past whole tiles, against float64; C past the
    problem untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    a, b = bf16_operands(torch, 12, 300, 260, 200)
    M, N, K = 300, 260, 200
    ref = a.double() @ b.double()
    if kernel == "gemm_residual":
        r = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
        extra = (r,)
        ref = ref + r.double()
    elif kernel == "gemm_gated":
        g = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
        extra = (g,)
        ref = ref * torch.sigmoid(g.double())
    else:
        rs = torch.rand(M, device="cuda") + 0.5
        cs = torch.rand(N, device="cuda") + 0.5
        extra = (rs, cs)
        ref = ref * rs.double()[:, None] * cs.double()[None, :]
    c = torch.full((M + 3, N + 8), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    compiled = tilec.compile(
        os.path.join(repo, "bench", "kernels", "gemm_epilogues.tile"),
        kernel=kernel, arch=arch)
    compiled[((M + 127) // 128, (N + 127) // 128)](a, b, *extra, c[:M, :N])
    torch.cuda.synchronize()
    assert torch.allclose(c[:M, :N].double(), ref, rtol=1e-2, atol=1e-1)
    assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()


@pytest.mark.parametrize("K", [40, 100, 200, 1000])
@pytest.mark.parametrize("tile_m", [64, 128])
@pytest.mark.parametrize("kernel", ["gemm_scaled_a", "gemm_cast_a",
                                    "gemm_norm_a", "gemm_scaled_b"])
@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_prologue(torch_gpu, repo, arch, kernel, tile_m, K):
    """bench/kernels/gemm_prologues.tile: A scaled by a scalar, held in f32
    and rounded, or scaled per row and per K column (RMSNorm folded into A:
    the row's scale converted into the operand's layout once, the K
    column's copied into a ring of its own and read in it), in every trip
    before the multiply (A read from its ring slot in the operand's layout,
    the multiply's A in registers), or B held in e4m3 (bf16 on sm_80) and
    scaled (its load copied into a ring ahead, B stored to a buffer for the
    multiply), M and N past whole tiles, K of 1, 2, 4 and 16 trips (the
    last partial but at 1000), against float64; C past the problem
    untouched."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    gemm_prologue_case(torch, repo, arch, kernel, tile_m, K)


@pytest.mark.parametrize("K", [40, 100, 200, 1000])
@pytest.mark.parametrize("schedule", ["choice", "persistent", "specialized",
                                      "sliced_128"])
@pytest.mark.parametrize("kernel", ["gemm_scaled_a", "gemm_cast_a",
                                    "gemm_norm_a"])
def test_gemm_prologue_steps(torch_gpu, repo, kernel, schedule, K):
    """The same kernels with A made and multiplied K step by K step
    (tile-slice-wgmma-k): 128 x 256 tiles, where the compiler's choice
    slices (one block a multiprocessor), also persistent and warp-
    specialized, and 128 x 128 tiles sliced on request; 1, 2, 4 and 16
    trips."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    tile_n, options = {
        "choice": (256, {}),
        "persistent": (256, dict(persistent=True)),
        "specialized": (256, dict(warp_specialize=True)),
        "sliced_128": (128, dict(slice_register_a=True)),
    }[schedule]
    gemm_prologue_case(torch, repo, "sm_90a", kernel, 128, K, tile_n,
                       **options)


STORED_B_SCHEDULES = {
    # (TILE_N, options): two buffers taken in turn where they fit
    # (tile-ring-stored-operands), one buffer before the loop otherwise.
    "ring_256": (256, {}),
    "ring_128": (128, dict(num_stages=3)),
    "one_128": (128, dict(num_stages=3, stored_operand_slots=1)),
    "one_256": (256, dict(stored_operand_slots=1)),
    "specialized_256": (256, dict(warp_specialize=True)),
    "persistent_256": (256, dict(persistent=True)),
}


@pytest.mark.parametrize("K", [40, 100, 200, 1000])
@pytest.mark.parametrize("schedule", list(STORED_B_SCHEDULES))
def test_gemm_stored_b(torch_gpu, repo, schedule, K):
    """gemm_scaled_b's B, dequantized in registers and stored in every trip
    for wgmma, in a ring of two buffers the trips take in turn (its store
    under the previous trip's multiply) or in one (the store behind every
    thread's wait for that multiply): 1, 2, 4 and 16 trips, specialized
    and persistent too."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    tile_n, options = STORED_B_SCHEDULES[schedule]
    gemm_prologue_case(torch, repo, "sm_90a", "gemm_scaled_b", 128, K,
                       tile_n, **options)


@pytest.mark.parametrize("schedule", ["ring_256", "ring_128", "one_128"])
def test_gemm_stored_b_large(torch_gpu, repo, schedule):
    """The same at 8192 x 8192 x 8192: with one buffer and no barrier
    between the other warpgroup's wait and the store, the 3-stage kernel
    (one_128) came out wrong at this size (relative error 2e-2, 2.7e-3
    with the barrier), twice the same launch compared too."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    tile_n, options = STORED_B_SCHEDULES[schedule]
    torch.manual_seed(5)
    n = 8192
    a = (torch.randn(n, n, device="cuda") * 0.5).bfloat16()
    b = (torch.randn(n, n, device="cuda") * 0.5).to(torch.float8_e4m3fn)
    compiled = tilec.compile(
        os.path.join(repo, "bench", "kernels", "gemm_prologues.tile"),
        kernel="gemm_scaled_b", arch="sm_90a", TILE_N=tile_n, **options)
    outs = []
    for _ in range(2):
        c = torch.full((n, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        compiled[(n // 128, n // tile_n)](a, b, c, 0.75)
        torch.cuda.synchronize()
        outs.append(c)
    ref = a.double() @ (b.float() * 0.75).bfloat16().double()
    err = ((outs[0].double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 8e-3, err
    assert torch.equal(outs[0], outs[1])


def gemm_prologue_case(torch, repo, arch, kernel, tile_m, K, tile_n=128,
                       **options):
    """test_gemm_prologue's check: `kernel` of gemm_prologues.tile at
    tile_m x tile_n tiles with `options`, against float64."""
    # (B's 8-bit rows a multiple of 16 bytes, as its copies need.)
    M, N = 300, 272 if kernel == "gemm_scaled_b" else 260
    a, b = bf16_operands(torch, 15, M, N, K)
    consts = {}
    if kernel == "gemm_scaled_a":
        s = 0.75
        args = (a, b)
        scalars = (s,)
        a_used = (a.float() * s).bfloat16()
    elif kernel == "gemm_scaled_b":
        # (8-bit floats need sm_89: bf16 B on sm_80.)
        s = 0.75
        if arch == "sm_90a":
            b = b.to(torch.float8_e4m3fn)
            consts = dict(BTYPE="f8e4m3")
        else:
            consts = dict(BTYPE="bf16")
        args = (a, b)
        scalars = (s,)
        a_used = a
        b = (b.float() * s).bfloat16()
    elif kernel == "gemm_norm_a":
        r = torch.rand(M, device="cuda") + 0.5
        g = (torch.rand(K, device="cuda") + 0.5).bfloat16()
        args = (a, r, g, b)
        scalars = ()
        a_used = (a.float() * r[:, None] * g.float()[None, :]).bfloat16()
    else:
        a = a.float() + 1e-3 * torch.randn_like(a.float())
        args = (a, b)
        scalars = ()
        a_used = a.bfloat16()
    c = torch.full((M + 3, N + 8), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    compiled = tilec.compile(
        os.path.join(repo, "bench", "kernels", "gemm_prologues.tile"),
        kernel=kernel, arch=arch, TILE_M=tile_m, TILE_N=tile_n, **consts,
        **options)
    compiled[((M + tile_m - 1) // tile_m, (N + tile_n - 1) // tile_n)](
        *args, c[:M, :N], *scalars)
    torch.cuda.synchronize()
    ref = a_used.double() @ b.double()
    assert torch.allclose(c[:M, :N].double(), ref, rtol=1e-2, atol=1e-1)
    assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()




@pytest.mark.parametrize("arch", ARCHS)
def test_histogram_one_hot(torch_gpu, repo, arch):
    """bench/kernels/histogram.tile: values compared with every bin and
    counted down the column (a (64, 256) comparison of a broadcast vector,
    refused before: 1024 registers a thread), added atomically; a length
    past whole blocks and chunks, exact against torch.bincount."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(11)
    n = 50000
    x = torch.randint(0, 256, (n,), device="cuda", dtype=torch.int32)
    hist = torch.zeros(256, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(
        os.path.join(repo, "bench", "kernels", "histogram.tile"), arch=arch)
    kernel[((n + 8191) // 8192,)](x, hist)
    torch.cuda.synchronize()
    assert torch.equal(hist.long(), torch.bincount(x.long(), minlength=256))


MASKED_PRODUCT = """
# where(j <= i, A @ B, 0) with the indices made by reshapes of one arange
# (as arange(n)[:, None] and arange(n)[None, :] are).
kernel masked_product(A: Tensor[f16, 2], B: Tensor[f16, 2],
                      Out: Tensor[f32, 2]):
    s = mma(load(A, index=(bid(0), 0), shape=(64, 64)),
            load(B, index=(0, 0), shape=(64, 64)), zeros((64, 64)))
    i = bid(0) * 64 + arange(64).reshape((64, 1))
    j = arange(64).reshape((1, 64))
    store(Out, index=(bid(0), 0), tile=where(j <= i, s, 0.0))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_masked_product_reshaped_indices(torch_gpu, arch):
    """Row and column indices made by reshaping an arange (not expand_dims)
    take slices of the product's layout, as expand_dims's do; the mask
    against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(12)
    a = torch.randn(128, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    out = torch.full((128, 64), float("nan"), device="cuda")
    kernel = tilec.compile(MASKED_PRODUCT, arch=arch)
    kernel[(2,)](a, b, out)
    torch.cuda.synchronize()
    ref = (a.double() @ b.double()).tril()
    assert torch.allclose(out.double(), ref, rtol=1e-3, atol=1e-2)


PRODUCT_THROUGH_VIEW = """
# One product, no loop, rounded and stored through a (1, M, D) view.
kernel product_view(Q: Tensor[f16, 3], V: Tensor[f16, 3], Out: Tensor[f16, 3]):
    q = load(Q, index=(bid(1), bid(0), 0), shape=(1, 64, 64)).reshape((64, 64))
    v = load(V, index=(bid(1), 0, 0), shape=(1, 64, 64)).reshape((64, 64))
    o = mma(q, v, zeros((64, 64)))
    store(Out, index=(bid(1), bid(0), 0),
          tile=o.astype(f16).reshape((1, 64, 64)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_product_stored_through_view(torch_gpu, arch):
    """A product stored through a view adding a unit dimension, in a kernel
    with no loop (converted once, to the store's layout; TMA-stored on
    sm_90a), rows past the end clipped, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(13)
    B, M = 3, 100
    q = torch.randn(B, M, 64, device="cuda", dtype=torch.float16)
    v = torch.randn(B, 64, 64, device="cuda", dtype=torch.float16) / 8
    out = torch.full((B, M + 4, 64), float("nan"), device="cuda",
                     dtype=torch.float16)
    kernel = tilec.compile(PRODUCT_THROUGH_VIEW, arch=arch)
    kernel[((M + 63) // 64, B)](q, v, out[:, :M])
    torch.cuda.synchronize()
    ref = q.double() @ v.double()
    assert torch.allclose(out[:, :M].double(), ref, rtol=1e-2, atol=1e-2)
    assert torch.isnan(out[:, M:]).all()


GEMM_BIAS_ROWMAX = """
# max over each row of A @ B + bias: the bias, only broadcast, read in a
# slice of the accumulator's layout; the row maxima stored as a vector.
kernel gemm_bias_rowmax(A: Tensor[f16, 2], B: Tensor[f16, 2],
                        Bias: Tensor[f32, 1], M: Tensor[f32, 1],
                        TILE_M: const int = 64, TILE_N: const int = 128,
                        TILE_K: const int = 64):
    acc = zeros((TILE_M, TILE_N))
    for k in range(cdiv(A.shape[1], TILE_K)):
        acc = mma(load(A, index=(bid(0), k), shape=(TILE_M, TILE_K)),
                  load(B, index=(k, 0), shape=(TILE_K, TILE_N)), acc)
    bias = load(Bias, index=(0,), shape=(TILE_N,), padding=-inf)
    store(M, index=(bid(0),), tile=max(acc + bias[None, :], axis=1))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_bias_row_max(torch_gpu, arch):
    """A reduction of an mma result plus a broadcast vector, stored as a
    vector (it failed to compile: the row maxima took the store's layout),
    the bias read in the accumulator's slice; 104 columns of 128 (the
    padding -inf), rows past whole tiles, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(12)
    R, K, N = 200, 96, 104
    a = torch.randn(R, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    bias = torch.randn(N, device="cuda")
    m = torch.full((R + 4,), float("nan"), device="cuda")
    kernel = tilec.compile(GEMM_BIAS_ROWMAX, name="gemm_bias_rowmax.tile",
                           arch=arch)
    kernel[((R + 63) // 64,)](a, b, bias, m[:R])
    torch.cuda.synchronize()
    ref = (a.double() @ b.double() + bias.double()).max(dim=1).values
    assert torch.allclose(m[:R].double(), ref, rtol=1e-3, atol=1e-3)
    assert torch.isnan(m[R:]).all()


GEMM_SOFTMAX = """
# softmax(A @ B) over rows held whole in one block (N = 256 columns).
kernel gemm_softmax(A: Tensor[bf16, 2], B: Tensor[bf16, 2], P: Tensor[bf16, 2],
                    TILE_M: const int = 64, N: const int = 256,
                    TILE_K: const int = 64):
    acc = zeros((TILE_M, N))
    for k in range(cdiv(A.shape[1], TILE_K)):
        acc = mma(load(A, index=(bid(0), k), shape=(TILE_M, TILE_K)),
                  load(B, index=(k, 0), shape=(TILE_K, N)), acc)
    m = max(acc, axis=1, keepdims=True)
    p = exp(acc - m)
    p = p / sum(p, axis=1, keepdims=True)
    store(P, index=(bid(0), 0), tile=p.astype(bf16))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_softmax(torch_gpu, arch):
    """A GEMM's rows normalized in the same kernel, written plainly (it
    failed to compile: a reduction's result took another layout than its
    source's), rows past whole tiles, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(13)
    R, K, N = 150, 192, 256
    a = torch.randn(R, K, device="cuda", dtype=torch.bfloat16) / 8
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    p = torch.full((R + 2, N), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    kernel = tilec.compile(GEMM_SOFTMAX, name="gemm_softmax.tile", arch=arch)
    kernel[((R + 63) // 64,)](a, b, p[:R])
    torch.cuda.synchronize()
    ref = torch.softmax(a.double() @ b.double(), dim=1)
    assert torch.allclose(p[:R].double(), ref, rtol=2e-2, atol=2e-3)
    assert torch.isnan(p[R:]).all()



VIEWS = """
kernel chained(Q: Tensor[f16, 2], K: Tensor[f16, 2], V: Tensor[f16, 2],
               O: Tensor[f32, 2]):
    q = load(Q, index=(bid(0), 0), shape=(64, 64))
    k = load(K, index=(0, 0), shape=(64, 64), order=(1, 0))
    s = mma(q, k, zeros((64, 64)))
    p = (s * 0.125).astype(f16)
    # Column bits 8 and 16 swapped: on sm_90a both are register bits of the
    # accumulator and of the next multiply's A operand, so the views keep
    # the registers (#tile.linear, no conversion); on sm_80 (warps along
    # N) the elements move.
    p = p.reshape((64, 2, 2, 2, 2, 2, 2)).permute((0, 1, 3, 2, 4, 5, 6)) \\
         .reshape((64, 64))
    v = load(V, index=(0, 0), shape=(64, 64))
    store(O, index=(bid(0), 0), tile=mma(p, v, zeros((64, 64))))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_views_kept_in_place(torch_gpu, arch):
    """An mma result's columns permuted by views (reshape, permute,
    reshape) on its way to the next mma's A operand, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    q = torch.randn(128, 64, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(64, 64, device="cuda", dtype=torch.float16)
            for _ in range(2))
    kernel = tilec.compile(VIEWS, name="views.tile", arch=arch)
    o = torch.full((128, 64), float("nan"), device="cuda")
    kernel[(2,)](q, k, v, o)
    torch.cuda.synchronize()
    p = ((q.double() @ k.double().t()) * 0.125).half().double()
    p = p.reshape(128, 2, 2, 2, 2, 2, 2).permute(0, 1, 3, 2, 4, 5, 6) \
        .reshape(128, 64)
    ref = p @ v.double()
    err = ((o.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-3, err


INTS = """
kernel ints(X: Tensor[i64, 2], W: Tensor[i8, 2], Y: Tensor[i64, 3],
            T: Tensor[i64, 2], R: Tensor[i64, 2], A: Tensor[i32, 1],
            V: Tensor[i8, 3], F: Tensor[f32, 2], I: Tensor[int64, 1],
            G: Tensor[f32, 1], O: Tensor[f32, 1], big: i64):
    # 30 rows of X: the last two of the tile read as zeros.
    x = load(X, index=(0, 0), shape=(32, 64))
    w = load(W, index=(0, 0), shape=(32, 64))
    store(Y, index=(0, 0, 0), tile=(x * 3 - (x >> 2) + big).reshape((1, 32, 64)))
    store(Y, index=(1, 0, 0),
          tile=where(x > 0, x // 7, x % 5).reshape((1, 32, 64)))
    # i8 with i64: the wider (w sign-extended).
    store(Y, index=(2, 0, 0), tile=((x & 65535) | (x ^ w)).reshape((1, 32, 64)))
    store(Y, index=(3, 0, 0), tile=cumsum(x, axis=1).reshape((1, 32, 64)))
    store(T, index=(0, 0), tile=transpose(x))
    store(R, index=(0, 0), tile=sum(x, axis=0, keepdims=True))
    store(R, index=(1, 0), tile=max(x, axis=0, keepdims=True))
    store(R, index=(2, 0), tile=min(x, axis=0, keepdims=True))
    store(R, index=(3, 0), tile=full((1, 64), sum(x)))
    store(A, index=(0,), tile=argmax(x, axis=1))
    # i8 arithmetic wraps, as torch's does.
    store(V, index=(0, 0, 0), tile=(w * 3 + 1).reshape((1, 32, 64)))
    store(V, index=(1, 0, 0), tile=max(w, -w).reshape((1, 32, 64)))
    store(V, index=(2, 0, 0), tile=(x % 100).astype(i8).reshape((1, 32, 64)))
    store(F, index=(0, 0), tile=w.astype(f32) * 0.5 + x.astype(f32))
    # int64 indices (torch's default) converted for a gather.
    idx = load(I, index=(0,), shape=(128,))
    store(O, index=(0,), tile=gather(G, idx.astype(i32)) + (idx % 8).astype(f32))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_integer_widths(torch_gpu, arch):
    """i64 and i8 tensors and tiles (torch.int64 and torch.int8) against
    torch's integer arithmetic: loads with rows outside the tensor,
    arithmetic past 32 bits, floor division and modulo, shifts and bit
    operations, mixed widths promoted to the wider, a scan, a transpose,
    reductions along either axis and to a scalar, argmax, wrapping i8
    arithmetic, conversions both ways, and an i64 scalar parameter; the
    outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(21)
    dev = "cuda"
    x = torch.randint(-2 ** 40, 2 ** 40, (30, 64), device=dev,
                      dtype=torch.int64)
    w = torch.randint(-128, 128, (32, 64), device=dev, dtype=torch.int8)
    g = torch.randn(512, device=dev)
    idx = torch.randint(0, 512, (128,), device=dev, dtype=torch.int64)
    big = 2 ** 40 + 3
    y = torch.full((4, 32, 64), -777, device=dev, dtype=torch.int64)
    t = torch.full((64, 32), -777, device=dev, dtype=torch.int64)
    r = torch.full((4, 64), -777, device=dev, dtype=torch.int64)
    a = torch.full((32,), -7, device=dev, dtype=torch.int32)
    v = torch.full((3, 32, 64), -7, device=dev, dtype=torch.int8)
    f = torch.full((32, 64), float("nan"), device=dev)
    o = torch.full((128,), float("nan"), device=dev)
    kernel = tilec.compile(INTS, name="ints.tile", arch=arch)
    kernel[1](x, w, y, t, r, a, v, f, idx, g, o, big)
    torch.cuda.synchronize()
    xp = torch.zeros(32, 64, device=dev, dtype=torch.int64)
    xp[:30] = x
    wl = w.long()
    assert torch.equal(y[0], xp * 3 - (xp >> 2) + big)
    assert torch.equal(y[1], torch.where(xp > 0,
                                         torch.div(xp, 7, rounding_mode="floor"),
                                         xp % 5))
    assert torch.equal(y[2], (xp & 65535) | (xp ^ wl))
    assert torch.equal(y[3], xp.cumsum(1))
    assert torch.equal(t, xp.T)
    assert torch.equal(r[0], xp.sum(0))
    assert torch.equal(r[1], xp.amax(0))
    assert torch.equal(r[2], xp.amin(0))
    assert (r[3] == xp.sum()).all()
    assert torch.equal(a.long(), xp.argmax(1))
    assert torch.equal(v[0], w * 3 + 1)
    assert torch.equal(v[1], torch.maximum(w, -w))
    assert torch.equal(v[2], (xp % 100).to(torch.int8))
    assert torch.equal(f, w.float() * 0.5 + xp.float())
    assert torch.equal(o, g[idx] + (idx % 8).float())


W8A16 = """
kernel w8a16(X: Tensor[f16, 2], W: Tensor[i8, 2], S: Tensor[f16, 1],
             Y: Tensor[f16, 2], TILE_M: const int = 128,
             TILE_N: const int = 128, TILE_K: const int = 64):
    # int8 weights with a scale per output column, dequantized in the loop.
    bm = bid(0)
    bn = bid(1)
    acc = zeros((TILE_M, TILE_N), dtype=f32)
    for k in range(cdiv(X.shape[1], TILE_K)):
        x = load(X, index=(bm, k), shape=(TILE_M, TILE_K))
        w = load(W, index=(k, bn), shape=(TILE_K, TILE_N))
        acc = mma(x, w.astype(f16), acc)
    s = load(S, index=(bn,), shape=(TILE_N,)).astype(f32)
    store(Y, index=(bm, bn), tile=(acc * s.reshape((1, TILE_N))).astype(f16))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_int8_weight_gemm(torch_gpu, arch, dtype):
    """A GEMM of f16 (bf16) activations and int8 weights (W8A16), the
    weights converted in the loop (any i8: to f16 by exponent bits, to bf16
    through f32's top half) and scaled per column in the epilogue, at shapes
    that are not multiples of the tiles, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(22)
    t = torch.float16 if dtype == "f16" else torch.bfloat16
    m, n, k = 200, 320, 288
    x = (torch.randn(m, k, device="cuda") / 8).to(t)
    w = torch.randint(-128, 128, (k, n), device="cuda", dtype=torch.int8)
    s = (torch.rand(n, device="cuda") / 64).to(t)
    y = torch.full((m, n), float("nan"), device="cuda", dtype=t)
    kernel = tilec.compile(W8A16.replace("f16", dtype), name="w8a16.tile",
                           arch=arch)
    kernel[(m + 127) // 128, (n + 127) // 128](x, w, s, y)
    torch.cuda.synchronize()
    ref = (x.double() @ w.double()) * s.double()
    err = ((y.double() - ref).norm() / ref.norm()).item()
    assert err < (2e-3 if dtype == "f16" else 8e-3), err


W4A16 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "bench", "kernels", "gemm_w4a16.tile")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("tiles,shape", [
    # (TILE_M, TILE_N, TILE_K), (M, N, K): no K trip (an empty K: zeros),
    # one, two, many; ragged M and N; decode's 16-row tile.
    ((128, 128, 64), (130, 256, 0)),
    ((128, 128, 128), (256, 128, 128)),
    ((128, 128, 64), (200, 320, 128)),
    ((128, 128, 64), (128, 256, 1024)),
    ((128, 256, 64), (130, 300, 384)),
    ((128, 128, 128), (256, 128, 256)),
    ((16, 32, 128), (16, 96, 640)),
])
def test_int4_weight_gemm(torch_gpu, arch, tiles, shape):
    """bench/kernels/gemm_w4a16.tile, a W4A16 GEMM as a user writes it: two
    4-bit weights a byte, split with a mask and a shift, stacked with cat
    and interleaved by a reshape (held in registers), centred and scaled per
    group of 128 K in every trip (the packed tile copied ahead), against
    float64 of the same dequantized weights, output poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(23)
    tm, tn, tk = tiles
    m, n, k = shape
    x = (torch.randn(m, k, device="cuda") / 8).bfloat16()
    q = torch.randint(0, 16, (n, k), device="cuda", dtype=torch.uint8)
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).view(torch.int8)
    scales = (torch.rand(n, k // 128, device="cuda") / 64 + 0.01).bfloat16()
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = tilec.compile(W4A16, arch=arch, TILE_M=tm, TILE_N=tn, TILE_K=tk)
    kernel[(m + tm - 1) // tm, (n + tn - 1) // tn](x, packed, scales, y)
    torch.cuda.synchronize()
    w = (q.double() - 8) * scales.double().repeat_interleave(128, dim=1)
    ref = x.double() @ w.bfloat16().double().T
    if k == 0:
        assert torch.equal(y, torch.zeros_like(y))
        return
    err = ((y.double() - ref).norm() / ref.norm()).item()
    assert err < 4e-3, err


SMALL_CONVERSIONS = """
# Conversions of integers in known ranges (tile-cheapen-conversions: by
# exponent bits, and products rounded to 16 bits computed in 16 bits), each
# stored for a bit-exact comparison with torch's conversions.
kernel small_conversions(Q: Tensor[i8, 1], S: Tensor[bf16, 1],
                         H: Tensor[f16, 1], F32: Tensor[f32, 1],
                         F16: Tensor[f16, 1], B16: Tensor[bf16, 1],
                         P: Tensor[bf16, 1], PH: Tensor[f16, 1],
                         U: Tensor[f32, 1], B8: Tensor[bf16, 1],
                         N: const int = 512):
    b = bid(0)
    q = load(Q, index=(b,), shape=(N,))
    store(B8, index=(b,), tile=q.astype(bf16))
    nibble = (q & 15) - 8
    store(F32, index=(b,), tile=q.astype(f32))
    store(F16, index=(b,), tile=q.astype(f16))
    store(B16, index=(b,), tile=nibble.astype(bf16))
    s = load(S, index=(b,), shape=(N,))
    store(P, index=(b,), tile=(nibble.astype(f32) * s.astype(f32)).astype(bf16))
    h = load(H, index=(b,), shape=(N,))
    store(PH, index=(b,), tile=(q.astype(f32) * h.astype(f32)).astype(f16))
    store(U, index=(b,), tile=(arange(N) * 3 - 700).astype(f32))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_small_integer_conversions(torch_gpu, arch):
    """Integers in known ranges converted to f32, f16 and bf16 (any i8 to
    bf16 through f32's top half), and 4-bit
    values times bf16 (8-bit times f16) scales rounded to 16 bits, equal bit
    for bit to torch's conversions: every i8 value, scales from subnormal to
    overflowing, outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    n, blocks = 512, 4
    q = torch.arange(n * blocks, device="cuda").remainder(256).sub(128)
    q = q.to(torch.int8)[torch.randperm(n * blocks, device="cuda")]
    s = torch.randn(n * blocks, device="cuda") * torch.pow(
        2.0, torch.randint(-140, 127, (n * blocks,), device="cuda").float())
    s = s.clamp(-3e38, 3e38).bfloat16()
    h = (torch.randn(n * blocks, device="cuda") * 1000).half()
    h[:8] = torch.tensor([6e-8, -6e-8, 65504, -65504, 1e-5, 0, -0.0, 1],
                         device="cuda").half()
    outs = [torch.full((n * blocks,), float("nan"), device="cuda", dtype=t)
            for t in (torch.float32, torch.float16, torch.bfloat16,
                      torch.bfloat16, torch.float16, torch.float32,
                      torch.bfloat16)]
    kernel = tilec.compile(SMALL_CONVERSIONS, name="conversions.tile",
                           arch=arch)
    kernel[blocks](q, s, h, *outs)
    torch.cuda.synchronize()
    nibble = (q & 15) - 8
    expected = [q.float(), q.half(), nibble.bfloat16(),
                (nibble.float() * s.float()).bfloat16(),
                (q.float() * h.float()).half(),
                (torch.arange(n, device="cuda") * 3 - 700).float().repeat(
                    blocks),
                q.bfloat16()]
    for got, want in zip(outs, expected):
        assert torch.equal(got.view(torch.int16 if got.element_size() == 2
                                    else torch.int32),
                           want.view(torch.int16 if want.element_size() == 2
                                     else torch.int32))


BYTE_OPS = """
# Ops on 8-bit integers (a thread's bytes four to a 32-bit register where
# its layout gives them so) and 4-bit values widened to 16-bit floats (two
# a register), on a (R, C) tile of Q read as it lies or, with TRANSPOSED,
# from Q^T (order=(1, 0), as a packed weight is read). Each result stored
# for a bit-exact comparison with torch.
kernel byte_ops(Q: Tensor[i8, 2], O: Tensor[i8, 3], H: Tensor[f16, 3],
                B: Tensor[bf16, 3], R: const int = 32, C: const int = 128,
                TRANSPOSED: const bool = False):
    b = bid(0)
    if TRANSPOSED:
        q = load(Q, index=(b, 0), shape=(R, C), order=(1, 0))
    else:
        q = load(Q, index=(b, 0), shape=(R, C))
    store(O, index=(0, b, 0), tile=(q & 90).reshape((1, R, C)))
    store(O, index=(1, b, 0), tile=(q | 3).reshape((1, R, C)))
    store(O, index=(2, b, 0), tile=(q ^ 112).reshape((1, R, C)))
    store(O, index=(3, b, 0), tile=(q << 3).reshape((1, R, C)))
    store(O, index=(4, b, 0), tile=(q >> 3).reshape((1, R, C)))
    store(O, index=(5, b, 0), tile=((q >> 4) & 15).reshape((1, R, C)))
    store(O, index=(6, b, 0), tile=(q + 100).reshape((1, R, C)))
    store(O, index=(7, b, 0), tile=(q - 77).reshape((1, R, C)))
    store(O, index=(8, b, 0), tile=(q + -128).reshape((1, R, C)))
    store(O, index=(9, b, 0), tile=((q << 4) >> 4).reshape((1, R, C)))
    store(O, index=(10, b, 0), tile=((q >> 4) & 31).reshape((1, R, C)))
    r = q ^ 85
    store(O, index=(11, b, 0), tile=(q + r).reshape((1, R, C)))
    store(O, index=(12, b, 0), tile=(q - r).reshape((1, R, C)))
    lo = q & 15
    hi = (q >> 4) & 15
    store(H, index=(0, b, 0), tile=hi.astype(f16).reshape((1, R, C)))
    store(H, index=(1, b, 0), tile=q.astype(f16).reshape((1, R, C)))
    store(H, index=(2, b, 0), tile=(q >> 4).astype(f16).reshape((1, R, C)))
    signed = ((q << 4) >> 4).astype(bf16)
    store(B, index=(1, b, 0), tile=signed.reshape((1, R, C)))
    w = cat((lo[:, None, :], hi[:, None, :]), axis=1).reshape((2 * R, C))
    store(B, index=(0, b, 0), tile=(w - 8).astype(bf16).reshape((1, 2 * R, C)))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("transposed", [False, True])
def test_byte_lanes(torch_gpu, arch, transposed):
    """Bitwise ops, shifts (arithmetic ones kept whole, masked to their low
    bits or wider, a signed nibble), sums and differences (of constants and
    of tiles) on i8 tiles, wrapping as torch's int8 ops do, and 4-bit
    (unsigned and signed) and 8-bit values widened to f16 and bf16 (a packed
    weight's nibbles joined along K): every byte value, equal bit for bit to
    torch, outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(11)
    r, c, blocks = 32, 128, 3
    q = torch.arange(r * c * blocks, device="cuda").remainder(256).sub(128)
    q = q.to(torch.int8)[torch.randperm(r * c * blocks, device="cuda")]
    q = q.reshape(blocks * r, c)
    tiles = q.reshape(blocks, r, c)
    if transposed:
        q = q.T.contiguous()
    o = torch.full((13, blocks * r, c), 77, device="cuda", dtype=torch.int8)
    h = torch.full((3, blocks * r, c), float("nan"), device="cuda",
                   dtype=torch.float16)
    bf = torch.full((2, blocks * 2 * r, c), float("nan"), device="cuda",
                    dtype=torch.bfloat16)
    kernel = tilec.compile(BYTE_OPS, name="byte_ops.tile", arch=arch,
                           TRANSPOSED=transposed)
    kernel[blocks](q, o, h, bf)
    torch.cuda.synchronize()
    x = tiles.long()

    def byte(v):
        return (v & 255).to(torch.uint8).view(torch.int8)

    want = [byte(x & 90), byte(x | 3), byte(x ^ 112), byte(x << 3),
            byte(x >> 3), byte((x >> 4) & 15), byte(x + 100), byte(x - 77),
            byte(x - 128), byte(((x & 15) ^ 8) - 8), byte((x >> 4) & 31),
            byte(x + (x ^ 85)), byte(x - (x ^ 85))]
    for j, w in enumerate(want):
        assert torch.equal(o[j].reshape(blocks, r, c), w), j
    lo, hi = x & 15, (x >> 4) & 15
    assert torch.equal(h[0].reshape(blocks, r, c), hi.half())
    assert torch.equal(h[1].reshape(blocks, r, c), x.half())
    assert torch.equal(h[2].reshape(blocks, r, c), (x >> 4).half())
    assert torch.equal(bf[1, :blocks * r].reshape(blocks, r, c),
                       (((x & 15) ^ 8) - 8).bfloat16())
    joined = torch.stack((lo, hi), dim=2).reshape(blocks, 2 * r, c)
    assert torch.equal(bf[0].reshape(blocks, 2 * r, c).view(torch.int16),
                       (joined - 8).bfloat16().view(torch.int16))


W8A8 = """
# C = (A @ B^T) * sa * sb + bias with i8 A (M, K) and B (N, K), both K
# contiguous, accumulated exactly in i32 (from the bias, an i32 row), and
# the i32 sum itself stored too.
kernel w8a8(A: Tensor[i8, 2], B: Tensor[i8, 2], Bias: Tensor[i32, 1],
            SA: Tensor[f32, 1], SB: Tensor[f32, 1], Y: Tensor[f16, 2],
            Z: Tensor[i32, 2], TILE_M: const int = 128,
            TILE_N: const int = 128, TILE_K: const int = 64):
    bm = bid(0)
    bn = bid(1)
    bias = load(Bias, index=(bn,), shape=(TILE_N,))
    acc = broadcast_to(bias.reshape((1, TILE_N)), (TILE_M, TILE_N))
    for k in range(cdiv(A.shape[1], TILE_K)):
        a = load(A, index=(bm, k), shape=(TILE_M, TILE_K), latency=3)
        b = load(B, index=(k, bn), shape=(TILE_K, TILE_N), order=(1, 0),
                 latency=3)
        acc = mma(a, b, acc)
    store(Z, index=(bm, bn), tile=acc)
    sa = load(SA, index=(bm,), shape=(TILE_M,)).reshape((TILE_M, 1))
    sb = load(SB, index=(bn,), shape=(TILE_N,)).reshape((1, TILE_N))
    store(Y, index=(bm, bn), tile=(acc.astype(f32) * sa * sb).astype(f16))
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("shape", [(200, 320, 288), (128, 256, 4096),
                                   (64, 8, 40)],
                         ids=lambda s: "x".join(map(str, s)))
def test_int8_gemm(torch_gpu, arch, shape):
    """A GEMM of i8 activations and i8 weights (W8A8) on the tensor cores
    (sm_90a: wgmma .s32.s8.s8; sm_80: mma.sync m16n8k32 .s32.s8.s8.s32),
    accumulated in i32 from an i32 bias, at shapes that are not multiples
    of the tiles (a K tail read as zeros): the i32 sums exactly equal to
    int64 arithmetic (and to torch._int_mm where it runs), the scaled f16
    output against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(sum(shape))
    m, n, k = shape
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
    bias = torch.randint(-2**20, 2**20, (n,), device="cuda",
                         dtype=torch.int32)
    sa = torch.rand(m, device="cuda") / 64
    sb = torch.rand(n, device="cuda") / 64
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    z = torch.full((m, n), -1, device="cuda", dtype=torch.int32)
    kernel = tilec.compile(W8A8, name="w8a8.tile", arch=arch)
    kernel[(m + 127) // 128, (n + 127) // 128](a, b, bias, sa, sb, y, z)
    torch.cuda.synchronize()
    exact = a.cpu().long() @ b.cpu().long().T + bias.cpu().long()
    assert torch.equal(z.cpu().long(), exact)
    if m > 16 and k % 8 == 0 and n % 8 == 0:
        assert torch.equal(z - bias, torch._int_mm(a, b.T))
    ref = exact.double() * sa.cpu().double()[:, None] * \
        sb.cpu().double()[None, :]
    err = ((y.cpu().double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("out", ["i32", "bf16"])
def test_gemm_i8_kernel(torch_gpu, arch, out):
    """kernels/gemm_i8.tile at a shape that is not a multiple of its
    tiles (sm_80 at 128 x 128): the i32 sums equal torch._int_mm's (and
    int64 arithmetic), or scaled per row of A and of B into bf16."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    m, n, k = 300, 520, 704
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
    sa = torch.rand(m, 1, device="cuda") / 64
    sb = torch.rand(1, n, device="cuda") / 64
    tn = 256 if arch == "sm_90a" else 128
    kern = tilec.compile(os.path.join(KERNELS, "gemm_i8.tile"), "gemm_i8",
                         arch=arch, OUT=out, TILE_N=tn)
    dtype = torch.int32 if out == "i32" else torch.bfloat16
    c = torch.full((m, n), -1, device="cuda").to(dtype)
    kern[(m + 127) // 128, (n + tn - 1) // tn](a, b, c, sa, sb)
    torch.cuda.synchronize()
    exact = a.cpu().long() @ b.cpu().long().T
    if out == "i32":
        assert torch.equal(c.cpu().long(), exact)
        assert torch.equal(c, torch._int_mm(a, b.T))
    else:
        ref = exact.double() * sa.cpu().double() * sb.cpu().double()
        err = ((c.cpu().double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err


@pytest.mark.parametrize("shape", [(300, 520, 704), (64, 4096, 1024),
                                   (1, 128, 16)],
                         ids=lambda s: "x".join(map(str, s)))
def test_int_mm_op(torch_gpu, shape):
    """tilec.ops.int_mm equal to torch._int_mm (b column-major as torch
    takes it), into a given output too; an empty K gives zeros."""
    torch = torch_gpu
    torch.manual_seed(sum(shape))
    m, n, k = shape
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8).t()
    exact = a.cpu().long() @ b.cpu().long()
    c = tilec.ops.int_mm(a, b)
    assert c.dtype == torch.int32 and torch.equal(c.cpu().long(), exact)
    out = torch.full((m, n), -1, device="cuda", dtype=torch.int32)
    assert tilec.ops.int_mm(a, b, out=out) is out
    assert torch.equal(out, c)
    z = tilec.ops.int_mm(a[:, :0], b[:0, :])
    assert torch.equal(z, torch.zeros_like(z))


def test_int_mm_arguments(torch_gpu):
    """int_mm's arguments checked, each message naming the argument."""
    torch = torch_gpu
    a = torch.zeros(64, 128, device="cuda", dtype=torch.int8)
    b = torch.zeros(128, 64, device="cuda", dtype=torch.int8)
    bt = torch.zeros(64, 128, device="cuda", dtype=torch.int8).t()
    cases = [
        ((a.half(), bt), {}, "a: expected int8"),
        ((a, b), {}, "b: expected K contiguous"),
        ((a, bt[:64]), {}, r"b: expected \(128, N\)"),
        ((a, torch.zeros(6, 128, device="cuda", dtype=torch.int8).t()), {},
         "b: its 6 columns must be a multiple of 4"),
        ((a, bt), {"out": torch.empty(64, 64, device="cuda")},
         "out: expected"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(tilec.ArgumentError, match=message):
            tilec.ops.int_mm(*args, **kwargs)


TF32_GEMM = """
# C = A @ B on f32 tiles multiplied as tf32, A (M, K), B (N, K) (K
# contiguous) or, with B_KN, (K, N); with CHAIN the product is multiplied
# again by a (N, N) D, its accumulator read as the next multiply's A.
kernel tf32_gemm(A: Tensor[f32, 2], B: Tensor[f32, 2], D: Tensor[f32, 2],
                 C: Tensor[f32, 2], TILE_M: const int = 128,
                 TILE_N: const int = 128, TILE_K: const int = 32,
                 B_KN: const bool = False, CHAIN: const bool = False):
    acc = zeros((TILE_M, TILE_N))
    for k in range(cdiv(A.shape[1], TILE_K)):
        a = load(A, index=(bid(0), k), shape=(TILE_M, TILE_K), latency=3)
        if B_KN:
            b = load(B, index=(k, bid(1)), shape=(TILE_K, TILE_N), latency=3)
        else:
            b = load(B, index=(k, bid(1)), shape=(TILE_K, TILE_N),
                     order=(1, 0), latency=3)
        acc = mma(a, b, acc, allow_tf32=True)
    if CHAIN:
        d = load(D, index=(0, 0), shape=(TILE_N, TILE_N))
        acc = mma(acc, d, zeros((TILE_M, TILE_N)), allow_tf32=True)
    store(C, index=(bid(0), bid(1)), tile=acc)
"""


def _tf32(x, rounded=False):
    """x (float32) as tf32: its low 13 bits of mantissa dropped (or, with
    rounded, rounded to nearest, ties away from zero, as cvt.rna.tf32)."""
    import torch
    bits = x.view(torch.int32)
    if rounded:
        bits = bits + 4096
    return (bits & -8192).view(torch.float32)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", [
    (200, 320, 288, False, False), (128, 256, 1024, True, False),
    (64, 8, 40, False, False), (256, 128, 96, False, True)],
    ids=lambda c: "x".join(map(str, c[:3])) + ("-kn" if c[3] else "") +
    ("-chain" if c[4] else ""))
def test_tf32_gemm(torch_gpu, arch, case):
    """f32 GEMMs on the tensor cores as tf32 (sm_90a: wgmma
    .f32.tf32.tf32 k8; sm_80: mma.sync m16n8k8): B K-contiguous and (kn) N
    contiguous, transposed on its way to shared memory; (chain) the
    accumulator multiplied again from registers. Shapes not multiples of
    the tiles. Inputs of few mantissa bits give sums exact in f32: equal to
    float64; random normal inputs: within f32 rounding of the float64
    product of the operands as tf32 reads them (their low 13 bits
    dropped)."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    m, n, k, kn, chain = case
    torch.manual_seed(m + n + k)
    kernel = tilec.compile(TF32_GEMM, name="tf32_gemm.tile", arch=arch,
                           B_KN=kn, CHAIN=chain)
    for exact in (True, False):
        if exact:  # multiples of 1/8 in [-2, 2): 6-bit mantissas
            a = torch.randint(-16, 16, (m, k), device="cuda") / 8.0
            b = torch.randint(-16, 16, (n, k), device="cuda") / 8.0
            d = torch.randint(-16, 16, (n, n), device="cuda") / 8.0
        else:
            a = torch.randn(m, k, device="cuda")
            b = torch.randn(n, k, device="cuda")
            d = torch.randn(n, n, device="cuda")
        bt = b.T.contiguous() if kn else b
        c = torch.full((m, n), float("nan"), device="cuda")
        kernel[(m + 127) // 128, (n + 127) // 128](a, bt, d, c)
        torch.cuda.synchronize()
        full = a.double() @ b.double().T
        if chain:
            full = full @ d.double()
        err = ((c.double() - full).norm() / full.norm()).item()
        assert err < 2e-3, err  # tf32's 10 bits of mantissa
        if chain:
            continue
        if exact:
            assert torch.equal(c.double(), full)
            continue
        # Within f32's rounding of the operands as the tensor cores read
        # them (truncated, or rounded: whichever the hardware does).
        errs = []
        for rounded in (False, True):
            ref = _tf32(a, rounded).double() @ _tf32(b, rounded).double().T
            errs.append(((c.double() - ref).norm() / ref.norm()).item())
        assert min(errs) < 1e-5, errs


ATOMICS_I64 = """
kernel atomics_i64(Sum: Tensor[i64, 1], Max: Tensor[i64, 1],
                   Min: Tensor[i64, 1], Hist: Tensor[i64, 1],
                   Old: Tensor[i64, 2], X: Tensor[i64, 2],
                   Keys: Tensor[i32, 2], TILE: const int = 256):
    x = load(X, index=(bid(0), 0), shape=(1, TILE)).reshape((TILE,))
    old = atomic_add(Sum, (0,), x)
    store(Old, index=(bid(0), 0), tile=old.reshape((1, TILE)))
    atomic_max(Max, (0,), x)
    atomic_min(Min, (0,), x)
    k = load(Keys, index=(bid(0), 0), shape=(1, TILE)).reshape((TILE,))
    scatter_add(Hist, (k,), x)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_atomics_i64(torch_gpu, arch):
    """A tile's i64 atomics from 24 blocks: sums past 2^32 (values of +-2^40)
    with the old values returned (each block's, added to its own value,
    is another block's old value or the final sum: as multisets, the olds
    plus the final equal the olds plus the values plus the start), signed
    max and min, and a combining scatter (a histogram of 64-bit weights
    over 37 keys): equal to int64 arithmetic."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(64)
    blocks, tile = 24, 256
    x = torch.randint(-2**40, 2**40, (blocks, tile), device="cuda",
                      dtype=torch.int64)
    keys = torch.randint(0, 37, (blocks, tile), device="cuda",
                         dtype=torch.int32)
    start = torch.randint(-2**40, 2**40, (tile,), device="cuda",
                          dtype=torch.int64)
    total = start.clone()
    big = torch.full((tile,), -2**62, device="cuda", dtype=torch.int64)
    small = torch.full((tile,), 2**62, device="cuda", dtype=torch.int64)
    hist = torch.zeros(37, device="cuda", dtype=torch.int64)
    old = torch.full((blocks, tile), -1, device="cuda", dtype=torch.int64)
    kernel = tilec.compile(ATOMICS_I64, name="atomics_i64.tile", arch=arch)
    kernel[(blocks,)](total, big, small, hist, old, x, keys)
    torch.cuda.synchronize()
    xc, oc = x.cpu(), old.cpu()
    assert torch.equal(total.cpu(), start.cpu() + xc.sum(0))
    assert torch.equal(big.cpu(), xc.max(0).values)
    assert torch.equal(small.cpu(), xc.min(0).values)
    ref = torch.zeros(37, dtype=torch.int64).index_add_(
        0, keys.cpu().long().flatten(), xc.flatten())
    assert torch.equal(hist.cpu(), ref)
    for i in range(tile):
        after = torch.cat([oc[:, i] + xc[:, i], start.cpu()[i:i + 1]])
        before = torch.cat([oc[:, i], total.cpu()[i:i + 1]])
        assert torch.equal(after.sort().values, before.sort().values), i


JOINED = """
kernel joined(X: Tensor[f32, 2], R: Tensor[f32, 1], Z: Tensor[f32, 2]):
    x = load(X, index=(bid(0), 0), shape=(8, 512))
    z = cat((x[:, :256], x[:, 256:]), axis=0)
    store(Z, index=(bid(0), 0), tile=z)
    # The first elements of z flattened: a reshape whose result layout no
    # blocked one of z maps to.
    store(R, index=(bid(0),), tile=z.reshape((4096,))[:8])
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_reshape_joining_split_threads(torch_gpu, arch):
    """A reshape whose source's threads split the joined dimensions
    otherwise than any blocked layout of the result (the halves of rows
    stacked, then flattened): converted to the result's linear form first;
    the same elements as torch's, in order."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(23)
    blocks = 3
    x = torch.randn(blocks * 8, 512, device="cuda")
    r = torch.full((blocks * 8,), float("nan"), device="cuda")
    z = torch.full((blocks * 16, 256), float("nan"), device="cuda")
    kernel = tilec.compile(JOINED, name="joined.tile", arch=arch)
    kernel[blocks](x, r, z)
    torch.cuda.synchronize()
    for b in range(blocks):
        xb = x[8 * b:8 * (b + 1)]
        ref = torch.cat((xb[:, :256], xb[:, 256:]), 0)
        assert torch.equal(z[16 * b:16 * (b + 1)], ref)
        assert torch.equal(r[8 * b:8 * (b + 1)], ref.reshape(-1)[:8])
