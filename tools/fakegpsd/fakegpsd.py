#!/usr/bin/env python3
"""A gpsd stand-in for the cases a real gpsd will not produce on demand: garbage on the socket,
another protocol version. It speaks just enough of gpsd's JSON protocol for libgps: a VERSION
line on connect, then, once the client sends ?WATCH, the lines of a script file, as they are.

  fakegpsd.py --port-file F --proto 4.0 --first BAD.txt --then GOOD.txt

--first is sent on the first connection (which is then closed), --then on every later one
(kept open until the client leaves). Python stdlib only.
"""
import argparse, socket, threading

def serve(conn, args, first):
    major, minor = args.proto.split(".")
    with conn:
        conn.sendall(('{"class":"VERSION","release":"fake","rev":"fake","proto_major":%s,"proto_minor":%s}\n' % (major, minor)).encode())
        buf = b""
        while b"?WATCH" not in buf:
            data = conn.recv(4096)
            if not data:
                return
            buf += data
        with open(args.first if first else args.then, "rb") as f:
            for line in f:
                conn.sendall(line)
        if first:
            return
        while conn.recv(4096):
            pass

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--proto", default="3.14")
    ap.add_argument("--first", required=True)
    ap.add_argument("--then", required=True)
    args = ap.parse_args()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    with open(args.port_file, "w") as f:
        f.write(str(server.getsockname()[1]))
    first = True
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, args, first), daemon=True).start()
        first = False

if __name__ == "__main__":
    main()
