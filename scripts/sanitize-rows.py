# Small cases of row kernels whose synchronization is their own, for
# compute-sanitizer: reduce.tile's sum with its chunks in a 3-stage ring
# (LATENCY=3: cp.async ring, a barrier a trip) at 0, 1, 2 and many trips,
# and cross_entropy_cluster (cluster barrier) at clusters of 2, 4, 8; each
# result checked. On the GPU machine, with .gpu/env.sh sourced:
#
#   compute-sanitizer --tool racecheck python3 scripts/sanitize-rows.py
#
# (also memcheck, synccheck); exit 1 when a result is wrong.
import sys
import torch
import tilec

torch.manual_seed(0)
path = tilec.ops._kernel_path
bad = 0
for dt, dsl in ((torch.float16, "f16"), (torch.float32, "f32")):
    k = tilec.compile(path("reduce.tile"), DTYPE=dsl, OUT="f32", OP=0,
                      TILE_M=1, TILE_N=1024, LATENCY=3, num_warps=4)
    for n in (0, 100, 1500, 9000):
        x = torch.randn(3, n, device="cuda", dtype=dt)
        out = torch.full((3,), float("nan"), device="cuda")
        k[3](x, out)
        torch.cuda.synchronize()
        ok = torch.allclose(out.double(), x.double().sum(-1), atol=1e-2,
                            rtol=1e-3)
        print(f"sum {dsl} n={n}: {'ok' if ok else 'WRONG'}")
        bad += not ok
for rows, v in ((5, 50257), (2, 128256), (33, 32000)):
    x = torch.randn(rows, v, device="cuda", dtype=torch.bfloat16) * 3
    t = torch.randint(0, v, (rows,), device="cuda")
    loss, lse = tilec.ops.cross_entropy(x, t, return_lse=True)
    torch.cuda.synchronize()
    ref = torch.logsumexp(x.double(), -1)
    ok = torch.allclose(lse.double(), ref, rtol=1e-5, atol=1e-5)
    print(f"cross_entropy {rows}x{v}: {'ok' if ok else 'WRONG'}")
    bad += not ok
sys.exit(1 if bad else 0)
