#!/usr/bin/env python3
"""Add N geotagged videos with `moov` at the end to the photo tree DIR, fast (no ffmpeg per file).

usage: make-video-tree.py N DIR TEMPLATE [--mdat-kb K] [--per-folder F]

TEMPLATE is one real movie made once by ffmpeg without +faststart (ftyp, free, mdat, moov) with
`-metadata location=+00.0000+000.0000/` and a creation_time, so its moov/udta holds a `©xyz`
ISO 6709 text and its mvhd a creation time. Each copy gets its own place (the `©xyz` text, same
length) and creation time (mvhd, seconds since 1904), and K KiB (default 4096) more `mdat`: the
mdat size field grows and a hole of K KiB (sparse on disk) goes just before moov, so moov sits
4 MiB into the file as in a phone's clip, and the sample offsets (at mdat's start) stay right.
Files are DIR/vNNNN/VID_NNNNNNN.mov, F per folder (default 500). Seeded (7): the same N gives
the same files; every creation time is a distinct second, so each video is a distinct item.
"""
import argparse
import os
import random
import struct


def boxes(data, start, end):
    """(type, offset, size) of the boxes in data[start:end]."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
        elif size == 0:
            size = end - at
        yield kind, at, size
        at += size


def main():
    p = argparse.ArgumentParser()
    p.add_argument("n", type=int)
    p.add_argument("dir")
    p.add_argument("template")
    p.add_argument("--mdat-kb", type=int, default=4096)
    p.add_argument("--per-folder", type=int, default=500)
    a = p.parse_args()
    data = bytearray(open(a.template, "rb").read())
    top = {kind: (at, size) for kind, at, size in boxes(data, 0, len(data))}
    mdat_at, mdat_size = top[b"mdat"]
    moov_at, moov_size = top[b"moov"]
    assert moov_at > mdat_at and moov_at + moov_size == len(data), "template must end with moov (no +faststart)"
    assert struct.unpack(">I", data[mdat_at:mdat_at + 4])[0] == mdat_size, "template mdat must have a 32-bit size"
    mvhd = data.index(b"mvhd", moov_at) + 4          # version/flags, then the creation time
    xyz = data.index(b"\xa9xyz", moov_at) + 8        # 16-bit length and language, then the text
    length = struct.unpack(">H", data[xyz - 4:xyz - 2])[0]
    assert length == len("+00.0000+000.0000/"), "template ©xyz must be +00.0000+000.0000/"
    extra = a.mdat_kb * 1024
    head = bytes(data[:mdat_at]) + struct.pack(">I", mdat_size + extra) + bytes(data[mdat_at + 4:moov_at])
    rng = random.Random(7)
    first = 3_786_912_000                             # 2024-01-01 00:00:00 UTC in 1904 seconds
    seconds = rng.sample(range(first, first + 2 * 365 * 86_400), a.n)
    for i in range(a.n):
        folder = os.path.join(a.dir, "v%04d" % (i // a.per_folder))
        if i % a.per_folder == 0:
            os.makedirs(folder, exist_ok=True)
        moov = bytearray(data[moov_at:])
        struct.pack_into(">I", moov, mvhd - moov_at + 4, seconds[i])
        place = "%+08.4f%+09.4f/" % (rng.uniform(-85, 85), rng.uniform(-175, 175))
        moov[xyz - moov_at:xyz - moov_at + length] = place.encode()
        with open(os.path.join(folder, "VID_%07d.mov" % i), "wb") as f:
            f.write(head)
            f.seek(extra, os.SEEK_CUR)                # the hole: frames no reader of metadata touches
            f.write(moov)


if __name__ == "__main__":
    main()
