#!/usr/bin/env bash
# The health adapter on a generated Health Auto Export JSON (bench/make-hae-json.py, 130 MB unless
# HAE_MB says otherwise), beside the pure-Python reference (bench/hae_rollup.py: json.load plus
# the same day roll-up) and Python's bare `json.load` of the file:
#   - the same work in both, timed inside the process: the file read into samples and rolled up
#     into days (Swift: HealthAutoExportJSON + DayRollup through the release-built test bundle's
#     HealthReadBench; Python: json.load + its roll-up). The goal is the agent at least 10× faster;
#   - whole processes (hyperfine): `run --dry-run` (read, deduplicate, roll up, print the items)
#     and a whole `run` (also storing every sample durably and delivering the days), beside
#     `python3 bench/hae_rollup.py` and a bare `json.load` (goal: both faster than json.load,
#     both within the issue's budget for any run, 64 MB peak RSS, whatever the size).
# Writes bench/out/health-json.txt. Needs a release build, hyperfine and python3.
. "$(dirname "$0")/common.sh"

main() {
machine "python3 --version"

python3 bench/make-hae-json.py "$W/export.json" "${HAE_MB:-130}"
health_config "$W/export.json"
echo "file: $(du -m "$W/export.json" | cut -f1) MiB"

echo
echo "== the same work in-process: read into samples, roll up into days (best of 5 / of 3)"
# Its own build folder: the test build needs -enable-testing, which must not touch $BIN.
swift build -c release --scratch-path .build/bench-tests --build-tests -Xswiftc -enable-testing >/dev/null 2>&1
HEARTHLOOM_BENCH_HAE="$W/export.json" swift test -c release --scratch-path .build/bench-tests --skip-build -Xswiftc -enable-testing \
    --filter HealthReadBench 2>&1 \
    | grep -o 'swift-in-process.*' | tee "$W/swift.txt"
for i in 1 2 3; do python3 bench/hae_rollup.py "$W/export.json"; done | tee "$W/python.txt" | grep -E 'days|steps|in-process' | sort -u
python3 - "$W/swift.txt" "$W/python.txt" "$W/export.json" <<'PY'
import os, re, sys
swift = open(sys.argv[1]).read(); py = open(sys.argv[2]).read()
mb = os.path.getsize(sys.argv[3]) / 1e6
s = float(re.search(r"total ([\d.]+)", swift).group(1))
p = min(float(x) for x in re.findall(r"in-process ([\d.]+)", py))
same = re.search(r"steps (\d+)", swift).group(1) in py
print(f"in-process: agent {s:.3f} s ({mb / s:.0f} MB/s), Python {p:.3f} s ({mb / p:.1f} MB/s)  steps equal: {same}")
print(f"  Python / agent = {p / s:.1f}x (goal: at least 10x)")
PY

echo
echo "== whole processes (hyperfine; a fresh state folder per agent run)"
hyperfine -N --warmup 1 --runs 5 --export-json "$OUT/health-json.json" \
    --prepare "rm -rf $W/state" \
    -n "python3 json.load" "python3 -c 'import json, sys; json.load(open(sys.argv[1]))' $W/export.json" \
    -n "hearthloom-ingest run --dry-run" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" \
    -n "hearthloom-ingest run" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/health-json-python.json" \
    -n "python3 bench/hae_rollup.py" "python3 bench/hae_rollup.py $W/export.json" 2>&1
read -r dry_kb run_kb < <(agent_peaks)
py_kb=$(peak_kb python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/export.json")
echo "peak RSS: dry run $dry_kb kB, run $run_kb kB, json.load $py_kb kB"
python3 - "$OUT" "$W/export.json" "$dry_kb" "$run_kb" "$py_kb" > "$W/rows.tsv" <<'PY'
import json, os, sys
out, path, dry_kb, run_kb, py_kb = sys.argv[1:]
r = {x["command"]: x["mean"] for x in json.load(open(f"{out}/health-json.json"))["results"]}
rollup = json.load(open(f"{out}/health-json-python.json"))["results"][0]["mean"]
mb = os.path.getsize(path) / 1e6
load = r["python3 json.load"]
for name, kb in (("run --dry-run", dry_kb), ("run", run_kb)):
    t = r["hearthloom-ingest " + name]
    print(f"  {name}: {t:.2f} s; json.load {load:.2f} s / agent = {load / t:.2f}x (goal: above 1); hae_rollup.py {rollup:.2f} s / agent = {rollup / t:.1f}x", file=sys.stderr)
    ok = t < load and int(kb) <= 64 * 1024
    print(f"health: {mb:.0f} MB Health Auto Export JSON, `{name}`\t{t:.2f} s, {int(kb) / 1024:.0f} MB peak RSS"
          f"\tPython json.load alone {load:.2f} s, {int(py_kb) / 1024:.0f} MB; hae_rollup.py {rollup:.2f} s"
          f"\tfaster than json.load, ≤ 64 MB\t{'ok' if ok else 'MISSED'}")
PY
while IFS=$'\t' read -r what ours anchor goal verdict; do bench_row "$what" "$ours" "$anchor" "$goal" "$verdict"; done < "$W/rows.tsv"
cut -f1,2,5 "$W/rows.tsv" | tr '\t' ' '
}

main 2>&1 | tee "$OUT/health-json.txt"
