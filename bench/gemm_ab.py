#!/usr/bin/env python3
"""A/B of one compiler option on kernels/gemm.tile: each configuration of
bench/interleaved.py's GEMM search built with the option off and on
(tilec.compile), timed with cuBLAS (torch.matmul) in one process, launches
alternating on rotating inputs (bench/interleaved.py's time_interleaved),
fp16, f32 accumulation, M = N = K = 4096 and 8192. Every variant's output
is compared with cuBLAS's first.

  python3 bench/gemm_ab.py [--option warp_specialize] [--rounds 30]

Prints a markdown table: TFLOP/s per variant, the on/off ratio, and each
variant over cuBLAS.
"""
import argparse
import os
import sys

import torch
import tilec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import GEMM_CONFIGS, time_interleaved  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--option", default="warp_specialize",
                        help="a boolean keyword of tilec.compile")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--sizes", default="4096,8192")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    print(f"| M=N=K | config | {args.option}=False | {args.option}=True | "
          "ratio | off / cuBLAS | on / cuBLAS | cuBLAS |")
    print("|---|---|---|---|---|---|---|---|")
    status = 0
    for size in (int(s) for s in args.sizes.split(",")):
        gen = torch.Generator(device="cuda").manual_seed(size)
        sets = []
        for _ in range(2 if size > 4096 else 4):
            a, b = (torch.rand(size, size, device="cuda", dtype=torch.float16,
                               generator=gen) * 2 - 1 for _ in range(2))
            sets.append((a, b, torch.empty_like(a), torch.empty_like(a)))
        for config in GEMM_CONFIGS:
            constants = {k: v for k, v in config.items()
                         if k not in ("num_warps", "num_stages")}
            grid = (-(-size // config["TILE_M"]),
                    -(-size // config["TILE_N"]), 1)
            impls = {}
            for on in (False, True):
                kernel = tilec.compile(
                    "kernels/gemm.tile", num_warps=config["num_warps"],
                    num_stages=config["num_stages"],
                    **{args.option: on}, **constants)
                a, b, c, _ = sets[0]
                c.fill_(float("nan"))
                kernel[grid](a, b, c)
                ref = torch.matmul(a, b)
                err = ((c.float() - ref.float()).abs().max() /
                       ref.float().abs().max()).item()
                if not err <= 1e-2:
                    print(f"{size} {config} {args.option}={on}: differs "
                          f"from cuBLAS by {err}")
                    status = 1
                    continue
                impls[on] = (lambda k: lambda s: k[grid](s[0], s[1], s[2]))(
                    kernel)
            impls["cublas"] = lambda s: torch.matmul(s[0], s[1], out=s[3])
            times = time_interleaved(torch, impls, sets, args.rounds)
            tf = {k: 2.0 * size ** 3 / ms / 1e9 for k, ms in times.items()}
            off, on, cub = tf.get(False, 0), tf.get(True, 0), tf["cublas"]
            name = ", ".join(f"{k}={v}" for k, v in config.items())
            print(f"| {size} | {name} | {off:.0f} | {on:.0f} | "
                  f"{on / off if off else 0:.2f} | {off / cub:.2f} | "
                  f"{on / cub:.2f} | {cub:.0f} |", flush=True)
        del sets
        torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
