#!/usr/bin/env python3
"""Launches tilec.ops kernels for a profiler to read: for each OP:SHAPE
given (shapes as bench/ops.py writes them, e.g. transpose:8192x8192,
cross_entropy:2048x50257), the op once to compile (and tune) it, then
`--launches` more times on the same inputs. It times nothing itself; run
it under ncu with a kernel filter and --launch-skip 1, e.g.

  ncu --profile-from-start off --section SpeedOfLight --section \\
      WarpStateStats -k regex:transpose --launch-skip 1 --launch-count 1 \\
      python3 bench/profile_ops.py transpose:8192x8192

(--profile-from-start off: the launches after the first, which tunes.)
"""
import argparse

import torch

from ops import problem


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("problems", nargs="+", help="OP:ROWSxCOLS")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--launches", type=int, default=2)
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    for spec in args.problems:
        op, shape = spec.split(":")
        dims = tuple(int(v) for v in shape.split("x"))
        if op in ("matmul", "linear") and len(dims) == 3:
            dims += (args.dtype if op == "matmul" else None,)
        inputs, run, _, _, _ = problem(op, dims, dtype)
        run(inputs)  # compiles and tunes
        torch.cuda.synchronize()
        # Under `ncu --profile-from-start off`, only these launches count
        # (not the tuner's).
        torch.cuda.cudart().cudaProfilerStart()
        for _ in range(args.launches):
            run(inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        print(f"{spec} {args.dtype}: launched")


if __name__ == "__main__":
    main()
