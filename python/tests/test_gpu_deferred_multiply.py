"""Persistent attention kernels whose tile's last multiply (the P V of its
last key tile) is issued in the next tile, right before that tile's first
multiply (Q K^T), and completed after it, the output's normalization and
stores running under that multiply (defer_last_multiply=True:
tile-defer-epilogue's multiply), on sm_90a.

kernels/flash_attention.tile at the attention API's persistent picks with
Q in one slot refilled after its last read (head dims 64, 128 and 256,
causal and not): query tiles of one key tile, two and many (a partial last
one), fewer tiles than blocks (a block whose only deferred multiply is the
one after its tile loop), many tiles a block, and tiles with no keys among
tiles with keys (causal with a negative input_pos: the tile's multiply
issued on zeros, its result dropped). Then kernels written plainly that
the pass also takes: attention_bias.tile and attention_window.tile.

Every element against float64 (outputs poisoned with NaN first), the same
bits over three launches, and the same bits as the kernel compiled without
the option (the multiplies, their order and the arithmetic are the same;
only when they are issued moves). Skipped without PyTorch and a Hopper GPU.
"""

import math
import os

import pytest

import tilec
from conftest import poisoned_launches, skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "..", "kernels")

# The attention API's persistent candidates with Q in one slot refilled
# after its last read (lib/Ops/Attention/Attention.cpp).
PICK = dict(num_warps=8, num_stages=2, warp_specialize=True, persistent=True,
            tile_stages=1, tile_refill_after_read=True, rescale_in_trip=True)
TILE_N = {64: 128, 128: 128, 256: 64}


def compile_both(path, kernel, **config):
    """The kernel with and without defer_last_multiply (the option must
    apply: the compile would warn otherwise, and warnings fail here)."""
    import warnings
    kerns = {}
    for defer in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            kerns[defer] = tilec.compile(path, kernel, arch="sm_90a",
                                         defer_last_multiply=defer, **config)
    return kerns


def reference(torch, q, k, v, causal, pos, scale):
    """float64 softmax(scale q k^T + mask) v; rows that see no key: NaN."""
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if causal:
        i = torch.arange(q.shape[-2], device="cuda")[:, None] + pos
        j = torch.arange(k.shape[-2], device="cuda")[None, :]
        s = s.masked_fill(j > i, float("-inf"))
    return torch.softmax(s, dim=-1) @ v.double()


def check(torch, outs, plain, ref, seen):
    """outs (deferred) against the float64 reference on the rows that see
    keys, bit-equal to each other and to the kernel without the option."""
    y = outs[0]
    got, want = y[..., seen, :].double(), ref[..., seen, :]
    assert not torch.isnan(got).any()
    err = ((got - want).norm() / want.norm()).item()
    assert err < 5e-3, err
    bits = y.view(torch.int16)
    for other in outs[1:] + plain:
        assert torch.equal(other.view(torch.int16), bits)


# (batch x heads, seq_q, seq_k, input_pos): one key tile (partial); two;
# many with a partial last; fewer query tiles than blocks; many tiles a
# block; the first query tiles seeing no key (causal, negative position).
SHAPES = [(2, 1, 1, 0), (2, 130, 130, 0), (2, 1000, 1000, 0),
          (1, 300, 200, 0), (64, 1024, 1024, 0), (4, 1000, 1000, -300)]


@pytest.mark.parametrize("shape", SHAPES,
                         ids=lambda s: "x".join(str(d) for d in s))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_flash_attention_deferred_multiply(torch_gpu, d, causal, shape):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    bh, nq, nk, pos = shape
    if pos < 0 and not causal:
        pytest.skip("a position only moves the causal mask")
    torch.manual_seed(d + nq + nk + bh)
    q = torch.randn(1, bh, nq, d, device="cuda", dtype=torch.float16)
    k = torch.randn(1, bh, nk, d, device="cuda", dtype=torch.float16)
    v = torch.randn(1, bh, nk, d, device="cuda", dtype=torch.float16)
    tn = TILE_N[d]
    kerns = compile_both(os.path.join(KERNELS, "flash_attention.tile"),
                         "fmha", DTYPE="f16", TILE_D=d, H=bh, TILE_M=128,
                         TILE_N=tn, CAUSAL=causal, EVEN_K=nk % tn == 0,
                         **PICK)
    scale = 1 / math.sqrt(d)
    grid = (-(-nq // 128), bh)

    def launches(kern, times):
        return poisoned_launches(torch, kern, grid, (1, bh, nq, d),
                                 lambda o: (q, k, v, o, scale, pos), times)

    outs = launches(kerns[True], 3)
    plain = launches(kerns[False], 1)
    ref = reference(torch, q, k, v, causal, pos, scale)
    rows = torch.arange(nq, device="cuda")
    seen = rows + pos >= 0 if causal else rows >= 0
    check(torch, outs, plain, ref, seen)


@pytest.mark.parametrize("shape", [(2, 128, 128), (3, 1024, 1024),
                                   (48, 512, 1024)],
                         ids=lambda s: "x".join(str(d) for d in s))
def test_bias_deferred_multiply(torch_gpu, shape):
    """attention_bias.tile (a bias tile added to the scores each trip),
    written plainly, compiled with the pick's options."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    bh, nq, nk = shape
    torch.manual_seed(nq + nk + bh)
    q = torch.randn(bh, nq, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(bh, nk, 128, device="cuda", dtype=torch.float16)
    v = torch.randn(bh, nk, 128, device="cuda", dtype=torch.float16)
    bias = torch.randn(bh, nq, nk, device="cuda", dtype=torch.float16)
    kerns = compile_both(os.path.join(KERNELS, "attention_bias.tile"),
                         "attention_bias", **PICK)
    scale = 1 / math.sqrt(128)
    grid = (nq // 128, bh)

    def launches(kern, times):
        return poisoned_launches(torch, kern, grid, (bh, nq, 128),
                                 lambda o: (q, k, v, bias, o, scale), times)

    outs = launches(kerns[True], 3)
    plain = launches(kerns[False], 1)
    s = (q.double() @ k.double().transpose(-1, -2)) * scale + bias.double()
    ref = torch.softmax(s, dim=-1) @ v.double()
    check(torch, outs, plain, ref, torch.arange(nq, device="cuda") >= 0)


@pytest.mark.parametrize("window", [1, 200, 5000])
def test_window_deferred_multiply(torch_gpu, window):
    """attention_window.tile (a sliding causal window: its loop split in
    two by the compiler, the key tiles a query tile visits differing from
    tile to tile), compiled with the pick's options, 24 query tiles."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    bh, n = 6, 512
    torch.manual_seed(window)
    q = torch.randn(bh, n, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(bh, n, 128, device="cuda", dtype=torch.float16)
    v = torch.randn(bh, n, 128, device="cuda", dtype=torch.float16)
    kerns = compile_both(os.path.join(KERNELS, "attention_window.tile"),
                         "attention_window", **PICK)
    scale = 1 / math.sqrt(128)

    def launches(kern, times):
        return poisoned_launches(torch, kern, (n // 128, bh), (bh, n, 128),
                                 lambda o: (q, k, v, o, scale, window), times)

    outs = launches(kerns[True], 3)
    plain = launches(kerns[False], 1)
    i = torch.arange(n, device="cuda")[:, None]
    j = torch.arange(n, device="cuda")[None, :]
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    s = s.masked_fill((j > i) | (j <= i - window), float("-inf"))
    ref = torch.softmax(s, dim=-1) @ v.double()
    check(torch, outs, plain, ref, torch.arange(n, device="cuda") >= 0)
