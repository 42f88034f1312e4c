#!/usr/bin/env python3
"""kernels/linear.tile (x @ W^T, no bias) at GEMM shapes, tile by tile and
schedule by schedule, against cuBLAS (torch.matmul), graph-timed: which
schedule options the tuner should try for a problem of a few waves.

  PYTHONPATH=python python3 bench/gemm_schedules.py
      [--shapes 3000x5000x1000:f16,8192x14336x4096:bf16] [--top 8]

Every candidate is checked against cuBLAS (max error relative to the
output's largest value <= 2e-2) before it is timed as a CUDA graph of its
launches over 3 rotating input sets. Prints each shape's fastest --top,
with the ratio to cuBLAS, and the best of each schedule.
"""
import argparse
import itertools

import torch
import tilec

from skinny_linear import graph_us

SCHEDULES = {
    "choice": {},
    "s2": {"num_stages": 2},
    "s3": {"num_stages": 3},
    "s4": {"num_stages": 4},
    "pers-s4": {"persistent": True, "num_stages": 4},
    "s4-cm2": {"num_stages": 4, "cluster": 2, "CLUSTER_M": 2},
    "s4-cn2": {"num_stages": 4, "cluster": 2, "CLUSTER_N": 2},
    "k32-s6": {"TILE_K": 32, "num_stages": 6},
    "pers-k32-s6": {"TILE_K": 32, "num_stages": 6, "persistent": True},
    "pers-k32-s5-cm2": {"TILE_K": 32, "num_stages": 5, "persistent": True,
                        "cluster": 2, "CLUSTER_M": 2},
    "pers": {"persistent": True},
    "pers-s3": {"persistent": True, "num_stages": 3},
    "pers-static": {"persistent": True, "dynamic_schedule": False},
    "pers-cluster2": {"persistent": True, "cluster": 2},
    # Clusters of 2 whose blocks take neighbouring tiles along M (sharing
    # W's tile: multicast) or N (sharing X's).
    "pers-cm2": {"persistent": True, "cluster": 2, "CLUSTER_M": 2},
    "pers-cn2": {"persistent": True, "cluster": 2, "CLUSTER_N": 2},
    "pers-s3-cm2": {"persistent": True, "num_stages": 3, "cluster": 2,
                    "CLUSTER_M": 2},
    "pers-s4-cm2": {"persistent": True, "num_stages": 4, "cluster": 2,
                    "CLUSTER_M": 2},
    "pers-s5-cm2": {"persistent": True, "num_stages": 5, "cluster": 2,
                    "CLUSTER_M": 2},
    "k256-s4-pers": {"TILE_K": 256, "num_stages": 4, "persistent": True},
    "k256-s4-pers-cn2": {"TILE_K": 256, "num_stages": 4, "persistent": True,
                         "cluster": 2, "CLUSTER_N": 2},
    "k128-s6-pers-cn2": {"TILE_K": 128, "num_stages": 6, "persistent": True,
                         "cluster": 2, "CLUSTER_N": 2},
    # With a producer warp, so that the pair's X ring is shared.
    "k256-s4-ws": {"TILE_K": 256, "num_stages": 4, "warp_specialize": True},
    "k256-s4-ws-pers-cn2": {"TILE_K": 256, "num_stages": 4,
                            "warp_specialize": True, "persistent": True,
                            "cluster": 2, "CLUSTER_N": 2},
    "k128-s8-ws-pers-cn2": {"TILE_K": 128, "num_stages": 8,
                            "warp_specialize": True, "persistent": True,
                            "cluster": 2, "CLUSTER_N": 2},
    # Clusters without persistence (the multicast of a kernel launched in
    # clusters as it is): pairs along N sharing X, along M sharing W.
    "k256-s4-ws-cn2": {"TILE_K": 256, "num_stages": 4,
                       "warp_specialize": True, "cluster": 2, "CLUSTER_N": 2},
    "k128-s8-ws-cn2": {"TILE_K": 128, "num_stages": 8,
                       "warp_specialize": True, "cluster": 2, "CLUSTER_N": 2},
    "k256-s3-ws-cn4": {"TILE_K": 256, "num_stages": 3,
                       "warp_specialize": True, "cluster": 4, "CLUSTER_N": 4},
    "cm2": {"cluster": 2, "CLUSTER_M": 2},
    "cn2": {"cluster": 2, "CLUSTER_N": 2},
    "pers-pingpong": {"persistent": True, "ping_pong": True},
    "group16": {"GROUP_M": 16},
    "pers-group16": {"persistent": True, "GROUP_M": 16},
    # 8 warps: two warpgroups on a 64-row tile split its columns.
    "w8": {"num_warps": 8},
    "w8-pers": {"num_warps": 8, "persistent": True},
    # Deep rings, for skinny products (cuBLAS runs 64 x 4096 x 4096 on
    # 64 x 32 tiles with 16 stages).
    "s6": {"num_stages": 6},
    "s8": {"num_stages": 8},
    "k128": {"TILE_K": 128},
    "k128-s4": {"TILE_K": 128, "num_stages": 4},
    "k128-s6": {"TILE_K": 128, "num_stages": 6},
    "k128-s8": {"TILE_K": 128, "num_stages": 8},
    "k256-s3": {"TILE_K": 256, "num_stages": 3},
    "k256-s4": {"TILE_K": 256, "num_stages": 4},
    # cuBLAS's shape of ring (16 stages of K 64) with a producer warp.
    "k64-s16-ws": {"TILE_K": 64, "num_stages": 16, "warp_specialize": True},
    "k64-s12-ws": {"TILE_K": 64, "num_stages": 12, "warp_specialize": True},
    "k128-s8-ws": {"TILE_K": 128, "num_stages": 8, "warp_specialize": True},
    "k128-s6-ws": {"TILE_K": 128, "num_stages": 6, "warp_specialize": True},
}


