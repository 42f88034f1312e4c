"""Persistent, warp-specialized GEMMs whose consumer warps are in groups
that take the tiles in turn (consumer_groups=2, tile-consumer-groups:
CUTLASS's ping-pong), on sm_90a: linear.tile at 128 x 128 tiles of one
consumer warpgroup each (and of two: 64 rows each; and 64-row tiles of one,
as the compiler's choice makes them), with one K trip, two, a few and many; fewer tiles
than blocks (a group with nothing to do), as many, and several a block
(an odd count in some); the static and the dynamic schedule; clusters of
two sharing W's tile by multicast; plain and bias + gelu (the bias's
layout conversion in each group's own scratch memory); f16 and bf16.
Every element against float64 (the output poisoned with NaN first), the
same bits over three launches, and the same bits as one group (the same
sums in the same order). Skipped without PyTorch and a Hopper GPU."""

import os

import pytest

import tilec
from conftest import (LINEAR_SHAPES as SHAPES, linear_launches,
                      poisoned_launches, shape_id, skip_unless_arch)

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

# (SHAPES: at 3000 x 5000, 960 tiles of 128 x 128.)

SCHEDULES = {
    "static": {"dynamic_schedule": False},
    "dynamic": {},
    "pairs": {"cluster": 2},
}


def run_linear(torch, m, n, k, act, bias, dtype, schedule, groups, warps=4):
    options = dict(SCHEDULES[schedule])
    return linear_launches(torch, (m, n, k), act, bias, dtype,
                           CLUSTER_M=options.get("cluster", 1),
                           num_warps=warps, num_stages=4, persistent=True,
                           warp_specialize=True, consumer_groups=groups,
                           **options)


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("epilogue", [(0, False, "f16"), (2, True, "bf16")],
                         ids=["plain_f16", "bias_gelu_bf16"])
def test_linear_groups(torch_gpu, shape, schedule, epilogue):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    act, bias, dtype = epilogue
    kern, outs, ref = run_linear(torch, m, n, k, act, bias, dtype, schedule,
                                 2)
    # Two consumer warpgroups and the producers'.
    assert kern.num_warps == 12, kern.num_warps
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < (2e-3 if dtype == "f16" else 1e-2), err
    assert not torch.isnan(outs[0]).any()
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    _, one, _ = run_linear(torch, m, n, k, act, bias, dtype, schedule, 1)
    assert torch.equal(one[0], outs[0])


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("schedule", ["static", "pairs"])
def test_linear_groups_of_two_warpgroups(torch_gpu, shape, schedule):
    """Groups of 8 warps: each tile's 128 rows over a group's two
    warpgroups, the turns' barriers for both groups' 512 threads."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    kern, outs, ref = run_linear(torch, m, n, k, 0, False, "f16", schedule,
                                 2, warps=8)
    assert kern.num_warps == 20, kern.num_warps
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    _, one, _ = run_linear(torch, m, n, k, 0, False, "f16", schedule, 1,
                           warps=8)
    assert torch.equal(one[0], outs[0])


@pytest.mark.parametrize("tile", [(64, 128), (64, 256), (128, 128)],
                         ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("shape", [(256, 768, 4096), (3000, 5000, 1000)],
                         ids=shape_id)
def test_linear_pingpong_as_chosen(torch_gpu, tile, shape):
    """Two groups of one warpgroup (4 warps) with the rest the compiler's
    choice: what the tuner's two-group candidate is at linear.tile's 64-row
    @tune tiles, and CUTLASS's ping-pong at 128 x 128. The choice gives them
    a producer and rings of 4 stages (not the 2 it gave before, as if two
    blocks shared a multiprocessor): against float64, the same bits over
    launches and as one group of the same tile."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    tm, tn = tile
    outs = {}
    # The one-group kernel given its producer and rings (the same sums in
    # the same order).
    one = {"warp_specialize": True, "num_stages": 4}
    for groups in (2, 1):
        kern, outs[groups], ref = linear_launches(
            torch, shape, 2, True, "bf16", TILE_M=tm, TILE_N=tn,
            num_warps=4, persistent=True, auto_schedule=True,
            consumer_groups=groups, **(one if groups == 1 else {}))
        if groups == 2:
            assert kern.num_warps == 12, kern.num_warps
            assert kern.num_stages == 4, kern.num_stages
            assert not kern.warnings, kern.warnings
    err = ((outs[2][0].double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    for y in outs[2][1:] + outs[1]:
        assert torch.equal(y, outs[2][0])


@pytest.mark.parametrize("shape", [(3, 256, 384, 64), (5, 640, 384, 1024)],
                         ids=lambda s: "x".join(map(str, s)))
def test_bmm_groups(torch_gpu, shape):
    """A second kernel: kernels/bmm.tile (its batch from the grid's z) in
    two groups, against float64 and bit-equal to one group."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    batch, m, n, k = shape
    torch.manual_seed(batch + m + n + k)
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16) / k ** 0.5
    outs = {}
    for groups in (2, 1):
        kern = tilec.compile(os.path.join(ROOT, "kernels", "bmm.tile"), "bmm",
                             arch="sm_90a", num_warps=4, num_stages=4,
                             persistent=True, warp_specialize=True,
                             consumer_groups=groups)
        grid = (-(-m // 128) * -(-n // 128), 1, batch)
        outs[groups] = poisoned_launches(torch, kern, grid, (batch, m, n),
                                         lambda c: (a, b, c))
    ref = a.double() @ b.double()
    err = ((outs[2][0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    for c in outs[2][1:] + outs[1]:
        assert torch.equal(c, outs[2][0])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(6, 384, 640, 128), (3, 200, 136, 72)],
                         ids=lambda s: "x".join(map(str, s)))
def test_bmm_groups_as_tuned(torch_gpu, shape, dtype, monkeypatch):
    """bmm.tile as the autotuner's two-group candidate compiles it
    (persistent, consumer_groups=2, the compiler's choice of the rest; what
    tilec.ops.bmm picks at 64 x 1024 x 1024 x 128 on an H100), with K short
    (two K trips; one partial) and partial tiles: against float64, bit-equal
    over launches and to the one-group kernel of the same choice; and
    tilec.ops.bmm, tuned over the candidates, against float64."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    batch, m, n, k = shape
    dt = getattr(torch, dtype)
    torch.manual_seed(batch + m + n + k)
    a = torch.randn(batch, m, k, device="cuda", dtype=dt)
    b = torch.randn(batch, k, n, device="cuda", dtype=dt) / k ** 0.5
    outs = {}
    for groups in (2, 1):
        kern = tilec.compile(os.path.join(ROOT, "kernels", "bmm.tile"), "bmm",
                             arch="sm_90a", persistent=True,
                             auto_schedule=True, consumer_groups=groups,
                             DTYPE="f16" if dtype == "float16" else "bf16")
        assert not kern.warnings, kern.warnings
        grid = (-(-m // 128) * -(-n // 128), 1, batch)
        outs[groups] = poisoned_launches(torch, kern, grid, (batch, m, n),
                                         lambda c: (a, b, c), dtype=dt)
    ref = a.double() @ b.double()
    err = ((outs[2][0].double() - ref).norm() / ref.norm()).item()
    assert err < 4e-3, err
    for c in outs[2][1:] + outs[1]:
        assert torch.equal(c, outs[2][0])
    monkeypatch.setenv("TILEC_AUTOTUNE", "on")
    c = torch.full((batch, m, n), float("nan"), device="cuda", dtype=dt)
    tilec.ops.bmm(a, b, out=c)
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 4e-3, err
