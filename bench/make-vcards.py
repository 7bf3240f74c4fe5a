#!/usr/bin/env python3
"""Writes a synthetic address book for bench/contacts.sh: CARDS vCards in FILES .vcf files.

Versions and quirks are mixed the way real exports mix them: vCard 2.1 with quoted-printable
UTF-8, soft line breaks, bare TYPE params and a folded base64 PHOTO; Google/Apple 3.0 with
item groups, X-ABLabel, escaped commas, yearless birthdays and 75-octet folding; Nextcloud 4.0
with tel: URIs and quoted TYPE lists. A fixed seed gives the same tree every run.

With --no-soft-breaks the quoted-printable values stay on one line: Python's vobject stops
reading a file at a soft line break, so its side of the benchmark reads that variant.

usage: make-vcards.py DIR [--cards 10000] [--files 1000] [--no-soft-breaks]
"""
import argparse
import os
import random

GIVEN = ["Ayşe", "Jürgen", "Zoë", "Haruki", "Anna-Lena", "François", "Priya", "Ólafur", "Margaret", "José", "Wei", "Chiara"]
FAMILY = ["Öztürk", "Müller", "Ångström", "Nakamura", "O'Brien", "Dupont", "Raman", "Sigurðsson", "Lee", "González", "Zhang", "Rossi"]
CITIES = [("Dún Laoghaire", "Co. Dublin", "Ireland"), ("İstanbul", "", "Türkiye"), ("Uppsala", "", "Sweden"), ("Tokyo", "Tokyo", "Japan")]
PHOTO = "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGBgUGBgUGBgUG" * 6


SOFT_BREAKS = True


def qp(text):
    """Quoted-printable as Android writes it: every non-ASCII byte as =XX, soft breaks at 70 columns."""
    encoded = "".join(chr(b) if 32 <= b < 127 and b != 61 else f"={b:02X}" for b in text.encode())
    if not SOFT_BREAKS:
        return encoded
    lines, line = [], ""
    for i in range(0, len(encoded)):
        line += encoded[i]
        if len(line) >= 70 and not line.endswith("=") and not (len(line) >= 2 and line[-2] == "="):
            lines.append(line + "=")
            line = ""
    return "\r\n".join(lines + [line])


def fold(line, width=75):
    """RFC 6350 folding: CRLF and one space every `width` octets (ASCII lines here)."""
    if len(line.encode()) <= width:
        return line
    out, rest = [], line
    while len(rest.encode()) > width:
        cut = width
        while len(rest[:cut].encode()) > width:
            cut -= 1
        out.append(rest[:cut])
        rest = rest[cut:]
    return "\r\n ".join(out + [rest])


def card21(n, rng):
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    city, region, country = rng.choice(CITIES)
    return "\r\n".join([
        "BEGIN:VCARD", "VERSION:2.1",
        f"N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:{qp(family)};{qp(given)};;;",
        f"FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:{qp(f'{given} {family} {n}')}",
        f"TEL;CELL;PREF:+90 532 {n:07d}",
        f"TEL;HOME;VOICE:+90 212 {n:07d}",
        f"EMAIL;HOME:person{n}@example.com",
        f"ADR;HOME;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:;;{qp(f'İstiklal Caddesi {n}, Beyoğlu, a long street name that needs a soft break')};{qp(city)};{qp(region)};{n % 90000 + 10000};{qp(country)}",
        f"NOTE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:{qp('Met at the fair; owes me a coffee. ' * 3)}",
        f"BDAY:{1950 + n % 50}{1 + n % 12:02d}{1 + n % 28:02d}",
        "ORG:Anatolia Trading;Export",
        "TITLE:Head of", " Sales",
        "PHOTO;ENCODING=BASE64;JPEG:" + PHOTO[:60],
        *["  " + PHOTO[i:i + 72] for i in range(60, len(PHOTO), 72)],
        "", "END:VCARD", ""])


def card30(n, rng):
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    city, region, country = rng.choice(CITIES)
    bday = f"--{1 + n % 12:02d}-{1 + n % 28:02d}" if n % 3 else f"{1960 + n % 40}-{1 + n % 12:02d}-{1 + n % 28:02d}"
    return "\r\n".join(fold(line) for line in [
        "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//macOS 14.4//EN",
        f"N:{family};{given};;Dr.;", f"FN:Dr. {given} {family} {n}",
        "ORG:Sakura Robotics;Research", "TITLE:Chief Scientist of Robotics Research and Very Long Titles Department",
        f"item1.EMAIL;type=INTERNET;type=pref:{given.lower()}.{n}@sakura.example", "item1.X-ABLabel:_$!<Other>!$_",
        f"EMAIL;type=INTERNET;type=WORK:work{n}@research.sakura.example",
        f"item2.TEL;type=pref:+81 3-5555-{n % 10000:04d}", "item2.X-ABLabel:_$!<Mobile>!$_",
        f"TEL;type=HOME;type=VOICE:+81 3-5556-{n % 10000:04d}",
        f"item3.ADR;type=HOME;type=pref:;;{n} Harbour Road\\, Flat 3\\nBack door;{city};{region};150-{n % 10000:04d};{country}",
        "item3.X-ABADR:jp",
        f"BDAY:{bday}", f"URL:https\\://example.com/~{n}", "CATEGORIES:Friends,myContacts",
        "NOTE:Prefers email.\\nLikes green tea.",
        f"UID:{n:08X}-CA47-1067-B31D-00DD010662DA", "END:VCARD", ""])


def card40(n, rng):
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    return "\r\n".join(fold(line) for line in [
        "BEGIN:VCARD", "VERSION:4.0", "PRODID:-//Sabre//Sabre VObject 4.5.4//EN",
        f"UID:urn:uuid:4fbe8971-0bc3-424c-9c26-{n:012x}",
        f"FN:{given} {family} {n}", f"N:{family};{given};;;", "NICKNAME:Zo,ZA",
        f"EMAIL;TYPE=work;PREF=1:p{n}@cloud.example", f"EMAIL;TYPE=\"home,work\":p{n}@example.net",
        f"TEL;VALUE=uri;TYPE=\"cell,voice\":tel:+46-70-{n:07d}", f"TEL;VALUE=uri;TYPE=home;TYPE=voice:tel:+46-8-{n:07d}",
        f"ADR;TYPE=work;LABEL=\"Main St 1: Building B\":PO Box {n};;Main St 1,Building B;Uppsala;;751 05;Sweden",
        f"BDAY:--{1 + n % 12:02d}{1 + n % 28:02d}", "CATEGORIES:Work,Climbing\\, bouldering",
        "PHOTO:data:image/jpeg;base64," + PHOTO, f"REV:20240101T{n % 24:02d}0000Z", "END:VCARD", ""])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--cards", type=int, default=10000)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--no-soft-breaks", action="store_true")
    args = ap.parse_args()
    global SOFT_BREAKS
    SOFT_BREAKS = not args.no_soft_breaks
    rng = random.Random(20261130)
    per_file = args.cards // args.files
    makers = [card21, card30, card30, card40]           # 3.0 is what most exports are
    n = 0
    for f in range(args.files):
        collection = os.path.join(args.dir, "contacts", f"book{f % 10}")
        os.makedirs(collection, exist_ok=True)
        cards = []
        for _ in range(per_file):
            cards.append(makers[n % len(makers)](n, rng))
            n += 1
        with open(os.path.join(collection, f"export-{f:04d}.vcf"), "wb") as out:
            out.write("".join(cards).encode())


if __name__ == "__main__":
    main()
