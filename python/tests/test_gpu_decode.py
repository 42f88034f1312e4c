"""tilec.attention_with_kvcache (kernels/flash_decoding.tile, split-KV with
a combine) on a GPU against float64, on fresh random inputs with a poisoned
output: sequence lengths 0, 1, a tile +- 1 and long in one batch, GQA and
MHA, head dims 128 and 96 (held padded), the split count chosen and
forced, lengths past the cache; and its argument errors. Skipped without
PyTorch and a CUDA GPU."""

import math

import pytest

import tilec


def reference(torch, q, k, v, lens, scale):
    B, _, H, D = q.shape
    Hkv = k.shape[2]
    out = torch.zeros(B, 1, H, D, dtype=torch.float64, device=q.device)
    for b in range(B):
        n = min(int(lens[b]), k.shape[1])
        if n == 0:
            continue
        kk = k[b, :n].double().repeat_interleave(H // Hkv, dim=1)  # n, H, D
        vv = v[b, :n].double().repeat_interleave(H // Hkv, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b, 0].double(), kk) * scale
        out[b, 0] = torch.einsum("hn,nhd->hd", torch.softmax(s, -1), vv)
    return out


CASES = [
    # B, H, Hkv, N, D, dtype, lengths, splits
    (6, 32, 8, 4200, 128, "bfloat16", [0, 1, 63, 64, 65, 4200], 0),
    (2, 8, 8, 1000, 128, "float16", [1000, 777], 0),
    (3, 64, 8, 2048, 96, "bfloat16", [2048, 5, 1500], 3),
    (1, 16, 2, 9000, 128, "float16", [9000], 0),
    (2, 32, 8, 700, 128, "float16", [700, 5000], 7),  # 5000 > cache: 700
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(
    str(x) for x in c[:6]))
def test_decode_matches_float64(torch_gpu, case):
    torch = torch_gpu
    B, H, Hkv, N, D, dtype, lengths, splits = case
    torch.manual_seed(B * N + D)
    dt = getattr(torch, dtype)
    q = torch.randn(B, 1, H, D, device="cuda", dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    out = torch.full_like(q, float("nan"))
    got = tilec.attention_with_kvcache(q, k, v, lens, num_splits=splits,
                                       out=out)
    assert got is out
    torch.cuda.synchronize()
    ref = reference(torch, q, k, v, lengths, 1 / math.sqrt(D))
    assert torch.isfinite(out).all()
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < (1e-2 if dtype == "bfloat16" else 2e-3), err
    for b, n in enumerate(lengths):
        if n == 0:
            assert (out[b] == 0).all()


def test_decode_argument_errors(torch_gpu):
    torch = torch_gpu
    q = torch.randn(1, 1, 8, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(1, 64, 2, 128, device="cuda", dtype=torch.float16)
    lens = torch.tensor([64], device="cuda", dtype=torch.int32)
    with pytest.raises(tilec.ArgumentError, match="block_table"):
        tilec.attention_with_kvcache(q, k, k, lens, block_table=lens)
    with pytest.raises(tilec.ArgumentError, match="cache_seqlens"):
        tilec.attention_with_kvcache(q, k, k, lens.long())
    with pytest.raises(tilec.ArgumentError, match="heads"):
        tilec.attention_with_kvcache(q[:, :, :7], k, k, lens)
    with pytest.raises(tilec.ArgumentError, match="query tokens"):
        tilec.attention_with_kvcache(q.expand(1, 2, 8, 128), k, k, lens)
    with pytest.raises(tilec.ArgumentError, match="k_cache, v_cache"):
        tilec.attention_with_kvcache(q, k.bfloat16(), k, lens)
