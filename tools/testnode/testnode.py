#!/usr/bin/env python3
"""A Hearthloom test node: implements docs/node-api.md with switchable fault injection.

Python 3 standard library only. Tests start it as a real process:

    python3 tools/testnode/testnode.py --port 0 --port-file PATH [options]

It binds, writes the chosen port to PATH (atomically, once it accepts connections),
prints `listening on PORT`, and serves until SIGTERM/SIGINT. Everything under
/_admin/ is an unauthenticated control API for tests (faults, revocation, state).

Its parts: node_schema.py checks what a device sends, node_state.py is what the node
remembers, node_http.py reads bodies and writes replies; this file routes requests.
"""

import argparse
import json
import os
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
import traceback
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from node_schema import DRAIN_LIMIT, ENDPOINTS, MAX_BODY, check_envelope, check_item
from node_state import NodeState, format_retry_after, update_faults
from node_http import BodyHandler, ClientGone


class Handler(BodyHandler):
    protocol_version = "HTTP/1.1"          # keep-alive; every reply carries Content-Length
    server_version = "hearthloom-testnode/1"
    timeout = 300                          # idle keep-alive connections are closed after this

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
        with self.state.lock:
            self.state.in_flight += 1
        try:
            self.route(method)
        finally:
            with self.state.lock:
                self.state.in_flight -= 1

    def route(self, method):
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
        with state.lock:
            closing = state.closing
        if closing:                                      # stopping: store nothing more
            self.drain(self.content_length())
            return self.send_json(503, {"error": "node stopping"}, {"Retry-After": "1"}, close=True)
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
    p.add_argument("--state-file", help="items and counts are read from it at start (when it exists) and "
                                        "written to it on SIGTERM, so a restarted node remembers them")
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
    if args.state_file and os.path.exists(args.state_file):
        server.state.load(args.state_file)
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
    if args.state_file:
        save_when_idle(server.state, args.state_file)
    server.server_close()
    return 0


def save_when_idle(state, path):
    """Stops storing (ingest answers 503), lets the requests in flight send their replies (a
    batch stored is answered, so a client never resends it), then saves."""
    with state.lock:
        state.closing = True
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with state.lock:
            if state.in_flight == 0:
                break
        time.sleep(0.01)
    with state.lock:
        state.save(path)


if __name__ == "__main__":
    sys.exit(main())
