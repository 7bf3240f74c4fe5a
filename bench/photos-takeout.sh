#!/usr/bin/env bash
# The photos adapter on a Google Photos Takeout: 3000 JPEGs (~96 KiB each) whose place and time
# are only in their `.supplemental-metadata.json` sidecars, against the same JPEGs without
# sidecars (what the sidecars cost), and against exiftool reading the JPEGs and the JSON
# sidecars (it reads both: GeoDataExifLatitude, PhotoTakenTimeTimestamp), the tool a user would
# otherwise script a Takeout import with. Page cache warm, fresh state every agent run.
# Writes bench/out/photos-takeout.txt (and the hyperfine JSON beside it) and prints the same.
# Needs a release build, hyperfine, exiftool and python3.
. "$(dirname "$0")/common.sh"
N=${TAKEOUT_PHOTOS:-3000}

config() {       # config DIR TREE: one photos adapter, no node.conf (embedded local node)
    mkdir -p "$1/adapters.d"
    printf '[Adapter]\nType=photos\nPath=%s\n' "$2" > "$1/adapters.d/bench.conf"
}
queued() { python3 -c 'import json,sys; print(sum(a["queued"] for a in json.load(sys.stdin)["adapters"]))'; }

main() {
machine "exiftool -ver | sed 's/^/exiftool /'"
echo
echo "== $N Takeout photos with sidecars vs the same photos without"
nice python3 fixtures/photos/make-takeout.py "$W" --bench "$N"
config "$W/with" "$W/tree"
config "$W/without" "$W/bare"
find "$W/tree" "$W/bare" -type f -exec cat {} + > /dev/null
echo "check: with sidecars $("$BIN" run --json --config-dir "$W/with" --state-dir "$W/s1" | queued) items queued," \
     "without $("$BIN" run --json --config-dir "$W/without" --state-dir "$W/s2" | queued) (no place: skipped)"
hyperfine -N --warmup 1 --runs 5 --export-json "$OUT/photos-takeout.json" \
    --prepare "rm -rf $W/state" --prepare "rm -rf $W/state" --prepare "true" \
    -n "hearthloom-ingest run, Takeout with sidecars" "$BIN run --config-dir $W/with --state-dir $W/state" \
    -n "hearthloom-ingest run, the same photos without sidecars" "$BIN run --config-dir $W/without --state-dir $W/state" \
    -n "exiftool -fast2 -json -r (JPEGs and JSON sidecars)" \
       "exiftool -fast2 -n -json -r -ext jpg -ext json -GPSLatitude -GPSLongitude -DateTimeOriginal -GeoDataExifLatitude -GeoDataExifLongitude -PhotoTakenTimeTimestamp $W/tree" 2>&1
python3 - "$OUT/photos-takeout.json" "$ROWS" "$N" <<'PY'
import json, sys
withs, without, exif = (x["mean"] for x in json.load(open(sys.argv[1]))["results"])
n = int(sys.argv[3])
with open(sys.argv[2], "a") as f:
    f.write("\t".join((f"photos: Takeout of {n} JPEGs with sidecars, whole `run`", f"{withs:.3f} s",
                       f"exiftool -fast2 {exif:.3f} s ({exif / withs:.1f}x); without sidecars {without:.3f} s", ">= 100x exiftool",
                       "ok" if exif >= 100 * withs else "MISSED")) + "\n")
print(f"{n} Takeout photos (means): with sidecars {withs:.3f} s ({withs / n * 1e6:.0f} us/photo), without {without:.3f} s "
      f"({without / n * 1e6:.0f} us/photo; the sidecars add {(withs - without) / n * 1e6:.0f} us/photo), exiftool {exif:.3f} s ({exif / withs:.1f}x)")
PY
bench_rows "$ROWS"
}

main 2>&1 | tee "$OUT/photos-takeout.txt"
