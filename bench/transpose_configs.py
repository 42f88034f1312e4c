#!/usr/bin/env python3
"""kernels/transpose.tile tile by tile and schedule by schedule against the
device copy of the same bytes (torch's copy_) and torch's x.t().contiguous(),
graph-timed: which configurations tilec.ops.transpose should tune over.

  PYTHONPATH=python python3 bench/transpose_configs.py [--shapes 8192x8192,4096x10000]
      [--dtype float16] [--rows 32,64,128] [--cols 32,64,128] [--warps 2,4,8]
      [--schedules plain,pers,pers-ts1] [--file variant.tile]

Every candidate is checked exactly against torch before it is timed.
"""
import argparse
import itertools

import torch
import tilec

from skinny_linear import graph_us, rotation

SCHEDULES = {"plain": {}, "pers": {"persistent": True},
             "pers-ts1": {"persistent": True, "tile_stages": 1}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="8192x8192,4096x10000")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--dtype", default="float16")
    p.add_argument("--rows", default="32,64,128")
    p.add_argument("--cols", default="32,64,128")
    p.add_argument("--warps", default="4,8")
    p.add_argument("--schedules", default=",".join(SCHEDULES))
    p.add_argument("--file", help="a .tile file with a kernel of "
                   "transpose.tile's signature to time instead")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    path = args.file or tilec.ops._kernel_path("transpose.tile")
    for spec in args.shapes.split(","):
        r, c = (int(v) for v in spec.split("x"))
        dt = getattr(torch, args.dtype)
        xs = [torch.randn(r, c, device="cuda", dtype=dt) for _ in range(3)]
        ys = [torch.empty(c, r, device="cuda", dtype=dt) for _ in range(3)]
        cs = [torch.empty(r, c, device="cuda", dtype=dt) for _ in range(3)]
        nxt = rotation(3)

        def copy():
            i = nxt()
            cs[i].copy_(xs[i])

        def torch_t():
            i = nxt()
            ys[i].copy_(xs[i].t())
        base = graph_us(copy)
        tt = graph_us(torch_t)
        gbs = 2 * r * c * xs[0].element_size() / base * 1e-3
        rows = []
        for tm, tn, warps, name in itertools.product(
                [int(v) for v in args.rows.split(",")],
                [int(v) for v in args.cols.split(",")],
                [int(v) for v in args.warps.split(",")],
                args.schedules.split(",")):
            if tm * tn < 64 * 8 or tm * tn < 32 * warps * 4:
                continue
            try:
                kern = tilec.compile(path, DTYPE={"float16": "f16",
                                                  "bfloat16": "bf16",
                                                  "float32": "f32"}[args.dtype],
                                     TILE_M=tm, TILE_N=tn,
                                     num_warps=warps, **SCHEDULES[name])
            except Exception as e:
                print(f"  {tm}x{tn} w{warps} {name}: {str(e)[:80]}")
                continue
            grid = ((r + tm - 1) // tm, (c + tn - 1) // tn)
            ys[0].fill_(float("nan"))
            kern.launch(grid, xs[0], ys[0])
            torch.cuda.synchronize()
            if not torch.equal(ys[0], xs[0].t()):
                print(f"  {tm}x{tn} w{warps} {name}: WRONG")
                continue

            def run(kern=kern, grid=grid):
                i = nxt()
                kern.launch(grid, xs[i], ys[i])
            rows.append((graph_us(run), f"{tm}x{tn} w{warps} {name}"))
        rows.sort()
        print(f"{r}x{c} {args.dtype}: copy {base:.1f} us ({gbs:.0f} GB/s), "
              f"torch transpose {tt:.1f} us ({base / tt:.2f} of copy)")
        for us, what in rows[:args.top]:
            print(f"  {what:24} {us:7.1f} us  {base / us:.2f} of copy  "
                  f"{tt / us:.2f}x torch")


if __name__ == "__main__":
    main()
