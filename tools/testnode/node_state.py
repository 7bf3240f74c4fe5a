"""What the test node remembers: stored items, receipts, tokens, fault settings."""

import collections
import hashlib
import json
import os
import random
import threading

from node_schema import ENDPOINTS, FAULT_RATES, REQUEST_LOG_SIZE


class Record:
    """One stored item, keyed by (endpoint, source, key)."""
    __slots__ = ("version", "deleted", "item", "receipts", "accepts")

    def __init__(self, version, item):
        self.version, self.deleted, self.item, self.receipts, self.accepts = version, False, item, 0, 0


class NodeState:
    """Everything the node remembers. Every access holds `lock` (handlers run on many threads)."""

    def __init__(self, args):
        self.lock = threading.Lock()
        self.node_version = args.node_version
        scopes = [s for s in args.scopes.split(",") if s]
        self.devices = {}                       # token -> whoami "key" object
        for n, token in enumerate(args.token or ["test-device-token"]):
            self.add_device(token, scopes, "test device" if n == 0 else f"test device {n + 1}")
        self.capture_keys = {}                  # secret -> {"id", "name", "grants", "key"}
        self.revoked = set()
        self.rng = random.Random(args.seed)
        self.faults = {"fail_rate": args.fail_rate, "reset_rate": args.reset_rate,
                       "throttle_rate": args.throttle_rate, "throttle_status": 429,
                       "retry_after": parse_retry_after(args.retry_after), "slow_ms": args.slow_ms,
                       "missing": sorted(set(args.missing or [])),
                       "reject_substring": args.reject_substring,
                       "mint_forbidden": args.mint_forbidden}
        self.closing = False                    # set on SIGTERM: ingest answers 503 from then on
        self.in_flight = 0                      # requests being handled, awaited before saving
        self.clear()

    def add_device(self, token, scopes, name):
        key_id = "k_" + hashlib.sha256(token.encode()).hexdigest()[:16]   # stable per token
        self.devices[token] = {"id": key_id, "name": name, "scopes": list(scopes), "grants": {}}

    def clear(self):
        self.items = {e: {} for e in ENDPOINTS}   # endpoint -> {(source, key): Record}
        self.totals = {e: {"receipts": 0, "accepted": 0, "duplicates": 0} for e in ENDPOINTS}
        self.status_counts = collections.Counter()
        self.ingest_requests = 0
        self.request_log = collections.deque(maxlen=REQUEST_LOG_SIZE)

    def authenticate(self, header):
        """Returns ("none"|"bad"|"device"|"capture", key info)."""
        if not header:
            return "none", None
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or token in self.revoked:
            return "bad", None
        if token in self.devices:
            return "device", self.devices[token]
        if token in self.capture_keys:
            return "capture", self.capture_keys[token]
        return "bad", None

    def roll(self):
        """One draw per ingest request: "fail", "reset-before", "reset-after", "throttle" or "ok"."""
        f = self.faults
        r = self.rng.random()
        for outcome, width in (("fail", f["fail_rate"]), ("reset-before", f["reset_rate"] / 2),
                               ("reset-after", f["reset_rate"] / 2), ("throttle", f["throttle_rate"])):
            if r < width:
                return outcome
            r -= width
        return "ok"

    def store(self, endpoint, source, items):
        """Applies a validated batch; returns (accepted, duplicates)."""
        table = self.items[endpoint]
        accepted = receipts = 0
        for item in items:
            slot = (source, item["key"])
            rec = table.get(slot)
            version = item.get("version")
            if item.get("deleted") is True:
                if rec is None:                 # a tombstone for something never stored: nothing to keep
                    continue
                is_new = not rec.deleted
                rec.deleted = True
            elif rec is None:
                rec = table[slot] = Record(version, item)
                is_new = True
            else:
                is_new = rec.version != version   # None == None: versionless resends are duplicates
                if is_new:
                    rec.version, rec.item, rec.deleted = version, item, False
            rec.receipts += 1
            receipts += 1
            if is_new:
                rec.accepts += 1
                accepted += 1
        duplicates = len(items) - accepted
        totals = self.totals[endpoint]
        totals["receipts"] += receipts
        totals["accepted"] += accepted
        totals["duplicates"] += duplicates
        return accepted, duplicates

    def save(self, path):
        """Writes the stored items and totals to `path` (atomically), for a restart with --state-file."""
        items = [{"endpoint": e, "source": source, "key": key, "version": rec.version, "deleted": rec.deleted,
                  "item": rec.item, "receipts": rec.receipts, "accepts": rec.accepts}
                 for e, table in self.items.items() for (source, key), rec in table.items()]
        tmp = f"{path}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"items": items, "totals": self.totals}, f)
        os.replace(tmp, path)

    def load(self, path):
        """Takes back what `save` wrote: the node restarted remembers what it stored and counted."""
        with open(path) as f:
            saved = json.load(f)
        for e, totals in saved["totals"].items():
            self.totals[e] = totals
        for r in saved["items"]:
            rec = Record(r["version"], r["item"])
            rec.deleted, rec.receipts, rec.accepts = r["deleted"], r["receipts"], r["accepts"]
            self.items[r["endpoint"]][(r["source"], r["key"])] = rec

    def counts(self):
        endpoints = {}
        for e in ENDPOINTS:
            table = self.items[e]
            live = sum(1 for rec in table.values() if not rec.deleted)
            endpoints[e] = {"stored": len(table), "live": live, **self.totals[e]}
        return {"endpoints": endpoints, "status": dict(self.status_counts),
                "requests": self.ingest_requests}


def parse_retry_after(value):
    """Retry-After is normally integer seconds; other strings (an HTTP date) are sent verbatim."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def format_retry_after(value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def update_faults(faults, changes):
    """Validates and merges an /_admin/faults body; raises ValueError naming the bad field."""
    if not isinstance(changes, dict):
        raise ValueError("body must be a JSON object")
    new = dict(faults)
    for name, value in changes.items():
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if name in FAULT_RATES and number and 0 <= value <= 1:
            new[name] = float(value)
        elif name == "slow_ms" and number and value >= 0:
            new[name] = value
        elif name == "retry_after" and (number and value >= 0 or isinstance(value, str)):
            new[name] = parse_retry_after(value)
        elif name == "throttle_status" and value in (429, 503):
            new[name] = value
        elif name == "missing" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            new[name] = sorted(set(value))
        elif name == "reject_substring" and (value is None or isinstance(value, str)):
            new[name] = value or None
        elif name == "mint_forbidden" and isinstance(value, bool):
            new[name] = value
        elif name == "seed" and (value is None or isinstance(value, int)):
            pass                           # applied by the caller, which owns the rng
        else:
            raise ValueError(f"bad fault setting {name!r}")
    if sum(new[r] for r in FAULT_RATES) > 1:
        raise ValueError("fail_rate + reset_rate + throttle_rate must be at most 1")
    return new
