#!/usr/bin/env python3
"""Row normalizations whose blocks take rows in turn
(bench/kernels/norms_rows.tile: a loop over the grid's blocks, the next
row's copy into shared memory pipelined with LATENCY > 0) against
tilec.ops (one row a block, kernels/norms.tile), torch and the device copy
of the same bytes, graph-timed over 3 rotating input sets.

  PYTHONPATH=python python3 bench/row_loops.py [--shapes 4096x10000,...]
      [--ops rms_norm,layer_norm] [--dtype bfloat16] [--warps 4,8]
      [--latency 0,2,3] [--grids 1,2]   (grids: K x the blocks the GPU
                                          holds at once)

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
    p.add_argument("--warps", default="4,8")
    p.add_argument("--latency", default="0,2,3")
    p.add_argument("--grids", default="1,2")
    p.add_argument("--top", type=int, default=6)
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    dsl = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[args.dtype]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    path = os.path.join(HERE, "kernels", "norms_rows.tile")
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
            results = [(t_ops, "tilec.ops (a row a block)")]
            for warps in (int(v) for v in args.warps.split(",")):
                for lat in (int(v) for v in args.latency.split(",")):
                    try:
                        k = tilec.compile(path, kernel=kernel, DTYPE=dsl,
                                          TILE_N=n, LATENCY=lat,
                                          num_warps=warps)
                    except tilec.TileError as e:
                        print(f"  {warps} warps latency {lat}: "
                              f"{str(e)[:80]}")
                        continue
                    if k.warnings:
                        print(f"  {warps} warps latency {lat}: "
                              f"{k.warnings[0][:80]}")
                        continue
                    for g in (float(v) for v in args.grids.split(",")):
                        grid = min(rows, max(1, int(
                            g * sms * k.blocks_per_sm)))

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
