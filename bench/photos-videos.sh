#!/usr/bin/env bash
# The photos adapter on a camera roll of 10 000 files, a quarter of them videos with `moov` at the
# end (issue 28), beside what a user would otherwise run: exiftool -fast2 over the same tree, and
# a C "floor" that only does the unavoidable I/O (walk, open, pread 64 KiB; for a movie, a pread
# of each top-level box header up to `moov` and of `moov` itself; close), and the floor of a whole
# run (the same reads, then each file's item queued durably and delivered to a node store, with
# the agent's SQLite schemas and settings, on one thread); then the peak memory
# of a first `run` over 100 000 files, a quarter of them such videos.
# Writes bench/out/photos-videos.txt (and the raw hyperfine file beside it) and prints the same.
# Needs a release build, hyperfine, exiftool, ffmpeg, gcc and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.build/release/hearthloom-ingest
OUT=$PWD/bench/out
mkdir -p "$OUT"
W=$(mktemp -d /tmp/hl-videos.XXXXXX)
trap 'rm -rf "$W"' EXIT
. bench/row.sh
ROWS=$W/rows.tsv

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; date -u +%FT%TZ; "$BIN" --version; exiftool -ver | sed 's/^/exiftool /'; }

gcc -O2 -o "$W/floor" bench/photo-floor.c -lsqlite3

echo
echo "== 7 500 JPEGs (96 KiB filler each) and 2 500 MOVs (moov after a 4 MiB sparse mdat); page cache warm; fresh state every agent run"
T=$W/tree
t0=$SECONDS
nice python3 bench/make-photo-tree.py 7500 "$T" --pad-kb 96
ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=size=320x240:rate=30 -t 2 -c:v libx264 -pix_fmt yuv420p \
    -metadata location=+00.0000+000.0000/ -metadata creation_time=2024-01-01T00:00:00Z "$W/template.mov"
nice python3 bench/make-video-tree.py 2500 "$T" "$W/template.mov"
echo "tree: $(find "$T" -type f | wc -l) files ($(du -sm "$T" | cut -f1) MiB on disk), generated in $((SECONDS - t0)) s"
mkdir -p "$W/config/adapters.d"
printf '[Adapter]\nType=photos\nPath=%s\n' "$T" > "$W/config/adapters.d/bench.conf"
find "$T" -type f -name '*.jpg' -exec cat {} + > /dev/null
n=$("$BIN" run --json --config-dir "$W/config" --state-dir "$W/state" | python3 -c 'import json,sys; print(sum(a["queued"] for a in json.load(sys.stdin)["adapters"]))')
echo "check: agent queued $n items; floor: $("$W/floor" "$T")"
hyperfine -N --runs 2 --export-json "$OUT/photos-videos.json" --prepare "rm -rf $W/state" --prepare "true" --prepare "true" \
    --prepare "rm -rf $W/floor-state" \
    -n "hearthloom-ingest run (full scan, queued + delivered to the embedded node)" "$BIN run --config-dir $W/config --state-dir $W/state" \
    -n "exiftool -fast2 -json -r" "exiftool -fast2 -n -json -r -GPSLatitude -GPSLongitude -GPSCoordinates -DateTimeOriginal -CreateDate $T" \
    -n "floor: nftw + open + pread 64 KiB (+ movie box headers and moov) + close (C)" "$W/floor $T" \
    -n "floor of a whole run: those reads + each item queued and delivered durably (C, SQLite, one thread)" "$W/floor $T $W/floor-state" 2>&1
python3 - "$OUT/photos-videos.json" "$ROWS" <<'PY'
import json, sys
agent, exif, floor, whole = (x["mean"] for x in json.load(open(sys.argv[1]))["results"])
ok = lambda good: "ok" if good else "MISSED"
with open(sys.argv[2], "a") as f:
    for row in (("photos: 7 500 JPEGs + 2 500 MOVs (moov at the end), whole `run`", f"{agent:.3f} s", f"exiftool -fast2 {exif:.3f} s ({exif / agent:.1f}x)", ">= 100x exiftool", ok(exif >= 100 * agent)),
                ("photos + videos: whole `run` vs the C floor", f"{agent:.3f} s", f"walk + open + pread (+ moov) {floor:.3f} s ({agent / floor:.2f}x)", "<= 2x floor", ok(agent <= 2 * floor)),
                ("photos + videos: the floor of a whole run", f"{whole:.3f} s", f"exiftool -fast2 {exif:.3f} s ({exif / whole:.1f}x); agent {agent / whole:.2f}x it", "reported", "-")):
        f.write("\t".join(row) + "\n")
print(f"10 000 files, a quarter videos (means): agent run {agent:.3f} s, exiftool {exif:.3f} s, floor {floor:.3f} s, whole-run floor {whole:.3f} s")
print(f"  exiftool / agent = {exif / agent:.1f}x   agent / floor = {agent / floor:.2f}x   agent {agent / 10000 * 1e6:.0f} us/file")
PY
rm -rf "$T" "$W/state"

echo
echo "== 100 000 files: 75 000 small JPEGs and 25 000 MOVs (moov at the end); peak RSS of the first whole \`run\`"
t0=$SECONDS
nice python3 bench/make-photo-tree.py 75000 "$T" --pad-kb 0
nice python3 bench/make-video-tree.py 25000 "$T" "$W/template.mov"
echo "tree: $(find "$T" -type f | wc -l) files, generated in $((SECONDS - t0)) s"
/usr/bin/time -v "$BIN" run --json --config-dir "$W/config" --state-dir "$W/state" >"$W/first.json" 2>"$OUT/photos-videos-100k.time"
n=$(python3 -c 'import json,sys; print(sum(a["queued"] for a in json.load(sys.stdin)["adapters"]))' < "$W/first.json")
rss=$(awk '/Maximum resident/ {print $NF}' "$OUT/photos-videos-100k.time")
wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$OUT/photos-videos-100k.time")
echo "first run: $n items queued, $wall wall, peak RSS $rss kB"
printf '%s\t%s\t%s\t%s\t%s\n' "photos + videos: first \`run\` over 100 000 files, peak RSS" "$(awk -v k="$rss" 'BEGIN {printf "%.1f MB", k / 1024}'), $wall" "-" "< 64 MB" \
    "$([ "$rss" -lt 65536 ] && echo ok || echo MISSED)" >> "$ROWS"
bench_rows "$ROWS"
}

main 2>&1 | tee "$OUT/photos-videos.txt"
