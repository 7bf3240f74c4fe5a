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
