#!/usr/bin/env python3
"""Quantized and grouped GEMMs a user writes plainly from docs/language.md
(bench/kernels/gemm_w4a16.tile, bench/kernels/moe_gemm.tile), compiled with
no options (only their tile constants), against what a PyTorch user runs, in
one process, launches interleaved (bench/interleaved.py), as
bench/user_kernels.py times its kernels (which names these on its
--kernels: gemm_w4a16, moe_gemm). Each is checked against float64 first.

  PYTHONPATH=python python3 bench/user_kernels_quant.py [--rounds 30]
      [--kernels gemm_w4a16,moe_gemm]

GB/s count each tensor a kernel reads or writes once (the 4-bit weight as
packed); at M = 4096 and in the MoE GEMM the problems are compute-bound, and
only the last column, torch's time over this one's, says anything."""
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import bandwidth_rows, time_interleaved  # noqa: E402
import user_kernels  # noqa: E402
from user_kernels import bf16, check  # noqa: E402

GEMM_W4A16 = os.path.join(HERE, "kernels", "gemm_w4a16.tile")
MOE_GEMM = os.path.join(HERE, "kernels", "moe_gemm.tile")

GROUP = 128          # K columns sharing one scale (the kernel's GROUP)


def pack_int4(q):
    """(N, K) uint8 values 0..15 -> (N, K / 2) int8, two a byte: the even k
    in the low nibble, the odd k in the high one (torch.int8, which tilec
    takes; it has no uint8)."""
    return (q[:, 0::2] | (q[:, 1::2] << 4)).view(torch.int8)


def dequant_int4(wq, scales):
    """The (N, K) bf16 weight, (q - 8) * scale, as a PyTorch user computes
    it without a kernel (one rounding: the same bf16 values the kernel
    multiplies)."""
    q = wq.view(torch.uint8)
    w = torch.stack((q & 15, q >> 4), dim=-1).reshape(q.shape[0], -1)
    return (w.bfloat16() - 8) * scales.repeat_interleave(GROUP, dim=1)


