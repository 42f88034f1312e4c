#!/usr/bin/env python3
"""A flash-attention forward kernel written in Triton, as a baseline for
tilec's kernels/flash_attention.tile, timed on the attention benchmark's
points in its JSON-lines format.

The kernel is FlashAttention-2's forward: one program per BLOCK_M query rows
of one (batch, head); it walks the keys in BLOCK_N blocks with an online
softmax (running row maximum and sum in f32, base-2 exponentials with the
1/sqrt(D) scale folded into log2(e)), accumulates P.V in f32 and divides by
the row sum once at the end. Causal: the key blocks wholly left of the
diagonal run without a mask, the ones that cross it with one, and the row
blocks are launched heaviest first. Two ways to load: plain pointers
(load=ptr; Triton pipelines them with cp.async) or host-built TMA tensor
descriptors over the (B*H*N, D) view (load=tma; only where N is a multiple
of both block sizes). Layout (B, H, N, D), contiguous, fp16.

Search, per point, as tilec's tile-bench-attention does: load (ptr, tma) x
BLOCK_M (64, 128) x BLOCK_N (32, 64, 128) x num_stages (2, 3, 4) x
num_warps (4, 8). Every configuration is compiled ahead of timing on
several processes; one that fails to compile or to launch (too much shared
memory, say) is skipped with a note. Each configuration's output is checked
against torch SDPA first, on small shapes (SDPA on f32 inputs; N=256, and
N=200 for the masked edges) and then on the point's shape (SDPA in fp16)
before it is timed (NaN-poisoned output; max |error| <= 5e-3 and relative
L2 error <= 1e-2);
one that fails is reported and not timed. Timing as in torch_baseline.py:
CUDA events around each launch, launches queued back to back after 3
warm-up launches, median; inputs rotated between launches. Candidates get
10 timed launches (stopped after 2 when both are 1.5x slower than the best
so far), the winner 30. One JSON object per point:

  {"impl": "triton", "bench": "attention", "B": 4, "H": 32, "N": 4096,
   "D": 128, "causal": true, "ms": 1.2, "tflops": 456.7,
   "config": "load=tma,BLOCK_M=128,BLOCK_N=64,warps=8,stages=3",
   "candidates": 72, "timed": 60, "max_abs_err": 0.0004}

  triton_attention.py [--json=bench-triton.json] [--quick] [--selftest]
                      [--d=128,64] [--n=1024,4096] [--causal=yes|no|both]
                      [--load=ptr,tma]

--selftest runs the small-shape checks only. Exit status 77 (skip) where
torch, Triton or a GPU is missing.
"""
import argparse
import itertools
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_baseline import median_ms  # noqa: E402

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

LOG2E = 1.4426950408889634
MAX_ABS_ERR = 5e-3
MAX_REL_ERR = 1e-2


class Config:
    def __init__(self, load, block_m, block_n, stages, warps):
        self.load, self.block_m, self.block_n = load, block_m, block_n
        self.stages, self.warps = stages, warps

    def __str__(self):
        return (f"load={self.load},BLOCK_M={self.block_m},"
                f"BLOCK_N={self.block_n},warps={self.warps},"
                f"stages={self.stages}")

    def key(self):
        return (self.load, self.block_m, self.block_n, self.stages,
                self.warps)


def search_space(loads):
    return [Config(*c) for c in itertools.product(
        loads, (64, 128), (32, 64, 128), (2, 3, 4), (4, 8))]


class Skip(Exception):
    """A configuration that does not apply to a shape."""


