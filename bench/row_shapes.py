#!/usr/bin/env python3
"""The row kernels (kernels/norms.tile's rmsnorm and layernorm,
kernels/softmax.tile) at each (TILE_N, TILE_M, num_warps), TILE_N the row's
power of two and (from 513 columns) its own width, against PyTorch,
graph-timed: the data behind tilec.ops' _shape_for rule.

  PYTHONPATH=python python3 bench/row_shapes.py [--shapes 16384x1024,...]
                                                [--ops rms_norm,...]
                                                [--dtype float16] [--top 6]
                                                [--file norms_variant.tile]
                                                [--softmax-max 32768]

Each candidate is checked against PyTorch, then timed as a CUDA graph of
its launches over 3 rotating input sets (larger than L2 together), beside
torch's op and the device copy of the same bytes. Prints the fastest
--top per op and shape, in GB/s (read once, written once) and as a ratio to
PyTorch.
"""
import argparse

import torch
import tilec

from skinny_linear import graph_us


def row_inputs(rows, n, dtype):
    """Three rotating (rows, n) inputs (larger than L2 together) and their
    outputs, a weight and a bias of n, the bytes an op reads and writes,
    and the device copy's time for them (us, graph-timed): (xs, ys, w, b,
    nbytes, copy_us)."""
    xs = [torch.randn(rows, n, device="cuda", dtype=dtype) for _ in range(3)]
    ys = [torch.empty_like(x) for x in xs]
    w = torch.rand(n, device="cuda", dtype=dtype) + 0.5
    b = torch.randn(n, device="cuda", dtype=dtype)
    nbytes = 2 * xs[0].numel() * xs[0].element_size()
    copy = graph_us(lambda: [ys[i].copy_(xs[i]) for i in range(3)]) / 3
    return xs, ys, w, b, nbytes, copy


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="16384x1024,8192x4096,4096x10000")
    p.add_argument("--ops", default="rms_norm,layer_norm,softmax")
    p.add_argument("--dtype", default="float16")
    p.add_argument("--top", type=int, default=6)
    p.add_argument("--file", help="a variant of kernels/norms.tile for the "
                   "norms (the same kernels and parameters)")
    p.add_argument("--softmax-max", type=int, default=16384,
                   help="the widest softmax tile tried (tilec.ops holds up "
                   "to 16384 columns in one block)")
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    dsl = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[args.dtype]
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for shape in args.shapes.split(","):
        rows, n = (int(d) for d in shape.split("x"))
        pow2 = max(32, 1 << (n - 1).bit_length())
        # Rows of more than 512 columns also in tiles of the row's own
        # width (held padded to the power of two, loads stopping at n).
        tile_ns = [pow2] + ([n] if n != pow2 and n > 512 else [])
        xs, ys, w, b, nbytes, copy = row_inputs(rows, n, dtype)
        for op in args.ops.split(","):
            if op == "rms_norm":
                file, kernel = "norms.tile", "rmsnorm"
                extra = (w,)
                theirs = lambda i: torch.nn.functional.rms_norm(  # noqa
                    xs[i], (n,), w, 1e-6)
                scalars = (1e-6,)
            elif op == "layer_norm":
                file, kernel = "norms.tile", "layernorm"
                extra = (w, b)
                theirs = lambda i: torch.nn.functional.layer_norm(  # noqa
                    xs[i], (n,), w, b, 1e-5)
                scalars = (1e-5,)
            else:
                if pow2 > args.softmax_max:
                    continue
                file, kernel = "softmax.tile", "softmax"
                extra = ()
                theirs = lambda i: torch.softmax(xs[i], -1)  # noqa
                scalars = ()
            t_torch = graph_us(lambda: [theirs(i) for i in range(3)]) / 3
            want = theirs(0).float()
            results = []
            for tile_n, tile_m, warps in (
                    (t, m, w) for t in tile_ns for m in (1, 2, 4, 8, 16, 32)
                    for w in (1, 2, 4, 8, 16, 32)):
                if tile_m * pow2 > 65536 or tile_m * tile_n < 32 * warps * 4:
                    continue
                # A layernorm tile of the row's own width needs no column
                # mask (EVEN), as tilec.ops compiles it.
                even = {"EVEN": True} if (kernel == "layernorm" and
                                          tile_n == n) else {}
                try:
                    path = args.file if args.file and file == "norms.tile" \
                        else tilec.ops._kernel_path(file)
                    k = tilec.compile(path,
                                      kernel=kernel, DTYPE=dsl,
                                      TILE_M=tile_m, TILE_N=tile_n,
                                      num_warps=warps, **even)
                except tilec.TileError:
                    continue
                if k.warnings:
                    continue  # spills
                grid = (rows + tile_m - 1) // tile_m

                def run(i, k=k, grid=grid):
                    k[grid](xs[i], *extra, ys[i], *scalars)
                run(0)
                torch.cuda.synchronize()
                err = (ys[0].float() - want).abs().max().item()
                assert err < 5e-2, (op, shape, tile_m, warps, err)
                t = graph_us(lambda: [run(i) for i in range(3)]) / 3
                results.append((t, tile_n, tile_m, warps))
            results.sort()
            print(f"\n## {op} {shape} {args.dtype}: torch {t_torch:.1f} us "
                  f"({nbytes / t_torch / 1e3:.0f} GB/s), copy {copy:.1f} us "
                  f"({nbytes / copy / 1e3:.0f} GB/s)")
            for t, tile_n, tile_m, warps in results[:args.top]:
                print(f"  TILE_N={tile_n} TILE_M={tile_m} num_warps={warps}: "
                      f"{t:.1f} us, "
                      f"{nbytes / t / 1e3:.0f} GB/s, {t_torch / t:.2f} of "
                      f"torch, {copy / t:.2f} of copy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
