#!/usr/bin/env python3
"""The row kernels that read a row in chunks (kernels/softmax_looped.tile,
kernels/cross_entropy.tile (the flat kernel where rows are not 16-byte
aligned), kernels/reduce.tile's sum) at each (TILE_N, num_warps), against
PyTorch and the device copy, graph-timed: the data behind tilec.ops' chunk
widths.

  PYTHONPATH=python python3 bench/loop_shapes.py [--dtype bfloat16]
      [--softmax 256x131072,...] [--ce 2048x50257,...] [--sum 4096x10000]
      [--ce-tiles 2048,4096,8192] [--ce-warps 4,8] [--ce-clusters 1,2,4]
      [--ce-groups 8,0]
      [--top 4]

Each candidate is checked against PyTorch, then timed as a CUDA graph of
its launches over 3 rotating input sets (larger than L2 together). GB/s
counts the compulsory bytes (softmax: read and write; cross-entropy and
sum: the read); "of copy" is that over the device copy's GB/s (the input
read and written), as in bench/ops.py.
"""
import argparse
import itertools

import torch
import tilec

from skinny_linear import graph_us

DSL = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}


def chunk(n, most):
    return tilec.ops._chunk_tile(n, most)


def candidates(n, tiles, warps):
    seen = []
    for most in tiles:
        t = chunk(n, most)
        for w in warps:
            if (t, w) not in seen and t >= 32 * w * 4:
                seen.append((t, w))
    return seen


