#!/usr/bin/env python3
"""Flash attention forward, tilec against cuDNN, PyTorch's flash kernel and
Triton,
and GEMM, tilec against cuBLAS, in one process, launches interleaved: the ratio of two figures taken minutes
apart moves with the GPU's clocks (a search that has kept the GPU busy for
seconds leaves it slower than a script that has just started), so here each
round launches every implementation once, back to back, on the same inputs,
and each figure is the median over the rounds (with --trials=K, the median
of K such medians, the inputs copied to new memory before each, so that no
figure rests on one placement or one stretch of the GPU's clocks).

tilec runs through its user-facing path, tilec.attention (the attention API:
its own autotuner picks the configuration, once per problem class, before
the timing), so the figures are what a PyTorch user gets. Inputs: B=4, H=32,
fp16, (B, H, N, D) contiguous, uniform in [-1, 1], rotated between rounds
(enough sets to exceed L2); each round also starts with the next
implementation. Before timing, tilec's output is compared with
cuDNN's (max |error| <= 1e-2; a mismatch is reported and the point is not
timed). One JSON object per implementation and point:

  {"impl": "tilec-api", "bench": "attention-interleaved", "B": 4, "H": 32,
   "N": 4096, "D": 128, "causal": true, "ms": 1.2, "tflops": 456.7,
   "rounds": 30}

(tilec-api rows also carry "config": the configuration the attention API's
tuner chose for the point's class, tilec.attention_config.)

GEMM (fp16, f32 accumulation, M = N = K = 4096 and 8192): kernels/gemm.tile
through tilec.autotune over the GEMM benchmark's fastest shapes, checked
against torch.matmul, then alternating with it (cuBLAS): rows with "bench":
"gemm-interleaved", "impl" "tilec" (with "config") or "cublas".

With --triton-from=bench-triton.json, each point's Triton kernel (our
FlashAttention-2 in Triton, bench/triton_attention.py, in the configuration
its own search chose) runs in the same rounds: "impl": "triton".

  PYTHONPATH=python python3 bench/interleaved.py [--json=FILE] [--quick]
                                                 [--no-gemm] [--head-dims=128,64,256]
                                                 [--seq-lens=1024,...] [--masks=both|causal|none]
                                                 [--impls=cudnn,tilec-api,...] [--trials=K]
                                                 [--triton-from=FILE]

Exit status 77 (skip) without torch, a GPU or the tilec package.
"""
import argparse
import json
import statistics
import sys

