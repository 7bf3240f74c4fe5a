#!/usr/bin/env bash
# The location-history adapter on a generated Google Takeout Records.json (2.5 M points, about
# 500 MB, unless LH_POINTS says otherwise; fixtures/location-history/make-fixtures.py --records),
# beside what a user would otherwise start with: Python's json.load of the same file.
#   - a whole `run` with a fresh state folder: stream the file, store every point in the state
#     store, derive every visit and trip through the shared detector, queue and deliver them to
#     the embedded node; wall time and peak RSS (goal: well under a minute, under 64 MB);
#   - `python3 -c 'json.load(open(f))'`: parse only, no visits; wall time and peak RSS;
#   - then the next month's export (`--records-month`, the 30 days after those points) added to
#     the folder of the last agent run: a whole `run` again, which stores the month and derives
#     only the days it touches (goal: at most a tenth of the first import's time).
# Writes bench/out/location-history.txt. Needs a release build and python3.
. "$(dirname "$0")/common.sh"

main() {
machine "python3 --version"
mkdir -p "$W/config/adapters.d" "$W/exports"
python3 fixtures/location-history/make-fixtures.py --records "${LH_POINTS:-2500000}" "$W/Records.json"
python3 fixtures/location-history/make-fixtures.py --records-month "${LH_POINTS:-2500000}" "$W/next-month.json"
ln "$W/Records.json" "$W/exports/Records.json"
printf '[Adapter]\nType=location-history\nPath=%s\n' "$W/exports" > "$W/config/adapters.d/location-history.conf"
echo "file: $(du -m "$W/Records.json" | cut -f1) MiB, ${LH_POINTS:-2500000} points"

echo
echo "== whole processes, 3 runs each (agent: a fresh state folder per run)"
for i in 1 2 3; do
    rm -rf "$W/state"
    measure agent "$BIN" run --config-dir "$W/config" --state-dir "$W/state"
    measure python python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/Records.json"
done | tee "$W/runs.txt"
echo
echo "== the next month added to the last agent run's state ($(grep -c latitudeE7 "$W/next-month.json") points)"
cp "$W/next-month.json" "$W/exports/"
measure month "$BIN" run --config-dir "$W/config" --state-dir "$W/state" | tee -a "$W/runs.txt"
"$BIN" run -v --config-dir "$W/config" --state-dir "$W/state.v" 2>&1 | grep -E 'records read|visits' || true
python3 - "$W/runs.txt" "$W/Records.json" <<'PY'
import os, statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
mb = os.path.getsize(sys.argv[2]) / 1e6
for who in ("agent", "python"):
    t = [float(r[1]) for r in runs if r[0] == who]; m = max(int(r[2]) for r in runs if r[0] == who)
    print(f"{who}: {statistics.mean(t):.2f} s mean of {len(t)} ({min(t):.2f}-{max(t):.2f}) = {mb / statistics.mean(t):.0f} MB/s, peak RSS {m} MB")
month = [r for r in runs if r[0] == "month"][0]
first = statistics.mean(float(r[1]) for r in runs if r[0] == "agent")
print(f"month: {float(month[1]):.2f} s, peak RSS {month[2]} MB = {float(month[1]) / first:.3f} of the first import")
PY
}

main 2>&1 | tee "$OUT/location-history.txt"
a=$(awk '/^agent:/{print $2}' "$OUT/location-history.txt"); am=$(awk '/^agent:/{print $(NF-1)}' "$OUT/location-history.txt")
p=$(awk '/^python:/{print $2}' "$OUT/location-history.txt"); pm=$(awk '/^python:/{print $(NF-1)}' "$OUT/location-history.txt")
verdict=$(awk -v a="$a" -v m="$am" 'BEGIN { print (a < 60 && m <= 64) ? "ok" : "MISSED" }')
bench_row "location-history: ${LH_POINTS:-2500000}-point Records.json, whole run" "$a s, $am MB" "json.load: $p s, $pm MB" "< 60 s, <= 64 MB" "$verdict"
mo=$(awk '/^month:/{print $2}' "$OUT/location-history.txt"); mm=$(awk '/^month:/{print $6}' "$OUT/location-history.txt")
share=$(awk '/^month:/{print $9}' "$OUT/location-history.txt")
verdict=$(awk -v s="$share" 'BEGIN { print (s <= 0.1) ? "ok" : "MISSED" }')
bench_row "location-history: the next month added to that store, whole run" "$mo s, $mm MB ($share of the first import)" "first import: $a s" "<= 0.1 of the first import" "$verdict"
