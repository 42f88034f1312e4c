#!/usr/bin/env python3
"""Where a kernel's time goes, from its timeline (tilec's timeline=N option:
the tile-timeline pass records when each warpgroup of each block reaches the
kernel's start and end and each loop's entry, trips and exit). For
kernels/linear.tile (y = x @ W^T, f16) or kernels/flash_attention.tile
(f16, non-causal) at one size and one configuration: the instrumented and
the plain kernel's times (CUDA events, medians), then the table of steps
between consecutive sites (count, median cycles, share of all cycles), then,
for the consumers' first loop (a persistent kernel's tile loop), the median
tile time per trip of that loop in cycles and in ns.

  PYTHONPATH=python python3 bench/timeline.py --kernel linear \\
      --shape 3000,5000,1000 \\
      --config "TILE_M=128,TILE_N=256,CLUSTER_M=2,persistent=True,cluster=2"
  PYTHONPATH=python python3 bench/timeline.py --kernel attention \\
      --shape 16,16,1024,128 --config "TILE_M=128,TILE_N=128"
"""
import argparse
import math
import os
import statistics

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(os.path.dirname(HERE), "kernels")


def parse_config(text):
    out = {}
    for item in filter(None, text.split(",")):
        key, value = item.split("=", 1)
        if value in ("True", "False"):
            out[key] = value == "True"
        else:
            try:
                out[key] = int(value)
            except ValueError:
                out[key] = value
    return out


def setup(kind, shape, config, timeline):
    if kind == "linear":
        m, n, k = shape
        cfg = dict(DTYPE="f16", HAS_BIAS=False, **config)
        kern = tilec.compile(os.path.join(KERNELS, "linear.tile"), "linear",
                             timeline=timeline, **cfg)
        x = torch.randn(m, k, device="cuda", dtype=torch.float16)
        w = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** .5
        y = torch.empty(m, n, device="cuda", dtype=torch.float16)
        nb = torch.zeros(8, device="cuda", dtype=torch.float16)
        part = torch.empty(1, 1, 1, device="cuda")
        tick = torch.zeros(1, device="cuda", dtype=torch.int32)
        tm = cfg.get("TILE_M", 128) * cfg.get("CLUSTER_M", 1)
        grid = (-(-m // tm) * cfg.get("CLUSTER_M", 1) *
                -(-n // cfg.get("TILE_N", 128)), 1)
        run = lambda: kern.launch(grid, x, w, nb, y, part, tick)  # noqa
        check = lambda: ((y.double() - x.double() @ w.double().t()).abs()  # noqa
                         .max().item())
        return kern, run, check
    b, h, n, d = shape
    cfg = dict(DTYPE="f16", TILE_D=d, H=h, CAUSAL=False, **config)
    kern = tilec.compile(os.path.join(KERNELS, "flash_attention.tile"),
                         "fmha", timeline=timeline, **cfg)
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16)
               for _ in range(3))
    o = torch.empty_like(q)
    grid = (n // cfg.get("TILE_M", 64), b * h)
    run = lambda: kern.launch(grid, q, k, v, o, 1 / math.sqrt(d), 0)  # noqa
    check = lambda: (o.float() - torch.nn.functional  # noqa
                     .scaled_dot_product_attention(q, k, v).float()).abs().max().item()
    return kern, run, check


def time_us(run, rounds=30):
    times = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record()
        run()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernel", choices=("linear", "attention"),
                   default="linear")
    p.add_argument("--shape", default="3000,5000,1000")
    p.add_argument("--config", default="TILE_M=128,TILE_N=256,CLUSTER_M=2,"
                                        "persistent=True,cluster=2")
    p.add_argument("--records", type=int, default=1024)
    args = p.parse_args()
    shape = tuple(int(s) for s in args.shape.split(","))
    config = parse_config(args.config)
    plain, run_plain, _ = setup(args.kernel, shape, config, 0)
    kern, run, check = setup(args.kernel, shape, config, args.records)
    for f in (run_plain, run):
        for _ in range(3):
            f()
    print(f"{args.kernel} {shape} {config}: max error {check():.3g}")
    print(f"plain {time_us(run_plain):.1f} us, with the timeline "
          f"{time_us(run):.1f} us")
    run()
    t = kern.timeline()
    if t.full():
        print(f"note: {len(t.full())} logs full ({args.records} records): "
              f"raise --records")
    print(f"{t.blocks} blocks x {t.warpgroups} warpgroups, span "
          f"{t.span_ns() / 1e3:.1f} us")
    print(t.table())
    # The consumers' (or the kernel's) first loop: its trips' lengths.
    first = next((i for i, s in enumerate(t.sites)
                  if s.endswith(" trip")), None)
    if first is not None:
        cycles, ns = [], []
        for log in t.logs().values():
            trips = [r for r in log if r.site == first]
            for a, b in zip(trips, trips[1:]):
                cycles.append((b.clock - a.clock) % 2**32)
                ns.append(b.ns - a.ns)
        if cycles:
            print(f"{t.sites[first]}: median trip {statistics.median(cycles):.0f}"
                  f" cycles, {statistics.median(ns):.0f} ns "
                  f"({statistics.median(cycles) / statistics.median(ns):.2f} "
                  f"GHz)")


if __name__ == "__main__":
    main()
