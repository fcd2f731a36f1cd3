#!/usr/bin/env python3
"""Writes the files of a zone churn run (Benchmarks/Scripts/zone-churn) from a generated zones
file of one feature per line (`fencebench generate fences`):

  OUT/changes-mid.ndjson     the churn in STEPS steps spread over 30-70 % of the track's time:
                             per step one "add" line (new zones and replacements) and one
                             "remove" line
  OUT/changes-start.ndjson   the same lines, all one second before the track's first fix
  OUT/churned.geojson        the zone set they leave: the fresh build to compare with

The churn touches FRACTION of the zones: a third new (copies of random zones under new ids,
moved), a third replaced (same id, moved by about a kilometre), a third removed. Seeded.

usage: zone-churn-files.py ZONES TRACKS OUT FRACTION STEPS SEED
"""
import json, random, sys
from datetime import datetime, timedelta, timezone

zones_path, tracks_path, out, fraction, steps, seed = sys.argv[1:7]
fraction, steps, rng = float(fraction), int(steps), random.Random(int(seed))

def track_times(path):
    """First and last time of a time-ordered CSV track file (the time column by name)."""
    with open(path, "rb") as f:
        header = f.readline().decode().strip().split(",")
        column = header.index("time")
        first = f.readline().decode().split(",")[column]
        f.seek(0, 2)
        f.seek(max(0, f.tell() - 4096))
        last = f.read().decode().strip().splitlines()[-1].split(",")[column]
    parse = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return parse(first), parse(last)

def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")

# One feature per line between the collection's first and last lines.
with open(zones_path) as f:
    lines = f.read().splitlines()
head, features, tail = lines[0], lines[1:-1], lines[-1]
assert head.startswith('{"type":"FeatureCollection"') and tail.startswith("]"), "not a generated zones file"
features = [line.rstrip(",") for line in features]
n = len(features)
k = max(3, int(n * fraction))
chosen = rng.sample(range(n), k)
third = k // 3
new_from, replaced, removed = chosen[:third], chosen[third:2 * third], chosen[2 * third:]

def moved(feature_text, new_id=None):
    feature = json.loads(feature_text)
    if new_id is not None:
        feature["id"] = new_id
    dx, dy = rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01)
    def shift(c):
        if isinstance(c[0], (int, float)):
            return [round(c[0] + dx, 6), round(c[1] + dy, 6)] + c[2:]
        return [shift(x) for x in c]
    feature["geometry"]["coordinates"] = shift(feature["geometry"]["coordinates"])
    return feature

def fid(i):
    return json.loads(features[i])["id"]

added = [moved(features[i], f"churn-new-{j}") for j, i in enumerate(new_from)]
replacement = {i: moved(features[i]) for i in replaced}
removed_ids = [fid(i) for i in removed]

first, last = track_times(tracks_path)
span = (last - first).total_seconds()
def step_time(s):
    return first + timedelta(seconds=round(span * (0.3 + 0.4 * s / max(1, steps - 1))))

def chunk(items, s):
    return items[len(items) * s // steps: len(items) * (s + 1) // steps]

replaced_list = [replacement[i] for i in replaced]
with open(f"{out}/changes-mid.ndjson", "w") as mid, open(f"{out}/changes-start.ndjson", "w") as start:
    for s in range(steps):
        puts = chunk(added, s) + chunk(replaced_list, s)
        gone = chunk(removed_ids, s)
        for when, f in ((step_time(s), mid), (first - timedelta(seconds=1), start)):
            if puts:
                f.write(json.dumps({"time": stamp(when), "change": "add", "type": "FeatureCollection",
                                    "features": puts}, separators=(",", ":")) + "\n")
            if gone:
                f.write(json.dumps({"time": stamp(when), "change": "remove", "ids": gone},
                                   separators=(",", ":")) + "\n")

removed_set = set(removed)
with open(f"{out}/churned.geojson", "w") as f:
    f.write('{"type":"FeatureCollection","features":[\n')
    body = []
    for i, line in enumerate(features):
        if i in removed_set:
            continue
        body.append(json.dumps(replacement[i], separators=(",", ":")) if i in replacement else line)
    body += [json.dumps(a, separators=(",", ":")) for a in added]
    f.write(",\n".join(body) + "\n]}\n")

json.dump({"zones": n, "added": len(added), "replaced": len(replaced), "removed": len(removed),
           "steps": steps, "first": stamp(step_time(0)), "last": stamp(step_time(steps - 1))},
          sys.stdout)
print()
