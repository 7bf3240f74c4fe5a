#!/usr/bin/env bash
# The gpsd adapter:
#   a. clustering 1 000 000 stored fixes (11.6 days at 1 Hz) into visits and trips: `resync` over a
#      journal filled by bench/make-fix-journal.py, beside the same rules in plain Python;
#   b. the CPU `watch` spends following a real gpsd fed at 10 Hz by gpsfake (real time), beside
#      `gpspipe -w` reading the same stream.
# Writes bench/out/gpsd.txt and prints the same. Needs a release build, gpsd, gpsd-clients, /usr/bin/time, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.build/release/hearthloom-ingest
OUT=$PWD/bench/out
mkdir -p "$OUT"
W=$(mktemp -d /tmp/hl-gpsd.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; pkill -f "gpsd .*-S $PORT " 2>/dev/null || true; rm -rf "$W"; }
PORT=$((22000 + $$ % 5000))
trap cleanup EXIT
export PATH=/usr/sbin:$PATH

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # utime + stime, in clock ticks
. bench/row.sh
ROWS=$W/rows.tsv
HZ=$(getconf CLK_TCK)

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; date -u +%FT%TZ; "$BIN" --version; gpsd -V | head -1; python3 --version; }

echo
echo "== a. 1 000 000 stored fixes into visits and trips (resync: read the journal, cluster, queue, send to the embedded node)"
mkdir -p "$W/a/config/adapters.d"
printf '[Adapter]\nType=gpsd\nPort=9\n' > "$W/a/config/adapters.d/gps.conf"
"$BIN" run -q --config-dir "$W/a/config" --state-dir "$W/a/state" || true      # creates the state store
python3 bench/make-fix-journal.py "$W/a/state/state.db" gps 1000000 "$W/a/fixes.csv"
for i in 1 2 3; do
    /usr/bin/time -v "$BIN" resync gps --json --config-dir "$W/a/config" --state-dir "$W/a/state" > "$W/a/out.json" 2> "$W/a/time.$i"
done
python3 - "$W/a" <<'PY'
import json, re, sys
d = sys.argv[1]
def field(text, name): return re.search(name + r".*: (.*)", text).group(1)
runs = []
for i in (1, 2, 3):
    t = open(f"{d}/time.{i}").read()
    m, s = field(t, "Elapsed \\(wall clock\\)").split(":")[-2:]
    runs.append((float(m) * 60 + float(s), int(field(t, "Maximum resident")) / 1024, float(field(t, "User time")) + float(field(t, "System time"))))
out = json.load(open(f"{d}/out.json"))
print(f"agent resync: {min(r[0] for r in runs):.2f} s wall (best of 3; all: {', '.join(f'{r[0]:.2f}' for r in runs)}), "
      f"{max(r[1] for r in runs):.0f} MB peak RSS, {runs[0][2]:.2f} s CPU; accepted {out['accepted']}, duplicates {out['duplicates']}")
open(f"{d}/agent.txt", "w").write(f"{min(r[0] for r in runs):.2f} {max(r[1] for r in runs):.1f}\n")
PY
/usr/bin/time -f "%e %M" -o "$W/a/python.time" python3 bench/staypoints.py "$W/a/fixes.csv" > "$W/a/python.out"
read -r py_s py_kb < "$W/a/python.time"; read -r agent_s agent_mb < "$W/a/agent.txt"
echo "python reference: $(cat "$W/a/python.out"); $py_s s wall, $py_kb kB peak RSS"
bench_row "gpsd: resync of 1 000 000 stored fixes into visits and trips" "$agent_s s" "the same rules in Python: $py_s s" "<= 2 s" "$(awk -v s="$agent_s" 'BEGIN {print s <= 2 ? "ok" : "MISSED"}')"
bench_row "gpsd: that resync, peak RSS" "$agent_mb MB" "Python: $(awk -v k="$py_kb" 'BEGIN {printf "%.0f", k / 1024}') MB" "<= 64 MB" "$(awk -v m="$agent_mb" 'BEGIN {print m <= 64 ? "ok" : "MISSED"}')"

echo
echo "== b. watch following a real gpsd at 10 Hz (gpsfake, real time), CPU over 120 s of stream"
python3 fixtures/gpsd/make-day.py --out "$W" --name ten --hz 10 --minutes 3.5 --warmup 5
mkdir -p "$W/b/config/adapters.d"
printf '[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=%s\n' "$PORT" > "$W/b/config/adapters.d/gps.conf"
# Three sentences per fix at 10 fixes/s: one sentence every 1/30 s.
gpsfake -1 -q -u -c 0.0333 -P "$PORT" "$W/ten.nmea" > /dev/null 2>&1 & PIDS+=($!)
sleep 1
# Background processes write to files, not to the `tee` below, or it would wait for them.
"$BIN" watch -q --config-dir "$W/b/config" --state-dir "$W/b/state" 2> "$W/b/watch.log" & WATCH=$!; PIDS+=($WATCH)
gpspipe -w "127.0.0.1:$PORT" > "$W/b/gpspipe.json" 2>&1 & PIPE=$!; PIDS+=($PIPE)
sleep 30
w0=$(cpu_ticks $WATCH); p0=$(cpu_ticks $PIPE)
sleep 120
w1=$(cpu_ticks $WATCH); p1=$(cpu_ticks $PIPE)
fixes=$(grep -c '"TPV"' "$W/b/gpspipe.json" || true)
watch_kb=$(awk '/VmHWM/ {print $2}' "/proc/$WATCH/status")
python3 - "$w0" "$w1" "$p0" "$p1" "$HZ" "$fixes" "$watch_kb" "$ROWS" <<'PY'
import sys
w0, w1, p0, p1, hz, fixes, watch_kb = (float(x) for x in sys.argv[1:8])
cpu = {}
for name, a, b in (("agent watch", w0, w1), ("gpspipe -w", p0, p1)):
    cpu[name] = (b - a) / hz
    print(f"{name}: {cpu[name]:.2f} s CPU in 120 s = {cpu[name] / 120 * 100:.2f} % of one core = {cpu[name] * 30:.1f} CPU s per hour of 10 Hz stream")
print(f"({fixes:.0f} TPV reports reached gpspipe in the whole run); agent watch peak RSS {watch_kb:.0f} kB")
share = cpu["agent watch"] / 120 * 100
with open(sys.argv[8], "a") as f:
    f.write("\t".join(("gpsd: `watch` following gpsd at 10 Hz, CPU", f"{share:.2f} % of a core", f"gpspipe -w {cpu['gpspipe -w'] / 120 * 100:.2f} %", "<= 2 %", "ok" if share <= 2 else "MISSED")) + "\n")
    f.write("\t".join(("gpsd: that `watch`, peak RSS", f"{watch_kb / 1024:.1f} MB", "-", "<= 64 MB", "ok" if watch_kb <= 64 * 1024 else "MISSED")) + "\n")
PY
bench_rows "$ROWS"
kill "$WATCH" "$PIPE" 2>/dev/null || true
}

main 2>&1 | tee "$OUT/gpsd.txt"
