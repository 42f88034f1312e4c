#!/usr/bin/env python3
"""The accuracy of tilec's 8-bit attention (FlashAttention-3's test, its
paper's Table 3): q, k, v from N(0, 1) with 0.1% of the entries from
N(0, 100), the output's root-mean-square error against float64 attention
of those (unquantized) inputs, for

  - f16 attention (tilec.attention and cuDNN's SDPA on the inputs in f16),
  - e4m3 with one scale per tensor (tilec.fp8.quantize(block=None)),
  - e4m3 with a scale per block of 128 rows (q, k) and per channel (v),
  - the same after the random Hadamard rotation of q and k (hadamard=True).

FlashAttention-3 reports 1.9e-4 (its f16), 2.4e-2 (fp8, per tensor) and
9.1e-3 (fp8, block quantization and incoherent processing).

  python3 bench/fp8_accuracy.py [--shape 2x16x2048] [--head-dims 64,128,256]
                                [--causal] [--seed 0]

Prints a markdown table, one row per head dimension.
"""
import argparse

import torch
import tilec
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa


def outliers(shape, g):
    x = torch.randn(shape, device="cuda", generator=g)
    big = torch.rand(shape, device="cuda", generator=g) < 1e-3
    return torch.where(big, x * 10, x)


def rmse(out, ref):
    return (out.double() - ref).pow(2).mean().sqrt().item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="2x16x2048", help="BxHxN")
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    B, H, N = (int(x) for x in args.shape.split("x"))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"\nB={B}, H={H}, N={N}, causal={args.causal}: RMSE of the output "
          f"against float64\n")
    print("| D | tilec f16 | cuDNN f16 | fp8 per tensor | fp8 per block | "
          "fp8 per block + Hadamard |")
    print("|---|---|---|---|---|---|")
    for D in map(int, args.head_dims.split(",")):
        g = torch.Generator(device="cuda").manual_seed(args.seed + D)
        q, k, v = (outliers((B, H, N, D), g) for _ in range(3))
        qd, kd, vd = (t.double() for t in (q, k, v))
        s = (qd @ kd.transpose(2, 3)) * D ** -0.5
        if args.causal:
            s = s.masked_fill(torch.ones(N, N, device="cuda", dtype=torch.bool)
                              .triu(1), float("-inf"))
        ref = torch.softmax(s, dim=-1) @ vd
        del s
        row = []
        h = [t.half() for t in (q, k, v)]
        row.append(rmse(tilec.attention(*h, causal=args.causal), ref))
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            row.append(rmse(sdpa(*h, is_causal=args.causal), ref))
        for quant in ({"block": None}, {}, {"hadamard": True,
                                            "generator": g}):
            q8, k8, v8, dq, dk, dv = tilec.fp8.quantize(q, k, v, **quant)
            out = tilec.attention(q8, k8, v8, causal=args.causal,
                                  descale_q=dq, descale_k=dk, descale_v=dv)
            assert torch.isfinite(out.float()).all()
            row.append(rmse(out, ref))
        print(f"| {D} | " + " | ".join(f"{x:.2e}" for x in row) + " |",
              flush=True)


if __name__ == "__main__":
    main()
