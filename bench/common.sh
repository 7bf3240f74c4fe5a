# Sourced by the bench scripts: the release binary, the output folder, the venv for Python
# references, and a scratch folder (named after the script) removed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=$PWD/.build/release/hearthloom-ingest
OUT=$PWD/bench/out
VENV=$PWD/bench/.venv
mkdir -p "$OUT"
W=$(mktemp -d "/tmp/hl-$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$W"' EXIT

# The machine a figure was taken on, then any tool versions given as commands.
machine() {
    echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version
    for tool in "$@"; do eval "$tool" || true; done     # `--version | head -1` may end in SIGPIPE
}

# health_config FILE: a config folder in $W/config with one health adapter reading FILE.
health_config() {
    mkdir -p "$W/config/adapters.d"
    printf '[Adapter]\nType=health\nPath=%s\n' "$1" > "$W/config/adapters.d/health.conf"
}

. bench/row.sh
# Rows a script's Python summary writes (bench_rows reads them at the end).
ROWS=$W/rows.tsv

# peak_kb CMD...: the peak RSS of one run of CMD in kB, as /usr/bin/time -v reports it.
peak_kb() {
    /usr/bin/time -v "$@" >/dev/null 2>"$W/peak.err"
    grep 'Maximum resident' "$W/peak.err" | awk '{print $NF}'
}

# agent_peaks: the peak RSS in kB of a `run --dry-run`, then of a whole `run`, each from a fresh
# state folder, for the config in $W/config: "DRY RUN".
agent_peaks() {
    local dry
    rm -rf "$W/state"; dry=$(peak_kb "$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state")
    rm -rf "$W/state"; echo "$dry $(peak_kb "$BIN" run --config-dir "$W/config" --state-dir "$W/state")"
}

# measure NAME CMD...: wall seconds and peak RSS (MB) of one run, as "NAME seconds MB".
measure() {
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$W/time.txt" "$@" >/dev/null 2>"$W/err.txt" || { cat "$W/err.txt"; return 1; }
    read -r seconds kb < "$W/time.txt"
    echo "$name $seconds $((kb / 1024))"
}
