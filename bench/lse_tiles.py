#!/usr/bin/env python3
"""The forward that writes the log-sum-exp (kernels/attention_lse.tile, no
options: the compiler's schedule) at several tile shapes, against cuDNN and
tilec.attention (the API's tuned kernel, no LSE), interleaved: which tiles
tilec.autograd's forward (and so ring attention's steps) should use.

  python3 bench/lse_tiles.py [--head-dims 64,128] [--seq-lens 4096,16384]
                             [--tiles 64x64,128x64,128x128] [--rounds 10]

B x N = 16k tokens, H = 2048 / D heads, bf16. Prints, per point, each
implementation's TFLOP/s and its ratio to cuDNN.
"""
import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
from interleaved import time_interleaved  # noqa: E402
import tilec  # noqa: E402
from tilec import _kernels  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--head-dims", default="64,128")
    p.add_argument("--seq-lens", default="4096,16384")
    p.add_argument("--tiles", default="64x64,128x64,128x128")
    p.add_argument("--rounds", type=int, default=10)
    args = p.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for D in (int(x) for x in args.head_dims.split(",")):
        for N in (int(x) for x in args.seq_lens.split(",")):
            for causal in (False, True):
                B, H = max(1, 16384 // N), 2048 // D
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.bfloat16)
                               for _ in range(3))
                    sets.append((q, k, v, torch.empty_like(q),
                                 torch.empty(B, H, N, device="cuda")))

                def cudnn(s):
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        return sdpa(s[0], s[1], s[2], is_causal=causal)
                ref = cudnn(sets[0]).float()
                impls = {"cudnn": cudnn,
                         "api": lambda s: tilec.attention(
                             s[0], s[1], s[2], causal=causal, out=s[3])}
                for tiles in args.tiles.split(","):
                    tm, tn = (int(x) for x in tiles.split("x"))
                    kern = tilec.compile(_kernels.path("attention_lse.tile"),
                                         DTYPE="bf16", TILE_D=D, TILE_M=tm,
                                         TILE_N=tn, CAUSAL=causal)

                    def run(s, kern=kern, tm=tm):
                        kern[(N // tm, B * H)](s[0], s[1], s[2], s[3], s[4],
                                               1 / math.sqrt(D))
                    sets[0][3].fill_(float("nan"))
                    run(sets[0])
                    torch.cuda.synchronize()
                    err = (sets[0][3].float() - ref).abs().max().item()
                    if not err < 2e-2:
                        print(f"{tiles}: wrong, max error {err}")
                        continue
                    impls[f"lse {tiles}"] = run
                ms = time_interleaved(torch, impls, sets, args.rounds)
                fl = 4 * B * H * N * N * D / (2 if causal else 1)
                print(f"D={D} N={N} causal={causal}: " + ", ".join(
                    f"{n} {fl / m / 1e9:.0f} ({ms['cudnn'] / m:.2f})"
                    for n, m in ms.items()), flush=True)


if __name__ == "__main__":
    main()
