#!/usr/bin/env bash
# The calendar adapter on a generated 5000-event .ics (~51 600 occurrences in four zones, made by
# bench/make-big-ics.py), beside Python's recurring-ical-events and libical's own C API on the
# same file and window (every occurrence from DTSTART up to now + 90 days):
#   - agent, end to end: `run --dry-run` (parse, expand, one JSON item with its hash per
#     occurrence, anchor bookkeeping; stdout to /dev/null);
#   - agent, parse + expand only: the time its `-vv` line reports for ICalDocument.read;
#   - Python: icalendar + recurring_ical_events.of(…).between(…) (pip, in bench/.venv);
#   - C: icalparser_parse_string + icalcomponent_foreach_recurrence per VEVENT (bench/ical-expand.c).
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

python3 bench/make-big-ics.py "$W/big.ics" "$(date -u +%F)"
END=$(( $(date +%s) + 90 * 86400 ))
mkdir -p "$W/config/adapters.d"
printf '[Adapter]\nType=calendar\nPath=%s\n' "$W/big.ics" > "$W/config/adapters.d/bench.conf"
echo "file: $(grep -c BEGIN:VEVENT "$W/big.ics") VEVENTs, $(du -k "$W/big.ics" | cut -f1) KiB"

echo
echo "== occurrences each one finds (must agree)"
echo "agent:  $("$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>/dev/null | wc -l) items"
echo "C:      $("$W/ical-expand" "$W/big.ics" "$END")"
echo "Python: $("$VENV/bin/python" bench/recurring-ical-events.py "$W/big.ics" "$END")"

echo
echo "== wall time, whole process (hyperfine)"
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/calendar.json" \
    -n "hearthloom-ingest run --dry-run (parse, expand, items as JSON)" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" \
    -n "C: libical parse + icalcomponent_foreach_recurrence" "$W/ical-expand $W/big.ics $END" 2>&1
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/calendar-python.json" \
    -n "Python: icalendar + recurring-ical-events" "$VENV/bin/python bench/recurring-ical-events.py $W/big.ics $END" 2>&1

echo
echo "== the agent's parse + expand alone (its -vv line, 10 runs)"
for _ in $(seq 10); do
    "$BIN" run -v -v --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>&1 >/dev/null | grep 'parsed and expanded'
done | sed -E 's/.*expanded in ([0-9.]+) ms, [0-9]+ items made in ([0-9.]+) ms/\1 \2/' > "$W/split.txt"
/usr/bin/time -v "$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" >/dev/null 2>"$OUT/calendar.time"
python3 - "$OUT" "$W/split.txt" <<'PY'
import json, statistics, sys
out, split = sys.argv[1], sys.argv[2]
agent, c = (r["mean"] for r in json.load(open(f"{out}/calendar.json"))["results"])
py = json.load(open(f"{out}/calendar-python.json"))["results"][0]["mean"]
rows = [tuple(map(float, l.split())) for l in open(split)]
parse = statistics.median(r[0] for r in rows) / 1000
items = statistics.median(r[1] for r in rows) / 1000
rss = next(l.split()[-1] for l in open(f"{out}/calendar.time") if "Maximum resident" in l)
print(f"means: agent run --dry-run {agent:.3f} s, C {c:.3f} s, Python {py:.3f} s; agent parse+expand (median) {parse:.3f} s, then items {items:.3f} s")
print(f"  Python / agent parse+expand = {py / parse:.1f}x   Python / agent run --dry-run = {py / agent:.1f}x")
print(f"  agent parse+expand / C = {parse / c:.2f}x   agent run --dry-run / C = {agent / c:.2f}x")
print(f"  agent run --dry-run peak RSS {rss} kB")
PY
}

main 2>&1 | tee "$OUT/calendar.txt"
