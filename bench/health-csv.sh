#!/usr/bin/env bash
# The health adapter on a generated Health Auto Export CSV (bench/make-hae-csv.py, 130 MB unless
# HAE_CSV_MB says otherwise: a row a minute over years, about 3 million rows), whole processes
# from a fresh state: `run --dry-run` and a whole `run` (samples stored durably, days delivered
# to the embedded node), beside Python's csv module reading the rows and nothing more. The goal
# is the budget for any run, 64 MB peak RSS, whatever the size; times are reported.
# Writes bench/out/health-csv.txt. Needs a release build, hyperfine and python3.
. "$(dirname "$0")/common.sh"

main() {
machine "python3 --version"
python3 bench/make-hae-csv.py "$W/export.csv" "${HAE_CSV_MB:-130}"
health_config "$W/export.csv"
echo "file: $(du -m "$W/export.csv" | cut -f1) MiB, $(wc -l < "$W/export.csv") lines"

echo
echo "== whole processes (hyperfine; a fresh state folder per agent run)"
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/health-csv.json" --prepare "rm -rf $W/state" \
    -n "python3 csv.reader" "python3 -c 'import csv, sys; sum(1 for _ in csv.reader(open(sys.argv[1], newline=\"\")))' $W/export.csv" \
    -n "hearthloom-ingest run --dry-run" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" \
    -n "hearthloom-ingest run" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1
read -r dry_kb run_kb < <(agent_peaks)
py_kb=$(peak_kb python3 -c 'import csv, sys; sum(1 for _ in csv.reader(open(sys.argv[1], newline="")))' "$W/export.csv")
echo "peak RSS: dry run $dry_kb kB, run $run_kb kB, csv.reader $py_kb kB"
python3 - "$OUT" "$W/export.csv" "$dry_kb" "$run_kb" "$py_kb" > "$ROWS" <<'PY'
import json, os, sys
out, path, dry_kb, run_kb, py_kb = sys.argv[1:]
r = {x["command"]: x["mean"] for x in json.load(open(f"{out}/health-csv.json"))["results"]}
mb = os.path.getsize(path) / 1e6
reader = r["python3 csv.reader"]
for name, kb in (("run --dry-run", dry_kb), ("run", run_kb)):
    t = r["hearthloom-ingest " + name]
    print(f"health: {mb:.0f} MB Health Auto Export CSV, `{name}`\t{t:.2f} s, {int(kb) / 1024:.0f} MB peak RSS"
          f"\tPython csv.reader alone (rows read, nothing more) {reader:.2f} s, {int(py_kb) / 1024:.0f} MB"
          f"\t≤ 64 MB\t{'ok' if int(kb) <= 64 * 1024 else 'MISSED'}")
PY
bench_rows "$ROWS"
cut -f1,2,5 "$ROWS" | tr '\t' ' '
}

main 2>&1 | tee "$OUT/health-csv.txt"
