#!/usr/bin/env python3
"""Write N small but valid geotagged JPEGs under DIR, fast (stdlib only, no exiftool per file).

usage: make-photo-tree.py N DIR [--pad-kb K] [--per-folder F]

Files are DIR/dNNNN/IMG_NNNNNNN.jpg, F per folder (default 500). Each one is
  SOI, APP1 "Exif\\0\\0" (little-endian TIFF: IFD0 Make, Model, ExifIFD and GPS IFD pointers;
  ExifIFD DateTimeOriginal, OffsetTimeOriginal "+01:00", SubSecTimeOriginal; GPS IFD
  GPSVersionID, Lat/Lon refs and Lat/Lon as three RATIONALs with seconds as x/10000),
  then the tables, frame and scan of a 16x16 gray baseline JPEG (one template, made once
  with `convert-im6.q16 -size 16x16 xc:gray -strip t.jpg`, minus its SOI and JFIF APP0),
  then K KiB (default 96) of 0x00 just before the final EOI, so the file has the bulk of a
  real photo while its metadata stays in the first few hundred bytes. Metadata readers stop
  at SOS; image decoders decode the 16x16 picture and warn about "extraneous bytes before
  marker 0xd9".
Times and coordinates are random but seeded (42), so a given N always gives the same files;
capture times are distinct seconds, so every file is a distinct photo (a distinct item key).

Expected values (`exiftool -n -GPSLatitude -GPSLongitude -DateTimeOriginal FILE`); they depend
on N, since all capture times are drawn before the first coordinates:
  make-photo-tree.py 10000 T
    T/d0000/IMG_0000000.jpg   GPSLatitude -58.95624425      GPSLongitude -7.13051508333333   DateTimeOriginal 2016:11:22 18:53:35
    T/d0019/IMG_0009999.jpg   GPSLatitude -5.65153286111111 GPSLongitude 92.0636948333333   DateTimeOriginal 2022:04:23 20:17:44
  make-photo-tree.py 100000 S --pad-kb 0
    S/d0000/IMG_0000000.jpg   GPSLatitude -15.7649405555556 GPSLongitude 13.3935826388889   DateTimeOriginal 2016:11:22 18:53:35
    S/d0199/IMG_0099999.jpg   GPSLatitude 31.5909786666667  GPSLongitude -106.096210805556  DateTimeOriginal 2022:04:24 01:37:42
(file 0 of the 10 000 tree: generated -58.956244241724114, -7.130515097022169; the seconds are
rounded to 1/10000, hence the last digits.) exiftool -validate also lists the "required" tags
left out (ExifVersion, XResolution, ...); no reader of geotags needs them.
"""
import argparse
import datetime
import os
import random
import struct
import sys

# 16x16 gray baseline JPEG from ImageMagick, without SOI, APP0 and the final EOI:
# DQT, SOF0 (1 component), DHT x2, SOS and one MCU of entropy-coded data.
BODY = bytes.fromhex(
    "ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20242e2720"
    "222c231c1c2837292c30313434341f27393d38323c2e333432"
    "ffc0000b080010001001011100"
    "ffc4001500010100000000000000000000000000000002"
    "ffc40014100100000000000000000000000000000000"
    "ffda0008010100003f00901f"
)
EOI = b"\xff\xd9"

CAMERAS = [("Apple", "iPhone 13 mini"), ("Google", "Pixel 7"), ("samsung", "SM-S911B"),
           ("FUJIFILM", "X-T4"), ("SONY", "ILCE-7M3"), ("Canon", "Canon EOS R6")]

ASCII, SHORT, LONG, RATIONAL, BYTE = 2, 3, 4, 5, 1


