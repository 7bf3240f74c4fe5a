#!/usr/bin/env bash
# Makes the scans adapter's test documents in OUT (default: a new temp folder, printed):
# receipts, a letter, a rotated and noisy photo of a page, a phone photo stored sideways (EXIF
# Orientation), a 2-page TIFF (.tif and .tiff), German text for Languages=deu+eng, an image-only
# PDF (img2pdf), a PDF with a text layer (text-pdf.py), a 20-page image-only PDF, an A4 image-only
# PDF page (one scanned image) and the same image framed on an A4 page (read in bands), a page
# turned by 90° (PNG), 180° (TIFF) and 270° (PDF) and one skewed by 3° (PNG), none with an
# orientation of its own, a scanned page with a stamp line as its text layer, the letter as a PDF
# page with its image stored in each of six ways (and as the PNGs they hold), a corrupt PNG and a
# .txt that must be ignored. Each document's text is
# also written to text/<name>.txt. Images are small (a few hundred pixels high) so OCR stays quick,
# but for the A4 page, which is mostly white.
#
# usage: tools/make-scan-fixtures.sh [OUT]      needs: imagemagick img2pdf exiftool fonts-dejavu-core
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d /tmp/scan-fixtures.XXXXXX)}
mkdir -p "$out/docs" "$out/text" "$out/pages"
cd "$out"

# render NAME.png TEXTFILE [POINTSIZE]: black DejaVu Sans on white, at 300 dpi.
render() {
    convert -density 300 -units PixelsPerInch -background white -fill black -font DejaVu-Sans \
        -pointsize "${3:-11}" label:"$(cat "$2")" -bordercolor white -border 40 -colorspace Gray "$1"
}

cat > text/receipt-bakery.txt <<'T'
CORNER BAKERY
Sourdough loaf 4.20
Butter croissant 2.10
Total 6.30
Paid by card
T
cat > text/receipt-hardware.txt <<'T'
HARDWARE STORE
Screwdriver set 12.99
Wood glue 4.50
Total 17.49
Thank you for shopping
T
cat > text/letter.txt <<'T'
Dear Margaret,
thank you for the garden plans.
The apple trees arrive next Tuesday
and the hedge will follow in spring.
Kind regards, Thomas
T
cat > text/photo-of-page.txt <<'T'
Meeting notes
Budget review moved to Friday
Invite the planning committee
Order new projector cables
T
cat > text/two-page-1.txt <<'T'
Insurance policy summary
Policy holder Jane Example
T
cat > text/two-page-2.txt <<'T'
Coverage begins in January
Premium paid monthly
T
cat > text/german.txt <<'T'
Sehr geehrte Frau Müller,
die Größe der Wohnung in der
Hauptstraße beträgt achtzig
Quadratmeter. Mit freundlichen Grüßen
Jürgen Weiß
T
cat > text/image-only.txt <<'T'
Electricity bill
Account number 4471
Amount due 58.20
T
cat > text/text-layer.txt <<'T'
Quarterly statement
Savings account balance 1520.75
Interest credited 3.10
T

render docs/receipt-bakery.png text/receipt-bakery.txt
render pages/hardware.png text/receipt-hardware.txt
convert pages/hardware.png -quality 90 docs/receipt-hardware.jpg
# A phone's camera: capture time with its own offset.
exiftool -q -overwrite_original -DateTimeOriginal='2024:03:15 09:30:00' -OffsetTimeOriginal='+05:30' docs/receipt-hardware.jpg
render docs/letter.png text/letter.txt
# A photo of a page: slightly rotated, grey paper, sensor noise, JPEG.
render pages/notes.png text/photo-of-page.txt
convert pages/notes.png -background white -rotate 4 -fill '#d8d8d8' -colorize 12 \
    -attenuate 0.6 +noise Gaussian -blur 0x0.6 -quality 85 docs/photo-of-page.jpg
# A phone photo stored sideways, with EXIF Orientation 6 ("rotate 90 CW to view"), as phones write.
cat > text/phone-sideways.txt <<'T'
Parking ticket
Valid until 18:45
Zone B level 2
T
render pages/phone-upright.png text/phone-sideways.txt
convert pages/phone-upright.png -rotate -90 -quality 90 docs/phone-sideways.jpg
exiftool -q -overwrite_original -n -Orientation=6 docs/phone-sideways.jpg
render pages/policy-1.png text/two-page-1.txt
render pages/policy-2.png text/two-page-2.txt
convert pages/policy-1.png pages/policy-2.png -compress lzw docs/two-page.tiff
cp docs/two-page.tiff pages/two-page-copy.tif
convert pages/policy-2.png pages/policy-1.png -compress lzw docs/two-page-reversed.tif
render docs/german.png text/german.txt
render pages/bill.png text/image-only.txt
# img2pdf writes its creation date in UTC.
img2pdf --creationdate 2023-11-05T14:00:00 -o docs/image-only.pdf pages/bill.png
python3 "$here/text-pdf.py" docs/text-layer.pdf "D:20240201080000+01'00'" text/text-layer.txt

