#!/usr/bin/env python3
"""Attention variants written plainly, as a user would (no hints), compiled
with no options (the compiler's choice on sm_90a) and with some of its
schedule switched off, against cuDNN's SDPA on the same problem, f16, 16k
tokens, 16 heads, D = 128, non-causal, in one process with launches
interleaved (bench/interleaved.py). Every variant's output is checked
against float64 on two heads first.

  rope: kernels/attention_rope.tile, scores in two parts (MLA's latent and
        rotary dimensions at prefill: D = 128 + DR = 64, values of 128);
        cuDNN with queries and keys of 192 dimensions, the parts joined.
        Variants: choice, norotate (rotate_wgmma=False), before
        (rotate_wgmma=False, persistent=False, num_stages=2: what the
        compiler chose before it counted the scores' two multiplies as one
        accumulator chain).
  bias: kernels/attention_bias.tile, an f16 bias tile added to the scores
        (B * H, N, N); cuDNN with it as a float attn_mask. Variants: choice
        (128 x 128 tiles), n64 (128 x 64), notpersistent.
  window: kernels/attention_window.tile, causal over a sliding window of
        1024 keys, its mask on every trip; cuDNN with the window as a
        boolean attn_mask. Variants: choice, nosplit (loop_split=False: the
        mask on every trip). FLOPs: 4 D a (query, key) pair the window
        holds.

  PYTHONPATH=python python3 bench/attention_variants.py [--kernels rope,bias,window]
      [--seq-lens 1024,4096,16384] [--rounds 20] [--arch sm_80]
      [--ptx KERNEL:NAME=PATH ...]

--arch sm_80 compiles the mma.sync path (run on sm_90 here) with the
variants choice (the kernels' 128 x 128 defaults) and n64 (128 x 64); --ptx
adds a variant of KERNEL loaded from PTX a tilec build wrote (tilec
--emit=ptx; an A/B against another revision's compiler).

FLOPs: 2 N^2 (192 + 128) a head for rope, 4 N^2 D for bias.
(The window kernel takes the window as its last argument.)
"""
import argparse
import math
import os
import sys

import torch
import tilec
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402

KERNELS = os.path.join(os.path.dirname(HERE), "kernels")
D, DR, H = 128, 64, 16