def w4a16_set(m, n, k):
    """(x, Wq, scales, y, W): W is the dequantized bf16 weight, for the
    ideal baseline and the reference; the kernel takes the first four."""
    q = torch.randint(0, 16, (n, k), device="cuda", dtype=torch.uint8)
    wq = pack_int4(q)
    scales = (torch.rand(n, k // GROUP, device="cuda") * 0.01
              + 0.005).bfloat16()
    return (bf16(m, k), wq, scales,
            torch.empty(m, n, device="cuda", dtype=torch.bfloat16),
            dequant_int4(wq, scales))


def gemm_w4a16(args, copy):
    """y = x @ dequant(Wq)^T, the weight in 4 bits with a bf16 scale per
    GROUP of K. Decode (M = 16: 16 x 32 tiles, K by 128) and prefill
    (M = 4096: the file's 128 x 128 x 64), as written and with the user's
    hint on the packed weight's load (latency=3: copied 2 trips ahead),
    against PyTorch dequantizing then F.linear ("torch", what a user
    without a kernel runs) and F.linear on the bf16 weight dequantized
    beforehand (the ideal, 4x the weight's bytes)."""
    F = torch.nn.functional
    with open(GEMM_W4A16) as f:
        src = f.read()
    packed = "shape=(TILE_K // 2, TILE_N), order=(1, 0))"
    assert packed in src, "gemm_w4a16.tile: the packed load changed"
    hinted = src.replace(packed, "shape=(TILE_K // 2, TILE_N), "
                                 "order=(1, 0), latency=3)")
    rows = []
    for m, tiles in ((16, dict(TILE_M=16, TILE_N=32, TILE_K=128)),
                     (4096, dict(TILE_M=128, TILE_N=128, TILE_K=64))):
        plain = tilec.compile(GEMM_W4A16, **tiles)
        ahead = tilec.compile(hinted, name="gemm_w4a16.tile", **tiles)
        tm, tn = tiles["TILE_M"], tiles["TILE_N"]
        for n, k in ((4096, 4096), (14336, 4096)):
            sets = [w4a16_set(m, n, k) for _ in range(3)]
            grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
            s = sets[0]
            ref = s[0].double() @ s[4].double().T
            for kern in (plain, ahead):
                s[3].fill_(float("nan"))
                kern[grid](*s[:4])
                check(s[3], ref, 2e-2)
            ms = time_interleaved(torch, {
                "tilec": lambda s: plain[grid](*s[:4]),
                "tilec latency=3": lambda s: ahead[grid](*s[:4]),
                "torch": lambda s: F.linear(s[0], dequant_int4(s[1], s[2]),
                                            out=s[3]),
                "torch bf16 weight (ideal)": lambda s: F.linear(
                    s[0], s[4], out=s[3])}, sets, args.rounds)
            moved = sum(t.numel() * t.element_size() for t in s[:4])
            rows += bandwidth_rows(
                f"gemm_w4a16 {m}x{n}x{k} int4 g{GROUP}", ms, moved, copy)
    return rows


EXPERTS = 8
TOKENS = 8192
# A skewed router: the share of the tokens each expert gets, on average.
EXPERT_SHARES = (0.30, 0.20, 0.15, 0.11, 0.09, 0.07, 0.05, 0.03)


def moe_offsets():
    """Offsets (E + 1 Python ints) of tokens routed by EXPERT_SHARES
    (torch.multinomial, fixed seed): uneven counts, in general no multiple
    of the kernel's 128 rows, so that most experts start mid-tile."""
    g = torch.Generator().manual_seed(0)
    ids = torch.multinomial(torch.tensor(EXPERT_SHARES), TOKENS,
                            replacement=True, generator=g)
    counts = torch.bincount(ids, minlength=EXPERTS).tolist()
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    return offsets


def moe_schedule(offsets, tile_m):
    """(2, tiles) int32: each M tile's expert and first row."""
    experts, firsts = [], []
    for e in range(len(offsets) - 1):
        for r in range(offsets[e], offsets[e + 1], tile_m):
            experts.append(e)
            firsts.append(r)
    return torch.tensor([experts, firsts], device="cuda", dtype=torch.int32)


def moe_gemm(args, copy):
    """Grouped GEMM of a mixture of experts, tokens sorted by expert:
    Y[r] = X[r] @ W[e]^T for the rows r of expert e. As written (X's rows
    by gather, Y's by scatter: an expert's first row is no multiple of the
    tile) and with X's rows read by load() as 128 one-row boxes (the docs'
    other way to read rows), and with slices of X and Y (moe_gemm_sliced),
    against a Python loop of F.linear per expert
    ("torch") and torch._grouped_mm where this torch has it."""
    F = torch.nn.functional
    with open(MOE_GEMM) as f:
        src = f.read()
    gathered = ("        cols = k * TILE_K + arange(TILE_K)\n"
                "        x = gather(X, (rows[:, None], cols[None, :]))\n")
    assert gathered in src, "moe_gemm.tile: the gather of X changed"
    boxes = tilec.compile(src.replace(
        gathered, "        x = load(X, index=(rows, k), "
                  "shape=(TILE_M, TILE_K))\n"), name="moe_gemm.tile",
        kernel="moe_gemm")
    kern = tilec.compile(MOE_GEMM, kernel="moe_gemm")
    sliced = tilec.compile(MOE_GEMM, kernel="moe_gemm_sliced")
    off = moe_offsets()
    gmm = getattr(torch, "_grouped_mm", None)
    rows = []
    for n, k in ((4096, 4096), (14336, 4096)):
        sched = moe_schedule(off, 128)
        offsets = torch.tensor(off, device="cuda", dtype=torch.int32)
        sets = [(bf16(TOKENS, k), bf16(EXPERTS, n, k), offsets,
                 sched, torch.empty(TOKENS, n, device="cuda",
                                    dtype=torch.bfloat16))
                for _ in range(3)]
        grid = (sched.shape[1], (n + 127) // 128)
        s = sets[0]
        ref = torch.empty(TOKENS, n, device="cuda", dtype=torch.float64)
        for e in range(EXPERTS):
            ref[off[e]:off[e + 1]] = (s[0][off[e]:off[e + 1]].double()
                                      @ s[1][e].double().T)
        for kn in (kern, boxes, sliced):
            s[4].fill_(float("nan"))
            kn[grid](*s)
            check(s[4], ref, 2e-2)

        def torch_loop(s):
            for e in range(EXPERTS):
                F.linear(s[0][off[e]:off[e + 1]], s[1][e],
                         out=s[4][off[e]:off[e + 1]])
        s[4].fill_(float("nan"))
        torch_loop(s)
        check(s[4], ref, 2e-2)
        impls = {"tilec": lambda s: kern[grid](*s),
                 "tilec rows as boxes": lambda s: boxes[grid](*s),
                 "tilec sliced": lambda s: sliced[grid](*s),
                 "torch": torch_loop}
        if gmm is not None:
            # offs: each expert's end row (int32), W (E, N, K) seen as
            # (E, K, N), as torchtitan calls it.
            try:
                check(gmm(s[0], s[1].transpose(-2, -1), offs=s[2][1:]), ref,
                      2e-2)
                impls["torch._grouped_mm"] = lambda s: gmm(
                    s[0], s[1].transpose(-2, -1), offs=s[2][1:])
            except Exception as e:  # noqa: BLE001
                print(f"moe_gemm: torch._grouped_mm left out: "
                      f"{type(e).__name__}: {e}", flush=True)
        ms = time_interleaved(torch, impls, sets, args.rounds)
        moved = sum(t.numel() * t.element_size() for t in s)
        rows += bandwidth_rows(
            f"moe_gemm E{EXPERTS} T{TOKENS} (skewed) {n}x{k}", ms, moved,
            copy)
    return rows


if __name__ == "__main__":
    user_kernels.main("gemm_w4a16,moe_gemm")
