"""tilec on a GPU with PyTorch: tilec.attention against a float64 reference
and torch's scaled_dot_product_attention on fresh random inputs (head dims
32-256 with 80, 96, 192; GQA groups 1-8; seq_q != seq_k; (B, N, H, D)
views; f16 and bf16; input_pos); kernels compiled from Python and launched
with torch tensors, __cuda_array_interface__ and DLPack objects and
scalars; the scalar refusals; autotune; the custom op in torch.compile; the
README's example. Skipped without PyTorch and a CUDA GPU."""

import math
import os
import runpy

import pytest

import tilec

TOL = {"float16": 4e-3, "bfloat16": 2.5e-2}

# Most tests use the default tiles (no tuning): each head dim, head count
# and mask is a kernel to compile, and tuning would compile five.
os.environ.setdefault("TILEC_AUTOTUNE", "off")


def reference(torch, q, k, v, causal, scale, input_pos):
    """float64 attention, GQA expanded, the causal mask offset by
    input_pos."""
    q64, k64, v64 = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    k64 = k64.repeat_interleave(group, dim=1)
    v64 = v64.repeat_interleave(group, dim=1)
    s = torch.matmul(q64, k64.transpose(-1, -2)) * scale
    if causal:
        i = torch.arange(q.shape[2], device=q.device)[:, None] + input_pos
        j = torch.arange(k.shape[2], device=q.device)[None, :]
        s = s.masked_fill(j > i, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v64)


