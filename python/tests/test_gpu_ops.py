"""The kernel library (tilec.ops) against float64 references: fresh random
inputs, outputs poisoned with NaN before the kernel writes them, odd and
power-of-two row lengths, short and long rows (held whole, read in chunks),
f16, bf16 and f32. Each result's error must be within twice PyTorch's own
error on the same inputs (plus a rounding unit of the output type)."""

import pytest

import tilec
from conftest import skip_unless_arch
from tilec import ArgumentError

DTYPES = ("float16", "bfloat16", "float32")
# A unit of rounding of each output type, relative.
ULP = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-22}


def close(torch, got, ref64, torch_out, dtype):
    """tilec's max error against the float64 reference within twice
    PyTorch's, plus one rounding unit of the largest reference value."""
    assert not torch.isnan(got).any(), "NaN left in the output"
    err = (got.double() - ref64).abs().max().item()
    torch_err = (torch_out.double() - ref64).abs().max().item()
    bound = 2 * torch_err + ULP[dtype] * max(1.0, ref64.abs().max().item())
    assert err <= bound, f"error {err:.3g} > {bound:.3g} (torch {torch_err:.3g})"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 1000), (64, 1024), (33, 4096),
                                   (5, 10000), (3, 10001), (3, 16384),
                                   (2, 32768), (300, 20000), (4, 3, 512),
                                   (1000, 64), (301, 768), (5, 1023)])
def test_rms_norm(torch_gpu, dtype, shape):
    torch = torch_gpu
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device="cuda", dtype=dt) * 3
    w = torch.rand(shape[-1], device="cuda", dtype=dt) + 0.5
    out = torch.full_like(x, float("nan"))
    if dtype == "float32" and shape[-1] > tilec.ops.MAX_NORM_COLUMNS_F32:
        with pytest.raises(ArgumentError, match="longer than the 16384"):
            tilec.ops.rms_norm(x, w, eps=1e-5, out=out)
        return
    got = tilec.ops.rms_norm(x, w, eps=1e-5, out=out)
    assert got is out
    x64, w64 = x.double(), w.double()
    ref = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-5) * w64
    close(torch, got, ref,
          torch.nn.functional.rms_norm(x, (shape[-1],), w, 1e-5), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 1000), (64, 1024), (33, 4096),
                                   (5, 10000), (3, 3001), (2, 32768),
                                   (1000, 64), (301, 768), (129, 512),
                                   (3, 513)])
