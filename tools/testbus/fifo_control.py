"""The control channel of the test services on a private D-Bus (tools/testplayer, tools/testfocus):
JSON commands, one per line, read from a FIFO inside the GLib main loop; a "ready" line in the
acks file once the service is on the bus; and an exit when the bus goes away."""
import json
import os

from gi.repository import GLib


def serve(control, acks, bus, command):
    """Calls `command(dict)` for each line written to the FIFO `control`, then runs the main loop."""
    fd = os.open(control, os.O_RDWR | os.O_NONBLOCK)   # RDWR: no EOF when the test's writer closes
    pending = b""

    def readable(_fd, _cond):
        nonlocal pending
        try:
            pending += os.read(fd, 65536)
        except BlockingIOError:
            return True
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.strip():
                command(json.loads(line))
        return True

    GLib.io_add_watch(fd, GLib.IO_IN, readable)
    bus.add_signal_receiver(lambda: os._exit(0), signal_name="Disconnected", dbus_interface="org.freedesktop.DBus.Local")
    with open(acks, "a") as f:
        f.write("ready\n")
    GLib.MainLoop().run()
