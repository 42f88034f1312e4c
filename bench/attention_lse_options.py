#!/usr/bin/env python3
"""kernels/attention_lse.tile at the attention API's tiles with schedule options
set by hand (persistent, stages, tile_stages, refill, rescale_in_trip,
defer_epilogue), each checked against cuDNN and timed interleaved with it
(10 rounds): which of the compiler's options the tuner should try on a
plain attention forward.

  python3 bench/attention_lse_options.py    (from the repository root)
"""
import math, os, sys, torch, tilec
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import time_interleaved
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa
K = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels", "attention_lse.tile")
VARS = {
 "choice": {},
 "p2": {"persistent": True, "num_stages": 2},
 "p_ts1_refill_rescale": {"persistent": True, "num_stages": 2, "tile_stages": 1, "tile_refill_after_read": True, "rescale_in_trip": True},
 "p_ts1_refill_defer": {"persistent": True, "num_stages": 2, "tile_stages": 1, "tile_refill_after_read": True, "defer_epilogue": True},
 "rescale": {"rescale_in_trip": True},
 "p_rescale": {"persistent": True, "num_stages": 2, "rescale_in_trip": True},
}
for D, causal, N, tm, tn in [(256, False, 1024, 128, 64), (256, True, 1024, 128, 64), (256, True, 4096, 128, 64), (128, False, 1024, 128, 128), (128, True, 1024, 128, 128)]:
    B, H = 16384 // N, 2048 // D
    sets = []
    for _ in range(2):
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
        sets.append((q, k, v, torch.empty_like(q), torch.empty(B, H, N, device="cuda")))
    def cudnn(s):
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return sdpa(s[0], s[1], s[2], is_causal=causal)
    ref = cudnn(sets[0]).float()
    impls = {"cudnn": cudnn}
    for name, o in VARS.items():
        try:
            kern = tilec.compile(K, DTYPE="f16", TILE_D=D, TILE_M=tm, TILE_N=tn, CAUSAL=causal, **o)
        except Exception as e:
            print(name, "compile:", str(e).splitlines()[0]); continue
        run = lambda s, kern=kern: kern[(N // tm, B * H)](s[0], s[1], s[2], s[3], s[4], 1 / math.sqrt(D))
        sets[0][3].fill_(float("nan")); run(sets[0]); torch.cuda.synchronize()
        err = (sets[0][3].float() - ref).abs().max().item()
        if not err < 1e-2: print(name, "wrong", err); continue
        impls[name] = run
    ms = time_interleaved(torch, impls, sets, 10)
    print(f"D={D} causal={causal} N={N}: " + ", ".join(f"{n} {ms['cudnn']/m:.2f}" for n, m in ms.items() if n != "cudnn"), flush=True)
