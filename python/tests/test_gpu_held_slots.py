"""Persistent, warp-specialized GEMMs whose output tile is staged in two
parts, the second in the ring slot the K loop's last trip read
(tile-stage-in-held-slots), on sm_90a: linear.tile at 128 x 256 in pairs
(four-stage rings) and bench/kernels/persistent_gemm.tile, with one K trip,
two, a few and many, as many tiles as blocks and several a block, with and
without bias and activation; and linear.tile at 256 x 152 (four-stage
rings), whose output is staged in four parts, 128 x 80 and 128 x 72
(tile-convert-stores-to-tma), three of them in the slots the K loop holds
(the last two trips' of W's ring, the last one's of X's:
tile-stage-in-held-slots), none waiting for another's copy.
Every element against float64 (the output
poisoned with NaN first), the same bits over three launches (a slot
refilled before its copy had read it would show as a difference), and the
same output with the option off. Skipped without PyTorch and a Hopper
GPU."""

import os

import pytest

import tilec
from conftest import gelu_tanh, poisoned_launches, skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
LINEAR = os.path.join(ROOT, "kernels", "linear.tile")
PERSISTENT_GEMM = os.path.join(ROOT, "bench", "kernels", "persistent_gemm.tile")

# (M, N, K): one K trip and few tiles (blocks without a tile), two trips,
# a few, many; many tiles a block.
SHAPES = [(256, 512, 64), (256, 512, 128), (384, 1024, 192), (256, 768, 4096),
          (3000, 5000, 1000)]


def run_linear(torch, m, n, k, act, bias, options, tile=(128, 256)):
    """linear.tile in pairs along M, persistent, at `tile` (its rows, its
    columns): the kernel, its outputs of poisoned_launches and the float64
    reference."""
    tm, tn = tile
    torch.manual_seed(m + n + k + act)
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    kern = tilec.compile(LINEAR, "linear", arch="sm_90a", DTYPE="f16",
                         HAS_BIAS=bias, ACT=act, TILE_M=tm, TILE_N=tn,
                         CLUSTER_M=2, persistent=True, cluster=2, **options)
    # The tiles (in pairs along M); the persistent kernel's blocks loop
    # over them.
    grid = (-(-m // (2 * tm)) * 2 * -(-n // tn), 1)
    outs = poisoned_launches(torch, kern, grid, (m, n),
                             lambda y: (x, w, b, y, part, tickets))
    ref = x.double() @ w.double().t()
    if bias:
        ref = ref + b.double()
    if act == 2:
        ref = gelu_tanh(ref)
    return kern, outs, ref


def shape_id(shape):
    return "x".join(str(d) for d in shape)


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("epilogue", [(0, False), (2, True)],
                         ids=["plain", "bias_gelu"])
def test_linear_pairs(torch_gpu, shape, epilogue):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    act, bias = epilogue
    _, outs, ref = run_linear(torch, m, n, k, act, bias, {})
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    assert not torch.isnan(outs[0]).any()
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    _, off, _ = run_linear(torch, m, n, k, act, bias,
                           {"stage_in_ring_slots": False})
    assert torch.equal(off[0], outs[0])


@pytest.mark.parametrize("shape", [(256, 512, 64), (640, 1280, 1024)],
                         ids=shape_id)
@pytest.mark.parametrize("blocks", [1, 3, 132], ids=lambda b: f"blocks{b}")
def test_persistent_gemm(torch_gpu, shape, blocks):
    """A persistent loop the user wrote (not persistent=on): each block
    loops over its tiles, the K ring continuing across them."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    torch.manual_seed(m + k + blocks)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16) / k ** 0.5
    kern = tilec.compile(PERSISTENT_GEMM, "persistent_gemm", arch="sm_90a")
    outs = poisoned_launches(torch, kern, (blocks, 1), (m, n),
                             lambda c: (a, b, c))
    ref = a.double() @ b.double()
    err = ((outs[0].double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err
    for c in outs[1:]:
        assert torch.equal(c, outs[0])


# (M, N, K): one tile (and the pair's other block without one); tiles whose
# last columns pass N (152 does not divide 1000: the last tile's parts at
# 80 and 120 end past it); two K trips; three tiles a block (3000 x 5000:
# 396 tiles on 132 blocks).
WIDE_SHAPES = [(256, 152, 64), (512, 304, 128), (1024, 1000, 256),
               (3000, 5000, 1000)]


@pytest.mark.parametrize("shape", WIDE_SHAPES, ids=shape_id)
@pytest.mark.parametrize("epilogue", [(0, False), (2, True)],
                         ids=["plain", "bias_gelu"])
def test_linear_ragged_parts(torch_gpu, shape, epilogue):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n, k = shape
    act, bias = epilogue
    kern, outs, ref = run_linear(torch, m, n, k, act, bias, {"num_stages": 4},
                                 tile=(256, 152))
    # X's and W's maps and the store's two (its parts 128 x 80 and 128 x
    # 72): the tile is staged in parts, not written from registers.
    assert kern.num_tensor_maps == 4
    y = outs[0].double()
    assert not torch.isnan(outs[0]).any()
    # Column by column: a part copied to the wrong columns shows in them.
    col_err = ((y - ref).norm(dim=0) / ref.norm(dim=0)).max().item()
    assert col_err < 5e-3, col_err
    for o in outs[1:]:
        assert torch.equal(o, outs[0])
