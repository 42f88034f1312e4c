#!/usr/bin/env python3
"""The kernel library (tilec.ops) against the PyTorch ops it replaces and the
device copy, in one run.

  python3 bench/ops.py [--rounds 20] [--inner 10] [--ops rms_norm,...]
                       [--dtypes float16,bfloat16] [--shapes 64x4096x4096,...]
                       [--graphs] [--json out.json]

For each op and shape: the median over `rounds` of CUDA-event timings of
`inner` back-to-back launches (so that the host's launch cost hides behind
the GPU's work, as in a model), on three input sets in turn (each larger
than L2 at the default shapes), implementations interleaved. The
multiplies (linear: PyTorch's linear then its activation, as a model
runs them; bmm; matmul, x @ W^T without bias, at issue 46's GEMM shapes,
only with --ops matmul) report TFLOP/s. GB/s counts
the bytes the op must move (read its input once, write its output once);
"copy" is torch's copy_ of the input's bytes into a tensor of its size
(read + write), measured alike in the same run. Every result is checked
against PyTorch's first.
"""
import argparse
import json
import sys

import torch
import tilec

SHAPES = {
    "rms_norm": [(65536, 768), (16384, 1024), (8192, 4096), (4096, 8192),
                 (4096, 10000)],
    "layer_norm": [(65536, 768), (65536, 512), (16384, 1024), (8192, 4096),
                   (4096, 8192), (4096, 10000)],
    "softmax": [(16384, 1024), (8192, 4096), (2048, 16384), (4096, 20480),
                (2048, 32768), (512, 65536), (256, 131072),
                # read in chunks twice (kernels/softmax_looped.tile)
                (512, 327680)],
    "cross_entropy": [(4096, 32000), (2048, 50257), (1024, 128256)],
    "sum": [(16384, 4096), (4096, 10000)],
    "amax": [(16384, 4096)],
    "transpose": [(8192, 8192), (4096, 10000)],
    # rows x N x K; the activation after the first.
    "linear": [(8192, 4096, 4096, None), (8192, 4096, 4096, "gelu_tanh"),
               (4096, 14336, 4096, "silu"), (8192, 4096, 4096, "relu"),
               # Skinny (decode-shaped): K split across blocks.
               (64, 4096, 4096, None), (16, 4096, 4096, None),
               (128, 8192, 8192, None), (64, 14336, 4096, "silu")],
    # x @ W^T, no bias (cuBLAS's GEMM through F.linear): issue 46's GEMM
    # shapes, each in its own dtype (the others skipped). Not in the
    # default --ops: tuning the large ones takes minutes.
    "matmul": [(4096, 4096, 4096, "float16"), (8192, 8192, 8192, "bfloat16"),
               (8192, 14336, 4096, "bfloat16"),
               (8192, 4096, 14336, "bfloat16"),
               (2048, 2048, 8192, "float16"), (64, 4096, 4096, "bfloat16"),
               (3000, 5000, 1000, "float16")],
    "bmm": [(16, 2048, 2048, 2048), (64, 1024, 1024, 128)],
}


def torch_activation(y, activation):
    if activation == "relu":
        return torch.relu(y)
    if activation == "gelu_tanh":
        return torch.nn.functional.gelu(y, approximate="tanh")
    if activation == "silu":
        return torch.nn.functional.silu(y)
    return y


