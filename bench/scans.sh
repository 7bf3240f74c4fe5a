#!/usr/bin/env bash
# The scans adapter's OCR throughput, beside what a user would otherwise run on the same pages:
#   12 pages of 30 lines of text (300 dpi, 1.4 x 1.8 kpx, 8-bit grey PNGs), as a folder of PNGs and
#   as one image-only PDF (img2pdf). Each is timed from a fresh state (nothing known), twice:
#   - hearthloom-ingest run --dry-run over the PNG folder, and over the PDF (poppler renders at 300 dpi);
#   - the tesseract CLI over the PNGs, one after the other (as a loop in a shell), with its default
#     OpenMP threads and with OMP_THREAD_LIMIT=1, and one process per core (xargs -P, OMP_THREAD_LIMIT=1);
#   - ocrmypdf --jobs <cores> on the PDF (it runs tesseract per page and writes a new PDF).
# Peak RSS is judged per engine (issue 29): at most 64 MB plus, for each engine beyond the first,
# what one tesseract process needs for the same page (measured here on that page). Then 4 A4 pages
# at 300 dpi, as PNGs and as one PDF: the PDF within 1.2 x the PNGs' time, both within that budget.
# Writes bench/out/scans.txt (and scans.json, hyperfine's figures) and prints the same.
# Needs a release build, hyperfine, imagemagick, img2pdf, tesseract-ocr, ocrmypdf (make deps).
. "$(dirname "$0")/common.sh"

