#!/usr/bin/env python3
"""Writes a synthetic Apple Health export.xml of about SIZE_MB megabytes (default 1024).

Shaped like a real "Export All Health Data": the DTD, then Records grouped by type and
sorted by time (steps and energy from a watch and a phone, heart rate every few minutes,
resting heart rate and HRV daily, sleep stages nightly), Workouts with WorkoutStatistics,
and ActivitySummaries. Offsets follow Europe/Berlin's DST. Deterministic (seeded).

ORDER (default grouped) is how the Records follow each other: `grouped` by type, then time
(what the Health app writes); `interleaved` by time across all types (a merged export: steps,
heart rate and the rest alternate); `shuffled` in random order. The Records are the same in all
three; Workouts and ActivitySummaries follow them.

usage: make-export-xml.py OUT [SIZE_MB [ORDER]]
"""
import random, sys, datetime

out_path = sys.argv[1]
target = int(float(sys.argv[2]) if len(sys.argv) > 2 else 1024) * 1_000_000
order = sys.argv[3] if len(sys.argv) > 3 else "grouped"
assert order in ("grouped", "interleaved", "shuffled"), "ORDER: grouped, interleaved or shuffled"
rng = random.Random(5)
WATCH = 'sourceName="Anna&apos;s Apple Watch" sourceVersion="10.5" device="&lt;&lt;HKDevice: 0x283b1c2d0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.5&gt;"'
PHONE = 'sourceName="Anna’s iPhone" sourceVersion="17.5" device="&lt;&lt;HKDevice: 0x283b1c9a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.5&gt;"'

def offset(day):  # Berlin: CEST from the last Sunday of March to the last Sunday of October
    def last_sunday(month):
        d = datetime.date(day.year, month, 31)
        return d - datetime.timedelta(days=(d.weekday() + 1) % 7)
    return 2 if last_sunday(3) <= day < last_sunday(10) else 1

def stamp(day, minute):
    t = datetime.datetime(day.year, day.month, day.day) + datetime.timedelta(minutes=minute)
    return t.strftime("%Y-%m-%d %H:%M:%S") + " +0%d00" % offset(day)

def days(n):
    start = datetime.date(2016, 1, 1)
    return [start + datetime.timedelta(days=i) for i in range(n)]

# Records are written as they are made (grouped), or kept with their start to be reordered.
held = []
def emit(f, day, m0, text):
    if order == "grouped": f.write(text)
    else: held.append((day.toordinal(), m0, len(held), text))

def record(f, type_, src, unit, day, m0, m1, value):
    emit(f, day, m0, ' <Record type="%s" %s unit="%s" creationDate="%s" startDate="%s" endDate="%s" value="%s"/>\n'
         % (type_, src, unit, stamp(day, m1), stamp(day, m0), stamp(day, m1), value))

with open(out_path, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>\n'
            '<!ATTLIST Record\n  type CDATA #REQUIRED\n  value CDATA #IMPLIED>\n]>\n<HealthData locale="en_DE">\n'
            ' <ExportDate value="2026-11-30 12:00:00 +0100"/>\n <Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"/>\n')
    # Per day the types below write ~N bytes; pick the day count to reach the target.
    per_day = 167_000   # measured: bytes a day of the types below writes
    calendar = days(max(1, target // per_day))
    for day in calendar:   # steps: watch every 10 min of 10 waking hours, phone every 15
        for i in range(60):
            m = 8 * 60 + i * 10
            record(f, "HKQuantityTypeIdentifierStepCount", WATCH, "count", day, m, m + 10, rng.randint(0, 1200))
        for i in range(40):
            m = 8 * 60 + i * 15
            record(f, "HKQuantityTypeIdentifierStepCount", PHONE, "count", day, m + 1, m + 14, rng.randint(0, 1000))
    for day in calendar:
        for i in range(30):
            m = 8 * 60 + i * 20
            record(f, "HKQuantityTypeIdentifierActiveEnergyBurned", WATCH, "kcal", day, m, m + 20, round(rng.uniform(0, 40), 3))
    for day in calendar:
        for i in range(288):
            m = i * 5
            record(f, "HKQuantityTypeIdentifierHeartRate", WATCH, "count/min", day, m, m, rng.randint(48, 150))
    for day in calendar:
        record(f, "HKQuantityTypeIdentifierRestingHeartRate", WATCH, "count/min", day, 0, 23 * 60 + 59, rng.randint(50, 65))
        record(f, "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", WATCH, "ms", day, 180, 181, round(rng.uniform(20, 90), 3))
    for day in calendar:
        stages = ["Core", "Deep", "Core", "REM", "Awake", "Core", "REM", "Core"]
        m = 30
        for stage in stages:
            length = rng.randint(20, 70)
            emit(f, day, m, ' <Record type="HKCategoryTypeIdentifierSleepAnalysis" %s creationDate="%s" startDate="%s" endDate="%s" value="HKCategoryValueSleepAnalysis%s"/>\n'
                 % (WATCH, stamp(day, m + length), stamp(day, m), stamp(day, m + length), "Asleep" + stage if stage != "Awake" else "Awake"))
            m += length
    if order == "shuffled": random.Random(7).shuffle(held)
    else: held.sort()
    f.writelines(h[3] for h in held)
    held = []
    for day in calendar[::3]:
        f.write(' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.5" durationUnit="min" %s creationDate="%s" startDate="%s" endDate="%s">\n'
                % (WATCH, stamp(day, 7 * 60 + 40), stamp(day, 7 * 60 + 5), stamp(day, 7 * 60 + 36)))
        f.write('  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="%s" endDate="%s" sum="%.2f" unit="km"/>\n'
                % (stamp(day, 7 * 60 + 5), stamp(day, 7 * 60 + 36), rng.uniform(3, 8)))
        f.write('  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="%s" endDate="%s" sum="%.1f" unit="kcal"/>\n'
                % (stamp(day, 7 * 60 + 5), stamp(day, 7 * 60 + 36), rng.uniform(200, 500)))
        f.write(' </Workout>\n')
    for day in calendar:
        f.write(' <ActivitySummary dateComponents="%s" activeEnergyBurned="%.1f" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleExerciseTime="%d" appleExerciseTimeGoal="30" appleStandHours="%d" appleStandHoursGoal="12"/>\n'
                % (day.isoformat(), rng.uniform(200, 800), rng.randint(0, 90), rng.randint(4, 16)))
    f.write('</HealthData>\n')