def ifd(entries, start):
    """Lay out one IFD at offset `start`: entries are (tag, type, count, payload bytes).
    Payloads over 4 bytes go right after the IFD. Returns (bytes, offset just past them)."""
    entries = sorted(entries)
    head = struct.pack("<H", len(entries))
    data = b""
    data_at = start + 2 + 12 * len(entries) + 4
    for tag, typ, count, payload in entries:
        if len(payload) <= 4:
            head += struct.pack("<HHI", tag, typ, count) + payload.ljust(4, b"\0")
        else:
            head += struct.pack("<HHII", tag, typ, count, data_at + len(data))
            data += payload + (b"\0" if len(payload) % 2 else b"")   # keep offsets even
    out = head + struct.pack("<I", 0) + data
    return out, start + len(out)


def asc(s):
    b = s.encode() + b"\0"
    return (ASCII, len(b), b)


def dms(value):
    """Degrees, minutes and seconds (as x/10000) of |value|, as three RATIONALs."""
    v = abs(value)
    d = int(v)
    m = int((v - d) * 60)
    s = round(((v - d) * 60 - m) * 60 * 10000)
    if s >= 600000:   # rounding carried into a whole minute
        s -= 600000; m += 1
    return (RATIONAL, 3, struct.pack("<IIIIII", d, 1, m, 1, s, 10000))


def exif_app1(make, model, when, subsec, lat, lon):
    # IFD0 pointers are fixed-size, so lay out IFD0 with dummy pointers to learn where it ends.
    ifd0_entries = lambda exif_at, gps_at: [
        (0x010F,) + asc(make), (0x0110,) + asc(model),
        (0x8769, LONG, 1, struct.pack("<I", exif_at)), (0x8825, LONG, 1, struct.pack("<I", gps_at))]
    _, exif_at = ifd(ifd0_entries(0, 0), 8)
    exif_ifd, gps_at = ifd([(0x9003,) + asc(when), (0x9011,) + asc("+01:00"), (0x9291,) + asc(subsec)], exif_at)
    gps_ifd, _ = ifd([(0x0000, BYTE, 4, b"\x02\x03\x00\x00"),
                      (0x0001,) + asc("N" if lat >= 0 else "S"), (0x0002,) + dms(lat),
                      (0x0003,) + asc("E" if lon >= 0 else "W"), (0x0004,) + dms(lon)], gps_at)
    ifd0, _ = ifd(ifd0_entries(exif_at, gps_at), 8)
    tiff = b"II*\0" + struct.pack("<I", 8) + ifd0 + exif_ifd + gps_ifd
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("dir")
    ap.add_argument("--pad-kb", type=int, default=96, help="KiB of filler before EOI (default 96)")
    ap.add_argument("--per-folder", type=int, default=500, help="files per sub-folder (default 500)")
    a = ap.parse_args()
    if a.n < 0 or a.per_folder < 1 or a.pad_kb < 0:
        ap.error("N and --pad-kb must be >= 0, --per-folder >= 1")

    rng = random.Random(42)
    epoch = datetime.datetime(2015, 1, 1)
    span = 10 * 365 * 86400
    seconds = rng.sample(range(span), a.n)          # distinct capture seconds: distinct photos
    tail = BODY + bytes(a.pad_kb * 1024) + EOI
    folder = None
    for i in range(a.n):
        if i % a.per_folder == 0:
            folder = os.path.join(a.dir, "d%04d" % (i // a.per_folder))
            os.makedirs(folder, exist_ok=True)
        make, model = CAMERAS[rng.randrange(len(CAMERAS))]
        when = (epoch + datetime.timedelta(seconds=seconds[i])).strftime("%Y:%m:%d %H:%M:%S")
        subsec = "%03d" % rng.randrange(1000)
        lat = rng.uniform(-60.0, 70.0)
        lon = rng.uniform(-180.0, 180.0)
        with open(os.path.join(folder, "IMG_%07d.jpg" % i), "wb") as f:
            f.write(b"\xff\xd8" + exif_app1(make, model, when, subsec, lat, lon) + tail)


if __name__ == "__main__":
    sys.exit(main())