def test_layer_norm(torch_gpu, dtype, shape):
    torch = torch_gpu
    dt = getattr(torch, dtype)
    # A mean far from zero: the variance is of the centered values.
    x = torch.randn(shape, device="cuda", dtype=dt) * 2 + 5
    w = torch.rand(shape[-1], device="cuda", dtype=dt) + 0.5
    b = torch.randn(shape[-1], device="cuda", dtype=dt)
    if dtype == "float32" and shape[-1] > tilec.ops.MAX_NORM_COLUMNS_F32:
        with pytest.raises(ArgumentError, match="longer than the 16384"):
            tilec.ops.layer_norm(x, w, b, eps=1e-5)
        return
    got = tilec.ops.layer_norm(x, w, b, eps=1e-5)
    x64 = x.double()
    mean = x64.mean(-1, keepdim=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
    ref = (x64 - mean) * torch.rsqrt(var + 1e-5) * w.double() + b.double()
    close(torch, got, ref, torch.nn.functional.layer_norm(
        x, (shape[-1],), w, b, 1e-5), dtype)


@pytest.mark.parametrize("kind", ("layernorm", "rmsnorm"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [(10, 9000, 9000, 8, 3, 3),
                                  (10, 9000, 16384, 8, 3, 4),
                                  (5, 10000, 10000, 4, 2, 7),
                                  (1, 12288, 12288, 8, 3, 2)])
def test_norm_row_loop(torch_gpu, kind, dtype, case):
    """kernels/norms.tile's layernorm and rmsnorm with ROW_LOOP (tilec.ops
    tunes them for long rows on sm_90): each block's rows in a loop, the
    next row copied ahead; fewer blocks than rows (several trips), more
    (blocks with none), a padded tile (the mask) and the row's own
    width."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    rows, n, tile_n, warps, latency, blocks = case
    dt = getattr(torch, dtype)
    name = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[dtype]
    layer = kind == "layernorm"
    extra = dict(EVEN=tile_n == n, SHIFT=32 if name == "f32" else 1) \
        if layer else {}
    kern = tilec.compile(tilec.ops._kernel_path("norms.tile"), kernel=kind,
                         DTYPE=name, TILE_N=tile_n, ROW_LOOP=True,
                         LATENCY=latency, num_warps=warps, **extra)
    x = torch.randn(rows, n, device="cuda", dtype=dt) * 2 + 5
    w = torch.rand(n, device="cuda", dtype=dt) + 0.5
    b = torch.randn(n, device="cuda", dtype=dt)
    y = torch.full_like(x, float("nan"))
    x64 = x.double()
    if layer:
        kern[(blocks,)](x, w, b, y, 1e-5)
        mean = x64.mean(-1, keepdim=True)
        var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
        ref = (x64 - mean) * torch.rsqrt(var + 1e-5) * w.double() + \
            b.double()
        theirs = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
    else:
        kern[(blocks,)](x, w, y, 1e-5)
        ref = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-5) \
            * w.double()
        theirs = torch.nn.functional.rms_norm(x, (n,), w, 1e-5)
    torch.cuda.synchronize()
    close(torch, y, ref, theirs, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 1000), (64, 1024), (9, 16384),
                                   (5, 10000), (3, 3001), (3, 16385),
                                   (4, 50000), (3, 32768), (3, 32769),
                                   (2, 3, 77), (2, 131072), (300, 40000),
                                   (3, 100003), (2, 131073), (3, 20481),
                                   (2, 163841), (2, 262144), (2, 262145),
                                   (3, 327680), (2, 327681)])
def test_softmax(torch_gpu, dtype, shape):
    torch = torch_gpu
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device="cuda", dtype=dt) * 4
    out = torch.full_like(x, float("nan"))
    got = tilec.ops.softmax(x, dim=-1, out=out)
    ref = torch.softmax(x.double(), dim=-1)
    close(torch, got, ref, torch.softmax(x, dim=-1), dtype)


@pytest.mark.parametrize("n", [50000, 100003, 131073, 200000])
def test_softmax_masked_prefix(torch_gpu, n):
    """Rows whose first 40000 columns are -inf (masked out): a part or
    chunk all -inf counts 0 (exp(-inf - -inf) would be NaN); a row all
    -inf is NaN, as torch's."""
    torch = torch_gpu
    x = torch.randn(3, n, device="cuda", dtype=torch.bfloat16) * 4
    x[:, :40000] = float("-inf")
    x[2] = float("-inf")
    got = tilec.ops.softmax(x, dim=-1)
    ref = torch.softmax(x.double(), dim=-1)
    assert torch.isnan(got[2]).all() and torch.isnan(ref[2]).all()
    close(torch, got[:2], ref[:2], torch.softmax(x, dim=-1)[:2], "bfloat16")


def test_cross_entropy_masked_prefix(torch_gpu):
    """Logits whose first chunks are -inf: the loss and the log-sum-exp of
    the rest, not NaN."""
    torch = torch_gpu
    for v in (32000, 50257):
        x = torch.randn(4, v, device="cuda", dtype=torch.float16) * 3
        x[:, :20000] = float("-inf")
        t = torch.full((4,), v - 1, device="cuda")
        loss, lse = tilec.ops.cross_entropy(x, t, return_lse=True)
        ref_lse = torch.logsumexp(x.double(), dim=-1)
        assert torch.allclose(lse.double(), ref_lse, rtol=1e-5, atol=1e-5)
        assert torch.allclose(loss.double(), ref_lse - x[:, -1].double(),
                              rtol=1e-5, atol=1e-5)


def test_softmax_cluster_many_rows(torch_gpu):
    """Rows held by the blocks of a cluster (sm_90), more clusters than
    run at once: each block reads its cluster's partials after the cluster
    barrier (a stale or early read would show here), the same result twice."""
    torch = torch_gpu
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("clusters need sm_90")
    x = torch.randn(300, 65536 + 24, device="cuda", dtype=torch.bfloat16) * 4
    x[7, 5] = 60.0  # one part's max far above the others'
    got = tilec.ops.softmax(x, dim=-1)
    again = tilec.ops.softmax(x, dim=-1)
    assert torch.equal(got, again)
    close(torch, got, torch.softmax(x.double(), dim=-1),
          torch.softmax(x, dim=-1), "bfloat16")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,vocab", [(7, 1000), (64, 4096), (33, 32000),
                                        (5, 50257), (2, 128256)])
