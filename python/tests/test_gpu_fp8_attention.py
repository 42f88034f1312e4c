"""tilec.attention on float8_e4m3fn q, k, v (kernels/attention_fp8.tile
through tilec.fp8): per-tensor and per-block descales, grouped-query heads,
any lengths, causal with input_pos, the log-sum-exp, against float64
references of the dequantized inputs on fresh random inputs with poisoned
outputs; tilec.fp8.quantize's accuracy on inputs with outliers
(FlashAttention-3's test); every argument checked. Skipped without
PyTorch, a CUDA GPU or a Hopper GPU."""

import os

import pytest

import tilec

os.environ.setdefault("TILEC_AUTOTUNE", "off")

KERNEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "kernels", "attention_fp8.tile")


def hopper(torch):
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("tilec's 8-bit attention needs sm_90a")


def dequantized(torch, x8, descale, rows):
    """x8 (b, h, n, d) in float64 times its descale: a scalar, a 0-d
    tensor, a per-block (b, h, cdiv(n, 128)) tensor (rows=True) or a
    per-channel (b, h, d) tensor (rows=False)."""
    x = x8.double()
    if not isinstance(descale, torch.Tensor) or descale.dim() == 0:
        return x * float(descale)
    d = descale.double()
    if rows:
        return x * d.repeat_interleave(128, dim=2)[:, :, :x.shape[2], None]
    return x * d[:, :, None, :]


