"""tilec.attention_with_kvcache (kernels/flash_decoding.tile, split-KV, the
last split in merging the splits in the same launch) on a GPU against float64, on fresh random inputs with a poisoned
output: sequence lengths 0, 1, a tile +- 1 and long in one batch, GQA and
MHA, head dims 128 and 96 (held padded), the split count chosen and
forced, lengths past the cache; paged caches of 8, 16 and 32 keys a page
(several pages gathered into each key tile) and of 64 and 256, through a
random block table (pages past a length poisoned with NaN); and
its argument errors. Skipped without
PyTorch and a CUDA GPU."""

import math

import pytest

import tilec


def reference(torch, q, k, v, lens, scale, causal=False):
    """float64 attention of each sequence's query tokens (the last of the
    sequence) over its first lens[b] keys; causal: token t of T sees the
    keys before n - T + 1 + t (none: zeros)."""
    B, T, H, D = q.shape
    Hkv = k.shape[2]
    out = torch.zeros(B, T, H, D, dtype=torch.float64, device=q.device)
    for b in range(B):
        n = min(int(lens[b]), k.shape[1])
        kk = k[b, :n].double().repeat_interleave(H // Hkv, dim=1)  # n, H, D
        vv = v[b, :n].double().repeat_interleave(H // Hkv, dim=1)
        for t in range(T):
            end = max(0, min(n, n - T + 1 + t)) if causal else n
            if end == 0:
                continue
            s = torch.einsum("hd,nhd->hn", q[b, t].double(), kk[:end]) * scale
            out[b, t] = torch.einsum("hn,nhd->hd", torch.softmax(s, -1),
                                     vv[:end])
    return out


CASES = [
    # B, H, Hkv, N, D, dtype, lengths, splits
    (6, 32, 8, 4200, 128, "bfloat16", [0, 1, 63, 64, 65, 4200], 0),
    (2, 8, 8, 1000, 128, "float16", [1000, 777], 0),
    (3, 64, 8, 2048, 96, "bfloat16", [2048, 5, 1500], 3),
    (1, 16, 2, 9000, 128, "float16", [9000], 0),
    (2, 32, 8, 700, 128, "float16", [700, 5000], 7),  # 5000 > cache: 700
    # Merges of several trips: 4 query rows, 32 partials a trip (D = 64),
    # 40 splits; one row, 32 a trip (D = 256), 50 splits.
    (1, 32, 8, 8192, 64, "bfloat16", [8000], 40),
    (2, 16, 16, 3200, 256, "float16", [3200, 1234], 50),
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


def test_decode_tickets_back_at_zero(torch_gpu):
    """The last split of each (sequence, KV head) merges the splits and sets
    its ticket back to zero (the Python layer keeps them per device and
    stream, libtile's tickets option): launch after launch on the same
    tickets, with split counts that change between calls (1, 5, 64: more
    splits than key tiles for the short sequence), every result right and
    every ticket zero after each."""
    torch = torch_gpu
    torch.manual_seed(3)
    B, H, Hkv, N, D = 3, 16, 4, 3000, 128
    q = torch.randn(B, 1, H, D, device="cuda", dtype=torch.float16)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=torch.float16)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=torch.float16)
    lengths = [3000, 70, 1]
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    ref = reference(torch, q, k, v, lengths, 1 / math.sqrt(D))
    for splits in (1, 5, 64, 5):
        out = torch.full_like(q, float("nan"))
        tilec.attention_with_kvcache(q, k, v, lens, num_splits=splits,
                                     out=out)
        torch.cuda.synchronize()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (splits, err)
        for tickets in tilec._kernels._tickets.values():
            assert int(tickets.abs().sum()) == 0, splits


def paged_copy(torch, k, v, page, lengths, spare=3):
    """k, v (B, N, Hkv, D) as pages of a cache scattered by a random block
    table; the pages past each length (and the spare ones) NaN."""
    B, N, Hkv, D = k.shape
    max_pages = N // page
    table = torch.randperm(B * max_pages + spare, device="cuda")
    table = table[:B * max_pages].to(torch.int32).view(B, max_pages)
    kc = torch.full((B * max_pages + spare, page, Hkv, D), float("nan"),
                    device="cuda", dtype=k.dtype)
    vc = kc.clone()
    kc[table.flatten().long()] = k.reshape(B * max_pages, page, Hkv, D)
    vc[table.flatten().long()] = v.reshape(B * max_pages, page, Hkv, D)
    for b, n in enumerate(lengths):  # keys past a length are never read
        kc[table[b, (n + page - 1) // page:].long()] = float("nan")
    return kc, vc, table


@pytest.mark.parametrize("page", [0, 16, 64])
@pytest.mark.parametrize("planned", ["exact", "shorter", "longer"])
def test_decode_plan_matches_float64(torch_gpu, page, planned):
    """A skewed batch (one long sequence among short and empty ones)
    through a decode plan: each sequence cut by its own length, the long
    one over many blocks, short ones in one block writing their output
    directly; a plan made from other lengths (shorter: the last split takes
    the rest; longer: splits past the end are empty) still right, twice
    (the plan's table built, then reused)."""
    torch = torch_gpu
    torch.manual_seed(11 + page)
    B, H, Hkv, N, D = 8, 32, 8, 20480, 128
    lengths = [20000, 1, 0, 65, 700, 3000, 64, 127]
    dt = torch.bfloat16
    q = torch.randn(B, 1, H, D, device="cuda", dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    plan = tilec.decode_plan(
        lens if planned == "exact" else
        [n // 3 for n in lengths] if planned == "shorter" else
        [min(N, 2 * n + 100) for n in lengths])
    table = None
    kc, vc = k, v
    if page:
        kc, vc, table = paged_copy(torch, k, v, page, lengths)
    ref = reference(torch, q, k, v, lengths, 1 / math.sqrt(D))
    for _ in range(2):  # the plan's table built, then reused
        out = torch.full_like(q, float("nan"))
        tilec.attention_with_kvcache(q, kc, vc, lens, block_table=table,
                                     out=out, plan=plan)
        torch.cuda.synchronize()
        assert torch.isfinite(out).all()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err
        assert (out[2] == 0).all()
    with pytest.raises(tilec.ArgumentError, match="plan: made for a batch "
                       "of 3 sequences, q has 8"):
        tilec.attention_with_kvcache(q, kc, vc, lens, block_table=table,
                                     plan=tilec.decode_plan([1, 2, 3]))


@pytest.mark.parametrize("planned", [False, True])
def test_decode_in_a_cuda_graph(torch_gpu, planned):
    """A problem class called once, then captured in a CUDA graph on
    PyTorch's capture stream (its workspace and the merge's tickets new
    there) and replayed on new inputs: right each time, against float64."""
    torch = torch_gpu
    torch.manual_seed(21 + planned)
    B, H, Hkv, N, D = 3, 24, 6, 5000, 128  # a class no other test uses
    lengths = [5000, 17, 2100]
    q, k, v = (torch.randn(B, n, h, D, device="cuda", dtype=torch.float16)
               for n, h in ((1, H), (N, Hkv), (N, Hkv)))
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    plan = tilec.decode_plan(lengths) if planned else None
    out = torch.full_like(q, float("nan"))
    tilec.attention_with_kvcache(q, k, v, lens, out=out, plan=plan)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tilec.attention_with_kvcache(q, k, v, lens, out=out, plan=plan)
    for _ in range(2):
        q.copy_(torch.randn_like(q))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ref = reference(torch, q, k, v, lengths, 1 / math.sqrt(D))
        err = ((out.double() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, err


@pytest.mark.parametrize("page", [8, 16, 32, 64, 256])
def test_paged_decode_matches_float64(torch_gpu, page):
    """The same caches in pages, scattered by a random block table."""
    torch = torch_gpu
    torch.manual_seed(page)
    B, H, Hkv, D = 4, 32, 8, 128
    lengths = [0, 1, page + 1, 3 * page + 5]
    max_pages = 4
    N = max_pages * page
    dt = torch.bfloat16
    q = torch.randn(B, 1, H, D, device="cuda", dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    table = torch.randperm(B * max_pages + 3, device="cuda")[:B * max_pages]
    table = table.to(torch.int32).view(B, max_pages)
    kc = torch.full((B * max_pages + 3, page, Hkv, D), float("nan"),
                    device="cuda", dtype=dt)
    vc = kc.clone()
    for b in range(B):
        for j in range(max_pages):
            kc[table[b, j]] = k[b, j * page:(j + 1) * page]
            vc[table[b, j]] = v[b, j * page:(j + 1) * page]
    for b, n in enumerate(lengths):  # keys past a length are never read
        kc[table[b, (n + page - 1) // page:]] = float("nan")
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    out = torch.full_like(q, float("nan"))
    tilec.attention_with_kvcache(q, kc, vc, lens, block_table=table, out=out)
    torch.cuda.synchronize()
    ref = reference(torch, q, k, v, lengths, 1 / math.sqrt(D))
    assert torch.isfinite(out).all()
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err


@pytest.mark.parametrize("page", [0, 64])
def test_decode_appends_new_token(torch_gpu, page):
    """k_new/v_new written at each length, attended with the rest."""
    torch = torch_gpu
    torch.manual_seed(7 + page)
    B, H, Hkv, D, N = 3, 16, 4, 128, 256
    dt = torch.float16
    q = torch.randn(B, 1, H, D, device="cuda", dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    kn = torch.randn(B, 1, Hkv, D, device="cuda", dtype=dt)
    vn = torch.randn(B, 1, Hkv, D, device="cuda", dtype=dt)
    lengths = [0, 100, 255]
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    kref, vref = k.clone(), v.clone()
    for b, n in enumerate(lengths):
        kref[b, n], vref[b, n] = kn[b, 0], vn[b, 0]
    if page:
        pages = N // page
        table = torch.arange(B * pages, device="cuda", dtype=torch.int32)
        table = table.flip(0).view(B, pages).contiguous()
        kc = torch.empty(B * pages, page, Hkv, D, device="cuda", dtype=dt)
        vc = torch.empty_like(kc)
        kc[table.view(-1).long()] = k.reshape(B * pages, page, Hkv, D)
        vc[table.view(-1).long()] = v.reshape(B * pages, page, Hkv, D)
        out = tilec.attention_with_kvcache(q, kc, vc, lens, block_table=table,
                                           k_new=kn, v_new=vn)
        got_k = kc[table.view(-1).long()].reshape(B, N, Hkv, D)
    else:
        out = tilec.attention_with_kvcache(q, k, v, lens, k_new=kn, v_new=vn)
        got_k = k
    torch.cuda.synchronize()
    assert torch.equal(got_k, kref)
    assert lens.tolist() == lengths  # not updated
    ref = reference(torch, q, kref, vref, [n + 1 for n in lengths],
                    1 / math.sqrt(D))
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, err


@pytest.mark.parametrize("tokens,heads,causal,page", [
    (2, 32, True, 0), (4, 32, True, 16), (3, 32, False, 0),
    (6, 64, True, 64), (16, 64, True, 0)])
def test_decode_several_tokens(torch_gpu, tokens, heads, causal, page):
    """Speculative or chunked decode: several query tokens per sequence,
    the last of it, packed with the query heads into the multiply's rows
    (tokens x heads / 8 of 8 KV heads: 8 to 128 rows), causal or not, with
    new keys appended for them, against float64."""
    torch = torch_gpu
    torch.manual_seed(tokens * 100 + heads)
    B, Hkv, D, N = 4, 8, 128, 512
    dt = torch.bfloat16
    q = torch.randn(B, tokens, heads, D, device="cuda", dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    kn = torch.randn(B, tokens, Hkv, D, device="cuda", dtype=dt)
    vn = torch.randn(B, tokens, Hkv, D, device="cuda", dtype=dt)
    lengths = [0, 1, 300, N - tokens]
    lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
    kref, vref = k.clone(), v.clone()
    for b, n in enumerate(lengths):
        kref[b, n:n + tokens], vref[b, n:n + tokens] = kn[b], vn[b]
    out = torch.full_like(q, float("nan"))
    if page:
        pages = N // page
        table = torch.randperm(B * pages, device="cuda").to(torch.int32)
        table = table.view(B, pages).contiguous()
        kc = torch.full((B * pages, page, Hkv, D), float("nan"),
                        device="cuda", dtype=dt)
        vc = torch.full_like(kc, float("nan"))
        kc[table.view(-1).long()] = k.reshape(B * pages, page, Hkv, D)
        vc[table.view(-1).long()] = v.reshape(B * pages, page, Hkv, D)
        tilec.attention_with_kvcache(q, kc, vc, lens, block_table=table,
                                     causal=causal, k_new=kn, v_new=vn,
                                     out=out)
    else:
        tilec.attention_with_kvcache(q, k, v, lens, causal=causal, k_new=kn,
                                     v_new=vn, out=out)
    torch.cuda.synchronize()
    ref = reference(torch, q, kref, vref, [n + tokens for n in lengths],
                    1 / math.sqrt(D), causal)
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err


def test_decode_checked_block_table(torch_gpu):
    """check_block_table=True: a page number out of range among the pages
    a sequence's keys fill is an ArgumentError naming the entry; entries
    past a sequence's pages are not looked at."""
    torch = torch_gpu
    B, H, Hkv, D, page = 2, 8, 2, 128, 16
    q = torch.randn(B, 1, H, D, device="cuda", dtype=torch.float16)
    kc = torch.randn(8, page, Hkv, D, device="cuda", dtype=torch.float16)
    lens = torch.tensor([20, 16], device="cuda", dtype=torch.int32)
    table = torch.tensor([[3, 5, -1, 99], [0, 8, 8, 8]], device="cuda",
                         dtype=torch.int32)
    out = tilec.attention_with_kvcache(q, kc, kc, lens, block_table=table,
                                       check_block_table=True)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    with pytest.raises(tilec.ArgumentError,
                       match=r"block_table\[1, 1\] = 8 is not a page"):
        tilec.attention_with_kvcache(q, kc, kc, lens + 1, block_table=table,
                                     check_block_table=True)
    # One new token per sequence moves the pages looked at by one key.
    kn = torch.randn(B, 1, Hkv, D, device="cuda", dtype=torch.float16)
    with pytest.raises(tilec.ArgumentError, match=r"block_table\[1, 1\]"):
        tilec.attention_with_kvcache(q, kc, kc, lens, block_table=table,
                                     k_new=kn, v_new=kn,
                                     check_block_table=True)


def test_decode_argument_errors(torch_gpu):
    torch = torch_gpu
    q = torch.randn(1, 1, 8, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(1, 64, 2, 128, device="cuda", dtype=torch.float16)
    lens = torch.tensor([64], device="cuda", dtype=torch.int32)
    with pytest.raises(tilec.ArgumentError, match="block_table"):
        tilec.attention_with_kvcache(q, k, k, lens, block_table=lens)
    with pytest.raises(tilec.ArgumentError, match="page size 24"):
        tilec.attention_with_kvcache(q, k[:, :24], k[:, :24], lens,
                                     block_table=lens.view(1, 1))
    with pytest.raises(tilec.ArgumentError, match="must follow each other"):
        tilec.attention_with_kvcache(q, k[:, :16], k[:, :16], lens,
                                     block_table=lens.view(1, 1))
    with pytest.raises(tilec.ArgumentError, match="k_new, v_new: give"):
        tilec.attention_with_kvcache(q, k, k, lens, k_new=q)
    with pytest.raises(tilec.ArgumentError, match="k_new, v_new: expected"):
        tilec.attention_with_kvcache(q, k, k, lens, k_new=q, v_new=q)
    with pytest.raises(tilec.ArgumentError, match="cache_seqlens"):
        tilec.attention_with_kvcache(q, k, k, lens.long())
    with pytest.raises(tilec.ArgumentError, match="heads"):
        tilec.attention_with_kvcache(q[:, :, :7], k, k, lens)
    with pytest.raises(tilec.ArgumentError, match="query tokens"):
        tilec.attention_with_kvcache(q.expand(1, 33, 8, 128), k, k, lens)
    with pytest.raises(tilec.ArgumentError,
                       match="k_cache: dtype bf16 is not q's f16"):
        tilec.attention_with_kvcache(q, k.bfloat16(), k, lens)
    with pytest.raises(tilec.ArgumentError, match="plan: made for a batch"):
        tilec.attention_with_kvcache(q, k, k, lens,
                                     plan=tilec.decode_plan([1, 2]))


# --- MLA decode (kernels/mla_decode.tile) --------------------------------------

def mla_reference(torch, q, kv, table, lens, dv, scale, causal):
    """float64 MLA: each sequence's keys gathered from its pages; scores
    over all dims, outputs over the first dv; (out, natural lse)."""
    B, T, H, DK = q.shape
    page = kv.shape[1]
    out = torch.zeros(B, T, H, dv, dtype=torch.float64, device=q.device)
    lse = torch.full((B, H, T), float("-inf"), dtype=torch.float64,
                     device=q.device)
    for b in range(B):
        n = int(lens[b])
        pages = table[b, :-(-n // page)].long()
        keys = kv[pages, :, 0].reshape(-1, DK)[:n].double()   # n, DK
        for t in range(T):
            end = max(0, min(n, n - T + 1 + t)) if causal else n
            if end == 0:
                continue
            s = q[b, t].double() @ keys[:end].T * scale          # H, end
            out[b, t] = torch.softmax(s, -1) @ keys[:end, :dv]
            lse[b, :, t] = torch.logsumexp(s, -1)
    return out, lse


MLA_CASES = [
    # B, s_q, heads, page, lengths, splits, dtype, plan
    (4, 1, 128, 64, [0, 1, 65, 3000], 0, "bfloat16", None),
    (3, 1, 16, 64, [64, 63, 1000], 3, "bfloat16", None),
    (2, 2, 64, 128, [129, 2], 0, "float16", None),
    (2, 2, 128, 64, [700, 5], 1, "bfloat16", None),
    (1, 1, 32, 256, [5000], 0, "bfloat16", None),
    # 16 rows a sequence or fewer: 16-row tiles multiplied by mma.sync (8
    # heads, splits forced; 16 heads through a plan); 16 heads x 2 tokens,
    # causal: 32 rows in a 64-row tile.
    (3, 1, 8, 128, [0, 65, 2000], 2, "bfloat16", None),
    (5, 1, 16, 64, [0, 1, 64, 9000, 129], 0, "bfloat16", "exact"),
    (2, 2, 16, 64, [130, 1], 0, "float16", None),
    # A skewed batch through a decode plan (its own lengths; lengths a
    # third of the real ones: the last split of a sequence takes the rest).
    (6, 1, 128, 64, [0, 1, 65, 20000, 64, 300], 0, "bfloat16", "exact"),
    (3, 2, 64, 64, [5000, 3, 130], 0, "bfloat16", "shorter"),
]


@pytest.mark.parametrize("case", MLA_CASES, ids=lambda c: "-".join(
    str(x) for x in c[:4]) + f"-s{c[5]}-{c[6]}" + (f"-{c[7]}" if c[7] else ""))
def test_mla_decode_matches_float64(torch_gpu, case):
    """tilec.mla_decode: 576-dim queries over one paged latent head, the
    first 512 dims the values; lengths 0, 1, a page +- 1 and long, pages
    in a random order (the rest poisoned with NaN), one or two query tokens
    (causal), heads 8 to 128 (a 16-row block, one to four 64-row blocks),
    splits chosen
    and forced, and through decode plans; poisoned output, against float64;
    the LSE too."""
    torch = torch_gpu
    B, Sq, H, page, lens, splits, dtype, planned = case
    plan = None if planned is None else tilec.decode_plan(
        lens if planned == "exact" else [n // 3 for n in lens])
    dt = getattr(torch, dtype)
    torch.manual_seed(B * 1000 + H + page)
    DV, DK = 512, 576
    max_pages = -(-max(lens) // page) + 1
    num_pages = B * max_pages + 3
    kv = torch.full((num_pages, page, 1, DK), float("nan"), device="cuda",
                    dtype=dt)
    table = torch.randperm(num_pages, device="cuda")[:B * max_pages].reshape(
        B, max_pages).to(torch.int32)
    for b, n in enumerate(lens):
        used = table[b, :-(-n // page)].long()
        kv[used] = torch.randn(len(used), page, 1, DK, device="cuda",
                               dtype=dt)
    q = torch.randn(B, Sq, H, DK, device="cuda", dtype=dt)
    seqlens = torch.tensor(lens, device="cuda", dtype=torch.int32)
    out = torch.full((B, Sq, H, DV), float("nan"), device="cuda", dtype=dt)
    scale = 1 / math.sqrt(192)
    variants = tilec.stats()["alignment_variants"]
    got, lse = tilec.mla_decode(q, kv, seqlens, table, head_dim_v=DV,
                                scale=scale, causal=True, num_splits=splits,
                                out=out, plan=plan)
    # No alignment variant: the stand-in partials keep 16-byte strides.
    assert tilec.stats()["alignment_variants"] == variants
    torch.cuda.synchronize()
    assert got.data_ptr() == out.data_ptr()
    ref, ref_lse = mla_reference(torch, q, kv, table, lens, DV, scale, True)
    assert not torch.isnan(got).any()
    err = ((got.double() - ref).norm() / ref.norm()).item()
    assert err < (2e-2 if dtype == "bfloat16" else 4e-3), err
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite)
    assert torch.allclose(lse.double()[finite], ref_lse[finite], atol=1e-3,
                          rtol=1e-4)


def test_mla_decode_argument_errors(torch_gpu):
    """Each malformed argument is an ArgumentError naming it."""
    torch = torch_gpu
    q = torch.randn(2, 1, 16, 576, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(4, 64, 1, 576, device="cuda", dtype=torch.bfloat16)
    table = torch.zeros(2, 2, device="cuda", dtype=torch.int32)
    lens = torch.ones(2, device="cuda", dtype=torch.int32)
    bad = [
        (dict(q=q.float()), "q: expected float16 or bfloat16"),
        (dict(kv_cache=kv[:, :32]), "kv_cache: page size 32"),
        (dict(kv_cache=kv.half()), "kv_cache: must have q's dtype"),
        (dict(block_table=table.long()), "block_table"),
        (dict(cache_seqlens=lens[:1]), "cache_seqlens"),
        (dict(head_dim_v=500), "head_dim_v"),
        (dict(num_splits=-1), "num_splits"),
    ]
    for change, message in bad:
        args = dict(q=q, kv_cache=kv, cache_seqlens=lens, block_table=table)
        args.update(change)
        with pytest.raises(tilec.ArgumentError, match=message):
            tilec.mla_decode(**args)
