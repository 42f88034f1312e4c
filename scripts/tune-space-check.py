#!/usr/bin/env python3
"""Compiles every kernel of kernels/ under every schedule the autotuner
tries (tile_schedule_variants: the compiler's choice, rings, persistent,
consumer groups, ...), at the first and the last of its @tune combinations,
for sm_90a and sm_80, and has ptxas compile what tilec wrote (tilec's own
check, where ptxas is on the machine). A candidate may be refused, with a
located error; what tilec accepts, ptxas must accept: a tuning candidate
whose PTX the driver refuses at load is a compiler bug (two consumer
groups of 128 x 256 tiles compiled to PTX ptxas refused, C7602, 2026-12-05).

  python3 scripts/tune-space-check.py [TILEC] [--kernels a.tile,b.tile]
      [--jobs N]

Exit status 1 on a crash, an unlocated error, or PTX that ptxas refused;
prints a line for each, then a summary; 77 (ctest's skip) without ptxas. TILEC defaults to build/bin/tilec;
the schedules come from its libtile (TILEC_LIBRARY, else the build's)."""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schedules(library):
    os.environ.setdefault("TILEC_LIBRARY", library)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from tilec import _capi
    return _capi.lib().tile_schedule_variants(None).decode().split(";")


def flags(variant):
    """tilec's flags for an option text ("persistent=on,num_stages=2")."""
    out = []
    for item in filter(None, variant.split(",")):
        name, value = item.split("=", 1)
        value = {"on": "true", "off": "false"}.get(value, value)
        out.append(f"--{name.replace('_', '-')}={value}")
    return out


def compile_one(tilec, index, arch, path, kernel, constants, options, tmp):
    """(rc, stderr, argv) of one compile to PTX, ptxas's check on."""
    args = [tilec, f"--arch={arch}", "--emit=ptx", f"--kernel={kernel}",
            *[f"-D{k}={v}" for k, v in constants], *options, path,
            "-o", os.path.join(tmp, f"k{index}.ptx")]
    env = dict(os.environ, TILEC_CACHE_DIR="off")
    done = subprocess.run(args, capture_output=True, text=True, env=env,
                          timeout=600)
    return done.returncode, done.stderr, args


def tune_combos(tilec, arch, path, kernel, tmp):
    """The first and the last of the kernel's @tune combinations (one, with
    none), from its PTX description."""
    out = os.path.join(tmp, f"d{os.getpid()}.ptx")
    done = subprocess.run([tilec, f"--arch={arch}", "--emit=ptx",
                           "--ptxas-check=false", f"--kernel={kernel}", path,
                           "-o", out], capture_output=True, text=True)
    if done.returncode:
        return None
    with open(out) as f:
        info = json.loads(f.readline().split(":", 1)[1])
    tune = info.get("tune", [])
    if not tune:
        return [[]]
    first = [(name, values[0]) for name, values in tune]
    last = [(name, values[-1]) for name, values in tune]
    return [first] if first == last else [first, last]


def verdict(rc, err):
    """'ok', 'refused' (a located error) or what went wrong."""
    if rc == 0:
        if "did not compile the PTX" in err:
            return "ptxas refused the PTX: " + err.strip().splitlines()[-1]
        return "ok"
    if rc < 0 or "Stack dump" in err or "PLEASE submit" in err:
        return f"crashed (rc {rc})"
    if re.search(r"^\S+:\d+:\d+: error: ", err, re.M) or \
            re.search(r"^\S+\.tile: error: ", err, re.M):
        return "refused"
    return "unlocated error: " + (err.strip().splitlines() or [""])[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tilec", nargs="?",
                   default=os.path.join(ROOT, "build", "bin", "tilec"))
    p.add_argument("--kernels", help="comma-separated kernels/ files")
    p.add_argument("--archs", default="sm_90a,sm_80")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    ptxas = os.environ.get("TILEC_PTXAS")
    if ptxas in ("off", "0", "") or (ptxas is None and not any(
            os.access(os.path.join(d, "ptxas"), os.X_OK)
            for d in os.environ.get("PATH", "").split(os.pathsep) +
            ["/usr/local/cuda/bin"])):
        print("no ptxas (the CUDA toolkit's): nothing to check against")
        return 77
    library = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(args.tilec))), "lib", "libtile.so")
    variants = schedules(library)
    files = sorted(glob.glob(os.path.join(ROOT, "kernels", "*.tile")))
    if args.kernels:
        wanted = set(args.kernels.split(","))
        files = [f for f in files if os.path.basename(f) in wanted]
    jobs = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            with open(path) as f:
                names = re.findall(r"^kernel\s+(\w+)", f.read(), re.M)
            for kernel in names:
                for arch in args.archs.split(","):
                    combos = tune_combos(args.tilec, arch, path, kernel, tmp)
                    if combos is None:
                        continue  # not for this target (said elsewhere)
                    for constants in combos:
                        for variant in variants:
                            jobs.append((arch, path, kernel, constants,
                                         flags(variant)))
        counts, bad = {}, []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = pool.map(
                lambda ij: compile_one(args.tilec, ij[0], *ij[1], tmp),
                enumerate(jobs))
            for job, (rc, err, argv) in zip(jobs, results):
                v = verdict(rc, err)
                key = v if v in ("ok", "refused") else "bad"
                counts[key] = counts.get(key, 0) + 1
                if key == "bad":
                    bad.append(f"{v}\n  {' '.join(argv)}")
    for line in bad:
        print(line)
    print(f"{len(jobs)} compiles: {counts.get('ok', 0)} compiled and "
          f"accepted by ptxas, {counts.get('refused', 0)} refused with a "
          f"located error, {counts.get('bad', 0)} bad")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
