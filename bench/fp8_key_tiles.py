#!/usr/bin/env python3
"""kernels/attention_fp8.tile at one head_dim over key tiles (TILE_N), V in
fragment order (FRAGMENT_ORDER), each at the compiler's choice ("f"),
specialized and persistent on 8 consumer warps ("fws") and that with
ping_pong ("fpp"), against cuDNN's f16 attention of the same values and
tilec.attention on the 8-bit tensors (V read in place), interleaved in one
run: which schedules fp8._candidates should hold.

  PYTHONPATH=python python3 bench/fp8_key_tiles.py [D] [TILES]
      e.g. 128 128,160,192,224,256

FlashAttention-3's setting (16k tokens, hidden 2048), N = 1k, 4k, 16k,
causal and not; TFLOP/s of 4 N^2 D per head (half causal). Each variant is
checked against cuDNN first (P rounded to e4m3: a few percent).
"""
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

KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "attention_fp8.tile")


def main():
    D = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    tiles = [int(t) for t in (sys.argv[2] if len(sys.argv) > 2
                              else "128,160,192,224,256").split(",")]
    print(torch.cuda.get_device_name())
    specialized = {"FRAGMENT_ORDER": True, "warp_specialize": True,
                   "num_warps": 8, "persistent": True}
    variants = (("f", {"FRAGMENT_ORDER": True}), ("fws", specialized),
                ("fpp", dict(specialized, ping_pong=True)))
    for causal in (False, True):
        for N in (1024, 4096, 16384):
            B, H = 16384 // N, 2048 // D
            sets = []
            for _ in range(2):
                q, k, v = (torch.randn(B, H, N, D, device="cuda")
                           .to(torch.float8_e4m3fn) for _ in range(3))
                sets.append((q, k, tilec.fp8.fragment_order(v),
                             torch.empty(B, H, N, D, device="cuda",
                                         dtype=torch.bfloat16),
                             [t.half() for t in (q, k, v)],
                             v.transpose(2, 3).contiguous()))
            one = torch.ones(1, 1, 1, device="cuda")
            one2 = torch.ones(1, 1, device="cuda")

            def cudnn(s):
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    return sdpa(*s[4], is_causal=causal)
            impls = {"cudnn": cudnn}
            ref = cudnn(sets[0]).float()
            impls["api"] = (lambda s: tilec.attention(
                s[0], s[1], s[5].transpose(2, 3), causal=causal, out=s[3]))
            for tn in tiles:
                for name, opts in variants:
                    try:
                        kern = tilec.compile(KERNEL, TILE_D=D, CAUSAL=causal,
                                             TILE_N=tn, EVEN_N=N % tn == 0,
                                             **opts)
                    except tilec.CompileError as e:
                        print(f"  {name}{tn}: does not compile "
                              f"({str(e).splitlines()[0][:150]})",
                              flush=True)
                        continue

                    def run(s, kern=kern):
                        kern[(N // 128, B * H)](
                            s[0], s[1], s[2], s[3], one, one, one, one2,
                            D ** -0.5, 1.0, 1.0, 1.0, 0)
                    sets[0][3].fill_(float("nan"))
                    run(sets[0])
                    torch.cuda.synchronize()
                    err = ((sets[0][3].float() - ref).norm() /
                           ref.norm()).item()
                    if not err < 5e-2:
                        print(f"  {name}{tn}: wrong ({err})", flush=True)
                        continue
                    impls[f"{name}{tn}"] = run
            ms = time_interleaved(torch, impls, sets, 8)
            flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
            print(f"D={D} causal={causal} N={N}: " + ", ".join(
                f"{n} {flops / t / 1e9:.0f}" for n, t in ms.items()),
                flush=True)


if __name__ == "__main__":
    main()
