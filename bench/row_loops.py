#!/usr/bin/env python3
"""Row normalizations whose blocks take rows in turn (kernels/norms.tile's
ROW_LOOP: a loop over the grid's blocks, w and b loaded once, the next
row's copy into shared memory LATENCY - 1 trips ahead) against tilec.ops
(which tunes between them and one row a block for long rows on sm_90),
torch and the device copy of the same bytes, graph-timed over 3 rotating
input sets.

  PYTHONPATH=python python3 bench/row_loops.py [--shapes 4096x10000,...]
      [--ops rms_norm,layer_norm] [--dtype bfloat16] [--warps 4,8,16]
      [--latency 2,3] [--grids 1,0.5]   (grids: K x the blocks the GPU
                                         holds at once; tilec.ops launches
                                         16 warps' worth a multiprocessor)

Every candidate is checked against torch before it is timed.
"""
import argparse
import os

import torch
import tilec

from row_shapes import row_inputs
from skinny_linear import graph_us

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="4096x10000,8192x4096,4096x8192")
    p.add_argument("--ops", default="rms_norm,layer_norm")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--warps", default="4,8,16")
    p.add_argument("--latency", default="2,3")
    p.add_argument("--grids", default="1,0.5")
    p.add_argument("--top", type=int, default=6)
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    dsl = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[args.dtype]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    path = os.path.join(os.path.dirname(HERE), "kernels", "norms.tile")
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for shape in args.shapes.split(","):
        rows, n = (int(d) for d in shape.split("x"))
        xs, ys, w, b, nbytes, copy = row_inputs(rows, n, dtype)
        for op in args.ops.split(","):
            if op == "rms_norm":
                kernel, extra, eps = "rmsnorm", (w,), 1e-6
                theirs = lambda i: torch.nn.functional.rms_norm(  # noqa
                    xs[i], (n,), w, eps)
                ours = lambda i: tilec.ops.rms_norm(  # noqa
                    xs[i], w, eps, out=ys[i])
            else:
                kernel, extra, eps = "layernorm", (w, b), 1e-5
                theirs = lambda i: torch.nn.functional.layer_norm(  # noqa
                    xs[i], (n,), w, b, eps)
                ours = lambda i: tilec.ops.layer_norm(  # noqa
                    xs[i], w, b, eps, out=ys[i])
            want = theirs(0).float()
            t_torch = graph_us(lambda: [theirs(i) for i in range(3)]) / 3
            ours(0)
            t_ops = graph_us(lambda: [ours(i) for i in range(3)]) / 3
            results = [(t_ops, "tilec.ops (its choice)")]
            for warps in (int(v) for v in args.warps.split(",")):
                for lat in (int(v) for v in args.latency.split(",")):
                    layer = kernel == "layernorm"
                    extra_constants = dict(
                        EVEN=True, SHIFT=32 if dsl == "f32" else 1) \
                        if layer else {}
                    try:
                        k = tilec.compile(path, kernel=kernel, DTYPE=dsl,
                                          TILE_N=n, LATENCY=lat,
                                          ROW_LOOP=True, num_warps=warps,
                                          **extra_constants)
                    except tilec.TileError as e:
                        print(f"  {warps} warps latency {lat}: "
                              f"{str(e)[:80]}")
                        continue
                    if k.warnings:
                        print(f"  {warps} warps latency {lat}: "
                              f"{k.warnings[0][:80]}")
                        continue
                    occupancy = sms * k.blocks_per_sm
                    grids = {min(rows, max(1, int(float(g) * occupancy)))
                             for g in args.grids.split(",")}
                    grids.add(min(rows, sms * 16 // warps))
                    for grid in sorted(grids):

                        def run(i, k=k, grid=grid):
                            k[grid](xs[i], *extra, ys[i], eps)
                        ys[0].fill_(float("nan"))
                        run(0)
                        torch.cuda.synchronize()
                        err = (ys[0].float() - want).abs().max().item()
                        if not err < 5e-2:
                            print(f"  {warps} warps latency {lat} grid "
                                  f"{grid}: WRONG ({err})")
                            continue
                        t = graph_us(lambda: [run(i) for i in range(3)]) / 3
                        results.append((t, f"{warps} warps, latency {lat}, "
                                        f"{grid} blocks "
                                        f"({k.blocks_per_sm} an SM)"))
            results.sort()
            print(f"\n## {op} {shape} {args.dtype}: torch {t_torch:.1f} us, "
                  f"copy {copy:.1f} us ({nbytes / copy / 1e3:.0f} GB/s)")
            for t, what in results[:args.top]:
                print(f"  {what:44} {t:7.1f} us  {t_torch / t:.2f} of torch"
                      f"  {copy / t:.2f} of copy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
