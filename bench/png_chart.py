#!/usr/bin/env python3
"""A line chart as PNG with Python alone (zlib and struct: the machines that
run the benchmarks have no matplotlib): several series of (x, y) points,
each a colour, on axes with a few labelled ticks, a title and a legend, in
a small built-in pixel font (digits, lower-case letters, a few signs).

  from png_chart import line_chart
  line_chart("out.png", {"sdpa": [(0, 4.1), ...], "tilec": [...]},
             title="loss", x_label="step", y_label="loss")
"""
import struct
import zlib

# 3 x 5 glyphs, rows top to bottom, '#' lit.
_FONT = {
    "0": ["###", "#.#", "#.#", "#.#", "###"],
    "1": [".#.", "##.", ".#.", ".#.", "###"],
    "2": ["###", "..#", "###", "#..", "###"],
    "3": ["###", "..#", ".##", "..#", "###"],
    "4": ["#.#", "#.#", "###", "..#", "..#"],
    "5": ["###", "#..", "###", "..#", "###"],
    "6": ["###", "#..", "###", "#.#", "###"],
    "7": ["###", "..#", ".#.", ".#.", ".#."],
    "8": ["###", "#.#", "###", "#.#", "###"],
    "9": ["###", "#.#", "###", "..#", "###"],
    ".": ["...", "...", "...", "...", ".#."],
    "-": ["...", "...", "###", "...", "..."],
    "+": ["...", ".#.", "###", ".#.", "..."],
    "/": ["..#", "..#", ".#.", "#..", "#.."],
    ":": ["...", ".#.", "...", ".#.", "..."],
    "=": ["...", "###", "...", "###", "..."],
    "(": [".#.", "#..", "#..", "#..", ".#."],
    ")": [".#.", "..#", "..#", "..#", ".#."],
    ",": ["...", "...", "...", ".#.", "#.."],
    "x": ["...", "#.#", ".#.", "#.#", "..."],
    " ": ["...", "...", "...", "...", "..."],
    "a": ["...", "##.", "..#", "###", "###"],
    "b": ["#..", "#..", "###", "#.#", "###"],
    "c": ["...", "###", "#..", "#..", "###"],
    "d": ["..#", "..#", "###", "#.#", "###"],
    "e": ["...", "###", "###", "#..", "###"],
    "f": [".##", "#..", "###", "#..", "#.."],
    "g": ["...", "###", "#.#", ".##", "###"],
    "h": ["#..", "#..", "###", "#.#", "#.#"],
    "i": [".#.", "...", ".#.", ".#.", ".#."],
    "j": ["..#", "...", "..#", "#.#", "###"],
    "k": ["#..", "#.#", "##.", "#.#", "#.#"],
    "l": ["##.", ".#.", ".#.", ".#.", "###"],
    "m": ["...", "###", "###", "#.#", "#.#"],
    "n": ["...", "##.", "#.#", "#.#", "#.#"],
    "o": ["...", "###", "#.#", "#.#", "###"],
    "p": ["...", "###", "#.#", "###", "#.."],
    "q": ["...", "###", "#.#", "###", "..#"],
    "r": ["...", "###", "#..", "#..", "#.."],
    "s": ["...", "###", "##.", "..#", "###"],
    "t": [".#.", "###", ".#.", ".#.", ".##"],
    "u": ["...", "#.#", "#.#", "#.#", "###"],
    "v": ["...", "#.#", "#.#", "#.#", ".#."],
    "w": ["...", "#.#", "#.#", "###", "###"],
    "y": ["...", "#.#", "###", "..#", "###"],
    "z": ["...", "###", ".#.", "#..", "###"],
}
COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14),
           (148, 103, 189)]


class Canvas:
    def __init__(self, width, height):
        self.w, self.h = width, height
        self.px = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x, y, rgb):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(rgb)

    def line(self, x0, y0, x1, y1, rgb, thick=1):
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        while True:
            for t in range(thick):
                self.dot(x0, y0 + t, rgb)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, s, rgb=(0, 0, 0), scale=2):
        for ch in s.lower():
            glyph = _FONT.get(ch, _FONT[" "])
            for r, row in enumerate(glyph):
                for c, lit in enumerate(row):
                    if lit == "#":
                        for a in range(scale):
                            for b in range(scale):
                                self.dot(x + c * scale + a, y + r * scale + b,
                                         rgb)
            x += 4 * scale
        return x

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:
                                               (y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            c = struct.pack(">I", len(data)) + kind + data
            return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
        return (b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2,
                                           0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _ticks(lo, hi, n=5):
    step = (hi - lo) / n if hi > lo else 1.0
    return [lo + i * step for i in range(n + 1)]


def _fmt(v, span):
    return f"{v:.0f}" if span >= 20 else f"{v:.2f}"


def line_chart(path, series, title="", x_label="", y_label="", width=900,
               height=520):
    """Writes `series` ({name: [(x, y), ...]}) as a PNG line chart."""
    left, right, top, bottom = 80, 30, 50, 60
    cv = Canvas(width, height)
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, min(ys)), max(ys) * 1.05
    pw, ph = width - left - right, height - top - bottom

    def at(x, y):
        return (left + int((x - x0) / ((x1 - x0) or 1) * pw),
                top + ph - int((y - y0) / ((y1 - y0) or 1) * ph))
    grey = (200, 200, 200)
    for v in _ticks(y0, y1):
        _, py = at(x0, v)
        cv.line(left, py, left + pw, py, grey)
        t = _fmt(v, y1 - y0)
        cv.text(left - 8 - 8 * len(t), py - 5, t)
    for v in _ticks(x0, x1):
        px, _ = at(v, y0)
        cv.line(px, top + ph, px, top + ph + 5, (0, 0, 0))
        t = _fmt(v, x1 - x0)
        cv.text(px - 4 * len(t), top + ph + 10, t)
    cv.line(left, top, left, top + ph, (0, 0, 0))
    cv.line(left, top + ph, left + pw, top + ph, (0, 0, 0))
    cv.text(left, 14, title, scale=3)
    cv.text(left + pw // 2 - 4 * len(x_label), height - 24, x_label)
    cv.text(6, top - 24, y_label)
    lx = left + pw - 160
    for k, (name, pts) in enumerate(series.items()):
        rgb = COLOURS[k % len(COLOURS)]
        prev = None
        for x, y in pts:
            p = at(x, y)
            if prev:
                cv.line(prev[0], prev[1], p[0], p[1], rgb, thick=2)
            prev = p
        ly = top + 10 + 18 * k
        cv.line(lx, ly + 5, lx + 24, ly + 5, rgb, thick=3)
        cv.text(lx + 32, ly, name, rgb)
    with open(path, "wb") as f:
        f.write(cv.png())
