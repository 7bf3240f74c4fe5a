#!/usr/bin/env python3
"""A long run of the release `hearthloom-ingest watch` against real parts (`make soak SOAK_MINUTES=N`).

For N minutes, `watch` follows gpsd (gpsfake, 1 Hz), three mpv players on a private session bus, the
focus test service toggling do-not-disturb, photo/contact/calendar folders that gain a file each
minute, and captures from a loop, while the test node restarts every 5 minutes (a third of the run
when that is shorter), `watch` is SIGSTOPped once (a suspend: a third of the run, at most 10
minutes) and its wall clock steps an hour back and forward again (wallclock_shift.c). Then everything
quiets down, the outbox empties, and `watch` is stopped with SIGTERM.

It passes only when every produced item is at the node exactly once, no item is dated in the future
or has a negative duration, the peaks of RSS, open descriptors and threads in the last third are
within 5 % of the first third, and no gap between watchdog pings reaches WATCHDOG_USEC (time spent
SIGSTOPped not counted). It prints one summary and exits 1 naming each failure.

usage: soak.py --binary PATH [--minutes N] [--keep DIR]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import activity
import checks
from world import REPO, TOKEN, Bus, FocusService, GPSFake, Node, Watch, stop_pid, wait_for


def watchdog_usec():
    """WatchdogSec= of the shipped unit, as systemd passes it in WATCHDOG_USEC."""
    with open(os.path.join(REPO, "systemd/hearthloom-ingest-watch.service")) as f:
        for line in f:
            if line.startswith("WatchdogSec="):
                return int(line.split("=", 1)[1].strip().rstrip("s")) * 1_000_000
    raise RuntimeError("no WatchdogSec= in systemd/hearthloom-ingest-watch.service")


class Plan:
    """When each event happens, in seconds from the start, scaled to the run's length."""

    def __init__(self, minutes):
        self.length = minutes * 60
        self.restart_every = min(300, self.length / 3)
        self.suspend_at, self.suspend_for = self.length * 0.2, min(600, self.length / 3)
        self.step_back_at, self.step_forward_at = self.length * 0.6, self.length * 0.75
        self.capture_every, self.files_every, self.focus_every = 5, 60, 15

    def suspended(self, t, margin=0):
        return self.suspend_at - margin <= t < self.suspend_at + self.suspend_for


