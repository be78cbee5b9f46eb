#!/usr/bin/env bash
# Verifies a built family table by table (`xqtb verify`), each under /usr/bin/time -v, and
# records each table's result in DIR/scale/verified.tsv: material, the file's size and
# modification time, ok or failed, wall and CPU seconds, peak RSS. Resumable: a table whose
# file is recorded ok with the same size and time is skipped, so a family that takes longer to
# verify than one sitting is verified over several runs of the same command. Stops at the
# first table that fails, printing verify's report; with KEEP_GOING=1 it goes on to the other
# tables, prints each failure, and fails at the end naming them. At the end it prints the
# family's totals.
#
# The checks keep each side's values in a temporary file (2 or 4 bytes an entry) under
# $TMPDIR (default /tmp): point it at a disk with room for the largest table's.
#
# Usage: [THREADS=2] [METRIC=dtc|dtm|both] [XQTB=path] [KEEP_GOING=1] scripts/verify_family.sh
#        MATERIAL DIR
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/verify_family.sh MATERIAL DIR" >&2; exit 2; }
mat="$1"; dir="$(realpath -m "$2")"
threads="${THREADS:-2}"; metric="${METRIC:-dtc}"
if [ -z "${XQTB:-}" ]; then
  cargo build --release --locked --quiet
  XQTB="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
fi
log="$dir/scale"
mkdir -p "$log"
done_tsv="$log/verified.tsv"
[ -f "$done_tsv" ] || printf 'table\tbytes\tmtime\tresult\twall_s\tcpu_s\tpeak_rss_kib\n' >"$done_tsv"
ext=xqtb
[ "$metric" = dtm ] && ext=xqdtm
# The family in build order (supporting tables first), every table of it present.
tables=$("$XQTB" plan "$mat" --dir "$dir" --metric "$metric" --json | python3 -c '
import json, sys
seen = []
for r in json.load(sys.stdin):
    if r["material"] not in seen:
        seen.append(r["material"])
print(" ".join(seen))')
failed=()
for t in $tables; do
  file="$dir/$t.$ext"
  [ -f "$file" ] || { echo "verify_family: $file is missing: build the family first" >&2; exit 1; }
  stamp=$(stat -c '%s	%Y' "$file")
  if awk -F'\t' -v t="$t" -v s="$stamp" '$1 == t && $2 "\t" $3 == s && $4 == "ok" { f = 1 } END { exit !f }' "$done_tsv"; then
    continue
  fi
  echo "verify_family: $t" >&2
  rc=0
  /usr/bin/time -v -o "$log/$t.verify.time" "$XQTB" verify --dir "$dir" --metric "$metric" \
    --threads "$threads" --quiet "$t" >"$log/$t.verify.out" 2>&1 || rc=$?
  field() { grep -F "$1" "$log/$t.verify.time" | sed 's/.*: //' | tail -1; }
  wall=$(field "Elapsed (wall clock)" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  cpu=$(awk -v u="$(field 'User time')" -v s="$(field 'System time')" 'BEGIN { print u + s }')
  result=ok
  [ "$rc" -eq 0 ] || result=failed
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$stamp" "$result" "$wall" "$cpu" \
    "$(field 'Maximum resident set size')" >>"$done_tsv"
  if [ "$rc" -ne 0 ]; then
    echo "verify_family: $t failed (exit $rc):" >&2
    cat "$log/$t.verify.out" >&2
    [ "${KEEP_GOING:-0}" = 1 ] || exit "$rc"
    failed+=("$t")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "verify_family: ${#failed[@]} table(s) failed: ${failed[*]}" >&2
  exit 1
fi
# The latest ok row of each table of the family.
python3 - "$done_tsv" $tables <<'PY'
import csv, sys
rows = {r["table"]: r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["result"] == "ok"}
family = sys.argv[2:]
wall = sum(float(rows[t]["wall_s"]) for t in family)
cpu = sum(float(rows[t]["cpu_s"]) for t in family)
rss = max(int(rows[t]["peak_rss_kib"]) for t in family)
print(f"verified: {len(family)} tables, wall {wall:.0f} s ({wall / 3600:.2f} h), CPU {cpu:.0f} s, "
      f"peak RSS {rss / 1024:.0f} MiB")
PY