PAGES=12
main() {
machine "tesseract --version 2>&1 | head -1" "ocrmypdf --version"
mkdir -p "$W/pngs" "$W/pdf" "$W/config-png/adapters.d" "$W/config-pdf/adapters.d"
python3 - "$W" "$PAGES" <<'PY'
import random, sys
words = ("the of and to in is was for on that with as by at from his her an which be this are have it not or had "
         "were but one all their there been has more when who will no if out so said what up its about into than "
         "them can only other new some could time these two may then do first any my now such like our over").split()
random.seed(7)
for p in range(int(sys.argv[2])):
    lines = [" ".join(random.choice(words) for _ in range(9)).capitalize() for _ in range(30)]
    open(f"{sys.argv[1]}/page-{p:02d}.txt", "w").write("\n".join(lines))
PY
for t in "$W"/page-*.txt; do
    convert -density 300 -units PixelsPerInch -background white -fill black -font DejaVu-Serif -pointsize 10 \
        label:"$(cat "$t")" -bordercolor white -border 150 -colorspace Gray -depth 8 "$W/pngs/$(basename "$t" .txt).png"
done
img2pdf -o "$W/pdf/pages.pdf" "$W"/pngs/*.png
printf '[Adapter]\nType=scans\nPath=%s\n' "$W/pngs" > "$W/config-png/adapters.d/scans.conf"
printf '[Adapter]\nType=scans\nPath=%s\n' "$W/pdf" > "$W/config-pdf/adapters.d/scans.conf"
cores=$(nproc)

echo
echo "== OCR of $PAGES pages ($(identify -format '%wx%h' "$W/pngs/page-00.png") px, 300 dpi), fresh state each run"
"$BIN" run --dry-run --config-dir "$W/config-png" --state-dir "$W/state-check" > "$W/ours.jsonl"
for f in "$W"/pngs/*.png; do tesseract "$f" stdout 2>/dev/null; done > "$W/cli.txt"
python3 - "$W/ours.jsonl" "$W/cli.txt" <<'PY'
import json, sys
ours = " ".join(json.loads(l)["item"]["text"] for l in open(sys.argv[1])).lower().split()
cli = open(sys.argv[2]).read().lower().split()
have = set(ours)
print(f"check: the agent's text holds {100 * sum(w in have for w in cli) / len(cli):.1f} % of the {len(cli)} words the tesseract CLI reads")
PY
hyperfine -N --runs 2 --export-json "$OUT/scans.json" --prepare "rm -rf $W/state" \
    -n "hearthloom-ingest run --dry-run, $PAGES PNGs" "$BIN run --dry-run --config-dir $W/config-png --state-dir $W/state" \
    -n "hearthloom-ingest run --dry-run, one $PAGES-page PDF" "$BIN run --dry-run --config-dir $W/config-pdf --state-dir $W/state" \
    -n "tesseract CLI, one page after another (default OpenMP threads)" "bash -c 'for f in $W/pngs/*.png; do tesseract \$f stdout >/dev/null 2>&1; done'" \
    -n "tesseract CLI, one page after another, OMP_THREAD_LIMIT=1" "bash -c 'for f in $W/pngs/*.png; do OMP_THREAD_LIMIT=1 tesseract \$f stdout >/dev/null 2>&1; done'" \
    -n "tesseract CLI, xargs -P $cores, OMP_THREAD_LIMIT=1" "bash -c 'ls $W/pngs/*.png | OMP_THREAD_LIMIT=1 xargs -P $cores -I{} tesseract {} stdout >/dev/null 2>&1'" \
    -n "ocrmypdf --jobs $cores" "ocrmypdf -q --jobs $cores --output-type pdf --optimize 0 -l eng $W/pdf/pages.pdf $W/ocrmypdf-out.pdf" 2>&1
python3 - "$OUT/scans.json" "$PAGES" <<'PY' | tee "$W/summary.txt"
import json, sys
pages = int(sys.argv[2])
results = json.load(open(sys.argv[1]))["results"]
for r in results:
    print(f"{pages / r['mean']:5.2f} pages/s  ({r['mean']:.1f} s mean, min {r['min']:.1f} s)  {r['command']}")
ours, ours_pdf, cli, cli1, par, ocrmypdf = (pages / r["mean"] for r in results)
print(f"ROW\t{ours:.2f} pages/s (PDF {ours_pdf:.2f})\ttesseract CLI {cli:.2f} pages/s ({cli1:.2f} OMP=1, {par:.2f} xargs -P); ocrmypdf {ocrmypdf:.2f}\t"
      f">= the best tesseract and ocrmypdf row\t{'ok' if ours >= max(cli, cli1, par, ocrmypdf) else 'MISSED'}")
PY
IFS=$'\t' read -r _ ours anchor goal verdict < <(grep '^ROW' "$W/summary.txt")
bench_row "scans: OCR of $PAGES text pages (300 dpi), $cores cores" "$ours" "$anchor" "$goal" "$verdict"

echo
echo "== peak RSS of a whole run (fresh state: OCR, queue, delivery to the embedded node), beside one tesseract CLI process"
echo "   with one engine per core (the default), and with Jobs=1 (one engine)"
local png_kb pdf_kb png1_kb pdf1_kb cli_kb
png_kb=$(peak_kb "$BIN" run --config-dir "$W/config-png" --state-dir "$W/state-rss-png")
pdf_kb=$(peak_kb "$BIN" run --config-dir "$W/config-pdf" --state-dir "$W/state-rss-pdf")
for kind in png pdf; do
    mkdir -p "$W/config-$kind-1/adapters.d"
    sed '$a Jobs=1' "$W/config-$kind/adapters.d/scans.conf" > "$W/config-$kind-1/adapters.d/scans.conf"
done
png1_kb=$(peak_kb "$BIN" run --config-dir "$W/config-png-1" --state-dir "$W/state-rss-png-1")
pdf1_kb=$(peak_kb "$BIN" run --config-dir "$W/config-pdf-1" --state-dir "$W/state-rss-pdf-1")
cli_kb=$(peak_kb tesseract "$W/pngs/page-00.png" stdout)
local budget=$((65536 + (cores - 1) * cli_kb))
echo "agent: $PAGES PNGs $png_kb kB, one $PAGES-page PDF $pdf_kb kB; Jobs=1: $png1_kb kB, $pdf1_kb kB; tesseract CLI, one page: $cli_kb kB"
bench_row "scans: whole \`run\` of the $PAGES pages, peak RSS" \
    "PNGs $((png_kb / 1024)) MB, PDF $((pdf_kb / 1024)) MB ($cores engines); Jobs=1: $((png1_kb / 1024)) MB, $((pdf1_kb / 1024)) MB" \
    "tesseract CLI, one page, one process: $((cli_kb / 1024)) MB" \
    "<= 64 MB + $((cores - 1)) x $((cli_kb / 1024)) MB = $((budget / 1024)) MB; Jobs=1 <= 64 MB" \
    "$(within "$budget" "$png_kb" "$pdf_kb" && within 65536 "$png1_kb" "$pdf1_kb" && echo ok || echo MISSED)"
a4_pages "$cores"
turned_pages
}

# within LIMIT_KB KB...: whether every KB is at most LIMIT_KB.
within() {
    local limit=$1 kb; shift
    for kb in "$@"; do [ "$kb" -le "$limit" ] || return 1; done
}

# What a scanner's usual output costs: 4 full A4 pages at 300 dpi (2480 x 3508 px, 45 lines of
# text each), as PNGs and as one image-only PDF: time (hyperfine, 2 runs each) and peak RSS, with
# one engine per core and with Jobs=1, beside one tesseract process reading one A4 page.
a4_pages() {
    echo
    echo "== 4 A4 pages at 300 dpi: time and peak RSS of a whole \`run --dry-run\` (fresh state)"
    mkdir -p "$W/a4/png" "$W/a4/pdf"
    for p in 0 1 2 3; do
        convert -size 2480x3508 xc:white -density 300 -units PixelsPerInch -font DejaVu-Serif -pointsize 11 -fill black \
            -annotate +200+250 "$(sed -n "$((p * 6 + 1)),$((p * 6 + 45))p" "$W"/page-*.txt | head -45)" \
            -colorspace Gray -depth 8 "$W/a4/png/page-$p.png"
    done
    img2pdf -o "$W/a4/pdf/pages.pdf" "$W"/a4/png/*.png
    for kind in png pdf; do
        for jobs in 0 1; do
            mkdir -p "$W/a4/c-$kind-$jobs/adapters.d"
            printf '[Adapter]\nType=scans\nPath=%s\nJobs=%s\n' "$W/a4/$kind" "$jobs" > "$W/a4/c-$kind-$jobs/adapters.d/scans.conf"
        done
    done
    hyperfine -N --runs 2 --export-json "$OUT/scans-a4.json" --prepare "rm -rf $W/a4/state" \
        -n "hearthloom-ingest run --dry-run, 4 A4 PNGs" "$BIN run --dry-run --config-dir $W/a4/c-png-0 --state-dir $W/a4/state" \
        -n "hearthloom-ingest run --dry-run, one 4-page A4 PDF" "$BIN run --dry-run --config-dir $W/a4/c-pdf-0 --state-dir $W/a4/state" 2>&1
    local png_s pdf_s
    read -r png_s pdf_s < <(python3 -c 'import json, sys; print(*(r["mean"] for r in json.load(open(sys.argv[1]))["results"]))' "$OUT/scans-a4.json")
    local ratio=$(awk -v a="$pdf_s" -v b="$png_s" 'BEGIN { printf "%.2f", a / b }')
    bench_row "scans: 4 A4 pages (300 dpi), one PDF vs the same pages as PNGs, time of a whole \`run --dry-run\`" \
        "PDF $(printf '%.1f' "$pdf_s") s ($ratio x)" "PNGs $(printf '%.1f' "$png_s") s" "<= 1.2 x" \
        "$(awk -v r="$ratio" 'BEGIN { exit !(r <= 1.2) }' && echo ok || echo MISSED)"
    local kb line="" cli_kb all=() one=()
    cli_kb=$(peak_kb tesseract "$W/a4/png/page-0.png" stdout)
    for kind in png pdf; do
        for jobs in 0 1; do
            kb=$(peak_kb "$BIN" run --dry-run --config-dir "$W/a4/c-$kind-$jobs" --state-dir "$W/a4/state-$kind-$jobs")
            echo "$kind, $([ "$jobs" = 0 ] && echo "$1 engines" || echo "Jobs=1"): $kb kB"
            line+="${line:+; }$(echo "$kind" | tr a-z A-Z) $([ "$jobs" = 0 ] && echo "$1 engines" || echo "Jobs=1") $((kb / 1024)) MB"
            if [ "$jobs" = 0 ]; then all+=("$kb"); else one+=("$kb"); fi
        done
    done
    local budget=$((65536 + ($1 - 1) * cli_kb))
    bench_row "scans: 4 A4 pages (300 dpi), whole \`run --dry-run\`, peak RSS" "$line" \
        "tesseract CLI, one A4 page: $((cli_kb / 1024)) MB" "<= 64 MB + $(($1 - 1)) x $((cli_kb / 1024)) MB = $((budget / 1024)) MB; Jobs=1 <= 64 MB" \
        "$(within "$budget" "${all[@]}" && within 65536 "${one[@]}" && echo ok || echo MISSED)"
}

# Pages scanned upside down: the 12 pages turned by 180 degrees (PNGs, no orientation of their
# own) cost a reading, orientation detection and a second reading each. Reported beside the upright run.
turned_pages() {
    echo
    echo "== the $PAGES pages turned upside down: time of a whole \`run --dry-run\` and the words read"
    mkdir -p "$W/turned/png" "$W/turned/c/adapters.d"
    for f in "$W"/pngs/*.png; do convert "$f" -rotate 180 "$W/turned/png/$(basename "$f")"; done
    printf '[Adapter]\nType=scans\nPath=%s\n' "$W/turned/png" > "$W/turned/c/adapters.d/scans.conf"
    local start=$(date +%s.%N)
    "$BIN" run --dry-run --config-dir "$W/turned/c" --state-dir "$W/turned/state" > "$W/turned.jsonl"
    local secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    local share=$(python3 - "$W/turned.jsonl" "$W/cli.txt" <<'PY'
import json, sys
ours = set(" ".join(json.loads(l)["item"]["text"] for l in open(sys.argv[1])).lower().split())
cli = open(sys.argv[2]).read().lower().split()
print(f"{100 * sum(w in ours for w in cli) / len(cli):.1f}")
PY
)
    echo "turned: $secs s, $share % of the words the tesseract CLI reads on the upright pages"
    bench_row "scans: the $PAGES pages upside down, whole \`run --dry-run\`" "$secs s, $share % of the upright pages' words" \
        "the upright pages (rows above)" "reported" "-"
}

main 2>&1 | grep -v '^ROW' | tee "$OUT/scans.txt"
