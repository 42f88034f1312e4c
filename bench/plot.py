#!/usr/bin/env python3
"""Draws the attention benchmark: TFLOP/s against N, one line per
implementation (tilec, cuDNN, PyTorch flash, Triton: whatever the inputs
hold), one panel per head dim and mask.

  plot.py FILE.json... --png out.png [--title TEXT]

Inputs are the benchmarks' JSON lines (bench-tilec.json, bench-torch.json,
a Triton benchmark's lines: {"impl": ..., "N": ..., "D": ..., "causal": ...,
"tflops": ...}, "bench" absent or "attention") or compare.py's --json
output ({"attention": [{"N", "D", "causal", "tilec", "torch_flash", ...}]}).
Missing files are skipped. Needs matplotlib.
"""
import argparse
import json
import sys

# Display names and a fixed order; others follow, sorted.
NAMES = {
    "tilec": "tilec",
    "torch-cudnn": "cuDNN (PyTorch SDPA)",
    "torch_cudnn": "cuDNN (PyTorch SDPA)",
    "torch-flash": "PyTorch flash (FA2)",
    "torch_flash": "PyTorch flash (FA2)",
    "triton": "Triton",
}
ORDER = ["tilec", "cuDNN (PyTorch SDPA)", "PyTorch flash (FA2)", "Triton"]
# compare.py's table columns that are not implementations.
NOT_IMPLS = {"B", "H", "N", "D", "causal", "tilec_config"}


def points(paths):
    """{(D, causal): {impl: {N: tflops}}}"""
    out = {}

    def add(impl, d, causal, n, tflops):
        if tflops:
            name = NAMES.get(impl, impl)
            out.setdefault((d, bool(causal)), {}).setdefault(name, {})[n] = \
                float(tflops)

    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            continue
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict) and "attention" in whole:
            for row in whole["attention"]:
                for key, value in row.items():
                    if key in NOT_IMPLS or key.endswith("_over_flash") or \
                            "_over_" in key or not isinstance(value,
                                                              (int, float)):
                        continue
                    add(key, row["D"], row["causal"], row["N"], value)
            continue
        for line in text.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("bench", "attention") != "attention":
                continue
            if {"impl", "N", "D", "causal", "tflops"} <= row.keys():
                add(row["impl"], row["D"], row["causal"], row["N"],
                    row["tflops"])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--png", required=True)
    parser.add_argument("--title", default="flash attention forward, fp16")
    args = parser.parse_args()
    data = points(args.inputs)
    if not data:
        print("plot.py: no attention rows in the inputs", file=sys.stderr)
        return 1
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = sorted({d for d, _ in data}, reverse=True)
    masks = sorted({c for _, c in data})
    fig, axes = plt.subplots(len(dims), len(masks), squeeze=False,
                             figsize=(5.5 * len(masks), 3.8 * len(dims)),
                             sharey=True)
    impls = sorted({i for panel in data.values() for i in panel},
                   key=lambda i: (ORDER.index(i) if i in ORDER else 99, i))
    markers = dict(zip(impls, "osD^vP*X"))
    for r, d in enumerate(dims):
        for c, causal in enumerate(masks):
            ax = axes[r][c]
            panel = data.get((d, causal), {})
            for impl in impls:
                series = panel.get(impl)
                if not series:
                    continue
                ns = sorted(series)
                ax.plot(ns, [series[n] for n in ns], marker=markers[impl],
                        label=impl, linewidth=2 if impl == "tilec" else 1.2)
            ax.set_xscale("log", base=2)
            ns = sorted({n for s in panel.values() for n in s})
            ax.set_xticks(ns)
            ax.set_xticklabels([f"{n // 1024}k" if n >= 1024 else str(n)
                                for n in ns])
            ax.set_title(f"head dim {d}, {'causal' if causal else 'no mask'}")
            ax.set_xlabel("sequence length N")
            if c == 0:
                ax.set_ylabel("TFLOP/s")
            ax.grid(True, alpha=0.3)
            ax.set_ylim(bottom=0)
    handles, labels = [], []
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="lower center", ncol=len(labels),
               frameon=False)
    fig.suptitle(args.title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(args.png, dpi=110)
    print(f"plot.py: wrote {args.png} ({len(data)} panels, "
          f"{', '.join(impls)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