def reference(torch, q, k, v, causal, scale, input_pos=0):
    """softmax(scale q k^T + mask) v and the rows' log-sum-exp, float64,
    K/V heads repeated for the query heads that share them."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    s = (q @ k.transpose(2, 3)) * scale
    if causal:
        i = torch.arange(q.shape[2], device=q.device)[:, None]
        j = torch.arange(k.shape[2], device=q.device)[None, :]
        s = s.masked_fill(j > i + input_pos, float("-inf"))
    return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s, dim=-1)


CASES = [
    # B, H, Hkv, Nq, Nk, D, causal, block descales, out dtype, input_pos
    (2, 4, 4, 256, 256, 128, False, False, "bfloat16", 0),
    (1, 4, 2, 200, 333, 64, True, True, "float16", 133),   # GQA, tails
    (1, 4, 1, 130, 130, 256, False, True, "bfloat16", 0),  # MQA, D=256
    (2, 2, 2, 384, 384, 128, True, True, "float32", 0),
    (1, 2, 2, 64, 1000, 128, True, False, "bfloat16", 936),  # decode-like
    (1, 8, 2, 512, 700, 64, False, True, "bfloat16", 0),
    (1, 2, 1, 300, 200, 256, True, False, "bfloat16", 0),  # more queries
    # D=64 specialized and persistent: one key tile.
    (2, 2, 2, 100, 100, 64, False, False, "bfloat16", 0),
    # D=256 (128 x 128 tiles, three-stage rings): one key tile, and eight.
    (1, 2, 1, 128, 100, 256, False, False, "float16", 0),
    (1, 2, 2, 64, 1000, 256, True, True, "bfloat16", 936),
    # D=128 non-causal (the warpgroups multiplying in turns, fp8._schedule):
    # one key tile, a tail, many tiles with grouped heads.
    (1, 2, 2, 128, 100, 128, False, False, "float16", 0),
    (1, 4, 2, 300, 1000, 128, False, True, "bfloat16", 0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_fp8_attention_api(torch_gpu, case):
    """tilec.attention on 8-bit inputs from tilec.fp8.quantize against the
    float64 attention of the dequantized inputs (P rounded to e4m3 costs
    2-3% of relative error), the log-sum-exp too; the same bits twice."""
    torch = torch_gpu
    hopper(torch)
    B, H, Hkv, Nq, Nk, D, causal, blocks, out_name, pos = case
    torch.manual_seed(Nq * 3 + Nk + D)
    q = torch.randn(B, H, Nq, D, device="cuda") * 2
    k = torch.randn(B, Hkv, Nk, D, device="cuda")
    v = torch.randn(B, Hkv, Nk, D, device="cuda") * 0.5
    q8, k8, v8, dq, dk, dv = tilec.fp8.quantize(
        q, k, v, block=128 if blocks else None)
    if not blocks:  # per tensor, as Python floats
        dq, dk, dv = dq.item(), dk.item(), dv.item()
    out_dtype = getattr(torch, out_name)
    out = torch.full((B, H, Nq, D), float("nan"), device="cuda",
                     dtype=out_dtype)
    scale = 0.7 * D ** -0.5
    got, lse = tilec.attention(q8, k8, v8, causal=causal, scale=scale,
                               input_pos=pos, out=out, descale_q=dq,
                               descale_k=dk, descale_v=dv, return_lse=True)
    torch.cuda.synchronize()
    assert got is out
    ref, ref_lse = reference(
        torch, dequantized(torch, q8, dq, True),
        dequantized(torch, k8, dk, True),
        dequantized(torch, v8, dv, False), causal, scale, pos)
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 4e-2, err
    assert (lse.double() - ref_lse).abs().max().item() < 2e-2
    # Against the unquantized inputs: quantization's error on top.
    ref32, _ = reference(torch, q.double(), k.double(), v.double(), causal,
                         scale, pos)
    assert ((out.double() - ref32).norm() / ref32.norm()).item() < 8e-2
    again = tilec.attention(q8, k8, v8, causal=causal, scale=scale,
                            input_pos=pos, descale_q=dq, descale_k=dk,
                            descale_v=dv, out_dtype=out_dtype)
    torch.cuda.synchronize()
    assert torch.equal(out, again)


CANDIDATE_CASES = [
    # B, H, Hkv, Nq, Nk, D, causal, V copied (fragment order at 128)
    (1, 4, 2, 300, 1000, 128, False, False),   # tails of 160 and 256 keys
    (1, 2, 2, 384, 384, 128, True, True),
    (2, 2, 1, 130, 700, 128, True, False),     # input_pos below
    (1, 4, 4, 200, 333, 128, False, True),
    (1, 2, 1, 256, 512, 128, True, False),
    (1, 2, 2, 128, 100, 128, False, False),    # one partial key tile
]


@pytest.mark.parametrize("case", CANDIDATE_CASES,
                         ids=lambda c: "-".join(map(str, c)))
def test_fp8_attention_every_candidate(torch_gpu, case, monkeypatch):
    """Each schedule tilec.attention tunes 8-bit attention over at head_dim
    128 (fp8._candidates: 128-key tiles at the compiler's choice with and
    without ping_pong and specialized, 256 specialized, and with V copied
    into fragment order 160 keys at the choice), forced in turn, against
    the float64 attention: the tuner may pick any of them."""
    torch = torch_gpu
    hopper(torch)
    B, H, Hkv, Nq, Nk, D, causal, copied = case
    pos = Nk - Nq if causal and Nk > Nq else 0
    torch.manual_seed(Nq + Nk + D)
    q, k, v = (torch.randn(b, h, n, D, device="cuda").to(torch.float8_e4m3fn)
               for b, h, n in ((B, H, Nq), (B, Hkv, Nk), (B, Hkv, Nk)))
    if not copied:  # keys contiguous: read in place
        v = v.transpose(2, 3).contiguous().transpose(2, 3)
    ref, _ = reference(torch, q.double(), k.double(), v.double(), causal,
                       D ** -0.5, pos)
    configs = tilec.fp8._candidates(D, causal, Nk, copied)
    assert len(configs) == (3 + (Nk > 128) * (1 + copied))
    key = tilec.fp8._tuning_key
    for i, config in enumerate(configs):
        monkeypatch.setattr(tilec.fp8, "_candidates",
                            lambda *a, config=config: [config])
        monkeypatch.setattr(tilec.fp8, "_tuning_key",
                            lambda *a, i=i: key(*a) + f":candidate{i}")
        out = torch.full((B, H, Nq, D), float("nan"), device="cuda",
                         dtype=torch.bfloat16)
        tilec.attention(q, k, v, causal=causal, input_pos=pos, out=out)
        torch.cuda.synchronize()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        assert err < 4e-2, (config, err)


def test_fp8_attention_v_copied(torch_gpu):
    """A v held (batch, heads, seq, head_dim) with head_dim contiguous is
    transposed into a copy first (a seq of 77: its rows padded to 16 bytes);
    the result is the same as from the keys-contiguous layout."""
    torch = torch_gpu
    hopper(torch)
    torch.manual_seed(1)
    q, k, v = (torch.randn(1, 2, 77, 64, device="cuda")
               .to(torch.float8_e4m3fn) for _ in range(3))
    a = tilec.attention(q, k, v.contiguous())
    vt = torch.empty(1, 2, 64, 80, device="cuda",
                     dtype=torch.float8_e4m3fn)[..., :77]
    vt.copy_(v.transpose(2, 3))
    b = tilec.attention(q, k, vt.transpose(2, 3))
    torch.cuda.synchronize()
    assert torch.equal(a, b)
    ref, _ = reference(torch, q.double(), k.double(), v.double(), False,
                       64 ** -0.5)
    assert ((a.double() - ref).norm() / ref.norm()).item() < 4e-2


@pytest.mark.parametrize("D,causal", [(64, False), (128, True),
                                      (128, False), (256, False)])
def test_fp8_fragment_order(torch_gpu, D, causal):
    """attention_fp8.tile with FRAGMENT_ORDER (P's 8-bit columns permuted
    in registers, views tile-assign-layouts keeps in place: no shuffles)
    on fragment_order(v) against the same kernel without it on V^T: the
    same products, summed in another order within each multiply; 300 keys
    (the last 32 padded with zeros, masked P)."""
    torch = torch_gpu
    hopper(torch)
    torch.manual_seed(D)
    B, H, N = 1, 2, 300
    q, k, v = (torch.randn(B, H, N, D, device="cuda")
               .to(torch.float8_e4m3fn) for _ in range(3))
    one, one2 = (torch.ones(1, 1, 1, device="cuda"),
                 torch.ones(1, 1, device="cuda"))
    outs = []
    for frag in (False, True):
        kern = tilec.compile(KERNEL, TILE_D=D, CAUSAL=causal, EVEN_N=False,
                             FRAGMENT_ORDER=frag)
        vt = tilec.fp8.fragment_order(v) if frag else \
            v.transpose(2, 3).contiguous()
        if frag:
            # Stored key bits (c4, c2, c1, c3, c0) back to (c4, c3, c2, c1,
            # c0): v's keys, then 20 zeros.
            assert vt.shape == (B, H, D, 320)
            back = vt.float().view(B, H, D, 10, 2, 2, 2, 2, 2) \
                .permute(0, 1, 2, 3, 4, 7, 5, 6, 8).reshape(B, H, D, 320)
            assert torch.equal(back[..., :300],
                               v.transpose(2, 3).float())
            assert not back[..., 300:].any()
        out = torch.full((B, H, N, D), float("nan"), device="cuda",
                         dtype=torch.bfloat16)
        kern[((N + 127) // 128, B * H)](q, k, vt, out, one, one, one, one2,
                                       D ** -0.5, 1.0, 1.0, 1.0, 0)
        outs.append(out.double())
    torch.cuda.synchronize()
    assert not outs[1].isnan().any()
    # The API on a v it must copy: at head_dim 128 into fragment order.
    api = tilec.attention(q, k, v.contiguous(), causal=causal).double()
    assert ((api - outs[0]).norm() / outs[0].norm()).item() < 1e-2
    assert ((outs[1] - outs[0]).norm() / outs[0].norm()).item() < 1e-2
    ref, _ = reference(torch, q.double(), k.double(), v.double(), causal,
                       D ** -0.5)
    assert ((outs[1] - ref).norm() / ref.norm()).item() < 4e-2


def test_fp8_attention_extremes_are_finite(torch_gpu):
    """Inputs at e4m3's largest magnitude (scores of about 2e6 before the
    softmax) give a finite output, causal and not."""
    torch = torch_gpu
    hopper(torch)
    torch.manual_seed(2)
    q, k, v = ((torch.randint(0, 2, (1, 2, 256, 128), device="cuda") * 2 - 1)
               .float().mul(448).to(torch.float8_e4m3fn) for _ in range(3))
    for causal in (False, True):
        out = tilec.attention(q, k, v, causal=causal)
        torch.cuda.synchronize()
        assert torch.isfinite(out.float()).all()
        ref, _ = reference(torch, q.double(), k.double(), v.double(), causal,
                           128 ** -0.5)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 4e-2


def rmse(torch, q, k, v, quantize_args, causal=False):
    """The output's root-mean-square error against float64 attention of
    the unquantized inputs."""
    q8, k8, v8, dq, dk, dv = tilec.fp8.quantize(q, k, v, **quantize_args)
    out = tilec.attention(q8, k8, v8, causal=causal, descale_q=dq,
                          descale_k=dk, descale_v=dv)
    ref, _ = reference(torch, q.double(), k.double(), v.double(), causal,
                       q.shape[3] ** -0.5)
    return (out.double() - ref).pow(2).mean().sqrt().item()


def outliers(torch, shape, generator):
    """N(0, 1) with 0.1% of the entries from N(0, 100) (FlashAttention-3's
    accuracy test)."""
    x = torch.randn(shape, device="cuda", generator=generator)
    big = torch.rand(shape, device="cuda", generator=generator) < 1e-3
    return torch.where(big, x * 10, x)


def test_fp8_quantize_outliers(torch_gpu):
    """With outliers, block scales and the Hadamard rotation keep the RMSE
    at FlashAttention-3's figure or below (9.1e-3; per-tensor scales: its
    2.4e-2), and each step helps."""
    torch = torch_gpu
    hopper(torch)
    g = torch.Generator(device="cuda").manual_seed(3)
    q, k, v = (outliers(torch, (2, 8, 1024, 128), g) for _ in range(3))
    per_tensor = rmse(torch, q, k, v, {"block": None})
    per_block = rmse(torch, q, k, v, {})
    rotated = rmse(torch, q, k, v, {"hadamard": True, "generator": g})
    assert rotated <= 9.1e-3, (per_tensor, per_block, rotated)
    assert rotated < per_block < per_tensor, (per_tensor, per_block, rotated)


def test_fp8_attention_arguments(torch_gpu):
    """Each bad argument raises ArgumentError naming it."""
    torch = torch_gpu
    f8 = torch.float8_e4m3fn
    q = torch.zeros(1, 4, 64, 128, device="cuda").to(f8)
    k = torch.zeros(1, 2, 64, 128, device="cuda").to(f8)
    cases = [
        ((q, k.half(), k), {}, "k: expected float8_e4m3fn"),
        ((q, k, k[:, :, :32]), {}, "v: expected k's shape"),
        ((q, k[:, :, :, :64], k[:, :, :, :64]), {}, r"k: expected \(1,"),
        ((q[:, :3], k, k), {}, "k: its 2 heads must divide q's 3"),
        ((q[..., :96], k[..., :96], k[..., :96]), {}, "head_dim 96"),
        ((q, k, k), {"descale_q": -1.0}, "descale_q: expected a positive"),
        ((q, k, k), {"descale_k": torch.ones(3, device="cuda")},
         "descale_k: shape"),
        ((q, k, k), {"descale_v": torch.ones(1, dtype=torch.float64,
                                             device="cuda")},
         "descale_v: expected a float"),
        ((q, k, k), {"out_dtype": torch.int8}, "out_dtype"),
        ((q, k, k), {"out": torch.empty(1, 4, 64, 64, device="cuda")},
         "out: expected"),
        ((q, k, k), {"input_pos": -1}, "input_pos"),
        ((q, k, k), {"deterministic": True}, "deterministic"),
        ((q.half(), k.half(), k.half()), {"descale_q": 2.0},
         "descale_q: only for float8"),
        ((q.half(), k.half(), k.half()), {"return_lse": True}, "return_lse"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(tilec.ArgumentError, match=message):
            tilec.attention(*args, **kwargs)
    with pytest.raises(tilec.ArgumentError, match="hadamard: head_dim 96"):
        x = torch.zeros(1, 1, 8, 96, device="cuda")
        tilec.fp8.quantize(x, x, x, hadamard=True)
    with pytest.raises(tilec.ArgumentError, match="block"):
        x = torch.zeros(1, 1, 8, 64, device="cuda")
        tilec.fp8.quantize(x, x, x, block=64)
