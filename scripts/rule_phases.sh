#!/usr/bin/env bash
# The phases of one table's build under the Asian rules (or the rules given), from its
# `--verbose` lines: per phase the passes and their summed wall time (initialisation, order 0's
# plies, the rule candidates' refreshes, the pattern phases, the plies of orders 1 and up, the
# write), with the build's wall time and peak RSS. Supporting tables are built first (not timed).
# Usage: scripts/rule_phases.sh TARGET [xqtb build options, e.g. --memory 256M --rules check]
# Needs GNU time. Nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/rule_phases.sh TARGET [BUILD OPTIONS...]}; shift
[ -x /usr/bin/time ] || { echo "rule_phases: needs GNU time (/usr/bin/time)" >&2; exit 1; }
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$xq" build "$target" --dir "$work" --threads 2 --quiet "$@" >/dev/null
rm -f "$work/$target.xqtb"
/usr/bin/time -o "$work/time.txt" -f '%e %M' \
  "$xq" build "$target" --dir "$work" --threads 2 --verbose "$@" >"$work/out.txt" 2>&1
read -r wall kib <"$work/time.txt"
echo "$target $* ($(grep -o 'resident\|streaming' "$work/out.txt" | head -1)): wall $wall s, peak $((kib / 1024)) MiB"
# A phase line: "<target> <phase>: <seconds> s, ..."; the plies before the first refresh are
# order 0's.
awk -v t="$target" '
  index($0, t " ") != 1 || !/: [0-9.]+ s,/ { next }
  {
    split($0, a, ": "); s = a[2] + 0
    if ($0 ~ / init:/) k = "init"
    else if ($0 ~ / rule candidates:/) { k = "rule candidates"; rules = 1 }
    else if ($0 ~ / patterns after order/) k = "patterns"
    else if ($0 ~ / ply /) k = rules ? "plies, orders 1 and up" : "plies, order 0"
    else if ($0 ~ / write:/) k = "write"
    else next
    if (!(k in n)) order[++m] = k
    n[k]++; sum[k] += s
  }
  END {
    for (i = 1; i <= m; i++) printf "  %-24s %4d passes %8.2f s\n", order[i], n[order[i]], sum[order[i]]
  }' "$work/out.txt"
grep -c "seeded by" "$work/out.txt" | awk '{print "  orders above 0: " $1}'
