"""Best of a scaling run's repetitions (Benchmarks/Scripts/scaling --repeat N).

Each program runs N times per case, engine and C loop alternating; the tables and the plot
show, per program and case, its best of the N: the highest throughput, the shortest load +
index, read and whole job, and the highest peak memory (the least favourable to that program).
The .jsonl keeps every repetition (its "repetition" field, 1 to N).
"""
import copy


def index_seconds(program, result):
    return result["indexBuildSeconds"] if program != "c" else result["indexSeconds"]


def best_of(rows):
    """One row per (case, program), in the order of their first repetition."""
    groups = {}
    for r in rows:
        groups.setdefault((r["case"], r["program"]), []).append(r)
    merged = []
    for (case, program), reps in groups.items():
        ok = [r for r in reps if r["status"] == 0 and r["result"] is not None]
        if len(ok) < len(reps):  # any failure shows as the failure
            merged.append(next(r for r in reps if r not in ok))
            continue
        fastest = max(ok, key=lambda r: r["result"]["throughputFixesPerSecond"])
        row = copy.deepcopy(fastest)
        loading = min(ok, key=lambda r: r["result"]["loadSeconds"] + index_seconds(program, r["result"]))
        row["result"]["loadSeconds"] = loading["result"]["loadSeconds"]
        key = "indexBuildSeconds" if program != "c" else "indexSeconds"
        row["result"][key] = loading["result"][key]
        row["result"]["readSeconds"] = min(r["result"]["readSeconds"] for r in ok)
        row["result"]["peakMemoryBytes"] = max(r["result"]["peakMemoryBytes"] for r in ok)
        row["wallSeconds"] = min(r["wallSeconds"] for r in ok)
        row["repetitions"] = len(ok)
        merged.append(row)
    return merged