B, H = 4, 32


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench-interleaved.json")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--trials", type=int, default=1,
                        help="time each attention point this many times, "
                        "the inputs copied to new memory each time; the "
                        "figure is the median trial")
    parser.add_argument("--no-gemm", action="store_true")
    parser.add_argument("--head-dims", default="128,64,256",
                        help="comma-separated head dimensions")
    parser.add_argument("--seq-lens", default="1024,2048,4096,8192,16384",
                        help="comma-separated sequence lengths")
    parser.add_argument("--masks", choices=("both", "causal", "none"),
                        default="both")
    parser.add_argument("--impls",
                        help="comma-separated implementations to time "
                        "(tilec-api, cudnn, flash, triton; default all): "
                        "cuDNN alone, say, to see whether a neighbour in "
                        "the rounds moves it")
    parser.add_argument("--triton-from",
                        help="bench/triton_attention.py's JSON: time its "
                        "chosen kernel per point alongside")
    args = parser.parse_args()
    try:
        import torch
        import tilec
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    if not torch.cuda.is_available():
        print("skipped: no GPU")
        return 77
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION,
                "flash": SDPBackend.FLASH_ATTENTION}

    # Triton's configuration per point, from its own search's rows.
    triton_configs = {}
    ta = None
    if args.triton_from:
        try:
            import triton_attention as ta
        except ImportError as e:
            print(f"no Triton column: {e}")
        if ta is not None and ta.triton is not None:
            try:
                with open(args.triton_from) as f:
                    for line in f:
                        r = json.loads(line)
                        if r.get("impl") != "triton" or "config" not in r:
                            continue
                        c = dict(x.split("=") for x in r["config"].split(","))
                        triton_configs[(r["N"], r["D"], r["causal"])] = \
                            ta.Config(c["load"], int(c["BLOCK_M"]),
                                      int(c["BLOCK_N"]), int(c["stages"]),
                                      int(c["warps"]))
            except (OSError, ValueError, KeyError) as e:
                print(f"no Triton column: {args.triton_from}: {e}")

    status = 0
    out = open(args.json, "w")
    for D in (int(d) for d in args.head_dims.split(",")):
        for causal in {"both": (True, False), "causal": (True,),
                       "none": (False,)}[args.masks]:
            for N in (int(n) for n in args.seq_lens.split(",")):
                if args.quick and N not in (1024, 4096):
                    continue
                elements = B * H * N * D
                nsets = 4 if 3 * elements * 2 < (256 << 20) else 2
                gen = torch.Generator(device="cuda").manual_seed(N * D)
                sets = []
                for _ in range(nsets):
                    q, k, v = (torch.rand(B, H, N, D, device="cuda",
                                          dtype=torch.float16,
                                          generator=gen) * 2 - 1
                               for _ in range(3))
                    sets.append((q, k, v, torch.empty_like(q)))

                def run_tilec(s):
                    q, k, v, o = s
                    tilec.attention(q, k, v, causal=causal, out=o)

                def sdpa_with(backend):
                    def run(s):
                        q, k, v, _ = s
                        with sdpa_kernel([backend]):
                            sdpa(q, k, v, is_causal=causal)
                    return run

                impls = {"tilec-api": run_tilec}
                for name, b in backends.items():
                    # A backend without this shape (PyTorch's flash kernel
                    # or cuDNN at some head dims) drops out of the point.
                    try:
                        sdpa_with(b)(sets[0])
                    except RuntimeError as e:
                        print(f"  N={N} D={D}: no {name}: "
                              f"{str(e).splitlines()[0][:100]}")
                        continue
                    impls[name] = sdpa_with(b)
                where = f"N={N} D={D} causal={int(causal)}"
                cfg = triton_configs.get((N, D, causal))
                if cfg is not None:
                    launches = [ta.launcher(*st, causal, cfg) for st in sets]
                    by_set = {id(st): f for st, f in zip(sets, launches)}
                    impls["triton"] = lambda st: by_set[id(st)]()

                # Tunes tilec's class; checks it against cuDNN (PyTorch's
                # flash kernel, or its default choice, where cuDNN is out).
                q, k, v, o = sets[0]
                o.fill_(float("nan"))
                run_tilec(sets[0])
                ref_name = next((n for n in backends if n in impls), None)
                with sdpa_kernel([backends[ref_name]] if ref_name else
                                 [SDPBackend.EFFICIENT_ATTENTION,
                                  SDPBackend.MATH]):
                    ref = sdpa(q, k, v, is_causal=causal)
                err = (o.float() - ref.float()).abs().max().item()
                if not err <= 1e-2:
                    print(f"  {where}: tilec differs from "
                          f"{ref_name or 'sdpa'} by {err}: not timed")
                    status = 1
                    continue
                del ref
                # The configuration the tuner chose for this class.
                tilec_config = tilec.attention_config(q, k, v, causal=causal,
                                                      out=o)

                if args.impls:
                    keep = args.impls.split(",")
                    impls = {n: f for n, f in impls.items() if n in keep}
                trials = {name: [] for name in impls}
                for trial in range(args.trials):
                    spacer = None
                    if trial:
                        # The same inputs at other addresses (a spacer of a
                        # trial's own size first).
                        spacer = torch.empty(trial * (5 << 20) + (1 << 20),
                                             dtype=torch.uint8,
                                             device="cuda")
                        sets = [tuple(t.clone() for t in st) for st in sets]
                        if cfg is not None:
                            launches = [ta.launcher(*st, causal, cfg)
                                        for st in sets]
                            by_set = {id(st): f
                                      for st, f in zip(sets, launches)}
                    for name, ms in time_interleaved(torch, impls, sets,
                                                     args.rounds).items():
                        trials[name].append(ms)
                    del spacer
                flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
                line = []
                for name, mss in trials.items():
                    ms = sorted(mss)[len(mss) // 2]
                    rec = {"impl": name, "bench": "attention-interleaved",
                           "B": B, "H": H, "N": N, "D": D, "causal": causal,
                           "ms": round(ms, 5),
                           "tflops": round(flops / ms / 1e9, 2),
                           "rounds": args.rounds}
                    if args.trials > 1:
                        rec["trials_tflops"] = [round(flops / t / 1e9, 1)
                                                for t in mss]
                    if name == "tilec-api":
                        rec["config"] = tilec_config
                    out.write(json.dumps(rec) + "\n")
                    line.append(f"{name} {rec['tflops']:.1f}" +
                                (f" {rec['trials_tflops']}"
                                 if args.trials > 1 else ""))
                out.flush()
                print(f"  {where}: " + ", ".join(line) + " TFLOPS",
                      flush=True)
                del sets
                torch.cuda.empty_cache()
    if not args.no_gemm:
        status |= gemm(torch, tilec, out, args)
    return status


# The GEMM benchmark's fastest shapes on an H200 (bench/results), as
# tilec.autotune candidates.
GEMM_CONFIGS = [
    dict(TILE_M=128, TILE_N=256, TILE_K=64, num_warps=8, num_stages=4),
    dict(TILE_M=128, TILE_N=256, TILE_K=64, num_warps=8, num_stages=0),
    dict(TILE_M=256, TILE_N=128, TILE_K=64, num_warps=8, num_stages=4),
    dict(TILE_M=128, TILE_N=128, TILE_K=64, num_warps=4, num_stages=0),
    # Persistent (rings and the epilogue's scratch share the 227 KiB).
    dict(TILE_M=128, TILE_N=256, TILE_K=64, num_warps=8, num_stages=2,
         persistent=True),
    dict(TILE_M=128, TILE_N=256, TILE_K=64, num_warps=8, num_stages=2,
         warp_specialize=True, persistent=True),
    dict(TILE_M=128, TILE_N=128, TILE_K=64, num_warps=8, num_stages=4,
         warp_specialize=True, persistent=True),
]


def gemm(torch, tilec, out, args):
    """kernels/gemm.tile through tilec.autotune against torch.matmul
    (cuBLAS, f32 accumulation), launches alternating."""
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    path = "kernels/gemm.tile"
    configs = [tilec.Config(**c) for c in GEMM_CONFIGS]
    for size in (4096,) if args.quick else (4096, 8192):
        nsets = 4 if 3 * size * size * 2 < (256 << 20) else 2
        gen = torch.Generator(device="cuda").manual_seed(size)
        sets = []
        for _ in range(nsets):
            a, b = (torch.rand(size, size, device="cuda", dtype=torch.float16,
                               generator=gen) * 2 - 1 for _ in range(2))
            sets.append((a, b, torch.empty_like(a), torch.empty_like(a)))

        def grid(config):
            c = config.constants
            return (-(-size // c["TILE_M"]), -(-size // c["TILE_N"]), 1)

        a, b, c, _ = sets[0]
        kernel = tilec.autotune(path, configs, key=f"interleaved {size}^3",
                                grid=grid, args=(a, b, c))
        g = grid(kernel.config)
        c.fill_(float("nan"))
        kernel[g](a, b, c)
        ref = torch.matmul(a, b)
        err = ((c.float() - ref.float()).abs().max() /
               ref.float().abs().max()).item()
        where = f"GEMM {size}^3"
        if not err <= 1e-2:
            print(f"  {where}: tilec differs from cuBLAS by {err}: not timed")
            return 1
        impls = {"tilec": lambda s: kernel[g](s[0], s[1], s[2]),
                 "cublas": lambda s: torch.matmul(s[0], s[1], out=s[3])}
        times = time_interleaved(torch, impls, sets, args.rounds)
        line = []
        for name, ms in times.items():
            rec = {"impl": name, "bench": "gemm-interleaved", "M": size,
                   "N": size, "K": size, "dtype": "f16", "ms": round(ms, 5),
                   "tflops": round(2.0 * size ** 3 / ms / 1e9, 2),
                   "rounds": args.rounds}
            if name == "tilec":
                rec["config"] = repr(kernel.config)
            out.write(json.dumps(rec) + "\n")
            line.append(f"{name} {rec['tflops']:.1f}")
        out.flush()
        print(f"  {where}: " + ", ".join(line) + f" TFLOPS ({kernel.config})",
              flush=True)
        del sets
        torch.cuda.empty_cache()
    return 0


def copy_bandwidth(torch, rounds):
    """The device's copy bandwidth (bytes read + written per second): the
    median of `rounds` copies of a 1 GiB buffer after 3 warm-up copies, what
    memory-bound kernels are measured against."""
    src = torch.empty(1 << 28, device="cuda", dtype=torch.float32)  # 1 GiB
    dst = torch.empty_like(src)
    times = []
    for i in range(rounds + 3):
        start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        dst.copy_(src)
        end.record()
        end.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end) / 1e3)
    return 2 * src.numel() * 4 / statistics.median(times)


def time_interleaved(torch, impls, sets, rounds):
    """Median milliseconds of each of `impls` (name -> run(set)) over
    `rounds` rounds that launch each once, on rotating input sets, after 3
    warm-up rounds. Each round starts one implementation further on, so
    that none always follows the same one (what runs before a launch, and
    how long ago, moves its time)."""
    for i in range(3):
        for run in impls.values():
            run(sets[i % len(sets)])
    events = []
    order = list(impls.items())
    for r in range(rounds):
        s = sets[r % len(sets)]
        shift = r % len(order)
        for name, run in order[shift:] + order[:shift]:
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            run(s)
            stop.record()
            events.append((name, start, stop))
    events[-1][2].synchronize()
    times = {name: [] for name in impls}
    for name, start, stop in events:
        times[name].append(start.elapsed_time(stop))
    return {name: sorted(ts)[len(ts) // 2] for name, ts in times.items()}


def bandwidth_rows(label, ms, nbytes, copy, baseline="torch"):
    """Table rows (label, implementation, us, GB/s, of copy, baseline time /
    this) for the median milliseconds `ms` of a memory-bound problem moving
    `nbytes`, against the copy bandwidth `copy` (bytes/s)."""
    rows = []
    for name, t in ms.items():
        gbs = nbytes / (t * 1e-3) / 1e9
        rows.append((label, name, t * 1e3, gbs, gbs * 1e9 / copy,
                     ms[baseline] / t))
    return rows


def print_bandwidth_table(what, rows, baseline="torch"):
    """Prints bandwidth_rows' rows as a markdown table; `what` names the
    first column."""
    print(f"\n| {what} | impl | us | GB/s | of copy | {baseline} time / this |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]:.2f} | "
              f"{r[5]:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