def rope_problem(B, N):
    """(the kernel's launch arguments, its output, SDPA's (q, k, v, mask),
    the scale, the FLOPs) of one input set."""
    q, k, v = (torch.randn(B * H, N, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    qr, kr = (torch.randn(B * H, N, DR, device="cuda", dtype=torch.float16)
              for _ in range(2))
    out = torch.empty_like(q)
    scale = 1 / math.sqrt(D + DR)
    joined = (torch.cat([q, qr], -1).view(B, H, N, D + DR),
              torch.cat([k, kr], -1).view(B, H, N, D + DR),
              v.view(B, H, N, D), None)
    return ((q, qr, k, kr, v, out, scale), out, joined, scale,
            2.0 * B * H * N * N * (D + DR + D))


def bias_problem(B, N):
    q, k, v = (torch.randn(B * H, N, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    bias = torch.randn(B * H, N, N, device="cuda", dtype=torch.float16)
    out = torch.empty_like(q)
    scale = 1 / math.sqrt(D)
    sdpa_args = (q.view(B, H, N, D), k.view(B, H, N, D), v.view(B, H, N, D),
                 bias.view(B, H, N, N))
    return ((q, k, v, bias, out, scale), out, sdpa_args, scale,
            4.0 * B * H * N * N * D)


WINDOW = 1024


def window_problem(B, N):
    q, k, v = (torch.randn(B * H, N, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    out = torch.empty_like(q)
    scale = 1 / math.sqrt(D)
    i = torch.arange(N, device="cuda")
    seen = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - WINDOW)
    sdpa_args = (q.view(B, H, N, D), k.view(B, H, N, D), v.view(B, H, N, D),
                 seen)
    pairs = int(seen.sum().item())
    return ((q, k, v, out, scale, WINDOW), out, sdpa_args, scale,
            4.0 * B * H * pairs * D)


VARIANTS = {
    "rope": ("attention_rope.tile", rope_problem,
             {"choice": {},
              "norotate": {"rotate_wgmma": False},
              "before": {"rotate_wgmma": False, "persistent": False,
                         "num_stages": 2}}),
    "bias": ("attention_bias.tile", bias_problem,
             {"choice": {},
              "n64": {"TILE_N": 64},
              "notpersistent": {"persistent": False}}),
    "window": ("attention_window.tile", window_problem,
               {"choice": {}, "nosplit": {"loop_split": False}}),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernels", default="rope,bias,window")
    p.add_argument("--seq-lens", default="1024,4096,16384")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--arch", default="sm_90a")
    p.add_argument("--ptx", action="append", default=[],
                   help="KERNEL:NAME=PATH, a variant loaded from PTX")
    args = p.parse_args()
    extra = {}
    for item in args.ptx:
        kernel, rest = item.split(":", 1)
        vname, path = rest.split("=", 1)
        extra.setdefault(kernel, {})[vname] = path
    print(f"{torch.cuda.get_device_name()}, f16, 16k tokens, {H} heads, "
          f"{args.arch}, {args.rounds} rounds")
    status = 0
    for name in args.kernels.split(","):
        source, problem, variants = VARIANTS[name]
        if args.arch != "sm_90a":
            # sm_90a's schedule options do not apply to mma.sync.
            variants = {"choice": {}, "n64": {"TILE_N": 64}}
        kernels = {v: tilec.compile(os.path.join(KERNELS, source),
                                    arch=args.arch, **opts)
                   for v, opts in variants.items()}
        for vname, path in extra.get(name, {}).items():
            kernels[vname] = tilec.load_ptx(path)
        variants = dict(variants, **{v: {} for v in extra.get(name, {})})
        names = list(variants) + ["cudnn"]
        print(f"\n{name} ({source}), TFLOP/s:\n")
        print("| N | " + " | ".join(names) + " | " +
              " | ".join(f"{v} / cuDNN" for v in variants) + " |")
        print("|---|" + "---|" * (2 * len(names) - 1))
        for N in (int(n) for n in args.seq_lens.split(",")):
            B = max(1, 16384 // N)
            if name == "bias" and N > 4096:
                continue  # a bias of N^2 a head: 8 GiB at 16k
            sets = [problem(B, N) for _ in range(2)]
            launch, out, sd, scale, flops = sets[0]
            q, k, v, mask = sd
            s = q[0, :2].double() @ k[0, :2].double().transpose(1, 2) * scale
            if mask is not None and mask.dtype == torch.bool:
                s = s.masked_fill(~mask, float("-inf"))
            elif mask is not None:
                s = s + mask[0, :2].double()
            ref = torch.softmax(s, -1) @ v[0, :2].double()
            impls = {}
            for vname, kern in kernels.items():
                def run(s, kern=kern, grid=(N // 128, B * H)):
                    kern[grid](*s[0])
                out.fill_(float("nan"))
                run(sets[0])
                torch.cuda.synchronize()
                got = out.view(B, H, N, D)[0, :2].double()
                err = (got - ref).abs().max().item()
                if not err <= 1e-2:
                    print(f"  N={N}: {vname} differs from float64 by {err}")
                    status = 1
                    continue
                impls[vname] = run

            def cudnn(s):
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    q, k, v, mask = s[2]
                    return sdpa(q, k, v, attn_mask=mask, scale=s[3])
            try:
                cudnn(sets[0])
                torch.cuda.synchronize()
                impls["cudnn"] = cudnn
            except RuntimeError as e:
                print(f"  N={N}: cuDNN: {str(e).splitlines()[0][:100]}")
            ms = time_interleaved(torch, impls, sets, args.rounds)
            t = {n: flops / m / 1e9 for n, m in ms.items()}
            cells = [f"{t[n]:.0f}" if n in t else "—" for n in names]
            ratios = [f"{t[v] / t['cudnn']:.2f}" if v in t and "cudnn" in t
                      else "—" for v in variants]
            print(f"| {N} | " + " | ".join(cells + ratios) + " |",
                  flush=True)
            del sets
            torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
