#!/usr/bin/env bash
# Builds tagged sample photos in every format PhotoMeta reads, for FixtureTests.
#
# Usage: make-fixtures.sh OUTDIR
#
# Each file gets its own random position, altitude, capture time, offset and camera,
# written with exiftool; the expected values are what `exiftool -n -json` reads back,
# so the Swift reader is checked against an independent implementation.
#
# Writes into OUTDIR:
#   *.jpg *.heic *.avif *.png *.tif *.dng *.orf *.rw2 *.webp *.xmp   the fixtures
#   manifest.tsv   one "file<TAB>format" line per fixture (format as PhotoFormat raw value)
#   expected.json  exiftool -n -json -G output for all fixtures
#
# FIXTURE_SEED=<n> replays a run (the seed is printed on stderr).
# Exits 77 when exiftool is missing, so the caller can skip; any other missing tool is an error.
set -euo pipefail

out=${1:?usage: make-fixtures.sh OUTDIR}
mkdir -p "$out"
cd "$out"

command -v exiftool >/dev/null || { echo "exiftool not found (apt-get install libimage-exiftool-perl)" >&2; exit 77; }
need() { command -v "$1" >/dev/null || { echo "$1 not found (apt-get install $2)" >&2; exit 1; }; }
need heif-enc libheif-examples
need avifenc libavif-bin
need cwebp webp
# A `convert` early on PATH is not necessarily ImageMagick, so ask each candidate.
im=""
for candidate in magick convert-im6.q16 convert; do
  if command -v "$candidate" >/dev/null && "$candidate" -version 2>/dev/null | grep -q '^Version: ImageMagick'; then
    im=$candidate
    break
  fi
done
[ -n "$im" ] || { echo "ImageMagick not found (apt-get install imagemagick)" >&2; exit 1; }

seed=${FIXTURE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "make-fixtures: FIXTURE_SEED=$seed" >&2

# Untagged base images, 16x16 gray; metadata stripped so that only what we write is there.
"$im" -size 16x16 xc:gray -strip base.png
"$im" -size 16x16 xc:gray -strip -quality 80 base.jpg
"$im" -size 16x16 xc:gray -strip -compress none -define tiff:endian=lsb base-le.tif
"$im" -size 16x16 xc:gray -strip -compress none -define tiff:endian=msb base-be.tif

# Prints shell assignments of random tag values for fixture number $1 (deterministic per seed).
draw() {
  awk -v seed="$seed" -v n="$1" 'BEGIN {
    # awk generators give correlated first draws for nearby seeds: mix, then discard a few.
    srand((seed * 40503 + n * 2654435761) % 2147483647)
    for (i = 0; i < 16; i++) rand()
    lat = rand() * 179.8 - 89.9; lon = rand() * 359.8 - 179.9
    alt = rand() * 8400 - 400
    split("+00:00 +01:00 +02:00 -03:00 +05:30 -09:30 +13:45 -12:00 +09:00 -07:00", offsets, " ")
    split("Canon|NIKON CORPORATION|Apple|SONY|FUJIFILM|OLYMPUS IMAGING CORP.|Panasonic|Kamerå Werk", makes, "|")
    split("EOS R5|NIKON Z 6_2|iPhone 15 Pro|ILCE-7M4|X-T5|E-M1MarkIII|DC-GH6|Modell Ü", models, "|")
    hex = ""; for (i = 0; i < 32; i++) hex = hex substr("0123456789abcdef", int(rand() * 16) + 1, 1)
    printf "lat=%.7f\nlon=%.7f\n", lat, lon
    printf "latref=%s\nlonref=%s\n", (lat < 0 ? "S" : "N"), (lon < 0 ? "W" : "E")
    printf "alat=%.7f\nalon=%.7f\n", (lat < 0 ? -lat : lat), (lon < 0 ? -lon : lon)
    printf "alt=%.1f\naltref=%d\naalt=%.1f\n", alt, (alt < 0 ? 1 : 0), (alt < 0 ? -alt : alt)
    printf "herr=%.1f\n", rand() * 50 + 0.1
    y = 1995 + int(rand() * 40); mo = 1 + int(rand() * 12); d = 1 + int(rand() * 28)
    h = int(rand() * 24); mi = int(rand() * 60); s = int(rand() * 60)
    printf "date=\"%04d:%02d:%02d %02d:%02d:%02d\"\n", y, mo, d, h, mi, s
    printf "gpsdate=\"%04d:%02d:%02d\"\ngpstime=\"%02d:%02d:%02d.5\"\n", y, mo, d, int(rand() * 24), int(rand() * 60), int(rand() * 60)
    printf "offset=\"%s\"\nsubsec=%03d\n", offsets[1 + int(rand() * 10)], int(rand() * 1000)
    k = 1 + int(rand() * 8)
    printf "make=\"%s\"\nmodel=\"%s\"\n", makes[k], models[k]
    printf "serial=%d\nuid=%s\n", 100000 + int(rand() * 900000), hex
  }'
}

# Writes the full Exif tag set with fresh random values for fixture number $1 into file $2.
tag_exif() {
  eval "$(draw "$1")"
  exiftool -q -q -overwrite_original -n \
    -GPSLatitude="$alat" -GPSLatitudeRef="$latref" -GPSLongitude="$alon" -GPSLongitudeRef="$lonref" \
    -GPSAltitude="$aalt" -GPSAltitudeRef="$altref" -GPSHPositioningError="$herr" \
    -GPSDateStamp="$gpsdate" -GPSTimeStamp="$gpstime" \
    -DateTimeOriginal="$date" -OffsetTimeOriginal="$offset" -SubSecTimeOriginal="$subsec" \
    -Make="$make" -Model="$model" -ImageUniqueID="$uid" -EXIF:SerialNumber="$serial" \
    "$2"
}

