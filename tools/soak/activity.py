"""What the soak feeds `watch`, and the record of what it produced (what must reach the node):
an NMEA log of stays and walks, files derived from the repo's fixtures, captures, mpv plays and
focus spans."""

import datetime
import importlib.util
import math
import os
import random
import shutil
import subprocess
import threading
import time

from world import REPO

# The NMEA sentence shapes of fixtures/gpsd/make-day.py (GGA, GSA, RMC at 1 Hz, as a receiver sends).
_spec = importlib.util.spec_from_file_location("make_day", os.path.join(REPO, "fixtures/gpsd/make-day.py"))
make_day = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_day)

STAY_S, WALK_S, WALK_MPS = 240, 90, 2.0        # MinStay=2min in the soak's gps.conf: every stay is a visit
WARMUP_S = 20                                  # no-fix sentences while `watch` connects


def nmea_log(path, start, seconds):
    """Stays of STAY_S and walks east of WALK_S from `start` (epoch seconds) for `seconds`; returns the
    planned stays as (first fix time, last fix time)."""
    rng = random.Random(30)
    home = make_day.HOME
    m_per_deg_lon = make_day.M_PER_DEG_LAT * math.cos(math.radians(home[0]))
    lines, stays, t, east = [], [], start, 0.0
    for i in range(WARMUP_S):
        tm = time.gmtime(start - WARMUP_S + i)
        hms = time.strftime("%H%M%S", tm) + ".00"
        lines += [make_day.sentence(f"GPGGA,{hms},,,,,0,00,99.9,,M,,M,,"), make_day.sentence("GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9"),
                  make_day.sentence(f"GPRMC,{hms},V,,,,,,,{time.strftime('%d%m%y', tm)},,,N")]
    leg = 0
    while t < start + seconds:
        speed, length = (0.0, STAY_S) if leg % 2 == 0 else (WALK_MPS, WALK_S)
        first = t
        for _ in range(length):
            lat = home[0] + rng.uniform(-4, 4) / make_day.M_PER_DEG_LAT
            lon = home[1] + (east + rng.uniform(-4, 4)) / m_per_deg_lon
            tm = time.gmtime(t)
            hms, dmy = time.strftime("%H%M%S", tm) + ".00", time.strftime("%d%m%y", tm)
            (la, ns), (lo, ew) = make_day.dm(lat, True), make_day.dm(lon, False)
            knots = max(0.0, speed + rng.uniform(-0.2, 0.2)) / 0.514444
            lines += [make_day.sentence(f"GPGGA,{hms},{la},{ns},{lo},{ew},1,08,0.9,34.0,M,39.0,M,,"),
                      make_day.sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.6,0.9,1.3"),
                      make_day.sentence(f"GPRMC,{hms},A,{la},{ns},{lo},{ew},{knots:.2f},90.0,{dmy},,,A")]
            t += 1
            east += speed
        if speed == 0:
            stays.append((first, t - 1))
        leg += 1
    with open(path, "w", newline="") as f:
        f.writelines(lines)
    return stays


class Produced:
    """Everything the soak made that must reach the node, guarded by one lock (several threads add)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.captures, self.photos, self.contacts, self.events, self.plays = set(), set(), set(), set(), set()
        self.focus_spans = []                   # (monotonic on, monotonic off, real epoch on, offset at on, offset at off)
        self.failed_captures = 0
        self.unfinished_plays = 0

    def add(self, kind, value):
        with self.lock:
            getattr(self, kind).add(value)


class Files:
    """Each call adds one photo, one contact and one event, each derived from a demo fixture with a
    new identity (EXIF time and position, UID), written aside and renamed in as a sync tool does."""

    def __init__(self, root, produced):
        self.produced, self.n = produced, 0
        self.dirs = {k: os.path.join(root, k) for k in ("photos", "contacts", "calendar")}
        for d in self.dirs.values():
            os.makedirs(d, exist_ok=True)
        demo = os.path.join(REPO, "fixtures/demo")
        self.photo = os.path.join(demo, "photos/market.jpg")
        with open(os.path.join(demo, "contacts/work/c0ffee01-boss.vcf")) as f:
            self.vcard = f.read()
        with open(os.path.join(demo, "calendar/work/5d2f9a10-review.ics")) as f:
            self.ics = "".join(line for line in f.read().splitlines(True) if not line.startswith("RRULE"))

    def add(self):
        self.n += 1
        n, now = self.n, datetime.datetime.now(datetime.timezone.utc)
        taken = now - datetime.timedelta(hours=2)
        name = f"soak-{n:04d}.jpg"
        tmp = os.path.join(self.dirs["photos"], "." + name)
        shutil.copyfile(self.photo, tmp)
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-GPSLatitude={41 + n / 1000:.6f}", "-GPSLatitudeRef=N",
                        f"-DateTimeOriginal={taken:%Y:%m:%d %H:%M:%S}", "-OffsetTimeOriginal=+00:00", tmp], check=True)
        self._place(tmp, os.path.join(self.dirs["photos"], name))
        self.produced.add("photos", name)
        uid = f"soak-contact-{n:04d}"
        self._write("contacts", uid + ".vcf", self.vcard.replace("UID:c0ffee01-boss", "UID:" + uid)
                    .replace("FN:Priya Raman", f"FN:Soak Contact {n}"))
        self.produced.add("contacts", uid)
        uid = f"soak-event-{n:04d}"
        start = (now - datetime.timedelta(hours=3)).strftime("%Y%m%dT%H%M%SZ")
        end = (now - datetime.timedelta(hours=2)).strftime("%Y%m%dT%H%M%SZ")
        self._write("calendar", uid + ".ics", self.ics.replace("UID:5d2f9a10-review", "UID:" + uid)
                    .replace("DTSTART;TZID=Europe/Berlin:20250331T150000", "DTSTART:" + start)
                    .replace("DTEND;TZID=Europe/Berlin:20250331T160000", "DTEND:" + end))
        self.produced.add("events", uid)

    def _write(self, kind, name, text):
        tmp = os.path.join(self.dirs[kind], "." + name)
        with open(tmp, "w") as f:
            f.write(text)
        self._place(tmp, os.path.join(self.dirs[kind], name))

    @staticmethod
    def _place(tmp, path):
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)


def capture(binary, env, n, produced):
    text = f"soak capture {n:05d}"
    r = subprocess.run([binary, "capture", text], env=env, capture_output=True, text=True)
    if r.returncode == 0:
        produced.add("captures", text)
    else:
        with produced.lock:
            produced.failed_captures += 1


def tone(folder, title, seconds):
    """A tagged Ogg tone (ffmpeg), as the MPRIS tests make them."""
    path = os.path.join(folder, title.replace(" ", "-") + ".ogg")
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}",
                    "-metadata", f"title={title}", "-metadata", "artist=The Sines", "-metadata", "album=Soak Tones", path], check=True)
    return path


def play(folder, env, title, produced, seconds=60, speed=10):
    """One mpv (with mpv-mpris) plays a tone once through at `speed`; a play that ran to its end must
    reach the node once."""
    path = tone(folder, title, seconds)
    r = subprocess.run(["mpv", "--no-config", "--script=/usr/lib/mpv-mpris/mpris.so", "--no-video", "--ao=null",
                        f"--speed={speed}", "--no-terminal", path], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.unlink(path)
    if r.returncode == 0:
        produced.add("plays", title)
    else:
        with produced.lock:
            produced.unfinished_plays += 1
