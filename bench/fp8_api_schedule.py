#!/usr/bin/env python3
"""tilec.attention on 8-bit tensors (python/tilec/fp8.py): each schedule the
API tunes over (fp8._candidates) forced, and the API's own tuned pick,
V read in place (keys contiguous) and V copied by the API (head dims
contiguous: at head_dim 128 into fragment order), against cuDNN's f16
attention on the dequantized inputs, interleaved in one run: which
candidates fp8._candidates should hold, and what the tuning picks.

  PYTHONPATH=python python3 bench/fp8_api_schedule.py [--rounds 10]
      [--head-dims 64,128,256] [--layouts "in place,copied"]

FlashAttention-3's setting: 16k tokens (batch = 16384 / N), hidden 2048
(heads = 2048 / D), N = 1k, 4k, 16k, causal and not. TFLOP/s of 4 N^2 D
per head (half for causal). Each variant's output is checked against
cuDNN's first. Candidate i is named c<i> (its Config printed once per
point); "tuned" is the API as a user calls it.
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


def forced(config, tag):
    """Runs tilec.fp8.attention with `config` as its only candidate (its
    own tuning class, so that the API's cache keeps each apart)."""
    candidates, key = tilec.fp8._candidates, tilec.fp8._tuning_key

    def run(*args, **kwargs):
        tilec.fp8._candidates = lambda *a: [config]
        tilec.fp8._tuning_key = lambda *a: key(*a) + ":" + tag
        try:
            return tilec.fp8.attention(*args, **kwargs)
        finally:
            tilec.fp8._candidates, tilec.fp8._tuning_key = candidates, key
    return run


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--layouts", default="in place,copied")
    args = p.parse_args()
    layouts = [(w, {"in place": 2, "copied": 3}[w])
               for w in args.layouts.split(",")]
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
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
                for where, vi in layouts:
                    # (The API copies V into fragment order at head_dim 128
                    # where it is not read in place.)
                    configs = tilec.fp8._candidates(
                        d, causal, n, where == "copied" and d == 128)
                    print(f"D={d} causal={causal} N={n} V {where}: " +
                          ", ".join(f"c{i} {c}"
                                    for i, c in enumerate(configs)),
                          flush=True)
                    named = [(f"c{i}", forced(c, f"c{i}-{where}"))
                             for i, c in enumerate(configs)]
                    named.append(("tuned", tilec.fp8.attention))
                    for name, api in named:
                        def run(s, api=api, vi=vi):
                            return api(s[0], s[1], s[vi], causal=causal,
                                       out=s[5])
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
                rows.append((d, causal, n, tf))
                print("  " + ", ".join(f"{k} {v:.0f}" for k, v in tf.items()),
                      flush=True)
    names = [k for k in rows[0][3] if k != "cudnn"] if rows else []
    print("\n| D | causal | N | cuDNN f16 | " + " | ".join(names) +
          " | tuned / c0 |")
    print("|---" * (4 + len(names)) + "|---|")
    for d, causal, n, tf in rows:
        ratio = " / ".join(f"{tf['tuned ' + w] / tf['c0 ' + w]:.3f}"
                           for w, _ in layouts)
        print(f"| {d} | {causal} | {n} | {tf['cudnn']:.0f} | " +
              " | ".join(f"{tf.get(k, 0):.0f}" for k in names) +
              f" | {ratio} |")


if __name__ == "__main__":
    main()