class Soak:
    def __init__(self, args):
        self.args, self.plan = args, Plan(args.minutes)
        self.root = args.keep or tempfile.mkdtemp(prefix="soak-")
        os.makedirs(self.root, exist_ok=True)
        self.produced = activity.Produced()
        self.failures, self.events = [], []
        self.stopping = threading.Event()
        self.focus_on = threading.Event()       # do-not-disturb is on: the clock steps only then
        self.parts = []

    def log(self, text):
        line = f"[{time.monotonic() - self.t0:7.1f}s] {text}" if hasattr(self, "t0") else text
        self.events.append(line)
        print(line, flush=True)

    def setup(self):
        root = self.root
        self.node = Node(root)
        self.session, self.system = Bus(root, "session"), Bus(root, "system")
        self.parts += [self.session, self.system]
        config, state = os.path.join(root, "config"), os.path.join(root, "state")
        os.makedirs(config + "/adapters.d", exist_ok=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root, "HEARTHLOOM_CONFIG_DIR": config,
                    "HEARTHLOOM_STATE_DIR": state, "DBUS_SESSION_BUS_ADDRESS": self.session.address,
                    "DBUS_SYSTEM_BUS_ADDRESS": self.system.address}
        with open(config + "/node.conf", "w") as f:
            f.write(f"[Node]\nURL={self.node.url}\n")
        with open(config + "/token", "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(config + "/token", 0o600)
        self.files = activity.Files(root, self.produced)
        start = time.time()
        self.stays = activity.nmea_log(root + "/soak.nmea", start, self.plan.length + 300)
        # gpsfake: one sentence every 1/3 s, three sentences a fix: 1 Hz.
        self.gps = GPSFake(root, root + "/soak.nmea", 1 / 3)
        self.parts.append(self.gps)
        adapters = {"gps": f"Type=gpsd\nHost=127.0.0.1\nPort={self.gps.port}\nMinStay=2min\n",
                    "music": "Type=mpris\n", "focus": "Type=focus\nMinSpan=1s\n",
                    "photos": f"Type=photos\nPath={self.files.dirs['photos']}\n",
                    "contacts": f"Type=contacts\nPath={self.files.dirs['contacts']}\n",
                    "calendar": f"Type=calendar\nPath={self.files.dirs['calendar']}\n"}
        for name, body in adapters.items():
            with open(f"{config}/adapters.d/{name}.conf", "w") as f:
                f.write("[Adapter]\n" + body)
        self.focus = FocusService(self.session, self.env)
        self.parts.append(self.focus)
        self.usec = watchdog_usec()
        self.watch = Watch(root, self.args.binary, self.env, self.usec)
        self.t0 = time.monotonic()
        self.sampler = checks.Sampler(self.watch.pid, 2)
        self.log(f"watch pid {self.watch.pid}, node {self.node.url}, gpsd port {self.gps.port}, files in {root}")

    def elapsed(self):
        return time.monotonic() - self.t0

    def every(self, seconds, action, name, pause_in_suspend=False, first=0):
        """Runs `action(n)` every `seconds` (the first after `first`) until the run ends, on its own
        thread; with `pause_in_suspend`, not from 20 s before the suspend until its end."""
        def loop():
            n = 0
            while not self.stopping.wait(first if n == 0 else seconds):
                if pause_in_suspend and self.plan.suspended(self.elapsed(), margin=20):
                    continue
                n += 1
                try:
                    action(n)
                except Exception as e:             # a producer's failure is a soak failure, named
                    self.failures.append(f"{name}: {e}")
        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        return thread

    def player(self, slot):
        """One of three players: a 60 s tone at 10x (6 s), then a pause; none start near or in the
        suspend (a suspended machine plays nothing)."""
        def action(n):
            activity.play(self.session.dir, self.env, f"soak play {slot}-{n:04d}", self.produced)
        return self.every(4 + slot, action, f"player {slot}", pause_in_suspend=True)

    def toggle_focus(self, n):
        self.focus.set("inhibited", True)
        on = (time.monotonic(), time.time(), self.offset)
        self.focus_on.set()
        time.sleep(self.plan.focus_every / 2)
        self.focus_on.clear()
        self.focus.set("inhibited", False)
        with self.produced.lock:
            self.produced.focus_spans.append((on[0], time.monotonic(), on[1], on[2], self.offset))

    def drive(self):
        """Runs the producers and, from the main thread, the suspend and the two clock steps. Each
        step waits for a do-not-disturb span to be on, so one span starts before and ends after it."""
        plan, self.offset, self.steps = self.plan, 0, []
        threads = [self.every(plan.capture_every, lambda n: activity.capture(self.args.binary, self.env, n, self.produced), "captures"),
                   self.every(plan.files_every, lambda n: self.files.add(), "files"),
                   self.every(plan.focus_every, self.toggle_focus, "focus", pause_in_suspend=True)]
        threads += [self.player(slot) for slot in (1, 2, 3)]
        threads.append(self.every(plan.restart_every, self.restart_node, "node restarts", first=plan.restart_every))
        suspended, stepped = False, 0
        while self.elapsed() < plan.length:
            t = self.elapsed()
            if not suspended and t >= plan.suspend_at:
                self.log(f"watch: SIGSTOP for {plan.suspend_for:.0f} s")
                self.watch.suspend(plan.suspend_for)
                self.log("watch: SIGCONT")
                suspended = True
            elif stepped == 0 and t >= plan.step_back_at and self.focus_on.is_set():
                self.offset = -3600
                self.watch.set_offset(self.offset)
                self.log("wall clock of watch: one hour back")
                self.steps = [t]
                stepped = 1
            elif stepped == 1 and t >= plan.step_forward_at and self.focus_on.is_set():
                self.offset = 0
                self.watch.set_offset(0)
                self.log("wall clock of watch: forward again")
                self.steps.append(t)
                stepped = 2
            time.sleep(0.5)
        self.stopping.set()
        for thread in threads:
            thread.join()
        self.fed_until = time.time()

    def restart_node(self, n):
        """Stopped by its pid with SIGTERM, down 3 s (what `watch` queues meanwhile waits), started again."""
        if self.plan.length - self.elapsed() > 30:
            self.log(f"node: restart {n}")
            self.node.restart(3)

    def settle(self):
        """Waits until the outbox is empty and the node holds what it will hold, then stops `watch`.
        An empty outbox alone is not enough: the last focus span and play end just before this, and
        under load `watch` may not have queued them yet. So it also waits, for at most a minute, for
        the node to hold as many closed spans and plays as were made; what is still missing then is
        reported by `verify`, item by item."""
        def outbox_empty():
            r = subprocess.run([self.args.binary, "status", "--json"], env=self.env, capture_output=True, text=True)
            outbox = json.loads(r.stdout).get("outbox", {}) if r.returncode in (0, 1) and r.stdout else {"?": 1}
            return not any(outbox.values())

        def node_caught_up():
            records = self.node.admin("items")["items"]
            closed = sum(1 for r in records if r["endpoint"] == "focus" and r["item"].get("end"))
            plays = sum(1 for r in records if r["endpoint"] == "media")
            return closed >= len(self.produced.focus_spans) and plays >= len(self.produced.plays) and outbox_empty()
        start = time.monotonic()
        try:
            wait_for(outbox_empty, 180, "the outbox to empty")
        except RuntimeError as e:
            self.failures.append(str(e))
        try:
            wait_for(node_caught_up, 60, "the node to hold every closed focus span and play")
        except RuntimeError as e:
            self.log(f"{e}; the checks below name what is missing")
        self.settle_s = time.monotonic() - start
        self.sampler.stop()
        self.stop_t = time.monotonic()
        rc = self.watch.stop()
        if rc != 0:
            self.failures.append(f"watch exited {rc} on SIGTERM")
        self.watch_rc = rc

    def verify(self):
        records = self.node.admin("items")["items"]
        now, p, f = time.time(), self.produced, self.failures
        checks.exactly_once("captures", p.captures, checks.by(records, "capture", "text"), f)
        checks.exactly_once("photos", p.photos, checks.by(records, "photos", "file.name"), f)
        checks.exactly_once("contacts", p.contacts, checks.by(records, "contacts", "key"), f)
        checks.exactly_once("events", p.events, checks.by(records, "calendar", "key"), f)
        checks.exactly_once("plays", p.plays, checks.by(records, "media", "title"), f)
        self.check_focus(records)
        self.repeated = checks.duplicates(records, f)
        self.future, self.negative = checks.times(records, now, f)
        self.visits = checks.visits(records, self.stays, self.fed_until, self.suspended_epochs(), f)
        self.res = checks.resources(self.sampler.samples, self.t0, self.stop_t, f)
        self.dog = checks.watchdog(self.watch.notify.messages, self.usec, self.watch.stops, self.stop_t, f)
        self.records = records

    def suspended_epochs(self):
        shift = time.time() - time.monotonic()
        return [(s + shift, e + shift) for s, e in self.watch.stops]

    def check_focus(self, records):
        """Each do-not-disturb span toggled is one closed span at the node, as long as it really
        was on, dated by the clock `watch` saw when it ended: spans toggled during the step back
        are an hour early, which shows `watch` read the faked wall clock, and a span a step cut
        through moved with the step, keeping its true length."""
        spans = [r for r in records if r["endpoint"] == "focus" and r["item"].get("mode") == "do-not-disturb"]
        starts = [(checks.epoch(r["item"]["start"]), r) for r in spans]
        matched, self.faked_seen, self.cut = set(), 0, []
        for mono_on, mono_off, real_on, offset_on, offset_off in self.produced.focus_spans:
            hits = [r for s, r in starts if abs(s - (real_on + offset_off)) < 5 and r["key"] not in matched]
            if not hits:
                self.failures.append(f"focus: no span at the node for the one turned on at "
                                     f"{time.strftime('%H:%M:%S', time.gmtime(real_on))} (clock offset {offset_on} s, then {offset_off} s)")
                continue
            matched.add(hits[0]["key"])
            self.faked_seen += offset_off != 0
            item, lasted = hits[0]["item"], mono_off - mono_on
            length = checks.epoch(item["end"]) - checks.epoch(item["start"]) if item.get("end") else None
            if offset_on != offset_off:
                self.cut.append(f"{length:.0f} s for {lasted:.0f} s" if length is not None else "still open")
            if length is not None and abs(length - lasted) > 5:
                self.failures.append(f"focus: the span turned on at {time.strftime('%H:%M:%S', time.gmtime(real_on))} "
                                     f"lasts {length:.0f} s at the node, {lasted:.0f} s in truth")
        extra = [r["key"] for r in spans if r["key"] not in matched]
        if extra:
            self.failures.append(f"focus: {len(extra)} spans at the node were never toggled, e.g. {extra[:2]}")
        still_open = [r["key"] for r in spans if r["item"].get("end") is None]
        if still_open:
            self.failures.append(f"focus: {len(still_open)} spans still open at the node")
        if not self.steps:
            self.failures.append("faketime: the wall clock was never stepped")
        elif not self.cut:
            self.failures.append("focus: no span was on across a step of the clock")
        elif not self.faked_seen:
            self.failures.append("faketime: no span toggled during the step back is dated an hour early")

    def summary(self):
        p, r, plan = self.produced, self.res, self.plan
        counts = self.node.admin("counts")
        lines = [f"soak: {self.args.minutes} min of watch ({self.args.binary}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
                 f"  produced: {len(p.captures)} captures ({p.failed_captures} failed to queue), {len(p.photos)} photos, "
                 f"{len(p.contacts)} contacts, {len(p.events)} events, {len(p.plays)} plays ({p.unfinished_plays} unfinished), "
                 f"{len(p.focus_spans)} focus spans, {len(self.stays)} planned stays ({self.visits[1]} fed whole)",
                 f"  node: {len(self.records)} items ({self.visits[0]} visits), {self.node.restarts} restarts (since the last: {counts['requests']} "
                 f"ingest requests, status {counts['status']}), {self.repeated} repeated deliveries",
                 f"  suspend: SIGSTOP {plan.suspend_for:.0f} s at {plan.suspend_at:.0f} s; wall clock -1 h from "
                 f"{' s to '.join(f'{t:.0f}' for t in self.steps)} s ({self.faked_seen} spans dated by the shifted clock; "
                 f"spans the steps cut through last {', '.join(self.cut) or 'none was cut'})",
                 f"  times: {self.future} items dated in the future, {self.negative} negative durations",
                 f"  watchdog: WATCHDOG_USEC {self.usec / 1e6:.0f} s, {self.dog[0]} pings, longest gap {self.dog[1]:.1f} s "
                 f"without the suspend ({self.dog[2]:.1f} s with it)",
                 f"  settle: outbox empty {self.settle_s:.1f} s after the run, watch exit {self.watch_rc}"]
        for name, unit in (("rss", "KiB"), ("fds", "fds"), ("threads", "threads")):
            if name in r:
                first, last, per_min, at_peak = r[name]
                lines.append(f"  {name}: peak {first} {unit} in the first third, {last} in the last ({(last / first - 1) * 100:+.1f} %, "
                             f"{at_peak} of the last third at it), slope {per_min:+.2f} {unit}/min")
        lines.append(f"  VmHWM at the end: {r.get('hwm', 0)} KiB; {len(self.sampler.samples)} samples")
        lines.append("PASS" if not self.failures else "FAIL:\n" + "\n".join("  - " + f for f in self.failures))
        return "\n".join(lines)

    def print_log_tails(self, lines=40):
        """A failed run's folder is gone in CI: the ends of watch's and the node's logs say what they did last."""
        for name in ("watch.log", "node.log"):
            path = os.path.join(self.root, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    tail = f.readlines()[-lines:]
                print(f"--- the last {len(tail)} lines of {name}\n" + "".join(tail), end="", flush=True)

    def teardown(self):
        self.stopping.set()
        if hasattr(self, "watch") and self.watch.proc.poll() is None:
            self.watch.stop()
        for part in reversed(self.parts):
            part.stop()
        self.node.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True, help="the release hearthloom-ingest")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--keep", help="work in this folder and leave it (logs, state, node items)")
    args = ap.parse_args()
    for tool in ("cc", "gpsfake", "mpv", "ffmpeg", "exiftool", "dbus-daemon"):
        if not shutil.which(tool):
            sys.exit(f"soak: {tool} is not installed (make deps)")
    soak = Soak(args)
    try:
        soak.setup()
        soak.drive()
        soak.settle()
        soak.verify()
        print(soak.summary(), flush=True)
        if soak.failures:
            soak.print_log_tails()
        if args.keep:
            with open(os.path.join(soak.root, "node-items.json"), "w") as f:
                json.dump(soak.records, f, indent=1)
    finally:
        soak.teardown()
        if not args.keep:
            shutil.rmtree(soak.root, ignore_errors=True)
    return 1 if soak.failures else 0


if __name__ == "__main__":
    sys.exit(main())
