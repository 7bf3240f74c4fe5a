#!/usr/bin/python3
"""Feeds an NMEA log to geoclue's --nmea-socket, one fix (RMC + GGA) per write, for the tests.

It listens on --socket; geoclue connects once a client has started. Each fix of the log (the
GGA and RMC sentences of one time, with a position) goes out in one write, and the next only
after geoclue has read it (the socket's unread bytes, SIOCOUTQ, are back to 0): geoclue makes
one location of all the sentences it finds in one read, so two fixes in one read would be one.
When geoclue goes away (a restart), the fix in flight is sent again to the next geoclue that
connects. With --hold-at N it stops after N fixes until the file --resume exists.
--status gets one line per event: "connected", "held N", "done N".
"""
import argparse
import os
import select
import socket
import struct
import termios
import fcntl
import time


def fixes(path):
    """[(time, [sentences])] in log order: the GGA and RMC of each time that has a position."""
    out = []
    with open(path, newline="") as f:
        for line in f:
            line = line.strip()
            fields = line.split(",")
            if len(fields) < 7 or fields[0][3:] not in ("GGA", "RMC"):
                continue
            if fields[0][3:] == "GGA" and fields[2] == "":
                continue
            if fields[0][3:] == "RMC" and fields[2] != "A":
                continue
            if out and out[-1][0] == fields[1]:
                out[-1][1].append(line)
            else:
                out.append((fields[1], [line]))
    return out


def unread(conn):
    return struct.unpack("i", fcntl.ioctl(conn, termios.TIOCOUTQ, b"\0\0\0\0"))[0]


def send(conn, data):
    """True once geoclue has read `data`; False when it went away first."""
    try:
        conn.sendall(data)
    except OSError:
        return False
    while unread(conn) > 0:
        ready, _, _ = select.select([conn], [], [], 0.0005)
        if ready and conn.recv(1024) == b"":
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--status", required=True)
    ap.add_argument("--hold-at", type=int, default=None)
    ap.add_argument("--resume", default=None)
    ap.add_argument("--rate", type=float, default=250.0, help="at most this many fixes a second")
    args = ap.parse_args()
    day = fixes(args.log)

    def status(line):
        with open(args.status, "a") as f:
            f.write(line + "\n")

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    server.bind(args.socket)
    os.chmod(args.socket, 0o666)
    server.listen(4)
    sent, conn = 0, None
    while sent < len(day):
        if conn is None:
            conn, _ = server.accept()
            status("connected")
        if args.hold_at is not None and sent == args.hold_at:
            status(f"held {sent}")
            while not os.path.exists(args.resume):
                time.sleep(0.05)
            args.hold_at = None
        # Order as a receiver sends them: RMC, then GGA.
        _, sentences = day[sent]
        data = "".join(s + "\r\n" for s in sorted(sentences, key=lambda s: s[3:6] != "RMC")).encode()
        if not send(conn, data):
            conn.close()
            conn = None
            continue
        sent += 1
        time.sleep(1.0 / args.rate)
    status(f"done {sent}")
    # Keep the connection open: geoclue would take a closed socket as a broken source.
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
