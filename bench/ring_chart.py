#!/usr/bin/env python3
"""Draws bench/ring_attention.py's results (its --json files, one per GPU
count and mode) as one chart of scaling efficiency against the number of
GPUs: a bar per (GPUs, N, forward or forward + backward, implementation),
its length the per-GPU TFLOP/s over single-GPU tilec's at the same work per
GPU (1.0: perfect scaling), for tilec's ring and all-gather and for
PyTorch's context_parallel over SDPA.

  python3 bench/ring_chart.py RESULTS.json... -o chart.svg [--title TEXT]

SVG with Python alone (bench/ops_chart.py's drawing).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ops_chart import svg  # noqa: E402

IMPLS = (("ring", "tilec ring"), ("allgather", "tilec all-gather"),
         ("torch_cp", "torch context_parallel"))


def rows_of(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for r in data:
            single = r.get("single_tflops")
            if not single:
                continue
            mode = "fwd+bwd" if r.get("backward") else "fwd"
            for key, name in IMPLS:
                t = r.get(f"{key}_tflops")
                if t is None:
                    continue
                rows.append((r["world"], r["N"], mode, name,
                             t / single, f"{t:.0f} TFLOP/s per GPU"))
    rows.sort(key=lambda r: (r[0], r[2], r[1]))
    return [(f"{w} GPUs, N={n // 1024}k, {mode}, {name}", eff, note)
            for w, n, mode, name, eff, note in rows]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--title", default="ring attention: scaling efficiency "
                   "against GPUs")
    args = p.parse_args()
    rows = rows_of(args.results)
    if not rows:
        print("no rows", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(svg(rows, args.title,
                    legend="bar: per-GPU TFLOP/s / single-GPU tilec's at the "
                    "same work per GPU (1.0: perfect scaling)", most=1.2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
