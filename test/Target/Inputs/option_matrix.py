"""Compiles kernels/flash_attention.tile with every documented sm_90a option
alone and with the combinations the attention autotuner tries, causal and
not, and checks that each either compiles (and, where ptxas is found,
assembles) or is refused with a clean diagnostic. An internal error (a
verifier failure such as "operand does not dominate", a diagnostic without a
file:line:col, an LLVM error, a crash) fails the test, as does a refusal of
a combination the tuner tries.

usage: python3 option_matrix.py TILEC KERNEL [--kernel=NAME] [PTXAS]

The tuner's combinations mirror candidateTiles() in lib/Runtime/Attention.cpp
(m, n, warps, stages, specialize, persistent, k_stages, v_stages,
tile_stages, refill_after_read, defer_epilogue, rescale_in_trip) and the way
it turns them into compile options.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# option_matrix.py TILEC FILE [--kernel=NAME] [PTXAS]
ARGS = [a for a in sys.argv[1:] if not a.startswith("--kernel=")]
NAMED = [a for a in sys.argv[1:] if a.startswith("--kernel=")]
TILEC, KERNEL = ARGS[0], ARGS[1]
PTXAS = ARGS[2] if len(ARGS) > 2 else None

# Every documented sm_90a option, alone or with the options it needs.
ALONE = [
    [], ["--auto-schedule=false"], ["-DTILE_M=128", "-DTILE_N=128"],
    ["-DTILE_M=128", "-DTILE_N=64", "-DTILE_D=256"],
    ["--num-warps=8"], ["--num-stages=1"], ["--num-stages=2"],
    ["--num-stages=3"], ["--no-loop-split"], ["--rotate-wgmma=false"],
    ["--warp-specialize"], ["--warp-specialize", "--num-warps=8"],
    ["--warp-specialize", "--num-warps=8", "--ping-pong"],
    ["--persistent"], ["--persistent", "--cluster=2"],
    ["--persistent", "--cluster=4"], ["--persistent", "--cluster=8"],
    ["--persistent", "--tile-stages=1"],
    ["--persistent", "--tile-stages=1", "--tile-refill-after-read"],
    ["--persistent", "--dynamic-schedule=false"],
    ["--persistent", "--defer-epilogue"],
    ["--persistent", "--stage-in-ring-slots=false"], ["--rescale-in-trip"],
    ["--occupancy=1"], ["--occupancy=2"], ["--alignment=8"],
    ["--warp-specialize", "--persistent", "--cluster=2"],
    ["--warp-specialize", "--num-warps=8", "--persistent", "--tile-stages=1",
     "--tile-refill-after-read", "--rescale-in-trip"],
]

# candidateTiles(): per padded head dim.
T256 = [(128, 64, 8, 2, 1, 1, 0, 0, 1, 1, 0, 1), (128, 64, 8, 2, 1, 1, 0, 0, 1, 1, 1, 0),
        (128, 64, 8, 2, 1, 1, 0, 0, 1), (128, 64, 8, 0, 1, 0, 3, 2),
        (64, 32, 4, 2), (64, 64, 4, 2), (128, 64, 8, 2), (128, 32, 8, 2),
        (128, 64, 8, 2, 1)]
T64 = [(64, 64, 4, 2), (64, 128, 4, 2), (128, 64, 4, 2), (128, 128, 8, 0),
       (128, 32, 4, 2), (128, 64, 8, 2), (128, 128, 8, 0, 1),
       (128, 128, 8, 3, 1), (128, 128, 8, 4, 1), (128, 64, 8, 2, 1),
       (128, 128, 8, 2, 1, 1), (128, 128, 8, 4, 1, 1),
       (128, 128, 8, 4, 1, 1, 0, 0, 0, 0, 0, 1)]
T128 = [(128, 64, 4, 2), (64, 64, 4, 2), (128, 128, 8, 0), (128, 32, 4, 2),
        (128, 64, 8, 2), (128, 128, 8, 0, 1), (128, 128, 8, 2, 1),
        (128, 128, 8, 3, 1), (128, 128, 8, 2, 1, 1),
        (128, 128, 8, 2, 1, 1, 0, 0, 1, 1, 0, 1)]


def tuner_options(t, causal):
    """The compile options the tuner gives candidate t (a list of lists)."""
    t = tuple(t) + (0,) * (12 - len(t))
    m, n, warps, stages, ws, persistent, ks, vs, ts, refill, defer, rescale = t
    # (The tuner's candidates are whole schedules: no compiler choice.)
    base = [f"-DTILE_M={m}", f"-DTILE_N={n}", f"--num-warps={warps}",
            f"--num-stages={stages}", "--auto-schedule=false"]
    if ks:
        base += [f"-DK_LATENCY={ks}", f"-DV_LATENCY={vs}"]
    if ws:
        base += ["--warp-specialize", "--no-loop-split"]
        base += ["--persistent"] if persistent else []
        base += [f"--tile-stages={ts}"] if ts else []
        base += ["--tile-refill-after-read"] if refill else []
        base += ["--defer-epilogue"] if defer else []
        base += ["--rescale-in-trip"] if rescale else []
        return [base]
    return [base + ["--no-loop-split"], base] if causal else [base]


def jobs():
    for causal in ("true", "false"):
        for opts in ALONE:
            yield ("alone", [f"-DCAUSAL={causal}"] + opts)
        for d, table in ((64, T64), (128, T128), (256, T256)):
            for t in table:
                for opts in tuner_options(t, causal == "true"):
                    yield ("tuner", [f"-DCAUSAL={causal}", f"-DTILE_D={d}"] +
                           opts)
        # The tuner's persistent candidates in clusters of two.
        for t in T128:
            if len(t) > 5 and t[5]:
                for opts in tuner_options(t, causal == "true"):
                    yield ("tuner", [f"-DCAUSAL={causal}", "-DTILE_D=128",
                                     "--cluster=2"] + opts)


INTERNAL = re.compile(r"does not dominate|<unknown>|LLVM ERROR|PLEASE submit|"
                      r"Assertion|failed to legalize|see current operation|"
                      r"Stack dump")
LOCATED = re.compile(r"^[^:\s]+:\d+:\d+: (error|warning|note): ")


def run(job, workdir, index):
    kind, opts = job
    out = os.path.join(workdir, f"k{index}.ptx")
    cmd = [TILEC, "--emit=ptx", "--arch=sm_90a", KERNEL, "-o", out] + NAMED + opts
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    what = " ".join(opts)
    if p.returncode < 0 or INTERNAL.search(text):
        return f"INTERNAL ERROR ({kind}): {what}\n{text}"
    if p.returncode != 0:
        if kind == "tuner":
            return f"REFUSED a tuner combination: {what}\n{text}"
        # A refusal: every error line located, or one of tilec's own about
        # the options.
        for line in text.splitlines():
            if "error:" in line and not (LOCATED.match(line) or
                                         line.startswith("tilec: error:")):
                return f"UNLOCATED ERROR: {what}\n{text}"
        return None
    if PTXAS:
        a = subprocess.run([PTXAS, "-arch=sm_90a", out, "-o", os.devnull],
                           capture_output=True, text=True)
        if a.returncode != 0:
            return f"PTXAS REJECTED ({kind}): {what}\n{a.stderr}"
    return None


def main():
    all_jobs = list(jobs())
    with tempfile.TemporaryDirectory() as workdir:
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            results = list(ex.map(lambda ij: run(ij[1], workdir, ij[0]),
                                  enumerate(all_jobs)))
    failures = [r for r in results if r]
    for f in failures:
        print(f)
    print(f"option matrix: {len(all_jobs) - len(failures)} passed, "
          f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


main()
