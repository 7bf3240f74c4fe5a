"""Self-test of the test node: starts testnode.py as a process and talks HTTP to it.

    cd /work/main && python3 -m unittest discover -s tools/testnode -v
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testnode.py")
TOKEN = "test-device-token"


class Node:
    """One running testnode.py process."""

    def __init__(self, *args):
        self.dir = tempfile.mkdtemp(prefix="testnode-")
        port_file = os.path.join(self.dir, "port")
        self.proc = subprocess.Popen(
            [sys.executable, SCRIPT, "--port", "0", "--port-file", port_file, "--seed", "7", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("test node did not start: " + self.proc.stderr.read())
            time.sleep(0.02)
        with open(port_file) as f:
            self.port = int(f.read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.stdout, self.stderr = self.proc.communicate(timeout=10)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        return self.proc.returncode

    def conn(self, **kw):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10, **kw)

    def call(self, method, path, body=None, token=None, headers=None, conn=None):
        """Returns (status, parsed JSON or None, response headers)."""
        own = conn is None
        conn = conn or self.conn()
        hdrs = dict(headers or {})
        if token:
            hdrs["Authorization"] = f"Bearer {token}"
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            if own:
                conn.close()
        return resp.status, (json.loads(data) if data else None), resp.headers

    def admin(self, method, path, body=None):
        status, reply, _ = self.call(method, "/_admin/" + path, body)
        assert status == 200, (status, reply)
        return reply


def batch(items, source="linux-capture"):
    return {"actor": "device:3f9c", "source": source,
            "device": {"id": "3f9c", "name": "framework", "platform": "linux",
                       "agent": "hearthloom-ingest/0.3.0"},
            "items": items}


def capture(key, text="hello", **extra):
    return {"key": key, "text": text, "captured_at": "2026-05-01T12:00:00Z", "via": "stdin", **extra}


def visit(key, version=None, departure=None):
    item = {"key": key, "arrival": "2026-05-01T12:00:00+02:00", "departure": departure,
            "lat": 52.5, "lon": 13.4, "accuracy_m": 12.0, "fixes": 40}
    if version is not None:
        item["version"] = version
    return item


class TestNode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.node = Node()

    @classmethod
    def tearDownClass(cls):
        assert cls.node.stop() == 0
        assert cls.node.stderr == "", cls.node.stderr   # quiet: no request logs, no tracebacks

    def setUp(self):
        n = self.node
        n.admin("POST", "faults", {"fail_rate": 0, "reset_rate": 0, "throttle_rate": 0, "slow_ms": 0,
                                   "missing": [], "reject_substring": None, "mint_forbidden": False})
        n.admin("POST", "reset")

    def ingest(self, endpoint, body, token=TOKEN, **kw):
        return self.node.call("POST", f"/v1/ingest/{endpoint}", body, token=token, **kw)

    def items(self, endpoint):
        return {i["key"]: i for i in self.node.admin("GET", f"items?endpoint={endpoint}")["items"]}

    def test_health(self):
        status, reply, headers = self.node.call("GET", "/v1/health")
        self.assertEqual((status, reply), (200, {"status": "ok", "version": "0.5.80"}))
        self.assertEqual(headers["Content-Type"], "application/json")

    def test_whoami(self):
        self.assertEqual(self.node.call("GET", "/v1/whoami")[:2], (401, {"error": "unauthorized"}))
        self.assertEqual(self.node.call("GET", "/v1/whoami", token="nope")[0], 401)
        status, reply, _ = self.node.call("GET", "/v1/whoami", token=TOKEN)
        self.assertEqual(status, 200)
        key = reply["key"]
        self.assertTrue(key["id"].startswith("k_"))
        self.assertEqual(key["scopes"], ["read", "ingest", "notify"])
        self.assertEqual(key["grants"], {})
        self.assertIsInstance(key["name"], str)

    def test_capture_key_only_for_capture(self):
        n = self.node
        grants = {"capture": True, "own_device": True}
        self.assertEqual(n.call("POST", "/v1/keys", {"name": "x", "grants": grants}, token="nope")[0], 401)
        status, minted, _ = n.call("POST", "/v1/keys", {"name": "laptop capture", "grants": grants}, token=TOKEN)
        self.assertEqual(status, 201)
        self.assertTrue(minted["id"].startswith("k_"))
        self.assertEqual(minted["grants"], grants)
        key = minted["key"]
        self.assertEqual(self.ingest("capture", batch([capture("c1")]), token=key)[:2],
                         (200, {"accepted": 1, "duplicates": 0}))
        self.assertEqual(self.ingest("location", batch([visit("v1")], "linux-gpsd"), token=key)[0], 403)
        self.assertEqual(n.call("GET", "/v1/whoami", token=key)[0], 403)
        self.assertEqual(n.call("POST", "/v1/keys", {"name": "y", "grants": grants}, token=key)[0], 403)
        listed = n.admin("GET", "keys")["keys"]
        self.assertIn(minted["id"], [k["id"] for k in listed])
        n.admin("POST", "faults", {"mint_forbidden": True})
        self.assertEqual(n.call("POST", "/v1/keys", {"name": "z", "grants": grants}, token=TOKEN)[0], 403)
        log = n.admin("GET", "requests")["requests"]
        self.assertIn("capture", [r["auth"] for r in log])

    def test_dedup_versions_tombstones_counts(self):
        src = "linux-gpsd"
        ok = lambda items: self.ingest("location", batch(items, src))[:2]
        self.assertEqual(ok([visit("a", "1"), visit("b")]), (200, {"accepted": 2, "duplicates": 0}))
        # same version / both versionless: duplicates; a repeat inside one batch too
        self.assertEqual(ok([visit("a", "1"), visit("b"), visit("c"), visit("c")]),
                         (200, {"accepted": 1, "duplicates": 3}))
        # new version: an update
        self.assertEqual(ok([visit("a", "2", departure="2026-05-01T13:00:00+02:00")]),
                         (200, {"accepted": 1, "duplicates": 0}))
        # tombstones: stored+live -> accepted; already deleted or never stored -> duplicate
        tomb = lambda k: {"key": k, "deleted": True}
        self.assertEqual(ok([tomb("b"), tomb("b"), tomb("never")]), (200, {"accepted": 1, "duplicates": 2}))
        # a new version un-deletes; the same key under another source is another item
        self.assertEqual(ok([visit("b", "9")]), (200, {"accepted": 1, "duplicates": 0}))
        self.assertEqual(self.ingest("location", batch([visit("a", "2")], "other"))[:2],
                         (200, {"accepted": 1, "duplicates": 0}))

        items = {(i["source"], i["key"]): i for i in self.node.admin("GET", "items?endpoint=location")["items"]}
        a = items[(src, "a")]
        self.assertEqual((a["version"], a["deleted"], a["accepts"], a["receipts"]), ("2", False, 2, 3))
        self.assertEqual(a["item"]["departure"], "2026-05-01T13:00:00+02:00")
        b = items[(src, "b")]
        self.assertEqual((b["version"], b["deleted"], b["accepts"], b["receipts"]), ("9", False, 3, 5))
        self.assertNotIn((src, "never"), items)
        counts = self.node.admin("GET", "counts")
        loc = counts["endpoints"]["location"]
        self.assertEqual(loc, {"stored": 4, "live": 4, "receipts": 11, "accepted": 7, "duplicates": 5})
        self.assertEqual(counts["status"], {"200": 6})
        self.assertEqual(counts["requests"], 6)
        self.node.admin("POST", "reset")
        self.assertEqual(self.node.admin("GET", "counts")["endpoints"]["location"]["stored"], 0)

    def test_every_endpoint_accepts_a_valid_item(self):
        t = "2026-05-01T12:00:00Z"
        samples = {
            "motion": {"key": "m", "start": t, "end": t, "mode": "walking", "distance_m": 5,
                       "from": {"lat": 1, "lon": 2}, "to": {"lat": 1.5, "lon": 2.5}},
            "photos": {"key": "p", "taken_at": "2026-05-01T12:00:00", "time_floating": True,
                       "lat": 1, "lon": 2, "camera": {"make": "X", "model": "Y"}},
            "contacts": {"key": "u", "version": "1", "full_name": "A B", "emails": [{"value": "a@b"}],
                         "phones": [], "addresses": [{"city": "C"}], "birthday": "--05-01"},
            "calendar": {"key": "e/20260501T100000Z", "version": "3", "uid": "e", "title": "T",
                         "start": t, "end": t, "all_day": False, "attendees": [{"email": "a@b"}],
                         "organizer": {"email": "o@b"}, "recurring": True, "calendar": "Work"},
            "reminders": {"key": "r", "version": "1", "title": "T", "list": "Inbox", "priority": 1},
            "media": {"key": "x", "started_at": t, "ended_at": t, "played_s": 30, "title": "S",
                      "player": "mpv"},
            "health": {"key": "day:2026-05-01", "kind": "day", "version": "h", "date": "2026-05-01",
                       "tz": "Europe/Berlin", "steps": 1000, "heart_rate": {"min": 50, "avg": 60, "max": 90}},
        }
        for endpoint, item in samples.items():
            self.assertEqual(self.ingest(endpoint, batch([item], "linux-x"))[:2],
                             (200, {"accepted": 1, "duplicates": 0}), endpoint)

    def test_400_validation(self):
        status, reply, _ = self.ingest("capture", b"not json")
        self.assertEqual((status, "index" in reply), (400, False))
        for bad in ({**batch([capture("a")]), "actor": "user:x"}, batch([]), batch([capture("a")] * 1001),
                    {k: v for k, v in batch([capture("a")]).items() if k != "device"}):
            status, reply, _ = self.ingest("capture", bad)
            self.assertEqual(status, 400, bad.get("actor"))
            self.assertNotIn("index", reply)
        cases = [
            ("capture", capture("a", text=""), 1),
            ("capture", {"key": "a", "text": "t", "via": "stdin"}, 1),         # no captured_at
            ("capture", capture("x" * 513), 1),
            ("capture", capture("a", version=3), 1),
            ("location", visit("a") | {"lat": "52.5"}, 1),
            ("motion", {"key": "m", "start": "s", "end": "e", "mode": "flying", "distance_m": 1,
                        "from": {"lat": 1, "lon": 2}, "to": {"lat": 1, "lon": 2}}, 1),
            ("health", {"key": "w", "kind": "nap", "start": "s", "end": "e"}, 1),
        ]
        for endpoint, bad_item, index in cases:
            good = capture("ok") if endpoint == "capture" else visit("ok")
            if endpoint != "capture" and endpoint != "location":
                good = {"key": "ok", "deleted": True}                       # a tombstone needs only a key
            status, reply, _ = self.ingest(endpoint, batch([good, bad_item]))
            self.assertEqual((status, reply.get("index")), (400, index), (endpoint, bad_item, reply))
            self.assertIsInstance(reply["error"], str)
        self.assertEqual(self.node.admin("GET", "counts")["endpoints"]["capture"]["stored"], 0)

    def test_reject_substring_stores_nothing(self):
        self.node.admin("POST", "faults", {"reject_substring": "POISON"})
        status, reply, _ = self.ingest("capture", batch([capture("a"), capture("b"), capture("c", "xPOISONx")]))
        self.assertEqual((status, reply), (400, {"error": "rejected by test node", "index": 2}))
        self.assertEqual(self.items("capture"), {})
        self.assertEqual(self.ingest("capture", batch([capture("a"), capture("b")]))[0], 200)
        self.assertEqual(set(self.items("capture")), {"a", "b"})

    def test_413(self):
        big = batch([capture("a", "x" * (1024 * 1024))])
        conn = self.node.conn()
        status, reply, _ = self.ingest("capture", big, conn=conn)
        self.assertEqual(status, 413)
        # the refused body was drained, so the connection still works
        self.assertEqual(self.ingest("capture", batch([capture("a")]), conn=conn)[0], 200)
        conn.close()
        self.assertEqual(self.node.admin("GET", "counts")["status"], {"413": 1, "200": 1})

    def test_413_before_body_with_expect_continue(self):
        with socket.create_connection(("127.0.0.1", self.node.port), timeout=10) as s:
            s.sendall(b"POST /v1/ingest/capture HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + TOKEN.encode() + b"\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n")
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
        self.assertTrue(reply.startswith(b"HTTP/1.1 413 "), reply)

    def test_404_missing_and_unknown(self):
        self.assertEqual(self.ingest("bogus", batch([capture("a")]))[:2], (404, {"error": "not found"}))
        self.node.admin("POST", "faults", {"missing": ["capture"]})
        self.assertEqual(self.ingest("capture", batch([capture("a")]))[0], 404)
        self.assertEqual(self.ingest("location", batch([visit("a")], "linux-gpsd"))[0], 200)
        # auth comes first
        self.assertEqual(self.ingest("capture", batch([capture("a")]), token="nope")[0], 401)

    def test_429_retry_after(self):
        self.node.admin("POST", "faults", {"throttle_rate": 1, "retry_after": 3})
        status, _, headers = self.ingest("capture", batch([capture("a")]))
        self.assertEqual((status, headers["Retry-After"]), (429, "3"))
        self.assertEqual(self.items("capture"), {})

    def test_fail_rate(self):
        self.node.admin("POST", "faults", {"fail_rate": 1})
        for _ in range(5):
            status, _, headers = self.ingest("capture", batch([capture("a")]))
            self.assertIn(status, (500, 502))
            self.assertNotIn("Retry-After", headers)
        self.assertEqual(self.items("capture"), {})

    def test_reset_closes_without_reply(self):
        self.node.admin("POST", "faults", {"reset_rate": 1, "seed": 1})
        for n in range(20):
            with self.assertRaises((ConnectionError, http.client.HTTPException)):
                self.ingest("capture", batch([capture(f"k{n}")]))
        counts = self.node.admin("GET", "counts")
        self.assertEqual(counts["status"], {"reset": 20})
        stored = counts["endpoints"]["capture"]["stored"]
        self.assertTrue(0 < stored < 20, stored)       # some resets came after the store, some before
        self.node.admin("POST", "faults", {"reset_rate": 0})
        status, reply, _ = self.ingest("capture", batch([capture(f"k{n}") for n in range(20)]))
        self.assertEqual((status, reply), (200, {"accepted": 20 - stored, "duplicates": stored}))

    def test_keep_alive(self):
        conn = self.node.conn()
        self.assertEqual(self.node.call("GET", "/v1/health", conn=conn)[0], 200)
        sock = conn.sock
        self.assertEqual(self.ingest("capture", batch([capture("a")]), conn=conn)[0], 200)
        self.assertIs(conn.sock, sock)
        conn.close()
        log = self.node.admin("GET", "requests")["requests"]
        self.assertEqual(len(log), 2)
        self.assertEqual(log[0]["peer"], log[1]["peer"])
        self.assertEqual(log[1]["headers"]["authorization"], "Bearer " + TOKEN)
        self.assertEqual(log[1]["items"], 1)

    def test_slow_ms(self):
        self.node.admin("POST", "faults", {"slow_ms": 300})
        start = time.monotonic()
        self.assertEqual(self.ingest("capture", batch([capture("a")]))[0], 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)

    def test_revoke(self):
        self.node.admin("POST", "tokens", {"token": "temp"})
        self.assertEqual(self.node.call("GET", "/v1/whoami", token="temp")[0], 200)
        self.node.admin("POST", "revoke", {"token": "temp"})
        self.assertEqual(self.node.call("GET", "/v1/whoami", token="temp")[0], 401)
        self.assertEqual(self.ingest("capture", batch([capture("a")]), token="temp")[0], 401)
        self.assertEqual(self.node.call("GET", "/v1/whoami", token=TOKEN)[0], 200)

    def test_bad_admin_fault_is_refused(self):
        status, _, _ = self.node.call("POST", "/_admin/faults", {"fail_rat": 1})
        self.assertEqual(status, 400)

    def test_large_drain(self):
        # 100 batches of 1000 items, as the agent drains an outbox; must stay quick
        conn = self.node.conn()
        start = time.monotonic()
        for b in range(100):
            items = [visit(f"{b}-{i}", "1") for i in range(1000)]
            self.assertEqual(self.ingest("location", batch(items, "linux-gpsd"), conn=conn)[0], 200)
        conn.close()
        self.assertEqual(self.node.admin("GET", "counts")["endpoints"]["location"]["stored"], 100000)
        self.assertLess(time.monotonic() - start, 60)


if __name__ == "__main__":
    unittest.main()
