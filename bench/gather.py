#!/usr/bin/env python3
"""gather(): an embedding lookup written with it against
torch.nn.functional.embedding and the device's copy bandwidth, in one run.

  python3 bench/gather.py [--rounds 30]

For each (vocabulary, rows looked up, row length, dtype): the kernel reads
`rows` random rows of the table with gather (16-byte vectors along the row,
as the index analysis allows) and writes them out; GB/s counts the bytes
read and written. The output is checked against PyTorch first (exact).
Medians of CUDA-event timings over `rounds` interleaved rounds on two
rotating id sets (bench/interleaved.py). Prints a markdown table.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import copy_bandwidth, time_interleaved  # noqa: E402

EMBED = """
kernel embed(E: Tensor[DTYPE, 2], Ids: Tensor[i32, 1], O: Tensor[DTYPE, 2],
             DTYPE: const dtype = f16, ROWS: const int = 16,
             D: const int = 256):
    ids = load(Ids, index=(bid(0),), shape=(ROWS,))
    cols = arange(D)[None, :] + bid(1) * D
    store(O, index=(bid(0), bid(1)), tile=gather(E, (ids[:, None], cols)))
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    args = p.parse_args()
    copy = copy_bandwidth(torch, args.rounds)
    print(f"GPU: {torch.cuda.get_device_name()}; device copy "
          f"{copy / 1e9:.0f} GB/s")
    rows = []
    for V, N, D, dtype in [(128000, 16384, 4096, torch.float16),
                           (128000, 4096, 4096, torch.bfloat16),
                           (32000, 16384, 1024, torch.float16),
                           (50000, 65536, 256, torch.float32)]:
        table = torch.randn(V, D, device="cuda").to(dtype)
        sets = []
        for _ in range(2):
            ids = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
            sets.append((ids, torch.empty(N, D, device="cuda", dtype=dtype),
                         ids.long()))
        dsl = {torch.float16: "f16", torch.bfloat16: "bf16",
               torch.float32: "f32"}[dtype]
        tile_d = min(D, 1024 // (dtype.itemsize // 2))
        kern = tilec.compile(EMBED, name="embed.tile", DTYPE=dsl, D=tile_d)
        grid = (N // 16, D // tile_d)
        run = lambda s: kern[grid](table, s[0], s[1])  # noqa: E731
        run(sets[0])
        torch.cuda.synchronize()
        assert torch.equal(sets[0][1], table[sets[0][0].long()])
        ms = time_interleaved(torch, {
            "tilec": run,
            "torch": lambda s: torch.nn.functional.embedding(s[2], table),
        }, sets, args.rounds)
        nbytes = 2 * N * D * dtype.itemsize
        gbs = {k: nbytes / (v / 1e3) / 1e9 for k, v in ms.items()}
        rows.append((V, N, D, str(dtype)[6:], gbs))
        print(f"  V={V} N={N} D={D} {dtype}: tilec {gbs['tilec']:.0f} GB/s, "
              f"torch {gbs['torch']:.0f} GB/s", flush=True)
    print("\n| vocab | rows | D | dtype | tilec GB/s | torch GB/s | tilec / torch "
          "| tilec / copy |")
    print("|---|---|---|---|---|---|---|---|")
    for V, N, D, dt, g in rows:
        print(f"| {V} | {N} | {D} | {dt} | {g['tilec']:.0f} | {g['torch']:.0f} "
              f"| {g['tilec'] / g['torch']:.2f} | "
              f"{g['tilec'] / (copy / 1e9):.2f} |")


if __name__ == "__main__":
    main()
