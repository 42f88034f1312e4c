#!/usr/bin/env python3
"""Context parallelism: tilec.distributed.ring_attention on W GPUs against
single-GPU tilec at the same work per GPU and against PyTorch's
context_parallel over SDPA, in one run.

  python3 bench/ring_attention.py --world 2 [--seqs 32768,65536,131072]
      [--heads 32] [--kv-heads 8] [--head-dim 128] [--batch 1]
      [--rounds 5] [--backward] [--variants ring,allgather]
      [--no-torch-cp] [--cp-backends cudnn,flash,efficient] [--json F]

Starts W processes (torch.multiprocessing, NCCL). For each total sequence
N (bf16, causal, the zigzag layout):
  - tilec ring / allgather: forward (and with --backward forward +
    backward) of ring_attention on each rank's chunks;
  - torch-cp: scaled_dot_product_attention inside
    torch.distributed.tensor.experimental.context_parallel (its load
    balancing on), each SDPA backend that runs (cuDNN, flash, efficient),
    the fastest reported; K and V heads repeated to q's where SDPA's ring
    does not take grouped-query heads (--cp-backends picks the backends:
    PyTorch's memory-efficient backward faults with an illegal address at
    4 x 32k rows, 32 heads, and runs 3.8x slower than cuDNN's where it
    works, so the forward + backward runs leave it out);
  - single: on rank 0 alone (the others wait), tilec.attention on one GPU
    at the same work per GPU: the sequence N / sqrt(W) (causal work grows
    as N^2), rounded to a multiple of 256; forward only, also the forward
    that writes the LSE (ring attention's kernel) on one GPU.
Each figure is the median over rounds of the slowest rank's CUDA-event time
(inputs alternate between two sets). TFLOP/s per GPU count causal
attention's 2 * B * H * N^2 * D (forward; x 3.5 forward + backward) over W;
efficiency = per-GPU TFLOP/s / single's. Prints a markdown table;
bench/ring_chart.py draws the --json files of several runs (GPU counts,
forward and forward + backward) as one chart of efficiency against GPUs.
"""
import argparse
import faulthandler
import json
import math
import os
import statistics
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))


def log(*what):
    print(*what, file=sys.stderr, flush=True)


def timed(torch, fn, rounds, dist=None, warmup=2):
    """Median over rounds of the milliseconds of fn(i): with `dist`, the
    slowest rank's, the ranks starting each round together."""
    for i in range(warmup):
        fn(i)
    times = []
    for i in range(rounds):
        if dist:
            dist.barrier()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(i)
        end.record()
        torch.cuda.synchronize()
        t = torch.tensor([start.elapsed_time(end)], device="cuda")
        if dist:
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(t.item())
    return statistics.median(times)


def flops(args, n):
    f = 4 * args.batch * args.heads * n * n * args.head_dim / 2
    return f * (3.5 if args.backward else 1.0)


def inputs(torch, args, n, requires_grad, sets=2, kv_heads=None):
    hk = kv_heads or args.kv_heads
    out = []
    for _ in range(sets):
        q = torch.randn(args.batch, args.heads, n, args.head_dim,
                        device="cuda", dtype=torch.bfloat16)
        k = torch.randn(args.batch, hk, n, args.head_dim, device="cuda",
                        dtype=torch.bfloat16)
        v = torch.randn_like(k)
        out.append([t.requires_grad_(requires_grad) for t in (q, k, v)])
    return out


def run_step(torch, fn, qkv, backward):
    if backward:
        out = fn(*qkv)
        out.backward(torch.ones_like(out))
        for t in qkv:
            t.grad = None
    else:
        with torch.no_grad():
            fn(*qkv)


def bench_single(torch, tilec, args, n, lse=False):
    """tilec.attention on one GPU (with --backward: through autograd, whose
    forward writes the LSE); lse: the forward that writes it
    (tilec.autograd.forward, ring attention's kernel) instead."""
    sets = inputs(torch, args, n, args.backward)
    fn = (lambda q, k, v: tilec.autograd.forward(
        q, k, v, True, args.head_dim ** -0.5, "bf16")[0]) if lse else \
        (lambda q, k, v: tilec.attention(q, k, v, causal=True))
    return timed(torch, lambda i: run_step(torch, fn, sets[i % 2],
                                           args.backward), args.rounds)


