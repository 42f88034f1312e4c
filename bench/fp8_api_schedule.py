#!/usr/bin/env python3
"""tilec.attention on 8-bit tensors (python/tilec/fp8.py) with and without
the consumer warpgroups multiplying in turns (ping_pong), V read in place
(keys contiguous) and V copied by the API (head dims contiguous: at head_dim
128 into fragment order), against cuDNN's f16 attention on the dequantized
inputs, interleaved in one run: which schedule fp8._schedule should give.

  PYTHONPATH=python python3 bench/fp8_api_schedule.py [--rounds 10]
      [--head-dims 64,128,256]

FlashAttention-3's setting: 16k tokens (batch = 16384 / N), hidden 2048
(heads = 2048 / D), N = 1k, 4k, 16k, causal and not. TFLOP/s of 4 N^2 D
per head (half for causal). Each variant's output is checked against
cuDNN's first.
"""
import argparse
import os
import sys

import torch
import tilec
import tilec.fp8
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

SCHEDULES = {"choice": lambda d, causal: {},
             "pp": lambda d, causal: {"ping_pong": True}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--head-dims", default="64,128,256")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    kept = tilec.fp8._schedule
    print("| D | causal | N | cuDNN f16 | " + " | ".join(
        f"{s} {v}" for v in ("in place", "copied") for s in SCHEDULES) +
        " | pp / choice in place | pp / choice copied |")
    print("|---" * (5 + 2 * len(SCHEDULES)) + "|---|")
    for d in map(int, args.head_dims.split(",")):
        for causal in (False, True):
            for n in (1024, 4096, 16384):
                b, h = 16384 // n, 2048 // d
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(b, h, n, d, device="cuda")
                               .to(torch.float8_e4m3fn) for _ in range(3))
                    # Keys contiguous (read in place) and head dims
                    # contiguous (the API copies it).
                    v_keys = v.transpose(2, 3).contiguous().transpose(2, 3)
                    sets.append((q, k, v_keys, v,
                                 [t.half() for t in (q, k, v)],
                                 torch.empty(b, h, n, d, device="cuda",
                                             dtype=torch.bfloat16)))

                def cudnn(s):
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        return sdpa(*s[4], is_causal=causal)
                impls = {"cudnn": cudnn}
                ref = cudnn(sets[0]).float()
                for name, sched in SCHEDULES.items():
                    for where, vi in (("in place", 2), ("copied", 3)):
                        def run(s, sched=sched, vi=vi):
                            tilec.fp8._schedule = sched
                            try:
                                return tilec.fp8.attention(
                                    s[0], s[1], s[vi], causal=causal,
                                    out=s[5])
                            finally:
                                tilec.fp8._schedule = kept
                        sets[0][5].fill_(float("nan"))
                        out = run(sets[0]).float()
                        err = ((out - ref).norm() / ref.norm()).item()
                        if not err < 5e-2:
                            raise SystemExit(f"{name} {where} D={d} N={n} "
                                             f"causal={causal}: wrong "
                                             f"({err})")
                        impls[f"{name} {where}"] = run
                ms = time_interleaved(torch, impls, sets, args.rounds)
                flops = 4.0 * n * n * d * b * h / (2 if causal else 1)
                tf = {k: flops / t / 1e9 for k, t in ms.items()}
                cols = [f"{tf[f'{s} {v}']:.0f}"
                        for v in ("in place", "copied") for s in SCHEDULES]
                print(f"| {d} | {causal} | {n} | {tf['cudnn']:.0f} | " +
                      " | ".join(cols) +
                      f" | {tf['pp in place'] / tf['choice in place']:.3f}"
                      f" | {tf['pp copied'] / tf['choice copied']:.3f} |",
                      flush=True)


if __name__ == "__main__":
    main()
