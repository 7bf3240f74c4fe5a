#!/usr/bin/env bash
# Prints bench/out/table.tsv (rows added by each bench script's bench_row) as one Markdown table,
# headed by the machine and date the run was taken on.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$PWD/bench/out
[ -s "$OUT/table.tsv" ] || { echo "no figures in $OUT/table.tsv: run make bench" >&2; exit 1; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem/{print $2}') GiB; $(date -u +%F)"
echo
echo "| what | hearthloom-ingest | beside it | goal | |"
echo "| --- | --- | --- | --- | --- |"
awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$OUT/table.tsv"
