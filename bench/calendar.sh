#!/usr/bin/env bash
# The calendar adapter on a generated 5000-event .ics (~51 600 occurrences in four zones, made by
# bench/make-big-ics.py), beside Python's recurring-ical-events and libical's own C API on the
# same file and window (every occurrence from DTSTART up to now + 90 days):
#   - agent, end to end: `run --dry-run` (parse, expand, one JSON item with its hash per
#     occurrence, anchor bookkeeping; stdout to /dev/null);
#   - agent, parse + expand only: the time its `-vv` line reports for ICalDocument.read;
#   - Python: icalendar + recurring_ical_events.of(…).between(…) (pip, in bench/.venv);
#   - C: icalparser_parse_string + icalcomponent_foreach_recurrence per VEVENT (bench/ical-expand.c);
#   - agent, whole `run` (fresh state) on that file and on the same with 300 RECURRENCE-ID
#     overrides at its end (peak RSS: a UID's components are read in one piece, wherever they are);
#   - the second file of `make-big-ics.py --eight-years` (eight years, weekly, every-third-day and
#     monthly series, ~50 700 occurrences): `run --dry-run` beside libical's C, and a whole `run`'s
#     peak RSS to the embedded node and to the test node over HTTP, the latter beside what loading
#     libcurl costs any process (bench/curl-floor.c: dlopen, global init, 5 POSTs to the same node).
# Writes bench/out/calendar.txt (and the hyperfine JSON beside it) and prints the same.
# Needs a release build, hyperfine, /usr/bin/time, cc, libical-dev, python3-venv and PyPI.
. "$(dirname "$0")/common.sh"

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version; }

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q recurring-ical-events
echo "python: $("$VENV/bin/python" --version), $("$VENV/bin/pip" list 2>/dev/null | grep -iE '^(icalendar|recurring-ical-events) ' | tr -s ' ' | paste -sd, -)"
echo "libical: $(pkg-config --modversion libical)"
cc -O2 -o "$W/ical-expand" bench/ical-expand.c $(pkg-config --cflags --libs libical)
cc -O2 -o "$W/curl-floor" bench/curl-floor.c -ldl

python3 bench/make-big-ics.py "$W/big.ics" "$(date -u +%F)"
python3 bench/make-big-ics.py "$W/overrides.ics" "$(date -u +%F)" --overrides
python3 bench/make-big-ics.py "$W/eight.ics" "$(date -u +%F)" --eight-years
END=$(( $(date +%s) + 90 * 86400 ))
mkdir -p "$W/config/adapters.d" "$W/overrides-config/adapters.d"
printf '[Adapter]\nType=calendar\nPath=%s\n' "$W/big.ics" > "$W/config/adapters.d/bench.conf"
printf '[Adapter]\nType=calendar\nPath=%s\n' "$W/overrides.ics" > "$W/overrides-config/adapters.d/bench.conf"
mkdir -p "$W/eight-config/adapters.d" "$W/eight-http/adapters.d"
printf '[Adapter]\nType=calendar\nPath=%s\n' "$W/eight.ics" | tee "$W/eight-config/adapters.d/bench.conf" > "$W/eight-http/adapters.d/bench.conf"
python3 tools/testnode/testnode.py --port 0 --port-file "$W/port" --token bench-token >/dev/null 2>&1 & NODE=$!
trap 'kill $NODE 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
printf '[Node]\nURL=http://127.0.0.1:%s\n' "$(cat "$W/port")" > "$W/eight-http/node.conf"
(umask 077; echo bench-token > "$W/eight-http/token")
echo "file: $(grep -c BEGIN:VEVENT "$W/big.ics") VEVENTs, $(du -k "$W/big.ics" | cut -f1) KiB"

echo
echo "== occurrences each one finds (must agree)"
echo "agent:  $("$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>/dev/null | wc -l) items"
echo "C:      $("$W/ical-expand" "$W/big.ics" "$END")"
echo "Python: $("$VENV/bin/python" bench/recurring-ical-events.py "$W/big.ics" "$END")"
echo "agent, the file with 300 overrides at its end: $("$BIN" run --dry-run --config-dir "$W/overrides-config" --state-dir "$W/overrides-state" 2>/dev/null | wc -l) items"
echo "agent, the eight-year file: $("$BIN" run --dry-run --config-dir "$W/eight-config" --state-dir "$W/eight-state" 2>/dev/null | wc -l) items; C: $("$W/ical-expand" "$W/eight.ics" "$END")"

