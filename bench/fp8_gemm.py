#!/usr/bin/env python3
"""kernels/gemm_fp8.tile (8-bit wgmma) against torch._scaled_mm (cuBLAS fp8)
and against tilec's and cuBLAS's bf16 GEMM of the same shape, in one run.

  python3 bench/fp8_gemm.py [--rounds 30] [--shapes 4096x4096x4096,...]
                            [--configs] [--mma-sync]

For each M x N x K: A (M, K) and B (N, K) in f8e4m3, per-tensor scales,
bf16 output. The tilec kernel is compiled with no options (the compiler's
schedule), and with --configs also at each of its @tune tiles and with
warp specialization; the best is reported. Each output is checked against
torch._scaled_mm first. Times are medians of CUDA-event timings over
`rounds` interleaved rounds on two rotating input sets
(bench/interleaved.py). Prints a markdown table: TFLOP/s and ratios.
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
KERNEL = os.path.join(ROOT, "kernels", "gemm_fp8.tile")


def candidates(configs, mma_sync):
    yield "choice", {}
    if mma_sync:
        # sm_89's code (mma.sync.m16n8k32, ldmatrix, cp.async), compiled by
        # the driver for this GPU: the path of Ada GPUs, measured here.
        for tk, stages in ((64, 3), (128, 2)):
            yield f"sm89_128x{tk}", {"arch": "sm_89", "TILE_N": 128,
                                     "TILE_K": tk, "num_warps": 8,
                                     "num_stages": stages}
    if not configs:
        return
    for tn, tk in itertools.product((128, 256), (64, 128)):
        yield f"{tn}x{tk}", {"TILE_N": tn, "TILE_K": tk}
        yield f"{tn}x{tk}+ws", {"TILE_N": tn, "TILE_K": tk,
                                 "warp_specialize": True}


def run_shape(M, N, K, rounds, configs, mma_sync):
    sets = []
    one = torch.ones((), device="cuda")
    for _ in range(2):
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16).T.contiguous()
        sets.append((a, b, torch.empty(M, N, device="cuda",
                                       dtype=torch.bfloat16), a16, b16))
    impls = {
        "scaled_mm": lambda s: torch._scaled_mm(
            s[0], s[1].T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
        "cublas_bf16": lambda s: torch.matmul(s[3], s[4]),
    }
    ref = impls["scaled_mm"](sets[0]).float()
    for name, options in candidates(configs, mma_sync):
        tn = options.get("TILE_N", 256)
        try:
            kern = tilec.compile(KERNEL, **options)
        except tilec.TileError as e:
            print(f"  {name}: {str(e).splitlines()[0]}", flush=True)
            continue
        grid = ((M + 127) // 128, (N + tn - 1) // tn)
        run = (lambda s, kern=kern, grid=grid:
               kern[grid](s[0], s[1], s[2], 1.0))
        sets[0][2].fill_(float("nan"))
        run(sets[0])
        torch.cuda.synchronize()
        err = ((sets[0][2].float() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            print(f"  {name}: wrong (relative error {err})", flush=True)
            continue
        impls["tilec_" + name] = run
    ms = time_interleaved(torch, impls, sets, rounds)
    flops = 2.0 * M * N * K
    tf = {n: flops / t / 1e9 for n, t in ms.items()}
    mine = {n: v for n, v in tf.items() if n.startswith("tilec_")}
    best = max(mine, key=mine.get) if mine else None
    return tf, best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192,"
                   "8192x4096x14336,2048x2048x8192,64x4096x4096")
    p.add_argument("--configs", action="store_true")
    p.add_argument("--mma-sync", action="store_true",
                   help="also time sm_89's mma.sync code")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for shape in args.shapes.split(","):
        M, N, K = (int(x) for x in shape.split("x"))
        tf, best = run_shape(M, N, K, args.rounds, args.configs,
                             args.mma_sync)
        for n, v in sorted(tf.items()):
            print(f"  {shape} {n}: {v:.0f} TFLOP/s", flush=True)
        sync = {n: v for n, v in tf.items() if n.startswith("tilec_sm89")}
        if sync:
            best_sync = max(sync, key=sync.get)
            print(f"  {shape} mma.sync best {best_sync}: "
                  f"{sync[best_sync] / tf['scaled_mm']:.2f} of scaled_mm",
                  flush=True)
        rows.append((shape, tf, best))
    print("\n| M x N x K | scaled_mm TFLOP/s | tilec fp8 (pick) TFLOP/s | "
          "tilec / scaled_mm | tilec fp8 / cuBLAS bf16 |")
    print("|---|---|---|---|---|")
    for shape, tf, best in rows:
        if best is None:
            print(f"| {shape} | {tf['scaled_mm']:.0f} | — | — | — |")
            continue
        print(f"| {shape} | {tf['scaled_mm']:.0f} | {tf[best]:.0f} "
              f"({best[6:]}) | {tf[best] / tf['scaled_mm']:.2f} | "
              f"{tf[best] / tf['cublas_bf16']:.2f} |")


if __name__ == "__main__":
    main()
