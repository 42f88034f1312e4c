# Small cases of row kernels whose synchronization is their own, for
# compute-sanitizer: reduce.tile's sum, max and min with their chunks in a
# 3-stage ring (LATENCY=3: cp.async ring, a barrier a trip; the max's and
# min's -inf and inf padding stored where a chunk passes the row's end) at
# 0, 1, 2 and many trips, in chunks of 1024 and of 640 columns (a padded
# chunk),
# and cross_entropy_cluster and softmax_cluster (their partials gathered
# through the cluster's shared memory) at clusters of 2, 4, 8 and 8; each
# result checked. On the GPU machine, with .gpu/env.sh sourced:
#
#   compute-sanitizer --tool racecheck python3 scripts/sanitize-rows.py
#
# (also memcheck, synccheck); exit 1 when a result is wrong.
import itertools
import math
import sys

import torch
import tilec

torch.manual_seed(0)
path = tilec.ops._kernel_path
bad = 0
for (dt, dsl), op, tile_n in itertools.product(
        ((torch.float16, "f16"), (torch.float32, "f32")), (0, 1, 2),
        (1024, 640)):
    # (640 columns: a padded chunk whose ring stages end at the tile's own
    # columns, tile.slot_bytes; the lanes holding its padding copy nothing.)
    k = tilec.compile(path("reduce.tile"), DTYPE=dsl, OUT="f32", OP=op,
                      TILE_M=1, TILE_N=tile_n, LATENCY=3, num_warps=4)
    for n in (0, 100, 1500, 9000):
        # (Negative values: a chunk past the end must read -inf for the
        # max, not the zeros a copy would fill.)
        x = -1 - torch.rand(3, n, device="cuda", dtype=dt)
        if op == 2:
            x = -x
        out = torch.full((3,), float("nan"), device="cuda")
        k[3](x, out)
        torch.cuda.synchronize()
        x64 = x.double()
        if op == 0:
            want = x64.sum(-1)
        elif n == 0:
            want = torch.full((3,), -math.inf if op == 1 else math.inf,
                              device="cuda", dtype=torch.float64)
        else:
            want = x64.amax(-1) if op == 1 else x64.amin(-1)
        ok = torch.allclose(out.double(), want, atol=1e-2, rtol=1e-3)
        print(f"reduce op {op} {dsl} tile {tile_n} n={n}: "
              f"{'ok' if ok else 'WRONG'}")
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
for rows, n in ((3, 40000), (2, 131072)):
    x = torch.randn(rows, n, device="cuda", dtype=torch.bfloat16) * 3
    y = tilec.ops.softmax(x)
    torch.cuda.synchronize()
    ok = torch.allclose(y.double(), torch.softmax(x.double(), -1),
                        rtol=1e-2, atol=1e-5)
    print(f"softmax {rows}x{n}: {'ok' if ok else 'WRONG'}")
    bad += not ok
sys.exit(1 if bad else 0)
