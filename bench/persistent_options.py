#!/usr/bin/env python3
"""kernels/flash_attention.tile at the attention API's tiles, D = 128 and 256,
N = 1k/4k/16k, causal and not: the compiler's default compile against
persistent variants set by hand and the attention API, with cuDNN, in one
process (10 interleaved rounds); and gemm.tile default vs persistent
against cuBLAS. Ratios to cuDNN (cuBLAS for the GEMM).

  python3 bench/persistent_options.py    (from the repository root)
"""
import os
import math, sys, torch, tilec
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import time_interleaved
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FA = os.path.join(ROOT, "kernels", "flash_attention.tile")
for D in (128, 256):
    for causal in (False, True):
        for N in (1024, 4096, 16384):
            B, H = 16384 // N, 2048 // D
            sets = [tuple(torch.randn(B, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3)) + (None,) for _ in range(2)]
            sets = [(q, k, v, torch.empty_like(q)) for q, k, v, _ in sets]
            cfg = dict(kv.split("=", 1) for kv in tilec.attention_config(*sets[0][:3], causal=causal, out=sets[0][3]).split(","))
            tm, tn = int(cfg["TILE_M"]), int(cfg["TILE_N"])
            def cudnn(s):
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    return sdpa(s[0], s[1], s[2], is_causal=causal)
            ref = cudnn(sets[0]).float()
            impls = {"cudnn": cudnn, "api": lambda s: tilec.attention(s[0], s[1], s[2], causal=causal, out=s[3])}
            for name, o in {"default": {}, "pers": {"persistent": True}, "pers_ts1": {"persistent": True, "tile_stages": 1}, "pers2_ts1_rf_rs": {"persistent": True, "num_stages": 2, "tile_stages": 1, "tile_refill_after_read": True, "rescale_in_trip": True}}.items():
                try:
                    kern = tilec.compile(FA, "fmha", DTYPE="f16", TILE_D=D, H=H, TILE_M=tm, TILE_N=tn, CAUSAL=causal, EVEN_K=N % tn == 0, **o)
                except Exception as e:
                    print(" ", name, "compile:", str(e).splitlines()[0][:120]); continue
                run = lambda s, kern=kern: kern[((N + tm - 1) // tm, B * H)](s[0], s[1], s[2], s[3], 1 / math.sqrt(D), 0)
                sets[0][3].fill_(float("nan")); run(sets[0]); torch.cuda.synchronize()
                if not (sets[0][3].float() - ref).abs().max().item() <= 1e-2: print(" ", name, "wrong"); continue
                impls[name] = run
            ms = time_interleaved(torch, impls, sets, 10)
            print(f"D={D} causal={causal} N={N} {tm}x{tn}: " + ", ".join(f"{n} {ms['cudnn']/m:.2f}" for n, m in ms.items() if n != "cudnn"), flush=True)
for M in (4096, 8192):
    sets = [(torch.randn(M, M, device="cuda", dtype=torch.float16), torch.randn(M, M, device="cuda", dtype=torch.float16), torch.empty(M, M, device="cuda", dtype=torch.float16)) for _ in range(2)]
    impls = {"cublas": lambda s: torch.matmul(s[0], s[1], out=s[2])}
    ref = sets[0][0].float() @ sets[0][1].float()
    for name, o in {"default": {}, "pers": {"persistent": True}}.items():
        kern = tilec.compile(os.path.join(ROOT, "kernels", "gemm.tile"), **o)
        run = lambda s, kern=kern: kern[(M // 128, M // 128)](s[0], s[1], s[2])
        run(sets[0]); torch.cuda.synchronize()
        if not ((sets[0][2].float() - ref).norm() / ref.norm()).item() < 1e-2: print(name, "wrong"); continue
        impls[name] = run
    ms = time_interleaved(torch, impls, sets, 20)
    print(f"GEMM {M}^3: " + ", ".join(f"{n} {ms['cublas']/m:.2f}" for n, m in ms.items() if n != "cublas"), flush=True)
