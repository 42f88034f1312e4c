#!/usr/bin/env python3
"""Host time per attention call, once tuned: tilec.attention against
torch.nn.functional.scaled_dot_product_attention on the same small problem
(B=1, H=8, N=256, D=64, fp16, causal), so that the GPU keeps up and the
loop measures the host. Prints one JSON line per implementation:

  {"bench": "launch-overhead", "impl": "tilec", "variant": "out=given",
   "host_us": 12.3, ...}

  PYTHONPATH=python python3 bench/attention_overhead.py [--calls=2000]
"""
import argparse
import json
import statistics
import time

import torch

import tilec


def host_us(fn, calls, rounds=5):
    """Median over rounds of the mean host microseconds per call; each round
    enqueues `calls` calls and then waits for the GPU."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    results = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        end = time.perf_counter()
        torch.cuda.synchronize()
        results.append((end - start) / calls * 1e6)
    return statistics.median(results), min(results)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    q, k, v = (torch.randn(1, 8, 256, 64, device="cuda", dtype=torch.float16)
               for _ in range(3))
    out = torch.empty_like(q)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    tilec.attention(q, k, v, causal=True, out=out)  # compiles and tunes
    torch.cuda.synchronize()
    cases = [
        ("tilec", "out=given",
         lambda: tilec.attention(q, k, v, causal=True, out=out)),
        ("tilec", "out=allocated", lambda: tilec.attention(q, k, v,
                                                           causal=True)),
        ("torch-sdpa", "default", lambda: sdpa(q, k, v, is_causal=True)),
    ]
    for impl, variant, fn in cases:
        median, best = host_us(fn, args.calls)
        print(json.dumps({"bench": "launch-overhead", "impl": impl,
                          "variant": variant, "host_us": round(median, 2),
                          "host_us_min": round(best, 2),
                          "shape": [1, 8, 256, 64], "causal": True,
                          "gpu": torch.cuda.get_device_name()}), flush=True)


if __name__ == "__main__":
    main()
