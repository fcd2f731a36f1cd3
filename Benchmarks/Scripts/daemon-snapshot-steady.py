#!/usr/bin/env python3
"""A daemon's snapshots while its zones stay the same: starts `fenced` on a fresh store with a
zone file and `--snapshot-every 2`, sends 2,500 small fix batches (10 fixes each) one at a
time, then stops it (SIGTERM: a snapshot). Prints the first start's seconds, the requests
slower than 0.1 s (those that waited for a snapshot) and the stop's seconds. With a million
zones the first snapshot stores the zone set; the stop's comes after fixes only, and keeps the
zones' order and fingerprint of the one before (Docs/Decisions/0006-durable-store.md).

usage: daemon-snapshot-steady.py FENCED ZONES SCRATCH
"""
import json, os, shutil, signal, sys, time, urllib.request

from fenced_process import start_fenced

fenced, zones, scratch = sys.argv[1:4]


def batch(k):
    """Ten fixes, one per device, at second k."""
    stamp = f"2020-01-01T{k // 3600:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"
    lines = (json.dumps({"device": f"d{i}", "time": stamp, "lat": 40.0 + i * 0.001, "lon": -74.0})
             for i in range(10))
    return "\n".join(lines).encode()


data = os.path.join(scratch, "store")
shutil.rmtree(data, ignore_errors=True)
os.makedirs(scratch, exist_ok=True)
process, base, start = start_fenced(
    fenced, data, ["--snapshot-every", "2", "--zones", zones], scratch)
latencies = []
for k in range(2500):
    request = urllib.request.Request(base + "/v1/fixes", data=batch(k), method="POST")
    request.add_header("Content-Type", "application/x-ndjson")
    t1 = time.perf_counter()
    urllib.request.urlopen(request, timeout=600).read()
    latencies.append(time.perf_counter() - t1)
t2 = time.perf_counter()
process.send_signal(signal.SIGTERM)
process.wait(timeout=600)
stop = time.perf_counter() - t2
print(json.dumps({"firstStartSeconds": round(start, 2),
                  "snapshotRequestSeconds": [round(x, 3) for x in latencies if x > 0.1],
                  "stopSeconds": round(stop, 3)}))
