#!/usr/bin/env bash
# The photos adapter on synthetic trees, each beside what a user would otherwise run:
#   a. a full scan of 10 000 JPEGs (~96 KiB each, page cache warm) vs exiftool, and vs a C
#      "floor" that only does the unavoidable I/O (walk, open, pread 64 KiB, close), and the floor
#      of a whole run (those reads, then each file's item queued durably and delivered to a node
#      store with the agent's SQLite schemas and settings, on one thread);
#   b. an unchanged re-scan of 100 000 small JPEGs vs `find -printf` (stat every file).
# Writes bench/out/photos.txt (and the raw hyperfine/time files beside it) and prints the same.
# Needs a release build, hyperfine, /usr/bin/time, exiftool, gcc and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.build/release/hearthloom-ingest
GEN=$PWD/bench/make-photo-tree.py
OUT=$PWD/bench/out
mkdir -p "$OUT"
W=$(mktemp -d /tmp/hl-photos.XXXXXX)
trap 'rm -rf "$W"' EXIT
. bench/row.sh
ROWS=$W/rows.tsv

rss_kb() { grep 'Maximum resident' "$1" | awk '{print $NF}'; }
wall_s() { grep 'Elapsed (wall clock)' "$1" | awk '{print $NF}' | awk -F: '{s=0; for (i=1; i<=NF; i++) s=s*60+$i; printf "%.2f", s}'; }
config() {       # config DIR TREE: a config dir with one photos adapter and no node.conf (embedded local node)
    mkdir -p "$1/adapters.d"
    printf '[Adapter]\nType=photos\nPath=%s\n' "$2" > "$1/adapters.d/bench.conf"
}
queued() { python3 -c 'import json,sys; print(sum(a["queued"] for a in json.load(sys.stdin)["adapters"]))'; }
generate() {     # generate N DIR PAD_KB: the tree, timed
    local t0=$SECONDS
    nice python3 "$GEN" "$1" "$2" --pad-kb "$3"
    echo "tree: $1 JPEGs in $2 ($(du -sm "$2" | cut -f1) MiB on disk, ${3} KiB filler each), generated in $((SECONDS - t0)) s"
}

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version; exiftool -ver | sed 's/^/exiftool /'; hyperfine --version; }

# The floor: the I/O any metadata reader must do, and nothing else.
gcc -O2 -o "$W/floor" bench/photo-floor.c -lsqlite3

echo
echo "== a. full scan of 10 000 JPEGs (96 KiB filler each; page cache warm; fresh state every agent run)"
A=$W/a; generate 10000 "$A/tree" 96
config "$A/config" "$A/tree"
find "$A/tree" -type f -exec cat {} + > /dev/null
# One pass to check every file becomes an item (and to load the binary).
n=$("$BIN" run --json --config-dir "$A/config" --state-dir "$A/state" | queued)
echo "check: agent queued $n items; floor: $("$W/floor" "$A/tree")"
# hyperfine sends every command's stdout to /dev/null, so exiftool's JSON is not written anywhere.
hyperfine -N --runs 3 --export-json "$OUT/photos-full.json" \
    --prepare "rm -rf $A/state" --prepare "rm -rf $A/state" --prepare "true" --prepare "true" \
    --prepare "rm -rf $A/floor-state" \
    -n "hearthloom-ingest run (full scan, queued + delivered to the embedded node)" "$BIN run --config-dir $A/config --state-dir $A/state" \
    -n "hearthloom-ingest run --dry-run (full scan, items printed as JSON, like exiftool)" "$BIN run --dry-run --config-dir $A/config --state-dir $A/state" \
    -n "exiftool -fast2 -json -r" "exiftool -fast2 -n -json -r -GPSLatitude -GPSLongitude -DateTimeOriginal $A/tree" \
    -n "floor: nftw + open + pread 64 KiB + close (C)" "$W/floor $A/tree" \
    -n "floor of a whole run: those reads + each item queued and delivered durably (C, SQLite, one thread)" "$W/floor $A/tree $A/floor-state" 2>&1
