#!/usr/bin/env python3
"""Rotary position embedding (kernels/rotary.tile, written plainly: a loaded
tile's halves sliced, combined, joined back) against PyTorch eager (the
rotate_half form transformers' apply_rotary_pos_emb runs) and the device's
copy bandwidth, in one process, launches interleaved (bench/interleaved.py).

  PYTHONPATH=python python3 bench/rotary.py [--rounds 30]
      [--shapes 16384x32x128,...]   (tokens x heads x head_dim)
      [--tokens-per-block 1,2,4]

GB/s count x read and the output written (bf16) plus cos and sin (f32)."""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import (bandwidth_rows, copy_bandwidth,  # noqa: E402
                         print_bandwidth_table, time_interleaved)

KERNEL = os.path.join(HERE, "..", "kernels", "rotary.tile")


def torch_rotary(x, cos, sin):
    d = x.shape[-1] // 2
    c = torch.cat((cos, cos), -1)[:, None, :].to(x.dtype)
    s = torch.cat((sin, sin), -1)[:, None, :].to(x.dtype)
    rot = torch.cat((-x[..., d:], x[..., :d]), -1)
    return x * c + rot * s


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="16384x32x128,16384x8x128,65536x32x64")
    p.add_argument("--tokens-per-block", default="1,2,4")
    args = p.parse_args()
    copy = copy_bandwidth(torch, args.rounds)
    print(f"GPU: {torch.cuda.get_device_name()}, copy {copy / 1e9:.0f} GB/s")
    rows = []
    for shape in args.shapes.split(","):
        T, H, D = (int(v) for v in shape.split("x"))
        sets = []
        for _ in range(3):
            x = torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16)
            a = torch.rand(T, D // 2, device="cuda") * 6.3
            sets.append((x, a.cos(), a.sin(), torch.empty_like(x)))
        ref = torch_rotary(*sets[0][:3]).double()
        impls = {}
        for tpb in (int(v) for v in args.tokens_per_block.split(",")):
            k = tilec.compile(KERNEL, H=H, D=D, TILE_T=tpb)
            grid = ((T + tpb - 1) // tpb,)

            def run(s, k=k, grid=grid):
                k[grid](s[0], s[1], s[2], s[3])
            run(sets[0])
            torch.cuda.synchronize()
            err = (sets[0][3].double() - ref).abs().max().item()
            assert err < 0.05, f"tilec TILE_T={tpb} wrong: max error {err}"
            impls[f"tilec_t{tpb}"] = run
        impls["torch"] = lambda s: torch_rotary(s[0], s[1], s[2])
        ms = time_interleaved(torch, impls, sets, args.rounds)
        nbytes = 2 * T * H * D * 2 + 2 * T * (D // 2) * 4
        rows += bandwidth_rows(shape, ms, nbytes, copy)
    print_bandwidth_table("tokens x heads x dim", rows)


if __name__ == "__main__":
    main()