def bench_tilec(torch, dist, tcp, args, n, variant):
    world = dist.get_world_size()
    sets = inputs(torch, args, n // world, args.backward)
    return timed(torch, lambda i: run_step(
        torch, lambda q, k, v: tcp.ring_attention(
            q, k, v, causal=True, variant=variant, check_ranks=False),
        sets[i % 2], args.backward), args.rounds, dist)


_mesh = None


def bench_torch_cp(torch, dist, args, n):
    """(ms, backend) of the fastest SDPA backend under context_parallel."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import context_parallel
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    world = dist.get_world_size()
    global _mesh
    if _mesh is None:
        _mesh = init_device_mesh("cuda", (world,))
    mesh = _mesh
    best, notes = None, []
    names = {"cudnn": SDPBackend.CUDNN_ATTENTION,
             "flash": SDPBackend.FLASH_ATTENTION,
             "efficient": SDPBackend.EFFICIENT_ATTENTION}
    for backend in (names[b] for b in args.cp_backends.split(",")):
        for gqa in (True, False):
            try:
                full = inputs(torch, args, n, False,
                              kv_heads=None if gqa else args.heads)
                held = [t for s in full for t in s]
                with context_parallel(mesh, buffers=held,
                                      buffer_seq_dims=[2] * len(held)):
                    sets = [[t.detach().requires_grad_(args.backward)
                             for t in s] for s in full]
                    extra = {"enable_gqa": True} if gqa and \
                        args.kv_heads != args.heads else {}
                    with sdpa_kernel([backend]):
                        ms = timed(torch, lambda i: run_step(
                            torch, lambda q, k, v:
                            F.scaled_dot_product_attention(
                                q, k, v, is_causal=True, **extra),
                            sets[i % 2], args.backward), args.rounds, dist)
                name = f"{backend.name.lower()}{'' if gqa else '+repeat-kv'}"
                if dist.get_rank() == 0:
                    log(f"N={n} torch cp {name}: {ms:.2f} ms")
                if best is None or ms < best[0]:
                    best = (ms, name)
                break
            except Exception as e:
                notes.append(f"{backend.name} gqa={gqa}: "
                             f"{type(e).__name__}: {str(e)[:200]}")
            finally:
                torch.cuda.empty_cache()
    return best, notes


def worker(rank, args, store):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{store}", rank=rank,
                            world_size=args.world,
                            device_id=torch.device("cuda", rank))
    import tilec
    import tilec.distributed as tcp
    faulthandler.dump_traceback_later(args.hang_seconds, exit=True)
    world = args.world
    rows = []
    for n in (int(s) for s in args.seqs.split(",")):
        row = {"world": world, "N": n, "B": args.batch, "H": args.heads,
               "KVH": args.kv_heads, "D": args.head_dim,
               "backward": args.backward}
        n1 = max(256, round(n / math.sqrt(world) / 256) * 256)
        row["single_N"] = n1
        if rank == 0:
            ms = bench_single(torch, tilec, args, n1)
            row["single_ms"] = ms
            log(f"N={n} single at {n1}: {ms:.2f} ms")
            row["single_tflops"] = flops(args, n1) / ms / 1e9
            if not args.backward:
                ms = bench_single(torch, tilec, args, n1, lse=True)
                row["single_lse_tflops"] = flops(args, n1) / ms / 1e9
        dist.barrier()
        torch.cuda.empty_cache()
        for variant in args.variants.split(","):
            # (An exception ends the run: the other ranks would wait.)
            ms = bench_tilec(torch, dist, tcp, args, n, variant)
            if rank == 0:
                log(f"N={n} {variant}: {ms:.2f} ms")
            row[f"{variant}_ms"] = ms
            row[f"{variant}_tflops"] = flops(args, n) / ms / 1e9 / world
            torch.cuda.empty_cache()
        if not args.no_torch_cp:
            try:
                best, notes = bench_torch_cp(torch, dist, args, n)
                if best:
                    row["torch_cp_ms"], row["torch_cp_backend"] = best
                    row["torch_cp_tflops"] = \
                        flops(args, n) / best[0] / 1e9 / world
                row["torch_cp_notes"] = notes
            except Exception:
                row["torch_cp_error"] = traceback.format_exc()[-600:]
        rows.append(row)
        if rank == 0:
            print(json.dumps(row), flush=True)
    if rank == 0:
        print_table(rows, args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


def print_table(rows, args):
    import torch
    variants = args.variants.split(",")
    print(f"\n{torch.cuda.get_device_name()} x{args.world}, torch "
          f"{torch.__version__}; causal bf16, B={args.batch}, "
          f"H={args.heads}/{args.kv_heads}, D={args.head_dim}, "
          f"{'forward + backward' if args.backward else 'forward'}; "
          f"TFLOP/s per GPU (efficiency = / single)\n")
    head = ["N", "single (N/sqrt W)", "single, LSE kernel"] + \
        [f"tilec {v}" for v in variants] + ["torch cp", "tilec best / cp"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        single = r.get("single_tflops")
        lse = r.get("single_lse_tflops")
        cells = [str(r["N"]), f"{single:.0f}" if single else "-",
                 f"{lse:.0f}" if lse else "-"]
        best = 0
        for v in variants:
            t = r.get(f"{v}_tflops")
            if t is None:
                cells.append("error")
                continue
            best = max(best, t)
            cells.append(f"{t:.0f} ({t / single:.2f})" if single
                         else f"{t:.0f}")
        cp = r.get("torch_cp_tflops")
        cells.append(f"{cp:.0f} {r['torch_cp_backend']}" if cp else "n/a")
        cells.append(f"{best / cp:.2f}" if cp and best else "-")
        print("| " + " | ".join(cells) + " |")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--seqs", default="32768,65536,131072")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--backward", action="store_true")
    p.add_argument("--variants", default="ring,allgather")
    p.add_argument("--no-torch-cp", action="store_true")
    p.add_argument("--cp-backends", default="cudnn,flash,efficient",
                   help="the SDPA backends tried under context_parallel")
    p.add_argument("--json", default="")
    p.add_argument("--hang-seconds", type=int, default=600,
                   help="a rank still running after this prints its "
                   "threads' stacks and exits")
    args = p.parse_args()
    for b in args.cp_backends.split(","):
        if b not in ("cudnn", "flash", "efficient"):
            p.error(f"--cp-backends: unknown backend {b!r} (cudnn, flash, "
                    "efficient)")
    import tempfile
    import torch
    import torch.multiprocessing as mp
    if torch.cuda.device_count() < args.world:
        print(f"needs {args.world} GPUs, has {torch.cuda.device_count()}")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(worker, args=(args, os.path.join(tmp, "store")),
                 nprocs=args.world)


if __name__ == "__main__":
    main()
