#!/usr/bin/env bash
# Installs the built package as a user would (apt-get install ./….deb), then checks that it is
# whole: lintian has no errors, the installed user units verify cleanly, `doctor` passes on the
# demo config, `run` delivers to the test node exactly what a dry run says it would, and
# `apt-get remove` leaves the user's config and state alone. It changes the machine (root, /usr):
# CI runs it on a fresh one (.ci/run); on your own, run `make deb-test` only where that is fine.
# usage: test-deb.sh PATH.deb
set -euo pipefail
deb=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
node_pid=
cleanup() { [ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
checks=0
pass() { checks=$((checks + 1)); echo "test-deb: ok: $*"; }

lintian --fail-on error "$deb" > "$work/lintian" 2>&1 \
    || { cat "$work/lintian"; fail "lintian reports errors"; }
pass "lintian: no errors ($(grep -c '^W:' "$work/lintian" || true) warnings)"

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install"; }
version=$(dpkg-deb -f "$deb" Version)
[ "$(/usr/bin/hearthloom-ingest --version)" = "hearthloom-ingest $version" ] || fail "--version is not the package's $version"
zcat /usr/share/man/man1/hearthloom-ingest.1.gz | grep -q "hearthloom\\\\-ingest $version" || fail "the man page does not carry $version"
for f in /usr/lib/systemd/user/hearthloom-ingest.service /usr/lib/systemd/user/hearthloom-ingest.timer \
         /usr/lib/systemd/user/hearthloom-ingest-watch.service /usr/share/bash-completion/completions/hearthloom-ingest \
         /usr/share/zsh/vendor-completions/_hearthloom-ingest /usr/share/fish/vendor_completions.d/hearthloom-ingest.fish \
         /usr/share/doc/hearthloom-ingest/README.md.gz /usr/share/doc/hearthloom-ingest/adapters.d/photos.conf; do
    [ -f "$f" ] || fail "$f is not installed"
done
pass "installed $version: binary, man page and --version agree; units, completions, README, adapters.d examples in place"

verify=$(cd "$work" && XDG_RUNTIME_DIR=$work systemd-analyze --user verify /usr/lib/systemd/user/hearthloom-ingest*.service \
    /usr/lib/systemd/user/hearthloom-ingest.timer 2>&1) || fail "systemd-analyze --user verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze --user verify printed: $verify"
pass "systemd-analyze --user verify prints nothing"

# A user's home: the demo config (its paths are relative to each .conf), paired with the test node.
export HOME=$work/home
config=$HOME/.config/hearthloom state=$HOME/.local/state/hearthloom
mkdir -p "$HOME/.config" "$state"
cp -r "$repo/fixtures/demo" "$config"
token=deb-test-$RANDOM$RANDOM
python3 "$repo/tools/testnode/testnode.py" --port 0 --port-file "$work/port" --token "$token" > "$work/node.log" 2>&1 &
node_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "the test node did not start: $(cat "$work/node.log")"
port=$(cat "$work/port")
printf '%s\n' "$token" > "$config/token" && chmod 600 "$config/token"
printf '[Node]\nURL=http://127.0.0.1:%s\n' "$port" > "$config/node.conf"

hearthloom-ingest doctor > "$work/doctor" 2>&1 || { cat "$work/doctor"; fail "doctor on the demo config"; }
pass "doctor passes on the demo config ($(grep -c '^ok' "$work/doctor" || true) ok, $(grep -c '^warn' "$work/doctor" || true) warn)"

hearthloom-ingest run --dry-run --state-dir "$work/dry-state" > "$work/dry.jsonl"
expected=$(python3 -c 'import json,sys,collections; c=collections.Counter(json.loads(l)["endpoint"] for l in open(sys.argv[1])); print(json.dumps(dict(sorted(c.items()))))' "$work/dry.jsonl")
hearthloom-ingest run > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "run to the test node"; }
got=$(curl -s "http://127.0.0.1:$port/_admin/items" | python3 -c 'import json,sys,collections; c=collections.Counter(i["endpoint"] for i in json.load(sys.stdin)["items"]); print(json.dumps(dict(sorted(c.items()))))')
[ "$expected" = "$got" ] && [ "$got" != "{}" ] || fail "the node holds $got; the dry run said $expected"
pass "run delivered to the test node what the dry run listed: $got"

before=$(cd "$HOME" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq hearthloom-ingest > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get remove"; }
[ ! -e /usr/bin/hearthloom-ingest ] || fail "/usr/bin/hearthloom-ingest is still there after remove"
after=$(cd "$HOME" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
[ "$before" = "$after" ] || fail "apt-get remove changed the user's config or state"
pass "apt-get remove takes the package and leaves the user's config and state as they were"
echo "$checks passed, 0 failed"
