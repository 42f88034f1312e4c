#!/usr/bin/env python3
"""Launches kernels/attention_fp8.tile three times at the compiler's choice,
then three times with FRAGMENT_ORDER (V from tilec.fp8.fragment_order), for
one FlashAttention-3 point: a driver for ncu, which picks the launches
(--launch-skip 2 / 5 --launch-count 1).

  ncu --kernel-name regex:attention_fp8 --launch-skip 2 --launch-count 1 \\
      --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \\
      python3 bench/fp8_order_probe.py 256 1 4096     # D causal N
"""
import os
import sys

import torch
import tilec

KERNEL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "kernels", "attention_fp8.tile")


def main():
    D, causal, N = int(sys.argv[1]), sys.argv[2] == "1", int(sys.argv[3])
    B, H = 16384 // N, 2048 // D
    q, k, v = (torch.randn(B, H, N, D, device="cuda")
               .to(torch.float8_e4m3fn) for _ in range(3))
    out = torch.empty(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    one, one2 = (torch.ones(1, 1, 1, device="cuda"),
                 torch.ones(1, 1, device="cuda"))
    for frag in (False, True):
        kern = tilec.compile(KERNEL, TILE_D=D, CAUSAL=causal,
                             EVEN_N=N % 128 == 0, FRAGMENT_ORDER=frag)
        vt = tilec.fp8.fragment_order(v) if frag else \
            v.transpose(2, 3).contiguous()
        for _ in range(3):
            kern[(N // 128, B * H)](q, k, vt, out, one, one, one, one2,
                                    D ** -0.5, 1.0, 1.0, 1.0, 0)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
