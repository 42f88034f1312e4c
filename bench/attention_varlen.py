"""Packed sequences of different lengths (FlashAttention's varlen):
tilec.attention_varlen against PyTorch's FlashAttention-2 varlen kernel
(torch.ops.aten._flash_attention_forward with cumulative lengths, what
nested-tensor SDPA runs) and against cuDNN's SDPA on the batch padded to its
longest sequence (what a caller without a varlen kernel runs), in one
process on one GPU.

    PYTHONPATH=python:bench python3 bench/attention_varlen.py [--rounds 10]
        [--head-dims 64,128,256] [--check]

FlashAttention-3's setting: 16k tokens a batch, hidden 2048 (heads = 2048 /
head_dim), f16. Lengths: "mean N" draws each sequence's length uniformly
from [N/4, 7N/4] until 16k tokens (the last cut to fit); "skewed" is one
sequence of 8k and 32 of 256. TFLOP/s count the work of the real lengths
only (4 * q * k * heads * head_dim per sequence, the causal pairs where
causal); the padded cuDNN row does more work than it is credited for, as it
would for its caller. Each timing is the median of CUDA-event timed calls
after a warm-up, the calls alternating between two input sets; every
implementation's output is checked against PyTorch's first."""

import argparse
import math
import random
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import tilec
from torch_baseline import median_ms

TOKENS = 16384


def lengths(kind, seed=0):
    rng = random.Random(seed)
    if kind == "skewed":
        return [8192] + [256] * 32
    mean = int(kind.split()[1])
    out, left = [], TOKENS
    while left > 0:
        n = min(left, rng.randint(mean // 4, 7 * mean // 4))
        out.append(n)
        left -= n
    return out


def flops(lens, heads, d, causal):
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lens)
    return 4.0 * pairs * heads * d


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--kinds", default="mean 1024,mean 4096,skewed")
    args = p.parse_args()
    print(f"{torch.cuda.get_device_name()}, f16, {TOKENS} tokens a batch, "
          f"hidden 2048; TFLOP/s of the real lengths\n")
    print("| D | causal | lengths | tilec | FA2 varlen | cuDNN padded | "
          "tilec / FA2 | tilec / cuDNN padded |")
    print("|---|---|---|---|---|---|---|---|")
    for d in (int(x) for x in args.head_dims.split(",")):
        heads = 2048 // d
        scale = 1 / math.sqrt(d)
        for causal in (False, True):
            for kind in args.kinds.split(","):
                lens = lengths(kind)
                cu = [0]
                for n in lens:
                    cu.append(cu[-1] + n)
                cu_t = torch.tensor(cu, device="cuda", dtype=torch.int32)
                longest = max(lens)
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(TOKENS, heads, d, device="cuda",
                                           dtype=torch.float16)
                               for _ in range(3))
                    # The padded batch for cuDNN: (B, H, longest, D).
                    pad = [torch.zeros(len(lens), heads, longest, d,
                                       device="cuda", dtype=torch.float16)
                           for _ in range(3)]
                    for b, n in enumerate(lens):
                        for t, src in zip(pad, (q, k, v)):
                            t[b, :, :n] = src[cu[b]:cu[b + 1]].transpose(0, 1)
                    mask = None
                    if len(set(lens)) > 1:
                        keys = torch.arange(longest, device="cuda")
                        valid = keys[None, :] < torch.tensor(
                            lens, device="cuda")[:, None]
                        mask = valid[:, None, None, :]
                        if causal:
                            mask = mask & (keys[None, None, None, :] <=
                                           keys[None, None, :, None])
                    sets.append((q, k, v, torch.empty_like(q), pad, mask))

                def run_tilec(i):
                    q, k, v, out, _, _ = sets[i % 2]
                    tilec.attention_varlen(q, k, v, cu_t, cu_t, longest,
                                           longest, causal=causal, out=out)

                def run_fa2(i):
                    q, k, v, _, _, _ = sets[i % 2]
                    return torch.ops.aten._flash_attention_forward(
                        q, k, v, cu_t, cu_t, longest, longest, 0.0, causal,
                        False, scale=scale)[0]

                def run_cudnn(i):
                    _, _, _, _, pad, mask = sets[i % 2]
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION,
                                      SDPBackend.EFFICIENT_ATTENTION]):
                        if mask is None:
                            return torch.nn.functional.\
                                scaled_dot_product_attention(
                                    *pad, is_causal=causal)
                        return torch.nn.functional.scaled_dot_product_attention(
                            *pad, attn_mask=mask)

                # Correctness first: tilec against FA2 varlen.
                run_tilec(0)
                ref = run_fa2(0)
                err = (sets[0][3].float() - ref.float()).abs().max().item()
                if not err < 1e-2:
                    print(f"D={d} causal={causal} {kind}: tilec differs from "
                          f"FA2 varlen by {err}", file=sys.stderr)
                    sys.exit(1)
                work = flops(lens, heads, d, causal)
                times = {}
                for _ in range(args.rounds):
                    for name, fn in (("tilec", run_tilec), ("fa2", run_fa2),
                                     ("cudnn", run_cudnn)):
                        t = median_ms(torch, fn, 5, warmup=2)
                        times.setdefault(name, []).append(t)
                tf = {n: work / (sorted(t)[len(t) // 2] * 1e-3) / 1e12
                      for n, t in times.items()}
                print(f"| {d} | {causal} | {kind} ({len(lens)} seqs) | "
                      f"{tf['tilec']:.0f} | {tf['fa2']:.0f} | "
                      f"{tf['cudnn']:.0f} | {tf['tilec'] / tf['fa2']:.2f} | "
                      f"{tf['tilec'] / tf['cudnn']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
