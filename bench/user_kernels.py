#!/usr/bin/env python3
"""Kernels a user writes plainly from docs/language.md, compiled with no
options (only their tile constants), against the PyTorch code they replace
and the device's copy bandwidth, in one process, launches interleaved
(bench/interleaved.py). Each is checked against float64 first.

  PYTHONPATH=python python3 bench/user_kernels.py [--rounds 30]
      [--kernels gemv,batched_gemv,split_heads,swiglu,add_rmsnorm,
                 log_softmax,embedding,cumsum_time,gemm_accumulate,
                 gemm_residual,gemm_scaled,gemm_gated,gemm_scaled_a,
                 gemm_cast_a,adamw,histogram]

GB/s count each tensor read or written once (for the GEMMs, compute-bound,
only the last column, torch's time over tilec's, says anything)."""
import argparse
import os
import sys

import torch
import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import (bandwidth_rows, copy_bandwidth,  # noqa: E402
                         print_bandwidth_table, time_interleaved)

# Written plainly, shared with python/tests/test_gpu_language.py.
GEMV = os.path.join(HERE, "kernels", "gemv.tile")
SPLIT_HEADS = os.path.join(HERE, "kernels", "split_heads.tile")
CUMSUM_TIME = os.path.join(HERE, "kernels", "cumsum_time.tile")
GEMM_ACCUMULATE = os.path.join(HERE, "kernels", "gemm_accumulate.tile")
GEMM_EPILOGUES = os.path.join(HERE, "kernels", "gemm_epilogues.tile")
GEMM_PROLOGUES = os.path.join(HERE, "kernels", "gemm_prologues.tile")
BATCHED_GEMV = os.path.join(HERE, "kernels", "batched_gemv.tile")
ADAMW = os.path.join(HERE, "kernels", "adamw.tile")
HISTOGRAM = os.path.join(HERE, "kernels", "histogram.tile")

SWIGLU = """
# y = silu(g) * u with x = [g | u] (rows, 2 N)
kernel swiglu(X: Tensor[bf16, 2], Y: Tensor[bf16, 2],
              TILE_M: const int = 4, TILE_N: const int = 1024):
    r = bid(0)
    c = bid(1)
    half = Y.shape[1] // TILE_N
    g = load(X, index=(r, c), shape=(TILE_M, TILE_N)).astype(f32)
    u = load(X, index=(r, c + half), shape=(TILE_M, TILE_N)).astype(f32)
    store(Y, index=(r, c), tile=(g * sigmoid(g) * u).astype(bf16))
"""

ADD_RMSNORM = """
# h = x + r written back to r; y = h / rms(h) * w
kernel add_rmsnorm(X: Tensor[bf16, 2], R: Tensor[bf16, 2],
                   W: Tensor[bf16, 1], Y: Tensor[bf16, 2], eps: float,
                   TILE_N: const int = 4096):
    row = bid(0)
    h = load(X, index=(row, 0), shape=(1, TILE_N)).astype(f32) + \\
        load(R, index=(row, 0), shape=(1, TILE_N)).astype(f32)
    store(R, index=(row, 0), tile=h.astype(bf16))
    ms = sum(h * h, axis=1, keepdims=True) / X.shape[1]
    w = load(W, index=(0,), shape=(TILE_N,)).astype(f32)
    y = h * rsqrt(ms + eps) * w.reshape((1, TILE_N))
    store(Y, index=(row, 0), tile=y.astype(bf16))
"""

LOG_SOFTMAX = """
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
kernel log_softmax(X: Tensor[bf16, 2], Y: Tensor[bf16, 2],
                   TILE_N: const int = 4096):
    row = bid(0)
    x = load(X, index=(row, 0), shape=(1, TILE_N), padding=-inf).astype(f32)
    m = max(x, axis=1, keepdims=True)
    s = sum(exp2((x - m) * LOG2E), axis=1, keepdims=True)
    store(Y, index=(row, 0), tile=(x - m - log2(s) * LN2).astype(bf16))
"""

EMBEDDING = """
# out[t, :] = E[ids[t], :]
kernel embedding(Ids: Tensor[i32, 1], E: Tensor[bf16, 2],
                 Out: Tensor[bf16, 2], TILE_T: const int = 8,
                 D: const int = 4096):
    t = bid(0)
    ids = load(Ids, index=(t,), shape=(TILE_T,))
    store(Out, index=(t, 0),
          tile=gather(E, (ids[:, None], arange(D)[None, :])))
"""


def check(got, ref, tol):
    err = ((got.double() - ref).abs() / (1 + ref.abs())).max().item()
    assert err < tol, f"wrong: {err}"