# Writes the same kind of values as XMP only (no Exif) for fixture number $1 into file $2.
tag_xmp() {
  eval "$(draw "$1")"
  local iso_date="${date}.${subsec}${offset}"
  exiftool -q -q -overwrite_original -n \
    -XMP-exif:GPSLatitude="$lat" -XMP-exif:GPSLongitude="$lon" \
    -XMP-exif:GPSAltitude="$aalt" -XMP-exif:GPSAltitudeRef="$altref" -XMP-exif:GPSHPositioningError="$herr" \
    -XMP-exif:GPSDateTime="$gpsdate ${gpstime}Z" -XMP-exif:DateTimeOriginal="$iso_date" \
    -XMP-tiff:Make="$make" -XMP-tiff:Model="$model" -XMP-exif:ImageUniqueID="$uid" -XMP-exifEX:SerialNumber="$serial" \
    "$2"
}

# Overwrites bytes 2-3 of a TIFF with another magic, as Olympus and Panasonic raws have.
patch_magic() { printf "$2" | dd of="$1" bs=1 seek=2 conv=notrunc status=none; }

manifest=manifest.tsv
: >"$manifest"
add() { printf '%s\t%s\n' "$1" "$2" >>"$manifest"; }

# Exif written by exiftool into each container.
cp base.jpg exif.jpg;           tag_exif 1 exif.jpg;          add exif.jpg jpeg
cp base.png exif.png;           tag_exif 2 exif.png;          add exif.png png
cp base-le.tif exif-le.tif;     tag_exif 3 exif-le.tif;       add exif-le.tif tiff
cp base-be.tif exif-be.tif;     tag_exif 4 exif-be.tif;       add exif-be.tif tiff
heif-enc -q 50 base.png -o exif.heic >/dev/null;  tag_exif 5 exif.heic;  add exif.heic heif
avifenc -s 10 base.png exif.avif >/dev/null;      tag_exif 6 exif.avif;  add exif.avif heif
cwebp -quiet base.png -o exif.webp;               tag_exif 7 exif.webp;  add exif.webp webp

# DNG: a TIFF with DNGVersion in IFD0.
cp base-le.tif exif.dng
exiftool -q -q -overwrite_original -DNGVersion=1.4.0.0 exif.dng
tag_exif 8 exif.dng;  add exif.dng tiff

# Olympus ORF magics: exiftool writes these once the header says ORF.
cp base-le.tif iiro.orf; patch_magic iiro.orf 'RO'; tag_exif 9 iiro.orf;  add iiro.orf tiff
cp base-le.tif iirs.orf; patch_magic iirs.orf 'RS'; tag_exif 10 iirs.orf; add iirs.orf tiff
cp base-be.tif mmor.orf; patch_magic mmor.orf 'OR'; tag_exif 11 mmor.orf; add mmor.orf tiff
# Panasonic RW2: exiftool refuses to write a raw without Panasonic data, so tag first, then patch.
cp base-le.tif panasonic.rw2; tag_exif 12 panasonic.rw2; patch_magic panasonic.rw2 'U\000'; add panasonic.rw2 tiff

# Exif written by other encoders: libheif, libavif and libwebp copy it from a tagged JPEG.
cp base.jpg source.jpg; tag_exif 13 source.jpg
heif-enc -q 50 source.jpg -o libheif.heic >/dev/null;  add libheif.heic heif
avifenc -s 10 source.jpg libavif.avif >/dev/null;      add libavif.avif heif
cwebp -quiet -metadata all source.jpg -o libwebp.webp; add libwebp.webp webp

# XMP only, embedded in each container (APP1, iTXt, XMP chunk, mime item).
cp base.jpg xmp.jpg;  tag_xmp 14 xmp.jpg;   add xmp.jpg jpeg
cp base.png xmp.png;  tag_xmp 15 xmp.png;   add xmp.png png
cwebp -quiet base.png -o xmp.webp;              tag_xmp 16 xmp.webp;  add xmp.webp webp
heif-enc -q 50 base.png -o xmp.heic >/dev/null; tag_xmp 17 xmp.heic;  add xmp.heic heif

# Sidecars: one converted from a tagged photo's Exif, one written as XMP directly.
exiftool -q -q -o converted.xmp exif.jpg;  add converted.xmp xmp
exiftool -q -q -o direct.xmp base.jpg;  tag_xmp 18 direct.xmp;  add direct.xmp xmp

# Named for one format, containing another: the reader must go by content.
cp exif.png png-named.jpg;  add png-named.jpg png

rm -f base.png base.jpg base-le.tif base-be.tif source.jpg

cut -f1 "$manifest" | xargs exiftool -q -n -json -G \
  -Composite:GPSLatitude -Composite:GPSLongitude -Composite:GPSAltitude -Composite:GPSDateTime \
  -XMP:GPSLatitude -XMP:GPSLongitude -XMP:GPSDateTime \
  -EXIF:DateTimeOriginal -XMP:DateTimeOriginal -EXIF:OffsetTimeOriginal -EXIF:SubSecTimeOriginal \
  -EXIF:GPSHPositioningError -XMP:GPSHPositioningError \
  -EXIF:Make -XMP:Make -EXIF:Model -XMP:Model \
  -EXIF:ImageUniqueID -XMP:ImageUniqueID -EXIF:SerialNumber -XMP:SerialNumber \
  >expected.json
