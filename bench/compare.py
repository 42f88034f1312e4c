#!/usr/bin/env python3
"""Joins the benchmarks' JSON lines into tables of TFLOPS and ratios.

  compare.py FILE.json... [--markdown out.md] [--json out.json]

Rows are told apart by "bench" (absent: attention, as older files wrote):

  attention        tilec (with its chosen config) vs torch-flash, torch-cudnn
                   and triton (bench/triton_attention.py, its chosen config)
  gemm             tilec vs cublas, and tilec's fraction of its mma.sync
                   ceiling (tilec-ceiling: same config; tilec-ceiling-max:
                   the fastest ceiling over the searched shapes)
  ablation-split   causal attention with loop splitting on and off
  ablation-stages  attention with 1, 2, 3, 4 pipeline stages and 0 (hints)
  attention-interleaved
                   tilec.attention (the API, its own tuning) vs cuDNN,
                   PyTorch flash and Triton (its searched config),
                   launches alternating in one process
  gemm-interleaved kernels/gemm.tile (tilec.autotune) vs cuBLAS, the same way

A section with no rows is left out. Missing inputs are skipped.
"""
import argparse
import json


def load(paths):
    rows = []
    for p in paths:
        try:
            with open(p) as f:
                for line in f:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError:
                        print(f"{p}: skipped a malformed line: {line[:80]}")
        except FileNotFoundError:
            pass
    return rows


def fmt(x):
    return f"{x:.1f}" if x else "-"


def ratio(a, b):
    return a / b if a and b else None


def fmt_ratio(r):
    return f"{r:.2f}" if r else "-"


