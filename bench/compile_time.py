"""Compile time of tilec against the size of a kernel: N straight-line loads
of 64 x 64 f32 tiles summed into one (test/Target/Inputs/many_loads.py),
through `tilec --emit=ptx`, median of a few runs each, on this machine (no
GPU needed). Prints a table of seconds and milliseconds per load; the growth
is linear when the last column stays flat.

usage: python3 bench/compile_time.py [--tilec build/bin/tilec]
                                     [--arch sm_90a] [--loads 25,50,...]
                                     [--runs 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tilec", default=os.path.join(root, "build/bin/tilec"))
    p.add_argument("--arch", default="sm_90a")
    p.add_argument("--loads", default="25,50,100,200,300,400,600")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    gen = os.path.join(root, "test/Target/Inputs/many_loads.py")
    print(f"tilec --emit=ptx --arch={args.arch}, median of {args.runs}")
    print(f"{'loads':>6} {'seconds':>8} {'ms/load':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.loads.split(",")]:
            src = os.path.join(tmp, f"loads{n}.tile")
            with open(src, "w") as f:
                subprocess.run([sys.executable, gen, str(n)], stdout=f,
                               check=True)
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                subprocess.run([args.tilec, "--emit=ptx", "--ptxas-check=false",
                                f"--arch={args.arch}",
                                src, "-o", os.devnull], check=True)
                times.append(time.perf_counter() - t0)
            t = statistics.median(times)
            print(f"{n:>6} {t:>8.2f} {1000 * t / n:>8.2f}")


main()
