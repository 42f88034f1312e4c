#!/usr/bin/env python3
"""exp2_poly on 16-bit attention: kernels/attention_lse.tile (f16) at the
compiler's choice and with 8 warps specialized, each with exp2_poly off, 8
and 4 (one exponential in N on the FMA pipe), beside cuDNN and
tilec.attention, timed interleaved (10 rounds), each output checked against
cuDNN. FlashAttention-3's setting (16k tokens, hidden 2048). Prints
TFLOP/s (4 N^2 D per head, half causal).

  python3 bench/exp2_poly.py    (from the repository root)
"""
import math
import os
import sys

import torch
import tilec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import time_interleaved  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.nn.functional import scaled_dot_product_attention as sdpa  # noqa: E402

KERNEL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "kernels", "attention_lse.tile")
BASE = {"choice": {},
        "ws8": {"warp_specialize": True, "num_warps": 8}}


def main():
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for D in (64, 128):
        for causal in (False, True):
            for N in (4096, 16384):
                B, H = 16384 // N, 2048 // D
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.float16)
                               for _ in range(3))
                    sets.append((q, k, v, torch.empty_like(q),
                                 torch.empty(B, H, N, device="cuda")))

                def cudnn(s):
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        return sdpa(s[0], s[1], s[2], is_causal=causal)
                ref = cudnn(sets[0]).float()
                impls = {"cudnn": cudnn,
                         "api": lambda s: tilec.attention(
                             s[0], s[1], s[2], causal=causal)}
                impls["api"](sets[0])
                for base, opts in BASE.items():
                    for poly in (0, 8, 4):
                        o = dict(opts, exp2_poly=poly) if poly else opts
                        name = f"{base}_poly{poly}" if poly else base
                        try:
                            kern = tilec.compile(
                                KERNEL, DTYPE="f16", TILE_D=D, TILE_M=128,
                                TILE_N=128, CAUSAL=causal, **o)
                        except tilec.CompileError as e:
                            print(f"  {name}: {str(e).splitlines()[0]}")
                            continue

                        def run(s, kern=kern):
                            kern[(N // 128, B * H)](s[0], s[1], s[2], s[3],
                                                    s[4], 1 / math.sqrt(D))
                        sets[0][3].fill_(float("nan"))
                        run(sets[0])
                        torch.cuda.synchronize()
                        err = (sets[0][3].float() - ref).abs().max().item()
                        if not err < 1e-2:
                            print(f"  {name}: wrong ({err})")
                            continue
                        impls[name] = run
                ms = time_interleaved(torch, impls, sets, 10)
                flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
                print(f"D={D} causal={causal} N={N}: " + ", ".join(
                    f"{n} {flops / t / 1e9:.0f}" for n, t in ms.items()),
                    flush=True)


if __name__ == "__main__":
    main()
