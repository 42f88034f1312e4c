#!/usr/bin/env python3
"""PyTorch baselines on the benchmarks' shapes, in their JSON-lines format.

Attention: scaled_dot_product_attention with the FLASH_ATTENTION and
CUDNN_ATTENTION backends, B=4, H=32, fp16, D in (128, 64), causal and not,
N from 1k to 16k (FLOPs = 4 * B * H * N^2 * D, halved when causal):

  {"impl": "torch-flash", "bench": "attention", "B": 4, "H": 32, "N": 4096,
   "D": 128, "causal": true, "ms": 1.2, "tflops": 456.7}

GEMM: torch.matmul in fp16 (cuBLAS; fp32 accumulation, reduced-precision
reductions off) at M = N = K = 4096 and 8192 (FLOPs = 2 * M * N * K):

  {"impl": "cublas", "bench": "gemm", "M": 4096, "N": 4096, "K": 4096,
   "dtype": "f16", "ms": 0.2, "tflops": 700.1}

Timing as in the tilec benchmarks: CUDA events around each launch, launches
queued back to back after warm-up, one synchronization at the end, median;
inputs rotated between launches so that they do not sit in L2.

  torch_baseline.py [--json=bench-torch.json] [--quick]
                    [--only=attention|gemm]
"""
import argparse
import json
import sys


def median_ms(torch, run, iters, warmup=3):
    """Median milliseconds of run(i) over `iters` timed calls."""
    for i in range(warmup):
        run(i)
    events = []
    for i in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        run(warmup + i)
        stop.record()
        events.append((start, stop))
    events[-1][1].synchronize()
    times = sorted(start.elapsed_time(stop) for start, stop in events)
    return times[len(times) // 2]


def attention(torch, out, args, iters):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"torch-flash": SDPBackend.FLASH_ATTENTION,
                "torch-cudnn": SDPBackend.CUDNN_ATTENTION}
    for D in (128, 64):
        for causal in (True, False):
            for N in (1024, 2048, 4096, 8192, 16384):
                if args.quick and N not in (1024, 4096):
                    continue
                B, H = 4, 32
                sets = [[torch.randn(B, H, N, D, device="cuda",
                                     dtype=torch.float16) for _ in range(3)]
                        for _ in range(2)]
                flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
                for name, backend in backends.items():
                    try:
                        with sdpa_kernel([backend]):
                            def run(i):
                                q, k, v = sets[i % len(sets)]
                                return torch.nn.functional.scaled_dot_product_attention(
                                    q, k, v, is_causal=causal)
                            ms = median_ms(torch, run, iters)
                    except RuntimeError as e:
                        print(f"  {name} N={N} D={D} causal={causal}: {e}")
                        continue
                    rec = {"impl": name, "bench": "attention", "B": B, "H": H,
                           "N": N, "D": D, "causal": causal,
                           "ms": round(ms, 5),
                           "tflops": round(flops / ms / 1e9, 2)}
                    print(json.dumps(rec), flush=True)
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                del sets
                torch.cuda.empty_cache()


def gemm(torch, out, args, iters):
    # fp32 accumulation throughout, as kernels/gemm.tile does.
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    for size in (4096,) if args.quick else (4096, 8192):
        # Enough sets of A, B, C to exceed L2 many times over.
        nsets = 4 if 3 * size * size * 2 < (256 << 20) else 2
        sets = []
        for _ in range(nsets):
            a = torch.rand(size, size, device="cuda", dtype=torch.float16) * 2 - 1
            b = torch.rand(size, size, device="cuda", dtype=torch.float16) * 2 - 1
            c = torch.empty(size, size, device="cuda", dtype=torch.float16)
            sets.append((a, b, c))

        def run(i):
            a, b, c = sets[i % len(sets)]
            torch.matmul(a, b, out=c)
        try:
            ms = median_ms(torch, run, iters)
        except RuntimeError as e:
            print(f"  cublas {size}^3: {e}")
            continue
        flops = 2.0 * size * size * size
        rec = {"impl": "cublas", "bench": "gemm", "M": size, "N": size,
               "K": size, "dtype": "f16", "ms": round(ms, 5),
               "tflops": round(flops / ms / 1e9, 2)}
        print(json.dumps(rec), flush=True)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        del sets
        torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench-torch.json")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["attention", "gemm"])
    args = parser.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"torch not available: {e}")
        return 77
    if not torch.cuda.is_available():
        print("torch sees no GPU")
        return 77
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    iters = 10 if args.quick else 30
    with open(args.json, "w") as out:
        if args.only in (None, "attention"):
            attention(torch, out, args, iters)
        if args.only in (None, "gemm"):
            gemm(torch, out, args, iters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
