#!/usr/bin/env python3
"""A Hearthloom test node: implements docs/node-api.md with switchable fault injection.

Python 3 standard library only. Tests start it as a real process:

    python3 tools/testnode/testnode.py --port 0 --port-file PATH [options]

It binds, writes the chosen port to PATH (atomically, once it accepts connections),
prints `listening on PORT`, and serves until SIGTERM/SIGINT. Everything under
/_admin/ is an unauthenticated control API for tests (faults, revocation, state).
"""

import argparse
import collections
import hashlib
import json
import os
import random
import secrets
import signal
import socket
import ssl
import struct
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MAX_BODY = 1024 * 1024          # node-api.md: the whole body at most 1 MiB, else 413
MAX_ITEMS = 1000
MAX_KEY_CHARS = 512
DRAIN_LIMIT = 64 * MAX_BODY     # bodies we refuse are read and dropped up to this, to keep the connection
REQUEST_LOG_SIZE = 10000
ENDPOINTS = ("location", "motion", "photos", "contacts", "calendar",
             "reminders", "media", "health", "scan", "focus", "capture")
MOTION_MODES = {"walking", "running", "cycling", "driving", "unknown"}
FOCUS_MODES = {"do-not-disturb", "locked", "idle"}
MAX_SCAN_TEXT = 200000
FAULT_RATES = ("fail_rate", "reset_rate", "throttle_rate")

# --- Item schemas (node-api.md "Item fields per endpoint") -------------------------------------
# A field name ending in "?" may be absent (a JSON null counts as absent for those). Types are
# checked lightly: "str", "num", "bool", "list", "obj", "str|null", a dict (an object whose fields
# follow that schema) or a one-element list (a list whose entries are objects of that schema).
LATLON = {"lat": "num", "lon": "num"}
SCHEMAS = {
    "location": {"version?": "str", "arrival": "str|null", "departure": "str|null", "lat": "num",
                 "lon": "num", "accuracy_m": "num", "fixes": "num"},
    "motion": {"start": "str", "end": "str", "mode": "str", "distance_m": "num",
               "from": LATLON, "to": LATLON},
    "photos": {"taken_at": "str", "time_floating?": "bool", "lat": "num", "lon": "num",
               "altitude_m?": "num", "accuracy_m?": "num",
               "camera?": {"make?": "str", "model?": "str"}, "file?": {"name?": "str", "size?": "num"}},
    "contacts": {"version": "str", "full_name": "str", "given?": "str", "family?": "str",
                 "nicknames?": "list", "emails": [{"value": "str", "type?": "str"}],
                 "phones": [{"value": "str", "type?": "str"}], "org?": "str", "title?": "str",
                 "birthday?": "str",
                 "addresses": [{"street?": "str", "city?": "str", "region?": "str",
                                "postcode?": "str", "country?": "str", "type?": "str"}],
                 "urls?": "list", "categories?": "list"},
    "calendar": {"version": "str", "uid": "str", "title": "str", "start": "str", "end": "str",
                 "all_day": "bool", "tzid?": "str", "location?": "str", "status?": "str",
                 "organizer?": {"name?": "str", "email": "str"},
                 "attendees": [{"name?": "str", "email": "str", "role?": "str", "partstat?": "str"}],
                 "recurring": "bool", "calendar": "str"},
    "reminders": {"version": "str", "title": "str", "due?": "str", "completed_at?": "str",
                  "status?": "str", "priority?": "num", "list": "str"},
    "media": {"started_at": "str", "ended_at": "str", "played_s": "num", "title": "str",
              "artist?": "str", "album?": "str", "length_s?": "num", "player": "str"},
    "health:day": {"version": "str", "date": "str", "tz": "str", "steps?": "num",
                   "active_energy_kcal?": "num", "resting_heart_rate?": "num",
                   "heart_rate?": {"min?": "num", "avg?": "num", "max?": "num"},
                   "hrv_ms?": "num", "sleep_s?": "num"},
    "health:workout": {"activity": "str", "start": "str", "end": "str",
                       "energy_kcal?": "num", "distance_m?": "num"},
    "health:sleep": {"start": "str", "end": "str",
                     "stages?": {"deep_s?": "num", "light_s?": "num", "rem_s?": "num", "awake_s?": "num"}},
    "scan": {"version": "str", "captured_at": "str|null", "text": "str", "pages": "num", "lang": "str",
             "confidence": "num", "file": {"name": "str", "size": "num"}},
    "focus": {"version": "str", "mode": "str", "start": "str", "end": "str|null", "via": "str"},
    "capture": {"text": "str", "captured_at": "str", "via": "str"},
}
TYPE_NAMES = {"str": "a string", "num": "a number", "bool": "a boolean", "list": "a list",
              "obj": "an object", "str|null": "a string or null"}


