#!/usr/bin/env python3
"""Builds a Health Connect export (`Health Connect.zip` holding `health_connect_export.db`) in
the schema AOSP's HealthFitness module writes (see Sources/Adapters/Health/README.md).

    make_export.py OUT.zip              the test fixture: two apps overlapping in time, a DST
                                        change (Europe/Berlin, 2024-03-31) and two zones
    make_export.py OUT.zip --bench-mb N the same plus per-minute heart rate and steps for years,
                                        until the database is about N MB (the benchmark)
    make_export.py OUT.zip --not-hc     an SQLite database of another schema under the same name
"""
import argparse, os, sqlite3, sys, tempfile, uuid, zipfile
from datetime import datetime, timedelta, timezone

BASE = ("row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB UNIQUE, last_modified_time INTEGER, client_record_id TEXT, "
        "client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE")
INTERVAL = ("start_time INTEGER, start_zone_offset INTEGER, end_time INTEGER, end_zone_offset INTEGER, "
            "local_date_time_start_time INTEGER GENERATED ALWAYS AS (start_time + 1000 * start_zone_offset) VIRTUAL, "
            "local_date_time_end_time INTEGER GENERATED ALWAYS AS (end_time + 1000 * end_zone_offset) VIRTUAL")
INSTANT = ("time INTEGER, zone_offset INTEGER, local_date INTEGER, "
           "local_date_time INTEGER GENERATED ALWAYS AS (time + 1000 * zone_offset) VIRTUAL")
SCHEMA = f"""
CREATE TABLE application_info_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, package_name TEXT NOT NULL UNIQUE, app_name TEXT, app_icon BLOB, record_types_used TEXT);
CREATE TABLE device_info_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, manufacturer TEXT, model TEXT, device_type INTEGER);
CREATE TABLE steps_record_table ({BASE}, {INTERVAL}, count INTEGER);
CREATE TABLE distance_record_table ({BASE}, {INTERVAL}, distance REAL);
CREATE TABLE active_calories_burned_record_table ({BASE}, {INTERVAL}, energy REAL);
CREATE TABLE total_calories_burned_record_table ({BASE}, {INTERVAL}, energy REAL);
CREATE TABLE heart_rate_record_table ({BASE}, {INTERVAL});
CREATE TABLE heart_rate_record_series_table (parent_key INTEGER, beats_per_minute INTEGER, epoch_millis INTEGER,
    FOREIGN KEY (parent_key) REFERENCES heart_rate_record_table(row_id) ON DELETE CASCADE);
CREATE TABLE resting_heart_rate_record_table ({BASE}, {INSTANT}, beats_per_minute INTEGER);
CREATE TABLE heart_rate_variability_rmssd_record_table ({BASE}, {INSTANT}, heart_rate_variability_millis REAL NOT NULL);
CREATE TABLE sleep_session_record_table ({BASE}, {INTERVAL}, notes TEXT, title TEXT);
CREATE TABLE sleep_stages_table (parent_key INTEGER NOT NULL, stage_start_time INTEGER NOT NULL, stage_end_time INTEGER NOT NULL,
    stage_type INTEGER NOT NULL, FOREIGN KEY (parent_key) REFERENCES sleep_session_record_table(row_id) ON DELETE CASCADE);
CREATE TABLE exercise_session_record_table ({BASE}, {INTERVAL}, notes TEXT, exercise_type INTEGER, title TEXT, has_route INTEGER,
    planned_exercise_session_id BLOB);
CREATE TABLE access_logs_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, app_id INTEGER, access_time INTEGER);
"""
USER_VERSION = 17          # DatabaseVersions.DB_VERSION_ECOSYSTEM_METRICS
FITBIT, FIT = 1, 2         # application_info_table rows


def ms(text):
    """`2024-06-01 08:00 +0200` → (epoch ms, offset seconds)."""
    t = datetime.strptime(text, "%Y-%m-%d %H:%M %z")
    return int(t.timestamp() * 1000), int(t.utcoffset().total_seconds())


