#!/usr/bin/env python3
"""Attention backward: kernels/flash_attention_bwd.tile (FlashAttention-2
style, dQ added with atomic_add) against PyTorch's SDPA backward (cuDNN and
flash backends), in one run.

  python3 bench/attention_bwd.py [--rounds 30] [--shapes 4x16x1024x64,...]
                                 [--warp-specialize] [--deterministic]
                                 [--source F.tile] [--configs NAME:K=V,...;...]
                                 [--det-configs NAME:K=V,...;...]
                                 [--kernel-times]

For each B x H x N x D (f16, not causal and causal): the SDPA backward's
gradients are the reference (tilec's checked against them first); tilec is
timed as a user runs it: zero dQ, the preprocessing kernel (Delta), the
backward kernel, dQ's f32 sum scaled into f16 (four launches); with
--deterministic also the backward without dQ's atomics and the dQ kernel
(attn_bwd_dq: three launches, dQ in f16, tilec_det); a config with
LSE_LOG2=True gets the LSE in log2 units (made outside the timing); SDPA
as torch.autograd.grad of its output. With --kernel-times the
deterministic path's dK/dV kernel and dQ kernel are also timed alone
(microseconds, a second table): where its time goes. Medians of CUDA-event
timings over interleaved rounds on two rotating input sets
(bench/interleaved.py). TFLOP/s count the backward's
2.5 x 4 B H N^2 D (halved when causal). Prints a markdown table.
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

KERNEL = os.path.join(os.path.dirname(HERE), "kernels",
                      "flash_attention_bwd.tile")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--shapes", default="4x16x1024x64,2x16x4096x64,"
                   "1x16x8192x64")
    p.add_argument("--warp-specialize", action="store_true",
                   help="also time the kernel warp-specialized")
    p.add_argument("--source", default=KERNEL,
                   help="the .tile file with attn_bwd_preprocess, attn_bwd "
                   "and attn_bwd_dq (the signatures of kernels/"
                   "flash_attention_bwd.tile)")
    p.add_argument("--configs", default="",
                   help="more compiles of attn_bwd to time, "
                   "'name:KEY=V,key=v;...' (constants upper case, options "
                   "lower case, e.g. 'n128:TILE_N=128,num_warps=8'; "
                   "source=F.tile compiles that one from F)")
    p.add_argument("--det-configs", default="",
                   help="with --deterministic, more compiles of its attn_bwd "
                   "(DQ_ATOMIC=False) to time, as --configs; dq_KEY=V sets "
                   "the dQ kernel's")
    p.add_argument("--kernel-times", action="store_true",
                   help="with --deterministic, also time its dK/dV kernel "
                   "and its dQ kernel alone")
    p.add_argument("--deterministic", action="store_true",
                   help="also time the deterministic backward (dK, dV "
                   "without atomics, then the dQ kernel)")
    args = p.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"tilec {os.environ.get('TILEC_LIBRARY', '')}")
    rows = []
    for shape in args.shapes.split(","):
        B, H, N, D = (int(x) for x in shape.split("x"))
        for causal in (False, True):
            src = args.source
            pre = tilec.compile(src, kernel="attn_bwd_preprocess", D=D)
            bwds = {}
            try:
                bwds["tilec"] = tilec.compile(src, kernel="attn_bwd", D=D,
                                              CAUSAL=causal, DQ_ATOMIC=True)
            except tilec.CompileError as e:
                # (At head_dim 256 the atomics kernel at its default tiles
                # needs more shared memory than a block has.)
                print(f"  tilec: {str(e).splitlines()[1]}")
            for name, opts in parse_configs(args.configs):
                # source=F.tile: this config's attn_bwd from another file
                # (an A/B of a kernel edit in one run).
                bwds[name] = tilec.compile(opts.pop("source", src),
                                           kernel="attn_bwd", D=D,
                                           CAUSAL=causal, DQ_ATOMIC=True,
                                           **opts)
            if args.warp_specialize:
                bwds["tilec_ws"] = tilec.compile(
                    src, kernel="attn_bwd", D=D, CAUSAL=causal,
                    DQ_ATOMIC=True, warp_specialize=True)
            dets = {}
            if args.deterministic:
                for name, opts in [("", {})] + parse_configs(args.det_configs):
                    # dq_KEY=V: the dQ kernel's; the rest attn_bwd's.
                    dq_opts = {k_[3:]: v_ for k_, v_ in opts.items()
                               if k_.startswith("dq_")}
                    opts = {k_: v_ for k_, v_ in opts.items()
                            if not k_.startswith("dq_")}
                    dets["tilec_det" + (name and "_" + name)] = (
                        tilec.compile(src, kernel="attn_bwd", D=D,
                                      CAUSAL=causal, DQ_ATOMIC=False, **opts),
                        tilec.compile(src, kernel="attn_bwd_dq", D=D,
                                      CAUSAL=causal, **dq_opts))
            scale = 1 / math.sqrt(D)
            sets = []
            for _ in range(2):
                q, k, v, do = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.float16)
                               for _ in range(4))
                qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    o = F.scaled_dot_product_attention(qg, kg, vg,
                                                       is_causal=causal)
                s = (q.float() @ k.float().transpose(-1, -2)) * scale
                if causal:
                    s = s.masked_fill(torch.ones(N, N, device="cuda",
                                                 dtype=torch.bool).triu(1),
                                      float("-inf"))
                lse = torch.logsumexp(s, -1).reshape(B * H, N).contiguous()
                lse2 = lse * tilec.autograd.LOG2E  # LSE_LOG2's
                del s
                sets.append(dict(
                    q=q, k=k, v=v, do=do, o=o.detach(), lse=lse, lse2=lse2,
                    qg=qg, kg=kg, vg=vg, out=o,
                    delta=torch.empty(B * H, N, device="cuda"),
                    dq=torch.empty(B, H, N, D, device="cuda"),
                    dq16=torch.empty(B, H, N, D, device="cuda",
                                     dtype=torch.float16),
                    unused=torch.empty(1, 1, 1, 1, device="cuda"),
                    dk=torch.empty(B, H, N, D, device="cuda",
                                   dtype=torch.float16),
                    dv=torch.empty(B, H, N, D, device="cuda",
                                   dtype=torch.float16)))

            def lse_of(st, bwd):
                """The LSE attn_bwd `bwd` takes: in log2 units with
                LSE_LOG2."""
                return st["lse2" if bwd.constants.get("LSE_LOG2") else "lse"]

            def run_tilec(st, bwd):
                st["dq"].zero_()
                pre[(cdiv(N, 64), B * H)](st["o"], st["do"], st["delta"])
                bwd[(cdiv(N, bwd.constants.get("TILE_N", 64)), B * H)](
                    st["q"], st["k"], st["v"], st["do"], lse_of(st, bwd),
                    st["delta"], st["dq"], st["dk"], st["dv"], scale)
                # The kernel's sum is dQ / scale (dS unscaled in its loop).
                torch.mul(st["dq"], scale, out=st["dq16"])

            def run_det(st, det, parts=None):
                """The preprocessing, dK/dV and dQ kernels; `parts`: only
                those of (dK/dV, dQ), Delta as left by an earlier run."""
                rows3 = [st[n] for n in ("q", "k", "v", "do")]
                if parts is None:
                    pre[(cdiv(N, 64), B * H)](st["o"], st["do"], st["delta"])
                if parts is None or 0 in parts:
                    det[0][(cdiv(N, det[0].constants.get("TILE_N", 64)),
                            B * H)](
                        *rows3, lse_of(st, det[0]), st["delta"], st["unused"],
                        st["dk"], st["dv"], scale)
                if parts is None or 1 in parts:
                    det[1][(cdiv(N, det[1].constants.get("TILE_M", 64)),
                            B * H)](
                        *rows3, st["lse"], st["delta"], st["dq16"], scale)

            def sdpa(backend):
                outs = {}
                for st in sets:
                    qg, kg, vg = (st[n].detach().clone().requires_grad_()
                                  for n in ("q", "k", "v"))
                    with sdpa_kernel(backend):
                        o = F.scaled_dot_product_attention(qg, kg, vg,
                                                           is_causal=causal)
                    outs[id(st)] = (o, qg, kg, vg)

                def run(st):
                    o, qg, kg, vg = outs[id(st)]
                    with sdpa_kernel(backend):
                        return torch.autograd.grad(o, (qg, kg, vg), st["do"],
                                                   retain_graph=True)
                return run

            impls = {name: (lambda st, b=b: run_tilec(st, b))
                     for name, b in bwds.items()}
            for name, det in dets.items():
                impls[name] = lambda st, det=det: run_det(st, det)
            parts = {}
            if args.kernel_times:
                for name, det in dets.items():
                    parts[name + ":dkdv"] = \
                        lambda st, det=det: run_det(st, det, parts=(0,))
                    parts[name + ":dq"] = \
                        lambda st, det=det: run_det(st, det, parts=(1,))
            impls.update(parts)
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                try:
                    run = sdpa(backend)
                    run(sets[0])
                    impls[name] = run
                except RuntimeError as e:
                    print(f"  {name}: {str(e).splitlines()[0]}")
            # Correctness first: tilec against the flash backend's gradients.
            st = sets[0]
            ref = torch.autograd.grad(st["out"], (st["qg"], st["kg"],
                                                  st["vg"]), st["do"],
                                      retain_graph=True)
            checks = [(name, lambda b=b: run_tilec(st, b), "dq16")
                      for name, b in bwds.items()]
            for name, det in dets.items():
                checks.append((name, lambda det=det: run_det(st, det), "dq16"))
            for name, run, dq in checks:
                st["dk"].fill_(float("nan"))
                st["dv"].fill_(float("nan"))
                st[dq].fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                for nm, got, want in (("dq", st[dq], ref[0]),
                                      ("dk", st["dk"], ref[1]),
                                      ("dv", st["dv"], ref[2])):
                    got = got.reshape(B, H, N, D).float()
                    err = ((got - want.float()).norm()
                           / want.float().norm()).item()
                    assert err < 2e-2, (name, shape, causal, nm, err)
            ms = time_interleaved(torch, impls, sets, args.rounds)
            flops = 2.5 * 4 * B * H * N * N * D / (2 if causal else 1)
            row = {"shape": shape, "causal": causal}
            for name, t in ms.items():
                if name in parts:
                    row.setdefault("us", {})[name] = t * 1e3
                else:
                    row[name] = flops / t / 1e9
            row["regs"] = {n: b.registers for n, b in bwds.items()}
            for name, det in dets.items():
                row["regs"][name] = [k.registers for k in det]
            rows.append(row)
            print(row, flush=True)
    names = list(dict.fromkeys(
        n for r in rows for n in r if n not in ("shape", "causal", "regs",
                                                "us")))
    print("\n| B x H x N x D | causal | " + " | ".join(
        f"{n} TFLOP/s" for n in names) +
        " | best tilec / cuDNN | best tilec / flash |")
    print("|---|---|" + "---|" * (len(names) + 2))
    for r in rows:
        # Every tilec kernel timed: the default, the configs, tilec_det*.
        best = max(r[n] for n in names if n not in ("cudnn", "flash") and
                   n in r)
        ratio = lambda n: f"{best / r[n]:.2f}" if n in r else "-"
        print(f"| {r['shape']} | {r['causal']} | " +
              " | ".join(f"{r[n]:.0f}" if n in r else "-" for n in names) +
              f" | {ratio('cudnn')} | {ratio('flash')} |")
    if "us" in rows[0]:
        parts = list(rows[0]["us"])
        print("\n| B x H x N x D | causal | " +
              " | ".join(f"{n} us" for n in parts) + " |")
        print("|---|---|" + "---|" * len(parts))
        for r in rows:
            print(f"| {r['shape']} | {r['causal']} | " +
                  " | ".join(f"{r['us'][n]:.0f}" for n in parts) + " |")


def parse_configs(text):
    """--configs: [(name, {key: value})]."""
    configs = []
    for cfg in filter(None, text.split(";")):
        name, _, kv = cfg.partition(":")
        configs.append((name, {k: parse_value(v) for k, v in
                               (x.split("=") for x in kv.split(","))}))
    return configs


def parse_value(v):
    """A --configs value: an int, a bool, or the string."""
    if v in ("True", "False"):
        return v == "True"
    try:
        return int(v)
    except ValueError:
        return v


def cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main()