def type_ok(value, kind):
    if kind == "str":
        return isinstance(value, str)
    if kind == "num":   # bool is an int subclass in Python, but not a JSON number
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    if kind == "str|null":
        return value is None or isinstance(value, str)
    return isinstance(value, dict)


def check_fields(obj, schema, path):
    """Returns a message for the first field of `obj` that breaks `schema`, else None."""
    for name, kind in schema.items():
        optional = name.endswith("?")
        name = name.rstrip("?")
        where = f"{path}{name}"
        if name not in obj or (optional and obj[name] is None):
            if optional:
                continue
            return f"{where} is required"
        value = obj[name]
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                return f"{where} must be an object"
            problem = check_fields(value, kind, where + ".")
        elif isinstance(kind, list):
            if not isinstance(value, list):
                return f"{where} must be a list"
            problem = None
            for n, entry in enumerate(value):
                if not isinstance(entry, dict):
                    return f"{where}[{n}] must be an object"
                problem = check_fields(entry, kind[0], f"{where}[{n}].")
                if problem:
                    break
        else:
            problem = None if type_ok(value, kind) else f"{where} must be {TYPE_NAMES[kind]}"
        if problem:
            return problem
    return None


def check_item(endpoint, item):
    """Returns what is wrong with one item, or None. Tombstones need only a key."""
    if not isinstance(item, dict):
        return "item must be an object"
    key = item.get("key")
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_CHARS:
        return f"key must be a string of 1..{MAX_KEY_CHARS} characters"
    if item.get("version") is not None and not isinstance(item["version"], str):
        return "version must be a string"
    if item.get("deleted") is not None and not isinstance(item["deleted"], bool):
        return "deleted must be a boolean"
    if item.get("deleted") is True:
        return None
    schema_name = endpoint
    if endpoint == "health":
        kind = item.get("kind")
        if kind not in ("day", "workout", "sleep"):
            return "kind must be one of day, workout, sleep"
        schema_name = f"health:{kind}"
    problem = check_fields(item, SCHEMAS[schema_name], "")
    if problem:
        return problem
    if endpoint == "motion" and item["mode"] not in MOTION_MODES:
        return "mode must be one of " + ", ".join(sorted(MOTION_MODES))
    if endpoint == "focus" and item["mode"] not in FOCUS_MODES:
        return "mode must be one of " + ", ".join(sorted(FOCUS_MODES))
    if endpoint == "scan" and len(item["text"]) > MAX_SCAN_TEXT:
        return f"text must be at most {MAX_SCAN_TEXT} characters"
    if endpoint == "scan" and not 0 <= item["confidence"] <= 100:
        return "confidence must be between 0 and 100"
    if endpoint == "capture" and not item["text"]:
        return "text must not be empty"
    return None


