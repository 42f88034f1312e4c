#!/usr/bin/env python3
"""Joins the benchmark's JSON lines into one table of TFLOPS and ratios.

  compare.py bench-tilec.json bench-torch.json [--markdown out.md]
             [--json out.json]
"""
import argparse
import json


def load(paths):
    rows = []
    for p in paths:
        try:
            with open(p) as f:
                rows += [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            pass
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = load(args.inputs)
    by_key = {}
    for r in rows:
        key = (r["D"], r["causal"], r["N"], r["B"], r["H"])
        by_key.setdefault(key, {})[r["impl"]] = r
    lines = ["| D | N | causal | tilec TFLOPS | torch flash | cuDNN | "
             "tilec / flash | tilec / cuDNN | tilec config |",
             "|---|---|---|---|---|---|---|---|---|"]
    table = []
    for key in sorted(by_key, key=lambda k: (-k[0], not k[1], k[2])):
        D, causal, N, B, H = key
        impls = by_key[key]
        t = impls.get("tilec", {}).get("tflops")
        fl = impls.get("torch-flash", {}).get("tflops")
        cu = impls.get("torch-cudnn", {}).get("tflops")
        ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
        fmt = lambda x: f"{x:.1f}" if x else "-"
        lines.append(f"| {D} | {N} | {'yes' if causal else 'no'} | {fmt(t)} | "
                     f"{fmt(fl)} | {fmt(cu)} | {ratio(t, fl)} | {ratio(t, cu)} | "
                     f"{impls.get('tilec', {}).get('config', '-')} |")
        table.append({"B": B, "H": H, "N": N, "D": D, "causal": causal,
                      "tilec": t, "torch_flash": fl, "torch_cudnn": cu,
                      "tilec_over_flash": t / fl if t and fl else None,
                      "tilec_over_cudnn": t / cu if t and cu else None,
                      "tilec_config": impls.get("tilec", {}).get("config")})
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