def sweep(label, rows, n, dtype, make, nbytes, theirs, check, top,
          names=("TILE_N", "num_warps")):
    xs = [torch.randn(rows, n, device="cuda", dtype=dtype) * 3
          for _ in range(3)]
    # The device copy of the input (read and written), as bench/ops.py.
    copies = [torch.empty_like(x) for x in xs]
    copy = graph_us(lambda: [copies[i].copy_(xs[i]) for i in range(3)]) / 3
    copy_gbs = 2 * xs[0].numel() * xs[0].element_size() / copy / 1e3
    t_torch = graph_us(lambda: [theirs(xs[i]) for i in range(3)]) / 3
    results = []
    for config, run in make(n):
        outs = [run(x) for x in xs]  # allocates outputs once
        torch.cuda.synchronize()
        check(xs[0], outs[0])
        t = graph_us(lambda: [run(xs[i], outs[i]) for i in range(3)]) / 3
        results.append((t, config))
    results.sort()
    print(f"\n## {label} {rows}x{n} {dtype}: torch {t_torch:.1f} us, copy "
          f"{copy:.1f} us ({copy_gbs:.0f} GB/s)")
    for t, config in results[:top]:
        print(f"  {' '.join(f'{a}={b}' for a, b in zip(names, config))}: "
              f"{t:.1f} us, "
              f"{nbytes / t / 1e3:.0f} GB/s, {t_torch / t:.2f} of torch, "
              f"{nbytes / t / 1e3 / copy_gbs:.2f} of copy")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--softmax", default="256x131072,1024x32768")
    p.add_argument("--ce", default="2048x50257,4096x32000,1024x128256")
    p.add_argument("--sum", default="4096x10000")
    p.add_argument("--ce-tiles", default="2048,4096,8192",
                   type=lambda t: [int(v) for v in t.split(",")],
                   help="cross-entropy chunks of at most these widths")
    p.add_argument("--ce-warps", default="4,8",
                   type=lambda t: [int(v) for v in t.split(",")])
    p.add_argument("--ce-groups", default="8",
                   type=lambda t: [int(v) for v in t.split(",")],
                   help="cross-entropy's running max and sum per GROUP "
                   "columns (0: one per row, a block-wide max and sum "
                   "every chunk)")
    p.add_argument("--ce-clusters", default="1",
                   type=lambda t: [int(v) for v in t.split(",")],
                   help="rows split over clusters of these many blocks "
                   "(cross_entropy_cluster on the flat view, sm_90; 1: "
                   "one block a row)")
    p.add_argument("--ce-edge-split", type=int, default=2,
                   help="the flat cross-entropy kernel's EDGE chunks "
                   "(a row's ends) TILE_N / this wide, as tilec.ops "
                   "(1: every chunk TILE_N wide)")
    p.add_argument("--sum-op", type=int, default=0,
                   help="reduce.tile's OP for --sum: 0 sum, 1 max, 2 min")
    p.add_argument("--sum-latency", default="1",
                   type=lambda t: [int(v) for v in t.split(",")],
                   help="reduce.tile's LATENCY (the sum's loads copied into "
                   "shared memory LATENCY - 1 trips ahead)")
    p.add_argument("--top", type=int, default=4)
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    dsl = DSL[args.dtype]
    path = tilec.ops._kernel_path
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")

    for shape in filter(None, args.softmax.split(",")):
        rows, n = (int(d) for d in shape.split("x"))

        def make(n, rows=rows):
            for tile_n, warps in candidates(n, (4096, 8192, 16384),
                                            (4, 8, 16)):
                k = tilec.compile(path("softmax_looped.tile"), DTYPE=dsl,
                                  TILE_M=1, TILE_N=tile_n, num_warps=warps)
                if k.warnings:
                    continue

                def run(x, y=None, k=k):
                    y = torch.empty_like(x) if y is None else y
                    k[rows](x, y)
                    return y
                yield (tile_n, warps), run

        def check(x, y):
            err = (y.float() - torch.softmax(x.float(), -1)).abs().max()
            assert err.item() < 1e-2, err

        sweep("softmax_looped", rows, n, dtype, make,
              2 * rows * n * dtype.itemsize,
              lambda x: torch.softmax(x, -1), check, args.top)

    for shape in filter(None, args.ce.split(",")):
        rows, v = (int(d) for d in shape.split("x"))
        t = torch.randint(0, v, (rows,), device="cuda", dtype=torch.int32)

        def make(v, rows=rows):
            # Rows 16-byte aligned: the 2-D kernel, else the flat one.
            flat = (v * dtype.itemsize) % 16 != 0
            for (tile_n, warps), cluster, group in itertools.product(
                    candidates(v, args.ce_tiles, args.ce_warps),
                    args.ce_clusters, args.ce_groups):
                group = group or tile_n
                if tile_n % group:
                    continue
                if cluster == 1:
                    kernel = "cross_entropy_flat" if flat \
                        else "cross_entropy"
                    # (The flat kernel's row ends in chunks of TILE_N /
                    # --ce-edge-split: 1, every chunk TILE_N wide.)
                    extra = {"EDGE": tile_n // args.ce_edge_split} if flat \
                        else {"TILE_M": 1}
                    if flat and tile_n % args.ce_edge_split:
                        continue
                else:
                    kernel = "cross_entropy_cluster"
                    extra = {"CLUSTER": cluster}
                k = tilec.compile(path("cross_entropy.tile"), DTYPE=dsl,
                                  kernel=kernel, TILE_N=tile_n, GROUP=group,
                                  num_warps=warps, **extra)
                if k.warnings:
                    continue

                def run(x, out=None, k=k, cluster=cluster, kernel=kernel):
                    out = out or (torch.empty(rows, device="cuda"),
                                  torch.empty(rows, device="cuda"))
                    if cluster > 1:
                        k[rows * cluster](x.view(-1), t, *out, v)
                    elif kernel == "cross_entropy_flat":
                        k[rows](x.view(-1), t, *out, v)
                    else:
                        k[rows](x, t, *out)
                    return out
                yield (tile_n, warps, cluster, group), run

        def check(x, out):
            want = torch.nn.functional.cross_entropy(x.float(), t.long(),
                                                     reduction="none")
            assert (out[0] - want).abs().max().item() < 1e-3

        sweep("cross_entropy", rows, v, dtype, make,
              rows * v * dtype.itemsize,
              lambda x: torch.nn.functional.cross_entropy(
                  x, t.long(), reduction="none"), check, args.top,
              ("TILE_N", "num_warps", "cluster", "GROUP"))

    for shape in filter(None, args.sum.split(",")):
        rows, n = (int(d) for d in shape.split("x"))

        def make(n, rows=rows):
            for (tile_n, warps), latency in itertools.product(
                    candidates(n, (2048, 4096, 8192), (4, 8)),
                    args.sum_latency):
                k = tilec.compile(path("reduce.tile"), DTYPE=dsl, OUT=dsl,
                                  OP=args.sum_op, TILE_M=1, TILE_N=tile_n,
                                  LATENCY=latency, num_warps=warps)
                if k.warnings:
                    continue

                def run(x, out=None, k=k):
                    out = torch.empty(rows, device="cuda", dtype=x.dtype) \
                        if out is None else out
                    k[rows](x, out)
                    return out
                yield (tile_n, warps, latency), run

        ours = {0: lambda x: x.sum(-1), 1: lambda x: x.amax(-1),
                2: lambda x: x.amin(-1)}[args.sum_op]

        def check(x, out):
            want = ours(x.float())
            err = ((out.float() - want).abs() / (want.abs() + 1)).max()
            assert err.item() < 2e-2, err

        sweep(["sum", "amax", "amin"][args.sum_op], rows, n, dtype, make,
              rows * n * dtype.itemsize, ours, check, args.top,
              ("TILE_N", "num_warps", "LATENCY"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
