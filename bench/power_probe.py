#!/usr/bin/env python3
"""Clocks and power under sustained load: flash attention forward, tilec's
attention API against cuDNN, each launched back to back for --seconds on
its own while nvidia-smi samples the SM clock and the board's power draw.

A kernel that needs fewer cycles can still lose a back-to-back benchmark if
it draws more power: at the board's power limit the GPU lowers its clock.
This script tells the two apart. Per implementation and point, one JSON
object (steady state: the first --settle seconds are left out):

  {"impl": "cudnn", "bench": "power-probe", "B": 4, "H": 32, "N": 2048,
   "D": 128, "causal": false, "tflops": 604.1, "sm_mhz": 1755.0,
   "watts": 690.2, "joules_per_launch": 0.31, "launches": 6000}

  PYTHONPATH=python python3 bench/power_probe.py [--head-dim=128]
      [--seq-lens=2048,8192] [--masks=none] [--seconds=4] [--repeats=2]
      [--json=FILE]

Each point runs tilec, cuDNN, tilec, cuDNN, ... (--repeats of each) and
ends with a markdown table of the medians: TFLOP/s, SM clock and joules per
launch, and tilec / cuDNN.

Exit status 77 (skip) without torch, a GPU, nvidia-smi or the tilec package.
"""
import argparse
import json
import shutil
import subprocess
import sys
import threading
import time

B, H = 4, 32


class Sampler:
    """nvidia-smi's SM clock (MHz) and power draw (W), every 20 ms, with
    the time of each sample."""

    def __init__(self):
        self.samples = []
        self.proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=clocks.sm,power.draw",
             "--format=csv,noheader,nounits", "-lms", "20", "-i", "0"],
            stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            try:
                self.samples.append(
                    (time.monotonic(), float(parts[0]), float(parts[1])))
            except (ValueError, IndexError):
                pass

    def between(self, t0, t1):
        inside = [(c, w) for t, c, w in self.samples if t0 <= t <= t1]
        if not inside:
            return float("nan"), float("nan"), 0
        return (sum(c for c, _ in inside) / len(inside),
                sum(w for _, w in inside) / len(inside), len(inside))

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seq-lens", default="2048,8192")
    parser.add_argument("--masks", choices=("both", "causal", "none"),
                        default="none")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--settle", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs per implementation and point, "
                        "alternating")
    parser.add_argument("--json", default="power-probe.json")
    args = parser.parse_args()
    try:
        import torch
        import tilec
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        print(f"skip: {e}")
        return 77
    if not torch.cuda.is_available() or shutil.which("nvidia-smi") is None:
        print("skip: no GPU or no nvidia-smi")
        return 77

    def cudnn(q, k, v, o, causal):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal)

    def ours(q, k, v, o, causal):
        return tilec.attention(q, k, v, causal=causal, out=o)

    impls = {"tilec-api": ours, "cudnn": cudnn}
    masks = {"both": (False, True), "causal": (True,), "none": (False,)}
    sampler = Sampler()
    rows = []
    try:
        for n in (int(s) for s in args.seq_lens.split(",")):
            for causal in masks[args.masks]:
                d = args.head_dim
                q = torch.rand(B, H, n, d, device="cuda",
                               dtype=torch.float16) * 2 - 1
                k, v = torch.rand_like(q) * 2 - 1, torch.rand_like(q) * 2 - 1
                o = torch.empty_like(q)  # tilec's output, every launch
                ref = cudnn(q, k, v, o, causal)
                flops = 4 * B * H * n * n * d / (2 if causal else 1)
                for name, fn in [*impls.items()] * args.repeats:
                    o.fill_(float("nan"))
                    err = (fn(q, k, v, o, causal) - ref).abs().max().item()
                    if not err <= 1e-2:
                        print(f"{name} N={n}: max |error| {err}: not timed")
                        continue
                    torch.cuda.synchronize()
                    batch, launches, times = 10, 0, []
                    start = time.monotonic()
                    settled = start + args.settle
                    while time.monotonic() < start + args.seconds:
                        e0 = torch.cuda.Event(enable_timing=True)
                        e1 = torch.cuda.Event(enable_timing=True)
                        e0.record()
                        for _ in range(batch):
                            fn(q, k, v, o, causal)
                        e1.record()
                        e1.synchronize()
                        if time.monotonic() > settled:
                            times.append(e0.elapsed_time(e1) / batch)
                            launches += batch
                    end = time.monotonic()
                    mhz, watts, count = sampler.between(settled, end)
                    times.sort()
                    ms = times[len(times) // 2]
                    row = {"impl": name, "bench": "power-probe", "B": B,
                           "H": H, "N": n, "D": d, "causal": causal,
                           "tflops": round(flops / ms / 1e9, 1),
                           "sm_mhz": round(mhz, 1), "watts": round(watts, 1),
                           "joules_per_launch": round(watts * ms / 1e3, 4),
                           "cycles_per_launch_k": round(mhz * ms, 1),
                           "samples": count, "launches": launches}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    time.sleep(1.0)  # let the clocks recover between runs
    finally:
        sampler.stop()
    with open(args.json, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print(table(rows))
    return 0


def table(rows):
    """Markdown: per point, the medians of each implementation's runs and
    tilec / cuDNN in TFLOP/s, clock and energy per launch."""
    points = {}
    for r in rows:
        points.setdefault((r["D"], r["causal"], r["N"]), {}).setdefault(
            r["impl"], []).append(r)
    lines = ["| D | causal | N | tilec TFLOP/s | cuDNN | ratio | tilec MHz "
             "| cuDNN MHz | tilec J | cuDNN J | J ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (d, causal, n), impls in sorted(points.items()):
        if "tilec-api" not in impls or "cudnn" not in impls:
            continue

        def med(impl, key):
            values = sorted(r[key] for r in impls[impl])
            return values[len(values) // 2]
        t, c = med("tilec-api", "tflops"), med("cudnn", "tflops")
        tj = med("tilec-api", "joules_per_launch")
        cj = med("cudnn", "joules_per_launch")
        lines.append(
            f"| {d} | {'yes' if causal else 'no'} | {n} | {t} | {c} "
            f"| {t / c:.3f} | {med('tilec-api', 'sm_mhz')} "
            f"| {med('cudnn', 'sm_mhz')} | {tj} | {cj} | {tj / cj:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
