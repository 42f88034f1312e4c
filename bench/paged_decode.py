#!/usr/bin/env python3
"""kernels/paged_decode.tile (values read from memory: page counts and page
numbers) on a paged KV cache with sequences of different lengths, against
the device's copy bandwidth measured in the same process (torch's copy of a
1 GiB buffer: bytes read + written per second).

  python3 bench/paged_decode.py [--rounds 50] [--quick]

For each configuration (batch, KV heads x query heads per KV head, head
dim, page size, mean length, compile options): the kernel's bytes (the K
and V pages it reads, Q and the output) over the median time of `rounds`
launches (CUDA events, after warm-up, the cache's pages rotated between
two caches so that L2 holds neither), GB/s and the fraction of the copy
bandwidth. Each configuration's output is checked against a float64
reference first. Prints a markdown table.
"""
import argparse
import math
import os
import statistics
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import copy_bandwidth  # noqa: E402

KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "paged_decode.tile")


def make_case(B, H, G, D, PAGE, mean_len, gen):
    lens = torch.randint(mean_len // 2, mean_len * 3 // 2 + 1, (B,),
                         generator=gen, device="cuda", dtype=torch.int32)
    max_pages = int((lens.max().item() + PAGE - 1) // PAGE)
    num_pages = B * max_pages
    caches = []
    for _ in range(2):  # two caches, alternated: neither stays in L2
        kc = torch.randn(num_pages, H, PAGE, D, device="cuda",
                         dtype=torch.float16, generator=gen)
        vc = torch.randn(num_pages, H, PAGE, D, device="cuda",
                         dtype=torch.float16, generator=gen)
        caches.append((kc, vc))
    perm = torch.randperm(num_pages, generator=gen, device="cuda").int()
    table = perm.reshape(B, max_pages).contiguous()
    q = torch.randn(B * H, G, D, device="cuda", dtype=torch.float16,
                    generator=gen)
    return lens, table, q, caches


def reference(q, kc, vc, table, lens, PAGE, scale, rows):
    """float64 attention for a few (sequence, KV head) rows."""
    H = kc.shape[1]
    D = q.shape[-1]
    out = {}
    for bh in rows:
        b, h = divmod(bh, H)
        n = int(lens[b])
        pages = table[b, :(n + PAGE - 1) // PAGE].long()
        k = kc[pages, h].reshape(-1, D)[:n].double()
        v = vc[pages, h].reshape(-1, D)[:n].double()
        s = (q[bh].double() @ k.T) * scale
        out[bh] = torch.softmax(s, dim=-1) @ v
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    copy = copy_bandwidth(torch, args.rounds)
    configs = [
        # B, H_KV, GROUP, D, PAGE, mean length, options
        (32, 8, 4, 128, 64, 4096, {}),
        (32, 8, 4, 128, 64, 4096, {"warp_specialize": True}),
        (64, 8, 8, 128, 64, 2048, {"warp_specialize": True}),
        (16, 8, 4, 128, 64, 16384, {"warp_specialize": True}),
        (32, 8, 4, 64, 32, 4096, {"warp_specialize": True}),
    ]
    if args.quick:
        configs = configs[:3]
    gpu = torch.cuda.get_device_name()
    print(f"{gpu}: device copy bandwidth {copy / 1e9:.0f} GB/s "
          f"(1 GiB copy, read + write)\n")
    print("| B | H_KV x group | D | page | mean len | options | us | GB/s "
          "| of copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    gen = torch.Generator(device="cuda").manual_seed(0)
    for B, H, G, D, PAGE, mean_len, opts in configs:
        lens, table, q, caches = make_case(B, H, G, D, PAGE, mean_len, gen)
        kernel = tilec.compile(KERNEL, D=D, PAGE=PAGE, H_KV=H, **opts)
        scale = 1 / math.sqrt(D)
        out = torch.full((B * H, G, D), float("nan"), device="cuda")
        kc, vc = caches[0]
        kernel[B * H](q, kc, vc, table, lens, out, scale)
        torch.cuda.synchronize()
        rows = [0, B * H // 2, B * H - 1]
        for bh, ref in reference(q, kc, vc, table, lens, PAGE, scale,
                                 rows).items():
            err = (out[bh].double() - ref).abs().max().item()
            assert err < 2e-2, (bh, err)
        times = []
        for i in range(args.rounds + 5):
            kc, vc = caches[i % 2]
            start, end = (torch.cuda.Event(enable_timing=True)
                          for _ in range(2))
            start.record()
            kernel[B * H](q, kc, vc, table, lens, out, scale)
            end.record()
            end.synchronize()
            if i >= 5:
                times.append(start.elapsed_time(end) / 1e3)
        t = statistics.median(times)
        # The pages read: whole pages (the last one's tail included).
        pages = ((lens + PAGE - 1) // PAGE).sum().item()
        kv_bytes = 2 * pages * H * PAGE * D * 2
        bytes_ = kv_bytes + q.numel() * 2 + out.numel() * 4 + lens.numel() * 4
        opt = ",".join(f"{k}={v}" for k, v in opts.items()) or "default"
        print(f"| {B} | {H} x {G} | {D} | {PAGE} | {mean_len} | {opt} | "
              f"{t * 1e6:.1f} | {bytes_ / t / 1e9:.0f} | "
              f"{bytes_ / t / copy:.2f} |")


if __name__ == "__main__":
    main()
