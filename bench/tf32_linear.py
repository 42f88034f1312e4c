#!/usr/bin/env python3
"""kernels/linear.tile on f32 tensors (multiplied as tf32 on the tensor
cores) against torch.nn.functional.linear with TF32 allowed (cuBLAS's tf32
GEMM), in one process, launches interleaved (bench/interleaved.py).

  PYTHONPATH=python python3 bench/tf32_linear.py [--rounds 20]
      [--shapes 4096x4096x4096,8192x8192x8192]

For each M x N x K: X (M, K) and W (N, K) in f32, Y = X @ W^T in f32. The
kernel is compiled with no options but its tile ("choice") and at a few
tiles and schedules, and through tilec.ops.linear ("ops", tuned once per
problem class); every output is checked against torch's (relative
Frobenius error below 1e-3: both read tf32) before it is timed. Prints a
markdown table of TFLOP/s and the best tilec / torch ratio.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

KERNEL = os.path.join(HERE, "..", "kernels", "linear.tile")
# TILE_K of 32: one f32 row of K is a 128-byte swizzle block.
VARIANTS = {
    "128x128": {"TILE_M": 128, "TILE_N": 128},
    "128x256": {"TILE_M": 128, "TILE_N": 256},
    "128x128 pers": {"TILE_M": 128, "TILE_N": 128, "persistent": True},
    "128x256 pers": {"TILE_M": 128, "TILE_N": 256, "persistent": True},
    "128x256 pers ws": {"TILE_M": 128, "TILE_N": 256, "persistent": True,
                        "warp_specialize": True, "num_warps": 8},
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        sets = []
        for _ in range(2):
            x = torch.randn(m, k, device="cuda")
            w = torch.randn(n, k, device="cuda")
            sets.append((x, w, torch.empty(m, n, device="cuda")))
        dummy = torch.empty(1, 1, 1, device="cuda")
        tickets = torch.zeros(1, device="cuda", dtype=torch.int32)
        bias = torch.empty(1, device="cuda")
        impls = {"torch": lambda s: torch.nn.functional.linear(s[0], s[1])}
        ref = impls["torch"](sets[0]).double()
        for name, config in VARIANTS.items():
            try:
                kern = tilec.compile(KERNEL, "linear", DTYPE="f32",
                                     HAS_BIAS=False, TILE_K=32, **config)
            except Exception as e:  # noqa: BLE001 (reported, goes on)
                print(f"  {name}: compile: {str(e).splitlines()[0][:160]}")
                continue
            tiles = -(-m // config["TILE_M"]) * -(-n // config["TILE_N"])

            def run(s, kern=kern, tiles=tiles):
                kern[(tiles, 1, 1)](s[0], s[1], bias, s[2], dummy, tickets)
            sets[0][2].fill_(float("nan"))
            run(sets[0])
            torch.cuda.synchronize()
            err = ((sets[0][2].double() - ref).norm() / ref.norm()).item()
            if not err < 1e-3:
                print(f"  {name}: wrong ({err:.2e})")
                continue
            impls[name] = run
        # tilec.ops.linear (tuned once for the problem class, here).
        impls["ops"] = lambda s: tilec.ops.linear(s[0], s[1], out=s[2])
        sets[0][2].fill_(float("nan"))
        impls["ops"](sets[0])
        torch.cuda.synchronize()
        err = ((sets[0][2].double() - ref).norm() / ref.norm()).item()
        pick = list(tilec.ops._linear_plans.values())[-1][0].config
        print(f"  ops: picked {pick}, error {err:.2e}", flush=True)
        ms = time_interleaved(torch, impls, sets, args.rounds)
        tf = {name: 2 * m * n * k / (t * 1e-3) / 1e12 for name, t in ms.items()}
        best = max((t for nm, t in tf.items() if nm != "torch"), default=0)
        print(f"{shape}: " + ", ".join(f"{nm} {t:.0f}"
                                       for nm, t in tf.items()), flush=True)
        rows.append((shape, tf["torch"], best))
    print("\n| M x N x K | torch (tf32) TFLOP/s | tilec best TFLOP/s | "
          "tilec / torch |")
    print("|---|---|---|---|")
    for shape, t, best in rows:
        print(f"| {shape} | {t:.0f} | {best:.0f} | {best / t:.3f} |")


if __name__ == "__main__":
    main()
