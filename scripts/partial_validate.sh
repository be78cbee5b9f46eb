#!/usr/bin/env bash
# Validates partial tables as Björnsson, Schaeffer and Sturtevant did ("Partial Information
# Endgame Databases", 2005): builds each table with supporting tables withheld, checks position
# by position that every bound holds the complete table's value (and every exact value equals
# it), and prints the resolved shares and the cost of the partial build against the full one.
#
# Per table: the complete family is built first (untimed); then, each under /usr/bin/time -v,
# the table alone again (full), the withheld tables alone again (what the partial build spares),
# and `build --partial --without` (its two builds); then `stats --partial-report --json`, which
# probes every legal position of both builds and of the complete table.
#
# With METRIC=both (or dtm) the DTM tables are built too and each partial DTM table is checked
# against the complete DTM table (its exact distances to mate: `dtm_exact%`).
#
# Usage: [XQTB=path] [THREADS=2] [MEMORY=4G] [METRIC=dtc|dtm|both]
#        scripts/partial_validate.sh DIR [M:W1,W2 ...]
# Default tables: six under the Asian rules, four where both sides attack, three with pawns.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/partial_validate.sh DIR [M:W1,W2 ...]" >&2; exit 2; }
dir="$(realpath -m "$1")"; shift
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(KRKNN:KRKN KRNKR:KRNK KRPKR:KRKR KRKPP:KRKP KCPKAA:KCKAA KNPKAB:KNKAB)
threads="${THREADS:-2}"; memory="${MEMORY:-4G}"; metric="${METRIC:-dtc}"
if [ -z "${XQTB:-}" ]; then
  cargo build --release --locked --quiet
  XQTB="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
fi
mkdir -p "$dir"
log="$dir/validate"
mkdir -p "$log"
common=(--threads "$threads" --memory "$memory" --metric "$metric" --quiet)

# Runs `xqtb build ARGS...` under GNU time; prints "wall_s rss_kib".
timed() {
  local out
  out=$(mktemp "$log/time.XXXXXX")
  /usr/bin/time -v -o "$out" "$XQTB" build "$@" "${common[@]}" >/dev/null
  python3 - "$out" <<'PY'
import sys
f = dict(l.strip().split(": ", 1) for l in open(sys.argv[1]) if ": " in l)
w = f["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
s = 0.0
for p in w:
    s = s * 60 + float(p)
print(f"{s:.2f} {f['Maximum resident set size (kbytes)']}")
PY
  rm -f "$out"
}

printf '%-8s %-12s %12s %9s %9s %9s %8s %8s %9s %8s %8s %8s %8s %s\n' table without positions exact% \
  one-sided% unknown% resolved outside full_s withheld partial_s full_MiB part_MiB dtm_exact%
for spec in "${specs[@]}"; do
  m="${spec%%:*}"; without="${spec#*:}"
  d="$dir/$m"
  mkdir -p "$d"
  "$XQTB" build "$m" --dir "$d" "${common[@]}" >/dev/null
  rm -f "$d/$m.xqtb" "$d/$m.xqdtm"
  read -r full_s full_kib <<<"$(timed "$m" --dir "$d")"
  withheld_s=0
  for w in ${without//,/ }; do
    rm -f "$d/$w.xqtb" "$d/$w.xqdtm"
    read -r ws _ <<<"$(timed "$w" --dir "$d")"
    withheld_s=$(python3 -c "print(round($withheld_s + $ws, 2))")
  done
  rm -rf "$d/partial"
  read -r part_s part_kib <<<"$(timed "$m" --dir "$d" --partial --without "$without")"
  "$XQTB" stats "$m" --dir "$d" --partial-report --json >"$log/$m.json"
  python3 - "$log/$m.json" "$m" "$without" "$full_s" "$withheld_s" "$part_s" "$full_kib" "$part_kib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m, without, full_s, withheld_s, part_s, full_kib, part_kib = sys.argv[2:]
a = r["all"]
checks = [c for c in (r["against_full"], r["against_full_dtm"]) if c is not None]
n = a["positions"]
pct = lambda k: 100.0 * a[k] / n
dtm = r["against_full_dtm"]
dtm_exact = "-" if dtm is None else f"{100.0 * dtm['exact'] / n:.2f}%"
print(f"{m:<8} {without:<12} {n:>12,} {pct('exact'):>8.2f}% {pct('one_sided'):>8.2f}% "
      f"{pct('unknown'):>8.2f}% {100 * a['resolved']:>7.2f}% "
      f"{sum(c['outside'] + c['exact_differs'] for c in checks):>8} "
      f"{float(full_s):>9.1f} {float(withheld_s):>8.1f} {float(part_s):>8.1f} "
      f"{int(full_kib) >> 10:>8} {int(part_kib) >> 10:>8} {dtm_exact:>9}")
if not checks:
    sys.exit(f"{m}: nothing checked against a complete table")
for c in checks:
    if c["outside"] or c["exact_differs"] or c["positions"] != n:
        sys.exit(f"{m}: {c['outside']} outside, {c['exact_differs']} exact values differ, e.g. {c['example']}")
for p in r["by_pawns"] or []:
    rk = lambda x: "-" if x is None else x
    print(f"    pawns red {rk(p['red'])} black {rk(p['black'])}: {p['positions']:,} positions, "
          f"{100 * p['resolved']:.2f}% resolved")
PY
done