class Problem:
    """A GEMM problem from "MxNxK:dtype": three rotating input sets (x, W as
    nn.Linear holds it) and their outputs, the first set's float32 product
    and its largest magnitude, and cuBLAS's time (us, graph-timed) for it;
    `next()` gives the next set's index."""

    def __init__(self, spec):
        dims, self.dname = spec.split(":")
        self.m, self.n, self.k = (int(v) for v in dims.split("x"))
        self.dtype = torch.float16 if self.dname == "f16" else torch.bfloat16
        self.sets = [(torch.randn(self.m, self.k, device="cuda",
                                  dtype=self.dtype),
                      torch.randn(self.n, self.k, device="cuda",
                                  dtype=self.dtype)) for _ in range(3)]
        self.outs = [torch.empty(self.m, self.n, device="cuda",
                                 dtype=self.dtype) for _ in range(3)]
        self.ref = self.sets[0][0].float() @ self.sets[0][1].float().T
        self.scale = self.ref.abs().max().item()
        self.flop = 2 * self.m * self.n * self.k
        self.it = 0

        def cublas():
            i = self.next()
            torch.matmul(self.sets[i][0], self.sets[i][1].T, out=self.outs[i])
        self.cublas_us = graph_us(cublas)

    def next(self):
        self.it = (self.it + 1) % 3
        return self.it


def linear_grid(m, n, tm, tn, opts):
    """linear.tile's grid for (tm, tn) tiles and schedule options `opts`:
    whole units of CLUSTER_M x CLUSTER_N tiles."""
    cm, cn = opts.get("CLUSTER_M", 1), opts.get("CLUSTER_N", 1)
    return ((m + tm * cm - 1) // (tm * cm) * cm *
            ((n + tn * cn - 1) // (tn * cn)) * cn, 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes",
                   default="3000x5000x1000:f16,8192x14336x4096:bf16,"
                   "4096x4096x4096:f16,2048x2048x8192:f16")
    p.add_argument("--schedules", default=",".join(SCHEDULES))
    p.add_argument("--tiles", default="128x128,128x256,256x128")
    p.add_argument("--top", type=int, default=8)
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    path = tilec.ops._kernel_path("linear.tile")
    for spec in args.shapes.split(","):
        pb = Problem(spec)
        m, n, k, dname, dtype = pb.m, pb.n, pb.k, pb.dname, pb.dtype
        sets, outs, ref, scale, flop = (pb.sets, pb.outs, pb.ref, pb.scale,
                                        pb.flop)
        dummy_b = torch.zeros(8, device="cuda", dtype=dtype)
        part = torch.empty(1, 1, 1, device="cuda", dtype=torch.float32)
        tick = torch.zeros(1, device="cuda", dtype=torch.int32)
        base = pb.cublas_us
        rows = []
        tiles = [tuple(int(v) for v in t.split("x"))
                 for t in args.tiles.split(",")]
        for (tm, tn), name in itertools.product(
                tiles, args.schedules.split(",")):
            opts = SCHEDULES[name]
            try:
                kern = tilec.compile(path, kernel="linear", DTYPE=dname,
                                     HAS_BIAS=False, ACT=0, TILE_M=tm,
                                     TILE_N=tn, **opts)
            except Exception as e:
                print(f"  {tm}x{tn} {name}: does not compile: "
                      f"{str(e).splitlines()[0][:100]}")
                continue
            grid = linear_grid(m, n, tm, tn, opts)
            outs[0].fill_(float("nan"))
            kern.launch(grid, sets[0][0], sets[0][1], dummy_b, outs[0],
                        part, tick)
            torch.cuda.synchronize()
            err = (outs[0].float() - ref).abs().max().item() / scale
            if not err <= 2e-2:
                print(f"  {tm}x{tn} {name}: WRONG (error {err:.3g})")
                continue

            def run(kern=kern, grid=grid):
                i = pb.next()
                kern.launch(grid, sets[i][0], sets[i][1], dummy_b, outs[i],
                            part, tick)
            us = graph_us(run)
            rows.append((us, f"{tm}x{tn}", name))
        rows.sort()
        print(f"{m}x{n}x{k} {dname}: cuBLAS {base:.1f} us "
              f"({flop / base * 1e-6:.0f} TFLOP/s)")
        for us, tile, name in rows[:args.top]:
            print(f"  {tile:8} {name:16} {us:8.1f} us "
                  f"{flop / us * 1e-6:5.0f} TFLOP/s  {base / us:.3f}")
        best = {}
        for us, tile, name in rows:
            best.setdefault(name, (us, tile))
        print("  best per schedule: " + ", ".join(
            f"{name} {base / us:.2f} ({tile})"
            for name, (us, tile) in best.items()))


if __name__ == "__main__":
    main()