echo
echo "== wall time, whole process (hyperfine)"
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/calendar.json" \
    -n "hearthloom-ingest run --dry-run (parse, expand, items as JSON)" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" \
    -n "C: libical parse + icalcomponent_foreach_recurrence" "$W/ical-expand $W/big.ics $END" 2>&1
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/calendar-eight.json" \
    -n "eight-year file: hearthloom-ingest run --dry-run" "$BIN run --dry-run --config-dir $W/eight-config --state-dir $W/eight-state" \
    -n "eight-year file: C: libical parse + icalcomponent_foreach_recurrence" "$W/ical-expand $W/eight.ics $END" 2>&1
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/calendar-python.json" \
    -n "Python: icalendar + recurring-ical-events" "$VENV/bin/python bench/recurring-ical-events.py $W/big.ics $END" 2>&1

echo
echo "== the agent's parse + expand alone (its -vv line, 10 runs)"
for _ in $(seq 10); do
    "$BIN" run -v -v --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>&1 >/dev/null | grep 'parsed and expanded'
done | sed -E 's/.*expanded in ([0-9.]+) ms, [0-9]+ items planned in ([0-9.]+) ms/\1 \2/' > "$W/split.txt"
/usr/bin/time -v "$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" >/dev/null 2>"$OUT/calendar.time"
# A whole `run` with fresh state: parse, queue every occurrence, deliver to the embedded node.
# The same with overrides far from their series (each UID's components are read in one piece).
for i in 1 2 3; do
    rm -rf "$W/run-state" "$W/overrides-run-state"
    /usr/bin/time -v "$BIN" run --config-dir "$W/config" --state-dir "$W/run-state" >/dev/null 2>"$OUT/calendar-run.time.$i"
    /usr/bin/time -v "$BIN" run --config-dir "$W/overrides-config" --state-dir "$W/overrides-run-state" >/dev/null 2>"$OUT/calendar-overrides-run.time.$i"
    rm -rf "$W/eight-run-state" "$W/eight-http-state"
    /usr/bin/time -v "$BIN" run --config-dir "$W/eight-config" --state-dir "$W/eight-run-state" >/dev/null 2>"$OUT/calendar-eight-run.time.$i"
    /usr/bin/time -v "$BIN" run --config-dir "$W/eight-http" --state-dir "$W/eight-http-state" >/dev/null 2>"$OUT/calendar-eight-http.time.$i"
done
"$W/curl-floor" libcurl.so.4 "http://127.0.0.1:$(cat "$W/port")/v1/ingest/capture" 5 > "$W/curl-floor.txt"
echo "libcurl's own cost (bench/curl-floor.c), peak RSS in kB before loading it and after 5 POSTs: $(cat "$W/curl-floor.txt")"
python3 - "$OUT" "$W/split.txt" "$ROWS" "$W/curl-floor.txt" <<'PY'
import json, re, statistics, sys
out, split, table = sys.argv[1], sys.argv[2], sys.argv[3]
curl_before, curl_after = map(int, open(sys.argv[4]).read().split())
curl_mb = (curl_after - curl_before) / 1024
agent, c = (r["mean"] for r in json.load(open(f"{out}/calendar.json"))["results"])
py = json.load(open(f"{out}/calendar-python.json"))["results"][0]["mean"]
rows = [tuple(map(float, l.split())) for l in open(split)]
parse = statistics.median(r[0] for r in rows) / 1000
items = statistics.median(r[1] for r in rows) / 1000
rss = next(l.split()[-1] for l in open(f"{out}/calendar.time") if "Maximum resident" in l)
def timed(path):
    t = open(path).read()
    wall = [float(x) for x in re.search(r"Elapsed \(wall clock\).*: ([\d:.]+)", t).group(1).split(":")]
    return wall[-1] + (wall[-2] * 60 if len(wall) > 1 else 0), int(re.search(r"Maximum resident.*: (\d+)", t).group(1))
