#!/usr/bin/env python3
"""The pure-Python reference for the Health Auto Export benchmark: json.load the export, then the
same per-day roll-up the agent makes (each sample's day from its own offset; sleep by the day it
ends): steps sum, active energy sum (kJ → kcal), resting heart rate mean, heart rate
min/avg/max, HRV mean, seconds asleep. Prints the number of days and one checksum line.

usage: hae_rollup.py EXPORT.json
"""
import json
import sys
import time
from collections import defaultdict
from datetime import datetime, timedelta


def parse(text):
    """'2024-06-01 08:00:00 +0200' → (aware datetime, its local date)."""
    t = datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")
    return t, t.date()


def number(x):
    return float(x)          # the app writes numbers as numbers or strings


began = time.perf_counter()
days = defaultdict(lambda: {"steps": 0.0, "energy": 0.0, "resting": [], "hr": [], "hr_min": None, "hr_max": None, "hrv": [], "sleep": 0.0})
with open(sys.argv[1]) as f:
    doc = json.load(f)
for metric in doc["data"].get("metrics", []):
    name = metric["name"]
    scale = 1 / 4.184 if metric.get("units") == "kJ" else 1.0
    for p in metric["data"]:
        if name == "sleep_analysis":
            if "sleepStart" in p:
                start, _ = parse(p["sleepStart"])
                hours = sum(number(p.get(k, 0)) for k in ("core", "deep", "rem")) + number(p.get("asleep", 0))
                end = start + timedelta(hours=hours + number(p.get("awake", 0)))
                days[end.date()]["sleep"] += hours * 3600
            continue
        t, day = parse(p["date"])
        d = days[day]
        if name == "step_count":
            d["steps"] += number(p["qty"])
        elif name == "active_energy":
            d["energy"] += number(p["qty"]) * scale
        elif name == "resting_heart_rate":
            d["resting"].append(number(p["qty"]))
        elif name == "heart_rate_variability":
            d["hrv"].append(number(p["qty"]))
        elif name == "heart_rate":
            avg = number(p.get("Avg", p.get("qty")))
            d["hr"].append(avg)
            lo, hi = number(p.get("Min", avg)), number(p.get("Max", avg))
            d["hr_min"] = lo if d["hr_min"] is None else min(d["hr_min"], lo)
            d["hr_max"] = hi if d["hr_max"] is None else max(d["hr_max"], hi)

checksum = 0.0
for day, d in sorted(days.items()):
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    checksum += d["steps"] + d["energy"] + mean(d["resting"]) + mean(d["hr"]) + (d["hr_min"] or 0) + (d["hr_max"] or 0) + mean(d["hrv"]) + d["sleep"]
elapsed = time.perf_counter() - began
print(f"{len(days)} days")
print(f"steps {sum(d['steps'] for d in days.values()):.0f}")
print(f"in-process {elapsed:.3f} s")
print(f"checksum {checksum:.3f}")
