#!/usr/bin/env python3
"""A no-crash sweep of code generation (no GPU): compiles kernels of
kernels/ and bench/kernels/ to PTX with random values of each kernel's own
constants (tile sizes from 1 to 512, odd ones such as 24, 40, 152; bools;
f16/bf16/f32, or i8/i32/i64 for a dtype whose default is an integer) and random options (--arch sm_80/sm_90/sm_90a, --num-warps,
--num-stages, --warp-specialize, --persistent, --cluster=2, --occupancy,
--auto-schedule, --no-loop-split), one tilec process at a time, for a
number of seconds. A located error is fine; a crash (a signal, an
assertion, "LLVM ERROR", a stack dump), a compile over 90 s or an error
naming no file:line:col is a finding, written with its command line to
the log. The front end's mutation tests (test/fuzz) cover malformed
sources; this covers valid sources at values and options their authors
did not try, which reach the passes and the lowering.

  python3 scripts/codegen-fuzz.py [--tilec build/bin/tilec] [--seconds 600]
      [--seed N] [--log codegen-fuzz.log] [--sources FILE.tile ...]

--sources compiles those files instead (kernels a change is about).

Prints the compiles run, how many reached PTX, and the findings.
"""
import argparse
import glob
import os
import random
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONST = re.compile(r"(\w+)\s*:\s*const\s+(int|bool|dtype)\s*=\s*([\w.]+)")
KERNEL = re.compile(r"^kernel\s+(\w+)", re.M)
CRASH = ("Assertion", "LLVM ERROR", "Stack dump", "PLEASE submit",
         "UNREACHABLE", "Segmentation", "terminate called")
INTS = [1, 2, 3, 4, 8, 16, 24, 32, 40, 48, 64, 80, 96, 128, 152, 192, 256,
        512]
OPTIONS = [lambda: ["--num-warps=%d" % random.choice([1, 2, 4, 8, 16])],
           lambda: ["--num-stages=%d" % random.randint(1, 6)],
           lambda: ["--warp-specialize"], lambda: ["--persistent"],
           lambda: ["--cluster=2"],
           lambda: ["--occupancy=%d" % random.randint(1, 4)],
           lambda: ["--auto-schedule"], lambda: ["--no-loop-split"]]


def command(tilec, path, out):
    """A random compile of one kernel of `path`: its own constants only."""
    src = open(path).read()
    names = KERNEL.findall(src)
    if not names:
        return None
    name = random.choice(names)
    start = src.index("kernel " + name + "(")
    signature = src[start:src.index("):", start)]
    args = [tilec, "--emit=ptx", "--ptxas-check=false", "--kernel=" + name,
            "--arch=" + random.choice(["sm_90a", "sm_90a", "sm_90", "sm_80"])]
    for const, kind, default in CONST.findall(signature):
        if random.random() < 0.35:
            # A dtype from its default's family: integer kernels compute
            # with // % << (which floats refuse).
            ints = default in ("i8", "i32", "i64", "int8", "int32", "int64")
            dtypes = ["i8", "i32", "i64"] if ints else ["f16", "bf16", "f32"]
            value = {"int": lambda: random.choice(INTS),
                     "bool": lambda: random.choice(["true", "false"]),
                     "dtype": lambda: random.choice(dtypes)
                     }[kind]()
            args.append("-D%s=%s" % (const, value))
    for option in OPTIONS:
        if random.random() < 0.2:
            args += option()
    return args + [path, "-o", out]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin",
                                                   "tilec"))
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--seed", type=int, default=53)
    p.add_argument("--log", default="codegen-fuzz.log")
    p.add_argument("--sources", nargs="*", default=None)
    args = p.parse_args()
    random.seed(args.seed)
    files = args.sources or sorted(
        glob.glob(os.path.join(ROOT, "kernels", "*.tile")) +
        glob.glob(os.path.join(ROOT, "bench", "kernels", "*.tile")))
    env = dict(os.environ, TILEC_CACHE_DIR="off")
    runs = compiled = findings = 0
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp, open(args.log, "w") as log:
        out = os.path.join(tmp, "out.ptx")
        while time.time() - start < args.seconds:
            cmd = command(args.tilec, random.choice(files), out)
            if cmd is None:
                continue
            try:
                run = subprocess.run(cmd, capture_output=True, text=True,
                                     timeout=90, env=env)
                rc, err = run.returncode, run.stderr
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            runs += 1
            compiled += rc == 0
            crashed = rc == "timeout" or rc < 0 or rc >= 128 or any(
                c in err for c in CRASH)
            unlocated = rc == 1 and not re.search(
                r"(:\d+:\d+: error|\.tile: error|tilec: error)", err)
            if crashed or unlocated:
                findings += 1
                log.write("%s (%s): %s\n%s\n----\n" % (
                    "crash" if crashed else "unlocated error", rc,
                    " ".join(cmd), err[:2000]))
                log.flush()
    print("%d compiles, %d to PTX, %d findings (%s)" % (
        runs, compiled, findings, args.log))
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
