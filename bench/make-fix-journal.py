#!/usr/bin/env python3
"""Fills a state database's journal with N fixes at 1 Hz, as the gpsd adapter stores them
(records of its `journal` group in its own space, keyed by StateRecord.orderedKey of the first
fix's time: 60-second chunks of 36-byte little-endian fixes: time, lat, lon as float64;
altitude, error, speed as float32). The days repeat a pattern: home 8 h, walk, cafe, drive, office 8 h, drive
home, with +-4 m noise. Also writes the fixes as CSV (t,lat,lon) for the Python reference.

usage: make-fix-journal.py STATE_DB ADAPTER N CSV
"""
import math, random, sqlite3, struct, sys

db, adapter, n, csv_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(11)
LAT, LON = 52.52, 13.405
m_lon = 111_320 * math.cos(math.radians(LAT))
# (seconds, metres per second east) per day; the return drive heads west.
DAY = [(8 * 3600, 0), (900, 1.4), (2400, 0), (1200, 12), (8 * 3600, 0), (1200, -12), (1800, 0), (900, -1.4), (86400 - 8 * 3600 * 2 - 900 * 2 - 2400 - 1200 * 2 - 1800, 0)]
t, east, made = 1717200000.0, 0.0, 0
space = "adapter/" + adapter


def ordered_key(value):
    """StateRecord.orderedKey: IEEE 754 bits with the sign flipped into order, big-endian."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return struct.pack(">Q", (~bits & 0xFFFFFFFFFFFFFFFF) if bits >> 63 else bits | 1 << 63)


def insert(start, data):
    con.execute("INSERT INTO records(space, shelf, grp, key, value) VALUES(?, 0, 'journal', ?, ?)", (space, ordered_key(start), data))


con = sqlite3.connect(db)
con.execute("DELETE FROM records WHERE space = ? AND grp = 'journal'", (space,))
chunk_start, chunk = None, bytearray()
with open(csv_path, "w") as csv:
    while made < n:
        for seconds, speed in DAY:
            for _ in range(seconds):
                if made >= n:
                    break
                lat = LAT + rng.uniform(-4, 4) / 111_320
                lon = LON + (east + rng.uniform(-4, 4)) / m_lon
                if chunk_start is None or t >= chunk_start + 60:
                    if chunk:
                        insert(chunk_start, bytes(chunk))
                    chunk_start, chunk = t, bytearray()
                chunk += struct.pack("<dddfff", t, lat, lon, 34.0, 6.0, abs(speed))
                csv.write(f"{t:.0f},{lat:.7f},{lon:.7f}\n")
                t += 1; east += speed; made += 1
    if chunk:
        insert(chunk_start, bytes(chunk))
rows = con.execute("SELECT count(*) FROM records WHERE space = ? AND grp = 'journal'", (space,)).fetchone()[0]
con.execute("INSERT INTO record_groups(space, grp, changes) VALUES(?, 'journal', ?) ON CONFLICT DO UPDATE SET changes = excluded.changes, settled = NULL",
            (space, rows))
con.execute("DELETE FROM anchors WHERE adapter = ?", (adapter,))
con.commit()
print(f"{made} fixes in {rows} journal records")
