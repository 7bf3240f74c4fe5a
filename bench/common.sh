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
