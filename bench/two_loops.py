#!/usr/bin/env python3
"""Two multiply loops in sequence (test/Target/Inputs/two-gemm-loops.tile:
C = A1 B1 + A2 B2, f16, f32 accumulation), warp-specialized or not, against
cuBLAS (torch.addmm of the two products), in one run.

  python3 bench/two_loops.py [--rounds 30] [--shapes 4096x4096x4096,...]

Medians of CUDA-event timings over interleaved rounds on two rotating input
sets (bench/interleaved.py), each output checked against cuBLAS's first.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

KERNEL = os.path.join(os.path.dirname(HERE), "test", "Target", "Inputs",
                      "two-gemm-loops.tile")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x2048")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    kernels = {
        "tilec": tilec.compile(KERNEL, num_warps=8),
        "tilec_ws": tilec.compile(KERNEL, num_warps=8, warp_specialize=True),
    }
    print("| M x N x K (each loop) | cuBLAS TFLOP/s | " +
          " | ".join(f"{n} TFLOP/s" for n in kernels) + " | ws / cuBLAS |")
    print("|---|---|" + "---|" * (len(kernels) + 1))
    for shape in args.shapes.split(","):
        M, N, K = (int(x) for x in shape.split("x"))
        sets = []
        for _ in range(2):
            t = [torch.randn(*s, device="cuda", dtype=torch.float16)
                 for s in ((M, K), (K, N), (M, K), (K, N))]
            sets.append(t + [torch.empty(M, N, device="cuda",
                                         dtype=torch.float16)])
        impls = {"cublas": lambda s: torch.addmm(s[0] @ s[1], s[2], s[3])}
        ref = impls["cublas"](sets[0]).float()
        for name, k in kernels.items():
            def run(s, k=k):
                k[(M // 128, N // 128)](*s)
            run(sets[0])
            torch.cuda.synchronize()
            err = ((sets[0][4].float() - ref).norm() / ref.norm()).item()
            assert err < 1e-2, (name, err)
            impls[name] = run
        ms = time_interleaved(torch, impls, sets, args.rounds)
        tf = {n: 4.0 * M * N * K / t / 1e9 for n, t in ms.items()}
        print(f"| {shape} | {tf['cublas']:.0f} | " +
              " | ".join(f"{tf[n]:.0f}" for n in kernels) +
              f" | {tf['tilec_ws'] / tf['cublas']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
