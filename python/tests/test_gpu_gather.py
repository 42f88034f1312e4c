"""gather() and scatter() on a GPU, on sm_90a and sm_80, against PyTorch's
indexing (exact: they move elements), on fresh random inputs with poisoned
outputs: embedding rows (vectorized along the row), a strided gather (one
element per access), indices outside the tensor (padding, and no write),
a paged KV cache read through a block table, a row permutation scattered
back, and 8-bit floats. Skipped without PyTorch and a CUDA GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]


EMBED = """
kernel embed(E: Tensor[DTYPE, 2], Ids: Tensor[i32, 1], O: Tensor[DTYPE, 2],
             S: Tensor[DTYPE, 2], DTYPE: const dtype = f16,
             ROWS: const int = 32, D: const int = 128):
    ids = load(Ids, index=(bid(0),), shape=(ROWS,))
    cols = arange(D)[None, :] + bid(1) * D
    x = gather(E, (ids[:, None], cols), padding=PAD)
    store(O, index=(bid(0), bid(1)), tile=x)
    # every other column, from the column after: nothing known to vectorize
    odd = gather(E, (ids[:, None], cols * 2 + 1))
    store(S, index=(bid(0), bid(1)), tile=odd)
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_embedding_gather(torch_gpu, arch, dtype):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(5)
    tdt = getattr(torch, dtype)
    V, D, N = 1000, 256, 96
    table = torch.randn(V, 2 * D, device="cuda").to(tdt)
    ids = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
    ids[:4] = torch.tensor([-1, V, V + 7, -1000], dtype=torch.int32)
    out = torch.full((N, D), float("nan"), device="cuda", dtype=tdt)
    odd = torch.full((N, D), float("nan"), device="cuda", dtype=tdt)
    src = EMBED.replace("PAD", "-3.0")
    dsl = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[dtype]
    k = tilec.compile(src, name="embed.tile", arch=arch, DTYPE=dsl, D=128)
    k[(N // 32, D // 128)](table, ids, out, odd)
    torch.cuda.synchronize()
    inside = (ids >= 0) & (ids < V)
    ref = torch.full((N, D), -3.0, device="cuda", dtype=tdt)
    ref[inside] = table[ids[inside].long(), :D]
    assert torch.equal(out, ref)
    ref_odd = torch.zeros((N, D), device="cuda", dtype=tdt)
    ref_odd[inside] = table[ids[inside].long(), 1::2][:, :D]
    assert torch.equal(odd, ref_odd)


PAGED = """
kernel paged_rows(KC: Tensor[f16, 3], Table: Tensor[i32, 2], O: Tensor[f16, 3],
                  PAGE: const int = 16, T: const int = 64, D: const int = 128):
    # The T tokens of sequence b, from the pages its block table names.
    b = bid(0)
    t = arange(T) + bid(1) * T
    pages = gather(Table, (full((T,), b, dtype=i32), t // PAGE))
    rows = gather(KC, (pages[:, None], (t % PAGE)[:, None], arange(D)[None, :]))
    store(O, index=(b, bid(1), 0), tile=rows.reshape((1, T, D)))
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_paged_gather(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(6)
    B, PAGE, D, L = 3, 16, 128, 256
    pages_per_seq = L // PAGE
    num_pages = B * pages_per_seq + 5
    kc = torch.randn(num_pages, PAGE, D, device="cuda", dtype=torch.float16)
    table = torch.randperm(num_pages, device="cuda")[:B * pages_per_seq]
    table = table.reshape(B, pages_per_seq).int().contiguous()
    out = torch.full((B, L, D), float("nan"), device="cuda",
                     dtype=torch.float16)
    k = tilec.compile(PAGED, name="paged_rows.tile", arch=arch)
    k[(B, L // 64)](kc, table, out)
    torch.cuda.synchronize()
    ref = kc[table.long()].reshape(B, L, D)
    assert torch.equal(out, ref)


SCATTER = """
kernel permute_rows(X: Tensor[f32, 2], Perm: Tensor[i32, 1], O: Tensor[f32, 2],
                    D: const int = 64):
    p = load(Perm, index=(bid(0),), shape=(32,))
    x = load(X, index=(bid(0), 0), shape=(32, D))
    scatter(O, (p[:, None], arange(D)[None, :]), x)
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_scatter_rows(torch_gpu, arch):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(7)
    N, D = 256, 64
    x = torch.randn(N, D, device="cuda")
    perm = torch.randperm(N, device="cuda").int()
    perm[:3] = torch.tensor([-1, N, 1 << 20], dtype=torch.int32)  # dropped
    out = torch.full((N, D), float("nan"), device="cuda")
    k = tilec.compile(SCATTER, name="scatter.tile", arch=arch)
    k[(N // 32,)](x, perm, out)
    torch.cuda.synchronize()
    ref = torch.full((N, D), float("nan"), device="cuda")
    keep = (perm >= 0) & (perm < N)
    ref[perm[keep].long()] = x[keep]
    assert torch.equal(out.isnan(), ref.isnan())
    assert torch.equal(out[~out.isnan()], ref[~ref.isnan()])


def test_fp8_gather(torch_gpu):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(8)
    src = EMBED.replace("PAD", "0.0")
    V, D, N = 300, 256, 64
    table = torch.randn(V, 2 * D, device="cuda").to(torch.float8_e4m3fn)
    ids = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
    out = torch.full((N, D), 0x7F, device="cuda", dtype=torch.uint8)
    odd = torch.full((N, D), 0x7F, device="cuda", dtype=torch.uint8)
    k = tilec.compile(src, name="embed8.tile", arch="sm_90a", DTYPE="f8e4m3",
                      D=128)
    k[(N // 32, D // 128)](table, ids, out.view(torch.float8_e4m3fn),
                           odd.view(torch.float8_e4m3fn))
    torch.cuda.synchronize()
    bytes_ = table.view(torch.uint8)
    assert torch.equal(out, bytes_[ids.long(), :D])
    assert torch.equal(odd, bytes_[ids.long(), 1::2][:, :D])
