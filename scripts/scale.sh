#!/usr/bin/env bash
# Builds a family table by table, each under /usr/bin/time -v, and prints per table: entries per
# side, legal positions, wall and CPU seconds, peak RSS, peak --tmp bytes (sampled every 2 s),
# bytes the process had the kernel read and write (time's file system inputs and outputs), the
# store's traffic (`build --verbose`), bytes written per legal position, and the longest win of
# each order and side; then the family's totals, and what `xqtb plan` estimated for each
# table (time, --tmp, table size, memory) beside what its build took.
#
# Resumable: every run of a table is a row of DIR/scale/runs.tsv. Run the script again with the
# same arguments after a kill: present tables are skipped, a killed table resumes from its
# checkpoint under TMP, and its runs are summed (the issue's "resumed builds count their runs'
# sum"; a run killed with the script is added at the next run, its wall time from its log). The
# report is printed from runs.tsv at the end of each run (REPORT_ONLY=1: only that).
#
# Usage: [MEMORY=1G] [THREADS=2] [METRIC=dtc|dtm|both] [RULES=asian] [XQTB=path]
#        scripts/scale.sh MATERIAL DIR TMP
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: scripts/scale.sh MATERIAL DIR TMP" >&2; exit 2; }
mat="$1"; dir="$(realpath -m "$2")"; tmp="$(realpath -m "$3")"
memory="${MEMORY:-1G}"; threads="${THREADS:-2}"; metric="${METRIC:-dtc}"; rules="${RULES:-asian}"
if [ -z "${XQTB:-}" ]; then
  cargo build --release --locked --quiet
  XQTB="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
fi
log="$dir/scale"
mkdir -p "$log" "$tmp"
runs="$log/runs.tsv"
[ -f "$runs" ] || printf 'table\trun\tcomplete\twall_s\tcpu_s\tpeak_rss_kib\tpeak_tmp_bytes\tread_bytes\twritten_bytes\tstore_line\n' >"$runs"
common=(--dir "$dir" --memory "$memory" --threads "$threads" --metric "$metric" --rules "$rules")
# DTM: each build leaves its derived values for the builds above (found again from the moves
# otherwise, minutes for a large table); removed when the family is done.
keep=()
[ "$metric" = dtc ] || keep=(--keep-derived)