def check_envelope(body):
    """Returns what is wrong with the batch around the items, or None."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    actor = body.get("actor")
    if not isinstance(actor, str) or not actor.startswith("device:"):
        return 'actor must be a string "device:<device id>"'
    if not isinstance(body.get("source"), str) or not body["source"]:
        return "source must be a non-empty string"
    device = body.get("device")
    if not isinstance(device, dict):
        return "device must be an object"
    for field in ("id", "name", "platform", "agent"):
        if not isinstance(device.get(field), str):
            return f"device.{field} must be a string"
    items = body.get("items")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ITEMS:
        return f"items must be a list of 1..{MAX_ITEMS} items"
    return None


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


class ClientGone(Exception):
    """The client closed the connection before sending the whole body."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"          # keep-alive; every reply carries Content-Length
    server_version = "hearthloom-testnode/1"
    timeout = 300                          # idle keep-alive connections are closed after this

    # --- plumbing ---------------------------------------------------------------------------
    @property
    def state(self):
        return self.server.state

    def log_message(self, fmt, *args):
        if self.server.verbose:
            super().log_message(fmt, *args)

    def setup(self):
        super().setup()
        if isinstance(self.connection, ssl.SSLSocket):
            # The listening socket defers the TLS handshake so that a slow or broken client
            # stalls only its own thread, not the accept loop.
            self.connection.do_handshake()

    def send_json(self, status, obj, headers=None, close=False):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def reset_connection(self):
        """Drops the connection without a reply: SO_LINGER 0 makes close() send a RST."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()                 # rfile holds a reference to the socket that would delay close()
        self.connection.close()

    def read_body(self, limit=MAX_BODY):
        """Reads the body by Content-Length (or chunked). Returns bytes, or None if it exceeds
        `limit` (what was sent is then drained when that is cheap, else the connection closes)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ClientGone()
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise ClientGone() from None  # garbage framing: nothing more can be read safely
                if size == 0:
                    while self.rfile.readline(1024).strip():   # trailers, up to the blank line
                        pass
                    break
                chunk = self.rfile.read(size + 2)[:size]
                if len(chunk) < size:
                    raise ClientGone()
                total += size
                if total <= limit:
                    parts.append(chunk)
                elif total > DRAIN_LIMIT:
                    self.close_connection = True
                    return None
            return b"".join(parts) if total <= limit else None
        length = self.content_length()
        if length > limit:
            self.drain(length)
            return None
        data = self.rfile.read(length) if length else b""
        if len(data) < length:
            raise ClientGone()
        return data

    def content_length(self):
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True    # we cannot tell where the next request starts
            return 0
        return length

    def drain(self, length):
        """Discards a body we will not use, so the connection can stay open for the next request."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.read_body(limit=0)
            return
        if length > DRAIN_LIMIT:
            self.close_connection = True
            return
        while length > 0:
            chunk = self.rfile.read(min(length, 65536))
            if not chunk:
                raise ClientGone()
            length -= len(chunk)

    # --- dispatch ---------------------------------------------------------------------------
    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        url = urlsplit(self.path)
        path = url.path
        try:
            if method != "POST":
                self.drain(self.content_length())   # a body nobody asked for must not desync the stream
            if path.startswith("/_admin/"):
                self.admin(method, path, parse_qs(url.query))
            elif path.startswith("/v1/ingest/") and method == "POST":
                self.ingest(path[len("/v1/ingest/"):])
            else:
                self.api(method, path)
        except ClientGone:
            self.close_connection = True
        except OSError:
            raise                            # connection trouble: socketserver drops it quietly
        except Exception:                    # a bug in this file: say so loudly, answer 500
            traceback.print_exc()
            self.send_json(500, {"error": "test node bug"}, close=True)

    def record(self, status, auth, items):
        """Logs one non-admin request (caller holds the lock)."""
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self.state.request_log.append({
            "method": self.command, "path": self.path, "status": status, "auth": auth,
            "items": items, "headers": headers, "peer": "%s:%s" % self.client_address[:2]})

    def api(self, method, path):
        with self.state.lock:
            auth, key = self.state.authenticate(self.headers.get("Authorization"))
        status, reply = 404, {"error": "not found"}
        if path == "/v1/health" and method == "GET":
            status, reply = 200, {"status": "ok", "version": self.state.node_version}
        elif path == "/v1/whoami" and method == "GET":
            status, reply = self.whoami(auth, key)
        elif path == "/v1/keys" and method == "POST":
            status, reply = self.mint(auth)
        elif path in ("/v1/health", "/v1/whoami", "/v1/keys"):
            status, reply = 405, {"error": "method not allowed"}
        if method == "POST" and path != "/v1/keys":   # mint() reads its own body
            self.drain(self.content_length())
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        with self.state.lock:
            self.record(status, auth, None)
        self.send_json(status, reply, headers)

    def whoami(self, auth, key):
        if auth in ("none", "bad"):
            return 401, {"error": "unauthorized"}
        if auth == "capture":
            return 403, {"error": "forbidden: a capture key cannot read the node"}
        return 200, {"key": key}

    def mint(self, auth):
        body = self.read_body()            # always read, so the connection stays usable
        if auth in ("none", "bad"):
            return 401, {"error": "unauthorized"}
        if auth == "capture" or self.state.faults["mint_forbidden"]:
            return 403, {"error": "forbidden: this token may not mint keys"}
        try:
            req = json.loads(body)
        except (TypeError, ValueError):
            return 400, {"error": "body is not JSON"}
        if not isinstance(req, dict):
            req = {"name": None}
        name, grants = req.get("name", "capture"), req.get("grants")
        if not isinstance(name, str) or not isinstance(grants, dict) or grants.get("capture") is not True:
            return 400, {"error": 'expected {"name": string, "grants": {"capture": true, ...}}'}
        minted = {"id": "k_" + secrets.token_hex(8), "name": name, "grants": grants,
                  "key": "hlc_" + secrets.token_urlsafe(24)}
        with self.state.lock:
            self.state.capture_keys[minted["key"]] = minted
        return 201, {"id": minted["id"], "key": minted["key"], "grants": grants}

    # --- ingest ---------------------------------------------------------------------------------
    def precheck(self, endpoint):
        """The checks that need no body, in the contract's order: auth, 404, 413.
        Returns (auth, reply or None); reply is (status, body)."""
        state = self.state
        with state.lock:
            auth, key = state.authenticate(self.headers.get("Authorization"))
            missing = endpoint not in ENDPOINTS or endpoint in state.faults["missing"]
        if auth in ("none", "bad"):
            return auth, (401, {"error": "unauthorized"})
        if auth == "capture" and endpoint != "capture":
            return auth, (403, {"error": "forbidden: a capture key may only post to capture"})
        if auth == "device" and "ingest" not in key["scopes"]:
            return auth, (403, {"error": "forbidden: token lacks the ingest scope"})
        if missing:
            return auth, (404, {"error": "not found"})
        length = self.content_length()
        if length > MAX_BODY:
            return auth, (413, {"error": f"body larger than {MAX_BODY} bytes"})
        return auth, None

    def handle_expect_100(self):
        """`Expect: 100-continue` (libcurl sends it for large bodies): refuse before the body is
        sent when the answer does not depend on it. The client then never sends the body, so
        the connection cannot be reused and is closed."""
        if self.command == "POST" and urlsplit(self.path).path.startswith("/v1/ingest/"):
            endpoint = urlsplit(self.path).path[len("/v1/ingest/"):]
            auth, refusal = self.precheck(endpoint)
            if refusal:
                self.finish_ingest(refusal[0], refusal[1], auth, None, close=True)
                return False
        return super().handle_expect_100()

    def ingest(self, endpoint):
        state = self.state
        auth, refusal = self.precheck(endpoint)
        if refusal:
            self.drain(self.content_length())
            return self.finish_ingest(refusal[0], refusal[1], auth, None)
        raw = self.read_body()
        if raw is None:                                  # a chunked body that turned out too large
            return self.finish_ingest(413, {"error": f"body larger than {MAX_BODY} bytes"}, auth, None)
        with state.lock:
            outcome = state.roll()
            faults = dict(state.faults)
        if outcome == "fail":
            with state.lock:
                status = state.rng.choice((500, 502))
            return self.finish_ingest(status, {"error": "injected failure"}, auth, None)
        if outcome == "throttle":
            return self.finish_ingest(faults["throttle_status"], {"error": "busy"}, auth, None,
                                      headers={"Retry-After": format_retry_after(faults["retry_after"])})
        if outcome == "reset-before":
            return self.finish_ingest("reset", None, auth, None)

        try:
            body = json.loads(raw)
        except ValueError:                               # includes bad UTF-8
            return self.finish_ingest(400, {"error": "body is not JSON"}, auth, None)
        problem = check_envelope(body)
        if problem:
            return self.finish_ingest(400, {"error": problem}, auth, None)
        items = body["items"]
        reject = faults["reject_substring"]
        for index, item in enumerate(items):
            problem = check_item(endpoint, item)
            if problem is None and reject and reject in json.dumps(item, ensure_ascii=False):
                problem = "rejected by test node"
            if problem:
                return self.finish_ingest(400, {"error": problem, "index": index}, auth, len(items))
        with state.lock:
            accepted, duplicates = state.store(endpoint, body["source"], items)
        if outcome == "reset-after":                     # stored, but the client never learns it
            return self.finish_ingest("reset", None, auth, len(items))
        self.finish_ingest(200, {"accepted": accepted, "duplicates": duplicates}, auth, len(items))

    def finish_ingest(self, status, reply, auth, items, headers=None, close=False):
        """Counts, logs, waits slow_ms, then replies (or resets the connection)."""
        state = self.state
        with state.lock:
            state.ingest_requests += 1
            state.status_counts[str(status)] += 1
            self.record(status, auth, items)
            slow = state.faults["slow_ms"]
        if slow:
            time.sleep(slow / 1000)
        if status == "reset":
            return self.reset_connection()
        if status == 401:
            headers = {"WWW-Authenticate": "Bearer", **(headers or {})}
        self.send_json(status, reply, headers, close=close)

    # --- admin ----------------------------------------------------------------------------------
    def admin(self, method, path, query):
        state = self.state
        body = None
        if method == "POST":
            raw = self.read_body(limit=DRAIN_LIMIT)
            try:
                body = json.loads(raw) if raw and raw.strip() else {}
            except ValueError:
                return self.send_json(400, {"error": "body is not JSON"})
            if not isinstance(body, dict):
                return self.send_json(400, {"error": "body must be a JSON object"})
        route = (method, path)
        with state.lock:
            if route == ("GET", "/_admin/faults"):
                reply = dict(state.faults)
            elif route == ("POST", "/_admin/faults"):
                try:
                    state.faults = update_faults(state.faults, body)
                except ValueError as e:
                    return self.send_json(400, {"error": str(e)})
                if "seed" in body:
                    state.rng.seed(body["seed"])
                reply = dict(state.faults)
            elif route == ("POST", "/_admin/revoke"):
                token = body.get("token")
                tokens = [token] if token is not None else list(state.devices) + list(state.capture_keys)
                state.revoked.update(tokens)
                reply = {"revoked": len(tokens)}
            elif route == ("POST", "/_admin/tokens"):    # add (or un-revoke) a device token
                token, scopes = body.get("token"), body.get("scopes", ["read", "ingest", "notify"])
                if not isinstance(token, str) or not token or not isinstance(scopes, list):
                    return self.send_json(400, {"error": 'expected {"token": string, "scopes": [...]}'})
                state.add_device(token, scopes, body.get("name", "test device"))
                state.revoked.discard(token)
                reply = {"key": state.devices[token]}
            elif route == ("POST", "/_admin/reset"):
                state.clear()
                reply = {"ok": True}
            elif route == ("GET", "/_admin/items"):
                wanted = query.get("endpoint", list(ENDPOINTS))
                reply = {"items": [
                    {"endpoint": e, "source": source, "key": key, "version": rec.version,
                     "deleted": rec.deleted, "receipts": rec.receipts, "accepts": rec.accepts,
                     "item": rec.item}
                    for e in wanted for (source, key), rec in state.items.get(e, {}).items()]}
            elif route == ("GET", "/_admin/counts"):
                reply = state.counts()
            elif route == ("GET", "/_admin/requests"):
                reply = {"requests": list(state.request_log)}
            elif route == ("GET", "/_admin/keys"):
                reply = {"keys": [dict(k, revoked=k["key"] in state.revoked)
                                  for k in state.capture_keys.values()]}
            else:
                return self.send_json(404, {"error": "not found"})
        self.send_json(200, reply)


class NodeServer(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True                  # a lingering keep-alive connection must not block exit

    def handle_error(self, request, client_address):
        # Clients dropping connections (and our own resets) are routine here, not errors.
        if self.verbose or not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class NodeServer6(NodeServer):
    address_family = socket.AF_INET6


def parse_args(argv):
    p = argparse.ArgumentParser(description="Hearthloom test node (docs/node-api.md + fault injection)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--port-file", help="written atomically with the port once listening")
    p.add_argument("--token", action="append", help="a valid device token (repeatable)")
    p.add_argument("--scopes", default="read,ingest,notify", help="scopes of every --token")
    p.add_argument("--mint-forbidden", action="store_true", help="POST /v1/keys answers 403")
    p.add_argument("--missing", action="append", metavar="ENDPOINT", help="endpoint that answers 404")
    p.add_argument("--node-version", default="0.5.80")
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--fail-rate", type=float, default=0.0)
    p.add_argument("--reset-rate", type=float, default=0.0)
    p.add_argument("--throttle-rate", type=float, default=0.0)
    p.add_argument("--retry-after", default="1", help="Retry-After of a 429, in seconds")
    p.add_argument("--slow-ms", type=float, default=0.0)
    p.add_argument("--reject-substring")
    p.add_argument("--seed", type=int)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        p.error("--tls-cert and --tls-key go together")
    rates = (args.fail_rate, args.reset_rate, args.throttle_rate)
    if any(not 0 <= r <= 1 for r in rates) or sum(rates) > 1:
        p.error("rates must be in 0..1 and add up to at most 1")
    return args


def write_port_file(path, port):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{port}\n")
    os.replace(tmp, path)                  # readers see no file or the whole number, never half


def main(argv=None):
    args = parse_args(argv)
    server_class = NodeServer6 if ":" in args.host else NodeServer
    server = server_class((args.host, args.port), Handler)   # binds and listens
    server.state = NodeState(args)
    server.verbose = args.verbose
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)

    stop = threading.Event()
    # A parent's worker thread may have these blocked, and exec keeps the mask: unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, name="serve", daemon=True)
    thread.start()
    port = server.server_address[1]
    if args.port_file:
        write_port_file(args.port_file, port)
    print(f"listening on {port}", flush=True)
    while not stop.wait(0.5):              # short waits so signal handlers run promptly
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
