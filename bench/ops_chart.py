#!/usr/bin/env python3
"""Draws bench/ops.py's results as one chart: a bar per op, shape and dtype,
its length the ratio of PyTorch's time to tilec's (right of the 1.0 line:
tilec faster), its label with the fraction of the device copy's bandwidth
for the memory-bound ops and TFLOP/s for the multiplies.

  python3 bench/ops_chart.py RESULTS.json... -o chart.svg [--title TEXT]

Writes SVG with no library beyond Python's own (the machines that run the
benchmark have no matplotlib). Rows of several files are drawn in the order
given, each file's title (--labels) prefixed to its rows when there are
several.
"""
import argparse
import html
import json
import sys

BAR_H, GAP, LEFT, RIGHT, TOP = 16, 4, 330, 250, 46


def rows_of(paths, labels):
    rows = []
    for i, path in enumerate(paths):
        with open(path) as f:
            data = json.load(f)
        prefix = f"{labels[i]}: " if labels and i < len(labels) else ""
        for r in data:
            shape = " x ".join(s for s in r["shape"] if s not in ("None",))
            name = f"{prefix}{r['op']} {shape} {r['dtype']}"
            if r.get("of_copy") is not None:
                note = f"{r['of_copy']:.2f} of copy"
            elif r.get("tilec_tflops") is not None:
                note = (f"{r['tilec_tflops']:.0f} vs "
                        f"{r['torch_tflops']:.0f} TFLOP/s")
            else:
                note = ""
            rows.append((name, float(r["ratio"]), note))
    return rows


LEGEND = "bar: PyTorch time / tilec time (right of the line: tilec faster)"


def svg(rows, title, legend=LEGEND, most=None):
    """The chart of rows (name, ratio, note); the axis runs to `most` (at
    least the largest ratio; 2.0 when None)."""
    most = max([most or 2.0] + [r for _, r, _ in rows])
    scale = RIGHT * 2 / most  # pixels per unit of ratio
    width = LEFT + int(most * scale) + 200
    height = TOP + len(rows) * (BAR_H + GAP) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{html.escape(title)}</text>',
           f'<text x="10" y="36" fill="#555">{html.escape(legend)}</text>']
    for tick in range(0, int(most) + 1):
        x = LEFT + tick * scale
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" '
                   f'y2="{height - 24}" stroke="{"#000" if tick == 1 else "#ddd"}"'
                   f' stroke-width="{1.5 if tick == 1 else 1}"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 10}" '
                   f'text-anchor="middle">{tick}.0</text>')
    for i, (name, ratio, note) in enumerate(rows):
        y = TOP + i * (BAR_H + GAP)
        color = "#2b7bba" if ratio >= 1.0 else "#d9534f"
        out.append(f'<text x="{LEFT - 6}" y="{y + BAR_H - 4}" '
                   f'text-anchor="end">{html.escape(name)}</text>')
        out.append(f'<rect x="{LEFT}" y="{y}" width="{ratio * scale:.1f}" '
                   f'height="{BAR_H}" fill="{color}"/>')
        out.append(f'<text x="{LEFT + ratio * scale + 4:.1f}" '
                   f'y="{y + BAR_H - 4}">{ratio:.2f}'
                   f'{"  (" + html.escape(note) + ")" if note else ""}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--title", default="tilec.ops against PyTorch")
    p.add_argument("--labels", help="comma-separated, one per file")
    args = p.parse_args()
    rows = rows_of(args.results,
                   args.labels.split(",") if args.labels else None)
    if not rows:
        print("no rows", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(svg(rows, args.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