def rel_err(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


def make(torch, B, H, S, D, dtype, bnhd):
    if bnhd:  # (B, N, H, D) memory viewed as (B, H, N, D)
        return torch.randn(B, S, H, D, device="cuda",
                           dtype=dtype).transpose(1, 2)
    return torch.randn(B, H, S, D, device="cuda", dtype=dtype)


CASES = [
    # B, Hq, Hkv, Sq, Sk, D, causal, input_pos, dtype, bnhd
    (2, 4, 4, 128, 128, 32, False, 0, "float16", False),
    (1, 8, 4, 100, 257, 64, True, 0, "float16", True),
    (1, 8, 1, 77, 200, 80, True, 123, "float16", False),
    (2, 8, 8, 130, 64, 96, False, 0, "bfloat16", True),
    (1, 16, 2, 256, 256, 128, True, 0, "float16", False),
    (1, 6, 3, 64, 333, 128, False, 0, "bfloat16", False),
    (1, 4, 4, 96, 96, 192, True, 0, "float16", True),
    (1, 8, 8, 1, 300, 128, True, 299, "float16", False),
    (1, 4, 1, 64, 128, 256, False, 0, "bfloat16", False),
    (1, 32, 4, 50, 70, 64, True, 20, "bfloat16", False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_attention_matches_float64(torch_gpu, case):
    torch = torch_gpu
    B, Hq, Hkv, Sq, Sk, D, causal, pos, dtype, bnhd = case
    dt = getattr(torch, dtype)
    torch.manual_seed(hash(case) & 0xffff)
    q = make(torch, B, Hq, Sq, D, dt, bnhd)
    k = make(torch, B, Hkv, Sk, D, dt, bnhd)
    v = make(torch, B, Hkv, Sk, D, dt, bnhd)
    out = torch.full_like(q, float("nan"))  # poisoned
    got = tilec.attention(q, k, v, causal=causal, input_pos=pos, out=out)
    assert got is out
    torch.cuda.synchronize()
    ref = reference(torch, q, k, v, causal, 1 / math.sqrt(D), pos)
    assert torch.isfinite(out).all()
    err = rel_err(out, ref)
    assert err < TOL[dtype], f"rel_err {err:.3e}"
    if pos == 0 and Hq == Hkv:  # torch's own kernels take the same problem
        sdpa = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal)
        sdpa_err = rel_err(sdpa, ref)
        assert err < 2 * sdpa_err + TOL[dtype] / 4, (err, sdpa_err)


def test_attention_against_sdpa_gqa_and_scale(torch_gpu):
    torch = torch_gpu
    q = torch.randn(2, 8, 300, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(2, 2, 300, 128, device="cuda", dtype=torch.float16)
    v = torch.randn(2, 2, 300, 128, device="cuda", dtype=torch.float16)
    out = tilec.attention(q, k, v, causal=True, scale=0.05)
    sdpa = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.05, enable_gqa=True)
    ref = reference(torch, q, k, v, True, 0.05, 0)
    assert rel_err(out, ref) < 4e-3
    assert (out - sdpa).abs().max().item() < 1e-2


def test_attention_tuned(torch_gpu, monkeypatch):
    torch = torch_gpu
    monkeypatch.setenv("TILEC_AUTOTUNE", "on")
    q = torch.randn(2, 8, 1000, 64, device="cuda", dtype=torch.float16)
    k = torch.randn(2, 8, 1000, 64, device="cuda", dtype=torch.float16)
    v = torch.randn(2, 8, 1000, 64, device="cuda", dtype=torch.float16)
    out = tilec.attention(q, k, v)
    ref = reference(torch, q, k, v, False, 1 / 8, 0)
    assert rel_err(out, ref) < 4e-3
    out2 = tilec.attention(q, k, v)  # remembered: no tuning, same answer
    assert torch.equal(out, out2)
    # The configuration it ran, as the tuner described it.
    config = tilec.attention_config(q, k, v)
    assert config.startswith("TILE_M=") and "warps=" in config, config


def test_attention_refusals_on_torch_tensors(torch_gpu):
    torch = torch_gpu
    q = torch.randn(1, 4, 16, 64, device="cuda", dtype=torch.float16)
    k8 = torch.randn(1, 8, 16, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(tilec.ArgumentError, match="k: has 8 heads, more "
                       "than q's 4"):
        tilec.attention(q, k8, k8)
    with pytest.raises(tilec.ArgumentError, match="v: dtype bf16"):
        tilec.attention(q, q, q.bfloat16())
    with pytest.raises(tilec.ArgumentError, match="on cpu"):
        tilec.attention(q.cpu(), q, q)
    with pytest.raises(tilec.ArgumentError, match="q: the head_dim dimension "
                       "must be contiguous"):
        tilec.attention(q.transpose(2, 3), q, q)
    empty = torch.empty(0, 4, 16, 64, device="cuda", dtype=torch.float16)
    assert tilec.attention(empty, empty, empty).shape == empty.shape


AXPY = """
kernel axpy(X: Tensor[f32, 1], Y: Tensor[f32, 1], alpha: float, n: int,
            TILE: const int = 256):
    i = bid(0)
    x = load(X, index=(i,), shape=(TILE,))
    y = load(Y, index=(i,), shape=(TILE,))
    store(Y, index=(i,), tile=alpha * x + y)
"""


def test_compile_and_launch(torch_gpu, repo):
    torch = torch_gpu
    add = tilec.compile(os.path.join(repo, "kernels", "vector_add.tile"),
                        DTYPE="f32", TILE=512)
    a = torch.randn(5000, device="cuda")
    b = torch.randn(5000, device="cuda")
    c = torch.empty_like(a)
    add[lambda meta: ((5000 + meta["TILE"] - 1) // meta["TILE"],)](a, b, c)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)

    class CAI:  # only __cuda_array_interface__
        def __init__(self, t):
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    class DLP:  # only DLPack
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

    c.zero_()
    add[(10,)](CAI(a), DLP(b), CAI(c))
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)

    # Another stream.
    s = torch.cuda.Stream()
    c.zero_()
    torch.cuda.synchronize()
    add[10](a, b, c, stream=s)
    s.synchronize()
    assert torch.equal(c, a + b)


def test_scalars(torch_gpu):
    torch = torch_gpu
    axpy = tilec.compile(AXPY, name="axpy.tile")
    x = torch.ones(1000, device="cuda")
    y = torch.zeros(1000, device="cuda")
    axpy[4](x, y, 3, 1000)  # an int for the float: exact
    torch.cuda.synchronize()
    assert torch.all(y == 3)
    with pytest.raises(tilec.ArgumentError, match="no exact 32-bit float"):
        axpy[4](x, y, 2**24 + 1, 1000)
    with pytest.raises(tilec.ArgumentError, match="argument 4 \\('n'\\): "
                       "expected an int, got a float"):
        axpy[4](x, y, 1.0, 1000.0)
    with pytest.raises(tilec.ArgumentError, match="expected 4 arguments"):
        axpy[4](x, y, 1.0)
    with pytest.raises(tilec.ArgumentError, match="grid"):
        axpy[(1, 2, 3, 4)](x, y, 1.0, 1000)


def test_compile_error_on_gpu(torch_gpu):
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(AXPY.replace("alpha * x", "alpha * z"), name="bad.tile")
    assert "bad.tile:7:" in str(info.value)


def test_autotune(torch_gpu, monkeypatch):
    torch = torch_gpu
    monkeypatch.setenv("TILEC_AUTOTUNE", "on")
    x = torch.randn(1 << 20, device="cuda")
    y = torch.zeros(1 << 20, device="cuda")
    configs = [tilec.Config(TILE=256), tilec.Config(TILE=1024, num_warps=8),
               tilec.Config(TILE="bad")]
    kernel = tilec.autotune(
        AXPY, configs, key=f"n={x.numel()}",
        grid=lambda c: ((x.numel() + c.constants["TILE"] - 1) //
                        c.constants["TILE"],),
        args=(x, y, 0.0, x.numel()))
    assert kernel.config in configs[:2]
    y.zero_()
    t = kernel.config.constants["TILE"]
    kernel[(x.numel() + t - 1) // t](x, y, 2.0, x.numel())
    torch.cuda.synchronize()
    assert torch.allclose(y, 2 * x)


def test_autotune_takes_argument_sets_in_turn(torch_gpu, monkeypatch):
    """args as a list of argument tuples: the timed launches take them in
    turn (every set's output is written), the winner is one of the
    configs; an empty list or a set that is not a tuple is refused."""
    import uuid
    torch = torch_gpu
    monkeypatch.setenv("TILEC_AUTOTUNE", "on")
    n = 1 << 16
    sets = [(torch.randn(n, device="cuda"), torch.zeros(n, device="cuda"),
             3.0, n) for _ in range(3)]
    configs = [tilec.Config(TILE=256), tilec.Config(TILE=512)]

    def grid(c):
        return ((n + c.constants["TILE"] - 1) // c.constants["TILE"],)
    # A key of its own: a winner remembered on disk would launch nothing.
    kernel = tilec.autotune(AXPY, configs, key=f"sets:{uuid.uuid4()}",
                            grid=grid, args=sets)
    torch.cuda.synchronize()
    assert kernel.config in configs
    for x, y, _, _ in sets:
        # (Zero exactly where x is: randn gives an exact 0 now and then.)
        assert torch.equal(y == 0, x == 0), \
            "a set the tuner's launches never took"
    with pytest.raises(tilec.ArgumentError, match="args"):
        tilec.autotune(AXPY, configs, key="none", grid=grid, args=[])
    with pytest.raises(tilec.ArgumentError, match="args"):
        tilec.autotune(AXPY, configs, key="list", grid=grid,
                       args=[list(sets[0])])


def test_custom_op_in_torch_compile(torch_gpu):
    torch = torch_gpu
    import tilec.torch_ops  # noqa: F401

    def f(q, k, v):
        return torch.ops.tilec.attention(q, k, v, True, None, 0) * 2

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    q = torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.float16)
    out = compiled(q, q, q)
    ref = reference(torch, q, q, q, True, 1 / 8, 0) * 2
    assert rel_err(out, ref) < 4e-3


def test_readme_example(torch_gpu, repo):
    torch = torch_gpu
    here = os.path.dirname(os.path.abspath(__file__))
    g = runpy.run_path(os.path.join(here, "readme_example.py"))
    ref = reference(torch, g["q"], g["k"], g["v"], True,
                    1 / math.sqrt(g["q"].shape[-1]), 0)
    assert rel_err(g["out"], ref) < 4e-3


@pytest.mark.parametrize("rotate", [True, False])
def test_flash_attention_kernel_rotate_option(torch_gpu, repo, rotate):
    """kernels/flash_attention.tile compiled from Python with and without
    tile-rotate-wgmma (sm_90a's in-warpgroup overlap; rotate_wgmma=False
    keeps each trip's multiplies in it) matches the float64 reference at
    trip counts 1, 2 and several, causal and not."""
    torch = torch_gpu
    path = os.path.join(repo, "kernels", "flash_attention.tile")
    B, H, D = 1, 4, 128
    for causal in (False, True):
        fmha = tilec.compile(path, "fmha", H=H, TILE_D=D, TILE_M=64, TILE_N=64,
                             CAUSAL=causal, rotate_wgmma=rotate)
        for S in (64, 128, 320):
            q, k, v = (make(torch, B, H, S, D, torch.float16, False)
                       for _ in range(3))
            out = torch.full_like(q, float("nan"))
            scale = 1 / math.sqrt(D)
            fmha[((S + 63) // 64, B * H)](q, k, v, out, scale, 0)
            torch.cuda.synchronize()
            ref = reference(torch, q, k, v, causal, scale, 0)
            assert rel_err(out, ref) < TOL["float16"], (causal, S)


def test_flash_attention_kernel_hints(torch_gpu, repo):
    """The kernel's own @hints (two consumer warpgroups, specialized) give
    its options when the call gives none; a keyword argument wins over a
    hint. Both kernels match the float64 reference, causal and not."""
    torch = torch_gpu
    with open(os.path.join(repo, "kernels", "flash_attention.tile")) as f:
        source = f.read()
    at = source.index("\nkernel ")
    hinted = (source[:at] + "\n@hints(num_warps=TILE_M // 16, "
              "warp_specialize=True)" + source[at:])
    hopper = torch.cuda.get_device_capability() == (9, 0)
    B, H, D, M = 1, 4, 128, 128
    for causal in (False, True):
        for override, warps in ((None, 12 if hopper else 8), (False, 8)):
            fmha = tilec.compile(hinted, "fmha", name="hinted.tile", H=H, TILE_D=D,
                                 TILE_M=M, TILE_N=128, CAUSAL=causal,
                                 loop_split=False,
                                 warp_specialize=override)
            assert fmha.num_warps == warps, (causal, override)
            # The driver's machine code and occupancy: its registers, and as
            # many blocks per SM as those and its shared memory allow.
            assert 0 < fmha.registers <= 255
            per_sm = torch.cuda.get_device_properties(0)
            assert 1 <= fmha.blocks_per_sm <= min(
                per_sm.max_threads_per_multi_processor // (32 * warps),
                65536 // (fmha.registers * 32 * warps))
            for S in (128, 384):
                q, k, v = (make(torch, B, H, S, D, torch.float16, False)
                           for _ in range(3))
                out = torch.full_like(q, float("nan"))
                scale = 1 / math.sqrt(D)
                fmha[((S + M - 1) // M, B * H)](q, k, v, out, scale, 0)
                torch.cuda.synchronize()
                ref = reference(torch, q, k, v, causal, scale, 0)
                assert rel_err(out, ref) < TOL["float16"], (causal, S)


def test_persistent_flash_attention(torch_gpu, repo):
    """persistent=True: the runtime launches a block per multiprocessor slot
    (here fewer than the grid's query tiles), each looping over the grid
    asked for; the rings run on from tile to tile. Specialized with two
    consumer warpgroups and not, causal and not, against the float64
    reference; every output element written (poisoned with NaN)."""
    torch = torch_gpu
    path = os.path.join(repo, "kernels", "flash_attention.tile")
    B, H, D, M, S = 2, 16, 128, 128, 2048
    blocks = B * H * (S // M)
    assert blocks > torch.cuda.get_device_properties(0).multi_processor_count
    for causal in (False, True):
        for specialize, warps in ((True, 8), (False, 4)):
            fmha = tilec.compile(path, "fmha", H=H, TILE_D=D, TILE_M=M, TILE_N=128,
                                 CAUSAL=causal, num_warps=warps,
                                 num_stages=2, loop_split=False,
                                 warp_specialize=specialize, persistent=True)
            q, k, v = (make(torch, B, H, S, D, torch.float16, False)
                       for _ in range(3))
            out = torch.full_like(q, float("nan"))
            scale = 1 / math.sqrt(D)
            fmha[(S // M, B * H)](q, k, v, out, scale, 0)
            torch.cuda.synchronize()
            ref = reference(torch, q, k, v, causal, scale, 0)
            assert rel_err(out, ref) < TOL["float16"], (causal, specialize)


def test_alignment_variant_is_said(torch_gpu, repo):
    """A launch with tensors less aligned than the kernel was compiled for
    runs a variant compiled for them, correct but slower, and says so once
    per variant: a CompileWarning naming the argument and what the variant
    gives up (tile_kernel_variant_note); aligned launches say nothing."""
    import warnings
    torch = torch_gpu
    add = tilec.compile(os.path.join(repo, "kernels", "vector_add.tile"),
                        DTYPE="f32", TILE=512)
    a = torch.randn(5001, device="cuda")
    b = torch.randn(5000, device="cuda")
    c = torch.empty_like(b)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        add[(10,)](a[:5000], b, c)
    assert not [w for w in seen if "variant" in str(w.message)]
    a1 = a[1:]  # 4 bytes past a 16-byte boundary
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        add[(10,)](a1, b, c)
        torch.cuda.synchronize()
        add[(10,)](a1, b, c)
    notes = [str(w.message) for w in seen
             if issubclass(w.category, tilec.CompileWarning)]
    assert len(notes) == 1, notes
    assert "argument 1 ('A')" in notes[0] and "variant compiled for 4-byte" \
        in notes[0], notes[0]
    torch.cuda.synchronize()
    assert torch.equal(c, a1 + b)
