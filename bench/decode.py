#!/usr/bin/env python3
"""tilec.attention_with_kvcache (split-KV decode, kernels/flash_decoding.tile)
against PyTorch's SDPA backends (cuDNN, flash, efficient; enable_gqa) and
the device's copy bandwidth, in one process, launches interleaved.

  PYTHONPATH=python python3 bench/decode.py [--rounds 30] [--graphs] [--trials K]
      [--sweep-keys B --json FILE]   (then bench/decode_chart.py FILE)

Decode: one query token per sequence, every sequence at the full cache
length, bf16, 32 query heads over 8 KV heads (and MHA 32/32), D=128;
contiguous caches, and the same keys in pages of 8, 16, 32, 64 and 256 scattered
by a random block table (SDPA reads the contiguous copy). GB/s
count K and V read once plus q and the output; the copy bandwidth is bytes
read + written per second of torch's 1 GiB copy. Each point's output is
checked against cuDNN's (or the first backend's) first. Prints a markdown
table.
"""
import argparse
import json
import os
import sys
import time

import torch
import tilec
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import copy_bandwidth, time_interleaved  # noqa: E402

POINTS = [  # batch, keys, query heads, kv heads, page size (0: contiguous)
    (32, 4096, 32, 8, 0), (8, 32768, 32, 8, 0), (1, 131072, 32, 8, 0),
    (16, 8192, 32, 32, 0), (128, 1024, 32, 8, 0), (4, 16384, 64, 8, 0),
    (8, 32768, 32, 8, 8), (8, 32768, 32, 8, 16), (8, 32768, 32, 8, 32),
    (8, 32768, 32, 8, 64), (8, 32768, 32, 8, 256), (32, 4096, 32, 8, 16),
    (32, 4096, 32, 8, 64),
]
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION,
            "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def graphed(torch, impls, sets):
    """Each implementation's call on each input set captured in a CUDA graph
    (no launch overhead: what a serving stack's decode step replays); an
    implementation that cannot be captured is left out."""
    out = {}
    for name, run in impls.items():
        graphs = {}
        try:
            for s in sets:
                run(s)  # warm: compiled, workspaces allocated
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    run(s)
                graphs[id(s)] = g
        except RuntimeError as e:
            print(f"  {name}: not captured ({str(e)[:60]})")
            continue
        out[name] = lambda s, graphs=graphs: graphs[id(s)].replay()
    return out


