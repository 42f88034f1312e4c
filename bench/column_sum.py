#!/usr/bin/env python3
"""Column sums written plainly (out[c] = sum_r x[r, c]: a bias gradient, a
norm's weight gradient), each block summing a range of rows of TILE_N
columns and adding its partial sums with atomic_add, against torch.sum(x,
dim=0) and the device's copy bandwidth, in one process, launches
interleaved (bench/interleaved.py).

  PYTHONPATH=python python3 bench/column_sum.py [--rounds 30]
      [--shapes 16384x4096,...]   (rows x columns, bf16)

GB/s count x read once (the f32 output's bytes are negligible)."""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import (bandwidth_rows, copy_bandwidth,  # noqa: E402
                         print_bandwidth_table, time_interleaved)

COLUMN_SUM = """
kernel column_sum(X: Tensor[bf16, 2], Out: Tensor[f32, 1], rows_per_block: int,
                  TILE_M: const int = 64, TILE_N: const int = 256):
    n = bid(0)
    first = bid(1) * rows_per_block
    acc = zeros((1, TILE_N))
    for i in range(first // TILE_M, cdiv(min(first + rows_per_block, X.shape[0]), TILE_M)):
        x = load(X, index=(i, n), shape=(TILE_M, TILE_N)).astype(f32)
        acc += sum(x, axis=0, keepdims=True)
    atomic_add(Out, (n,), acc.reshape((TILE_N,)))
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="16384x4096,65536x1024,4096x16384")
    args = p.parse_args()
    copy = copy_bandwidth(torch, args.rounds)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"GPU: {torch.cuda.get_device_name()}, copy {copy / 1e9:.0f} GB/s")
    k = tilec.compile(COLUMN_SUM, name="column_sum.tile")
    rows_out = []
    for shape in args.shapes.split(","):
        R, C = (int(v) for v in shape.split("x"))
        cols = (C + 255) // 256
        # Row ranges (multiples of 64) so that about 4 blocks a
        # multiprocessor run.
        splits = max(1, min(R // 64, (4 * sms + cols - 1) // cols))
        per = ((R + splits - 1) // splits + 63) // 64 * 64
        splits = (R + per - 1) // per
        sets = [(torch.randn(R, C, device="cuda", dtype=torch.bfloat16),
                 torch.empty(C, device="cuda")) for _ in range(3)]

        def run(s):
            s[1].zero_()
            k[(cols, splits)](s[0], s[1], per)
        run(sets[0])
        ref = sets[0][0].double().sum(0)
        err = ((sets[0][1].double() - ref).abs() /
               (1 + ref.abs())).max().item()
        assert err < 1e-3, f"wrong: {err}"
        ms = time_interleaved(torch, {
            "tilec": run,
            "torch": lambda s: torch.sum(s[0], dim=0, dtype=torch.float32,
                                         out=s[1])}, sets, args.rounds)
        nbytes = R * C * 2
        rows_out += bandwidth_rows(shape, ms, nbytes, copy)
    print_bandwidth_table("rows x columns", rows_out)


if __name__ == "__main__":
    main()
