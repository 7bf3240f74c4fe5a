#!/usr/bin/env bash
# The listening-history adapter on a generated Spotify "Extended streaming history" of 1 M plays
# (unless LISTEN_PLAYS says otherwise), split into Streaming_History_Audio_*.json files of 15 000
# plays as Spotify splits them (fixtures/listening-history/make-fixtures.py --plays), beside what
# a user would otherwise start with: Python's json.load of the same files.
#   - `run --dry-run` with a fresh state folder: read every file, print every play that counts;
#   - a whole `run` with a fresh state folder: read, queue and deliver every play to the embedded
#     node, the anchor written; wall time and peak RSS (goal: under 20 s and under 64 MB);
#   - `python3 -c 'json.load'` of each file in turn, counting the rows of 30 s or more.
# Writes bench/out/listening-history.txt. Needs a release build and python3.
. "$(dirname "$0")/common.sh"

main() {
machine "python3 --version"
plays=${LISTEN_PLAYS:-1000000}
python3 fixtures/listening-history/make-fixtures.py --plays "$plays" "$W/export"
mkdir -p "$W/config/adapters.d"
printf '[Adapter]\nType=listening-history\nPath=%s\n' "$W/export" > "$W/config/adapters.d/listening-history.conf"
echo "export: $(ls "$W/export" | wc -l) files, $(du -sm "$W/export" | cut -f1) MiB, $plays plays"

echo
echo "== whole processes, 3 runs each (agent: a fresh state folder per run)"
for i in 1 2 3; do
    rm -rf "$W/state"
    measure dry-run "$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state"
    rm -rf "$W/state"
    measure run "$BIN" run --config-dir "$W/config" --state-dir "$W/state"
    measure python python3 -c 'import json, sys
n = 0
for f in sys.argv[1:]:
    n += sum(1 for row in json.load(open(f)) if row["ms_played"] >= 30000)
print(n)' "$W"/export/*.json
done | tee "$W/runs.txt"
echo "plays at the embedded node: $("$BIN" status --json --config-dir "$W/config" --state-dir "$W/state" | python3 -c 'import json, sys; print(json.load(sys.stdin)["local_node"]["media"]["live"])')"
"$BIN" run -v --dry-run --config-dir "$W/config" --state-dir "$W/state.v" 2>&1 >/dev/null | grep -E 'rows read' || true
python3 - "$W/runs.txt" "$W/export" <<'PY'
import os, statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
mb = sum(os.path.getsize(os.path.join(sys.argv[2], f)) for f in os.listdir(sys.argv[2])) / 1e6
for who in ("dry-run", "run", "python"):
    t = [float(r[1]) for r in runs if r[0] == who]; m = max(int(r[2]) for r in runs if r[0] == who)
    print(f"{who}: {statistics.mean(t):.2f} s mean of {len(t)} ({min(t):.2f}-{max(t):.2f}) = {mb / statistics.mean(t):.0f} MB/s, peak RSS {m} MB")
PY
}

main 2>&1 | tee "$OUT/listening-history.txt"
field() { awk -v who="$1:" -v n="$2" '$1 == who { print $n }' "$OUT/listening-history.txt"; }
r=$(field run 2); rm_=$(field run 13); d=$(field dry-run 2); dm=$(field dry-run 13); p=$(field python 2); pm=$(field python 13)
verdict=$(awk -v a="$r" -v m="$rm_" 'BEGIN { print (a < 20 && m <= 64) ? "ok" : "MISSED" }')
bench_row "listening-history: ${LISTEN_PLAYS:-1000000}-play Spotify export, whole run (dry run: $d s, $dm MB)" "$r s, $rm_ MB" "json.load: $p s, $pm MB" "< 20 s, <= 64 MB" "$verdict"
