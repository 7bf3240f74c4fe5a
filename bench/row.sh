# Sourced by every bench script: rows of the summary table `make bench` prints at the end
# (bench/table.sh reads bench/out/table.tsv).

# bench_row WHAT OURS ANCHOR GOAL VERDICT: one row; OURS and ANCHOR were measured side by side in
# this run. VERDICT: ok|MISSED|-.
bench_row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$OUT/table.tsv"; }

# bench_rows FILE: bench_row for each line of FILE (five tab-separated fields), as a script's
# Python summary writes them.
bench_rows() {
    [ -s "$1" ] || return 0
    while IFS=$'\t' read -r what ours anchor goal verdict; do bench_row "$what" "$ours" "$anchor" "$goal" "$verdict"; done < "$1"
}