python3 - "$OUT/photos-full.json" "$ROWS" <<'PY'
import json, sys
agent, dry, exif, floor, whole = (x["mean"] for x in json.load(open(sys.argv[1]))["results"])
ok = lambda good: "ok" if good else "MISSED"
with open(sys.argv[2], "a") as f:
    for row in (("photos: 10 000 JPEGs, whole `run` (fresh state, queued + delivered)", f"{agent:.3f} s", f"exiftool -fast2 {exif:.3f} s ({exif / agent:.1f}x)", ">= 150x exiftool", ok(exif >= 150 * agent)),
                ("photos: whole `run` vs the C floor", f"{agent:.3f} s", f"walk + open + pread 64 KiB {floor:.3f} s ({agent / floor:.2f}x)", "<= 1.5x floor", ok(agent <= 1.5 * floor)),
                ("photos: the floor of a whole run", f"{whole:.3f} s", f"exiftool -fast2 {exif:.3f} s ({exif / whole:.1f}x); agent {agent / whole:.2f}x it", "reported", "-")):
        f.write("\t".join(row) + "\n")
print(f"full scan, 10 000 files (means): agent run {agent:.3f} s, agent --dry-run {dry:.3f} s, exiftool {exif:.3f} s, floor {floor:.3f} s, whole-run floor {whole:.3f} s")
print(f"  exiftool / agent run = {exif / agent:.1f}x   exiftool / agent --dry-run = {exif / dry:.1f}x   agent run / floor = {agent / floor:.1f}x   dry-run / floor = {dry / floor:.1f}x")
print(f"  agent run {agent / 10000 * 1e6:.0f} us/file, dry-run {dry / 10000 * 1e6:.0f} us/file, exiftool {exif / 10000 * 1e6:.0f} us/file, floor {floor / 10000 * 1e6:.0f} us/file")
PY
rm -rf "$A"

echo
echo "== b. 100 000 small JPEGs: first scan, then unchanged re-scans"
B=$W/b; generate 100000 "$B/tree" 0
config "$B/config" "$B/tree"
/usr/bin/time -v "$BIN" run --json --config-dir "$B/config" --state-dir "$B/state" >"$W/first.json" 2>"$OUT/photos-first.time"
echo "first run (fills the anchors): $(queued < "$W/first.json") items queued, $(wall_s "$OUT/photos-first.time") s wall, peak RSS $(rss_kb "$OUT/photos-first.time") kB"
first_rss=$(rss_kb "$OUT/photos-first.time")
printf '%s\t%s\t%s\t%s\t%s\n' "photos: first \`run\` over 100 000 files, peak RSS" "$(awk -v k="$first_rss" 'BEGIN {printf "%.1f MB", k / 1024}'), $(wall_s "$OUT/photos-first.time") s" "-" "<= 64 MB" \
    "$([ "$first_rss" -le 65536 ] && echo ok || echo MISSED)" >> "$ROWS"
hyperfine -N --warmup 2 --runs 10 --export-json "$OUT/photos-rescan.json" \
    -n "hearthloom-ingest run (unchanged re-scan)" "$BIN run --config-dir $B/config --state-dir $B/state" \
    -n "find -printf '%s %T@' (stat every file)" "find $B/tree -printf '%s %T@\n'" 2>&1
python3 - "$OUT/photos-rescan.json" "$ROWS" <<'PY'
import json, sys
agent, find = (x["mean"] for x in json.load(open(sys.argv[1]))["results"])
with open(sys.argv[2], "a") as f:
    f.write("\t".join(("photos: unchanged re-scan, 100 000 files", f"{agent:.3f} s", f"find -printf {find:.3f} s ({agent / find:.2f}x)", "<= 1.5x find", "ok" if agent <= 1.5 * find else "MISSED")) + "\n")
print(f"unchanged re-scan, 100 000 files (means): agent {agent:.3f} s, find {find:.3f} s; agent / find = {agent / find:.1f}x ({agent / 100000 * 1e6:.1f} us/file)")
PY
/usr/bin/time -v "$BIN" run --json --config-dir "$B/config" --state-dir "$B/state" >"$W/rescan.json" 2>"$OUT/photos-rescan.time"
echo "one unchanged re-scan: $(queued < "$W/rescan.json") items queued, $(wall_s "$OUT/photos-rescan.time") s wall, peak RSS $(rss_kb "$OUT/photos-rescan.time") kB"
bench_rows "$ROWS"
}

main 2>&1 | tee "$OUT/photos.txt"