if triton is not None:
    @triton.jit
    def _attend_blocks(acc, l_i, m_i, q, K, V, head, kv_row, offs_m, lo, hi,
                       N, qk_scale, BLOCK_N: tl.constexpr,
                       HEAD_D: tl.constexpr, USE_TMA: tl.constexpr,
                       DIAGONAL: tl.constexpr, MASK_N: tl.constexpr):
        """Folds the key blocks [lo, hi) into (acc, l_i, m_i)."""
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_D)
        if USE_TMA:
            k_block = K
            v_block = V
        else:
            k_block = K + head + offs_n[:, None] * HEAD_D + offs_d[None, :]
            v_block = V + head + offs_n[:, None] * HEAD_D + offs_d[None, :]
        for start in range(lo, hi, BLOCK_N):
            start = tl.multiple_of(start, BLOCK_N)
            cols = start + offs_n
            if USE_TMA:
                k = K.load([kv_row + start, 0])
            elif MASK_N:
                k = tl.load(k_block + start * HEAD_D,
                            mask=(cols < N)[:, None], other=0.0)
            else:
                k = tl.load(k_block + start * HEAD_D)
            s = tl.dot(q, tl.trans(k))
            if DIAGONAL:
                s = tl.where(offs_m[:, None] >= cols[None, :], s,
                             float("-inf"))
            if MASK_N:
                s = tl.where((cols < N)[None, :], s, float("-inf"))
            # Every row has a finite entry in the first block it sees, so
            # m_new is finite and exp2(-inf - m_new) is 0.
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            p = tl.math.exp2(s * qk_scale - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            if USE_TMA:
                v = V.load([kv_row + start, 0])
            elif MASK_N:
                v = tl.load(v_block + start * HEAD_D,
                            mask=(cols < N)[:, None], other=0.0)
            else:
                v = tl.load(v_block + start * HEAD_D)
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_new
        return acc, l_i, m_i

    @triton.jit
    def _attention_fwd(Q, K, V, O, N, qk_scale, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr,
                       CAUSAL: tl.constexpr, EVEN: tl.constexpr,
                       USE_TMA: tl.constexpr):
        """O = softmax(Q K^T * scale) V for BLOCK_M rows of one head.

        Q, K, V, O: pointers to (B, H, N, HEAD_D) contiguous, or (USE_TMA,
        EVEN only) TMA descriptors over their (B*H*N, HEAD_D) views.
        qk_scale = log2(e) / sqrt(HEAD_D). EVEN: N is a multiple of BLOCK_M
        and BLOCK_N. Grid: (cdiv(N, BLOCK_M), B*H).
        """
        pid = tl.program_id(0)
        if CAUSAL:
            # The last row blocks have the most keys: launch them first.
            pid = tl.num_programs(0) - 1 - pid
        bh = tl.program_id(1)
        head = bh.to(tl.int64) * N * HEAD_D
        row0 = pid * BLOCK_M
        kv_row = bh * N
        offs_m = row0 + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, HEAD_D)
        if USE_TMA:
            q = Q.load([kv_row + row0, 0])
        else:
            q_block = Q + head + offs_m[:, None] * HEAD_D + offs_d[None, :]
            if EVEN:
                q = tl.load(q_block)
            else:
                q = tl.load(q_block, mask=(offs_m < N)[:, None], other=0.0)
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_D], tl.float32)
        if CAUSAL:
            # Key blocks wholly at or left of column row0 need no mask; the
            # rest, up to the block's last row, cross the diagonal.
            split = (row0 // BLOCK_N) * BLOCK_N
            end = tl.minimum(row0 + BLOCK_M, N)
            acc, l_i, m_i = _attend_blocks(
                acc, l_i, m_i, q, K, V, head, kv_row, offs_m, 0, split, N,
                qk_scale, BLOCK_N, HEAD_D, USE_TMA, False, False)
            if EVEN:
                acc, l_i, m_i = _attend_blocks(
                    acc, l_i, m_i, q, K, V, head, kv_row, offs_m, split, end,
                    N, qk_scale, BLOCK_N, HEAD_D, USE_TMA, True, False)
            else:
                acc, l_i, m_i = _attend_blocks(
                    acc, l_i, m_i, q, K, V, head, kv_row, offs_m, split, end,
                    N, qk_scale, BLOCK_N, HEAD_D, USE_TMA, True, True)
        elif EVEN:
            acc, l_i, m_i = _attend_blocks(
                acc, l_i, m_i, q, K, V, head, kv_row, offs_m, 0, N, N,
                qk_scale, BLOCK_N, HEAD_D, USE_TMA, False, False)
        else:
            # The whole key blocks, then the last, partial one.
            full = (N // BLOCK_N) * BLOCK_N
            acc, l_i, m_i = _attend_blocks(
                acc, l_i, m_i, q, K, V, head, kv_row, offs_m, 0, full, N,
                qk_scale, BLOCK_N, HEAD_D, USE_TMA, False, False)
            acc, l_i, m_i = _attend_blocks(
                acc, l_i, m_i, q, K, V, head, kv_row, offs_m, full, N, N,
                qk_scale, BLOCK_N, HEAD_D, USE_TMA, False, True)
        out = (acc / l_i[:, None]).to(tl.float16)
        if USE_TMA:
            O.store([kv_row + row0, 0], out)
        else:
            o_block = O + head + offs_m[:, None] * HEAD_D + offs_d[None, :]
            if EVEN:
                tl.store(o_block, out)
            else:
                tl.store(o_block, out, mask=(offs_m < N)[:, None])


def launcher(q, k, v, o, causal, cfg):
    """A function that launches cfg on these tensors, arguments prepared
    (descriptors built) ahead, so that timing sees the launch alone."""
    B, H, N, D = q.shape
    for t in (q, k, v, o):
        if not t.is_contiguous() or t.shape != q.shape:
            raise ValueError("q, k, v, o must be contiguous and of one shape")
    even = N % cfg.block_m == 0 and N % cfg.block_n == 0
    if cfg.load == "tma":
        if not even:
            raise Skip(f"N={N} is not a multiple of the blocks (TMA)")
        from triton.tools.tensor_descriptor import TensorDescriptor

        def desc(t, rows):
            return TensorDescriptor(t.view(B * H * N, D), [B * H * N, D],
                                    [D, 1], [rows, D])
        args = (desc(q, cfg.block_m), desc(k, cfg.block_n),
                desc(v, cfg.block_n), desc(o, cfg.block_m))
    else:
        args = (q, k, v, o)
    grid = (triton.cdiv(N, cfg.block_m), B * H)
    scale = LOG2E / math.sqrt(D)

    def launch():
        _attention_fwd[grid](*args, N, scale, BLOCK_M=cfg.block_m,
                             BLOCK_N=cfg.block_n, HEAD_D=D, CAUSAL=causal,
                             EVEN=even, USE_TMA=cfg.load == "tma",
                             num_warps=cfg.warps, num_stages=cfg.stages)
    return launch


def describe(e):
    text = str(e).strip().splitlines()
    line = text[-1] if text else ""
    return f"{type(e).__name__}: {line[:200]}"


def _precompile_one(job):
    """In a worker process: compiles (and launches once, on a tiny input)
    one (config, D, causal, N) so that the main process finds it in
    Triton's on-disk cache. Returns None or the reason it failed."""
    key, D, causal, N = job
    try:
        import torch
        cfg = Config(*key)
        q, k, v, o = (torch.zeros(1, 1, N, D, device="cuda",
                                  dtype=torch.float16) for _ in range(4))
        launcher(q, k, v, o, causal, cfg)()
        torch.cuda.synchronize()
        return None
    except Skip:
        return None
    except Exception as e:  # noqa: BLE001: reported, then skipped
        return describe(e)


def precompile(jobs):
    """Compiles jobs [(Config, D, causal, N)] on several processes; the
    main process compiles whatever this leaves out. Returns {(key, D,
    causal, N): reason} for the ones that failed."""
    import concurrent.futures
    import multiprocessing
    start = time.time()
    work = [(c.key(), D, causal, N) for c, D, causal, N in jobs]
    failed = {}
    try:
        ctx = multiprocessing.get_context("spawn")
        workers = max(1, min(16, (os.cpu_count() or 2) - 1))
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) \
                as pool:
            for job, why in zip(work, pool.map(_precompile_one, work)):
                if why:
                    failed[job] = why
    except Exception as e:  # noqa: BLE001: the main process compiles instead
        print(f"  precompile on several processes failed ({describe(e)}); "
              "compiling as needed")
    print(f"  precompiled {len(work)} kernels in {time.time() - start:.1f} s"
          f" ({len(failed)} failed)", flush=True)
    return failed


def reference_f32(torch, q, k, v, causal):
    """torch SDPA on the inputs upcast to f32 (no TF32)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    return torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=causal)


def check(torch, run, o, ref):
    """Runs into a NaN-poisoned o; returns (ok, max abs error, rel error)."""
    o.fill_(float("nan"))
    run()
    torch.cuda.synchronize()
    diff = (o.float() - ref.float())
    if not torch.isfinite(o).all():
        return False, float("nan"), float("nan")
    err = diff.abs().max().item()
    rel = (diff.norm() / ref.float().norm()).item()
    return err <= MAX_ABS_ERR and rel <= MAX_REL_ERR, err, rel


SMALL_SHAPES = ((2, 3, 256), (1, 2, 200))


def small_shapes(cfg):
    """(B, H, N) of the small checks of cfg: N=256 for all, N=200 (partial
    row and key blocks) for the pointer loads at 3 stages: the masked paths
    do not depend on the stages, and each shape is one more compile."""
    return [s for s in SMALL_SHAPES
            if s[2] % 16 == 0 or (cfg.load == "ptr" and cfg.stages == 3)]


def selftest(torch, configs, dims, causals, failed):
    """The small-shape checks of every config (those in `failed`, which did
    not compile, are left out); returns the configs that passed, per (D,
    causal): {(D, causal): [Config]}, and the number of wrong results."""
    passed = {}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    failures = 0
    for D in dims:
        for causal in causals:
            ok_here = []
            for cfg in configs:
                good = True
                for B, H, N in small_shapes(cfg):
                    if (cfg.key(), D, causal, N) in failed:
                        good = False
                        break
                    q, k, v = (torch.randn(B, H, N, D, device="cuda",
                                           dtype=torch.float16, generator=gen)
                               for _ in range(3))
                    o = torch.empty_like(q)
                    ref = reference_f32(torch, q, k, v, causal)
                    sdpa = torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal)
                    where = f"D={D} causal={int(causal)} N={N} {cfg}"
                    try:
                        run = launcher(q, k, v, o, causal, cfg)
                        ok, err, rel = check(torch, run, o, ref)
                    except Skip:
                        continue
                    except Exception as e:  # noqa: BLE001
                        print(f"  selftest {where}: skipped: {describe(e)}")
                        good = False
                        break
                    sdpa_err = (sdpa.float() - ref).abs().max().item()
                    if not ok:
                        print(f"  selftest {where}: FAIL max|err|={err:.2e} "
                              f"rel={rel:.2e} (SDPA's max|err| "
                              f"{sdpa_err:.2e})")
                        failures += 1
                        good = False
                        break
                if good:
                    ok_here.append(cfg)
            passed[(D, causal)] = ok_here
            print(f"  selftest D={D} causal={int(causal)}: {len(ok_here)} of "
                  f"{len(configs)} configs pass", flush=True)
    return passed, failures


def time_candidate(torch, sets_runs, warmup, iters, abandon):
    """Median ms of `iters` launches rotating over the input sets; stops
    after 2 when both are slower than `abandon`."""
    def one(i):
        sets_runs[i % len(sets_runs)]()
    for i in range(warmup):
        one(i)
    events = []
    for i in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        one(warmup + i)
        stop.record()
        events.append((start, stop))
        if i == 1 and abandon is not None:
            stop.synchronize()
            first = [a.elapsed_time(b) for a, b in events]
            if min(first) > abandon:
                return min(first), True
    events[-1][1].synchronize()
    times = sorted(a.elapsed_time(b) for a, b in events)
    return times[len(times) // 2], False


def bench_point(torch, out, B, H, N, D, causal, configs, iters):
    flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
    elements = B * H * N * D
    nsets = 4 if elements * 2 * 3 < (256 << 20) else 2
    sets = []
    for _ in range(nsets):
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        sets.append((q, k, v, torch.empty_like(q)))
    q0, k0, v0, o0 = sets[0]
    ref = torch.nn.functional.scaled_dot_product_attention(
        q0, k0, v0, is_causal=causal)
    where = f"N={N:<5} D={D:<3} causal={int(causal)}"
    best = None
    timed = 0
    for cfg in configs:
        try:
            runs = [launcher(*s, causal, cfg) for s in sets]
            ok, err, rel = check(torch, runs[0], o0, ref)
        except Skip as e:
            print(f"  {where}  {cfg}  not applicable: {e}")
            continue
        except Exception as e:  # noqa: BLE001: too much shared memory, ...
            print(f"  {where}  {cfg}  skipped: {describe(e)}")
            torch.cuda.synchronize()  # raises if the context is lost
            continue
        if not ok:
            print(f"  {where}  {cfg}  WRONG: max|err|={err:.2e} "
                  f"rel={rel:.2e}, not timed")
            continue
        abandon = 1.5 * best[1] if best else None
        ms, abandoned = time_candidate(torch, runs, 3, 10, abandon)
        timed += 1
        print(f"  {where}  {str(cfg):<52} {ms:8.3f} ms "
              f"{flops / ms / 1e9:7.1f} TFLOPS"
              f"{'  (abandoned after 2)' if abandoned else ''}", flush=True)
        if best is None or ms < best[1]:
            best = (cfg, ms, err)
    if best is None:
        print(f"  {where}: no configuration ran")
        return
    cfg, _, err = best
    runs = [launcher(*s, causal, cfg) for s in sets]
    ms = median_ms(torch, lambda i: runs[i % len(runs)](), iters)
    rec = {"impl": "triton", "bench": "attention", "B": B, "H": H, "N": N,
           "D": D, "causal": causal, "ms": round(ms, 5),
           "tflops": round(flops / ms / 1e9, 2), "config": str(cfg),
           "candidates": len(configs), "timed": timed,
           "max_abs_err": float(f"{err:.3g}")}
    print(json.dumps(rec), flush=True)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    del sets, runs
    torch.cuda.empty_cache()


def int_list(text):
    return [int(x) for x in text.split(",") if x]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="bench-triton.json")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--selftest", action="store_true")
    parser.add_argument("--d", type=int_list, default=[128, 64])
    parser.add_argument("--n", type=int_list,
                        default=[1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--causal", choices=["yes", "no", "both"],
                        default="both")
    parser.add_argument("--load", default="ptr,tma")
    args = parser.parse_args()
    loads = [x for x in args.load.split(",") if x]
    if not loads or any(x not in ("ptr", "tma") for x in loads):
        parser.error("--load takes ptr, tma or both")
    if any(d not in (16, 32, 64, 128, 256) for d in args.d):
        parser.error("--d takes head dims among 16, 32, 64, 128, 256")
    try:
        import torch
    except ImportError as e:
        print(f"torch not available: {e}")
        return 77
    if triton is None:
        print("triton not available")
        return 77
    if not torch.cuda.is_available():
        print("torch sees no GPU")
        return 77
    print(f"triton {triton.__version__}, torch {torch.__version__} on "
          f"{torch.cuda.get_device_name()}", flush=True)
    configs = search_space(loads)
    causals = {"yes": [True], "no": [False], "both": [True, False]}[
        args.causal]
    ns = [n for n in args.n if not args.quick or n in (1024, 4096)]
    jobs = [(c, D, causal, N) for D in args.d for causal in causals
            for c in configs for _, _, N in small_shapes(c)]
    failed = precompile(jobs)
    for (key, D, causal, N), why in sorted(failed.items()):
        print(f"  compile D={D} causal={int(causal)} N={N} "
              f"{Config(*key)}: skipped: {why}")
    passed, failures = selftest(torch, configs, args.d, causals, failed)
    if args.selftest:
        return 1 if failures else 0
    iters = 10 if args.quick else 30
    with open(args.json, "w") as out:
        for D in args.d:
            for causal in causals:
                for N in ns:
                    bench_point(torch, out, 4, 32, N, D, causal,
                                passed[(D, causal)], iters)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
