#!/usr/bin/env python3
"""A daemon's first start with a zone file: starts each `fenced` build on a fresh store with
`--zones ZONES` (load, validation, the `replaceAllZones` command written to the log), waits for
/healthz, stops it (SIGTERM), and prints the seconds to healthy, the builds alternated for
`--rounds` rounds. With `--perf`, each start runs under `perf record -F 999 -g` into
SCRATCH/perf-<build>-<round>.data (`perf report -i` reads it).

usage: daemon-first-start.py [--rounds N] [--perf] ZONES SCRATCH FENCED [FENCED...]
"""
import argparse, json, os, shutil, signal, stat

from fenced_process import start_fenced

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--perf", action="store_true")
parser.add_argument("zones")
parser.add_argument("scratch")
parser.add_argument("fenced", nargs="+")
args = parser.parse_args()

os.makedirs(args.scratch, exist_ok=True)
seconds = {build: [] for build in args.fenced}
for k in range(args.rounds):
    for index, build in enumerate(args.fenced):
        program = build
        if args.perf:
            # A wrapper, so that start_fenced's arguments go to fenced under perf.
            program = os.path.join(args.scratch, f"fenced-perf-{index}")
            with open(program, "w") as wrapper:
                wrapper.write(f"#!/bin/sh\nexec perf record -F 999 -g -o "
                              f"{args.scratch}/perf-{index}-{k}.data {build} \"$@\"\n")
            os.chmod(program, os.stat(program).st_mode | stat.S_IXUSR)
        data = os.path.join(args.scratch, "store")
        shutil.rmtree(data, ignore_errors=True)
        process, _, elapsed = start_fenced(program, data, ["--zones", args.zones], args.scratch)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
        seconds[build].append(round(elapsed, 2))
print(json.dumps({"firstStartSeconds": seconds}))
