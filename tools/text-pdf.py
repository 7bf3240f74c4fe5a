#!/usr/bin/env python3
"""Writes a PDF whose pages carry a text layer (Helvetica, WinAnsi), the way a word processor's
or a scanner's OCR'd PDF does. Debian's ImageMagick may not write PDF and img2pdf writes only
images, so the scans fixtures make this one themselves.

usage: text-pdf.py OUT.pdf CREATION_DATE PAGE_TEXT_FILE...   (CREATION_DATE e.g. D:20240315093000+01'00')
"""
import sys


def escape(line):
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def content(text):
    ops = ["BT", "/F1 14 Tf", "16 TL", "72 760 Td"]
    for line in text.splitlines():
        ops.append(f"({escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("cp1252")


def write(out, created, pages):
    objects = []                      # object n is objects[n - 1]
    def add(body):
        objects.append(body)
        return len(objects)
    catalog = add(None)
    tree = add(None)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for text in pages:
        stream = content(text)
        body = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (tree, body, font)))
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
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2], [open(p, encoding="utf-8").read() for p in sys.argv[3:]])
