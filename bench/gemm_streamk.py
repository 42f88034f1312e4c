#!/usr/bin/env python3
"""GEMMs whose blocks loop over their own work, written in the DSL: the
persistent GEMM a user writes (bench/kernels/persistent_gemm.tile: each
block's tiles in a loop of its own) and stream-K
(bench/kernels/linear_streamk.tile: the output tiles' K steps dealt out
evenly to one block per multiprocessor slot; STREAM_K=False: whole tiles,
consecutive ones a block), against cuBLAS and linear.tile's compiler-made
persistent schedules, graph-timed: whether a kernel's own loop nest gets
the compiler's schedule, and whether stream-K removes the last wave's idle
multiprocessors at shapes whose tiles are a fraction of a wave too many
(3000x5000x1000: 480 tiles of 128 x 256, 3.6 waves of 132).

  PYTHONPATH=python python3 bench/gemm_streamk.py
      [--shapes 3000x5000x1000:f16] [--tiles 128x256,128x128]
      [--options none,ws]

Each candidate is checked against a float32 product (max error relative
to the output's largest value <= 2e-2), twice on the same inputs (the
sums of a tile's partials run in block order: bit-identical), and its
tickets must be back at zero; then timed as a CUDA graph of its launches
over 3 rotating input sets.
"""
import argparse
import itertools
import os

import torch
import tilec

from gemm_schedules import SCHEDULES, Problem, linear_grid
from skinny_linear import graph_us

OPTIONS = {"none": {}, "ws": {"warp_specialize": True},
           "tiles": {"STREAM_K": False},
           "s2": {"num_stages": 2},
           "tiles-s3": {"STREAM_K": False, "num_stages": 3},
           "s3": {"num_stages": 3}, "s5": {"num_stages": 5}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="3000x5000x1000:f16")
    p.add_argument("--tiles", default="128x256,128x128")
    p.add_argument("--options", default="none")
    p.add_argument("--baseline", default="128x256:pers-cm2,128x256:pers",
                   help="linear.tile tile:schedule pairs to time beside")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "kernels", "linear_streamk.tile")
    linear = tilec.ops._kernel_path("linear.tile")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for spec in args.shapes.split(","):
        pb = Problem(spec)
        m, n, k, dname, dtype = pb.m, pb.n, pb.k, pb.dname, pb.dtype
        sets, outs, ref, scale, flop = (pb.sets, pb.outs, pb.ref, pb.scale,
                                        pb.flop)
        base = pb.cublas_us
        rows = []

        def timed(label, launch):
            outs[0].fill_(float("nan"))
            launch(0)
            torch.cuda.synchronize()
            err = (outs[0].float() - ref).abs().max().item() / scale
            if not err <= 2e-2:
                print(f"  {label}: WRONG (error {err:.3g})")
                return None
            first = outs[0].clone()
            launch(0)
            torch.cuda.synchronize()
            if not torch.equal(first, outs[0]):
                print(f"  {label}: NOT DETERMINISTIC")
                return None

            def run():
                launch(pb.next())
            rows.append((graph_us(run), label))
            return True

        for spec_b in args.baseline.split(",") if args.baseline else ():
            tile, name = spec_b.split(":")
            tm, tn = (int(v) for v in tile.split("x"))
            opts = SCHEDULES[name]
            kern = tilec.compile(linear, kernel="linear", DTYPE=dname,
                                 HAS_BIAS=False, ACT=0, TILE_M=tm, TILE_N=tn,
                                 **opts)
            grid = linear_grid(m, n, tm, tn, opts)
            dummy = torch.zeros(8, device="cuda", dtype=dtype)
            part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
            tick = torch.zeros(1, device="cuda", dtype=torch.int32)
            timed(f"linear {tile} {name}", lambda i, kern=kern, grid=grid:
                  kern.launch(grid, sets[i][0], sets[i][1], dummy, outs[i],
                              part, tick))

        # The persistent GEMM a user writes (a loop over the block's tiles,
        # grid-strided), one block per multiprocessor slot.
        pers = os.path.join(os.path.dirname(path), "persistent_gemm.tile")
        bts = [w.T.contiguous() for _, w in sets]
        for tile in args.tiles.split(","):
            tm, tn = (int(v) for v in tile.split("x"))
            try:
                kern = tilec.compile(pers, DTYPE=dname, OUT=dname, TILE_M=tm,
                                     TILE_N=tn)
            except Exception as e:
                print(f"  user's persistent loop {tile}: does not compile: "
                      f"{str(e).splitlines()[1][:110]}")
                continue
            blocks = sms * kern.blocks_per_sm
            timed(f"user's persistent loop {tile} ({blocks} blocks)",
                  lambda i, kern=kern, blocks=blocks:
                  kern.launch(blocks, sets[i][0], bts[i], outs[i]))

        for tile, oname in itertools.product(args.tiles.split(","),
                                             args.options.split(",")):
            tm, tn = (int(v) for v in tile.split("x"))
            try:
                kern = tilec.compile(path, DTYPE=dname, TILE_M=tm,
                                     TILE_N=tn, **OPTIONS[oname])
            except Exception as e:
                print(f"  stream-K {tile} {oname}: does not compile: "
                      f"{str(e).splitlines()[0][:100]}")
                continue
            blocks = sms * kern.blocks_per_sm
            tiles = ((m + tm - 1) // tm) * ((n + tn - 1) // tn)
            part = torch.empty(2 * blocks * tm, tn, device="cuda",
                               dtype=torch.float32)
            tick = torch.zeros(tiles, device="cuda", dtype=torch.int32)
            label = f"stream-K {tile} {oname} ({blocks} blocks)"
            if timed(label, lambda i, kern=kern, blocks=blocks, part=part,
                     tick=tick: kern.launch(blocks, sets[i][0], sets[i][1],
                                            outs[i], part, tick)):
                torch.cuda.synchronize()
                if tick.count_nonzero().item():
                    print(f"  {label}: tickets not back at zero")
        rows.sort()
        print(f"{m}x{n}x{k} {dname}: cuBLAS {base:.1f} us "
              f"({flop / base * 1e-6:.0f} TFLOP/s)")
        for us, label in rows:
            print(f"  {label:44} {us:8.1f} us {flop / us * 1e-6:5.0f} "
                  f"TFLOP/s  {base / us:.3f}")


if __name__ == "__main__":
    main()
