#!/usr/bin/env bash
# The health adapter on a generated Apple Health export.xml (bench/make-export-xml.py, 1024 MB
# unless XML_MB says otherwise), beside `xmllint --stream --noout` (libxml2's streaming reader,
# which only parses) on the same file:
#   - agent: a whole `run` with a fresh state folder: stream, store each sample once, roll every
#     day up, queue the items and deliver them to the embedded local node;
#   - the agent's read alone (its info line: records and MB/s while reading and storing);
#   - peak RSS of the run (goal: at most 100 MB).
# The goal is the agent no slower than xmllint. Writes bench/out/health-xml.txt.
. "$(dirname "$0")/common.sh"

main() {
machine "xmllint --version 2>&1 | head -1"

python3 bench/make-export-xml.py "$W/export.xml" "${XML_MB:-1024}"
health_config "$W/export.xml"
echo "file: $(du -m "$W/export.xml" | cut -f1) MiB, $(grep -c '<Record' "$W/export.xml") records"
cat "$W/export.xml" > /dev/null     # in the page cache for both

echo
echo "== wall time, whole process (hyperfine)"
hyperfine -N --warmup 1 --runs 5 --export-json "$OUT/health-xml.json" \
    -n "xmllint --stream --noout" "xmllint --stream --noout $W/export.xml" \
    --prepare "rm -rf $W/state" \
    -n "hearthloom-ingest run (stream, store, roll up, deliver)" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1

echo
echo "== one run, verbose: the read and the roll-up"
rm -rf "$W/state"
/usr/bin/time -v "$BIN" run -v --config-dir "$W/config" --state-dir "$W/state" 2>"$W/run.err" >/dev/null
grep -E 'records read|rolled up|new or changed' "$W/run.err" | sed 's/^[^:]*: //'
echo "agent peak RSS: $(grep 'Maximum resident' "$W/run.err" | awk '{print $NF}') kB"
/usr/bin/time -v xmllint --stream --noout "$W/export.xml" 2>"$W/xmllint.err"
echo "xmllint peak RSS: $(grep 'Maximum resident' "$W/xmllint.err" | awk '{print $NF}') kB"
echo
echo "== unchanged re-run (the export's anchor matches: not opened)"
hyperfine -N --warmup 1 --runs 10 -n "hearthloom-ingest run (unchanged export)" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1

python3 - "$OUT" "$W/export.xml" <<'PY'
import json, os, sys
out, path = sys.argv[1], sys.argv[2]
r = {x["command"]: x["mean"] for x in json.load(open(f"{out}/health-xml.json"))["results"]}
mb = os.path.getsize(path) / 1e6
xl = r["xmllint --stream --noout"]; ag = r["hearthloom-ingest run (stream, store, roll up, deliver)"]
print(f"means: xmllint {xl:.2f} s ({mb / xl:.0f} MB/s), agent run {ag:.2f} s ({mb / ag:.0f} MB/s)")
print(f"  agent speed / xmllint speed = {xl / ag:.2f}x (goal: at least 1x)")
PY
}

main 2>&1 | tee "$OUT/health-xml.txt"
