#!/usr/bin/env python3
"""Writes a synthetic Health Auto Export CSV of about SIZE MB (default 130) for the benchmark: a
row per minute from 07:00 to 23:00 with active energy (kJ) and steps, heart rate Min/Max/Avg
every 5 minutes, and a midnight row per day with resting heart rate, HRV and the night's sleep
stages, as the app writes them (no offset: TimeZone= places them; some numbers quoted; CRLF).
Deterministic (seeded).

usage: make-hae-csv.py OUT.csv [SIZE_MB]
"""
import datetime as dt
import random
import sys

out_path = sys.argv[1]
target = int(float(sys.argv[2] if len(sys.argv) > 2 else 130) * 1_000_000)
rng = random.Random(11)
header = ["Date/Time", "Active Energy (kJ)", "Heart Rate [Min] (count/min)", "Heart Rate [Max] (count/min)",
          "Heart Rate [Avg] (count/min)", "Resting Heart Rate (count/min)", "Step Count (count)",
          "Heart Rate Variability (ms)", "Sleep Analysis [Total] (hr)", "Sleep Analysis [Asleep] (hr)",
          "Sleep Analysis [Core] (hr)", "Sleep Analysis [Deep] (hr)", "Sleep Analysis [REM] (hr)",
          "Sleep Analysis [In Bed] (hr)", "Flights Climbed (count)"]


def num(x):
    return f'"{x}"' if rng.random() < 0.05 else str(x)


size = 0
day = dt.datetime(2019, 1, 1)
with open(out_path, "w", newline="") as f:
    def row(cells):
        global size
        line = ",".join(cells) + "\r\n"
        size += len(line)
        f.write(line)
    row(header)
    while size < target:
        core, deep, rem = round(rng.uniform(3, 4.5), 2), round(rng.uniform(0.8, 1.6), 2), round(rng.uniform(1, 1.8), 2)
        row([day.strftime("%Y-%m-%d %H:%M:%S"), "", "", "", "", num(rng.randint(48, 60)), "", num(rng.randint(25, 70)),
             str(round(core + deep + rem, 2)), "0", str(core), str(deep), str(rem), str(round(core + deep + rem + 0.6, 2)), ""])
        for minute in range(7 * 60, 23 * 60):
            t = day + dt.timedelta(minutes=minute)
            hr = ["", "", ""]
            if minute % 5 == 0:
                lo = rng.randint(55, 80)
                hr = [num(lo), num(lo + rng.randint(5, 40)), str(lo + rng.randint(2, 5))]
            row([t.strftime("%Y-%m-%d %H:%M:%S"), num(round(rng.uniform(0.5, 40), 1)), *hr, "", num(rng.randint(0, 140)),
                 "", "", "", "", "", "", "", ""])
        day += dt.timedelta(days=1)