def measure_skewed(args, copy):
    """One long sequence among short ones (64k keys and 63 x 1k, a paged
    cache of 64-key pages, GQA 32/8, bf16): tilec's GB/s over the bytes it
    must read (each sequence's own keys), with the split count chosen and
    forced (splits cut by the cache's capacity), and through a decode plan
    (each sequence cut by its own length). SDPA has no such batch without
    padding: not compared."""
    B, H, Hkv, D, page = 64, 32, 8, 128, 64
    lengths = [65536] + [1024] * (B - 1)
    pages_per_seq = 65536 // page
    used = sum(-(-n // page) for n in lengths)
    sets = []
    for _ in range(2):
        q = torch.randn(B, 1, H, D, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(used, page, Hkv, D, device="cuda",
                         dtype=torch.bfloat16)
        vc = torch.randn_like(kc)
        perm = torch.randperm(used, device="cuda").to(torch.int32)
        table = torch.zeros(B, pages_per_seq, device="cuda",
                            dtype=torch.int32)
        at = 0
        for b, n in enumerate(lengths):
            k = -(-n // page)
            table[b, :k] = perm[at:at + k]
            at += k
        lens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
        sets.append((q, kc, vc, lens, table, torch.empty_like(q)))
    nbytes = 2 * sum(lengths) * Hkv * D * 2 + 2 * B * H * D * 2
    impls = {}
    for splits in (0, 16):
        impls[f"capacity, splits={splits or 'chosen'}"] = (
            lambda s, splits=splits: tilec.attention_with_kvcache(
                s[0], s[1], s[2], s[3], block_table=s[4], out=s[5],
                num_splits=splits))
    # The schedule from each sequence's own length (made once per batch,
    # outside the timing, as a serving step shares it across layers).
    plan = tilec.decode_plan(lengths)
    impls["decode_plan"] = lambda s: tilec.attention_with_kvcache(
        s[0], s[1], s[2], s[3], block_table=s[4], out=s[5], plan=plan)
    if args.graphs:
        impls = graphed(torch, impls, sets)
    ms = time_interleaved(torch, impls, sets, args.rounds)
    print(f"\nSkewed batch (1 x 64k + {B - 1} x 1k keys, page {page}, "
          f"{H}/{Hkv} heads): GB/s over the bytes read, of copy")
    for name, t in ms.items():
        gbs = nbytes / (t / 1e3) / 1e9
        print(f"| {name} | {t * 1e3:.0f} us | {gbs:.0f} GB/s | "
              f"{gbs * 1e9 / copy:.2f} |")


def measure(args, B, N, H, Hkv, page, D):
    """GB/s of each implementation at one point, on new allocations."""
    sets = []
    for _ in range(2):  # alternated: L2 holds neither
        q = torch.randn(B, 1, H, D, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, N, Hkv, D, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, N, Hkv, D, device="cuda", dtype=torch.bfloat16)
        lens = torch.full((B,), N, device="cuda", dtype=torch.int32)
        table = kc = vc = None
        if page:  # the same keys in pages scattered by a block table
            pages = B * N // page
            perm = torch.randperm(pages, device="cuda")
            table = perm.to(torch.int32).view(B, N // page)
            kc = torch.empty(pages, page, Hkv, D, device="cuda",
                             dtype=torch.bfloat16)
            vc = torch.empty_like(kc)
            kc[perm] = k.reshape(pages, page, Hkv, D)
            vc[perm] = v.reshape(pages, page, Hkv, D)
        # SDPA's layout: (B, heads, seq, D) views of the same memory.
        sets.append((q, k, v, lens, q.transpose(1, 2), k.transpose(1, 2),
                     v.transpose(1, 2), torch.empty_like(q), table, kc,
                     vc))
    if page:
        impls = {"tilec": lambda s: tilec.attention_with_kvcache(
            s[0], s[9], s[10], s[3], block_table=s[8], out=s[7])}
    else:
        impls = {"tilec": lambda s: tilec.attention_with_kvcache(
            s[0], s[1], s[2], s[3], out=s[7])}
        for k in args.splits:
            # The same with the splits forced (the schedule's choice
            # against each count).
            impls[f"tilec-s{k}"] = lambda s, k=k: \
                tilec.attention_with_kvcache(s[0], s[1], s[2], s[3],
                                             out=torch.empty_like(s[7]),
                                             num_splits=k)
        if args.in_order_pages:
            # The same contiguous cache read as pages in order (block table
            # 0, 1, 2, ...): the paged code path on the contiguous layout.
            P = args.in_order_pages
            order = torch.arange(B * N // P, device="cuda",
                                 dtype=torch.int32).view(B, N // P)
            impls["tilec-pages"] = lambda s: tilec.attention_with_kvcache(
                s[0], s[1].view(-1, P, Hkv, D), s[2].view(-1, P, Hkv, D),
                s[3], block_table=order, out=torch.empty_like(s[7]))
    ref = None
    for name, backend in BACKENDS.items():
        def run(s, backend=backend):
            with sdpa_kernel(backend):
                return sdpa(s[4], s[5], s[6], enable_gqa=H != Hkv)
        try:
            o = run(sets[0])
            torch.cuda.synchronize()
        except RuntimeError:
            continue
        impls[name] = run
        if ref is None:
            ref = o.transpose(1, 2)
    impls["tilec"](sets[0])
    torch.cuda.synchronize()
    if ref is not None:
        err = (sets[0][7].float() - ref.float()).abs().max().item()
        if err > 2e-2:
            print(f"B={B} N={N}: tilec differs from SDPA by {err}")
            return None
    if args.graphs:
        impls = graphed(torch, impls, sets)
    ms = time_interleaved(torch, impls, sets, args.rounds)
    if "tilec" not in ms:
        return None
    # What a call costs the CPU (Python, checks, two launches): a
    # launch-bound time when it exceeds the GPU's.
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(20):
        impls["tilec"](sets[i % 2])
    cpu_us = (time.perf_counter() - t0) / 20 * 1e6
    torch.cuda.synchronize()
    print(f"  tilec call ({'graph replay' if args.graphs else 'Python'}): "
          f"{cpu_us:.0f} us of CPU, GPU median "
          f"{ms['tilec'] * 1e3:.0f} us")
    nbytes = 2 * B * N * Hkv * D * 2 + 2 * B * H * D * 2
    gbs = {n: nbytes / (t / 1e3) / 1e9 for n, t in ms.items()}
    print(f"B={B} N={N} H={H}/{Hkv} page={page}: " +
          ", ".join(f"{n} {g:.0f} GB/s" for n, g in gbs.items()))
    if args.splits:
        print("  splits (GB/s): " + ", ".join(
            f"{n[7:]} {g:.0f}" for n, g in sorted(
                gbs.items(), key=lambda e: -e[1]) if n.startswith("tilec-s")))
    return gbs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--trials", type=int, default=1,
                   help="measure each point this many times on new "
                   "allocations; report the median and the spread")
    p.add_argument("--graphs", action="store_true",
                   help="time CUDA graph replays (no launch overhead)")
    p.add_argument("--paged", action="store_true",
                   help="only the paged points")
    p.add_argument("--skewed", action="store_true",
                   help="only the skewed batch (1 x 64k + 63 x 1k keys)")
    p.add_argument("--sweep-keys", type=int, default=0, metavar="B",
                   help="instead of the points: batch B, 32/8 heads, keys "
                   "1k to 128k (contiguous), for bench/decode_chart.py")
    p.add_argument("--json", metavar="FILE",
                   help="also write the points measured as JSON (a list "
                   "of {batch, keys, heads, kv_heads, page, copy, "
                   "<implementation>: GB/s})")
    p.add_argument("--in-order-pages", type=int, default=0, metavar="P",
                   help="at the contiguous points, also time tilec reading "
                        "the same cache as pages of P keys in order")
    p.add_argument("--splits", default="",
                   help="at the contiguous points, also time tilec with "
                   "num_splits forced to each of these counts")
    args = p.parse_args()
    args.splits = [int(v) for v in args.splits.split(",")] \
        if args.splits else []
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    copy = copy_bandwidth(torch, 10)
    print(f"copy bandwidth: {copy / 1e9:.0f} GB/s")
    rows = []
    D = 128
    if args.skewed:
        measure_skewed(args, copy)
        return 0
    points = POINTS
    if args.sweep_keys:
        points = [(args.sweep_keys, 1024 << i, 32, 8, 0) for i in range(8)]
    for B, N, H, Hkv, page in points:
        if args.paged and not page:
            continue
        trials = []
        for trial in range(args.trials):
            # Each trial's buffers elsewhere: a spacer of a different size
            # held under them (the caching allocator would hand back the
            # same blocks).
            spacer = torch.empty(trial * 37 << 20, device="cuda",
                                 dtype=torch.uint8)
            gbs = measure(args, B, N, H, Hkv, page, D)
            del spacer
            if gbs:
                trials.append(gbs)
        if not trials:
            continue
        # The median trial by tilec's figure (each trial new allocations).
        trials.sort(key=lambda g: g["tilec"])
        gbs = trials[len(trials) // 2]
        if len(trials) > 1:
            print(f"  over {len(trials)} trials: " + ", ".join(
                f"{n} {min(t[n] for t in trials):.0f}-"
                f"{max(t[n] for t in trials):.0f}" for n in gbs))
        best = max((g for n, g in gbs.items() if not n.startswith("tilec")),
                   default=None)
        rows.append((B, N, H, Hkv, page, gbs, best))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(batch=B, keys=N, heads=H, kv_heads=Hkv,
                            page=page, copy=copy / 1e9, **gbs)
                       for B, N, H, Hkv, page, gbs, _ in rows], f, indent=1)
    print()
    print("| batch | keys | heads q/kv | page | tilec GB/s | of copy | cuDNN "
          "| flash | efficient | tilec / best SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for B, N, H, Hkv, page, gbs, best in rows:
        def f(n):
            return f"{gbs[n]:.0f}" if n in gbs else "-"
        ratio = f"{gbs['tilec'] / best:.2f}" if best else "-"
        print(f"| {B} | {N} | {H}/{Hkv} | {page or '-'} | {gbs['tilec']:.0f} | "
              f"{gbs['tilec'] * 1e9 / copy:.2f} | {f('cudnn')} | {f('flash')} "
              f"| {f('efficient')} | {ratio} |")


if __name__ == "__main__":
    main()