def test_cross_entropy(torch_gpu, dtype, rows, vocab):
    torch = torch_gpu
    dt = getattr(torch, dtype)
    x = torch.randn(rows, vocab, device="cuda", dtype=dt) * 3
    t = torch.randint(0, vocab, (rows,), device="cuda")
    t[0] = -100  # ignored: loss 0
    loss, lse = tilec.ops.cross_entropy(x, t, return_lse=True)
    x64 = x.double()
    ref_lse = torch.logsumexp(x64, dim=-1)
    picked = x64.gather(1, t.clamp(min=0)[:, None])[:, 0]
    ref = torch.where(t == -100, torch.zeros_like(ref_lse), ref_lse - picked)
    torch_loss = torch.nn.functional.cross_entropy(x, t, reduction="none")
    # (f32 results: the bound is f32's rounding, relative to the values.)
    close(torch, loss, ref, torch_loss, "float32")
    close(torch, lse, ref_lse, torch.logsumexp(x.float(), dim=-1), "float32")
    assert loss[0].item() == 0.0
    # int32 targets too.
    assert torch.equal(tilec.ops.cross_entropy(x, t.int()), loss)


@pytest.mark.parametrize("vocab", (100, 1001, 50257))
def test_cross_entropy_bad_target_is_nan(torch_gpu, vocab):
    # 1001 and 50257 f16 columns: rows not 16-byte aligned, read through the
    # flat view (a target past V must not read the next row's logit).
    torch = torch_gpu
    x = torch.randn(4, vocab, device="cuda", dtype=torch.float16)
    t = torch.tensor([1, vocab, -1, 3], device="cuda")
    loss = tilec.ops.cross_entropy(x, t)
    assert torch.isnan(loss[1:3]).all() and not torch.isnan(loss[0::3]).any()


@pytest.mark.parametrize("vocab,dtype", [(100, "float32"), (1001, "float16"),
                                         (50257, "float16")])
def test_cross_entropy_int64_targets(torch_gpu, vocab, dtype):
    """int64 targets read as they are, i64 tiles (the 2-D kernel, the flat
    one, and on sm_90 rows split over a cluster): one whose low word is in
    range or is ignore_index but which int32 cannot hold is outside [0, V)
    (NaN), as PyTorch reads it."""
    torch = torch_gpu
    x = torch.randn(6, vocab, device="cuda", dtype=getattr(torch, dtype))
    t = torch.tensor([3, 2**32 + 3, 2**32 - 100, -100, -2**32 + 5,
                      vocab - 1], device="cuda", dtype=torch.int64)
    loss, lse = tilec.ops.cross_entropy(x, t, return_lse=True)
    assert torch.isnan(loss[1:3]).all() and torch.isnan(loss[4])
    assert loss[3].item() == 0
    ref_lse = torch.logsumexp(x.double(), dim=-1)
    assert torch.allclose(lse.double(), ref_lse, rtol=1e-5, atol=1e-5)
    for i in (0, 5):
        want = ref_lse[i] - x[i, t[i]].double()
        assert abs(loss[i].item() - want.item()) < 1e-4
    # The same targets as int32 where they fit: the same losses, bit for
    # bit, of the same logits (a copy of some rows would start them at
    # other offsets of the flat view, whose aligned chunks would then sum
    # them in another order).
    ok = torch.tensor([0, 3, 5], device="cuda")
    t32 = torch.zeros(6, device="cuda", dtype=torch.int32)
    t32[ok] = t[ok].int()
    assert torch.equal(tilec.ops.cross_entropy(x, t32)[ok], loss[ok])


