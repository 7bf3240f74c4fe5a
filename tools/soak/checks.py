"""The soak's pass conditions: what reached the node against what was produced, item times,
`watch`'s resources over the run, and its watchdog pings."""

import datetime
import os
import threading
import time

SPANS = {"media": ("started_at", "ended_at"), "location": ("arrival", "departure"), "motion": ("start", "end"),
         "focus": ("start", "end"), "calendar": ("start", "end")}
TIMES = {"capture": ("captured_at",), "photos": ("taken_at",), **SPANS}


def epoch(text):
    """An RFC 3339 time (or a floating one, read as UTC: this machine's zone) as epoch seconds."""
    t = datetime.datetime.fromisoformat(text)
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def by(records, endpoint, field):
    """{field value: [records]} of one endpoint's items at the node."""
    found = {}
    for r in records:
        if r["endpoint"] == endpoint:
            value = r["item"]
            for part in field.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            found.setdefault(value, []).append(r)
    return found


def exactly_once(name, produced, at_node, failures):
    """Each produced thing is one item at the node, received once; nothing else is there."""
    missing = sorted(p for p in produced if p not in at_node)
    doubled = sorted(k for k, recs in at_node.items() if len(recs) > 1)
    unexpected = sorted(str(k) for k in at_node if k not in produced)
    if missing:
        failures.append(f"{name}: {len(missing)} of {len(produced)} never reached the node, e.g. {missing[:3]}")
    if doubled:
        failures.append(f"{name}: {len(doubled)} stored as two items, e.g. {doubled[:3]}")
    if unexpected:
        failures.append(f"{name}: {len(unexpected)} at the node were never produced, e.g. {unexpected[:3]}")


def duplicates(records, failures):
    """The test node counts every receipt of an item and every accepted version (receipts, accepts);
    a receipt that was not a new version is a delivery the agent repeated."""
    repeated = [r for r in records if r["receipts"] > r["accepts"]]
    for r in repeated[:5]:
        failures.append(f"duplicate delivery: {r['endpoint']} {r['key']} received {r['receipts']} times, "
                        f"{r['accepts']} versions")
    if len(repeated) > 5:
        failures.append(f"duplicate delivery: {len(repeated) - 5} more items")
    return sum(r["receipts"] - r["accepts"] for r in repeated)


def times(records, now, failures):
    """No time after `now` (the real clock when the node was read), no span ending before it starts."""
    future = negative = 0
    for r in records:
        item, fields = r["item"], TIMES.get(r["endpoint"], ())
        values = {f: epoch(item[f]) for f in fields if isinstance(item.get(f), str)}
        if any(v > now + 1 for v in values.values()):
            future += 1
            if future <= 3:
                failures.append(f"dated in the future: {r['endpoint']} {r['key']} {[item.get(f) for f in fields]}")
        span = SPANS.get(r["endpoint"])
        played = item.get("played_s", 0)
        if span and all(f in values for f in span) and values[span[1]] < values[span[0]] or played < 0:
            negative += 1
            if negative <= 3:
                failures.append(f"negative duration: {r['endpoint']} {r['key']} {item.get(span[0])} .. {item.get(span[1])}"
                                + (f", played_s {played}" if r["endpoint"] == "media" else ""))
    if future > 3 or negative > 3:
        failures.append(f"{future} items dated in the future, {negative} with a negative duration in all")
    return future, negative


def visits(records, stays, fed_until, suspended, failures):
    """Each planned stay that was fed whole, while `watch` ran, is one visit; none is two. A visit
    belongs to the stay it arrives by: its arrival lies after the stay before has ended (the
    detector may date it from the first fix of the walk in that is within its radius)."""
    found = [(epoch(r["item"]["arrival"]), r) for r in records if r["endpoint"] == "location" and r["item"].get("arrival")]
    whole, claimed = 0, set()
    for i, (first, last) in enumerate(stays):
        since = stays[i - 1][1] if i else first - 60
        inside = [r for a, r in found if since < a <= last]
        claimed.update(r["key"] for r in inside)
        if len(inside) > 1:
            failures.append(f"location: the stay from {time.strftime('%H:%M:%S', time.gmtime(first))} is {len(inside)} visits")
        # gpsfake runs a little behind the clock: a stay counts as fed 3 minutes after its last fix.
        if last + 180 < fed_until and not any(a < last and first < b for a, b in suspended):
            whole += 1
            if not inside:
                failures.append(f"location: no visit for the stay from {time.strftime('%H:%M:%S', time.gmtime(first))}")
    stray = [r["key"] for _, r in found if r["key"] not in claimed]
    if stray:
        failures.append(f"location: {len(stray)} visits outside every planned stay, e.g. {stray[:2]}")
    return len(found), whole