# Twenty image-only pages, each a line of its own, in one PDF.
pages=()
for n in $(seq 1 20); do
    printf 'Page %d of the archive\n' "$n" > "pages/archive-$n.txt"
    convert -density 300 -units PixelsPerInch -background white -fill black -font DejaVu-Sans -pointsize 10 \
        label:"Page $n of the archive" -bordercolor white -border 30 -colorspace Gray "pages/archive-$n.png"
    pages+=("pages/archive-$n.png")
done
img2pdf -o docs/archive-20.pdf "${pages[@]}"

# An A4 page at 300 dpi (2480 x 3508 px), as a scanner makes it, with a numbered line at each
# height where the agent's render of it goes from one band of rows to the next (every 422 rows
# at this width: a 4 MiB band), so a line is only read whole if the bands are put together right.
args=()
for n in $(seq 1 8); do args+=(-annotate "+240+$((n * 422 + 12))" "Section $n of the tall page ends here"); done
convert -size 2480x3508 xc:white -font DejaVu-Sans -pointsize 48 -fill black "${args[@]}" \
    -colorspace Gray -depth 8 -density 300 -units PixelsPerInch pages/tall-a4.png
img2pdf -o docs/tall-a4.pdf pages/tall-a4.png
# The same scan framed by 2 cm of margin on an A4 page: an image over most of the page, but not
# the whole page, so the page is rendered (in bands) rather than its image decoded.
img2pdf --pagesize A4 --border 2cm:2cm -o docs/tall-a4-framed.pdf pages/tall-a4.png

# A page as people put it on the glass or in the feeder: turned a quarter, half or three quarters
# (a scanner writes no orientation: a TIFF's Orientation is 1, a PNG's and img2pdf's PDF have none),
# or a few degrees crooked. Fourteen lines: enough text for Tesseract's orientation detection to be sure.
cat > text/upright.txt <<'T'
Notice of annual general meeting
The members of the allotment society are invited
to the annual general meeting on Saturday morning
in the village hall next to the old school building.
The committee will report on the water supply,
the new greenhouse and the shared tool shed.
Members who want to propose a change to the rules
should send it to the secretary two weeks before.
Tea and cake will be served after the meeting.
Please bring your membership card and a pen.
Children are welcome in the garden during the talks.
The plot rents for next year stay the same as before.
Volunteers for the spring cleanup are still needed.
Thank you for keeping the gardens beautiful.
T
render pages/upright.png text/upright.txt 10
convert pages/upright.png -rotate 90 docs/turned-90.png
convert pages/upright.png -rotate 180 -compress lzw docs/turned-180.tiff
convert pages/upright.png -rotate 270 -define png:color-type=0 -define png:bit-depth=8 pages/turned-270.png
img2pdf -o docs/turned-270.pdf pages/turned-270.png
convert pages/upright.png -background white -rotate 3 docs/skewed-3.png

# A scanned page with its stamp as a text layer: the scan shows CONFIDENTIAL COPY at its top, and
# the text layer holds that line and a scan number the image does not show (fewer than 50
# characters, so the page is recognized; the line OCR reads as well is kept once).
cat > text/watermarked.txt <<'T'
CONFIDENTIAL COPY
Tenancy agreement for the flat on Mill Lane
The rent of 640 pounds is due on the first
of every month by standing order.
The deposit is held by the deposit scheme.
Signed by both parties in March.
T
printf 'CONFIDENTIAL COPY\nScan 0042\n' > text/watermark-layer.txt
render pages/watermarked.png text/watermarked.txt
convert pages/watermarked.png -define png:color-type=0 -define png:bit-depth=8 pages/watermarked.png
python3 "$here/text-pdf.py" docs/watermarked.pdf "D:20240301100000Z" --over pages/watermarked.png text/watermark-layer.txt

# The letter as a PDF page stored each way scanners and img2pdf store one: a grey and a colour
# PNG's pixels (Flate with PNG predictors), a grey and a colour JPEG (DCT, kept as they are),
# 1 bit a pixel (Flate) and CCITT G4 (a G4 TIFF's strips). Each is held to the same page as a
# PNG: letter.png, letter-rgb.png (on cream paper) or letter-1bit.png.
convert docs/letter.png -monochrome -define png:color-type=0 -define png:bit-depth=1 docs/letter-1bit.png
convert docs/letter.png -colorspace sRGB -fill '#f6eedc' -opaque white -type TrueColor docs/letter-rgb.png
convert docs/letter.png -quality 92 -type Grayscale pages/letter-grey.jpg
convert docs/letter-rgb.png -quality 92 pages/letter-rgb.jpg
convert docs/letter-1bit.png -compress Group4 pages/letter-g4.tiff
img2pdf -o docs/letter-grey-png.pdf docs/letter.png
img2pdf -o docs/letter-rgb-png.pdf docs/letter-rgb.png
img2pdf -o docs/letter-grey-jpeg.pdf pages/letter-grey.jpg
img2pdf -o docs/letter-rgb-jpeg.pdf pages/letter-rgb.jpg
img2pdf -o docs/letter-1bit.pdf docs/letter-1bit.png
img2pdf -o docs/letter-g4.pdf pages/letter-g4.tiff

# A PNG signature and header, then garbage: no decoder can read it.
{ printf '\x89PNG\r\n\x1a\n'; head -c 600 /dev/urandom; } > docs/corrupt.png
echo "not a scan" > docs/notes.txt
echo "$out"
