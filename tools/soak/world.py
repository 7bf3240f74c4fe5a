"""The soak's real parts as processes: the test node (restartable, keeping its items in a state
file), two private D-Bus daemons, gpsd fed by gpsfake, the focus test service, and `watch`
itself with a shifted wall clock and a notify socket. Every process here is started by this driver and
stopped by its pid only."""

import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "soak-device-token"


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {seconds} s waiting for {what}")


def stop_pid(proc, sig=signal.SIGTERM, seconds=20):
    """Signals one process of ours and reaps it; SIGKILL when it does not go."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid):
    """The pids of a process's children (any of its threads)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(p) for p in f.read().split()]
    return found


class Node:
    """tools/testnode/testnode.py on a fixed port with --state-file, so a restart keeps what it
    stored and its receipt counts (how duplicates are seen)."""

    def __init__(self, root):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.state_file = os.path.join(root, "node-state.json")
        self.log = open(os.path.join(root, "node.log"), "a")
        self.proc = None
        self.restarts = 0
        self.start()

    def start(self):
        port_file = os.path.join(os.path.dirname(self.state_file), "node.port")
        if os.path.exists(port_file):
            os.unlink(port_file)
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(REPO, "tools/testnode/testnode.py"), "--port", str(self.port),
             "--port-file", port_file, "--token", TOKEN, "--state-file", self.state_file],
            stdout=self.log, stderr=self.log)
        wait_for(lambda: os.path.exists(port_file), 30, "the test node to listen")

    def restart(self, down_seconds):
        """SIGTERM (the node answers what is in flight, then saves), down a while, up again."""
        rc = stop_pid(self.proc)
        if rc != 0:
            raise RuntimeError(f"the test node exited {rc} on SIGTERM")
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1

    def admin(self, path):
        with urllib.request.urlopen(f"{self.url}/_admin/{path}", timeout=30) as r:
            return json.load(r)

    def stop(self):
        if self.proc:
            stop_pid(self.proc)


class Bus:
    """A private dbus-daemon (session type) listening in its own folder."""

    def __init__(self, root, name):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.address = f"unix:path={self.dir}/bus"
        self.proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--address=" + self.address],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: os.path.exists(self.dir + "/bus"), 10, f"the {name} bus")

    def stop(self):
        stop_pid(self.proc)


class GPSFake:
    """gpsd fed by gpsfake over UDP from an NMEA log, one sentence every `cycle` seconds."""

    def __init__(self, root, log, cycle):
        self.port = free_port()
        self.out = open(os.path.join(root, "gpsfake.log"), "a")
        self.proc = subprocess.Popen(["gpsfake", "-1", "-q", "-u", "-n", "-c", str(cycle), "-P", str(self.port), log],
                                     stdout=self.out, stderr=self.out, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
        self.gpsd = None

        def gpsd_started():
            self.gpsd = next((p for p in children(self.proc.pid) if _comm(p) == "gpsd"), None)
            return self.gpsd is not None
        wait_for(gpsd_started, 60, "gpsfake's gpsd")

    def stop(self):
        if self.gpsd and _comm(self.gpsd) == "gpsd":
            os.kill(self.gpsd, signal.SIGKILL)
        stop_pid(self.proc)


def _comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


class FocusService:
    """tools/testfocus/focus_test_service.py on the session bus, driven through its FIFO."""

    def __init__(self, bus, env):
        self.control, self.acks = bus.dir + "/focus.ctl", bus.dir + "/focus.acks"
        os.mkfifo(self.control, 0o600)
        self.proc = subprocess.Popen(["/usr/bin/python3", os.path.join(REPO, "tools/testfocus/focus_test_service.py"), "--bus", "session",
                                      "--control", self.control, "--acks", self.acks], env=env)
        self.done = 1
        wait_for(lambda: self._acks() >= 1, 15, "the focus service")

    def _acks(self):
        try:
            with open(self.acks) as f:
                return len(f.read().splitlines())
        except FileNotFoundError:
            return 0

    def set(self, what, on):
        fd = os.open(self.control, os.O_WRONLY)
        try:
            os.write(fd, (json.dumps({"cmd": "set", "what": what, "on": on}) + "\n").encode())
        finally:
            os.close(fd)
        self.done += 1
        wait_for(lambda: self._acks() >= self.done, 15, f"the focus service to set {what}")

    def stop(self):
        stop_pid(self.proc)


class NotifySocket:
    """The datagram socket `watch` reports to (NOTIFY_SOCKET): every message with its CLOCK_MONOTONIC time."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.5)
        self.messages = []                      # (monotonic seconds, text)
        self.closed = False
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self):
        while not self.closed:
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            self.messages.append((time.monotonic(), data.decode(errors="replace")))

    def close(self):
        self.closed = True
        self.thread.join()
        self.sock.close()


class Watch:
    """`hearthloom-ingest watch` with its wall clock shifted by tools/soak/wallclock_shift.c (an
    LD_PRELOAD library built here; see it for why not libfaketime) from a file re-read every second,
    CLOCK_MONOTONIC left alone as a wall-clock step leaves it, and a notify socket."""

    def __init__(self, root, binary, env, watchdog_usec):
        self.clock_file = os.path.join(root, "clock-offset")
        self.set_offset(0)
        shift = os.path.join(root, "wallclock_shift.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shift, os.path.join(REPO, "tools/soak/wallclock_shift.c"), "-ldl"],
                       check=True)
        self.notify = NotifySocket(os.path.join(root, "notify.sock"))
        env = dict(env, NOTIFY_SOCKET=self.notify.path, WATCHDOG_USEC=str(watchdog_usec),
                   LD_PRELOAD=shift, SOAK_CLOCK_FILE=self.clock_file)
        self.log = open(os.path.join(root, "watch.log"), "a")
        self.proc = subprocess.Popen([binary, "watch"], env=env, stdout=self.log, stderr=self.log)
        self.pid = self.proc.pid
        wait_for(lambda: any("READY=1" in m for _, m in self.notify.messages) or self.proc.poll() is not None,
                 30, "READY=1 from watch")
        if self.proc.poll() is not None:
            raise RuntimeError(f"watch exited {self.proc.returncode} before READY=1 (see {self.log.name})")
        self.stops = []                         # (monotonic start, end) of each SIGSTOP

    def set_offset(self, seconds):
        """The wall clock `watch` sees: real time plus `seconds`."""
        tmp = self.clock_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{seconds:+d}\n")
        os.replace(tmp, self.clock_file)

    def suspend(self, seconds):
        os.kill(self.pid, signal.SIGSTOP)
        start = time.monotonic()
        time.sleep(seconds)
        os.kill(self.pid, signal.SIGCONT)
        self.stops.append((start, time.monotonic()))

    def stop(self):
        """SIGTERM (it sends what it holds); its exit status, or SIGKILL and a negative one after 60 s."""
        rc = stop_pid(self.proc, seconds=60)
        self.notify.close()
        return rc