class Sampler:
    """Samples /proc/PID/status (VmRSS, VmHWM, Threads), /proc/PID/fd and the threads' names
    (/proc/PID/task/*/comm) every `every` seconds."""

    def __init__(self, pid, every):
        self.pid, self.every, self.samples, self.done = pid, every, [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.wait(self.every):
            try:
                with open(f"/proc/{self.pid}/status") as f:
                    fields = dict(line.split(":", 1) for line in f if ":" in line)
                fds = len(os.listdir(f"/proc/{self.pid}/fd"))
                names = sorted(thread_name(self.pid, task) for task in os.listdir(f"/proc/{self.pid}/task"))
            except OSError:
                continue
            self.samples.append({"t": time.monotonic(), "rss": int(fields["VmRSS"].split()[0]), "hwm": int(fields["VmHWM"].split()[0]),
                                 "threads": int(fields["Threads"]), "fds": fds, "names": names})

    def stop(self):
        self.done.set()
        self.thread.join()


def thread_name(pid, task):
    try:
        with open(f"/proc/{pid}/task/{task}/comm") as f:
            return f.read().strip()
    except OSError:
        return "(gone)"


def slope(points):
    """Least-squares slope of (minutes, value)."""
    n = len(points)
    if n < 2:
        return 0.0
    mx, my = sum(p[0] for p in points) / n, sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx if sxx else 0.0


def resources(samples, start, end, failures):
    """Peaks of the last third against the first third (at most 5 % higher), and slopes per minute."""
    third = (end - start) / 3
    report = {}
    for name in ("rss", "fds", "threads"):
        first = [s[name] for s in samples if s["t"] < start + third]
        last = [s[name] for s in samples if s["t"] >= end - third]
        if not first or not last:
            failures.append(f"resources: too few samples of {name}")
            continue
        peak_first, peak_last = max(first), max(last)
        per_min = slope([((s["t"] - start) / 60, s[name]) for s in samples])
        report[name] = (peak_first, peak_last, per_min, f"{last.count(peak_last)} of {len(last)} samples")
        if peak_last > peak_first * 1.05:
            failures.append(f"resources: peak {name} in the last third {peak_last} is over 5 % above the first third's {peak_first}"
                            + (extra_threads(samples, start + third, end - third, peak_last) if name == "threads" else ""))
    report["hwm"] = samples[-1]["hwm"] if samples else 0
    return report


def extra_threads(samples, first_end, last_start, peak):
    """The names of the threads at the last third's peak that no sample of the first third had as many of."""
    seen = {}
    for s in samples:
        if s["t"] < first_end:
            for n in set(s["names"]):
                seen[n] = max(seen.get(n, 0), s["names"].count(n))
    at_peak = next(s["names"] for s in samples if s["t"] >= last_start and s["threads"] == peak)
    extra = sorted({n for n in at_peak if at_peak.count(n) > seen.get(n, 0)})
    return f" (threads then: {', '.join(at_peak)}; more than in the first third: {', '.join(extra) or 'none by name'})"


def watchdog(messages, usec, stops, until, failures):
    """Every gap between READY/WATCHDOG=1 messages under WATCHDOG_USEC, not counting time `watch`
    spent SIGSTOPped (a suspend: CLOCK_MONOTONIC, which systemd's watchdog runs on, stands still)."""
    pings = [t for t, m in messages if "WATCHDOG=1" in m or "READY=1" in m] + [until]
    worst, raw_worst = 0.0, 0.0
    for a, b in zip(pings, pings[1:]):
        stopped = sum(max(0.0, min(b, e) - max(a, s)) for s, e in stops)
        raw_worst = max(raw_worst, b - a)
        worst = max(worst, b - a - stopped)
    if worst * 1e6 >= usec:
        failures.append(f"watchdog: a gap of {worst:.1f} s between pings (WATCHDOG_USEC {usec / 1e6:.0f} s)")
    return len(pings) - 2, worst, raw_worst
