"""Makes the tilec package importable from the source tree (python/), and
skips GPU tests where there is no torch with CUDA."""

import math
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.dirname(os.path.dirname(HERE))


def torch_cuda():
    """torch, if it is installed and sees a GPU; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def skip_unless_arch(torch, arch):
    """Skips a test of `arch` that this GPU cannot run (sm_90a: Hopper;
    sm_89's PTX runs on Ada and, compiled by the driver, on later GPUs)."""
    if arch == "sm_90a" and torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("sm_90a needs a Hopper GPU")
    if arch == "sm_89" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("sm_89 needs an Ada or later GPU")


def gelu_tanh(x):
    """GELU's tanh approximation (torch's approximate="tanh") of a float64
    reference tensor."""
    return 0.5 * x * (1 + (math.sqrt(2 / math.pi) *
                           (x + 0.044715 * x ** 3)).tanh())


def poisoned_launches(torch, kern, grid, shape, args, times=3, dtype=None):
    """Launches `kern` `times` times, each into a fresh output of `shape`
    (f16 unless `dtype`) filled with NaN (which `args(y)` places among the
    kernel's arguments), synchronizing after each: the outputs, to compare
    with a reference and with each other."""
    outs = []
    for _ in range(times):
        y = torch.full(shape, float("nan"), device="cuda",
                       dtype=dtype or torch.float16)
        kern.launch(grid, *args(y))
        torch.cuda.synchronize()
        outs.append(y)
    return outs


#: (M, N, K) of the persistent GEMM schedules' tests on linear.tile: one K
#: trip and fewer tiles than blocks, two trips, a few, many; several tiles
#: a block (3000 x 5000).
LINEAR_SHAPES = [(256, 512, 64), (256, 512, 128), (384, 1024, 192),
                 (256, 768, 4096), (3000, 5000, 1000)]


def shape_id(shape):
    """A test id for a shape: 256x512x64."""
    return "x".join(str(d) for d in shape)


def linear_launches(torch, shape, act, bias, dtype, **config):
    """kernels/linear.tile on sm_90a at `config` (its constants TILE_M,
    TILE_N, CLUSTER_M, 128, 128 and 1 unless given, and compile options)
    for y = act(x @ w^T + b) of `shape` (M, N, K): act 0 none, 1 relu, 2
    gelu (tanh); `dtype` "f16" or "bf16". Launched three times into
    poisoned outputs (poisoned_launches); returns the kernel, the outputs
    and the float64 reference."""
    import tilec
    m, n, k = shape
    torch.manual_seed(m + n + k + act)
    tdtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    x = torch.randn(m, k, device="cuda", dtype=tdtype)
    w = torch.randn(n, k, device="cuda", dtype=tdtype) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=tdtype)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    config = dict(config)
    tm = config.setdefault("TILE_M", 128)
    tn = config.setdefault("TILE_N", 128)
    cm = config.setdefault("CLUSTER_M", 1)
    kern = tilec.compile(os.path.join(REPO, "kernels", "linear.tile"),
                         "linear", arch="sm_90a", DTYPE=dtype, HAS_BIAS=bias,
                         ACT=act, **config)
    units_m = -(-(-(-m // tm)) // cm)
    grid = (units_m * cm * -(-n // tn), 1)
    outs = poisoned_launches(torch, kern, grid, (m, n),
                             lambda y: (x, w, b, y, part, tickets),
                             dtype=tdtype)
    ref = x.double() @ w.double().t()
    if bias:
        ref = ref + b.double()
    if act == 1:
        ref = ref.clamp(min=0)
    elif act == 2:
        ref = gelu_tanh(ref)
    return kern, outs, ref


@pytest.fixture
def torch_gpu():
    torch = torch_cuda()
    if torch is None:
        pytest.skip("no torch with a CUDA GPU")
    return torch


@pytest.fixture
def repo():
    return REPO
