"""Kernels compiled with timeline=N (tile-timeline), on a GPU: the records of
each warpgroup of each block name the sites in the order the kernel reaches
them, their times never go back, a log keeps its first N - 1 records and
its latest, and the
instrumented kernel computes what it computes without the timeline (against
float64). A plain kernel with a loop on sm_90a and sm_80, and a persistent,
warp-specialized GEMM on sm_90a whose tile loop's trips count its tiles.
Skipped without PyTorch and a CUDA GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR = os.path.join(HERE, "..", "..", "kernels", "linear.tile")

ROW_SUM = """
kernel row_sum(X: Tensor[f32, 2], Y: Tensor[f32, 1], BLOCK: const int = 128):
    acc = zeros((BLOCK,), dtype=f32)
    for k in range(cdiv(X.shape[1], BLOCK)):
        x = load(X, index=(bid(0), k), shape=(1, BLOCK))
        acc = acc + x.reshape((BLOCK,))
    store(Y, index=(bid(0),), tile=sum(acc, axis=0, keepdims=True))
"""


def names(t, log):
    return [t.sites[r.site] for r in log]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("cols", [128, 1280])
def test_timeline_of_a_loop(torch_gpu, arch, cols):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    rows = 5
    k = tilec.compile(ROW_SUM, "row_sum", arch=arch, timeline=64)
    assert k.timeline_records == 64
    assert k.timeline_sites[0] == "start" and k.timeline_sites[-1] == "end"
    x = torch.randn(rows, cols, device="cuda")
    y = torch.full((rows,), float("nan"), device="cuda")
    k.launch(rows, x, y)
    t = k.timeline()
    torch.testing.assert_close(y.double(), x.double().sum(1), rtol=1e-5,
                               atol=1e-4)
    assert (t.blocks, t.warpgroups) == (rows, 1)
    logs = t.logs()
    assert sorted(logs) == [(b, 0) for b in range(rows)]
    trips = cols // 128
    loop = [s for s in k.timeline_sites if s.startswith("loop 1")]
    want = ["start", loop[0]] + [loop[1]] * trips + [loop[2], "end"]
    for log in logs.values():
        assert names(t, log) == want
        assert [r.index for r in log] == list(range(len(want)))
        assert all(a.ns <= b.ns for a, b in zip(log, log[1:]))
    steps = t.steps()
    assert len(steps[(0, 1)]) == rows
    assert "start" in t.table()


def test_timeline_keeps_the_first_records(torch_gpu):
    torch = torch_gpu
    k = tilec.compile(ROW_SUM, "row_sum", timeline=4)
    x = torch.randn(3, 128 * 10, device="cuda")
    y = torch.empty(3, device="cuda")
    k.launch(3, x, y)
    t = k.timeline()
    assert sorted(t.full()) == [(b, 0) for b in range(3)]
    for log in t.logs().values():
        assert len(log) == 4
        # The first three sites, then the latest: the kernel's end.
        assert names(t, log)[:3] == ["start"] + k.timeline_sites[1:3]
        assert names(t, log)[3] == "end"
    # Launched again on fewer blocks: only that launch's records.
    k.launch(2, x, y)
    assert sorted(k.timeline().logs()) == [(0, 0), (1, 0)]


def test_timeline_without_one(torch_gpu):
    k = tilec.compile(ROW_SUM, "row_sum")
    assert k.timeline_records == 0 and k.timeline_sites == []
    with pytest.raises(tilec.TileError, match="has no timeline"):
        k.timeline()


@pytest.mark.parametrize("m,n,k", [(256, 384, 192), (1000, 640, 64)])
def test_timeline_of_a_persistent_gemm(torch_gpu, m, n, k):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    kern = tilec.compile(LINEAR, "linear", arch="sm_90a", DTYPE="f16",
                         HAS_BIAS=False, TILE_M=128, TILE_N=128,
                         persistent=True, warp_specialize=True, num_warps=8,
                         timeline=512)
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    bias = torch.zeros(8, device="cuda", dtype=torch.float16)
    part = torch.empty(1, 1, 1, device="cuda")
    tick = torch.zeros(1, device="cuda", dtype=torch.int32)
    tiles = -(-m // 128) * -(-n // 128)
    kern.launch(tiles, x, w, bias, y, part, tick)
    t = kern.timeline()
    ref = x.double() @ w.double().t()
    assert ((y.double() - ref).abs().max() / ref.abs().max()).item() < 1e-2
    # Two consumer warpgroups and the producer's, in every block.
    assert t.warpgroups == 3 and not t.full()
    sites = kern.timeline_sites
    tile_trip = sites.index("consumer: loop 1 (" +
                            sites[1].split("(")[1].split(")")[0] + ") trip")
    trips = {}
    for (block, group), log in t.logs().items():
        assert names(t, log)[0] == "start" and names(t, log)[-1] == "end"
        assert all(a.ns <= b.ns for a, b in zip(log, log[1:]))
        if group < 2:
            trips[(block, group)] = sum(r.site == tile_trip for r in log)
    # Each consumer warpgroup runs every tile of its block.
    per_block = {}
    for (block, group), count in trips.items():
        per_block.setdefault(block, set()).add(count)
    assert all(len(c) == 1 for c in per_block.values())
    assert sum(c.pop() for c in per_block.values()) == tiles
