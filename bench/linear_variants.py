#!/usr/bin/env python3
"""kernels/linear.tile (y = x @ W^T, no bias) at chosen tiles and schedules
against cuBLAS (torch.nn.functional.linear) at one problem size, in one run:
each variant compiled with tilec.compile, checked against float64 (the
output poisoned with NaN first), then timed interleaved with cuBLAS (CUDA
events, medians, warm-up, four input sets in turn).

  python3 bench/linear_variants.py [--shape 3000,5000,1000] [--dtype float16]
      [--rounds 40] [--variants "NAME:KEY=V,...;..."] [--no-store] [--graphs]
      [--bmm BATCH]

Variants name tilec.compile's options and linear.tile's constants
(TILE_M, TILE_N, CLUSTER_M, persistent=True, cluster=2, num_stages=3, ...);
the default list is the tiles of bench/results/2026-12-02-h200-wave-fit-
tiles.md. --no-store also times each variant with its store under a
condition that never holds (the multiplies without the epilogue's writes),
to tell the main loop's time from the epilogue's. --graphs times each
variant as a CUDA graph of its launches over the input sets instead (the
GPU's time: at skinny shapes one launch from Python costs more than the
kernel runs, and launches timed one by one measure the host). --bmm BATCH
runs kernels/bmm.tile on BATCH products of the shape (a (BATCH, M, K), b
(BATCH, K, N)) against torch.bmm instead, with the same variants' syntax
(CLUSTER_M / CLUSTER_N, persistent, cluster, ...). Prints a markdown table.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402
from attention_bwd import parse_configs  # noqa: E402
from skinny_linear import graph_us  # noqa: E402

KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "linear.tile")
BMM_KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "bmm.tile")

DEFAULT_VARIANTS = (
    "p128x256c2M:TILE_M=128,TILE_N=256,CLUSTER_M=2,persistent=True,"
    "cluster=2,auto_schedule=True;"
    "256x152:TILE_M=256,TILE_N=152,auto_schedule=True;"
    "p256x152s3:TILE_M=256,TILE_N=152,persistent=True,num_stages=3,"
    "auto_schedule=True;"
    "p256x152c2Ms3:TILE_M=256,TILE_N=152,CLUSTER_M=2,persistent=True,"
    "cluster=2,num_stages=3,auto_schedule=True")


def no_store_source():
    """linear.tile with its final store under a condition that never holds
    (K is never above 2^30): the multiplies run, nothing is written."""
    text = open(KERNEL).read()
    store = "        store(Y, index=(bm, bn), tile=acc.astype(DTYPE))"
    assert store in text
    return text.replace(store, "        if X.shape[1] > 1073741824:\n    " +
                        store)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="3000,5000,1000", help="M,N,K")
    p.add_argument("--dtype", default="float16")
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--variants", default=DEFAULT_VARIANTS)
    p.add_argument("--no-store", action="store_true")
    p.add_argument("--graphs", action="store_true")
    p.add_argument("--bmm", type=int, default=0, metavar="BATCH",
                   help="kernels/bmm.tile on BATCH products of the shape "
                   "against torch.bmm instead")
    args = p.parse_args()
    m, n, k = (int(v) for v in args.shape.split(","))
    if args.bmm and args.no_store:
        p.error("--no-store: linear.tile only")
    dt = getattr(torch, args.dtype)
    dname = {"float16": "f16", "bfloat16": "bf16"}[args.dtype]
    batch = args.bmm
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{f'{batch} x ' if batch else ''}{m} x {n} x {k} {args.dtype}")
    torch.manual_seed(0)
    sets = []
    for _ in range(4):
        if batch:
            # bmm: a (batch, M, K), b (batch, K, N).
            x = torch.randn(batch, m, k, device="cuda", dtype=dt)
            w = torch.randn(batch, k, n, device="cuda", dtype=dt) / k ** 0.5
            out = torch.empty(batch, m, n, device="cuda", dtype=dt)
        else:
            x = torch.randn(m, k, device="cuda", dtype=dt)
            w = torch.randn(n, k, device="cuda", dtype=dt) / k ** 0.5
            out = torch.empty(m, n, device="cuda", dtype=dt)
        sets.append((x, w, out))
    if batch:
        ref = sets[0][0].double() @ sets[0][1].double()
    else:
        ref = sets[0][0].double() @ sets[0][1].double().t()
    no_bias = torch.zeros(8, device="cuda", dtype=dt)
    part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
    tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
    if batch:
        impls = {"cublas": lambda s: torch.bmm(s[0], s[1], out=s[2])}
    else:
        impls = {"cublas": lambda s: torch.nn.functional.linear(
            s[0], s[1], out=s[2])}
    notes = {}
    variants = parse_configs(args.variants)
    sources = [("", BMM_KERNEL if batch else KERNEL)] + (
        [("ns_", no_store_source())] if args.no_store else [])
    # The kernel, its constants beyond the variant's, and its launch's
    # arguments from an input set (x, w, out).
    if batch:
        kernel, fixed = "bmm", {}
        arguments = lambda s: s  # noqa: E731
    else:
        kernel, fixed = "linear", {"HAS_BIAS": False}
        arguments = lambda s: (s[0], s[1], no_bias, s[2], part,  # noqa: E731
                               tickets)
    for name, cfg in variants:
        for prefix, source in sources:
            kern = tilec.compile(source, kernel, arch="sm_90a", DTYPE=dname,
                                 **fixed, **cfg)
            cm, cn = cfg.get("CLUSTER_M", 1), cfg.get("CLUSTER_N", 1)
            tm = cfg.get("TILE_M", 128) * cm
            tn = cfg.get("TILE_N", 128) * cn
            grid = (-(-m // tm) * -(-n // tn) * cm * cn, 1) + \
                ((batch,) if batch else ())

            def run(s, kern=kern, grid=grid):
                kern.launch(grid, *arguments(s))
            if not prefix:
                s = sets[0]
                s[2].fill_(float("nan"))
                run(s)
                torch.cuda.synchronize()
                err = ((s[2].double() - ref).norm() / ref.norm()).item()
                if not err < 2e-3:
                    print(f"{name}: wrong (relative error {err:.3g})")
                    break
                notes[name] = (f"{kern.num_stages} stages, {kern.num_warps} "
                               f"warps, {kern.shared_bytes} B shared")
            impls[prefix + name] = run
    if args.graphs:
        ms = {name: graph_us(lambda run=run: [run(s) for s in sets],
                             rounds=args.rounds) / len(sets) / 1e3
              for name, run in impls.items()}
    else:
        ms = time_interleaved(torch, impls, sets, args.rounds)
    flops = 2.0 * m * n * k * max(batch, 1)
    print("| variant | schedule | us | TFLOP/s | of cuBLAS |")
    print("|---|---|---|---|---|")
    for name, t in sorted(ms.items(), key=lambda kv: kv[1]):
        print(f"| {name} | {notes.get(name, '')} | {t * 1e3:.1f} | "
              f"{flops / t / 1e9:.0f} | {ms['cublas'] / t:.3f} |")


if __name__ == "__main__":
    main()
