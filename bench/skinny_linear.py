#!/usr/bin/env python3
"""kernels/linear.tile on skinny (decode-shaped) products, configuration by
configuration, against cuBLAS (torch.nn.functional.linear), graph-timed.

  PYTHONPATH=python python3 bench/skinny_linear.py [--shapes 64x4096x4096,...]
                                                   [--wide] [--swap] [--top 12]

For each M x N x K (bf16, no bias): every configuration of 64-row tiles,
TILE_N 64/128, SPLITS 1/2/4/8, rings at the compiler's choice and at 4 and
6 stages (--wide: also TILE_N 256, TILE_K 64/128/256, 3 stages and warp
specialization; --swap: the product swapped, SWAP_AB, X's rows in tiles of
16, 32 or 64 as the multiply's N and W's 64 or 128 rows as its M, K 128 and
256, 3-8 stages, with and without a producer warp), each checked against
cuBLAS, then timed as a CUDA graph of
its launches over 3 rotating input sets (the GPU's time: one launch from
Python costs more than these kernels run). Prints the fastest --top per
shape with the ratio to cuBLAS.
"""
import argparse
import itertools

import torch
import tilec


def rotation(n=3):
    """A function returning 1, 2, ..., n - 1, 0, 1, ...: the input set of
    the next timed call, so that n sets larger than L2 together rotate."""
    state = [0]

    def nxt():
        state[0] = (state[0] + 1) % n
        return state[0]
    return nxt


def graph_us(fn, inner=20, rounds=15):
    """Median µs per call of fn() over `rounds` replays of a CUDA graph of
    `inner` calls."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(inner):
            fn()
    times = []
    for _ in range(rounds):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3 / inner)
    return sorted(times)[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="64x4096x4096,16x4096x4096,"
                   "128x8192x8192,64x14336x4096")
    p.add_argument("--wide", action="store_true")
    p.add_argument("--swap", action="store_true")
    p.add_argument("--top", type=int, default=12)
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    path = tilec.ops._kernel_path("linear.tile")
    tns = (64, 128, 256) if args.wide else (64, 128)
    tks = (64, 128, 256) if args.wide else (64,)
    stages = (None, 3, 4, 6) if args.wide else (None, 4, 6)
    wss = (False, True) if args.wide else (False,)
    if args.swap:
        tns, tks, stages, wss = (64, 128), (128, 256), (3, 4, 6, 8), \
            (False, True)
    for shape in args.shapes.split(","):
        m, n, k = (int(d) for d in shape.split("x"))
        xs = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
              for _ in range(3)]
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) /
              k ** 0.5 for _ in range(3)]
        y = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        cublas = graph_us(lambda: [torch.nn.functional.linear(
            xs[i], ws[i], out=y) for i in range(3)]) / 3
        ref = xs[0].float() @ ws[0].float().t()
        results = []
        # Swapped: X's rows are the multiply's N (16, 32 or 64).
        tm = min(64, max(16, 1 << (m - 1).bit_length())) if args.swap \
            else 64
        for tn, tk, sp, st, spec in itertools.product(
                tns, tks, (1, 2, 4, 8), stages, wss):
            if st and (tm + tn) * tk * 2 * st > 200 * 1024:
                continue
            if k // tk < 2 * sp:
                continue
            options = {"num_stages": st} if st else {}
            if spec:
                options["warp_specialize"] = True
            if args.swap:
                options.update(SWAP_AB=True, num_warps=tn // 16)
            try:
                kern = tilec.compile(path, kernel="linear", DTYPE="bf16",
                                     HAS_BIAS=False, TILE_M=tm, TILE_N=tn,
                                     TILE_K=tk, SPLITS=sp, **options)
            except tilec.TileError:
                continue
            tiles = ((m + tm - 1) // tm) * ((n + tn - 1) // tn)
            part = torch.empty(sp, m, n, device="cuda")
            tickets = torch.zeros(tiles, device="cuda", dtype=torch.int32)
            bias = torch.zeros(8, device="cuda", dtype=torch.bfloat16)

            def run(i, kern=kern, tiles=tiles, sp=sp, part=part,
                    tickets=tickets, bias=bias):
                kern[(tiles, sp)](xs[i], ws[i], bias, y, part, tickets)
            run(0)
            torch.cuda.synchronize()
            err = ((y.float() - ref).abs().max() / ref.abs().max()).item()
            assert err < 1e-2, (shape, tn, tk, sp, st, err)
            t = graph_us(lambda: [run(i) for i in range(3)]) / 3
            results.append((t, f"TILE_M={tm} TILE_N={tn} TILE_K={tk} "
                               f"SPLITS={sp} {'swapped ' if args.swap else ''}"
                               f"stages={st or 'choice'} ws={spec} "
                               f"(warps {kern.num_warps}, "
                               f"{kern.shared_bytes} B shared)"))
        results.sort()
        print(f"\n## {shape}: cuBLAS {cublas:.1f} us")
        for t, what in results[:args.top]:
            print(f"  {t:.1f} us ({cublas / t:.2f} of cuBLAS) {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