class Export:
    def __init__(self, db):
        self.db = db

    def record(self, table, app, columns, values):
        cols = ["uuid", "app_info_id", "last_modified_time"] + columns
        self.db.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [uuid.uuid4().bytes, app, 0] + values)
        return self.db.execute("SELECT last_insert_rowid()").fetchone()[0]

    def interval(self, table, app, start, end, **extra):
        (s, so), (e, eo) = ms(start), ms(end)
        return self.record(table, app, ["start_time", "start_zone_offset", "end_time", "end_zone_offset"] + list(extra),
                           [s, so, e, eo] + list(extra.values()))

    def instant(self, table, app, at, **extra):
        t, o = ms(at)
        return self.record(table, app, ["time", "zone_offset", "local_date"] + list(extra), [t, o, (t // 1000 + o) // 86400] + list(extra.values()))

    def steps(self, app, start, end, count):
        self.interval("steps_record_table", app, start, end, count=count)

    def heart_rate(self, app, start, end, samples):
        parent = self.interval("heart_rate_record_table", app, start, end)
        self.db.executemany("INSERT INTO heart_rate_record_series_table VALUES (?, ?, ?)", [(parent, bpm, ms(at)[0]) for at, bpm in samples])

    def sleep(self, app, start, end, stages):
        parent = self.interval("sleep_session_record_table", app, start, end)
        self.db.executemany("INSERT INTO sleep_stages_table VALUES (?, ?, ?, ?)", [(parent, ms(a)[0], ms(b)[0], t) for a, b, t in stages])


def fixture(x):
    x.db.executemany("INSERT INTO application_info_table (row_id, package_name, app_name) VALUES (?, ?, ?)",
                     [(FITBIT, "com.fitbit.FitbitMobile", "Fitbit"), (FIT, "com.google.android.apps.fitness", "Fit")])
    # 2024-06-01 (+02:00): the watch app and the phone app overlap at 08:02–08:08.
    x.steps(FITBIT, "2024-06-01 08:00 +0200", "2024-06-01 08:10 +0200", 1000)
    x.steps(FIT, "2024-06-01 08:02 +0200", "2024-06-01 08:08 +0200", 800)
    x.steps(FIT, "2024-06-01 10:00 +0200", "2024-06-01 10:05 +0200", 300)
    x.heart_rate(FITBIT, "2024-06-01 08:00 +0200", "2024-06-01 20:00 +0200",
                 [("2024-06-01 08:01 +0200", 70), ("2024-06-01 08:05 +0200", 95), ("2024-06-01 20:00 +0200", 60)])
    x.instant("resting_heart_rate_record_table", FITBIT, "2024-06-01 07:00 +0200", beats_per_minute=52)
    x.instant("resting_heart_rate_record_table", FIT, "2024-06-01 07:30 +0200", beats_per_minute=56)
    x.instant("heart_rate_variability_rmssd_record_table", FITBIT, "2024-06-01 03:00 +0200", heart_rate_variability_millis=40.5)
    x.instant("heart_rate_variability_rmssd_record_table", FITBIT, "2024-06-01 04:00 +0200", heart_rate_variability_millis=45.5)
    x.interval("active_calories_burned_record_table", FITBIT, "2024-06-01 08:00 +0200", "2024-06-01 08:10 +0200", energy=150000.0)
    x.interval("active_calories_burned_record_table", FIT, "2024-06-01 10:00 +0200", "2024-06-01 10:05 +0200", energy=50000.0)
    # The night to 2024-06-02, staged.
    x.sleep(FITBIT, "2024-06-01 23:00 +0200", "2024-06-02 07:00 +0200", [
        ("2024-06-01 23:00 +0200", "2024-06-01 23:15 +0200", 1), ("2024-06-01 23:15 +0200", "2024-06-02 01:00 +0200", 4),
        ("2024-06-02 01:00 +0200", "2024-06-02 02:30 +0200", 5), ("2024-06-02 02:30 +0200", "2024-06-02 03:30 +0200", 6),
        ("2024-06-02 03:30 +0200", "2024-06-02 06:45 +0200", 4), ("2024-06-02 06:45 +0200", "2024-06-02 07:00 +0200", 7)])
    # 2024-06-02: a run with the phone app (distance and active calories of its own, one record
    # half inside), the watch app's distance at the same time (another app's: not the run's),
    # and a walk with only total calories.
    x.interval("exercise_session_record_table", FIT, "2024-06-02 18:00 +0200", "2024-06-02 18:45 +0200", exercise_type=33, has_route=0)
    x.interval("distance_record_table", FIT, "2024-06-02 18:00 +0200", "2024-06-02 18:45 +0200", distance=5000.0)
    x.interval("distance_record_table", FIT, "2024-06-02 18:30 +0200", "2024-06-02 19:00 +0200", distance=1000.0)
    x.interval("distance_record_table", FITBIT, "2024-06-02 18:00 +0200", "2024-06-02 18:45 +0200", distance=4800.0)
    x.interval("active_calories_burned_record_table", FIT, "2024-06-02 18:00 +0200", "2024-06-02 18:45 +0200", energy=400000.0)
    x.interval("exercise_session_record_table", FITBIT, "2024-06-02 12:00 +0200", "2024-06-02 12:30 +0200", exercise_type=53, has_route=0)
    x.interval("total_calories_burned_record_table", FITBIT, "2024-06-02 12:00 +0200", "2024-06-02 12:30 +0200", energy=120000.0)
    # Europe/Berlin springs forward on 2024-03-31: +01:00 before 02:00, +02:00 after.
    x.steps(FITBIT, "2024-03-31 00:30 +0100", "2024-03-31 00:40 +0100", 100)      # 03-30 in UTC
    x.steps(FITBIT, "2024-03-31 01:50 +0100", "2024-03-31 01:55 +0100", 200)
    x.steps(FITBIT, "2024-03-31 03:10 +0200", "2024-03-31 03:15 +0200", 300)
    x.steps(FITBIT, "2024-04-01 00:30 +0200", "2024-04-01 00:35 +0200", 50)       # 03-31 in UTC
    # 2024-07-10, Berlin to New York: each sample on its own zone's date.
    x.steps(FITBIT, "2024-07-10 08:00 +0200", "2024-07-10 08:10 +0200", 1000)
    x.steps(FITBIT, "2024-07-10 18:00 -0400", "2024-07-10 18:10 -0400", 200)
    x.steps(FITBIT, "2024-07-10 23:30 -0400", "2024-07-10 23:40 -0400", 500)      # 07-11 in UTC


def bulk(x, megabytes, path):
    """Per-minute heart rate (one record an hour) and steps from 2019 on, until the file is big enough."""
    minute = datetime(2019, 1, 1, tzinfo=timezone(timedelta(hours=1)))
    while os.path.getsize(path) < megabytes * 1_000_000:
        for _ in range(24 * 30):
            start = int(minute.timestamp() * 1000)
            parent = x.record("heart_rate_record_table", FITBIT, ["start_time", "start_zone_offset", "end_time", "end_zone_offset"],
                              [start, 3600, start + 3_600_000, 3600])
            x.db.executemany("INSERT INTO heart_rate_record_series_table VALUES (?, ?, ?)",
                             [(parent, 55 + (i * 7) % 60, start + i * 60_000) for i in range(60)])
            x.db.executemany(f"INSERT INTO steps_record_table (uuid, app_info_id, start_time, start_zone_offset, end_time, end_zone_offset, count) "
                             f"VALUES (?, ?, ?, 3600, ?, 3600, ?)",
                             [(uuid.uuid4().bytes, FIT, start + i * 300_000, start + (i + 1) * 300_000, (i * 37) % 400) for i in range(12)])
            minute += timedelta(hours=1)
        x.db.commit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--bench-mb", type=int, default=0)
    ap.add_argument("--not-hc", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "health_connect_export.db")
        db = sqlite3.connect(path)
        if a.not_hc:
            db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        else:
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version = {USER_VERSION}")
            x = Export(db)
            fixture(x)
            db.commit()
            if a.bench_mb:
                bulk(x, a.bench_mb, path)
        db.commit()
        db.close()
        with zipfile.ZipFile(a.out, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(path, "health_connect_export.db")


if __name__ == "__main__":
    sys.exit(main())
