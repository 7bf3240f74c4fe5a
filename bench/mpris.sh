#!/usr/bin/env bash
# The mpris adapter's cost under `watch`, beside `playerctl --follow` (what a user would otherwise
# leave running to see what plays), both following the same 3 mpv players on a private bus:
#   a. idle: 3 players paused on the bus for IDLE_S seconds: wakeups of each follower;
#   b. playback: the 3 players play 4-minute tagged tracks at SPEED× for PLAY_S seconds of wall
#      time, i.e. 3 × PLAY_S × SPEED seconds of playback: CPU seconds of each follower, per hour
#      of playback, and wakeups per track.
# Idle wakeups are counted two ways: the adapter's bus thread alone (its context switches, from
# /proc/PID/task/TID/status; it is the thread blocked in poll(2)), and the whole process with
# `strace -f -c` (every return from a blocking wait: poll, epoll_wait, futex). Playback wakeups
# are context switches summed over the live threads (threads that exit meanwhile are missed);
# CPU is utime + stime of the process (/proc/PID/stat).
# Writes bench/out/mpris.txt and prints the same. Needs a release build, dbus-daemon, mpv,
# mpv-mpris, ffmpeg, playerctl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.build/release/hearthloom-ingest
OUT=$PWD/bench/out
IDLE_S=${IDLE_S:-60}
PLAY_S=${PLAY_S:-60}
SPEED=${SPEED:-20}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/hl-mpris.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT

