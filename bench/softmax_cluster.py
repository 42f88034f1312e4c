#!/usr/bin/env python3
"""kernels/softmax_cluster.tile by cluster size, warps and part width,
against the looped softmax (the row read twice) and the device copy of the
same bytes, graph-timed: which configuration tilec.ops.softmax should use
for rows past 16384 columns.

  PYTHONPATH=python python3 bench/softmax_cluster.py [--shapes 256x131072]
      [--dtype bfloat16] [--configs 8:16,8:8,4:32]   (cluster:warps)
      [--file variant.tile --rows 1,2,4 --stats]
      [--row-loop --clusters less1,fit1,rows --latency 2,3 --hold 0,1]   (the
       clusters loop over the rows, softmax_cluster.tile's ROW_LOOP, or a
       --file variant's: clusters a number, "rows" (one row each), "fitK"
       (K x the clusters the GPU holds at once), "lessK" (those of K
       blocks a multiprocessor fewer than fit: tilec.ops launches less1);
       LATENCY values)

Every candidate is checked against torch before it is timed.
"""
import argparse

import torch
import tilec

from skinny_linear import graph_us, rotation


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="256x131072,512x65536")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--configs", default="8:16,8:8,8:32,4:16,4:32,2:32")
    p.add_argument("--file", help="a variant of softmax_cluster.tile")
    p.add_argument("--rows", default="", help="ROWS values: a --file "
                   "variant's rows a cluster takes in turn")
    p.add_argument("--stats", action="store_true",
                   help="the --file variant takes (rows, 2 * CLUSTER) f32 "
                   "scratch after Y (the partials through global memory, "
                   "as softmax_cluster.tile did before cluster_gather)")
    p.add_argument("--clusters", default="",
                   help="a --file variant looping over rows: its grid's "
                   "clusters, each a number, 'rows' or 'fitK'")
    p.add_argument("--latency", default="",
                   help="LATENCY values of a --file variant")
    p.add_argument("--hold", default="",
                   help="HOLD_INPUT values (0,1): 16-bit parts held as read, "
                        "their exponentials computed twice")
    p.add_argument("--row-loop", action="store_true",
                   help="ROW_LOOP=True (softmax_cluster.tile's clusters "
                   "looping over rows)")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    dt = getattr(torch, args.dtype)
    dsl = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[args.dtype]
    path = args.file or tilec.ops._kernel_path("softmax_cluster.tile")
    per = [int(v) for v in args.rows.split(",")] if args.rows else [None]
    grids = args.clusters.split(",") if args.clusters else [None]
    lats = [int(v) for v in args.latency.split(",")] if args.latency \
        else [None]
    holds = [bool(int(v)) for v in args.hold.split(",")] if args.hold \
        else [None]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for spec in args.shapes.split(","):
        r, n = (int(v) for v in spec.split("x"))
        xs = [torch.randn(r, n, device="cuda", dtype=dt) * 4
              for _ in range(3)]
        ys = [torch.empty_like(xs[0]) for _ in range(3)]
        nxt = rotation(3)

        def copy():
            i = nxt()
            ys[i].copy_(xs[i])
        base = graph_us(copy)
        ref = torch.softmax(xs[0].float(), dim=-1)
        rows = []

        def looped():
            i = nxt()
            k = tilec.ops._compile("softmax_looped.tile", "softmax_looped",
                                   DTYPE=dsl, TILE_M=1,
                                   TILE_N=tilec.ops._chunk_tile(n, 16384),
                                   num_warps=16)
            k.launch(r, xs[i], ys[i])
        rows.append((graph_us(looped), "looped (read twice)"))
        for cfg, rpc, grid, lat, hold in [
                (c, q, g, la, h) for c in args.configs.split(",")
                for q in per for g in grids for la in lats for h in holds]:
            c, w = (int(v) for v in cfg.split(":"))
            tn = ((n + c - 1) // c + 7) // 8 * 8
            extra = {} if rpc is None else {"ROWS": rpc}
            if args.row_loop:
                extra["ROW_LOOP"] = True
            if lat is not None:
                extra["LATENCY"] = lat
            if hold is not None:
                extra["HOLD_INPUT"] = hold
            try:
                k = tilec.compile(path, DTYPE=dsl, CLUSTER=c, TILE_N=tn,
                                  num_warps=w, **extra)
            except Exception as e:
                print(f"  cluster {c} w{w}: {str(e)[:100]}")
                continue
            stats = (torch.empty(r, 2 * c, device="cuda",
                                 dtype=torch.float32),) if args.stats else ()
            blocks = (r + (rpc or 1) - 1) // (rpc or 1) * c
            if grid is not None and grid != "rows":
                held = max(1, sms * k.blocks_per_sm // c)
                if grid.isdigit():
                    clusters = int(grid)
                elif grid.startswith("less"):
                    fewer = int(grid[4:] or 1)
                    clusters = max(1, sms * max(1, k.blocks_per_sm - fewer)
                                   // c)
                else:
                    clusters = int(float(grid[3:] or 1) * held)
                blocks = min(r, clusters) * c
            ys[0].fill_(float("nan"))
            k.launch(blocks, xs[0], ys[0], *stats)
            err = (ys[0].float() - ref).abs().max().item()
            if not err < 1e-2:
                print(f"  cluster {c} w{w} rows {rpc} grid {grid} latency "
                      f"{lat}: WRONG ({err})")
                continue

            def run(k=k, blocks=blocks, stats=stats):
                i = nxt()
                k.launch(blocks, xs[i], ys[i], *stats)
            label = f"cluster {c} x {tn}, {w} warps" + \
                ("" if rpc is None else f", {rpc} rows") + \
                ("" if grid is None else f", {blocks // c} clusters"
                 f" ({k.blocks_per_sm} blocks/SM fit)") + \
                ("" if lat is None else f", latency {lat}") + \
                ("" if hold is None else f", held {int(hold)}")
            rows.append((graph_us(run), label))
        rows.sort()
        print(f"{spec} {args.dtype}: copy {base:.1f} us")
        for us, what in rows:
            print(f"  {what:64} {us:7.1f} us  {base / us:.2f} of copy")


if __name__ == "__main__":
    main()
