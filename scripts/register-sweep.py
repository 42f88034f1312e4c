#!/usr/bin/env python3
"""Registers, spills and serialized wgmma (ptxas's C75xx) of the attention
API's tuning candidates, of tilec.autograd's backward kernels, of the 8-bit
attention kernels tilec.attention compiles, of tilec.ops' own candidates
(skinny linears, norm and softmax row loops), and of every kernel of kernels/,
compiled by two tilec builds, side by side: a compile-only check, run here
(no GPU), that a compiler change does not cost a kernel a block of occupancy
or its wgmma overlap where its PTX diff looks harmless.

  python3 scripts/register-sweep.py BASE_TILEC [NEW_TILEC]
      [--arch sm_90a] [--only attention|backward|fp8|ops|kernels] [--all]
      [--ptx]
  python3 scripts/register-sweep.py --list [--only ...]   # what it compiles

BASE_TILEC is a tilec binary of the revision to compare against (build one
with `git worktree add /tmp/base REV && (cd /tmp/base && bash
scripts/build.sh)`), NEW_TILEC defaults to build/bin/tilec. The attention
candidates are read from lib/Ops/Attention/Attention.cpp's
candidateConfigs (head dims 64, 128, 256; causal ones both with the masked
key tiles split off and in the loop), f16, 16-byte-even keys. Prints the
rows that differ (--all: every row) and a summary; exits 1 where the new
build adds a C75xx, spills more or fits fewer warps a multiprocessor (by
registers: 64K of them, allocated per thread in multiples of 8; at most 32
blocks and 64 warps: a kernel whose block the compiler's choice made
larger is compared by the warps it keeps resident, not its blocks).

Why: 2026-12-01 a pass change (a guard on loops left with multiplies in
flight) made flash_attention.tile at head dim 64, 64 x 128, take 172
registers a thread instead of 162: two blocks of 128 threads where three
fit, 12-14% of its speed, unseen in the PTX corpus (every kernel compiled,
none compared by registers) for two days
(bench/results/2026-12-01-h200-backward-rs.md).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
FLAGS = {"num_warps": "--num-warps=", "num_stages": "--num-stages=",
         "tile_stages": "--tile-stages="}


def attention_candidates():
    """{head dim: [candidate text]} from candidateConfigs."""
    path = os.path.join(ROOT, "lib", "Ops", "Attention", "Attention.cpp")
    text = open(path).read()
    start = text.index("candidateConfigs(int tileD) {")
    body = text[start:text.index("\n}\n", start)]
    groups = re.split(r"\breturn\b", body)[1:]
    out = []
    for group in groups:
        literals = re.findall(r'"((?:[^"\\]|\\.)*)"\s*(,|}|\n)', group)
        configs, current = [], ""
        for literal, end in literals:
            current += literal
            if end in (",", "}"):
                configs.append(current)
                current = ""
        if current:
            configs.append(current)
        out.append(configs)
    if len(out) != 3:
        sys.exit(f"register-sweep: expected three candidate lists in "
                 f"{path}, found {len(out)}")
    # (tileD > 128, tileD <= 64, else)
    return {256: out[0], 64: out[1], 128: out[2]}


def candidate_options(config):
    options = []
    for item in config.split(","):
        key, value = item.split("=")
        if key.isupper():
            options.append(f"-D{key}={value}")
        elif key in FLAGS:
            options.append(FLAGS[key] + value)
        elif value == "on":
            options.append("--" + key.replace("_", "-"))
        else:
            options.append(f"--{key.replace('_', '-')}={value}")
    return options


def jobs(only):
    """(label, source, options) to compile."""
    out = []
    if only in (None, "attention"):
        source = os.path.join(ROOT, "kernels", "flash_attention.tile")
        for d, configs in attention_candidates().items():
            for config in configs:
                for causal in (False, True):
                    for split in ((True,) if not causal else (True, False)):
                        options = ["--kernel=fmha", f"-DTILE_D={d}", "-DDTYPE=f16",
                                   f"-DCAUSAL={causal}", "-DEVEN_K=True"]
                        options += candidate_options(config)
                        if not split:
                            options.append("--no-loop-split")
                        label = (f"fmha D={d} {'causal' if causal else 'full'}"
                                 f"{'' if split else ' unsplit'} {config}")
                        out.append((label, source, options))
    if only in (None, "backward"):
        # tilec.autograd's backward kernels (python/tilec/autograd.py's
        # _backward_kernels): at head dims 64 and 128 with dQ by atomics,
        # 128 keys on 8 warps (128 queries a trip at 64, 64 at 128); at
        # every head dim without them, the 64 x 64 dK/dV kernel and the dQ
        # kernel (on 8 warps at 256); bf16 as a model trains, keys filling
        # whole tiles (EVEN_N), attn_bwd's LSE in log2 units; at 64 the
        # atomics kernel's dQ copied out a trip later (defer_loop_stores).
        source = os.path.join(ROOT, "kernels", "flash_attention_bwd.tile")
        for d in (64, 96, 128, 256):
            for causal in (False, True):
                common = [f"-DD={d}", "-DDTYPE=bf16", f"-DCAUSAL={causal}",
                          "-DEVEN_N=True"]
                tile_m = 128 if d == 64 else 64
                warps = ["--num-warps=8"] if d == 256 else []
                atomics = [] if d not in (64, 128) else [
                    ("attn_bwd", [f"-DTILE_M={tile_m}", "-DTILE_N=128",
                                  "-DDQ_ATOMIC=True", "-DLSE_LOG2=True",
                                  "--num-warps=8"] +
                     (["--defer-loop-stores=true"] if d == 64 else []))]
                for kernel, options in atomics + [
                        ("attn_bwd", ["-DTILE_M=64", "-DTILE_N=64",
                                      "-DLSE_LOG2=True"] + warps),
                        ("attn_bwd_dq",
                         ["-DTILE_M=64", "-DTILE_N=64"] + warps)]:
                    label = (f"{kernel} D={d} "
                             f"{'causal' if causal else 'full'} "
                             f"{' '.join(options)}")
                    out.append((label, source,
                                [f"--kernel={kernel}"] + common + options))
    if only in (None, "fp8"):
        # tilec.attention on 8-bit tensors (python/tilec/fp8.py): 128 x 128
        # tiles at every head dim, the rest the compiler's choice; with and
        # without block descales, causal and not.
        source = os.path.join(ROOT, "kernels", "attention_fp8.tile")
        for d in (64, 128, 256):
            for causal in (False, True):
                for blocks in (False, True):
                    options = [f"-DTILE_D={d}", "-DTILE_M=128", "-DTILE_N=128",
                               f"-DCAUSAL={causal}", f"-DBLOCK_SCALES={blocks}"]
                    label = (f"attention_fp8 D={d} "
                             f"{'causal' if causal else 'full'}"
                             f"{' block scales' if blocks else ''}")
                    out.append((label, source,
                                ["--kernel=attention_fp8"] + options))
    if only in (None, "ops"):
        out += ops_jobs()
    if only in (None, "kernels"):
        kernels = os.path.join(ROOT, "kernels")
        for name in sorted(os.listdir(kernels)):
            if not name.endswith(".tile"):
                continue
            source = os.path.join(kernels, name)
            text = open(source).read()
            for kernel in re.findall(r"^kernel (\w+)", text, re.M):
                variants = [[], ["--num-warps=8"]]
                if re.search(r"\bCAUSAL\b", text):
                    variants.append(["-DCAUSAL=True"])
                for options in variants:
                    out.append((f"{name} {kernel} {' '.join(options)}".strip(),
                                source, [f"--kernel={kernel}"] + options))
    return out


def config_options(config):
    """tilec's command-line form of a tilec.Config."""
    options = [f"-D{k}={v}" for k, v in config.constants.items()]
    for key, value in config.options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            options.append(flag)
        elif value is False:
            options.append(f"{flag}=false")
        elif value is not None:
            options.append(f"{flag}={value}")
    return options


