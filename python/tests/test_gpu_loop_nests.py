"""Loops of a kernel's own around a pipelined loop, on a GPU, against
float64 references on fresh random inputs with poisoned outputs: a
persistent GEMM written by hand (each block's tiles in a loop of its own,
the K loop inside it), whose rings tile-pipeline carries from tile to tile
and, on sm_90a, a producer warp fills across them (on sm_80 with f32
outputs the rings stay in the loop: with the accumulator's conversion they
would not fit); and a stream-K GEMM (bench/kernels/linear_streamk.tile:
pieces of tiles, their partial products summed by the last block in),
which must be bit-identical run to run and leave its tickets at zero. Blocks with no tile, one, two and many,
and K loops of one, two and many trips. Skipped without PyTorch and a CUDA
GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
STREAM_K = os.path.join(HERE, "..", "..", "bench", "kernels",
                        "linear_streamk.tile")

# The hand-written persistent GEMM of the benchmark, and the same with the
# tile index carried by the loop.
with open(os.path.join(HERE, "..", "..", "bench", "kernels",
                       "persistent_gemm.tile")) as f:
    PERSISTENT_GEMM = f.read() + """
kernel carried_gemm(A: Tensor[DTYPE, 2], B: Tensor[DTYPE, 2],
                    C: Tensor[OUT, 2],
                    DTYPE: const dtype = f16, OUT: const dtype = f16,
                    TILE_M: const int = 128, TILE_N: const int = 256,
                    TILE_K: const int = 64):
    # The same with the tile index carried by the loop (the producer warp
    # carries it too).
    tiles_n = cdiv(B.shape[1], TILE_N)
    tiles = cdiv(A.shape[0], TILE_M) * tiles_n
    t = bid(0)
    for i in range(cdiv(tiles - bid(0), num_blocks(0))):
        acc = zeros((TILE_M, TILE_N), dtype=f32)
        for k in range(cdiv(A.shape[1], TILE_K)):
            a = load(A, index=(t // tiles_n, k), shape=(TILE_M, TILE_K))
            b = load(B, index=(k, t % tiles_n), shape=(TILE_K, TILE_N))
            acc = mma(a, b, acc)
        store(C, index=(t // tiles_n, t % tiles_n), tile=acc.astype(OUT))
        t = t + num_blocks(0)
"""

TILES = [(128, 256), (128, 128), (64, 64)]
# (M, N, K): K loops of 1 (a partial K tile), 2 and many trips; M and N
# not multiples of the tiles.
SHAPES = [(300, 520, 40), (300, 520, 128), (257, 700, 1000)]


def check_gemm(torch, kern, shape, tile, out):
    """`kern` (a persistent GEMM, C = A B) against float64 on random f16
    inputs of `shape` (M, N, K), C poisoned, with one block for every tile,
    two, a few, all of them and more than tiles."""
    m, n, k = shape
    tm, tn = tile
    tiles = ((m + tm - 1) // tm) * ((n + tn - 1) // tn)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    dt = torch.float16 if out == "f16" else torch.float32
    for blocks in sorted({1, 2, 3, tiles, tiles + 5}):
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
        kern[blocks](a, b, c)
        torch.cuda.synchronize()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        assert err < (2e-3 if out == "f16" else 1e-5), (blocks, err)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("out", ["f16", "f32"])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", ["persistent_gemm", "carried_gemm"])
def test_persistent_gemm(torch_gpu, arch, out, tile, shape, kernel):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    torch.manual_seed(7)
    tm, tn = tile
    kern = tilec.compile(PERSISTENT_GEMM, name="persistent_gemm.tile",
                         kernel=kernel, arch=arch, OUT=out, TILE_M=tm,
                         TILE_N=tn)
    check_gemm(torch, kern, shape, tile, out)


@pytest.mark.parametrize("out", ["f16", "f32"])
@pytest.mark.parametrize("tile", [(128, 128), (64, 64), (128, 256)])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", ["persistent_gemm", "carried_gemm"])
def test_persistent_gemm_producer_stores(torch_gpu, out, tile, shape, kernel):
    """Each tile's store issued by a producer warp (producer_stores: the
    kernel's own tile loop at its top stages the tile in every trip), the
    consumers signalling on mbarriers; at 128 x 256 the tile is staged in
    parts through one buffer, and the store stays the consumers', which the
    compiler says. Against float64, outputs poisoned, one block for every
    tile down to more blocks than tiles."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(9)
    tm, tn = tile
    kern = tilec.compile(PERSISTENT_GEMM, name="persistent_gemm.tile",
                         kernel=kernel, arch="sm_90a", OUT=out, TILE_M=tm,
                         TILE_N=tn, warp_specialize=True,
                         producer_stores=True)
    said = [w for w in kern.warnings if "producer_stores" in w]
    if tn == 256:
        assert any("used otherwise" in w for w in said), kern.warnings
    else:
        assert not said and not [w for w in kern.warnings
                                 if "speciali" in w], kern.warnings
    check_gemm(torch, kern, shape, tile, out)


@pytest.mark.parametrize("tile", [(128, 256), (128, 128)])
@pytest.mark.parametrize("shape", [(300, 520, 40), (300, 520, 1000),
                                   (64, 4096, 512)])
@pytest.mark.parametrize("stream_k", [True, False])
def test_stream_k(torch_gpu, tile, shape, stream_k):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    torch.manual_seed(5)
    m, n, k = shape
    tm, tn = tile
    kern = tilec.compile(STREAM_K, arch="sm_90a", DTYPE="f16", TILE_M=tm,
                         TILE_N=tn, STREAM_K=stream_k)
    tiles = ((m + tm - 1) // tm) * ((n + tn - 1) // tn)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16)
    ref = a.double() @ w.double().T
    tickets = torch.zeros(tiles, device="cuda", dtype=torch.int32)
    # Blocks that each take pieces of many tiles, of a few, and blocks
    # left without any (more blocks than K steps of some tiles).
    for blocks in (1, 3, 7, 64, 132):
        part = torch.full((2 * blocks * tm, tn), float("nan"),
                          device="cuda", dtype=torch.float32)
        outs = []
        for _ in range(2):
            y = torch.full((m, n), float("nan"), device="cuda",
                           dtype=torch.float16)
            kern.launch(blocks, a, w, y, part, tickets)
            torch.cuda.synchronize()
            outs.append(y)
        err = ((outs[0].double() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (blocks, err)
        # The partials summed in block order: the same bits every run.
        assert torch.equal(outs[0], outs[1]), blocks
        assert tickets.count_nonzero().item() == 0, blocks