def attention(rows):
    by_key = {}
    for r in rows:
        # Measurements only: bench-triton.json's rows (the Triton search's
        # chosen configs, read back by the next run) carry no figures.
        if r.get("bench", "attention") != "attention" or "tflops" not in r:
            continue
        key = (r["D"], r["causal"], r["N"], r["B"], r["H"])
        by_key.setdefault(key, {})[r["impl"]] = r
    lines = ["| D | N | causal | tilec TFLOPS | torch flash | cuDNN | Triton | "
             "tilec / flash | tilec / cuDNN | tilec / Triton | tilec config | "
             "Triton config |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    table = []
    for key in sorted(by_key, key=lambda k: (-k[0], not k[1], k[2])):
        D, causal, N, B, H = key
        impls = by_key[key]
        t = impls.get("tilec", {}).get("tflops")
        fl = impls.get("torch-flash", {}).get("tflops")
        cu = impls.get("torch-cudnn", {}).get("tflops")
        tr = impls.get("triton", {}).get("tflops")
        config = impls.get("tilec", {}).get("config")
        tr_config = impls.get("triton", {}).get("config")
        lines.append(f"| {D} | {N} | {'yes' if causal else 'no'} | {fmt(t)} | "
                     f"{fmt(fl)} | {fmt(cu)} | {fmt(tr)} | "
                     f"{fmt_ratio(ratio(t, fl))} | "
                     f"{fmt_ratio(ratio(t, cu))} | "
                     f"{fmt_ratio(ratio(t, tr))} | {config or '-'} | "
                     f"{tr_config or '-'} |")
        table.append({"B": B, "H": H, "N": N, "D": D, "causal": causal,
                      "tilec": t, "torch_flash": fl, "torch_cudnn": cu,
                      "triton": tr,
                      "tilec_over_flash": ratio(t, fl),
                      "tilec_over_cudnn": ratio(t, cu),
                      "tilec_over_triton": ratio(t, tr),
                      "tilec_config": config, "triton_config": tr_config})
    return lines, table


def gemm(rows):
    by_key = {}
    for r in rows:
        if r.get("bench") != "gemm":
            continue
        key = (r["M"], r["N"], r["K"], r.get("dtype", "f16"))
        by_key.setdefault(key, {})[r["impl"]] = r
    lines = ["| M = N = K | dtype | tilec TFLOPS | cuBLAS | tilec / cuBLAS | "
             "mma.sync ceiling (same config) | tilec / ceiling | "
             "best ceiling | tilec / best ceiling | tilec config |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    table = []
    for key in sorted(by_key):
        M, N, K, dtype = key
        impls = by_key[key]
        t = impls.get("tilec", {}).get("tflops")
        cb = impls.get("cublas", {}).get("tflops")
        ceil = impls.get("tilec-ceiling", {}).get("tflops")
        top = impls.get("tilec-ceiling-max", {}).get("tflops")
        config = impls.get("tilec", {}).get("config")
        size = str(M) if M == N == K else f"{M}x{N}x{K}"
        lines.append(f"| {size} | {dtype} | {fmt(t)} | {fmt(cb)} | "
                     f"{fmt_ratio(ratio(t, cb))} | {fmt(ceil)} | "
                     f"{fmt_ratio(ratio(t, ceil))} | {fmt(top)} | "
                     f"{fmt_ratio(ratio(t, top))} | {config or '-'} |")
        table.append({"M": M, "N": N, "K": K, "dtype": dtype, "tilec": t,
                      "cublas": cb, "tilec_over_cublas": ratio(t, cb),
                      "ceiling": ceil, "tilec_over_ceiling": ratio(t, ceil),
                      "ceiling_max": top,
                      "ceiling_max_config":
                          impls.get("tilec-ceiling-max", {}).get("config"),
                      "tilec_over_ceiling_max": ratio(t, top),
                      "tilec_config": config})
    return lines, table


def split_ablation(rows):
    by_key = {}
    for r in rows:
        if r.get("bench") != "ablation-split":
            continue
        key = (r["D"], r["causal"], r["N"], r["B"], r["H"])
        by_key.setdefault(key, {})[r["variant"]] = r
    lines = ["| D | N | causal | split TFLOPS | no split | split / no split | "
             "config | same code |",
             "|---|---|---|---|---|---|---|---|"]
    table = []
    for key in sorted(by_key, key=lambda k: (-k[0], not k[1], k[2])):
        D, causal, N, B, H = key
        v = by_key[key]
        on = v.get("split", {}).get("tflops")
        off = v.get("nosplit", {}).get("tflops")
        config = v.get("split", v.get("nosplit", {})).get("config", "-")
        same = v.get("nosplit", {}).get("same_code")
        lines.append(f"| {D} | {N} | {'yes' if causal else 'no'} | {fmt(on)} | "
                     f"{fmt(off)} | {fmt_ratio(ratio(on, off))} | {config} | "
                     f"{'yes' if same else 'no' if same is not None else '-'} |")
        table.append({"B": B, "H": H, "N": N, "D": D, "causal": causal,
                      "split": on, "nosplit": off,
                      "split_over_nosplit": ratio(on, off), "config": config,
                      "same_code": same})
    return lines, table


def stages_ablation(rows):
    by_key = {}
    for r in rows:
        if r.get("bench") != "ablation-stages":
            continue
        key = (r["D"], r["causal"], r["N"], r["B"], r["H"])
        by_key.setdefault(key, {})[r["stages"]] = r
    order = [1, 2, 3, 4, 0]
    names = {0: "0 (hints)"}
    lines = ["| D | N | causal | " +
             " | ".join(f"stages {names.get(s, s)}" for s in order) +
             " | best | best / 1 stage | tile |",
             "|---|---|---|" + "---|" * len(order) + "---|---|---|"]
    table = []
    for key in sorted(by_key, key=lambda k: (-k[0], not k[1], k[2])):
        D, causal, N, B, H = key
        v = by_key[key]
        cells = []
        for s in order:
            r = v.get(s)
            if not r:
                cells.append("-")
                continue
            same = r.get("same_code_as")
            cells.append(fmt(r["tflops"]) + (f" (= {same})" if same else ""))
        ran = {s: r["tflops"] for s, r in v.items() if r.get("tflops")}
        best = max(ran, key=ran.get) if ran else None
        config = next(iter(v.values())).get("config", "-")
        tile = ",".join(f for f in config.split(",")
                        if not f.startswith("stages="))
        lines.append(f"| {D} | {N} | {'yes' if causal else 'no'} | " +
                     " | ".join(cells) +
                     f" | {names.get(best, best) if best is not None else '-'}"
                     f" | {fmt_ratio(ratio(ran.get(best), ran.get(1)))}"
                     f" | {tile} |")
        table.append({"B": B, "H": H, "N": N, "D": D, "causal": causal,
                      "tflops_by_stages": {str(s): ran.get(s) for s in order},
                      "same_code_as": {str(s): v[s].get("same_code_as")
                                       for s in v},
                      "best_stages": best, "tile": tile})
    return lines, table


def interleaved(rows):
    by_key = {}
    for r in rows:
        if r.get("bench") != "attention-interleaved":
            continue
        key = (r["D"], r["causal"], r["N"], r["B"], r["H"])
        by_key.setdefault(key, {})[r["impl"]] = r
    lines = ["| D | N | causal | tilec.attention TFLOPS | cuDNN | torch flash | "
             "Triton | tilec / cuDNN | tilec / flash | tilec / Triton |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    table = []
    for (D, causal, N, B, H) in sorted(by_key, key=lambda k: (-k[0], not k[1],
                                                             k[2])):
        v = by_key[(D, causal, N, B, H)]
        t = v.get("tilec-api", {}).get("tflops")
        c = v.get("cudnn", {}).get("tflops")
        f = v.get("flash", {}).get("tflops")
        tr = v.get("triton", {}).get("tflops")
        lines.append(f"| {D} | {N} | {'yes' if causal else 'no'} | {fmt(t)} | "
                     f"{fmt(c)} | {fmt(f)} | {fmt(tr)} | "
                     f"{fmt_ratio(ratio(t, c))} | {fmt_ratio(ratio(t, f))} | "
                     f"{fmt_ratio(ratio(t, tr))} |")
        table.append({"B": B, "H": H, "N": N, "D": D, "causal": causal,
                      "tilec": t, "cudnn": c, "flash": f, "triton": tr,
                      "tilec_over_cudnn": ratio(t, c),
                      "tilec_over_flash": ratio(t, f),
                      "tilec_over_triton": ratio(t, tr)})
    return lines, table


def gemm_interleaved(rows):
    by_size = {}
    for r in rows:
        if r.get("bench") != "gemm-interleaved":
            continue
        by_size.setdefault((r["M"], r["N"], r["K"]), {})[r["impl"]] = r
    lines = ["| M = N = K | tilec TFLOPS | cuBLAS | tilec / cuBLAS | "
             "tilec config |", "|---|---|---|---|---|"]
    table = []
    for (M, N, K) in sorted(by_size):
        v = by_size[(M, N, K)]
        t = v.get("tilec", {}).get("tflops")
        c = v.get("cublas", {}).get("tflops")
        config = v.get("tilec", {}).get("config", "-")
        lines.append(f"| {M} | {fmt(t)} | {fmt(c)} | "
                     f"{fmt_ratio(ratio(t, c))} | {config} |")
        table.append({"M": M, "N": N, "K": K, "tilec": t, "cublas": c,
                      "tilec_over_cublas": ratio(t, c), "config": config})
    return lines, table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = load(args.inputs)
    sections = [
        ("attention", "Flash attention forward, TFLOPS (B=4, H=32, fp16)",
         attention),
        ("attention_interleaved",
         "Flash attention forward through tilec.attention, launches "
         "interleaved with cuDNN and PyTorch flash in one process, TFLOPS",
         interleaved),
        ("gemm", "GEMM fp16 (f32 accumulation), TFLOPS", gemm),
        ("gemm_interleaved",
         "GEMM fp16 through tilec.autotune, launches interleaved with cuBLAS "
         "in one process, TFLOPS", gemm_interleaved),
        ("ablation_split",
         "Loop-split ablation: causal attention, best config, split on/off "
         "(same run)", split_ablation),
        ("ablation_stages",
         "Pipelining ablation: attention TFLOPS by pipeline stages (same run)",
         stages_ablation),
    ]
    text = []
    tables = {}
    for name, title, build in sections:
        lines, table = build(rows)
        if not table:
            continue
        text += [f"### {title}", ""] + lines + [""]
        tables[name] = table
    text = "\n".join(text)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(tables, f, indent=1)


if __name__ == "__main__":
    main()
