#!/usr/bin/env python3
"""Turns `swift package benchmark --format markdown` output into the tables of
Docs/Performance.md: per workload, each variant's median time, its ratio to the GEOS variant
of the same workload, and its median allocation count.

Usage: swift package benchmark --target IndexBenchmarks --format markdown --no-progress \
         | python3 Scripts/ratio-table.py
   or: python3 Scripts/ratio-table.py run1.md [run2.md ...]
With several saved runs, the table shows the first run and adds the range of the speed-up over
all runs. Benchmark names are "<workload>: <variant>"; the variant naming GEOS is the reference.
"""
import re
import sys

UNITS = {"#": 1, "K": 1e3, "M": 1e6, "G": 1e9}
TIME = {"ns": 1, "us": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}


def number(text):
    return float(text.replace(",", ""))


def parse(lines):
    results = {}
    name = None
    for line in lines:
        if line.startswith("### "):
            name = line[4:].strip()
            results[name] = {}
            continue
        if name is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        label = cells[0]
        if len(cells) < 9 or label.startswith(":") or label == "Metric":
            continue
        p50 = number(cells[3])
        scale = re.search(r"\((K|M|G)\)", label)
        if label.startswith("Time (wall clock)"):
            unit = re.search(r"\((ns|us|μs|ms|s)\)", label)
            results[name]["ns"] = p50 * (TIME[unit.group(1)] if unit else 1)
        elif label.startswith("Malloc (total)"):
            results[name]["mallocs"] = p50 * (UNITS[scale.group(1)] if scale else 1)
        else:
            results[name][label] = p50
    return results


def show(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:,.1f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:,.1f} µs"
    return f"{ns:,.0f} ns"


def group(results):
    groups = {}
    for name, metrics in results.items():
        workload, _, variant = name.partition(": ")
        groups.setdefault(workload, []).append((variant or "-", metrics))
    return groups


def speedups(groups):
    table = {}
    for workload, variants in groups.items():
        reference = next((m.get("ns") for v, m in variants if "GEOS" in v), None)
        for variant, metrics in variants:
            if reference and metrics.get("ns") and "GEOS" not in variant:
                table[(workload, variant)] = reference / metrics["ns"]
    return table


def main():
    if len(sys.argv) > 1:
        runs = [parse(open(path).read().splitlines()) for path in sys.argv[1:]]
    else:
        runs = [parse(sys.stdin.read().splitlines())]
    results = runs[0]
    groups = group(results)
    spread = [speedups(group(run)) for run in runs]
    several = len(runs) > 1
    extra = " speed-up over all runs |" if several else ""
    print(f"| workload | variant | median time | speed-up vs GEOS | mallocs |{extra} other (median) |")
    print("|---|---|---:|---:|---:|" + ("---:|" if several else "") + "---|")
    for workload in sorted(groups):
        variants = groups[workload]
        reference = next((m.get("ns") for v, m in variants if "GEOS" in v), None)
        for variant, metrics in sorted(variants):
            ns = metrics.get("ns")
            if ns is None:
                continue
            ratio = f"{reference / ns:.2f}x" if reference and "GEOS" not in variant else ""
            mallocs = metrics.get("mallocs", "")
            if mallocs != "":
                mallocs = f"{mallocs:,.0f}"
            other = ", ".join(
                f"{k}: {v:,.0f}" for k, v in metrics.items()
                if k not in ("ns", "mallocs") and not k.startswith("Throughput"))
            column = ""
            if several:
                seen = [r[(workload, variant)] for r in spread if (workload, variant) in r]
                column = f" {min(seen):.2f}-{max(seen):.2f}x |" if seen else " |"
            print(f"| {workload} | {variant} | {show(ns)} | {ratio} | {mallocs} |{column} {other} |")


if __name__ == "__main__":
    main()
