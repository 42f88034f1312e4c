#!/usr/bin/env python3
"""Attention forward + backward as training runs it: tilec.attention under
autograd (the forward writing LSE, then the backward's kernels; "tilec" with
the default `deterministic=None`, "tilec_det" with True) against torch's
scaled_dot_product_attention with the cuDNN and flash backends, in one run.

  python3 bench/attention_train_step.py [--rounds 10] [--dtype bf16]
      [--points 16x32x1024x64,...] [--backward] [--kv-heads H]
      [--bshd] [--causal both|yes|no] [--variants NAME:ATTR=V,...;...]

With --backward only the backward is timed (each implementation's forward
runs once per input set, outside the timing; its graph is kept), and the
TFLOP/s count 2.5 x 4 B H N^2 D.

The default points are FlashAttention-3's setting: 16k tokens, hidden 2048
(heads = 2048 / D), D = 64 and 128, N = 1k, 4k, 16k; causal and not. Each
step is out = attention(q, k, v); torch.autograd.grad(out, (q, k, v), dO).
tilec's gradients are checked against the flash backend's first. Medians of
CUDA-event timings over interleaved rounds on two rotating input sets
(bench/interleaved.py); TFLOP/s count 3.5 x 4 B H N^2 D (forward and
backward; halved when causal). Prints a markdown table, SDPA time / tilec
time last (above 1: tilec faster).

--kv-heads H gives k and v H heads (grouped-query attention; SDPA with
enable_gqa). --bshd makes q, k, v and dO as a transformers model hands
them over: views of (batch, seq, heads, head_dim) tensors transposed to
(batch, heads, seq, head_dim), not contiguous.
"""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import time_interleaved  # noqa: E402
# --variants NAME:ATTR=V,...;... as attention_bwd.py's --configs.
from attention_bwd import parse_configs  # noqa: E402

POINTS = ("16x32x1024x64,4x32x4096x64,1x32x16384x64,"
          "16x16x1024x128,4x16x4096x128,1x16x16384x128")


def with_settings(settings, run):
    """`run` (a step: forward and backward) with tilec.autograd's module
    attributes set to `settings` while it runs."""
    import tilec.autograd as ag

    def wrapped(st):
        saved = {k: getattr(ag, k) for k in settings}
        for k, v in settings.items():
            setattr(ag, k, v)
        try:
            return run(st)
        finally:
            for k, v in saved.items():
                setattr(ag, k, v)
    return wrapped


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--dtype", choices=("f16", "bf16"), default="bf16")
    p.add_argument("--points", default=POINTS)
    p.add_argument("--backward", action="store_true",
                   help="time the backward alone")
    p.add_argument("--kv-heads", type=int, default=0,
                   help="heads of k and v (0: as q's)")
    p.add_argument("--bshd", action="store_true",
                   help="q, k, v, dO as transposed (B, N, H, D) views")
    p.add_argument("--causal", choices=("both", "yes", "no"),
                   default="both")
    p.add_argument("--variants", default="",
                   help="more tilec steps to time, NAME:ATTR=V,...;... with "
                   "tilec.autograd's module settings (ATOMIC_SEQ_Q, "
                   "ATOMIC_SEQ_Q_64: dQ by atomics from that many queries; "
                   "KV_SPLIT: dK/dV partial sums per K/V head) set around "
                   "each step")
    args = p.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    dtype = torch.float16 if args.dtype == "f16" else torch.bfloat16
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"tilec {os.environ.get('TILEC_LIBRARY', '')}, {args.dtype}")
    rows = []
    for point in args.points.split(","):
        B, H, N, D = (int(x) for x in point.split("x"))
        HK = args.kv_heads or H
        if H % HK:
            raise SystemExit(f"--kv-heads {HK} does not divide {H} heads")

        def tensor(heads, grad):
            if not args.bshd:
                return torch.randn(B, heads, N, D, device="cuda",
                                   dtype=dtype, requires_grad=grad)
            t = torch.randn(B, N, heads, D, device="cuda", dtype=dtype,
                            requires_grad=grad)
            return t.transpose(1, 2)
        for causal in {"both": (False, True), "yes": (True,),
                       "no": (False,)}[args.causal]:
            sets = []
            for _ in range(2):
                q, k, v = (tensor(hh, True) for hh in (H, HK, HK))
                do = tensor(H, False)
                sets.append((q, k, v, do))

            def step(forward):
                """A step of `forward` (q, k, v -> out); with --backward,
                its backward alone on outputs made once per input set."""
                outs = {}

                def run(st):
                    q, k, v, do = st
                    if not args.backward:
                        return grads(forward(q, k, v), st)
                    if id(st) not in outs:
                        outs[id(st)] = forward(q, k, v)
                    return grads(outs[id(st)], st, retain_graph=True)
                return run

            def grads(out, st, retain_graph=False):
                """dQ, dK, dV; with --bshd of the (B, N, H, D) leaves,
                made contiguous there (as the projections' backward will
                take them: free where the gradient has the leaf's
                layout)."""
                q, k, v, do = st
                if not args.bshd:
                    return torch.autograd.grad(out, (q, k, v), do,
                                               retain_graph=retain_graph)
                leaves = tuple(t._base for t in (q, k, v))
                return tuple(g.contiguous() for g in torch.autograd.grad(
                    out, leaves, do, retain_graph=retain_graph))

            def sdpa(backend):
                def forward(q, k, v):
                    with sdpa_kernel(backend):
                        return F.scaled_dot_product_attention(
                            q, k, v, is_causal=causal, enable_gqa=HK != H)
                return forward

            impls = {
                "tilec": step(lambda q, k, v: tilec.attention(
                    q, k, v, causal=causal)),
                "tilec_det": step(lambda q, k, v: tilec.attention(
                    q, k, v, causal=causal, deterministic=True))}
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                try:
                    step(sdpa(backend))(sets[0])
                    impls[name] = step(sdpa(backend))
                except RuntimeError as e:
                    print(f"  {name}: {str(e).splitlines()[0]}")
            for name, settings in parse_configs(args.variants):
                impls["tilec_" + name] = with_settings(
                    settings, step(lambda q, k, v: tilec.attention(
                        q, k, v, causal=causal)))
            want = impls["flash" if "flash" in impls else "cudnn"](sets[0])
            for tilec_name in [n for n in impls if n.startswith("tilec")]:
                got = impls[tilec_name](sets[0])
                for name, g, w in zip(("dq", "dk", "dv"), got, want):
                    err = ((g.float() - w.float()).norm()
                           / w.float().norm()).item()
                    assert err < 2e-2, (tilec_name, point, causal, name, err)
            ms = time_interleaved(torch, impls, sets, args.rounds)
            flops = (2.5 if args.backward else 3.5) * 4 * B * H * N * N * D \
                / (2 if causal else 1)
            row = {"point": point, "causal": causal}
            row.update({n: flops / t / 1e9 for n, t in ms.items()})
            rows.append(row)
            print(row, flush=True)
    names = [n for n in rows[0] if n not in ("point", "causal")]
    print("\n| B x H x N x D | causal | " +
          " | ".join(f"{n} TFLOP/s" for n in names) +
          " | cuDNN time / tilec's | flash time / tilec's |")
    print("|---|---|" + "---|" * (len(names) + 2))
    for r in rows:
        ratio = lambda n: f"{r['tilec'] / r[n]:.2f}" if n in r else "-"
        print(f"| {r['point']} | {r['causal']} | " +
              " | ".join(f"{r[n]:.0f}" for n in names) +
              f" | {ratio('cudnn')} | {ratio('flash')} |")


if __name__ == "__main__":
    main()
