"""Persistent, warp-specialized GEMMs whose epilogue (the output's
conversion is kept in the tile's trip; its shared-memory staging and TMA
stores) runs in the next tile's K loop, after that loop's first multiply
(defer_epilogue=True: tile-defer-epilogue under a K loop), with the K
loop's first trip peeled onto the accumulator's zeros
(tile-fresh-accumulators), on sm_90a: linear.tile at the tuner's 128 x 256
tiles in pairs along M and at 128 x 128; one K trip, two, a few and many;
fewer tiles than blocks (a block whose only deferred epilogue is the one
after its tile loop), as many, and several a block; the static and the
dynamic schedule; plain f16 and relu bf16 (a bias, whose load the
epilogue's arithmetic needs in the trip, is not deferred: a warning); and
bmm.tile.
Every element against float64 (the output poisoned with NaN first), the
same bits over three launches, and the same bits as the kernel without
the option. Skipped without PyTorch and a Hopper GPU."""

import os

import pytest

import tilec
from conftest import (LINEAR_SHAPES as SHAPES, linear_launches,
                      poisoned_launches, shape_id, skip_unless_arch)

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

# (SHAPES: at 3000 x 5000, 480 tiles of 128 x 256.)

TILES = {
    # The tuner's pick for large GEMMs: pairs of blocks along M in
    # clusters of two, W's tile multicast.
    "128x256pairs": dict(TILE_M=128, TILE_N=256, CLUSTER_M=2, cluster=2,
                         num_warps=8),
    "128x128": dict(TILE_M=128, TILE_N=128, CLUSTER_M=1, num_warps=4),
}

SCHEDULES = {"static": {"dynamic_schedule": False}, "dynamic": {}}


def run_linear(torch, m, n, k, act, bias, dtype, tiles, schedule, defer):
    _, outs, ref = linear_launches(torch, (m, n, k), act, bias, dtype,
                                   num_stages=4, persistent=True,
                                   warp_specialize=True, defer_epilogue=defer,
                                   **TILES[tiles], **SCHEDULES[schedule])
    return outs, ref


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("tiles", list(TILES))
@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("epilogue", [(0, False, "f16"), (1, False, "bf16")],
                         ids=["plain_f16", "relu_bf16"])
def test_linear_deferred(torch_gpu, shape, tiles, schedule, epilogue):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    act, bias, dtype = epilogue
    outs, ref = run_linear(torch, m, n, k, act, bias, dtype, tiles, schedule,
                           True)
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < (2e-3 if dtype == "f16" else 1e-2), err
    assert not torch.isnan(outs[0]).any()
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    plain, _ = run_linear(torch, m, n, k, act, bias, dtype, tiles, schedule,
                          False)
    assert torch.equal(plain[0], outs[0])


@pytest.mark.parametrize("shape", [(3, 256, 384, 64), (5, 640, 384, 1024)],
                         ids=lambda s: "x".join(map(str, s)))
def test_bmm_deferred(torch_gpu, shape):
    """A second kernel: kernels/bmm.tile (its batch from the grid's z),
    deferred, against float64 and bit-equal to the kernel without it."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    batch, m, n, k = shape
    torch.manual_seed(batch + m + n + k)
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16) / k ** 0.5
    outs = {}
    for defer in (True, False):
        kern = tilec.compile(os.path.join(ROOT, "kernels", "bmm.tile"), "bmm",
                             arch="sm_90a", num_warps=4, num_stages=4,
                             persistent=True, warp_specialize=True,
                             defer_epilogue=defer)
        grid = (-(-m // 128) * -(-n // 128), 1, batch)
        outs[defer] = poisoned_launches(torch, kern, grid, (batch, m, n),
                                        lambda c: (a, b, c))
    ref = a.double() @ b.double()
    err = ((outs[True][0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    for c in outs[True][1:] + outs[False]:
        assert torch.equal(c, outs[True][0])
