#!/usr/bin/env python3
"""The forward that writes the log-sum-exp (kernels/attention_lse.tile, no
options: the compiler's schedule) at several tile shapes, against cuDNN and
tilec.attention (the API's tuned kernel, no LSE), interleaved: which tiles
tilec.autograd's forward (and so ring attention's steps) should use.

  python3 bench/lse_tiles.py [--head-dims 64,128] [--seq-lens 4096,16384]
                             [--tiles 64x64,128x64,128x128] [--rounds 10]
                             [--configs 'NAME:KEY=V,key=v;...'] [--merge]

B x N = 16k tokens, H = 2048 / D heads, bf16. Prints, per point, each
implementation's TFLOP/s and its ratio to cuDNN. --configs adds compiles
of the kernel with their own tiles and compile options ('pp:TILE_M=128,
TILE_N=128,ping_pong=True': constants upper case, options lower case, as
bench/attention_bwd.py's). --merge times ring attention's step instead
(tilec.distributed: OUT_DTYPE=f32, MERGE=True, the block's result merged
into an f32 output and LSE already there); its correctness is checked on a
merge of the two halves of the keys against cuDNN on all of them.
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
    p.add_argument("--configs", default="")
    p.add_argument("--merge", action="store_true")
    args = p.parse_args()
    from attention_bwd import parse_configs
    configs = [(f"lse {t}", {"TILE_M": int(t.split("x")[0]),
                             "TILE_N": int(t.split("x")[1])})
               for t in filter(None, args.tiles.split(","))] + \
        [(f"lse {n}", c) for n, c in parse_configs(args.configs)]
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for D in (int(x) for x in args.head_dims.split(",")):
        for N in (int(x) for x in args.seq_lens.split(",")):
            for causal in (False,) if args.merge else (False, True):
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
                for name, config in configs:
                    tm = config["TILE_M"]
                    extra = {"OUT_DTYPE": "f32", "MERGE": True} \
                        if args.merge else {}
                    kern = tilec.compile(_kernels.path("attention_lse.tile"),
                                         DTYPE="bf16", TILE_D=D, CAUSAL=False
                                         if args.merge else causal,
                                         **extra, **config)
                    if args.merge:
                        # Keys [0, N/2) then [N/2, N), merged: all of them
                        # (not causal: each half a ring step's full block).
                        out = torch.empty(B, H, N, D, device="cuda")
                        lse = torch.empty(B, H, N, device="cuda")
                        s0 = sets[0]
                        half = N // 2
                        kern0 = tilec.compile(
                            _kernels.path("attention_lse.tile"),
                            DTYPE="bf16", TILE_D=D, CAUSAL=False,
                            OUT_DTYPE="f32", **config)
                        for i, kk in enumerate((kern0, kern)):
                            ks = slice(i * half, (i + 1) * half)
                            kk[(N // tm, B * H)](
                                s0[0], s0[1][:, :, ks], s0[2][:, :, ks], out,
                                lse, 1 / math.sqrt(D))
                        torch.cuda.synchronize()
                        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                            full = sdpa(s0[0], s0[1], s0[2]).float()
                        err = (out - full).abs().max().item()
                        if not err < 2e-2:
                            print(f"{name}: wrong merge, max error {err}")
                            continue
                        bufs = [(torch.zeros(B, H, N, D, device="cuda"),
                                 torch.zeros(B, H, N, device="cuda"))
                                for _ in sets]

                        def run(s, kern=kern, tm=tm, bufs=bufs):
                            o, ls = bufs[0 if s is sets[0] else 1]
                            kern[(N // tm, B * H)](s[0], s[1], s[2], o, ls,
                                                   1 / math.sqrt(D))
                        impls[name] = run
                        continue

                    def run(s, kern=kern, tm=tm):
                        kern[(N // tm, B * H)](s[0], s[1], s[2], s[3], s[4],
                                               1 / math.sqrt(D))
                    sets[0][3].fill_(float("nan"))
                    run(sets[0])
                    torch.cuda.synchronize()
                    err = (sets[0][3].float() - ref).abs().max().item()
                    if not err < 2e-2:
                        print(f"{name}: wrong, max error {err}")
                        continue
                    impls[name] = run
                ms = time_interleaved(torch, impls, sets, args.rounds)
                fl = 4 * B * H * N * N * D / (2 if causal else 1)
                print(f"D={D} N={N} causal={causal}: " + ", ".join(
                    f"{n} {fl / m / 1e9:.0f} ({ms['cudnn'] / m:.2f})"
                    for n, m in ms.items()), flush=True)


if __name__ == "__main__":
    main()
