#!/usr/bin/env python3
"""Launches flash-attention kernels for a profiler to read: each PTX file
given (scripts/ptx-ab.sh names: fa_M=..._N=..._D=..._C=...) and cuDNN's
attention through PyTorch, three times each, on one problem (B=4, H=32,
fp16). Run under ncu, e.g. scripts/gpu-profile.sh; it times nothing itself.
"""
import argparse
import os

import torch
import tilec
from torch.nn.attention import SDPBackend, sdpa_kernel

from ptx_ab import launch, parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ptx", nargs="+")
    parser.add_argument("--n", type=int, default=8192)
    args = parser.parse_args()
    for path in args.ptx:
        # The name without its variant: ptx_ab's configuration key.
        m, _, d, causal = parse(os.path.basename(path)[:-4].rsplit("_", 1)[0])
        q = torch.rand(4, 32, args.n, d, device="cuda",
                       dtype=torch.float16) * 2 - 1
        k, v = torch.rand_like(q) * 2 - 1, torch.rand_like(q) * 2 - 1
        o = torch.empty_like(q)
        kern = tilec.load_ptx(path)
        for _ in range(3):
            launch(kern, m, q, k, v, o)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for _ in range(3):
                torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        print(f"{os.path.basename(path)}: launched")


if __name__ == "__main__":
    main()
