"""Self-test of the test node's command line: flags, state files and clean exits.

    cd /work/main && python3 -m unittest discover -s tools/testnode -v
"""

import http.client
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import unittest

from test_testnode import Node, TOKEN, batch, capture, visit


class TestCommandLine(unittest.TestCase):
    def test_flags_and_clean_exit(self):
        node = Node("--token", "one", "--token", "two", "--scopes", "read", "--mint-forbidden",
                    "--missing", "photos", "--node-version", "9.9.9")
        try:
            self.assertEqual(node.call("GET", "/v1/health")[1]["version"], "9.9.9")
            self.assertEqual(node.call("GET", "/v1/whoami", token="two")[0], 200)
            self.assertEqual(node.call("GET", "/v1/whoami", token=TOKEN)[0], 401)
            self.assertEqual(node.call("POST", "/v1/keys", {"name": "c", "grants": {"capture": True}},
                                       token="one")[0], 403)
            self.assertEqual(node.call("POST", "/v1/ingest/capture", batch([capture("a")]), token="one")[0], 403)
            self.assertEqual(node.admin("GET", "faults")["missing"], ["photos"])
        finally:
            self.assertEqual(node.stop(), 0)
        self.assertEqual(node.stdout, f"listening on {node.port}\n")

    def test_state_file_survives_a_restart(self):
        tmp = tempfile.mkdtemp()
        state = os.path.join(tmp, "node.json")
        try:
            first = Node("--state-file", state)
            status, reply, _ = first.call("POST", "/v1/ingest/location", batch([visit("v1", "1")], "linux-gpsd"), token=TOKEN)
            self.assertEqual((status, reply), (200, {"accepted": 1, "duplicates": 0}))
            conn = first.conn()                         # a keep-alive connection open across the stop
            self.assertEqual(first.call("GET", "/v1/health", conn=conn)[0], 200)
            first.proc.send_signal(signal.SIGTERM)
            self.assertEqual(first.proc.wait(timeout=10), 0)
            first.stop()
            second = Node("--state-file", state)
            try:
                status, reply, _ = second.call("POST", "/v1/ingest/location",
                                               batch([visit("v1", "1"), visit("v2")], "linux-gpsd"), token=TOKEN)
                self.assertEqual((status, reply), (200, {"accepted": 1, "duplicates": 1}))
                v1 = {i["key"]: i for i in second.admin("GET", "items?endpoint=location")["items"]}["v1"]
                self.assertEqual((v1["receipts"], v1["accepts"]), (2, 1))
                self.assertEqual(second.admin("GET", "counts")["endpoints"]["location"]["duplicates"], 1)
            finally:
                self.assertEqual(second.stop(), 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @unittest.skipUnless(shutil.which("openssl"), "needs the openssl command")
    def test_tls(self):
        tmp = tempfile.mkdtemp()
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
        node = Node("--tls-cert", cert, "--tls-key", key)
        try:
            ctx = ssl.create_default_context(cafile=cert)
            conn = http.client.HTTPSConnection("127.0.0.1", node.port, context=ctx, timeout=10)
            for _ in range(2):                                  # keep-alive over TLS too
                status, reply, _ = node.call("GET", "/v1/health", conn=conn)
                self.assertEqual((status, reply["status"]), (200, "ok"))
            conn.close()
        finally:
            self.assertEqual(node.stop(), 0)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
