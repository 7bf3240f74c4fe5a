#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, FUZZ_JOBS at a time, and prints
# one line per target: `fuzz NAME: N runs, K crashes`. Exits 1 when any target crashed, hung
# or did not run.
#
# Usage: fuzz/run.sh SECONDS [TARGET...]      (after fuzz/build.sh)
# Each target's seeds are fuzz/corpus/NAME/ (left untouched); what libFuzzer adds goes to
# .build/fuzz/runs/NAME/corpus, which later runs start from. A crashing input is kept as
# .build/fuzz/runs/NAME/artifacts/crash-*; replay it with
#   SWIFT_BACKTRACE=enable=no HEARTHLOOM_FUZZ_TARGET=NAME .build/fuzz/hearthloom-fuzz FILE
# Coverage (libFuzzer's `cov:`, edges reached) goes with the runs into .build/fuzz/summary.tsv.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}; shift || true
jobs=${FUZZ_JOBS:-2}
binary="$root/.build/fuzz/hearthloom-fuzz"
[ -x "$binary" ] || { echo "fuzz: $binary is missing; run fuzz/build.sh first" >&2; exit 1; }
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(ls "$root/fuzz/corpus"); fi
# Readers that take a path get each input as a file: on tmpfs that is 5x the runs of a disk.
scratch_base=$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")
scratch=$(mktemp -d "$scratch_base/hearthloom-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Fuzzes one target; writes "name<TAB>runs<TAB>crashes<TAB>cov" to its result file.
fuzz_target() {
    local name=$1 dir="$root/.build/fuzz/runs/$1"
    rm -rf "$dir/artifacts" && mkdir -p "$dir/corpus" "$dir/artifacts"
    # Inputs that once crashed this target (fixtures/fuzz/NAME) are seeds too: fixed stays fixed.
    local seeds=("$root/fuzz/corpus/$name")
    [ -d "$root/fixtures/fuzz/$name" ] && seeds+=("$root/fixtures/fuzz/$name")
    # A hang (10 s on one input) counts as a crash: a parser must not stall the agent. Swift's
    # own backtracer is off so that libFuzzer's handler reports a trap and keeps the input.
    SWIFT_BACKTRACE=enable=no HEARTHLOOM_FUZZ_TARGET=$name HEARTHLOOM_FUZZ_SCRATCH=$scratch \
        "$binary" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/" "$dir/corpus" "${seeds[@]}" >"$dir/log" 2>&1 || true
    local runs cov crashes
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    cov=$(grep -ao 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
    crashes=$(find "$dir/artifacts" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\n' "$name" "${runs:-0}" "$crashes" "${cov:-0}" >"$dir/result"
}

for name in "${targets[@]}"; do
    [ -d "$root/fuzz/corpus/$name" ] || { echo "fuzz: no seed corpus fuzz/corpus/$name" >&2; exit 1; }
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_target "$name" &
done
wait

status=0
summary="$root/.build/fuzz/summary.tsv"
printf 'target\truns\tcrashes\tcov\tseconds\n' >"$summary"
for name in "${targets[@]}"; do
    IFS=$'\t' read -r _ runs crashes cov <"$root/.build/fuzz/runs/$name/result"
    echo "fuzz $name: $runs runs, $crashes crashes"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$runs" "$crashes" "$cov" "$seconds" >>"$summary"
    if [ "$crashes" -gt 0 ]; then
        status=1
        find "$root/.build/fuzz/runs/$name/artifacts" -type f -printf '  %p\n'
    elif [ "$runs" -eq 0 ]; then
        status=1
        echo "  did not run; see .build/fuzz/runs/$name/log"
    fi
done
exit $status
