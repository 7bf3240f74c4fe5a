#!/usr/bin/python3
"""A media player on the D-Bus session bus that plays nothing, for the mpris adapter's tests.

It implements org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player as players do: properties,
PropertiesChanged, Seeked, Position that advances at Rate while playing, a track that ends (or loops).
The test drives it exactly with JSON commands, one per line, on a FIFO (--control); after each one
it appends a line to --acks, so the test knows the command took effect. Commands:
  {"cmd": "load", "metadata": {...}, "play": true}   new track (JSON str/int/float/list → s/x/d/as;
                                                      "mpris:trackid" → o); with "play", one signal
                                                      carries Metadata and PlaybackStatus together
  {"cmd": "play"} {"cmd": "pause"} {"cmd": "stop"}
  {"cmd": "seek", "to": 12.5}                        position in seconds, with a Seeked signal
  {"cmd": "jump", "to": 12.5}                        the same without a signal (players that forget)
  {"cmd": "rate", "rate": 2.0}
  {"cmd": "loop", "on": true}                        LoopStatus Track: at the end, Seeked(0) and on
  {"cmd": "quit"}                                    leave the bus at once, mid-track
Needs python3-dbus and python3-gi (Debian packages).
"""
import argparse
import os
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testbus"))
import fifo_control  # noqa: E402

ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PATH = "/org/mpris/MediaPlayer2"


def to_dbus(key, value):
    if key == "mpris:trackid" and isinstance(value, str):
        return dbus.ObjectPath(value)
    if isinstance(value, bool):
        return dbus.Boolean(value)
    if isinstance(value, int):
        return dbus.Int64(value)
    if isinstance(value, float):
        return dbus.Double(value)
    if isinstance(value, list):
        return dbus.Array([dbus.String(v) for v in value], signature="s")
    return dbus.String(value)


