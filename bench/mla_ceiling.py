#!/usr/bin/env python3
"""The multiply ceiling of MLA decode's trip (bench/kernels/mla_ceiling.tile:
kernels/mla_decode.tile's multiplies on operands loaded once, no softmax,
no loads in the loop), one block per multiprocessor, at TILE_N = 64 (each of
the two warpgroups a 32-column half of the scores, m64n32k16, as
mla_decode) and 128 (m64n64k16 halves): whether the scores' shape, not the
softmax or the loads, bounds mla_decode. The scores and P V are timed
apart (a trip of both on operands loaded once has loop-invariant scores,
which the compiler hoists); their sum bounds a trip of mla_decode.

  PYTHONPATH=python python3 bench/mla_ceiling.py [--trips 2000] [--rounds 7]

Each configuration is first checked against float64 at 3 trips, then timed
(CUDA events, median of --rounds launches after a warm-up). TFLOP/s count
2 x 64 x TILE_N x 576 a trip for the scores (MODE 1), 512 for P V (MODE 2),
and 576 + 512 for their sum at the same TILE_N.
"""
import argparse
import os

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "kernels", "mla_ceiling.tile")
DV, DK, M = 512, 576, 64
MODES = {1: "scores", 2: "P V"}
CONFIGS = ((64, 1), (64, 2), (128, 1), (128, 2))


def reference(mode, n, trips, q, kv, p):
    s = q.double() @ kv[:n].double().t()
    if mode == 1:
        return trips * s
    return trips * (p.double() @ kv[:n, :DV].double())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trips", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{sms} multiprocessors")
    q = torch.randn(M, DK, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(128, DK, device="cuda", dtype=torch.bfloat16)
    p = torch.randn(M, 128, device="cuda", dtype=torch.bfloat16)
    rows = []
    for n, mode in CONFIGS:
        kern = tilec.compile(SOURCE, TILE_N=n, MODE=mode)
        pm = p[:, :n].contiguous()
        kvn = kv[:n].contiguous()
        out = torch.full((sms, M, DV), float("nan"), device="cuda",
                         dtype=torch.bfloat16)
        kern.launch((sms,), q, kvn, pm, out, 3)
        torch.cuda.synchronize()
        want = reference(mode, n, 3, q, kv, pm)
        got = out[:, :, :want.shape[1]].double()
        err = ((got - want).abs().max() / want.abs().max()).item()
        if not err <= 2e-2:
            raise SystemExit(f"TILE_N={n} MODE={mode}: max |error| {err:.3g} "
                             f"of the largest")
        for _ in range(2):
            kern.launch((sms,), q, kvn, pm, out, args.trips)
        times = []
        for _ in range(args.rounds):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            kern.launch((sms,), q, kvn, pm, out, args.trips)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e-3)
        t = sorted(times)[len(times) // 2]
        dims = {1: DK, 2: DV}[mode]
        flops = 2 * M * n * dims * sms * args.trips
        rows.append((n, mode, t / args.trips * 1e9, flops / t / 1e12, err))
    print("\n| TILE_N | multiplies | ns a trip | TFLOP/s | max error |")
    print("|---|---|---|---|---|")
    for n, mode, ns, tf, err in rows:
        print(f"| {n} | {MODES[mode]} | {ns:.0f} | {tf:.0f} | {err:.1e} |")
    for n in sorted({n for n, _, _, _, _ in rows}):
        ns = sum(r[2] for r in rows if r[0] == n)
        tf = 2 * M * n * (DK + DV) * sms / (ns * 1e-9) / 1e12
        print(f"| {n} | scores + P V (sum) | {ns:.0f} | {tf:.0f} | - |")


if __name__ == "__main__":
    main()
