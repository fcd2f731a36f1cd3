#!/usr/bin/env python3
"""Draws a scaling run (the .jsonl of Benchmarks/Scripts/scaling) as one SVG, by hand.

    python3 Benchmarks/Scripts/scaling-plot.py RESULTS.jsonl OUT.svg

Three log-log panels against the number of fences: throughput (fixes per second of
evaluation), load + index time, and peak memory; the engine in blue, the plain GEOS loop in
orange; circles solid, polygons dashed; warm tracks filled dots, cold tracks open squares.
Only the generated circle and polygon workloads with 10,000 devices are drawn (not the
many-devices and real-data cases, which are single points in the tables).
"""
import json
import math
import os
import sys
from html import escape

PANEL_W, PANEL_H = 330, 260
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 50
GAP = 10
LEGEND_H = 70
ENGINE, CLOOP = "#1f5fa8", "#e07000"


def load(path):
    series = {}  # (program, shape, tracks) -> {fences: result}
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from scaling_best import best_of
    for r in best_of([json.loads(line) for line in open(path)]):
        if r.get("result") is None or r["shape"] not in ("circle", "polygon"):
            continue
        if r["tracks"] not in ("warm", "cold"):
            continue
        series.setdefault((r["program"], r["shape"], r["tracks"]), {})[r["fences"]] = r["result"]
    return series


def metric(program, result, name):
    if name == "rate":
        return result["throughputFixesPerSecond"]
    if name == "load":
        index = result["indexBuildSeconds"] if program == "engine" else result["indexSeconds"]
        return result["loadSeconds"] + index
    return result["peakMemoryBytes"] / 2**20


def label(value, unit):
    if unit == "fences" or unit == "/s":
        for d, s in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if value >= d:
                text = f"{value / d:g}{s}"
                break
        else:
            text = f"{value:g}"
        return text if unit == "fences" else text + "/s"
    if unit == "s":
        return f"{value:g} s"
    return f"{value:,.0f} MiB" if value >= 1 else f"{value:g} MiB"


def decades(lo, hi):
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return a, b


def panel(x0, y0, title, unit, name, series, xs_all):
    out = []
    points = []
    for (program, shape, tracks), by_fences in series.items():
        for fences, result in by_fences.items():
            v = metric(program, result, name)
            if v > 0 and fences > 0:
                points.append(v)
    if not points:
        return out
    ya, yb = decades(min(points), max(points))
    xa, xb = decades(min(xs_all), max(xs_all))
    w = PANEL_W - LEFT - RIGHT
    h = PANEL_H - TOP - BOTTOM

    def px(x):
        return x0 + LEFT + (math.log10(x) - xa) / (xb - xa) * w

    def py(y):
        return y0 + TOP + h - (math.log10(y) - ya) / (yb - ya) * h

    out.append(f'<text x="{x0 + PANEL_W / 2:.1f}" y="{y0 + 22}" text-anchor="middle" '
               f'font-weight="bold">{escape(title)}</text>')
    out.append(f'<rect x="{x0 + LEFT}" y="{y0 + TOP}" width="{w}" height="{h}" fill="none" stroke="#888"/>')
    for e in range(ya, yb + 1):
        y = py(10**e)
        out.append(f'<line x1="{x0 + LEFT}" y1="{y:.1f}" x2="{x0 + LEFT + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + LEFT - 5}" y="{y + 4:.1f}" text-anchor="end">{escape(label(10**e, unit))}</text>')
        if e < yb:
            for m in range(2, 10):
                ym = py(m * 10**e)
                out.append(f'<line x1="{x0 + LEFT}" y1="{ym:.1f}" x2="{x0 + LEFT + 4}" y2="{ym:.1f}" stroke="#aaa"/>')
    for e in range(xa, xb + 1):
        x = px(10**e)
        out.append(f'<line x1="{x:.1f}" y1="{y0 + TOP}" x2="{x:.1f}" y2="{y0 + TOP + h}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{y0 + TOP + h + 16}" text-anchor="middle">{label(10**e, "fences")}</text>')
    out.append(f'<text x="{x0 + LEFT + w / 2:.1f}" y="{y0 + TOP + h + 36}" text-anchor="middle">fences</text>')
    for (program, shape, tracks), by_fences in sorted(series.items()):
        pts = sorted((f, metric(program, r, name)) for f, r in by_fences.items() if f > 0)
        pts = [(f, v) for f, v in pts if v > 0]
        if not pts:
            continue
        colour = ENGINE if program == "engine" else CLOOP
        dash = "" if shape == "circle" else ' stroke-dasharray="6 4"'
        path = " ".join(f"{px(f):.1f},{py(v):.1f}" for f, v in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.8"{dash}/>')
        for f, v in pts:
            tip = f"{'engine' if program == 'engine' else 'C loop'}, {shape}s, {tracks}: {f:,} fences, {label(v, unit) if unit != '/s' else f'{v:,.0f} fixes/s'}"
            if tracks == "warm":
                mark = f'<circle cx="{px(f):.1f}" cy="{py(v):.1f}" r="3.5" fill="{colour}">'
            else:
                mark = (f'<rect x="{px(f) - 3.5:.1f}" y="{py(v) - 3.5:.1f}" width="7" height="7" '
                        f'fill="white" stroke="{colour}" stroke-width="1.5">')
            tag = "circle" if tracks == "warm" else "rect"
            out.append(f"{mark}<title>{escape(tip)}</title></{tag}>")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scaling-plot.py RESULTS.jsonl OUT.svg")
    series = load(sys.argv[1])
    xs = [f for s in series.values() for f in s if f > 0] or [1000, 10000]
    width = 3 * PANEL_W + 2 * GAP
    height = PANEL_H + LEGEND_H
    body = []
    for i, (title, unit, name) in enumerate((
            ("Throughput (fixes/s, evaluation)", "/s", "rate"),
            ("Load + index (s)", "s", "load"),
            ("Peak memory", "MiB", "memory"))):
        body += panel(i * (PANEL_W + GAP), 0, title, unit, name, series, xs)
    # legend
    y = PANEL_H + 20
    items = [
        (f'<line x1="0" y1="0" x2="30" y2="0" stroke="{ENGINE}" stroke-width="2"/>', "FenceKit engine"),
        (f'<line x1="0" y1="0" x2="30" y2="0" stroke="{CLOOP}" stroke-width="2"/>', "plain GEOS loop (C)"),
        ('<line x1="0" y1="0" x2="30" y2="0" stroke="#444" stroke-width="2"/>', "circles"),
        ('<line x1="0" y1="0" x2="30" y2="0" stroke="#444" stroke-width="2" stroke-dasharray="6 4"/>', "16-vertex polygons"),
        ('<circle cx="15" cy="0" r="3.5" fill="#444"/>', "warm tracks"),
        ('<rect x="11.5" y="-3.5" width="7" height="7" fill="white" stroke="#444" stroke-width="1.5"/>', "cold tracks"),
    ]
    for k, (glyph, text) in enumerate(items):
        x = 20 + (k % 3) * 300
        yy = y + (k // 3) * 22
        body.append(f'<g transform="translate({x},{yy})">{glyph}'
                    f'<text x="38" y="4">{escape(text)}</text></g>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
           f'<title>FenceKit engine against the plain GEOS loop: {escape(os.path.basename(sys.argv[1]))}</title>\n'
           f'<rect width="{width}" height="{height}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")
    with open(sys.argv[2], "w") as f:
        f.write(svg)


if __name__ == "__main__":
    main()
