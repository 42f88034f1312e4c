"""Warp-specialized kernels at --occupancy=2 on sm_90a: two blocks a
multiprocessor, each a producer warpgroup and one consumer warpgroup whose
128 x 128 f32 accumulator (128 registers a thread) fits only in the
registers the consumers rise to with setmaxnreg (tile-check-resources
counts the tile against those and each wgmma instruction against the
registers at entry), and whose rings and staged output fit a block's
share of shared memory (at three stages and persistent, the output in two
parts, the second in the ring slot the K loop holds). linear.tile at
128 x 128, 2 and 3 stages, persistent and not, with one K trip, two, a
few and many, with and without bias and activation:
the driver's occupancy is 2, every element against float64 (the output
poisoned with NaN first), the same bits over three launches and as the
kernel at occupancy 1. Skipped without PyTorch and a Hopper GPU."""

import os

import pytest

import tilec
from conftest import gelu_tanh, poisoned_launches, skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR = os.path.join(HERE, "..", "..", "kernels", "linear.tile")

SHAPES = [(128, 128, 64), (256, 384, 128), (384, 640, 192),
          (1000, 1480, 1000), (512, 768, 4096)]


def compile_linear(act, bias, persistent, stages, occupancy):
    return tilec.compile(LINEAR, "linear", arch="sm_90a", DTYPE="f16",
                         HAS_BIAS=bias, ACT=act, TILE_M=128, TILE_N=128,
                         num_warps=4, warp_specialize=True,
                         num_stages=stages, persistent=persistent,
                         occupancy=occupancy)


def launch_three(torch, kern, x, w, b, m, n):
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    grid = (-(-m // 128) * -(-n // 128), 1)
    return poisoned_launches(torch, kern, grid, (m, n),
                             lambda y: (x, w, b, y, part, tickets))


def shape_id(shape):
    return "x".join(str(d) for d in shape)


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("epilogue", [(0, False), (2, True)],
                         ids=["plain", "bias_gelu"])
@pytest.mark.parametrize("persistent", [False, True],
                         ids=["grid", "persistent"])
@pytest.mark.parametrize("stages", [2, 3], ids=lambda s: f"s{s}")
def test_linear_occupancy_2(torch_gpu, shape, epilogue, persistent, stages):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    act, bias = epilogue
    torch.manual_seed(m + n + k + act)
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    kern = compile_linear(act, bias, persistent, stages, 2)
    assert kern.blocks_per_sm == 2, (kern.blocks_per_sm, kern.registers)
    outs = launch_three(torch, kern, x, w, b, m, n)
    ref = x.double() @ w.double().t()
    if bias:
        ref = ref + b.double()
    if act == 2:
        ref = gelu_tanh(ref)
    assert not torch.isnan(outs[0]).any()
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    one = launch_three(torch,
                       compile_linear(act, bias, persistent, stages, 1),
                       x, w, b, m, n)
    assert torch.equal(one[0], outs[0])