def bf16(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def gemv(args, copy):
    rows = []
    # As written, and with the user's hint: W's tiles copied 2 trips ahead.
    plain = tilec.compile(GEMV)
    with open(GEMV) as f:
        hinted = f.read().replace("shape=(TILE_N, TILE_K))",
                                  "shape=(TILE_N, TILE_K), latency=3)")
    ahead = tilec.compile(hinted, name="gemv.tile")
    for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
        sets = [(bf16(n, k), bf16(k), torch.empty(n, device="cuda",
                                                  dtype=torch.bfloat16))
                for _ in range(3)]
        grid = ((n + 15) // 16,)
        for kern in (plain, ahead):
            s = sets[0]
            s[2].fill_(float("nan"))
            kern[grid](*s)
            check(s[2], s[0].double() @ s[1].double(), 2e-2)
        ms = time_interleaved(torch, {
            "tilec": lambda s: plain[grid](*s),
            "tilec latency=3": lambda s: ahead[grid](*s),
            "torch": lambda s: torch.mv(s[0], s[1], out=s[2])},
            sets, args.rounds)
        rows += bandwidth_rows(f"gemv {n}x{k}", ms, n * k * 2, copy)
    return rows


def batched_gemv(args, copy):
    rows = []
    kern = tilec.compile(BATCHED_GEMV)
    for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
        sets = [(bf16(n, k), bf16(8, k), torch.empty(8, n, device="cuda",
                                                     dtype=torch.bfloat16))
                for _ in range(3)]
        grid = ((n + 63) // 64,)
        s = sets[0]
        s[2].fill_(float("nan"))
        kern[grid](*s)
        check(s[2], s[1].double() @ s[0].double().T, 2e-2)
        ms = time_interleaved(torch, {
            "tilec": lambda s: kern[grid](*s),
            "torch": lambda s: torch.nn.functional.linear(s[1], s[0],
                                                          out=s[2])},
            sets, args.rounds)
        rows += bandwidth_rows(f"batched_gemv 8x{n}x{k}", ms, n * k * 2,
                               copy)
    return rows


def split_heads(args, copy):
    T, H, D = 4096, 32, 128
    kern = tilec.compile(SPLIT_HEADS, H=H, D=D)
    sets = [(bf16(T, 3 * H * D), torch.empty(3, H, T, D, device="cuda",
                                             dtype=torch.bfloat16))
            for _ in range(3)]
    grid = ((T + 3) // 4,)
    s = sets[0]
    s[1].fill_(float("nan"))
    kern[grid](s[0], s[1][0], s[1][1], s[1][2])
    assert torch.equal(s[1], s[0].view(T, 3, H, D).permute(1, 2, 0, 3))
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[grid](s[0], s[1][0], s[1][1], s[1][2]),
        "torch": lambda s: s[1].copy_(
            s[0].view(T, 3, H, D).permute(1, 2, 0, 3))}, sets, args.rounds)
    return bandwidth_rows(f"split_heads {T}x3x{H}x{D}", ms, 2 * T * 3 * H * D
                          * 2, copy)


def swiglu(args, copy):
    R, N = 8192, 4096
    kern = tilec.compile(SWIGLU, name="swiglu.tile")
    sets = [(bf16(R, 2 * N), torch.empty(R, N, device="cuda",
                                         dtype=torch.bfloat16))
            for _ in range(3)]
    grid = ((R + 3) // 4, N // 1024)
    s = sets[0]
    kern[grid](*s)
    g, u = s[0].double()[:, :N], s[0].double()[:, N:]
    check(s[1], g * torch.sigmoid(g) * u, 1e-2)
    F = torch.nn.functional
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[grid](*s),
        "torch": lambda s: torch.mul(F.silu(s[0][:, :N]), s[0][:, N:],
                                     out=s[1])}, sets, args.rounds)
    return bandwidth_rows(f"swiglu {R}x{N}", ms, R * 3 * N * 2, copy)


def add_rmsnorm(args, copy):
    R, N = 16384, 4096
    kern = tilec.compile(ADD_RMSNORM, name="add_rmsnorm.tile", TILE_N=N)
    sets = [(bf16(R, N), bf16(R, N), bf16(N), torch.empty(
        R, N, device="cuda", dtype=torch.bfloat16)) for _ in range(3)]
    s = sets[0]
    r0 = s[1].double()
    kern[(R,)](s[0], s[1], s[2], s[3], 1e-6)
    h = s[0].double() + r0
    check(s[1], h, 1e-2)
    check(s[3], h * torch.rsqrt((h * h).mean(1, keepdim=True) + 1e-6)
          * s[2].double(), 2e-2)

    def torch_run(s):
        s[1].add_(s[0])
        torch.rms_norm(s[1], (N,), s[2], 1e-6)
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[(R,)](s[0], s[1], s[2], s[3], 1e-6),
        "torch": torch_run}, sets, args.rounds)
    return bandwidth_rows(f"add_rmsnorm {R}x{N}", ms, 4 * R * N * 2, copy)


