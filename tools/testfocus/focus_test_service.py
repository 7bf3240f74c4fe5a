#!/usr/bin/python3
"""The services the focus adapter follows, on a private bus, for its tests: a notification
server with `Inhibited` (as KDE Plasma's), the ScreenSaver on both of its object paths (as KDE's,
which signals ActiveChanged on each), xfconfd's xfce4-notifyd /do-not-disturb, and logind's
Manager.GetSession plus a session's LockedHint and IdleHint (for a private "system" bus).

    focus_test_service.py --bus session|system --control FIFO --acks FILE [--on inhibited|active|dnd|locked|idle]…

The test drives it with JSON commands, one per line, on the FIFO; after each one it appends a
line to the acks file, so the test knows the command took effect (and its signals are sent):
  {"cmd": "set", "what": "inhibited"|"active"|"dnd"|"locked"|"idle", "on": true}
  {"cmd": "quit"}                                   leave the bus at once
Needs python3-dbus and python3-gi (Debian packages).
"""
import argparse
import json
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testbus"))
import fifo_control  # noqa: E402

PROPS = "org.freedesktop.DBus.Properties"
NOTIFICATIONS = "org.freedesktop.Notifications"
SCREENSAVER = "org.freedesktop.ScreenSaver"
XFCONF = "org.xfce.Xfconf"
LOGIND = "org.freedesktop.login1"
SESSION = "org.freedesktop.login1.Session"
SESSION_PATH = "/org/freedesktop/login1/session/_31"


class Properties(dbus.service.Object):
    """An object with read-only properties of one interface, signalled when they change."""

    def __init__(self, bus, path, interface, values):
        super().__init__(bus, path)
        self.interface, self.values = interface, values

    def set(self, name, value):
        self.values[name] = dbus.Boolean(value)
        self.PropertiesChanged(self.interface, {name: dbus.Boolean(value)}, [])

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface != self.interface or name not in self.values:
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")
        return self.values[name]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary(self.values if interface == self.interface else {}, signature="sv")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Notifications(Properties):
    def __init__(self, bus, on):
        super().__init__(bus, "/org/freedesktop/Notifications", NOTIFICATIONS, {"Inhibited": dbus.Boolean(on)})

    @dbus.service.method(NOTIFICATIONS, out_signature="ssss")
    def GetServerInformation(self):
        return ("hltest", "Hearthloom", "1", "1.2")


class ScreenSaver(dbus.service.Object):
    def __init__(self, bus, path, state):
        super().__init__(bus, path)
        self.state = state

    @dbus.service.method(SCREENSAVER, out_signature="b")
    def GetActive(self):
        return dbus.Boolean(self.state["active"])

    @dbus.service.signal(SCREENSAVER, signature="b")
    def ActiveChanged(self, active):
        pass


class Xfconf(dbus.service.Object):
    def __init__(self, bus, on):
        super().__init__(bus, "/org/xfce/Xfconf")
        self.dnd = on

    @dbus.service.method(XFCONF, in_signature="ss", out_signature="v")
    def GetProperty(self, channel, prop):
        if channel != "xfce4-notifyd" or prop != "/do-not-disturb":
            raise dbus.exceptions.DBusException("no such property", name="org.xfce.Xfconf.Error.PropertyNotFound")
        return dbus.Boolean(self.dnd)

    @dbus.service.signal(XFCONF, signature="ssv")
    def PropertyChanged(self, channel, prop, value):
        pass


class Manager(dbus.service.Object):
    @dbus.service.method(LOGIND + ".Manager", in_signature="s", out_signature="o")
    def GetSession(self, session_id):
        return dbus.ObjectPath(SESSION_PATH)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", choices=["session", "system"], required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--acks", required=True)
    parser.add_argument("--on", action="append", default=[])
    args = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    env = "DBUS_SESSION_BUS_ADDRESS" if args.bus == "session" else "DBUS_SYSTEM_BUS_ADDRESS"
    bus = dbus.bus.BusConnection(os.environ[env])
    objects, names = {}, []
    if args.bus == "session":
        state = {"active": "active" in args.on}
        objects["inhibited"] = Notifications(bus, "inhibited" in args.on)
        savers = [ScreenSaver(bus, path, state) for path in ("/org/freedesktop/ScreenSaver", "/ScreenSaver")]
        objects["dnd"] = Xfconf(bus, "dnd" in args.on)
        names = [dbus.service.BusName(n, bus) for n in (NOTIFICATIONS, SCREENSAVER, XFCONF)]
    else:
        Manager(bus, "/org/freedesktop/login1")
        objects["session"] = Properties(bus, SESSION_PATH, SESSION, {"LockedHint": dbus.Boolean("locked" in args.on),
                                                                     "IdleHint": dbus.Boolean("idle" in args.on)})
        names = [dbus.service.BusName(LOGIND, bus)]

    def command(c):
        if c["cmd"] == "quit":
            os._exit(0)
        what, on = c["what"], bool(c["on"])
        if what == "inhibited":
            objects["inhibited"].set("Inhibited", on)
        elif what == "active":
            state["active"] = on
            for saver in savers:
                saver.ActiveChanged(dbus.Boolean(on))
        elif what == "dnd":
            objects["dnd"].dnd = on
            objects["dnd"].PropertyChanged("xfce4-notifyd", "/do-not-disturb", dbus.Boolean(on, variant_level=1))
        elif what in ("locked", "idle"):
            objects["session"].set("LockedHint" if what == "locked" else "IdleHint", on)
        bus.flush()
        with open(args.acks, "a") as f:
            f.write(json.dumps(c) + "\n")

    fifo_control.serve(args.control, args.acks, bus, command)
    del names


if __name__ == "__main__":
    sys.exit(main())
