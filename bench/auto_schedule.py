#!/usr/bin/env python3
"""The compiler's own schedule (issue 45): kernels/flash_attention.tile
compiled by tilec.compile with no options, only its tile constants (the
attention API's TILE_M and TILE_N for the point), against the attention
API's tuned pick of the same source and cuDNN, at FlashAttention-3's setting
(batch x sequence = 16k tokens, hidden 2048: H = 2048 / D), f16, in one
process with launches interleaved (bench/interleaved.py's time_interleaved).
Each variant's output is checked against cuDNN's first.

With --kernel attention_lse, the default compile is instead
kernels/attention_lse.tile (a plain FlashAttention-2 forward that also
writes each row's log-sum-exp, (B, H, N) f32), compiled the same way (no
options; TILE_M and TILE_N from the attention API's pick); its Out is
checked against cuDNN's and, for N <= 4096, its Lse against torch's float32
logsumexp of the scaled scores. It assumes N a multiple of both tiles (the
points where it is not are skipped).

  python3 bench/auto_schedule.py [--head-dims 64,128,256]
                                 [--seq-lens 1024,4096,16384] [--rounds 20]
                                 [--kernel flash_attention|attention_lse]
                                 [--also persistent=False]

Prints a markdown table: TFLOP/s of each, the default compile over the API's
pick, and each over cuDNN. --also OPTIONS adds a column: the default compile
with those options too ("persistent=False": the compiler's choice without
its persistence), over the API's pick, timed in the same rounds.
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

KERNEL = os.path.join(os.path.dirname(HERE), "kernels", "flash_attention.tile")
KERNEL_LSE = os.path.join(os.path.dirname(HERE), "kernels",
                          "attention_lse.tile")

# --autotune (attention_lse): tilec.autotune(path, None, ...) with no
# configs tries the compiler's schedules (kernels/attention_lse.tile has no
# @tune: its choice, rings of 2, 3 and 4 stages, persistent), with the
# attention API's TILE_M and TILE_N; a column of its own.


def lse_reference(torch, q, k, scale, causal):
    """torch float32 logsumexp of each query row's scaled (causal: masked)
    scores, (B, H, N), a few (batch, head) pairs at a time so that a chunk's
    score matrices stay within about 1 GiB."""
    B, H, N, D = q.shape
    qf = q.reshape(B * H, N, D)
    kf = k.reshape(B * H, N, D)
    out = torch.empty(B * H, N, device=q.device, dtype=torch.float32)
    above = (torch.ones(N, N, device=q.device, dtype=torch.bool).triu(1)
             if causal else None)
    step = max(1, (1 << 28) // (N * N))
    for i in range(0, B * H, step):
        s = torch.matmul(qf[i:i + step].float(),
                         kf[i:i + step].float().transpose(-1, -2)) * scale
        if causal:
            s.masked_fill_(above, float("-inf"))
        out[i:i + step] = torch.logsumexp(s, dim=-1)
        del s
    return out.reshape(B, H, N)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", default="64,128,256")
    parser.add_argument("--seq-lens", default="1024,4096,16384")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--kernel", default="flash_attention",
                        choices=("flash_attention", "attention_lse"),
                        help="the default compile: kernels/<KERNEL>.tile")
    parser.add_argument("--autotune", action="store_true",
                        help="attention_lse: also tilec.autotune with no "
                             "configs (the compiler's schedules)")
    parser.add_argument("--also", default="",
                        help="options (k=v,...) of a second default compile, "
                             "a column of its own")
    args = parser.parse_args()
    also = {}
    for item in filter(None, args.also.split(",")):
        name, value = item.split("=", 1)
        also[name] = (value == "True" if value in ("True", "False")
                      else int(value))
    also_head = f" with {args.also} / API |" if also else ""
    lse_mode = args.kernel == "attention_lse"
    tuned_mode = lse_mode and args.autotune
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    if lse_mode:
        print(f"{torch.cuda.get_device_name()}, f16, {args.tokens} tokens, "
              f"hidden {args.hidden}, {args.rounds} rounds, "
              f"default compile: kernels/attention_lse.tile\n")
        print("| D | causal | N | tiles | API pick | attention_lse | cuDNN | "
              "lse / API | API / cuDNN | lse / cuDNN |" +
              (" autotuned / cuDNN | its schedule |" if tuned_mode else "") +
              also_head)
    else:
        print(f"{torch.cuda.get_device_name()}, f16, {args.tokens} tokens, "
              f"hidden {args.hidden}, {args.rounds} rounds\n")
        print("| D | causal | N | tiles | API pick | default compile | "
              "cuDNN | default / API | API / cuDNN | default / cuDNN |" +
              also_head)
    print("|---|---|---|---|---|---|---|---|---|---|" +
          ("---|---|" if tuned_mode else "") + ("---|" if also else ""))
    status = 0
    for D in (int(d) for d in args.head_dims.split(",")):
        for causal in (False, True):
            for N in (int(n) for n in args.seq_lens.split(",")):
                B, H = max(1, args.tokens // N), args.hidden // D
                gen = torch.Generator(device="cuda").manual_seed(N + D)
                sets = []
                for _ in range(2):
                    q, k, v = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.float16,
                                           generator=gen)
                               for _ in range(3))
                    if lse_mode:
                        sets.append((q, k, v, torch.empty_like(q),
                                     torch.empty(B, H, N, device="cuda",
                                                 dtype=torch.float32)))
                    else:
                        sets.append((q, k, v, torch.empty_like(q)))
                q, k, v, o = sets[0][:4]
                config = tilec.attention_config(q, k, v, causal=causal,
                                                out=o)
                c = dict(kv.split("=", 1) for kv in config.split(","))
                tm, tn = int(c["TILE_M"]), int(c["TILE_N"])
                scale = 1 / math.sqrt(D)
                grid = ((N + tm - 1) // tm, B * H)
                if lse_mode:
                    if N % tm or N % tn:
                        print(f"  D={D} N={N} causal={causal}: skipped: "
                              f"attention_lse needs N a multiple of "
                              f"{tm} and {tn}")
                        continue
                    def lse_kernel(**options):
                        return tilec.compile(
                            KERNEL_LSE, DTYPE="f16", TILE_D=D, TILE_M=tm,
                            TILE_N=tn, CAUSAL=causal, **options)

                    def launcher(kernel, grid=grid, scale=scale):
                        return lambda s: kernel[grid](s[0], s[1], s[2],
                                                      s[3], s[4], scale)
                    kernel = lse_kernel()
                    run_default = launcher(kernel)
                    if also:
                        run_also = launcher(lse_kernel(**also))
                    if tuned_mode:
                        tuned = tilec.autotune(
                            KERNEL_LSE, None, key=f"{B}x{H}x{N}x{D}",
                            grid=grid, args=sets[0][:5] + (scale,),
                            DTYPE="f16", TILE_D=D, TILE_M=tm, TILE_N=tn,
                            CAUSAL=causal)

                        def run_tuned(s, kernel=tuned, grid=grid,
                                      scale=scale):
                            kernel[grid](s[0], s[1], s[2], s[3], s[4],
                                         scale)
                else:
                    def fa_kernel(**options):
                        return tilec.compile(
                            KERNEL, "fmha", DTYPE="f16", TILE_D=D, H=H,
                            TILE_M=tm,
                            TILE_N=tn, QUERY_GROUP_SIZE=1, CAUSAL=causal,
                            EVEN_K=N % tn == 0, **options)

                    def launcher(kernel, grid=grid, scale=scale):
                        return lambda s: kernel[grid](s[0], s[1], s[2],
                                                      s[3], scale, 0)
                    kernel = fa_kernel()
                    run_default = launcher(kernel)
                    if also:
                        run_also = launcher(fa_kernel(**also))

                def run_api(s, causal=causal):
                    tilec.attention(s[0], s[1], s[2], causal=causal,
                                    out=s[3])

                def run_cudnn(s, causal=causal):
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        sdpa(s[0], s[1], s[2], is_causal=causal)

                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    ref = sdpa(q, k, v, is_causal=causal).float()
                ok = True
                if lse_mode:
                    sets[0][4].fill_(float("nan"))
                checks = [("api", run_api),
                          ("attention_lse" if lse_mode else "default",
                           run_default)]
                if tuned_mode:
                    checks.append(("autotuned", run_tuned))
                if also:
                    checks.append((f"with {args.also}", run_also))
                for name, run in checks:
                    o.fill_(float("nan"))
                    run(sets[0])
                    torch.cuda.synchronize()
                    err = (o.float() - ref).abs().max().item()
                    if not err <= 1e-2:
                        print(f"  D={D} N={N} causal={causal}: {name} "
                              f"differs from cuDNN by {err}")
                        ok = False
                # Lse is checked only for N <= 4096: the reference builds
                # every float32 score matrix, B * H * N * N elements in all
                # (in chunks of about 1 GiB); at fixed tokens that grows
                # with N, to 32 GiB of scores at N = 16384 and D = 64.
                if lse_mode and N <= 4096:
                    want = lse_reference(torch, q, k, scale, causal)
                    err = (sets[0][4] - want).abs().max().item()
                    if not err <= 1e-3:
                        print(f"  D={D} N={N} causal={causal}: attention_lse"
                              f" Lse differs from torch's logsumexp by {err}")
                        ok = False
                    del want
                if not ok:
                    status = 1
                    continue
                impls = {"api": run_api, "default": run_default,
                         "cudnn": run_cudnn}
                if tuned_mode:
                    impls["tuned"] = run_tuned
                if also:
                    impls["also"] = run_also
                ms = time_interleaved(torch, impls, sets, args.rounds)
                flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
                t = {n: flops / m / 1e9 for n, m in ms.items()}
                print(f"| {D} | {causal} | {N} | {tm}x{tn} | {t['api']:.0f} "
                      f"| {t['default']:.0f} | {t['cudnn']:.0f} | "
                      f"{t['default'] / t['api']:.2f} | "
                      f"{t['api'] / t['cudnn']:.2f} | "
                      f"{t['default'] / t['cudnn']:.2f} |" +
                      (f" {t['tuned'] / t['cudnn']:.2f} | "
                       f"{tuned.config} |" if tuned_mode else "") +
                      (f" {t['also'] / t['api']:.2f} |" if also else ""),
                      flush=True)
                if kernel.warnings:
                    print(f"  warnings: {kernel.warnings}")
                del sets, ref
                torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