# A run killed together with this script (the end of a session) left its start time and logs
# but no row: its row is added from them, the wall time up to its log's last line, the CPU time
# unknown (empty).
record_lost_runs() {
  local t="$1" f k start end
  for f in "$log/$t".*.start; do
    [ -e "$f" ] || continue
    k=${f%.start}; k=${k##*.}
    [ -n "$(awk -F'\t' -v t="$t" -v r="$((k + 1))" '$1 == t && $2 == r' "$runs")" ] && continue
    start=$(cat "$f"); end=$(stat -c %Y "$log/$t.$k.err")
    printf '%s\t%s\t0\t%s\t\t\t\t\t\t\n' "$t" "$((k + 1))" "$((end - start))" >>"$runs"
    echo "scale: $t run $((k + 1)) was killed with this script: $((end - start)) s of wall recorded" >&2
  done
}

build_one() {
  local t="$1" k out time sampler peak pid
  record_lost_runs "$t"
  k=$(awk -F'\t' -v t="$t" '$1 == t' "$runs" | wc -l)
  out="$log/$t.$k"
  echo "scale: building $t (run $((k + 1)))" >&2
  date +%s >"$out.start"
  /usr/bin/time -v -o "$out.time" "$XQTB" build "$t" "${common[@]}" "${keep[@]}" --tmp "$tmp" --verbose \
    >"$out.out" 2>"$out.err" &
  pid=$!
  peak=0
  while kill -0 "$pid" 2>/dev/null; do
    # du fails when a file goes while it counts: then its total (one line) or nothing.
    b=$({ du -sb "$tmp" 2>/dev/null || true; } | cut -f1 | head -1)
    [ "${b:-0}" -gt "$peak" ] && peak=$b
    sleep 2
  done
  local rc=0; wait "$pid" || rc=$?
  local field
  field() { grep -F "$1" "$out.time" | sed 's/.*: //' | tail -1; }
  local wall cpu rss fin fout
  wall=$(field "Elapsed (wall clock)" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  cpu=$(awk -v u="$(field 'User time')" -v s="$(field 'System time')" 'BEGIN { print u + s }')
  rss=$(field "Maximum resident set size")
  fin=$(field "File system inputs"); fout=$(field "File system outputs")
  local store
  store=$(grep -E "^$t +store" "$out.out" | sed 's/^[^ ]* *store *//' | tail -1 || true)
  local complete=0
  [ "$rc" -eq 0 ] && complete=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$((k + 1))" "$complete" "$wall" "$cpu" \
    "$rss" "$peak" "$((fin * 512))" "$((fout * 512))" "${store:-}" >>"$runs"
  [ "$rc" -eq 0 ] || { echo "scale: $t failed (exit $rc): see $out.err" >&2; tail -3 "$out.err" >&2; exit "$rc"; }
}

if [ -z "${REPORT_ONLY:-}" ]; then
  # The tables in build order, those not present yet (one build per material: `--metric both`
  # builds its two files).
  todo=$("$XQTB" plan "$mat" "${common[@]}" --json | python3 -c '
import json, sys
seen = []
for r in json.load(sys.stdin):
    if not r["present"] and r["material"] not in seen:
        seen.append(r["material"])
print(" ".join(seen))')
  for t in $todo; do build_one "$t"; done
  rm -f "$tmp"/*.xqdtm-derived
fi

# The report: runs summed per table, with each table's stats.
"$XQTB" plan "$mat" "${common[@]}" --json >"$log/plan.json"
python3 - "$runs" "$XQTB" "$dir" "$metric" "$log/plan.json" <<'PY'
import csv, json, os, subprocess, sys
runs, xq, d, metric, plan = sys.argv[1:]
planned = {}
for r in json.load(open(plan)):
    planned.setdefault(r["material"], r)
entries_of = {t: r["entries"] for t, r in planned.items()}
rows = {}
order = []
for r in csv.DictReader(open(runs), delimiter="\t"):
    t = r["table"]
    if t not in rows:
        order.append(t)
        rows[t] = dict(runs=0, wall=0.0, cpu=0.0, rss=0, tmp=0, read=0, written=0, store="", complete=0)
    x = rows[t]
    x["runs"] += 1
    x["wall"] += float(r["wall_s"] or 0); x["cpu"] += float(r["cpu_s"] or 0)
    x["rss"] = max(x["rss"], int(r["peak_rss_kib"] or 0)); x["tmp"] = max(x["tmp"], int(r["peak_tmp_bytes"] or 0))
    x["read"] += int(r["read_bytes"] or 0); x["written"] += int(r["written_bytes"] or 0)
    x["store"] = r["store_line"] or x["store"]; x["complete"] = max(x["complete"], int(r["complete"]))
metrics = ["dtc", "dtm"] if metric == "both" else [metric]
def stats(t):
    out = []
    for m in metrics:
        p = subprocess.run([xq, "stats", "--dir", d, t, "--metric", m, "--json", "--no-pawn-ranks"], capture_output=True, text=True)
        if p.returncode == 0:
            out.append(json.loads(p.stdout))
    return out
gb = lambda n: f"{n / 1e9:.2f}"
print(f"{'table':14} {'runs':>4} {'entries':>11} {'legal':>12} {'wall s':>8} {'CPU s':>8} {'CPU%':>5} "
      f"{'RSS MiB':>8} {'tmp GB':>7} {'read GB':>8} {'wrote GB':>8} {'B/legal':>7}  longest wins (order: plies)")
tot = dict(wall=0.0, cpu=0.0, rss=0, tmp=0, read=0, written=0, legal=0)
for t in order:
    x = rows[t]
    st = stats(t) if x["complete"] else []
    legal = sum(s["sides"][c]["legal"] for s in st[:1] for c in ("w", "b"))
    entries = entries_of.get(t, "")
    longest = []
    for s in st:
        for c in ("w", "b"):
            wins = s["sides"][c].get("longest_wins") or []
            if wins:
                longest.append(f"{c}:" + ",".join(f"{w['order']}:{w['distance']}" for w in wins))
    bpl = f"{x['written'] / legal:.0f}" if legal else "-"
    cpu_pct = 100 * x["cpu"] / x["wall"] if x["wall"] else 0
    print(f"{t:14} {x['runs']:>4} {entries!s:>11} {legal:>12} {x['wall']:>8.1f} {x['cpu']:>8.1f} {cpu_pct:>5.0f} "
          f"{x['rss'] / 1024:>8.0f} {gb(x['tmp']):>7} {gb(x['read']):>8} {gb(x['written']):>8} {bpl:>7}  {' '.join(longest)}")
    if x["store"]:
        print(f"{'':14} store: {x['store']}")
    for k in ("wall", "cpu", "read", "written", "legal"):
        tot[k] += x[k] if k != "legal" else legal
    tot["rss"] = max(tot["rss"], x["rss"]); tot["tmp"] = max(tot["tmp"], x["tmp"])
bpl = f"{tot['written'] / tot['legal']:.0f}" if tot["legal"] else "-"
# What `xqtb plan` said before the build, against what the build took (its first metric's file).
print(f"\n{'plan / build':14} {'est s':>8} {'wall s':>8} {'est tmp GB':>10} {'tmp GB':>7} "
      f"{'est out MB':>10} {'out MB':>8} {'plan MiB':>8} {'RSS MiB':>8}")
for t in order:
    x, p = rows[t], planned.get(t)
    path = os.path.join(d, t + ".xqtb")
    if not (p and x["complete"] and os.path.exists(path)):
        continue
    print(f"{t:14} {p['seconds']:>8.1f} {x['wall']:>8.1f} {gb(p['tmp_bytes']):>10} {gb(x['tmp']):>7} "
          f"{p['output_bytes'] / 1e6:>10.1f} {os.path.getsize(path) / 1e6:>8.1f} "
          f"{p['memory_bytes'] / 2**20:>8.0f} {x['rss'] / 1024:>8.0f}")
print(f"family: {len(order)} tables built, wall {tot['wall']:.0f} s ({tot['wall'] / 60:.1f} min), CPU {tot['cpu']:.0f} s, "
      f"peak RSS {tot['rss'] / 1024:.0f} MiB, peak --tmp {gb(tot['tmp'])} GB, read {gb(tot['read'])} GB, "
      f"wrote {gb(tot['written'])} GB = {bpl} B per legal position")
PY
