#!/usr/bin/env python3
"""Skinny GEMMs (decode-shaped: few rows of A) — bench/kernels/gemm_splitk.tile
(K split across blocks, partial products added with atomic_add into f32)
and kernels/gemm.tile against cuBLAS, in one run.

  python3 bench/skinny_gemm.py [--rounds 30]

For each M x N x K (bf16 in, bf16 out): cuBLAS (torch.matmul); gemm.tile at
64-row tiles; the split-K kernel at each of splits x tiles, timed whole as
a user runs it: zero the f32 output, the kernel, the conversion to bf16
(three launches). Every output checked against cuBLAS first. Medians of
CUDA-event timings over interleaved rounds on two rotating input sets
(bench/interleaved.py). Prints a markdown table with the best of each.
"""
import argparse
import itertools
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

ROOT = os.path.dirname(HERE)
SPLITK = os.path.join(HERE, "kernels", "gemm_splitk.tile")
GEMM = os.path.join(ROOT, "kernels", "gemm.tile")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="64x4096x4096,16x4096x4096,"
                   "128x8192x8192,64x14336x4096")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for shape in args.shapes.split(","):
        M, N, K = (int(x) for x in shape.split("x"))
        sets = []
        for _ in range(2):
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            sets.append((a, b, torch.empty(M, N, device="cuda"),
                         torch.empty(M, N, device="cuda",
                                     dtype=torch.bfloat16)))
        impls = {"cublas": lambda s: torch.matmul(s[0], s[1], out=s[3])}
        ref = (sets[0][0].float() @ sets[0][1].float())
        cands = {}
        for tn in (64, 128):
            try:
                k = tilec.compile(GEMM, DTYPE="bf16", TILE_M=64, TILE_N=tn,
                                  TILE_K=64)
            except tilec.TileError as e:
                print("  gemm:", str(e).splitlines()[0])
                continue
            cands[f"gemm_64x{tn}"] = (lambda s, k=k, tn=tn: k[
                ((M + 63) // 64, (N + tn - 1) // tn)](s[0], s[1], s[3]))
        for splits, tn, tk in itertools.product((4, 8, 16), (64, 128),
                                                (64, 128)):
            k = tilec.compile(SPLITK, DTYPE="bf16", TILE_M=64, TILE_N=tn,
                              TILE_K=tk)

            def run(s, k=k, tn=tn, splits=splits):
                s[2].zero_()
                k[((M + 63) // 64, (N + tn - 1) // tn, splits)](s[0], s[1],
                                                               s[2])
                s[3].copy_(s[2])
            cands[f"splitk{splits}_{tn}x{tk}"] = run
        for name, run in cands.items():
            sets[0][3].fill_(float("nan"))
            run(sets[0])
            torch.cuda.synchronize()
            err = ((sets[0][3].float() - ref).norm() / ref.norm()).item()
            if not err < 1e-2:
                print(f"  {name}: wrong ({err})")
                continue
            impls[name] = run
        ms = time_interleaved(torch, impls, sets, args.rounds)
        flops = 2.0 * M * N * K
        tf = {n: flops / t / 1e9 for n, t in ms.items()}
        best = {pre: max((n for n in tf if n.startswith(pre)), key=tf.get,
                         default=None) for pre in ("gemm_", "splitk")}
        print(f"  {shape}: cublas {tf['cublas']:.0f}, " + ", ".join(
            f"{n} {tf[n]:.0f}" for n in best.values() if n), flush=True)
        rows.append((shape, tf, best))
    print("\n| M x N x K (bf16) | cuBLAS TFLOP/s | gemm.tile best | split-K best "
          "(3 launches) | split-K / cuBLAS |")
    print("|---|---|---|---|---|")
    for shape, tf, best in rows:
        g, s = best["gemm_"], best["splitk"]
        cub = tf["cublas"]
        gtxt = f"{tf[g]:.0f} ({g})" if g else "—"
        stxt = f"{tf[s]:.0f} ({s})" if s else "—"
        ratio = f"{tf[s] / cub:.2f}" if s else "—"
        print(f"| {shape} | {cub:.0f} | {gtxt} | {stxt} | {ratio} |")


if __name__ == "__main__":
    main()
