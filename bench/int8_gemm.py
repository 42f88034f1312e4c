#!/usr/bin/env python3
"""kernels/gemm_i8.tile (i8 x i8 -> i32 on the tensor cores) against
torch._int_mm (cuBLAS's int8 GEMM), in one process, launches interleaved
(bench/interleaved.py).

  PYTHONPATH=python python3 bench/int8_gemm.py [--rounds 20]
      [--shapes 4096x4096x4096,8192x8192x8192]

For each M x N x K: A (M, K) and B (N, K) in i8, C = A @ B^T in i32. The
kernel is compiled with no options ("choice"), persistent ("pers") and at
each of its @tune tiles persistent; every output is checked to equal
torch._int_mm's exactly before it is timed. Prints a markdown table of
TOPS and the best tilec / torch ratio.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

KERNEL = os.path.join(HERE, "..", "kernels", "gemm_i8.tile")
VARIANTS = {
    "choice": {},
    "pers": {"persistent": True},
    "pers 128x128x128": {"persistent": True, "TILE_N": 128},
    "pers 128x256x64": {"persistent": True, "TILE_K": 64},
    "pers 128x128x64": {"persistent": True, "TILE_N": 128, "TILE_K": 64},
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192,"
                                       "8192x14336x4096")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        sets = []
        for _ in range(2):
            a = torch.randint(-128, 128, (m, k), device="cuda",
                              dtype=torch.int8)
            b = torch.randint(-128, 128, (n, k), device="cuda",
                              dtype=torch.int8)
            sets.append((a, b, torch.empty(m, n, device="cuda",
                                           dtype=torch.int32)))
        one = torch.ones(1, 1, device="cuda")
        impls = {"torch": lambda s: torch._int_mm(s[0], s[1].T)}
        ref = impls["torch"](sets[0])
        for name, config in VARIANTS.items():
            try:
                kern = tilec.compile(KERNEL, "gemm_i8", **config)
            except Exception as e:  # noqa: BLE001 (reported, goes on)
                print(f"  {name}: compile: {str(e).splitlines()[0][:120]}")
                continue
            tm = 128
            tn = config.get("TILE_N", 256)

            def run(s, kern=kern, tn=tn):
                kern[(-(-m // tm), -(-n // tn))](s[0], s[1], s[2], one, one)
            sets[0][2].fill_(-1)
            run(sets[0])
            torch.cuda.synchronize()
            if not torch.equal(sets[0][2], ref):
                print(f"  {name}: wrong")
                continue
            impls[name] = run
        ms = time_interleaved(torch, impls, sets, args.rounds)
        tops = {name: 2 * m * n * k / (t * 1e-3) / 1e12
                for name, t in ms.items()}
        best = max((t for nm, t in tops.items() if nm != "torch"), default=0)
        print(f"{shape}: " + ", ".join(f"{nm} {t:.0f}"
                                       for nm, t in tops.items()), flush=True)
        rows.append((shape, tops["torch"], best))
    print("\n| M x N x K | torch._int_mm TOPS | tilec best TOPS | tilec / torch |")
    print("|---|---|---|---|")
    for shape, t, best in rows:
        print(f"| {shape} | {t:.0f} | {best:.0f} | {best / t:.3f} |")


if __name__ == "__main__":
    main()