def ops_jobs():
    """tilec.ops' candidates where it chooses among kernels' variants of its
    own (python/tilec/ops.py, imported: it needs libtile, build/lib's): the
    skinny linear's (64-row tiles with K split, and at most 32 rows the
    product swapped), the norms' row loops and the softmax clusters' row
    loops, at sizes at the edges of the ranges they are tried in; bf16 (and
    f16, f32 where their limits differ), bias and silu."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TILEC_LIBRARY", os.path.join(
        ROOT, "build", "lib", "libtile.so"))
    from tilec import ops
    out = []
    linear = os.path.join(ROOT, "kernels", "linear.tile")
    for m, n, k in ((16, 4096, 4096), (32, 4096, 4096), (64, 4096, 4096),
                    (128, 8192, 8192)):
        for config in ops._linear_split_configs(m, n, k, 132, clusters=True):
            options = ["--kernel=linear", "-DDTYPE=bf16", "-DHAS_BIAS=True",
                       "-DACT=3"] + config_options(config)
            out.append((f"ops.linear {m}x{n}x{k} {config}", linear, options))
    norms = os.path.join(ROOT, "kernels", "norms.tile")
    for kind, dtype, n, warps in (
            ("layernorm", "bf16", 12288, 4), ("layernorm", "bf16", 24576, 16),
            ("layernorm", "f16", 16384, 16), ("layernorm", "f32", 12288, 4),
            ("rmsnorm", "bf16", 32768, 16), ("rmsnorm", "f16", 24576, 16)):
        for config in ops._row_loop_configs(kind, dtype, n, n, warps)[1:]:
            options = [f"--kernel={kind}", f"-DDTYPE={dtype}", f"-DTILE_N={n}"]
            if kind == "layernorm":
                options += ["-DEVEN=True"] + (
                    ["-DSHIFT=32"] if dtype == "f32" else [])
            options += config_options(config)
            out.append((f"ops.{kind} {dtype} {n} {config}", norms, options))
    # The 8-bit attention schedules tilec.attention tunes over at head_dim
    # 128 (fp8._candidates), V copied (fragment order) and in place.
    from tilec import fp8
    attention_fp8 = os.path.join(ROOT, "kernels", "attention_fp8.tile")
    for causal in (False, True):
        for fragment in (False, True):
            for config in fp8._candidates(128, causal, 4096 + 100,
                                          fragment):
                options = ["--kernel=attention_fp8", "-DTILE_D=128",
                           "-DTILE_M=128", f"-DCAUSAL={causal}",
                           f"-DFRAGMENT_ORDER={fragment}"] + \
                    config_options(config)
                out.append((f"fp8 candidate causal={causal} "
                            f"fragment={fragment} {config}", attention_fp8,
                            options))
    # bmm's candidates in clusters (ops._cluster_pairs of its @tune tiles).
    bmm = os.path.join(ROOT, "kernels", "bmm.tile")
    for config in ops._cluster_pairs([(64, 128), (64, 256), (128, 128),
                                      (128, 256)]):
        out.append((f"ops.bmm {config}", bmm,
                    ["--kernel=bmm", "-DDTYPE=bf16"] +
                    config_options(config)))
    softmax = os.path.join(ROOT, "kernels", "softmax_cluster.tile")
    for dtype in ("bf16", "f32"):
        for parts, tile_n in ((8, 4104), (8, 8192), (16, 8192)):
            options = ["--kernel=softmax_cluster", f"-DDTYPE={dtype}",
                       f"-DCLUSTER={parts}", f"-DTILE_N={tile_n}",
                       "-DROW_LOOP=True", "--num-warps=4"]
            out.append((f"ops.softmax_cluster {dtype} {parts} x {tile_n} "
                        f"row loop", softmax, options))
    return out


def measure(tilec, arch, source, options, ptx, texts=None):
    """(registers, spill bytes, sorted C75xx codes, threads) or None; with
    `texts` (a list), the PTX's text appended to it."""
    env = dict(os.environ, TILEC_CACHE_DIR="off")
    done = subprocess.run([tilec, f"--arch={arch}", "--emit=ptx",
                           "--ptxas-check=false", *options, source, "-o",
                           ptx], capture_output=True, text=True, env=env)
    if done.returncode:
        return None
    text = open(ptx).read()
    if texts is not None:
        texts.append(text)
    threads = re.search(r"\.maxntid (\d+)", text)
    threads = int(threads.group(1)) if threads else 128
    report = subprocess.run([PTXAS, f"-arch={arch}", "-v", ptx, "-o",
                             os.devnull], capture_output=True, text=True)
    log = report.stdout + report.stderr
    registers = re.search(r"Used (\d+) registers", log)
    spills = re.search(r"(\d+) bytes spill stores", log)
    return (int(registers.group(1)) if registers else 0,
            int(spills.group(1)) if spills else 0,
            tuple(sorted(set(re.findall(r"C75\d\d", log)))), threads)


