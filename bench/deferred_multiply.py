#!/usr/bin/env python3
"""A tile's last multiply issued in the next tile (defer_last_multiply,
tile-defer-epilogue's multiply): kernels/flash_attention.tile at the
attention API's persistent candidate with Q in one slot refilled after its
last read (128 x 128 tiles, 64 keys a trip at head_dim 256), with and
without the option (and with defer_epilogue alone), against cuDNN (and the
attention API with --api), in one process, launches interleaved (bench/interleaved.py).
FlashAttention-3's setting: 16k tokens (batch 16384 / N), hidden 2048
(heads 2048 / D), f16.

  PYTHONPATH=python python3 bench/deferred_multiply.py [--rounds 10]
      [--head-dims 64,128,256] [--seqs 1024,4096,16384] [--causal both]
      [--api]

Prints a table of TFLOP/s and ratios; every kernel's output is compared
with cuDNN's first (max |error| <= 1e-2; a mismatch is reported, not
timed).
"""
import argparse
import math
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.nn.functional import scaled_dot_product_attention as sdpa  # noqa

FA = os.path.join(HERE, "..", "kernels", "flash_attention.tile")
PICK = dict(num_warps=8, num_stages=2, warp_specialize=True, persistent=True,
            tile_stages=1, tile_refill_after_read=True, rescale_in_trip=True)
VARIANTS = {"base": {}, "defer_epilogue": {"defer_epilogue": True},
            "defer_last_multiply": {"defer_last_multiply": True}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--seqs", default="1024,4096,16384")
    p.add_argument("--causal", choices=["both", "true", "false"],
                   default="both")
    p.add_argument("--api", action="store_true",
                   help="also time tilec.attention (its tuner runs first)")
    args = p.parse_args()
    causals = {"both": (False, True), "true": (True,),
               "false": (False,)}[args.causal]
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for d in (int(x) for x in args.head_dims.split(",")):
        for causal in causals:
            for n in (int(x) for x in args.seqs.split(",")):
                rows.append(point(d, causal, n, args.rounds, args.api))
    names = (["api"] if args.api else []) + list(VARIANTS)
    print("\n| D | causal | N | cuDNN TFLOP/s | " +
          " | ".join(f"{v} / cuDNN" for v in names) +
          " | defer_last_multiply / base |")
    print("|---" * (5 + len(names)) + "|")
    for d, causal, n, tflops in rows:
        ratio = {k: tflops[k] / tflops["cudnn"] if k in tflops else None
                 for k in names}
        cells = [f"{ratio[k]:.3f}" if ratio[k] else "-" for k in names]
        both = ("defer_last_multiply" in tflops and "base" in tflops)
        gain = (f"{tflops['defer_last_multiply'] / tflops['base']:.3f}"
                if both else "-")
        print(f"| {d} | {causal} | {n} | {tflops['cudnn']:.0f} | " +
              " | ".join(cells) + f" | {gain} |")


def point(d, causal, n, rounds, api):
    b, h = 16384 // n, 2048 // d
    sets = []
    for _ in range(3):
        q, k, v = (torch.randn(b, h, n, d, device="cuda",
                               dtype=torch.float16) for _ in range(3))
        sets.append((q, k, v, torch.empty_like(q)))

    def cudnn(s):
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return sdpa(s[0], s[1], s[2], is_causal=causal)

    ref = cudnn(sets[0]).float()
    impls = {"cudnn": cudnn}
    if api:
        impls["api"] = lambda s: tilec.attention(s[0], s[1], s[2],
                                                 causal=causal, out=s[3])
    tn = 64 if d > 128 else 128
    for name, extra in VARIANTS.items():
        try:
            kern = tilec.compile(FA, "fmha", DTYPE="f16", TILE_D=d, H=h,
                                 TILE_M=128, TILE_N=tn, CAUSAL=causal,
                                 EVEN_K=n % tn == 0, **PICK, **extra)
        except Exception as e:  # noqa: BLE001 (reported, the point goes on)
            print(f"  {name}: compile: {str(e).splitlines()[0][:120]}")
            continue

        def run(s, kern=kern):
            kern[(-(-n // 128), b * h)](s[0], s[1], s[2], s[3],
                                         1 / math.sqrt(d), 0)
        sets[0][3].fill_(float("nan"))
        run(sets[0])
        torch.cuda.synchronize()
        err = (sets[0][3].float() - ref).abs().max().item()
        if not err <= 1e-2:
            print(f"  {name}: wrong (max |error| {err})")
            continue
        impls[name] = run
    ms = time_interleaved(torch, impls, sets, rounds)
    flops = 4 * b * h * n * n * d / (2 if causal else 1)
    tflops = {k: flops / (m * 1e-3) / 1e12 for k, m in ms.items()}
    print(f"D={d} causal={causal} N={n}: " +
          ", ".join(f"{k} {t:.0f}" for k, t in tflops.items()), flush=True)
    return d, causal, n, tflops


if __name__ == "__main__":
    main()