@pytest.mark.parametrize("vocab", (1001, 5003))
def test_cross_entropy_misaligned_rows(torch_gpu, vocab):
    """Rows not 16-byte aligned: contiguous (the flat view's aligned
    chunks, each masked to its row) and strided (the 2-D kernel), the
    targets at a row's first and last columns."""
    torch = torch_gpu
    big = torch.randn(6, vocab + 7, device="cuda", dtype=torch.bfloat16) * 3
    t = torch.tensor([0, vocab - 1, 5, -100, vocab // 2, vocab - 2],
                     device="cuda")
    for x in (big[:, :vocab].contiguous(), big[:, :vocab]):
        loss, lse = tilec.ops.cross_entropy(x, t, return_lse=True)
        x64 = x.double()
        ref_lse = torch.logsumexp(x64, dim=-1)
        ref = ref_lse - x64.gather(1, t.clamp(min=0)[:, None])[:, 0]
        ref[3] = 0
        close(torch, loss, ref, torch.nn.functional.cross_entropy(
            x, t, reduction="none"), "float32")
        close(torch, lse, ref_lse, torch.logsumexp(x.float(), dim=-1),
              "float32")


def test_ops_arguments(torch_gpu):
    torch = torch_gpu
    x = torch.randn(4, 64, device="cuda", dtype=torch.float16)
    w = torch.ones(64, device="cuda", dtype=torch.float16)
    cases = [
        (lambda: tilec.ops.rms_norm(x.cpu(), w), "x: expected a CUDA tensor"),
        (lambda: tilec.ops.rms_norm(x.int(), w), "x: expected one of"),
        (lambda: tilec.ops.rms_norm(x.t(), w), "last dimension must be"),
        (lambda: tilec.ops.rms_norm(x, w[:32]), "weight: expected a "
         "contiguous (64,) CUDA tensor of float16"),
        (lambda: tilec.ops.rms_norm(x, w.float()), "weight: expected"),
        (lambda: tilec.ops.rms_norm(x, w, eps=-1.0), "eps: expected"),
        (lambda: tilec.ops.layer_norm(x, w, None), "bias: expected"),
        (lambda: tilec.ops.rms_norm(x, w, out=x.float()), "out: expected"),
        (lambda: tilec.ops.rms_norm(
            torch.randn(2, 40000, device="cuda", dtype=torch.float16),
            torch.ones(40000, device="cuda", dtype=torch.float16)),
         "x: rows of 40000 elements are longer than the 32768"),
        (lambda: tilec.ops.softmax(x, dim=0), "dim: only the last"),
        (lambda: tilec.ops.cross_entropy(x, torch.zeros(3, device="cuda",
                                                        dtype=torch.long)),
         "target: expected a (4,) int32 or int64"),
        (lambda: tilec.ops.cross_entropy(x[0], x), "logits: expected a 2-D"),
        (lambda: tilec.ops.cross_entropy(
            x, torch.zeros(4, device="cuda", dtype=torch.long),
            ignore_index=2**40), "ignore_index: expected an int32"),
    ]
    for call, message in cases:
        with pytest.raises(ArgumentError, match=None) as info:
            call()
        assert message in str(info.value), (message, str(info.value))


def test_ops_empty_rows(torch_gpu):
    torch = torch_gpu
    x = torch.randn(0, 64, device="cuda", dtype=torch.float16)
    w = torch.ones(64, device="cuda", dtype=torch.float16)
    assert tilec.ops.rms_norm(x, w).shape == (0, 64)
    assert tilec.ops.softmax(x).shape == (0, 64)


ACTS = {None: lambda y: y, "relu": lambda y: y.clamp(min=0),
        "gelu_tanh": lambda y: 0.5 * y * (1 + torch_tanh(
            0.7978845608028654 * (y + 0.044715 * y ** 3))),
        "silu": lambda y: y / (1 + (-y).exp())}


def torch_tanh(y):
    return y.tanh()


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("activation", list(ACTS))
@pytest.mark.parametrize("shape", [(1000, 1024, 256), (2, 64, 768, 512),
                                   (40, 1000, 4096)])
def test_linear(torch_gpu, monkeypatch, dtype, activation, shape):
    torch = torch_gpu
    # One problem class tuned (tilec.autotune times every candidate); the
    # others take the first candidate, to keep the test short.
    if (dtype, activation, len(shape)) != ("float16", None, 3):
        monkeypatch.setenv("TILEC_AUTOTUNE", "off")
    dt = getattr(torch, dtype)
    *lead, n, k = shape
    x = torch.randn(*lead, k, device="cuda", dtype=dt)
    w = torch.randn(n, k, device="cuda", dtype=dt) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=dt)
    for bias in (b, None):
        out = torch.full((*lead, n), float("nan"), device="cuda", dtype=dt)
        got = tilec.ops.linear(x, w, bias, activation=activation, out=out)
        assert got is out
        y = x.double() @ w.double().t()
        if bias is not None:
            y = y + bias.double()
        ref = ACTS[activation](y)
        theirs = torch.nn.functional.linear(x, w, bias)
        theirs = {None: theirs, "relu": torch.relu(theirs),
                  "gelu_tanh": torch.nn.functional.gelu(theirs,
                                                        approximate="tanh"),
                  "silu": torch.nn.functional.silu(theirs)}[activation]
        close(torch, got, ref, theirs, dtype)


@pytest.mark.parametrize("shape", [(300, 264, 200), (2, 50, 128, 96),
                                   (64, 512, 1024)],
                         ids=lambda s: "x".join(map(str, s)))
