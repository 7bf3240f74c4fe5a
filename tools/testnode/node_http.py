"""Request bodies and replies over keep-alive HTTP/1.1, for the test node's handler."""

import json
import socket
import ssl
import struct
from http.server import BaseHTTPRequestHandler

from node_schema import MAX_BODY, DRAIN_LIMIT


class ClientGone(Exception):
    """The client closed the connection before sending the whole body."""


class BodyHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 plumbing the node's handler stands on: TLS set-up, JSON replies, resets, bodies."""

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