def blocks(registers, threads):
    per_thread = max(8, (registers + 7) // 8 * 8)
    return min(65536 // (per_thread * threads), 32, 2048 // threads)


def resident_warps(result):
    """Warps a multiprocessor holds of the kernel, by its registers: what a
    change of block size (the compiler's choice of warps) is compared by."""
    registers, _, _, threads = result
    return blocks(registers, threads) * threads // 32


def show(result):
    if result is None:
        return "does not compile"
    registers, spills, codes, threads = result
    text = (f"{registers} regs ({blocks(registers, threads)} blocks of "
            f"{threads // 32} warps)")
    if spills:
        text += f", {spills} B spilled"
    if codes:
        text += ", " + ",".join(codes)
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", nargs="?")
    p.add_argument("new", nargs="?",
                   default=os.path.join(ROOT, "build", "bin", "tilec"))
    p.add_argument("--arch", default="sm_90a")
    p.add_argument("--only", choices=("attention", "backward", "fp8",
                                      "ops", "kernels"))
    p.add_argument("--all", action="store_true")
    p.add_argument("--ptx", action="store_true",
                   help="also name the kernels whose PTX differs where "
                   "their registers do not (a change meant to leave them "
                   "alone)")
    p.add_argument("--list", action="store_true",
                   help="print the kernels and options it would compile")
    args = p.parse_args()
    if args.list:
        for label, source, options in jobs(args.only):
            print(f"{label}: {os.path.relpath(source, ROOT)} "
                  f"{' '.join(options)}")
        return 0
    if not args.base:
        p.error("the base tilec is required (or --list)")
    worse = same = differ = texts_differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "k.ptx")
        for label, source, options in jobs(args.only):
            texts = [] if args.ptx else None
            a = measure(args.base, args.arch, source, options, ptx, texts)
            b = measure(args.new, args.arch, source, options, ptx, texts)
            if a == b:
                same += 1
                if texts is not None and len(texts) == 2 and \
                        texts[0] != texts[1]:
                    texts_differ += 1
                    print(f"{label}: {show(b)}, PTX differs", flush=True)
                elif args.all:
                    print(f"{label}: {show(b)}")
                continue
            differ += 1
            regress = a is not None and b is not None and (
                set(b[2]) - set(a[2]) or b[1] > a[1] or
                resident_warps(b) < resident_warps(a))
            worse += bool(regress)
            print(f"{label}: {show(a)} -> {show(b)}"
                  f"{'  WORSE' if regress else ''}", flush=True)
    print(f"{same + differ} compiled: {same} alike, {differ} differ, "
          f"{worse} worse (a new C75xx, more spills or fewer warps a "
          "multiprocessor)" +
          (f"; {texts_differ} alike with PTX that differs" if args.ptx
           else ""))
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