def test_linear_tf32(torch_gpu, monkeypatch, shape):
    """tilec.ops.linear on float32, multiplied as tf32 where PyTorch allows
    it (refused with the flag to set where it does not), with bias and
    gelu: against float64 within tf32's rounding, as torch's own tf32
    linear is (the output poisoned with NaN first); one class tuned, the
    others the first candidate."""
    torch = torch_gpu
    if shape != (300, 264, 200):
        monkeypatch.setenv("TILEC_AUTOTUNE", "off")
    torch.manual_seed(sum(shape))
    *lead, n, k = shape
    x = torch.randn(*lead, k, device="cuda")
    w = torch.randn(n, k, device="cuda") / k ** 0.5
    b = torch.randn(n, device="cuda")
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        with pytest.raises(tilec.ArgumentError, match="allow_tf32"):
            tilec.ops.linear(x, w, b)
        torch.backends.cuda.matmul.allow_tf32 = True
        out = torch.full((*lead, n), float("nan"), device="cuda")
        got = tilec.ops.linear(x, w, b, activation="gelu_tanh", out=out)
        theirs = torch.nn.functional.gelu(
            torch.nn.functional.linear(x, w, b), approximate="tanh")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    assert got is out
    ref = ACTS["gelu_tanh"](x.double() @ w.double().t() + b.double())
    err = ((got.double() - ref).norm() / ref.norm()).item()
    err_torch = ((theirs.double() - ref).norm() / ref.norm()).item()
    # tf32 keeps 10 bits of mantissa (2^-11 = 4.9e-4 a rounding; the tensor
    # cores read shared memory truncated, which biases a sum by about 2^-11
    # per operand): torch's error on the same inputs is the scale.
    assert err < 2e-3 and err_torch < 2e-3, (err, err_torch)


@pytest.mark.parametrize("config", [
    {},
    {"persistent": True, "num_stages": 3},
    {"persistent": True, "num_stages": 3, "cluster": 2, "CLUSTER_M": 2},
    {"persistent": True, "num_stages": 4, "cluster": 2, "CLUSTER_M": 2}])
