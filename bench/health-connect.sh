#!/usr/bin/env bash
# The health adapter on a generated Android Health Connect export (tools/healthconnect/
# make_export.py --bench-mb, a database of about 200 MB unless HC_MB says otherwise: per-minute
# heart rate and 5-minute steps over years), beside what a user would otherwise do with the zip:
# `unzip -p` the database and sum the day's steps and heart rate with the sqlite3 CLI.
#   - agent: a whole `run` with a fresh state folder: unpack to a temp file, read every row,
#     store each sample once, roll every day up, deliver to the embedded local node;
#   - peak RSS of the run (goal: at most 64 MB, every adapter's budget, whatever the export's size).
# Writes bench/out/health-connect.txt.
. "$(dirname "$0")/common.sh"

main() {
machine "sqlite3 --version" "unzip -v | head -1"

python3 tools/healthconnect/make_export.py "$W/Health Connect.zip" --bench-mb "${HC_MB:-200}"
health_config "$W/Health Connect.zip"
unzip -p "$W/Health Connect.zip" > "$W/db" && DB_MB=$(du -m "$W/db" | cut -f1) && rm "$W/db"
echo "zip: $(du -m "$W/Health Connect.zip" | cut -f1) MiB, database: $DB_MB MiB"
cat "$W/Health Connect.zip" > /dev/null     # in the page cache for both

cat > "$W/by-day.sh" <<SH
set -e
unzip -p "$W/Health Connect.zip" health_connect_export.db > "$W/cli.db"
sqlite3 "$W/cli.db" "SELECT (start_time / 1000 + start_zone_offset) / 86400 AS day, SUM(count) FROM steps_record_table GROUP BY day;
  SELECT (s.epoch_millis / 1000 + p.start_zone_offset) / 86400 AS day, MIN(beats_per_minute), AVG(beats_per_minute), MAX(beats_per_minute)
  FROM heart_rate_record_series_table s JOIN heart_rate_record_table p ON p.row_id = s.parent_key GROUP BY day;" > /dev/null
rm -f "$W/cli.db"
SH

echo
echo "== wall time, whole process (hyperfine)"
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/health-connect.json" \
    -n "unzip -p + sqlite3 (steps and heart rate by day)" "bash $W/by-day.sh" \
    --prepare "rm -rf $W/state" \
    -n "hearthloom-ingest run (unpack, read, store, roll up, deliver)" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1

echo
echo "== one run, verbose: the read and the roll-up, peak RSS"
rm -rf "$W/state"
/usr/bin/time -v "$BIN" run -v --config-dir "$W/config" --state-dir "$W/state" 2>"$W/run.err" >/dev/null
grep -E 'records read|rolled up' "$W/run.err" | sed 's/^[^:]*: //'
AGENT_KB=$(grep 'Maximum resident' "$W/run.err" | awk '{print $NF}')
/usr/bin/time -v bash "$W/by-day.sh" 2>"$W/cli.err"
CLI_KB=$(grep 'Maximum resident' "$W/cli.err" | awk '{print $NF}')
echo "agent peak RSS: $AGENT_KB kB; unzip + sqlite3 peak RSS: $CLI_KB kB"

read -r AG CLI < <(python3 - "$OUT" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(f"{sys.argv[1]}/health-connect.json"))["results"]}
print(f'{r["hearthloom-ingest run (unpack, read, store, roll up, deliver)"]:.1f} {r["unzip -p + sqlite3 (steps and heart rate by day)"]:.1f}')
PY
)
echo "means: agent run $AG s, unzip + sqlite3 $CLI s"
VERDICT=$([ "$AGENT_KB" -le 65536 ] && echo ok || echo MISSED)
bench_row "Health Connect export, $DB_MB MB database: peak RSS" "$((AGENT_KB / 1024)) MB ($AG s)" \
    "unzip + sqlite3: $((CLI_KB / 1024)) MB ($CLI s)" "<= 64 MB" "$VERDICT"
}

main 2>&1 | tee "$OUT/health-connect.txt"
