#!/usr/bin/env python3
"""Attention with scores in two parts (kernels/attention_rope.tile: MLA's
latent and rotary dimensions at prefill, D = 128 + DR = 64, values of 128),
a kernel written plainly, compiled with no options (the compiler's choice on
sm_90a) and with schedules of the compiler switched off one at a time,
against cuDNN's SDPA on the same problem (queries and keys of 192
dimensions, the two parts joined; values of 128), f16, FlashAttention-3's
16k tokens and 16 heads, non-causal, in one process with launches
interleaved (bench/interleaved.py). Every variant's output is checked
against float64 on two heads first.

  PYTHONPATH=python python3 bench/attention_rope.py [--seq-lens 1024,4096,16384]
                                                    [--rounds 20]

Variants: choice (no options), norotate (rotate_wgmma=False), and before
(rotate_wgmma=False, persistent=False, num_stages=2: what the compiler
chose before it counted the scores' two multiplies as one chain).
"""
import argparse
import math
import os
import sys

import torch
import tilec
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "attention_rope.tile")
VARIANTS = {"choice": {},
            "norotate": {"rotate_wgmma": False},
            "before": {"rotate_wgmma": False, "persistent": False,
                       "num_stages": 2}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seq-lens", default="1024,4096,16384")
    p.add_argument("--rounds", type=int, default=20)
    args = p.parse_args()
    D, DR, H = 128, 64, 16
    print(f"{torch.cuda.get_device_name()}, f16, 16k tokens, {H} heads, "
          f"D = {D} + {DR}, {args.rounds} rounds\n")
    print("| N | choice TFLOP/s | norotate | before | cuDNN | choice / before "
          "| choice / cuDNN |")
    print("|---|---|---|---|---|---|---|")
    kernels = {name: tilec.compile(KERNEL, **opts)
               for name, opts in VARIANTS.items()}
    status = 0
    for N in (int(n) for n in args.seq_lens.split(",")):
        B = max(1, 16384 // N)
        sets = []
        for _ in range(2):
            q, k = (torch.randn(B * H, N, D, device="cuda",
                                dtype=torch.float16) for _ in range(2))
            qr, kr = (torch.randn(B * H, N, DR, device="cuda",
                                  dtype=torch.float16) for _ in range(2))
            v = torch.randn(B * H, N, D, device="cuda", dtype=torch.float16)
            joined = (torch.cat([q, qr], -1).view(B, H, N, D + DR),
                      torch.cat([k, kr], -1).view(B, H, N, D + DR),
                      v.view(B, H, N, D))
            sets.append((q, qr, k, kr, v, torch.empty_like(q)) + joined)
        scale = 1 / math.sqrt(D + DR)
        s = sets[0]
        ref = torch.softmax(
            (s[6][0, :2].double() @ s[7][0, :2].double().transpose(1, 2)) *
            scale, -1) @ s[8][0, :2].double()
        impls = {}
        for name, kern in kernels.items():
            def run(s, kern=kern, grid=(N // 128, B * H)):
                kern[grid](s[0], s[1], s[2], s[3], s[4], s[5], scale)
            s[5].fill_(float("nan"))
            run(s)
            torch.cuda.synchronize()
            err = (s[5][:2].double() - ref).abs().max().item()
            if not err <= 1e-2:
                print(f"  N={N}: {name} differs from float64 by {err}")
                status = 1
                continue
            impls[name] = run

        def cudnn(s):
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return sdpa(s[6], s[7], s[8], scale=scale)
        impls["cudnn"] = cudnn
        ms = time_interleaved(torch, impls, sets, args.rounds)
        flops = 2.0 * B * H * N * N * (D + DR + D)
        t = {n: flops / m / 1e9 for n, m in ms.items()}
        get = lambda n: f"{t[n]:.0f}" if n in t else "—"  # noqa: E731
        ratio = (lambda a, b: f"{t[a] / t[b]:.2f}"  # noqa: E731
                 if a in t and b in t else "—")
        print(f"| {N} | {get('choice')} | {get('norotate')} | "
              f"{get('before')} | {get('cudnn')} | "
              f"{ratio('choice', 'before')} | {ratio('choice', 'cudnn')} |",
              flush=True)
        del sets
        torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