def test_linear_wave_fit(torch_gpu, config):
    """The candidates tilec.ops.linear adds for a product whose tiles fill
    the waves best at a width of no swizzle's block (_wave_fit_tile: 256 x
    152 at 3000 x 5000 on 132 multiprocessors): kernels/linear.tile at 256
    x 152 (its output staged in rows of 304 bytes, one TMA box a tile, or
    at 4 stages in parts of 128 x 80 and 128 x 72), with bias and gelu, edges inside tiles along M and N, against float64; the
    output poisoned with NaN and 8 spare columns each side left alone."""
    torch = torch_gpu
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("sm_90a")
    torch.manual_seed(7)
    m, n, k = 700, 1000, 200
    dt = torch.bfloat16
    x = torch.randn(m, k, device="cuda", dtype=dt)
    w = torch.randn(n, k, device="cuda", dtype=dt) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=dt)
    wide = torch.full((m, n + 16), float("nan"), device="cuda", dtype=dt)
    y = wide[:, 8:n + 8]
    kern = tilec.compile(tilec.ops._kernel_path("linear.tile"),
                         kernel="linear", arch="sm_90a", DTYPE="bf16",
                         ACT=2, TILE_M=256, TILE_N=152, auto_schedule=True,
                         **config)
    cm = config.get("CLUSTER_M", 1)
    grid = (-(-m // (256 * cm)) * cm * -(-n // 152), 1)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    for _ in range(2):
        kern.launch(grid, x, w, b, y, part, tickets)
    torch.cuda.synchronize()
    ref = ACTS["gelu_tanh"](x.double() @ w.double().t() + b.double())
    err = ((y.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    assert torch.isnan(wide[:, :8]).all() and torch.isnan(wide[:, n + 8:]).all()


def test_linear_skinny_plans_share_the_workspace(torch_gpu, monkeypatch):
    """tilec.ops.linear's skinny path with K split in 4 (the candidates
    narrowed to that one): problems of growing size on one stream share,
    and grow, the stream's workspace; each result right, and every ticket
    back at zero after each call."""
    torch = torch_gpu
    monkeypatch.setattr(tilec.ops, "_linear_split_configs",
                        lambda m, n, k, sms, **kw: [tilec.Config(
                            TILE_M=64, TILE_N=64, TILE_K=64, SPLITS=4,
                            num_stages=4)])
    monkeypatch.setattr(tilec.ops, "_linear_plans", {})
    monkeypatch.setattr(tilec.ops, "_partials", {})
    monkeypatch.setattr(tilec._kernels, "_tickets", {})
    monkeypatch.setattr(tilec.ops, "_tuned", {})
    for m, n, k in ((8, 128, 1024), (100, 520, 2048), (33, 64, 512),
                    (100, 520, 2048)):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        out = torch.full((m, n), float("nan"), device="cuda",
                         dtype=torch.bfloat16)
        tilec.ops.linear(x, w, b, activation="relu", out=out)
        torch.cuda.synchronize()
        ref = (x.double() @ w.double().t() + b.double()).clamp(min=0)
        theirs = torch.relu(torch.nn.functional.linear(x, w, b))
        close(torch, out, ref, theirs, "bfloat16")
        for tickets in tilec._kernels._tickets.values():
            assert int(tickets.abs().sum()) == 0
    assert all(plan[0].config.constants["SPLITS"] == 4
               for plan in tilec.ops._linear_plans.values())


def launch_split_linear(torch, kern, m, n, k, tile_m, splits):
    """linear.tile (bf16, bias, silu, 64-column tiles, K split in `splits`)
    launched twice on one workspace: each result against float64, and the
    tickets back at zero after each launch."""
    tiles = ((m + tile_m - 1) // tile_m) * ((n + 63) // 64)
    partial = torch.full((splits, m, n), float("nan"), device="cuda")
    tickets = torch.zeros(tiles, device="cuda", dtype=torch.int32)
    for trial in range(2):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        kern[(tiles, splits)](x, w, b, y, partial, tickets)
        torch.cuda.synchronize()
        assert torch.equal(tickets, torch.zeros_like(tickets))
        ref = x.double() @ w.double().t() + b.double()
        ref = ref / (1 + (-ref).exp())
        theirs = torch.nn.functional.silu(
            torch.nn.functional.linear(x, w, b))
        close(torch, y, ref, theirs, "bfloat16")


@pytest.mark.parametrize("arch", ("sm_90a", "sm_80", "sm_90a-ws"))
@pytest.mark.parametrize("splits", (2, 3, 8))
@pytest.mark.parametrize("shape", [(5, 136, 512), (64, 256, 320),
                                   (130, 72, 1000)])
def test_linear_split_k(torch_gpu, splits, shape, arch):
    """kernels/linear.tile with K split across blocks (SPLITS), launched
    directly: the last block of each tile adds the partials and resets the
    tile's ticket; 320 and 1000 columns of K leave some splits with nothing
    (a split of zero K tiles adds zeros). Launched twice on the same
    workspace: the tickets are back at zero after each launch. sm_90a-ws:
    with a producer warp (K tiles of 128, 4 stages), as tilec.ops.linear's
    skinny candidates may be."""
    torch = torch_gpu
    ws = arch.endswith("-ws")
    arch = arch.removesuffix("-ws")
    skip_unless_arch(torch, arch)
    m, n, k = shape
    extra = {"warp_specialize": True, "TILE_K": 128, "num_stages": 4} \
        if ws else {}
    kern = tilec.compile(tilec.ops._kernel_path("linear.tile"),
                         kernel="linear", arch=arch, DTYPE="bf16", TILE_M=64,
                         TILE_N=64, SPLITS=splits, ACT=3, **extra)
    launch_split_linear(torch, kern, m, n, k, 64, splits)


@pytest.mark.parametrize("arch", ("sm_90a", "sm_80", "sm_90a-ws"))
@pytest.mark.parametrize("splits", (1, 2, 3))
@pytest.mark.parametrize("shape", [(1, 64, 512), (5, 136, 1000),
                                   (16, 200, 768), (17, 72, 320),
                                   (32, 256, 2048)])
def test_linear_swapped(torch_gpu, splits, shape, arch):
    """kernels/linear.tile with SWAP_AB (few rows: W's tile as the
    multiply's A, X's rows its narrow N, the accumulator transposed back),
    launched directly, with K split or not, bias and silu: rows, columns
    and K that are not multiples of the tiles, splits with no K tiles
    (320 columns), twice on one workspace (tickets back at zero)."""
    torch = torch_gpu
    ws = arch.endswith("-ws")
    arch = arch.removesuffix("-ws")
    skip_unless_arch(torch, arch)
    m, n, k = shape
    tm = 16 if m <= 16 else 32
    kern = tilec.compile(tilec.ops._kernel_path("linear.tile"),
                         kernel="linear", arch=arch, DTYPE="bf16", TILE_M=tm,
                         TILE_N=64, TILE_K=128, SPLITS=splits, ACT=3,
                         SWAP_AB=True, num_warps=4, num_stages=3,
                         warp_specialize=ws)
    launch_split_linear(torch, kern, m, n, k, tm, splits)


def test_linear_few_rows_tuned(torch_gpu, monkeypatch):
    """tilec.ops.linear at 1-32 rows (3-D input too) tunes over the
    swapped candidates beside the 64-row ones; whichever it picks, the
    result is right and the tickets are back at zero."""
    torch = torch_gpu
    monkeypatch.setattr(tilec.ops, "_linear_plans", {})
    monkeypatch.setattr(tilec.ops, "_tuned", {})
    configs = tilec.ops._linear_split_configs(
        16, 4096, 4096, 132, clusters=True)
    assert any(c.constants.get("SWAP_AB") for c in configs)
    assert not any(c.constants.get("SWAP_AB") for c in
                   tilec.ops._linear_split_configs(64, 4096, 4096, 132))
    for lead, n, k in (((3,), 520, 1024), ((2, 8), 4096, 2048),
                       ((29,), 296, 512)):
        x = torch.randn(*lead, k, device="cuda", dtype=torch.float16)
        w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        got = tilec.ops.linear(x, w, b, activation="gelu_tanh")
        torch.cuda.synchronize()
        y = x.double() @ w.double().t() + b.double()
        ref = ACTS["gelu_tanh"](y)
        theirs = torch.nn.functional.gelu(torch.nn.functional.linear(
            x, w, b), approximate="tanh")
        close(torch, got, ref, theirs, "float16")
        for tickets in tilec._kernels._tickets.values():
            assert int(tickets.abs().sum()) == 0


@pytest.mark.parametrize("along", ("CLUSTER_M", "CLUSTER_N"))
def test_linear_op_in_clusters(torch_gpu, monkeypatch, along):
    """tilec.ops.linear with only its cluster candidates (as the tuner may
    pick them on sm_90): 128 x 256 tiles, pairs along M or N, the grid in
    whole pairs (an odd count of tiles: the last pair's second tile past
    the matrix); the plan's launches match float64."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    real = tilec.ops._linear_cluster_configs
    monkeypatch.setattr(
        tilec.ops, "_linear_cluster_configs",
        lambda kernel, fit=None: [c for c in real(kernel, fit)
                                  if c.constants.get(along) == 2 and
                                  c.constants["TILE_M"] == 128 and
                                  c.constants["TILE_N"] == 256])
    # A class tuned before in this process would keep its winner.
    monkeypatch.setattr(tilec.ops, "_tuned", {})
    tilec.ops._linear_plans.clear()
    m, n, k = 300, 1000, 264
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    for _ in range(2):
        out = torch.full((m, n), float("nan"), device="cuda",
                         dtype=torch.float16)
        got = tilec.ops.linear(x, w, b, activation="relu", out=out)
        plan = next(p for key, p in tilec.ops._linear_plans.items()
                    if key[1:4] == (m, n, k))
        assert plan[0].config.constants.get(along) == 2
        ref = torch.relu(x.double() @ w.double().t() + b.double())
        theirs = torch.relu(torch.nn.functional.linear(x, w, b))
        close(torch, got, ref, theirs, "float16")
    tilec.ops._linear_plans.clear()


# Persistent; launched in clusters as it is (the compiler's schedule); a
# skinny product's 64 x 32 tiles, K tiles of 256 in 4 stages, a producer warp.
LINEAR_CLUSTER_SCHEDULES = {
    "persistent": dict(TILE_M=128, TILE_N=128, persistent=True),
    "clustered": dict(TILE_M=128, TILE_N=128),
    "skinny": dict(TILE_M=64, TILE_N=32, TILE_K=256, num_stages=4,
                   warp_specialize=True),
}


@pytest.mark.parametrize("schedule", LINEAR_CLUSTER_SCHEDULES)
@pytest.mark.parametrize("blocks", (2, 6, 0))
@pytest.mark.parametrize("along", ("CLUSTER_M", "CLUSTER_N"))
@pytest.mark.parametrize("shape", [(300, 520, 200), (64, 1000, 520),
                                   (1000, 64, 72)])
def test_linear_in_clusters(torch_gpu, monkeypatch, along, shape, blocks,
                            schedule):
    """kernels/linear.tile in clusters of 2 (--cluster=2), its blocks going
    by pairs of tiles along M (CLUSTER_M: the pair shares W's tile,
    multicast) or N (CLUSTER_N: X's); tile counts along the pair's dimension
    odd (a last pair with a tile past the matrix, which loads zeros and
    stores nothing) and even, with the bias and gelu. Persistent on 2 and 6
    blocks (each running several pairs, the rings going on across them) and
    on all the GPU gives; and not persistent (the launch's own clusters)."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    options = LINEAR_CLUSTER_SCHEDULES[schedule]
    if blocks and not options.get("persistent"):
        pytest.skip("the persistent blocks' count is a persistent kernel's")
    if blocks:
        # (Read at the kernel's first launch.)
        monkeypatch.setenv("TILEC_PERSISTENT_BLOCKS", str(blocks))
    m, n, k = shape
    tm, tn = options["TILE_M"], options["TILE_N"]
    kern = tilec.compile(tilec.ops._kernel_path("linear.tile"),
                         kernel="linear", DTYPE="f16", ACT=2, cluster=2,
                         **options, **{along: 2})
    # (Every ring that can be is shared: a warning would say which is not.)
    assert not kern.warnings, kern.warnings
    units_m = (m + tm - 1) // tm
    units_n = (n + tn - 1) // tn
    if along == "CLUSTER_M":
        units_m = (units_m + 1) // 2 * 2
    else:
        units_n = (units_n + 1) // 2 * 2
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tick = torch.zeros(1, device="cuda", dtype=torch.int32)
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    kern[(units_m * units_n, 1)](x, w, b, y, part, tick)
    torch.cuda.synchronize()
    ref = x.double() @ w.double().t() + b.double()
    ref = 0.5 * ref * (1 + torch.tanh(0.7978845608028654 *
                                      (ref + 0.044715 * ref ** 3)))
    theirs = torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b),
                                      approximate="tanh")
    close(torch, y, ref, theirs, "float16")


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("shape", [(8, 512, 384, 256), (3, 1000, 136, 72)])
def test_bmm(torch_gpu, monkeypatch, dtype, shape):
    torch = torch_gpu
    if dtype != "float16":
        monkeypatch.setenv("TILEC_AUTOTUNE", "off")
    dt = getattr(torch, dtype)
    batch, m, n, k = shape
    a = torch.randn(batch, m, k, device="cuda", dtype=dt)
    b = torch.randn(batch, k, n, device="cuda", dtype=dt)
    out = torch.full((batch, m, n), float("nan"), device="cuda", dtype=dt)
    got = tilec.ops.bmm(a, b, out=out)
    close(torch, got, a.double() @ b.double(), torch.bmm(a, b), dtype)


@pytest.mark.parametrize("along", ("CLUSTER_M", "CLUSTER_N"))
@pytest.mark.parametrize("shape", [(3, 1000, 136, 72), (2, 300, 520, 200)])
def test_bmm_clusters(torch_gpu, along, shape):
    """bmm.tile persistent in clusters of 2 blocks taking neighbouring tiles
    (tilec.ops.bmm's cluster candidates on sm_90): units past the matrix's
    edges (odd tile counts) load zeros and store nothing."""
    torch = torch_gpu
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("thread block clusters need sm_90")
    batch, m, n, k = shape
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    out = torch.full((batch, m, n), float("nan"), device="cuda",
                     dtype=torch.float16)
    config = tilec.Config(TILE_M=128, TILE_N=128, persistent=True, cluster=2,
                          auto_schedule=True, **{along: 2})
    kern = tilec.compile(tilec.ops._kernel_path("bmm.tile"), DTYPE="f16",
                         **config.constants, **config.options)
    kern.launch(tilec.ops._cluster_grid(m, n, config, 1, batch), a, b, out)
    close(torch, out, a.double() @ b.double(), torch.bmm(a, b), "float16")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1000, 77), (4096, 4096), (33, 1)])
def test_transpose(torch_gpu, dtype, shape):
    torch = torch_gpu
    x = torch.randn(shape, device="cuda", dtype=getattr(torch, dtype))
    out = torch.full(shape[::-1], float("nan"), device="cuda", dtype=x.dtype)
    assert torch.equal(tilec.ops.transpose(x, out=out), x.t())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 1000), (4096, 4096), (3, 50000),
                                   (5, 10000), (3, 10001), (2, 5, 33),
                                   (2, 131077)])
