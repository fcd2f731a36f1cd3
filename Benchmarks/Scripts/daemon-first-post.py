#!/usr/bin/env python3
"""A daemon's first zone change after it loaded or restored a large zone set: for each `fenced`
build in turn (alternated, ROUNDS times), starts it on a fresh store with `--zones ZONES`,
waits WAIT seconds after /healthz answers, POSTs the first "add" line of CHANGES (a churn file
of Benchmarks/Scripts/zone-churn) to /v1/zones and times it; then stops it (SIGTERM: a
snapshot), restarts it on the same store, waits again, POSTs the second "add" line and times
that. Prints one line per round and build: the build's file name and the two POSTs'
milliseconds.

usage: daemon-first-post.py ZONES CHANGES ROUNDS SCRATCH WAIT FENCED [FENCED...]

WAIT 0 posts as soon as the daemon answers (what zone-churn-daemon.py does); a second or two
lets the daemon finish what it builds in the background after a load or restore.
"""
import json, os, shutil, signal, sys, time

from fenced_process import start_fenced, timed_request

zones, changes, rounds, scratch, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
adds = [line for line in open(changes, "rb") if json.loads(line).get("change") == "add"][:2]
if len(adds) < 2:
    sys.exit(f"daemon-first-post: {changes} has fewer than two add lines")


def post(base, body):
    seconds, _, _ = timed_request("POST", base + "/v1/zones", body, "application/json")
    return round(seconds * 1000, 1)


for _ in range(rounds):
    for fenced in sys.argv[6:]:
        data = os.path.join(scratch, "first-post-store")
        shutil.rmtree(data, ignore_errors=True)
        process, base, _ = start_fenced(fenced, data, ["--zones", zones], scratch)
        time.sleep(wait)
        after_load = post(base, adds[0])
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
        process, base, _ = start_fenced(fenced, data, [], scratch)
        time.sleep(wait)
        after_restart = post(base, adds[1])
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
        print(os.path.basename(fenced), "after load", after_load, "ms, after restart", after_restart, "ms", flush=True)
