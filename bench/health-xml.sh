#!/usr/bin/env bash
# The health adapter on a generated Apple Health export.xml (bench/make-export-xml.py, 300 MB
# unless XML_MB says otherwise), once per order of its Records (ORDERS, default all three:
# `interleaved` by time across kinds as a merged export has them, `grouped` by kind as the
# Health app writes them, `shuffled`), beside `xmllint --stream --noout` (libxml2's streaming
# reader, which only parses) on the same file:
#   - `run --dry-run` (stream, store in a throwaway copy of the state, roll up, print the items)
#     and a whole `run` with a fresh state folder (also durable, queued, delivered to the
#     embedded local node), hyperfine means;
#   - peak RSS of both (goal: at most 64 MB, every adapter's budget; the issue's health goal is 100 MB);
#   - that the three orders give the same items (the dry runs' output, sorted).
# The goal is both no slower than xmllint. Writes bench/out/health-xml.txt and table rows.
. "$(dirname "$0")/common.sh"

one_order() {   # one_order ORDER
    local order=$1 file=$W/export-$1.xml
    python3 bench/make-export-xml.py "$file" "${XML_MB:-300}" "$order"
    health_config "$file"
    echo
    echo "== $order: $(du -m "$file" | cut -f1) MiB, $(grep -c '<Record' "$file") records"
    cat "$file" > /dev/null     # in the page cache for all
    hyperfine -N --warmup 1 --runs "${RUNS:-3}" --export-json "$OUT/health-xml-$order.json" --prepare "rm -rf $W/state" \
        -n "xmllint --stream --noout" "xmllint --stream --noout $file" \
        -n "hearthloom-ingest run --dry-run" "$BIN run --dry-run --config-dir $W/config --state-dir $W/state" \
        -n "hearthloom-ingest run" "$BIN run --config-dir $W/config --state-dir $W/state" 2>&1
    rm -rf "$W/state"
    /usr/bin/time -v "$BIN" run --dry-run --config-dir "$W/config" --state-dir "$W/state" 2>"$W/dry.err" | sort | md5sum | cut -c1-32 > "$W/items-$order"
    /usr/bin/time -v "$BIN" run -v --config-dir "$W/config" --state-dir "$W/state" 2>"$W/run.err" >/dev/null
    grep -E 'records read|rolled up|stored sorted' "$W/run.err" | sed 's/^[^:]*: //'
    local dry_kb run_kb
    dry_kb=$(grep 'Maximum resident' "$W/dry.err" | awk '{print $NF}'); run_kb=$(grep 'Maximum resident' "$W/run.err" | awk '{print $NF}')
    echo "peak RSS: dry run $dry_kb kB, run $run_kb kB; items (sorted dry-run output) md5 $(cat "$W/items-$order")"
    python3 - "$OUT/health-xml-$order.json" "$file" "$order" "$dry_kb" "$run_kb" >> "$OUT/health-xml-rows.tsv" <<'PY'
import json, os, sys
results, path, order, dry_kb, run_kb = sys.argv[1:]
r = {x["command"]: x["mean"] for x in json.load(open(results))["results"]}
mb = os.path.getsize(path) / 1e6
xl = r["xmllint --stream --noout"]
for name, kb in (("run --dry-run", dry_kb), ("run", run_kb)):
    t = r["hearthloom-ingest " + name]
    ok = t <= xl and int(kb) <= 64 * 1024
    print(f"health: {mb:.0f} MB export.xml, {order} Records, `{name}`\t{t:.2f} s = {t / xl:.2f}× xmllint, {int(kb) / 1024:.0f} MB peak RSS"
          f"\txmllint --stream --noout {xl:.2f} s\t≤ 1× xmllint, ≤ 64 MB (every adapter's budget; the issue's health goal is ≤ 100 MB)\t{'ok' if ok else 'MISSED'}")
PY
    rm -rf "$file" "$W/state"
}

main() {
machine "xmllint --version 2>&1 | head -1"
rm -f "$OUT/health-xml-rows.tsv"
for order in ${ORDERS:-interleaved grouped shuffled}; do one_order "$order"; done
echo
cut -f1,2,3,5 "$OUT/health-xml-rows.tsv" | tr '\t' ' '
echo "same items in every order: $([ "$(cat "$W"/items-* | sort -u | wc -l)" = 1 ] && echo yes || echo NO)"
while IFS=$'\t' read -r what ours anchor goal verdict; do bench_row "$what" "$ours" "$anchor" "$goal" "$verdict"; done < "$OUT/health-xml-rows.tsv"
}

main 2>&1 | tee "$OUT/health-xml.txt"