def test_row_reductions(torch_gpu, dtype, shape):
    torch = torch_gpu
    x = torch.randn(shape, device="cuda", dtype=getattr(torch, dtype))
    x64 = x.double()
    close(torch, tilec.ops.sum(x), x64.sum(-1), x.sum(-1), dtype)
    assert torch.equal(tilec.ops.amax(x), x.amax(-1))
    assert torch.equal(tilec.ops.amin(x, dim=-1), x.amin(-1))


def test_library_arguments(torch_gpu):
    torch = torch_gpu
    x = torch.randn(4, 64, device="cuda", dtype=torch.float16)
    w = torch.randn(32, 64, device="cuda", dtype=torch.float16)
    cases = [
        (lambda: tilec.ops.linear(x, w, activation="gelu"), "activation:"),
        (lambda: tilec.ops.linear(x, w.float()),
         "weight: expected (32, 64) of x's dtype float16"),
        (lambda: tilec.ops.linear(x, w[:, :32]), "weight: expected (32, 64)"),
        (lambda: tilec.ops.linear(x, w[:30]), "must be a multiple of 8"),
        (lambda: tilec.ops.linear(x, w, torch.zeros(31, device="cuda",
                                                    dtype=torch.float16)),
         "bias: expected a contiguous (32,)"),
        (lambda: tilec.ops.bmm(x, x), "a: expected a 3-D CUDA tensor"),
        (lambda: tilec.ops.bmm(x[None], x[None]), "b: expected (1, 64, N)"),
        (lambda: tilec.ops.transpose(x[None]), "x: expected a 2-D"),
        (lambda: tilec.ops.sum(x, dim=0), "dim: only the last"),
        (lambda: tilec.ops.amax(x.int()), "x: expected one of"),
    ]
    for call, message in cases:
        with pytest.raises(ArgumentError) as info:
            call()
        assert message in str(info.value), (message, str(info.value))
