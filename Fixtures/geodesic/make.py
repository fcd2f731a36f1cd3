#!/usr/bin/env python3
"""Reference distances for FenceGeometry's tests, from GeographicLib (Karney's geodesics).

Run once (`pip install geographiclib`, then `python3 make.py` in this folder); the CSV files
are committed and the Swift tests read them, so the tests need no Python.

- pairs.csv: lat1,lon1,lat2,lon2,metres. Point-to-point geodesic distances on WGS84: random
  pairs up to 10 km at latitudes from -89.9 to 89.9 (a share of them within 1 degree of a pole),
  pairs across the antimeridian, and a few pairs of 100 km.
- segments.csv: lat,lon,lat1,lon1,lat2,lon2,metres. Distance from a point to a straight
  (lon, lat) segment: the segment is sampled densely (4001 points, linear in lon and lat), and
  the best sample is refined by golden-section search on the geodesic distance.
"""
import csv
import math
import random

from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
rng = random.Random(20240611)


def wrap(lon):
    while lon > 180:
        lon -= 360
    while lon < -180:
        lon += 360
    return lon


def direct(lat, lon, azimuth, metres):
    r = G.Direct(lat, lon, azimuth, metres)
    return r["lat2"], wrap(r["lon2"])


def inverse(lat1, lon1, lat2, lon2):
    return G.Inverse(lat1, lon1, lat2, lon2)["s12"]


def pairs():
    rows = []
    def add(lat, lon, azimuth, metres):
        lat2, lon2 = direct(lat, lon, azimuth, metres)
        rows.append((lat, lon, lat2, lon2, inverse(lat, lon, lat2, lon2)))
    for _ in range(130):  # anywhere, up to 10 km (log-uniform from 1 m)
        add(rng.uniform(-89.9, 89.9), rng.uniform(-180, 180), rng.uniform(0, 360),
            10 ** rng.uniform(0, 4))
    for _ in range(30):  # near the poles
        lat = rng.choice([-1, 1]) * rng.uniform(89.0, 89.9)
        add(lat, rng.uniform(-180, 180), rng.uniform(0, 360), 10 ** rng.uniform(0, 4))
    for _ in range(30):  # across the antimeridian
        lon = rng.choice([179.99, -179.99, 180.0, -180.0])
        azimuth = rng.choice([90, 270]) + rng.uniform(-60, 60)
        add(rng.uniform(-80, 80), lon, azimuth, rng.uniform(1000, 10000))
    for _ in range(10):  # 100 km
        add(rng.uniform(-85, 85), rng.uniform(-180, 180), rng.uniform(0, 360), 100_000)
    return rows


def segment_distance(lat, lon, lat1, lon1, lat2, lon2):
    dlon = lon2 - lon1  # segments here never span more than 180 degrees
    def at(t):
        return inverse(lat, lon, lat1 + t * (lat2 - lat1), wrap(lon1 + t * dlon))
    n = 4000
    best = min(range(n + 1), key=lambda k: at(k / n))
    lo, hi = max(0, best - 1) / n, min(n, best + 1) / n
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a = hi - g * (hi - lo)
        b = lo + g * (hi - lo)
        if at(a) < at(b):
            hi = b
        else:
            lo = a
    return min(at((lo + hi) / 2), at(0), at(1))


def segments():
    rows = []
    def add(lat, lon, length, azimuth, offset, bearing):
        # Segment from a point `offset` metres away from (lat, lon) on `bearing`.
        lat1, lon1 = direct(lat, lon, bearing, offset)
        lat2, lon2 = direct(lat1, lon1, azimuth, length)
        if abs(lon2 - lon1) > 180:  # write the end unwrapped next to the start
            lon2 += 360 if lon2 < lon1 else -360
        rows.append((lat, lon, lat1, lon1, lat2, lon2,
                     segment_distance(lat, lon, lat1, lon1, lat2, lon2)))
    for _ in range(60):
        add(rng.uniform(-80, 80), rng.uniform(-180, 180), 10 ** rng.uniform(1, 4),
            rng.uniform(0, 360), 10 ** rng.uniform(0, 4), rng.uniform(0, 360))
    for _ in range(15):  # high latitudes
        add(rng.choice([-1, 1]) * rng.uniform(80, 89.9), rng.uniform(-180, 180),
            10 ** rng.uniform(1, 4), rng.uniform(0, 360), 10 ** rng.uniform(0, 4),
            rng.uniform(0, 360))
    for _ in range(10):  # across the antimeridian
        add(rng.uniform(-70, 70), rng.choice([179.995, -179.995]), rng.uniform(1000, 10000),
            rng.choice([0, 180]) + rng.uniform(-30, 30), rng.uniform(10, 5000),
            rng.choice([90, 270]))
    return rows


def write(name, header, rows):
    with open(name, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for row in rows:
            w.writerow([repr(float(v)) for v in row])


write("pairs.csv", ["lat1", "lon1", "lat2", "lon2", "metres"], pairs())
write("segments.csv", ["lat", "lon", "lat1", "lon1", "lat2", "lon2", "metres"], segments())
