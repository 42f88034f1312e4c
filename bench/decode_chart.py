#!/usr/bin/env python3
"""Draws decode bandwidth against the keys per sequence: one line per
implementation (tilec, cuDNN, PyTorch flash, ...), the device's copy
bandwidth as a dashed line, from bench/decode.py --sweep-keys B --json
FILE.

  python3 bench/decode_chart.py FILE.json -o chart.svg [--title TEXT]

Writes SVG with no library beyond Python's own (the machines that run the
benchmark have no matplotlib): keys on a log-2 axis, GB/s (K and V read
once, plus q and the output) on a linear one from zero.
"""
import argparse
import html
import json
import math
import sys

W, H, LEFT, BOTTOM, TOP, RIGHT = 640, 360, 60, 40, 50, 150
COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]
NAMES = {"tilec": "tilec", "cudnn": "cuDNN (SDPA)", "flash": "PyTorch flash",
         "efficient": "efficient (SDPA)"}


def chart(rows, title):
    keys = [r["keys"] for r in rows]
    impls = [n for n in NAMES if any(n in r for r in rows)]
    top = max([r["copy"] for r in rows] +
              [r[n] for r in rows for n in impls if n in r]) * 1.1
    lo, hi = math.log2(min(keys)), math.log2(max(keys))

    def x(k):
        return LEFT + (math.log2(k) - lo) / max(hi - lo, 1) * (W - LEFT -
                                                               RIGHT)

    def y(g):
        return H - BOTTOM - g / top * (H - BOTTOM - TOP)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
           f'height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{html.escape(title)}</text>']
    for g in range(0, int(top) + 1, 1000):
        out.append(f'<line x1="{LEFT}" y1="{y(g):.1f}" x2="{W - RIGHT}" '
                   f'y2="{y(g):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(g) + 4:.1f}" '
                   f'text-anchor="end">{g}</text>')
    for k in keys:
        label = f"{k // 1024}k"
        out.append(f'<text x="{x(k):.1f}" y="{H - BOTTOM + 16}" '
                   f'text-anchor="middle">{label}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 6}" '
               f'text-anchor="middle">keys per sequence</text>')
    out.append(f'<text x="14" y="{TOP - 10}">GB/s</text>')
    copy = sum(r["copy"] for r in rows) / len(rows)
    out.append(f'<line x1="{LEFT}" y1="{y(copy):.1f}" x2="{W - RIGHT}" '
               f'y2="{y(copy):.1f}" stroke="#000" stroke-dasharray="5,4"/>')
    out.append(f'<text x="{W - RIGHT + 6}" y="{y(copy) + 4:.1f}">copy '
               f'{copy:.0f}</text>')
    for i, n in enumerate(impls):
        pts = [(x(r["keys"]), y(r[n])) for r in rows if n in r]
        color = COLORS[i % len(COLORS)]
        out.append('<polyline fill="none" stroke-width="2" stroke="' + color +
                   '" points="' + " ".join(f"{a:.1f},{b:.1f}"
                                           for a, b in pts) + '"/>')
        for a, b in pts:
            out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.5" '
                       f'fill="{color}"/>')
        out.append(f'<text x="{W - RIGHT + 6}" y="{TOP + 16 * i}" '
                   f'fill="{color}">{html.escape(NAMES[n])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("json")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--title", default="Decode attention: GB/s against keys")
    args = p.parse_args()
    with open(args.json) as f:
        rows = sorted(json.load(f), key=lambda r: r["keys"])
    if not rows:
        print("no points", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(chart(rows, args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