runs = [timed(f"{out}/calendar-run.time.{i}") for i in (1, 2, 3)]
run_wall, run_rss = min(r[0] for r in runs), max(r[1] for r in runs)
overridden = [timed(f"{out}/calendar-overrides-run.time.{i}") for i in (1, 2, 3)]
over_wall, over_rss = min(r[0] for r in overridden), max(r[1] for r in overridden)
eight, eight_c = (r["mean"] for r in json.load(open(f"{out}/calendar-eight.json"))["results"])
best = lambda name: (min(r[0] for r in name), max(r[1] for r in name))
eight_wall, eight_rss = best([timed(f"{out}/calendar-eight-run.time.{i}") for i in (1, 2, 3)])
http_wall, http_rss = best([timed(f"{out}/calendar-eight-http.time.{i}") for i in (1, 2, 3)])
print(f"means: agent run --dry-run {agent:.3f} s, C {c:.3f} s, Python {py:.3f} s; agent parse+expand (median) {parse:.3f} s, then planning {items:.3f} s")
print(f"  Python / agent parse+expand = {py / parse:.1f}x   Python / agent run --dry-run = {py / agent:.1f}x")
print(f"  agent parse+expand / C = {parse / c:.2f}x   agent run --dry-run / C = {agent / c:.2f}x")
print(f"  agent run --dry-run peak RSS {rss} kB; whole run (fresh state, best of 3) {run_wall:.2f} s wall, peak RSS {run_rss} kB")
print(f"  with 300 overrides at the end: whole run {over_wall:.2f} s wall, peak RSS {over_rss} kB")
print(f"  eight-year file: run --dry-run {eight:.3f} s, C {eight_c:.3f} s ({eight / eight_c:.2f}x); whole run {eight_wall:.2f} s, {eight_rss} kB (embedded), {http_wall:.2f} s, {http_rss} kB (HTTP)")
ok = lambda good: "ok" if good else "MISSED"
with open(table, "a") as f:
    for row in (("calendar: 5000-event .ics, whole `run --dry-run`", f"{agent:.3f} s", f"libical C parse + expand {c:.3f} s ({agent / c:.2f}x)", "<= 1.2x C", ok(agent <= 1.2 * c)),
                ("calendar: eight-year 5000-event .ics, whole `run --dry-run`", f"{eight:.3f} s", f"libical C parse + expand {eight_c:.3f} s ({eight / eight_c:.2f}x)", "<= 1.2x C", ok(eight <= 1.2 * eight_c)),
                ("calendar: eight-year file, whole `run` to the embedded node, peak RSS", f"{eight_rss / 1024:.1f} MB, {eight_wall:.2f} s", "-", "<= 40 MB", ok(eight_rss <= 40 * 1024)),
                ("calendar: eight-year file, whole `run` to the test node (HTTP), peak RSS", f"{http_rss / 1024:.1f} MB, {http_wall:.2f} s",
                 f"embedded node {eight_rss / 1024:.1f} MB; libcurl loaded + 5 POSTs (C) +{curl_mb:.1f} MB", "<= 40 MB", ok(http_rss <= 40 * 1024)),
                ("calendar: whole `run --dry-run` vs Python", f"{agent:.3f} s", f"recurring-ical-events {py:.3f} s ({py / agent:.1f}x)", ">= 10x faster", ok(py >= 10 * agent)),
                ("calendar: whole `run` (fresh state), peak RSS", f"{run_rss / 1024:.1f} MB, {run_wall:.2f} s", f"libical C {c:.3f} s", "<= 40 MB", ok(run_rss <= 40 * 1024)),
                ("calendar: the same + 300 overrides at the file's end, whole `run`, peak RSS", f"{over_rss / 1024:.1f} MB, {over_wall:.2f} s",
                 f"without overrides {run_rss / 1024:.1f} MB", "<= 40 MB", ok(over_rss <= 40 * 1024))):
        f.write("\t".join(row) + "\n")
PY
bench_rows "$ROWS"
}

main 2>&1 | tee "$OUT/calendar.txt"
