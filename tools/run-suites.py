#!/usr/bin/env python3
"""Runs `swift test` as several processes at once: N workers take suites from one queue.

Swift Testing runs a process's tests on the cooperative pool, one thread per core, and the
integration suites spend most of their time blocked on child processes (a node, gpsd, players),
so one process leaves the cores idle while unit tests wait for a free thread. Here every
integration suite is a job of its own and the unit suites of each other target one job
together; workers take the longest jobs first (tools/suite-seconds.txt, as the last measured run took them), so the
queue empties evenly. Prints each job's log as it ends, then one line `N passed, N failed`;
exits 1 if any job failed or ended without a closing line.

usage: run-suites.py --workers N --log DIR [--filter REGEX] [--times FILE] -- swift test --skip-build [ARGS…]
"""
import argparse, os, re, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
SECONDS_FILE = os.path.join(HERE, "suite-seconds.txt")
INTEGRATION = "Integration."


def listed_suites(command):
    """Module.Suite names, from `swift test list` with the same build arguments."""
    listing = subprocess.run(command[:2] + ["list"] + command[2:], capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit(f"run-suites: `{' '.join(command[:2])} list` failed:\n{listing.stderr}")
    return sorted({line.split("/")[0] for line in listing.stdout.splitlines() if "/" in line})


def measured_seconds():
    known = {}
    if os.path.exists(SECONDS_FILE):
        for line in open(SECONDS_FILE):
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                known[parts[0]] = float(parts[1])
    return known


def jobs(suites, only):
    """(name, filter regex) pairs, longest first: each integration suite alone, the rest by module."""
    chosen = [s for s in suites if not only or re.search(only, s + "/")]
    groups = {}
    for s in chosen:
        key = s if s.startswith(INTEGRATION) else s.split(".")[0]
        groups.setdefault(key, []).append(s)
    known = measured_seconds()
    order = sorted(groups, key=lambda k: -known.get(k, 1.0))
    return [(k, "|".join("^" + re.escape(s) + "/" for s in groups[k])) for k in order]


def closing_counts(text):
    """(tests run, issues) from a Swift Testing log's closing line, or None if it has none."""
    for line in reversed(text.splitlines()):
        m = re.search(r"Test run with (\d+) tests? .* passed after", line)
        if m:
            return int(m.group(1)), 0
        m = re.search(r"Test run with (\d+) tests? .* failed after .* with (\d+) issues?", line)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--log", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--job-limit", type=int, default=1200, help="seconds a job may run before it is stopped as hung")
    ap.add_argument("--times", help="write each job's seconds here (the format of suite-seconds.txt)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    # Every job uses one build folder; SwiftPM's lock on it would run them one at a time. They
    # only read it (--skip-build), so the lock is not needed.
    if command[1:2] == ["test"] and "--ignore-lock" not in command:
        command = command[:2] + ["--ignore-lock"] + command[2:]
    os.makedirs(a.log, exist_ok=True)
    queue = jobs(listed_suites(command), a.filter)
    lock = threading.Lock()
    totals = {"passed": 0, "failed": 0, "broken": []}
    times = {}

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                name, pattern = queue.pop(0)
            log = os.path.join(a.log, name + ".log")
            start = time.monotonic()
            with open(log, "w") as out:
                job = subprocess.Popen(command + ["--filter", pattern], stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
                try:
                    code = job.wait(timeout=a.job_limit)
                except subprocess.TimeoutExpired:
                    # A hung job (a child that never exits) must not hold CI to its hard limit.
                    os.killpg(job.pid, 9)
                    job.wait()
                    out.write(f"\nrun-suites: {name} still running after {a.job_limit} s; stopped\n")
                    code = -9
            text = open(log, errors="replace").read()
            counts = closing_counts(text)
            with lock:
                times[name] = time.monotonic() - start
                sys.stdout.write(text)
                sys.stdout.flush()
                if counts is None or code != 0:
                    totals["broken"].append((name, code))
                if counts:
                    run, issues = counts
                    totals["passed"] += run if issues == 0 else 0
                    totals["failed"] += issues

    threads = [threading.Thread(target=worker) for _ in range(a.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if a.times:
        with open(a.times, "w") as f:
            for name, secs in sorted(times.items(), key=lambda x: -x[1]):
                f.write(f"{name} {secs:.0f}\n")
    for name, code in totals["broken"]:
        print(f"run-suites: {name} failed (exit {code}); its log is {os.path.join(a.log, name + '.log')}")
    print(f"{totals['passed']} passed, {totals['failed'] + len(totals['broken']) * (totals['failed'] == 0)} failed")
    sys.exit(1 if totals["failed"] or totals["broken"] else 0)


if __name__ == "__main__":
    main()