class Player(dbus.service.Object):
    def __init__(self, bus, identity, acks):
        super().__init__(bus, PATH)
        self.identity = identity
        self.acks = acks
        self.status = "Stopped"
        self.rate = 1.0
        self.loop = False
        self.metadata = dbus.Dictionary({}, signature="sv")
        self.base = 0.0           # position (s) at self.since
        self.since = time.monotonic()
        self.end_timer = None

    # -- clock ---------------------------------------------------------------
    def length(self):
        value = self.metadata.get("mpris:length")
        return value / 1e6 if isinstance(value, (dbus.Int64, dbus.UInt64, dbus.Int32)) and value > 0 else None

    def position(self):
        pos = self.base
        if self.status == "Playing":
            pos += (time.monotonic() - self.since) * self.rate
        length = self.length()
        return min(pos, length) if length else pos

    def rebase(self, to=None):
        self.base = self.position() if to is None else to
        self.since = time.monotonic()
        self.schedule_end()

    def schedule_end(self):
        if self.end_timer:
            GLib.source_remove(self.end_timer)
            self.end_timer = None
        length = self.length()
        if self.status == "Playing" and length:
            wait = max(0.0, (length - self.base) / self.rate)
            self.end_timer = GLib.timeout_add(int(wait * 1000) + 1, self.track_end)

    def track_end(self):
        self.end_timer = None
        if self.loop:
            self.rebase(0.0)
            self.Seeked(dbus.Int64(0))
        else:
            self.base = 0.0
            self.set_status("Stopped")
        return False

    def changed(self, props):
        self.PropertiesChanged(PLAYER, dbus.Dictionary(props, signature="sv"), dbus.Array([], signature="s"))

    def set_status(self, status, extra=None):
        self.rebase()
        self.status = status
        if status == "Stopped":
            self.base = 0.0
        self.rebase()
        props = {"PlaybackStatus": dbus.String(status)}
        props.update(extra or {})
        self.changed(props)

    # -- test control --------------------------------------------------------
    def command(self, c):
        cmd = c["cmd"]
        if cmd == "load":
            self.metadata = dbus.Dictionary({k: to_dbus(k, v) for k, v in c["metadata"].items()}, signature="sv")
            self.base = 0.0
            if c.get("play"):
                self.status = "Playing"
                self.rebase(0.0)
                self.changed({"Metadata": self.metadata, "PlaybackStatus": dbus.String("Playing")})
            else:
                self.rebase(0.0)
                self.changed({"Metadata": self.metadata})
        elif cmd in ("play", "pause", "stop"):
            self.set_status({"play": "Playing", "pause": "Paused", "stop": "Stopped"}[cmd])
        elif cmd == "seek":
            self.rebase(float(c["to"]))
            self.Seeked(dbus.Int64(int(self.base * 1e6)))
        elif cmd == "jump":
            self.rebase(float(c["to"]))
        elif cmd == "rate":
            self.rebase()
            self.rate = float(c["rate"])
            self.rebase()
            self.changed({"Rate": dbus.Double(self.rate)})
        elif cmd == "loop":
            self.loop = bool(c["on"])
            self.changed({"LoopStatus": dbus.String("Track" if self.loop else "None")})
        elif cmd == "quit":
            os._exit(0)
        with open(self.acks, "a") as f:
            f.write(cmd + "\n")

    # -- org.freedesktop.DBus.Properties ------------------------------------
    def props(self, interface):
        if interface == ROOT:
            return {"Identity": dbus.String(self.identity), "DesktopEntry": dbus.String("hearthloom-test-player"),
                    "CanQuit": dbus.Boolean(True), "CanRaise": dbus.Boolean(False), "HasTrackList": dbus.Boolean(False),
                    "SupportedUriSchemes": dbus.Array([], signature="s"), "SupportedMimeTypes": dbus.Array([], signature="s")}
        if interface == PLAYER:
            return {"PlaybackStatus": dbus.String(self.status), "LoopStatus": dbus.String("Track" if self.loop else "None"),
                    "Rate": dbus.Double(self.rate), "Shuffle": dbus.Boolean(False), "Metadata": self.metadata,
                    "Volume": dbus.Double(1.0), "Position": dbus.Int64(int(self.position() * 1e6)),
                    "MinimumRate": dbus.Double(0.1), "MaximumRate": dbus.Double(100.0),
                    "CanGoNext": dbus.Boolean(False), "CanGoPrevious": dbus.Boolean(False), "CanPlay": dbus.Boolean(True),
                    "CanPause": dbus.Boolean(True), "CanSeek": dbus.Boolean(True), "CanControl": dbus.Boolean(True)}
        raise dbus.exceptions.DBusException("no such interface " + interface,
                                            name="org.freedesktop.DBus.Error.UnknownInterface")

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.props(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary(self.props(interface), signature="sv")

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ssv")
    def Set(self, interface, name, value):
        if name == "Rate":
            self.command({"cmd": "rate", "rate": float(value)})

    @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    # -- org.mpris.MediaPlayer2(.Player) -----------------------------------
    @dbus.service.method(ROOT)
    def Raise(self):
        pass

    @dbus.service.method(ROOT)
    def Quit(self):
        os._exit(0)

    @dbus.service.method(PLAYER)
    def Play(self):
        self.set_status("Playing")

    @dbus.service.method(PLAYER)
    def Pause(self):
        self.set_status("Paused")

    @dbus.service.method(PLAYER)
    def PlayPause(self):
        self.set_status("Paused" if self.status == "Playing" else "Playing")

    @dbus.service.method(PLAYER)
    def Stop(self):
        self.set_status("Stopped")

    @dbus.service.method(PLAYER)
    def Next(self):
        pass

    @dbus.service.method(PLAYER)
    def Previous(self):
        pass

    @dbus.service.method(PLAYER, in_signature="x")
    def Seek(self, offset):
        self.command({"cmd": "seek", "to": max(0.0, self.position() + offset / 1e6)})

    @dbus.service.method(PLAYER, in_signature="ox")
    def SetPosition(self, track, position):
        self.command({"cmd": "seek", "to": position / 1e6})

    @dbus.service.method(PLAYER, in_signature="s")
    def OpenUri(self, uri):
        pass

    @dbus.service.signal(PLAYER, signature="x")
    def Seeked(self, position):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="hltest")
    parser.add_argument("--identity", default="Hearthloom Test Player")
    parser.add_argument("--control", required=True, help="FIFO to read JSON commands from")
    parser.add_argument("--acks", required=True, help="file to append one line per command done")
    args = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    player = Player(bus, args.identity, args.acks)
    name = dbus.service.BusName(ROOT + "." + args.name, bus)

    fifo_control.serve(args.control, args.acks, bus, player.command)
    del name


if __name__ == "__main__":
    sys.exit(main())
