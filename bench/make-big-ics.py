#!/usr/bin/env python3
"""Writes the calendar benchmark's .ics: 5000 VEVENTs in four zones, about 50 000 occurrences
between their DTSTARTs and NOW + 90 days: 4500 single events in the past year and 500 series
(weekly and every-other-day with COUNT, endless weekly, endless monthly 2nd Tuesday), a few
with EXDATEs. Seeded, so the same NOW gives the same file. With --overrides, 300 RECURRENCE-ID
overrides of 100 weekly series follow at the end of the file (one hour later, retitled), where an
export can put them far from their series; the occurrence count stays the same.

With --eight-years, another 5000-event file, the one issue 26 found the agent slower and heavier
on: eight years of events in the same four zones (named by TZID, no VTIMEZONE blocks, as the
bench file too), 4400 single events spread over the eight years, 250 weekly series of 90,
200 every-third-day series of 80 and 150 endless monthly series on the second Tuesday from a
start somewhere in the eight years: about 50 000 occurrences.

usage: make-big-ics.py OUT.ics NOW [--overrides | --eight-years]   (NOW as YYYY-MM-DD, the day the benchmark runs)
"""
import datetime as dt
import random
import sys

ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]


def stamp(t):
    return t.strftime("%Y%m%dT%H%M%S")


def eight_years(i, now, rng, event):
    """Event `i` of the --eight-years file."""
    zone = ZONES[i % 4]
    hour = rng.randint(7, 19)
    span = 8 * 365
    if i < 4400:
        day = now - dt.timedelta(days=rng.randint(1, span))
        event(i, day.replace(hour=hour, minute=rng.choice([0, 15, 30, 45])), rng.choice([30, 60, 90]), zone)
    elif i < 4650:
        start = (now - dt.timedelta(days=rng.randint(500, span))).replace(hour=hour, minute=0)
        event(i, start, 60, zone, ["RRULE:FREQ=WEEKLY;COUNT=90"])
    elif i < 4850:
        start = (now - dt.timedelta(days=rng.randint(250, span))).replace(hour=hour, minute=30)
        event(i, start, 45, zone, ["RRULE:FREQ=DAILY;INTERVAL=3;COUNT=80"])
    else:
        start = (now - dt.timedelta(days=rng.randint(30, span))).replace(day=1, hour=hour, minute=0)
        start += dt.timedelta(days=(1 - start.weekday()) % 7 + 7)      # the second Tuesday
        event(i, start, 120, zone, ["RRULE:FREQ=MONTHLY;BYDAY=2TU"])


def main(out, now, overrides, eight):
    rng = random.Random(20261130)
    moved = []
    now = dt.datetime.strptime(now, "%Y-%m-%d")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//hearthloom//bench//EN", "X-WR-CALNAME:Bench"]

    def event(i, start, minutes, zone, extra=()):
        lines.extend([
            "BEGIN:VEVENT", f"UID:bench-{i:05d}@example.org", f"DTSTAMP:{stamp(now)}Z",
            f"SUMMARY:Event {i} in {zone.split('/')[1].replace('_', ' ')}",
            f"DTSTART;TZID={zone}:{stamp(start)}",
            f"DTEND;TZID={zone}:{stamp(start + dt.timedelta(minutes=minutes))}",
            f"LOCATION:Room {rng.randint(1, 40)}",
            "ORGANIZER;CN=Ana Lima:mailto:ana@example.org",
            f"ATTENDEE;CN=Guest {i % 97};ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:guest{i % 97}@example.org",
            *extra, "END:VEVENT"])

    for i in range(5000):
        if eight:
            eight_years(i, now, rng, event)
            continue
        zone = ZONES[i % 4]
        hour = rng.randint(7, 19)
        if i % 10:       # 4500 single events somewhere in the last year
            day = now - dt.timedelta(days=rng.randint(1, 365))
            event(i, day.replace(hour=hour, minute=rng.choice([0, 15, 30, 45])), rng.choice([30, 60, 90]), zone)
            continue
        kind = (i // 10) % 10
        if kind < 4:     # 200 weekly series, 91 occurrences (two a week on Mondays and Thursdays for some)
            start = (now - dt.timedelta(days=700 - rng.randint(0, 50))).replace(hour=hour, minute=0)
            rule = "RRULE:FREQ=WEEKLY;COUNT=91" if kind % 2 else "RRULE:FREQ=WEEKLY;BYDAY=MO,TH;COUNT=91"
            if rule.endswith("TH;COUNT=91"):
                start = start - dt.timedelta(days=start.weekday())          # a Monday
            exdate = [f"EXDATE;TZID={zone}:{stamp(start + dt.timedelta(weeks=3))}"] if kind == 1 else []
            event(i, start, 60, zone, [rule, *exdate])
            if kind % 2:  # plain weekly: occurrence k is k weeks on, at the same wall-clock time
                moved += [(i, start + dt.timedelta(weeks=k), zone) for k in (10, 20, 30)]
        elif kind < 7:   # 150 every-other-day series, 91 occurrences
            start = (now - dt.timedelta(days=200 - rng.randint(0, 10))).replace(hour=hour, minute=30)
            event(i, start, 45, zone, ["RRULE:FREQ=DAILY;INTERVAL=2;COUNT=91"])
        elif kind < 9:   # 100 endless weekly series from ~630 days ago: ~103 occurrences each
            start = (now - dt.timedelta(days=630 - rng.randint(0, 6))).replace(hour=hour, minute=0)
            event(i, start, 60, zone, ["RRULE:FREQ=WEEKLY"])
        else:            # 50 endless monthly series on the second Tuesday from 8 years ago: ~99 each
            start = dt.datetime(now.year - 8, now.month, 1, hour, 0)
            start += dt.timedelta(days=(1 - start.weekday()) % 7 + 7)      # the second Tuesday
            event(i, start, 120, zone, ["RRULE:FREQ=MONTHLY;BYDAY=2TU"])
    for i, at, zone in moved if overrides else []:
        lines.extend(["BEGIN:VEVENT", f"UID:bench-{i:05d}@example.org", f"DTSTAMP:{stamp(now)}Z",
                      f"RECURRENCE-ID;TZID={zone}:{stamp(at)}", f"SUMMARY:Event {i}, moved",
                      f"DTSTART;TZID={zone}:{stamp(at + dt.timedelta(hours=1))}",
                      f"DTEND;TZID={zone}:{stamp(at + dt.timedelta(hours=2))}", "END:VEVENT"])
    lines.append("END:VCALENDAR")
    with open(out, "w", newline="") as f:
        f.write("\r\n".join(lines) + "\r\n")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--overrides"], ["--eight-years"]):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:] == ["--overrides"], sys.argv[3:] == ["--eight-years"])
