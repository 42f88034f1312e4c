#!/usr/bin/env python3
"""MLA decode (DeepSeek's multi-head latent attention, FlashMLA's problem):
tilec.mla_decode (kernels/mla_decode.tile, a paged latent cache of 576-dim
rows, the first 512 the values) against PyTorch on the same problem (the cache
contiguous: a batched multiply of all heads' queries by the shared latent
keys, softmax in f32, a multiply by the values; SDPA's fused backends
where they run, none at 576-dim heads in torch 2.11), and the device's
copy bandwidth, in one process, launches interleaved
(bench/interleaved.py).

  PYTHONPATH=python python3 bench/mla_decode.py [--rounds 30]
      [--points 64x4096x128x1,...]   (batch x keys x heads x s_q)
      [--graphs]                     (CUDA graph replays)
      [--skewed]                     (only a skewed batch, with and
                                      without a decode plan)

Each point: bf16, pages of 64 in a random order, every sequence of the
batch `keys` long; tilec's output is checked against PyTorch's first (max
|error| relative to the largest <= 2e-2). GB/s count the latent cache
read once (batch x keys x 576 x 2 bytes) plus q and the output;
TFLOP/s count 2 x batch x heads x s_q x keys x (576 + 512). FlashMLA
reports ~3,000 GB/s memory-bound and 660 TFLOP/s compute-bound on an H800.
"""
import argparse
import math
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import copy_bandwidth, time_interleaved  # noqa: E402
from decode import graphed  # noqa: E402

DV, DK, PAGE = 512, 576, 64
POINTS = ("64x4096x128x1,128x8192x128x1,64x32768x128x1,64x4096x128x2,"
          "128x4096x16x1,64x16384x16x1,1x65536x128x1,32x8192x64x1")


