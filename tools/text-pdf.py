#!/usr/bin/env python3
"""Writes a PDF whose pages carry a text layer (Helvetica, WinAnsi), the way a word processor's
or a scanner's OCR'd PDF does. Debian's ImageMagick may not write PDF and img2pdf writes only
images, so the scans fixtures make this one themselves.

With --over SCAN.png (8-bit grey, not interlaced, with its resolution) the one page is that scan,
drawn over the whole page, with the text on top near its top left corner: a scanner's stamp or a
watermark line, as scanner software and PDF tools (pdftk stamp, qpdf overlay) add one. The image
is embedded as img2pdf embeds a PNG: its IDAT data as it is, FlateDecode with the PNG predictor
(PDF 1.7, 7.4.4.4 and 8.9.5).

usage: text-pdf.py OUT.pdf CREATION_DATE [--over SCAN.png] PAGE_TEXT_FILE...   (CREATION_DATE e.g. D:20240315093000+01'00')
"""
import struct
import sys


def escape(line):
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def png_gray(path):
    """Width, height, dots per inch and the concatenated IDAT data of an 8-bit grey PNG."""
    data = open(path, "rb").read()
    pos, idat, dpi = 8, b"", 300
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, color, interlace) != (8, 0, 0):
                sys.exit(f"{path}: not an 8-bit grey, non-interlaced PNG")
        elif kind == b"pHYs" and body[8] == 1:
            dpi = round(struct.unpack(">I", body[:4])[0] * 0.0254)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, dpi, idat


def content(text, left=72, top=760, size=14):
    ops = ["BT", f"/F1 {size} Tf", f"{size + 2} TL", f"{left} {top} Td"]
    for line in text.splitlines():
        ops.append(f"({escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("cp1252")


def write(out, created, pages, scan=None):
    objects = []                      # object n is objects[n - 1]
    def add(body):
        objects.append(body)
        return len(objects)
    catalog = add(None)
    tree = add(None)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    box, image, draw = (612, 792), b"", b""
    if scan:
        width, height, dpi, idat = png_gray(scan)
        box = (width * 72 / dpi, height * 72 / dpi)
        xobject = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                      b"/BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1 "
                      b"/BitsPerComponent 8 /Columns %d >> /Length %d >>\nstream\n" % (width, height, width, len(idat))
                      + idat + b"\nendstream")
        image, draw = b"/XObject << /Im0 %d 0 R >> " % xobject, b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q\n" % box
    for text in pages:
        stream = draw + (content(text, left=12, top=int(box[1]) - 14, size=8) if scan else content(text))
        body = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Contents %d 0 R "
                        b"/Resources << %s/Font << /F1 %d 0 R >> >> >>" % (tree, box[0], box[1], body, image, font)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(f"{k} 0 R" for k in kids).encode(), len(kids))
    info = add(b"<< /Producer (hearthloom text-pdf.py) /CreationDate (%s) >>" % created.encode())
    data = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        data += b"%010d 00000 n \n" % offset
    data += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, info, xref)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    args = sys.argv[3:]
    scan = None
    if args[:1] == ["--over"] and len(args) >= 2:
        scan, args = args[1], args[2:]
    if len(sys.argv) < 4 or not args:
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2], [open(p, encoding="utf-8").read() for p in args], scan)
