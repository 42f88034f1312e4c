#!/usr/bin/env python3
"""A/B of AOT flash-attention PTX variants: kernels built by `tilec
--emit=ptx` with one compiler option on and off (scripts/ptx-ab.sh writes
them, named fa_M=..._N=..._W=..._S=..._C=..._D=..._SP=..._<variant>.ptx),
loaded with tilec.load_ptx and launched interleaved in one process (each
round launches every variant of a configuration five times, back to back,
on the same inputs; the figure is the median over 25 rounds), so that the
ratio does not move with the GPU's clocks. B=4, H=32, fp16, N = 1024, 2048,
8192 (--seq=N,N,... others); the ratio is the last variant's against the
first's. Each variant's output is compared with PyTorch's attention in float32
first.

With --check, instead: every variant at B=1, H=32 and 1, 2, 3, 4, 5, 8 and 9
key tiles (trip counts, odd and even past a peeled first trip; causal masking
included), poisoned outputs, against a float64
reference; exit status 1 on a mismatch. Small enough for compute-sanitizer:

  compute-sanitizer --tool racecheck --kernel-name kns=fmha \\
      python3 bench/ptx_ab.py --check DIR
"""
import argparse
import glob
import json
import math
import os
import sys

import torch
import tilec


def configs(directory):
    """{configuration: [(variant, path)]} from the file names."""
    groups = {}
    for path in sorted(glob.glob(os.path.join(directory, "fa_*.ptx"))):
        name = os.path.basename(path)[:-4]
        key, variant = name.rsplit("_", 1)
        groups.setdefault(key, []).append((variant, path))
    return groups


def parse(key):
    parts = dict(kv.split("=") for kv in key.split("_")[1:])
    return (int(parts["M"]), int(parts["N"]), int(parts["D"]),
            parts["C"] == "True")


def header(path):
    """The PTX's `// tilec-kernel:` description, or {}."""
    with open(path) as f:
        line = f.readline()
    if line.startswith("// tilec-kernel:"):
        return json.loads(line.split(":", 1)[1])
    return {}


def tile_m(path, default):
    """TILE_M from the PTX's `// tilec-kernel:` header (variants of one
    configuration may differ in it), else the file name's."""
    info = header(path)
    return int(dict(info.get("constants", [])).get("TILE_M", default))


def launch(kern, m, q, k, v, o):
    kern[(q.shape[2] // m, q.shape[0] * q.shape[1], 1)](
        q, k, v, o, 1 / math.sqrt(q.shape[3]), 0)


def check(groups):
    bad = 0
    for key, variants in groups.items():
        key_m, n, D, causal = parse(key)
        for variant, path in variants:
            kern = tilec.load_ptx(path)
            m = tile_m(path, key_m)
            cluster = header(path).get("cluster", 1)
            for trips in (1, 2, 3, 4, 5, 8, 9):
                N = n * trips
                if N % m or (N // m) % cluster:
                    continue  # (a cluster's query tiles: x its multiple)
                q = torch.randn(1, 32, N, D, device="cuda", dtype=torch.float16)
                k, v = torch.randn_like(q), torch.randn_like(q)
                o = torch.full_like(q, float("nan"))
                launch(kern, m, q, k, v, o)
                torch.cuda.synchronize()
                ref = torch.nn.functional.scaled_dot_product_attention(
                    q.double(), k.double(), v.double(), is_causal=causal)
                err = (o.double() - ref).abs().max().item()
                ok = err < 2e-2
                bad += not ok
                print(f"{key} {variant} N={N}: max error {err:.2e} "
                      f"{'ok' if ok else 'FAIL'}")
    print("FAILED" if bad else "ALL PASSED")
    return 1 if bad else 0


def bench(groups, seqs, verify=True):
    print("| configuration | N | " + " | ".join(["variant", "TFLOPS"] * 2) +
          " | ratio |")
    print("|---|---|---|---|---|---|---|")
    for key, variants in groups.items():
        m, n, D, causal = parse(key)
        kerns = [(variant, tilec.load_ptx(path), tile_m(path, m))
                 for variant, path in variants]
        for N in seqs:
            q = torch.rand(4, 32, N, D, device="cuda",
                           dtype=torch.float16) * 2 - 1
            k, v = torch.rand_like(q) * 2 - 1, torch.rand_like(q) * 2 - 1
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), is_causal=causal)
            outs = {}
            for variant, kern, vm in kerns:
                o = torch.full_like(q, float("nan"))
                launch(kern, vm, q, k, v, o)
                torch.cuda.synchronize()
                err = (o.float() - ref).abs().max().item()
                if verify and not err <= 1e-2:
                    sys.exit(f"{key} {variant} N={N}: max error {err}")
                outs[variant] = o
            times = {variant: [] for variant, _, _ in kerns}
            for _ in range(25):
                for variant, kern, vm in kerns:
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    for _ in range(5):
                        launch(kern, vm, q, k, v, outs[variant])
                    end.record()
                    torch.cuda.synchronize()
                    times[variant].append(start.elapsed_time(end) / 5)
            flops = 4 * 4 * 32 * N * N * D / (2 if causal else 1)
            row = []
            tf = []
            for variant, _, _ in kerns:
                t = sorted(times[variant])[len(times[variant]) // 2]
                tf.append(flops / t / 1e9)
                row += [variant, f"{tf[-1]:.1f}"]
            ratio = tf[-1] / tf[0]  # the last variant against the first
            print(f"| {key} | {N} | " + " | ".join(row) + f" | {ratio:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--seq", default="1024,2048,8192",
                        help="sequence lengths timed, comma separated")
    parser.add_argument("--no-verify", action="store_true",
                        help="time variants whose output is known to be "
                        "wrong (hand-edited PTX that bounds what a change "
                        "could gain)")
    args = parser.parse_args()
    groups = configs(args.dir)
    if not groups:
        sys.exit(f"no fa_*.ptx in {args.dir}")
    sys.exit(check(groups) if args.check else bench(groups, [int(n) for n in args.seq.split(",")],
                  not args.no_verify))


if __name__ == "__main__":
    main()
