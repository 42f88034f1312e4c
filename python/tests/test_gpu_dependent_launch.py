"""Programmatic dependent launch (dependent_launch=True, sm_90): a kernel
that may start under the kernel before it in its stream and waits for it
(griddepcontrol.wait) before touching global memory. A chain of linear.tile
launches on one stream, each reading the buffer the one before it wrote and
writing the buffer that one read (read after write and write after read at
every kernel boundary): the persistent GEMM in clusters (its tile counter
reset by the last block of each launch), a skinny warp-specialized one, and
one neither persistent nor specialized; eagerly and replayed from a CUDA
graph. The chain's outputs are bit-equal to the same kernel's without the
option and within rounding of float64. Skipped without PyTorch and a Hopper
GPU."""

import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR = os.path.join(HERE, "..", "..", "kernels", "linear.tile")

CONFIGS = {
    "pairs": dict(TILE_M=128, TILE_N=256, CLUSTER_M=2, cluster=2,
                  persistent=True),
    "skinny": dict(TILE_M=64, TILE_N=32, TILE_K=256, num_stages=4,
                   warp_specialize=True, num_warps=4, persistent=True),
    "grid": dict(TILE_M=128, TILE_N=128, warp_specialize=False,
                 persistent=False),
}
SHAPES = {"pairs": [(256, 512), (640, 768)], "skinny": [(64, 1024)],
          "grid": [(256, 384)]}
STEPS = 8


def compile_linear(config, dependent):
    return tilec.compile(LINEAR, "linear", arch="sm_90a", DTYPE="f16",
                         HAS_BIAS=False, dependent_launch=dependent,
                         **CONFIGS[config])


def grid_of(config, m, n):
    c = CONFIGS[config]
    cm = c.get("CLUSTER_M", 1)
    return (-(-m // (c["TILE_M"] * cm)) * cm * -(-n // c["TILE_N"]), 1)


def run_chain(torch, kern, grid, x0, weights, graph=False):
    """STEPS launches ping-ponging between two buffers: step i reads one
    and writes the other; returns every step's output (copied)."""
    bufs = [x0.clone(), torch.full_like(x0, float("nan"))]
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    no_bias = torch.zeros(8, device="cuda", dtype=x0.dtype)
    outs = []

    def launches(record):
        for i, w in enumerate(weights):
            src, dst = bufs[i % 2], bufs[(i + 1) % 2]
            kern.launch(grid, src, w, no_bias, dst, part, tickets)
            if record:
                outs.append(dst.clone())

    if graph:
        # Warmed up on the stream that captures: the module and that
        # stream's tile counter exist before the capture.
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            launches(False)
        torch.cuda.synchronize()
        bufs[0].copy_(x0)
        bufs[1].fill_(float("nan"))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=stream):
            launches(False)
        bufs[0].copy_(x0)
        bufs[1].fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        return [bufs[STEPS % 2].clone()]
    launches(True)
    torch.cuda.synchronize()
    return outs


@pytest.mark.parametrize("config,shape",
                         [(c, s) for c in CONFIGS for s in SHAPES[c]],
                         ids=lambda v: v if isinstance(v, str) else
                         "x".join(map(str, v)))
@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_dependent_chain(torch_gpu, config, shape, graph):
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    m, n = shape
    torch.manual_seed(m * 7 + n)
    x0 = torch.randn(m, n, device="cuda", dtype=torch.float16)
    weights = [torch.randn(n, n, device="cuda", dtype=torch.float16) /
               n ** 0.5 for _ in range(STEPS)]
    grid = grid_of(config, m, n)
    kern = compile_linear(config, True)
    plain = compile_linear(config, False)
    outs = run_chain(torch, kern, grid, x0, weights, graph)
    base = run_chain(torch, plain, grid, x0, weights, graph)
    # The same kernels in the same order: the same bits.
    for got, want in zip(outs, base):
        assert torch.equal(got, want)
    # Each step within rounding of float64 from the previous step's f16.
    if not graph:
        prev = x0
        for out, w in zip(outs, weights):
            ref = prev.double() @ w.double().t()
            assert not torch.isnan(out).any()
            err = ((out.double() - ref).norm() / ref.norm()).item()
            assert err < 2e-3, err
            prev = out

