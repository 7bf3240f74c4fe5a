#!/usr/bin/env bash
# The contacts adapter on a synthetic address book, beside what a user would otherwise run:
#   a. a full parse of 10 000 vCards in 1000 files (mixed 2.1/3.0/4.0 and quirks; page cache warm,
#      fresh state every agent run) vs Python's vobject (pip, in a venv under bench/) on the same files;
#   b. an unchanged re-run over those 1000 files (the whole `hearthloom-ingest run` command).
# Writes bench/out/contacts.txt (and the raw hyperfine files beside it) and prints the same.
# Needs a release build, hyperfine, python3 with venv (pip reaches PyPI once, for vobject).
. "$(dirname "$0")/common.sh"

main() {
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import vobject' 2>/dev/null || "$VENV/bin/pip" install -q 'vobject==0.9.9'
echo "== machine"; { nproc; grep -m1 'model name' /proc/cpuinfo; free -g | awk '/Mem/{print $2" GiB"}'; date -u +%FT%TZ; "$BIN" --version
  "$VENV/bin/python" -c 'import sys, importlib.metadata as m; print("python", sys.version.split()[0], "vobject", m.version("vobject"))'; hyperfine --version; }

# What a user's script would do with vobject: read every card of every file and take the fields
# the agent sends (names, emails, phones, addresses, birthday), skipping cards it cannot read.
# vobject stops reading a file at the first line it cannot parse, so such a file loses its later cards.
cat > "$W/vobject-parse.py" <<'PY'
import pathlib, sys, vobject
cards = failed = 0
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.vcf")):
    try:
        for card in vobject.readComponents(path.read_text(encoding="utf-8", errors="replace")):
            fields = {"fn": card.fn.value if hasattr(card, "fn") else None}
            for name in ("email", "tel", "adr", "bday", "n", "org", "title", "url", "categories"):
                fields[name] = [c.value for c in card.contents.get(name, [])]
            cards += 1
    except vobject.base.ParseError:
        failed += 1
print(f"{cards} cards ({failed} files given up at a line vobject cannot parse)")
PY

echo
echo "== a. full parse: 10 000 vCards in 1000 files (fresh state every agent run; page cache warm)"
t0=$SECONDS
python3 bench/make-vcards.py "$W/tree" --cards 10000 --files 1000
# The same cards with every quoted-printable value on one line: the variant vobject can read.
python3 bench/make-vcards.py "$W/plain" --cards 10000 --files 1000 --no-soft-breaks
echo "tree: $(find "$W/tree" -name '*.vcf' | wc -l) files, $(du -sm "$W/tree" | cut -f1) MiB (and the same without soft line breaks), generated in $((SECONDS - t0)) s"
for t in tree plain; do
    mkdir -p "$W/config-$t/adapters.d"
    printf '[Adapter]\nType=contacts\nPath=%s\n' "$W/$t" > "$W/config-$t/adapters.d/book.conf"
done
echo "check: agent --dry-run prints $("$BIN" run --dry-run --config-dir "$W/config-tree" --state-dir "$W/state" | wc -l) items (tree), $("$BIN" run --dry-run --config-dir "$W/config-plain" --state-dir "$W/state" | wc -l) (plain)"
echo "check: vobject reads $("$VENV/bin/python" "$W/vobject-parse.py" "$W/tree") from the tree, $("$VENV/bin/python" "$W/vobject-parse.py" "$W/plain") from the plain variant"
hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/contacts-full.json" \
    --prepare "rm -rf $W/state" --prepare "rm -rf $W/state" --prepare "rm -rf $W/state" --prepare "true" \
    -n "hearthloom-ingest run (full parse, queued + delivered to the embedded node)" "$BIN run --config-dir $W/config-tree --state-dir $W/state" \
    -n "hearthloom-ingest run --dry-run (full parse, items printed as JSON)" "$BIN run --dry-run --config-dir $W/config-tree --state-dir $W/state" \
    -n "hearthloom-ingest run --dry-run, plain variant" "$BIN run --dry-run --config-dir $W/config-plain --state-dir $W/state" \
    -n "python vobject (readComponents + the same fields), plain variant" "$VENV/bin/python $W/vobject-parse.py $W/plain" 2>&1
rm -rf "$W/state"
/usr/bin/time -v "$BIN" run --config-dir "$W/config-tree" --state-dir "$W/state" >/dev/null 2>"$OUT/contacts-run.time"
python3 - "$OUT/contacts-full.json" "$OUT/contacts-run.time" "$ROWS" <<'PY'
import json, re, sys
run, dry, dry_plain, vob = (x for x in json.load(open(sys.argv[1]))["results"])
rss = int(re.search(r"Maximum resident.*: (\d+)", open(sys.argv[2]).read()).group(1))
f = lambda r: f"{r['mean']:.3f} s ± {r['stddev']:.3f} (min {r['min']:.3f}, user {r['user']:.3f})"
print(f"full parse, 10 000 cards (means): agent run {f(run)}; agent --dry-run {f(dry)}; budget 0.5 s")
print(f"  plain variant: agent --dry-run {f(dry_plain)}, vobject {f(vob)}: vobject / agent = {vob['mean'] / dry_plain['mean']:.1f}x")
print(f"  whole run (fresh state) peak RSS {rss} kB")
ok = lambda good: "ok" if good else "MISSED"
with open(sys.argv[3], "a") as out:
    for row in (("contacts: 10 000 vCards, `run --dry-run`", f"{dry['mean']:.3f} s", "-", "<= 0.5 s", ok(dry["mean"] <= 0.5)),
                ("contacts: `run --dry-run` vs Python (plain variant)", f"{dry_plain['mean']:.3f} s", f"vobject {vob['mean']:.3f} s ({vob['mean'] / dry_plain['mean']:.1f}x)", "reported", "-"),
                ("contacts: whole `run` (fresh state), peak RSS", f"{rss / 1024:.1f} MB, {run['mean']:.3f} s", "-", "<= 64 MB", ok(rss <= 64 * 1024))):
        out.write("\t".join(row) + "\n")
PY

echo
echo "== b. unchanged re-run over the 1000 files (whole command)"
rm -rf "$W/state"
"$BIN" run --config-dir "$W/config-tree" --state-dir "$W/state" >/dev/null 2>&1
hyperfine -N --warmup 3 --runs 30 --export-json "$OUT/contacts-rescan.json" \
    -n "hearthloom-ingest run (unchanged)" "$BIN run --config-dir $W/config-tree --state-dir $W/state" \
    -n "find -newer (what a cron script does)" "find $W/tree -newer $W/state/state.db" 2>&1
python3 - "$OUT/contacts-rescan.json" "$ROWS" <<'PY'
import json, sys
run, find = (x for x in json.load(open(sys.argv[1]))["results"])
print(f"unchanged re-run, 1000 files: agent {run['mean'] * 1000:.1f} ms ± {run['stddev'] * 1000:.1f} (median {run['median'] * 1000:.1f} ms), find {find['mean'] * 1000:.1f} ms; budget 100 ms")
with open(sys.argv[2], "a") as out:
    out.write("\t".join(("contacts: unchanged re-run, 1000 files", f"{run['mean'] * 1000:.1f} ms", f"find -newer {find['mean'] * 1000:.1f} ms", "<= 100 ms", "ok" if run["mean"] <= 0.1 else "MISSED")) + "\n")
PY
bench_rows "$ROWS"
}

main 2>&1 | tee "$OUT/contacts.txt"
