#!/usr/bin/env bash
# The health adapter on a generated Health Auto Export JSON (bench/make-hae-json.py, 100 MB unless
# HAE_MB says otherwise), beside the pure-Python reference (bench/hae_rollup.py: json.load plus
# the same day roll-up):
#   - agent: `run --dry-run` with one health adapter on the file (read, roll-up, day items;
#     stdout to /dev/null);
#   - Python: json.load + roll-up.
# The goal is the agent at least 10× faster. Writes bench/out/health-json.txt (and the hyperfine
# JSON beside it) and prints the same. Needs a release build, hyperfine and python3.
. "$(dirname "$0")/common.sh"

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version; }
echo "python: $(python3 --version)"

python3 bench/make-hae-json.py "$W/export.json" "${HAE_MB:-100}"
mkdir -p "$W/config/adapters.d"
printf '[Adapter]\nType=health\nPath=%s\n' "$W/export.json" > "$W/config/adapters.d/health.conf"
echo "file: $(du -m "$W/export.json" | cut -f1) MB, $(python3 bench/hae_rollup.py "$W/export.json" | paste -sd' ')"
echo "agent: $("$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>/dev/null | wc -l) items"

echo
echo "== wall time, whole process (hyperfine)"
# A fresh state folder per run, so every run reads the file instead of finding its anchor unchanged.
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/health-json.json" \
    --prepare "rm -rf $W/state" \
    -n "hearthloom-ingest run --dry-run (read, roll-up, day items)" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" 2>&1
hyperfine -N --warmup 1 --runs 3 --export-json "$OUT/health-json-python.json" \
    -n "Python: json.load + day roll-up" "python3 bench/hae_rollup.py $W/export.json" 2>&1

python3 - "$OUT" "$W/export.json" <<'PY'
import json, os, sys
out, path = sys.argv[1], sys.argv[2]
agent = json.load(open(f"{out}/health-json.json"))["results"][0]["mean"]
py = json.load(open(f"{out}/health-json-python.json"))["results"][0]["mean"]
mb = os.path.getsize(path) / 1e6
print(f"means: agent {agent:.3f} s ({mb / agent:.0f} MB/s), Python {py:.3f} s ({mb / py:.0f} MB/s)")
print(f"  Python / agent = {py / agent:.1f}x (goal: at least 10x)")
PY
}

main 2>&1 | tee "$OUT/health-json.txt"