def measure_skewed(args, copy):
    """1 x 64k + 63 x 1k keys, 16 heads (memory-bound), pages of 64 in a
    random order: GB/s over the latent rows each sequence reads, with the
    sequences cut by the cache's capacity and through a decode plan (each
    by its own length: FlashMLA's scheduling metadata)."""
    B, H = 64, 16
    lengths = [65536] + [1024] * (B - 1)
    used = sum(n // PAGE for n in lengths)
    sets = []
    for _ in range(2):
        kv = torch.randn(used, PAGE, 1, DK, device="cuda",
                         dtype=torch.bfloat16)
        perm = torch.randperm(used, device="cuda").to(torch.int32)
        table = torch.zeros(B, 65536 // PAGE, device="cuda",
                            dtype=torch.int32)
        at = 0
        for b, n in enumerate(lengths):
            table[b, :n // PAGE] = perm[at:at + n // PAGE]
            at += n // PAGE
        sets.append(dict(q=torch.randn(B, 1, H, DK, device="cuda",
                                       dtype=torch.bfloat16),
                         kv=kv, table=table,
                         lens=torch.tensor(lengths, device="cuda",
                                           dtype=torch.int32),
                         out=torch.empty(B, 1, H, DV, device="cuda",
                                         dtype=torch.bfloat16)))
    plan = tilec.decode_plan(lengths)
    impls = {
        "capacity": lambda st: tilec.mla_decode(
            st["q"], st["kv"], st["lens"], st["table"], out=st["out"]),
        "decode_plan": lambda st: tilec.mla_decode(
            st["q"], st["kv"], st["lens"], st["table"], out=st["out"],
            plan=plan)}
    if args.graphs:
        impls = graphed(torch, impls, sets)
    ms = time_interleaved(torch, impls, sets, args.rounds)
    nbytes = sum(lengths) * DK * 2
    print(f"\nMLA skewed batch (1 x 64k + {B - 1} x 1k keys, {H} heads, "
          f"page {PAGE}): GB/s over the rows read, of copy")
    for name, t in ms.items():
        gbs = nbytes / (t / 1e3) / 1e9
        print(f"| {name} | {t * 1e3:.0f} us | {gbs:.0f} GB/s | "
              f"{gbs * 1e9 / copy:.2f} |")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--points", default=POINTS)
    p.add_argument("--graphs", action="store_true",
                   help="time CUDA graph replays (no launch overhead: a "
                   "decode step as a serving stack replays it)")
    p.add_argument("--skewed", action="store_true",
                   help="only the skewed batch, with and without a plan")
    args = p.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    copy = copy_bandwidth(torch, 10)
    print(f"copy bandwidth: {copy / 1e9:.0f} GB/s")
    if args.skewed:
        measure_skewed(args, copy)
        return
    rows = []
    for point in args.points.split(","):
        B, N, H, Sq = (int(x) for x in point.split("x"))
        scale = 1 / math.sqrt(192)
        pages = B * (N // PAGE)
        sets = []
        for _ in range(2):
            kv = torch.randn(pages, PAGE, 1, DK, device="cuda",
                             dtype=torch.bfloat16)
            table = torch.randperm(pages, device="cuda").reshape(
                B, N // PAGE).to(torch.int32)
            q = torch.randn(B, Sq, H, DK, device="cuda",
                            dtype=torch.bfloat16)
            # SDPA's contiguous copy: (B, 1, N, DK) keys, their first DV
            # dims the values.
            k = kv[table.long()].reshape(B, N, 1, DK).transpose(1, 2)
            sets.append(dict(q=q, kv=kv, table=table, k=k.contiguous(),
                             v=k[..., :DV].contiguous(),
                             qs=q.transpose(1, 2).contiguous(),
                             lens=torch.full((B,), N, device="cuda",
                                             dtype=torch.int32),
                             out=torch.empty(B, Sq, H, DV, device="cuda",
                                             dtype=torch.bfloat16)))
        # Causal with one token sees every key; with more, the SDPA mask
        # aligned to the end (bottom right) as flash_attn and tilec do.
        mask = None
        if Sq > 1:
            mask = (torch.arange(Sq, device="cuda")[:, None] + N - Sq >=
                    torch.arange(N, device="cuda")[None, :])

        def run_tilec(st):
            tilec.mla_decode(st["q"], st["kv"], st["lens"], st["table"],
                             head_dim_v=DV, scale=scale, causal=True,
                             out=st["out"])

        impls = {"tilec": run_tilec}
        st = sets[0]

        # PyTorch on the same problem, as a user writes it: one batched
        # multiply over all heads against the shared latent keys (no head
        # expanded), the softmax in f32, the multiply by the values.
        # (SDPA has no fused kernel for 576-dim heads; its math backend
        # expands the one KV head to all query heads.)
        def run_torch(st):
            qq = st["q"].reshape(B, Sq * H, DK)
            k = st["k"][:, 0]                                   # B, N, DK
            s = torch.bmm(qq, k.transpose(1, 2)).float() * scale
            if mask is not None:
                s = s.view(B, Sq, H, N).masked_fill(
                    ~mask[None, :, None, :], float("-inf")).view(
                        B, Sq * H, N)
            p = torch.softmax(s, -1).to(torch.bfloat16)
            return torch.bmm(p, st["v"][:, 0]).view(B, Sq, H, DV)
        impls["torch"] = run_torch
        # The check's reference in f32 (run_torch's bf16 scores and P are
        # themselves off by 2% of the largest output at 32k keys).
        qq = st["q"].reshape(B, Sq * H, DK).float()
        sc = torch.bmm(qq, st["k"][:, 0].float().transpose(1, 2)) * scale
        if mask is not None:
            sc = sc.view(B, Sq, H, N).masked_fill(
                ~mask[None, :, None, :], float("-inf")).view(B, Sq * H, N)
        ref = torch.bmm(torch.softmax(sc, -1), st["v"][:, 0].float()).view(
            B, Sq, H, DV)
        del sc
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION)):
            def run(st, backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(
                        st["qs"], st["k"], st["v"], attn_mask=mask,
                        scale=scale, enable_gqa=True)
            try:
                run(st)
                torch.cuda.synchronize()
                impls[name] = run
            except RuntimeError as e:
                print(f"  sdpa {name}: {str(e).splitlines()[0][:90]}")
        run_tilec(st)
        torch.cuda.synchronize()
        err = ((st["out"].float() - ref).abs().max() /
               ref.abs().max()).item()
        if not err <= 2e-2:
            print(f"{point}: tilec WRONG (error {err:.3g}), not timed")
            continue
        if args.graphs:
            impls = graphed(torch, impls, sets)
        ms = time_interleaved(torch, impls, sets, args.rounds)
        nbytes = B * N * DK * 2 + B * Sq * H * (DK + DV) * 2
        flops = 2 * B * H * Sq * N * (DK + DV)
        row = {"point": point, "B": B, "N": N, "H": H, "Sq": Sq}
        for name, t in ms.items():
            row[name] = (nbytes / t / 1e6, flops / t / 1e9)
        rows.append(row)
        print(f"{point}: " + ", ".join(
            f"{n} {g:.0f} GB/s {f:.0f} TFLOP/s" for n, (g, f) in
            ((n, row[n]) for n in ms)), flush=True)
    print()
    print("| batch | keys | heads | s_q | tilec GB/s | of copy | tilec "
          "TFLOP/s | best PyTorch (GB/s) | tilec / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        others = [(r[n][0], n) for n in r
                  if n not in ("point", "B", "N", "H", "Sq", "tilec")]
        best, bname = max(others) if others else (float("nan"), "-")
        g, f = r["tilec"]
        print(f"| {r['B']} | {r['N']} | {r['H']} | {r['Sq']} | {g:.0f} | "
              f"{g * 1e9 / copy:.2f} | {f:.0f} | {bname} {best:.0f} | "
              f"{g / best:.2f} |")


if __name__ == "__main__":
    main()
