#!/usr/bin/env python3
"""Flash attention forward, tilec against cuDNN and PyTorch's flash kernel
in one process, launches interleaved: the ratio of two figures taken minutes
apart moves with the GPU's clocks (a search that has kept the GPU busy for
seconds leaves it slower than a script that has just started), so here each
round launches every implementation once, back to back, on the same inputs,
and each figure is the median over the rounds.

tilec runs through its user-facing path, tilec.attention (the attention API:
its own autotuner picks the configuration, once per problem class, before
the timing), so the figures are what a PyTorch user gets. Inputs: B=4, H=32,
fp16, (B, H, N, D) contiguous, uniform in [-1, 1], rotated between rounds
(enough sets to exceed L2). Before timing, tilec's output is compared with
cuDNN's (max |error| <= 1e-2; a mismatch is reported and the point is not
timed). One JSON object per implementation and point:

  {"impl": "tilec-api", "bench": "attention-interleaved", "B": 4, "H": 32,
   "N": 4096, "D": 128, "causal": true, "ms": 1.2, "tflops": 456.7,
   "rounds": 30}

  PYTHONPATH=python python3 bench/interleaved.py [--json=FILE] [--quick]

Exit status 77 (skip) without torch, a GPU or the tilec package.
"""
import argparse
import json
import sys

B, H = 4, 32


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench-interleaved.json")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=30)
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

    status = 0
    out = open(args.json, "w")
    for D in (128, 64):
        for causal in (True, False):
            for N in (1024, 2048, 4096, 8192, 16384):
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
                impls.update({name: sdpa_with(b)
                              for name, b in backends.items()})
                where = f"N={N} D={D} causal={int(causal)}"

                # Tunes tilec's class; checks it against cuDNN.
                q, k, v, o = sets[0]
                o.fill_(float("nan"))
                run_tilec(sets[0])
                with sdpa_kernel([backends["cudnn"]]):
                    ref = sdpa(q, k, v, is_causal=causal)
                err = (o.float() - ref.float()).abs().max().item()
                if not err <= 1e-2:
                    print(f"  {where}: tilec differs from cuDNN by {err}: "
                          "not timed")
                    status = 1
                    continue
                del ref

                for run in impls.values():  # warm-up
                    for i in range(3):
                        run(sets[i % nsets])
                times = {name: [] for name in impls}
                events = []
                for r in range(args.rounds):
                    s = sets[r % nsets]
                    for name, run in impls.items():
                        start = torch.cuda.Event(enable_timing=True)
                        stop = torch.cuda.Event(enable_timing=True)
                        start.record()
                        run(s)
                        stop.record()
                        events.append((name, start, stop))
                events[-1][2].synchronize()
                for name, start, stop in events:
                    times[name].append(start.elapsed_time(stop))
                flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
                line = []
                for name, ts in times.items():
                    ts.sort()
                    ms = ts[len(ts) // 2]
                    rec = {"impl": name, "bench": "attention-interleaved",
                           "B": B, "H": H, "N": N, "D": D, "causal": causal,
                           "ms": round(ms, 5),
                           "tflops": round(flops / ms / 1e9, 2),
                           "rounds": args.rounds}
                    out.write(json.dumps(rec) + "\n")
                    line.append(f"{name} {rec['tflops']:.1f}")
                out.flush()
                print(f"  {where}: " + ", ".join(line) + " TFLOPS",
                      flush=True)
                del sets
                torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