def problem(op, shape, dtype):
    """(inputs, tilec run, torch run, bytes moved, flops) for one problem
    (flops None for the memory-bound ones)."""
    if op == "linear":
        m, n, k, act = shape
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=dtype)
        y = torch.empty(m, n, device="cuda", dtype=dtype)
        return ((x, w, b, y),
                lambda s: tilec.ops.linear(s[0], s[1], s[2], act, out=s[3]),
                lambda s: torch_activation(
                    torch.nn.functional.linear(s[0], s[1], s[2]), act),
                None, 2.0 * m * n * k)
    if op == "matmul":
        m, n, k, _ = shape
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
        y = torch.empty(m, n, device="cuda", dtype=dtype)
        return ((x, w, y), lambda s: tilec.ops.linear(s[0], s[1], out=s[2]),
                lambda s: torch.nn.functional.linear(s[0], s[1]), None,
                2.0 * m * n * k)
    if op == "bmm":
        batch, m, n, k = shape
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
        b = torch.randn(batch, k, n, device="cuda", dtype=dtype)
        c = torch.empty(batch, m, n, device="cuda", dtype=dtype)
        return ((a, b, c), lambda s: tilec.ops.bmm(s[0], s[1], out=s[2]),
                lambda s: torch.bmm(s[0], s[1]), None,
                2.0 * batch * m * n * k)
    rows, n = shape
    x = torch.randn(rows, n, device="cuda", dtype=dtype)
    if op in ("sum", "amax"):
        f = getattr(tilec.ops, op)
        g = getattr(torch, op)
        return ((x,), lambda s: f(s[0]), lambda s: g(s[0], -1),
                x.numel() * x.element_size(), None)
    if op == "transpose":
        y = torch.empty(n, rows, device="cuda", dtype=dtype)
        return ((x, y), lambda s: tilec.ops.transpose(s[0], out=s[1]),
                lambda s: s[1].copy_(s[0].t()),
                2 * x.numel() * x.element_size(), None)
    if op == "rms_norm":
        w = torch.rand(n, device="cuda", dtype=dtype) + 0.5
        y = torch.empty_like(x)
        return ((x, w, y),
                lambda s: tilec.ops.rms_norm(s[0], s[1], 1e-6, out=s[2]),
                lambda s: torch.nn.functional.rms_norm(s[0], (n,), s[1],
                                                       1e-6),
                2 * x.numel() * x.element_size(), None)
    if op == "layer_norm":
        w = torch.rand(n, device="cuda", dtype=dtype) + 0.5
        b = torch.randn(n, device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        return ((x, w, b, y),
                lambda s: tilec.ops.layer_norm(s[0], s[1], s[2], 1e-5,
                                               out=s[3]),
                lambda s: torch.nn.functional.layer_norm(s[0], (n,), s[1],
                                                         s[2], 1e-5),
                2 * x.numel() * x.element_size(), None)
    if op == "softmax":
        y = torch.empty_like(x)
        return ((x, y), lambda s: tilec.ops.softmax(s[0], out=s[1]),
                lambda s: torch.softmax(s[0], dim=-1),
                2 * x.numel() * x.element_size(), None)
    if op == "cross_entropy":
        t = torch.randint(0, n, (rows,), device="cuda")
        return ((x, t), lambda s: tilec.ops.cross_entropy(s[0], s[1]),
                lambda s: torch.nn.functional.cross_entropy(
                    s[0], s[1], reduction="none"),
                x.numel() * x.element_size(), None)
    raise ValueError(op)


def timed(impls, sets, rounds, inner, graphs=False):
    """Median ms per launch of each impl (name -> run(set)). With `graphs`,
    each impl's `inner` launches (over the sets in turn) are captured once
    in a CUDA graph, and a round replays it: the GPU's time, without the
    host's launch cost (as a server decoding through CUDA graphs runs)."""
    for run in impls.values():
        for s in sets:
            run(s)
    if graphs:
        captured = {}
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for run in impls.values():  # warm up on the capture stream
                for s in sets:
                    run(s)
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        for name, run in impls.items():
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=stream):
                for i in range(inner):
                    run(sets[i % len(sets)])
            captured[name] = g
        impls = {name: (lambda s, g=g: g.replay())
                 for name, g in captured.items()}
    times = {name: [] for name in impls}
    order = list(impls.items())
    events = []
    for r in range(rounds):
        shift = r % len(order)
        for name, run in order[shift:] + order[:shift]:
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            if graphs:
                run(None)
            else:
                for i in range(inner):
                    run(sets[(r + i) % len(sets)])
            stop.record()
            events.append((name, start, stop))
    torch.cuda.synchronize()
    for name, start, stop in events:
        times[name].append(start.elapsed_time(stop) / inner)
    return {n: sorted(t)[len(t) // 2] for n, t in times.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--inner", type=int, default=10)
    p.add_argument("--ops", default=",".join(o for o in SHAPES
                                             if o != "matmul"))
    p.add_argument("--dtypes", default="float16,bfloat16")
    p.add_argument("--graphs", action="store_true",
                   help="time CUDA graphs of the launches (the GPU's time)")
    p.add_argument("--shapes", help="only shapes whose text (e.g. "
                   "'64x4096x4096') is listed, comma-separated")
    p.add_argument("--json")
    args = p.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| op | shape | dtype | tilec us | torch us | tilec / torch "
          "| tilec GB/s | copy GB/s | tilec / copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = []
    for op in args.ops.split(","):
        for shape in SHAPES[op]:
            for dname in args.dtypes.split(","):
                if op == "matmul" and shape[3] != dname:
                    continue
                text = "x".join(str(d) for d in shape
                                if isinstance(d, int))
                if args.shapes and text not in args.shapes.split(","):
                    continue
                dtype = getattr(torch, dname)
                sets, runs = [], None
                for _ in range(3):
                    inputs, ours, theirs, nbytes, flops = problem(
                        op, shape, dtype)
                    sets.append(inputs)
                    runs = (ours, theirs)
                ours, theirs = runs
                want = theirs(sets[0]).float().clone()
                got = ours(sets[0]).float()
                torch.cuda.synchronize()
                err = ((got - want).abs().max() /
                       want.abs().max().clamp(min=1e-6)).item()
                assert err < 2e-2, (op, shape, dname, err)
                # The copy: the input's bytes into a tensor of its size.
                copies = [(s[0], torch.empty_like(s[0])) for s in sets]
                ms = timed({"tilec": lambda i: ours(sets[i]),
                            "torch": lambda i: theirs(sets[i]),
                            "copy": lambda i: copies[i][1].copy_(
                                copies[i][0])},
                           [0, 1, 2], args.rounds, args.inner, args.graphs)
                copy_bytes = 2 * sets[0][0].numel() * \
                    sets[0][0].element_size()
                copy_gbs = copy_bytes / ms["copy"] / 1e6
                row = dict(op=op, shape=[str(d) for d in shape],
                           dtype=dname, tilec_us=1e3 * ms["tilec"],
                           torch_us=1e3 * ms["torch"],
                           ratio=ms["torch"] / ms["tilec"],
                           copy_gbs=copy_gbs)
                if flops:
                    # Compute-bound: TFLOP/s in place of GB/s.
                    row.update(tilec_tflops=flops / ms["tilec"] / 1e9,
                               torch_tflops=flops / ms["torch"] / 1e9)
                    speed = (f"{row['tilec_tflops']:.0f} TFLOP/s | "
                             f"torch {row['torch_tflops']:.0f} TFLOP/s | -")
                else:
                    row.update(gbs=nbytes / ms["tilec"] / 1e6)
                    row.update(of_copy=row["gbs"] / copy_gbs)
                    speed = (f"{row['gbs']:.0f} | {copy_gbs:.0f} | "
                             f"{row['of_copy']:.2f}")
                results.append(row)
                print(f"| {op} | {' x '.join(row['shape'])} | {dname} | "
                      f"{row['tilec_us']:.1f} | {row['torch_us']:.1f} | "
                      f"{row['ratio']:.2f} | {speed} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
