#!/usr/bin/env python3
"""The reference a user would otherwise script: the same stay-point rules (Li et al. 2008:
within 100 m of the first point for >= 5 min, a gap > 15 min ends a stay) in plain Python over
a CSV of t,lat,lon, with median positions and trip distances. Prints counts.

usage: staypoints.py FIXES.csv
"""
import math, statistics, sys

R, RADIUS, MIN_STAY, MAX_GAP = 6371008.8, 100.0, 300.0, 900.0

def dist(a, b):
    x = math.radians(b[2] - a[2]) * math.cos(math.radians((a[1] + b[1]) / 2))
    y = math.radians(b[1] - a[1])
    return math.hypot(x, y) * R

fixes = [tuple(float(v) for v in line.split(",")) for line in open(sys.argv[1])]
visits, trips, trip_start, distance = [], 0, None, 0.0
i, n = 0, len(fixes)
while i < n:
    j = i + 1
    while j < n and fixes[j][0] - fixes[j - 1][0] <= MAX_GAP and dist(fixes[i], fixes[j]) <= RADIUS:
        j += 1
    if fixes[j - 1][0] - fixes[i][0] >= MIN_STAY:
        cluster = fixes[i:j]
        visits.append((fixes[i][0], fixes[j - 1][0], statistics.median(f[1] for f in cluster), statistics.median(f[2] for f in cluster)))
        if trip_start is not None:
            trips += 1
        trip_start, distance = j - 1, 0.0
        i = j
    else:
        if i + 1 < n:
            distance += dist(fixes[i], fixes[i + 1])
        i += 1
print(f"{len(fixes)} fixes: {len(visits)} visits, {trips} trips")