switches() {     # switches PID: voluntary + involuntary context switches of all its threads
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n + 0}'
}
cpu_ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
poll_thread() {  # poll_thread PID: the thread blocked in poll(2) (syscall 7 on x86_64): the bus thread
    for t in /proc/"$1"/task/*; do [ "$(cut -d' ' -f1 "$t/syscall")" = 7 ] && basename "$t"; done | head -1
}
thread_switches() { awk '/ctxt_switches/ {n += $2} END {print n + 0}' /proc/"$1"/task/"$2"/status; }
waits() {        # waits STRACE_SUMMARY: returns from blocking waits
    awk '$NF ~ /^(poll|ppoll|epoll_wait|epoll_pwait|futex|nanosleep|clock_nanosleep)$/ {n += $4} END {print n + 0}' "$1"
}
tick=$(getconf CLK_TCK)
. bench/row.sh

main() {
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; date -u +%FT%TZ; "$BIN" --version; mpv --version | sed -n 1p; playerctl --version; }

dbus-daemon --session --nofork --address="unix:path=$W/bus" >/dev/null 2>&1 & PIDS+=($!)
export DBUS_SESSION_BUS_ADDRESS="unix:path=$W/bus"
for _ in $(seq 50); do [ -S "$W/bus" ] && break; sleep 0.1; done

# A 4-minute tagged track, 6 times per playlist (each entry is a new track to the players).
ffmpeg -hide_banner -loglevel error -y -f lavfi -i sine=frequency=440:duration=240 -metadata title="Bench Tone" \
    -metadata artist="The Sines" -metadata album="Benchmarks" "$W/tone.ogg"
for i in 1 2 3; do
    mpv --no-config --script=/usr/lib/mpv-mpris/mpris.so --no-video --ao=null --pause --speed="$SPEED" --no-terminal \
        --input-ipc-server="$W/mpv$i.sock" "$W/tone.ogg" "$W/tone.ogg" "$W/tone.ogg" "$W/tone.ogg" "$W/tone.ogg" "$W/tone.ogg" >/dev/null 2>&1 & PIDS+=($!)
done
for _ in $(seq 100); do [ "$(playerctl -l 2>/dev/null | grep -c mpv)" = 3 ] && break; sleep 0.1; done
echo "players: $(playerctl -l | tr '\n' ' ')"

python3 tools/testnode/testnode.py --port 0 --port-file "$W/port" --token bench-token >/dev/null 2>&1 & PIDS+=($!)
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
mkdir -p "$W/config/adapters.d"
printf '[Node]\nURL=http://127.0.0.1:%s\n' "$(cat "$W/port")" > "$W/config/node.conf"
(umask 077; echo bench-token > "$W/config/token")
printf '[Adapter]\nType=mpris\n' > "$W/config/adapters.d/music.conf"

"$BIN" watch --config-dir "$W/config" --state-dir "$W/state" 2>"$W/watch.log" & WATCH=$!; PIDS+=($WATCH)
playerctl -a --follow metadata --format '{{playerName}} {{status}} {{title}}' >"$W/playerctl.log" 2>&1 & PCTL=$!; PIDS+=($PCTL)
sleep 3                                                         # both have had their first look

echo "== a. idle: 3 mpv players paused, ${IDLE_S} s untraced, then ${IDLE_S} s under strace"
dbus-monitor --address "$DBUS_SESSION_BUS_ADDRESS" "type='signal'" >"$W/idle-signals.log" 2>/dev/null & MON=$!
BUS_TID=$(poll_thread $WATCH)
b0=$(thread_switches $WATCH "$BUS_TID"); wc0=$(cpu_ticks $WATCH); pc0=$(cpu_ticks $PCTL)
sleep "$IDLE_S"
b1=$(thread_switches $WATCH "$BUS_TID"); wc1=$(cpu_ticks $WATCH); pc1=$(cpu_ticks $PCTL)
kill $MON
echo "signals on the bus: $(grep -c '^signal' "$W/idle-signals.log" || true)"
echo "hearthloom-ingest watch: bus thread $((b1 - b0)) wakeups in ${IDLE_S} s; process CPU $(( (wc1 - wc0) * 1000 / tick )) ms"
echo "playerctl --follow:      process CPU $(( (pc1 - pc0) * 1000 / tick )) ms"
# The whole processes, all threads, at once (a watch with no adapter beside them as the baseline).
mkdir -p "$W/bare/adapters.d"; cp "$W/config/node.conf" "$W/config/token" "$W/bare/"
"$BIN" watch --config-dir "$W/bare" --state-dir "$W/bare-state" 2>/dev/null & BARE=$!; PIDS+=($BARE)
sleep 3
for who in watch:$WATCH playerctl:$PCTL bare:$BARE; do
    timeout -s INT "$IDLE_S" strace -f -c -o "$W/${who%%:*}.strace" -p "${who#*:}" 2>/dev/null &
done
wait_for_traces() { while pgrep -f "strace -f -c -o $W" >/dev/null; do sleep 1; done; }
wait_for_traces
echo "returns from blocking waits in ${IDLE_S} s, whole process (strace -f): hearthloom-ingest watch $(waits "$W/watch.strace"), playerctl --follow $(waits "$W/playerctl.strace"), watch with no adapter at all $(waits "$W/bare.strace")"
kill $BARE

echo "== b. playback: 3 players at ${SPEED}x for ${PLAY_S} s = $((3 * PLAY_S * SPEED)) s of playback"
w0=$(switches $WATCH); p0=$(switches $PCTL); wc0=$(cpu_ticks $WATCH); pc0=$(cpu_ticks $PCTL)
for i in 1 2 3; do echo '{"command": ["set_property", "pause", false]}' | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read()); s.recv(4096)' "$W/mpv$i.sock"; done
sleep "$PLAY_S"
w1=$(switches $WATCH); p1=$(switches $PCTL); wc1=$(cpu_ticks $WATCH); pc1=$(cpu_ticks $PCTL)
hours=$(awk -v s=$((3 * PLAY_S * SPEED)) 'BEGIN {print s / 3600}')
tracks=$(awk -v s=$((3 * PLAY_S * SPEED)) 'BEGIN {printf "%.0f", s / 240}')
sleep 2
plays=$(python3 -c 'import json, sys, urllib.request
items = json.load(urllib.request.urlopen("http://127.0.0.1:%s/_admin/items?endpoint=media" % sys.argv[1]))["items"]
print(len(items))' "$(cat "$W/port")")
for who in "hearthloom-ingest watch:$w0:$w1:$wc0:$wc1" "playerctl --follow:$p0:$p1:$pc0:$pc1"; do
    IFS=: read -r name s0 s1 c0 c1 <<<"$who"
    awk -v n="$name" -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v t="$tick" -v h="$hours" -v k="$tracks" \
        'BEGIN {printf "%-24s %d wakeups (%.1f per track), CPU %.2f s = %.2f CPU s per hour of playback\n", n ":", s, s / k, c / t, c / t / h}'
done
echo "(~$tracks tracks of 240 s played; $plays plays at the node; CPU is counted in ${tick} Hz ticks)"
watch_kb=$(awk '/VmHWM/ {print $2}' "/proc/$WATCH/status")
echo "hearthloom-ingest watch peak RSS: $watch_kb kB"
per_hour() { awk -v c="$1" -v t="$tick" -v h="$hours" 'BEGIN {printf "%.2f", c / t / h}'; }
bench_row "mpris: \`watch\` beside 3 playing mpv, CPU per hour of playback" "$(per_hour $((wc1 - wc0))) s" "playerctl --follow: $(per_hour $((pc1 - pc0))) s" "reported" "-"
bench_row "mpris: that \`watch\`, peak RSS" "$(awk -v k="$watch_kb" 'BEGIN {printf "%.1f MB", k / 1024}')" "-" "<= 64 MB" "$([ "$watch_kb" -le 65536 ] && echo ok || echo MISSED)"
"$BIN" status --config-dir "$W/config" --state-dir "$W/state" | grep -E '^ *music' || true
}

# Not `main | tee`: main must run in this shell, so the EXIT trap sees the PIDs it started.
main > >(tee "$OUT/mpris.txt") 2>&1
