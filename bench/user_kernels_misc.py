#!/usr/bin/env python3
"""More kernels a user writes plainly from docs/language.md (bench/
user_kernels.py's MODULES): GroupNorm, Mamba's causal conv1d and a row-wise
top-k, compiled with no options (only their tile constants), against what a
PyTorch user runs, launches interleaved, each checked against float64
first.

  PYTHONPATH=python python3 bench/user_kernels_misc.py [--rounds 30]
      [--kernels group_norm,causal_conv1d,rowwise_topk]

(bench/user_kernels.py names them on its --kernels too.)

GB/s count each tensor read or written once."""
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import bandwidth_rows, time_interleaved  # noqa: E402
import user_kernels  # noqa: E402
from user_kernels import bf16, check  # noqa: E402

GROUP_NORM = os.path.join(HERE, "kernels", "group_norm.tile")
CAUSAL_CONV1D = os.path.join(HERE, "kernels", "causal_conv1d.tile")
ROWWISE_TOPK = os.path.join(HERE, "kernels", "rowwise_topk.tile")

F = torch.nn.functional


def group_norm_reference(x, gamma, beta, G, eps):
    B, C, HW = x.shape
    xd = x.double().view(B, G, -1)
    mean = xd.mean(-1, keepdim=True)
    var = xd.var(-1, unbiased=False, keepdim=True)
    y = ((xd - mean) / torch.sqrt(var + eps)).view(B, C, HW)
    return y * gamma.double()[:, None] + beta.double()[:, None]


def group_norm(args, copy):
    rows = []
    eps = 1e-5
    # (B, C, HW, G, the looped kernel's TILE_HW, the cluster kernel's
    # CLUSTER): tiles of 16 x 256 and 40 x 128 channels x columns; in
    # clusters, each block a (CG, HW / CLUSTER) part.
    for B, C, HW, G, tile_hw, cluster in ((16, 512, 64 * 64, 32, 256, 8),
                                          (8, 1280, 32 * 32, 32, 128, 8)):
        cg = C // G
        looped = tilec.compile(GROUP_NORM, kernel="group_norm", CG=cg,
                               TILE_HW=tile_hw)
        kerns = {"tilec": (looped, (G, B))}
        # Clusters are sm_90's.
        if torch.cuda.get_device_capability() >= (9, 0):
            clustered = tilec.compile(GROUP_NORM, kernel="group_norm_cluster",
                                      CG=cg, CLUSTER=cluster,
                                      TILE_HW=HW // cluster)
            kerns["tilec cluster"] = (clustered, (G * cluster, B))
        sets = [(bf16(B, C, HW), bf16(C), bf16(C),
                 torch.empty(B, C, HW, device="cuda", dtype=torch.bfloat16))
                for _ in range(3)]
        s = sets[0]
        for kern, grid in kerns.values():
            # Also with a mean far from zero (3 deviations): the variance
            # from the sums of x and x^2 in f32.
            for x in (s[0], s[0] + 3):
                s[3].fill_(float("nan"))
                kern[grid](x, s[1], s[2], s[3], eps)
                check(s[3], group_norm_reference(x, s[1], s[2], G, eps),
                      2e-2)
        impls = {name: (lambda s, k=kern, g=grid: k[g](*s, eps))
                 for name, (kern, grid) in kerns.items()}
        impls["torch"] = lambda s: F.group_norm(s[0], G, s[1], s[2], eps)
        ms = time_interleaved(torch, impls, sets, args.rounds)
        rows += bandwidth_rows(f"group_norm {B}x{C}x{HW} G={G}", ms,
                               2 * B * C * HW * 2, copy)
    return rows


def causal_conv1d_reference(x, w, bias):
    W = w.shape[1]
    L = x.shape[2]
    xp = F.pad(x.double(), (W - 1, 0))         # x at t < 0 reads 0
    wd = w.double()
    y = bias.double()[:, None] + sum(wd[:, i, None] * xp[..., i:i + L]
                                     for i in range(W))
    return F.silu(y)


def causal_conv1d(args, copy):
    rows = []
    W, TILE_D, TILE_T = 4, 16, 256
    kerns = {name: tilec.compile(CAUSAL_CONV1D, kernel=name, W=W,
                                 TILE_D=TILE_D, TILE_T=TILE_T)
             for name in ("causal_conv1d", "causal_conv1d_halo",
                          "causal_conv1d_loop")}
    for B, D, L in ((8, 4096, 2048), (8, 5120, 2048)):
        tiles = ((D + TILE_D - 1) // TILE_D, (L + TILE_T - 1) // TILE_T, B)
        grids = {"causal_conv1d": tiles, "causal_conv1d_halo": tiles,
                 "causal_conv1d_loop": (tiles[0], B)}
        sets = [(bf16(B, D, L), bf16(D, W), bf16(D),
                 torch.empty(B, D, L, device="cuda", dtype=torch.bfloat16))
                for _ in range(3)]
        s = sets[0]
        ref = causal_conv1d_reference(s[0], s[1], s[2])
        for name, kern in kerns.items():
            s[3].fill_(float("nan"))
            kern[grids[name]](*s)
            check(s[3], ref, 2e-2)
        ms = time_interleaved(torch, {
            "tilec gather": lambda s: kerns["causal_conv1d"][
                grids["causal_conv1d"]](*s),
            "tilec halo": lambda s: kerns["causal_conv1d_halo"][
                grids["causal_conv1d_halo"]](*s),
            "tilec loop": lambda s: kerns["causal_conv1d_loop"][
                grids["causal_conv1d_loop"]](*s),
            "torch": lambda s: F.silu(F.conv1d(
                s[0], s[1].unsqueeze(1), s[2], padding=W - 1,
                groups=D)[..., :L])}, sets, args.rounds)
        rows += bandwidth_rows(f"causal_conv1d {B}x{D}x{L} W={W}", ms,
                               2 * B * D * L * 2, copy)
    return rows


def rowwise_topk(args, copy):
    rows = []
    K = 8
    kern = tilec.compile(ROWWISE_TOPK, K=K, TILE_V=4096)
    for R, V in ((64, 128256), (512, 32000), (512, 128256)):
        sets = [(torch.randn(R, V, device="cuda"),
                 torch.empty(R, K, device="cuda"),
                 torch.empty(R, K, device="cuda", dtype=torch.int32))
                for _ in range(3)]
        s = sets[0]
        s[1].fill_(float("nan"))
        s[2].fill_(-1)
        kern[(R,)](*s)
        # The values exactly, largest first; the indices where they are
        # (ties may pick other columns than torch's), each once.
        ref = torch.topk(s[0].double(), K, dim=1)
        check(s[1], ref.values, 1e-7)
        assert ((s[2] >= 0) & (s[2] < V)).all(), "index out of range"
        assert torch.equal(s[0].gather(1, s[2].long()), s[1]), "wrong indices"
        assert (s[2].sort(1).values.diff(dim=1) != 0).all(), "repeated index"
        ms = time_interleaved(torch, {
            "tilec": lambda s: kern[(R,)](*s),
            "torch": lambda s: torch.topk(s[0], K, dim=1)},
            sets, args.rounds)
        rows += bandwidth_rows(f"rowwise_topk {R}x{V} k={K} f32", ms,
                               R * V * 4, copy)
    return rows


if __name__ == "__main__":
    user_kernels.main("group_norm,causal_conv1d,rowwise_topk")
