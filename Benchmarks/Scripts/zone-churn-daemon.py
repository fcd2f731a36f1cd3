#!/usr/bin/env python3
"""The daemon's way to churn zones (Benchmarks/Scripts/zone-churn --daemon): starts `fenced`
on a fresh store with the starting zone set, applies a churn file's changes through the HTTP
API (an "add" line is POSTed as it is to /v1/zones, a "remove" line becomes one DELETE
/v1/zones/{id} per id), times every request, then stops the daemon (SIGTERM: snapshot) and
times a restart. Prints one JSON object; `slowRequests` lists each request slower than 50 ms
as [its number in the churn, method, milliseconds].

usage: zone-churn-daemon.py FENCED ZONES CHANGES SCRATCH [fenced options...]
"""
import json, os, shutil, signal, statistics, sys, time, urllib.request

from fenced_process import peak_memory_bytes, start_fenced, timed_request as request

fenced, zones, changes, scratch = sys.argv[1:5]
extra = sys.argv[5:]

def start(data, with_zones):
    return start_fenced(fenced, data, (["--zones", zones] if with_zones else []) + extra, scratch)

def stop(process):
    t0 = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=600)
    return time.perf_counter() - t0

def summary(samples):
    if not samples:
        return None
    ordered = sorted(samples)
    return {"count": len(samples), "totalSeconds": round(sum(samples), 3),
            "medianMilliseconds": round(statistics.median(samples) * 1000, 2),
            "p90Milliseconds": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2),
            "maxMilliseconds": round(ordered[-1] * 1000, 2)}

data = os.path.join(scratch, "fenced-churn-store")
shutil.rmtree(data, ignore_errors=True)
process, base, first_start = start(data, True)
posts, deletes, zones_posted = [], [], 0
slow = []
for line in open(changes, "rb"):
    change = json.loads(line)
    if change["change"] == "add":
        seconds, status, _ = request("POST", base + "/v1/zones", line, "application/geo+json")
        assert status == 200, status
        posts.append(seconds)
        if seconds > 0.05:
            slow.append([len(posts) + len(deletes) - 1, "POST", round(seconds * 1000, 1)])
        zones_posted += len(change["features"])
    elif change["change"] == "remove":
        for zone in change["ids"]:
            seconds, status, _ = request("DELETE", base + "/v1/zones/" + urllib.request.quote(zone, safe=""))
            assert status == 200, status
            deletes.append(seconds)
            if seconds > 0.05:
                slow.append([len(posts) + len(deletes) - 1, "DELETE", round(seconds * 1000, 1)])
_, _, body = request("GET", base + "/metrics")
# How long the last snapshot took (made and written in the background): one after zone changes.
snapshot_seconds = next(
    (float(line.split()[-1]) for line in body.decode().splitlines()
     if line.startswith("fenced_last_snapshot_duration_seconds")), None)
rss = peak_memory_bytes(process.pid)
stop_seconds = stop(process)
process, base, restart = start(data, False)
rss_restart = peak_memory_bytes(process.pid)
stop(process)
print(json.dumps({
    "firstStartSeconds": round(first_start, 3), "peakMemoryBytes": rss,
    "post": summary(posts), "zonesPosted": zones_posted, "delete": summary(deletes),
    "slowRequests": slow,
    "lastSnapshotSeconds": snapshot_seconds,
    "stopSeconds": round(stop_seconds, 3), "restartSeconds": round(restart, 3),
    "restartPeakMemoryBytes": rss_restart,
}))
