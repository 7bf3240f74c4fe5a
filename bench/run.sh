#!/usr/bin/env bash
# make bench: the figures in BENCHMARKS.md, each beside what a user would otherwise run.
# Needs a release build (make bench does it), hyperfine, /usr/bin/time and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.build/release/hearthloom-ingest
OUT=$PWD/bench/out
rm -rf "$OUT"; mkdir -p "$OUT"
. bench/row.sh
W=$(mktemp -d /tmp/hl-bench.XXXXXX)
NODE_PID=
cleanup() { [ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

start_node() {   # start_node TOKEN [args…]: a fresh test node on loopback
    [ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null && wait "$NODE_PID" 2>/dev/null || true
    rm -f "$W/port"
    python3 tools/testnode/testnode.py --port 0 --port-file "$W/port" --token "$1" "${@:2}" >/dev/null &
    NODE_PID=$!
    for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
    PORT=$(cat "$W/port")
}

paired() {       # paired DIR URL TOKEN: a config dir pointing at a node
    mkdir -p "$1/config"
    printf '[Node]\nURL=%s\n' "$2" > "$1/config/node.conf"
    (umask 077; echo "$3" > "$1/config/token")
}

rss_kb() { grep 'Maximum resident' "$1" | awk '{print $NF}'; }
cpu_s() { awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.3f", u+s}' "$1"; }

echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version; } | tee "$OUT/machine.txt"

echo "== 1. idle run, nothing new (embedded local node; demo config after a first pass)"
D=$W/idle; mkdir -p "$D"
cp -r fixtures/demo "$D/config"
"$BIN" run --config-dir "$D/config" --state-dir "$D/state" >/dev/null 2>&1 || true
hyperfine -N -w 5 -r 50 --export-json "$OUT/idle.json" \
    -n "hearthloom-ingest run (idle)" "$BIN run --config-dir $D/config --state-dir $D/state" \
    -n "find -newer (what a cron script does)" "find $D/config -newer $D/state/state.db" 2>&1 | tee "$OUT/idle.txt"
/usr/bin/time -v "$BIN" run --config-dir "$D/config" --state-dir "$D/state" >/dev/null 2>"$OUT/idle.time"
echo "idle run peak RSS: $(rss_kb "$OUT/idle.time") kB" | tee -a "$OUT/idle.txt"
python3 - "$OUT/idle.json" "$(rss_kb "$OUT/idle.time")" "$W/rows.tsv" <<'PY'
import json, sys
agent, find = (r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"])
kb = int(sys.argv[2])
with open(sys.argv[3], "a") as f:
    f.write("\t".join(("idle `run`, nothing new (demo config, embedded node)", f"{agent:.1f} ms median, {kb / 1024:.1f} MB",
                       f"find -newer {find:.1f} ms", "<= 25 ms, <= 20 MB", "ok" if agent <= 25 and kb <= 20 * 1024 else "MISSED")) + "\n")
PY

echo "== 2. drain 100 000 queued items to the test node on loopback"
D=$W/drain; paired "$D" "http://127.0.0.1:9" bench-token
seq 1 100000 | sed 's/^/bench note /' | "$BIN" capture --lines --config-dir "$D/config" --state-dir "$D/state" 2>/dev/null
cp -r "$D/state" "$W/floor-state"           # the same queue, for the store's floor below
start_node bench-token
paired "$D" "http://127.0.0.1:$PORT" bench-token
/usr/bin/time -v "$BIN" drain --json --config-dir "$D/config" --state-dir "$D/state" >"$OUT/drain.json" 2>"$OUT/drain.time"
python3 - "$OUT" <<'PY' | tee "$OUT/drain.txt"
import json, re, sys
out = sys.argv[1]
t = open(f"{out}/drain.time").read()
g = lambda k: re.search(k + r".*?: ([\d.:]+)", t).group(1)
wall = g("Elapsed")
parts = [float(x) for x in wall.split(":")]
wall_s = parts[-1] + (parts[-2] * 60 if len(parts) > 1 else 0)
cpu = float(g("User time")) + float(g("System time"))
n = sum(json.load(open(f"{out}/drain.json"))["delivered"].values())
print(f"agent: {n} items in {wall_s:.2f} s wall = {n / wall_s:,.0f} items/s; agent CPU {cpu:.2f} s = {cpu / n * 1e6:.2f} us/item; peak RSS {g('Maximum resident')} kB")
open(f"{out}/drain-agent.txt", "w").write(f"{cpu / n * 1e6:.2f} {int(g('Maximum resident')) / 1024:.1f} {n / wall_s:.0f}\n")
PY
# The same 100 batches sent by curl (one process, keep-alive), as a shell script would.
python3 - "$W/batches" <<'PY'
import json, os, sys, uuid
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
dev = {"id": "bench", "name": "bench", "platform": "linux", "agent": "curl"}
for b in range(100):
    items = [{"key": str(uuid.uuid4()), "text": f"curl note {b*1000+i}", "captured_at": "2026-11-30T12:00:00Z", "via": "stdin"} for i in range(1000)]
    json.dump({"actor": "device:bench", "source": "linux-capture", "device": dev, "items": items}, open(f"{d}/{b}.json", "w"))
PY
args=(); for b in $(seq 0 99); do args+=(-s -o /dev/null -H "Authorization: Bearer bench-token" -H "Content-Type: application/json" --data-binary "@$W/batches/$b.json" "http://127.0.0.1:$PORT/v1/ingest/capture" --next); done
/usr/bin/time -v curl "${args[@]}" 2>"$OUT/curl.time" >/dev/null || true
echo "curl:  100000 items in $(grep Elapsed "$OUT/curl.time" | awk '{print $NF}') wall; CPU $(cpu_s "$OUT/curl.time") s = $(awk -v c="$(cpu_s "$OUT/curl.time")" 'BEGIN{printf "%.2f", c/100000*1e6}') us/item; peak RSS $(rss_kb "$OUT/curl.time") kB (batches pre-built, no queue, no retries)" | tee -a "$OUT/drain.txt"
# The state store's floor: the same batches read and deleted by SQLite's C API, nothing else.
cc -O2 -o "$W/outbox-floor" bench/outbox-floor.c -lsqlite3
/usr/bin/time -v "$W/outbox-floor" "$W/floor-state/state.db" 2>"$OUT/outbox-floor.time" >/dev/null
read -r us_item drain_mb items_s < "$OUT/drain-agent.txt"
curl_us=$(awk -v c="$(cpu_s "$OUT/curl.time")" 'BEGIN{printf "%.2f", c/100000*1e6}')
store_us=$(awk -v c="$(cpu_s "$OUT/outbox-floor.time")" 'BEGIN{printf "%.2f", c/100000*1e6}')
echo "store: the same batches read and deleted through SQLite's C API: CPU $(cpu_s "$OUT/outbox-floor.time") s = $store_us us/item" | tee -a "$OUT/drain.txt"
printf '%s\t%s\t%s\t%s\t%s\n' "drain 100 000 queued captures to the test node, agent CPU" "$us_item us/item ($items_s items/s), $drain_mb MB" \
    "floors: curl's pre-built POSTs $curl_us + SQLite's read and delete $store_us us/item" "<= 1.5 us/item, <= 50 MB" "$(awk -v u="$us_item" -v m="$drain_mb" 'BEGIN {print u <= 1.5 && m <= 50 ? "ok" : "MISSED"}')" >> "$W/rows.tsv"

echo "== 3. capture: start to durable"
D=$W/cap; mkdir -p "$D/config"
"$BIN" capture warm --config-dir "$D/config" --state-dir "$D/state"
paired "$W/cap-node" "http://127.0.0.1:$PORT" bench-token
"$BIN" capture warm --config-dir "$W/cap-node/config" --state-dir "$W/cap-node/state"
sqlite3 "$W/q.db" 'PRAGMA journal_mode=WAL; CREATE TABLE q(t TEXT)' >/dev/null
hyperfine -N -w 10 -r 200 --export-json "$OUT/capture.json" \
    -n "capture, embedded local node" "$BIN capture --config-dir $D/config --state-dir $D/state 'a quick note'" \
    -n "capture, node on loopback" "$BIN capture --config-dir $W/cap-node/config --state-dir $W/cap-node/state 'a quick note'" \
    -n "sqlite3 insert (a durable queue by hand)" "sqlite3 $W/q.db \"PRAGMA synchronous=FULL; INSERT INTO q VALUES('a quick note')\"" \
    -n "curl POST (send, no queue)" "curl -s -o /dev/null -H 'Authorization: Bearer bench-token' -H 'Content-Type: application/json' --data-binary '{\"actor\":\"device:b\",\"source\":\"linux-capture\",\"device\":{\"id\":\"b\",\"name\":\"b\",\"platform\":\"linux\",\"agent\":\"curl\"},\"items\":[{\"key\":\"k\",\"text\":\"a quick note\",\"captured_at\":\"2026-11-30T12:00:00Z\",\"via\":\"args\"}]}' http://127.0.0.1:$PORT/v1/ingest/capture" \
    2>&1 | tee "$OUT/capture.txt"
# hyperfine times the whole command (durable, then sending); this measures only start-to-durable.
python3 bench/durable.py "$BIN" "$D/config" "$D/state" 200 | sed 's/^/embedded node: /' | tee -a "$OUT/capture.txt"
python3 bench/durable.py "$BIN" "$W/cap-node/config" "$W/cap-node/state" 200 | sed 's/^/node on loopback: /' | tee -a "$OUT/capture.txt"
python3 - "$OUT/capture.json" "$OUT/capture.txt" "$W/rows.tsv" <<'PY' | tee -a "$OUT/capture.txt"
import json, re, sys
results = json.load(open(sys.argv[1]))["results"]
for r in results:
    print(f"median {r['median']*1000:6.2f} ms  {r['command']}")
durable = re.search(r"embedded node: .*?median ([\d.]+) ms", open(sys.argv[2]).read())
sqlite = results[2]["median"] * 1000
with open(sys.argv[3], "a") as f:
    if durable:
        ms = float(durable.group(1))
        f.write("\t".join(("`capture`, start to durable (embedded node, median of 200)", f"{ms:.2f} ms", f"sqlite3 insert, synchronous=FULL (whole command): {sqlite:.2f} ms",
                           "<= 4 ms", "ok" if ms <= 4 else "MISSED")) + "\n")
PY
bench_rows "$W/rows.tsv"
echo
bench/photos.sh
bench/photos-takeout.sh
bench/photos-videos.sh
bench/contacts.sh
bench/calendar.sh
bench/gpsd.sh
bench/health-xml.sh
bench/health-json.sh
bench/health-csv.sh
bench/location-history.sh
bench/listening-history.sh
bench/health-connect.sh
bench/scans.sh
echo
bench/mpris.sh
echo
bench/table.sh | tee "$OUT/table.md"
echo "results in $OUT"