def log_softmax(args, copy):
    R, N = 16384, 4096
    kern = tilec.compile(LOG_SOFTMAX, name="log_softmax.tile", TILE_N=N)
    sets = [(bf16(R, N), torch.empty(R, N, device="cuda",
                                     dtype=torch.bfloat16))
            for _ in range(3)]
    s = sets[0]
    kern[(R,)](*s)
    check(s[1], torch.log_softmax(s[0].double(), 1), 2e-2)
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[(R,)](*s),
        "torch": lambda s: torch.log_softmax(s[0], 1, out=s[1])},
        sets, args.rounds)
    return bandwidth_rows(f"log_softmax {R}x{N}", ms, 2 * R * N * 2, copy)


def embedding(args, copy):
    V, D, T = 32000, 4096, 16384
    kern = tilec.compile(EMBEDDING, name="embedding.tile", D=D)
    table = bf16(V, D)
    sets = [(torch.randint(0, V, (T,), device="cuda", dtype=torch.int32),
             torch.empty(T, D, device="cuda", dtype=torch.bfloat16))
            for _ in range(3)]
    grid = ((T + 7) // 8,)
    s = sets[0]
    kern[grid](s[0], table, s[1])
    assert torch.equal(s[1], table[s[0].long()])
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[grid](s[0], table, s[1]),
        "torch": lambda s: torch.index_select(table, 0, s[0], out=s[1])},
        sets, args.rounds)
    return bandwidth_rows(f"embedding {T}x{D}", ms, 2 * T * D * 2, copy)


def cumsum_time(args, copy):
    B, T, C = 16, 4096, 1024
    kern = tilec.compile(CUMSUM_TIME)
    sets = [(torch.randn(B, T, C, device="cuda"),
             torch.empty(B, T, C, device="cuda")) for _ in range(3)]
    grid = ((C + 63) // 64, B)
    s = sets[0]
    kern[grid](*s)
    check(s[1], torch.cumsum(s[0].double(), dim=1), 1e-4)
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[grid](*s),
        "torch": lambda s: torch.cumsum(s[0], dim=1, out=s[1])},
        sets, args.rounds)
    return bandwidth_rows(f"cumsum_time {B}x{T}x{C} f32", ms, 2 * B * T * C * 4,
                          copy)


