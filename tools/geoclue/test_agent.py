#!/usr/bin/python3
"""A GeoClue location agent for the geoclue adapter's tests, as GNOME Shell or Phosh would be.

geoclue 2.6 serves a client only once an agent for the client's user has registered
(Manager.AddAgent). This one registers under --id (which geoclue.conf's [agent] whitelist must
name) on the system bus that $DBUS_SYSTEM_BUS_ADDRESS points at, and again whenever geoclue
comes back after exiting. It authorizes every app at the accuracy asked for.
After each registration it appends a line to --acks ("registered" or "failed: ..."), so a test
knows when geoclue has an agent. Needs python3-dbus and python3-gi (Debian packages).
"""
import argparse

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

GEOCLUE = "org.freedesktop.GeoClue2"
AGENT = "org.freedesktop.GeoClue2.Agent"
EXACT = 8


class Agent(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/GeoClue2/Agent")

    @dbus.service.method(AGENT, in_signature="su", out_signature="bu")
    def AuthorizeApp(self, desktop_id, accuracy):
        return True, accuracy

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"MaxAccuracyLevel": dbus.UInt32(EXACT)} if interface == AGENT else {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--id", default="hearthloom-test-agent")
    ap.add_argument("--acks", required=True)
    args = ap.parse_args()
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    agent = Agent(bus)

    def ack(line):
        with open(args.acks, "a") as f:
            f.write(line + "\n")

    def register(owner):
        if not owner:
            return
        manager = bus.get_object(GEOCLUE, "/org/freedesktop/GeoClue2/Manager", introspect=False)
        # Asynchronous: geoclue reads this agent's properties before it answers AddAgent.
        manager.AddAgent(args.id, dbus_interface="org.freedesktop.GeoClue2.Manager",
                         reply_handler=lambda: ack("registered"),
                         error_handler=lambda e: ack("failed: " + str(e)))

    bus.watch_name_owner(GEOCLUE, register)
    GLib.MainLoop().run()
    del agent


if __name__ == "__main__":
    main()
