#!/usr/bin/env python3
"""kernels/gemm_fp8.tile (8-bit wgmma) against torch._scaled_mm (cuBLAS fp8)
and against tilec's and cuBLAS's bf16 GEMM of the same shape, in one run.

  python3 bench/fp8_gemm.py [--rounds 30] [--shapes 4096x4096x4096,...]
                            [--configs] [--rowwise] [--ops] [--mma-sync]

For each M x N x K: A (M, K) and B (N, K) in f8e4m3, per-tensor scales,
bf16 output. The tilec kernel is compiled with no options (the compiler's
schedule, "choice") and persistent ("pers", and "pers3" with 3-stage rings,
room for the output's TMA store beside them); with --configs also at each
of its @tune tiles, with and without persistence; the best is reported.
--rowwise adds a scale per row of A and per row of B (SCALES=2) to both
sides: torch._scaled_mm's rowwise scaling against gemm_fp8's at the choice
and persistent. --ops adds tilec.ops.scaled_mm (tuned once per problem
class over every tile and schedule, before the timing). Each output is
checked against torch._scaled_mm first. Times are medians of CUDA-event
timings over `rounds` interleaved rounds on two rotating input sets
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
    yield "pers", {"persistent": True}
    yield "pers3", {"persistent": True, "num_stages": 3}
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
        if (tn, tk) == (256, 128):
            continue  # the choice's tiles, above
        yield f"{tn}x{tk}", {"TILE_N": tn, "TILE_K": tk}
        yield f"{tn}x{tk}+pers", {"TILE_N": tn, "TILE_K": tk,
                                  "persistent": True}


def run_shape(M, N, K, rounds, configs, mma_sync, rowwise, ops):
    sets = []
    one = torch.ones((), device="cuda")
    one1 = torch.ones(1, 1, device="cuda")
    for _ in range(2):
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16).T.contiguous()
        sa = torch.rand(M, 1, device="cuda") + 0.5
        sb = torch.rand(1, N, device="cuda") + 0.5
        sets.append((a, b, torch.empty(M, N, device="cuda",
                                       dtype=torch.bfloat16), a16, b16,
                     sa, sb))
    impls = {
        "scaled_mm": lambda s: torch._scaled_mm(
            s[0], s[1].T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
        "cublas_bf16": lambda s: torch.matmul(s[3], s[4]),
    }
    refs = {"tensor": impls["scaled_mm"](sets[0]).float()}
    if rowwise:
        impls["scaled_mm_rowwise"] = lambda s: torch._scaled_mm(
            s[0], s[1].T, scale_a=s[5], scale_b=s[6],
            out_dtype=torch.bfloat16)
        refs["rowwise"] = impls["scaled_mm_rowwise"](sets[0]).float()
    if ops:
        impls["tilec_ops"] = lambda s: tilec.ops.scaled_mm(
            s[0], s[1].T, one, one, out=s[2])
    kinds = [("tensor", 0)] + ([("rowwise", 2)] if rowwise else [])
    for name, options in candidates(configs, mma_sync):
        for kind, scales in kinds:
            if scales and name not in ("choice", "pers"):
                continue
            label = name + ("_rowwise" if scales else "")
            tn = options.get("TILE_N", 256)
            try:
                kern = tilec.compile(KERNEL, SCALES=scales, **options)
            except tilec.TileError as e:
                print(f"  {label}: {str(e).splitlines()[0]}", flush=True)
                continue
            grid = ((M + 127) // 128, (N + tn - 1) // tn)
            if scales:
                run = (lambda s, kern=kern, grid=grid:
                       kern[grid](s[0], s[1], s[2], s[5], s[6], 1.0))
            else:
                run = (lambda s, kern=kern, grid=grid:
                       kern[grid](s[0], s[1], s[2], one1, one1, 1.0))
            impls["tilec_" + label] = run
    for name in [n for n in impls if n.startswith("tilec_")]:
        ref = refs["rowwise" if name.endswith("_rowwise") else "tensor"]
        sets[0][2].fill_(float("nan"))
        impls[name](sets[0])
        torch.cuda.synchronize()
        err = ((sets[0][2].float() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            print(f"  {name}: wrong (relative error {err})", flush=True)
            del impls[name]
    ms = time_interleaved(torch, impls, sets, rounds)
    flops = 2.0 * M * N * K
    tf = {n: flops / t / 1e9 for n, t in ms.items()}
    mine = {n: v for n, v in tf.items()
            if n.startswith("tilec_") and not n.endswith("_rowwise")}
    best = max(mine, key=mine.get) if mine else None
    rows = {n: v for n, v in tf.items() if n.endswith("_rowwise")}
    best_rowwise = max((n for n in rows if n.startswith("tilec_")),
                       key=rows.get, default=None)
    return tf, best, best_rowwise


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192,"
                   "8192x14336x4096,8192x4096x14336,2048x2048x8192,"
                   "64x4096x4096")
    p.add_argument("--configs", action="store_true")
    p.add_argument("--rowwise", action="store_true")
    p.add_argument("--ops", action="store_true")
    p.add_argument("--mma-sync", action="store_true",
                   help="also time sm_89's mma.sync code")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for shape in args.shapes.split(","):
        M, N, K = (int(x) for x in shape.split("x"))
        tf, best, best_rowwise = run_shape(M, N, K, args.rounds,
                                           args.configs, args.mma_sync,
                                           args.rowwise, args.ops)
        for n, v in sorted(tf.items()):
            print(f"  {shape} {n}: {v:.0f} TFLOP/s", flush=True)
        sync = {n: v for n, v in tf.items() if n.startswith("tilec_sm89")}
        if sync:
            best_sync = max(sync, key=sync.get)
            print(f"  {shape} mma.sync best {best_sync}: "
                  f"{sync[best_sync] / tf['scaled_mm']:.2f} of scaled_mm",
                  flush=True)
        rows.append((shape, tf, best, best_rowwise))
    print("\n| M x N x K | scaled_mm TFLOP/s | tilec fp8 (pick) TFLOP/s | "
          "tilec / scaled_mm | choice / scaled_mm | ops / scaled_mm | "
          "tilec fp8 / cuBLAS bf16 | rowwise: tilec (pick) / scaled_mm |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, tf, best, best_rowwise in rows:
        ref = tf["scaled_mm"]

        def ratio(name, ref=ref, tf=tf):
            return f"{tf[name] / ref:.2f}" if name in tf else "—"
        row = "—"
        if best_rowwise is not None:
            row = (f"{tf[best_rowwise] / tf['scaled_mm_rowwise']:.2f} "
                   f"({best_rowwise[6:]}, {tf[best_rowwise]:.0f} / "
                   f"{tf['scaled_mm_rowwise']:.0f})")
        if best is None:
            print(f"| {shape} | {ref:.0f} | — | — | — | — | — | {row} |")
            continue
        print(f"| {shape} | {ref:.0f} | {tf[best]:.0f} ({best[6:]}) | "
              f"{ratio(best)} | {ratio('tilec_choice')} | "
              f"{ratio('tilec_ops')} | "
              f"{tf[best] / tf['cublas_bf16']:.2f} | {row} |")


if __name__ == "__main__":
    main()
