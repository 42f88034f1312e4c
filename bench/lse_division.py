#!/usr/bin/env python3
"""What the output's division costs kernels/attention_lse.tile: the kernel
as written (truediv(acc, l_i, rounding_mode=FULL)), with `acc / l_i`
(correctly rounded, div.rn) and with rounding_mode=APPROX, each compiled
with no options (the compiler's schedule), beside kernels/flash_attention.tile
compiled the same way, as ratios to cuDNN's forward timed in the same
interleaved rounds (bench/interleaved.py), f16, 16k tokens, hidden 2048.

  python3 bench/lse_division.py [--rounds 10]
"""
import argparse
import math
import os
import sys
import tempfile

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

ROOT = os.path.dirname(HERE)
FULL = "    out = truediv(acc, l_i, rounding_mode=FULL)\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    args = p.parse_args()
    src = open(os.path.join(ROOT, "kernels", "attention_lse.tile")).read()
    assert FULL in src, "attention_lse.tile's division is not the one expected"
    variants = {
        "full": src,
        "rn": src.replace(FULL, "    out = acc / l_i\n"),
        "approx": src.replace(FULL, "    out = truediv(acc, l_i, rounding_mode"
                                    "=APPROX, flush_to_zero=True)\n"),
    }
    fa = os.path.join(ROOT, "kernels", "flash_attention.tile")
    tmp = tempfile.mkdtemp()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    print(f"{torch.cuda.get_device_name()}, f16, ratio to cuDNN\n")
    print("| D | causal | N | " + " | ".join(variants) +
          " | flash_attention.tile |")
    print("|---|---|---|" + "---|" * (len(variants) + 1))
    for D, tm, tn in ((128, 128, 128), (256, 128, 64)):
        for causal in (False, True):
            for N in (1024, 4096):
                B, H = 16384 // N, 2048 // D
                scale = 1 / math.sqrt(D)
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.float16)
                               for _ in range(3))
                    sets.append((q, k, v, torch.empty_like(q),
                                 torch.empty(B, H, N, device="cuda")))
                grid = (N // tm, B * H)
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    ref = sdpa(sets[0][0], sets[0][1], sets[0][2],
                               is_causal=causal).float()
                impls = {}
                for name, text in variants.items():
                    path = os.path.join(tmp, f"{name}.tile")
                    with open(path, "w") as f:
                        f.write(text)
                    k = tilec.compile(path, DTYPE="f16", TILE_D=D,
                                      TILE_M=tm, TILE_N=tn, CAUSAL=causal)
                    impls[name] = (lambda k: lambda s: k[grid](
                        s[0], s[1], s[2], s[3], s[4], scale))(k)
                kfa = tilec.compile(fa, "fmha", DTYPE="f16", TILE_D=D, H=H,
                                    TILE_M=tm, TILE_N=tn, CAUSAL=causal)
                impls["fa"] = lambda s: kfa[grid](s[0], s[1], s[2], s[3],
                                                  scale, 0)
                for name, run in impls.items():
                    sets[0][3].fill_(float("nan"))
                    run(sets[0])
                    err = (sets[0][3].float() - ref).abs().max().item()
                    assert err <= 1e-2, f"{name} differs from cuDNN by {err}"

                def cudnn(s, causal=causal):
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        sdpa(s[0], s[1], s[2], is_causal=causal)
                impls["cudnn"] = cudnn
                ms = time_interleaved(torch, impls, sets, args.rounds)
                print(f"| {D} | {causal} | {N} | " + " | ".join(
                    f"{ms['cudnn'] / ms[n]:.2f}" for n in impls
                    if n != "cudnn") + " |", flush=True)
                del sets, ref
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