def gemm_accumulate(args, copy):
    rows = []
    kern = tilec.compile(GEMM_ACCUMULATE)
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 1024)):
        sets = [(bf16(m, k), bf16(k, n), bf16(m, n)) for _ in range(3)]
        grid = ((m + 127) // 128, (n + 127) // 128)
        a, b, c = sets[0]
        ref = a.double() @ b.double() + c.double()
        kern[grid](a, b, c)
        check(c, ref, 2e-2)
        ms = time_interleaved(torch, {
            "tilec": lambda s: kern[grid](*s),
            "torch": lambda s: s[2].addmm_(s[0], s[1])}, sets, args.rounds)
        rows += bandwidth_rows(f"gemm_accumulate {m}x{n}x{k}", ms,
                               (m * k + k * n + 2 * m * n) * 2, copy)
    return rows


def gemm_rows(args, copy, path, kernel, make_set, scalars, reference,
              torch_fn, tile_n=128):
    """Rows for one kernel of a GEMM file with 128 x `tile_n` tiles:
    `make_set` makes the tensors of an (m, n, k) problem (C last),
    `scalars` follow them, `reference` gives C in float64 from a set,
    `torch_fn` is what PyTorch runs."""
    rows = []
    kern = tilec.compile(path, kernel=kernel, TILE_N=tile_n)
    label = kernel if tile_n == 128 else f"{kernel} 128x{tile_n}"
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 1024)):
        sets = [make_set(m, n, k) for _ in range(3)]
        grid = ((m + 127) // 128, (n + tile_n - 1) // tile_n)
        s = sets[0]
        kern[grid](*s, *scalars)
        check(s[-1], reference(s), 2e-2)
        ms = time_interleaved(torch, {
            "tilec": lambda s: kern[grid](*s, *scalars), "torch": torch_fn},
            sets, args.rounds)
        moved = sum(t.numel() * t.element_size() for t in sets[0])
        rows += bandwidth_rows(f"{label} {m}x{n}x{k}", ms, moved, copy)
    return rows


def gemm_epilogue(args, copy, kernel, extra, reference, torch_fn):
    """Rows for one of bench/kernels/gemm_epilogues.tile's kernels: `extra`
    makes the tensors between B and C, `reference` applies the epilogue to
    the float64 product, `torch_fn` is what PyTorch runs."""
    return gemm_rows(
        args, copy, GEMM_EPILOGUES, kernel,
        lambda m, n, k: (bf16(m, k), bf16(k, n)) + extra(m, n) + (bf16(m, n),),
        (), lambda s: reference(s[0].double() @ s[1].double(), s), torch_fn)


def gemm_residual(args, copy):
    return gemm_epilogue(
        args, copy, "gemm_residual", lambda m, n: (bf16(m, n),),
        lambda p, s: p + s[2].double(),
        lambda s: torch.addmm(s[2], s[0], s[1], out=s[3]))


def gemm_scaled(args, copy):
    return gemm_epilogue(
        args, copy, "gemm_scaled",
        lambda m, n: (torch.rand(m, device="cuda") + 0.5,
                      torch.rand(n, device="cuda") + 0.5),
        lambda p, s: p * s[2].double()[:, None] * s[3].double()[None, :],
        lambda s: torch.mul(torch.mm(s[0], s[1]) * s[2][:, None],
                            s[3][None, :], out=s[4]))


def gemm_gated(args, copy):
    return gemm_epilogue(
        args, copy, "gemm_gated", lambda m, n: (bf16(m, n),),
        lambda p, s: p * torch.sigmoid(s[2].double()),
        lambda s: torch.mul(torch.mm(s[0], s[1]), torch.sigmoid(s[2]),
                            out=s[3]))


def gemm_prologue(args, copy, kernel, a_of, scalars, a_reference, torch_fn):
    """Rows for one of bench/kernels/gemm_prologues.tile's kernels: `a_of`
    makes A from a bf16 tile, `scalars` follow C, `a_reference` is A as the
    kernel multiplies it (float64), `torch_fn` is what PyTorch runs."""
    # 128 x 256 tiles too: one block a multiprocessor, where the compiler
    # makes A K step by K step (tile-slice-wgmma-k).
    return [row for tile_n in (128, 256) for row in gemm_rows(
        args, copy, GEMM_PROLOGUES, kernel,
        lambda m, n, k: (a_of(bf16(m, k)), bf16(k, n), bf16(m, n)), scalars,
        lambda s: a_reference(s[0]) @ s[1].double(), torch_fn, tile_n)]


def gemm_scaled_a(args, copy):
    return gemm_prologue(
        args, copy, "gemm_scaled_a", lambda a: a, (0.75,),
        lambda a: (a.float() * 0.75).bfloat16().double(),
        lambda s: torch.mm(s[0] * 0.75, s[1], out=s[2]))


def gemm_cast_a(args, copy):
    return gemm_prologue(
        args, copy, "gemm_cast_a", lambda a: a.float(), (),
        lambda a: a.bfloat16().double(),
        lambda s: torch.mm(s[0].bfloat16(), s[1], out=s[2]))


def gemm_norm_a(args, copy):
    """A scaled per row (an RMSNorm's 1 / rms) and per K column (its
    weight) on its way to the multiply; PyTorch scales, rounds, then
    multiplies."""
    def make_set(m, n, k):
        return (bf16(m, k), torch.rand(m, device="cuda") + 0.5,
                (torch.rand(k, device="cuda") + 0.5).bfloat16(), bf16(k, n),
                bf16(m, n))

    def normed(s):
        return s[0].float() * s[1][:, None] * s[2].float()[None, :]
    return [row for tile_n in (128, 256) for row in gemm_rows(
        args, copy, GEMM_PROLOGUES, "gemm_norm_a", make_set, (),
        lambda s: normed(s).bfloat16().double() @ s[3].double(),
        lambda s: torch.mm(normed(s).bfloat16(), s[3], out=s[4]), tile_n)]


def gemm_scaled_b(args, copy):
    """B held in e4m3 (8-bit weights), dequantized by a per-tensor scale in
    every trip; PyTorch dequantizes, then multiplies."""
    def make_set(m, n, k):
        return (bf16(m, k), bf16(k, n).to(torch.float8_e4m3fn), bf16(m, n))
    # 128 x 256 tiles too: B's buffer then takes turns in a ring of two
    # (tile-ring-stored-operands: one block a multiprocessor either way).
    return [row for tile_n in (128, 256) for row in gemm_rows(
        args, copy, GEMM_PROLOGUES, "gemm_scaled_b", make_set, (0.75,),
        lambda s: s[0].double() @ (s[1].float() * 0.75).bfloat16().double(),
        lambda s: torch.mm(s[0], (s[1].float() * 0.75).bfloat16(), out=s[2]),
        tile_n)]


def adamw(args, copy):
    n = 64 * 1024 * 1024
    kern = tilec.compile(ADAMW)
    lr, b1, b2, eps, wd, t = 1e-3, 0.9, 0.999, 1e-8, 0.01, 3
    hp = (lr, b1, b2, eps, wd, 1 - b1 ** t, 1 - b2 ** t)
    sets = [(torch.randn(n, device="cuda"), bf16(n),
             torch.randn(n, device="cuda") * 0.1,
             torch.rand(n, device="cuda") * 0.01, bf16(n)) for _ in range(3)]
    grid = (n // 2048,)
    s = [x.clone() for x in sets[0]]
    kern[grid](*s, *hp)
    m1 = b1 * sets[0][2].double() + (1 - b1) * sets[0][1].double()
    check(s[2], m1, 1e-5)

    def torch_adamw(s):
        # The same step in PyTorch's element-wise ops.
        g = s[1].float()
        s[2].mul_(b1).add_(g, alpha=1 - b1)
        s[3].mul_(b2).addcmul_(g, g, value=1 - b2)
        denom = (s[3] / hp[6]).sqrt_().add_(eps)
        s[0].mul_(1 - lr * wd).addcdiv_(s[2], denom, value=-lr / hp[5])
        s[4].copy_(s[0])
    ms = time_interleaved(torch, {
        "tilec": lambda s: kern[grid](*s, *hp), "torch": torch_adamw},
        sets, args.rounds)
    return bandwidth_rows(f"adamw {n} f32 + bf16 grad", ms,
                          n * (4 * 6 + 2 * 2), copy)


def histogram(args, copy):
    n = 1 << 24
    kern = tilec.compile(HISTOGRAM)
    sets = [(torch.randint(0, 256, (n,), device="cuda", dtype=torch.int32),
             torch.zeros(256, device="cuda", dtype=torch.int32))
            for _ in range(3)]
    grid = ((n + 8191) // 8192,)
    x, h = sets[0]
    kern[grid](x, h)
    assert torch.equal(h.long(), torch.bincount(x.long(), minlength=256))

    def tilec_hist(s):
        s[1].zero_()
        kern[grid](*s)
    ms = time_interleaved(torch, {
        "tilec": tilec_hist,
        "torch": lambda s: torch.bincount(s[0], minlength=256)},
        sets, args.rounds)
    return bandwidth_rows(f"histogram {n} int32, 256 bins", ms, n * 4, copy)


def main(kernels="gemv,batched_gemv,split_heads,swiglu,add_rmsnorm,"
         "log_softmax,embedding,cumsum_time,gemm_accumulate,gemm_residual,"
         "gemm_scaled,gemm_gated,gemm_scaled_a,gemm_cast_a,gemm_norm_a,"
         "gemm_scaled_b,adamw,histogram"):
    """The timing table of `kernels` (--kernels), this file's or MODULES'
    (each module's own command line runs this with its kernels)."""
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--kernels", default=kernels)
    args = p.parse_args()
    copy = copy_bandwidth(torch, args.rounds)
    print(f"GPU: {torch.cuda.get_device_name()}, copy {copy / 1e9:.0f} GB/s")
    rows, failed = [], []
    for name in args.kernels.split(","):
        # A kernel that fails its check or its launch is reported, and the
        # others still run; the exit status says so.
        try:
            these = kernel_rows(name)(args, copy)
            rows += these
            # (As each finishes: a run cut short keeps what it measured.)
            print_bandwidth_table("kernel", these)
        except Exception as e:  # noqa: BLE001
            failed.append(name)
            print(f"{name}: FAILED: {type(e).__name__}: {e}", flush=True)
    print_bandwidth_table("kernel", rows)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


# More kernels a user writes, one module a family (backward passes,
# quantized and grouped GEMMs, the rest), named on --kernels as these are.
MODULES = ("user_kernels_bwd", "user_kernels_quant", "user_kernels_misc")


def kernel_rows(name):
    """The function that times kernel `name`: this file's, or a module's of
    MODULES."""
    if name in globals() and callable(globals()[name]):
        return globals()[name]
    import importlib
    for module in MODULES:
        fn = getattr(importlib.import_module(module), name, None)
        if callable(fn):
            return fn
    raise SystemExit(f"user_kernels.py: no kernel '{name}' here or in "
                     f"{', '.join(MODULES)}")


if __name__ == "__main__":
    main()
