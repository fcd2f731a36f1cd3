#!/usr/bin/env python3
"""Zone removals spaced in time, as an operator's would come, while snapshots are made: for
each `fenced` build in turn (alternated, ROUNDS times), starts it on a fresh store with
`--zones ZONES --snapshot-every EVERY`, waits 5 s (the load's snapshot is written), then sends
one DELETE /v1/zones/{id} every PAUSE seconds for COUNT ids (the ids of CHANGES' "remove"
lines, a churn file of Benchmarks/Scripts/zone-churn) and stops it. A snapshot starts after
every EVERY commands, in the background; the DELETE that follows it is the first change
after a snapshot was taken. Prints one line per round and build: the build's file name, the
median and slowest DELETE in milliseconds, and each DELETE slower than 20 ms as
[its number, milliseconds].

usage: daemon-spaced-deletes.py ZONES CHANGES ROUNDS SCRATCH COUNT EVERY PAUSE FENCED [FENCED...]

With zone-churn-daemon.py's back-to-back requests, the DELETE after a snapshot comes within a
millisecond of it; here it comes PAUSE seconds later.
"""
import json, os, shutil, signal, statistics, sys, time, urllib.request

from fenced_process import start_fenced, timed_request

zones, changes, rounds, scratch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
count, every, pause = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
ids = [zone for line in open(changes, "rb") if (change := json.loads(line)).get("change") == "remove"
       for zone in change["ids"]][:count]
if len(ids) < count:
    sys.exit(f"daemon-spaced-deletes: {changes} names fewer than {count} zones to remove")


def delete(base, zone):
    seconds, _, _ = timed_request("DELETE", base + "/v1/zones/" + urllib.request.quote(zone, safe=""))
    return seconds * 1000


for _ in range(rounds):
    for fenced in sys.argv[8:]:
        data = os.path.join(scratch, "spaced-deletes-store")
        shutil.rmtree(data, ignore_errors=True)
        process, base, _ = start_fenced(fenced, data, ["--zones", zones, "--snapshot-every", str(every)], scratch)
        # The load's own snapshot, written in the background after the daemon answers (about
        # 2 s at a million circles).
        time.sleep(5)
        times = []
        for zone in ids:
            times.append(delete(base, zone))
            time.sleep(pause)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
        slow = [[number, round(ms, 1)] for number, ms in enumerate(times) if ms > 20]
        print(os.path.basename(fenced), "median", round(statistics.median(times), 2), "ms, slowest",
              round(max(times), 1), "ms, slow", slow, flush=True)
