"""Loads whose boxes come from a tile of indices (`load(T, index=(pages,
...))`), on a GPU, on sm_90a and sm_80, against float64 references on fresh
random inputs with poisoned outputs: rows and pages gathered into registers
(boxes past the tensor read as zeros), and the pages of a paged KV cache
gathered into the shared memory rings of a pipelined loop of multiplies
(TMA, one copy per page, on sm_90a; cp.async on sm_80; with and without
warp specialization), at run-time trip counts 0, 1, 2 and many. Skipped
without PyTorch and a CUDA GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]

ROWS = """
kernel rows(X: Tensor[f32, 2], Ids: Tensor[i32, 1], Y: Tensor[f32, 2],
            BOXES: const int = 4, R: const int = 32, C: const int = 16):
    ids = load(Ids, index=(bid(0),), shape=(BOXES,))
    x = load(X, index=(ids, 0), shape=(R, C))
    store(Y, index=(bid(0), 0), tile=x * 2.0 + 1.0)
"""


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("boxes", [32, 4, 1])
def test_rows_into_registers(torch_gpu, arch, boxes):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(boxes)
    R, C, blocks = 32, 16, 5
    B = R // boxes
    x = torch.randn(40 * B, C, device="cuda")
    ids = torch.randint(0, 40, (blocks, boxes), device="cuda",
                        dtype=torch.int32)
    ids[0, 0] = 40   # past the tensor: zeros
    ids[1, -1] = -3  # negative: zeros
    y = torch.full((blocks * R, C), float("nan"), device="cuda")
    k = tilec.compile(ROWS, name="rows.tile", arch=arch, BOXES=boxes)
    k[(blocks,)](x, ids.flatten(), y)
    torch.cuda.synchronize()
    xd = x.double().view(40, B, C)
    ref = torch.zeros(blocks, boxes, B, C, dtype=torch.float64,
                      device="cuda")
    ok = (ids >= 0) & (ids < 40)
    ref[ok] = xd[ids[ok].long()]
    ref = ref.view(blocks * R, C) * 2 + 1
    assert torch.allclose(y.double(), ref, atol=1e-6)


PAGED = """
kernel paged(Q: Tensor[DT, 2], K: Tensor[DT, 3], V: Tensor[DT, 3],
             Table: Tensor[i32, 2], O: Tensor[f32, 2], trips: int,
             DT: const dtype = f16, PAGE: const int = 16,
             TILE_N: const int = 64, D: const int = 128, M: const int = 64,
             LAT: const int = 2):
    b = bid(0)
    h = bid(1)
    q = load(Q, index=(b * 4 + h, 0), shape=(M, D))
    acc = full((M, D), 0.0, dtype=f32)
    for j in range(0, trips):
        pages = load(Table, index=(b, j),
                     shape=(1, TILE_N // PAGE)).reshape((TILE_N // PAGE,))
        k = load(K, index=(0, h, pages), shape=(D, 1, TILE_N),
                 order=(2, 1, 0), latency=LAT).reshape((D, TILE_N))
        s = mma(q, k, full((M, TILE_N), 0.0, dtype=f32))
        v = load(V, index=(pages, h, 0), shape=(TILE_N, 1, D),
                 latency=LAT).reshape((TILE_N, D))
        acc = mma((s * 0.0625).astype(DT), v, acc)
    store(O, index=(b * 4 + h, 0), tile=acc)
"""


@pytest.mark.parametrize("arch,ws", [("sm_90a", False), ("sm_90a", True),
                                     ("sm_80", False)])
@pytest.mark.parametrize("page", [8, 16, 32])
@pytest.mark.parametrize("trips", [0, 1, 2, 7])
def test_paged_ring(torch_gpu, arch, ws, page, trips):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(page * 100 + trips)
    batch, heads, M, D, TILE_N = 3, 4, 64, 128, 64
    pages_total = 64
    dt = torch.float16 if page != 16 else torch.bfloat16
    q = (torch.randn(batch * heads * M, D, device="cuda") / 4).to(dt)
    # The cache as flash_attn keeps it, (pages, page, heads, D), seen as
    # (pages * page, heads, D).
    kc = (torch.randn(pages_total, page, heads, D, device="cuda") / 4).to(dt)
    vc = torch.randn(pages_total, page, heads, D, device="cuda").to(dt)
    per_tile = TILE_N // page
    table = torch.stack([torch.randperm(pages_total, device="cuda")
                         for _ in range(batch)]).to(torch.int32)
    table = table[:, :max(trips, 1) * per_tile].contiguous()
    out = torch.full((batch * heads * M, D), float("nan"), device="cuda")
    opts = dict(warp_specialize=True) if ws else {}
    k = tilec.compile(PAGED, name="paged.tile", arch=arch, PAGE=page,
                      DT="bf16" if dt == torch.bfloat16 else "f16", **opts)
    k[(batch, heads)](q, kc.view(-1, heads, D), vc.view(-1, heads, D), table,
                      out, trips)
    torch.cuda.synchronize()
    ref = torch.zeros(batch, heads, M, D, dtype=torch.float64, device="cuda")
    qd = q.double().view(batch, heads, M, D)
    for b in range(batch):
        for j in range(trips):
            ids = table[b, j * per_tile:(j + 1) * per_tile].long()
            keys = kc[ids].reshape(TILE_N, heads, D).transpose(0, 1)
            vals = vc[ids].reshape(TILE_N, heads, D).transpose(0, 1)
            s = (qd[b] @ keys.double().transpose(1, 2)).float() * 0.0625
            ref[b] += s.to(dt).double() @ vals.double()
    got = out.double().view(batch, heads, M, D)
    err = (got - ref).abs().max().item()
    assert err < 2e-2 * max(1.0, ref.abs().max().item()), err
