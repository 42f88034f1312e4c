#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the benchmark's shapes.

Times the FLASH_ATTENTION and CUDNN_ATTENTION backends with CUDA events
(median of timed runs after warm-up, inputs rotated so that they do not sit
in L2) and writes one JSON object per line, in the format of
tile-bench-attention:

  {"impl": "torch-flash", "B": 4, "H": 32, "N": 4096, "D": 128,
   "causal": true, "ms": 1.2, "tflops": 456.7}

FLOPs = 4 * B * H * N^2 * D, halved when causal.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench-torch.json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        print(f"torch not available: {e}")
        return 77
    if not torch.cuda.is_available():
        print("torch sees no GPU")
        return 77
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    backends = {"torch-flash": SDPBackend.FLASH_ATTENTION,
                "torch-cudnn": SDPBackend.CUDNN_ATTENTION}
    out = open(args.json, "w")
    iters = 10 if args.quick else 30
    for D in (128, 64):
        for causal in (True, False):
            for N in (1024, 2048, 4096, 8192, 16384):
                if args.quick and N > 4096:
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
                            for i in range(3):
                                run(i)
                            torch.cuda.synchronize()
                            times = []
                            for i in range(iters):
                                start = torch.cuda.Event(enable_timing=True)
                                stop = torch.cuda.Event(enable_timing=True)
                                start.record()
                                run(i)
                                stop.record()
                                stop.synchronize()
                                times.append(start.elapsed_time(stop))
                    except RuntimeError as e:
                        print(f"  {name} N={N} D={D} causal={causal}: {e}")
                        continue
                    times.sort()
                    ms = times[len(times) // 2]
                    rec = {"impl": name, "B": B, "H": H, "N": N, "D": D,
                           "causal": causal, "ms": round(ms, 5),
                           "tflops": round(flops / ms / 1e9, 2)}
                    print(json.dumps(rec))
                    out.write(json.dumps(rec) + "\n")
                del sets
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
