#!/usr/bin/env python3
"""Writes a synthetic Health Auto Export JSON of about SIZE MB (default 100) for the benchmark:
per-minute steps and active energy, heart rate with Min/Avg/Max every 5 minutes, daily resting
heart rate and HRV, one aggregated night per day, and a run every third day. Days move through
+02:00, +01:00 and -04:00 (travel, DST), keys are written data-first as the app does, and some
numbers are strings. Deterministic (seeded).

usage: make-hae-json.py OUT.json [SIZE_MB]
"""
import datetime as dt
import random
import sys

out_path = sys.argv[1]
target = int(float(sys.argv[2] if len(sys.argv) > 2 else 100) * 1_000_000)
rng = random.Random(5)
WATCH, PHONE = "Anna's Apple Watch", "Anna's iPhone"
OFFSETS = [120, 120, 120, 60, -240]          # minutes east of UTC, a week at a time


def stamp(t, offset):
    local = t + dt.timedelta(minutes=offset)
    sign = "+" if offset >= 0 else "-"
    return local.strftime("%Y-%m-%d %H:%M:%S") + f" {sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"


def num(x):
    return f'"{x}"' if rng.random() < 0.05 else str(x)


# Each day's points go to per-metric lists; a day is about 180 KB, so days are added until the size fits.
metrics = {k: [] for k in ("step_count", "active_energy", "heart_rate", "resting_heart_rate", "heart_rate_variability", "sleep_analysis")}
workouts = []
size = 0
day = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
while size < target:
    offset = OFFSETS[(day.toordinal() // 7) % len(OFFSETS)]
    start = day - dt.timedelta(minutes=offset)     # local midnight
    for minute in range(7 * 60, 23 * 60):
        t = start + dt.timedelta(minutes=minute)
        source = WATCH if minute % 3 else f"{WATCH}|{PHONE}"
        line = f'{{"date":"{stamp(t, offset)}","qty":{num(rng.randint(0, 120))},"source":"{source}"}}'
        metrics["step_count"].append(line); size += len(line) + 1
        line = f'{{"date":"{stamp(t, offset)}","qty":{num(round(rng.uniform(0.5, 9), 3))},"source":"{WATCH}"}}'
        metrics["active_energy"].append(line); size += len(line) + 1
        if minute % 5 == 0:
            lo = rng.randint(50, 80); hi = lo + rng.randint(0, 60)
            line = f'{{"date":"{stamp(t, offset)}","Min":{lo},"Avg":{round((lo + hi) / 2, 1)},"Max":{hi},"source":"{WATCH}"}}'
            metrics["heart_rate"].append(line); size += len(line) + 1
    noon = start + dt.timedelta(hours=12)
    metrics["resting_heart_rate"].append(f'{{"date":"{stamp(noon, offset)}","qty":{rng.randint(48, 62)},"source":"{WATCH}"}}')
    metrics["heart_rate_variability"].append(f'{{"date":"{stamp(noon, offset)}","qty":{round(rng.uniform(20, 90), 2)},"source":"{WATCH}"}}')
    core, deep, rem, awake = (round(rng.uniform(a, b), 3) for a, b in ((3, 4.5), (0.5, 1.5), (1, 2), (0, 0.5)))
    sleep_start = start - dt.timedelta(minutes=50)
    sleep_end = sleep_start + dt.timedelta(hours=core + deep + rem + awake)
    metrics["sleep_analysis"].append(
        f'{{"date":"{(start + dt.timedelta(minutes=offset)).date()}","sleepStart":"{stamp(sleep_start, offset)}","sleepEnd":"{stamp(sleep_end, offset)}",'
        f'"inBedStart":"{stamp(sleep_start, offset)}","inBedEnd":"{stamp(sleep_end, offset)}","totalSleep":{round(core + deep + rem, 3)},'
        f'"asleep":0,"core":{core},"deep":{deep},"rem":{rem},"awake":{awake},"inBed":{round(core + deep + rem + awake, 3)},"source":"{WATCH}"}}')
    if day.toordinal() % 3 == 0:
        run = start + dt.timedelta(hours=18)
        workouts.append(f'{{"name":"Outdoor Run","start":"{stamp(run, offset)}","end":"{stamp(run + dt.timedelta(minutes=40), offset)}",'
                        f'"activeEnergyBurned":{{"qty":{rng.randint(250, 450)},"units":"kcal"}},"distance":{{"qty":{round(rng.uniform(5, 9), 2)},"units":"km"}}}}')
    size += 1200
    day += dt.timedelta(days=1)

units = {"step_count": "count", "active_energy": "kcal", "heart_rate": "count/min", "resting_heart_rate": "count/min",
         "heart_rate_variability": "ms", "sleep_analysis": "hr"}
with open(out_path, "w") as f:
    f.write('{"data":{"metrics":[\n')
    f.write(",\n".join(f'{{"data":[\n' + ",\n".join(points) + f'\n],"name":"{name}","units":"{units[name]}"}}'
                       for name, points in metrics.items()))
    f.write('\n],"workouts":[\n' + ",\n".join(workouts) + "\n]}}\n")
