#!/usr/bin/env python3
"""A daemon's first start with a zone file: starts each `fenced` build on a fresh store with
`--zones ZONES` (load, validation, the `replaceAllZones` command written to the log), waits for
/healthz, stops it (SIGTERM), and prints the seconds to healthy, the builds alternated for
`--rounds` rounds, and each start's peak memory (VmHWM, read `--settle` seconds after healthy,
so that the first snapshot written in the background is counted; 4 by default). With
`--postgres URL` the store is that database, dropped and made again (psql) before each start.
With `--perf`, each start runs under `perf record -F 999 -g` into
SCRATCH/perf-<build>-<round>.data (`perf report -i` reads it; the peak is then perf's).

usage: daemon-first-start.py [--rounds N] [--settle S] [--postgres URL] [--perf] ZONES SCRATCH
                             FENCED [FENCED...]
"""
import argparse, json, os, shutil, signal, subprocess, time

from fenced_process import peak_memory_bytes, start_fenced, under_perf

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--perf", action="store_true")
parser.add_argument("--settle", type=float, default=4.0)
parser.add_argument("--postgres")
parser.add_argument("zones")
parser.add_argument("scratch")
parser.add_argument("fenced", nargs="+")
args = parser.parse_args()

os.makedirs(args.scratch, exist_ok=True)
seconds = {build: [] for build in args.fenced}
peaks = {build: [] for build in args.fenced}


def fresh_database(url):
    """Drops and makes again the database `url` names (through the server's `postgres` one)."""
    server, name = url.rsplit("/", 1)
    for statement in (f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"'):
        subprocess.run(["psql", server + "/postgres", "-qc", statement], check=True,
                       stderr=subprocess.DEVNULL)


for k in range(args.rounds):
    for index, build in enumerate(args.fenced):
        program = build
        if args.perf:
            program = under_perf(build, args.scratch, f"{args.scratch}/perf-{index}-{k}.data", 999)
        data = os.path.join(args.scratch, "store")
        shutil.rmtree(data, ignore_errors=True)
        extra = []
        if args.postgres:
            fresh_database(args.postgres)
            extra = ["--postgres", args.postgres]
        process, _, elapsed = start_fenced(program, data, ["--zones", args.zones] + extra, args.scratch)
        time.sleep(args.settle)
        peaks[build].append(round(peak_memory_bytes(process.pid) / 1048576))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
        seconds[build].append(round(elapsed, 2))
print(json.dumps({"firstStartSeconds": seconds, "peakMemoryMiB": peaks}))
