#!/usr/bin/env python3
"""Backward passes a user writes plainly from docs/language.md, compiled with
no options (only their tile constants), against the PyTorch code they
replace, as bench/user_kernels.py times its kernels (which names these on
its --kernels: layernorm_bwd, softmax_bwd). Each is checked against float64
first.

  PYTHONPATH=python python3 bench/user_kernels_bwd.py [--rounds 30]
      [--kernels layernorm_bwd,softmax_bwd]

GB/s count each tensor read or written once (LayerNorm's f32 partial sums
between its two kernels not counted)."""
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import bandwidth_rows, time_interleaved  # noqa: E402
import user_kernels  # noqa: E402
from user_kernels import bf16, check  # noqa: E402

LAYERNORM_BWD = os.path.join(HERE, "kernels", "layernorm_bwd.tile")
SOFTMAX_BWD = os.path.join(HERE, "kernels", "softmax_bwd.tile")


def layernorm_bwd(args, copy):
    """dx by layernorm_bwd_dx (2 blocks a multiprocessor's worth of groups,
    each looping over its rows, writing a row of f32 partial sums of dw and
    db), then dw and db by layernorm_bwd_dwdb summing the partial rows;
    PyTorch: aten.native_layer_norm_backward (what autograd of F.layer_norm
    runs)."""
    rows = []
    groups = 2 * torch.cuda.get_device_properties(0).multi_processor_count
    reduce = tilec.compile(LAYERNORM_BWD, kernel="layernorm_bwd_dwdb")
    for R, N in ((16384, 4096), (4096, 8192)):
        dx_kern = tilec.compile(LAYERNORM_BWD, kernel="layernorm_bwd_dx",
                                GROUPS=groups, TILE_N=N)

        def make_set():
            x, dy, w, b = bf16(R, N), bf16(R, N), bf16(N), bf16(N)
            _, mean, rstd = torch.ops.aten.native_layer_norm(x, (N,), w, b,
                                                             1e-5)
            f32 = dict(device="cuda", dtype=torch.float32)
            return (x, dy, w, b, mean, rstd,
                    mean.float().reshape(R).contiguous(),
                    rstd.float().reshape(R).contiguous(),
                    torch.empty(R, N, device="cuda", dtype=torch.bfloat16),
                    torch.empty(groups, N, **f32),
                    torch.empty(groups, N, **f32),
                    torch.empty(N, device="cuda", dtype=torch.bfloat16),
                    torch.empty(N, device="cuda", dtype=torch.bfloat16))
        sets = [make_set() for _ in range(3)]
        grid = (groups,)
        grid_dwdb = ((N + 31) // 32,)

        def run(s):
            x, dy, w, _, _, _, mean, rstd, dx, dw_part, db_part, dw, db = s
            dx_kern[grid](x, dy, w, mean, rstd, dx, dw_part, db_part)
            reduce[grid_dwdb](dw_part, db_part, dw, db)

        s = sets[0]
        for t in s[8:]:
            t.fill_(float("nan"))
        run(s)
        x, dy, w = s[0].double(), s[1].double(), s[2].double()
        mean, rstd = s[6].double()[:, None], s[7].double()[:, None]
        xhat = (x - mean) * rstd
        wdy = w * dy
        check(s[8], rstd * (wdy - wdy.mean(1, keepdim=True)
                            - xhat * (wdy * xhat).mean(1, keepdim=True)), 2e-2)
        check(s[11], (dy * xhat).sum(0), 2e-2)
        check(s[12], dy.sum(0), 2e-2)
        ms = time_interleaved(torch, {
            "tilec": run,
            "torch": lambda s: torch.ops.aten.native_layer_norm_backward(
                s[1], s[0], (N,), s[4], s[5], s[2], s[3],
                [True, True, True])}, sets, args.rounds)
        # x, dy read, dx written; w, mean, rstd read, dw and db written.
        rows += bandwidth_rows(f"layernorm_bwd {R}x{N}", ms,
                               3 * R * N * 2 + 3 * N * 2 + 2 * R * 4, copy)
    return rows


def softmax_bwd(args, copy):
    """dx = y * (dy - sum(dy * y)) a row a block; PyTorch:
    torch._softmax_backward_data (what autograd of softmax runs)."""
    rows = []
    for R, N in ((16384, 4096), (8192, 8192)):
        kern = tilec.compile(SOFTMAX_BWD, TILE_N=N)
        sets = [(torch.softmax(bf16(R, N).float(), 1).bfloat16(), bf16(R, N),
                 torch.empty(R, N, device="cuda", dtype=torch.bfloat16))
                for _ in range(3)]
        grid = (R,)
        s = sets[0]
        s[2].fill_(float("nan"))
        kern[grid](*s)
        y, dy = s[0].double(), s[1].double()
        # dx is of the order of y (1 / N): compared N times larger, so that
        # check's 1 + |ref| does not hide its errors.
        check(s[2].double() * N,
              y * (dy - (dy * y).sum(1, keepdim=True)) * N, 2e-2)
        ms = time_interleaved(torch, {
            "tilec": lambda s: kern[grid](*s),
            "torch": lambda s: torch._softmax_backward_data(
                s[1], s[0], 1, torch.bfloat16)}, sets, args.rounds)
        rows += bandwidth_rows(f"softmax_bwd {R}x{N}", ms, 3 * R * N * 2,
                               copy)
    return rows


if __name__ == "__main__":
    user_kernels.main("layernorm_bwd,softmax_bwd")
