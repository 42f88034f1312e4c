"""kernels/attention_lse.tile on a GPU, on sm_90a and sm_80: the plain
FlashAttention-2 forward with a log-sum-exp output, compiled by
tilec.compile with no options (only its constants: the compiler's own
schedule), against a float64 reference on fresh random inputs with
poisoned outputs (Out and Lse filled with NaN first): head dims 64 and 128,
causal and not, one and several key tiles (seq 128 and 384; causal with the
diagonal inside a tile and on a tile boundary), each TILE_M x TILE_N in
64/128, a head count that is not a power of two. Skipped without PyTorch
and a CUDA GPU."""

import math
import os

import pytest

import tilec
from conftest import skip_unless_arch

os.environ.setdefault("TILEC_AUTOTUNE", "off")

ARCHS = ["sm_90a", "sm_80"]

# Relative (Frobenius) error of Out, as tests/test_gpu.py's attention tests.
TOL = {"f16": 4e-3, "bf16": 2.5e-2}
# Max absolute error of Lse (natural log). The kernel computes it in f32
# from the same f16/bf16 inputs as the reference, so only f32 rounding and
# the approximate ex2/lg2 (docs/language.md, Math) separate them.
LSE_TOL = 1e-3


def reference(torch, q, k, v, causal, scale):
    """float64 softmax attention and the natural-log log-sum-exp of each
    query row's scaled (and masked) scores."""
    q64, k64, v64 = q.double(), k.double(), v.double()
    s = torch.matmul(q64, k64.transpose(-1, -2)) * scale
    if causal:
        n = q.shape[2]
        above = torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1)
        s = s.masked_fill(above, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    out = torch.matmul(torch.softmax(s, dim=-1), v64)
    return out, lse


def rel_err(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


TILES = [(64, 64), (128, 128), (128, 64), (64, 128)]

CASES = [
    # D, causal, seq, TILE_M, TILE_N
    (d, causal, seq, tm, tn)
    for d in (64, 128)
    for causal in (False, True)
    for seq in (128, 384)
    for tm, tn in TILES
]


def case_id(c):
    d, causal, seq, tm, tn = c
    return f"D{d}-{'causal' if causal else 'full'}-S{seq}-{tm}x{tn}"


def run_case(torch, repo, arch, D, causal, S, TM, TN, dtype="f16", B=2,
             H=3):
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    torch.manual_seed(D * 1000 + S * 10 + TM + TN // 64 + int(causal))
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=dt)
               for _ in range(3))
    out = torch.full_like(q, float("nan"))                # poisoned
    lse = torch.full((B, H, S), float("nan"), device="cuda",
                     dtype=torch.float32)
    kernel = tilec.compile(os.path.join(repo, "kernels", "attention_lse.tile"),
                           arch=arch, DTYPE=dtype, TILE_D=D, TILE_M=TM,
                           TILE_N=TN, CAUSAL=causal)
    scale = 1 / math.sqrt(D)
    grid = ((S + TM - 1) // TM, B * H, 1)
    kernel[grid](q, k, v, out, lse, scale)
    torch.cuda.synchronize()

    ref_out, ref_lse = reference(torch, q, k, v, causal, scale)
    assert torch.isfinite(out).all(), "Out not all written (or not finite)"
    assert torch.isfinite(lse).all(), "Lse not all written (or not finite)"
    err = rel_err(out, ref_out)
    assert err < TOL[dtype], f"Out rel_err {err:.3e}"
    lse_err = (lse.double() - ref_lse).abs().max().item()
    assert lse_err < LSE_TOL, f"Lse max abs err {lse_err:.3e}"

    # The same again: a result that changes between runs is a race.
    out2 = torch.full_like(q, float("nan"))
    lse2 = torch.full_like(lse, float("nan"))
    kernel[grid](q, k, v, out2, lse2, scale)
    torch.cuda.synchronize()
    assert torch.equal(out, out2)
    assert torch.equal(lse, lse2)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_attention_lse_matches_float64(torch_gpu, repo, arch, case):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    D, causal, S, TM, TN = case
    run_case(torch, repo, arch, D, causal, S, TM, TN)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("causal", [False, True])
def test_attention_lse_bf16(torch_gpu, repo, arch, causal):
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    run_case(torch, repo, arch, 128, causal, 256, 64, 64, dtype="bf16",
             B=1, H=2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("S,B,H", [(256, 2, 3), (1024, 4, 9), (2048, 2, 40)])
def test_attention_lse_persistent_choice(torch_gpu, repo, causal, S, B, H):
    """128 x 128 tiles at D = 128 on sm_90a: the compiler's choice is a
    warp-specialized persistent kernel (Q's slot refilled after its last
    read): two key tiles a block, and grids of 288 and 640 tiles, more than
    the multiprocessors, so that blocks loop over several tiles (each run
    twice, bit for bit)."""
    torch = torch_gpu
    skip_unless_arch(torch, "sm_90a")
    run_case(torch, repo, "sm_90a", 128, causal, S, 128, 128, B=B, H=H)


MERGE_CASES = [
    # D, TILE_M, TILE_N, seq_q, keys of the first part, of the second
    (64, 64, 64, 192, 128, 192),
    (128, 128, 128, 200, 256, 72),
    (128, 64, 64, 128, 40, 300),
]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", MERGE_CASES,
                         ids=lambda c: "-".join(map(str, c)))
def test_attention_lse_merge(torch_gpu, repo, arch, case):
    """OUT_DTYPE=f32 and MERGE (ring attention's steps): the queries against
    the first part of the keys, written unrounded, then against the second
    part merged into it, against float64 attention over all the keys; the
    rows of a view (a slice of the sequence) written in place."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    D, TM, TN, S, n1, n2 = case
    torch.manual_seed(S + n1 + n2)
    B, H = 2, 3
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, 1, n1 + n2, D, device="cuda",
                        dtype=torch.bfloat16) for _ in range(2))
    # The output rows [8, 8 + S) of a longer buffer, poisoned around.
    out = torch.full((B, H, S + 16, D), float("nan"), device="cuda")
    lse = torch.full((B, H, S + 16), float("nan"), device="cuda")
    scale = 1 / math.sqrt(D)
    path = os.path.join(repo, "kernels", "attention_lse.tile")
    for part, (k0, k1) in enumerate(((0, n1), (n1, n1 + n2))):
        kernel = tilec.compile(path, arch=arch, DTYPE="bf16", TILE_D=D,
                               TILE_M=TM, TILE_N=TN,
                               EVEN_N=(k1 - k0) % TN == 0, OUT_DTYPE="f32",
                               MERGE=part == 1)
        kernel[((S + TM - 1) // TM, B * H)](
            q, k[:, :, k0:k1], v[:, :, k0:k1], out[:, :, 8:8 + S],
            lse[:, :, 8:8 + S], scale)
    torch.cuda.synchronize()
    ref_out, ref_lse = reference(torch, q, k.expand(B, H, -1, -1),
                                 v.expand(B, H, -1, -1), False, scale)
    assert torch.isnan(out[:, :, :8]).all() and \
        torch.isnan(out[:, :, 8 + S:]).all(), "wrote outside the view"
    got = out[:, :, 8:8 + S]
    assert torch.isfinite(got).all()
    # f32 output: only the bf16 P V products round.
    err = rel_err(got, ref_out)
    assert err < 1e-2, f"Out rel_err {err:.3e}"
    lse_err = (lse[:, :, 8:8 + S].double() - ref_lse).abs().max().item()
    assert lse_err < LSE_TOL, f"Lse max abs err {lse_err:.3e}"


def native_registers(torch, arch, tiles):
    """Whether the driver's count of a kernel's local memory at load is that
    of ptxas for `arch`: sm_80 PTX on a newer GPU is compiled for that GPU,
    whose allocation at 255 registers differs (attention_rope at 128 x 128
    on an H200: 8 bytes; none by ptxas -arch=sm_80, which
    test/Target/ptxas-spills.test checks)."""
    return arch != "sm_80" or tiles != (128, 128) or \
        torch.cuda.get_device_capability() == (8, 0)


@pytest.mark.parametrize("arch,tiles", [("sm_90a", (128, 128)),
                                        ("sm_80", (128, 64)),
                                        ("sm_80", (128, 128))])
@pytest.mark.parametrize("trips", [1, 2, 5])
def test_attention_rope_two_part_scores(torch_gpu, repo, arch, tiles,
                                        trips):
    """kernels/attention_rope.tile (scores in two parts, MLA's latent and
    rotary dimensions), compiled with no options: on sm_90a the compiler
    takes its two score multiplies as one accumulator chain (rotated,
    persistent, specialized); against float64 attention over the joined
    dimensions, one, two and five key tiles, outputs poisoned first, more
    query tiles than one."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    TM, TN = tiles
    D, DR, BH, NQ = 128, 64, 3, 2 * TM
    NK = trips * TN
    torch.manual_seed(trips)
    q, k = (torch.randn(BH, n, D, device="cuda", dtype=torch.float16)
            for n in (NQ, NK))
    qr, kr = (torch.randn(BH, n, DR, device="cuda", dtype=torch.float16)
              for n in (NQ, NK))
    v = torch.randn(BH, NK, D, device="cuda", dtype=torch.float16)
    out = torch.full((BH, NQ, D), float("nan"), device="cuda",
                     dtype=torch.float16)
    scale = 1 / math.sqrt(D + DR)
    kernel = tilec.compile(os.path.join(repo, "kernels", "attention_rope.tile"),
                           arch=arch, TILE_M=TM, TILE_N=TN)
    if native_registers(torch, arch, tiles):
        assert not kernel.warnings, kernel.warnings
    kernel[(NQ // TM, BH)](q, qr, k, kr, v, out, scale)
    torch.cuda.synchronize()
    s = (torch.cat([q, qr], -1).double() @
         torch.cat([k, kr], -1).double().transpose(1, 2)) * scale
    ref = torch.softmax(s, dim=-1) @ v.double()
    assert torch.isfinite(out).all()
    err = rel_err(out, ref)
    assert err < TOL["f16"], f"rel_err {err:.3e}"


@pytest.mark.parametrize("arch,tiles,bias_dtype", [
    ("sm_90a", (128, 128), "f16"), ("sm_90a", (128, 64), "f16"),
    ("sm_90a", (128, 64), "f32"), ("sm_80", (128, 64), "f16"),
    ("sm_80", (128, 128), "f16")])
@pytest.mark.parametrize("trips", [1, 2, 5])
def test_attention_bias(torch_gpu, repo, arch, tiles, bias_dtype, trips):
    """kernels/attention_bias.tile (an additive bias tile on the scores),
    compiled with no options: the bias copied into a ring and read in the
    scores' layout (tile-stage-converted-loads through the load's
    reshape); where that leaves the compiler's persistent choice too big
    for shared memory it compiles without it (the f32 bias). On sm_80 at
    128 x 128 the Q slices are read in each trip (held in registers they
    made ptxas spill: tile-reread-invariant-operands), and the kernel loads
    without a warning. Against float64, one, two and five key tiles,
    outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    TM, TN = tiles
    D, BH, NQ = 128, 3, 2 * TM
    NK = trips * TN
    torch.manual_seed(trips + TN)
    q = torch.randn(BH, NQ, D, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(BH, NK, D, device="cuda", dtype=torch.float16)
            for _ in range(2))
    bias = torch.randn(BH, NQ, NK, device="cuda",
                       dtype=getattr(torch, {"f16": "float16",
                                             "f32": "float32"}[bias_dtype]))
    out = torch.full((BH, NQ, D), float("nan"), device="cuda",
                     dtype=torch.float16)
    scale = 1 / math.sqrt(D)
    kernel = tilec.compile(os.path.join(repo, "kernels", "attention_bias.tile"),
                           arch=arch, TILE_M=TM, TILE_N=TN,
                           BIAS_DTYPE=bias_dtype)
    if native_registers(torch, arch, tiles):
        assert not kernel.warnings, kernel.warnings
    kernel[(NQ // TM, BH)](q, k, v, bias, out, scale)
    torch.cuda.synchronize()
    s = q.double() @ k.double().transpose(1, 2) * scale + bias.double()
    ref = torch.softmax(s, dim=-1) @ v.double()
    assert torch.isfinite(out).all()
    err = rel_err(out, ref)
    assert err < TOL["f16"], f"rel_err {err:.3e}"


@pytest.mark.parametrize("arch,tiles", [("sm_90a", (128, 128)),
                                        ("sm_80", (128, 64)),
                                        ("sm_80", (128, 128))])
@pytest.mark.parametrize("nq,window", [(256, 1), (256, 128), (512, 200),
                                       (1024, 300), (640, 1000)])
def test_attention_window(torch_gpu, repo, arch, tiles, nq, window):
    """kernels/attention_window.tile (causal over a sliding window, the mask
    on every trip), compiled with no options: its consumer loop split where
    the mask keeps whole key tiles (tile-mask-ranges, tile-loop-split);
    windows of one key, less than a tile, a few tiles and more than the
    sequence; against float64, outputs poisoned first."""
    torch = torch_gpu
    skip_unless_arch(torch, arch)
    TM, TN = tiles
    D, BH = 128, 3
    torch.manual_seed(nq + window)
    q, k, v = (torch.randn(BH, nq, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    out = torch.full_like(q, float("nan"))
    scale = 1 / math.sqrt(D)
    kernel = tilec.compile(
        os.path.join(repo, "kernels", "attention_window.tile"), arch=arch,
        TILE_M=TM, TILE_N=TN)
    kernel[(nq // TM, BH)](q, k, v, out, scale, window)
    torch.cuda.synchronize()
    i = torch.arange(nq, device="cuda")
    seen = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)
    s = (q.double() @ k.double().transpose(1, 2)) * scale
    ref = torch.softmax(s.masked_fill(~seen, float("-inf")), -1) @ v.double()
    assert torch.isfinite(out).all()
    err = rel_err(out, ref)
    assert err < TOL["f16"], f"rel_err {err:.3e}"
